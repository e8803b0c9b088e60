"""Issue 35 items 2 and 3: a grid-world map brings its own rules (the user's edits stay with the map they
were made on), and choosing a game, a map or an algorithm starts the lesson at sweep 0 with Step ready
(live re-solve answers edits only). No timing: qtbot.waitUntil on the models and the controller."""
from __future__ import annotations

import pytest

from mdpviz.models.gridworld.rules import BUILTIN_MAPS, GridSettings, with_map

from .conftest import make_window, wait_model


@pytest.fixture
def win(qtbot, tmp_path):
    w = make_window(qtbot, tmp_path / "settings.ini", live=True)
    yield w
    w.shutdown()


def rules(st: GridSettings) -> tuple:
    return (st.noise, st.living_reward, st.discount, st.convention)


def choose_map(w, name: str) -> None:
    """The Map picker of the grid world's editor, as a click chooses it."""
    ed = w.stage.editor_stack.currentWidget()
    i = ed.map.findData(name)
    ed.map.setCurrentIndex(i)
    ed.map.activated.emit(i)


def at_sweep_zero(w) -> bool:
    """The lesson's start: no sweep made, Step ready, the shown model loaded."""
    c = w.controller
    return c.mdp is w.session.mdp() and not c.history and c.state == "ready" and c.can_step \
        and w.solver_panel.step.isEnabled()


def settle(qtbot, w) -> None:
    """The shown model built and loaded, and every job the change started ended (a live re-solve would
    have run by then: the controller stays "ready" only if none started)."""
    wait_model(w, qtbot)
    qtbot.waitUntil(lambda: w.controller.state != "running" and not w.session.building, timeout=60_000)
    for _ in range(3):  # the queued signals of the model's arrival
        qtbot.wait(1)  # (processes events; not a timing assumption: the state is read after, below)
    wait_model(w, qtbot)


def test_a_map_brings_its_own_rules_and_keeps_its_edits(qtbot, win):
    w = win
    w.switch_game("gridworld")
    settle(qtbot, w)
    fresh_book = rules(w.game.settings)
    assert fresh_book == rules(GridSettings())
    choose_map(w, "sutton4x4")
    settle(qtbot, w)
    assert rules(w.game.settings) == rules(with_map(GridSettings(), BUILTIN_MAPS["sutton4x4"]))
    assert w.live.live_diff is None  # a map change is not diffed as an edit
    w.game.set_living_reward(-2.0)  # the user's own edit of the 4x4 map
    settle(qtbot, w)
    choose_map(w, "book")
    settle(qtbot, w)
    assert rules(w.game.settings) == fresh_book  # the book grid's own defaults, not the 4x4 map's
    assert w.game.settings.grid == BUILTIN_MAPS["book"]
    assert w.live.live_diff is None
    w.game.set_noise(0.3)
    settle(qtbot, w)
    choose_map(w, "sutton4x4")  # back: the edit made on it is there
    settle(qtbot, w)
    assert w.game.settings.living_reward == -2.0 and w.game.settings.noise == 0.0
    assert w.game.settings.discount == 1.0
    choose_map(w, "book")
    settle(qtbot, w)
    assert w.game.settings.noise == 0.3 and w.game.settings.living_reward == 0.0
    # a map change is one undo step: undo goes back to the 4x4 map and its rules
    w.act_undo.trigger()
    settle(qtbot, w)
    assert w.game.settings.grid.name == "sutton4x4" and w.game.settings.living_reward == -2.0


def test_choosing_a_map_starts_the_lesson_at_sweep_zero(qtbot, win):
    w = win
    w.switch_game("gridworld")
    settle(qtbot, w)
    choose_map(w, "sutton4x4")
    settle(qtbot, w)
    assert w.solver_panel.method != "vi"  # the 4x4 map's lesson: evaluating the random policy
    assert at_sweep_zero(w), (w.controller.state, len(w.controller.history))
    w.solving.step()
    qtbot.waitUntil(lambda: len(w.controller.history) >= 1, timeout=60_000)
    # an edit still re-solves live
    w.game.set_living_reward(-2.0)
    settle(qtbot, w)
    qtbot.waitUntil(lambda: w.controller.state == "converged", timeout=60_000)


def test_choosing_a_game_starts_the_lesson_at_sweep_zero(qtbot, win):
    w = win
    w.switch_game("gridworld")
    settle(qtbot, w)
    choose_map(w, "sutton4x4")
    settle(qtbot, w)
    w.switch_game("snakes")
    settle(qtbot, w)
    assert at_sweep_zero(w), (w.controller.state, len(w.controller.history))
    w.switch_game("gambler")
    settle(qtbot, w)
    assert at_sweep_zero(w), (w.controller.state, len(w.controller.history))
    w.switch_game("gridworld")
    settle(qtbot, w)
    assert at_sweep_zero(w), (w.controller.state, len(w.controller.history))


def test_choosing_an_algorithm_starts_the_lesson_at_sweep_zero(qtbot, win):
    w = win
    w.switch_game("gridworld")
    settle(qtbot, w)
    w.game.set_living_reward(-0.5)  # an edit: re-solved live
    settle(qtbot, w)
    qtbot.waitUntil(lambda: w.controller.state == "converged", timeout=60_000)
    for m in ("pi", "vi"):
        w.solver_panel.set_method(m)
        settle(qtbot, w)
        assert w.solver_panel.method == m
        assert at_sweep_zero(w), (m, w.controller.state, len(w.controller.history))
