"""The convergence plot: max |dV| and mean |dV| per sweep on a log scale with the tolerance as a
line, and the number of greedy-action changes per sweep below it (pyqtgraph). When the solve's exact
answer V* is known, the theory beside the measurement: the true error max |V_k - V*| and, for value
iteration below discount 1, the bound the stopping rule guarantees (gamma/(1-gamma) max |dV| >= the
error), the gamma^k contraction envelope and the greedy policy's loss bound."""
from __future__ import annotations

import math
from pathlib import Path
from typing import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPoint, QRectF, Qt
from PySide6.QtGui import QFont, QPainter
from PySide6.QtWidgets import QWidget

from mdpviz.solvers import Sweep, registry

MAX_COLOR = "#0072b2"  # Okabe-Ito blue
MEAN_COLOR = "#e69f00"  # orange
CHANGES_COLOR = "#009e73"  # bluish green
TOL_COLOR = "#d55e00"  # vermillion
ZERO_COLOR = "#000000"  # an exact zero change, at the "0" tick
IMPROVE_COLOR = "#cc79a7"  # reddish purple: policy iteration's improvement steps
ERROR_COLOR = "#000000"  # the true error max |V_k - V*|
BOUND_COLOR = "#56b4e9"  # sky blue: the stopping rule's bound
ENVELOPE_COLOR = "#999999"  # grey: the gamma^k contraction envelope
LOSS_COLOR = "#cc79a7"  # reddish purple: the greedy policy's loss bound
BOUNDED_METHODS = registry.ids_where("solver", value_iteration=True)
"""Methods whose sweeps are Bellman-operator steps from V_0 = 0: the contraction bounds hold for them
(their registry lines' ``value_iteration``)."""


def bounded_method(method: str | None, options: dict) -> str | None:
    """The method as the theory curves know it: value iteration run as aima-python runs it (terminal
    utilities R(s) from its first sweep) is not the operator the bounds are stated for ("vi-aima")."""
    spec = registry.find(method)
    if spec is not None and spec.takes("sequence") and (options or {}).get("sequence") == "aima":
        return f"{spec.id}-aima"
    return method

SYMBOL_MAX_POINTS = 150
"""Beyond this many sweeps the curves lose their symbols, dashes and fill (painting stays fast)."""
LOG_AXIS_LINES = 6
"""The |dV| plot is at least this many text heights tall (the counts plot below gives way): enough
for :class:`ZeroLogAxis` to label two decades and the "0" of a run from 10^4 down to 0 with the
tolerance 1e-9 (presenter mode once left it ~45 px, one "0" tick)."""


def log_safe(x: Sequence[float]) -> np.ndarray:
    """Values for a log axis: non-positive or non-finite entries become NaN (gaps, not -inf)."""
    a = np.asarray(x, dtype=np.float64)
    return np.where((a > 0) & np.isfinite(a), a, np.nan)


def render_svg(widget: QWidget, path: str | Path, *, title: str = "mdpviz") -> Path:
    """Paint ``widget`` (and its children) into an SVG file with Qt's QSvgGenerator."""
    from PySide6.QtSvg import QSvgGenerator

    path = Path(path)
    gen = QSvgGenerator()
    gen.setFileName(str(path))
    gen.setSize(widget.size())
    gen.setViewBox(QRectF(0, 0, widget.width(), widget.height()))
    gen.setTitle(title)
    painter = QPainter()
    if not painter.begin(gen):
        raise OSError(f"cannot write {path}")
    try:
        QWidget.render(widget, painter, QPoint())  # the QWidget overload (QGraphicsView overrides render)
    finally:
        painter.end()
    return path


def export_scene(widget: pg.GraphicsView, path: str | Path, *, width: int = 1600) -> Path:
    """Export a pyqtgraph widget's scene as PNG or SVG (chosen by the file extension).

    PNG: pyqtgraph's ImageExporter at ``width`` pixels. SVG: pyqtgraph's SVGExporter; pyqtgraph
    0.14.0's exporter fails on the closed paths ("... Z") that Qt 6 writes (pyqtgraph issue
    #3495, fixed after 0.14.0), and then the widget is painted into an SVG with QSvgGenerator.
    """
    import pyqtgraph.exporters  # noqa: F401  (ImageExporter / SVGExporter; loaded on the first export, not at start)

    path = Path(path)
    ext = path.suffix.lower()
    scene = widget.scene()
    if ext == ".svg":
        try:
            pg.exporters.SVGExporter(scene).export(str(path))
        except ValueError:
            render_svg(widget, path)
    elif ext == ".png":
        exp = pg.exporters.ImageExporter(scene)
        exp.parameters()["width"] = int(width)
        exp.export(str(path))
    else:
        raise ValueError(f"{path}: export as .png or .svg, not '{ext or '(no extension)'}'")
    if not path.exists():
        raise OSError(f"cannot write {path}")
    return path


