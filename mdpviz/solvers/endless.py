"""Where a policy never ends: the states from which it reaches a terminal state with probability < 1.

Under a fixed policy an MDP is a Markov chain P_pi. With discount 1 its total reward is finite from
every state only when play ends (reaches a terminal state) with probability 1, or when what it can
be trapped in collects nothing. The trap is a *closed class* of the chain: a strongly connected
component that no edge of positive probability leaves and that holds no terminal state (Kemeny and
Snell's recurrent class; Bertsekas and Tsitsiklis call a policy without one *proper*). A state
reaches a terminal state with probability < 1 exactly when it can reach such a class, so

1. the strongly connected components of the chain's support graph (scipy.sparse.csgraph, Tarjan's
   algorithm: linear in states + transitions) give the closed classes, and
2. one breadth-first search backwards from them gives every state that may fall into one.

:func:`never_ends` is that answer for a policy (an action id per state), :func:`chain_never_ends` for
any chain (a stochastic policy's too), :func:`trap_classes` the closed classes themselves, and
:func:`infinite_states` the states whose total reward at discount 1 has no finite value (they can
reach a trap whose expected reward per step is not zero). Pure numpy and scipy, no Qt.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import numpy as np

from mdpviz.core.mdp import TabularMDP
from mdpviz.solvers.sweep import policy_to_rows

if TYPE_CHECKING:  # pragma: no cover
    import scipy.sparse as sp

ZERO_REWARD_TOL = 1e-12
"""A trap whose expected rewards per step are all within this of 0 collects nothing, for ever."""


def policy_matrix(mdp: TabularMDP, policy: np.ndarray) -> "sp.csr_matrix":
    """P_pi (n_states x n_states, CSR) of the deterministic ``policy`` (an action id per state, -1 for
    terminal states: they have no row). ValueError naming a state whose action is not legal there."""
    import scipy.sparse as sp

    rows = policy_to_rows(mdp, policy)
    live = np.flatnonzero(rows >= 0)
    rows = rows[live]
    W = sp.csr_matrix((np.ones(live.size), (live, rows)), shape=(mdp.n_states, mdp.n_rows))
    return (W @ mdp.matrix).tocsr()


def _edges(P_pi: "sp.spmatrix", terminal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(src, dst) of the chain's edges of positive probability; terminal states have none (they end)."""
    coo = P_pi.tocoo()
    keep = (coo.data > 0) & ~terminal[coo.row]
    return np.asarray(coo.row[keep], dtype=np.int64), np.asarray(coo.col[keep], dtype=np.int64)


def _graph(src: np.ndarray, dst: np.ndarray, n: int) -> "sp.csr_matrix":
    """The 0/1 graph of the edges ``src -> dst`` on ``n`` nodes (CSR)."""
    import scipy.sparse as sp

    return sp.csr_matrix((np.ones(src.size, dtype=np.int8), (src, dst)), shape=(n, n))


def trap_classes(P_pi: "sp.spmatrix", terminal: np.ndarray) -> np.ndarray:
    """int64 (n_states): the closed class each state belongs to (0, 1, ... in order of their lowest
    state), -1 for the states in none: the chain's strongly connected components without a terminal
    state that no edge of positive probability leaves (a state with no edge at all counts as one)."""
    import scipy.sparse.csgraph as csgraph

    terminal = np.asarray(terminal, dtype=bool)
    n = terminal.size
    src, dst = _edges(P_pi, terminal)
    n_comp, comp = csgraph.connected_components(_graph(src, dst, n), directed=True, connection="strong")
    closed = np.ones(n_comp, dtype=bool)
    closed[comp[src[comp[src] != comp[dst]]]] = False  # an edge out of the class
    has_terminal = np.zeros(n_comp, dtype=bool)
    has_terminal[comp[terminal]] = True
    # a non-terminal state without any edge has nowhere to go: it never ends (mdp.py refuses such states,
    # but a chain of weights may drop them); it is its own closed class, as the component finder says
    trap = closed & ~has_terminal
    out = np.full(n, -1, dtype=np.int64)
    in_trap = trap[comp]
    if in_trap.any():
        ids = comp[in_trap]
        first = np.unique(ids, return_index=True)
        order = np.argsort(np.flatnonzero(in_trap)[first[1]], kind="stable")  # by their lowest state
        renum = np.empty(first[0].size, dtype=np.int64)
        renum[order] = np.arange(first[0].size)
        out[in_trap] = renum[np.searchsorted(first[0], ids)]
    return out


