"""Snapshots that the solvers yield, the solution they return, and the greedy (Bellman max) step.

Every solver is a generator: ``for sweep in value_iteration(mdp): ...`` yields one frozen
:class:`Sweep` per sweep and returns a :class:`Solution` (``StopIteration.value``; :func:`run`
collects it). The Step button, Run, the CLI and the tests all drive the same generators.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from typing import Callable, Generator

import numpy as np

from mdpviz.core.mdp import TabularMDP, read_only

TIE_TOL = 1e-9
"""Relative tolerance under which two action values count as tied (ties go to the lowest action)."""

TIES: dict[str, str] = {
    "tolerance": f"Q-values within {TIE_TOL:g} (relative) count as tied; ties go to the lowest action id",
    "strict": "the strict float maximum: the first action, in action-id order, whose Q is the largest "
              "float (CS188's computeActionFromValues)",
}
"""The tie rules of the greedy policy (solver option ``ties``), each in words for the Solver panel and the
lesson. ``"tolerance"`` is mdpviz's default; ``"strict"`` is what a course's agent computes with ``q >
best``: at discount 1, where exact ties meet rounding, the two draw different arrows."""

Q_FROM: dict[str, str] = {
    "previous": "the policy and Q view of sweep k back up from V_(k-1): the backup that made V_k",
    "current": "the policy and Q view of sweep k back up from V_k itself (CS188's iteration k, most textbooks)",
}
"""Which values the drawn policy and the Q view of sweep k use (solver option ``q_from``), in words."""


def check_choice(name: str, value: object, choices) -> str:
    """``value`` if it is one of ``choices``; ValueError naming ``name`` and the choices otherwise."""
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(choices)}, got {value!r}")
    return value


def check_positive(name: str, x: float) -> float:
    """``x`` as a float; ValueError naming ``name`` unless it is a finite number > 0."""
    if not isinstance(x, numbers.Real) or isinstance(x, bool) or not (x > 0 and math.isfinite(x)):
        raise ValueError(f"{name} must be a finite number > 0, got {x!r}")
    return float(x)


def check_count(name: str, x: int) -> int:
    """``x`` as an int; ValueError naming ``name`` unless it is a whole number >= 1."""
    if not isinstance(x, numbers.Real) or isinstance(x, bool) or not math.isfinite(x) or int(x) != x or int(x) < 1:
        raise ValueError(f"{name} must be a whole number >= 1, got {x!r}")
    return int(x)


def check_tolerance(tol: float) -> float:
    """``tol`` as a float; ValueError unless it is a finite number >= 0 (a stopping tolerance)."""
    if not (tol >= 0 and math.isfinite(tol)):
        raise ValueError(f"tolerance must be a finite number >= 0, got {tol}")
    return float(tol)


def tie_tolerance(ties: str, tie_tol: float = TIE_TOL) -> float:
    """The ``tie_tol`` of :func:`greedy` for the tie rule ``ties`` (:data:`TIES`): ``tie_tol`` for
    "tolerance", 0 for "strict" (then the first column with q >= the float maximum wins: the strict
    maximum, exact float ties to the lowest action id)."""
    return 0.0 if check_choice("ties", ties, TIES) == "strict" else float(tie_tol)


@dataclass(frozen=True, eq=False)
class Sweep:
    """One immutable snapshot of a solver, yielded after each sweep (or half-step of policy iteration)."""

    method: str
    """Solver id: "vi" (Jacobi value iteration), "gs" (in-place/Gauss-Seidel), "pi", "lp", ... (the
    keys of :data:`mdpviz.solvers.METHODS`)."""
    phase: str
    """"sweep" (value iteration, policy evaluation, relative value iteration), "evaluate" / "improve"
    (policy iteration, modified policy iteration), "update" (one state: async-vi, prioritized) or "lp"."""
    iteration: int
    """1-based sweep number (for policy iteration: the round number; for async-vi and prioritized:
    the step, one state each)."""
    values: np.ndarray
    """float64 (n_states), read-only: V after this sweep (reward or cost units of the model)."""
    policy: np.ndarray
    """int64 (n_states), read-only: greedy action id per state (-1 for terminal states)."""
    delta: float
    """max_s |V_new(s) - V_old(s)| for a sweep or evaluation; Bellman residual max|TV - V| for an improvement;
    the span sp(V_new - V_old) for modified policy iteration's improvements and relative value
    iteration (what their stopping rules test)."""
    mean_delta: float
    """Mean of |V_new - V_old| over non-terminal states (residual for an improvement)."""
    delta_state: int
    """The state where ``delta`` occurs (-1 if none)."""
    changed: np.ndarray
    """int64, read-only: states whose greedy action changed in this step."""
    elapsed: float
    """Seconds since the solver started."""
    converged: bool = False
    """True when this snapshot meets the stopping rule (it is then the last one)."""
    updated: tuple[int, ...] = ()
    """The states this step backed up, when it is not every state: the one state of asynchronous value
    iteration or prioritized sweeping (a terminal state visited by the cycle counts, its value stays 0);
    empty for a sweep over all states."""
    gain: float | None = None
    """Average reward per step (reward units per step) estimated by relative value iteration; None for
    the discounted and total-reward methods."""
    q_from: str = "previous"
    """Which values this snapshot's policy (and the Q view beside it) backs up from, for a sweep:
    "previous" (V_(k-1), the backup that made V_k) or "current" (V_k itself); see :data:`Q_FROM`."""

    @property
    def policy_changes(self) -> int:
        """Number of states whose greedy action changed in this step."""
        return int(self.changed.size)


@dataclass(frozen=True, eq=False)
class Solution:
    """What a solver returns: the final values and policy and how it got there."""

    method: str
    """Solver id (see :class:`Sweep`)."""
    values: np.ndarray
    """float64 (n_states): the final value of each state."""
    policy: np.ndarray
    """int64 (n_states): the greedy action id of each state (-1 for terminal states)."""
    sweeps: int
    """Number of sweeps (value iteration) or improvement rounds (policy iteration) performed."""
    converged: bool
    """False when the solver stopped at its maximum number of sweeps."""
    delta: float
    """The last reported change (see :attr:`Sweep.delta`)."""
    elapsed: float
    """Seconds from start to finish."""
    history: tuple[Sweep, ...] = field(default=())
    """Every snapshot, when the solution was collected with ``run(..., record=True)``."""
    gain: float | None = None
    """Average reward per step of the final policy (relative value iteration); None otherwise."""


def greedy(
    mdp: TabularMDP,
    q: np.ndarray,
    *,
    tie_tol: float = TIE_TOL,
) -> tuple[np.ndarray, np.ndarray]:
    """Best value and best row per state from row values ``q`` (the max/min of Bellman's equation).

    Each state takes the max (mover +1, objective "max") or min of its rows' values; ties within
    ``tie_tol * (1 + |best|)`` go to the lowest action. Terminal states get value 0 and row -1.
    Returns ``(values, rows)``, both fresh arrays. Large models are reduced in chunks of
    :data:`GREEDY_CHUNK` states so that the several column passes stay in cache.
    """
    n, k = mdp.n_states, mdp.uniform_actions
    if n <= GREEDY_CHUNK:
        return _greedy_block(q, mdp.state_ptr, mdp.sense, mdp.terminal, k, tie_tol)
    values = np.empty(n)
    rows = np.empty(n, dtype=np.int64)
    ptr = mdp.state_ptr
    for s0 in range(0, n, GREEDY_CHUNK):
        s1 = min(n, s0 + GREEDY_CHUNK)
        r0, r1 = int(ptr[s0]), int(ptr[s1])
        values[s0:s1], rows[s0:s1] = _greedy_block(
            q[r0:r1], ptr[s0 : s1 + 1], mdp.sense[s0:s1], mdp.terminal[s0:s1], k, tie_tol
        )
    return values, rows


GREEDY_CHUNK = 32_768
"""States per chunk in :func:`greedy` (about 1 MiB of row values with 4 actions: stays in L2)."""


def _greedy_block(
    q: np.ndarray,
    state_ptr: np.ndarray,
    sense: np.ndarray,
    terminal: np.ndarray,
    k: int,
    tie_tol: float,
    want_rows: bool = True,
) -> tuple[np.ndarray, np.ndarray | None]:
    """:func:`greedy` for a contiguous block of states; ``state_ptr`` may start at any row.

    With ``want_rows=False`` only the values are computed (rows is None).
    """
    n = sense.size
    base = int(state_ptr[0])
    all_max = bool(sense.min() == 1)
    all_min = bool(sense.max() == -1)
    if all_max:
        sq = q
    elif all_min:
        sq = -q
    else:
        sq = q * np.repeat(sense, np.diff(state_ptr)) if not k else (q.reshape(n, k) * sense[:, None]).ravel()
    if k:
        # Column-wise passes: numpy's reductions along a short last axis are ~10x slower.
        m = sq.reshape(n, k)
        best = m[:, 0].copy()
        for j in range(1, k):
            np.maximum(best, m[:, j], out=best)
        rows = None
    else:
        counts = np.diff(state_ptr)
        has = counts > 0
        starts = state_ptr[:-1][has] - base
        best = np.zeros(n)
        if starts.size:
            best[has] = np.maximum.reduceat(sq, starts)
        rows = None
    if want_rows and k:
        thresh = best - tie_tol * (1.0 + np.abs(best))
        # index of the first column within the tie tolerance of the best: sum of prefix-ANDs of "below"
        below = m[:, 0] < thresh
        idx = below.astype(np.int64)
        for j in range(1, k - 1):
            below &= m[:, j] < thresh
            idx += below
        rows = idx + (np.arange(n) * k + base)
    elif want_rows:
        rows = np.full(n, -1, dtype=np.int64)
        if starts.size:
            b = best[has]
            thresh = np.repeat(b - tie_tol * (1.0 + np.abs(b)), counts[has])
            cand = np.where(sq >= thresh, np.arange(sq.size), sq.size)
            rows[has] = np.minimum.reduceat(cand, starts) + base
    if all_max:
        values = best
    elif all_min:
        values = -best
    else:
        values = best * sense
    if terminal.any():
        values[terminal] = 0.0
        if rows is not None:
            rows[terminal] = -1
    return values, rows


def greedy_policy(mdp: TabularMDP, values: np.ndarray, *, tie_tol: float = TIE_TOL) -> tuple[np.ndarray, np.ndarray]:
    """(T V, policy): the backed-up values max_a Q(s, a) under ``values`` (Sutton and Barto eq. 4.10)
    and the greedy action id per state (eq. 4.9; -1 for terminal states), ties as :func:`greedy`."""
    best, rows = greedy(mdp, mdp.q_values(values), tie_tol=tie_tol)
    return best, rows_to_policy(mdp, rows)


def optimal_rows(mdp: TabularMDP, q: np.ndarray, best: np.ndarray | None = None, *,
                 tie_tol: float = TIE_TOL) -> np.ndarray:
    """bool (n_rows): the rows whose Q (``q``, per row) is optimal under the solvers' tie rule, within
    ``tie_tol * (1 + |best|)`` of their state's best (``best``, per state; default: :func:`greedy`'s), the
    max or min by the state's mover; False for terminal states' rows. Every tied action, not only the
    lowest one the solvers pick."""
    q = np.asarray(q, dtype=np.float64)
    if best is None:
        best, _ = greedy(mdp, q, tie_tol=tie_tol)
    s_of = np.asarray(mdp.row_state)
    b = np.asarray(best, dtype=np.float64)[s_of]
    sense = np.asarray(mdp.sense, dtype=np.float64)[s_of]
    return ~np.asarray(mdp.terminal)[s_of] & (sense * (q - b) >= -tie_tol * (1.0 + np.abs(b)))


def action_ranks(mdp: TabularMDP, order) -> np.ndarray:
    """The rank of every action id under ``order`` (a sequence of action ids or action labels, each
    action once; actions it leaves out come after it, in id order): the solver option ``action_order``,
    "the stated action order" in which exact ties go to the first. ValueError naming what does not fit."""
    labels = list(mdp.action_labels or ())
    ids: list[int] = []
    for a in order if not isinstance(order, str) else order.split(","):
        if isinstance(a, str):
            a = a.strip()
            if a not in labels:
                raise ValueError(f"action_order: {a!r} is not an action of this model ({', '.join(labels) or 'ids only'})")
            a = labels.index(a)
        elif isinstance(a, bool) or not isinstance(a, numbers.Integral) or not 0 <= int(a) < mdp.n_actions:
            raise ValueError(f"action_order: {a!r} is not an action id 0..{mdp.n_actions - 1}")
        if int(a) in ids:
            raise ValueError(f"action_order names action {a!r} twice")
        ids.append(int(a))
    rest = [a for a in range(mdp.n_actions) if a not in ids]
    rank = np.empty(mdp.n_actions, dtype=np.int64)
    rank[ids + rest] = np.arange(mdp.n_actions)
    return rank


def ordered_policy(mdp: TabularMDP, values: np.ndarray, rank: np.ndarray, *, tie_tol: float = TIE_TOL) -> np.ndarray:
    """The greedy action of every state under ``values`` (eq. 4.9) with ties going to the action of
    lowest ``rank`` (:func:`action_ranks`) instead of the lowest id; ties as :func:`greedy` (``tie_tol``
    0: exact float ties only). -1 for terminal states."""
    q = mdp.q_values(values)
    best, _ = greedy(mdp, q, tie_tol=tie_tol)
    rs = np.asarray(mdp.row_state)
    sense = np.asarray(mdp.sense, dtype=np.float64)[rs]
    b = best[rs] * sense
    cand = q * sense >= b - tie_tol * (1.0 + np.abs(b))
    idx = np.flatnonzero(cand)
    idx = idx[np.lexsort((rank[mdp.row_action[idx]], rs[idx]))]
    first = idx[np.r_[True, rs[idx][1:] != rs[idx][:-1]]] if idx.size else idx
    policy = np.full(mdp.n_states, -1, dtype=np.int64)
    policy[rs[first]] = mdp.row_action[first]
    policy[mdp.terminal] = -1
    return policy


def index_ranges(starts: np.ndarray, stops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The index ranges starts[i]:stops[i] concatenated, and the range number i of each index."""
    starts = np.asarray(starts, dtype=np.int64)
    counts = np.asarray(stops, dtype=np.int64) - starts
    owner = np.repeat(np.arange(starts.size), counts)
    offs = np.arange(owner.size) - np.repeat(np.cumsum(counts) - counts, counts)
    return starts[owner] + offs, owner


