"""Compare the solvers on one model: value iteration (synchronous and in place), policy iteration
and, where it fits, linear programming, each to the end, with its error curve.

For every method :func:`compare_methods` records the number of sweeps (rounds for policy
iteration), the wall time, the final values and policy, and the error curve

    e_k = max_s |V_k(s) - V_ref(s)|        (model units: reward, or turns for cost models)

against the sweep number and against the wall time since that solver started, where V_ref is the
final value function of the most exact method that converged (policy iteration: an exact linear
solve per round; then linear programming, in-place and synchronous value iteration). It then
says whether the methods agree: values within ``value_tol`` of each other in every state, and
greedy policies equal or tied (where they differ, every chosen action is optimal: its Q-value
under V_ref is within ``value_tol`` of V_ref(s), Sutton and Barto eq. 4.9 / 4.10).

The solvers are the same generators the window steps and :func:`mdpviz.solvers.solve` runs, with
the same options, so a method's row here equals its single-algorithm result exactly. The
reference method runs first so that the error of every other snapshot is computed as it arrives
(no history of value arrays is kept for large models); the few microseconds of that bookkeeping
are measured and subtracted from the reported times.

Plain numpy (PuLP through the LP solver); never imports Qt.
"""
from __future__ import annotations

import csv
import io
import math
import time
from dataclasses import dataclass
from typing import Callable, Generator, Sequence

import numpy as np

from mdpviz.core.mdp import TabularMDP, read_only
from mdpviz.core.jobs import JobProgress, drive
from mdpviz.solvers import METHOD_NAMES, registry, solver
from mdpviz.solvers.sweep import Solution, Sweep

COMPARE_METHODS: tuple[str, ...] = registry.ids_where("solver", in_compare=True)
"""The methods compared by default, in display order (their registry lines' ``in_compare``, in registry
order): synchronous VI, in-place VI, PI, LP."""


def _reference_rank(method: str) -> float:
    """Where ``method`` comes in the search for the reference V_ref, most exact first (its registry
    line's ``reference_rank``; unranked methods last)."""
    rank = registry.get(method).reference_rank
    return math.inf if rank is None else rank

LP_MAX_STATES = 3_000
"""Linear programming is run only up to this many states: PuLP builds the LP one constraint (one
(state, action) row) at a time in Python and CBC solves it as a dense-ish simplex, which takes
minutes where value iteration takes milliseconds."""

LP_MAX_ROWS = 30_000
"""... and only up to this many (state, action) rows (one LP constraint each)."""

VALUE_TOL = 1e-6
"""Default agreement tolerance on values (model units), as the issue asks."""

DEFAULT_TOL = 1e-10
"""Default stopping tolerance of value iteration in a comparison (max |dV| of a sweep)."""

Progress = Callable[[int, int, str], None]
Cancelled = Callable[[], bool]


@dataclass(frozen=True, eq=False)
class MethodRun:
    """One method run to the end on the compared model, with its error curve."""

    method: str
    """Solver id: "vi", "gs", "pi", "lp" (or "bi")."""
    name: str
    """Display name, e.g. "value iteration (in place)"."""
    sweeps: int
    """Sweeps (value iteration), rounds (policy iteration) or 1 (linear programming): Solution.sweeps."""
    snapshots: int
    """Snapshots the generator yielded (policy iteration yields two per round)."""
    elapsed: float
    """Wall time from start to solution, seconds (the comparison's own bookkeeping subtracted)."""
    converged: bool
    """The method met its stopping rule (False: it stopped at its sweep limit)."""
    values: np.ndarray
    """float64 (n_states): final values (model units)."""
    policy: np.ndarray
    """int64 (n_states): final greedy action per state (-1 for terminal states)."""
    steps: np.ndarray
    """float64 (k): x of the error curve: sweep number (round for policy iteration, 1 for LP)."""
    times: np.ndarray
    """float64 (k): seconds since this method started, at each point of the curve."""
    error: np.ndarray
    """float64 (k): max_s |V_k(s) - V_ref(s)| at each point (the evaluations of policy iteration)."""
    delta: np.ndarray
    """float64 (k): the solver's own change per point (max |V_k - V_{k-1}|)."""
    final_error: float
    """max_s |V(s) - V_ref(s)| of the final values."""


