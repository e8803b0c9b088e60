"""One game in the window, generic: :class:`GameSession`, a Qt wrapper of the game's headless
:class:`~mdpviz.models.kit.game.game_model.Game`, never subclassed per game.

The headless game (:attr:`GameSession.game`) owns the settings, the model built from them (cached),
the one default-solve rule, the start state, the names, strategies, episodes, simulations, the lesson,
the display settings, the scenario data and the game's own state machine (its spec's driver). The
session adds what a window needs and nothing else: the undo stack (every edit goes through
:meth:`GameSession.edit`), Qt signals saying what changed, and the hand-off of jobs to the window's
controller, in particular the compile: every game with a table builds its model in one compile job
(:meth:`~mdpviz.models.kit.game.game_model.Game.compile_job`: the spec's ``jobs["compile"]`` where it has one,
else its build in a generator) on the window's job thread, never on the GUI thread. A model already built
for the same build key is shown at once, without a job; a newer edit supersedes an older compile; a job of
the game asked for while its model is being built waits for it. Everything that
differs per game is the spec's (:mod:`mdpviz.models.kit.game.registry`); how a game is drawn and edited is
its view's (:mod:`mdpviz.widgets.games`).

Jobs go to a runner the window sets (its controller: ``start_job(job) -> bool``, ``cancel_job()``,
``current_job``), which steps them on its job thread and calls their callbacks; without one (a
session on its own, in a test) a job is refused, and the model is built on the calling thread when asked for.
"""
from __future__ import annotations

import weakref
from dataclasses import replace
from typing import Any, Callable, Hashable

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from mdpviz.core.jobs import Job
from mdpviz.models.kit.game.game_model import BUILT_KEPT, Game
from mdpviz.models.kit.game.registry import GameSpec
from mdpviz.core.mdp import TabularMDP

REFUSED = "Another background job (a simulation or a solve) is running."
"""Why a job did not start."""

RETRY_MS = 150
"""A compile refused because another job was finishing is tried again after this many milliseconds."""


