"""The games' editing panels: snakes and ladders (rule set, circle, dice, edit mode) and the
"MDP from file" panel. They call the game's edit methods; every edit goes through its undo stack."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from mdpviz.models import snakes as sn
from mdpviz.models.colors import SQUARE_COLORS, SQUARE_ICONS, text_color
from mdpviz.models.display import format_faces, format_prob, parse_faces
from mdpviz.widgets.geometry import GRAPH_MAX_STATES
from mdpviz.widgets import named as _named




class SnakesEditor(QWidget):
    """Rule set, circle toggle, click-to-edit toggle, square-type legend and the dice table."""

    def __init__(self, game, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.game = game
        self.setObjectName("snakesEditor")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.rules = _named(QComboBox(), "ruleSetPicker", "Rule set")
        for name in sn.RULE_SETS:
            self.rules.addItem(name)
        self.rules.addItem("custom")
        self.rules.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.rules.setMinimumContentsLength(8)
        self.rules.setToolTip("Presets of the course's rule variants (type-4 square, overshoot, dice)")
        form.addRow("Rules", self.rules)
        self.circle = _named(QCheckBox("Circle: stop exactly on 15"), "circleToggle", "Circular board")
        self.circle.setToolTip("On a circular board you must land exactly on 15; overshooting restarts from square 1")
        form.addRow(self.circle)
        lay.addLayout(form)

        row = QHBoxLayout()
        self.edit_mode = _named(QPushButton("Edit squares"), "editModeButton", "Edit squares by clicking")
        self.edit_mode.setCheckable(True)
        self.edit_mode.setToolTip("On: a click on a square cycles its type.\nOff: a click inspects the square.\n"
                                  "Right-click a square for a menu of types either way.")
        self.clear = _named(QPushButton("Clear"), "clearBoardButton", "Clear all traps")
        self.clear.setToolTip("Make every square ordinary")
        row.addWidget(self.edit_mode, 1)
        row.addWidget(self.clear)
        lay.addLayout(row)

        self.legend = _named(QLabel(), "squareLegend", "Square types")
        self.legend.setWordWrap(True)
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        lay.addWidget(self.legend)
        lay.addWidget(QLabel("Dice (faces as move:probability)"))
        self.dice = _named(QTableWidget(0, 3), "diceEditor", "Dice editor")
        self.dice.setHorizontalHeaderLabels(["Die", "Faces", "Trigger"])
        self.dice.verticalHeader().setVisible(True)
        hh = self.dice.horizontalHeader()
        hh.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        hh.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        hh.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        self.dice.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.dice.setWordWrap(True)
        self.dice.setToolTip("Double-click to edit: name, faces such as 0:1/3, 1:1/3, 2:1/3, "
                             "and the probability that a trap or bonus fires")
        lay.addWidget(self.dice, 1)
        row = QHBoxLayout()
        self.add_die = _named(QPushButton("Add die"), "addDieButton", "Add a die")
        self.remove_die = _named(QPushButton("Remove die"), "removeDieButton", "Remove the selected die")
        row.addWidget(self.add_die)
        row.addWidget(self.remove_die)
        lay.addLayout(row)

        self.rules.currentIndexChanged.connect(self._on_rules)
        self.circle.toggled.connect(lambda on: self.game.set_circle(on))
        self.edit_mode.toggled.connect(self._on_edit_mode)
        self.clear.clicked.connect(lambda: self.game.clear_layout())
        self.add_die.clicked.connect(lambda: self.game.add_die())
        self.remove_die.clicked.connect(self._on_remove)
        self.dice.itemChanged.connect(self._on_die_edited)
        game.edited.connect(lambda _: self.refresh())
        self.refresh()

    def refresh(self) -> None:
        """Show the game's current configuration (without triggering edits)."""
        cfg = self.game.cfg
        for w in (self.rules, self.circle, self.dice):
            w.blockSignals(True)
        name = self.game.rule_set_name()
        self.rules.setCurrentIndex(self.rules.findText(name))
        self.circle.setChecked(bool(cfg.circle))
        self.dice.setRowCount(len(cfg.dice))
        for i, d in enumerate(cfg.dice):
            for j, text in enumerate((d.name, format_faces(d.faces), format_prob(d.trigger))):
                it = QTableWidgetItem(text)
                it.setToolTip(d.describe())
                self.dice.setItem(i, j, it)
        self.dice.setVerticalHeaderLabels([str(i + 1) for i in range(len(cfg.dice))])
        self.dice.resizeRowsToContents()
        for w in (self.rules, self.circle, self.dice):
            w.blockSignals(False)
        self._fill_legend()

    def _fill_legend(self) -> None:
        items = []
        for t in range(1, len(sn.SQUARE_TYPES)):
            name = self.game.type_name(t)
            col = QColor(SQUARE_COLORS[t])
            ink = text_color((col.red(), col.green(), col.blue()))
            glyph = SQUARE_ICONS[name].replace("<", "&lt;")
            items.append(f"<span style='background:{SQUARE_COLORS[t]}; color:{ink}; font-weight:bold'>"
                         f"&nbsp;{glyph}&nbsp;</span>&nbsp;{t}&nbsp;{name}")
        self.legend.setText("&nbsp;&nbsp; ".join(items))

    def _on_rules(self, index: int) -> None:
        name = self.rules.itemText(index)
        if name == "custom":
            self.refresh()
            return
        self.game.set_rule_set(name)
        self.refresh()

    def _on_edit_mode(self, on: bool) -> None:
        self.game.edit_mode = bool(on)
        self.game.message.emit("Click a square to cycle its type (squares 1 and 15 stay ordinary)." if on
                               else "Click a square to inspect it.")

    def _on_remove(self) -> None:
        rows = sorted({i.row() for i in self.dice.selectedIndexes()})
        index = rows[0] if rows else len(self.game.cfg.dice) - 1
        self.game.remove_die(index)

    def _on_die_edited(self, item: QTableWidgetItem) -> None:
        i = item.row()
        if i >= len(self.game.cfg.dice):
            return
        name = self.dice.item(i, 0).text().strip() if self.dice.item(i, 0) else ""
        faces_text = self.dice.item(i, 1).text() if self.dice.item(i, 1) else ""
        trig_text = self.dice.item(i, 2).text() if self.dice.item(i, 2) else ""
        try:
            faces = parse_faces(faces_text)
            trig = parse_faces(f"0:{trig_text}")[0][1]
            die = sn.Die(name, faces, trig)
            self.game.set_die(i, die)
        except ValueError as e:
            self.game.message.emit(f"Die {i + 1} not changed: {e}")
        self.refresh()


