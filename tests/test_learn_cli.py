"""``mdpviz learn --game KEY --method M --episodes N``: every table game learned headless beside its
exact answer, the JSON fields of issue 25, the same seed giving the same numbers, one-line errors."""
from __future__ import annotations

import json

import numpy as np
import pytest

from mdpviz.cli import main
from mdpviz.models.kit.game import registry

MAX_STATES = 60_000
"""Games whose default model is larger are left out of the every-game test (a quick suite)."""


def run(capsys, argv):
    status = main(argv)
    out = capsys.readouterr()
    return status, out.out, out.err


def learn_json(capsys, *argv):
    status, out, err = run(capsys, ["learn", *argv, "--json"])
    assert status == 0, err
    return json.loads(out)


def checked_learn_json(capsys, *argv):
    """:func:`learn_json` whose every key is in the JSON key table with its type."""
    from mdpviz.commands.json_keys import problems

    doc = learn_json(capsys, *argv)
    assert problems(doc, "learn") == []
    return doc


def table_keys() -> list[str]:
    return [k for k in registry.keys() if not registry.get(k).no_table]


@pytest.mark.parametrize("key", table_keys())
def test_every_table_game_learns_headless(capsys, key):
    from mdpviz.models.kit.game.game_model import build_game
    from mdpviz.solvers.learning import exact_answer, LearningSettings

    game = build_game(key)
    if game.mdp.n_states > MAX_STATES:
        pytest.skip(f"{key}: {game.mdp.n_states} states")
    d = learn_json(capsys, "--game", key, "--method", "q", "--episodes", "40", "--max-steps", "200")
    n = game.mdp.n_states
    assert d["states"] == game.state_labels() and len(d["values"]) == len(d["exact"]) == len(d["q"]) == n
    assert d["method"] == "q" and d["episodes"] == 40 and d["updates"] > 0 and d["seconds"] >= 0
    exact = exact_answer(game.mdp, LearningSettings(method="q")).values
    np.testing.assert_allclose(d["exact"], exact)
    live = ~np.asarray(game.mdp.terminal)
    err = (np.asarray(d["values"]) - exact)[live]
    assert d["max_error"] == pytest.approx(np.abs(err).max())
    assert d["rms_error"] == pytest.approx(np.sqrt(np.mean(err ** 2)))
    assert 0.0 <= d["greedy_agreement"] <= 1.0
    for s in range(n):
        if game.mdp.terminal[s]:
            assert d["policy"][s] is None and d["q"][s] == {}
        else:
            assert d["policy"][s] in d["q"][s]
            assert d["values"][s] == pytest.approx(
                (max if game.mdp.sense[s] > 0 else min)(d["q"][s].values()))
    assert [c["episode"] for c in d["curve"]] == list(range(1, 41))


def test_gridworld_json_fields_and_curve(capsys):
    d = learn_json(capsys, "--game", "gridworld", "--grid", "book", "--noise", "0.2", "--discount", "0.9",
                   "--method", "q", "--episodes", "3000", "--alpha", "1/n^0.8", "--epsilon", "0.5",
                   "--exploring-starts", "--seed", "3", "--every", "300")
    for key in ("method", "episodes", "updates", "seconds", "values", "q", "policy", "exact", "rms_error",
                "max_error", "greedy_agreement", "curve"):
        assert key in d, key
    assert [c["episode"] for c in d["curve"]] == list(range(300, 3001, 300))
    assert set(d["curve"][0]) >= {"episode", "rms_error", "return"}
    assert d["curve"][-1]["rms_error"] < d["curve"][0]["rms_error"]
    assert d["greedy_agreement"] >= 0.9 and d["rms_error"] < 0.05
    assert d["policy"][d["states"].index("(row 1, col 3)")] == "east"


def test_prediction_prints_no_q_and_evaluates_the_named_policy(capsys):
    d = learn_json(capsys, "--game", "gridworld", "--method", "td0", "--policy", "random", "--episodes", "2000",
                   "--alpha", "1/n^0.8")
    assert "q" not in d and "policy" not in d
    from mdpviz.models.gridworld.rules import GridSettings, compile_gridworld
    from mdpviz.solvers import evaluate_stochastic_policy

    mdp = compile_gridworld(GridSettings()).mdp
    probs = np.zeros((mdp.n_states, mdp.n_actions))
    probs[mdp.row_state, mdp.row_action] = 1.0 / np.asarray(mdp.actions_per_state)[mdp.row_state]
    np.testing.assert_allclose(d["exact"], evaluate_stochastic_policy(mdp, probs), atol=1e-9)
    assert d["rms_error"] < 0.1


def test_same_seed_same_numbers_compiled_or_python(capsys):
    argv = ("--game", "snakes", "--method", "sarsa", "--episodes", "300", "--seed", "7")
    a = learn_json(capsys, *argv)
    b = learn_json(capsys, *argv)
    c = learn_json(capsys, *argv, "--python")
    for key in ("values", "q", "policy", "updates", "curve"):
        assert a[key] == b[key], key
    assert a["values"] == c["values"] and a["updates"] == c["updates"] and a["q"] == c["q"]
    assert a["objective"] == "min"  # snakes counts turns: the learner minimises them


def test_text_output_marks_states_whose_greedy_action_is_not_optimal(capsys):
    status, out, err = run(capsys, ["learn", "--game", "gridworld", "--method", "q", "--episodes", "30"])
    assert status == 0, err
    assert "Q-learning, 30 episodes" in out and "greedy action" in out
    assert "(not optimal)" in out  # 30 episodes leave some states wrong


@pytest.mark.parametrize("argv, message", [
    (["--method", "q", "--episodes", "5", "--n", "3"], "--n applies to --method nstep only"),
    (["--method", "td0", "--episodes", "5", "--epsilon", "0.2"], "--epsilon applies to the control methods"),
    (["--method", "q", "--episodes", "5", "--policy", "random"], "--policy applies to the prediction methods"),
    (["--method", "mc", "--episodes", "5", "--exploring-starts"], "--exploring-starts applies to the control"),
    (["--method", "q", "--episodes", "5", "--alpha", "fast"], "step size 'fast'"),
    (["--method", "q", "--episodes", "5", "--alpha", "2"], "alpha must be in (0, 1]"),
    (["--method", "q", "--episodes", "5", "--layout", "0"], "--layout applies to --game snakes only"),
    (["--method", "q", "--episodes", "5", "--epsilon-decay", "0"], "epsilon_decay must be in (0, 1]"),
])
def test_bad_options_get_one_line_and_exit_2(capsys, argv, message):
    status, out, err = run(capsys, ["learn", "--game", "gridworld", *argv])
    assert status == 2 and out == ""
    assert err.strip().splitlines()[-1].startswith("mdpviz: error:") and message in err


def test_a_game_without_a_table_is_refused(capsys):
    status, _, err = run(capsys, ["learn", "--game", "ttt3d", "--method", "q", "--episodes", "5"])
    assert status == 2 and "no table" in err
