"""Jack's car rental in the window (rules in :mod:`mdpviz.models.jack`): figure 4.2 as one pyqtgraph
plot over the (cars at the second, cars at the first) plane, V as a heatmap in the window's colour
scale and the policy as the book's contour map of cars moved (lines between regions, each region's
number written in it), redrawn at every Step of policy iteration (evaluate, then improve)."""
from __future__ import annotations

import math
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, QPointF, QRectF
from PySide6.QtGui import QFont, QFontMetricsF
from PySide6.QtWidgets import (QCheckBox, QDoubleSpinBox, QFormLayout, QHBoxLayout, QLabel, QSpinBox, QVBoxLayout,
                               QWidget)

from mdpviz.models import jack as jk
from mdpviz.models.kit.pictures.colors import ColorScale
from mdpviz.models.kit.pictures.ties import backed_up, sweep_ties
from mdpviz.widgets import named as _named
from mdpviz.models.kit.pictures.chain import outline_labels
from mdpviz.widgets.board import scale_rgb
from mdpviz.widgets.chain_marks import chain_plot_items
from mdpviz.widgets.game import Game
from mdpviz.widgets.game_board import GameBoard
from mdpviz.widgets.session import GameSession

SPEC = jk.SPEC

AXIS_PX = 12
"""Pixel size of the map's axis titles and ticks outside presenter mode (scaled by the board's text scale)."""


