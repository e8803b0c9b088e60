"""The compare panel: every method on the same model, their error curves overlaid on one plot
(against the sweep number or the wall time), a table of sweeps, time and final values, and a
line saying whether they agree.

The comparison itself is :func:`mdpviz.solvers.compare.compare_job`, run on the controller's
job thread; this module only draws it.
"""
from __future__ import annotations


import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QBoxLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from mdpviz.solvers.compare import (
    COLUMNS,
    Comparison,
    comparison_rows,
    error_floor,
    log_floor,
)
from mdpviz.solvers import registry
from mdpviz.widgets import named as _named
from mdpviz.widgets.convergence import RoomyAxis, ZeroLogAxis, fit_legend_row, legend_above

PEN_STYLES: dict[str, Qt.PenStyle] = {"solid": Qt.PenStyle.SolidLine, "dash": Qt.PenStyle.DashLine,
                                      "dot": Qt.PenStyle.DotLine, "dashdot": Qt.PenStyle.DashDotLine}
"""Qt's pen of each line style a registry line's ``curve`` names (:data:`mdpviz.solvers.registry.LINE_STYLES`)."""

METHOD_STYLES: dict[str, tuple[str, Qt.PenStyle, str]] = {
    s.id: (s.curve[0], PEN_STYLES[s.curve[1]], s.curve[2]) for s in registry.specs("solver") if s.curve}
"""Colour (Okabe-Ito, colour-blind safe), line style and symbol per method, from its registry line's
``curve``: each curve differs in all three, so it is told apart in greyscale too."""

METHOD_SHORT: dict[str, str] = {s.id: s.short for s in registry.specs("solver") if s.short}
"""Short method names for the legend and the table (the full name is the tooltip), from the registry lines."""

SYMBOL_GLYPHS: dict[str, str] = {"o": "\u25cf", "s": "\u25a0", "t": "\u25bc", "star": "\u2605", "d": "\u25c6"}
"""The plot symbols as text: the table's method column doubles as the chart's legend."""

WIDE_PANEL = 640
"""From this width (pixels) the table goes beside the chart; below, under it."""

X_AXES = {"sweep": "sweep (policy iteration: round)", "time": "wall time (ms)"}
"""The two x axes of the chart."""

SYMBOL_MAX_POINTS = 200
"""Curves longer than this are drawn without symbols (painting stays fast)."""




