"""The exact distribution of the return (issue 28, item 4, "and of the return where it takes finitely
many values"): its mean is the policy's value, it agrees with a closed form and with simulated games,
it says when the return takes too many values, and the command line prints it."""
from __future__ import annotations

import json

import numpy as np
import pytest

from mdpviz.cli import main
from mdpviz.models.kit.game.game_model import build_game
from mdpviz.core.mdp import TabularMDP
from mdpviz.core.simulate import policy_matrix, simulate, uniform_policy_matrix
from mdpviz.solvers import evaluate_stochastic_policy, solve
from mdpviz.solvers.distribution import return_distribution


@pytest.mark.parametrize("key", ["gridworld", "gym", "ttt", "snakes", "attt"])
@pytest.mark.parametrize("which", ["optimal", "random"])
def test_the_mean_is_the_policys_value(key, which):
    g = build_game(key)
    mdp, start = g.mdp, g.start_state()
    pol = np.asarray(solve(mdp, "pi").policy) if which == "optimal" else uniform_policy_matrix(mdp)
    d = return_distribution(mdp, pol, start)
    exact = evaluate_stochastic_policy(mdp, pol if pol.ndim == 2 else policy_matrix(mdp, pol))[start]
    assert not d.stopped and d.never == 0.0 and d.tail < 1e-8
    assert abs(d.probabilities.sum() + d.tail - 1.0) < 1e-12 and np.all(d.probabilities > 0)
    assert np.all(np.diff(d.values) > 0)
    # the tail's games are missing from the mean: at most tail x the largest |return|
    bound = 1e-9 + d.tail * max(1.0, float(np.abs(d.values).max()))
    assert abs(d.mean() - exact) <= bound


def test_a_geometric_wait_has_its_closed_form():
    """Each move reaches the goal (reward 1) with probability q, else stays (reward 0): the return is
    gamma^k with probability (1 - q)^k q."""
    q, gamma = 0.25, 0.8
    mdp = TabularMDP.from_transitions(2, 1, src=[0, 0], action=[0, 0], dst=[1, 0], prob=[q, 1 - q], reward=[1, 0],
                                      terminal=[1], discount=gamma)
    d = return_distribution(mdp, np.zeros(2, dtype=np.int64), 0)
    k = np.arange(d.values.size)[::-1]  # ascending returns: the longest wait first
    np.testing.assert_allclose(d.values, gamma ** k, rtol=1e-12)
    np.testing.assert_allclose(d.probabilities, (1 - q) ** k * q, rtol=1e-9, atol=1e-300)
    assert d.tail <= 1e-9 and d.mean() == pytest.approx(q / (1 - gamma * (1 - q)), abs=1e-9)


def test_tic_tac_toe_returns_are_its_outcomes_discounted_by_length():
    g = build_game("ttt")
    mdp = g.mdp
    pol = np.asarray(solve(mdp, "pi").policy)
    d = return_distribution(mdp, pol, g.start_state())
    assert d.tail < 1e-12 and d.moves <= 5  # a game of X's moves ends within five of them
    win, gamma = float(mdp.reward.max()), mdp.discount
    # every return is 0 (a draw) or an outcome's reward discounted by the moves it took
    finals = np.unique(mdp.reward)
    ok = [any(np.isclose(v, r * gamma ** t) for r in finals for t in range(6)) for v in d.values]
    assert all(ok) and d.values.max() <= win


def test_it_agrees_with_simulated_games():
    g = build_game("gridworld")
    mdp, start = g.mdp, g.start_state()
    probs = policy_matrix(mdp, np.asarray(solve(mdp, "pi").policy))
    d = return_distribution(mdp, probs, start)
    ep = simulate(mdp, probs, start=start, episodes=100_000, seed=np.random.default_rng(11), max_steps=400)
    # 100,000 games: a frequency's standard error is at most 0.0016; 0.008 is 5 of them
    freq = np.array([np.mean(np.isclose(ep.total, v, rtol=0, atol=1e-9)) for v in d.values])
    assert np.max(np.abs(freq - d.probabilities)) < 0.008
    assert freq.sum() == pytest.approx(1.0, abs=1e-3)  # every simulated return is one of the listed values


