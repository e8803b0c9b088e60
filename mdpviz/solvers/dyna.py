"""Dyna-Q and Dyna-Q+: planning with a learned model beside the exact answer (Sutton and Barto 8.2-8.3).

Tabular Dyna-Q (the book's box in section 8.2) on any :class:`~mdpviz.core.mdp.TabularMDP` with a start state,
the model used only as the environment: from the current state S it (b) picks A epsilon-greedily in Q (exact
ties broken at random), (c) takes it in the environment and observes R and S', (d) makes the one-step
Q-learning update Q(S, A) <- Q(S, A) + alpha [R + gamma max_a Q(S', a) - Q(S, A)] (eq. 6.8; a terminal S' has
value 0, and at a minimiser's state the max is a min), (e) records Model(S, A) <- R, S' (a deterministic model:
the last outcome seen), then (f) makes n planning updates: each draws a previously observed state at random, an
action previously taken there at random, reads R, S' from the model and makes the same update. Real steps and
planning updates are counted apart (:attr:`DynaStep.real_steps`, :attr:`DynaStep.planning_updates`).

Dyna-Q+ (section 8.3) adds to each planning update's reward the exploration bonus kappa sqrt(tau), tau the real
steps since (S, A) was last tried in the environment, and, as the book's footnote to figure 8.5 says, the actions
never tried from a visited state are in the model too, leading back to that state with reward 0 (their tau
counted from the start of the run). The bonus is used in planning only, as in the book's figures; on a model
of costs (objective "min") and at a minimiser's state it is subtracted, so that it always favours the untried.

A world that changes (figures 8.4 and 8.5, the blocking and shortcut mazes): ``switch_mdp`` (a second model over
the same states and (state, action) rows) replaces the environment after ``switch_after`` real steps; the exact
answer the snapshots are measured against switches with it.

Written as the other learners: :func:`dyna_learner` returns a generator yielding one frozen :class:`DynaStep`
per episode (or per ``batch`` of episodes) that carries every field of
:class:`~mdpviz.solvers.learning.LearningStep` (so the learning views and ``mdpviz learn`` read it) and the
planning's own: the real steps and planning updates so far, the cumulative reward, the model's known (state,
action) rows, the (state, action) pairs the last real step's planning updated. A seeded numpy Generator draws
every random number. Pure Python (a few microseconds a planning update: figure 8.5's 300,000 updates take about
a second). Never imports Qt.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Generator

import numpy as np

from mdpviz.core.mdp import TabularMDP, is_whole, read_only
from mdpviz.solvers import registry
from mdpviz.solvers.learning import (
    MAX_EPISODES,
    MAX_STEPS_LIMIT,
    ExactAnswer,
    LearningSettings,
    LearningStep,
    exact_answer,
    greedy_policy_value,
    model_arrays,
)
from mdpviz.solvers.sweep import greedy

KIND = "planning"
"""The registry kind of these methods."""

DEFAULT_MAX_STEPS = 100_000
"""Cap on the steps of an episode (the Dyna maze's first episode, a random walk, takes about 1,400 on average)."""

MAX_PLANNING_STEPS = 100_000
"""Largest n (planning updates per real step)."""


def _real(x: object) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool) and math.isfinite(x)


