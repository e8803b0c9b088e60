"""The simulation panel of a board game: outcome bars per matchup with Wilson 95% intervals and the
exact probabilities, and the same numbers in a table (labels and legend from
:mod:`mdpviz.models.kit.boards.position_display`)."""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from mdpviz.models.kit.boards.position import MatchupRow
from mdpviz.models.kit.boards.position_display import (
    AXIS_FONT_PT,
    MAX_NAMED_BARS,
    OUTCOME_COLORS,
    TABLE_HEADER,
    legend_html,
    tick_labels,
)
from mdpviz.widgets import named as _named
from mdpviz.widgets.convergence import RoomyAxis
from mdpviz.widgets.simulation import ResultsPanel


class MatchupPanel(ResultsPanel):
    """The simulation panel of a board game: outcome bars per matchup with 95% CIs and exact marks."""

    NAMES = {"panel": ("matchupPanel", "Matchups"), "games": ("matchupGamesSpin", "Games per matchup"),
             "seed": ("matchupSeedSpin", "Random seed"), "simulate": ("matchupSimulateButton", "Simulate the matchups"),
             "cancel": ("matchupCancelButton", "Cancel the simulation"),
             "progress": ("matchupProgress", "Simulation progress"), "status": ("matchupStatus", "Simulation status"),
             "csv": ("matchupCsvButton", "Export results as CSV"), "plot": ("matchupPlotButton", "Export the bar chart")}

    def __init__(self, parent: QWidget | None = None, *, default_games: int = 10_000) -> None:
        super().__init__(parent, games=default_games)
        split = self.splitter
        # (RoomyAxis: with the grid on, pyqtgraph's own axis left out the "0" at the bottom edge)
        self.plot_widget = _named(pg.PlotWidget(axisItems={"left": RoomyAxis("left")}), "matchupPlot",
                                  "Outcome bars per matchup")
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
        self.rows: tuple[MatchupRow, ...] = ()

    def _clear_plot(self) -> None:
        self.plot.clear()
        self._set_legend("")
        self.table.verticalHeader().setVisible(False)

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
        self._show_done(bool(rows))

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
