"""The window under abuse (issue 14): bad scenarios are one message, MDP files load on the job thread
with progress and Cancel, examples open from the File menu, saves keep permissions and symlinks,
solver settings are unsaved edits."""
from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from mdpviz.core.examples import MDP_DIR, mdp_examples
from mdpviz.models.kit.game.scenario import Scenario, load_scenario, save_scenario
from tests.conftest import open_scenario_via_menu


def _scenario_doc(**over) -> dict:
    d = Scenario(game="snakes").to_json()
    d.update(over)
    return d


def open_scenario_through_the_menu(window, path: Path, qtbot) -> None:
    open_scenario_via_menu(window, qtbot, path)  # never raises: every failure is one message


@pytest.mark.parametrize("case", ["deep", "long-version", "huge-model", "binary", "deep-game"])
def test_bad_scenarios_are_one_message_and_change_nothing(window, qtbot, tmp_path, case, capsys):
    p = tmp_path / f"{case}.json"
    if case == "deep":
        p.write_text("[" * 100_000 + "]" * 100_000)
    elif case == "long-version":
        p.write_text(json.dumps(_scenario_doc()).replace('"version": 1', '"version": ' + "9" * 5000))
    elif case == "huge-model":
        text = ("numStates 1000000000\nnumActions 2\nend -1\ntransition 0 0 0 1 1\n"
                "mdptype continuing\ndiscount 0.9\n")
        p.write_text(json.dumps(_scenario_doc(game="file", games={"file": {"path": "x.txt", "text": text}})))
    elif case == "binary":
        p.write_bytes(b"\x00\xff" * 100)
    else:
        p.write_text('{"format": "mdpviz-scenario", "version": 1, "game": "snakes", "games": {"snakes": '
                     + '{"dice": ' + "[" * 50_000 + "]" * 50_000 + "}}}")
    before = window.files.scenario().to_json()
    open_scenario_through_the_menu(window, p, qtbot)
    assert len(window.dialogs.errors) == 1
    title, msg = window.dialogs.errors[0]
    assert title == "Cannot open scenario" and str(p) in msg and "\n" not in msg
    assert "Traceback" not in capsys.readouterr().err
    assert window.files.scenario().to_json() == before
    if case == "huge-model":
        assert "state budget" in msg and "MDPVIZ_MAX_STATES" in msg
    if case == "long-version":
        assert "5,000 digits" in msg


def test_scenario_save_keeps_permissions_and_writes_through_a_symlink(tmp_path):
    real = tmp_path / "real.json"
    save_scenario(Scenario(game="snakes"), real)
    real.chmod(0o644)
    link = tmp_path / "link.json"
    link.symlink_to(real)
    save_scenario(Scenario(game="file"), link)
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert stat.S_IMODE(real.stat().st_mode) == 0o644
    assert load_scenario(real).game == "file"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "real.json"]  # no temporary left
    real.chmod(0o640)
    save_scenario(Scenario(game="snakes"), real)
    assert stat.S_IMODE(real.stat().st_mode) == 0o640 and not real.is_symlink()


def test_a_new_scenario_gets_the_usual_permissions(tmp_path):
    p = tmp_path / "new.json"
    save_scenario(Scenario(game="snakes"), p)
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(p.stat().st_mode) == 0o666 & ~umask


def test_changing_only_solver_settings_is_an_unsaved_edit(window, tmp_path):
    assert not window.files.dirty
    other = "pi" if window.solver_panel.method != "pi" else "vi"
    window.solver_panel.set_method(other)
    assert window.files.dirty and window.windowTitle().endswith("*")
    p = tmp_path / "s.json"
    window.files.save_scenario(p)
    assert not window.files.dirty
    window.solver_panel.set_tolerance(window.solver_panel.tol * 10)
    assert window.files.dirty
    window.files.load_scenario(p)
    assert not window.files.dirty and window.solver_panel.method == other


def test_open_example_menu_lists_the_course_files(window, qtbot):
    names = [e.name for e in mdp_examples()]
    assert sorted(window.files.example_actions) == sorted(names)
    window.files.example_actions["episodic-mdp-2-2"].trigger()
    g = window.stage.game_by_key("file")
    qtbot.waitUntil(lambda: window.game is g and g.fstate.text != "", timeout=60_000)
    assert Path(g.fstate.path) == MDP_DIR / "episodic-mdp-2-2.txt"
    assert window.dialogs.errors == []


def _large_file(path: Path, n: int = 40_000) -> Path:
    lines = [f"numStates {n}", "numActions 2", "end -1"]
    for s in range(n):
        lines.append(f"transition {s} 0 {(s + 1) % n} 1 1")
        lines.append(f"transition {s} 1 {(s * 7 + 3) % n} 0.5 1")
    lines += ["mdptype continuing", "discount 0.9"]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_an_mdp_file_is_read_on_the_job_thread_with_progress(window, qtbot, tmp_path):
    p = _large_file(tmp_path / "big.txt")
    seen = []
    window.controller.job_progress.connect(lambda d, t, text: seen.append(text))
    assert window.files.open_mdp_file_in_background(p)  # returns at once; the parse runs on the job thread
    g = window.stage.game_by_key("file")
    assert g.fstate.path != str(p)
    qtbot.waitUntil(lambda: g.fstate.path == str(p), timeout=120_000)
    assert window.game is g and g.session.mdp().n_states == 40_000
    assert any("big.txt" in t for t in seen)
    assert window.dialogs.errors == []


def test_opening_an_mdp_file_can_be_cancelled(window, qtbot, tmp_path, monkeypatch):
    p = _large_file(tmp_path / "big.txt")
    monkeypatch.setattr("mdpviz.core.cs747.PROGRESS_LINES", 1000)
    window.files.open_mdp_file_in_background(p)
    window.playing.cancel_game_job()
    qtbot.waitUntil(lambda: not window.controller.job_busy, timeout=120_000)
    assert window.stage.game_by_key("file").fstate.path != str(p)
    assert window.dialogs.errors == []


def test_a_bad_mdp_file_in_the_background_is_one_message(window, qtbot, tmp_path):
    p = tmp_path / "bad.txt"
    p.write_text("numStates 100000000\nnumActions 1\nend -1\ntransition 0 0 0 1 1\nmdptype continuing\ndiscount 0.9\n")
    window.dialogs.open_path = str(p)
    window.files.open_mdp_dialog()
    qtbot.waitUntil(lambda: bool(window.dialogs.errors), timeout=60_000)
    title, msg = window.dialogs.errors[0]
    assert title == "Cannot open MDP file" and f"{p}:1:" in msg and "state budget" in msg
