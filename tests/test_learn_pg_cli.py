"""``mdpviz learn --method reinforce|reinforce-baseline|actor-critic|avg-actor-critic`` (issue 37, item 6): the
JSON keys of the issue, checked against the exact quantities computed apart (pg_exact at the printed theta), the
corridor's best value, the game's own features and start, and one-line errors."""
from __future__ import annotations

import math

import numpy as np
import pytest

from mdpviz.models.kit.game.game_model import build_game
from tests.test_learn_cli import checked_learn_json as learn_json, run




def test_reinforce_on_the_corridor_prints_the_exact_j_and_gradient_of_its_policy(capsys):
    from mdpviz.solvers.pg_exact import evaluate_policy

    d = learn_json(capsys, "--game", "corridor", "--method", "reinforce", "--episodes", "300", "--seed", "2")
    game = build_game("corridor")
    xsa = game.spec.model.action_features(game.settings, game.mdp)
    pv = evaluate_policy(game.mdp, xsa, np.asarray(d["theta"]), start=d["start"])
    assert d["features"] == "game" and d["n_features"] == 2 and len(d["theta"]) == 2
    assert d["compile_seconds"] >= 0.0
    assert d["J"] == pytest.approx(pv.J, rel=1e-9) and np.allclose(d["gradient"], pv.gradient, rtol=1e-7)
    assert d["J_best"] == pytest.approx(-(6 + 4 * math.sqrt(2)), abs=1e-6)
    for s, probs in enumerate(d["policy_probs"]):
        if game.mdp.terminal[s]:
            assert probs == {}
        else:
            assert set(probs) == {"left", "right"} and sum(probs.values()) == pytest.approx(1.0)
            r = int(game.mdp.state_ptr[s])
            assert probs["right"] == pytest.approx(float(pv.pi[r + 1]))  # (action 1 is right)
    assert [c["episode"] for c in d["curve"]][-1] == 300 and all("J" in c for c in d["curve"])
    assert d["J"] <= d["J_best"] + 1e-9  # no policy of these features beats the best one


def test_tabular_features_reach_towards_v_star_and_its_best_is_v_star(capsys):
    d = learn_json(capsys, "--game", "corridor", "--features", "tabular", "--method", "reinforce-baseline",
                   "--episodes", "2000", "--alpha-theta", "0.05", "--alpha-w", "0.05")
    assert d["J_best"] == pytest.approx(-3.0) and "V*" in d["J_best_how"]
    assert d["n_features"] == 6 and d["J"] > -6.0  # from the uniform policy's -12 well on the way to -3
    assert len(d["critic"]) >= 1


def test_the_game_start_is_the_books_epsilon_greedy_left(capsys):
    d = learn_json(capsys, "--game", "corridor", "--method", "reinforce", "--episodes", "1", "--every", "1",
                   "--alpha-theta", "1e-9")
    p = d["policy_probs"][d["start"]]["right"]
    assert p == pytest.approx(0.05, abs=1e-6) and d["curve"][0]["J"] == pytest.approx((2 * p - 4) / (p * (1 - p)),
                                                                                       rel=1e-5)


@pytest.mark.parametrize("argv, words", [
    (["--method", "reinforce", "--alpha", "0.1"], "--alpha-theta"),
    (["--method", "q", "--alpha-theta", "0.1"], "--alpha-theta applies to the policy-gradient methods"),
    (["--method", "reinforce", "--alpha-w", "0.1"], "--alpha-w applies to"),
    (["--method", "reinforce", "--alpha-theta", "2"], "--alpha-theta must be in (0, 1]"),
    (["--method", "reinforce", "--expected"], "--expected applies to the approximation methods"),
    (["--method", "avg-actor-critic"], "is for continuing models"),
])
def test_bad_options_are_one_line(capsys, argv, words):
    status, out, err = run(capsys, ["learn", "--game", "corridor", "--episodes", "5", *argv])
    assert status == 2 and out == "" and words in err and len(err.strip().splitlines()) == 1, err
