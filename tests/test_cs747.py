"""Tier 1: the course MDP file format, the published instances, and `mdpviz plan`."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mdpviz.cli import main
from mdpviz.core.cs747 import MDPFileError, format_cs747, load_cs747, parse_value_policy, save_cs747
from mdpviz.solvers import solve

INSTANCES = [
    "continuing-mdp-2-2", "continuing-mdp-10-5", "continuing-mdp-50-20",
    "episodic-mdp-2-2", "episodic-mdp-10-5", "episodic-mdp-50-20",
]


def _solution(d: Path, name: str):
    return parse_value_policy((d / "mdp" / f"sol-{name}.txt").read_text())


@pytest.mark.parametrize("name", INSTANCES)
@pytest.mark.parametrize("method", ["vi", "gs", "pi", "lp"])
def test_published_instances_match_their_solutions(cs747_dir, name, method):
    mdp = load_cs747(cs747_dir / "mdp" / f"{name}.txt")
    v_ref, pi_ref = _solution(cs747_dir, name)
    sol = solve(mdp, method, **({"tol": 1e-12} if method in ("vi", "gs") else {}))
    assert sol.converged
    np.testing.assert_allclose(sol.values, v_ref, atol=1e-4)
    # the policy may differ only where actions tie
    q = mdp.q_values(sol.values)
    for s in np.flatnonzero(np.maximum(sol.policy, 0) != pi_ref):
        assert abs(q[mdp.row_of(s, int(pi_ref[s]))] - sol.values[s]) < 1e-4


@pytest.mark.parametrize("name", INSTANCES)
def test_round_trip_is_exact(cs747_dir, tmp_path, name):
    mdp = load_cs747(cs747_dir / "mdp" / f"{name}.txt")
    out = tmp_path / "copy.txt"
    save_cs747(mdp, out)
    back = load_cs747(out)
    for field in ("state_ptr", "row_action", "row_ptr", "dst", "prob", "reward", "terminal"):
        np.testing.assert_array_equal(getattr(back, field), getattr(mdp, field), err_msg=field)
    assert back.discount == mdp.discount and back.mdptype == mdp.mdptype
    assert format_cs747(back) == out.read_text()


def test_episodic_terminal_states_absorb(cs747_dir):
    mdp = load_cs747(cs747_dir / "mdp" / "episodic-mdp-10-5.txt")
    assert mdp.terminal[[0, 5]].all() and mdp.is_episodic
    sol = solve(mdp, "pi")
    assert sol.values[0] == 0 and sol.values[5] == 0 and sol.policy[0] == -1


GOOD = """numStates 2
numActions 1
end 1
transition 0 0 1 1.0 0.5
transition  0   0   0   0.0   0.5
mdptype episodic
discount 1
"""


@pytest.mark.parametrize(
    "text, line, problem",
    [
        (GOOD.replace("numActions 1\n", ""), None, "missing header 'numActions'"),
        (GOOD + "discount 0.9\n", 8, "'discount' repeated (first given on line 7)"),
        (GOOD.replace("1.0 0.5", "one 0.5"), 4, "reward must be a number, got 'one'"),
        (GOOD.replace("1.0 0.5", "1.0 1.5"), 4, "probability 1.5 is outside [0, 1]"),
        (GOOD.replace("0.0   0.5", "0.0   0.25"), 4, "state 0, action 0: probabilities sum to 0.75, not 1"),
        (GOOD.replace("0   0   0", "0   0   2"), 5, "next state 2 is out of range 0..1"),
        (GOOD.replace("numStates 2", "numStates two"), 1, "'numStates' must be an integer, got 'two'"),
        (GOOD.replace("transition 0 0 1", "transition 0 0"), 4, "a transition needs 5 fields"),
        (GOOD.replace("mdptype episodic", "mdptype sometimes"), 6, "'mdptype' must be 'continuing' or 'episodic'"),
        (GOOD.replace("discount 1", "discount 1.5"), 7, "discount 1.5 is outside [0, 1]"),
        (GOOD + "bogus 3\n", 8, "unknown keyword 'bogus'"),
        ("", None, "is empty"),
    ],
)
def test_bad_files_name_file_line_and_problem(tmp_path, capsys, text, line, problem):
    f = tmp_path / "bad.txt"
    f.write_text(text)
    with pytest.raises(MDPFileError) as err:
        load_cs747(f)
    assert err.value.line == line
    assert problem in str(err.value)
    assert str(err.value).startswith(f"{f}:{line}: " if line else f"{f}: ")
    # the command line: one line on stderr, nothing on stdout, exit 2
    assert main(["plan", "--mdp", str(f)]) == 2
    out, errtext = capsys.readouterr()
    assert out == ""
    assert errtext.count("\n") == 1 and problem in errtext and "Traceback" not in errtext


def test_binary_and_missing_files(tmp_path, capsys):
    f = tmp_path / "blob.bin"
    f.write_bytes(b"numStates 2\n\x00\x01\x02\xff")
    assert main(["plan", "--mdp", str(f)]) == 2
    assert "is not a text file" in capsys.readouterr().err
    assert main(["plan", "--mdp", str(tmp_path / "nope.txt")]) == 2
    assert "no such file" in capsys.readouterr().err


@pytest.mark.parametrize("algorithm", ["vi", "vi-sync", "hpi", "lp"])
def test_plan_prints_like_the_solution_files(cs747_dir, capsys, algorithm):
    name = "episodic-mdp-50-20"
    assert main(["plan", "--mdp", str(cs747_dir / "mdp" / f"{name}.txt"), "--algorithm", algorithm]) == 0
    out = capsys.readouterr().out.splitlines()
    v_ref, pi_ref = _solution(cs747_dir, name)
    assert len(out) == 50
    vals = np.array([float(l.split()[0]) for l in out])
    np.testing.assert_allclose(vals, v_ref, atol=1e-4)
    assert all(len(l.split()[0].split(".")[1]) == 6 for l in out)
    assert [int(l.split()[1]) for l in out] == pi_ref.tolist()
