"""Checkers (draughts) on a small board against a uniformly random opponent (seed 004).

The rules
---------
Played on the dark squares of an n x n board (a1, bottom left, is dark; n = 4..8). Black starts on
the first ``rows`` rows and moves first, up the board; White starts on the last ``rows`` rows and
moves down. Men move one square diagonally forward, kings one square diagonally either way (no
flying kings). A capture jumps an adjacent enemy piece onto the empty square beyond it.

* ``forced_capture`` (default on, English draughts): when a capture exists, the move must capture
  (any capture, not necessarily the longest). Off: captures are optional.
* ``multi_jump`` (default on): after a jump the same piece keeps jumping while it can; with forced
  capture on it must jump to the end of the chain, with it off it may stop after any jump.
  Captured pieces are removed at the end of the move: a piece is never jumped twice and its
  square cannot be landed on during the move (the moving piece's own start square can).
* A man that reaches the far row becomes a king; if that happens during a capture the move ends
  there (English draughts).
* A side with no piece or no legal move on its turn loses.
* ``ply_limit`` (optional, part of the state): once ``ply_limit`` plies (half-moves) have been
  played without a result, the game is a draw. A move that wins on the last ply still wins.

The MDP (seed 004)
------------------
A state is a position with the agent to move (plus the ply count when there is a ply limit). An
action is one of the agent's legal moves; its transitions are the opponent's legal replies, each
with probability 1/k (the opponent picks uniformly). Three absorbing states: win, draw, loss.

Rewards: entering a non-terminal state Z pays R(Z) = 1.5 (my men + 3.33 my kings - their men -
3.33 their kings) (reward units, the seed's formula, "men" meaning uncrowned pieces); entering
win / draw / loss pays +100 / 0 / -100. So the core's Bellman equation (Sutton and Barto eq. 4.10)

    V(s) = max_a (1/k) sum_Z [ R(Z) + gamma V(Z) ]

is the seed's V_seed(s) = R(s) + gamma max_a mean_Z V_seed(Z) written for the same greedy policy:
V_seed(s) = R(s) + gamma V(s) for every non-terminal s (see :meth:`CheckersMDP.seed_values`).

Enumeration
-----------
The rules live in compiled kernels (numba, :mod:`mdpviz.models._numba_checkers`): positions are
int64 bitboards of the dark squares (a guard column stops diagonal shifts from wrapping), so the
moves of all pieces in one direction are one shift and mask. Positions are enumerated once,
breadth-first from the start (each position's moves and replies computed once, whatever its
ply, positions found through a hash table of their bitboards); with a ply limit the (position,
ply) states are then laid out ply by ply, and the kernels write the core's CSR arrays in its
order. A state budget and a transition budget are checked while the enumeration runs, so a
variant too large for the machine is refused (:class:`VariantTooLarge`) before it runs away with
time or memory. The rules object :class:`Checkers` (the GUI's moves) calls the same kernels.

The default variant (``CheckersRules()``)
----------------------------------------
5x5 board, one row of men a side (3 men each), forced capture, multi-jump, ply limit 40; the
agent plays Black with the seed's discount 0.1.

* Ply limit 40 plies (20 moves each). Without a limit, games can cycle: with gamma 0.1 the agent
  may prefer 1.5 x material per move forever to a distant win (on 4x4, 15% of its games never
  end), and the exact win/draw/loss probabilities need games that end. 40 plies hardly touches
  real play: of 3,000 random-vs-random 5x5 games, 0.9% reached 40 plies (median 12, 99th
  percentile 39), while every 10 more plies multiplies the states (50 plies: over 2,000,000).
* Board: the largest board and rows that enumerate and solve in under 30 s and 4 GiB at 40 plies
  (``mdpviz bench checkers``): 5x5 with 1 row, 1,290,830 states, 7,823,060 transitions, 7.6 s to
  enumerate in pure Python when the limits were chosen (about 1.5 s with the kernels, plus about
  1 s to import numba and load them in a fresh process) and 0.8 s to solve, peak 1.1 GiB (2-core
  machine, shared). 5x5 with 2 rows, 6x6 and
  8x8 exceed the budget at 40 plies; they fit only with short limits (6x6 with 1 row at 20 plies,
  8x8 with 3 rows at 10 plies), where most games are cut off.

numpy, scipy and numba only; never imports Qt.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Sequence

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    import scipy.sparse as sp

from mdpviz.models.mdp import TabularMDP, check_state_budget
from mdpviz.models.simulate import policy_matrix, proportion_ci, simulate, uniform_policy_matrix
from mdpviz.solvers.policy_iteration import row_weights_deterministic
from mdpviz.solvers.sweep import policy_to_rows

BLACK = "black"
"""The side that starts on the first rows and moves first, up the board."""
WHITE = "white"
"""The side that starts on the last rows and moves second, down the board."""
COLOURS = (BLACK, WHITE)
"""Both colours, the first to move first."""

MIN_SIZE, MAX_SIZE = 4, 8
"""Board sides supported (the bitboards of an 8 x 8 board fit easily in a Python int)."""

MAN_WEIGHT = 1.5
"""Reward per man of material difference (seed 004)."""
KING_FACTOR = 3.33
"""A king counts as this many men in the material reward (seed 004)."""
WIN_REWARD, DRAW_REWARD, LOSS_REWARD = 100.0, 0.0, -100.0
"""Reward for entering the win, draw and loss states (seed 004)."""

DEFAULT_DISCOUNT = 0.1
"""The seed's discount: the agent looks little further than the next capture."""
DEFAULT_TOL = 1e-4
"""The seed's stopping rule: value iteration stops when no value changes by this much."""

DEFAULT_MAX_STATES = 2_000_000
"""State budget: positions the enumeration may expand, and states of the compiled MDP. Sized
(with :data:`DEFAULT_MAX_TRANSITIONS`) so that an accepted variant enumerates and solves in under
30 s and 4 GiB on the 2-core development machine (see ``mdpviz bench checkers``)."""
DEFAULT_MAX_TRANSITIONS = 12_000_000
"""Transition budget: opponent replies the enumeration may examine (about 0.5 us each in the kernels)
and transitions of the compiled MDP (about 0.5 us and 140 bytes each to build and solve)."""

