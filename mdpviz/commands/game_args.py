"""One command-line grammar for every game: ``--game KEY [model options] [--set FIELD=VALUE ...]``.

The commands that work on any game of the registry (``mdpviz solve``, ``mdpviz learn``, ``mdpviz
export-model``, ...) take the game the same way:

* ``--game KEY``: any key or alias of the registry (``mdpviz solve --help`` lists them);
* the game's **model options, as the game's own command takes them** (e.g. ``--grid/--noise`` as
  ``mdpviz gridworld``, ``--layout/--circle`` as ``mdpviz snakes``, ``--mdp`` as ``mdpviz plan``). Each
  game lists its own in its folder, ``mdpviz/models/<key>/cli.py`` (:mod:`mdpviz.models.kit.game.options`);
  this module names no game. An option the chosen game does not take is refused (one line naming the
  games that take it), not ignored;
* ``--set FIELD=VALUE`` (repeatable) for any field of the game's settings, the field named and its
  value written as a scenario file writes them (``--set noise=0.1``, ``--set request_means=[2,5]``,
  ``--set free_shuttle=true``; a dotted name reaches into an object: ``--set kwargs.map_name="'8x8'"``).
  The value is JSON; a value that is not JSON is taken as a string (``--set convention=aima``).

Every option becomes scenario data first, then the game's settings are read from that data by the
one settings codec (:mod:`mdpviz.models.kit.game.codec`): a value is refused by the same rule, naming the
same field, as in a scenario file. The game's defaults are those of a new window.
"""
from __future__ import annotations

import argparse
import json
from typing import Any

from mdpviz.models.kit.game.options import ModelOption, empty_text, options_of

SET_WHERE = "--set"
"""What a bad ``--set`` value's message names in place of a file."""

SHARED_DESTS = ("seed",)
"""Model options that the running command may read for itself too (``--seed``: also the seed of a random
update order); they are not refused for a game that does not take them."""


def all_options() -> list[tuple[str, list[tuple[str, ModelOption]]]]:
    """Every game's model options by flag, in the order flags first appear over the games in registry
    order: [(flag, [(game key, option), ...]), ...]."""
    from mdpviz.models.kit.game.registry import keys

    flags: dict[str, list[tuple[str, ModelOption]]] = {}
    for key in keys():
        for opt in options_of(key):
            flags.setdefault(opt.flag, []).append((key, opt))
    return list(flags.items())


def add_game_options(p: argparse.ArgumentParser, *, game_help: str | None = None,
                     own_help: dict[str, str] | None = None) -> None:
    """``--game``, every game's model options and ``--set`` on ``p``. ``own_help``: flag -> this command's
    help of a model option it reads for itself too (:data:`SHARED_DESTS`: ``learn``'s ``--seed`` is the
    seed of its episodes first)."""
    from mdpviz.commands import add_option
    from mdpviz.models.kit.game.registry import keys

    p.add_argument("--game", required=True, metavar="KEY", help=game_help or f"the game: {', '.join(keys())}")
    g = p.add_argument_group("model options (each as the game's own command takes it)")
    for flag, takers in all_options():
        kwargs = dict(takers[0][1].argparse)
        if kwargs.get("action") == "store_true":
            kwargs["default"] = False
        helps = list(dict.fromkeys(opt.help for _k, opt in takers))
        text = (own_help or {}).get(flag) or "; ".join(helps)
        aliases = tuple(dict.fromkeys(a for _k, opt in takers for a in opt.aliases))
        add_option(g, flag, *aliases, help=f"{text} [{', '.join(k for k, _o in takers)}]", **kwargs)
    p.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE", dest="set_fields",
                   help="any settings field, its value in JSON as a scenario file writes it (repeatable)")


def _given(args: argparse.Namespace, opt: ModelOption) -> Any:
    v = getattr(args, opt.dest, None)
    return None if v is False or v == [] else v


