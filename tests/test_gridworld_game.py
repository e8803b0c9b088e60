"""The grid world and Gymnasium games in the window: board, edits with undo, stale solution,
Q triangles, token, colour range, scenarios, lesson, export."""
from __future__ import annotations

import pytest

from mdpviz.models import gridworld as gw
from mdpviz.models.gridworld import arrow_geometry, grid_color_range
from mdpviz.models.gym import split_kwargs
from tests.conftest import make_window, wait_model


@pytest.fixture
def window(qtbot, tmp_path):
    w = make_window(qtbot, tmp_path / "s.ini", size=(1280, 720), game="gridworld")
    yield w
    w.shutdown()


def run_to_end(qtbot, w):
    with qtbot.waitSignal(w.controller.finished, timeout=30_000):
        w.solver_panel.run.click()
    w.solving.redraw()


# --------------------------------------------------------------------------- pure
def test_color_range_diverges_around_zero_only_with_both_signs():
    assert grid_color_range(-1.0, 0.5) == (-1.0, 1.0, True)
    assert grid_color_range(0.2, 0.9) == (0.2, 0.9, False)
    assert grid_color_range(0.0, 0.9, [-10.0]) == (-10.0, 10.0, True)
    assert grid_color_range(0.0, 0.0) == (0.0, 1.0, False)


def test_arrows_are_at_least_24_px_in_cells_that_hold_them():
    for side in (60, 80, 100, 200):
        start, length = arrow_geometry(side)
        assert length >= 24 and start + length <= 0.5 * side


def test_split_kwargs_keeps_brackets_and_quotes():
    assert split_kwargs("map_name='8x8' is_slippery=False, desc=['SF', 'FG']") == [
        "map_name='8x8'", "is_slippery=False", "desc=['SF', 'FG']"]


# --------------------------------------------------------------------------- window
def test_grid_world_solves_on_its_board(qtbot, window):
    w = window
    g = w.game
    assert g.key == "gridworld" and not w.color_bar.isVisible()
    board = w.stage.game_boards["gridworld"]
    assert w.stage.board_stack.currentWidget() is board
    run_to_end(qtbot, w)
    cv = board.canvas
    assert cv.values is not None
    assert gw.cell_value(cv.geometry_, cv.values, 2, 0) == pytest.approx(0.4907, abs=5e-5)
    lo, hi = board.color_range()
    assert lo <= -1.0 and hi >= 1.0 and lo == -hi  # values of both signs: diverging, centred on 0
    assert cv.diverging
    # every action's Q as triangles: the best one at the start is north
    board.set_q_view(True)
    assert cv.show_q
    q = cv.q[g.session.start_state()]
    assert max(q, key=q.get) == "north"
    w.grab()  # paints without error in every mode
    board.set_q_view(False)
    board.values_box.setChecked(False)
    w.grab()


def test_edit_cycles_a_cell_goes_stale_and_undoes(qtbot, window):
    w = window
    g = w.game
    board = w.stage.game_boards["gridworld"]
    run_to_end(qtbot, w)
    before = g.settings
    board.edit_mode.setChecked(True)
    board.canvas.cell_clicked.emit(0, 0)  # open -> wall
    assert g.settings.grid.cells[0][0] == gw.WALL
    wait_model(w, qtbot)
    assert len(w.controller.history) == 0  # the solver was reset
    w.solving.redraw()
    assert "stale" in board.canvas.caption
    assert "stale" in w.statusBar().currentMessage()
    board.canvas.cell_clicked.emit(0, 0)  # wall -> exit with the editor's reward
    assert g.settings.grid.cells[0][0] == 1.0
    g.new_exit_reward = -5.0
    menu = dict(g.grid_menu(0, 1))
    next(fn for t, fn in menu.items() if t.startswith("Exit with reward -5"))()
    assert g.settings.grid.cells[0][1] == -5.0
    # the start cannot be walled; it can move
    r0, c0 = g.settings.grid.start
    assert not g.set_cell(r0, c0, gw.WALL)
    assert g.move_start(1, 0) and g.settings.grid.start == (1, 0)
    for _ in range(4):
        w.undo_group.undo()
    assert g.settings == before
    # noise, living reward and convention fields edit through the same undo stack
    ed = g.editor()
    ed.noise.setValue(0.0)
    ed.noise.editingFinished.emit()
    assert g.settings.noise == 0.0
    ed.convention.setCurrentIndex(ed.convention.findData("aima"))
    ed.convention.activated.emit(ed.convention.currentIndex())
    assert g.settings.convention == "aima" and "Russell-Norvig" in ed.convention_note.text()
    w.undo_group.undo()
    w.undo_group.undo()
    assert g.settings == before
    # an edit that would make the values infinite is refused with a message
    w.solver_panel.set_discount(1.0, editable=True)
    g.session.set_discount(1.0)
    assert not g.set_living_reward(0.5) and g.settings.living_reward == 0.0


