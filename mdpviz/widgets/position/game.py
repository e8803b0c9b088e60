"""The :class:`~mdpviz.widgets.game.Game` view base class of board games: one position board and one
matchup panel."""
from __future__ import annotations

from PySide6.QtCore import QObject

from mdpviz.models.kit.boards.position import PositionModel
from mdpviz.widgets.game import Game
from mdpviz.widgets.position.board import PositionBoard
from mdpviz.widgets.position.matchups import MatchupPanel
from mdpviz.widgets.position.painters import BoardPainter, GridPainter
from mdpviz.widgets.session import GameSession


class PositionGame(Game):
    """A board game's view: one :class:`PositionBoard` and one :class:`MatchupPanel`.

    Subclasses implement :meth:`position_model` (cached per model) and :meth:`painter`.
    """

    def __init__(self, session: GameSession | None = None, parent: QObject | None = None) -> None:
        super().__init__(session, parent)
        self._board: PositionBoard | None = None
        self._sim: MatchupPanel | None = None

    # to implement
    def position_model(self) -> PositionModel | None:
        """What the board walks: the positions of the game's model (None: no model)."""
        raise NotImplementedError

    def painter(self) -> BoardPainter:
        return GridPainter(3)

    # provided
    def board_widget(self) -> PositionBoard:
        if self._board is None:
            self._board = PositionBoard(self.position_model, self.painter)
        return self._board

    @property
    def board(self) -> PositionBoard:
        """The game's board widget (built on first use)."""
        return self.board_widget()

    def simulation_widget(self) -> MatchupPanel:
        if self._sim is None:
            self._sim = MatchupPanel()
        return self._sim

    def state_title(self, s: int) -> str:
        """State ``s`` for the inspector's title: in words where the board can say it (see
        :meth:`PositionBoard.describe_state`), else its board as the session names it."""
        words = self._board.describe_state(s) if self._board is not None else None
        return words or f"position {self.session.state_name(s)}"
