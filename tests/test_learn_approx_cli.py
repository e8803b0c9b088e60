"""``mdpviz learn --method gradient-mc|semi-td|... --features SPEC --json`` (issue 36, item 6): the JSON keys of the
issue, each checked against a separate computation from the model (the values are X w, the value error is the
mu-weighted error, the fixed points are the dense least-squares and linear solves), Baird's divergence under the
expected off-policy TD update and TDC's convergence, and one-line errors."""
from __future__ import annotations


import numpy as np
import pytest

from mdpviz.models.kit.game.game_model import build_game
from tests.test_learn_cli import checked_learn_json as learn_json, run




def dense_chain(mdp, target_rows):
    """P_pi and r_pi as dense arrays, computed here from the transitions (not by the module tested)."""
    n = mdp.n_states
    P, r = np.zeros((n, n)), np.zeros(n)
    for s in range(n):
        if mdp.terminal[s]:
            continue
        for row in range(int(mdp.state_ptr[s]), int(mdp.state_ptr[s + 1])):
            for j in range(int(mdp.row_ptr[row]), int(mdp.row_ptr[row + 1])):
                p = target_rows[row] * mdp.prob[j]
                r[s] += p * mdp.reward[j]
                if not mdp.terminal[mdp.dst[j]]:
                    P[s, mdp.dst[j]] += p
    return P, r


def test_the_random_walk_with_aggregation_prints_its_fixed_points(capsys):
    d = learn_json(capsys, "--game", "randomwalk", "--set", "n_states=100", "--set", "max_jump=10",
                   "--method", "gradient-mc", "--features", "aggregate:10", "--alpha", "0.01",
                   "--episodes", "300", "--seed", "3")
    n = len(d["states"])
    assert d["features"] == "aggregate:10" and d["n_features"] == 10 and len(d["weights"]) == 10
    assert d["compile_seconds"] >= 0.0 and d["seconds"] >= 0.0  # (the loop prepared apart: seconds is learning alone)
    assert len(d["values"]) == len(d["exact"]) == len(d["mu"]) == n
    mu, v, vhat = np.asarray(d["mu"]), np.asarray(d["exact"]), np.asarray(d["values"])
    assert mu.sum() == pytest.approx(1.0) and (mu >= 0).all()
    assert d["ve"] == pytest.approx(float(np.sum(mu * (vhat - v) ** 2)))
    # aggregation: every state of a group has its group's weight (a staircase)
    live = mu > 0
    steps = np.unique(np.round(vhat[live], 12))
    assert len(steps) <= 10
    fp = d["fixed_points"]
    assert fp["mc"]["ve"] <= fp["td"]["ve"] + 1e-12  # the best fit is the least VE of any weights
    assert d["bound"] is None  # discount 1: no bound


def test_the_fixed_points_are_the_dense_solves(capsys):
    from mdpviz.solvers.learning import LearningSettings, exact_answer

    d = learn_json(capsys, "--game", "randomwalk", "--set", "n_states=50", "--set", "max_jump=5",
                   "--set", "discount=0.9", "--method", "semi-td", "--features", "aggregate:5",
                   "--episodes", "50", "--seed", "1")
    game = build_game("randomwalk", build_settings(n_states=50, max_jump=5, discount=0.9))
    mdp = game.mdp
    target = exact_answer(mdp, LearningSettings(method="td0")).policy_rows
    P, r = dense_chain(mdp, target)
    mu = np.asarray(d["mu"])
    D = np.diag(mu)
    # the features aggregate:5 as the command built them: read back from the best fit's staircase
    X = features_of(d, mdp)
    A = X.T @ D @ (np.eye(mdp.n_states) - 0.9 * P) @ X
    b = X.T @ D @ r
    w_td = np.linalg.solve(A, b)
    np.testing.assert_allclose(d["fixed_points"]["td"]["weights"], w_td, rtol=1e-8, atol=1e-10)
    sw = np.sqrt(mu)[:, None]
    w_mc = np.linalg.lstsq(sw * X, np.sqrt(mu) * np.asarray(d["exact"]), rcond=None)[0]
    np.testing.assert_allclose(d["fixed_points"]["mc"]["weights"], w_mc, rtol=1e-8, atol=1e-10)
    ve_best, ve_td = d["fixed_points"]["mc"]["ve"], d["fixed_points"]["td"]["ve"]
    assert ve_best <= ve_td <= d["bound"] + 1e-12  # eq. 9.14
    np.testing.assert_allclose(d["values"], X @ np.asarray(d["weights"]), atol=1e-12)


def build_settings(**fields):
    from mdpviz.models.kit.game import registry

    spec = registry.get("randomwalk")
    from dataclasses import replace

    return replace(spec.default_settings(), **fields)


