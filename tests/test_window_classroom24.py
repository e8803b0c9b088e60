"""Issue 24's remaining window items, each as a class meets it: a solve kept across game switches,
clipped captions and controls, the episode player's end, readable small text, the presenter inspector,
Taxi's board and the 3D game's lesson."""
from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import make_window


@pytest.fixture
def win(qtbot, tmp_path):
    w = make_window(qtbot, tmp_path / "settings.ini")
    yield w
    w.shutdown()


def run_to_end(qtbot, w, timeout: int = 60_000) -> None:
    with qtbot.waitSignal(w.controller.finished, timeout=timeout):
        w.solver_panel.run.click()
    w.redraw()


def test_switching_games_keeps_each_games_finished_solve(qtbot, win):
    win.switch_game("gridworld")
    run_to_end(qtbot, win)
    values = np.asarray(win.controller.solution.values).copy()
    n = len(win.controller.history)
    assert win.controller.state == "converged" and n > 1
    win.switch_game("snakes")
    assert win.controller.history == [] and win.controller.state == "ready"  # snakes has no solve yet
    win.switch_game("gridworld")
    c = win.controller
    assert c.state == "converged" and len(c.history) == n
    assert np.array_equal(c.solution.values, values)
    win.redraw()
    assert win.convergence.point_count == n  # the plot shows the solve again
    assert win.shown_sweep() is c.history[-1]  # and the board its last sweep
    # an edit makes the kept solve stale: the next visit starts afresh
    win.switch_game("snakes")
    win.game_by_key("gridworld").session.set_discount(0.5)
    win.switch_game("gridworld")
    assert win.controller.history == [] and win.controller.state == "ready"
