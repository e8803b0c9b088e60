"""The Sensitivity panel: when does the optimal policy switch as a setting moves (issue 28, item 2)?

:class:`SensitivityPanel` takes the request (a numeric setting of the shown game, a range, optionally a
second setting for a phase diagram) and draws what the headless jobs of
:mod:`mdpviz.models.kit.teaching.sensitivity` return: V*(start) against the setting over shaded bands, one per
interval on which the optimal policy stays the same (two alternating colours), with the switch points
as vertical lines labelled with their value to 1e-6 and a table of the intervals; or, for two settings,
the phase diagram, each cell coloured by its region (the policy's likely path from the start), each
region lettered on the picture and named in a legend beside it (never over the data).

It only draws and asks: Sweep and Cancel are signals (:attr:`sweep_requested`, :attr:`cancel_requested`),
a click on an interval (on the plot or in the table) is :attr:`interval_clicked`, a click on a cell
of the phase diagram (or a legend entry) is :attr:`cell_clicked`; the window runs the jobs on its
controller and shows the chosen policy on the board.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QIcon, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from mdpviz.models.kit.teaching.sensitivity import PHASE_STEPS, STEPS, Phase, Sensitivity
from mdpviz.models.kit.teaching.sweep_fields import SweepField
from mdpviz.widgets import named as _named
from mdpviz.widgets.convergence import set_axes_font

BAND_COLORS = ("#56b4e9", "#e69f00")
"""The intervals' two alternating band colours (Okabe-Ito sky blue and orange), drawn at :data:`BAND_ALPHA`."""
BAND_ALPHA = 80
"""Opacity (0-255) of an interval's band: the colours stay apart from the back of a room, the curve on top."""
CHOSEN_ALPHA = 170
"""Opacity of the band of the interval shown on the board."""
CURVE_COLOR = "#000000"
SWITCH_COLOR = "#b00020"
"""The switch points' lines and labels (dark red: apart from both band colours)."""
REGION_COLORS = ("#e69f00", "#56b4e9", "#009e73", "#f0e442", "#0072b2", "#d55e00", "#cc79a7", "#999999",
                 "#ffffff", "#000000", "#8c564b", "#bcbd22")
"""Colours of the phase diagram's regions in order (Okabe-Ito's eight first: colour-blind safe), each
region also lettered on the picture."""
LABEL_ROWS = 4
"""The switch points' labels take turns over this many heights, so neighbouring labels do not overlap."""


