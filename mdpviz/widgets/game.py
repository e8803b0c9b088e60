"""The base class of the games' views (:class:`Game`): how the window draws and edits one game.

What a game is lives elsewhere: its rules, settings and hooks in its headless spec
(:mod:`mdpviz.models.kit.game.registry`), and everything the window asks of it apart from drawing (the
settings and their undo stack, the model, scenario data, simulations, episodes, the lesson, jobs) in
its :class:`~mdpviz.widgets.session.GameSession`, generic and built from the spec. A view (a
:class:`Game` subclass in :mod:`mdpviz.widgets.games`, one module per game) draws the game and edits
it through its session: the board layout and decorations of the shared cell board, or a board
widget of its own; its editor; an optional plot and simulation panel; what a click or a right-click
on a cell does. It forwards nothing to the spec.
"""
from __future__ import annotations

from dataclasses import replace

from typing import Any, Callable

import numpy as np
from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from mdpviz.models.kit.pictures.colors import ColorScale, action_badge
from mdpviz.models.kit.boards.strategies import SimulationResult  # noqa: F401 (the window imports it from here)
from mdpviz.core.mdp import TabularMDP
from mdpviz.solvers import registry as methods
from mdpviz.widgets.board import CellDecor
from mdpviz.widgets.game_board import GameBoard
from mdpviz.widgets.geometry import BoardLayout
from mdpviz.widgets.session import GameSession

PANELS = frozenset({"game", "solver", "inspector", "player", "convergence", "simulation", "lesson", "compare"})
"""The window's panels by name: docks (game, solver, inspector, episode player, convergence, lesson) and
pages beside the board (simulation, compare). A view lists the ones its game uses in :attr:`Game.panels`."""


