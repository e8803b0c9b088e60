"""Dyna-Q and Dyna-Q+ (Sutton and Barto 8.2-8.3; issue 38): the book's mazes, figure 8.2's ordering, figure 8.5's
shortcut found by Dyna-Q+ only, the changing world's exact answer, the command line.

The numbers are checked against the mazes solved by hand (the shortest path of k steps to the goal's +1 is worth
0.95^(k-1) from the start: the Dyna maze's 14 steps, the shortcut maze's 16 before the change and 10 after) and
against the book's figures' orderings, averaged over seeds."""
from __future__ import annotations

import json

import numpy as np
import pytest

from mdpviz.cli import main
from mdpviz.models.gridworld.rules import BUILTIN_MAPS, WALL, GridSettings, compile_gridworld, with_map
from mdpviz.solvers.dyna import cumulative_at, dyna_learner, steps_per_episode

GAMMA = 0.95


@pytest.fixture(scope="module")
def maze():
    return compile_gridworld(with_map(GridSettings(), BUILTIN_MAPS["dyna"]))


@pytest.fixture(scope="module")
def shortcut():
    return compile_gridworld(with_map(GridSettings(), BUILTIN_MAPS["shortcut"]))


def _run(world, method, **opts):
    return list(dyna_learner(world.mdp, method, start=world.start_state, eval_every=0,
                             switch_mdp=None if world.after is None else world.after.mdp, **opts))


# ------------------------------------------------------------------------------------ the mazes
def test_the_books_mazes_and_their_exact_values(maze, shortcut):
    g = BUILTIN_MAPS["dyna"]
    assert (g.rows, g.cols, g.start) == (6, 9, (2, 0)) and g.is_exit(0, 8) and g.cells[0][8] == 1.0
    walls = {(r, c) for r in range(6) for c in range(9) if g.cells[r][c] == WALL}
    assert walls == {(1, 2), (2, 2), (3, 2), (4, 5), (0, 7), (1, 7), (2, 7)}  # figure 8.2
    mdp = maze.mdp
    assert mdp.discount == GAMMA and mdp.n_states == 6 * 9 - 7
    assert set(np.asarray(mdp.prob).tolist()) == {1.0}  # deterministic
    # +1 on the move into the goal, 0 otherwise
    assert sorted(set(np.asarray(mdp.reward).tolist())) == [0.0, 1.0]
    from mdpviz.solvers import solve

    assert solve(mdp, "vi", tol=1e-13).values[maze.start_state] == pytest.approx(GAMMA ** 13)  # 14 steps
    # the shortcut maze: 16 steps round the left before the change, 10 by the right after; the blocking maze the
    # other way round; both worlds over the same states
    before = solve(shortcut.mdp, "vi", tol=1e-13).values[shortcut.start_state]
    after = solve(shortcut.after.mdp, "vi", tol=1e-13).values[shortcut.start_state]
    assert (before, after) == (pytest.approx(GAMMA ** 15), pytest.approx(GAMMA ** 9))
    blocking = compile_gridworld(with_map(GridSettings(), BUILTIN_MAPS["blocking"]))
    assert blocking.settings.switch_after == 1000 and shortcut.settings.switch_after == 3000
    assert solve(blocking.mdp, "vi", tol=1e-13).values[blocking.start_state] == pytest.approx(GAMMA ** 9)
    assert solve(blocking.after.mdp, "vi", tol=1e-13).values[blocking.start_state] == pytest.approx(GAMMA ** 15)
    assert shortcut.mdp.state_labels == shortcut.after.mdp.state_labels
    assert np.array_equal(shortcut.mdp.row_action, shortcut.after.mdp.row_action)


# ------------------------------------------------------------------------------------ figure 8.2
def test_more_planning_reaches_short_episodes_in_fewer_episodes(maze):
    """Figure 8.2: steps per episode over episodes 2-10, averaged over seeds, n = 0 > n = 5 > n = 50."""
    mean = {}
    for n in (0, 5, 50):
        runs = [steps_per_episode(_run(maze, "dyna-q", planning_steps=n, episodes=10, seed=seed))
                for seed in range(4)]
        mean[n] = float(np.mean(np.asarray(runs)[:, 1:]))
    assert mean[0] > mean[5] > mean[50], mean
    assert mean[0] > 3 * mean[5] and mean[50] < 30  # the book's picture: n = 50 is near the 14 steps by episode 3
    assert min(mean.values()) >= 14  # no episode is shorter than the shortest path


def test_counts_model_and_the_last_steps_planning(maze):
    steps = _run(maze, "dyna-q", planning_steps=7, episodes=3, seed=1)
    mdp = maze.mdp
    for s in steps:
        assert s.real_steps == sum(n for t in steps[:s.episode] for n in t.lengths)
        assert s.planning_updates == 7 * s.real_steps and s.updates == s.real_steps + s.planning_updates
        assert len(s.planned) == 7 and not s.known.flags.writeable
        # Dyna-Q's model holds exactly the (state, action) pairs it tried, and plans from observed states only
        assert np.array_equal(s.known, s.tried)
        for ps, pa in s.planned:
            assert s.known[mdp.row_of(ps, pa)] and s.visits[ps] > 0
        assert s.cumulative_reward == s.episode  # +1 per episode that reached the goal
    plus = _run(maze, "dyna-q+", planning_steps=7, episodes=1, total_steps=6, seed=1)[-1]
    live = np.asarray(mdp.row_state)
    # Dyna-Q+ (the book's footnote): every action of a visited state is in the model, tried or not
    assert np.array_equal(plus.known, plus.visits[live] > 0) and (plus.known & ~plus.tried).any()


