"""The controller: the worker thread drives the solver generators; the GUI thread only receives
immutable sweeps. Tier 2 of the house style: qtbot.waitSignal on the controller's signals, no sleeps."""
from __future__ import annotations

import math
import threading

import numpy as np
import pytest

from mdpviz.controller import SolverController, ValueRange, first_sweep_range, reference_range, running_threads
from mdpviz.core.mdp import TabularMDP
from mdpviz.models.snakes import SnakesSettings, compile_snakes, markovDecision
from mdpviz.solvers import solve
from tests.conftest import LAYOUT

def slow_mdp(n: int = 40, gamma: float = 0.999) -> TabularMDP:
    """A ring of n states, reward 1 per step, discount close to 1: value iteration needs ~20,000 sweeps."""
    s = np.arange(n)
    return TabularMDP.from_transitions(n, 2, np.r_[s, s], np.r_[np.zeros(n), np.ones(n)], np.r_[(s + 1) % n, s],
                                       np.ones(2 * n), np.r_[np.ones(n), np.zeros(n)], discount=gamma)


@pytest.fixture
def ctrl(qtbot):
    c = SolverController()
    yield c
    c.shutdown()
    assert running_threads() == []


def test_step_pulls_exactly_one_sweep(qtbot, ctrl):
    mdp = compile_snakes(SnakesSettings(layout=LAYOUT))
    ref = solve(mdp, "vi", record=True, tol=1e-9).history
    ctrl.reset(mdp, "vi", tol=1e-9)
    assert ctrl.state == "ready"
    with qtbot.waitSignal(ctrl.sweeps_added, timeout=10_000) as blocker:
        ctrl.step()
    (sw,) = blocker.args[0]  # a Step delivers one sweep
    qtbot.waitUntil(lambda: ctrl.state == "paused", timeout=10_000)
    assert len(ctrl.history) == 1 and ctrl.history[0] is sw
    assert sw.iteration == 1 and np.array_equal(sw.values, ref[0].values)
    assert not sw.values.flags.writeable  # immutable snapshot
    with qtbot.waitSignal(ctrl.sweeps_added, timeout=10_000) as blocker:
        ctrl.step()
    (sw,) = blocker.args[0]
    assert sw.iteration == 2 and np.array_equal(sw.values, ref[1].values)
    qtbot.waitUntil(lambda: ctrl.state == "paused", timeout=10_000)
    assert len(ctrl.history) == 2


def test_run_reaches_the_same_solution_as_solve(qtbot, ctrl):
    mdp = compile_snakes(SnakesSettings(layout=LAYOUT))
    ref = solve(mdp, "vi", record=True, tol=1e-12)
    ranges = []
    ctrl.range_ready.connect(ranges.append)
    ctrl.reset(mdp, "vi", tol=1e-12)
    with qtbot.waitSignal(ctrl.finished, timeout=30_000) as blocker:
        ctrl.run(math.inf)
    sol = blocker.args[0]
    assert sol.converged and ctrl.state == "converged"
    # Run at full speed asks for many sweeps per snapshot (issue 15): the snapshots it records are
    # some of the sweeps, each identical to that sweep of a recorded solve, ending with the last.
    assert len(ref.history) == sol.sweeps and ctrl.history[-1].iteration == sol.sweeps
    its = [sw.iteration for sw in ctrl.history]
    assert its == sorted(set(its)) and its[0] == 1
    for sw in ctrl.history:
        b = ref.history[sw.iteration - 1]
        assert np.array_equal(sw.values, b.values) and np.array_equal(sw.policy, b.policy)
        assert sw.delta == b.delta and sw.delta_state == b.delta_state and np.array_equal(sw.changed, b.changed)
    assert np.array_equal(sol.values, ref.values) and np.array_equal(sol.policy, ref.policy)
    expec, dice = markovDecision(np.array(LAYOUT), False)
    assert np.allclose(sol.values[:14], expec, atol=1e-9, rtol=0)
    assert np.array_equal(sol.policy[:14] + 1, dice)
    # the colour range was fixed once, before the first sweep: it spans the optimal values shown
    # on the board (earlier sweeps may lie outside: drawn with its end colours)
    assert len(ranges) == 1 and ranges[0].source == "reference"
    live = sol.values[~mdp.terminal]
    assert (ranges[0].lo, ranges[0].hi) == pytest.approx((live.min(), live.max()), abs=1e-9)
    assert not ctrl.can_step


