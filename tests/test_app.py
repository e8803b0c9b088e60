"""The main window, driven through its widgets' own methods (tier 3 of the house style).

Each test gets a window with stand-in dialogs (nothing modal ever blocks) and its own settings
file; the conftest fails any test that leaves a worker thread running.
"""
from __future__ import annotations

import csv
import io
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QWidget

from mdpviz.app import MainWindow
from mdpviz.controller import running_threads
from mdpviz.models import snakes as sn
from mdpviz.core.mdp import TabularMDP
from mdpviz.core.cs747 import load_cs747
from mdpviz.solvers import solve
from tests.conftest import LAYOUT, SMALL_MDP, make_window, open_scenario_via_menu, wait_model


def snakes(w: MainWindow):
    return w.stage.game_by_key("snakes")


def set_layout(w: MainWindow, qtbot, layout=LAYOUT, circle=False) -> None:
    g = snakes(w)
    g.session.edit(replace(g.cfg, layout=tuple(layout), circle=circle), "test layout")
    wait_model(w, qtbot)


def run_to_end(qtbot, w: MainWindow, timeout: int = 30_000) -> None:
    with qtbot.waitSignal(w.controller.finished, timeout=timeout):
        w.solver_panel.run.click()
    w.solving.redraw()


def step_once(qtbot, w: MainWindow) -> None:
    n = len(w.controller.history)
    w.solver_panel.step.click()
    qtbot.waitUntil(lambda: len(w.controller.history) > n and w.controller.state != "stepping", timeout=10_000)
    w.solving.redraw()


# ---------------------------------------------------------------------------------- the frame
KEY_CONTROLS = ("gamePicker", "boardView", "convergencePlot", "algorithmPicker", "stepButton", "runButton",
                "resetButton", "episodePlayer", "simulateButton", "pauseButton", "evaluateButton", "improveButton",
                "historySlider", "toleranceEdit", "discountEdit", "speedPicker", "inspector", "simulationTable",
                "histogramPlot", "circleToggle", "ruleSetPicker", "diceEditor", "editModeButton", "colorBar")


def test_key_controls_have_object_and_accessible_names(window):
    window.stage.show_page("simulation")  # the pages beside the board are built when first shown
    for name in KEY_CONTROLS:
        w = window.findChild(QWidget, name)
        assert w is not None, name
        assert w.accessibleName(), name
    # the simulation is a page beside the board ("centralTabs"), not a dock, since issue 13
    for dock in ("gameDock", "solverDock", "inspectorDock", "episodeDock", "convergenceDock", "centralTabs",
                 "simulationStack"):
        assert window.findChild(QWidget, dock) is not None


def test_constructible_with_no_arguments(qtbot, monkeypatch):
    monkeypatch.setenv("MDPVIZ_SETTINGS_ORG", "mdpviz-tests-noargs")
    w = MainWindow()
    qtbot.addWidget(w)
    try:
        wait_model(w, qtbot)
        assert w.settings.organizationName() == "mdpviz-tests-noargs"  # never the user's "mdpviz"
        assert w.settings.applicationName() == "mdpviz"
        assert w.game.key == "snakes" and w.controller.state == "ready"
        w.shutdown()
        assert running_threads() == []
    finally:
        w.settings.clear()  # leave nothing behind
        w.settings.sync()
        f = Path(w.settings.fileName())
        f.unlink(missing_ok=True)
        if f.parent.name == "mdpviz-tests-noargs" and not any(f.parent.iterdir()):
            f.parent.rmdir()


def test_switching_games_keeps_each_games_edits(qtbot, window, small_file):
    set_layout(window, qtbot)
    assert window.stage.game_picker.currentText() == "Snakes and ladders"
    window.stage.game_picker.setCurrentIndex(1)
    assert window.game.key == "file" and window.controller.mdp is None
    window.files.open_mdp_file(small_file)
    assert window.controller.mdp.n_states == 3
    window.stage.game_picker.setCurrentIndex(0)
    assert window.game.key == "snakes"
    assert snakes(window).cfg.layout == LAYOUT
    assert window.controller.mdp.n_states == 15
    assert window.controller.mdp.reward.max() == 2.0  # the prisons (2 turns) are still there
    window.stage.game_picker.setCurrentIndex(1)
    assert window.game.fstate.path == str(small_file) and window.controller.mdp.n_states == 3
    # each game has its own undo history
    assert window.undo_group.activeStack() is window.game.session.undo_stack


