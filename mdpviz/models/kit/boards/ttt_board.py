"""Tic-tac-toe board rules, shared by every tic-tac-toe variant (vs random, risk, 3x3x3, anti).

* A board of ``size**dims`` cells (3x3 by default; ``dims=3`` gives the 3x3x3 cube). A cell
  holds :data:`EMPTY` (0), :data:`X` (1) or :data:`O` (2); cell ``i`` of an n x n board is row
  ``i // n``, column ``i % n``.
* A board's index is its base-3 number, ``sum_i cell_i * 3**i``, so placing ``mark`` on the
  empty cell ``c`` of board ``b`` gives board ``b + mark * 3**c``.
* A player wins by owning every cell of a line: ``line`` cells in a row along any axis or
  (anti)diagonal direction (default: the board's full width, e.g. 8 lines on 3x3, 10 on 4x4,
  49 in the 3x3x3 cube). A full board without a line is a draw.
* Symmetries: the ``dims! * 2**dims`` reflections and rotations of the cube (8 for a square),
  as permutations of the cells; they map lines to lines, so symmetric boards have equal values.

Plain numpy; never imports Qt.
"""
from __future__ import annotations

from typing import Any, Callable

from mdpviz.core.mdp import TabularMDP

import itertools
from dataclasses import dataclass
from functools import cached_property
from typing import Sequence

import numpy as np

EMPTY, X, O = 0, 1, 2
"""Cell contents: empty, X's mark, O's mark."""

MARK_CHARS = ".XO"
"""How boards are written: '.' empty, 'X', 'O' (parsing also accepts ' ', '-', '_' and 'E' for empty)."""

_EMPTY_CHARS = frozenset(" .-_E")


def other(mark: int) -> int:
    """The opponent's mark: X <-> O."""
    return O if mark == X else X


def parse_mark(text: str | int) -> int:
    """``"X"``/``"O"`` (any case) or 1/2 -> :data:`X`/:data:`O`; ValueError otherwise."""
    if isinstance(text, (int, np.integer)) and int(text) in (X, O):
        return int(text)
    t = str(text).strip().upper()
    if t == "X":
        return X
    if t == "O":
        return O
    raise ValueError(f"a mark must be 'X' or 'O', got {text!r}")


