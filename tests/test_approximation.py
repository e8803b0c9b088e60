"""The learners with linear function approximation (issue 36, part B: mdpviz/solvers/approximation.py and
approx_loop.py), checked against exact targets, not "it went down":

* the compiled loop and its Python reference give the same numbers for a seed, every method;
* with one-hot (tabular) features each learner with a tabular twin gives the twin's numbers for the same seed
  (semi-gradient TD(0) = TD(0), n-step = n-step, gradient MC = every-visit MC, semi-gradient SARSA = SARSA),
  on a grid world and on a small random episodic MDP;
* LSTD's weights approach the TD fixed point w_TD = A^-1 b as the data grows;
* the expected mode is the expected update of fixed_points, one snapshot per step;
* Baird's counterexample (Example 11.1): sampled off-policy semi-gradient TD grows far from its start,
  sampled TDC stays bounded;
* options are checked at once, one line naming the option.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from mdpviz.core.mdp import TabularMDP
from mdpviz.solvers import approx_loop, registry
from mdpviz.solvers.approximation import (ApproxStep, WeightUpdate, approx_learner, compiled_loop, lstd_weights,
                                          tabular_twin)
from mdpviz.solvers.learning import learner

APPROX = registry.ids("approximation")


# ------------------------------------------------------------------------------------ models
def grid():
    from mdpviz.models.gridworld.rules import GridSettings, compile_gridworld

    world = compile_gridworld(GridSettings())
    return world.mdp, int(world.start_state)


def random_episodic(seed: int = 4, n: int = 12, k: int = 3) -> tuple[TabularMDP, int]:
    """A small random episodic MDP: states 0, 1 terminal; every live state has k actions of 2-3 random
    successors, rewards uniform in [-1, 1]; discount 0.9. Start: state 2."""
    rng = np.random.default_rng(seed)
    src, act, dst, prob, rew = [], [], [], [], []
    for s in range(2, n):
        for a in range(k):
            succ = rng.choice(n, size=int(rng.integers(2, 4)), replace=False)
            p = rng.random(succ.size) + 0.1
            p /= p.sum()
            for t, q in zip(succ, p):
                src.append(s), act.append(a), dst.append(int(t)), prob.append(float(q))
                rew.append(float(rng.uniform(-1, 1)))
    return TabularMDP.from_transitions(n, k, src, act, dst, prob, rew, discount=0.9, terminal=[0, 1]), 2


def one_hot(mdp: TabularMDP) -> np.ndarray:
    """One column per non-terminal state, in state order (what the "tabular" features are)."""
    live = np.flatnonzero(~np.asarray(mdp.terminal))
    X = np.zeros((mdp.n_states, live.size))
    X[live, np.arange(live.size)] = 1.0
    return X


def random_features(mdp: TabularMDP, d: int = 4, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    X = rng.random((mdp.n_states, d)) * (rng.random((mdp.n_states, d)) < 0.6)
    X[np.asarray(mdp.terminal)] = 0.0
    return X


def chain(n: int = 7) -> tuple[TabularMDP, int]:
    """A random walk (Example 6.2 shape): states 0 and n-1 terminal, 1..n-2 step left or right with
    probability 1/2 under the one action, reward +1 on reaching the right end; discount 1."""
    src, act, dst, prob, rew = [], [], [], [], []
    for s in range(1, n - 1):
        for t in (s - 1, s + 1):
            src.append(s), act.append(0), dst.append(t), prob.append(0.5), rew.append(1.0 if t == n - 1 else 0.0)
    return TabularMDP.from_transitions(n, 1, src, act, dst, prob, rew, discount=1.0, terminal=[0, n - 1]), n // 2


def baird() -> tuple[TabularMDP, np.ndarray, np.ndarray, np.ndarray]:
    """Baird's counterexample (Example 11.1): states 0-5 upper, 6 lower; action 0 dashed (to an upper state,
    each 1/6), action 1 solid (to the lower); reward 0, discount 0.99, continuing. Features: upper i has
    v = 2 w_i + w_8, the lower v = w_7 + 2 w_8. Target: always solid; behaviour: dashed 6/7, solid 1/7."""
    src, act, dst, prob, rew = [], [], [], [], []
    for s in range(7):
        for t in range(6):
            src.append(s), act.append(0), dst.append(t), prob.append(1 / 6), rew.append(0.0)
        src.append(s), act.append(1), dst.append(6), prob.append(1.0), rew.append(0.0)
    mdp = TabularMDP.from_transitions(7, 2, src, act, dst, prob, rew, discount=0.99, terminal=())
    X = np.zeros((7, 8))
    X[np.arange(6), np.arange(6)] = 2.0
    X[:6, 7] = 1.0
    X[6, 6], X[6, 7] = 1.0, 2.0
    solid = np.asarray(mdp.row_action) == 1
    return mdp, X, np.where(solid, 1.0, 0.0), np.where(solid, 1 / 7, 6 / 7)


BAIRD_W0 = [1, 1, 1, 1, 1, 1, 10, 1]


def last(gen) -> ApproxStep:
    out = None
    for out in gen:
        pass
    return out


# ------------------------------------------------------------------------------------ the registry
def test_the_registry_lines_carry_the_loop_codes():
    codes = {m: registry.get(m).code for m in APPROX}
    assert codes == {"gradient-mc": approx_loop.GRADIENT_MC, "semi-td": approx_loop.SEMI_TD,
                     "semi-nstep": approx_loop.SEMI_NSTEP, "lstd": approx_loop.LSTD, "off-td": approx_loop.OFF_TD,
                     "tdc": approx_loop.TDC, "semi-sarsa": approx_loop.SEMI_SARSA,
                     "semi-nstep-sarsa": approx_loop.SEMI_NSTEP_SARSA}
    assert all((c < approx_loop.CONTROL_FROM) == registry.get(m).prediction for m, c in codes.items())
    assert {m: tabular_twin(m) for m in APPROX} == {
        "gradient-mc": "mc", "semi-td": "td0", "semi-nstep": "nstep", "semi-sarsa": "sarsa", "lstd": None,
        "off-td": None, "tdc": None, "semi-nstep-sarsa": None}
    assert all(registry.get(m).unit == "episode" and registry.get(m).needs_start and registry.get(m).tol_as is None
               for m in APPROX)


# ------------------------------------------------------------------------------------ compiled = Python
CASES = {
    "gradient-mc": {}, "semi-td": {}, "semi-nstep": {"n": 3}, "lstd": {}, "semi-sarsa": {"epsilon": 0.2},
    "semi-nstep-sarsa": {"n": 2, "epsilon": 0.2}, "off-td": {}, "tdc": {"beta": 0.1},
}


@pytest.mark.parametrize("method", APPROX)
def test_compiled_and_python_give_the_same_numbers(method):
    if compiled_loop() is None:
        pytest.skip("numba unavailable")
    mdp, start = random_episodic()
    X = random_features(mdp)
    opts = dict(X=X, episodes=40, start=start, seed=7, max_steps=60, policy="random", **CASES[method])
    if registry.get(method).prediction:
        opts["policy"] = "random"
    else:
        opts.pop("policy")
    if method not in ("lstd",):
        opts["alpha"] = 0.02
    a = last(approx_learner(mdp, method, compiled=True, **opts))
    b = last(approx_learner(mdp, method, compiled=False, **opts))
    assert a.updates == b.updates > 0
    assert np.array_equal(a.weights, b.weights), np.abs(a.weights - b.weights).max()
    assert np.array_equal(a.visits, b.visits) and a.path == b.path and a.returns == b.returns
    if a.aux is not None:
        assert np.array_equal(a.aux, b.aux)
    assert a.last_update == b.last_update


# ------------------------------------------------------------------------------------ tabular twins
TWINS = {"semi-td": ("td0", {}, {}), "semi-nstep": ("nstep", {"n": 3}, {"n": 3}),
         "gradient-mc": ("mc", {}, {"visits": "every"}), "semi-sarsa": ("sarsa", {}, {})}


@pytest.mark.parametrize("model", ["grid", "random"])
@pytest.mark.parametrize("method", sorted(TWINS))
@pytest.mark.parametrize("compiled", [False, True])
def test_with_tabular_features_each_equals_its_tabular_twin(method, model, compiled):
    if compiled and compiled_loop() is None:
        pytest.skip("numba unavailable")
    mdp, start = grid() if model == "grid" else random_episodic()
    twin, extra, twin_extra = TWINS[method]
    assert tabular_twin(method) == twin
    common = dict(episodes=60, start=start, seed=11, alpha=0.1, batch=7, max_steps=200, compiled=compiled)
    if registry.get(method).prediction:
        common["policy"] = "random"
    a = last(approx_learner(mdp, method, features="tabular", **common, **extra))
    b = last(learner(mdp, twin, **common, **twin_extra))
    assert a.updates == b.updates > 0
    assert a.n_features == int((~np.asarray(mdp.terminal)).sum())
    assert np.array_equal(a.values, b.values), np.abs(a.values - b.values).max()
    assert np.array_equal(a.visits, b.visits) and a.path == b.path and a.returns == b.returns
    if b.q is not None:
        assert np.array_equal(a.q, b.q), np.abs(a.q - b.q).max()
        assert np.array_equal(a.policy, b.policy)


def test_nstep_sarsa_with_n_1_is_sarsa_and_with_n_3_is_not():
    mdp, start = grid()
    opts = dict(X=one_hot(mdp), episodes=40, start=start, seed=5, alpha=0.1)
    sarsa = last(approx_learner(mdp, "semi-sarsa", **opts))
    one = last(approx_learner(mdp, "semi-nstep-sarsa", n=1, **opts))
    three = last(approx_learner(mdp, "semi-nstep-sarsa", n=3, **opts))
    assert np.array_equal(sarsa.weights, one.weights) and sarsa.updates == one.updates
    assert not np.array_equal(sarsa.weights, three.weights)
    # each step of an episode is updated once: as many updates as steps
    assert three.updates == sum(s.lengths[0] for s in approx_learner(mdp, "semi-nstep-sarsa", n=3, **opts))


def test_the_numbers_do_not_depend_on_the_batch():
    mdp, start = random_episodic()
    X = random_features(mdp)
    one = last(approx_learner(mdp, "tdc", X=X, episodes=30, start=start, seed=2, alpha=0.02, policy="random"))
    gen = approx_learner(mdp, "tdc", X=X, episodes=30, start=start, seed=2, alpha=0.02, policy="random", batch=4)
    steps = list(gen)
    assert [s.episode for s in steps] == [4, 8, 12, 16, 20, 24, 28, 30]
    assert np.array_equal(one.weights, steps[-1].weights) and np.array_equal(one.aux, steps[-1].aux)
    assert steps[-1].done and not steps[0].done


# ------------------------------------------------------------------------------------ LSTD
def test_lstd_weights_approach_the_td_fixed_point_as_data_grows():
    mdp, start = chain(9)
    X = np.zeros((9, 3))  # three overlapping "coarse" features over states 1..7
    X[1:8, 0] = 1.0
    X[1:8, 1] = np.linspace(0, 1, 7)
    X[1:4, 2] = 1.0
    errors = []
    for episodes in (20, 200, 2000):
        step = last(approx_learner(mdp, "lstd", X=X, episodes=episodes, start=start, seed=3, batch=episodes))
        w_td = step.answer.td.weights
        errors.append(float(np.abs(step.weights - w_td).max()))
    assert errors[2] < errors[0] and errors[2] < 0.02, errors
    # the snapshot's weights are (eps I + A_hat)^-1 b_hat of the sums the loop kept
    assert np.allclose(lstd_weights(np.eye(3), np.ones(3), 1.0), 0.5)


def test_lstd_with_tabular_features_is_the_certainty_equivalent_estimate():
    """With one-hot features and a tiny ridge, LSTD solves the TD equations of the sampled model: its
    weights equal TD(0)'s batch fixed point, close to v on the chain after many episodes."""
    mdp, start = chain(7)
    step = last(approx_learner(mdp, "lstd", features="tabular", episodes=3000, start=start, seed=1, batch=3000,
                               lstd_epsilon=1e-9))
    assert np.abs(step.values - step.answer.v).max() < 0.03
    assert step.last_update is None


