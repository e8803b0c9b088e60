"""The window items of issue 35 (third round of the lecture): presenter mode that stays on the projector,
single-key shortcuts after an edit, the inspector on the solve the board shows, unvisited states and the
errors' states while learning, a learner's values on a scale that shows them, and Jack's map, the
Sensitivity dock and the simulation page readable in presenter mode."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QSize

from tests.conftest import FakeDialogs, make_window, wait_laid_out, wait_model

PROJECTOR = QSize(1280, 720)
"""The projector's screen (pixels): the window is given this size and must stay within it."""


def choose(w, method: str) -> None:
    p = w.solver_panel
    p.algorithm.setCurrentIndex(p.algorithm.findData(method))
    assert w.controller.method == method


def ready(qtbot, w) -> None:
    wait_model(w, qtbot)  # (the shown game's own model: the first game's is loaded and ready already)
    qtbot.waitUntil(lambda: w.controller.mdp is not None and w.controller.state in ("ready", "converged"), timeout=120_000)


def one_q_learning_episode(qtbot, w) -> None:
    """The shown game's model ready, Q-learning picked, one Step (one episode), the frame drawn."""
    ready(qtbot, w)
    choose(w, "q")
    n = len(w.controller.history)
    w.solver_panel.step.click()
    qtbot.waitUntil(lambda: len(w.controller.history) > n and w.controller.state != "stepping", timeout=20_000)
    w.solving.redraw()


def fits(w) -> None:
    """The window is within the projector's screen (after Qt has laid it out)."""
    assert w.width() <= PROJECTOR.width() and w.height() <= PROJECTOR.height(), (w.game.key, w.size(), w.minimumSize())


@pytest.fixture
def projector(qtbot, tmp_path):
    """The window at the projector's size, shown; any error dialog fails the test."""
    w = make_window(qtbot, tmp_path / "settings.ini", dialogs=FakeDialogs(strict=True),
                    size=(PROJECTOR.width(), PROJECTOR.height()), show=True)
    yield w
    w.shutdown()


# ---------------------------------------------------------------------------------- item 1
def test_presenter_mode_never_grows_the_window_past_the_projector(qtbot, projector):
    """Issue 35 item 1: Jack's car rental, the gambler, the grid world and Q-learning with presenter mode on
    took the window to 1,308-1,471 px on a 1,280 x 720 projector (the normal layout's minimum width in the
    projector's font, met while the docks moved), and presenter on/off cycles left it 1,281 px wide."""
    w = projector
    w.switch_game("jack")
    ready(qtbot, w)
    with qtbot.waitSignal(w.controller.finished, timeout=120_000):
        w.solving.run_solver()
    w.solving.redraw()
    w.view.set_presenter(True)
    wait_laid_out(qtbot, w)
    fits(w)
    for key in ("gambler", "gridworld"):
        w.switch_game(key)
        ready(qtbot, w)
        wait_laid_out(qtbot, w)
        fits(w)
    choose(w, "q")
    w.solver_panel.step.click()
    qtbot.waitUntil(lambda: len(w.controller.history) > 0 and w.controller.state != "stepping", timeout=20_000)
    w.solving.redraw()
    wait_laid_out(qtbot, w)
    fits(w)
    for on in (False, True) * 4:
        w.view.set_presenter(on)
        wait_laid_out(qtbot, w)
        fits(w)
    w.switch_game("jack")
    ready(qtbot, w)
    wait_laid_out(qtbot, w)
    fits(w)
    w.view.set_presenter(False)
    wait_laid_out(qtbot, w)
    fits(w)


# ---------------------------------------------------------------------------------- item 4
@pytest.fixture
def live_grid(qtbot, tmp_path):
    """The grid world solved, live re-solve on, the window shown and active (its shortcuts are live)."""
    w = make_window(qtbot, tmp_path / "settings.ini", game="gridworld", size=(1366, 768), show=True, live=True)
    w.activateWindow()
    qtbot.waitUntil(lambda: w.isActiveWindow(), timeout=10_000)
    ready(qtbot, w)
    with qtbot.waitSignal(w.controller.finished, timeout=60_000):
        w.solving.run_solver()
    yield w
    w.shutdown()


