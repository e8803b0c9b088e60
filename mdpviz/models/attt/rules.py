"""Anti-tic-tac-toe (seed 000): rules, the course's files, encoder, decoder, best-response iteration.

Rules. Players 1 and 2 alternate on a 3x3 board, player 1 first. A board is 9 cells in row-major
order holding 0 (empty), 1 or 2, written as a 9-character string (``"121000000"``). The player
who COMPLETES a row, column or diagonal of their own marks LOSES; a full board without a
completed line is a draw. Only the player who just moved can have completed a line, so a move
ends the game (the mover loses, or a draw) or hands the turn over.

Files (the course's, shipped in ``mdpviz/examples/cs747/attt``):

* a states file lists the boards where one player is to move, one per line;
* a policy file has the player id on its first line, then ``board p0 p1 ... p8`` per line: the
  probability of playing each cell (a stochastic policy; the course's are one-hot).

Every problem with a file is an :class:`~mdpviz.core.cs747.MDPFileError`, ``"FILE:LINE: problem"``.

The pipeline of the course: :func:`encode` turns "my boards + the opponent's fixed policy" into a
:class:`~mdpviz.core.mdp.TabularMDP` (my boards are states ``0..n-1`` in file order, actions are
cells 0..8 (legal only on empty cells), and three absorbing end states ``n`` = win, ``n+1`` =
draw, ``n+2`` = loss; reward 1 on entering win, 0 otherwise; discount 1, episodic), so that
V(s) = P(I win | s) under optimal play against that policy. A planner solves it; :func:`decode`
turns the value-policy lines back into a one-hot policy file. :func:`outcome_probabilities`
gives the exact win/draw/loss probabilities of a pair of policies from the empty board, and
:func:`best_response_iteration` alternates best responses (seed 000, task 3) as a generator of
rounds for stepping.

Plain numpy; never imports Qt.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Sequence

import numpy as np

from mdpviz.core.cs747 import MDPFileError, read_text_file
from mdpviz.core.mdp import PROB_TOL, TabularMDP, read_only

N_CELLS = 9
"""Cells of the board, numbered 0..8 row by row."""

LINES = np.array(
    [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]],
    dtype=np.int64,
)
"""The 8 lines (rows, columns, diagonals) as cell triples."""

POW3 = 3 ** np.arange(N_CELLS - 1, -1, -1, dtype=np.int64)
"""Place values of the base-3 board code: ``code == int(board_string, 3)``."""

PROB_SUM_TOL = 1e-5
"""Allowed deviation from 1 of a policy line's probabilities (files that round to 6 decimals are
off by up to 9 x 5e-7); accepted lines are rescaled to sum to 1 (to float precision)."""

TIE_RULES = ("lowest", "highest")
"""Tie rules of a best response: among cells of equal value, the lowest or the highest index."""

CONTINUE, MOVER_LOSES, DRAW = 0, 1, 2
"""Results of a move (:func:`move_result`)."""

END_LABELS = ("win", "draw", "loss")
"""Labels of the three absorbing end states appended by :func:`encode` (states n, n+1, n+2)."""


# ---------------------------------------------------------------------------------- rules
def board_codes(cells: np.ndarray) -> np.ndarray:
    """int64 base-3 code of each board (``cells`` (..., 9) of 0/1/2); equals ``int(string, 3)``."""
    return np.asarray(cells, dtype=np.int64) @ POW3


def board_strings(cells: np.ndarray) -> tuple[str, ...]:
    """The 9-character strings of boards ``cells`` (n, 9)."""
    cells = np.asarray(cells, dtype=np.uint8).reshape(-1, N_CELLS)
    raw = (cells + ord("0")).tobytes().decode("ascii")
    return tuple(raw[i : i + N_CELLS] for i in range(0, len(raw), N_CELLS))


def line_completed(cells: np.ndarray, mark: int | np.ndarray) -> np.ndarray:
    """bool (...): the board holds a full row, column or diagonal of ``mark`` (scalar or per board)."""
    cells = np.asarray(cells)
    mark = np.asarray(mark)[..., None, None] if np.ndim(mark) else mark
    return (cells[..., LINES] == mark).all(axis=-1).any(axis=-1)


def move_result(after: np.ndarray, mover: int | np.ndarray) -> np.ndarray:
    """int8 (...): the result of a move, given the board ``after`` it and the player who made it.

    :data:`MOVER_LOSES` if the mover completed a line of their own marks, else :data:`DRAW` if the
    board is full, else :data:`CONTINUE` (the other player is to move).
    """
    after = np.asarray(after)
    loses = line_completed(after, mover)
    full = (after != 0).all(axis=-1)
    return np.where(loses, MOVER_LOSES, np.where(full, DRAW, CONTINUE)).astype(np.int8)


def player_to_move(cells: np.ndarray) -> np.ndarray:
    """int8 (n): 1 or 2, the player to move on each board, or 0 where the mark counts are impossible.

    Player 1 moves first, so player 1 has as many marks as player 2 (player 1 to move) or one
    more (player 2 to move).
    """
    cells = np.asarray(cells)
    d = (cells == 1).sum(axis=-1) - (cells == 2).sum(axis=-1)
    return np.where(d == 0, 1, np.where(d == 1, 2, 0)).astype(np.int8)


@lru_cache(maxsize=1)
def reachable_boards() -> tuple["Boards", "Boards"]:
    """All boards reachable from the empty board where player 1 / player 2 is to move.

    The order is the depth-first preorder of the game tree with moves tried in cell order, the
    order of the course's ``states_file_p1.txt`` and ``states_file_p2.txt`` (2423 and 2097
    boards). Cached (the result is immutable). A one-time enumeration of ~4,500 boards: a plain recursive walk (a depth-first
    preorder is sequential by nature; everything that uses the boards afterwards is vectorised).
    """
    every = (np.arange(3**N_CELLS)[:, None] // POW3) % 3  # all 3^9 boards, by code
    ends = {p: move_result(every, p) != CONTINUE for p in (1, 2)}  # the rules, tabulated once
    seen: set[int] = set()
    order: dict[int, list[int]] = {1: [], 2: []}

    def walk(board: list[int], code: int, player: int) -> None:
        seen.add(code)
        order[player].append(code)
        for c in range(N_CELLS):
            if board[c]:
                continue
            nxt = code + player * int(POW3[c])
            if ends[player][nxt] or nxt in seen:
                continue
            board[c] = player
            walk(board, nxt, 3 - player)
            board[c] = 0

    walk([0] * N_CELLS, 0, 1)
    out = []
    for p in (1, 2):
        codes = np.array(order[p], dtype=np.int64)
        cells = (codes[:, None] // POW3) % 3
        out.append(Boards(player=p, cells=read_only(cells.astype(np.int8)), codes=read_only(codes), source="<rules>"))
    return out[0], out[1]


# ---------------------------------------------------------------------------------- boards
@dataclass(frozen=True, eq=False)
class Boards:
    """The boards where one player is to move, in a fixed order (a states file's, or the rules')."""

    player: int
    """1 or 2: the player to move on every board."""
    cells: np.ndarray
    """int8 (n, 9), read-only: 0 empty, 1 or 2 per cell."""
    codes: np.ndarray
    """int64 (n), read-only: base-3 code of each board (:func:`board_codes`)."""
    source: str = "<boards>"
    """The file the boards were read from (for messages)."""
    lines: np.ndarray | None = None
    """int64 (n): the line of ``source`` each board is on, if read from a file."""

    def __len__(self) -> int:
        return int(self.codes.size)

    @cached_property
    def labels(self) -> tuple[str, ...]:
        """The 9-character string of each board."""
        return board_strings(self.cells)

    @cached_property
    def _sorted(self) -> tuple[np.ndarray, np.ndarray]:
        order = np.argsort(self.codes, kind="stable")
        return self.codes[order], order

    def find(self, codes: np.ndarray) -> np.ndarray:
        """int64: the index of each board code in this list, -1 where it is not listed."""
        codes = np.asarray(codes, dtype=np.int64)
        keys, order = self._sorted
        if keys.size == 0:
            return np.full(codes.shape, -1, dtype=np.int64)
        i = np.minimum(np.searchsorted(keys, codes), keys.size - 1)
        return np.where(keys[i] == codes, order[i], -1).astype(np.int64)

    def where(self, i: int) -> str:
        """``"FILE:LINE"`` (or just the source) of board ``i``, for messages."""
        return f"{self.source}:{int(self.lines[i])}" if self.lines is not None else self.source

    @property
    def legal(self) -> np.ndarray:
        """bool (n, 9): the empty cells (legal moves) of each board."""
        return self.cells == 0


def _check_boards(
    strings: Sequence[str],
    lines: Sequence[int],
    path: str,
    player: int | None,
    why: str,
) -> Boards:
    """Validate board strings of one player's file and build :class:`Boards` (errors name the line)."""
    n = len(strings)
    for s, no in zip(strings, lines):
        if len(s) != N_CELLS or any(ch not in "012" for ch in s):
            raise MDPFileError(path, no, f"'{s}' is not a board: expected 9 characters, each 0, 1 or 2")
    cells = (np.frombuffer("".join(strings).encode("ascii"), dtype=np.uint8).reshape(n, N_CELLS) - ord("0")).astype(np.int8)
    lines_a = np.asarray(lines, dtype=np.int64)
    n1 = (cells == 1).sum(axis=1)
    n2 = (cells == 2).sum(axis=1)
    mover = player_to_move(cells)
    bad = np.flatnonzero(mover == 0)
    if bad.size:
        i = bad[0]
        raise MDPFileError(
            path, int(lines_a[i]),
            f"board {strings[i]} has impossible counts: {n1[i]} marks of player 1 and {n2[i]} of player 2 "
            "(player 1 moves first, so has as many marks as player 2 or one more)",
        )
    if player is None:
        player = int(mover[0])
    bad = np.flatnonzero(mover != player)
    if bad.size:
        i = bad[0]
        raise MDPFileError(
            path, int(lines_a[i]),
            f"board {strings[i]} has player {mover[i]} to move (marks: {n1[i]} of player 1, {n2[i]} of "
            f"player 2), not player {player}{why}",
        )
    for mark in (1, 2):
        bad = np.flatnonzero(line_completed(cells, mark))
        if bad.size:
            i = bad[0]
            raise MDPFileError(
                path, int(lines_a[i]),
                f"board {strings[i]} is already over: player {mark} completed a line, so nobody is to move",
            )
    bad = np.flatnonzero((cells != 0).all(axis=1))
    if bad.size:
        i = bad[0]
        raise MDPFileError(path, int(lines_a[i]), f"board {strings[i]} is full, so nobody is to move")
    codes = board_codes(cells)
    order = np.argsort(codes, kind="stable")
    dup = np.flatnonzero(codes[order][1:] == codes[order][:-1])
    if dup.size:
        # report the later of the first repeated pair, in file order
        pairs = [(int(order[d + 1]), int(order[d])) for d in dup]
        later, first = min((max(a, b), min(a, b)) for a, b in pairs)
        raise MDPFileError(
            path, int(lines_a[later]), f"board {strings[later]} repeated (first given on line {lines_a[first]})"
        )
    return Boards(player=int(player), cells=read_only(cells), codes=read_only(codes), source=path,
                  lines=read_only(lines_a))