@dataclass(frozen=True, eq=False)
class Comparison:
    """Every method's run on one model, and whether they agree (see the module docstring)."""

    runs: tuple[MethodRun, ...]
    """The methods that ran, in the requested order."""
    skipped: tuple[tuple[str, str], ...]
    """(method, why) for the methods that were not run or failed."""
    reference: str
    """Solver id whose final values are V_ref ("" when no method converged)."""
    reference_values: np.ndarray
    """float64 (n_states): V_ref."""
    value_tol: float
    """Agreement tolerance on values (model units)."""
    max_gap: float
    """max over states of (largest - smallest final value among the runs): the worst disagreement."""
    gap_state: int
    """The state where ``max_gap`` occurs (-1 with fewer than two runs)."""
    tied_states: tuple[int, ...]
    """States where the policies differ but every chosen action is optimal (tied)."""
    policy_conflicts: tuple[int, ...]
    """States where some method's action is not optimal under V_ref (a real disagreement)."""
    agree: bool
    """Values within ``value_tol`` and policies equal or tied, every method converged."""
    summary: str
    """One or two sentences saying whether the methods agree, and how closely."""
    start: int
    """The state whose value the table shows (the game's start state)."""

    def run(self, method: str) -> MethodRun:
        """The run of ``method`` (KeyError if it did not run)."""
        for r in self.runs:
            if r.method == method:
                return r
        raise KeyError(f"method {method!r} did not run in this comparison")

    @property
    def methods(self) -> tuple[str, ...]:
        """Solver ids of the runs, in order."""
        return tuple(r.method for r in self.runs)


def lp_fits(mdp: TabularMDP) -> str:
    """Why linear programming does not fit this model ("" when it does): two players, or too large."""
    if mdp.is_two_player:
        return "two-player model: the LP formulation solves one-player MDPs only"
    if mdp.n_states > LP_MAX_STATES:
        return f"{mdp.n_states:,} states: too many for PuLP/CBC here (limit {LP_MAX_STATES:,})"
    if mdp.n_rows > LP_MAX_ROWS:
        return f"{mdp.n_rows:,} (state, action) pairs: too many LP constraints here (limit {LP_MAX_ROWS:,})"
    return ""


def method_options(method: str, *, tol: float, max_sweeps: int) -> dict:
    """The solver options a comparison passes to ``method`` (the same as a single solve's)."""
    if registry.get(method).value_iteration:
        return {"tol": float(tol), "max_sweeps": int(max_sweeps)}
    return {}


class _Run:
    """Drives one generator, timing the consumer's own bookkeeping so it can be subtracted."""

    def __init__(self, method: str, mdp: TabularMDP, options: dict) -> None:
        self.method = method
        self.gen = solver(mdp, method, **options)
        self.steps: list[float] = []
        self.times: list[float] = []
        self.error: list[float] = []
        self.delta: list[float] = []
        self.pending: list[np.ndarray] = []  # values awaiting a reference (only before one is known)
        self.snapshots = 0
        self.overhead = 0.0

    def pull(self, ref: np.ndarray | None) -> Generator[None, None, Solution]:
        """Pull the solver to its end, yielding a checkpoint (None) before each sweep: the time spent
        away at a checkpoint (a cancel check, a frame) is overhead, not the method's."""
        while True:
            t = time.perf_counter()
            yield None
            self.overhead += time.perf_counter() - t
            try:
                sw: Sweep = next(self.gen)
            except StopIteration as stop:
                return stop.value
            t = time.perf_counter()
            self.snapshots += 1
            if sw.phase != "improve":  # policy iteration: one point per evaluation (values change there)
                self.steps.append(float(sw.iteration))
                self.times.append(float(sw.elapsed) - self.overhead)
                self.delta.append(float(sw.delta))
                if ref is None:
                    self.pending.append(np.asarray(sw.values))
                else:
                    self.error.append(_max_abs(sw.values, ref))
            self.overhead += time.perf_counter() - t

    def finish_errors(self, ref: np.ndarray) -> None:
        self.error.extend(_max_abs(v, ref) for v in self.pending)
        self.pending = []


def _max_abs(a: np.ndarray, b: np.ndarray) -> float:
    d = np.abs(np.asarray(a) - b)
    return float(d.max()) if d.size else 0.0