def test_b_works_right_after_typing_a_value_and_enter(qtbot, live_grid):
    """Issue 35 item 4: B and Shift+B did nothing right after typing a value (the field kept the focus and
    took the key as its text). Enter commits the value and gives the board the focus; B then flips to the
    solve before the edit and Shift+B to the difference map."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QDoubleSpinBox

    w = live_grid
    box = w.stage.game_scroll.widget().findChild(QDoubleSpinBox, "gridLivingReward")
    box.setFocus()
    qtbot.waitUntil(box.hasFocus, timeout=5_000)
    box.selectAll()
    qtbot.keyClicks(box, "-0.5")
    with qtbot.waitSignal(w.controller.finished, timeout=60_000):  # the edit, re-solved live
        qtbot.keyClick(box, Qt.Key.Key_Return)
    assert w.game.session.settings.living_reward == pytest.approx(-0.5)
    qtbot.waitUntil(lambda: w.board.hasFocus(), timeout=5_000)
    qtbot.waitUntil(lambda: w.live.live_diff is not None, timeout=10_000)
    qtbot.keyClick(w.focusWidget(), Qt.Key.Key_B)
    assert w.live.diff_mode == "before" and w.live.act_diff_before.isChecked()
    qtbot.keyClick(w.focusWidget(), Qt.Key.Key_B, Qt.KeyboardModifier.ShiftModifier)
    assert w.live.diff_mode == "difference"


def test_a_click_on_the_board_takes_the_focus_from_a_field(qtbot, live_grid):
    """Issue 35 item 4: even a click on the board left the focus (and the B key) in the field."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QDoubleSpinBox

    w = live_grid
    box = w.stage.game_scroll.widget().findChild(QDoubleSpinBox, "gridNoise")
    box.setFocus()
    qtbot.waitUntil(box.hasFocus, timeout=5_000)
    qtbot.mouseClick(w.board, Qt.MouseButton.LeftButton, pos=w.board.rect().center())
    assert w.board.hasFocus()
    qtbot.keyClick(w.focusWidget(), Qt.Key.Key_B)
    assert w.live.act_diff_before.isChecked()  # (no edit yet: the board says so, but the key reached the window)


# ---------------------------------------------------------------------------------- item 5
def test_before_and_difference_views_inspect_what_the_board_shows(qtbot, live_grid):
    """Issue 35 item 5: the "before" and "difference" views kept the inspector on the backup after the edit
    (the board 4.48, the inspector V = -6.4475 for the same cell). "before": the backup in the model before
    the edit, with its values (the board's); "difference": V after - V before in its title."""
    w = live_grid
    with qtbot.waitSignal(w.controller.finished, timeout=60_000):
        w.game.set_living_reward(-0.5)
    qtbot.waitUntil(lambda: w.live.live_diff is not None, timeout=10_000)
    d = w.live.live_diff
    s = w.game.session.start_state()
    w.solving.inspect(s)
    w.solving.redraw()
    after = w.inspector.inspection
    assert after.value == pytest.approx(d.v_after[s])
    w.live.set_diff_mode("before")
    w.solving.redraw()
    before = w.inspector.inspection
    assert before.value == pytest.approx(d.v_before[s]) and before.value != pytest.approx(after.value)
    assert before.value == pytest.approx(float(w.board.sweep.values[s]))  # the number the board shows
    best = [a for a in before.actions if a.best]
    assert best and best[0].q == pytest.approx(before.value, abs=1e-6)  # the solve before the edit's own backup
    assert "before the edit" in before.title
    w.live.set_diff_mode("difference")
    w.solving.redraw()
    diff = w.inspector.inspection
    assert "V after \u2212 V before" in diff.title and f"{float(d.dv[s]):+.4g}" in diff.title
    w.live.set_diff_mode("after")
    w.solving.redraw()
    assert w.inspector.inspection.value == pytest.approx(d.v_after[s])


