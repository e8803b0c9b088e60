"""The batch-simulation panel (histogram of totals per strategy, table of exact vs simulated mean
with CI, progress and cancel) and the episode player (one game animated on the board)."""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QProgressBar,
    QPushButton,
    QSlider,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from mdpviz.widgets.convergence import export_scene, fit_legend_row, legend_above
from mdpviz.models.kit.pictures.display import StrategyRow, histogram_bins
from mdpviz.models.kit.boards.episodes import Move
from mdpviz.widgets import named as _named

STRATEGY_COLORS = ("#000000", "#0072b2", "#e69f00", "#009e73", "#cc79a7", "#d55e00", "#56b4e9", "#f0e442")
"""Okabe-Ito colours for the strategies (optimal first, in black)."""

WIDE_PANEL = 640
"""From this width (pixels) the panel puts the histogram and the table side by side."""

DEFAULT_GAMES = 10_000
"""Games per strategy of a batch simulation (the issue's default)."""




def table_width(table: QTableWidget) -> int:
    """Pixels a table needs to show every column whole (contents and headers), frame and scroll bar included."""
    head = table.horizontalHeader()
    stretch = QHeaderView.ResizeMode.Stretch  # a stretched column's width is the room it was given, not its need
    need = sum(max(0 if head.sectionResizeMode(j) == stretch else table.columnWidth(j), table.sizeHintForColumn(j),
                   head.sectionSizeHint(j))
               for j in range(table.columnCount()) if not table.isColumnHidden(j))
    if table.verticalHeader().isVisible():
        need += table.verticalHeader().width()
    return need + table.verticalScrollBar().sizeHint().width() + 2 * table.frameWidth() + 4


class ResultsSplitter(QSplitter):
    """The plot and the table of a results panel: side by side when the panel is wide (the results
    page beside the board), stacked when it is narrow. Side by side, the table (the second widget)
    gets the width of all its columns and the plot the rest."""

    def __init__(self, *, wide: int = WIDE_PANEL, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Vertical, parent)
        self.wide = int(wide)
        """From this width (pixels) plot and table are side by side."""
        self._stacked_sizes: list[int] | None = None

    def resizeEvent(self, ev) -> None:  # noqa: N802
        super().resizeEvent(ev)
        self.fit()

    def changeEvent(self, ev) -> None:  # noqa: N802
        super().changeEvent(ev)
        if ev.type() == QEvent.Type.FontChange:  # presenter mode: the columns grow with the font
            QTimer.singleShot(0, self, self.refit)

    def refit(self) -> None:
        """Size the table's columns to their contents again, then :meth:`fit`."""
        if self.count() > 1 and isinstance(self.widget(1), QTableWidget):
            self.widget(1).resizeColumnsToContents()
        self.fit()

    def fit(self) -> None:
        """Choose the orientation for the current width, and give a side-by-side table its width. Side by
        side needs the panel to be :attr:`wide` and the table to fit in 60% of it (every column whole)."""
        table = self.widget(1) if self.count() > 1 and isinstance(self.widget(1), QTableWidget) else None
        total = self.width() - self.handleWidth()
        fits = table is None or table_width(table) <= 0.6 * total
        want = Qt.Orientation.Horizontal if self.width() >= self.wide and fits else Qt.Orientation.Vertical
        if self.orientation() != want:
            if want == Qt.Orientation.Horizontal:
                self._stacked_sizes = self.sizes()
            self.setOrientation(want)
            if want == Qt.Orientation.Vertical and self._stacked_sizes:
                self.setSizes(self._stacked_sizes)
        if table is None:
            return
        if want == Qt.Orientation.Vertical:  # stacked: the table as tall as its rows (up to 60%), the plot the rest
            total_h = self.height() - self.handleWidth()
            rows = sum(table.rowHeight(r) for r in range(table.rowCount()))
            need_h = rows + table.horizontalHeader().height() + 2 * table.frameWidth() + 4
            if table.rowCount() and total_h > 0:
                need_h = min(need_h, int(total_h * 0.6))
                sizes = [total_h - need_h, need_h]
                if self.sizes() != sizes:
                    self.setSizes(sizes)
            return
        need = table_width(table)
        sizes = [total - need, need]
        if self.sizes() != sizes:
            self.setSizes(sizes)