def compare_methods(mdp: TabularMDP, *, progress: Progress | None = None, cancelled: Cancelled | None = None,
                    **options) -> Comparison | None:
    """Run every method on ``mdp`` to the end and compare them (:func:`compare_job`, with its
    ``options``): ``progress(done, total, text)`` is called after each method; when ``cancelled()``
    turns True the comparison stops between two sweeps and returns None."""
    return drive(compare_job(mdp, **options), progress=progress, cancelled=cancelled)


def compare_job(
    mdp: TabularMDP,
    *,
    methods: Sequence[str] = COMPARE_METHODS,
    tol: float = DEFAULT_TOL,
    max_sweeps: int = 100_000,
    value_tol: float = VALUE_TOL,
    start: int = 0,
    state_name: Callable[[int], str] | None = None,
) -> Generator[JobProgress | None, None, Comparison]:
    """Run every method of ``methods`` on ``mdp`` to the end and compare them (module docstring), as
    a job generator (:mod:`mdpviz.core.jobs`): a checkpoint before every sweep, progress after
    each method.

    ``tol`` and ``max_sweeps`` go to value iteration (both variants), exactly as in
    ``solve(mdp, "vi", tol=tol, max_sweeps=max_sweeps)``; policy iteration and LP take their
    defaults. LP is skipped (with the reason in ``skipped``) where :func:`lp_fits` says it does
    not fit. ``start`` is the state whose value the table shows; ``state_name`` names states in
    the summary.
    """
    methods = tuple(dict.fromkeys(methods))
    if not methods:
        raise ValueError("compare at least one method")
    for m in methods:
        if m not in METHOD_NAMES:
            raise ValueError(f"unknown method {m!r}; choose from {', '.join(METHOD_NAMES)}")
    if not (value_tol >= 0 and math.isfinite(value_tol)):
        raise ValueError(f"value tolerance must be a finite number >= 0, got {value_tol}")
    if not 0 <= int(start) < mdp.n_states:
        raise ValueError(f"start state {start} is out of range 0..{mdp.n_states - 1}")
    name = state_name or (lambda s: mdp.state_labels[s] if mdp.state_labels else str(s))
    order = sorted(methods, key=_reference_rank)
    skipped: list[tuple[str, str]] = []
    done: dict[str, tuple[_Run, Solution]] = {}
    ref: np.ndarray | None = None
    ref_method = ""
    for i, m in enumerate(order):
        why = registry.get(m).misfit(mdp)
        if why:
            skipped.append((m, why))
            continue
        try:
            r = _Run(m, mdp, method_options(m, tol=tol, max_sweeps=max_sweeps))
            sol = yield from r.pull(ref)
        except (ValueError, ArithmeticError, RuntimeError, np.linalg.LinAlgError) as e:
            skipped.append((m, f"failed: {e}"))
            yield JobProgress(i + 1, len(order), f"{METHOD_NAMES[m]}: failed")
            continue
        done[m] = (r, sol)
        if ref is None and sol.converged:
            ref, ref_method = np.asarray(sol.values), m
            for rr, _ in done.values():
                rr.finish_errors(ref)
        yield JobProgress(i + 1, len(order), f"{METHOD_NAMES[m]}: {sol.sweeps} {registry.get(m).count_word}")
    if ref is None:  # nothing converged: measure against the last run's values, and say so
        if not done:
            ref = np.zeros(mdp.n_states)
        else:
            ref = np.asarray(next(reversed(done.values()))[1].values)
        for rr, _ in done.values():
            rr.finish_errors(ref)

    runs = []
    for m in methods:
        if m not in done:
            continue
        r, sol = done[m]
        runs.append(MethodRun(
            method=m, name=METHOD_NAMES[m], sweeps=int(sol.sweeps), snapshots=r.snapshots,
            elapsed=max(0.0, float(sol.elapsed) - r.overhead), converged=bool(sol.converged),
            values=read_only(sol.values), policy=read_only(sol.policy), steps=read_only(np.asarray(r.steps)),
            times=read_only(np.maximum(np.asarray(r.times), 0.0)), error=read_only(np.asarray(r.error)),
            delta=read_only(np.asarray(r.delta)), final_error=_max_abs(sol.values, ref),
        ))
    skipped.sort(key=lambda x: methods.index(x[0]))
    return judge(mdp, tuple(runs), reference=ref_method, reference_values=read_only(ref.copy()), skipped=tuple(skipped),
                 value_tol=float(value_tol), start=int(start), state_name=name)


