"""Mountain car's command-line model options (read by the shared grammar, :mod:`mdpviz.commands.game_args`;
see :mod:`mdpviz.models.kit.game.options`): the discount; the grid (``positions``, ``velocities``) through
``--set FIELD=VALUE``."""
from __future__ import annotations

from mdpviz.models.kit.game.options import discount

OPTIONS = (discount(),)
"""Mountain car's model options."""

__all__ = ["OPTIONS"]
