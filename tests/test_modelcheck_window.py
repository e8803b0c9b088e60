"""File > Export model and a DRN file opened in the window (issue 29), driven through the window's own
methods with its stand-in dialogs."""
from __future__ import annotations

import numpy as np

from mdpviz.core import modelcheck as mc
from mdpviz.solvers import solve


def wait_job(qtbot, window) -> None:
    qtbot.waitUntil(lambda: not window.controller.job_busy, timeout=60_000)


def test_export_model_then_open_it_as_a_file(qtbot, window, tmp_path):
    path = tmp_path / "snakes.drn"
    window.dialogs.save_path = str(path)
    window.files.export_model_dialog()  # the shown game: snakes
    wait_job(qtbot, window)
    assert not window.dialogs.errors
    assert path.is_file() and (tmp_path / "snakes.props").is_file()
    assert "snakes.drn" in window.statusBar().currentMessage()
    ours = window.game.session.game.context().mdp
    window.dialogs.open_path = str(path)
    window.files.open_mdp_dialog()
    wait_job(qtbot, window)
    assert not window.dialogs.errors
    assert window.game.key == "file"
    ctx = window.game.session.game.context()
    assert ctx.mdp.n_states == ours.n_states and ctx.mdp.objective == "min"
    assert np.allclose(solve(ctx.mdp, "pi").values, solve(ours, "pi").values, atol=1e-9)
    assert window.game.spec.episodes.start_state(ctx) == mc.drn_start(path.read_text())


def test_export_model_as_prism_and_refusals(qtbot, window, tmp_path):
    window.dialogs.save_path = str(tmp_path / "m.tra")
    window.files.export_model_dialog()
    wait_job(qtbot, window)
    assert not window.dialogs.errors
    assert all((tmp_path / f"m{sfx}").is_file() for sfx in (*mc.PRISM_SUFFIXES, ".props"))
    assert not window.files.export_model(tmp_path / "m.csv")
    assert "not '.csv'" in window.dialogs.errors[-1][1]
    window.switch_game("risk_ttt")
    qtbot.waitUntil(lambda: window.game.session.game.context().mdp is not None, timeout=120_000)
    assert not window.files.export_model(tmp_path / "risk.drn")
    assert window.dialogs.errors[-1][1] == mc.TWO_PLAYER
    assert not (tmp_path / "risk.drn").exists()
