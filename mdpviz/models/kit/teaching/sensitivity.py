"""When does the optimal policy switch? A numeric setting swept over a range, with exact switch points.

:func:`sensitivity_job` sweeps one numeric field of a game's settings (discount, noise, living reward,
a risk, p_heads, a reward: any number of its scenario data, ``risk[4]`` for an entry of a list) over
``[lo, hi]``: at each of ``steps`` evenly spaced values it builds the game, solves it exactly (policy
iteration) and takes the set of optimal actions of every state under the solvers' tie rule (within
:data:`~mdpviz.solvers.sweep.TIE_TOL` of the best Q, relative). Where two neighbouring values give
different sets, bisection on the parameter locates every switch point between them to ``tol`` (default
1e-6; where the middle differs from both ends, both halves are searched): the parameter values where
the set of optimal actions changes in any state, reachable from the start or not. A policy that holds
at two neighbouring grid values but not between them (A, B, A within one step) is not seen: the grid
is the resolution (raise ``steps``). For a reward the parameter enters every Q linearly and the set of
values where a policy is optimal is an interval, so that cannot happen. :func:`phase_job` does two settings at once on a grid, each cell labelled
by the optimal policy along its likely path from the start (each move's most likely outcome): CS188's
discount grid's close or far exit, by the cliff or the safe way, or never leaving. Both are job generators (they yield
:class:`~mdpviz.core.jobs.JobProgress`; the command line drives them, the window's controller can
run them); plain Python, never imports Qt.
"""
from __future__ import annotations

import copy
import re
import time
from dataclasses import dataclass
from typing import Any, Generator

import numpy as np

from mdpviz.core.files import ScenarioError
from mdpviz.core.jobs import JobProgress
from mdpviz.models.kit.game import registry
from mdpviz.models.kit.game.game_model import GameModel, build_game
from mdpviz.models.kit.teaching.phase_names import distinct_names, path_name

TOL = 1e-6
"""Switch points are located to this width of the parameter."""
STEPS = 101
"""Grid values of a one-parameter sweep."""
PHASE_STEPS = 41
"""Grid values per axis of a phase diagram."""
MAX_STEPS = 401
"""Most grid values of a one-setting sweep (the window's limit too): each is a model built and solved."""
MAX_PHASE_STEPS = 201
"""Most grid values per axis of a phase diagram (201 x 201 = 40,401 solves)."""
MIN_TOL = 1e-12
"""Narrowest width to which a switch point is located: 1e-300 would bisect for ever (about 1,000 solves
per switch point before float64 runs out of digits)."""


def check_range(lo: float, hi: float, what: str = "the range") -> None:
    """ValueError unless ``lo < hi`` are finite numbers whose width ``hi - lo`` is finite too (-1e308 to
    1e308 overflows to inf, and every grid value would then be nan)."""
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise ValueError(f"{what} must be finite numbers, got {lo} to {hi}")
    if not lo < hi:
        raise ValueError(f"{what} must run from a lower to a higher value, got {lo} to {hi}")
    if not np.isfinite(float(hi) - float(lo)):
        raise ValueError(f"{what} {lo:g} to {hi:g} is wider than float64 holds (its width overflows to inf)")


def check_steps(steps: int, *, most: int, what: str = "steps") -> None:
    """ValueError unless 2 <= ``steps`` <= ``most``."""
    if not 2 <= int(steps) <= most:
        raise ValueError(f"{what} must be 2..{most}, got {steps}")


@dataclass(frozen=True)
class Interval:
    """A range of the parameter on which the set of optimal actions of every state stays the same."""

    lo: float
    hi: float
    policy: tuple[tuple[str, ...], ...]
    """Per state (the model's order), the labels of its optimal actions (several where they tie)."""


@dataclass(frozen=True)
class Sensitivity:
    """One setting swept: the switch points, the policy of each interval, V*(start) along the range."""

    param: str
    states: tuple[str, ...]
    switch_points: tuple[float, ...]
    intervals: tuple[Interval, ...]
    xs: np.ndarray
    start_values: np.ndarray
    start: str


# ---------------------------------------------------------------------------------- one value
def _path(param: str) -> list[str | int]:
    """``"risk[4]"`` -> ["risk", 4]; ``"kwargs.x"`` -> ["kwargs", "x"]."""
    out: list[str | int] = []
    for part in str(param).split("."):
        m = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)((?:\[\d+\])*)", part.strip())
        if not m:
            raise ValueError(f"--param {param!r}: name a settings field (e.g. discount, noise, risk[4])")
        out.append(m.group(1))
        out.extend(int(i) for i in re.findall(r"\[(\d+)\]", m.group(2)))
    return out


def same_param(a: str, b: str) -> bool:
    """Whether two parameter names name the same setting (``risk[4]`` and `` risk[4] `` do)."""
    return _path(a) == _path(b)