# ---------------------------------------------------------------------------------- editing
def test_editing_a_square_changes_the_mdp_and_resets_the_solver(qtbot, window):
    window.show()
    for _ in range(3):
        step_once(qtbot, window)
    assert len(window.controller.history) == 3 and window.convergence.point_count == 3
    old = window.controller.mdp
    window.findChild(QWidget, "editModeButton").click()
    assert snakes(window).edit_mode
    centre = window.board.cell_rect(4).center().toPoint()  # square 5
    qtbot.mouseClick(window.board, Qt.MouseButton.LeftButton, pos=centre)
    assert snakes(window).cfg.layout[4] == 1  # ordinary -> restart
    wait_model(window, qtbot)
    assert window.controller.mdp is not old
    assert window.controller.history == [] and window.controller.state == "ready"
    window.solving.redraw()
    assert window.convergence.point_count == 0
    assert "stale" in window.statusBar().currentMessage()
    # the new MDP has the restart: a risky throw from 4 that stops on 5 goes back to square 1
    outs = window.controller.mdp.outcomes(3, 2)
    assert any(d == 0 for d, _, _ in outs)
    qtbot.mouseClick(window.board, Qt.MouseButton.LeftButton, pos=centre)
    assert snakes(window).cfg.layout[4] == 2  # restart -> penalty


def test_squares_1_and_15_refuse_traps(qtbot, window):
    g = snakes(window)
    g.edit_mode = True
    old = window.controller.mdp
    window.board.cell_clicked.emit(0)
    assert g.cfg.layout[0] == 0 and window.controller.mdp is old
    assert "Square 1 is the start" in window.statusBar().currentMessage()
    window.board.cell_clicked.emit(14)
    assert g.cfg.layout[14] == 0
    assert "Square 15 is the goal" in window.statusBar().currentMessage()
    assert "Square 15 is the goal" in window.stage.edit_refusal.text()  # and in the Game dock, kept
    menu = window.board.cell_menu(0)
    enabled = [a.text() for a in menu.actions() if a.isEnabled() and not a.isSeparator()]
    assert enabled == ["Inspect square 1", "ordinary \u2713"]
    menu = window.board.cell_menu(6)
    texts = [a.text() for a in menu.actions() if not a.isSeparator()]
    assert texts == ["Inspect square 7", "ordinary \u2713", "restart", "penalty", "prison", "bonus"]
    [a for a in menu.actions() if a.text() == "prison"][0].trigger()
    assert g.cfg.layout[6] == 3


def test_undo_and_redo_of_edits(qtbot, window):
    g = snakes(window)
    g.set_square(5, 3)
    g.set_square(9, 4)
    assert g.cfg.layout[4] == 3 and g.cfg.layout[8] == 4
    window.act_undo.trigger()
    assert g.cfg.layout[8] == 0 and g.cfg.layout[4] == 3
    wait_model(window, qtbot)
    assert window.controller.mdp.row_reward[window.controller.mdp.state_ptr[7]:].min() > 0  # no bonus any more
    window.act_undo.trigger()
    assert g.cfg.layout == (0,) * 15
    window.act_redo.trigger()
    assert g.cfg.layout[4] == 3
    assert window.act_undo.shortcut().toString() == "Ctrl+Z"
    assert "Ctrl+Shift+Z" in [s.toString() for s in window.act_redo.shortcuts()]


def test_circle_rule_set_and_dice_editing(qtbot, window):
    g = snakes(window)
    ed = g.editor()
    ed.circle.click()
    wait_model(window, qtbot)
    assert g.cfg.circle and window.controller.mdp is g.session.mdp()
    ed.rules.setCurrentIndex(ed.rules.findText("special die"))
    assert g.cfg.dice == sn.DEFAULT_DICE + (sn.SPECIAL,)
    wait_model(window, qtbot)
    assert window.controller.mdp.n_actions == 4 and ed.dice.rowCount() == 4
    ed.rules.setCurrentIndex(ed.rules.findText("statement"))
    assert g.cfg.dice == sn.DEFAULT_DICE
    # edit the normal die's faces in the table: 0, 1 or 2 with 1/4, 1/4, 1/2
    ed.dice.item(1, 1).setText("0:1/4, 1:1/4, 2:1/2")
    assert g.cfg.dice[1].faces == ((0, 0.25), (1, 0.25), (2, 0.5))
    assert ed.rules.currentText() == "custom"
    mdp = wait_model(window, qtbot)
    p_two = sum(p for d, p, _ in mdp.outcomes(0, 1) if d == 2)  # from square 1, die 2 reaches 3 with 1/2
    assert p_two == pytest.approx(0.5)
    # a bad edit is refused with a message and the table shows the die again
    ed.dice.item(1, 1).setText("0:1/2, 1:1/4")
    assert g.cfg.dice[1].faces == ((0, 0.25), (1, 0.25), (2, 0.5))
    assert "sum to 0.75" in window.statusBar().currentMessage()
    assert ed.dice.item(1, 1).text() == "0:1/4, 1:1/4, 2:1/2"
    ed.dice.item(2, 2).setText("1/3")
    assert g.cfg.dice[2].trigger == pytest.approx(1 / 3)


