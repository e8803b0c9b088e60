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
``tail`` (with the mass of the states from which the policy never ends, ``never``).

:func:`return_distribution` does the same for the return itself, sum_t gamma^t r_t, where it takes
finitely many values (tic-tac-toe's win/draw/loss, a grid world's exits reached after k moves): the
mass is carried level by level as atoms (state, return so far), atoms with the same state and the
same return (to 1e-11 of the return's scale) merged, until ``cover`` of the mass has ended. A return
that takes too many values to list (a random walk whose every path has its own sum) stops at a budget
of atoms counted, not timed, and says so. Plain numpy/scipy.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mdpviz.core.mdp import TabularMDP

COVER = 1.0 - 1e-9
"""The levels stop once this much of the probability mass has ended."""
MAX_TURNS = 1_000_000
"""At most this many levels (a policy that ends very slowly leaves the rest in ``tail``)."""
MAX_ATOMS = 50_000
"""A return distribution stops when it would carry more (state, return) atoms than this at once."""
MAX_WORK = 5_000_000
"""A return distribution stops after expanding this many (atom, outcome) pairs in all."""


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


@dataclass(frozen=True)
class ReturnDistribution:
    """P(the return from the start equals v) for each value v it takes, and what that leaves."""

    values: np.ndarray
    """float64, ascending: the distinct returns of the games that ended within the levels computed."""
    probabilities: np.ndarray
    """float64: entry i is the probability that a game ends with return ``values[i]``."""
    tail: float
    """The mass not in :attr:`probabilities`: games still going when the levels stopped, or never ending."""
    never: float
    """The part of :attr:`tail` that never ends under the policy."""
    moves: int
    """Levels (moves) computed."""
    stopped: str = ""
    """Why the levels stopped before ``cover`` of the mass had ended ("" when they did not): the return
    takes too many values to list."""

    def mean(self) -> float:
        """The mean of the covered mass, sum v p_v (the policy's value, up to the tail's share)."""
        return float(self.values @ self.probabilities)

    def cdf(self) -> np.ndarray:
        """P(return <= values[i]) for each listed value."""
        return np.cumsum(self.probabilities)

    def quantile(self, q: float) -> float | None:
        """The smallest listed v with P(return <= v) >= q; None when the covered mass does not reach q."""
        c = self.cdf()
        i = int(np.searchsorted(c, q - 1e-12))
        return float(self.values[i]) if i < c.size else None


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
    start = _checked_start(mdp, start)
    weights, counts = turn_weights(mdp)
    if mdp.terminal[start]:
        return TurnDistribution(np.ones(1), 0.0, 0.0, counts)
    live = ~np.asarray(mdp.terminal, dtype=bool)
    idx, src, dst, prob = _policy_chain(mdp, policy)
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


def return_distribution(mdp: TabularMDP, policy: np.ndarray, start: int, *, cover: float = COVER,
                        max_moves: int = MAX_TURNS, max_atoms: int = MAX_ATOMS,
                        max_work: int = MAX_WORK) -> ReturnDistribution:
    """The exact distribution of the return sum_t gamma^t r_t from ``start`` until a terminal state,
    under ``policy`` (as :func:`turn_distribution` takes it). The levels stop once ``cover`` of the mass
    has ended (or all the mass that can end has), or when the return takes too many values: more than
    ``max_atoms`` (state, return) pairs at once or ``max_work`` expanded in all (``stopped`` says which;
    what has ended by then is listed). ValueError: a policy that does not fit, a start out of range."""
    n = mdp.n_states
    start = _checked_start(mdp, start)
    if mdp.terminal[start]:
        return ReturnDistribution(np.zeros(1), np.ones(1), 0.0, 0.0, 0)
    live = ~np.asarray(mdp.terminal, dtype=bool)
    idx, src, dst, prob = _policy_chain(mdp, policy)  # (grouped by source state: the rows are in state order)
    rew = np.asarray(mdp.reward, dtype=np.float64)[idx]
    keep = prob > 0
    src, dst, prob, rew = src[keep], dst[keep], prob[keep], rew[keep]
    never = _never_ends(n, src, dst, prob, live, start)
    ptr = np.r_[0, np.cumsum(np.bincount(src, minlength=n))]
    gamma = float(mdp.discount)
    top = float(np.abs(rew).max()) if rew.size else 0.0
    horizon = 1.0 / (1.0 - gamma) if gamma < 1.0 else 1_000.0
    unit = 1e-11 * max(1.0, top * horizon)  # returns closer than this are one value
    S, G, M = np.array([start], dtype=np.int64), np.zeros(1), np.ones(1)
    out_v: list[np.ndarray] = []
    out_p: list[np.ndarray] = []
    ended, target, disc, work, k, stopped = 0.0, min(cover, 1.0 - never), 1.0, 0, 0, ""
    while S.size and k < max_moves:
        cnt = ptr[S + 1] - ptr[S]
        total = int(cnt.sum())
        work += total
        if work > max_work:
            stopped = f"the return takes too many values to list (over {max_work:,} paths expanded)"
            break
        rep = np.repeat(np.arange(S.size), cnt)
        j = np.repeat(ptr[S] - np.r_[0, np.cumsum(cnt)[:-1]], cnt) + np.arange(total)
        nd, ng, nm = dst[j], G[rep] + disc * rew[j], M[rep] * prob[j]
        done = ~live[nd]
        if done.any():
            out_v.append(ng[done])
            out_p.append(nm[done])
            ended += float(nm[done].sum())
        nd, ng, nm = nd[~done], ng[~done], nm[~done]
        k += 1
        disc *= gamma
        if ended >= target or not nd.size:
            break
        q = np.round(ng / unit)
        o = np.lexsort((q, nd))  # atoms with the same state and the same return as one
        nd, q, ng, nm = nd[o], q[o], ng[o], nm[o]
        new = np.r_[True, (nd[1:] != nd[:-1]) | (q[1:] != q[:-1])]
        first = np.flatnonzero(new)
        S, G, M = nd[first], ng[first], np.add.reduceat(nm, first)
        if S.size > max_atoms:
            stopped = f"the return takes too many values to list (over {max_atoms:,} at once)"
            break
        if len(out_v) > 64:  # merge what has ended now and then
            v, p = _merge_atoms(np.concatenate(out_v), np.concatenate(out_p), unit)
            out_v, out_p = [v], [p]
    if out_v:
        vals, ps = _merge_atoms(np.concatenate(out_v), np.concatenate(out_p), unit)
    else:
        vals, ps = np.zeros(0), np.zeros(0)
    tail = max(0.0, 1.0 - float(ps.sum()))
    return ReturnDistribution(vals, ps, tail, never, k, stopped)


def _merge_atoms(v: np.ndarray, p: np.ndarray, unit: float) -> tuple[np.ndarray, np.ndarray]:
    """Atoms with the same value (to ``unit``) as one, ascending."""
    q = np.round(v / unit)
    _, first, inv = np.unique(q, return_index=True, return_inverse=True)
    return v[first], np.bincount(inv.ravel(), weights=p, minlength=first.size)


def _checked_start(mdp: TabularMDP, start: int) -> int:
    """``start`` as an int, or ValueError when it is not a state of ``mdp``."""
    start = int(start)
    if not 0 <= start < mdp.n_states:
        raise ValueError(f"start state {start} is out of range 0..{mdp.n_states - 1}")
    return start


def _policy_chain(mdp: TabularMDP, policy: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The Markov chain of ``policy`` as transitions (index into the model's transitions, from, to,
    probability), in the model's row order (so grouped by source state)."""
    row_p = _row_probabilities(mdp, policy)
    chosen = np.flatnonzero(row_p > 0)
    lens = np.diff(mdp.row_ptr)[chosen]
    starts = mdp.row_ptr[chosen]
    idx = np.repeat(starts - np.r_[0, np.cumsum(lens)[:-1]], lens) + np.arange(int(lens.sum()))
    src = np.repeat(np.asarray(mdp.row_state)[chosen], lens)
    dst = np.asarray(mdp.dst)[idx]
    prob = np.asarray(mdp.prob)[idx] * np.repeat(row_p[chosen], lens)
    return idx, src, dst, prob


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
    """The probability that the chain from ``start`` never reaches a terminal state: the probability of
    falling into one of its closed classes without a terminal state (:func:`mdpviz.solvers.endless.trap_classes`,
    the rule that marks endless states on the board too), one sparse solve over the other live states."""
    import scipy.sparse as sp
    import scipy.sparse.linalg as spla

    from mdpviz.solvers.endless import reaching, trap_classes

    A = sp.csr_matrix((prob, (src, dst)), shape=(n, n))
    terminal = ~live
    trap = trap_classes(A, terminal) >= 0
    if not reaching(A, terminal, trap)[start]:
        return 0.0
    if trap[start]:
        return 1.0
    # hitting probability of the traps: every other live state is transient, so I - A over them is invertible
    fi = np.flatnonzero(live & ~trap)
    M = sp.identity(fi.size, format="csc") - A[fi][:, fi].tocsc()
    b = np.asarray(A[fi][:, np.flatnonzero(trap)].sum(axis=1)).ravel()
    h = np.atleast_1d(spla.spsolve(M, b))
    return float(h[np.searchsorted(fi, start)])


__all__ = ["COVER", "MAX_ATOMS", "MAX_TURNS", "MAX_WORK", "ReturnDistribution", "TurnDistribution",
           "return_distribution", "turn_distribution", "turn_weights"]
