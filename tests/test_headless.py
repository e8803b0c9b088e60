"""Issue 34 item 3: one headless game object; the command line names no game outside the games' own
commands; the window's session and the game spec stay small."""
from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from mdpviz.models.kit.game import registry

ROOT = Path(__file__).resolve().parents[1]

GAMES_OWN_COMMANDS = {"snakes.py", "ttt.py", "checkers.py", "attt.py", "ttt3d.py", "gridworld.py", "gym.py",
                      "bandit.py"}  # (mdpviz bandit: the bandit game's own command, its exact modes on the belief MDP)
"""The games' own commands, which may name their game."""

BENCHMARKS = {"bench.py", "bench_table.py", "bench_learn.py", "bench_stalls.py", "bench_pg.py", "bench_bandit.py"}
"""The benchmarks time named games (their groups "snakes", "checkers" run those games' own ``bench``
commands, and the GUI rows switch to named games): left to the lead (issue 34 item 1 gives methods a
registry; benchmarks could be listed by the games' own command modules the same way)."""

MAX_SESSION_METHODS = 25
MAX_SPEC_FIELDS = 15


def test_the_commands_name_no_game_key_outside_the_games_own_commands():
    keys = set(registry.keys())
    found = []
    for path in sorted((ROOT / "mdpviz" / "commands").glob("*.py")):
        if path.name in GAMES_OWN_COMMANDS | BENCHMARKS:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in keys:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}")
    assert not found, "game keys named in mdpviz/commands (ask the spec or the game's cli.py):\n" + "\n".join(found)


def test_game_session_has_at_most_25_public_methods_and_the_spec_at_most_15_fields():
    from PySide6.QtCore import QObject

    from mdpviz.widgets.session import GameSession

    own = [n for n, v in vars(GameSession).items() if not n.startswith("_") and (callable(v) or isinstance(v, property))
           and not type(v).__name__ == "Signal"]
    assert not set(own) & set(dir(QObject)) - {"deleteLater"}, "no Qt method is shadowed"
    assert len(own) <= MAX_SESSION_METHODS, sorted(own)
    fields = [f.name for f in dataclasses.fields(registry.GameSpec)]
    assert len(fields) <= MAX_SPEC_FIELDS, fields
    for group in (registry.ModelHooks, registry.NameHooks, registry.EpisodeHooks, registry.DisplayHooks,
                  registry.ScenarioCodec):
        assert dataclasses.is_dataclass(group) and group.__dataclass_params__.frozen


@pytest.mark.parametrize("key", [k for k in registry.keys() if not registry.get(k).no_table
                                 and "compile" not in registry.get(k).jobs])
def test_the_headless_game_answers_as_the_window_session_does(qapp, key):
    """The session is a wrapper: the same settings give the same model, names, start state and default solve."""
    from mdpviz.models.kit.game.game_model import Game, solve_defaults
    from mdpviz.widgets.session import GameSession

    spec = registry.get(key)
    game = Game(spec)
    session = GameSession(spec)
    mdp = game.mdp()
    assert mdp is not None and session.mdp() is not None and session.mdp().n_states == mdp.n_states
    assert session.game.solve_defaults() == game.solve_defaults() == solve_defaults(spec, game.settings)
    assert session.start_state() == game.start_state()
    assert [session.state_name(s) for s in range(min(5, mdp.n_states))] == [game.state_name(s) for s in
                                                                              range(min(5, mdp.n_states))]
    assert game.to_dict() == session.to_dict()


def test_apply_replaces_the_settings_without_undo_and_builds_again():
    from dataclasses import replace

    from mdpviz.models.kit.game.game_model import Game

    game = Game(registry.get("snakes"))
    m0 = game.mdp()
    assert game.mdp() is m0  # cached while the settings stay
    game.apply(replace(game.settings, circle=True))
    assert game.settings.circle and game.mdp() is not m0


def test_a_compile_job_runs_here_for_the_headless_game_and_waits_for_the_window():
    """The command line's game drives the spec's compile job on its thread; the window's
    (``compile_here=False``) has no model until the job's result is kept."""
    from mdpviz.models.kit.game.game_model import Game

    spec = registry.get("jack")
    assert "compile" in spec.jobs
    waiting = Game(spec, compile_here=False)
    assert waiting.mdp() is None and waiting.mdp_error() == ""
    here = Game(spec)
    m = here.mdp()
    assert m is not None and m.n_states == 441
    waiting.keep(waiting.build_key(), here.built())
    assert waiting.mdp() is not None and waiting.mdp().n_states == 441


def test_every_game_options_module_lists_model_options():
    from mdpviz.models.kit.game.options import ModelOption, options_of

    flags = {}
    for key in registry.keys():
        for opt in options_of(key):
            assert isinstance(opt, ModelOption) and opt.flag.startswith("--")
            flags.setdefault(opt.flag, []).append(key)
    assert {"--layout", "--circle", "--mdp", "--grid", "--env", "--preset"} <= set(flags)
    assert flags["--agent"] == ["ttt", "checkers"]
