"""Maximization bias: Sutton and Barto's Example 6.7 (figure 6.5), compiled into the one tabular MDP.

An episode starts in state A, which has two actions. Right ends the episode at once with reward 0.
Left moves to state B, also with reward 0. From B there are many actions (10 in the figure), each of
which ends the episode with a reward drawn from a normal distribution of mean -0.1 and variance 1.
So the expected return of left is -0.1 and right (0) is optimal; but Q-learning's target takes the
maximum over B's noisy estimates, which is positive early on, and it prefers left for many episodes
(figure 6.5: about 40% of the time at episode 10, against the 5% that epsilon-greedy with epsilon 0.1
must spend on it). Double Q-learning, whose target values one table's greedy action with the other
table, has no such bias.

States: 0 = A, 1 = B, 2 = the terminal state. A's actions: 0 = right, 1 = left; B's: 2 .. n + 1 (named b0 .. b(n-1)), so
every action id has one name.
The model's reward of each of B's transitions is the mean (the solvers' exact answer uses it, the
expected reward); :attr:`~mdpviz.core.mdp.TabularMDP.reward_sd` carries the standard deviation, which
the learners' simulator samples (N(mean, sd^2); :mod:`mdpviz.solvers.learning_loop`). Nothing is
discounted in the book (discount 1).

Plain numpy; never imports Qt.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from mdpviz.core.mdp import TabularMDP
from mdpviz.models.kit.game.codec import FieldError, check_numbers

A, B, END = 0, 1, 2
"""The state ids."""
RIGHT, LEFT = 0, 1
"""A's action ids."""
B_FIRST = 2
"""The action id of B's first action (b0)."""
MAX_ACTIONS_B = 1_000
"""Most actions B may have (the picture stays readable, the model tiny)."""


@dataclass(frozen=True)
class MaxBiasSettings:
    """Everything that defines Example 6.7."""

    n_actions_b: int = 10
    """Actions in state B, each ending the episode with a normally distributed reward (10 in figure 6.5)."""
    mean: float = -0.1
    """Mean reward of B's actions (-0.1 in the book: left from A is worse than right's 0)."""
    sd: float = 1.0
    """Standard deviation of B's rewards (1 in the book); 0 makes them exact."""
    discount: float = 1.0
    """Discount gamma (1 in the book)."""

    def validate(self) -> "MaxBiasSettings":
        """Self, or a FieldError naming the bad field."""
        n = self.n_actions_b
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_ACTIONS_B:
            raise FieldError("n_actions_b", f"must be a whole number in 1..{MAX_ACTIONS_B}, got {n!r}")
        check_numbers(self, (("mean", -1e6, 1e6), ("sd", 0.0, 1e6), ("discount", 0.0, 1.0)))
        return self


def compile_maxbias(settings: MaxBiasSettings) -> TabularMDP:
    """The MDP of the module docstring: A (right -> end, left -> B, rewards 0), B (n actions -> end, mean
    reward ``mean``), with the standard deviation ``sd`` of B's rewards in ``reward_sd``."""
    valid = settings.validate()
    n = int(valid.n_actions_b)
    src = [A, A] + [B] * n
    act = [RIGHT, LEFT] + [B_FIRST + k for k in range(n)]
    dst = [END, B] + [END] * n
    rew = [0.0, 0.0] + [float(valid.mean)] * n
    mdp = TabularMDP.from_transitions(
        3, B_FIRST + n, src, act, dst, np.ones(len(src)), rew, discount=float(valid.discount), terminal=[END],
        state_labels=("A", "B", "end"), action_labels=action_names(n), mdptype="episodic")
    if valid.sd <= 0:
        return mdp
    sd = np.where(np.asarray(mdp.row_state)[transition_rows(mdp)] == B, float(valid.sd), 0.0)
    return replace(mdp, reward_sd=sd)


def action_names(n_b: int) -> tuple[str, ...]:
    """Every action id's name: A's right and left, then B's b0 .. b(n-1)."""
    return ("right", "left", *(f"b{k}" for k in range(int(n_b))))


def transition_rows(mdp: TabularMDP) -> np.ndarray:
    """int64 (n_transitions): the row of each transition."""
    return np.repeat(np.arange(mdp.n_rows), np.diff(np.asarray(mdp.row_ptr)))


def left_share(q: np.ndarray, mdp: TabularMDP) -> float:
    """1 when the greedy action of the learned ``q`` (per row) in A is left, 0.5 on an exact tie, else 0."""
    r0 = int(mdp.state_ptr[A])
    right, left = float(q[r0 + RIGHT]), float(q[r0 + LEFT])
    return 1.0 if left > right else 0.5 if left == right else 0.0


__all__ = ["A", "B", "B_FIRST", "END", "LEFT", "MAX_ACTIONS_B", "MaxBiasSettings", "RIGHT", "action_names",
           "compile_maxbias", "left_share", "transition_rows"]
