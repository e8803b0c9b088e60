"""Backward induction: exact values of an acyclic game in one pass, layer by layer.

When every transition leads from layer k to a later layer (tic-tac-toe: every move fills a cell,
so the layer is the number of marks), the Bellman optimality equation (Sutton and Barto eq. 4.10)

    V(s) = opt_a  sum_{s'} p(s' | s, a) [ r(s, a, s') + gamma V(s') ]      (opt = max or min by mover)

can be solved exactly by evaluating the layers from the last to the first: the values a layer
needs are all final when it is reached. No sweeps to convergence and no transition matrix:

* :func:`backward_induction` works on a :class:`LayeredGame`, which enumerates its own states
  by index and expands a batch of them into (state, action) rows on demand, so games far too big
  to store as a :class:`~mdpviz.core.mdp.TabularMDP` (4x4 risk tic-tac-toe, 3^16 boards) are
  solved with one float64 value per index plus the rows of one batch at a time.
* :func:`backward_induction_mdp` runs the same code on any acyclic ``TabularMDP`` (layers from
  the longest path to a terminal state) and yields the usual :class:`~mdpviz.solvers.sweep.Sweep`
  per layer, so it steps in the GUI like the other solvers.

Values are in the game's reward units. Plain numpy; never imports Qt.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Generator, Protocol

import numpy as np

from mdpviz.core.mdp import TabularMDP, read_only
from mdpviz.solvers.sweep import TIE_TOL, Solution, SolverGen, make_sweep, run

if TYPE_CHECKING:  # pragma: no cover
    import scipy.sparse as sp

DEFAULT_CHUNK = 1 << 18
"""States expanded at once (bounds the memory of the row arrays of one batch)."""


@dataclass(frozen=True, eq=False)
class LayerExpansion:
    """A batch of m states of one layer expanded into their legal (state, action) rows.

    Every row has the same number k of outcome slots (pad with probability 0). The outcome
    arrays are outcome-major, (k, r), so that each slot is one contiguous vector.
    """

    terminal: np.ndarray
    """bool (m): the state is absorbing (value 0); its rows, if any, are ignored."""
    mover: np.ndarray
    """int8 (m) or a scalar: +1 where the player to move maximises, -1 where it minimises."""
    row_state: np.ndarray
    """int64 (r): the position in the batch (0..m-1) of each row's state, non-decreasing."""
    row_action: np.ndarray
    """int64 (r): the action id of each row, increasing within a state."""
    child: np.ndarray
    """int64 (k, r): the next-state index of each outcome slot of each row (in a later layer)."""
    prob: np.ndarray
    """float64 (k, r): the probability of each outcome (summing to 1 over the slots of a row)."""
    reward: np.ndarray
    """float64 (k, r): the reward of each outcome (reward units)."""
    invalid: np.ndarray | None = None
    """bool (m) or None: indices that are not states at all (unreachable by the rules); value 0, not counted."""


class LayeredGame(Protocol):
    """What :func:`backward_induction` needs from a game: states by index, in layers."""

    n_index: int
    """Size of the index space; the value array has one float64 per index."""
    n_actions: int
    """Number of action ids."""
    n_layers: int
    """Layers 0..n_layers-1; every transition from layer k leads to a layer > k."""
    discount: float
    """Discount gamma in [0, 1]."""

    def layer(self, k: int) -> np.ndarray:
        """int64: the indices of the states of layer k."""
        ...

    def expand(self, indices: np.ndarray, layer: int) -> LayerExpansion:
        """The rows of a batch of states of ``layer``."""
        ...

    # Optional: ``backup(indices, layer, V, policy, tie_tol) -> (states, terminal, rows) | None``,
    # the expansion and the backup below done by the game itself (e.g. a compiled kernel), writing
    # V[indices] and policy[indices] in place; it must give exactly the values of ``expand`` +
    # the generic backup. None: not available for this batch, use ``expand``.