def greedy_rows(
    mdp: TabularMDP,
    states: np.ndarray,
    values: np.ndarray,
    *,
    tie_tol: float = TIE_TOL,
) -> np.ndarray:
    """The greedy row of each state in ``states`` under ``values`` (-1: terminal, or no action):
    :func:`greedy` for a few states only, with the same tie rule (the max of Q(s, a) = sum_s' p (r +
    gamma V(s')), Sutton and Barto eq. 4.10, or the min for a minimiser; ties within
    ``tie_tol * (1 + |best|)`` to the lowest action). Touches only the rows of ``states``, so a board
    can follow the greedy policy from one position in a model of millions of states."""
    s = np.asarray(states, dtype=np.int64)
    out = np.full(s.size, -1, dtype=np.int64)
    rows, _ = index_ranges(mdp.state_ptr[s], mdp.state_ptr[s + 1])
    if rows.size == 0:
        return out
    ptr = np.concatenate(([0], np.cumsum(mdp.state_ptr[s + 1] - mdp.state_ptr[s])))
    _, local = _greedy_block(mdp.q_values(values, rows=rows), ptr, mdp.sense[s], mdp.terminal[s], 0, tie_tol)
    ok = local >= 0
    out[ok] = rows[local[ok]]
    return out


def rows_to_policy(mdp: TabularMDP, rows: np.ndarray) -> np.ndarray:
    """Action id per state from chosen row indices (-1 stays -1)."""
    if mdp.n_rows == 0:  # every state terminal: no action anywhere
        return np.full(np.shape(rows), -1, dtype=np.int64)
    if mdp.dense_actions:  # every state has actions 0..k-1: the action is the offset in the state
        pol = rows - mdp.state_ptr[:-1]
        if mdp.terminal.any():
            pol[rows < 0] = -1
        return pol
    pol = np.where(rows >= 0, mdp.row_action[np.maximum(rows, 0)], -1)
    return pol.astype(np.int64)


