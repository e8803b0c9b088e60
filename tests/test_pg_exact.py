"""The exact quantities of policy gradients (mdpviz/solvers/pg_exact.py, issue 37, part P).

Every check is against a computation made another way: the exact gradient against central finite differences
of the exact J, J against a dense linear solve written here, the short corridor's J against its closed form
(derived in :func:`corridor_j`), its best values against the book's numbers, the sampled REINFORCE estimates
against the exact gradient.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from mdpviz.core.mdp import TabularMDP
from mdpviz.solvers import pg_exact as pg
from mdpviz.solvers.features import action_features, feature_matrix

FD_EPS = 1e-6
FD_RTOL = 1e-5


# ------------------------------------------------------------------------------------ models built here
def random_episodic(seed: int, *, n_states: int = 6, n_actions: int = 3, discount: float = 0.9,
                    end: float = 0.15) -> TabularMDP:
    """A random MDP: states 0..n-2 live with 1..n_actions legal actions each, up to 3 outcomes per action,
    state n-1 terminal, every action ending the episode with probability ``end`` (so discount 1 is proper)."""
    rng = np.random.default_rng(seed)
    n = n_states
    src, act, dst, prob, rew = [], [], [], [], []
    for s in range(n - 1):
        k = int(rng.integers(1, n_actions + 1))
        for a in rng.choice(n_actions, size=k, replace=False):
            outs = rng.choice(n - 1, size=int(rng.integers(1, 4)), replace=False)
            p = rng.dirichlet(np.ones(outs.size)) * (1.0 - end)
            for d, pp in zip(outs, p):
                src.append(s); act.append(int(a)); dst.append(int(d)); prob.append(pp); rew.append(rng.normal())
            src.append(s); act.append(int(a)); dst.append(n - 1); prob.append(end); rew.append(rng.normal())
    return TabularMDP.from_transitions(n, n_actions, src, act, dst, prob, rew, discount=discount, terminal=[n - 1])


def corridor(*, reversed_state: int = 1) -> TabularMDP:
    """Example 13.1: states 0, 1, 2 and the goal 3 (terminal); actions left (0) and right (1); -1 per step;
    discount 1; left in state 0 stays there; the reversed state's actions swap their moves."""
    src, act, dst = [], [], []
    for s in range(3):
        left, right = max(s - 1, 0), s + 1
        if s == reversed_state:
            left, right = right, left
        src += [s, s]; act += [0, 1]; dst += [left, right]
    return TabularMDP.from_transitions(4, 2, src, act, dst, np.ones(6), -np.ones(6), discount=1.0, terminal=[3],
                                       action_labels=("left", "right"))


def book_features(mdp: TabularMDP) -> np.ndarray:
    """Example 13.1's features: x(s, right) = (1, 0), x(s, left) = (0, 1) in every state."""
    X = np.zeros((mdp.n_rows, 2))
    X[np.asarray(mdp.row_action) == 1, 0] = 1.0
    X[np.asarray(mdp.row_action) == 0, 1] = 1.0
    return X


def corridor_j(p: float) -> float:
    """The corridor's J when right has probability p everywhere: v0 = -1 + p v1 + (1 - p) v0,
    v1 = -1 + p v0 + (1 - p) v2 (reversed), v2 = -1 + (1 - p) v1; so v0 = v1 - 1/p, v1 = (p - 3) / (p (1 - p))
    and J = v0 = (2p - 4) / (p (1 - p))."""
    return (2.0 * p - 4.0) / (p * (1.0 - p))