# ---------------------------------------------------------------------------------- solving
def test_step_advances_one_sweep_and_the_plot_gains_one_point(qtbot, window):
    set_layout(window, qtbot)
    assert window.convergence.point_count == 0
    step_once(qtbot, window)
    assert len(window.controller.history) == 1 and window.convergence.point_count == 1
    sw = window.controller.history[0]
    assert window.board.frame.values.tolist() == sw.values.tolist()
    assert window.board.cell_text(0) == ("1.00", "1")  # every square costs one turn after the first sweep
    step_once(qtbot, window)
    assert len(window.controller.history) == 2 and window.convergence.point_count == 2
    assert window.solver_panel.history_label.text() == "2 / 2"


@pytest.mark.parametrize("circle", [False, True])
def test_run_converges_and_the_board_shows_markov_decision(qtbot, window, circle):
    set_layout(window, qtbot, LAYOUT, circle)
    window.solver_panel.tolerance.setText("1e-12")
    window.solver_panel.tolerance.editingFinished.emit()
    assert window.controller.options == {"tol": 1e-12}
    run_to_end(qtbot, window)
    expec, dice = sn.markovDecision(np.array(LAYOUT), circle)
    frame = window.board.frame
    assert np.allclose(frame.values[:14], expec, atol=1e-9, rtol=0)
    assert [window.board.cell_text(s)[1] for s in range(14)] == [str(d) for d in dice]
    assert [window.board.cell_text(s)[0] for s in range(14)] == [f"{v:.2f}" for v in expec]
    assert "converged" in window.board.caption
    assert window.controller.state == "converged"
    # the colour scale was fixed for the run and spans the optimal values shown
    assert window.solving.scale.lo <= expec.min() and window.solving.scale.hi >= expec.max()
    assert (expec.max() - expec.min()) / (window.solving.scale.hi - window.solving.scale.lo) >= 0.7


@pytest.mark.parametrize("method", ["gs", "pi", "lp"])
def test_every_algorithm_reaches_markov_decision(qtbot, window, method):
    set_layout(window, qtbot)
    window.solver_panel.algorithm.setCurrentIndex(window.solver_panel.algorithm.findData(method))
    assert window.controller.method == method
    run_to_end(qtbot, window)
    expec, dice = sn.markovDecision(np.array(LAYOUT), False)
    sol = window.controller.solution
    assert np.allclose(sol.values[:14], expec, atol=1e-7)
    assert np.array_equal(sol.policy[:14] + 1, dice)


def test_policy_iteration_evaluate_and_improve_buttons(qtbot, window):
    set_layout(window, qtbot)
    p = window.solver_panel
    p.algorithm.setCurrentIndex(p.algorithm.findData("pi"))
    window.solving.redraw()
    assert p.evaluate.isVisibleTo(window) and p.evaluate.isEnabled() and not p.improve.isEnabled()
    with qtbot.waitSignal(window.controller.sweeps_added, timeout=10_000) as b:
        p.evaluate.click()
    assert b.args[0][-1].phase == "evaluate"
    qtbot.waitUntil(lambda: window.controller.state == "paused", timeout=10_000)
    window.solving.redraw()
    assert p.improve.isEnabled() and not p.evaluate.isEnabled()
    with qtbot.waitSignal(window.controller.sweeps_added, timeout=10_000) as b:
        p.improve.click()
    assert b.args[0][-1].phase == "improve"
    qtbot.waitUntil(lambda: window.controller.state == "paused", timeout=10_000)
    n = len(window.controller.history)
    p.step.click()  # Step = one full round
    qtbot.waitUntil(lambda: len(window.controller.history) == n + 2 and window.controller.state != "stepping",
                    timeout=10_000)
    assert [sw.phase for sw in window.controller.history[-2:]] == ["evaluate", "improve"]


def test_pause_and_speed(qtbot, window):
    set_layout(window, qtbot)
    p = window.solver_panel
    p.speed.setCurrentIndex(0)  # 1 sweep per second
    assert window.controller.rate == 1.0
    p.run.click()
    assert window.controller.state == "running"
    qtbot.waitUntil(lambda: len(window.controller.history) >= 1, timeout=10_000)
    p.pause.click()
    assert window.controller.state == "paused"
    assert len(window.controller.history) <= 2
    p.speed.setCurrentIndex(p.speed.count() - 1)
    assert window.controller.rate == math.inf


