"""The k-armed bandit testbed of Sutton and Barto chapter 2, many runs at once (numpy, vectorised over runs).

A :class:`Testbed` is the problem: ``arms`` arms that are Gaussian (section 2.3: each run draws its true values
q*(a) ~ N(``mean``, 1), a pull of arm a gives a reward ~ N(q*(a), 1)) or Bernoulli (each run draws the success
probabilities p(a) ~ Beta(``prior``), a pull gives 1 with probability p(a), else 0), stationary or drifting
(exercise 2.5: every step each true value takes an independent N(0, ``drift``) step; a Bernoulli p is clipped to
[0, 1]). Units: rewards per pull; steps are time steps t = 1, 2, ... (one pull per run each).

The methods are the chapter's, each one line of the method registry (kind "bandit",
:mod:`mdpviz.solvers.registry`) with its typed parameters and the book's defaults:

* epsilon-greedy (section 2.2-2.4): sample averages Q_(n+1) = Q_n + (R_n - Q_n) / n (eq. 2.3), or a constant step
  size ``alpha`` (eq. 2.5); the greedy arm with probability 1 - epsilon (ties broken at random), else a uniformly
  random arm;
* optimistic initial values (section 2.6, figure 2.3): the same rule from Q_1 = ``initial`` (5), greedy, alpha 0.1;
* UCB (section 2.7, eq. 2.10): A_t = argmax_a [Q_t(a) + c sqrt(ln t / N_t(a))], an arm never pulled first;
* the gradient bandit (section 2.8, eqs. 2.11-2.12): soft-max preferences H, H(A_t) += alpha (R_t - Rbar_t)
  (1 - pi(A_t)), H(a) -= alpha (R_t - Rbar_t) pi(a) for the others, the baseline Rbar_t the average of the rewards
  before step t (Rbar_1 = R_1: the first step moves nothing), or 0 with ``baseline=False``;
* Thompson sampling (posterior sampling; Russo et al., "A tutorial on Thompson sampling", 2018): Beta-Bernoulli
  for Bernoulli arms (the posterior Beta(a + s, b + f) of each arm from the testbed's own prior), and for
  Gaussian arms the conjugate normal posterior of q*(a) with the rewards' known unit variance from the prior
  N(``prior_mean``, ``prior_sd``^2);
* the Bayes-optimal policy (Bernoulli arms only): the optimal arm of the belief MDP over the success and failure
  counts at horizon ``steps``, solved exactly by :func:`mdpviz.solvers.bandit_exact.bayes_optimal`.

Every method is a generator (:func:`start_bandit`) yielding one frozen :class:`BanditStep` per time step (the
runs' chosen arms and rewards, the curves so far, the first run's estimates for the window's bars) and returning
the :class:`TestbedResult`, so the window's Step and Run, the command line and the tests share one code path;
:func:`run_testbed` drives it to the end. For Bernoulli arms the result also has ``regret`` per step: the
Bayes-optimal policy's expected reward at that step (the exact ``reward_per_step`` of the belief MDP over the same
prior and horizon) minus the method's average reward, so regret is measured against the best any policy can do
without knowing the arms, not against an oracle that knows them.

Seeds: the arms' true values, the rewards' noise and the method's own draws come from three streams of one seed
(``numpy.random.default_rng([seed, i])``), so two methods run with the same seed meet the same problems.

:func:`parameter_study` is figure 2.6: the average reward over the first ``steps`` (1,000) steps of each method
against its parameter on powers of 2. Never imports Qt.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Generator, Iterator, Sequence

import numpy as np

from mdpviz.core.jobs import JobProgress
from mdpviz.core.mdp import read_only
from mdpviz.solvers import registry

KIND = "bandit"
"""The registry kind of the testbed's methods."""

MAX_ARMS = 1000
"""Most arms a testbed takes."""
MAX_CELLS = 200_000_000
"""Most runs x steps a run of the testbed takes (about a minute of the slowest method)."""
MAX_RUN_ARMS = 5_000_000
"""Most runs x arms (the estimates and counts kept, 8 bytes each, several arrays)."""