def features_of(d, mdp) -> np.ndarray:
    """The aggregation matrix: states grouped by equal value of the best fit (each group its own weight)."""
    from mdpviz.solvers.features import feature_matrix

    return np.asarray(feature_matrix(d["features"], mdp))


def test_bairds_expected_off_policy_td_diverges_and_tdc_converges(capsys):
    td = learn_json(capsys, "--game", "baird", "--method", "off-td", "--features", "game", "--behaviour", "game",
                    "--expected", "--alpha", "0.01", "--episodes", "1000")
    w = np.asarray([c["weights"] for c in td["curve"]])
    norms = np.linalg.norm(w, axis=1)
    assert td["expected"] and td["n_features"] == 8 and len(td["curve"]) >= 10
    assert norms[-1] > 10 * norms[0] and np.all(np.diff(norms[len(norms) // 2:]) > 0)  # growing without bound
    tdc = learn_json(capsys, "--game", "baird", "--method", "tdc", "--features", "game", "--behaviour", "game",
                     "--expected", "--alpha", "0.005", "--beta", "0.05", "--episodes", "1000")
    ve = [c["ve"] for c in tdc["curve"]]
    pbe = [c["pbe"] for c in tdc["curve"]]
    # figure 11.5: the projected Bellman error goes to 0 while the root of VE "remains almost 2" at step 1000
    assert pbe[-1] < 1e-3 * pbe[0] and ve[-1] < ve[0] and 1.5 < np.sqrt(tdc["ve"]) < 2.5
    assert np.linalg.norm(tdc["weights"]) < 10 * np.linalg.norm(w[0])


@pytest.mark.parametrize("argv, words", [
    (["--method", "q", "--features", "tiles:8:0.25"], "--features applies to the approximation methods"),
    (["--method", "semi-td", "--features", "tiles:x"], "features:"),
    (["--method", "semi-td", "--beta", "0.1"], "--beta applies to"),
    (["--method", "semi-td", "--features", "file:/nonexistent/f.csv"], "f.csv"),
])
def test_bad_approximation_options_are_one_line(capsys, argv, words):
    status, out, err = run(capsys, ["learn", "--game", "randomwalk", "--set", "n_states=20", "--set", "max_jump=5", "--episodes", "5",
                                    *argv])
    assert status == 2 and out == ""
    assert words in err and len(err.strip().splitlines()) == 1


def test_mountain_car_semi_sarsa_with_8_tilings_reaches_the_goal_in_under_200_steps(capsys):
    """Issue 36's check (figure 10.1's setting: 8 tilings, alpha 0.5/8, epsilon 0, weights from 0 so every
    action looks good until tried): fewer than 200 steps per episode on average over episodes 400-500, and no
    fewer than the optimal policy of the same grid needs in expectation (less sampling noise)."""
    d = learn_json(capsys, "--game", "mountaincar", "--method", "semi-sarsa", "--features", "tiles:8:0.125",
                   "--alpha", "0.0625", "--epsilon", "0", "--episodes", "500", "--max-steps", "5000", "--every", "1")
    steps = np.array([-c["return"] for c in d["curve"] if c["episode"] > 400])
    optimal = -d["exact"][d["start"]]  # V*(start) by value iteration on the same grid: minus the expected steps
    assert len(steps) == 100 and steps.mean() < 200, steps.mean()
    assert steps.mean() > 0.9 * optimal, (steps.mean(), optimal)
    assert d["features"] == "tiles:8:0.125" and d["n_features"] * 3 == len(d["weights"])


def test_bairds_own_policies_and_weights_are_the_default(capsys):
    """Without --behaviour, Baird's off-policy learners follow its behaviour (dashed 6/7) and evaluate its
    target (always solid) from the book's weights: the first expected step is the book's DP update written out
    here by hand (w <- w + alpha/7 sum_s (gamma v(7) - v(s)) x(s), v(7) = w7 + 2 w8)."""
    d = learn_json(capsys, "--game", "baird", "--method", "off-td", "--expected", "--alpha", "0.01",
                   "--episodes", "1", "--every", "1")
    w = np.array([1, 1, 1, 1, 1, 1, 10, 1], dtype=float)
    X = np.zeros((7, 8))
    for i in range(6):
        X[i, i], X[i, 7] = 2.0, 1.0
    X[6, 6], X[6, 7] = 1.0, 2.0
    v = X @ w
    step = sum((0.99 * v[6] - v[s]) * X[s] for s in range(7)) / 7.0
    np.testing.assert_allclose(d["weights"], w + 0.01 * step, rtol=1e-12)
    assert d["mu"] == pytest.approx([1 / 7] * 7)
