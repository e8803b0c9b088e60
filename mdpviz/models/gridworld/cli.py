"""The grid world's command-line model options, as ``mdpviz gridworld`` takes them (read by the shared
grammar, :mod:`mdpviz.commands.game_args`; see :mod:`mdpviz.models.kit.game.options`)."""
from __future__ import annotations

from dataclasses import replace

from mdpviz.models.kit.game.options import ModelOption, discount, number, sets


def _grid(value: str, key: str, data: dict) -> dict:
    from mdpviz.models.gridworld import MAP_SETTINGS, load_map
    from mdpviz.models.gridworld.spec import SPEC

    base = SPEC.from_dict(data, "<defaults>")
    grid = load_map(value)
    full = SPEC.to_dict(replace(base, grid=grid))
    # a built-in map's own rules (Sutton and Barto's 4x4 grid: MAP_SETTINGS), which --noise, --discount ...
    # given too still override (they come after --grid)
    preset = MAP_SETTINGS.get(grid.name, {}) if value.strip().lower().removesuffix("grid") == grid.name else {}
    return {**{k: full[k] for k in full if k not in ("noise", "living_reward", "discount", "convention")}, **preset}


OPTIONS = (
    ModelOption("--grid", "a built-in map (book, bridge, discount, cliff, maze, sutton4x4) or a map file (as mdpviz "
                "gridworld)", _grid, {"metavar": "MAP"}),
    ModelOption("--noise", "probability of slipping to a perpendicular direction", sets("noise", number("--noise"))),
    ModelOption("--living-reward", "reward of every move from an open cell",
                sets("living_reward", number("--living-reward"))),
    ModelOption("--convention", "cs188 or aima (as mdpviz gridworld)", sets("convention"),
                {"choices": ("cs188", "aima")}),
    discount(),
)
"""The grid world's model options, in the order they apply (a map's own rules first)."""

__all__ = ["OPTIONS"]
