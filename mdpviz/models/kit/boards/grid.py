"""Grid geometry and the walk simulation shared by the games drawn on a grid (grid worlds, Gymnasium
environments); Qt-free."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generator

import numpy as np

from mdpviz.core.jobs import JobProgress
from mdpviz.models.kit.boards.strategies import SimulationResult, discounted_max_steps, strategy_simulation
from mdpviz.core.mdp import TabularMDP
from mdpviz.solvers import solve


@dataclass(frozen=True, eq=False)
class GridGeometry:
    """Where each state of an MDP sits on a grid, for boards and printouts (grid worlds, and
    Gymnasium's FrozenLake and CliffWalking)."""

    rows: int
    """Number of rows."""
    cols: int
    """Number of columns."""
    state: np.ndarray
    """int64 (rows, cols): the state of each cell, -1 for a wall."""
    kind: tuple[tuple[str, ...], ...]
    """Per cell: "open", "wall", "exit" (ends the episode: an exit, a hole, the goal) or "hazard"."""
    label: tuple[tuple[str, ...], ...]
    """Per cell: short text drawn on it ("+1", "S", "H", "G"; "" for none)."""
    moves: dict[int, tuple[int, int]]
    """Action id -> (row step, column step) of the actions that are moves (drawn as arrows)."""
    exit_action: int | None = None
    """The action id that leaves an exit cell (CS188), or None."""
    start: tuple[int, int] = (0, 0)
    """(row, column) of the start cell."""
    fixed: dict[tuple[int, int], float] = field(default_factory=dict)
    """Values shown on cells whose state is terminal (AIMA: U = R(s)), by (row, column)."""
    marks: dict[int, str] = field(default_factory=dict)
    """Action id -> a short word drawn for an action that is not a move (Taxi's "pick up", "drop off")."""
    walls: tuple[tuple[int, int, str], ...] = ()
    """Walls between two cells: (row, column, "east" or "south") of the cell on whose side it stands
    (Taxi's map); the border of the grid is not listed."""

    def cell_of(self, state: int) -> tuple[int, int] | None:
        """(row, column) of ``state``, or None for a state with no cell (CS188's "exited")."""
        hit = np.argwhere(self.state == state)
        return (int(hit[0][0]), int(hit[0][1])) if hit.size else None

    def direction(self, action: int) -> str:
        """"north", "east", "south", "west" for a move, "exit" for the exit action, else ""."""
        if action in self.moves:
            dr, dc = self.moves[action]
            return {(-1, 0): "north", (0, 1): "east", (1, 0): "south", (0, -1): "west"}.get((dr, dc), "")
        return "exit" if action == self.exit_action else ""


def max_steps(mdp: TabularMDP) -> int:
    """Steps per simulated episode: until gamma^t < 1e-9, at most 1,000 (a random walk may wander)."""
    if 0.0 < mdp.discount < 1.0:
        return discounted_max_steps(mdp, eps=1e-9, cap=1_000)
    return 1_000


def walk_simulation(mdp: TabularMDP, names, probs_of, policy, *, games: int, seed, start: int, start_name: str
                    ) -> Generator[JobProgress, None, SimulationResult]:
    """The simulation job of the games drawn on a grid (grid worlds, Gymnasium environments): each
    strategy from ``start``; the optimal policy is solved by value iteration to 1e-12 when ``policy`` is None."""
    return (yield from strategy_simulation(mdp, names, probs_of, policy, games=games, seed=seed, start=start,
                                           start_name=start_name, max_steps=max_steps(mdp),
                                           optimal=lambda: solve(mdp, tol=1e-12).policy))