class CompareChart(pg.PlotWidget):
    """Error of every method, max_s |V_k(s) - V_ref(s)|, on a log axis, against the sweep or the time."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, background="w", axisItems={"left": ZeroLogAxis("left"), "bottom": RoomyAxis("bottom")})
        self.setObjectName("compareChart")
        self.setAccessibleName("Comparison of the methods' errors")
        self.setMinimumHeight(60)
        pi = self.getPlotItem()
        pi.setLogMode(y=True)
        # Value iteration on a course file near discount 1 brings 40,000+ points: painting them all
        # took 45-75 ms per repaint (measured); about one point per pixel column (each column's
        # least and largest error, so the curve looks the same) keeps a repaint a few ms.
        pi.setDownsampling(auto=True, mode="peak")
        pi.setClipToView(True)
        pi.setLabel("left", "max |V \u2212 V*|")
        self.legend = legend_above(pi, columns=4, size="9pt")  # off the curves
        for ax in ("left", "bottom"):
            pi.getAxis(ax).setTextPen("k")
            pi.getAxis(ax).setPen("#444444")
        self.comparison: Comparison | None = None
        self.x = "sweep"
        self.line_width = 2.0
        self.curves: dict[str, pg.PlotDataItem] = {}
        self._set_x_label()

    def _set_x_label(self) -> None:
        self.getPlotItem().setLabel("bottom", X_AXES[self.x])

    def show_comparison(self, comp: Comparison | None, *, x: str | None = None) -> None:
        """Draw ``comp`` (None: empty), against ``x`` ("sweep" or "time"; default: unchanged)."""
        if x is not None:
            self.set_x(x, redraw=False)
        self.comparison = comp
        self._redraw()

    def set_x(self, x: str, *, redraw: bool = True) -> None:
        if x not in X_AXES:
            raise ValueError(f"x axis must be one of {', '.join(X_AXES)}, got {x!r}")
        self.x = x
        self._set_x_label()
        if redraw:
            self._redraw()

    def set_line_width(self, width: float) -> None:
        """Pen width of the curves (presenter mode draws thicker lines)."""
        self.line_width = float(width)
        self._redraw()

    def _fit_legend(self) -> None:
        """One row of entries when they fit above the plot, else rows of two."""
        n = len(self.legend.items)
        width = sum(label.boundingRect().width() + 50 for _, label in self.legend.items)
        cols = n if n and width < self.width() - 60 else 2
        if self.legend.columnCount != cols:
            self.legend.setColumnCount(cols)
        fit_legend_row(self.getPlotItem(), self.legend)

    def resizeEvent(self, ev) -> None:  # noqa: N802
        super().resizeEvent(ev)
        if hasattr(self, "legend"):
            self._fit_legend()

    def set_font_size(self, px: int) -> None:
        f = QFont()
        f.setPixelSize(int(px))
        pi = self.getPlotItem()
        for ax in ("left", "bottom"):
            a = pi.getAxis(ax)
            a.setStyle(tickFont=f)
            a.label.setFont(f)
        pi.getAxis("left").setWidth(int(px * 4.5))

    def curve_data(self, method: str) -> tuple[np.ndarray, np.ndarray]:
        """(x, y) drawn for ``method`` (y with exact zeros at the round-off floor)."""
        item = self.curves[method]
        return np.asarray(item.xData), np.asarray(10 ** np.asarray(item.yData))  # the item holds log10(y)

    def _redraw(self) -> None:
        pi = self.getPlotItem()
        for item in self.curves.values():
            pi.removeItem(item)
            self.legend.removeItem(item)
        self.curves = {}
        comp = self.comparison
        if comp is None:
            fit_legend_row(pi, self.legend)
            return
        floor = error_floor(comp)
        for r in comp.runs:
            colour, style, symbol = METHOD_STYLES.get(r.method, ("#000000", Qt.PenStyle.SolidLine, "o"))
            x = r.steps if self.x == "sweep" else r.times * 1000.0
            y = log_floor(r.error, floor=floor)
            many = x.size > SYMBOL_MAX_POINTS
            item = pi.plot(np.asarray(x, dtype=float), y, pen=pg.mkPen(colour, width=self.line_width, style=style),
                           symbol=None if many else symbol, symbolSize=8, symbolBrush=colour, symbolPen=None,
                           connect="finite")
            self.legend.addItem(item, f"{METHOD_SHORT.get(r.method, r.method)} ({r.sweeps})")
            self.curves[r.method] = item
        self._fit_legend()
        pi.enableAutoRange()


class ComparePanel(QWidget):
    """Compare methods: button, overlaid curves, table and agreement line. Emits requests only."""

    compare_requested = Signal()
    cancel_requested = Signal()
    export_csv_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("comparePanel")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        row = QHBoxLayout()
        self.run_button = _named(QPushButton("Compare methods"), "compareButton", "Compare the solvers")
        self.run_button.setToolTip("Run value iteration (synchronous and in place), policy iteration and, for "
                                   "one-player models of moderate size, linear programming on this model")
        self.cancel_button = _named(QPushButton("Cancel"), "compareCancelButton", "Cancel the comparison")
        self.cancel_button.setEnabled(False)
        self.x_axis = _named(QComboBox(), "compareXAxis", "Comparison x axis")
        self.x_axis.addItem("error vs sweep", "sweep")
        self.x_axis.addItem("error vs wall time", "time")
        self.x_axis.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.x_axis.setMinimumContentsLength(8)
        self.csv_button = _named(QPushButton("CSV\u2026"), "compareCsvButton", "Export the comparison as CSV")
        self.csv_button.setEnabled(False)
        row.addWidget(self.run_button)
        row.addWidget(self.cancel_button)
        row.addStretch(1)
        lay.addLayout(row)
        row2 = QHBoxLayout()
        row2.addWidget(self.x_axis, 1)
        row2.addWidget(self.csv_button)
        lay.addLayout(row2)
        self.progress = _named(QProgressBar(), "compareProgress", "Comparison progress")
        self.progress.setVisible(False)
        lay.addWidget(self.progress)
        self.agreement = _named(QLabel("Press Compare methods to run every solver on this model."),
                                "compareAgreement", "Whether the methods agree")
        self.agreement.setWordWrap(True)
        self.agreement.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.body = body = QBoxLayout(QBoxLayout.Direction.TopToBottom)
        self.chart = CompareChart()
        body.addWidget(self.chart, 3)
        right = QVBoxLayout()
        self.table = _named(QTableWidget(0, len(COLUMNS)), "compareTable", "Comparison table")
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setMinimumHeight(40)
        right.addWidget(self.table, 1)
        right.addWidget(self.agreement)
        body.addLayout(right, 2)
        lay.addLayout(body, 1)
        self.comparison: Comparison | None = None
        self.run_button.clicked.connect(self.compare_requested)
        self.cancel_button.clicked.connect(self.cancel_requested)
        self.csv_button.clicked.connect(self.export_csv_requested)
        self.x_axis.currentIndexChanged.connect(lambda i: self.chart.set_x(self.x_axis.itemData(i)))

    def resizeEvent(self, ev) -> None:  # noqa: N802
        super().resizeEvent(ev)
        self._arrange()

    def _arrange(self) -> None:
        """Wide enough for chart and table side by side (the table whole in 55% of the width): side by
        side; else stacked. Only a panel too narrow for the whole table (a tab on the right) hides the
        two columns the agreement line repeats, and the legend (the coloured method column is one)."""
        from mdpviz.widgets.simulation import table_width

        hidden = [COLUMNS.index(col) for col in ("max |V - V_ref|", "converged")]
        for c in hidden:
            self.table.setColumnHidden(c, False)
        full = table_width(self.table)
        narrow = self.width() < min(WIDE_PANEL, full + 12)
        side = self.width() >= WIDE_PANEL and full <= 0.55 * self.width()
        want = QBoxLayout.Direction.LeftToRight if side else QBoxLayout.Direction.TopToBottom
        if self.body.direction() != want:
            self.body.setDirection(want)
        for c in hidden:
            self.table.setColumnHidden(c, narrow)
        self.chart.legend.setVisible(not narrow)
        self.table.setMinimumWidth(full if side else 0)

    # ------------------------------------------------------------------ what to show
    def show_running(self, running: bool, text: str = "") -> None:
        self.run_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        self.progress.setVisible(running)
        if running:
            self.progress.setRange(0, 0)
        if text:
            self.agreement.setText(text)

    def show_progress(self, done: int, total: int, text: str) -> None:
        self.progress.setRange(0, max(1, total))
        self.progress.setValue(done)
        self.progress.setFormat(text)

    def show_comparison(self, comp: Comparison, *, start_name: str = "start") -> None:
        """Fill the chart, the table and the agreement line from ``comp``."""
        self.comparison = comp
        self.show_running(False)
        self.chart.show_comparison(comp)
        rows = comparison_rows(comp)
        self.table.setRowCount(len(rows))
        hdr = list(COLUMNS)
        hdr[3] = f"V({start_name})"
        self.table.setHorizontalHeaderLabels(hdr)
        for i, (row, run) in enumerate(zip(rows, comp.runs)):
            for j, text in enumerate(row):
                if j == 0:
                    glyph = SYMBOL_GLYPHS.get(METHOD_STYLES.get(run.method, ("", "", ""))[2], "")
                    text = f"{glyph} {METHOD_SHORT.get(run.method, text)}".strip()
                item = QTableWidgetItem(text)
                if j == 0:
                    item.setForeground(QColor(METHOD_STYLES.get(run.method, ("#000000",))[0]))
                    item.setToolTip(f"{run.name}: {run.snapshots} snapshots")
                if j >= 1:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if j == 3:
                    item.setToolTip(repr(float(run.values[comp.start])))
                self.table.setItem(i, j, item)
        mark = "\u2714 " if comp.agree else "\u2718 "
        colour = "#006644" if comp.agree else "#a00000"
        self.agreement.setText(f"<span style='color:{colour}'><b>{mark}</b></span>{comp.summary}")
        self.agreement.setToolTip(comp.summary)
        self.csv_button.setEnabled(True)
        self.table.resizeColumnsToContents()
        self._arrange()

    def clear(self, text: str = "") -> None:
        """Forget the comparison (the model changed)."""
        self.comparison = None
        self.show_running(False)
        self.chart.show_comparison(None)
        self.table.setRowCount(0)
        self.csv_button.setEnabled(False)
        self.agreement.setText(text or "Press Compare methods to run every solver on this model.")