def test_pause_then_step_continues_the_same_generator(qtbot, ctrl):
    ctrl.reset(slow_mdp(), "vi", tol=1e-9)
    ctrl.run(200.0)
    qtbot.waitUntil(lambda: len(ctrl.history) >= 3, timeout=10_000)
    ctrl.pause()
    assert ctrl.state == "paused"
    n = len(ctrl.history)
    qtbot.waitUntil(lambda: ctrl.state == "paused", timeout=10_000)
    with qtbot.waitSignal(ctrl.sweeps_added, timeout=10_000):
        ctrl.step()
    qtbot.waitUntil(lambda: ctrl.state == "paused", timeout=10_000)
    its = [sw.iteration for sw in ctrl.history]
    assert its == list(range(1, len(its) + 1))  # nothing lost or repeated across run, pause and step
    assert len(its) <= n + 5  # a sweep or two may have been in flight when Pause was pressed
    assert ctrl.state != "converged"


def test_reset_drops_sweeps_of_the_old_solve(qtbot, ctrl):
    ctrl.reset(slow_mdp(), "vi", tol=1e-12)
    ctrl.run(1000.0)  # one sweep per snapshot (at full speed it would take ~20,000 per snapshot)
    qtbot.waitUntil(lambda: len(ctrl.history) >= 20, timeout=10_000)
    small = compile_snakes(SnakesSettings())
    resets = []
    ctrl.history_reset.connect(lambda: resets.append(1))
    ctrl.reset(small, "vi", tol=1e-9)
    assert resets == [1] and ctrl.history == [] and ctrl.state == "ready"
    with qtbot.waitSignal(ctrl.finished, timeout=30_000):
        ctrl.run(math.inf)
    its = [sw.iteration for sw in ctrl.history]
    assert its[0] == 1 and its == sorted(set(its))  # Run at full speed records some of the sweeps
    assert all(sw.values.size == 15 for sw in ctrl.history)  # only the new model's sweeps were kept


def test_policy_iteration_evaluate_improve_and_round(qtbot, ctrl):
    mdp = compile_snakes(SnakesSettings(layout=LAYOUT))
    ctrl.reset(mdp, "pi")
    assert ctrl.next_phase == "evaluate"
    with qtbot.waitSignal(ctrl.sweeps_added, timeout=10_000) as b:
        ctrl.step()
    assert b.args[0][-1].phase == "evaluate"
    qtbot.waitUntil(lambda: ctrl.state == "paused", timeout=10_000)
    assert ctrl.next_phase == "improve"
    with qtbot.waitSignal(ctrl.sweeps_added, timeout=10_000) as b:
        ctrl.step()
    assert b.args[0][-1].phase == "improve"
    qtbot.waitUntil(lambda: ctrl.state == "paused", timeout=10_000)
    n = len(ctrl.history)
    ctrl.step_round()  # one full round: evaluate + improve
    qtbot.waitUntil(lambda: len(ctrl.history) == n + 2 and ctrl.state in ("paused", "converged"), timeout=10_000)
    assert [sw.phase for sw in ctrl.history[-2:]] == ["evaluate", "improve"]
    with qtbot.waitSignal(ctrl.finished, timeout=30_000) as b:
        ctrl.run(math.inf)
    expec, dice = markovDecision(np.array(LAYOUT), False)
    assert np.allclose(b.args[0].values[:14], expec, atol=1e-9)


def test_a_failing_solver_reports_instead_of_raising(qtbot, ctrl):
    # discount 1 and no terminal state: policy evaluation has no finite solution
    mdp = TabularMDP.from_transitions(2, 1, [0, 1], [0, 0], [1, 0], [1.0, 1.0], [1.0, 1.0], discount=1.0)
    ctrl.reset(mdp, "pi")
    with qtbot.waitSignal(ctrl.failed, timeout=10_000) as b:
        ctrl.step()
    assert "never reaches a terminal state" in b.args[0]
    qtbot.waitUntil(lambda: ctrl.state == "failed", timeout=10_000)
    assert not ctrl.can_step


