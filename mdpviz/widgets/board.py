"""The board: state cells coloured by value, the number on each, the greedy action as a glyph.

The policy is drawn, not hinted: a die face under each square for snakes and ladders (with a legend
in words on the board), else a badge with the action in the cell. A toggle (:meth:`BoardView.show_q_values`)
shows every action's Q-value at once as small bars per action, coloured (and sized) on the same
fixed scale as the cells, the chosen action's bar framed.

:class:`BoardView` only paints. It is given a :class:`~mdpviz.widgets.geometry.BoardLayout`
(where cells and arrows go), per-cell decorations (square types), a
:class:`~mdpviz.models.kit.pictures.display.BoardFrame` (values, texts, badges, highlights of one sweep), the
selection with its successors, and the episode token; all through ``show_...``/``set_...``
methods (a game's :class:`~mdpviz.widgets.cell_board.CellBoard` feeds it from its game and the sweep).
Clicks are reported as signals with the state number; the game decides what they mean.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetrics, QFontMetricsF, QPainter, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from functools import lru_cache
from typing import Any

from mdpviz.models.kit.pictures.colors import COLORMAP, HIGHLIGHT, ColorScale, black_text, text_color
from mdpviz.models.kit.pictures.chain import outline_labels
from mdpviz.models.kit.pictures.display import BoardFrame
from mdpviz.models.kit.boards.position import compact_value as compact_q
from mdpviz.widgets.chain_marks import paint_chain_mark
from mdpviz.widgets.board_image import EMPTY_FILL, GOAL_FILL, UNVISITED_FILL, UNVISITED_HATCH, ImagePainting
from mdpviz.widgets.board_ties import TiesPainting
from mdpviz.widgets.game_board import GameBoard
from mdpviz.widgets.geometry import BoardLayout, arrow_head, arrow_points, cell_at, fit_transform, wrap_caption

SELECTED = "#000000"
SUCCESSOR = "#56b4e9"  # Okabe-Ito sky blue
TOKEN = "#cc79a7"  # Okabe-Ito reddish purple
SMALL_CELL = 18.0
"""Cells narrower than this many pixels are drawn without text (large grids stay fast to paint)."""
TEXT_COLOR = "#000000"
"""The colour bar's numbers and label."""
DIE_STYLES: tuple[tuple[str, str], ...] = (
    ("#ffffff", "rounded"),  # die 1 (security): a white die with rounded corners
    ("#a6d8f5", "square"),  # die 2 (normal): light sky blue, square corners
    ("#f2b544", "octagon"),  # die 3 (risky): orange, corners cut off
    ("#86d6bb", "rounded"),
    ("#e8b0cf", "square"),
    ("#f5ea86", "octagon"),
)
"""Face colour (light tints of the Okabe-Ito colour-blind safe set, black pips readable on each) and
shape of die k (k = 0, 1, ...; then again): the dice differ by colour and outline, not by one pip only."""


def die_style(action: int) -> tuple[str, str]:
    """(face colour, shape) of the die of ``action`` (0-based): see :data:`DIE_STYLES`."""
    return DIE_STYLES[int(action) % len(DIE_STYLES)]


@lru_cache(maxsize=64)
def _sub_colormap(name: str, t0: float, t1: float) -> pg.ColorMap:
    full = pg.colormap.get(name)
    if (t0, t1) == (0.0, 1.0):
        return full
    pos = np.linspace(0.0, 1.0, 65)
    colors = np.asarray(full.map(t0 + (t1 - t0) * pos, mode="byte"))
    return pg.ColorMap(pos, colors)


def scale_colormap(scale: ColorScale | None) -> pg.ColorMap:
    """The pyqtgraph colour map of ``scale``: position 0 is ``scale.lo``, 1 is ``scale.hi`` (for a
    diverging scale, the part of the diverging map its range covers, see ColorScale.map_span)."""
    if scale is None:
        return pg.colormap.get(COLORMAP)
    t0, t1 = scale.map_span()
    return _sub_colormap(scale.colormap, round(t0, 6), round(t1, 6))


def scale_rgb(scale: ColorScale | None, fill: np.ndarray) -> np.ndarray:
    """int (n, 3) RGB 0-255 of scale positions ``fill`` in [0, 1] (NaN drawn as 0)."""
    t = np.nan_to_num(np.asarray(fill, dtype=np.float64), nan=0.0)
    return np.asarray(scale_colormap(scale).map(t, mode="byte"))[..., :3].astype(int)


@dataclass(frozen=True)
class CellDecor:
    """Game-specific marks on one cell (e.g. a snakes square's type)."""

    tag: str = ""
    """Short text or glyph drawn in a pill at the top right (e.g. the trap icon)."""
    color: str = ""
    """Colour of the pill and of the cell's inner frame ("" for none)."""
    name: str = ""
    """Spelled-out meaning, for the tooltip (e.g. "prison")."""
    goal: bool = False
    """Draw as the goal / a terminal state."""


