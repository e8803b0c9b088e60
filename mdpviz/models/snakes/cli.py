"""Snakes and ladders' command-line model options, as ``mdpviz snakes`` takes them (read by the shared
grammar, :mod:`mdpviz.commands.game_args`; see :mod:`mdpviz.models.kit.game.options`)."""
from __future__ import annotations

import re
from dataclasses import replace

from mdpviz.models.kit.game.options import ModelOption, sets, switch


def _layout(value: str, key: str, data: dict) -> dict:
    from mdpviz.models.snakes import layout_from_input

    items = [x for x in re.split(r"[,\s]+", str(value).strip()) if x]
    vals = []
    for i, x in enumerate(items):
        try:
            vals.append(int(x))
        except ValueError:
            raise ValueError(f"--layout item {i + 1} '{x}' is not a whole number 0..4") from None
    return {"layout": list(layout_from_input(vals))}


def _rules(value: str, key: str, data: dict) -> dict:
    from mdpviz.models.snakes import RULE_SETS, apply_rule_set
    from mdpviz.models.snakes.spec import SPEC

    name = str(value).replace("-", " ")
    if name not in RULE_SETS:
        raise ValueError(f"--rules: unknown rule set {value!r}; choose one of "
                         f"{', '.join(n.replace(' ', '-') for n in RULE_SETS)}")
    full = SPEC.to_dict(apply_rule_set(SPEC.from_dict(data, "<defaults>"), name))
    return {k: v for k, v in full.items() if k not in ("layout", "circle")}


def _dice(values: list[str], key: str, data: dict) -> dict:
    from mdpviz.models.snakes import parse_die
    from mdpviz.models.snakes.spec import SPEC

    cfg = SPEC.from_dict(data, "<defaults>")
    cfg = replace(cfg, dice=cfg.dice + tuple(parse_die(s) for s in values))
    return {"dice": SPEC.to_dict(cfg)["dice"]}


OPTIONS = (
    ModelOption("--layout", "15 comma-separated square types 0..4 (as mdpviz snakes)", _layout),
    ModelOption("--circle", "the player must stop exactly on square 15", switch("circle", True),
                {"action": "store_true"}),
    ModelOption("--rules", "the statement's rules or another year's variant (as mdpviz snakes)", _rules),
    ModelOption("--overshoot", "with --circle: restart or wrap", sets("overshoot"), {"choices": ("restart", "wrap")}),
    ModelOption("--die", "a die of your own, NAME:MOVE=PROB,...:TRIGGER (repeatable)", _dice,
                {"action": "append", "metavar": "DIE"}),
)
"""Snakes and ladders' model options, in the order they apply (a die joins the dice of --rules)."""

__all__ = ["OPTIONS"]
