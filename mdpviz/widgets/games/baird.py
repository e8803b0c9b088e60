"""Baird's counterexample (Example 11.1) in the window (rules in :mod:`mdpviz.models.baird`): figure 11.1 on the
shared cell board, the six upper states in a row and the seventh below them, the solid action's arrows from
each upper state down to the seventh (and its loop on the seventh), the dashed action's arrows from the seventh
up to each upper state; each cell named by its value in the weights (2w1+w8 .. w7+2w8). The editor sets the
behaviour's share of dashed (the discount is the Solver panel's)."""
from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QDoubleSpinBox, QFormLayout, QLabel, QWidget

from mdpviz.models import baird as bd
from mdpviz.widgets import named as _named
from mdpviz.widgets.game import Game
from mdpviz.widgets.geometry import Arrow, BoardLayout, Cell
from mdpviz.widgets.session import GameSession

SPEC = bd.SPEC

LOWER_Y = 2.4
"""How far below the upper row the seventh state sits (board units): room for the arrows between them."""


def baird_layout() -> BoardLayout:
    """Figure 11.1: the six upper states at x 0..5, the seventh centred below; solid arrows down, dashed up
    (bent aside so they do not cover the solid ones), the solid loop on the seventh."""
    names = bd.feature_names()
    cells = [Cell(s, float(s), 0.0, label=names[s]) for s in range(bd.UPPER)]
    cells.append(Cell(bd.LOWER, (bd.UPPER - 1) / 2.0, LOWER_Y, label=names[bd.LOWER]))
    arrows = [Arrow(s, bd.LOWER) for s in range(bd.UPPER)]
    arrows += [Arrow(bd.LOWER, s, bend=0.12, dashed=True) for s in range(bd.UPPER)]
    arrows.append(Arrow(bd.LOWER, bd.LOWER))
    return BoardLayout(tuple(cells), tuple(arrows), "grid")


class BairdGame(Game):
    """Example 11.1: figure 11.1's seven states, solid and dashed arrows."""

    spec = SPEC

    def __init__(self, session: GameSession | None = None, parent: QObject | None = None) -> None:
        super().__init__(session, parent)
        self._editor: BairdEditor | None = None

    @property
    def settings(self) -> bd.BairdSettings:
        return self.session.settings

    def board_layout(self, mdp, policy) -> BoardLayout:
        return BoardLayout(()) if mdp is None else baird_layout()

    def board_caption(self, caption: str, sweep) -> str:
        b = float(self.settings.behaviour_dashed)
        return (f"{caption}  Solid: to 7; dashed: to 1-6 (1/6 each). Behaviour dashed {b:.3g}; "
                "target solid.").strip()

    def editor(self) -> QWidget:
        if self._editor is None:
            self._editor = BairdEditor(self)
        return self._editor

    def refresh_editor(self) -> None:
        if self._editor is not None:
            self._editor.sync()


class BairdEditor(QWidget):
    """The behaviour policy's probability of dashed (the initial weights are a scenario field)."""

    def __init__(self, game: BairdGame, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.game = game
        self.setObjectName("bairdEditor")
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        self.dashed = _named(QDoubleSpinBox(), "bairdBehaviourDashed", "Behaviour's probability of dashed")
        self.dashed.setRange(0.0, 1.0)
        self.dashed.setDecimals(4)
        self.dashed.setSingleStep(0.05)
        self.dashed.setToolTip("The behaviour policy takes dashed with this probability (6/7 in the book)")
        form.addRow("P(dashed)", self.dashed)
        help_ = QLabel("Example 11.1: off-policy TD from the book's weights (1, 1, 1, 1, 1, 1, 10, 1) diverges; "
                       "TDC converges (figures 11.2 and 11.5).")
        help_.setWordWrap(True)
        form.addRow(help_)
        self.dashed.setKeyboardTracking(False)
        self.dashed.valueChanged.connect(lambda v: self.game.set_settings(behaviour_dashed=float(v)))
        game.session.edited.connect(lambda _t: self.sync())
        self.sync()

    def sync(self) -> None:
        self.dashed.blockSignals(True)
        self.dashed.setValue(float(self.game.settings.behaviour_dashed))
        self.dashed.blockSignals(False)


VIEW = BairdGame
"""This game's view (the registry finds it here by the game's key)."""
