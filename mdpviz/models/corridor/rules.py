"""The short corridor with switched actions: Sutton and Barto's Example 13.1, compiled into the one tabular MDP.

Three non-terminal states in a row and the goal G on their right. Each state has two actions, left and right.
In the first state (S, where every episode starts) left bumps into the wall and stays, right moves one state
right. In the second state the actions are reversed: right moves left, back to S, and left moves right. In
the third state the actions are the usual ones, and right reaches the goal. Every step pays -1 and nothing is
discounted, so the value of a policy is minus the expected number of steps to the goal.

With the book's features every state looks the same to the agent: x(s, right) = (1, 0) and x(s, left) = (0, 1)
in every state, so a policy can only choose one probability p of going right, the same in every state. The
value of that policy from S, by one linear solve of the Bellman equations (eq. 3.14), is
J(p) = (2p - 4) / (p (1 - p)): figure 13.1's curve. It is best at p = 2 - sqrt 2 (about 0.586), where
J = -(6 + 4 sqrt 2) (about -11.657). An epsilon-greedy policy can only be near p = 0 or p = 1: with
epsilon 0.1, p = 0.05 gives -82.1 and p = 0.95 gives -44.2, far worse. Only a policy that learns its
probabilities, as the policy-gradient methods of chapter 13 do, finds the best stochastic policy.

With tabular features (one preference per state and action) the same game is an ordinary MDP: the agent
tells the states apart, goes right, left, right, and V*(S) = -3.

Settings generalise the example: more states in the corridor, and which of them has its actions reversed.
States: 0 .. n - 1 = the corridor's states from S rightwards, n = the goal G (terminal); actions: 0 = left,
1 = right. Plain numpy; never imports Qt.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mdpviz.core.mdp import TabularMDP
from mdpviz.models.kit.game.codec import FieldError

LEFT, RIGHT = 0, 1
"""The action ids."""
ACTION_LABELS = ("left", "right")
"""The actions' names, by id."""
START = 0
"""Where every episode starts: S, the left end of the corridor."""
STEP_REWARD = -1.0
"""Reward of every step (-1 in the book)."""
MAX_STATES = 50
"""Most non-terminal states the corridor may have (the lesson's numbers stay exact)."""
BOOK_P_RIGHT = 0.05
"""The probability of right the book starts its learners from (figure 13.1: the epsilon-greedy-left policy
with epsilon 0.1)."""
BOOK_EPSILON = 0.1
"""The epsilon of figure 13.1's two epsilon-greedy policies (p = epsilon/2 and 1 - epsilon/2)."""


@dataclass(frozen=True)
class CorridorSettings:
    """Everything that defines Example 13.1's corridor (three states, the second reversed, in the book)."""

    n_states: int = 3
    """Non-terminal states in the corridor (3 in the book); the goal G is one more, on their right."""
    reversed: int = 1
    """Which state (0 = S .. n_states - 1) has its actions reversed (1 in the book: the second state)."""
    discount: float = 1.0
    """Discount gamma (1 in the book: the value is minus the expected number of steps)."""

    def validate(self) -> "CorridorSettings":
        """Self, or a FieldError naming the bad field."""
        n = self.n_states
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_STATES:
            raise FieldError("n_states", f"must be a whole number in 1..{MAX_STATES}, got {n!r}")
        r = self.reversed
        if isinstance(r, bool) or not isinstance(r, int) or not 0 <= r < n:
            raise FieldError("reversed", f"must be a state of the corridor, 0..{n - 1}, got {r!r}")
        g = self.discount
        if isinstance(g, bool) or not isinstance(g, (int, float)) or not math.isfinite(g) or not 0.0 <= g <= 1.0:
            raise FieldError("discount", f"must be a number in [0, 1], got {g!r}")
        return self


def goal(settings: CorridorSettings) -> int:
    """The goal's state id (n_states: right of the corridor)."""
    return int(settings.n_states)