class FileEditor(QWidget):
    """Open a course-format MDP file, see what it holds, pick the grid or the graph view."""

    open_requested = Signal()

    def __init__(self, game, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.game = game
        self.setObjectName("fileEditor")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.open = _named(QPushButton("Open course MDP file\u2026"), "openMdpButton", "Open course MDP file")
        self.open.clicked.connect(self.open_requested)
        lay.addWidget(self.open)
        self.summary = _named(QLabel(), "fileSummary", "Loaded MDP")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay.addWidget(self.summary)
        form = QFormLayout()
        self.view = _named(QComboBox(), "viewPicker", "Board view")
        self.view.addItems(["grid", "graph"])
        self.view.setToolTip(f"The graph view (arrows weighted by probability) is offered up to {GRAPH_MAX_STATES} states")
        form.addRow("View", self.view)
        self.start = _named(QSpinBox(), "startStateSpin", "Start state")
        self.start.setPrefix("state ")
        self.start.setToolTip("Where simulated games and played episodes start (default: the first state that "
                              "is not terminal)")
        form.addRow("Start", self.start)
        lay.addLayout(form)
        lay.addStretch(1)
        self.view.currentIndexChanged.connect(lambda i: (self.game.set_view(self.view.itemText(i)), self.refresh()))
        self.start.valueChanged.connect(lambda v: self.game.set_start(int(v)))
        game.edited.connect(lambda _: self.refresh())
        game.redraw.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        st = self.game.fstate
        m = self.game.mdp()
        if m is None:
            self.summary.setText("No file loaded. Course files list numStates, numActions, end, "
                                 "transition s a s' r p lines, mdptype and discount.")
        else:
            kind = m.mdptype or ("episodic" if m.terminal.any() else "continuing")
            ends = ", ".join(str(int(s)) for s in m.terminal.nonzero()[0][:8]) or "none"
            self.summary.setText(
                f"<b>{Path(st.path).name}</b><br>{m.n_states} states, {m.n_actions} actions, "
                f"{m.n_transitions} transitions<br>{kind}, discount {m.discount:g}<br>terminal: {ends}")
        self.start.blockSignals(True)
        self.start.setRange(0, max(0, (m.n_states - 1) if m is not None else 0))
        self.start.setEnabled(m is not None)
        self.start.setValue(self.game.start_state())
        self.start.blockSignals(False)
        self.view.blockSignals(True)
        self.view.setCurrentText(self.game.view)
        item = self.view.model().item(1)
        if item is not None:
            item.setEnabled(m is None or m.n_states <= GRAPH_MAX_STATES)
        self.view.blockSignals(False)
