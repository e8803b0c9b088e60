"""The random walk of Sutton and Barto's Example 9.1, compiled into the one tabular MDP.

The states are numbered 1 to n in a row (1000 in the book), with a terminal end on each side. An episode
starts in the middle (state 500 of 1000). From each state the walk jumps to one of the max_jump states on
its left or one of the max_jump on its right (100 each in the book), all with equal probability. A jump that
would pass an end lands on that end: near the left end, the probability of every would-be jump beyond it goes
to the left end. Reaching the left end pays -1, the right end +1; every other step pays 0, and nothing is
discounted. There is one action, so this is a prediction task: the only question is the value of each
state, which is close to a straight line from -1 to +1 (it bends near the ends, where a jump can end the
episode at once).

The 19-state walk of chapter 7 (n 19, max_jump 1) and the 5-state walk of Example 6.2 (n 5, max_jump 1,
left end paying 0: the values are then 1/6 .. 5/6) are the same game with other settings.

States: 0 = the left end, 1 .. n = the walk's states, n + 1 = the right end; the one action is 0 ("walk").
Plain numpy; never imports Qt.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mdpviz.core.mdp import TabularMDP
from mdpviz.models.kit.game.codec import FieldError, check_numbers

MAX_STATES = 100_000
"""Most states the walk may have (the model grows as n_states x max_jump transitions)."""
MAX_TRANSITIONS = 20_000_000
"""Most transitions the model may have (n_states x 2 max_jump at most)."""
RIGHT_REWARD = 1.0
"""Reward on reaching the right end (+1 in Examples 6.2 and 9.1)."""
WALK = 0
"""The one action's id."""


@dataclass(frozen=True)
class RandomWalkSettings:
    """Everything that defines the walk of Example 9.1 (and Example 6.2, chapter 7's 19 states)."""

    n_states: int = 1000
    """States in the row between the two ends (1000 in Example 9.1, 19 in chapter 7, 5 in Example 6.2)."""
    max_jump: int = 100
    """Farthest jump each way, in states: each of 1..max_jump left or right is equally likely (100 in Example
    9.1, 1 in the smaller walks)."""
    left_reward: float = -1.0
    """Reward on reaching the left end (-1 in Example 9.1; 0 in Example 6.2). The right end pays +1."""
    discount: float = 1.0
    """Discount gamma (1 in the book)."""

    def validate(self) -> "RandomWalkSettings":
        """Self, or a FieldError naming the bad field."""
        for name, lo, hi in (("n_states", 1, MAX_STATES), ("max_jump", 1, MAX_STATES)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
                raise FieldError(name, f"must be a whole number in {lo}..{hi:,}, got {v!r}")
        if self.max_jump > self.n_states:
            raise FieldError("max_jump", f"must be at most n_states ({self.n_states}), got {self.max_jump}")
        if 2 * self.n_states * self.max_jump > MAX_TRANSITIONS:
            raise FieldError("max_jump", f"n_states x max_jump must be at most {MAX_TRANSITIONS // 2:,}, got "
                                         f"{self.n_states * self.max_jump:,}")
        check_numbers(self, (("left_reward", -1e6, 1e6), ("discount", 0.0, 1.0)))
        return self


def left_end(settings: RandomWalkSettings) -> int:
    """The left end's state id (0)."""
    return 0


def right_end(settings: RandomWalkSettings) -> int:
    """The right end's state id (n + 1)."""
    return int(settings.n_states) + 1


def middle(settings: RandomWalkSettings) -> int:
    """Where episodes start: the middle state, (n + 1) // 2 (500 of 1000, 10 of 19, 3 = C of 5)."""
    return (int(settings.n_states) + 1) // 2


def state_labels(settings: RandomWalkSettings) -> tuple[str, ...]:
    """Every state's name: "left end", "1" .. "n", "right end"."""
    return ("left end", *(str(i) for i in range(1, int(settings.n_states) + 1)), "right end")


def compile_randomwalk(settings: RandomWalkSettings) -> TabularMDP:
    """The MDP of the module docstring: from state i, each jump of 1..k states (k = max_jump) left or right with
    probability 1/(2k), the ones beyond an end summed onto that end; -1 (``left_reward``) on reaching the left
    end, +1 on the right end, 0 otherwise."""
    valid = settings.validate()
    n, k = int(valid.n_states), int(valid.max_jump)
    right = n + 1
    states = np.arange(1, n + 1, dtype=np.int64)
    jumps = np.concatenate([-np.arange(k, 0, -1), np.arange(1, k + 1)]).astype(np.int64)
    dst = np.clip(states[:, None] + jumps[None, :], 0, right)          # (n, 2k): beyond an end: the end
    src = np.repeat(states, 2 * k)
    dst = dst.ravel()
    # merge the jumps that land on the same end: one transition per (state, destination)
    key = src * (right + 1) + dst
    uniq, counts = np.unique(key, return_counts=True)
    src_u, dst_u = uniq // (right + 1), uniq % (right + 1)
    prob = counts / (2.0 * k)
    reward = np.where(dst_u == 0, float(valid.left_reward), np.where(dst_u == right, RIGHT_REWARD, 0.0))
    return TabularMDP.from_transitions(
        n + 2, 1, src_u, np.zeros(src_u.size, dtype=np.int64), dst_u, prob, reward, discount=float(valid.discount),
        terminal=[0, right], state_labels=state_labels(valid), action_labels=("walk",), mdptype="episodic")


def true_values(settings: RandomWalkSettings) -> np.ndarray:
    """float64 (n + 2): the exact value of every state (0 at the ends), by one dense-free sparse linear solve of
    v = r + gamma P v over the walk's states (Sutton and Barto eq. 3.14 with one action)."""
    import scipy.sparse as sp
    import scipy.sparse.linalg as spla

    mdp = compile_randomwalk(settings)
    n = mdp.n_states
    rows = np.repeat(np.asarray(mdp.row_state), np.diff(np.asarray(mdp.row_ptr)))
    P = sp.csr_matrix((np.asarray(mdp.prob), (rows, np.asarray(mdp.dst))), shape=(n, n))
    r = np.bincount(rows, weights=np.asarray(mdp.prob) * np.asarray(mdp.reward), minlength=n)
    live = np.flatnonzero(~np.asarray(mdp.terminal))
    A = sp.identity(live.size, format="csc") - mdp.discount * P[live][:, live]
    v = np.zeros(n)
    v[live] = spla.spsolve(A.tocsc(), r[live])
    return v


__all__ = ["MAX_STATES", "MAX_TRANSITIONS", "RIGHT_REWARD", "RandomWalkSettings", "WALK", "compile_randomwalk",
           "left_end", "middle", "right_end", "state_labels", "true_values"]
