"""Theory on the convergence plot (issue 28, item 3): the true error max |V_k - V*| beside max |dV|, the
stopping rule's bound, the gamma^k envelope and the greedy policy's loss bound, each checked against
what it bounds; the discount-1 sentence; the window's toggle and the lesson snapshot's default."""
from __future__ import annotations

import math

import numpy as np
import pytest

from tests.conftest import wait_model

from mdpviz.models.kit.game.game_model import build_game
from mdpviz.solvers import evaluate_policy, run, solve, solver
from mdpviz.widgets.convergence import ConvergencePlot

CASES = [("gridworld", "vi"), ("gridworld", "gs"), ("ttt", "vi"), ("checkers", "vi")]


def plot_of(qtbot, mdp, method: str, *, tol: float = 1e-10):
    hist = run(solver(mdp, method, tol=tol), record=True).history
    plot = ConvergencePlot()
    qtbot.addWidget(plot)
    plot.reset(tol=tol)
    plot.set_reference(solve(mdp, "pi").values, gamma=float(mdp.discount), method=method)
    plot.extend(hist)
    plot.refresh()
    return plot, hist


@pytest.mark.parametrize("key, method", CASES)
def test_the_bounds_are_never_below_what_they_bound(qtbot, key, method):
    mdp = build_game(key).mdp
    assert mdp.discount < 1
    plot, hist = plot_of(qtbot, mdp, method)
    th = plot.theory()
    v_star = solve(mdp, "pi").values
    err = np.array([np.max(np.abs(np.asarray(sw.values) - v_star)) for sw in hist])
    np.testing.assert_allclose(th["error"], err, rtol=0, atol=0)
    slack = 1e-9 * (1 + np.max(np.abs(v_star)))  # V* itself is exact to about this
    assert np.all(th["bound"] >= err - slack)  # gamma/(1-gamma) ||V_k - V_{k-1}|| >= ||V_k - V*||
    assert np.all(th["envelope"] >= err - slack)  # gamma^k ||V_0 - V*||, V_0 = 0
    # the loss of the policy greedy with respect to V_k, evaluated exactly, is within 2 gamma/(1-gamma) max|dV|
    for k in range(0, len(hist), max(1, len(hist) // 6)):
        q = mdp.q_values(np.asarray(hist[k].values))
        _v, rows = __import__("mdpviz.solvers.sweep", fromlist=["greedy"]).greedy(mdp, q)
        pol = np.where(rows >= 0, np.asarray(mdp.row_action)[np.maximum(rows, 0)], -1)
        loss = np.max(np.abs(evaluate_policy(mdp, pol) - v_star))
        assert loss <= th["loss"][k] + slack, (k, loss, th["loss"][k])


def test_the_error_curve_is_drawn_and_at_discount_one_a_sentence_replaces_the_bounds(qtbot):
    mdp = build_game("snakes").mdp
    assert mdp.discount == 1
    plot, hist = plot_of(qtbot, mdp, "vi")
    th = plot.theory()
    assert set(th) == {"x", "error"} and plot.error_curve.xData.size == len(hist)
    assert plot.bound_curve.xData is None or plot.bound_curve.xData.size == 0
    names = [label.text for _s, label in plot.legend.items]
    assert "discount 1: no contraction bound holds" in names and "error |V\u2212V*|" in names
    assert th["error"][0] > hist[0].delta  # the lesson: early on the change understates the error


def test_policy_iteration_gets_the_error_but_no_value_iteration_bound(qtbot):
    mdp = build_game("gridworld").mdp
    plot, _hist = plot_of(qtbot, mdp, "pi")
    assert set(plot.theory()) == {"x", "error"}


def test_hidden_curves_leave_the_legend_and_come_back(qtbot):
    mdp = build_game("gridworld").mdp
    plot, _ = plot_of(qtbot, mdp, "vi")
    plot.set_theory_shown(False)
    names = [label.text for _s, label in plot.legend.items]
    assert not any("bound" in n or "V*" in n for n in names)
    assert plot.error_curve.xData is None or plot.error_curve.xData.size == 0
    plot.set_theory_shown(True)
    assert plot.error_curve.xData.size > 0


def test_the_window_toggle_draws_the_error_of_its_own_solve(window, qtbot):
    w = window
    w.switch_game("gridworld")
    wait_model(w, qtbot)
    assert not w.solving.act_bounds.isChecked() and not w.convergence.show_theory
    w.solving.act_bounds.trigger()
    assert w.convergence.show_theory
    with qtbot.waitSignal(w.controller.finished, timeout=60_000):
        w.controller.run(math.inf)
    qtbot.waitUntil(lambda: w.convergence.reference is not None, timeout=30_000)
    w.convergence.refresh()
    th = w.convergence.theory()
    assert th and np.nanmin(th["error"]) < 1e-6 and "bound" in th


def test_aimas_sequence_gets_the_error_but_not_the_bounds_stated_for_standard_value_iteration(qtbot):
    from mdpviz.widgets.convergence import bounded_method

    assert bounded_method("vi", {"sequence": "aima"}) == "vi-aima" and bounded_method("vi", {}) == "vi"
    mdp = build_game("gridworld").mdp
    hist = run(solver(mdp, "vi", sequence="aima", epsilon=1e-6), record=True).history
    plot = ConvergencePlot()
    qtbot.addWidget(plot)
    plot.reset(tol=None)
    plot.set_reference(solve(mdp, "pi").values, gamma=float(mdp.discount), method=bounded_method("vi", {"sequence": "aima"}))
    plot.extend(hist)
    plot.refresh()
    assert set(plot.theory()) == {"x", "error"}
