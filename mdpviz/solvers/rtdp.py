"""Real-time dynamic programming (RTDP): value iteration that backs up only the states a greedy trajectory visits.

Sutton and Barto section 8.7 (after Barto, Bradtke and Singh 1995): start every trajectory in the start state;
in each state s it reaches, apply the Bellman optimality backup (eq. 4.10)

    V(s) <- opt_a  sum_{s'} p(s' | s, a) [ r(s, a, s') + gamma V(s') ]

in place, take the action that attains it (the greedy action, ties to the lowest action id within the solvers'
tolerance) and sample the next state from p(. | s, a). States the greedy trajectories never reach are never
backed up: on a problem whose start reaches few states, RTDP finds the optimal values of the *relevant* states
without sweeping the others.

**Starting values.** RTDP converges to V* on the states optimal play reaches when it starts from values that
are optimistic (an upper bound on V* for a maximiser, a lower bound on a cost; the book's racetrack starts at
0 with reward -1 a step). :func:`optimistic_values` builds such a bound for any table: the best-case value,
each action's luckiest outcome taken as certain (a deterministic relaxation that can only do better than the
real model). With pessimistic starting values a trajectory can settle on a worse action for ever.

**Stopping rule** (the start's value has settled): after each trajectory, every state the greedy policy can
reach from the start (following every outcome of positive probability) is checked; the solve ends when each
of them is within ``tol`` of its own backup, ``|(TV)(s) - V(s)| < tol``. (The check is skipped after a trajectory
whose backups moved a value by ``tol`` or more: that state was not settled, and once every state of the set is,
the next trajectory's backups move nothing by ``tol``, so the check comes.) Starting optimistic, V is then an
upper bound that the greedy policy nearly attains on that closed set, so V(start) is V*(start) to within
``tol / (1 - gamma)`` (or ``tol`` times the expected number of steps at discount 1) (Bonet and Geffner's
labelled-RTDP check, applied to the whole greedy set at once).

One snapshot per trajectory (:class:`RTDPSweep`): the usual :class:`~mdpviz.solvers.sweep.Sweep` fields, the
trajectory's states in order (``trajectory``), the states backed up so far (``visited``) and how many states
the greedy set from the start holds. One Python step per state visited: models of a lesson, not millions of
states.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from mdpviz.core.chunked import reporter
from mdpviz.core.mdp import TabularMDP, read_only
from mdpviz.solvers.sweep import (
    TIE_TOL, Solution, SolverGen, Sweep, check_tolerance, greedy_policy, greedy_rows, index_ranges, make_sweep,
)

TRAJECTORIES = 100_000
"""Default cap on the number of trajectories."""

RELAXATION_SWEEPS = 10_000
"""At most this many sweeps of the best-case relaxation in :func:`optimistic_values` (each one a valid bound)."""


@dataclass(frozen=True, eq=False)
class RTDPSweep(Sweep):
    """One trajectory of RTDP: the :class:`~mdpviz.solvers.sweep.Sweep` fields (``values`` after the trajectory's
    backups, ``updated`` the states it backed up, ``iteration`` the trajectory's number) and what the window
    draws of it."""

    trajectory: tuple[int, ...] = ()
    """The states of this trajectory in the order visited, from the start to a terminal state (or the depth cap)."""
    visited: np.ndarray | None = None
    """bool (n_states), read-only: the states backed up at least once so far (the others keep their optimistic
    starting value)."""
    greedy_states: int = 0
    """How many states the greedy policy can reach from the start after this trajectory (the stopping rule's set);
    -1 when the check was skipped (a backup of this trajectory moved a value by ``tol`` or more)."""
    residual: float = math.inf
    """The largest |(TV)(s) - V(s)| over that greedy set (the solve stops when it is below ``tol``); inf when the
    check was skipped."""


def optimistic_values(mdp: TabularMDP) -> np.ndarray:
    """An optimistic starting value per state (0 for terminal states): an upper bound on V* where the objective
    is "max", a lower bound on the cost where it is "min". It is the value of the best-case relaxation, in which
    every action's luckiest outcome happens for sure, V_u(s) = opt_a opt_{s'} [r + gamma V_u(s')]: no policy in the
    real model does better. Discount < 1: swept down from max(0, r_best) / (1 - gamma), each sweep still a bound;
    discount 1: swept up from 0 over prefixes of paths (a path's value is at most its best prefix when no cycle
    gains reward). ValueError at discount 1 when a cycle gains reward (no finite bound exists)."""
    n = mdp.n_states
    sign = 1.0 if mdp.objective == "max" else -1.0
    live = ~np.asarray(mdp.terminal) & (np.diff(mdp.state_ptr) > 0)
    if mdp.n_rows == 0 or not live.any():
        return np.zeros(n)
    r = sign * np.asarray(mdp.reward, dtype=np.float64)
    dst = np.asarray(mdp.dst)
    row_starts = np.asarray(mdp.row_ptr[:-1])
    has_rows = np.diff(mdp.state_ptr) > 0
    state_starts = np.asarray(mdp.state_ptr[:-1])[has_rows]
    gamma = float(mdp.discount)

    def backup(u: np.ndarray) -> np.ndarray:
        best_row = np.maximum.reduceat(r + gamma * u[dst], row_starts)
        out = np.zeros(n)
        out[has_rows] = np.maximum.reduceat(best_row, state_starts)
        out[~live] = 0.0
        return out

    if gamma < 1.0:
        top = max(0.0, float(r.max())) / (1.0 - gamma)
        u = np.where(live, top, 0.0)
        for _ in range(RELAXATION_SWEEPS):
            nxt = np.minimum(u, backup(u))  # (T is monotone and T u0 <= u0, so this only tightens the bound)
            if np.max(np.abs(nxt - u)) <= 1e-12 * (1.0 + top):
                u = nxt
                break
            u = nxt
    else:
        u = np.zeros(n)
        for _ in range(n + 2):
            nxt = np.maximum(u, backup(u))
            if np.array_equal(nxt, u):
                break
            u = nxt
        else:
            raise ValueError("rtdp: at discount 1 this model has a cycle that gains reward, so no optimistic starting "
                             "value exists (give a discount below 1)")
    return sign * u


def rtdp(
    mdp: TabularMDP,
    *,
    start: int = 0,
    tol: float = 1e-9,
    trajectories: int | None = None,
    max_depth: int | None = None,
    seed: int | None = 0,
    tie_tol: float = TIE_TOL,
) -> SolverGen:
    """Real-time dynamic programming from ``start`` (Sutton and Barto 8.7): one snapshot per greedy trajectory.

    Every trajectory starts in ``start``; in each state it backs the state up in place (eq. 4.10), takes the
    greedy action and samples the next state (``seed``: the generator of those draws), until a terminal state or
    ``max_depth`` steps (default 10 per state of the model, at least 1,000). Values start optimistic
    (:func:`optimistic_values`). Stops (the last snapshot ``converged``) when every state the greedy policy reaches
    from the start is within ``tol`` of its backup (see the module docstring), or after ``trajectories``
    trajectories (default :data:`TRAJECTORIES`). One player only (a minimax game has no one optimistic side).
    """
    n = mdp.n_states
    if isinstance(start, bool) or not isinstance(start, (int, np.integer)) or not 0 <= int(start) < n:
        raise ValueError(f"start: {start!r} is not a state of this model (0..{n - 1})")
    start = int(start)
    if mdp.terminal[start] or mdp.state_ptr[start] == mdp.state_ptr[start + 1]:
        raise ValueError(f"start: state {start} is terminal, RTDP has nothing to back up from it")
    if mdp.is_two_player:
        raise ValueError("rtdp: this model has two players; RTDP's optimistic start needs one (solve it with vi)")
    check_tolerance(tol)
    cap = TRAJECTORIES if trajectories is None else int(trajectories)
    if cap < 1:
        raise ValueError(f"trajectories must be at least 1, got {trajectories}")
    depth = max(1000, 10 * n) if max_depth is None else int(max_depth)
    if depth < 1:
        raise ValueError(f"max_depth must be at least 1, got {max_depth}")
    v = optimistic_values(mdp)
    return _rtdp(mdp, start, float(tol), cap, depth, np.random.default_rng(seed), v, float(tie_tol))


class _Model:
    """The CSR arrays RTDP reads, as plain numpy (no scipy slicing in the inner loop)."""

    def __init__(self, mdp: TabularMDP) -> None:
        self.state_ptr = np.asarray(mdp.state_ptr)
        self.row_ptr = np.asarray(mdp.row_ptr)
        self.dst = np.asarray(mdp.dst)
        self.prob = np.asarray(mdp.prob, dtype=np.float64)
        self.reward = np.asarray(mdp.reward, dtype=np.float64)
        self.gamma = float(mdp.discount)
        self.terminal = np.asarray(mdp.terminal) | (np.diff(self.state_ptr) == 0)  # (no action: nothing to back up)
        self.sign = 1.0 if mdp.objective == "max" else -1.0

    def backup(self, s: int, v: np.ndarray, tie_tol: float) -> tuple[float, int]:
        """(opt_a Q(s, a), the greedy row) under ``v`` (eq. 4.10; ties within ``tie_tol`` to the lowest action)."""
        r0, r1 = int(self.state_ptr[s]), int(self.state_ptr[s + 1])
        t0, t1 = int(self.row_ptr[r0]), int(self.row_ptr[r1])
        d = self.dst[t0:t1]
        terms = self.prob[t0:t1] * (self.reward[t0:t1] + self.gamma * v[d])
        q = np.add.reduceat(terms, self.row_ptr[r0:r1] - t0) * self.sign
        best = float(q.max())
        i = int(np.argmax(q >= best - tie_tol * (1.0 + abs(best))))
        return best * self.sign, r0 + i

    def sample(self, row: int, rng: np.random.Generator) -> int:
        """A next state of ``row`` drawn with its probabilities."""
        t0, t1 = int(self.row_ptr[row]), int(self.row_ptr[row + 1])
        if t1 - t0 == 1:
            return int(self.dst[t0])
        c = np.cumsum(self.prob[t0:t1])
        i = int(np.searchsorted(c, rng.random() * c[-1], side="right"))
        return int(self.dst[t0 + min(i, t1 - t0 - 1)])


def greedy_closure(mdp: TabularMDP, start: int, v: np.ndarray, *, tie_tol: float = TIE_TOL) -> tuple[np.ndarray, float]:
    """(bool per state: the states the greedy policy of ``v`` can reach from ``start`` with positive probability,
    the largest Bellman residual |(TV)(s) - V(s)| among them): RTDP's stopping test."""
    seen = np.zeros(mdp.n_states, dtype=bool)
    seen[start] = True
    frontier = np.array([start], dtype=np.int64)
    worst = 0.0
    row_ptr = np.asarray(mdp.row_ptr)
    while frontier.size:
        live = frontier[~mdp.terminal[frontier]]
        if not live.size:
            break
        rows = greedy_rows(mdp, live, v, tie_tol=tie_tol)
        ok = rows >= 0
        live, rows = live[ok], rows[ok]
        if not rows.size:
            break
        best = mdp.q_values(v, rows=rows)
        worst = max(worst, float(np.max(np.abs(best - v[live]))))
        idx, _ = index_ranges(row_ptr[rows], row_ptr[rows + 1])
        nxt = np.asarray(mdp.dst)[idx][np.asarray(mdp.prob)[idx] > 0]
        nxt = np.unique(nxt[~seen[nxt]])
        seen[nxt] = True
        frontier = nxt
    return seen, worst


def _rtdp(mdp: TabularMDP, start: int, tol: float, cap: int, depth: int, rng: np.random.Generator, v: np.ndarray,
          tie_tol: float) -> SolverGen:
    """The trajectories of :func:`rtdp`."""
    t0 = time.perf_counter()
    model = _Model(mdp)
    visited = np.zeros(mdp.n_states, dtype=bool)
    policy = read_only(greedy_policy(mdp, v, tie_tol=tie_tol)[1])
    n_live = max(1, mdp.n_states - int(np.count_nonzero(mdp.terminal)))
    residual = math.inf
    report = reporter()  # (the command line's progress line on a terminal; the window draws the snapshots)
    for it in range(1, cap + 1):
        if report is not None and it > 1:
            report(it - 1, cap, "RTDP trajectories at most (it stops once settled)")
        s = start
        path: list[int] = []
        delta, where = 0.0, -1
        for _ in range(depth):
            path.append(s)
            if model.terminal[s]:
                break
            value, row = model.backup(s, v, tie_tol)
            change = abs(value - float(v[s]))
            if change > delta:
                delta, where = change, s
            v[s] = value
            visited[s] = True
            s = model.sample(row, rng)
        else:
            if model.terminal[s]:
                path.append(s)
        if delta < tol:  # (a backup that moved a value by tol or more: not settled yet, the check is skipped)
            closed, residual = greedy_closure(mdp, start, v, tie_tol=tie_tol)
            greedy_states = int(closed.sum())
        else:
            residual, greedy_states = math.inf, -1
        done = residual < tol
        new_policy = read_only(greedy_policy(mdp, v, tie_tol=tie_tol)[1])
        backed = tuple(dict.fromkeys(x for x in path if not model.terminal[x]))
        base = make_sweep(
            method="rtdp", phase="trajectory", iteration=it, values=read_only(v.copy()), old_values=v,
            policy=new_policy, old_policy=policy, elapsed=time.perf_counter() - t0, terminal=mdp.terminal,
            converged=done, delta_override=(delta, delta / n_live, where), updated=backed, q_from="current",
        )
        yield RTDPSweep(**{f: getattr(base, f) for f in base.__dataclass_fields__}, trajectory=tuple(path),
                        visited=read_only(visited.copy()), greedy_states=greedy_states, residual=residual)
        policy = new_policy
        if done:
            return Solution("rtdp", read_only(v.copy()), policy, it, True, residual, time.perf_counter() - t0)
    return Solution("rtdp", read_only(v.copy()), policy, cap, False, residual, time.perf_counter() - t0)


__all__ = ["RTDPSweep", "greedy_closure", "optimistic_values", "rtdp"]