def state_labels(settings: CorridorSettings) -> tuple[str, ...]:
    """Every state's name as the board prints it: "S", "2" .. "n", "G"."""
    return ("S", *(str(i + 1) for i in range(1, int(settings.n_states))), "G")


def moves(settings: CorridorSettings, s: int) -> dict[int, int]:
    """{action: next state} of corridor state ``s``: left one state left (S's left stays at the wall), right one
    state right (the last state's right reaches G), the two swapped in the reversed state."""
    left, right = max(int(s) - 1, 0), int(s) + 1
    if int(s) == int(settings.reversed):
        left, right = right, left
    return {LEFT: left, RIGHT: right}


def compile_corridor(settings: CorridorSettings) -> TabularMDP:
    """The MDP of the module docstring: each action of each corridor state moves surely (:func:`moves`), every
    step pays -1, G is terminal."""
    valid = settings.validate()
    n = int(valid.n_states)
    src, act, dst = [], [], []
    for s in range(n):
        for a, t in moves(valid, s).items():
            src.append(s), act.append(a), dst.append(t)
    k = len(src)
    return TabularMDP.from_transitions(
        n + 1, 2, src, act, dst, np.ones(k), np.full(k, STEP_REWARD), discount=float(valid.discount),
        terminal=[n], state_labels=state_labels(valid), action_labels=ACTION_LABELS, mdptype="episodic")


def right_probability_rows(mdp: TabularMDP, p: float) -> np.ndarray:
    """float64 (n_rows), read-only: each row's probability under the policy that goes right with probability
    ``p`` in every state (what the book's features allow)."""
    out = np.where(np.asarray(mdp.row_action) == RIGHT, float(p), 1.0 - float(p))
    out.setflags(write=False)
    return out


def value_of_right_probability(settings: CorridorSettings, p: float) -> float:
    """J(p) = v(S) of the policy that goes right with probability ``p`` in every state, by one linear solve of
    v = r + gamma P v over the corridor's states (eq. 3.14): (2p - 4) / (p (1 - p)) on the book's corridor.
    -inf where the policy never reaches G undiscounted (p = 0 or 1 on the book's corridor)."""
    valid = settings.validate()
    n, gamma, p = int(valid.n_states), float(valid.discount), float(p)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p must be a probability in [0, 1], got {p!r}")
    A = np.eye(n)
    for s in range(n):
        for a, t in moves(valid, s).items():
            if t < n:
                A[s, t] -= gamma * (p if a == RIGHT else 1.0 - p)
    if abs(np.linalg.det(A)) < 1e-12:
        return -math.inf
    v = np.linalg.solve(A, np.full(n, STEP_REWARD))
    return float(v[START])


def best_right_probability(settings: CorridorSettings) -> tuple[float, float]:
    """(p, J(p)): the best probability of right for a policy that cannot tell the states apart (figure 13.1's
    maximum: 2 - sqrt 2 and -(6 + 4 sqrt 2) on the book's corridor), by a bounded scalar search over (0, 1)."""
    from scipy.optimize import minimize_scalar

    def cost(p: float) -> float:
        j = value_of_right_probability(settings, p)
        return 1e300 if not math.isfinite(j) else -j

    grid = np.linspace(0.005, 0.995, 199)
    p0 = float(grid[int(np.argmin([cost(p) for p in grid]))])
    step = float(grid[1] - grid[0])
    found = minimize_scalar(cost, bounds=(max(p0 - step, 1e-9), min(p0 + step, 1 - 1e-9)), method="bounded",
                            options={"xatol": 1e-12})
    p = float(found.x)
    return p, value_of_right_probability(settings, p)


__all__ = ["ACTION_LABELS", "BOOK_EPSILON", "BOOK_P_RIGHT", "CorridorSettings", "LEFT", "MAX_STATES", "RIGHT",
           "START", "STEP_REWARD", "best_right_probability", "compile_corridor", "goal", "moves",
           "right_probability_rows", "state_labels", "value_of_right_probability"]
