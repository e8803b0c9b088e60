"""Exact answers for the Bernoulli bandit: the Bayes-optimal policy of its belief MDP, and the Gittins index.

**The belief MDP** (Sutton and Barto section 2.10, which describes this computation over posteriors and the
Gittins index; Gittins, Glazebrook and Weber, *Multi-armed Bandit Allocation Indices*, 2nd ed. 2011). Arm i pays 1
with an unknown probability p_i, a priori Beta(a, b) and independent across arms. After s_i successes and
f_i failures of arm i its posterior is Beta(a + s_i, b + f_i), so the counts are a sufficient statistic: a
*belief* is the vector (s_1, f_1, ..., s_k, f_k), and the number of pulls so far is t = sum of the counts.
Pulling arm i in a belief pays 1 with the posterior mean

    P(success) = (a + s_i) / (a + b + s_i + f_i)

and moves to the belief with s_i + 1 (reward 1) or f_i + 1 (reward 0). After ``horizon`` pulls the belief
is terminal. This is a finite acyclic MDP; its optimal value from the prior's belief (all counts 0) is the
Bayes-optimal expected total (discounted) reward E[sum_t gamma^t R_t] over arms drawn from the prior, and
its optimal policy is the Bayes-optimal policy. We compile it into the one
:class:`~mdpviz.core.mdp.TabularMDP` (:func:`belief_mdp`) and solve it with the project's backward induction
(:func:`mdpviz.solvers.backward_induction.backward_induction`, Sutton and Barto eq. 4.10 layer by layer from
the horizon back), not with a private recursion.

The transitions carry the *sampled outcome* as reward (1 on the success branch, 0 on the failure branch)
rather than the expected reward of the pull on both branches: the expected values are identical, but then
an episode simulated on the MDP is a real run of a Bernoulli bandit whose arms were drawn from the prior,
so the learners' simulator and the window's episode player show real rewards.

States are numbered by the number of pulls t first (t = 0 is state 0, the prior), then by the counts in
lexicographic order; :func:`belief_index` maps counts to the state number by the combinatorial number system,
vectorised, so the testbed can look up the Bayes-optimal arm of 2,000 runs at once. There are
C(horizon + 2 arms, 2 arms) beliefs (:func:`belief_size`); :data:`MAX_BELIEF_STATES` bounds them.

**The Gittins index** of a Beta(a, b) arm at discount gamma < 1 (Gittins, Glazebrook and Weber, whose tables
give Beta(1, 1) at gamma 0.9 as 0.7029): the constant reward rate lambda of a known arm at which one is indifferent between retiring on
it forever and pulling the unknown arm (then retiring whenever one likes). Two independent methods:

* ``"calibration"`` (Gittins' own, by bisection on a retirement reward): for a given lambda, backward
  induction over the posteriors (a + i, b + j), i + j <= N, of V = max(lambda / (1 - gamma), p (1 + gamma
  V(success)) + (1 - p) gamma V(failure)), and bisection on lambda until continuing at the root is exactly
  as good as retiring. Vectorised over every cell of a table at once (numpy).
* ``"restart"`` (Katehakis and Veinott 1987, restart-in-state): the index is (1 - gamma) V(root) of the MDP
  in which every posterior may either continue or *restart* from the root's posterior; that MDP is compiled
  into a :class:`~mdpviz.core.mdp.TabularMDP` and solved by the project's policy iteration (exact evaluation).

**Truncation.** Both methods look N pulls ahead (``depth``): at depth N the posterior mean p is treated as
known, continuing is worth p / (1 - gamma). That undervalues continuation by at most gamma^N / (1 - gamma)
at the root, and since the retirement side grows in lambda at least 1 / (1 - gamma) faster than the
continuation side, the truncated index is a *lower* bound of the true one within gamma^N / (1 - gamma)
(:func:`truncation_error`). The default depth (:func:`truncation_depth`) makes that bound at most 1e-6. Both
methods truncate the same way, so they agree to their solvers' tolerance whatever N is.

Plain numpy (and scipy through policy iteration); never imports Qt.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import numpy as np

from mdpviz.core.mdp import TabularMDP, read_only
from mdpviz.solvers.backward_induction import TabularLayers, backward_induction, run_layers
from mdpviz.solvers.sweep import TIE_TOL

MAX_BELIEF_STATES = 2_000_000
"""Most beliefs the exact Bayes-optimal solve takes (2 arms over 80 pulls: 1.93 million beliefs, about 8 s and
a few hundred MB on the 2-core test machine; 2 arms over 8 pulls: 495 beliefs, 3 ms)."""
GITTINS_ERROR = 1e-6
"""The truncation error bound the default Gittins depth meets (index units: reward per pull)."""
MAX_GITTINS_DEPTH = 5_000
"""Deepest look-ahead of the Gittins index (gamma = 0.997 needs about that for :data:`GITTINS_ERROR`)."""
GITTINS_METHODS = {
    "calibration": "bisection on the retirement reward lambda, backward induction over the posteriors for each lambda",
    "restart": "Katehakis-Veinott restart-in-state MDP, solved by policy iteration; index = (1 - gamma) V(root)",
}
"""The two ways :func:`gittins_index` computes the index."""


# ====================================================================== checks
def _whole(name: str, value: object, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) < low:
        raise ValueError(f"{name} must be a whole number >= {low}, got {value!r}")
    return int(value)


def _positive(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return float(value)


def check_prior(prior: Sequence[float], *, name: str = "--prior") -> tuple[float, float]:
    """The prior Beta(a, b) as a pair of floats > 0, else ValueError naming ``name``."""
    if isinstance(prior, (str, bytes)) or not hasattr(prior, "__len__") or len(prior) != 2:
        raise ValueError(f"{name} must be two numbers a, b > 0 (the Beta prior), got {prior!r}")
    return _positive(name, prior[0]), _positive(name, prior[1])


def check_discount(discount: object, *, name: str = "--discount", strict: bool = False) -> float:
    """``discount`` as a float in [0, 1] (``strict``: in (0, 1), as the Gittins index needs), else ValueError."""
    if isinstance(discount, bool) or not isinstance(discount, numbers.Real) or not math.isfinite(discount):
        raise ValueError(f"{name} must be a number in [0, 1], got {discount!r}")
    g = float(discount)
    if strict and not 0.0 < g < 1.0:
        raise ValueError(f"{name} must be in (0, 1) for the Gittins index, got {discount!r}")
    if not 0.0 <= g <= 1.0:
        raise ValueError(f"{name} must be in [0, 1], got {discount!r}")
    return g


def belief_size(arms: int, horizon: int) -> int:
    """The number of beliefs of a ``arms``-armed Bernoulli bandit over ``horizon`` pulls: the count vectors
    (s_1, f_1, ..., s_k, f_k) >= 0 summing to at most the horizon, C(horizon + 2 arms, 2 arms)."""
    k = _whole("arms", arms, 1)
    h = _whole("horizon", horizon, 0)
    return math.comb(h + 2 * k, 2 * k)


def check_belief_size(arms: object, horizon: object, *, names: tuple[str, str] = ("--arms", "--horizon"),
                      limit: int = MAX_BELIEF_STATES) -> int:
    """The belief count of (arms, horizon) when both are valid and it is within ``limit``, else a one-line
    ValueError naming the options ``names`` (e.g. ("--arms", "--steps") for the testbed's regret)."""
    k = _whole(names[0], arms, 1)
    h = _whole(names[1], horizon, 1)
    n = math.comb(h + 2 * k, 2 * k)
    if n > limit:
        raise ValueError(f"{names[0]} {k} with {names[1]} {h} makes {n:,} beliefs, over the exact solve's budget "
                         f"of {limit:,}: use fewer arms or a shorter horizon")
    return n


# ====================================================================== beliefs
def _binomials(top: int, m: int) -> np.ndarray:
    """int64 (top + 1, m + 1): C(n, r) for n <= top, r <= m."""
    table = np.zeros((top + 1, m + 1), dtype=np.int64)
    for n in range(top + 1):
        for r in range(min(n, m) + 1):
            table[n, r] = math.comb(n, r)
    return table


def _rank(counts: np.ndarray, binom: np.ndarray) -> np.ndarray:
    """The state number of each row of ``counts`` (int, (n, m)): C(t + m - 1, m) beliefs have fewer pulls,
    then the rank of the row among the compositions of t into m parts in lexicographic order (with the
    hockey-stick identity, the rows whose part j is smaller than c_j and whose earlier parts are equal
    number C(r + p - 1, p - 1) - C(r - c_j + p - 1, p - 1), r the remaining sum, p the parts left)."""
    c = np.asarray(counts, dtype=np.int64)
    m = c.shape[1]
    t = c.sum(axis=1)
    idx = binom[t + m - 1, m].copy() if m else np.zeros(len(c), np.int64)
    r = t.copy()
    for j in range(m - 1):
        p = m - j
        idx += binom[r + p - 1, p - 1] - binom[r - c[:, j] + p - 1, p - 1]
        r -= c[:, j]
    return idx


def _all_counts(m: int, horizon: int) -> np.ndarray:
    """int64 (C(horizon + m, m), m): every vector of m counts >= 0 summing to at most ``horizon``."""
    rows = np.zeros((1, 0), dtype=np.int64)
    used = np.zeros(1, dtype=np.int64)
    for _ in range(m):
        reps = horizon - used + 1
        rows = np.repeat(rows, reps, axis=0)
        starts = np.repeat(np.cumsum(reps) - reps, reps)
        vals = np.arange(int(reps.sum())) - starts
        rows = np.column_stack([rows, vals])
        used = np.repeat(used, reps) + vals
    return rows


@dataclass(frozen=True, eq=False)
class Beliefs:
    """The beliefs of a k-armed Bernoulli bandit over a horizon, numbered as the belief MDP numbers them."""

    arms: int
    """k, the number of arms."""
    horizon: int
    """T, the number of pulls."""
    counts: np.ndarray
    """int32 (n_states, 2k), read-only: per state the counts (s_1, f_1, ..., s_k, f_k)."""
    layer_start: np.ndarray
    """int64 (T + 2), read-only: the states with t pulls are ``layer_start[t]:layer_start[t + 1]``."""
    binom: np.ndarray
    """int64: the binomial table :func:`_rank` reads."""

    @property
    def n_states(self) -> int:
        return int(self.counts.shape[0])

    def index(self, successes: np.ndarray, failures: np.ndarray) -> np.ndarray:
        """int64: the state numbers of beliefs given as success and failure counts per arm, arrays (..., k)
        (ValueError if one is negative or has more than T pulls)."""
        s = np.asarray(successes, dtype=np.int64)
        f = np.asarray(failures, dtype=np.int64)
        if s.shape != f.shape or s.shape[-1:] != (self.arms,):
            raise ValueError(f"successes and failures must both be arrays (..., {self.arms}), got {s.shape} and {f.shape}")
        c = np.stack([s, f], axis=-1).reshape(*s.shape[:-1], 2 * self.arms)
        flat = c.reshape(-1, 2 * self.arms)
        if flat.size and (flat.min() < 0 or flat.sum(axis=1).max() > self.horizon):
            raise ValueError(f"counts must be >= 0 with at most {self.horizon} pulls in all")
        return _rank(flat, self.binom).reshape(s.shape[:-1])

    def pulls(self) -> np.ndarray:
        """int64 (n_states): t, the pulls made before each belief."""
        return np.repeat(np.arange(self.horizon + 1), np.diff(self.layer_start))

    def label(self, s: int) -> str:
        """State ``s`` in words, e.g. "t=2 s=(1,0) f=(0,1)"."""
        c = self.counts[int(s)]
        return (f"t={int(c.sum())} s=({','.join(str(int(x)) for x in c[0::2])}) "
                f"f=({','.join(str(int(x)) for x in c[1::2])})")


@lru_cache(maxsize=4)
def beliefs(arms: int, horizon: int) -> Beliefs:
    """Every belief of ``arms`` arms over ``horizon`` pulls, numbered (see the module docstring)."""
    check_belief_size(arms, horizon, names=("arms", "horizon"))
    k, h = int(arms), int(horizon)
    m = 2 * k
    binom = _binomials(h + m, m)
    raw = _all_counts(m, h)
    counts = np.empty_like(raw, dtype=np.int32)
    counts[_rank(raw, binom)] = raw
    layer_start = np.array([math.comb(t + m - 1, m) if t else 0 for t in range(h + 2)], dtype=np.int64)
    return Beliefs(arms=k, horizon=h, counts=read_only(counts), layer_start=read_only(layer_start),
                   binom=read_only(binom))


def success_probability(counts: np.ndarray, arm: int, prior: tuple[float, float]) -> np.ndarray:
    """float64 (n): the posterior mean (a + s_i) / (a + b + s_i + f_i) of arm ``arm`` (from 0) in each belief of
    ``counts`` (n, 2k): the probability that pulling it now succeeds."""
    a, b = prior
    c = np.asarray(counts, dtype=np.float64)
    s, f = c[:, 2 * int(arm)], c[:, 2 * int(arm) + 1]
    return (a + s) / (a + b + s + f)


def action_labels(arms: int) -> tuple[str, ...]:
    """The actions' names: "pull arm 1" .. "pull arm k"."""
    return tuple(f"pull arm {i + 1}" for i in range(int(arms)))


def belief_mdp(arms: int, horizon: int, *, prior: Sequence[float] = (1.0, 1.0), discount: float = 1.0,
               labels: bool = False) -> TabularMDP:
    """The belief MDP of the module docstring as a :class:`TabularMDP`: state 0 the prior's belief, the
    beliefs after ``horizon`` pulls terminal, action i = pull arm i + 1, success (reward 1) listed before
    failure (reward 0) in each row. ``labels``: name every state ("t=2 s=(1,0) f=(0,1)"). ValueError
    naming ``arms``, ``horizon``, ``prior`` or ``discount``."""
    pr = check_prior(prior, name="prior")
    g = check_discount(discount, name="discount")
    bel = beliefs(arms, horizon)
    k, h = bel.arms, bel.horizon
    live = np.arange(int(bel.layer_start[h]))  # the beliefs with fewer than T pulls
    counts = np.asarray(bel.counts[live], dtype=np.int64)
    src, act, dst, prob, rew = [], [], [], [], []
    for i in range(k):
        p = success_probability(counts, i, pr)
        for col, pp, r in ((2 * i, p, 1.0), (2 * i + 1, 1.0 - p, 0.0)):
            nxt = counts.copy()
            nxt[:, col] += 1
            src.append(live)
            act.append(np.full(live.size, i))
            dst.append(_rank(nxt, bel.binom))
            prob.append(pp)
            rew.append(np.full(live.size, r))
    names = tuple(bel.label(s) for s in range(bel.n_states)) if labels else None
    terminal = np.arange(int(bel.layer_start[h]), bel.n_states)
    return TabularMDP.from_transitions(
        bel.n_states, k, np.concatenate(src), np.concatenate(act), np.concatenate(dst), np.concatenate(prob),
        np.concatenate(rew), discount=g, terminal=terminal, state_labels=names, action_labels=action_labels(k),
        mdptype="episodic")


# ====================================================================== the Bayes-optimal policy
@dataclass(frozen=True, eq=False)
class BayesOptimal:
    """The Bayes-optimal answer of a Bernoulli bandit with a Beta prior over a finite horizon."""

    arms: int
    """k, the number of arms."""
    horizon: int
    """T, the number of pulls."""
    prior: tuple[float, float]
    """(a, b): every arm's success probability is a priori Beta(a, b)."""
    discount: float
    """gamma: the reward of pull t (from 0) counts gamma^t."""
    value: float
    """The Bayes-optimal expected total discounted reward from the prior, E[sum_t gamma^t R_t] (rewards)."""
    first_action: tuple[int, ...]
    """Every Bayes-optimal first arm (from 0), tied ones included under the solvers' tie rule
    (:data:`~mdpviz.solvers.sweep.TIE_TOL`)."""
    reward_per_step: np.ndarray
    """float64 (T), read-only: the expected reward of pull t (undiscounted) under :attr:`arm`'s policy, so
    ``value == sum_t gamma^t reward_per_step[t]``."""
    values: np.ndarray
    """float64 (n_states), read-only: the optimal value of every belief (0 at the horizon)."""
    arm: np.ndarray
    """int64 (n_states), read-only: the Bayes-optimal arm of every belief (the lowest of tied arms; -1 at
    the horizon)."""
    beliefs: Beliefs
    """The beliefs and their numbering."""

    def policy(self, successes, failures, t: int | None = None):
        """The Bayes-optimal arm (from 0; the lowest of tied arms) after ``successes`` and ``failures`` per
        arm: sequences of k counts (an int back), or arrays (..., k) for many runs at once (an int64 array
        back). ``t``, when given, must be the number of pulls made (checked); -1 once the horizon is reached."""
        s = np.asarray(successes)
        idx = self.beliefs.index(s, np.asarray(failures))
        if t is not None and np.any(s.sum(axis=-1) + np.asarray(failures).sum(axis=-1) != t):
            raise ValueError(f"t={t} is not the number of pulls the counts show")
        out = self.arm[idx]
        return int(out) if np.ndim(out) == 0 else out


def bayes_optimal(arms: int, horizon: int, *, prior: tuple[float, float] = (1.0, 1.0),
                  discount: float = 1.0) -> BayesOptimal:
    """The Bayes-optimal policy of a ``arms``-armed Bernoulli bandit with Beta(``prior``) arms over
    ``horizon`` pulls: the belief MDP (:func:`belief_mdp`) solved exactly by the project's backward induction
    (Sutton and Barto eq. 4.10 from the horizon back). The last two answers are kept. ValueError naming
    --arms, --horizon, --prior or --discount (the belief MDP may have at most :data:`MAX_BELIEF_STATES`)."""
    check_belief_size(arms, horizon)
    pr = check_prior(prior)
    g = check_discount(discount)
    return _bayes_optimal(int(arms), int(horizon), pr, g)


@lru_cache(maxsize=2)  # (at the budget one answer holds about 70 MB of arrays)
def _bayes_optimal(arms: int, horizon: int, prior: tuple[float, float], discount: float) -> BayesOptimal:
    mdp = belief_mdp(arms, horizon, prior=prior, discount=discount)
    bel = beliefs(arms, horizon)
    sol = run_layers(backward_induction(TabularLayers(mdp)))
    values = np.asarray(sol.values, dtype=np.float64)
    arm = np.asarray(sol.policy, dtype=np.int64)
    # every tied first arm: Q of the prior's rows, the solvers' tie rule
    rows = np.arange(int(mdp.state_ptr[0]), int(mdp.state_ptr[1]))
    q = np.array([float(np.sum(mdp.prob[lo:hi] * (mdp.reward[lo:hi] + discount * values[mdp.dst[lo:hi]])))
                  for lo, hi in zip(mdp.row_ptr[rows], mdp.row_ptr[rows + 1])])  # eq. 4.10's Q at the prior
    best = float(q.max())
    first = tuple(int(mdp.row_action[r]) for r, v in zip(rows, q) if v >= best - TIE_TOL * (1.0 + abs(best)))
    # the expected reward of each pull: the distribution over beliefs pushed forward under the policy
    occupancy = np.zeros(mdp.n_states)
    occupancy[0] = 1.0
    per_step = np.zeros(horizon)
    for t in range(horizon):
        lo, hi = int(bel.layer_start[t]), int(bel.layer_start[t + 1])
        states = np.arange(lo, hi)
        chosen = mdp.state_ptr[states] + arm[states]  # every arm is legal in a live belief: row = ptr + arm
        w = occupancy[lo:hi]
        for j in range(2):  # success, failure
            tr = mdp.row_ptr[chosen] + j
            mass = w * mdp.prob[tr]
            per_step[t] += float(mass @ mdp.reward[tr])
            occupancy += np.bincount(mdp.dst[tr], weights=mass, minlength=mdp.n_states)
    return BayesOptimal(arms=arms, horizon=horizon, prior=prior, discount=discount, value=float(values[0]),
                        first_action=first, reward_per_step=read_only(per_step), values=read_only(values),
                        arm=read_only(arm), beliefs=bel)


# ====================================================================== the Gittins index
def truncation_error(discount: float, depth: int) -> float:
    """The bound gamma^N / (1 - gamma) on how far the index truncated at depth N lies below the true one."""
    g = check_discount(discount, strict=True)
    return g ** int(depth) / (1.0 - g)


def truncation_depth(discount: float, *, error: float = GITTINS_ERROR) -> int:
    """The smallest look-ahead N with gamma^N / (1 - gamma) <= ``error`` (ValueError, naming --discount,
    when it would pass :data:`MAX_GITTINS_DEPTH`)."""
    g = check_discount(discount, strict=True)
    n = max(1, math.ceil(math.log(error * (1.0 - g)) / math.log(g)))
    if n > MAX_GITTINS_DEPTH:
        raise ValueError(f"--discount {g:g} needs a look-ahead of {n:,} pulls for a Gittins index within "
                         f"{error:g}, over {MAX_GITTINS_DEPTH:,}: give a smaller discount or --depth")
    return n


def _depth(discount: float, depth: int | None) -> int:
    """The look-ahead: ``depth`` when given (checked), else :func:`truncation_depth`."""
    if depth is None:
        return truncation_depth(discount)
    n = _whole("--depth", depth, 1)
    if n > MAX_GITTINS_DEPTH:
        raise ValueError(f"--depth must be at most {MAX_GITTINS_DEPTH:,}, got {n:,}")
    return n


def _calibration(a: np.ndarray, b: np.ndarray, g: float, depth: int, tol: float) -> np.ndarray:
    """Gittins indices of the cells Beta(a[c], b[c]) by calibration, all cells at once (module docstring)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    lo = a / (a + b)  # the index is at least the posterior mean (retire on it or better)
    hi = np.ones_like(lo)
    i = np.arange(depth + 1, dtype=np.float64)
    while float(np.max(hi - lo)) > tol:
        lam = 0.5 * (lo + hi)
        retire = (lam / (1.0 - g))[:, None]
        n = depth
        p = (a[:, None] + i[None, : n + 1]) / (a + b + n)[:, None]
        v = np.maximum(retire, p / (1.0 - g))
        for n in range(depth - 1, -1, -1):
            p = (a[:, None] + i[None, : n + 1]) / (a + b + n)[:, None]
            cont = p * (1.0 + g * v[:, 1:]) + (1.0 - p) * g * v[:, :-1]
            if n == 0:
                go = cont[:, 0] > retire[:, 0]  # continuing beats retiring: the index is above lambda
                break
            v = np.maximum(retire, cont)
        lo = np.where(go, lam, lo)
        hi = np.where(go, hi, lam)
    return 0.5 * (lo + hi)


def restart_mdp(a: float, b: float, discount: float, depth: int) -> TabularMDP:
    """Katehakis and Veinott's restart-in-state MDP of a Beta(a, b) arm truncated at ``depth``: a state per
    posterior Beta(a + i, b + n - i), n <= depth (state 0 the root); action 0 continues (success, reward 1,
    with the posterior mean; else failure, reward 0), action 1 restarts (the root's continuation). At the
    depth the mean counts as known: continuing loops with reward p."""
    g = check_discount(discount, strict=True)
    depth = _depth(g, depth)
    n_of = np.concatenate([np.full(n + 1, n) for n in range(depth + 1)])
    i_of = np.concatenate([np.arange(n + 1) for n in range(depth + 1)])
    state = (n_of * (n_of + 1)) // 2 + i_of
    p = (a + i_of) / (a + b + n_of)
    inner = n_of < depth
    s_in, p_in = state[inner], p[inner]
    succ = ((n_of[inner] + 1) * (n_of[inner] + 2)) // 2 + i_of[inner] + 1
    fail = succ - 1
    root_p = a / (a + b)
    edge = state[~inner]
    n_all = state.size
    everyone = np.arange(n_all)
    src = np.concatenate([s_in, s_in, edge, everyone, everyone])
    act = np.concatenate([np.zeros(2 * s_in.size + edge.size, np.int64), np.ones(2 * n_all, np.int64)])
    dst = np.concatenate([succ, fail, edge, np.full(n_all, 2), np.full(n_all, 1)])
    prob = np.concatenate([p_in, 1.0 - p_in, np.ones(edge.size), np.full(n_all, root_p), np.full(n_all, 1.0 - root_p)])
    rew = np.concatenate([np.ones(s_in.size), np.zeros(s_in.size), p[~inner], np.ones(n_all), np.zeros(n_all)])
    return TabularMDP.from_transitions(n_all, 2, src, act, dst, prob, rew, discount=g,
                                       action_labels=("continue", "restart"), mdptype="continuing")


def _restart(a: float, b: float, g: float, depth: int) -> float:
    from mdpviz.solvers.policy_iteration import policy_iteration
    from mdpviz.solvers.sweep import run

    sol = run(policy_iteration(restart_mdp(a, b, g, depth)))
    return (1.0 - g) * float(sol.values[0])


def gittins_index(a: float, b: float, discount: float, *, method: str = "calibration", depth: int | None = None,
                  tol: float = 1e-10) -> float:
    """The Gittins index of a Beta(a, b) Bernoulli arm at discount gamma (reward per pull), by ``method``
    (:data:`GITTINS_METHODS`), looking ``depth`` pulls ahead (default :func:`truncation_depth`: within
    :data:`GITTINS_ERROR` of the untruncated index; see :func:`truncation_error`). ``tol``: the calibration's
    bisection width. ValueError naming the bad argument."""
    a_, b_ = check_prior((a, b), name="a, b")
    g = check_discount(discount, strict=True)
    n = _depth(g, depth)
    if method == "calibration":
        return float(_calibration(np.array([a_]), np.array([b_]), g, n, tol)[0])
    if method == "restart":
        return _restart(a_, b_, g, n)
    raise ValueError(f"--method must be one of {', '.join(GITTINS_METHODS)}, got {method!r}")


def gittins_indices(a, b, discount: float, *, depth: int | None = None, tol: float = 1e-10) -> np.ndarray:
    """float64: the Gittins index of Beta(a[c], b[c]) for each cell c of the arrays ``a`` and ``b`` (same shape),
    by calibration, all cells at once (a row of the window's heatmap per job step)."""
    g = check_discount(discount, strict=True)
    a_ = np.asarray(a, dtype=np.float64)
    b_ = np.asarray(b, dtype=np.float64)
    if a_.shape != b_.shape or not (np.all(np.isfinite(a_)) and np.all(a_ > 0) and np.all(np.isfinite(b_)) and np.all(b_ > 0)):
        raise ValueError("a and b must be arrays of one shape of numbers > 0")
    return _calibration(a_.ravel(), b_.ravel(), g, _depth(g, depth), tol).reshape(a_.shape)


def gittins_table(discount: float, max_count: int, *, method: str = "calibration", depth: int | None = None,
                  tol: float = 1e-10) -> np.ndarray:
    """float64 (max_count, max_count): the Gittins index of Beta(a, b) at [a - 1, b - 1] for a, b in
    1..max_count (as Gittins, Glazebrook and Weber tabulate it), each as :func:`gittins_index`
    (calibration: every cell at once)."""
    g = check_discount(discount, strict=True)
    m = _whole("--max-count", max_count, 1)
    n = _depth(g, depth)
    a, b = np.meshgrid(np.arange(1, m + 1, dtype=np.float64), np.arange(1, m + 1, dtype=np.float64), indexing="ij")
    if method == "calibration":
        return _calibration(a.ravel(), b.ravel(), g, n, tol).reshape(m, m)
    if method == "restart":
        return np.array([_restart(float(x), float(y), g, n) for x, y in zip(a.ravel(), b.ravel())]).reshape(m, m)
    raise ValueError(f"--method must be one of {', '.join(GITTINS_METHODS)}, got {method!r}")


__all__ = ["BayesOptimal", "Beliefs", "GITTINS_ERROR", "GITTINS_METHODS", "MAX_BELIEF_STATES", "MAX_GITTINS_DEPTH",
           "action_labels", "bayes_optimal", "belief_mdp", "belief_size", "beliefs", "check_belief_size",
           "check_discount", "check_prior", "gittins_index", "gittins_indices", "gittins_table", "restart_mdp", "success_probability",
           "truncation_depth", "truncation_error"]
