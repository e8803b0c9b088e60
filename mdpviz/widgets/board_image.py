"""A big board painted as one picture (:class:`ImagePainting`, a part of
:class:`~mdpviz.widgets.board.BoardView`): issue 35 item 10, opening a 50,000-state course file spent
2.7 s of the GUI thread painting cells one by one (1.3 s of it outlines nobody could see on sub-pixel cells).

When a grid board has more than :data:`IMAGE_MIN_STATES` states, or its cells are narrower than
:data:`IMAGE_CELL_PX` pixels, every cell is one pixel of a ``QImage`` built with numpy from the colours
the frame's scale gave (:func:`~mdpviz.widgets.board.scale_rgb`, computed once per frame), drawn scaled
to the board's rectangle: no per-cell outlines, numbers or badges (they would not be readable), only the
selected cell and the episode token outlined. A point maps back to its state through the lattice
(:meth:`ImagePainting._image_state_at`), in O(1) instead of a scan of every cell.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QImage, QPainter

from mdpviz.widgets.geometry import BoardLayout

def _rgb_of(name: str) -> tuple[int, int, int]:
    c = QColor(name)
    return c.red(), c.green(), c.blue()


EMPTY_FILL = "#eeeeee"
"""A cell with no value to show (unsolved, or hidden in predict mode)."""
GOAL_FILL = "#fafafa"
"""A goal / terminal cell."""
UNVISITED_FILL, UNVISITED_HATCH = "#d9d9d9", "#8c8c8c"
"""A state a learner never visited: light grey, hatched in a darker grey (on no value scale)."""

IMAGE_MIN_STATES = 2000
"""Boards with more states than this are painted as one image (whatever the cells' size)."""
IMAGE_CELL_PX = 4.0
"""Boards whose cells are narrower than this (pixels) are painted as one image."""


@dataclass(frozen=True)
class Lattice:
    """Where the cells of a grid board sit: state of each lattice point (-1: none), row by row."""

    states: np.ndarray
    """int64 (rows, cols): the state drawn at lattice point (col, row), -1 where there is no cell."""
    x0: float
    """Board x of column 0's centre."""
    y0: float
    """Board y of row 0's centre."""
    size: float
    """Side of every cell, board units."""


def lattice_of(layout: BoardLayout) -> Lattice | None:
    """The lattice of a grid layout whose cells all have one size and sit on integer steps from the first
    (what :func:`~mdpviz.widgets.geometry.grid_layout` makes), else None (drawn cell by cell). Computed
    once per (frozen) layout, kept on it: the job that reads a big file computes it off the GUI thread."""
    if "_lattice" not in layout.__dict__:
        layout.__dict__["_lattice"] = _lattice_of(layout)
    return layout.__dict__["_lattice"]


def _lattice_of(layout: BoardLayout) -> Lattice | None:
    cells = layout.cells
    if layout.kind != "grid" or not cells or layout.arrows:
        return None
    size = cells[0].size
    xy = np.array([(c.x, c.y, c.size, c.state) for c in cells], dtype=np.float64)
    if not np.all(xy[:, 2] == size):
        return None
    cx = xy[:, 0] - xy[:, 0].min()
    cy = xy[:, 1] - xy[:, 1].min()
    ix, iy = np.rint(cx).astype(np.int64), np.rint(cy).astype(np.int64)
    if not (np.allclose(cx, ix) and np.allclose(cy, iy)):
        return None
    states = np.full((int(iy.max()) + 1, int(ix.max()) + 1), -1, dtype=np.int64)
    states[iy, ix] = xy[:, 3].astype(np.int64)
    return Lattice(states, float(xy[:, 0].min()), float(xy[:, 1].min()), float(size))


class ImagePainting:
    """The one-image path of :class:`~mdpviz.widgets.board.BoardView` (uses its layout, frame, colours
    ``_rgb``, decorations, predict and unvisited marks, and ``_paint_outlines``); each pixel is the
    colour :meth:`~mdpviz.widgets.board.BoardView.cell_color` gives its cell."""

    image_paints = 0
    """How many paints went through the image path (tests read it; no timing)."""

    def _lattice(self) -> Lattice | None:
        """The current layout's lattice (computed once per layout)."""
        return lattice_of(self.layout_)

    def uses_image(self) -> bool:
        """The board is painted as one image now (big, or cells too small for anything but colour)."""
        lat = self._lattice()
        if lat is None:
            return False
        if len(self.layout_.cells) > IMAGE_MIN_STATES:
            return True
        s = self._transform()[0]
        return s * lat.size < IMAGE_CELL_PX

    def _image_rgba(self, lat: Lattice) -> np.ndarray:
        """uint8 (rows, cols, 4): each cell's fill colour (the frame's scale; empty, goal, hidden or
        unvisited cells as :meth:`cell_color` draws them), transparent where there is no cell."""
        rows, cols = lat.states.shape
        out = np.zeros((rows, cols, 4), dtype=np.uint8)
        cell_state = lat.states
        has = cell_state >= 0
        n = len(self.layout_.cells)
        rgb = np.empty((n, 3), dtype=np.uint8)
        empty = np.ones(n, dtype=bool)  # no value on the scale (no frame, or a terminal state)
        frame = self.frame
        if frame is not None and self._rgb.shape[0] > 0:
            m = min(n, self._rgb.shape[0], frame.fill.size)
            rgb[:m] = self._rgb[:m]
            empty[:m] = np.isnan(np.asarray(frame.fill[:m], dtype=np.float64))
        goal = np.zeros(n, dtype=bool)
        for s, d in self.decor.items():  # (decorations: a few cells, or the terminal states)
            if d.goal and 0 <= s < n:
                goal[s] = True
        hidden = np.zeros(n, dtype=bool)
        if self.predict:  # as cell_color: a hidden cell is empty unless it is a goal
            hidden[:] = True
            shown = [s for s in self.revealed if 0 <= s < n]
            hidden[shown] = False
        rgb[empty & goal] = _rgb_of(GOAL_FILL)
        rgb[empty & ~goal] = _rgb_of(EMPTY_FILL)
        rgb[hidden & ~goal] = _rgb_of(EMPTY_FILL)
        if self.unvisited is not None:
            u = np.zeros(n, dtype=bool)
            k = min(n, self.unvisited.size)
            u[:k] = self.unvisited[:k]
            rgb[u] = _rgb_of(UNVISITED_FILL)
        idx = np.where(has, cell_state, 0)
        out[..., :3] = rgb[np.clip(idx, 0, n - 1)]
        out[..., 3] = np.where(has, 255, 0)
        return out

    def _paint_image(self, p: QPainter, s: float, ox: float, oy: float) -> None:
        """The whole board as one image scaled to its rectangle, then the selection and the token."""
        lat = self._lattice()
        assert lat is not None
        self.image_paints += 1
        rgba = np.ascontiguousarray(self._image_rgba(lat))
        rows, cols = lat.states.shape
        img = QImage(rgba.data, cols, rows, cols * 4, QImage.Format.Format_RGBA8888)
        h = lat.size / 2
        # each lattice step is one board unit; the image spans the cells' outer edges
        target = QRectF(ox + s * (lat.x0 - h), oy + s * (lat.y0 - h),
                        s * ((cols - 1) + lat.size), s * ((rows - 1) + lat.size))
        p.drawImage(target, img)
        cells = self.layout_.cells
        for state in {self.selected, self.token} - {None}:
            if 0 <= state < len(cells) and cells[state].state == state:
                c = cells[state]
                rect = QRectF(ox + s * (c.x - h), oy + s * (c.y - h), s * c.size, s * c.size)
                self._paint_outlines(p, c, rect, rect.width(), small=True)

    def _image_state_at(self, x: float, y: float) -> int | None:
        """The state under board point (x, y) through the lattice (O(1))."""
        lat = self._lattice()
        assert lat is not None
        col, row = int(np.rint(x - lat.x0)), int(np.rint(y - lat.y0))
        rows, cols = lat.states.shape
        if not (0 <= row < rows and 0 <= col < cols):
            return None
        if abs(x - lat.x0 - col) > lat.size / 2 or abs(y - lat.y0 - row) > lat.size / 2:
            return None
        state = int(lat.states[row, col])
        return None if state < 0 else state