@dataclass(frozen=True)
class DynaSettings:
    """How Dyna-Q (or Dyna-Q+) learns and plans; validates itself (ValueError naming the field)."""

    method: str
    """The method's id (kind "planning" of the registry)."""
    planning_steps: int = 5
    """n: planning updates from the model after each real step (0: one-step Q-learning)."""
    kappa: float = 1e-3
    """Dyna-Q+'s bonus weight: a planning update's reward is R + kappa sqrt(tau) (0 for Dyna-Q)."""
    bonus: bool = False
    """Dyna-Q+: the exploration bonus and the untried actions in the model (the method's line says)."""
    episodes: int = 50
    """Episodes to run (at most; ``total_steps`` may end the run first)."""
    total_steps: int = 0
    """Stop after this many real steps in all, the last episode cut there (figures 8.4-8.5: 3,000 and 6,000);
    0: run the episodes."""
    alpha: float = 0.1
    """Step size of every update, real and planned (the book's 0.1)."""
    epsilon: float = 0.1
    """Probability of a uniformly random legal action."""
    initial: float = 0.0
    """Initial Q of every (state, action)."""
    max_steps: int = DEFAULT_MAX_STEPS
    """Cap on the real steps of an episode."""
    start: int = 0
    """The state episodes start in."""
    seed: int = 0
    """Seed of the numpy Generator that draws every action, outcome and planning choice."""
    batch: int = 1
    """Episodes per snapshot (the numbers do not depend on it)."""
    eval_every: int = 100
    """Episodes between exact evaluations of the learned greedy policy from the start (0: only at the last)."""
    switch_after: int = 0
    """Real steps after which the environment becomes ``switch_mdp`` (0: never)."""

    def __post_init__(self) -> None:
        if not registry.is_kind(self.method, KIND):
            raise ValueError(f"method: {self.method!r} is not a planning method; choose one of "
                             f"{', '.join(registry.ids(KIND))}")
        for name, lo, hi in (("planning_steps", 0, MAX_PLANNING_STEPS), ("episodes", 1, MAX_EPISODES),
                             ("total_steps", 0, 10 ** 12), ("max_steps", 1, MAX_STEPS_LIMIT), ("batch", 1, MAX_EPISODES),
                             ("eval_every", 0, MAX_EPISODES), ("switch_after", 0, 10 ** 12), ("seed", 0, 2 ** 63 - 1)):
            v = getattr(self, name)
            if not is_whole(v) or not lo <= v <= hi:
                raise ValueError(f"{name} must be a whole number in {lo:,}..{hi:,}, got {v!r}")
        if not _real(self.alpha) or not 0.0 < self.alpha <= 1.0:
            raise ValueError(f"alpha must be in (0, 1], got {self.alpha!r}")
        if not _real(self.epsilon) or not 0.0 <= self.epsilon <= 1.0:
            raise ValueError(f"epsilon must be in [0, 1], got {self.epsilon!r}")
        if not _real(self.kappa) or self.kappa < 0.0:
            raise ValueError(f"kappa must be a finite number >= 0, got {self.kappa!r}")
        if not _real(self.initial):
            raise ValueError(f"initial must be a finite number, got {self.initial!r}")


@dataclass(frozen=True, eq=False)
class DynaStep(LearningStep):
    """A :class:`~mdpviz.solvers.learning.LearningStep` of Dyna-Q(+), with what planning adds."""

    planning_steps: int = 0
    """n: planning updates per real step."""
    real_steps: int = 0
    """Real steps (environment transitions) so far."""
    planning_updates: int = 0
    """Planning updates (from the model) so far."""
    cumulative_reward: float = 0.0
    """Sum of the rewards of every real step so far (undiscounted; figures 8.4-8.5's y axis)."""
    episode_ends: tuple[int, ...] = ()
    """Real steps done at the end of each episode of this batch."""
    episode_rewards: tuple[float, ...] = ()
    """Cumulative reward at the end of each episode of this batch."""
    known: np.ndarray | None = None
    """bool (n_rows), read-only: the (state, action) rows in the learned model (Dyna-Q+: every action of a
    visited state, the untried ones as the footnote's self-loops with reward 0)."""
    tried: np.ndarray | None = None
    """bool (n_rows), read-only: the rows taken in the environment at least once."""
    planned: tuple[tuple[int, int], ...] = ()
    """(state, action id) of each planning update of the last real step, in order."""
    switch_after: int = 0
    """Real steps after which the world changes (0: never)."""
    switched: bool = False
    """The world has changed (the environment and :attr:`exact` are the second model's)."""