def dense_value(mdp: TabularMDP, pi: np.ndarray) -> np.ndarray:
    """v_pi by a dense solve of (I - gamma P_pi) v = r_pi over the live states, written out here."""
    n = mdp.n_states
    P = np.zeros((n, n))
    r = np.zeros(n)
    for row in range(mdp.n_rows):
        s = int(mdp.row_state[row])
        if mdp.terminal[s]:
            continue
        for t in range(int(mdp.row_ptr[row]), int(mdp.row_ptr[row + 1])):
            P[s, int(mdp.dst[t])] += pi[row] * mdp.prob[t]
            r[s] += pi[row] * mdp.prob[t] * mdp.reward[t]
    live = ~np.asarray(mdp.terminal)
    v = np.zeros(n)
    v[live] = np.linalg.solve(np.eye(live.sum()) - mdp.discount * P[np.ix_(live, live)], r[live])
    return v


def finite_difference(mdp, Xsa, theta, *, start, eps=FD_EPS, **kw) -> np.ndarray:
    """Central differences of the exact J, one coordinate at a time."""
    g = np.zeros(theta.size)
    for i in range(theta.size):
        e = np.zeros(theta.size)
        e[i] = eps
        hi = pg.evaluate_policy(mdp, Xsa, theta + e, start=start, **kw).J
        lo = pg.evaluate_policy(mdp, Xsa, theta - e, start=start, **kw).J
        g[i] = (hi - lo) / (2.0 * eps)
    return g


def assert_gradient_matches(pv, fd) -> None:
    scale = max(float(np.abs(fd).max()), 1e-3)
    np.testing.assert_allclose(pv.gradient, fd, rtol=FD_RTOL, atol=FD_RTOL * scale)


# ------------------------------------------------------------------------------------ the policy
def test_softmax_rows_is_the_softmax_of_each_states_preferences():
    mdp = random_episodic(3, n_states=7, n_actions=4)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(mdp.n_rows, 5))
    theta = rng.normal(size=5) * 3
    pi = pg.softmax_rows(mdp, X, theta)
    for s in range(mdp.n_states - 1):
        lo, hi = int(mdp.state_ptr[s]), int(mdp.state_ptr[s + 1])
        h = X[lo:hi] @ theta
        np.testing.assert_allclose(pi[lo:hi], np.exp(h) / np.exp(h).sum(), rtol=1e-12)
    # huge preferences do not overflow
    big = pg.softmax_rows(mdp, X, theta * 1e4)
    assert np.all(np.isfinite(big)) and np.allclose(np.bincount(mdp.row_state, big, mdp.n_states)[:-1], 1.0)
    assert not pi.flags.writeable
    with pytest.raises(ValueError, match="theta: 4 numbers for 5 features"):
        pg.softmax_rows(mdp, X, theta[:4])
    with pytest.raises(ValueError, match="features: Xsa"):
        pg.softmax_rows(mdp, X[:-1], theta)


def test_grad_log_pi_is_the_derivative_of_log_pi():
    mdp = random_episodic(4, n_states=6, n_actions=3)
    rng = np.random.default_rng(1)
    X = rng.normal(size=(mdp.n_rows, 4))
    theta = rng.normal(size=4)
    g = pg.grad_log_pi(mdp, X, pg.softmax_rows(mdp, X, theta))
    fd = np.zeros_like(g)
    for i in range(4):
        e = np.zeros(4)
        e[i] = FD_EPS
        fd[:, i] = (np.log(pg.softmax_rows(mdp, X, theta + e)) - np.log(pg.softmax_rows(mdp, X, theta - e))) / (2 * FD_EPS)
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)


# ------------------------------------------------------------------------------------ J and its gradient
@pytest.mark.parametrize("seed,discount", [(0, 0.9), (1, 0.9), (2, 1.0), (3, 1.0), (4, 0.5)])
def test_exact_gradient_matches_finite_differences_on_random_mdps(seed, discount):
    mdp = random_episodic(seed, n_states=7, n_actions=3, discount=discount)
    rng = np.random.default_rng(100 + seed)
    X = rng.normal(size=(mdp.n_rows, 4))
    theta = rng.normal(size=4)
    pv = pg.evaluate_policy(mdp, X, theta, start=0)
    assert pv.form == "start" and pv.sign == 1.0
    # J is v_pi(start) of the softmax policy, as a dense solve written here says
    v = dense_value(mdp, pv.pi)
    assert pv.J == pytest.approx(v[0], rel=1e-10, abs=1e-12)
    np.testing.assert_allclose(pv.v, v, rtol=1e-9, atol=1e-12)
    assert_gradient_matches(pv, finite_difference(mdp, X, theta, start=0))


