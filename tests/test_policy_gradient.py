"""The policy-gradient learners (issue 37): mdpviz/solvers/policy_gradient.py and pg_loop.py.

* the registry lines carry the loop's codes; options are checked at once (one line naming the option), and the
  episodic / continuing mismatches are refused;
* each update is the book's, checked by hand from a snapshot's episode (REINFORCE with gamma^t, one-step
  actor-critic with I = gamma^t), the compiled loop gives the Python reference's numbers for a seed, and
  batches do not change them;
* the issue's check: REINFORCE on the short corridor with the book's features from p(right) = 0.05 and
  alpha_theta = 2^-12 ends within 0.5 of J_best = -(6 + 4 sqrt 2) on average over 100 runs of 1,000 episodes
  (the final exact J averaged over seeds 0..99);
* the snapshots' J and gradient are pg_exact's at their theta; REINFORCE with baseline improves J towards
  V*(start) on a grid world; the average-reward actor-critic's R_bar approaches the exact r(pi) of its policy;
  a cost model is learned as the same rewards negated; on a two-player model the opponent plays the exact
  solution, fixed.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from mdpviz.core.mdp import TabularMDP
from mdpviz.solvers import pg_loop, registry
from mdpviz.solvers.pg_exact import best_value, evaluate_policy, grad_log_pi, softmax_rows
from mdpviz.solvers.policy_gradient import (KIND, PGSettings, PGStep, ThetaUpdate, build_features, compiled_loop,
                                            is_continuing, learn, pg_learner)

METHODS = registry.ids(KIND)
REINFORCE, BASELINE, AC, AVG = (registry.ids_where(KIND, code=c)[0] for c in
                                (pg_loop.REINFORCE, pg_loop.REINFORCE_BASELINE, pg_loop.ACTOR_CRITIC,
                                 pg_loop.AVG_ACTOR_CRITIC))
EPISODIC = (REINFORCE, BASELINE, AC)
needs_numba = pytest.mark.skipif(compiled_loop() is None, reason="numba unavailable: no compiled loop to compare")
BOOK_BEST = -(6.0 + 4.0 * math.sqrt(2.0))


# ------------------------------------------------------------------------------------ models
def corridor(*, cost: bool = False) -> TabularMDP:
    """Example 13.1 built inline: states 0, 1 (reversed), 2, G = 3; actions 0 left, 1 right; -1 per step (``cost``:
    +1 per step, objective "min")."""
    src, act, dst = [0, 0, 1, 1, 2, 2], [0, 1, 0, 1, 0, 1], [0, 1, 2, 0, 1, 3]
    r = 1.0 if cost else -1.0
    return TabularMDP.from_transitions(4, 2, src, act, dst, [1.0] * 6, [r] * 6, discount=1.0, terminal=[3],
                                       objective="min" if cost else "max", action_labels=["left", "right"])


def book_features(mdp: TabularMDP) -> np.ndarray:
    """x(s, right) = (1, 0), x(s, left) = (0, 1) in every state."""
    Xsa = np.zeros((mdp.n_rows, 2))
    Xsa[np.asarray(mdp.row_action) == 1, 0] = 1.0
    Xsa[np.asarray(mdp.row_action) == 0, 1] = 1.0
    return Xsa


BOOK_START = (0.0, math.log(19.0))  # p(right) = 1 / (1 + 19) = 0.05


def random_mdp(seed: int, *, n: int = 5, actions: int = 3, discount: float = 0.9) -> TabularMDP:
    """A small random episodic MDP: states 0..n-1 live, n terminal; each (s, a) moves to two random states."""
    rng = np.random.default_rng(seed)
    src, act, dst, prob, rew = [], [], [], [], []
    for s in range(n):
        for a in range(actions):
            to = rng.choice(n + 1, size=2, replace=False)
            p = rng.uniform(0.2, 0.8)
            for t, q in zip(to, (p, 1 - p)):
                src.append(s), act.append(a), dst.append(int(t)), prob.append(q), rew.append(rng.normal())
    return TabularMDP.from_transitions(n + 1, actions, src, act, dst, prob, rew, discount=discount, terminal=[n])


def continuing_mdp() -> TabularMDP:
    """Two states, no terminal: in state 0 "stay" pays 0 and "go" moves to 1 paying 0; in state 1 "stay" pays 1
    and "go" moves to 0 paying 0.5. The best policy stays in 1 (r* = 1)."""
    src, act, dst, rew = [0, 0, 1, 1], [0, 1, 0, 1], [0, 1, 1, 0], [0.0, 0.0, 1.0, 0.5]
    return TabularMDP.from_transitions(2, 2, src, act, dst, [1.0] * 4, rew, discount=1.0)


def two_player() -> TabularMDP:
    """A small game: the maximiser (state 0) picks a or b; the minimiser then (state 1 or 2) picks how it ends
    (terminal 3), with rewards 3/1 after a and 2/4 after b. Minimax: b then 2 (V*(0) = 2)."""
    src = [0, 0, 1, 1, 2, 2]
    act = [0, 1, 0, 1, 0, 1]
    dst = [1, 2, 3, 3, 3, 3]
    rew = [0.0, 0.0, 3.0, 1.0, 2.0, 4.0]
    return TabularMDP.from_transitions(4, 2, src, act, dst, [1.0] * 6, rew, discount=1.0, terminal=[3],
                                       mover=[1, -1, -1, 1])


# ------------------------------------------------------------------------------------ the registry lines
def test_the_registry_lines_carry_the_loop_codes_and_params():
    assert METHODS == ("reinforce", "reinforce-baseline", "actor-critic", "avg-actor-critic")
    for m, code in zip(METHODS, range(4)):
        spec = registry.get(m)
        assert spec.code == code and spec.unit == "episode" and spec.needs_start
        assert spec.load() is pg_learner
        assert spec.takes("features") and spec.takes("alpha_theta") and spec.takes("initial_theta")
        assert spec.takes("alpha_w") == (code in pg_loop.WITH_CRITIC)
        assert spec.takes("avg_alpha") == (code == pg_loop.AVG_ACTOR_CRITIC)
    assert registry.get(REINFORCE).param("alpha_theta").default == 2.0 ** -12


def test_options_are_checked_at_once_with_one_line_naming_the_option():
    mdp = corridor()
    bad = [(dict(alpha_theta=0.0), "alpha_theta must be in"), (dict(alpha_theta=2.0), "alpha_theta must be in"),
           (dict(avg_alpha=0.1), "avg_alpha applies to avg-actor-critic only"),
           (dict(alpha_w=0.1), "alpha_w applies to"), (dict(episodes=0), "episodes must be"),
           (dict(initial_theta=[1.0, 2.0, 3.0], features="game", Xsa=book_features(mdp)), "initial_theta: expected 2"),
           (dict(initial_theta=["x"]), "initial_theta must be a list"), (dict(nope=1), "nope: not an option"),
           (dict(alpha=0.1), "alpha: the policy-gradient learners take alpha_theta"),
           (dict(start=3), "start state 3 is terminal"), (dict(eval_every=-1), "eval_every must be"),
           (dict(features="bogus"), "features"), (dict(seed=-1), "seed must be")]
    for opts, match in bad:
        with pytest.raises(ValueError, match=match) as err:
            pg_learner(mdp, REINFORCE, **opts)
        assert "\n" not in str(err.value)
    with pytest.raises(ValueError, match="method: unknown policy-gradient learner"):
        PGSettings(method="q")


def test_episodic_and_continuing_mismatches_are_refused_in_one_line():
    with pytest.raises(ValueError, match=r"^method: avg-actor-critic is for continuing models") as err:
        pg_learner(corridor(), AVG)
    assert "\n" not in str(err.value)
    for m in EPISODIC:
        with pytest.raises(ValueError, match=rf"^method: {m} learns from episodes, but no terminal state"):
            pg_learner(continuing_mdp(), m)
    assert is_continuing(continuing_mdp(), 0) and not is_continuing(corridor(), 0)


# ------------------------------------------------------------------------------------ the updates by hand
def _softmax(Xsa: np.ndarray, theta: np.ndarray, rows: range) -> np.ndarray:
    h = Xsa[list(rows)] @ theta
    e = np.exp(h - h.max())
    return e / e.sum()


def _grad(mdp: TabularMDP, Xsa: np.ndarray, theta: np.ndarray, s: int, a: int) -> np.ndarray:
    rows = range(int(mdp.state_ptr[s]), int(mdp.state_ptr[s + 1]))
    pi = _softmax(Xsa, theta, rows)
    return Xsa[mdp.row_of(s, a)] - pi @ Xsa[list(rows)]


def test_reinforce_is_the_book_update_with_gamma_t_at_the_episodes_theta():
    mdp = random_mdp(3, discount=0.8)
    theta0 = np.random.default_rng(1).normal(size=mdp.n_rows)
    Xsa = np.eye(mdp.n_rows)
    gen = pg_learner(mdp, REINFORCE, Xsa=Xsa, initial_theta=theta0, alpha_theta=0.1, episodes=3, seed=5,
                     best=(0.0, "not needed"), eval_every=0)
    theta = theta0
    for snap in gen:
        assert len(snap.path) > 2  # (a few steps, so gamma^t matters)
        expected = theta.copy()
        T = len(snap.actions)
        for t in range(T):
            G = sum(mdp.discount ** (k - t) * snap.rewards[k] for k in range(t, T))
            expected += 0.1 * mdp.discount ** t * G * _grad(mdp, Xsa, theta, snap.path[t], snap.actions[t])
        np.testing.assert_allclose(snap.theta, expected, rtol=0, atol=1e-12)
        theta = np.array(snap.theta)


def test_actor_critic_is_the_book_update_with_I_and_the_critic_moving_each_step():
    mdp = random_mdp(4, discount=0.9)
    Xsa = np.eye(mdp.n_rows)
    X = np.eye(mdp.n_states)[:, : mdp.n_states - 1]  # tabular state features (the terminal's row 0)
    snap = next(pg_learner(mdp, AC, Xsa=Xsa, X=X, alpha_theta=0.2, alpha_w=0.3, episodes=1, seed=2,
                           best=(0.0, "not needed"), eval_every=0))
    theta, w = np.zeros(mdp.n_rows), np.zeros(X.shape[1])
    for t, a in enumerate(snap.actions):
        s, s2, r = snap.path[t], snap.path[t + 1], snap.rewards[t]
        v2 = 0.0 if mdp.terminal[s2] else X[s2] @ w
        delta = r + mdp.discount * v2 - X[s] @ w
        w = w + 0.3 * delta * X[s]
        theta = theta + 0.2 * mdp.discount ** t * delta * _grad(mdp, Xsa, theta, s, a)
    np.testing.assert_allclose(snap.theta, theta, rtol=0, atol=1e-12)
    np.testing.assert_allclose(snap.critic, w, rtol=0, atol=1e-12)
    up = snap.last_update
    assert isinstance(up, ThetaUpdate) and up.t == len(snap.actions) - 1
    assert up.gamma_t == pytest.approx(mdp.discount ** up.t, rel=1e-14)
    assert up.delta == pytest.approx(up.G_or_target - up.baseline)
    assert "\u03b8 <- \u03b8 + \u03b1 \u03b3^t (target - b)" in up.text() and "= 0.2 x " in up.text() and "\u2207ln \u03c0" in up.text()


def test_the_inspectors_gradient_is_grad_log_pi_at_the_theta_of_the_episode():
    mdp = corridor()
    Xsa = book_features(mdp)
    steps = list(pg_learner(mdp, REINFORCE, features="game", Xsa=Xsa, initial_theta=BOOK_START, episodes=2, seed=0,
                            best=(BOOK_BEST, "the book's"), eval_every=0))
    up = steps[1].last_update
    g = grad_log_pi(mdp, Xsa, softmax_rows(mdp, Xsa, np.asarray(steps[0].theta)))[mdp.row_of(up.state, up.action)]
    assert dict(up.grad_log_pi) == pytest.approx({i: float(v) for i, v in enumerate(g) if v != 0.0})
    assert up.G_or_target == -(len(steps[1].actions) - up.t) and up.baseline == 0.0


# ------------------------------------------------------------------------------------ compiled = Python
@needs_numba
@pytest.mark.parametrize("method", METHODS)
def test_compiled_and_python_give_the_same_numbers_for_a_seed(method):
    if method == AVG:
        mdp, opts = continuing_mdp(), dict(max_steps=50)
    else:
        mdp, opts = random_mdp(7, discount=0.95), {}
    runs = [list(pg_learner(mdp, method, episodes=6, seed=11, batch=2, compiled=c, eval_every=0,
                            best=(0.0, "-"), **opts)) for c in (True, False)]
    for a, b in zip(*runs):
        assert np.array_equal(a.theta, b.theta) and a.returns == b.returns and a.path == b.path
        assert (a.critic is None) == (method == REINFORCE)
        if a.critic is not None:
            assert np.array_equal(a.critic, b.critic)
        assert a.avg_reward == b.avg_reward and a.last_update == b.last_update
    assert not np.array_equal(runs[0][-1].theta, np.zeros_like(runs[0][-1].theta))


def test_batches_do_not_change_the_numbers():
    mdp = random_mdp(8)
    one = list(pg_learner(mdp, BASELINE, episodes=6, seed=4, batch=1, eval_every=0, best=(0.0, "-")))
    three = list(pg_learner(mdp, BASELINE, episodes=6, seed=4, batch=3, eval_every=0, best=(0.0, "-")))
    assert len(one) == 6 and len(three) == 2
    assert np.array_equal(one[-1].theta, three[-1].theta) and np.array_equal(one[-1].critic, three[-1].critic)
    assert sum((s.returns for s in one), ()) == sum((s.returns for s in three), ())


# ------------------------------------------------------------------------------------ the check
def test_reinforce_on_the_corridor_ends_within_half_of_the_best_value_over_100_runs():
    """Example 13.1 / figure 13.1: the book's features, theta from p(right) = 0.05, alpha_theta = 2^-12, 1,000
    episodes; the final exact J averaged over seeds 0..99 is within 0.5 of J_best = -(6 + 4 sqrt 2)."""
    from mdpviz.models.kit.game import registry as games
    from mdpviz.models.kit.teaching.approx_inputs import approx_inputs

    spec = games.get("corridor")
    settings = spec.default_settings()
    mdp = spec.compile(settings)
    Xsa = np.asarray(spec.model.action_features(settings, mdp))
    theta0 = [float(v) for v in spec.model.initial_weights(settings, mdp)]
    assert 1.0 / (1.0 + math.exp(theta0[1] - theta0[0])) == pytest.approx(0.05)
    best = best_value(mdp, Xsa, start=0, tabular=False)
    assert best[0] == pytest.approx(BOOK_BEST, abs=1e-6)
    extra = approx_inputs(spec, settings, mdp, REINFORCE, {})  # (the game's own state features: one constant)
    finals = []
    for seed in range(100):
        last, _ = learn(mdp, REINFORCE, features="game", Xsa=Xsa, game_features=extra.get("game_features"),
                        initial_theta=theta0, alpha_theta=2.0 ** -12, episodes=1000, batch=1000, seed=seed,
                        eval_every=0, best=best, compiled=None)
        assert last.episode == 1000 and last.J_best == best[0]
        finals.append(last.J)
    mean = float(np.mean(finals))
    assert abs(mean - best[0]) < 0.5, mean
    assert all(j <= best[0] + 1e-9 for j in finals)  # no policy of these features beats the best


def test_j_best_is_computed_once_and_the_snapshots_carry_pg_exacts_j_and_gradient():
    mdp = corridor()
    Xsa = book_features(mdp)
    steps = list(pg_learner(mdp, BASELINE, features="game", Xsa=Xsa, initial_theta=BOOK_START, episodes=6,
                            seed=1, eval_every=2))
    assert steps[0].J_best == pytest.approx(BOOK_BEST, abs=1e-6) and "local optimum" in steps[0].J_best_how
    for k, snap in enumerate(steps, start=1):
        assert isinstance(snap, PGStep) and snap.n_features == 2
        if k % 2:
            assert math.isnan(snap.J) and snap.gradient is None
            continue
        exact = evaluate_policy(mdp, Xsa, np.asarray(snap.theta), start=0)
        assert snap.J == exact.J and np.array_equal(snap.gradient, exact.gradient)
        np.testing.assert_allclose(snap.policy, exact.pi, atol=1e-15)
    last = steps[-1]
    assert last.done and last.gradient is not None
    for arr in (last.theta, last.policy, last.critic, last.gradient, last.visits):
        assert not arr.flags.writeable
    budget = list(pg_learner(mdp, REINFORCE, features="game", Xsa=Xsa, episodes=5, eval_budget=1e9,
                             best=(BOOK_BEST, "-")))
    assert [math.isnan(s.J) for s in budget] == [True] * 4 + [False]  # (the last is always evaluated)


def test_reinforce_with_baseline_improves_j_towards_v_star_on_a_grid_world():
    from mdpviz.models.kit.game import registry as games

    spec = games.get("gridworld")
    mdp = spec.compile(spec.default_settings())
    start = int(np.flatnonzero(~np.asarray(mdp.terminal))[0])
    steps = list(pg_learner(mdp, BASELINE, start=start, alpha_theta=0.2, alpha_w=0.2, episodes=300, batch=100,
                            seed=0, max_steps=500))
    assert "V*(start)" in steps[0].J_best_how
    first = evaluate_policy(mdp, build_features(mdp)[1], np.zeros(steps[0].n_features), start=start).J
    gaps = [steps[0].J_best - first] + [s.J_best - s.J for s in steps]
    assert all(g >= -1e-9 for g in gaps)  # V*(start) bounds every policy
    assert gaps[-1] < 0.5 * gaps[0], gaps


# ------------------------------------------------------------------------------------ average reward
def test_average_reward_actor_critic_estimate_approaches_the_exact_r_pi():
    mdp = continuing_mdp()
    steps = list(pg_learner(mdp, AVG, alpha_theta=0.05, alpha_w=0.05, avg_alpha=0.01, episodes=40, max_steps=500,
                            batch=10, seed=3))
    last = steps[-1]
    assert last.J_best == pytest.approx(1.0) and last.avg_reward is not None
    assert last.J > 0.9  # it learned to stay where staying pays 1
    assert abs(last.avg_reward - last.J) < 0.05, (last.avg_reward, last.J)
    assert all(s.avg_reward is None for s in pg_learner(corridor(), AC, episodes=2, best=(0.0, "-")))


# ------------------------------------------------------------------------------------ objective and players
def test_a_cost_model_is_learned_as_its_rewards_negated():
    rewards, costs = corridor(), corridor(cost=True)
    Xsa = book_features(rewards)
    kw = dict(features="game", Xsa=Xsa, initial_theta=BOOK_START, episodes=20, batch=20, seed=6, eval_every=0)
    a = next(pg_learner(rewards, REINFORCE, best=(BOOK_BEST, "-"), **kw))
    b = next(pg_learner(costs, REINFORCE, **kw))
    assert np.array_equal(a.theta, b.theta) and b.sign == -1.0
    assert b.J == pytest.approx(-a.J) and b.J_best == pytest.approx(-BOOK_BEST, abs=1e-6)
    assert "\u03b8 <- \u03b8 - " in b.last_update.text()


def test_on_two_players_the_learner_moves_at_the_maximisers_states_against_the_exact_opponent():
    mdp = two_player()
    steps = list(pg_learner(mdp, REINFORCE, alpha_theta=0.1, episodes=200, batch=100, seed=0))
    last = steps[-1]
    assert last.J_best == pytest.approx(2.0)
    rows_opp = np.asarray(mdp.mover)[mdp.row_state] == -1
    # the opponent's rows: the minimax policy (after a: 1, after b: 2), fixed; theta never moves there
    np.testing.assert_array_equal(np.asarray(last.policy)[rows_opp], [0.0, 1.0, 1.0, 0.0])
    Xsa = build_features(mdp, critic=False)[1]
    theirs = np.flatnonzero(np.asarray(Xsa)[rows_opp].any(axis=0) & ~np.asarray(Xsa)[~rows_opp].any(axis=0))
    assert theirs.size and np.all(np.asarray(last.theta)[theirs] == 0.0)
    assert last.policy[mdp.row_of(0, 1)] > 0.9 and last.J > 1.9  # it learned b (2 beats the 1 after a)


# ------------------------------------------------------------------------------------ the bench row
def test_the_bench_row_runs_and_its_options_are_one_error_line(capsys):
    from mdpviz.cli import main
    from mdpviz.commands.bench_pg import rows_pg
    from mdpviz.commands.bench_table import Table

    for argv, says in ((["bench", "pg", "--seconds", "0"], "--seconds: must be in [0.05, 600]"),
                       (["bench", "pg", "--repeat", "0"], "--repeat: must be at least 1")):
        try:
            code = main(argv)
        except SystemExit as e:  # argparse's own errors
            code = int(e.code)
        assert code == 2 and says in capsys.readouterr().err
    if compiled_loop() is None:
        return
    out = rows_pg(Table(), seconds=0.05, repeat=1, games=("corridor",))  # (no timing is checked)
    assert [r["game"] for r in out] == ["corridor"] and out[0]["updates"] > 0 and out[0]["reference_rate"] > 0
