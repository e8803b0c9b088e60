"""The convergence plot: max |dV| and mean |dV| per sweep on a log scale with the tolerance as a
line, and the number of greedy-action changes per sweep below it (pyqtgraph)."""
from __future__ import annotations

import math
from pathlib import Path
from typing import Sequence

import numpy as np
import pyqtgraph as pg
import pyqtgraph.exporters  # noqa: F401  (registers ImageExporter / SVGExporter)
from PySide6.QtCore import QPoint, QRectF, Qt
from PySide6.QtGui import QFont, QPainter
from PySide6.QtWidgets import QWidget

from mdpviz.solvers import Sweep

MAX_COLOR = "#0072b2"  # Okabe-Ito blue
MEAN_COLOR = "#e69f00"  # orange
CHANGES_COLOR = "#009e73"  # bluish green
TOL_COLOR = "#d55e00"  # vermillion

SYMBOL_MAX_POINTS = 150
"""Beyond this many sweeps the curves lose their symbols, dashes and fill (painting stays fast)."""


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
        item.getAxis("left").setWidth(int(px * 4.5))


class ConvergencePlot(pg.GraphicsLayoutWidget):
    """Grows live during a solve; ``append`` is cheap, ``refresh`` (at screen rate) redraws."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("convergencePlot")
        self.setAccessibleName("Convergence plot")
        self.setAccessibleDescription("max |dV| and mean |dV| per sweep (log scale) with the tolerance, "
                                      "and the number of policy changes per sweep")
        self.setBackground("w")
        self.setMinimumHeight(200)
        self.top: pg.PlotItem = self.addPlot(row=0, col=0)
        self.bottom: pg.PlotItem = self.addPlot(row=1, col=0)
        self.ci.layout.setRowStretchFactor(0, 3)
        self.ci.layout.setRowStretchFactor(1, 1)
        self.top.setLogMode(y=True)
        # no grid: on a log axis pyqtgraph draws a line per minor tick, and painting them took most
        # of the GUI thread during a fast Run (measured); the tolerance line is the reference that matters
        self.top.setLabel("left", "change in V")
        self.legend = self.top.addLegend(offset=(-4, 4), labelTextColor="k", labelTextSize="8pt", verSpacing=-6)
        self.max_curve = self.top.plot([], [], pen=pg.mkPen(MAX_COLOR, width=2), symbol="o", symbolSize=5,
                                       symbolBrush=MAX_COLOR, symbolPen=None, name="max |dV|", connect="finite")
        self.mean_curve = self.top.plot([], [], pen=pg.mkPen(MEAN_COLOR, width=2, style=Qt.PenStyle.DashLine),
                                        name="mean |dV|", connect="finite")
        self.tol_line = pg.InfiniteLine(angle=0, movable=False, pen=pg.mkPen(TOL_COLOR, width=1.5,
                                                                             style=Qt.PenStyle.DotLine))
        self.top.addItem(self.tol_line, ignoreBounds=False)
        self._tol_sample = pg.PlotDataItem(pen=pg.mkPen(TOL_COLOR, width=1.5, style=Qt.PenStyle.DotLine))
        self.legend.addItem(self._tol_sample, "tolerance")
        self.bottom.setXLink(self.top)
        self.bottom.setLabel("left", "policy \u0394")
        self.bottom.setLabel("bottom", "sweep")
        self.changes_curve = self.bottom.plot([], [], pen=pg.mkPen(CHANGES_COLOR, width=2), stepMode="center",
                                              fillLevel=0, brush=pg.mkBrush(0, 158, 115, 80))
        self.cursor = pg.InfiniteLine(angle=90, movable=False, pen=pg.mkPen("#555555", width=1))
        self.top.addItem(self.cursor, ignoreBounds=True)
        self.cursor.hide()
        for item in (self.top, self.bottom):
            item.getAxis("left").setWidth(60)
            for ax in ("left", "bottom"):
                item.getAxis(ax).setTextPen("k")
                item.getAxis(ax).setPen("#444444")
        self.top.setDownsampling(auto=True, mode="peak")  # thousands of sweeps: about one point per pixel
        self.top.setClipToView(True)
        self._many = False
        self.line_width = 2.0
        """Pen width of the curves (see :meth:`set_line_width`)."""
        self.x: list[float] = []
        self.delta: list[float] = []
        self.mean: list[float] = []
        self.changes: list[int] = []
        self.tol: float | None = None
        self._dirty = False
        self.reset(tol=None)

    # ------------------------------------------------------------------ data
    @property
    def point_count(self) -> int:
        """Number of snapshots plotted (after the last ``refresh``)."""
        return int(self.max_curve.xData.size) if self.max_curve.xData is not None else 0

    def reset(self, *, tol: float | None, x_label: str = "sweep") -> None:
        """Empty the plot for a new solve; ``tol`` draws the stopping tolerance (None: no line)."""
        self.x, self.delta, self.mean, self.changes = [], [], [], []
        self.tol = tol
        shown = tol is not None and tol > 0 and math.isfinite(tol)
        if shown:
            self.tol_line.setPos(math.log10(tol))
        self.tol_line.setVisible(shown)
        has_entry = any(getattr(sample, "item", sample) is self._tol_sample for sample, _ in self.legend.items)
        if shown and not has_entry:
            self.legend.addItem(self._tol_sample, "tolerance")
        elif not shown and has_entry:
            self.legend.removeItem(self._tol_sample)
        self.bottom.setLabel("bottom", x_label)
        self.cursor.hide()
        self._dirty = True
        self.refresh()

    def append(self, sweep: Sweep) -> None:
        """Record one snapshot (drawn at the next ``refresh``)."""
        self.x.append(float(len(self.x) + 1))
        self.delta.append(float(sweep.delta))
        self.mean.append(float(sweep.mean_delta))
        self.changes.append(int(sweep.policy_changes))
        self._dirty = True

    def set_cursor(self, index: int | None) -> None:
        """Mark snapshot ``index`` (0-based) when the history slider is not at the newest sweep."""
        if index is None or index + 1 >= len(self.x):
            self.cursor.hide()
        else:
            self.cursor.setPos(index + 1)
            self.cursor.show()

    def refresh(self) -> None:
        """Redraw if anything was appended since the last call."""
        if not self._dirty:
            return
        self._dirty = False
        x = np.asarray(self.x)
        many = x.size > SYMBOL_MAX_POINTS
        if many != self._many:  # symbols, dashes and fills are slow to paint for long runs
            self._many = many
            self.max_curve.setSymbol(None if many else "o")
            self.mean_curve.setPen(pg.mkPen(MEAN_COLOR, width=self.line_width, style=Qt.PenStyle.SolidLine if many
                                            else Qt.PenStyle.DashLine))
        self.max_curve.setData(x, log_safe(self.delta))
        self.mean_curve.setData(x, log_safe(self.mean))
        changes = np.asarray(self.changes, dtype=float)
        if many:  # a plain line: steps with a fill are slow to paint for thousands of sweeps
            self.changes_curve.setData(x, changes, stepMode=None, fillLevel=None)
        elif x.size:
            self.changes_curve.setData(np.r_[x - 0.5, x[-1] + 0.5], changes, stepMode="center", fillLevel=0)
        else:
            self.changes_curve.setData([0.0, 1.0], [0.0], stepMode="center", fillLevel=0)

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

    def set_font_size(self, px: int) -> None:
        """Axis and label font size in pixels (presenter mode)."""
        set_axes_font((self.top, self.bottom), px)

    def export(self, path: str | Path) -> Path:
        """Save the plot as PNG or SVG."""
        return export_scene(self, path)
