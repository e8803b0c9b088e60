"""How a board game's cells are laid out and its pieces drawn (the position board's painters).

* :class:`BoardPainter`: the default (a square grid, X and O marks);
* :class:`GridPainter`: a ``size`` x ``size`` grid;
* :class:`LayersPainter`: ``layers`` grids side by side (the 3D cube).
"""
from __future__ import annotations

import math

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen

X_COLOR = "#0072b2"
"""Colour of X marks (Okabe-Ito blue)."""
O_COLOR = "#d55e00"
"""Colour of O marks (Okabe-Ito vermillion)."""
GREEDY_COLOR = "#000000"
"""Outline of the greedy move (with a white inner line so it reads on every viridis colour)."""
LAST_MOVE = "#cc79a7"
"""Outline of the cell of the last move (Okabe-Ito reddish purple)."""
ORIGIN_COLOR = "#56b4e9"
"""Outline of the selected piece (two-click moves) (Okabe-Ito sky blue)."""
LEGAL_FILL = "#e4e4e4"
"""Fill of a legal cell without a value (before any sweep, hidden, or a model's move)."""


# ---------------------------------------------------------------------------------- painters
class BoardPainter:
    """How a game's board looks: where the cells are, their base colour, the pieces."""

    def cell_rects(self, rect: QRectF, n_cells: int) -> list[QRectF]:
        """Where each cell is drawn inside ``rect`` (also used for hit-testing): default a square grid."""
        side = max(1, int(round(math.sqrt(n_cells))))
        return _grid_rects(rect, side, side, n_cells)

    def paint_background(self, qp: QPainter, rect: QRectF, cells: list[QRectF]) -> None:
        """Anything under the cells (frames, labels)."""

    def cell_base(self, cell: int) -> QColor:
        """Fill of a cell that shows no value."""
        return QColor("#ffffff")

    def paint_piece(self, qp: QPainter, r: QRectF, cell: int, code: int) -> None:
        """Draw the piece with code ``code`` (non-zero) on cell rectangle ``r``: default X (1) and O (2)."""
        pad = r.width() * 0.22
        inner = r.adjusted(pad, pad, -pad, -pad)
        w = max(2.0, r.width() * 0.08)
        if code == 1:
            qp.setPen(QPen(QColor(X_COLOR), w, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
            qp.drawLine(inner.topLeft(), inner.bottomRight())
            qp.drawLine(inner.topRight(), inner.bottomLeft())
        elif code == 2:
            qp.setPen(QPen(QColor(O_COLOR), w))
            qp.setBrush(Qt.BrushStyle.NoBrush)
            qp.drawEllipse(inner)

    def paint_overlay(self, qp: QPainter, cells: list[QRectF]) -> None:
        """Anything over the cells and their values (e.g. risk gauges), under the greedy mark."""

    def cell_name(self, cell: int) -> str:
        """The name of a cell in tooltips."""
        return f"cell {cell}"


def _grid_rects(rect: QRectF, rows: int, cols: int, n: int, *, gap: float = 0.0) -> list[QRectF]:
    side = min(rect.width() / cols, rect.height() / rows)
    x0 = rect.left() + (rect.width() - side * cols) / 2
    y0 = rect.top() + (rect.height() - side * rows) / 2
    return [QRectF(x0 + (i % cols) * side + gap, y0 + (i // cols) * side + gap, side - 2 * gap, side - 2 * gap)
            for i in range(n)]


class GridPainter(BoardPainter):
    """A ``size`` x ``size`` grid (cell = row * size + col), X and O marks."""

    def __init__(self, size: int = 3) -> None:
        self.size = int(size)

    def cell_rects(self, rect: QRectF, n_cells: int) -> list[QRectF]:
        return _grid_rects(rect, self.size, self.size, n_cells)

    def cell_name(self, cell: int) -> str:
        return f"cell {cell} (row {cell // self.size + 1}, column {cell % self.size + 1})"


class LayersPainter(GridPainter):
    """``layers`` grids of ``size`` x ``size`` (cell = layer * size^2 + row * size + col): side by side
    where the room is wide (a projector's short board tab), in rows of fewer layers where it is taller
    (two over one for the cube on a laptop), whichever gives the larger cells."""

    TITLE = 18.0
    """Room above each row of layers for their titles (px)."""

    def __init__(self, size: int = 3, layers: int = 3, *, gap: float = 0.25) -> None:
        super().__init__(size)
        self.layers = int(layers)
        self.gap = float(gap)
        """Space between layers, as a fraction of a cell."""

    def arrangement(self, rect: QRectF) -> tuple[int, float]:
        """(layers per row, cell side in px) that make the cells largest in ``rect`` (ties: more per row)."""
        n, k = self.size, max(1, self.layers)
        best = (k, 0.0)
        for per_row in range(k, 0, -1):
            rows = -(-k // per_row)
            cols = n * per_row + self.gap * (per_row - 1)
            tall = n * rows + self.gap * (rows - 1)
            side = min(rect.width() / cols, (rect.height() - self.TITLE * rows) / tall)
            if side > best[1] + 1e-9:
                best = (per_row, side)
        return best

    def cell_rects(self, rect: QRectF, n_cells: int) -> list[QRectF]:
        n, k = self.size, max(1, self.layers)
        per_row, side = self.arrangement(rect)
        side = max(side, 1.0)
        rows = -(-k // per_row)
        block = (n + self.gap) * side  # one layer and the gap after it
        height = rows * (n * side + self.TITLE) + (rows - 1) * self.gap * side
        y0 = rect.top() + (rect.height() - height) / 2
        out = []
        for c in range(n_cells):
            layer, rest = divmod(c, n * n)
            row, col = divmod(rest, n)
            band, slot = divmod(layer, per_row)
            in_band = min(per_row, k - band * per_row)  # a last row of fewer layers is centred
            width = in_band * n * side + (in_band - 1) * self.gap * side
            x = rect.left() + (rect.width() - width) / 2 + slot * block + col * side
            y = y0 + band * (n * side + self.TITLE + self.gap * side) + self.TITLE + row * side
            out.append(QRectF(x, y, side, side))
        return out

    def paint_background(self, qp: QPainter, rect: QRectF, cells: list[QRectF]) -> None:
        n = self.size
        qp.setPen(QColor("#333333"))
        for layer in range(self.layers):
            first = cells[layer * n * n] if layer * n * n < len(cells) else None
            if first is None:
                break
            qp.drawText(QRectF(first.left(), first.top() - 18, first.width() * n, 16),
                        Qt.AlignmentFlag.AlignCenter, f"layer {layer + 1}")

    def cell_name(self, cell: int) -> str:
        n = self.size
        layer, rest = divmod(cell, n * n)
        return f"cell {cell} (layer {layer + 1}, row {rest // n + 1}, column {rest % n + 1})"

