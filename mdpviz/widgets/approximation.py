"""The window's plots of function approximation (Sutton and Barto ch. 9-11; issue 36 item 5).

Five pyqtgraph widgets that only draw the arrays their ``show_...`` method is given (they never solve):

* :class:`FunctionPlot`: figure 9.1: the true values, the approximation (a staircase under state
  aggregation), the best fit and the TD fixed point over a one-dimensional state, and the on-policy
  distribution mu on a second axis (eq. 9.1's weighting);
* :class:`WeightsView`: the weight vector as bars, redrawn live;
* :class:`WeightsCurve`: figures 11.2 and 11.5: each weight over steps, sampled (solid) and expected
  (dashed), one colour per weight;
* :class:`ErrorCurve`: the root of the value error VE (eq. 9.1) over episodes, beside the best fit's
  and the TD fixed point's root VE as labelled horizontal lines;
* :class:`SurfaceView`: figure 10.1: mountain car's cost-to-go as a heatmap over position x velocity
  with a colour bar.

Non-finite numbers (a diverging learner's weights, a state without coordinates) are never drawn as
data: they become gaps. Legends sit in a row above the data (:func:`~mdpviz.widgets.convergence.legend_above`),
as many columns as the width holds. ``set_font_size`` takes the window's plot font (12 px, presenter 18 px).

The issue's contract names each widget's drawing method ``show(...)``; ``QWidget.show()`` keeps its Qt
meaning when called without arguments, and with arguments it is the widget's ``show_...`` method.
"""
from __future__ import annotations

import math
from typing import Mapping, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QHBoxLayout, QTabWidget, QToolTip, QWidget

from mdpviz.models.kit.pictures.colors import SEQUENTIAL, ColorScale, fitted_scale, format_value
from mdpviz.widgets.board import ColorBar, scale_colormap
from mdpviz.widgets.convergence import (
    IntegerAxis,
    RoomyAxis,
    ZeroLogAxis,
    fit_legend_row,
    legend_above,
    set_axes_font,
    set_legend_font,
)

PLOT_PX = 12
"""The plots' font at the window's normal size (px); presenter mode sets 18 (``set_font_size``)."""

WEIGHT_COLORS = ("#0072b2", "#e69f00", "#009e73", "#cc79a7", "#d55e00", "#56b4e9", "#000000", "#999999")
"""One colour per weight (Okabe-Ito without its yellow, which is unreadable on white, and with grey):
eight, Baird's counterexample's weights; a ninth weight takes the first colour again."""

TRUE, APPROX, BEST, TD = "true v", "approximate", "best fit", "TD fixed point"
"""The names of :class:`FunctionPlot`'s usual curves (each has its own style, :data:`CURVE_STYLES`)."""

CURVE_STYLES: dict[str, tuple[str, Qt.PenStyle, float]] = {
    TRUE: ("#000000", Qt.PenStyle.SolidLine, 1.0),
    APPROX: ("#0072b2", Qt.PenStyle.SolidLine, 1.0),
    BEST: ("#d55e00", Qt.PenStyle.DashLine, 1.0),
    TD: ("#009e73", Qt.PenStyle.DotLine, 1.25),
}
"""Colour, dash and relative width of the named curves; other names take :data:`WEIGHT_COLORS` in order."""

MU_BRUSH = (0, 0, 0, 40)
"""Fill of the on-policy distribution mu (a light grey area behind the curves, as figure 9.1 draws it)."""
MU_PEN = "#888888"

ERROR_COLOR, BEST_COLOR, TD_COLOR = "#0072b2", "#d55e00", "#009e73"
PBE_COLOR = "#cc79a7"
"""The root of the projected Bellman error's curve (figure 11.5; Okabe-Ito's reddish purple)."""
"""The learner's root VE, the best fit's and the TD fixed point's lines."""

BAR_COLOR = "#0072b2"
"""The weights' bars."""

NAMED_TICKS_MAX = 24
"""Up to this many weights the bar axis prints their names; beyond, whole numbers (1-based)."""


# ---------------------------------------------------------------------------------- pure helpers
def finite_or_nan(a, *, ndim: int = 1) -> np.ndarray:
    """``a`` as float64 with every non-finite entry NaN (a gap when drawn). ValueError when it does not
    have ``ndim`` dimensions."""
    out = np.array(a, dtype=np.float64, copy=True)
    if out.size == 0:
        out = out.reshape((0,) * ndim) if out.ndim != ndim else out
    if out.ndim != ndim:
        raise ValueError(f"expected a {ndim}-dimensional array, got shape {out.shape}")
    out[~np.isfinite(out)] = np.nan
    return out


def data_range(*arrays: np.ndarray, include: Sequence[float] = (), pad: float = 0.05) -> tuple[float, float]:
    """The finite span of ``arrays`` and ``include``, padded by ``pad`` of it (a flat span: +-0.5 or
    +-5%); (0, 1) when nothing is finite."""
    parts = [np.asarray(a, dtype=np.float64).ravel() for a in arrays]
    parts.append(np.asarray(list(include), dtype=np.float64))
    v = np.concatenate(parts) if parts else np.zeros(0)
    v = v[np.isfinite(v)]
    if not v.size:
        return 0.0, 1.0
    lo, hi = float(v.min()), float(v.max())
    if hi == lo:
        d = 0.05 * abs(lo) if lo != 0 else 0.5
        return lo - d, hi + d
    d = (hi - lo) * pad
    return lo - d, hi + d


