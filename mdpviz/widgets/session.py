"""One game in the window, generic: :class:`GameSession`, a Qt wrapper of the game's headless
:class:`~mdpviz.models.kit.game.game_model.Game`, never subclassed per game.

The headless game (:attr:`GameSession.game`) owns the settings, the model built from them (cached),
the one default-solve rule, the start state, the names, strategies, episodes, simulations, the lesson,
the display settings, the scenario data and the game's own state machine (its spec's driver). The
session adds what a window needs and nothing else: the undo stack (every edit goes through
:meth:`GameSession.edit`), Qt signals saying what changed, and the hand-off of jobs to the window's
controller, in particular the compile: a game that compiles in its spec's ``jobs["compile"]`` (checkers,
Jack's car rental) compiles on the window's job thread, never on the GUI thread. Everything that
differs per game is the spec's (:mod:`mdpviz.models.kit.game.registry`); how a game is drawn and edited is
its view's (:mod:`mdpviz.widgets.games`).

Jobs go to a runner the window sets (its controller: ``start_job(job) -> bool``, ``cancel_job()``,
``current_job``), which steps them on its job thread and calls their callbacks; without one (a
session on its own, in a test) a job is refused.
"""
from __future__ import annotations

import weakref
from dataclasses import replace
from typing import Any, Callable, Hashable

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from mdpviz.core.jobs import Job
from mdpviz.models.kit.game.game_model import BUILT_KEPT, Game
from mdpviz.models.kit.game.hooks import Context
from mdpviz.models.kit.game.registry import GameSpec
from mdpviz.core.mdp import TabularMDP

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


class _DriverHost:
    """What a game's driver (:class:`~mdpviz.models.kit.game.driver.Host`) asks of the window, answered by the
    session (held weakly: no reference cycle between a QObject and its driver; a gone session answers nothing)."""

    def __init__(self, session: "GameSession") -> None:
        self._session = weakref.ref(session)

    def run_job(self, job: Job) -> bool:
        s = self._session()
        return s is not None and s.run_job(job)

    def cancel_job(self) -> None:
        s = self._session()
        if s is not None:
            s.cancel_job()

    def later(self, ms: int, fn: Callable[[], None]) -> None:
        s = self._session()
        if s is not None:
            QTimer.singleShot(int(ms), s, fn)

    def model_changed(self, text: str) -> None:
        s = self._session()
        if s is not None:
            s.edited.emit(text)

    def state_changed(self) -> None:
        s = self._session()
        if s is not None:
            s.changed.emit()

    def note(self, text: str) -> None:
        s = self._session()
        if s is not None:
            s.message.emit(text)