# ====================================================================== the generator
def dyna_learner(mdp: TabularMDP, method: str, *, exact: ExactAnswer | None = None, switch_mdp: TabularMDP | None = None,
                 switch_exact: ExactAnswer | None = None, compiled: bool | None = None, eval_budget: float = 0.0,
                 **options) -> Generator[DynaStep, int | None, DynaStep]:
    """The generator of Dyna-Q or Dyna-Q+ (``method``, kind "planning") on ``mdp``: one :class:`DynaStep` per
    ``batch`` episodes (``send(k)``: after up to k more). ``options`` are :class:`DynaSettings`'s fields;
    ``switch_mdp`` the world after ``switch_after`` real steps (the same states and rows); ``exact`` and
    ``switch_exact`` the answers when already solved (else solved here). ``compiled`` and ``eval_budget`` are
    accepted for the learners' common call and unused (no compiled loop). Checked now: ValueError in one line."""
    del compiled, eval_budget
    spec = registry.get(method)
    settings = DynaSettings(method=spec.id, bonus=spec.takes("kappa"), **options)
    if not spec.takes("kappa") and "kappa" in options:
        raise ValueError(f"kappa applies to {', '.join(registry.ids_where(KIND, takes='kappa'))} only, not {method}")
    if not (0 <= settings.start < mdp.n_states):
        raise ValueError(f"start state {settings.start} is out of range 0..{mdp.n_states - 1}")
    if mdp.terminal[settings.start]:
        raise ValueError(f"start state {settings.start} is terminal: an episode from it has no step")
    if switch_mdp is not None:
        same = (switch_mdp.n_states == mdp.n_states and switch_mdp.n_rows == mdp.n_rows
                and np.array_equal(switch_mdp.row_state, mdp.row_state)
                and np.array_equal(switch_mdp.row_action, mdp.row_action))
        if not same:
            raise ValueError("switch_mdp: the world after the switch must have the same states and (state, action) "
                             "rows as the first")
    elif settings.switch_after:
        raise ValueError("switch_after: the world has no second model to switch to")
    ref = LearningSettings(method=registry.ids_where("learner", prediction=False)[0])
    if exact is None:
        exact = exact_answer(mdp, ref)
    if switch_mdp is not None and switch_exact is None:
        switch_exact = exact_answer(switch_mdp, ref)
    return _run(mdp, settings, exact, switch_mdp, switch_exact)


class _World:
    """One environment's arrays as Python lists (a real step reads a few of them)."""

    def __init__(self, mdp: TabularMDP) -> None:
        arr = model_arrays(mdp)
        self.mdp = mdp
        self.row_ptr = arr["row_ptr"].tolist()
        self.dst = arr["dst"].tolist()
        self.cum = arr["cum"].tolist()
        self.reward = arr["reward"].tolist()
        self.terminal = arr["terminal"].tolist()

    def sample(self, row: int, u: float) -> tuple[float, int]:
        """(R, S') of taking ``row``, with the uniform number ``u`` (the outcome whose cumulative probability
        first exceeds it; the last when rounding leaves it above all)."""
        lo, hi = self.row_ptr[row], self.row_ptr[row + 1]
        k = lo
        while k < hi - 1 and self.cum[k] <= u:
            k += 1
        return self.reward[k], self.dst[k]


