"""The short corridor's command-line model options (read by the shared grammar, :mod:`mdpviz.commands.game_args`;
see :mod:`mdpviz.models.kit.game.options`): the discount; every other field (``n_states``, ``reversed``) through
``--set FIELD=VALUE``."""
from __future__ import annotations

from mdpviz.models.kit.game.options import discount

OPTIONS = (discount(),)
"""The short corridor's model options."""

__all__ = ["OPTIONS"]