@dataclass(frozen=True, eq=False)
class LayerStep:
    """Progress snapshot yielded after each layer."""

    layer: int
    """The layer just solved (they are solved from the last to the first)."""
    states: int
    """States in that layer (invalid indices excluded)."""
    terminal: int
    """Terminal states among them."""
    rows: int
    """(state, action) rows evaluated in that layer."""
    elapsed: float
    """Seconds since the solver started."""


@dataclass(frozen=True, eq=False)
class LayeredSolution:
    """What :func:`backward_induction` returns."""

    values: np.ndarray
    """float64 (n_index): V of every state (0 for terminal states and invalid indices)."""
    policy: np.ndarray | None
    """int16 (n_index): the optimal action per state (-1 for terminal and invalid), or None if not kept."""
    states: int
    """Number of states solved (invalid indices excluded)."""
    terminal: int
    """Number of terminal states among them."""
    rows: int
    """Number of (state, action) rows evaluated."""
    layers: int
    """Number of layers."""
    elapsed: float
    """Seconds from start to finish."""


def _best(q: np.ndarray, ex: LayerExpansion, m: int, n_actions: int, tie_tol: float) -> tuple[np.ndarray, np.ndarray]:
    """Per state of the batch: opt over its rows of ``q`` (ties within tie_tol to the lowest action).

    Works on an action-major (n_actions, m) table so that every pass is over contiguous memory.
    """
    mv = np.asarray(ex.mover, dtype=np.int8)
    if mv.ndim == 0:
        sq = q if mv > 0 else -q
        mover = np.full(m, int(mv), dtype=np.int8)
    else:
        mover = np.broadcast_to(mv, (m,))
        sq = q * mover[ex.row_state]
    table = np.full((n_actions, m), -np.inf)
    table.ravel()[ex.row_action * m + ex.row_state] = sq
    best = table.max(axis=0)
    has = np.isfinite(best)
    thresh = best - tie_tol * (1.0 + np.abs(np.where(has, best, 0.0)))
    act = np.full(m, -1, dtype=np.int64)
    for j in range(n_actions - 1, -1, -1):  # the lowest action within the tolerance wins
        act[table[j] >= thresh] = j
    values = np.where(has, best * mover, 0.0)
    return values, np.where(has, act, -1)


def backward_induction(
    game: LayeredGame,
    *,
    chunk_size: int = DEFAULT_CHUNK,
    keep_policy: bool = True,
    tie_tol: float = TIE_TOL,
) -> Generator[LayerStep, None, LayeredSolution]:
    """Solve an acyclic game exactly, from its last layer to its first, yielding a :class:`LayerStep` per layer.

    Layer k is expanded ``chunk_size`` states at a time; for each row
    Q(s, a) = sum_o prob_o (reward_o + gamma V[child_o]) is computed with one vectorised gather
    from the value array (eq. 4.10), and V(s) = max_a Q (mover +1) or min_a Q (mover -1), ties
    within ``tie_tol * (1 + |best|)`` to the lowest action. Memory: 8 bytes per index for V,
    2 more with ``keep_policy``, plus the rows of one batch. Returns a :class:`LayeredSolution`.
    Raises ValueError if a non-terminal state has no legal action or a child index is out of range.
    """
    n_index, n_actions = int(game.n_index), int(game.n_actions)
    if n_actions > np.iinfo(np.int16).max:
        raise ValueError(f"at most {np.iinfo(np.int16).max} actions, got {n_actions}")
    V = np.zeros(n_index)
    policy = np.full(n_index, -1, dtype=np.int16) if keep_policy else None
    return (yield from _induction(game, V, policy, chunk_size=chunk_size, tie_tol=tie_tol))


