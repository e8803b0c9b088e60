"""The common board-game view: one position at a time, its moves coloured by value; walk the game tree.

A package of small modules (was one 1,660-line ``position.py``); every name the game views import
from ``mdpviz.widgets.position`` is exported here:

* :mod:`.painters`: :class:`BoardPainter`, :class:`GridPainter`, :class:`LayersPainter` and the mark colours;
* :mod:`.canvas`: :class:`PositionCanvas`, which paints a :class:`~mdpviz.models.kit.boards.position.PositionView`;
* :mod:`.side`: :class:`PositionSide`, the texts, the moves table and the backup box beside the board;
* :mod:`.board`: :class:`PositionBoard`, the canvas with the walk's controls and the side panel;
* :mod:`.matchups`: :class:`MatchupPanel`, the simulation panel of a board game;
* :mod:`.game`: :class:`PositionGame`, the :class:`~mdpviz.widgets.game.Game` base class of board games.

The pure parts (moves table rows, colour ranges, chart labels, the walk in words) live in
:mod:`mdpviz.models.kit.boards.position_display` and :mod:`mdpviz.models.kit.boards.position`; they are re-exported here
under their old names.
"""
from __future__ import annotations

from mdpviz.models.kit.boards.position_display import (
    AXIS_FONT_PT,
    MAX_NAMED_BARS,
    OUTCOME_COLORS,
    TABLE_HEADER,
    legend_html,
    table_rows,
    tick_labels,
)
from mdpviz.widgets.position.painters import (
    GREEDY_COLOR,
    LAST_MOVE,
    LEGAL_FILL,
    O_COLOR,
    ORIGIN_COLOR,
    X_COLOR,
    BoardPainter,
    GridPainter,
    LayersPainter,
)
from mdpviz.widgets.position.canvas import PositionCanvas
from mdpviz.widgets.position.side import PositionSide
from mdpviz.widgets.position.board import PositionBoard
from mdpviz.widgets.position.matchups import MatchupPanel
from mdpviz.widgets.position.game import PositionGame

__all__ = [
    "AXIS_FONT_PT", "BoardPainter", "GREEDY_COLOR", "GridPainter", "LAST_MOVE", "LEGAL_FILL", "LayersPainter",
    "MAX_NAMED_BARS", "MatchupPanel", "O_COLOR", "ORIGIN_COLOR", "OUTCOME_COLORS", "PositionBoard",
    "PositionCanvas", "PositionGame", "PositionSide", "TABLE_HEADER", "X_COLOR", "legend_html", "table_rows",
    "tick_labels",
]
