"""3x3x3 risk tic-tac-toe (seed 003, second half): the cube, its 49 lines and a batch game engine.

The board is the 3x3x3 cube of :class:`~mdpviz.models.ttt.BoardGeometry` (``dims=3``):
cell ``i = 9 * layer + 3 * row + col`` (the seed's ``board[layer][square]`` with
``square = 3 * row + col``), holding :data:`EMPTY` (0), :data:`X` (1) or :data:`O` (2).

Rules (the risk rules of :mod:`mdpviz.models.risk_ttt` on 27 cells): X moves first; the player to
move picks an empty cell i; with probability ``1 - risk[i]`` its own mark lands there, with
probability ``risk[i]`` (the risk coin) the OPPONENT's mark does; the turn passes either way.
A mark that completes a line of its owner ends the game and that owner wins (so a coin that
completes the opponent's line makes the opponent win); a full cube without a line is a draw.

The 49 lines of the cube: 27 straight lines (9 along each axis), 18 plane diagonals (2 in each
of the 9 axis-aligned planes) and 4 space diagonals through the centre cell 13. The seed's own
win check (``check_win_3d``, transcribed in :data:`SEED_CHECKED`) tests 47 triples, 38 of them
distinct, and misses these 11 lines (:func:`seed_missing_lines`):

* both diagonals of the three planes of constant column: (0, 12, 24), (6, 12, 18),
  (1, 13, 25), (7, 13, 19), (2, 14, 26), (8, 14, 20);
* the anti-diagonal of the three planes of constant row (the seed has only the other one):
  (2, 10, 18), (5, 13, 21), (8, 16, 24);
* two of the four space diagonals: (6, 13, 20) and (8, 13, 18).

Since no 2-colouring of the 27 cells avoids a monochromatic line (see the tests), a full cube
always holds a line: every game of 3x3x3 tic-tac-toe, risky or not, ends with a winner and the
draw rate is 0. The code still handles draws, as the rules above state them.

The engine plays many games in lockstep (every ply fills one cell in every running game, so all
games have the same player to move): players are functions ``(boards, mark) -> cells`` over a
batch. Plain numpy; never imports Qt.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from mdpviz.models.kit.boards.ttt_board import parse_risk, preset_names, risk_preset, validate_risk
from mdpviz.models.kit.boards.ttt_board import EMPTY, MARK_CHARS, O, X, BoardGeometry, other, parse_mark

# ====================================================================== the cube and its lines
CUBE = BoardGeometry(size=3, dims=3)
"""The 3x3x3 board (shared board rules of :mod:`mdpviz.models.ttt`)."""

N_CELLS = 27
"""Cells of the cube."""

CENTRE = 13
"""The centre cell (layer 1, row 1, column 1): it lies on 13 of the 49 lines."""

LINES: np.ndarray = CUBE.lines
"""int64 (49, 3): the cells of every winning line, each line once."""

N_LINES = 49
"""Number of winning lines."""


def cell_coords(cell: int) -> tuple[int, int, int]:
    """(layer, row, column) of a cell 0..26."""
    c = int(cell)
    if not 0 <= c < N_CELLS:
        raise ValueError(f"cell {c} is out of range 0..{N_CELLS - 1}")
    return c // 9, (c // 3) % 3, c % 3


def line_kind(line: Sequence[int]) -> str:
    """"straight", "plane diagonal" or "space diagonal": how many axes a line moves along (1, 2, 3)."""
    a = np.array([cell_coords(c) for c in line])
    moving = int(np.count_nonzero(a.max(axis=0) != a.min(axis=0)))
    return {1: "straight", 2: "plane diagonal", 3: "space diagonal"}[moving]


def _lines_through() -> tuple[np.ndarray, np.ndarray]:
    counts = np.bincount(LINES.ravel(), minlength=N_CELLS)
    width = int(counts.max())
    pad = np.empty((N_CELLS, width, 3), dtype=np.int64)
    for c in range(N_CELLS):
        mine = LINES[np.any(LINES == c, axis=1)]
        # Pad with copies of the cell's first line: a repeated line does not change "any line complete".
        pad[c] = np.concatenate([mine, np.repeat(mine[:1], width - mine.shape[0], axis=0)])
    pad.flags.writeable = False
    counts.flags.writeable = False
    return pad, counts


LINES_THROUGH, LINES_PER_CELL = _lines_through()
"""int64 (27, 13, 3): the lines through each cell (padded by repeating a line); int64 (27): how many."""

_INCIDENCE = np.zeros((N_LINES * 3, N_CELLS), dtype=np.float32)
_INCIDENCE[np.arange(N_LINES * 3), LINES.ravel()] = 1.0
_INCIDENCE.flags.writeable = False


# The seed's check_win_3d, transcribed: (layer, square) triples in the order it tests them.
def _seed_checked() -> tuple[tuple[int, int, int], ...]:
    flat = lambda layer, sq: 9 * layer + sq  # noqa: E731
    out: list[tuple[int, int, int]] = []
    combos = [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]]
    for i in range(3):  # lines inside each layer
        out += [tuple(flat(i, s) for s in c) for c in combos]
    for i in range(9):  # "columns that span layers"
        out.append((flat(0, i), flat(1, i), flat(2, i)))
    for i in range(3):  # the seed's second pass over rows of a layer (already counted above)
        out += [(flat(i, 0), flat(i, 1), flat(i, 2)), (flat(i, 3), flat(i, 4), flat(i, 5)),
                (flat(i, 6), flat(i, 7), flat(i, 8))]
    out += [(flat(0, 0), flat(1, 4), flat(2, 8)), (flat(0, 2), flat(1, 4), flat(2, 6))]  # "diagonals that span layers"
    out += [(flat(0, 0), flat(1, 1), flat(2, 2)), (flat(0, 3), flat(1, 4), flat(2, 5)),
            (flat(0, 6), flat(1, 7), flat(2, 8))]  # "rows that span layers"
    return tuple(out)


SEED_CHECKED: tuple[tuple[int, int, int], ...] = _seed_checked()
"""The 47 cell triples the seed's ``check_win_3d`` tests (38 distinct lines)."""