def _run(mdp: TabularMDP, settings: DynaSettings, exact: ExactAnswer, switch_mdp: TabularMDP | None,
         switch_exact: ExactAnswer | None) -> Generator[DynaStep, int | None, DynaStep]:
    rng = np.random.default_rng(settings.seed)
    worlds = [_World(mdp)] + ([_World(switch_mdp)] if switch_mdp is not None else [])
    world = worlds[0]
    ptr = np.asarray(mdp.state_ptr).tolist()
    sense = np.asarray(mdp.sense, dtype=np.float64).tolist()
    term = np.asarray(mdp.terminal).tolist()
    row_action = np.asarray(mdp.row_action).tolist()
    q = [float(settings.initial)] * mdp.n_rows
    gamma, alpha, eps, n = float(mdp.discount), float(settings.alpha), float(settings.epsilon), settings.planning_steps
    kappa = float(settings.kappa) if settings.bonus else 0.0
    model_r = [0.0] * mdp.n_rows
    model_s = [-1] * mdp.n_rows  # -1: not in the model
    last_tried = [0] * mdp.n_rows  # real step at which the row was last taken (Dyna-Q+'s tau)
    tried = [False] * mdp.n_rows
    seen_states: list[int] = []  # observed states, in order of first visit
    seen_rows: dict[int, list[int]] = {}  # state -> its rows in the model
    visits = [0] * mdp.n_states
    row_updates = [0] * mdp.n_rows
    real, planned_total, updates, episode = 0, 0, 0, 0
    cumulative = 0.0
    switched = False
    memo: dict = {}
    t0 = time.perf_counter()
    learning = 0.0
    sent: int | None = None
    last: DynaStep | None = None
    planned: list[tuple[int, int]] = []

    def update(row: int, r: float, s2: int) -> None:
        if term[s2]:
            target = r
        else:
            lo, hi = ptr[s2], ptr[s2 + 1]
            vals = q[lo:hi]
            target = r + gamma * (max(vals) if sense[s2] > 0 else min(vals))
        q[row] += alpha * (target - q[row])
        row_updates[row] += 1

    while episode < settings.episodes and not (settings.total_steps and real >= settings.total_steps):
        want = int(sent) if is_whole(sent) and sent > 0 else settings.batch
        m = min(want, settings.episodes - episode)
        returns, lengths, ends, cums = [], [], [], []
        path: list[int] = []
        acts: list[int] = []
        rews: list[float] = []
        t_loop = time.perf_counter()
        for _ in range(m):
            s = settings.start
            path, acts, rews = [s], [], []
            g, disc = 0.0, 1.0
            while not term[s] and len(acts) < settings.max_steps and not (settings.total_steps and real >= settings.total_steps):
                if settings.switch_after and not switched and real >= settings.switch_after:
                    switched, world = True, worlds[1]
                visits[s] += 1
                lo, hi = ptr[s], ptr[s + 1]
                u = rng.random(3 + 2 * n).tolist()
                if u[0] < eps:
                    row = lo + min(int(u[1] * (hi - lo)), hi - lo - 1)
                else:
                    vals = q[lo:hi]
                    best = max(vals) if sense[s] > 0 else min(vals)
                    ties = [lo + k for k, v in enumerate(vals) if v == best]
                    row = ties[min(int(u[1] * len(ties)), len(ties) - 1)]
                r, s2 = world.sample(row, float(u[2]))
                real += 1
                cumulative += r
                g += disc * r
                disc *= gamma
                update(row, r, s2)
                updates += 1
                if s not in seen_rows:
                    seen_states.append(s)
                    seen_rows[s] = []
                    if settings.bonus:  # the footnote: untried actions lead back to s with reward 0
                        for k in range(lo, hi):
                            seen_rows[s].append(k)
                            model_r[k], model_s[k] = 0.0, s
                if model_s[row] < 0:
                    seen_rows[s].append(row)
                model_r[row], model_s[row] = r, s2
                tried[row] = True
                last_tried[row] = real
                planned = []
                n_seen = len(seen_states)
                for k in range(3, 3 + 2 * n, 2):  # (the update written out: it runs n times a real step)
                    ps = seen_states[min(int(u[k] * n_seen), n_seen - 1)]
                    options = seen_rows[ps]
                    prow = options[min(int(u[k + 1] * len(options)), len(options) - 1)]
                    pr, ps2 = model_r[prow], model_s[prow]
                    if kappa:  # (the mover's sense: a bonus makes the move look better to whoever moves, costs too)
                        pr += sense[ps] * kappa * math.sqrt(real - last_tried[prow])
                    if term[ps2]:
                        target = pr
                    else:
                        vals = q[ptr[ps2]:ptr[ps2 + 1]]
                        target = pr + gamma * (max(vals) if sense[ps2] > 0 else min(vals))
                    q[prow] += alpha * (target - q[prow])
                    row_updates[prow] += 1
                    planned.append((ps, row_action[prow]))
                planned_total += n
                updates += n
                path.append(s2)
                acts.append(row_action[row])
                rews.append(r)
                s = s2
            episode += 1
            returns.append(g)
            lengths.append(len(acts))
            ends.append(real)
            cums.append(cumulative)
            if settings.total_steps and real >= settings.total_steps:
                break
        learning += time.perf_counter() - t_loop
        done = episode >= settings.episodes or bool(settings.total_steps and real >= settings.total_steps)
        if settings.switch_after and not switched and real >= settings.switch_after:
            switched, world = True, worlds[1]
        here_mdp = worlds[1].mdp if switched else mdp
        here_exact = switch_exact if switched else exact
        last = _snapshot(here_mdp, settings, here_exact, np.array(q), episode, episode - len(lengths), updates,
                         visits, row_updates, path, acts, rews, returns, lengths, memo, done, t0, learning,
                         dict(real_steps=real, planning_updates=planned_total, cumulative_reward=cumulative,
                              episode_ends=tuple(ends), episode_rewards=tuple(cums),
                              known=read_only(np.array(model_s) >= 0), tried=read_only(np.array(tried)),
                              planned=tuple(planned), switch_after=settings.switch_after, switched=switched,
                              planning_steps=n), row_action)
        sent = yield last
        if done:
            break
    return last


