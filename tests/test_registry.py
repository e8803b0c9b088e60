"""Every registered game checked the same way (like Gymnasium's ``check_env`` over its registry).

Parametrised over :func:`mdpviz.models.kit.game.registry.keys`, so a new game is checked with no edit here:
its default settings compile to a valid model, its settings round-trip through scenario data, its
lesson renders, its golden scenario entry survives the codec, a board game's position model walks
from the start to a terminal position, and value iteration, policy iteration and (small models) the
LP agree on its model. A game whose spec is not written yet (its module has no ``SPEC``) is skipped
with that reason; nothing else is.
"""
from __future__ import annotations

import functools
import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import mdpviz.models.kit.game.registry as registry
from mdpviz.core.examples import CS747_DIR
from mdpviz.models.kit.game.registry import GameSpec
from mdpviz.core.mdp import TabularMDP

GOLDEN = Path(__file__).parent / "data" / "golden"
TOKEN = "@EXAMPLES@"
"""Stands for the package's example folder in the golden files (as in test_golden_scenarios.py)."""

MAX_SOLVE_STATES = 60_000
"""Models up to this size are solved by value and policy iteration in the agreement test."""
MAX_LP_STATES = 2_000
"""Models up to this size are also solved by the LP."""
MAX_LP_TRANSITIONS = 250_000
"""...and up to this many transitions: the LP's rows are built in Python and CBC's time grows faster than
linearly with them (Jack's rental at its defaults, 441 states but 1,861,461 transitions, took 45-100 s in the
LP alone; at 12 cars and 4 moves, 213,109 transitions, 2.4 s). Jack's LP is checked at that size below."""
AGREE = 1e-6
"""Largest difference allowed between the solvers' values (value units)."""


def spec_of(key: str) -> GameSpec:
    """The game's spec, or a skip when its module does not define one yet."""
    try:
        return registry.get(key)
    except AttributeError:
        pytest.skip(f"{key}: no SPEC yet")


@functools.lru_cache(maxsize=None)
def compiled(key: str) -> tuple[object, TabularMDP | None]:
    """(default settings, their model), compiled once per test session."""
    spec = registry.get(key)
    settings = spec.default_settings()
    return settings, spec.compile(settings)


KEYS = registry.keys()


def _board_game_keys() -> list[str]:
    """Keys of the games with a position model, plus those without a spec yet (skipped in the test)."""
    out = []
    for k in KEYS:
        try:
            spec = registry.get(k)
        except AttributeError:
            out.append(k)
            continue
        if spec.display.position_model is not None:
            out.append(k)
    return out or ["(no board game)"]


@pytest.mark.parametrize("key", KEYS)
def test_spec_names_its_game(key):
    spec = spec_of(key)
    assert spec.key == key and registry.canonical(key) == key
    assert spec.title and spec.value_label and spec.unit
    assert registry.TITLES[key] == spec.title == registry.title(key)  # the picker's title, known unimported
    assert spec.display.color_kind in (registry.SEQUENTIAL, registry.DIVERGING)
    assert isinstance(spec.default_settings(), spec.settings_type)
    for alias in spec.aliases:
        assert registry.canonical(alias) == key


@pytest.mark.parametrize("key", KEYS)
def test_default_settings_compile_to_a_valid_model(key):
    spec = spec_of(key)
    settings, mdp = compiled(key)
    if mdp is None:
        assert spec.no_table, f"{key}: compile gave None but the spec does not say why (no_table)"
        return
    assert isinstance(mdp, TabularMDP)
    assert mdp.n_states > 0 and mdp.n_rows > 0
    row_sum = np.add.reduceat(np.asarray(mdp.prob), np.asarray(mdp.row_ptr[:-1])) if mdp.n_transitions else []
    assert np.allclose(row_sum, 1.0, atol=1e-9), "each (state, action)'s probabilities sum to 1"
    assert np.all((np.asarray(mdp.dst) >= 0) & (np.asarray(mdp.dst) < mdp.n_states))
    assert np.all(np.isfinite(mdp.reward)) and np.all(np.asarray(mdp.prob) > 0)
    per_state = mdp.actions_per_state
    assert np.all(per_state[mdp.terminal] == 0), "terminal states absorb: no actions"
    assert np.all(per_state[~mdp.terminal] > 0), "every other state has an action"
    assert 0.0 <= mdp.discount <= 1.0


@pytest.mark.parametrize("key", KEYS)
def test_settings_round_trip_through_scenario_data(key):
    spec = spec_of(key)
    settings = spec.default_settings()
    data = spec.to_dict(settings)
    assert isinstance(data, dict)
    again = json.loads(json.dumps(data, allow_nan=False))  # plain JSON data
    assert again == data
    if key not in COMPARED_BY_IDENTITY:
        assert spec.from_dict(again, "<test>") == settings
    assert spec.to_dict(spec.from_dict(again, "<test>")) == data


COMPARED_BY_IDENTITY = {
    "attt": "its settings hold the course's board files (Boards: 2,423-row arrays, compared by identity), "
            "so settings read back are equal through their scenario data only",
}