def parse_states(
    text: str,
    path: str | os.PathLike = "<text>",
    *,
    player: int | None = None,
    why: str = "",
) -> Boards:
    """Read a states file: one board per line, all with the same player to move.

    ``player`` (1 or 2) is the player the file must belong to; if None it is taken from the
    first board. ``why`` is appended to a wrong-player message (e.g. which option implied it).
    Raises :class:`MDPFileError` naming the line of a malformed, impossible (mark counts, a
    completed line, a full board), repeated or wrong-player board.
    """
    path = str(path)
    if player is not None and player not in (1, 2):
        raise ValueError(f"player must be 1 or 2, got {player}")
    strings, lines = [], []
    for no, raw in enumerate(text.splitlines(), start=1):
        parts = raw.split()
        if not parts:
            continue
        if len(parts) != 1:
            raise MDPFileError(path, no, f"expected one board per line, got {len(parts)} fields")
        strings.append(parts[0])
        lines.append(no)
    if not strings:
        raise MDPFileError(path, None, "lists no boards")
    return _check_boards(strings, lines, path, player, why)


def load_states(path: str | os.PathLike, *, player: int | None = None, why: str = "") -> Boards:
    """Read a states file (see :func:`parse_states`)."""
    return parse_states(read_text_file(path), path, player=player, why=why)