# ------------------------------------------------------------------------------------ expected mode
@pytest.mark.parametrize("method", ["off-td", "tdc"])
def test_the_expected_mode_is_the_expected_update_one_snapshot_per_step(method):
    from mdpviz.solvers.fixed_points import expected_updates

    mdp, X, target, behaviour = baird()
    kw = {"alpha": 0.01} if method == "off-td" else {"alpha": 0.005, "beta": 0.05}
    steps = list(approx_learner(mdp, method, X=X, target_rows=target, behaviour_rows=behaviour, behaviour="game",
                                initial_weights=BAIRD_W0, episodes=50, expected=True, **kw))
    assert [s.episode for s in steps] == list(range(1, 51)) and all(s.expected for s in steps)
    ref = list(expected_updates(mdp, X, target, steps[0].answer.mu, method=method, w0=np.array(BAIRD_W0, float),
                                steps=50, beta=kw.get("beta", 0.0), alpha=kw["alpha"]))
    assert all(np.array_equal(s.weights, r.weights) for s, r in zip(steps, ref))
    assert np.isclose(steps[-1].ve, ref[-1].ve) and np.isclose(steps[-1].pbe, ref[-1].pbe)
    assert np.allclose(steps[0].answer.mu, 1 / 7)  # the behaviour's distribution: uniform on Baird


