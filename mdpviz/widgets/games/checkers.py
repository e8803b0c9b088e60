"""Checkers in the main window: the board with men and kings, the agent's move values, the discount lesson.

The rules, the state enumeration and the compiled MDP live in :mod:`mdpviz.models.checkers`, the
board's positions in :mod:`mdpviz.models.checkers.play`, the settings, the compile and simulation
jobs and the registry's spec in :mod:`mdpviz.models.checkers.spec`; this module only shows them
through the common board-game view (:mod:`mdpviz.widgets.position`):

* :class:`CheckersPainter`: dark and light squares, men as discs and kings as discs with a crown;
* :class:`CheckersGame`: the :class:`~mdpviz.widgets.position.PositionGame` view; its session
  compiles the variant (the spec's :func:`~mdpviz.models.checkers.spec.compile_job`) on the
  controller's job thread, with progress and Cancel;
* :class:`CheckersEditor`: the variant, the agent's colour and the discount slider (greedy 0.1 vs
  far-sighted 0.9: the seed's lesson).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from PySide6.QtCore import QObject, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPen, QPolygonF
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSlider,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from mdpviz.models import checkers as ck
from mdpviz.models.checkers.spec import (
    FAR_SIGHTED_DISCOUNT,
    GREEDY_DISCOUNT,
    RULE_FIELDS,
    SPEC,
    CheckersSettings,
)
from mdpviz.models.checkers.play import COLOUR_NAME, CheckersPositionModel, cell_square, is_dark
from mdpviz.widgets import named as _named
from mdpviz.widgets.position import BoardPainter, GridPainter, PositionGame
from mdpviz.widgets.session import BUILT_KEPT, GameSession

DISCOUNT_STEPS = 100
"""The discount slider moves in steps of 1 / DISCOUNT_STEPS."""

LIGHT_SQUARE = "#f1e4c8"
"""Fill of the light squares (never used in play)."""
DARK_SQUARE = "#a47b56"
"""Fill of the dark squares without a value (pieces and the value colours read on it)."""
BLACK_PIECE = "#1b1b1b"
"""Fill of Black's pieces (outlined in white so they read on every value colour)."""
WHITE_PIECE = "#fbfbf8"
"""Fill of White's pieces (outlined in black)."""

