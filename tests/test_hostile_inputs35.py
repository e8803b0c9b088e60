"""Hostile inputs of issue 35 (items 12-20), headless: each refused with exit status 2 and one line naming
the option or field, before any large allocation, and a failing command writes nothing.

Cases run in-process through ``mdpviz.cli.main``; the FIFO cases run in a subprocess, whose timeout is
only a guard against the old behaviour (waiting for ever): the tests assert the exit status and message.
"""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from mdpviz.cli import json_safe, main
from mdpviz.core import files

REPO = Path(__file__).resolve().parents[1]


def one_line_error(capsys, argv: list[str]) -> str:
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2, (code, out, err)
    assert out == "" and "Traceback" not in err and "warning" not in err, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def _no_constants(name: str) -> None:
    raise AssertionError(f"{name} in JSON output")


# ------------------------------------------------------------------ 12: archives checked before inflating
def _bomb(path: Path, declared_elements: int, *, real_bytes: int) -> Path:
    """An .npz whose one entry declares ``declared_elements`` float64 and holds ``real_bytes`` of zeros."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        with z.open("param_W.npy", "w", force_zip64=True) as f:
            np.lib.format.write_array_header_1_0(f, {"descr": "<f8", "fortran_order": False,
                                                     "shape": (declared_elements,)})
            f.write(bytes(real_bytes))
    return path


def test_an_agent_archive_that_inflates_past_the_budget_is_refused_from_its_sizes(tmp_path, capsys):
    from mdpviz.models.ttt3d.learning import MAX_AGENT_BYTES

    bomb = _bomb(tmp_path / "bomb.npz", 3_000_000, real_bytes=24_000_000)  # 24 MB of zeros: 24 KB on disk
    assert bomb.stat().st_size < 100_000
    line = one_line_error(capsys, ["ttt3d", "eval", "--agent", str(bomb), "--games", "10"])
    assert line.startswith(f"mdpviz: error: --agent {bomb}: its entries would inflate to more than")
    assert f"{MAX_AGENT_BYTES:,} bytes" in line and "refused before decompressing" in line


def test_an_array_header_that_lies_about_its_shape_is_refused_without_allocating(tmp_path, capsys):
    liar = tmp_path / "liar.npz"
    b = io.BytesIO()
    np.lib.format.write_array_header_1_0(b, {"descr": "<f8", "fortran_order": False, "shape": (10**12,)})
    b.write(bytes(80))
    with zipfile.ZipFile(liar, "w") as z:
        z.writestr("param_W.npy", b.getvalue())
    line = one_line_error(capsys, ["ttt3d", "eval", "--agent", str(liar)])
    assert "--agent" in line and "8,000,000,000,000" in line
    assert files.check_archive_budget(liar, 10**13, ValueError) == 8 * 10**12  # the declared size, read only


def test_a_real_agent_is_far_under_the_budget(tmp_path):
    from mdpviz.models.ttt3d import learning as rl

    for approx, method in (("mlp", "td"), ("quadratic", "q")):
        s = rl.TrainSettings(approx=approx, method=method, hidden=rl.MAX_HIDDEN)
        path = rl.untrained_agent(s).save(tmp_path / f"{approx}.npz")
        assert files.check_archive_budget(path, rl.MAX_AGENT_BYTES, ValueError) < rl.MAX_AGENT_BYTES // 10
        assert rl.load_agent(path).settings == s


# ------------------------------------------------------------------ 13: --set values
def test_set_values_that_break_the_json_reader_are_one_line(capsys):
    deep = "[" * 50_000 + "]" * 50_000
    line = one_line_error(capsys, ["solve", "--game", "jack", "--set", f"request_means={deep}"])
    assert "--set request_means: JSON nested too deeply" in line
    line = one_line_error(capsys, ["solve", "--game", "jack", "--set", "rental_reward=" + "9" * 400])
    assert "--set rental_reward: an integer of 400 digits" in line


def test_a_reward_whose_product_overflows_is_refused_naming_the_field(capsys):
    line = one_line_error(capsys, ["solve", "--game", "jack", "--set", "rental_reward=1e308"])
    assert "rental_reward: 1e+308 does not fit" in line and "overflows float64" in line
    line = one_line_error(capsys, ["solve", "--game", "jack", "--set", "move_cost=-1e299"])
    assert "move_cost" in line and "does not fit" in line


def test_the_codec_refuses_an_integer_no_float_holds():
    from mdpviz.core.files import ScenarioError
    from mdpviz.models.kit.game import registry

    spec = registry.get("jack")
    data = spec.to_dict(spec.default_settings())
    data["rental_reward"] = 10**400
    with pytest.raises(ScenarioError, match="rental_reward: must be a finite number, got an integer of 401 digits"):
        spec.from_dict(data, "<test>")


# ------------------------------------------------------------------ 14: no non-finite result, JSON always valid
@pytest.mark.parametrize("initial", ["1e308", "-1e308", "nan"])
def test_learn_refuses_an_initial_value_beyond_float_precision(capsys, initial):
    line = one_line_error(capsys, ["learn", "--game", "gridworld", "--method", "q", "--episodes", "10",
                                   "--initial", initial])
    assert "--initial must be a finite number between -1e+15 and 1e+15" in line


def test_learn_refuses_values_that_overflow(capsys):
    line = one_line_error(capsys, ["learn", "--game", "gridworld", "--set", "living_reward=1e298", "--method", "q",
                                   "--episodes", "20"])
    assert "overflowed" in line and "scale the rewards down" in line
    line = one_line_error(capsys, ["learn", "--game", "gridworld", "--set", "living_reward=1e307", "--method", "q",
                                   "--episodes", "20"])
    assert "the values would overflow" in line


def test_learn_json_is_valid_json_with_an_optimistic_start(capsys):
    code = main(["learn", "--game", "gridworld", "--method", "q", "--episodes", "50", "--initial", "1e15", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    d = json.loads(out, parse_constant=_no_constants)
    assert d["rms_error"] is not None and all(np.isfinite(d["values"]))


def test_json_output_turns_nan_into_null_and_refuses_infinity():
    assert json_safe({"a": [1.0, float("nan"), np.float32(2.5)], "b": np.array([np.nan, 1.0])}) == {
        "a": [1.0, None, 2.5], "b": [None, 1.0]}
    with pytest.raises(ValueError, match=r"the result's curve\[1\]\.rms_error is inf"):
        json_safe({"curve": [{"rms_error": 1.0}, {"rms_error": float("inf")}]})


# ------------------------------------------------------------------ 15: training that diverges saves nothing
@pytest.mark.parametrize("approx", ["linear", "mlp"])
def test_training_stops_at_the_first_non_finite_weight_and_saves_nothing(tmp_path, capsys, approx):
    out = tmp_path / "a.npz"
    code = main(["ttt3d", "train", "--lr", "1e308", "--approx", approx, "--seed", "0", "--out", str(out),
                 "--episodes", "200", "--report-every", "100", "--eval-games", "10", "--final-games", "10", "--json"])
    stdout, err = capsys.readouterr()
    assert code == 2 and stdout == "" and len(err.strip().splitlines()) == 1, err
    assert err.startswith("mdpviz: error: --lr 1e+308 is too large: training diverged at episode ")
    assert "nothing saved" in err and "warning" not in err
    assert not out.exists() and list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------ 16: seeds checked at once
@pytest.mark.parametrize("argv", [
    ["learn", "--game", "gridworld", "--method", "q", "--episodes", "10", "--seed", "-1"],
    ["learn", "--game", "jack", "--method", "q", "--episodes", "10", "--seed", "x"],
])
def test_a_bad_seed_is_named_before_any_work(capsys, monkeypatch, argv):
    from mdpviz.commands import game_args

    def no_game(*a, **k):
        raise AssertionError("the game was built before the seed was checked")

    monkeypatch.setattr(game_args, "game_from_args", no_game)
    assert "--seed: a seed is a whole number >= 0" in one_line_error(capsys, argv)


# ------------------------------------------------------------------ 17: sensitivity
@pytest.mark.parametrize("extra, says", [
    (["--tol", "1e-300"], "--tol must be at least 1e-12"),
    (["--steps", "1000000000"], "--steps: 2..401 grid values"),
    (["--param2", "noise", "--from2", "0", "--to2", "0.5"], "--param2 must name another setting than --param"),
    (["--param2", "discount", "--from2", "0.5", "--to2", "0.9", "--steps", "1000"], "2..201 per axis"),
])
def test_sensitivity_bounds_are_checked_before_any_model(capsys, monkeypatch, extra, says):
    from mdpviz.models.kit.teaching import sensitivity as sv

    monkeypatch.setattr(sv, "build_at", lambda *a, **k: (_ for _ in ()).throw(AssertionError("built a model")))
    argv = ["sensitivity", "--game", "gridworld", "--param", "noise", "--from", "0", "--to", "0.5", *extra]
    assert says in one_line_error(capsys, argv)


def test_a_range_whose_width_overflows_is_refused(capsys):
    line = one_line_error(capsys, ["sensitivity", "--game", "gridworld", "--param", "living_reward",
                                   "--from", "-1e308", "--to", "1e308"])
    assert "--from/--to -1e+308 to 1e+308 is wider than float64 holds" in line


def test_no_switch_point_where_the_policy_is_the_same_on_both_sides(capsys):
    """Ties appear at discount exactly 1 (the range's end): the bisection used to report a switch at
    0.9999995 with an empty "at 1.000000:" line. A switch point is where the neighbouring intervals differ."""
    code = main(["sensitivity", "--game", "gridworld", "--param", "discount", "--from", "0.9", "--to", "1"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "1.000000" not in out.splitlines()[0] and "at 1.000000" not in out
    assert all(not line.rstrip().endswith(":") for line in out.splitlines())
    code = main(["sensitivity", "--game", "gridworld", "--param", "discount", "--from", "0.9", "--to", "1", "--json"])
    d = json.loads(capsys.readouterr().out, parse_constant=_no_constants)
    assert d["switch_points"] == [iv["from"] for iv in d["intervals"][1:]] and len(d["switch_points"]) == 3
    assert all(a["optimal_actions"] != b["optimal_actions"] for a, b in zip(d["intervals"], d["intervals"][1:]))
    assert main(["sensitivity", "--game", "gambler", "--param", "discount", "--from", "0.9", "--to", "1"]) == 0
    assert capsys.readouterr().out.startswith("gambler: discount from 0.9 to 1: 0 switch points")


def test_sensitivity_shows_progress_on_a_terminal(capsys, monkeypatch):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    code = main(["sensitivity", "--game", "gridworld", "--param", "noise", "--from", "0", "--to", "0.2",
                 "--steps", "3"])
    out, err = capsys.readouterr()
    assert code == 0 and out.startswith("gridworld: noise from 0 to 0.2")
    assert "noise = 0" in err and "Ctrl+C stops" in err and err.endswith("\r\x1b[K")  # erased at the end


# ------------------------------------------------------------------ 18: models that do not fit in memory
@pytest.mark.parametrize("argv, says", [
    (["solve", "--game", "jack", "--set", "max_cars=60"], "max_cars: must be in 1..30, got 60 (a larger model "
     "does not fit in memory"),
    (["solve", "--game", "gambler", "--set", "goal=10000"], "goal: must be in 2..3,000, got 10000 (a larger model "
     "does not fit in memory"),
])
def test_settings_beyond_memory_are_refused_before_allocating(capsys, argv, says):
    assert says in one_line_error(capsys, argv)


# ------------------------------------------------------------------ 19: FIFOs and devices
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize("argv, says", [
    (["solve", "--game", "ttt", "--policy", "{fifo}"], "--policy {fifo}: is a FIFO (named pipe), not a regular file"),
    (["solve", "--game", "file", "--mdp", "{fifo}"], "{fifo}: is a FIFO (named pipe), not a regular file"),
    (["gridworld", "--grid", "{fifo}"], "{fifo}: is a FIFO (named pipe), not a regular file"),
    (["plan", "--mdp", "{fifo}"], "{fifo}: is a FIFO (named pipe), not a regular file"),
    (["learn", "--game", "file", "--mdp", "{fifo}", "--method", "q", "--episodes", "5"], "{fifo}: is a FIFO"),
    (["ttt3d", "eval", "--agent", "{fifo}"], "--agent {fifo}: is a FIFO (named pipe), not a regular file"),
])
def test_a_fifo_is_refused_not_waited_on(tmp_path, argv, says):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    args = [a.replace("{fifo}", str(fifo)) for a in argv]
    r = subprocess.run([sys.executable, "-c", "import sys; from mdpviz.cli import main; sys.exit(main(sys.argv[1:]))",
                        *args], capture_output=True, text=True, cwd=REPO, timeout=300,
                       env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert r.returncode == 2 and r.stdout == "", (r.returncode, r.stderr)
    assert r.stderr.count("\n") == 1 and says.replace("{fifo}", str(fifo)) in r.stderr, r.stderr


def test_the_shared_check_names_what_a_path_is(tmp_path):
    with pytest.raises(ValueError, match="^is a directory, not an agent file$"):
        files.check_regular_file(tmp_path, ValueError, what="agent file")
    with pytest.raises(ValueError, match="^no such file$"):
        files.check_regular_file(tmp_path / "none", ValueError)
    if Path("/dev/null").exists():
        with pytest.raises(ValueError, match="^is a character device, not a regular file"):
            files.check_regular_file("/dev/null", ValueError)
    (tmp_path / "f").write_text("x")
    assert files.check_regular_file(tmp_path / "f", ValueError).st_size == 1


# ------------------------------------------------------------------ 20: a failing command writes nothing
def test_an_unwritable_csv_is_refused_before_the_figure_is_written(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    line = one_line_error(capsys, ["export", "--game", "snakes", "--out", "ok.png", "--csv", "/proc/x.csv"])
    assert line.startswith("mdpviz: error: --csv /proc/x.csv: cannot write in the folder /proc")
    assert list(tmp_path.iterdir()) == []


def test_a_write_that_fails_late_leaves_no_file_behind(tmp_path, capsys, monkeypatch):
    from mdpviz import export as ex

    real = ex.write_text

    def failing(path, text):
        if str(path).endswith(".csv"):
            raise ValueError(f"{path}: cannot be written (disk full)")
        return real(path, text)

    monkeypatch.setattr(ex, "write_text", failing)
    out, csv = tmp_path / "ok.png", tmp_path / "ok.csv"
    line = one_line_error(capsys, ["export", "--game", "gridworld", "--out", str(out), "--csv", str(csv),
                                   "--width", "320", "--height", "200"])
    assert line == f"mdpviz: error: {csv}: cannot be written (disk full)"  # the name given, not a temporary one
    assert list(tmp_path.iterdir()) == []
    monkeypatch.setattr(ex, "write_text", real)
    assert main(["export", "--game", "gridworld", "--out", str(out), "--csv", str(csv), "--width", "320",
                 "--height", "200"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ok.csv", "ok.png"]


def test_staged_files_appear_together_or_not_at_all(tmp_path):
    with files.StagedFiles() as stage:
        a = stage.path(tmp_path / "a.txt")
        a.write_text("a")
        frames = stage.folder(tmp_path / "frames")
        (frames / "f_0001.png").write_bytes(b"x")
    assert list(tmp_path.iterdir()) == []  # left without a commit: discarded
    with files.StagedFiles() as stage:
        stage.path(tmp_path / "a.txt").write_text("a")
        (stage.folder(tmp_path / "frames") / "f_0001.png").write_bytes(b"x")
        assert stage.commit() == [tmp_path / "a.txt", tmp_path / "frames" / "f_0001.png"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "frames"]