def seed_missing_lines() -> np.ndarray:
    """int64 (11, 3): the lines of the cube that the seed's win check never tests (sorted cells)."""
    seen = {tuple(sorted(t)) for t in SEED_CHECKED}
    miss = [tuple(sorted(int(c) for c in line)) for line in LINES if tuple(sorted(int(c) for c in line)) not in seen]
    return np.array(sorted(miss), dtype=np.int64).reshape(-1, 3)


# ====================================================================== boards
def board(cells: str | Sequence[int] | np.ndarray) -> np.ndarray:
    """int8 (27): a board from 27 cells (0/1/2) or a string of X, O and '.' (layers may be
    separated by '/' or '|', e.g. ``"X........|....O....|........."``); ValueError naming the bad cell."""
    return CUBE.board(cells)


def board_text(cells: np.ndarray, *, layers: bool = True) -> str:
    """A board as ``"X........|....O....|........."`` (``layers=False``: one run of 27 characters)."""
    b = np.asarray(cells).ravel()
    s = "".join(MARK_CHARS[int(v)] for v in b)
    return "|".join(s[i : i + 9] for i in range(0, N_CELLS, 9)) if layers else s


def legal_moves(cells: np.ndarray) -> np.ndarray:
    """int64: the empty cells of a board (none once the game is over is the caller's business)."""
    return np.flatnonzero(np.asarray(cells).ravel() == EMPTY)