def judge(
    mdp: TabularMDP,
    runs: Sequence[MethodRun],
    *,
    reference: str,
    reference_values: np.ndarray,
    skipped: Sequence[tuple[str, str]] = (),
    value_tol: float = VALUE_TOL,
    start: int = 0,
    state_name: Callable[[int], str] | None = None,
) -> Comparison:
    """Whether ``runs`` agree: the spread of their final values in every state is at most
    ``value_tol``, and where their policies differ every chosen action is optimal, i.e. its
    Q-value under ``reference_values`` (V_ref) is within ``value_tol`` of V_ref(s) (a tie)."""
    runs = tuple(runs)
    skipped = tuple(skipped)
    ref_method, ref = reference, np.asarray(reference_values, dtype=np.float64)
    name = state_name or (lambda s: mdp.state_labels[s] if mdp.state_labels else str(s))
    gap, gap_state = 0.0, -1
    tied: list[int] = []
    conflicts: list[int] = []
    if len(runs) >= 2:
        V = np.stack([r.values for r in runs])
        spread = V.max(axis=0) - V.min(axis=0)
        gap_state = int(np.argmax(spread))
        gap = float(spread[gap_state])
        P = np.stack([r.policy for r in runs])
        differ = np.flatnonzero(np.any(P != P[0], axis=0) & ~mdp.terminal)
        if differ.size:
            q = mdp.q_values(ref)
            for s in differ.tolist():
                ok = True
                for a in set(P[:, s].tolist()):
                    if a < 0:
                        ok = False
                        break
                    try:
                        qa = float(q[mdp.row_of(s, a)])
                    except ValueError:
                        ok = False
                        break
                    if abs(qa - float(ref[s])) > value_tol:
                        ok = False
                        break
                (tied if ok else conflicts).append(s)
    all_converged = all(r.converged for r in runs)
    agree = bool(runs) and all_converged and gap <= value_tol and not conflicts
    summary = _summary(mdp, runs, skipped, ref_method, value_tol, gap, gap_state, tied, conflicts, name)
    return Comparison(
        runs=runs, skipped=skipped, reference=ref_method, reference_values=read_only(ref.copy()), value_tol=value_tol,
        max_gap=gap, gap_state=gap_state, tied_states=tuple(tied), policy_conflicts=tuple(conflicts), agree=agree,
        summary=summary, start=start,
    )


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _summary(
    mdp: TabularMDP,
    runs: tuple[MethodRun, ...],
    skipped: tuple[tuple[str, str], ...],
    ref_method: str,
    value_tol: float,
    gap: float,
    gap_state: int,
    tied: list[int],
    conflicts: list[int],
    name: Callable[[int], str],
) -> str:
    parts: list[str] = []
    if not runs:
        parts.append("No method ran.")
    elif len(runs) == 1:
        parts.append(f"Only {runs[0].name} ran, so there is nothing to compare it with.")
    else:
        n = len(runs)
        who = f"All {n} methods" if n > 2 else "Both methods"
        if gap <= value_tol and not conflicts:
            how = "identical" if not tied else (
                f"equal except in {_count(len(tied), 'state')} where the chosen actions are tied "
                f"(each optimal within {value_tol:g})")
            close = ("the final values are identical in every state" if gap == 0 else
                     f"the final values are within {gap:.2g} of each other in every state (tolerance {value_tol:g})")
            parts.append(f"{who} agree: {close} and the greedy policies are {how}.")
        else:
            why = []
            if gap > value_tol:
                V = np.stack([r.values for r in runs])
                hi, lo = runs[int(np.argmax(V[:, gap_state]))], runs[int(np.argmin(V[:, gap_state]))]
                why.append(f"{hi.name} and {lo.name} differ by {gap:.3g} in {name(gap_state)} "
                           f"(tolerance {value_tol:g})")
            if conflicts:
                s = conflicts[0]
                acts = ", ".join(f"{r.name} {_action(mdp, int(r.policy[s]))}" for r in runs)
                more = f" and {_count(len(conflicts) - 1, 'more state')}" if len(conflicts) > 1 else ""
                why.append(f"the policies differ in {name(s)}{more} with an action that is not optimal ({acts})")
            parts.append("The methods do NOT agree: " + "; ".join(why) + ".")
    for r in runs:
        if not r.converged:
            parts.append(f"{r.name[0].upper()}{r.name[1:]} stopped at its sweep limit without converging.")
    for m, why in skipped:
        parts.append(f"{METHOD_NAMES.get(m, m)[0].upper()}{METHOD_NAMES.get(m, m)[1:]} was not run: {why}.")
    if runs and not ref_method:
        parts.append("No method converged; errors are measured against the last run's values.")
    return " ".join(parts)


