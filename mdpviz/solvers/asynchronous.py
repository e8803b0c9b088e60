"""Asynchronous value iteration and prioritized sweeping: one state backed up per step.

Both apply the Bellman optimality backup (Sutton and Barto, eq. 4.10) to one state s at a time, in
place, and leave every other state as it is (asynchronous dynamic programming, Sutton and Barto
section 4.5):

    V(s) <- opt_a  sum_{s'} p(s' | s, a) [ r(s, a, s') + gamma V(s') ]

(opt is max for a maximising mover, min otherwise). They differ in which state comes next:

* :func:`asynchronous_value_iteration` ("async-vi"): a fixed cycle through the states, a seeded
  random draw, or a given sequence. Berkeley CS188's reinforcement project, question 4
  (``AsynchronousValueIterationAgent``): iteration i updates state i mod n of the state list, and an
  iteration that lands on a terminal state changes nothing but still counts.
* :func:`prioritized_sweeping` ("prioritized"): the state whose value is furthest from its backup,
  taken from a queue (Moore and Atkeson 1993), exactly as CS188's question 5
  (``PrioritizedSweepingValueIterationAgent``) defines it: see the function.

Each step yields one snapshot (phase "update") whose ``updated`` names the state. Its policy is
greedy in the values after the step (CS188's ``computeActionFromValues``), kept up to date by
deciding again only the predecessors of the updated state, the only states whose Q-values moved.
One Python step per update: meant for the models of a lesson (thousands of states), not millions.
"""
from __future__ import annotations

import heapq
import math
import time
from typing import Sequence

import numpy as np

from mdpviz.core.mdp import TabularMDP, read_only
from mdpviz.solvers.sweep import (
    TIE_TOL, Solution, SolverGen, check_positive, check_tolerance, greedy_policy, greedy_rows, make_sweep,
)
from mdpviz.solvers.value_iteration import _initial_values

ORDERS = ("index", "random")
"""The named update orders of asynchronous value iteration (or an explicit sequence of state ids)."""

PASSES = 100_000
"""Default cap of the asynchronous methods: this many passes over the states (n_states steps each)."""


