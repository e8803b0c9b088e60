"""The base class of the window's games (:class:`Game`) and what games hand to the window.

A game owns its edits as one immutable state (e.g. a frozen :class:`SnakesConfig`) and an undo
stack of edits; everything else is derived from that state: the compiled MDP, the board layout
and decorations, the inspector's backup terms, the strategies for simulation and one played
episode. The window never knows the rules of a game; the rules live in ``mdpviz.models``, and
the list of games is the headless registry :mod:`mdpviz.models.kit.registry`. Each game's view (a
:class:`Game` subclass) lives in :mod:`mdpviz.widgets.games` and is listed in its view map.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack
from PySide6.QtWidgets import QWidget

from mdpviz.models.mdp import TabularMDP
from mdpviz.widgets.board import CellDecor
from mdpviz.models.kit.colors import SEQUENTIAL, ColorScale, action_badge
from mdpviz.models.kit.display import BackupTerm
from mdpviz.models.kit.episodes import Move
from mdpviz.models.kit.strategies import SimulationResult  # noqa: F401 (the window imports it from here)
from mdpviz.widgets.geometry import BoardLayout

PANELS = frozenset({"game", "solver", "inspector", "player", "convergence", "simulation", "lesson", "compare"})
"""The window's panels by name: docks (game, solver, inspector, episode player, convergence, lesson) and
pages beside the board (simulation, compare). A game lists the ones it uses in :attr:`Game.panels`."""

Progress = Callable[[int, int, str], None]
Cancelled = Callable[[], bool]


class _FromSpec:
    """A class attribute of :class:`Game` read from the class's :attr:`Game.spec` (``default`` when
    it has none); a subclass or an instance may still set its own value."""

    def __init__(self, default: Any) -> None:
        self.default = default

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, cls: type | None = None) -> Any:
        spec = (cls if cls is not None else type(obj)).spec
        return self.default if spec is None else getattr(spec, self.name)


class _Edit(QUndoCommand):
    """One edit of a game: swaps the game's immutable state (undo puts the old one back)."""

    def __init__(self, game: "Game", old: Any, new: Any, text: str) -> None:
        super().__init__(text)
        self.game, self.old, self.new = game, old, new

    def redo(self) -> None:
        self.game._set_state(self.new, self.text())

    def undo(self) -> None:
        self.game._set_state(self.old, f"undid: {self.text()}")


