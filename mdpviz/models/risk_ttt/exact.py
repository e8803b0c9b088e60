"""Risk tic-tac-toe (seed 003): every cell has a risk of taking the opponent's mark.

A state is (board, player to move). X maximises, O minimises. The player to move picks an empty
cell i; with probability ``1 - P[i]`` its own mark lands there, with probability ``P[i]`` the
opponent's mark does; either way the turn passes. Completing a line of X pays +1, of O -1, a
full board without a line 0; terminal states are worth 0 and there is no discount. The seed's
Bellman equation (per state s = (b, t), over the empty cells a):

    V(s) = opt_a  (1 - P[a]) (R(s_same) + V(s_same)) + P[a] (R(s_rev) + V(s_rev))

with opt = max for X and min for O.

* 3x3 compiles to a :class:`~mdpviz.core.mdp.TabularMDP` over every (board, turn) pair except
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

Where things are: the risk vectors, the rules and the compiled 3x3 game in
:mod:`mdpviz.models.risk_ttt.rules`, the matchups in :mod:`mdpviz.models.risk_ttt.match`; here the exact
n x n solve, the position models of the board, the exact solve as a job generator (:func:`exact_solve_job`)
and the settings (:class:`RiskSettings`); the scenario codec and the registry's ``SPEC`` are in
:mod:`mdpviz.models.risk_ttt.spec`.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Callable, Generator, Sequence

import numpy as np

from mdpviz.models.kit.game.codec import FieldError
from mdpviz.models.kit.pictures.display import BackupTerm
from mdpviz.models.kit.game.registry import JobProgress
from mdpviz.models.kit.boards.position import DECISION, MatchupResult, MoveSpec, Ply, Position, PositionModel, \
    TabularPositionModel
from mdpviz.models.risk_ttt.match import (
    Agent,
    exact_match,
    make_agent,
    play_match,
)
from mdpviz.models.risk_ttt.rules import (
    PRESETS,
    STOCHASTIC_3X3,
    RiskGame,
    expand_boards,
    state_label,
    swap_index,
    validate_risk,
)
from mdpviz.core.simulate import policy_matrix
from mdpviz.models.kit.boards.ttt_board import ValuesCache, greedy_policy, mark_name
from mdpviz.models.kit.boards.ttt_board import O, X, BoardGeometry, other, parse_mark
from mdpviz.solvers.backward_induction import LayerExpansion, LayeredSolution, backward_induction, run_layers

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
        if n > 8:  # 3^(n*n) has more digits than a reader can take in (and than Python prints at n > 94)
            exp = n * n * math.log10(3.0)
            raise ValueError(
                f"a {n}x{n} board has 2 x 3^{n * n} (about 10^{exp:.0f}) (board, turn) states; an exact solve "
                f"would need about 10^{exp + math.log10(BYTES_PER_BOARD):.0f} bytes of memory. Exact solving "
                f"stops at {MAX_EXACT_SIZE}x{MAX_EXACT_SIZE}")
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
    """The compiled layer kernel (:mod:`mdpviz.models.risk_ttt.kernels`), or None without numba
    (or with ``MDPVIZ_NO_NUMBA`` set). Compiled on first use (or loaded from numba's cache)."""
    from mdpviz.solvers import kernels

    if kernels.kernels() is None:  # honours MDPVIZ_NO_NUMBA and sets up numba's cache directory
        return None
    try:
        from mdpviz.models.risk_ttt.kernels import risk_layer
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

# ====================================================================== the board's position models
def _risk_outcome(cells: np.ndarray, geo: BoardGeometry) -> str:
    w = geo.winner(cells)
    return "" if w is None else ("draw" if w == 0 else f"{mark_name(w)} wins")


class RiskPositionModel(TabularPositionModel):
    """Positions of 3x3 risk tic-tac-toe: every (board, turn) is an MDP state; X max, O min."""

    def __init__(self, game: RiskGame) -> None:
        super().__init__(game.mdp)
        self.game = game
        self.geo = game.geometry
        self.n_cells = self.geo.n_cells
        self._policy = ValuesCache()

    def position_of(self, state: int) -> Position:
        s = int(state)
        g = self.game
        cells = g.board_of(s)
        mover = mark_name(g.turn_of(s))
        out = ""
        if g.mdp.terminal[s]:
            out = {0: "X wins", 1: "O wins", 2: "draw"}[int(g.outcome[s])]
        return Position(("s", s), cells, "" if out else mover, state=s, chooser=DECISION,
                        objective="max" if g.turn_of(s) == X else "min", outcome=out)

    def start(self, *, first: str | None = None) -> Position:
        return self.position_of(self.game.state_of(0, first or "X"))

    def moves(self, pos: Position) -> tuple[MoveSpec, ...]:
        if pos.terminal:
            return ()
        p = self.game.risk
        return tuple(MoveSpec(int(c), f"cell {int(c)} (risk {p[c]:.2f})", int(c))
                     for c in self.game.legal_moves(pos.state))

    def play(self, pos: Position, action: int, rng: np.random.Generator) -> Ply:
        c = int(action)
        if c not in self.game.legal_moves(pos.state):
            raise ValueError(f"cell {c} is not a legal move here")
        outs = self.mdp.outcomes(pos.state, c)  # the compiled coin: (next state, probability, reward)
        k = int(rng.choice(len(outs), p=np.array([o[1] for o in outs]) / sum(o[1] for o in outs)))
        dst, _p, r = outs[k]
        nxt = self.position_of(int(dst))
        own = parse_mark(pos.mover)
        landed = int(nxt.cells[c])
        risk = float(self.game.risk[c])
        if landed == own:
            text = f"{pos.mover} on cell {c}: its own mark landed (risk {risk:.2f})"
        else:
            text = f"{pos.mover} chose cell {c}: the coin (risk {risk:.2f}) put {mark_name(landed)}'s mark there"
        if nxt.terminal:
            text += f"; {nxt.outcome}"
        return Ply(pos, c, nxt, text, float(r))

    def state_name(self, s: int) -> str:
        return state_label(self.game, int(s))

    def describe(self, pos: Position) -> str:
        if pos.terminal:
            return f"Game over: {pos.outcome}"
        return f"{pos.mover} to move ({'maximises' if pos.mover == 'X' else 'minimises'} X's result)"

    def backup(self, pos: Position, action: int, values: Any) -> list[BackupTerm]:
        terms = super().backup(pos, action, values)
        out = []
        for t in terms:
            landed = int(self.game.board_of(t.next_state)[int(action)])
            note = "own mark" if mark_name(landed) == pos.mover else "coin: opponent's mark"
            out.append(BackupTerm(t.prob, t.reward + 0.0, t.next_state, t.next_value, note))  # + 0.0: no "-0"
        return out

    def outcome_probabilities(self, pos: Position, values: Any) -> dict[str, float] | None:
        if values is None or pos.terminal:
            return None
        agent = self._policy.get(values, lambda: Agent("greedy", policy_matrix(self.mdp, greedy_policy(self.mdp, values))))
        m = exact_match(self.game, agent, agent, start=pos.state)
        return {"X wins": m.x_wins, "O wins": m.o_wins, "draw": m.draws}


class ExactRiskPositionModel(PositionModel):
    """Positions of n x n risk tic-tac-toe solved exactly (no MDP: values from an ExactRiskSolution).

    ``values`` given to the board is the :class:`~mdpviz.models.risk_ttt.exact.ExactRiskSolution` (or None
    before the solve). Moves and the coin come from :func:`~mdpviz.models.risk_texpand_boards`.
    """

    value_label = "Q (X's expected result)"

    def __init__(self, risk: np.ndarray, size: int, solution: ExactRiskSolution | None = None) -> None:
        self.geo = BoardGeometry(size=int(size))
        self.risk = validate_risk(risk, self.geo.n_cells)
        self.n_cells = self.geo.n_cells
        self.solution = solution

    def _pos(self, idx: int, turn: int) -> Position:
        cells = self.geo.decode(idx)
        out = _risk_outcome(cells, self.geo)
        return Position((idx, turn), cells, "" if out else mark_name(turn), chooser=DECISION,
                        objective="max" if turn == X else "min", outcome=out)

    def start(self, *, first: str | None = None) -> Position:
        return self._pos(0, parse_mark(first or "X"))

    def _expand(self, pos: Position) -> LayerExpansion:
        idx, turn = pos.key
        return expand_boards(self.geo, self.risk, np.array([idx]), turn, digits=pos.cells[None])

    def moves(self, pos: Position) -> tuple[MoveSpec, ...]:
        if pos.terminal:
            return ()
        ex = self._expand(pos)
        return tuple(MoveSpec(int(c), f"cell {int(c)} (risk {self.risk[c]:.2f})", int(c)) for c in ex.row_action)

    def _children(self, pos: Position) -> tuple[LayerExpansion, int]:
        return self._expand(pos), other(pos.key[1])

    def move_values(self, pos: Position, values: Any) -> np.ndarray:
        """Q(b, t, c) = sum over the two coin outcomes of p (r + V(child, other turn)) (no discount)."""
        mv = self.moves(pos)
        sol = values if values is not None else self.solution
        if sol is None or not mv:
            return np.full(len(mv), np.nan)
        ex, nt = self._children(pos)
        q = np.zeros(ex.row_action.size)
        for j in range(ex.child.shape[0]):
            v = np.array([sol.value(int(ch), nt) for ch in ex.child[j]])
            q += ex.prob[j] * (ex.reward[j] + v)
        return q

    def value(self, pos: Position, values: Any) -> float:
        sol = values if values is not None else self.solution
        if sol is None:
            return math.nan
        return 0.0 if pos.terminal else float(sol.value(pos.key[0], pos.key[1]))

    def default_values(self) -> Any:
        return self.solution

    def value_range(self) -> tuple[float, float]:
        return (-1.0, 1.0)  # X's expected result: +1 a line of X, -1 a line of O

    def play(self, pos: Position, action: int, rng: np.random.Generator) -> Ply:
        ex, nt = self._children(pos)
        rows = np.flatnonzero(ex.row_action == int(action))
        if pos.terminal or rows.size == 0:
            raise ValueError(f"cell {action} is not a legal move here")
        r = int(rows[0])
        slot = int(rng.random() < ex.prob[1, r])  # slot 1: the opponent's mark lands (probability P[cell])
        nxt = self._pos(int(ex.child[slot, r]), nt)
        c = int(action)
        risk = float(self.risk[c])
        text = (f"{pos.mover} on cell {c}: its own mark landed (risk {risk:.2f})" if slot == 0 else
                f"{pos.mover} chose cell {c}: the coin (risk {risk:.2f}) put {mark_name(nt)}'s mark there")
        if nxt.terminal:
            text += f"; {nxt.outcome}"
        return Ply(pos, c, nxt, text, float(ex.reward[slot, r]))

    def backup(self, pos: Position, action: int, values: Any) -> list[BackupTerm]:
        sol = values if values is not None else self.solution
        if sol is None or pos.terminal:
            return []
        ex, nt = self._children(pos)
        rows = np.flatnonzero(ex.row_action == int(action))
        if rows.size == 0:
            return []
        r = int(rows[0])
        out = []
        for j, note in ((0, "own mark"), (1, "coin: opponent's mark")):
            if ex.prob[j, r] > 0:
                ch = int(ex.child[j, r])
                out.append(BackupTerm(float(ex.prob[j, r]), float(ex.reward[j, r]) + 0.0, ch, float(sol.value(ch, nt)),
                                      note))
        return out

    def state_name(self, idx: int) -> str:
        return self.geo.text(int(idx))

    def describe(self, pos: Position) -> str:
        if pos.terminal:
            return f"Game over: {pos.outcome}"
        if self.solution is None:
            return f"{pos.mover} to move (not solved yet: press Solve 4x4 in the game panel)"
        return f"{pos.mover} to move ({'maximises' if pos.mover == 'X' else 'minimises'} X's result)"


@dataclass(frozen=True)
class RiskSettings:
    """The edits of risk tic-tac-toe."""

    risk: tuple[float, ...] = STOCHASTIC_3X3
    """P[i] per cell: the probability that playing cell i places the opponent's mark."""
    size: int = 3
    """Board side: 3 (compiled, stepped by the solvers) or 4 (solved exactly on the job thread)."""
    preset: str = "stochastic"
    """The preset the risks came from, or "custom" after an edit on the board."""
    seed: int = 0
    """Seed of the noisy and random presets."""

    def __post_init__(self) -> None:
        if isinstance(self.size, bool) or self.size not in (3, 4):
            raise FieldError("size", f"must be 3 or 4, got {self.size!r}", subject="the board side")
        try:
            validate_risk(self.risk, self.size * self.size)
        except ValueError as e:
            raise FieldError("risk", str(e), subject="") from None
        if self.preset != "custom" and self.preset not in PRESETS:
            raise FieldError("preset", f"must be 'custom' or one of {', '.join(PRESETS)}, got {self.preset!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, (int, np.integer)) or self.seed < 0:
            raise FieldError("seed", f"must be a non-negative whole number (numpy's seeds), got {self.seed!r}",
                             subject="the seed")

# ====================================================================== the exact solve as a job
class _BatchLayers:
    """:class:`RiskLayers` with each layer cut into batches of ``chunk`` boards, each presented as a
    layer of its own, so backward induction yields once per batch (progress and cancel between two
    batches). The batches of one layer are independent (their children lie in the next layer), so
    the values and policy are those of :func:`solve_exact`, bit for bit."""

    def __init__(self, game: RiskLayers, chunk: int) -> None:
        self.game = game
        self.chunk = int(chunk)
        self.n_index, self.n_actions, self.discount = game.n_index, game.n_actions, game.discount
        n = game.geometry.n_cells
        sizes = [math.comb(n, k) * 2 ** k for k in range(game.n_layers)]  # boards with k marks
        self.pieces = [max(1, -(-s // self.chunk)) for s in sizes]
        self.base = np.concatenate([[0], np.cumsum(self.pieces)]).astype(np.int64)
        self.n_layers = int(self.base[-1])
        self._layer: tuple[int, np.ndarray] | None = None

    def original(self, j: int) -> tuple[int, int]:
        """(layer k, batch i of that layer) of batch-layer ``j``; within a layer the batches run in index order."""
        k = int(np.searchsorted(self.base, j, side="right") - 1)
        return k, int(self.base[k + 1] - 1 - j)

    def layer(self, j: int) -> np.ndarray:
        k, i = self.original(j)
        if self._layer is None or self._layer[0] != k:
            self._layer = (k, self.game.layer(k))
        return self._layer[1][i * self.chunk: (i + 1) * self.chunk]

    def expand(self, indices: np.ndarray, j: int) -> LayerExpansion:
        return self.game.expand(indices, self.original(j)[0])

    def backup(self, indices: np.ndarray, j: int, V: np.ndarray, policy, tie_tol: float):
        return self.game.backup(indices, self.original(j)[0], V, policy, tie_tol)


def exact_solve_job(risk: Sequence[float] | np.ndarray, *, size: int = 4,
                    chunk_size: int | None = None) -> Generator[JobProgress, None, ExactRiskSolution]:
    """The exact n x n solve (:func:`solve_exact`, with the policy kept) as a job generator: it yields
    a :class:`~mdpviz.models.kit.game.registry.JobProgress` (boards done of 3^(n*n), and the layer) after every
    batch of ``chunk_size`` boards (default 2^18) and returns the :class:`ExactRiskSolution`. The
    window's controller steps it on its job thread (a cancel closes it between two batches); the
    CLI and tests simply iterate it. ValueError at once for a board too large to solve exactly."""
    check_exact_size(size)
    from mdpviz.solvers.backward_induction import DEFAULT_CHUNK

    geo = BoardGeometry(size=int(size))
    game = RiskLayers(risk, geometry=geo)
    chunk = int(chunk_size) if chunk_size is not None else DEFAULT_CHUNK

    def run() -> Generator[JobProgress, None, ExactRiskSolution]:
        t0 = time.perf_counter()
        batches = _BatchLayers(game, chunk)
        gen = backward_induction(batches, keep_policy=True, chunk_size=chunk)
        done = 0
        try:
            while True:
                try:
                    step = next(gen)
                except StopIteration as stop:
                    sol: LayeredSolution = stop.value
                    break
                k = batches.original(step.layer)[0]
                done += int(batches.layer(step.layer).size)
                yield JobProgress(done, game.n_index, f"layer {k} ({k} marks): {done:,} of {game.n_index:,} boards")
        finally:
            gen.close()
        sol = replace(sol, layers=game.n_layers)
        return ExactRiskSolution(geometry=geo, risk=game.risk, layered=sol, seconds=time.perf_counter() - t0)

    return run()


def solve_exact_cancellable(risk: np.ndarray, *, size: int = 4, progress: Callable[[int, int, str], None],
                            cancelled: Callable[[], bool]) -> ExactRiskSolution | None:
    """:func:`exact_solve_job` driven to the end headless: ``progress(done, total, text)`` after every
    batch of boards; None when ``cancelled()`` turned True (checked before every batch)."""
    gen = exact_solve_job(risk, size=size)
    try:
        while True:
            if cancelled():
                return None
            try:
                p = next(gen)
            except StopIteration as stop:
                return stop.value
            progress(p.done, p.total, p.text)
    finally:
        gen.close()


# ====================================================================== matchups, scenario codec, spec
MATCHUPS = ("optimal vs random", "random vs optimal", "optimal vs optimal", "random vs random",
            "optimal vs classic", "classic vs optimal")
"""The simulated matchups of the 3x3 board ("X player vs O player")."""


def risk_matchups(game: RiskGame, policy: np.ndarray | None, *, games: int,
                  seed: int) -> Generator[JobProgress, None, MatchupResult]:
    """The matchups of :data:`MATCHUPS` as a job generator (``games`` per matchup; ValueError at once
    for fewer than 2): simulated with :func:`play_match`, with exact probabilities beside them.
    ``policy`` is the optimal agent's (None: solved). Returns the MatchupResult."""
    pol = None if policy is None else np.array(policy, dtype=np.int64)
    games = int(games)
    if games < 2:
        raise ValueError(f"simulate at least 2 games, got {games}")
    names = list(MATCHUPS)

    def run() -> Generator[JobProgress, None, MatchupResult]:
        g = game
        opt = make_agent("policy", g, policy=pol, name="optimal") if pol is not None else make_agent("optimal", g)
        agents = {"optimal": opt, "random": make_agent("random", g), "classic": make_agent("classic", g)}
        streams = np.random.SeedSequence(int(seed)).spawn(len(names))
        rows = []
        for i, name in enumerate(names):
            xn, on = name.split(" vs ")
            rows.append(play_match(g, agents[xn], agents[on], games=games, seed=np.random.default_rng(streams[i])))
            yield JobProgress(i + 1, len(names), f"{name}: {games:,} games")
        return MatchupResult(tuple(rows), start="the empty board (X first)",
                             notes=("classic = the agent solved for risk 0, playing in these risks",))

    return run()


__all__ = ['ExactRiskPositionModel', 'ExactRiskSolution', 'MATCHUPS', 'RiskLayers', 'RiskPositionModel', 'RiskSettings', 'check_exact_size', 'exact_requirements', 'exact_solve_job', 'risk_matchups', 'solve_exact', 'solve_exact_cancellable', 'solve_exact_steps']