def test_the_gradient_of_a_cost_model_is_of_J_and_the_sign_says_which_way():
    base = random_episodic(5, discount=0.95)
    t = base.to_transitions()
    mdp = TabularMDP.from_transitions(base.n_states, base.n_actions, t["src"], t["action"], t["dst"], t["prob"],
                                      np.abs(t["reward"]), discount=0.95, terminal=[base.n_states - 1],
                                      objective="min")
    X = np.random.default_rng(2).normal(size=(mdp.n_rows, 3))
    theta = np.array([0.3, -0.2, 0.5])
    pv = pg.evaluate_policy(mdp, X, theta, start=1)
    assert pv.sign == -1.0 and pv.J > 0
    assert_gradient_matches(pv, finite_difference(mdp, X, theta, start=1))
    np.testing.assert_allclose(pv.improvement, -pv.gradient)


def test_corridor_j_matches_its_closed_form_and_the_gradient_its_derivative():
    mdp = corridor()
    X = book_features(mdp)
    for p in np.linspace(0.05, 0.95, 19):
        theta = np.array([math.log(p / (1 - p)), 0.0])  # p(right) = sigmoid(theta_0 - theta_1)
        pv = pg.evaluate_policy(mdp, X, theta, start=0)
        assert pv.J == pytest.approx(corridor_j(p), rel=1e-10)
        np.testing.assert_allclose(pv.pi[np.asarray(mdp.row_action) == 1], p, rtol=1e-12)
        # dJ/dtheta_0 = J'(p) p (1 - p), by the closed form's derivative
        dj = (2.0 * p * (1 - p) - (2 * p - 4) * (1 - 2 * p)) / (p * (1 - p)) ** 2
        assert pv.gradient[0] == pytest.approx(dj * p * (1 - p), rel=1e-8)
        assert pv.gradient[1] == pytest.approx(-pv.gradient[0], rel=1e-10)
        assert_gradient_matches(pv, finite_difference(mdp, X, theta, start=0))
    # tabular features: one preference per state and action
    Xt = action_features(feature_matrix("tabular", mdp), mdp)
    theta = np.random.default_rng(3).normal(size=Xt.shape[1])
    assert_gradient_matches(pg.evaluate_policy(mdp, Xt, theta, start=0),
                            finite_difference(mdp, Xt, theta, start=0))


def test_visits_are_the_discounted_expected_visits_from_the_start():
    mdp = random_episodic(6, discount=0.8)
    X = np.random.default_rng(4).normal(size=(mdp.n_rows, 2))
    pv = pg.evaluate_policy(mdp, X, np.array([0.4, -1.0]), start=2)
    # sum_k gamma^k e_start P^k, summed term by term
    n = mdp.n_states
    P = np.zeros((n, n))
    for row in range(mdp.n_rows):
        s = int(mdp.row_state[row])
        for t in range(int(mdp.row_ptr[row]), int(mdp.row_ptr[row + 1])):
            P[s, int(mdp.dst[t])] += pv.pi[row] * mdp.prob[t]
    P[np.asarray(mdp.terminal)] = 0.0
    x = np.zeros(n)
    x[2] = 1.0
    eta = np.zeros(n)
    for k in range(400):
        eta += x
        x = mdp.discount * x @ P
    eta[np.asarray(mdp.terminal)] = 0.0
    np.testing.assert_allclose(pv.visits, eta, rtol=1e-9, atol=1e-12)


