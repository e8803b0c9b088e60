"""The one object that owns the worker threads and drives the solver generators.

The GUI thread never runs a solve or a batch simulation. :class:`SolverController` lives on the
GUI thread and owns two ``QThread``\\ s, each with a worker ``QObject`` moved to it:

* :class:`SolverWorker` holds the method's generator (``mdpviz.solvers.start(method, mdp, ...)``:
  built in the solvers layer, only run here).
  Step = one ``next()`` on that generator; Run = keep pulling, one sweep per tick at the chosen
  rate or, at full speed, as many as fit in a ~20 ms time slice, then back to the event loop so
  that Pause is handled at once. Every sweep is sent to the GUI thread as the immutable
  :class:`~mdpviz.solvers.Sweep` the generator yielded (in batches, one per time slice).
* :class:`JobWorker` runs one background job at a time (a simulation, a comparison, a game's rounds,
  training or compile): a :class:`~mdpviz.core.jobs.Job`, whose generator it steps between two
  cancel checks; :meth:`SolverController.start_job` calls the job's own callbacks with what it yields
  and returns, on the GUI thread.

The controller records every sweep (``history``) and re-emits each delivery as ``sweeps_added``
(one signal for the batch); widgets redraw on their own ~30 Hz timer, not per sweep. Requests carry a job number, so sweeps of a
solver that was reset while they were in flight are dropped.
"""
from __future__ import annotations

import gc
import math
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Generator

import numpy as np
from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, QThread, QTimer, Signal, Slot

from mdpviz.core.jobs import Job, JobProgress, drive, error_text
from mdpviz.core.mdp import TabularMDP
from mdpviz.models.kit.pictures.value_range import (  # noqa: F401 - the window and the tests import them from here too
    REFERENCE_MAX_STATES,
    REFERENCE_MAX_TRANSITIONS,
    ValueRange,
    first_sweep_range,
    reference_range,
    seen_range,
)
from mdpviz.solvers import Solution, Sweep, registry, start
from mdpviz.solvers.sweep import RUN_BATCH

_THREADS: list[QThread] = []
"""Every QThread a controller started (for :func:`running_threads`)."""

TIME_SLICE = 0.02
"""Seconds of solving per event-loop turn of the worker at full speed (Pause is seen within this)."""
LEARNING_HISTORY_BYTES = 400_000_000
"""About the most memory a learner's recorded snapshots may take (checkers: 49,021 states)."""
LEARNING_RECORD_ALL = 200
"""A learner's Run at full speed records its first this many episodes one by one, then merges them
(a snapshot per episode is most of the cost of a fast run: 10,000 episodes of the 4x3 grid took
6.6-8.6 s in the window with 2,000 single snapshots, on this busy 2-core machine)."""
RUN_RECORD_ALL = 2000
"""Run at full speed records every one of a solve's first this many snapshots; after that it asks
the solver for many sweeps per snapshot (a course file near discount 1 needs 40,000+ sweeps)."""


def running_threads() -> list[QThread]:
    """QThreads started by a controller and not yet finished (the test suite checks this is empty)."""
    alive = []
    try:
        import shiboken6

        valid = shiboken6.isValid
    except ImportError:  # pragma: no cover
        valid = lambda _: True  # noqa: E731
    for t in list(_THREADS):
        if not valid(t):
            _THREADS.remove(t)
            continue
        if t.isRunning():
            alive.append(t)
        elif t.isFinished():
            _THREADS.remove(t)
    return alive