class Game(QObject):
    """One game in the window: its edits (an immutable state) and what is derived from them."""

    spec: Any = None
    """The game's headless :class:`~mdpviz.models.kit.registry.GameSpec` (None for a game outside the
    registry); :attr:`key`, :attr:`title`, :attr:`value_label`, :attr:`unit` and :attr:`color_kind`
    are read from it unless a subclass sets them."""
    key = _FromSpec("")
    """Identifier used in scenario files."""
    title = _FromSpec("")
    """Name in the game picker."""
    value_label = _FromSpec("value")
    """What V measures, for the colour bar."""
    color_kind = _FromSpec(SEQUENTIAL)
    """Colour scale kind: SEQUENTIAL for costs and returns, DIVERGING (centred on 0) for win/loss values."""
    unit = _FromSpec("return")
    """What one simulated episode's total is."""
    supports_discount = True
    """The discount can be edited (False: fixed by the game, e.g. turns are not discounted)."""
    discount_note = ""
    """Why the discount is fixed, for the discount field's tooltip when ``supports_discount`` is False
    ("": a generic note naming the fixed value, see :meth:`discount_tooltip`)."""
    convergence_title = "Convergence"
    """Title of the window's Convergence dock while this game is shown (e.g. "Learning curve")."""
    fixed_scale: ColorScale | None = None
    """A colour scale the game fixes itself (a game without solves, e.g. the 3D game's agent values);
    None: the solve's value range sets it."""
    drives_steps = False
    """The game's Step is its own (anti-tic-tac-toe's best-response rounds): it then provides
    window_step / window_run / window_pause / window_reset / window_can_step / window_running, and the
    window's one Step, Run, Pause and Reset drive it."""
    simulates_without_model = False
    """The game simulates without a compiled MDP (the 3D game's trained agent)."""
    view: str | None = None
    """How the shared cell board draws the game's MDP ("grid" or "graph" for an MDP file; None: the
    game's own layout). "graph" re-lays the board out for each sweep's policy."""
    default_method = "vi"
    """The solver a headless export solves the game with (:func:`mdpviz.export.game_defaults`)."""
    default_tol = 1e-9
    """Value iteration's tolerance for that solve."""
    panels: frozenset[str] = PANELS
    """The window's panels this game uses (names from :data:`PANELS`); the window hides the others
    while the game is shown. May be a property when it depends on the edits (e.g. a board size)."""

    edited = Signal(str)
    """The state changed (an edit, undo or redo): the text says what."""
    message = Signal(str)
    """A note for the status bar (e.g. why an edit was refused)."""
    redraw = Signal()
    """A display setting changed (not an edit: the model and the solve stay)."""
    job_requested = Signal(object)
    """Run a :class:`~mdpviz.models.jobs.Job` on the controller's job thread (which calls its callbacks)."""
    job_cancel = Signal()
    """Cancel the running job."""
    state_text_changed = Signal()
    """:meth:`state_text` changed (a game without a solver: its training started or ended)."""
    open_file_requested = Signal()
    """The game's editor asks the window to open a file (File \u25b8 Open course MDP file)."""

    def __init__(self, state: Any, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._state = state
        self.undo_stack = QUndoStack(self)
        self._mdp_cache: tuple[Any, TabularMDP | None, str] | None = None

    # ------------------------------------------------------------------ state and edits
    @property
    def state(self) -> Any:
        """The current edits (immutable)."""
        return self._state

    def edit(self, new_state: Any, text: str) -> bool:
        """Apply an edit through the undo stack; False if it changes nothing."""
        if new_state == self._state:
            return False
        self.undo_stack.push(_Edit(self, self._state, new_state, text))
        return True

    def _set_state(self, state: Any, text: str) -> None:
        self._state = state
        self.edited.emit(text)

    def load_state(self, state: Any) -> None:
        """Replace the edits wholesale (a loaded scenario): no undo history, counts as saved.

        Does not emit ``edited``: the window resets the solver once after loading every game."""
        self.undo_stack.clear()
        self._state = state
        self.undo_stack.setClean()

    def mdp(self) -> TabularMDP | None:
        """The compiled MDP of the current state (cached), or None when there is none."""
        if self._mdp_cache is None or self._mdp_cache[0] is not self._state:
            try:
                m, err = self.build_mdp(), ""
            except ValueError as e:
                m, err = None, str(e)
            self._mdp_cache = (self._state, m, err)
        return self._mdp_cache[1]

    def mdp_error(self) -> str:
        """Why there is no MDP ("" if there is one, or if nothing is loaded yet)."""
        self.mdp()
        return self._mdp_cache[2] if self._mdp_cache else ""

    # ------------------------------------------------------------------ to implement
    def build_mdp(self) -> TabularMDP | None:
        raise NotImplementedError

    def board_layout(self, mdp: TabularMDP | None, policy: np.ndarray | None) -> BoardLayout:
        raise NotImplementedError

    def decor(self) -> dict[int, CellDecor]:
        return {}

    def policy_glyph(self) -> tuple[str, tuple[str, ...]]:
        """How the board draws the greedy action: ("badge", ()) or ("die", names of the dice)."""
        return "badge", ()

    def board_widget(self) -> QWidget | None:
        """A game-specific board widget, or None to draw on the shared cell board."""
        return None

    def editor(self) -> QWidget | None:
        """The game's editing panel (built once, on first use), or None."""
        return None

    def lesson(self) -> Any:
        """The game's own lesson (:mod:`mdpviz.models.kit.lessons`), or None for the registry's lesson of
        its key, settings and model."""
        return None

    def refresh_editor(self) -> None:
        """Show the current edits in the editing panel if it was built (after a loaded scenario)."""

    def convergence_widget(self) -> QWidget | None:
        """A game-specific plot for the window's Convergence dock (the 3D game's learning curve), or
        None for the shared convergence plot."""
        return None

    def solve_after_reset(self) -> bool:
        """True when the window should run its solver to the end right after a reset (the game's
        Step already decided what to show, e.g. anti-tic-tac-toe's rounds)."""
        return False

    def board_caption(self, caption: str, sweep: Any) -> str:
        """The caption of the game's own board for ``sweep`` (``caption``: the window's)."""
        return caption

    def state_title(self, s: int) -> str:
        """The inspector's title of state ``s`` (board games: the position in words)."""
        return self.state_name(s)

    def source_path(self) -> str | None:
        """The file the game's model was read from (an MDP file), or None."""
        return None

    def simulation_widget(self) -> QWidget | None:
        """A game-specific simulation panel (same signals and ``show_...`` methods as
        :class:`~mdpviz.widgets.simulation.SimulationPanel`), or None for the shared one."""
        return None

    def empty_text(self) -> str:
        """What the board says when there is no model."""
        return ""

    def state_text(self) -> str | None:
        """The status bar's state for a game without a solver (e.g. "training"); None: the solver's
        method and state, as for every game with a model."""
        return None

    def state_name(self, s: int) -> str:
        return str(s)

    def action_name(self, a: int, mdp: TabularMDP) -> str:
        if mdp.action_labels is not None:
            return mdp.action_labels[a]
        return str(a)

    def badge(self, a: int, mdp: TabularMDP) -> str:
        return action_badge(a, mdp.action_labels)

    def cell_clicked(self, state: int) -> bool:
        """A left click on a cell; True if the game used it (an edit), False to inspect the cell."""
        return False

    def cell_menu(self, state: int) -> list[tuple[str, Callable[[], None] | None]]:
        """Entries of the right-click menu of a cell: (text, action or None for disabled)."""
        return []

    def backup_terms(self, mdp: TabularMDP, state: int, action: int, values: np.ndarray) -> list[BackupTerm]:
        """The outcomes of (state, action) for the inspector's Bellman backup."""
        return [BackupTerm(p, r, d, float(values[d])) for d, p, r in mdp.outcomes(state, action)]

    def discount(self) -> float | None:
        m = self.mdp()
        return None if m is None else m.discount

    def set_discount(self, gamma: float) -> bool:
        return False

    def discount_tooltip(self) -> str:
        """The discount field's tooltip: "" when the discount can be edited (the field's own), else
        :attr:`discount_note` or a generic note with the fixed discount."""
        if self.supports_discount:
            return ""
        if self.discount_note:
            return self.discount_note
        gamma = self.discount()
        if gamma is None:
            return "This game has no discount to edit."
        if gamma == 1.0:
            return "Fixed by this game: results are not discounted (the discount is 1)."
        return f"Fixed by this game: the discount is {gamma:g}."

    def start_state(self) -> int:
        return 0

    def strategies(self, mdp: TabularMDP) -> list[str]:
        return ["optimal", "random"]

    def outcome_text(self, mdp: TabularMDP, state: int) -> str:
        """How an episode that ended in terminal ``state`` ended, in the game's words (for the episode player)."""
        return f"ended in {self.state_name(state)}"

    def strategy_probs(self, name: str, mdp: TabularMDP, policy: np.ndarray | None) -> np.ndarray:
        raise NotImplementedError

    def simulation_job(self, mdp: TabularMDP, policy: np.ndarray | None, *, games: int,
                       seed: int) -> Callable[[Progress, Cancelled], SimulationResult]:
        raise NotImplementedError

    def episode(self, mdp: TabularMDP, probs: np.ndarray, rng: np.random.Generator) -> list[Move]:
        raise NotImplementedError

    def to_dict(self) -> dict[str, Any]:
        raise NotImplementedError

    def load_dict(self, data: dict[str, Any], path: str) -> Any:
        """The state described by scenario data (validated; ScenarioError otherwise)."""
        raise NotImplementedError

    def load_display(self, data: dict[str, Any]) -> None:
        """Display settings stored with the scenario data (not edits)."""
