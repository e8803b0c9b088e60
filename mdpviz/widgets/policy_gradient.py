"""The window's plots of policy gradients (Sutton and Barto ch. 13; issue 37 item 5).

Three pyqtgraph widgets that only draw the numbers their ``show_...`` method is given (they never solve):

* :class:`JCurve`: the exact J(theta) = v_pi(start) (eq. 13.4) of each snapshot's policy over episodes, with
  the best value J_best as a labelled line (V*(start) for tabular features);
* :class:`GradientView`: per component of theta, the exact gradient of J (the policy-gradient theorem,
  eq. 13.5) as a bar beside the mean of N sampled REINFORCE estimates (eq. 13.8, with and without the
  baseline of eq. 13.11) with their error bars; the variances (trace of the sample covariance) written out;
* :class:`PolicyCurve`: figure 13.1: J as a function of the probability of right, the current policy a
  point on it and the curve's best point marked.

They share issue 36's plot base (:class:`~mdpviz.widgets.approximation._Plot`): the legend in a row above the
data, black axes, ``set_font_size`` for presenter mode (12 px normal, 18 px presenter). Non-finite numbers
are never drawn as data.
"""
from __future__ import annotations

import math
from typing import Mapping, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QTabWidget, QWidget

from mdpviz.widgets.approximation import NAMED_TICKS_MAX, _Plot, _scalar, data_range, finite_or_nan
from mdpviz.widgets.convergence import IntegerAxis, RoomyAxis, fit_legend_row

J_COLOR, BEST_COLOR = "#0072b2", "#d55e00"
"""The learner's J curve and the best value's dashed line (Okabe-Ito blue and vermillion)."""

EXACT_COLOR = "#444444"
"""The exact gradient's bars (dark grey: the truth the estimates are read against)."""

SERIES_COLORS = ("#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9")
"""The sampled estimates' bars, in the order given (without baseline: blue; with baseline: orange)."""

CURRENT_COLOR = "#d55e00"
"""The current policy's point on figure 13.1's curve."""


def _fmt(v: float, digits: int = 4) -> str:
    """``v`` with ``digits`` significant digits (no exponent below 10^6), or "not finite"."""
    v = float(v)
    if not math.isfinite(v):
        return "not finite"
    if v != 0 and (abs(v) >= 1e6 or abs(v) < 1e-4):
        return f"{v:.{digits}g}"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(v)))) if v != 0 else 0
    return f"{v:.{decimals}f}"


class _PGPlot(_Plot):
    """Issue 36's plot base, whose legend row also never runs off the widget's left edge: the columns the
    texts' widths allow, fewer while the laid-out row is wider than the widget (its estimate is a little
    short with presenter fonts)."""

    def _fit_legend(self) -> None:
        super()._fit_legend()
        while self.legend.columnCount > 1 and self._legend_width() > self.width() - 8:
            self.legend.setColumnCount(self.legend.columnCount - 1)
        # pyqtgraph sizes the legend by its labels' current widths, stretched by the previous column
        # count (a row once ran 100 px off the left edge): size it by what the entries ask for
        if self.legend.items:
            pref = self.legend.layout.effectiveSizeHint(Qt.SizeHint.PreferredSize)
            self.legend.setGeometry(0, 0, pref.width(), pref.height())
        fit_legend_row(self.plot, self.legend)

    def _legend_px(self) -> int:
        return max(12, int(self.px * 0.85))  # (never under 12 px: the window's smallest text)

    def _legend_width(self) -> float:
        return float(self.legend.layout.effectiveSizeHint(Qt.SizeHint.PreferredSize).width())


def bar_offsets(n: int, *, width: float = 0.8) -> tuple[np.ndarray, float]:
    """The centres' offsets of ``n`` bars side by side in one slot of ``width`` around a component's x,
    and each bar's width."""
    if n <= 0:
        return np.zeros(0), width
    w = width / n
    return (np.arange(n) - (n - 1) / 2.0) * w, w