def test_expected_semi_td_on_policy_goes_to_the_td_fixed_point():
    mdp, start = chain(7)
    X = np.c_[np.where(np.arange(7) % 6 == 0, 0.0, 1.0), np.where(np.arange(7) % 6 == 0, 0.0, np.arange(7) / 6)]
    step = last(approx_learner(mdp, "semi-td", X=X, start=start, episodes=4000, expected=True, alpha=0.5,
                               batch=4000))
    assert np.allclose(step.weights, step.answer.td.weights, atol=1e-6)


# ------------------------------------------------------------------------------------ Baird, sampled
def test_baird_sampled_off_policy_td_grows_and_tdc_stays_bounded():
    mdp, X, target, behaviour = baird()
    common = dict(X=X, target_rows=target, behaviour_rows=behaviour, behaviour="game", initial_weights=BAIRD_W0,
                  episodes=1000, max_steps=1, seed=0)
    td = list(approx_learner(mdp, "off-td", alpha=0.01, **common))
    assert len(td) == 1000 and all(s.lengths == (1,) for s in td)
    # continuing: each one-step "episode" starts where the last stopped
    assert all(a.path[-1] == b.path[0] for a, b in zip(td, td[1:]))
    assert np.abs(td[-1].weights).max() > 10 * max(BAIRD_W0)
    assert td[-1].ve > 1e3 * td[0].ve
    tdc = list(approx_learner(mdp, "tdc", alpha=0.005, beta=0.05, **common))
    W = np.array([s.weights for s in tdc])
    assert np.abs(W).max() <= max(BAIRD_W0) + 1e-9
    assert tdc[-1].ve < tdc[0].ve
    assert tdc[-1].last_update.rho in (0.0, 7.0)  # pi / b: 0 for dashed, 1 / (1/7) for solid


