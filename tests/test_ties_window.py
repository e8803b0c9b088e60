"""Ties and endless policies in the window (issue 28 item 6): the grid draws every optimal arrow and says so,
a cell board's frame carries the tied dice, a board game stars every optimal move, and the status line names
the states the drawn policy never ends from at discount 1."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from mdpviz.models.gridworld import BUILTIN_MAPS
from mdpviz.models.kit.pictures.ties import tied_sets
from mdpviz.solvers.endless import never_ends
from tests.conftest import make_window, wait_model
from tests.test_ties import brute_force_ties


@pytest.fixture
def window(qtbot, tmp_path):
    w = make_window(qtbot, tmp_path / "s.ini", size=(1366, 768))
    yield w
    w.shutdown()


def ready(qtbot, w):
    wait_model(w, qtbot)  # (the shown game's own model: the first game's is loaded and ready already)
    qtbot.waitUntil(lambda: w.controller.mdp is not None and w.controller.state == "ready", timeout=60_000)


def run(qtbot, w):
    with qtbot.waitSignal(w.controller.finished, timeout=60_000):
        w.solving.run_solver()
    qtbot.waitUntil(lambda: w.controller.state == "converged", timeout=60_000)
    w.solving.mark_dirty()
    w.solving.redraw()


def test_the_4x4_grid_draws_every_optimal_arrow_with_a_legend(qtbot, window):
    w = window
    w.switch_game("gridworld")
    w.game.set_map(BUILTIN_MAPS["sutton4x4"])
    ready(qtbot, w)
    run(qtbot, w)  # figure 4.1: the random policy evaluated; its greedy policy's ties
    mdp = w.controller.mdp
    cv = w.board.canvas
    expect = brute_force_ties(mdp, np.asarray(w.board.sweep.values))
    assert cv.ties == expect and len(expect) == 6
    assert w.board.legend.text().endswith("6 states have ties")
    assert cv.endless is not None and not cv.endless.any()  # the drawn policy ends from everywhere
    assert "never ends" not in w.solver_panel.status.text()


def test_the_status_line_names_the_states_the_drawn_policy_never_ends_from(qtbot, window):
    w = window
    w.switch_game("gridworld")
    w.game.set_map(BUILTIN_MAPS["sutton4x4"])
    ready(qtbot, w)
    w.game.set_settings(living_reward=0.0)  # nothing to pay: every action ties, and the lowest one loops
    ready(qtbot, w)
    run(qtbot, w)
    mdp = w.controller.mdp
    sw = w.board.sweep
    endless = never_ends(mdp, np.asarray(sw.policy))
    assert endless.any()
    names = [w.session.state_name(int(s)) for s in np.flatnonzero(endless)]
    status = w.solver_panel.status.text()
    assert f"the policy never ends from {endless.sum()} states: {', '.join(names[:6])}" in status
    assert np.array_equal(w.board.canvas.endless, endless)
    assert not w.board.canvas.grab().isNull()  # the marks paint
    assert "\u221e: the policy never ends from these" in w.board.legend.text()


def test_snakes_frame_carries_every_tied_die(qtbot, window):
    from mdpviz.screenshots import TIES_LAYOUT

    w = window
    w.switch_game("snakes")
    g = w.game
    g.session.edit(replace(g.cfg, layout=TIES_LAYOUT, circle=False), "a layout with ties")
    ready(qtbot, w)
    run(qtbot, w)
    mdp = w.controller.mdp
    frame = w.board.frame
    hist = w.controller.history
    expect = brute_force_ties(mdp, np.asarray(hist[-2].values))  # value iteration: the sweep's backup, V_(k-1)
    assert dict(frame.ties) == expect and expect  # e.g. all three dice on square 9
    for s, acts in frame.ties.items():
        assert frame.actions[s] in acts and len(frame.tied_badges[s]) == len(acts) - 1
    assert "every optimal action is drawn" in w.board.ties_legend()
    board = w.board
    board.resize(900, 500)
    assert not board.grab().isNull() and board._ties_height() > 0  # painted, the legend given its room
    board.resize(300, 500)
    assert len(board._ties_lines()) == 2  # a narrow board wraps the legend instead of cutting it


def test_tic_tac_toe_stars_every_optimal_move(qtbot, window):
    w = window
    w.switch_game("ttt")
    ready(qtbot, w)
    run(qtbot, w)
    w.stage.show_page("board")
    board = w.board
    board.click_cell(4)  # the agent takes the centre; the random opponent answers (seeded walk)
    w.solving.redraw()
    view = board._view
    mdp = w.controller.mdp
    pos = board.position
    expect = brute_force_ties(mdp, np.asarray(w.controller.history[-1].values)).get(int(pos.state), ())
    cells = {m.cell for i, m in enumerate(view.moves) if m.action in expect and i != view.greedy}
    assert set(view.tied_cells) == cells and len(cells) >= 1
    assert "\u2606 as good as \u2605" in board.visited_label.text()
    t = board.side.moves_table
    stars = [t.item(r, 2).text() for r in range(t.rowCount())]
    assert stars.count("\u2605") == 1 and stars.count("\u2606") == len(cells)


def test_tied_sets_match_the_grid_board_at_every_sweep(qtbot, window):
    # the drawn ties are the inspector's best actions at the shown sweep (not only at the end)
    w = window
    w.switch_game("gridworld")
    w.game.set_map(BUILTIN_MAPS["sutton4x4"])
    ready(qtbot, w)
    run(qtbot, w)
    mdp = w.controller.mdp
    for i in (0, 2, 5):
        w.solver_panel.history.setValue(i)
        w.solving.mark_dirty()
        w.solving.redraw()
        sw = w.solving.shown_sweep()
        assert sw is w.controller.history[i]
        assert w.board.canvas.ties == tied_sets(mdp, mdp.q_values(np.asarray(sw.values)))
        for s in range(mdp.n_states):
            if mdp.terminal[s]:
                continue
            w.solving.inspect(s)
            insp = w.solving.inspection()
            best = [a.action for a in insp.actions if abs(a.q - max(x.q for x in insp.actions)) <= 1e-9 * (1 + abs(a.q))]
            assert tuple(best) == w.board.canvas.ties.get(s, tuple(best)), (i, s)