# ---------------------------------------------------------------------------------- garbage collection
class GuiThreadCollector(QObject):
    """Python's cyclic garbage collector, run only on the GUI thread.

    Left automatic, the collector runs in whichever thread happens to allocate when its threshold
    is crossed: a solver or job thread. If the garbage then holds a Qt widget (a closed dialog, an
    old board in a reference cycle), PySide destroys it on that worker thread, and its destructor
    waits for the GIL the worker itself is collecting with: the window hangs for good (seen in the
    test suite: a job thread stuck in ``~QObject`` inside ``gc_collect_main``). PyQt and PySide
    applications that run Python on threads avoid it the same way: automatic collection off, and
    the same generational thresholds checked from a GUI-thread timer.

    A full collection visits every object of the process (~170,000 once the window is built: 60 ms
    on the GUI thread, measured), so like CPython's own collector (``gcmodule.c``,
    ``collect_generations``) it waits until the objects promoted to the oldest generation since
    the last full collection are a quarter of those that survived it; checking only the
    generation counter (as this class first did) made one every ~10 young collections, a
    60-100 ms stall of the window every few seconds of a Run.

    The younger generations are collected as soon as they hold :attr:`YOUNG_MAX` objects, not only
    at the middle one's turn: building a window leaves ~100,000 objects there, and their first
    collection used to fall in the first seconds of a Run (60-95 ms, measured); now it comes at
    the first tick after, before anything runs. (``mdpviz``'s own start, :func:`mdpviz.app.run`,
    freezes the objects it built out of the collector instead, which keeps whatever cyclic
    garbage exists at that one moment: a bounded, one-time cost.)
    """

    INTERVAL_MS = 250
    YOUNG_MAX = 10_000
    """The two younger generations are collected once they hold this many objects, even before the
    middle one's turn (every 10th young collection): building the window or opening a file leaves
    35,000-100,000 objects there, and their collection in the middle of the next Run was a 25-95 ms
    stall."""

    def __init__(self, parent: QObject) -> None:
        super().__init__(parent)
        gc.disable()
        self.long_lived_total: int | None = None
        """Objects in the oldest generation after the last full collection (None: not counted yet)."""
        self.long_lived_pending = 0
        """Objects promoted to the oldest generation since then."""
        self.timer = QTimer(self)
        self.timer.timeout.connect(self.check)
        self.timer.start(self.INTERVAL_MS)

    @Slot()
    def check(self) -> None:
        """Collect the generations whose thresholds are crossed, as the automatic collector would."""
        t0, t1, t2 = gc.get_threshold()
        c0, c1, c2 = gc.get_count()
        if c0 <= t0:
            return
        if c2 > t2:
            if self.long_lived_total is None:
                self.long_lived_total = len(gc.get_objects(2))
            if self.long_lived_pending >= self.long_lived_total // 4:
                gc.collect(2)
                self.long_lived_total = len(gc.get_objects(2))
                self.long_lived_pending = 0
                return
        young = len(gc.get_objects(0)) + len(gc.get_objects(1))
        if c1 > t1 or young > self.YOUNG_MAX:
            self.long_lived_pending += max(0, young - gc.collect(1))  # the survivors move to the oldest
        else:
            gc.collect(0)


def install_gui_thread_collector() -> None:
    """Install :class:`GuiThreadCollector` once per application (the first controller does it)."""
    app = QCoreApplication.instance()
    if app is None or QThread.currentThread() is not app.thread():
        return
    if app.findChild(GuiThreadCollector) is None:
        GuiThreadCollector(app)


# ---------------------------------------------------------------------------------- frames before sweeps
class _GateState:
    """Open unless the GUI thread is drawing a frame; the worker threads wait at :meth:`pause`."""

    def __init__(self) -> None:
        self.open = threading.Event()
        self.open.set()
        self.deadline = 0.0

    def pause(self) -> None:
        """(Any worker thread, between two steps of its work.) Wait while a frame is being drawn, at
        most until the frame's deadline; return at once otherwise."""
        if self.open.is_set():
            return
        left = self.deadline - time.perf_counter()
        if left > 0:
            self.open.wait(left)


FRAME_GATE = _GateState()
"""The one gate of the process (one GUI thread): workers call ``FRAME_GATE.pause()`` between steps."""


class FrameGate(QObject):
    """Lets the GUI thread draw a frame without sharing the GIL with a solver or job thread.

    A worker running Python (a solver's recorded sweeps, a simulation, a game's rounds) holds the
    GIL whenever the GUI thread gives it up, and PySide gives it up around every Qt call: each of
    the hundreds of Qt calls of a frame then waits up to the interpreter's switch interval for it
    to come back. Measured on the course file's Run: the window's ~10 ms frame took 20-60 ms, the
    event loop stalled up to 170 ms. So the window marks a frame (:meth:`begin` when it starts
    drawing, :meth:`end` when it has asked for its repaints) and the workers wait at
    ``FRAME_GATE.pause()`` until the frame is painted: :meth:`end` posts a low-priority event that
    Qt delivers after the repaint requests posted before it. A frame holds the workers for at most
    :attr:`MAX_WAIT` seconds (a frame that never paints, a hidden window)."""

    MAX_WAIT = 0.05
    _END = QEvent.Type(QEvent.registerEventType())

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._open_frames = 0

    def begin(self) -> None:
        now = time.perf_counter()
        if now > FRAME_GATE.deadline:
            self._open_frames = 0  # (an end that never arrived holds no one past its deadline)
        self._open_frames += 1
        FRAME_GATE.deadline = now + self.MAX_WAIT
        FRAME_GATE.open.clear()

    def end(self) -> None:
        QCoreApplication.postEvent(self, QEvent(self._END), Qt.EventPriority.LowEventPriority.value)

    def event(self, ev: QEvent) -> bool:
        if ev.type() == self._END:
            self._open_frames = max(0, self._open_frames - 1)
            if self._open_frames == 0:
                FRAME_GATE.open.set()
            return True
        return super().event(ev)

    def run(self, fn: Callable[[], None]) -> None:
        """``fn()`` (GUI work a worker asked for: a job's progress or result) as a frame of its own."""
        self.begin()
        try:
            fn()
        finally:
            self.end()