def test_a_refused_edit_puts_the_field_back_and_says_why_under_the_editor(qtbot, window):
    w = window
    g = w.game
    assert g.session.set_discount(1.0)
    ed = w.stage.editor_stack.currentWidget()
    steps, settings = g.session.undo_stack.count(), g.session.settings
    ed.living.setValue(0.1)
    ed.living.editingFinished.emit()  # what Enter or leaving the field does
    assert g.session.settings is settings and g.session.undo_stack.count() == steps
    assert ed.living.value() == settings.living_reward  # the field shows the model again, not 0.1
    assert not w.stage.edit_refusal.isHidden() and "discount" in w.stage.edit_refusal.text()
    w.statusBar().showMessage("another note")  # the next status message does not take the reason away
    assert "discount" in w.stage.edit_refusal.text()
    w.switch_game("snakes")  # another game's editor: not its reason
    assert w.stage.edit_refusal.isHidden()
    w.switch_game("gridworld")
    assert "discount" in w.stage.edit_refusal.text()
    ed.noise.setValue(0.1)
    ed.noise.editingFinished.emit()  # the next edit that is applied clears it
    assert g.session.settings.noise == 0.1 and w.stage.edit_refusal.isHidden()


def test_inspect_click_and_episode_token(qtbot, window):
    w = window
    g = w.game
    board = w.stage.game_boards["gridworld"]
    run_to_end(qtbot, w)
    with qtbot.waitSignal(board.inspect_requested):
        board.canvas.cell_clicked.emit(2, 0)
    assert w.solving.selected == g.session.start_state()
    insp = w.solving.inspection()
    best = [a.name for a in insp.actions if a.best]
    assert best == ["north"] and insp.value == pytest.approx(0.4907, abs=5e-5)
    assert w.playing.new_episode("optimal")
    moves = w.player.moves
    assert moves[0].state == g.session.start_state()
    assert moves[-1].next_state == g.session.mdp().n_states - 1  # CS188: the episode ends in "exited"
    w.player.step()  # the token moves with the episode
    assert board.canvas.token == moves[0].next_state
    w.grab()


def test_map_file_and_scenario_round_trip(qtbot, window, tmp_path):
    w = window
    g = w.game
    p = tmp_path / "m.txt"
    p.write_text("S . . 10\n. # . -10\n")
    assert g.open_map_file(p)
    g.set_convention("aima")
    g.set_living_reward(-0.5)
    out = tmp_path / "sc.json"
    w.files.save_scenario(out)
    g.set_map(gw.BUILTIN_MAPS["maze"])
    w.files.load_scenario(out)
    g = w.stage.game_by_key("gridworld")
    assert g.settings.grid.cells == gw.parse_grid(p.read_text()).cells
    assert (g.settings.convention, g.settings.living_reward) == ("aima", -0.5)
    bad = tmp_path / "bad.txt"
    bad.write_text("S . x\n")
    with pytest.raises(gw.GridFileError, match="bad.txt:1"):
        g.open_map_file(bad)


