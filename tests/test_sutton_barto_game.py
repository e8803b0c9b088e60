"""Sutton and Barto's examples in the window (issue 27): each game's first algorithm in the Solver panel,
the boards redrawn at each Step (figure 4.1's V_k, figure 4.2's policies, figure 4.3's kept sweeps)."""
from __future__ import annotations

import numpy as np
import pytest

from mdpviz.models.jack import move_grid
from tests.conftest import make_window, wait_model


@pytest.fixture
def window(qtbot, tmp_path):
    w = make_window(qtbot, tmp_path / "s.ini", size=(1366, 768))
    yield w
    w.shutdown()


def ready(qtbot, w):
    wait_model(w, qtbot)  # (the shown game's own model: the first game's is loaded and ready already)
    qtbot.waitUntil(lambda: w.controller.mdp is not None and w.controller.state == "ready", timeout=60_000)


def step(qtbot, w):
    n = len(w.controller.history)
    w.solving.step()
    qtbot.waitUntil(lambda: len(w.controller.history) > n and w.controller.state != "stepping", timeout=60_000)
    w.solving.mark_dirty()
    w.solving.redraw()


def test_the_4x4_map_sets_its_rules_and_evaluation_and_the_board_shows_v_k(qtbot, window):
    w = window
    w.switch_game("gridworld")
    ready(qtbot, w)
    assert w.solver_panel.method == "vi"
    ed = w.game.editor()
    ed.map.setCurrentIndex(ed.map.findData("sutton4x4"))
    ed.map.activated.emit(ed.map.currentIndex())
    st = w.game.settings
    assert (st.grid.name, st.convention, st.noise, st.living_reward, st.discount) == ("sutton4x4", "aima", 0.0, -1.0, 1.0)
    assert w.solver_panel.method == "evaluate"  # figure 4.1: iterative evaluation of the random policy
    ready(qtbot, w)
    for _ in range(3):
        step(qtbot, w)
    v3 = np.asarray(w.board.sweep.values).reshape(4, 4)
    printed = [[0, -2.4, -2.9, -3.0], [-2.4, -2.9, -3.0, -2.9], [-2.9, -3.0, -2.9, -2.4], [-3.0, -2.9, -2.4, 0]]
    assert np.all(np.abs(v3 - np.array(printed)) <= 0.05 + 1e-9)  # figure 4.1's V_3, printed to one decimal
    w.game.set_map(__import__("mdpviz.models.gridworld", fromlist=["x"]).BUILTIN_MAPS["book"])
    assert w.solver_panel.method == "vi"  # another map: value iteration again


def test_jack_steps_policy_iteration_and_the_board_draws_each_policy(qtbot, window):
    w = window
    w.switch_game("jack")
    assert w.solver_panel.method == "pi"  # figure 4.2's algorithm
    ready(qtbot, w)
    step(qtbot, w)  # one Step: evaluate pi_0, improve to pi_1
    hist = w.controller.history
    assert [sw.phase for sw in hist] == ["evaluate", "improve"]
    board = w.board
    assert board.sweep is hist[-1]
    assert np.array_equal(board.moves, move_grid(hist[-1].policy)) and int((board.moves == 0).sum()) == 123
    w.solver_panel.history.setValue(0)  # scrub back: pi_0 moves nothing
    w.solving.redraw()
    assert np.all(board.moves == 0)
    lo, hi = board.color_range()
    assert lo <= np.min(hist[0].values) and np.max(hist[0].values) <= hi  # the colour scale holds V of pi_0


def test_gambler_keeps_sweeps_1_2_3_and_shows_every_tied_stake(qtbot, window):
    w = window
    w.switch_game("gambler")
    assert w.solver_panel.method == "gs"  # the book's value iteration sweeps in place
    ready(qtbot, w)
    for _ in range(3):
        step(qtbot, w)
    board = w.board
    assert sorted(board.kept) == [1, 2, 3]
    with qtbot.waitSignal(w.controller.finished, timeout=60_000):
        w.solving.run_solver()
    w.solving.mark_dirty()
    w.solving.redraw()
    assert sorted(board.kept) == [1, 2, 3] and board.sweep.converged
    assert board.ties[51] == (1, 49) and board.ties[50] == (50,)
    assert board.sweep.values[50] == pytest.approx(0.4, abs=1e-8)


def test_evaluating_the_random_policy_colours_by_its_own_values_not_the_optimal_ones():
    """The 4x4 grid's random policy runs to -22 where V* stops at -3: a colour scale from V* painted every
    cell the same dark colour. Policy evaluation's scale is the values it shows (and it has no V* curve)."""
    from mdpviz.models.gridworld import BUILTIN_MAPS, GridSettings, with_map
    from mdpviz.models.kit.game.game_model import build_game
    from mdpviz.models.kit.pictures.value_range import reference_range, solve_range
    from mdpviz.solvers import run, solver

    mdp = build_game("gridworld", with_map(GridSettings(), BUILTIN_MAPS["sutton4x4"])).mdp
    assert reference_range(mdp, "vi").lo == -3.0
    assert reference_range(mdp, "evaluate") is None
    hist = run(solver(mdp, "evaluate", policy="random"), record=True).history
    rng = solve_range(mdp, hist, "evaluate")
    assert rng.source == "seen" and rng.lo == pytest.approx(-22.0, abs=1e-6)


@pytest.mark.parametrize("key, good, bad", [
    ("gambler", {"p_heads": 0.25}, {"p_heads": 1.5}),
    ("jack", {"request_means": (2.0, 5.0)}, {"max_move": -1}),
])
def test_an_edit_is_one_undo_step_and_a_refused_one_keeps_the_settings(window, key, good, bad):
    w = window
    w.switch_game(key)
    g = w.game
    before = g.session.settings
    assert g.set_settings(**good) and g.session.settings != before
    assert g.session.undo_stack.count() >= 1
    after = g.session.settings
    said = []
    g.session.refused.connect(said.append)
    assert not g.set_settings(**bad) and g.session.settings == after  # refused: said, nothing changed
    assert said and said[0].startswith("Not applied")
    assert not g.set_settings(**good)  # the same values again: no edit
    g.session.undo_stack.undo()
    assert g.session.settings == before