class JCurve(_PGPlot):
    """The exact J(theta) of the learner's policy over episodes (not the episodes' returns), with the best
    value J_best as a dashed horizontal line named in the legend. Snapshots where J was not evaluated (NaN)
    are skipped; the line joins the evaluated ones."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("pgJCurve", "Policy value curve",
                         "the exact value J of the learner's policy from the start over episodes, with the best "
                         "value as a dashed line", bottom=IntegerAxis("bottom"), parent=parent)
        self.plot.setLabel("left", "J(\u03b8)")
        self.plot.setLabel("bottom", "episode")
        self.curve = self.plot.plot([], [], pen=pg.mkPen(J_COLOR, width=2))
        self.best_line = pg.InfiniteLine(angle=0, pen=pg.mkPen(BEST_COLOR, width=2, style=Qt.PenStyle.DashLine))
        self.plot.addItem(self.best_line)
        self._best_sample = pg.PlotDataItem(pen=self.best_line.pen)
        self._note = pg.PlotDataItem(pen=None)
        self.episodes = np.zeros(0)
        self.J = np.zeros(0)
        self.J_best: float | None = None
        self.show_j(np.zeros(0), np.zeros(0), None)

    def show_j(self, episodes, J, J_best: float | None, *, best_how: str = "", x_label: str = "episode") -> None:  # noqa: N803 (the book's J)
        """Draw ``J`` (one exact value per snapshot, NaN: not evaluated) over ``episodes`` and a line at
        ``J_best`` (None or NaN: no line); ``best_how``: how J_best was found (the legend says it, e.g.
        "V*(start)"). ValueError when the lengths differ."""
        x = finite_or_nan(episodes)
        y = finite_or_nan(J)
        if y.shape != x.shape:
            raise ValueError(f"J: {y.size} values for {x.size} episodes")
        b = _scalar(J_best)
        self.episodes, self.J, self.J_best = x, y, b
        ok = np.isfinite(x) & np.isfinite(y)
        self.curve.setData(x[ok], y[ok])
        self.curve.setSymbol("o" if 0 < ok.sum() <= 30 else None)
        self.curve.setSymbolSize(max(6, self.px // 2))
        self.curve.setSymbolBrush(J_COLOR)
        self.curve.setSymbolPen(None)
        entries: list = []
        if ok.any():
            entries.append((self.curve, f"J of the policy: {_fmt(float(y[ok][-1]), 5)}"))
        self.best_line.setVisible(b is not None)
        if b is not None:
            self.best_line.setPos(b)
            # (the legend names the kind of answer, "a local optimum (a lower bound)"; the whole story, how many
            # ascents of how many evaluations, is the Solver panel's status line: a long legend ran off the plot)
            short = best_how.rpartition(": ")[2] if best_how else ""
            entries.append((self._best_sample, f"best J {_fmt(b, 5)}" + (f" ({short})" if short else "")))
        elif x.size:
            entries.append((self._note, "best J: not known"))
        self._set_legend(entries)
        self.plot.setLabel("bottom", x_label)
        xr = data_range(x[ok], pad=0.0)
        self.plot.setXRange(xr[0], max(xr[1], xr[0] + 1.0), padding=0.02)
        self.plot.setYRange(*data_range(y[ok], include=() if b is None else (b,)), padding=0)
        self._axes_values(bool(ok.any()) or b is not None)

    _show_data = show_j

    def _restyle(self) -> None:
        self.curve.setPen(pg.mkPen(J_COLOR, width=self.line_width))
        pen = pg.mkPen(BEST_COLOR, width=self.line_width, style=Qt.PenStyle.DashLine)
        self.best_line.setPen(pen)
        self._best_sample.setPen(pen)


class GradientView(_PGPlot):
    """At one theta: each component of the exact gradient of J (a dark grey bar) beside the mean of the
    sampled REINFORCE estimates of each series (a coloured bar with an error bar of +- the given error,
    e.g. one standard error), the series' variances (and cosines to the exact gradient, when given)
    written in the legend. A non-finite number has no bar."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("pgGradientView", "Gradient view",
                         "per component of theta: the exact gradient of J beside the means of sampled REINFORCE "
                         "estimates with and without baseline, with error bars and their variances",
                         bottom=RoomyAxis("bottom"), parent=parent)
        self.plot.setLabel("left", "\u2202J/\u2202\u03b8\u1d62")
        self.plot.setLabel("bottom", "component i of \u03b8")
        self.zero = pg.InfiniteLine(pos=0.0, angle=0, pen=pg.mkPen("#444444", width=1))
        self.plot.addItem(self.zero)
        self.exact_bars = pg.BarGraphItem(x=[], height=[], width=0.4, brush=EXACT_COLOR, pen=None)
        self.plot.addItem(self.exact_bars)
        self.mean_bars: dict[str, pg.BarGraphItem] = {}
        self.error_bars: dict[str, pg.ErrorBarItem] = {}
        self._samples: dict[str, pg.BarGraphItem] = {}
        self.note = ""
        self.exact = np.zeros(0)
        self.means: dict[str, np.ndarray] = {}
        self.errors: dict[str, np.ndarray] = {}
        self.variances: dict[str, float] = {}
        self._ticks_key = None
        self.show_gradient(np.zeros(0), {}, {}, {})

    def show_gradient(self, exact, means: Mapping[str, np.ndarray], errors: Mapping[str, np.ndarray],
                      variances: Mapping[str, float], *, cosines: Mapping[str, float] | None = None,
                      names: Sequence[str] | None = None, note: str = "") -> None:
        """Draw ``exact`` (d components; empty: no exact bars) and per series name of ``means`` its mean
        (d) with +- ``errors[name]`` (d; missing: no error bar) and its variance ``variances[name]`` (and
        ``cosines[name]``) in the legend; ``names``: the components' tick labels (default 1..d, printed up
        to :data:`NAMED_TICKS_MAX`); ``note``: said after the axis's name (e.g. "1,000 episodes each, bars
        +- 1 standard error"). ValueError when a length is not d."""
        e = finite_or_nan(exact)
        ms = {str(k): finite_or_nan(v) for k, v in means.items()}
        errs = {str(k): np.abs(finite_or_nan(v)) for k, v in errors.items()}
        d = max([e.size, *(m.size for m in ms.values())], default=0)
        for k, v in [("exact", e), *ms.items(), *((f"errors {k}", v) for k, v in errs.items())]:
            if v.size not in (d, 0 if k == "exact" else d):
                raise ValueError(f"{k}: {v.size} components, the gradient has {d}")
        if names is not None and len(names) != d:
            raise ValueError(f"names: {len(names)} names for {d} components")
        self.exact, self.means, self.errors = e, ms, errs
        self.variances = {str(k): float(v) for k, v in variances.items()}
        cos = {str(k): float(v) for k, v in (cosines or {}).items()}
        series = list(ms)
        n = (1 if e.size else 0) + len(series)
        offs, width = bar_offsets(n)
        x = np.arange(1, d + 1, dtype=np.float64)
        entries: list = []
        k0 = 0
        outline = pg.mkPen("#222222", width=1) if d <= 40 else None
        if e.size:
            ok = np.isfinite(e)
            self.exact_bars.setOpts(x=x[ok] + offs[0], height=e[ok], width=width, pen=outline)
            entries.append((self.exact_bars, "exact \u2207J"))
            k0 = 1
        else:
            self.exact_bars.setOpts(x=[], height=[], width=width)
        for name in list(self.mean_bars):
            if name not in ms:
                self.plot.removeItem(self.mean_bars.pop(name))
                self.plot.removeItem(self.error_bars.pop(name))
        drawn = [e]
        for i, name in enumerate(series):
            m = ms[name]
            color = SERIES_COLORS[i % len(SERIES_COLORS)]
            bars = self.mean_bars.get(name)
            if bars is None:
                bars = self.mean_bars[name] = pg.BarGraphItem(x=[], height=[], width=width, brush=color)
                self.error_bars[name] = pg.ErrorBarItem(x=np.zeros(0), y=np.zeros(0), height=np.zeros(0))
                self.plot.addItem(bars)
                self.plot.addItem(self.error_bars[name])
            ok = np.isfinite(m)
            xs = x + offs[k0 + i]
            bars.setOpts(x=xs[ok], height=m[ok], width=width, brush=color, pen=outline)
            err = errs.get(name)
            eb = self.error_bars[name]
            if err is not None and err.size:
                okb = ok & np.isfinite(err)
                eb.setData(x=xs[okb], y=m[okb], height=2 * err[okb], beam=width * 0.4,
                           pen=pg.mkPen("#000000", width=max(1.0, self.line_width / 1.5)))
                drawn += [m[okb] + err[okb], m[okb] - err[okb]]
            else:
                eb.setData(x=np.zeros(0), y=np.zeros(0), height=np.zeros(0))
            drawn.append(m)
            text = name
            parts = []
            if name in self.variances and math.isfinite(self.variances[name]):
                parts.append(f"variance {_fmt(self.variances[name], 3)}")
            if name in cos and math.isfinite(cos[name]):
                parts.append(f"cos {cos[name]:.3f}")
            if parts:
                text += ": " + ", ".join(parts)
            entries.append((bars, text))
        self._set_legend(entries)
        self.note = str(note)
        self.plot.setLabel("bottom", "component i of \u03b8" + (f" ({self.note})" if self.note else ""))
        key = (d, None if names is None or d > NAMED_TICKS_MAX else tuple(names))
        if key != self._ticks_key:
            self._ticks_key = key
            axis = self.plot.getAxis("bottom")
            if d and d <= NAMED_TICKS_MAX:
                labels = [str(s) for s in names] if names is not None else [str(i) for i in range(1, d + 1)]
                axis.setTicks([[(float(i + 1), t) for i, t in enumerate(labels)]])
            else:
                axis.setTicks(None)
        self.plot.setXRange(0.4, max(d, 1) + 0.6, padding=0)
        self.plot.setYRange(*data_range(*drawn, include=(0.0,)), padding=0)
        self._axes_values(d > 0)

    _show_data = show_gradient

    def bar_heights(self, name: str | None = None) -> np.ndarray:
        """The heights of the drawn bars: the exact gradient's (``name`` None) or series ``name``'s."""
        item = self.exact_bars if name is None else self.mean_bars[name]
        h = item.opts.get("height")
        return np.asarray([] if h is None else h, dtype=np.float64)

    def _restyle(self) -> None:
        for eb in self.error_bars.values():
            eb.setData(pen=pg.mkPen("#000000", width=max(1.0, self.line_width / 1.5)))


