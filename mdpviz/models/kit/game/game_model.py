"""One game of the registry, headless: :class:`Game` (its settings and what they build, live) and
:class:`GameModel` (one built model, frozen), with :func:`build_game`.

The window's session (:class:`mdpviz.widgets.session.GameSession`) wraps a :class:`Game` and adds only
what a window needs (the undo stack, Qt signals, handing the compile job to its controller's thread);
the command line, ``mdpviz export`` and the tests use a :class:`Game` (or the :class:`GameModel` it
builds) directly. Everything a game answers that is not drawing is here, asked of its spec
(:mod:`mdpviz.models.kit.game.registry`): the settings and their undo-free :meth:`Game.apply`, the model they
build (cached by the spec's build key, else by the settings; every game with a table builds in one compile
job, :meth:`Game.compile_job`: the spec's ``jobs["compile"]`` where it has one, else its build wrapped in a
generator that yields one progress),
the one default-solve rule (:func:`solve_defaults`), the start state, the names of states and actions,
strategies, episodes, the batch simulation, the lesson, the discount, the scenario data and the jobs.

A :class:`Game` made with ``compile_here=True`` (the default: the command line, tests) runs a compile
job to its end on the calling thread when its model is first asked for; the window's session makes it
with ``compile_here=False``, so the model stays None until the job, run on the job thread, hands what it
built to :meth:`Game.keep`. Plain Python; never imports Qt.
"""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Hashable, Iterator, Mapping

import numpy as np

from mdpviz.core.jobs import JobProgress, drive
from mdpviz.models.kit.game import registry
from mdpviz.models.kit.game.hooks import Context
from mdpviz.models.kit.boards.strategies import walk_strategy_probs
from mdpviz.core.mdp import TabularMDP
from mdpviz.solvers import registry as methods

DEFAULT_SOLVE: tuple[str, Mapping[str, Any]] = (methods.DEFAULT_SOLVER, {"tol": 1e-9})
"""(method, options) of a game whose spec names no :attr:`~mdpviz.models.kit.game.registry.ModelHooks.solve_with`:
synchronous value iteration to 1e-9, the window's first algorithm."""

BUILT_KEPT = 3
"""Built models kept per game besides the current one, by build key (so Undo, or a game shown again, shows its
model at once without compiling it again)."""


def solve_defaults(spec: Any, settings: Any) -> tuple[str, dict[str, Any]]:
    """The one default-solve rule: (method, options) game ``spec`` with ``settings`` is solved with when
    nothing else is asked (the window's first algorithm, ``mdpviz solve`` and ``mdpviz export`` without
    ``--method``): its spec's ``model.solve_with``, else :data:`DEFAULT_SOLVE`."""
    hook = spec.model.solve_with
    method, opts = hook(settings) if hook is not None else DEFAULT_SOLVE
    return str(method), dict(opts)


def mdp_of(spec: Any, inp: Any, built: Any) -> TabularMDP | None:
    """The MDP of settings ``inp`` from what the spec built of them (its ``model.mdp_of``, else what was
    built when it is a TabularMDP, else its ``mdp``)."""
    if spec.model.mdp_of is not None:
        return spec.model.mdp_of(inp, built)
    return built if isinstance(built, TabularMDP) else built.mdp


