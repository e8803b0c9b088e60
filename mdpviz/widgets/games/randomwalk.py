"""The random walk (Example 9.1) in the window (rules in :mod:`mdpviz.models.randomwalk`): its states as a row of
cells between the two ends on the shared cell board. A short walk (the 5 and 19 states of chapters 6 and 7) is
one row; a long one (the book's 1000) is the same row wrapped into lines of equal length in reading order, so
each cell stays a readable square of colour (the board paints big boards as one image); the editor sets the
number of states, the longest jump and the left end's reward."""
from __future__ import annotations

import math

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QDoubleSpinBox, QFormLayout, QLabel, QSpinBox, QWidget

from mdpviz.models import randomwalk as rw
from mdpviz.widgets import named as _named
from mdpviz.widgets.board import CellDecor
from mdpviz.widgets.game import Game
from mdpviz.widgets.geometry import BoardLayout, Cell
from mdpviz.widgets.session import GameSession

SPEC = rw.SPEC

ONE_ROW_MAX = 41
"""Walks of up to this many cells (ends included) are drawn as one row; longer ones wrap."""
ASPECT = 2.5
"""Width over height of a wrapped walk (the board's usual shape)."""


def walk_columns(n_cells: int) -> int:
    """Cells per line: all of them up to :data:`ONE_ROW_MAX`, else lines about :data:`ASPECT` times as long as the
    wrapped row is tall (51 for the book's 1002 cells)."""
    if n_cells <= ONE_ROW_MAX:
        return max(int(n_cells), 1)
    return int(math.ceil(math.sqrt(ASPECT * n_cells)))


def walk_layout(n_states: int) -> BoardLayout:
    """The cells of the walk's n + 2 states (the left end, 1 .. n, the right end) in reading order, wrapped into
    lines of :func:`walk_columns` cells."""
    total = int(n_states) + 2
    cols = walk_columns(total)
    labels = ("\u22121", *(str(i) for i in range(1, total - 1)), "+1")
    return BoardLayout(tuple(Cell(s, float(s % cols), float(s // cols), label=labels[s]) for s in range(total)),
                       (), "grid")


class RandomWalkGame(Game):
    """Example 9.1: the walk's states in a row between its two ends (wrapped when long)."""

    spec = SPEC

    def __init__(self, session: GameSession | None = None, parent: QObject | None = None) -> None:
        super().__init__(session, parent)
        self._editor: RandomWalkEditor | None = None

    @property
    def settings(self) -> rw.RandomWalkSettings:
        return self.session.settings

    def board_layout(self, mdp, policy) -> BoardLayout:
        if mdp is None:
            return BoardLayout(())
        return walk_layout(mdp.n_states - 2)

    def decor(self):
        right = rw.right_end(self.settings)
        return {0: CellDecor("", "#555555", f"left end (reward {self.settings.left_reward:g})", goal=True),
                right: CellDecor("", "#555555", "right end (reward +1)", goal=True)}

    def board_caption(self, caption: str, sweep) -> str:
        n = int(self.settings.n_states)
        cols = walk_columns(n + 2)
        where = "" if cols >= n + 2 else f" States in reading order, {cols} to a line."
        return f"{caption}  The left end, states 1..{n}, the right end.{where}".strip()

    def editor(self) -> QWidget:
        if self._editor is None:
            self._editor = RandomWalkEditor(self)
        return self._editor

    def refresh_editor(self) -> None:
        if self._editor is not None:
            self._editor.sync()


class RandomWalkEditor(QWidget):
    """The number of states, the longest jump and the left end's reward (the discount is the Solver panel's)."""

    def __init__(self, game: RandomWalkGame, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.game = game
        self.setObjectName("randomwalkEditor")
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        self.n = _named(QSpinBox(), "randomwalkStates", "States")
        self.n.setRange(1, rw.MAX_STATES)
        self.n.setToolTip("States between the two ends (1000 in Example 9.1, 19 in chapter 7, 5 in Example 6.2)")
        form.addRow("States", self.n)
        self.jump = _named(QSpinBox(), "randomwalkJump", "Longest jump")
        self.jump.setRange(1, rw.MAX_STATES)
        self.jump.setToolTip("Each jump of 1..this many states left or right is equally likely (100 in Example 9.1)")
        form.addRow("Longest jump", self.jump)
        self.left = _named(QDoubleSpinBox(), "randomwalkLeftReward", "Left end's reward")
        self.left.setRange(-100.0, 100.0)
        self.left.setDecimals(2)
        self.left.setToolTip("Reward on reaching the left end (-1 in Example 9.1, 0 in Example 6.2); the right pays +1")
        form.addRow("Left reward", self.left)
        help_ = QLabel("Example 9.1: 1000 states, jumps up to 100. Chapter 7's walk: 19 states, jumps of 1; "
                       "Example 6.2: 5 states, jumps of 1, left reward 0.")
        help_.setWordWrap(True)
        form.addRow(help_)
        self.left.setKeyboardTracking(False)
        self.n.editingFinished.connect(lambda: self._set(n_states=int(self.n.value())))
        self.jump.editingFinished.connect(lambda: self._set(max_jump=int(self.jump.value())))
        self.left.valueChanged.connect(lambda v: self.game.set_settings(left_reward=float(v)))
        game.session.edited.connect(lambda _t: self.sync())
        self.sync()

    def _set(self, **changes) -> None:
        """A new number of states keeps the longest jump within it (one edit)."""
        n = changes.get("n_states", int(self.game.settings.n_states))
        if "n_states" in changes and int(self.game.settings.max_jump) > n:
            changes["max_jump"] = n
        self.game.set_settings(**changes)

    def sync(self) -> None:
        settings = self.game.settings
        for w in (self.n, self.jump, self.left):
            w.blockSignals(True)
        self.n.setValue(int(settings.n_states))
        self.jump.setValue(int(settings.max_jump))
        self.left.setValue(float(settings.left_reward))
        for w in (self.n, self.jump, self.left):
            w.blockSignals(False)


VIEW = RandomWalkGame
"""This game's view (the registry finds it here by the game's key)."""