class GameSession(QObject):
    """One game in the window: its headless :attr:`game`, with an undo stack, signals and job hand-off."""

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

    def __init__(self, spec: GameSpec, settings: Any = None, parent: QObject | None = None, *,
                 game: Game | None = None) -> None:
        super().__init__(parent)
        self.spec = spec
        self.game = game if game is not None else Game(spec, settings, compile_here=False)
        """The headless game (settings, model, names, strategies, lesson, ...): ask it what is not Qt's. A
        window's session makes its own, which compiles in a job on the controller's thread; ``mdpviz export``
        hands in the headless game it has already built (to draw it)."""
        self.undo_stack = QUndoStack(self)
        self.display: dict[str, Any] = self.game.display
        """The display settings (the headless game's; not edits: no undo, no solver reset)."""
        self.driver = self.game.driver
        """The game's own state machine (rounds, training), or None."""
        if self.driver is not None:
            self.driver.host = _DriverHost(self)
        self.runner: Any = None
        """Where jobs run (the window's controller); None: jobs are refused."""
        self._job: Job | None = None
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

    # ------------------------------------------------------------------ settings and edits
    @property
    def settings(self) -> Any:
        """The current settings (immutable)."""
        return self.game.settings

    def edit(self, new: Any, text: str) -> bool:
        """Apply an edit through the undo stack; False if it changes nothing."""
        if new == self.game.settings:
            return False
        self.undo_stack.push(_Edit(self, self.game.settings, new, text))
        return True

    def refuse(self, why: str) -> bool:
        """Refuse an edit: the settings stay, :attr:`refused` and :attr:`message` say why; False (what an
        edit returns)."""
        self.refused.emit(why)
        self.message.emit(why)
        return False

    def _set(self, settings: Any, text: str) -> None:
        self.game.apply(settings)
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
        if settings != self.game.settings:
            self.undo_stack.push(_Opened(self, self.game.settings, settings, text))
        self.undo_stack.setClean()

    def _replace(self, settings: Any) -> None:
        self.game.apply(settings)

    def set_display(self, name: str, value: Any) -> None:
        """Change a display setting (no undo, no new solve); ``changed`` follows if it is new."""
        if self.game.set_display(name, value):
            self.changed.emit()

    def set_discount(self, gamma: float) -> bool:
        """Edit the discount (ValueError saying why it cannot be ``gamma``); False if nothing changed."""
        gamma = float(gamma)
        if not self.game.supports_discount:
            return False
        return self.edit(self.game.with_discount(gamma), f"discount {gamma:g}")

    # ------------------------------------------------------------------ the model (the headless game's)
    def built(self) -> Any:
        """What the game built from its settings (its spec's ``build``, or the compiled MDP); None: nothing
        (yet: asking does not start a compile, :meth:`mdp` does)."""
        return self.game.built()

    def mdp(self) -> TabularMDP | None:
        """The compiled MDP of the current settings (cached), or None when there is none (yet). A game that
        compiles in a job starts compiling now (soon, on the job thread) if it has not yet."""
        m = self.game.mdp()
        if m is None and self.game.compiles_in_job and not self.game.mdp_error():
            self._request_compile()
        return m

    def mdp_error(self) -> str:
        """Why there is no MDP ("" if there is one, or while it compiles)."""
        return self.game.mdp_error()

    def context(self) -> Context:
        """What the spec's hooks see of the game now."""
        return self.game.context()

    def start_state(self) -> int:
        return self.game.start_state()

    def state_name(self, s: int) -> str:
        return self.game.state_name(s)

    def action_name(self, a: int) -> str:
        return self.game.action_name(a)

    # ------------------------------------------------------------------ compiling in a job
    @property
    def compiling(self) -> bool:
        """The spec's compile job runs for this game."""
        return self._compiling is not None

    @property
    def compile_held(self) -> bool:
        """The user cancelled the compile of the current settings (it waits for :meth:`build_now`)."""
        return self._held is not None and self._held == self.game.build_key()

    def _request_compile(self) -> None:
        """Start compiling the current settings soon (after the window has finished its reset, which
        cancels any job in flight), unless it runs already or the user cancelled it."""
        key = self.game.build_key()
        if self._compiling == key or self._held == key or self.game.is_built(key):
            return
        if not self._compile_timer.isActive():
            self._compile_timer.start(0)

    def _compile_job(self, inp: Any, key: Hashable) -> Job:
        return Job(lambda: self.game.compile_job(inp), label=f"{self.spec.title}: compiling",
                   on_done=lambda built: self._on_compiled(key, built), on_progress=self._on_compile_progress,
                   on_failed=lambda msg: self._on_compile_failed(key, msg),
                   on_cancelled=lambda: self._on_compile_cancelled(key))

    def _start_compile(self) -> None:
        inp = self.game.model_input()
        key = self.game.build_key(inp)
        if self.game.is_built(key) or self._held == key or self.game.failed(key):
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
        self.game.retry()
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
        return key == self.game.build_key()

    def _on_compiled(self, key: Hashable, built: Any) -> None:
        self._compiling = None
        if built is None:
            self._on_compile_cancelled(key)
            return
        self.game.keep(key, built)
        if self._compiled_current(key):
            m = self.mdp()
            self.edited.emit(f"compiled {m.n_states:,} states" if m is not None else "compiled")
        else:
            self._request_compile()
        self.changed.emit()

    def _on_compile_failed(self, key: Hashable, msg: str) -> None:
        self._compiling = None
        self.game.fail(key, msg)
        if self._compiled_current(key):
            self.edited.emit("compile refused")
        else:
            self._request_compile()
        self.changed.emit()

    def _on_compile_cancelled(self, key: Hashable) -> None:
        self._compiling = None
        if self._user_cancel and self._compiled_current(key):
            self._held = key
            self.message.emit(f"{self.spec.title}: compile cancelled.")
        self._user_cancel = False
        self.game.refresh()  # the next mdp() asks again (a game switch cancels without holding)
        if not self._compiled_current(key):
            self._request_compile()
        self.changed.emit()

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

    # ------------------------------------------------------------------ scenario data
    def to_dict(self) -> dict[str, Any]:
        """The game's entry in a scenario file: its settings, then its display settings."""
        return self.game.to_dict()

    def load_dict(self, data: dict[str, Any], path: str) -> Any:
        """The settings described by scenario data (validated, with the display settings: ScenarioError
        naming the field); nothing changes here (see :meth:`load_state`, :meth:`load_display`)."""
        return self.game.read_dict(data, path)

    def load_display(self, data: dict[str, Any], path: str = "") -> None:
        """Take the display settings stored in scenario data (checked by :meth:`load_dict` before)."""
        self.game.load_display(data, path)


__all__ = ["BUILT_KEPT", "GameSession"]