def test_a_click_on_a_square_inspects_it_in_front(qtbot, window):
    """The cell board asks the window to inspect a clicked square and to bring the inspector forward
    (it is a tab beside the lesson); the menu's "Inspect" inspects it too."""
    w = window
    w.show()
    w.lesson_dock.raise_()
    qtbot.waitUntil(lambda: w.inspector_dock.visibleRegion().isEmpty())
    w.board.cell_clicked.emit(3)
    assert w.solving.selected == 3 and w.board.selected == 3
    qtbot.waitUntil(lambda: not w.inspector_dock.visibleRegion().isEmpty())
    [a for a in w.board.cell_menu(9).actions() if a.text() == "Inspect square 10"][0].trigger()
    assert w.solving.selected == 9 and w.inspector.inspection.title.startswith("square 10")


def test_inspector_numbers_equal_the_solvers_q_values(qtbot, window):
    set_layout(window, qtbot)
    for _ in range(5):
        step_once(qtbot, window)
    mdp = window.controller.mdp
    window.board.cell_clicked.emit(6)  # inspect square 7 (not in edit mode)
    window.solving.redraw()
    sw = window.controller.history[-1]
    # value iteration's sweep 5 backed up from sweep 4's values: the inspector shows that backup,
    # so its best Q is the value on the square and its best die is the square's die
    q = mdp.q_values(window.controller.history[-2].values)
    rows = range(mdp.state_ptr[6], mdp.state_ptr[7])
    shown = window.inspector.q_values
    assert shown.keys() == {0, 1, 2}
    for r in rows:
        assert shown[int(mdp.row_action[r])] == pytest.approx(q[r], abs=1e-12)
    insp = window.inspector.inspection
    assert insp.title == "square 7 after sweep 5"
    best = [a.action for a in insp.actions if a.best]
    assert best == [int(np.argmin(q[list(rows)]))] == [int(sw.policy[6])]
    assert min(a.q for a in insp.actions) == pytest.approx(sw.values[6], abs=1e-12)
    # the written backup ends with the same number
    for a in insp.actions:
        assert a.text.endswith(f"= {a.q:.4f}")
    # successors of the greedy die are highlighted, with their probabilities
    succ = window.board.successors
    greedy = int(sw.policy[6])
    expected: dict[int, float] = {}
    for d, p, _ in mdp.outcomes(6, greedy):
        expected[d] = expected.get(d, 0.0) + p
    assert succ.keys() == expected.keys()
    assert all(succ[k] == pytest.approx(v) for k, v in expected.items())
    assert window.board.selected == 6
    # scrubbing back shows the inspector as it was
    window.solver_panel.history.setValue(1)
    window.solving.redraw()
    q1 = mdp.q_values(window.controller.history[0].values)  # sweep 2 backed up from sweep 1
    assert window.inspector.q_values[0] == pytest.approx(q1[mdp.state_ptr[6]])
    assert window.inspector.inspection.title == "square 7 after sweep 2"


def test_history_slider_scrubs_back_through_sweeps(qtbot, window):
    set_layout(window, qtbot)
    run_to_end(qtbot, window)
    h = window.controller.history
    slider = window.solver_panel.history
    assert slider.maximum() == len(h) - 1 and slider.value() == len(h) - 1
    slider.setValue(3)
    window.solving.redraw()
    assert window.board.frame.values.tolist() == h[3].values.tolist()
    assert "sweep 4" in window.board.caption and f"(step 4 of {len(h)})" in window.board.caption
    assert window.convergence.cursor.isVisible()
    slider.setValue(len(h) - 1)
    window.solving.redraw()
    assert window.board.frame.values.tolist() == h[-1].values.tolist()


