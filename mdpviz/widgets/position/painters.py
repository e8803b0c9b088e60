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
    """``layers`` grids of ``size`` x ``size`` side by side (cell = layer * size^2 + row * size + col)."""

    def __init__(self, size: int = 3, layers: int = 3, *, gap: float = 0.25) -> None:
        super().__init__(size)
        self.layers = int(layers)
        self.gap = float(gap)
        """Space between layers, as a fraction of a cell."""

    def cell_rects(self, rect: QRectF, n_cells: int) -> list[QRectF]:
        n, k = self.size, self.layers
        top = 18.0  # room for the layer titles
        area = rect.adjusted(0, top, 0, 0)
        cols = n * k + self.gap * (k - 1)
        side = min(area.width() / cols, area.height() / n)
        x0 = area.left() + (area.width() - side * cols) / 2
        y0 = area.top() + (area.height() - side * n) / 2
        out = []
        for c in range(n_cells):
            layer, rest = divmod(c, n * n)
            row, col = divmod(rest, n)
            x = x0 + (layer * (n + self.gap) + col) * side
            out.append(QRectF(x, y0 + row * side, side, side))
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

