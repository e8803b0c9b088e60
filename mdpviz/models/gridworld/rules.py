"""Grid worlds: the textbook's first MDP, in both of its conventions.

A grid world is a rectangle of cells, each open, a wall, or an exit that pays a reward; one open
cell is the start. The agent picks north, east, south or west; with probability 1 - noise it
moves that way, and with probability noise/2 each it slips to one of the two perpendicular
directions. A move into a wall or off the edge leaves it where it is. Every move from an open
cell pays the living reward (negative: a cost of living; positive: a reason never to leave), or the
cell's own reward where the map gives it one (AIMA's R(s) per square).

Three conventions are in use, and each is built here (``convention``):

* ``cs188`` (Berkeley CS188's ``gridworld.py``): an exit cell is an ordinary state with one
  action, "exit", which pays the exit's reward and moves to one absorbing "exited" state. So an
  exit cell's value is its reward, and an episode takes one step more than it visits cells.
* ``aima`` (Russell and Norvig, *Artificial Intelligence: A Modern Approach*, ch. 17): every
  state has a reward R(s) (the living reward for open cells, the exit's reward for exit cells)
  and the exit cells are terminal states that absorb. The utility obeys U(s) = R(s) + gamma
  max_a sum_s' P(s' | s, a) U(s') (AIMA eq. 17.5) with U(terminal) = R(terminal). In the
  one-representation MDP a terminal state's value is 0, so a transition s -> s' pays
  R(s) + gamma R(s') when s' is terminal and R(s) otherwise; then V(s) = U(s) exactly for every
  non-terminal s, and the board shows U = R(s) on the terminal cells.

* ``sutton`` (Sutton and Barto's mazes, chapter 8): exit cells are terminal, and the move into one pays
  the exit's number undiscounted (the maze's "+1 on reaching the goal"), so an exit's value is gamma^-1
  times AIMA's and an episode's steps are the moves made.

The first two conventions give the same values for the same map and settings (the exit step of
CS188 is the gamma R(s') of AIMA); they differ in what a student sees: an "exit" action and one
more step per episode, or terminal states that end the episode on entry.

A world can change while it is learned (Sutton and Barto 8.3): ``switch_map`` names a second map of the
same size with its exits in the same cells, which replaces the first after ``switch_after`` real steps
of a learner (:mod:`mdpviz.solvers.dyna`). Both maps are then compiled over the same states: every cell
open in either map, a cell walled in one of them being a state there that no move enters (its moves stay
in it, reward 0), drawn as the wall it is.

Built-in maps are CS188's layouts (``gridworld.py``: getBookGrid, getBridgeGrid,
getDiscountGrid, getCliffGrid, getMazeGrid), Sutton and Barto's 4x4 grid and the mazes of chapter 8 (the
Dyna maze of figure 8.2, the blocking and shortcut mazes of figures 8.4 and 8.5, each before and after its
change); :func:`parse_grid` reads a map from a small text
file: one row per line, cells separated by spaces: ``#`` a wall, ``S`` the start (an open cell),
``.`` an open cell, a number an exit paying that reward, and ``.`` or ``S`` followed by a signed
number (``.-0.5``, ``.+0.5``, ``S-0.1``) an open cell with its own reward, which replaces the living
reward for the moves from it (CS188: the reward of leaving the cell; AIMA: its R(s)). The sign is
required because a bare ``.5`` already reads as a number, an exit worth 0.5. Lines starting with
``;`` are comments. Example (the book's 4x3 world)::

    . . . +1
    . # . -1
    S . . .

and aima-python's third environment (``tests/test_mdp.py``: R(s) of -0.1, -0.5 and +0.5 on different
squares; its terminal squares are exits)::

    -1   .    .    .    .    .+0.5
    S    #    #    .-0.5 .   .
    .    #    +1   +3   #    .
    .    .    .    #    #    .
    .+0.5 .   .    .    .    -1

This module is numpy only; it never imports Qt.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Sequence

import numpy as np

from mdpviz.models.kit.game.codec import FieldError
from mdpviz.models.kit.pictures.display import best_actions
from mdpviz.core.files import read_bytes_limited
from mdpviz.core.mdp import TabularMDP
from mdpviz.models.kit.boards.grid import GridGeometry  # noqa: F401

WALL = "#"
"""A wall cell in a :class:`GridMap`."""
OPEN = "."
"""An open cell in a :class:`GridMap`."""

NORTH, EAST, SOUTH, WEST, EXIT = 0, 1, 2, 3, 4
"""Action ids of the grid world (EXIT only in the cs188 convention)."""
ACTION_NAMES: tuple[str, ...] = ("north", "east", "south", "west", "exit")
"""Name of each action id."""
MOVES: dict[int, tuple[int, int]] = {NORTH: (-1, 0), EAST: (0, 1), SOUTH: (1, 0), WEST: (0, -1)}
"""(row step, column step) of each move; row 0 is the top row."""
ARROWS: dict[str, str] = {"north": "\u2191", "east": "\u2192", "south": "\u2193", "west": "\u2190"}
"""The arrow drawn for each direction."""
CONVENTIONS: tuple[str, ...] = ("cs188", "aima", "sutton")
"""``cs188``: exit cells have one "exit" action; ``aima``: exit cells are terminal states with reward R(s);
``sutton``: exit cells are terminal and the move into one pays its number (Sutton and Barto's mazes)."""
CONVENTION_NAMES: dict[str, str] = {
    "cs188": "CS188: an exit cell's one action \u201cexit\u201d pays its reward",
    "aima": "Russell-Norvig: reward R(s) per state, exit cells are terminal",
    "sutton": "Sutton-Barto: the move into an exit pays its number, exit cells are terminal",
}
"""One line per convention, for the window and the lesson."""

CONVENTION_RULES: dict[str, str] = {
    "cs188": "CS188 (Berkeley's gridworld.py): an exit cell is a state with one action, \u201cexit\u201d, which pays "
             "the exit's reward and moves to an absorbing \u201cexited\u201d state, so an exit cell's value is its "
             "reward and an episode takes one step more than it visits cells.",
    "aima": "Russell and Norvig (AIMA ch. 17): every state has a reward R(s) (the living reward, or an exit's "
            "number) and exit cells are terminal states that absorb on entry; U(s) = R(s) + \u03b3 max_a "
            "\u03a3 P(s\u2032 | s, a) U(s\u2032) with U(terminal) = R(terminal).",
    "sutton": "Sutton and Barto (the mazes of chapter 8): exit cells are terminal states, and the move into one "
              "pays the exit's number (with the living reward of the cell left), undiscounted; a terminal state's "
              "value is 0.",
}
"""Each convention in a full sentence, for the lesson."""

MAX_CELLS = 10_000
"""Largest grid (rows x columns) a map may have: a typo never builds a huge model."""
MAX_FILE_BYTES = 1_000_000
"""Largest map file read."""


class GridFileError(ValueError):
    """A map that cannot be used; ``str()`` names the file and line (``file:line: problem``)."""


Cell = float | str
"""One cell of a map: WALL, OPEN, an open cell with its own reward (:func:`reward_cell`, e.g. ".-0.5")
or an exit's reward (a float)."""


def is_open(x: Cell) -> bool:
    """An open cell: OPEN, or an open cell with its own reward."""
    return isinstance(x, str) and x.startswith(OPEN)


def reward_cell(reward: float) -> str:
    """The open cell whose moves pay ``reward`` (its own R(s)): "." and the signed number, as maps write it."""
    return OPEN + _fmt_reward(reward)


def own_reward(x: Cell) -> float | None:
    """The reward of an open cell that has its own (:func:`reward_cell`), else None."""
    if isinstance(x, str) and len(x) > 1 and x.startswith(OPEN) and x[1] in "+-":
        try:
            return float(x[1:])
        except ValueError:
            return None
    return None


def move_reward(x: Cell, living_reward: float) -> float:
    """The reward of a move from the open cell ``x``: its own reward, or else the living reward."""
    r = own_reward(x)
    return float(living_reward) if r is None else r


@dataclass(frozen=True)
class GridMap:
    """The cells of a grid world and its start (the rules are in :class:`GridSettings`)."""

    cells: tuple[tuple[Cell, ...], ...]
    """Rows from the top; each cell is "#" (wall), "." (open), "." with a signed number (open, with
    its own reward: :func:`reward_cell`) or a float (an exit's reward)."""
    start: tuple[int, int]
    """(row, column) of the start cell, row 0 at the top."""
    name: str = ""
    """A name for titles ("book", a file's name)."""

    @property
    def rows(self) -> int:
        """Number of rows."""
        return len(self.cells)

    @property
    def cols(self) -> int:
        """Number of columns."""
        return len(self.cells[0]) if self.cells else 0

    def cell(self, r: int, c: int) -> Cell:
        return self.cells[r][c]

    def is_exit(self, r: int, c: int) -> bool:
        return not isinstance(self.cells[r][c], str)

    def validate(self, where: str = "grid") -> "GridMap":
        """Self, or GridFileError naming what is wrong (ragged rows, no start, a start on a wall ...)."""
        if not self.cells or not self.cells[0]:
            raise GridFileError(f"{where}: the grid has no cells")
        w = len(self.cells[0])
        for i, row in enumerate(self.cells):
            if len(row) != w:
                raise GridFileError(f"{where}: row {i + 1} has {len(row)} cells, the first row has {w}")
            for j, x in enumerate(row):
                if isinstance(x, str):
                    if x not in (WALL, OPEN) and own_reward(x) is None:
                        raise GridFileError(f"{where}: row {i + 1}, column {j + 1}: unknown cell {x!r}")
                    r = own_reward(x)
                    if r is not None and not math.isfinite(r):
                        raise GridFileError(f"{where}: row {i + 1}, column {j + 1}: reward {x[1:]!r} is not a "
                                            "finite number")
                elif isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
                    raise GridFileError(f"{where}: row {i + 1}, column {j + 1}: exit reward {x!r} is not a finite number")
        if self.rows * w > MAX_CELLS:
            raise GridFileError(f"{where}: {self.rows} x {w} cells is more than the {MAX_CELLS:,} a grid may have")
        r, c = self.start
        if not (0 <= r < self.rows and 0 <= c < w):
            raise GridFileError(f"{where}: the start ({r}, {c}) is outside the {self.rows} x {w} grid")
        if not is_open(self.cells[r][c]):
            raise GridFileError(f"{where}: the start (row {r + 1}, column {c + 1}) must be an open cell")
        if not any(not isinstance(x, str) for row in self.cells for x in row):
            raise GridFileError(f"{where}: the grid has no exit (a number): episodes would never end")
        return self

    def with_cell(self, r: int, c: int, value: Cell) -> "GridMap":
        """A copy with cell (r, c) set to ``value`` (not validated)."""
        rows = [list(row) for row in self.cells]
        rows[r][c] = float(value) if not isinstance(value, str) else value
        return replace(self, cells=tuple(tuple(row) for row in rows))

    def to_text(self) -> str:
        """The map in the text-file format of :func:`parse_grid`."""
        lines = []
        for i, row in enumerate(self.cells):
            toks = []
            for j, x in enumerate(row):
                if (i, j) == self.start:
                    toks.append("S" + x[1:])  # "S" and the start cell's own reward, if it has one
                elif isinstance(x, str):
                    toks.append(x)
                else:
                    toks.append(_fmt_reward(x))
            lines.append(" ".join(toks))
        return "\n".join(lines) + "\n"


def _fmt_reward(x: float) -> str:
    x = float(x)
    s = f"{x:+g}" if x == int(x) and abs(x) < 1e15 else repr(x)
    return s if s[0] in "+-" else ("+" + s if x >= 0 else s)


def _map(rows: Sequence[Sequence[object]], name: str) -> GridMap:
    """A GridMap from CS188's list-of-rows notation (' ' open, '#' wall, 'S' start, numbers exits)."""
    start = None
    cells = []
    for i, row in enumerate(rows):
        out: list[Cell] = []
        for j, x in enumerate(row):
            if x == "S":
                start = (i, j)
                out.append(OPEN)
            elif x == " ":
                out.append(OPEN)
            elif x == "#":
                out.append(WALL)
            else:
                out.append(float(x))  # type: ignore[arg-type]
        cells.append(tuple(out))
    assert start is not None
    return GridMap(tuple(cells), start, name).validate(name)


BUILTIN_MAPS: dict[str, GridMap] = {
    # CS188 gridworld.py getBookGrid: Russell and Norvig's 4x3 world (AIMA fig. 17.1).
    "book": _map([[" ", " ", " ", +1],
                  [" ", "#", " ", -1],
                  ["S", " ", " ", " "]], "book"),
    # getBridgeGrid: a narrow bridge between two cliffs, 1 behind, 10 across.
    "bridge": _map([["#", -100, -100, -100, -100, -100, "#"],
                    [1, "S", " ", " ", " ", " ", 10],
                    ["#", -100, -100, -100, -100, -100, "#"]], "bridge"),
    # getDiscountGrid: a close exit worth 1 and a distant one worth 10, a cliff of -10 below.
    "discount": _map([[" ", " ", " ", " ", " "],
                      [" ", "#", " ", " ", " "],
                      [" ", "#", 1, "#", 10],
                      ["S", " ", " ", " ", " "],
                      [-10, -10, -10, -10, -10]], "discount"),
    # getCliffGrid: the cliff (-100) along the bottom, the goal 10 at the far end of the start row.
    "cliff": _map([[" ", " ", " ", " ", " "],
                   ["S", " ", " ", " ", 10],
                   [-100, -100, -100, -100, -100]], "cliff"),
    # getMazeGrid: a small maze to the +1 in the top right corner.
    "maze": _map([[" ", " ", " ", +1],
                  ["#", "#", " ", "#"],
                  [" ", "#", " ", " "],
                  [" ", "#", "#", " "],
                  ["S", " ", " ", " "]], "maze"),
    # Sutton and Barto's Example 4.1: the 4x4 grid, terminal corners (reward 0: the -1 of every move is
    # the living reward), cells numbered 1..14 in reading order as in the book (MAP_SETTINGS sets the rest).
    "sutton4x4": _map([[0, "S", " ", " "],
                       [" ", " ", " ", " "],
                       [" ", " ", " ", " "],
                       [" ", " ", " ", 0]], "sutton4x4"),
    # Sutton and Barto figure 8.2: the Dyna maze, 6 x 9, start (2, 0), goal (0, 8) (rows from the top)
    "dyna": _map([[" ", " ", " ", " ", " ", " ", " ", "#", 1],
                  [" ", " ", "#", " ", " ", " ", " ", "#", " "],
                  ["S", " ", "#", " ", " ", " ", " ", "#", " "],
                  [" ", " ", "#", " ", " ", " ", " ", " ", " "],
                  [" ", " ", " ", " ", " ", "#", " ", " ", " "],
                  [" ", " ", " ", " ", " ", " ", " ", " ", " "]], "dyna"),
    # figure 8.4: the blocking maze, the way round the barrier on its right; after 1,000 steps on its left
    "blocking": _map([[" "] * 8 + [1], [" "] * 9, [" "] * 9, ["#"] * 8 + [" "], [" "] * 9,
                      [" "] * 3 + ["S"] + [" "] * 5], "blocking"),
    "blocking-after": _map([[" "] * 8 + [1], [" "] * 9, [" "] * 9, [" "] + ["#"] * 8, [" "] * 9,
                            [" "] * 3 + ["S"] + [" "] * 5], "blocking-after"),
    # figure 8.5: the shortcut maze, the way round on the left; after 3,000 steps a shortcut opens on the right
    "shortcut": _map([[" "] * 8 + [1], [" "] * 9, [" "] * 9, [" "] + ["#"] * 8, [" "] * 9,
                      [" "] * 3 + ["S"] + [" "] * 5], "shortcut"),
    "shortcut-after": _map([[" "] * 8 + [1], [" "] * 9, [" "] * 9, [" "] + ["#"] * 7 + [" "], [" "] * 9,
                            [" "] * 3 + ["S"] + [" "] * 5], "shortcut-after"),
}
"""CS188's layouts (gridworld.py: getBookGrid, getBridgeGrid, getDiscountGrid, getCliffGrid, getMazeGrid),
Sutton and Barto's 4x4 grid of Example 4.1 ("sutton4x4") and the mazes of its chapter 8 ("dyna", "blocking",
"shortcut", and the latter two after their change: "blocking-after", "shortcut-after")."""

_MAZE = {"convention": "sutton", "noise": 0.0, "living_reward": 0.0, "discount": 0.95}
"""The book's mazes (section 8.2): deterministic moves, +1 on reaching the goal, 0 otherwise, discount 0.95."""

MAP_SETTINGS: dict[str, dict[str, object]] = {
    "sutton4x4": {"convention": "aima", "noise": 0.0, "living_reward": -1.0, "discount": 1.0},
    "dyna": dict(_MAZE),
    "blocking": {**_MAZE, "switch_map": "blocking-after", "switch_after": 1000},
    "blocking-after": dict(_MAZE),
    "shortcut": {**_MAZE, "switch_map": "shortcut-after", "switch_after": 3000},
    "shortcut-after": dict(_MAZE),
}
"""What choosing a built-in map also sets (they stay editable): Example 4.1's terminal corners
(AIMA's terminal exits, worth 0), reward -1 on every move, no slipping, no discount; the chapter 8 mazes'
rules, and for the blocking and shortcut mazes their change (figures 8.4-8.5: after 1,000 and 3,000 steps)."""

NUMBERED_MAPS: frozenset[str] = frozenset({"sutton4x4"})
"""Maps whose open cells show their state number (the book's numbering of Example 4.1: 1..14)."""


def with_map(settings: "GridSettings", grid: GridMap) -> "GridSettings":
    """``settings`` with map ``grid`` and what choosing that built-in map sets (:data:`MAP_SETTINGS`)."""
    extra = {"switch_map": "", "switch_after": 0, **MAP_SETTINGS.get(grid.name, {})}
    return replace(settings, grid=grid, **extra)  # type: ignore[arg-type]


def parse_grid(text: str, path: str = "<grid>") -> GridMap:
    """A map from the text format (module docstring); GridFileError "path:line: problem" otherwise."""
    rows: list[tuple[Cell, ...]] = []
    lines: list[int] = []
    start: tuple[int, int] | None = None
    start_line = 0
    for ln, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith(";"):
            continue
        cells: list[Cell] = []
        for j, tok in enumerate(line.split()):
            if tok == WALL:
                cells.append(WALL)
            elif tok in (OPEN, "_"):
                cells.append(OPEN)
            elif tok[0] in ".Ss" and len(tok) > 1 and tok[1] in "+-":  # an open cell with its own reward
                x = own_reward(OPEN + tok[1:])
                if x is None or not math.isfinite(x):
                    raise GridFileError(f"{path}:{ln}: cell {j + 1} {tok!r}: the reward after {tok[0]!r} is not a "
                                        "finite number")
                if tok[0] in "Ss":
                    if start is not None:
                        raise GridFileError(f"{path}:{ln}: a second start 'S' (the first is on line {start_line})")
                    start, start_line = (len(rows), j), ln
                cells.append(reward_cell(x))
            elif tok.upper() == "S":
                if start is not None:
                    raise GridFileError(f"{path}:{ln}: a second start 'S' (the first is on line {start_line})")
                start, start_line = (len(rows), j), ln
                cells.append(OPEN)
            else:
                try:
                    x = float(tok)
                except ValueError:
                    raise GridFileError(f"{path}:{ln}: cell {j + 1} {tok!r} is not '#' (wall), 'S' (start), "
                                        "'.' (open), a number (an exit's reward) or '.' with a signed number "
                                        "(an open cell's own reward, e.g. .-0.5)") from None
                if not math.isfinite(x):
                    raise GridFileError(f"{path}:{ln}: cell {j + 1}: exit reward {tok!r} is not a finite number")
                cells.append(x)
        if rows and len(cells) != len(rows[0]):
            raise GridFileError(f"{path}:{ln}: this row has {len(cells)} cells, the first row (line {lines[0]}) "
                                f"has {len(rows[0])}")
        if len(rows) * len(cells) > MAX_CELLS:
            raise GridFileError(f"{path}:{ln}: more than {MAX_CELLS:,} cells: too large for a grid world")
        rows.append(tuple(cells))
        lines.append(ln)
    if not rows:
        raise GridFileError(f"{path}:1: no rows: a grid has one row per line ('#' wall, 'S' start, '.' open, "
                            "numbers for exits)")
    if start is None:
        raise GridFileError(f"{path}:{lines[0]}: no start cell 'S'")
    if not any(not isinstance(x, str) for row in rows for x in row):
        raise GridFileError(f"{path}:{lines[0]}: no exit (a number): episodes would never end")
    name = Path(path).stem if path and not path.startswith("<") else "custom"
    return GridMap(tuple(rows), start, name)


def read_grid(path: str | Path) -> GridMap:
    """:func:`parse_grid` of a file; GridFileError naming the file when it is missing, too large or not text."""
    data = read_bytes_limited(path, MAX_FILE_BYTES, lambda problem: GridFileError(f"{path}: {problem}"),
                              what="grid map", stop_at_nul=True)
    if b"\0" in data:
        raise GridFileError(f"{path}: is a binary file, not a grid map")
    try:
        text = data.decode("utf-8-sig")  # a byte-order mark (Windows editors) is dropped, as every reader does
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise GridFileError(f"{path}:{line}: not UTF-8 text") from None
    return parse_grid(text, str(path))


def load_map(name_or_path: str) -> GridMap:
    """A built-in map by name (book, bridge, discount, cliff, maze) or a map file."""
    key = str(name_or_path).strip().lower().removesuffix("grid")
    if key in BUILTIN_MAPS:
        return BUILTIN_MAPS[key]
    p = Path(name_or_path)
    if not p.exists():
        raise GridFileError(f"{name_or_path}: no such map file (built-in maps: {', '.join(BUILTIN_MAPS)})")
    return read_grid(p)


# ---------------------------------------------------------------------------------- settings, compiler
@dataclass(frozen=True)
class GridSettings:
    """Everything that defines a grid world MDP."""

    grid: GridMap = field(default_factory=lambda: BUILTIN_MAPS["book"])
    """The cells, exits and start."""
    noise: float = 0.2
    """Probability of slipping: noise/2 to each side of the intended direction (CS188's default 0.2)."""
    living_reward: float = 0.0
    """Reward of every move from an open cell (AIMA's R(s) of non-terminal states; -0.04 in AIMA fig. 17.3)."""
    discount: float = 0.9
    """Discount gamma (CS188's default 0.9; AIMA's 4x3 figures use 1)."""
    convention: str = "cs188"
    """"cs188" (exit action), "aima" (terminal states with a reward R(s)) or "sutton" (terminal exits, the move
    into one pays its number)."""
    switch_map: str = ""
    """A built-in map the world changes to after ``switch_after`` real steps of a learner (same size, exits in
    the same cells; Sutton and Barto 8.3); "": the world never changes."""
    switch_after: int = 0
    """Real steps of a learner after which the world becomes ``switch_map`` (0: never)."""

    def validate(self) -> "GridSettings":
        """Self, or ValueError naming the bad field (a :class:`~mdpviz.models.kit.game.codec.FieldError`)."""
        for name in ("noise", "living_reward", "discount"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise FieldError(name, f"must be a finite number, got {v!r}")
        if not 0.0 <= self.noise <= 1.0:
            raise FieldError("noise", f"must be in [0, 1], got {self.noise}")
        if not 0.0 <= self.discount <= 1.0:
            raise FieldError("discount", f"must be in [0, 1], got {self.discount}")
        if self.convention not in CONVENTIONS:
            raise FieldError("convention", f"must be {' or '.join(CONVENTIONS)}, got {self.convention!r}")
        if self.discount == 1.0 and self.living_reward > 0:
            # AIMA 17.1: "if R(s) > 0 ... the agent avoids both exits": an agent that bumps into a wall
            # forever collects reward forever, so no value is finite.
            raise FieldError("discount", f"a positive living reward ({self.living_reward:g}) with discount 1 makes "
                             "the values infinite (the agent never leaves): use a discount below 1", subject="")
        own = [r for row in self.grid.cells for x in row if (r := own_reward(x)) is not None and r > 0]
        if self.discount == 1.0 and own:
            raise FieldError("discount", f"a cell's positive reward ({own[0]:g}) with discount 1 makes the values "
                             "infinite (the agent can stay there for ever): use a discount below 1", subject="")
        self.grid.validate(self.grid.name or "grid")
        if isinstance(self.switch_after, bool) or not isinstance(self.switch_after, int) or self.switch_after < 0:
            raise FieldError("switch_after", f"must be a whole number of steps >= 0, got {self.switch_after!r}")
        if not isinstance(self.switch_map, str):
            raise FieldError("switch_map", f"must be a built-in map's name or empty, got {self.switch_map!r}")
        switch_grid(self)
        return self




def switch_grid(settings: "GridSettings") -> GridMap | None:
    """The map the world changes to (``switch_map``), or None; FieldError naming ``switch_map`` when it is not a
    built-in map, differs in size or has its exits elsewhere."""
    name = settings.switch_map.strip().lower()
    if not name:
        return None
    if name not in BUILTIN_MAPS:
        raise FieldError("switch_map", f"{settings.switch_map!r} is not a built-in map ({', '.join(BUILTIN_MAPS)})")
    g, h = settings.grid, BUILTIN_MAPS[name]
    if (g.rows, g.cols) != (h.rows, h.cols):
        raise FieldError("switch_map", f"{name} is {h.rows} x {h.cols}, the map is {g.rows} x {g.cols}: the world "
                         "after the change must be the same size")
    exits = lambda m: {(r, c) for r in range(m.rows) for c in range(m.cols) if m.is_exit(r, c)}  # noqa: E731
    if exits(g) != exits(h):
        raise FieldError("switch_map", f"{name} has its exits in other cells than the map: the world after the "
                         "change must keep them where they are")
    return h


@dataclass(frozen=True, eq=False)
class GridWorld:
    """A compiled grid world: the MDP and where its states are."""

    settings: GridSettings
    """What was compiled."""
    mdp: TabularMDP
    """The MDP (states: open and exit cells in reading order, then CS188's "exited" state)."""
    geometry: GridGeometry
    """Cells <-> states."""
    start_state: int
    """State of the start cell."""
    after: "GridWorld | None" = None
    """The world after its change (``switch_map``, over the same states), or None."""


def _step(grid: GridMap, r: int, c: int, action: int) -> tuple[int, int]:
    dr, dc = MOVES[action]
    nr, nc = r + dr, c + dc
    if 0 <= nr < grid.rows and 0 <= nc < grid.cols and grid.cells[nr][nc] != WALL:
        return nr, nc
    return r, c


def move_outcomes(grid: GridMap, r: int, c: int, action: int, noise: float) -> list[tuple[tuple[int, int], float]]:
    """Where a move from (r, c) ends: [((row, col), probability)], duplicates summed, zeros dropped.

    The intended direction with probability 1 - noise, each perpendicular one with noise/2
    (CS188 gridworld.py getTransitionStatesAndProbs; AIMA fig. 17.1 with noise 0.2)."""
    side = (WEST, EAST) if action in (NORTH, SOUTH) else (NORTH, SOUTH)
    out: dict[tuple[int, int], float] = {}
    for a, p in ((action, 1.0 - noise), (side[0], noise / 2.0), (side[1], noise / 2.0)):
        if p > 0:
            cell = _step(grid, r, c, a)
            out[cell] = out.get(cell, 0.0) + p
    return list(out.items())


def compile_gridworld(settings: GridSettings) -> GridWorld:
    """The grid world's MDP in the chosen convention (module docstring); ValueError on bad settings. With a
    ``switch_map``, both maps over the same states (every cell open in either), the second as ``after``."""
    valid = settings.validate()
    h = switch_grid(valid)
    layout = None
    if h is not None:
        g = valid.grid
        layout = tuple(tuple(g.cells[r][c] != WALL or h.cells[r][c] != WALL for c in range(g.cols))
                       for r in range(g.rows))
    world = _compile(valid, valid.grid, layout)
    if h is None:
        return world
    after = _compile(valid, replace(h, start=valid.grid.start), layout)
    return replace(world, after=after)


def _compile(valid: GridSettings, g: GridMap, layout: tuple[tuple[bool, ...], ...] | None) -> GridWorld:
    """Map ``g`` under ``valid``'s rules; ``layout`` (True: a state) keeps a cell walled in ``g`` as a state
    no move enters (the world before or after a change), None: the open cells of ``g``."""
    aima = valid.convention == "aima"
    ends = valid.convention != "cs188"  # exits are terminal states
    state = np.full((g.rows, g.cols), -1, dtype=np.int64)  # cell -> state (walls of g: -1)
    num = np.full((g.rows, g.cols), -1, dtype=np.int64)  # cell -> state of the layout
    labels: list[str] = []
    n = 0
    for r in range(g.rows):
        for c in range(g.cols):
            if (g.cells[r][c] != WALL) if layout is None else layout[r][c]:
                num[r, c] = n
                x = g.cells[r][c]
                own = own_reward(x)
                labels.append(f"({r + 1},{c + 1})" + ("" if isinstance(x, str) else f" exit {_fmt_reward(x)}")
                              + ("" if own is None else f" R {_fmt_reward(own)}"))
                if x != WALL:
                    state[r, c] = n
                n += 1
    done = -1
    if not ends:
        done = n
        labels.append("exited")
        n += 1
    src: list[int] = []
    act: list[int] = []
    dst: list[int] = []
    prob: list[float] = []
    rew: list[float] = []
    terminal: list[int] = []
    gamma = valid.discount
    for r in range(g.rows):
        for c in range(g.cols):
            x = g.cells[r][c]
            s = int(num[r, c])
            if s < 0:
                continue
            if x == WALL:  # walled in this map, open in the other: its moves stay in it (no move enters it)
                for a in (NORTH, EAST, SOUTH, WEST):
                    src.append(s), act.append(a), dst.append(s), prob.append(1.0), rew.append(0.0)
                continue
            if not isinstance(x, str):  # an exit
                if ends:
                    terminal.append(s)
                else:
                    src.append(s), act.append(EXIT), dst.append(done), prob.append(1.0), rew.append(float(x))
                continue
            for a in (NORTH, EAST, SOUTH, WEST):
                for (nr, nc), p in move_outcomes(g, r, c, a, valid.noise):
                    d = int(num[nr, nc])
                    y = g.cells[nr][nc]
                    reward = move_reward(x, valid.living_reward)  # CS188: leaving the cell; AIMA: R(s)
                    if ends and not isinstance(y, str):
                        reward += gamma * float(y) if aima else float(y)  # AIMA: U(terminal) = R(terminal), one step on
                    src.append(s), act.append(a), dst.append(d), prob.append(p), rew.append(reward)
    if not ends:
        terminal.append(done)
    mdp = TabularMDP.from_transitions(
        n, len(ACTION_NAMES) if not ends else 4, src, act, dst, prob, rew, discount=gamma, terminal=terminal,
        state_labels=labels, action_labels=ACTION_NAMES if not ends else ACTION_NAMES[:4], mdptype="episodic",
    )
    kind = tuple(tuple("wall" if x == WALL else ("open" if isinstance(x, str) else "exit") for x in row)
                 for row in g.cells)
    numbered = g.name in NUMBERED_MAPS
    label = tuple(tuple(_fmt_reward(x) if not isinstance(x, str) else
                        ("R " + _fmt_reward(own_reward(x)) if own_reward(x) is not None else
                         (str(int(state[r, c])) if numbered and x == OPEN else ""))
                        for c, x in enumerate(row)) for r, row in enumerate(g.cells))
    fixed = {(r, c): float(g.cells[r][c]) for r in range(g.rows) for c in range(g.cols)
             if aima and not isinstance(g.cells[r][c], str)}
    geom = GridGeometry(g.rows, g.cols, state, kind, label, dict(MOVES), None if ends else EXIT, g.start, fixed)
    return GridWorld(valid, mdp, geom, int(state[g.start]))


# ---------------------------------------------------------------------------------- printing
def cell_value(geom: GridGeometry, values: np.ndarray, r: int, c: int) -> float | None:
    """The value drawn on cell (r, c): V of its state, U = R(s) on an AIMA terminal, None for a wall."""
    s = int(geom.state[r, c])
    if s < 0:
        return None
    if (r, c) in geom.fixed:
        return geom.fixed[(r, c)]
    return float(values[s])


def value_rows(geom: GridGeometry, values: np.ndarray) -> list[list[float | None]]:
    """Values as rows from the top, None for walls (JSON's null)."""
    return [[cell_value(geom, values, r, c) for c in range(geom.cols)] for r in range(geom.rows)]


def policy_rows(geom: GridGeometry, mdp: TabularMDP, policy: np.ndarray) -> list[list[str | None]]:
    """The policy as rows from the top: an arrow per move, "exit", another action's name, or None
    (walls, terminal states)."""
    out: list[list[str | None]] = []
    for r in range(geom.rows):
        row: list[str | None] = []
        for c in range(geom.cols):
            s = int(geom.state[r, c])
            # terminal states, and the cells where a Gymnasium episode has already ended (FrozenLake's
            # holes and goal), have no move worth drawing
            ended = geom.kind[r][c] == "exit" and geom.exit_action is None
            if s < 0 or mdp.terminal[s] or policy[s] < 0 or ended:
                row.append(None)
                continue
            a = int(policy[s])
            d = geom.direction(a)
            if d in ARROWS:
                row.append(ARROWS[d])
            elif d == "exit":
                row.append("exit")
            else:
                row.append(mdp.action_labels[a] if mdp.action_labels else str(a))
        out.append(row)
    return out


def format_rows(rows: Sequence[Sequence[object]], *, digits: int = 3) -> str:
    """Rows as aligned text columns (walls and None blank)."""
    cells = [["" if x is None else (f"{x:.{digits}f}" if isinstance(x, float) else str(x)) for x in row]
             for row in rows]
    width = max((len(x) for row in cells for x in row), default=1)
    return "\n".join(" ".join(x.rjust(width) for x in row).rstrip() for row in cells)


def q_by_direction(geom: GridGeometry, mdp: TabularMDP, values: np.ndarray) -> dict[int, dict[str, float]]:
    """Q(s, a) of every move of every state on the grid, by direction (CS188's four triangles per
    cell): {state: {"north": q, ...}}; an exit cell gets {"exit": q}."""
    q = mdp.q_values(np.asarray(values, dtype=np.float64)).tolist()
    on_grid = np.zeros(mdp.n_states, dtype=bool)
    on_grid[geom.state[geom.state >= 0]] = True
    live = (on_grid & ~mdp.terminal).tolist()
    names = {a: geom.direction(a) for a in range(mdp.n_actions)}
    out: dict[int, dict[str, float]] = {}
    for row, (s, a) in enumerate(zip(mdp.row_state.tolist(), mdp.row_action.tolist())):
        name = names[a]
        if name and live[s]:
            out.setdefault(s, {})[name] = q[row]
    return out


# ---------------------------------------------------------------------------------- display data
def best_directions(q: dict[str, float], objective: str = "max") -> set[str]:
    """The directions of ``q`` (one cell's Q by direction, see :func:`q_by_direction`) whose Q is the
    best, within the solvers' tie tolerance (:func:`~mdpviz.models.kit.pictures.display.best_actions`)."""
    names = list(q)
    return {d for d, b in zip(names, best_actions([q[d] for d in names], objective)) if b}


MIN_ARROW_PX = 24.0
"""Arrows are at least this long (pixels) wherever a cell can hold them (readable on a projector)."""


def grid_color_range(lo: float, hi: float, shown: list[float] | tuple[float, ...] = ()) -> tuple[float, float, bool]:
    """(low, high, diverging) of the colour scale over [lo, hi] joined with the ``shown`` values:
    symmetric about 0 (diverging) when it spans both signs, else [low, high] (sequential)."""
    vals = [float(lo), float(hi), *(float(x) for x in shown)]
    a, b = min(vals), max(vals)
    if a < 0 < b:
        m = max(-a, b)
        return -m, m, True
    if a == b:
        return (a - 0.5, b + 0.5, False) if a != 0 else (0.0, 1.0, False)
    return a, b, False


def arrow_geometry(side: float) -> tuple[float, float]:
    """(start offset, length) of a policy arrow from a cell's centre, in pixels: at least
    MIN_ARROW_PX long when the cell is wide enough, never past the cell's edge."""
    length = max(0.3 * side, min(MIN_ARROW_PX, 0.42 * side))
    start = max(0.06 * side, 0.47 * side - length)
    return start, length


def state_name(geom: GridGeometry | None, convention: str, s: int) -> str:
    """A state in words: "(row r, col c)" for a cell (1-based), "exited" for CS188's absorbing state."""
    cell = None if geom is None else geom.cell_of(s)
    if cell is None:
        return "exited" if convention == "cs188" else str(s)
    return f"(row {cell[0] + 1}, col {cell[1] + 1})"


def next_cell(x: Cell, exit_reward: float) -> Cell:
    """The cell after ``x`` when the board's edit mode cycles it: open (with or without its own reward) ->
    wall -> exit (``exit_reward``) -> open."""
    return WALL if is_open(x) else (float(exit_reward) if x == WALL else OPEN)


def describe_cell(x: Cell) -> str:
    """A cell in words, for an edit's undo text: "wall", "open" or "exit +1"."""
    own = own_reward(x)
    return ("wall" if x == WALL else "open" if x == OPEN else f"open, reward {own:+g}" if own is not None
            else f"exit {float(x):+g}")


# ---------------------------------------------------------------------------------- scenario codec


__all__ = ['MAP_SETTINGS', 'NUMBERED_MAPS', 'with_map', 'ACTION_NAMES', 'ARROWS', 'BUILTIN_MAPS', 'CONVENTIONS', 'CONVENTION_NAMES', 'EAST', 'EXIT', 'GridFileError', 'GridGeometry', 'GridMap', 'GridSettings', 'GridWorld', 'MOVES', 'NORTH', 'OPEN', 'SOUTH', 'WALL', 'WEST', 'CONVENTION_RULES', 'cell_value', 'compile_gridworld', 'format_rows', 'load_map', 'move_outcomes', 'parse_grid', 'policy_rows', 'q_by_direction', 'read_grid', 'value_rows', 'MIN_ARROW_PX', 'arrow_geometry', 'best_directions', 'describe_cell', 'next_cell', 'grid_color_range', 'state_name',
           'is_open', 'move_reward', 'own_reward', 'reward_cell', 'switch_grid']
