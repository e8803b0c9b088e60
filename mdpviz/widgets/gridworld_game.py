"""Grid worlds and Gymnasium environments in the window: the board, the editor and the two games.

* :class:`GridWorldGame` ("Grid world"): CS188's maps and map files (rules in
  :mod:`mdpviz.models.gridworld`), edited on the board with undo: click a cell in edit mode to cycle
  open -> wall -> exit -> open, right-click for a menu (wall, open, exit with the editor's reward,
  start here), fields for noise and living reward, the convention, the map.
* :class:`GymGame` ("Gymnasium environment"): any environment with a transition table
  (:mod:`mdpviz.models.gymnasium_bridge`); FrozenLake and CliffWalking open on the grid board,
  others (Taxi) on a table of states named by the environment.
* :class:`GridBoard`: values as colour with numbers, the policy as arrows, every action's Q as
  four triangles per cell (CS188's picture), the episode's agent token, its own colour bar (a
  diverging colour-blind-safe map centred on 0 when the values have both signs, viridis
  otherwise; fixed for a solve: the window's range of the solve joined with the values shown).

The board only draws; the models compute. What it draws comes from the pure functions at the top.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QPainter, QPen, QPolygonF
from PySide6.QtWidgets import (
    QCheckBox, QComboBox, QDoubleSpinBox, QFileDialog, QFormLayout, QHBoxLayout, QLabel, QLineEdit, QMenu,
    QPushButton, QRadioButton, QSizePolicy, QStackedWidget, QToolTip, QVBoxLayout, QWidget,
)

from mdpviz.models import gridworld as gw
from mdpviz.models.mdp import TabularMDP
from mdpviz.models.simulate import policy_matrix, uniform_policy_matrix
from mdpviz.scenario import ScenarioError
from mdpviz.solvers import solve
from mdpviz.widgets import named as _named
from mdpviz.widgets.board import BoardView, ColorBar
from mdpviz.models.colors import COLORMAP, ColorScale, black_text
from mdpviz.models.display import board_frame
from mdpviz.models.episodes import sample_mdp_episode
from mdpviz.widgets.game import Game, strategy_simulation_job
from mdpviz.widgets.geometry import grid_layout

LUT_SIZE = 256
"""Colours sampled from the colour map (more than a projector can tell apart)."""
DIVERGING_MAP = "CET-CBD1"
"""pyqtgraph colour map for values of both signs: ColorCET's colour-blind-safe diverging map
(blue - grey - yellow), centred on 0."""
SEQUENTIAL_MAP = COLORMAP
"""pyqtgraph colour map for values of one sign (the window's heatmap map, viridis)."""
MIN_ARROW_PX = 24.0
"""Arrows are at least this long (pixels) wherever a cell can hold them (readable on a projector)."""
WALL_FILL = "#3a3a3a"
TOKEN = "#cc79a7"  # Okabe-Ito reddish purple: not in either colour map
SELECTED = "#000000"
SUCCESSOR = "#56b4e9"  # Okabe-Ito sky blue, as on the shared board
BEST_Q = "#ff00aa"  # the best action's triangle outline (magenta: in neither map)
GUI_MAX_PAIRS = 200_000
"""Largest (state, action) count the window imports from a Gymnasium environment (on the GUI thread)."""


# ---------------------------------------------------------------------------------- pure helpers
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


def triangle(rect: QRectF, direction: str) -> QPolygonF:
    """The quarter of a cell between its centre and the edge facing ``direction`` (CS188's Q triangles)."""
    c = rect.center()
    tl, tr, bl, br = rect.topLeft(), rect.topRight(), rect.bottomLeft(), rect.bottomRight()
    pts = {"north": (tl, tr), "east": (tr, br), "south": (br, bl), "west": (bl, tl)}[direction]
    return QPolygonF([c, pts[0], pts[1]])


def arrow_geometry(side: float) -> tuple[float, float]:
    """(start offset, length) of a policy arrow from a cell's centre, in pixels: at least
    MIN_ARROW_PX long when the cell is wide enough, never past the cell's edge."""
    length = max(0.3 * side, min(MIN_ARROW_PX, 0.42 * side))
    start = max(0.06 * side, 0.47 * side - length)
    return start, length


TINY_SIDE = 16.0
"""Cells narrower than this (pixels) are drawn as colour only, without numbers, arrows or labels."""
COMPACT_SIDE = 90.0
"""Cells narrower than this (pixels) stack the arrow above the number instead of beside it."""

DIRS: dict[str, tuple[float, float]] = {"north": (0.0, -1.0), "east": (1.0, 0.0), "south": (0.0, 1.0), "west": (-1.0, 0.0)}


# ---------------------------------------------------------------------------------- the canvas
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
        self.lo, self.hi, self.diverging = 0.0, 1.0, False
        self.set_scale(0.0, 1.0, False)
        self.show_values = True
        self.show_arrows = True
        self.show_q = False
        self.token: int | None = None
        self.selected: tuple[int, int] | None = None
        self.successors: dict[tuple[int, int], float] = {}
        self.hidden: Callable[[int], bool] = lambda s: False
        self.caption = ""

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
        if self.values is not None and not self.hidden(s):
            v = gw.cell_value(g, self.values, r, c)
            lines.append(f"V = {v:.6g}" + (" (terminal: U = R(s))" if (r, c) in g.fixed else ""))
            for d, q in self.q.get(s, {}).items():
                lines.append(f"Q({d}) = {q:.6g}")
        return "\n".join(lines)

    # -------------------------------------------------------------- painting
    def line_scale(self) -> float:
        """Factor on outlines and arrows: thicker in the window's presenter and high-contrast modes
        (the factors of the shared board, read from the window this board is in)."""
        w = self.window()
        return (1.6 if getattr(w, "presenter", False) else 1.0) * (1.4 if getattr(w, "high_contrast", False) else 1.0)

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
        lw = self.line_scale()
        p.setPen(QPen(QColor("#222222"), 2 * lw))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRect(QRectF(ox, oy, side * g.cols, side * g.rows))
        for cell, prob in self.successors.items():  # where the inspected state's action may lead
            if cell == self.selected:
                continue
            p.setPen(QPen(QColor(SUCCESSOR), max(2.0, side * 0.035) * self.line_scale(), Qt.PenStyle.DashLine))
            p.drawRect(self.cell_rect(*cell).adjusted(4, 4, -4, -4))
        if self.selected is not None:
            p.setPen(QPen(QColor(SELECTED), max(3.0, side * 0.05) * lw))
            p.drawRect(self.cell_rect(*self.selected).adjusted(2, 2, -2, -2))
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
                          self.fontMetrics().height() + 4), Qt.AlignmentFlag.AlignCenter, self.caption)

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
            v = None if self.values is None else gw.cell_value(g, self.values, r, c)
            p.fillRect(rect, QColor("#f4f4f4") if v is None or self.hidden(s) else self.color(v))
            return
        hidden = self.hidden(s)
        v = None if self.values is None or hidden else gw.cell_value(g, self.values, r, c)
        q = None if hidden else self.q.get(s)
        moves_q = {d: x for d, x in (q or {}).items() if d in DIRS}
        if self.show_q and moves_q and self.values is not None:
            best = max(moves_q.values())
            for d, x in moves_q.items():
                tri = triangle(rect, d)
                fill = self.color(x)
                p.setBrush(fill)
                p.setPen(QPen(QColor("#555555"), 1))
                p.drawPolygon(tri)
            for d, x in moves_q.items():
                if abs(x - best) <= 1e-9 * max(1.0, abs(best)):
                    p.setBrush(Qt.BrushStyle.NoBrush)
                    p.setPen(QPen(QColor(BEST_Q), max(2.0, side * 0.03)))
                    p.drawPolygon(triangle(rect.adjusted(3, 3, -3, -3), d))
            for d, x in moves_q.items():
                dx, dy = DIRS[d]
                off = 0.25 if dx else 0.31  # a number is wider than tall: east and west sit nearer the centre
                cen = rect.center() + QPointF(dx * side * off, dy * side * off)
                box = QRectF(cen.x() - side * 0.22, cen.y() - side * 0.09, side * 0.44, side * 0.18)
                txt = f"{x:.2f}" if abs(x) < 10 else f"{x:.1f}" if abs(x) < 100 else f"{x:.0f}"
                self._text(p, box, txt, self.ink_for(x), side * (0.16 if len(txt) <= 4 else 0.13), bold=True)
        else:
            fill = QColor("#f4f4f4") if v is None else self.color(v)
            p.fillRect(rect, fill)
            ink = QColor("#000000") if v is None else self.ink_for(v)
            if v is not None and self.show_values:
                digits = 2 if side < 90 else 3 if abs(v) < 100 else 1
                txt = f"{v:.{digits}f}"
                a = int(self.policy[s]) if (self.policy is not None and self.show_arrows and kind == "open"
                                            and not self.mdp.terminal[s] and self.policy[s] >= 0) else -1
                d = g.direction(a) if a >= 0 else ""
                shift = QPointF(0, 0)
                if side < COMPACT_SIDE and d in DIRS:  # small cells: the number below, the arrow above
                    shift = QPointF(0, side * 0.24)
                elif d in DIRS:  # the number moves away from the arrow
                    dx, dy = DIRS[d]
                    shift = QPointF(-dx * side * 0.14, -dy * side * 0.14)
                box = QRectF(rect.left(), rect.center().y() - side * 0.14, side, side * 0.28).translated(shift)
                px = min(side * (0.17 if len(txt) <= 5 else 0.14), 34.0)  # large cells: readable, clear of the arrow
                if side < COMPACT_SIDE:  # small cells: the number as large as the cell's width allows
                    px = side * (0.25 if len(txt) <= 4 else 0.2)
                self._text(p, box, txt, ink, px, bold=True)
            if self.show_arrows and self.policy is not None and self.values is not None and not hidden:
                self._paint_arrow(p, rect, s, ink, kind)
            p.setPen(QPen(QColor("#555555"), 1))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRect(rect)
        if kind in ("exit", "hazard"):
            p.setPen(QPen(QColor("#000000") if kind == "exit" else QColor("#d55e00"),
                          max(2.0, side * 0.035) * self.line_scale()))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRect(rect.adjusted(side * 0.06, side * 0.06, -side * 0.06, -side * 0.06))
        lab = g.label[r][c]
        if (r, c) == g.start and lab != "S":
            lab = ("S " + lab).strip()
        if lab:
            box = QRectF(rect.left() + side * 0.08, rect.top() + side * 0.07, side * 0.84, side * 0.2)
            f = QFont(self.font())
            f.setPixelSize(max(9, int(side * 0.14)))
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
        d = g.direction(int(self.policy[s]))
        if d not in DIRS:
            return
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
        a = c + QPointF(dx * start, dy * start)
        b = c + QPointF(dx * (start + length), dy * (start + length))
        head = max(8.0, length * 0.42)
        width = max(3.0, side * 0.05) * self.line_scale()
        p.setPen(QPen(ink, width, Qt.PenStyle.SolidLine, Qt.PenCapStyle.FlatCap))
        p.drawLine(a, b - QPointF(dx * head * 0.6, dy * head * 0.6))
        nx, ny = -dy, dx
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(ink)
        p.drawPolygon(QPolygonF([b, b - QPointF(dx * head, dy * head) + QPointF(nx * head * 0.55, ny * head * 0.55),
                                 b - QPointF(dx * head, dy * head) - QPointF(nx * head * 0.55, ny * head * 0.55)]))


