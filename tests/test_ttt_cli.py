"""``mdpviz ttt``, ``mdpviz risk-ttt`` and ``mdpviz match`` through ``mdpviz.cli.main``."""
from __future__ import annotations

import json

import pytest

from mdpviz.cli import main


def _json(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0, err
    assert err == ""
    return json.loads(out)


def _error(capsys, argv) -> str:
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    assert err.startswith("mdpviz: error: ") or "mdpviz: error: " in err
    assert "Traceback" not in err
    return err


# ---------------------------------------------------------------------- ttt
def test_ttt_opponent_first_json(capsys):
    d = _json(capsys, ["ttt", "--agent", "O", "--first", "opponent", "--games", "3000", "--seed", "1", "--json"])
    assert abs(d["win"] - 866 / 945) < 1e-12 and abs(d["draw"] - 79 / 945) < 1e-12 and d["loss"] == 0
    assert d["fractions"] == {"win": "866/945", "draw": "79/945", "loss": "0"}
    assert d["n_states"] == 2100 and d["board_states"] == 2097
    assert d["iterations"] == 5
    # value: the mean over the opponent's 9 openings of V of the agent's first position
    assert d["value"] == pytest.approx(365.4, abs=1e-9)
    sim = d["simulated"]
    assert sim["games"] == 3000 and sim["win"] + sim["draw"] + sim["loss"] == pytest.approx(1.0)
    lo, hi = sim["ci"]["win"]
    assert lo <= d["win"] <= hi
    assert len(d["first_moves"]) == 9


def test_ttt_agent_first_with_policy_iteration(capsys):
    d = _json(capsys, ["ttt", "--first", "agent", "--method", "pi", "--games", "0", "--json"])
    assert d["fractions"] == {"win": "191/192", "draw": "1/192", "loss": "0"}
    assert d["iterations"] == 4 and "simulated" not in d
    assert d["value"] == pytest.approx(396.3515625, abs=1e-9)
    chosen = [m for m in d["first_moves"] if m["chosen"]]
    assert len(chosen) == 1 and chosen[0]["win"] == pytest.approx(191 / 192, abs=1e-12)


def test_ttt_other_rewards_text_output_explains(capsys):
    code = main(["ttt", "--rewards", "1,0,-1", "--gamma", "1", "--games", "500", "--seed", "2",
                 "--explain", "X........"])
    out, err = capsys.readouterr()
    assert code == 0 and err == ""
    assert "win 93.228% (881/945)" in out and "loss 0.741% (1/135)" in out
    assert "why:" in out and "moves on X........ (the policy plays cell 4)" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["ttt", "--rewards", "1,0"], "--rewards needs three numbers"),
        (["ttt", "--rewards", "1,zero,-1"], "the draw reward 'zero' is not a number"),
        (["ttt", "--gamma", "1.5", "--games", "0"], "discount must be in [0, 1]"),
        (["ttt", "--games", "-5"], "--games must be 0 or more"),
        (["ttt", "--explain", "XXXX....."], "is not a position where the agent"),
        (["ttt", "--explain", "XQ......."], "cell 1 is 'Q'"),
        (["ttt", "--agent", "Z"], "invalid choice"),
        (["ttt", "--method", "magic"], "invalid choice"),
    ],
)
def test_ttt_bad_arguments(capsys, argv, message):
    assert message in _error(capsys, argv)


# ---------------------------------------------------------------------- risk-ttt
def test_risk_ttt_stochastic_json(capsys):
    d = _json(capsys, ["risk-ttt", "--preset", "stochastic", "--json"])
    assert abs(d["value"] - 0.11966164) < 1e-12
    assert d["n_states"] == 38742 and d["sweeps"] == 10 and d["seconds"] >= 0
    assert [e["max_change"] for e in d["log"]][:2] == pytest.approx([0.95, 0.9])
    assert d["log"][0]["mean_change"] == pytest.approx(0.29935094203553664, rel=1e-9)
    assert d["log"][-1]["max_change"] == 0.0


def test_risk_ttt_by_risk_vector_and_methods(capsys):
    half = ",".join(["0.5"] * 9)
    for method in ("vi", "pi", "bi", "gs"):
        d = _json(capsys, ["risk-ttt", "--risk", half, "--method", method, "--json"])
        assert d["value"] == pytest.approx(0.01171875, abs=1e-12), method
        assert d["preset"] == "custom"
    assert d["fraction"] is None or d["fraction"] == "3/256"
    for preset in ("classic", "reverse"):
        assert _json(capsys, ["risk-ttt", "--preset", preset, "--json"])["value"] == pytest.approx(0.0, abs=1e-12)


def test_risk_ttt_text_log(capsys):
    code = main(["risk-ttt", "--preset", "half"])
    out, _ = capsys.readouterr()
    assert code == 0
    assert "sweep  1: max |T(V) - V| = 0.5 at " in out
    assert "value of the empty board, X to move: 0.01171875 = 3/256" in out


