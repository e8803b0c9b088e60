"""Snakes and ladders of the course statement: the view (rules in :mod:`mdpviz.models.snakes`)."""
from __future__ import annotations

from dataclasses import replace
from typing import Callable

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView, QCheckBox, QComboBox, QFormLayout, QHBoxLayout, QHeaderView, QLabel, QPushButton,
    QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget,
)

from mdpviz.models import snakes as sn
from mdpviz.models.kit.pictures.colors import SQUARE_COLORS, SQUARE_ICONS, action_badge, text_color
from mdpviz.models.kit.pictures.display import format_faces, format_prob, parse_faces
from mdpviz.core.mdp import TabularMDP
from mdpviz.widgets import named as _named
from mdpviz.widgets.board import CellDecor
from mdpviz.widgets.game import Game
from mdpviz.widgets.session import GameSession
from mdpviz.widgets.geometry import BoardLayout, snakes_layout

SPEC = sn.SPEC

CIRCLE_TAG = "\u21bb"
"""The goal's tag on a circular board: a player must land exactly on 15 (overshooting goes on or back)."""
CIRCLE_COLOR = "#0072b2"
"""Its colour (Okabe-Ito blue)."""


# ---------------------------------------------------------------------------------- snakes and ladders
class SnakesGame(Game):
    """Snakes and ladders of the course statement (rules in :mod:`mdpviz.models.snakes`)."""

    spec = SPEC

    def __init__(self, session: GameSession | None = None, parent: QObject | None = None) -> None:
        super().__init__(session, parent)
        self.edit_mode = False
        """True: a left click cycles the square's type; False: it inspects the square."""
        self._editor: QWidget | None = None
        self._layout = snakes_layout(sn.next_squares)

    @property
    def cfg(self) -> sn.SnakesSettings:
        """The settings being edited (the session's)."""
        return self.session.settings

    def board_layout(self, mdp, policy) -> BoardLayout:
        return self._layout

    def type_name(self, t: int) -> str:
        return sn.square_type_name(t, self.cfg.type4)

    def decor(self) -> dict[int, CellDecor]:
        out = {}
        for i, t in enumerate(self.cfg.layout):
            if t:
                name = self.type_name(t)
                out[i] = CellDecor(SQUARE_ICONS[name], SQUARE_COLORS[t], name)
        out[0] = CellDecor("start", "", "start")
        # a circular board's goal carries its mark (it looked like the straight board's): land exactly
        out[sn.N_SQUARES - 1] = (CellDecor(CIRCLE_TAG, CIRCLE_COLOR, "goal", goal=True) if self.cfg.circle
                                 else CellDecor("", "", "goal", goal=True))
        return out

    def policy_glyph(self) -> tuple[str, tuple[str, ...]]:
        return "die", tuple(d.name for d in self.cfg.dice)

    def badge(self, a: int, mdp: TabularMDP) -> str:
        return action_badge(a, None, one_based=True)

    # ---------------------------------------------------------------- editing
    def editor(self) -> QWidget:
        if self._editor is None:
            self._editor = SnakesEditor(self)
        return self._editor

    def refresh_editor(self) -> None:
        if self._editor is not None:
            self._editor.refresh()

    def refuse_trap(self, square: int) -> str:
        """The message for a trap on square 1 or 15 ("" if the square can hold one)."""
        return sn.trap_refusal(square)

    def set_square(self, square: int, t: int) -> bool:
        """Give ``square`` (1..15) type ``t``; refused with a status message on squares 1 and 15."""
        if t not in sn.SQUARE_TYPES:
            raise ValueError(f"square type {t} is not one of {sorted(sn.SQUARE_TYPES)}")
        msg = self.refuse_trap(square)
        if msg and t != 0:
            return self.session.refuse(msg)
        lay = list(self.cfg.layout)
        lay[square - 1] = t
        return self.session.edit(replace(self.cfg, layout=tuple(lay)), f"square {square}: {self.type_name(t)}")

    def cycle_square(self, square: int) -> bool:
        """Next type of ``square`` (ordinary -> restart -> penalty -> prison -> type 4 -> ordinary)."""
        t = (self.cfg.layout[square - 1] + 1) % len(sn.SQUARE_TYPES)
        return self.set_square(square, t)

    def cell_clicked(self, state: int) -> bool:
        if not self.edit_mode:
            return False
        self.cycle_square(state + 1)
        return True

    def cell_menu(self, state: int):
        sq = state + 1
        entries: list[tuple[str, Callable[[], None] | None]] = []
        refused = bool(self.refuse_trap(sq))
        for t in sn.SQUARE_TYPES:
            name = self.type_name(t)
            mark = " \u2713" if self.cfg.layout[state] == t else ""
            if refused and t != 0:
                entries.append((f"{name} (not on square {sq})", None))
            else:
                entries.append((f"{name}{mark}", lambda t=t: self.set_square(sq, t)))
        return entries

    def set_circle(self, circle: bool) -> bool:
        return self.session.edit(replace(self.cfg, circle=bool(circle)), "circular board" if circle else "no circle")

    def rule_set_name(self) -> str:
        """The preset the current rules match, or "custom"."""
        return sn.rule_set_name(self.cfg)

    def set_rule_set(self, name: str) -> bool:
        return self.session.edit(sn.apply_rule_set(self.cfg, name), f"rule set: {name}")

    def set_die(self, index: int, die: sn.Die) -> bool:
        dice = list(self.cfg.dice)
        dice[index] = die
        new = replace(self.cfg, dice=tuple(dice))
        new.validate()
        return self.session.edit(new, f"die {index + 1}: {die.describe()}")

    def add_die(self) -> bool:
        new, name = sn.with_new_die(self.cfg)
        return self.session.edit(new, f"added {name}")

    def remove_die(self, index: int) -> bool:
        if len(self.cfg.dice) <= 1:
            return self.session.refuse("The game needs at least one die.")
        dice = self.cfg.dice[:index] + self.cfg.dice[index + 1:]
        try:
            new = replace(self.cfg, dice=dice).validate()
        except ValueError as e:
            return self.session.refuse(f"Cannot remove die {index + 1}: {e}")
        return self.session.edit(new, f"removed die {index + 1} ({self.cfg.dice[index].name})")

    def clear_layout(self) -> bool:
        return self.session.edit(replace(self.cfg, layout=(0,) * sn.N_SQUARES), "cleared the board")


# ---------------------------------------------------------------------------------- the editor
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
        self.circle = _named(QCheckBox(f"Circle: stop exactly on 15 ({CIRCLE_TAG} on the goal)"), "circleToggle",
                             "Circular board")
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
        game.session.edited.connect(lambda _: self.refresh())
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
        self.game.session.message.emit("Click a square to cycle its type (squares 1 and 15 stay ordinary)." if on
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
            self.game.session.refuse(f"Die {i + 1} not changed: {e}")
        self.refresh()


VIEW = SnakesGame
"""This game's view (the registry finds it here by the game's key)."""