def reaching(P_pi: "sp.spmatrix", terminal: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """bool (n_states): the states from which the chain reaches a state of ``targets`` (bool) with
    positive probability, the targets included (one breadth-first search backwards, scipy's csgraph)."""
    import scipy.sparse.csgraph as csgraph

    terminal = np.asarray(terminal, dtype=bool)
    targets = np.asarray(targets, dtype=bool)
    n = terminal.size
    out = targets.copy()
    if not targets.any():
        return out
    src, dst = _edges(P_pi, terminal)
    hub = np.flatnonzero(targets)  # one extra node n with an edge to every target: one search from it
    g = _graph(np.r_[dst, np.full(hub.size, n)], np.r_[src, hub], n + 1)  # backwards: t -> s for each s -> t
    seen = csgraph.breadth_first_order(g, n, directed=True, return_predecessors=False)
    out[seen[seen < n]] = True
    return out


def chain_never_ends(P_pi: "sp.spmatrix", terminal: np.ndarray) -> np.ndarray:
    """bool (n_states): the states from which the chain ``P_pi`` reaches a terminal state with
    probability < 1 (it can reach a closed class without a terminal state: :func:`trap_classes`)."""
    return reaching(P_pi, terminal, trap_classes(P_pi, terminal) >= 0)


def never_ends(mdp: TabularMDP, policy: np.ndarray) -> np.ndarray:
    """bool (n_states): the states from which the deterministic ``policy`` (an action id per state)
    reaches a terminal state with probability < 1: the policy may go on for ever from them. At
    discount 1 their expected total reward is finite only where the loop collects nothing
    (:func:`infinite_states`). Linear time in states + transitions."""
    return chain_never_ends(policy_matrix(mdp, policy), np.asarray(mdp.terminal, dtype=bool))


def infinite_states(P_pi: "sp.spmatrix", r_pi: np.ndarray, terminal: np.ndarray,
                    *, tol: float = ZERO_REWARD_TOL) -> tuple[np.ndarray, np.ndarray]:
    """(bool (n_states) ``infinite``, bool (n_states) ``free``) of the chain at discount 1: ``free`` are
    the states of closed classes without a terminal state whose expected reward per step ``r_pi`` is 0
    everywhere (they collect nothing for ever: worth exactly 0, as if terminal); ``infinite`` are the
    states that can reach a closed class with a non-zero reward somewhere in it (their expected total
    reward diverges, or oscillates for ever: it has no value)."""
    terminal = np.asarray(terminal, dtype=bool)
    r = np.asarray(r_pi, dtype=np.float64)
    cls = trap_classes(P_pi, terminal)
    n_cls = int(cls.max(initial=-1)) + 1
    paying = np.zeros(n_cls, dtype=bool)
    in_cls = cls >= 0
    paying[cls[in_cls & (np.abs(r) > tol)]] = True
    bad = np.zeros(terminal.size, dtype=bool)
    bad[in_cls] = paying[cls[in_cls]]
    free = in_cls & ~bad
    return reaching(P_pi, terminal, bad), free


def name_states(mdp: TabularMDP, states: Sequence[int] | np.ndarray, *, limit: int = 8) -> str:
    """"(1,2), (1,3), (2,2) and 4 more": the model's labels of ``states`` (their numbers without labels)."""
    states = [int(s) for s in np.asarray(states).ravel()]
    labels = mdp.state_labels
    names = [labels[s] if labels else str(s) for s in states[:limit]]
    more = f" and {len(states) - limit} more" if len(states) > limit else ""
    return ", ".join(names) + more


__all__ = ["ZERO_REWARD_TOL", "chain_never_ends", "infinite_states", "name_states", "never_ends", "policy_matrix",
           "reaching", "trap_classes"]