# ---------------------------------------------------------------------------------- the board
class GridBoard(QWidget):
    """The game's board widget: view toggles, the grid canvas (or a table of states for an
    environment without a grid) and its own colour bar. Receives ``show_sweep`` / ``show_token``
    from the window like every game board."""

    inspect_requested = Signal(int)
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
        self.q_box = _named(QCheckBox("Q-values (4 triangles)"), f"{game.key}ShowQ", "Show Q-values as triangles")
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
        self.sweep = None
        self.scale: ColorScale | None = None
        self._range: tuple[float, float, bool] = (0.0, 1.0, False)
        self.predict = False
        self.revealed: set[int] = set()
        self.stale = ""
        self.canvas.hidden = lambda s: self.predict and s not in self.revealed
        game.edited.connect(self._on_edited)

    # -------------------------------------------------------------- the window's calls
    def color_range(self) -> tuple[float, float]:
        """(low, high) of the colour scale in use (fixed for a solve)."""
        return self._range[0], self._range[1]

    def show_sweep(self, sw, scale: ColorScale | None, *, caption: str = "") -> None:
        """Draw snapshot ``sw`` (None: the unsolved board) with the solve's scale ``scale``."""
        mdp = self.game.mdp()
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
        label = self.game.value_label + (" (diverging, 0 = grey)" if div else "")
        self.color_bar.bar.setColorMap(pg.colormap.get(DIVERGING_MAP if div else SEQUENTIAL_MAP))
        self.color_bar.show_scale(ColorScale(low, high, label) if (sw is not None or fixed) else None)
        if geom is None:
            self.stack.setCurrentWidget(self.table)
            self._show_table(mdp, sw, caption)
            return
        self.stack.setCurrentWidget(self.canvas)
        cv = self.canvas
        cv.geometry_, cv.mdp = geom, mdp
        cv.set_scale(low, high, div)
        cv.values = None if sw is None else np.asarray(sw.values)
        cv.policy = None if sw is None else np.asarray(sw.policy)
        cv.q = {} if sw is None or mdp is None else gw.q_by_direction(geom, mdp, np.asarray(sw.values))
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
            t.state_names = {s: self.game.state_name(s) for s in range(n)}
        if sw is None:
            t.show_frame(None, None)
        else:
            low, high, _ = self._range
            # the shared board marks changed cells against the previous sweep; the board here has only the
            # shown one, so nothing is marked (the convergence plot counts the changes)
            t.show_frame(board_frame(sw.values, sw.policy, scale=ColorScale(low, high), terminal=mdp.terminal,
                                     badge=lambda a: self.game.badge(a, mdp), caption=caption,
                                     prev_values=sw.values, prev_policy=sw.policy),
                         ColorScale(low, high))
        t.caption = caption
        t.update()

    def show_selection(self, state: int | None, successors: dict[int, float] | None = None) -> None:
        """Outline the inspected state and the cells it may move to (state -> probability)."""
        geom = self.game.geometry()
        cv = self.canvas
        cv.selected = None if state is None or geom is None else geom.cell_of(int(state))
        cv.successors = {} if geom is None else {
            cell: p for d, p in (successors or {}).items() if (cell := geom.cell_of(int(d))) is not None}
        self.table.show_selection(state, successors)
        cv.update()

    def show_token(self, state: int | None, text: str = "") -> None:
        """The episode's agent on ``state`` (None: no token)."""
        self.canvas.token = state
        self.table.show_token(state, text)
        if text and self.sweep is not None:
            self.canvas.caption = text
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
    """What the grid world and the Gymnasium games share: the board, strategies, simulation, episodes."""

    value_label = "value V(s)"
    unit = "return"
    supports_discount = True
    editable = False

    def __init__(self, state: Any, parent: QObject | None = None) -> None:
        super().__init__(state, parent)
        self._board: GridBoard | None = None
        self._editor: QWidget | None = None

    def geometry(self) -> gw.GridGeometry | None:
        raise NotImplementedError

    def board_widget(self) -> GridBoard:
        if self._board is None:
            self._board = GridBoard(self)
        return self._board

    def board_layout(self, mdp, policy):
        from mdpviz.widgets.geometry import BoardLayout

        return BoardLayout(())

    def grid_menu(self, r: int, c: int) -> list[tuple[str, Callable[[], None] | None]]:
        return []

    def cycle_cell(self, r: int, c: int) -> bool:
        return False

    def state_name(self, s: int) -> str:
        m = self.mdp()
        if m is not None and m.state_labels is not None and 0 <= s < m.n_states:
            return m.state_labels[s]
        return str(s)

    def strategies(self, mdp: TabularMDP) -> list[str]:
        return ["optimal", "random"]

    def strategy_probs(self, name: str, mdp: TabularMDP, policy: np.ndarray | None) -> np.ndarray:
        if name == "optimal":
            if policy is None:
                raise ValueError("the optimal strategy needs a solved model: run the solver first")
            return policy_matrix(mdp, policy)
        if name == "random":
            return uniform_policy_matrix(mdp)
        raise ValueError(f"unknown strategy {name!r}")

    def max_steps(self, mdp: TabularMDP) -> int:
        """Steps per simulated episode: until gamma^t < 1e-9, at most 1,000 (a random walk may wander)."""
        if 0.0 < mdp.discount < 1.0:
            return int(min(1_000, math.ceil(math.log(1e-9) / math.log(mdp.discount))))
        return 1_000

    def simulation_job(self, mdp, policy, *, games, seed):
        start = self.start_state()
        return strategy_simulation_job(self, mdp, policy, games=games, seed=seed, start=start,
                                       start_name=self.state_name(start),
                                       optimal=lambda: solve(mdp, "vi", tol=1e-12).policy)

    def episode(self, mdp, probs, rng):
        return sample_mdp_episode(mdp, probs, rng=rng, start=self.start_state(), max_steps=200,
                                  state_name=self.state_name, action_name=lambda a: self.action_name(a, mdp))