def test_file_game_grid_graph_and_discount(qtbot, window, small_file):
    window.files.open_mdp_file(small_file)
    assert window.game.key == "file" and window.stage.game_picker.currentIndex() == 1
    assert window.board.layout_.kind == "grid" and len(window.board.layout_.cells) == 3
    window.game.editor().view.setCurrentIndex(1)
    assert window.game.view == "graph"
    assert window.board.layout_.kind == "graph"
    assert window.controller.state == "ready"  # a view change is not an edit
    run_to_end(qtbot, window)
    sol = window.controller.solution
    assert np.allclose(sol.values, [3.0, 2.0, 0.0], atol=1e-7) and sol.policy.tolist() == [1, 0, -1]
    window.solving.redraw()
    arrows = {(window.board.layout_.cells[a.src].state, window.board.layout_.cells[a.dst].state): a.weight
              for a in window.board.layout_.arrows}
    assert arrows == {(0, 2): 1.0, (1, 2): 1.0}  # the arrows of the solved policy
    assert window.solver_panel.discount.isEnabled() and window.solver_panel.discount.value() == 0.9
    window.solver_panel.discount.setValue(0.5)
    assert window.controller.mdp.discount == 0.5 and window.controller.history == []
    run_to_end(qtbot, window)
    assert window.controller.solution.values[0] == pytest.approx(3.0)
    window.act_undo.trigger()
    assert window.controller.mdp.discount == 0.9
    window.switch_game("snakes")
    assert not window.solver_panel.discount.isEnabled()


def test_course_file_50_states_offers_no_graph(qtbot, window, cs747_dir):
    window.files.open_mdp_file(cs747_dir / "mdp" / "continuing-mdp-50-20.txt")
    assert len(window.board.layout_.cells) == 50 and window.board.layout_.kind == "grid"
    assert not window.game.set_view("graph")
    assert "at most 30 states" in window.statusBar().currentMessage()
    run_to_end(qtbot, window)
    ref = load_cs747(cs747_dir / "mdp" / "continuing-mdp-50-20.txt")
    assert np.allclose(window.controller.solution.values, solve(ref, "pi").values, atol=1e-8)


def open_dialog_and_wait(qtbot, window) -> None:
    """File > Open course MDP file, which reads the file on the job thread: wait until it is done."""
    window.files.open_mdp_dialog()
    qtbot.waitUntil(lambda: not window.controller.job_busy, timeout=60_000)


def test_bad_file_shows_an_error_and_leaves_the_previous_state(qtbot, window, small_file, tmp_path):
    set_layout(window, qtbot)
    bad = tmp_path / "bad.txt"
    bad.write_text(SMALL_MDP.replace("transition 0 1 2 3 1.0", "transition 0 1 2 3 0.7"))
    old_mdp = window.controller.mdp
    window.dialogs.open_path = str(bad)
    open_dialog_and_wait(qtbot, window)
    assert len(window.dialogs.errors) == 1
    title, text = window.dialogs.errors[0]
    assert text.startswith(f"{bad}:6:") and "probabilities sum to 0.7" in text
    assert window.game.key == "snakes" and window.controller.mdp is old_mdp  # nothing changed
    assert snakes(window).cfg.layout == LAYOUT
    # with a file already open, a bad one leaves it open
    window.files.open_mdp_file(small_file)
    good = window.controller.mdp
    window.dialogs.open_path = str(bad)
    open_dialog_and_wait(qtbot, window)
    assert len(window.dialogs.errors) == 2
    assert window.game.fstate.path == str(small_file) and window.controller.mdp is good
    bad.write_text(SMALL_MDP.replace("numActions 2", "numActions x"))
    open_dialog_and_wait(qtbot, window)
    assert window.dialogs.errors[-1][1].startswith(f"{bad}:2:")
    window.dialogs.open_path = str(tmp_path / "missing.txt")
    open_dialog_and_wait(qtbot, window)
    assert "no such file" in window.dialogs.errors[-1][1]


# ---------------------------------------------------------------------------------- playing it out
def test_simulation_finishes_within_ci_of_the_exact_value(qtbot, window, tmp_path):
    set_layout(window, qtbot)
    run_to_end(qtbot, window)
    sp = window.stage.simulation
    sp.games.setValue(4000)
    progress = []
    window.controller.job_progress.connect(lambda d, t, s: progress.append((d, t)))
    with qtbot.waitSignal(window.controller.job_finished, timeout=60_000):
        sp.simulate.click()
        assert sp.cancel.isEnabled() and not sp.simulate.isEnabled()
    rows = {r.name: r for r in window.playing.sim_result.rows}
    assert list(rows) == ["optimal", "security", "normal", "risky", "random", "mixed"]
    expec, _ = sn.markovDecision(np.array(LAYOUT), False)
    opt = rows["optimal"]
    assert opt.exact == pytest.approx(expec[0], abs=1e-9)
    assert opt.games == 4000
    assert abs(opt.mean - opt.exact) <= opt.ci  # seed 2024: inside the 95% interval
    for r in rows.values():
        assert r.exact >= opt.exact - 1e-9  # nothing beats the optimum
        assert abs(r.mean - r.exact) <= 4 * r.ci
    assert rows["security"].exact == pytest.approx(17.0)  # hand value: see the next test
    assert progress and progress[-1][0] == progress[-1][1]
    assert sp.table.rowCount() == 6 and sp.table.item(0, 0).text() == "optimal"
    assert sp.table.item(0, 1).text() == f"{opt.exact:.3f}"
    assert f"exact {opt.exact:.10g}" in sp.table.item(0, 1).toolTip()  # full precision on hover
    assert not sp.cancel.isEnabled() and sp.simulate.isEnabled()
    # CSV export
    out = window.files.export_csv(tmp_path / "sim.csv")
    table = list(csv.reader(io.StringIO(out.read_text())))
    assert table[1][0] == "optimal" and float(table[1][3]) == opt.exact and float(table[1][4]) == opt.mean
    # the histogram as PNG and SVG
    for ext in ("png", "svg"):
        p = window.files.export_figure("histogram", tmp_path / f"hist.{ext}")
        assert p.stat().st_size > 1000


