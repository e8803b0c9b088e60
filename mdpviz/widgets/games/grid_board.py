"""The board of the games drawn on a grid (grid worlds, Gymnasium's FrozenLake and CliffWalking).

:class:`GridBoard`: values as colour with numbers, the policy as arrows, every action's Q as
four triangles per cell (CS188's picture), the episode's agent token, its own colour bar (a
diverging colour-blind-safe map centred on 0 when the values have both signs, viridis
otherwise; fixed for a solve: the window's range of the solve joined with the values shown).
Environments without a grid (Taxi) are shown on a table of states. :class:`GridGameBase` is what
the two games' views share (:mod:`mdpviz.widgets.games.gridworld`, :mod:`mdpviz.widgets.games.gym`).

The board only draws; the models compute: the colour range, the arrow sizes, the values and Q per
cell come from :mod:`mdpviz.models.gridworld`.
"""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, QPoint, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPen, QPolygonF
from PySide6.QtWidgets import (
    QCheckBox, QHBoxLayout, QLabel, QMenu, QRadioButton, QSizePolicy, QStackedWidget, QToolTip, QVBoxLayout, QWidget,
)

from mdpviz.models import gridworld as gw
from mdpviz.models.kit.pictures.colors import (COLORMAP, DIVERGING, DIVERGING_COLORMAP, HIGHLIGHT, SEQUENTIAL, ColorScale,
                                     black_text)
from mdpviz.models.kit.pictures.chain import outline_labels
from mdpviz.models.kit.pictures.display import board_frame
from mdpviz.models.kit.pictures.ties import backed_up, board_legend, endless_states, sweep_ties
from mdpviz.solvers import registry as methods
from mdpviz.widgets.board_ties import ENDLESS, ENDLESS_MARK
from mdpviz.models.gridworld import MIN_ARROW_PX, arrow_geometry, grid_color_range  # noqa: F401 (the board's sizes)
from mdpviz.core.mdp import TabularMDP
from mdpviz.widgets import named as _named
from mdpviz.widgets.board import UNVISITED_FILL, UNVISITED_HATCH, BoardView, ColorBar
from mdpviz.widgets.chain_marks import paint_chain_mark
from mdpviz.widgets.dyna import paint_model_marks, show_grid_model
from mdpviz.widgets.game import Game
from mdpviz.widgets.session import GameSession
from mdpviz.widgets.game_board import GameBoard
from mdpviz.widgets.geometry import grid_layout
from mdpviz.widgets.cell_board import StateNames

LUT_SIZE = 256
"""Colours sampled from the colour map (more than a projector can tell apart)."""
DIVERGING_MAP = DIVERGING_COLORMAP
"""pyqtgraph colour map for values of both signs: ColorCET's colour-blind-safe diverging map
(blue - grey - yellow), centred on 0."""
SEQUENTIAL_MAP = COLORMAP
"""pyqtgraph colour map for values of one sign (the window's heatmap map, viridis)."""
WALL_FILL = "#3a3a3a"
TOKEN = "#cc79a7"  # Okabe-Ito reddish purple: not in either colour map
SELECTED = "#000000"
SUCCESSOR = "#56b4e9"  # Okabe-Ito sky blue, as on the shared board
UPDATED = "#e69f00"  # Okabe-Ito orange: the one state a step of async-vi / prioritized sweeping backed up
BEST_Q = "#ff00aa"  # the best action's triangle outline (magenta: in neither map)


# ---------------------------------------------------------------------------------- drawing helpers
def small_end_label(side: float, kind: str, label: str, value: float, compact: float) -> bool:
    """A small cell (narrower than ``compact`` px) that ends the episode, is worth exactly 0 and has a
    short label (FrozenLake's "H" and "G"): the label is drawn in place of its "0.00"."""
    return side < compact and kind in ("exit", "hazard") and 0 < len(label) <= 2 and value == 0.0


def q_number_px(side: float, text: str) -> float:
    """Pixel size of a Q-value's number in its triangle of a ``side``-pixel cell: as large as the east
    and west numbers can be side by side in bold (about 0.64 px of width per px of height and character,
    0.46 of the cell each), at most 0.19 of the cell."""
    return min(side * 0.19, side * 0.46 / (0.64 * max(len(text), 3)))


Q_MIN_PX = 12
"""Smallest pixel size of a Q triangle's number (issue 35 item 9: about 9 px in presenter mode): fewer
decimals where two would be smaller."""


def q_label(x: float, side: float, *, min_px: float = Q_MIN_PX) -> tuple[str, float]:
    """``(text, pixel size)`` of Q-value ``x`` in its triangle of a ``side``-pixel cell: two decimals below
    10 (one below 100, none above) when they fit at ``min_px`` or more, else fewer decimals, down to none
    (the hover and the inspector give every digit)."""
    mag = abs(x)
    digits = 2 if mag < 10 else 1 if mag < 100 else 0
    for d in range(digits, -1, -1):
        txt = f"{x:.{d}f}"
        px = q_number_px(side, txt)
        if px < min_px and min(side * 0.46 / (0.64 * max(len(txt), 3)), side * 0.22) >= min_px:
            px = float(min_px)  # (the width holds it, and a fifth of the cell is still inside the triangle)
        if px >= min_px:
            return txt, px
    return txt, px


def triangle(rect: QRectF, direction: str) -> QPolygonF:
    """The quarter of a cell between its centre and the edge facing ``direction`` (CS188's Q triangles)."""
    c = rect.center()
    tl, tr, bl, br = rect.topLeft(), rect.topRight(), rect.bottomLeft(), rect.bottomRight()
    pts = {"north": (tl, tr), "east": (tr, br), "south": (br, bl), "west": (bl, tl)}[direction]
    return QPolygonF([c, pts[0], pts[1]])


