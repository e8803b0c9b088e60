"""Board geometry: pure functions, no Qt."""
from __future__ import annotations

import math

import numpy as np
import pytest

from mdpviz.core.mdp import TabularMDP
from mdpviz.models.snakes import next_squares
from mdpviz.widgets.geometry import (
    CELL,
    GRAPH_MAX_STATES,
    SNAKES_POSITIONS,
    Cell,
    arrow_head,
    arrow_points,
    cell_at,
    fit_transform,
    graph_layout,
    grid_layout,
    grid_shape,
    policy_edges,
    snakes_layout,
)


def test_snakes_board_has_two_lanes_branching_at_3_and_joining_at_15():
    lay = snakes_layout(next_squares)
    assert len(lay.cells) == 15
    assert [c.state for c in lay.cells] == list(range(15))
    assert [c.label for c in lay.cells] == [str(i) for i in range(1, 16)]
    pos = {int(c.label): (c.x, c.y) for c in lay.cells}
    start_row = pos[1][1]
    # 1, 2, 3 and the goal on the start row; slow lane 4..10 below it, fast lane 11..14 above it
    assert pos[2][1] == pos[3][1] == pos[15][1] == start_row
    assert all(pos[s][1] > start_row for s in range(4, 11))
    assert all(pos[s][1] < start_row for s in range(11, 15))
    # both lanes run left to right, after the junction and before the goal
    for lane in (range(4, 11), range(11, 15)):
        xs = [pos[s][0] for s in lane]
        assert xs == sorted(xs) and xs[0] > pos[3][0] and xs[-1] < pos[15][0]
    # arrows: 3 branches into 4 and 11; 10 and 14 join at 15
    arrows = {(lay.cells[a.src].label, lay.cells[a.dst].label) for a in lay.arrows}
    assert ("3", "4") in arrows and ("3", "11") in arrows
    assert ("10", "15") in arrows and ("14", "15") in arrows
    assert ("1", "2") in arrows and ("13", "14") in arrows
    assert len(lay.arrows) == 15  # 13 single successors + the junction's two
    assert not any(lay.cells[a.src].label == "15" for a in lay.arrows)


def test_snakes_cells_do_not_overlap():
    lay = snakes_layout(next_squares)
    for i, a in enumerate(lay.cells):
        for b in lay.cells[i + 1:]:
            assert max(abs(a.x - b.x), abs(a.y - b.y)) >= a.size, (a.label, b.label)


def test_snakes_layout_rejects_a_bad_board_graph():
    with pytest.raises(ValueError, match="outside 1..15"):
        snakes_layout(lambda s: (16,) if s == 2 else ())


def test_grid_shape_and_layout():
    assert grid_shape(1) == (1, 1)
    rows, cols = grid_shape(50)
    assert rows * cols >= 50 and cols >= rows  # wider than tall
    assert grid_shape(50) == (6, 9)  # ceil(sqrt(80)) = 9 columns, ceil(50 / 9) = 6 rows
    lay = grid_layout(10)
    _, cols = grid_shape(10)
    assert [(c.x, c.y) for c in lay.cells[:cols + 1]] == [(float(i), 0.0) for i in range(cols)] + [(0.0, 1.0)]
    assert [c.label for c in lay.cells] == [str(i) for i in range(10)]
    with pytest.raises(ValueError):
        grid_shape(0)


def test_graph_layout_is_a_circle_and_bends_two_way_arrows():
    lay = graph_layout(6, [(0, 1, 0.5), (1, 0, 1.0), (2, 2, 0.25), (3, 4, 1.0)])
    radii = [math.hypot(c.x, c.y) for c in lay.cells]
    assert np.allclose(radii, radii[0])
    assert lay.cells[0].x == pytest.approx(0.0) and lay.cells[0].y < 0  # state 0 at the top
    # neighbours on the circle are at least 1.2 apart, so 0.8-cells never touch
    d = math.hypot(lay.cells[0].x - lay.cells[1].x, lay.cells[0].y - lay.cells[1].y)
    assert d >= 1.2 - 1e-9
    bends = {(a.src, a.dst): a.bend for a in lay.arrows}
    assert bends[(0, 1)] > 0 and bends[(1, 0)] > 0  # both directions: bent apart
    assert bends[(3, 4)] == 0 and bends[(2, 2)] == 0
    with pytest.raises(ValueError, match="at most"):
        graph_layout(GRAPH_MAX_STATES + 1, [])