def install_frame_gate() -> FrameGate | None:
    """The application's :class:`FrameGate` (created on the GUI thread once); None without an application."""
    app = QCoreApplication.instance()
    if app is None:
        return None
    gate = app.findChild(FrameGate)
    if gate is None and QThread.currentThread() is app.thread():
        gate = FrameGate(app)
    return gate


# ---------------------------------------------------------------------------------- workers
class SolverWorker(QObject):
    """Pulls sweeps from one solver generator; lives on the controller's solver thread."""

    loaded = Signal(int, object)  # job, ValueRange | None
    sweeps_ready = Signal(int, object)  # job, tuple[Sweep, ...]
    finished = Signal(int, object)  # job, Solution
    failed = Signal(int, str)  # job, message
    paused = Signal(int)  # job: Run stopped without finishing

    def __init__(self) -> None:
        super().__init__()
        self._job = -1
        self._gen = None
        self._started = False
        self._pulled = 0
        self._record_all = RUN_RECORD_ALL
        self._timer: QTimer | None = None
        self._interval = 0.0
        self.stop_flag = threading.Event()

    # all slots run on the worker thread
    @Slot(int, object, str, object)
    def load(self, job: int, mdp: TabularMDP, method: str, options: dict) -> None:
        LOADS_HELD.wait(LOADS_HOLD_MAX)  # (the window's start: see hold_loads_until_first_paint)
        self._halt()
        self._job = job
        self._gen = None
        self._started = False
        self._pulled = 0
        try:
            self._record_all = RUN_RECORD_ALL
            if registry.get(method).kind in ("learner", "planning"):  # one snapshot per episode, on the exact answer's scale
                self._gen, rng = learning_start(mdp, method, options)
                self._record_all = learning_record_all(mdp)
            elif registry.get(method).kind in ("approximation", "policy-gradient"):  # (the window colours by each snapshot's answer)
                self._gen, rng = start(method, mdp, **options), None
                self._record_all = learning_record_all(mdp)
            else:
                self._gen = start(method, mdp, **options)
                rng = reference_range(mdp, method)
        except Exception as e:  # noqa: BLE001 - any model/solver error goes to the GUI as text
            self.failed.emit(job, f"{type(e).__name__}: {e}" if not isinstance(e, ValueError) else str(e))
            return
        self.loaded.emit(job, rng)

    @Slot(int, str)
    def step(self, job: int, mode: str) -> None:
        """One ``next()`` ("one"), or up to the end of a policy-iteration round ("round")."""
        if job != self._job or self._gen is None:
            return
        out: list[Sweep] = []
        while True:
            ok = self._pull(out)
            if not ok or mode != "round" or out[-1].phase in ("improve", "sweep", "lp", "update"):
                break
        self._send(out)

    @Slot(int, float)
    def run(self, job: int, rate: float) -> None:
        """Keep pulling at ``rate`` sweeps per second (``inf``: as fast as possible)."""
        if job != self._job or self._gen is None:
            return
        if self._timer is None:
            self._timer = QTimer(self)  # created on this thread, so it fires here
            self._timer.timeout.connect(self._tick)
        self.stop_flag.clear()
        self._set_rate(rate)
        self._timer.start()

    @Slot(int, float)
    def set_rate(self, job: int, rate: float) -> None:
        if job == self._job and self._timer is not None and self._timer.isActive():
            self._set_rate(rate)

    @Slot(int)
    def pause(self, job: int) -> None:
        if job == self._job and self._halt():
            self.paused.emit(job)

    @Slot()
    def unload(self) -> None:
        self._halt()
        self._gen = None
        self._job = -1

    # helpers
    def _set_rate(self, rate: float) -> None:
        self._interval = 0.0 if not math.isfinite(rate) else 1.0 / max(rate, 1e-3)
        if self._timer is not None:
            self._timer.setInterval(int(round(self._interval * 1000)))

    def _halt(self) -> bool:
        if self._timer is not None and self._timer.isActive():
            self._timer.stop()
            return True
        return False

    def _tick(self) -> None:
        out: list[Sweep] = []
        if self._interval > 0:
            self._pull(out)
        else:
            t_end = time.perf_counter() + TIME_SLICE
            # As fast as possible: every sweep is recorded up to RUN_RECORD_ALL of them (so the history
            # slider can scrub through a short solve); then each snapshot may stand for many sweeps
            # (value iteration does up to ~10 ms of them in a compiled kernel that releases the GIL;
            # the numbers are the same).
            while (not self.stop_flag.is_set() and self._pull(out, many=self._pulled >= self._record_all)
                   and time.perf_counter() < t_end):
                # Let a frame being drawn have the GIL to itself (see FrameGate), and hand the GIL
                # over between sweeps otherwise: without this the GUI thread waits up to the
                # interpreter's switch interval after every Qt call that released it.
                FRAME_GATE.pause()
                time.sleep(0)
        self._send(out)

    def _pull(self, out: list[Sweep], many: bool = False) -> bool:
        """One next() (``many``: one ``send(RUN_BATCH)``, several sweeps per snapshot once started);
        False when the generator finished or failed (already reported)."""
        gen = self._gen
        if gen is None:
            return False
        try:
            started = self._started
            self._started = True
            out.append(gen.send(RUN_BATCH) if many and started else next(gen))
            self._pulled += 1
            return True
        except StopIteration as stop:
            self._gen = None
            self._halt()
            self._send(out)
            out.clear()
            self.finished.emit(self._job, stop.value)
        except Exception as e:  # noqa: BLE001
            self._gen = None
            self._halt()
            self._send(out)
            out.clear()
            self.failed.emit(self._job, str(e) if isinstance(e, ValueError) else f"{type(e).__name__}: {e}")
        return False

    def _send(self, out: list[Sweep]) -> None:
        if out:
            self.sweeps_ready.emit(self._job, tuple(out))
            # A converged snapshot is the generator's last: collect its Solution right away.
            if getattr(out[-1], "converged", False) and self._gen is not None:
                self._pull([])