def test_lesson_states_both_conventions(window):
    from mdpviz.export import game_lesson

    lesson = game_lesson(window.game)
    html = lesson.html()
    assert "Shown here: CS188" in html and "The other one: Russell and Norvig" in html


def test_export_gridworld_headless(tmp_path, capsys):
    from mdpviz.cli import main

    out = tmp_path / "grid.png"
    assert main(["export", "--game", "gridworld", "--figure", "board", "--out", str(out), "--width", "640",
                 "--height", "480"]) == 0
    assert out.stat().st_size > 1000


def test_gym_game_frozenlake_and_taxi(qtbot, window):
    pytest.importorskip("gymnasium")
    w = window
    w.switch_game("gym")
    g = w.game
    board = w.stage.game_boards["gym"]
    run_to_end(qtbot, w)
    assert board.stack.currentWidget() is board.canvas  # FrozenLake: a grid
    assert board.canvas.geometry_.rows == 4
    ed = g.editor()
    ed.env.setCurrentText("FrozenLake-v1")
    ed.map.setCurrentText("8x8")
    ed.slippery.setChecked(False)
    assert ed.apply_settings()
    assert wait_model(w, qtbot).n_states == 65
    with qtbot.waitSignal(g.session.refused, timeout=30_000):  # imported on the job thread, then refused
        assert g.set_environment("FrozenLake-v1", "map_name='9x9'")
    wait_model(w, qtbot)
    assert g.gstate.kwargs == (("map_name", "'8x8'"), ("is_slippery", "False"))  # stays on 8x8
    assert g.session.mdp().n_states == 65
    assert g.set_environment("Taxi-v4", "")
    run_to_end(qtbot, w)
    assert board.stack.currentWidget() is board.canvas  # Taxi: the grid of the taxi's cells, one slice (issue 24)
    assert (board.canvas.geometry_.rows, board.canvas.geometry_.cols) == (5, 5)
    assert g.session.state_name(0).startswith("taxi (0,0)")
    w.grab()
    w.undo_group.undo()
    assert g.gstate.env_id == "FrozenLake-v1"
    assert g.session.load_dict(g.session.to_dict(), "x") == g.gstate  # the scenario data round-trips


def test_gym_game_without_gymnasium_explains(qtbot, window, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "gymnasium", None)
    w = window
    w.switch_game("gym")
    g = w.game
    g._env = None
    g.session.edit(g.gstate.__class__("CliffWalking-v1", (), 0.9), "cliff")
    wait_model(w, qtbot)
    assert g.session.mdp() is None and 'pip install "mdpviz[gym]"' in g.session.mdp_error()


def test_simulation_and_compare_methods_in_the_window(qtbot, window):
    w = window
    g = w.game
    g.set_convention("aima")
    g.set_living_reward(-0.04)
    g.session.set_discount(1.0)
    run_to_end(qtbot, w)
    with qtbot.waitSignal(w.controller.job_finished, timeout=60_000):
        assert w.playing.start_simulation(2000, 3)
    rows = {r.name: r for r in w.playing.sim_result.rows}
    assert rows["optimal"].exact == pytest.approx(0.7053, abs=5e-5)  # AIMA fig. 17.3's start value
    assert abs(rows["optimal"].mean - rows["optimal"].exact) < 5 * rows["optimal"].ci + 1e-9
    assert w.classroom.compare_methods()
    qtbot.waitUntil(lambda: not w.controller.job_busy, timeout=60_000)
    assert "agree" in w.statusBar().currentMessage()  # the comparison's summary: every method agrees


# --------------------------------------------------------------------------- issue 26 in the window
def step_once(qtbot, w):
    with qtbot.waitSignal(w.controller.sweeps_added, timeout=10_000):
        w.solver_panel.step.click()
    w.solving.redraw()


