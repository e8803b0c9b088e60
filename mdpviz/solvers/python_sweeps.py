"""A small model's first sweeps in the interpreter, so that they do not wait for the compiler.

Importing numba and loading the compiled sweep kernels from its cache costs a fresh process about
0.7-0.9 s of CPU (2-core AMD EPYC; more in wall time on a busy machine), which a 10-state course file
would otherwise pay for a solve of a few milliseconds. So value iteration (both variants) starts a
model of at most :data:`SMALL_MAX_TRANSITIONS` transitions in plain Python: the loops of
:mod:`mdpviz.solvers.sweep_loops`, run on lists. A process spends at most :data:`PYTHON_BUDGET`
transition visits that way, all solves together (a count, not a clock, so where a run switches is
the same on every machine); a run that needs more continues in the compiled kernels (numba's
compile of those very functions) from the values and policy reached, between two sweeps. The two
evaluate every expression alike on IEEE doubles (numba makes no FMA of a multiply-add unless told
to), so every value, policy, change and sweep count is the kernel's bit for bit, wherever the run
switches (tests/test_python_sweeps.py). Once the kernels are loaded in the process (the window loads
them after its first paint) the interpreter is not used; without numba the numpy reference runs as
before.
"""
from __future__ import annotations

import threading
import weakref
from typing import Any, Callable

import numpy as np

from mdpviz.core.mdp import TabularMDP
from mdpviz.solvers import kernels, sweep_loops

PYTHON_BUDGET = 1 << 22
"""Transition visits (a sweep visits every transition and every state once) a process runs in the
interpreter before it loads the compiled kernels: about 0.6 s of CPU at ~150 ns a visit, about what
loading numba and the kernels costs, so a run is at most about twice as slow as the better of the
two. Every shipped course file's in-place value iteration fits (episodic-mdp-10-5: 20,114 sweeps,
2.6 million visits)."""

SMALL_MAX_TRANSITIONS = 1 << 15
"""Models up to this many transitions start in the interpreter (a sweep of them costs at most ~5 ms
there); the synchronous sweep's arithmetic is the small models' one up to the same size
(:data:`mdpviz.solvers.value_iteration.JACOBI_KERNEL_MAX_TRANSITIONS`)."""

PYTHON_BATCH_WORK = 1 << 16
"""Transition visits per generator step while the interpreter sweeps (about 10 ms, the compiled
kernels' :data:`~mdpviz.solvers.value_iteration.BATCH_WORK` is about as long): the interpreter holds
the GIL, so the window's thread would otherwise wait for a whole batch."""

_lock = threading.Lock()
_spent = 0
"""Transition visits this process has run in the interpreter."""


def sweep_cost(mdp: TabularMDP) -> int:
    """Transition visits one sweep of ``mdp`` counts for."""
    return mdp.n_transitions + mdp.n_states


def budget_left() -> int:
    """Transition visits the interpreter may still run in this process."""
    return max(0, PYTHON_BUDGET - _spent)


def _spend(visits: int) -> None:
    global _spent
    with _lock:
        _spent += visits


def python_first(mdp: TabularMDP) -> bool:
    """Whether the sweeps of ``mdp`` start in the interpreter: a small model, kernels that are expected
    but not yet loaded, and budget left for at least one sweep."""
    return (mdp.n_transitions <= SMALL_MAX_TRANSITIONS and not kernels.loaded() and kernels.expected()
            and budget_left() >= sweep_cost(mdp))