def check_param(data: dict, param: str, key: str) -> None:
    """ValueError unless ``param`` names a number in the game's scenario data."""
    obj: Any = data
    for p in _path(param):
        ok = (isinstance(obj, dict) and p in obj) or (isinstance(obj, list) and isinstance(p, int) and p < len(obj))
        if not ok:
            fields = ", ".join(k for k, v in data.items() if isinstance(v, (int, float)) and not isinstance(v, bool))
            raise ValueError(f"--param {param}: not a setting of --game {key} (its numeric fields: {fields})")
        obj = obj[p]
    if isinstance(obj, bool) or not isinstance(obj, (int, float)):
        raise ValueError(f"--param {param}: not a number in --game {key}'s settings (it is {obj!r})")


def with_value(data: dict, param: str, x: float) -> dict:
    """A copy of scenario ``data`` with ``param`` set to ``x``."""
    out = copy.deepcopy(data)
    obj: Any = out
    path = _path(param)
    for p in path[:-1]:
        obj = obj[p]
    obj[path[-1]] = float(x)
    return out


def value_of(data: dict, param: str) -> Any:
    """The value of ``param`` (``noise``, ``risk[4]``) in scenario ``data`` (KeyError/IndexError: none)."""
    obj: Any = data
    for p in _path(param):
        obj = obj[p]
    return obj


def build_at(key: str, data: dict) -> GameModel:
    """The game built from scenario ``data`` (ValueError naming the field that is out of range)."""
    spec = registry.get(key)
    try:
        settings = spec.from_dict(data, "--param")
    except ScenarioError as e:
        raise ValueError(f"--game {key}: {e.where.removeprefix(f'games.{key}.')}: {e.problem}") from None
    return build_game(key, settings)


def optimal_rows(game: GameModel) -> tuple[np.ndarray, np.ndarray, float]:
    """(bool per row: the row's action is optimal, the optimal policy, V*(start)) of the game, solved exactly."""
    from mdpviz.solvers import registry, solve
    from mdpviz.solvers.sweep import optimal_rows as rows_within_ties

    mdp = game.mdp
    sol = solve(mdp, registry.exact_solver())
    opt = rows_within_ties(mdp, mdp.q_values(np.asarray(sol.values)), np.asarray(sol.values))
    return opt, np.asarray(sol.policy), float(sol.values[game.start_state()])


def _policy_labels(game: GameModel, opt: np.ndarray) -> tuple[tuple[str, ...], ...]:
    mdp = game.mdp
    out = []
    for s in range(mdp.n_states):
        lo, hi = int(mdp.state_ptr[s]), int(mdp.state_ptr[s + 1])
        out.append(tuple(game.action_label(s, int(mdp.row_action[r])) for r in range(lo, hi) if opt[r]))
    return tuple(out)


def _key(opt: np.ndarray) -> bytes:
    return np.packbits(opt).tobytes() + opt.size.to_bytes(8, "little")


# ---------------------------------------------------------------------------------- one setting
def sensitivity_job(key: str, data: dict, param: str, lo: float, hi: float, *, steps: int = STEPS,
                    tol: float = TOL) -> Generator[JobProgress, None, Sensitivity]:
    """Sweep ``param`` of game ``key`` (scenario ``data``: its other settings) over [lo, hi] (see the module
    docstring); yields progress, returns the :class:`Sensitivity`."""
    check_param(data, param, key)
    check_range(lo, hi)
    check_steps(steps, most=MAX_STEPS)
    if not tol >= MIN_TOL:
        raise ValueError(f"tol must be at least {MIN_TOL:g}, got {tol}")
    xs = np.linspace(lo, hi, int(steps))
    total = int(steps) * 2

    def at(x: float) -> tuple[bytes, GameModel, np.ndarray, float]:
        game = build_at(key, with_value(data, param, x))
        opt, _pol, v = optimal_rows(game)
        return _key(opt), game, opt, v

    samples = []  # (key, None, None, V*(start)) per grid value: no model kept but the first (memory)
    for i, x in enumerate(xs):
        yield JobProgress(i, total, f"{param} = {x:.6g}")
        k, game, _opt, v = at(float(x))
        samples.append((k, game if i == 0 else None, None, v))
    switches: list[float] = []
    for i in range(len(xs) - 1):
        if samples[i][0] == samples[i + 1][0]:
            continue
        yield JobProgress(int(steps) + i, total, f"switches between {xs[i]:.6g} and {xs[i + 1]:.6g}")
        # every switch between two neighbours whose policies differ: bisect, and where the middle differs
        # from both ends, both halves (A -> B -> C within one step of the grid)
        todo = [(float(xs[i]), samples[i][0], float(xs[i + 1]), samples[i + 1][0])]
        while todo:
            a, ka, b, kb = todo.pop()
            m = 0.5 * (a + b)
            if b - a <= tol or not a < m < b:  # located (or float64 has no value between a and b)
                switches.append(m)
                continue
            km = at(m)[0]
            if km != ka:
                todo.append((a, ka, m, km))
            if km != kb:
                todo.append((m, km, b, kb))
    switches.sort()
    edges = [float(lo), *switches, float(hi)]
    intervals: list[Interval] = []
    for a, b in zip(edges, edges[1:]):  # each interval's policy: a solve inside it
        _k, game, opt, _v = at(0.5 * (a + b))
        labels = _policy_labels(game, opt)
        if intervals and intervals[-1].policy == labels:
            # the same policy on both sides: no switch here. The set of optimal actions differed only at
            # a single point (e.g. ties that appear at discount exactly 1, the range's end), which the
            # bisection located as a "switch" between two intervals of one policy (issue 35, item 17)
            intervals[-1] = Interval(intervals[-1].lo, b, labels)
            continue
        intervals.append(Interval(a, b, labels))
    switches = [iv.lo for iv in intervals[1:]]
    g0 = samples[0][1]
    states = tuple(g0.state_labels())
    return Sensitivity(param, states, tuple(switches), tuple(intervals), xs, np.asarray([x[3] for x in samples]),
                       states[g0.start_state()])


