"""Risk tic-tac-toe (seed 003): every cell has a risk of taking the opponent's mark.

A state is (board, player to move). X maximises, O minimises. The player to move picks an empty
cell i; with probability ``1 - P[i]`` its own mark lands there, with probability ``P[i]`` the
opponent's mark does; either way the turn passes. Completing a line of X pays +1, of O -1, a
full board without a line 0; terminal states are worth 0 and there is no discount. The seed's
Bellman equation (per state s = (b, t), over the empty cells a):

    V(s) = opt_a  (1 - P[a]) (R(s_same) + V(s_same)) + P[a] (R(s_rev) + V(s_rev))

with opt = max for X and min for O.

* 3x3 compiles to a :class:`~mdpviz.models.mdp.TabularMDP` over every (board, turn) pair except
  the boards on which both marks own a line (the seed's S'), solved by the steppable solvers
  (minimax value iteration from V = 0 converges in about 10 sweeps, as in the seed).
* n x n boards (4x4, 4 in a row) are solved exactly by backward induction over the number of
  filled cells (:class:`RiskLayers`, :func:`solve_exact`): one float64 per base-3 board index.
  Only the boards where X is to move after X opened (an even number of marks) are solved: the
  other half follows by colour symmetry, V(b, O) = -V(swap(b), X), because swapping the marks
  and negating the rewards maps the game onto itself (the risks do not depend on the player).
* Matchups between agents (optimal, classic, random, a fixed policy): exact outcome
  probabilities of the pair (a Markov chain over the compiled game) and a vectorised simulation.

The rules (line completion, children ``b + mark * 3**cell``) live in :func:`expand_boards`,
used by both the compiler and the layered solver. Plain numpy; never imports Qt.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Sequence

import numpy as np

from mdpviz.models.mdp import TabularMDP
from mdpviz.models.simulate import policy_matrix, uniform_policy_matrix
from mdpviz.models.tictactoe import EMPTY, O, TTT3, X, BoardGeometry, cell_q_values, other, parse_mark
from mdpviz.solvers.backward_induction import LayerExpansion, LayeredSolution, backward_induction, run_layers

# ====================================================================== risk vectors
STOCHASTIC_3X3 = (0.9, 0.3, 0.5, 0.2, 0.95, 0.7, 0.6, 0.45, 0.1)
"""The seed's hand-made risk vector for the 3x3 board (cells in row-major order)."""

PRESETS: dict[str, str] = {
    "stochastic": "the seed's hand-made risks [0.9, 0.3, 0.5, 0.2, 0.95, 0.7, 0.6, 0.45, 0.1] (3x3 only)",
    "classic": "all 0: ordinary tic-tac-toe",
    "reverse": "all 1: every move places the opponent's mark",
    "noisy-classic": "U(0, 0.1) per cell (seedable)",
    "noisy-reverse": "1 - U(0, 0.1) per cell (seedable)",
    "half": "all 0.5: a coin decides whose mark lands",
    "random": "U(0, 1) per cell, 'totally random' (seedable)",
}
"""The seven risk presets of seed 003 and what each means."""

_ALIASES = {"totally-random": "random", "blind": "half", "pseudo-random": "stochastic"}


def preset_names() -> tuple[str, ...]:
    """The preset names, in the seed's order."""
    return tuple(PRESETS)


def risk_preset(name: str, *, n_cells: int = 9, seed: int | np.random.Generator | None = None) -> np.ndarray:
    """The risk vector of a preset for a board of ``n_cells`` cells (float64, read-only).

    ``seed`` makes the noisy and random presets repeatable (numpy's default generator).
    ValueError for an unknown name, or "stochastic" on a board other than 3x3.
    """
    key = str(name).strip().lower().replace("_", "-").replace(" ", "-")
    key = _ALIASES.get(key, key)
    if key not in PRESETS:
        raise ValueError(f"unknown risk preset {name!r}; choose one of {', '.join(PRESETS)}")
    n = int(n_cells)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    if key == "stochastic":
        if n != 9:
            raise ValueError(f"the stochastic preset has 9 risks (a 3x3 board), not {n}; give --risk with {n} values")
        p = np.array(STOCHASTIC_3X3)
    elif key == "classic":
        p = np.zeros(n)
    elif key == "reverse":
        p = np.ones(n)
    elif key == "half":
        p = np.full(n, 0.5)
    elif key == "noisy-classic":
        p = 0.1 * rng.random(n)
    elif key == "noisy-reverse":
        p = 1.0 - 0.1 * rng.random(n)
    else:  # random
        p = rng.random(n)
    p.flags.writeable = False
    return p


