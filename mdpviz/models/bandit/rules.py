"""The Bernoulli bandit as a belief MDP: Sutton and Barto's chapter 2 problem with the exact Bayes-optimal answer.

A k-armed bandit whose arm i pays 1 with an unknown probability p_i and 0 otherwise. Before any pull each p_i is
Beta(a, b) (the prior; Beta(1, 1) is uniform), independently. The agent pulls one arm per step, ``horizon``
times, and wants the most total reward. It cannot know the p_i, but after s_i successes and f_i failures of
arm i it believes p_i is Beta(a + s_i, b + f_i), whose mean is (a + s_i) / (a + b + s_i + f_i).

So a state is a belief: the success and failure counts of every arm, "t=2 s=(1,0) f=(0,1)" after two pulls
(one success of arm 1, one failure of arm 2). Pulling arm i succeeds with that posterior mean, pays 1 and adds
a success, or pays 0 and adds a failure. After ``horizon`` pulls the belief is terminal. The optimal policy
of this MDP is the Bayes-optimal policy: no strategy earns more in expectation over arms drawn from the prior,
and its value at the prior's belief is that best expected total reward. Exploration is not a heuristic
here: pulling a less-known arm is worth what the information it gives is worth later, and the Bellman
equation (Sutton and Barto eq. 4.10) prices it exactly.

The transitions pay the sampled outcome (1 on the success branch, 0 on the failure branch), not the pull's
expected reward on both: the values are the same, and an episode played on the MDP is a real run of the
bandit with arms drawn from the prior. The model has C(horizon + 2k, 2k) beliefs; it is acyclic (every pull
adds one count), so backward induction solves it one layer of pulls at a time, from the last.

Plain numpy; never imports Qt.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mdpviz.core.mdp import TabularMDP
from mdpviz.models.kit.game.codec import FieldError
from mdpviz.solvers import bandit_exact as be

MAX_ARMS = 10
"""Most arms the game takes."""
MAX_BELIEFS = 200_000
"""Most beliefs the game builds (the window solves and draws them; ``mdpviz bandit --exact`` goes to
:data:`~mdpviz.solvers.bandit_exact.MAX_BELIEF_STATES`)."""
LABELLED = 50_000
"""Beliefs up to which the model carries a label per state (beyond, names are made on demand)."""
MAX_TREE_NODES = 130
"""Most beliefs the board's tree draws at once (beyond, it draws fewer pulls ahead of its root): two arms over
6 pulls have 126 beliefs before the horizon, drawn whole."""


@dataclass(frozen=True)
class BanditSettings:
    """Everything that defines the Bernoulli bandit's belief MDP."""

    arms: int = 2
    """k, the number of arms (each pays 1 or 0)."""
    horizon: int = 6
    """T, the number of pulls; the beliefs after T pulls are terminal."""
    prior: tuple[float, float] = (1.0, 1.0)
    """(a, b): every arm's success probability is a priori Beta(a, b); (1, 1) is uniform."""
    discount: float = 1.0
    """Discount gamma per pull (1: the total reward over the horizon)."""

    def validate(self) -> "BanditSettings":
        """Self, or a FieldError naming the bad field."""
        for name, hi in (("arms", MAX_ARMS), ("horizon", 1_000)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= hi:
                raise FieldError(name, f"must be a whole number in 1..{hi}, got {v!r}")
        n = math.comb(self.horizon + 2 * self.arms, 2 * self.arms)
        if n > MAX_BELIEFS:
            raise FieldError("horizon", f"{self.arms} arms over {self.horizon} pulls make {n:,} beliefs, over the "
                                        f"game's {MAX_BELIEFS:,}: fewer arms or pulls")
        try:
            be.check_prior(self.prior, name="prior")
        except ValueError as e:
            raise FieldError("prior", str(e).removeprefix("prior ")) from None
        d = self.discount
        if isinstance(d, bool) or not isinstance(d, (int, float)) or not math.isfinite(d) or not 0.0 <= d <= 1.0:
            raise FieldError("discount", f"must be a number in [0, 1], got {d!r}")
        return self


def compile_bandit(settings: BanditSettings) -> TabularMDP:
    """The belief MDP (module docstring; :func:`mdpviz.solvers.bandit_exact.belief_mdp`): state 0 the prior's
    belief, action i = pull arm i + 1."""
    valid = settings.validate()
    n = math.comb(valid.horizon + 2 * valid.arms, 2 * valid.arms)
    return be.belief_mdp(valid.arms, valid.horizon, prior=tuple(float(x) for x in valid.prior),
                         discount=float(valid.discount), labels=n <= LABELLED)


def beliefs_of(settings: BanditSettings) -> be.Beliefs:
    """The beliefs of the settings, numbered as the model's states."""
    return be.beliefs(int(settings.arms), int(settings.horizon))


def state_label(settings: BanditSettings, s: int) -> str:
    """State ``s`` in words ("t=2 s=(1,0) f=(0,1)")."""
    return beliefs_of(settings).label(int(s))


# ====================================================================== the board's tree (pure)
@dataclass(frozen=True, eq=False)
class BeliefTree:
    """The beliefs before the horizon reachable from a root within ``depth`` pulls, placed in rows by pulls (a
    DAG: two orders of the same outcomes meet in one belief) and the pulls between them. The beliefs at the
    horizon are not drawn: they are worth 0."""

    root: int
    """The root belief's state number."""
    depth: int
    """Pulls drawn below the root."""
    states: np.ndarray
    """int64 (n): the drawn beliefs."""
    x: np.ndarray
    """float64 (n): each belief's place in its row, in [0, 1] (a more-pulled arm 1 to the left)."""
    row: np.ndarray
    """int64 (n): pulls below the root (0 at the root)."""
    edge_from: np.ndarray
    """int64 (e): index into ``states`` of each pull's belief."""
    edge_to: np.ndarray
    """int64 (e): index into ``states`` of the belief it leads to."""
    edge_arm: np.ndarray
    """int64 (e): the arm pulled (from 0)."""
    edge_success: np.ndarray
    """bool (e): the pull succeeded."""
    complete: bool
    """True when the tree reaches the last pull (every belief below the root before the horizon is drawn)."""


def _below(bel: be.Beliefs, counts: np.ndarray, d: int) -> int:
    """How many beliefs lie within ``d`` pulls of one with ``counts``."""
    return math.comb(d + 2 * bel.arms, 2 * bel.arms)


def belief_tree(settings: BanditSettings, root: int = 0, *, max_nodes: int = MAX_TREE_NODES) -> BeliefTree:
    """The :class:`BeliefTree` from ``root`` as deep as ``max_nodes`` beliefs allow (at least one pull while
    one is left before the horizon): the whole belief MDP for two arms over a few pulls, else the next pulls of
    ``root``."""
    bel = beliefs_of(settings)
    k = bel.arms
    root = int(root) if 0 <= int(root) < bel.n_states else 0
    c0 = np.asarray(bel.counts[root], dtype=np.int64)
    left = bel.horizon - int(c0.sum()) - 1  # pulls to the last belief before the horizon
    depth = 0
    while depth < left and _below(bel, c0, depth + 1) <= max_nodes:
        depth += 1
    if depth == 0 and left > 0:
        depth = 1
    rows = [c0[None, :]]
    for _ in range(depth):
        prev = rows[-1]
        nxt = np.repeat(prev, 2 * k, axis=0)
        nxt[np.arange(len(nxt)), np.tile(np.arange(2 * k), len(prev))] += 1
        rows.append(np.unique(nxt, axis=0))
    counts = np.concatenate(rows)
    row = np.concatenate([np.full(len(r), i) for i, r in enumerate(rows)])
    states = bel.index(counts[:, 0::2], counts[:, 1::2])
    # within a row: arm 1 pulled more to the left, then more successes to the left, then arm 2 alike ...
    pulls = counts[:, 0::2] + counts[:, 1::2]
    keys = []
    for i in range(k - 1, -1, -1):
        keys += [-counts[:, 2 * i], -pulls[:, i]]
    order = np.lexsort([*keys, row])
    counts, row, states = counts[order], row[order], states[order]
    x = np.zeros(len(states))
    for r in range(depth + 1):
        where = np.flatnonzero(row == r)
        x[where] = (np.arange(where.size) + 0.5) / where.size
    pos = {int(s): i for i, s in enumerate(states)}
    ef, et, ea, es = [], [], [], []
    for i in np.flatnonzero(row < depth):
        for arm in range(k):
            for success in (True, False):
                c = counts[i].copy()
                c[2 * arm + (0 if success else 1)] += 1
                ef.append(int(i))
                et.append(pos[int(bel.index(c[0::2], c[1::2]))])
                ea.append(arm)
                es.append(success)
    as_int = lambda v: np.asarray(v, dtype=np.int64)  # noqa: E731
    return BeliefTree(root=root, depth=depth, states=as_int(states), x=x, row=as_int(row), edge_from=as_int(ef),
                      edge_to=as_int(et), edge_arm=as_int(ea), edge_success=np.asarray(es, dtype=bool),
                      complete=depth >= left)


__all__ = ["BanditSettings", "BeliefTree", "LABELLED", "MAX_ARMS", "MAX_BELIEFS", "MAX_TREE_NODES", "belief_tree",
           "beliefs_of", "compile_bandit", "state_label"]
