"""Risk tic-tac-toe's rules (seed 003): risk vectors, the risk coin and the compiled 3x3 game.

A state is (board, player to move). X maximises, O minimises. The player to move picks an empty
cell i; with probability ``1 - P[i]`` its own mark lands there, with probability ``P[i]`` the
opponent's mark does; either way the turn passes. Completing a line of X pays +1, of O -1, a
full board without a line 0; terminal states are worth 0 and there is no discount. The seed's
Bellman equation (per state s = (b, t), over the empty cells a):

    V(s) = opt_a  (1 - P[a]) (R(s_same) + V(s_same)) + P[a] (R(s_rev) + V(s_rev))

with opt = max for X and min for O.

3x3 compiles to a :class:`~mdpviz.core.mdp.TabularMDP` over every (board, turn) pair except
the boards on which both marks own a line (the seed's S'), solved by the steppable solvers.
The rules (line completion, children ``b + mark * 3**cell``) live in :func:`expand_boards`,
used by both the compiler and the exact layered solver (:mod:`mdpviz.models.risk_ttt.exact`).
The game as a whole (exact n x n solve, position models, its spec) is :mod:`mdpviz.models.risk_ttt.exact`.
Plain numpy; never imports Qt.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Sequence

import numpy as np

from mdpviz.models.kit.pictures.display import state_q
from mdpviz.core.mdp import TabularMDP
from mdpviz.models.kit.boards.ttt_board import EMPTY, O, TTT3, X, BoardGeometry, other, parse_mark
from mdpviz.solvers.backward_induction import LayerExpansion
from mdpviz.models.kit.boards.ttt_board import STOCHASTIC_3X3, PRESETS, _ALIASES, preset_names, risk_preset, validate_risk, parse_risk  # noqa: F401

# ====================================================================== risk vectors












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
        return state_q(self.mdp, state, values)

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


__all__ = [
    "PRESETS", "RiskGame", "STOCHASTIC_3X3", "compile_risk", "expand_boards", "parse_risk", "preset_names",
    "risk_preset", "state_label", "swap_index", "validate_risk",
]
