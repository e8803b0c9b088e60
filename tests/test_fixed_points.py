"""The exact answers of linear approximation (mdpviz/solvers/fixed_points.py, issue 36 item 3), each checked
against a separate dense computation written here: mu by a dense solve of (I - P^T) eta = h (and by a
simulated visit count), the best fit by numpy.linalg.lstsq on sqrt(mu)-weighted rows, the TD fixed point by a
dense solve of A w = b built from dense matrices; on a random walk with aggregation, the grid world with
tiles and random small MDPs with random features. Then the book's facts: tabular features give v exactly,
VE(w_TD) <= VE(best) / (1 - gamma) (eq. 9.14), Baird's expected semi-gradient TD diverges and expected TDC
converges (figures 11.2 and 11.5)."""
from __future__ import annotations

import re

import numpy as np
import pytest

from mdpviz.core.mdp import TabularMDP
from mdpviz.solvers.features import Coordinates, feature_matrix
from mdpviz.solvers.fixed_points import (
    approximation_answer, best_fit, expected_updates, on_policy_distribution, policy_chain, projected_bellman_error,
    td_fixed_point,
    value_error,
)


# ------------------------------------------------------------------------------ the separate computations
def dense_chain(mdp: TabularMDP, pi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """P_pi and r_pi as dense arrays, summed transition by transition (no scipy, no policy_chain)."""
    n = mdp.n_states
    P = np.zeros((n, n))
    r = np.zeros(n)
    for row in range(mdp.n_rows):
        s = int(mdp.row_state[row])
        if mdp.terminal[s]:
            continue
        for t in range(int(mdp.row_ptr[row]), int(mdp.row_ptr[row + 1])):
            P[s, mdp.dst[t]] += pi[row] * mdp.prob[t]
            r[s] += pi[row] * mdp.prob[t] * mdp.reward[t]
    return P, r


def dense_v(mdp, pi):
    P, r = dense_chain(mdp, pi)
    live = ~mdp.terminal
    v = np.zeros(mdp.n_states)
    v[live] = np.linalg.solve(np.eye(live.sum()) - mdp.discount * P[np.ix_(live, live)], r[live])
    return v


def dense_mu_episodic(mdp, pi, start):
    P, _ = dense_chain(mdp, pi)
    h = np.zeros(mdp.n_states)
    h[start] = 1.0
    eta = np.linalg.solve(np.eye(mdp.n_states) - P.T, h)  # terminal rows of P are 0: eta(terminal) = visits in
    eta[mdp.terminal] = 0.0
    return eta / eta.sum()


def dense_mu_stationary(mdp, pi):
    """The stationary distribution of an irreducible chain: the eigenvector of P^T for eigenvalue 1."""
    P, _ = dense_chain(mdp, pi)
    vals, vecs = np.linalg.eig(P.T)
    x = np.real(vecs[:, np.argmin(np.abs(vals - 1.0))])
    return x / x.sum()


def lstsq_best(X, v, mu):
    s = np.sqrt(mu)
    w = np.linalg.lstsq(X * s[:, None], v * s, rcond=None)[0]
    return w


def dense_td(mdp, X, pi, mu):
    P, r = dense_chain(mdp, pi)
    D = np.diag(mu)
    A = X.T @ D @ (np.eye(mdp.n_states) - mdp.discount * P) @ X
    b = X.T @ D @ r
    return np.linalg.solve(A, b)


# ------------------------------------------------------------------------------ models
def random_walk(n: int = 100, jumps: int = 10, *, discount: float = 1.0) -> TabularMDP:
    """Example 9.1 in small: states 1..n, a jump of 1..jumps left or right, -1 / +1 at the ends (0 and n+1)."""
    src, act, dst, prob, rew = [], [], [], [], []
    for i in range(1, n + 1):
        for step in range(-jumps, jumps + 1):
            if step == 0:
                continue
            t = min(max(i + step, 0), n + 1)
            src.append(i), act.append(0), dst.append(t), prob.append(1 / (2 * jumps))
            rew.append(-1.0 if t == 0 else 1.0 if t == n + 1 else 0.0)
    return TabularMDP.from_transitions(n + 2, 1, src, act, dst, prob, rew, discount=discount, terminal=[0, n + 1])


def random_mdp(rng: np.random.Generator, n: int, *, actions: int = 2, discount: float = 0.9,
               terminal: bool = False) -> TabularMDP:
    """Every (state, action) moves to 3 random states (dense enough to be irreducible), random rewards."""
    src, act, dst, prob, rew = [], [], [], [], []
    live = n - 1 if terminal else n
    for s in range(live):
        for a in range(actions):
            nxt = rng.choice(n, size=3, replace=False)
            p = rng.dirichlet(np.ones(3))
            for t, q in zip(nxt, p):
                src.append(s), act.append(a), dst.append(int(t)), prob.append(float(q))
                rew.append(float(rng.normal()))
    return TabularMDP.from_transitions(n, actions, src, act, dst, prob, rew, discount=discount,
                                       terminal=[n - 1] if terminal else [])


def random_policy(rng, mdp):
    pi = rng.random(mdp.n_rows) + 0.1
    sums = np.bincount(mdp.row_state, weights=pi, minlength=mdp.n_states)
    return pi / sums[mdp.row_state]


def gridworld():
    from mdpviz.models.kit.game.game_model import build_game

    g = build_game("gridworld")
    mdp = g.mdp
    values = np.full((mdp.n_states, 2), np.nan)
    for s, label in enumerate(mdp.state_labels):
        m = re.match(r"\((\d+),(\d+)\)", label)
        if m:
            values[s] = int(m.group(1)), int(m.group(2))
    rows, cols = np.nanmax(values, axis=0)
    coords = Coordinates(("row", "column"), values, np.array([1.0, 1.0]), np.array([rows, cols]))
    return g, mdp, coords


def uniform_policy(mdp):
    return 1.0 / mdp.actions_per_state[mdp.row_state]


# ------------------------------------------------------------------------------ against dense computations
def test_policy_chain_is_the_dense_chain():
    rng = np.random.default_rng(3)
    mdp = random_mdp(rng, 7, terminal=True)
    pi = random_policy(rng, mdp)
    P, r = policy_chain(mdp, pi)
    Pd, rd = dense_chain(mdp, pi)
    np.testing.assert_allclose(P.toarray(), Pd, atol=1e-14)
    np.testing.assert_allclose(r, rd, atol=1e-14)


def test_random_walk_with_aggregation_against_dense_solves():
    mdp = random_walk(100, 10)
    pi = np.ones(mdp.n_rows)
    X = np.asarray(feature_matrix("aggregate:10", mdp))
    ans = approximation_answer(mdp, X, pi, start=50)
    mu = dense_mu_episodic(mdp, pi, 50)
    v = dense_v(mdp, pi)
    np.testing.assert_allclose(ans.mu, mu, atol=1e-12)
    np.testing.assert_allclose(ans.v, v, atol=1e-10)
    np.testing.assert_allclose(ans.best.weights, lstsq_best(X, v, mu), atol=1e-9)
    np.testing.assert_allclose(ans.td.weights, dense_td(mdp, X, pi, mu), atol=1e-9)
    assert ans.best.ve == pytest.approx(float(mu @ (X @ lstsq_best(X, v, mu) - v) ** 2), rel=1e-9)
    assert ans.td.ve == pytest.approx(float(mu @ (X @ dense_td(mdp, X, pi, mu) - v) ** 2), rel=1e-9)
    assert ans.bound is None  # discount 1: eq. 9.14 says nothing
    # figure 9.1: under aggregation each group's weight is the mu-weighted mean of v over the group (best fit)
    for g in range(10):
        grp = np.flatnonzero(X[:, g])
        assert ans.best.weights[g] == pytest.approx(mu[grp] @ v[grp] / mu[grp].sum(), abs=1e-10)
    assert 0 < ans.best.ve < ans.td.ve  # the best fit is best, TD's point is another one
    assert ans.mu[0] == ans.mu[-1] == 0.0 and ans.mu.sum() == pytest.approx(1.0)


def test_mu_of_a_small_walk_matches_a_long_simulation():
    mdp = random_walk(5, 1)  # Example 6.2's walk with -1 on the left
    pi = np.ones(mdp.n_rows)
    mu = on_policy_distribution(mdp, pi, start=3)
    rng = np.random.default_rng(12345)
    visits = np.zeros(mdp.n_states)
    for _ in range(4000):
        s = 3
        while not mdp.terminal[s]:
            visits[s] += 1
            s = s + (1 if rng.random() < 0.5 else -1)
    np.testing.assert_allclose(mu, visits / visits.sum(), atol=0.01)
    np.testing.assert_allclose(mu, dense_mu_episodic(mdp, pi, 3), atol=1e-12)


def test_grid_world_with_tiles_against_dense_solves():
    g, mdp, coords = gridworld()
    pi = uniform_policy(mdp)
    start = int(g.built.start_state)
    X = np.asarray(feature_matrix("tiles:4:0.5", mdp, coords=coords))
    ans = approximation_answer(mdp, X, pi, start=start)
    mu = dense_mu_episodic(mdp, pi, start)
    v = dense_v(mdp, pi)
    np.testing.assert_allclose(ans.mu, mu, atol=1e-12)
    np.testing.assert_allclose(ans.v, v, atol=1e-10)
    # tiles overlap and some columns repeat others on the 11 cells: compare values (unique), and the
    # min-norm weights (lstsq's) for the best fit
    np.testing.assert_allclose(ans.best.values, X @ lstsq_best(X, v, mu), atol=1e-9)
    np.testing.assert_allclose(ans.best.weights, lstsq_best(X, v, mu), atol=1e-8)
    P, r = dense_chain(mdp, pi)
    A = X.T @ np.diag(mu) @ (np.eye(mdp.n_states) - mdp.discount * P) @ X
    b = X.T @ np.diag(mu) @ r
    assert ans.td is not None
    np.testing.assert_allclose(A @ ans.td.weights, b, atol=1e-10)  # it solves A w = b
    w_ls = np.linalg.lstsq(A, b, rcond=None)[0]
    np.testing.assert_allclose(ans.td.values, X @ w_ls, atol=1e-8)
    assert ans.best.ve <= ans.td.ve + 1e-12 <= ans.bound + 1e-12


@pytest.mark.parametrize("seed", range(6))
def test_random_mdps_with_random_features(seed):
    rng = np.random.default_rng(seed)
    episodic = seed % 2 == 0
    mdp = random_mdp(rng, 8, discount=0.9, terminal=episodic)
    pi = random_policy(rng, mdp)
    X = rng.normal(size=(mdp.n_states, 3))
    X[mdp.terminal] = 0.0
    ans = approximation_answer(mdp, X, pi, start=0)
    mu = dense_mu_episodic(mdp, pi, 0) if episodic else dense_mu_stationary(mdp, pi)
    v = dense_v(mdp, pi)
    np.testing.assert_allclose(ans.mu, mu, atol=1e-10)
    np.testing.assert_allclose(ans.best.weights, lstsq_best(X, v, mu), atol=1e-8)
    np.testing.assert_allclose(ans.td.weights, dense_td(mdp, X, pi, mu), atol=1e-8)
    assert ans.best.ve == pytest.approx(value_error(X @ lstsq_best(X, v, mu), v, mu), rel=1e-8)
    # eq. 9.14 below discount 1, and the best fit is never worse than TD's point
    assert ans.best.ve <= ans.td.ve + 1e-12
    assert ans.td.ve <= ans.bound * (1 + 1e-9)


@pytest.mark.parametrize("seed", range(5))
def test_tabular_features_give_v_at_both_fixed_points(seed):
    rng = np.random.default_rng(100 + seed)
    mdp = random_mdp(rng, 6, discount=0.8, terminal=seed % 2 == 1)
    pi = random_policy(rng, mdp)
    X = np.asarray(feature_matrix("tabular", mdp))
    ans = approximation_answer(mdp, X, pi, start=0)
    v = dense_v(mdp, pi)
    seen = ans.mu > 0
    np.testing.assert_allclose(ans.best.values[seen], v[seen], atol=1e-9)
    np.testing.assert_allclose(ans.td.values[seen], v[seen], atol=1e-9)
    assert ans.best.ve == pytest.approx(0.0, abs=1e-15) and ans.td.ve == pytest.approx(0.0, abs=1e-15)


def test_bound_holds_on_many_random_cases():
    rng = np.random.default_rng(7)
    for case in range(30):
        gamma = float(rng.choice([0.5, 0.9, 0.99]))
        mdp = random_mdp(rng, 6, discount=gamma, terminal=case % 3 == 0)
        pi = random_policy(rng, mdp)
        X = rng.normal(size=(mdp.n_states, 2))
        X[mdp.terminal] = 0.0
        ans = approximation_answer(mdp, X, pi, start=0)
        assert ans.td is not None
        assert ans.best.ve <= ans.td.ve + 1e-12
        assert ans.td.ve <= ans.best.ve / (1 - gamma) * (1 + 1e-9)
        assert ans.bound == pytest.approx(ans.best.ve / (1 - gamma))


def test_unreached_tabular_states_get_weight_zero_not_an_error():
    mdp = random_walk(5, 1)
    # from state 5 (next to the right end) with the walk, every state is reachable; build a chain where
    # state 1 is never reached: 2 -> 3 -> terminal
    m = TabularMDP.from_transitions(4, 1, [0, 1, 2], [0, 0, 0], [1, 2, 3], [1, 1, 1], [0, 0, 1.0], discount=1.0,
                                    terminal=[3])
    X = np.asarray(feature_matrix("tabular", m))
    ans = approximation_answer(m, X, np.ones(m.n_rows), start=1)
    assert ans.mu[0] == 0 and ans.td is not None
    np.testing.assert_allclose(ans.td.values[:3], [0, 1, 1])
    assert ans.td.weights[0] == 0.0 and mdp.n_states == 7


def test_a_singular_td_system_is_refused_in_one_line():
    # two live states, one feature that is +1 on the first and -1 on the second, a chain 0 <-> 1 that A
    # annihilates: A = x^T D (I - P) x with P swapping the two states gives 0 at gamma = 1 ... use a
    # continuing two-state swap with discount 1 and x = (1, 1): A = sum mu x (x - x') = 0
    m = TabularMDP.from_transitions(2, 1, [0, 1], [0, 0], [1, 0], [1, 1], [1.0, 0.0], discount=1.0)
    X = np.ones((2, 1))
    mu = on_policy_distribution(m, np.ones(2), start=0)
    np.testing.assert_allclose(mu, [0.5, 0.5])
    with pytest.raises(ValueError, match=r"^the TD fixed point does not exist: A is singular") as e:
        td_fixed_point(m, X, np.ones(2), mu)
    assert "\n" not in str(e.value)


def test_a_policy_that_never_ends_its_episodes_is_named():
    # action 0 of state 0 ends the episode or goes to state 1, which loops for ever
    m = TabularMDP.from_transitions(3, 2, [0, 0, 0, 1], [0, 0, 1, 0], [1, 2, 2, 1], [0.5, 0.5, 1, 1], [0, 0, 1, 0],
                                    discount=0.9, terminal=[2])
    with pytest.raises(ValueError, match="never ends the episodes that reach state 1"):
        on_policy_distribution(m, np.array([1.0, 0.0, 1.0]), start=0)
    np.testing.assert_allclose(on_policy_distribution(m, np.array([0.0, 1.0, 1.0]), start=0), [1, 0, 0])
    with pytest.raises(ValueError, match="sum to"):
        on_policy_distribution(m, np.array([0.5, 0.0, 1.0]), start=0)


def test_continuing_chain_with_two_closed_classes_mixes_by_reaching_probability():
    # state 0 goes to the loop {1} with 1/4 and to the two-cycle {2, 3} with 3/4
    m = TabularMDP.from_transitions(4, 1, [0, 0, 1, 2, 3], [0] * 5, [1, 2, 1, 3, 2], [0.25, 0.75, 1, 1, 1],
                                    [0.0] * 5, discount=0.9)
    mu = on_policy_distribution(m, np.ones(m.n_rows), start=0)
    np.testing.assert_allclose(mu, [0, 0.25, 0.375, 0.375], atol=1e-12)


# ------------------------------------------------------------------------------ Baird (figures 11.2, 11.5)
def baird():
    """Example 11.1 built here: dashed (0) -> each upper state 1/6, solid (1) -> the lower state 6."""
    src, act, dst, prob = [], [], [], []
    for s in range(7):
        for t in range(6):
            src.append(s), act.append(0), dst.append(t), prob.append(1 / 6)
        src.append(s), act.append(1), dst.append(6), prob.append(1.0)
    mdp = TabularMDP.from_transitions(7, 2, src, act, dst, prob, [0.0] * len(src), discount=0.99)
    X = np.zeros((7, 8))
    for i in range(6):
        X[i, i], X[i, 7] = 2.0, 1.0
    X[6, 6], X[6, 7] = 1.0, 2.0
    target = np.where(mdp.row_action == 1, 1.0, 0.0)
    behaviour = np.where(mdp.row_action == 1, 1 / 7, 6 / 7)
    return mdp, X, target, behaviour


W0 = np.array([1, 1, 1, 1, 1, 1, 10, 1], dtype=float)


def test_baird_behaviour_distribution_is_uniform_and_v_is_zero():
    mdp, X, target, behaviour = baird()
    ans = approximation_answer(mdp, X, target, start=0, behaviour_rows=behaviour)
    np.testing.assert_allclose(ans.mu, np.full(7, 1 / 7), atol=1e-12)
    np.testing.assert_allclose(ans.v, 0.0)
    assert ans.best.ve == pytest.approx(0.0, abs=1e-20) and ans.bound is None


def test_baird_expected_semi_gradient_td_grows_without_bound():
    mdp, X, target, _ = baird()
    mu = np.full(7, 1 / 7)
    steps = list(expected_updates(mdp, X, target, mu, method="off-td", w0=W0, alpha=0.01, steps=1000))
    assert [s.step for s in steps[:3]] == [1, 2, 3] and len(steps) == 1000 and steps[0].aux is None
    norms = np.array([np.linalg.norm(s.weights) for s in steps])
    assert norms[-1] > 20 * np.linalg.norm(W0)
    assert np.all(np.diff(norms[-100:]) > 0)  # still increasing
    assert steps[-1].ve > steps[0].ve * 100
    # the first step against the book's DP update written out here: w += alpha/|S| sum_s (gamma v(s') - v(s)) x(s)
    v0 = X @ W0
    manual = W0 + 0.01 / 7 * sum((0.99 * v0[6] - v0[s]) * X[s] for s in range(7))
    np.testing.assert_allclose(steps[0].weights, manual, atol=1e-12)


def test_baird_expected_tdc_converges():
    """Figure 11.5 (right) and section 11.7: the PBE falls to 0; the VE falls but "remains almost 2" (its root)
    after 1000 steps, still decreasing, because TDC's progress is slow once the PBE is near 0."""
    mdp, X, target, _ = baird()
    mu = np.full(7, 1 / 7)
    longer = list(expected_updates(mdp, X, target, mu, method="tdc", w0=W0, alpha=0.005, beta=0.05, steps=3000))
    steps = longer[:1000]
    ve = np.array([s.ve for s in steps])
    pbe = np.array([s.pbe for s in steps])
    assert steps[0].aux is not None and steps[0].aux.shape == (8,)
    ve0 = value_error(X @ W0, np.zeros(7), mu)
    pbe0 = projected_bellman_error(mdp, X, target, mu, W0)
    assert pbe[-1] < 1e-4 * pbe0 and ve[-1] < 0.2 * ve0
    assert 1.5 < np.sqrt(ve[-1]) < 2.5  # the book: "the VE, which remains almost 2" (its root, as plotted)
    assert longer[-1].ve < longer[1999].ve < ve[-1]  # still going down, towards v = 0, slowly
    change = np.array([np.linalg.norm(b.weights - a.weights) for a, b in zip(steps, steps[1:])])
    assert change[-100:].mean() < 1e-3 * change[:100].mean()
    # the PBE of a step is the one written out here: delta = gamma v(lower) - v(s); Pi by the pseudo-inverse
    w = steps[-1].weights
    delta = 0.99 * (X @ w)[6] - X @ w
    g = X.T @ (delta / 7)
    assert pbe[-1] == pytest.approx(g @ np.linalg.pinv(X.T @ X / 7) @ g, rel=1e-6)
    # semi-td: the same rule as off-td (on-policy mu)
    a = list(expected_updates(mdp, X, target, mu, method="semi-td", w0=W0, alpha=0.01, steps=3))
    b = list(expected_updates(mdp, X, target, mu, method="off-td", w0=W0, alpha=0.01, steps=3))
    np.testing.assert_array_equal(a[-1].weights, b[-1].weights)


def test_expected_updates_refuse_bad_options_in_one_line():
    mdp, X, target, _ = baird()
    mu = np.full(7, 1 / 7)
    for kwargs, word in (({"method": "q"}, "method"), ({"method": "tdc", "beta": 0.0}, "beta"),
                         ({"method": "off-td", "alpha": -1.0}, "alpha"), ({"method": "off-td", "w0": [1, 2]}, "initial")):
        opts = {"w0": W0, "alpha": 0.01, "steps": 2, **kwargs}
        with pytest.raises(ValueError, match=word):
            list(expected_updates(mdp, X, target, mu, **opts))


def test_best_fit_is_min_norm_when_features_repeat():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(6, 2))
    X = np.column_stack([X, X[:, 0]])  # a repeated column
    v = rng.normal(size=6)
    mu = rng.dirichlet(np.ones(6))
    fp = best_fit(X, v, mu)
    np.testing.assert_allclose(fp.weights, lstsq_best(X, v, mu), atol=1e-9)
    assert not fp.weights.flags.writeable and not fp.values.flags.writeable
