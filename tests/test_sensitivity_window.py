"""The Sensitivity dock (issue 28, item 2 in the window): a sweep runs as a job and shows the switch points
the headless job returns, a click on an interval (or a phase region) shows its policy on the board as one
undoable edit, cancel works, a bad range is refused in one line, the phase diagram is the headless Phase;
and the kit's lists of sweepable numbers and region names, without Qt."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import Qt

from mdpviz.models.gridworld import BUILTIN_MAPS, GridSettings
from mdpviz.core.jobs import drive
from mdpviz.models.kit.game import registry
from mdpviz.models.kit.teaching import sensitivity as sv
from mdpviz.models.kit.game.game_model import build_game
from mdpviz.models.kit.teaching.sweep_fields import check_range, numeric_fields
from tests.conftest import make_window, wait_model


def grid_data(name: str, **kw) -> dict:
    return registry.get("gridworld").to_dict(GridSettings(grid=BUILTIN_MAPS[name], **kw))


def optimal_labels(settings) -> tuple[object, list[tuple[str, ...]]]:
    """The game built from ``settings`` and, per state, its optimal actions under the tie rule (a separate
    headless solve)."""
    g = build_game("gridworld", settings)
    opt = sv.optimal_rows(g)[0]
    return g, list(sv._policy_labels(g, opt))


# --------------------------------------------------------------------------- pure
def test_numeric_fields_list_the_real_numbers_with_ranges_the_game_accepts():
    spec = registry.get("gridworld")
    fields = {f.name: f for f in numeric_fields("gridworld", spec.to_dict(spec.default_settings()))}
    assert set(fields) == {"noise", "living_reward", "discount"}
    assert (fields["noise"].lo, fields["noise"].hi) == (0.0, 0.5) and fields["noise"].value == 0.2
    # at discount 1 a positive living reward is refused: the range stops at 0
    at_one = {f.name: f for f in numeric_fields("gridworld", grid_data("book", discount=1.0))}
    assert at_one["living_reward"].hi == 0.0 and at_one["living_reward"].lo == -2.0
    risk = registry.get("risk_ttt")
    names = [f.name for f in numeric_fields("risk_ttt", risk.to_dict(risk.default_settings()))]
    assert names == [f"risk[{i}]" for i in range(9)]  # each entry of the list
    for key in ("file", "attt", "ttt3d"):  # a course file's text, paths and whole numbers: nothing to sweep
        s = registry.get(key)
        assert numeric_fields(key, s.to_dict(s.default_settings())) == ()
    for key in registry.keys():  # every listed range is accepted at both ends
        s = registry.get(key)
        data = s.to_dict(s.default_settings())
        for f in numeric_fields(key, data):
            check_range(key, data, f.name, f.lo, f.hi)


@pytest.mark.parametrize("param, lo, hi, words", [
    ("noise", 0.5, 0.1, "lower to a higher"),
    ("noise", 0.0, 2.0, "noise = 2"),
    ("nois", 0.0, 0.5, "numeric fields"),
])
def test_check_range_refuses_in_one_line(param, lo, hi, words):
    with pytest.raises(ValueError) as e:
        check_range("gridworld", grid_data("bridge"), param, lo, hi)
    assert words in str(e.value) and "\n" not in str(e.value)


def test_the_discount_grid_regions_are_named_by_their_path():
    ph = drive(sv.phase_job("gridworld", grid_data("discount"), ("noise", "living_reward"), ((0, 0.5), (-2, 1)),
                            steps=11))
    assert len(ph.names) == len(ph.regions) and len(set(ph.names)) == len(ph.names)
    for path, name in zip(ph.regions, ph.names):
        if "(row 3, col 3)" in path:  # the +1 cell
            assert name.startswith("close exit (+1)")
        elif "(row 3, col 5)" in path:  # the +10 cell
            assert name.startswith("far exit (+10)")
        else:
            assert name.startswith("never leaving")
        if name.startswith(("close", "far")):  # along row 4, above the cliff, or round by the top
            assert name.endswith("by the cliff") == ("(row 4, col 3)" in path)
    assert {"close exit (+1), by the cliff", "far exit (+10), the safe way"} <= set(ph.names)


# --------------------------------------------------------------------------- window
@pytest.fixture
def window(qtbot, tmp_path):
    w = make_window(qtbot, tmp_path / "s.ini", size=(1366, 768), game="gridworld")
    yield w
    w.shutdown()


def sweep(qtbot, w, *, timeout=60_000):
    with qtbot.waitSignal(w.controller.job_finished, timeout=timeout):
        assert w.sensitivity.run_sensitivity()


def solved_after(qtbot, w, click):
    with qtbot.waitSignal(w.controller.finished, timeout=30_000):
        click()
    w.solving.redraw()


def board_matches(w, settings) -> None:
    """The board shows the policy of a separate headless solve of ``settings``."""
    g, labels = optimal_labels(settings)
    sw = w.stage.game_boards["gridworld"].sweep
    assert sw is not None and sw.converged
    mdp = g.mdp
    for s in range(mdp.n_states):
        if not mdp.terminal[s] and labels[s]:
            assert g.action_label(s, int(sw.policy[s])) in labels[s], g.state_labels()[s]
    assert float(sw.values[g.start_state()]) == pytest.approx(float(sv.optimal_rows(g)[2]), abs=1e-6)


def test_a_sweep_shows_the_headless_switch_points_and_a_click_shows_its_interval(qtbot, window):
    w = window
    w.game.set_map(BUILTIN_MAPS["bridge"])
    user = w.session.settings
    panel = w.sensitivity.open_sensitivity()
    assert not w.sensitivity.sensitivity_dock.isHidden() and panel.param.currentData() == "noise"
    panel.set_range("noise", 0.0, 0.5)
    sweep(qtbot, w)
    res = panel.result
    headless = drive(sv.sensitivity_job("gridworld", grid_data("bridge"), "noise", 0.0, 0.5))
    assert res.switch_points == headless.switch_points
    assert res.switch_points[0] == pytest.approx(0.016955, abs=2e-6)  # CS188's bridge: crossing stops paying
    items = panel.plot.getPlotItem().items
    lines = [it for it in items if isinstance(it, pg.PlotDataItem) and it.opts["connect"] == "pairs"]
    assert len(lines) == 1 and sorted(set(lines[0].xData)) == list(res.switch_points)
    labels = sorted(it.toPlainText() for it in items if isinstance(it, pg.TextItem) and "." in it.toPlainText())
    assert labels == [f"{x:.6f}" for x in res.switch_points]  # each one labelled, to 1e-6
    assert panel.table.rowCount() == len(res.intervals)
    assert panel.table.item(0, 2).text() == "east" and panel.table.item(1, 2).text() == "west"
    assert "interval 2 (" in panel.sweep_text(0.02) and "west" in panel.sweep_text(0.02)
    # a click on the second interval: the board shows its policy, as a separate solve at its middle does
    iv = res.intervals[1]
    solved_after(qtbot, w, lambda: panel.table.selectRow(1))
    mid = 0.5 * (iv.lo + iv.hi)
    assert w.session.settings.noise == pytest.approx(mid)
    board_matches(w, w.session.settings)
    assert "interval 2 of" in panel.caption.text() and f"{iv.lo:.6f}" in panel.caption.text()
    # a click on the first replaces that edit: one Undo gives the user's own settings back
    solved_after(qtbot, w, lambda: panel.choose_interval(0))
    assert w.session.settings.noise == pytest.approx(0.5 * res.intervals[0].hi)
    board_matches(w, w.session.settings)
    start = w.session.start_state()
    assert w.game.session.action_name(int(w.stage.game_boards["gridworld"].sweep.policy[start])) == "east"
    w.act_undo.trigger()
    assert w.session.settings == user
    # a click on the plot itself, inside the third interval
    plot = panel.plot
    x = 0.5 * (res.intervals[2].lo + res.intervals[2].hi)
    y = float(np.mean(res.start_values))
    pos = plot.mapFromScene(plot.getPlotItem().vb.mapViewToScene(pg.Point(x, y)))
    solved_after(qtbot, w, lambda: qtbot.mouseClick(plot.viewport(), Qt.MouseButton.LeftButton, pos=pos))
    assert panel.chosen == 2 and w.session.settings.noise == pytest.approx(x)
    board_matches(w, w.session.settings)


def test_a_sweep_of_other_settings_is_stale_and_its_clicks_refused(qtbot, window):
    w = window
    w.game.set_map(BUILTIN_MAPS["bridge"])
    panel = w.sensitivity.open_sensitivity()
    panel.set_range("noise", 0.0, 0.5)
    panel.steps.setValue(11)
    sweep(qtbot, w)
    w.game.set_living_reward(-0.5)  # another setting than the one swept
    assert "changed since this sweep" in panel.caption.text()
    before = w.session.settings
    assert not w.sensitivity.show_interval(1)
    assert w.session.settings == before and "sweep again" in panel.error.text()


def test_a_thousand_switch_points_are_drawn_and_labelled_where_there_is_room(qtbot):
    """The gambler's coin has over a thousand switch points over (0.05, 0.95) (every tie of a stake counts):
    the panel draws them as one item, labels those with room and lists every one."""
    from mdpviz.widgets.sensitivity import SensitivityPanel, interval_at

    xs = np.linspace(0.0, 1.0, 101)
    points = tuple(float(x) for x in np.linspace(0.0005, 0.9995, 1000))
    edges = [0.0, *points, 1.0]
    intervals = tuple(sv.Interval(a, b, ((f"a{k % 2}",),)) for k, (a, b) in enumerate(zip(edges, edges[1:])))
    res = sv.Sensitivity("p_heads", ("s",), points, intervals, xs, xs ** 2, "s")
    panel = SensitivityPanel()
    qtbot.addWidget(panel)
    panel.resize(900, 400)
    panel.show_sweep(res, label="p heads")
    assert panel.table.rowCount() == 1001
    items = panel.plot.getPlotItem().items
    assert len(items) < 80  # one item for the bands, one for the lines, the labels with room, the curve
    assert 0 < len(panel.labelled) <= 60 and set(panel.labelled) <= set(points)
    gaps = np.diff(sorted(panel.labelled))
    assert (gaps > 0).all()
    assert interval_at(res, 0.25) == int(np.searchsorted(points, 0.25))
    with qtbot.waitSignal(panel.interval_clicked) as sig:
        panel.choose_interval(500)
    assert sig.args == [500] and panel.chosen == 500
    panel.grab()


def test_cancel_stops_the_sweep(qtbot, window):
    w = window
    w.game.set_map(BUILTIN_MAPS["discount"])
    # the new map's compile job first: started behind the sweep, it would run the moment the sweep ends
    wait_model(w, qtbot)
    panel = w.sensitivity.open_sensitivity()
    panel.set_range("noise", 0.0, 0.5, second=("living_reward", -2.0, 1.0))
    panel.steps.setValue(201)  # tens of seconds of work: the cancel lands long before its end
    with qtbot.waitSignal(w.controller.job_cancelled, timeout=60_000):
        assert w.sensitivity.run_sensitivity()
        assert panel.cancel_button.isEnabled() and not panel.sweep_button.isEnabled()
        panel.cancel_button.click()
    assert panel.phase is None and panel.result is None
    assert "cancelled" in panel.message.text() and panel.sweep_button.isEnabled()
    assert not w.controller.job_busy


def test_a_bad_range_is_refused_in_one_line(qtbot, window):
    w = window
    wait_model(w, qtbot)  # (no compile job left running: what is checked is that no sweep starts)
    panel = w.sensitivity.open_sensitivity()
    panel.set_range("noise", 0.4, 0.1)
    assert not w.sensitivity.run_sensitivity()
    assert "lower to a higher" in panel.error.text() and "\n" not in panel.error.text()
    assert not w.controller.job_busy
    panel.set_range("noise", 0.0, 2.0)
    assert not w.sensitivity.run_sensitivity()
    assert panel.error.text().startswith("noise = 2:") and not w.controller.job_busy
    panel.set_range("noise", 0.0, 0.5, second=("noise", 0.0, 0.5))
    assert not w.sensitivity.run_sensitivity() and "two different" in panel.error.text()
    panel.set_range("noise", 0.0, 0.5, second=("living_reward", -1.0, 0.0))
    panel.steps.setValue(301)
    assert not w.sensitivity.run_sensitivity() and "2 to 201 values per axis" in panel.error.text()
    assert not w.controller.job_busy


def test_the_phase_diagram_is_the_headless_phase_and_a_region_click_shows_its_policy(qtbot, window):
    w = window
    w.game.set_map(BUILTIN_MAPS["discount"])
    panel = w.sensitivity.open_sensitivity()
    panel.set_range("noise", 0.0, 0.5, second=("living_reward", -2.0, 1.0))
    panel.steps.setValue(11)
    sweep(qtbot, w)
    ph = panel.phase
    headless = drive(sv.phase_job("gridworld", grid_data("discount"), ("noise", "living_reward"),
                                  ((0.0, 0.5), (-2.0, 1.0)), steps=11))
    assert np.array_equal(ph.region, headless.region) and ph.regions == headless.regions
    assert ph.names == headless.names
    legend = [panel.legend.item(k).text() for k in range(panel.legend.count())]
    assert len(legend) == len(headless.regions) and all(n in t for n, t in zip(headless.names, legend))
    pi = panel.phase_plot.getPlotItem()
    assert pi.getAxis("bottom").labelText == "noise" and pi.getAxis("left").labelText == "living reward"
    # the image's colours follow the regions: two cells of one region alike, of two regions not
    img = panel.image.image  # [x, y, rgb]
    r = ph.region
    a, b = np.argwhere(r == r[0, 0])[:2] if (r == r[0, 0]).sum() > 1 else (None, None)
    if a is not None:
        assert np.array_equal(img[a[1], a[0]], img[b[1], b[0]])
    other = np.argwhere(r != r[0, 0])[0]
    assert not np.array_equal(img[0, 0], img[other[1], other[0]])
    # a click on a cell: the board shows the policy of a separate solve at that cell's values
    i, j = 2, 6
    solved_after(qtbot, w, lambda: panel.choose_cell(i, j))
    st = w.session.settings
    assert (st.noise, st.living_reward) == pytest.approx((ph.xs[i], ph.ys[j]))
    board_matches(w, st)
    region = int(ph.region[j, i])
    assert panel.legend.currentRow() == region and ph.names[region] in panel.caption.text()
    hover = panel.phase_text(i, j)  # every colour readable as text on hover
    assert ph.names[region] in hover and f"{ph.start_values[j, i]:.6g}" in hover
    # the legend's entry of another region shows a cell of that region
    other_region = (region + 1) % len(ph.regions)
    solved_after(qtbot, w, lambda: panel.legend.itemClicked.emit(panel.legend.item(other_region)))
    ci, cj = panel.chosen_cell
    assert int(ph.region[cj, ci]) == other_region
    board_matches(w, w.session.settings)


def test_other_games_list_their_numbers_and_a_game_without_any_says_so(qtbot, window):
    w = window
    panel = w.sensitivity.open_sensitivity()
    w.switch_game("gambler")
    assert [panel.param.itemData(k) for k in range(panel.param.count())] == ["p_heads", "discount"]
    w.switch_game("file")
    assert panel.param.count() == 0 and not panel.sweep_button.isEnabled()
    assert "no real-valued setting" in panel.message.text()
    w.view.set_presenter(True)  # bigger text: still draws
    w.switch_game("gridworld")
    assert panel.param.count() == 3
    w.grab()
    w.view.set_presenter(False)


def test_a_layout_saved_with_the_dock_open_shows_its_panel(qtbot, tmp_path):
    w = make_window(qtbot, tmp_path / "s.ini", size=(1366, 768), game="gridworld", show=True)
    try:
        w.sensitivity.open_sensitivity()
        w.view.save_settings()
    finally:
        w.shutdown()
    w2 = make_window(qtbot, tmp_path / "s.ini", size=(1366, 768), game="gridworld", show=True)
    try:
        qtbot.waitUntil(lambda: w2.sensitivity.sensitivity_dock.isVisible())
        assert w2.sensitivity.sensitivity_dock.widget() is w2.sensitivity.sensitivity_panel and w2.sensitivity.sensitivity_panel.param.count() == 3
    finally:
        w2.shutdown()


def test_the_open_dock_keeps_the_layout_through_presenter_mode_and_fits(qtbot, tmp_path):
    w = make_window(qtbot, tmp_path / "s.ini", size=(1366, 768), game="gridworld", show=True)
    try:
        qtbot.waitUntil(lambda: bool(w.view.visible_tab_bars()))
        w.sensitivity.open_sensitivity()
        qtbot.waitUntil(lambda: any("Sensitivity" in bar for bar in w.view.visible_tab_bars()))
        before = w.view.visible_tab_bars()
        assert ("Convergence", "Sensitivity") in before  # tabbed with the plot, under the board
        for _ in range(2):
            w.view.set_presenter(True)
            qtbot.waitUntil(lambda: ("Convergence", "Sensitivity") in w.view.visible_tab_bars())
            hint = w.minimumSizeHint()
            assert hint.width() <= 1280 and hint.height() <= 720, hint  # a projector
            w.view.set_presenter(False)
            qtbot.waitUntil(lambda: w.view.visible_tab_bars() == before)
        hint = w.minimumSizeHint()
        assert hint.width() <= 1366 and hint.height() <= 768, hint  # a laptop
        assert w.sensitivity.sensitivity_dock.isVisible()
    finally:
        w.shutdown()