@dataclass(frozen=True)
class GymState:
    """The "Gymnasium environment" game's edits."""

    env_id: str = "FrozenLake-v1"
    """Environment id for ``gymnasium.make``."""
    kwargs: tuple[tuple[str, str], ...] = (("map_name", "'4x4'"), ("is_slippery", "True"))
    """Keyword arguments as (name, Python literal) pairs."""
    discount: float = 0.99
    """Discount gamma (Gymnasium's environments have none)."""

    def kwargs_dict(self) -> dict[str, Any]:
        from mdpviz.models.gymnasium_bridge import parse_kwargs

        return parse_kwargs([f"{k}={v}" for k, v in self.kwargs])


class GridWorldGame(GridGameBase):
    """A grid world (CS188's maps or a map file) in either convention, edited on the board."""

    key = "gridworld"
    title = "Grid world"
    editable = True

    def __init__(self, settings: gw.GridSettings | None = None, parent: QObject | None = None) -> None:
        super().__init__(settings or gw.GridSettings(), parent)
        self.new_exit_reward = 1.0
        """Reward of an exit made by a click (the editor's field)."""
        self._compiled: tuple[Any, gw.GridWorld] | None = None

    @property
    def settings(self) -> gw.GridSettings:
        return self._state

    def world(self) -> gw.GridWorld:
        if self._compiled is None or self._compiled[0] is not self._state:
            self._compiled = (self._state, gw.compile_gridworld(self._state))
        return self._compiled[1]

    def build_mdp(self) -> TabularMDP:
        return self.world().mdp

    def geometry(self) -> gw.GridGeometry | None:
        try:
            return self.world().geometry
        except ValueError:
            return None

    def start_state(self) -> int:
        try:
            return self.world().start_state
        except ValueError:
            return 0

    def state_name(self, s: int) -> str:
        geom = self.geometry()
        cell = None if geom is None else geom.cell_of(s)
        if cell is None:
            return "exited" if self.settings.convention == "cs188" else str(s)
        return f"(row {cell[0] + 1}, col {cell[1] + 1})"

    def strategies(self, mdp):
        return ["optimal", "random"]

    # -------------------------------------------------------------- edits
    def set_discount(self, gamma: float) -> bool:
        gamma = float(gamma)
        if not 0.0 <= gamma <= 1.0:
            raise ValueError(f"discount must be in [0, 1], got {gamma}")
        return self._try(replace(self.settings, discount=gamma), f"discount {gamma:g}")

    def set_noise(self, noise: float) -> bool:
        return self._try(replace(self.settings, noise=float(noise)), f"noise {float(noise):g}")

    def set_living_reward(self, r: float) -> bool:
        return self._try(replace(self.settings, living_reward=float(r)), f"living reward {float(r):g}")

    def set_convention(self, conv: str) -> bool:
        return self._try(replace(self.settings, convention=conv), f"convention {conv}")

    def set_map(self, grid: gw.GridMap, text: str = "") -> bool:
        return self._try(replace(self.settings, grid=grid), text or f"map {grid.name}")

    def open_map_file(self, path: str | Path) -> bool:
        """Load a map file as an edit; GridFileError (file:line) leaves the current map untouched."""
        return self.set_map(gw.read_grid(path), f"opened {Path(path).name}")

    def _try(self, new: gw.GridSettings, text: str) -> bool:
        """Apply an edit if the new settings are valid; otherwise say why and keep the old ones."""
        try:
            new.validate()
        except ValueError as e:
            self.message.emit(f"Not applied: {e}")
            return False
        return self.edit(new, text)

    def set_cell(self, r: int, c: int, value: gw.Cell) -> bool:
        g = self.settings.grid
        if (r, c) == g.start and value != gw.OPEN:
            self.message.emit("The start cell must stay open: move the start first (right-click another cell).")
            return False
        what = "wall" if value == gw.WALL else "open" if value == gw.OPEN else f"exit {float(value):+g}"
        return self.set_map(g.with_cell(r, c, value), f"row {r + 1}, column {c + 1}: {what}")

    def cycle_cell(self, r: int, c: int) -> bool:
        """Edit mode's click: open -> wall -> exit (the editor's reward) -> open."""
        x = self.settings.grid.cells[r][c]
        nxt: gw.Cell = gw.WALL if x == gw.OPEN else (float(self.new_exit_reward) if x == gw.WALL else gw.OPEN)
        return self.set_cell(r, c, nxt)

    def move_start(self, r: int, c: int) -> bool:
        g = self.settings.grid
        if g.cells[r][c] != gw.OPEN:
            self.message.emit("The start must be an open cell.")
            return False
        return self.set_map(replace(g, start=(r, c)), f"start at row {r + 1}, column {c + 1}")

    def grid_menu(self, r, c):
        x = self.settings.grid.cells[r][c]
        rew = float(self.new_exit_reward)
        out: list[tuple[str, Callable[[], None] | None]] = [
            ("Open cell" + (" \u2713" if x == gw.OPEN else ""), lambda: self.set_cell(r, c, gw.OPEN)),
            ("Wall" + (" \u2713" if x == gw.WALL else ""), lambda: self.set_cell(r, c, gw.WALL)),
            (f"Exit with reward {rew:+g} (the editor's exit reward)", lambda: self.set_cell(r, c, rew)),
        ]
        out.append(("Start here", (lambda: self.move_start(r, c)) if x == gw.OPEN else None))
        return out

    # -------------------------------------------------------------- panels
    def editor(self) -> QWidget:
        if self._editor is None:
            self._editor = GridEditor(self)
        return self._editor

    def lesson(self):
        return gridworld_lesson(self)

    def to_dict(self) -> dict[str, Any]:
        st = self.settings
        return {"map": st.grid.to_text(), "name": st.grid.name, "noise": st.noise,
                "living_reward": st.living_reward, "discount": st.discount, "convention": st.convention}

    def load_dict(self, data: dict[str, Any], path: str) -> gw.GridSettings:
        where = "games.gridworld"
        text = data.get("map")
        if not isinstance(text, str):
            raise ScenarioError(path, f"{where}.map", "must be the map's text")
        try:
            grid = gw.parse_grid(text, "<map>")
        except gw.GridFileError as e:
            raise ScenarioError(path, f"{where}.map", str(e)) from None
        name = data.get("name", grid.name)
        grid = replace(grid, name=str(name))
        vals = {}
        for k in ("noise", "living_reward", "discount"):
            v = data.get(k, getattr(gw.GridSettings(), k))
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise ScenarioError(path, f"{where}.{k}", f"must be a number, got {v!r}")
            vals[k] = float(v)
        st = gw.GridSettings(grid=grid, convention=str(data.get("convention", "cs188")), **vals)
        try:
            return st.validate()
        except ValueError as e:
            raise ScenarioError(path, where, str(e)) from None


