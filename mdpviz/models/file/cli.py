"""The course-file game's command-line model options (read by the shared grammar,
:mod:`mdpviz.commands.game_args`; see :mod:`mdpviz.models.kit.game.options`)."""
from __future__ import annotations

from mdpviz.models.kit.game.options import ModelOption, discount


def _mdp_file(value: str, key: str, data: dict) -> dict:
    from mdpviz.core.examples import resolve_mdp
    from mdpviz.models.file.spec import SPEC, read_file

    state, _mdp = read_file(resolve_mdp(value))
    return SPEC.to_dict(state)


OPTIONS = (
    ModelOption("--mdp", "a course-format MDP file, or the name of a shipped example (as mdpviz plan)", _mdp_file),
    discount(),
)
"""The file game's model option."""

EMPTY = "--game file needs --mdp FILE (a course-format MDP file, or the name of a shipped example)"
"""What to give: the game's default settings hold no file."""

__all__ = ["EMPTY", "OPTIONS"]