def _induction(
    game: LayeredGame,
    V: np.ndarray,
    policy: np.ndarray | None,
    *,
    chunk_size: int,
    tie_tol: float,
) -> Generator[LayerStep, None, LayeredSolution]:
    """:func:`backward_induction` writing into the given value and policy arrays (one entry per index)."""
    chunk_size = int(chunk_size)
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be at least 1, got {chunk_size}")
    n_index, n_actions, n_layers = int(game.n_index), int(game.n_actions), int(game.n_layers)
    gamma = float(game.discount)
    if not (0.0 <= gamma <= 1.0):
        raise ValueError(f"discount must be in [0, 1], got {gamma}")
    t0 = time.perf_counter()
    # Optional fast path: game.backup(indices, layer, V, policy, tie_tol) -> (states, terminal,
    # rows) or None, the same backup as expand + the code below, done in one compiled pass.
    fused = getattr(game, "backup", None)
    tot_states = tot_term = tot_rows = 0
    for k in range(n_layers - 1, -1, -1):
        idx_all = np.asarray(game.layer(k), dtype=np.int64)
        n_states = n_term = n_rows = 0
        for lo in range(0, idx_all.size, chunk_size):
            idx = idx_all[lo : lo + chunk_size]
            m = idx.size
            done = fused(idx, k, V, policy, tie_tol) if fused is not None else None
            if done is not None:  # the game backed the batch up itself (a compiled kernel)
                n_states += done[0]
                n_term += done[1]
                n_rows += done[2]
                continue
            ex = game.expand(idx, k)
            invalid = np.zeros(m, dtype=bool) if ex.invalid is None else np.asarray(ex.invalid, dtype=bool)
            term = np.asarray(ex.terminal, dtype=bool) | invalid
            if ex.row_state.size:
                child = ex.child
                if child.size and (child.min() < 0 or child.max() >= n_index):
                    raise ValueError(f"layer {k}: a child index is outside 0..{n_index - 1}")
                q = np.zeros(child.shape[1])
                for j in range(child.shape[0]):  # one contiguous pass per outcome slot
                    vj = V[child[j]]
                    if gamma != 1.0:
                        vj *= gamma
                    vj += ex.reward[j]
                    vj *= ex.prob[j]
                    q += vj
                values, act = _best(q, ex, m, n_actions, tie_tol)
            else:
                values, act = np.zeros(m), np.full(m, -1, dtype=np.int64)
            stuck = ~term & (act < 0)
            if stuck.any():
                raise ValueError(f"state {int(idx[np.flatnonzero(stuck)[0]])} (layer {k}) has no legal action and is not terminal")
            values[term] = 0.0
            V[idx] = values
            if policy is not None:
                policy[idx] = np.where(term, -1, act)
            n_states += int(m - invalid.sum())
            n_term += int((term & ~invalid).sum())
            n_rows += int(np.count_nonzero(~term[ex.row_state])) if ex.row_state.size else 0
        tot_states += n_states
        tot_term += n_term
        tot_rows += n_rows
        yield LayerStep(layer=k, states=n_states, terminal=n_term, rows=n_rows, elapsed=time.perf_counter() - t0)
    V.flags.writeable = False
    if policy is not None:
        policy.flags.writeable = False
    return LayeredSolution(values=V, policy=policy, states=tot_states, terminal=tot_term, rows=tot_rows,
                           layers=n_layers, elapsed=time.perf_counter() - t0)


def run_layers(
    gen: Generator[LayerStep, None, LayeredSolution],
    *,
    on_step: Callable[[LayerStep], object] | None = None,
) -> LayeredSolution:
    """Drive :func:`backward_induction` to the end (``on_step`` sees each layer) and return its solution."""
    return run(gen, on_sweep=on_step)  # type: ignore[arg-type]  # the same generator protocol