def test_security_die_alone_takes_17_turns_whatever_the_layout():
    """Hand check of the "security" row: that die moves 1 square with probability 1/2 (2 throws per
    square on average) and ignores traps. From square 1: 2 squares to the junction 3, then the slow
    lane 4..10, 15 (8 squares) or the fast lane 11..14, 15 (5 squares) with 1/2 each:
    2 x (2 + 8/2 + 5/2) = 17 turns."""
    from mdpviz.models.snakes.simulate import exact_turns, strategy_probs

    for cfg in (sn.SnakesSettings(layout=LAYOUT), sn.SnakesSettings()):
        assert exact_turns(cfg, strategy_probs(cfg, "security"))[0] == pytest.approx(17.0)


def test_simulation_can_be_cancelled(qtbot, window):
    set_layout(window, qtbot)
    sp = window.stage.simulation
    sp.games.setValue(1_000_000)
    with qtbot.waitSignal(window.controller.job_cancelled, timeout=60_000):
        sp.simulate.click()
        sp.cancel.click()
    assert window.playing.sim_result is None
    assert "cancelled" in sp.status.text().lower()
    assert sp.simulate.isEnabled()


def test_an_edit_during_a_simulation_discards_its_results(qtbot, window):
    set_layout(window, qtbot)
    window.stage.simulation.games.setValue(200_000)
    window.stage.simulation.simulate.click()
    snakes(window).set_square(6, 3)  # the model changes: the job is cancelled and its results dropped
    qtbot.waitUntil(lambda: not window.controller.job_busy, timeout=60_000)
    assert window.playing.sim_result is None


def test_episode_player_plays_a_game_on_the_board(qtbot, window):
    set_layout(window, qtbot)
    run_to_end(qtbot, window)
    player = window.player
    assert [player.strategy.itemText(i) for i in range(player.strategy.count())] == \
        ["optimal", "security", "normal", "risky", "random", "mixed"]
    player.new.click()
    moves = player.moves
    assert moves and moves[-1].next_state == 14  # the game reached square 15
    policy = window.controller.solution.policy
    assert all(m.action == policy[m.state] for m in moves)  # the optimal die on every square
    assert window.board.token == 0  # at the start
    player.step_btn.click()
    assert window.board.token == moves[0].next_state
    while player.step_btn.isEnabled():
        player.step_btn.click()
    assert window.board.token == 14
    total = sum(m.cost for m in moves)
    assert moves[-1].total == total and f"{total:g} turns" in player.status.text()
    assert "finished" in player.status.text()
    player.strategy.setCurrentText("security")
    player.new.click()
    assert all(m.action == 0 for m in player.moves)
    assert all(("restart" not in m.text and "prison" not in m.text) for m in player.moves)  # immune to traps
    # play animates on the GUI thread's timer
    player.speed.setValue(20)
    player.play.click()
    qtbot.waitUntil(lambda: player.index == len(player.moves) - 1, timeout=30_000)
    assert not player.play.isChecked()