@dataclass(frozen=True, eq=False)
class BoardGeometry:
    """The cells, lines, base-3 encoding and symmetries of a ``size**dims`` board."""

    size: int = 3
    """Cells along each axis."""
    dims: int = 2
    """Number of axes: 2 for a flat board, 3 for a cube."""
    line: int = 0
    """Marks in a row needed to win; 0 means ``size`` (the full width)."""

    def __post_init__(self) -> None:
        if int(self.size) < 1:
            raise ValueError(f"board size must be at least 1, got {self.size}")
        if int(self.dims) < 1:
            raise ValueError(f"board dimensions must be at least 1, got {self.dims}")
        if not (0 <= int(self.line) <= int(self.size)):
            raise ValueError(f"line length must be in 1..{self.size} (0 for the full width), got {self.line}")
        if int(self.size) ** int(self.dims) > 40:
            raise ValueError(
                f"a board of {int(self.size) ** int(self.dims)} cells is too large for base-3 indices in int64 "
                "(at most 40 cells)"
            )

    # ------------------------------------------------------------------ structure
    @property
    def n_cells(self) -> int:
        """Number of cells, ``size**dims``."""
        return int(self.size) ** int(self.dims)

    @property
    def n_boards(self) -> int:
        """Number of base-3 board indices, ``3**n_cells`` (legal or not)."""
        return 3 ** self.n_cells

    @property
    def line_length(self) -> int:
        """Marks in a row needed to win."""
        return int(self.line) or int(self.size)

    @cached_property
    def powers(self) -> np.ndarray:
        """int64 (n_cells): ``3**i``, the index weight of cell i."""
        p = 3 ** np.arange(self.n_cells, dtype=np.int64)
        p.flags.writeable = False
        return p

    @cached_property
    def lines(self) -> np.ndarray:
        """int64 (n_lines, line_length): the cells of every winning line, each listed once."""
        n, d, k = int(self.size), int(self.dims), self.line_length
        coords = list(itertools.product(range(n), repeat=d))
        # Directions in {-1, 0, 1}^d whose first non-zero component is +1 (one of each +-pair).
        dirs = [v for v in itertools.product((-1, 0, 1), repeat=d) if any(v) and v[next(i for i, x in enumerate(v) if x)] == 1]
        seen: set[tuple[int, ...]] = set()
        out: list[tuple[int, ...]] = []
        for start in coords:
            for v in dirs:
                cells = []
                for step in range(k):
                    c = [start[j] + step * v[j] for j in range(d)]
                    if not all(0 <= x < n for x in c):
                        break
                    cells.append(self._flat(c))
                else:
                    key = tuple(sorted(cells))
                    if key not in seen:
                        seen.add(key)
                        out.append(tuple(cells))
        a = np.array(sorted(out, key=lambda c: (sorted(c), c)), dtype=np.int64).reshape(len(out), k)
        a.flags.writeable = False
        return a

    def _flat(self, coord: Sequence[int]) -> int:
        """Flat cell index of a coordinate (row-major: the last axis varies fastest)."""
        i = 0
        for x in coord:
            i = i * int(self.size) + int(x)
        return i

    @cached_property
    def symmetries(self) -> np.ndarray:
        """int64 (n_sym, n_cells): ``perm[s]`` maps the board ``b`` to ``b[perm[s]]``; row 0 is the identity.

        All ``dims! * 2**dims`` axis permutations combined with axis reflections (the dihedral
        group of order 8 for a square, 48 for a cube).
        """
        n, d = int(self.size), int(self.dims)
        grid = np.arange(self.n_cells).reshape((n,) * d)
        perms = []
        for axes in itertools.permutations(range(d)):
            t = np.transpose(grid, axes)
            for flips in itertools.product((False, True), repeat=d):
                u = t
                for ax, f in enumerate(flips):
                    if f:
                        u = np.flip(u, axis=ax)
                perms.append(u.ravel().copy())
        a = np.unique(np.array(perms, dtype=np.int64), axis=0)
        ident = np.arange(self.n_cells)
        a = np.concatenate([ident[None], a[~np.all(a == ident, axis=1)]])
        a.flags.writeable = False
        return a

    @cached_property
    def cell_lines(self) -> np.ndarray:
        """bool (n_lines, n_cells): whether each cell lies on each line."""
        m = np.zeros((self.lines.shape[0], self.n_cells), dtype=bool)
        m[np.arange(self.lines.shape[0])[:, None], self.lines] = True
        m.flags.writeable = False
        return m

    # ------------------------------------------------------------------ encoding
    def board(self, board: str | Sequence[int] | np.ndarray) -> np.ndarray:
        """A board as int8 cells from a string (``"X.O ..."``, rows may be separated by ``/``,
        ``|`` or whitespace-free newlines) or a sequence of 0/1/2; ValueError naming the bad cell."""
        if isinstance(board, str):
            text = "".join(ch for ch in board if ch not in "/|\n\r\t")
            if len(text) != self.n_cells:
                raise ValueError(f"a board needs {self.n_cells} cells, got {len(text)} in {board!r}")
            cells = []
            for i, ch in enumerate(text):
                u = ch.upper()
                if u in _EMPTY_CHARS:
                    cells.append(EMPTY)
                elif u == "X":
                    cells.append(X)
                elif u in ("O", "0"):
                    cells.append(O)
                else:
                    raise ValueError(f"board {board!r}: cell {i} is {ch!r}; use X, O or . (empty)")
            return np.array(cells, dtype=np.int8)
        a = np.asarray(board)
        if a.size != self.n_cells:
            raise ValueError(f"a board needs {self.n_cells} cells, got {a.size}")
        a = a.ravel()
        bad = np.flatnonzero((a != EMPTY) & (a != X) & (a != O))
        if bad.size:
            raise ValueError(f"cell {int(bad[0])} holds {a[bad[0]].item()!r}; cells must be 0 (empty), 1 (X) or 2 (O)")
        return a.astype(np.int8)

    def index(self, board: str | Sequence[int] | np.ndarray) -> int:
        """The base-3 index of a board (see :meth:`board` for the accepted forms)."""
        return int(self.board(board).astype(np.int64) @ self.powers)

    def decode(self, index: int) -> np.ndarray:
        """int8 (n_cells): the board with base-3 index ``index``."""
        i = int(index)
        if not (0 <= i < self.n_boards):
            raise ValueError(f"board index {i} is out of range 0..{self.n_boards - 1}")
        return self.digits(np.array([i]))[0]

    def digits(self, indices: np.ndarray) -> np.ndarray:
        """int8 (m, n_cells): the cells of each board index (vectorised base-3 digits)."""
        q = np.asarray(indices, dtype=np.int64).ravel()
        # int32 arithmetic is about three times faster and exact while 3**n_cells < 2**31.
        q = q.astype(np.int32) if self.n_boards <= np.iinfo(np.int32).max else q.copy()
        out = np.empty((q.size, self.n_cells), dtype=np.int8)
        for c in range(self.n_cells):
            out[:, c] = q % 3
            q //= 3
        return out

    def text(self, board: np.ndarray | int, *, rows: bool = False) -> str:
        """A board (cells or index) as ``"X.O......"``; ``rows=True`` puts one row per line."""
        b = self.decode(board) if isinstance(board, (int, np.integer)) else self.board(board)
        s = "".join(MARK_CHARS[int(v)] for v in b)
        if rows and self.dims >= 2:
            n = int(self.size)
            s = "\n".join(s[i : i + n] for i in range(0, len(s), n))
        return s

    # ------------------------------------------------------------------ rules
    def line_counts(self, digits: np.ndarray, mark: int) -> np.ndarray:
        """int8 (m, n_lines): how many cells of each line hold ``mark`` (``EMPTY`` counts empties)."""
        d = np.asarray(digits)
        return (d[:, self.lines] == mark).sum(axis=2, dtype=np.int8)

    def analyse(self, digits: np.ndarray) -> "LineAnalysis":
        """Which boards have a line of X / of O, and which empty cells complete one (one pass)."""
        d = np.asarray(digits)
        m = d.shape[0]
        k = self.line_length
        cells = d[:, self.lines]  # (m, n_lines, k)
        nx = (cells == X).sum(axis=2, dtype=np.int8)
        no = (cells == O).sum(axis=2, dtype=np.int8)
        ne = k - nx - no
        out = []
        for own in (nx, no):
            # A line is completed at its one empty cell when it holds k - 1 of the mark.
            i, l = np.divmod(np.flatnonzero((own == k - 1) & (ne == 1)), own.shape[1])
            comp = np.zeros((m, self.n_cells), dtype=bool)
            if i.size:
                j = np.argmax(cells[i, l] == EMPTY, axis=1)
                comp[i, self.lines[l, j]] = True
            out.append(comp)
        return LineAnalysis(x_line=np.any(nx == k, axis=1), o_line=np.any(no == k, axis=1),
                            x_completes=out[0], o_completes=out[1])

    def has_line(self, digits: np.ndarray, mark: int) -> np.ndarray:
        """bool (m): the boards on which ``mark`` owns a whole line."""
        return np.any(self.line_counts(digits, mark) == self.line_length, axis=1)

    def completing_cells(self, digits: np.ndarray, mark: int) -> np.ndarray:
        """bool (m, n_cells): placing ``mark`` on this (empty) cell completes a line of ``mark``.

        A line is completed at cell c when it holds ``line_length - 1`` of ``mark`` and its one
        empty cell is c. False on occupied cells.
        """
        a = self.analyse(digits)
        return a.x_completes if mark == X else a.o_completes

    def winner(self, board: str | Sequence[int] | np.ndarray) -> int | None:
        """:data:`X` or :data:`O` if that mark owns a line, 0 for a full board without one, None
        while the game goes on. ValueError if both marks own a line (no game reaches that)."""
        d = self.board(board)[None]
        x, o = bool(self.has_line(d, X)[0]), bool(self.has_line(d, O)[0])
        if x and o:
            raise ValueError(f"board {self.text(d[0])!r} has a line of X and a line of O")
        if x:
            return X
        if o:
            return O
        return 0 if not np.any(d == EMPTY) else None

    def images(self, indices: np.ndarray) -> np.ndarray:
        """int64 (m, n_sym): the index of every symmetric image of each board (column 0: itself)."""
        d = self.digits(indices).astype(np.int64)
        return np.stack([d[:, p] @ self.powers for p in self.symmetries], axis=1)

    def canonical(self, indices: np.ndarray) -> np.ndarray:
        """int64 (m): the smallest index among each board's symmetric images."""
        return self.images(indices).min(axis=1)

    def filled_counts(self) -> np.ndarray:
        """int8 (n_boards): the number of marks on every board index (built digit by digit)."""
        c = np.zeros(1, dtype=np.int8)
        for _ in range(self.n_cells):
            c = np.concatenate([c, c + 1, c + 1])
        return c