class GymGame(GridGameBase):
    """A Gymnasium environment's transition table (needs the optional ``gymnasium`` package)."""

    key = "gym"
    title = "Gymnasium environment"

    def __init__(self, state: GymState | None = None, parent: QObject | None = None) -> None:
        super().__init__(state or GymState(), parent)
        self._env: tuple[Any, Any, TabularMDP, gw.GridGeometry | None, int] | None = None

    @property
    def gstate(self) -> GymState:
        return self._state

    def _imported(self, st: GymState | None = None):
        """(key, -, model, geometry, start) of ``st`` (default: the current state), cached by
        environment id and keyword arguments; ValueError with a one-line reason otherwise."""
        from mdpviz.models import gymnasium_bridge as gb

        st = st or self.gstate
        key = (st.env_id, st.kwargs)
        if self._env is None or self._env[0] != key:
            try:
                env = gb.make_env(st.env_id, st.kwargs_dict())
            except gb.GymnasiumMissing as e:
                raise ValueError(str(e)) from None
            try:
                u = env.unwrapped
                n = int(getattr(u.observation_space, "n", 0) or 0) * int(getattr(u.action_space, "n", 0) or 0)
                if n > GUI_MAX_PAIRS:
                    raise ValueError(f"{n:,} (state, action) pairs is more than the window imports ({GUI_MAX_PAIRS:,}); "
                                     "use mdpviz gym on the command line")
                mdp = gb.from_gymnasium(env, discount=st.discount)
                self._env = (key, None, mdp, gb.gym_geometry(env, mdp), gb.start_state(env))
            finally:
                env.close()
        return self._env

    def build_mdp(self) -> TabularMDP:
        m = self._imported()[2]
        if m.discount != self.gstate.discount:
            m = replace(m, discount=float(self.gstate.discount))
        return m

    def geometry(self) -> gw.GridGeometry | None:
        try:
            return self._imported()[3]
        except ValueError:
            return None

    def start_state(self) -> int:
        try:
            return self._imported()[4]
        except ValueError:
            return 0

    def empty_text(self) -> str:
        return "Choose a Gymnasium environment in the Game panel"

    def set_discount(self, gamma: float) -> bool:
        gamma = float(gamma)
        if not 0.0 <= gamma <= 1.0:
            raise ValueError(f"discount must be in [0, 1], got {gamma}")
        return self.edit(replace(self.gstate, discount=gamma), f"discount {gamma:g}")

    def set_environment(self, env_id: str, kwargs_text: str | dict[str, Any]) -> bool:
        """Switch to ``env_id`` with keyword arguments (``"key=value key=value"`` or a dict); a bad
        one is refused with a message and leaves the current environment."""
        from mdpviz.models import gymnasium_bridge as gb

        try:
            if isinstance(kwargs_text, dict):
                kw = {k: repr(v) for k, v in kwargs_text.items()}
            else:
                items = split_kwargs(kwargs_text)
                gb.parse_kwargs(items)
                kw = dict(i.split("=", 1) for i in items)
            new = replace(self.gstate, env_id=env_id.strip(), kwargs=tuple((k.strip(), v.strip()) for k, v in kw.items()))
            self._imported(new)  # checked (and cached) before it becomes an edit
        except ValueError as e:
            self.message.emit(f"Not applied: {e}")
            return False
        kwt = ", ".join(f"{k}={v}" for k, v in new.kwargs)
        return self.edit(new, f"{new.env_id}" + (f" ({kwt})" if kwt else ""))

    def editor(self) -> QWidget:
        if self._editor is None:
            self._editor = GymEditor(self)
        return self._editor

    def lesson(self):
        from mdpviz.models.lessons import Block, mdp_lesson, parameters_of
        from mdpviz.models import gymnasium_bridge as gb

        return mdp_lesson(
            self.mdp(), title=f"Gymnasium: {self.gstate.env_id}",
            intro=(Block("p", " ".join(gb.__doc__.split("\n\n")[1].split())),
                   Block("p", "Each listed outcome of env.unwrapped.P[s][a] is a transition; an outcome marked "
                         "terminated goes to one absorbing state (value 0); a time limit is not termination.")),
            parameters=parameters_of(self.gstate), start=self.start_state(), state_name=self.state_name,
            sources=("mdpviz.models.gymnasium_bridge",))

    def to_dict(self) -> dict[str, Any]:
        st = self.gstate
        return {"env": st.env_id, "kwargs": {k: v for k, v in st.kwargs}, "discount": st.discount}

    def load_dict(self, data: dict[str, Any], path: str) -> GymState:
        where = "games.gym"
        env, kw, disc = data.get("env", "FrozenLake-v1"), data.get("kwargs", {}), data.get("discount", 0.99)
        if not isinstance(env, str) or not env.strip():
            raise ScenarioError(path, f"{where}.env", f"must be an environment id, got {env!r}")
        if not isinstance(kw, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in kw.items()):
            raise ScenarioError(path, f"{where}.kwargs", "must map names to Python literals (strings)")
        if isinstance(disc, bool) or not isinstance(disc, (int, float)) or not 0.0 <= disc <= 1.0:
            raise ScenarioError(path, f"{where}.discount", f"must be a number in [0, 1], got {disc!r}")
        return GymState(env.strip(), tuple(kw.items()), float(disc))


