"""One game in the window, generic: :class:`GameSession`, built from the game's headless spec and never
subclassed per game.

A session owns what the window knows of a game apart from drawing it: the settings (immutable, one
object at a time) and their undo stack, the model built from them (cached; a game that compiles in
a background job, e.g. checkers, compiles through its spec's ``jobs["compile"]`` on the window's
job thread), the scenario data (through the spec's codec), strategies, simulations, episodes, the
lesson, the display settings, the game's own state machine (its spec's driver: anti-tic-tac-toe's
rounds, the 3D game's training) and its background jobs. Everything that differs per game is the
spec's (:mod:`mdpviz.models.kit.game.registry`, hooks in :mod:`mdpviz.models.kit.game.hooks`); how a game is
drawn and edited is its view's (:mod:`mdpviz.widgets.games`), which makes its edits through
:meth:`GameSession.edit`.

Jobs go to a runner the window sets (its controller: ``start_job(job) -> bool``, ``cancel_job()``,
``current_job``), which steps them on its job thread and calls their callbacks; without one (a
session on its own, in a test) a job is refused.
"""
from __future__ import annotations

import weakref
from collections import OrderedDict
from dataclasses import replace
from typing import Any, Callable, Hashable, Iterator

import numpy as np
from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from mdpviz.core.jobs import Job, run_here
from mdpviz.models.kit.game.driver import Driver
from mdpviz.models.kit.boards.episodes import Move
from mdpviz.models.kit.game.hooks import Context
from mdpviz.models.kit.game.registry import GameSpec
from mdpviz.models.kit.boards.strategies import walk_strategy_probs
from mdpviz.core.mdp import TabularMDP

BUILT_KEPT = 3
"""Built models kept per game when its spec builds by a key (so Undo of a checkers variant does not compile again)."""

REFUSED = "Another background job (a simulation or a solve) is running."
"""Why a job did not start."""

RETRY_MS = 150
"""A compile refused because another job was finishing is tried again after this many milliseconds."""


class _Edit(QUndoCommand):
    """One edit of a game: swaps the session's immutable settings (undo puts the old ones back)."""

    def __init__(self, session: "GameSession", old: Any, new: Any, text: str) -> None:
        super().__init__(text)
        self.session, self.old, self.new = session, old, new

    def redo(self) -> None:
        self.session._set(self.new, self.text())

    def undo(self) -> None:
        self.session._set(self.old, f"undid: {self.text()}")


class _Opened(_Edit):
    """A scenario's settings replacing the game's (File > Open scenario): the first redo is quiet, as
    :meth:`GameSession.load_state` is; undo (and redo after it) are edits like any other."""

    def __init__(self, session: "GameSession", old: Any, new: Any, text: str) -> None:
        super().__init__(session, old, new, text)
        self._pushed = False

    def redo(self) -> None:
        if self._pushed:
            super().redo()
            return
        self._pushed = True
        self.session._replace(self.new)