def line_owners(boards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """bool (m), bool (m): whether X, and whether O, owns a whole line on each board of a batch."""
    b = np.atleast_2d(boards)
    cells = b[:, LINES]  # (m, 49, 3)
    return (np.all(cells == X, axis=2).any(axis=1), np.all(cells == O, axis=2).any(axis=1))


def winner(cells: str | Sequence[int] | np.ndarray) -> int | None:
    """:data:`X` or :data:`O` if that mark owns one of the 49 lines, 0 for a full cube without one,
    None while the game goes on; ValueError if both own a line (no game reaches such a board)."""
    b = board(cells)
    x, o = (bool(v[0]) for v in line_owners(b[None]))
    if x and o:
        raise ValueError(f"board {board_text(b)!r} has a line of X and a line of O")
    if x:
        return X
    if o:
        return O
    return 0 if not np.any(b == EMPTY) else None


def completes(boards: np.ndarray, cells: np.ndarray, marks: np.ndarray) -> np.ndarray:
    """bool (m): whether the mark ``marks[k]`` now on ``cells[k]`` of ``boards[k]`` completes a line
    through that cell (the board already holds the mark). One gather over the <= 13 lines per cell."""
    b = np.atleast_2d(boards)
    c = np.asarray(cells, dtype=np.int64).ravel()
    m = np.asarray(marks).ravel()
    rows = np.arange(b.shape[0])[:, None, None]
    return np.all(b[rows, LINES_THROUGH[c]] == m[:, None, None], axis=2).any(axis=1)


def completes_one(cells: np.ndarray, cell: int, mark: int) -> bool:
    """:func:`completes` for one board (the training loop's fast path; same line table)."""
    return bool((cells[LINES_THROUGH[cell]] == mark).all(axis=1).any())


def completing_cells(boards: np.ndarray, mark: int) -> np.ndarray:
    """bool (m, 27): the empty cells where ``mark`` would complete one of its lines (a line holding
    two of ``mark`` and that one empty cell)."""
    b = np.atleast_2d(boards)
    cells = b[:, LINES]  # (m, 49, 3)
    empty = cells == EMPTY
    hot = ((cells == mark).sum(axis=2) == 2) & (empty.sum(axis=2) == 1)  # (m, 49)
    marked = (empty & hot[:, :, None]).reshape(b.shape[0], N_LINES * 3).astype(np.float32)
    return (marked @ _INCIDENCE) > 0


def play_move(cells: np.ndarray, cell: int, mover: int, *, risk: np.ndarray, rng: np.random.Generator) -> tuple[int, int | None]:
    """Play ``cell`` for ``mover`` on the board ``cells`` IN PLACE: the risk coin puts the
    opponent's mark there with probability ``risk[cell]``, else the mover's.

    Returns (the mark that landed, the result: :data:`X` or :data:`O` if that mark completed a
    line of its owner, 0 if the cube is now full, None if the game goes on). The single-game
    form of :func:`play_batch`'s ply (the training loop and a human game use it); the caller
    makes sure the cell is empty and the game is running (see :func:`check_move`).
    """
    mark = other(mover) if rng.random() < risk[cell] else mover
    cells[cell] = mark
    if completes_one(cells, cell, mark):
        return mark, mark
    return mark, (None if np.any(cells == EMPTY) else 0)


def check_move(cells: np.ndarray, cell: int) -> None:
    """ValueError unless ``cell`` is an empty cell 0..26 of a board whose game is still running."""
    c = int(cell)
    if not 0 <= c < N_CELLS:
        raise ValueError(f"cell {c} is out of range 0..{N_CELLS - 1}")
    if winner(cells) is not None:
        raise ValueError(f"board {board_text(cells)!r}: the game is over")
    if cells[c] != EMPTY:
        raise ValueError(f"cell {c} {cell_coords(c)} is already taken")


# ====================================================================== risk
def resolve_risk(spec: str | Sequence[float] | np.ndarray | None, *, seed: int | None = None) -> np.ndarray:
    """float64 (27), read-only: a risk vector from a preset name of :func:`risk_ttt.preset_names`
    (seedable presets use ``seed``), 27 numbers (a sequence or text "0.1,0.2,..."), or None
    (classic: all 0). ValueError naming the bad entry."""
    if spec is None:
        return risk_preset("classic", n_cells=N_CELLS)
    if isinstance(spec, str):
        text = spec.strip()
        key = text.lower().replace("_", "-").replace(" ", "-")
        if key and not any(ch.isdigit() for ch in key):
            try:
                return risk_preset(key, n_cells=N_CELLS, seed=seed)
            except ValueError as e:
                raise ValueError(f"{e} (or give {N_CELLS} numbers in [0, 1])") from None
        return parse_risk(text, N_CELLS)
    return validate_risk(spec, N_CELLS)


RISK_CHOICES: tuple[str, ...] = tuple(n for n in preset_names() if n != "stochastic")
"""Presets that apply to 27 cells (the seed's "stochastic" vector has 9 entries)."""


# ====================================================================== the batch engine
Player = Callable[[np.ndarray, int], np.ndarray]
"""A player: ``(boards int8 (m, 27), mark to play) -> int64 (m) cells``, one empty cell per board."""


def random_moves(boards: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """int64 (m): a uniformly random empty cell of each board (the largest of i.i.d. keys)."""
    b = np.atleast_2d(boards)
    keys = rng.random(b.shape)
    keys[b != EMPTY] = -1.0
    return np.argmax(keys, axis=1)


def random_player(rng: np.random.Generator) -> Player:
    """The uniformly random player (a fresh closure over ``rng``)."""
    return lambda boards, mark: random_moves(boards, rng)


def tactical_moves(boards: np.ndarray, mark: int, rng: np.random.Generator) -> np.ndarray:
    """int64 (m): the tactical player's move on each board: a cell that completes one of ``mark``'s
    lines if there is one (win if it can), else a cell that completes one of the opponent's lines
    (block if it must), else any empty cell; uniformly at random within the chosen class. One key
    per cell from ``rng`` (the same draws as :func:`random_moves`): the class adds 4 (win) or 2
    (block) to the key, the largest wins. Its move distribution is known exactly, so it is a
    yardstick: it wins 60% as X and 40% as O against itself on the classic cube (issue 30)."""
    b = np.atleast_2d(boards)
    keys = rng.random(b.shape)
    keys += 4.0 * completing_cells(b, mark) + 2.0 * completing_cells(b, other(mark))
    keys[b != EMPTY] = -1.0
    return np.argmax(keys, axis=1)


def tactical_move(cells: np.ndarray, mark: int, rng: np.random.Generator) -> int:
    """:func:`tactical_moves` on one board (the training loop's fast path: the same classes and
    the same draws, one key per cell)."""
    keys = rng.random(N_CELLS)
    lines = cells[LINES]  # (49, 3)
    for mk, bonus in ((mark, 4.0), (other(mark), 2.0)):
        hot = ((lines == mk).sum(axis=1) == 2) & ((lines == EMPTY).sum(axis=1) == 1)
        if hot.any():
            sub = LINES[hot]
            keys[sub[cells[sub] == EMPTY]] += bonus
    keys[cells != EMPTY] = -1.0
    return int(np.argmax(keys))


def tactical_player(rng: np.random.Generator) -> Player:
    """The tactical player (win if it can, block if it must, else uniformly random; a fresh closure over ``rng``)."""
    return lambda boards, mark: tactical_moves(boards, mark, rng)


OPPONENTS: dict[str, str] = {
    "random": "uniformly random",
    "tactical": "tactical: wins if it can, blocks if it must, else uniformly random",
}
"""The scripted players (opponents of training and evaluation), by name."""


def scripted_player(name: str, rng: np.random.Generator) -> Player:
    """The scripted player ``name`` of :data:`OPPONENTS` over ``rng`` (ValueError naming the choices)."""
    if name == "random":
        return random_player(rng)
    if name == "tactical":
        return tactical_player(rng)
    raise ValueError(f"unknown opponent {name!r}; choose one of {', '.join(OPPONENTS)}")


def play_batch(
    x_player: Player,
    o_player: Player,
    *,
    risk: np.ndarray,
    games: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """int8 (games): the result of each of ``games`` games from the empty cube, all in lockstep:
    :data:`X` or :data:`O` for the winner, 0 for a draw. Each ply: the player to move picks a cell
    in every running game, one risk coin per game decides whose mark lands (the opponent's with
    probability ``risk[cell]``), and a game ends when that mark completes a line of its owner."""
    n = int(games)
    if n < 1:
        raise ValueError(f"the number of games must be at least 1, got {n}")
    p = validate_risk(risk, N_CELLS)
    boards = np.zeros((n, N_CELLS), dtype=np.int8)
    result = np.full(n, -1, dtype=np.int8)
    live = np.arange(n)
    mover = X
    for ply in range(N_CELLS):
        b = boards[live]
        cells = np.asarray((x_player if mover == X else o_player)(b, mover), dtype=np.int64)
        if cells.shape != (live.size,) or np.any(b[np.arange(live.size), cells] != EMPTY):
            raise ValueError(f"the {MARK_CHARS[mover]} player chose an occupied or out-of-range cell")
        flip = rng.random(live.size) < p[cells]
        marks = np.where(flip, other(mover), mover).astype(np.int8)
        boards[live, cells] = marks
        won = completes(boards[live], cells, marks)
        result[live[won]] = marks[won]
        if ply == N_CELLS - 1:
            result[live[~won]] = 0  # the cube is full: a draw (never happens, see the module docstring)
        live = live[~won]
        if live.size == 0:
            break
        mover = other(mover)
    return result


@dataclass(frozen=True)
class Score:
    """Results of games from one player's point of view, against an opponent."""

    games: int
    """Number of games played."""
    wins: int
    """Games the player won (a line of its mark, whoever's move placed it)."""
    draws: int
    """Games that filled the cube without a line."""
    losses: int
    """Games the opponent won."""
    seconds: float
    """Wall time of the games, seconds."""

    @property
    def win(self) -> float:
        """Fraction of games won."""
        return self.wins / self.games

    @property
    def draw(self) -> float:
        """Fraction of games drawn."""
        return self.draws / self.games

    @property
    def loss(self) -> float:
        """Fraction of games lost."""
        return self.losses / self.games

    def win_ci(self) -> tuple[float, float]:
        """Wilson 95% interval of the win rate."""
        from mdpviz.core.simulate import proportion_ci

        lo, hi = proportion_ci(self.wins, self.games)
        return float(lo), float(hi)


def play_vs(
    player: Player | str | None,
    *,
    opponent: str = "random",
    mark: str | int = "X",
    risk: np.ndarray,
    games: int,
    seed: int | np.random.Generator | None = None,
) -> Score:
    """Play ``games`` games of ``player`` holding ``mark`` against the scripted ``opponent`` of
    :data:`OPPONENTS`; the score from the player's side. ``player``: a :data:`Player`, or the name
    of a scripted player (None: "random"), so the yardsticks (random vs tactical, tactical vs
    tactical) are played by the same code as an agent. Both sides draw from the one seeded stream."""
    from mdpviz.core.chunked import check_games, run_chunks

    me = parse_mark(mark)
    games = check_games(games, "the number of games")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    t0 = time.perf_counter()
    mine = scripted_player(player or "random", rng) if player is None or isinstance(player, str) else player
    theirs = scripted_player(opponent, rng)
    tally = [0, 0]  # wins, draws

    def step(n: int) -> None:  # chunks of games: memory does not grow with ``games``
        res = play_batch(mine if me == X else theirs, theirs if me == X else mine, risk=risk, games=n, rng=rng)
        tally[0] += int(np.count_nonzero(res == me))
        tally[1] += int(np.count_nonzero(res == 0))

    run_chunks(games, step)
    secs = time.perf_counter() - t0
    wins, draws = tally
    return Score(games=games, wins=wins, draws=draws, losses=games - wins - draws, seconds=secs)


def play_vs_random(
    player: Player | None,
    *,
    mark: str | int = "X",
    risk: np.ndarray,
    games: int,
    seed: int | np.random.Generator | None = None,
) -> Score:
    """Play ``games`` games of ``player`` (None: the uniformly random player) holding ``mark``
    against the uniformly random opponent; the score from the player's side (:func:`play_vs`)."""
    return play_vs(player, opponent="random", mark=mark, risk=risk, games=games, seed=seed)


__all__ = [
    "CENTRE", "CUBE", "check_move", "play_move", "EMPTY", "LINES", "LINES_PER_CELL", "LINES_THROUGH", "N_CELLS", "N_LINES", "O",
    "Player", "RISK_CHOICES", "SEED_CHECKED", "Score", "X", "board", "board_text", "cell_coords",
    "completes", "completes_one", "completing_cells", "legal_moves", "line_kind", "line_owners",
    "OPPONENTS", "play_batch", "play_vs", "play_vs_random", "random_moves", "random_player", "scripted_player",
    "tactical_move", "tactical_moves", "tactical_player", "resolve_risk", "seed_missing_lines",
    "winner",
]
