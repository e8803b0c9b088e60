"""A game's own state machine beside its settings, headless: :class:`Driver`, and the :class:`Host` it runs on.

Most games are settings plus a solve. Two have more state that is neither an edit nor a sweep:
anti-tic-tac-toe's best-response rounds (:mod:`mdpviz.models.attt.rounds`) and the 3D game's
training (:mod:`mdpviz.models.ttt3d.training`). Such a game's spec names a :class:`Driver`; the
window's session builds one, tells it about every change of the settings, drives its Step, Run,
Pause and Reset from the window's buttons (when :attr:`Driver.drives_steps`), and is its
:class:`Host`: it runs the driver's background jobs, schedules what the driver wants done later and
passes on what changed. A test (or the command line) gives a driver a :class:`HereHost` instead,
which runs every job at once on the calling thread. Plain Python; never imports Qt.
"""
from __future__ import annotations

from typing import Any, Callable, Protocol

from mdpviz.core.jobs import Job, run_here


class Host(Protocol):
    """What a driver may ask of the session it runs in."""

    def run_job(self, job: Job) -> bool:
        """Run ``job`` in the background (its callbacks are called later); False if it could not start
        (then its ``on_failed`` was called)."""

    def cancel_job(self) -> None:
        """Cancel the running job of this game (its ``on_cancelled`` follows)."""

    def later(self, ms: int, fn: Callable[[], None]) -> None:
        """Call ``fn()`` after ``ms`` milliseconds."""

    def model_changed(self, text: str) -> None:
        """What the game's model is built from changed (the solver starts again); ``text`` says what."""

    def state_changed(self) -> None:
        """Something the window shows of the driver changed (not the model)."""

    def note(self, text: str) -> None:
        """A note for the status bar."""


class HereHost:
    """A :class:`Host` without a window: jobs run at once on the calling thread; ``later`` calls at once;
    messages and changes are recorded (for tests and the command line)."""

    def __init__(self) -> None:
        self.messages: list[str] = []
        self.changes: list[str] = []

    def run_job(self, job: Job) -> bool:
        run_here(job)
        return True

    def cancel_job(self) -> None:
        pass

    def later(self, ms: int, fn: Callable[[], None]) -> None:
        fn()

    def model_changed(self, text: str) -> None:
        self.changes.append(text)

    def state_changed(self) -> None:
        pass

    def note(self, text: str) -> None:
        self.messages.append(text)


class Driver:
    """A game's headless state machine (the base: a driver that does nothing). Subclasses override
    what they do; the session calls every method directly."""

    drives_steps = False
    """The window's Step, Run, Pause and Reset drive this (there is no solver Step of its own)."""

    def __init__(self) -> None:
        self.host: Host = HereHost()
        """Where its jobs run and its changes go (the session sets itself)."""

    def model_input(self, settings: Any) -> Any:
        """What the game's model is built from: ``settings`` with what the driver adds (e.g. the rounds
        applied so far); the same object while nothing changed."""
        return settings

    def settings_changed(self, settings: Any) -> None:
        """The settings changed (an edit, undo, redo or a loaded scenario)."""

    def state_text(self) -> str | None:
        """The status bar's state for a game without a solver (e.g. "training"); None: the solver's."""
        return None

    def can_step(self) -> bool:
        return False

    def running(self) -> bool:
        return False

    def step(self) -> bool:
        """The window's Step; False (with a message) if it cannot."""
        return False

    def run(self) -> bool:
        """The window's Run."""
        return False

    def pause(self) -> None:
        """The window's Pause."""

    def reset(self) -> bool:
        """The window's Reset; False if there was nothing to reset."""
        return False

    def solve_after_reset(self) -> bool:
        """True when the window should run its solver to the end right after a reset (the driver's Step
        already decided what to show, e.g. a round's best response)."""
        return False


__all__ = ["Driver", "HereHost", "Host"]
