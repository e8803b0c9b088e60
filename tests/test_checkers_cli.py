"""``mdpviz checkers`` and ``mdpviz bench checkers`` through :func:`mdpviz.cli.main`."""
from __future__ import annotations

import json

import pytest

from mdpviz.cli import main

SMALL = ["checkers", "--size", "4", "--games", "3000", "--seed", "5"]


def run_json(capsys, argv):
    code = main(argv + ["--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert err == ""
    return json.loads(out)


def test_json_report(capsys):
    r = run_json(capsys, SMALL)
    for key in ("n_states", "sweeps", "seconds", "agent_outcomes", "random"):
        assert key in r
    assert r["n_states"] == 6670  # 4x4, 1 row, 40 plies, agent black: 6,667 positions-by-ply + 3 terminal
    assert r["sweeps"] == 7 and r["converged"] and r["seconds"] > 0
    assert r["variant"]["ply_limit"] == 40 and r["variant"]["discount"] == r["variant"]["gamma"] == 0.1
    for who in ("agent_outcomes", "random"):
        p = r[who]
        assert p["win"] + p["draw"] + p["loss"] == pytest.approx(1.0)
        assert sum(p["counts"].values()) == 3000
        for k in ("win", "draw", "loss"):
            lo, hi = p["ci"][k]
            assert lo <= p[k] <= hi
            assert 0.0 <= p["exact"][k] <= 1.0
    assert r["agent_outcomes"]["win"] > r["random"]["win"] + 0.1
    assert r["agent_outcomes"]["exact"]["win"] > r["random"]["exact"]["win"]


def test_same_seed_same_games_and_text_output(capsys):
    a = run_json(capsys, SMALL)
    b = run_json(capsys, SMALL)
    assert a["agent_outcomes"]["counts"] == b["agent_outcomes"]["counts"] and a["random"]["counts"] == b["random"]["counts"]
    assert main(SMALL) == 0
    out, err = capsys.readouterr()
    assert "states 6,670" in out and "agent:" in out and "random:" in out and err == ""


def test_options_reach_the_variant(capsys):
    r = run_json(capsys, ["checkers", "--size", "4", "--ply-limit", "0", "--agent", "white", "--gamma", "0.5",
                          "--method", "pi", "--games", "500", "--seed", "1", "--no-forced-capture",
                          "--no-multi-jump"])
    v = r["variant"]
    assert v["ply_limit"] is None and v["agent"] == "white" and not v["forced_capture"] and not v["multi_jump"]
    assert r["method"] == "pi" and r["converged"]
    assert r["agent_outcomes"]["exact"]["never_ends"] >= 0.0


@pytest.mark.parametrize("argv,needle", [
    (["--size", "4", "--rows", "2"], "rows of men on a 4x4 board must be 1..1"),
    (["--size", "9"], "board size must be 4..8"),
    (["--games", "0"], "--games must be at least 1"),
    (["--gamma", "1.5"], "--gamma must be in [0, 1]"),
    (["--gamma", "1", "--ply-limit", "0"], "--gamma 1 needs a ply limit"),
    (["--ply-limit", "x"], "--ply-limit must be a whole number"),
    (["--size", "8", "--rows", "3", "--ply-limit", "0", "--max-states", "1000"], "refused: more than 1,000 positions"),
])
def test_bad_input_is_one_line_and_status_2(capsys, argv, needle):
    code = main(["checkers"] + argv)
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith("mdpviz: error:") and needle in last


def test_bench_measures_in_a_subprocess(capsys):
    code = main(["bench", "checkers", "--boards", "4x1", "--options", "fm", "--ply-limits", "12,0"])
    out, err = capsys.readouterr()
    assert code == 0, err
    lines = [ln for ln in out.splitlines() if ln.strip().startswith("4    1")]
    assert len(lines) == 2
    assert "167" in lines[0] and "within limits" in lines[0]  # 4x4 at 12 plies: 164 states + 3
    assert "1,175" in lines[1]
    assert "largest within the limits" in out


def test_bench_reports_a_refusal(capsys):
    code = main(["bench", "checkers", "--boards", "5x1", "--options", "fm", "--ply-limits", "40",
                 "--max-states", "5000"])
    out, _ = capsys.readouterr()
    assert code == 0
    assert "refused" in out and "more than 5,000" in out
