"""The games of issue 36 (function approximation): the random walk (Example 9.1), Baird's counterexample
(Example 11.1) and mountain car on a grid (Example 10.1), checked against separate computations here (a dense
linear solve, the book's numbers), and the coordinates the grid world and snakes give their states."""
from __future__ import annotations

import numpy as np
import pytest

from mdpviz.models.kit.game import registry


def dense_chain(mdp, row_probs=None):
    """(P, r): the dense transition matrix and expected one-step reward of the policy with row probabilities
    ``row_probs`` (None: every state's only action), built here from the CSR arrays."""
    n = mdp.n_states
    w = np.ones(mdp.n_rows) if row_probs is None else np.asarray(row_probs)
    P, r = np.zeros((n, n)), np.zeros(n)
    for row in range(mdp.n_rows):
        s = int(mdp.row_state[row])
        for t in range(int(mdp.row_ptr[row]), int(mdp.row_ptr[row + 1])):
            P[s, int(mdp.dst[t])] += w[row] * float(mdp.prob[t])
            r[s] += w[row] * float(mdp.prob[t]) * float(mdp.reward[t])
    return P, r


def dense_values(mdp, row_probs=None) -> np.ndarray:
    """v = (I - gamma P)^-1 r over the non-terminal states, by numpy's dense solve."""
    P, r = dense_chain(mdp, row_probs)
    live = np.flatnonzero(~np.asarray(mdp.terminal))
    v = np.zeros(mdp.n_states)
    v[live] = np.linalg.solve(np.eye(live.size) - mdp.discount * P[np.ix_(live, live)], r[live])
    return v


# ------------------------------------------------------------------------------------------- random walk
def test_the_19_state_walk_has_the_straight_line_values():
    from mdpviz.models.randomwalk.rules import RandomWalkSettings, compile_randomwalk, middle, true_values
    from mdpviz.solvers import solve

    settings = RandomWalkSettings(n_states=19, max_jump=1)
    mdp = compile_randomwalk(settings)
    assert mdp.n_states == 21 and list(np.flatnonzero(mdp.terminal)) == [0, 20] and mdp.n_actions == 1
    want = np.array([0.0] + [i / 10 - 1 for i in range(1, 20)] + [0.0])  # v(i) = i/10 - 1
    np.testing.assert_allclose(dense_values(mdp), want, atol=1e-12)
    np.testing.assert_allclose(true_values(settings), want, atol=1e-12)
    np.testing.assert_allclose(solve(mdp, "vi", tol=1e-13, max_sweeps=1_000_000).values, want, atol=1e-9)
    assert middle(settings) == 10


def test_the_5_state_walk_of_example_6_2():
    from mdpviz.models.randomwalk.rules import RandomWalkSettings, compile_randomwalk, middle

    settings = RandomWalkSettings(n_states=5, max_jump=1, left_reward=0.0)
    v = dense_values(compile_randomwalk(settings))
    np.testing.assert_allclose(v[1:6], np.arange(1, 6) / 6, atol=1e-12)  # A..E: 1/6 .. 5/6
    assert middle(settings) == 3  # C


def test_the_1000_state_walk_is_close_to_a_line_through_0_and_jumps_land_on_the_ends():
    from mdpviz.models.randomwalk.rules import RandomWalkSettings, compile_randomwalk, true_values

    settings = RandomWalkSettings()
    mdp = compile_randomwalk(settings)
    v = true_values(settings)
    np.testing.assert_allclose(v, dense_values(mdp), atol=1e-10)
    assert v[1] == pytest.approx(-v[1000]) and v[500] == pytest.approx(-v[501])  # antisymmetric about 500.5
    assert -1 < v[1] < -0.9 and abs(v[500]) < 0.01
    line = (np.arange(1, 1001) - 500.5) / 500
    assert np.max(np.abs(v[1:1001] - line)) < 0.2  # figure 9.1: close to a straight line from -1 to +1
    assert np.all(np.diff(v[1:1001]) > 0)
    # state 1: 100 of its 200 jumps go left, all onto the left end (probability 1/2, reward -1)
    row = int(mdp.state_ptr[1])
    lo, hi = int(mdp.row_ptr[row]), int(mdp.row_ptr[row + 1])
    to_end = [t for t in range(lo, hi) if mdp.dst[t] == 0]
    assert len(to_end) == 1 and mdp.prob[to_end[0]] == pytest.approx(0.5) and mdp.reward[to_end[0]] == -1
    assert hi - lo == 101  # the left end and states 2..101