class ResultsPanel(QWidget):
    """What the simulation panels share: games and seed, Simulate and Cancel with progress and status
    above, the plot and the table in a :class:`ResultsSplitter` (a subclass adds them), the CSV and plot
    exports below; :class:`SimulationPanel` (per strategy) and
    :class:`~mdpviz.widgets.position.MatchupPanel` (per matchup) draw the results."""

    simulate_requested = Signal(int, int)  # games, seed
    cancel_requested = Signal()
    export_csv_requested = Signal()
    export_plot_requested = Signal()

    NAMES: dict[str, tuple[str, str]] = {}
    """objectName and accessible name of the panel and each control ("panel", "games", "seed",
    "simulate", "cancel", "progress", "status", "csv", "plot"): each subclass names its own."""
    table: QTableWidget
    """The results' table: a subclass makes it and adds it to :attr:`splitter` after its plot."""

    def __init__(self, parent: QWidget | None = None, *, games: int = DEFAULT_GAMES) -> None:
        super().__init__(parent)
        names = self.NAMES
        self.setObjectName(names["panel"][0])
        self.setAccessibleName(names["panel"][1])
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        row = QHBoxLayout()
        self.games = _named(QSpinBox(), *names["games"])
        self.games.setRange(100, 1_000_000)
        self.games.setSingleStep(1000)
        self.games.setGroupSeparatorShown(True)
        self.games.setValue(int(games))
        self.games.setSuffix(" games")
        self.games.setToolTip(names["games"][1])
        row.addWidget(self.games)
        self.seed = _named(QSpinBox(), *names["seed"])
        self.seed.setRange(0, 999_999)
        self.seed.setValue(2024)
        self.seed.setPrefix("seed ")
        self.seed.setToolTip("Random seed: the same seed gives the same games")
        row.addWidget(self.seed)
        row.addStretch(1)
        lay.addLayout(row)
        row = QHBoxLayout()
        self.simulate = _named(QPushButton("Simulate"), *names["simulate"])
        self.cancel = _named(QPushButton("Cancel"), *names["cancel"])
        self.cancel.setEnabled(False)
        row.addWidget(self.simulate)
        row.addWidget(self.cancel)
        self.progress = _named(QProgressBar(), *names["progress"])
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        row.addWidget(self.progress, 1)
        lay.addLayout(row)
        self.status = _named(QLabel(""), *names["status"])
        self.status.setWordWrap(True)
        lay.addWidget(self.status)
        self.splitter = ResultsSplitter()  # side by side on the wide results page, stacked in a narrow dock
        lay.addWidget(self.splitter, 1)
        exports = QHBoxLayout()
        exports.addStretch(1)
        exports.addWidget(QLabel("Export"))
        self.export_csv = _named(QPushButton("CSV\u2026"), *names["csv"])
        self.export_plot = _named(QPushButton("Plot\u2026"), *names["plot"])
        self.export_csv.setEnabled(False)
        self.export_plot.setEnabled(False)
        exports.addWidget(self.export_csv)
        exports.addWidget(self.export_plot)
        lay.addLayout(exports)
        self.rows: tuple = ()
        self.simulate.clicked.connect(lambda: self.simulate_requested.emit(self.games.value(), self.seed.value()))
        self.cancel.clicked.connect(self.cancel_requested)
        self.export_csv.clicked.connect(self.export_csv_requested)
        self.export_plot.clicked.connect(self.export_plot_requested)

    def show_running(self, running: bool, text: str = "") -> None:
        self.simulate.setEnabled(not running)
        self.cancel.setEnabled(running)
        self.progress.setRange(0, 0 if running else 1)  # busy until the first progress report
        self.status.setText(text)

    def show_progress(self, done: int, total: int, text: str) -> None:
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)
        self.status.setText(text)

    def clear(self, text: str = "") -> None:
        """Forget the results (the model changed)."""
        self.rows = ()
        self._clear_plot()
        self.table.setRowCount(0)
        self.export_csv.setEnabled(False)
        self.export_plot.setEnabled(False)
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.status.setText(text)

    def _clear_plot(self) -> None:
        """Empty the plot (each subclass its own)."""
        raise NotImplementedError

    def _show_done(self, results: bool) -> None:
        """The progress bar full, the exports on when there are ``results``."""
        self.progress.setRange(0, 1)
        self.progress.setValue(1)
        self.export_csv.setEnabled(results)
        self.export_plot.setEnabled(results)

    def export_plot_to(self, path) -> None:
        export_scene(self.splitter.widget(0), path)


