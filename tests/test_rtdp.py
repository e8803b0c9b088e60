"""Real-time dynamic programming (Sutton and Barto 8.7, issue 38): from optimistic starting values, greedy
trajectories from the start back up only the states they visit; at the end V(start) = V*(start) (the
project's exact solve, policy iteration), every state the final greedy policy reaches from the start is exact,
states greedy play never reaches are never backed up, and bad options are one line (exit 2 on the command line)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from mdpviz.cli import main
from mdpviz.models.kit.game import registry as games
from mdpviz.models.kit.game.game_model import Game
from mdpviz.solvers import registry, run, solve, start
from mdpviz.solvers.rtdp import RTDPSweep, greedy_closure, optimistic_values, rtdp
from mdpviz.solvers.sweep import optimal_rows

CASES = {
    "grid book, noise 0.2": ("gridworld", {}),
    "grid discount, noise 0": ("gridworld", {"noise": 0.0}, "discount"),
    "snakes (costs)": ("snakes", {}),
    "course file": ("file", {}),
    "tic-tac-toe vs random": ("ttt", {}),
}


def _game(key: str, changes: dict, grid: str | None = None):
    import dataclasses

    spec = games.get(key)
    g = Game(spec)
    s = g.settings
    if grid is not None:
        from mdpviz.models.gridworld.rules import BUILTIN_MAPS, with_map

        s = with_map(s, BUILTIN_MAPS[grid])
    if changes:
        s = dataclasses.replace(s, **changes)
    if s is not g.settings:
        g = Game(spec, s)
    return g.model()


@pytest.fixture(scope="module")
def solved():
    """Per case: (game model, V* from policy iteration, RTDP's snapshots, its Solution)."""
    out = {}
    for name, (key, changes, *grid) in CASES.items():
        gm = _game(key, changes, *grid)
        mdp = gm.mdp
        exact = solve(mdp, "pi").values
        sol = run(start("rtdp", mdp, start=gm.start_state(), tol=1e-10), record=True)
        out[name] = (gm, exact, sol)
    return out


@pytest.mark.parametrize("name", list(CASES))
def test_start_value_is_exact_and_greedy_paths_are_exact(solved, name):
    gm, exact, sol = solved[name]
    mdp, s0 = gm.mdp, gm.start_state()
    assert sol.converged
    scale = 1.0 + np.max(np.abs(exact))
    assert sol.values[s0] == pytest.approx(exact[s0], abs=1e-7 * scale)
    # every state the final greedy policy can reach from the start (every optimal path RTDP follows) is exact
    closed, residual = greedy_closure(mdp, s0, np.asarray(sol.values))
    assert residual < 1e-10
    assert closed.sum() >= 2
    np.testing.assert_allclose(np.asarray(sol.values)[closed], exact[closed], atol=1e-6 * scale)
    # and the action RTDP takes in each of them is optimal under the exact values
    best = optimal_rows(mdp, mdp.q_values(exact))
    live = np.flatnonzero(closed & ~mdp.terminal)
    rows = np.array([mdp.row_of(int(s), int(sol.policy[s])) for s in live])
    assert best[rows].all()


@pytest.mark.parametrize("name", list(CASES))
def test_snapshots_carry_the_trajectory_and_the_visited_states(solved, name):
    gm, exact, sol = solved[name]
    mdp, s0 = gm.mdp, gm.start_state()
    hist = sol.history
    assert all(isinstance(h, RTDPSweep) for h in hist) and hist[-1].converged
    assert not any(h.converged for h in hist[:-1])
    seen = np.zeros(mdp.n_states, dtype=bool)
    for h in hist:
        assert h.trajectory[0] == s0 and h.phase == "trajectory"
        assert not h.visited.flags.writeable
        seen[[s for s in h.trajectory if not mdp.terminal[s]]] = True
        np.testing.assert_array_equal(h.visited, seen)  # visited = every state some trajectory backed up
        assert set(h.updated) == {s for s in h.trajectory if not mdp.terminal[s]}
        # consecutive states of a trajectory are linked by the greedy action's outcomes
        for a, b in zip(h.trajectory, h.trajectory[1:]):
            assert b in {d for act in mdp.actions_of(a) for d, p, _ in mdp.outcomes(a, int(act)) if p > 0}
    # a state never backed up keeps its optimistic starting value (never below V* for a maximiser)
    opt = optimistic_values(mdp)
    untouched = ~hist[-1].visited
    np.testing.assert_array_equal(np.asarray(sol.values)[untouched], opt[untouched])


def test_states_greedy_play_never_reaches_are_never_backed_up(solved):
    gm, exact, sol = solved["grid discount, noise 0"]
    mdp = gm.mdp
    visited = sol.history[-1].visited
    never = np.flatnonzero(~visited & ~mdp.terminal)
    assert never.size >= 5, "the cliff row and the far corner are never visited"
    labels = gm.state_labels()
    assert any("row 5" in labels[s] for s in never)  # the -10 cliff's cells (exits) are never entered
    assert visited.sum() < (~mdp.terminal).sum()


@pytest.mark.parametrize("name", list(CASES))
def test_optimistic_values_bound_the_optimal_ones(solved, name):
    gm, exact, _sol = solved[name]
    mdp = gm.mdp
    opt = optimistic_values(mdp)
    sign = 1.0 if mdp.objective == "max" else -1.0
    assert np.all(sign * (opt - exact) >= -1e-9 * (1 + np.abs(exact)))


def test_registry_line():
    spec = registry.get("rtdp")
    assert spec.kind == "solver" and spec.needs_start and spec.unit == "trajectory" and spec.one_player
    assert spec.takes("start") and spec.cap_as == "trajectories"


@pytest.mark.parametrize("kwargs, message", [
    ({"start": 99}, "start"),
    ({"start": -1}, "start"),
    ({"start": 7, "trajectories": 0}, "trajectories"),
    ({"start": 7, "max_depth": 0}, "max_depth"),
    ({"start": 7, "tol": -1.0}, "tolerance"),
])
def test_bad_options_are_one_line(solved, kwargs, message):
    gm = solved["grid book, noise 0.2"][0]
    with pytest.raises(ValueError, match=message) as e:
        rtdp(gm.mdp, **kwargs)
    assert "\n" not in str(e.value)


def test_terminal_start_and_two_players_are_refused(solved):
    gm = solved["grid book, noise 0.2"][0]
    term = int(np.flatnonzero(gm.mdp.terminal)[0])
    with pytest.raises(ValueError, match="terminal"):
        rtdp(gm.mdp, start=term)


def test_solve_json_adds_visited(capsys):
    assert main(["solve", "--game", "gridworld", "--grid", "discount", "--noise", "0", "--method", "rtdp", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["visited"]) == len(out["states"]) and not all(out["visited"]) and any(out["visited"])
    assert out["converged"] and out["trajectories"] == out["sweeps"]
    assert main(["solve", "--game", "risk_ttt", "--method", "rtdp"]) == 2
    err = capsys.readouterr().err
    assert "two players" in err and len(err.strip().splitlines()) == 1