def region_letter(i: int) -> str:
    """The letter of region ``i`` on the phase diagram and in its legend (A, B, ..., then A2, B2, ...)."""
    return chr(ord("A") + i % 26) + (str(i // 26 + 1) if i >= 26 else "")


def text_on(colour: str) -> str:
    """Black or white, whichever reads better on ``colour``."""
    c = QColor(colour)
    return "#000000" if 0.299 * c.red() + 0.587 * c.green() + 0.114 * c.blue() > 140 else "#ffffff"


def interval_at(result: Sensitivity, x: float) -> int | None:
    """The index of the interval of ``result`` holding parameter value ``x`` (None: outside the range)."""
    for i, iv in enumerate(result.intervals):
        if iv.lo <= x <= iv.hi:
            return i
    return None


def region_anchor(phase: Phase, r: int) -> tuple[int, int]:
    """(column i, row j) of the cell of region ``r`` nearest the region's mean cell: where its letter goes
    and what a click on its legend entry shows."""
    js, is_ = np.nonzero(phase.region == r)
    mj, mi = js.mean(), is_.mean()
    k = int(np.argmin((js - mj) ** 2 + (is_ - mi) ** 2))
    return int(is_[k]), int(js[k])


@dataclass(frozen=True)
class SweepRequest:
    """What the panel asks the window to sweep."""

    param: str
    lo: float
    hi: float
    param2: str | None
    """A second setting (a phase diagram), or None."""
    lo2: float
    hi2: float
    steps: int
    """Grid values (per axis for a phase diagram)."""


class SensitivityPanel(QWidget):
    """The Sensitivity dock's panel (see the module docstring)."""

    sweep_requested = Signal()
    """Sweep was pressed: the window reads :meth:`request` and runs the job."""
    cancel_requested = Signal()
    interval_clicked = Signal(int)
    """An interval of the one-setting sweep was clicked (on the plot or in the table): its index."""
    cell_clicked = Signal(int, int)
    """A cell of the phase diagram was clicked (or a region's legend entry): its column i and row j."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("sensitivityPanel")
        self.fields: tuple[SweepField, ...] = ()
        self.result: Sensitivity | None = None
        """The one-setting sweep shown (None: none)."""
        self.phase: Phase | None = None
        """The phase diagram shown (None: none)."""
        self.chosen: int | None = None
        """The interval shown on the board (its index), or None."""
        self.chosen_cell: tuple[int, int] | None = None
        """The phase diagram's cell shown on the board, or None."""
        self._px = 12
        self._updating = False
        self._label = ""
        """The swept setting's name in words (the plot's x axis)."""
        self._labels = ("", "")
        """The phase diagram's two settings in words (its axes)."""

        # ---- controls (left column)
        self.param = self._combo("sensitivityParam", "Setting to sweep")
        self.lo = self._number("sensitivityFrom", "Range from")
        self.hi = self._number("sensitivityTo", "Range to")
        self.two = _named(QCheckBox("Second"), "sensitivityTwo", "Sweep a second setting: a phase diagram")
        self.two.setToolTip("Sweep a second setting too: a phase diagram of the policy from the start")
        self.param2 = self._combo("sensitivityParam2", "Second setting")
        self.lo2 = self._number("sensitivityFrom2", "Second range from")
        self.hi2 = self._number("sensitivityTo2", "Second range to")
        self.steps = _named(QSpinBox(), "sensitivitySteps", "Grid values")
        self.steps.setRange(2, 401)
        self.steps.setValue(STEPS)
        self.steps.setToolTip("Grid values of the sweep (per axis for a phase diagram); switch points between "
                              "them are then located to 1e-6 by bisection")
        self.sweep_button = _named(QPushButton("Sweep"), "sensitivitySweep", "Sweep")
        self.cancel_button = _named(QPushButton("Cancel"), "sensitivityCancel", "Cancel the sweep")
        self.cancel_button.setEnabled(False)
        self.progress = _named(QProgressBar(), "sensitivityProgress", "Sweep progress")
        self.progress.setTextVisible(True)
        self.progress.hide()
        self.message = _named(QLabel(""), "sensitivityMessage", "Sensitivity message")
        self.message.setWordWrap(True)
        self.error = _named(QLabel(""), "sensitivityError", "Why the sweep was refused")
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #b00020;")
        self.error.hide()

        # two rows of controls above the picture: the dock sits under the board, as wide as it, and the
        # picture needs the height (a column of controls beside it left the plot a third of the width)
        form = QGridLayout()
        form.setContentsMargins(0, 0, 0, 0)
        form.setVerticalSpacing(2)
        for row, widgets in enumerate(((QLabel("Setting"), self.param, QLabel("from"), self.lo, QLabel("to"), self.hi,
                                        QLabel("Steps"), self.steps, self.sweep_button),
                                       (self.two, self.param2, QLabel("from"), self.lo2, QLabel("to"), self.hi2,
                                        None, self.progress, self.cancel_button))):
            for col, w in enumerate(widgets):
                if w is not None:
                    form.addWidget(w, row, col)
        form.setColumnStretch(1, 2)
        form.setColumnStretch(3, 1)
        form.setColumnStretch(5, 1)
        form.setColumnStretch(7, 1)
        controls = QWidget()
        controls.setLayout(form)

        # ---- the one-setting plot and its intervals
        self.plot = _named(pg.PlotWidget(background="w"), "sensitivityPlot", "V* of the start against the setting")
        self.plot.setMenuEnabled(False)
        self.plot.setMouseEnabled(False, False)
        self.plot.hideButtons()
        self.plot.showGrid(x=False, y=True, alpha=0.25)
        for plot in (self.plot,):
            plot.getAxis("bottom").enableAutoSIPrefix(False)  # the setting's own numbers, never "(x0.001)"
            plot.getAxis("left").enableAutoSIPrefix(False)
        self.plot.scene().sigMouseClicked.connect(self._on_plot_click)
        self.plot.scene().sigMouseMoved.connect(self._on_plot_hover)
        self.table = _named(QTableWidget(0, 4), "sensitivityIntervals", "Intervals of the same policy")
        self.table.setHorizontalHeaderLabels(["from", "to", "start", "Δ"])
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.itemSelectionChanged.connect(self._on_table_selection)
        self.table.setToolTip("Each interval of the setting on which the optimal policy stays the same: click "
                              "one to see its policy on the board (start: the start's optimal actions; Δ: the states "
                              "whose optimal actions differ from the interval before)")

        # ---- the phase diagram and its legend
        self.phase_plot = _named(pg.PlotWidget(background="w"), "sensitivityPhase", "Phase diagram")
        self.phase_plot.setMenuEnabled(False)
        self.phase_plot.setMouseEnabled(False, False)
        self.phase_plot.hideButtons()
        for ax in ("bottom", "left"):
            self.phase_plot.getAxis(ax).enableAutoSIPrefix(False)
        self.phase_plot.scene().sigMouseClicked.connect(self._on_phase_click)
        self.phase_plot.scene().sigMouseMoved.connect(self._on_phase_hover)
        self.image = pg.ImageItem()
        self.phase_plot.addItem(self.image)
        self.legend = _named(QListWidget(), "sensitivityLegend", "Regions of the phase diagram")
        self.legend.itemClicked.connect(self._on_legend_click)
        self.legend.setToolTip("Each region: the optimal policy's likely path from the start (click one to see "
                               "its policy on the board)")
        # the picture on the left, its table (or legend) and the notes beside it: the picture keeps the height
        self.views = QStackedWidget()
        self.views.addWidget(self.plot)
        self.views.addWidget(self.phase_plot)
        self.sides = QStackedWidget()
        self.sides.addWidget(self.table)
        self.sides.addWidget(self.legend)

        self.caption = _named(QLabel(""), "sensitivityCaption", "What the board shows")
        self.caption.setWordWrap(True)
        self.message.setWordWrap(True)
        side = QVBoxLayout()
        side.setContentsMargins(0, 0, 0, 0)
        side.addWidget(self.sides, 1)
        side.addWidget(self.message)
        side.addWidget(self.caption)
        below = QHBoxLayout()
        below.setContentsMargins(0, 0, 0, 0)
        below.addWidget(self.views, 5)
        below.addLayout(side, 4)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 2, 4, 2)
        lay.setSpacing(2)
        lay.addWidget(controls)
        lay.addWidget(self.error)
        lay.addLayout(below, 1)

        self.set_caption("")
        self._plot_items: list = []
        self.labelled: list[float] = []
        """The switch points labelled on the plot (those with room; the table lists every one)."""
        self._phase_items: list = []
        self.param.currentIndexChanged.connect(lambda _i: self._field_chosen(self.param, self.lo, self.hi))
        self.param2.currentIndexChanged.connect(lambda _i: self._field_chosen(self.param2, self.lo2, self.hi2))
        self.two.toggled.connect(self._on_two)
        self.sweep_button.clicked.connect(self.sweep_requested)
        self.cancel_button.clicked.connect(self.cancel_requested)
        self._on_two(False)

    @staticmethod
    def _combo(name: str, accessible: str) -> QComboBox:
        box = _named(QComboBox(), name, accessible)
        box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        box.setMinimumContentsLength(6)
        return box

    @staticmethod
    def _number(name: str, accessible: str) -> QDoubleSpinBox:
        box = _named(QDoubleSpinBox(), name, accessible)
        box.setDecimals(4)
        box.setRange(-1e9, 1e9)
        box.setSingleStep(0.05)
        box.setKeyboardTracking(False)
        box.setMinimumWidth(60)
        box.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)  # the grid's stretch decides
        return box

    # ------------------------------------------------------------------ the request
    def set_fields(self, fields: tuple[SweepField, ...], *, note: str = "") -> None:
        """The shown game's numbers that can be swept (``note``: why there are none); a setting chosen
        before stays chosen (its range too) when the new game has it."""
        old = (self.param.currentData(), self.param2.currentData())
        if tuple(fields) == self.fields:
            return
        self.fields = tuple(fields)
        self._updating = True
        for combo in (self.param, self.param2):
            combo.clear()
            for f in self.fields:
                combo.addItem(f.label, f.name)
        self._updating = False
        names = [f.name for f in self.fields]
        self.param.setCurrentIndex(names.index(old[0]) if old[0] in names else 0)
        default2 = next((k for k, n in enumerate(names) if n != self.param.currentData()), 0)
        self.param2.setCurrentIndex(names.index(old[1]) if old[1] in names else default2)
        if self.param.currentData() != old[0]:
            self._field_chosen(self.param, self.lo, self.hi)
        if self.param2.currentData() != old[1]:
            self._field_chosen(self.param2, self.lo2, self.hi2)
        self.two.setEnabled(len(self.fields) >= 2)
        if len(self.fields) < 2:
            self.two.setChecked(False)
        self.sweep_button.setEnabled(bool(self.fields) and not self.cancel_button.isEnabled())
        self.message.setText(note if not self.fields else "")

    def _field_chosen(self, combo: QComboBox, lo: QDoubleSpinBox, hi: QDoubleSpinBox) -> None:
        if self._updating:
            return
        f = next((f for f in self.fields if f.name == combo.currentData()), None)
        if f is not None:
            lo.setValue(f.lo)
            hi.setValue(f.hi)

    def _on_two(self, on: bool) -> None:
        for w in (self.param2, self.lo2, self.hi2):
            w.setEnabled(bool(on))
        self.steps.setValue(PHASE_STEPS if on else STEPS)

    def set_range(self, param: str, lo: float, hi: float, *, second: tuple[str, float, float] | None = None) -> None:
        """Choose the setting and range (and the second one, or none) as a user would."""
        self.param.setCurrentIndex(self.param.findData(param))
        self.lo.setValue(lo)
        self.hi.setValue(hi)
        self.two.setChecked(second is not None)
        if second is not None:
            self.param2.setCurrentIndex(self.param2.findData(second[0]))
            self.lo2.setValue(second[1])
            self.hi2.setValue(second[2])

    def request(self) -> SweepRequest | None:
        """What the controls ask for (None: the game has nothing to sweep)."""
        if not self.fields:
            return None
        two = self.two.isChecked()
        return SweepRequest(str(self.param.currentData()), self.lo.value(), self.hi.value(),
                            str(self.param2.currentData()) if two else None, self.lo2.value(), self.hi2.value(),
                            self.steps.value())

    def label_of(self, name: str) -> str:
        f = next((f for f in self.fields if f.name == name), None)
        return f.label if f is not None else name.replace("_", " ")

    # ------------------------------------------------------------------ running
    def show_error(self, text: str) -> None:
        """Say in one line why a sweep was refused or failed ("" clears it)."""
        self.error.setText(text)
        self.error.setVisible(bool(text))

    def show_running(self, running: bool, text: str = "") -> None:
        self.sweep_button.setEnabled(not running and bool(self.fields))
        self.cancel_button.setEnabled(running)
        self.progress.setVisible(running)
        if running:
            self.progress.setRange(0, 0)
            self.show_error("")
            self.set_caption("")
        if text or running:
            self.message.setText(text)

    def show_progress(self, done: int, total: int, text: str) -> None:
        if total > 0:
            self.progress.setRange(0, total)
            self.progress.setValue(done)
        self.progress.setFormat(f"{text}  %p%" if total > 0 else text)

    def clear(self, text: str = "") -> None:
        """Forget the shown result (``text``: why)."""
        self.result = self.phase = None
        self.chosen = self.chosen_cell = None
        self._draw_sweep()
        self._draw_phase()
        # no axes of a sweep that is gone (a game switch kept the old game's titles and ranges)
        for w in (self.plot, self.phase_plot):
            pi = w.getPlotItem()
            pi.setLabel("bottom", "")
            pi.setLabel("left", "")
            pi.setRange(xRange=(0, 1), yRange=(0, 1), padding=0)
        self.table.setRowCount(0)
        self.legend.clear()
        self.set_caption("")
        self.message.setText(text)

    def set_caption(self, text: str) -> None:
        """What the board shows (which value, which interval or region); the result's note gives it its line."""
        self.caption.setText(text)
        self.caption.setVisible(bool(text))
        self.message.setVisible(not text)

    # ------------------------------------------------------------------ one setting
    def show_sweep(self, result: Sensitivity, *, label: str) -> None:
        """Draw a one-setting sweep (``label``: the setting's name in words, the x axis's title)."""
        self.result, self.phase = result, None
        self.chosen = self.chosen_cell = None
        self._label = label
        self.views.setCurrentIndex(0)
        self.sides.setCurrentIndex(0)
        n = len(result.switch_points)
        start = result.states.index(result.start)
        self.message.setText(f"{label} from {result.xs[0]:g} to {result.xs[-1]:g}: {n} switch point"
                             f"{'s' if n != 1 else ''}, {len(result.intervals)} interval"
                             f"{'s' if len(result.intervals) != 1 else ''} of the same optimal policy "
                             f"(in any state); the start is {result.start}. Click an interval to see its "
                             "policy on the board.")
        self._updating = True
        self.table.clearSelection()
        self.table.setRowCount(len(result.intervals))
        prev = None
        for i, iv in enumerate(result.intervals):
            changed = "" if prev is None else str(sum(a != b for a, b in zip(prev.policy, iv.policy)))
            cells = (f"{iv.lo:.6f}", f"{iv.hi:.6f}", "/".join(iv.policy[start]) or "(ends)", changed)
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c in (0, 1, 3):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(i, c, item)
            self.table.setVerticalHeaderItem(i, QTableWidgetItem(str(i + 1)))
            prev = iv
        self._updating = False
        self._draw_sweep()

    def _draw_sweep(self) -> None:
        pi = self.plot.getPlotItem()
        for item in self._plot_items:
            pi.removeItem(item)
        self._plot_items = []
        res = self.result
        if res is None:
            return
        font = QFont()
        font.setPixelSize(self._px)
        bold = QFont(font)
        bold.setBold(True)
        x0, x1 = float(res.xs[0]), float(res.xs[-1])
        span = x1 - x0
        lo, hi = float(np.min(res.start_values)), float(np.max(res.start_values))
        pad = 0.08 * (hi - lo) if hi > lo else max(1.0, abs(hi)) * 0.1
        bottom, top = lo - pad, hi + 4 * pad  # room above the curve for the labels and the interval numbers
        # the bands as one item and the switch points as one item: the gambler's coin has over a thousand
        ivs = res.intervals
        brushes = []
        for k in range(len(ivs)):
            c = QColor(BAND_COLORS[k % 2])
            c.setAlpha(CHOSEN_ALPHA if k == self.chosen else BAND_ALPHA)
            brushes.append(pg.mkBrush(c))
        bands = pg.BarGraphItem(x0=np.array([iv.lo for iv in ivs]), width=np.array([iv.hi - iv.lo for iv in ivs]),
                                y0=bottom, height=top - bottom, brushes=brushes, pen=pg.mkPen(None))
        bands.setZValue(-10)
        pi.addItem(bands)
        self._plot_items.append(bands)
        sp = np.asarray(res.switch_points, dtype=float)
        if sp.size:
            lines = pg.PlotDataItem(np.repeat(sp, 2), np.tile([bottom, top], sp.size), connect="pairs",
                                    pen=pg.mkPen(SWITCH_COLOR, width=2, style=Qt.PenStyle.DashLine))
            pi.addItem(lines)
            self._plot_items.append(lines)
        # each switch point's value to 1e-6 where there is room: a label takes the first of LABEL_ROWS rows
        # clear of the label before it (the table lists every one)
        width_px = max(200.0, float(pi.vb.width()))
        gap = (5.2 * self._px + 10) / width_px * span
        last = [-np.inf] * LABEL_ROWS
        self.labelled = []
        for x in sp:
            row = next((r for r in range(LABEL_ROWS) if x - last[r] >= gap), None)
            if row is None:
                continue
            last[row] = x
            # centred on its line, or beside it at the plot's ends (a label centred there was cut by the axis)
            ax = 0.0 if x - x0 < gap / 2 else 1.0 if x1 - x < gap / 2 else 0.5
            t = pg.TextItem(f"{x:.6f}", color=SWITCH_COLOR, anchor=(ax, 0.5), fill=pg.mkBrush(255, 255, 255, 225))
            t.setFont(font)
            t.setPos(float(x), top - (0.07 + 0.12 * row) * (top - bottom))
            pi.addItem(t)
            self._plot_items.append(t)
            self.labelled.append(float(x))
        numbered = [k for k, iv in enumerate(ivs) if iv.hi - iv.lo > 0.06 * span]
        for k in numbered[:30]:  # the interval's number low in its band, where there is room
            iv = ivs[k]
            t = pg.TextItem(str(k + 1), color="#000000", anchor=(0.5, 1))
            t.setFont(bold)
            t.setPos(0.5 * (iv.lo + iv.hi), top - 0.52 * (top - bottom))
            pi.addItem(t)
            self._plot_items.append(t)
        curve = pi.plot(res.xs, res.start_values, pen=pg.mkPen(CURVE_COLOR, width=3))
        self._plot_items.append(curve)
        pi.setLabel("bottom", self._label)
        pi.setLabel("left", "V*(start)")
        pi.setYRange(bottom, top, padding=0)
        pi.setXRange(x0, x1, padding=0.01)

    def sweep_text(self, x: float) -> str:
        """What the plot says at parameter value ``x`` (its tooltip there): the interval, the start's actions,
        V*(start) at the nearest grid value."""
        res = self.result
        i = interval_at(res, x) if res is not None else None
        if i is None:
            return ""
        iv = res.intervals[i]
        k = int(np.argmin(np.abs(res.xs - x)))
        start = res.states.index(res.start)
        return (f"{self._label} = {x:.6g}: interval {i + 1} ({iv.lo:.6f} to {iv.hi:.6f}), at the start "
                f"{'/'.join(iv.policy[start]) or '(ends)'}\nV*(start) = {res.start_values[k]:.6g} at "
                f"{self._label} = {res.xs[k]:.6g}")

    def phase_text(self, i: int, j: int) -> str:
        """What the phase diagram says at its cell (i, j) (its tooltip there): the values, the region, V*(start)."""
        ph = self.phase
        r = int(ph.region[j, i])
        name = ph.names[r] if r < len(ph.names) else f"policy {r + 1}"
        return (f"{self._labels[0]} = {ph.xs[i]:.6g}, {self._labels[1]} = {ph.ys[j]:.6g}\n"
                f"region {region_letter(r)}: {name}\nV*(start) = {ph.start_values[j, i]:.6g}")

    def _on_plot_hover(self, pos) -> None:
        vb = self.plot.getPlotItem().vb
        inside = self.result is not None and vb.sceneBoundingRect().contains(pos)
        self.plot.setToolTip(self.sweep_text(float(vb.mapSceneToView(pos).x())) if inside else "")

    def _on_phase_hover(self, pos) -> None:
        vb = self.phase_plot.getPlotItem().vb
        cell = None
        if self.phase is not None and vb.sceneBoundingRect().contains(pos):
            p = vb.mapSceneToView(pos)
            cell = self.cell_at(float(p.x()), float(p.y()))
        self.phase_plot.setToolTip(self.phase_text(*cell) if cell is not None else "")

    def _on_plot_click(self, ev) -> None:
        if self.result is None:
            return
        vb = self.plot.getPlotItem().vb
        if not vb.sceneBoundingRect().contains(ev.scenePos()):
            return
        i = interval_at(self.result, float(vb.mapSceneToView(ev.scenePos()).x()))
        if i is not None:
            self.choose_interval(i)

    def _on_table_selection(self) -> None:
        if self._updating:
            return
        rows = self.table.selectionModel().selectedRows()
        if rows:
            self.choose_interval(rows[0].row())

    def choose_interval(self, i: int) -> None:
        """Interval ``i`` was clicked: drawn as chosen, and :attr:`interval_clicked` asks the window to show it."""
        if self.result is None or not 0 <= i < len(self.result.intervals):
            return
        self.mark_interval(i)
        self.interval_clicked.emit(i)

    def mark_interval(self, i: int | None) -> None:
        """Draw interval ``i`` as the one on the board (None: none)."""
        self.chosen = i
        self._updating = True
        if i is None:
            self.table.clearSelection()
        else:
            self.table.selectRow(i)
        self._updating = False
        self._draw_sweep()

    # ------------------------------------------------------------------ two settings
    def show_phase(self, phase: Phase, *, labels: tuple[str, str]) -> None:
        """Draw a phase diagram (``labels``: the two settings' names in words, the axes' titles)."""
        self.phase, self.result = phase, None
        self.chosen = self.chosen_cell = None
        self._labels = labels
        self.views.setCurrentIndex(1)
        self.sides.setCurrentIndex(1)
        self.message.setText(f"{len(phase.regions)} region{'s' if len(phase.regions) != 1 else ''}: the optimal "
                             "policy's likely path from the start; click one to see its policy on the board.")
        self.legend.clear()
        names = phase.names or tuple(f"policy {k + 1}" for k in range(len(phase.regions)))
        for r, name in enumerate(names):
            colour = REGION_COLORS[r % len(REGION_COLORS)]
            pix = QPixmap(18, 18)
            pix.fill(QColor(colour))
            icon = QIcon(pix)
            icon.addPixmap(pix, QIcon.Mode.Selected)  # the region's own colour when chosen, not tinted
            item = QListWidgetItem(icon, f"{region_letter(r)}  {name}")
            item.setData(Qt.ItemDataRole.UserRole, r)
            item.setToolTip("; ".join(f"{s} {'/'.join(a)}" for s, a in phase.regions[r].items()))
            self.legend.addItem(item)
        self._draw_phase()

    def _cell_rect(self) -> tuple[float, float, float, float]:
        ph = self.phase
        dx = float(ph.xs[1] - ph.xs[0]) if len(ph.xs) > 1 else 1.0
        dy = float(ph.ys[1] - ph.ys[0]) if len(ph.ys) > 1 else 1.0
        return float(ph.xs[0]) - dx / 2, float(ph.ys[0]) - dy / 2, dx, dy

    def _draw_phase(self) -> None:
        pi = self.phase_plot.getPlotItem()
        for item in self._phase_items:
            pi.removeItem(item)
        self._phase_items = []
        ph = self.phase
        if ph is None:
            self.image.clear()
            return
        lut = np.array([[QColor(c).red(), QColor(c).green(), QColor(c).blue()] for c in REGION_COLORS], dtype=np.uint8)
        rgb = lut[ph.region % len(REGION_COLORS)]  # (rows j, columns i, 3)
        self.image.setImage(np.transpose(rgb, (1, 0, 2)), levels=(0, 255))  # ImageItem: [x, y]
        x0, y0, dx, dy = self._cell_rect()
        self.image.setRect(QRectF(x0, y0, dx * len(ph.xs), dy * len(ph.ys)))
        font = QFont()
        font.setPixelSize(int(self._px * 1.3))
        font.setBold(True)
        for r in range(len(ph.regions)):
            i, j = region_anchor(ph, r)
            colour = REGION_COLORS[r % len(REGION_COLORS)]
            # inside the picture at its edges (a strip one cell high along the top was lettered half outside)
            anchor = (0.0 if i == 0 else 1.0 if i == len(ph.xs) - 1 else 0.5,
                      0.0 if j == len(ph.ys) - 1 else 1.0 if j == 0 else 0.5)
            t = pg.TextItem(region_letter(r), color=text_on(colour), anchor=anchor)
            t.setFont(font)
            t.setPos(float(ph.xs[i]), float(ph.ys[j]))
            pi.addItem(t)
            self._phase_items.append(t)
        if self.chosen_cell is not None:
            i, j = self.chosen_cell
            mark = pg.ScatterPlotItem([float(ph.xs[i])], [float(ph.ys[j])], size=max(14, self._px * 1.2),
                                      symbol="o", pen=pg.mkPen("#000000", width=3), brush=pg.mkBrush(255, 255, 255, 160))
            pi.addItem(mark)
            self._phase_items.append(mark)
        pi.setLabel("bottom", self._labels[0])
        pi.setLabel("left", self._labels[1])
        pi.setXRange(x0, x0 + dx * len(ph.xs), padding=0)
        pi.setYRange(y0, y0 + dy * len(ph.ys), padding=0)

    def cell_at(self, x: float, y: float) -> tuple[int, int] | None:
        """The phase diagram's cell (column i, row j) at parameter values (x, y), or None outside it."""
        ph = self.phase
        if ph is None:
            return None
        x0, y0, dx, dy = self._cell_rect()
        i, j = int(np.floor((x - x0) / dx)), int(np.floor((y - y0) / dy))
        if 0 <= i < len(ph.xs) and 0 <= j < len(ph.ys):
            return i, j
        return None

    def _on_phase_click(self, ev) -> None:
        if self.phase is None:
            return
        vb = self.phase_plot.getPlotItem().vb
        if not vb.sceneBoundingRect().contains(ev.scenePos()):
            return
        p: QPointF = vb.mapSceneToView(ev.scenePos())
        cell = self.cell_at(float(p.x()), float(p.y()))
        if cell is not None:
            self.choose_cell(*cell)

    def _on_legend_click(self, item: QListWidgetItem) -> None:
        self.choose_region(int(item.data(Qt.ItemDataRole.UserRole)))

    def choose_region(self, r: int) -> None:
        """Region ``r``'s legend entry was clicked: its lettered cell (:func:`region_anchor`) is chosen."""
        if self.phase is not None and 0 <= r < len(self.phase.regions):
            self.choose_cell(*region_anchor(self.phase, r))

    def choose_cell(self, i: int, j: int) -> None:
        """Cell (i, j) of the phase diagram was clicked: marked, and :attr:`cell_clicked` asks the window to show it."""
        if self.phase is None:
            return
        self.mark_cell((i, j))
        self.cell_clicked.emit(i, j)

    def mark_cell(self, cell: tuple[int, int] | None) -> None:
        """Mark the phase diagram's cell shown on the board (None: none) and select its region's legend entry."""
        self.chosen_cell = cell
        if cell is not None and self.phase is not None:
            self.legend.setCurrentRow(int(self.phase.region[cell[1], cell[0]]))
        self._draw_phase()

    # ------------------------------------------------------------------ presenter mode
    def set_font_size(self, px: int) -> None:
        """Axis, label and marker text size in pixels (presenter mode)."""
        self._px = int(px)
        set_axes_font((self.plot.getPlotItem(), self.phase_plot.getPlotItem()), px)
        self._draw_sweep()
        if self.phase is not None:
            self._draw_phase()


__all__ = ["SensitivityPanel", "SweepRequest", "interval_at", "region_anchor", "region_letter"]