def _small_mdp() -> TabularMDP:
    # state 0: action 0 -> 1 (0.25) / 2 (0.75); action 1 -> 0 (1.0); state 1: action 0 -> 2 twice (0.5 + 0.5)
    return TabularMDP.from_transitions(
        3, 2,
        src=[0, 0, 0, 1, 1], action=[0, 0, 1, 0, 0], dst=[1, 2, 0, 2, 2],
        prob=[0.25, 0.75, 1.0, 0.5, 0.5], reward=[0, 0, 0, 1, 1], discount=0.9, terminal=[2],
    )


def test_policy_edges_follow_the_policy_and_sum_duplicates():
    m = _small_mdp()
    edges = policy_edges(m, np.array([0, 0, -1]))
    assert edges == [(0, 1, 0.25), (0, 2, 0.75), (1, 2, 1.0)]
    edges = policy_edges(m, np.array([1, 0, -1]))
    assert edges == [(0, 0, 1.0), (1, 2, 1.0)]
    # no policy yet: every action of a state counts equally (uniform random policy)
    edges = dict(((a, b), p) for a, b, p in policy_edges(m, None))
    assert edges == {(0, 1): 0.125, (0, 2): 0.375, (0, 0): 0.5, (1, 2): 1.0}
    # a terminal state with rows in the file (the course format allows them) draws no arrows
    t = TabularMDP.from_transitions(2, 1, [0, 1], [0, 0], [1, 0], [1.0, 1.0], [0.0, 0.0], discount=0.9, terminal=[1])
    assert policy_edges(t, None) == [(0, 1, 1.0)]


def test_fit_transform_centres_and_keeps_aspect():
    s, ox, oy = fit_transform((0.0, 0.0, 10.0, 2.0), 520, 300, margin=10)
    assert s == pytest.approx(50.0)  # width limits: (520 - 20) / 10
    assert ox == pytest.approx(10.0)
    assert oy + s * 1.0 == pytest.approx(150.0)  # the board's middle row is the widget's middle


def test_cell_at_hits_inside_cells_only():
    lay = snakes_layout(next_squares)
    x, y = SNAKES_POSITIONS[7]
    assert cell_at(lay, x, y) == 6
    assert cell_at(lay, x + CELL / 2 - 0.01, y - CELL / 2 + 0.01) == 6
    assert cell_at(lay, x + 0.5, y) is None  # the gap between 7 and 8
    assert cell_at(lay, -5, -5) is None


def test_arrow_points_lie_on_the_cell_borders():
    a, b = Cell(0, 0.0, 0.0, size=1.0), Cell(1, 3.0, 0.0, size=1.0)
    (x0, y0), (mx, my), (x1, y1) = arrow_points(a, b, gap=0.0)
    assert (x0, y0) == pytest.approx((0.5, 0.0)) and (x1, y1) == pytest.approx((2.5, 0.0))
    assert (mx, my) == pytest.approx((1.5, 0.0))
    _, (mx, my), _ = arrow_points(a, b, bend=0.2, gap=0.0)
    assert mx == pytest.approx(1.5) and my == pytest.approx(-0.6)  # to the left of travel (y down)
    diag = Cell(2, 2.0, 2.0, size=1.0)
    (x0, y0), _, (x1, y1) = arrow_points(a, diag, gap=0.0)
    assert (x0, y0) == pytest.approx((0.5, 0.5)) and (x1, y1) == pytest.approx((1.5, 1.5))
    with pytest.raises(ValueError):
        arrow_points(a, a)


def test_arrow_head_points_along_the_arrow():
    tip, left, right = arrow_head((1.0, 0.0), (0.0, 0.0), size=0.1)
    assert tip == (1.0, 0.0)
    assert left[0] == pytest.approx(0.9) and right[0] == pytest.approx(0.9)
    assert left[1] == pytest.approx(-right[1]) and abs(left[1]) == pytest.approx(0.055)
