"""Risk tic-tac-toe (seed 003) in the window: the view of :mod:`mdpviz.models.risk_ttt`.

A :class:`~mdpviz.widgets.position.PositionGame`: the board shows one position with each legal
cell coloured by its Q-value and each cell's risk drawn on it (drag to edit). 3x3 is compiled
and stepped by the solvers (:class:`~mdpviz.models.risk_ttt.RiskPositionModel`); 4x4 has no
TabularMDP (86 million (board, turn) pairs) and is solved exactly by backward induction on the
window's job thread (the spec's ``jobs["exact_solve"]``, :func:`~mdpviz.models.risk_ttt.exact_solve_job`,
run through the session, with a progress bar and Cancel), then shown by
:class:`~mdpviz.models.risk_ttt.ExactRiskPositionModel`. Everything headless lives in
:mod:`mdpviz.models.risk_ttt`; this module draws and edits.
"""
from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from PySide6.QtCore import QObject, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from mdpviz.core.jobs import Job
from mdpviz.models import risk_ttt as rt
from mdpviz.models.kit.boards.position import PositionModel
from mdpviz.models.risk_ttt import SPEC, RiskPositionModel, RiskSettings
from mdpviz.widgets import named as _named
from mdpviz.widgets.game import PANELS
from mdpviz.widgets.position import GridPainter, PositionGame
from mdpviz.widgets.session import GameSession

RISK_COLOR = "#e69f00"
"""Fill of the risk gauge on each cell (Okabe-Ito orange)."""


class RiskPainter(GridPainter):
    """A grid whose cells show their risk: an orange gauge along the bottom and the number."""

    def __init__(self, game: "RiskTicTacToeGame") -> None:
        super().__init__(game.rstate.size)
        self.game = game
        self.preview: dict[int, float] = {}
        """Risks being dragged (not yet an edit)."""

    def risk(self, cell: int) -> float:
        if cell in self.preview:
            return self.preview[cell]
        r = self.game.rstate.risk
        return float(r[cell]) if cell < len(r) else 0.0

    def paint_piece(self, qp: QPainter, r: QRectF, cell: int, code: int) -> None:
        super().paint_piece(qp, r, cell, code)

    def paint_background(self, qp: QPainter, rect: QRectF, cells: list[QRectF]) -> None:
        pass

    def paint_overlay(self, qp: QPainter, cells: list[QRectF]) -> None:
        """The risk gauge and number of every cell (drawn over the values)."""
        f = QFont()
        for c, r in enumerate(cells):
            p = self.risk(c)
            h = max(4.0, r.height() * 0.07)
            band = QRectF(r.left() + 2, r.bottom() - h - 2, r.width() - 4, h)
            qp.setPen(Qt.PenStyle.NoPen)
            qp.setBrush(QColor("#ffffff"))
            qp.drawRect(band)
            qp.setBrush(QColor(RISK_COLOR))
            qp.drawRect(QRectF(band.left(), band.top(), band.width() * p, band.height()))
            qp.setPen(QColor("#555555"))
            qp.setBrush(Qt.BrushStyle.NoBrush)
            qp.drawRect(band)
            f.setPixelSize(max(8, int(r.width() * 0.11)))
            qp.setFont(f)
            inset = max(4.0, r.width() * 0.08)  # clear of the greedy move's frame
            tag = QRectF(r.left() + inset, r.top() + inset, r.width() * 0.42, f.pixelSize() * 1.35)
            qp.setPen(Qt.PenStyle.NoPen)
            qp.setBrush(QColor(255, 255, 255, 220))
            qp.drawRoundedRect(tag, 3, 3)
            qp.setPen(QColor("#000000"))
            qp.drawText(tag, Qt.AlignmentFlag.AlignCenter, f"P {p:.2f}")

    def cell_name(self, cell: int) -> str:
        return f"{super().cell_name(cell)}, risk {self.risk(cell):.2f}"


