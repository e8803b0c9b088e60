"""``mdpviz bench``'s options: a typo is one error line and exit status 2 before anything is
measured (never a traceback, never a run of the whole table with the typo ignored). No timing
here: the benches' figures are theirs to print."""
from __future__ import annotations

import pytest

from mdpviz.cli import main


def exit_code(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as e:  # argparse's own errors
        return int(e.code)


@pytest.mark.parametrize("argv, says", [
    (["table", "--skip", "gui,bogus"], "no row group 'bogus'"),
    (["table", "--sizes", "abc"], "expected a whole number, got 'abc'"),
    (["table", "--sizes", "0"], "must be at least 1, got 0"),
    (["table", "--sizes", ","], "state counts"),
    (["table", "--calls", "0"], "--calls: must be at least 1"),
    (["table", "--checkers-timeout", "nan"], "--checkers-timeout"),
    (["table", "--mdp", "no/such/file.txt"], "no such file"),
    (["core", "--sizes", "10,x"], "expected a whole number, got 'x'"),
    (["core", "--discount", "1"], "strictly between 0 and 1"),
    (["core", "--toolbox-max", "-5"], "--toolbox-max: must be at least 1"),
    (["snakes", "--calls", "0"], "--calls: must be at least 1"),
    (["learn", "--course-episodes", "0"], "--course-episodes: must be at least 1"),
    (["learn", "--lake-episodes", "x"], "--lake-episodes"),
    (["learn", "--reference-seconds", "0"], "--reference-seconds: must be in [0.05, 600]"),
    (["approx", "--seconds", "0"], "--seconds: must be in [0.05, 600]"),
    (["approx", "--repeat", "0"], "--repeat: must be at least 1"),
    (["checkers", "--boards", "3x1"], "--boards: 3x1: checkers board size must be 4..8"),
    (["checkers", "--boards", "5x3"], "--boards: 5x3: checkers rows of men"),
    (["checkers", "--gamma", "5"], "--gamma: must be in [0, 1]"),
    (["checkers", "--tol", "0"], "--tol: must be above 0"),
    (["checkers", "--jobs", "0"], "--jobs: must be at least 1"),
    (["checkers", "--timeout", "-1"], "--timeout: must be above 0"),
    (["checkers", "--max-states", "0"], "--max-states: must be at least 1"),
    (["gui", "--runs", "0"], "--runs must be 1..50"),
    (["gui", "--first-paint", "--runs", "51"], "--runs must be 1..50"),
])
def test_a_bad_option_is_one_error_line_and_status_2(capsys, argv, says):
    code = exit_code(["bench", *argv])
    out, err = capsys.readouterr()
    assert code == 2, (code, out, err)
    assert out == ""  # refused before anything was measured (the table prints uptime first)
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert "error" in last and says in last, err


def test_a_table_with_every_group_skipped_prints_no_rows(capsys):
    code = exit_code(["bench", "table", "--skip", "course,process,gui,snakes,learn,risk4,checkers,core"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "no rows: every group was skipped" in out


def test_first_paint_prints_each_run_the_best_the_load_and_the_cpu(capsys, monkeypatch):
    """``bench gui --first-paint`` (issue 35 item 11): best of N fresh processes, with uptime before and after
    and the CPU (the processes are stubbed here: no timing in tests)."""
    import mdpviz.commands.bench_table as bt

    calls = []

    def fake(bare, *, bytecode=True, runs=3, times=None):
        calls.append((bare, runs))
        got = [0.5 + k for k in range(runs)]
        if times is not None:
            times.extend(got)
        return min(got)

    monkeypatch.setattr(bt, "first_paint_seconds", fake)
    monkeypatch.setattr(bt, "load_text", lambda: "load average: 0.10, 0.20, 0.30")
    monkeypatch.setattr(bt, "cpu_model", lambda: "a test CPU, 2 CPUs")
    assert exit_code(["bench", "gui", "--first-paint", "--runs", "4"]) == 0
    out = capsys.readouterr().out
    assert calls == [(False, 4), (True, 4)]
    assert "best of 4 0.50 s" in out and "runs: 0.50, 1.50, 2.50, 3.50 s" in out
    assert "CPU: a test CPU, 2 CPUs" in out and out.count("load average: 0.10") == 2
    assert exit_code(["bench", "gui", "--first-paint", "--runs", "2", "--json"]) == 0
    import json

    data = json.loads(capsys.readouterr().out)
    assert data["first_paint_runs_s"] == [0.5, 1.5] and data["cpu"] == "a test CPU, 2 CPUs"


def test_the_learning_bench_times_a_seeded_course_file_and_a_plain_python_loop(tmp_path):
    """What ``bench learn`` times, without timing it: the same seeded course file everywhere, read back as
    the user's ``--mdp`` reads it, and the plain Python reference loop's updates, the same for one seed."""
    import numpy as np

    from mdpviz.commands.bench_learn import course_mdp, plain_q_learning, q_learning, write_course_file
    from mdpviz.core.cs747 import load_cs747
    from mdpviz.solvers import registry

    a, b = course_mdp(200, seed=3), course_mdp(200, seed=3)
    assert a.n_states == 200 and a.terminal.sum() == 4
    for name in ("dst", "prob", "reward", "row_ptr", "state_ptr"):
        assert np.array_equal(getattr(a, name), getattr(b, name))
    back = load_cs747(write_course_file(tmp_path, n_states=200, seed=3))
    assert np.array_equal(back.dst, a.dst) and np.array_equal(back.reward, a.reward)
    start = int(np.flatnonzero(~a.terminal)[0])
    n = plain_q_learning(a, start=start, episodes=30)
    assert n > 30 and n == plain_q_learning(a, start=start, episodes=30)
    assert registry.get(q_learning()).title == "Q-learning"


def test_bench_gui_stalls_is_an_option_and_waits_for_the_last_frames(monkeypatch, capsys):
    """``bench gui --stalls`` (issue 35 item 8) is listed in the help; its cases end only once the job is
    done and the frames after it have been drawn (their gaps count too): ``_after`` holds on after
    ``done`` first turns true, and starts again if it turns false."""
    from mdpviz.commands import bench_stalls

    assert exit_code(["bench", "gui", "--help"]) == 0
    assert "--stalls" in capsys.readouterr().out
    assert exit_code(["bench", "gui", "--stalls", "--runs", "2"]) == 2  # one line, before any window opens
    assert capsys.readouterr().err.strip().count("\n") == 0
    now = [0.0]
    monkeypatch.setattr(bench_stalls.time, "perf_counter", lambda: now[0])
    state = [False]
    check = bench_stalls._after(lambda: state[0], 1.0)
    assert not check()
    state[0] = True
    assert not check()
    now[0] = 0.5
    assert not check()
    state[0] = False
    assert not check()
    state[0] = True
    now[0] = 1.2
    assert not check()  # the second time it turned true starts the wait again
    now[0] = 2.2
    assert check()
