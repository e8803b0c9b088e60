"""The bandit testbed's dock (issue 39; Sutton and Barto ch. 2): controls and three plots that only draw.

* :class:`ArmBars`: run 1's arms as bars: the true values q*(a) as outlined bars, the method's current
  estimates as filled bars with their uncertainty (+- one standard error, or posterior standard deviation),
  the pull counts written above, the last pulled arm in orange;
* :class:`TestbedCurves`: figure 2.2: the average reward and the % optimal action over the steps, one line per
  finished run of a method (several at once), and for Bernoulli arms the cumulative regret against the exact
  Bayes-optimal policy;
* :class:`StudyPlot`: figure 2.6: the average reward over the first steps against each method's parameter on a
  log2 axis (1/128 ... 4);
* :class:`BanditPanel`: the controls (the testbed, the method and its parameters from its registry line, runs,
  steps, seed; Step, Run, Figure 2.2, Parameter study, Cancel) beside the plots' tabs. It emits requests; the
  window's bandit part (:mod:`mdpviz.window.bandit`) runs them (jobs through the controller) and hands back the
  snapshots and results to draw.

The plots share issue 37's plot base (the legend in a row above the data, ``set_font_size`` for presenter mode).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from mdpviz.solvers import registry
from mdpviz.solvers.bandits import KIND, BanditStep, ParameterStudy, Testbed, TestbedResult
from mdpviz.widgets.convergence import IntegerAxis, RoomyAxis
from mdpviz.widgets.policy_gradient import _PGPlot

TRUE_COLOR, ESTIMATE_COLOR, LAST_COLOR = "#444444", "#0072b2", "#e69f00"
"""The true values' outlines (dark grey: the truth), the estimates (blue), the last pulled arm (orange)."""
EXTRA_COLORS = ("#56b4e9", "#f0e442", "#999999", "#882255", "#117733")
"""Colours of further curves of one method (a second epsilon...), after the method's own registry colour."""
MAX_COUNT_LABELS = 20
"""Up to this many arms the bars carry their pull counts as text."""
PEN_STYLES = {"solid": Qt.PenStyle.SolidLine, "dash": Qt.PenStyle.DashLine, "dot": Qt.PenStyle.DotLine,
              "dashdot": Qt.PenStyle.DashDotLine}


def fraction_label(x: float) -> str:
    """A power of two as the book's axis writes it: 1/128, 1/4, 1, 2, 4."""
    if x >= 1 or x <= 0:
        return f"{x:g}"
    inv = 1.0 / x
    return f"1/{inv:.0f}" if abs(inv - round(inv)) < 1e-9 else f"{x:g}"


def curve_style(method: str, nth: int = 0) -> tuple[str, Qt.PenStyle, str]:
    """(colour, pen style, symbol) of the ``nth`` curve of ``method``: its registry line's curve for the first,
    further colours for the next ones (figure 2.2's three epsilons)."""
    spec = registry.find(method)
    colour, style, symbol = (spec.curve if spec is not None and spec.curve else ("#000000", "solid", "o"))
    if nth:
        colour = EXTRA_COLORS[(nth - 1) % len(EXTRA_COLORS)]
        style = ("dash", "dot", "dashdot", "solid")[(nth - 1) % 4]
    return colour, PEN_STYLES[style], symbol


def result_label(res: TestbedResult, varied: Sequence[str] = ()) -> str:
    """A curve's legend text: the method's short name, then its parameters named in ``varied`` (those that differ
    between the curves of this method shown together) and any other that differs from its default
    ("ε-greedy ε=0.01", "gradient baseline=off")."""
    spec = registry.get(res.method)
    shown = [f"{_greek(p.name)}={_short(res.options.get(p.name))}" for p in spec.params
             if p.name in varied or res.options.get(p.name) != p.default]
    return " ".join([spec.short_title, *shown])