def _python_sweeps(cost: int, m: int) -> int:
    """How many of the next ``m`` sweeps (``cost`` visits each) the interpreter runs: what the budget
    has room for, none once the kernels are loaded."""
    if kernels.loaded():
        return 0
    return min(m, budget_left() // cost)


_lists: "weakref.WeakKeyDictionary[Any, tuple]" = weakref.WeakKeyDictionary()


def model_lists(mdp: TabularMDP) -> tuple:
    """The kernel model's arrays as Python lists (indexing a list is several times faster in the
    interpreter than indexing an array): indptr, indices, prob, row_reward, state_ptr, row_action,
    sense, terminal, kind."""
    got = _lists.get(mdp)
    if got is None:
        km = kernels.kernel_model(mdp)
        got = tuple(a.tolist() for a in km.args()[:8]) + (km.kind.tolist(),)
        _lists[mdp] = got
    return got


class GaussSeidelEngine:
    """In-place sweeps of a small model: the interpreter first (:func:`sweep_loops.gauss_seidel_sweeps`),
    then the compiled kernel from ``hand_over(v, pol, v_prev, pol_prev)`` (an engine with
    ``advance(m, tol)``, or None when the kernels fail to load: the interpreter goes on).

    ``advance(m, tol)`` returns (sweeps done, largest change, summed change, its argmax, changed
    count) and leaves ``v`` (updated in place), ``pol``, ``v_prev`` and ``pol_prev`` as the kernel
    engine does.
    """

    def __init__(self, mdp: TabularMDP, v: np.ndarray, tie_tol: float, hand_over: Callable[..., Any],
                 kernel_cap: int) -> None:
        """``kernel_cap``: sweeps per generator step once the kernel runs."""
        n = mdp.n_states
        self._lists = model_lists(mdp)[:8]
        self._gamma = float(mdp.discount)
        self._tie_tol = float(tie_tol)
        self._cost = sweep_cost(mdp)
        self._hand_over = hand_over
        self._kernel: Any = None
        self._interpreter = True  # False once handed over
        self.v = v
        self.pol = np.full(n, -2, dtype=np.int64)  # -2: no policy yet (so sweep 1 "changes" nothing we report)
        self.v_prev = np.empty(n)
        self.pol_prev = np.empty(n, dtype=np.int64)
        self._v, self._pol = v.tolist(), self.pol.tolist()
        self._v_prev, self._pol_prev = [0.0] * n, [0] * n
        self._stats = [0.0, 0.0, 0, 0]
        self._qbuf = [0.0] * max(1, int(np.diff(mdp.state_ptr).max(initial=0)))
        self._kernel_cap = kernel_cap

    def cap(self) -> int:
        """The most sweeps one generator step should ask for now."""
        if self._interpreter:
            return max(1, PYTHON_BATCH_WORK // self._cost)
        return self._kernel_cap

    def _run_python(self, m: int, tol: float) -> int:
        done = sweep_loops.gauss_seidel_sweeps(*self._lists, self._gamma, self._tie_tol, float(tol), m, self._v,
                                               self._pol, self._v_prev, self._pol_prev, self._stats, self._qbuf)
        self.v[:] = self._v
        self.pol[:] = self._pol
        self.v_prev[:] = self._v_prev
        self.pol_prev[:] = self._pol_prev
        return done

    def advance(self, m: int, tol: float) -> tuple[int, float, float, int, int]:
        done = 0
        if self._interpreter:
            k = _python_sweeps(self._cost, m)
            if k > 0:
                done = self._run_python(k, tol)
                _spend(done * self._cost)
                if done < k or done == m or self._stats[0] < tol:  # converged (on the last sweep too), or all done
                    stats = self._stats
                    return done, float(stats[0]), float(stats[1]), int(stats[2]), int(stats[3])
            self._kernel = self._hand_over(self.v, self.pol, self.v_prev, self.pol_prev)
            if self._kernel is None:  # numba failed to load after all: the interpreter goes on, same numbers
                more = self._run_python(m - done, tol)
                _spend(more * self._cost)
                done += more
                stats = self._stats
                return done, float(stats[0]), float(stats[1]), int(stats[2]), int(stats[3])
            self._interpreter = False
        more, delta, total, arg, n_changed = self._kernel.advance(m - done, tol)
        return done + more, delta, total, arg, n_changed


class JacobiEngine:
    """Synchronous sweeps of a small model: the interpreter first (:func:`sweep_loops.jacobi_sweeps`),
    then the compiled kernel from ``hand_over(v, p, finite)`` (an engine like
    :class:`~mdpviz.solvers.value_iteration._JacobiKernel` starting from those values and actions,
    or None when the kernels fail to load: the interpreter goes on).

    After :meth:`advance`, ``v``, ``p``, ``changed`` and ``stats`` are what the kernel engine's are;
    ``v`` and ``p`` are new arrays each time, never written again (snapshots hand out views of them).
    """

    folded = False

    def __init__(self, mdp: TabularMDP, v: np.ndarray, tie_tol: float, hand_over: Callable[..., Any],
                 kernel_cap: int) -> None:
        """``kernel_cap``: sweeps per generator step once the kernel runs."""
        n = mdp.n_states
        lists = model_lists(mdp)
        self._args = lists[:6] + (lists[8], float(mdp.discount), float(tie_tol), int(mdp.uniform_actions),
                                  bool(mdp.dense_actions))
        self._cost = sweep_cost(mdp)
        self._hand_over = hand_over
        self._kernel: Any = None
        self._kernel_cap = kernel_cap
        self._v = v
        self._p = np.full(n, -2, dtype=np.int64)  # -2: no policy yet (sweep 1 "changes" nothing we report)
        self._changed = np.empty(0, dtype=np.int64)
        self._stats = np.zeros(5)
        self._cur = (v.tolist(), [-2] * n)  # (values, actions) as lists
        self._finite = False  # checked by the first sweep, then known from stats[4]

    # the kernel engine's attributes once handed over, else the interpreter's
    v = property(lambda self: self._v if self._kernel is None else self._kernel.v)
    p = property(lambda self: self._p if self._kernel is None else self._kernel.p)
    changed = property(lambda self: self._changed if self._kernel is None else self._kernel.changed)
    stats = property(lambda self: self._stats if self._kernel is None else self._kernel.stats)

    def cap(self) -> int:
        """The most sweeps one generator step should ask for now."""
        if self._kernel is None:
            return max(1, PYTHON_BATCH_WORK // self._cost)
        return self._kernel_cap

    def total_change(self) -> float:
        """Summed |V_new - V_old| of the last sweep, in state order."""
        return float(self.stats[1])

    def _run_python(self, m: int, tol: float) -> int:
        n = len(self._cur[0])
        a = ([0.0] * n, [0] * n)  # lists to write sweeps into (new ones: a sweep costs more than these)
        b = ([0.0] * n, [0] * n) if m > 1 else a
        stats = [0.0] * 5
        changed = [0] * n
        done = sweep_loops.jacobi_sweeps(*self._args, float(tol), m, self._cur[0], self._cur[1], a[0], b[0], a[1],
                                         b[1], changed, stats, self._finite)
        self._cur = a if done % 2 else b
        res = self._cur
        self._finite = bool(stats[4])
        self._v = np.array(res[0], dtype=np.float64)
        self._p = np.array(res[1], dtype=np.int64)
        self._changed = np.array(changed[: int(stats[3])], dtype=np.int64)
        self._stats = np.array(stats, dtype=np.float64)
        return done

    def advance(self, m: int, tol: float) -> int:
        """Up to ``m`` sweeps (stop after the first whose largest change is below ``tol``); how many."""
        done = 0
        if self._kernel is None:
            k = _python_sweeps(self._cost, m)
            if k > 0:
                done = self._run_python(k, tol)
                _spend(done * self._cost)
                if done < k or done == m or self._stats[0] < tol:  # converged on the budget's last sweep too
                    return done
            kernel = self._hand_over(self._v, self._p, self._finite)
            if kernel is None:  # numba failed to load after all: the interpreter goes on, same numbers
                more = self._run_python(m - done, tol)
                _spend(more * self._cost)
                return done + more
            self._kernel = kernel
        return done + self._kernel.advance(m - done, tol)

