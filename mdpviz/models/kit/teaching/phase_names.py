"""Names for the regions of a phase diagram (:class:`~mdpviz.models.kit.teaching.sensitivity.Phase`).

:func:`path_name` names the policy's likely path from the start (:func:`~mdpviz.models.kit.teaching.sensitivity.
likely_path`) in the words of CS188's discount-grid question for a grid world (the close or the far
exit, by the cliff or the safe way, into the cliff, never leaving) and by its end for any other game.
Plain Python; never imports Qt.
"""
from __future__ import annotations

from typing import Any

import numpy as np

CELL_WORDS = frozenset({"gridworld"})
"""Games whose phase regions are named in CS188's words (exits, the cliff)."""


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


__all__ = ["distinct_names", "path_name"]