TINY_SIDE = 16.0
"""Cells narrower than this (pixels) are drawn as colour only, without numbers, arrows or labels."""
COMPACT_SIDE = 90.0
"""Cells narrower than this (pixels) stack the arrow above the number instead of beside it."""

DIRS: dict[str, tuple[float, float]] = {"north": (0.0, -1.0), "east": (1.0, 0.0), "south": (0.0, 1.0), "west": (-1.0, 0.0)}


# ---------------------------------------------------------------------------------- the canvas
def q_source(sw: Any, previous: Any) -> np.ndarray:
    """The values the Q triangles of snapshot ``sw`` back up from, so their best is the drawn arrow: the
    previous snapshot's (V = 0 before the first) for a synchronous value-iteration sweep under the
    convention "policy from V(k-1)", the snapshot's own otherwise (``q_from`` "current", one-state
    updates, evaluations, improvements)."""
    spec = methods.find(sw.method)
    synchronous = spec is not None and spec.synchronous_vi
    if synchronous and sw.phase == "sweep" and getattr(sw, "q_from", "previous") == "previous":
        return np.zeros(np.shape(sw.values)) if previous is None else np.asarray(previous.values)
    return np.asarray(sw.values)


class GridCanvas(QWidget):
    """Paints one grid: cells coloured by value with numbers, arrows, Q triangles, token, selection."""

    cell_clicked = Signal(int, int)
    cell_menu_requested = Signal(int, int, object)  # row, column, QPoint (global)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("gridCanvas")
        self.setAccessibleName("Grid world board")
        self.setMinimumSize(240, 160)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMouseTracking(True)
        self.geometry_: gw.GridGeometry | None = None
        self.mdp: TabularMDP | None = None
        self.values: np.ndarray | None = None
        self.policy: np.ndarray | None = None
        self.q: dict[int, dict[str, float]] = {}
        self.ties: dict[int, tuple[int, ...]] = {}
        """{state: every optimal action} where several tie (:func:`~mdpviz.models.kit.pictures.ties.sweep_ties`): their
        arrows are drawn too, outlined beside the solver's solid one."""
        self.endless: np.ndarray | None = None
        """bool (n_states): the cells the drawn policy never ends from (discount 1), marked with an infinity sign."""
        self.lo, self.hi, self.diverging = 0.0, 1.0, False
        self.set_scale(0.0, 1.0, False)
        self.show_values = True
        self.show_arrows = True
        self.show_q = False
        self.token: int | None = None
        self.marked: tuple[int, ...] = ()
        """States outlined in dashed magenta: a learner's states whose learned action is not optimal, or
        the states whose optimal actions the last edit changed (the live re-solve's policy diff)."""
        self.change_map = False
        """The values are an edit's changes dV (signed numbers, no fixed exit values; NaN: not compared)."""
        self.selected: tuple[int, int] | None = None
        self.successors: dict[tuple[int, int], float] = {}
        self.chain_labels: dict[tuple[int, int], str] = {}
        """The inspector's chain of backups: cell -> its place(s) in the chain, outlined and numbered."""
        self.updated: tuple[int, int] | None = None
        """The cell the shown snapshot backed up alone (asynchronous VI, prioritized sweeping), outlined."""
        self.hidden: Callable[[int], bool] = lambda s: False
        self.model_marks = None  # a planning method's learned model (widgets/dyna.py's ModelMarks), or None
        self.unvisited: np.ndarray | None = None
        """bool (n_states): states a learner's behaviour never visited, hatched grey with no number (None: none)."""
        self.caption = ""
        self.line_scale = 1.0
        """Factor on outlines and arrows: thicker in the window's presenter and high-contrast modes
        (:meth:`GridBoard.set_view_style`)."""

    def set_scale(self, lo: float, hi: float, diverging: bool) -> None:
        self.lo, self.hi, self.diverging = float(lo), float(hi), bool(diverging)
        self.cmap = pg.colormap.get(DIVERGING_MAP if diverging else SEQUENTIAL_MAP)
        # the map sampled once into LUT_SIZE colours and their text colours (a 100x100 map paints in
        # well under a second; one colormap call per cell took two)
        lut = np.asarray(self.cmap.map(np.linspace(0.0, 1.0, LUT_SIZE), mode="byte"))[:, :3].astype(int)
        dark = black_text(lut)
        self._lut = [QColor(int(r), int(g), int(b)) for r, g, b in lut]
        self._ink = [QColor("#000000" if d else "#ffffff") for d in dark]
        self.update()

    def _index(self, v: float) -> int:
        t = 0.5 if self.hi <= self.lo else min(1.0, max(0.0, (v - self.lo) / (self.hi - self.lo)))
        return int(round(t * (LUT_SIZE - 1)))

    def color(self, v: float) -> QColor:
        """The colour of value ``v`` on the current scale."""
        return self._lut[self._index(v)]

    def ink_for(self, v: float) -> QColor:
        """Black or white, whichever reads better on the colour of ``v``."""
        return self._ink[self._index(v)]

    @staticmethod
    def ink(fill: QColor) -> QColor:
        dark = bool(black_text(np.array([[fill.red(), fill.green(), fill.blue()]]))[0])
        return QColor("#000000" if dark else "#ffffff")

    # -------------------------------------------------------------- geometry
    def _layout(self) -> tuple[float, float, float]:
        g = self.geometry_
        if g is None:
            return 0.0, 0.0, 0.0
        cap = self.fontMetrics().height() + 8
        w, h = self.width() - 8, self.height() - 8 - cap
        side = max(4.0, min(w / g.cols, h / g.rows))
        ox = (self.width() - side * g.cols) / 2
        oy = 4 + (h - side * g.rows) / 2
        return side, ox, oy

    def cell_rect(self, r: int, c: int) -> QRectF:
        side, ox, oy = self._layout()
        return QRectF(ox + c * side, oy + r * side, side, side)

    def cell_at(self, x: float, y: float) -> tuple[int, int] | None:
        g = self.geometry_
        side, ox, oy = self._layout()
        if g is None or side <= 0:
            return None
        c, r = math.floor((x - ox) / side), math.floor((y - oy) / side)
        return (r, c) if 0 <= r < g.rows and 0 <= c < g.cols else None

    def mousePressEvent(self, ev) -> None:  # noqa: N802
        hit = self.cell_at(ev.position().x(), ev.position().y())
        if hit is None:
            return
        if ev.button() == Qt.MouseButton.LeftButton:
            self.cell_clicked.emit(*hit)
        elif ev.button() == Qt.MouseButton.RightButton:
            self.cell_menu_requested.emit(hit[0], hit[1], ev.globalPosition().toPoint())

    def event(self, ev) -> bool:
        if ev.type() == ev.Type.ToolTip:
            hit = self.cell_at(ev.pos().x(), ev.pos().y())
            text = self.tooltip(*hit) if hit else ""
            if text:
                QToolTip.showText(ev.globalPos(), text, self)
            else:
                QToolTip.hideText()
            return True
        return super().event(ev)

    def tooltip(self, r: int, c: int) -> str:
        """Every number of a cell as text (the colours are also readable this way)."""
        g = self.geometry_
        if g is None:
            return ""
        s = int(g.state[r, c])
        where = f"row {r + 1}, column {c + 1}"
        if s < 0:
            return f"{where}: wall"
        lines = [f"{where}" + (f" ({g.label[r][c]})" if g.label[r][c] else "")]
        if self.is_unvisited(s):
            return "\n".join(lines + ["not visited: the behaviour has never been here (its learned value is "
                                       "only the initial one; not in the errors over visited states)"])
        if (r, c) == self.updated:
            lines.append("backed up in this step (the one state it updated)")
        if self.values is not None and not self.hidden(s) and self.change_map:
            v = self._value(r, c)
            lines.append("new since the edit: not compared" if v is None else f"V after - V before = {v:+.6g}")
        elif self.values is not None and not self.hidden(s):
            v = gw.cell_value(g, self.values, r, c)
            lines.append(f"V = {v:.6g}" + (" (terminal: U = R(s))" if (r, c) in g.fixed else ""))
            for d, q in self.q.get(s, {}).items():
                lines.append(f"Q({d}) = {q:.6g}")
        return "\n".join(lines)

    def is_unvisited(self, s: int) -> bool:
        """State ``s`` is drawn as never visited (a learner's view)."""
        u = self.unvisited
        return u is not None and 0 <= s < u.size and bool(u[s])

    def _value(self, r: int, c: int) -> float | None:
        """The number cell (r, c) shows: its V (an AIMA exit's fixed U = R(s)), or its change dV on the
        change map (None: a wall, or a state that did not exist before the edit)."""
        if not self.change_map:
            return gw.cell_value(self.geometry_, self.values, r, c)
        s = int(self.geometry_.state[r, c])
        v = float(self.values[s]) if s >= 0 else math.nan
        return v if math.isfinite(v) else None

    # -------------------------------------------------------------- painting
    def paintEvent(self, ev) -> None:  # noqa: N802
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        g = self.geometry_
        if g is None:
            p.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, self.caption)
            return
        side, ox, oy = self._layout()
        font = QFont(self.font())
        for r in range(g.rows):
            for c in range(g.cols):
                self._paint_cell(p, r, c, QRectF(ox + c * side, oy + r * side, side, side), font)
        # outer frame, selection, token
        lw = self.line_scale
        p.setPen(QPen(QColor("#222222"), 2 * lw))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRect(QRectF(ox, oy, side * g.cols, side * g.rows))
        p.setPen(QPen(QColor("#222222"), max(4.0, side * 0.07) * lw, Qt.PenStyle.SolidLine, Qt.PenCapStyle.FlatCap))
        for r, c, where in g.walls:  # walls between cells (Taxi's map): the taxi cannot drive through
            x, y = ox + c * side, oy + r * side
            if where == "east":
                p.drawLine(QPointF(x + side, y), QPointF(x + side, y + side))
            elif where == "south":
                p.drawLine(QPointF(x, y + side), QPointF(x + side, y + side))
        for s in self.marked:  # a learner's states whose greedy action is not optimal
            cell = g.cell_of(s)
            if cell is not None:
                p.setPen(QPen(QColor(HIGHLIGHT), max(2.0, side * 0.03) * lw, Qt.PenStyle.DashLine))
                p.drawRect(self.cell_rect(*cell).adjusted(6, 6, -6, -6))
        for cell, prob in self.successors.items():  # where the inspected state's action may lead
            if cell == self.selected:
                continue
            p.setPen(QPen(QColor(SUCCESSOR), max(2.0, side * 0.035) * self.line_scale, Qt.PenStyle.DashLine))
            p.drawRect(self.cell_rect(*cell).adjusted(4, 4, -4, -4))
        if self.updated is not None:  # the one state this step backed up: a wide orange frame, white inside
            rect = self.cell_rect(*self.updated)
            w = max(4.0, side * 0.07) * lw
            p.setPen(QPen(QColor("#ffffff"), w + 2))
            p.drawRect(rect.adjusted(w / 2 + 1, w / 2 + 1, -w / 2 - 1, -w / 2 - 1))
            p.setPen(QPen(QColor(UPDATED), w))
            p.drawRect(rect.adjusted(w / 2, w / 2, -w / 2, -w / 2))
        if self.model_marks is not None:
            paint_model_marks(p, self.model_marks, self.cell_rect, line_scale=lw)
        if self.selected is not None:
            p.setPen(QPen(QColor(SELECTED), max(3.0, side * 0.05) * lw))
            p.drawRect(self.cell_rect(*self.selected).adjusted(2, 2, -2, -2))
        for cell, label in self.chain_labels.items():
            paint_chain_mark(p, self.cell_rect(*cell), label, line_scale=self.line_scale, font=self.font(), corner=True)
        if self.token is not None:
            cell = g.cell_of(self.token)
            if cell is not None:
                rect = self.cell_rect(*cell)
                rad = max(8.0, side * 0.12)
                p.setPen(QPen(QColor("#000000"), 2))
                p.setBrush(QColor(TOKEN))
                at = rect.center() + (QPointF(-side * 0.3, side * 0.3) if self.show_values else QPointF(0, 0))
                p.drawEllipse(at, rad, rad)  # the agent, in a corner clear of the number
        p.setPen(self.palette().windowText().color())
        f = QFont(self.font())
        p.setFont(f)
        p.drawText(QRectF(4, self.height() - self.fontMetrics().height() - 6, self.width() - 8,
                          self.fontMetrics().height() + 4), Qt.AlignmentFlag.AlignCenter,
                   self.fontMetrics().elidedText(self.caption, Qt.TextElideMode.ElideRight, self.width() - 8))

    def _text(self, p: QPainter, rect: QRectF, text: str, color: QColor, px: float, *, bold: bool = False) -> None:
        f = QFont(self.font())
        f.setPixelSize(max(8, int(px)))
        f.setBold(bold)
        p.setFont(f)
        p.setPen(color)
        p.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)

    def _paint_cell(self, p: QPainter, r: int, c: int, rect: QRectF, font: QFont) -> None:
        g = self.geometry_
        s = int(g.state[r, c])
        side = rect.width()
        if s < 0:
            p.fillRect(rect, QColor(WALL_FILL))
            p.setPen(QPen(QColor("#222222"), 1))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRect(rect)
            return
        kind = g.kind[r][c]
        if side < TINY_SIDE:  # a huge map: colour only (the tooltip still gives every number)
            v = None if self.values is None else self._value(r, c)
            p.fillRect(rect, QColor("#f4f4f4") if v is None or self.hidden(s) else self.color(v))
            return
        unvisited = self.is_unvisited(s)  # a learner never stood here (CliffWalking's cliff): no number to colour
        hidden = self.hidden(s) or unvisited
        v = None if self.values is None or hidden else self._value(r, c)
        q = None if hidden else self.q.get(s)
        moves_q = {d: x for d, x in (q or {}).items() if d in DIRS}
        if self.show_q and moves_q and self.values is not None:
            best = gw.best_directions(moves_q, self.mdp.objective if self.mdp is not None else "max")
            for d, x in moves_q.items():
                tri = triangle(rect, d)
                fill = self.color(x)
                p.setBrush(fill)
                p.setPen(QPen(QColor("#555555"), 1))
                p.drawPolygon(tri)
            for d in moves_q:
                if d in best:
                    p.setBrush(Qt.BrushStyle.NoBrush)
                    p.setPen(QPen(QColor(BEST_Q), max(2.0, side * 0.03)))
                    p.drawPolygon(triangle(rect.adjusted(3, 3, -3, -3), d))
            for d, x in moves_q.items():
                dx, dy = DIRS[d]
                off = 0.25 if dx else 0.32  # a number is wider than tall: east and west sit nearer the centre
                cen = rect.center() + QPointF(dx * side * off, dy * side * off)
                box = QRectF(cen.x() - side * 0.25, cen.y() - side * 0.11, side * 0.5, side * 0.22)
                # as large as half the cell's width holds (a projector's 80-px cells drew them at 9-10 px),
                # 12 px at least with fewer decimals
                txt, px = q_label(x, side)
                self._text(p, box, txt, self.ink_for(x), px, bold=True)
        else:
            fill = QColor(UNVISITED_FILL if unvisited else "#f4f4f4") if v is None else self.color(v)
            p.fillRect(rect, fill)
            if unvisited:
                p.fillRect(rect, QBrush(QColor(UNVISITED_HATCH), Qt.BrushStyle.BDiagPattern))
            ink = QColor("#000000") if v is None else self.ink_for(v)
            if v is not None and self.show_values:
                digits = 2 if side < 90 else 3 if abs(v) < 100 else 1
                txt = f"{v:+.{digits}f}" if self.change_map else f"{v:.{digits}f}"
                a = int(self.policy[s]) if (self.policy is not None and self.show_arrows and kind == "open"
                                            and not self.mdp.terminal[s] and self.policy[s] >= 0) else -1
                d = g.direction(a) if a >= 0 else ""
                shift = QPointF(0, 0)
                if side < COMPACT_SIDE and (d in DIRS or a in g.marks):  # small cells: the number below, the arrow above
                    shift = QPointF(0, side * 0.24)
                elif a in g.marks and d not in DIRS:  # a word (Taxi's "pick up") above the number
                    shift = QPointF(0, side * 0.14)
                elif d in DIRS:  # the number moves away from the arrow
                    dx, dy = DIRS[d]
                    shift = QPointF(-dx * side * 0.14, -dy * side * 0.14)
                box = QRectF(rect.left(), rect.center().y() - side * 0.14, side, side * 0.28).translated(shift)
                px = min(side * (0.17 if len(txt) <= 5 else 0.14), 34.0)  # large cells: readable, clear of the arrow
                if side < COMPACT_SIDE:  # small cells: the number as large as the cell's width allows
                    px = min(side * 0.3, side * 0.8 / (0.64 * max(len(txt), 3)))
                    box = QRectF(rect.left(), rect.center().y() - px * 0.6, side, px * 1.2).translated(shift)
                if not self.change_map and small_end_label(side, kind, g.label[r][c], v, COMPACT_SIDE):
                    # a small hole or goal worth 0 (FrozenLake 8x8): its letter in the number's place, large,
                    # instead of "0.00" under a corner tag (the tooltip still gives V)
                    txt = g.label[r][c]
                    px = side * 0.42
                    box = QRectF(rect.left(), rect.center().y() - px * 0.7, side, px * 1.4)
                self._text(p, box, txt, ink, px, bold=True)
            if self.show_arrows and self.policy is not None and self.values is not None and not hidden:
                self._paint_arrow(p, rect, s, ink, kind)
            p.setPen(QPen(QColor("#555555"), 1))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRect(rect)
        if kind in ("exit", "hazard"):
            p.setPen(QPen(QColor("#000000") if kind == "exit" else QColor("#d55e00"),
                          max(2.0, side * 0.035) * self.line_scale))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRect(rect.adjusted(side * 0.06, side * 0.06, -side * 0.06, -side * 0.06))
        lab = g.label[r][c]
        q_drawn = bool(self.show_q and moves_q and self.values is not None)
        if (v is not None and self.show_values and not q_drawn and not self.change_map
                and small_end_label(side, kind, lab, v, COMPACT_SIDE)):
            lab = ""  # drawn in the number's place
        if (r, c) == g.start and lab != "S":
            lab = ("S " + lab).strip()
        if lab:
            box = QRectF(rect.left() + side * 0.08, rect.top() + side * 0.07, side * 0.84, side * 0.2)
            if self.show_q and moves_q and self.values is not None:
                # Q triangles: in the corner, where no triangle's number is (it sat on the north one)
                box = QRectF(rect.left() + 2, rect.top() + 2, side * 0.84, side * 0.17)
            elif side < COMPACT_SIDE:  # small cells: in the corner, clear of the arrow and the number
                box = QRectF(rect.left() + 2, rect.top() + 2, side * 0.84, side * 0.24)
            f = QFont(self.font())
            f.setPixelSize(max(9, int(box.height() * 0.72)))
            f.setBold(True)
            p.setFont(f)
            fm_w = p.fontMetrics().horizontalAdvance(lab) + 8
            pill = QRectF(box.left(), box.top(), min(box.width(), fm_w), box.height())
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(QColor(255, 255, 255, 220))
            p.drawRoundedRect(pill, 4, 4)
            p.setPen(QColor("#000000"))
            p.drawText(pill, Qt.AlignmentFlag.AlignCenter, lab)

    def _paint_arrow(self, p: QPainter, rect: QRectF, s: int, ink: QColor, kind: str) -> None:
        g, m = self.geometry_, self.mdp
        if m is None or m.terminal[s] or self.policy[s] < 0 or kind != "open":
            return
        a = int(self.policy[s])
        d = g.direction(a)
        side = rect.width()
        if d not in DIRS and a in g.marks:  # an action that is not a move (Taxi's pick-up): its word
            box = QRectF(rect.left() + side * 0.04, rect.top() + side * 0.29, side * 0.92, side * 0.22)
            if not self.show_values:
                box = QRectF(rect.left(), rect.center().y() - side * 0.14, side, side * 0.28)
            words = g.marks[a]
            self._text(p, box, words, ink, min(side * 0.19, side * 0.92 / (0.64 * max(len(words), 3))), bold=True)
            return
        if d not in DIRS:
            return
        # every optimal action (figure 4.1's right-hand column: every action greedy with respect to V_k), the
        # solver's pick solid and the other tied ones outlined
        tied = [g.direction(b) for b in self.ties.get(s, ())]
        others = [k for k in DIRS if k in tied and k != d]
        for t in others:
            self._paint_one_arrow(p, rect, t, ink, outlined=True, spread=True)
        self._paint_one_arrow(p, rect, d, ink, spread=bool(others))
        if self.endless is not None and s < self.endless.size and self.endless[s]:
            self._paint_endless(p, rect)

    def _paint_endless(self, p: QPainter, rect: QRectF) -> None:
        """A cell the drawn policy never ends from (discount 1): an infinity sign in an orange pill at its
        top right (the legend under the grid says what it means)."""
        side = rect.width()
        px = max(10.0, min(side * 0.22, 30.0))
        box = QRectF(rect.right() - px * 1.6 - 2, rect.top() + 2, px * 1.6, px * 1.15)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(QColor(ENDLESS))
        p.drawRoundedRect(box, px * 0.3, px * 0.3)
        self._text(p, box, ENDLESS_MARK, QColor("#000000"), px, bold=True)

    def _paint_one_arrow(self, p: QPainter, rect: QRectF, d: str, ink: QColor, *, outlined: bool = False,
                         spread: bool = False) -> None:
        """The arrow of direction ``d``: solid (the solver's action) or ``outlined`` (an action tied with
        it: a hollow head on a thinner shaft); ``spread``: one of several in the cell, each starting at the
        centre and pointing out (a compass), so four in one cell stay apart and readable."""
        side = rect.width()
        start, length = arrow_geometry(side)
        dx, dy = DIRS[d]
        c = rect.center()
        if not self.show_values:  # no number to keep clear of: a longer arrow through the centre
            start, length = -0.3 * side, 0.72 * side
        elif side < COMPACT_SIDE:  # centred in the upper part of the cell, above the number
            length = min(0.6 * side, max(MIN_ARROW_PX, 0.45 * side)) if dx else min(0.5 * side, max(MIN_ARROW_PX, 0.4 * side))
            c = c + QPointF(0, -side * 0.14)
            start = -length / 2
            if spread:  # from the centre of the upper part outwards, the south one stopping above the number
                start, length = 0.03 * side, (0.32 if dx else 0.2 if dy > 0 else 0.3) * side
        a = c + QPointF(dx * start, dy * start)
        b = c + QPointF(dx * (start + length), dy * (start + length))
        head = max(8.0, length * 0.42)
        width = max(3.0, side * 0.05) * self.line_scale
        nx, ny = -dy, dx
        tri = QPolygonF([b, b - QPointF(dx * head, dy * head) + QPointF(nx * head * 0.55, ny * head * 0.55),
                         b - QPointF(dx * head, dy * head) - QPointF(nx * head * 0.55, ny * head * 0.55)])
        if outlined:
            thin = max(2.0, width * 0.55)
            p.setPen(QPen(ink, thin, Qt.PenStyle.SolidLine, Qt.PenCapStyle.FlatCap))
            p.drawLine(a, b - QPointF(dx * head, dy * head))
            p.setPen(QPen(ink, thin, Qt.PenStyle.SolidLine, Qt.PenCapStyle.FlatCap, Qt.PenJoinStyle.MiterJoin))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawPolygon(tri)
            return
        p.setPen(QPen(ink, width, Qt.PenStyle.SolidLine, Qt.PenCapStyle.FlatCap))
        p.drawLine(a, b - QPointF(dx * head * 0.6, dy * head * 0.6))
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(ink)
        p.drawPolygon(tri)


