"""Figures for slides (mdpviz.export) and ``mdpviz export``: files exist, open and have exactly the
requested size (PNG read back with QImage; SVG: the root's width, height and viewBox)."""
from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QImage
from PySide6.QtSvg import QSvgRenderer

from mdpviz import export as ex
from mdpviz.cli import main
from mdpviz.commands.export import export_view
from mdpviz.models import snakes as sn
from mdpviz.models.kit.pictures.value_range import reference_range
from mdpviz.solvers import solve
from mdpviz.widgets.games.snakes import SnakesGame

LAYOUT = "0,0,3,0,2,0,1,0,3,0,0,1,0,4,0"


def png_size(path: Path) -> tuple[int, int]:
    img = QImage(str(path))
    assert not img.isNull(), f"{path} does not open as an image"
    return img.width(), img.height()


def svg_size(path: Path) -> tuple[str, str, str]:
    root = ET.parse(path).getroot()
    assert root.tag.endswith("svg")
    r = QSvgRenderer(str(path))
    assert r.isValid()
    return root.get("width"), root.get("height"), root.get("viewBox")


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["export", *argv])
    out, err = capsys.readouterr()
    return code, out, err


# ---------------------------------------------------------------------------------- the command line
def test_cli_writes_the_snakes_snapshot_at_exactly_the_size(qapp, capsys, tmp_path):
    out = tmp_path / "lesson.png"
    code, text, err = run_cli(capsys, "--game", "snakes", "--layout", LAYOUT, "--out", str(out),
                              "--width", "800", "--height", "450")
    assert code == 0, err
    assert png_size(out) == (800, 450)
    expec, _ = sn.markovDecision(np.array([int(x) for x in LAYOUT.split(",")]), False)
    assert f"V(square 1) = {expec[0]:.10g}" in text  # solved with the game's defaults (VI, tol 1e-9)
    assert f"wrote lesson snapshot {out} (800 x 450 PNG)" in text
    img = QImage(str(out))
    colours = {img.pixelColor(x, y).name() for x in range(0, 800, 23) for y in range(0, 450, 17)}
    assert len(colours) > 8  # a picture (board colours, text), not a blank page


def test_cli_svg_has_the_requested_size(qapp, capsys, tmp_path):
    out = tmp_path / "lesson.svg"
    code, _, err = run_cli(capsys, "--game", "snakes", "--out", str(out), "--width", "1000", "--height", "600")
    assert code == 0, err
    assert svg_size(out) == ("1000", "600", "0 0 1000 600")
    r = QSvgRenderer(str(out))
    assert (r.defaultSize().width(), r.defaultSize().height()) == (1000, 600)
    assert "<text" in out.read_text() or "<path" in out.read_text()


def test_cli_default_size_and_json(qapp, capsys, tmp_path):
    out = tmp_path / "d.png"
    code, text, err = run_cli(capsys, "--game", "snakes", "--out", str(out), "--json", "--method", "pi")
    assert code == 0, err
    assert png_size(out) == (1600, 900)
    import json

    info = json.loads(text)
    assert info["method"] == "pi" and info["converged"] and info["files"] == [str(out)]
    assert info["start_value"] == pytest.approx(float(sn.markovDecision(np.zeros(15), False)[0][0]), abs=1e-9)


def test_cli_results_csv_and_lesson(qapp, capsys, tmp_path):
    out, res, les = tmp_path / "b.png", tmp_path / "values.csv", tmp_path / "lesson.md"
    hist = tmp_path / "h.csv"
    code, text, err = run_cli(capsys, "--game", "snakes", "--layout", LAYOUT, "--figure", "board", "--out", str(out),
                              "--width", "640", "--height", "360", "--csv", str(res), "--lesson", str(les),
                              "--history", str(hist))
    assert code == 0, err
    sweeps = list(csv.DictReader(io.StringIO(hist.read_text())))
    assert sweeps[-1]["converged"] == "True" and float(sweeps[-1]["delta"]) < 1e-9
    assert png_size(out) == (640, 360)
    rows = list(csv.DictReader(io.StringIO(res.read_text())))
    assert len(rows) == 15
    sol = solve(sn.compile_snakes(sn.SnakesSettings(layout=tuple(int(x) for x in LAYOUT.split(",")))), "vi", tol=1e-9)
    assert [float(r["value"]) for r in rows] == sol.values.tolist()
    assert [int(r["action"]) for r in rows] == sol.policy.tolist()
    assert rows[0]["name"] == "square 1" and rows[14]["terminal"] == "True" and rows[14]["action_name"] == ""
    md = les.read_text(encoding="utf-8")
    assert md.startswith("## Snakes and ladders") and "\u03b3 = 1" in md