def validate_risk(risk: Sequence[float] | np.ndarray, n_cells: int) -> np.ndarray:
    """A risk vector as float64 (read-only), or ValueError naming the bad entry.

    It must have one entry per cell, each a number in [0, 1].
    """
    try:
        p = np.array(risk, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        raise ValueError(f"the risk vector must be numbers, got {risk!r}") from None
    if p.size != int(n_cells):
        raise ValueError(f"the risk vector needs {int(n_cells)} entries (one per cell), got {p.size}")
    bad = np.flatnonzero(~np.isfinite(p) | (p < 0) | (p > 1))
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"risk[{i}] = {float(p[i])!r} (cell {i}) is not a number in [0, 1]")
    p.flags.writeable = False
    return p


def parse_risk(text: str, n_cells: int) -> np.ndarray:
    """Parse ``"0.9,0.3,..."`` (commas and/or spaces) into a validated risk vector."""
    parts = [t for t in str(text).replace(",", " ").split() if t]
    vals = []
    for i, t in enumerate(parts):
        try:
            vals.append(float(t))
        except ValueError:
            raise ValueError(f"risk entry {i} ({t!r}) is not a number") from None
    return validate_risk(vals, n_cells)


# ====================================================================== the rules
def expand_boards(
    geometry: BoardGeometry,
    risk: np.ndarray,
    indices: np.ndarray,
    mover: int,
    *,
    digits: np.ndarray | None = None,
) -> LayerExpansion:
    """The moves of the boards ``indices`` when ``mover`` (X or O) is to play.

    For each board: terminal if a line is owned or the board is full (``invalid`` if both marks
    own a line). For each empty cell c of a non-terminal board, one row with two outcomes:
    slot 0 the mover's own mark lands (probability 1 - P[c]), slot 1 the opponent's mark lands
    (probability P[c]); the child board is ``index + mark * 3**c`` and the reward is +1 if that
    completes a line of X, -1 for O, else 0. The ``mover`` field of the result is +1 for X, -1 for O.
    """
    own = parse_mark(mover)
    opp = other(own)
    idx = np.asarray(indices, dtype=np.int64).ravel()
    d = geometry.digits(idx) if digits is None else digits
    n = geometry.n_cells
    lines = geometry.analyse(d)
    empty = d == EMPTY
    terminal = lines.x_line | lines.o_line | ~empty.any(axis=1)
    flat = np.flatnonzero(empty & ~terminal[:, None])  # 1-D nonzero + divmod: ~8x faster than 2-D
    rs, rc = np.divmod(flat, n)
    r = flat.size
    own_done, opp_done = (lines.x_completes, lines.o_completes) if own == X else (lines.o_completes, lines.x_completes)
    sign = 1.0 if own == X else -1.0
    base = idx[rs]
    pw = geometry.powers[rc]
    child = np.empty((2, r), dtype=np.int64)
    np.add(base, own * pw, out=child[0])
    np.add(base, opp * pw, out=child[1])
    reward = np.empty((2, r))
    np.multiply(own_done.ravel()[flat], sign, out=reward[0])
    np.multiply(opp_done.ravel()[flat], -sign, out=reward[1])
    prob = np.empty((2, r))
    np.take(risk, rc, out=prob[1])
    np.subtract(1.0, prob[1], out=prob[0])
    return LayerExpansion(
        terminal=terminal, mover=np.int8(1 if own == X else -1), row_state=rs, row_action=rc,
        child=child, prob=prob, reward=reward, invalid=lines.x_line & lines.o_line,
    )