def cell_edges(x: np.ndarray) -> np.ndarray:
    """n + 1 edges halfway between n increasing centres ``x`` (the ends as far out as their neighbour);
    one centre: +-0.5 around it."""
    x = np.asarray(x, dtype=np.float64)
    if x.size == 0:
        return np.zeros(0)
    if x.size == 1:
        return np.array([x[0] - 0.5, x[0] + 0.5])
    mid = (x[1:] + x[:-1]) / 2
    return np.concatenate(([x[0] - (mid[0] - x[0])], mid, [x[-1] + (x[-1] - mid[-1])]))


def staircase(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The points of a piecewise-constant curve: value ``y[i]`` over the cell of ``x[i]`` (see
    :func:`cell_edges`), joined by vertical steps; a NaN value leaves a gap over its cell."""
    e = cell_edges(x)
    y = np.asarray(y, dtype=np.float64)
    xs = np.column_stack([e[:-1], e[1:]]).ravel()
    return xs, np.repeat(y, 2)


def root_ve(ve) -> np.ndarray:
    """sqrt(VE) per entry; a negative or non-finite VE is NaN (not drawn)."""
    v = np.asarray(ve, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        return np.where(np.isfinite(v) & (v >= 0), np.sqrt(np.abs(v)), np.nan)


def dark_axes(plot: pg.PlotItem) -> None:
    """Black numbers and names on dark grey axis lines (pyqtgraph's light grey is hard to read on a
    projector), as the convergence and simulation plots have them."""
    for ax in ("left", "bottom", "right"):
        axis = plot.getAxis(ax)
        axis.setTextPen("k")
        axis.setPen("#444444")
        axis.enableAutoSIPrefix(False)


def _scalar(v: float | None) -> float | None:
    """A finite float, or None (missing, NaN or infinite)."""
    if v is None:
        return None
    v = float(v)
    return v if math.isfinite(v) else None


# ---------------------------------------------------------------------------------- the plots
class _Plot(pg.GraphicsLayoutWidget):
    """One plot with its legend in a row above the data, its fonts and line widths for presenter mode."""

    def __init__(self, name: str, accessible: str, description: str, *, left: pg.AxisItem | None = None,
                 bottom: pg.AxisItem | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(name)
        self.setAccessibleName(accessible)
        self.setAccessibleDescription(description)
        self.setBackground("w")
        self.setMinimumHeight(150)
        self.plot: pg.PlotItem = self.addPlot(row=0, col=0, axisItems={"left": left or RoomyAxis("left"),
                                                                        "bottom": bottom or RoomyAxis("bottom")})
        self.plot.setMenuEnabled(False)
        self.plot.setMouseEnabled(False, False)
        self.plot.hideButtons()
        self.plot.showGrid(x=True, y=True, alpha=0.15)
        self.plot.setDownsampling(auto=True, mode="peak")  # thousands of episodes: about one point per pixel
        self.plot.setClipToView(True)
        dark_axes(self.plot)
        self.legend = legend_above(self.plot, columns=2)
        self.px = PLOT_PX
        self.line_width = 2.0
        self._values_shown = True

    def show(self, *args, **kw) -> None:  # noqa: D401 (Qt's name, the contract's too)
        """Without arguments Qt's ``QWidget.show()``; with them, this widget's ``show_...`` method."""
        if not args and not kw:
            super().show()
            return
        self._show_data(*args, **kw)

    def _show_data(self, *args, **kw) -> None:  # pragma: no cover (each subclass its own)
        raise NotImplementedError

    def _axes_values(self, on: bool) -> None:
        """An empty plot shows its axes' names, no numbers."""
        if on != self._values_shown:
            self._values_shown = on
            for ax in ("left", "bottom", "right"):
                if self.plot.getAxis(ax).isVisible():
                    self.plot.getAxis(ax).setStyle(showValues=on)

    def _fit_legend(self) -> None:
        """As many legend columns as the width holds (one row when it holds them all)."""
        widths = [label.item.boundingRect().width() + 50 for _, label in self.legend.items]
        room = self.width() - 80
        cols = 1
        for c in range(len(widths), 1, -1):  # entry i sits in column i % c
            if sum(max(widths[j::c]) for j in range(c)) < room:
                cols = c
                break
        if self.legend.columnCount != cols:
            self.legend.setColumnCount(cols)
        fit_legend_row(self.plot, self.legend)

    def _set_legend(self, entries: Sequence[tuple[pg.GraphicsObject, str]]) -> None:
        """The legend's entries (item, text), in order; nothing is redone when they did not change."""
        key = tuple((id(item), text) for item, text in entries)
        if key == getattr(self, "_legend_key", None):
            return
        self._legend_key = key
        self.legend.clear()
        for item, text in entries:
            self.legend.addItem(item, text)
        set_legend_font(self.plot, self.legend, self._legend_px())
        self._fit_legend()

    def _legend_px(self) -> int:
        return max(11, int(self.px * 0.85))

    def resizeEvent(self, ev) -> None:  # noqa: N802
        super().resizeEvent(ev)
        if hasattr(self, "legend"):
            self._fit_legend()

    def set_font_size(self, px: int) -> None:
        """Axis, label and legend text ``px`` pixels high (presenter mode: 18); lines a little wider too."""
        self.px = int(px)
        set_axes_font((self.plot,), self.px)
        set_legend_font(self.plot, self.legend, self._legend_px())
        self.line_width = max(2.0, self.px / 6.0)
        self._restyle()
        self._fit_legend()

    def _restyle(self) -> None:
        """Pens after a change of :attr:`line_width` (each subclass its own)."""


class FunctionPlot(_Plot):
    """Figure 9.1: values over a one-dimensional state (the random walk's position), with the on-policy
    distribution mu as a grey area on a second (right) axis.

    :meth:`show_function` draws one curve per entry of ``curves`` (the names :data:`TRUE`, :data:`APPROX`,
    :data:`BEST` and :data:`TD` have their own styles). With ``step`` every curve but the first (the
    true values) is a staircase: constant over each state's cell, as state aggregation's estimates are."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("approxFunctionPlot", "Value function plot",
                         "the true values, the approximation, the best fit and the TD fixed point over the "
                         "states, and the on-policy distribution on the right axis", parent=parent)
        self.plot.setLabel("left", "value")
        self.plot.setLabel("bottom", "state")
        self.mu_box = pg.ViewBox(enableMouse=False)
        self.plot.showAxis("right")
        right = self.plot.getAxis("right")
        dark_axes(self.plot)
        right.linkToView(self.mu_box)
        right.setLabel("\u03bc: share of time")
        self.plot.scene().addItem(self.mu_box)
        self.mu_box.setXLink(self.plot)
        self.mu_box.setZValue(self.plot.vb.zValue() - 1)  # behind the curves
        self.plot.vb.sigResized.connect(self._sync_mu_box)
        self.mu_item = pg.PlotDataItem([], [], pen=pg.mkPen(MU_PEN, width=1), fillLevel=0.0, brush=MU_BRUSH)
        self.mu_box.addItem(self.mu_item)
        self.curve_items: dict[str, pg.PlotDataItem] = {}
        """The drawn curves by name (their data: the numbers given, non-finite ones NaN)."""
        self.x = np.zeros(0)
        self.curves: dict[str, np.ndarray] = {}
        self.mu: np.ndarray | None = None
        self.step = False
        self.show_function(np.zeros(0), {}, None)

    def _sync_mu_box(self) -> None:
        self.mu_box.setGeometry(self.plot.vb.sceneBoundingRect())
        self.mu_box.linkedViewChanged(self.plot.vb, self.mu_box.XAxis)

    def _pen(self, name: str, i: int) -> pg.QtGui.QPen:
        color, style, k = CURVE_STYLES.get(name, (WEIGHT_COLORS[i % len(WEIGHT_COLORS)], Qt.PenStyle.SolidLine, 1.0))
        return pg.mkPen(color, width=self.line_width * k, style=style)

    def show_function(self, x, curves: Mapping[str, np.ndarray], mu=None, step: bool = False, *,
                      x_label: str = "state", y_label: str = "value") -> None:
        """Draw ``curves`` (name -> one value per entry of ``x``) over ``x`` and ``mu`` (one share per
        entry of ``x``, None: not drawn) on the right axis; ``step``: every curve but the first as a
        staircase. ValueError when a curve's or mu's length is not ``x``'s."""
        xs = finite_or_nan(x)
        ys = {str(k): finite_or_nan(v) for k, v in curves.items()}
        m = None if mu is None else finite_or_nan(mu)
        for k, v in [*ys.items(), *([("mu", m)] if m is not None else [])]:
            if v.shape != xs.shape:
                raise ValueError(f"{k}: {v.size} values for {xs.size} states")
        self.x, self.curves, self.mu, self.step = xs, ys, m, bool(step)
        keep = np.isfinite(xs)
        xs_k = xs[keep]
        order = np.argsort(xs_k, kind="stable")
        xs_k = xs_k[order]
        for name in list(self.curve_items):
            if name not in ys:
                self.plot.removeItem(self.curve_items.pop(name))
        drawn_y = []
        for i, (name, y) in enumerate(ys.items()):
            item = self.curve_items.get(name)
            if item is None:
                item = self.curve_items[name] = self.plot.plot([], [], connect="finite")
            item.setPen(self._pen(name, i))
            y_k = y[keep][order]
            if self.step and i > 0:
                item.setData(*staircase(xs_k, y_k), connect="finite")
            else:
                item.setData(xs_k, y_k, connect="finite")
            item.setZValue(len(ys) - i)  # the true values on top
            drawn_y.append(y_k)
        if m is not None and xs_k.size:
            self.mu_item.setData(*staircase(xs_k, m[keep][order]), connect="finite")
            top = float(np.nanmax(m[keep])) if np.isfinite(m[keep]).any() else 0.0
            self.mu_box.setYRange(0.0, max(top, 1e-12) * 1.1, padding=0)
        else:
            self.mu_item.setData([], [])
        self.mu_box.setVisible(m is not None)
        self.plot.getAxis("right").setVisible(m is not None)
        self.plot.setLabel("bottom", x_label)
        self.plot.setLabel("left", y_label)
        entries = [(self.curve_items[name], name) for name in ys]
        if m is not None:
            entries.append((self.mu_item, "\u03bc (right axis)"))
        self._set_legend(entries)
        e = cell_edges(xs_k) if xs_k.size else np.array([0.0, 1.0])
        self.plot.setXRange(float(e[0]), float(e[-1]), padding=0)
        self.plot.setYRange(*data_range(*drawn_y), padding=0)
        self._axes_values(bool(xs_k.size and ys))
        self._sync_mu_box()

    _show_data = show_function

    def _restyle(self) -> None:
        for i, (name, item) in enumerate(self.curve_items.items()):
            item.setPen(self._pen(name, i))

    def set_font_size(self, px: int) -> None:
        super().set_font_size(px)
        f = QFont()
        f.setPixelSize(int(px))
        right = self.plot.getAxis("right")
        right.setStyle(tickFont=f)
        right.label.setFont(f)
        right.setWidth(int(px * 5))


class WeightsView(_Plot):
    """The weight vector as bars (live: :meth:`show_weights` at the window's frame rate). A non-finite
    weight (a diverging learner) has no bar; the legend row names it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("approxWeightsView", "Weights", "the weight vector of the linear approximation as bars",
                         bottom=IntegerAxis("bottom"), parent=parent)
        self.plot.setLabel("left", "weight")
        self.plot.setLabel("bottom", "weight i")
        self.bars = pg.BarGraphItem(x=[], height=[], width=0.8, brush=BAR_COLOR, pen=None)
        self.plot.addItem(self.bars)
        self.zero = pg.InfiniteLine(pos=0.0, angle=0, pen=pg.mkPen("#444444", width=1))
        self.plot.addItem(self.zero)
        self._note = pg.PlotDataItem(pen=None)  # (a legend entry with no sample: the note on non-finite weights)
        self.weights = np.zeros(0)
        self.names: tuple[str, ...] | None = None
        self._ticks_key = None
        self.show_weights(np.zeros(0))

    def show_weights(self, weights, names: Sequence[str] | None = None) -> None:
        """Draw ``weights`` (1-D) as bars at 1, 2, ..., d (the book numbers weights from 1); ``names``: one
        tick label per weight (printed up to :data:`NAMED_TICKS_MAX` weights)."""
        w = finite_or_nan(weights)
        if names is not None and len(names) != w.size:
            raise ValueError(f"weights: {len(names)} names for {w.size} weights")
        self.weights, self.names = w, None if names is None else tuple(str(n) for n in names)
        d = w.size
        ok = np.isfinite(w)
        x = np.arange(1, d + 1, dtype=np.float64)
        self.bars.setOpts(x=x[ok], height=w[ok], width=0.8, pen=pg.mkPen("#003f63", width=1) if d <= 60 else None)
        bad = np.flatnonzero(~ok)
        if bad.size:
            shown = ", ".join(self._name(i) for i in bad[:4]) + (" ..." if bad.size > 4 else "")
            self._set_legend([(self._note, f"not finite (no bar): {shown}")])
        else:
            self._set_legend([])
        key = (d, self.names if d <= NAMED_TICKS_MAX else None)
        if key != self._ticks_key:
            self._ticks_key = key
            axis = self.plot.getAxis("bottom")
            if self.names is not None and d <= NAMED_TICKS_MAX:
                axis.setTicks([[(float(i + 1), n) for i, n in enumerate(self.names)]])
            else:
                axis.setTicks(None)
        self.plot.setXRange(0.4, max(d, 1) + 0.6, padding=0)
        lo, hi = data_range(w, include=(0.0,))
        self.plot.setYRange(lo, hi, padding=0)
        self._axes_values(d > 0)

    _show_data = show_weights

    def _name(self, i: int) -> str:
        return self.names[i] if self.names is not None else f"w{i + 1}"

    def bar_heights(self) -> np.ndarray:
        """The heights of the drawn bars (the finite weights, in order)."""
        h = self.bars.opts.get("height")
        return np.asarray([] if h is None else h, dtype=np.float64)


class WeightsCurve(_Plot):
    """Figures 11.2 and 11.5: each weight over steps, sampled (solid) and by the expected update (dashed),
    one colour per weight (:data:`WEIGHT_COLORS`); the legend above the data names the colours and the
    two dashes."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("approxWeightsCurve", "Weights over steps",
                         "each weight over steps: sampled (solid) and expected update (dashed)",
                         bottom=IntegerAxis("bottom"), parent=parent)
        self.plot.setLabel("left", "weight")
        self.plot.setLabel("bottom", "step")
        self.sampled_items: list[pg.PlotDataItem] = []
        self.expected_items: list[pg.PlotDataItem] = []
        self._solid = pg.PlotDataItem(pen=pg.mkPen("#444444", width=2))
        self._dashed = pg.PlotDataItem(pen=pg.mkPen("#444444", width=2, style=Qt.PenStyle.DashLine))
        self.steps = np.zeros(0)
        self.weights = np.zeros((0, 0))
        self.expected: np.ndarray | None = None
        self.labels: tuple[str, ...] = ()
        self.show_curves(np.zeros(0), np.zeros((0, 0)))

    def _pens(self, j: int) -> tuple:
        c = WEIGHT_COLORS[j % len(WEIGHT_COLORS)]
        return (pg.mkPen(c, width=self.line_width),
                pg.mkPen(c, width=self.line_width, style=Qt.PenStyle.DashLine))

    def show_curves(self, steps, weights, expected=None, labels: Sequence[str] | None = None, *,
                    x_label: str = "step") -> None:
        """Draw column j of ``weights`` (n_steps x d) over ``steps`` as a solid line in colour j, and of
        ``expected`` (the same shape, None: not drawn) dashed in the same colour; ``labels``: the
        weights' names (default w1, w2, ...)."""
        x = finite_or_nan(steps)
        w = finite_or_nan(weights, ndim=2)
        e = None if expected is None else finite_or_nan(expected, ndim=2)
        if w.shape[0] != x.size:
            raise ValueError(f"weights: {w.shape[0]} rows for {x.size} steps")
        if e is not None and e.shape != w.shape and not (e.size == 0 and w.size == 0):
            raise ValueError(f"expected: shape {e.shape}, the sampled weights' is {w.shape}")
        d = w.shape[1]
        labels = tuple(str(s) for s in labels) if labels is not None else tuple(f"w{j + 1}" for j in range(d))
        if len(labels) != d:
            raise ValueError(f"labels: {len(labels)} names for {d} weights")
        self.steps, self.weights, self.expected, self.labels = x, w, e, labels
        for items, want in ((self.sampled_items, d), (self.expected_items, d if e is not None else 0)):
            while len(items) > want:
                self.plot.removeItem(items.pop())
            while len(items) < want:
                items.append(self.plot.plot([], [], connect="finite"))
        for j in range(d):
            solid, dashed = self._pens(j)
            self.sampled_items[j].setPen(solid)
            self.sampled_items[j].setData(x, w[:, j], connect="finite")
            if e is not None:
                self.expected_items[j].setPen(dashed)
                self.expected_items[j].setData(x, e[:, j], connect="finite")
        entries = [(self.sampled_items[j], labels[j]) for j in range(min(d, len(WEIGHT_COLORS)))]
        if d > len(WEIGHT_COLORS):
            entries.append((pg.PlotDataItem(pen=None), f"... {d} weights, colours repeat"))
        if e is not None and d:
            entries += [(self._solid, "sampled"), (self._dashed, "expected")]
        self._set_legend(entries)
        self.plot.setLabel("bottom", x_label)
        xr = data_range(x, pad=0.0)
        self.plot.setXRange(xr[0], max(xr[1], xr[0] + 1.0), padding=0.02)
        self.plot.setYRange(*data_range(w, *(() if e is None else (e,))), padding=0)
        self._axes_values(bool(x.size and d))

    _show_data = show_curves

    def _restyle(self) -> None:
        for j, item in enumerate(self.sampled_items):
            item.setPen(self._pens(j)[0])
        for j, item in enumerate(self.expected_items):
            item.setPen(self._pens(j)[1])
        self._solid.setPen(pg.mkPen("#444444", width=self.line_width))
        self._dashed.setPen(pg.mkPen("#444444", width=self.line_width, style=Qt.PenStyle.DashLine))