def test_the_bonus_favours_the_untried_action_with_costs_too():
    """Dyna-Q+'s bonus kappa sqrt(tau) makes an untried action look better to the one who moves: higher Q where
    rewards are maximised, lower where costs are minimised."""
    from mdpviz.core.mdp import TabularMDP

    for objective, sign in (("max", 1.0), ("min", -1.0)):
        # one state, two actions, each ends the episode at reward (cost) 1; one real step is taken, then the
        # untried action is planned from the footnote's self-loop with reward 0 plus the bonus
        mdp = TabularMDP.from_transitions(2, 2, [0, 0], [0, 1], [1, 1], [1.0, 1.0], [1.0, 1.0], discount=0.5,
                                          terminal=[1], objective=objective)
        last = list(dyna_learner(mdp, "dyna-q+", planning_steps=200, kappa=1.0, epsilon=0.0, alpha=0.5,
                                 episodes=1, seed=3))[-1]
        untried = int(np.flatnonzero(~last.tried)[0])
        assert last.known.all() and sign * last.q[untried] > 0.5  # (Dyna-Q's 0: never planned)


# ------------------------------------------------------------------------------------ figure 8.5
def test_dyna_q_plus_finds_the_shortcut_and_dyna_q_does_not(shortcut):
    """Figure 8.5: 6,000 real steps, the shortcut opens at 3,000. Dyna-Q+ collects reward faster after the change
    and ends greedy on the 10-step path; Dyna-Q stays on the 16-step one."""
    short, long = GAMMA ** 9, GAMMA ** 15
    for seed in range(2):  # (6 seeds measured: reward after the change 163-168 against 227-240; docs/planning.md)
        opts = dict(planning_steps=25, alpha=1.0, episodes=10 ** 6, total_steps=6000, seed=seed, batch=10 ** 6,
                    switch_after=3000)
        q = _run(shortcut, "dyna-q", **opts)
        plus = _run(shortcut, "dyna-q+", kappa=1e-3, **opts)
        slope = {name: cumulative_at(s, 6000) - cumulative_at(s, 3000) for name, s in (("q", q), ("plus", plus))}
        assert slope["plus"] > 1.2 * slope["q"], slope
        assert q[-1].switched and q[-1].real_steps == 6000
        assert q[-1].policy_value == pytest.approx(long) and plus[-1].policy_value == pytest.approx(short)


def test_the_switch_changes_the_exact_answer(shortcut):
    steps = _run(shortcut, "dyna-q", planning_steps=0, episodes=10 ** 6, total_steps=3100, seed=0, switch_after=3000)
    s0 = shortcut.start_state
    for s in steps:
        want = GAMMA ** 9 if s.real_steps >= 3000 else GAMMA ** 15
        assert s.switched == (s.real_steps >= 3000) and s.exact.values[s0] == pytest.approx(want)
    assert steps[0].exact is not steps[-1].exact and steps[-1].real_steps == 3100


# ------------------------------------------------------------------------------------ bad input, command line
def test_bad_options_are_one_line(maze, shortcut, capsys):
    with pytest.raises(ValueError, match="^planning_steps must be"):
        dyna_learner(maze.mdp, "dyna-q", planning_steps=-1)
    with pytest.raises(ValueError, match="^kappa applies to dyna-q\\+ only"):
        dyna_learner(maze.mdp, "dyna-q", kappa=0.1)
    with pytest.raises(ValueError, match="^switch_after: the world has no second model"):
        dyna_learner(maze.mdp, "dyna-q", switch_after=10)
    with pytest.raises(ValueError, match="^switch_mdp: "):
        dyna_learner(maze.mdp, "dyna-q", switch_mdp=shortcut.mdp, switch_after=10)
    with pytest.raises(ValueError, match="^switch map 'nope' is not a built-in map"):
        compile_gridworld(GridSettings(grid=BUILTIN_MAPS["dyna"], switch_map="nope"))
    with pytest.raises(ValueError, match="^switch map book is 3 x 4"):
        compile_gridworld(GridSettings(grid=BUILTIN_MAPS["dyna"], switch_map="book"))
    base = ["learn", "--game", "gridworld", "--grid", "dyna", "--episodes", "2"]
    for extra, says in ((["--method", "dyna-q", "--kappa", "1"], "--kappa applies to --method dyna-q+ only"),
                        (["--method", "dyna-q", "--planning-steps", "-2"], "--planning-steps must be 0 or more"),
                        (["--method", "dyna-q", "--alpha", "1/n"], "takes a constant step size"),
                        (["--method", "q", "--planning-steps", "3"], "applies to the planning methods only"),
                        (["--method", "dyna-q+", "--total-steps", "0"], "--total-steps must be a positive"),
                        (["--method", "dyna-q", "--switch-map", "book"], "switch_map")):
        assert main([*base, *extra]) == 2
        err = capsys.readouterr().err.strip()
        assert says in err and "\n" not in err and "Traceback" not in err


def test_learn_json_adds_real_steps_planning_updates_and_the_curve(capsys):
    code = main(["learn", "--game", "gridworld", "--grid", "shortcut", "--method", "dyna-q+", "--episodes", "1000",
                 "--planning-steps", "5", "--total-steps", "3200", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["real_steps"] == 3200 and out["planning_updates"] == 5 * 3200
    assert out["switch_after"] == 3000 and out["switched"] and out["kappa"] == 1e-3
    start = out["start"]
    assert out["exact"][start] == pytest.approx(GAMMA ** 9) and out["exact_before"][start] == pytest.approx(GAMMA ** 15)
    curve = out["curve"]
    assert len(curve) == out["episodes"] and curve[-1]["real_steps"] == 3200
    assert sum(p["steps"] for p in curve) == 3200
    assert [p["cumulative_reward"] for p in curve[:-1]] == list(range(1, len(curve)))  # +1 per finished episode
