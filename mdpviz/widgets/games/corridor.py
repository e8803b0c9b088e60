"""The short corridor (Example 13.1) in the window (rules in :mod:`mdpviz.models.corridor`): the book's picture on the
shared cell board, S, the corridor's states and the goal G in a row, with every move drawn as an arrow: right's
solid, left's dashed, so the reversed state is the one whose solid arrow points back to the left (and it carries
a marked pill "\u21c4"). The policy's action is a badge (an arrow). The editor sets the number of states and which
one is reversed (the discount is the Solver panel's)."""
from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFormLayout, QLabel, QSpinBox, QWidget

from mdpviz.models import corridor as cr
from mdpviz.widgets import named as _named
from mdpviz.widgets.board import CellDecor
from mdpviz.widgets.game import Game
from mdpviz.widgets.geometry import Arrow, BoardLayout, Cell
from mdpviz.widgets.session import GameSession

SPEC = cr.SPEC

SPACING = 1.7
"""Distance between the centres of neighbouring cells (board units): room between them for two arrows."""
BEND = 0.22
"""How far the two arrows between neighbours are bent apart (a fraction of their length)."""
REVERSED_COLOUR = "#d55e00"
"""The reversed state's pill and frame (Okabe-Ito vermilion: colour-blind safe)."""
REVERSED_TAG = "\u21c4"
"""The reversed state's pill (the two arrows swapped)."""


def corridor_layout(settings: cr.CorridorSettings) -> BoardLayout:
    """The corridor's n + 1 cells in a row (S .. n, G) :data:`SPACING` apart, and one arrow per move of every
    corridor state (:func:`~mdpviz.models.corridor.rules.moves`): right's solid, left's dashed, a loop where a
    move stays (S's left at the wall); the arrows between two neighbours bent apart (right-to-left ones pass
    below, left-to-right ones above)."""
    labels = cr.state_labels(settings)
    n = int(settings.n_states)
    cells = tuple(Cell(s, SPACING * s, 0.0, label=labels[s]) for s in range(n + 1))
    arrows = []
    for s in range(n):
        for a, t in cr.moves(settings, s).items():
            arrows.append(Arrow(s, t, bend=0.0 if t == s else BEND, dashed=a == cr.LEFT))
    return BoardLayout(cells, tuple(arrows), "grid")


class CorridorGame(Game):
    """Example 13.1: the short corridor with the reversed state marked."""

    spec = SPEC

    def __init__(self, session: GameSession | None = None, parent: QObject | None = None) -> None:
        super().__init__(session, parent)
        self._editor: CorridorEditor | None = None

    @property
    def settings(self) -> cr.CorridorSettings:
        return self.session.settings

    def board_layout(self, mdp, policy) -> BoardLayout:
        return BoardLayout(()) if mdp is None else corridor_layout(self.settings)

    def badge(self, a: int, mdp) -> str:
        """The greedy action as an arrow of the way it is called (left \u2190, right \u2192), not where it goes."""
        return {cr.RIGHT: "\u2192", cr.LEFT: "\u2190"}.get(int(a)) or super().badge(a, mdp)

    def decor(self):
        r = int(self.settings.reversed)
        return {r: CellDecor(REVERSED_TAG, REVERSED_COLOUR, "reversed: right moves left, left moves right"),
                cr.goal(self.settings): CellDecor("", "#555555", "the goal G", goal=True)}

    def board_caption(self, caption: str, sweep) -> str:
        r = int(self.settings.reversed)
        name = "S" if r == 0 else str(r + 1)
        return f"{caption}  Solid: right; dashed: left. {name} is reversed (\u21c4); -1 a step.".strip()

    def editor(self) -> QWidget:
        if self._editor is None:
            self._editor = CorridorEditor(self)
        return self._editor

    def refresh_editor(self) -> None:
        if self._editor is not None:
            self._editor.sync()


class CorridorEditor(QWidget):
    """The number of corridor states and which one is reversed."""

    def __init__(self, game: CorridorGame, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.game = game
        self.setObjectName("corridorEditor")
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        self.n = _named(QSpinBox(), "corridorStates", "States in the corridor")
        self.n.setRange(1, cr.MAX_STATES)
        self.n.setToolTip("Non-terminal states, S first (3 in Example 13.1); the goal G is one more")
        form.addRow("States", self.n)
        self.reversed = _named(QSpinBox(), "corridorReversed", "Reversed state")
        self.reversed.setRange(1, cr.MAX_STATES)
        self.reversed.setToolTip("The state whose actions are swapped, counting S as 1 (2 in Example 13.1)")
        form.addRow("Reversed", self.reversed)
        help_ = QLabel("Example 13.1: 3 states, the 2nd reversed. With the book's features every state looks "
                       "alike: the best policy goes right with probability 2 \u2212 \u221a2.")
        help_.setWordWrap(True)
        form.addRow(help_)
        self.n.editingFinished.connect(lambda: self._set(n_states=int(self.n.value())))
        self.reversed.editingFinished.connect(lambda: self._set(reversed=int(self.reversed.value()) - 1))
        game.session.edited.connect(lambda _t: self.sync())
        self.sync()

    def _set(self, **changes) -> None:
        """Fewer states keep the reversed one inside the corridor (one edit)."""
        n = changes.get("n_states", int(self.game.settings.n_states))
        r = changes.get("reversed", int(self.game.settings.reversed))
        if r >= n:
            changes["reversed"] = n - 1
        self.game.set_settings(**changes)

    def sync(self) -> None:
        settings = self.game.settings
        for w in (self.n, self.reversed):
            w.blockSignals(True)
        self.n.setValue(int(settings.n_states))
        self.reversed.setValue(int(settings.reversed) + 1)
        for w in (self.n, self.reversed):
            w.blockSignals(False)


VIEW = CorridorGame
"""This game's view (the registry finds it here by the game's key)."""
