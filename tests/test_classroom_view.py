"""Issue 13, gaps seen in the pictures: the colour bar's label clear of its numbers, the grid board's
bar reporting the map it draws, a Gymnasium grid's scale spanning its values, the 3D cube's board
given room, and the lesson snapshot's board and colour bar. Geometry and labels only (no pixels)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QFont

from mdpviz.models.kit.game import registry as games
from mdpviz.models.kit.pictures.colors import DIVERGING, SEQUENTIAL, ColorScale
from mdpviz.widgets.board import ColorBar
from mdpviz.widgets.position import LayersPainter
from tests.conftest import FakeDialogs, make_window, wait_laid_out, wait_model

LAPTOP = (1366, 768)
PROJECTOR = (1280, 720)


def assert_label_clear(bar: ColorBar) -> tuple[QRectF, list[QRectF]]:
    """The label's box overlaps no number's box and lies inside the bar widget."""
    label, ticks = bar.text_boxes()
    assert ticks, "no numbers drawn"
    inside = QRectF(0, 0, bar.width(), bar.height()).adjusted(-0.5, -0.5, 0.5, 0.5)
    assert inside.contains(label), (label, bar.size())
    for t in ticks:
        assert not t.intersects(label), (t, label)
        assert t.right() <= bar.width()
    return label, ticks


# ---------------------------------------------------------------------------------- the colour bar
LABELS = sorted({s.value_label for s in games.specs()} | {"value V(s) (return; 0 = grey)", "no values yet"})
RANGES = [(0.018, 0.023), (-4000.0, 1000.0), (1.0, 12.0), (-0.8, 0.15), (-14.0, -1.0), (0.0, 0.9)]


@pytest.mark.parametrize("label", LABELS)
@pytest.mark.parametrize("height, point_size", [(120, None), (357, None), (694, None), (341, 15.0)])
def test_colour_bar_label_never_sits_on_its_numbers(qtbot, label, height, point_size):
    """Checkers in presenter mode drew "value of each move Q (reward)" over "0.021": the bar was a fixed
    85 px (120 px in presenter mode) whatever its numbers and label needed."""
    bar = ColorBar()
    qtbot.addWidget(bar)
    bar.resize(85, height)
    bar.show()
    if point_size is not None:  # presenter mode's larger window font reaches the bar
        f = QFont(bar.font())
        f.setPointSizeF(point_size)
        bar.setFont(f)
    for lo, hi in RANGES:
        bar.show_scale(ColorScale(lo, hi, label))
        wait_laid_out(qtbot, bar)
        assert_label_clear(bar)


def test_the_first_scale_after_the_placeholder_does_not_narrow_the_bar(qtbot):
    """At the window's start the placeholder ("no values yet", 0 to 1) was 10 px wider than the
    snakes scale that arrived 0.2 s later: the board beside it shifted once the window was up."""
    bar = ColorBar()
    qtbot.addWidget(bar)
    bar.resize(85, 357)
    bar.show()
    wait_laid_out(qtbot, bar)
    placeholder = bar.width()
    bar.show_scale(ColorScale(1.0, 7.0, "expected turns to 15"))
    wait_laid_out(qtbot, bar)
    assert bar.width() == placeholder
    assert_label_clear(bar)
    bar.show_scale(ColorScale(1.0, 6.0, "expected turns to 15"))  # the next scale fits its own text again
    wait_laid_out(qtbot, bar)
    assert bar.width() < placeholder


def test_colour_bar_follows_its_font(qtbot):
    bar = ColorBar()
    qtbot.addWidget(bar)
    bar.resize(85, 400)
    bar.show()
    bar.show_scale(ColorScale(0.018, 0.023, "value of each move Q (reward)"))
    wait_laid_out(qtbot, bar)
    small = bar.width()
    bar.set_font_size(24)
    wait_laid_out(qtbot, bar)
    assert bar.width() > small
    assert_label_clear(bar)
    bar.set_font_size(None)
    assert bar.width() == small


@pytest.fixture
def window(qtbot, tmp_path):
    w = make_window(qtbot, tmp_path / "settings.ini", dialogs=FakeDialogs(strict=True), size=LAPTOP, show=True)
    yield w
    w.shutdown()


def settle(qtbot, w, size) -> None:
    w.resize(*size)
    wait_laid_out(qtbot, w)
    w.solving._dirty = True
    w.solving.redraw()
    wait_laid_out(qtbot, w)


def test_window_colour_bar_is_clear_at_every_size(qtbot, window):
    w = window
    w.switch_game("snakes")
    wait_model(w, qtbot)  # (the shown game's own model: the first game's is loaded and ready already)
    qtbot.waitUntil(lambda: w.controller.mdp is not None and w.controller.state == "ready", timeout=60_000)
    with qtbot.waitSignal(w.controller.finished, timeout=60_000):
        w.solving.run_solver()
    for size, presenter in ((LAPTOP, False), ((1920, 1080), False), (PROJECTOR, True)):
        w.view.set_presenter(presenter)
        settle(qtbot, w, size)
        assert_label_clear(w.color_bar)
        if presenter:
            assert w.color_bar.width() >= 120  # the projector's bar keeps its width
    w.view.set_presenter(False)


# ---------------------------------------------------------------------------------- grid boards
def _solve(qtbot, w) -> None:
    qtbot.waitUntil(lambda: w.controller.mdp is not None and w.controller.state == "ready"
                    and w.controller.value_range is not None, timeout=60_000)
    with qtbot.waitSignal(w.controller.finished, timeout=60_000):
        w.solving.run_solver()
    w.solving._dirty = True
    w.solving.redraw()


def test_grid_board_bar_reports_the_map_it_draws(qtbot, window):
    w = window
    w.switch_game("gridworld")
    _solve(qtbot, w)
    board = w.stage.game_boards["gridworld"]
    scale = board.color_bar.scale
    assert board.canvas.diverging  # the book grid's values have both signs
    assert scale.kind == DIVERGING and (scale.lo, scale.hi) == board.color_range() and scale.lo == -scale.hi
    assert scale.label.startswith(w.session.game.value_label) and f"({w.session.game.unit}" in scale.label
    assert board.canvas.cmap.name == scale.colormap  # the bar and the cells: one map


@pytest.mark.skipif(importlib.util.find_spec("gymnasium") is None, reason="Gymnasium is not installed")
@pytest.mark.parametrize("env, kwargs", [("CliffWalking-v1", {}), ("FrozenLake-v1", {"map_name": "8x8"}),
                                         ("Taxi-v4", {})])
def test_gym_grid_scale_spans_the_values_shown(qtbot, window, env, kwargs):
    """The scale spans the optimal values of the states on screen (CliffWalking: about -13.1..-1; the
    cliff's -100 is a reward, not a value), and the bar says the map is sequential (one sign)."""
    w = window
    w.switch_game("gym")
    assert w.game.set_environment(env, kwargs)
    qtbot.waitUntil(lambda: w.controller.mdp is not None and w.controller.mdp.n_states == w.game.session.mdp().n_states,
                    timeout=120_000)
    _solve(qtbot, w)
    board = w.stage.game_boards["gym"]
    mdp = w.controller.mdp
    v = np.asarray(board.sweep.values)[~np.asarray(mdp.terminal)]
    lo, hi = board.color_range()
    assert lo <= v.min() and v.max() <= hi
    assert (v.max() - v.min()) / (hi - lo) >= 0.7, ((lo, hi), (v.min(), v.max()))
    scale = board.color_bar.scale
    assert (scale.lo, scale.hi) == (lo, hi) and scale.kind == SEQUENTIAL
    if w.game.geometry() is not None:  # a grid (Taxi has none: a table of its states)
        assert not board.canvas.diverging
    if env.startswith("Cliff"):
        assert lo > -20.0  # not the cliff's -100


# ---------------------------------------------------------------------------------- the 3D cube
def test_cube_layers_take_the_arrangement_with_the_largest_cells():
    p = LayersPainter(3, 3)
    wide = p.cell_rects(QRectF(0, 0, 1000, 300), 27)
    assert wide[0].top() == pytest.approx(wide[9].top()) == pytest.approx(wide[18].top())  # side by side
    squarish = p.cell_rects(QRectF(0, 0, 300, 330), 27)
    assert squarish[0].top() == pytest.approx(squarish[9].top()) and squarish[18].top() > squarish[0].bottom()
    per_row, side = p.arrangement(QRectF(0, 0, 300, 330))
    assert per_row == 2 and side > 300 / 9.5  # larger than the three side by side would be
    for rects, room in ((wide, QRectF(0, 0, 1000, 300)), (squarish, QRectF(0, 0, 300, 330))):
        assert all(room.contains(r) for r in rects)
        assert not any(a.intersects(b) for i, a in enumerate(rects) for b in rects[i + 1:])
        assert len({(round(r.x()), round(r.y())) for r in rects}) == 27


def _cube(board) -> tuple[float, float]:
    rects = board.canvas.cell_rects()
    return rects[0].width(), max(r.bottom() for r in rects) - min(r.top() for r in rects)


def test_cube_board_gets_room_on_a_laptop_and_a_projector(qtbot, window):
    """At 1280x720 in presenter mode the cube was 344x109 px (cells of 36 px, 35,000 px^2 of board): its
    side texts took half the tab. The rule other board games meet there (a square board 230 px tall,
    52,900 px^2 for 9 cells) cannot hold 27 cells side by side in a tab about 300 px tall; the cube
    gets cells of at least 40 px (27 of them: >= 43,200 px^2), side by side or two layers over one."""
    w = window
    w.switch_game("ttt3d")
    b = w.game.board_widget()
    settle(qtbot, w, LAPTOP)
    cell, height = _cube(b)
    assert cell >= 40, cell
    w.view.set_presenter(True)
    try:
        settle(qtbot, w, PROJECTOR)
        cell, height = _cube(b)
        assert cell >= 40, (cell, b.canvas.size(), b.side.size())
        assert b.side.width() <= 0.5 * b.width() + 1
    finally:
        w.view.set_presenter(False)


# ---------------------------------------------------------------------------------- the lesson snapshot
def _snapshot(key: str, size: tuple[int, int], tmp_path: Path, mdp: str | None = None):
    from mdpviz import export as ex
    from mdpviz.widgets.games import default_games

    ex.ensure_app()
    g = next(x for x in default_games() if x.key == key)
    if mdp is not None:
        from mdpviz.core.examples import resolve_mdp

        g.session.load_state(g.read_file(resolve_mdp(mdp)))
    solved = ex.solve_game(g)
    w = ex.snapshot_widget(g, solved, width=size[0], height=size[1])
    ex.render_widget(w, tmp_path / f"{key}.png", width=size[0], height=size[1])  # lays everything out
    return ex, w


@pytest.mark.parametrize("size", [(1600, 900), (1280, 720)])
@pytest.mark.parametrize("key", ["snakes", "ttt", "file", "gridworld"])
def test_lesson_snapshot_has_one_whole_colour_bar(qapp, tmp_path, key, size):
    """One colour bar (a grid world's own, whose map diverges around 0, not a second sequential one),
    its label whole and clear of its numbers."""
    ex, w = _snapshot(key, size, tmp_path, mdp="episodic-mdp-10-5" if key == "file" else None)
    try:
        bars = [b for b in w.findChildren(ColorBar) if b.isVisibleTo(w)]
        assert len(bars) == 1, bars
        assert_label_clear(bars[0])
        if key == "gridworld":
            assert bars[0].scale.kind == DIVERGING
    finally:
        ex._dispose(w)


@pytest.mark.parametrize("size", [(1600, 900), (1280, 720)])
def test_lesson_snapshot_wide_board_fills_its_column(qapp, tmp_path, size):
    """Snakes' board went across a band the full figure wide but only ~40% of it tall, drawn 759x258 px
    of 1486x390 at 1600x900: now it spans its column (the parameters beside it)."""
    ex, w = _snapshot("snakes", size, tmp_path)
    try:
        b = w.board
        assert w.wide
        rects = [b.cell_rect(c.state) for c in b.layout_.cells]
        left, right = min(r.left() for r in rects), max(r.right() for r in rects)
        assert right - left >= 0.8 * b.width(), (right - left, b.width())
        assert right - left >= 0.48 * size[0]
        assert w.params.geometry().left() >= b.geometry().right()  # the parameters beside, not under it
        assert w.params.heightForWidth(w.params.width()) <= w.params.height()  # and whole
    finally:
        ex._dispose(w)
