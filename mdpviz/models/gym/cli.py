"""The Gymnasium game's command-line model options, as ``mdpviz gym`` takes them (read by the shared
grammar, :mod:`mdpviz.commands.game_args`; see :mod:`mdpviz.models.kit.game.options`)."""
from __future__ import annotations

from mdpviz.models.kit.game.options import ModelOption, discount


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


OPTIONS = (
    ModelOption("--env", "a Gymnasium environment id, e.g. FrozenLake-v1 (as mdpviz gym)", _env, {"metavar": "ID"}),
    ModelOption("--kw", "keyword argument of gymnasium.make, KEY=VALUE (repeatable)", _kw,
                {"action": "append", "metavar": "KEY=VALUE"}),
    discount(),
)
"""The Gymnasium game's model options, in the order they apply (--kw follows --env)."""

__all__ = ["OPTIONS"]