# ---------------------------------------------------------------------------------- items 6 and 7
def test_learning_errors_say_they_are_over_the_visited_states(qtbot, tmp_path):
    """Issue 35 item 6: the RMS and largest errors took in states the behaviour never visits (CliffWalking's
    cliff cells, flat near 11): the caption and the Solver panel give them over the visited states, and say so."""
    import numpy as np

    from mdpviz.window.learning import visited_errors

    w = make_window(qtbot, tmp_path / "settings.ini", game="gridworld")
    try:
        ready(qtbot, w)
        choose(w, "q")
        for _ in range(2):
            n = len(w.controller.history)
            w.solver_panel.step.click()
            qtbot.waitUntil(lambda: len(w.controller.history) > n and w.controller.state != "stepping", timeout=20_000)
        w.solving.redraw()
        st, mdp = w.controller.history[-1], w.controller.mdp
        n, rms, largest = visited_errors(st, mdp)
        seen = (np.asarray(st.visits) > 0) & ~np.asarray(mdp.terminal)
        err = (np.asarray(st.values) - st.exact.values)[seen]
        assert n == int(seen.sum()) > 0 and rms == pytest.approx(float(np.sqrt(np.mean(err ** 2))))
        assert largest == pytest.approx(float(np.abs(err).max()))
        status = w.solver_panel.status.text()
        assert f"RMS error {rms:.3g}, largest {largest:.3g} over the {n:,} visited states" in status, status
        assert "non-terminal: " in status
        # the learning curves are the learner's own, over every state: their legend says so
        assert all("all states" in label.text for _, label in w.learning.learning_curves.err_legend.items)
    finally:
        w.shutdown()


def test_a_learner_picked_before_is_announced_and_far_values_get_their_own_scale(qtbot, tmp_path):
    """Issue 35 item 7: after a learning demo, Run on another game trained the learner unannounced, its
    values (0-6) on the exact scale (230-380) one colour. The switch says which algorithm Run runs; learned
    values far from the exact scale get one of their own, the exact scale one click away (View menu)."""
    w = make_window(qtbot, tmp_path / "settings.ini", game="gridworld", show=True)
    try:
        ready(qtbot, w)
        choose(w, "sarsa")
        w.switch_game("snakes")
        ready(qtbot, w)
        qtbot.waitUntil(lambda: "Run trains" in w.statusBar().currentMessage(), timeout=5_000)
        assert w.solver_panel.method == "sarsa"
        w.solving.redraw()
        assert "Run trains" in w.solver_panel.status.text() and "not an exact solver" in w.solver_panel.status.text()
        # an initial value far below every exact value: the learned values sit far outside the exact scale
        lp = w.solver_panel.learning
        lp.initial.setValue(-500.0)
        ready(qtbot, w)
        for _ in range(3):  # (after one episode every visited value may still be one number: no scale of its own)
            n = len(w.controller.history)
            w.solver_panel.step.click()
            qtbot.waitUntil(lambda: len(w.controller.history) > n and w.controller.state != "stepping", timeout=20_000)
        w.solving.redraw()
        exact = w.solving.scale
        own = w.learning.shown_scale
        assert own is not exact and own.lo < exact.lo - (exact.hi - exact.lo), (own, exact)
        w.learning.act_exact_scale.trigger()  # one click: the exact scale
        w.solving.redraw()
        assert w.learning.shown_scale is exact
    finally:
        w.shutdown()


# ---------------------------------------------------------------------------------- item 9
def test_jacks_map_in_presenter_mode_has_axes_over_the_data_and_readable_titles(qtbot, projector):
    """Issue 35 item 9: Jack's map in presenter mode had an x axis from -25 to 47 for 0..20 cars (a locked
    aspect ratio in a wide board), 9 px axis titles and a hover line as wide as 696 px."""
    w = projector
    w.switch_game("jack")
    ready(qtbot, w)
    with qtbot.waitSignal(w.controller.finished, timeout=120_000):
        w.solving.run_solver()
    w.view.set_presenter(True)
    wait_laid_out(qtbot, w)
    w.solving.mark_dirty()
    w.solving.redraw()
    board = w.board
    n = board.max_cars + 1
    (x0, x1), (y0, y1) = board.plot.vb.viewRange()
    assert x0 == pytest.approx(0, abs=0.05) and x1 == pytest.approx(n, abs=0.05), (x0, x1)
    assert y0 == pytest.approx(0, abs=0.05) and y1 == pytest.approx(n, abs=0.05), (y0, y1)
    for ax in ("left", "bottom"):
        assert board.plot.getAxis(ax).label.font().pixelSize() >= 12
    assert board.hover.minimumSizeHint().width() < 400
    fits(w)
    w.view.set_presenter(False)
    assert board.plot.getAxis("bottom").label.font().pixelSize() >= 12


