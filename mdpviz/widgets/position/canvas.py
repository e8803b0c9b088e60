"""The canvas of the position board: paints one position with its view, reports clicked cells."""
from __future__ import annotations

import math
from typing import Callable, Sequence

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPen, QPolygonF
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from mdpviz.models.kit.pictures.colors import HIGHLIGHT, ColorScale, black_text
from mdpviz.models.kit.boards.position import Position, PositionView
from mdpviz.widgets.board import scale_rgb
from mdpviz.widgets.board_image import UNVISITED_HATCH
from mdpviz.widgets.position.painters import GREEDY_COLOR, LAST_MOVE, LEGAL_FILL, ORIGIN_COLOR, BoardPainter


class PositionCanvas(QWidget):
    """Paints one position with its :class:`PositionView`; reports clicks with the cell."""

    cell_clicked = Signal(int)
    cell_right_clicked = Signal(int)

    def __init__(self, painter: BoardPainter, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("positionCanvas")
        self.setAccessibleName("Position")
        self.setAccessibleDescription("The position: each legal move's cell is coloured by its value, with the "
                                      "number on it; the greedy move is starred. Click a cell to play it.")
        self.setMinimumSize(200, 160)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMouseTracking(True)
        self.painter_ = painter
        self.position: Position | None = None
        self.view: PositionView | None = None
        self.last_cells: tuple[int, ...] = ()
        self.origin = -1
        self.hatched = False
        self.message = ""
        self.text_scale = 1.0
        self.drag_handler: Callable[[int, float, bool], None] | None = None
        """When set, a left drag on a cell edits it: handler(cell, value in [0, 1] (top = 1), final)."""
        self._drag_cell = -1
        self.scale: ColorScale | None = None
        """The colour scale the view's ``fill`` positions are on."""
        self.changed: tuple[int, ...] = ()
        """Cells ringed (dashed magenta): a move drawn there changed optimality with the last edit."""

    def set_painter(self, painter: BoardPainter) -> None:
        self.painter_ = painter
        self.update()

    def show_position(self, pos: Position | None, view: PositionView | None, *, last_cells: Sequence[int] = (),
                      origin: int = -1, message: str = "", scale: ColorScale | None = None,
                      changed: Sequence[int] = (), hatched: bool = False) -> None:
        """``hatched``: the position was never visited by a learner's behaviour (its legal moves hatched)."""
        self.position, self.view = pos, view
        self.hatched = hatched
        self.scale = scale
        self.changed = tuple(int(c) for c in changed)
        self.last_cells = tuple(int(c) for c in last_cells if c >= 0)
        self.origin = origin
        self.message = message
        self.update()

    def cell_rects(self) -> list[QRectF]:
        if self.position is None:
            return []
        return self.painter_.cell_rects(QRectF(self.rect()).adjusted(6, 6, -6, -6), int(self.position.cells.size))

    def cell_at(self, x: float, y: float) -> int:
        """The cell under widget point (x, y), -1 for none."""
        for i, r in enumerate(self.cell_rects()):
            if r.contains(QPointF(x, y)):
                return i
        return -1

    def cell_center(self, cell: int) -> QPointF:
        return self.cell_rects()[cell].center()

    def fill_color(self, cell: int) -> QColor:
        """The colour a cell is filled with (for tests and tooltips)."""
        v = self.view
        if v is not None and cell < v.fill.size and np.isfinite(v.fill[cell]):
            r, g, b = self._rgb(float(v.fill[cell]))
            return QColor(r, g, b)
        if v is not None and cell < v.legal.size and v.legal[cell]:
            return QColor(LEGAL_FILL)
        return self.painter_.cell_base(cell)

    def _rgb(self, t: float) -> tuple[int, int, int]:
        c = scale_rgb(self.scale, np.array([t]))[0]
        return int(c[0]), int(c[1]), int(c[2])

    # ------------------------------------------------------------------ painting
    def paintEvent(self, ev) -> None:  # noqa: N802
        qp = QPainter(self)
        qp.setRenderHint(QPainter.RenderHint.Antialiasing)
        qp.fillRect(self.rect(), QColor("#ffffff"))
        pos, v = self.position, self.view
        if pos is None:
            qp.setPen(QColor("#555555"))
            qp.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap,
                        self.message or "No position")
            return
        rects = self.cell_rects()
        self.painter_.paint_background(qp, QRectF(self.rect()), rects)
        for c, r in enumerate(rects):
            qp.setPen(QPen(QColor("#555555"), 1.0))
            qp.setBrush(self.fill_color(c))
            qp.drawRect(r)
            if self.hatched and v is not None and c < v.legal.size and v.legal[c]:  # never visited: no values
                qp.setBrush(QBrush(QColor(UNVISITED_HATCH), Qt.BrushStyle.BDiagPattern))
                qp.drawRect(r)
            code = int(pos.cells[c])
            if code:
                self.painter_.paint_piece(qp, r, c, code)
        if v is not None and v.origins.size:
            for c, r in enumerate(rects):
                if c < v.origins.size and v.origins[c] and c != self.origin:
                    qp.setPen(QPen(QColor(ORIGIN_COLOR), max(1.5, r.width() * 0.03), Qt.PenStyle.DashLine))
                    qp.setBrush(Qt.BrushStyle.NoBrush)
                    qp.drawRect(r.adjusted(3, 3, -3, -3))
        # the arrow goes over the frames and under the numbers; the greedy star is drawn last
        arrow = self.policy_arrow_cells()
        for c in self.last_cells:
            if c < len(rects):
                r = rects[c]
                qp.setPen(QPen(QColor(LAST_MOVE), max(2.0, r.width() * 0.05)))
                qp.setBrush(Qt.BrushStyle.NoBrush)
                qp.drawRect(r.adjusted(2, 2, -2, -2))
        if 0 <= self.origin < len(rects):
            r = rects[self.origin]
            qp.setPen(QPen(QColor(ORIGIN_COLOR), max(2.5, r.width() * 0.07)))
            qp.setBrush(Qt.BrushStyle.NoBrush)
            qp.drawRect(r.adjusted(3, 3, -3, -3))
        greedy = [rects[g] for g in ((v.greedy_cell, v.greedy_origin) if v is not None else ()) if 0 <= g < len(rects)]
        for r in greedy:
            self._mark_greedy(qp, r, star=False)
        for c in self.changed:  # the last edit changed this move's optimality: a dashed magenta ring
            if 0 <= c < len(rects):
                r = rects[c]
                pen = QPen(QColor(HIGHLIGHT), max(3.0, r.width() * 0.06), Qt.PenStyle.DashLine)
                qp.setPen(pen)
                qp.setBrush(Qt.BrushStyle.NoBrush)
                inset = r.width() * 0.1
                qp.drawEllipse(r.adjusted(inset, inset, -inset, -inset))
        if arrow is not None:  # under the numbers: it never hides the value of the square it goes to
            a, b = arrow
            self._policy_arrow(qp, rects[a], rects[b], target_text=self.text_box(b))
        font = QFont(self.font())
        for c, r in enumerate(rects):
            if v is None:
                continue
            text = v.texts[c]
            if text:
                px = self._text_px(r, text)
                font.setPixelSizeF(px) if hasattr(font, "setPixelSizeF") else font.setPixelSize(int(px))
                font.setBold(True)
                qp.setFont(font)
                col = self.fill_color(c)
                box = self.text_box(c)
                if int(pos.cells[c]) or (arrow is not None and c in arrow):
                    # on a piece, or where the arrow passes: the number on a pill
                    qp.setPen(Qt.PenStyle.NoPen)
                    qp.setBrush(QColor(255, 255, 255, 225))
                    qp.drawRoundedRect(box, 4, 4)
                    qp.setPen(QColor("#000000"))
                    qp.drawText(box, Qt.AlignmentFlag.AlignCenter, text)
                else:
                    black = bool(black_text(np.array([[col.red(), col.green(), col.blue()]]))[0])
                    qp.setPen(QColor("#000000" if black else "#ffffff"))
                    qp.drawText(r, Qt.AlignmentFlag.AlignCenter, text)
        self.painter_.paint_overlay(qp, rects)  # over the values (risk's gauges), under the greedy star
        for r in greedy:
            self._mark_greedy(qp, r, frame=False)
        for c in (v.tied_cells if v is not None else ()):  # the other optimal moves: an outlined star
            if 0 <= c < len(rects):
                self._mark_greedy(qp, rects[c], frame=False, tied=True)

    def _text_px(self, r: QRectF, text: str) -> float:
        """The pixel size of a cell's number: as large as the cell takes (about 0.62 px of width per px
        of height and character in bold; the 3D game's 41-px cells drew them at 12 px in presenter mode)."""
        return max(7.0, min(r.width() * 0.34, 30.0 * self.text_scale, 0.88 * r.width() / (0.62 * max(len(text), 3))))

    def text_box(self, cell: int) -> QRectF | None:
        """Where cell ``cell``'s number is drawn (None: it has none): on a pill at the bottom of a
        piece, else the middle of the cell."""
        v, rects = self.view, self.cell_rects()
        if v is None or not 0 <= cell < len(rects) or cell >= len(v.texts) or not v.texts[cell]:
            return None
        r = rects[cell]
        px = self._text_px(r, v.texts[cell])
        if int(self.position.cells[cell]):
            return QRectF(r.left() + r.width() * 0.1, r.bottom() - px * 1.5, r.width() * 0.8, px * 1.35)
        w = min(r.width() * 0.9, 0.6 * px * (len(v.texts[cell]) + 1))
        return QRectF(r.center().x() - w / 2, r.center().y() - px * 0.7, w, px * 1.4)

    def policy_arrow_cells(self) -> tuple[int, int] | None:
        """(origin, destination) of the greedy move drawn as an arrow (a move of a piece), or None."""
        v, n = self.view, len(self.cell_rects())
        if v is None or not 0 <= v.greedy < len(v.moves) or v.greedy_origin < 0:
            return None
        mv = v.moves[v.greedy]
        if 0 <= mv.origin < n and 0 <= mv.cell < n and mv.cell != mv.origin:
            return int(mv.origin), int(mv.cell)
        return None

    @staticmethod
    def arrow_ends(a: QRectF, b: QRectF, target_text: QRectF | None = None) -> tuple[QPointF, QPointF] | None:
        """Start and tip of the arrow from square ``a`` to square ``b``: the tip stops short of the
        number drawn on ``b`` (``target_text``, its box), so the value of where the piece goes stays
        readable (the arrow used to end on it). None: the squares coincide."""
        p0, p1 = a.center(), b.center()
        dx, dy = p1.x() - p0.x(), p1.y() - p0.y()
        n = math.hypot(dx, dy)
        if n <= 1:
            return None
        ux, uy = dx / n, dy / n
        side = min(a.width(), a.height())
        back = side * 0.18
        if target_text is not None:  # leave the box around b's centre along the arrow's line, plus a gap
            hw, hh = target_text.width() / 2 + 3, target_text.height() / 2 + 3
            cx, cy = target_text.center().x() - p1.x(), target_text.center().y() - p1.y()
            # the arrow comes from -u: the far point of the box towards the origin
            tx = (hw + cx * math.copysign(1, -ux)) / abs(ux) if abs(ux) > 1e-9 else math.inf
            ty = (hh + cy * math.copysign(1, -uy)) / abs(uy) if abs(uy) > 1e-9 else math.inf
            back = max(back, min(tx, ty))
        tip = QPointF(p1.x() - ux * back, p1.y() - uy * back)
        start = QPointF(p0.x() + ux * side * 0.3, p0.y() + uy * side * 0.3)
        return start, tip

    def _policy_arrow(self, qp: QPainter, a: QRectF, b: QRectF, *, target_text: QRectF | None = None) -> None:
        """The greedy move of a piece: a thick arrow from its square to where it goes (white-edged, so it
        reads on every square and colour), ending before the number on where it goes."""
        ends = self.arrow_ends(a, b, target_text)
        if ends is None:
            return
        start, tip = ends
        dx, dy = tip.x() - start.x(), tip.y() - start.y()
        n = math.hypot(dx, dy)
        if n <= 1:
            return
        ux, uy = dx / n, dy / n
        w = max(4.0, min(a.width(), a.height()) * 0.09)
        head = min(w * 3.2, n * 0.6)
        base = QPointF(tip.x() - ux * head, tip.y() - uy * head)
        left = QPointF(base.x() - uy * head * 0.6, base.y() + ux * head * 0.6)
        right = QPointF(base.x() + uy * head * 0.6, base.y() - ux * head * 0.6)
        for colour, extra in (("#ffffff", w * 0.6), ("#000000", 0.0)):
            pen = QPen(QColor(colour), w + extra)
            pen.setCapStyle(Qt.PenCapStyle.RoundCap)
            pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
            qp.setPen(pen)
            qp.drawLine(start, base)
            qp.setBrush(QColor(colour))
            qp.drawPolygon(QPolygonF([tip, left, right]))

    def _mark_greedy(self, qp: QPainter, r: QRectF, *, frame: bool = True, star: bool = True,
                     tied: bool = False) -> None:
        """The greedy square's thick frame and its star (``frame``/``star``: which of the two); ``tied``: a
        move as good as the greedy one, its star outlined (a hollow star on a dashed rim)."""
        w = max(2.5, r.width() * 0.06)
        if frame:
            qp.setBrush(Qt.BrushStyle.NoBrush)
            qp.setPen(QPen(QColor(GREEDY_COLOR), w))
            qp.drawRect(r.adjusted(w / 2, w / 2, -w / 2, -w / 2))
            qp.setPen(QPen(QColor("#ffffff"), max(1.0, w / 3)))
            qp.drawRect(r.adjusted(w * 1.2, w * 1.2, -w * 1.2, -w * 1.2))
        if not star:
            return
        d = max(r.width() * 0.28, min(24.0, r.width() * 0.34))  # readable from the back of a room
        star = QRectF(r.right() - d - w * 0.3, r.top() + w, d, d)
        f = QFont(self.font())
        f.setPixelSize(max(8, int(d * 0.72)))
        qp.setFont(f)
        qp.setPen(QPen(QColor("#000000"), max(1.5, d * 0.07), Qt.PenStyle.DashLine) if tied else QColor("#000000"))
        qp.setBrush(QColor("#ffffff"))
        qp.drawEllipse(star.adjusted(1, 1, -1, -1))
        qp.setPen(QColor("#000000"))
        qp.drawText(star, Qt.AlignmentFlag.AlignCenter, "\u2606" if tied else "\u2605")

    # ------------------------------------------------------------------ input
    def drag_value(self, cell: int, y: float) -> float:
        """The value a drag at height ``y`` sets on ``cell``: 1 at the top edge, 0 at the bottom."""
        r = self.cell_rects()[cell]
        return float(min(1.0, max(0.0, (r.bottom() - y) / max(r.height(), 1.0))))

    def mousePressEvent(self, ev) -> None:  # noqa: N802
        c = self.cell_at(ev.position().x(), ev.position().y())
        if c < 0:
            return
        if ev.button() == Qt.MouseButton.LeftButton:
            if self.drag_handler is not None:
                self._drag_cell = c
                self.drag_handler(c, self.drag_value(c, ev.position().y()), False)
                return
            self.cell_clicked.emit(c)
        elif ev.button() == Qt.MouseButton.RightButton:
            self.cell_right_clicked.emit(c)

    def mouseReleaseEvent(self, ev) -> None:  # noqa: N802
        if self._drag_cell >= 0 and self.drag_handler is not None:
            c, self._drag_cell = self._drag_cell, -1
            self.drag_handler(c, self.drag_value(c, ev.position().y()), True)

    def mouseMoveEvent(self, ev) -> None:  # noqa: N802
        if self._drag_cell >= 0 and self.drag_handler is not None:
            self.drag_handler(self._drag_cell, self.drag_value(self._drag_cell, ev.position().y()), False)
            return
        c = self.cell_at(ev.position().x(), ev.position().y())
        if c < 0 or self.view is None:
            QToolTip.hideText()
            return
        tip = self.painter_.cell_name(c)
        if self.view.tips[c]:
            tip += "\n" + self.view.tips[c]
        QToolTip.showText(ev.globalPosition().toPoint(), tip, self)