def set_axes_font(items, px: int) -> None:
    """Tick and label font of the left and bottom axes of pyqtgraph plot items, in pixels; the left
    axis is widened to fit (presenter mode of every plot stacked like the convergence plot)."""
    f = QFont()
    f.setPixelSize(int(px))
    for item in items:
        for ax in ("left", "bottom"):
            a = item.getAxis(ax)
            a.setStyle(tickFont=f)
            a.label.setFont(f)
            a.setTickDensity(min(1.0, (12.0 / px) ** 2))  # larger text: fewer ticks, so labels never overlap
        item.getAxis("left").setWidth(int(px * 4.5))


def set_legend_font(plot: pg.PlotItem, legend: pg.LegendItem, px: int) -> None:
    """Legend text size in pixels (entries keep their samples), and the legend row refitted."""
    legend.opts["labelTextSize"] = f"{int(px)}px"
    for _sample, label in legend.items:
        label.setText(label.text, size=f"{int(px)}px")
    fit_legend_row(plot, legend)


class RoomyAxis(pg.AxisItem):
    """An axis whose tick labels never crowd each other, whatever the font (presenter mode): ticks
    at least two text heights apart (vertical) or four characters apart (horizontal); no SI multiplier."""

    smallest = 0.0
    """The least tick spacing (data units; 1 for counts)."""

    def __init__(self, orientation: str, **kw) -> None:
        super().__init__(orientation, **kw)
        self.enableAutoSIPrefix(False)
        # the ticks are already spaced for their labels: draw them even on a short axis (pyqtgraph's
        # default draws no label at all once they would fill 80% of the axis)
        self.setStyle(textFillLimits=[(0, 1.0), (2, 0.8), (4, 0.6), (6, 0.4)])

    def boundingRect(self):  # noqa: N802
        # with a grid, pyqtgraph's axis rectangle loses the margin that lets the end labels show
        r = super().boundingRect()
        return r.adjusted(0, -15, 0, 15) if self.grid is not False and self.orientation in ("left", "right") else r

    def tickSpacing(self, minVal: float, maxVal: float, size: float):  # noqa: N802 (pyqtgraph's name)
        font_px = self.style["tickFont"].pixelSize() if self.style.get("tickFont") is not None else -1
        font_px = font_px if font_px > 0 else 12
        room = 2.0 * font_px if self.orientation in ("left", "right") else 4.0 * font_px
        least = max(self.smallest, abs(maxVal - minVal) * room / max(size, 1.0))
        if not least > 0:
            return super().tickSpacing(minVal, maxVal, size)
        levels = [(sp, off) for sp, off in super().tickSpacing(minVal, maxVal, size) if sp >= least]
        if levels:
            return levels
        step = 10.0 ** math.floor(math.log10(least))
        spacing = next(m * step for m in (1, 2, 5, 10) if m * step >= least)
        top = max(abs(maxVal), abs(minVal))
        if spacing > top >= max(self.smallest, 1e-300):  # no second tick: label the largest round value instead
            p10 = 10.0 ** math.floor(math.log10(top))
            spacing = max(m * p10 for m in (1, 2, 5) if m * p10 <= top)
        return [(spacing, 0.0)]


class IntegerAxis(RoomyAxis):
    """An axis of counts (sweeps, policy changes): ticks at whole numbers only (never 1.5), printed
    as integers, never with an SI multiplier, never crowded."""

    smallest = 1.0

    def tickStrings(self, values, scale, spacing):  # noqa: N802
        return [f"{int(round(v * scale)):d}" for v in values]