class SimulationPanel(ResultsPanel):
    """N games per strategy in the background; a histogram and a table of the results."""

    NAMES = {"panel": ("simulationPanel", "Simulation"), "games": ("gamesSpin", "Games per strategy"),
             "seed": ("seedSpin", "Random seed"), "simulate": ("simulateButton", "Simulate games"),
             "cancel": ("cancelSimulationButton", "Cancel the simulation"),
             "progress": ("simulationProgress", "Simulation progress"),
             "status": ("simulationStatus", "Simulation status"), "csv": ("exportCsvButton", "Export results as CSV"),
             "plot": ("exportHistogramButton", "Export the histogram")}

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.export_csv.setToolTip("Save the table as CSV")
        self.export_plot.setToolTip("Save the histogram as PNG or SVG")
        self.simulate.setToolTip("Play N games with every strategy in the background")
        split = self.splitter
        split.setObjectName("simulationSplitter")
        self.histogram = _named(pg.PlotWidget(), "histogramPlot", "Histogram of totals per strategy")
        self.histogram.setBackground("w")
        self.histogram.setMinimumHeight(60)
        self.hist_plot = self.histogram.getPlotItem()
        self.hist_plot.showGrid(x=True, y=True, alpha=0.25)
        self.hist_plot.setLabel("left", "fraction of games")
        for ax in ("left", "bottom"):
            self.hist_plot.getAxis(ax).enableAutoSIPrefix(False)
        for ax in ("left", "bottom"):
            self.hist_plot.getAxis(ax).setTextPen("k")
            self.hist_plot.getAxis(ax).setPen("#444444")
        self.legend = legend_above(self.hist_plot, columns=3)  # off the bars
        split.addWidget(self.histogram)
        self.table = _named(QTableWidget(0, 5), "simulationTable", "Exact versus simulated")
        self.table.setHorizontalHeaderLabels(["Strategy", "Exact", "Simulated", "95% CI", "In CI"])
        self.table.horizontalHeaderItem(4).setToolTip("Is the exact mean inside the simulated 95% interval? Each "
                                                      "interval misses it 5% of the time, so an occasional 'no' "
                                                      "is expected.")
        self.table.horizontalHeaderItem(4).setToolTip("Is the exact value inside the simulated 95% interval?")
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.table.horizontalHeader().setStretchLastSection(False)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.setMinimumHeight(50)
        split.addWidget(self.table)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 1)
        split.setSizes([230, 190])
        self.rows: tuple[StrategyRow, ...] = ()
        self.unit = "turns"

    def _clear_plot(self) -> None:
        self.hist_plot.clear()
        self.legend.clear()
        fit_legend_row(self.hist_plot, self.legend)
        self.hist_plot.setLabel("bottom", "")
        self.hist_plot.setRange(xRange=(0, 1), yRange=(0, 1), padding=0)  # (no axis of the last game's games)

    def fit_legend(self) -> None:
        """As many legend columns as the plot's width holds, so that no entry is cut at the plot's edge
        (presenter mode's larger text cut "optimal" to "ptimal"); at least one."""
        widths = [label.item.boundingRect().width() + 45 for _, label in self.legend.items]
        room = self.histogram.width() - 60
        cols = 1
        for c in range(min(len(widths), 6), 0, -1):
            if sum(max(widths[j::c]) for j in range(c)) < room:
                cols = c
                break
        if self.legend.columnCount != cols:
            self.legend.setColumnCount(cols)
        fit_legend_row(self.hist_plot, self.legend)

    def resizeEvent(self, ev) -> None:  # noqa: N802
        super().resizeEvent(ev)
        self.fit_legend()

    def show_results(self, rows: Sequence[StrategyRow], *, unit: str, start: str, notes: Sequence[str] = ()) -> None:
        """Draw the histogram and fill the table."""
        self.rows = tuple(rows)
        self.unit = unit
        self.hist_plot.clear()
        self.legend.clear()
        lo, hi = histogram_view(rows)
        shown = [np.asarray(r.samples, dtype=float) for r in rows]
        bins = histogram_bins([x[(x >= lo) & (x <= hi)] for x in shown])
        for i, (r, x) in enumerate(zip(rows, shown)):
            counts, edges = np.histogram(x, bins=bins)
            frac = counts / max(r.games, 1)  # a fraction of all the strategy's games, tail included
            col = STRATEGY_COLORS[i % len(STRATEGY_COLORS)]
            item = self.hist_plot.plot(edges, frac, stepMode="center", pen=pg.mkPen(col, width=2.5 if i == 0 else 1.5))
            self.legend.addItem(item, r.name)
            if np.isfinite(r.exact):  # the exact mean (policy evaluation), one dashed line per strategy
                self.hist_plot.addItem(pg.InfiniteLine(r.exact, angle=90, movable=False,
                                                       pen=pg.mkPen(col, width=1.5, style=Qt.PenStyle.DashLine)))
            atoms = exact_atoms(r)
            if atoms is not None:  # the exact distribution, summed over each bin, as dots on the bars
                p = exact_in_bins(atoms, edges)
                some = p > 0  # (a bin no game can reach has no dot: a row of dots on zero hid the axis)
                self.hist_plot.plot(0.5 * (edges[:-1] + edges[1:])[some], p[some], pen=None, symbol="o",
                                    symbolSize=7 if i == 0 else 5, symbolBrush=col, symbolPen=pg.mkPen("w", width=0.5))
        if rows:
            self.legend.addItem(pg.PlotDataItem(pen=pg.mkPen("#444444", width=1.5, style=Qt.PenStyle.DashLine)),
                                "exact mean")
        if any(exact_atoms(r) is not None for r in rows):
            self.legend.addItem(pg.PlotDataItem(pen=None, symbol="o", symbolSize=7, symbolBrush="#444444",
                                                symbolPen=None), "exact distribution")
        self.fit_legend()
        beyond = sum(int(np.sum(x > hi)) for x in shown)
        tail = (f" The histogram ends at {hi:g} {unit}: {beyond:,} longer games are counted in the fractions "
                "but not drawn." if beyond else "")
        self.hist_plot.setLabel("bottom", f"{unit} per game, from {start}")
        if rows:
            self.hist_plot.setXRange(float(bins[0]), max(float(bins[-1]), float(bins[0]) + 1.0), padding=0.02)
        self.table.setRowCount(len(rows))
        for i, r in enumerate(rows):
            agree = "yes" if r.within_ci else "no"
            cells = [r.name, f"{r.exact:.3f}", f"{r.mean:.3f}", f"\u00b1{r.ci:.3f}", agree]
            for j, text in enumerate(cells):
                it = QTableWidgetItem(text)
                if j:
                    align = Qt.AlignmentFlag.AlignCenter if j == 4 else Qt.AlignmentFlag.AlignRight
                    it.setTextAlignment(align | Qt.AlignmentFlag.AlignVCenter)
                if j == 0:
                    it.setForeground(QColor(STRATEGY_COLORS[i % len(STRATEGY_COLORS)]))
                it.setToolTip(f"{r.name}: {r.games:,} games from {start}; exact {r.exact:.10g}, "
                              f"simulated {r.mean:.10g} \u00b1 {r.ci:.4g} (95%)" + within_text(r, unit))
                self.table.setItem(i, j, it)
        games = rows[0].games if rows else 0
        note = ("  Not evaluated: " + "; ".join(notes)) if notes else ""
        ci_rows = [r for r in rows if np.isfinite(r.exact)]
        misses = sum(1 for r in ci_rows if not r.within_ci)
        why = f" {misses_text(len(ci_rows))}" if misses else ""
        for i, r in enumerate(rows):
            if not r.within_ci and self.table.item(i, 4) is not None:
                self.table.item(i, 4).setToolTip(misses_text(len(ci_rows)))
        quantiles = distribution_text(rows[0], unit) if rows else ""
        self.status.setText(f"{games:,} games per strategy from {start}: exact (policy evaluation, dashed "
                            f"lines) vs simulated mean \u00b1 95% CI.{why}{quantiles}{tail}{note}")
        self.splitter.fit()
        self._show_done(bool(rows))


