"""What the window's Sensitivity view needs beside the sweep itself: the numbers of a game's settings that
can be swept (with a sensible default range each) and a name for each region of a phase diagram.

:func:`numeric_fields` lists the real-valued fields of a game's scenario data (``discount``, ``noise``,
``living_reward``, ``p_heads``, the rewards, costs and means, and the real entries of a list such as
``risk[4]`` or ``request_means[0]``), each with a default range that the game's own validation accepts at
both ends. Whole numbers (a board's size, a goal, a ply limit) change the states themselves and are left
out, as are probabilities that must sum to one with others (a die's faces).

:func:`path_name` names the policy's likely path from the start (:func:`~mdpviz.models.kit.sensitivity.
likely_path`) in the words of CS188's discount-grid question for a grid world (the close or the far
exit, by the cliff or the safe way, into the cliff, never leaving) and by its end for any other game.
Plain Python; never imports Qt.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mdpviz.models.files import ScenarioError
from mdpviz.models.kit import registry

PROBABILITY_FIELDS = frozenset({"noise", "p_heads", "risk", "trigger", "epsilon", "epsilon_min"})
"""Fields (or lists) whose numbers are probabilities: swept over [0, 1] by default."""

FIXED_RANGES: dict[str, tuple[float, float]] = {
    "noise": (0.0, 0.5),  # CS188's questions: from none to a coin flip between the move and a slip
    "living_reward": (-2.0, 1.0),  # from "leave at any price" to "never leave" (CS188 q3)
    "p_heads": (0.05, 0.95),  # the gambler's coin; 0 and 1 make every stake tie
}
"""Default ranges of the fields named here (the others: see :func:`default_range`)."""

CELL_WORDS = frozenset({"gridworld"})
"""Games whose phase regions are named in CS188's words (exits, the cliff)."""


@dataclass(frozen=True)
class SweepField:
    """One number of a game's settings that the Sensitivity view can sweep."""

    name: str
    """As the scenario file names it (``discount``, ``risk[4]``, ``dice[1].trigger``): what the sweep takes."""
    value: float
    """Its value in the given settings."""
    lo: float
    """The default range's low end (the game accepts it)."""
    hi: float
    """The default range's high end (the game accepts it)."""

    @property
    def label(self) -> str:
        """The name in words, for menus and axis titles ("living reward", "risk[4]")."""
        return self.name.replace("_", " ")


def _numbers(data: Any, prefix: str = "") -> list[tuple[str, float, str]]:
    """(name, value, last field name) of every real number in scenario ``data`` (lists of reals: each entry)."""
    out: list[tuple[str, float, str]] = []
    if isinstance(data, dict):
        for k, v in data.items():
            name = f"{prefix}.{k}" if prefix else str(k)
            if isinstance(v, float):
                out.append((name, v, str(k)))
            elif isinstance(v, list) and v and all(isinstance(x, float) for x in v):
                out.extend((f"{name}[{i}]", x, str(k)) for i, x in enumerate(v))
            elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
                for i, x in enumerate(v):
                    out.extend(_numbers(x, f"{name}[{i}]"))
            elif isinstance(v, dict):
                out.extend(_numbers(v, name))
    return out


def default_range(field: str, value: float) -> tuple[float, float]:
    """A first range for a field named ``field`` (its last part: ``risk`` for ``risk[4]``) now at ``value``:
    a probability over [0, 1], a discount over [0.1, 0.99] (or [0.5, 1] when it is 1 now), the fields of
    :data:`FIXED_RANGES` over theirs, any other number (a reward, a cost, a mean) from 0 to twice itself
    (or one either side of 0)."""
    if field in FIXED_RANGES:
        return FIXED_RANGES[field]
    if field in PROBABILITY_FIELDS:
        return 0.0, 1.0
    if field == "discount":
        return (0.5, 1.0) if value >= 1.0 else (0.1, 0.99)
    span = max(1.0, abs(value))
    return (min(0.0, 2 * value), max(0.0, 2 * value)) if value != 0 else (value - span, value + span)


def _accepts(key: str, data: dict, name: str, x: float) -> bool:
    from mdpviz.models.kit.sensitivity import with_value

    spec = registry.get(key)
    try:
        spec.from_dict(with_value(data, name, x), "sensitivity")
    except (ScenarioError, ValueError):
        return False
    return True


def value_of(data: dict, param: str) -> Any:
    """The value of ``param`` (``noise``, ``risk[4]``) in scenario ``data`` (KeyError/IndexError: none)."""
    from mdpviz.models.kit.sensitivity import _path

    obj: Any = data
    for p in _path(param):
        obj = obj[p]
    return obj


def check_range(key: str, data: dict, param: str, lo: float, hi: float) -> None:
    """ValueError (one line) unless ``param`` names a number of game ``key``'s scenario ``data`` and the game
    accepts it at both ends of [lo, hi], lo below hi: what a sweep checks before it starts."""
    from mdpviz.models.kit.sensitivity import check_param, with_value

    key = registry.canonical(key)
    check_param(data, param, key)
    label = param.replace("_", " ")
    if not lo < hi:
        raise ValueError(f"{label}: the range must run from a lower to a higher value, got {lo:g} to {hi:g}")
    spec = registry.get(key)
    for x in (lo, hi):
        try:
            spec.from_dict(with_value(data, param, x), "sensitivity")
        except ScenarioError as e:
            raise ValueError(f"{label} = {x:g}: {e.problem}") from None
        except ValueError as e:
            raise ValueError(f"{label} = {x:g}: {e}") from None


