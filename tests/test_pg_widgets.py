"""The policy-gradient plots (mdpviz/widgets/policy_gradient.py): each draws exactly the numbers it is given,
an empty input, never a non-finite number as data, and paints at dock and presenter sizes with its legend
above the data and inside the widget. Headless (the test setup picks Qt's offscreen platform)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from PySide6.QtWidgets import QVBoxLayout, QWidget

from mdpviz.widgets.policy_gradient import GradientView, JCurve, PolicyCurve, bar_offsets


def finite_xy(item) -> tuple[np.ndarray, np.ndarray]:
    x, y = item.xData, item.yData
    x = np.asarray([] if x is None else x, float)
    y = np.asarray([] if y is None else y, float)
    keep = np.isfinite(y)
    return x[keep], y[keep]


def legend_texts(widget) -> list[str]:
    return [label.text for _sample, label in widget.legend.items]


def corridor_j(p: float) -> float:
    """v(start) of the short corridor (Example 13.1) under probability p of right, by a 3 x 3 solve."""
    a = np.array([[p, -p, 0.0], [-p, 1.0, -(1.0 - p)], [0.0, -(1.0 - p), 1.0]])
    return float(np.linalg.solve(a, -np.ones(3))[0])


def test_bar_offsets_share_the_slot():
    offs, w = bar_offsets(3)
    assert w == pytest.approx(0.8 / 3) and np.allclose(offs, [-w, 0.0, w])
    assert bar_offsets(0)[0].size == 0


# ---------------------------------------------------------------------------------- JCurve
def test_j_curve_draws_the_evaluated_points_and_the_best_line(qtbot):
    w = JCurve()
    qtbot.addWidget(w)
    ep = np.array([0.0, 10.0, 20.0, 30.0])
    J = np.array([-80.0, np.nan, -20.5, -12.25])
    w.show_j(ep, J, -11.657, best_how="V*(start)")
    x, y = finite_xy(w.curve)
    assert list(x) == [0.0, 20.0, 30.0] and list(y) == [-80.0, -20.5, -12.25]  # NaN: not evaluated, skipped
    assert w.best_line.isVisible() and w.best_line.value() == pytest.approx(-11.657)
    texts = legend_texts(w)
    assert any("-12.25" in t for t in texts) and any("-11.657" in t and "V*(start)" in t for t in texts)
    lo, hi = w.plot.vb.viewRange()[1]
    assert lo < -80.0 and hi > -11.657
    w.show_j(ep, J, float("nan"))
    assert not w.best_line.isVisible() and any("not known" in t for t in legend_texts(w))
    with pytest.raises(ValueError, match="3 values for 4 episodes"):
        w.show_j(ep, J[:3], None)


def test_j_curve_empty_and_non_finite(qtbot):
    w = JCurve()
    qtbot.addWidget(w)
    w.show_j(np.zeros(0), np.zeros(0), None)
    assert finite_xy(w.curve)[1].size == 0 and legend_texts(w) == [] and not w.best_line.isVisible()
    w.show_j(np.arange(3.0), np.array([np.inf, -np.inf, np.nan]), None)
    assert finite_xy(w.curve)[1].size == 0
    lo, hi = w.plot.vb.viewRange()[1]
    assert math.isfinite(lo) and math.isfinite(hi)


# ---------------------------------------------------------------------------------- GradientView
def test_gradient_view_bars_hold_the_exact_gradient_and_the_means(qtbot):
    w = GradientView()
    qtbot.addWidget(w)
    exact = np.array([1.9, -1.9])
    means = {"REINFORCE": np.array([2.3, -1.2]), "with baseline": np.array([1.8, -2.0])}
    errors = {"REINFORCE": np.array([0.8, 0.9]), "with baseline": np.array([0.2, 0.25])}
    w.show_gradient(exact, means, errors, {"REINFORCE": 812.3, "with baseline": 41.7},
                    cosines={"REINFORCE": 0.95}, names=["right", "left"], note="1,000 episodes each")
    assert np.allclose(w.bar_heights(), exact)
    for name, m in means.items():
        assert np.allclose(w.bar_heights(name), m)
        eb = w.error_bars[name].opts
        assert np.allclose(eb["y"], m) and np.allclose(eb["height"], 2 * errors[name])
    # side by side within each component's slot, the exact bar first
    xs = [np.asarray(b.opts["x"]) for b in (w.exact_bars, *w.mean_bars.values())]
    assert xs[0][0] < xs[1][0] < xs[2][0] and all(abs(x[0] - 1.0) < 0.4 for x in xs)
    texts = legend_texts(w)
    assert texts[0].startswith("exact")
    assert any("REINFORCE" in t and "812" in t and "0.950" in t for t in texts)
    assert any("with baseline" in t and "41.7" in t for t in texts)
    assert "1,000 episodes each" in w.plot.getAxis("bottom").labelText
    assert [t for _x, t in w.plot.getAxis("bottom")._tickLevels[0]] == ["right", "left"]
    colours = {b.opts["brush"].color().name() if hasattr(b.opts["brush"], "color") else str(b.opts["brush"])
               for b in (w.exact_bars, *w.mean_bars.values())}
    assert len(colours) == 3
    w.show_gradient(exact, {"REINFORCE": means["REINFORCE"]}, {}, {})
    assert set(w.mean_bars) == {"REINFORCE"} and len(legend_texts(w)) == 2  # the other series is gone
    with pytest.raises(ValueError, match="exact: 2 components, the gradient has 3"):
        w.show_gradient(exact, {"REINFORCE": np.zeros(3)}, {}, {})


def test_gradient_view_empty_and_non_finite(qtbot):
    w = GradientView()
    qtbot.addWidget(w)
    w.show_gradient(np.zeros(0), {}, {}, {})
    assert w.bar_heights().size == 0 and legend_texts(w) == []
    w.show_gradient(np.array([1.0, np.nan, 3.0]), {"REINFORCE": np.array([np.inf, 2.0, 1.0])},
                    {"REINFORCE": np.array([0.1, np.nan, 0.2])}, {"REINFORCE": float("nan")})
    assert np.allclose(w.bar_heights(), [1.0, 3.0]) and np.allclose(w.bar_heights("REINFORCE"), [2.0, 1.0])
    assert np.allclose(w.error_bars["REINFORCE"].opts["y"], [1.0])  # only where mean and error are finite
    assert not any("variance" in t for t in legend_texts(w))
    lo, hi = w.plot.vb.viewRange()[1]
    assert math.isfinite(lo) and math.isfinite(hi) and lo <= 0.0 and hi >= 3.0
    w.show_gradient(np.zeros(0), {"REINFORCE": np.array([1.0, 2.0])}, {}, {})  # means without the exact one
    assert w.bar_heights().size == 0 and np.allclose(w.bar_heights("REINFORCE"), [1.0, 2.0])


# ---------------------------------------------------------------------------------- PolicyCurve
def test_policy_curve_is_figure_13_1_with_the_current_point(qtbot):
    w = PolicyCurve()
    qtbot.addWidget(w)
    p = np.linspace(0.01, 0.99, 99)
    J = np.array([corridor_j(q) for q in p])
    w.show_curve(p, J, 0.05)
    x, y = finite_xy(w.curve)
    assert np.allclose(x, p) and np.allclose(y, J)
    assert w.current is not None and w.current[0] == 0.05
    assert w.current[1] == pytest.approx(corridor_j(0.05), abs=0.5)  # read off the curve
    assert w.best[0] == pytest.approx(2 - math.sqrt(2), abs=0.01) and w.best[1] == pytest.approx(-11.657, abs=1e-2)
    cx, cy = w.current_point.getData()
    assert list(cx) == [0.05] and list(cy) == [w.current[1]]
    lo, hi = w.plot.vb.viewRange()[1]
    assert lo < w.current[1] and hi > w.best[1] and lo > J.min()  # the tails at p -> 0, 1 are cut off
    w.show_curve(p, J, 0.5, current_j=-13.0)
    assert w.current == (0.5, -13.0)
    assert any("current: p 0.500" in t for t in legend_texts(w))
    w.show_curve(p, J, None)
    assert w.current is None and w.current_point.getData()[0].size == 0
    with pytest.raises(ValueError, match="98 values for 99 probabilities"):
        w.show_curve(p, J[:-1], None)


def test_policy_curve_empty_and_non_finite(qtbot):
    w = PolicyCurve()
    qtbot.addWidget(w)
    w.show_curve(np.zeros(0), np.zeros(0), 0.3)
    assert w.current is None and w.best is None and legend_texts(w) == []
    w.show_curve(np.array([0.0, 0.5, 1.0]), np.array([-np.inf, -12.0, np.nan]), float("nan"))
    assert list(finite_xy(w.curve)[1]) == [-12.0] and w.best == (0.5, -12.0) and w.current is None
    lo, hi = w.plot.vb.viewRange()[1]
    assert math.isfinite(lo) and math.isfinite(hi)


# ---------------------------------------------------------------------------------- at dock and presenter size
@pytest.mark.parametrize("size", [(12, 900, 260), (18, 730, 250)])  # a 1366x768 window's dock; presenter's
@pytest.mark.parametrize("kind", ["j", "gradient", "curve"])
def test_each_plot_paints_in_a_dock_with_its_legend_above_and_inside(qtbot, kind, size):
    px, width, height = size
    parent = QWidget()
    qtbot.addWidget(parent)
    lay = QVBoxLayout(parent)
    lay.setContentsMargins(0, 0, 0, 0)
    if kind == "j":
        w = JCurve()
        ep = np.arange(0.0, 1001.0, 10.0)
        w.show(ep, -11.657 - 70 * np.exp(-ep / 200), -11.657, best_how="best of 8 exact-gradient ascents")
    elif kind == "gradient":
        w = GradientView()
        w.show(np.array([1.9, -1.9]), {"REINFORCE": np.array([2.3, -1.2]), "with baseline": np.array([1.8, -2.0])},
               {"REINFORCE": np.array([0.8, 0.9]), "with baseline": np.array([0.2, 0.25])},
               {"REINFORCE": 812.3, "with baseline": 41.7}, cosines={"REINFORCE": 0.95, "with baseline": 0.999})
    else:
        w = PolicyCurve()
        p = np.linspace(0.01, 0.99, 99)
        w.show(p, [corridor_j(q) for q in p], 0.05)
    lay.addWidget(w)
    w.set_font_size(px)
    parent.resize(width, height)
    parent.show()
    qtbot.waitUntil(lambda: w.width() > width - 20)
    image = parent.grab().toImage()
    assert not image.isNull() and image.width() == parent.width()
    assert w.objectName().startswith("pg") and w.accessibleName()
    legend = w.legend.sceneBoundingRect()
    data = w.plot.vb.sceneBoundingRect()
    assert legend.bottom() <= data.top() + 1  # above the data, never on it
    assert legend.left() >= 0 and legend.right() <= w.width() + 1  # no text cut at the edges
    assert int(w.legend.opts["labelTextSize"].rstrip("px")) >= 12  # legends never under 12 px
    assert w.plot.getAxis("left").style["tickFont"].pixelSize() == px