class PolicyCurve(_PGPlot):
    """Figure 13.1: the exact J as a function of the probability of right (a policy of the short corridor
    with the book's features is one number), the current policy as a point on it and the curve's best point
    marked, both with their numbers in the legend. The y range keeps both points and the curve's upper part
    (J falls to minus infinity at p = 0 and 1: the whole span would flatten what matters)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("pgPolicyCurve", "Value over the probability of right",
                         "figure 13.1: the exact value of the start over the probability of right, with the "
                         "current policy as a point", parent=parent)
        self.plot.setLabel("left", "J = v\u03c0(start)")
        self.plot.setLabel("bottom", "probability of right")
        self.curve = self.plot.plot([], [], pen=pg.mkPen(J_COLOR, width=2), connect="finite")
        self.best_point = pg.ScatterPlotItem(size=12, symbol="d", brush=pg.mkBrush("#009e73"), pen=pg.mkPen("k"))
        self.current_point = pg.ScatterPlotItem(size=14, symbol="o", brush=pg.mkBrush(CURRENT_COLOR),
                                                pen=pg.mkPen("k", width=1.5))
        self.plot.addItem(self.best_point)
        self.plot.addItem(self.current_point)
        self.current_point.setZValue(10)
        self.p = np.zeros(0)
        self.J = np.zeros(0)
        self.current: tuple[float, float] | None = None
        self.best: tuple[float, float] | None = None
        self.show_curve(np.zeros(0), np.zeros(0), None)

    def show_curve(self, p, J, current_p: float | None, *, current_j: float | None = None,  # noqa: N803
                   x_label: str = "probability of right") -> None:
        """Draw ``J`` over ``p`` (increasing probabilities), the current policy at ``current_p`` (None: no
        point) with its value ``current_j`` (None: read off the curve by linear interpolation) and the
        curve's largest value as the best point. ValueError when the lengths differ."""
        x = finite_or_nan(p)
        y = finite_or_nan(J)
        if y.shape != x.shape:
            raise ValueError(f"J: {y.size} values for {x.size} probabilities")
        self.p, self.J = x, y
        ok = np.isfinite(x) & np.isfinite(y)
        self.curve.setData(x, y, connect="finite")
        cp = _scalar(current_p)
        cj = _scalar(current_j)
        if cp is not None and cj is None and ok.sum() >= 2 and x[ok].min() <= cp <= x[ok].max():
            order = np.argsort(x[ok])
            cj = float(np.interp(cp, x[ok][order], y[ok][order]))
        self.current = None if cp is None or cj is None else (cp, cj)
        self.best = None
        if ok.any():
            i = int(np.argmax(np.where(ok, y, -np.inf)))
            self.best = (float(x[i]), float(y[i]))
        entries: list = []
        if ok.any():
            entries.append((self.curve, "exact J"))
        for point, value, text in ((self.best_point, self.best, "best"), (self.current_point, self.current, "current")):
            point.setData([] if value is None else [value[0]], [] if value is None else [value[1]])
            if value is not None:
                entries.append((point, f"{text}: p {value[0]:.3f}, J {_fmt(value[1], 5)}"))
        self._set_legend(entries)
        self.plot.setLabel("bottom", x_label)
        self.plot.setXRange(0.0, 1.0, padding=0.02)
        self.plot.setYRange(*self.y_span(), padding=0)
        self._axes_values(bool(ok.any()) or self.current is not None)

    _show_data = show_curve

    def y_span(self) -> tuple[float, float]:
        """The shown J range: from the curve's top down to four times the top's distance below its median
        (the book's figure: about -100 to -10), always holding the two points."""
        y = self.J[np.isfinite(self.J)]
        pts = [v[1] for v in (self.best, self.current) if v is not None]
        if not y.size:
            return data_range(np.asarray(pts))
        top = float(y.max())
        med = float(np.median(y))
        floor = max(float(y.min()), top - 4.0 * max(top - med, 1e-9) - 1.0)
        return data_range(np.clip(y, floor, None), include=pts, pad=0.1)

    def _restyle(self) -> None:
        self.curve.setPen(pg.mkPen(J_COLOR, width=self.line_width))
        self.current_point.setSize(max(14, int(self.px * 0.9)))
        self.best_point.setSize(max(12, int(self.px * 0.75)))