def test_cli_other_figures(qapp, capsys, tmp_path):
    code, _, err = run_cli(capsys, "--game", "snakes", "--figure", "convergence", "--out", str(tmp_path / "c.svg"),
                           "--width", "700", "--height", "400")
    assert code == 0, err
    assert svg_size(tmp_path / "c.svg") == ("700", "400", "0 0 700 400")
    code, text, err = run_cli(capsys, "--game", "snakes", "--figure", "compare", "--out", str(tmp_path / "k.png"),
                              "--width", "700", "--height", "400", "--csv", str(tmp_path / "k.csv"))
    assert code == 0, err
    assert png_size(tmp_path / "k.png") == (700, 400)
    assert "All 4 methods agree" in text
    assert (tmp_path / "k.csv").read_text().splitlines()[0].startswith("method,name,sweeps")


def test_cli_frames_one_png_per_sweep(qapp, capsys, tmp_path):
    folder = tmp_path / "frames"
    code, text, err = run_cli(capsys, "--game", "snakes", "--figure", "frames", "--method", "pi",
                              "--out", str(folder), "--width", "400", "--height", "240")
    assert code == 0, err
    files = sorted(folder.glob("sweep_*.png"))
    sol = solve(sn.compile_snakes(sn.SnakesSettings()), "pi", record=True)
    assert len(files) == len(sol.history)  # every snapshot (policy iteration: evaluate and improve)
    assert files[0].name == "sweep_0001.png"
    assert all(png_size(f) == (400, 240) for f in files)


