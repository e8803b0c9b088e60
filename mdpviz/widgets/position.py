"""The common board-game view: one position at a time, its moves coloured by value; walk the game tree.

A board game has thousands of states on a board of a few cells, so the board shows ONE position:
each legal move's cell coloured by its Q-value at the shown sweep (the window's fixed colour
scale), the number on it, the greedy move starred. Clicking a cell plays the move; the model
answers (random opponent, risk coin, fixed policy) and the walk goes on. Back / Forward / New
game walk the history; in "play vs agent" mode the user plays one mark against the greedy policy
of the shown values, with a "hide hints" switch. See /tmp/prompts/position_api.md for how a game
plugs in; the logic lives in :mod:`mdpviz.models.position` (no Qt), the rules in
``mdpviz.models``.

* :class:`BoardPainter` (:class:`GridPainter`, :class:`LayersPainter`): how a game's cells are laid
  out and its pieces drawn;
* :class:`PositionCanvas`: paints a :class:`~mdpviz.models.position.PositionView`;
* :class:`PositionBoard`: the canvas with the walk's controls, the move table and the selected
  move's backup;
* :class:`MatchupPanel`: the simulation panel of a board game (outcome bar charts with CIs and
  exact probabilities);
* :class:`PositionGame`: the :class:`~mdpviz.widgets.game.Game` base class of board games.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPen, QPolygonF
from PySide6.QtWidgets import (
    QAbstractItemView,
    QBoxLayout,
    QCheckBox,
    QFrame,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from mdpviz.models.mdp import TabularMDP
from mdpviz.solvers import Sweep
from mdpviz.widgets.board import scale_rgb
from mdpviz.models.colors import DIVERGING, ColorScale, black_text, fitted_scale, scale_for
from mdpviz.widgets.convergence import export_scene
from mdpviz.models.display import backup_q, backup_text, format_prob
from mdpviz.models.episodes import sample_mdp_episode
from mdpviz.models.simulate import policy_matrix, uniform_policy_matrix
from mdpviz.widgets.game import Cancelled, Game, GameJob, Progress
from mdpviz.widgets.geometry import BoardLayout
from mdpviz.models.position import (
    DECISION,
    MODEL,
    PLAY,
    USER,
    WALK,
    GameWalk,
    MatchupRow,
    Position,
    PositionModel,
    PositionView,
    outcome_text,
    position_view,
)
from mdpviz.widgets import named as _named
from mdpviz.widgets.simulation import ResultsSplitter, games_seed_row

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
OUTCOME_COLORS = ("#0072b2", "#d55e00", "#999999")
"""Bar colours of the three results (X wins, O wins, draws): Okabe-Ito blue, vermillion, grey."""
TABLE_HEADER = ["Matchup", "X wins %", "exact", "O wins %", "exact", "draws %", "exact"]
"""Columns of the matchup table (one row per matchup; per result the simulated share ± the half-width of
its Wilson 95% interval, and the exact probability, ticked when inside the interval); the result
columns are named after the game's results."""
MAX_NAMED_BARS = 3
"""Up to this many matchups the bar chart's axis names them; with more, letters (A, B, ...) keyed in the table."""
AXIS_FONT_PT = 11
"""Point size of the matchup chart's tick labels and legend (readable from the back of a room)."""




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


# ---------------------------------------------------------------------------------- the canvas
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
        self.message = ""
        self.text_scale = 1.0
        self.drag_handler: Callable[[int, float, bool], None] | None = None
        """When set, a left drag on a cell edits it: handler(cell, value in [0, 1] (top = 1), final)."""
        self._drag_cell = -1
        self.scale: ColorScale | None = None
        """The colour scale the view's ``fill`` positions are on."""

    def set_painter(self, painter: BoardPainter) -> None:
        self.painter_ = painter
        self.update()

    def show_position(self, pos: Position | None, view: PositionView | None, *, last_cells: Sequence[int] = (),
                      origin: int = -1, message: str = "", scale: ColorScale | None = None) -> None:
        self.position, self.view = pos, view
        self.scale = scale
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
        font = QFont(self.font())
        for c, r in enumerate(rects):
            col = self.fill_color(c)
            qp.setPen(QPen(QColor("#555555"), 1.0))
            qp.setBrush(col)
            qp.drawRect(r)
            code = int(pos.cells[c])
            if code:
                self.painter_.paint_piece(qp, r, c, code)
            if v is None:
                continue
            text = v.texts[c]
            if text:
                # as large as the cell takes: about 0.6 px of width per px of height and character
                px = max(7.0, min(r.width() * 0.3, 30.0 * self.text_scale, 0.82 * r.width() / (0.6 * max(len(text), 3))))
                font.setPixelSizeF(px) if hasattr(font, "setPixelSizeF") else font.setPixelSize(int(px))
                font.setBold(True)
                qp.setFont(font)
                if code:  # a piece is drawn: the number goes on a pill at the bottom
                    pill = QRectF(r.left() + r.width() * 0.1, r.bottom() - px * 1.5, r.width() * 0.8, px * 1.35)
                    qp.setPen(Qt.PenStyle.NoPen)
                    qp.setBrush(QColor(255, 255, 255, 225))
                    qp.drawRoundedRect(pill, 4, 4)
                    qp.setPen(QColor("#000000"))
                    qp.drawText(pill, Qt.AlignmentFlag.AlignCenter, text)
                else:
                    black = bool(black_text(np.array([[col.red(), col.green(), col.blue()]]))[0])
                    qp.setPen(QColor("#000000" if black else "#ffffff"))
                    qp.drawText(r, Qt.AlignmentFlag.AlignCenter, text)
            if v.origins.size and v.origins[c] and c != self.origin:
                qp.setPen(QPen(QColor(ORIGIN_COLOR), max(1.5, r.width() * 0.03), Qt.PenStyle.DashLine))
                qp.setBrush(Qt.BrushStyle.NoBrush)
                qp.drawRect(r.adjusted(3, 3, -3, -3))
        self.painter_.paint_overlay(qp, rects)
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
        if v is not None:
            for g in (v.greedy_cell, v.greedy_origin):
                if 0 <= g < len(rects):
                    self._mark_greedy(qp, rects[g])
            if 0 <= v.greedy < len(v.moves) and v.greedy_origin >= 0:  # a move of a piece: the policy as an arrow
                mv = v.moves[v.greedy]
                if 0 <= mv.origin < len(rects) and 0 <= mv.cell < len(rects) and mv.cell != mv.origin:
                    self._policy_arrow(qp, rects[mv.origin], rects[mv.cell])

    def _policy_arrow(self, qp: QPainter, a: QRectF, b: QRectF) -> None:
        """The greedy move of a piece: a thick arrow from its square to where it goes (white-edged, so it
        reads on every square and colour)."""
        p0, p1 = a.center(), b.center()
        dx, dy = p1.x() - p0.x(), p1.y() - p0.y()
        n = math.hypot(dx, dy)
        if n <= 1:
            return
        ux, uy = dx / n, dy / n
        w = max(4.0, min(a.width(), a.height()) * 0.09)
        head = w * 3.2
        tip = QPointF(p1.x() - ux * min(a.width(), a.height()) * 0.18, p1.y() - uy * min(a.width(), a.height()) * 0.18)
        start = QPointF(p0.x() + ux * min(a.width(), a.height()) * 0.3, p0.y() + uy * min(a.width(), a.height()) * 0.3)
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

    def _mark_greedy(self, qp: QPainter, r: QRectF) -> None:
        w = max(2.5, r.width() * 0.06)
        qp.setBrush(Qt.BrushStyle.NoBrush)
        qp.setPen(QPen(QColor(GREEDY_COLOR), w))
        qp.drawRect(r.adjusted(w / 2, w / 2, -w / 2, -w / 2))
        qp.setPen(QPen(QColor("#ffffff"), max(1.0, w / 3)))
        qp.drawRect(r.adjusted(w * 1.2, w * 1.2, -w * 1.2, -w * 1.2))
        d = max(r.width() * 0.28, min(24.0, r.width() * 0.34))  # readable from the back of a room
        star = QRectF(r.right() - d - w * 0.3, r.top() + w, d, d)
        f = QFont(self.font())
        f.setPixelSize(max(8, int(d * 0.72)))
        qp.setFont(f)
        qp.setPen(QColor("#000000"))
        qp.setBrush(QColor("#ffffff"))
        qp.drawEllipse(star.adjusted(1, 1, -1, -1))
        qp.drawText(star, Qt.AlignmentFlag.AlignCenter, "\u2605")

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


