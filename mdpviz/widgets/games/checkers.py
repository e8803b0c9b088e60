"""Checkers in the main window: the board with men and kings, the agent's move values, the discount lesson.

The rules, the state enumeration and the compiled MDP live in :mod:`mdpviz.models.checkers`, the
board's positions in :mod:`mdpviz.models.checkers.play`, the settings, the compile and simulation
jobs and the registry's spec in :mod:`mdpviz.models.checkers.spec`; this module only shows them
through the common board-game view (:mod:`mdpviz.widgets.position`):

* :class:`CheckersPainter`: dark and light squares, men as discs and kings as discs with a crown;
* :class:`CheckersGame`: the :class:`~mdpviz.widgets.position.PositionGame` (the window's game),
  whose enumeration and compile (:func:`~mdpviz.models.checkers.spec.compile_job`) run on the
  controller's job thread with progress and Cancel;
* :class:`CheckersEditor`: the variant, the agent's colour and the discount slider (greedy 0.1 vs
  far-sighted 0.9: the seed's lesson).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
from PySide6.QtCore import QObject, QPointF, QRectF, Qt, QTimer
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

from mdpviz.models.jobs import Job
from mdpviz.models import checkers as ck
from mdpviz.models.checkers.spec import (
    FAR_SIGHTED_DISCOUNT,
    GREEDY_DISCOUNT,
    MATCHUPS,
    RULE_FIELDS,
    SPEC,
    CheckersSettings,
    compile_job,
    lesson,
    matchup_job,
    settings_from_dict,
    settings_to_dict,
    with_discount,
)
from mdpviz.models.checkers.play import COLOUR_NAME, CheckersPositionModel, annotate_terms, cell_square, is_dark
from mdpviz.models.kit.display import BackupTerm
from mdpviz.models.mdp import TabularMDP
from mdpviz.widgets import named as _named
from mdpviz.widgets.position import BoardPainter, GridPainter, PositionGame

MAX_COMPILED = 3
"""Compiled variants kept in memory (so Undo of a variant edit does not recompile)."""

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

    The variant is compiled on the controller's job thread when it is first needed (progress and
    Cancel in the editor; the board says "Compiling"); ``build_mdp`` returns the compiled MDP with
    the edited discount, or None while the compile runs.
    """

    spec = SPEC
    supports_discount = True

    def __init__(self, settings: CheckersSettings | None = None, parent: QObject | None = None) -> None:
        super().__init__((settings or CheckersSettings()).validate(), parent)
        self._compiled: dict[tuple, ck.CheckersMDP] = {}
        self._mdps: dict[tuple, TabularMDP] = {}
        self._models: dict[tuple, CheckersPositionModel] = {}
        self._errors: dict[tuple, str] = {}
        self._compiling: tuple | None = None
        self._starting = False
        self._user_cancel = False
        self._held: tuple | None = None  # a compile the user cancelled: not restarted until Build
        self._progress_text = ""
        self._editor: CheckersEditor | None = None
        self._start_timer = QTimer(self)
        self._start_timer.setSingleShot(True)
        self._start_timer.timeout.connect(self._start_compile)

    @property
    def settings(self) -> CheckersSettings:
        """The current edits."""
        return self._state

    # ------------------------------------------------------------------ the model
    def compiled(self) -> ck.CheckersMDP | None:
        """The compiled variant of the current settings, or None (not compiled yet)."""
        return self._compiled.get(self.settings.key)

    @property
    def compiling(self) -> bool:
        """A compile is running on the job thread."""
        return self._compiling is not None

    def build_mdp(self) -> TabularMDP | None:
        s = self.settings
        key = s.key
        if key in self._errors:
            raise ValueError(self._errors[key])
        cm = self._compiled.get(key)
        if cm is None:
            self._request_compile()
            return None
        mk = (key, float(s.discount))
        m = self._mdps.get(mk)
        if m is None:
            m = with_discount(cm, s.discount)
            self._mdps = {k: v for k, v in self._mdps.items() if k[0] in self._compiled}
            self._mdps[mk] = m
        return m

    def position_model(self) -> CheckersPositionModel | None:
        key = self.settings.key
        cm = self._compiled.get(key)
        if cm is None:
            return None
        mdp = self.mdp()
        if mdp is None:
            return None
        model = self._models.get(key)
        if model is None:
            model = self._models[key] = CheckersPositionModel(cm, mdp)
        model.use_mdp(mdp)
        return model

    def painter(self) -> BoardPainter:
        return CheckersPainter(self.settings.rules.size)

    def empty_text(self) -> str:
        if self._compiling is not None and self._compiling == self.settings.key:
            return self._progress_text or f"Compiling {self.settings.rules.describe()}\u2026"
        if self._held == self.settings.key:
            return "Compile cancelled: press Build in the Game panel to enumerate this variant."
        return f"Compiling {self.settings.rules.describe()}\u2026"

    def discount(self) -> float | None:
        return float(self.settings.discount)

    def start_state(self) -> int:
        cm = self.compiled()
        return 0 if cm is None else int(cm.start_states[0])

    # ------------------------------------------------------------------ compile on the job thread
    def _request_compile(self) -> None:
        """Start compiling the current variant soon (after the window has finished its reset, which
        cancels any job in flight), unless it runs already or the user cancelled it."""
        key = self.settings.key
        if self._compiling == key or self._held == key or key in self._compiled:
            return
        if not self._start_timer.isActive():
            self._start_timer.start(0)

    def build(self) -> None:
        """(Re)start the compile of the current variant (the Build button, e.g. after Cancel)."""
        self._held = None
        self._errors.pop(self.settings.key, None)
        self._mdp_cache = None
        self._request_compile()
        self.redraw.emit()

    def cancel_compile(self) -> None:
        """Cancel the running compile (Cancel button); it is not restarted until Build."""
        if self._compiling is not None:
            self._user_cancel = True
            self.cancel_job()

    def _start_compile(self) -> None:
        s = self.settings
        key = s.key
        if key in self._compiled or self._held == key or key in self._errors:
            return
        if self._compiling is not None:
            if self._compiling != key:  # an older variant is compiling: stop it, then start this one
                self.cancel_job()
            return
        self._compiling = key
        self._user_cancel = False
        self._progress_text = f"Compiling {s.rules.describe()}\u2026"
        self._starting = True
        try:
            self.run_job(Job(lambda s=s: compile_job(s), label=f"Checkers: compiling {s.rules.describe()}",
                             on_done=lambda cm, key=key: self._on_compiled(key, cm),
                             on_progress=self._on_compile_progress,
                             on_failed=lambda msg, key=key: self._on_compile_failed(key, msg),
                             on_cancelled=lambda key=key: self._on_compile_cancelled(key)))
        finally:
            self._starting = False
        if self._compiling == key:  # the window took it (else a retry is scheduled)
            self._show_progress(True)

    def _on_compile_progress(self, done: int, total: int, text: str) -> None:
        self._progress_text = text
        if self._editor is not None:
            self._editor.show_progress(done, total, text)
        self.redraw.emit()

    def _on_compiled(self, key: tuple, cm: ck.CheckersMDP | None) -> None:
        self._compiling = None
        self._show_progress(False)
        if cm is None:
            self._on_compile_cancelled(key)
            return
        self._compiled[key] = cm
        while len(self._compiled) > MAX_COMPILED:
            old = next(k for k in self._compiled if k != self.settings.key)
            del self._compiled[old]
            self._models.pop(old, None)
        if self._editor is not None:
            self._editor.refresh()
        if key == self.settings.key:
            self._mdp_cache = None
            self.edited.emit(f"compiled {cm.rules.describe()}: {cm.n_states:,} states")
            self.message.emit(self.model_summary())
        else:
            self._request_compile()

    def _on_compile_failed(self, key: tuple, msg: str) -> None:
        self._compiling = None
        if self._starting:  # the window refused to start it (another job is finishing): try again soon
            self._start_timer.start(150)
            return
        self._show_progress(False)
        self._errors[key] = msg
        if self._editor is not None:
            self._editor.refresh()
        if key == self.settings.key:
            self._mdp_cache = None
            self.edited.emit("checkers variant refused")
        else:
            self._request_compile()

    def _on_compile_cancelled(self, key: tuple) -> None:
        self._compiling = None
        self._show_progress(False)
        if self._user_cancel and key == self.settings.key:
            self._held = key
            self.message.emit("Checkers compile cancelled.")
        self._user_cancel = False
        self._mdp_cache = None  # the next mdp() call asks again (a game switch cancels without holding)
        if self._editor is not None:
            self._editor.refresh()
        if key != self.settings.key:
            self._request_compile()
        self.redraw.emit()

    def _show_progress(self, running: bool) -> None:
        if self._editor is not None:
            self._editor.show_running(running, self._progress_text)

    def model_summary(self) -> str:
        """One line: the variant's state count and compile time (or why there is none)."""
        s = self.settings
        key = s.key
        if key in self._errors:
            return self._errors[key]
        cm = self._compiled.get(key)
        if cm is None:
            return "Compiling\u2026" if self._compiling == key else "Not compiled yet."
        return (f"{cm.n_states:,} states ({cm.n_positions:,} distinct positions) \u00b7 "
                f"{cm.mdp.n_transitions:,} transitions \u00b7 compiled in {cm.seconds:.2f} s")

    # ------------------------------------------------------------------ edits
    def set_settings(self, new: CheckersSettings, text: str) -> bool:
        """Apply an edit (validated; a refused edit leaves everything as it was and says why)."""
        try:
            new.validate()
        except ValueError as e:
            return self._refuse(e)
        return self.edit(new, text)

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
        self.message.emit(f"Checkers: {e}")
        if self._editor is not None:
            self._editor.refresh()
        return False

    def set_discount(self, gamma: float) -> bool:
        gamma = float(gamma)
        if not 0.0 <= gamma <= 1.0:
            raise ValueError(f"discount must be in [0, 1], got {gamma}")
        if self.settings.rules.ply_limit is None and gamma >= 1.0:
            raise ValueError("without a ply limit games can cycle forever: the discount must be below 1")
        return self.edit(replace(self.settings, discount=gamma), f"discount {gamma:g}")

    # ------------------------------------------------------------------ window hooks
    def editor(self) -> QWidget:
        if self._editor is None:
            self._editor = CheckersEditor(self)
        return self._editor

    def refresh_editor(self) -> None:
        if self._editor is not None:
            self._editor.refresh()

    def state_name(self, s: int) -> str:
        cm = self.compiled()
        if cm is not None:
            if s == cm.win:
                return "win"
            if s == cm.draw:
                return "draw"
            if s == cm.loss:
                return "loss"
            if 0 <= s < cm.state_ply.size:  # described, not numbered: students read this
                ply = int(cm.state_ply[s])
                return f"the position (ply {ply})" if ply >= 0 else "the position"
        return str(s)

    def backup_terms(self, mdp: TabularMDP, state: int, action: int, values: np.ndarray) -> list[BackupTerm]:
        terms = super().backup_terms(mdp, state, action, values)
        cm = self.compiled()
        if cm is None or cm.n_states != mdp.n_states or not terms:
            return terms
        return annotate_terms(cm, state, action, terms)

    def episode(self, mdp: TabularMDP, probs: np.ndarray, rng: np.random.Generator):
        """One game from a start drawn from the opening distribution (several when the agent is White)."""
        from mdpviz.models.kit.episodes import sample_mdp_episode

        cm = self.compiled()
        start = self.start_state() if cm is None else int(rng.choice(cm.start_states, p=cm.start_probs))
        return sample_mdp_episode(mdp, probs, rng=rng, start=start, max_steps=1000, state_name=None,
                                  action_name=lambda a: self.action_name(a, mdp))

    def matchups(self) -> list[str]:
        return list(MATCHUPS)

    def simulation_job(self, mdp: TabularMDP, policy: np.ndarray | None, *, games: int, seed: int) -> Job:
        """Simulate ``games`` games of the agent's greedy policy (the converged one, or solved on the
        job thread) and of uniformly random moves against the random opponent, in chunks (progress,
        Cancel), with the exact probabilities beside them (:func:`~mdpviz.models.checkers.spec.matchup_job`)."""
        cm = self.compiled()
        if cm is None or cm.n_states != mdp.n_states:
            raise ValueError("checkers is not compiled yet")
        gen = matchup_job(cm, mdp, policy, games=games, seed=seed)  # checks the arguments now
        return Job(lambda: gen)

    def lesson(self):
        """The lesson of the current settings and model (:data:`~mdpviz.models.checkers.spec.SPEC`'s)."""
        mdp = self.mdp()
        return lesson(self.settings, mdp, start=int(self.start_state()) if mdp is not None else 0,
                      state_name=self.state_name,
                      action_name=(lambda a: self.action_name(a, mdp)) if mdp is not None else None)

    # ------------------------------------------------------------------ scenarios
    def to_dict(self) -> dict[str, Any]:
        return settings_to_dict(self.settings)

    def load_dict(self, data: dict[str, Any], path: str) -> CheckersSettings:
        return settings_from_dict(data, path)

    def load_state(self, state: Any) -> None:
        super().load_state(state)
        self._mdp_cache = None
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
        self.cancel_button.clicked.connect(self.game.cancel_compile)
        self.build_button.clicked.connect(self.game.build)
        game.edited.connect(lambda _t: self.refresh())
        self.refresh()

    def set_discount(self, gamma: float) -> bool:
        """Set the discount as the slider does (one edit); False with a status message if refused."""
        try:
            return self.game.set_discount(gamma)
        except ValueError as e:
            self.game.message.emit(str(e))
            self.refresh()
            return False

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
        running = self.game.compiling
        self.cancel_button.setEnabled(running)
        self.build_button.setEnabled(not running and self.game.compiled() is None)

    def show_running(self, running: bool, text: str = "") -> None:
        """The compile started (indeterminate bar) or ended."""
        self.progress.setRange(0, 0 if running else 1)
        self.progress.setValue(0)
        self.progress.setVisible(running)
        self.status.setText(text if running else "")
        self.status.setVisible(running and bool(text))
        self.refresh()

    def show_progress(self, done: int, total: int, text: str) -> None:
        self.progress.setRange(0, max(0, total))
        if total:
            self.progress.setValue(done)
        self.progress.setVisible(True)
        self.status.setText(text)
        self.status.setVisible(bool(text))


__all__ = ["CheckersEditor", "CheckersGame", "CheckersPainter", "discount_words"]


VIEW = CheckersGame
"""This game's view (the registry finds it here by the game's key)."""
