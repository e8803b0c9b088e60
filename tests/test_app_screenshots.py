"""The README screenshots are taken headless by a script in the repository (mdpviz.screenshots)."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QImage

from mdpviz.controller import running_threads
from mdpviz.screenshots import main


def test_screenshot_script_writes_every_picture(qapp, tmp_path, capsys):
    assert main(["--out", str(tmp_path / "shots"), "--games", "1000"]) == 0
    paths = [Path(p) for p in capsys.readouterr().out.split()]
    assert [p.name for p in paths] == ["solving.png", "simulation.png", "policy-iteration.png",
                                       "presenter-1280x720.png"]
    sizes = {p.name: (QImage(str(p)).width(), QImage(str(p)).height()) for p in paths}
    assert sizes["solving.png"] == (1366, 820) and sizes["simulation.png"] == (1366, 820)
    assert sizes["presenter-1280x720.png"] == (1280, 720)
    assert running_threads() == []