# ---------------------------------------------------------------------------------- scenarios
def test_save_and_load_round_trip(qtbot, window, small_file, tmp_path):
    g = snakes(window)
    set_layout(window, qtbot, LAYOUT, True)
    g.set_die(1, sn.Die("lucky", ((1, 1 / 3), (2, 2 / 3)), 0.25))
    window.files.open_mdp_file(small_file)
    window.solver_panel.discount.setValue(0.75)
    window.game.set_view("graph")
    window.switch_game("snakes")
    window.solver_panel.algorithm.setCurrentIndex(window.solver_panel.algorithm.findData("gs"))
    window.solver_panel.set_tolerance(1e-7)
    assert window.files.dirty and window.windowTitle().endswith("*")
    path = tmp_path / "scn.json"
    window.dialogs.save_path = str(path)
    assert window.files.save_scenario_dialog()
    assert path.exists() and not window.files.dirty and not window.windowTitle().endswith("*")
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".scn")] == []  # no temporary file left

    other = make_window(qtbot, tmp_path / "other.ini")
    try:
        other.files.load_scenario(path)
        assert snakes(other).cfg == g.cfg
        f = other.stage.game_by_key("file")
        assert f.fstate == window.stage.game_by_key("file").fstate and f.view == "graph"
        assert wait_model(other, qtbot, f).discount == 0.75
        assert other.game.key == "snakes" and other.solver_panel.method == "gs" and other.solver_panel.tol == 1e-7
        assert other.controller.mdp is snakes(other).session.mdp() and not other.files.dirty
        assert other.windowTitle() == "mdpviz \u2014 Snakes and ladders \u2014 scn.json"
        # a broken scenario shows an error and changes nothing
        bad = tmp_path / "bad.json"
        bad.write_text(path.read_text().replace('"circle": true', '"circle": "maybe"'))
        other.dialogs.open_path = str(bad)
        open_scenario_via_menu(other, qtbot)
        assert other.dialogs.errors and "games.snakes.circle" in other.dialogs.errors[-1][1]
        assert snakes(other).cfg == g.cfg
    finally:
        other.shutdown()


def test_opening_a_scenario_over_unsaved_edits_asks_and_undo_goes_back(qtbot, window, tmp_path):
    g, d = snakes(window), window.dialogs
    path = window.files.save_scenario(tmp_path / "a.json")  # the defaults
    first = g.cfg
    d.open_path = str(path)
    open_scenario_via_menu(window, qtbot)
    assert d.asked == 0 and not window.files.dirty  # nothing unsaved: nothing to ask
    set_layout(window, qtbot)
    edited = g.cfg
    d.unsaved_answer = "cancel"
    open_scenario_via_menu(window, qtbot)
    assert d.asked == 1 and g.cfg == edited and window.files.dirty  # cancelled: the edits stay
    d.unsaved_answer = "discard"
    open_scenario_via_menu(window, qtbot)
    assert d.asked == 2 and g.cfg == first and not window.files.dirty
    assert window.undo_group.undoText() == "open a.json"
    window.undo_group.undo()  # back to what the window showed before opening
    assert g.cfg == edited and window.files.dirty and window.controller.mdp is g.session.mdp()
    d.unsaved_answer = "save"  # saved to the scenario's file, then opened again: the edits are kept
    open_scenario_via_menu(window, qtbot)
    assert d.asked == 3 and g.cfg == edited and not window.files.dirty and not d.errors


def test_opening_a_course_file_is_unsaved_only_when_the_scenario_names_another(qtbot, window, small_file, tmp_path):
    from mdpviz.core.examples import mdp_examples

    window.files.open_mdp_file(small_file)
    f = window.stage.game_by_key("file")
    assert window.game is f and f.fstate.path == str(small_file)
    assert not window.files.dirty and window.undo_group.undoText() == "opened small.txt"  # untitled: browsing files
    window.files.save_scenario(tmp_path / "s.json")
    window.files.open_mdp_file(small_file)  # the file the scenario names
    assert not window.files.dirty
    window.files.open_mdp_file(mdp_examples()[0].path)  # another file than the scenario's
    assert window.files.dirty and window.windowTitle().endswith("*")
    window.undo_group.undo()
    assert f.fstate.path == str(small_file) and not window.files.dirty


def test_quitting_with_unsaved_edits_asks_first(qtbot, window):
    window.show()
    snakes(window).set_square(4, 1)
    window.dialogs.unsaved_answer = "cancel"
    window.close()
    assert window.dialogs.asked == 1 and window.isVisible()
    assert running_threads()  # still working
    window.dialogs.unsaved_answer = "discard"
    window.close()
    assert window.dialogs.asked == 2 and not window.isVisible()
    assert running_threads() == []


def test_quitting_without_edits_does_not_ask(qtbot, window):
    window.show()
    window.close()
    assert window.dialogs.asked == 0 and not window.isVisible()


# ---------------------------------------------------------------------------------- view
def test_presenter_mode_scales_up_and_back(qtbot, window):
    window.show()
    window.resize(1280, 720)
    base = window.font().pointSizeF()
    left_area = window.dockWidgetArea(window.game_dock)
    window.view.act_presenter.trigger()
    assert window.view.presenter and window.font().pointSizeF() == pytest.approx(base * 1.5)
    assert window.findChild(QWidget, "stepButton").font().pointSizeF() == pytest.approx(base * 1.5)
    assert window.dockWidgetArea(window.game_dock) == Qt.DockWidgetArea.RightDockWidgetArea
    assert window.minimumSizeHint().height() <= 720 and window.minimumSizeHint().width() <= 1280
    window.view.act_presenter.trigger()
    assert not window.view.presenter and window.font().pointSizeF() == pytest.approx(base)
    assert window.dockWidgetArea(window.game_dock) == left_area