@dataclass(frozen=True, eq=False)
class GameModel:
    """One game's settings and the model they built, frozen, with the game's own names for its states and actions."""

    spec: Any
    """The game's :class:`~mdpviz.models.kit.game.registry.GameSpec`."""
    settings: Any
    """What the model was built from: the settings (validated), or what a game's driver makes of them."""
    built: Any
    """What the spec built from them (its ``model.build``, else the MDP itself)."""
    mdp: TabularMDP
    """The compiled model."""
    driver: Any = None
    """The game's :class:`~mdpviz.models.kit.game.driver.Driver` (rounds), or None."""
    display: Mapping[str, Any] | None = None
    """The display settings (None: the spec's defaults)."""

    @property
    def key(self) -> str:
        return self.spec.key

    @cached_property
    def context(self) -> Context:
        """What the spec's hooks see (as the window's session shows them)."""
        display = self.display
        if display is None:
            display = self.spec.display.settings({}, "") if self.spec.display.settings is not None else {}
        return Context(self.spec, self.settings, self.built, self.mdp, display, self.driver)

    def state_labels(self) -> list[str]:
        """One name per state, in the model's state order (the names the window's inspector shows)."""
        return [self.spec.names.state_name(self.context, s) for s in range(self.mdp.n_states)]

    def action_label(self, s: int, a: int) -> str:
        """Action ``a`` of state ``s`` in the game's words."""
        return self.spec.names.action_name(self.context, int(a))

    def start_state(self) -> int:
        """Where the game starts (episodes, simulations, the lesson's worked example)."""
        return int(self.spec.episodes.start_state(self.context))

    def solve_defaults(self) -> tuple[str, dict[str, Any]]:
        """(method, options) the game is solved with when nothing else is asked (:func:`solve_defaults`)."""
        return solve_defaults(self.spec, self.settings)