def test_too_many_values_stop_and_say_so():
    g = build_game("gym")
    mdp = g.mdp
    d = return_distribution(mdp, uniform_policy_matrix(mdp), g.start_state(), max_work=50)
    assert "too many values" in d.stopped and d.tail > 0.5
    d = return_distribution(mdp, uniform_policy_matrix(mdp), g.start_state(), max_atoms=1)
    assert "at once" in d.stopped


def test_a_model_that_never_ends_has_no_return_distribution():
    mdp = TabularMDP.from_transitions(3, 1, src=[0, 0, 1], action=[0, 0, 0], dst=[2, 1, 1], prob=[0.5, 0.5, 1.0],
                                      reward=[1, 2, 3], terminal=[2], discount=0.9)
    d = return_distribution(mdp, np.zeros(3, dtype=np.int64), 0)
    assert d.never == pytest.approx(0.5) and d.values.tolist() == [1.0] and d.probabilities.tolist() == [0.5]
    d = return_distribution(mdp, np.zeros(3, dtype=np.int64), 1)
    assert d.values.size == 0 and d.tail == 1.0


def test_the_command_line_prints_it(capsys):
    assert main(["solve", "--game", "gridworld", "--distribution", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    r = out["return_distribution"]
    assert len(r["values"]) == len(r["probabilities"]) and r["values"] == sorted(r["values"])
    assert r["mean"] == pytest.approx(out["start_value"], abs=1e-6) and r["stopped"] == ""
    assert r["quantile_10"] <= r["median"] <= r["quantile_90"]
    assert main(["solve", "--game", "ttt", "--distribution"]) == 0
    line = capsys.readouterr().out.strip().splitlines()[-1]
    assert line.startswith("return from X") and "3 values" in line
    assert main(["solve", "--game", "file", "--distribution"]) == 0  # a continuing model never ends
    assert "never reaches a terminal state" in capsys.readouterr().out.splitlines()[-1]


def test_the_simulation_panel_draws_the_exact_return_distribution(qtbot):
    from mdpviz.core.jobs import drive
    from mdpviz.models.kit.boards.grid import walk_simulation
    from mdpviz.models.kit.boards.strategies import walk_strategy_probs
    from mdpviz.widgets.simulation import SimulationPanel

    g = build_game("gridworld")
    mdp, start = g.mdp, g.start_state()
    sol = solve(mdp, "pi")
    result = drive(walk_simulation(mdp, ("optimal", "random"), lambda n, p: walk_strategy_probs(n, mdp, p),
                                   sol.policy, games=4_000, seed=5, start=start, start_name="start"))
    assert all(r.returns is not None for r in result.rows)
    d = return_distribution(mdp, sol.policy, start)
    np.testing.assert_allclose(result.rows[0].returns[0], d.values)
    np.testing.assert_allclose(result.rows[0].returns[1], d.probabilities)
    panel = SimulationPanel()
    qtbot.addWidget(panel)
    panel.show_results(result.rows, unit=result.unit, start=result.start)
    dots = [it for it in panel.hist_plot.listDataItems() if it.opts.get("symbol") == "o"]
    assert len(dots) == len(result.rows)
    lo, hi = dots[0].xData.min(), dots[0].xData.max()
    # the optimal strategy's dots hold the exact mass of the values the histogram's range shows
    shown = d.probabilities[(d.values >= lo - 1) & (d.values <= hi + 1)]
    assert dots[0].yData.sum() == pytest.approx(shown.sum(), abs=1e-9) and dots[0].yData.sum() > 0.99
    assert f"{d.values.size} values, median {d.quantile(0.5):.4g}" in panel.status.text()
    assert "most likely P(" in panel.table.item(0, 1).toolTip()