class RiskTicTacToeGame(PositionGame):
    """Risk tic-tac-toe (seed 003): 3x3 stepped by the solvers, 4x4 solved exactly in the background."""

    spec = SPEC

    def __init__(self, session: GameSession | None = None, parent: QObject | None = None) -> None:
        super().__init__(session, parent)
        self._model: tuple[Any, Any, PositionModel] | None = None
        self._exact: tuple[RiskSettings, rt.ExactRiskSolution] | None = None
        self._editor: RiskEditor | None = None
        self._painter: RiskPainter | None = None
        self._custom_risks: dict[int, tuple[float, ...]] = {}
        """Custom risks of each board size, kept when the board changes size (by side length)."""
        self.solving = False
        """An exact solve runs on the job thread."""
        self._solving_for: RiskSettings | None = None
        """The settings the running exact solve is for (an edit to others cancels it)."""
        self.edit_on_board = False
        """Dragging on a cell sets its risk (instead of playing it)."""
        self.session.edited.connect(self._on_edited)

    @property
    def rstate(self) -> RiskSettings:
        return self.session.settings

    @property
    def panels(self) -> frozenset[str]:
        """3x3: every panel. 4x4: solved exactly in the background, with no MDP to step, inspect, play
        or simulate, so only the game panel (and the lesson) stay beside the board."""
        return PANELS if self.rstate.size == 3 else frozenset({"game", "lesson"})

    def empty_text(self) -> str:
        n = self.rstate.size
        if self.exact_solution() is not None:
            sol = self.exact_solution()
            return (f"{n}x{n}: exact values by backward induction ({sol.n_states:,} (board, turn) states, "
                    f"{sol.seconds:.1f} s); V(empty board, X to move) = {sol.empty_value:.6f}")
        pairs, _ = rt.exact_requirements(n)
        return (f"{n}x{n}: {pairs:,} (board, turn) states, too many to step: press 'Solve {n}x{n} exactly' in the "
                "game panel (backward induction on the job thread)")

    def exact_solution(self) -> rt.ExactRiskSolution | None:
        """The exact solution of the current n x n game, if it was solved."""
        if self._exact is not None and self._exact[0] == self.rstate:
            return self._exact[1]
        return None

    def position_model(self) -> PositionModel | None:
        built = self.session.built()
        sol = self.exact_solution() if self.rstate.size != 3 else None
        key = built if built is not None else self.rstate
        if self._model is None or self._model[0] is not key or self._model[1] is not sol:
            if built is not None:
                m: PositionModel = RiskPositionModel(built)
            else:
                m = rt.position_model(self.rstate, solution=sol)
            self._model = (key, sol, m)
        return self._model[2]

    def painter(self) -> RiskPainter:
        self._painter = RiskPainter(self)
        return self._painter

    # ------------------------------------------------------------------ edits
    def set_preset(self, name: str) -> bool:
        """Risks from one of the seven presets (the noisy and random ones drawn with the state's seed)."""
        try:
            p = rt.risk_preset(name, n_cells=self.rstate.size ** 2, seed=self.rstate.seed)
        except ValueError as e:
            return self.session.refuse(str(e))
        return self.session.edit(replace(self.rstate, risk=tuple(float(x) for x in p), preset=name),
                                 f"risk preset {name}")

    def set_seed(self, seed: int) -> bool:
        settings = replace(self.rstate, seed=int(seed))
        if settings.preset in ("noisy-classic", "noisy-reverse", "random"):
            p = rt.risk_preset(settings.preset, n_cells=settings.size ** 2, seed=settings.seed)
            settings = replace(settings, risk=tuple(float(x) for x in p))
        return self.session.edit(settings, f"preset seed {seed}")

    def set_risk(self, cell: int, p: float) -> bool:
        """Set P[cell] (an edit; the preset becomes "custom")."""
        risk = list(self.rstate.risk)
        if not 0 <= int(cell) < len(risk):
            raise ValueError(f"cell {cell} is outside the board (0..{len(risk) - 1})")
        p = float(p)
        if not (0.0 <= p <= 1.0) or not math.isfinite(p):
            raise ValueError(f"risk of cell {cell} must be in [0, 1], got {p}")
        risk[int(cell)] = p
        return self.session.edit(replace(self.rstate, risk=tuple(risk), preset="custom"),
                                 f"risk of cell {cell}: {p:.2f}")

    def set_size(self, size: int) -> bool:
        """3 (stepped) or 4 (solved exactly); the preset is applied to the new board (stochastic: 3x3 only)."""
        size = int(size)
        if size not in (3, 4):
            raise ValueError(f"board side must be 3 or 4, got {size}")
        if size == self.rstate.size:
            return False
        if self.rstate.preset == "custom":  # kept for when the board comes back to this size
            self._custom_risks[self.rstate.size] = tuple(self.rstate.risk)
        kept = self._custom_risks.get(size)
        if kept is not None:  # 3x3 -> 4x4 -> 3x3 gives the 3x3 board its own risks back (not "half")
            return self.session.edit(replace(self.rstate, size=size, risk=kept, preset="custom"),
                                     f"{size}x{size} board (its custom risks)")
        preset = self.rstate.preset if self.rstate.preset not in ("custom",) else "half"
        try:
            p = rt.risk_preset(preset, n_cells=size * size, seed=self.rstate.seed)
        except ValueError:
            preset = "half"
            p = rt.risk_preset(preset, n_cells=size * size)
            self.session.message.emit(f"The risks of the previous board do not fit a {size}x{size} board: "
                                      "preset 'half' used.")
        return self.session.edit(replace(self.rstate, size=size, risk=tuple(float(x) for x in p), preset=preset),
                         f"{size}x{size} board")

    def _on_edited(self, _text: str) -> None:
        # an edit of the board being solved stops its exact solve; the model of the same settings arriving
        # from its compile (the session tells an edit again when its model is built) does not
        if self.solving and self.rstate != self._solving_for:
            self.session.cancel_job()

    def set_edit_on_board(self, on: bool) -> None:
        """Drag on the board's cells to set their risks (True) or play moves (False)."""
        self.edit_on_board = bool(on)
        self.board.set_cell_editor(self._on_drag if on else None,
                                   "Drag up or down on a cell to set its risk (release to apply)." if on else "")

    def _on_drag(self, cell: int, value: float, final: bool) -> None:
        v = round(float(value) * 20) / 20  # steps of 0.05 while dragging
        if self._painter is not None:
            self._painter.preview = {} if final else {cell: v}
        if final:
            self.set_risk(cell, v)
        self.board.canvas.update()

    # ------------------------------------------------------------------ the exact solve
    def solve_exact(self) -> None:
        """Solve the n x n board exactly on the window's job thread (progress bar, Cancel)."""
        settings = self.rstate
        if self.exact_solution() is not None:
            self.session.message.emit("Already solved.")
            return
        size = settings.size
        self.solving = True
        self._solving_for = settings
        ed = self.editor()
        ed.show_solving(True, f"Solving {size}x{size} exactly\u2026")

        def done(sol):
            self.solving = False
            if sol is None:
                ed.show_solving(False, "Cancelled.")
                return
            if self.rstate != settings:
                ed.show_solving(False, "The risks changed during the solve: result discarded.")
                return
            self._exact = (settings, sol)
            ed.show_solving(False, f"Solved: {sol.n_states:,} (board, turn) states in {sol.seconds:.1f} s; "
                                   f"V(empty, X to move) = {sol.empty_value:.6f}")
            self.redraw.emit()

        def failed(msg):
            self.solving = False
            ed.show_solving(False, f"Failed: {msg}")

        def cancelled():
            self.solving = False
            ed.show_solving(False, "Cancelled: the board is usable; solve again at any time.")

        self.session.run_job(Job(lambda: SPEC.jobs["exact_solve"](settings),  # stepped on the job thread
                                 label=f"Solving {size}x{size} risk tic-tac-toe exactly", on_done=done,
                                 on_progress=lambda d, t, text: ed.show_progress(d, t, text), on_failed=failed,
                                 on_cancelled=cancelled))

    def editor(self) -> "RiskEditor":
        if self._editor is None:
            self._editor = RiskEditor(self)
        return self._editor

    def refresh_editor(self) -> None:
        if self._editor is not None:
            self._editor.refresh()