def test_the_walk_gives_its_position_as_coordinates():
    spec = registry.get("random-walk")
    settings = spec.default_settings()
    mdp = spec.compile(settings)
    c = spec.model.coordinates(settings, mdp)
    assert c.names == ("position",) and c.values.shape == (1002, 1)
    assert np.isnan(c.values[[0, 1001]]).all() and list(c.values[1:1001, 0]) == list(range(1, 1001))
    assert (c.low[0], c.high[0]) == (1.0, 1000.0)
    assert spec.model.default_features and spec.episodes.start_state is not None


# ------------------------------------------------------------------------------------------------ Baird
def test_baird_is_example_11_1():
    spec = registry.get("baird-counterexample")
    settings = spec.default_settings()
    mdp = spec.compile(settings)
    assert (mdp.n_states, mdp.n_actions, mdp.discount) == (7, 2, 0.99)
    assert not mdp.terminal.any() and np.all(np.asarray(mdp.reward) == 0)
    P_dashed, _ = dense_chain(mdp, np.asarray(mdp.row_action) == 0)
    P_solid, _ = dense_chain(mdp, np.asarray(mdp.row_action) == 1)
    np.testing.assert_allclose(P_dashed, np.tile([1 / 6] * 6 + [0.0], (7, 1)))
    np.testing.assert_allclose(P_solid, np.tile([0.0] * 6 + [1.0], (7, 1)))
    assert mdp.action_labels == ("dashed", "solid")


def test_baird_gives_the_books_features_weights_and_policies():
    spec = registry.get("baird")
    settings = spec.default_settings()
    mdp = spec.compile(settings)
    X = np.asarray(spec.model.features(settings, mdp))
    w = np.asarray(spec.model.initial_weights(settings, mdp))
    assert X.shape == (7, 8) and list(w) == [1, 1, 1, 1, 1, 1, 10, 1]
    for i in range(6):  # v(i) = 2 w_i + w_8
        assert X[i] @ w == 2 * w[i] + w[7]
        assert list(X[i]) == [2.0 if k == i else 1.0 if k == 7 else 0.0 for k in range(8)]
    assert list(X[6]) == [0, 0, 0, 0, 0, 0, 1, 2]  # v(7) = w_7 + 2 w_8
    assert np.linalg.matrix_rank(X) == 7
    pol = spec.model.policies(settings, mdp)
    acts = np.asarray(mdp.row_action)
    np.testing.assert_allclose(pol["behaviour"], np.where(acts == 0, 6 / 7, 1 / 7))
    np.testing.assert_allclose(pol["target"], np.where(acts == 0, 0.0, 1.0))
    # the behaviour's next state is uniform over the seven (so its on-policy distribution is uniform)
    P_b, _ = dense_chain(mdp, pol["behaviour"])
    np.testing.assert_allclose(P_b, np.full((7, 7), 1 / 7))
    assert spec.model.default_features == "game"


def test_bairds_expected_off_policy_td_matrix_has_a_diverging_direction():
    """The lesson's claim: under the behaviour's uniform distribution A = X^T D (I - gamma P_pi) X has
    eigenvalues with negative real part (about -0.24 and -0.02), so semi-gradient DP grows without bound."""
    spec = registry.get("baird")
    settings = spec.default_settings()
    mdp = spec.compile(settings)
    X = np.asarray(spec.model.features(settings, mdp))
    P_pi, _ = dense_chain(mdp, spec.model.policies(settings, mdp)["target"])
    A = X.T @ np.diag(np.full(7, 1 / 7)) @ (np.eye(7) - 0.99 * P_pi) @ X
    neg = np.sort(np.linalg.eigvals(A).real)[:2]
    np.testing.assert_allclose(neg, [-0.2393, -0.0222], atol=1e-3)
    assert LESSON_HAS("baird", "-0.24") and LESSON_HAS("baird", "-0.02")