def test_reference_range_and_fallback():
    mdp = compile_snakes(SnakesSettings(layout=LAYOUT))
    rng = reference_range(mdp)
    sol = solve(mdp, "pi")
    live = sol.values[~mdp.terminal]
    # the optimal values of the states on the board (not the first policy's, not joined with 0)
    assert rng == ValueRange(float(live.min()), float(live.max()), "reference")
    assert np.array_equal(rng.values, sol.values) and not rng.values.flags.writeable
    bad = TabularMDP.from_transitions(2, 1, [0, 1], [0, 0], [1, 0], [1.0, 1.0], [1.0, 1.0], discount=1.0)
    assert reference_range(bad) is None
    sw = solve(mdp, "vi", record=True).history[0]
    fb = first_sweep_range(sw, np.asarray(mdp.terminal))
    live = sw.values[~mdp.terminal]
    assert (fb.lo, fb.hi, fb.source) == (live.min(), live.max(), "seen") == (0.75, 1.0, "seen")
    assert fb.widened(np.array([0.5, 1.0])) == ValueRange(0.5, 1.0, "seen")  # widened when exceeded
    assert fb.widened(np.array([1.0])) is fb  # never shrunk


def test_background_job_progress_result_and_cancel(qtbot, ctrl):
    from mdpviz.core.jobs import Job, JobProgress

    seen, called = [], []
    ctrl.job_progress.connect(lambda d, t, text: seen.append((d, t, text)))
    main = threading.get_ident()

    def job():
        for i in range(3):
            yield JobProgress(i + 1, 3, f"part {i + 1}")
        return ("done", threading.get_ident() != main)

    with qtbot.waitSignal(ctrl.job_finished, timeout=10_000) as b:
        assert ctrl.start_job(Job(job, on_done=lambda r: called.append((r, threading.get_ident() == main))))
    assert b.args[0] == ("done", True)  # ran off the GUI thread
    assert called == [(("done", True), True)]  # the job's own callback, on the GUI thread
    qtbot.waitUntil(lambda: len(seen) == 3, timeout=10_000)
    assert seen[-1] == (3, 3, "part 3")
    assert not ctrl.job_busy

    started = threading.Event()

    def endless():
        started.set()
        while True:
            yield JobProgress(0, 1, "")

    with qtbot.waitSignal(ctrl.job_cancelled, timeout=10_000):
        assert ctrl.start_job(Job(endless, on_cancelled=lambda: called.append("cancelled")))
        assert not ctrl.start_job(Job(job))  # one job at a time
        qtbot.waitUntil(started.is_set, timeout=10_000)
        ctrl.cancel_job()
    assert not ctrl.job_busy and called[-1] == "cancelled"

    def broken():
        raise ValueError("no such strategy")
        yield

    with qtbot.waitSignal(ctrl.job_failed, timeout=10_000) as b:
        ctrl.start_job(Job(broken, on_failed=called.append))
    assert b.args[0] == "no such strategy" and called[-1] == "no such strategy"


def test_shutdown_stops_both_threads(qtbot):
    c = SolverController()
    c.reset(slow_mdp(), "vi", tol=1e-12)
    c.run(math.inf)
    qtbot.waitUntil(lambda: len(c.history) > 0, timeout=10_000)
    assert len(running_threads()) >= 2
    c.shutdown()
    assert running_threads() == []
    c.shutdown()  # idempotent


def test_cyclic_garbage_is_collected_on_the_gui_thread_only(qtbot):
    """A collection on a worker thread can destroy a Qt widget there and hang the window."""
    import gc
    import threading

    from PySide6.QtWidgets import QApplication, QLabel

    from mdpviz.controller import GuiThreadCollector, SolverController

    c = SolverController()
    try:
        assert not gc.isenabled()  # no automatic collection, in whatever thread allocates
        collectors = QApplication.instance().findChildren(GuiThreadCollector)
        assert len(collectors) == 1  # one per application, however many controllers
        SolverController().shutdown()
        assert len(QApplication.instance().findChildren(GuiThreadCollector)) == 1
        destroyed_in = []

        class Cycle:
            pass

        def make_garbage():
            a = Cycle()
            a.self_ref = a
            a.widget = QLabel()
            a.widget.destroyed.connect(lambda *_: destroyed_in.append(threading.current_thread().name))

        make_garbage()
        thresholds = gc.get_threshold()
        gc.set_threshold(1, 1, 1)  # every check collects
        try:
            worker = threading.Thread(target=lambda: [object() for _ in range(10_000)], name="worker")
            worker.start()
            worker.join()
            assert destroyed_in == []  # the worker allocated past every threshold and collected nothing
            qtbot.waitUntil(lambda: destroyed_in != [], timeout=10_000)  # the GUI-thread timer did
            assert destroyed_in == [threading.main_thread().name]
        finally:
            gc.set_threshold(*thresholds)
    finally:
        c.shutdown()


