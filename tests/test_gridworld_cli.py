"""``mdpviz gridworld`` and ``mdpviz gym``: grid rows, arrows, JSON, one-line errors with exit 2,
and the install hint when Gymnasium is missing."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from mdpviz.cli import main


def run(capsys, argv):
    status = main(argv)
    out = capsys.readouterr()
    return status, out.out, out.err


def test_gridworld_text_rows_and_arrows(capsys):
    status, out, err = run(capsys, ["gridworld", "--grid", "book", "--convention", "aima", "--living-reward", "-0.04",
                                    "--discount", "1"])
    assert status == 0 and err == ""
    lines = out.splitlines()
    i = lines.index("values:")
    assert lines[i + 1].split() == ["0.812", "0.868", "0.918", "1.000"]
    assert lines[i + 2].split() == ["0.762", "0.660", "-1.000"]  # the wall is blank
    assert lines[i + 2].index("0.660") > lines[i + 1].index("0.868") + 5  # ... and keeps its column
    assert lines[i + 3].split() == ["0.705", "0.655", "0.611", "0.388"]
    j = lines.index("policy:")
    assert lines[j + 3].split() == ["\u2191", "\u2190", "\u2190", "\u2190"]


def test_gridworld_json(capsys):
    status, out, _ = run(capsys, ["gridworld", "--grid", "book", "--json"])
    assert status == 0
    d = json.loads(out)
    assert d["convention"] == "cs188" and d["discount"] == 0.9 and d["noise"] == 0.2
    assert d["value_grid"][1][1] is None and d["policy_grid"][1][1] is None
    assert d["value_grid"][2][0] == pytest.approx(0.4907, abs=5e-5)
    assert d["policy_grid"][0] == ["\u2192", "\u2192", "\u2192", "exit"]
    assert len(d["value_grid"]) == 3 and all(len(r) == 4 for r in d["value_grid"])


def test_gridworld_map_file(capsys, tmp_path):
    p = tmp_path / "m.txt"
    p.write_text("S . 5\n# . .\n")
    status, out, _ = run(capsys, ["gridworld", "--grid", str(p), "--noise", "0", "--json"])
    assert status == 0
    d = json.loads(out)
    assert d["value_grid"][0] == pytest.approx([5 * 0.81, 5 * 0.9, 5.0])
    assert d["value_grid"][1][0] is None


@pytest.mark.parametrize("text, msg", [
    ("S . x\n", "m.txt:1: cell 3 'x' is not"),
    ("S . 1\n. .\n", "m.txt:2: this row has 2 cells"),
    (". . 1\n", "m.txt:1: no start cell 'S'"),
])
def test_gridworld_bad_map_one_line_exit_2(capsys, tmp_path, text, msg):
    p = tmp_path / "m.txt"
    p.write_text(text)
    status, out, err = run(capsys, ["gridworld", "--grid", str(p)])
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and msg in err and str(p) in err


@pytest.mark.parametrize("argv, msg", [
    (["--grid", "nope"], "nope: no such map file"),
    (["--grid", "book", "--noise", "2"], "noise must be in [0, 1]"),
    (["--grid", "book", "--discount", "1", "--living-reward", "0.5"], "infinite"),
    (["--grid", "book", "--convention", "x"], "invalid choice"),
])
def test_gridworld_bad_options(capsys, argv, msg):
    status, out, err = run(capsys, ["gridworld", *argv])
    assert status == 2 and out == "" and msg in err
    assert "Traceback" not in err



def test_gym_frozenlake_grid(capsys):
    pytest.importorskip("gymnasium")
    status, out, err = run(capsys, ["gym", "--env", "FrozenLake-v1", "--kw", "is_slippery=False", "--discount", "0.9"])
    assert status == 0, err
    lines = out.splitlines()
    i = lines.index("values:")
    assert lines[i + 1].split() == ["0.590", "0.656", "0.729", "0.656"]  # 0.9^5, 0.9^4, ... to the goal
    j = lines.index("policy:")
    assert lines[j + 4].split() == ["\u2192", "\u2192"]  # bottom row: the hole and the goal have no arrow


def test_gym_json_grid_and_flat(capsys):
    pytest.importorskip("gymnasium")
    status, out, _ = run(capsys, ["gym", "--env", "FrozenLake-v1", "--kw", "desc=['SFFF','FHFH','FFFH','HFFG']",
                                  "--kw", "is_slippery=False", "--json"])
    assert status == 0
    d = json.loads(out)
    assert d["kwargs"] == {"desc": ["SFFF", "FHFH", "FFFH", "HFFG"], "is_slippery": False}
    assert len(d["value_grid"]) == 4 and d["policy_grid"][1][1] is None
    status, out, _ = run(capsys, ["gym", "--env", "Taxi-v4", "--json"])
    assert status == 0
    d = json.loads(out)
    assert len(d["values"]) == 500 and len(d["policy"]) == 500 and d["policy"][0] == "pickup"
    assert d["state_labels"][0] == "taxi (0,0), passenger at R, to R"


@pytest.mark.parametrize("argv, msg", [
    (["--env", "FrozenLake-v1", "--kw", "map_name=9x9"], "FrozenLake-v1 with map_name='9x9'"),
    (["--env", "FrozenLake-v1", "--kw", "nonsense=1"], "nonsense"),
    (["--env", "FrozenLake-v1", "--kw", "is_slippery"], "write key=value"),
    (["--env", "NoSuchEnv-v0"], "NoSuchEnv"),
    (["--env", "CartPole-v1"], "no transition table P"),
])
def test_gym_bad_kwargs_one_line_exit_2(capsys, argv, msg):
    pytest.importorskip("gymnasium")
    status, out, err = run(capsys, ["gym", *argv])
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and msg in err, err


def test_gym_without_gymnasium_says_how_to_install():
    code = ("import sys\nsys.modules['gymnasium'] = None\n"  # import gymnasium now raises ImportError
            "from mdpviz.cli import main\nsys.exit(main(['gym', '--env', 'FrozenLake-v1']))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and 'pip install "mdpviz[gym]"' in r.stderr
    # everything else still works without Gymnasium
    code2 = ("import sys\nsys.modules['gymnasium'] = None\n"
             "from mdpviz.cli import main\nsys.exit(main(['gridworld', '--grid', 'maze', '--json']))\n")
    r = subprocess.run([sys.executable, "-c", code2], capture_output=True, text=True)
    assert r.returncode == 0 and json.loads(r.stdout)["value_grid"][0][3] == 1.0