# ====================================================================== acyclic TabularMDPs
def mdp_layers(mdp: TabularMDP) -> np.ndarray:
    """int64 (n_states): a layer per state such that every transition with positive probability
    goes to a later layer: ``H - h(s)``, where h is the longest path to a terminal state.

    Kahn's topological peeling from the terminal states, vectorised per round: a state is peeled
    once all its successors are, so its round is h(s) = 1 + max h(successors). O(transitions).
    Raises ValueError if the MDP has a cycle among its non-terminal states (backward induction
    needs an acyclic MDP; use value iteration instead).
    """
    n = mdp.n_states
    keep = mdp.prob > 0
    row_of_t = np.repeat(np.arange(mdp.n_rows), np.diff(mdp.row_ptr))[keep]
    src = mdp.row_state[row_of_t]
    dst = mdp.dst[keep]
    live = ~mdp.terminal[src]
    src, dst = src[live], dst[live]
    remaining = np.bincount(src, minlength=n)  # successors (with multiplicity) not yet peeled
    order = np.argsort(dst, kind="stable")
    src_by_dst = src[order]
    ptr = np.searchsorted(dst[order], np.arange(n + 1))
    done = mdp.terminal.copy()
    h = np.zeros(n, dtype=np.int64)
    frontier = np.flatnonzero(done)
    r = 0
    while frontier.size:
        counts = ptr[frontier + 1] - ptr[frontier]
        total = int(counts.sum())
        if total == 0:
            break
        starts = np.repeat(ptr[frontier] - np.r_[0, np.cumsum(counts)[:-1]], counts) + np.arange(total)
        preds = src_by_dst[starts]
        remaining -= np.bincount(preds, minlength=n)
        cand = np.unique(preds)
        frontier = cand[(remaining[cand] == 0) & ~done[cand]]
        r += 1
        h[frontier] = r
        done[frontier] = True
    if not done.all():
        bad = np.flatnonzero(~done)
        raise ValueError(
            f"the MDP has a cycle (through state {int(bad[0])} among {bad.size} states), so backward "
            "induction does not apply; use value iteration"
        )
    return (int(h.max()) - h).astype(np.int64) if n else h


def evaluate_acyclic(
    mdp: TabularMDP,
    W: sp.spmatrix,
    *,
    rewards: np.ndarray | None = None,
    discount: float | None = None,
    layers: np.ndarray | None = None,
) -> np.ndarray:
    """Exact value of a policy on an acyclic MDP by backward induction: no linear solve, no tolerance.

    ``W`` (n_states x n_rows) holds the policy's row weights
    (:func:`mdpviz.solvers.row_weights_deterministic` / ``row_weights_stochastic``). Evaluates
    V = r_pi + gamma P_pi V (Sutton and Barto eq. 4.4) one layer at a time from the last, each
    layer reading only values already final. ``rewards`` (n_rows, or n_rows x K for K quantities at
    once) replaces the expected row rewards, e.g. ``mdp.matrix @ indicator`` gives the exact
    probability of ending in the indicated terminal states. ``layers`` as from :func:`mdp_layers`.
    Returns float64 (n_states) or (n_states, K); terminal states get 0.
    """
    import scipy.sparse as sp

    gamma = mdp.discount if discount is None else float(discount)
    lay = mdp_layers(mdp) if layers is None else np.asarray(layers)
    P_pi = sp.csr_matrix(W @ mdp.matrix)
    r = mdp.row_reward if rewards is None else np.asarray(rewards, dtype=np.float64)
    r_pi = np.asarray(W @ r)
    live = ~mdp.terminal
    V = np.zeros(r_pi.shape)
    order = np.argsort(lay, kind="stable")
    bounds = np.searchsorted(lay[order], np.arange(int(lay.max()) + 2)) if lay.size else np.zeros(1, np.int64)
    for k in range(bounds.size - 2, -1, -1):
        s = order[bounds[k] : bounds[k + 1]]
        s = s[live[s]]
        if s.size:
            V[s] = r_pi[s] + gamma * (P_pi[s] @ V)
    return V