def _snapshot(mdp, settings, exact, q, episode, prev, updates, visits, row_updates, path, acts, rews, returns,
              lengths, memo, done, t0, learning, extra, row_action) -> DynaStep:
    """The snapshot after ``episode`` episodes: the learned Q's greedy values and policy measured against
    ``exact`` (the world's now), and every ``eval_every`` episodes (and at the last) the exact value of the
    greedy policy from the start."""
    live = ~np.asarray(mdp.terminal)
    values, best_rows = greedy(mdp, q, tie_tol=0.0)
    err = (values - exact.values)[live]
    rms = float(np.sqrt(np.mean(err ** 2))) if err.size else 0.0
    mx = float(np.abs(err).max()) if err.size else 0.0
    agree = float(exact.optimal[best_rows[live]].mean()) if live.any() else 1.0
    policy = np.where(best_rows >= 0, np.asarray(row_action)[np.maximum(best_rows, 0)], -1).astype(np.int64)
    ev = settings.eval_every
    pv = None
    if done or (ev > 0 and episode // ev > prev // ev):
        key = (best_rows.tobytes(), extra["switched"])
        if memo.get("key") != key:  # the same policy in the same world: the same value
            memo["key"], memo["value"] = key, greedy_policy_value(mdp, best_rows, settings.start)
        pv = memo["value"]
    return DynaStep(
        method=settings.method, episode=episode, updates=updates, q=read_only(q), values=read_only(values),
        policy=read_only(policy), visits=read_only(np.array(visits, dtype=np.int64)),
        row_updates=read_only(np.array(row_updates, dtype=np.int64)), path=tuple(path), actions=tuple(acts),
        rewards=tuple(rews), returns=tuple(returns), lengths=tuple(lengths), epsilon=float(settings.epsilon),
        rms_error=rms, max_error=mx, greedy_agreement=agree, policy_value=pv, exact=exact,
        elapsed=time.perf_counter() - t0, learning_seconds=learning, done=done, **extra)


def planning_run(mdp: TabularMDP, method: str, options: dict, *, history_bytes: int
                 ) -> tuple[Generator[DynaStep, int | None, DynaStep], ExactAnswer]:
    """A planning method as the window runs it (as :func:`~mdpviz.solvers.learning.learning_run` a learner):
    ``(generator, the first world's exact answer)``, solved once here; the generator driven by
    :func:`~mdpviz.solvers.learning.learning_batches` with batches that keep the run's snapshots within about
    ``history_bytes`` (the same numbers whatever the batches)."""
    from mdpviz.solvers.learning import learning_batches, snapshot_bytes

    ref = LearningSettings(method=registry.ids_where("learner", prediction=False)[0])
    exact = exact_answer(mdp, ref)
    episodes = int(options.get("episodes", DynaSettings.episodes))
    min_batch = max(1, math.ceil(episodes * (snapshot_bytes(mdp) + mdp.n_rows) / (history_bytes / 2)))
    gen = dyna_learner(mdp, method, exact=exact, **options)
    return learning_batches(gen, min_batch=min_batch, episodes=episodes), exact


def steps_per_episode(steps: list[DynaStep]) -> list[int]:
    """The real steps of every episode of a run's snapshots, in order (figure 8.2's y axis)."""
    return [n for s in steps for n in s.lengths]


def cumulative_curve(steps: list[DynaStep]) -> tuple[list[int], list[float]]:
    """(real steps, cumulative reward) at the end of every episode of a run's snapshots, from (0, 0): figures
    8.4-8.5's curve (exact where rewards come only at the episodes' ends, as in the mazes)."""
    xs, ys = [0], [0.0]
    for s in steps:
        xs.extend(s.episode_ends)
        ys.extend(s.episode_rewards)
    return xs, ys


def cumulative_at(steps: list[DynaStep], at: int) -> float:
    """The cumulative reward after ``at`` real steps (the last episode end at or before it)."""
    xs, ys = cumulative_curve(steps)
    k = int(np.searchsorted(np.asarray(xs), at, side="right")) - 1
    return float(ys[max(k, 0)])


__all__ = ["DEFAULT_MAX_STEPS", "DynaSettings", "DynaStep", "KIND", "MAX_PLANNING_STEPS", "cumulative_at",
           "cumulative_curve", "dyna_learner", "planning_run", "steps_per_episode"]