def LESSON_HAS(key: str, text: str) -> bool:
    spec = registry.get(key)
    settings = spec.default_settings()
    return text in spec.display.lesson(settings, spec.compile(settings)).text()


# ----------------------------------------------------------------------------------------- mountain car
@pytest.fixture(scope="module")
def car():
    from mdpviz.solvers import solve

    spec = registry.get("mountain-car")
    settings = spec.default_settings()
    mdp = spec.compile(settings)
    return spec, settings, mdp, solve(mdp, "vi", tol=1e-9, max_sweeps=100_000)


def test_mountain_car_is_a_sound_model(car):
    from mdpviz.models.mountaincar import rules as mc

    spec, settings, mdp, _ = car
    row_sum = np.add.reduceat(np.asarray(mdp.prob), np.asarray(mdp.row_ptr[:-1]))
    np.testing.assert_allclose(row_sum, 1.0, atol=1e-12)
    goal = mc.goal_state(settings)
    assert list(np.flatnonzero(mdp.terminal)) == [goal] and mdp.actions_per_state[goal] == 0
    assert np.all(np.asarray(mdp.reward) == -1.0) and mdp.n_actions == 3 and mdp.discount == 1.0
    # no (state, action) stays put surely: every throttle moves the car somewhere with some probability
    rows = np.repeat(np.arange(mdp.n_rows), np.diff(np.asarray(mdp.row_ptr)))
    stay = np.bincount(rows, weights=np.where(np.asarray(mdp.dst) == np.asarray(mdp.row_state)[rows],
                                              np.asarray(mdp.prob), 0.0), minlength=mdp.n_rows)
    assert stay.max() < 1.0