def test_risk_ttt_seeded_presets_are_repeatable(capsys):
    a = _json(capsys, ["risk-ttt", "--preset", "random", "--seed", "4", "--json"])
    b = _json(capsys, ["risk-ttt", "--preset", "random", "--seed", "4", "--json"])
    assert a["risk"] == b["risk"] and a["value"] == b["value"]


def test_risk_ttt_small_exact_board(capsys):
    d = _json(capsys, ["risk-ttt", "--size", "2", "--preset", "half", "--json"])
    assert d["method"] == "bi" and d["sweeps"] == 5 and d["n_states"] == 150


@pytest.mark.parametrize(
    "argv, message",
    [
        (["risk-ttt", "--risk", "0.9,0.3,0.5,0.2,1.95,0.7,0.6,0.45,0.1"], "risk[4] = 1.95 (cell 4) is not a number in [0, 1]"),
        (["risk-ttt", "--risk", "0.5,0.5"], "needs 9 entries (one per cell), got 2"),
        (["risk-ttt", "--risk", "a,b,c,d,e,f,g,h,i"], "risk entry 0 ('a') is not a number"),
        (["risk-ttt", "--size", "5"], "2 x 3^25 = 1,694,577,218,886 (board, turn) states"),
        (["risk-ttt", "--size", "4", "--preset", "stochastic"], "stochastic preset has 9 risks"),
        (["risk-ttt", "--size", "4"], "give --preset or --risk with 16 values"),
        (["risk-ttt", "--preset", "wild"], "invalid choice"),
        (["risk-ttt", "--preset", "half", "--risk", "1"], "not allowed with argument --preset"),
        (["risk-ttt", "--tol", "0"], "argument --tol: must be above 0"),
    ],
)
def test_risk_ttt_bad_arguments(capsys, argv, message):
    assert message in _error(capsys, argv)


# ---------------------------------------------------------------------- match
def test_match_json_with_exact_probabilities(capsys):
    d = _json(capsys, ["match", "--preset", "stochastic", "--x", "optimal", "--o", "random",
                       "--games", "5000", "--seed", "1", "--json"])
    assert d["x"] == "optimal" and d["o"] == "random" and d["games"] == 5000
    assert d["x_wins"] + d["o_wins"] + d["draws"] == pytest.approx(1.0)
    ex = d["exact_outcomes"]
    assert ex["x_wins"] + ex["o_wins"] + ex["draws"] == pytest.approx(1.0, abs=1e-12)
    for k in ("x_wins", "o_wins", "draws"):
        lo, hi = d["ci"][k]
        assert lo <= d[k] <= hi


def test_match_is_repeatable_and_plays_both_orders(capsys):
    argv = ["match", "--risk", ",".join(["0"] * 9), "--x", "random", "--o", "classic", "--games", "2000",
            "--seed", "7", "--both-orders", "--json"]
    a, b = _json(capsys, argv), _json(capsys, argv)
    assert a == {**b, "seconds": a["seconds"], "swapped": {**b["swapped"], "seconds": a["swapped"]["seconds"]}}
    assert a["swapped"]["x"] == "classic" and a["swapped"]["o"] == "random"
    # at P = 0 the classic agent never loses, in either seat, and beats random play often
    assert a["exact_outcomes"]["x_wins"] == 0.0 and a["swapped"]["exact_outcomes"]["o_wins"] == 0.0
    assert a["exact_outcomes"]["o_wins"] > 0.1 and a["swapped"]["exact_outcomes"]["x_wins"] > 0.5


def test_match_classic_agents_draw_and_text(capsys):
    d = _json(capsys, ["match", "--preset", "classic", "--x", "optimal", "--o", "optimal", "--games", "1000", "--json"])
    assert d["draws"] == 1.0 and d["exact_outcomes"]["draws"] == pytest.approx(1.0, abs=1e-12)
    code = main(["match", "--preset", "half", "--x", "random", "--o", "random", "--games", "1000", "--seed", "3"])
    out, _ = capsys.readouterr()
    assert code == 0 and "X = random, O = random" in out and "exact" in out


def test_match_with_a_policy_file(capsys, tmp_path):
    f = tmp_path / "mine.json"
    f.write_text(json.dumps({"         ": 4}))
    d = _json(capsys, ["match", "--preset", "classic", "--x", str(f), "--o", "random", "--games", "1000",
                       "--seed", "1", "--json"])
    assert d["x"] == "mine.json" and "exact_outcomes" in d
    d2 = _json(capsys, ["match", "--preset", "classic", "--x", str(f), "--o", "random", "--games", "1000",
                        "--no-exact", "--json"])
    assert "exact_outcomes" not in d2


@pytest.mark.parametrize(
    "argv, message",
    [
        (["match", "--x", "genius"], "unknown agent 'genius'"),
        (["match", "--games", "0"], "must be at least 1"),
        (["match", "--risk", "2,0,0,0,0,0,0,0,0"], "risk[0] = 2.0"),
    ],
)
def test_match_bad_arguments(capsys, argv, message):
    assert message in _error(capsys, argv)