@pytest.mark.parametrize("argv, message", [
    (["--game", "snakes", "--out", "x.jpg"], "export as .png or .svg, not '.jpg'"),
    (["--game", "snakes", "--out", "x.png", "--width", "100"], "width 100 is outside 320..10000"),
    (["--game", "ttt", "--layout", "0", "--out", "x.png"], "--layout applies to --game snakes only"),
    (["--game", "chess", "--out", "x.png"], "unknown game 'chess'"),
    (["--game", "snakes", "--noise", "0.1", "--out", "x.png"], "--noise applies to --game gridworld only"),
    (["--game", "gridworld", "--set", "noise=2", "--out", "x.png"], "--game gridworld: noise"),
    (["--game", "snakes", "--layout", "0,0,x", "--out", "x.png"], "--layout item 3 'x' is not a whole number"),
    (["--game", "snakes", "--layout", "1,0,0,0,0,0,0,0,0,0,0,0,0,0,0", "--out", "x.png"], "square 1, the start"),
    (["--game", "snakes", "--out", "x.png", "--lesson", "l.txt"], "write the lesson as .md or .html"),
])
def test_cli_errors_are_one_line_and_exit_2(qapp, capsys, tmp_path, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("mdpviz: error: ") and message in err and "Traceback" not in err
    assert not (tmp_path / "x.png").exists()


@pytest.mark.parametrize("key", ["ttt", "risk-ttt", "Risk_TTT", "attt", "anti-tic-tac-toe", "checkers", "grid"])
def test_every_spelling_of_a_key_builds_only_that_games_view(qapp, key):
    from mdpviz.models.kit.game.registry import canonical

    g = export_view(key)
    try:
        assert g.key == canonical(key)
    finally:
        g.deleteLater()


def test_a_game_without_a_table_or_an_unknown_key_is_refused_in_one_line(qapp):
    with pytest.raises(ValueError, match="cannot be exported: .*3\\^27"):
        export_view("ttt3d")
    with pytest.raises(ValueError, match="unknown game 'chess'; choose one of snakes, file"):
        export_view("chess")


@pytest.mark.parametrize("key", ["ttt", "risk-ttt"])
def test_cli_exports_the_board_games(qapp, capsys, tmp_path, key):
    out = tmp_path / f"{key}.png"
    code, text, err = run_cli(capsys, "--game", key, "--out", str(out), "--width", "640", "--height", "360")
    assert code == 0, err
    assert png_size(out) == (640, 360)
    assert "converged" in text


# ---------------------------------------------------------------------------------- library functions
def test_solve_game_and_snapshot_index(qapp, tmp_path):
    g = SnakesGame()
    solved = ex.solve_game(g, method="vi", tol=1e-6)
    assert solved.tol == 1e-6 and solved.history[-1].converged
    # the window's rule: a small model's scale spans its optimal values (not the run's values plus 0)
    ref = reference_range(solved.mdp)
    assert solved.value_range == ref and (solved.lo, solved.hi) == (ref.lo, ref.hi) and solved.lo > 0
    assert solved.hi == pytest.approx(float(solved.history[-1].values[~solved.mdp.terminal].max()), abs=1e-5)
    facts = dict(ex.snapshot_facts(g, solved, index=2))
    assert facts["Shown"].startswith(f"snapshot 3 of {len(solved.history)}")
    assert facts["V(square 1)"].startswith(f"{float(solved.history[2].values[0]):.6g}")
    p = ex.export_lesson_snapshot(g, solved, tmp_path / "s.png", width=960, height=540, index=2)
    assert png_size(p) == (960, 540)
    with pytest.raises(ValueError, match="sweep index 99"):
        ex.export_board(g, solved, tmp_path / "b.png", index=99)


def test_model_headless_runs_a_games_background_job(qapp):
    """A game whose spec compiles in a job (as checkers does): the export runs the job here, no window."""
    from dataclasses import replace

    from mdpviz.core.jobs import JobProgress
    from mdpviz.widgets.session import GameSession

    ran = []

    def compile_job(cfg):
        ran.append(cfg)
        yield JobProgress(0, 0, "compiling")
        return sn.compile_snakes(cfg)

    spec = replace(sn.SPEC, jobs={**sn.SPEC.jobs, "compile": compile_job}, model=replace(sn.SPEC.model, build_key=lambda cfg: cfg))
    g = SnakesGame(GameSession(spec))

    class Busy:  # a window's controller whose job thread is busy: the compile waits for it
        current_job = None

        def start_job(self, job):
            return False

    g.session.runner = Busy()
    assert g.session.mdp() is None  # (in a window the job runs on the job thread)
    assert ex.model_headless(g).n_states == 15 and ran == [g.session.settings]


def test_pure_helpers(tmp_path):
    assert ex.check_size(1600, 900) == (1600, 900)
    with pytest.raises(ValueError, match="height 50"):
        ex.check_size(800, 50)
    with pytest.raises(ValueError, match="whole number"):
        ex.check_size(800.5, 450)
    with pytest.raises(ValueError, match="whole number"):
        ex.check_size(float("inf"), 450)
    assert ex.frame_indices(5, 300) == [0, 1, 2, 3, 4]
    idx = ex.frame_indices(1000, 10)
    assert idx[0] == 0 and idx[-1] == 999 and len(idx) == 10
    assert [p.name for p in ex.sequence_paths(tmp_path / "anim.png", 2)] == ["anim_0001.png", "anim_0002.png"]
    assert ex.sequence_paths(tmp_path / "dir", 1)[0] == tmp_path / "dir" / "sweep_0001.png"
    with pytest.raises(ValueError, match="PNG files"):
        ex.sequence_paths(tmp_path / "a.gif", 2)
    svg = '<?xml version="1.0"?>\n<svg width="10mm" height="5mm"\n viewBox="0 0 3 4" xmlns="x">\n</svg>'
    fixed = ex.set_svg_size(svg, 640, 360)
    assert 'width="640" height="360"' in fixed and 'viewBox="0 0 640 360"' in fixed
    hist = solve(sn.compile_snakes(sn.SnakesSettings()), "vi", record=True).history
    rows = list(csv.reader(io.StringIO(ex.convergence_csv(hist))))
    assert len(rows) == len(hist) + 1 and float(rows[1][4]) == hist[0].delta


def test_a_game_that_compiles_in_a_background_job_exports_headless(qapp, capsys, tmp_path):
    """Checkers compiles through its spec's compile job; the export steps it on this thread."""
    out = tmp_path / "checkers.png"
    code, text, err = run_cli(capsys, "--game", "checkers", "--figure", "board", "--out", str(out),
                              "--width", "640", "--height", "360")
    assert code == 0, err
    assert out.exists() and "Checkers: value iteration" in text


def test_the_file_game_exports_a_shipped_example_by_name(qapp, capsys, tmp_path):
    out = tmp_path / "file.png"
    code, text, err = run_cli(capsys, "--game", "file", "--mdp", "episodic-mdp-10-5", "--figure", "board",
                              "--out", str(out), "--width", "640", "--height", "360")
    assert code == 0, err
    assert out.exists()


def test_export_takes_the_shared_grammar_and_builds_no_view_to_compute(qapp, capsys, tmp_path, monkeypatch):
    """``mdpviz export`` reads the game as ``mdpviz solve`` does (a game's model options, ``--set``) and
    computes with the headless game: a figure without the board builds no view of the game."""
    import mdpviz.widgets.games as views

    def no_view(key):
        raise AssertionError(f"a view of {key!r} was built to compute")

    monkeypatch.setattr(views, "view_class", no_view)
    out = tmp_path / "c.png"
    code, text, err = run_cli(capsys, "--game", "gridworld", "--grid", "bridge", "--noise", "0", "--set",
                              "living_reward=-0.5", "--figure", "convergence", "--out", str(out), "--json",
                              "--width", "640", "--height", "360", "--csv", str(tmp_path / "v.csv"))
    assert code == 0, err
    info = json.loads(text)
    assert info["game"] == "gridworld" and info["converged"] and out.exists()
    from mdpviz.commands.game_args import headless_game_from_args
    from mdpviz.cli import build_parser

    args = build_parser(["export"]).parse_args(["export", "--game", "gridworld", "--grid", "bridge", "--noise", "0",
                                                "--set", "living_reward=-0.5", "--out", "x.png"])
    game = headless_game_from_args(args)
    assert game.settings.noise == 0 and game.settings.living_reward == -0.5
    assert (tmp_path / "v.csv").read_text().count("\n") == game.mdp().n_states + 1


def test_export_command_exits_cleanly_in_its_own_process(tmp_path):
    """A grader's script runs ``mdpviz export`` as a process and reads its exit status: the
    command must end with 0, not a crash while Python tears Qt down (the game view used to be
    left to ``deleteLater`` with no event loop to run it: a segfault at exit in about half the runs).
    Several runs, since the crash came at random."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    for i in range(4):
        out = tmp_path / f"snakes{i}.svg"
        cp = subprocess.run([sys.executable, "-m", "mdpviz.cli", "export", "--game", "snakes", "--out", str(out)],
                            capture_output=True, text=True, env=env, timeout=300)
        assert cp.returncode == 0, (cp.returncode, cp.stderr[-2000:])
        assert out.is_file()


def test_export_polls_no_event_loop_and_sleeps_nowhere():
    """Issue 23 item 5: export compiles through the spec and uses Qt only to paint: no event-loop
    polling and no sleeps in its source (posted events are delivered by ``settle``, a bounded step)."""
    import ast
    import inspect

    from mdpviz import export

    tree = ast.parse(inspect.getsource(export))
    calls = {n.func.attr for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)}
    assert "processEvents" not in calls and "sleep" not in calls and "exec" not in calls
