"""Gymnasium import and export (mdpviz.models.gym): values equal a value iteration
written directly on env.unwrapped.P, terminated vs time limit, Taxi delivers, check_env passes."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")

import mdpviz  # noqa: E402
from mdpviz import solve  # noqa: E402
from mdpviz.models.gridworld import GridSettings, compile_gridworld  # noqa: E402
from mdpviz.models.gym import gym_geometry, make_env, parse_kwargs, start_state  # noqa: E402


def vi_on_P(P, n: int, k: int, gamma: float, tol: float = 1e-14) -> np.ndarray:
    """Value iteration straight on the table: V(s) = max_a sum p (r + gamma V(s') [not terminated])."""
    V = np.zeros(n)
    for _ in range(1_000_000):
        new = np.array([max(sum(p * (r + (0.0 if term else gamma * V[s2])) for p, s2, r, term in P[s][a])
                            for a in range(k)) for s in range(n)])
        if np.max(np.abs(new - V)) < tol:
            return new
        V = new
    raise AssertionError("no convergence")


ENVS = [
    ("FrozenLake-v1", {"map_name": "4x4", "is_slippery": True}),
    ("FrozenLake-v1", {"map_name": "4x4", "is_slippery": False}),
    ("FrozenLake-v1", {"map_name": "8x8", "is_slippery": True}),
    ("FrozenLake-v1", {"map_name": "8x8", "is_slippery": False}),
    ("CliffWalking-v1", {}),
]


@pytest.mark.parametrize("env_id, kw", ENVS, ids=lambda x: str(x))
def test_imported_values_equal_value_iteration_on_P(env_id, kw):
    env = gym.make(env_id, **kw)
    u = env.unwrapped
    gamma = 0.95
    mdp = mdpviz.from_gymnasium(env, discount=gamma)
    n, k = u.observation_space.n, u.action_space.n
    assert mdp.n_states == n + 1 and mdp.terminal[n] and mdp.terminal.sum() == 1
    ref = vi_on_P(u.P, n, k, gamma)
    sol = solve(mdp, "vi", tol=1e-13)
    assert sol.converged
    assert np.max(np.abs(sol.values[:n] - ref)) < 1e-9
    assert np.max(np.abs(solve(mdp, "pi").values[:n] - ref)) < 1e-9
    geom = gym_geometry(env, mdp)
    assert geom is not None and geom.state.size == n


def test_duplicates_summed_and_terminated_absorbs():
    env = gym.make("FrozenLake-v1", map_name="4x4", is_slippery=True)
    mdp = mdpviz.from_gymnasium(env)
    # state 0, left: P lists (1/3, 0), (1/3, 0), (1/3, 4): merged into two outcomes
    out = dict((d, p) for d, p, _ in mdp.outcomes(0, 0))
    assert out == pytest.approx({0: 2 / 3, 4: 1 / 3})
    # the hole (state 5) is not terminal: every move goes to the absorbing state with reward 0
    assert not mdp.terminal[5]
    assert mdp.outcomes(5, 0) == [(16, 1.0, 0.0)]
    # reaching the goal (15) from 14 moving right pays 1 and terminates
    env2 = gym.make("FrozenLake-v1", is_slippery=False)
    m2 = mdpviz.from_gymnasium(env2)
    assert m2.outcomes(14, 2) == [(16, 1.0, 1.0)]


def test_cliffwalking_post_goal_state_keeps_its_moves():
    env = gym.make("CliffWalking-v1")
    mdp = mdpviz.from_gymnasium(env)
    goal = 47
    assert not mdp.terminal[goal] and len(mdp.actions_of(goal)) == 4
    # moving up from the goal cell is not a termination in P: it goes to 35
    assert mdp.outcomes(goal, 0) == [(35, 1.0, -1.0)]
    # the cliff sends the agent back to the start with -100, not terminated
    assert mdp.outcomes(36, 1) == [(36, 1.0, -100.0)]


def test_time_limit_is_not_termination():
    env = gym.make("FrozenLake-v1", is_slippery=False, max_episode_steps=3)
    assert env.spec.max_episode_steps == 3
    mdp = mdpviz.from_gymnasium(env)
    # the model is the environment without its time limit: the goal is still reachable (value > 0)
    sol = solve(mdp, "vi", tol=1e-12)
    assert sol.values[0] == pytest.approx(0.99 ** 5)
    assert mdp.terminal.sum() == 1


def test_taxi_optimal_policy_delivers_every_passenger():
    env = gym.make("Taxi-v4")
    mdp = mdpviz.from_gymnasium(env, discount=0.95)
    assert mdp.state_labels[0].startswith("taxi (0,0)")
    sol = solve(mdp, "vi", tol=1e-10)
    assert sol.converged
    for seed in range(300):
        s, info = env.reset(seed=seed)
        total, delivered = 0.0, False
        for _ in range(200):
            s, r, terminated, truncated, info = env.step(int(sol.policy[s]))
            total += r
            if terminated:
                delivered = r == 20
                break
            assert not truncated
        assert delivered, f"episode {seed} did not deliver"
    assert gym_geometry(env) is None
    assert start_state(gym.make("CliffWalking-v1")) == 36


def test_to_gymnasium_passes_check_env():
    from gymnasium.utils.env_checker import check_env

    w = compile_gridworld(GridSettings(convention="aima"))
    env = mdpviz.to_gymnasium(w.mdp, start=w.start_state, max_episode_steps=50)
    check_env(env, skip_render_check=True)
    obs, info = env.reset(seed=1)
    assert obs == w.start_state and info["action_mask"].tolist() == [1, 1, 1, 1]
    steps, done = 0, False
    while not done:
        obs, r, terminated, truncated, info = env.step(1)
        steps += 1
        done = terminated or truncated
    assert steps <= 50
    if truncated:
        assert not terminated


def test_to_gymnasium_masks_and_refuses_illegal_actions():
    w = compile_gridworld(GridSettings(convention="cs188"))
    env = mdpviz.to_gymnasium(w.mdp, start=int(w.geometry.state[0, 3]))
    s, info = env.reset(seed=0)
    assert info["action_mask"].tolist() == [0, 0, 0, 0, 1]
    with pytest.raises(ValueError, match="action 0 is not legal in state 3"):
        env.step(0)
    s, r, terminated, truncated, _ = env.step(4)
    assert (r, terminated, truncated) == (1.0, True, False)


def test_parse_kwargs_and_bad_env():
    assert parse_kwargs(["is_slippery=False", "map_name=8x8", "desc=['SF','FG']", "x= 0.5"]) == {
        "is_slippery": False, "map_name": "8x8", "desc": ["SF", "FG"], "x": 0.5}
    with pytest.raises(ValueError, match="key=value"):
        parse_kwargs(["is_slippery"])
    with pytest.raises(ValueError, match="NoSuchEnv"):
        make_env("NoSuchEnv-v0")
    with pytest.raises(ValueError, match="FrozenLake-v1 with map_name='9x9'"):
        make_env("FrozenLake-v1", {"map_name": "9x9"})


def test_importing_mdpviz_does_not_import_gymnasium():
    code = ("import sys, mdpviz, mdpviz.models.gridworld, mdpviz.models.gym, mdpviz.cli\n"
            "mdpviz.cli.build_parser()\n"
            "assert 'gymnasium' not in sys.modules, 'gymnasium imported'\n"
            "mdpviz.from_gymnasium\nassert 'gymnasium' not in sys.modules\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_the_gym_spec_is_importable_without_importing_gymnasium():
    # Gymnasium is an optional extra: the registry lists and loads the spec without it; compile imports it
    code = ("import sys, mdpviz.models.kit.game.registry as g; s = g.get('gym'); s.default_settings(); "
            "s.to_dict(s.default_settings()); print('gymnasium' in sys.modules)")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "False"
