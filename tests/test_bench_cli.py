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
    (["checkers", "--boards", "3x1"], "--boards: 3x1: checkers board size must be 4..8"),
    (["checkers", "--boards", "5x3"], "--boards: 5x3: checkers rows of men"),
    (["checkers", "--gamma", "5"], "--gamma: must be in [0, 1]"),
    (["checkers", "--tol", "0"], "--tol: must be above 0"),
    (["checkers", "--jobs", "0"], "--jobs: must be at least 1"),
    (["checkers", "--timeout", "-1"], "--timeout: must be above 0"),
    (["checkers", "--max-states", "0"], "--max-states: must be at least 1"),
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
