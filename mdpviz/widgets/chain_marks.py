"""The inspector's chain of backups drawn on a board: each state of the chain outlined in its own
colour with its place in the chain ("1", "2", ...; :func:`~mdpviz.models.kit.pictures.chain.outline_labels`)
in a disc on the cell's top edge. One painter for the cell boards and the grid worlds' canvas."""
from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPen

CHAIN = "#000000"
"""The chain's outlines and number discs (white numbers): black, as the inspected state's thicker
outline (the chain leads to it); every Okabe-Ito colour already says something on the boards (the
squares' types, the successors' sky blue, the token's purple), and the numbers carry the order."""
MIN_DISC = 20.0
"""The least height of a number's disc in pixels (its text at 12 px bold: readable at 1280 x 720)."""


def paint_chain_mark(p: QPainter, rect: QRectF, label: str, *, line_scale: float = 1.0, text_scale: float = 1.0,
                     font: QFont | None = None, corner: bool = False) -> QRectF:
    """Outline the cell ``rect`` and write ``label`` (its place in the chain) in a disc centred on its
    top edge (half outside: the value in the middle and the corners' marks stay clear), or with
    ``corner`` inside its top right corner (a grid world's cells touch: nothing is free above them);
    ``text_scale``: presenter mode's factor on the disc. Returns the disc's rectangle (for tests)."""
    side = min(rect.width(), rect.height())
    w = max(2.0, side * 0.025) * max(1.0, line_scale) ** 0.5
    p.save()
    p.setPen(QPen(QColor(CHAIN), w))
    p.setBrush(Qt.BrushStyle.NoBrush)
    p.drawRect(rect.adjusted(w / 2, w / 2, -w / 2, -w / 2))
    d = max(MIN_DISC * text_scale, side * (0.3 if corner else 0.24))
    f = QFont(font) if font is not None else QFont()
    f.setPixelSize(max(12, int(d * 0.62)))
    f.setBold(True)
    p.setFont(f)
    bw = max(d, p.fontMetrics().horizontalAdvance(label) + d * 0.5)
    disc = (QRectF(rect.right() - w - bw - 1, rect.top() + w + 1, bw, d) if corner else
            QRectF(rect.center().x() - bw / 2, rect.top() - d / 2, bw, d))
    p.setPen(QPen(QColor("#ffffff"), 1.5))
    p.setBrush(QColor(CHAIN))
    p.drawRoundedRect(disc, d / 2, d / 2)
    p.setPen(QColor("#ffffff"))
    p.drawText(disc, Qt.AlignmentFlag.AlignCenter, label)
    p.restore()
    return disc


def chain_plot_items(labels: dict[int, str], where: Callable[[int], tuple[float, float]], *,
                     anchor: tuple[float, float] = (0.5, 0.5)) -> list[Any]:
    """The chain's numbers on a pyqtgraph plot (the gambler's capitals, Jack's cells): one
    ``pg.TextItem`` per state of ``labels`` at the data point ``where(state)``, white bold on black
    (:data:`CHAIN`), for the caller to add to its plot (and remove when the chain changes)."""
    import pyqtgraph as pg

    items = []
    for s, label in labels.items():
        item = pg.TextItem(label, color="w", anchor=anchor, fill=pg.mkBrush(CHAIN), border=pg.mkPen("w", width=1))
        f = QFont(item.textItem.font())
        f.setBold(True)
        f.setPixelSize(14)
        item.setFont(f)
        item.setPos(*where(int(s)))
        item.setZValue(20)
        items.append(item)
    return items


__all__ = ["CHAIN", "MIN_DISC", "chain_plot_items", "paint_chain_mark"]
