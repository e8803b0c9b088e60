"""The games the window can show, behind one small interface (:class:`Game`).

A game owns its edits as one immutable state (e.g. a frozen :class:`SnakesConfig`) and an undo
stack of edits; everything else is derived from that state: the compiled MDP, the board layout
and decorations, the inspector's backup terms, the strategies for simulation and one played
episode. The window never knows the rules of a game; the rules live in ``mdpviz.models``.

To add a game (tic-tac-toe, checkers, ...): subclass :class:`Game`, implement ``build_mdp``,
``board_layout``, ``decor`` and the strategy methods, optionally an ``editor()`` widget and
``backup_terms`` with game-specific notes, and list it in :func:`default_games`. A game whose
board is not a set of cells can return its own widget from ``board_widget()`` (it receives the
same ``show_frame`` / ``show_selection`` / ``show_token`` calls as :class:`BoardView`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

import numpy as np
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack
from PySide6.QtWidgets import QWidget

from mdpviz.models import snakes as sn
from mdpviz.models import snakes_sim
from mdpviz.models.cs747 import MDPFileError, load_cs747, parse_cs747, read_text_file
from mdpviz.models.mdp import TabularMDP
from mdpviz.models.simulate import policy_matrix, simulate, uniform_policy_matrix
from mdpviz.scenario import ScenarioError, snakes_from_dict, snakes_to_dict
from mdpviz.solvers import ImproperPolicyError, evaluate_stochastic_policy, solve
from mdpviz.widgets.board import CellDecor
from mdpviz.widgets.colors import SEQUENTIAL, SQUARE_COLORS, SQUARE_ICONS, action_badge
from mdpviz.widgets.display import BackupTerm, StrategyRow
from mdpviz.widgets.episodes import Move, sample_mdp_episode, snakes_moves
from mdpviz.widgets.geometry import GRAPH_MAX_STATES, BoardLayout, graph_layout, grid_layout, policy_edges, snakes_layout

Z95 = 1.959963984540054
"""Normal quantile of a two-sided 95% confidence interval."""

PANELS = frozenset({"game", "solver", "inspector", "player", "convergence", "simulation", "lesson", "compare"})
"""The window's panels by name: docks (game, solver, inspector, episode player, convergence, lesson) and
pages beside the board (simulation, compare). A game lists the ones it uses in :attr:`Game.panels`."""

Progress = Callable[[int, int, str], None]
Cancelled = Callable[[], bool]


@dataclass(frozen=True, eq=False)
class SimulationResult:
    """What a batch simulation returns to the window."""

    rows: tuple[StrategyRow, ...]
    """One row per strategy."""
    unit: str
    """What the samples count ("turns", "return")."""
    start: str
    """Name of the start state (e.g. "square 1")."""
    notes: tuple[str, ...] = ()
    """Strategies that could not be evaluated, and why."""


@dataclass(frozen=True, eq=False)
class GameJob:
    """A game's own background job (e.g. an exact 4x4 solve), run on the controller's job thread."""

    fn: Callable[[Progress, Cancelled], Any]
    """The work: ``fn(progress, cancelled)``; returns the result (None when it saw ``cancelled()``)."""
    label: str
    """What it does, for the status bar."""
    on_done: Callable[[Any], None]
    """Called on the GUI thread with the result (None if the job was cancelled)."""
    on_progress: Callable[[int, int, str], None] | None = None
    """Called on the GUI thread with (done, total, text)."""
    on_failed: Callable[[str], None] | None = None
    """Called on the GUI thread with the error message."""
    on_cancelled: Callable[[], None] | None = None
    """Called on the GUI thread when the job was cancelled."""


def mean_ci(x: np.ndarray) -> tuple[float, float]:
    """Sample mean and the half-width of its normal 95% confidence interval."""
    x = np.asarray(x, dtype=np.float64)
    if x.size < 2:
        return (float(x.mean()) if x.size else math.nan), math.inf
    return float(x.mean()), float(Z95 * x.std(ddof=1) / math.sqrt(x.size))


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

    key = ""
    """Identifier used in scenario files."""
    title = ""
    """Name in the game picker."""
    value_label = "value"
    """What V measures, for the colour bar."""
    color_kind = SEQUENTIAL
    """Colour scale kind: SEQUENTIAL for costs and returns, DIVERGING (centred on 0) for win/loss values."""
    unit = "return"
    """What one simulated episode's total is."""
    supports_discount = True
    """The discount can be edited (False: fixed by the game, e.g. turns are not discounted)."""
    discount_note = ""
    """Why the discount is fixed, for the discount field's tooltip when ``supports_discount`` is False
    ("": a generic note naming the fixed value, see :meth:`discount_tooltip`)."""
    convergence_title = "Convergence"
    """Title of the window's Convergence dock while this game is shown (e.g. "Learning curve")."""
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
    """Run a :class:`GameJob` on the controller's job thread (the window routes its results back)."""
    job_cancel = Signal()
    """Cancel the running :class:`GameJob`."""

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

    def simulation_widget(self) -> QWidget | None:
        """A game-specific simulation panel (same signals and ``show_...`` methods as
        :class:`~mdpviz.widgets.simulation.SimulationPanel`), or None for the shared one."""
        return None

    def empty_text(self) -> str:
        """What the board says when there is no model."""
        return ""

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


