"""Risk tic-tac-toe matchups (seed 003): agents (optimal, classic, random, a fixed policy), the exact
outcome probabilities of a pair (a Markov chain over the compiled 3x3 game) and a vectorised simulation.
Plain numpy; never imports Qt.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np

from mdpviz.models.kit.boards.position import MatchupRow
from mdpviz.models.risk_ttt.rules import RiskGame, compile_risk
from mdpviz.core.simulate import policy_matrix, uniform_policy_matrix
from mdpviz.solvers.registry import DEFAULT_SOLVER
from mdpviz.models.kit.boards.ttt_board import EMPTY, O, X

# ====================================================================== matchups
AGENT_KINDS = ("optimal", "classic", "random")
"""Built-in agents: optimal for this risk vector, optimal for P = 0 (classic), uniformly random."""


@dataclass(frozen=True, eq=False)
class Agent:
    """A player of risk tic-tac-toe: action probabilities for every state of a :class:`RiskGame`."""

    name: str
    """Display name ("optimal", "classic", "random" or the policy file's name)."""
    probs: np.ndarray
    """float64 (n_states, n_cells): probability of each cell in each state (rows of terminal states are 0)."""


def optimal_policy(game: RiskGame, *, method: str = DEFAULT_SOLVER) -> np.ndarray:
    """int64 (n_states): the minimax-optimal cell per state (ties to the lowest cell)."""
    from mdpviz.solvers import solve

    return np.asarray(solve(game.mdp, method).policy)


def make_agent(
    kind: str,
    game: RiskGame,
    *,
    policy: np.ndarray | None = None,
    name: str | None = None,
    classic_game: RiskGame | None = None,
) -> Agent:
    """An :class:`Agent` for ``game``: ``kind`` "optimal", "classic" (optimal for P = 0, playing in
    this game's risks), "random" (uniform over empty cells) or "policy" (``policy``: a cell per state)."""
    mdp = game.mdp
    if kind == "optimal":
        return Agent(name or "optimal", policy_matrix(mdp, optimal_policy(game)))
    if kind == "classic":
        cg = classic_game or compile_risk(np.zeros(game.geometry.n_cells), geometry=game.geometry)
        return Agent(name or "classic", policy_matrix(mdp, optimal_policy(cg)))
    if kind == "random":
        return Agent(name or "random", uniform_policy_matrix(mdp))
    if kind == "policy":
        if policy is None:
            raise ValueError("a 'policy' agent needs a policy (a cell per state)")
        from mdpviz.solvers.sweep import policy_to_rows

        pol = np.asarray(policy, dtype=np.int64)
        policy_to_rows(mdp, np.where(mdp.terminal, -1, pol))  # validates: legal cells only
        return Agent(name or "policy", policy_matrix(mdp, pol))
    raise ValueError(f"unknown agent {kind!r}; choose one of {', '.join(AGENT_KINDS)} or a policy file")


def load_policy_file(path: str | Path, game: RiskGame, *, fallback: str = "random") -> tuple[np.ndarray, int]:
    """Read a fixed policy from JSON: an object mapping boards (e.g. ``"X.O......"``; ``' '``, ``'.'``
    or ``'-'`` for empty, the seed-001 format) to a cell 0..n-1 (null: no entry).

    Returns (probabilities (n_states x n_cells), number of boards listed). The board's mover is
    whoever plays the policy, so each entry is used for both turns; positions the file does not
    list play ``fallback`` ("random": uniform over empty cells, or "first": the lowest empty cell).
    ValueError naming the file and entry for a bad board or an illegal cell.
    """
    p = Path(path)
    from mdpviz.core.files import read_json_file  # one JSON reader: BOM, size and depth limits

    data = read_json_file(p, error=ValueError)
    if not isinstance(data, dict):
        raise ValueError(f"{p}: expected a JSON object mapping boards to cells")
    mdp = game.mdp
    if fallback == "random":
        probs = uniform_policy_matrix(mdp)
    elif fallback == "first":
        first = np.where(mdp.terminal, -1, mdp.row_action[np.minimum(mdp.state_ptr[:-1], mdp.n_rows - 1)])
        probs = policy_matrix(mdp, first)
    else:
        raise ValueError(f"fallback must be 'random' or 'first', got {fallback!r}")
    listed = 0
    for key, cell in data.items():
        try:
            b = game.geometry.board(key)
        except ValueError as e:
            raise ValueError(f"{p}: entry {key!r}: {e}") from None
        if cell is None:
            continue
        if not isinstance(cell, int) or isinstance(cell, bool) or not (0 <= cell < game.geometry.n_cells):
            raise ValueError(f"{p}: entry {key!r}: the cell must be an integer 0..{game.geometry.n_cells - 1}, got {cell!r}")
        if b[cell] != EMPTY:
            raise ValueError(f"{p}: entry {key!r}: cell {cell} is not empty")
        idx = int(b.astype(np.int64) @ game.geometry.powers)
        try:
            states = [game.state_of(idx, X), game.state_of(idx, O)]
        except ValueError as e:
            raise ValueError(f"{p}: entry {key!r}: {e}") from None
        if mdp.terminal[states[0]]:
            continue  # the game is over on that board: nothing to play
        for s in states:
            probs[s] = 0.0
            probs[s, cell] = 1.0
        listed += 1
    return probs, listed


class MatchOutcome(NamedTuple):
    """Probabilities (or frequencies) of the three results of a game (a tuple, so it is a
    :class:`~mdpviz.models.kit.boards.position.MatchupRow`'s ``exact``)."""

    x_wins: float
    """X completes a line."""
    o_wins: float
    """O completes a line."""
    draws: float
    """The board fills up without a line."""


def combine(game: RiskGame, x: Agent, o: Agent) -> np.ndarray:
    """(n_states x n_cells): X's probabilities where X is to move, O's where O is."""
    x_turn = (np.arange(game.n_states) % 2 == 0)[:, None]
    return np.where(x_turn, x.probs, o.probs)


def exact_match(game: RiskGame, x: Agent, o: Agent, *, start: int | None = None) -> MatchOutcome:
    """Exact P(X wins), P(O wins), P(draw) when ``x`` plays X and ``o`` plays O from ``start``
    (default: the empty board, X to move): the absorption probabilities of the Markov chain of
    the pair, by dynamic programming over the acyclic game
    (:func:`mdpviz.solvers.backward_induction.evaluate_acyclic`, the indicator of each result as
    reward, no discount)."""
    from mdpviz.solvers import row_weights_stochastic
    from mdpviz.solvers.backward_induction import evaluate_acyclic

    mdp = game.mdp
    s0 = game.start if start is None else int(start)
    ind = np.zeros((mdp.n_states, 3))
    term = game.outcome >= 0
    ind[np.flatnonzero(term), game.outcome[term]] = 1.0
    if mdp.terminal[s0]:
        return MatchOutcome(*(float(v) for v in ind[s0]))
    W = row_weights_stochastic(mdp, combine(game, x, o))
    h = evaluate_acyclic(mdp, W, rewards=mdp.matrix @ ind, discount=1.0, layers=game.layers)
    return MatchOutcome(*(float(v) for v in h[s0]))


def play_match(
    game: RiskGame,
    x: Agent,
    o: Agent,
    *,
    games: int = 100_000,
    seed: int | np.random.Generator | None = None,
    exact: bool = True,
) -> MatchupRow:
    """Simulate ``games`` games from the empty board (X first) with the vectorised simulator over
    the compiled MDP (:func:`mdpviz.core.simulate.simulate`), and the exact probabilities of the
    pair when ``exact``: one matchup row named "X's agent vs O's agent" (Wilson 95% intervals are its
    ``ci``), with the simulation's wall time."""
    import time

    from mdpviz.core.chunked import check_games, run_chunks
    from mdpviz.core.simulate import simulate

    games = check_games(games, "the number of games")
    t0 = time.perf_counter()
    probs = combine(game, x, o)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    counts = np.zeros(3, dtype=np.int64)

    def step(n: int) -> None:  # chunks of games: memory does not grow with ``games``
        ep = simulate(game.mdp, probs, start=game.start, episodes=n, seed=rng, max_steps=game.geometry.n_cells + 1)
        if not ep.finished.all():  # every move fills a cell
            raise RuntimeError("internal error: a simulated game did not end")
        counts[:] += np.bincount(game.outcome[ep.final_state], minlength=3)

    run_chunks(games, step)
    secs = time.perf_counter() - t0
    ex = exact_match(game, x, o) if exact else None
    return MatchupRow(f"{x.name} vs {o.name}", x.name, o.name, (int(counts[0]), int(counts[1]), int(counts[2])),
                      games, ex, seconds=secs)


__all__ = [
    "AGENT_KINDS", "Agent", "MatchOutcome", "combine", "exact_match", "load_policy_file",
    "make_agent", "optimal_policy", "play_match",
]
