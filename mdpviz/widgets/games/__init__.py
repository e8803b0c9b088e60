"""The games' views: one module per game in this package, named by the game's key.

``mdpviz/widgets/games/<key>.py`` defines ``VIEW``, the :class:`~mdpviz.widgets.game.Game` subclass that
shows game ``key`` of the headless registry (:mod:`mdpviz.models.kit.game.registry`); it is imported only when
the window is built. :func:`default_games` builds them in the registry's order.
"""
from __future__ import annotations

import importlib

from PySide6.QtCore import QObject

from mdpviz.models.kit.game import registry
from mdpviz.widgets.game import Game


def view_module(key: str) -> str:
    """The module of game ``key``'s view (any spelling the registry accepts)."""
    return f"{__name__}.{registry.canonical(key)}"


def view_class(key: str) -> type[Game]:
    """The view class of game ``key`` (any spelling the registry accepts)."""
    return importlib.import_module(view_module(key)).VIEW


def default_games(parent: QObject | None = None) -> list[Game]:
    """The games listed in the game picker, in the registry's order."""
    return [view_class(k)(parent=parent) for k in registry.keys()]