class GameSession(QObject):
    """One game's settings, undo stack, model, scenario data, simulations, episodes, lesson and jobs."""

    edited = Signal(str)
    """The model changed (an edit, undo or redo, a finished compile, a round): the text says what; the
    window starts the solve again."""
    changed = Signal()
    """Something shown changed but not the model (a display setting, a job's or the driver's state)."""
    message = Signal(str)
    """A note for the status bar (e.g. a compile cancelled, or why an edit was refused)."""
    refused = Signal(str)
    """An edit was refused: why (the window shows it above the game's editor until its next edit and puts
    the editor's fields back to the settings, see :meth:`refuse`)."""

    def __init__(self, spec: GameSpec, settings: Any = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.spec = spec
        self._settings = spec.default_settings() if settings is None else settings
        self.undo_stack = QUndoStack(self)
        self.display: dict[str, Any] = dict(spec.display({}, "")) if spec.display is not None else {}
        """The display settings (not edits: no undo, no solver reset), saved beside the settings."""
        self.driver: Driver | None = spec.driver() if spec.driver is not None else None
        """The game's own state machine (rounds, training), or None."""
        if self.driver is not None:
            self.driver.host = weakref.proxy(self)  # (no reference cycle between a QObject and its driver)
            self.driver.settings_changed(self._settings)
        self.runner: Any = None
        """Where jobs run (the window's controller); None: jobs are refused."""
        self._job: Job | None = None
        self._model: tuple[Any, Any, TabularMDP | None, str] | None = None  # (input, built, mdp, error)
        self._built: OrderedDict[Hashable, Any] = OrderedDict()
        self._errors: dict[Hashable, str] = {}
        self._compiling: Hashable | None = None
        self._held: Hashable | None = None
        self._user_cancel = False
        self.progress_text = ""
        """The running compile's last progress text."""
        self.progress: tuple[int, int] = (0, 0)
        """The running compile's last progress (done, total; total 0: unknown)."""
        self._compile_timer = QTimer(self)
        self._compile_timer.setSingleShot(True)
        self._compile_timer.timeout.connect(self._start_compile)

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
        return self.spec.color_kind

    # ------------------------------------------------------------------ settings and edits
    @property
    def settings(self) -> Any:
        """The current settings (immutable)."""
        return self._settings

    def edit(self, new: Any, text: str) -> bool:
        """Apply an edit through the undo stack; False if it changes nothing."""
        if new == self._settings:
            return False
        self.undo_stack.push(_Edit(self, self._settings, new, text))
        return True

    def refuse(self, why: str) -> bool:
        """Refuse an edit: the settings stay, :attr:`refused` and :attr:`message` say why; False (what an
        edit returns)."""
        self.refused.emit(why)
        self.message.emit(why)
        return False

    def _set(self, settings: Any, text: str) -> None:
        self._settings = settings
        if self.driver is not None:
            self.driver.settings_changed(settings)
        self.edited.emit(text)

    def load_state(self, settings: Any) -> None:
        """Replace the settings wholesale (a loaded scenario): no undo history, counts as saved. Does not
        emit ``edited``: the window starts the solve again once after loading every game."""
        self.undo_stack.clear()
        self._replace(settings)
        self.undo_stack.setClean()

    def open_state(self, settings: Any, text: str) -> None:
        """Take a scenario's settings as :meth:`load_state` does (quiet, counts as saved), but as one undo
        step (``text``) back to the settings shown before when they differ; the history stays."""
        if settings != self._settings:
            self.undo_stack.push(_Opened(self, self._settings, settings, text))
        self.undo_stack.setClean()

    def _replace(self, settings: Any) -> None:
        self._settings = settings
        if self.driver is not None:
            self.driver.settings_changed(settings)

    def set_display(self, name: str, value: Any) -> None:
        """Change a display setting (no undo, no new solve); ``changed`` follows if it is new."""
        if self.display.get(name) != value:
            self.display[name] = value
            self.changed.emit()

    # ------------------------------------------------------------------ the model
    def model_input(self) -> Any:
        """What the model is built from: the settings (with what the driver adds, e.g. the rounds)."""
        return self._settings if self.driver is None else self.driver.model_input(self._settings)

    def _key(self, inp: Any) -> Hashable:
        return self.spec.build_key(inp) if self.spec.build_key is not None else inp

    def _current(self) -> tuple[Any, Any, TabularMDP | None, str]:
        inp = self.model_input()
        if self._model is None or self._model[0] is not inp:
            built, err = None, ""
            try:
                built = self._build(inp)
                mdp = None if built is None else self._mdp_of(inp, built)
            except ValueError as e:
                built, mdp, err = None, None, str(e)
            self._model = (inp, built, mdp, err)
        return self._model

    def _build(self, inp: Any) -> Any:
        spec = self.spec
        if "compile" in spec.jobs or spec.build_key is not None:
            key = self._key(inp)
            if key in self._errors:
                raise ValueError(self._errors[key])
            if key in self._built:
                return self._built[key]
            if "compile" in spec.jobs:
                return None  # (mdp() asks for the compile)
            built = spec.build(inp)
            self._keep(key, built)
            return built
        return spec.build(inp) if spec.build is not None else spec.compile(inp)

    def _mdp_of(self, inp: Any, built: Any) -> TabularMDP | None:
        spec = self.spec
        if spec.mdp_of is not None:
            return spec.mdp_of(inp, built)
        return built if isinstance(built, TabularMDP) else built.mdp

    def _keep(self, key: Hashable, built: Any) -> None:
        self._built[key] = built
        current = self._key(self.model_input())
        while len(self._built) > BUILT_KEPT:
            del self._built[next(k for k in self._built if k != current)]

    def built(self) -> Any:
        """What the game built from its settings (its spec's ``build``, or the compiled MDP); None: nothing
        (yet: asking does not start a compile, :meth:`mdp` does)."""
        return self._current()[1]

    def mdp(self) -> TabularMDP | None:
        """The compiled MDP of the current settings (cached), or None when there is none (yet). A game that
        compiles in a job starts compiling now (soon, on the job thread) if it has not yet."""
        _inp, _built, m, err = self._current()
        if m is None and not err and "compile" in self.spec.jobs:
            self._request_compile()
        return m

    def mdp_error(self) -> str:
        """Why there is no MDP ("" if there is one, or while it compiles)."""
        return self._current()[3]

    def prime(self, settings: Any, built: Any) -> None:
        """Keep ``built`` as what ``settings`` build (made off the GUI thread, e.g. a file parsed by a job)."""
        self._keep(self._key(settings), built)

    def context(self) -> Context:
        """What the spec's hooks see of the game now."""
        inp, built, mdp, _err = self._current()
        return Context(self.spec, inp, built, mdp, self.display, self.driver)

    # ------------------------------------------------------------------ compiling in a job
    @property
    def compiling(self) -> bool:
        """The spec's compile job runs for this game."""
        return self._compiling is not None

    @property
    def compile_held(self) -> bool:
        """The user cancelled the compile of the current settings (it waits for :meth:`build_now`)."""
        return self._held is not None and self._held == self._key(self.model_input())

    def _request_compile(self) -> None:
        """Start compiling the current settings soon (after the window has finished its reset, which
        cancels any job in flight), unless it runs already or the user cancelled it."""
        key = self._key(self.model_input())
        if self._compiling == key or self._held == key or key in self._built:
            return
        if not self._compile_timer.isActive():
            self._compile_timer.start(0)

    def _compile_job(self, inp: Any, key: Hashable) -> Job:
        return Job(lambda: self.spec.jobs["compile"](inp), label=f"{self.title}: compiling",
                   on_done=lambda built: self._on_compiled(key, built), on_progress=self._on_compile_progress,
                   on_failed=lambda msg: self._on_compile_failed(key, msg),
                   on_cancelled=lambda: self._on_compile_cancelled(key))

    def _start_compile(self) -> None:
        inp = self.model_input()
        key = self._key(inp)
        if key in self._built or self._held == key or key in self._errors:
            return
        if self._compiling is not None:
            if self._compiling != key:  # an older one is compiling: stop it, then start this one
                self.cancel_job()
            return
        self._compiling = key
        self._user_cancel = False
        self.progress_text, self.progress = "", (0, 0)
        if not self._start(self._compile_job(inp, key)):  # another job is finishing: try again soon
            self._compiling = None
            self._compile_timer.start(RETRY_MS)
            return
        self.changed.emit()

    def build_now(self) -> None:
        """(Re)start the compile of the current settings (the Build button, e.g. after Cancel)."""
        self._held = None
        self._errors.pop(self._key(self.model_input()), None)
        self._model = None
        self._request_compile()
        self.changed.emit()

    def cancel_compile(self) -> None:
        """Cancel the running compile; it is not started again until :meth:`build_now`."""
        if self._compiling is not None:
            self._user_cancel = True
            self.cancel_job()

    def _on_compile_progress(self, done: int, total: int, text: str) -> None:
        self.progress_text, self.progress = text, (int(done), int(total))
        self.changed.emit()

    def _compiled_current(self, key: Hashable) -> bool:
        return key == self._key(self.model_input())

    def _on_compiled(self, key: Hashable, built: Any) -> None:
        self._compiling = None
        if built is None:
            self._on_compile_cancelled(key)
            return
        self._keep(key, built)
        if self._compiled_current(key):
            self._model = None
            m = self.mdp()
            self.edited.emit(f"compiled {m.n_states:,} states" if m is not None else "compiled")
        else:
            self._request_compile()
        self.changed.emit()

    def _on_compile_failed(self, key: Hashable, msg: str) -> None:
        self._compiling = None
        self._errors[key] = msg
        if self._compiled_current(key):
            self._model = None
            self.edited.emit("compile refused")
        else:
            self._request_compile()
        self.changed.emit()

    def _on_compile_cancelled(self, key: Hashable) -> None:
        self._compiling = None
        if self._user_cancel and self._compiled_current(key):
            self._held = key
            self.message.emit(f"{self.title}: compile cancelled.")
        self._user_cancel = False
        self._model = None  # the next mdp() asks again (a game switch cancels without holding)
        if not self._compiled_current(key):
            self._request_compile()
        self.changed.emit()

    def compile_here(self) -> TabularMDP | None:
        """The MDP, compiled on this thread now if the spec compiles in a job (``mdpviz export``, with
        no window); None when there is none (:meth:`mdp_error` says why)."""
        m = self.mdp()
        if m is not None or "compile" not in self.spec.jobs:
            return m
        self._compile_timer.stop()
        inp = self.model_input()
        key = self._key(inp)
        if key in self._errors:
            return None
        self._compiling = key
        run_here(self._compile_job(inp, key))
        return self.mdp()

    # ------------------------------------------------------------------ jobs
    def _start(self, job: Job) -> bool:
        def ended(fn: Callable[..., None] | None) -> Callable[..., None]:
            def call(*args: Any) -> None:
                if self._job is tracked:
                    self._job = None
                if fn is not None:
                    fn(*args)
            return call

        tracked = replace(job, on_done=ended(job.on_done), on_failed=ended(job.on_failed),
                          on_cancelled=ended(job.on_cancelled))
        if self.runner is None or not self.runner.start_job(tracked):
            return False
        self._job = tracked
        return True

    def run_job(self, job: Job) -> bool:
        """Run ``job`` on the window's job thread (its callbacks are called on the GUI thread); if it cannot
        start (another job runs, no window), its ``on_failed`` is told at once and False returned."""
        if self._start(job):
            if job.label:
                self.message.emit(job.label)
            return True
        self.message.emit(REFUSED)
        if job.on_failed is not None:
            job.on_failed(REFUSED)
        return False

    def cancel_job(self) -> None:
        """Cancel this game's running job (its ``on_cancelled`` follows)."""
        if self._job is not None and self.runner is not None and self.runner.current_job is self._job:
            self.runner.cancel_job()

    @property
    def job_running(self) -> bool:
        """A job of this game runs."""
        return self._job is not None

    # the driver's host (see mdpviz.models.kit.game.driver.Host)
    def later(self, ms: int, fn: Callable[[], None]) -> None:
        QTimer.singleShot(int(ms), self, fn)

    def model_changed(self, text: str) -> None:
        self.edited.emit(text)

    def state_changed(self) -> None:
        self.changed.emit()

    def note(self, text: str) -> None:
        self.message.emit(text)

    # ------------------------------------------------------------------ scenario data
    def to_dict(self) -> dict[str, Any]:
        """The game's entry in a scenario file: its settings, then its display settings."""
        return {**self.spec.to_dict(self._settings), **self.display}

    def load_dict(self, data: dict[str, Any], path: str) -> Any:
        """The settings described by scenario data (validated, with the display settings: ScenarioError
        naming the field); nothing changes here (see :meth:`load_state`, :meth:`load_display`)."""
        if self.spec.display is not None:
            self.spec.display(data, path)
        return self.spec.from_dict(data, path)

    def load_display(self, data: dict[str, Any], path: str = "") -> None:
        """Take the display settings stored in scenario data (checked by :meth:`load_dict` before)."""
        if self.spec.display is not None:
            self.display.update(self.spec.display(data, path))

    # ------------------------------------------------------------------ the discount
    @property
    def supports_discount(self) -> bool:
        """The discount can be edited (False: fixed by the game)."""
        return self.spec.with_discount is not None

    def discount(self) -> float | None:
        m = self.mdp()
        return None if m is None else m.discount

    def set_discount(self, gamma: float) -> bool:
        """Edit the discount (ValueError saying why it cannot be ``gamma``); False if nothing changed."""
        gamma = float(gamma)
        if self.spec.with_discount is None:
            return False
        if not 0.0 <= gamma <= 1.0:
            raise ValueError(f"discount must be in [0, 1], got {gamma}")
        return self.edit(self.spec.with_discount(self.context(), gamma), f"discount {gamma:g}")

    def discount_tooltip(self) -> str:
        """The discount field's tooltip: "" when the discount can be edited (the field's own), else the
        spec's note or a generic one naming the fixed discount."""
        if self.supports_discount:
            return ""
        if self.spec.discount_note:
            return self.spec.discount_note
        gamma = self.discount()
        if gamma is None:
            return "This game has no discount to edit."
        if gamma == 1.0:
            return "Fixed by this game: results are not discounted (the discount is 1)."
        return f"Fixed by this game: the discount is {gamma:g}."

    # ------------------------------------------------------------------ names, episodes, simulation
    def start_state(self) -> int:
        ctx = self.context()
        return 0 if ctx.built is None else int(self.spec.start_state(ctx))

    def state_name(self, s: int) -> str:
        ctx = self.context()
        return str(s) if ctx.built is None else self.spec.state_name(ctx, int(s))

    def action_name(self, a: int) -> str:
        ctx = self.context()
        return str(a) if ctx.built is None else self.spec.action_name(ctx, int(a))

    def outcome_text(self, s: int) -> str:
        """How an episode that ended in terminal state ``s`` ended, in the game's words."""
        return self.spec.outcome_text(self.context(), int(s))

    def backup_terms(self, s: int, a: int, values: np.ndarray) -> list:
        """The outcomes of (s, a) for the inspector's Bellman backup, valued with ``values``."""
        return self.spec.backup_terms(self.context(), int(s), int(a), values)

    def strategies(self) -> list[str]:
        """The strategies the episode player offers (a game whose simulations are matchups, with no
        ``strategy_probs``, plays the optimal and the random one)."""
        spec, mdp = self.spec, self.mdp()
        if mdp is None:
            return []
        if spec.strategies is None or spec.strategy_probs is None:
            return ["optimal", "random"]
        return list(spec.strategies(self._settings, mdp))

    def strategy_probs(self, name: str, policy: np.ndarray | None) -> np.ndarray:
        """(n_states, n_actions) action probabilities of strategy ``name`` (``policy``: the greedy one)."""
        spec, mdp = self.spec, self.mdp()
        if spec.strategy_probs is None:
            return walk_strategy_probs(name, mdp, policy)
        return spec.strategy_probs(self._settings, name, mdp, policy)

    def episode(self, probs: np.ndarray, rng: np.random.Generator) -> list[Move]:
        """One episode played with action probabilities ``probs``."""
        return self.spec.episode(self.context(), probs, rng)

    def simulation(self, policy: np.ndarray | None, *, games: int, seed: int) -> Iterator:
        """The batch simulation as a job generator (ValueError at once when it cannot run, e.g. no model)."""
        ctx = self.context()
        if ctx.mdp is None and not self.spec.no_table:
            raise ValueError("Nothing to simulate: no model.")
        return self.spec.simulation(ctx, policy, games=int(games), seed=int(seed))

    def lesson(self) -> Any:
        """The game's lesson with its current settings and model (:func:`~mdpviz.models.kit.teaching.lessons.lesson_for`)."""
        from mdpviz.models.kit.teaching.lessons import lesson_for

        mdp = self.mdp()
        start = self.start_state() if mdp is not None else 0
        return lesson_for(self.key, self.model_input(), mdp, title=self.title, start=start, state_name=self.state_name,
                          action_name=self.action_name if mdp is not None else None)

    # ------------------------------------------------------------------ the driver (the window's Step, Run, Pause, Reset)
    @property
    def drives_steps(self) -> bool:
        """The window's Step, Run, Pause and Reset drive the game's driver (anti-tic-tac-toe's rounds)."""
        return self.driver is not None and self.driver.drives_steps

    def state_text(self) -> str | None:
        """The status bar's state of a game without a solver (the 3D game's training); None: the solver's."""
        return None if self.driver is None else self.driver.state_text()

    def solve_after_reset(self) -> bool:
        return self.driver is not None and self.driver.solve_after_reset()


__all__ = ["BUILT_KEPT", "GameSession"]