def test_mountain_car_moves_as_the_books_equation_in_expectation(car):
    """From a grid point the expected next (p, v) of the split is the book's v' = bound[v + 0.001 A - 0.0025
    cos(3p)], p' = bound[p + v'] (section 10.1), computed here from the equation itself."""
    from mdpviz.models.mountaincar import rules as mc

    spec, settings, mdp, _ = car
    ps, vs = mc.grid(settings)
    for i, j in ((51, 40), (20, 60), (0, 40), (70, 10)):
        s = mc.state_of(settings, i, j)
        p, v = ps[i], vs[j]
        for a, throttle in enumerate(mc.THROTTLE):
            v2 = min(max(v + 0.001 * throttle - 0.0025 * np.cos(3 * p), -0.07), 0.07)
            p2 = min(max(p + v2, -1.2), 0.5)
            if p2 == -1.2:
                v2 = 0.0
            row = int(mdp.state_ptr[s]) + a
            lo, hi = int(mdp.row_ptr[row]), int(mdp.row_ptr[row + 1])
            dst, prob = np.asarray(mdp.dst[lo:hi]), np.asarray(mdp.prob[lo:hi])
            assert np.all(dst != mc.goal_state(settings))
            ep = sum(pr * ps[d // settings.velocities] for d, pr in zip(dst, prob))
            ev = sum(pr * vs[d % settings.velocities] for d, pr in zip(dst, prob))
            assert ep == pytest.approx(p2, abs=1e-12) and ev == pytest.approx(v2, abs=1e-12)


def test_every_state_reaches_the_goal_and_the_start_takes_the_books_optimal_steps(car):
    from mdpviz.models.mountaincar import rules as mc

    spec, settings, mdp, sol = car
    assert sol.converged
    cost = -np.asarray(sol.values)
    assert np.all(np.isfinite(cost)) and cost.max() < 200  # no stuck state: every state reaches the goal
    # the optimal policy's own expected steps, by a dense-free linear solve, match the values (proper policy)
    rows = np.asarray(mdp.state_ptr[:-1]) + np.where(mdp.terminal, 0, np.asarray(sol.policy))
    probs = np.zeros(mdp.n_rows)
    probs[rows[~mdp.terminal]] = 1.0
    import scipy.sparse as sp
    import scipy.sparse.linalg as spla

    trow = np.repeat(np.arange(mdp.n_rows), np.diff(np.asarray(mdp.row_ptr)))
    w = probs[trow] * np.asarray(mdp.prob)
    n = mdp.n_states
    P = sp.csr_matrix((w, (np.asarray(mdp.row_state)[trow], np.asarray(mdp.dst))), shape=(n, n))
    live = np.flatnonzero(~mdp.terminal)
    steps = spla.spsolve((sp.identity(live.size) - P[live][:, live]).tocsc(), np.ones(live.size))
    np.testing.assert_allclose(steps, cost[live], rtol=1e-6)
    start = mc.start_state(settings)
    assert mdp.state_labels[start] == "p -0.500, v +0.00000"
    assert 100 <= cost[start] <= 120  # the book's optimal episodes from (-0.5, 0)


def test_mountain_car_gives_position_and_velocity_as_coordinates(car):
    from mdpviz.models.mountaincar import rules as mc

    spec, settings, mdp, _ = car
    c = spec.model.coordinates(settings, mdp)
    assert c.names == ("position", "velocity") and c.values.shape == (mdp.n_states, 2)
    start = mc.start_state(settings)
    np.testing.assert_allclose(c.values[start], [-0.5, 0.0], atol=1e-12)
    assert np.isnan(c.values[mc.goal_state(settings)]).all()
    live = c.values[:-1]
    assert live[:, 0].min() == -1.2 and live[:, 0].max() < 0.5 and live[:, 1].min() == -0.07 and live[:, 1].max() == 0.07
    np.testing.assert_allclose(c.low, [-1.2, -0.07]) and np.testing.assert_allclose(c.high, [0.5, 0.07])
    assert spec.model.default_features.startswith("tiles:8:")


def test_a_bad_grid_is_refused_naming_its_field():
    from mdpviz.models.mountaincar.rules import MountainCarSettings

    with pytest.raises(ValueError, match="positions"):
        MountainCarSettings(positions=2).validate()
    with pytest.raises(ValueError, match="velocities"):
        MountainCarSettings(positions=1000, velocities=1000).validate()


# --------------------------------------------------------------------------------- grid world and snakes
def test_the_grid_world_gives_row_and_column():
    spec = registry.get("gridworld")
    settings = spec.default_settings()
    game = spec.compile(settings)
    mdp = spec.model.mdp_of(settings, game) if spec.model.mdp_of is not None else game
    mdp = getattr(mdp, "mdp", mdp)
    c = spec.model.coordinates(settings, mdp)
    assert c.names == ("row", "column") and c.values.shape == (mdp.n_states, 2)
    for s, label in enumerate(mdp.state_labels):
        if label == "exited":
            assert np.isnan(c.values[s]).all()
        else:  # the label "(r,c) ..." counts from 1, as the coordinates do
            r, col = label.split(")")[0].strip("(").split(",")
            assert tuple(c.values[s]) == (float(r), float(col))


def test_snakes_gives_the_square():
    spec = registry.get("snakes")
    settings = spec.default_settings()
    mdp = spec.compile(settings)
    c = spec.model.coordinates(settings, mdp)
    assert c.names == ("square",)
    for s in range(mdp.n_states):
        if mdp.terminal[s]:
            assert np.isnan(c.values[s, 0])
        else:
            assert c.values[s, 0] == float(mdp.state_labels[s]) == s + 1


def test_no_other_game_names_features_of_its_own():
    for key in registry.keys():
        spec = registry.get(key)
        if key not in ("baird", "corridor"):  # (the corridor's, Example 13.1's, are checked in test_corridor.py)
            assert spec.model.features is None and spec.model.policies is None and spec.model.initial_weights is None
        if key != "corridor":
            assert spec.model.action_features is None
