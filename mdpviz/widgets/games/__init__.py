"""The games' views: one module per game in this package, found through one view map.

:data:`VIEWS` maps each game key of the headless registry (:mod:`mdpviz.models.games`) to the
:class:`~mdpviz.widgets.game.Game` subclass that shows it, as ``"module:Class"`` (imported
only when the window is built). :func:`default_games` builds them in the registry's order.
"""
from __future__ import annotations

import importlib

from PySide6.QtCore import QObject

from mdpviz.models import games as registry
from mdpviz.widgets.game import Game

VIEWS: dict[str, str] = {
    "snakes": "mdpviz.widgets.games.snakes:SnakesGame",
    "file": "mdpviz.widgets.games.file:FileGame",
    "ttt": "mdpviz.widgets.games.ttt:TicTacToeGame",
    "risk_ttt": "mdpviz.widgets.games.risk_ttt:RiskTicTacToeGame",
    "attt": "mdpviz.widgets.games.attt:AtttGame",
    "checkers": "mdpviz.widgets.games.checkers:CheckersGame",
    "ttt3d": "mdpviz.widgets.games.ttt3d:Ttt3dGame",
    "gridworld": "mdpviz.widgets.games.gridworld:GridWorldGame",
    "gym": "mdpviz.widgets.games.gym:GymGame",
}
"""Each registered game's view, by key (one line per game)."""


def view_class(key: str) -> type[Game]:
    """The view class of game ``key`` (any spelling the registry accepts)."""
    module, _, name = VIEWS[registry.canonical(key)].partition(":")
    return getattr(importlib.import_module(module), name)


def default_games(parent: QObject | None = None) -> list[Game]:
    """The games listed in the game picker, in the registry's order."""
    return [view_class(k)(parent=parent) for k in registry.keys()]