def test_async_vi_outlines_the_one_state_each_step_backs_up(qtbot, window):
    """Asynchronous VI in the Solver panel: each Step backs up one state, in state order (CS188 q4),
    and the board outlines that state; the order picker offers random states too."""
    w = window
    p = w.solver_panel
    p.set_method("async-vi")
    assert p.order.isVisibleTo(p) and not p.theta.isVisibleTo(p)
    board = w.stage.game_boards["gridworld"]
    geom = w.game.geometry()
    for k in range(3):
        step_once(qtbot, w)
        sw = w.controller.history[-1]
        assert sw.phase == "update" and sw.updated == (k,)
        assert board.canvas.updated == geom.cell_of(k)
    assert "one state backed up" in board.canvas.caption
    assert "backed up in this step" in board.canvas.tooltip(*geom.cell_of(2))
    w.grab()  # the outline paints
    p.set_method("vi")
    step_once(qtbot, w)
    assert board.canvas.updated is None  # a sweep updates every state: nothing singled out


def test_prioritized_sweeping_and_random_policy_evaluation_are_one_choice_away(qtbot, window):
    w = window
    p = w.solver_panel
    p.set_method("prioritized")
    assert p.theta.isVisibleTo(p) and w.solving.solver_options()["theta"] == pytest.approx(1e-5)
    p.theta.setText("0")
    p.theta.editingFinished.emit()  # refused: theta must be > 0; the last good value stays
    assert w.solving.solver_options()["theta"] == pytest.approx(1e-5)
    step_once(qtbot, w)
    sw = w.controller.history[-1]
    assert sw.method == "prioritized" and len(sw.updated) == 1
    assert w.stage.game_boards["gridworld"].canvas.updated == w.game.geometry().cell_of(sw.updated[0])
    i = p.algorithm.findData("evaluate")
    assert "random policy" in p.algorithm.itemText(i)
    p.algorithm.setCurrentIndex(i)
    assert w.solving.solver_options()["policy"] == "random"
    with qtbot.waitSignal(w.controller.finished, timeout=30_000):
        p.run.click()
    from mdpviz.solvers import solve

    want = solve(w.session.mdp(), "evaluate", policy="random", tol=p.tol).values
    assert w.controller.history[-1].values == pytest.approx(want, abs=1e-12)


def test_the_convention_in_force_is_chosen_and_said_in_the_solver_panel(qtbot, window):
    w = window
    p = w.solver_panel
    assert "ties" not in w.solving.solver_options() and "q_from" not in w.solving.solver_options()  # the defaults
    assert "lowest action id" in p.convention.toolTip() and "V_(k-1)" in p.convention.toolTip()
    p.set_conventions(ties="strict", q_from="current")
    assert w.controller.options["ties"] == "strict" and w.controller.options["q_from"] == "current"
    assert "strict float maximum" in p.convention.toolTip() and "V_k itself" in p.convention.toolTip()
    step_once(qtbot, w)
    assert w.controller.history[-1].q_from == "current"
    p.set_conventions(sequence="aima")
    assert w.controller.options.get("sequence") == "aima" and "epsilon" in w.controller.options
    assert "AIMA's sequence" in p.convention.toolTip()
    text = w.classroom.lesson_panel.browser.toPlainText()  # the lesson names the algorithm and the convention in force
    assert "The algorithm" in text and "strict float maximum" in text and "aima-python" in text
    p.set_method("prioritized")
    assert "Prioritized sweeping" in w.classroom.lesson_panel.browser.toPlainText()


def test_a_cell_gets_its_own_reward_from_the_cell_menu(qtbot, window):
    w = window
    g = w.game
    g.new_exit_reward = -0.5
    menu = dict(g.grid_menu(0, 0))
    key = next(k for k in menu if k.startswith("Open cell with its own reward -0.5"))
    menu[key]()
    assert g.settings.grid.cells[0][0] == ".-0.5"
    wait_model(w, qtbot)
    s = int(g.geometry().state[0, 0])
    mdp = w.session.mdp()
    assert set(mdp.row_reward[mdp.state_ptr[s]:mdp.state_ptr[s + 1]].round(12)) == {-0.5}
    w.solving.redraw()
    assert "R -0.5" in w.stage.game_boards["gridworld"].canvas.tooltip(0, 0)  # the cell's label says its reward