def misses_text(k: int, level: float = 0.95) -> str:
    """Why an "In CI: no" is expected now and then: each of ``k`` independent ``level`` intervals misses
    its exact mean with probability 1 - level, so at least one of them misses with probability
    1 - level^k (six 95% intervals: 26%, about a quarter of the time). Pure; no Qt."""
    p = 1.0 - level ** max(int(k), 1)
    if k <= 1:
        return (f"A 'no' is not an error by itself: a {level:.0%} interval misses the exact mean "
                f"{1 - level:.0%} of the time.")
    return (f"A 'no' is not an error by itself: each {level:.0%} interval misses its exact mean {1 - level:.0%} of "
            f"the time, so with {k} of them at least one miss is expected {p:.0%} of the time (1 \u2212 "
            f"{level:g}^{k}).")


def exact_atoms(row: StrategyRow) -> tuple[np.ndarray, np.ndarray] | None:
    """(values, probabilities) of a strategy's exact distribution: of its turns (0, 1, 2, ...) or of its
    return (the values it takes); None when it has neither."""
    if row.distribution is not None:
        p = np.asarray(row.distribution, dtype=np.float64)
        return np.arange(p.size, dtype=np.float64), p
    if row.returns is not None:
        return np.asarray(row.returns[0], dtype=np.float64), np.asarray(row.returns[1], dtype=np.float64)
    return None


