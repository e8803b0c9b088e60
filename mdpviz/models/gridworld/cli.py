"""The grid world's command-line model options, as ``mdpviz gridworld`` takes them (read by the shared
grammar, :mod:`mdpviz.commands.game_args`; see :mod:`mdpviz.models.kit.game.options`)."""
from __future__ import annotations

from dataclasses import replace

from mdpviz.models.kit.game.options import ModelOption, discount, number, sets, whole


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
    ModelOption("--grid", "a built-in map (book, bridge, discount, cliff, maze, sutton4x4; Sutton and Barto's mazes "
                "dyna, blocking, shortcut, blocking-after, shortcut-after) or a map file (as mdpviz gridworld)", _grid,
                {"metavar": "MAP"}),
    ModelOption("--noise", "probability of slipping to a perpendicular direction", sets("noise", number("--noise"))),
    ModelOption("--living-reward", "reward of every move from an open cell",
                sets("living_reward", number("--living-reward"))),
    ModelOption("--convention", "cs188, aima or sutton (as mdpviz gridworld)", sets("convention"),
                {"choices": ("cs188", "aima", "sutton")}),
    ModelOption("--switch-map", "a built-in map the world changes to after --switch-after real steps of a learner "
                "(\"\": never; blocking and shortcut set theirs)", sets("switch_map"), {"metavar": "MAP"}),
    ModelOption("--switch-after", "real steps of a learner after which the world becomes --switch-map (0: never)",
                sets("switch_after", whole("--switch-after")), {"metavar": "N"}),
    discount(),
)
"""The grid world's model options, in the order they apply (a map's own rules first)."""

__all__ = ["OPTIONS"]
