"""``mdpviz snakes``: Expec/Dice as text and JSON, strategy comparison, clear errors (no traceback)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from mdpviz.cli import main
from mdpviz.models.snakes import markovDecision

LAYOUT = "0,0,0,1,0,0,2,0,3,0,4,0,1,2,0"
LAYOUT_ARR = np.array([int(x) for x in LAYOUT.split(",")])


@pytest.mark.parametrize("circle", [False, True])
def test_json_matches_markov_decision(capsys, circle):
    argv = ["snakes", "--layout", LAYOUT, "--json"] + (["--circle"] if circle else [])
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    expec, dice = markovDecision(LAYOUT_ARR, circle)
    assert out["expec"] == pytest.approx(expec.tolist(), abs=1e-12)
    assert out["dice"] == dice.tolist()
    assert out["circle"] is circle and out["layout"] == LAYOUT_ARR.tolist()


def test_text_output(capsys):
    assert main(["snakes", "--layout", "0," * 14 + "0"]) == 0
    out = capsys.readouterr().out.splitlines()
    rows = [line.split() for line in out[2:]]
    assert len(rows) == 14
    assert rows[0][:4] == ["1", "ordinary", "6.667412", "3"]
    assert rows[13][:4] == ["14", "ordinary", "1.333333", "3"]


@pytest.mark.parametrize("method", ["gs", "pi", "lp"])
def test_every_solver_gives_the_same_answer(capsys, method):
    main(["snakes", "--layout", LAYOUT, "--circle", "--json"])
    ref = json.loads(capsys.readouterr().out)
    assert main(["snakes", "--layout", LAYOUT, "--circle", "--json", "--method", method]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["expec"] == pytest.approx(ref["expec"], abs=1e-9)
    assert out["dice"] == ref["dice"]


def test_rule_sets_and_custom_dice(capsys):
    assert main(["snakes", "--layout", LAYOUT, "--rules", "special-die", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["dice_names"] == ["security", "normal", "risky", "special"] and 4 in out["dice"]
    assert main(["snakes", "--layout", LAYOUT, "--die", "lucky:2=1/2,3=1/2:0", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["dice_names"][-1] == "lucky"
    assert main(["snakes", "--layout", LAYOUT, "--rules", "gamble"]) == 0
    assert "gamble" in capsys.readouterr().out


def test_compare_json(capsys):
    argv = ["snakes", "--layout", LAYOUT, "--compare", "--games", "3000", "--games-per-square", "100",
            "--seed", "1", "--json", "--policy", "1,1,1,1,1,1,1,1,1,1,3,3,3,3"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    names = [s["name"] for s in out["strategies"]]
    assert names == ["optimal", "security", "normal", "risky", "random", "mixed", "custom"]
    security = out["strategies"][1]
    assert security["exact_mean"] == pytest.approx(17.0)  # hand-derived (see test_snakes_sim)
    assert abs(security["mean"] - 17.0) < 5 * security["ci_half_width"]
    assert len(security["ci_by_square"]) == 14 and out["games_per_square"] == [3000] + [100] * 13
    expec, _ = markovDecision(LAYOUT_ARR, False)
    assert out["strategies"][0]["exact_mean"] == pytest.approx(expec[0], abs=1e-9)
    # the same seed gives the same numbers
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out) == out


def test_compare_text(capsys):
    assert main(["snakes", "--layout", LAYOUT, "--circle", "--compare", "--games", "2000", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    for name in ("optimal", "security", "normal", "risky", "random", "mixed"):
        assert f"\n{name} " in out
    assert "17.0000" in out


@pytest.mark.parametrize("argv, message", [
    (["--layout", "0,0,0"], "15 values"),
    (["--layout", "0,0,x,0,0,0,0,0,0,0,0,0,0,0,0"], "--layout: entry 3 ('x') is not a number"),
    (["--layout", "1,0,0,0,0,0,0,0,0,0,0,0,0,0,0"], "square 1, the start"),
    (["--layout", "0,0,0,0,0,0,0,0,0,0,0,0,0,0,4"], "square 15, the goal"),
    (["--layout", "0,0,7,0,0,0,0,0,0,0,0,0,0,0,0"], "outside 0..4"),
    (["--layout", "0,0,1.5,0,0,0,0,0,0,0,0,0,0,0,0"], "not an integer"),
    (["--layout", LAYOUT, "--die", "bad"], "expected NAME"),
    (["--layout", LAYOUT, "--compare", "--policy", "1,2"], "--policy must give 14 dice"),
    (["--layout", LAYOUT, "--compare", "--policy", "1,1,1,1,1,1,1,1,1,1,1,1,1,5"], "square 14 has die 5"),
    (["--layout", LAYOUT, "--compare", "--games", "0"], "--games must be at least 1"),
    (["--layout", LAYOUT, "--compare", "--mix", "0.5,0.5"], "mix must give one probability per die"),
    (["--layout", LAYOUT, "--rules", "ladders"], "invalid choice"),
])
def test_errors_are_one_line_exit_2(capsys, argv, message):
    assert main(["snakes", *argv]) == 2
    cap = capsys.readouterr()
    assert cap.out == ""
    assert cap.err.strip().splitlines()[-1].startswith("mdpviz: error:")
    assert message in cap.err
    assert "Traceback" not in cap.err


def test_bench_runs(capsys):
    assert main(["bench", "snakes", "--calls", "3", "--games", "500"]) == 0
    out = capsys.readouterr().out
    assert "markovDecision: 3 calls" in out and out.count("simulation: 500 games") == 2