class RiskEditor(QWidget):
    """Risk tic-tac-toe's panel: board size, the seven presets, the risks as numbers, the exact solve."""

    def __init__(self, game: RiskTicTacToeGame, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.game = game
        self.setObjectName("riskEditor")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        form = QFormLayout()
        self.size = _named(QComboBox(), "riskSize", "Board size")
        self.size.addItem("3x3 (stepped)", 3)
        self.size.addItem("4x4 (exact, background)", 4)
        self.preset = _named(QComboBox(), "riskPreset", "Risk preset")
        for name, text in rt.PRESETS.items():
            self.preset.addItem(name, name)
            self.preset.setItemData(self.preset.count() - 1, text, Qt.ItemDataRole.ToolTipRole)
        self.preset.addItem("custom", "custom")
        self.seed = _named(QSpinBox(), "riskSeed", "Seed of the noisy presets")
        self.seed.setRange(0, 999_999)
        self.seed.setToolTip("Seed of the noisy-classic, noisy-reverse and random presets")
        form.addRow("Board", self.size)
        form.addRow("Preset", self.preset)
        form.addRow("Seed", self.seed)
        lay.addLayout(form)
        self.edit_check = _named(QCheckBox("Edit risks on the board (drag)"), "riskEditOnBoard",
                                 "Edit risks on the board")
        self.edit_check.setToolTip("Drag up or down on a cell to set its risk; release to apply (one undo step)")
        lay.addWidget(self.edit_check)
        self.grid_box = QWidget()
        self.grid = QGridLayout(self.grid_box)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setSpacing(2)
        self.spins: list[QDoubleSpinBox] = []
        lay.addWidget(self.grid_box)
        row = QHBoxLayout()
        self.solve_button = _named(QPushButton("Solve 4x4 exactly"), "riskSolveExact", "Solve the 4x4 board exactly")
        self.cancel_button = _named(QPushButton("Cancel"), "riskCancelSolve", "Cancel the exact solve")
        self.cancel_button.setEnabled(False)
        row.addWidget(self.solve_button)
        row.addWidget(self.cancel_button)
        lay.addLayout(row)
        self.progress = _named(QProgressBar(), "riskSolveProgress", "Progress of the exact solve")
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        lay.addWidget(self.progress)
        self.status = _named(QLabel(""), "riskSolveStatus", "Exact solve status")
        self.status.setWordWrap(True)
        lay.addWidget(self.status)
        note = QLabel("Playing cell i places the opponent's mark with probability P[i]. X maximises, O minimises; "
                      "+1 / \u22121 for a line of X / O, no discount.")
        note.setWordWrap(True)
        lay.addWidget(note)
        lay.addStretch(1)
        self.refresh()
        self.size.currentIndexChanged.connect(lambda _i: self.game.set_size(self.size.currentData()))
        self.preset.currentIndexChanged.connect(self._on_preset)
        self.seed.valueChanged.connect(lambda v: self.game.set_seed(v))
        self.edit_check.toggled.connect(self.game.set_edit_on_board)
        self.solve_button.clicked.connect(self.game.solve_exact)
        self.cancel_button.clicked.connect(self.game.session.cancel_job)
        game.session.edited.connect(lambda _t: self.refresh())

    def _on_preset(self, _i: int) -> None:
        name = self.preset.currentData()
        if name != "custom":
            if not self.game.set_preset(name):
                self.refresh()

    def _build_spins(self, n: int) -> None:
        for s in self.spins:
            self.grid.removeWidget(s)
            s.deleteLater()
        self.spins = []
        for c in range(n * n):
            s = _named(QDoubleSpinBox(), f"riskCell{c}", f"Risk of cell {c}")
            s.setRange(0.0, 1.0)
            s.setDecimals(2)
            s.setSingleStep(0.05)
            s.setKeyboardTracking(False)
            s.setToolTip(f"P[{c}]: probability that playing cell {c} places the opponent's mark")
            s.valueChanged.connect(lambda v, c=c: self.game.set_risk(c, v))
            self.grid.addWidget(s, c // n, c % n)
            self.spins.append(s)

    def refresh(self) -> None:
        settings = self.game.rstate
        for combo, data in ((self.size, settings.size), (self.preset, settings.preset)):
            combo.blockSignals(True)
            combo.setCurrentIndex(combo.findData(data))
            combo.blockSignals(False)
        self.seed.blockSignals(True)
        self.seed.setValue(int(settings.seed))
        self.seed.blockSignals(False)
        if len(self.spins) != settings.size ** 2:
            self._build_spins(settings.size)
        for s, p in zip(self.spins, settings.risk):
            s.blockSignals(True)
            s.setValue(float(p))
            s.blockSignals(False)
        big = settings.size != 3
        self.solve_button.setVisible(big)
        self.cancel_button.setVisible(big)
        self.progress.setVisible(big)
        self.solve_button.setText(f"Solve {settings.size}x{settings.size} exactly")
        self.solve_button.setEnabled(big and not self.game.solving and self.game.exact_solution() is None)
        if not big:
            self.status.setText("")

    def show_solving(self, running: bool, text: str) -> None:
        self.solve_button.setEnabled(not running and self.game.exact_solution() is None and self.game.rstate.size != 3)
        self.cancel_button.setEnabled(running)
        if running:
            self.progress.setRange(0, 0)
        else:
            self.progress.setRange(0, 1)
            self.progress.setValue(1 if self.game.exact_solution() is not None else 0)
        self.status.setText(text)

    def show_progress(self, done: int, total: int, text: str) -> None:
        self.progress.setRange(0, max(int(total), 1))
        self.progress.setValue(int(done))
        self.status.setText(text)


__all__ = ["RISK_COLOR", "RiskEditor", "RiskPainter", "RiskTicTacToeGame"]


VIEW = RiskTicTacToeGame
"""This game's view (the registry finds it here by the game's key)."""
