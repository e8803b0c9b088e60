"""One command-line grammar for every game: ``--game KEY [model options] [--set FIELD=VALUE ...]``.

The commands that work on any game of the registry (``mdpviz solve``, ``mdpviz learn``, ``mdpviz
export-model``, ...) take the game the same way:

* ``--game KEY``: any key or alias of the registry (``mdpviz solve --help`` lists them);
* the game's **model options, as the game's own command takes them**: ``--grid/--noise/--living-reward/
  --discount/--convention`` as ``mdpviz gridworld``, ``--mdp`` as ``mdpviz plan``, ``--layout/--circle/
  --overshoot/--rules/--die`` as ``mdpviz snakes``, ``--env/--kw/--discount`` as ``mdpviz gym``,
  ``--agent/--first/--rewards/--gamma`` as ``mdpviz ttt``, ``--size/--preset/--risk/--seed`` as ``mdpviz
  risk-ttt``, ``--size/--rows/--ply-limit/--no-forced-capture/--no-multi-jump/--agent/--gamma`` as
  ``mdpviz checkers``. An option the chosen game does not take is refused (one line naming the games
  that take it), not ignored;
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
from dataclasses import dataclass, field
from typing import Any, Callable

SET_WHERE = "--set"
"""What a bad ``--set`` value's message names in place of a file."""


@dataclass(frozen=True)
class ModelOption:
    """One model option of the shared grammar: its flag, the games that take it, what it sets."""

    flag: str
    games: tuple[str, ...]
    help: str
    to_data: Callable[[Any, str, dict], dict]
    """``to_data(value, key, data)``: the scenario fields the option sets for game ``key`` (``data``: the
    game's scenario data so far, for options that depend on another field)."""
    argparse: dict = field(default_factory=dict)

    @property
    def dest(self) -> str:
        return self.flag.lstrip("-").replace("-", "_")


def _number(flag: str) -> Callable[[str], float]:
    def parse(text: str) -> float:
        import math

        try:
            v = float(text)
        except ValueError:
            raise ValueError(f"{flag}: expected a number, got {text!r}") from None
        if not math.isfinite(v):
            raise ValueError(f"{flag}: expected a finite number, got {text!r}")
        return v
    return parse


def _whole(flag: str) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            return int(text)
        except ValueError:
            raise ValueError(f"{flag}: expected a whole number, got {text!r}") from None
    return parse


def _field(name: str, parse: Callable[[str], Any] = str) -> Callable[[Any, str, dict], dict]:
    """An option that sets one scenario field to its parsed value."""
    return lambda value, key, data: {name: parse(value)}


def _flag(name: str, value: Any) -> Callable[[Any, str, dict], dict]:
    """A switch that sets one scenario field to ``value``."""
    return lambda given, key, data: {name: value}


# ---------------------------------------------------------------------------------- per game
def _grid(value: str, key: str, data: dict) -> dict:
    from mdpviz.models.gridworld import load_map
    from mdpviz.models.kit.game import registry

    spec = registry.get("gridworld")
    base = spec.from_dict(data, "<defaults>")
    from dataclasses import replace

    from mdpviz.models.gridworld import MAP_SETTINGS

    grid = load_map(value)
    full = spec.to_dict(replace(base, grid=grid))
    # a built-in map's own rules (Sutton and Barto's 4x4 grid: MAP_SETTINGS), which --noise, --discount ...
    # given too still override (they come after --grid)
    preset = MAP_SETTINGS.get(grid.name, {}) if value.strip().lower().removesuffix("grid") == grid.name else {}
    return {**{k: full[k] for k in full if k not in ("noise", "living_reward", "discount", "convention")}, **preset}


def _mdp_file(value: str, key: str, data: dict) -> dict:
    from mdpviz.core.examples import resolve_mdp
    from mdpviz.models.file.spec import read_file
    from mdpviz.models.kit.game import registry

    state, _mdp = read_file(resolve_mdp(value))
    return registry.get("file").to_dict(state)


def _layout(value: str, key: str, data: dict) -> dict:
    import re

    from mdpviz.models.snakes import layout_from_input

    items = [x for x in re.split(r"[,\s]+", str(value).strip()) if x]
    vals = []
    for i, x in enumerate(items):
        try:
            vals.append(int(x))
        except ValueError:
            raise ValueError(f"--layout item {i + 1} '{x}' is not a whole number 0..4") from None
    return {"layout": list(layout_from_input(vals))}