def test_an_improper_model_with_discount_one_is_refused():
    # state 1's only action loops forever: no policy ends the episodes that reach it
    mdp = TabularMDP.from_transitions(3, 2, [0, 0, 1], [0, 1, 0], [2, 1, 1], [1, 1, 1], [-1, -1, -1], discount=1.0,
                                      terminal=[2])
    with pytest.raises(ValueError, match="state"):
        pg.evaluate_policy(mdp, np.eye(3), np.zeros(3), start=0)
    with pytest.raises(ValueError, match="start: state 3 is terminal"):
        pg.evaluate_policy(corridor(), book_features(corridor()), np.zeros(2), start=3)


# ------------------------------------------------------------------------------------ a grid world
def grid_coordinates(mdp: TabularMDP):
    """(row, column) of each grid-world state from its label "(r,c) ..."; the terminal "exited" has none."""
    from mdpviz.solvers.features import Coordinates

    values = np.full((mdp.n_states, 2), np.nan)
    for s, label in enumerate(mdp.state_labels):
        if label.startswith("("):
            r, c = label[1:label.index(")")].split(",")
            values[s] = (float(r), float(c))
    return Coordinates(("row", "column"), values, np.nanmin(values, axis=0), np.nanmax(values, axis=0))


@pytest.fixture(scope="module")
def grid():
    from mdpviz.models.kit.game.game_model import build_game

    g = build_game("gridworld")
    return g.mdp, g.start_state()


@pytest.mark.parametrize("spec", ["tabular", "tiles:4:0.5"])
def test_exact_gradient_matches_finite_differences_on_the_grid_world(grid, spec):
    mdp, start = grid
    coords = grid_coordinates(mdp) if spec != "tabular" else None
    X = action_features(feature_matrix(spec, mdp, coords=coords), mdp)
    theta = np.random.default_rng(7).normal(size=X.shape[1])
    pv = pg.evaluate_policy(mdp, X, theta, start=start)
    assert pv.J == pytest.approx(dense_value(mdp, pv.pi)[start], rel=1e-10)
    assert_gradient_matches(pv, finite_difference(mdp, X, theta, start=start))


def test_best_value_on_the_grid_world_is_v_star_and_the_ascents_approach_it(grid):
    from mdpviz.solvers.policy_iteration import policy_iteration
    from mdpviz.solvers.sweep import run

    mdp, start = grid
    X = action_features(feature_matrix("tabular", mdp), mdp)
    v_star = float(run(policy_iteration(mdp)).values[start])
    best, how = pg.best_value(mdp, X, start=start, tabular=True)
    assert best == pytest.approx(v_star, abs=1e-9) and "V*(start)" in how
    # the exact-gradient ascents over the same tabular softmax reach it from below
    ascent, how = pg.best_value(mdp, X, start=start, tabular=False, restarts=2)
    assert "local optimum" in how and ascent <= v_star + 1e-9 and ascent == pytest.approx(v_star, abs=1e-3)


# ------------------------------------------------------------------------------------ the corridor's best values
def test_corridor_best_values_are_the_books():
    mdp = corridor()
    X = book_features(mdp)
    best, how = pg.best_value(mdp, X, start=0, tabular=False)
    assert best == pytest.approx(-(6 + 4 * math.sqrt(2)), abs=1e-6) and "8 exact-gradient ascents" in how
    # at p(right) = 2 - sqrt 2 the gradient vanishes and J is that best
    p = 2 - math.sqrt(2)
    pv = pg.evaluate_policy(mdp, X, np.array([math.log(p / (1 - p)), 0.0]), start=0)
    assert pv.J == pytest.approx(best, abs=1e-9) and np.abs(pv.gradient).max() < 1e-8
    Xt = action_features(feature_matrix("tabular", mdp), mdp)
    best, how = pg.best_value(mdp, Xt, start=0, tabular=True)
    assert best == pytest.approx(-3.0, abs=1e-9) and how == "the optimal value V*(start)"
    # every epsilon-greedy policy is worse than the best stochastic one (figure 13.1)
    for eps in (0.05, 0.1, 0.2):
        assert max(corridor_j(eps / 2), corridor_j(1 - eps / 2)) < best - 0.1
    with pytest.raises(ValueError, match="restarts"):
        pg.best_value(mdp, X, start=0, tabular=False, restarts=0)


