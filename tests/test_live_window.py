"""Live re-solve and the policy diff in the window (mdpviz.window.live): every edit re-solved through the
controller, the diff against two separate headless solves, Undo's reverse diff, the fallback of a large
model with its sentence, a stale re-solve superseded. No timing: qtbot.waitUntil on the controller."""
from __future__ import annotations

import numpy as np
import pytest

from mdpviz.models.gridworld.rules import BUILTIN_MAPS
from mdpviz.models.kit.pictures.policy_diff import policy_diff
from mdpviz.solvers import solve
from mdpviz.window.live import LIVE_MAX_TRANSITIONS, live_refusal, transitions_text

from .conftest import make_window, wait_model
from .test_live_diff import brute_optimal


@pytest.fixture
def win(qtbot, tmp_path):
    w = make_window(qtbot, tmp_path / "settings.ini", live=True)
    yield w
    w.shutdown()


def solved(w) -> bool:
    c = w.controller
    return c.state == "converged" and c.mdp is w.session.mdp() and w.live.live_diff is not None


def wait_diff(qtbot, w) -> None:
    qtbot.waitUntil(lambda: solved(w), timeout=60_000)
    w.solving.redraw()


def solve_first(qtbot, w) -> None:
    """The shown game solved once (what the first edit's diff compares with)."""
    w.solving.run_solver()
    qtbot.waitUntil(lambda: w.controller.state == "converged", timeout=60_000)


def check_diff(w, before_mdp, after_mdp) -> None:
    """The window's diff equals two separate headless solves (exact values, the tie rule read state by state)."""
    vb, va = solve(before_mdp, "pi").values, solve(after_mdp, "pi").values
    d = w.live.live_diff
    ob, oa = brute_optimal(before_mdp, vb), brute_optimal(after_mdp, va)
    labels = after_mdp.state_labels or [str(s) for s in range(after_mdp.n_states)]
    expected = np.array([lab in ob and ob[lab] != oa[lab] for lab in labels])
    assert np.array_equal(d.changed, expected)
    ref = policy_diff(before_mdp, vb, after_mdp, va)
    np.testing.assert_allclose(d.dv, ref.dv, rtol=0, atol=1e-9)


def test_live_is_on_by_default_and_saved(qtbot, tmp_path):
    w = make_window(qtbot, tmp_path / "s.ini", live=None)  # the app's own default
    assert w.live.live_resolve and w.live.act_live.isChecked()
    w.live.act_live.trigger()
    assert not w.live.live_resolve
    w.shutdown()
    w2 = make_window(qtbot, tmp_path / "s.ini", live=None)
    assert not w2.live.live_resolve and not w2.live.act_live.isChecked()
    w2.shutdown()


def test_grid_edit_resolves_and_marks_the_changed_states(qtbot, win):
    w = win
    w.switch_game("gridworld")
    g = w.game
    g.set_map(BUILTIN_MAPS["discount"], "discount grid")
    solve_first(qtbot, w)
    before = w.session.mdp()
    g.set_living_reward(-2.0)  # an edit: solved at once, no Run pressed
    wait_model(w, qtbot)
    assert w.controller.state in ("running", "converged")
    wait_diff(qtbot, w)
    after = w.session.mdp()
    check_diff(w, before, after)
    assert w.live.live_diff.n_changed > 0
    cv = w.board.canvas
    assert set(cv.marked) == set(np.flatnonzero(w.live.live_diff.changed).tolist())
    assert "changed action" in cv.caption
    # the difference map: dV on a diverging scale centred on 0, then the solve before the edit
    w.live.set_diff_mode("difference")
    w.solving.redraw()
    assert cv.change_map and cv.diverging and cv.lo == -cv.hi
    np.testing.assert_allclose(np.nan_to_num(cv.values), np.nan_to_num(w.live.live_diff.dv))
    w.live.act_diff_before.trigger()
    w.solving.redraw()
    assert w.live.diff_mode == "before" and not w.live.act_diff_map.isChecked()
    np.testing.assert_allclose(cv.values, solve(before, "vi", tol=1e-9).values, atol=1e-6)
    assert cv.caption.startswith("Before the edit")
    # Undo is an edit too: the way back, the same states marked, dV reversed
    first = w.live.live_diff
    w.live.act_diff_before.trigger()  # back to "after"
    w.act_undo.trigger()
    wait_diff(qtbot, w)
    assert w.live.live_diff is not first
    check_diff(w, after, before)
    assert np.array_equal(w.live.live_diff.changed, first.changed)
    np.testing.assert_allclose(w.live.live_diff.dv, -first.dv, atol=1e-9)