def varied_params(results: Sequence[TestbedResult]) -> dict[str, tuple[str, ...]]:
    """Per method, the parameters whose values differ between its ``results`` (figure 2.2's epsilon)."""
    out: dict[str, tuple[str, ...]] = {}
    for method in dict.fromkeys(r.method for r in results):
        mine = [r.options for r in results if r.method == method]
        out[method] = tuple(p.name for p in registry.get(method).params if len({repr(o.get(p.name)) for o in mine}) > 1)
    return out


def _greek(name: str) -> str:
    return {"epsilon": "\u03b5", "alpha": "\u03b1", "initial": "Q\u2081"}.get(name, name)


def _short(v: Any) -> str:
    if v is None:
        return "1/n"
    if isinstance(v, bool):
        return "on" if v else "off"
    return f"{v:g}" if isinstance(v, float) else str(v)


class ArmBars(_PGPlot):
    """Run 1's arms: true values, estimates with uncertainty, pull counts, the last pull."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("banditArms", "Bandit arms", "run 1's arms: true values as outlined bars, the current "
                         "estimates as filled bars with +- one standard error, pull counts above, the last pull "
                         "in orange", bottom=IntegerAxis("bottom"), parent=parent)
        self.plot.setLabel("bottom", "arm")
        self.plot.setLabel("left", "value")
        self.true_bars = pg.BarGraphItem(x=[], height=[], width=0.8, brush=None, pen=pg.mkPen(TRUE_COLOR, width=2))
        self.est_bars = pg.BarGraphItem(x=[], height=[], width=0.45, brush=ESTIMATE_COLOR, pen=None)
        self.last_bar = pg.BarGraphItem(x=[], height=[], width=0.45, brush=LAST_COLOR, pen=None)
        self.errors = pg.ErrorBarItem(x=np.zeros(0), y=np.zeros(0), height=np.zeros(0), beam=0.15,
                                      pen=pg.mkPen("k", width=1.5))
        for item in (self.true_bars, self.est_bars, self.last_bar, self.errors):
            self.plot.addItem(item)
        self.zero = pg.InfiniteLine(pos=0, angle=0, pen=pg.mkPen("#888888", width=1))
        self.plot.addItem(self.zero)
        self.count_items: list[pg.TextItem] = []
        self.snapshot: BanditStep | None = None
        self._set_legend([(pg.BarGraphItem(x=[0], height=[1], width=1, brush=None, pen=pg.mkPen(TRUE_COLOR, width=2)),
                           "true value q*(a)"),
                          (pg.BarGraphItem(x=[0], height=[1], width=1, brush=ESTIMATE_COLOR, pen=None),
                           "estimate \u00b1 1 s.e. (pulls above)"),
                          (pg.BarGraphItem(x=[0], height=[1], width=1, brush=LAST_COLOR, pen=None), "last pull")])
        self._axes_values(False)

    def clear(self) -> None:
        """No run: empty axes."""
        self.snapshot = None
        for item in (self.true_bars, self.est_bars, self.last_bar):
            item.setOpts(x=[], height=[])
        self.errors.setData(x=np.zeros(0), y=np.zeros(0), height=np.zeros(0))
        for t in self.count_items:
            self.plot.removeItem(t)
        self.count_items = []
        self._axes_values(False)

    def show_step(self, s: BanditStep) -> None:
        """Draw snapshot ``s`` (run 1's arms after step ``s.step``)."""
        self.snapshot = s
        k = s.true_values.shape[0]
        x = np.arange(1, k + 1, dtype=float)
        est = np.where(np.isfinite(s.estimates), s.estimates, 0.0)
        self.true_bars.setOpts(x=x, height=s.true_values)
        others = np.arange(k) != s.last_arm
        self.est_bars.setOpts(x=x[others], height=est[others])
        self.last_bar.setOpts(x=[x[s.last_arm]], height=[est[s.last_arm]])
        ok = np.isfinite(s.uncertainty)
        self.errors.setData(x=x[ok], y=est[ok], height=2 * s.uncertainty[ok])
        for t in self.count_items:
            self.plot.removeItem(t)
        self.count_items = []
        lo = min(0.0, float(np.min(s.true_values)), float(np.min(est - np.where(ok, s.uncertainty, 0))))
        hi = max(0.0, float(np.max(s.true_values)), float(np.max(est + np.where(ok, s.uncertainty, 0))))
        bottom = lo - 0.05 * (hi - lo or 1.0)
        top = hi + 0.05 * (hi - lo or 1.0)
        if k <= MAX_COUNT_LABELS:
            # a row for the counts at the top, as tall as their text: its share of the view's pixel height
            f = QFont()
            f.setPixelSize(max(11, int(self.px * 0.85)))
            h_px = max(self.plot.getViewBox().sceneBoundingRect().height(), 60.0)
            share = min(0.4, (QFontMetrics(f).height() + 6) / h_px)
            top = (top - share * bottom) / (1 - share)
            for i in range(k):
                t = pg.TextItem(f"{int(s.counts[i])}", color="k", anchor=(0.5, 0.0))
                t.setFont(f)
                t.setPos(x[i], top)
                self.plot.addItem(t)
                self.count_items.append(t)
        self.plot.setYRange(bottom, top, padding=0)
        self.plot.setXRange(0.4, k + 0.6, padding=0)
        self._axes_values(True)

    def _restyle(self) -> None:
        if self.snapshot is not None:
            self.show_step(self.snapshot)


GLYPHS = {Qt.PenStyle.SolidLine: "\u2501\u2501", Qt.PenStyle.DashLine: "\u254d\u254d",
          Qt.PenStyle.DotLine: "\u2509\u2509", Qt.PenStyle.DashDotLine: "\u2501\u2509"}
"""A line's sample in the HTML legend, by pen style."""


def legend_html(entries: Sequence[tuple[str, tuple[str, Qt.PenStyle, str]]]) -> str:
    """One legend for the panels side by side: each entry's line sample in its colour, then its text."""
    from html import escape

    return " &nbsp;&nbsp; ".join(f'<span style="color:{c}; font-weight:bold">{GLYPHS.get(pen, GLYPHS[Qt.PenStyle.SolidLine])}</span>'
                                 f"&nbsp;{escape(text)}" for text, (c, pen, _sym) in entries)


class _LabelledPlot(_PGPlot):
    """A plot whose left axis shows its long name where the plot is tall enough, else its short one."""

    ylabels: tuple[str, str] = ("", "")
    """The left axis's name, and the shorter one a short plot shows."""

    def resizeEvent(self, ev) -> None:  # noqa: N802
        super().resizeEvent(ev)
        self._fit_ylabel()

    def _fit_ylabel(self) -> None:
        """The long name of the left axis where the plot is tall enough for it (with an em to spare at each end),
        else the short one: never a cut name."""
        long, short = self.ylabels
        if not long:  # (a resize while the plot is built)
            return
        room = self.plot.getViewBox().sceneBoundingRect().height() or self.plot.height() * 0.7
        f = QFont()
        f.setPixelSize(self.px)
        fits = QFontMetrics(f).horizontalAdvance(long) + 2 * self.px < room or not short
        self.plot.setLabel("left", long if fits else short)


class _CurvePlot(_LabelledPlot):
    """One of figure 2.2's panels: a value per step, one line per result."""

    def __init__(self, name: str, accessible: str, description: str, ylabel: str, *, short: str = "",
                 percent: bool = False, parent: QWidget | None = None) -> None:
        super().__init__(name, accessible, description, bottom=IntegerAxis("bottom"), parent=parent)
        self.ylabels = (ylabel, short)
        self.plot.setLabel("left", ylabel)
        self.plot.setLabel("bottom", "steps")
        self.percent = percent
        self.lines: list[pg.PlotDataItem] = []
        self._axes_values(False)

    def show_lines(self, lines: Sequence[tuple[np.ndarray, str, tuple[str, Qt.PenStyle, str]]]) -> None:
        """Draw ``lines``: (values per step from step 1, legend text, (colour, pen style, symbol))."""
        for item in self.lines:
            self.plot.removeItem(item)
        self.lines = []
        for y, _text, (colour, style, _symbol) in lines:
            y = np.asarray(y, dtype=float) * (100.0 if self.percent else 1.0)
            item = self.plot.plot(np.arange(1, y.shape[0] + 1), y, pen=pg.mkPen(colour, width=self.line_width, style=style))
            self.lines.append(item)
        self._set_legend([])  # (one legend above the panels: :class:`TestbedCurves`)
        self._axes_values(bool(lines))
        if self.percent:
            self.plot.setYRange(0, 100, padding=0.02)
        else:
            self.plot.enableAutoRange(axis="y")
        self.plot.enableAutoRange(axis="x")

    def _restyle(self) -> None:
        self._fit_ylabel()
        for item in self.lines:
            pen = item.opts["pen"]
            pen = pg.mkPen(pen)
            pen.setWidthF(self.line_width)
            item.setPen(pen)


class TestbedCurves(QWidget):
    """Figure 2.2 (average reward, % optimal action over steps) and, with Bernoulli arms, the cumulative regret
    against the Bayes-optimal policy: one line per result shown."""

    __test__ = False  # (not a pytest class)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("banditCurves")
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(0)
        self.legend = QLabel("", objectName="banditCurvesLegend", wordWrap=True)
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.legend.setStyleSheet("background: white; padding: 2px 6px;")
        self.legend.setAccessibleName("Curves legend")
        outer.addWidget(self.legend)
        row = QWidget()
        lay = QHBoxLayout(row)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        outer.addWidget(row, 1)
        self.reward = _CurvePlot("banditRewardCurve", "Average reward curve",
                                 "the reward at each step averaged over the runs (figure 2.2, top)", "average reward",
                                 short="avg reward")
        self.optimal = _CurvePlot("banditOptimalCurve", "Optimal action curve",
                                  "the percentage of runs pulling an optimal arm at each step (figure 2.2, bottom)",
                                  "% optimal action", short="% optimal", percent=True)
        self.regret = _CurvePlot("banditRegretCurve", "Regret curve",
                                 "the cumulative regret against the exact Bayes-optimal policy (Bernoulli arms)",
                                 "cumulative regret", short="regret")
        for w in (self.reward, self.optimal, self.regret):
            lay.addWidget(w)
        self.regret.hide()
        self.results: list[TestbedResult] = []

    def show_results(self, results: Sequence[TestbedResult], *, running: BanditStep | None = None) -> None:
        """Draw ``results`` (in order; a method's second result gets the next colour) and, when given, the
        stepped run's curves so far (``running``, drawn dashed in its method's colour)."""
        self.results = list(results)
        seen: dict[str, int] = {}
        varied = varied_params(self.results)
        rows = []
        for res in self.results:
            nth = seen.get(res.method, 0)
            seen[res.method] = nth + 1
            rows.append((res, result_label(res, varied[res.method]), curve_style(res.method, nth)))
        lines_r = [(r.average_reward, text, style) for r, text, style in rows]
        lines_o = [(r.optimal_action, text, style) for r, text, style in rows]
        lines_g = [(np.cumsum(r.regret), text, style) for r, text, style in rows if r.regret is not None]
        if running is not None:
            colour, _style, symbol = curve_style(running.method)
            text = f"{registry.get(running.method).short_title}, stepping (step {running.step})"
            lines_r.append((running.average_reward, text, (colour, Qt.PenStyle.DashLine, symbol)))
            lines_o.append((running.optimal_action, text, (colour, Qt.PenStyle.DashLine, symbol)))
        self.reward.show_lines(lines_r)
        self.optimal.show_lines(lines_o)
        self.regret.show_lines(lines_g)
        self.regret.setVisible(bool(lines_g))
        self.legend.setText(legend_html([(text, style) for _y, text, style in lines_r]))
        self.legend.setVisible(bool(lines_r))

    def set_font_size(self, px: int) -> None:
        for w in (self.reward, self.optimal, self.regret):
            w.set_font_size(px)
        f = self.legend.font()
        f.setPixelSize(int(px))
        self.legend.setFont(f)


class Log2Axis(RoomyAxis):
    """An axis of log2(x) whose ticks are whole powers of two, written as the book writes them (1/128 ... 4)."""

    def tickValues(self, minVal, maxVal, size):  # noqa: N802, N803 (pyqtgraph's names)
        lo, hi = math.ceil(minVal - 1e-9), math.floor(maxVal + 1e-9)
        return [(1.0, [float(v) for v in range(lo, hi + 1)])]

    def tickStrings(self, values, scale, spacing):  # noqa: N802
        return [fraction_label(2.0 ** v) for v in values]


class StudyPlot(_LabelledPlot):
    """Figure 2.6: the average reward over the first steps against each method's parameter (log2 axis)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("banditStudy", "Parameter study", "figure 2.6: the average reward over the first steps "
                         "against each method's parameter, epsilon, alpha, c or Q0, on a log axis",
                         bottom=Log2Axis("bottom"), parent=parent)
        self.plot.setLabel("bottom", "\u03b5   \u03b1   c   Q\u2080")
        self.ylabels = ("average reward", "avg reward")
        self.plot.setLabel("left", "average reward")
        self.lines: list[pg.PlotDataItem] = []
        self.study: ParameterStudy | None = None
        self._axes_values(False)

    def show_study(self, study: ParameterStudy | None) -> None:
        """Draw ``study`` (None: clear)."""
        self.study = study
        for item in self.lines:
            self.plot.removeItem(item)
        self.lines = []
        entries = []
        for c in (study.curves if study is not None else ()):
            colour, style, symbol = curve_style(c.method)
            item = self.plot.plot(np.log2(c.values), c.average_reward, pen=pg.mkPen(colour, width=self.line_width, style=style),
                                  symbol=symbol, symbolSize=max(7, self.px // 2), symbolBrush=colour, symbolPen=None)
            self.lines.append(item)
            entries.append((item, f"{registry.get(c.method).short_title} ({_greek(c.param)})"))
        self._set_legend(entries)
        self._axes_values(bool(entries))
        if study is not None:
            self.plot.setLabel("bottom", f"\u03b5   \u03b1   c   Q\u2080   (average reward over the first {study.steps:,} "
                               f"steps, {study.runs:,} runs a point)")

    def _restyle(self) -> None:
        self._fit_ylabel()
        self.show_study(self.study)


@dataclass(frozen=True)
class BanditRequest:
    """What the panel asks to run: the testbed, the method and its options, runs, steps, seed."""

    testbed: Testbed
    method: str
    options: dict
    runs: int
    steps: int
    seed: int


class ParamFields(QWidget):
    """One field per parameter of a bandit method's registry line (a check box for a bool, a text field for a
    number: empty means the default, e.g. sample averages for alpha)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.form = QFormLayout(self)
        self.form.setContentsMargins(0, 0, 0, 0)
        self.fields: dict[str, QWidget] = {}
        self.method = ""

    def set_method(self, method: str) -> None:
        """The fields of ``method``'s parameters, at their defaults."""
        if method == self.method:
            return
        self.method = method
        while self.form.rowCount():
            self.form.removeRow(0)
        self.fields = {}
        for p in registry.get(method).params:
            if p.type is bool:
                w: QWidget = QCheckBox()
                w.setChecked(bool(p.default))
            else:
                w = QLineEdit()
                w.setPlaceholderText("1/n (sample averages)" if p.default is None else f"{p.default:g}")
            w.setObjectName(f"bandit_{p.name}")
            w.setAccessibleName(p.name)
            w.setToolTip(p.help)
            self.fields[p.name] = w
            self.form.addRow(_greek(p.name) if p.name != "initial" else "Q\u2081", w)

    def set_value(self, name: str, value: Any) -> None:
        """Type ``value`` into field ``name`` (tests and the pictures drive the panel this way)."""
        w = self.fields[name]
        if isinstance(w, QCheckBox):
            w.setChecked(bool(value))
        else:
            w.setText("" if value is None else f"{value:g}")

    def options(self) -> dict[str, Any]:
        """The options typed; ValueError naming a field that is not a number."""
        out: dict[str, Any] = {}
        for name, w in self.fields.items():
            if isinstance(w, QCheckBox):
                out[name] = w.isChecked()
                continue
            text = w.text().strip()
            if not text:
                continue
            try:
                v = float(text)
            except ValueError:
                raise ValueError(f"{name}: {text!r} is not a number") from None
            if not math.isfinite(v):
                raise ValueError(f"{name}: {text!r} is not a finite number")
            out[name] = v
        return out