class JackBoard(GameBoard):
    """Figure 4.2: the heatmap of V with the policy's contour map of cars moved on it."""

    draws_sweep_policy = True

    def __init__(self, game: "JackGame", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.game = game
        self.setObjectName("jackBoard")
        self.setAccessibleName("Jack's values and moves")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.caption = _named(QLabel(), "jackCaption", "Board caption")
        self.caption.setWordWrap(True)
        lay.addWidget(self.caption)
        self.plot_widget = pg.PlotWidget(background="w")
        lay.addWidget(self.plot_widget, 1)
        self.hover = _named(QLabel("Point at a state: its cars, V and move (negative: from the second to the first)."),
                            "jackHover", "The state under the mouse")
        self.hover.setWordWrap(True)  # (one long line was the board's minimum width: 696 px in presenter mode)
        lay.addWidget(self.hover)
        self.plot = self.plot_widget.getPlotItem()
        self.plot.setLabel("bottom", "cars at the second location", color="#000")
        self.plot.setLabel("left", "cars at the first location", color="#000")
        # the axes span the data, 0..max_cars (a locked aspect ratio stretched the x axis over -25..47 for 0..20
        # in a wide board: issue 35 item 9); the cells are as wide as the board allows
        self.plot.setAspectLocked(False)
        self.set_axis_px(AXIS_PX)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.image = pg.ImageItem(axisOrder="row-major")
        self.image.setFlag(self.image.GraphicsItemFlag.ItemClipsChildrenToShape)
        self.plot.addItem(self.image)
        self._extras: list[Any] = []
        self._chain_items: list[Any] = []
        """The numbers of the inspector's chain of backups on their cells (:meth:`show_chain`)."""
        self.sweep: Any = None
        """The shown snapshot (None: not solved yet)."""
        self._caption = ""
        self._previous: Any = None
        self._gap = -1
        self.scale: ColorScale | None = None
        self.moves: np.ndarray | None = None
        """Cars moved per (first, second) of the shown policy (None: no policy)."""
        self.ties: dict[int, tuple[int, ...]] = {}
        """{state: every optimal action} where several tie (:func:`~mdpviz.models.kit.pictures.ties.sweep_ties`), ringed."""
        self.plot_widget.scene().sigMouseMoved.connect(self._on_hover)
        self.plot.vb.sigResized.connect(self._on_view_resized)
        self.plot_widget.scene().sigMouseClicked.connect(self._on_click)
        self.show_sweep(None, None)

    @property
    def max_cars(self) -> int:
        return int(self.game.settings.max_cars)

    def color_range(self) -> tuple[float, float] | None:
        return None if self.scale is None else (self.scale.lo, self.scale.hi)

    def show_sweep(self, sweep: Any, scale: ColorScale | None, *, caption: str = "", previous: Any = None,
                   delta: ColorScale | None = None) -> None:
        self.sweep, self.scale, self._caption, self._previous = sweep, scale, caption, previous
        for item in self._extras:
            if item.parentItem() is self.image:
                item.setParentItem(None)
                if item.scene() is not None:
                    item.scene().removeItem(item)
            else:
                self.plot.removeItem(item)
        self._extras = []
        n = self.max_cars + 1
        mdp = self.game.session.mdp()
        if sweep is None or mdp is None or len(sweep.values) != n * n:
            self.image.clear()
            self.moves = None
            self.caption.setText(caption or "Not solved yet: press Step (policy iteration: evaluate, then improve).")
            return
        values = np.asarray(sweep.values, dtype=np.float64).reshape(n, n)
        if scale is not None:
            rgb = scale_rgb(scale, scale.normalise(values.ravel())).reshape(n, n, 3).astype(np.uint8)
            self.image.setImage(rgb, levels=(0, 255))
        else:
            self.image.setImage(values)
        self.image.setRect(QRectF(0, 0, n, n))
        policy = np.asarray(sweep.policy)
        if policy.size == n * n and np.all(policy >= 0):
            self.moves = jk.move_grid(policy, self.max_cars)
            self._draw_contours(self.moves)
        else:
            self.moves = None
        # every optimal move, backed up as the contour's and the inspector's are: a ring on each state with a tie
        hist = (sweep,) if previous is None else (previous, sweep)
        self.ties = sweep_ties(mdp, hist, len(hist) - 1) if backed_up(sweep) else {}
        if self.ties:
            ij = np.array([divmod(int(settings), n) for settings in self.ties], dtype=np.float64)  # state = i * n + j
            rings = pg.ScatterPlotItem(x=ij[:, 1] + 0.5, y=ij[:, 0] + 0.5, symbol="o", size=0.55, pxMode=False,
                                       pen=pg.mkPen("k", width=2), brush=None)
            self.plot.addItem(rings)
            self._extras.append(rings)
        self.plot.setRange(xRange=(0, n), yRange=(0, n), padding=0)
        k = len(self.ties)
        tied = (f"  \u25cb: {k} state{'s' if k != 1 else ''} where several moves are optimal (point at one: which)"
                if k else "")
        self.caption.setText(f"{caption}  Numbers: cars moved from the first location to the second overnight.{tied}")

    def _draw_contours(self, moves: np.ndarray) -> None:
        """Lines between regions of equal moves (IsocurveItem at every half-integer level) and each
        region's number (:func:`~mdpviz.models.jack.rules.move_regions`)."""
        data = moves.T.astype(np.float64)  # IsocurveItem: first index is x (cars at the second)
        for level in np.arange(moves.min(), moves.max()) + 0.5:
            iso = pg.IsocurveItem(data=data, level=float(level), pen=pg.mkPen("k", width=2))
            iso.setParentItem(self.image)  # clipped to the image (its pixels are the cells)
            iso.setPos(0.5, 0.5)  # data index k is the centre of cell k
            self._extras.append(iso)
        self._gap = self._label_gap()
        n = moves.shape[0]
        px_x, px_y = self.plot.vb.viewPixelSize()  # data units per pixel
        fm = QFontMetricsF(self.font())
        half_w, half_h = 1.8 * fm.averageCharWidth() * px_x, 0.7 * fm.height() * px_y  # "+4" on its box, halved
        for r, c, move in jk.move_regions(moves, min_gap=self._gap):
            text = pg.TextItem(f"{move:+d}" if move else "0", color="k", anchor=(0.5, 0.5), fill=pg.mkBrush(255, 255, 255, 200))
            # inside the map: a number on an edge cell was cut by the plot's border
            text.setPos(min(max(c + 0.5, half_w), n - half_w), min(max(r + 0.5, half_h), n - half_h))
            self.plot.addItem(text)
            self._extras.append(text)

    def set_axis_px(self, px: float) -> None:
        """Axis titles and tick labels ``px`` pixels tall (presenter mode: 9 px titles were unreadable)."""
        f = QFont()
        f.setPixelSize(max(1, int(round(px))))
        for ax in ("left", "bottom"):
            a = self.plot.getAxis(ax)
            a.setStyle(tickFont=f)
            a.label.setFont(f)
        self.plot.getAxis("left").setWidth(int(px * 3.2))
        self.axis_px = int(round(px))

    def set_view_style(self, *, text_scale: float = 1.0, line_scale: float = 1.0, outline: str = "#444444") -> None:
        """Presenter mode's larger text: the axes' titles and ticks scale with it."""
        self.set_axis_px(AXIS_PX * text_scale)

    def _label_gap(self) -> int:
        """Cells kept between two region numbers so that they never print on each other at this size."""
        units_per_px = self.plot.vb.viewPixelSize()[0]  # one car (cell) is 1 / this pixels wide
        cell_px = 1.0 / units_per_px if units_per_px > 0 else 10.0
        text_px = 3.2 * QFontMetricsF(self.font()).averageCharWidth()  # "+4" on its backing box
        return max(0, math.ceil(text_px / max(cell_px, 1.0)) - 1)

    def _on_view_resized(self, *_args: Any) -> None:
        """The numbers' spacing follows the plot's size (presenter mode, a resized window)."""
        gap = self._label_gap()
        if self.sweep is not None and gap != self._gap:
            self.show_sweep(self.sweep, self.scale, caption=self._caption, previous=self._previous)

    def _cell_at(self, pos: QPointF) -> tuple[int, int] | None:
        p = self.plot.vb.mapSceneToView(pos)
        j, i = int(np.floor(p.x())), int(np.floor(p.y()))
        n = self.max_cars + 1
        return (i, j) if 0 <= i < n and 0 <= j < n else None

    def _on_hover(self, pos: QPointF) -> None:
        cell = self._cell_at(pos)
        if cell is None or self.sweep is None:
            return
        i, j = cell
        s = jk.state_of(i, j, self.max_cars)
        move = "" if self.moves is None else f", moves {int(self.moves[i, j]):+d}"
        if s in self.ties:  # the other optimal moves, tied with the drawn one
            drawn = int(self.moves[i, j]) if self.moves is not None else None
            also = [f"{jk.move_of(a):+d}" for a in self.ties[s] if jk.move_of(a) != drawn]
            move += f" (as good: {', '.join(also)})"
        self.hover.setText(f"({i}, {j}) = state {s}: V = {float(self.sweep.values[s]):.2f}{move}")

    def show_chain(self, states) -> None:
        """The inspector's chain of backups: each state's cell numbered in the chain's order."""
        for item in self._chain_items:
            self.plot.removeItem(item)
        m = self.max_cars
        self._chain_items = chain_plot_items(outline_labels(states), lambda s: (jk.cars_of(s, m)[1] + 0.5,
                                                                                jk.cars_of(s, m)[0] + 0.5))
        for item in self._chain_items:
            self.plot.addItem(item)

    def _on_click(self, event: Any) -> None:
        cell = self._cell_at(event.scenePos())
        if cell is not None:
            self.inspect_requested.emit(jk.state_of(*cell, self.max_cars))
            self.raise_inspector.emit()


class JackGame(Game):
    """Jack's car rental: figure 4.2's contour maps, Example 4.2's numbers and Exercise 4.7 edited in the Game dock."""

    spec = SPEC

    def __init__(self, session: GameSession | None = None, parent: QObject | None = None) -> None:
        super().__init__(session, parent)
        self._board: JackBoard | None = None
        self._editor: JackEditor | None = None

    @property
    def settings(self) -> jk.JackSettings:
        return self.session.settings

    def board_widget(self) -> JackBoard:
        if self._board is None:
            self._board = JackBoard(self)
        return self._board

    def editor(self) -> QWidget:
        if self._editor is None:
            self._editor = JackEditor(self)
        return self._editor

    def refresh_editor(self) -> None:
        if self._editor is not None:
            self._editor.sync()


def _spin(name: str, accessible: str, lo: float, hi: float, *, decimals: int = 2, step: float = 1.0) -> QDoubleSpinBox:
    box = _named(QDoubleSpinBox(), name, accessible)
    box.setRange(lo, hi)
    box.setDecimals(decimals)
    box.setSingleStep(step)
    return box


class JackEditor(QWidget):
    """Cars, moves, money, the Poisson means and Exercise 4.7's variant (the discount is the Solver panel's)."""

    def __init__(self, game: JackGame, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.game = game
        self.setObjectName("jackEditor")
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        self.max_cars = _named(QSpinBox(), "jackMaxCars", "Most cars per location")
        self.max_cars.setRange(1, jk.MAX_CARS_LIMIT)
        form.addRow("Cars per location", self.max_cars)
        self.max_move = _named(QSpinBox(), "jackMaxMove", "Most cars moved")
        self.max_move.setRange(0, jk.MAX_CARS_LIMIT)
        form.addRow("Most moved", self.max_move)
        self.move_cost = _spin("jackMoveCost", "Cost per car moved", 0, 1000)
        form.addRow("$ per move", self.move_cost)
        self.rental_reward = _spin("jackRentalReward", "Reward per rental", 0, 1000)
        form.addRow("$ per rental", self.rental_reward)
        self.requests = (_spin("jackRequests1", "Mean requests, first", 0, 50, step=0.5),
                         _spin("jackRequests2", "Mean requests, second", 0, 50, step=0.5))
        self.returns = (_spin("jackReturns1", "Mean returns, first", 0, 50, step=0.5),
                        _spin("jackReturns2", "Mean returns, second", 0, 50, step=0.5))
        for label, pair in (("Requests", self.requests), ("Returns", self.returns)):
            row = QHBoxLayout()
            for box in pair:
                box.setToolTip(f"{label}: Poisson mean at the first (left) and the second (right) location")
                row.addWidget(box)
            form.addRow(label, row)
        self.free_shuttle = _named(QCheckBox("Exercise 4.7"), "jackFreeShuttle", "Exercise 4.7's variant")
        self.free_shuttle.setToolTip("One car moved from the first location to the second is free; a location "
                                     "keeping more cars than the parking limit overnight pays the parking cost")
        form.addRow(self.free_shuttle)
        self.parking_limit = _named(QSpinBox(), "jackParkingLimit", "Parking limit")
        self.parking_limit.setRange(0, jk.MAX_CARS_LIMIT)
        form.addRow("Parking limit", self.parking_limit)
        self.parking_cost = _spin("jackParkingCost", "Parking cost", 0, 1000)
        form.addRow("$ parking", self.parking_cost)
        help_ = QLabel("Figure 4.2: policy iteration from \u201cmove nothing\u201d; each Step evaluates, then improves.")
        help_.setWordWrap(True)
        form.addRow(help_)
        for name in ("max_cars", "max_move", "parking_limit"):
            box = getattr(self, name)
            box.editingFinished.connect(lambda n=name, b=box: self.game.set_settings(**{n: int(b.value())}))
        for name in ("move_cost", "rental_reward", "parking_cost"):
            box = getattr(self, name)
            box.editingFinished.connect(lambda n=name, b=box: self.game.set_settings(**{n: float(b.value())}))
        for name, pair in (("request_means", self.requests), ("return_means", self.returns)):
            for box in pair:
                box.editingFinished.connect(
                    lambda n=name, p=pair: self.game.set_settings(**{n: (float(p[0].value()), float(p[1].value()))}))
        self.free_shuttle.toggled.connect(lambda on: self.game.set_settings(free_shuttle=bool(on)))
        game.session.edited.connect(lambda _t: self.sync())
        self.sync()

    def _boxes(self) -> list[Any]:
        return [self.max_cars, self.max_move, self.move_cost, self.rental_reward, *self.requests, *self.returns,
                self.free_shuttle, self.parking_limit, self.parking_cost]

    def sync(self) -> None:
        settings = self.game.settings
        for w in self._boxes():
            w.blockSignals(True)
        self.max_cars.setValue(settings.max_cars)
        self.max_move.setValue(settings.max_move)
        self.move_cost.setValue(settings.move_cost)
        self.rental_reward.setValue(settings.rental_reward)
        for box, v in zip(self.requests + self.returns, settings.request_means + settings.return_means):
            box.setValue(float(v))
        self.free_shuttle.setChecked(bool(settings.free_shuttle))
        self.parking_limit.setValue(settings.parking_limit)
        self.parking_cost.setValue(settings.parking_cost)
        for w in (self.parking_limit, self.parking_cost):
            w.setEnabled(bool(settings.free_shuttle))
        for w in self._boxes():
            w.blockSignals(False)


VIEW = JackGame
"""This game's view (the registry finds it here by the game's key)."""