class Game:
    """One game of the registry, headless and live: its settings (one immutable object at a time), the
    model they build (cached), its display settings, its driver, and everything its spec answers."""

    def __init__(self, spec: Any, settings: Any = None, *, compile_here: bool = True) -> None:
        self.spec = spec
        self._settings = spec.default_settings() if settings is None else settings
        self.compile_here = compile_here
        """True: a compile job runs here, to its end, when the model is asked for; False: the model waits
        for :meth:`keep` (the window's session, which runs the job on its controller's thread)."""
        self.display: dict[str, Any] = dict(spec.display.settings({}, "")) if spec.display.settings is not None else {}
        """The display settings (not edits: no undo, no solver reset), saved beside the settings."""
        self.driver: Any = spec.model.driver() if spec.model.driver is not None else None
        """The game's own state machine (:class:`~mdpviz.models.kit.game.driver.Driver`: rounds, training), or None."""
        if self.driver is not None:
            self.driver.settings_changed(self._settings)
        self._model: tuple[Any, Any, TabularMDP | None, str] | None = None  # (input, built, mdp, error)
        self._built: OrderedDict[Hashable, Any] = OrderedDict()
        self._errors: dict[Hashable, str] = {}

    # ------------------------------------------------------------------ names
    @property
    def key(self) -> str:
        return self.spec.key

    @property
    def title(self) -> str:
        return self.spec.title

    @property
    def value_label(self) -> str:
        return self.spec.value_label

    @property
    def unit(self) -> str:
        return self.spec.unit

    @property
    def color_kind(self) -> str:
        return self.spec.display.color_kind

    # ------------------------------------------------------------------ settings
    @property
    def settings(self) -> Any:
        """The current settings (immutable)."""
        return self._settings

    def apply(self, settings: Any) -> None:
        """Take ``settings`` (already validated) in place of the current ones: no undo (the window's session
        keeps the history); the driver is told; the model is built again when next asked for."""
        self._settings = settings
        if self.driver is not None:
            self.driver.settings_changed(settings)

    def model_input(self) -> Any:
        """What the model is built from: the settings (with what the driver adds, e.g. the rounds)."""
        return self._settings if self.driver is None else self.driver.model_input(self._settings)

    def set_display(self, name: str, value: Any) -> bool:
        """Change a display setting; False if it was that already."""
        if self.display.get(name) == value:
            return False
        self.display[name] = value
        return True

    # ------------------------------------------------------------------ the model
    def build_key(self, inp: Any = None) -> Hashable:
        """What building ``inp`` (default: the current model input) depends on (the spec's ``model.build_key``)."""
        inp = self.model_input() if inp is None else inp
        return self.spec.model.build_key(inp) if self.spec.model.build_key is not None else inp

    @property
    def compiles_in_job(self) -> bool:
        """The model is built by a compile job (:meth:`compile_job`): every game with a table (the window runs
        it on its controller's job thread, never on the GUI thread); False for a game without a table
        (:attr:`~mdpviz.models.kit.game.registry.GameSpec.no_table`: nothing to build)."""
        return not self.spec.no_table

    def compile_job(self, inp: Any = None) -> Iterator:
        """The compile job of ``inp`` (default: the current model input), one rule for every game: the spec's
        ``jobs["compile"]`` where it has one (its own progress), else :func:`build_job` (its build in a
        generator that yields one progress). Yields progress, returns what it built."""
        inp = self.model_input() if inp is None else inp
        if "compile" in self.spec.jobs:
            return self.spec.jobs["compile"](inp)
        return build_job(self.spec, inp)

    def is_built(self, key: Hashable) -> bool:
        """What build key ``key`` builds is kept."""
        return key in self._built

    def failed(self, key: Hashable) -> bool:
        """Building key ``key`` failed (until :meth:`retry`)."""
        return key in self._errors

    def keep(self, key: Hashable, built: Any) -> None:
        """Keep ``built`` as what build key ``key`` builds (a compile job's result; None: nothing, e.g. the
        file game without a file); the last :data:`BUILT_KEPT` are kept besides the current one's."""
        self._built[key] = built
        self._errors.pop(key, None)
        self._model = None
        current = self.build_key()
        while len(self._built) > BUILT_KEPT:
            del self._built[next(k for k in self._built if k != current)]

    def fail(self, key: Hashable, message: str) -> None:
        """Building key ``key`` failed with ``message`` (what :meth:`mdp_error` then says)."""
        self._errors[key] = message
        self._model = None

    def refresh(self) -> None:
        """Build the model again when next asked for (what was kept stays kept)."""
        self._model = None

    def retry(self) -> None:
        """Forget why the current settings failed to build (they are built again when next asked for)."""
        self._errors.pop(self.build_key(), None)
        self._model = None

    def prime(self, settings: Any, built: Any) -> None:
        """Keep ``built`` as what ``settings`` build (made elsewhere, e.g. a file parsed by a job)."""
        self.keep(self.build_key(settings), built)

    def _current(self) -> tuple[Any, Any, TabularMDP | None, str]:
        inp = self.model_input()
        if self._model is None or self._model[0] is not inp:
            built, mdp, err = None, None, ""
            try:
                built = self._build(inp)
                mdp = None if built is None else mdp_of(self.spec, inp, built)
            except ValueError as e:
                built, mdp, err = None, None, str(e)
            self._model = (inp, built, mdp, err)
        return self._model

    def _build(self, inp: Any) -> Any:
        if self.spec.no_table:
            return None  # (a game without a table: its ``compile`` gives None, nothing is built)
        key = self.build_key(inp)
        if key in self._errors:
            raise ValueError(self._errors[key])
        if key in self._built:
            return self._built[key]
        if not self.compile_here:
            return None  # (the window's session runs the compile job and calls keep)
        built = drive(self.compile_job(inp))
        self.keep(key, built)
        return built

    def waiting(self) -> bool:
        """The model of the current settings is still to be built by a compile job run elsewhere (a game made
        with ``compile_here=False``, until :meth:`keep` or :meth:`fail` of its build key)."""
        if self.compile_here or not self.compiles_in_job:
            return False
        key = self.build_key()
        return key not in self._built and key not in self._errors

    def compile_now(self) -> TabularMDP | None:
        """The MDP, compiled here and now through the spec's compile job if it is not built yet (also for
        a game made with ``compile_here=False``); None when there is none (:meth:`mdp_error` says why)."""
        m = self.mdp()
        key = self.build_key()
        if m is not None or not self.compiles_in_job or key in self._errors or key in self._built:
            return m
        try:
            built = drive(self.compile_job())
        except ValueError as e:
            self.fail(key, str(e))
            return None
        self.keep(key, built)
        return self.mdp()

    def built(self) -> Any:
        """What the game built from its settings (its spec's ``model.build``, or the compiled MDP); None:
        nothing (yet)."""
        return self._current()[1]

    def mdp(self) -> TabularMDP | None:
        """The compiled MDP of the current settings (cached), or None (:meth:`mdp_error` says why)."""
        return self._current()[2]

    def mdp_error(self) -> str:
        """Why there is no MDP ("" if there is one, or while it compiles)."""
        return self._current()[3]

    def context(self) -> Context:
        """What the spec's hooks see of the game now."""
        inp, built, mdp, _err = self._current()
        return Context(self.spec, inp, built, mdp, self.display, self.driver)

    def model(self) -> GameModel:
        """The built model, frozen (ValueError: a game without a table, saying why, or settings that do
        not build, in the game's own words)."""
        spec = self.spec
        if spec.no_table:
            raise ValueError(f"game {spec.key!r} has no table of states to solve: {spec.no_table}")
        inp, built, mdp, err = self._current()
        if err:
            raise ValueError(err)
        if mdp is None:
            raise ValueError(f"game {spec.key!r}: its settings build no model")
        return GameModel(spec, inp, built, mdp, self.driver, dict(self.display))

    # ------------------------------------------------------------------ what the spec answers
    def solve_defaults(self) -> tuple[str, dict[str, Any]]:
        """(method, options) the game is solved with when nothing else is asked (:func:`solve_defaults`)."""
        return solve_defaults(self.spec, self.model_input())

    def start_state(self) -> int:
        ctx = self.context()
        return 0 if ctx.built is None else int(self.spec.episodes.start_state(ctx))

    def state_name(self, s: int) -> str:
        ctx = self.context()
        return str(s) if ctx.built is None else self.spec.names.state_name(ctx, int(s))

    def action_name(self, a: int) -> str:
        ctx = self.context()
        return str(a) if ctx.built is None else self.spec.names.action_name(ctx, int(a))

    def outcome_text(self, s: int) -> str:
        """How an episode that ended in terminal state ``s`` ended, in the game's words."""
        return self.spec.names.outcome_text(self.context(), int(s))

    def backup_terms(self, s: int, a: int, values: np.ndarray) -> list:
        """The outcomes of (s, a) for the inspector's Bellman backup, valued with ``values``."""
        return self.spec.names.backup_terms(self.context(), int(s), int(a), values)

    def strategies(self) -> list[str]:
        """The strategies the episode player offers (a game whose simulations are matchups, with no
        ``strategy_probs``, plays the optimal and the random one)."""
        hooks, mdp = self.spec.episodes, self.mdp()
        if mdp is None:
            return []
        if hooks.strategies is None or hooks.strategy_probs is None:
            return ["optimal", "random"]
        return list(hooks.strategies(self._settings, mdp))

    def strategy_probs(self, name: str, policy: np.ndarray | None) -> np.ndarray:
        """(n_states, n_actions) action probabilities of strategy ``name`` (``policy``: the greedy one)."""
        hooks, mdp = self.spec.episodes, self.mdp()
        if hooks.strategy_probs is None:
            return walk_strategy_probs(name, mdp, policy)
        return hooks.strategy_probs(self._settings, name, mdp, policy)

    def episode(self, probs: np.ndarray, rng: np.random.Generator) -> list:
        """One episode played with action probabilities ``probs``."""
        return self.spec.episodes.episode(self.context(), probs, rng)

    def simulation(self, policy: np.ndarray | None, *, games: int, seed: int) -> Iterator:
        """The batch simulation as a job generator (ValueError at once when it cannot run, e.g. no model)."""
        ctx = self.context()
        if ctx.mdp is None and not self.spec.no_table:
            raise ValueError("Nothing to simulate: no model.")
        return self.spec.episodes.simulation(ctx, policy, games=int(games), seed=int(seed))

    def lesson(self) -> Any:
        """The game's lesson with its current settings and model (:func:`~mdpviz.models.kit.teaching.lessons.lesson_for`)."""
        from mdpviz.models.kit.teaching.lessons import lesson_for

        mdp = self.mdp()
        start = self.start_state() if mdp is not None else 0
        return lesson_for(self.key, self.model_input(), mdp, title=self.title, start=start, state_name=self.state_name,
                          action_name=self.action_name if mdp is not None else None)

    def job(self, name: str, *args: Any, **kwargs: Any) -> Iterator:
        """The spec's job ``name`` as a generator (KeyError naming the jobs the game offers)."""
        if name not in self.spec.jobs:
            raise KeyError(f"game {self.key!r} has no job {name!r} (it has: {', '.join(self.spec.jobs) or 'none'})")
        return self.spec.jobs[name](*args, **kwargs)

    # ------------------------------------------------------------------ the discount
    @property
    def supports_discount(self) -> bool:
        """The discount can be edited (False: fixed by the game)."""
        return self.spec.model.with_discount is not None

    def discount(self) -> float | None:
        m = self.mdp()
        return None if m is None else m.discount

    def with_discount(self, gamma: float) -> Any:
        """The settings with discount ``gamma`` (ValueError saying why it cannot be); the settings
        themselves when the game fixes its discount."""
        gamma = float(gamma)
        if self.spec.model.with_discount is None:
            return self._settings
        if not 0.0 <= gamma <= 1.0:
            raise ValueError(f"discount must be in [0, 1], got {gamma}")
        return self.spec.model.with_discount(self.context(), gamma)

    def discount_tooltip(self) -> str:
        """The discount field's tooltip: "" when the discount can be edited (the field's own), else the
        spec's note or a generic one naming the fixed discount."""
        if self.supports_discount:
            return ""
        if self.spec.model.discount_note:
            return self.spec.model.discount_note
        gamma = self.discount()
        if gamma is None:
            return "This game has no discount to edit."
        if gamma == 1.0:
            return "Fixed by this game: results are not discounted (the discount is 1)."
        return f"Fixed by this game: the discount is {gamma:g}."

    # ------------------------------------------------------------------ scenario data
    def to_dict(self) -> dict[str, Any]:
        """The game's entry in a scenario file: its settings, then its display settings."""
        return {**self.spec.to_dict(self._settings), **self.display}

    def read_dict(self, data: dict[str, Any], path: str) -> Any:
        """The settings described by scenario data (validated, with the display settings: ScenarioError
        naming the field); nothing changes here (see :meth:`apply`, :meth:`load_display`)."""
        return read_game_dict(self.spec, data, path)

    def load_display(self, data: dict[str, Any], path: str = "") -> None:
        """Take the display settings stored in scenario data (checked by :meth:`read_dict` before)."""
        if self.spec.display.settings is not None:
            self.display.update(self.spec.display.settings(data, path))

    # ------------------------------------------------------------------ the driver
    @property
    def drives_steps(self) -> bool:
        """The window's Step, Run, Pause and Reset drive the game's driver (anti-tic-tac-toe's rounds)."""
        return self.driver is not None and self.driver.drives_steps

    def state_text(self) -> str | None:
        """The status bar's state of a game without a solver (the 3D game's training); None: the solver's."""
        return None if self.driver is None else self.driver.state_text()

    def solve_after_reset(self) -> bool:
        return self.driver is not None and self.driver.solve_after_reset()


