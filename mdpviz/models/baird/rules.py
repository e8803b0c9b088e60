"""Baird's counterexample: Sutton and Barto's Example 11.1 (figure 11.1), compiled into the one tabular MDP.

Seven states: six upper ones in a row and a seventh below them. Every state has two actions. The dashed action
takes the system to one of the six upper states, each with probability 1/6; the solid action takes it to the
seventh state. Every reward is 0, so the true value of every state is 0 under any policy, and the discount is
0.99. The task is continuing: there is no terminal state.

The behaviour policy takes dashed with probability 6/7 and solid with 1/7, so the next state is uniform over
the seven and the on-policy distribution of the behaviour is uniform. The target policy always takes solid,
so its on-policy distribution sits entirely on the seventh state.

The value is approximated linearly with eight weights: the upper state i has v = 2 w_i + w_8 and the seventh
has v = w_7 + 2 w_8 (the feature vectors (0, .., 2, .., 0, 1) and (0, 0, 0, 0, 0, 0, 1, 2)). Weights exist that
give the exact answer (w = 0, and every w with v = 0 in all seven states) and the seven feature vectors are
linearly independent, so this looks like an easy case for linear function approximation. Yet off-policy
semi-gradient TD from the book's initial weights (1, 1, 1, 1, 1, 1, 10, 1) diverges, whatever its positive step
size: function approximation, bootstrapping and off-policy training together, the deadly triad (section 11.3).

States: 0 .. 5 = the upper states 1 .. 6, 6 = the seventh; actions: 0 = dashed, 1 = solid.
Plain numpy; never imports Qt.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mdpviz.core.mdp import TabularMDP
from mdpviz.models.kit.game.codec import FieldError, check_numbers

UPPER = 6
"""The number of upper states (ids 0 .. 5)."""
LOWER = 6
"""The seventh (lower) state's id."""
N_STATES = 7
"""States in all."""
DASHED, SOLID = 0, 1
"""The action ids."""
N_WEIGHTS = 8
"""The book's number of weights."""
BOOK_WEIGHTS = (1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 10.0, 1.0)
"""The book's initial weights (section 11.2: w = (1, 1, 1, 1, 1, 1, 10, 1))."""


@dataclass(frozen=True)
class BairdSettings:
    """Everything that defines Example 11.1 beyond its fixed seven states and eight features."""

    discount: float = 0.99
    """Discount gamma (0.99 in the book)."""
    behaviour_dashed: float = 6.0 / 7.0
    """Probability that the behaviour policy takes the dashed action (6/7 in the book: the next state is then
    uniform over the seven). The target policy always takes solid."""
    initial_weights: tuple[float, ...] = BOOK_WEIGHTS
    """The eight weights the learners start from ((1, 1, 1, 1, 1, 1, 10, 1) in the book; how fast, and whether,
    off-policy TD diverges depends on them)."""

    def validate(self) -> "BairdSettings":
        """Self, or a FieldError naming the bad field."""
        check_numbers(self, (("discount", 0.0, 1.0), ("behaviour_dashed", 0.0, 1.0)))
        w = self.initial_weights
        if not isinstance(w, (tuple, list)) or len(w) != N_WEIGHTS:
            raise FieldError("initial_weights", f"must be a list of {N_WEIGHTS} numbers, got {w!r}")
        for x in w:
            if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x) or abs(x) > 1e12:
                raise FieldError("initial_weights", f"must be finite numbers of at most 1e12, got {x!r}")
        return self


def compile_baird(settings: BairdSettings) -> TabularMDP:
    """The MDP of the module docstring: from every state, dashed to each upper state with probability 1/6,
    solid to the seventh; every reward 0; no terminal state."""
    valid = settings.validate()
    src, act, dst, prob = [], [], [], []
    for s in range(N_STATES):
        for t in range(UPPER):
            src.append(s), act.append(DASHED), dst.append(t), prob.append(1.0 / UPPER)
        src.append(s), act.append(SOLID), dst.append(LOWER), prob.append(1.0)
    return TabularMDP.from_transitions(
        N_STATES, 2, src, act, dst, prob, np.zeros(len(src)), discount=float(valid.discount), terminal=[],
        state_labels=state_labels(), action_labels=("dashed", "solid"), mdptype="continuing")


def state_labels() -> tuple[str, ...]:
    """The states' names, "1" .. "7" as figure 11.1 numbers them."""
    return tuple(str(i + 1) for i in range(N_STATES))


def book_features() -> np.ndarray:
    """float64 (7, 8), read-only: the feature vectors of figure 11.1 (upper state i: 2 at weight i and 1 at weight
    8; the seventh: 1 at weight 7 and 2 at weight 8), so v(i) = 2 w_i + w_8 and v(7) = w_7 + 2 w_8."""
    X = np.zeros((N_STATES, N_WEIGHTS))
    for i in range(UPPER):
        X[i, i], X[i, 7] = 2.0, 1.0
    X[LOWER, 6], X[LOWER, 7] = 1.0, 2.0
    X.setflags(write=False)
    return X


def policy_rows(mdp: TabularMDP, dashed: float) -> np.ndarray:
    """float64 (n_rows): each row's probability under the policy that takes dashed with probability ``dashed``
    and solid otherwise."""
    acts = np.asarray(mdp.row_action)
    out = np.where(acts == DASHED, float(dashed), 1.0 - float(dashed))
    out.setflags(write=False)
    return out


def feature_names() -> tuple[str, ...]:
    """What each state's value is in the weights, as figure 11.1 writes it in its circles."""
    return tuple([f"2w{i + 1}+w8" for i in range(UPPER)] + ["w7+2w8"])


__all__ = ["BOOK_WEIGHTS", "BairdSettings", "DASHED", "LOWER", "N_STATES", "N_WEIGHTS", "SOLID", "UPPER",
           "book_features", "compile_baird", "feature_names", "policy_rows", "state_labels"]