# ---------------------------------------------------------------------------------- two settings
@dataclass(frozen=True)
class Phase:
    """Two settings on a grid; each cell is the region of its policy from the start."""

    params: tuple[str, str]
    xs: np.ndarray
    ys: np.ndarray
    region: np.ndarray
    """int (len(ys), len(xs)): the region of each cell (index into :attr:`regions`)."""
    regions: tuple[dict[str, tuple[str, ...]], ...]
    """Per region, the optimal actions along the policy's likely path from the start (state label -> labels)."""
    start_values: np.ndarray
    """float (len(ys), len(xs)): V*(start) at each cell."""
    names: tuple[str, ...] = ()
    """Per region, a name for its path (:func:`~mdpviz.models.kit.teaching.phase_names.path_name`: the close or far
    exit, by the cliff or the safe way, never leaving; a repeated name numbered)."""


def likely_path(game: GameModel, policy: np.ndarray) -> list[int]:
    """The policy's path from the start along the most likely outcome of each move (the move it means to
    make), until a terminal state or a state already on the path (a loop: the game goes on for ever)."""
    mdp = game.mdp
    s = game.start_state()
    path, seen = [s], {s}
    while not mdp.terminal[s] and policy[s] >= 0:
        out = mdp.outcomes(s, int(policy[s]))
        t = max(out, key=lambda o: (o[1], -o[0]))[0]  # most likely; equally likely: the lower state id
        if t in seen:
            break
        path.append(t)
        seen.add(t)
        s = t
    return path


def time_left(elapsed: float, done: int, total: int) -> str:
    """How long the rest of a job of ``total`` equal steps takes at the pace of its first ``done`` (seconds
    ``elapsed``), in words ("12 s", "3 min"): a 41 x 41 phase diagram takes tens of seconds, and the
    progress says how many from its first cells on (issue 35 item 9)."""
    rest = elapsed / max(done, 1) * max(total - done, 0)
    return f"{rest:.0f} s" if rest < 90 else f"{rest / 60:.0f} min"


def phase_job(key: str, data: dict, params: tuple[str, str], ranges: tuple[tuple[float, float], tuple[float, float]],
              *, steps: int = PHASE_STEPS) -> Generator[JobProgress, None, Phase]:
    """A phase diagram of two settings (see the module docstring)."""
    for p in params:
        check_param(data, p, key)
    if same_param(*params):
        raise ValueError(f"a phase diagram needs two different settings, got {params[0]} twice")
    (x0, x1), (y0, y1) = ranges
    check_range(x0, x1, "the first range")
    check_range(y0, y1, "the second range")
    check_steps(steps, most=MAX_PHASE_STEPS, what="steps per axis")
    xs, ys = np.linspace(x0, x1, steps), np.linspace(y0, y1, steps)
    region = np.zeros((steps, steps), dtype=np.int64)
    start_values = np.zeros((steps, steps))
    found: dict[tuple, int] = {}
    regions: list[dict[str, tuple[str, ...]]] = []
    names: list[str] = []
    t0 = time.perf_counter()
    for j, y in enumerate(ys):
        for i, x in enumerate(xs):
            done = j * steps + i
            left = "" if done == 0 else f" (about {time_left(time.perf_counter() - t0, done, steps * steps)} left)"
            yield JobProgress(done, steps * steps, f"{params[0]} = {x:.4g}, {params[1]} = {y:.4g}{left}")
            game = build_at(key, with_value(with_value(data, params[0], x), params[1], y))
            opt, pol, v = optimal_rows(game)
            labels = _policy_labels(game, opt)
            state_names = game.state_labels()
            way = likely_path(game, pol)
            path = {state_names[s]: labels[s] for s in way if labels[s]}
            k = tuple(sorted(path.items()))
            if k not in found:
                found[k] = len(regions)
                regions.append(path)
                names.append(path_name(game, pol, way))
            region[j, i] = found[k]
            start_values[j, i] = v
    return Phase((params[0], params[1]), xs, ys, region, tuple(regions), start_values, distinct_names(names))


__all__ = ["Interval", "MAX_PHASE_STEPS", "MAX_STEPS", "MIN_TOL", "Phase", "Sensitivity", "check_range", "check_steps", "same_param",
           "likely_path", "phase_job", "sensitivity_job", "time_left"]