class BanditPanel(QWidget):
    """The bandit dock's panel: the controls beside the tabs of the three plots (see the module docstring)."""

    step_requested = Signal()
    """Step: one pull of every run of the chosen method (the part keeps the generator)."""
    run_requested = Signal()
    """Run: the chosen method, all its steps, as a job; its curves join the ones shown."""
    figure_requested = Signal()
    """Figure 2.2: epsilon-greedy at epsilon 0, 0.01 and 0.1, as a job."""
    study_requested = Signal()
    """The parameter study (figure 2.6), as a job."""
    cancel_requested = Signal()
    clear_requested = Signal()
    settings_changed = Signal()
    """The testbed, method or its options changed (the part drops its stepped run)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("banditPanel")
        outer = QHBoxLayout(self)
        outer.setContentsMargins(4, 4, 4, 4)
        controls = QWidget()
        grid = QGridLayout(controls)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setVerticalSpacing(3)
        self.arms = QSpinBox(objectName="banditArmsCount", minimum=2, maximum=100, value=10)
        self.kind = QComboBox(objectName="banditKind")
        self.kind.addItems(["Gaussian", "Bernoulli"])
        self.kind.setToolTip("Gaussian: q* ~ N(mean, 1), rewards N(q*, 1); Bernoulli: p ~ Beta(1, 1), rewards 0 or 1")
        self.mean = QDoubleSpinBox(objectName="banditMean", minimum=-100.0, maximum=100.0, value=0.0, singleStep=1.0)
        self.mean.setToolTip("mean of the Gaussian arms' true values (4 in figure 2.5)")
        self.drift = QDoubleSpinBox(objectName="banditDrift", minimum=0.0, maximum=10.0, value=0.0, singleStep=0.01,
                                    decimals=3)
        self.drift.setToolTip("each true value takes an N(0, drift) step every step (exercise 2.5)")
        self.method = QComboBox(objectName="banditMethod")
        for spec in registry.specs(KIND):
            self.method.addItem(spec.title, spec.id)
        self.method.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.method.setMinimumContentsLength(16)  # (a long title is elided, never widens the dock)
        self.params = ParamFields()
        self.runs = QSpinBox(objectName="banditRuns", minimum=1, maximum=20000, value=2000, singleStep=100)
        self.steps = QSpinBox(objectName="banditSteps", minimum=1, maximum=100000, value=1000, singleStep=100)
        self.seed = QSpinBox(objectName="banditSeed", minimum=0, maximum=2 ** 31 - 1, value=0)
        for w, name in ((self.arms, "arms"), (self.kind, "arm kind"), (self.mean, "mean"), (self.drift, "drift"),
                        (self.method, "method"), (self.runs, "runs"), (self.steps, "steps"), (self.seed, "seed")):
            w.setAccessibleName(name)
        self.prior = QLineEdit("1, 1", objectName="banditPrior", enabled=False)
        self.prior.setToolTip("Bernoulli arms: each p ~ Beta(a, b), written a, b (Thompson sampling, the Bayes-optimal "
                              "policy and the regret use it too)")
        self.equal_start = QCheckBox("start equal", objectName="banditEqualStart")
        self.equal_start.setToolTip("every true value starts equal, then drifts (exercise 2.5)")
        for w, name in ((self.prior, "prior"), (self.equal_start, "start equal")):
            w.setAccessibleName(name)
        rows = (("arms", self.arms, "runs", self.runs), ("arms are", self.kind, "steps", self.steps),
                ("mean", self.mean, "seed", self.seed), ("drift", self.drift, "prior", self.prior))
        for r, (l1, w1, l2, w2) in enumerate(rows):
            grid.addWidget(QLabel(l1), r, 0)
            grid.addWidget(w1, r, 1)
            if l2:
                grid.addWidget(QLabel(l2), r, 2)
                grid.addWidget(w2, r, 3)
        grid.addWidget(self.equal_start, 4, 1, 1, 3)
        grid.addWidget(QLabel("method"), 5, 0)
        grid.addWidget(self.method, 5, 1, 1, 3)
        grid.addWidget(self.params, 6, 0, 1, 4)
        self.step = QPushButton("Step", objectName="banditStep", toolTip="one pull of every run (the bars: run 1)")
        self.run = QPushButton("Run", objectName="banditRun", toolTip="the method over all the runs and steps: "
                               "its curves join the ones shown")
        self.figure = QPushButton("Figure 2.2", objectName="banditFigure",
                                  toolTip="epsilon-greedy at epsilon 0, 0.01 and 0.1 (the book's figure 2.2)")
        self.study = QPushButton("Parameter study", objectName="banditStudyButton",
                                 toolTip="figure 2.6: each method's average reward over the steps against its parameter")
        self.clear_button = QPushButton("Clear", objectName="banditClear", toolTip="forget the curves shown")
        self.cancel = QPushButton("Cancel", objectName="banditCancel", enabled=False)
        buttons = QGridLayout()
        for i, b in enumerate((self.step, self.run, self.figure, self.study, self.clear_button, self.cancel)):
            b.setAccessibleName(b.text())
            buttons.addWidget(b, i // 3, i % 3)
        grid.addLayout(buttons, 7, 0, 1, 4)
        self.progress = QProgressBar(objectName="banditProgress", minimum=0, maximum=100, value=0, visible=False)
        grid.addWidget(self.progress, 8, 0, 1, 4)
        self.message = QLabel("", objectName="banditMessage", wordWrap=True)
        grid.addWidget(self.message, 9, 0, 1, 4)
        grid.setRowStretch(10, 1)
        self.controls = QScrollArea(objectName="banditControls")
        self.controls.setWidget(controls)
        self.controls.setWidgetResizable(True)
        self.controls.setMinimumWidth(120)  # (never widens the window: the dock sits between the side docks)
        self._controls_body = controls
        self._fit_controls()
        outer.addWidget(self.controls)
        self.tabs = QTabWidget(objectName="banditTabs")
        self.tabs.setMinimumWidth(200)
        self.toggle = QPushButton("Hide controls", objectName="banditControlsToggle", checkable=True)
        self.toggle.setToolTip("Hide the controls to give the plots the dock's whole width (click again to show them)")
        self.toggle.setAccessibleName("Hide controls")
        self.toggle.toggled.connect(self.set_controls_hidden)
        self.tabs.setCornerWidget(self.toggle, Qt.Corner.TopRightCorner)
        self.bars = ArmBars()
        self.last = QLabel("", objectName="banditLastPull", wordWrap=True)
        arms_page = QWidget()
        v = QVBoxLayout(arms_page)
        v.setContentsMargins(0, 0, 0, 0)
        v.addWidget(self.bars, 1)
        v.addWidget(self.last)
        self.curves = TestbedCurves()
        self.study_plot = StudyPlot()
        self.tabs.addTab(arms_page, "Arms (run 1)")
        self.tabs.addTab(self.curves, "Curves (figure 2.2)")
        self.tabs.addTab(self.study_plot, "Parameter study (figure 2.6)")
        outer.addWidget(self.tabs, 1)
        self.method.currentIndexChanged.connect(self._method_changed)
        self.kind.currentIndexChanged.connect(self._kind_changed)
        for w in (self.arms, self.mean, self.drift, self.runs, self.steps, self.seed):
            w.valueChanged.connect(lambda _v: self.settings_changed.emit())
        self.prior.editingFinished.connect(self.settings_changed)
        self.equal_start.toggled.connect(lambda _on: self.settings_changed.emit())
        self.step.clicked.connect(self.step_requested)
        self.run.clicked.connect(self.run_requested)
        self.figure.clicked.connect(self.figure_requested)
        self.study.clicked.connect(self.study_requested)
        self.cancel.clicked.connect(self.cancel_requested)
        self.clear_button.clicked.connect(self.clear_requested)
        self._method_changed()

    def _method_changed(self) -> None:
        self.params.set_method(self.method_id)
        for w in self.params.fields.values():
            (w.toggled if isinstance(w, QCheckBox) else w.editingFinished).connect(self.settings_changed)
        self.settings_changed.emit()

    def _kind_changed(self) -> None:
        self.mean.setEnabled(self.kind.currentIndex() == 0)
        self.prior.setEnabled(self.kind.currentIndex() == 1)
        self.settings_changed.emit()

    @property
    def method_id(self) -> str:
        return str(self.method.currentData())

    def set_method(self, method: str) -> None:
        """Choose ``method`` (a registry id of kind "bandit")."""
        i = self.method.findData(registry.get(method).id)
        self.method.setCurrentIndex(i)

    def testbed(self) -> Testbed:
        """The testbed the controls describe (ValueError when refused)."""
        bern = self.kind.currentIndex() == 1
        prior = (1.0, 1.0)
        if bern:
            try:
                prior = tuple(float(v) for v in self.prior.text().replace(" ", "").split(","))
            except ValueError:
                raise ValueError(f"prior: {self.prior.text()!r} is not two numbers a, b") from None
        return Testbed(arms=self.arms.value(), bernoulli=bern, mean=0.0 if bern else self.mean.value(),
                       drift=self.drift.value(), prior=prior, equal_start=self.equal_start.isChecked())

    def request(self) -> BanditRequest:
        """What the controls ask to run (ValueError naming a refused field)."""
        return BanditRequest(self.testbed(), self.method_id, self.params.options(), self.runs.value(),
                             self.steps.value(), self.seed.value())

    def show_running(self, on: bool, text: str = "") -> None:
        """A job runs (buttons off but Cancel, the progress bar shown) or not."""
        for b in (self.step, self.run, self.figure, self.study, self.clear_button):
            b.setEnabled(not on)
        self.cancel.setEnabled(on)
        self.progress.setVisible(on)
        self.progress.setValue(0)
        if text or not on:
            self.message.setText(text)

    def show_progress(self, done: int, total: int, text: str) -> None:
        self.progress.setMaximum(max(total, 1))
        self.progress.setValue(done)
        if text:
            self.message.setText(text)

    def show_step(self, s: BanditStep, results: Sequence[TestbedResult]) -> None:
        """A stepped run's snapshot: the bars, the last pull, and its curves beside the finished ones."""
        self.bars.show_step(s)
        q = s.true_values[s.last_arm]
        self.last.setText(f"Step {s.step}: run 1 pulled arm {s.last_arm + 1} (true value {q:.3f}) and got "
                          f"{s.last_reward:.3f}; {s.estimate_name} of that arm now {s.estimates[s.last_arm]:.3f}. "
                          f"Average over the {s.arms.shape[0]:,} runs: {s.average_reward[-1]:.3f}.")
        self.curves.show_results(results, running=s)

    def set_controls_hidden(self, hidden: bool) -> None:
        """Hide (or show) the controls column; the plots take the width."""
        if self.toggle.isChecked() != hidden:
            self.toggle.setChecked(hidden)
            return
        self.controls.setVisible(not hidden)
        self.toggle.setText("Show controls" if hidden else "Hide controls")

    def _fit_controls(self) -> None:
        """The controls column as wide as its contents ask, at most a third more than that."""
        want = self._controls_body.sizeHint().width() + self.controls.verticalScrollBar().sizeHint().width() + 6
        self.controls.setMaximumWidth(want)

    def set_font_size(self, px: int) -> None:
        for w in (self.bars, self.curves, self.study_plot):
            w.set_font_size(px)
        self._fit_controls()


__all__ = ["ArmBars", "BanditPanel", "BanditRequest", "Log2Axis", "ParamFields", "StudyPlot", "TestbedCurves",
           "curve_style", "fraction_label", "legend_html", "result_label", "varied_params"]
