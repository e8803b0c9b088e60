"""The gambler's problem: Sutton and Barto's Example 4.3, compiled into the one tabular MDP.

A gambler bets on the flips of a coin that comes up heads with probability p_heads. Holding a
capital of s dollars, 0 < s < goal, he stakes a whole number of dollars, 1 .. min(s, goal - s): on
heads he wins as many dollars as he staked, on tails he loses the stake. The game ends when he
reaches the goal (reward +1) or loses all his money (reward 0); every other step pays 0 and nothing
is discounted, so the value V(s) of a capital is the probability of reaching the goal from it.

States are the capitals 0 .. goal (state i is capital i; 0 and the goal are terminal); action k
is the stake k + 1 dollars. The Bellman optimality equation (Sutton and Barto eq. 4.10) reads
V(s) = max over stakes a of [p_heads (r + V(s + a)) + (1 - p_heads) V(s - a)], with r = 1 when
s + a reaches the goal and 0 otherwise.

Plain numpy; never imports Qt.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mdpviz.models.kit.game.codec import FieldError
from mdpviz.core.mdp import TabularMDP

MAX_GOAL = 3_000
"""Largest goal a setting may ask for: what fits in memory. The model has goal^2 / 2 transitions (up to
goal / 2 stakes per capital, two outcomes each) at about 230 bytes each while it is built and solved:
3,000 peaks at 1.1 GB, 4,000 at 1.7 GB and 10,000 at about 12 GB (issue 35, item 18)."""


@dataclass(frozen=True)
class GamblerSettings:
    """Everything that defines the gambler's problem."""

    p_heads: float = 0.4
    """Probability that the coin comes up heads (the gambler wins his stake); 0.4 in figure 4.3."""
    goal: int = 100
    """Capital (dollars) at which the gambler stops and wins: reward +1."""
    discount: float = 1.0
    """Discount gamma (1 in the book: V(s) is then the probability of reaching the goal)."""

    def validate(self) -> "GamblerSettings":
        """Self, or ValueError naming the bad field (a :class:`~mdpviz.models.kit.game.codec.FieldError`)."""
        for name in ("p_heads", "discount"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise FieldError(name, f"must be a finite number, got {v!r}")
            if not 0.0 <= v <= 1.0:
                raise FieldError(name, f"must be in [0, 1], got {v}")
        if isinstance(self.goal, bool) or not isinstance(self.goal, int):
            raise FieldError("goal", f"must be a whole number of dollars, got {self.goal!r}")
        if not 2 <= self.goal <= MAX_GOAL:
            why = (f" (a larger model does not fit in memory: goal^2 / 2 transitions, 1.1 GB at {MAX_GOAL:,})"
                   if self.goal > MAX_GOAL else "")
            raise FieldError("goal", f"must be in 2..{MAX_GOAL:,}, got {self.goal}{why}")
        return self


def stake_of(action: int) -> int:
    """The stake (dollars) of action id ``action``."""
    return int(action) + 1


def compile_gambler(settings: GamblerSettings) -> TabularMDP:
    """The gambler's MDP (module docstring): states = capital 0..goal, action k = stake k + 1; built
    with numpy in one pass (no Python loop over states)."""
    valid = settings.validate()
    goal, p = int(valid.goal), float(valid.p_heads)
    caps = np.arange(1, goal, dtype=np.int64)
    n_stakes = np.minimum(caps, goal - caps)
    src = np.repeat(caps, n_stakes)
    # stake 1..n for each capital: position within its run of repeats, plus 1
    first = np.repeat(np.cumsum(n_stakes) - n_stakes, n_stakes)
    stake = np.arange(src.size, dtype=np.int64) - first + 1
    parts = []
    if p > 0.0:
        win = src + stake
        parts.append((src, stake - 1, win, np.full(src.size, p), (win == goal).astype(np.float64)))
    if p < 1.0:
        parts.append((src, stake - 1, src - stake, np.full(src.size, 1.0 - p), np.zeros(src.size)))
    s, a, d, pr, r = (np.concatenate(x) for x in zip(*parts))
    n_actions = goal // 2
    return TabularMDP.from_transitions(
        goal + 1, n_actions, s, a, d, pr, r, discount=valid.discount, terminal=[0, goal],
        state_labels=[f"capital {i}" for i in range(goal + 1)],
        action_labels=[f"stake {k + 1}" for k in range(n_actions)], mdptype="episodic",
    )


def tied_stakes(mdp: TabularMDP, values: np.ndarray) -> list[tuple[int, ...]]:
    """Per capital (state), every stake whose Q is optimal under the solvers' tie rule (() for terminals):
    the book's policy with its spikes is one of these optimal policies among several."""
    from mdpviz.solvers.sweep import optimal_rows

    opt = optimal_rows(mdp, mdp.q_values(np.asarray(values, dtype=np.float64)))
    ptr = np.asarray(mdp.state_ptr)
    ra = np.asarray(mdp.row_action)
    return [tuple(stake_of(int(a)) for a in ra[ptr[s]:ptr[s + 1]][opt[ptr[s]:ptr[s + 1]]])
            for s in range(mdp.n_states)]


__all__ = ["GamblerSettings", "MAX_GOAL", "compile_gambler", "stake_of", "tied_stakes"]