# ---------------------------------------------------------------------------------- the board
class GridBoard(GameBoard):
    """The game's board widget: view toggles, the grid canvas (or a table of states for an
    environment without a grid) and its own colour bar. Receives ``show_sweep`` / ``show_token``
    from the window like every game board."""

    has_color_bar = True
    """The window hides its shared colour bar while this board is shown (this one has its own map)."""

    def __init__(self, game: "GridGameBase", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.game = game
        self.setObjectName(f"{game.key}Board")
        self.setAccessibleName(f"{game.title} board")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        bar = QHBoxLayout()
        self.values_box = _named(QCheckBox("Values"), f"{game.key}ShowValues", "Show values")
        self.arrows_box = _named(QCheckBox("Policy arrows"), f"{game.key}ShowArrows", "Show policy arrows")
        self.q_box = _named(QCheckBox("Q triangles"), f"{game.key}ShowQ", "Show Q-values as triangles")
        self.q_box.setToolTip("Every action's Q(s, a) in the triangle facing its direction (CS188's picture); "
                              "the best is outlined in magenta")
        for b in (self.values_box, self.arrows_box):
            b.setChecked(True)
        for b in (self.values_box, self.arrows_box, self.q_box):
            b.toggled.connect(self._on_toggles)
            bar.addWidget(b)
        bar.addStretch(1)
        self.inspect_mode = _named(QRadioButton("Inspect"), f"{game.key}InspectMode", "Click inspects a cell")
        self.edit_mode = _named(QRadioButton("Edit cells"), f"{game.key}EditMode", "Click edits a cell")
        self.inspect_mode.setChecked(True)
        self.edit_mode.setToolTip("Click cycles a cell open \u2192 wall \u2192 exit \u2192 open; right-click for "
                                  "more (start here, exit reward). Undo with Ctrl+Z.")
        bar.addWidget(self.inspect_mode)
        bar.addWidget(self.edit_mode)
        if not game.editable:
            self.inspect_mode.hide()
            self.edit_mode.hide()
        lay.addLayout(bar)
        controls = game.board_controls()  # e.g. Taxi's passenger and destination: which slice is drawn
        if controls:
            row = QHBoxLayout()  # a row of their own: beside the toggles they widened presenter mode's window
            for w in controls:
                row.addWidget(w)
            row.addStretch(1)
            lay.addLayout(row)
        body = QHBoxLayout()
        self.stack = QStackedWidget()
        self.canvas = GridCanvas()
        self.canvas.cell_clicked.connect(self._on_click)
        self.canvas.cell_menu_requested.connect(self._on_menu)
        self.table = BoardView()  # environments without a grid: a table of states
        self.table.cell_clicked.connect(lambda s: self.inspect_requested.emit(int(s)))
        self.stack.addWidget(self.canvas)
        self.stack.addWidget(self.table)
        body.addWidget(self.stack, 1)
        self.color_bar = ColorBar()
        self.color_bar.setObjectName(f"{game.key}ColorBar")
        body.addWidget(self.color_bar)
        lay.addLayout(body, 1)
        self.legend = QLabel()  # every optimal action is drawn; where the policy never ends (hidden when neither)
        self.legend.setObjectName(f"{game.key}TiesLegend")
        self.legend.setAccessibleName("Ties and endless states")
        self.legend.setWordWrap(True)
        # one line kept for it always: the grid does not jump when ties appear during a run
        self.legend.setMinimumHeight(self.legend.fontMetrics().height())
        lay.addWidget(self.legend)
        self.sweep = None
        self.scale: ColorScale | None = None
        self._range: tuple[float, float, bool] = (0.0, 1.0, False)
        self.predict = False
        self.revealed: set[int] = set()
        self.stale = ""
        self.canvas.hidden = lambda s: self.predict and s not in self.revealed
        game.session.edited.connect(self._on_edited)

    # -------------------------------------------------------------- the window's calls
    def color_range(self) -> tuple[float, float]:
        """(low, high) of the colour scale in use (fixed for a solve)."""
        return self._range[0], self._range[1]

    def bar_scale(self) -> ColorScale:
        """The colour scale the canvas draws with, as the colour bar shows it: the kind of map it uses
        (diverging, symmetric about 0, when the values have both signs; else sequential) and the unit."""
        low, high, div = self._range
        unit = self.game.session.game.unit
        label = self.game.session.game.value_label + (f" ({unit}{'; 0 = grey' if div else ''})" if unit else
                                         (" (0 = grey)" if div else ""))
        return ColorScale(low, high, label, DIVERGING if div else SEQUENTIAL)

    def show_sweep(self, sw, scale: ColorScale | None, *, caption: str = "", previous: Any = None,
                   delta: ColorScale | None = None) -> None:
        """Draw snapshot ``sw`` (None: the unsolved board) with the solve's scale ``scale`` (on its own
        diverging map: no delta view)."""
        mdp = self.game.session.mdp()
        geom = self.game.geometry()
        self.sweep = sw
        if sw is not None:
            self.stale = ""
        elif self.stale and mdp is not None:
            caption = f"Edited ({self.stale}): the old solution is stale \u2014 press Step or Run"
        fixed = list(geom.fixed.values()) if geom is not None else []
        if scale is not None and scale != self.scale:
            self.scale = scale
        lo, hi = (scale.lo, scale.hi) if scale is not None else (min(fixed, default=0.0), max(fixed, default=1.0))
        self._range = grid_color_range(lo, hi, fixed)
        if geom is None:  # the table of states is the shared cell board: its sequential map, its range
            self._range = (lo, hi, False) if hi > lo else (lo - 0.5, hi + 0.5, False)
        low, high, div = self._range
        self.color_bar.show_scale(self.bar_scale() if (sw is not None or fixed) else None)
        self.legend.setText("")  # (the table of states writes its own legend under it)
        self.legend.setMinimumHeight(self.legend.fontMetrics().height())  # (presenter mode: its larger font)
        if geom is None:
            self.stack.setCurrentWidget(self.table)
            self._show_table(mdp, sw, caption)
            return
        self.stack.setCurrentWidget(self.canvas)
        cv = self.canvas
        cv.geometry_, cv.mdp = geom, mdp
        cv.set_scale(low, high, div)
        cv.values = None if sw is None else np.asarray(sw.values)
        cv.unvisited = None  # (a learner's frame marks them after this, see show_unvisited)
        cv.change_map = False
        cv.policy = None if sw is None else np.asarray(sw.policy)
        cv.q = {} if sw is None or mdp is None else gw.q_by_direction(geom, mdp, q_source(sw, previous))
        cv.updated = (geom.cell_of(int(sw.updated[0])) if sw is not None and len(getattr(sw, "updated", ())) == 1
                      else None)
        # a learner's snapshot (phase "episode") marks the states whose learned action is not optimal
        cv.marked = tuple(int(x) for x in sw.changed) if sw is not None and sw.phase == "episode" else ()
        # every optimal action, from the values the inspector backs up from (the shown ones: this board draws
        # greedy moves of the shown values); the cells the drawn policy never ends from (discount 1)
        solved = backed_up(sw) and mdp is not None and np.shape(sw.values) == (mdp.n_states,)
        ties = sweep_ties(mdp, (sw,), 0, greedy_of_shown=True) if solved else {}
        # the arrows of open cells only (an exit, a hole or a goal draws none: its one-way ties are not counted)
        if ties:
            flat = np.asarray(geom.state).ravel()
            at = np.full(mdp.n_states, -1, dtype=np.int64)  # state -> its cell's index in reading order
            at[flat[flat >= 0]] = np.flatnonzero(flat >= 0)
            kinds = [k for row in geom.kind for k in row]
            ties = {s: acts for s, acts in ties.items() if at[s] >= 0 and kinds[at[s]] == "open"}
        cv.ties = ties
        cv.endless = endless_states(mdp, sw.policy) if solved else None
        self.legend.setText(board_legend(cv.ties if solved else None, cv.endless))
        cv.caption = caption
        cv.update()

    def _show_table(self, mdp: TabularMDP | None, sw, caption: str) -> None:
        t = self.table
        if mdp is None:
            t.set_board(grid_layout(1), {})
            t.show_frame(None, None)
            t.caption = caption
            t.update()
            return
        n = mdp.n_states
        if len(t.layout_.cells) != n:
            labels = [str(s) for s in range(n)]
            t.set_board(grid_layout(n, labels=labels), {})
            t.state_names = StateNames(self.game.session.state_name, n)  # named when asked, as on cell boards
        if sw is None:
            t.show_frame(None, None)
        else:
            low, high, _ = self._range
            # the shared board marks changed cells against the previous sweep; the board here has only the
            # shown one, so nothing is marked (the convergence plot counts the changes)
            solved = backed_up(sw) and np.shape(sw.values) == (mdp.n_states,)
            t.show_frame(board_frame(sw.values, sw.policy, scale=ColorScale(low, high), terminal=mdp.terminal,
                                     badge=lambda a: self.game.badge(a, mdp), caption=caption,
                                     prev_values=sw.values, prev_policy=sw.policy,
                                     ties=sweep_ties(mdp, (sw,), 0, greedy_of_shown=True) if solved else None,
                                     endless=endless_states(mdp, sw.policy) if solved else None),
                         ColorScale(low, high))
        t.caption = caption
        t.update()

    def show_change(self, diff: Any, mode: str, scale: ColorScale | None = None) -> bool:
        """The live re-solve's policy diff on the grid just shown: the states whose optimal actions
        changed outlined in dashed magenta; "difference": the cells coloured by dV on the diverging
        ``scale`` (its colour bar beside the grid), the signed change printed, the new policy's arrows."""
        mdp = self.game.session.mdp()
        cv = self.canvas
        if self.stack.currentWidget() is not cv or self.sweep is None or mdp is None or \
                np.shape(diff.changed) != (mdp.n_states,):
            return False
        cv.marked = tuple(int(x) for x in np.flatnonzero(diff.changed))
        if mode == "difference" and scale is not None:
            cv.values = np.asarray(diff.dv, dtype=np.float64)
            cv.change_map = True
            cv.q = {}
            cv.set_scale(scale.lo, scale.hi, True)
            self.color_bar.show_scale(scale)
        cv.update()
        return True

    def show_selection(self, state: int | None, successors: dict[int, float] | None = None) -> None:
        """Outline the inspected state and the cells it may move to (state -> probability)."""
        geom = self.game.geometry()
        cv = self.canvas
        cv.selected = None if state is None or geom is None else geom.cell_of(int(state))
        cv.successors = {} if geom is None else {
            cell: p for d, p in (successors or {}).items() if (cell := geom.cell_of(int(d))) is not None}
        self.table.show_selection(state, successors)
        cv.update()

    def state_rect(self, state: int) -> QRectF | None:
        geom = self.game.geometry()
        cell = None if geom is None or not self.canvas.isVisibleTo(self) else geom.cell_of(int(state))
        if cell is None:
            return None
        return self.canvas.cell_rect(*cell).translated(QPointF(self.canvas.mapTo(self, QPoint(0, 0))))

    def show_chain(self, states) -> None:
        """Outline the inspector's chain of backups in order, each cell numbered (fewer than two states: none)."""
        geom = self.game.geometry()
        labels = outline_labels(states)
        self.canvas.chain_labels = {} if geom is None else {
            cell: label for s, label in labels.items() if (cell := geom.cell_of(int(s))) is not None}
        self.table.show_chain(states)
        self.canvas.update()

    def show_unvisited(self, states: Any) -> bool:
        if self.stack.currentWidget() is not self.canvas:
            return False
        cv = self.canvas
        cv.unvisited = None if states is None else np.asarray(states, dtype=bool)
        if cv.unvisited is not None:  # (an unvisited cell is not "not optimal": it has learned nothing)
            cv.marked = tuple(x for x in cv.marked if not cv.is_unvisited(x))
        cv.update()
        return True

    def show_token(self, state: int | None, text: str = "") -> None:
        """The episode's agent on ``state`` (None: no token)."""
        if state is not None:
            self.game.follow_state(int(state))
        self.canvas.token = state
        self.table.show_token(state, text)
        if text and self.sweep is not None:
            self.canvas.caption = text
        self.canvas.update()

    def set_view_style(self, *, text_scale: float = 1.0, line_scale: float = 1.0, outline: str = "#444444") -> None:
        """The window's presenter and high-contrast modes thicken the grid's outlines and arrows."""
        self.canvas.line_scale = float(line_scale)
        self.canvas.update()

    def set_predict_mode(self, on: bool) -> None:
        self.predict = bool(on)
        self.revealed = set()
        self.canvas.update()
        self.table.set_predict_mode(on)

    def hide_all(self) -> None:
        self.revealed = set()
        self.canvas.update()
        self.table.hide_all()

    # -------------------------------------------------------------- clicks
    def _on_toggles(self) -> None:
        cv = self.canvas
        cv.show_values, cv.show_arrows, cv.show_q = (self.values_box.isChecked(), self.arrows_box.isChecked(),
                                                     self.q_box.isChecked())
        cv.update()

    def set_q_view(self, on: bool) -> None:
        """Show every action's Q as four triangles per cell (the toggle's own method, for tests and scripts)."""
        self.q_box.setChecked(bool(on))

    def show_model(self, known, tried=None, planned=(), *, switched: bool = False) -> bool:
        """A planning method's model on the grid (:func:`~mdpviz.widgets.dyna.show_grid_model`)."""
        return show_grid_model(self, known, tried, planned, switched=switched)

    def _on_edited(self, text: str) -> None:
        self.stale = text

    def _on_click(self, r: int, c: int) -> None:
        geom = self.game.geometry()
        if self.edit_mode.isChecked() and self.game.editable:
            self.game.cycle_cell(r, c)
            return
        if geom is None:
            return
        s = int(geom.state[r, c])
        if s < 0:
            return
        if self.predict:
            self.revealed.add(s)
        self.canvas.selected = (r, c)
        self.canvas.update()
        self.inspect_requested.emit(s)

    def _on_menu(self, r: int, c: int, pos) -> None:
        menu = self.cell_menu(r, c)
        if not menu.isEmpty():
            menu.exec(pos)

    def cell_menu(self, r: int, c: int) -> QMenu:
        """The right-click menu of a cell: inspect, then the game's edits."""
        menu = QMenu(self)
        menu.setObjectName("gridCellMenu")
        geom = self.game.geometry()
        s = -1 if geom is None else int(geom.state[r, c])
        if s >= 0:
            menu.addAction(f"Inspect row {r + 1}, column {c + 1}", lambda: self._on_click_inspect(r, c))
        for text, fn in self.game.grid_menu(r, c):
            a = menu.addAction(text)
            if fn is None:
                a.setEnabled(False)
            else:
                a.triggered.connect(lambda _c=False, fn=fn: fn())
        return menu

    def _on_click_inspect(self, r: int, c: int) -> None:
        was = self.edit_mode.isChecked()
        self.inspect_mode.setChecked(True)
        self._on_click(r, c)
        self.edit_mode.setChecked(was)


# ---------------------------------------------------------------------------------- games
class GridGameBase(Game):
    """What the grid world's and the Gymnasium game's views share: the board. A subclass sets
    :attr:`spec` (its game's headless spec); what the spec builds has the grid's ``geometry``."""

    editable = False
    """The board's "Edit cells" mode is offered (see :meth:`cycle_cell`, :meth:`grid_menu`)."""

    def __init__(self, session: GameSession | None = None, parent: QObject | None = None) -> None:
        super().__init__(session, parent)
        self._board: GridBoard | None = None
        self._editor: QWidget | None = None

    def geometry(self) -> gw.GridGeometry | None:
        """The grid the board draws (None: no model, or an environment without a grid)."""
        built = self.session.built()
        return None if built is None else built.geometry

    def board_widget(self) -> GridBoard:
        if self._board is None:
            self._board = GridBoard(self)
        return self._board

    def grid_menu(self, r: int, c: int) -> list[tuple[str, Callable[[], None] | None]]:
        return []

    def board_controls(self) -> list[QWidget]:
        """Controls the board puts beside its view toggles (built once, with the board)."""
        return []

    def follow_state(self, state: int) -> None:
        """The episode's token is on ``state``: show the part of the board that has it (Taxi's slice)."""

    def cycle_cell(self, r: int, c: int) -> bool:
        return False


__all__ = ["GridBoard", "GridCanvas", "GridGameBase", "triangle"]