# ------------------------------------------------------------------------------------ snapshots
def test_a_snapshot_is_read_only_and_carries_its_answer_and_last_update():
    mdp, start = grid()
    steps = list(approx_learner(mdp, "semi-sarsa", features="tabular", episodes=5, start=start, seed=1))
    s = steps[-1]
    for arr in (s.weights, s.values, s.q, s.policy, s.visits):
        assert not arr.flags.writeable
    assert all(x.answer is steps[0].answer for x in steps)
    assert s.weights.size == s.n_features * mdp.n_actions
    u = s.last_update
    assert isinstance(u, WeightUpdate) and u.delta == pytest.approx(u.target - u.estimate)
    assert u.x == (1.0,) and len(u.active) == 1 and u.active[0] // s.n_features == u.action
    assert u.text().startswith("w <- w + 0.1 x (")
    live = ~np.asarray(mdp.terminal)
    assert np.allclose(s.shown("error"), s.values - s.answer.v)
    assert np.array_equal(s.shown("best"), s.answer.best.values)
    assert s.ve == pytest.approx(float(np.sum(s.answer.mu * (s.values - s.answer.v) ** 2)))
    assert np.all(s.values[~live] == 0.0)
    with pytest.raises(ValueError, match="board mode"):
        s.shown("nope")


def test_the_default_step_size_is_a_tenth_over_the_features_norm():
    from mdpviz.solvers.approximation import default_alpha

    mdp, start = grid()
    assert default_alpha(one_hot(mdp)) == 0.1
    X = np.zeros((4, 16))
    X[:3, :8] = 1.0  # 8 tilings: x.x = 8
    assert default_alpha(X) == pytest.approx(0.1 / 8)
    s = last(approx_learner(mdp, "semi-td", features="tabular", episodes=2, start=start))
    assert s.last_update.alpha == 0.1