def _action(mdp: TabularMDP, a: int) -> str:
    if a < 0:
        return "(none)"
    return mdp.action_labels[a] if mdp.action_labels else f"action {a}"


def comparison_table(comp: Comparison) -> list[dict]:
    """One dict per run: method, name, sweeps, snapshots, seconds, converged, the start state's value,
    the largest distance from V_ref (for a table or JSON)."""
    return [
        {
            "method": r.method, "name": r.name, "sweeps": r.sweeps, "snapshots": r.snapshots,
            "seconds": r.elapsed, "converged": r.converged, "start_value": float(r.values[comp.start]),
            "max_error": r.final_error,
        }
        for r in comp.runs
    ]


COLUMNS: tuple[str, ...] = ("method", "sweeps", "time", "V(start)", "max |V - V_ref|", "converged")
"""Columns of the comparison table (:func:`comparison_rows`)."""


def format_seconds(t: float) -> str:
    """Wall time with a unit that fits: 850 us, 12.3 ms, 4.56 s."""
    if not math.isfinite(t):
        return str(t)
    if t < 1e-3:
        return f"{t * 1e6:.3g} \u00b5s"
    if t < 1.0:
        return f"{t * 1e3:.3g} ms"
    return f"{t:.3g} s"


def comparison_rows(comp: Comparison, *, digits: int = 10) -> list[tuple[str, ...]]:
    """The comparison table as text, one tuple per run in :data:`COLUMNS` order: name, sweeps
    ("n rounds" for policy iteration), wall time, V(start) to ``digits`` significant digits,
    distance from V_ref, converged ("yes"/"no")."""
    rows = []
    for r in comp.runs:
        spec = registry.find(r.method)
        one_solve = spec is not None and spec.unit == "solve"
        sweeps = "1 solve" if one_solve else f"{r.sweeps} {spec.count_word if spec is not None else 'sweeps'}"
        rows.append((r.name, sweeps, format_seconds(r.elapsed), f"{float(r.values[comp.start]):.{digits}g}",
                     f"{r.final_error:.2g}", "yes" if r.converged else "no"))
    return rows


def comparison_csv(comp: Comparison) -> str:
    """The comparison table as CSV (values with full precision), then the agreement sentence as a comment."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["method", "name", "sweeps", "snapshots", "seconds", "converged", f"value_state_{comp.start}",
                "max_abs_error_vs_reference"])
    for row in comparison_table(comp):
        w.writerow([row["method"], row["name"], row["sweeps"], row["snapshots"], repr(row["seconds"]),
                    row["converged"], repr(row["start_value"]), repr(row["max_error"])])
    w.writerow([f"# {comp.summary}"])
    return buf.getvalue()


def log_floor(error: np.ndarray, *, floor: float) -> np.ndarray:
    """Errors for a log axis: values below ``floor`` (an exact 0, or round-off) are drawn at ``floor``."""
    e = np.asarray(error, dtype=np.float64)
    return np.where(np.isfinite(e), np.maximum(e, floor), np.nan)


def error_floor(comp: Comparison) -> float:
    """The floor of the plotted errors: 1e-15 relative to the largest reference value (round-off level)."""
    scale = float(np.abs(comp.reference_values).max()) if comp.reference_values.size else 1.0
    return 1e-15 * max(1.0, scale)


__all__ = [
    "COLUMNS", "COMPARE_METHODS", "Comparison", "comparison_rows", "format_seconds", "LP_MAX_ROWS", "LP_MAX_STATES", "MethodRun", "VALUE_TOL", "compare_job", "compare_methods",
    "comparison_csv", "comparison_table", "error_floor", "judge", "log_floor", "lp_fits", "method_options",
]