def policy_to_rows(mdp: TabularMDP, policy: np.ndarray) -> np.ndarray:
    """Row index per state for an action id per state (-1 for terminal states).

    Raises ``ValueError`` naming the first state whose action is not legal there.
    """
    policy = np.asarray(policy, dtype=np.int64).ravel()
    if policy.size != mdp.n_states:
        raise ValueError(f"policy has {policy.size} entries for {mdp.n_states} states")
    key_rows = mdp.row_state * mdp.n_actions + mdp.row_action  # sorted, since rows are sorted by (state, action)
    want = np.arange(mdp.n_states) * mdp.n_actions + policy
    idx = np.searchsorted(key_rows, want)
    idx_c = np.minimum(idx, max(mdp.n_rows - 1, 0))
    ok = (policy >= 0) & (policy < mdp.n_actions) & (idx < mdp.n_rows)
    ok &= key_rows[idx_c] == want if mdp.n_rows else ok
    bad = np.flatnonzero(~ok & ~mdp.terminal)
    if bad.size:
        s = bad[0]
        raise ValueError(f"state {s}: action {policy[s]} is not one of its legal actions {[int(x) for x in mdp.actions_of(s)]}")
    return np.where(mdp.terminal, -1, idx_c).astype(np.int64)


def make_sweep(
    *,
    method: str,
    phase: str,
    iteration: int,
    values: np.ndarray,
    old_values: np.ndarray,
    policy: np.ndarray,
    old_policy: np.ndarray | None,
    elapsed: float,
    terminal: np.ndarray,
    converged: bool = False,
    tol: float | None = None,
    delta_override: tuple[float, float, int] | None = None,
    updated: tuple[int, ...] = (),
    gain: float | None = None,
    q_from: str = "previous",
) -> Sweep:
    """Build a frozen snapshot; ``values`` and ``policy`` are copied only if still writeable.

    With ``tol``, the snapshot is marked converged when its delta is below ``tol``. ``updated``,
    ``gain`` and ``q_from``: see :class:`Sweep`.
    """
    if delta_override is None:
        diff = np.abs(values - old_values)
        if diff.size:
            i = int(np.argmax(diff))
            delta = float(diff[i])
            # terminal states have value 0 in both sweeps, so the live mean is a rescaled full mean
            n_live = diff.size - int(np.count_nonzero(terminal))
            mean = float(diff.sum() / n_live) if n_live else 0.0
        else:
            i, delta, mean = -1, 0.0, 0.0
    else:
        delta, mean, i = delta_override
    if tol is not None:
        converged = delta < tol
    changed = np.flatnonzero(policy != old_policy) if old_policy is not None else np.arange(0)
    v = values if not values.flags.writeable else values.copy()
    p = policy if not policy.flags.writeable else policy.copy()
    return Sweep(
        method=method,
        phase=phase,
        iteration=iteration,
        values=read_only(v),
        policy=read_only(p),
        delta=delta,
        mean_delta=mean,
        delta_state=i,
        changed=read_only(changed.astype(np.int64)),
        elapsed=elapsed,
        converged=converged,
        updated=tuple(int(x) for x in updated),
        gain=None if gain is None else float(gain),
        q_from=q_from,
    )


