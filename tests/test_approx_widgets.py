"""The function approximation plots (mdpviz/widgets/approximation.py): each draws exactly the arrays it is
given, an empty input, and never a non-finite number as data; each paints at presenter size in a
dock-sized parent. Headless (the test setup picks Qt's offscreen platform)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from PySide6.QtWidgets import QVBoxLayout, QWidget

from mdpviz.widgets.approximation import (
    APPROX,
    BEST,
    TD,
    TRUE,
    ErrorCurve,
    FunctionPlot,
    SurfaceView,
    WeightsCurve,
    WeightsView,
    cell_edges,
    data_range,
    root_ve,
    staircase,
)


def finite_xy(item) -> tuple[np.ndarray, np.ndarray]:
    """A curve's data points whose y is finite (as given: before a log axis or downsampling)."""
    x, y = item.xData, item.yData
    x = np.asarray([] if x is None else x, float)
    y = np.asarray([] if y is None else y, float)
    keep = np.isfinite(y)
    return x[keep], y[keep]


def legend_texts(widget) -> list[str]:
    return [label.text for _sample, label in widget.legend.items]


# ---------------------------------------------------------------------------------- pure helpers
def test_cell_edges_and_staircase():
    assert np.allclose(cell_edges(np.array([1.0, 2.0, 4.0])), [0.5, 1.5, 3.0, 5.0])
    assert np.allclose(cell_edges(np.array([3.0])), [2.5, 3.5])
    xs, ys = staircase(np.array([1.0, 2.0]), np.array([5.0, 7.0]))
    assert np.allclose(xs, [0.5, 1.5, 1.5, 2.5]) and np.allclose(ys, [5, 5, 7, 7])


def test_data_range_ignores_non_finite_numbers():
    assert data_range(np.array([np.nan, np.inf, 1.0, 3.0]), pad=0.0) == (1.0, 3.0)
    assert data_range(np.array([np.nan])) == (0.0, 1.0)
    lo, hi = data_range(np.array([2.0]), include=(0.0,), pad=0.0)
    assert (lo, hi) == (0.0, 2.0)


def test_root_ve_drops_negative_and_non_finite():
    r = root_ve([4.0, -1.0, np.inf, np.nan, 0.0])
    assert r[0] == 2.0 and r[4] == 0.0 and np.isnan(r[1:4]).all()


# ---------------------------------------------------------------------------------- FunctionPlot
def test_function_plot_draws_the_curves_mu_and_a_staircase(qtbot):
    w = FunctionPlot()
    qtbot.addWidget(w)
    x = np.arange(1.0, 11.0)
    v = np.linspace(-1, 1, 10)
    approx = np.repeat([-0.5, 0.5], 5)
    mu = np.full(10, 0.1)
    w.show_function(x, {TRUE: v, APPROX: approx}, mu, True)
    tx, ty = finite_xy(w.curve_items[TRUE])
    assert np.allclose(tx, x) and np.allclose(ty, v)  # the first curve: a line through the states
    ax, ay = finite_xy(w.curve_items[APPROX])
    assert np.allclose(ax, np.repeat(cell_edges(x), 2)[1:-1]) and np.allclose(ay, np.repeat(approx, 2))
    _mx, my = finite_xy(w.mu_item)
    assert np.allclose(my, np.repeat(mu, 2))
    assert w.mu_box.isVisible() and w.plot.getAxis("right").isVisible()
    texts = legend_texts(w)
    assert texts[:2] == [TRUE, APPROX] and any("\u03bc" in t for t in texts)
    w.show_function(x, {TRUE: v, BEST: approx, TD: approx + 0.1}, None, False)
    assert set(w.curve_items) == {TRUE, BEST, TD}  # the approximate curve is gone
    _bx, by = finite_xy(w.curve_items[TD])
    assert np.allclose(by, approx + 0.1)  # without step: one point per state
    assert not w.mu_box.isVisible() and not any("\u03bc" in t for t in legend_texts(w))