class ZeroLogAxis(pg.AxisItem):
    """The log axis of |dV|: powers of ten as 10⁻⁵ (no SI multiplier), and an extra tick "0" at
    :attr:`zero_level` (log10 units) where an exact zero change is drawn (a log axis has no 0)."""

    def __init__(self, orientation: str, **kw) -> None:
        super().__init__(orientation, **kw)
        self.enableAutoSIPrefix(False)
        # the ticks are already spaced for their labels: draw them even on a short axis (pyqtgraph's
        # default draws no label at all once they would fill 80% of the axis)
        self.setStyle(textFillLimits=[(0, 1.0), (2, 0.8), (4, 0.6), (6, 0.4)])
        self.zero_level: float | None = None
        """log10 position of the "0" tick (None: no zeros drawn)."""

    def tickValues(self, minVal: float, maxVal: float, size: float):  # noqa: N802
        if not self.logMode:
            return super().tickValues(minVal, maxVal, size)
        lo, hi = sorted((minVal, maxVal))
        z = self.zero_level
        # whole decades only, from the top one down, as close as a label's height and a half between
        # two labels allows: a short axis (presenter mode's large font) still labels two decades
        # when they fit, so the plot can be read off (it once labelled only its top decade)
        font_px = self.style["tickFont"].pixelSize() if self.style.get("tickFont") is not None else -1
        room = 2.5 * (font_px if font_px > 0 else 12)
        per_decade = size / max(hi - lo, 1e-12)  # pixels
        step = max(1, math.ceil(room / per_decade)) if per_decade > 0 else 1
        first = math.ceil(lo)
        if z is not None:  # the "0" label keeps the same room below the lowest decade's
            first = max(first, math.floor(z) + max(2, step))
        top = math.floor(hi)
        decades = [float(v) for v in range(top, first - 1, -step)][::-1]  # the top decade always labelled
        if z is not None and lo <= z <= hi:
            decades = [z, *decades]
        return [(float(step), decades)]

    def tickStrings(self, values, scale, spacing):  # noqa: N802
        if not self.logMode:
            return super().tickStrings(values, scale, spacing)
        z = self.zero_level
        return ["0" if z is not None and abs(v - z) < 1e-9 else power_of_ten(int(round(v))) for v in values]


_SUPERSCRIPT = str.maketrans("-0123456789", "\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079")


def power_of_ten(k: int) -> str:
    """10**k as a tick label: "1", "10", "10⁻⁵" (one format for every decade, never 0.0001)."""
    if k == 0:
        return "1"
    if k == 1:
        return "10"
    return "10" + str(int(k)).translate(_SUPERSCRIPT)


def legend_above(plot: pg.PlotItem, *, columns: int = 6, size: str = "8pt") -> pg.LegendItem:
    """A legend in a row of its own above ``plot``'s data (never on the curves); call
    :func:`fit_legend_row` after adding entries so the row is as tall as the legend."""
    legend = pg.LegendItem(colCount=columns, labelTextColor="k", labelTextSize=size, verSpacing=-6, horSpacing=14)
    legend.setParentItem(plot)
    legend.layout.setContentsMargins(2, 0, 2, 0)  # no frame: the style's margins only made the row taller
    legend.anchor(itemPos=(1, 0), parentPos=(1, 0), offset=(-4, 0))
    plot.setTitle(" ", size=size)
    fit_legend_row(plot, legend)
    return legend


def fit_legend_row(plot: pg.PlotItem, legend: pg.LegendItem) -> None:
    """Make the title row of ``plot`` as tall as ``legend`` (a row of one line when it is empty)."""
    legend.updateSize()
    if legend.items:  # pyqtgraph sizes the legend by its entries' current heights, which never shrink
        # back (a 14-px row stayed ~40 px tall): size it by what the entries ask for
        pref = legend.layout.effectiveSizeHint(Qt.SizeHint.PreferredSize)
        legend.setGeometry(0, 0, legend.width(), pref.height())
    h = max(14.0, float(legend.boundingRect().height())) if legend.items else 8.0
    if plot.layout.rowMinimumHeight(0) == h and plot.layout.rowMaximumHeight(0) == h:
        return
    plot.titleLabel.setMaximumHeight(h)
    plot.titleLabel.setMinimumHeight(h)
    plot.layout.setRowFixedHeight(0, h)
    # now, not at the next turn of the event loop: a picture taken before it (a lesson export, a
    # GIF frame, a screenshot) showed the new legend over the curves
    plot.layout.activate()