@pytest.mark.parametrize("side", [60, 70, 80, 100])
def test_q_triangle_numbers_are_at_least_12_px(side):
    """Issue 35 item 9: the Q triangles' numbers were about 9 px on a projector's 60-80 px cells; fewer
    decimals where two would be smaller than 12 px (the hover and inspector keep every digit)."""
    from mdpviz.widgets.games.grid_board import Q_MIN_PX, q_label

    for x in (0.57, -0.04, 0.123, 5.5, -12.25, 250.0):
        txt, px = q_label(x, side)
        assert px >= Q_MIN_PX, (x, side, txt, px)
        assert float(txt) == pytest.approx(x, abs=0.5 * 10 ** -(len(txt.split(".")[1]) if "." in txt else 0) + 1e-9)
    txt, _ = q_label(0.57, 100)
    assert txt == "0.57"  # a large cell keeps two decimals


def test_a_size_chosen_after_a_forced_growth_stands(qtbot, projector):
    """The window put back after presenter mode grew it never overrides a size chosen afterwards (the
    screenshots' 1920 x 1080 once came out 1280 x 720)."""
    w = projector
    w.switch_game("jack")
    ready(qtbot, w)
    for on in (True, False, True, False):
        w.view.set_presenter(on)
        wait_laid_out(qtbot, w)
    w.resize(1920, 1080)
    wait_laid_out(qtbot, w)
    w.switch_game("gridworld")
    ready(qtbot, w)
    wait_laid_out(qtbot, w)
    assert (w.width(), w.height()) == (1920, 1080)


def test_cliffwalking_cliff_cells_are_drawn_unvisited_and_left_out_of_the_errors(qtbot, tmp_path):
    """Issue 35 item 6: learning on CliffWalking, the cliff cells the agent can never stand on kept a learned
    0.00 drawn in the best colour, entered the RMS and largest error and one was dashed as not optimal. They
    are hatched grey with "not visited" on hover, never dashed, and the errors are over the visited states."""
    pytest.importorskip("gymnasium")
    import numpy as np

    from mdpviz.window.learning import visited_errors

    w = make_window(qtbot, tmp_path / "settings.ini", game="gym")
    try:
        assert w.game.set_environment("CliffWalking-v1", "")
        qtbot.waitUntil(lambda: w.controller.mdp is not None and w.controller.mdp.n_states == w.game.session.mdp().n_states,
                        timeout=120_000)
        choose(w, "q")
        for _ in range(5):
            n = len(w.controller.history)
            w.solver_panel.step.click()
            qtbot.waitUntil(lambda: len(w.controller.history) > n and w.controller.state != "stepping", timeout=20_000)
        w.solving.redraw()
        st, mdp = w.controller.history[-1], w.controller.mdp
        cv = w.board.canvas
        unvisited = (np.asarray(st.visits) == 0) & ~np.asarray(mdp.terminal)
        assert unvisited.any() and np.array_equal(cv.unvisited, unvisited)
        cliff = [s for s in range(37, 47) if s < mdp.n_states]  # the bottom row between start (36) and goal (47)
        assert all(cv.is_unvisited(s) for s in cliff if not mdp.terminal[s])
        assert not any(cv.is_unvisited(s) for s in cv.marked)  # no dash on a cell that learned nothing
        r, c = w.game.geometry().cell_of(cliff[0])
        assert "not visited" in cv.tooltip(r, c)
        n_seen, rms, _ = visited_errors(st, mdp)
        assert f"RMS error {rms:.3g} over {n_seen:,} visited" in cv.caption, cv.caption
        for mode in ("visits", "exact"):  # the visits and the exact view draw every state
            w.solver_panel.learning.set_mode(mode)
            w.solving.mark_dirty()
            w.solving.redraw()
            assert cv.unvisited is None, mode
    finally:
        w.shutdown()


def test_a_cell_board_draws_unvisited_states_hatched_with_no_number(qtbot, tmp_path):
    """Issue 35 item 6 on another board (snakes and ladders' cell board): a square the behaviour never
    visited has no learned number, no colour of the value scale, "not visited" on hover."""
    import numpy as np

    w = make_window(qtbot, tmp_path / "settings.ini", game="snakes")
    try:
        one_q_learning_episode(qtbot, w)
        st, mdp = w.controller.history[-1], w.controller.mdp
        unvisited = np.flatnonzero((np.asarray(st.visits) == 0) & ~np.asarray(mdp.terminal))
        assert unvisited.size, "one episode visits every square: no unvisited state to draw"
        b = w.board
        for s in unvisited:
            assert b.is_unvisited(int(s)) and b.cell_text(int(s)) == ("", "")
            assert "not visited" in b.tooltip_text(int(s))
            assert b.cell_color(int(s)).name() == "#d9d9d9"
        visited = np.flatnonzero(np.asarray(st.visits) > 0)
        assert not any(b.is_unvisited(int(s)) for s in visited)
    finally:
        w.shutdown()