def test_function_plot_empty_and_non_finite(qtbot):
    w = FunctionPlot()
    qtbot.addWidget(w)
    w.show_function(np.zeros(0), {}, None)
    assert w.curve_items == {} and legend_texts(w) == []
    x = np.arange(5.0)
    y = np.array([0.0, np.nan, np.inf, -np.inf, 2.0])
    w.show_function(x, {TRUE: y}, np.array([0.5, np.nan, 0.5, 0.0, 0.0]))
    _tx, ty = finite_xy(w.curve_items[TRUE])
    assert list(ty) == [0.0, 2.0]
    lo, hi = w.plot.vb.viewRange()[1]
    assert math.isfinite(lo) and math.isfinite(hi) and lo <= 0.0 and hi >= 2.0 and hi < 10
    with pytest.raises(ValueError, match="3 values for 5 states"):
        w.show_function(x, {TRUE: np.zeros(3)}, None)


# ---------------------------------------------------------------------------------- WeightsView
def test_weights_view_bars_hold_the_weights(qtbot):
    w = WeightsView()
    qtbot.addWidget(w)
    weights = np.array([1.5, -2.0, 0.25])
    w.show_weights(weights, ["a", "b", "c"])
    assert np.allclose(w.bar_heights(), weights)
    assert np.allclose(w.bars.opts["x"], [1, 2, 3])
    ticks = w.plot.getAxis("bottom")._tickLevels
    assert [t for _x, t in ticks[0]] == ["a", "b", "c"]
    lo, hi = w.plot.vb.viewRange()[1]
    assert lo < -2.0 and hi > 1.5
    w.show_weights(np.array([1.0, np.inf, np.nan, 3.0]))
    assert np.allclose(w.bar_heights(), [1.0, 3.0]) and np.allclose(w.bars.opts["x"], [1, 4])
    assert any("w2" in t and "w3" in t for t in legend_texts(w))
    w.show_weights(np.zeros(0))
    assert w.bar_heights().size == 0 and legend_texts(w) == []
    with pytest.raises(ValueError, match="2 names for 3 weights"):
        w.show_weights(weights, ["a", "b"])


# ---------------------------------------------------------------------------------- WeightsCurve
def test_weights_curve_sampled_solid_expected_dashed_one_colour_each(qtbot):
    w = WeightsCurve()
    qtbot.addWidget(w)
    steps = np.arange(4.0)
    sampled = np.arange(12.0).reshape(4, 3)
    expected = sampled * 2
    w.show_curves(steps, sampled, expected, ["w1", "w2", "w3"])
    assert len(w.sampled_items) == 3 and len(w.expected_items) == 3
    for j in range(3):
        sx, sy = finite_xy(w.sampled_items[j])
        ex, ey = finite_xy(w.expected_items[j])
        assert np.allclose(sx, steps) and np.allclose(sy, sampled[:, j]) and np.allclose(ey, expected[:, j])
        s_pen, e_pen = w.sampled_items[j].opts["pen"], w.expected_items[j].opts["pen"]
        assert s_pen.color() == e_pen.color() and s_pen.style() != e_pen.style()
    colours = {w.sampled_items[j].opts["pen"].color().name() for j in range(3)}
    assert len(colours) == 3
    assert legend_texts(w) == ["w1", "w2", "w3", "sampled", "expected"]
    w.show_curves(steps, sampled)  # no expected update: no dashed curves, no style entries
    assert w.expected_items == [] and legend_texts(w) == ["w1", "w2", "w3"]


