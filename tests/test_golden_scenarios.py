"""Scenario files written before the game registry (tests/data/golden, one per game) still load,
and saving them again gives the same bytes: the move of game logic changed no saved setting.

The anti-tic-tac-toe file names course files by absolute path; it is stored with the token
``@EXAMPLES@`` for the package's example folder and substituted here."""
from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from mdpviz.app import MainWindow
from mdpviz.models.examples import CS747_DIR

GOLDEN = Path(__file__).parent / "data" / "golden"
TOKEN = "@EXAMPLES@"


def golden_keys() -> list[str]:
    return sorted(p.stem for p in GOLDEN.glob("*.json"))


def test_there_is_a_golden_file_per_game(qtbot, tmp_path):
    w = MainWindow(settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(w)
    try:
        assert sorted(g.key for g in w.games) == golden_keys()
    finally:
        w.close()


@pytest.mark.parametrize("key", golden_keys())
def test_golden_scenario_saves_back_byte_identically(qtbot, tmp_path, key):
    text = (GOLDEN / f"{key}.json").read_text(encoding="utf-8").replace(TOKEN, str(CS747_DIR))
    src = tmp_path / f"{key}.json"
    src.write_text(text, encoding="utf-8")
    w = MainWindow(settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(w)
    try:
        w.load_scenario(src)
        out = tmp_path / "again.json"
        w.save_scenario(out)
        saved = __import__("json").loads(out.read_text(encoding="utf-8"))
        want = __import__("json").loads(text)
        assert saved["game"] == want["game"]
        assert saved["solver"] == want["solver"]
        assert saved["games"][key] == want["games"][key]
        # the same bytes for the game's own entry (the window saves every game; the others are defaults)
        one = tmp_path / "one.json"
        from mdpviz.scenario import Scenario, save_scenario

        save_scenario(Scenario(game=saved["game"], games={key: saved["games"][key]}, solver=saved["solver"]), one)
        assert one.read_bytes() == src.read_bytes()
    finally:
        w.close()