def exact_in_bins(atoms: tuple[np.ndarray, np.ndarray] | np.ndarray, edges: np.ndarray) -> np.ndarray:
    """The exact probabilities summed over each histogram bin: ``atoms`` = (values, probabilities), or
    the probabilities of 0, 1, 2, ... turns. A value on the last edge counts in the last bin, as
    ``np.histogram`` counts it."""
    if isinstance(atoms, tuple):
        v, p = atoms
    else:
        p = np.asarray(atoms, dtype=np.float64)
        v = np.arange(p.size, dtype=np.float64)
    idx = np.searchsorted(edges, v, side="right") - 1
    idx = np.where(v == edges[-1], edges.size - 2, idx)
    keep = (idx >= 0) & (idx < edges.size - 1)
    return np.bincount(idx[keep], weights=p[keep], minlength=edges.size - 1)


def quantile_of(p: np.ndarray, q: float) -> int | None:
    """The smallest k with P(total <= k) >= q under the exact distribution ``p`` (None: beyond it)."""
    c = np.cumsum(p)
    i = int(np.searchsorted(c, q - 1e-12))
    return i if i < c.size else None


def return_quantile(row: StrategyRow, q: float) -> float | None:
    """The smallest return v with P(return <= v) >= q under the strategy's exact return distribution."""
    if row.returns is None:
        return None
    v, p = row.returns
    i = int(np.searchsorted(np.cumsum(p), q - 1e-12))
    return float(v[i]) if i < len(v) else None


def distribution_text(row: StrategyRow, unit: str) -> str:
    """" The optimal strategy (exact): median 6, 90% within 9 turns." (empty without a distribution)."""
    if row.distribution is None:
        med, lo, hi = (return_quantile(row, q) for q in (0.5, 0.1, 0.9))
        if med is None or lo is None or hi is None:
            return ""
        if len(row.returns[0]) == 1 or lo == hi:  # ("1 values, 80% of games between 0 and 0")
            return f" {row.name} (exact distribution, dots): every game returns {med:.4g}."
        return (f" {row.name} (exact distribution, dots): {len(row.returns[0])} values, median {med:.4g}, "
                f"80% of games between {lo:.4g} and {hi:.4g}.")
    med, q90 = quantile_of(row.distribution, 0.5), quantile_of(row.distribution, 0.9)
    if med is None or q90 is None:
        return ""
    return f" {row.name} (exact distribution, dots): median {med}, 90% of games within {q90} {unit}."


