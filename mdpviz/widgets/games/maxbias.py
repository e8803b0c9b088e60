"""Maximization bias (Example 6.7) in the window (rules in :mod:`mdpviz.models.maxbias`): its three states
in a row on a cell board (B, A, the end, as the book draws them), the policy's action as a badge (A's as arrows), and an editor for B's actions and
the distribution of their rewards (the discount is the Solver panel's)."""
from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QDoubleSpinBox, QFormLayout, QLabel, QSpinBox, QWidget

from mdpviz.models import maxbias as mb
from mdpviz.widgets import named as _named
from mdpviz.widgets.board import CellDecor
from mdpviz.widgets.game import Game
from mdpviz.widgets.geometry import BoardLayout, Cell
from mdpviz.widgets.session import GameSession

SPEC = mb.SPEC


class MaxBiasGame(Game):
    """Example 6.7: B, A and the end on one row (A's right and left, B's many noisy actions)."""

    spec = SPEC

    def __init__(self, session: GameSession | None = None, parent: QObject | None = None) -> None:
        super().__init__(session, parent)
        self._editor: MaxBiasEditor | None = None

    @property
    def settings(self) -> mb.MaxBiasSettings:
        return self.session.settings

    def board_layout(self, mdp, policy) -> BoardLayout:
        if mdp is None:
            return BoardLayout(())
        # as the book draws it: B, A, the end in a row (left from A goes to B, right to the end)
        places = {mb.B: 0.0, mb.A: 1.0, mb.END: 2.0}
        labels = ("A", "B", "end")
        return BoardLayout(tuple(Cell(s, places[s], 0.0, label=labels[s]) for s in range(mdp.n_states)), (), "grid")

    def badge(self, a: int, mdp) -> str:
        """A's actions as arrows (left to B, right to the end, as drawn); B's by name."""
        return {mb.RIGHT: "\u2192", mb.LEFT: "\u2190"}.get(int(a)) or super().badge(a, mdp)

    def decor(self):
        return {mb.END: CellDecor("", "#555555", "end", goal=True)}

    def editor(self) -> QWidget:
        if self._editor is None:
            self._editor = MaxBiasEditor(self)
        return self._editor

    def refresh_editor(self) -> None:
        if self._editor is not None:
            self._editor.sync()


class MaxBiasEditor(QWidget):
    """B's number of actions and the mean and standard deviation of their rewards."""

    def __init__(self, game: MaxBiasGame, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.game = game
        self.setObjectName("maxbiasEditor")
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        self.n_b = _named(QSpinBox(), "maxbiasActionsB", "Actions in B")
        self.n_b.setRange(1, mb.MAX_ACTIONS_B)
        self.n_b.setToolTip("Each of B's actions ends the episode with a normally distributed reward (10 in figure 6.5)")
        form.addRow("Actions in B", self.n_b)
        self.mean = _named(QDoubleSpinBox(), "maxbiasMean", "Mean reward in B")
        self.mean.setRange(-100.0, 100.0)
        self.mean.setDecimals(3)
        self.mean.setSingleStep(0.05)
        self.mean.setToolTip("The mean of B's rewards (-0.1 in the book); the exact values use it")
        form.addRow("Mean", self.mean)
        self.sd = _named(QDoubleSpinBox(), "maxbiasSd", "Standard deviation of B's rewards")
        self.sd.setRange(0.0, 100.0)
        self.sd.setDecimals(3)
        self.sd.setSingleStep(0.1)
        self.sd.setToolTip("How far the learners' sampled rewards spread around the mean (1 in the book)")
        form.addRow("Std. dev.", self.sd)
        help_ = QLabel("Example 6.7: learn with Q-learning, then Double Q-learning, and watch how often each "
                       "goes left from A.")
        help_.setWordWrap(True)
        form.addRow(help_)
        for w in (self.mean, self.sd):
            w.setKeyboardTracking(False)
        self.n_b.editingFinished.connect(lambda: self.game.set_settings(n_actions_b=int(self.n_b.value())))
        self.mean.valueChanged.connect(lambda v: self.game.set_settings(mean=float(v)))
        self.sd.valueChanged.connect(lambda v: self.game.set_settings(sd=float(v)))
        game.session.edited.connect(lambda _t: self.sync())
        self.sync()

    def sync(self) -> None:
        settings = self.game.settings
        for w in (self.n_b, self.mean, self.sd):
            w.blockSignals(True)
        self.n_b.setValue(int(settings.n_actions_b))
        self.mean.setValue(float(settings.mean))
        self.sd.setValue(float(settings.sd))
        for w in (self.n_b, self.mean, self.sd):
            w.blockSignals(False)


VIEW = MaxBiasGame
"""This game's view (the registry finds it here by the game's key)."""