def test_weights_curve_empty_and_non_finite(qtbot):
    w = WeightsCurve()
    qtbot.addWidget(w)
    w.show_curves(np.zeros(0), np.zeros((0, 0)))
    assert w.sampled_items == [] and legend_texts(w) == []
    sampled = np.array([[1.0], [np.inf], [np.nan], [4.0]])
    w.show_curves(np.arange(4.0), sampled, np.array([[1.0], [2.0], [1e308 * 10], [3.0]]))
    assert list(finite_xy(w.sampled_items[0])[1]) == [1.0, 4.0]
    assert list(finite_xy(w.expected_items[0])[1]) == [1.0, 2.0, 3.0]
    lo, hi = w.plot.vb.viewRange()[1]
    assert math.isfinite(lo) and math.isfinite(hi) and hi < 10
    with pytest.raises(ValueError, match="expected: shape"):
        w.show_curves(np.arange(4.0), sampled, np.zeros((4, 2)))


# ---------------------------------------------------------------------------------- ErrorCurve
def test_error_curve_root_ve_and_labelled_lines(qtbot):
    w = ErrorCurve()
    qtbot.addWidget(w)
    ep = np.array([1.0, 2.0, 3.0])
    ve = np.array([0.04, 0.01, 0.0025])
    w.show_error(ep, ve, 0.0016, 0.0036)
    x, y = finite_xy(w.curve)
    assert np.allclose(x, ep) and np.allclose(y, [0.2, 0.1, 0.05])
    assert w.best_line.isVisible() and w.td_line.isVisible()
    assert w.best_line.value() == pytest.approx(math.log10(0.04))  # (the axis is log10 of sqrt(VE))
    assert w.td_line.value() == pytest.approx(math.log10(0.06))
    texts = legend_texts(w)
    assert any(t.startswith("best fit") and "0.04" in t for t in texts)
    assert any(t.startswith("TD fixed point") and "0.06" in t for t in texts)
    w.show_error(ep, ve, 0.0016, None, td_note="A is singular")
    assert not w.td_line.isVisible() and any("A is singular" in t for t in legend_texts(w))


def test_error_curve_zero_empty_and_non_finite(qtbot):
    w = ErrorCurve()
    qtbot.addWidget(w)
    w.show_error(np.zeros(0), np.zeros(0), None, None)
    assert finite_xy(w.curve)[1].size == 0 and legend_texts(w) == []
    assert not w.best_line.isVisible() and not w.td_line.isVisible()
    w.show_error(np.arange(1.0, 5.0), np.array([1.0, np.inf, np.nan, 0.0]), 0.0, float("nan"))
    x, y = finite_xy(w.curve)
    assert list(x) == [1.0, 4.0]
    assert w.zero_level is not None and y[1] == pytest.approx(10.0 ** w.zero_level)  # 0 at the "0" tick
    assert w.best_line.isVisible() and not w.td_line.isVisible()


def test_error_curve_draws_the_projected_bellman_error_as_figure_11_5(qtbot):
    w = ErrorCurve()
    qtbot.addWidget(w)
    ep = np.array([1.0, 2.0, 3.0])
    w.show_error(ep, np.array([4.0, 4.0, 3.61]), 0.0, 0.0, pbe=np.array([0.25, 0.01, np.nan]))
    x, y = finite_xy(w.pbe_curve)
    assert list(x) == [1.0, 2.0] and np.allclose(y, [0.5, 0.1])
    assert any(t == "\u221aPBE" for t in legend_texts(w))
    w.show_error(ep, np.array([4.0, 4.0, 3.61]), 0.0, 0.0)  # no PBE (control): no curve, no legend entry
    assert finite_xy(w.pbe_curve)[1].size == 0 and not any("PBE" in t for t in legend_texts(w))
    with pytest.raises(ValueError, match="pbe"):
        w.show_error(ep, np.ones(3), None, None, pbe=np.ones(2))


