"""Every command's ``--json`` keys against one table (issue 35, item 21): a key means one thing, with one
type, in every command (mdpviz/commands/json_keys.py). ``sensitivity`` printed ``start`` (a label) and
``values`` (V*(start) along the range) where ``solve`` and ``learn`` print the start's index and V per state."""
from __future__ import annotations

import json

import pytest

from mdpviz.cli import main
from mdpviz.commands.json_keys import KEYS, conforms, problems

GRID = ["--game", "gridworld", "--grid", "book"]
CASES: dict[str, list[str]] = {
    "solve": ["solve", *GRID, "--sweeps", "3", "--history", "--distribution"],
    "solve-evaluate": ["solve", "--game", "gambler", "--set", "goal=10", "--policy", "random"],
    "solve-rvi": ["solve", "--game", "file", "--mdp", "continuing-mdp-2-2", "--method", "rvi"],
    "learn-control": ["learn", *GRID, "--method", "q", "--episodes", "20"],
    "learn-prediction": ["learn", *GRID, "--method", "td0", "--episodes", "20"],
    "learn-planning": ["learn", "--game", "gridworld", "--grid", "shortcut", "--method", "dyna-q+", "--episodes", "300",
                       "--planning-steps", "2", "--total-steps", "3050"],
    "sensitivity": ["sensitivity", "--game", "gridworld", "--grid", "bridge", "--param", "noise", "--from", "0",
                    "--to", "0.5", "--steps", "5"],
    "sensitivity-phase": ["sensitivity", "--game", "gridworld", "--grid", "bridge", "--param", "noise", "--from", "0",
                          "--to", "0.5", "--param2", "discount", "--from2", "0.5", "--to2", "0.9", "--steps", "3"],
    "gridworld": ["gridworld", "--grid", "book", "--sweeps", "2"],
    "snakes": ["snakes", "--layout", ",".join(["0"] * 15), "--distribution", "--games", "100", "--seed", "1"],
    "snakes-compare": ["snakes", "--layout", ",".join(["0"] * 15), "--compare", "--games", "100", "--seed", "1"],
    "ttt": ["ttt", "--games", "100", "--seed", "1", "--first", "agent", "--explain", "         "],
    "risk-ttt": ["risk-ttt", "--size", "2", "--preset", "classic"],
    "match": ["match", "--games", "100", "--seed", "1", "--both-orders"],
    "checkers": ["checkers", "--size", "4", "--games", "20", "--seed", "1"],
    "attt": ["attt", "iterate", "--start", "uniform"],
    "mcts": ["mcts", "--game", "ttt", "--first", "agent", "--simulations", "300"],
    "solve-rtdp": ["solve", "--game", "gridworld", "--grid", "discount", "--noise", "0", "--method", "rtdp"],
}
"""A small case of every command that prints JSON (export, gym and ttt3d below: they need more)."""


def run_json(capsys, argv: list[str]) -> dict:
    code = main([*argv, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize("name", list(CASES))
def test_every_key_a_command_prints_is_in_the_table_with_its_type(capsys, name):
    doc = run_json(capsys, CASES[name])
    assert problems(doc, name) == []


def test_export_and_gym_and_ttt3d_keys_too(capsys, tmp_path):
    docs = {"export": run_json(capsys, ["export", "--game", "gridworld", "--out", str(tmp_path / "x.png")])}
    agent = tmp_path / "a.npz"
    docs["ttt3d train"] = run_json(capsys, ["ttt3d", "train", "--episodes", "20", "--seed", "1", "--out", str(agent),
                                            "--report-every", "10", "--eval-games", "10", "--final-games", "10"])
    docs["ttt3d eval"] = run_json(capsys, ["ttt3d", "eval", "--agent", str(agent), "--games", "10"])
    try:
        import gymnasium  # noqa: F401
    except ImportError:
        pass
    else:
        docs["gym"] = run_json(capsys, ["gym", "--env", "FrozenLake-v1"])
        docs["gym flat"] = run_json(capsys, ["gym", "--env", "Taxi-v4"])
    assert [p for name, doc in docs.items() for p in problems(doc, name)] == []


def test_solve_learn_and_sensitivity_agree_on_start_states_and_values(capsys):
    """The keys the issue named: one meaning in the three commands."""
    s = run_json(capsys, ["solve", *GRID])
    learned = run_json(capsys, ["learn", *GRID, "--method", "q", "--episodes", "5"])
    sens = run_json(capsys, ["sensitivity", *GRID, "--param", "noise", "--from", "0", "--to", "0.2", "--steps", "3"])
    for d in (s, learned, sens):
        assert d["states"][d["start"]] == d["start_label"] == s["start_label"]
    assert len(s["values"]) == len(learned["values"]) == len(s["states"])
    assert "values" not in sens and all(set(e) == {"param_value", "start_value"} for e in sens["start_value_curve"])
    at = [e for e in sens["start_value_curve"] if e["param_value"] == pytest.approx(0.2)][0]
    assert at["start_value"] == pytest.approx(s["start_value"], abs=1e-6)  # the book grid's default noise is 0.2


def test_the_table_is_well_formed():
    for key, (meaning, kind) in KEYS.items():
        assert meaning and key == key.strip()
        conforms(None, kind)  # a type the checker knows (ValueError otherwise)
    assert conforms([1.0, None], "list[float|null]") and not conforms([1.5], "list[int]")
    assert conforms(None, "list[str]|null") and not conforms(True, "int")