def split_kwargs(text: str) -> list[str]:
    """``"map_name='8x8' is_slippery=False"`` -> ["map_name='8x8'", "is_slippery=False"]: split at
    spaces or commas that are outside brackets and quotes."""
    out, cur, depth, quote = [], "", 0, ""
    for ch in text:
        if quote:
            cur += ch
            if ch == quote:
                quote = ""
            continue
        if ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch in " ,;" and depth == 0:
            if cur.strip():
                out.append(cur.strip())
            cur = ""
            continue
        cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def gridworld_lesson(game: GridWorldGame):
    """The grid world's lesson: the rules and both conventions (:mod:`mdpviz.models.gridworld`)."""
    from mdpviz.models.lessons import Block, doc_paragraphs, mdp_lesson, parameters_of

    st = game.settings
    try:
        mdp = game.mdp()
    except ValueError:
        mdp = None
    other = next(k for k in gw.CONVENTIONS if k != st.convention)
    return mdp_lesson(
        mdp,
        title=f"Grid world ({st.grid.name or 'custom'}, {st.convention.upper()} convention)",
        intro=doc_paragraphs(gw, "A grid world is") + (
            Block("p", "Two conventions are in use; for the same map and settings they give the same values "
                       "and differ in the exit step."),
            Block("p", f"Shown here: {gw.CONVENTION_RULES[st.convention]}"),
            Block("p", f"The other one: {gw.CONVENTION_RULES[other]}")),
        states=("A state is an open or exit cell" + (" plus the absorbing \u201cexited\u201d state."
                                                      if st.convention == "cs188" else "; exit cells are terminal.")),
        actions=("north, east, south, west from an open cell" + ("; \u201cexit\u201d from an exit cell."
                                                                 if st.convention == "cs188" else ".")),
        transitions=f"The intended direction with probability {1 - st.noise:g}, each perpendicular one with "
                    f"{st.noise / 2:g}; a wall or the edge leaves the agent where it is.",
        rewards=(f"Living reward {st.living_reward:g} per move from an open cell; an exit pays its number"
                 + (" (with the exit action)." if st.convention == "cs188" else
                    " as R(s) of its terminal state (a move into it pays R(s) + \u03b3 R(s\u2032)).")),
        parameters=parameters_of(st, skip=("grid",)),
        start=game.start_state(), state_name=game.state_name,
        action_name=(lambda a: gw.ACTION_NAMES[a]), where="the start cell",
        sources=("mdpviz.models.gridworld",),
    )