def test_snakes_trap_diff_on_the_cell_board(qtbot, win):
    w = win
    assert w.game.key == "snakes"
    solve_first(qtbot, w)
    before = w.session.mdp()
    lay = list(w.session.settings.layout)
    lay[7] = 1  # a trap on square 8: back to the start
    from dataclasses import replace

    w.session.edit(replace(w.session.settings, layout=tuple(lay)), "square 8: restart")
    wait_diff(qtbot, w)
    check_diff(w, before, w.session.mdp())
    board = w.board
    assert np.array_equal(board.frame.changed, w.live.live_diff.changed & ~w.session.mdp().terminal)
    w.live.set_diff_mode("difference")
    w.solving.redraw()
    assert board.shown_scale is not None and board.shown_scale.kind == "diverging"
    assert board.shown_scale.lo == -board.shown_scale.hi
    np.testing.assert_allclose(board.frame.values, w.live.live_diff.dv)


def test_a_stale_resolve_is_superseded(qtbot, win):
    w = win
    w.switch_game("gridworld")
    g = w.game
    solve_first(qtbot, w)
    g.set_noise(0.3)
    job = w.controller._job
    g.set_noise(0.4)  # before the first re-solve is drawn: it is dropped, only the newest edit is solved
    assert w.controller._job > job
    wait_diff(qtbot, w)
    assert w.session.settings.noise == 0.4
    assert w.controller.mdp is w.session.mdp()
    np.testing.assert_allclose(w.controller.history[-1].values, solve(w.session.mdp(), "vi", tol=1e-9).values,
                               atol=1e-6)
    # the diff compares with the last solve that finished (noise 0.2), not the superseded one
    assert w.live._live_before.mdp.n_states == w.session.mdp().n_states


def test_a_large_model_falls_back_with_a_sentence(qtbot, win):
    w = win
    w.switch_game("gridworld")
    w.live.live_max_transitions = 10  # the same rule, at a size the 4x3 grid is over
    msgs = []
    w.statusBar().messageChanged.connect(msgs.append)
    w.game.set_noise(0.1)
    wait_model(w, qtbot)
    assert w.controller.state == "ready"  # not run: Run is the user's
    n = w.session.mdp().n_transitions
    assert any(f"{n} transitions: live re-solve is off for this model, press Run" in m for m in msgs)


def test_refusal_rule():
    assert live_refusal(4_100_000, None) == "4.1 million transitions: live re-solve is off for this model, press Run"
    assert live_refusal(LIVE_MAX_TRANSITIONS, None) == ""
    # the last live re-solve took 0.4 s for 100,000 transitions: 200,000 would take about 0.8 s
    assert "the last solve took 0.4 s for 100,000 transitions (this model: about 0.8 s)" in live_refusal(200_000, (100_000, 0.4))
    assert live_refusal(100_000, (100_000, 0.4)) == ""
    # a tiny model's time (fixed costs, mostly) does not predict a model far larger: that one is tried
    assert live_refusal(160_300, (98, 0.0008)) == "" and "about 0.64 s" in live_refusal(392, (98, 0.16))
    assert transitions_text(273_016) == "273,016 transitions"


