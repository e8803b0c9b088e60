"""Mountain car (Example 10.1) in the window (rules in :mod:`mdpviz.models.mountaincar`): the grid of position x
velocity as a heatmap on the shared cell board, positions across (-1.2 at the left), velocities up (-0.07 at
the bottom), one cell per grid point coloured by its value (figure 10.1's picture, the cost-to-go's negation),
the goal one cell right of the last column. The editor sets the grid's size."""
from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFormLayout, QLabel, QSpinBox, QWidget

from mdpviz.models import mountaincar as mc
from mdpviz.widgets import named as _named
from mdpviz.widgets.board import CellDecor
from mdpviz.widgets.game import Game
from mdpviz.widgets.geometry import BoardLayout, Cell
from mdpviz.widgets.session import GameSession

SPEC = mc.SPEC


def car_layout(positions: int, velocities: int) -> BoardLayout:
    """A cell per grid point at (position index, velocities - 1 - velocity index): positions across, velocities
    up; the goal at the right of the middle row."""
    P, V = int(positions), int(velocities)
    cells = [Cell(i * V + j, float(i), float(V - 1 - j)) for i in range(P - 1) for j in range(V)]
    cells.append(Cell((P - 1) * V, float(P - 1), float((V - 1) // 2), label="goal"))
    return BoardLayout(tuple(cells), (), "grid")


class MountainCarGame(Game):
    """Example 10.1: the value of every grid point of position x velocity."""

    spec = SPEC

    def __init__(self, session: GameSession | None = None, parent: QObject | None = None) -> None:
        super().__init__(session, parent)
        self._editor: MountainCarEditor | None = None

    @property
    def settings(self) -> mc.MountainCarSettings:
        return self.session.settings

    def board_layout(self, mdp, policy) -> BoardLayout:
        if mdp is None:
            return BoardLayout(())
        return car_layout(self.settings.positions, self.settings.velocities)

    def decor(self):
        return {mc.goal_state(self.settings): CellDecor("", "#555555", "goal (position 0.5)", goal=True)}

    def board_caption(self, caption: str, sweep) -> str:
        return f"{caption}  Position -1.2 \u2192 0.5 across, velocity -0.07 \u2192 0.07 up.".strip()

    def editor(self) -> QWidget:
        if self._editor is None:
            self._editor = MountainCarEditor(self)
        return self._editor

    def refresh_editor(self) -> None:
        if self._editor is not None:
            self._editor.sync()


class MountainCarEditor(QWidget):
    """The grid's number of positions and velocities (the discount is the Solver panel's)."""

    def __init__(self, game: MountainCarGame, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.game = game
        self.setObjectName("mountaincarEditor")
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        self.positions = _named(QSpinBox(), "mountaincarPositions", "Grid positions")
        self.positions.setRange(3, mc.MAX_GRID)
        self.positions.setToolTip("Grid points from -1.2 to 0.5 (the last is the goal); 103 puts one at the start -0.5")
        form.addRow("Positions", self.positions)
        self.velocities = _named(QSpinBox(), "mountaincarVelocities", "Grid velocities")
        self.velocities.setRange(3, mc.MAX_GRID)
        self.velocities.setToolTip("Grid points from -0.07 to 0.07; an odd number puts one at 0")
        form.addRow("Velocities", self.velocities)
        help_ = QLabel("Example 10.1 on a grid: each step's next state is split between the four grid points "
                       "around it. Learn it with semi-gradient SARSA and tile coding (figure 10.1).")
        help_.setWordWrap(True)
        form.addRow(help_)
        self.positions.editingFinished.connect(lambda: self.game.set_settings(positions=int(self.positions.value())))
        self.velocities.editingFinished.connect(lambda: self.game.set_settings(velocities=int(self.velocities.value())))
        game.session.edited.connect(lambda _t: self.sync())
        self.sync()

    def sync(self) -> None:
        settings = self.game.settings
        for w in (self.positions, self.velocities):
            w.blockSignals(True)
        self.positions.setValue(int(settings.positions))
        self.velocities.setValue(int(settings.velocities))
        for w in (self.positions, self.velocities):
            w.blockSignals(False)


VIEW = MountainCarGame
"""This game's view (the registry finds it here by the game's key)."""