class ErrorCurve(_Plot):
    """The root of the value error, sqrt(VE) (eq. 9.1), over episodes on a log scale, with the best fit's
    (where gradient Monte Carlo converges) and the TD fixed point's (semi-gradient TD, LSTD: eq. 9.12)
    as horizontal lines, their numbers in the legend. A zero (tabular features fit exactly) is drawn at
    a "0" tick one decade below the rest (the convergence plot draws a zero change two below)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        self.left_axis = ZeroLogAxis("left")
        super().__init__("approxErrorCurve", "Value error curve",
                         "the root of the mu-weighted value error over episodes, with the best fit's and the "
                         "TD fixed point's as lines", left=self.left_axis, bottom=IntegerAxis("bottom"), parent=parent)
        self.plot.setLogMode(y=True)
        self.plot.showGrid(x=True, y=False)  # (a log axis draws a line per minor tick)
        self.plot.setLabel("left", "\u221aVE")
        self.plot.setLabel("bottom", "episode")
        self.curve = self.plot.plot([], [], pen=pg.mkPen(ERROR_COLOR, width=2), connect="finite")
        self.pbe_curve = self.plot.plot([], [], pen=pg.mkPen(PBE_COLOR, width=2), connect="finite")
        self.best_line = pg.InfiniteLine(angle=0, pen=pg.mkPen(BEST_COLOR, width=2, style=Qt.PenStyle.DashLine))
        self.td_line = pg.InfiniteLine(angle=0, pen=pg.mkPen(TD_COLOR, width=2, style=Qt.PenStyle.DotLine))
        for line in (self.best_line, self.td_line):
            self.plot.addItem(line)
        self._best_sample = pg.PlotDataItem(pen=self.best_line.pen)
        self._td_sample = pg.PlotDataItem(pen=self.td_line.pen)
        self._none = pg.PlotDataItem(pen=None)
        self.episodes = np.zeros(0)
        self.root = np.zeros(0)
        self.best_root: float | None = None
        self.td_root: float | None = None
        self.zero_level: float | None = None
        self.show_error(np.zeros(0), np.zeros(0), None, None)

    def show_error(self, episodes, ve, best_ve: float | None, td_ve: float | None, *,
                   x_label: str = "episode", td_note: str = "", pbe=None) -> None:
        """Draw sqrt(``ve``) over ``episodes`` and lines at sqrt(``best_ve``) and sqrt(``td_ve``) (None or
        NaN: no line; ``td_note`` then says why there is no TD fixed point, e.g. "A is singular"); ``pbe``
        (one per episode, NaN where unknown): sqrt(PBE) beside it, as figure 11.5 draws TDC's."""
        x = finite_or_nan(episodes)
        r = root_ve(finite_or_nan(ve))
        if r.shape != x.shape:
            raise ValueError(f"ve: {r.size} values for {x.size} episodes")
        p = np.full(x.shape, np.nan) if pbe is None else root_ve(finite_or_nan(pbe))
        if p.shape != x.shape:
            raise ValueError(f"pbe: {p.size} values for {x.size} episodes")
        b, t = _scalar(best_ve), _scalar(td_ve)
        b = None if b is None or b < 0 else math.sqrt(b)
        t = None if t is None or t < 0 else math.sqrt(t)
        self.episodes, self.root, self.best_root, self.td_root = x, r, b, t
        levels = np.concatenate([r, p, [v for v in (b, t) if v is not None]])
        positive = levels[np.isfinite(levels) & (levels > 0)]
        lo = math.floor(math.log10(positive.min())) if positive.size else -1
        hi = math.ceil(math.log10(positive.max())) if positive.size else 0
        hi = max(hi, lo + 1)
        zero = bool(np.any(levels == 0))
        self.zero_level = float(lo - 1) if zero else None  # (one decade below: a short dock in presenter mode keeps its labels)
        self.left_axis.zero_level = self.zero_level
        floor = 10.0 ** self.zero_level if zero else np.nan
        shown = np.where(r == 0, floor, r)
        self.curve.setData(x, shown, connect="finite")
        self.pbe_curve.setData(x, np.where(p == 0, floor, p), connect="finite")
        entries: list = [(self.curve, "\u221aVE of the learner")] if x.size else []
        if np.isfinite(p).any():
            entries.append((self.pbe_curve, "\u221aPBE"))
        for line, sample, v, name in ((self.best_line, self._best_sample, b, "best fit"),
                                      (self.td_line, self._td_sample, t, "TD fixed point")):
            line.setVisible(v is not None)
            if v is not None:
                line.setPos(math.log10(v if v > 0 else floor))
                entries.append((sample, f"{name} {format_value(v, digits=3)}"))
        if t is None and td_note:
            entries.append((self._none, f"TD fixed point: {td_note}"))
        self._set_legend(entries)
        self.plot.setLabel("bottom", x_label)
        xr = data_range(x, pad=0.0)
        self.plot.setXRange(xr[0], max(xr[1], xr[0] + 1.0), padding=0.02)
        self.plot.setYRange((self.zero_level if zero else lo) - 0.3, hi + 0.15, padding=0)
        self._axes_values(bool(x.size) or b is not None or t is not None)

    _show_data = show_error

    def _restyle(self) -> None:
        w = self.line_width
        self.curve.setPen(pg.mkPen(ERROR_COLOR, width=w))
        self.pbe_curve.setPen(pg.mkPen(PBE_COLOR, width=w))
        for line, sample, color, style in ((self.best_line, self._best_sample, BEST_COLOR, Qt.PenStyle.DashLine),
                                           (self.td_line, self._td_sample, TD_COLOR, Qt.PenStyle.DotLine)):
            pen = pg.mkPen(color, width=w, style=style)
            line.setPen(pen)
            sample.setPen(pen)