def test_live_off_leaves_the_board_unsolved(qtbot, win):
    w = win
    w.live.set_live_resolve(False)
    w.switch_game("gridworld")
    w.game.set_noise(0.1)
    wait_model(w, qtbot)
    assert w.controller.state == "ready" and not w.controller.history


def test_stepping_a_spin_box_resolves_as_it_moves(qtbot, win):
    w = win
    w.switch_game("gridworld")
    solve_first(qtbot, w)
    ed = w.stage._editor_page(w.game)
    jobs = w.controller._job
    for _ in range(3):  # the arrows held down: each step is an edit, each re-solve supersedes the last
        ed.noise.stepUp()
    assert w.session.settings.noise == pytest.approx(0.35)
    assert w.controller._job >= jobs + 3
    wait_diff(qtbot, w)
    np.testing.assert_allclose(w.controller.history[-1].values, solve(w.session.mdp(), "vi", tol=1e-9).values,
                               atol=1e-6)


def test_gambler_p_heads_step_resolves(qtbot, win):
    w = win
    w.switch_game("gambler")
    solve_first(qtbot, w)
    ed = w.stage._editor_page(w.game)
    ed.p_heads.stepDown()
    wait_diff(qtbot, w)
    assert w.session.settings.p_heads == pytest.approx(0.35)
    assert w.controller.mdp is w.session.mdp()


def test_jack_falls_back_to_run(qtbot, win):
    w = win
    w.switch_game("jack")
    msgs = []
    w.statusBar().messageChanged.connect(msgs.append)
    assert w.game.set_settings(max_move=4)
    # Jack's model compiles off the GUI thread (about a second); the fallback is said once it is shown
    qtbot.waitUntil(lambda: w.session.mdp() is not None and w.controller.mdp is w.session.mdp(), timeout=120_000)
    n = w.session.mdp().n_transitions
    assert n > w.live.live_max_transitions
    assert w.controller.state == "ready"
    assert any(f"{transitions_text(n)}: live re-solve is off for this model, press Run" in m for m in msgs)


def test_a_larger_grid_leaves_the_new_states_uncompared(qtbot, win):
    from mdpviz.models.gridworld.rules import GridMap

    w = win
    w.switch_game("gridworld")
    solve_first(qtbot, w)
    before = w.session.mdp()
    grid = w.session.settings.grid
    # an edit of the shown map (its name kept: another map's name is a new lesson, not diffed; issue 35 item 2)
    wider = GridMap(tuple(tuple(r) + (".",) for r in grid.cells), grid.start, grid.name)
    w.game.set_map(wider, "one more column")
    wait_diff(qtbot, w)
    d = w.live.live_diff
    assert d.n_new == grid.rows and not np.any(d.changed[~d.compared])
    check_diff(w, before, w.session.mdp())
    msgs = []
    w.statusBar().messageChanged.connect(msgs.append)
    w.live.set_diff_mode("before")  # the old solve has no values for the new column: said, not drawn
    w.solving.redraw()
    assert any("other states" in m for m in msgs)
    w.live.set_diff_mode("difference")
    w.solving.redraw()
    cv = w.board.canvas
    geom = w.game.geometry()
    new_cells = [geom.cell_of(int(s)) for s in np.flatnonzero(~d.compared)]
    assert all(cv._value(r, c) is None for r, c in new_cells)  # uncoloured, no number
    assert "new state" in cv.caption


def test_gambler_marks_the_changed_capitals_and_draws_the_change(qtbot, win):
    w = win
    w.switch_game("gambler")
    solve_first(qtbot, w)
    before = w.session.mdp()
    assert w.game.set_settings(p_heads=0.25)
    wait_diff(qtbot, w)
    check_diff(w, before, w.session.mdp())
    board = w.board
    assert board.show_change(w.live.live_diff, "after")
    w.live.set_diff_mode("difference")
    w.solving.redraw()
    assert board.shown_scale is not None and board.shown_scale.kind == "diverging"
    assert w.color_bar.scale == board.shown_scale  # the window's colour bar shows the diverging scale