# ---------------------------------------------------------------------------------- the painter
class CheckersPainter(GridPainter):
    """A checkers board: rank 1 at the bottom, files a.. left to right (labelled), dark and light
    squares; men are discs, kings discs with a crown. Codes: +1/+2 Black man/king, -1/-2 White."""

    MARGIN = 16.0
    """Pixels left of and below the board for the rank and file labels."""

    def cell_rects(self, rect: QRectF, n_cells: int) -> list[QRectF]:
        n = self.size
        area = rect.adjusted(self.MARGIN, 0, 0, -self.MARGIN)
        side = min(area.width() / n, area.height() / n)
        x0 = area.left() + (area.width() - side * n) / 2
        y0 = area.top() + (area.height() - side * n) / 2
        out = []
        for i in range(n_cells):
            r, c = divmod(i, n)
            out.append(QRectF(x0 + c * side, y0 + (n - 1 - r) * side, side, side))
        return out

    def paint_background(self, qp: QPainter, rect: QRectF, cells: list[QRectF]) -> None:
        n = self.size
        if len(cells) < n * n:
            return
        qp.setPen(QColor("#333333"))
        f = QFont(qp.font())
        f.setPixelSize(max(9, min(14, int(cells[0].width() * 0.22))))
        qp.setFont(f)
        for c in range(n):
            r = cells[c]
            qp.drawText(QRectF(r.left(), r.bottom() + 1, r.width(), self.MARGIN - 1),
                        Qt.AlignmentFlag.AlignCenter, chr(ord("a") + c))
        for row in range(n):
            r = cells[row * n]
            qp.drawText(QRectF(r.left() - self.MARGIN, r.top(), self.MARGIN - 2, r.height()),
                        Qt.AlignmentFlag.AlignCenter, str(row + 1))

    def cell_base(self, cell: int) -> QColor:
        return QColor(DARK_SQUARE if is_dark(cell, self.size) else LIGHT_SQUARE)

    def paint_piece(self, qp: QPainter, r: QRectF, cell: int, code: int) -> None:
        black = code > 0
        pad = r.width() * 0.16
        disc = r.adjusted(pad, pad * 0.8, -pad, -pad * 1.2)
        rim = max(1.5, r.width() * 0.035)
        fill, ink = (QColor(BLACK_PIECE), QColor("#ffffff")) if black else (QColor(WHITE_PIECE), QColor("#000000"))
        qp.save()
        qp.setPen(QPen(ink, rim))
        qp.setBrush(fill)
        qp.drawEllipse(disc)
        inner = disc.adjusted(disc.width() * 0.16, disc.height() * 0.16, -disc.width() * 0.16, -disc.height() * 0.16)
        qp.setPen(QPen(QColor("#777777") if black else QColor("#999999"), max(1.0, rim * 0.6)))
        qp.setBrush(Qt.BrushStyle.NoBrush)
        qp.drawEllipse(inner)
        if abs(code) >= 2:  # a king: a crown inside the disc
            w, h = inner.width() * 0.62, inner.height() * 0.42
            x, y = inner.center().x() - w / 2, inner.center().y() - h / 2
            crown = QPolygonF([QPointF(x, y + h), QPointF(x, y), QPointF(x + w * 0.25, y + h * 0.45),
                               QPointF(x + w * 0.5, y - h * 0.05), QPointF(x + w * 0.75, y + h * 0.45),
                               QPointF(x + w, y), QPointF(x + w, y + h)])
            qp.setPen(QPen(ink, max(1.0, rim * 0.7)))
            qp.setBrush(QColor("#e69f00"))  # Okabe-Ito orange: the crown reads on both colours
            qp.drawPolygon(crown)
        qp.restore()

    def cell_name(self, cell: int) -> str:
        return f"{cell_square(cell, self.size)} ({'dark' if is_dark(cell, self.size) else 'light'} square)"