# ---------------------------------------------------------------------------------- editors
class GridEditor(QWidget):
    """Map, convention, noise, living reward and the exit reward of new exits."""

    def __init__(self, game: GridWorldGame, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.game = game
        self.setObjectName("gridworldEditor")
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.map = _named(QComboBox(), "gridMapPicker", "Grid map")
        for name in gw.BUILTIN_MAPS:
            self.map.addItem(name, name)
        self.map.addItem("custom", "")
        self.map.setToolTip("CS188's layouts (gridworld.py); 'Open map file' reads your own")
        form.addRow("Map", self.map)
        self.open = _named(QPushButton("Open map file\u2026"), "gridOpenMap", "Open a grid map file")
        self.open.setToolTip("One row per line, cells separated by spaces: # wall, S start, . open, numbers for exits")
        form.addRow(self.open)
        self.convention = _named(QComboBox(), "gridConvention", "Convention")
        for k in gw.CONVENTIONS:
            self.convention.addItem({"cs188": "CS188 (exit action)", "aima": "Russell-Norvig (R(s), terminals)"}[k], k)
        form.addRow("Convention", self.convention)
        self.convention_note = QLabel()
        self.convention_note.setWordWrap(True)
        self.convention_note.setObjectName("gridConventionNote")
        form.addRow(self.convention_note)
        self.noise = _named(QDoubleSpinBox(), "gridNoise", "Noise")
        self.noise.setRange(0.0, 1.0)
        self.noise.setDecimals(3)
        self.noise.setSingleStep(0.05)
        self.noise.setToolTip("Probability of slipping sideways (noise/2 to each side)")
        form.addRow("Noise", self.noise)
        self.living = _named(QDoubleSpinBox(), "gridLivingReward", "Living reward")
        self.living.setRange(-1000.0, 1000.0)
        self.living.setDecimals(4)
        self.living.setSingleStep(0.01)
        self.living.setToolTip("Reward of every move from an open cell (R(s) in Russell-Norvig)")
        form.addRow("Living reward", self.living)
        self.exit_reward = _named(QDoubleSpinBox(), "gridExitReward", "Reward of new exits")
        self.exit_reward.setRange(-1000.0, 1000.0)
        self.exit_reward.setDecimals(2)
        self.exit_reward.setValue(1.0)
        self.exit_reward.setToolTip("The reward of an exit made by clicking in edit mode (or from the cell menu)")
        form.addRow("New exit reward", self.exit_reward)
        help_ = QLabel("Discount: the Solver panel. Edit cells: the board's \u201cEdit cells\u201d, then click "
                       "(open \u2192 wall \u2192 exit); right-click a cell to move the start. Ctrl+Z undoes.")
        help_.setWordWrap(True)
        form.addRow(help_)
        self.map.activated.connect(self._on_map)
        self.open.clicked.connect(self._on_open)
        self.convention.activated.connect(lambda i: self.game.set_convention(self.convention.itemData(i)))
        self.noise.editingFinished.connect(lambda: self.game.set_noise(self.noise.value()))
        self.living.editingFinished.connect(lambda: self.game.set_living_reward(self.living.value()))
        self.exit_reward.valueChanged.connect(lambda v: setattr(self.game, "new_exit_reward", float(v)))
        game.edited.connect(lambda _t: self.sync())
        self.sync()

    def sync(self) -> None:
        st = self.game.settings
        for w in (self.map, self.convention, self.noise, self.living):
            w.blockSignals(True)
        i = self.map.findData(st.grid.name if st.grid.name in gw.BUILTIN_MAPS and
                              st.grid.cells == gw.BUILTIN_MAPS[st.grid.name].cells and
                              st.grid.start == gw.BUILTIN_MAPS[st.grid.name].start else "")
        self.map.setCurrentIndex(i)
        self.convention.setCurrentIndex(self.convention.findData(st.convention))
        self.convention_note.setText(gw.CONVENTION_NAMES[st.convention] + ".")
        self.noise.setValue(st.noise)
        self.living.setValue(st.living_reward)
        for w in (self.map, self.convention, self.noise, self.living):
            w.blockSignals(False)

    def _on_map(self, i: int) -> None:
        name = self.map.itemData(i)
        if name:
            self.game.set_map(gw.BUILTIN_MAPS[name])
        self.sync()

    def _on_open(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open a grid map", "", "Grid maps (*.txt *.grid);;All files (*)")
        if path:
            try:
                self.game.open_map_file(path)
            except gw.GridFileError as e:
                self.game.message.emit(str(e))


ENV_CHOICES = ("FrozenLake-v1", "CliffWalking-v1", "Taxi-v4")
"""Environments offered in the picker (any other id can be typed)."""


class GymEditor(QWidget):
    """Environment id, FrozenLake's map and slipperiness, free keyword arguments, Apply."""

    def __init__(self, game: GymGame, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.game = game
        self.setObjectName("gymEditor")
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.env = _named(QComboBox(), "gymEnvPicker", "Gymnasium environment")
        self.env.setEditable(True)
        self.env.addItems(list(ENV_CHOICES))
        self.env.setToolTip("Any environment with a transition table env.unwrapped.P (toy-text)")
        form.addRow("Environment", self.env)
        self.map = _named(QComboBox(), "gymMapPicker", "FrozenLake map")
        self.map.addItems(["4x4", "8x8"])
        form.addRow("Map", self.map)
        self.slippery = _named(QCheckBox("Slippery ice"), "gymSlippery", "Slippery")
        self.slippery.setChecked(True)
        form.addRow(self.slippery)
        self.kwargs = _named(QLineEdit(), "gymKwargs", "Keyword arguments")
        self.kwargs.setPlaceholderText("key=value \u2026 (e.g. success_rate=0.5)")
        self.kwargs.setToolTip("More keyword arguments of gymnasium.make, each value a Python literal, e.g. "
                               "desc=['SFFF','FHFH','FFFH','HFFG']")
        form.addRow("Keywords", self.kwargs)
        self.apply = _named(QPushButton("Apply"), "gymApply", "Apply the environment")
        form.addRow(self.apply)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setObjectName("gymStatus")
        form.addRow(self.status)
        self.apply.clicked.connect(self.apply_settings)
        self.env.currentTextChanged.connect(lambda _t: self._update_enabled())
        game.edited.connect(lambda _t: self.sync())
        game.message.connect(self.status.setText)
        self.sync()

    def _update_enabled(self) -> None:
        lake = self.env.currentText().startswith("FrozenLake")
        self.map.setEnabled(lake)
        self.slippery.setEnabled(lake)

    def sync(self) -> None:
        st = self.game.gstate
        self.env.setCurrentText(st.env_id)
        kw = dict(st.kwargs)
        extra = {k: v for k, v in kw.items() if k not in ("map_name", "is_slippery")}
        if "map_name" in kw:
            self.map.setCurrentText(str(kw["map_name"]).strip("'\""))
        if "is_slippery" in kw:
            self.slippery.setChecked(kw["is_slippery"].strip() == "True")
        self.kwargs.setText(" ".join(f"{k}={v}" for k, v in extra.items()))
        self._update_enabled()
        import importlib.util

        from mdpviz.models.gymnasium_bridge import INSTALL_HINT

        # find_spec, not an import: the window never imports Gymnasium before the game is used
        self.status.setText("" if importlib.util.find_spec("gymnasium") is not None else INSTALL_HINT)

    def apply_settings(self) -> bool:
        env = self.env.currentText().strip()
        parts = split_kwargs(self.kwargs.text())
        if env.startswith("FrozenLake") and not any(p.startswith("desc=") for p in parts):
            parts = [f"map_name='{self.map.currentText()}'", f"is_slippery={self.slippery.isChecked()}", *parts]
        ok = self.game.set_environment(env, " ".join(parts))
        if ok:
            self.status.setText("")
        return ok


# ---------------------------------------------------------------------------------- screenshots
def save_screenshots(out: str | Path) -> list[Path]:
    """``gridworld-values.png`` (CS188's DiscountGrid with living reward -0.1, solved: values as
    colour and numbers, the policy as arrows, the start's backup inspected) and
    ``gridworld-q-1280x720.png`` (the book grid in presenter mode with every action's Q as triangles)."""
    from mdpviz.screenshots import SIZE_1280x720, screenshot_window

    with screenshot_window(out) as sw:
        w = sw.window
        w.switch_game("gridworld")
        g = w.game
        g.set_map(gw.BUILTIN_MAPS["discount"])
        g.set_living_reward(-0.1)
        sw.reset("vi")
        sw.solve()
        board = g.board_widget()
        w.inspect(g.start_state())
        w.inspector_dock.raise_()
        sw.shot("gridworld-values.png")
        g.set_map(gw.BUILTIN_MAPS["book"])
        g.set_living_reward(0.0)
        sw.reset("vi")
        sw.solve()
        board.set_q_view(True)
        w.inspect(g.start_state())
        w.set_presenter(True)
        sw.shot("gridworld-q-1280x720.png", size=SIZE_1280x720)
        w.set_presenter(False)
        board.set_q_view(False)
    return sw.saved


def save_gym_screenshots(out: str | Path) -> list[Path]:
    """``gym-frozenlake.png``: Gymnasium's FrozenLake 8x8 (slippery) imported and solved; nothing
    when Gymnasium is not installed (noted on stderr)."""
    import importlib.util
    import sys

    from mdpviz.screenshots import screenshot_window

    if importlib.util.find_spec("gymnasium") is None:
        print('screenshots: gym skipped: Gymnasium is not installed (pip install "mdpviz[gym]")', file=sys.stderr)
        return []
    with screenshot_window(out) as sw:
        w = sw.window
        w.switch_game("gym")
        w.game.set_environment("FrozenLake-v1", {"map_name": "8x8", "is_slippery": True})
        sw.reset("vi")
        sw.solve()
        sw.shot("gym-frozenlake.png")
    return sw.saved


__all__ = ["GridBoard", "GridCanvas", "GridEditor", "GridWorldGame", "GymEditor", "GymGame", "GymState",
           "arrow_geometry", "grid_color_range", "gridworld_lesson", "save_gym_screenshots", "save_screenshots", "split_kwargs", "triangle"]