# ------------------------------------------------------------------------------------ options
@pytest.mark.parametrize("method, options, says", [
    ("semi-td", {"n": 3}, "n applies to semi-nstep, semi-nstep-sarsa only"),
    ("semi-td", {"alpha": 2.0}, "alpha must be in (0, 1]"),
    ("semi-td", {"episodes": 0}, "episodes must be a positive integer"),
    ("semi-td", {"features": "tiles:x"}, "features"),
    ("semi-td", {"behaviour": "game"}, "behaviour applies to off-td, tdc only"),
    ("gradient-mc", {"expected": True}, "expected applies to semi-td, off-td, tdc only"),
    ("lstd", {"alpha": 0.1}, "alpha applies to"),
    ("off-td", {"behaviour": "game"}, "behaviour: 'game' needs the game's own behaviour policy"),
    ("semi-td", {"initial_weights": [1.0, 2.0]}, "initial_weights: expected"),
    ("semi-td", {"wobble": 1}, "wobble: not an option"),
    ("semi-sarsa", {"epsilon": 1.5}, "epsilon must be in [0, 1]"),
    ("semi-td", {"start": 999}, "start state 999 is out of range"),
    ("tdc", {"beta": 0.0}, "beta must be in (0, 1]"),
    ("td0", {}, "unknown learner with function approximation 'td0'"),
])
def test_a_bad_option_is_one_line_naming_it(method, options, says):
    mdp, start = grid()
    options = {"start": start, **options}
    with pytest.raises(ValueError) as e:
        approx_learner(mdp, method, **options)
    text = str(e.value)
    assert says in text and "\n" not in text, text


def test_sampled_prediction_snapshots_carry_the_projected_bellman_error():
    """Figure 11.5 (left): sampled TDC on Baird drives the PBE towards 0 while VE stays near 2^2; each
    snapshot's pbe is fixed_points.projected_bellman_error of its weights (computed apart here)."""
    from mdpviz.models.kit.game.game_model import build_game
    from mdpviz.models.kit.teaching.approx_inputs import approx_inputs
    from mdpviz.solvers.fixed_points import projected_bellman_error

    game = build_game("baird")
    opts = approx_inputs(game.spec, game.settings, game.mdp, "tdc",
                         {"episodes": 1000, "max_steps": 1, "alpha": 0.005, "beta": 0.05, "batch": 100})
    steps = list(approx_learner(game.mdp, "tdc", start=game.start_state(), **opts))
    a = steps[-1].answer
    for s in (steps[0], steps[-1]):
        assert s.pbe == pytest.approx(projected_bellman_error(game.mdp, a.X, opts["target_rows"], a.mu, s.weights),
                                      rel=1e-9, abs=1e-12)
    assert steps[-1].pbe < 0.05 * steps[0].pbe and 1.0 < math.sqrt(steps[-1].ve) < 3.0
    control = list(approx_learner(game.mdp, "semi-sarsa", start=game.start_state(), episodes=3, max_steps=5,
                                  features="tabular"))
    assert all(math.isnan(s.pbe) for s in control)


def test_the_inspectors_line_names_the_action_and_rho_off_policy_and_the_state_action_for_control():
    from mdpviz.models.kit.game.game_model import build_game
    from mdpviz.models.kit.teaching.approx_inputs import approx_inputs

    game = build_game("baird")
    names = (game.state_labels(), lambda a: game.action_label(0, a))
    opts = approx_inputs(game.spec, game.settings, game.mdp, "tdc", {"episodes": 20, "max_steps": 1})
    u = list(approx_learner(game.mdp, "tdc", start=game.start_state(), **opts))[-1].last_update
    text = u.text(lambda s: names[0][s], names[1])
    action = names[1](u.action)
    assert text.startswith(f"A = {action}, \u03c1 = \u03c0/b = ") and f",{action})" not in text
    assert f"x({names[0][u.state]}) = {{" in text
    assert ("TDC's correction" in text) == (u.correction != 0.0)
    control = list(approx_learner(game.mdp, "semi-sarsa", start=0, episodes=3, max_steps=3))[-1].last_update
    ctext = control.text(lambda s: names[0][s], names[1])
    assert ctext.startswith("w <- w + ") and f"x({names[0][control.state]},{names[1](control.action)})" in ctext