class ConvergencePlot(pg.GraphicsLayoutWidget):
    """Grows live during a solve; ``append`` is cheap, ``refresh`` (at screen rate) redraws.

    What it draws is meant to be read as the truth about the run on screen: the x axis counts whole
    sweeps and covers exactly the current run (it is set on every refresh, so a new solve, game or
    file never inherits a range), a sweep that changed nothing is drawn at the "0" tick at the
    bottom of the log axis (so the curve visibly drops below the tolerance when it converges), and
    an empty plot shows only the names of its axes. Policy iteration's improvement steps are
    marked apart from its evaluations. Zooming is off: the ranges always follow the data."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("convergencePlot")
        self.setAccessibleName("Convergence plot")
        self.setAccessibleDescription("max |dV| and mean |dV| per sweep (log scale) with the tolerance, "
                                      "and the number of policy changes per sweep")
        self.setBackground("w")
        self.setMinimumHeight(150)
        self.left_axis = ZeroLogAxis("left")
        self.top: pg.PlotItem = self.addPlot(row=0, col=0, axisItems={"left": self.left_axis,
                                                                       "bottom": IntegerAxis("bottom")})
        self.bottom: pg.PlotItem = self.addPlot(row=1, col=0, axisItems={"left": IntegerAxis("left"),
                                                                          "bottom": IntegerAxis("bottom")})
        self.bottom.getAxis("left").setStyle(hideOverlappingLabels=40)  # the top count may reach past the short axis
        self.ci.layout.setRowStretchFactor(0, 3)
        self.ci.layout.setRowStretchFactor(1, 1)
        self.top.setLogMode(y=True)
        # no grid: on a log axis pyqtgraph draws a line per minor tick, and painting them took most
        # of the GUI thread during a fast Run (measured); the tolerance line is the reference that matters
        self.top.setLabel("left", "|\u0394V|")  # short: the legend names the curves
        self.legend = legend_above(self.top, columns=3)
        self.max_curve = self.top.plot([], [], pen=pg.mkPen(MAX_COLOR, width=2), symbol="o", symbolSize=5,
                                       symbolBrush=MAX_COLOR, symbolPen=None, connect="finite")
        self.mean_curve = self.top.plot([], [], pen=pg.mkPen(MEAN_COLOR, width=2, style=Qt.PenStyle.DashLine),
                                        connect="finite")
        self.zero_marks = self.top.plot([], [], pen=None, symbol="t", symbolSize=10, symbolBrush=ZERO_COLOR,
                                        symbolPen=pg.mkPen("w", width=1))
        self.improve_marks = self.top.plot([], [], pen=None, symbol="s", symbolSize=8, symbolBrush=IMPROVE_COLOR,
                                           symbolPen=pg.mkPen("w", width=1))
        self.tol_line = pg.InfiniteLine(angle=0, movable=False, pen=pg.mkPen(TOL_COLOR, width=1.5,
                                                                             style=Qt.PenStyle.DotLine))
        self.top.addItem(self.tol_line, ignoreBounds=True)
        self._tol_sample = pg.PlotDataItem(pen=pg.mkPen(TOL_COLOR, width=1.5, style=Qt.PenStyle.DotLine))
        self.bottom.setXLink(self.top)
        self.top.getAxis("bottom").setStyle(showValues=False)  # the same sweeps are numbered below
        # no axis name below (too long for the short lower plot): the legend names its curve
        self.bottom.setLabel("bottom", "sweep")
        self.changes_curve = self.bottom.plot([], [], pen=pg.mkPen(CHANGES_COLOR, width=2), stepMode="center",
                                              fillLevel=0, brush=pg.mkBrush(0, 158, 115, 80))
        self.cursor = pg.InfiniteLine(angle=90, movable=False, pen=pg.mkPen("#555555", width=1))
        self.top.addItem(self.cursor, ignoreBounds=True)
        self.cursor.hide()
        for item in (self.top, self.bottom):
            item.getAxis("left").setWidth(60)
            item.setMouseEnabled(x=False, y=False)  # the ranges follow the run (a zoom would go stale)
            item.setMenuEnabled(False)
            item.hideButtons()
            for ax in ("left", "bottom"):
                item.getAxis(ax).setTextPen("k")
                item.getAxis(ax).setPen("#444444")
        self.top.setDownsampling(auto=True, mode="peak")  # thousands of sweeps: about one point per pixel
        self.top.setClipToView(True)
        self._many = False
        self.line_width = 2.0
        """Pen width of the curves (see :meth:`set_line_width`)."""
        # the snapshots' numbers in growing arrays (capacity doubles): a refresh during a long Run
        # slices them instead of converting thousands of list items again at every frame
        self._n = 0
        self._x = np.empty(0)
        self._delta = np.empty(0)
        self._mean = np.empty(0)
        self._changes = np.empty(0)
        self._improve = np.empty(0, dtype=bool)
        self._marks_shown = (-1, -1)
        self.tol: float | None = None
        self.zero_level: float | None = None
        """log10 height at which exact zeros are drawn (None while there are none)."""
        self.y_range: tuple[float, float] = (0.0, 1.0)
        """The top plot's y range in log10 units, as last set."""
        # theory beside the measurement (the exact answer, when the solve has one): the true error per
        # snapshot, the stopping rule's bound gamma/(1-gamma) max|dV|, the gamma^k envelope and the greedy
        # policy's loss bound 2 gamma/(1-gamma) max|dV| (Puterman, theorem 6.3.1)
        self._err = np.empty(0)
        self._values: list[np.ndarray] = []
        self.reference: np.ndarray | None = None
        """V* of the run (None: unknown, no theory curves)."""
        self.gamma: float | None = None
        self.method: str | None = None
        self.show_theory = True
        """Draw the theory curves when there is a reference (the window's View menu toggles it)."""
        dash = Qt.PenStyle.DashLine
        self.error_curve = self.top.plot([], [], pen=pg.mkPen(ERROR_COLOR, width=2), connect="finite")
        self.bound_curve = self.top.plot([], [], pen=pg.mkPen(BOUND_COLOR, width=2, style=dash), connect="finite")
        self.envelope_curve = self.top.plot([], [], pen=pg.mkPen(ENVELOPE_COLOR, width=1.5, style=Qt.PenStyle.DotLine))
        self.loss_curve = self.top.plot([], [], pen=pg.mkPen(LOSS_COLOR, width=1.5, style=Qt.PenStyle.DashDotLine),
                                        connect="finite")
        self._note = pg.PlotDataItem(pen=None)  # a legend line without a sample: "discount 1: no contraction bound"
        self._legend_key: tuple | None = None
        self._values_shown: bool | None = None
        self._ranges: tuple | None = None
        self._dirty = False
        self.reset(tol=None)

    # ------------------------------------------------------------------ data
    @property
    def point_count(self) -> int:
        """Number of snapshots plotted (after the last ``refresh``), zeros included."""
        return int(self.max_curve.xData.size) if self.max_curve.xData is not None else 0

    @property
    def x_range(self) -> tuple[float, float]:
        """The shown range of the sweep axis."""
        lo, hi = self.top.getViewBox().viewRange()[0]
        return float(lo), float(hi)

    @property
    def stale(self) -> bool:
        """Snapshots were recorded (or the plot reset) since the last ``refresh``."""
        return self._dirty

    @property
    def x(self) -> np.ndarray:
        """The x of every curve: each snapshot's own sweep number (see :meth:`extend`)."""
        return self._x[:self._n]

    @property
    def delta(self) -> np.ndarray:
        """max |dV| per snapshot."""
        return self._delta[:self._n]

    @property
    def mean(self) -> np.ndarray:
        """mean |dV| per snapshot."""
        return self._mean[:self._n]

    @property
    def changes(self) -> np.ndarray:
        """Greedy-action changes per snapshot."""
        return self._changes[:self._n]

    def reset(self, *, tol: float | None, x_label: str = "sweep") -> None:
        """Empty the plot for a new solve; ``tol`` draws the stopping tolerance (None: no line)."""
        self._n = 0
        self._values = []
        self.tol = tol
        self.bottom.setLabel("bottom", x_label)
        self.cursor.hide()
        self._dirty = True
        self.refresh()

    def append(self, sweep: Sweep) -> None:
        """Record one snapshot (drawn at the next ``refresh``)."""
        self.extend((sweep,))

    def extend(self, sweeps: Sequence[Sweep]) -> None:
        """Record several snapshots in order (drawn at the next ``refresh``).

        A snapshot is drawn at its own sweep number (``Sweep.iteration``), not at its rank: after
        the first 2,000 snapshots a Run at full speed takes one snapshot per many sweeps, and a
        42,355-sweep run must still read 42,355 on the axis. Where the numbers do not grow (policy
        iteration's evaluate and improve steps share their round's number) a snapshot is drawn one
        step after the one before it, so the axis then counts steps."""
        k, n = len(sweeps), self._n
        if not k:
            return
        if n + k > self._delta.size:
            cap = max(2 * self._delta.size, n + k, 256)
            for name in ("_x", "_delta", "_mean", "_changes", "_improve"):
                old = getattr(self, name)
                new = np.empty(cap, dtype=old.dtype)
                new[:n] = old[:n]
                setattr(self, name, new)
        last = float(self._x[n - 1]) if n else 0.0
        for i, sw in enumerate(sweeps, n):
            last = max(float(sw.iteration), last + 1.0)
            self._x[i] = last
        self._delta[n:n + k] = [float(sw.delta) for sw in sweeps]
        self._mean[n:n + k] = [float(sw.mean_delta) for sw in sweeps]
        self._changes[n:n + k] = [int(sw.policy_changes) for sw in sweeps]
        self._improve[n:n + k] = [sw.phase == "improve" for sw in sweeps]
        self._values.extend(sw.values for sw in sweeps)  # (the snapshots' own read-only arrays: no copy)
        self._n = n + k
        self._err_from(n)
        self._dirty = True

    def set_reference(self, values: np.ndarray | None, *, gamma: float | None, method: str | None) -> None:
        """The exact optimal values V* of the run (None: none known) with its discount and method: the true
        error max |V_k - V*| is drawn per snapshot and, for value iteration below discount 1, the bounds."""
        self.reference = None if values is None else np.asarray(values, dtype=np.float64)
        self.gamma = None if gamma is None else float(gamma)
        self.method = method
        self._err_from(0)
        self._dirty = True

    def _err_from(self, start: int) -> None:
        """The true error of the snapshots from ``start`` on (NaN without a reference)."""
        n = self._n
        if self._err.size < self._delta.size:
            grown = np.full(self._delta.size, np.nan)
            grown[: min(self._err.size, grown.size)] = self._err[: grown.size]
            self._err = grown
        ref = self.reference
        for i in range(start, n):
            v = self._values[i] if i < len(self._values) else None
            ok = ref is not None and v is not None and np.shape(v) == ref.shape
            self._err[i] = float(np.max(np.abs(np.asarray(v) - ref))) if ok and ref.size else np.nan

    def theory(self) -> dict[str, np.ndarray]:
        """The theory curves as drawn (x = the snapshots' sweeps): "error" (max |V_k - V*|), and for value
        iteration below discount 1 "bound" (gamma/(1-gamma) max|dV|, never below the error), "envelope"
        (gamma^k max|V_0 - V*|, V_0 = 0) and "loss" (2 gamma/(1-gamma) max|dV|). Empty without a reference."""
        n = self._n
        if self.reference is None or not n:
            return {}
        x = self._x[:n]
        out = {"x": x.copy(), "error": self._err[:n].copy()}
        g = self.gamma
        if self.method in BOUNDED_METHODS and g is not None and g < 1:
            d = self._delta[:n]
            out["bound"] = g / (1 - g) * d
            out["loss"] = 2 * g / (1 - g) * d
            e0 = float(np.max(np.abs(self.reference))) if self.reference.size else 0.0
            out["envelope"] = e0 * g ** x
        return out

    def _theory_note(self) -> str:
        if self.reference is None or self.method not in BOUNDED_METHODS or self.gamma is None:
            return ""
        return "discount 1: no contraction bound holds" if self.gamma >= 1 else ""

    def set_cursor(self, index: int | None) -> None:
        """Mark snapshot ``index`` (0-based) when the history slider is not at the newest sweep."""
        if index is None or index + 1 >= self._n:
            self.cursor.hide()
        else:
            self.cursor.setPos(float(self._x[index]))
            self.cursor.show()

    def _tol_shown(self) -> bool:
        return self.tol is not None and self.tol > 0 and math.isfinite(self.tol)

    def _update_legend(self, has_zero: bool, has_improve: bool, empty: bool, theory: tuple[str, ...] = ()) -> None:
        note = self._theory_note() if self.show_theory else ""
        key = (empty, self._tol_shown(), has_zero, has_improve, theory, note)
        if key == self._legend_key:
            return
        self._legend_key = key
        self.legend.clear()
        if not empty:
            pi = "evaluate: " if has_improve else ""
            self.legend.addItem(self.max_curve, f"{pi}max |dV|")
            self.legend.addItem(self.mean_curve, f"{pi}mean |dV|")
            if has_improve:
                self.legend.addItem(self.improve_marks, "improve: residual")
            if has_zero:
                self.legend.addItem(self.zero_marks, "no change (0)")
            if self._tol_shown():
                self.legend.addItem(self._tol_sample, "tolerance")
            names = {"error": "error |V−V*|", "bound": "bound γ/(1−γ)·max|dV|",
                     "envelope": "γᵏ envelope", "loss": "loss bound"}
            curves = {"error": self.error_curve, "bound": self.bound_curve, "envelope": self.envelope_curve,
                      "loss": self.loss_curve}
            for k in theory:
                self.legend.addItem(curves[k], names[k])
            if note:
                self.legend.addItem(self._note, note)
            self.legend.addItem(self.changes_curve, "policy changes (below)")
        self._fit_legend()

    def _fit_legend(self) -> None:
        """As many columns of legend entries as the plot's width holds (one row when it holds them all),
        at least three: the fewer rows, the taller the curves."""
        # (the text's own width: a LabelItem's boundingRect can keep a wider one, measured before its font changed)
        widths = [label.item.boundingRect().width() + 50 for _, label in self.legend.items]
        n = len(widths)
        room = self.width() - 80
        cols = 3
        for c in range(n, 3, -1):  # entry i sits in column i % c
            if sum(max(widths[j::c]) for j in range(c)) < room:
                cols = c
                break
        if self.legend.columnCount != cols:
            self.legend.setColumnCount(cols)
        fit_legend_row(self.top, self.legend)

    def resizeEvent(self, ev) -> None:  # noqa: N802
        super().resizeEvent(ev)
        if hasattr(self, "legend"):  # pyqtgraph resizes the view while it is being built
            self._fit_legend()

    def refresh(self) -> None:
        """Redraw if anything was appended since the last call (data and ranges)."""
        if not self._dirty:
            return
        self._dirty = False
        n = self._n
        x = self._x[:n]
        many = n > SYMBOL_MAX_POINTS
        if many != self._many:  # symbols, dashes and fills are slow to paint for long runs
            self._many = many
            self.max_curve.setSymbol(None if many else "o")
            self.mean_curve.setPen(pg.mkPen(MEAN_COLOR, width=self.line_width, style=Qt.PenStyle.SolidLine if many
                                            else Qt.PenStyle.DashLine))
        delta = self._delta[:n]
        mean = self._mean[:n]
        zero = np.isfinite(delta) & (delta <= 0)
        zero_mean = np.isfinite(mean) & (mean <= 0)
        theory = self.theory() if self.show_theory else {}
        drawn = [theory[k] for k in ("error", "bound") if k in theory]
        positive = np.concatenate([delta[(delta > 0) & np.isfinite(delta)], mean[(mean > 0) & np.isfinite(mean)],
                                   *[c[(c > 0) & np.isfinite(c)] for c in drawn]])
        tol = self.tol if self._tol_shown() else None
        low_ref = [float(np.log10(positive.min()))] if positive.size else []
        high_ref = [float(np.log10(positive.max()))] if positive.size else []
        if tol is not None:
            low_ref.append(math.log10(tol))
            high_ref.append(math.log10(tol))
        if not low_ref:
            low_ref, high_ref = [0.0], [0.0]
        lo, hi = math.floor(min(low_ref)), math.ceil(max(high_ref))
        if hi - lo < 1:
            hi = lo + 1
        if zero.any() or zero_mean.any():  # a log axis has no 0: draw zeros two decades below everything else
            self.zero_level = float(lo - 2)
            y_lo = self.zero_level - 0.4
        else:
            self.zero_level = None
            y_lo = lo - 0.15
        y_hi = hi + 0.15
        self.left_axis.zero_level = self.zero_level
        floor = 10.0 ** self.zero_level if self.zero_level is not None else np.nan
        self.max_curve.setData(x, np.where(zero, floor, log_safe(delta)))
        self.mean_curve.setData(x, np.where(zero_mean, floor, log_safe(mean)))
        for key, curve in (("error", self.error_curve), ("bound", self.bound_curve), ("envelope", self.envelope_curve),
                           ("loss", self.loss_curve)):
            c = theory.get(key)
            if c is None:
                curve.setData([], [])
                continue
            c = np.where(np.isfinite(c) & (c <= 0), floor, c) if key == "error" else c
            keep = np.isfinite(c) & (c > 0)
            curve.setData(x[keep], c[keep])
        imp = self._improve[:n]
        marks = (int(zero.sum()), int((imp & ~zero).sum()))
        if marks != (0, 0) or self._marks_shown != marks:  # (most runs have neither: nothing to redo)
            self._marks_shown = marks
            self.zero_marks.setData(x[zero], np.full(marks[0], floor))
            self.improve_marks.setData(x[imp & ~zero], delta[imp & ~zero])
        changes = self._changes[:n]
        if many or (n and x[-1] - x[0] != n - 1):
            # a stem per snapshot at its sweep: steps with a fill are slow to paint for thousands of
            # sweeps, and a line between snapshots many sweeps apart would draw changes between them
            self.changes_curve.setData(np.repeat(x, 2), np.column_stack([np.zeros(n), changes]).ravel(),
                                       stepMode=None, fillLevel=None, connect="pairs")
        elif n:
            self.changes_curve.setData(np.r_[x - 0.5, x[-1] + 0.5], changes, stepMode="center", fillLevel=0,
                                       connect="all")
        else:
            self.changes_curve.setData([], [])
        self.tol_line.setVisible(tol is not None and n > 0)
        if tol is not None:
            self.tol_line.setPos(math.log10(tol))
        self._update_legend(bool(zero.any()), bool(imp.any()), n == 0, tuple(k for k in theory if k != "x"))
        if (n > 0) != self._values_shown:  # an empty plot: the axes' names, no numbers
            self._values_shown = n > 0
            for item, ax in ((self.top, "left"), (self.bottom, "left"), (self.bottom, "bottom")):
                item.getAxis(ax).setStyle(showValues=n > 0)
        # the ranges are the current run's, set here every time (never inherited from an earlier run)
        ranges = ((0.5, (float(x[-1]) if n else 1.0) + 0.5), (float(y_lo), float(y_hi)),
                  (0.0, max(1.0, float(changes.max()) if n else 1.0) * 1.15))
        if ranges != self._ranges:
            self._ranges = ranges
            self.y_range = ranges[1]
            self.top.setXRange(*ranges[0], padding=0)
            self.top.setYRange(*ranges[1], padding=0)
            self.bottom.setYRange(*ranges[2], padding=0)

    def set_line_width(self, width: float) -> None:
        """Pen width of the curves and the tolerance line (presenter and high-contrast modes: thicker)."""
        self.line_width = float(width)
        w = self.line_width
        self.max_curve.setPen(pg.mkPen(MAX_COLOR, width=w))
        style = Qt.PenStyle.SolidLine if self._many else Qt.PenStyle.DashLine
        self.mean_curve.setPen(pg.mkPen(MEAN_COLOR, width=w, style=style))
        tol_pen = pg.mkPen(TOL_COLOR, width=0.75 * w, style=Qt.PenStyle.DotLine)
        self.tol_line.setPen(tol_pen)
        self._tol_sample.setPen(tol_pen)
        self.changes_curve.setPen(pg.mkPen(CHANGES_COLOR, width=w))
        self.error_curve.setPen(pg.mkPen(ERROR_COLOR, width=w))
        self.bound_curve.setPen(pg.mkPen(BOUND_COLOR, width=w, style=Qt.PenStyle.DashLine))
        self.envelope_curve.setPen(pg.mkPen(ENVELOPE_COLOR, width=0.75 * w, style=Qt.PenStyle.DotLine))
        self.loss_curve.setPen(pg.mkPen(LOSS_COLOR, width=0.75 * w, style=Qt.PenStyle.DashDotLine))

    def set_theory_shown(self, on: bool) -> None:
        """Show or hide the theory curves (the true error and the bounds)."""
        self.show_theory = bool(on)
        self._dirty = True
        self.refresh()

    def set_font_size(self, px: int) -> None:
        """Axis, label and legend font size in pixels (presenter mode)."""
        set_axes_font((self.top, self.bottom), px)
        set_legend_font(self.top, self.legend, max(11, int(px * 0.8)))
        self.top.vb.setMinimumHeight(LOG_AXIS_LINES * px)
        self._fit_legend()

    def export(self, path: str | Path) -> Path:
        """Save the plot as PNG or SVG."""
        return export_scene(self, path)