# ------------------------------------------------------------------------------------- the problem
@dataclass(frozen=True)
class Testbed:
    """The k-armed testbed: which arms, how they are drawn, whether they drift (see the module docstring)."""

    __test__ = False  # (not a pytest class)

    arms: int = 10
    """Number of arms k (2 or more)."""
    bernoulli: bool = False
    """Bernoulli arms (p ~ Beta(prior) per run) instead of Gaussian ones (q* ~ N(mean, 1), rewards N(q*, 1))."""
    mean: float = 0.0
    """Mean of the Gaussian arms' true values (0 in figure 2.2, 4 in figure 2.5)."""
    drift: float = 0.0
    """Standard deviation of each true value's random-walk step per time step (0: stationary; exercise 2.5: 0.01)."""
    prior: tuple[float, float] = (1.0, 1.0)
    """Beta(a, b) that Bernoulli arms' p are drawn from (and Thompson sampling's and the Bayes-optimal prior)."""
    equal_start: bool = False
    """Every true value starts equal (at ``mean``, or the prior's mean for Bernoulli arms): exercise 2.5's start."""

    def __post_init__(self) -> None:
        if isinstance(self.arms, bool) or not isinstance(self.arms, (int, np.integer)) or not 2 <= self.arms <= MAX_ARMS:
            raise ValueError(f"--arms must be a whole number from 2 to {MAX_ARMS}, got {self.arms!r}")
        for name, v in (("--mean", self.mean), ("--drift", self.drift)):
            if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v):
                raise ValueError(f"{name} must be a finite number, got {v!r}")
        if abs(self.mean) > 1e6:
            raise ValueError(f"--mean must be within +-1e6, got {self.mean!r}")
        if not 0 <= self.drift <= 100:
            raise ValueError(f"--drift must be from 0 to 100 (a standard deviation per step), got {self.drift!r}")
        a_b = tuple(self.prior) if isinstance(self.prior, (tuple, list)) else ()
        if len(a_b) != 2 or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                                    and 0 < v <= 1e6 for v in a_b):
            raise ValueError(f"--prior must be two numbers A,B above 0 (the Beta prior), got {self.prior!r}")
        object.__setattr__(self, "prior", (float(a_b[0]), float(a_b[1])))
        if self.bernoulli and self.mean != 0.0:
            raise ValueError("--mean is the Gaussian arms' mean; Bernoulli arms draw p from --prior")

    @property
    def kind(self) -> str:
        """"Bernoulli" or "Gaussian"."""
        return "Bernoulli" if self.bernoulli else "Gaussian"