# ---------------------------------------------------------------------------------- the board
class PositionBoard(QWidget):
    """One position of a board game with the walk's controls (see the module docstring)."""

    inspect_requested = Signal(int)
    """The MDP state of the shown position (the window's inspector shows its backup); -1: none."""
    position_changed = Signal(object)
    """The new :class:`Position`."""
    job_message = Signal(str)
    """A note for the status bar."""
    scale_changed = Signal(object)
    """The shown position's colour scale changed (a :class:`ColorScale`, or None): the window's colour bar follows."""

    def __init__(self, model: Callable[[], PositionModel | None], painter: Callable[[], BoardPainter], *,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("positionBoard")
        self.setAccessibleName("Board game position")
        self._model_fn = model
        self._painter_fn = painter
        self.model: PositionModel | None = None
        self.walk: GameWalk | None = None
        self.values: Any = None
        self.scale: ColorScale | None = None
        self.caption = ""
        self.hide_hints = False
        self.predict = False
        self._revealed: set[int] = set()
        self._revealed_key: Any = None
        self.origin = -1
        self.selected_action: int | None = None
        self.last_text = ""
        self.token_text = ""
        self._seed = 0
        self._view: PositionView | None = None
        self.edit_text = ""
        self.own_scale: ColorScale | None = None
        """The colour scale the board made itself (no sweep, but the model has values and a range)."""
        self.value_range: Any = None
        """The solve's :class:`~mdpviz.controller.ValueRange` (its ``values``: the exact optimal V, if
        known), from :meth:`set_value_range`."""
        self.shown_scale: ColorScale | None = None
        """The colour scale of the shown position (see :meth:`color_range`)."""
        self._seen: dict[Any, tuple[float, float]] = {}
        self._fill_key: Any = None  # what the moves table shows (refilled only when it changes)

        self.canvas = PositionCanvas(painter())
        self.caption_label = _named(QLabel(""), "positionCaption", "Which sweep the values are from")
        self.caption_label.setWordWrap(True)
        self.status = _named(QLabel(""), "positionStatus", "Whose turn, and what happened")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        f = QFont(self.status.font())
        f.setBold(True)
        self.status.setFont(f)
        self.value_label = _named(QLabel(""), "positionValue", "Value of the position")
        self.value_label.setWordWrap(True)
        self.outcome_label = _named(QLabel(""), "positionOutcomes", "Exact outcome probabilities from here")
        self.outcome_label.setWordWrap(True)
        self.visited_label = _named(QLabel(""), "positionVisited", "States visited")
        self.visited_label.setWordWrap(True)

        self.back_button = _named(QPushButton("\u25c0 Back"), "positionBack", "Back one move")
        self.forward_button = _named(QPushButton("Forward \u25b6"), "positionForward", "Forward one move")
        self.new_button = _named(QPushButton("New game"), "positionNewGame", "New game")
        self.mode_combo = _named(QComboBox(), "positionMode", "Mode")
        self.mode_combo.addItem("Walk the game tree", WALK)
        self.mode_combo.addItem("Play vs agent", PLAY)
        self.mode_combo.setToolTip("Walk the tree (you play every move; the model answers) or play a game "
                                   "against the greedy policy of the shown values")
        self.human_combo = _named(QComboBox(), "positionHuman", "Your mark")
        self.human_combo.setToolTip("The mark you play against the agent")
        self.first_combo = _named(QComboBox(), "positionFirst", "Who moves first")
        self.first_combo.setToolTip("Who makes the first move of a game against the agent")
        self.hide_check = _named(QCheckBox("Hide hints"), "positionHideHints", "Hide hints")
        self.hide_check.setToolTip("Hide the values and the greedy mark on the board (for students)")

        self.moves_table = _named(QTableWidget(0, 3), "positionMoves", "Legal moves and their values")
        self.moves_table.setHorizontalHeaderLabels(["Move", "Q", "\u2605"])
        self.moves_table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.moves_table.verticalHeader().setVisible(False)
        self.moves_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.moves_table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.moves_table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        # sized to the contents once per fill (_fill_table): ResizeToContents measures every row again on
        # each setItem, which made a refresh of 27 moves cost 12-46 ms of the GUI thread
        self.moves_table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.moves_table.horizontalHeader().setStretchLastSection(False)
        self.moves_table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.moves_table.verticalHeader().setDefaultSectionSize(20)
        self.moves_table.setToolTip("Select a move to see its backup; double-click to play it")
        # the texts above the table are read whole first; the table takes the height that is left
        self.moves_table.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Ignored)
        self.backup_label = _named(QLabel(""), "positionBackup", "Backup of the selected move")
        self.backup_label.setWordWrap(True)
        self.backup_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.backup_label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)

        # The board takes as much of the tab as it can: the canvas (with the walk's buttons under it) and
        # a side panel with every text beside it (resizeEvent -> _arrange).
        self.canvas_column = QWidget()
        self.canvas_column.setObjectName("positionCanvasColumn")
        left = QVBoxLayout(self.canvas_column)
        left.setContentsMargins(0, 0, 0, 0)
        left.addWidget(self.canvas, 1)
        nav = QHBoxLayout()
        nav.addWidget(self.back_button)
        nav.addWidget(self.forward_button)
        nav.addWidget(self.new_button)
        nav.addStretch(1)
        left.addLayout(nav)
        hva = QHBoxLayout()
        hva.addWidget(self.mode_combo)
        self.human_caption = QLabel("you play")
        hva.addWidget(self.human_caption)
        hva.addWidget(self.human_combo)
        self.first_caption = QLabel("first")
        hva.addWidget(self.first_caption)
        hva.addWidget(self.first_combo)
        hva.addWidget(self.hide_check)
        hva.addStretch(1)
        side = QWidget()
        side.setObjectName("positionSide")
        self.side = side
        col = QVBoxLayout(side)
        col.setContentsMargins(0, 0, 0, 0)
        col.setSpacing(3)
        # the texts, full width, each wrapped to a line or two; they scroll (as a last resort) only when
        # even the widest side panel the board leaves cannot hold them (see _arrange)
        texts = QWidget()
        tl = QVBoxLayout(texts)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.setSpacing(3)
        for lab in (self.caption_label, self.status, self.value_label, self.outcome_label, self.visited_label):
            tl.addWidget(lab)
        tl.addStretch(1)
        self.texts_scroll = QScrollArea()
        self.texts_scroll.setObjectName("positionTextsScroll")
        self.texts_scroll.setWidget(texts)
        self.texts_scroll.setWidgetResizable(True)
        self.texts_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.texts_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        col.addWidget(self.texts_scroll)
        col.addWidget(self.moves_table, 1)
        # the selected move's backup can be long (one term per reply): it scrolls in its own box of a few
        # lines (the inspector shows the same backup); everything else is sized to be read whole
        self.backup_scroll = QScrollArea()
        self.backup_scroll.setObjectName("positionBackupScroll")
        self.backup_scroll.setWidget(self.backup_label)
        self.backup_scroll.setWidgetResizable(True)
        self.backup_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.backup_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        col.addWidget(self.backup_scroll)
        col.addLayout(hva)
        side.setMinimumWidth(150)
        self._fit_pending = False
        side.installEventFilter(self)
        self._box = QBoxLayout(QBoxLayout.Direction.LeftToRight, self)
        self._box.setContentsMargins(0, 0, 0, 0)
        self._box.addWidget(self.canvas_column, 1)
        self._box.addWidget(side, 1)

        self.canvas.cell_clicked.connect(self.click_cell)
        self.canvas.cell_right_clicked.connect(self._on_right_click)
        self.back_button.clicked.connect(self.back)
        self.forward_button.clicked.connect(self.forward)
        self.new_button.clicked.connect(self.new_game)
        self.mode_combo.currentIndexChanged.connect(lambda _i: self.set_mode(self.mode_combo.currentData()))
        self.human_combo.currentIndexChanged.connect(lambda _i: self._on_human())
        self.first_combo.currentIndexChanged.connect(lambda _i: self._on_first())
        self.hide_check.toggled.connect(self.set_hide_hints)
        self.moves_table.itemSelectionChanged.connect(self._on_table_selection)
        self.moves_table.cellDoubleClicked.connect(self._on_table_double)
        self._sync_model()

    # ------------------------------------------------------------------ layout
    SIDE_WIDTH = 270
    """The side panel's width beside the board (px): its texts wrap to a few lines, the moves fit."""

    def board_aspect(self) -> float:
        """Width over height of the board the painter draws (1 for a square grid, about 3 for the cube)."""
        pos = self.position
        n = int(pos.cells.size) if pos is not None else 9
        key = (id(self.canvas.painter_), n)
        if getattr(self, "_aspect_key", None) != key:
            rects = self.canvas.painter_.cell_rects(QRectF(0, 0, 100_000, 1000), n)
            if rects:
                w = max(r.right() for r in rects) - min(r.left() for r in rects)
                h = max(r.bottom() for r in rects) - min(r.top() for r in rects)
                self._aspect = max(0.2, min(10.0, w / h)) if h > 0 else 1.0
            else:
                self._aspect = 1.0
            self._aspect_key = key
        return self._aspect

    def _arrange(self) -> None:
        """Cap the board's column so that the board is as large as the tab's height allows and the rest of
        the width goes to the side panel's texts."""
        w, h = self.width(), self.height()
        if w <= 0 or h <= 0:
            return
        a = self.board_aspect()
        nav = self.canvas_column.layout().itemAt(1).sizeHint().height() + 6
        pad = 12 + (18 if a > 1.5 else 0)  # the canvas's margins (and the cube's layer titles)
        big = 16_777_215  # QWIDGETSIZE_MAX
        # Beside only: below, the side panel's minimum height added to the board's would raise the
        # window's minimum height past a 720-px screen. A square board takes the tab's full height and the
        # texts the rest of the width; a wide board (the cube's three layers) is limited by the width, so
        # it gets most of it.
        if a <= 1.5:
            side_w = max(self.SIDE_WIDTH, w - int((h - nav - pad) * a + pad))
        else:
            side_w = max(240, int(w * 0.36))
        # a long caption (anti-tic-tac-toe's rounds) needs more lines: widen the texts until they fit
        # (but never narrower than the Back / Forward / New game buttons under the board)
        buttons = self.canvas_column.layout().itemAt(1).sizeHint().width()
        while side_w + 30 <= w - buttons and self._side_height(side_w) > h:
            side_w += 30
        self.canvas_column.setMaximumSize(max(160, buttons, w - side_w), big)
        actual = self.side.width()  # the width the texts wrap at (once laid out), else the planned one
        self._fit_texts(min(side_w, actual) if actual > 100 else side_w)

    def _fit_texts(self, width: int) -> None:
        """Give the side panel's texts the height they need at ``width`` (whole), or all the room the
        moves table and the backup box leave (then they scroll)."""
        texts = self._texts_height(width)
        room = self.height() - (self._side_height(width) - texts)
        want = max(40, min(texts, room))
        if self.texts_scroll.minimumHeight() != want or self.texts_scroll.maximumHeight() != want:
            self.texts_scroll.setFixedHeight(want)
            lay = self.side.layout()
            lay.invalidate()
            lay.activate()

    def eventFilter(self, obj, ev) -> bool:  # noqa: N802
        if obj is getattr(self, "side", None) and ev.type() == QEvent.Type.Resize and not self._fit_pending:
            # the texts wrap at the side panel's new width: refit once the layout pass that resized it
            # is over (a size changed inside it would not move the table below)
            self._fit_pending = True
            QTimer.singleShot(0, self, self._fit_side)
        return super().eventFilter(obj, ev)

    def _fit_side(self) -> None:
        self._fit_pending = False
        if self.side.width() > 100:
            self._fit_texts(self.side.width())

    def _texts_height(self, width: int) -> int:
        """The height of the side panel's texts, each whole, at ``width``."""
        return sum(lab.heightForWidth(width) + 3 for lab in
                   (self.caption_label, self.status, self.value_label, self.outcome_label, self.visited_label)
                   if lab.text())

    def _side_height(self, width: int) -> int:
        """The height the side panel needs at ``width``: its texts whole, a few moves, the backup box."""
        lay = self.side.layout()
        need = self._texts_height(width) + lay.spacing()
        need += self.moves_table.minimumHeight() + lay.spacing()
        need += self.backup_scroll.height() + lay.spacing()
        need += lay.itemAt(lay.count() - 1).sizeHint().height()
        return need

    def resizeEvent(self, ev) -> None:  # noqa: N802
        super().resizeEvent(ev)
        self._arrange()
        line = QFontMetrics(self.backup_label.font()).lineSpacing()
        self.backup_scroll.setFixedHeight(int(line * (2.2 if self.height() < 420 else 5.2)) + 4)
        self.moves_table.setMinimumHeight(int(self.moves_table.verticalHeader().defaultSectionSize() * 1.6
                                              + self.moves_table.horizontalHeader().sizeHint().height()))

    def changeEvent(self, ev) -> None:  # noqa: N802
        super().changeEvent(ev)
        if ev.type() == QEvent.Type.FontChange and getattr(self, "side", None) is not None:  # presenter mode: the moves table's columns are re-measured
            self._fill_key = None
            self._refresh()

    # ------------------------------------------------------------------ the window's calls
    def show_sweep(self, sweep: Sweep | None, scale: ColorScale | None, *, caption: str = "") -> None:
        """The values of one sweep (None: no sweep yet; the model's default values are shown, if any)."""
        self.show_values(None if sweep is None else np.asarray(sweep.values), scale, caption=caption)

    def show_values(self, values: Any, scale: ColorScale | None, *, caption: str = "") -> None:
        """Values from any source (the model's ``move_values`` interprets them)."""
        self._sync_model()
        self._set_values(values, scale)
        self.caption = caption
        self._refresh()

    def set_value_range(self, rng: Any) -> None:
        """The solve's value range (None: no solve). A new one starts the ranges seen afresh."""
        if rng is not self.value_range:
            self.value_range = rng
            self._seen = {}

    def color_range(self) -> tuple[float, float] | None:
        """(low, high): the values drawn with the two ends of the shown position's colour scale
        (None: nothing coloured yet)."""
        s = self.shown_scale
        return None if s is None else (s.lo, s.hi)

    def position_scale(self, pos: Position) -> ColorScale | None:
        """The colour scale of ``pos``: it spans the Q-values of the position's legal moves. With the
        solve's exact optimal values (small models) those of the optimal values, fixed for the solve;
        otherwise the range of the values shown at this position so far, widened when exceeded and
        never shrunk within the solve. Positions without move values keep the last scale."""
        base, m = self.scale, self.model
        if base is None or m is None:
            return None
        keep = self.shown_scale if self.shown_scale is not None and self.shown_scale.label == base.label else base
        if pos.terminal or pos.chooser != DECISION:
            return keep
        ref = getattr(self.value_range, "values", None)
        mdp = getattr(m, "mdp", None)
        if ref is not None and mdp is not None and np.shape(ref) == (mdp.n_states,):
            q = np.asarray(m.move_values(pos, ref), dtype=np.float64)
            q = q[np.isfinite(q)]
            if q.size == 0:
                return keep
            lo, hi = float(q.min()), float(q.max())
        else:
            if self.values is None:
                return keep
            q = np.asarray(m.move_values(pos, self.values), dtype=np.float64)
            q = q[np.isfinite(q)]
            seen = self._seen.get(pos.key)
            if q.size:
                lo, hi = float(q.min()), float(q.max())
                if seen is not None:
                    lo, hi = min(lo, seen[0]), max(hi, seen[1])
                self._seen[pos.key] = (lo, hi)
            elif seen is None:
                return keep
            else:
                lo, hi = seen
        return fitted_scale(lo, hi, label=base.label, kind=base.kind)

    def _set_values(self, values: Any, scale: ColorScale | None) -> None:
        """Store ``values`` (None: the model's default values) and the colour scale (None: the
        model's own range, if it has one, as :attr:`own_scale`)."""
        if values is None and self.model is not None:
            values = self.model.default_values()
        self.own_scale = None
        if scale is None and values is not None and self.model is not None:
            rng = self.model.value_range()
            if rng is not None:
                self.own_scale = scale = scale_for(rng[0], rng[1], label=self.model.value_label, kind=DIVERGING)
        self.values = values
        self.scale = scale

    def initial_values(self, model: PositionModel) -> Any:
        """The values a new model starts with (see :meth:`_sync_model`): None, i.e. the model's default
        values, since the previous model's values index other states. A board whose values do not
        depend on the model (the 3D game's agent) returns them here."""
        return None

    def show_token(self, state: int | None, text: str = "") -> None:
        """Show the position of MDP ``state`` (the episode player's token); None: nothing changes."""
        self._sync_model()
        if state is None or self.model is None or self.walk is None:
            return
        try:
            pos = self.model.position_of(int(state))
        except ValueError as e:
            self.job_message.emit(str(e))
            return
        self.token_text = text
        self.show_position(pos, f"Episode: {text}" if text else "")

    def show_position(self, pos: Position, text: str = "") -> bool:
        """Show ``pos`` (a position of the current model) as a fresh start of the walk (the history is
        forgotten), with ``text`` on the status line; False if there is no model to walk."""
        self._sync_model()
        if self.walk is None:
            return False
        self.walk.show(pos)
        self.last_text = text
        self._position_changed()
        return True

    # ------------------------------------------------------------------ settings
    def set_mode(self, mode: str) -> None:
        """"walk" (walk the tree) or "play" (human vs agent); starts a new game."""
        if self.walk is None:
            return
        self.walk.set_mode(mode)
        i = self.mode_combo.findData(mode)
        if self.mode_combo.currentIndex() != i:
            self.mode_combo.blockSignals(True)
            self.mode_combo.setCurrentIndex(i)
            self.mode_combo.blockSignals(False)
        self._update_controls()
        self.new_game()

    def set_human(self, mark: str) -> None:
        if self.walk is None:
            return
        self.walk.set_human(mark)
        self._select_combo(self.human_combo, mark)
        if self.walk.mode == PLAY:
            self.new_game()

    def set_first(self, mark: str) -> None:
        if self.walk is None:
            return
        self.walk.set_first(mark)
        self._select_combo(self.first_combo, mark)
        if self.walk.mode == PLAY:
            self.new_game()

    def set_hide_hints(self, on: bool) -> None:
        """Hide the values and the greedy mark (the numbers stay readable once shown again)."""
        self.hide_hints = bool(on)
        if self.hide_check.isChecked() != self.hide_hints:
            self.hide_check.blockSignals(True)
            self.hide_check.setChecked(self.hide_hints)
            self.hide_check.blockSignals(False)
        self._refresh()
        self._emit_inspect()

    def set_predict_mode(self, on: bool) -> None:
        """Predict-then-reveal: values and the greedy mark hidden until the user clicks a cell; the
        first click on a cell reveals its value (it does not play it); reveals reset on a new position."""
        self.predict = bool(on)
        self._revealed = set()
        self._refresh()
        self._emit_inspect()

    def hide_all(self) -> None:
        """Predict mode: hide every revealed value again (the window calls this on each new sweep)."""
        if self._revealed:
            self._revealed = set()
            self._refresh()

    def _emit_inspect(self) -> None:
        """Ask the window to inspect the shown position (-1, i.e. clear, while values are hidden: the
        inspector would give the answer away)."""
        pos = self.position
        self.inspect_requested.emit(-1 if pos is None or self._hidden() else int(pos.state))

    def set_cell_editor(self, handler: Callable[[int, float, bool], None] | None, text: str = "") -> None:
        """Edit cells by dragging (e.g. risks): ``handler(cell, value in [0, 1], final)``; None: clicks play."""
        self.canvas.drag_handler = handler
        self.edit_text = text if handler is not None else ""
        self._refresh()

    @staticmethod
    def _select_combo(combo: QComboBox, data: str) -> None:
        i = combo.findData(data)
        if i >= 0 and combo.currentIndex() != i:
            combo.blockSignals(True)
            combo.setCurrentIndex(i)
            combo.blockSignals(False)

    def _on_human(self) -> None:
        d = self.human_combo.currentData()
        if d is not None and self.walk is not None and d != self.walk.human:
            self.set_human(d)

    def _on_first(self) -> None:
        d = self.first_combo.currentData()
        if d is not None and self.walk is not None and d != self.walk.first:
            self.set_first(d)

    # ------------------------------------------------------------------ state
    @property
    def position(self) -> Position | None:
        return None if self.walk is None else self.walk.position

    @property
    def mode(self) -> str:
        return WALK if self.walk is None else self.walk.mode

    def view(self) -> PositionView | None:
        """The display data last painted."""
        return self._view

    def _sync_model(self) -> None:
        """Pick up a new model (an edit, a new solve): a new walk from the start, same mode and marks."""
        m = self._model_fn()
        if m is self.model:
            return
        old = self.walk
        self.model = m
        self.canvas.set_painter(self._painter_fn())
        self.origin = -1
        self.selected_action = None
        self.last_text = ""
        self._revealed = set()
        self._seen = {}
        # the previous model's values index its own states: the new walk starts with this model's
        # (the window shows the new solve's values at its next redraw)
        self._set_values(None if m is None else self.initial_values(m), None)
        self._fill_key = None
        if m is None:
            self.walk = None
            self._update_controls()
            self.inspect_requested.emit(-1)
            return
        try:
            w = GameWalk(m, seed=self._seed)
        except ValueError as e:
            self.walk = None
            self.last_text = str(e)
            self._update_controls()
            return
        self._fill_combo(self.human_combo, m.human_marks())
        self._fill_combo(self.first_combo, m.first_choices())
        if old is not None:
            if old.human in m.human_marks():
                w.human = old.human
            if old.first is None or old.first in m.first_choices():
                w.first = old.first
            w.mode = old.mode
        if w.first is None:
            w.first = m.first_choices()[0] if m.first_choices() else None
        self.walk = w
        self._select_combo(self.human_combo, w.human)
        if w.first is not None:
            self._select_combo(self.first_combo, w.first)
        self._update_controls()
        try:
            self.last_text = self._plies_text(w.new_game(self._agent_values()))
        except ValueError as e:
            self.last_text = str(e)
        self._emit_inspect()

    @staticmethod
    def _fill_combo(combo: QComboBox, items: Sequence[str]) -> None:
        combo.blockSignals(True)
        combo.clear()
        for it in items:
            combo.addItem(str(it), it)
        combo.blockSignals(False)

    def _agent_values(self) -> Any:
        return self.values

    def _update_controls(self) -> None:
        w = self.walk
        play = w is not None and w.mode == PLAY
        for wid in (self.human_combo, self.first_combo, self.human_caption, self.first_caption):
            wid.setVisible(play)
        self.back_button.setEnabled(w is not None and w.can_back)
        self.forward_button.setEnabled(w is not None and w.can_forward)
        self.new_button.setEnabled(w is not None)

    # ------------------------------------------------------------------ user actions
    def new_game(self) -> bool:
        """Back to the start position (PLAY: with the chosen first player; the agent opens if it starts)."""
        self._sync_model()
        if self.walk is None:
            return False
        self._seed += 1
        self.walk.rng = np.random.default_rng([self._seed, 9])
        try:
            plies = self.walk.new_game(self._agent_values())
        except ValueError as e:
            self.last_text = str(e)
            self.job_message.emit(str(e))
            self._refresh()
            return False
        self.last_text = self._plies_text(plies) if plies else ("New game" if self.walk.mode == PLAY else "")
        self._position_changed()
        return True

    def back(self) -> bool:
        if self.walk is None or not self.walk.back():
            return False
        self.last_text = ""
        self._position_changed()
        return True

    def forward(self) -> bool:
        if self.walk is None or not self.walk.forward():
            return False
        p = self.walk.last_ply()
        self.last_text = self._plies_text([p]) if p is not None else ""
        self._position_changed()
        return True

    def play_move(self, action: int) -> bool:
        """Play ``action`` at the shown position (then the model / agent answer); False with a status
        message if that is not possible (not your turn, illegal, game over)."""
        if self.walk is None:
            return False
        try:
            plies = self.walk.play(int(action), self._agent_values())
        except ValueError as e:
            self.last_text = str(e)
            self._refresh()
            return False
        self.last_text = self._plies_text(plies)
        self.token_text = ""
        self._position_changed()
        return True

    def click_cell(self, cell: int) -> str:
        """A left click on ``cell``; returns what it did: "played", "revealed", "origin", "none"."""
        pos = self.position
        if pos is None or self.model is None:
            return "none"
        if pos.terminal:
            self.last_text = f"Game over ({pos.outcome}): press New game or Back."
            self._refresh()
            return "none"
        moves = self.model.moves(pos)
        two_click = any(m.origin >= 0 for m in moves)
        if self.predict and self._hidden() and pos.chooser == DECISION and cell not in self._revealed:
            shows = {m.cell for m in moves if not two_click or m.origin == self.origin} | (
                {m.origin for m in moves if m.origin >= 0} if two_click and self.origin < 0 else set())
            if cell in shows:
                self._revealed.add(int(cell))
                self._refresh()
                return "revealed"
        if two_click:
            if self.origin >= 0:
                hits = [m for m in moves if m.origin == self.origin and m.cell == cell]
                if hits:
                    return "played" if self.play_move(self._pick(hits)) else "none"
            if any(m.origin == cell for m in moves):
                self.origin = int(cell) if self.origin != cell else -1
                self._revealed = set() if self.predict else self._revealed
                self._refresh()
                return "origin"
            self.origin = -1
            self._refresh()
            return "none"
        hits = [m for m in moves if m.cell == cell]
        if not hits:
            self.last_text = f"{self.canvas.painter_.cell_name(cell)} is not a legal move here."
            self._refresh()
            return "none"
        return "played" if self.play_move(self._pick(hits)) else "none"

    def _pick(self, hits) -> int:
        """Of several moves drawn on one cell, the greedy one (else the lowest action)."""
        if len(hits) == 1:
            return hits[0].action
        from mdpviz.models.position import greedy_move

        qs = self.model.move_values(self.position, self.values) if self.values is not None else None
        allm = self.model.moves(self.position)
        if qs is not None:
            q = {m.action: float(v) for m, v in zip(allm, qs)}
            sub = np.array([q.get(m.action, np.nan) for m in hits])
            i = greedy_move(hits, sub, self.position.objective)
            if i >= 0:
                return hits[i].action
        return min(m.action for m in hits)

    def select_move(self, action: int | None) -> None:
        """Show the backup of ``action`` at the shown position (None: clear)."""
        self.selected_action = None if action is None else int(action)
        self._refresh()

    def _on_right_click(self, cell: int) -> None:
        if self.model is None or self.position is None or self.position.terminal:
            return
        moves = [m for m in self.model.moves(self.position)
                 if m.cell == cell and (m.origin < 0 or m.origin == self.origin)]
        if moves:
            self.select_move(moves[0].action)

    def _on_table_selection(self) -> None:
        rows = self.moves_table.selectionModel().selectedRows() if self.moves_table.selectionModel() else []
        if not rows:
            return
        it = self.moves_table.item(rows[0].row(), 0)
        a = it.data(Qt.ItemDataRole.UserRole) if it is not None else None
        if a is not None and a != self.selected_action:
            self.select_move(int(a))

    def _on_table_double(self, row: int, _col: int) -> None:
        it = self.moves_table.item(row, 0)
        if it is not None:
            self.play_move(int(it.data(Qt.ItemDataRole.UserRole)))

    # ------------------------------------------------------------------ drawing
    @property
    def values_hidden(self) -> bool:
        """The values are hidden (Hide hints, or predict-then-reveal)."""
        return self.hide_hints or self.predict

    def _hidden(self) -> bool:
        return self.values_hidden

    def _position_changed(self) -> None:
        self.origin = -1
        self.selected_action = None
        self._revealed = set()
        pos = self.position
        self._refresh()
        if pos is not None:
            self.position_changed.emit(pos)
        self._emit_inspect()

    def _plies_text(self, plies) -> str:
        who = {"you": "You", "agent": "Agent", "model": "Model"}
        return "  ".join(f"{who.get(p.by, p.by)}: {p.text}." for p in plies if p is not None)

    def _refresh(self) -> None:
        pos = self.position
        m = self.model
        self._update_controls()
        self._arrange()  # the painter (and so the board's shape) may have changed with the game
        self.caption_label.setText(self.caption)
        if pos is None or m is None:
            self._view = None
            self.canvas.show_position(None, None, message=self.last_text or self.caption or "No game")
            self.status.setText(self.last_text)
            self.value_label.setText("")
            self.outcome_label.setText("")
            self.visited_label.setText("")
            self.moves_table.setRowCount(0)
            self._fill_key = None
            self.backup_label.setText("")
            return
        if self._revealed_key is not pos.key and self._revealed_key != pos.key:
            self._revealed = set()
            self._revealed_key = pos.key
        hidden = self._hidden()
        who = self.walk.role(pos) if self.walk is not None else ""
        yours_vs_model = pos.chooser == MODEL and who == USER  # you play the model's side: its odds are noise
        try:
            scale = self.position_scale(pos)
            if scale != self.shown_scale:
                self.shown_scale = scale
                self.scale_changed.emit(scale)
            view = position_view(m, pos, self.values, scale=scale, hide=hidden or yours_vs_model,
                                 revealed=sorted(self._revealed), origin=self.origin)
        except ValueError as e:
            self.last_text = str(e)
            view = None
            scale = None
        self._view = view
        last = self.walk.last_ply() if self.walk is not None else None
        last_cells = ()
        if last is not None:
            mv = [mm for mm in m.moves(last.before) if mm.action == last.action] if not last.before.terminal else []
            last_cells = tuple(c for mm in mv for c in (mm.cell, mm.origin) if c >= 0)
        self.canvas.show_position(pos, view, last_cells=last_cells, origin=self.origin, scale=scale)
        # whose turn and what happened
        turn = m.describe(pos)
        if not pos.terminal and self.walk is not None and self.walk.mode == PLAY:
            turn += " (your move)" if who == USER else f" ({who})"
        self.status.setText(self.edit_text or (f"{self.last_text}  {turn}".strip() if self.last_text else turn))
        self.value_label.setText(self.position_value_text(pos, view))
        probs = None
        if not hidden and self.values is not None and not pos.terminal:
            try:
                probs = m.outcome_probabilities(pos, self.values)
            except ValueError:
                probs = None
        self.outcome_label.setText(f"Exact from here (greedy play): {outcome_text(probs)}" if probs else "")
        if self.walk is not None:
            self.visited_label.setText(self.path_text())
        self._fill_table(view, hidden or yours_vs_model)
        self._fill_backup(pos, view, hidden)
        self._arrange()  # the texts' lengths changed: the side panel may need more width

    def position_value_text(self, pos: Position, view: PositionView | None) -> str:
        """The line about the shown position's value (a game's board may word it its own way)."""
        if pos.terminal:
            return f"Game over: {pos.outcome}."
        if view is not None and math.isfinite(view.value):
            return (f"V(position) = {view.value:.4f}  ({pos.mover} to move, "
                    f"{'maximises' if pos.objective == 'max' else 'minimises'})")
        if self.values_hidden:
            return "Values hidden."
        if pos.chooser == MODEL and self.walk is not None and self.walk.role(pos) == USER:
            return f"Your move: you play {pos.mover} in the model's place."
        if pos.chooser == MODEL:
            return f"{pos.mover} is played by the model: the numbers are its move probabilities."
        return "No values yet: step or run the solver."

    def describe_state(self, state: int) -> str | None:
        """The MDP state ``state`` in a student's words, for the inspector's title: how the walk got there
        ("after X on cell 4. O on cell 0; X to move ...") when it is on the walk's path, "empty board, X to
        move ..." at the start, else None (the caller names it by its board)."""
        m = self.model
        if m is None or state < 0:
            return None
        try:
            pos = m.position_of(int(state))
            turn = m.describe(pos)
        except (ValueError, IndexError, KeyError, AttributeError, NotImplementedError):
            return None
        w = self.walk
        if w is not None:
            path = w.path()
            at = next((i for i, p in enumerate(path) if p.state == state), -1)
            if at > 0:
                texts = [p.text.rstrip(".") for p in w.plies[:at] if p.text]
                if texts:
                    more = "\u2026 " if len(texts) > 2 else ""
                    return f"after {more}{'; '.join(texts[-2:])}: {turn}"
        cells = np.asarray(pos.cells)
        if cells.size and not cells.any():
            return f"empty board, {turn}"
        return None

    def path_text(self) -> str:
        """The line about the walk's path to the shown position (a game's board may word it its own way)."""
        w = self.walk
        if w is None:
            return ""
        states = w.visited_states()
        tail = " \u2192 ".join(str(s) for s in states[-8:])
        more = "\u2026 " if len(states) > 8 else ""
        what = (f"States visited: {len(states)} ({more}{tail})" if states else
                f"Positions visited: {len(w.path())}")  # a game without MDP states (exact 4x4)
        return f"{what}; move {w.index} of {len(w.plies)}"

    def _fill_table(self, view: PositionView | None, hidden: bool) -> None:
        """The moves table: refilled only when what it shows changed (the window redraws the board at
        screen rate), without per-item layout, the columns sized to their contents once."""
        moves = view.moves if view is not None else ()
        model_pos = self.position is not None and self.position.chooser == MODEL
        rows = table_rows(moves, () if view is None else view.qs, -1 if view is None else view.greedy,
                          model_pos=model_pos, hidden=hidden, revealed=self._revealed)
        sel_row = next((i for i, mv in enumerate(moves) if mv.action == self.selected_action), -1)
        key = (model_pos, rows, sel_row)
        if key == self._fill_key:
            return
        self._fill_key = key
        t = self.moves_table
        t.blockSignals(True)
        t.setUpdatesEnabled(False)
        try:
            t.setRowCount(len(rows))
            t.setHorizontalHeaderLabels(["Move", "P" if model_pos else "Q", "\u2605"])
            for i, (label, qt, star, action) in enumerate(rows):
                items = [QTableWidgetItem(label), QTableWidgetItem(qt), QTableWidgetItem(star)]
                items[2].setToolTip("the greedy move" if star else "")
                items[0].setData(Qt.ItemDataRole.UserRole, action)
                items[1].setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                for j, it in enumerate(items):
                    t.setItem(i, j, it)
            t.resizeColumnToContents(1)
            t.resizeColumnToContents(2)
            # wide enough for the longest move's name and its value (no "cell 0 (ri..." cut-offs)
            fm = QFontMetrics(t.font())
            name_w = max((fm.horizontalAdvance(r[0]) for r in rows), default=40) + 16
            t.setMinimumWidth(min(320, name_w + t.columnWidth(1) + t.columnWidth(2)
                                  + t.verticalScrollBar().sizeHint().width() + 2 * t.frameWidth()))
            if sel_row >= 0:
                t.selectRow(sel_row)
            else:
                t.clearSelection()
        finally:
            t.setUpdatesEnabled(True)
            t.blockSignals(False)

    def _fill_backup(self, pos: Position, view: PositionView | None, hidden: bool) -> None:
        a = self.selected_action
        if a is None or view is None or self.model is None:
            self.backup_label.setText("Right-click a cell (or pick a move in the table) for its backup."
                                      if pos.chooser == DECISION and not pos.terminal else "")
            return
        mv = next((m for m in view.moves if m.action == a), None)
        if mv is None:
            self.backup_label.setText("")
            return
        if hidden and mv.cell not in self._revealed:
            self.backup_label.setText(f"{mv.label}: hidden.")
            return
        terms = self.model.backup(pos, a, self.values)
        if not terms:
            self.backup_label.setText(f"{mv.label}: no backup (no values for this position).")
            return
        name = getattr(self.model, "state_name", str)
        text = backup_text(terms, self.model.discount(), state_name=name)
        q = backup_q(terms, self.model.discount())
        self.backup_label.setText(f"<b>{mv.label}</b>: Q = {q:.4f}<br><span style='font-family:monospace'>"
                                  f"{_esc(text)}</span>")


