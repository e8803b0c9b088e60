"""Tic-tac-toe board rules, and tic-tac-toe against a uniformly random opponent (seed 001).

Board rules (shared with :mod:`mdpviz.models.risk_ttt` and any later variant):

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

The vs-random game (seed 001): the agent plays one mark, the opponent the other and picks an
empty cell uniformly at random. States are the boards where the agent is to move, plus three
absorbing outcome states WIN, DRAW and LOSS. One transition is a round: the agent's move and
the opponent's reply; the win / draw / loss reward is paid on the transition that ends the game
and the discount applies once per round (as in the seed's value iteration).

Plain numpy; never imports Qt.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import cached_property
from typing import Sequence

import numpy as np

from mdpviz.models.mdp import TabularMDP

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


# ====================================================================== the vs-random game
@dataclass(frozen=True)
class VsRandomSettings:
    """Tic-tac-toe against a uniformly random opponent (seed 001); defaults are the seed's."""

    agent: str = "O"
    """The agent's mark, "X" or "O" (the opponent has the other one)."""
    first: str = "opponent"
    """Who makes the first move of the game: "opponent" or "agent"."""
    win: float = 500.0
    """Reward when the agent completes a line (reward units)."""
    draw: float = 0.0
    """Reward when the board fills up without a line."""
    loss: float = -3500.0
    """Reward when the opponent completes a line."""
    discount: float = 0.9
    """Discount per round (one agent move and the opponent's reply), in [0, 1]."""
    size: int = 3
    """Cells along each side of the board (a line is the full width)."""

    def __post_init__(self) -> None:
        parse_mark(self.agent)
        if self.first not in ("opponent", "agent"):
            raise ValueError(f"first must be 'opponent' or 'agent', got {self.first!r}")
        for name in ("win", "draw", "loss"):
            v = getattr(self, name)
            if not math.isfinite(float(v)):
                raise ValueError(f"the {name} reward must be a finite number, got {v!r}")
        if not (0.0 <= float(self.discount) <= 1.0):
            raise ValueError(f"the discount must be in [0, 1], got {self.discount}")
        if not (1 <= int(self.size) <= 3):
            raise ValueError(
                f"board size must be 1..3 for the vs-random game, got {self.size} (a 4x4 board has millions "
                "of positions: too many to compile and simulate here)"
            )


WIN, DRAW, LOSS = "win", "draw", "loss"
OUTCOMES: tuple[str, str, str] = (WIN, DRAW, LOSS)
"""Names of the three absorbing outcome states, in the order they follow the board states."""


@dataclass(frozen=True, eq=False)
class VsRandomGame:
    """The compiled vs-random game: the MDP plus the board <-> state lookups the GUI needs.

    States ``0 .. n_boards-1`` are the boards where the agent is to move (by number of marks,
    then board index); the last three are the outcome states WIN, DRAW, LOSS. The action id of
    a move is its cell index.
    """

    settings: VsRandomSettings
    """The rules and rewards this game was compiled with."""
    geometry: BoardGeometry
    """The board."""
    mdp: TabularMDP
    """The compiled MDP (discount per round, rewards on the transition that ends the game)."""
    board_index: np.ndarray
    """int64 (n_board_states): the base-3 index of each board state."""
    start_states: np.ndarray
    """int64: where the game starts: the empty board, or the board after each opening move of the opponent."""
    start_probs: np.ndarray
    """float64: the probability of each start state (uniform over the opponent's opening moves)."""

    @property
    def agent(self) -> int:
        """The agent's mark."""
        return parse_mark(self.settings.agent)

    @property
    def opponent(self) -> int:
        """The opponent's mark."""
        return other(self.agent)

    @property
    def n_board_states(self) -> int:
        """Number of board states (all states except the three outcomes)."""
        return int(self.board_index.size)

    @property
    def outcome_states(self) -> np.ndarray:
        """int64 (3): the state ids of WIN, DRAW and LOSS."""
        return np.arange(3, dtype=np.int64) + self.n_board_states

    def state_of(self, board: str | Sequence[int] | np.ndarray | int) -> int:
        """The state id of a board (cells, string or base-3 index) where the agent is to move.

        ValueError if the agent is not to move there or the game is over.
        """
        idx = int(board) if isinstance(board, (int, np.integer)) else self.geometry.index(board)
        i = int(np.searchsorted(self._sorted_index, idx))
        if i < self._sorted_index.size and self._sorted_index[i] == idx:
            return int(self._sorted_state[i])
        raise ValueError(
            f"board {self.geometry.text(self.geometry.decode(idx))!r} is not a position where the agent "
            f"({self.settings.agent}, moving {'first' if self.settings.first == 'agent' else 'second'}) is to move"
        )

    def board_of(self, state: int) -> np.ndarray:
        """int8 (n_cells): the board of a board state; ValueError for an outcome state."""
        s = int(state)
        if not (0 <= s < self.n_board_states):
            raise ValueError(f"state {s} is not a board state (0..{self.n_board_states - 1})")
        return self.geometry.decode(int(self.board_index[s]))

    def legal_moves(self, state: int) -> np.ndarray:
        """int64: the cells (= action ids) the agent may play in ``state``."""
        return np.asarray(self.mdp.actions_of(int(state)), dtype=np.int64)

    def cell_values(self, values: np.ndarray, state: int) -> np.ndarray:
        """float64 (n_cells): Q of each legal cell of ``state`` under ``values``, NaN on occupied cells."""
        return cell_q_values(self.mdp, values, state)

    @cached_property
    def _sorted_index(self) -> np.ndarray:
        return np.sort(self.board_index)

    @cached_property
    def _sorted_state(self) -> np.ndarray:
        return np.argsort(self.board_index, kind="stable")

    @cached_property
    def layers(self) -> np.ndarray:
        """int64 (n_states): backward-induction layer of each state (the game is acyclic)."""
        from mdpviz.solvers.backward_induction import mdp_layers

        return mdp_layers(self.mdp)

    def start_value(self, values: np.ndarray) -> float:
        """The agent's expected discounted return from the start: V of the empty board, or the mean
        over the opponent's opening moves of V of the agent's first position."""
        return float(np.asarray(values)[self.start_states] @ self.start_probs)