# ---------------------------------------------------------------------------------- the game
class CheckersGame(PositionGame):
    """Checkers against a uniformly random opponent (seed 004), solved by the window's solvers.

    The session compiles the variant on the controller's job thread when it is first needed (its
    spec's ``jobs["compile"]``: progress and Cancel in the editor; the board says "Compiling"); the
    model is the compiled MDP with the edited discount, None while the compile runs.
    """

    spec = SPEC

    def __init__(self, session: GameSession | None = None, parent: QObject | None = None) -> None:
        super().__init__(session, parent)
        self._models: dict[tuple, CheckersPositionModel] = {}
        self._editor: CheckersEditor | None = None

    def initial_settings(self) -> CheckersSettings:
        return CheckersSettings().validate()

    @property
    def settings(self) -> CheckersSettings:
        """The settings being edited (the session's)."""
        return self.session.settings

    # ------------------------------------------------------------------ the board
    def position_model(self) -> CheckersPositionModel | None:
        cm = self.session.built()
        if cm is None:  # not compiled yet (the window's reset asks for the compile)
            return None
        mdp = self.session.mdp()
        key = self.settings.key
        model = self._models.get(key)
        if model is None or model.cm is not cm:
            model = self._models[key] = CheckersPositionModel(cm, mdp)
            while len(self._models) > BUILT_KEPT:  # as many as the session keeps compiled
                del self._models[next(k for k in self._models if k != key)]
        model.use_mdp(mdp)
        return model

    def painter(self) -> BoardPainter:
        return CheckersPainter(self.settings.rules.size)

    def empty_text(self) -> str:
        s = self.session
        if s.compiling:
            return s.progress_text or f"Compiling {self.settings.rules.describe()}\u2026"
        if s.compile_held:
            return "Compile cancelled: press Build in the Game panel to enumerate this variant."
        return f"Compiling {self.settings.rules.describe()}\u2026"

    def building_text(self) -> str:
        """The variant's compile, in the words of :meth:`empty_text` ("" when it is not being built)."""
        return self.empty_text() if self.session.building else ""

    def model_summary(self) -> str:
        """One line: the variant's state count and compile time (or why there is none)."""
        s = self.session
        err = s.mdp_error()
        if err:
            return err
        cm = s.built()
        if cm is None:
            return "Compiling\u2026" if s.compiling else "Not compiled yet."
        return (f"{cm.n_states:,} states ({cm.n_positions:,} distinct positions) \u00b7 "
                f"{cm.mdp.n_transitions:,} transitions \u00b7 compiled in {cm.seconds:.2f} s")

    # ------------------------------------------------------------------ edits
    def set_settings(self, new: CheckersSettings, text: str) -> bool:
        """Apply an edit (validated; a refused edit leaves everything as it was and says why)."""
        try:
            new.validate()
        except ValueError as e:
            return self._refuse(e)
        return self.session.edit(new, text)

    def set_variant(self, **changes: Any) -> bool:
        """Change variant fields (size, rows, forced_capture, multi_jump, ply_limit, agent); a refused
        variant leaves everything as it was and says why."""
        unknown = set(changes) - set(RULE_FIELDS) - {"agent"}
        if unknown:
            raise ValueError(f"unknown checkers setting(s): {', '.join(sorted(unknown))}")
        text = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in changes.items())
        old = self.settings.rules
        rule_changes = {k: v for k, v in changes.items() if k != "agent"}
        size = rule_changes.get("size", old.size)
        if size != old.size and "rows" not in rule_changes:
            rule_changes["rows"] = min(old.rows, max(1, (size - 1) // 2))
        try:
            rules = replace(old, **rule_changes)
        except ValueError as e:
            return self._refuse(e)
        return self.set_settings(replace(self.settings, rules=rules, agent=changes.get("agent", self.settings.agent)),
                                 text)

    def _refuse(self, e: ValueError) -> bool:
        return self.session.refuse(f"Checkers: {e}")  # the window puts the editor back (refresh_editor)

    # ------------------------------------------------------------------ window hooks
    def editor(self) -> QWidget:
        if self._editor is None:
            self._editor = CheckersEditor(self)
        return self._editor

    def refresh_editor(self) -> None:
        if self._editor is not None:
            self._editor.refresh()


# ---------------------------------------------------------------------------------- the editor


def discount_words(gamma: float) -> str:
    """What a discount does to the checkers agent, in a few words (for the slider's label)."""
    if gamma <= 0.3:
        return "greedy: grabs material now"
    if gamma < 0.8:
        return "weighs material and the result"
    return "far-sighted: plays for the +100 win"


class CheckersEditor(QWidget):
    """The checkers panel: the variant, the agent's colour, the discount slider, the state count and
    the compile's progress with Cancel / Build."""

    def __init__(self, game: CheckersGame, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("checkersEditor")
        self.game = game
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(4)
        grid = QGridLayout()
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(6)
        self.size_combo = _named(QComboBox(), "checkersSize", "Board size")
        for n in range(ck.MIN_SIZE, ck.MAX_SIZE + 1):
            self.size_combo.addItem(f"{n} \u00d7 {n}", n)
        self.size_combo.setToolTip("Board side n: the game is played on the dark squares of an n x n board")
        self.rows_spin = _named(QSpinBox(), "checkersRows", "Rows of men per side")
        self.rows_spin.setRange(1, (ck.MAX_SIZE - 1) // 2)
        self.rows_spin.setToolTip("Rows of men each side starts with (at least one empty row between the sides)")
        self.ply_spin = _named(QSpinBox(), "checkersPlyLimit", "Ply limit")
        self.ply_spin.setRange(0, 200)
        self.ply_spin.setSpecialValueText("none")
        self.ply_spin.setKeyboardTracking(False)  # typing "40" is one edit (one compile), not "4" then "40"
        self.ply_spin.setToolTip("A draw after this many half-moves (part of the state); none: games may cycle "
                                 "(then the discount must be below 1)")
        self.agent_combo = _named(QComboBox(), "checkersAgent", "Agent colour")
        self.agent_combo.addItem("Black", ck.BLACK)
        self.agent_combo.addItem("White", ck.WHITE)
        self.agent_combo.setToolTip("The colour the agent plays (Black moves first); the other colour picks "
                                    "uniformly among its legal moves")
        grid.addWidget(QLabel("Board"), 0, 0)
        grid.addWidget(self.size_combo, 0, 1)
        grid.addWidget(QLabel("Rows"), 0, 2)
        grid.addWidget(self.rows_spin, 0, 3)
        grid.addWidget(QLabel("Plies"), 1, 0)
        grid.addWidget(self.ply_spin, 1, 1)
        grid.addWidget(QLabel("Agent"), 1, 2)
        grid.addWidget(self.agent_combo, 1, 3)
        self.forced_check = _named(QCheckBox("Forced capture"), "checkersForcedCapture", "Forced capture")
        self.forced_check.setToolTip("When a capture exists the move must capture (English draughts)")
        self.multi_check = _named(QCheckBox("Multi-jump"), "checkersMultiJump", "Multi-jump chains")
        self.multi_check.setToolTip("A capturing piece keeps jumping while it can (a chain is one move)")
        grid.addWidget(self.forced_check, 2, 0, 1, 2)
        grid.addWidget(self.multi_check, 2, 2, 1, 2)
        grid.setColumnStretch(1, 1)
        grid.setColumnStretch(3, 1)
        lay.addLayout(grid)

        self.discount_label = _named(QLabel(""), "checkersDiscountLabel", "Discount")
        self.discount_label.setWordWrap(True)
        lay.addWidget(self.discount_label)
        self.discount_slider = _named(QSlider(Qt.Orientation.Horizontal), "checkersDiscountSlider",
                                      "Discount: greedy to far-sighted")
        self.discount_slider.setRange(0, DISCOUNT_STEPS)
        self.discount_slider.setTracking(False)  # one edit (and one solver reset) when the slider is released
        self.discount_slider.setToolTip("gamma per agent move: 0.1 (the seed's) makes the agent greedy for "
                                        "material; near 1 it plans for the +100 win")
        lay.addWidget(self.discount_slider)
        row = QHBoxLayout()
        self.greedy_button = _named(QPushButton(f"Greedy {GREEDY_DISCOUNT:g}"), "checkersGreedyButton",
                                    "Greedy discount")
        self.greedy_button.setToolTip(f"Discount {GREEDY_DISCOUNT:g} (the seed's): material now counts most")
        self.far_button = _named(QPushButton(f"Far-sighted {FAR_SIGHTED_DISCOUNT:g}"), "checkersFarSightedButton",
                                 "Far-sighted discount")
        self.far_button.setToolTip(f"Discount {FAR_SIGHTED_DISCOUNT:g}: the +100 win, moves ahead, counts")
        row.addWidget(self.greedy_button)
        row.addWidget(self.far_button)
        lay.addLayout(row)

        self.info = _named(QLabel(""), "checkersModelInfo", "State count")
        self.info.setWordWrap(True)
        self.info.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay.addWidget(self.info)
        row = QHBoxLayout()
        self.progress = _named(QProgressBar(), "checkersCompileProgress", "Compile progress")
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.progress.setTextVisible(False)
        self.progress.setVisible(False)
        row.addWidget(self.progress, 1)
        self.cancel_button = _named(QPushButton("Cancel"), "checkersCancelCompile", "Cancel the compile")
        self.build_button = _named(QPushButton("Build"), "checkersBuild", "Enumerate and compile the variant")
        self.build_button.setToolTip("Enumerate the variant's states and compile the MDP (after a Cancel)")
        row.addWidget(self.cancel_button)
        row.addWidget(self.build_button)
        lay.addLayout(row)
        self.status = _named(QLabel(""), "checkersCompileStatus", "Compile status")
        self.status.setWordWrap(True)
        self.status.setVisible(False)
        lay.addWidget(self.status)
        lay.addStretch(1)

        self.size_combo.currentIndexChanged.connect(lambda _i: self.game.set_variant(
            size=int(self.size_combo.currentData())))
        self.rows_spin.valueChanged.connect(lambda v: self.game.set_variant(rows=int(v)))
        self.ply_spin.valueChanged.connect(lambda v: self.game.set_variant(ply_limit=int(v) or None))
        self.agent_combo.currentIndexChanged.connect(lambda _i: self.game.set_variant(
            agent=self.agent_combo.currentData()))
        self.forced_check.toggled.connect(lambda on: self.game.set_variant(forced_capture=bool(on)))
        self.multi_check.toggled.connect(lambda on: self.game.set_variant(multi_jump=bool(on)))
        self.discount_slider.valueChanged.connect(self._on_slider)
        self.discount_slider.sliderMoved.connect(lambda v: self._show_discount(v / DISCOUNT_STEPS))
        self.greedy_button.clicked.connect(lambda: self.set_discount(GREEDY_DISCOUNT))
        self.far_button.clicked.connect(lambda: self.set_discount(FAR_SIGHTED_DISCOUNT))
        self.cancel_button.clicked.connect(self.game.session.cancel_compile)
        self.build_button.clicked.connect(self.game.session.build_now)
        game.session.edited.connect(lambda _t: self.refresh())
        game.session.changed.connect(self.show_compile)
        self._shown_compiling = False
        self.refresh()

    def set_discount(self, gamma: float) -> bool:
        """Set the discount as the slider does (one edit); False with a status message if refused."""
        try:
            return self.game.session.set_discount(gamma)
        except ValueError as e:
            return self.game.session.refuse(str(e))

    def _on_slider(self, v: int) -> None:
        self.set_discount(v / DISCOUNT_STEPS)

    def _show_discount(self, gamma: float) -> None:
        self.discount_label.setText(f"Discount \u03b3 = {gamma:.2f} \u2014 {discount_words(gamma)}")

    def refresh(self) -> None:
        """Show the game's settings and model (without triggering edits)."""
        s = self.game.settings
        widgets = (self.size_combo, self.rows_spin, self.ply_spin, self.agent_combo, self.forced_check,
                   self.multi_check, self.discount_slider)
        for w in widgets:
            w.blockSignals(True)
        r = s.rules
        self.size_combo.setCurrentIndex(max(0, self.size_combo.findData(r.size)))
        self.rows_spin.setMaximum(max(1, (r.size - 1) // 2))
        self.rows_spin.setValue(r.rows)
        self.ply_spin.setValue(r.ply_limit or 0)
        self.agent_combo.setCurrentIndex(max(0, self.agent_combo.findData(s.agent)))
        self.forced_check.setChecked(r.forced_capture)
        self.multi_check.setChecked(r.multi_jump)
        self.discount_slider.setValue(int(round(s.discount * DISCOUNT_STEPS)))
        for w in widgets:
            w.blockSignals(False)
        self._show_discount(s.discount)
        self.info.setText(self.game.model_summary())
        self.info.setToolTip(f"{s.rules.describe()}, agent {COLOUR_NAME[s.agent]}. Reward on entering a "
                             "position: 1.5 \u00d7 (my men + 3.33 my kings \u2212 their men \u2212 3.33 their "
                             "kings); win +100, loss \u2212100, draw 0. The opponent replies uniformly at random.")
        running = self.game.session.compiling
        self.cancel_button.setEnabled(running)
        self.build_button.setEnabled(not running and self.game.session.built() is None)

    def show_compile(self) -> None:
        """The session's compile: an indeterminate bar when it starts, its progress, nothing when it ended."""
        s = self.game.session
        if s.compiling:
            done, total = s.progress
            text = s.progress_text or f"Compiling {self.game.settings.rules.describe()}\u2026"
            self.progress.setRange(0, max(0, total))
            if total:
                self.progress.setValue(done)
            self.progress.setVisible(True)
            self.status.setText(text)
            self.status.setVisible(bool(text))
        elif self._shown_compiling:
            self.progress.setRange(0, 1)
            self.progress.setValue(0)
            self.progress.setVisible(False)
            self.status.setText("")
            self.status.setVisible(False)
        if s.compiling != self._shown_compiling:
            self._shown_compiling = s.compiling
            self.refresh()


__all__ = ["CheckersEditor", "CheckersGame", "CheckersPainter", "discount_words"]


VIEW = CheckersGame
"""This game's view (the registry finds it here by the game's key)."""
