"""The README screenshots are taken headless by a script in the repository (mdpviz.screenshots).

These tests run a fast subset (snakes and the MDP file, small simulations); the board games'
screenshot functions are exercised by their own test files (test_attt_game, test_ttt3d_game) and by
``python -m mdpviz.screenshots`` itself.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from mdpviz.controller import running_threads
from mdpviz.screenshots import CHAIN_SHOTS, DEFAULT_SIZE, LEARNING_SHOTS, SCREENSHOTS, SIZES, SIZE_1280x720, main, parse_games, screenshot_window


def test_every_game_of_the_registry_is_photographed_and_recipes_name_registered_games():
    from mdpviz.models.kit.game.registry import keys

    assert parse_games("all") == [*keys(), "sutton4x4", "sutton4x4-optimal", "ttt-ties", "snakes-ties"]  # (staged: Example 4.1's grid, ties)
    assert set(SCREENSHOTS) <= set(keys()) and set(LEARNING_SHOTS) <= set(keys()) and set(CHAIN_SHOTS) <= set(keys())


def test_games_are_picked_by_key():
    assert parse_games("snakes, ttt,snakes") == ["snakes", "ttt"]
    assert parse_games("Risk-TTT,risk_ttt") == ["risk_ttt"]
    with pytest.raises(ValueError, match=r"unknown game 'chess'; choose from snakes, file, ttt"):
        parse_games("snakes,chess")
    with pytest.raises(ValueError, match=r"\(none given\)"):
        parse_games(" , ")


def test_a_bad_games_option_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--games", "chess"])
    assert e.value.code == 2
    assert "--games: unknown game 'chess'" in capsys.readouterr().err


def test_screenshot_script_writes_the_chosen_games_at_their_stated_sizes(qapp, tmp_path, capsys):
    out = tmp_path / "shots"
    assert main(["--out", str(out), "--games", "snakes,file", "--sim-games", "200"]) == 0
    captured = capsys.readouterr()
    paths = [Path(p) for p in captured.out.split()]
    # every game at each size of SIZES (issue 13), then the README gallery
    per_size = [(folder, f"{key}.png") for key in ("snakes", "file") for folder in SIZES]
    assert [(p.parent.name, p.name) for p in paths[:6]] == per_size
    for p in paths[:6]:
        size, _presenter = SIZES[p.parent.name]
        assert (QImage(str(p)).width(), QImage(str(p)).height()) == size
    gallery = [p for p in paths[6:] if p.parent.parent.name not in ("learning", "chain")]
    assert [p.name for p in gallery] == ["solving.png", "simulation.png", "presenter-1280x720.png",
                                         "policy-iteration.png"]
    assert all(p.parent == out for p in gallery)
    sizes = {p.name: (QImage(str(p)).width(), QImage(str(p)).height()) for p in gallery}
    assert sizes == {"solving.png": DEFAULT_SIZE, "simulation.png": DEFAULT_SIZE,
                     "presenter-1280x720.png": SIZE_1280x720, "policy-iteration.png": DEFAULT_SIZE}
    # snakes learning in progress (LEARNING_SHOTS) at each size, after its gallery
    learning = [p for p in paths[6:] if p.parent.parent.name == "learning"]
    assert [(p.parent.name, p.name) for p in learning] == [(folder, "snakes.png") for folder in SIZES]
    # snakes' chain of backups (CHAIN_SHOTS) at each size, after its learning pictures
    chain = [p for p in paths[6:] if p.parent.parent.name == "chain"]
    assert [(p.parent.name, p.name) for p in chain] == [(folder, "snakes.png") for folder in SIZES]
    assert paths[6:] == gallery[:3] + learning + chain + gallery[3:]
    for p in learning + chain:
        assert (QImage(str(p)).width(), QImage(str(p)).height()) == SIZES[p.parent.name][0]
    assert "16 pictures in" in captured.err
    files = sorted(p for p in out.rglob("*") if p.is_file())
    assert files == sorted(paths)  # nothing else (no settings file) in the folder
    assert running_threads() == []


def test_the_shot_window_reports_its_simulation_and_sizes(qapp, tmp_path):
    with screenshot_window(tmp_path) as sw:
        w = sw.window
        assert w.game.key == "snakes" and w.dialogs.errors == []
        sw.solve()
        with pytest.raises(ValueError, match=r"does not take 50 games, seed 7 \(its range is 100\.\.1000000 games\)"):
            sw.simulate(50, seed=7)  # below the panel's minimum: refused, not silently run with 100
        sw.simulate(100, seed=7)
        assert w.playing.sim_panel.games.value() == 100 and w.playing.sim_panel.seed.value() == 7
        assert w.playing.sim_result is not None
        path = sw.shot("x.png", size=(1300, 760), settle=0.05)
    assert path == tmp_path / "x.png" and sw.saved == [path]
    assert (sw.shots[0].size, sw.shots[0].actual) == ((1300, 760), (1300, 760))
    img = QImage(str(path))
    assert (img.width(), img.height()) == (1300, 760)
    assert running_threads() == []
