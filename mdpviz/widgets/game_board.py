"""The base class of every board widget the window shows (:class:`GameBoard`).

Every game brings its board: a board game its position board, a grid world its grid, snakes and
ladders and a course file the cell board (:class:`~mdpviz.widgets.cell_board.CellBoard`). The window
draws each of them through this one interface: the signals a board may emit and the calls the
window makes, each with a default that does nothing. A board overrides what it does; the window
calls every method directly, never asks whether a board has it, and keeps no drawing state of a
board: what a board shows (selection, token, view modes) lives in the board.
"""
from __future__ import annotations

from typing import Any, Sequence

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QWidget

from mdpviz.models.kit.pictures.colors import ColorScale


class GameBoard(QWidget):
    """A board the window shows: the signals it may emit and the calls it takes (no-op defaults)."""

    inspect_requested = Signal(int)
    """The MDP state the board shows or was clicked (the window's inspector shows its backup); -1: none."""
    raise_inspector = Signal()
    """A cell was clicked to be inspected: the window brings its inspector to the front."""
    job_message = Signal(str)
    """A note for the status bar (e.g. why a position cannot be shown)."""
    scale_changed = Signal(object)
    """The shown position's colour scale changed (a :class:`ColorScale`, or None): the window's colour bar follows."""

    has_color_bar = False
    """The board draws its own colour bar (the window hides its shared one while the board is shown)."""
    draws_sweep_policy = False
    """The board draws each sweep's own policy (the solver's action, chosen from the values it was
    backed up from), so the inspector backs up from those values and an evaluation's action is its
    policy's; False: the board draws the greedy moves of the shown values (board games)."""
    change_mark: str = "outlined"
    """How the board marks the states the last edit changed (the window's caption says so: "3 states changed
    action (outlined)"); "": the board says it itself (a position board rings the moves at its position)."""
    shown_scale: ColorScale | None = None
    """The colour scale of what the board shows now, when it is not the solve's (a board game's
    position narrows it; the delta view's log scale of the change); the window's colour bar shows it."""
    own_scale: ColorScale | None = None
    """The colour scale the board made itself (values without a sweep, e.g. an exact 4x4 solve)."""
    model: Any = None
    """The board game's position model (maps MDP states to positions), or None."""
    position: Any = None
    """The shown position (it has the MDP ``state`` it is), or None."""

    def show_sweep(self, sweep: Any, scale: ColorScale | None, *, caption: str = "", previous: Any = None,
                   delta: ColorScale | None = None) -> None:
        """Show a solver snapshot (None: not solved yet) on ``scale`` with ``caption``. ``previous``: the
        snapshot before it (None for the first); ``delta``: colour by the change from it on this log scale
        (the window's delta view; None: by value)."""

    def state_rect(self, state: int) -> Any:
        """The rectangle (QRectF, in this widget's coordinates) of the cell that draws ``state``, or None where
        the board draws no cell of its own for it (a lesson page's click map: :mod:`mdpviz.lesson_page`)."""
        return None

    def show_change(self, diff: Any, mode: str, scale: ColorScale | None = None) -> bool:
        """After :meth:`show_sweep`: what the last edit changed (a
        :class:`~mdpviz.models.kit.pictures.policy_diff.PolicyDiff`, per state of the shown model). ``mode``
        "after" or "before": mark the states whose optimal actions changed on the solve shown;
        "difference": colour by dV = V after - V before on the diverging ``scale`` (its colour bar:
        :attr:`shown_scale`). False: the board cannot draw it (the window says so)."""
        return False

    def show_unvisited(self, states: Any) -> bool:
        """After :meth:`show_sweep` of a learner's snapshot: ``states`` (bool per MDP state; None: none) were
        never visited by the behaviour, so their learned numbers are only the initial value: drawn as
        unvisited (hatched grey, "not visited" on hover), not on the value scale. False: the board draws no
        such mark (the caption's counts still say over which states the errors are)."""
        return False

    def show_model(self, known: Any, tried: Any = None, planned: Sequence[tuple[int, int]] = (), *,
                   switched: bool = False) -> bool:
        """After :meth:`show_sweep` of a planning method's snapshot (Dyna): its learned model's (state, action)
        rows ``known`` (bool per row; None: no marks), which of them were ``tried`` in the environment, and the
        last real step's planning updates ``planned`` ((state, action) pairs); ``switched``: the world has changed
        (a board that can draws the world after the change). False: the board draws no such marks (the caption's
        counts still say what the model holds)."""
        return False

    def show_history(self, history: Sequence[Any], index: int) -> None:
        """Every recorded snapshot of the current solve and the shown one's index, given before each
        :meth:`show_sweep` (a board that keeps earlier sweeps in view, as figure 4.3's value curves do)."""

    def set_value_range(self, rng: Any) -> None:
        """The solve's :class:`~mdpviz.controller.ValueRange` (None before the first sweep)."""

    def show_selection(self, state: int | None, successors: dict[int, float] | None = None) -> None:
        """Outline the inspected state and its successors (None: no selection)."""

    def show_chain(self, states: Sequence[int]) -> None:
        """Outline the inspector's chain of backups in order (root first; fewer than two states: none;
        :func:`~mdpviz.models.kit.pictures.chain.outline_labels`). A board that shows one position draws none:
        the inspector's breadcrumb is the chain there."""

    def show_token(self, state: int | None, text: str = "") -> None:
        """Show the episode player's token on ``state`` (None: hide it)."""

    def show_episode_end(self, state: int, action: int, end: int, text: str = "") -> bool:
        """Show the board an episode ended on, its last step from ``state`` by ``action`` to the end
        state ``end`` that has no board of its own; False when the board cannot (the window then shows
        the token on ``state``)."""
        return False

    def shows_state(self, state: int) -> bool:
        """True when the board has a place for MDP state ``state`` (the episode's token can stand there;
        an absorbing end state of a board game has none)."""
        if self.model is None:
            return False
        try:
            self.model.position_of(int(state))
        except (ValueError, IndexError):
            return False
        return True

    def set_predict_mode(self, on: bool) -> None:
        """Predict, then reveal: hide values and actions until the user clicks."""

    def hide_all(self) -> None:
        """Predict mode: hide again everything revealed so far."""

    def set_q_view(self, on: bool) -> None:
        """Show every action's Q-value on the board at once (the View menu's toggle)."""

    def set_view_style(self, *, text_scale: float = 1.0, line_scale: float = 1.0, outline: str = "#444444") -> None:
        """Presenter and high-contrast modes: a factor on the text drawn in cells, one on the width of
        lines, and the colour of cell borders."""