def learning_start(mdp: TabularMDP, method: str, options: dict) -> tuple[Generator, ValueRange | None]:
    """A learner's generator and its colour range: the range of its exact answer over the non-terminal
    states (V* for control, V of the evaluated policy for prediction), so that the learned values are
    coloured as the exact ones are. The exact answer is solved once here (on the solver thread) and
    given to the learner as its reference."""
    from mdpviz.solvers.dyna import planning_run
    from mdpviz.solvers.learning import learning_run

    run = planning_run if registry.is_kind(method, "planning") else learning_run
    gen, exact = run(mdp, method, options, history_bytes=LEARNING_HISTORY_BYTES)
    values = np.array(exact.values, dtype=np.float64)
    values.setflags(write=False)
    v = values[~np.asarray(mdp.terminal)]
    rng = None
    if v.size and np.all(np.isfinite(v)):
        rng = ValueRange(float(v.min()), float(v.max()), "reference", values)
    return gen, rng


def learning_record_all(mdp: TabularMDP) -> int:
    """Snapshots a learner's Run records one per episode before it merges them: LEARNING_RECORD_ALL,
    fewer for a large model (half of LEARNING_HISTORY_BYTES at most)."""
    from mdpviz.solvers.learning import snapshot_bytes

    return int(max(20, min(LEARNING_RECORD_ALL, (LEARNING_HISTORY_BYTES // 2) // snapshot_bytes(mdp))))


YIELD_EVERY = 0.001
"""Seconds between two hand-overs of the GIL by a job (``time.sleep(0)`` in its cancel check): at
every check, a comparison of 57,000 sweeps took 2.3 times as long."""


LOADS_HELD = threading.Event()
"""Set unless :func:`hold_loads_until_first_paint` holds the solver thread's loads."""
LOADS_HELD.set()

LOADS_HOLD_MAX = 2.0
"""Seconds a load waits at most for :func:`release_loads` (a window that never paints)."""


def hold_loads_until_first_paint() -> None:
    """(``mdpviz``'s start, before the window is built.) The solver thread's loads wait until
    :func:`release_loads`, at most :data:`LOADS_HOLD_MAX` seconds. A load builds the model's solver
    and its reference range (an exact policy-iteration solve that imports scipy's sparse LU): about
    0.2 s of Python holding the GIL while the window is built and painted (measured: first paint
    1.20 s with, 1.02-1.04 s without). The window shows the board at once and Step waits for the
    load as before (the solver thread runs a Step after the load it queued behind)."""
    LOADS_HELD.clear()


def release_loads() -> None:
    """Let the solver thread's loads run (the window has painted its first frame)."""
    LOADS_HELD.set()


class JobWorker(QObject):
    """Runs background jobs on the controller's job thread: steps a :class:`~mdpviz.core.jobs.Job`'s
    generator (so no game module steps a generator itself), reporting what it yields."""

    progress = Signal(int, int, int, str)  # job, done, total, text
    partial = Signal(int, object)  # job, a partial result
    done = Signal(int, object)  # job, result
    failed = Signal(int, str)
    cancelled = Signal(int)

    def __init__(self) -> None:
        super().__init__()
        self.cancel_flag = threading.Event()
        self._yield_at = 0.0

    def _cancelled(self) -> bool:
        # every job checks this between two steps of its work: there it also waits while the
        # GUI thread draws a frame (FrameGate), so a job's Python never slows the window's drawing,
        # and hands the GIL over if the GUI thread waits for it (as the solver's Run does between
        # sweeps): else each Qt call of an event handler that released it waits up to the
        # interpreter's switch interval to get it back
        FRAME_GATE.pause()
        now = time.perf_counter()
        if now >= self._yield_at:
            time.sleep(0)
            self._yield_at = now + YIELD_EVERY
        return self.cancel_flag.is_set()

    @Slot(int, object)
    def execute(self, job: int, work: Job) -> None:
        try:
            result = drive(work.make(), progress=lambda d, t, text: self.progress.emit(job, int(d), int(t), str(text)),
                           partial=lambda item: self.partial.emit(job, item), cancelled=self._cancelled)
        except Exception as e:  # noqa: BLE001
            self.failed.emit(job, error_text(e))
            return
        if self.cancel_flag.is_set():
            self.cancelled.emit(job)
        else:
            self.done.emit(job, result)


def _warm_up_kernels() -> Generator[JobProgress, None, dict[str, float]]:
    """The sweep kernels compiled (first run) or loaded: a job generator returning their load times."""
    yield JobProgress(0, 0, "Loading the compiled solver")
    # scipy.sparse is imported on first use (the CLI and the window's start do not wait for it);
    # import it here, off the GUI thread, before a redraw's Q-values (mdp.matrix) would.
    import scipy.sparse  # noqa: F401

    from mdpviz.solvers import kernels

    return kernels.warm_up()


# ---------------------------------------------------------------------------------- controller
@dataclass(frozen=True)
class FinishedSolve:
    """A finished solve as the controller held it (see :meth:`SolverController.finished_solve`): the
    window keeps one per game, so switching games and back shows the solve again instead of
    throwing it away."""

    mdp: TabularMDP
    """The model it solved (the same object: a solve is only given back to that model)."""
    method: str
    """The solver's method key ("vi", "pi", ...)."""
    options: dict
    """The solver's options (a copy)."""
    history: tuple[Sweep, ...]
    """Every recorded sweep, in order."""
    solution: Solution
    """What the solver returned."""
    value_range: ValueRange | None
    """The solve's value range (its colour scale)."""
    state: str
    """"converged" or "stopped"."""


class SolverController(QObject):
    """Drives one solve at a time (Step, Run, Pause, Reset) and one background job, off the GUI thread.

    States (``state``): "empty" (no model), "ready" (loaded, nothing pulled yet), "stepping",
    "running", "paused", "converged", "stopped" (the solver gave up at its sweep limit), "failed".
    """

    sweeps_added = Signal(object)  # tuple[Sweep, ...]: the sweeps just recorded, in order (one signal per delivery)
    history_reset = Signal()
    range_ready = Signal(object)  # ValueRange of this solve
    finished = Signal(object)  # Solution
    failed = Signal(str)
    state_changed = Signal(str)
    # what the running job reported, after its own callbacks were called (for those who watch any job)
    job_progress = Signal(int, int, str)  # done, total, text
    job_partial = Signal(object)  # a partial result
    job_finished = Signal(object)
    job_failed = Signal(str)
    job_cancelled = Signal()

    # internal: requests queued to the workers
    _load = Signal(int, object, str, object)
    _step = Signal(int, str)
    _run = Signal(int, float)
    _rate = Signal(int, float)
    _pause = Signal(int)
    _unload = Signal()
    _execute = Signal(int, object)

    def __init__(self, parent: QObject | None = None, *, warm_up: bool = True) -> None:
        """``warm_up``: start loading the sweep kernels on the job thread now (False: when
        :meth:`warm_up_kernels` is called; the window does once it is on screen)."""
        super().__init__(parent)
        install_gui_thread_collector()  # cyclic garbage (Qt widgets among it) never collected on a worker
        self.frame_gate = install_frame_gate()
        """Brackets the window's frames (see :class:`FrameGate`); None without an application."""
        self.history: list[Sweep] = []
        """Every sweep of the current solve, in order."""
        self.solution: Solution | None = None
        self.value_range: ValueRange | None = None
        self.mdp: TabularMDP | None = None
        self.method = registry.DEFAULT_SOLVER
        self.options: dict = {}
        self.rate = math.inf
        self.state = "empty"
        self.error = ""
        self._job = 0
        self._pending = 0  # step requests in flight
        self._sim_job = 0
        self._current: Job | None = None
        self._closed = False

        self._solver_thread = QThread()
        self._solver_thread.setObjectName("mdpviz-solver")
        self._worker = SolverWorker()
        self._worker.moveToThread(self._solver_thread)
        self._load.connect(self._worker.load)
        self._step.connect(self._worker.step)
        self._run.connect(self._worker.run)
        self._rate.connect(self._worker.set_rate)
        self._pause.connect(self._worker.pause)
        self._unload.connect(self._worker.unload)
        self._worker.loaded.connect(self._on_loaded)
        self._worker.sweeps_ready.connect(self._on_sweeps)
        self._worker.finished.connect(self._on_finished)
        self._worker.failed.connect(self._on_failed)
        self._worker.paused.connect(self._on_paused)

        self._job_thread = QThread()
        self._job_thread.setObjectName("mdpviz-jobs")
        self._jobs = JobWorker()
        self._jobs.moveToThread(self._job_thread)
        self._execute.connect(self._jobs.execute)
        self._jobs.progress.connect(self._on_job_progress)
        self._jobs.partial.connect(self._on_job_partial)
        self._jobs.done.connect(self._on_job_done)
        self._jobs.failed.connect(self._on_job_failed)
        self._jobs.cancelled.connect(self._on_job_cancelled)

        # the workers (and the worker's QTimer) are deleted on their own threads when those finish
        self._solver_thread.finished.connect(self._worker.deleteLater, Qt.ConnectionType.DirectConnection)
        self._job_thread.finished.connect(self._jobs.deleteLater, Qt.ConnectionType.DirectConnection)
        for t in (self._solver_thread, self._job_thread):
            _THREADS.append(t)
            t.start()
        self._warmed = False
        if warm_up:
            self.warm_up_kernels()

    def warm_up_kernels(self) -> None:
        """Compile (first run) or load the sweep kernels on the job thread (once), so that the first
        Step does not wait for numba. Job -1: its result is not reported. Importing numba and scipy
        holds the GIL for about half a second: the window starts it only after its first paint, which
        it would otherwise delay."""
        if self._warmed or self._closed:
            return
        self._warmed = True
        self._execute.emit(-1, Job(_warm_up_kernels))

    # ------------------------------------------------------------------ solver
    @property
    def next_phase(self) -> str:
        """What the next ``next()`` yields for policy iteration: "evaluate" or "improve" ("" otherwise)."""
        spec = registry.find(self.method)
        if spec is None or spec.unit != "round":  # (a round: Evaluate then Improve)
            return ""
        if not self.history or self.history[-1].phase == "improve":
            return "evaluate"
        return "improve"

    @property
    def is_running(self) -> bool:
        return self.state == "running"

    @property
    def can_step(self) -> bool:
        return self.state in ("ready", "paused", "stepping") and self.mdp is not None

    def reset(self, mdp: TabularMDP | None, method: str | None = None, **options: Any) -> None:
        """Drop the current solve and load a fresh generator for ``mdp`` (None: no model)."""
        if self._closed:
            return
        self._job += 1
        self._pending = 0
        self.history = []
        self.solution = None
        self.value_range = None
        self.error = ""
        if method is not None:
            self.method = method
            self.options = dict(options)
        self.mdp = mdp
        self._worker.stop_flag.set()
        self.history_reset.emit()
        if mdp is None:
            self._unload.emit()
            self._set_state("empty")
            return
        self._load.emit(self._job, mdp, self.method, dict(self.options))
        self._set_state("ready")

    def finished_solve(self) -> FinishedSolve | None:
        """The current solve if it has finished ("converged" or "stopped"; None otherwise): what
        :meth:`restore` shows again."""
        if self.mdp is None or self.solution is None or self.state not in ("converged", "stopped"):
            return None
        return FinishedSolve(self.mdp, self.method, dict(self.options), tuple(self.history), self.solution,
                             self.value_range, self.state)

    def restore(self, kept: FinishedSolve) -> None:
        """Show a finished solve again (kept by :meth:`finished_solve`) without solving: the history is
        announced as a reset followed by its range and all its sweeps, the state is the kept one. No
        generator is loaded (a finished solve has nothing left to step); Reset loads a fresh one."""
        if self._closed:
            return
        self._job += 1
        self._pending = 0
        self._worker.stop_flag.set()
        self._unload.emit()
        self.method, self.options, self.mdp = kept.method, dict(kept.options), kept.mdp
        self.history = []
        self.solution = None
        self.value_range = None
        self.error = ""
        self.history_reset.emit()
        self.value_range = kept.value_range
        if kept.value_range is not None:
            self.range_ready.emit(kept.value_range)
        self.history = list(kept.history)
        if kept.history:
            self.sweeps_added.emit(kept.history)
        self.solution = kept.solution
        self._set_state(kept.state)

    def step(self) -> None:
        """One ``next()`` of the generator: one sweep, or one half-step of policy iteration."""
        self._request_step("one")

    def step_round(self) -> None:
        """Step to the end of the current policy-iteration round (one sweep for the other methods)."""
        self._request_step("round")

    def _request_step(self, mode: str) -> None:
        if not self.can_step or self._closed:
            return
        self._pending += 1
        self._step.emit(self._job, mode)
        self._set_state("stepping")

    def run(self, rate: float | None = None) -> None:
        """Keep sweeping until convergence at ``rate`` sweeps per second (default: the set speed)."""
        if rate is not None:
            self.rate = float(rate)
        if not self.can_step or self._closed:
            return
        self._worker.stop_flag.clear()
        self._run.emit(self._job, self.rate)
        self._set_state("running")

    def set_rate(self, rate: float) -> None:
        """Change the Run speed (sweeps per second, ``math.inf`` for as fast as possible)."""
        self.rate = float(rate)
        if self.state == "running" and not self._closed:
            self._rate.emit(self._job, self.rate)

    def pause(self) -> None:
        """Stop a Run after the sweep in progress; Step or Run continue from there."""
        if self.state == "running" and not self._closed:
            self._worker.stop_flag.set()
            self._pause.emit(self._job)
            self._set_state("paused")

    def toggle_run(self) -> None:
        """Run if paused or ready, pause if running."""
        if self.state == "running":
            self.pause()
        else:
            self.run()

    # worker -> controller (GUI thread)
    def _on_loaded(self, job: int, rng: ValueRange | None) -> None:
        if job != self._job:
            return
        if rng is not None:
            self.value_range = rng
            self.range_ready.emit(rng)

    def _on_sweeps(self, job: int, sweeps: tuple) -> None:
        if job != self._job:
            return
        self._widen_range(sweeps)
        self.history.extend(sweeps)
        self.sweeps_added.emit(sweeps)  # one call per delivery (a Run delivers hundreds at once)
        if self.state == "stepping":
            self._pending = max(0, self._pending - 1)
            if self._pending == 0:
                self._set_state("paused")

    def _widen_range(self, sweeps: tuple) -> None:
        """Without a reference, the range is the values seen so far: widened when a sweep exceeds
        it (``range_ready`` again), never shrunk within the solve. (A policy-gradient snapshot has no values.)"""
        if not sweeps or not hasattr(sweeps[0], "values") or self.mdp is None or (self.value_range is not None and self.value_range.source == "reference"):
            return
        rng = seen_range(sweeps, self.mdp.terminal, self.value_range)
        if rng is not self.value_range:
            self.value_range = rng
            self.range_ready.emit(rng)

    def _on_finished(self, job: int, sol: Solution) -> None:
        if job != self._job:
            return
        self.solution = sol
        self._pending = 0
        self.finished.emit(sol)
        self._set_state("converged" if getattr(sol, "converged", True) else "stopped")

    def _on_failed(self, job: int, msg: str) -> None:
        if job != self._job:
            return
        self.error = msg
        self._pending = 0
        self.failed.emit(msg)
        self._set_state("failed")

    def _on_paused(self, job: int) -> None:
        if job == self._job and self.state == "running":
            self._set_state("paused")

    def _set_state(self, state: str) -> None:
        if state != self.state:
            self.state = state
            self.state_changed.emit(state)

    # ------------------------------------------------------------------ background jobs
    @property
    def job_busy(self) -> bool:
        return self._current is not None

    @property
    def current_job(self) -> Job | None:
        """The job running on the job thread (None: none)."""
        return self._current

    def start_job(self, job: Job) -> bool:
        """Step ``job``'s generator on the job thread and call its callbacks on the GUI thread with what
        it yields and returns (the ``job_...`` signals follow each call); False if a job is already running."""
        if self._current is not None or self._closed:
            return False
        self._sim_job += 1
        self._current = job
        self._jobs.cancel_flag.clear()
        self._execute.emit(self._sim_job, job)
        return True

    def cancel_job(self) -> None:
        """Ask the running job to stop at its next check; its ``on_cancelled`` and ``job_cancelled`` follow."""
        if self._current is not None:
            self._jobs.cancel_flag.set()

    # What a job's callbacks do with its progress and results (progress bars repaint at once, a game
    # rebuilds its panels) is drawn as a frame of its own: the job waits meanwhile (see FrameGate).
    def _as_frame(self, fn: Callable[[], None]) -> None:
        if self.frame_gate is None:
            fn()
        else:
            self.frame_gate.run(fn)

    def _on_job_progress(self, job: int, done: int, total: int, text: str) -> None:
        work = self._current
        if job == self._sim_job and work is not None:
            def report() -> None:
                if work.on_progress is not None:
                    work.on_progress(done, total, text)
                self.job_progress.emit(done, total, text)
            self._as_frame(report)

    def _on_job_partial(self, job: int, item: object) -> None:
        work = self._current
        if job == self._sim_job and work is not None:
            def report() -> None:
                if work.on_partial is not None:
                    work.on_partial(item)
                self.job_partial.emit(item)
            self._as_frame(report)

    def _end_job(self, job: int, callback: str, signal: Any, *args: Any) -> None:
        """The running job ended: it is no longer running (its callback may start the next one), then its
        ``callback`` and ``signal`` are called with ``args``."""
        work = self._current
        if job != self._sim_job or work is None:
            return
        self._current = None

        def report() -> None:
            fn = getattr(work, callback)
            if fn is not None:
                fn(*args)
            signal.emit(*args)
        self._as_frame(report)

    def _on_job_done(self, job: int, result: object) -> None:
        self._end_job(job, "on_done", self.job_finished, result)

    def _on_job_failed(self, job: int, msg: str) -> None:
        self._end_job(job, "on_failed", self.job_failed, msg)

    def _on_job_cancelled(self, job: int) -> None:
        self._end_job(job, "on_cancelled", self.job_cancelled)

    # ------------------------------------------------------------------ shutdown
    def shutdown(self, timeout_ms: int = 10_000) -> None:
        """Stop the solver and any job, quit both threads and wait for them (window close, tests)."""
        if self._closed:
            return
        self._closed = True
        release_loads()  # a load held for a first paint that never came must not hold the thread's exit
        self._job += 1
        self._worker.stop_flag.set()
        self._jobs.cancel_flag.set()
        self._unload.emit()
        for t in (self._solver_thread, self._job_thread):
            t.quit()
        for t in (self._solver_thread, self._job_thread):
            t.wait(timeout_ms)