# ---------------------------------------------------------------------------------- snakes and ladders
class SnakesGame(Game):
    """Snakes and ladders of the course statement (rules in :mod:`mdpviz.models.snakes`)."""

    key = "snakes"
    title = "Snakes and ladders"
    value_label = "expected turns to 15"
    unit = "turns"
    supports_discount = False
    discount_note = "Turns are counted, not discounted: the discount is 1."

    def __init__(self, cfg: sn.SnakesConfig | None = None, parent: QObject | None = None) -> None:
        super().__init__(cfg or sn.SnakesConfig(), parent)
        self.edit_mode = False
        """True: a left click cycles the square's type; False: it inspects the square."""
        self._editor: QWidget | None = None
        self._layout = snakes_layout(sn.next_squares)

    @property
    def cfg(self) -> sn.SnakesConfig:
        return self._state

    def build_mdp(self) -> TabularMDP:
        return sn.compile_snakes(self.cfg)

    def board_layout(self, mdp, policy) -> BoardLayout:
        return self._layout

    def type_name(self, t: int) -> str:
        return sn.square_type_name(t, self.cfg.type4)

    def decor(self) -> dict[int, CellDecor]:
        out = {}
        for i, t in enumerate(self.cfg.layout):
            if t:
                name = self.type_name(t)
                out[i] = CellDecor(SQUARE_ICONS[name], SQUARE_COLORS[t], name)
        out[0] = CellDecor("start", "", "start")
        out[sn.N_SQUARES - 1] = CellDecor("", "", "goal", goal=True)
        return out

    def state_name(self, s: int) -> str:
        return f"square {s + 1}"

    def policy_glyph(self) -> tuple[str, tuple[str, ...]]:
        return "die", tuple(d.name for d in self.cfg.dice)

    def badge(self, a: int, mdp: TabularMDP) -> str:
        return action_badge(a, None, one_based=True)

    def action_name(self, a: int, mdp: TabularMDP) -> str:
        return f"die {a + 1} ({self.cfg.dice[a].name})"

    # ---------------------------------------------------------------- editing
    def editor(self) -> QWidget:
        if self._editor is None:
            from mdpviz.widgets.editors import SnakesEditor

            self._editor = SnakesEditor(self)
        return self._editor

    def refuse_trap(self, square: int) -> str:
        """The message for a trap on square 1 or 15 ("" if the square can hold one)."""
        if square == 1:
            return "Square 1 is the start: it cannot hold a trap or bonus."
        if square == sn.N_SQUARES:
            return "Square 15 is the goal: it cannot hold a trap or bonus."
        return ""

    def set_square(self, square: int, t: int) -> bool:
        """Give ``square`` (1..15) type ``t``; refused with a status message on squares 1 and 15."""
        if t not in sn.SQUARE_TYPES:
            raise ValueError(f"square type {t} is not one of {sorted(sn.SQUARE_TYPES)}")
        msg = self.refuse_trap(square)
        if msg and t != 0:
            self.message.emit(msg)
            return False
        lay = list(self.cfg.layout)
        lay[square - 1] = t
        return self.edit(replace(self.cfg, layout=tuple(lay)), f"square {square}: {self.type_name(t)}")

    def cycle_square(self, square: int) -> bool:
        """Next type of ``square`` (ordinary -> restart -> penalty -> prison -> type 4 -> ordinary)."""
        t = (self.cfg.layout[square - 1] + 1) % len(sn.SQUARE_TYPES)
        return self.set_square(square, t)

    def cell_clicked(self, state: int) -> bool:
        if not self.edit_mode:
            return False
        self.cycle_square(state + 1)
        return True

    def cell_menu(self, state: int):
        sq = state + 1
        entries: list[tuple[str, Callable[[], None] | None]] = []
        refused = bool(self.refuse_trap(sq))
        for t in sn.SQUARE_TYPES:
            name = self.type_name(t)
            mark = " \u2713" if self.cfg.layout[state] == t else ""
            if refused and t != 0:
                entries.append((f"{name} (not on square {sq})", None))
            else:
                entries.append((f"{name}{mark}", lambda t=t: self.set_square(sq, t)))
        return entries

    def set_circle(self, circle: bool) -> bool:
        return self.edit(replace(self.cfg, circle=bool(circle)), "circular board" if circle else "no circle")

    def rule_set_name(self) -> str:
        """The preset the current rules match, or "custom"."""
        for name in sn.RULE_SETS:
            if sn.apply_rule_set(self.cfg, name) == self.cfg:
                return name
        return "custom"

    def set_rule_set(self, name: str) -> bool:
        return self.edit(sn.apply_rule_set(self.cfg, name), f"rule set: {name}")

    def set_die(self, index: int, die: sn.Die) -> bool:
        dice = list(self.cfg.dice)
        dice[index] = die
        new = replace(self.cfg, dice=tuple(dice))
        new.validate()
        return self.edit(new, f"die {index + 1}: {die.describe()}")

    def add_die(self) -> bool:
        names = set(self.cfg.dice_names)
        name = next(f"die {k}" for k in range(len(names) + 1, 100) if f"die {k}" not in names)
        new = replace(self.cfg, dice=self.cfg.dice + (sn.Die(name, ((1, 0.5), (2, 0.5)), 0.5),))
        return self.edit(new.validate(), f"added {name}")

    def remove_die(self, index: int) -> bool:
        if len(self.cfg.dice) <= 1:
            self.message.emit("The game needs at least one die.")
            return False
        dice = self.cfg.dice[:index] + self.cfg.dice[index + 1:]
        try:
            new = replace(self.cfg, dice=dice).validate()
        except ValueError as e:
            self.message.emit(f"Cannot remove die {index + 1}: {e}")
            return False
        return self.edit(new, f"removed die {index + 1} ({self.cfg.dice[index].name})")

    def clear_layout(self) -> bool:
        return self.edit(replace(self.cfg, layout=(0,) * sn.N_SQUARES), "cleared the board")

    # ---------------------------------------------------------------- inspector
    def backup_terms(self, mdp, state, action, values):
        if state >= sn.N_SQUARES - 1:
            return []
        out = []
        for o in sn.outcomes(self.cfg, state + 1, action):
            note = f"roll {o.roll}" + (f", {o.event}" if o.event else "") + f" \u2192 {o.square}"
            out.append(BackupTerm(o.prob, o.cost, o.square - 1, float(values[o.square - 1]), note))
        return out

    # ---------------------------------------------------------------- playing
    def outcome_text(self, mdp, state):
        return f"finished: reached square {int(state) + 1}"  # as state_name words it

    def strategies(self, mdp):
        return list(snakes_sim.strategy_names(self.cfg))

    def strategy_probs(self, name, mdp, policy):
        if name == "optimal":
            if policy is None:
                raise ValueError("the optimal strategy needs a solved model: run the solver first")
            return snakes_sim.strategy_probs(self.cfg, "optimal", optimal_policy=np.asarray(policy, dtype=np.int64))
        return snakes_sim.strategy_probs(self.cfg, name)

    def simulation_job(self, mdp, policy, *, games, seed):
        cfg = self.cfg
        names = self.strategies(mdp)
        pol = None if policy is None else np.array(policy, dtype=np.int64)
        games = int(games)
        if games < 2:
            raise ValueError(f"simulate at least 2 games, got {games}")

        def job(progress: Progress, cancelled: Cancelled) -> SimulationResult | None:
            opt = pol if pol is not None else solve(mdp, "vi", tol=1e-12).policy
            streams = np.random.SeedSequence(seed).spawn(len(names))
            chunks = max(1, min(8, games // 1000))
            sizes = [games // chunks + (1 if i < games % chunks else 0) for i in range(chunks)]
            total_steps = len(names) * chunks
            rows, notes = [], []
            for i, (name, ss) in enumerate(zip(names, streams)):
                probs = snakes_sim.strategy_probs(cfg, name, optimal_policy=opt)
                try:
                    exact = float(snakes_sim.exact_turns(cfg, probs, mdp=mdp)[0])
                except ImproperPolicyError as e:
                    notes.append(f"{name}: {e}")
                    continue
                rng = np.random.default_rng(ss)
                parts = []
                for j, n in enumerate(sizes):
                    if cancelled():
                        return None
                    parts.append(snakes_sim.simulate_turns(cfg, probs, games=n, seed=rng, mdp=mdp))
                    progress(i * chunks + j + 1, total_steps, f"{name}: {sum(sizes[:j + 1]):,} of {games:,} games")
                turns = np.concatenate(parts)
                m, c = mean_ci(turns)
                rows.append(StrategyRow(name, exact, m, c, turns))
            return SimulationResult(tuple(rows), "turns", "square 1", tuple(notes))

        return job

    def episode(self, mdp, probs, rng):
        steps = snakes_sim.play_episode(self.cfg, probs, rng=rng, start=1)
        return snakes_moves(steps, self.cfg.dice_names)

    # ---------------------------------------------------------------- scenarios
    def to_dict(self):
        return snakes_to_dict(self.cfg)

    def load_dict(self, data, path):
        return snakes_from_dict(data, path)


# ---------------------------------------------------------------------------------- MDP from a course file
@dataclass(frozen=True)
class FileState:
    """The "MDP from file" game's edits: which file, its text and the discount."""

    path: str = ""
    """File the MDP was read from ("" before any file)."""
    text: str = ""
    """The file's text (kept so a scenario is self-contained)."""
    discount: float | None = None
    """Discount in use (None: the file's own)."""


class FileGame(Game):
    """Any MDP in the course file format, drawn as a grid of states (or a graph when small)."""

    key = "file"
    title = "MDP from file"
    value_label = "value V(s)"
    unit = "return"
    supports_discount = True

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(FileState(), parent)
        self.view = "grid"
        """"grid" or "graph" (a display setting; the graph view needs at most GRAPH_MAX_STATES states)."""
        self._editor: QWidget | None = None
        self._parsed: tuple[str, str, TabularMDP] | None = None
        self.start: int | None = None
        """Start state of simulations and episodes (a display setting; None: :func:`first_live_state`)."""

    @property
    def fstate(self) -> FileState:
        return self._state

    def _file_mdp(self, path: str, text: str) -> TabularMDP:
        if self._parsed is None or self._parsed[:2] != (path, text):
            self._parsed = (path, text, parse_cs747(text, path))
        return self._parsed[2]

    def build_mdp(self) -> TabularMDP | None:
        st = self.fstate
        if not st.text:
            return None
        m = self._file_mdp(st.path, st.text)
        if st.discount is not None and st.discount != m.discount:
            m = replace(m, discount=float(st.discount))
        return m

    def read_file(self, path: str | Path) -> FileState:
        """The state for ``path`` (parsed and checked); raises MDPFileError naming file and line."""
        result = self.read_file_job(path)
        assert result is not None  # never cancelled without a cancel check
        self.prime(*result)
        return result[0]

    def read_file_job(self, path: str | Path, progress=None, cancelled=None) -> tuple[FileState, TabularMDP] | None:
        """Read and parse ``path`` (any thread: touches no widget); (state, model), or None if
        ``cancelled()`` said so. The file is read once and parsed once (MDPFileError naming the line)."""
        path = str(path)
        if progress is not None:
            progress(0, 0, f"Reading {Path(path).name}\u2026")
        text = read_text_file(path)  # the course reader's checks: missing, binary, not UTF-8
        mdp = parse_cs747(text, path, progress=progress, cancelled=cancelled)
        if mdp is None:
            return None
        return FileState(path=path, text=text, discount=None), mdp

    def prime(self, state: FileState, mdp: TabularMDP) -> None:
        """Remember the model parsed off the GUI thread, so selecting the state does not parse again."""
        self._parsed = (state.path, state.text, mdp)

    def open_file(self, path: str | Path) -> bool:
        """Load a course-format file as an edit; MDPFileError leaves the current state untouched."""
        new = self.read_file(path)
        return self.edit(new, f"opened {Path(new.path).name}")

    def set_discount(self, gamma: float) -> bool:
        gamma = float(gamma)
        if not 0.0 <= gamma <= 1.0:
            raise ValueError(f"discount must be in [0, 1], got {gamma}")
        if not self.fstate.text:
            return False
        m = self._file_mdp(self.fstate.path, self.fstate.text)
        new = replace(self.fstate, discount=None if gamma == m.discount else gamma)
        return self.edit(new, f"discount {gamma:g}")

    def set_view(self, view: str) -> bool:
        """Grid or graph view: a display setting, not an edit (no solver reset, no undo entry)."""
        if view not in ("grid", "graph"):
            raise ValueError(f"view must be 'grid' or 'graph', got {view!r}")
        m = self.mdp()
        if view == "graph" and m is not None and m.n_states > GRAPH_MAX_STATES:
            self.message.emit(f"The graph view shows at most {GRAPH_MAX_STATES} states; this MDP has {m.n_states}.")
            return False
        if view != self.view:
            self.view = view
            self.redraw.emit()
        return True

    def _set_state(self, state: Any, text: str) -> None:
        if state.path != self.fstate.path:  # another file: back to its own default start
            self.start = None
        super()._set_state(state, text)

    def start_state(self) -> int:
        """The chosen start state if it is a state of the loaded MDP, else its first non-terminal state
        (course files may make state 0 terminal, where every strategy would score 0)."""
        m = self.mdp()
        if m is None:
            return 0
        if self.start is not None and 0 <= self.start < m.n_states:
            return int(self.start)
        return first_live_state(m)

    def set_start(self, state: int) -> bool:
        """Start simulations and episodes in ``state`` (a display setting: no solver reset, no undo entry)."""
        m = self.mdp()
        if m is None or not 0 <= int(state) < m.n_states:
            raise ValueError(f"start state must be in 0..{(m.n_states - 1) if m is not None else -1}, got {state}")
        if int(state) != self.start_state():
            self.start = int(state)
            self.redraw.emit()
            return True
        self.start = int(state)
        return False

    def board_layout(self, mdp, policy) -> BoardLayout:
        if mdp is None:
            return BoardLayout(())
        labels = [str(s) for s in range(mdp.n_states)]
        if self.view == "graph" and mdp.n_states <= GRAPH_MAX_STATES:
            edges = policy_edges(mdp, policy)
            return graph_layout(mdp.n_states, edges, labels=labels)
        return grid_layout(mdp.n_states, labels=labels)

    def decor(self):
        m = self.mdp()
        if m is None:
            return {}
        return {int(s): CellDecor("", "#555555", "end", goal=True) for s in np.flatnonzero(m.terminal)}

    def editor(self) -> QWidget:
        if self._editor is None:
            from mdpviz.widgets.editors import FileEditor

            self._editor = FileEditor(self)
        return self._editor

    def empty_text(self) -> str:
        return "No MDP loaded: File \u25b8 Open course MDP file\u2026"

    def state_name(self, s: int) -> str:
        return f"state {s}"

    def action_name(self, a: int, mdp: TabularMDP) -> str:
        return f"action {a}"

    def strategies(self, mdp):
        acts = [f"action {a}" for a in range(mdp.n_actions)
                if np.all(np.isin(np.flatnonzero(~mdp.terminal), mdp.row_state[mdp.row_action == a]))]
        return ["optimal", *acts, "random"]

    def strategy_probs(self, name, mdp, policy):
        if name == "optimal":
            if policy is None:
                raise ValueError("the optimal strategy needs a solved model: run the solver first")
            return policy_matrix(mdp, policy)
        if name == "random":
            return uniform_policy_matrix(mdp)
        if name.startswith("action "):
            a = int(name.split()[1])
            return policy_matrix(mdp, np.where(mdp.terminal, -1, a))
        raise ValueError(f"unknown strategy {name!r}")

    def max_steps(self, mdp: TabularMDP) -> int:
        """Steps per simulated episode: until gamma^t < 1e-12 for a discount below 1, else 10,000."""
        if mdp.discount < 1.0:
            if mdp.discount <= 0.0:
                return 1
            return int(min(10_000, math.ceil(math.log(1e-12) / math.log(mdp.discount))))
        return 10_000

    def simulation_job(self, mdp, policy, *, games, seed):
        start = self.start_state()
        return strategy_simulation_job(self, mdp, policy, games=games, seed=seed, start=start,
                                       start_name=f"state {start}", optimal=lambda: solve(mdp, "pi").policy)

    def outcome_text(self, mdp, state):
        return f"reached {self.state_name(state)} (terminal)"

    def episode(self, mdp, probs, rng):
        return sample_mdp_episode(mdp, probs, rng=rng, start=self.start_state(), max_steps=200,
                                  state_name=str, action_name=str)

    def to_dict(self):
        st = self.fstate
        return {"path": st.path, "text": st.text, "discount": st.discount, "view": self.view, "start": self.start}

    def load_dict(self, data, path):
        where = "games.file"
        text, fpath, disc, view = data.get("text", ""), data.get("path", ""), data.get("discount"), data.get("view", "grid")
        if not isinstance(text, str) or not isinstance(fpath, str):
            raise ScenarioError(path, where, "path and text must be strings")
        if view not in ("grid", "graph"):
            raise ScenarioError(path, f"{where}.view", f"must be 'grid' or 'graph', got {view!r}")
        if disc is not None and (isinstance(disc, bool) or not isinstance(disc, (int, float)) or not 0.0 <= disc <= 1.0):
            raise ScenarioError(path, f"{where}.discount", f"must be a number in [0, 1] or null, got {disc!r}")
        if text:
            try:
                parse_cs747(text, fpath or "<scenario>")
            except MDPFileError as e:
                raise ScenarioError(path, f"{where}.text", str(e)) from None
        return FileState(path=fpath, text=text, discount=None if disc is None else float(disc))

    def load_display(self, data: dict[str, Any]) -> None:
        if data.get("view") in ("grid", "graph"):
            self.view = data["view"]
        start = data.get("start")
        self.start = int(start) if isinstance(start, int) and not isinstance(start, bool) and start >= 0 else None


def first_live_state(mdp: TabularMDP) -> int:
    """The first state that is not terminal (0 if every state is terminal)."""
    live = np.flatnonzero(~np.asarray(mdp.terminal, dtype=bool))
    return int(live[0]) if live.size else 0


def default_games(parent: QObject | None = None) -> list[Game]:
    """The games listed in the game picker, in order."""
    from mdpviz.widgets.ttt_games import RiskTicTacToeGame, TicTacToeGame  # they import this module

    from mdpviz.widgets.checkers_game import CheckersGame
    from mdpviz.widgets.attt_game import AtttGame
    from mdpviz.widgets.ttt3d_game import Ttt3dGame

    from mdpviz.widgets.gridworld_game import GridWorldGame, GymGame

    return [SnakesGame(parent=parent), FileGame(parent=parent), TicTacToeGame(parent=parent),
            RiskTicTacToeGame(parent=parent), AtttGame(parent=parent), CheckersGame(parent=parent),
            Ttt3dGame(parent=parent), GridWorldGame(parent=parent), GymGame(parent=parent)]


def strategy_simulation_job(game: "Game", mdp: TabularMDP, policy, *, games: int, seed, start: int, start_name: str,
                            optimal: Callable[[], np.ndarray]) -> Callable[[Progress, Cancelled], SimulationResult | None]:
    """The background job that simulates each of ``game``'s strategies from ``start`` for ``games``
    episodes beside its exact value (policy evaluation): shared by the games whose episodes are
    plain walks of the MDP (files, grid worlds). ``optimal()`` gives the optimal policy when the
    window has none yet (called on the job thread)."""
    names = game.strategies(mdp)
    pol = None if policy is None else np.array(policy, dtype=np.int64)
    steps = game.max_steps(mdp)
    games = int(games)
    if games < 2:
        raise ValueError(f"simulate at least 2 games, got {games}")

    def job(progress: Progress, cancelled: Cancelled) -> SimulationResult | None:
        opt = pol if pol is not None else optimal()
        streams = np.random.SeedSequence(seed).spawn(len(names))
        rows, notes = [], []
        for i, (name, ss) in enumerate(zip(names, streams)):
            if cancelled():
                return None
            probs = game.strategy_probs(name, mdp, opt)
            try:
                exact = float(evaluate_stochastic_policy(mdp, probs)[start])
            except ImproperPolicyError as e:
                notes.append(f"{name}: {e}")
                continue
            ep = simulate(mdp, probs, start=start, episodes=games, seed=np.random.default_rng(ss), max_steps=steps)
            m, c = mean_ci(ep.total)
            fin = int(ep.finished.sum()) if mdp.terminal.any() else -1
            rows.append(StrategyRow(name, exact, m, c, np.asarray(ep.total), fin))
            progress(i + 1, len(names), f"{name}: {games:,} episodes")
        return SimulationResult(tuple(rows), "return", start_name, tuple(notes))

    return job