SolverGen = Generator[Sweep, "int | None", Solution]
"""A solver: yields snapshots, returns the Solution. ``gen.send(m)`` asks for up to m sweeps
before the next snapshot (value iteration honours it; ``next(gen)`` is one sweep)."""

RUN_BATCH = 1 << 30
"""What :func:`run` sends when nothing records every sweep: as many as the solver allows per step."""


def run(
    gen: SolverGen,
    *,
    record: bool = False,
    on_sweep: Callable[[Sweep], object] | None = None,
) -> Solution:
    """Drive a solver generator to the end and return its :class:`Solution`.

    ``record=True`` keeps every snapshot in ``Solution.history``; ``on_sweep`` is called with each.
    With neither, the generator is asked (``gen.send``) for many sweeps per snapshot, which the
    value-iteration solvers honour (same numbers, far fewer snapshots) and the others ignore.
    """
    history: list[Sweep] = []
    many = not record and on_sweep is None
    first = True
    while True:
        try:
            sweep = next(gen) if first or not many else gen.send(RUN_BATCH)
            first = False
        except StopIteration as stop:
            sol: Solution = stop.value
            break
        if record:
            history.append(sweep)
        if on_sweep is not None:
            on_sweep(sweep)
    if record:
        from dataclasses import replace

        sol = replace(sol, history=tuple(history))
    return sol