def read_game_dict(spec: Any, data: dict[str, Any], path: str) -> Any:
    """The settings of game ``spec`` described by its scenario data (validated, the display settings
    checked too: ScenarioError naming the field); pure, so any thread may check a scenario."""
    if spec.display.settings is not None:
        spec.display.settings(data, path)
    return spec.from_dict(data, path)


def build_job(spec: Any, inp: Any) -> Iterator:
    """The compile job of a game without one of its own: one :class:`~mdpviz.core.jobs.JobProgress`, then
    its build of ``inp`` (the spec's ``model.build``, else its ``compile``), returned."""
    yield JobProgress(0, 0, f"Building {spec.title}\u2026")
    return spec.model.build(inp) if spec.model.build is not None else spec.compile(inp)


def build_game(key: str, settings: Any = None) -> GameModel:
    """Game ``key`` (any spelling the registry accepts) built from ``settings`` (default: the game's
    defaults) on the calling thread (a compile job runs to its end here). ValueError: an unknown key
    (naming the choices), a game without a table (saying why), or settings that do not build (the
    game's own words)."""
    spec = registry.get(registry.canonical(key))
    if spec.no_table:
        raise ValueError(f"game {spec.key!r} has no table of states to solve: {spec.no_table}")
    return Game(spec, settings).model()


__all__ = ["BUILT_KEPT", "DEFAULT_SOLVE", "Game", "GameModel", "build_game", "build_job", "mdp_of", "read_game_dict", "solve_defaults"]