def compile_vs_random(settings: VsRandomSettings = VsRandomSettings()) -> VsRandomGame:
    """Compile tic-tac-toe against a uniformly random opponent into a :class:`VsRandomGame`.

    States: every board with no line and an empty cell where the agent is to move (the agent
    has as many marks as the opponent when it moves first, one fewer when it moves second):
    all of them are reachable. From board b the agent's move on empty cell c ends the game
    (reward ``win``, or ``draw`` if it fills the board) or the opponent answers on each of the
    e empty cells with probability 1/e (reward ``loss`` if that completes its line, ``draw`` if
    it fills the board, else 0 and the next board state). V(s) = max_c E[r + gamma V(s')]
    (Sutton and Barto eq. 4.10) with gamma = ``discount`` per round.
    """
    geo = BoardGeometry(size=int(settings.size))
    me = parse_mark(settings.agent)
    opp = other(me)
    n_cells = geo.n_cells
    allb = np.arange(geo.n_boards, dtype=np.int64)
    d = geo.digits(allb)
    n_me = (d == me).sum(axis=1)
    n_opp = (d == opp).sum(axis=1)
    lead = 0 if settings.first == "agent" else 1
    live = (n_opp == n_me + lead) & ~geo.has_line(d, me) & ~geo.has_line(d, opp) & (n_me + n_opp < n_cells)
    cand = allb[live]
    order = np.lexsort((cand, n_me[live] + n_opp[live]))
    board_index = cand[order]
    ns = board_index.size
    if ns == 0:
        raise ValueError("this board has no position where the agent is to move")
    state_of_board = np.full(geo.n_boards, -1, dtype=np.int64)
    state_of_board[board_index] = np.arange(ns)
    win_s, draw_s, loss_s = ns, ns + 1, ns + 2

    bd = d[board_index]
    # Rows: (state, empty cell).
    rs, rc = np.nonzero(bd == EMPTY)
    rows_n = rs.size
    wins = geo.completing_cells(bd, me)[rs, rc]
    after = board_index[rs] + me * geo.powers[rc]
    filled_after = (bd != EMPTY).sum(axis=1)[rs] + 1
    full = ~wins & (filled_after == n_cells)
    goes_on = ~wins & ~full

    src: list[np.ndarray] = []
    dst: list[np.ndarray] = []
    prb: list[np.ndarray] = []
    rew: list[np.ndarray] = []
    row_id = np.arange(rows_n)

    def add(rows: np.ndarray, to: np.ndarray, p: np.ndarray, r: np.ndarray) -> None:
        src.append(rows)
        dst.append(to)
        prb.append(p)
        rew.append(r)

    add(row_id[wins], np.full(int(wins.sum()), win_s), np.ones(int(wins.sum())), np.full(int(wins.sum()), float(settings.win)))
    add(row_id[full], np.full(int(full.sum()), draw_s), np.ones(int(full.sum())), np.full(int(full.sum()), float(settings.draw)))
    # The opponent's uniformly random reply to each move that leaves the game running.
    g_rows = row_id[goes_on]
    ad = geo.digits(after[goes_on])
    empties = ad == EMPTY
    e = empties.sum(axis=1)
    opp_wins = geo.completing_cells(ad, opp)
    gi, gc = np.nonzero(empties)
    p = 1.0 / e[gi]
    nxt = after[goes_on][gi] + opp * geo.powers[gc]
    ow = opp_wins[gi, gc]
    nfull = ~ow & (e[gi] == 1)
    cont = ~ow & ~nfull
    to = np.where(ow, loss_s, np.where(nfull, draw_s, 0))
    to[cont] = state_of_board[nxt[cont]]
    if np.any(to < 0):  # cannot happen: every line-free board with the agent to move is a state
        raise RuntimeError("internal error: a reply led to a board that is not a state")
    r = np.where(ow, float(settings.loss), np.where(nfull, float(settings.draw), 0.0))
    add(g_rows[gi], to, p, r)

    row_all = np.concatenate(src)
    dst_all = np.concatenate(dst)
    p_all = np.concatenate(prb)
    r_all = np.concatenate(rew)
    # Merge replies that lead to the same outcome state (e.g. two losing replies) into one transition.
    n_states = ns + 3
    key = row_all * n_states + dst_all
    ukey, inv = np.unique(key, return_inverse=True)
    p_u = np.bincount(inv, weights=p_all, minlength=ukey.size)
    r_u = np.zeros(ukey.size)
    r_u[inv] = r_all  # equal for every merged transition (same outcome state)
    row_u = ukey // n_states
    dst_u = ukey % n_states

    labels = [geo.text(b) for b in bd] + ["WIN", "DRAW", "LOSS"]
    mdp = TabularMDP.from_transitions(
        n_states, n_cells, rs[row_u], rc[row_u], dst_u, p_u, r_u,
        discount=float(settings.discount), terminal=[win_s, draw_s, loss_s], mover=None, objective="max",
        state_labels=labels, action_labels=[f"cell {i}" for i in range(n_cells)], mdptype="episodic",
    )
    if settings.first == "agent":
        starts = np.array([state_of_board[0]], dtype=np.int64)
    else:
        starts = state_of_board[opp * geo.powers].astype(np.int64)
    probs = np.full(starts.size, 1.0 / starts.size)
    for a in (board_index, starts, probs):
        a.flags.writeable = False
    return VsRandomGame(settings=settings, geometry=geo, mdp=mdp, board_index=board_index,
                        start_states=starts, start_probs=probs)