def test_a_generator_job_reports_progress_and_partials_in_order_and_can_be_cancelled(qtbot):
    from mdpviz.controller import SolverController
    from mdpviz.core.jobs import Job
    from mdpviz.models.kit.game.registry import JobProgress

    c = SolverController()
    try:
        seen, partial = [], []
        c.job_progress.connect(lambda d, t, s: seen.append((d, t, s)))
        c.job_partial.connect(partial.append)

        def make():
            for i in range(3):
                yield JobProgress(i, 3, f"item {i}")
                yield i * 10
            return "done"

        with qtbot.waitSignal(c.job_finished, timeout=10_000) as blocker:
            assert c.start_job(Job(make))
        assert blocker.args == ["done"]
        assert seen == [(0, 3, "item 0"), (1, 3, "item 1"), (2, 3, "item 2")]
        assert partial == [0, 10, 20]

        closed = []
        import threading
        gate = threading.Event()

        def endless():
            try:
                while True:
                    gate.set()
                    yield JobProgress(0, 0, "")
            finally:
                closed.append(True)

        with qtbot.waitSignal(c.job_cancelled, timeout=10_000):
            assert c.start_job(Job(endless))
            assert gate.wait(10)
            c.cancel_job()
        assert closed == [True]
    finally:
        c.shutdown()


def test_a_partial_yielded_while_a_cancel_waits_arrives_before_job_cancelled(qtbot):
    """A job may keep what it computed before a cancel was seen (the anti-tic-tac-toe Step keeps such a
    round for the next Step): the partial result yielded then is delivered, and before ``job_cancelled``;
    nothing after it is pulled."""
    import threading

    from mdpviz.controller import SolverController
    from mdpviz.core.jobs import Job

    c = SolverController()
    try:
        events, pulled = [], []
        c.job_partial.connect(lambda item: events.append(("partial", item)))
        c.job_cancelled.connect(lambda: events.append(("cancelled",)))
        entered, gate = threading.Event(), threading.Event()

        def make():
            entered.set()
            gate.wait(10)  # the work of the first item, during which the cancel comes
            yield "first"
            pulled.append("second")
            yield "second"

        with qtbot.waitSignal(c.job_cancelled, timeout=10_000):
            assert c.start_job(Job(make))
            assert entered.wait(10)
            c.cancel_job()
            gate.set()
        assert events == [("partial", "first"), ("cancelled",)] and pulled == []
    finally:
        c.shutdown()


def test_frame_gate_holds_the_workers_only_while_a_frame_is_drawn(qtbot):
    """Workers wait at FRAME_GATE.pause() from a frame's begin() until the events posted before its
    end() are handled (its repaints), and never past the frame's deadline."""
    import time

    from mdpviz.controller import FRAME_GATE

    c = SolverController()
    try:
        gate = c.frame_gate
        assert gate is not None and FRAME_GATE.open.is_set()
        FRAME_GATE.pause()  # no frame: returns at once
        gate.begin()
        assert not FRAME_GATE.open.is_set()
        passed = threading.Event()
        worker = threading.Thread(target=lambda: (FRAME_GATE.pause(), passed.set()))
        worker.start()
        gate.end()
        assert not FRAME_GATE.open.is_set()  # open only once the event loop has handled what came first
        qtbot.waitUntil(passed.is_set, timeout=10_000)
        worker.join()
        assert FRAME_GATE.open.is_set()
        gate.begin()
        FRAME_GATE.deadline = time.perf_counter() - 1.0  # a frame that never ends holds no one past its deadline
        FRAME_GATE.pause()
        gate.end()
        qtbot.waitUntil(FRAME_GATE.open.is_set, timeout=10_000)
        # what the window does with a job's progress is a frame too
        seen = []
        c.job_progress.connect(lambda *_: seen.append(FRAME_GATE.open.is_set()))
        from mdpviz.core.jobs import Job, JobProgress

        with qtbot.waitSignal(c.job_finished, timeout=10_000):
            assert c.start_job(Job(lambda: iter([JobProgress(1, 2, "half")])))
        assert seen == [False]
        qtbot.waitUntil(FRAME_GATE.open.is_set, timeout=10_000)
    finally:
        c.shutdown()


def test_window_redraw_brackets_its_frame_with_the_gate(qtbot):
    from mdpviz.app import MainWindow
    from mdpviz.controller import FRAME_GATE

    w = MainWindow()
    qtbot.addWidget(w)
    seen = []
    begin = w.controller.frame_gate.begin
    w.controller.frame_gate.begin = lambda: (begin(), seen.append(FRAME_GATE.open.is_set()))
    w.solving.redraw_timer.stop()  # frames drawn here only
    try:
        w.solving._dirty = True
        w.solving.redraw()
        assert seen == [False] and not FRAME_GATE.open.is_set()  # closed while the frame is drawn
        qtbot.waitUntil(FRAME_GATE.open.is_set, timeout=10_000)  # and opened after its repaint
        seen.clear()
        w.solving._dirty = False
        w.solving.redraw()  # nothing changed: no frame, the gate stays open
        assert seen == [] and FRAME_GATE.open.is_set()
    finally:
        del w.controller.frame_gate.begin
        w.shutdown()


