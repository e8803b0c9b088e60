"""Mountain car: Sutton and Barto's Example 10.1 on a grid of position x velocity, compiled into the one tabular
MDP.

An underpowered car must drive up a steep mountain road to the goal at its right, position 0.5. Gravity is
stronger than its engine: from the valley floor it cannot climb straight up, and must first back up the
opposite slope on the left, then drive forward, building up enough momentum to carry it over. Its actions are
full throttle forward (+1), full throttle reverse (-1) and zero throttle (0). Every step costs -1 until the goal,
so the value of a state is minus the number of steps the car needs from it (figure 10.1 draws the cost-to-go,
its negation). The book's dynamics (section 10.1):

    v' = bound[v + 0.001 A - 0.0025 cos(3 p)],     p' = bound[p + v'],

with p in [-1.2, 0.5] and v in [-0.07, 0.07]; at the left bound p' = -1.2 the velocity is reset to 0, and
reaching p' >= 0.5 ends the episode. Episodes start at p = -0.5 with v = 0 (the book draws p uniformly in
[-0.6, -0.4)).

The book's car moves in continuous space; here its state is kept on a grid of positions x velocities so
that the model is a table that value iteration solves exactly. From a grid point the book's next state is
computed, then split between the four grid points around it with bilinear weights (barycentric in each
coordinate): the expected next position and velocity are exactly the book's, and a small velocity does not
round to 0 and leave the car stuck. The share that falls on the grid's last position, 0.5, is the goal (one
terminal state). The grid's default, 103 positions (steps of 1/60) x 81 velocities (steps of 0.00175), is fine enough
that the optimal cost-to-go from p = -0.5, v = 0 matches the book's optimal episodes (about 100-120 steps) and
small enough to solve in a few seconds.

States: grid point (i, j) (position i of 0 .. P-2, velocity j of 0 .. V-1) is state i V + j; the goal is the
last state. Actions: 0 = reverse, 1 = zero throttle, 2 = forward. Plain numpy; never imports Qt.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mdpviz.core.mdp import TabularMDP
from mdpviz.models.kit.game.codec import FieldError

P_MIN, P_MAX = -1.2, 0.5
"""The position's bounds (the goal is P_MAX)."""
V_MIN, V_MAX = -0.07, 0.07
"""The velocity's bounds."""
START_POSITION = -0.5
"""Where episodes start (with velocity 0)."""
THROTTLE = (-1.0, 0.0, 1.0)
"""The actions' throttle A: reverse, zero, forward."""
ACTION_LABELS = ("reverse", "zero", "forward")
"""The actions' names."""
MAX_GRID = 1000
"""Most grid points along either axis."""
MAX_POINTS = 250_000
"""Most grid points in all (positions x velocities)."""