@dataclass(frozen=True)
class OutcomeProbabilities:
    """Exact probabilities of the three outcomes of a policy (a Markov chain, no sampling)."""

    win: float
    """Probability that the agent completes a line."""
    draw: float
    """Probability that the board fills up without a line."""
    loss: float
    """Probability that the opponent completes a line."""


def outcome_matrix(game: VsRandomGame, policy: np.ndarray | None = None, *, probs: np.ndarray | None = None) -> np.ndarray:
    """float64 (n_states, 3): exact P(win), P(draw), P(loss) from every state under a policy.

    Give a deterministic ``policy`` (action id per state) or stochastic ``probs``
    (n_states x n_actions). These are the absorption probabilities of the Markov chain of the
    policy, the quantities :func:`mdpviz.solvers.hitting_probabilities` solves for; the game is
    acyclic (every round fills two cells), so they are computed exactly by backward induction
    (:func:`mdpviz.solvers.backward_induction.evaluate_acyclic`), without a linear solver's tolerance.
    """
    from mdpviz.solvers import row_weights_deterministic, row_weights_stochastic
    from mdpviz.solvers.backward_induction import evaluate_acyclic
    from mdpviz.solvers.sweep import policy_to_rows

    if (policy is None) == (probs is None):
        raise ValueError("give exactly one of policy (action per state) or probs (action probabilities)")
    mdp = game.mdp
    W = row_weights_deterministic(mdp, policy_to_rows(mdp, policy)) if probs is None else row_weights_stochastic(mdp, probs)
    ind = np.zeros((mdp.n_states, 3))
    ind[game.outcome_states, [0, 1, 2]] = 1.0
    h = evaluate_acyclic(mdp, W, rewards=mdp.matrix @ ind, discount=1.0, layers=game.layers)
    h[game.outcome_states] = ind[game.outcome_states]
    return h