def test_collector_collects_young_objects_in_bulk_and_the_oldest_by_cpythons_rule(qtbot):
    import gc

    from PySide6.QtWidgets import QApplication

    from mdpviz.controller import GuiThreadCollector

    c = SolverController()
    col = QApplication.instance().findChild(GuiThreadCollector)
    thresholds = gc.get_threshold()
    try:
        col.timer.stop()  # checked by hand here
        # Whatever earlier tests left in the collector's counts must not make the first check a full
        # collection (it would leave the oldest generation's counter at 0, and no full one is then due).
        col.long_lived_total, col.long_lived_pending = 10**9, 0
        gc.collect(1)
        full0 = gc.get_stats()[2]["collections"]
        junk = [[] for _ in range(2 * GuiThreadCollector.YOUNG_MAX)]  # young objects, fewer than 10 collections
        col.check()
        assert gc.get_stats()[2]["collections"] == full0  # young generations only
        young = {id(o) for g in (0, 1) for o in gc.get_objects(g)}
        assert not any(id(o) in young for o in junk[:100])  # collected past the middle generation at once
        gc.set_threshold(thresholds[0], thresholds[1], 0)  # the oldest generation's counter is due
        full = gc.get_stats()[2]["collections"]
        col.long_lived_total, col.long_lived_pending = 4_000_000, 0  # few promoted since the last full one
        junk2 = [[] for _ in range(2000)]
        col.check()
        assert gc.get_stats()[2]["collections"] == full  # a full collection waits for 25% growth
        col.long_lived_pending = 1_000_000
        junk3 = [[] for _ in range(2000)]
        col.check()
        assert gc.get_stats()[2]["collections"] == full + 1
        # counted right after the full collection (not the 4,000,000 set above); what other threads
        # promote between that count and this one moves it by a few objects in 400,000 (seen: 11)
        assert col.long_lived_pending == 0
        assert col.long_lived_total == pytest.approx(len(gc.get_objects(2)), rel=1e-3)
        del junk, junk2, junk3
    finally:
        gc.set_threshold(*thresholds)
        col.timer.start()
        c.shutdown()


def test_loads_held_for_the_first_paint_wait_then_run_and_a_step_follows(qtbot, ctrl, monkeypatch):
    """``mdpviz``'s start holds the solver thread's loads until the window's first paint: a load
    waits (the board shows meanwhile), a Step asked for meanwhile runs after it, and shutdown
    lets a held load go (the thread's exit never waits for a paint that did not come)."""
    from mdpviz import controller as cm

    class Gate(threading.Event):
        """LOADS_HELD that also tells when the solver thread came to it and whether a release let it go."""

        def __init__(self) -> None:
            super().__init__()
            self.reached = threading.Event()
            self.released = False

        def wait(self, timeout: float | None = None) -> bool:
            self.reached.set()
            self.released = super().wait(timeout)
            return self.released

    gate = Gate()
    gate.set()
    monkeypatch.setattr(cm, "LOADS_HELD", gate)
    monkeypatch.setattr(cm, "LOADS_HOLD_MAX", 60.0)  # only release_loads lets the load go: no timing here
    mdp = compile_snakes(SnakesSettings(layout=LAYOUT))
    cm.hold_loads_until_first_paint()
    try:
        ctrl.reset(mdp, "vi")
        ctrl.step()  # queued behind the held load
        qtbot.waitUntil(gate.reached.is_set, timeout=10_000)  # the load waits at the gate
        assert ctrl.value_range is None and ctrl.history == []  # nothing loaded yet
        cm.release_loads()
        qtbot.waitUntil(lambda: len(ctrl.history) == 1 and ctrl.state == "paused", timeout=10_000)
        assert ctrl.value_range is not None and ctrl.value_range.source == "reference"
        assert gate.released  # the load waited for the release
    finally:
        cm.release_loads()
    cm.hold_loads_until_first_paint()
    other = SolverController()
    try:
        other.reset(mdp, "vi")
    finally:
        other.shutdown()
    assert cm.LOADS_HELD.is_set()