# ---------------------------------------------------------------------------------- SurfaceView
def test_surface_view_colours_cells_by_value_and_leaves_non_finite_blank(qtbot):
    w = SurfaceView()
    qtbot.addWidget(w)
    xs, ys = np.array([-1.0, 0.0, 1.0]), np.array([-0.5, 0.5])
    values = np.array([[0.0, 10.0], [np.nan, 5.0], [np.inf, 10.0]])
    w.show_surface(values, xs, ys, ("position", "velocity", "cost-to-go"), title="after episode 9")
    assert w.rgba.shape == (3, 2, 4)
    assert list(w.rgba[..., 3].ravel()) == [255, 255, 0, 255, 0, 255]
    assert (w.rgba[0, 1, :3] == w.rgba[2, 1, :3]).all() and (w.rgba[0, 0, :3] != w.rgba[0, 1, :3]).any()
    assert w.scale.lo <= 0.0 and w.scale.hi >= 10.0 and w.scale.label == "cost-to-go"
    assert w.color_bar.scale == w.scale
    assert w.cell_at(0.1, 0.4) == (1, 1) and w.cell_at(5.0, 0.0) is None
    assert "cost-to-go 5.00" in w.text_at(1, 1) and "no value" in w.text_at(1, 0)
    r = w.image.mapRectToParent(w.image.boundingRect())
    assert (r.left(), r.right(), r.top(), r.bottom()) == pytest.approx((-1.5, 1.5, -1.0, 1.0))
    w.show_surface(np.zeros((0, 0)), np.zeros(0), np.zeros(0))
    assert w.rgba.size == 0 and w.image.image is None
    with pytest.raises(ValueError, match="values: shape"):
        w.show_surface(np.zeros((2, 2)), xs, ys)


# ---------------------------------------------------------------------------------- at presenter size
@pytest.mark.parametrize("kind", ["function", "weights", "curve", "error", "surface"])
def test_each_plot_paints_at_presenter_size_in_a_dock(qtbot, kind):
    parent = QWidget()
    qtbot.addWidget(parent)
    lay = QVBoxLayout(parent)
    x = np.arange(1.0, 101.0)
    if kind == "function":
        w = FunctionPlot()
        w.show(x, {TRUE: np.sin(x / 20), APPROX: np.round(np.sin(x / 20), 1)}, np.full(100, 0.01), True)
    elif kind == "weights":
        w = WeightsView()
        w.show(np.linspace(-3, 5, 8))
    elif kind == "curve":
        w = WeightsCurve()
        w.show(x, np.outer(x, np.arange(8.0)), np.outer(x, np.arange(8.0)) * 1.1, [f"w{j + 1}" for j in range(8)])
    elif kind == "error":
        w = ErrorCurve()
        w.show(x, 1.0 / x, 0.001, 0.002)
    else:
        w = SurfaceView()
        w.show(np.outer(x[:20], x[:10]), x[:20], x[:10], ("position", "velocity", "cost-to-go"))
    lay.addWidget(w)
    w.set_font_size(18)
    parent.resize(1280, 720)
    parent.show()  # (QWidget.show() without arguments keeps its Qt meaning)
    assert w.isVisible()
    parent.resize(730, 250)  # a dock's share of a 1280x720 window
    qtbot.waitUntil(lambda: w.width() > 600)
    image = parent.grab().toImage()
    assert not image.isNull() and image.width() == parent.width()
    assert w.objectName().startswith("approx") and w.accessibleName()
    if kind != "surface":  # the legend row sits above the data, never on it
        legend = w.legend.sceneBoundingRect()
        data = w.plot.vb.sceneBoundingRect()
        assert legend.bottom() <= data.top() + 1 or not w.legend.items


def test_surface_grid_places_each_state_at_its_coordinates():
    from mdpviz.widgets.approximation import surface_grid

    coords = np.array([[0.0, 1.0], [1.0, 1.0], [0.0, 2.0], [np.nan, np.nan]])
    xs, ys, grid = surface_grid(coords, np.array([5.0, 6.0, 7.0, 99.0]))
    assert list(xs) == [0.0, 1.0] and list(ys) == [1.0, 2.0]
    assert grid[0, 0] == 5.0 and grid[1, 0] == 6.0 and grid[0, 1] == 7.0 and np.isnan(grid[1, 1])
