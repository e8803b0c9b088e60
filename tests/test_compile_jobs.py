"""Every compile off the GUI thread (issue 34 item 3; issue 35 item 8's stalls): every game's model is built
by one compile job (:meth:`mdpviz.models.kit.game.game_model.Game.compile_job`) that the window's session
hands to the controller's job thread, whether the game is shown, edited or opened from a scenario; a model
built before for the same build key is shown at once, without a job; Step and Run pressed meanwhile wait
for it; a newer edit supersedes the older compile; nothing marks the scenario unsaved when nothing was edited.
"""
from __future__ import annotations

import threading
from dataclasses import replace

import pytest

from mdpviz.models.kit.game import registry
from mdpviz.widgets.games import view_class
from tests.conftest import LAYOUT, SMALL_MDP, make_window, wait_model


def _recording_spec(spec, calls: list):
    """``spec`` whose compile, build and compile job note the thread they run on in ``calls``."""
    def noted(fn, what):
        if fn is None:
            return None

        def call(*args, **kwargs):
            calls.append((what, threading.get_ident()))
            return fn(*args, **kwargs)
        return call

    jobs = dict(spec.jobs)
    if "compile" in jobs:
        orig = jobs["compile"]

        def compile_job(inp):
            calls.append(("job", threading.get_ident()))
            return (yield from orig(inp))
        jobs["compile"] = compile_job
    return replace(spec, compile=noted(spec.compile, "compile"), jobs=jobs,
                   model=replace(spec.model, build=noted(spec.model.build, "build")))


def _edit(g, tmp_path) -> None:
    """One edit of game ``g``'s settings that builds a new model."""
    s = g.session
    if g.key == "file":
        from mdpviz.models import file as mf

        p = tmp_path / "small.txt"
        p.write_text(SMALL_MDP)
        state, _parsed = mf.read_file(p)  # (the state only: its model is built by the session's compile job)
        assert s.edit(state, "opened small.txt")
    elif g.key == "snakes":
        assert s.edit(replace(s.settings, circle=True), "circle")
    elif g.key in ("risk_ttt", "attt"):
        assert s.edit(replace(s.settings, seed=s.settings.seed + 1), "seed")
    elif not s.spec.no_table:  # (the 3D game has no table: nothing to build, whatever its settings)
        assert s.game.supports_discount and s.set_discount(0.8)


@pytest.mark.parametrize("key", registry.keys())
def test_every_games_compile_runs_on_the_job_thread_never_on_the_gui_thread(qtbot, tmp_path, monkeypatch, key):
    calls: list[tuple[str, int]] = []
    spec = _recording_spec(registry.get(key), calls)
    monkeypatch.setattr(view_class(key), "spec", spec)
    started = []
    w = make_window(qtbot, tmp_path / "settings.ini")
    try:
        real_start = w.controller.start_job
        monkeypatch.setattr(w.controller, "start_job", lambda job: started.append(job.label) or real_start(job))
        gui = threading.get_ident()
        w.switch_game(key)
        g = w.game
        assert g.session.spec is spec
        wait_model(w, qtbot)
        _edit(g, tmp_path)
        assert not g.session.building or w.controller.mdp is None  # (building: the solver waits, no model)
        m = wait_model(w, qtbot)
        on_gui = [what for what, ident in calls if ident == gui]
        assert on_gui == [], f"{key}: {on_gui} ran on the GUI thread"
        if spec.no_table:
            assert calls == [] and m is None  # nothing to build
        else:
            assert calls, f"{key}: no compile ran"
            assert any("compiling" in label for label in started)  # through the controller's run_job path
            if key not in ("gym",) or m is not None:  # (gym without gymnasium: no model, and says why)
                assert m is not None and w.controller.mdp is m
                if g.session.game.supports_discount and key != "file":
                    assert m.discount == pytest.approx(0.8)
    finally:
        w.shutdown()


def test_a_model_built_before_is_shown_at_once_without_a_job(qtbot, window):
    g = window.game
    first = window.controller.mdp
    assert first is not None and first is g.session.mdp()
    assert g.session.edit(replace(g.session.settings, circle=True), "circle")
    assert g.session.building and window.controller.mdp is None  # a new model: built on the job thread
    wait_model(window, qtbot)
    window.act_undo.trigger()  # back to the settings built first: kept, shown at once
    assert not g.session.building and window.controller.mdp is first and not window.controller.job_busy


def test_step_and_run_pressed_while_the_model_builds_are_queued(qtbot, window):
    g = window.game
    assert g.session.edit(replace(g.session.settings, circle=True), "circle")
    assert g.session.building and window.controller.mdp is None
    window.solving.update_buttons()
    assert window.solver_panel.step.isEnabled()  # Step can be pressed while the model builds
    window.solving.step()
    assert "Step starts when the model is compiled" in window.statusBar().currentMessage()
    assert not window.solver_panel.step.isEnabled() and not window.solver_panel.run.isEnabled()  # queued once
    qtbot.waitUntil(lambda: len(window.controller.history) == 1, timeout=30_000)
    assert window.controller.mdp is g.session.mdp() and g.session.settings.circle
    assert g.session.edit(replace(g.session.settings, layout=LAYOUT), "layout")
    with qtbot.waitSignal(window.controller.finished, timeout=60_000):
        window.solving.run_solver()
        assert "Run starts when the model is compiled" in window.statusBar().currentMessage()
    assert window.controller.solution is not None and window.controller.mdp is g.session.mdp()


def test_a_newer_edit_supersedes_the_compile_of_an_older_one(qtbot, window):
    g = window.game
    s = g.session
    first = replace(s.settings, circle=True)
    assert s.edit(first, "circle")
    assert s.edit(replace(first, overshoot="wrap"), "overshoot wrap")  # before the first edit's model is built
    m = wait_model(window, qtbot)
    assert m is s.mdp() and s.settings.overshoot == "wrap" and window.controller.mdp is m
    assert "overshoot wrap" in window.statusBar().currentMessage()


def test_showing_a_game_or_opening_a_course_file_marks_nothing_unsaved(qtbot, window, small_file):
    assert not window.files.dirty
    for key in ("jack", "gridworld", "gambler", "snakes"):
        window.switch_game(key)  # (Jack's car rental puts its own algorithm, policy iteration, in the panel)
        wait_model(window, qtbot)
        assert not window.files.dirty, key
        assert not window.windowTitle().endswith("*"), key
    window.files.open_mdp_file(small_file)
    wait_model(window, qtbot)
    assert window.game.key == "file" and window.controller.mdp is not None
    assert not window.files.dirty and not window.windowTitle().endswith("*")


def test_a_game_job_asked_for_while_its_model_builds_runs_when_the_model_arrives(qtbot, window):
    """Risk tic-tac-toe's exact solve pressed right after a change of board size (its model still building):
    the solve waits for the compile and then runs; the model arriving is not an edit that cancels it."""
    window.switch_game("risk_ttt")
    wait_model(window, qtbot)
    g = window.game
    g.set_size(4)
    assert window.stage.session.building
    g.solve_exact()
    ed = g.editor()
    qtbot.waitUntil(lambda: ed.progress.maximum() > 1 and ed.progress.value() > 0, timeout=120_000)
    assert g.solving and not window.stage.session.building
    g.session.cancel_job()
    qtbot.waitUntil(lambda: not g.solving and not window.controller.job_busy, timeout=60_000)