def _accepted_end(key: str, data: dict, name: str, end: float, value: float) -> float:
    """``end`` if the game accepts it, else the first of up to 30 points half way towards ``value`` that it
    accepts, else ``value`` itself (the present setting)."""
    for _ in range(30):
        if _accepts(key, data, name, end):
            return end
        end = 0.5 * (end + value)
    return value


def numeric_fields(key: str, data: dict) -> tuple[SweepField, ...]:
    """The real numbers of game ``key``'s scenario ``data`` that can be swept, each with a default range
    the game accepts at both ends (an end it refuses moves half way towards the present value, up to 30
    times, else to the value itself; a field left with no range is left out)."""
    key = registry.canonical(key)
    if registry.get(key).no_table:
        return ()
    out = []
    for name, value, last in _numbers(data):
        lo, hi = (_accepted_end(key, data, name, end, value) for end in default_range(last, value))
        if lo < hi:
            out.append(SweepField(name, float(value), float(lo), float(hi)))
    return tuple(out)


# ---------------------------------------------------------------------------------- region names
def _bfs(mdp, start: int) -> np.ndarray:
    """Moves from ``start`` to each state along any action's possible outcomes (-1: not reachable)."""
    dist = np.full(mdp.n_states, -1, dtype=np.int64)
    dist[start] = 0
    frontier = [start]
    while frontier:
        nxt = []
        for s in frontier:
            if mdp.terminal[s]:
                continue
            for r in range(int(mdp.state_ptr[s]), int(mdp.state_ptr[s + 1])):
                for k in range(int(mdp.row_ptr[r]), int(mdp.row_ptr[r + 1])):
                    t = int(mdp.dst[k])
                    if mdp.prob[k] > 0 and dist[t] < 0:
                        dist[t] = dist[s] + 1
                        nxt.append(t)
        frontier = nxt
    return dist


def _exits(mdp) -> dict[int, float]:
    """Each state from which some action leaves into a terminal state: the best reward of such a step."""
    out: dict[int, float] = {}
    for s in range(mdp.n_states):
        if mdp.terminal[s]:
            continue
        for r in range(int(mdp.state_ptr[s]), int(mdp.state_ptr[s + 1])):
            for k in range(int(mdp.row_ptr[r]), int(mdp.row_ptr[r + 1])):
                if mdp.prob[k] > 0 and mdp.terminal[int(mdp.dst[k])]:
                    out[s] = max(out.get(s, -np.inf), float(mdp.reward[k]))
    return out


def _last_reward(mdp, policy: np.ndarray, path: list[int]) -> float:
    """The reward of the path's last step (into its terminal state)."""
    s, t = path[-2], path[-1]
    for d, _p, w in mdp.outcomes(s, int(policy[s])):
        if d == t:
            return float(w)
    return 0.0


def path_name(game: Any, policy: np.ndarray, path: list[int]) -> str:
    """A name for the policy's likely path ``path`` from the start (see the module docstring)."""
    mdp = game.mdp
    last = path[-1]
    ends = bool(mdp.terminal[last]) and len(path) > 1
    if game.key not in CELL_WORDS:
        if not ends:
            return "never ends" if len(path) > 1 or not mdp.terminal[last] else "ends at once"
        moves = len(path) - 1
        return f"ends with {_last_reward(mdp, policy, path):+g} after {moves} move{'s' if moves != 1 else ''}"
    if not ends:
        return "never leaving"
    exits = _exits(mdp)
    reward = _last_reward(mdp, policy, path)
    if reward < 0:
        return f"into the cliff ({reward:+g})"
    dist = _bfs(mdp, game.start_state())
    good = sorted({(int(dist[s]), round(w, 9)) for s, w in exits.items() if w > 0 and dist[s] >= 0})
    cliff = {s for s, w in exits.items() if w < 0}
    source = path[-2]
    where = "exit"
    if len({w for _d, w in good}) > 1:
        nearest = good[0][1]
        where = "close exit" if round(exits.get(source, reward), 9) == nearest else "far exit"
    # a move of a state on the way (not the start: CS188's start is next to the cliff whichever way it
    # goes, nor the exit's own cell) can slip into the cliff
    near_cliff = any(t in cliff or (mdp.terminal[t] and w < 0)
                     for s in path[1:-2] for a in mdp.actions_of(s) for t, p, w in mdp.outcomes(s, int(a)) if p > 0)
    route = "by the cliff" if near_cliff else "the safe way" if cliff else ""
    return f"{where} ({reward:+g})" + (f", {route}" if route else "")


def distinct_names(names: list[str]) -> tuple[str, ...]:
    """``names`` with a repeated name numbered ("never leaving", "never leaving (2)")."""
    seen: dict[str, int] = {}
    out = []
    for n in names:
        seen[n] = seen.get(n, 0) + 1
        out.append(n if seen[n] == 1 else f"{n} ({seen[n]})")
    return tuple(out)


__all__ = ["SweepField", "check_range", "value_of", "default_range", "distinct_names", "numeric_fields", "path_name"]