class BoardView(ImagePainting, TiesPainting, GameBoard):
    """Paints a board of cells; emits ``cell_clicked`` / ``cell_menu_requested`` with the state."""

    cell_clicked = Signal(int)
    cell_menu_requested = Signal(int, object)  # state, QPoint (global)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("boardView")
        self.setAccessibleName("Board")
        self.setAccessibleDescription("The game board: each cell shows its value, colour-coded, and the greedy action")
        self.setMinimumSize(320, 180)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMouseTracking(True)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.DefaultContextMenu)
        self.layout_: BoardLayout = BoardLayout(())
        self.decor: dict[int, CellDecor] = {}
        self.frame: BoardFrame | None = None
        self.unvisited: np.ndarray | None = None
        """bool (n_states): states a learner's behaviour never visited (hatched, no number; None: none)."""
        self.scale: ColorScale | None = None
        self.selected: int | None = None
        self.successors: dict[int, float] = {}
        self.token: int | None = None
        self.chain_labels: dict[int, str] = {}
        """The inspector's chain of backups: state -> its place(s) in the chain ("1", "2,4"), outlined."""
        self.token_text = ""
        self.caption = ""
        self.state_names: dict[int, str] = {}
        self.text_scale = 1.0
        """Factor on the text drawn in cells (presenter mode enlarges it)."""
        self.line_scale = 1.0
        """Factor on the width of every outline and arrow (presenter and high-contrast modes thicken them)."""
        self.outline = "#444444"
        """Colour of the cell borders (black in the high-contrast theme)."""
        self.predict = False
        """Predict-then-reveal: values and actions stay hidden until the cell is clicked."""
        self.revealed: set[int] = set()
        """Cells revealed in predict mode (cleared by :meth:`hide_all`)."""
        self._rgb = np.zeros((0, 3), dtype=int)
        self._black = np.zeros(0, dtype=bool)
        self.policy_glyph = "badge"
        """How the greedy action is drawn: "badge" (its id in the cell) or "die" (a die face with as
        many pips as the 1-based action, under the cell; legend from :attr:`action_names`)."""
        self.action_names: tuple[str, ...] = ()
        """What each action is called in the legend (snakes: "security", "normal", "risky")."""
        self.q_values: np.ndarray | None = None
        """float64 (n_states, n_actions) shown as bars per action (None: the Q toggle is off)."""
        self._q_fill = np.zeros((0, 0))
        self._q_rgb = np.zeros((0, 0, 3), dtype=int)

    # ------------------------------------------------------------------ what to draw
    def set_board(self, layout: BoardLayout, decor: dict[int, CellDecor] | None = None) -> None:
        """A new layout (and decorations); clears the frame if the number of cells changed."""
        if len(layout.cells) != len(self.layout_.cells):
            self.frame = None
            self.selected = None
            self.successors = {}
            self.token = None
        self.layout_ = layout
        self.decor = dict(decor or {})
        self.update()

    def show_frame(self, frame: BoardFrame | None, scale: ColorScale | None) -> None:
        """The values, numbers, badges and highlights of one sweep (None: an unsolved board)."""
        self.frame = frame
        self.scale = scale
        self.unvisited = None  # (a learner's frame marks them after this: show_unvisited)
        self.caption = frame.caption if frame is not None else ""
        if frame is not None:  # colours of every cell, once per frame (not per paint)
            self._rgb = scale_rgb(scale, frame.fill).reshape(-1, 3)
            self._black = black_text(self._rgb)
        if self.q_values is not None:
            self.show_q_values(self.q_values)
        self.update()

    def set_view_style(self, *, text_scale: float = 1.0, line_scale: float = 1.0, outline: str = "#444444") -> None:
        """Presenter and high-contrast modes: text and line factors, the colour of cell borders."""
        self.text_scale, self.line_scale, self.outline = float(text_scale), float(line_scale), outline
        self.update()

    def set_policy_glyph(self, kind: str, action_names: tuple[str, ...] = ()) -> None:
        """Draw the greedy action as a "badge" or a "die" face (with a legend of ``action_names``)."""
        if kind not in ("badge", "die"):
            raise ValueError(f"policy glyph must be 'badge' or 'die', got {kind!r}")
        self.policy_glyph = kind
        self.action_names = tuple(action_names)
        self.update()

    def show_q_values(self, q: np.ndarray | None) -> None:
        """Every action's Q-value per state (n_states x n_actions, NaN for illegal actions) as bars on
        the current colour scale; None hides them."""
        self.q_values = None if q is None else np.asarray(q, dtype=np.float64)
        if self.q_values is not None and self.scale is not None:
            self._q_fill = self.scale.normalise(self.q_values)
            self._q_rgb = scale_rgb(self.scale, self._q_fill.ravel()).reshape(self.q_values.shape + (3,))
        self.update()

    def glyph_size(self) -> float:
        """Side in pixels of the policy glyphs as drawn now (readable from the back of a room: >= 24 px)."""
        s, _, _ = self._transform()
        if not self.layout_.cells:
            return 0.0
        x0, y0, x1, y1 = self.layout_.glyph_rect(self.layout_.cells[0])
        return s * (x1 - x0)

    def color_range(self) -> tuple[float, float] | None:
        """(low, high): the values drawn with the colour scale's two ends (None: no scale yet)."""
        return None if self.scale is None else (self.scale.lo, self.scale.hi)

    def show_selection(self, state: int | None, successors: dict[int, float] | None = None) -> None:
        """Outline the inspected state and its successors (state -> probability)."""
        self.selected = state
        self.successors = dict(successors or {})
        self.update()

    def show_chain(self, states) -> None:
        """Outline the inspector's chain of backups in order, each cell numbered (fewer than two states: none)."""
        self.chain_labels = outline_labels(states)
        self.update()

    def show_token(self, state: int | None, text: str = "") -> None:
        """The episode player's token on ``state`` with a caption (None: no token)."""
        self.token = state
        self.token_text = text
        self.update()

    # ------------------------------------------------------------------ predict then reveal
    def set_predict_mode(self, on: bool) -> None:
        """Hide every value and action until its cell is clicked (so a class can predict first)."""
        self.predict = bool(on)
        self.revealed = set()
        self.update()

    def is_hidden(self, state: int) -> bool:
        """True when predict mode hides this cell's value and action."""
        return self.predict and state not in self.revealed

    def reveal(self, state: int) -> None:
        """Show the value and action of one cell in predict mode."""
        self.revealed.add(int(state))
        self.update()

    def hide_all(self) -> None:
        """Hide every cell again (a new sweep is shown in predict mode)."""
        if self.revealed:
            self.revealed = set()
            self.update()

    def show_unvisited(self, states: Any) -> bool:
        self.unvisited = None if states is None else np.asarray(states, dtype=bool)
        self.update()
        return True

    def is_unvisited(self, state: int) -> bool:
        """State ``state`` is drawn as never visited by a learner's behaviour (hatched grey, no number)."""
        u = self.unvisited
        return u is not None and 0 <= state < u.size and bool(u[state])

    def cell_color(self, state: int) -> QColor:
        """The fill colour of a cell in the current frame (for tests and tooltips)."""
        if self.is_unvisited(state):
            return QColor(UNVISITED_FILL)
        if self.is_hidden(state) and not self.decor.get(state, CellDecor()).goal:
            return QColor(EMPTY_FILL)
        if self.frame is None or state >= self.frame.fill.size or np.isnan(self.frame.fill[state]):
            return QColor(GOAL_FILL if self.decor.get(state, CellDecor()).goal else EMPTY_FILL)
        r, g, b = self._rgb[state]
        return QColor(int(r), int(g), int(b))

    def cell_text(self, state: int) -> tuple[str, str]:
        """(value text, badge text) drawn on a cell."""
        if self.frame is None or state >= len(self.frame.texts) or self.is_unvisited(state):
            return "", ""
        if self.is_hidden(state) and self.frame.texts[state]:
            return "?", ""
        return self.frame.texts[state], self.frame.badges[state]

    # ------------------------------------------------------------------ geometry
    def _transform(self) -> tuple[float, float, float]:
        top = self._caption_height()
        x0, y0, x1, y1 = self.layout_.bounds()
        pad = 0.45 if self.layout_.kind == "graph" else 0.3  # loops and captions above, p= labels below
        box = (x0 - 0.1, y0 - pad, x1 + 0.1, y1 + pad)
        s, ox, oy = fit_transform(box, self.width(), self.height() - top, margin=10)
        legend = self._ties_height()
        if legend and self.height() - (oy + top + s * box[3]) < legend:
            # the ties legend goes in the room under the board where there is some (the cells do not move
            # when it comes and goes during a run), else the board makes room for it
            s, ox, oy = fit_transform(box, self.width(), self.height() - top - legend, margin=10)
        return s, ox, oy + top

    def _caption_font(self) -> QFont:
        f = QFont(self.font())
        f.setBold(True)
        return f

    def caption_lines(self) -> list[str]:
        """The caption as drawn: one line, or two where it is wider than the board (the second elided
        only if the two cannot hold it; a delta view's converged caption at 1366 x 768 was cut)."""
        if not self.caption:
            return []
        fm = QFontMetricsF(self._caption_font())
        return wrap_caption(self.caption, self.width() - 16, fm.horizontalAdvance,
                            lambda t, w: fm.elidedText(t, Qt.TextElideMode.ElideRight, w))

    def _caption_height(self) -> int:
        lines = 2 if len(self.caption_lines()) > 1 else 1
        return int(QFontMetricsF(self._caption_font()).height() * (lines + 0.6))

    def state_at(self, pos: QPointF) -> int | None:
        """The state of the cell under widget position ``pos``, or None."""
        s, ox, oy = self._transform()
        if self._lattice() is not None:  # a grid: the lattice answers in O(1)
            return self._image_state_at((pos.x() - ox) / s, (pos.y() - oy) / s)
        return cell_at(self.layout_, (pos.x() - ox) / s, (pos.y() - oy) / s)

    def cell_rect(self, state: int) -> QRectF:
        """Pixel rectangle of the cell of ``state`` (empty if not drawn)."""
        s, ox, oy = self._transform()
        for c in self.layout_.cells:
            if c.state == state:
                h = c.size / 2
                return QRectF(ox + s * (c.x - h), oy + s * (c.y - h), s * c.size, s * c.size)
        return QRectF()

    def state_rect(self, state: int) -> QRectF | None:
        r = self.cell_rect(state)
        return None if r.isEmpty() else r

    # ------------------------------------------------------------------ events
    def mousePressEvent(self, ev) -> None:  # noqa: N802
        if ev.button() == Qt.MouseButton.LeftButton:
            state = self.state_at(ev.position())
            if state is not None:
                if self.is_hidden(state):
                    self.reveal(state)
                self.cell_clicked.emit(state)
                return
        super().mousePressEvent(ev)

    def contextMenuEvent(self, ev) -> None:  # noqa: N802
        state = self.state_at(QPointF(ev.pos()))
        if state is not None:
            self.cell_menu_requested.emit(state, ev.globalPos())

    def event(self, ev) -> bool:
        if ev.type() == ev.Type.ToolTip:
            state = self.state_at(QPointF(ev.pos()))
            if state is None:
                QToolTip.hideText()
            else:
                QToolTip.showText(ev.globalPos(), self.tooltip_text(state), self)
            return True
        return super().event(ev)

    def tooltip_text(self, state: int) -> str:
        """Full-precision value, action and type of a cell (every colour is also readable as text)."""
        name = self.state_names.get(state, str(state))
        lines = [name]
        if self.is_unvisited(state):
            lines.append("not visited: the behaviour has never been here (only the initial value learned)")
        d = self.decor.get(state)
        if d is not None and d.name:
            lines.append(d.name)
        if self.is_hidden(state):
            lines.append("hidden: click to reveal")
        elif self.frame is not None and state < self.frame.values.size:
            if not np.isnan(self.frame.fill[state]):
                lines.append(f"value {self.frame.values[state]:.10g}")
            if self.frame.badges[state]:
                a = -1 if self.frame.actions is None else int(self.frame.actions[state])
                name = f" ({self.action_names[a]})" if 0 <= a < len(self.action_names) else ""
                lines.append(f"greedy action {self.frame.badges[state]}{name}")
            q = self.q_values
            if q is not None and state < q.shape[0]:
                for a in np.flatnonzero(np.isfinite(q[state])):
                    name = self.action_names[a] if a < len(self.action_names) else f"action {a}"
                    lines.append(f"  Q({name}) = {q[state, a]:.6g}")
        return "\n".join(lines)

    # ------------------------------------------------------------------ painting
    def paintEvent(self, ev) -> None:  # noqa: N802
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.fillRect(self.rect(), self.palette().base())
        s, ox, oy = self._transform()
        cells = self.layout_.cells
        if self.caption:
            p.setFont(self._caption_font())
            p.setPen(self.palette().text().color())
            p.drawText(QRectF(8, 2, self.width() - 16, self._caption_height()),
                       Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, "\n".join(self.caption_lines()))
        self._paint_arrows(p, s, ox, oy)
        if self.uses_image():  # a big board: one picture, not 50,000 cells (board_image.py)
            self._paint_image(p, s, ox, oy)
        else:
            for c in cells:
                self._paint_cell(p, c, s, ox, oy)
        for state, label in self.chain_labels.items():  # after every cell: a number over a neighbour stays on top
            rect = self.cell_rect(state)
            if not rect.isEmpty():
                paint_chain_mark(p, rect, label, line_scale=self.line_scale, text_scale=self.text_scale,
                                 font=self.font())
        self._paint_legend(p, s, ox, oy)
        self._paint_ties_legend(p)
        box = self.token_caption_rect()
        if box is not None:  # after every cell: a caption moved over a neighbour stays on top
            p.setFont(self._token_font(self._token_side()))
            p.fillRect(box, QColor(TOKEN))
            p.setPen(QColor("#000000"))
            p.drawText(box, Qt.AlignmentFlag.AlignCenter, self.token_text)
        p.end()

    def _paint_arrows(self, p: QPainter, s: float, ox: float, oy: float) -> None:
        cells = self.layout_.cells
        graph = self.layout_.kind == "graph"
        base = QColor("#777777")
        for a in self.layout_.arrows:
            ca, cb = cells[a.src], cells[a.dst]
            col = QColor(base)
            width = max(1.0, s * 0.035) * self.line_scale
            if graph:
                col.setAlphaF(0.25 + 0.75 * min(max(a.weight, 0.0), 1.0))
                width = max(1.0, s * (0.01 + 0.07 * a.weight)) * self.line_scale
            pen = QPen(col, width, Qt.PenStyle.DashLine if a.dashed else Qt.PenStyle.SolidLine)
            pen.setCapStyle(Qt.PenCapStyle.RoundCap)
            p.setPen(pen)
            p.setBrush(Qt.BrushStyle.NoBrush)
            if a.src == a.dst:  # a loop above the cell
                r = s * ca.size * 0.22
                cx, cy = ox + s * ca.x, oy + s * (ca.y - ca.size / 2)
                p.drawEllipse(QPointF(cx + r * 0.9, cy - r * 0.6), r, r)
                continue
            (x0, y0), (mx, my), (x1, y1) = arrow_points(ca, cb, bend=a.bend)
            path = QPainterPath(QPointF(ox + s * x0, oy + s * y0))
            path.quadTo(QPointF(ox + s * mx, oy + s * my), QPointF(ox + s * x1, oy + s * y1))
            p.drawPath(path)
            tip, l, r = arrow_head((x1, y1), (mx, my), size=0.14 if not graph else 0.1 + 0.06 * a.weight)
            p.setBrush(col)
            p.setPen(Qt.PenStyle.NoPen)
            p.drawPolygon(QPolygonF([QPointF(ox + s * x, oy + s * y) for x, y in (tip, l, r)]))

    def _paint_cell(self, p: QPainter, c, s: float, ox: float, oy: float) -> None:
        h = c.size / 2
        rect = QRectF(ox + s * (c.x - h), oy + s * (c.y - h), s * c.size, s * c.size)
        side = rect.width()
        fill = self.cell_color(c.state)
        if side < SMALL_CELL:  # too small for text: a coloured square and the outlines only
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(fill)
            p.drawRect(rect)
            self._paint_outlines(p, c, rect, side, small=True)
            return
        p.setPen(QPen(QColor(self.outline), max(1.0, side * 0.012) * self.line_scale))
        p.setBrush(fill)
        p.drawRoundedRect(rect, side * 0.08, side * 0.08)
        if self.is_unvisited(c.state):  # never visited by a learner: hatched, on no value scale
            p.setBrush(QBrush(QColor(UNVISITED_HATCH), Qt.BrushStyle.BDiagPattern))
            p.drawRoundedRect(rect, side * 0.08, side * 0.08)
        if (self.frame is not None and c.state < self.frame.fill.size and not np.isnan(self.frame.fill[c.state])
                and not self.is_hidden(c.state)):
            ink = QColor("#000000" if self._black[c.state] else "#ffffff")
        else:
            ink = QColor(text_color((fill.red(), fill.green(), fill.blue())))
        d = self.decor.get(c.state, CellDecor())

        # type: an inner frame and a pill with the glyph
        if d.color:
            p.setPen(QPen(QColor(d.color), max(2.0, side * 0.06)))
            p.setBrush(Qt.BrushStyle.NoBrush)
            inner = rect.adjusted(side * 0.05, side * 0.05, -side * 0.05, -side * 0.05)
            p.drawRoundedRect(inner, side * 0.06, side * 0.06)
        font = QFont(self.font())
        # number of the cell, top left
        font.setPixelSize(max(7, int(side * 0.17)))
        font.setBold(True)
        p.setFont(font)
        p.setPen(ink)
        p.drawText(rect.adjusted(side * 0.1, side * 0.07, 0, 0), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop,
                   c.label)
        if d.tag:  # the square's type: a pill on the top right corner, its glyph about a quarter of the cell
            font.setPixelSize(max(8, int(side * (0.34 if len(d.tag) <= 2 else 0.2))))
            p.setFont(font)
            fm = p.fontMetrics()
            w = fm.horizontalAdvance(d.tag) + side * 0.12
            ph = fm.height() * 1.05
            pill = QRectF(rect.right() - w + side * 0.06, rect.top() - side * 0.06, w, ph)
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(QColor(d.color or "#555555"))
            p.drawRoundedRect(pill, side * 0.05, side * 0.05)
            pc = QColor(d.color or "#555555")
            p.setPen(QColor(text_color((pc.red(), pc.green(), pc.blue()))))
            p.drawText(pill, Qt.AlignmentFlag.AlignCenter, d.tag)
        value, badge = self.cell_text(c.state)
        q = self.q_values
        q_on = (q is not None and c.state < q.shape[0] and not self.is_hidden(c.state)
                and bool(np.isfinite(q[c.state]).any()) and side * 0.68 / np.isfinite(q[c.state]).sum() >= 9)
        if q_on:
            value = ""  # the cell shows every action's Q instead (its best is the value)
            self._paint_q_rows(p, c, rect)
        if d.goal and not value:
            value = "goal"
        if d.goal and value == "goal":
            value = d.name or "goal"
        if value:
            in_cell_badge = bool(badge) and self.policy_glyph == "badge"  # it takes the lower right corner
            fit = (0.21 if in_cell_badge else 0.27) if len(value) <= 5 else 0.2
            font.setPixelSize(max(7, int(side * min(fit * self.text_scale, 0.95 / max(len(value), 1) * 1.6))))
            font.setBold(False)
            p.setFont(font)
            p.setPen(ink)
            p.drawText(rect.adjusted(0, side * 0.12, 0, -side * 0.12), Qt.AlignmentFlag.AlignCenter, value)
        tied = (() if self.frame is None or self.frame.ties is None or self.is_hidden(c.state)
                else self.frame.ties.get(c.state, ()))
        if badge and self.policy_glyph == "die" and self.frame is not None and self.frame.actions is not None:
            self._paint_die(p, c, int(self.frame.actions[c.state]), s=side / c.size,
                            ox=rect.left() - side / c.size * (c.x - c.size / 2),
                            oy=rect.top() - side / c.size * (c.y - c.size / 2), tied=tied)
        elif badge and not q_on:
            r = side * 0.17
            centre = QPointF(rect.right() - side * 0.22, rect.bottom() - side * 0.22)
            p.setPen(QPen(QColor("#000000"), max(1.0, side * 0.015)))
            p.setBrush(QColor("#ffffff"))
            bw = max(2 * r, p.fontMetrics().horizontalAdvance(badge) + side * 0.08) if len(badge) > 1 else 2 * r
            p.drawRoundedRect(QRectF(centre.x() - bw / 2 - (bw / 2 - r), centre.y() - r, bw, 2 * r), r, r)
            font.setPixelSize(max(7, int(side * 0.22)))
            font.setBold(True)
            p.setFont(font)
            p.setPen(QColor("#000000"))
            p.drawText(QRectF(centre.x() - bw / 2 - (bw / 2 - r), centre.y() - r, bw, 2 * r), Qt.AlignmentFlag.AlignCenter,
                       badge)
            if tied:
                self._paint_tied_badges(p, self.frame.tied_badges.get(c.state, ()), rect,
                                        right=centre.x() - bw / 2 - (bw / 2 - r), r=r, ink=ink)
        if self.frame is not None and self.frame.endless is not None and c.state < self.frame.endless.size \
                and self.frame.endless[c.state] and not self.is_hidden(c.state):
            self._paint_endless(p, rect, side)
        self._paint_outlines(p, c, rect, side, small=False)

    # ------------------------------------------------------------------ policy glyphs and Q bars
    PIPS = {1: ((0.5, 0.5),), 2: ((0.27, 0.27), (0.73, 0.73)), 3: ((0.25, 0.25), (0.5, 0.5), (0.75, 0.75)),
            4: ((0.27, 0.27), (0.73, 0.27), (0.27, 0.73), (0.73, 0.73)),
            5: ((0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)),
            6: ((0.27, 0.22), (0.73, 0.22), (0.27, 0.5), (0.73, 0.5), (0.27, 0.78), (0.73, 0.78))}
    """Pip centres of die faces 1..6 (fractions of the face)."""

    def _draw_die_face(self, p: QPainter, r: QRectF, n: int) -> None:
        """Die ``n``'s face (``n`` pips, a number above 6) in ``r``, in its colour and shape (:func:`die_style`)."""
        side = r.width()
        fill, shape = die_style(n - 1)
        p.setPen(QPen(QColor("#000000"), max(1.5, side * 0.07) * self.line_scale ** 0.5))
        p.setBrush(QColor(fill))
        if shape == "square":
            p.drawRect(r)
        elif shape == "octagon":
            k = side * 0.26
            p.drawPolygon(QPolygonF([QPointF(r.left() + k, r.top()), QPointF(r.right() - k, r.top()),
                                     QPointF(r.right(), r.top() + k), QPointF(r.right(), r.bottom() - k),
                                     QPointF(r.right() - k, r.bottom()), QPointF(r.left() + k, r.bottom()),
                                     QPointF(r.left(), r.bottom() - k), QPointF(r.left(), r.top() + k)]))
        else:
            p.drawRoundedRect(r, side * 0.18, side * 0.18)
        if n in self.PIPS:
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(QColor("#000000"))
            pr = side * (0.11 if n <= 3 else 0.09)
            for fx, fy in self.PIPS[n]:
                p.drawEllipse(QPointF(r.left() + fx * side, r.top() + fy * side), pr, pr)
        else:
            f = QFont(self.font())
            f.setPixelSize(max(7, int(side * 0.6)))
            f.setBold(True)
            p.setFont(f)
            p.setPen(QColor("#000000"))
            p.drawText(r, Qt.AlignmentFlag.AlignCenter, str(n))

    def _paint_die(self, p: QPainter, c, action: int, *, s: float, ox: float, oy: float,
                   tied: tuple[int, ...] = ()) -> None:
        """The die of ``action`` under the cell; with ``tied`` (every optimal action, two or more) all of
        them side by side in action order, the solver's pick solid and the others faded with a dashed rim."""
        if action < 0:
            return
        x0, y0, x1, y1 = self.layout_.glyph_rect(c)
        if len(tied) < 2:
            self._draw_die_face(p, QRectF(ox + s * x0, oy + s * y0, s * (x1 - x0), s * (y1 - y0)), action + 1)
            return
        self._paint_tied_dice(c, action, tied, p, s=s, ox=ox, oy=oy, y0=y0, y1=y1, g0=x1 - x0)

    def _paint_q_rows(self, p: QPainter, c, rect: QRectF) -> None:
        """Every legal action's Q in the cell: one row per action (a die face or the action id, then
        the number) filled with its colour on the cell scale; the greedy action's row framed."""
        q = self.q_values[c.state]
        legal = np.flatnonzero(np.isfinite(q))
        side = rect.width()
        top = rect.top() + side * 0.27  # under the cell's name
        h = (rect.bottom() - side * 0.05 - top) / legal.size
        chosen = -1 if self.frame is None or self.frame.actions is None else int(self.frame.actions[c.state])
        fill = self._q_fill[c.state] if self._q_fill.shape == self.q_values.shape else None
        f = QFont(self.font())
        f.setPixelSize(max(7, int(min(h * 0.72, side * 0.17))))
        for k, a in enumerate(legal):
            row = QRectF(rect.left() + side * 0.06, top + k * h, side * 0.88, h)
            if fill is not None:
                rgb = self._q_rgb[c.state, a]
            else:
                rgb = scale_rgb(self.scale, np.array([0.5]))[0]
            col = QColor(int(rgb[0]), int(rgb[1]), int(rgb[2]))
            p.setPen(QPen(QColor("#000000"), max(2.0, side * 0.04)) if a == chosen else Qt.PenStyle.NoPen)
            p.setBrush(col)
            p.drawRect(row.adjusted(0.5, 0.5, -0.5, -0.5))
            ink = QColor(text_color((col.red(), col.green(), col.blue())))
            if self.policy_glyph == "die":
                d = h * 0.8
                self._draw_die_face(p, QRectF(row.left() + h * 0.1, row.top() + h * 0.1, d, d), int(a) + 1)
                label_w = h
                label = ""
            else:
                label, label_w = f"{a}", 0.0
            f.setBold(bool(a == chosen))
            p.setFont(f)
            p.setPen(ink)
            text = compact_q(float(q[a]))
            p.drawText(row.adjusted(label_w + 2, 0, -2, 0), Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight, text)
            if label:
                p.drawText(row.adjusted(2, 0, 0, 0), Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, label)

    def _paint_legend(self, p: QPainter, s: float, ox: float, oy: float) -> None:
        """The policy glyphs' legend in words ("1 = security", ...), in the layout's legend rectangle."""
        if self.layout_.legend is None or self.policy_glyph != "die" or not self.action_names:
            return
        x0, y0, x1, y1 = self.layout_.legend
        box = QRectF(ox + s * x0, oy + s * y0, s * (x1 - x0), s * (y1 - y0))
        title = "Die to throw:" if self.q_values is None else "Dice (Q in squares):"
        rows = len(self.action_names) + 1
        lh = box.height() / rows
        f = QFont(self.font())
        px = max(9, int(lh * 0.7))
        f.setPixelSize(px)
        f.setBold(True)
        p.setFont(f)
        ink = self.palette().text().color()
        p.setPen(ink)
        p.drawText(QRectF(box.left(), box.top(), box.width(), lh), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                   p.fontMetrics().elidedText(title, Qt.TextElideMode.ElideRight, int(box.width())))
        f.setBold(False)
        p.setFont(f)
        d = lh * 0.86
        for i, name in enumerate(self.action_names):
            y = box.top() + lh * (i + 1)
            self._draw_die_face(p, QRectF(box.left(), y + (lh - d) / 2, d, d), i + 1)
            p.setPen(ink)
            p.drawText(QRectF(box.left() + d * 1.3, y, box.width() - d * 1.3, lh),
                       Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                       p.fontMetrics().elidedText(f"{i + 1} = {name}", Qt.TextElideMode.ElideRight,
                                                  int(box.width() - d * 1.3)))

    def _paint_outlines(self, p: QPainter, c, rect: QRectF, side: float, *, small: bool) -> None:
        """Changed in this sweep (dashed magenta), successor (blue, with p=), inspected (black), token."""
        font = QFont(self.font())
        lw = self.line_scale ** 0.5  # outlines grow less than lines: they would swamp small cells
        if self.frame is not None and c.state < self.frame.changed.size and self.frame.changed[c.state]:
            pen = QPen(QColor(HIGHLIGHT), max(2.0, side * 0.05) * lw)
            pen.setStyle(Qt.PenStyle.DashLine)
            p.setPen(pen)
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRoundedRect(rect.adjusted(-side * 0.03, -side * 0.03, side * 0.03, side * 0.03), side * 0.1, side * 0.1)
        if c.state in self.successors and self.token is None:  # an episode's token: its moves, not the inspection's
            pen = QPen(QColor(SUCCESSOR), max(2.0, side * 0.07) * lw)
            p.setPen(pen)
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRoundedRect(rect.adjusted(-side * 0.06, -side * 0.06, side * 0.06, side * 0.06), side * 0.12, side * 0.12)
            if not small:
                font.setPixelSize(max(7, int(side * 0.15 * self.text_scale)))  # (presenter mode: larger)
                font.setBold(True)
                p.setFont(font)
                txt = f"p={self.successors[c.state]:.3g}"
                fm = p.fontMetrics()
                w = fm.horizontalAdvance(txt) + 6
                if self.layout_.glyph_room > 0:  # a die sits under the cell (snakes): the tag goes inside
                    # the cell's bottom edge, under its value (under the cell it covered the die's top)
                    box = QRectF(rect.left() + side * 0.05, rect.bottom() - side * 0.05 - fm.height(), w, fm.height())
                else:
                    box = QRectF(rect.left(), rect.bottom() + side * 0.07, w, fm.height())
                p.fillRect(box, QColor(SUCCESSOR))
                p.setPen(QColor("#000000"))
                p.drawText(box, Qt.AlignmentFlag.AlignCenter, txt)
        if self.selected == c.state:
            p.setPen(QPen(QColor(SELECTED), max(3.0, side * 0.07) * lw))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRoundedRect(rect.adjusted(-side * 0.06, -side * 0.06, side * 0.06, side * 0.06), side * 0.12, side * 0.12)
        if self.token == c.state:
            r = side * 0.15
            centre = QPointF(rect.left() + side * 0.22, rect.bottom() - side * 0.22)
            p.setPen(QPen(QColor("#000000"), max(1.5, side * 0.02)))
            p.setBrush(QColor(TOKEN))
            p.drawEllipse(centre, r, r)


    def _token_font(self, side: float) -> QFont:
        font = QFont(self.font())
        font.setPixelSize(max(11, int(side * 0.24)))  # the episode token's caption, readable
        font.setBold(True)
        return font

    def _token_box(self, rect: QRectF, side: float, fm: QFontMetricsF) -> QRectF:
        """The token caption's box: above the cell, moved left and down as far as needed to stay
        inside the board (at the goal, the right-most cell, it ran off the board's edge)."""
        w, h = fm.horizontalAdvance(self.token_text) + 8, fm.height() + 2
        x = min(rect.left(), self.width() - 2 - w)
        y = rect.top() - h - side * 0.08
        if y < self._caption_height():  # no room above: under the cell
            y = rect.bottom() + side * 0.08
        return QRectF(max(2.0, x), y, w, h)

    def _token_side(self) -> float:
        r = self.cell_rect(self.token) if self.token is not None else QRectF()
        return r.width()

    def token_caption_rect(self) -> QRectF | None:
        """Where the episode token's caption is drawn (None: no token, no caption, or a cell too small
        for text)."""
        if self.token is None or not self.token_text:
            return None
        rect = self.cell_rect(self.token)
        side = rect.width()
        if rect.isEmpty() or side < SMALL_CELL:
            return None
        return self._token_box(rect, side, QFontMetricsF(self._token_font(side)))