# ------------------------------------------------------------------------------------ REINFORCE estimates
@pytest.mark.parametrize("model", ["corridor", "random"])
def test_reinforce_estimates_are_unbiased_and_the_baseline_lowers_their_variance(model):
    if model == "corridor":
        mdp = corridor()
        X = book_features(mdp)
        theta, start = np.array([0.4, -0.3]), 0
    else:
        mdp = random_episodic(11, n_states=6, n_actions=3, discount=0.9, end=0.3)
        X = np.random.default_rng(12).normal(size=(mdp.n_rows, 3))
        theta, start = np.array([0.5, -0.5, 0.2]), 0
    pv = pg.evaluate_policy(mdp, X, theta, start=start)
    plain = pg.reinforce_estimates(mdp, X, theta, start=start, samples=4000, seed=1, baseline=None)
    based = pg.reinforce_estimates(mdp, X, theta, start=start, samples=4000, seed=2, baseline=pv.v)
    assert plain.shape == (4000, X.shape[1])
    s_plain = pg.estimate_stats(plain, pv.gradient)
    s_based = pg.estimate_stats(based, pv.gradient)
    for stats in (s_plain, s_based):
        assert np.all(np.abs(stats.mean - pv.gradient) <= 4 * stats.standard_error)
        assert stats.cosine > 0.9
    assert s_based.variance < s_plain.variance
    # the same seed gives the same estimates
    np.testing.assert_array_equal(plain, pg.reinforce_estimates(mdp, X, theta, start=start, samples=4000, seed=1,
                                                                baseline=None))


def test_one_reinforce_estimate_is_the_books_sum_for_its_episode():
    """With tabular preferences of 40 for right in states 0 and 2 and left in state 1, every episode is right,
    left, right (the others' probability is e^-40); its estimate is sum_t (G_t - b(S_t)) grad ln pi(A_t|S_t)
    with G_t = -(3 - t), written out here."""
    mdp = corridor()
    X = action_features(feature_matrix("tabular", mdp), mdp)
    theta = np.zeros(X.shape[1])
    for s, a in ((0, 1), (1, 0), (2, 1)):
        theta[a * 3 + s] = 40.0  # action_features: action a's block of the 3 one-hot state columns
    pi = pg.softmax_rows(mdp, X, theta)
    g = pg.grad_log_pi(mdp, X, pi)
    rows = [mdp.row_of(0, 1), mdp.row_of(1, 0), mdp.row_of(2, 1)]
    b = np.array([0.5, -1.0, 2.0, 0.0])
    want = sum((-(3 - t) - b[s]) * g[r] for t, (s, r) in enumerate(zip((0, 1, 2), rows)))
    got = pg.reinforce_estimates(mdp, X, theta, start=0, samples=3, seed=0, baseline=b)
    np.testing.assert_allclose(got, np.tile(want, (3, 1)), rtol=1e-12, atol=1e-30)


def test_estimate_input_is_checked():
    mdp = corridor()
    X = book_features(mdp)
    with pytest.raises(ValueError, match="samples"):
        pg.reinforce_estimates(mdp, X, np.zeros(2), start=0, samples=0, seed=0, baseline=None)
    with pytest.raises(ValueError, match="baseline"):
        pg.reinforce_estimates(mdp, X, np.zeros(2), start=0, samples=5, seed=0, baseline=np.zeros(3))
    with pytest.raises(ValueError, match="max_steps"):
        pg.reinforce_estimates(mdp, X, np.array([-8.0, 0.0]), start=0, samples=50, seed=0, baseline=None,
                               max_steps=20)
    with pytest.raises(ValueError, match="exact_gradient"):
        pg.estimate_stats(np.zeros((4, 2)), np.zeros(3))
