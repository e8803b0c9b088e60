"""The bandit game's command-line model options (read by the shared grammar, :mod:`mdpviz.commands.game_args`;
see :mod:`mdpviz.models.kit.game.options`): the discount; every other field (``arms``, ``horizon``, ``prior``)
through ``--set FIELD=VALUE`` (``--set prior=[2,1]``)."""
from __future__ import annotations

from mdpviz.models.kit.game.options import discount

OPTIONS = (discount(),)
"""The bandit game's model options."""

__all__ = ["OPTIONS"]
