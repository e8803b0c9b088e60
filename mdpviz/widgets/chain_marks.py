"""The inspector's chain of backups drawn on a board: each state of the chain outlined in its own
colour with its place in the chain ("1", "2", ...; :func:`~mdpviz.models.kit.chain.outline_labels`)
in a disc at the top of the cell. One painter for the cell boards and the grid worlds' canvas."""
from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPen

CHAIN = "#d55e00"
"""Okabe-Ito vermillion: the chain's outlines and numbers (apart from the inspected state's black,
the successors' sky blue and the changed cells' dashed magenta)."""
MIN_DISC = 20.0
"""The least height of a number's disc in pixels (its text at 12 px bold: readable at 1280 x 720)."""


def paint_chain_mark(p: QPainter, rect: QRectF, label: str, *, line_scale: float = 1.0, font: QFont | None = None) -> QRectF:
    """Outline the cell ``rect`` and write ``label`` (its place in the chain) in a disc at its top
    centre; returns the disc's rectangle (for tests)."""
    side = min(rect.width(), rect.height())
    w = max(3.0, side * 0.05) * max(1.0, line_scale) ** 0.5
    p.save()
    p.setPen(QPen(QColor(CHAIN), w))
    p.setBrush(Qt.BrushStyle.NoBrush)
    p.drawRect(rect.adjusted(w / 2, w / 2, -w / 2, -w / 2))
    d = max(MIN_DISC, side * 0.24)
    f = QFont(font) if font is not None else QFont()
    f.setPixelSize(max(12, int(d * 0.62)))
    f.setBold(True)
    p.setFont(f)
    bw = max(d, p.fontMetrics().horizontalAdvance(label) + d * 0.5)
    disc = QRectF(rect.center().x() - bw / 2, rect.top() + w * 0.5, bw, d)
    p.setPen(QPen(QColor("#ffffff"), 1.5))
    p.setBrush(QColor(CHAIN))
    p.drawRoundedRect(disc, d / 2, d / 2)
    p.setPen(QColor("#ffffff"))
    p.drawText(disc, Qt.AlignmentFlag.AlignCenter, label)
    p.restore()
    return disc


__all__ = ["CHAIN", "MIN_DISC", "paint_chain_mark"]
