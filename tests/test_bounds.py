"""Numbers a user types are bounded before anything of their size is built (issue 24, item 16): one
line, exit 2, and memory bounded by a budget, never by the number typed."""
from __future__ import annotations

import pytest

from mdpviz import cli
from mdpviz.cli import main
from mdpviz.models.checkers.compiler import TRANSITIONS_PER_STATE, check_budgets
from mdpviz.core.mdp import state_budget
from mdpviz.models.ttt3d.learning import MAX_HIDDEN, TrainSettings


def one_line_error(capsys, argv: list[str]) -> str:
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2, (code, out, err)
    assert out == "" and "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


@pytest.mark.parametrize("size, says", [
    ("1", "the board side must be at least 2, got 1"),
    ("5", "9.3 TB of memory"),
    ("100", "2 x 3^10000 (about 10^4771)"),
    ("1000000000", "about 10^477121254719662464"),
])
def test_risk_board_sizes_beyond_the_exact_solver_are_refused_at_once(capsys, size, says):
    assert says in one_line_error(capsys, ["risk-ttt", "--size", size])


def test_checkers_budgets_are_capped_by_the_state_budget(capsys, monkeypatch):
    monkeypatch.delenv("MDPVIZ_MAX_STATES", raising=False)
    assert "over the state budget of 5,000,000" in one_line_error(
        capsys, ["checkers", "--max-states", str(10**12), "--max-transitions", str(10**13)])
    assert "over the transition budget of 30,000,000" in one_line_error(
        capsys, ["checkers", "--max-transitions", str(10**13)])
    monkeypatch.setenv("MDPVIZ_MAX_STATES", "10000000")  # raising the state budget raises both
    check_budgets(10_000_000, TRANSITIONS_PER_STATE * 10_000_000)
    assert state_budget() == 10_000_000
    with pytest.raises(ValueError, match="transition budget of 60,000,000"):
        check_budgets(10_000_000, TRANSITIONS_PER_STATE * 10_000_000 + 1)


def test_the_network_size_is_capped(capsys, tmp_path):
    TrainSettings(approx="mlp", hidden=MAX_HIDDEN)
    with pytest.raises(ValueError, match="hidden must be at most 1,024 units"):
        TrainSettings(approx="mlp", hidden=MAX_HIDDEN + 1)
    line = one_line_error(capsys, ["ttt3d", "train", "--approx", "mlp", "--hidden", "100000000", "--episodes", "1",
                                   "--seed", "1", "--out", str(tmp_path / "a.npz")])
    assert "hidden must be at most 1,024 units, got 100,000,000" in line
    assert not (tmp_path / "a.npz").exists()


def test_running_out_of_memory_anywhere_is_one_line(capsys, monkeypatch):
    def greedy_for_memory(args):
        raise MemoryError("Unable to allocate 7.45 GiB for an array with shape (1000000000,)")

    monkeypatch.setattr(cli, "_run", greedy_for_memory)
    line = one_line_error(capsys, ["examples"])
    assert line.startswith("mdpviz: error: out of memory")
