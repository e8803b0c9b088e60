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
Positions are bitboards held in Python ints (bit ``r*(n+1) + c``: one guard column stops
diagonal shifts from wrapping), so the moves of all pieces in one direction are one shift and
mask. Positions are enumerated once, breadth-first from the start (each position's moves and
replies computed once, whatever its ply); with a ply limit the (position, ply) states are then
laid out ply by ply with numpy. A state budget and a transition budget are checked while the
enumeration runs, so a variant too large for the machine is refused (:class:`VariantTooLarge`)
before it runs away with time or memory.

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
  enumerate and 0.8 s to solve, peak 1.1 GiB (2-core machine, shared). 5x5 with 2 rows, 6x6 and
  8x8 exceed the budget at 40 plies; they fit only with short limits (6x6 with 1 row at 20 plies,
  8x8 with 3 rows at 10 plies), where most games are cut off.

numpy and scipy only; never imports Qt.
"""
from __future__ import annotations

import time
from array import array
from collections import deque
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Sequence

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    import scipy.sparse as sp

from mdpviz.models.mdp import TabularMDP
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
"""Transition budget: opponent replies the enumeration may examine (about 1.5 us each in Python)
and transitions of the compiled MDP (about 0.5 us and 140 bytes each to build and solve)."""

_BUDGET_REASON = (
    ", the budget within which a variant enumerates and solves in under 30 s and 4 GiB on a 2-core "
    "machine; choose a smaller board, fewer rows or a lower ply limit"
)

_WIN, _LOSS, _BEYOND, _DRAW = -2, -1, -3, -4  # outcome codes in the position graph (>= 0: a position id)


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
    """Bitboard move generation for one board size and rule set (the only place the rules live).

    Bitboards use bit ``r*W + c`` with ``W = n + 1``: the guard column c = n is never a square,
    so a diagonal shift that leaves the board lands on a guard bit or outside and is masked off.
    Positions are given as (mover's pieces, opponent's pieces, kings) plus the mover's direction.
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
        top = sum(1 << (r * W + c) for r, c in self.squares if r == n - 1)
        bottom = sum(1 << (r * W + c) for r, c in self.squares if r == 0)
        self.top, self.bottom = top, bottom
        # A diagonal step shifts by W - 1 or W + 1: left (<<) is up the board, right (>>) down.
        a, b = W - 1, W + 1
        self.dirs_man = {+1: ((a, True), (b, True)), -1: ((a, False), (b, False))}
        self.dirs_king = ((a, True), (b, True), (a, False), (b, False))

    def start_rows(self, rows: int) -> tuple[int, int]:
        """Bitboards of Black's and White's men at the start."""
        n, W = self.size, self.W
        black = sum(1 << (r * W + c) for r, c in self.squares if r < rows)
        white = sum(1 << (r * W + c) for r, c in self.squares if r >= n - rows)
        return black, white

    def has_move(self, me: int, them: int, kings: int, fwd: int) -> bool:
        """True if the mover (moving in direction ``fwd``: +1 up, -1 down) has a legal move."""
        if not me:
            return False
        empty = self.valid & ~(me | them)
        mk = me & kings
        up_p, down_p = (me, mk) if fwd > 0 else (mk, me)  # pieces that may move up / down
        for s in (self.W - 1, self.W + 1):
            if up_p:
                y = up_p << s
                if y & empty or (y & them) << s & empty:
                    return True
            if down_p:
                y = down_p >> s
                if y & empty or (y & them) >> s & empty:
                    return True
        return False

    def moves(self, me: int, them: int, kings: int, fwd: int) -> list[tuple[tuple[int, ...], int, int, int]]:
        """Legal moves of the mover as (path of bits, new me, new them, new kings), in a fixed order."""
        a, b = self.W - 1, self.W + 1
        empty = self.valid & ~(me | them)
        mk = me & kings
        if fwd > 0:
            up_p, down_p, promo = me, mk, self.top
        else:
            up_p, down_p, promo = mk, me, self.bottom
        out: list[tuple[tuple[int, ...], int, int, int]] = []
        # pieces with a jump: the enemy next to them and an empty square beyond, in some direction
        jumpers = (up_p & (((them >> a) & (empty >> 2 * a)) | ((them >> b) & (empty >> 2 * b)))) | (
            down_p & (((them << a) & (empty << 2 * a)) | ((them << b) & (empty << 2 * b)))
        )
        if jumpers:
            dirs_man, dirs_king = self.dirs_man[fwd], self.dirs_king
            x = jumpers
            while x:
                p = x & -x
                x ^= p
                is_king = bool(kings & p)
                self._chain(p, p, is_king, dirs_king if is_king else dirs_man, promo, them, 0, empty | p,
                            (p.bit_length() - 1,), me, them, kings, out)
            if self.forced:
                return out
        for s in (a, b):
            t = (up_p << s) & empty
            while t:
                q = t & -t
                t ^= q
                src = q >> s
                nk = kings ^ src ^ q if kings & src else (kings | q if q & promo else kings)
                out.append(((src.bit_length() - 1, q.bit_length() - 1), me ^ src ^ q, them, nk))
            t = (down_p >> s) & empty
            while t:
                q = t & -t
                t ^= q
                src = q << s
                nk = kings ^ src ^ q if kings & src else (kings | q if q & promo else kings)
                out.append(((src.bit_length() - 1, q.bit_length() - 1), me ^ src ^ q, them, nk))
        return out

    def _chain(
        self, start: int, cur: int, is_king: bool, dirs: tuple[tuple[int, bool], ...], promo: int, them_left: int,
        captured: int, empty: int, path: tuple[int, ...], me: int, them: int, kings: int, out: list,
    ) -> bool:
        """Depth-first jump chains of the piece that started on ``start`` and stands on ``cur``.

        ``empty`` holds the squares a jump may land on (the start square is empty once the piece
        has left it; captured pieces stay on the board until the move ends, so they block).
        Appends the moves to ``out``; returns True if at least one jump was possible from ``cur``.
        """
        any_jump = False
        for s, left in dirs:
            if left:
                over = cur << s
                if not over & them_left:
                    continue
                land = over << s
            else:
                over = cur >> s
                if not over & them_left:
                    continue
                land = over >> s
            if not land & empty:
                continue
            any_jump = True
            cap = captured | over
            new_path = path + (land.bit_length() - 1,)
            crowned = (not is_king) and bool(land & promo)
            more = False
            if self.multi and not crowned:
                more = self._chain(start, land, is_king, dirs, promo, them_left & ~over, cap, empty, new_path,
                                   me, them, kings, out)
            if not more or not self.forced:
                nk = kings & ~cap & ~start
                if is_king or crowned:
                    nk |= land
                out.append((new_path, (me ^ start) | land, them & ~cap, nk))
        return any_jump


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


