"""The exact distribution of the number of turns (issue 28, item 4): its mean is the expected-turns
figure, it agrees with simulation, closed forms, the never-ending share, and the command line."""
from __future__ import annotations

import json

import numpy as np
import pytest

from mdpviz.cli import main
from mdpviz.core.mdp import TabularMDP
from mdpviz.models.snakes import SnakesSettings, compile_snakes
from mdpviz.solvers import solve
from mdpviz.solvers.distribution import turn_distribution

LAYOUTS = [
    "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0",
    "0,0,0,1,0,0,2,0,3,0,4,0,1,2,0",
    "0,4,4,4,0,3,3,0,2,1,0,4,0,1,0",  # bonus squares: throws that count no turn
    "0,1,1,1,1,1,1,1,1,1,1,1,1,1,0",
]


def snakes(layout: str, circle: bool):
    cfg = SnakesSettings(layout=tuple(int(x) for x in layout.split(",")), circle=circle).validate()
    mdp = compile_snakes(cfg)
    return cfg, mdp, solve(mdp, "pi")


@pytest.mark.parametrize("circle", [False, True])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_the_mean_is_the_expected_turns_figure(layout, circle):
    _cfg, mdp, sol = snakes(layout, circle)
    d = turn_distribution(mdp, sol.policy, 0)
    assert d.counts == "turns" and d.never == 0.0
    assert d.tail < 1e-8 and abs(d.probabilities.sum() + d.tail - 1) < 1e-12
    assert d.mean() == pytest.approx(sol.values[0], abs=1e-6)
    assert np.all(d.probabilities >= 0)


def test_it_agrees_with_simulated_games():
    from mdpviz.models.snakes.simulate import simulate_turns

    cfg, mdp, sol = snakes(LAYOUTS[2], True)
    d = turn_distribution(mdp, sol.policy, 0)
    probs = np.zeros((mdp.n_states, mdp.n_actions))
    live = np.flatnonzero(~mdp.terminal)
    probs[live, sol.policy[live]] = 1.0
    turns = simulate_turns(cfg, probs, games=200_000, seed=7, mdp=mdp)
    freq = np.bincount(turns, minlength=d.probabilities.size)[: d.probabilities.size] / turns.size
    # 200,000 games: a frequency's standard error is at most 0.0011; 0.006 is over 5 of them
    assert np.max(np.abs(freq - d.probabilities)) < 0.006
    assert np.median(turns) == d.quantile(0.5)


def test_a_geometric_chain_has_its_closed_form():
    """One state that ends with probability p per move: P(k) = (1 - p)^(k - 1) p."""
    p = 0.3
    mdp = TabularMDP.from_transitions(2, 1, src=[0, 0], action=[0, 0], dst=[1, 0], prob=[p, 1 - p], reward=[1, 1],
                                      terminal=[1], discount=1.0, objective="min")
    d = turn_distribution(mdp, np.array([0, 0]), 0)
    k = np.arange(1, d.probabilities.size)
    np.testing.assert_allclose(d.probabilities[1:], (1 - p) ** (k - 1) * p, rtol=1e-12, atol=1e-15)
    assert d.probabilities[0] == 0 and d.tail <= 1e-9 and d.mean() == pytest.approx(1 / p, abs=1e-6)


def test_turns_that_count_nothing_close_on_their_level():
    """A free throw that may stay put (cost 0, probability 1/2 to stay) still ends on the same turn."""
    mdp = TabularMDP.from_transitions(3, 1, src=[0, 1, 1], action=[0, 0, 0], dst=[1, 1, 2], prob=[1, 0.5, 0.5],
                                      reward=[1, 0, 0], terminal=[2], discount=1.0, objective="min")
    d = turn_distribution(mdp, np.zeros(3, dtype=np.int64), 0)
    np.testing.assert_allclose(d.probabilities, [0.0, 1.0])