class PGCurves(QWidget):
    """The plots of a policy-gradient learner (the convergence dock's page while one runs), in tabs: J over
    episodes (:class:`JCurve`), the gradient view at the shown snapshot's theta (:class:`GradientView`, its
    sampled estimates given by the window's job through :meth:`show_estimates`) and, when the policy is one
    probability (the short corridor), figure 13.1 (:class:`PolicyCurve`). :meth:`extend` records snapshots
    (:class:`~mdpviz.solvers.policy_gradient.PGStep`), :meth:`refresh` draws them with the shown one."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("pgCurves")
        self.setAccessibleName("Policy gradient plots")
        self.j_curve = JCurve()
        self.gradient = GradientView()
        self.policy_curve = PolicyCurve()
        self.tabs = QTabWidget()
        self.tabs.setObjectName("pgTabs")
        self.tabs.setAccessibleName("Policy gradient plots")
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.tabs)
        self.reset()

    def reset(self, *, curve: tuple[np.ndarray, np.ndarray] | None = None, action: str = "right") -> None:
        """Forget every point (a new learner); ``curve``: figure 13.1's (p, J(p)) when the policy is one
        probability (of ``action``), else None (no such tab)."""
        self._ep: list[float] = []
        self._j: list[float] = []
        self.shown = None
        self.current_p: float | None = None
        self.estimates = None
        self.set_curve(curve, action)

    def set_curve(self, curve: tuple[np.ndarray, np.ndarray] | None, action: str = "right") -> None:
        """Figure 13.1's (p, J(p)) of ``action`` (None: no such tab), kept with the points already recorded (the
        window computes it as a job after the learner's reset)."""
        self.curve = curve
        self.action = action
        self.stale = True
        pages = [(self.j_curve, "J(\u03b8)"), (self.gradient, "gradient")]
        if curve is not None:
            pages.append((self.policy_curve, "figure 13.1"))
        if [self.tabs.widget(i) for i in range(self.tabs.count())] != [w for w, _ in pages]:
            shown = self.tabs.currentWidget()
            self.tabs.clear()
            for w, title in pages:
                self.tabs.addTab(w, title)
            if self.tabs.indexOf(shown) >= 0:  # (the tab the user was reading stays in front)
                self.tabs.setCurrentWidget(shown)

    def extend(self, steps: Sequence) -> None:
        """Record these snapshots' exact J (NaN where not evaluated), in order."""
        for s in steps:
            self._ep.append(float(s.episode))
            self._j.append(float(s.J))
        self.stale = self.stale or bool(steps)

    def show_step(self, step, *, current_p: float | None = None) -> None:
        """The snapshot the history slider shows, and its probability of :attr:`action` (figure 13.1)."""
        if step is not self.shown or current_p != self.current_p:
            self.shown, self.current_p, self.stale = step, current_p, True

    def show_estimates(self, result) -> None:
        """The gradient job's result (``theta``, ``exact``, ``stats``: name -> EstimateStats, ``episode``), or
        None: the exact gradient of the shown snapshot only."""
        self.estimates = result
        self.stale = True

    def refresh(self) -> None:
        """Draw what changed since the last call."""
        if not self.stale:
            return
        self.stale = False
        s = self.shown
        self.j_curve.show_j(np.asarray(self._ep), np.asarray(self._j), None if s is None else s.J_best,
                            best_how="" if s is None else s.J_best_how)
        if self.curve is not None:
            self.policy_curve.show_curve(*self.curve, self.current_p, x_label=f"probability of {self.action}")
        r = self.estimates
        if r is not None and s is not None and np.array_equal(r.theta, s.theta):
            stats = r.stats
            self.gradient.show_gradient(r.exact, {k: v.mean for k, v in stats.items()},
                                        {k: v.standard_error for k, v in stats.items()},
                                        {k: v.variance for k, v in stats.items()},
                                        cosines={k: v.cosine for k, v in stats.items()},
                                        note=f"{r.samples:,} episodes each at episode {s.episode:,}'s \u03b8, "
                                             "\u00b1 1 standard error")
        else:
            g = None if s is None else s.gradient
            self.gradient.show_gradient(np.zeros(0) if g is None else g, {}, {}, {},
                                        note="" if s is None else ("exact gradient; sampling REINFORCE estimates"
                                                                   if g is not None else "not evaluated at this "
                                                                   "snapshot"))

    def set_font_size(self, px: int) -> None:
        """Every plot's text ``px`` pixels high (presenter mode)."""
        for w in (self.j_curve, self.gradient, self.policy_curve):
            w.set_font_size(px)


__all__ = ["GradientView", "JCurve", "PGCurves", "PolicyCurve", "bar_offsets"]
