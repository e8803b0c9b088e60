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
The rules live in compiled kernels (numba, :mod:`mdpviz.models.checkers.kernels`): positions are
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

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Sequence

import numpy as np

from mdpviz.models.kit.game.codec import FieldError

if TYPE_CHECKING:  # pragma: no cover
    pass


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
                raise FieldError(name, f"must be an integer, got {v!r}", subject=f"checkers {name}")
        if not MIN_SIZE <= self.size <= MAX_SIZE:
            raise FieldError("size", f"must be {MIN_SIZE}..{MAX_SIZE}, got {self.size}", subject="checkers board size")
        hi = (self.size - 1) // 2
        if not 1 <= self.rows <= hi:
            raise FieldError(
                "rows", f"checkers rows of men on a {self.size}x{self.size} board must be 1..{hi} "
                f"(at least one empty row between the sides), got {self.rows}", subject=""
            )
        for name in ("forced_capture", "multi_jump"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise FieldError(name, f"must be True or False, got {getattr(self, name)!r}", subject=f"checkers {name}")
        if self.ply_limit is not None:
            if isinstance(self.ply_limit, bool) or not isinstance(self.ply_limit, (int, np.integer)):
                raise FieldError("ply_limit", f"must be an integer or None, got {self.ply_limit!r}",
                                 subject="checkers ply_limit")
            if self.ply_limit < 1:
                raise FieldError("ply_limit", f"must be at least 1 (or None for no limit), got {self.ply_limit}",
                                 subject="checkers ply_limit")

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
    :mod:`mdpviz.models.checkers.kernels` (the only place the rules live) on this board's geometry.

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
    """The compiled kernels (:mod:`mdpviz.models.checkers.kernels`), imported on first use with
    numba's cache directory set up as the solvers' kernels set it up."""
    from mdpviz.solvers import kernels

    kernels._ensure_cache_dir()
    from mdpviz.models.checkers import kernels as _numba_checkers

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


def kernels_loaded() -> bool:
    """Whether this process has the checkers kernels ready (compiled, or loaded from numba's cache)."""
    import sys

    m = sys.modules.get("mdpviz.models.checkers.kernels")
    return m is not None and bool(m.enumerate_positions.signatures)
