"""Tic-tac-toe's command-line model options, as ``mdpviz ttt`` takes them (read by the shared grammar,
:mod:`mdpviz.commands.game_args`; see :mod:`mdpviz.models.kit.game.options`)."""
from __future__ import annotations

import math

from mdpviz.models.kit.game.options import ModelOption, discount, sets


def parse_rewards(text: str) -> tuple[float, float, float]:
    """``--rewards win,draw,loss``: three finite numbers (ValueError naming the bad one)."""
    parts = [t.strip() for t in str(text).split(",")]
    if len(parts) != 3:
        raise ValueError(f"--rewards needs three numbers win,draw,loss (e.g. 500,0,-3500), got {text!r}")
    out = []
    for name, t in zip(("win", "draw", "loss"), parts):
        try:
            v = float(t)
        except ValueError:
            raise ValueError(f"--rewards: the {name} reward {t!r} is not a number") from None
        if not math.isfinite(v):
            raise ValueError(f"--rewards: the {name} reward must be finite, got {t!r}")
        out.append(v)
    return out[0], out[1], out[2]


def _rewards(value: str, key: str, data: dict) -> dict:
    win, draw, loss = parse_rewards(value)
    return {"win": win, "draw": draw, "loss": loss}


OPTIONS = (
    ModelOption("--first", "who moves first: opponent or agent (as mdpviz ttt)", sets("first"),
                {"choices": ("opponent", "agent")}),
    ModelOption("--rewards", "win,draw,loss rewards (as mdpviz ttt)", _rewards),
    ModelOption("--agent", "the agent's mark, X or O (as mdpviz ttt)", sets("agent", lambda v: str(v).upper())),
    discount(),
)
"""Tic-tac-toe's model options."""

__all__ = ["OPTIONS", "parse_rewards"]
