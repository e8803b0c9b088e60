"""Messages of issue 24, item 17: each bad option is named in one line with exit 2, and what a
user meant is taken (a negative first number of a list, a map file with a byte-order mark)."""
from __future__ import annotations

import os
import stat

import pytest

from mdpviz.cli import join_negative_values, main

FLAT = ",".join(["0"] * 15)


def run(capsys, argv: list[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(capsys, argv: list[str]) -> str:
    """The error line (argparse's own errors come after its usage lines, as for every option)."""
    code, out, err = run(capsys, argv)
    assert code == 2, (code, out, err)
    assert out == "" and "Traceback" not in err
    lines = err.strip().splitlines()
    assert lines[-1].startswith("mdpviz") and "error:" in lines[-1], err
    assert all(not line.startswith("mdpviz: error") for line in lines[:-1]), err
    return lines[-1]


@pytest.mark.parametrize("argv", [
    ["snakes", "--layout", FLAT, "--seed", "-1"],
    ["risk-ttt", "--seed", "-3"],
    ["checkers", "--seed", "x"],
])
def test_a_negative_or_bad_seed_is_named(capsys, argv):
    assert "argument --seed: a seed is a whole number >= 0" in one_line_error(capsys, argv)


def test_a_list_whose_first_number_is_negative_reaches_its_option(capsys):
    assert join_negative_values(["risk-ttt", "--risk", "-0.1,0.3"]) == ["risk-ttt", "--risk=-0.1,0.3"]
    assert join_negative_values(["gridworld", "--living-reward", "-.5"]) == ["gridworld", "--living-reward=-.5"]
    assert join_negative_values(["snakes", "--circle", "--json"]) == ["snakes", "--circle", "--json"]
    line = one_line_error(capsys, ["risk-ttt", "--risk", "-0.1,0.3,0.5,0.2,0.95,0.7,0.6,0.45,0.1"])
    assert "risk[0] = -0.1 (cell 0) is not a number in [0, 1]" in line  # not argparse's "expected one argument"


@pytest.mark.parametrize("argv", [
    ["plan", "--mdp", "episodic-mdp-2-2", "--tol", "0"],
    ["gridworld", "--tol", "-1"],
    ["export", "--game", "snakes", "--out", "x.png", "--tol", "0"],
])
def test_a_tolerance_of_zero_is_refused_before_any_sweep(capsys, argv):
    assert "argument --tol: must be above 0" in one_line_error(capsys, argv)


def test_overshoot_without_the_circular_board_is_not_silently_ignored(capsys):
    assert "--overshoot applies to the circular board only: add --circle" in one_line_error(
        capsys, ["snakes", "--layout", FLAT, "--overshoot", "wrap"])
    code, out, _ = run(capsys, ["snakes", "--layout", FLAT, "--circle", "--overshoot", "wrap", "--json"])
    assert code == 0 and '"overshoot": "wrap"' in out


def test_a_map_file_with_a_byte_order_mark_reads_as_every_other_reader_does(tmp_path, capsys):
    f = tmp_path / "bom.txt"
    f.write_bytes("\ufeffS . 1\n# . -1\n".encode("utf-8"))
    code, out, err = run(capsys, ["gridworld", "--grid", str(f), "--json"])
    assert code == 0, err
    assert '"value_grid"' in out


def test_a_scenario_save_makes_its_rename_durable(tmp_path, monkeypatch):
    from mdpviz.models.kit.game import scenario as sc

    synced: list[bool] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        synced.append(stat.S_ISDIR(os.fstat(fd).st_mode))
        real(fd)

    monkeypatch.setattr(sc.os, "fsync", fsync)
    sc.save_scenario(sc.Scenario(game="snakes"), tmp_path / "a.json")
    assert synced == [False, True]  # the file's data, then the folder's entry after the rename


@pytest.mark.parametrize("extra, says", [
    (["--csv", "{blocker}/a.csv"], "is not a folder"),
    (["--csv", "{tmp}"], "is a folder; give a file name for the CSV"),
    (["--lesson", "{tmp}/none/l.md"], "does not exist"),
])
def test_export_checks_every_output_before_writing_any(tmp_path, capsys, extra, says):
    blocker = tmp_path / "blocker"
    blocker.write_text("a file, not a folder", encoding="utf-8")
    fig = tmp_path / "fig.png"
    argv = ["export", "--game", "snakes", "--out", str(fig)] + [
        x.format(blocker=blocker, tmp=tmp_path) for x in extra]
    assert says in one_line_error(capsys, argv)
    assert not fig.exists()  # nothing left behind by a run that failed
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_export_refuses_a_folder_as_the_figure(tmp_path, capsys):
    d = tmp_path / "pictures.png"
    d.mkdir()
    assert "is a folder; give a file name for the figure" in one_line_error(
        capsys, ["export", "--game", "snakes", "--out", str(d)])


def test_a_text_output_that_cannot_be_written_names_itself_not_a_temporary_file(tmp_path):
    from mdpviz.export import write_text

    blocker = tmp_path / "blocker"
    blocker.write_text("x", encoding="utf-8")
    with pytest.raises(ValueError) as e:
        write_text(blocker / "a.csv", "1,2\n")
    assert str(e.value).startswith(f"{blocker / 'a.csv'}: cannot be written") and ".tmp" not in str(e.value)


def test_attt_iterate_stopped_by_its_round_cap_is_not_a_success(capsys):
    code, out, err = run(capsys, ["attt", "iterate", "--max-rounds", "1"])
    assert code == 1, (code, err)
    assert "not converged after 1 rounds (--max-rounds)" in out  # the round it did is still shown
    assert err.strip() == "mdpviz: not converged after 1 rounds: raise --max-rounds to go on (exit status 1)"
    code, out, err = run(capsys, ["attt", "iterate", "--json"])
    assert code == 0 and '"converged": true' in out and err == ""


def test_attt_commands_take_the_example_names_that_mdpviz_examples_prints(capsys):
    code, listing, _ = run(capsys, ["examples"])
    assert code == 0 and "p1_policy1" in listing and "states_file_p2" in listing
    code, out, err = run(capsys, ["attt", "encode", "--policy", "p1_policy1", "--states", "states_file_p2"])
    assert code == 0, err
    assert out.startswith("numStates ")
    code, out, err = run(capsys, ["attt", "iterate", "--start", "p1_policy1", "--states1", "states_file_p1",
                                  "--states2", "states_file_p2", "--json"])
    assert code == 0, err