def test_far_from_scale_is_for_values_outside_not_for_the_first_episodes():
    """Item 7's rule: SARSA's 0-6 against an exact 230-380 is far; values inside, and the first episodes'
    one initial value, stay on the exact scale (a colour then means the same as on the exact answer)."""
    import numpy as np

    from mdpviz.models.kit.pictures.colors import ColorScale
    from mdpviz.window.learning import far_from_scale

    exact = ColorScale(230.0, 380.0, "V")
    assert far_from_scale(np.linspace(0, 6, 20), exact)
    assert not far_from_scale(np.linspace(240, 370, 20), exact)
    assert not far_from_scale(np.zeros(9), ColorScale(1.0, 7.0, "turns"))  # one initial value: no scale of its own
    assert not far_from_scale(np.array([0.0, 0.5, 3.0, 5.0, 6.5]), ColorScale(1.0, 7.0, "turns"))


def test_sweep_fields_are_named_in_words():
    """Issue 35 item 9: the Sensitivity dock named fields by their code names (``dice[0].trigger``)."""
    from mdpviz.models.kit.game import registry
    from mdpviz.models.kit.teaching.sweep_fields import field_words, numeric_fields

    assert field_words("living_reward") == "living reward"
    assert field_words("risk[4]") == "risk 5"
    assert field_words("request_means[0]") == "request mean 1"
    assert field_words("dice[0].trigger") == "trigger of die 1"
    for key in registry.keys():
        s = registry.get(key)
        for f in numeric_fields(key, s.to_dict(s.default_settings())):
            assert "[" not in f.label and "_" not in f.label and "." not in f.label, (key, f.name, f.label)


def test_the_sensitivity_dock_after_a_game_switch_and_in_presenter_mode(qtbot, projector):
    """Issue 35 item 9: after a game switch the dock kept the old game's axes (titles and ranges); in
    presenter mode it took half of a 720-px projector and left the board 150 px."""
    w = projector
    w.switch_game("gridworld")
    ready(qtbot, w)
    w.view.set_presenter(True)
    panel = w.sensitivity.open_sensitivity()
    panel.set_range("noise", 0.0, 0.5)
    with qtbot.waitSignal(w.controller.job_finished, timeout=60_000):
        assert w.sensitivity.run_sensitivity()
    wait_laid_out(qtbot, w)
    assert w.board.height() >= 200, w.board.height()
    fits(w)
    pi = panel.plot.getPlotItem()
    assert pi.getAxis("bottom").labelText == "noise"
    w.switch_game("snakes")
    ready(qtbot, w)
    assert pi.getAxis("bottom").labelText == "" and panel.phase_plot.getPlotItem().getAxis("left").labelText == ""
    (x0, x1), _ = pi.vb.viewRange()
    assert x1 <= 1.5, (x0, x1)  # no axis of noise's sweep left
    texts = [panel.param.itemText(i) for i in range(panel.param.count())]
    assert texts and all("[" not in t and "." not in t for t in texts), texts
    w.view.set_presenter(False)


def test_one_return_value_is_said_in_words():
    """Issue 35 item 9: the simulation page wrote "1 values, 80% of games between 0 and 0"."""
    import numpy as np

    from mdpviz.models.kit.pictures.display import StrategyRow
    from mdpviz.widgets.simulation import distribution_text, within_text

    row = StrategyRow("optimal", 0.0, 0.0, 0.0, np.zeros(10), returns=(np.array([0.0]), np.array([1.0])))
    text = distribution_text(row, "reward")
    assert "every game returns 0" in text and "1 values" not in text and "between 0 and 0" not in text
    assert "every game returns 0" in within_text(row, "reward")
    two = StrategyRow("optimal", 0.5, 0.5, 0.1, np.zeros(10), returns=(np.array([0.0, 1.0]), np.array([0.5, 0.5])))
    assert "2 values" in distribution_text(two, "reward")


