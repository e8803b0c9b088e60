"""What a cell board draws of ties and endless policies (:class:`TiesPainting`, a part of
:class:`~mdpviz.widgets.board.BoardView`): every optimal action where several tie (the solver's pick
solid, the others outlined: dice side by side under a snakes square, badges in a row in a cell), the
states the drawn policy never ends from (an infinity sign), and the legend line under the board. The
tied sets and the endless states come with the frame (:mod:`mdpviz.models.kit.pictures.ties`); this only paints.
"""
from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen

from mdpviz.models.kit.pictures.ties import board_legend
from mdpviz.widgets.geometry import wrap_caption

ENDLESS = "#e69f00"  # Okabe-Ito orange: a state the drawn policy never ends from
ENDLESS_MARK = "\u221e"
"""The mark of a state the drawn policy never ends from (discount 1), on the board and in its legend."""


class TiesPainting:
    """The tie and endless marks of :class:`~mdpviz.widgets.board.BoardView` (uses its frame, fonts,
    ``text_scale``, ``line_scale``, ``predict`` and ``_draw_die_face``)."""

    def _paint_tied_dice(self, c, action: int, tied: tuple[int, ...], p: QPainter, *, s: float, ox: float, oy: float,
                         y0: float, y1: float, g0: float) -> None:
        """Every optimal die of cell ``c`` side by side in action order under it (glyph row ``y0..y1``, at
        most ``g0`` wide each), the solver's pick (``action``) solid, the others faded with a dashed rim."""
        # as many as fit in the width between the neighbouring squares' dice (1.25 cells)
        g = min(g0, c.size * 1.25 / (len(tied) + 0.16 * (len(tied) - 1)))
        gap = g * 0.16
        left = c.x - (len(tied) * g + (len(tied) - 1) * gap) / 2
        top = (y0 + y1) / 2 - g / 2
        for i, a in enumerate(tied):
            r = QRectF(ox + s * (left + i * (g + gap)), oy + s * top, s * g, s * g)
            if a == action:
                self._draw_die_face(p, r, a + 1)
                continue
            p.save()
            p.setOpacity(0.55)
            self._draw_die_face(p, r, a + 1)
            p.restore()
            pen = QPen(QColor("#000000"), max(1.5, s * g * 0.07) * self.line_scale ** 0.5)
            pen.setStyle(Qt.PenStyle.DashLine)
            p.setPen(pen)
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRect(r.adjusted(-s * g * 0.06, -s * g * 0.06, s * g * 0.06, s * g * 0.06))

    def _paint_tied_badges(self, p: QPainter, texts: tuple[str, ...], rect: QRectF, *, right: float, r: float,
                           ink: QColor) -> None:
        """The other optimal actions' badges, outlined (dashed rim, no fill) in a row left of the solver's
        solid badge, from ``right`` leftwards along the cell's bottom."""
        if not texts:
            return
        side = rect.width()
        f = QFont(self.font())
        f.setPixelSize(max(7, int(side * 0.22)))
        f.setBold(True)
        p.setFont(f)
        fm = p.fontMetrics()
        x = right - side * 0.03
        for t in texts:
            bw = max(2 * r, fm.horizontalAdvance(t) + side * 0.08) if len(t) > 1 else 2 * r
            if x - bw < rect.left() + side * 0.03:  # no room for more: an ellipsis says there are
                p.setPen(ink)
                p.drawText(QRectF(rect.left(), rect.bottom() - side * 0.22 - r, x - rect.left(), 2 * r),
                           Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, "\u2026")
                return
            box = QRectF(x - bw, rect.bottom() - side * 0.22 - r, bw, 2 * r)
            pen = QPen(ink, max(1.5, side * 0.02) * self.line_scale ** 0.5)
            pen.setStyle(Qt.PenStyle.DashLine)
            p.setPen(pen)
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRoundedRect(box, r, r)
            p.setPen(ink)
            p.drawText(box, Qt.AlignmentFlag.AlignCenter, t)
            x -= bw + side * 0.03

    def _paint_endless(self, p: QPainter, rect: QRectF, side: float) -> None:
        """A state the drawn policy never ends from (discount 1): an infinity sign in a vermillion pill
        at the cell's top centre, the same mark as the legend's."""
        f = QFont(self.font())
        f.setPixelSize(max(9, int(side * 0.24 * min(self.text_scale, 1.3))))
        f.setBold(True)
        p.setFont(f)
        fm = p.fontMetrics()
        w, h = fm.horizontalAdvance(ENDLESS_MARK) + side * 0.1, fm.height()
        box = QRectF(rect.center().x() - w / 2, rect.top() + side * 0.02, w, h)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(QColor(ENDLESS))
        p.drawRoundedRect(box, h * 0.3, h * 0.3)
        p.setPen(QColor("#000000"))
        p.drawText(box, Qt.AlignmentFlag.AlignCenter, ENDLESS_MARK)

    def ties_legend(self) -> str:
        """The line under the board: every optimal action is drawn and how many states tie; the cells
        marked as never ending ("" where neither applies: a board without ties keeps its room, and its die
        faces their size on a projector)."""
        f = self.frame
        if f is None or self.predict or (not f.ties and (f.endless is None or not f.endless.any())):
            return ""
        return board_legend(f.ties, f.endless, mark=ENDLESS_MARK)

    def _ties_font(self) -> QFont:
        """The legend's font: the window's (presenter mode enlarges it already), not the cells' scale."""
        return QFont(self.font())

    def _ties_height(self) -> int:
        """Pixels kept for the legend under the board (0: none; two lines where it wraps)."""
        lines = len(self._ties_lines())
        return int(QFontMetricsF(self._ties_font()).height() * (lines + 0.4)) if lines else 0

    def _ties_lines(self) -> list[str]:
        """The legend as drawn: one line, or two where the board is narrower than it."""
        text = self.ties_legend()
        if not text:
            return []
        fm = QFontMetricsF(self._ties_font())
        return wrap_caption(text, self.width() - 16, fm.horizontalAdvance,
                            lambda t, w: fm.elidedText(t, Qt.TextElideMode.ElideRight, w))

    def _paint_ties_legend(self, p: QPainter) -> None:
        lines = self._ties_lines()
        if not lines:
            return
        p.setFont(self._ties_font())
        p.setPen(self.palette().text().color())
        h = self._ties_height()
        box = QRectF(8, self.height() - h, self.width() - 16, h)
        p.drawText(box, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, "\n".join(lines))


__all__ = ["ENDLESS", "ENDLESS_MARK", "TiesPainting"]
