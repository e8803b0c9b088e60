"""The :class:`~mdpviz.widgets.game.Game` base class of board games: one position board and one
matchup panel."""
from __future__ import annotations

from typing import Any


import numpy as np
from PySide6.QtCore import QObject

from mdpviz.models.jobs import Job
from mdpviz.models.kit.episodes import sample_mdp_episode
from mdpviz.models.mdp import TabularMDP
from mdpviz.models.kit.position import PositionModel
from mdpviz.models.kit.position_display import terminal_words
from mdpviz.widgets.game import Game
from mdpviz.widgets.geometry import BoardLayout
from mdpviz.widgets.position.board import PositionBoard
from mdpviz.widgets.position.matchups import MatchupPanel
from mdpviz.widgets.position.painters import BoardPainter, GridPainter
from mdpviz.models.kit.strategies import walk_strategy_probs


class PositionGame(Game):
    """A board game in the window: one :class:`PositionBoard` and one :class:`MatchupPanel`.

    Subclasses implement ``build_mdp``, :meth:`position_model` (cached per ``self.state``),
    :meth:`painter` and ``simulation_job`` (returning a
    :class:`~mdpviz.models.kit.position.MatchupResult`).
    """

    def __init__(self, state: Any, parent: QObject | None = None) -> None:
        super().__init__(state, parent)
        self._board: PositionBoard | None = None
        self._sim: MatchupPanel | None = None

    # to implement
    def position_model(self) -> PositionModel | None:
        raise NotImplementedError

    def painter(self) -> BoardPainter:
        return GridPainter(3)

    def matchups(self) -> list[str]:
        return []

    # provided
    def board_layout(self, mdp: TabularMDP | None, policy: np.ndarray | None) -> BoardLayout:
        return BoardLayout(())

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

    def state_name(self, s: int) -> str:
        m = self.mdp()
        if m is not None and m.state_labels is not None and 0 <= s < len(m.state_labels):
            return m.state_labels[s]  # the board, not the state's number (students read this)
        return str(s)

    def state_title(self, s: int) -> str:
        """State ``s`` for the inspector's title: in words where the board can say it (see
        :meth:`PositionBoard.describe_state`), else its board as :meth:`state_name` draws it."""
        words = self._board.describe_state(s) if self._board is not None else None
        return words or f"position {self.state_name(s)}"

    def strategies(self, mdp: TabularMDP) -> list[str]:
        return ["optimal", "random"]

    def strategy_probs(self, name: str, mdp: TabularMDP, policy: np.ndarray | None) -> np.ndarray:
        return walk_strategy_probs(name, mdp, policy)

    def episode(self, mdp: TabularMDP, probs: np.ndarray, rng: np.random.Generator):
        return sample_mdp_episode(mdp, probs, rng=rng, start=self.start_state(), max_steps=1000,
                                  state_name=None, action_name=lambda a: self.action_name(a, mdp))

    def outcome_text(self, mdp: TabularMDP, state: int) -> str:
        """How a game that ended in ``state`` ended, in the game's words ("X wins"; for the absorbing
        win/draw/loss states of the compiled games: "the agent wins", "draw", "the agent loses")."""
        board = self._board
        model = getattr(board, "model", None) if board is not None else None
        if model is not None:
            try:
                pos = model.position_of(int(state))
                if pos.outcome:
                    return pos.outcome
            except (ValueError, IndexError):
                pass
        label = mdp.state_labels[state] if mdp.state_labels is not None and 0 <= state < len(mdp.state_labels) else ""
        return terminal_words(label) or super().outcome_text(mdp, state)

    def run_job(self, job: Job) -> None:
        """Run ``job`` on the window's job thread; its callbacks run on the GUI thread. If the window
        refuses (another job runs), its ``on_failed`` is called at once."""
        self.job_requested.emit(job)

    def cancel_job(self) -> None:
        self.job_cancel.emit()