def table_rows(moves: Sequence[Any], qs: Sequence[float], greedy: int, *, model_pos: bool, hidden: bool,
               revealed: set[int] | frozenset[int] = frozenset()) -> tuple[tuple[str, str, str, int], ...]:
    """The rows of a position's moves table: (move label, value text, star, action id) per move.

    The value text is Q to 4 decimals at a decision (blank when hidden, unless the move's cell was
    revealed, or when Q is not finite), or the model's move probability at a model's position (blank
    when hidden); the star marks the greedy move (index ``greedy`` of ``moves``)."""
    out = []
    for i, mv in enumerate(moves):
        if model_pos:
            qt = format_prob(mv.prob) if math.isfinite(mv.prob) and not hidden else ""
        else:
            q = float(qs[i])
            qt = f"{q:.4f}" if math.isfinite(q) and (not hidden or mv.cell in revealed) else ""
        out.append((str(mv.label), qt, "\u2605" if i == greedy else "", int(mv.action)))
    return tuple(out)


def _esc(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


# ---------------------------------------------------------------------------------- matchups
class MatchupPanel(QWidget):
    """The simulation panel of a board game: outcome bars per matchup with 95% CIs and exact marks."""

    simulate_requested = Signal(int, int)  # games, seed
    cancel_requested = Signal()
    export_csv_requested = Signal()
    export_plot_requested = Signal()

    def __init__(self, parent: QWidget | None = None, *, default_games: int = 10_000) -> None:
        super().__init__(parent)
        self.setObjectName("matchupPanel")
        self.setAccessibleName("Matchups")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        row, self.games, self.seed = games_seed_row(
            games_name="matchupGamesSpin", games_label="Games per matchup", seed_name="matchupSeedSpin",
            games=default_games)
        lay.addLayout(row)
        row = QHBoxLayout()
        self.simulate = _named(QPushButton("Simulate"), "matchupSimulateButton", "Simulate the matchups")
        self.cancel = _named(QPushButton("Cancel"), "matchupCancelButton", "Cancel the simulation")
        self.cancel.setEnabled(False)
        row.addWidget(self.simulate)
        row.addWidget(self.cancel)
        self.progress = _named(QProgressBar(), "matchupProgress", "Simulation progress")
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        row.addWidget(self.progress, 1)
        lay.addLayout(row)
        self.status = _named(QLabel(""), "matchupStatus", "Simulation status")
        self.status.setWordWrap(True)
        lay.addWidget(self.status)
        split = ResultsSplitter()  # side by side on the wide results page, stacked in a narrow dock
        self.splitter = split
        self.plot_widget = _named(pg.PlotWidget(), "matchupPlot", "Outcome bars per matchup")
        self.plot_widget.setBackground("w")
        self.plot_widget.setMinimumHeight(80)
        self.plot = self.plot_widget.getPlotItem()
        self.plot.showGrid(y=True, alpha=0.25)
        self.plot.setLabel("left", "fraction of games")
        tick_font = QFont(self.font())
        tick_font.setPointSize(AXIS_FONT_PT)
        for ax in ("left", "bottom"):
            self.plot.getAxis(ax).setTextPen("k")
            self.plot.getAxis(ax).setPen("#444444")
            self.plot.getAxis(ax).setStyle(tickFont=tick_font)
        self.plot.setMouseEnabled(x=False, y=False)
        # the legend is the plot's title line, above the bars (a legend inside the view box covered the
        # tallest bars); it is part of the scene, so exported plots keep it
        self.legend_text = ""
        split.addWidget(self.plot_widget)
        self.table = _named(QTableWidget(0, len(TABLE_HEADER)), "matchupTable", "Simulated versus exact outcome probabilities")
        self.table.setHorizontalHeaderLabels(TABLE_HEADER)
        self.table.verticalHeader().setVisible(False)  # shown with the bars' letters (more than 3 matchups)
        bold = QFont(self.table.font())
        bold.setBold(True)
        self.table.verticalHeader().setFont(bold)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        # columns sized to the contents once per fill (ResizeToContents measures every row on each setItem)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setMinimumHeight(60)
        split.addWidget(self.table)
        split.setSizes([300, 110])  # the bars first: the table scrolls
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        lay.addWidget(split, 1)
        exports = QHBoxLayout()
        exports.addStretch(1)
        exports.addWidget(QLabel("Export"))
        self.export_csv = _named(QPushButton("CSV\u2026"), "matchupCsvButton", "Export results as CSV")
        self.export_plot = _named(QPushButton("Plot\u2026"), "matchupPlotButton", "Export the bar chart")
        self.export_csv.setEnabled(False)
        self.export_plot.setEnabled(False)
        exports.addWidget(self.export_csv)
        exports.addWidget(self.export_plot)
        lay.addLayout(exports)
        self.rows: tuple[MatchupRow, ...] = ()
        self.simulate.clicked.connect(lambda: self.simulate_requested.emit(self.games.value(), self.seed.value()))
        self.cancel.clicked.connect(self.cancel_requested)
        self.export_csv.clicked.connect(self.export_csv_requested)
        self.export_plot.clicked.connect(self.export_plot_requested)

    def show_running(self, running: bool, text: str = "") -> None:
        self.simulate.setEnabled(not running)
        self.cancel.setEnabled(running)
        if running:
            self.progress.setRange(0, 0)
        else:
            self.progress.setRange(0, 1)
        self.status.setText(text)

    def show_progress(self, done: int, total: int, text: str) -> None:
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)
        self.status.setText(text)

    def clear(self, text: str = "") -> None:
        self.rows = ()
        self.plot.clear()
        self._set_legend("")
        self.table.setRowCount(0)
        self.table.verticalHeader().setVisible(False)
        self.export_csv.setEnabled(False)
        self.export_plot.setEnabled(False)
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.status.setText(text)

    def show_results(self, rows: Sequence[MatchupRow], *, unit: str = "games", start: str = "",
                     notes: Sequence[str] = ()) -> None:
        """Bars (simulated fraction of each result) with Wilson 95% error bars and the exact
        probabilities as black ticks; the same numbers in the table."""
        self.rows = tuple(rows)
        self.plot.clear()
        width = 0.26
        labels = rows[0].labels if rows else ("X wins", "O wins", "draws")
        for j in range(3):
            xs = np.arange(len(rows)) + (j - 1) * width
            fr = np.array([r.fractions[j] for r in rows])
            lo = np.array([r.ci[0][j] for r in rows])
            hi = np.array([r.ci[1][j] for r in rows])
            bar = pg.BarGraphItem(x=xs, height=fr, width=width * 0.92, brush=OUTCOME_COLORS[j],
                                  pen=pg.mkPen("#333333", width=0.5))
            self.plot.addItem(bar)
            self.plot.addItem(pg.ErrorBarItem(x=xs, y=fr, top=hi - fr, bottom=fr - lo, beam=width * 0.3,
                                              pen=pg.mkPen("#000000", width=1.2)))
            ex = [(x, r.exact[j]) for x, r in zip(xs, rows) if r.exact is not None]
            if ex:
                seg_x = np.ravel([[x - width * 0.45, x + width * 0.45] for x, _ in ex])
                seg_y = np.ravel([[e, e] for _, e in ex])
                self.plot.addItem(pg.PlotDataItem(seg_x, seg_y, connect="pairs",
                                                  pen=pg.mkPen("#000000", width=2.5,
                                                               style=Qt.PenStyle.DashLine)))
        self._set_legend(legend_html(labels, exact=any(r.exact is not None for r in rows)) if rows else "")
        names = [r.name for r in rows]
        ticks = tick_labels(names)
        lettered = len(rows) > MAX_NAMED_BARS
        ax = self.plot.getAxis("bottom")
        ax.setTicks([list(enumerate(ticks))])
        lines = max((t.count("\n") + 1 for t in ticks), default=1)
        ax.setHeight(int(QFontMetrics(ax.style["tickFont"] or self.font()).lineSpacing() * lines + 12))
        self.plot.setLabel("bottom", "matchup (see the table)" if lettered else "")
        self.plot.getAxis("left").setTicks([[(0.0, "0"), (0.5, "0.5"), (1.0, "1")], [(0.25, ""), (0.75, "")]])
        self.plot.setYRange(0, 1.06, padding=0)  # room above a bar of 1 for its interval and the tick label "1"
        self.plot.setXRange(-0.6, len(rows) - 0.4, padding=0)
        self._fill_results(rows, labels, ticks, lettered)
        games = rows[0].games if rows else 0
        note = ("  " + "; ".join(notes)) if notes else ""
        self.status.setText(f"{games:,} games per matchup from {start}: simulated % \u00b1 half its 95% CI "
                            f"(\u2713: exact inside it); black dashes = exact probabilities.{note}")
        self.progress.setRange(0, 1)
        self.progress.setValue(1)
        self.export_csv.setEnabled(bool(rows))
        self.export_plot.setEnabled(bool(rows))

    def _fill_results(self, rows: Sequence[MatchupRow], labels: Sequence[str], ticks: Sequence[str],
                    lettered: bool) -> None:
        """The table: one row per matchup (so that five matchups fit a laptop's screen), per result the
        simulated share in % ± the half-width of its Wilson 95% interval (the interval itself in the
        tooltip) and the exact probability in %, ticked (\u2713) when inside the interval and crossed
        (\u2717) when not; laid out once (not per item)."""
        self.table.setUpdatesEnabled(False)
        try:
            self.table.setRowCount(len(rows))
            header = ["Matchup"]
            for j in range(3):
                header += [f"{labels[j]} %", "exact"]
            self.table.setHorizontalHeaderLabels(header)
            for j in range(3):
                self.table.horizontalHeaderItem(1 + 2 * j).setForeground(QColor(OUTCOME_COLORS[j]))
            for i, r in enumerate(rows):
                lo, hi = r.ci
                inside = r.within_ci
                name = QTableWidgetItem(r.name)
                name.setToolTip(f"{r.name}: {r.games:,} games")
                self.table.setItem(i, 0, name)
                for j in range(3):
                    half = 100 * (hi[j] - lo[j]) / 2
                    sim = f"{100 * r.fractions[j]:.2f} \u00b1{half:.2f}"
                    ex = "" if r.exact is None else f"{100 * r.exact[j]:.2f}"
                    if ex and inside is not None:
                        ex += " \u2713" if inside[j] else " \u2717"
                    tip = (f"{r.name}, {labels[j]}: {r.counts[j]:,} of {r.games:,} games; Wilson 95% interval "
                           f"[{100 * lo[j]:.2f}%, {100 * hi[j]:.2f}%]"
                           + ("" if r.exact is None else f"; exact {r.exact[j]:.10g}"
                              + ("" if inside is None else (" (inside the interval)" if inside[j]
                                                            else " (outside the interval)"))))
                    for k, text in ((1 + 2 * j, sim), (2 + 2 * j, ex)):
                        it = QTableWidgetItem(text)
                        it.setToolTip(tip)
                        it.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                        self.table.setItem(i, k, it)
            # the bars' letters head the table's rows
            if lettered:
                self.table.setVerticalHeaderLabels(list(ticks))
            self.table.verticalHeader().setVisible(lettered)
            self.table.resizeColumnsToContents()
        finally:
            self.table.setUpdatesEnabled(True)
        self.splitter.fit()

    def _set_legend(self, html: str) -> None:
        self.legend_text = html
        self.plot.setTitle(html or None)

    def export_plot_to(self, path) -> None:
        export_scene(self.plot_widget, path)


