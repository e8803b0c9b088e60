"""What the window builds before its first paint, and what it leaves for later (issue 15: time to the
first painted window). No timing here: the time itself is ``mdpviz bench gui``'s row."""
from __future__ import annotations

import json
import os
import subprocess
import sys

from PySide6.QtGui import QFontMetricsF

from mdpviz.models.kit.game import registry
from mdpviz.widgets.games import view_module
from mdpviz.window.parts import GAME_DOCK_EM
from tests.conftest import make_window


def test_the_window_builds_only_what_is_on_screen_at_start(qtbot, tmp_path):
    w = make_window(qtbot, tmp_path / "s.ini")
    try:
        assert [g.key for g in w.stage.games.built()] == ["snakes"]  # the other games' views: on first use
        assert len(w.stage.games) == len(registry.keys())
        assert [w.stage.game_picker.itemData(i) for i in range(w.stage.game_picker.count())] == list(registry.keys())
        assert [w.stage.game_picker.itemText(i) for i in range(w.stage.game_picker.count())] == [
            registry.get(k).title for k in registry.keys()]
        assert w.stage.shared_simulation is None and w.stage.built_compare_panel is None  # pages behind the board
        assert w.classroom._lesson_stale  # the Lesson tab is behind the Inspector: not written yet
        assert not w.controller._warmed  # the kernels load after the first paint
        # asking for them builds them (what the tests and the window's own code do)
        assert "snakes" in w.classroom.lesson_panel.browser.toPlainText().lower() and not w.classroom._lesson_stale
        assert w.stage.simulation.objectName() == "simulationPanel"
        assert w.stage.compare_panel.objectName() and w.stage.compare_panel is w.stage.pages["compare"].findChild(type(w.stage.compare_panel))
        g = w.stage.game_by_key("ttt")
        assert [x.key for x in w.stage.games.built()] == ["snakes", "ttt"] and g in w.stage.games
    finally:
        w.shutdown()


def test_deferred_parts_are_built_when_shown(qtbot, tmp_path):
    w = make_window(qtbot, tmp_path / "s.ini", size=(1366, 768), show=True)
    try:
        qtbot.waitUntil(lambda: w.controller._warmed, timeout=10_000)  # started once the board was painted
        assert w.classroom._lesson_stale
        w.lesson_dock.raise_()
        qtbot.waitUntil(lambda: not w.classroom._lesson_stale, timeout=5_000)
        assert "snakes" in w.hub.lesson_panel.browser.toPlainText().lower()
        w.stage.central_tabs.setCurrentIndex(w.stage.central_tabs.indexOf(w.stage.pages["compare"]))
        assert w.stage.built_compare_panel is not None and w.stage.built_compare_panel.isVisible()
        w.stage.central_tabs.setCurrentIndex(w.stage.central_tabs.indexOf(w.stage.pages["simulation"]))
        assert w.stage.shared_simulation is not None and w.stage.sim_stack.currentWidget() is w.stage.shared_simulation
        w.stage.game_picker.setCurrentIndex(list(registry.keys()).index("gridworld"))  # built on selection
        assert w.game.key == "gridworld" and w.game in w.stage.games.built()
        assert w.stage.editor_stack.currentWidget() is w.stage._editors["gridworld"]
    finally:
        w.shutdown()


def test_every_editor_fits_the_game_dock(qtbot, tmp_path):
    """The Game dock keeps one width whatever the game: every editor fits the design width (so building
    the editors when their game is first shown changes no layout)."""
    w = make_window(qtbot, tmp_path / "s.ini")
    try:
        design = round(QFontMetricsF(w.font()).averageCharWidth() * GAME_DOCK_EM)
        assert w.stage.game_scroll.minimumWidth() == design
        for key in registry.keys():
            w.switch_game(key)
            need = w.stage.game_scroll.widget().minimumSizeHint().width() + 16
            assert need <= design, f"{key}'s editor needs {need} px, the Game dock's design width is {design} px"
            assert w.stage.game_scroll.minimumWidth() == design
    finally:
        w.shutdown()


