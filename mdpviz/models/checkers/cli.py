"""Checkers' command-line model options, as ``mdpviz checkers`` takes them (read by the shared grammar,
:mod:`mdpviz.commands.game_args`; see :mod:`mdpviz.models.kit.game.options`)."""
from __future__ import annotations

from mdpviz.models.kit.game.options import ModelOption, discount, sets, switch, whole


def _ply_limit(value: str, key: str, data: dict) -> dict:
    v = str(value).strip().lower()
    if v in ("0", "none", "off"):
        return {"ply_limit": None}
    n = whole("--ply-limit")(v)
    if n < 0:
        raise ValueError(f"--ply-limit must be >= 0 (0: no limit), got {n}")
    return {"ply_limit": n}


OPTIONS = (
    ModelOption("--agent", "the agent's colour, black or white (as mdpviz checkers)",
                sets("agent", lambda v: str(v).lower())),
    ModelOption("--size", "board side (as mdpviz checkers)", sets("size", whole("--size"))),
    ModelOption("--rows", "rows of men per side (as mdpviz checkers)", sets("rows", whole("--rows"))),
    ModelOption("--ply-limit", "draw after L plies; 0 or none: no limit", _ply_limit, {"metavar": "L"}),
    ModelOption("--no-forced-capture", "captures are optional", switch("forced_capture", False),
                {"action": "store_true"}),
    ModelOption("--no-multi-jump", "a capture ends the move", switch("multi_jump", False), {"action": "store_true"}),
    discount(),
)
"""Checkers' model options."""

__all__ = ["OPTIONS"]