def tick_labels(names: Sequence[str]) -> list[str]:
    """The matchups' labels on the bar chart's axis: up to :data:`MAX_NAMED_BARS` matchups, each name
    on two lines ("optimal" / "vs random"); with more, the letters A, B, C, ... (the table gives each
    letter's matchup in full), so that every label stays readable at a large font."""
    if len(names) > MAX_NAMED_BARS:
        if len(names) > 26:
            raise ValueError(f"{len(names)} matchups: the bar chart letters them A to Z, at most 26")
        return [chr(ord("A") + i) for i in range(len(names))]
    return ["\nvs ".join(n.split(" vs ")) for n in names]


def legend_html(labels: Sequence[str], *, exact: bool) -> str:
    """The bar chart's legend line (the plot's title): a coloured square per result (the bars'
    :data:`OUTCOME_COLORS`), and the dashes of the exact probabilities if any are shown."""
    parts = [f"<span style='color:{c}'>\u25a0</span>&nbsp;{_esc(str(t))}" for c, t in zip(OUTCOME_COLORS, labels)]
    if exact:
        parts.append("<b>- -</b>&nbsp;exact")
    return (f"<span style='color:#000000; font-size:{AXIS_FONT_PT}pt'>" + "&nbsp; ".join(parts)
            + "</span>")


