"""Scenario files written before the game registry (tests/data/golden, one per game) still load,
and saving them again gives the same bytes: the move of game logic changed no saved setting.

The anti-tic-tac-toe file names course files by absolute path; it is stored with the token
``@EXAMPLES@`` for the package's example folder and substituted here."""
from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from mdpviz.app import MainWindow
from mdpviz.core.examples import CS747_DIR

GOLDEN = Path(__file__).parent / "data" / "golden"
TOKEN = "@EXAMPLES@"


def golden_keys() -> list[str]:
    return sorted(p.stem for p in GOLDEN.glob("*.json"))


PRE_REGISTRY_GAMES = ("attt", "checkers", "file", "gridworld", "gym", "risk_ttt", "snakes", "ttt", "ttt3d")
"""The games whose scenario files were written before the registry existed: each has a golden file."""


def test_every_game_from_before_the_registry_has_a_golden_file_and_each_names_a_registered_game():
    from mdpviz.models.kit.game.registry import keys

    assert set(PRE_REGISTRY_GAMES) <= set(golden_keys())
    assert set(golden_keys()) <= set(keys())


@pytest.mark.parametrize("key", golden_keys())
def test_golden_scenario_saves_back_byte_identically(qtbot, tmp_path, key):
    text = (GOLDEN / f"{key}.json").read_text(encoding="utf-8").replace(TOKEN, str(CS747_DIR))
    src = tmp_path / f"{key}.json"
    src.write_text(text, encoding="utf-8")
    w = MainWindow(settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(w)
    try:
        w.files.load_scenario(src)
        out = tmp_path / "again.json"
        w.files.save_scenario(out)
        saved = __import__("json").loads(out.read_text(encoding="utf-8"))
        want = __import__("json").loads(text)
        assert saved["game"] == want["game"]
        assert saved["solver"] == want["solver"]
        assert saved["games"][key] == want["games"][key]
        # the same bytes for the game's own entry (the window saves every game; the others are defaults)
        one = tmp_path / "one.json"
        from mdpviz.models.kit.game.scenario import Scenario, save_scenario

        save_scenario(Scenario(game=saved["game"], games={key: saved["games"][key]}, solver=saved["solver"]), one)
        assert one.read_bytes() == src.read_bytes()
    finally:
        w.close()