def swap_index(geometry: BoardGeometry, indices: np.ndarray) -> np.ndarray:
    """int64: the indices of the boards with X and O exchanged."""
    d = geometry.digits(indices).astype(np.int64)
    s = np.where(d == X, O, np.where(d == O, X, EMPTY))
    return s @ geometry.powers


# ====================================================================== 3x3: the TabularMDP
@dataclass(frozen=True, eq=False)
class RiskGame:
    """Risk tic-tac-toe compiled to a TabularMDP, with the board <-> state lookups the GUI needs.

    State ``2 * k + t`` is the k-th valid board (in base-3 index order; boards on which both
    marks own a line are left out) with X to move (t = 0) or O to move (t = 1). Action id =
    cell index. Terminal states are the boards with a line or no empty cell.
    """

    geometry: BoardGeometry
    """The board."""
    risk: np.ndarray
    """float64 (n_cells): P[i], the probability that playing cell i places the opponent's mark."""
    mdp: TabularMDP
    """The compiled MDP (X maximises, O minimises, discount 1)."""
    board_index: np.ndarray
    """int64 (n_valid_boards): the base-3 index of the k-th valid board."""
    outcome: np.ndarray
    """int8 (n_states): for terminal states 0 = X has a line, 1 = O has a line, 2 = draw; -1 otherwise."""

    @property
    def n_states(self) -> int:
        """Number of (board, turn) states."""
        return self.mdp.n_states

    @cached_property
    def _rank(self) -> np.ndarray:
        r = np.full(self.geometry.n_boards, -1, dtype=np.int64)
        r[self.board_index] = np.arange(self.board_index.size)
        return r

    def state_of(self, board: str | Sequence[int] | np.ndarray | int, turn: str | int = "X") -> int:
        """The state id of (board, player to move); the board as cells, a string or its base-3 index."""
        geo = self.geometry
        idx = int(board) if isinstance(board, (int, np.integer)) else geo.index(board)
        if not (0 <= idx < geo.n_boards):
            raise ValueError(f"board index {idx} is out of range 0..{geo.n_boards - 1}")
        k = int(self._rank[idx])
        if k < 0:
            raise ValueError(f"board {geo.text(geo.decode(idx))!r} has a line of X and a line of O; no game reaches it")
        return 2 * k + (0 if parse_mark(turn) == X else 1)

    def states_of(self, indices: np.ndarray, turn: int) -> np.ndarray:
        """int64: vectorised :meth:`state_of` for valid board indices (-1 where invalid)."""
        k = self._rank[np.asarray(indices, dtype=np.int64)]
        return np.where(k >= 0, 2 * k + (0 if turn == X else 1), -1)

    def board_of(self, state: int) -> np.ndarray:
        """int8 (n_cells): the board of a state."""
        s = int(state)
        if not (0 <= s < self.n_states):
            raise ValueError(f"state {s} is out of range 0..{self.n_states - 1}")
        return self.geometry.decode(int(self.board_index[s // 2]))

    def turn_of(self, state: int) -> int:
        """The mark to move in a state (X or O)."""
        return X if int(state) % 2 == 0 else O

    def legal_moves(self, state: int) -> np.ndarray:
        """int64: the empty cells (= action ids) of a non-terminal state (none for a terminal one)."""
        return np.asarray(self.mdp.actions_of(int(state)), dtype=np.int64)

    def cell_values(self, values: np.ndarray, state: int) -> np.ndarray:
        """float64 (n_cells): Q of each legal cell of ``state`` under ``values`` (X's point of view:
        X picks the largest, O the smallest), NaN on occupied cells and in terminal states."""
        return cell_q_values(self.mdp, values, state)

    @cached_property
    def layers(self) -> np.ndarray:
        """int64 (n_states): backward-induction layer of each state (the game is acyclic)."""
        from mdpviz.solvers.backward_induction import mdp_layers

        return mdp_layers(self.mdp)

    @property
    def start(self) -> int:
        """The state id of the empty board with X to move."""
        return self.state_of(0, X)

    def value(self, values: np.ndarray, board: str | Sequence[int] | np.ndarray | int, turn: str | int = "X") -> float:
        """V of (board, turn) from a value array over the states."""
        return float(np.asarray(values)[self.state_of(board, turn)])


def compile_risk(risk: Sequence[float] | np.ndarray, *, geometry: BoardGeometry = TTT3) -> RiskGame:
    """Compile risk tic-tac-toe on ``geometry`` (default 3x3) to a :class:`RiskGame`.

    Every (board, turn) pair except the boards with a line of each mark; transitions from
    :func:`expand_boards`, probability-0 outcomes dropped (classic and reverse are then
    deterministic). Refuses boards of more than 12 cells (use :func:`solve_exact`).
    """
    if geometry.n_cells > 12:
        raise ValueError(
            f"a {geometry.n_cells}-cell board has {2 * geometry.n_boards:,} (board, turn) pairs, too many for a "
            "TabularMDP; solve it exactly with backward induction (solve_exact) instead"
        )
    p = validate_risk(risk, geometry.n_cells)
    allb = np.arange(geometry.n_boards, dtype=np.int64)
    d = geometry.digits(allb)
    valid = ~(geometry.has_line(d, X) & geometry.has_line(d, O))
    board_index = allb[valid]
    dv = d[valid]
    nb = board_index.size
    rank = np.full(geometry.n_boards, -1, dtype=np.int64)
    rank[board_index] = np.arange(nb)

    src, act, dst, prb, rew = [], [], [], [], []
    terminal = None
    for t, mark in enumerate((X, O)):
        ex = expand_boards(geometry, p, board_index, mark, digits=dv)
        terminal = ex.terminal
        s = 2 * ex.row_state + t
        nxt_t = 1 - t
        for slot in (0, 1):
            keep = ex.prob[slot] > 0
            src.append(s[keep])
            act.append(ex.row_action[keep])
            dst.append(2 * rank[ex.child[slot, keep]] + nxt_t)
            prb.append(ex.prob[slot, keep])
            rew.append(ex.reward[slot, keep])
    dst_all = np.concatenate(dst)
    if np.any(dst_all < 0):  # cannot happen: one mark cannot complete lines of both players
        raise RuntimeError("internal error: a move led to a board with lines of both marks")
    n_states = 2 * nb
    term_states = np.flatnonzero(np.repeat(terminal, 2))
    mover = np.tile(np.array([1, -1], dtype=np.int8), nb)
    xl = np.repeat(geometry.has_line(dv, X), 2)
    ol = np.repeat(geometry.has_line(dv, O), 2)
    term = np.repeat(terminal, 2)
    outcome = np.where(~term, -1, np.where(xl, 0, np.where(ol, 1, 2))).astype(np.int8)
    mdp = TabularMDP.from_transitions(
        n_states, geometry.n_cells, np.concatenate(src), np.concatenate(act), dst_all,
        np.concatenate(prb), np.concatenate(rew), discount=1.0, terminal=term_states, mover=mover,
        objective="max", action_labels=[f"cell {i}" for i in range(geometry.n_cells)], mdptype="episodic",
    )
    for a in (board_index, outcome):
        a.flags.writeable = False
    return RiskGame(geometry=geometry, risk=p, mdp=mdp, board_index=board_index, outcome=outcome)


def state_label(game: RiskGame, state: int) -> str:
    """``"XO.......|X"``: the board of a state and the mark to move (the seed logs states this way)."""
    return f"{game.geometry.text(game.board_of(state))}|{'X' if game.turn_of(state) == X else 'O'}"


# ====================================================================== n x n: backward induction
BYTES_PER_BOARD = 8 + 2 + 1
"""Memory per base-3 board index of :func:`solve_exact`: float64 value, int16 action, int8 mark count."""

MAX_EXACT_SIZE = 4
"""Largest board side solved exactly (4x4: 3^16 boards, about 0.5 GB of arrays)."""


def exact_requirements(size: int) -> tuple[int, int]:
    """(number of (board, turn) pairs, bytes of the per-board arrays) of an exact n x n solve.

    The pairs are 2 * 3^(n*n) (including the few boards with a line of each mark); the bytes
    are :data:`BYTES_PER_BOARD` per board for the half that is solved (the other by symmetry).
    """
    boards = 3 ** (int(size) ** 2)
    return 2 * boards, BYTES_PER_BOARD * boards


def _human_bytes(n: float) -> str:
    for unit in ("bytes", "KB", "MB", "GB", "TB", "PB", "EB"):
        if n < 1000 or unit == "EB":
            return f"{n:,.0f} {unit}" if unit == "bytes" else f"{n:,.1f} {unit}"
        n /= 1000.0
    return f"{n:.1f} EB"  # pragma: no cover


def check_exact_size(size: int) -> None:
    """ValueError unless an n x n board can be solved exactly here (2 <= n <= :data:`MAX_EXACT_SIZE`);
    the message for larger boards gives the state count and memory they would need."""
    n = int(size)
    if n < 2:
        raise ValueError(f"the board side must be at least 2, got {n}")
    if n > MAX_EXACT_SIZE:
        pairs, nbytes = exact_requirements(n)
        raise ValueError(
            f"a {n}x{n} board has 2 x 3^{n * n} = {pairs:,} (board, turn) states; an exact solve would need "
            f"about {_human_bytes(nbytes)} of memory ({BYTES_PER_BOARD} bytes for each of the 3^{n * n} = "
            f"{pairs // 2:,} boards of the half that is solved, the other half by symmetry). Exact solving "
            f"stops at {MAX_EXACT_SIZE}x{MAX_EXACT_SIZE}"
        )


class RiskLayers:
    """Risk tic-tac-toe on an n x n board as a :class:`~mdpviz.solvers.backward_induction.LayeredGame`.

    Index = base-3 board index; layer k = the boards with k marks; X moves when k is even (the
    game X opened). The mark counts of all 3^(n*n) indices are built once (int8 array).
    """

    def __init__(self, risk: Sequence[float] | np.ndarray, *, geometry: BoardGeometry) -> None:
        self.geometry = geometry
        self.risk = validate_risk(risk, geometry.n_cells)
        self.n_index = geometry.n_boards
        self.n_actions = geometry.n_cells
        self.n_layers = geometry.n_cells + 1
        self.discount = 1.0
        self._filled = geometry.filled_counts()

    def layer(self, k: int) -> np.ndarray:
        return np.flatnonzero(self._filled == k)

    def expand(self, indices: np.ndarray, layer: int) -> LayerExpansion:
        return expand_boards(self.geometry, self.risk, indices, X if layer % 2 == 0 else O)

    def backup(self, indices: np.ndarray, layer: int, V: np.ndarray, policy: np.ndarray | None,
               tie_tol: float) -> tuple[int, int, int] | None:
        """:meth:`expand` and the backup fused in one compiled pass (writes V and policy in place).

        Returns (states, terminal states, rows), or None when numba is unavailable (the caller
        then uses :meth:`expand`, which gives bit-for-bit the same values, only slower).
        """
        k = layer_kernel()
        if k is None or self.geometry.n_cells > 16:  # the kernel decodes boards of at most 16 cells
            return None
        own = X if layer % 2 == 0 else O
        counts = np.zeros(3, dtype=np.int64)
        pol = policy if policy is not None else np.zeros(1, dtype=np.int16)
        geo = self.geometry
        k(np.ascontiguousarray(indices, dtype=np.int64), own, other(own), self.risk,
          np.ascontiguousarray(geo.powers, dtype=np.int64), _line_masks(geo), *_digit_tables(),
          float(self.discount), float(tie_tol), V, pol, policy is not None, counts)
        return int(counts[0]), int(counts[1]), int(counts[2])


def _line_masks(geo: BoardGeometry) -> np.ndarray:
    """int64 per winning line: bit c set for each of its cells."""
    return (np.left_shift(np.int64(1), geo.lines.astype(np.int64))).sum(axis=1).astype(np.int64)


@lru_cache(maxsize=1)
def _digit_tables() -> tuple[np.ndarray, np.ndarray]:
    """int64 (3**8) each: the bitmask of the X cells, and of the O cells, of every 8-digit base-3
    number (built once, read-only)."""
    d = np.arange(3**8, dtype=np.int64)
    x = np.zeros(d.size, dtype=np.int64)
    o = np.zeros(d.size, dtype=np.int64)
    for c in range(8):
        x |= (d % 3 == X).astype(np.int64) << c
        o |= (d % 3 == O).astype(np.int64) << c
        d //= 3
    x.flags.writeable = o.flags.writeable = False
    return x, o


def layer_kernel():
    """The compiled layer kernel (:mod:`mdpviz.solvers._numba_layers`), or None without numba
    (or with ``MDPVIZ_NO_NUMBA`` set). Compiled on first use (or loaded from numba's cache)."""
    from mdpviz.solvers import kernels

    if kernels.kernels() is None:  # honours MDPVIZ_NO_NUMBA and sets up numba's cache directory
        return None
    try:
        from mdpviz.solvers._numba_layers import risk_layer
    except Exception:  # noqa: BLE001 - a broken numba install must not break solving
        return None
    return risk_layer


@dataclass(frozen=True, eq=False)
class ExactRiskSolution:
    """Exact values of risk tic-tac-toe on an n x n board for every (board, turn)."""

    geometry: BoardGeometry
    """The board."""
    risk: np.ndarray
    """The risk vector."""
    layered: LayeredSolution
    """The backward-induction result over the boards where X is to move after opening (even mark count)."""
    seconds: float
    """Wall time of the solve, seconds."""

    @property
    def empty_value(self) -> float:
        """V of the empty board with X to move."""
        return float(self.layered.values[0])

    @property
    def n_states(self) -> int:
        """(board, turn) states covered: twice the boards solved (the other turn by colour symmetry)."""
        return 2 * self.layered.states

    def value(self, board: str | Sequence[int] | np.ndarray | int, turn: str | int = "X") -> float:
        """V(board, turn): read directly when the mover matches the mark count's parity, else
        -V(swap(board), other turn) by colour symmetry."""
        geo = self.geometry
        idx = int(board) if isinstance(board, (int, np.integer)) else geo.index(board)
        d = geo.decode(idx)
        t = parse_mark(turn)
        k = int(np.count_nonzero(d))
        if (t == X) == (k % 2 == 0):
            return float(self.layered.values[idx])
        return -float(self.layered.values[int(swap_index(geo, np.array([idx]))[0])])

    def best_move(self, board: str | Sequence[int] | np.ndarray | int, turn: str | int = "X") -> int:
        """The optimal cell for (board, turn), -1 if the game is over."""
        if self.layered.policy is None:
            raise ValueError("the policy was not kept (solve_exact(..., keep_policy=True))")
        geo = self.geometry
        idx = int(board) if isinstance(board, (int, np.integer)) else geo.index(board)
        t = parse_mark(turn)
        k = int(np.count_nonzero(geo.decode(idx)))
        if (t != X) == (k % 2 == 0):
            idx = int(swap_index(geo, np.array([idx]))[0])  # same cell choice in the colour-swapped game
        return int(self.layered.policy[idx])


def solve_exact_steps(
    risk: Sequence[float] | np.ndarray,
    *,
    size: int = 4,
    keep_policy: bool = True,
    chunk_size: int | None = None,
):
    """(the :class:`RiskLayers` game, its backward-induction generator) for an n x n board.

    The generator yields a LayerStep per layer (steppable, e.g. for a progress bar); drive it
    with :func:`mdpviz.solvers.backward_induction.run_layers` or use :func:`solve_exact`.
    """
    check_exact_size(size)
    geo = BoardGeometry(size=int(size))
    game = RiskLayers(risk, geometry=geo)
    opts = {} if chunk_size is None else {"chunk_size": int(chunk_size)}
    return game, backward_induction(game, keep_policy=keep_policy, **opts)


def solve_exact(
    risk: Sequence[float] | np.ndarray,
    *,
    size: int = 4,
    keep_policy: bool = True,
    chunk_size: int | None = None,
    on_layer=None,
) -> ExactRiskSolution:
    """Solve risk tic-tac-toe on an n x n board (n in row, 2 <= n <= 4) exactly by backward induction.

    ``on_layer(step)`` is called with each :class:`~mdpviz.solvers.backward_induction.LayerStep`.
    5x5 and larger raise ValueError with the state count and memory they would need.
    """
    import time

    t0 = time.perf_counter()
    game, gen = solve_exact_steps(risk, size=size, keep_policy=keep_policy, chunk_size=chunk_size)
    sol = run_layers(gen, on_step=on_layer)
    return ExactRiskSolution(geometry=game.geometry, risk=game.risk, layered=sol, seconds=time.perf_counter() - t0)


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


def optimal_policy(game: RiskGame, *, method: str = "vi") -> np.ndarray:
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
    from mdpviz.models.files import read_json_file  # one JSON reader: BOM, size and depth limits

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


@dataclass(frozen=True)
class MatchOutcome:
    """Probabilities (or frequencies) of the three results of a game."""

    x_wins: float
    """X completes a line."""
    o_wins: float
    """O completes a line."""
    draws: float
    """The board fills up without a line."""


@dataclass(frozen=True, eq=False)
class MatchResult:
    """N simulated games between two agents, with the exact probabilities beside them."""

    x: str
    """The agent playing X (moves first)."""
    o: str
    """The agent playing O."""
    games: int
    """Number of games simulated."""
    counts: tuple[int, int, int]
    """X wins, O wins, draws among the simulated games."""
    ci: tuple[tuple[float, float], tuple[float, float], tuple[float, float]]
    """Wilson 95% confidence interval of each fraction."""
    exact: MatchOutcome | None
    """Exact outcome probabilities of the pair (Markov chain over the game), or None if not computed."""
    seconds: float
    """Wall time of the simulation, seconds."""

    @property
    def fractions(self) -> MatchOutcome:
        """The simulated frequencies."""
        n = float(self.games)
        return MatchOutcome(self.counts[0] / n, self.counts[1] / n, self.counts[2] / n)


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
) -> MatchResult:
    """Simulate ``games`` games from the empty board (X first) with the vectorised simulator over
    the compiled MDP (:func:`mdpviz.models.simulate.simulate`), with Wilson 95% intervals, and the
    exact probabilities of the pair when ``exact``."""
    import time

    from mdpviz.models.chunked import check_games, run_chunks
    from mdpviz.models.simulate import proportion_ci, simulate

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
    lo, hi = proportion_ci(counts, games)
    secs = time.perf_counter() - t0
    ex = exact_match(game, x, o) if exact else None
    return MatchResult(
        x=x.name, o=o.name, games=games, counts=(int(counts[0]), int(counts[1]), int(counts[2])),
        ci=tuple((float(a), float(b)) for a, b in zip(lo, hi)), exact=ex, seconds=secs,
    )


__all__ = [
    "AGENT_KINDS", "Agent", "ExactRiskSolution", "MatchOutcome", "MatchResult", "PRESETS", "RiskGame",
    "RiskLayers", "STOCHASTIC_3X3", "check_exact_size", "combine", "compile_risk", "exact_match",
    "exact_requirements", "expand_boards", "load_policy_file", "make_agent", "optimal_policy", "parse_risk",
    "play_match", "preset_names", "risk_preset", "solve_exact", "solve_exact_steps", "state_label",
    "swap_index", "validate_risk",
]