def predecessors(mdp: TabularMDP, rank: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The predecessors of every state, CSR-style: the states with an action that moves to t with
    positive probability are ``pred[ptr[t]:ptr[t + 1]]`` (CS188 q5's predecessor sets), each state
    once, in increasing ``rank`` (default: state id)."""
    n = mdp.n_states
    row_of_t = np.repeat(np.arange(mdp.n_rows), np.diff(mdp.row_ptr))
    keep = np.asarray(mdp.prob) > 0
    src = np.asarray(mdp.row_state)[row_of_t[keep]]
    dst = np.asarray(mdp.dst)[keep]
    r = np.arange(n) if rank is None else np.asarray(rank, dtype=np.int64)
    key = np.sort(dst * n + r[src])
    if key.size:
        key = key[np.r_[True, key[1:] != key[:-1]]]
    by_rank = np.empty(n, dtype=np.int64)
    by_rank[r] = np.arange(n)
    ptr = np.searchsorted(key // n, np.arange(n + 1)).astype(np.int64)
    return ptr, by_rank[key % n]


class _Backups:
    """One-state Bellman backups on the values ``v`` (changed in place) and the greedy policy they
    keep up to date (ties as in :func:`~mdpviz.solvers.sweep.greedy`)."""

    def __init__(self, mdp: TabularMDP, v: np.ndarray, tie_tol: float, rank: np.ndarray | None = None) -> None:
        self.mdp = mdp
        self.v = v
        self.tie_tol = tie_tol
        self.matrix = mdp.matrix
        self.pred_ptr, self.pred = predecessors(mdp, rank)
        self.policy = greedy_policy(mdp, v, tie_tol=tie_tol)[1]

    def best(self, s: int) -> float:
        """opt_a Q(s, a) under the current values (Sutton and Barto eq. 4.10); 0 for a terminal state."""
        mdp = self.mdp
        r0, r1 = int(mdp.state_ptr[s]), int(mdp.state_ptr[s + 1])
        if mdp.terminal[s] or r0 == r1:
            return 0.0
        q = mdp.row_reward[r0:r1] + mdp.discount * (self.matrix[r0:r1] @ self.v)
        return float(q.max()) if mdp.sense[s] > 0 else float(q.min())

    def predecessors_of(self, s: int) -> np.ndarray:
        """The states with an action that reaches ``s`` with positive probability."""
        return self.pred[self.pred_ptr[s] : self.pred_ptr[s + 1]]

    def set_value(self, s: int, value: float) -> None:
        """V(s) = value, then the greedy action of every predecessor of s decided again."""
        if value == self.v[s]:
            return
        self.v[s] = value
        p = self.predecessors_of(s)
        if p.size:
            rows = greedy_rows(self.mdp, p, self.v, tie_tol=self.tie_tol)
            self.policy[p] = np.where(rows >= 0, self.mdp.row_action[np.maximum(rows, 0)], -1)

    def residual(self) -> float:
        """max_s |(TV)(s) - V(s)|: how far the values are from Bellman's equation."""
        tv, _ = greedy_policy(self.mdp, self.v, tie_tol=self.tie_tol)
        return float(np.max(np.abs(tv - self.v), initial=0.0))


def _step_cap(mdp: TabularMDP, tol: float, iterations: int | None) -> int:
    """The step cap; ValueError for a bad ``tol`` or ``iterations``."""
    check_tolerance(tol)
    if iterations is None:
        return PASSES * max(1, mdp.n_states)
    if int(iterations) < 0:
        raise ValueError(f"iterations must be at least 0, got {iterations}")
    return int(iterations)


def update_order(mdp: TabularMDP, order: str | Sequence[int]) -> np.ndarray | None:
    """The cycle of state ids of ``order`` ("index": 0..n-1; an explicit sequence, checked), or None
    for "random". ValueError naming what is wrong: an unknown name, an id out of range, or a sequence
    that leaves out non-terminal states (they would never be updated)."""
    n = mdp.n_states
    if isinstance(order, str):
        if order == "index":
            return np.arange(n, dtype=np.int64)
        if order == "random":
            return None
        raise ValueError(f"order must be one of {', '.join(ORDERS)} or a sequence of state ids, got {order!r}")
    seq = np.asarray(order).ravel()
    if seq.size == 0:
        raise ValueError("order: the sequence of states is empty")
    if seq.dtype.kind not in "iu" and not (seq.dtype.kind == "f" and np.all(seq == np.round(seq))):
        raise ValueError(f"order must hold state ids (whole numbers), got {seq[:5].tolist()}")
    seq = seq.astype(np.int64)
    bad = seq[(seq < 0) | (seq >= n)]
    if bad.size:
        raise ValueError(f"order: state {int(bad[0])} is out of range 0..{n - 1}")
    missing = np.flatnonzero(~mdp.terminal & ~np.isin(np.arange(n), seq))
    if missing.size:
        names = ", ".join(str(int(s)) for s in missing[:8]) + (f" and {missing.size - 8} more" if missing.size > 8 else "")
        raise ValueError(f"order leaves out non-terminal state(s) {names}: they would never be updated")
    return seq


def asynchronous_value_iteration(
    mdp: TabularMDP,
    *,
    order: str | Sequence[int] = "index",
    seed: int | None = None,
    tol: float = 1e-9,
    iterations: int | None = None,
    initial: np.ndarray | None = None,
    tie_tol: float = TIE_TOL,
) -> SolverGen:
    """Asynchronous (cyclic) value iteration: step i backs up one state in place (eq. 4.10) and yields.

    ``order``: "index" (states 0, 1, ..., n-1, then again: CS188 q4's ``AsynchronousValueIterationAgent``
    with the state list in id order), "random" (a state drawn uniformly at each step, ``seed`` for the
    generator), or an explicit sequence of state ids, cycled (it must contain every non-terminal state;
    e.g. the course's own state list). A step that lands on a terminal state changes nothing and counts,
    as in CS188. Stops after ``iterations`` steps (default :data:`PASSES` passes; CS188's ``iterations``)
    or, checked after each pass over the order (n steps for "random"), when the Bellman residual
    max_s |(TV)(s) - V(s)| is below ``tol`` (the last snapshot is then ``converged``). Each snapshot:
    V after the step, ``updated=(s,)``, delta = |change of V(s)|, the policy greedy in V.
    """
    cycle = update_order(mdp, order)
    cap = _step_cap(mdp, tol, iterations)
    v = _initial_values(mdp, initial)
    return _asynchronous(mdp, cycle, seed, tol, cap, v, tie_tol)


def _asynchronous(mdp: TabularMDP, cycle: np.ndarray | None, seed: int | None, tol: float, cap: int,
                  v: np.ndarray, tie_tol: float) -> SolverGen:
    """The steps of :func:`asynchronous_value_iteration` (``cycle`` None: random states)."""
    rng = np.random.default_rng(seed) if cycle is None else None
    n = mdp.n_states
    period = n if cycle is None else int(cycle.size)
    t0 = time.perf_counter()
    b = _Backups(mdp, v, tie_tol)
    n_live = max(1, n - int(np.count_nonzero(mdp.terminal)))
    policy = read_only(b.policy.copy())
    delta = math.inf
    for it in range(1, cap + 1):
        s = int(cycle[(it - 1) % period]) if cycle is not None else int(rng.integers(n))
        old = float(b.v[s])
        b.set_value(s, b.best(s))
        delta = abs(float(b.v[s]) - old)
        done = it % period == 0 and b.residual() < tol
        new_policy = read_only(b.policy.copy())
        yield make_sweep(
            method="async-vi", phase="update", iteration=it, values=read_only(b.v.copy()), old_values=b.v,
            policy=new_policy, old_policy=policy, elapsed=time.perf_counter() - t0, terminal=mdp.terminal,
            converged=done, delta_override=(delta, delta / n_live, s), updated=(s,), q_from="current",
        )
        policy = new_policy
        if done:
            return Solution("async-vi", read_only(b.v.copy()), policy, it, True, delta, time.perf_counter() - t0)
    return Solution("async-vi", read_only(b.v.copy()), policy, cap, False, delta, time.perf_counter() - t0)


class _Queue:
    """CS188's ``util.PriorityQueue`` with ``update``: a min-heap of (priority, count, state), ties
    broken by the count of the first push; ``update`` lowers a queued state's priority (keeping its
    count), ignores one that is not lower, and pushes a state not in the queue."""

    def __init__(self) -> None:
        self.heap: list[tuple[float, int, int]] = []
        self.entry: dict[int, tuple[float, int]] = {}
        self.count = 0

    def __len__(self) -> int:
        return len(self.entry)

    def update(self, state: int, priority: float) -> None:
        """Push ``state``, or lower its priority if it is queued with a higher one."""
        old = self.entry.get(state)
        if old is not None and old[0] <= priority:
            return
        count = self.count if old is None else old[1]
        if old is None:
            self.count += 1
        self.entry[state] = (priority, count)
        heapq.heappush(self.heap, (priority, count, state))  # the old entry stays, stale, until popped

    def pop(self) -> int:
        """The state of lowest (priority, count)."""
        while True:
            priority, count, state = heapq.heappop(self.heap)
            if self.entry.get(state) == (priority, count):
                del self.entry[state]
                return state


def prioritized_sweeping(
    mdp: TabularMDP,
    *,
    theta: float = 1e-5,
    iterations: int | None = None,
    order: str | Sequence[int] = "index",
    initial: np.ndarray | None = None,
    tie_tol: float = TIE_TOL,
) -> SolverGen:
    """Prioritized sweeping value iteration as Berkeley CS188's reinforcement project, question 5,
    defines it (``PrioritizedSweepingValueIterationAgent``; Moore and Atkeson 1993):

    1. the predecessors of each state: the states with an action reaching it with positive probability;
    2. for each non-terminal state s in the state list: diff = |V(s) - opt_a Q(s, a)|; push s on a
       min-heap with priority -diff (V is not changed here);
    3. each step: stop if the queue is empty (the step that emptied it was the last, ``converged``); pop s and
       set V(s) = opt_a Q(s, a) (eq. 4.10); for each predecessor p of s (not terminal): diff =
       |V(p) - opt_a Q(p, a)|, and if diff > ``theta`` push p with priority -diff, unless it is already
       queued with an equal or lower priority (a higher one is lowered).

    Ties in the heap go to the state pushed first (CS188's ``util.PriorityQueue``). ``order``: the
    state list of step 2 and the order in which predecessors are visited ("index" or an explicit
    sequence of state ids containing every non-terminal state, e.g. the course's ``getStates()``).
    ``iterations``: the most steps (CS188's ``iterations``; default :data:`PASSES` passes). ``theta``
    must be > 0. One snapshot per step: ``updated=(s,)``, delta = |change of V(s)|, policy greedy in V.
    """
    theta = check_positive("theta", theta)
    if isinstance(order, str) and order == "random":
        raise ValueError("prioritized sweeping takes order 'index' or a sequence of state ids, not 'random'")
    states = update_order(mdp, order)
    cap = _step_cap(mdp, 0.0, iterations)
    return _prioritized(mdp, float(theta), states, cap, _initial_values(mdp, initial), tie_tol)


def _prioritized(mdp: TabularMDP, theta: float, states: np.ndarray, cap: int, v: np.ndarray,
                 tie_tol: float) -> SolverGen:
    """The steps of :func:`prioritized_sweeping` (``states``: the course's state list)."""
    n = mdp.n_states
    listed = states[np.sort(np.unique(states, return_index=True)[1])]  # each state once, first place kept
    rank = np.full(n, n, dtype=np.int64)
    rank[listed] = np.arange(listed.size)
    rank[rank == n] = np.arange(listed.size, n)  # states not listed (terminal ones) come last
    t0 = time.perf_counter()
    b = _Backups(mdp, v, tie_tol, rank)
    queue = _Queue()
    terminal = mdp.terminal
    for s in listed.tolist():
        if not terminal[s]:
            queue.update(s, -abs(float(b.v[s]) - b.best(s)))
    n_live = max(1, n - int(np.count_nonzero(terminal)))
    policy = read_only(b.policy.copy())
    if len(queue) == 0:  # no non-terminal state: nothing to update
        return Solution("prioritized", read_only(b.v.copy()), policy, 0, True, 0.0, time.perf_counter() - t0)
    delta = math.inf
    for it in range(1, cap + 1):
        s = queue.pop()
        old = float(b.v[s])
        b.set_value(s, b.best(s))
        delta = abs(float(b.v[s]) - old)
        for p in b.predecessors_of(s):
            p = int(p)
            if not terminal[p]:
                diff = abs(float(b.v[p]) - b.best(p))
                if diff > theta:
                    queue.update(p, -diff)
        done = len(queue) == 0
        new_policy = read_only(b.policy.copy())
        yield make_sweep(
            method="prioritized", phase="update", iteration=it, values=read_only(b.v.copy()), old_values=b.v,
            policy=new_policy, old_policy=policy, elapsed=time.perf_counter() - t0, terminal=terminal,
            converged=done, delta_override=(delta, delta / n_live, s), updated=(s,), q_from="current",
        )
        policy = new_policy
        if done:
            return Solution("prioritized", read_only(b.v.copy()), policy, it, True, delta, time.perf_counter() - t0)
    return Solution("prioritized", read_only(b.v.copy()), policy, cap, False, delta, time.perf_counter() - t0)
