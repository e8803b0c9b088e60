"""Where board cells and arrows go: pure functions in abstract board units, no Qt.

A :class:`BoardLayout` lists cells (one per drawn state, centre and size in board units) and
arrows between them. The board widget only maps board units to pixels (:func:`fit_transform`)
and paints; hit tests (:func:`cell_at`) and arrow end points (:func:`arrow_points`) are computed
here, so they are tested without a display.

Boards:

* :func:`snakes_layout`: the snakes-and-ladders board of the course statement, squares 1..15 with
  the junction at 3, the slow lane 4..10 below and the fast lane 11..14 above, joining at 15.
  Its arrows come from ``mdpviz.models.snakes.next_squares`` (the rules module), passed in.
* :func:`grid_layout`: any MDP as a grid of state cells, row by row.
* :func:`graph_layout`: an MDP with at most :data:`GRAPH_MAX_STATES` states as a circle of
  cells with arrows weighted by transition probability.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable, Sequence

import numpy as np

if TYPE_CHECKING:  # numpy-only model; imported for the annotation only
    from mdpviz.core.mdp import TabularMDP

GRAPH_MAX_STATES = 30
"""The graph view is offered up to this many states (beyond, arrows are unreadable)."""

CELL = 0.86
"""Side of a cell in board units (cells sit on a unit lattice, so 0.14 is the gap)."""


@dataclass(frozen=True)
class Cell:
    """One drawn cell."""

    state: int
    """The MDP state it shows (snakes: square - 1)."""
    x: float
    """Centre, board units (x grows to the right)."""
    y: float
    """Centre, board units (y grows downwards)."""
    size: float = CELL
    """Side of the square cell, board units."""
    label: str = ""
    """Its name as printed on the cell (square number, state index)."""


@dataclass(frozen=True)
class Arrow:
    """One arrow between two cells (or a loop when ``src == dst``)."""

    src: int
    """Index of the source cell in ``BoardLayout.cells``."""
    dst: int
    """Index of the target cell in ``BoardLayout.cells``."""
    weight: float = 1.0
    """Probability (0..1) the arrow stands for; drawn as its width and opacity."""
    bend: float = 0.0
    """Sideways offset of the curve's control point, as a fraction of the arrow's length."""
    dashed: bool = False
    """Drawn dashed (figure 11.1's dashed action; solid otherwise)."""


@dataclass(frozen=True)
class BoardLayout:
    """Cells and arrows of a board in board units."""

    cells: tuple[Cell, ...]
    """Every drawn cell."""
    arrows: tuple[Arrow, ...] = ()
    """Arrows between cells."""
    kind: str = "grid"
    """"snakes", "grid" or "graph"."""
    glyph_room: float = 0.0
    """Height under each cell kept free for its policy glyph (board units; 0: glyphs go in the cell)."""
    legend: tuple[float, float, float, float] | None = None
    """A free rectangle (x0, y0, x1, y1, board units) for the legend of the policy glyphs, or None."""

    def bounds(self) -> tuple[float, float, float, float]:
        """(x0, y0, x1, y1) enclosing every cell and the room under it for glyphs, board units."""
        cached = self.__dict__.get("_bounds")
        if cached is not None:  # a frozen layout: computed once (every paint and hover asks)
            return cached
        if not self.cells:
            return (0.0, 0.0, 1.0, 1.0)
        x0 = min(c.x - c.size / 2 for c in self.cells)
        y0 = min(c.y - c.size / 2 for c in self.cells)
        x1 = max(c.x + c.size / 2 for c in self.cells)
        y1 = max(c.y + c.size / 2 for c in self.cells) + self.glyph_room
        self.__dict__["_bounds"] = (x0, y0, x1, y1)
        return (x0, y0, x1, y1)

    def glyph_rect(self, cell: Cell) -> tuple[float, float, float, float]:
        """(x0, y0, x1, y1) of the policy glyph of ``cell`` (board units): a square under the cell
        when the layout keeps room for one, else the cell's lower right corner."""
        h = cell.size / 2
        if self.glyph_room > 0:
            g = min(self.glyph_room * 0.85, cell.size * 0.62)
            top = cell.y + h + (self.glyph_room - g) / 2
            return (cell.x - g / 2, top, cell.x + g / 2, top + g)
        g = cell.size * 0.34
        return (cell.x + h - g - cell.size * 0.05, cell.y + h - g - cell.size * 0.05,
                cell.x + h - cell.size * 0.05, cell.y + h - cell.size * 0.05)

    def index_of_state(self) -> dict[int, int]:
        """state -> index in ``cells``."""
        return {c.state: i for i, c in enumerate(self.cells)}


# ---------------------------------------------------------------------------------- snakes board
SNAKES_ROW = 1.5
"""Distance between the snakes board's rows (board units): under each square there is room for its
policy glyph (a die face, :data:`GLYPH_ROOM`)."""

GLYPH_ROOM = 0.6
"""Height (board units) under each cell of a board with policy glyphs (the snakes die faces)."""

SNAKES_POSITIONS: dict[int, tuple[float, float]] = {
    1: (0.0, SNAKES_ROW), 2: (1.0, SNAKES_ROW), 3: (2.0, SNAKES_ROW),
    **{sq: (float(sq - 1), 2 * SNAKES_ROW) for sq in range(4, 11)},
    11: (3.0, 0.0), 12: (5.0, 0.0), 13: (7.0, 0.0), 14: (9.0, 0.0),
    15: (10.5, SNAKES_ROW),
}
"""Centre of each square (1..15): start row in the middle, slow lane below, fast lane above
(its four squares spread over the slow lane's span: it is the short cut), goal on the right."""

SNAKES_LEGEND = (-0.43, -0.43, 2.35, SNAKES_ROW - CELL / 2 - 0.12)
"""Where the snakes board draws its dice legend (x0, y0, x1, y1, board units): above squares 1-3,
left of the fast lane, clear of every arrow."""


def snakes_layout(next_squares: Callable[[int], Iterable[int]], *, n_squares: int = 15) -> BoardLayout:
    """The snakes-and-ladders board: cell i is square i+1 (state i); arrows from ``next_squares``."""
    if n_squares != len(SNAKES_POSITIONS):
        raise ValueError(f"the snakes board has {len(SNAKES_POSITIONS)} squares, got n_squares={n_squares}")
    cells = tuple(Cell(sq - 1, *SNAKES_POSITIONS[sq], label=str(sq)) for sq in range(1, n_squares + 1))
    arrows = []
    for sq in range(1, n_squares + 1):
        for nxt in next_squares(sq):
            if not 1 <= nxt <= n_squares:
                raise ValueError(f"next_squares({sq}) gave square {nxt}, outside 1..{n_squares}")
            arrows.append(Arrow(sq - 1, nxt - 1))
    return BoardLayout(cells, tuple(arrows), "snakes", glyph_room=GLYPH_ROOM, legend=SNAKES_LEGEND)


# ---------------------------------------------------------------------------------- any MDP
def grid_shape(n: int, *, aspect: float = 1.6) -> tuple[int, int]:
    """(rows, cols) of a grid for n cells, about ``aspect`` times wider than tall."""
    if n < 1:
        raise ValueError(f"a grid needs at least one cell, got {n}")
    cols = max(1, min(n, math.ceil(math.sqrt(n * aspect))))
    rows = math.ceil(n / cols)
    return rows, cols


def grid_layout(n_states: int, *, labels: Sequence[str] | None = None, aspect: float = 1.6) -> BoardLayout:
    """States 0..n-1 as a grid, row by row, labelled with their index (or ``labels``).

    Without ``labels`` the layout is cached (the same frozen object for the same size): a big file's
    is built once, on the job thread that read the file (:func:`warm_grid_layout`), not on the GUI
    thread, where 50,000 cells took 0.3 s plus the collections of their garbage (issue 35 item 10)."""
    if labels is None:
        return _plain_grid_layout(n_states, aspect)
    return _grid_layout(n_states, labels, aspect)


@functools.lru_cache(maxsize=4)
def _plain_grid_layout(n_states: int, aspect: float) -> BoardLayout:
    return _grid_layout(n_states, None, aspect)


def warm_grid_layout(n_states: int) -> BoardLayout:
    """Build (and cache) the plain grid layout of ``n_states`` cells and its bounds, off the GUI thread."""
    layout = grid_layout(n_states)
    layout.bounds()
    return layout


def _grid_layout(n_states: int, labels: Sequence[str] | None, aspect: float) -> BoardLayout:
    _, cols = grid_shape(n_states, aspect=aspect)
    cells = tuple(
        Cell(s, float(s % cols), float(s // cols), label=(labels[s] if labels else str(s))) for s in range(n_states)
    )
    return BoardLayout(cells, (), "grid")


def graph_layout(
    n_states: int,
    edges: Iterable[tuple[int, int, float]],
    *,
    labels: Sequence[str] | None = None,
) -> BoardLayout:
    """States on a circle (state 0 at the top, clockwise) with arrows ``(src, dst, weight)``.

    The radius keeps neighbouring cells 1.5 units apart. Arrows between two states in both
    directions are bent apart so that neither hides the other.
    """
    if n_states > GRAPH_MAX_STATES:
        raise ValueError(f"the graph view shows at most {GRAPH_MAX_STATES} states, this model has {n_states}")
    if n_states < 1:
        raise ValueError("the graph view needs at least one state")
    r = max(1.2, 1.5 * n_states / (2 * math.pi)) if n_states > 1 else 0.0
    cells = tuple(
        Cell(
            s,
            r * math.sin(2 * math.pi * s / n_states),
            -r * math.cos(2 * math.pi * s / n_states),
            size=0.8,
            label=(labels[s] if labels else str(s)),
        )
        for s in range(n_states)
    )
    e = [(int(a), int(b), float(w)) for a, b, w in edges]
    pairs = {(a, b) for a, b, _ in e}
    arrows = tuple(Arrow(a, b, w, 0.18 if a != b and (b, a) in pairs else 0.0) for a, b, w in e)
    return BoardLayout(cells, arrows, "graph")


def policy_edges(
    mdp: "TabularMDP",
    policy: np.ndarray | None,
    *,
    min_weight: float = 1e-9,
) -> list[tuple[int, int, float]]:
    """Arrows of a graph view: probability of s -> s' under the policy's action in s.

    With ``policy`` None (nothing solved yet) each state's actions count equally (the uniform
    random policy); terminal states (policy -1) have no arrows. Duplicate transitions are summed;
    arrows below ``min_weight`` are dropped. Returns (src, dst, probability) sorted by (src, dst).
    """
    n_states = mdp.n_states
    state_ptr, row_action, row_ptr, dst, prob = mdp.state_ptr, mdp.row_action, mdp.row_ptr, mdp.dst, mdp.prob
    state_ptr = np.asarray(state_ptr, dtype=np.int64)
    row_ptr = np.asarray(row_ptr, dtype=np.int64)
    counts = np.diff(state_ptr)
    row_state = np.repeat(np.arange(n_states), counts)
    if policy is None:
        row_w = 1.0 / counts[row_state]
    else:
        pol = np.asarray(policy, dtype=np.int64)
        row_w = (np.asarray(row_action) == pol[row_state]).astype(np.float64)
    row_w = np.where(np.asarray(mdp.terminal)[row_state], 0.0, row_w)  # terminal states absorb: no arrows
    t_row = np.repeat(np.arange(row_ptr.size - 1), np.diff(row_ptr))
    src = row_state[t_row]
    dst = np.asarray(dst, dtype=np.int64)
    w = row_w[t_row] * np.asarray(prob, dtype=np.float64)
    key = src * n_states + dst
    uniq, inv = np.unique(key, return_inverse=True)
    tot = np.bincount(inv.ravel(), weights=w, minlength=uniq.size)
    keep = tot >= min_weight
    return [(int(k // n_states), int(k % n_states), float(p)) for k, p in zip(uniq[keep], tot[keep])]


# ---------------------------------------------------------------------------------- drawing helpers
def fit_transform(
    bounds: tuple[float, float, float, float], width: float, height: float, *, margin: float = 8.0
) -> tuple[float, float, float]:
    """(scale, ox, oy) mapping board units to pixels: px = ox + scale * x, centred, aspect kept."""
    x0, y0, x1, y1 = bounds
    bw, bh = max(x1 - x0, 1e-9), max(y1 - y0, 1e-9)
    s = max(min((width - 2 * margin) / bw, (height - 2 * margin) / bh), 1e-6)
    ox = (width - s * bw) / 2 - s * x0
    oy = (height - s * bh) / 2 - s * y0
    return s, ox, oy


def cell_at(layout: BoardLayout, x: float, y: float) -> int | None:
    """The state of the cell containing board point (x, y), or None."""
    for c in layout.cells:
        h = c.size / 2
        if abs(x - c.x) <= h and abs(y - c.y) <= h:
            return c.state
    return None


def arrow_points(a: Cell, b: Cell, *, bend: float = 0.0, gap: float = 0.02) -> tuple[
    tuple[float, float], tuple[float, float], tuple[float, float]
]:
    """(start, control, end) of the arrow from cell a to cell b, board units.

    Start and end lie on the cells' borders (plus ``gap``) along the line between the centres;
    ``control`` is the quadratic curve's control point, offset sideways by ``bend`` times the
    distance between the centres (0: straight, the control point is the midpoint).
    """
    dx, dy = b.x - a.x, b.y - a.y
    d = math.hypot(dx, dy)
    if d == 0:
        raise ValueError("arrow_points needs two different cells (draw a loop for src == dst)")
    ux, uy = dx / d, dy / d
    nx, ny = uy, -ux  # to the left of the direction of travel (y down)
    mx, my = (a.x + b.x) / 2 + bend * d * nx, (a.y + b.y) / 2 + bend * d * ny

    def exit_point(c: Cell, tx: float, ty: float) -> tuple[float, float]:
        vx, vy = tx - c.x, ty - c.y
        m = max(abs(vx), abs(vy))
        if m == 0:
            return c.x, c.y
        t = (c.size / 2 + gap) / m
        return c.x + vx * t, c.y + vy * t

    return exit_point(a, mx, my), (mx, my), exit_point(b, mx, my)


def arrow_head(tip: tuple[float, float], frm: tuple[float, float], *, size: float = 0.12) -> tuple[
    tuple[float, float], tuple[float, float], tuple[float, float]
]:
    """The three corners of an arrow head at ``tip`` pointing away from ``frm`` (board units)."""
    dx, dy = tip[0] - frm[0], tip[1] - frm[1]
    d = math.hypot(dx, dy) or 1.0
    ux, uy = dx / d, dy / d
    bx, by = tip[0] - size * ux, tip[1] - size * uy
    w = size * 0.55
    return tip, (bx + w * uy, by - w * ux), (bx - w * uy, by + w * ux)


def wrap_caption(text: str, width: float, advance: Callable[[str], float],
                 elide: Callable[[str, float], str]) -> list[str]:
    """``text`` in at most two lines of ``width`` pixels: itself when it fits, else broken at the last
    space that lets the first line fit, the rest on the second line (elided with ``elide`` only if it
    is still too wide). ``advance``: the pixel width of a string in the caption's font."""
    if advance(text) <= width:
        return [text]
    words = text.split(" ")
    for k in range(len(words) - 1, 0, -1):
        first = " ".join(words[:k])
        if advance(first) <= width:
            rest = " ".join(words[k:])
            return [first, rest if advance(rest) <= width else elide(rest, width)]
    return [elide(text, width)]