def test_export_figures(qtbot, window, tmp_path):
    window.show()
    set_layout(window, qtbot)
    run_to_end(qtbot, window)
    for which in ("board", "convergence"):
        for ext in ("png", "svg"):
            p = window.files.export_figure(which, tmp_path / f"{which}.{ext}")
            assert p.stat().st_size > 1000, p
    assert (tmp_path / "board.svg").read_text().lstrip().startswith("<?xml")
    with pytest.raises(ValueError, match="png or .svg"):
        window.files.export_figure("board", tmp_path / "board.jpg")
    with pytest.raises(ValueError, match="unknown figure"):
        window.files.export_figure("teapot", tmp_path / "x.png")
    with pytest.raises(ValueError, match="run a simulation first"):
        window.files.export_csv(tmp_path / "x.csv")


def test_layout_and_settings_are_remembered(qtbot, tmp_path):
    ini = tmp_path / "remember.ini"
    w = make_window(qtbot, ini)
    w.show()
    w.convergence_dock.hide()
    w.solver_panel.speed.setCurrentIndex(2)
    w.close()
    assert running_threads() == []
    w2 = make_window(qtbot, ini)
    w2.show()
    try:
        assert not w2.convergence_dock.isVisible()
        assert w2.solver_panel.speed.currentIndex() == 2 and w2.controller.rate == 5.0
    finally:
        w2.shutdown()


def test_keyboard_shortcuts(qtbot, window):
    assert window.solving.act_step.shortcut().toString() == "Space"
    assert window.solving.act_run.shortcut().toString() == "R"
    assert window.solving.act_stop.shortcut().toString() == "Esc"
    window.show()
    with qtbot.waitActive(window, timeout=5000):
        window.activateWindow()
    qtbot.keyClick(window, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: len(window.controller.history) >= 1 and window.controller.state == "paused",
                    timeout=10_000)
    assert len(window.controller.history) == 1, (len(window.controller.history), QApplication.focusWidget())
    window.solver_panel.speed.setCurrentIndex(0)  # 1 sweep per second: still running when Esc comes
    qtbot.keyClick(window, Qt.Key.Key_R)
    assert window.controller.state == "running"
    qtbot.keyClick(window, Qt.Key.Key_Escape)
    assert window.controller.state == "paused"
    snakes(window).set_square(3, 2)
    qtbot.keyClick(window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert snakes(window).cfg.layout[2] == 0
    qtbot.keyClick(window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert snakes(window).cfg.layout[2] == 2


# ---------------------------------------------------------------------------------- responsiveness
def test_gui_thread_stays_responsive_while_run_solves(qtbot, window):
    """A 10 ms QTimer on the GUI thread keeps ticking while Run solves a model of 2,000 states sweep
    after sweep (redrawing at screen rate).

    Pass/fail on what a fault breaks and load does not: ticks must arrive while the solve is under way
    (a solve on the GUI thread lets no tick see a partial history, however fast or slow the machine).
    No wall-time bound: the gaps themselves (largest, 95th percentile) are measured by
    ``mdpviz bench gui``."""
    n = 2000
    s = np.arange(n)
    big = TabularMDP.from_transitions(n, 2, np.r_[s, s], np.r_[np.zeros(n), np.ones(n)],
                                      np.r_[(s + 1) % n, (s * 7 + 3) % n], np.ones(2 * n),
                                      np.r_[np.ones(n), np.zeros(n) + 0.5], discount=0.995)
    window.show()
    window.controller.reset(big, "vi", tol=1e-9)
    seen: list[int] = []  # recorded sweeps at each tick, while the solve had not finished

    def tick() -> None:
        if window.controller.solution is None:
            seen.append(len(window.controller.history))

    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(tick)
    timer.start()
    with qtbot.waitSignal(window.controller.finished, timeout=120_000):
        window.controller.run(math.inf)
    timer.stop()
    sweeps = len(window.controller.history)
    assert sweeps > 500 and window.controller.solution.converged
    mid = [k for k in seen if 0 < k < sweeps]
    assert len(set(mid)) >= 3, f"the GUI thread saw only {sorted(set(mid))} of {sweeps} sweeps while Run solved"
