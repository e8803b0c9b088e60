"""Dyna-Q+ in the window (issue 38 item 4): the shortcut maze learned through the Solver panel gives the headless
numbers, the planning curves mark the world's change, the grid draws the model and the last planning updates on
the map after the change, and a solver clears the marks."""
from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import make_window, wait_model


@pytest.fixture
def win(qtbot, tmp_path):
    w = make_window(qtbot, tmp_path / "settings.ini", game="gridworld")
    yield w, qtbot
    w.shutdown()


def test_dyna_q_plus_on_the_shortcut_maze_in_the_window(win):
    from mdpviz.models import gridworld as gw
    from mdpviz.solvers.dyna import DynaStep, dyna_learner

    w, qtbot = win
    pages = w.conv_stack.count()  # (the planning curves are built when a planning method is first picked)
    w.game.set_map(gw.BUILTIN_MAPS["shortcut"])
    wait_model(w, qtbot)
    p = w.solver_panel
    p.algorithm.setCurrentIndex(p.algorithm.findData("dyna-q+"))
    lp = p.learning
    assert lp.planning_row.isVisibleTo(lp) and lp.kappa.isEnabled()
    for spin, value in ((lp.planning_steps, 3), (lp.total_steps, 3030), (lp.episodes, 100_000), (lp.max_steps, 100_000)):
        spin.setValue(value)
    qtbot.waitUntil(lambda: w.controller.method == "dyna-q+" and w.controller.state == "ready", timeout=20_000)
    c = w.controller
    assert c.options["switch_after"] == 3000 and c.options["planning_steps"] == 3
    w.solving.run_solver()
    qtbot.waitUntil(lambda: c.state == "converged", timeout=60_000)
    w.solving.redraw()
    last = c.history[-1]
    assert isinstance(last, DynaStep) and last.real_steps == 3030 and last.switched
    # the same numbers as the headless method with the same options
    ref = list(dyna_learner(c.mdp, "dyna-q+", **{**c.options, "batch": 10 ** 6}))[-1]
    assert np.array_equal(ref.q, last.q) and ref.planning_updates == last.planning_updates == 3 * 3030
    curves = w.learning.dyna.plan_curves
    assert w.conv_stack.currentWidget() is curves and curves.switch_line.isVisible()
    assert w.conv_stack.count() == pages + 1
    assert curves.switch_line.value() == 3000
    label, steps, ends, cum = curves.curves()[0]
    assert steps.size == last.episode and ends[-1] == 3030 and cum[-1] == last.cumulative_reward
    # the grid draws the map after the change (its opening on the right is a cell again) and the model's marks
    canvas = w.board.canvas
    after = w.game.session.built().after
    assert canvas.geometry_ is after.geometry and canvas.geometry_.state[3, 8] >= 0
    marks = canvas.model_marks
    assert marks is not None and 1 <= sum(len(d) for d in marks.planned.values()) <= 3
    assert sum(len(d) for d in marks.known.values()) + sum(len(d) for d in marks.untried.values()) == last.known.sum()
    assert "world changed" in w.board.canvas.caption or "world changed" in p.status.text()
    # a solver: no model to draw
    p.algorithm.setCurrentIndex(p.algorithm.findData("vi"))
    qtbot.waitUntil(lambda: c.method == "vi", timeout=20_000)
    w.solving.redraw()
    assert canvas.model_marks is None and w.conv_stack.currentWidget() is not curves
    # the panel's planning fields go to a scenario and come back
    saved = lp.scenario_settings()
    assert saved["planning_steps"] == 3 and saved["total_steps"] == 3030
    lp.planning_steps.setValue(7)
    lp.set_scenario_settings(saved)
    assert lp.planning_steps.value() == 3


def test_planning_curves_keep_the_last_runs_beside_the_new_one(qtbot):
    from types import SimpleNamespace

    from mdpviz.widgets.dyna import KEEP_RUNS, DynaCurves, shown_labels

    c = DynaCurves()
    qtbot.addWidget(c)
    for k, n in enumerate((0, 5, 50, 7, 9)):
        c.reset(f"Dyna-Q n={n}", switch_after=0)
        c.extend([SimpleNamespace(lengths=(100 - k, 20), episode_ends=(100 - k, 120 - k), episode_rewards=(1.0, 2.0))])
    c.refresh()
    drawn = c.curves()
    assert [d[0] for d in drawn] == ["Dyna-Q n=9", "Dyna-Q n=7", "Dyna-Q n=50", "Dyna-Q n=5"]  # newest first
    assert len(drawn) == KEEP_RUNS + 1 and list(drawn[0][1]) == [96, 20] and list(drawn[0][2]) == [96, 116]
    c.reset("Dyna-Q n=50", switch_after=3000)  # the same label again: the old n = 50 run goes, the n = 9 run stays
    c.refresh()
    assert [d[0] for d in c.curves()] == ["Dyna-Q n=50", "Dyna-Q n=9", "Dyna-Q n=7", "Dyna-Q n=5"][:KEEP_RUNS + 1]
    assert c.switch_line.isVisible() and c.switch_line.value() == 3000
    assert shown_labels(["Dyna-Q n=5", "Dyna-Q n=0"]) == ["n=5", "n=0"]
    assert shown_labels(["Dyna-Q+ n=25 \u03ba=0.001", "Dyna-Q n=25"]) == ["Dyna-Q+ n=25 \u03ba=0.001", "Dyna-Q n=25"]