class Game(QObject):
    """One game's view in the window: it draws the game and edits it through :attr:`session`."""

    spec: Any = None
    """The game's headless :class:`~mdpviz.models.kit.game.registry.GameSpec` (its session is built from it)."""
    convergence_title = "Convergence"
    """Title of the window's Convergence dock while this game is shown (e.g. "Learning curve")."""
    fixed_scale: ColorScale | None = None
    """A colour scale the view fixes itself (a game without solves, e.g. the 3D game's agent values);
    None: the solve's value range sets it."""
    view: str | None = None
    """How a cell board draws the game's MDP ("grid" or "graph" for an MDP file; None: the
    game's own layout). "graph" re-lays the board out for each sweep's policy."""
    @property
    def default_method(self) -> str:
        """The game's first algorithm: its spec's ``solve_with`` for the current settings (Jack's car
        rental: policy iteration), else value iteration. The window shows it when the game is chosen."""
        spec = self.spec
        if spec is not None and spec.model.solve_with is not None:
            return str(spec.model.solve_with(self.session.settings)[0])
        return methods.DEFAULT_SOLVER

    default_tol = 1e-9
    """Value iteration's tolerance for that solve."""
    panels: frozenset[str] = PANELS
    """The window's panels this game uses (names from :data:`PANELS`); the window hides the others
    while the game is shown. May be a property when it depends on the settings (e.g. a board size)."""

    redraw = Signal()
    """Something the view draws changed (not the settings: the model and the solve stay)."""
    open_file_requested = Signal()
    """The game's editor asks the window to open a file (File \u25b8 Open course MDP file)."""

    def __init__(self, session: GameSession | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session if session is not None else GameSession(self.spec, self.initial_settings(), self)
        """The game itself (settings, undo stack, model, jobs): what this view draws and edits."""
        self.session.refused.connect(lambda _why: self.refresh_editor())  # a refused edit: the fields show the settings again
        self._cell_board: GameBoard | None = None
        """The default board (see :meth:`board_widget`), built on first use."""

    def initial_settings(self) -> Any:
        """The settings a new window starts the game with (the spec's defaults)."""
        return self.spec.default_settings()

    @property
    def key(self) -> str:
        """The game's key (scenario files, the view map)."""
        return self.spec.key

    @property
    def title(self) -> str:
        """The game's name in the game picker."""
        return self.spec.title

    # ------------------------------------------------------------------ the board
    def board_widget(self) -> GameBoard:
        """The game's board (built once, on first use): by default a
        :class:`~mdpviz.widgets.cell_board.CellBoard` laid out by the methods below; a game with a board of
        its own (a position board, a grid board, a plot) overrides this."""
        if self._cell_board is None:
            from mdpviz.widgets.cell_board import CellBoard

            self._cell_board = CellBoard(self)
        return self._cell_board

    def board_layout(self, mdp: TabularMDP | None, policy: np.ndarray | None) -> BoardLayout:
        """Where a cell board puts the cells of ``mdp`` (and arrows, e.g. of ``policy`` in a graph view);
        a view with a board of its own draws none."""
        return BoardLayout(())

    def decor(self) -> dict[int, CellDecor]:
        """A cell board's marks on its cells, by state (e.g. a snakes square's type)."""
        return {}

    def policy_glyph(self) -> tuple[str, tuple[str, ...]]:
        """How a cell board draws the greedy action: ("badge", ()) or ("die", names of the dice)."""
        return "badge", ()

    def badge(self, a: int, mdp: TabularMDP) -> str:
        return action_badge(a, mdp.action_labels)

    def cell_clicked(self, state: int) -> bool:
        """A left click on a cell; True if the view used it (an edit), False to inspect the cell."""
        return False

    def cell_menu(self, state: int) -> list[tuple[str, Callable[[], None] | None]]:
        """Entries of the right-click menu of a cell: (text, action or None for disabled)."""
        return []

    # ------------------------------------------------------------------ the view's own widgets
    def set_settings(self, **changes: Any) -> bool:
        """Apply an edit of the settings' fields if the new settings are valid (one undo step named by the
        fields); otherwise say why where the user looks and keep the old ones. False: nothing applied."""
        new = replace(self.session.settings, **changes)
        if new == self.session.settings:
            return False
        try:
            new.validate()
        except ValueError as e:
            return self.session.refuse(f"Not applied: {e}")

        def shown(v: Any) -> str:
            return f"{v:g}" if isinstance(v, float) else str(v)
        return self.session.edit(new, ", ".join(f"{k.replace('_', ' ')} {shown(v)}" for k, v in changes.items()))

    def editor(self) -> QWidget | None:
        """The game's editing panel (built once, on first use), or None."""
        return None

    def refresh_editor(self) -> None:
        """Show the current settings in the editing panel if it was built (after a loaded scenario or a
        refused edit)."""

    def convergence_widget(self) -> QWidget | None:
        """A game-specific plot for the window's Convergence dock (the 3D game's learning curve), or
        None for the shared convergence plot."""
        return None

    def simulation_widget(self) -> QWidget | None:
        """A game-specific simulation panel (same signals and ``show_...`` methods as
        :class:`~mdpviz.widgets.simulation.SimulationPanel`), or None for the shared one."""
        return None

    # ------------------------------------------------------------------ words the view draws
    def board_caption(self, caption: str, sweep: Any) -> str:
        """The caption of the game's own board for ``sweep`` (``caption``: the window's)."""
        return caption

    def state_title(self, s: int) -> str:
        """The inspector's title of state ``s`` (board games: the position in words)."""
        return self.session.state_name(s)

    def building_text(self) -> str:
        """What the board says while the model is being built on the job thread ("" when it is not): the
        compile's progress, or that it builds."""
        s = self.session
        return (s.progress_text or f"Building {self.title}\u2026") if s.building else ""

    def empty_text(self) -> str:
        """What the board says when there is no model (and none is being built)."""
        return ""

    def source_path(self) -> str | None:
        """The file the game's model was read from (an MDP file), or None."""
        return None