class TabularLayers:
    """An acyclic :class:`TabularMDP` seen as a :class:`LayeredGame` (layers from :func:`mdp_layers`)."""

    def __init__(self, mdp: TabularMDP) -> None:
        self.mdp = mdp
        self.n_index = mdp.n_states
        self.n_actions = mdp.n_actions
        self.discount = mdp.discount
        self.state_layer = mdp_layers(mdp)
        self.n_layers = int(self.state_layer.max()) + 1 if mdp.n_states else 0
        self._order = np.argsort(self.state_layer, kind="stable")
        self._bounds = np.searchsorted(self.state_layer[self._order], np.arange(self.n_layers + 1))
        counts = np.diff(mdp.row_ptr)
        self._k = int(counts.max()) if counts.size else 1

    def layer(self, k: int) -> np.ndarray:
        return self._order[self._bounds[k] : self._bounds[k + 1]]

    def expand(self, indices: np.ndarray, layer: int) -> LayerExpansion:
        mdp = self.mdp
        idx = np.asarray(indices, dtype=np.int64)
        counts = mdp.state_ptr[idx + 1] - mdp.state_ptr[idx]
        row_state = np.repeat(np.arange(idx.size), counts)
        rows = np.repeat(mdp.state_ptr[idx] - np.r_[0, np.cumsum(counts)[:-1]], counts) + np.arange(int(counts.sum()))
        tcount = mdp.row_ptr[rows + 1] - mdp.row_ptr[rows]
        r = rows.size
        k = self._k
        child = np.zeros((r, k), dtype=np.int64)
        prob = np.zeros((r, k))
        reward = np.zeros((r, k))
        slot = np.arange(k)[None, :] < tcount[:, None]
        t = (mdp.row_ptr[rows][:, None] + np.arange(k)[None, :])[slot]
        child[slot] = mdp.dst[t]
        prob[slot] = mdp.prob[t]
        reward[slot] = mdp.reward[t]
        return LayerExpansion(terminal=mdp.terminal[idx], mover=mdp.sense[idx], row_state=row_state,
                              row_action=mdp.row_action[rows], child=child.T.copy(), prob=prob.T.copy(),
                              reward=reward.T.copy())


def backward_induction_mdp(mdp: TabularMDP, *, tie_tol: float = TIE_TOL) -> SolverGen:
    """Backward induction on an acyclic :class:`TabularMDP`, stepping one layer at a time.

    Yields a :class:`~mdpviz.solvers.sweep.Sweep` (method "bi", phase "layer") after each layer,
    the last layers first; ``delta`` is the largest value change of that layer. The values are
    exact after the last step (no tolerance). With objective "min" the costs are minimised
    (``mdp.sense``). Raises ValueError for an MDP with a cycle.
    """
    t0 = time.perf_counter()
    game = TabularLayers(mdp)
    V = np.zeros(mdp.n_states)
    pol16 = np.full(mdp.n_states, -1, dtype=np.int16)
    gen = _induction(game, V, pol16, chunk_size=DEFAULT_CHUNK, tie_tol=tie_tol)
    old_v = read_only(np.zeros(mdp.n_states))
    old_p = read_only(np.full(mdp.n_states, -1, dtype=np.int64))
    it = 0
    while True:
        try:
            step = next(gen)
        except StopIteration as stop:
            sol: LayeredSolution = stop.value
            break
        it += 1
        v = read_only(V.copy())
        pol = read_only(pol16.astype(np.int64))
        yield make_sweep(method="bi", phase="layer", iteration=it, values=v, old_values=old_v,
                         policy=pol, old_policy=old_p, elapsed=time.perf_counter() - t0,
                         terminal=mdp.terminal, converged=(step.layer == 0))
        old_v, old_p = v, pol
    return Solution("bi", sol.values, old_p, sol.layers, True, 0.0, time.perf_counter() - t0)


__all__ = [
    "DEFAULT_CHUNK", "LayerExpansion", "LayerStep", "LayeredGame", "LayeredSolution", "TabularLayers",
    "backward_induction", "backward_induction_mdp", "evaluate_acyclic", "mdp_layers", "run_layers",
]