def within_text(row: StrategyRow, unit: str) -> str:
    """"; exact: median 11, 90% within 18 turns, P(done within 10) = 0.412" (empty without a distribution)."""
    if row.distribution is None:
        med = return_quantile(row, 0.5)
        if med is None:
            return ""
        v, p = row.returns
        if len(v) == 1:
            return f"; exact: every game returns {float(v[0]):.4g}"
        top = np.argsort(-np.asarray(p), kind="stable")[:3]
        likely = ", ".join(f"P({v[i]:.4g}) = {p[i]:.3f}" for i in top)
        return f"; exact: {len(v)} values, median {med:.4g}, most likely {likely}"
    c = np.cumsum(row.distribution)
    med, q90 = quantile_of(row.distribution, 0.5), quantile_of(row.distribution, 0.9)
    ks = sorted({k for k in (int(row.exact) // 2, int(row.exact), 2 * int(row.exact)) if 0 < k < c.size})
    within = ", ".join(f"P(done within {k}) = {c[k]:.3f}" for k in ks)
    return f"; exact: median {med}, 90% within {q90} {unit}" + (f", {within}" if within else "")


HIST_QUANTILE = 97.5
"""The histogram's axis ends where this percentage of every strategy's games has ended (the rest of
a long tail is counted in the fractions but not drawn)."""


def histogram_view(rows: Sequence[StrategyRow]) -> tuple[float, float]:
    """The x range of the histogram: from the smallest total to the :data:`HIST_QUANTILE` percentile of
    the strategy with the longest games, widened to show every exact mean (pure; no Qt)."""
    lows, highs = [], []
    for r in rows:
        x = np.asarray(r.samples, dtype=np.float64)
        x = x[np.isfinite(x)]
        if x.size:
            lows.append(float(x.min()))
            highs.append(float(np.percentile(x, HIST_QUANTILE)))
        if np.isfinite(r.exact):
            lows.append(float(r.exact))
            highs.append(float(r.exact))
    if not lows:
        return 0.0, 1.0
    lo, hi = min(lows), max(highs)
    return lo, max(hi, lo + 1.0)


def _amount(total: float, unit: str) -> str:
    """"1 turn", "3 turns", "2.5 return"."""
    if total == 1 and unit.endswith("s"):
        unit = unit[:-1]
    return f"{total:g} {unit}"


class EpisodePlayer(QWidget):
    """Plays one episode on the board: the token moves, the roll and any trap are written out."""

    new_requested = Signal(str)  # strategy
    position_changed = Signal(object)  # (state, caption) or None

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("episodePlayer")
        self.setAccessibleName("Episode player")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        row = QHBoxLayout()
        row.addWidget(QLabel("Policy"))
        self.strategy = _named(QComboBox(), "episodeStrategy", "Policy to play")
        self.strategy.setToolTip("optimal: the solver's greedy policy at the shown sweep (the optimum once converged)")
        row.addWidget(self.strategy, 1)
        self.new = _named(QPushButton("New game"), "newEpisodeButton", "Play a new game")
        row.addWidget(self.new)
        lay.addLayout(row)
        row = QHBoxLayout()
        self.rewind = _named(QPushButton("Start"), "rewindEpisodeButton", "Back to the start")
        self.rewind.setToolTip("Back to the start of the game")
        self.play = _named(QPushButton("Play"), "playEpisodeButton", "Play or pause the game")
        self.play.setCheckable(True)
        self.step_btn = _named(QPushButton("Step"), "stepEpisodeButton", "One throw")
        row.addWidget(self.rewind)
        row.addWidget(self.play)
        row.addWidget(self.step_btn)
        lay.addLayout(row)
        row = QHBoxLayout()
        row.addWidget(QLabel("Speed"))
        self.speed = _named(QSlider(Qt.Orientation.Horizontal), "episodeSpeed", "Moves per second")
        self.speed.setRange(1, 20)
        self.speed.setValue(3)
        self.speed.setToolTip("Moves per second")
        row.addWidget(self.speed, 1)
        self.speed_label = QLabel("3/s")
        row.addWidget(self.speed_label)
        lay.addLayout(row)
        self.status = _named(QLabel("No game yet"), "episodeStatus", "Episode status")
        self.status.setWordWrap(True)
        lay.addWidget(self.status)
        self.log = _named(QListWidget(), "episodeLog", "Moves of the game")
        self.log.setWordWrap(True)
        lay.addWidget(self.log, 1)
        self.moves: list[Move] = []
        self.start_state = 0
        self.index = -1
        self.unit = "turns"
        self.timer = QTimer(self)
        self.timer.timeout.connect(self._tick)
        self.new.clicked.connect(lambda: self.new_requested.emit(self.strategy.currentText()))
        self.play.toggled.connect(self._on_play)
        self.step_btn.clicked.connect(self.step)
        self.rewind.clicked.connect(lambda: self.seek(-1))
        self.speed.valueChanged.connect(self._on_speed)
        self.log.currentRowChanged.connect(self._on_row)
        self.timer.setInterval(int(1000 / self.speed.value()))
        self._update_buttons()

    def _on_speed(self, v: int) -> None:
        self.timer.setInterval(int(1000 / max(v, 1)))
        self.speed_label.setText(f"{v}/s")

    def set_strategies(self, names: Sequence[str]) -> None:
        cur = self.strategy.currentText()
        self.strategy.blockSignals(True)
        self.strategy.clear()
        self.strategy.addItems(list(names))
        if cur in names:
            self.strategy.setCurrentText(cur)
        self.strategy.blockSignals(False)

    def show_episode(self, moves: Sequence[Move], *, start_state: int, unit: str, names: dict[int, str],
                     header: str = "", outcome: str = "", total_label: str = "") -> None:
        """A new episode, shown at its start (press Play or Step). ``outcome``: how it ended, in the
        game's words (shown at the last move); ``total_label``: what the running total is (e.g.
        "discounted return (\u03b3 = 0.9)"; default: ``unit``)."""
        self.pause()
        self.moves = list(moves)
        self.start_state = start_state
        self.unit = unit
        self.outcome = outcome
        self.total_label = total_label
        self.log.blockSignals(True)
        self.log.clear()
        for k, m in enumerate(self.moves):
            self.log.addItem(f"{k + 1}. {m.text}")
        self.log.blockSignals(False)
        self.header = header
        self._names = names
        self.seek(-1)

    def clear(self) -> None:
        self.pause()
        self.moves = []
        self.log.clear()
        self.index = -1
        self.status.setText("No game yet")
        self.position_changed.emit(None)
        self._update_buttons()

    def seek(self, index: int) -> None:
        """Show the position after move ``index`` (-1: the start)."""
        self.index = max(-1, min(index, len(self.moves) - 1))
        if self.index < 0:
            state = self.start_state
            total = 0.0
            text = f"{self.header} start on {self._name(state)}" if self.moves else "No game yet"
        else:
            m = self.moves[self.index]
            state, total = m.next_state, m.total
            text = f"move {self.index + 1} of {len(self.moves)}: {m.text}"
        finished = self.index == len(self.moves) - 1 and bool(self.moves)
        amount = (f"{self.total_label}: {total:g}" if getattr(self, "total_label", "") else _amount(total, self.unit))
        end = getattr(self, "outcome", "") or "finished"
        summary = amount + (f" \u2014 {end}" if finished else "")
        self.status.setText(f"{text}\n{summary}")
        self.log.blockSignals(True)
        self.log.setCurrentRow(self.index)
        self.log.blockSignals(False)
        if self.moves:
            label = self.moves[self.index].label if self.index >= 0 else ""
            if finished and getattr(self, "outcome", ""):
                label = f"{label} \u00b7 {self.outcome}" if label else self.outcome
            caption = f"{label} \u00b7 {amount}" if label else amount
            before = self.moves[self.index].state if self.index >= 0 else state
            self.position_changed.emit((state, caption, before))
        self._update_buttons()

    def _name(self, s: int) -> str:
        return getattr(self, "_names", {}).get(s, str(s))

    def step(self) -> None:
        if self.index < len(self.moves) - 1:
            self.seek(self.index + 1)
        if self.index >= len(self.moves) - 1:
            self.pause()

    def pause(self) -> None:
        self.timer.stop()
        self.play.blockSignals(True)
        self.play.setChecked(False)
        self.play.setText("Play")
        self.play.blockSignals(False)

    def _on_play(self, on: bool) -> None:
        if on and self.moves:
            if self.index >= len(self.moves) - 1:
                self.seek(-1)
            self.play.setText("Pause")
            self.timer.start()
        else:
            self.pause()

    def _tick(self) -> None:
        self.step()

    def _on_row(self, row: int) -> None:
        if 0 <= row < len(self.moves):
            self.pause()
            self.seek(row)

    def _update_buttons(self) -> None:
        has = bool(self.moves)
        self.play.setEnabled(has)
        self.step_btn.setEnabled(has and self.index < len(self.moves) - 1)
        self.rewind.setEnabled(has and self.index >= 0)