VALUE_LIMIT = 1e300
"""Largest value scale the solvers take on: beyond it a sum of two values, or a value times the
number of states, overflows double precision (1.8e308) and the results would be infinite."""


def value_scale(mdp: TabularMDP) -> float:
    """How large the model's values can get: with discount gamma < 1 at most max|r| / (1 - gamma)
    (the geometric series of Sutton and Barto eq. 3.8 bounded term by term); with discount 1 of the
    order of max|r| times the expected number of steps, taken here as the number of states. inf when
    that overflows."""
    if mdp.n_transitions == 0:
        return 0.0
    rmax = float(np.max(np.abs(mdp.reward)))
    gamma = float(mdp.discount)
    with np.errstate(over="ignore"):
        return rmax / (1.0 - gamma) if gamma < 1.0 else rmax * max(1, mdp.n_states)


def check_value_scale(mdp: TabularMDP, *, limit: float = VALUE_LIMIT, what: str = "floating point",
                      advice: str = "scale the rewards down") -> None:
    """ValueError if :func:`value_scale` of ``mdp`` is over ``limit``. Rewards of 1e308 (finite, so
    accepted by every reader) would otherwise give ``inf`` from value iteration and misleading
    refusals from policy iteration and the LP."""
    scale = value_scale(mdp)
    if not scale <= limit:  # also catches inf
        rmax = float(np.max(np.abs(mdp.reward)))
        gamma = float(mdp.discount)
        why = (f"rewards up to {rmax:.3g} with discount {gamma:g} give values up to {rmax:.3g} / (1 - {gamma:g})"
               if gamma < 1.0 else f"rewards up to {rmax:.3g} over {mdp.n_states:,} states at discount 1")
        raise ValueError(f"the values would overflow {what}: {why}, beyond {limit:g}; {advice}")