def test_the_simulation_page_after_a_switch_and_its_legend_in_presenter_mode(qtbot, projector):
    """Issue 35 item 9: the shared simulation page kept snakes' 10-40 axis after a game switch, and in
    presenter mode its legend was cut at the plot's edge ("ptimal")."""
    w = projector
    w.switch_game("snakes")
    ready(qtbot, w)
    with qtbot.waitSignal(w.controller.finished, timeout=60_000):
        w.solving.run_solver()
    w.view.set_presenter(True)
    panel = w.playing.sim_panel
    panel.games.setValue(500)
    with qtbot.waitSignal(w.controller.job_finished, timeout=120_000):
        panel.simulate.click()
    w.stage.show_page("simulation")
    wait_laid_out(qtbot, w)
    sim = w.stage.shared_simulation
    assert sim is not None and sim.rows
    view = sim.histogram
    for _, label in sim.legend.items:  # every entry whole, inside the plot
        r = view.mapFromScene(label.mapRectToScene(label.item.boundingRect())).boundingRect()
        assert r.left() >= 0 and r.right() <= view.width(), (label.text, r, view.width())
    (x0, x1), _ = sim.hist_plot.vb.viewRange()
    assert x1 > 5  # snakes' turns
    w.switch_game("gridworld")
    ready(qtbot, w)
    (x0, x1), _ = sim.hist_plot.vb.viewRange()
    assert x1 <= 1.5 and sim.hist_plot.getAxis("bottom").labelText == "", (x0, x1)
    w.view.set_presenter(False)


def test_a_phase_diagram_says_how_long_it_takes(qtbot):
    """Issue 35 item 9: the DiscountGrid phase diagram (41 x 41) took 45-49 s with no word of how long: its
    progress says how long is left from its first cells on."""
    from mdpviz.models.gridworld import BUILTIN_MAPS
    from mdpviz.models.kit.game import registry
    from mdpviz.models.kit.teaching.sensitivity import phase_job, time_left
    from dataclasses import replace

    assert time_left(2.0, 10, 40) == "6 s" and time_left(60.0, 10, 40) == "3 min"
    spec = registry.get("gridworld")
    data = spec.to_dict(replace(spec.default_settings(), grid=BUILTIN_MAPS["discount"]))
    job = phase_job("gridworld", data, ("noise", "living_reward"), ((0.0, 0.5), (-2.0, 1.0)), steps=3)
    texts = []
    try:
        while True:
            texts.append(next(job).text)
    except StopIteration:
        pass
    assert "left)" not in texts[0] and all("left)" in t for t in texts[1:]), texts


def test_a_position_board_draws_an_unvisited_position_hatched_with_no_number(qtbot, tmp_path):
    """Issue 35 item 6 on the position boards (tic-tac-toe): a position the behaviour never visited shows its
    legal moves hatched, no learned number, no greedy star and says so; a visited one is drawn as before."""
    import numpy as np

    from mdpviz.models.kit.boards.position_display import NOT_VISITED

    w = make_window(qtbot, tmp_path / "settings.ini", game="ttt", size=(1366, 768), show=True)
    try:
        one_q_learning_episode(qtbot, w)
        step, mdp, b = w.controller.history[-1], w.controller.mdp, w.board
        unvisited = (np.asarray(step.visits) == 0) & ~np.asarray(mdp.terminal)
        assert np.array_equal(b.unvisited, unvisited)
        s = int(np.flatnonzero(unvisited)[0])
        b.show_token(s)
        assert b.position.state == s and b.canvas.hatched and b.value_label.text() == NOT_VISITED
        assert not any(b.view().texts) and b.view().greedy_cell < 0 and np.isnan(b.view().fill).all()
        assert any("not visited" in tip for tip in b.view().tips)
        seen = int(np.flatnonzero((np.asarray(step.visits) > 0) & ~np.asarray(mdp.terminal))[0])
        b.show_token(seen)
        assert b.position.state == seen and not b.canvas.hatched and any(b.view().texts)
        assert b.value_label.text() != NOT_VISITED
        # the error plot's legend is whole at a laptop's size (its first words were cut at the dock's edge)
        curves = w.learning.learning_curves
        qtbot.waitUntil(lambda: curves.err_legend.columnCount == 1 or curves.err_legend.mapRectToScene(
            curves.err_legend.boundingRect()).left() >= 0)
        leg = curves.err_legend.mapRectToScene(curves.err_legend.boundingRect())
        assert leg.left() >= 0 and leg.right() <= curves.view.width() + 1
    finally:
        w.shutdown()