# ---------------------------------------------------------------------------------- the game base
class PositionGame(Game):
    """A board game in the window: one :class:`PositionBoard` and one :class:`MatchupPanel`.

    Subclasses implement ``build_mdp``, :meth:`position_model` (cached per ``self.state``),
    :meth:`painter` and ``simulation_job`` (returning a
    :class:`~mdpviz.models.position.MatchupResult`).
    """

    value_label = "value of each move (Q)"
    unit = "reward"
    color_kind = DIVERGING

    def __init__(self, state: Any, parent: QObject | None = None) -> None:
        super().__init__(state, parent)
        self._board: PositionBoard | None = None
        self._sim: MatchupPanel | None = None

    # to implement
    def position_model(self) -> PositionModel | None:
        raise NotImplementedError

    def painter(self) -> BoardPainter:
        return GridPainter(3)

    def matchups(self) -> list[str]:
        return []

    # provided
    def board_layout(self, mdp: TabularMDP | None, policy: np.ndarray | None) -> BoardLayout:
        return BoardLayout(())

    def board_widget(self) -> PositionBoard:
        if self._board is None:
            self._board = PositionBoard(self.position_model, self.painter)
        return self._board

    @property
    def board(self) -> PositionBoard:
        """The game's board widget (built on first use)."""
        return self.board_widget()

    def simulation_widget(self) -> MatchupPanel:
        if self._sim is None:
            self._sim = MatchupPanel()
        return self._sim

    def state_name(self, s: int) -> str:
        m = self.mdp()
        if m is not None and m.state_labels is not None and 0 <= s < len(m.state_labels):
            return m.state_labels[s]  # the board, not the state's number (students read this)
        return str(s)

    def state_title(self, s: int) -> str:
        """State ``s`` for the inspector's title: in words where the board can say it (see
        :meth:`PositionBoard.describe_state`), else its board as :meth:`state_name` draws it."""
        words = self._board.describe_state(s) if self._board is not None else None
        return words or f"position {self.state_name(s)}"

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

    def episode(self, mdp: TabularMDP, probs: np.ndarray, rng: np.random.Generator):
        return sample_mdp_episode(mdp, probs, rng=rng, start=self.start_state(), max_steps=1000,
                                  state_name=None, action_name=lambda a: self.action_name(a, mdp))

    def outcome_text(self, mdp: TabularMDP, state: int) -> str:
        """How a game that ended in ``state`` ended, in the game's words ("X wins"; for the absorbing
        win/draw/loss states of the compiled games: "the agent wins", "draw", "the agent loses")."""
        board = self._board
        model = getattr(board, "model", None) if board is not None else None
        if model is not None:
            try:
                pos = model.position_of(int(state))
                if pos.outcome:
                    return pos.outcome
            except (ValueError, IndexError):
                pass
        label = (mdp.state_labels[state] if mdp.state_labels is not None and 0 <= state < len(mdp.state_labels)
                 else "").strip().lower()
        words = {"win": "the agent wins", "draw": "draw", "loss": "the agent loses"}
        return next((w for k, w in words.items() if label.startswith(k)), super().outcome_text(mdp, state))

    def run_job(self, fn: Callable[[Progress, Cancelled], Any], *, label: str, on_done: Callable[[Any], None],
                on_progress: Callable[[int, int, str], None] | None = None,
                on_failed: Callable[[str], None] | None = None,
                on_cancelled: Callable[[], None] | None = None) -> None:
        """Run ``fn(progress, cancelled)`` on the window's job thread; the callbacks run on the GUI
        thread. If the window refuses (another job runs), ``on_failed`` is called at once."""
        self.job_requested.emit(GameJob(fn, label, on_done, on_progress, on_failed, on_cancelled))

    def cancel_job(self) -> None:
        self.job_cancel.emit()


__all__ = [
    "BoardPainter", "GridPainter", "LayersPainter", "MatchupPanel", "PositionBoard", "PositionCanvas",
    "PositionGame",
]