@dataclass(frozen=True, eq=False)
class LineAnalysis:
    """Lines of a batch of boards (:meth:`BoardGeometry.analyse`)."""

    x_line: np.ndarray
    """bool (m): X owns a whole line."""
    o_line: np.ndarray
    """bool (m): O owns a whole line."""
    x_completes: np.ndarray
    """bool (m, n_cells): an X on this empty cell completes a line of X."""
    o_completes: np.ndarray
    """bool (m, n_cells): an O on this empty cell completes a line of O."""


TTT3 = BoardGeometry()
"""The classic 3x3 board with 3 in a row."""


def swap_marks(board: np.ndarray) -> np.ndarray:
    """The board with X and O exchanged (the seed makes its X policy this way)."""
    b = np.asarray(board)
    return np.where(b == X, O, np.where(b == O, X, b)).astype(b.dtype)


MARK = {X: "X", O: "O"}


def mark_name(m: int) -> str:
    """"X" or "O"."""
    return MARK[int(m)]


def greedy_policy(mdp: TabularMDP, values: np.ndarray) -> np.ndarray:
    """int64 (n_states): the greedy action of every state under ``values`` (the solvers' tie rule:
    ties to the lowest action, min for minimising movers), -1 for terminal states."""
    from mdpviz.solvers import greedy
    from mdpviz.solvers.sweep import rows_to_policy

    _, rows = greedy(mdp, mdp.q_values(np.asarray(values, dtype=np.float64)))
    return rows_to_policy(mdp, rows)


class ValuesCache:
    """Remembers one result per values array (the board asks again at every redraw)."""

    def __init__(self) -> None:
        self._key: Any = None
        self._val: Any = None

    def get(self, values: Any, fn: Callable[[], Any]) -> Any:
        if self._key is not values:
            self._val = fn()
            self._key = values
        return self._val


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


__all__ = ["BoardGeometry", "EMPTY", "LineAnalysis", "MARK_CHARS", "O", "TTT3", "X", "other", "parse_mark", "swap_marks"]
