"""Background jobs, Qt-free: every one is a generator, and one loop steps them all (:func:`drive`).

A job generator yields :class:`JobProgress` to report progress, ``None`` at a checkpoint (a place
where it may be paused or cancelled, with nothing to report) and anything else as a partial result;
its return value is its result. :class:`Job` is the request to run one: the generator factory, a
label and the callbacks its results go to. The window's controller steps a job on its job thread
and calls the callbacks on the GUI thread (like superqt's ``worker.returned.connect``); the command
line, ``mdpviz export`` and the tests step it right here (:func:`run_here`).

It is in the core, not the game kit, because the course-file reader and the solvers' comparison
are jobs too. Plain Python; never imports Qt.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterator


@dataclass(frozen=True)
class JobProgress:
    """What a job generator yields to report progress (anything else it yields is a partial result)."""

    done: int
    total: int
    """0 when unknown."""
    text: str = ""


def drive(gen: Iterator[Any], *, progress: Callable[[int, int, str], None] | None = None,
          partial: Callable[[Any], None] | None = None, cancelled: Callable[[], bool] | None = None) -> Any:
    """Step the job generator ``gen`` to its end on the calling thread: ``progress(done, total, text)``
    for each :class:`JobProgress`, ``partial(item)`` for each other item but None; returns its result,
    or None as soon as ``cancelled()`` (checked before every step). The generator is closed either way."""
    try:
        while True:
            if cancelled is not None and cancelled():
                return None
            try:
                item = next(gen)
            except StopIteration as stop:
                return stop.value
            if item is None:
                continue
            if isinstance(item, JobProgress):
                if progress is not None:
                    progress(item.done, item.total, item.text)
            elif partial is not None:
                partial(item)
    finally:
        close = getattr(gen, "close", None)
        if close is not None:
            close()


@dataclass(frozen=True, eq=False)
class Job:
    """One background job: what to run and where its results go (every callback is optional)."""

    make: Callable[[], Iterator[Any]]
    """Returns the job generator (see the module docstring); called on the thread that runs the job."""
    label: str = ""
    """What it does, for the status bar."""
    on_done: Callable[[Any], None] | None = None
    """Called with the result (the generator's return value)."""
    on_progress: Callable[[int, int, str], None] | None = None
    """Called with (done, total, text) of each :class:`JobProgress`."""
    on_partial: Callable[[Any], None] | None = None
    """Called with each partial result, in order."""
    on_failed: Callable[[str], None] | None = None
    """Called with the error message when the job raised (or could not be started)."""
    on_cancelled: Callable[[], None] | None = None
    """Called when the job was cancelled."""


def error_text(e: BaseException) -> str:
    """A job's exception as one line: a ValueError's own words, else its type and words."""
    return str(e) if isinstance(e, ValueError) else f"{type(e).__name__}: {e}"


def run_here(job: Job, *, cancelled: Callable[[], bool] | None = None) -> Any:
    """Run ``job`` to its end on the calling thread, its callbacks called as the controller calls them;
    returns the result (None if it failed or was cancelled)."""
    try:
        result = drive(job.make(), progress=job.on_progress, partial=job.on_partial, cancelled=cancelled)
    except Exception as e:  # noqa: BLE001 - any job error goes to on_failed as text
        if job.on_failed is not None:
            job.on_failed(error_text(e))
        return None
    if cancelled is not None and cancelled():
        if job.on_cancelled is not None:
            job.on_cancelled()
        return None
    if job.on_done is not None:
        job.on_done(result)
    return result


CHILD_POLL_S = 0.1
"""How often :func:`in_child_process` looks for the child's next item (yielding a checkpoint meanwhile)."""


def _child_main(out: Any, make: Callable[..., Iterator[Any]], args: tuple) -> None:
    """The child process of :func:`in_child_process`: step ``make(*args)`` and send what it yields."""
    try:
        gen = make(*args)
        while True:
            try:
                item = next(gen)
            except StopIteration as stop:
                out.put(("return", stop.value))
                return
            if item is not None:
                out.put(("yield", item))
    except Exception as e:  # noqa: BLE001 - sent as one line, raised in the parent as a ValueError
        out.put(("error", error_text(e)))


def in_child_process(make: Callable[..., Iterator[Any]], *args: Any) -> Iterator[Any]:
    """The job generator ``make(*args)`` run in a child process (started fresh, "spawn"): this generator
    yields what it yields (and a checkpoint every :data:`CHILD_POLL_S` while it waits, so the job can be
    cancelled at any time) and returns its result; its error is raised here as a ValueError of one line.
    Closing this generator ends the child. For a long pure-Python job beside the window: in a thread of
    the window's process it holds the interpreter lock most of the time, and the GUI thread waited for it
    (issue 35 item 8: gaps of 108-216 ms while the 3D agent trained). ``make`` and ``args`` must pickle."""
    import multiprocessing as mp
    import os
    import queue
    import sys

    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if getattr(getattr(main, "__spec__", None), "name", None) is None and path and not os.path.exists(path):
        return (yield from make(*args))  # a script read from stdin: a spawned child could not import it again
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    child = ctx.Process(target=_child_main, args=(out, make, args), daemon=True, name="mdpviz-job")
    child.start()
    try:
        while True:
            try:
                kind, item = out.get(timeout=CHILD_POLL_S)
            except queue.Empty:
                if not child.is_alive():
                    try:  # (its last item may have arrived just as it ended)
                        kind, item = out.get(timeout=CHILD_POLL_S)
                    except queue.Empty:
                        raise RuntimeError(f"the job's process ended with code {child.exitcode} "
                                           "and no result") from None
                else:
                    yield None
                    continue
            if kind == "yield":
                yield item
            elif kind == "return":
                return item
            else:
                raise ValueError(item)
    finally:
        if child.is_alive():
            child.terminate()
        child.join(5.0)
        out.close()
        out.cancel_join_thread()


__all__ = ["Job", "JobProgress", "drive", "error_text", "in_child_process", "run_here"]
