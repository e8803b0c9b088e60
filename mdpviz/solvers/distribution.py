"""The exact distribution of how long a game lasts under a policy: :func:`turn_distribution`.

Under a fixed policy a model that ends is an absorbing Markov chain, and the number of turns until it
ends has a distribution that follows from the chain alone, with no sampling: let ``x_k`` be the
probability mass of the live states reached after exactly ``k`` turns; a transition that counts
``w`` turns carries mass from level ``k`` to level ``k + w``, and the mass that enters a terminal
state at level ``k`` is the probability that the game ends after exactly ``k`` turns. Transitions
that count no turn (snakes and ladders' bonus square: a free throw) stay on their level; their
closure is one sparse linear solve per level, ``x_k = (I - P_0^T)^{-1} b_k``.

What a turn is: in a model that minimises a cost whose transitions cost whole numbers of turns (snakes
and ladders: 1 per throw, 2 for a prison square, 0 for a bonus throw) the cost itself, so that the
distribution's mean is the expected-turns figure the solver prints; in any other model one move per
transition. The levels run until ``1 - cover`` of the mass is left (default 1e-9); what is left is the
``tail`` (with the mass of the states from which the policy never ends, ``never``). Plain numpy/scipy.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mdpviz.models.mdp import TabularMDP

COVER = 1.0 - 1e-9
"""The levels stop once this much of the probability mass has ended."""
MAX_TURNS = 1_000_000
"""At most this many levels (a policy that ends very slowly leaves the rest in ``tail``)."""


@dataclass(frozen=True)
class TurnDistribution:
    """P(the game ends after exactly k turns) for k = 0, 1, ..., and what that leaves."""

    probabilities: np.ndarray
    """float64: entry k is the probability that the game ends after exactly k turns (entry 0: k = 0)."""
    tail: float
    """The mass not in :attr:`probabilities`: games that last longer, or never end."""
    never: float
    """The part of :attr:`tail` that never ends under the policy (a loop with no way out)."""
    counts: str
    """What is counted: "turns" (as the model's cost counts them) or "moves" (one per transition)."""

    def cdf(self) -> np.ndarray:
        """P(done within k turns), k = 0, 1, ..."""
        return np.cumsum(self.probabilities)

    def mean(self) -> float:
        """The mean of the covered mass, sum k p_k (the expected turns, up to the tail's share)."""
        return float(np.arange(self.probabilities.size) @ self.probabilities)

    def quantile(self, q: float) -> int | None:
        """The smallest k with P(done within k) >= q; None when the covered mass does not reach q."""
        c = self.cdf()
        i = int(np.searchsorted(c, q - 1e-12))
        return i if i < c.size else None


def turn_weights(mdp: TabularMDP) -> tuple[np.ndarray | None, str]:
    """(turns per transition, what a turn is): the costs themselves when the model minimises a cost of
    whole non-negative numbers, else None (one move per transition)."""
    r = np.asarray(mdp.reward)
    if mdp.objective == "min" and r.size and np.all(r >= 0) and np.all(r == np.round(r)) and r.max() <= 1_000:
        return r.astype(np.int64), "turns"
    return None, "moves"


def turn_distribution(mdp: TabularMDP, policy: np.ndarray, start: int, *, cover: float = COVER,
                      max_turns: int = MAX_TURNS) -> TurnDistribution:
    """The exact distribution of the number of turns from ``start`` until a terminal state, under
    ``policy``: an action id per state, or an (n_states x n_actions) matrix of action probabilities
    (terminal states ignored). ValueError: a policy that does not fit the model, or a start out of range."""
    import scipy.sparse as sp
    import scipy.sparse.linalg as spla

    n = mdp.n_states
    start = int(start)
    if not 0 <= start < n:
        raise ValueError(f"start state {start} is out of range 0..{n - 1}")
    weights, counts = turn_weights(mdp)
    if mdp.terminal[start]:
        return TurnDistribution(np.ones(1), 0.0, 0.0, counts)
    live = ~np.asarray(mdp.terminal, dtype=bool)
    row_p = _row_probabilities(mdp, policy)
    chosen = np.flatnonzero(row_p > 0)
    lens = np.diff(mdp.row_ptr)[chosen]
    starts = mdp.row_ptr[chosen]
    idx = np.repeat(starts - np.r_[0, np.cumsum(lens)[:-1]], lens) + np.arange(int(lens.sum()))
    src = np.repeat(np.asarray(mdp.row_state)[chosen], lens)
    dst = np.asarray(mdp.dst)[idx]
    prob = np.asarray(mdp.prob)[idx] * np.repeat(row_p[chosen], lens)
    w = np.ones(idx.size, dtype=np.int64) if weights is None else weights[idx]
    never = _never_ends(n, src, dst, prob, live, start)
    to_live = live[dst]
    levels = sorted(set(int(x) for x in np.unique(w)))
    # per weight: live -> live transposed (mass propagation) and live -> terminal row sums (absorption)
    move = {k: sp.csr_matrix((prob[(w == k) & to_live], (dst[(w == k) & to_live], src[(w == k) & to_live])),
                             shape=(n, n)) for k in levels}
    end = {k: np.bincount(src[(w == k) & ~to_live], weights=prob[(w == k) & ~to_live], minlength=n) for k in levels}
    closure = None
    if 0 in levels and move[0].nnz:
        closure = spla.splu((sp.identity(n, format="csc") - move[0].tocsc()))
    wmax = max(levels)
    incoming = [np.zeros(n) for _ in range(wmax + 1)]  # ring buffer: mass arriving at levels k..k+wmax
    incoming[0][start] = 1.0
    out: list[float] = []
    ended = 0.0
    target = min(cover, 1.0 - never)
    k = 0
    while k <= max_turns:
        x = incoming[k % (wmax + 1)]
        incoming[k % (wmax + 1)] = np.zeros(n)
        if closure is not None and x.any():
            x = closure.solve(x)
        while len(out) <= k + wmax:
            out.append(0.0)
        for wk in levels:
            if x.any():
                out[k + wk] += float(end[wk] @ x)
                if wk > 0:
                    incoming[(k + wk) % (wmax + 1)] += move[wk] @ x
        ended += out[k]
        if ended >= target or not any(b.any() for b in incoming):
            break
        k += 1
    p = np.asarray(out, dtype=np.float64)
    nz = np.flatnonzero(p)
    p = p[: int(nz[-1]) + 1] if nz.size else p[:1]  # (mass already on its way to a terminal state is in)
    tail = max(0.0, 1.0 - float(p.sum()))
    return TurnDistribution(p, tail, never, counts)


def _row_probabilities(mdp: TabularMDP, policy: np.ndarray) -> np.ndarray:
    """The probability of each row (state, action) under ``policy`` (0 for terminal states' rows): the
    policies' row weights of policy evaluation, summed over states (ValueError for a policy that does
    not fit, naming the first state where it does not)."""
    from mdpviz.solvers.policy_iteration import row_weights_deterministic, row_weights_stochastic
    from mdpviz.solvers.sweep import policy_to_rows

    pol = np.asarray(policy)
    if pol.ndim == 1:
        W = row_weights_deterministic(mdp, policy_to_rows(mdp, pol))
    else:
        W = row_weights_stochastic(mdp, pol)
    return np.asarray(W.sum(axis=0)).ravel()


def _never_ends(n: int, src: np.ndarray, dst: np.ndarray, prob: np.ndarray, live: np.ndarray, start: int) -> float:
    """The probability that the chain from ``start`` never reaches a terminal state (exact: the mass that
    reaches the states from which no terminal state can be reached)."""
    import scipy.sparse as sp
    import scipy.sparse.csgraph as csg
    import scipy.sparse.linalg as spla

    keep = prob > 0
    terms = np.flatnonzero(~live)
    # reversed edges (next state -> state), and a node n with an edge to every terminal state
    frm = np.r_[dst[keep], np.full(terms.size, n)]
    to = np.r_[src[keep], terms]
    g = sp.csr_matrix((np.ones(frm.size), (frm, to)), shape=(n + 1, n + 1))
    reach = np.zeros(n + 1, dtype=bool)
    reach[csg.breadth_first_order(g, n, directed=True, return_predecessors=False)] = True
    reach = reach[:n]
    stuck = live & ~reach
    if not stuck.any():
        return 0.0
    if stuck[start]:
        return 1.0
    # probability of reaching a stuck state from start = hitting probability of the stuck set
    A = sp.csr_matrix((prob, (src, dst)), shape=(n, n))
    free = live & ~stuck
    fi = np.flatnonzero(free)
    M = sp.identity(fi.size, format="csc") - A[fi][:, fi].tocsc()
    b = np.asarray(A[fi][:, np.flatnonzero(stuck)].sum(axis=1)).ravel()
    h = np.atleast_1d(spla.spsolve(M, b)) if fi.size else np.zeros(0)
    return float(h[np.searchsorted(fi, start)])


__all__ = ["COVER", "MAX_TURNS", "TurnDistribution", "turn_distribution", "turn_weights"]
