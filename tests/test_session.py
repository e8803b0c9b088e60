"""The window's generic game session (:mod:`mdpviz.widgets.session`) and the views it leaves to draw.

Every registered game's view draws and edits only: what it could ask its spec for is its session's,
so no view defines a method that forwards to the spec. The session is built from the spec alone:
settings and their undo stack, the model (built once per key where the spec says so), scenario
data with its display settings, the discount rules, and jobs, which go to the window's runner.
"""
from __future__ import annotations

from dataclasses import replace

import pytest

from mdpviz.models import file as mf
from mdpviz.models import snakes as sn
from mdpviz.models.kit.game import registry
from mdpviz.models.kit.game.scenario import ScenarioError
from mdpviz.widgets.game import Game
from mdpviz.widgets.games import view_class
from mdpviz.widgets.session import REFUSED, GameSession
from tests.conftest import SMALL_MDP

FORWARDING = ("to_dict", "load_dict", "simulation_job", "strategies", "strategy_probs", "lesson", "episode")
"""What a view once forwarded to its spec by hand (each is the session's now)."""


@pytest.mark.parametrize("key", registry.keys())
def test_a_view_defines_no_method_that_forwards_to_its_spec(key):
    view = view_class(key)
    assert issubclass(view, Game) and view.spec is registry.get(key)
    for cls in view.__mro__:
        if cls is Game or issubclass(cls, Game):
            defined = sorted(set(FORWARDING) & set(vars(cls)))
            assert not defined, f"{cls.__qualname__} (view of {key}) defines {defined}"


def test_edits_undo_and_a_loaded_state(qapp):
    s = GameSession(sn.SPEC)
    seen = []
    s.edited.connect(seen.append)
    first = s.settings
    m0 = s.mdp()
    assert s.mdp() is m0  # cached while the settings stay
    assert not s.edit(first, "nothing")  # the same settings: no edit
    new = replace(first, circle=True)
    assert s.edit(new, "circle") and s.settings is new and seen == ["circle"] and s.mdp() is not m0
    s.undo_stack.undo()
    assert s.settings is first and seen[-1] == "undid: circle"
    s.load_state(new)
    assert s.settings is new and s.undo_stack.isClean() and not s.undo_stack.canUndo() and len(seen) == 2


def test_the_discount_is_the_specs_to_fix_or_to_edit(qapp):
    s = GameSession(sn.SPEC)
    assert not s.game.supports_discount and not s.set_discount(0.5) and s.mdp().discount == 1.0
    assert s.game.discount_tooltip() == "Turns are counted, not discounted: the discount is 1."
    f = GameSession(mf.SPEC)
    assert f.game.supports_discount and f.game.discount_tooltip() == ""
    with pytest.raises(ValueError, match="discount must be in"):
        f.set_discount(1.5)


def test_a_course_file_is_parsed_once_whatever_its_discount(qapp, tmp_path):
    """The file game builds per (path, text): a new discount swaps it into the parsed model."""
    p = tmp_path / "small.txt"
    p.write_text(SMALL_MDP)
    state, parsed = mf.read_file(p)
    s = GameSession(mf.SPEC, mf.FileSettings())
    assert s.mdp() is None and s.mdp_error() == ""  # no file: no model, and no error
    s.game.prime(state, parsed)  # parsed off the GUI thread
    assert s.edit(state, "opened") and s.built() is parsed and s.mdp() is parsed
    assert s.set_discount(0.5) and s.settings.discount == 0.5
    assert s.built() is parsed and s.mdp().discount == 0.5  # not parsed again
    assert s.set_discount(0.9) and s.settings.discount is None  # the file's own discount: None in the scenario
    assert s.start_state() == 0 and s.state_name(2) == "state 2"  # the first live state; the spec's names


def test_scenario_data_carries_the_display_settings_after_the_settings(qapp, tmp_path):
    s = GameSession(mf.SPEC, mf.FileSettings())
    assert s.display == {"view": "grid", "start": None}
    s.set_display("view", "graph")
    data = s.to_dict()
    assert list(data) == ["path", "text", "discount", "view", "start"] and data["view"] == "graph"
    with pytest.raises(ScenarioError, match=r"games\.file\.view"):
        s.load_dict({**data, "view": "cube"}, "x.json")
    other = GameSession(mf.SPEC, mf.FileSettings())
    other.load_state(other.load_dict(data, "x.json"))
    other.load_display(data)
    assert other.display == s.display


def test_without_a_runner_a_job_is_refused_and_told_so(qapp):
    from mdpviz.core.jobs import Job

    s = GameSession(sn.SPEC)
    failed, notes = [], []
    s.message.connect(notes.append)
    assert not s.run_job(Job(lambda: iter(()), on_failed=failed.append))
    assert failed == [REFUSED] and notes == [REFUSED] and not s.job_running


def test_simulation_and_episode_come_from_the_spec(qapp):
    import numpy as np

    from mdpviz.core.jobs import drive

    s = GameSession(sn.SPEC)
    assert s.game.strategies()[:3] == ["optimal", "security", "normal"]
    with pytest.raises(ValueError, match="at least 2 games"):
        s.game.simulation(None, games=1, seed=0)
    result = drive(s.game.simulation(None, games=50, seed=1))
    assert result.unit == "turns" and [r.name for r in result.rows][:2] == ["optimal", "security"]
    moves = s.game.episode(s.game.strategy_probs("security", None), np.random.default_rng(0))
    assert moves and moves[-1].next_state == sn.N_SQUARES - 1 and s.game.outcome_text(moves[-1].next_state).startswith(
        "finished: reached square 15")
    assert s.state_name(0) == "square 1" and s.action_name(1) == "die 2 (normal)"