class ColorBar(pg.GraphicsLayoutWidget):
    """The heatmap's colour bar (pyqtgraph ``ColorBarItem``): fixed for one solve, not interactive.

    Its width follows its text: the widest tick number and the label beside it, in the application's
    font or in :meth:`set_font_size`'s (at least :attr:`min_width`). A label longer than the bar is
    tall wraps onto a second line. So the label never sits on the numbers (:meth:`text_boxes`)."""

    BAR_WIDTH = 18
    """The colour strip's width (px)."""
    GAP = 4
    """Free pixels between the widest tick number and the label."""
    WIDTH_STEP = 10
    """The bar's width is a multiple of this (px): a new scale's numbers rarely change it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("colorBar")
        self.setAccessibleName("Colour scale of the values")
        self.setBackground(None)
        self.ci.layout.setContentsMargins(2, 6, 2, 6)
        self.setFixedWidth(85)
        self.setMinimumHeight(120)
        self.bar = pg.ColorBarItem(values=(0.0, 1.0), colorMap=scale_colormap(None), interactive=False,
                                   width=self.BAR_WIDTH, orientation="vertical", colorMapMenu=False)
        self.addItem(self.bar)
        for ax in ("left", "right"):  # the numbers as they are: no "(x0.001)" multiplier on the label
            self.bar.getAxis(ax).enableAutoSIPrefix(False)
        # black numbers and label, as the plots' axes have them (pyqtgraph's light grey on the window's
        # grey was hard to read on a projector)
        self.set_text_color(QColor(TEXT_COLOR))
        self.scale: ColorScale | None = None
        self.font_px: int | None = None
        """The text's pixel size set by :meth:`set_font_size` (None: the application's font)."""
        self.min_width = 0
        """The least width (px, :meth:`set_min_width`)."""
        self._label_text = ""
        self._keep_width = 0
        """Width (px) kept from the placeholder for the first scale after it (see :meth:`show_scale`)."""
        self._fitting = False
        self.show_scale(None)

    def show_scale(self, scale: ColorScale | None) -> None:
        """Show ``scale`` (its bounds and label); None: an empty bar before any solve."""
        if scale == self.scale and scale is not None:
            return
        # the first scale after the "no values yet" placeholder keeps the placeholder's width if it
        # is narrower: at the window's start the board beside it shifted by 10 px 0.2 s after the
        # first paint, when the default game's reference range arrived
        self._keep_width = self.width() if self.scale is None and scale is not None and self.isVisible() else 0
        self.scale = scale
        self.bar.setColorMap(scale_colormap(scale))
        if scale is None:
            self.bar.setLevels((0.0, 1.0))
            self._label_text = "no values yet"
        else:
            self.bar.setLevels((scale.lo, scale.hi))
            self._label_text = scale.label
        self.bar.setLabel("right", self._label_text)
        self.fit()

    def set_text_color(self, color: QColor) -> None:
        """The colour of the numbers, the label and the axis line."""
        for ax in ("left", "right"):
            a = self.bar.getAxis(ax)
            a.setTextPen(color)
            a.setPen(color)

    def set_min_width(self, px: int) -> None:
        """Never narrower than ``px`` pixels (presenter mode keeps a wide bar); 0: as narrow as its text."""
        self.min_width = int(px)
        self.fit()

    def set_font_size(self, px: int | None) -> None:
        """Draw the numbers and the label ``px`` pixels high (None: in the application's font)."""
        self.font_px = None if px is None else int(px)
        self.fit()

    def text_font(self) -> QFont:
        """The font of the numbers and the label."""
        # the application's font, not the widget's: presenter mode's larger window font made the bar
        # wider, the board beside it narrower, and the position board's side panel (its texts, moves
        # and backup box) then overlapped at 1280x720 (tests/test_gui_polish.py); the window keeps
        # the bar at least min_width wide instead (set_min_width)
        f = QFont()
        if self.font_px is not None:
            f.setPixelSize(self.font_px)
        return f

    def _tick_texts(self, length: float) -> list[str]:
        """The numbers the axis draws along ``length`` pixels (pyqtgraph's own choice of ticks)."""
        ax = self.bar.getAxis("right")
        lo, hi = (0.0, 1.0) if self.scale is None else (float(self.scale.lo), float(self.scale.hi))
        if not (np.isfinite(lo) and np.isfinite(hi)) or hi <= lo:
            return [f"{lo:g}"]
        out: list[str] = []
        for spacing, values in ax.tickValues(lo, hi, max(length, 1.0)):
            out += ax.tickStrings(list(values), 1.0, spacing)
        return out or [f"{lo:g}"]

    def fit(self) -> None:
        """Size the bar for its text: the axis as wide as its widest number plus the label (wrapped onto
        two lines when longer than the bar is tall), the widget as wide as both."""
        if getattr(self, "_fitting", True) or getattr(self, "bar", None) is None:
            return
        key = (self.scale, self._label_text, self.font_px, self.min_width, self.height())
        if key == getattr(self, "_fit_key", None):
            return  # nothing it depends on changed: no relayout
        self._fit_key = key
        self._fitting = True
        try:
            f = self.text_font()
            fm = QFontMetrics(f)
            ax = self.bar.getAxis("right")
            if ax.style.get("tickFont") != f or ax.style.get("autoExpandTextSpace"):
                ax.setStyle(tickFont=f, autoExpandTextSpace=False, autoReduceTextSpace=False)
            if ax.label.font() != f:
                ax.label.setFont(f)
            ml, mt, mr, mb = self.ci.layout.getContentsMargins()
            length = max(40.0, self.height() - mt - mb - 4)
            ax.label.setTextWidth(-1)
            if ax.label.boundingRect().width() > length:  # too long for the bar: two lines
                ax.label.setTextWidth(length)
            text_w = max(fm.horizontalAdvance(t) for t in self._tick_texts(length)) + 2
            label_h = ax.label.boundingRect().height()
            offset = ax.style["tickTextOffset"][0] + max(0, ax.style["tickLength"])
            # pyqtgraph puts the label's box at the axis's right edge - its height + 5 (its "nudge")
            axis_w = int(np.ceil(offset + text_w + self.GAP + label_h - 5))
            ax.setWidth(axis_w)
            ax.resizeEvent()
            width = int(ml + mr + self.BAR_WIDTH + axis_w + 5 + 2)
            width += -width % self.WIDTH_STEP  # a few more pixels of numbers do not move the board
            width = max(width, getattr(self, "min_width", 0), getattr(self, "_keep_width", 0))
            if self.width() != width or self.minimumWidth() != width:
                self.setFixedWidth(width)
        finally:
            self._fitting = False

    def text_boxes(self) -> tuple[QRectF, list[QRectF]]:
        """(the label's box, the boxes of the numbers), in this widget's pixels, as drawn now."""
        from PySide6.QtGui import QImage

        ax = self.bar.getAxis("right")
        img = QImage(4, 4, QImage.Format.Format_ARGB32)
        qp = QPainter(img)
        try:
            specs = ax.generateDrawSpecs(qp)
        finally:
            qp.end()

        def widget_rect(item: Any, r: QRectF) -> QRectF:
            sr = item.mapRectToScene(r)
            return QRectF(self.mapFromScene(sr.topLeft()).toPointF(),
                          self.mapFromScene(sr.bottomRight()).toPointF()).normalized()

        ticks = [widget_rect(ax, r) for r, _flags, _text in (specs[2] if specs else [])]
        return widget_rect(ax.label, ax.label.boundingRect()), ticks

    def resizeEvent(self, ev) -> None:  # noqa: N802
        super().resizeEvent(ev)
        if ev is not None and ev.size().height() != ev.oldSize().height():
            self.fit()  # the label may wrap (or unwrap) at the new height