# ---------------------------------------------------------------------------------- policies
@dataclass(frozen=True, eq=False)
class AtttPolicy:
    """A (possibly stochastic) policy of one player: the probability of playing each cell per board."""

    boards: Boards
    """The boards the policy is defined on (its player is ``boards.player``)."""
    probs: np.ndarray
    """float64 (n, 9), read-only: probability of each cell; 0 on occupied cells, rows sum to 1
    (within the MDP tolerance ``PROB_TOL``)."""
    source: str = ""
    """Where the policy came from (a file, "uniform", "random (seed 1)", "best response", ...)."""

    def __post_init__(self) -> None:
        p = self.probs
        if p.shape != (len(self.boards), N_CELLS):
            raise ValueError(f"policy probabilities have shape {p.shape}, expected ({len(self.boards)}, 9)")
        if not np.all(np.isfinite(p)) or np.any(p < 0):
            raise ValueError("policy probabilities must be finite and >= 0")
        bad = np.flatnonzero(np.any((p > 0) & ~self.boards.legal, axis=1))
        if bad.size:
            i = bad[0]
            raise ValueError(f"{self.boards.where(i)}: board {self.boards.labels[i]}: the policy plays an occupied cell")
        bad = np.flatnonzero(np.abs(p.sum(axis=1) - 1.0) > PROB_TOL)
        if bad.size:
            i = bad[0]
            raise ValueError(f"{self.boards.where(i)}: board {self.boards.labels[i]}: probabilities sum to {p[i].sum():.12g}, not 1")

    @property
    def player(self) -> int:
        """1 or 2."""
        return self.boards.player

    @classmethod
    def deterministic(cls, boards: Boards, actions: np.ndarray, *, source: str = "") -> "AtttPolicy":
        """One-hot policy: cell ``actions[i]`` on board i (each must be empty)."""
        actions = np.asarray(actions, dtype=np.int64).ravel()
        if actions.size != len(boards):
            raise ValueError(f"{actions.size} actions for {len(boards)} boards")
        bad = np.flatnonzero((actions < 0) | (actions >= N_CELLS))
        if bad.size:
            i = bad[0]
            raise ValueError(f"{boards.where(i)}: board {boards.labels[i]}: action {actions[i]} is not a cell 0..8")
        bad = np.flatnonzero(~boards.legal[np.arange(actions.size), actions])
        if bad.size:
            i = bad[0]
            raise ValueError(f"{boards.where(i)}: board {boards.labels[i]}: cell {actions[i]} is occupied")
        probs = np.zeros((actions.size, N_CELLS))
        probs[np.arange(actions.size), actions] = 1.0
        return cls(boards=boards, probs=read_only(probs), source=source)

    @classmethod
    def uniform(cls, boards: Boards) -> "AtttPolicy":
        """The uniformly random policy: every empty cell with equal probability."""
        legal = boards.legal.astype(np.float64)
        return cls(boards=boards, probs=read_only(legal / legal.sum(axis=1, keepdims=True)), source="uniform")

    @classmethod
    def random(cls, boards: Boards, *, seed: int) -> "AtttPolicy":
        """A deterministic policy whose cell on each board is drawn uniformly among the empty cells."""
        rng = np.random.default_rng(seed)
        legal = boards.legal
        # rank the empty cells by a random key; take the smallest (uniform over empty cells)
        key = np.where(legal, rng.random(legal.shape), np.inf)
        return cls.deterministic(boards, np.argmin(key, axis=1), source=f"random (seed {seed})")

    @property
    def is_deterministic(self) -> bool:
        """True if every row is one-hot."""
        return bool(np.all((self.probs == 0) | (self.probs == 1)))

    @property
    def actions(self) -> np.ndarray:
        """int64 (n): the most probable cell per board (lowest on ties); the action of a one-hot policy."""
        return np.argmax(self.probs, axis=1).astype(np.int64)

    def probs_at(self, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(probabilities (k, 9), found (k,) bool) of the boards with the given codes; rows of
        boards the policy does not list are zero."""
        idx = self.boards.find(codes)
        found = idx >= 0
        out = np.zeros((idx.size, N_CELLS))
        out[found] = self.probs[idx[found]]
        return out, found

    def changed_from(self, old: "AtttPolicy | None") -> np.ndarray:
        """int64: indices of this policy's boards whose action distribution differs from ``old``'s
        (boards matched by content, not position; boards ``old`` lacks count as changed, and all
        boards do if ``old`` is None)."""
        if old is None:
            return np.arange(len(self.boards), dtype=np.int64)
        if old.player != self.player:
            raise ValueError(f"cannot compare a player-{self.player} policy with a player-{old.player} one")
        p, found = old.probs_at(self.boards.codes)
        return np.flatnonzero(~found | np.any(p != self.probs, axis=1)).astype(np.int64)


def parse_policy(
    text: str,
    path: str | os.PathLike = "<text>",
    *,
    player: int | None = None,
    why: str = "",
) -> AtttPolicy:
    """Read a policy file: the player id on the first line, then ``board p0 ... p8`` per line.

    ``player`` is the id the file must have (None: any of 1, 2). Each line's probabilities must
    be numbers in [0, 1], 0 on occupied cells, summing to 1 within :data:`PROB_SUM_TOL` (then
    rescaled to sum to 1). Raises :class:`MDPFileError` naming the line of the problem.
    """
    path = str(path)
    head: tuple[int, str] | None = None
    strings: list[str] = []
    lines: list[int] = []
    rows: list[list[float]] = []
    for no, raw in enumerate(text.splitlines(), start=1):
        parts = raw.split()
        if not parts:
            continue
        if head is None:
            head = (no, raw.strip())
            if len(parts) != 1 or parts[0] not in ("1", "2"):
                raise MDPFileError(path, no, f"the first line must be the player id, 1 or 2, got '{raw.strip()}'")
            pid = int(parts[0])
            if player is not None and pid != player:
                raise MDPFileError(path, no, f"wrong player id: this is player {pid}'s policy, expected player {player}'s{why}")
            continue
        if len(parts) != 1 + N_CELLS:
            raise MDPFileError(path, no, f"expected 'board p0 ... p8' (10 fields), got {len(parts)} fields")
        try:
            vals = [float(x) for x in parts[1:]]
        except ValueError:
            raise MDPFileError(path, no, f"the probabilities must be numbers, got '{' '.join(parts[1:])}'") from None
        for j, v in enumerate(vals):
            if not (math.isfinite(v) and 0.0 <= v <= 1.0):
                raise MDPFileError(path, no, f"probability of cell {j} is {parts[1 + j]}, outside [0, 1]")
        strings.append(parts[0])
        lines.append(no)
        rows.append(vals)
    if head is None:
        raise MDPFileError(path, None, "is empty (expected the player id, then 'board p0 ... p8' lines)")
    pid = int(head[1])
    if not strings:
        raise MDPFileError(path, None, "lists no boards after the player id")
    boards = _check_boards(strings, lines, path, pid, f" (the file's player id on line {head[0]} is {pid})")
    probs = np.array(rows, dtype=np.float64)
    occ = np.any((probs > 0) & ~boards.legal, axis=1)
    bad = np.flatnonzero(occ)
    if bad.size:
        i = bad[0]
        j = int(np.flatnonzero((probs[i] > 0) & ~boards.legal[i])[0])
        raise MDPFileError(path, lines[i], f"board {strings[i]}: probability {probs[i, j]:g} on cell {j}, which is occupied")
    sums = probs.sum(axis=1)
    bad = np.flatnonzero(np.abs(sums - 1.0) > PROB_SUM_TOL)
    if bad.size:
        i = bad[0]
        raise MDPFileError(path, lines[i], f"board {strings[i]}: probabilities sum to {sums[i]:.12g}, not 1")
    probs /= sums[:, None]
    return AtttPolicy(boards=boards, probs=read_only(probs), source=path)


def load_policy(path: str | os.PathLike, *, player: int | None = None, why: str = "") -> AtttPolicy:
    """Read a policy file (see :func:`parse_policy`)."""
    return parse_policy(read_text_file(path), path, player=player, why=why)


def _fmt_prob(p: float) -> str:
    return str(int(p)) if float(p).is_integer() else repr(float(p))


def format_policy(policy: AtttPolicy) -> str:
    """The course's policy-file text: player id, then ``board p0 ... p8`` per board.

    Probabilities 0 and 1 print as ``0`` and ``1`` (like the course's files), others with
    ``repr`` so that reading the file back gives the same numbers.
    """
    out = [str(policy.player)]
    for label, row in zip(policy.boards.labels, policy.probs):
        out.append(label + " " + " ".join(_fmt_prob(p) for p in row))
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------- encoder
@dataclass(frozen=True, eq=False)
class Encoding:
    """The MDP of one player against the opponent's fixed policy, and what its states mean."""

    mdp: TabularMDP
    """States 0..n-1 are ``boards`` in order, then win, draw, loss (absorbing); actions are cells."""
    boards: Boards
    """My boards (the player of the MDP is ``boards.player``)."""
    opponent: AtttPolicy
    """The opponent's fixed policy."""

    @property
    def win(self) -> int:
        """Index of the absorbing win state (entered with reward 1)."""
        return len(self.boards)

    @property
    def draw(self) -> int:
        """Index of the absorbing draw state (reward 0)."""
        return len(self.boards) + 1

    @property
    def loss(self) -> int:
        """Index of the absorbing loss state (reward 0)."""
        return len(self.boards) + 2


def encode(boards: Boards, opponent: AtttPolicy) -> Encoding:
    """The MDP of the player of ``boards`` against ``opponent``'s fixed (possibly stochastic) policy.

    From my board s, playing empty cell a gives s + a. If I completed a line I lose (-> loss,
    reward 0); if the board is full it is a draw (-> draw, reward 0); otherwise the opponent plays
    cell c with probability pi_opp(c | s + a): if the opponent completes a line I win (-> win,
    reward 1), if the board fills it is a draw, else the game goes on at my board s + a + c.
    Discount 1, episodic, so V*(s) is my maximal probability of winning from s (probability units).
    Raises :class:`MDPFileError` if the opponent's policy lacks a board it must play on, or my
    boards lack a board I can face (naming the file and the board it was reached from).
    """
    me = boards.player
    opp = 3 - me
    if opponent.player != opp:
        raise ValueError(
            f"{opponent.source or 'the opponent policy'} is player {opponent.player}'s policy, but the boards "
            f"in {boards.source} are player {me}'s: the opponent must be player {opp}"
        )
    n = len(boards)
    win, draw, loss = n, n + 1, n + 2
    s, a = np.nonzero(boards.legal)  # rows (state, action), sorted by state then cell
    after = boards.cells[s].copy()
    after[np.arange(s.size), a] = me
    res = move_result(after, me)

    # My move ends the game: I completed a line (loss) or filled the board (draw), probability 1.
    over = res != CONTINUE
    src_l, act_l = [s[over]], [a[over]]
    dst_l = [np.where(res[over] == MOVER_LOSES, loss, draw)]
    prob_l = [np.ones(int(over.sum()))]

    go = np.flatnonzero(res == CONTINUE)
    codes = board_codes(after[go])
    pol, found = opponent.probs_at(codes)
    if not found.all():
        i = go[np.flatnonzero(~found)[0]]
        raise MDPFileError(
            opponent.source or "<opponent policy>", None,
            f"no entry for board {board_strings(after[i])[0]}, where player {opp} must move after player {me} "
            f"plays cell {a[i]} on board {boards.labels[s[i]]} ({boards.where(s[i])})",
        )
    r, c = np.nonzero(pol > 0)  # opponent replies with positive probability
    g = go[r]
    after2 = after[g].copy()
    after2[np.arange(g.size), c] = opp
    res2 = move_result(after2, opp)
    nxt = np.full(g.size, -1, dtype=np.int64)
    nxt[res2 == MOVER_LOSES] = win
    nxt[res2 == DRAW] = draw
    on = res2 == CONTINUE
    nxt[on] = boards.find(board_codes(after2[on]))
    missing = np.flatnonzero(nxt < 0)
    if missing.size:
        i = missing[0]
        raise MDPFileError(
            boards.source, None,
            f"does not list board {board_strings(after2[i])[0]}, which player {me} faces after playing cell "
            f"{a[g[i]]} on board {boards.labels[s[g[i]]]} ({boards.where(s[g[i]])}) and player {opp} replying {c[i]}",
        )
    src_l.append(s[g])
    act_l.append(a[g])
    dst_l.append(nxt)
    prob_l.append(pol[r, c])

    src = np.concatenate(src_l)
    act = np.concatenate(act_l)
    dst = np.concatenate(dst_l)
    prob = np.concatenate(prob_l)
    # Several replies can end in the same end state: merge equal (s, a, s') into one transition.
    key = (src * N_CELLS + act) * (n + 3) + dst
    uniq, inv = np.unique(key, return_inverse=True)
    prob = np.bincount(inv.ravel(), weights=prob, minlength=uniq.size)
    dst = uniq % (n + 3)
    sa = uniq // (n + 3)
    src, act = sa // N_CELLS, sa % N_CELLS
    reward = (dst == win).astype(np.float64)
    mdp = TabularMDP.from_transitions(
        n + 3, N_CELLS, src, act, dst, prob, reward,
        discount=1.0, terminal=[win, draw, loss], mdptype="episodic",
        state_labels=boards.labels + END_LABELS,
        action_labels=tuple(f"cell {k}" for k in range(N_CELLS)),
    )
    return Encoding(mdp=mdp, boards=boards, opponent=opponent)


# ---------------------------------------------------------------------------------- decoder
def decode(boards: Boards, actions: np.ndarray, *, source: str = "") -> AtttPolicy:
    """The one-hot policy playing ``actions[i]`` on board i (the first n lines of a planner's
    ``V pi`` output are my boards, in order; see :func:`encode`)."""
    return AtttPolicy.deterministic(boards, actions, source=source)


def parse_value_policy_for(text: str, path: str | os.PathLike, boards: Boards) -> np.ndarray:
    """The actions of ``boards`` from a planner's ``V pi`` text (first ``len(boards)`` lines).

    The file may have more lines (the end states an encoder appended) but not fewer. Raises
    :class:`MDPFileError` naming the line of a malformed line or of an action that is not an
    empty cell of its board.
    """
    path = str(path)
    n = len(boards)
    acts: list[int] = []
    nos: list[int] = []
    for no, raw in enumerate(text.splitlines(), start=1):
        parts = raw.split()
        if not parts:
            continue
        if len(parts) != 2:
            raise MDPFileError(path, no, f"expected 'value action', got {len(parts)} fields")
        try:
            v = float(parts[0])
            a = int(parts[1])
        except ValueError:
            raise MDPFileError(path, no, f"expected a number and an integer, got '{raw.strip()}'") from None
        if not math.isfinite(v):
            raise MDPFileError(path, no, f"value '{parts[0]}' is not finite")
        acts.append(a)
        nos.append(no)
    if not acts:
        raise MDPFileError(path, None, "is empty")
    if len(acts) < n:
        raise MDPFileError(
            path, None, f"has {len(acts)} 'value action' lines, fewer than the {n} boards of {boards.source}"
        )
    actions = np.array(acts[:n], dtype=np.int64)
    bad = np.flatnonzero((actions < 0) | (actions >= N_CELLS))
    if bad.size:
        i = bad[0]
        raise MDPFileError(path, nos[i], f"action {actions[i]} is not a cell 0..8 (board {boards.labels[i]}, {boards.where(i)})")
    bad = np.flatnonzero(~boards.legal[np.arange(n), actions])
    if bad.size:
        i = bad[0]
        raise MDPFileError(
            path, nos[i], f"action {actions[i]} is an occupied cell of board {boards.labels[i]} ({boards.where(i)})"
        )
    return actions


# ---------------------------------------------------------------------------------- outcomes
@dataclass(frozen=True)
class Outcome:
    """Exact outcome probabilities of a pair of policies from the empty board (they sum to 1)."""

    p1_win: float
    """Probability that player 1 wins (player 2 completes a line)."""
    p2_win: float
    """Probability that player 2 wins (player 1 completes a line)."""
    draw: float
    """Probability that the board fills without a completed line."""


def outcome_probabilities(p1: AtttPolicy, p2: AtttPolicy) -> Outcome:
    """Exact P(player 1 wins), P(player 2 wins), P(draw) when ``p1`` and ``p2`` play each other.

    Forward propagation of the probability of each board, one ply at a time (at most 9), from the
    empty board: mass(s + c) += mass(s) pi(c | s); a move that completes the mover's line adds its
    mass to the other player's win, a move that fills the board to the draw. Exact up to float
    rounding; no sampling. Raises ``ValueError`` if a policy lacks a board the play reaches.
    """
    if p1.player != 1 or p2.player != 2:
        raise ValueError(f"expected player 1's and player 2's policies, got players {p1.player} and {p2.player}")
    start = p1.boards.find(np.array([0]))[0]
    if start < 0:
        raise ValueError(f"{p1.source or 'player 1 policy'} has no entry for the empty board 000000000")
    pols = {1: p1, 2: p2}
    win = {1: 0.0, 2: 0.0}
    draw = 0.0
    idx = np.array([start])
    mass = np.array([1.0])
    player = 1
    for _ in range(N_CELLS):
        if idx.size == 0:
            break
        pol = pols[player]
        probs = pol.probs[idx] * mass[:, None]
        r, c = np.nonzero(probs > 0)
        w = probs[r, c]
        after = pol.boards.cells[idx[r]].copy()
        after[np.arange(r.size), c] = player
        res = move_result(after, player)
        win[3 - player] += float(w[res == MOVER_LOSES].sum())
        draw += float(w[res == DRAW].sum())
        on = res == CONTINUE
        other = pols[3 - player]
        j = other.boards.find(board_codes(after[on]))
        if np.any(j < 0):
            k = int(np.flatnonzero(j < 0)[0])
            raise ValueError(
                f"{other.source or f'player {3 - player} policy'} has no entry for board "
                f"{board_strings(after[on][k])[0]}, which the play reaches"
            )
        idx, inv = np.unique(j, return_inverse=True)
        mass = np.bincount(inv.ravel(), weights=w[on], minlength=idx.size)
        player = 3 - player
    return Outcome(p1_win=win[1], p2_win=win[2], draw=draw)