def settings_data(key: str, args: argparse.Namespace) -> dict:
    """Game ``key``'s scenario data: its defaults, then its model options, then ``--set``."""
    from mdpviz.models.kit.game import registry

    spec = registry.get(key)
    data = spec.to_dict(spec.default_settings())
    own = {opt.flag for opt in options_of(key)}
    for flag, takers in all_options():  # an option given for another game is refused, naming the games
        if flag in own:
            continue
        opt = takers[0][1]
        if _given(args, opt) is not None and opt.dest not in SHARED_DESTS:
            takes = " and ".join(f"--game {k}" for k, _o in takers)
            raise ValueError(f"{flag} applies to {takes} only")
    for opt in options_of(key):
        value = _given(args, opt)
        if value is not None:
            data.update(opt.to_data(value, key, data))
    for item in getattr(args, "set_fields", None) or []:
        set_field(data, item, key)
    return data


def set_field(data: dict, item: str, key: str) -> None:
    """Apply one ``FIELD=VALUE`` to scenario data ``data`` (ValueError naming a malformed item)."""
    name, eq, text = str(item).partition("=")
    name = name.strip()
    if not eq or not name:
        raise ValueError(f"--set {item!r}: write FIELD=VALUE (fields of --game {key}: {', '.join(data)})")
    from mdpviz.core.files import JSONTooComplex, loads_bounded

    try:
        value = loads_bounded(text)
    except json.JSONDecodeError:
        value = text  # a bare word: a string, as JSON would quote it
    except JSONTooComplex as e:  # 50,000-deep nesting, a 400-digit number (issue 35, item 13)
        raise ValueError(f"--set {name}: {e} (not a settings value of --game {key})") from None
    path = name.split(".")
    obj = data
    for i, part in enumerate(path[:-1]):
        nxt = obj.get(part) if isinstance(obj, dict) else None
        if not isinstance(nxt, dict):
            where = ".".join(path[: i + 1])
            raise ValueError(f"--set {name}: {where} is not an object of game {key!r}'s settings "
                             f"(fields: {', '.join(data)})")
        obj = nxt
    obj[path[-1]] = value


def headless_game_from_args(args: argparse.Namespace, *, verb: str = "solve"):
    """The headless :class:`~mdpviz.models.kit.game.game_model.Game` the options ask for, its model built here
    (ValueError naming what is wrong: the game, an option, a field, or what to give when the settings build
    no model). ``verb``: what a game without a table cannot be (its message)."""
    from mdpviz.core.files import ScenarioError
    from mdpviz.models.kit.game import registry
    from mdpviz.models.kit.game.game_model import Game

    try:
        key = registry.canonical(args.game)
    except (KeyError, ValueError):
        raise ValueError(f"unknown game {args.game!r}; choose one of {', '.join(registry.keys())}") from None
    spec = registry.get(key)
    if spec.no_table:
        raise ValueError(f"game {key!r} has no table of states: {spec.no_table}")
    data = settings_data(key, args)
    try:
        settings = spec.from_dict(data, SET_WHERE)
    except ScenarioError as e:
        raise ValueError(f"--game {key}: {e.where.removeprefix(f'games.{key}.')}: {e.problem}") from None
    game = Game(spec, settings)
    game.load_display(data, SET_WHERE)  # display settings given by --set (the course file's start=K)
    if game.mdp() is None and not game.mdp_error() and empty_text(key):
        raise ValueError(empty_text(key))
    _check_start(game, data, key)
    return game


def _check_start(game, data: dict, key: str) -> None:
    """ValueError when ``--set start=K`` names no state of the model (a game whose start is a display setting
    would otherwise fall back to its default start without a word)."""
    if "start" not in game.spec.display.keys or data.get("start") is None:
        return
    k = data["start"]
    mdp = game.mdp()
    if mdp is None:
        return
    if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < mdp.n_states:
        raise ValueError(f"--set start: {k!r} is not a state of --game {key} (give an integer 0..{mdp.n_states - 1})")


def game_from_args(args: argparse.Namespace):
    """The built :class:`~mdpviz.models.kit.game.game_model.GameModel` the options ask for (ValueError naming
    what is wrong: the game, an option, a field)."""
    return headless_game_from_args(args).model()


__all__ = ["SHARED_DESTS", "add_game_options", "all_options", "game_from_args", "headless_game_from_args",
           "set_field", "settings_data"]