_BUDGET_REASON = (
    ", the budget within which a variant enumerates and solves in under 30 s and 4 GiB on a 2-core "
    "machine; choose a smaller board, fewer rows or a lower ply limit"
)

_WIN, _LOSS, _DRAW = -2, -1, -4  # where a game starts when it is decided at once (as in _numba_checkers)


class VariantTooLarge(ValueError):
    """A variant is refused because it would exceed the state or transition budget."""


# ---------------------------------------------------------------------------------- rules
@dataclass(frozen=True)
class CheckersRules:
    """One variant of the game; every option is a visible parameter."""

    size: int = 5
    """Board side n: the game is played on the dark squares of an n x n board (4..8)."""
    rows: int = 1
    """Rows of men each side starts with, 1 .. (size - 1) // 2 (at least one empty row between)."""
    forced_capture: bool = True
    """A capture must be played when one exists (English draughts)."""
    multi_jump: bool = True
    """A capturing piece continues jumping while it can (a chain is one move)."""
    ply_limit: int | None = 40
    """Draw once this many plies (half-moves) have been played; None: no limit (games may cycle)."""

    def __post_init__(self) -> None:
        for name in ("size", "rows"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise ValueError(f"checkers {name} must be an integer, got {v!r}")
        if not MIN_SIZE <= self.size <= MAX_SIZE:
            raise ValueError(f"checkers board size must be {MIN_SIZE}..{MAX_SIZE}, got {self.size}")
        hi = (self.size - 1) // 2
        if not 1 <= self.rows <= hi:
            raise ValueError(
                f"checkers rows of men on a {self.size}x{self.size} board must be 1..{hi} "
                f"(at least one empty row between the sides), got {self.rows}"
            )
        if self.ply_limit is not None:
            if isinstance(self.ply_limit, bool) or not isinstance(self.ply_limit, (int, np.integer)):
                raise ValueError(f"checkers ply_limit must be an integer or None, got {self.ply_limit!r}")
            if self.ply_limit < 1:
                raise ValueError(f"checkers ply_limit must be at least 1 (or None for no limit), got {self.ply_limit}")

    def describe(self) -> str:
        """A one-line name of the variant, e.g. ``5x5, 1 row, forced capture, multi-jump, 40 plies``."""
        parts = [
            f"{self.size}x{self.size}",
            f"{self.rows} row{'s' if self.rows > 1 else ''}",
            "forced capture" if self.forced_capture else "optional capture",
            "multi-jump" if self.multi_jump else "single jumps",
            f"{self.ply_limit} plies" if self.ply_limit is not None else "no ply limit",
        ]
        return ", ".join(parts)


@dataclass(frozen=True)
class Position:
    """A position on the real board (bit ``r*(size+1) + c`` is square (row r, column c))."""

    black: int
    """Bitboard of Black's pieces (men and kings)."""
    white: int
    """Bitboard of White's pieces."""
    kings: int
    """Bitboard of the crowned pieces of both sides."""
    to_move: str = BLACK
    """"black" or "white": the side to play."""
    ply: int = 0
    """Plies (half-moves) played so far."""


@dataclass(frozen=True)
class Move:
    """One legal move: a step, or a jump or chain of jumps, of one piece."""

    path: tuple[str, ...]
    """Squares visited, from the start square to the landing square, e.g. ("a1", "c3", "e5")."""
    captures: tuple[str, ...]
    """Squares of the pieces captured (empty for a step)."""
    promotes: bool
    """True when a man becomes a king on this move."""

    @property
    def label(self) -> str:
        """Human-readable notation: "b2-c3" for a step, "a1xc3xe5" for a capture chain."""
        return ("x" if self.captures else "-").join(self.path)

    @property
    def start(self) -> str:
        """Square the moving piece starts on."""
        return self.path[0]


class _Engine:
    """Move generation for one board size and rule set: the compiled kernels of
    :mod:`mdpviz.models._numba_checkers` (the only place the rules live) on this board's geometry.

    Two bit layouts: :class:`Position` uses bit ``r*W + c`` with ``W = n + 1`` (its public
    layout); the kernels use the compact layout of ``_numba_checkers`` (dark squares only, at most
    36 bits, so a bitboard is one int64). Both order the squares row by row, so "lowest bit first"
    is the same square in both. Positions are given as (mover's pieces, opponent's pieces, kings)
    plus the mover's direction (+1 up, -1 down).
    """

    def __init__(self, size: int, forced_capture: bool, multi_jump: bool) -> None:
        n = size
        W = n + 1
        self.size, self.W = n, W
        self.forced, self.multi = bool(forced_capture), bool(multi_jump)
        self.squares = [(r, c) for r in range(n) for c in range(n) if (r + c) % 2 == 0]
        self.bits = [r * W + c for r, c in self.squares]
        self.valid = sum(1 << b for b in self.bits)
        self.bits_len = (n - 1) * W + n  # highest bit + 1
        self.names = {r * W + c: f"{chr(ord('a') + c)}{r + 1}" for r, c in self.squares}
        self.bit_of = {v: k for k, v in self.names.items()}
        Wc = n + 1 if (n + 1) % 2 else n + 2  # compact layout: odd row width, two squares per bit pair
        self.cbits = [(r * Wc + c) // 2 for r, c in self.squares]
        self.A, self.B = (Wc - 1) // 2, (Wc + 1) // 2
        self._old_of = dict(zip(self.cbits, self.bits))
        cmask = lambda rows: sum(1 << cb for (r, _), cb in zip(self.squares, self.cbits) if r in rows)  # noqa: E731
        self.geo = np.array([self.A, self.B, cmask(range(n)), cmask((n - 1,)), cmask((0,)), self.forced, self.multi],
                            dtype=np.int64)
        self.geo.flags.writeable = False

    def start_rows(self, rows: int) -> tuple[int, int]:
        """Bitboards of Black's and White's men at the start."""
        n, W = self.size, self.W
        black = sum(1 << (r * W + c) for r, c in self.squares if r < rows)
        white = sum(1 << (r * W + c) for r, c in self.squares if r >= n - rows)
        return black, white

    def compact(self, x: int) -> int:
        """A bitboard of the :class:`Position` layout in the kernels' compact layout."""
        return sum(1 << cb for b, cb in zip(self.bits, self.cbits) if x >> b & 1)

    def board_bits(self, x: int) -> int:
        """A compact bitboard in the :class:`Position` layout."""
        return sum(1 << b for b, cb in zip(self.bits, self.cbits) if x >> cb & 1)

    def path(self, code: int) -> tuple[int, ...]:
        """The squares (bits of the :class:`Position` layout) a move's path code visits."""
        cur = code & 63
        jumps = (code >> 6) & 31
        dirs = code >> 11
        path = [self._old_of[cur]]
        for j in range(max(jumps, 1)):
            d = (dirs >> (2 * j)) & 3
            step = (self.A if d % 2 == 0 else self.B) * (2 if jumps else 1)
            cur = cur + step if d < 2 else cur - step
            path.append(self._old_of[cur])
        return tuple(path)

    def has_move_c(self, me: int, them: int, kings: int, fwd: int) -> bool:
        """True if the mover has a legal move (compact bitboards)."""
        return bool(_kernels().has_move(me, them, kings, fwd > 0, self.geo))

    def moves_c(self, me: int, them: int, kings: int, fwd: int) -> list[tuple[int, int, int, int]]:
        """Legal moves of the mover as (path code, new me, new them, new kings), compact bitboards,
        in the fixed order of the rules."""
        k = _kernels()
        cap = 256
        while True:
            o_me, o_them, o_kings, o_code, stack = k.moves_buffers(cap)
            n = k.gen_moves(me, them, kings, fwd > 0, self.geo, o_me, o_them, o_kings, o_code, stack)
            if n >= 0:
                return list(zip(o_code[:n].tolist(), o_me[:n].tolist(), o_them[:n].tolist(), o_kings[:n].tolist()))
            cap *= 4

    def has_move(self, me: int, them: int, kings: int, fwd: int) -> bool:
        """True if the mover (moving in direction ``fwd``: +1 up, -1 down) has a legal move."""
        return self.has_move_c(self.compact(me), self.compact(them), self.compact(kings), fwd)

    def moves(self, me: int, them: int, kings: int, fwd: int) -> list[tuple[tuple[int, ...], int, int, int]]:
        """Legal moves of the mover as (path of bits, new me, new them, new kings), in a fixed order."""
        bb = self.board_bits
        return [(self.path(c), bb(m), bb(t), bb(k))
                for c, m, t, k in self.moves_c(self.compact(me), self.compact(them), self.compact(kings), fwd)]


def _kernels():
    """The compiled kernels (:mod:`mdpviz.models._numba_checkers`), imported on first use with
    numba's cache directory set up as the solvers' kernels set it up."""
    from mdpviz.solvers import kernels

    kernels._ensure_cache_dir()
    from mdpviz.models import _numba_checkers

    return _numba_checkers


@lru_cache(maxsize=32)
def _engine(size: int, forced_capture: bool, multi_jump: bool) -> _Engine:
    return _Engine(size, forced_capture, multi_jump)


def _fwd(colour: str) -> int:
    return +1 if colour == BLACK else -1


def _other(colour: str) -> str:
    return WHITE if colour == BLACK else BLACK


def _check_colour(colour: str, what: str = "colour") -> str:
    if colour not in COLOURS:
        raise ValueError(f"checkers {what} must be 'black' or 'white', got {colour!r}")
    return colour


class Checkers:
    """The rules of one variant on real positions: what the GUI, the compiler and the tests use."""

    def __init__(self, rules: CheckersRules | None = None) -> None:
        self.rules = rules if rules is not None else CheckersRules()
        self._e = _engine(self.rules.size, self.rules.forced_capture, self.rules.multi_jump)

    # ------------------------------------------------------------------ squares
    @property
    def squares(self) -> tuple[str, ...]:
        """Names of the dark squares, a1 first, row by row."""
        return tuple(self._e.names[b] for b in self._e.bits)

    def square_bit(self, name: str) -> int:
        """Bit index of a dark square given by name (e.g. "b2"); ValueError for other names."""
        try:
            return self._e.bit_of[name]
        except KeyError:
            raise ValueError(
                f"{name!r} is not a dark square of the {self.rules.size}x{self.rules.size} board "
                f"(dark squares: {', '.join(self.squares)})"
            ) from None

    def _mask(self, names: Sequence[str]) -> int:
        m = 0
        for name in names:
            b = 1 << self.square_bit(name)
            if m & b:
                raise ValueError(f"square {name} is listed twice")
            m |= b
        return m

    # ------------------------------------------------------------------ positions
    def initial_position(self) -> Position:
        """The starting position: ``rules.rows`` rows of men each, Black to move, ply 0."""
        black, white = self._e.start_rows(self.rules.rows)
        return Position(black, white, 0, BLACK, 0)

    def position(
        self,
        *,
        black_men: Sequence[str] = (),
        black_kings: Sequence[str] = (),
        white_men: Sequence[str] = (),
        white_kings: Sequence[str] = (),
        to_move: str = BLACK,
        ply: int = 0,
    ) -> Position:
        """A hand-made position from square names (for tests, puzzles and the GUI's editor)."""
        _check_colour(to_move, "side to move")
        masks = [self._mask(x) for x in (black_men, black_kings, white_men, white_kings)]
        total = 0
        for m in masks:
            if total & m:
                raise ValueError("a square holds two pieces")
            total |= m
        if int(ply) < 0:
            raise ValueError(f"ply must be >= 0, got {ply}")
        return Position(masks[0] | masks[1], masks[2] | masks[3], masks[1] | masks[3], to_move, int(ply))

    def validate(self, pos: Position) -> Position:
        """Return ``pos`` if it is a position of this board; ValueError saying what is wrong otherwise."""
        _check_colour(pos.to_move, "side to move")
        valid = self._e.valid
        for name in ("black", "white", "kings"):
            v = getattr(pos, name)
            if not isinstance(v, (int, np.integer)) or v < 0 or v & ~valid:
                raise ValueError(f"position: {name} must be a bitboard of dark squares of the "
                                 f"{self.rules.size}x{self.rules.size} board, got {v!r}")
        if pos.black & pos.white:
            raise ValueError("position: a square holds a black and a white piece")
        if pos.kings & ~(pos.black | pos.white):
            raise ValueError("position: a king is marked on an empty square")
        if int(pos.ply) < 0:
            raise ValueError(f"position: ply must be >= 0, got {pos.ply}")
        return pos

    def _split(self, pos: Position) -> tuple[int, int, int, int]:
        fwd = _fwd(pos.to_move)
        me, them = (pos.black, pos.white) if pos.to_move == BLACK else (pos.white, pos.black)
        return me, them, pos.kings, fwd

    def _move_of(self, path: tuple[int, ...], them: int, new_them: int, kings: int, new_kings: int) -> Move:
        names = self._e.names
        caps = them & ~new_them
        cap_names = tuple(names[b] for b in self._e.bits if caps >> b & 1)
        crowned = bool(new_kings >> path[-1] & 1) and not (kings >> path[0] & 1)
        return Move(tuple(names[b] for b in path), cap_names, crowned)

    def legal_moves(self, pos: Position) -> list[Move]:
        """The legal moves of the side to move (empty if the game is over)."""
        if self.result(pos) is not None:
            return []
        me, them, kings, fwd = self._split(pos)
        return [self._move_of(p, them, nt, kings, nk) for p, _, nt, nk in self._e.moves(me, them, kings, fwd)]

    def play(self, pos: Position, move: Move | str) -> Position:
        """The position after ``move`` (a :class:`Move` or its label); ValueError if it is not legal."""
        label = move.label if isinstance(move, Move) else str(move)
        if self.result(pos) is not None:
            raise ValueError(f"the game is over ({self.result(pos)}); no move can be played")
        me, them, kings, fwd = self._split(pos)
        names = self._e.names
        for path, nm, nt, nk in self._e.moves(me, them, kings, fwd):
            sep = "x" if them & ~nt else "-"
            if sep.join(names[b] for b in path) == label:
                if pos.to_move == BLACK:
                    return Position(nm, nt, nk, WHITE, pos.ply + 1)
                return Position(nt, nm, nk, BLACK, pos.ply + 1)
        legal = ", ".join(m.label for m in self.legal_moves(pos))
        raise ValueError(f"{label!r} is not a legal move for {pos.to_move} here (legal: {legal or 'none'})")

    def result(self, pos: Position) -> str | None:
        """"black" or "white" (the winner), "draw" (ply limit reached) or None (game on).

        The side to move loses when it has no piece or no legal move; otherwise, reaching the ply
        limit is a draw.
        """
        me, them, kings, fwd = self._split(pos)
        if not self._e.has_move(me, them, kings, fwd):
            return _other(pos.to_move)
        if self.rules.ply_limit is not None and pos.ply >= self.rules.ply_limit:
            return "draw"
        return None

    def board(self, pos: Position) -> np.ndarray:
        """int8 (size, size) board, row 0 = rank 1: +1 black man, +2 black king, -1 white man,
        -2 white king, 0 empty (light squares are always 0)."""
        n, W = self.rules.size, self._e.W
        out = np.zeros((n, n), dtype=np.int8)
        for b in self._e.bits:
            r, c = divmod(b, W)
            k = 2 if pos.kings >> b & 1 else 1
            if pos.black >> b & 1:
                out[r, c] = k
            elif pos.white >> b & 1:
                out[r, c] = -k
        return out

    def material(self, pos: Position, colour: str) -> float:
        """Seed 004's reward of a non-terminal position for ``colour``:
        1.5 (my men + 3.33 my kings - their men - 3.33 their kings), in reward units."""
        me, them = (pos.black, pos.white) if _check_colour(colour) == BLACK else (pos.white, pos.black)
        return _material(me, them, pos.kings)

    def render(self, pos: Position) -> str:
        """Text diagram, rank n at the top: b/B black man/king, w/W white, . empty dark, space light."""
        sym = {0: ".", 1: "b", 2: "B", -1: "w", -2: "W"}
        n = self.rules.size
        b = self.board(pos)
        lines = []
        for r in range(n - 1, -1, -1):
            cells = [sym[int(b[r, c])] if (r + c) % 2 == 0 else " " for c in range(n)]
            lines.append(f"{r + 1} " + " ".join(cells))
        lines.append("  " + " ".join(chr(ord("a") + c) for c in range(n)))
        return "\n".join(lines)


def _material(me: int, them: int, kings: int) -> float:
    mk, tk = (me & kings).bit_count(), (them & kings).bit_count()
    return MAN_WEIGHT * ((me.bit_count() - mk) + KING_FACTOR * mk - (them.bit_count() - tk) - KING_FACTOR * tk)


# ---------------------------------------------------------------------------------- the compiled MDP
@dataclass(frozen=True, eq=False)
class CheckersMDP:
    """A variant compiled to a :class:`TabularMDP`, with what the GUI and the CLI need to show it."""

    rules: CheckersRules
    """The variant."""
    agent: str
    """The agent's colour; the opponent (the other colour) plays uniformly at random."""
    mdp: TabularMDP
    """States = positions with the agent to move (by ply when there is a ply limit) + win, draw, loss."""
    state_position: np.ndarray
    """int64 (n_states): position id of each state (-1 for the three terminal states)."""
    state_ply: np.ndarray
    """int64 (n_states): plies played in each state (-1 for terminal states, and for every state
    when there is no ply limit, where the ply is not part of the state)."""
    start_states: np.ndarray
    """int64: the states a game starts in (one if the agent moves first; after each opening reply otherwise)."""
    start_probs: np.ndarray
    """float64: probability of each start state (sums to 1)."""
    win: int
    """Index of the absorbing win state (reward +100 on entry)."""
    draw: int
    """Index of the absorbing draw state (ply limit reached, reward 0)."""
    loss: int
    """Index of the absorbing loss state (reward -100 on entry)."""
    n_positions: int
    """Distinct positions (ply ignored) that the enumeration expanded."""
    seconds: float
    """Wall-clock seconds to enumerate and compile."""
    _keys: np.ndarray = field(repr=False)
    """int64 (positions, 3): (agent's pieces, opponent's pieces, kings) per position id, bitboards in
    the compact layout of :mod:`mdpviz.models._numba_checkers`."""
    _position_material: np.ndarray = field(repr=False)
    """float64 per position id: R, the material reward of the position for the agent."""

    @property
    def n_states(self) -> int:
        """Number of MDP states, terminal ones included."""
        return self.mdp.n_states

    @cached_property
    def game(self) -> Checkers:
        """The rules object of this variant."""
        return Checkers(self.rules)

    @cached_property
    def _position_table(self) -> np.ndarray:
        """Hash table of the position keys (ids into ``_keys``), built by the kernels."""
        k = self._keys
        return _kernels().build_table(k[:, 0].copy(), k[:, 1].copy(), k[:, 2].copy(), k.shape[0])

    @cached_property
    def _layers(self) -> tuple[np.ndarray, np.ndarray]:
        """(plies, first state of each) of the live states, which come ply by ply, by position id
        within a ply (one layer of ply -1 without a ply limit)."""
        live = self.state_ply[self.state_position >= 0]
        plies, first = np.unique(live, return_index=True)
        return plies, np.append(first, live.size)

    def _state_index(self, key: tuple[int, int, int], ply: int) -> int | None:
        """The state of a compact position key at a ply (-1: no ply limit), or None."""
        k = self._keys
        p = int(_kernels().lookup(self._position_table, k[:, 0], k[:, 1], k[:, 2], *key))
        plies, first = self._layers
        j = int(np.searchsorted(plies, ply))
        if p < 0 or j >= plies.size or plies[j] != ply:
            return None
        lo, hi = int(first[j]), int(first[j + 1])
        s = lo + int(np.searchsorted(self.state_position[lo:hi], p))
        return s if s < hi and self.state_position[s] == p else None

    def _check_state(self, state: int) -> int:
        s = int(state)
        if not 0 <= s < self.n_states:
            raise ValueError(f"state {state} is out of range 0..{self.n_states - 1}")
        return s

    def position(self, state: int) -> Position | None:
        """The position of a state (agent to move), or None for the win/draw/loss states."""
        s = self._check_state(state)
        p = int(self.state_position[s])
        if p < 0:
            return None
        e = _engine(self.rules.size, self.rules.forced_capture, self.rules.multi_jump)
        me, them, kings = (e.board_bits(int(x)) for x in self._keys[p])
        black, white = (me, them) if self.agent == BLACK else (them, me)
        ply = int(self.state_ply[s])
        if ply < 0:  # no ply limit: the ply is not part of the state; report the parity only
            ply = 0 if self.agent == BLACK else 1
        return Position(black, white, kings, self.agent, ply)

    def state_of(self, position: Position) -> int:
        """The state of a position with the agent to move; ValueError if it is not reachable."""
        if position.to_move != self.agent:
            raise ValueError(f"states are positions with the agent ({self.agent}) to move")
        e = _engine(self.rules.size, self.rules.forced_capture, self.rules.multi_jump)
        me, them = (position.black, position.white) if self.agent == BLACK else (position.white, position.black)
        key = (e.compact(me), e.compact(them), e.compact(position.kings))
        ply = position.ply if self.rules.ply_limit is not None else -1
        s = self._state_index(key, int(ply))
        if s is None:
            raise ValueError("this position is not reachable in the compiled variant")
        return s

    def board(self, state: int) -> np.ndarray:
        """The board of a state as :meth:`Checkers.board` draws it (all zeros for terminal states)."""
        pos = self.position(state)
        if pos is None:
            return np.zeros((self.rules.size, self.rules.size), dtype=np.int8)
        return self.game.board(pos)

    @cached_property
    def _action_of_label(self) -> dict[str, int]:
        return {lab: a for a, lab in enumerate(self.mdp.action_labels or ())}

    def action_label(self, action: int) -> str:
        """The move notation of an action id, e.g. "b2-c3" or "a1xc3xe5"."""
        labels = self.mdp.action_labels or ()
        if not 0 <= int(action) < len(labels):
            raise ValueError(f"action {action} is out of range 0..{len(labels) - 1}")
        return labels[int(action)]

    def moves(self, state: int, *, square: str | None = None) -> list[tuple[int, Move]]:
        """The agent's legal moves in ``state`` as (action id, :class:`Move`), in action order;
        with ``square``, only the moves of the piece standing there (the piece the user clicked)."""
        pos = self.position(state)
        if square is not None:
            self.game.square_bit(square)  # validates the name
        if pos is None:
            return []
        out = [(self._action_of_label[m.label], m) for m in self.game.legal_moves(pos)
               if square is None or m.start == square]
        return sorted(out, key=lambda am: am[0])

    def move_values(self, state: int, values: np.ndarray) -> list[tuple[int, str, float]]:
        """(action id, label, Q) for each legal move of ``state``: Q(s, a) = sum_Z p(Z) (R(Z) + gamma V(Z)),
        the expected reward of the move and the opponent's random reply plus the discounted value after."""
        s = self._check_state(state)
        if self.mdp.terminal[s]:
            return []
        v = np.asarray(values, dtype=np.float64)
        if v.shape != (self.n_states,):
            raise ValueError(f"values must have {self.n_states} entries, got shape {v.shape}")
        lo, hi = int(self.mdp.state_ptr[s]), int(self.mdp.state_ptr[s + 1])
        out = []
        for r in range(lo, hi):
            t0, t1 = int(self.mdp.row_ptr[r]), int(self.mdp.row_ptr[r + 1])
            q = float(np.sum(self.mdp.prob[t0:t1] * (self.mdp.reward[t0:t1] + self.mdp.discount * v[self.mdp.dst[t0:t1]])))
            a = int(self.mdp.row_action[r])
            out.append((a, self.action_label(a), q))
        return out

    def seed_values(self, values: np.ndarray) -> np.ndarray:
        """The seed's V_seed(s) = R(s) + gamma V(s) (its values include the reward of being in s);
        terminal states get their entry reward (+100, 0, -100)."""
        v = np.asarray(values, dtype=np.float64)
        r = np.zeros(self.n_states)
        live = self.state_position >= 0
        r[live] = self.material[live]
        out = r + self.mdp.discount * v
        out[self.win], out[self.draw], out[self.loss] = WIN_REWARD, DRAW_REWARD, LOSS_REWARD
        return out

    @cached_property
    def material(self) -> np.ndarray:
        """float64 (n_states): R(s), the material reward of each state for the agent (0 for terminal)."""
        live = self.state_position >= 0
        out = np.zeros(self.n_states)
        out[live] = self._position_material[self.state_position[live]]
        return out

    def random_policy(self) -> np.ndarray:
        """(n_states x n_actions) probabilities of playing uniformly among the legal moves."""
        return uniform_policy_matrix(self.mdp)

    def _weights(self, policy: np.ndarray | None) -> sp.csr_matrix:
        """Row weights W (n_states x n_rows) of a deterministic policy, or of uniform play if None."""
        if policy is not None:
            return row_weights_deterministic(self.mdp, policy_to_rows(self.mdp, policy))
        import scipy.sparse as sp  # on first use: importing scipy costs the window's start ~0.5 s

        m = self.mdp
        w = np.where(m.terminal[m.row_state], 0.0, 1.0 / np.maximum(m.actions_per_state[m.row_state], 1))
        return sp.csr_matrix((w, m.row_state, np.arange(m.n_rows + 1)), shape=(m.n_rows, m.n_states)).T.tocsr()

    def outcome_probabilities(self, policy: np.ndarray | None, *, tol: float = 1e-13,
                              max_iterations: int = 100_000) -> dict[str, float]:
        """Exact probabilities of win, draw and loss from the start when the agent plays ``policy``
        (action id per state; None: uniformly random moves) against the random opponent.

        Absorption probabilities of the policy's Markov chain P_pi (no sampling): H_{k+1} = P_pi H_k
        with the three terminal states held at the identity. With a ply limit every transition goes
        one layer down or into a terminal state, so the iteration is exact (it stops when nothing
        changes, after at most ply_limit / 2 + 1 steps). Without one, games can cycle: it stops when
        no probability changes by ``tol``, and the probability of a game never ending is counted
        as a draw (as the simulation's step cap does). Returns {"win", "draw", "loss"} plus
        "never_ends" (0 with a ply limit) and "iterations".
        """
        m = self.mdp
        P = (self._weights(policy) @ m.matrix).tocsr()
        term = np.array([self.win, self.draw, self.loss])
        eye = np.eye(3)
        H = np.zeros((m.n_states, 3))
        H[term] = eye
        exact = self.rules.ply_limit is not None
        for it in range(1, int(max_iterations) + 1):
            Hn = P @ H
            Hn[term] = eye
            change = float(np.abs(Hn - H).max())
            H = Hn
            if change == 0.0 or (not exact and change < tol):
                break
        else:
            raise ValueError(f"outcome probabilities did not settle in {max_iterations} iterations")
        p = self.start_probs @ H[self.start_states]
        never = 0.0 if exact else max(0.0, 1.0 - float(p.sum()))
        return {"win": float(p[0]), "draw": float(p[1]) + never, "loss": float(p[2]), "never_ends": never,
                "iterations": it}

    def play_games(
        self,
        policy: np.ndarray | None,
        *,
        games: int = 10_000,
        seed: int | np.random.Generator | None = None,
        max_steps: int = 10_000,
    ) -> "GameResults":
        """Simulate ``games`` games of the agent playing ``policy`` (action id per state; None:
        uniformly random moves) against the random opponent.

        Uses the core's vectorised Monte Carlo over the compiled MDP, so the rules live in one
        place (the compiler); start states are drawn from the opening distribution. A game still
        running after ``max_steps`` agent moves (possible only without a ply limit) counts as a draw.
        """
        from mdpviz.models.chunked import check_games, run_chunks

        games = check_games(games, "the number of games")
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        probs = self.random_policy() if policy is None else policy_matrix(self.mdp, policy)
        tally = np.zeros(4, dtype=np.int64)  # wins, losses, unfinished, total moves

        def step(n: int) -> None:  # chunks of games: memory does not grow with ``games``
            starts = self.start_states[rng.choice(self.start_states.size, size=n, p=self.start_probs)]
            ep = simulate(self.mdp, probs, start=starts, episodes=n, seed=rng, max_steps=max_steps)
            tally[:] += (np.count_nonzero(ep.final_state == self.win), np.count_nonzero(ep.final_state == self.loss),
                         np.count_nonzero(~ep.finished), int(ep.steps.sum()))

        run_chunks(games, step)
        win, loss, unfinished = int(tally[0]), int(tally[1]), int(tally[2])
        return GameResults(games=games, win=win, draw=games - win - loss, loss=loss, unfinished=unfinished,
                           mean_moves=float(tally[3]) / games)


@dataclass(frozen=True)
class GameResults:
    """Wins, draws and losses of simulated games, from the agent's side."""

    games: int
    """Number of games played."""
    win: int
    """Games the agent won."""
    draw: int
    """Games drawn (ply limit, or still running after the step cap)."""
    loss: int
    """Games the agent lost."""
    unfinished: int
    """Of the draws, games stopped by the simulator's step cap (only without a ply limit)."""
    mean_moves: float
    """Mean number of agent moves per game."""

    def rates(self) -> dict[str, dict[str, float]]:
        """{"win"|"draw"|"loss": {"rate", "ci_low", "ci_high"}} with Wilson 95% intervals."""
        out = {}
        for k in ("win", "draw", "loss"):
            c = getattr(self, k)
            lo, hi = proportion_ci(c, self.games)  # clipped: at 0 or n rounding can step outside [0, 1]
            out[k] = {"rate": c / self.games, "ci_low": min(max(float(lo), 0.0), c / self.games),
                      "ci_high": max(min(float(hi), 1.0), c / self.games)}
        return out


def compile_checkers(
    rules: CheckersRules | None = None,
    *,
    agent: str = BLACK,
    discount: float = DEFAULT_DISCOUNT,
    max_states: int = DEFAULT_MAX_STATES,
    max_transitions: int = DEFAULT_MAX_TRANSITIONS,
    start: Position | None = None,
) -> CheckersMDP:
    """Enumerate the reachable states of a variant and compile them into a :class:`CheckersMDP`.

    A state is a position with ``agent`` to move (and its ply, with a ply limit); an action is a
    legal move (action ids are the variant's moves sorted by path, labels like "b2-c3" or
    "a1xc3xe5"); its transitions are the opponent's replies, probability 1/k each. ``discount`` is
    gamma (per agent move). ``start`` replaces the initial position (a puzzle, a test position);
    when the opponent is to move there, the game starts after each of its replies with equal
    probability. Raises :class:`VariantTooLarge` (a ValueError) when the enumeration passes
    ``max_states`` positions (or states) or ``max_transitions`` transitions.
    """
    rules = rules if rules is not None else CheckersRules()
    _check_colour(agent, "agent colour")
    if int(max_states) < 1 or int(max_transitions) < 1:
        raise ValueError("the state and transition budgets must be at least 1")
    t0 = time.perf_counter()
    e = _engine(rules.size, rules.forced_capture, rules.multi_jump)
    L = rules.ply_limit
    fwd = _fwd(agent)
    variant = rules.describe()

    game = Checkers(rules)
    start = game.initial_position() if start is None else game.validate(start)
    start_codes, start_ply = _start_codes(e, start, agent=agent, ply_limit=L)
    live = list(dict.fromkeys(k for k in start_codes if isinstance(k, tuple)))  # first appearance: ids 0, 1, ...
    start_pos = {k: i for i, k in enumerate(live)}
    k = _kernels()
    sk = np.array(live, dtype=np.int64).reshape(-1, 3)
    move_cap = 256  # moves of one position; more (long branching chains) and the kernel asks again
    while True:
        (status, info, k0, k1, k2, n_keys, pos_ptr, n_pos, row_move, row_ptr, n_rows, out, n_out, mcodes,
         n_moves) = k.enumerate_positions(
            np.ascontiguousarray(sk[:, 0]), np.ascontiguousarray(sk[:, 1]), np.ascontiguousarray(sk[:, 2]),
            start_ply, fwd > 0, -1 if L is None else int(L), e.geo, int(max_states), int(max_transitions), move_cap)
        if status != k.MOVE_BUFFER:
            break
        move_cap *= 8
    if status == k.TOO_MANY_POSITIONS:
        raise VariantTooLarge(f"checkers variant ({variant}) refused: more than {max_states:,} "
                              f"positions within {info} plies{_BUDGET_REASON}")
    if status == k.TOO_MANY_TRANSITIONS:
        raise VariantTooLarge(f"checkers variant ({variant}) refused: more than {max_transitions:,} transitions "
                              f"after {info:,} positions{_BUDGET_REASON}")
    keys = np.stack([k0[:n_keys], k1[:n_keys], k2[:n_keys]], axis=1)
    pos_ptr, row_move, row_ptr, out = pos_ptr[: n_pos + 1], row_move[:n_rows], row_ptr[: n_rows + 1], out[:n_out]
    del k0, k1, k2
    material = k.material(keys[:, 0], keys[:, 1], keys[:, 2], MAN_WEIGHT, KING_FACTOR)

    # Action ids: the variant's moves sorted by path (square order), so that ids do not depend on
    # the order the enumeration met them in.
    paths = [e.path(c) for c in mcodes[:n_moves].tolist()]
    order = sorted(range(n_moves), key=lambda i: paths[i])
    remap = np.empty(n_moves, dtype=np.int64)
    remap[order] = np.arange(n_moves)
    labels = tuple(_label(e, paths[i]) for i in order) or ("none",)
    perm = k.sorted_rows(pos_ptr, row_move, remap)  # each state's rows in action order, as the core keeps them

    if L is None:
        # No ply limit: a state is a position; the graph may have cycles (discount < 1 needed).
        n_live = n_pos
        win, draw, loss = n_live, n_live + 1, n_live + 2
        state_position = np.arange(n_live, dtype=np.int64)
        state_ply = np.full(n_live, -1, dtype=np.int64)
        state_ptr, row_action, t_ptr, dst, prob, reward = k.fill_unlimited(
            n_pos, pos_ptr, perm, row_move, remap, row_ptr, out, material, WIN_REWARD, LOSS_REWARD)
        start_list = [start_pos[c] if isinstance(c, tuple) else {_WIN: win, _LOSS: loss, _DRAW: draw}[c]
                      for c in start_codes]
    else:
        # Lay the (position, ply) states out ply by ply: layer j holds the positions reached at
        # ply start_ply + 2j, sorted by position id.
        status, info, state_position, layer_ptr, n_trans = k.layers(
            n_keys, np.arange(len(live), dtype=np.int64), start_ply, int(L), pos_ptr, row_ptr, out,
            int(max_states), int(max_transitions))
        if status in (k.TOO_MANY_STATES, k.TOO_MANY_STATE_TRANSITIONS):
            raise VariantTooLarge(
                f"checkers variant ({variant}) refused: more than "
                + (f"{max_states:,} states" if status == k.TOO_MANY_STATES else f"{max_transitions:,} transitions")
                + f" by ply {info}{_BUDGET_REASON}"
            )
        n_live = state_position.size
        win, draw, loss = n_live, n_live + 1, n_live + 2
        status, state_ptr, row_action, t_ptr, dst, prob, reward = k.fill_layers(
            state_position, layer_ptr, start_ply, int(L), pos_ptr, perm, row_move, remap, row_ptr, out, material,
            n_trans, WIN_REWARD, DRAW_REWARD, LOSS_REWARD)
        if status != k.OK:  # cannot happen: outcomes beyond the limit are only recorded near it
            raise RuntimeError("checkers compiler: a position beyond the ply limit inside the horizon")
        state_ply = np.repeat(start_ply + 2 * np.arange(layer_ptr.size - 1), np.diff(layer_ptr))
        start_list = [start_pos[c] if isinstance(c, tuple) else {_WIN: win, _LOSS: loss, _DRAW: draw}[c]
                      for c in start_codes]  # layer 0 holds the start positions, ids 0, 1, ... in order
    del perm, out, row_ptr

    state_position = np.concatenate([state_position, [-1, -1, -1]]).astype(np.int64)
    state_ply = np.concatenate([state_ply, [-1, -1, -1]]).astype(np.int64)
    mdp = _tabular(n_live + 3, labels, state_ptr, row_action, t_ptr, dst, prob, reward, discount=discount,
                   terminal=(win, draw, loss))
    st, cnt = np.unique(np.asarray(start_list, dtype=np.int64), return_counts=True)
    return CheckersMDP(
        rules=rules, agent=agent, mdp=mdp, state_position=state_position, state_ply=state_ply,
        start_states=st, start_probs=cnt / cnt.sum(), win=win, draw=draw, loss=loss,
        n_positions=n_pos, seconds=time.perf_counter() - t0, _keys=keys,
        _position_material=material,
    )


def kernels_loaded() -> bool:
    """Whether this process has the checkers kernels ready (compiled, or loaded from numba's cache)."""
    import sys

    m = sys.modules.get("mdpviz.models._numba_checkers")
    return m is not None and bool(m.enumerate_positions.signatures)


def warm_up() -> float:
    """Compile (or load from numba's cache) every checkers kernel, on the smallest variants (with a
    ply limit and without); seconds taken. On a fresh install numba compiles them on first use,
    14-22 s once (2-core development machine), then its cache serves them in under a second."""
    t0 = time.perf_counter()
    for limit in (4, None):
        cm = compile_checkers(CheckersRules(size=MIN_SIZE, rows=1, ply_limit=limit))
        cm.state_of(cm.position(int(cm.start_states[0])))  # the position table and its lookup
    return time.perf_counter() - t0


def _tabular(n_states: int, labels: tuple[str, ...], state_ptr: np.ndarray, row_action: np.ndarray,
             row_ptr: np.ndarray, dst: np.ndarray, prob: np.ndarray, reward: np.ndarray, *, discount: float,
             terminal: tuple[int, int, int]) -> TabularMDP:
    """The :class:`TabularMDP` of CSR arrays the kernels built already sorted (states, rows by action).

    ``TabularMDP.from_transitions`` would sort 8 million transitions (a second at the default
    variant) only to find them in order; its checks on what a game may produce are made here
    (the state budget, the discount). Probabilities are 1/k by construction, and every live state
    has a move (the enumeration keeps only those)."""
    check_state_budget(n_states, "states")
    check_state_budget(len(labels), "action ids")
    discount = float(discount)
    if not 0.0 <= discount <= 1.0:
        raise ValueError(f"discount must be in [0, 1], got {discount}")
    term = np.zeros(n_states, dtype=bool)
    term[list(terminal)] = True
    arrays = dict(state_ptr=state_ptr, row_action=row_action, row_ptr=row_ptr, dst=dst, prob=prob, reward=reward,
                  terminal=term, mover=np.ones(n_states, dtype=np.int8))
    for a in arrays.values():
        a.flags.writeable = False
    return TabularMDP(n_states=n_states, n_actions=len(labels), discount=discount, objective="max",
                      state_labels=None, action_labels=labels, mdptype="episodic", **arrays)


def _start_codes(e: _Engine, pos: Position, *, agent: str, ply_limit: int | None) -> tuple[list, int]:
    """Where games start, as position keys (me, them, kings) in the compact layout (agent to move)
    or _WIN/_LOSS/_DRAW, and their ply.

    If the opponent is to move in ``pos``, each of its replies is a start (equal probabilities).
    """
    fwd = _fwd(agent)
    me, them = (pos.black, pos.white) if agent == BLACK else (pos.white, pos.black)
    me, them, k = e.compact(me), e.compact(them), e.compact(pos.kings)
    if pos.to_move == agent:
        if not e.has_move_c(me, them, k, fwd):
            return [_LOSS], pos.ply
        if ply_limit is not None and pos.ply >= ply_limit:
            return [_DRAW], pos.ply
        return [(me, them, k)], pos.ply
    replies = e.moves_c(them, me, k, -fwd)
    if not replies:
        return [_WIN], pos.ply
    if ply_limit is not None and pos.ply >= ply_limit:
        return [_DRAW], pos.ply
    codes: list = []
    for _, t1, m1, k1 in replies:
        if not e.has_move_c(m1, t1, k1, fwd):
            codes.append(_LOSS)
        elif ply_limit is not None and pos.ply + 1 >= ply_limit:
            codes.append(_DRAW)
        else:
            codes.append((m1, t1, k1))
    return codes, pos.ply + 1


def _label(e: _Engine, path: tuple[int, ...]) -> str:
    jump = abs(path[1] - path[0]) > e.W + 1
    return ("x" if jump else "-").join(e.names[b] for b in path)