@pytest.mark.parametrize("key", KEYS)
def test_lesson_renders(key):
    spec = spec_of(key)
    settings, mdp = compiled(key)
    if spec.display.lesson is not None:
        lesson = spec.display.lesson(settings, mdp)
    else:
        from mdpviz.models.kit.teaching.lessons import lesson_for

        lesson = lesson_for(key, settings, mdp, title=spec.title)
    text = lesson.text()
    assert lesson.title and text.strip()
    assert "Bellman equation" in text
    # what a student reads is prose: no reStructuredText role left from a docstring (the gym lesson
    # used to open with ":func:`from_gymnasium` ... :class:`~mdpviz.core.mdp.TabularMDP`")
    import re

    for shown in (text, lesson.markdown()):
        assert not re.search(r":(func|class|meth|mod|data|attr):`", shown), key
    if mdp is not None:
        assert lesson.gamma == pytest.approx(mdp.discount)


@pytest.mark.parametrize("key", KEYS)
def test_golden_scenario_entry_survives_the_codec(key):
    spec = spec_of(key)
    path = GOLDEN / f"{key}.json"
    if not path.is_file():
        pytest.fail(f"no golden scenario {path.name} for {key}")
    doc = json.loads(path.read_text(encoding="utf-8").replace(TOKEN, str(CS747_DIR)))
    entry = doc["games"][key]
    back = spec.to_dict(spec.from_dict(entry, str(path)))
    assert back == {k: entry[k] for k in back if k in entry}
    assert set(back) <= set(entry), f"the codec writes keys the golden entry lacks: {set(back) - set(entry)}"
    assert set(entry) - set(back) <= set(spec.display.keys), "only display settings are left to the view"


@pytest.mark.parametrize("key", _board_game_keys())
def test_position_model_walks_from_the_start_to_the_end(key):
    from mdpviz.models.kit.boards.position import MODEL

    if key == "(no board game)":
        pytest.skip("no registered game has a position model")
    spec = spec_of(key)
    settings, mdp = compiled(key)
    pm = spec.display.position_model(settings, mdp)
    rng = np.random.default_rng(0)
    pos = pm.start()
    for _ in range(10_000):
        if pos.terminal:
            break
        moves = pm.moves(pos)
        assert moves, f"{key}: a position that is not over has no legal move"
        action = pm.reply(pos, rng) if pos.chooser == MODEL else moves[int(rng.integers(len(moves)))].action
        pos = pm.play(pos, action, rng).after
    assert pos.terminal, f"{key}: no terminal position within 10,000 moves"
    assert pm.moves(pos) == ()


@pytest.mark.parametrize("key", KEYS)
def test_value_iteration_policy_iteration_and_lp_agree(key):
    from mdpviz.solvers import solve

    spec_of(key)
    _, mdp = compiled(key)
    if mdp is None or mdp.n_states > MAX_SOLVE_STATES:
        pytest.skip(f"{key}: no model of at most {MAX_SOLVE_STATES:,} states")
    vi = solve(mdp, "vi", tol=1e-12, max_sweeps=1_000_000)
    pi = solve(mdp, "pi")
    assert vi.converged and pi.converged
    assert np.max(np.abs(np.asarray(vi.values) - np.asarray(pi.values))) <= AGREE
    if mdp.n_states <= MAX_LP_STATES and mdp.n_transitions <= MAX_LP_TRANSITIONS and not mdp.is_two_player:
        lp = solve(mdp, "lp")
        assert np.max(np.abs(np.asarray(lp.values) - np.asarray(pi.values))) <= AGREE


def test_value_iteration_policy_iteration_and_lp_agree_on_a_smaller_jack():
    """Jack's rental at 12 cars and 4 moves a night: the same dense model (Poisson rentals and returns, a
    move cost) that the defaults' agreement test above solves by VI and PI, small enough for the LP."""
    from mdpviz.solvers import solve

    spec = spec_of("jack")
    mdp = spec.compile(replace(spec.default_settings(), max_cars=12, max_move=4))
    assert mdp.n_transitions <= MAX_LP_TRANSITIONS and not mdp.is_two_player
    vi = solve(mdp, "vi", tol=1e-12, max_sweeps=1_000_000)
    pi = solve(mdp, "pi")
    lp = solve(mdp, "lp")
    assert vi.converged and pi.converged
    assert np.max(np.abs(np.asarray(vi.values) - np.asarray(pi.values))) <= AGREE
    assert np.max(np.abs(np.asarray(lp.values) - np.asarray(pi.values))) <= AGREE


def test_every_alias_is_known_before_any_game_is_imported():
    """canonical() reads the one ALIASES table: 'draughts' worked only after the checkers spec was loaded."""
    import subprocess
    import sys

    code = ("import sys, mdpviz.models.kit.game.registry as r; print(r.canonical('draughts'), r.canonical('anti-tictactoe'),"
            " [m for m in sys.modules if m.startswith('mdpviz.models.') and m.endswith('.spec')])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.split() == ["checkers", "attt", "[]"], out.stderr
    for key in registry.keys():
        for alias in registry.get(key).aliases:
            assert registry.normalise_key(alias) in {registry.normalise_key(a) for a in registry.ALIASES}, alias