def test_a_saved_scenario_has_every_game_and_loading_it_builds_them(qtbot, tmp_path):
    w = make_window(qtbot, tmp_path / "s.ini")
    try:
        assert not w.files.dirty
        p = w.files.save_scenario(tmp_path / "all.json")
        assert set(json.loads(p.read_text())["games"]) == set(registry.keys())
    finally:
        w.shutdown()
    w2 = make_window(qtbot, tmp_path / "s2.ini")
    try:
        w2.files.load_scenario(p)
        assert {g.key for g in w2.stage.games.built()} == set(registry.keys()) and not w2.files.dirty
    finally:
        w2.shutdown()


_IMPORTS = r"""
import os, sys, json
os.environ["QT_QPA_PLATFORM"] = "offscreen"
os.environ["MDPVIZ_SETTINGS_ORG"] = "mdpviz-tests-startup"
from PySide6.QtWidgets import QApplication
app = QApplication([])
from mdpviz.app import MainWindow
w = MainWindow()
print(json.dumps(sorted(sys.modules)))
os._exit(0)
"""


def test_building_the_window_imports_no_other_game_and_no_compiler():
    """The window's construction (before its first paint) imports neither the other games' views and
    rules nor numba (the sweep kernels load on the job thread after the
    first paint)."""
    env = dict(os.environ)
    cp = subprocess.run([sys.executable, "-c", _IMPORTS], capture_output=True, text=True, env=env, timeout=120)
    assert cp.returncode == 0, cp.stderr
    mods = set(json.loads(cp.stdout.strip().splitlines()[-1]))
    assert "mdpviz.widgets.games.snakes" in mods
    for key in registry.keys():
        if key != "snakes":
            assert view_module(key) not in mods, key
            assert registry.spec_module(key) not in mods, key
    for heavy in ("numba", "llvmlite", "mdpviz.solvers._numba_kernels"):
        assert heavy not in mods, heavy


def test_a_step_that_waits_for_the_first_compile_says_so(qtbot, tmp_path, monkeypatch):
    """On a fresh install the first Step waits 10-15 s while numba compiles the sweep kernels (the
    window's warm-up job): the solver panel says so instead of "ready"."""
    from mdpviz.solvers import kernels

    w = make_window(qtbot, tmp_path / "s.ini")
    try:
        qtbot.waitUntil(lambda: w.controller.state == "ready", timeout=60_000)
        c = w.controller
        monkeypatch.setattr(c, "state", "stepping")  # a Step asked for, no sweep yet
        monkeypatch.setattr(kernels, "ready", lambda: False)
        w.solving.update_status(None)
        text = w.solver_panel.status.text()
        assert "preparing the compiled solver" in text and kernels.FIRST_COMPILE_S in text
        monkeypatch.setattr(c, "method", "lp")  # LP waits for CBC, not for these kernels
        w.solving.update_status(None)
        assert w.solver_panel.status.text().endswith(": ready")
        monkeypatch.setattr(c, "method", "vi")
        monkeypatch.setattr(kernels, "ready", lambda: True)
        w.solving.update_status(None)
        assert w.solver_panel.status.text().endswith(": ready")
    finally:
        w.shutdown()


def test_kernels_ready_never_imports_numba_and_follows_the_warm_up(monkeypatch):
    from mdpviz.solvers import kernels

    kernels.warm_up()  # (compiled once per session by the test setup: loads at once)
    assert kernels.ready()
    monkeypatch.setattr(kernels, "_state", {})  # a process that has not loaded them yet
    assert not kernels.ready()
    assert kernels._state == {}  # asking did not load them
    monkeypatch.setenv("MDPVIZ_NO_NUMBA", "1")
    assert kernels.ready()  # nothing to wait for: the numpy reference runs