@dataclass(frozen=True)
class MountainCarSettings:
    """Everything that defines the grid version of Example 10.1."""

    positions: int = 103
    """Grid points along the position axis from -1.2 to 0.5 (the last is the goal); 103 puts a point at the
    start -0.5 (steps of 1/60)."""
    velocities: int = 81
    """Grid points along the velocity axis from -0.07 to 0.07; an odd number puts one at velocity 0."""
    discount: float = 1.0
    """Discount gamma (1 in the book)."""

    def validate(self) -> "MountainCarSettings":
        """Self, or a FieldError naming the bad field."""
        for name in ("positions", "velocities"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or not 3 <= v <= MAX_GRID:
                raise FieldError(name, f"must be a whole number in 3..{MAX_GRID}, got {v!r}")
        if self.positions * self.velocities > MAX_POINTS:
            raise FieldError("velocities", f"positions x velocities must be at most {MAX_POINTS:,}, got "
                                           f"{self.positions * self.velocities:,}")
        v = self.discount
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or not 0.0 <= v <= 1.0:
            raise FieldError("discount", f"must be a number in [0, 1], got {v!r}")
        return self


def grid(settings: MountainCarSettings) -> tuple[np.ndarray, np.ndarray]:
    """(positions, velocities): the grid's points along each axis, float64, lowest first."""
    return np.linspace(P_MIN, P_MAX, int(settings.positions)), np.linspace(V_MIN, V_MAX, int(settings.velocities))


def goal_state(settings: MountainCarSettings) -> int:
    """The goal's state id (the last one)."""
    return (int(settings.positions) - 1) * int(settings.velocities)


def state_of(settings: MountainCarSettings, i: int, j: int) -> int:
    """The state of grid point (position index i, velocity index j); i = P - 1 is the goal."""
    if i >= int(settings.positions) - 1:
        return goal_state(settings)
    return int(i) * int(settings.velocities) + int(j)


def start_state(settings: MountainCarSettings) -> int:
    """The grid point nearest p = -0.5, v = 0."""
    ps, vs = grid(settings)
    return state_of(settings, int(np.argmin(np.abs(ps - START_POSITION))), int(np.argmin(np.abs(vs))))


def step(p: np.ndarray, v: np.ndarray, throttle: float) -> tuple[np.ndarray, np.ndarray]:
    """The book's one step (section 10.1) from arrays of positions and velocities: (p', v'), the left bound
    resetting the velocity to 0; p' = 0.5 is the goal."""
    v2 = np.clip(v + 0.001 * throttle - 0.0025 * np.cos(3.0 * p), V_MIN, V_MAX)
    p2 = np.clip(p + v2, P_MIN, P_MAX)
    v2 = np.where(p2 <= P_MIN, 0.0, v2)
    return p2, v2


def _split(x: np.ndarray, lo: float, hi: float, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(lower index, weight of the upper point) of each x on the grid of n points from lo to hi."""
    t = (np.clip(x, lo, hi) - lo) / (hi - lo) * (n - 1)
    i = np.minimum(np.floor(t).astype(np.int64), n - 2)
    return i, np.clip(t - i, 0.0, 1.0)


def compile_mountaincar(settings: MountainCarSettings) -> TabularMDP:
    """The MDP of the module docstring: from each grid point and throttle, the book's next state split
    bilinearly over the four grid points around it (those at position 0.5 merged into the goal), reward -1."""
    valid = settings.validate()
    P, V = int(valid.positions), int(valid.velocities)
    ps, vs = grid(valid)
    n_live = (P - 1) * V
    goal = n_live
    ii, jj = np.divmod(np.arange(n_live, dtype=np.int64), V)
    p, v = ps[ii], vs[jj]
    src, act, dst, prob = [], [], [], []
    for a, throttle in enumerate(THROTTLE):
        p2, v2 = step(p, v, throttle)
        i0, wp = _split(p2, P_MIN, P_MAX, P)
        j0, wv = _split(v2, V_MIN, V_MAX, V)
        for di, pw in ((0, 1.0 - wp), (1, wp)):
            for dj, vw in ((0, 1.0 - wv), (1, wv)):
                w = pw * vw
                i, j = i0 + di, j0 + dj
                d = np.where(i >= P - 1, goal, i * V + j)
                keep = w > 1e-12
                src.append(np.arange(n_live)[keep]), act.append(np.full(int(keep.sum()), a))
                dst.append(d[keep]), prob.append(w[keep])
    src_a, act_a, dst_a, prob_a = (np.concatenate(x) for x in (src, act, dst, prob))
    # merge the parts that land on the same state (the goal), one transition per (state, action, next state)
    key = (src_a * 3 + act_a) * (n_live + 1) + dst_a
    uniq, inverse = np.unique(key, return_inverse=True)
    merged = np.bincount(inverse, weights=prob_a)
    sa, dst_u = np.divmod(uniq, n_live + 1)
    src_u, act_u = np.divmod(sa, 3)
    merged = merged / np.bincount(sa, weights=merged)[sa]  # exactly 1 per row after dropping dust
    return TabularMDP.from_transitions(
        n_live + 1, 3, src_u, act_u, dst_u, merged, np.full(src_u.size, -1.0), discount=float(valid.discount),
        terminal=[goal], state_labels=state_labels(valid), action_labels=ACTION_LABELS, mdptype="episodic")


def state_labels(settings: MountainCarSettings) -> tuple[str, ...]:
    """Every state's name: "p -0.500, v +0.0000" per grid point, then "goal"."""
    ps, vs = grid(settings)
    return tuple(f"p {p:+.3f}, v {v:+.5f}" for p in ps[:-1] for v in vs) + ("goal",)


__all__ = ["ACTION_LABELS", "MAX_GRID", "MAX_POINTS", "MountainCarSettings", "P_MAX", "P_MIN", "START_POSITION",
           "THROTTLE", "V_MAX", "V_MIN", "compile_mountaincar", "goal_state", "grid", "start_state", "state_labels",
           "state_of", "step"]