# ---------------------------------------------------------------------------------- enumeration
@dataclass(frozen=True, eq=False)
class _PositionGraph:
    """Every agent-to-move position reachable (within the ply limit), with its moves and replies."""

    keys: list
    """Position key per id: me | them << S | kings << 2S (agent's pieces, opponent's, kings)."""
    min_ply: np.ndarray
    """int64 per id: the first ply the position is reached at."""
    pos_ptr: np.ndarray
    """int64 (expanded + 1): rows (agent moves) of expanded position i are pos_ptr[i]:pos_ptr[i+1]."""
    row_move: np.ndarray
    """int64 per row: move id (index into ``move_paths``)."""
    row_ptr: np.ndarray
    """int64 (rows + 1): outcomes of row r are row_ptr[r]:row_ptr[r+1]."""
    out: np.ndarray
    """int64 per outcome: position id, or _WIN (the move wins: one outcome), _LOSS, _BEYOND."""
    move_paths: list
    """Path (tuple of bits) per move id."""
    material: np.ndarray
    """float64 per id: the material reward of the position for the agent."""


def _positions(
    engine: _Engine,
    starts: list[tuple[int, int]],
    *,
    fwd: int,
    ply_limit: int | None,
    max_states: int,
    max_transitions: int,
    variant: str,
) -> _PositionGraph:
    """Breadth-first enumeration of the agent's positions from ``starts`` = [(key, ply)].

    Each position is expanded once (at its first ply): its moves, for each move the opponent's
    replies, and whether each reply leaves the agent without a move (loss). Raises
    :class:`VariantTooLarge` as soon as a budget is exceeded.
    """
    S = engine.bits_len
    mask = (1 << S) - 1
    moves, has_move = engine.moves, engine.has_move
    ids: dict[int, int] = {}
    keys: list[int] = []
    min_ply = array("q")
    queue: deque[int] = deque()
    for key, ply in starts:
        if key not in ids:
            ids[key] = len(keys)
            keys.append(key)
            min_ply.append(ply)
            queue.append(key)
    pos_ptr = array("q", [0])
    row_move = array("q")
    row_ptr = array("q", [0])
    out = array("q")
    move_id: dict[tuple[int, ...], int] = {}
    move_paths: list[tuple[int, ...]] = []
    while queue:
        key = queue.popleft()
        i = ids[key]
        ply = min_ply[i]
        if ply_limit is not None and ply >= ply_limit:
            break  # BFS order: every later position is first reached at the limit or beyond
        me, them, kings = key & mask, (key >> S) & mask, key >> (2 * S)
        expand_next = ply_limit is None or ply + 2 < ply_limit
        for path, m1, t1, k1 in moves(me, them, kings, fwd):
            a = move_id.get(path)
            if a is None:
                a = move_id[path] = len(move_paths)
                move_paths.append(path)
            row_move.append(a)
            replies = moves(t1, m1, k1, -fwd)
            if not replies:
                out.append(_WIN)
            elif ply_limit is not None and ply + 1 >= ply_limit:
                out.append(_BEYOND)  # the game is drawn before the opponent replies
            else:
                for _, t2, m2, k2 in replies:
                    z = m2 | t2 << S | k2 << (2 * S)
                    j = ids.get(z)  # every known position has a move, so look it up first
                    if j is None:
                        if not has_move(m2, t2, k2, fwd):
                            out.append(_LOSS)
                            continue
                        if not expand_next:
                            out.append(_BEYOND)
                            continue
                        j = ids[z] = len(keys)
                        keys.append(z)
                        min_ply.append(ply + 2)
                        queue.append(z)
                        if len(keys) > max_states:
                            raise VariantTooLarge(
                                f"checkers variant ({variant}) refused: more than {max_states:,} "
                                f"positions within {ply + 2} plies{_BUDGET_REASON}"
                            )
                    out.append(j)
            row_ptr.append(len(out))
        pos_ptr.append(len(row_move))
        if len(out) > max_transitions:
            raise VariantTooLarge(
                f"checkers variant ({variant}) refused: more than {max_transitions:,} transitions "
                f"after {len(pos_ptr) - 1:,} positions{_BUDGET_REASON}"
            )
    mat = np.fromiter((_material(k & mask, (k >> S) & mask, k >> (2 * S)) for k in keys), dtype=np.float64,
                      count=len(keys))
    return _PositionGraph(
        keys=keys,
        min_ply=np.frombuffer(min_ply, dtype=np.int64).copy(),
        pos_ptr=np.frombuffer(pos_ptr, dtype=np.int64).copy(),
        row_move=np.frombuffer(row_move, dtype=np.int64).copy(),
        row_ptr=np.frombuffer(row_ptr, dtype=np.int64).copy(),
        out=np.frombuffer(out, dtype=np.int64).copy(),
        move_paths=move_paths,
        material=mat,
    )