class _Edit(QUndoCommand):
    """One edit of a game: swaps the session's immutable settings (undo puts the old ones back)."""

    def __init__(self, session: "GameSession", old: Any, new: Any, text: str, *, new_lesson: bool = False) -> None:
        super().__init__(text)
        self.session, self.old, self.new = session, old, new
        self.new_lesson = new_lesson

    def redo(self) -> None:
        self.session._set(self.new, self.text(), new_lesson=self.new_lesson)

    def undo(self) -> None:
        self.session._set(self.old, f"undid: {self.text()}", new_lesson=self.new_lesson)


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
            s._model_edited(text)

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
    """The model changed (an edit, undo or redo, a round, a finished compile): the text says what; the
    window starts the solve again. An edit whose model is still to be built (:attr:`building`) is told
    twice: when it is made (the window shows "building") and when its compile ends, with the same text; a
    compile that no edit asked for (a game shown, a scenario opened) ends with an empty text."""
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
        self.game = game if game is not None else Game(spec, settings)
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
        self._runner: Any = None
        self.game.compile_here = True  # (until a runner is set, see :attr:`runner`)
        self._job: Job | None = None
        self._compiling: Hashable | None = None
        self._held: Hashable | None = None
        self._user_cancel = False
        self.new_lesson = False
        """The last model change told by :attr:`edited` starts a lesson (:meth:`edit`'s ``new_lesson``: a map
        chosen), it is not an edit to re-solve live and compare (kept until the next change)."""
        self._edit_text = ""
        """The text of the edit whose model is being built (what :attr:`edited` says when its compile ends)."""
        self._checking = 0
        """Edits being built before they are taken (:meth:`edit` ``when_built``)."""
        self._deferred: list[Job] = []
        """Jobs of this game asked for while its model was being built: started when the compile ends."""
        self.progress_text = ""
        """The running compile's last progress text."""
        self.progress: tuple[int, int] = (0, 0)
        """The running compile's last progress (done, total; total 0: unknown)."""
        self._compile_timer = QTimer(self)
        self._compile_timer.setSingleShot(True)
        self._compile_timer.timeout.connect(self._start_compile)

    @property
    def runner(self) -> Any:
        """Where jobs run (the window's controller), the compile among them; None: jobs are refused and the
        model is built on the calling thread when asked for (a session on its own: a view alone, a test)."""
        return self._runner

    @runner.setter
    def runner(self, runner: Any) -> None:
        self._runner = runner
        self.game.compile_here = runner is None

    # ------------------------------------------------------------------ settings and edits
    @property
    def settings(self) -> Any:
        """The current settings (immutable)."""
        return self.game.settings

    def edit(self, new: Any, text: str, *, when_built: bool = False, new_lesson: bool = False) -> bool:
        """Apply an edit through the undo stack; False if it changes nothing. ``new_lesson``: a choice that
        starts a lesson (a grid-world map chosen, issue 35 items 2 and 3), not an edit to compare: undoable
        as an edit, but :attr:`new_lesson` says so while its model arrives (live re-solve leaves it at
        sweep 0). ``when_built``: taken only if its
        settings build (e.g. a Gymnasium environment, which may not exist): built by a compile job on the job
        thread first (:attr:`building` meanwhile), then applied, or refused saying why (:meth:`refuse`) with
        the settings as they were (False: refused at once); a model already built for them is applied at once."""
        if new == self.game.settings:
            return False
        key = self.game.build_key(new)
        if not when_built or self.game.is_built(key):
            self.undo_stack.push(_Edit(self, self.game.settings, new, text, new_lesson=new_lesson))
            return True
        self._checking += 1

        def ended() -> None:
            self._checking -= 1

        def done(built: Any) -> None:
            ended()
            self.game.keep(key, built)
            self.edit(new, text, new_lesson=new_lesson)

        def failed(msg: str) -> None:
            ended()
            self.refuse(f"Not applied: {msg}")

        def cancelled() -> None:
            ended()
            self.changed.emit()

        if not self.run_job(Job(lambda: self.game.compile_job(new), label=f"{self.spec.title}: building {text}\u2026",
                                on_done=done, on_failed=failed, on_cancelled=cancelled)):
            return False
        self.changed.emit()
        return True

    def refuse(self, why: str) -> bool:
        """Refuse an edit: the settings stay, :attr:`refused` and :attr:`message` say why; False (what an
        edit returns)."""
        self.refused.emit(why)
        self.message.emit(why)
        return False

    def _set(self, settings: Any, text: str, *, new_lesson: bool = False) -> None:
        self.game.apply(settings)
        self._model_edited(text, new_lesson=new_lesson)

    def _model_edited(self, text: str, *, new_lesson: bool = False) -> None:
        """The model input changed by an edit (or the driver's round) said by ``text``: :attr:`edited`."""
        self.new_lesson = new_lesson
        self._edit_text = text if self.game.waiting() else ""
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
        self.new_lesson = False
        self._edit_text = ""  # (a scenario's settings are not an edit: their compile ends with an empty text)

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
        """The compiled MDP of the current settings (cached), or None when there is none (yet): a model still
        to be built starts compiling now (soon, on the job thread) if it has not yet. A session without a
        runner (no window: a view on its own, a test) builds it here, on the calling thread."""
        m = self.game.mdp()
        if m is None and self.game.waiting():
            self._request_compile()
        return m

    def mdp_error(self) -> str:
        """Why there is no MDP ("" if there is one, or while it compiles)."""
        return self.game.mdp_error()

    def start_state(self) -> int:
        return self.game.start_state()

    def state_name(self, s: int) -> str:
        return self.game.state_name(s)

    def action_name(self, a: int) -> str:
        return self.game.action_name(a)

    # ------------------------------------------------------------------ compiling in a job
    @property
    def compiling(self) -> bool:
        """The game's compile job runs."""
        return self._compiling is not None

    @property
    def building(self) -> bool:
        """The model of the current settings is being built, or is about to be, on the job thread (not held
        by a Cancel): the board says so, and Step, Run and the game's jobs wait for it."""
        return (self.game.waiting() and not self.compile_held) or self._checking > 0


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
                self._cancel_running()
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
            self._cancel_running()

    def _on_compile_progress(self, done: int, total: int, text: str) -> None:
        self.progress_text, self.progress = text, (int(done), int(total))
        self.changed.emit()

    def _compiled_current(self, key: Hashable) -> bool:
        return key == self.game.build_key()

    def _on_compiled(self, key: Hashable, built: Any) -> None:
        self._compiling = None
        self.game.keep(key, built)  # (None is a result: e.g. the file game without a file)
        self._compile_ended(key)

    def _on_compile_failed(self, key: Hashable, msg: str) -> None:
        self._compiling = None
        self.game.fail(key, msg)
        self._compile_ended(key)

    def _compile_ended(self, key: Hashable) -> None:
        """A compile ended with a model or why not: the model changed if it is the current settings' (the
        edit that asked for it is told again), else the current settings' compile starts; then the jobs
        that waited for it."""
        if self._compiled_current(key):
            text, self._edit_text = self._edit_text, ""
            self.progress_text, self.progress = "", (0, 0)
            self.edited.emit(text)
        else:
            self._request_compile()
        self.changed.emit()
        self._run_deferred()

    def _run_deferred(self) -> None:
        jobs, self._deferred = self._deferred, []
        for job in jobs:
            self.run_job(job)

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
        jobs, self._deferred = self._deferred, []
        for job in jobs:  # (they waited for the model: it will not come now)
            if job.on_cancelled is not None:
                job.on_cancelled()

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
        start (another job runs, no window), its ``on_failed`` is told at once and False returned. Asked for
        while the game's model is still to be built, it waits for the compile to end (True)."""
        if self.game.waiting() and not self.compile_held and self.runner is not None:
            self._deferred.append(job)
            self._request_compile()
            return True
        if self._start(job):
            if job.label:
                self.message.emit(job.label)
            return True
        self.message.emit(REFUSED)
        if job.on_failed is not None:
            job.on_failed(REFUSED)
        return False

    def cancel_job(self) -> None:
        """Cancel this game's job: those waiting for its compile, else the running one (its ``on_cancelled``
        follows)."""
        if self._deferred:
            jobs, self._deferred = self._deferred, []
            for job in jobs:
                if job.on_cancelled is not None:
                    job.on_cancelled()
            return
        self._cancel_running()

    def _cancel_running(self) -> None:
        if self._job is not None and self.runner is not None and self.runner.current_job is self._job:
            self.runner.cancel_job()

    @property
    def job_running(self) -> bool:
        """A job of this game runs (or waits for its compile)."""
        return self._job is not None or bool(self._deferred)

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
