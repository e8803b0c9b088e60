"""``mdpviz ttt3d train|eval`` through :func:`mdpviz.cli.main` (exit status, stdout, stderr)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from mdpviz.cli import main
from mdpviz.models.ttt3d import learning as rl

SMALL = ["--episodes", "200", "--report-every", "100", "--eval-games", "50", "--final-games", "300"]


def test_train_json_and_the_saved_agent(tmp_path, capsys):
    out = tmp_path / "agent.npz"
    rc = main(["ttt3d", "train", "--method", "q", "--approx", "linear", "--seed", "3", "--out", str(out),
               "--risk", "half", "--json", *SMALL])
    cap = capsys.readouterr()
    assert rc == 0, cap.err
    data = json.loads(cap.out)
    assert data["episodes"] == 200 and data["out"] == str(out)
    assert [p["episodes"] for p in data["curve"]] == [0, 100, 200]
    for p in data["curve"]:
        assert set(p) >= {"episodes", "epsilon", "mean_td_error", "win", "draw", "loss", "train_seconds", "seconds"}
    assert data["settings"]["method"] == "q" and data["settings"]["learning_rate"] == rl.DEFAULT_LEARNING_RATES[("q", "linear")]
    assert data["risk"] == [0.5] * 27
    assert data["final"]["X"]["episodes"] == 300 and set(data["final"]) == {"X", "O"}  # both seats by default
    assert set(data["final"]["O"]["baselines"]) == {"tactical", "untrained"}
    agent = rl.load_agent(out)
    assert agent.episodes == 200 and agent.settings.seed == 3 and agent.settings.method == "q"
    # eval with its default seed plays the same games as train's final evaluation.
    rc = main(["ttt3d", "eval", "--agent", str(out), "--games", "300", "--opponent", "tactical", "--json"])
    cap = capsys.readouterr()
    assert rc == 0, cap.err
    ev = json.loads(cap.out)
    for who in ("tactical", "untrained"):  # the yardsticks: the same games too
        assert ev["baselines"][who]["wins"] == data["final"]["X"]["baselines"][who]["wins"]
    for k in ("win", "draw", "loss", "episodes"):
        assert ev[k] == data["final"]["X"][k]
    assert ev["seconds"] >= 0 and ev["trained_episodes"] == 200


def test_train_prints_the_learning_curve(tmp_path, capsys):
    out = tmp_path / "a.npz"
    rc = main(["ttt3d", "train", "--seed", "0", "--out", str(out), "--approx", "mlp", "--hidden", "8", *SMALL])
    cap = capsys.readouterr()
    assert rc == 0, cap.err
    lines = cap.out.splitlines()
    assert "TD(0)" in lines[0] and "200 episodes" in lines[0] and "risk classic" in lines[0]
    assert lines[1].split()[:3] == ["episodes", "epsilon", "|TD"]
    assert "against the tactical opponent, 50 games per seat" in lines[1] and lines[1].split()[4:8] == ["win", "X", "win", "O"]
    assert [ln.split()[0] for ln in lines[2:4]] == ["(tactical)", "(untrained)"]  # the yardsticks, per seat
    assert [ln.split()[0] for ln in lines[4:7]] == ["0", "100", "200"]
    assert lines[4].split()[3:5] == lines[3].split()[1:3]  # the untrained agent is the curve's first point
    assert lines[7].startswith("final, X: 300 games against the tactical opponent")
    assert lines[8].strip().startswith("yardsticks, same seat and seed: tactical player")
    assert lines[9].startswith("final, O: 300 games")
    assert lines[11].startswith(f"saved {out}")
    assert out.exists()


def test_eval_json_keys(tmp_path, capsys):
    out = tmp_path / "a.npz"
    rl.untrained_agent(rl.TrainSettings(approx="linear")).save(out)
    rc = main(["ttt3d", "eval", "--agent", str(out), "--games", "1000", "--json"])
    cap = capsys.readouterr()
    assert rc == 0, cap.err
    ev = json.loads(cap.out)
    assert {"win", "draw", "loss", "episodes", "seconds"} <= set(ev)
    assert ev["episodes"] == 1000
    assert ev["win"] + ev["draw"] + ev["loss"] == pytest.approx(1.0)
    assert ev["wins"] == round(ev["win"] * 1000)
    rc = main(["ttt3d", "eval", "--agent", str(out), "--games", "1000"])
    cap = capsys.readouterr()
    assert rc == 0 and "1,000 games" in cap.out and "win " in cap.out


def test_eval_random_baseline(capsys):
    rc = main(["ttt3d", "eval", "--agent", "random", "--games", "2000", "--json", "--seed", "4"])
    cap = capsys.readouterr()
    assert rc == 0, cap.err
    ev = json.loads(cap.out)
    assert ev["draw"] == 0.0 and 0.5 < ev["win"] < 0.65  # X's first-move edge, about 0.567


@pytest.mark.parametrize(
    "argv, message",
    [
        (["ttt3d", "train", "--seed", "0", "--out", "{tmp}/a.npz", "--risk", "nope"], "unknown risk preset"),
        (["ttt3d", "train", "--seed", "0", "--out", "{tmp}/a.npz", "--risk", "0.1,0.2"], "27 entries"),
        (["ttt3d", "train", "--seed", "0", "--out", "{tmp}/a.npz", "--episodes", "-5"], "episodes must be"),
        (["ttt3d", "train", "--seed", "0", "--out", "{tmp}/a.npz", "--discount", "2"], "discount"),
        (["ttt3d", "train", "--seed", "0", "--out", "{tmp}/no/such/dir/a.npz"], "does not exist"),
        (["ttt3d", "train", "--out", "{tmp}/a.npz"], "--seed"),
        (["ttt3d", "train", "--seed", "0", "--out", "{tmp}/a.npz", "--approx", "tree"], "invalid choice"),
        (["ttt3d", "eval", "--agent", "{tmp}/missing.npz"], "no such agent file"),
        (["ttt3d", "eval", "--agent", "random", "--games", "0"], "--games must be at least 1"),
        (["ttt3d"], "choose a subcommand"),
    ],
)
def test_bad_input_is_one_line_and_status_2(tmp_path, capsys, argv, message):
    rc = main([a.replace("{tmp}", str(tmp_path)) for a in argv])
    cap = capsys.readouterr()
    assert rc == 2
    assert "Traceback" not in cap.err
    assert "mdpviz: error:" in cap.err and message in cap.err
    assert not (tmp_path / "a.npz").exists()
    assert cap.out == ""


def test_eval_of_a_non_agent_file(tmp_path, capsys):
    bad = tmp_path / "x.npz"
    np.savez(bad, a=np.zeros(2))
    rc = main(["ttt3d", "eval", "--agent", str(bad)])
    cap = capsys.readouterr()
    assert rc == 2 and "not an mdpviz agent file" in cap.err