class _Arms:
    """The runs' arms: their true values (arms x runs: a reduction over the arms is then one pass over
    contiguous rows, 20 times faster than over the last axis of runs x arms), pulls and drift."""

    def __init__(self, tb: Testbed, runs: int, values_rng: np.random.Generator, noise_rng: np.random.Generator) -> None:
        self.tb = tb
        self.rows = np.arange(runs)
        self.noise = noise_rng
        self.walk = values_rng
        k = tb.arms
        if tb.bernoulli:
            a, b = tb.prior
            self.values = (np.full((k, runs), a / (a + b)) if tb.equal_start else values_rng.beta(a, b, size=(k, runs)))
        else:
            self.values = tb.mean + (np.zeros((k, runs)) if tb.equal_start else values_rng.standard_normal((k, runs)))

    def pull(self, arms: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The rewards of pulling ``arms`` (one per run) and whether each was an optimal arm (ties count)."""
        q = self.values[arms, self.rows]
        best = q >= self.values.max(axis=0)
        if self.tb.bernoulli:
            rewards = (self.noise.random(q.shape[0]) < q).astype(np.float64)
        else:
            rewards = q + self.noise.standard_normal(q.shape[0])
        return rewards, best

    def expected(self, arms: np.ndarray) -> np.ndarray:
        """The true values of ``arms`` (one per run)."""
        return self.values[arms, self.rows]

    def drift(self) -> None:
        """One step of exercise 2.5's random walk."""
        if self.tb.drift > 0:
            self.values += self.tb.drift * self.walk.standard_normal(self.values.shape)
            if self.tb.bernoulli:
                np.clip(self.values, 0.0, 1.0, out=self.values)


def _argmax_random(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Per column (run) of ``x`` (arms x runs), the index of its largest entry, ties broken uniformly at random
    (as the book's testbed); random numbers are drawn only for the columns with a tie."""
    ties = x == x.max(axis=0)
    out = np.argmax(ties, axis=0)
    several = ties.sum(axis=0) > 1
    if several.any():
        sub = ties[:, several]
        out[several] = np.argmax(np.where(sub, rng.random(sub.shape), -1.0), axis=0)
    return out


# ------------------------------------------------------------------------------------- the agents
class _Agent:
    """A method's state over all runs: ``choose`` the arms of step t, ``learn`` from their rewards,
    ``shown`` the first run's estimates, their uncertainty and counts (for the window's bars)."""

    name = "Q"

    def __init__(self, tb: Testbed, runs: int, rng: np.random.Generator) -> None:
        self.tb = tb
        self.rng = rng
        self.rows = np.arange(runs)
        self.N = np.zeros((tb.arms, runs), dtype=np.int64)
        """Pulls per arm and run (arms x runs, as every array of the agents)."""

    def choose(self, t: int) -> np.ndarray:
        raise NotImplementedError

    def learn(self, arms: np.ndarray, rewards: np.ndarray, t: int) -> None:
        self.N[arms, self.rows] += 1

    def shown(self) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError


class _ValueAgent(_Agent):
    """Action values Q by sample averages (eq. 2.3) or a constant step size (eq. 2.5), from Q_1 = ``initial``."""

    def __init__(self, tb: Testbed, runs: int, rng: np.random.Generator, *, alpha: float | None, initial: float) -> None:
        super().__init__(tb, runs, rng)
        self.alpha = alpha
        self.Q = np.full((tb.arms, runs), float(initial))

    def learn(self, arms: np.ndarray, rewards: np.ndarray, t: int) -> None:
        super().learn(arms, rewards, t)
        step = (1.0 / self.N[arms, self.rows]) if self.alpha is None else self.alpha
        self.Q[arms, self.rows] += step * (rewards - self.Q[arms, self.rows])

    def shown(self) -> tuple[np.ndarray, np.ndarray]:
        """Q of run 1 and its standard error: sigma / sqrt(n) for sample averages (sigma = 1 for Gaussian arms,
        sqrt(Q (1 - Q)) for Bernoulli ones), sigma sqrt(alpha / (2 - alpha)) for a constant step size (the
        recency-weighted average's steady spread); NaN before the first pull."""
        q, n = self.Q[:, 0].copy(), self.N[:, 0]
        sigma = np.sqrt(np.clip(q * (1 - q), 0.0, 0.25)) if self.tb.bernoulli else np.ones_like(q)
        with np.errstate(divide="ignore", invalid="ignore"):
            se = sigma / np.sqrt(n) if self.alpha is None else sigma * math.sqrt(self.alpha / (2 - self.alpha))
        return q, np.where(n > 0, se, np.nan)


class _EpsilonGreedy(_ValueAgent):
    def __init__(self, tb: Testbed, runs: int, rng: np.random.Generator, *, epsilon: float, alpha: float | None,
                 initial: float) -> None:
        super().__init__(tb, runs, rng, alpha=alpha, initial=initial)
        self.epsilon = epsilon

    def choose(self, t: int) -> np.ndarray:
        arms = _argmax_random(self.Q, self.rng)
        if self.epsilon > 0:
            explore = self.rng.random(arms.shape[0]) < self.epsilon
            arms = np.where(explore, self.rng.integers(0, self.tb.arms, size=arms.shape[0]), arms)
        return arms


class _UCB(_ValueAgent):
    def __init__(self, tb: Testbed, runs: int, rng: np.random.Generator, *, c: float, alpha: float | None,
                 initial: float) -> None:
        super().__init__(tb, runs, rng, alpha=alpha, initial=initial)
        self.c = c

    def choose(self, t: int) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            bonus = self.c * np.sqrt(math.log(t) / self.N)  # N = 0: infinite, so an arm never pulled goes first
        return _argmax_random(np.where(self.N == 0, np.inf, self.Q + bonus), self.rng)


class _Gradient(_Agent):
    name = "H"

    def __init__(self, tb: Testbed, runs: int, rng: np.random.Generator, *, alpha: float, baseline: bool) -> None:
        super().__init__(tb, runs, rng)
        self.alpha = alpha
        self.baseline = baseline
        self.H = np.zeros((tb.arms, runs))
        self.mean_reward = np.zeros(runs)
        self.pi = np.full((tb.arms, runs), 1.0 / tb.arms)

    def choose(self, t: int) -> np.ndarray:
        e = np.exp(self.H - self.H.max(axis=0))
        self.pi = e / e.sum(axis=0)
        u = self.rng.random(self.pi.shape[1])
        return np.minimum((np.cumsum(self.pi, axis=0) < u).sum(axis=0), self.tb.arms - 1)

    def learn(self, arms: np.ndarray, rewards: np.ndarray, t: int) -> None:
        super().learn(arms, rewards, t)
        if self.baseline:
            base = rewards if t == 1 else self.mean_reward  # Rbar_1 = R_1; then the rewards before step t
            self.mean_reward = self.mean_reward + (rewards - self.mean_reward) / t
        else:
            base = 0.0
        step = self.alpha * (rewards - base)
        self.H -= step * self.pi
        self.H[arms, self.rows] += step

    def shown(self) -> tuple[np.ndarray, np.ndarray]:
        """The preferences H of run 1 (no uncertainty: NaN)."""
        return self.H[:, 0].copy(), np.full(self.tb.arms, np.nan)


class _Thompson(_Agent):
    name = "posterior mean"

    def __init__(self, tb: Testbed, runs: int, rng: np.random.Generator, *, prior_mean: float, prior_sd: float) -> None:
        super().__init__(tb, runs, rng)
        self.S = np.zeros((tb.arms, runs))  # Bernoulli: successes; Gaussian: the sum of rewards
        self.m0, self.p0 = float(prior_mean), 1.0 / float(prior_sd) ** 2

    def _posterior(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if self.tb.bernoulli:
            a, b = self.tb.prior
            return a + self.S, b + self.N - self.S, np.empty(0)
        precision = self.p0 + self.N
        return (self.p0 * self.m0 + self.S) / precision, precision, np.empty(0)

    def choose(self, t: int) -> np.ndarray:
        x, y, _ = self._posterior()
        draw = self.rng.beta(x, y) if self.tb.bernoulli else x + self.rng.standard_normal(x.shape) / np.sqrt(y)
        return _argmax_random(draw, self.rng)

    def learn(self, arms: np.ndarray, rewards: np.ndarray, t: int) -> None:
        super().learn(arms, rewards, t)
        self.S[arms, self.rows] += rewards

    def shown(self) -> tuple[np.ndarray, np.ndarray]:
        """Run 1's posterior mean and standard deviation per arm."""
        x, y, _ = self._posterior()
        x, y = x[:, 0], y[:, 0]
        if self.tb.bernoulli:
            n = x + y
            return x / n, np.sqrt(x * y / (n * n * (n + 1)))
        return x.copy(), 1.0 / np.sqrt(y)


class _BayesOptimal(_Agent):
    name = "posterior mean"

    def __init__(self, tb: Testbed, runs: int, rng: np.random.Generator, *, steps: int) -> None:
        super().__init__(tb, runs, rng)
        if not tb.bernoulli or tb.drift > 0:
            raise ValueError("--method bayes-optimal needs stationary Bernoulli arms (--bernoulli, no --drift): "
                             "the belief MDP is over their success and failure counts")
        self.policy = bayes_policy(tb.arms, steps, tb.prior, flag="--steps")
        self.S = np.zeros((tb.arms, runs), dtype=np.int64)

    def choose(self, t: int) -> np.ndarray:
        """The exact solution's arm at every run's belief (its counts after t - 1 pulls), all runs at once."""
        return np.asarray(self.policy(self.S.T, (self.N - self.S).T, t - 1), dtype=np.int64)

    def learn(self, arms: np.ndarray, rewards: np.ndarray, t: int) -> None:
        super().learn(arms, rewards, t)
        self.S[arms, self.rows] += rewards.astype(np.int64)

    def shown(self) -> tuple[np.ndarray, np.ndarray]:
        a, b = self.tb.prior
        x, y = a + self.S[:, 0], b + self.N[:, 0] - self.S[:, 0]
        n = x + y
        return x / n, np.sqrt(x * y / (n * n * (n + 1)))


# ------------------------------------------------------------------------------------- the exact part's hooks
def _exact_module() -> Any:
    try:
        from mdpviz.solvers import bandit_exact
    except ImportError:
        raise ValueError("the Bayes-optimal policy needs mdpviz.solvers.bandit_exact (issue 39's exact part), "
                         "which this build lacks") from None
    return bandit_exact


def check_belief_budget(arms: int, horizon: int, *, flag: str = "--steps") -> int:
    """The belief MDP's number of states for ``arms`` Bernoulli arms over ``horizon`` pulls; ValueError naming
    ``--arms`` and ``flag`` when it is over the exact part's budget
    (:func:`mdpviz.solvers.bandit_exact.check_belief_size`)."""
    return int(_exact_module().check_belief_size(arms, horizon, names=("--arms", flag)))


def bayes_policy(arms: int, horizon: int, prior: tuple[float, float], *, flag: str = "--steps") -> Callable[..., int]:
    """The Bayes-optimal arm at a belief, ``policy(successes, failures, t)`` (counts per arm, t from 0), of the
    Bernoulli bandit with ``arms`` arms, Beta(``prior``) and ``horizon`` pulls (the exact part's solve)."""
    check_belief_budget(arms, horizon, flag=flag)
    return _exact_module().bayes_optimal(arms, horizon, prior=tuple(prior)).policy


def bayes_reward_per_step(arms: int, horizon: int, prior: tuple[float, float], *, flag: str = "--steps") -> np.ndarray:
    """The Bayes-optimal policy's expected reward at each of ``horizon`` steps (the exact part's
    ``reward_per_step``), the reference of :attr:`TestbedResult.regret`."""
    check_belief_budget(arms, horizon, flag=flag)
    per_step = np.asarray(_exact_module().bayes_optimal(arms, horizon, prior=tuple(prior)).reward_per_step, dtype=float)
    if per_step.shape != (horizon,):
        raise ValueError(f"the exact part's reward_per_step has shape {per_step.shape}, not ({horizon},)")
    return per_step


# ------------------------------------------------------------------------------------- snapshots
@dataclass(frozen=True, eq=False)
class BanditStep:
    """One time step of every run (frozen; read-only arrays)."""

    method: str
    """The method's registry id."""
    step: int
    """The time step t (from 1)."""
    arms: np.ndarray
    """The arm each run pulled at t (from 0)."""
    rewards: np.ndarray
    """The reward each run got at t."""
    average_reward: np.ndarray
    """Average reward over the runs at each step 1..t."""
    optimal_action: np.ndarray
    """Fraction of the runs that pulled an optimal arm at each step 1..t."""
    true_values: np.ndarray
    """Run 1's true values q*(a) (Bernoulli: p(a)) after this step's drift."""
    estimates: np.ndarray
    """Run 1's estimates after learning from step t (:attr:`estimate_name`)."""
    uncertainty: np.ndarray
    """Run 1's estimates' standard error or posterior standard deviation (NaN: none)."""
    counts: np.ndarray
    """Run 1's pulls per arm so far."""
    estimate_name: str
    """What :attr:`estimates` are: "Q", "H" (the gradient bandit's preferences) or "posterior mean"."""

    @property
    def last_arm(self) -> int:
        """The arm run 1 pulled at t."""
        return int(self.arms[0])

    @property
    def last_reward(self) -> float:
        """The reward run 1 got at t."""
        return float(self.rewards[0])


@dataclass(frozen=True, eq=False)
class TestbedResult:
    """A finished run of the testbed (per-step arrays of length ``steps``, read-only)."""

    __test__ = False  # (not a pytest class)

    method: str
    """The method's registry id."""
    options: dict
    """The method's parameters as run (its registry defaults filled in)."""
    testbed: Testbed
    runs: int
    steps: int
    seed: int | None
    average_reward: np.ndarray
    """Average reward over the runs at each step (figure 2.2, top)."""
    optimal_action: np.ndarray
    """Fraction of runs pulling an optimal arm at each step (figure 2.2, bottom; 1 = 100%)."""
    average_reward_se: np.ndarray
    """The standard error of :attr:`average_reward` at each step (the runs' sample standard deviation / sqrt(runs))."""
    run_totals: np.ndarray
    """Each run's total reward over the steps."""
    regret: np.ndarray | None = None
    """Bernoulli arms: the Bayes-optimal policy's expected reward at each step minus :attr:`average_reward`
    (None: not asked, or Gaussian arms)."""
    expected_reward: np.ndarray | None = field(default=None)
    """The runs' average of the pulled arm's true value at each step (the expected reward, without the rewards'
    noise: a curve with less noise than :attr:`average_reward`, with the same mean)."""

    @property
    def total_reward(self) -> float:
        """The runs' mean total reward."""
        return float(self.run_totals.mean())

    @property
    def total_reward_se(self) -> float:
        """The standard error of :attr:`total_reward`."""
        n = self.run_totals.shape[0]
        return float(self.run_totals.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan


# ------------------------------------------------------------------------------------- the methods
Gen = Generator[BanditStep, None, TestbedResult]
"""A method's generator: one :class:`BanditStep` per step (with ``snapshots=False``: the step reached, an int,
every :data:`CHECKPOINT` steps), returning the :class:`TestbedResult`."""

CHECKPOINT = 50
"""Without snapshots, a method's generator yields the step reached every this many steps (progress, cancel)."""


def _simulate(method: str, make: Callable[[np.random.Generator], _Agent], tb: Testbed, *, runs: int, steps: int,
              seed: int | None, options: dict, snapshots: bool = True) -> Gen:
    """The one loop of every method: per step, the agent chooses, the arms pay, the agent learns, the arms drift."""
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % (2 ** 63))  # noqa: NPY002 (a fresh seed, reported)
        fresh = True
    else:
        fresh = False
    values_rng, noise_rng, agent_rng = (np.random.default_rng([seed, i]) for i in range(3))
    arms_env = _Arms(tb, runs, values_rng, noise_rng)
    agent = make(agent_rng)
    avg = np.zeros(steps)
    opt = np.zeros(steps)
    sq = np.zeros(steps)
    exp = np.zeros(steps)
    totals = np.zeros(runs)
    ro_avg, ro_opt = read_only(avg), read_only(opt)
    for t in range(1, steps + 1):
        chosen = agent.choose(t)
        rewards, best = arms_env.pull(chosen)
        exp[t - 1] = arms_env.expected(chosen).mean()
        agent.learn(chosen, rewards, t)
        avg[t - 1] = rewards.mean()
        sq[t - 1] = rewards.var(ddof=1) if runs > 1 else math.nan
        opt[t - 1] = best.mean()
        totals += rewards
        arms_env.drift()
        if not snapshots:
            if t % CHECKPOINT == 0:
                yield t  # (a place to report progress or cancel)
        else:
            est, unc = agent.shown()
            yield BanditStep(method, t, read_only(chosen), read_only(rewards), ro_avg[:t], ro_opt[:t],
                             read_only(arms_env.values[:, 0].copy()), read_only(np.asarray(est, dtype=float)),
                             read_only(np.asarray(unc, dtype=float)), read_only(agent.N[:, 0].copy()), agent.name)
    se = np.sqrt(sq / runs) if runs > 1 else np.full(steps, math.nan)
    return TestbedResult(method, dict(options), tb, runs, steps, None if fresh else seed, read_only(avg), read_only(opt),
                         read_only(se), read_only(totals), expected_reward=read_only(exp))


def epsilon_greedy(tb: Testbed, *, runs: int, steps: int, seed: int | None = 0, epsilon: float = 0.1,
                   alpha: float | None = None, initial: float = 0.0, snapshots: bool = True) -> Gen:
    """Epsilon-greedy action selection (Sutton and Barto 2.2-2.4) with sample averages (eq. 2.3) or a constant
    step size ``alpha`` (eq. 2.5) from Q_1 = ``initial``."""
    opts = dict(epsilon=epsilon, alpha=alpha, initial=initial)
    return _simulate(method_of(epsilon_greedy), lambda rng: _EpsilonGreedy(tb, runs, rng, **opts), tb, runs=runs,
                     steps=steps, seed=seed, options=opts, snapshots=snapshots)


def optimistic(tb: Testbed, *, runs: int, steps: int, seed: int | None = 0, initial: float = 5.0,
               epsilon: float = 0.0, alpha: float | None = 0.1, snapshots: bool = True) -> Gen:
    """Optimistic initial values (Sutton and Barto 2.6, figure 2.3): greedy from Q_1 = ``initial`` with a
    constant step size 0.1; the disappointment of every arm's first pulls drives early exploration."""
    opts = dict(initial=initial, epsilon=epsilon, alpha=alpha)
    return _simulate(method_of(optimistic), lambda rng: _EpsilonGreedy(tb, runs, rng, **opts), tb, runs=runs, steps=steps,
                     seed=seed, options=opts, snapshots=snapshots)


def ucb(tb: Testbed, *, runs: int, steps: int, seed: int | None = 0, c: float = 2.0, alpha: float | None = None,
        initial: float = 0.0, snapshots: bool = True) -> Gen:
    """Upper-confidence-bound action selection (Sutton and Barto 2.7, eq. 2.10, figure 2.4):
    A_t = argmax_a [Q_t(a) + c sqrt(ln t / N_t(a))], an arm with N_t(a) = 0 being maximising."""
    opts = dict(c=c, alpha=alpha, initial=initial)
    return _simulate(method_of(ucb), lambda rng: _UCB(tb, runs, rng, **opts), tb, runs=runs, steps=steps, seed=seed,
                     options=opts, snapshots=snapshots)


def gradient_bandit(tb: Testbed, *, runs: int, steps: int, seed: int | None = 0, alpha: float = 0.1,
                    baseline: bool = True, snapshots: bool = True) -> Gen:
    """The gradient bandit algorithm (Sutton and Barto 2.8, eqs. 2.11-2.12, figure 2.5): soft-max over
    preferences H updated by stochastic gradient ascent on the expected reward, with the average-reward
    baseline or none."""
    opts = dict(alpha=alpha, baseline=bool(baseline))
    return _simulate(method_of(gradient_bandit), lambda rng: _Gradient(tb, runs, rng, **opts), tb, runs=runs, steps=steps,
                     seed=seed, options=opts, snapshots=snapshots)


def thompson(tb: Testbed, *, runs: int, steps: int, seed: int | None = 0, prior_mean: float = 0.0,
             prior_sd: float = 1.0, snapshots: bool = True) -> Gen:
    """Thompson sampling (posterior sampling): each step, one draw of every arm's value from its posterior, the
    largest draw pulled. Bernoulli arms: Beta(a + successes, b + failures) from the testbed's prior; Gaussian
    arms: the normal posterior N((m0/s0^2 + sum R) / (1/s0^2 + n), 1 / (1/s0^2 + n)) (unit reward variance)."""
    opts = dict(prior_mean=prior_mean, prior_sd=prior_sd)
    return _simulate(method_of(thompson), lambda rng: _Thompson(tb, runs, rng, **opts), tb, runs=runs, steps=steps, seed=seed,
                     options=opts, snapshots=snapshots)


def bayes_optimal_policy(tb: Testbed, *, runs: int, steps: int, seed: int | None = 0, snapshots: bool = True) -> Gen:
    """The Bayes-optimal policy of the Bernoulli bandit with horizon ``steps``: at every belief (success and
    failure counts per arm, and the step), the arm of the belief MDP's exact solution
    (:func:`mdpviz.solvers.bandit_exact.bayes_optimal`). Its expected total reward is the belief MDP's value."""
    agent = _BayesOptimal(tb, runs, np.random.default_rng(0), steps=steps)  # checked (and solved) before any step

    def make(rng: np.random.Generator) -> _Agent:
        agent.rng = rng
        return agent

    return _simulate(method_of(bayes_optimal_policy), make, tb, runs=runs, steps=steps, seed=seed, options={},
                     snapshots=snapshots)


def method_of(fn: Callable[..., Any]) -> str:
    """The registry id whose entry point is ``fn`` (one of this module's methods; the registry spells the ids)."""
    target = f"{__name__}:{fn.__name__}"
    return next(s.id for s in registry.specs(KIND) if s.entry_point == target)


# ------------------------------------------------------------------------------------- running one
def method_options(method: str, options: dict[str, Any]) -> dict[str, Any]:
    """``options`` of bandit method ``method`` checked against its registry line (ValueError naming an option
    it does not take, or a value out of its range) with its defaults filled in."""
    spec = registry.find(method)
    if spec is None or spec.kind != KIND:
        raise ValueError(f"unknown bandit method {method!r}; choose one of {', '.join(registry.ids(KIND))}")
    out: dict[str, Any] = {}
    for name, value in options.items():
        p = spec.param(name)
        if p is None:
            takes = ", ".join(q.name for q in spec.params) or "no options"
            raise ValueError(f"{name} is not an option of {spec.id} (it takes {takes})")
        if value is not None and p.type is float and isinstance(value, (int, float)) and not isinstance(value, bool):
            if not math.isfinite(value):
                raise ValueError(f"{name} must be a finite number, got {value!r}")
            value = float(value)
        out[name] = p.check(value) if value is not None else None
    for p in spec.params:
        if out.get(p.name) is None:
            out[p.name] = p.default
    return out


def check_size(tb: Testbed, runs: int, steps: int) -> None:
    """ValueError naming ``--runs`` / ``--steps`` when the run would be too big."""
    for flag, v in (("--runs", runs), ("--steps", steps)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{flag} must be a whole number of at least 1, got {v!r}")
    if runs * steps > MAX_CELLS:
        raise ValueError(f"--runs {runs:,} x --steps {steps:,} = {runs * steps:,} pulls, over the budget of "
                         f"{MAX_CELLS:,}: take fewer runs or steps")
    if runs * tb.arms > MAX_RUN_ARMS:
        raise ValueError(f"--runs {runs:,} x --arms {tb.arms:,} is over the budget of {MAX_RUN_ARMS:,} estimates")


def start_bandit(method: str, tb: Testbed, *, runs: int, steps: int, seed: int | None = 0,
                 snapshots: bool = True, **options: Any) -> Gen:
    """The generator of bandit method ``method`` (a registry id of kind "bandit") on ``tb`` with ``options``
    (checked now: ValueError)."""
    check_size(tb, runs, steps)
    opts = method_options(method, options)
    return registry.get(method).load()(tb, runs=runs, steps=steps, seed=seed, snapshots=snapshots, **opts)


def run_testbed(method: str, tb: Testbed | None = None, *, runs: int = 2000, steps: int = 1000, seed: int | None = 0,
                regret: bool | None = None, **options: Any) -> TestbedResult:
    """Run bandit method ``method`` to the end (no snapshots kept) and return its :class:`TestbedResult`.
    ``regret``: compute :attr:`TestbedResult.regret` (Bernoulli arms only; None: for Bernoulli arms when their
    belief MDP is within the budget). ValueError names a refused option."""
    tb = tb or Testbed()
    want = regret
    if regret and (not tb.bernoulli or tb.drift > 0):
        raise ValueError("regret is measured against the Bayes-optimal policy of stationary Bernoulli arms "
                         "(--bernoulli, no --drift)")
    if want is None:
        want = tb.bernoulli and tb.drift == 0 and _within_budget(tb.arms, steps)
    try:
        reference = bayes_reward_per_step(tb.arms, steps, tb.prior) if want else None  # refused before any run
    except ValueError as e:
        if method == method_of(bayes_optimal_policy):
            raise
        raise ValueError(f"regret: {e}; or skip the regret (--no-regret)") from None
    gen = start_bandit(method, tb, runs=runs, steps=steps, seed=seed, snapshots=False, **options)
    result = drain(gen)
    if reference is not None:
        result = replace(result, regret=read_only(reference - result.average_reward))
    return result


def _within_budget(arms: int, horizon: int) -> bool:
    try:
        check_belief_budget(arms, horizon)
    except ValueError:
        return False
    return True


def drain(gen: Gen) -> TestbedResult:
    """Step ``gen`` to its end and return its result."""
    while True:
        try:
            next(gen)
        except StopIteration as stop:
            return stop.value


# ------------------------------------------------------------------------------------- the parameter study
STUDY_GRID: dict[str, tuple[str, tuple[int, int]]] = {
    "eps-greedy": ("epsilon", (-7, -2)),
    "gradient-bandit": ("alpha", (-5, 1)),
    "ucb": ("c", (-4, 2)),
    "optimistic": ("initial", (-2, 2)),
}
"""Figure 2.6's sweep: per method, the parameter varied and the exponents k of its values 2^k (the book's
ranges: epsilon 1/128..1/4, alpha 1/32..2 (the book's 3 rounded to a power of 2), c 1/16..4, Q_0 1/4..4)."""


@dataclass(frozen=True, eq=False)
class StudyCurve:
    """One method's curve of the parameter study."""

    method: str
    param: str
    values: np.ndarray
    """The parameter's values (powers of 2)."""
    average_reward: np.ndarray
    """The average reward over the first ``steps`` steps (and the runs) at each value."""
    standard_error: np.ndarray
    """Its standard error over the runs."""


@dataclass(frozen=True, eq=False)
class ParameterStudy:
    """Figure 2.6: a curve per method."""

    testbed: Testbed
    runs: int
    steps: int
    seed: int | None
    curves: tuple[StudyCurve, ...]


def study_grid(grid: dict[str, tuple[str, tuple[int, int]]] | None = None) -> dict[str, tuple[str, np.ndarray]]:
    """Per method, the parameter and its values 2^k of ``grid`` (default :data:`STUDY_GRID`), checked."""
    out: dict[str, tuple[str, np.ndarray]] = {}
    for method, (param, (lo, hi)) in (grid or STUDY_GRID).items():
        spec = registry.get(method)
        if spec.kind != KIND or not spec.takes(param):
            raise ValueError(f"parameter study: {method!r} is not a bandit method taking {param!r}")
        if lo > hi:
            raise ValueError(f"parameter study: {method}'s exponents {lo}..{hi} are empty")
        out[spec.id] = (param, 2.0 ** np.arange(lo, hi + 1))
    return out


def parameter_study_job(tb: Testbed | None = None, *, runs: int = 2000, steps: int = 1000, seed: int | None = 0,
                        grid: dict[str, tuple[str, tuple[int, int]]] | None = None) -> Iterator[Any]:
    """:func:`parameter_study` as a job generator (yields :class:`~mdpviz.core.jobs.JobProgress` every
    :data:`CHECKPOINT` steps of every point; returns the :class:`ParameterStudy`)."""
    tb = tb or Testbed()
    sweep = study_grid(grid)
    check_size(tb, runs, steps)
    total = sum(len(v) for _p, v in sweep.values()) * steps
    done = 0
    curves = []
    yield JobProgress(0, total, "parameter study")
    for method, (param, values) in sweep.items():
        ys, ses = [], []
        for v in values:
            label = f"{registry.get(method).short_title} {param} = {v:g}"
            gen = start_bandit(method, tb, runs=runs, steps=steps, seed=seed, snapshots=False, **{param: float(v)})
            res = yield from _progress(gen, done, total, label)
            done += steps
            per_run = res.run_totals / steps
            ys.append(float(per_run.mean()))
            ses.append(float(per_run.std(ddof=1) / math.sqrt(runs)) if runs > 1 else math.nan)
        curves.append(StudyCurve(method, param, read_only(values), read_only(np.array(ys)), read_only(np.array(ses))))
    return ParameterStudy(tb, runs, steps, seed, tuple(curves))


def _progress(gen: Gen, done: int, total: int, label: str) -> Generator[JobProgress, None, TestbedResult]:
    """Step a method's generator (without snapshots), yielding its progress as a job's; returns its result."""
    while True:
        try:
            t = next(gen)
        except StopIteration as stop:
            return stop.value
        yield JobProgress(done + int(t), total, label)


def testbed_job(tb: Testbed, methods: Sequence[tuple[str, dict[str, Any]]], *, runs: int, steps: int,
                seed: int | None = 0) -> Iterator[Any]:
    """A job generator running each (method, options) of ``methods`` on ``tb`` to the end, one after the other
    from the same seed (the same problems), with regret for Bernoulli arms within the belief budget; yields
    :class:`~mdpviz.core.jobs.JobProgress`, returns the tuple of :class:`TestbedResult`. Every option is checked
    before any run (ValueError)."""
    check_size(tb, runs, steps)
    for method, options in methods:
        method_options(method, options)
    want = tb.bernoulli and tb.drift == 0 and _within_budget(tb.arms, steps)
    total = len(methods) * steps
    yield JobProgress(0, total, "the exact Bayes-optimal rewards" if want else "testbed")
    reference = bayes_reward_per_step(tb.arms, steps, tb.prior) if want else None
    out = []
    for i, (method, options) in enumerate(methods):
        gen = start_bandit(method, tb, runs=runs, steps=steps, seed=seed, snapshots=False, **options)
        res = yield from _progress(gen, i * steps, total, registry.get(method).short_title)
        if reference is not None:
            res = replace(res, regret=read_only(reference - res.average_reward))
        out.append(res)
    return tuple(out)


def parameter_study(tb: Testbed | None = None, *, runs: int = 2000, steps: int = 1000, seed: int | None = 0,
                    grid: dict[str, tuple[str, tuple[int, int]]] | None = None) -> ParameterStudy:
    """Figure 2.6 (Sutton and Barto 2.10): each method's average reward over the first ``steps`` steps against
    its parameter on powers of 2 (:data:`STUDY_GRID`), every point ``runs`` runs from the same seed."""
    gen = parameter_study_job(tb, runs=runs, steps=steps, seed=seed, grid=grid)
    while True:
        try:
            next(gen)
        except StopIteration as stop:
            return stop.value


__all__ = ["BanditStep", "CHECKPOINT", "KIND", "ParameterStudy", "STUDY_GRID", "StudyCurve", "Testbed",
           "TestbedResult", "bayes_optimal_policy", "bayes_policy", "bayes_reward_per_step", "check_belief_budget",
           "check_size", "drain", "epsilon_greedy", "gradient_bandit", "method_of", "method_options", "optimistic",
           "parameter_study", "parameter_study_job", "run_testbed", "start_bandit", "study_grid", "testbed_job", "thompson", "ucb"]