def _snakes_rules(value: str, key: str, data: dict) -> dict:
    from mdpviz.models.kit.game import registry
    from mdpviz.models.snakes import RULE_SETS, apply_rule_set

    name = str(value).replace("-", " ")
    if name not in RULE_SETS:
        raise ValueError(f"--rules: unknown rule set {value!r}; choose one of "
                         f"{', '.join(n.replace(' ', '-') for n in RULE_SETS)}")
    spec = registry.get("snakes")
    cfg = apply_rule_set(spec.from_dict(data, "<defaults>"), name)
    full = spec.to_dict(cfg)
    return {k: v for k, v in full.items() if k not in ("layout", "circle")}


def _dice(values: list[str], key: str, data: dict) -> dict:
    from mdpviz.models.kit.game import registry
    from mdpviz.models.snakes import parse_die

    spec = registry.get("snakes")
    cfg = spec.from_dict(data, "<defaults>")
    from dataclasses import replace

    cfg = replace(cfg, dice=cfg.dice + tuple(parse_die(s) for s in values))
    return {"dice": spec.to_dict(cfg)["dice"]}


def _env(value: str, key: str, data: dict) -> dict:
    return {"env": str(value), "kwargs": {}}  # another environment: none of the last one's arguments


def _kw(values: list[str], key: str, data: dict) -> dict:
    from mdpviz.models.gym import parse_kwargs

    parse_kwargs(values)  # one line naming a bad item
    out = dict(data.get("kwargs") or {})
    for item in values:
        name, _, literal = str(item).partition("=")
        out[name.strip()] = literal.strip()
    return {"kwargs": out}


def _agent(value: str, key: str, data: dict) -> dict:
    v = str(value)
    return {"agent": v.upper() if key == "ttt" else v.lower()}


def _rewards(value: str, key: str, data: dict) -> dict:
    from mdpviz.commands.ttt import _parse_rewards

    win, draw, loss = _parse_rewards(value)
    return {"win": win, "draw": draw, "loss": loss}


def _risk_cells(data: dict) -> int:
    return int(data.get("size", 3)) ** 2


def _preset(value: str, key: str, data: dict) -> dict:
    from mdpviz.models.kit.boards.ttt_board import PRESETS, risk_preset

    if value not in PRESETS:
        raise ValueError(f"--preset: unknown preset {value!r}; choose one of {', '.join(PRESETS)}")
    risk = risk_preset(value, n_cells=_risk_cells(data), seed=int(data.get("seed", 0)))
    return {"preset": value, "risk": [float(x) for x in risk]}


def _risk(value: str, key: str, data: dict) -> dict:
    from mdpviz.models.kit.boards.ttt_board import parse_risk

    return {"preset": "custom", "risk": [float(x) for x in parse_risk(value, _risk_cells(data))]}


def _ply_limit(value: str, key: str, data: dict) -> dict:
    v = str(value).strip().lower()
    if v in ("0", "none", "off"):
        return {"ply_limit": None}
    n = _whole("--ply-limit")(v)
    if n < 0:
        raise ValueError(f"--ply-limit must be >= 0 (0: no limit), got {n}")
    return {"ply_limit": n}


def _seed(value: str, key: str, data: dict) -> dict:
    n = _whole("--seed")(value)
    if n < 0:
        raise ValueError(f"--seed: a seed is a whole number >= 0, got {n}")
    return {"seed": n}


GRID, GYM, TTT, RISK, CHECKERS = ("gridworld",), ("gym",), ("ttt",), ("risk_ttt",), ("checkers",)

