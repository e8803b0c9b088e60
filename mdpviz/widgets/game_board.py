"""The base class of every board widget the window shows (:class:`GameBoard`).

The window talks to the shared cell board (:class:`~mdpviz.widgets.board.BoardView`) and to a game's
own board widget (a board game's position board, a grid world's board) through this one interface:
the signals a board may emit and the calls the window makes, each with a default that does nothing.
A board overrides what it does; the window calls every method directly, never asks whether a board
has it.
"""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QWidget

from mdpviz.models.kit.colors import ColorScale


class GameBoard(QWidget):
    """A board the window shows: the signals it may emit and the calls it takes (no-op defaults)."""

    inspect_requested = Signal(int)
    """The MDP state the board shows or was clicked (the window's inspector shows its backup); -1: none."""
    job_message = Signal(str)
    """A note for the status bar (e.g. why a position cannot be shown)."""
    scale_changed = Signal(object)
    """The shown position's colour scale changed (a :class:`ColorScale`, or None): the window's colour bar follows."""

    has_color_bar = False
    """The board draws its own colour bar (the window hides its shared one while the board is shown)."""
    shown_scale: ColorScale | None = None
    """The colour scale of what the board shows now, when it narrows the solve's (a board game's position)."""
    own_scale: ColorScale | None = None
    """The colour scale the board made itself (values without a sweep, e.g. an exact 4x4 solve)."""
    model: Any = None
    """The board game's position model (maps MDP states to positions), or None."""
    position: Any = None
    """The shown position (it has the MDP ``state`` it is), or None."""

    def show_sweep(self, sweep: Any, scale: ColorScale | None, *, caption: str = "") -> None:
        """Show a solver snapshot (None: not solved yet) on ``scale`` with ``caption``."""

    def set_value_range(self, rng: Any) -> None:
        """The solve's :class:`~mdpviz.controller.ValueRange` (None before the first sweep)."""

    def show_selection(self, state: int | None, successors: dict[int, float] | None = None) -> None:
        """Outline the inspected state and its successors (None: no selection)."""

    def show_token(self, state: int | None, text: str = "") -> None:
        """Show the episode player's token on ``state`` (None: hide it)."""

    def set_predict_mode(self, on: bool) -> None:
        """Predict, then reveal: hide values and actions until the user clicks."""

    def hide_all(self) -> None:
        """Predict mode: hide again everything revealed so far."""