def outcome_probabilities(game: VsRandomGame, policy: np.ndarray) -> OutcomeProbabilities:
    """Exact outcome probabilities of ``policy`` from the start of the game (averaged over the
    opponent's opening moves when it moves first)."""
    h = outcome_matrix(game, policy)
    w, dr, lo = game.start_probs @ h[game.start_states]
    return OutcomeProbabilities(win=float(w), draw=float(dr), loss=float(lo))


@dataclass(frozen=True)
class MoveReport:
    """Why a move is chosen: its Q-value and the exact outcome probabilities it leads to."""

    cell: int
    """The cell played (= action id)."""
    q: float
    """Q(s, cell) = E[r + gamma V(s')] under the given values (reward units)."""
    win: float
    """P(agent wins) when playing this cell and then following the policy."""
    draw: float
    """P(draw) likewise."""
    loss: float
    """P(agent loses) likewise."""


def move_reports(game: VsRandomGame, values: np.ndarray, policy: np.ndarray, state: int) -> list[MoveReport]:
    """One :class:`MoveReport` per legal cell of ``state``: the numbers behind the policy's choice
    (e.g. a discount or reward change makes a quick but riskier win worth more than a safe draw)."""
    mdp = game.mdp
    q = mdp.q_values(values)
    h = outcome_matrix(game, policy)
    after = mdp.matrix @ h  # (n_rows, 3): outcome probabilities of each row, then the policy
    out = []
    for r in range(int(mdp.state_ptr[state]), int(mdp.state_ptr[state + 1])):
        w, dr, lo = after[r]
        out.append(MoveReport(cell=int(mdp.row_action[r]), q=float(q[r]), win=float(w), draw=float(dr), loss=float(lo)))
    return out


def simulate_outcomes(
    game: VsRandomGame,
    policy: np.ndarray,
    *,
    games: int,
    seed: int | np.random.Generator | None = None,
) -> np.ndarray:
    """int64 (3): wins, draws and losses in ``games`` simulated games (vectorised Monte Carlo
    over the compiled MDP, :func:`mdpviz.models.simulate.simulate`; the opponent's opening move,
    when it has one, is drawn uniformly)."""
    from mdpviz.models.chunked import check_games, run_chunks
    from mdpviz.models.simulate import policy_matrix, simulate

    games = check_games(games, "the number of games")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    probs = policy_matrix(game.mdp, policy)
    counts = np.zeros(3, dtype=np.int64)

    def step(n: int) -> None:  # chunks of games: memory does not grow with ``games``
        starts = game.start_states[rng.integers(0, game.start_states.size, size=n)]
        ep = simulate(game.mdp, probs, start=starts, episodes=n, seed=rng, max_steps=game.geometry.n_cells + 1)
        if not ep.finished.all():  # a game has at most n_cells moves
            raise RuntimeError("internal error: a simulated game did not end")
        counts[:] += np.bincount(ep.final_state - game.n_board_states, minlength=3)

    run_chunks(games, step)
    return counts


def cell_q_values(mdp: TabularMDP, values: np.ndarray, state: int) -> np.ndarray:
    """float64 (n_actions): Q(state, cell) for every legal cell, NaN elsewhere (what a board view
    shows on each empty cell); Q = sum_s' p (r + gamma V(s')) (Sutton and Barto eq. 3.17)."""
    s = int(state)
    if not (0 <= s < mdp.n_states):
        raise ValueError(f"state {s} is out of range 0..{mdp.n_states - 1}")
    out = np.full(mdp.n_actions, np.nan)
    lo, hi = int(mdp.state_ptr[s]), int(mdp.state_ptr[s + 1])
    if hi > lo and not mdp.terminal[s]:
        P = mdp.matrix[lo:hi]
        out[mdp.row_action[lo:hi]] = mdp.row_reward[lo:hi] + mdp.discount * (P @ np.asarray(values, dtype=np.float64))
    return out


def swap_marks(board: np.ndarray) -> np.ndarray:
    """The board with X and O exchanged (the seed makes its X policy this way)."""
    b = np.asarray(board)
    return np.where(b == X, O, np.where(b == O, X, b)).astype(b.dtype)


__all__ = [
    "BoardGeometry", "DRAW", "EMPTY", "LOSS", "MARK_CHARS", "MoveReport", "O", "OUTCOMES", "OutcomeProbabilities",
    "TTT3", "VsRandomGame", "VsRandomSettings", "WIN", "X", "cell_q_values", "compile_vs_random", "move_reports", "other",
    "outcome_matrix", "outcome_probabilities", "parse_mark", "simulate_outcomes", "swap_marks",
]