MODEL_OPTIONS: tuple[ModelOption, ...] = (
    ModelOption("--mdp", ("file",), "a course-format MDP file, or the name of a shipped example (as mdpviz plan)",
                _mdp_file),
    ModelOption("--grid", GRID, "a built-in map (book, bridge, discount, cliff, maze, sutton4x4) or a map file (as mdpviz "
                "gridworld)", _grid, {"metavar": "MAP"}),
    ModelOption("--noise", GRID, "probability of slipping to a perpendicular direction", _field("noise", _number("--noise"))),
    ModelOption("--living-reward", GRID, "reward of every move from an open cell",
                _field("living_reward", _number("--living-reward"))),
    ModelOption("--convention", GRID, "cs188 or aima (as mdpviz gridworld)", _field("convention"),
                {"choices": ("cs188", "aima")}),
    ModelOption("--layout", ("snakes",), "15 comma-separated square types 0..4 (as mdpviz snakes)", _layout),
    ModelOption("--circle", ("snakes",), "the player must stop exactly on square 15", _flag("circle", True),
                {"action": "store_true"}),
    ModelOption("--rules", ("snakes",), "the statement's rules or another year's variant (as mdpviz snakes)",
                _snakes_rules),
    ModelOption("--overshoot", ("snakes",), "with --circle: restart or wrap", _field("overshoot"),
                {"choices": ("restart", "wrap")}),
    ModelOption("--die", ("snakes",), "a die of your own, NAME:MOVE=PROB,...:TRIGGER (repeatable)", _dice,
                {"action": "append", "metavar": "DIE"}),
    ModelOption("--env", GYM, "a Gymnasium environment id, e.g. FrozenLake-v1 (as mdpviz gym)", _env,
                {"metavar": "ID"}),
    ModelOption("--kw", GYM, "keyword argument of gymnasium.make, KEY=VALUE (repeatable)", _kw,
                {"action": "append", "metavar": "KEY=VALUE"}),
    ModelOption("--first", TTT, "who moves first: opponent or agent (as mdpviz ttt)", _field("first"),
                {"choices": ("opponent", "agent")}),
    ModelOption("--rewards", TTT, "win,draw,loss rewards (as mdpviz ttt)", _rewards),
    ModelOption("--agent", TTT + CHECKERS, "the agent's mark (ttt: X or O) or colour (checkers: black or white)",
                _agent),
    ModelOption("--size", RISK + CHECKERS, "board side (as mdpviz risk-ttt or mdpviz checkers)",
                _field("size", _whole("--size"))),
    ModelOption("--seed", RISK, "seed of the noisy and random risk presets (and of --order random)", _seed),
    ModelOption("--preset", RISK, "a risk preset (as mdpviz risk-ttt)", _preset),
    ModelOption("--risk", RISK, "one risk in [0, 1] per cell, comma-separated", _risk),
    ModelOption("--rows", CHECKERS, "rows of men per side (as mdpviz checkers)", _field("rows", _whole("--rows"))),
    ModelOption("--ply-limit", CHECKERS, "draw after L plies; 0 or none: no limit", _ply_limit, {"metavar": "L"}),
    ModelOption("--no-forced-capture", CHECKERS, "captures are optional", _flag("forced_capture", False),
                {"action": "store_true"}),
    ModelOption("--no-multi-jump", CHECKERS, "a capture ends the move", _flag("multi_jump", False),
                {"action": "store_true"}),
    ModelOption("--gamma", TTT + CHECKERS, "discount per move (as mdpviz ttt and mdpviz checkers)",
                _field("discount", _number("--gamma"))),
    ModelOption("--discount", GRID + GYM, "discount gamma in [0, 1] (as mdpviz gridworld and mdpviz gym)",
                _field("discount", _number("--discount"))),
)
"""Every model option of the shared grammar, in the order they apply (a preset's risks follow --size and
--seed; a die joins the dice of --rules; --kw follows --env)."""

SHARED_DESTS = ("seed",)
"""Model options that the running command may read for itself too (``--seed``: also the seed of a random
update order); they are not refused for a game that does not take them."""


def add_game_options(p: argparse.ArgumentParser) -> None:
    """``--game``, every game's model options and ``--set`` on ``p``."""
    from mdpviz.models.kit.game.registry import keys

    p.add_argument("--game", required=True, metavar="KEY", help=f"the game: {', '.join(keys())}")
    g = p.add_argument_group("model options (each as the game's own command takes it)")
    for opt in MODEL_OPTIONS:
        kwargs = dict(opt.argparse)
        if kwargs.get("action") == "store_true":
            kwargs["default"] = False
        g.add_argument(opt.flag, help=f"{opt.help} [{', '.join(opt.games)}]", **kwargs)
    p.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE", dest="set_fields",
                   help="any settings field, its value in JSON as a scenario file writes it (repeatable)")


def _given(args: argparse.Namespace, opt: ModelOption) -> Any:
    v = getattr(args, opt.dest, None)
    return None if v is False or v == [] else v


def settings_data(key: str, args: argparse.Namespace) -> dict:
    """Game ``key``'s scenario data: its defaults, then the model options, then ``--set``."""
    from mdpviz.models.kit.game import registry

    spec = registry.get(key)
    data = spec.to_dict(spec.default_settings())
    for opt in MODEL_OPTIONS:
        value = _given(args, opt)
        if value is None:
            continue
        if key not in opt.games:
            if opt.dest in SHARED_DESTS:
                continue
            takes = " and ".join(f"--game {g}" for g in opt.games)
            raise ValueError(f"{opt.flag} applies to {takes} only")
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
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        value = text  # a bare word: a string, as JSON would quote it
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


def game_from_args(args: argparse.Namespace):
    """The :class:`~mdpviz.models.kit.game.game_model.GameModel` the options ask for (ValueError naming what
    is wrong: the game, an option, a field)."""
    from mdpviz.core.files import ScenarioError
    from mdpviz.models.kit.game import registry
    from mdpviz.models.kit.game.game_model import build_game

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
    return build_game(key, settings)


__all__ = ["MODEL_OPTIONS", "ModelOption", "add_game_options", "game_from_args", "set_field", "settings_data"]