def _ranges(starts: np.ndarray, stops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Concatenation of ranges starts[i]:stops[i] and, for each element, its range number i."""
    counts = stops - starts
    owner = np.repeat(np.arange(starts.size), counts)
    offs = np.arange(owner.size) - np.repeat(np.cumsum(counts) - counts, counts)
    return starts[owner] + offs, owner


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
    _keys: list = field(repr=False)
    """Position key per position id (agent's pieces | opponent's << S | kings << 2S), S = board bits."""
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
    def _state_index(self) -> dict[tuple[int, int], int]:
        idx = {}
        for s in np.flatnonzero(self.state_position >= 0):
            idx[(self._keys[self.state_position[s]], int(self.state_ply[s]))] = int(s)
        return idx

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
        S = e.bits_len
        mask = (1 << S) - 1
        key = self._keys[p]
        me, them, kings = key & mask, (key >> S) & mask, key >> (2 * S)
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
        key = me | them << e.bits_len | position.kings << (2 * e.bits_len)
        ply = position.ply if self.rules.ply_limit is not None else -1
        try:
            return self._state_index[(key, ply)]
        except KeyError:
            raise ValueError("this position is not reachable in the compiled variant") from None

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
        del probs
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
    live = [k for k in start_codes if k >= 0]
    g = _positions(e, [(k, start_ply) for k in live], fwd=fwd, ply_limit=L, max_states=int(max_states),
                   max_transitions=int(max_transitions), variant=variant)
    start_pos = {k: i for i, k in enumerate(g.keys[: len(set(live))])}

    # Action ids: the variant's moves sorted by path (square order), so that ids do not depend on
    # the order the enumeration met them in.
    order = sorted(range(len(g.move_paths)), key=lambda i: g.move_paths[i])
    remap = np.empty(len(order), dtype=np.int64)
    remap[order] = np.arange(len(order))
    labels = tuple(_label(e, g.move_paths[i]) for i in order) or ("none",)
    row_move = remap[g.row_move] if g.row_move.size else g.row_move
    n_expanded = g.pos_ptr.size - 1
    n_out = np.diff(g.row_ptr)  # replies (outcomes) per row

    if L is None:
        # No ply limit: a state is a position; the graph may have cycles (discount < 1 needed).
        n_live = n_expanded
        win, draw, loss = n_live, n_live + 1, n_live + 2
        state_position = np.arange(n_live, dtype=np.int64)
        state_ply = np.full(n_live, -1, dtype=np.int64)
        out_row = np.repeat(np.arange(row_move.size), n_out)
        src = np.repeat(np.arange(n_expanded), np.diff(g.pos_ptr))[out_row]
        action = row_move[out_row]
        prob = 1.0 / n_out[out_row]
        del out_row
        d = g.out
        dst = np.where(d >= 0, d, np.where(d == _WIN, win, loss))
        start_list = [start_pos[k] if k >= 0 else {_WIN: win, _LOSS: loss, _DRAW: draw}[k] for k in start_codes]
    else:
        # Lay the (position, ply) states out ply by ply: layer k holds the positions reached at
        # ply start_ply + 2k, sorted by position id. First pass: the layers and their sizes.
        layer_pos: list[np.ndarray] = []
        cur = np.unique(np.fromiter(start_pos.values(), dtype=np.int64, count=len(start_pos)))
        ply, n_live, n_trans = start_ply, 0, 0
        while cur.size and ply < L:
            layer_pos.append(cur)
            n_live += cur.size
            rows, _ = _ranges(g.pos_ptr[cur], g.pos_ptr[cur + 1])
            outs, _ = _ranges(g.row_ptr[rows], g.row_ptr[rows + 1])
            n_trans += rows.size if ply + 1 >= L else outs.size  # at the limit a move has one outcome
            if n_live > max_states or n_trans > max_transitions:
                raise VariantTooLarge(
                    f"checkers variant ({variant}) refused: more than "
                    + (f"{max_states:,} states" if n_live > max_states else f"{max_transitions:,} transitions")
                    + f" by ply {ply}{_BUDGET_REASON}"
                )
            d = g.out[outs]
            cur = np.unique(d[d >= 0]) if ply + 2 < L else np.zeros(0, dtype=np.int64)
            ply += 2
            del rows, outs, d
        win, draw, loss = n_live, n_live + 1, n_live + 2
        bases = np.cumsum([0] + [lp.size for lp in layer_pos])
        # Second pass: fill the transition arrays layer by layer (one layer's temporaries at a time).
        src = np.empty(n_trans, dtype=np.int64)
        action = np.empty(n_trans, dtype=np.int64)
        dst = np.empty(n_trans, dtype=np.int64)
        prob = np.empty(n_trans)
        t = 0
        for k, cur in enumerate(layer_pos):
            p = start_ply + 2 * k  # the ply of this layer's states
            rows, owner = _ranges(g.pos_ptr[cur], g.pos_ptr[cur + 1])
            if p + 1 >= L:  # the agent's move reaches the limit: one outcome, a draw unless the move wins
                sl = slice(t, t + rows.size)
                src[sl] = bases[k] + owner
                action[sl] = row_move[rows]
                dst[sl] = np.where(g.out[g.row_ptr[rows]] == _WIN, win, draw)
                prob[sl] = 1.0
                t += rows.size
                continue
            outs, orow = _ranges(g.row_ptr[rows], g.row_ptr[rows + 1])
            d = g.out[outs]
            if p + 2 >= L:  # the reply reaches the limit: a draw, unless it leaves me without a move
                code = np.where(d == _WIN, win, np.where(d == _LOSS, loss, draw))
            else:
                if np.any(d == _BEYOND):  # cannot happen: such outcomes are only recorded near the limit
                    raise RuntimeError("checkers compiler: a position beyond the ply limit inside the horizon")
                nxt = layer_pos[k + 1] if k + 1 < len(layer_pos) else np.zeros(1, dtype=np.int64)
                code = np.where(d == _WIN, win, np.where(d == _LOSS, loss, bases[k + 1] + np.searchsorted(nxt, d)))
            sl = slice(t, t + d.size)
            src[sl] = bases[k] + owner[orow]
            r = rows[orow]
            action[sl] = row_move[r]
            dst[sl] = code
            prob[sl] = 1.0 / n_out[r]
            t += d.size
            del rows, owner, outs, orow, d, code, r
        if t != n_trans:  # the two passes must agree
            raise RuntimeError(f"checkers compiler: {t} transitions filled, {n_trans} counted")
        state_position = np.concatenate(layer_pos) if layer_pos else np.zeros(0, dtype=np.int64)
        state_ply = np.repeat(start_ply + 2 * np.arange(len(layer_pos)), [lp.size for lp in layer_pos])
        start_list = [
            bases[0] + int(np.searchsorted(layer_pos[0], start_pos[k])) if k >= 0
            else {_WIN: win, _LOSS: loss, _DRAW: draw}[k]
            for k in start_codes
        ]

    state_position = np.concatenate([state_position, [-1, -1, -1]]).astype(np.int64)
    state_ply = np.concatenate([state_ply, [-1, -1, -1]]).astype(np.int64)
    entry_reward = np.concatenate([g.material[state_position[:-3]], [WIN_REWARD, DRAW_REWARD, LOSS_REWARD]])
    reward = entry_reward[dst]
    del entry_reward
    mdp = TabularMDP.from_transitions(
        n_live + 3, len(labels), src, action, dst, prob, reward,
        discount=discount, terminal=[win, draw, loss], action_labels=labels, mdptype="episodic",
    )
    del src, action, dst, prob, reward
    st, cnt = np.unique(np.asarray(start_list, dtype=np.int64), return_counts=True)
    return CheckersMDP(
        rules=rules, agent=agent, mdp=mdp, state_position=state_position, state_ply=state_ply,
        start_states=st, start_probs=cnt / cnt.sum(), win=win, draw=draw, loss=loss,
        n_positions=n_expanded, seconds=time.perf_counter() - t0, _keys=g.keys,
        _position_material=g.material,
    )


def _start_codes(e: _Engine, pos: Position, *, agent: str, ply_limit: int | None) -> tuple[list[int], int]:
    """Where games start, as position keys (agent to move) or _WIN/_LOSS/_DRAW, and their ply.

    If the opponent is to move in ``pos``, each of its replies is a start (equal probabilities).
    """
    S = e.bits_len
    fwd = _fwd(agent)
    me, them = (pos.black, pos.white) if agent == BLACK else (pos.white, pos.black)
    k = pos.kings
    if pos.to_move == agent:
        if not e.has_move(me, them, k, fwd):
            return [_LOSS], pos.ply
        if ply_limit is not None and pos.ply >= ply_limit:
            return [_DRAW], pos.ply
        return [me | them << S | k << (2 * S)], pos.ply
    replies = e.moves(them, me, k, -fwd)
    if not replies:
        return [_WIN], pos.ply
    if ply_limit is not None and pos.ply >= ply_limit:
        return [_DRAW], pos.ply
    codes = []
    for _, t1, m1, k1 in replies:
        if not e.has_move(m1, t1, k1, fwd):
            codes.append(_LOSS)
        elif ply_limit is not None and pos.ply + 1 >= ply_limit:
            codes.append(_DRAW)
        else:
            codes.append(m1 | t1 << S | k1 << (2 * S))
    return codes, pos.ply + 1


def _label(e: _Engine, path: tuple[int, ...]) -> str:
    jump = abs(path[1] - path[0]) > e.W + 1
    return ("x" if jump else "-").join(e.names[b] for b in path)