class SurfaceView(QWidget):
    """Figure 10.1: a value surface (mountain car's cost-to-go, -max_a q_hat) as a heatmap over two
    coordinates (position x velocity) with its colour bar; a cell without a finite value is left blank.
    The colour scale is the one given (fixed for a run) or fitted to the values; hovering a cell writes
    its coordinates and value."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("approxSurfaceView")
        self.setAccessibleName("Value surface")
        self.setAccessibleDescription("the cost-to-go over position and velocity as a heatmap with its colour scale")
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        self.view = pg.PlotWidget(background="w", axisItems={"left": RoomyAxis("left"), "bottom": RoomyAxis("bottom")})
        self.view.setMinimumHeight(150)
        self.plot: pg.PlotItem = self.view.getPlotItem()
        self.plot.setMenuEnabled(False)
        self.plot.setMouseEnabled(False, False)
        self.plot.hideButtons()
        dark_axes(self.plot)
        self.image = pg.ImageItem(axisOrder="col-major")
        self.plot.addItem(self.image)
        self.color_bar = ColorBar()
        self.color_bar.setObjectName("approxSurfaceColorBar")
        self.color_bar.setBackground("w")
        lay.addWidget(self.view, 1)
        lay.addWidget(self.color_bar)
        self.view.scene().sigMouseMoved.connect(self._on_hover)
        self.values = np.zeros((0, 0))
        self.x_axis = np.zeros(0)
        self.y_axis = np.zeros(0)
        self.titles: tuple[str, str, str] = ("position", "velocity", "cost-to-go")
        self.scale: ColorScale | None = None
        self.rgba = np.zeros((0, 0, 4), dtype=np.uint8)
        """The drawn image: [x, y, RGBA] (alpha 0 where a value is not finite)."""
        self.px = PLOT_PX
        self.title = ""
        self.show_surface(np.zeros((0, 0)), np.zeros(0), np.zeros(0))

    def show(self, *args, **kw) -> None:
        """Without arguments Qt's ``QWidget.show()``; with them, :meth:`show_surface`."""
        if not args and not kw:
            super().show()
            return
        self.show_surface(*args, **kw)

    def show_surface(self, values, x_axis, y_axis, titles: Sequence[str] = ("position", "velocity", "cost-to-go"),
                     *, scale: ColorScale | None = None, title: str = "") -> None:
        """Draw ``values`` (nx x ny: values[i, j] at x_axis[i], y_axis[j]) as cells centred on the axes'
        points; ``titles``: the x axis's, the y axis's and the colour bar's; ``scale``: the run's fixed
        colour scale (None: fitted to the finite values); ``title``: a line above the picture (e.g. "after
        episode 428"; "": none)."""
        v = finite_or_nan(values, ndim=2)
        xa, ya = finite_or_nan(x_axis), finite_or_nan(y_axis)
        if v.shape != (xa.size, ya.size) and v.size:
            raise ValueError(f"values: shape {v.shape}, the axes give ({xa.size}, {ya.size})")
        if len(titles) != 3:
            raise ValueError("titles: give the x axis's, the y axis's and the colour bar's")
        self.values, self.x_axis, self.y_axis, self.titles = v, xa, ya, tuple(str(t) for t in titles)
        ok = np.isfinite(v)
        if scale is None and ok.any():
            scale = fitted_scale(float(v[ok].min()), float(v[ok].max()), label=self.titles[2], kind=SEQUENTIAL)
        self.scale = scale
        self.plot.setLabel("bottom", self.titles[0])
        self.plot.setLabel("left", self.titles[1])
        self.title = str(title)
        self.plot.setTitle(self.title or None, size=f"{self.px}px", color="k")
        self.color_bar.show_scale(scale)
        if not v.size or not ok.any():
            self.rgba = np.zeros((*v.shape, 4), dtype=np.uint8)
            self.image.clear()
            self.plot.setXRange(0, 1, padding=0)
            self.plot.setYRange(0, 1, padding=0)
            self._axes_values(False)
            return
        t = scale.normalise(np.where(ok, v, scale.lo))
        rgba = np.asarray(scale_colormap(scale).map(t.ravel(), mode="byte"), dtype=np.uint8).reshape(*v.shape, -1)
        if rgba.shape[-1] == 3:
            rgba = np.concatenate([rgba, np.full((*v.shape, 1), 255, np.uint8)], axis=-1)
        rgba[..., 3] = np.where(ok, 255, 0)
        self.rgba = rgba
        self.image.setImage(rgba, levels=(0, 255))
        ex, ey = cell_edges(xa), cell_edges(ya)
        self.image.setRect(QRectF(float(ex[0]), float(ey[0]), float(ex[-1] - ex[0]), float(ey[-1] - ey[0])))
        self.plot.setXRange(float(ex[0]), float(ex[-1]), padding=0)
        self.plot.setYRange(float(ey[0]), float(ey[-1]), padding=0)
        self._axes_values(True)

    def _axes_values(self, on: bool) -> None:
        for ax in ("left", "bottom"):
            self.plot.getAxis(ax).setStyle(showValues=on)

    def cell_at(self, x: float, y: float) -> tuple[int, int] | None:
        """The cell (i, j) under data coordinates (x, y), None outside the picture."""
        if not self.values.size:
            return None
        ex, ey = cell_edges(self.x_axis), cell_edges(self.y_axis)
        i, j = int(np.searchsorted(ex, x) - 1), int(np.searchsorted(ey, y) - 1)
        if 0 <= i < self.x_axis.size and 0 <= j < self.y_axis.size:
            return i, j
        return None

    def text_at(self, i: int, j: int) -> str:
        """The hover text of cell (i, j): its coordinates and value."""
        v = float(self.values[i, j])
        value = format_value(v, digits=2) if math.isfinite(v) else "no value"
        return (f"{self.titles[0]} {self.x_axis[i]:.4g}, {self.titles[1]} {self.y_axis[j]:.4g}: "
                f"{self.titles[2]} {value}")

    def _on_hover(self, pos) -> None:
        vb = self.plot.vb
        if not vb.sceneBoundingRect().contains(pos):
            return
        p = vb.mapSceneToView(pos)
        cell = self.cell_at(float(p.x()), float(p.y()))
        text = "" if cell is None else self.text_at(*cell)
        self.view.setToolTip(text)
        if text:
            QToolTip.showText(self.view.mapToGlobal(self.view.mapFromScene(pos).toPoint()), text, self.view)

    def set_font_size(self, px: int) -> None:
        """Axis and colour bar text ``px`` pixels high (presenter mode: 18)."""
        self.px = int(px)
        set_axes_font((self.plot,), self.px)
        self.plot.setTitle(self.title or None, size=f"{self.px}px", color="k")
        self.color_bar.set_font_size(self.px)