def test_a_policy_that_may_never_end_says_how_likely():
    """From state 0: half the time to a terminal state, half the time into a loop with no way out."""
    mdp = TabularMDP.from_transitions(3, 1, src=[0, 0, 1], action=[0, 0, 0], dst=[2, 1, 1], prob=[0.5, 0.5, 1.0],
                                      reward=[1, 1, 1], terminal=[2], discount=0.9)
    d = turn_distribution(mdp, np.zeros(3, dtype=np.int64), 0)
    assert d.never == pytest.approx(0.5) and d.probabilities[1] == pytest.approx(0.5)
    assert d.tail == pytest.approx(0.5) and d.counts == "moves"
    assert turn_distribution(mdp, np.zeros(3, dtype=np.int64), 1).never == 1.0


def test_a_policy_that_does_not_fit_is_refused():
    _cfg, mdp, sol = snakes(LAYOUTS[0], False)
    with pytest.raises(ValueError, match="entries"):
        turn_distribution(mdp, sol.policy[:3], 0)
    with pytest.raises(ValueError, match="out of range"):
        turn_distribution(mdp, sol.policy, mdp.n_states)


def test_command_line(capsys):
    layout = LAYOUTS[1]
    assert main(["snakes", "--layout", layout, "--circle", "--distribution", "--json"]) == 0
    own = json.loads(capsys.readouterr().out)
    assert sum(k * p for k, p in enumerate(own["distribution"])) == pytest.approx(own["expec"][0], abs=1e-6)
    assert main(["solve", "--game", "snakes", "--layout", layout, "--circle", "--method", "pi", "--distribution",
                 "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    np.testing.assert_allclose(d["distribution"], own["distribution"], atol=1e-12)
    assert d["tail"] < 1e-8 and d["median"] == own["median"] and d["distribution_counts"] == "turns"
    assert main(["snakes", "--layout", layout, "--distribution"]) == 0
    assert "median" in capsys.readouterr().out.splitlines()[-1]


def test_the_simulation_panel_draws_the_exact_distribution_on_the_histogram(qtbot):
    from mdpviz.models.snakes.simulate import simulation_job
    from mdpviz.core.jobs import drive
    from mdpviz.widgets.simulation import SimulationPanel

    cfg, mdp, sol = snakes(LAYOUTS[1], False)
    result = drive(simulation_job(cfg, mdp, games=4_000, seed=3, policy=sol.policy))
    assert all(r.distribution is not None for r in result.rows)
    opt = result.rows[0]
    d = turn_distribution(mdp, sol.policy, 0)
    np.testing.assert_allclose(opt.distribution, d.probabilities)
    panel = SimulationPanel()
    qtbot.addWidget(panel)
    panel.show_results(result.rows, unit=result.unit, start=result.start)
    dots = [it for it in panel.hist_plot.listDataItems() if it.opts.get("symbol") == "o"]
    assert len(dots) == len(result.rows)
    assert dots[0].yData.sum() == pytest.approx(min(1.0, d.cdf()[int(dots[0].xData.max() + 0.5)]), abs=1e-9)
    assert f"median {d.quantile(0.5)}, 90% of games within {d.quantile(0.9)} turns" in panel.status.text()
    assert "P(done within" in panel.table.item(0, 1).toolTip()


def test_an_action_not_legal_in_its_state_is_named():
    from mdpviz.models.gridworld import GridSettings, compile_gridworld

    mdp = compile_gridworld(GridSettings()).mdp  # the 4x3 grid: an exit cell has the one action "exit"
    pol = solve(mdp, "pi").policy.copy()
    exit_state = next(s for s in range(mdp.n_states) if not mdp.terminal[s] and len(mdp.actions_of(s)) == 1)
    pol[exit_state] = 0 if int(mdp.actions_of(exit_state)[0]) != 0 else 1
    with pytest.raises(ValueError, match=f"state {exit_state}: action .* is not one of its legal actions"):
        turn_distribution(mdp, pol, 0)
    d = turn_distribution(mdp, solve(mdp, "pi").policy, 7)  # and the policy itself fits
    assert d.probabilities.sum() + d.tail == pytest.approx(1.0)