def surface_grid(coords: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(xs, ys, grid)``: the distinct first and second coordinates of the states (``coords``: (n_states, 2),
    a row of NaN for a state without coordinates) and ``values`` placed on that grid (NaN where no state is)."""
    c = np.asarray(coords, dtype=np.float64)
    ok = np.isfinite(c).all(axis=1)
    xs, ys = np.unique(c[ok, 0]), np.unique(c[ok, 1])
    grid = np.full((xs.size, ys.size), np.nan)
    grid[np.searchsorted(xs, c[ok, 0]), np.searchsorted(ys, c[ok, 1])] = np.asarray(values, dtype=np.float64)[ok]
    return xs, ys, grid


class ApproxCurves(QWidget):
    """The plots of a learner with function approximation (the convergence dock's page while one runs), in
    tabs: the values over a one-dimensional state (:class:`FunctionPlot`) or a two-dimensional one
    (:class:`SurfaceView`), for the off-policy learners the weights over steps (:class:`WeightsCurve`), the
    root VE over episodes (:class:`ErrorCurve`) and the weights (:class:`WeightsView`). :meth:`extend` records snapshots (:class:`~mdpviz.solvers.approximation.ApproxStep`),
    :meth:`refresh` draws them with the shown one (the history slider's)."""

    MAX_WEIGHT_ROWS = 20_000
    """Weight vectors kept for the weights-over-steps plot (a longer run keeps every other one)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("approxCurves")
        self.setAccessibleName("Function approximation plots")
        self.error = ErrorCurve()
        self.function = FunctionPlot()
        self.surface = SurfaceView()
        self.weights = WeightsView()
        self.weights_curve = WeightsCurve()
        self.tabs = QTabWidget()
        self.tabs.setObjectName("approxTabs")
        self.tabs.setAccessibleName("Function approximation plots")
        # tabs, not plots side by side: in a dock 220-260 px high (1366 x 768, presenter 1280 x 720) half a
        # width left a legend of five rows and a strip of data
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.tabs)
        self.reset()

    def reset(self, *, coords: np.ndarray | None = None, names: Sequence[str] = (), off_policy: bool = False,
              expected: bool = False, step: bool = False, cost: bool = False) -> None:
        """Forget every point (a new learner). ``coords``: the states' coordinates (n_states x 1: the values
        plot; x 2: the surface), ``names``: the coordinates' names; ``off_policy``: the weights over steps
        are drawn (``expected``: the run is the expected update); ``step``: the approximation is a staircase
        (aggregation); ``cost``: the surface shows the cost-to-go, -v."""
        self.coords = None if coords is None else np.asarray(coords, dtype=np.float64)
        self.names = tuple(names)
        self.off_policy, self.expected_run, self.step, self.cost = off_policy, expected, step, cost
        self._ep: list[float] = []
        self._ve: list[float] = []
        self._pbe: list[float] = []
        self._x: list[float] = []
        self._w: list[np.ndarray] = []
        self._every = 1
        self.expected_rows: np.ndarray | None = None
        """The expected update's weights at each step of :attr:`_x` (set by the window; None: not drawn)."""
        self.shown = None
        self.stale = True
        d = 0 if self.coords is None else self.coords.shape[1]
        pages = [(self.function, "values") if d == 1 else (self.surface, "cost-to-go" if cost else "values")
                 ] if d in (1, 2) else []
        if off_policy:
            pages.append((self.weights_curve, "weights over steps"))
        pages += [(self.error, "\u221aVE"), (self.weights, "weights")]
        if [self.tabs.widget(i) for i in range(self.tabs.count())] != [w for w, _ in pages]:
            self.tabs.clear()
            for w, title in pages:
                self.tabs.addTab(w, title)

    def extend(self, steps: Sequence) -> None:
        """Record these snapshots' VE and (off-policy) weights, in order."""
        for s in steps:
            self._ep.append(float(s.episode))
            self._ve.append(float(s.ve))
            self._pbe.append(float(getattr(s, "pbe", math.nan)))
            if self.off_policy and len(self._ep) % self._every == 0:
                self._x.append(float(s.episode if self.expected_run else s.updates))
                self._w.append(np.asarray(s.weights, dtype=np.float64))
                if len(self._w) > self.MAX_WEIGHT_ROWS:
                    self._x, self._w, self._every = self._x[::2], self._w[::2], 2 * self._every
        self.stale = self.stale or bool(steps)

    @property
    def weight_steps(self) -> np.ndarray:
        """The x of the weights over steps: updates made (the expected update: its steps)."""
        return np.asarray(self._x, dtype=np.float64)

    def show_step(self, step) -> None:
        """The snapshot the history slider shows (its values, weights and the exact answers)."""
        if step is not self.shown:
            self.shown, self.stale = step, True

    def refresh(self) -> None:
        """Draw what changed since the last call."""
        if not self.stale:
            return
        self.stale = False
        s = self.shown
        a = None if s is None else s.answer
        self.error.show_error(np.asarray(self._ep), np.asarray(self._ve), None if a is None else a.best.ve,
                              None if a is None or a.td is None else a.td.ve, td_note="" if a is None else a.td_note,
                              pbe=np.asarray(self._pbe))
        if s is None:
            return
        self.weights.show_weights(s.weights)
        if self.off_policy and self._w:
            w = np.vstack(self._w)
            e = self.expected_rows
            sampled = w if not self.expected_run else np.full_like(w, np.nan)
            expected = w if self.expected_run else (e if e is not None and e.shape == w.shape else None)
            self.weights_curve.show_curves(self.weight_steps, sampled, expected)
        d = 0 if self.coords is None else self.coords.shape[1]
        if d == 1:
            curves = {TRUE: a.v, APPROX: s.values, BEST: a.best.values}
            if a.td is not None:
                curves[TD] = a.td.values
            self.function.show_function(self.coords[:, 0], curves, a.mu, self.step,
                                        x_label=self.names[0] if self.names else "state")
        elif d == 2:
            sign = -1.0 if self.cost else 1.0
            xs, ys, grid = surface_grid(self.coords, sign * np.asarray(s.values))
            names = (*self.names, "", "")[:2] if self.names else ("x", "y")
            label = "cost-to-go \u2212v\u0302" if self.cost else "v\u0302"
            v = sign * np.asarray(a.v, dtype=np.float64)
            v = v[np.isfinite(v)]
            scale = fitted_scale(float(v.min()), float(v.max()), label=label) if v.size else None  # the exact one's: fixed
            self.surface.show_surface(grid, xs, ys, (names[0], names[1], label), scale=scale,
                                      title=f"after episode {s.episode:,}")

    def set_font_size(self, px: int) -> None:
        """Every plot's text ``px`` pixels high (presenter mode)."""
        for w in (self.error, self.function, self.surface, self.weights, self.weights_curve):
            w.set_font_size(px)


__all__ = ["APPROX", "ApproxCurves", "BEST", "CURVE_STYLES", "ErrorCurve", "FunctionPlot", "SurfaceView", "TD", "TRUE",
           "WEIGHT_COLORS", "WeightsCurve", "WeightsView", "cell_edges", "data_range", "finite_or_nan", "root_ve",
           "staircase", "surface_grid"]
