"""Policy-gradient learners beside the exact gradient (Sutton and Barto, chapter 13).

A softmax policy over linear action preferences ``h(s, a) = theta . x(s, a)`` (eq. 13.2) with state-action
features x(s, a) (:mod:`mdpviz.solvers.features`: a state feature spec stacked by action, "tabular" by default,
or a game's own state-action features for "game"), learned by REINFORCE (section 13.3), REINFORCE with a learned
state-value baseline (13.4), the one-step actor-critic (13.5) and, for continuing models, the average-reward
actor-critic (13.6). Each snapshot carries the exact J(theta) of its policy and the exact gradient of J
(:func:`mdpviz.solvers.pg_exact.evaluate_policy`), and the best value J_best any policy of those features
reaches (:func:`mdpviz.solvers.pg_exact.best_value`, once per run).

Written as the other learners: ``pg_learner(mdp, "reinforce", episodes=1000)`` returns a generator that yields
one frozen :class:`PGStep` per episode (or per ``batch`` of episodes: the same numbers, fewer snapshots) and
returns the last. The update rules are written once, in :mod:`mdpviz.solvers.pg_loop`: numba compiles that
loop, Python runs the very same source as the reference (``compiled=False``), with the same random numbers.

The learner ascends ``sign * J`` with sign +1 for objective "max" and -1 for "min" (costs). On a two-player
model it moves where the maximising player moves; at the opponent's states the opponent plays the exact
(minimax) solution's policy, fixed. Never imports Qt.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, fields
from typing import Any, Callable, Generator

import numpy as np

from mdpviz.core.mdp import TabularMDP, is_whole, read_only
from mdpviz.solvers import registry
from mdpviz.solvers.kernels import CompiledLoop

KIND = "policy-gradient"
"""The registry kind of these learners."""

MAX_EPISODES = 100_000_000
MAX_STEPS_LIMIT = 10_000_000
DEFAULT_MAX_STEPS = 10_000
"""Cap on the steps of an episode: REINFORCE needs whole episodes, and a softmax policy far from the goal
(the corridor's epsilon-greedy-left start, about 80 steps on average) may wander long."""


def loop_code(method: str) -> int:
    """The policy-gradient loop's code of ``method`` (its registry line's ``code``)."""
    spec = registry.find(method)
    if spec is None or spec.kind != KIND or spec.code is None:
        raise ValueError(f"method: {method!r} is not a policy-gradient learner; choose one of "
                         f"{', '.join(registry.ids(KIND))}")
    return int(spec.code)


def _real(x: object) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool) and math.isfinite(x)


# ====================================================================== settings
@dataclass(frozen=True)
class PGSettings:
    """How a policy-gradient learner learns; validates itself (ValueError naming the field)."""

    method: str = "reinforce"
    """The learner (a registry id of kind "policy-gradient")."""
    features: str = "tabular"
    """The feature spec as given (:func:`mdpviz.solvers.features.parse_features`), stacked by action."""
    episodes: int = 1000
    """Episodes to run (continuing: stretches of ``max_steps`` steps)."""
    alpha_theta: float | None = None
    """Step size of theta; None: the method's registry default."""
    alpha_w: float | None = None
    """Step size of the baseline's / critic's weights w; None: the method's registry default."""
    avg_alpha: float | None = None
    """The average-reward actor-critic's step size of R_bar; None: the method's registry default."""
    initial_theta: tuple[float, ...] | None = None
    """theta at the start (d numbers); None: all 0 (the uniform policy)."""
    max_steps: int = DEFAULT_MAX_STEPS
    """Cap on the steps of an episode (continuing: the steps of each episode)."""
    start: int = 0
    """The state episodes start in (a non-terminal state); J is the value from it."""
    seed: int = 0
    """Seed of the numpy Generator that draws every action and outcome."""
    batch: int = 1
    """Episodes per snapshot (the numbers do not depend on it)."""
    eval_every: int = 1
    """Episodes between exact evaluations of J (and its gradient); 0: the last snapshot only."""
    eval_budget: float = 0.0
    """With b > 0 a due evaluation (but the last) is made only when at least b times its estimated cost
    (:func:`mdpviz.solvers.learning.evaluation_cost`, in updates) was learned since the one before (as the
    tabular learners' ``eval_budget``); 0: every ``eval_every`` episodes."""
    initial: float = 0.0
    """Accepted for the tabular learners' option set; ignored (theta starts at ``initial_theta``)."""

    def __post_init__(self) -> None:
        spec = registry.find(self.method)
        if spec is None or spec.kind != KIND:
            raise ValueError(f"method: unknown policy-gradient learner {self.method!r}; choose one of "
                             f"{', '.join(registry.ids(KIND))}")
        for name in ("episodes", "max_steps", "batch"):
            v = getattr(self, name)
            if not is_whole(v) or v < 1:
                raise ValueError(f"{name} must be a positive integer, got {v!r}")
        for name, hi in (("episodes", MAX_EPISODES), ("max_steps", MAX_STEPS_LIMIT)):
            if getattr(self, name) > hi:
                raise ValueError(f"{name} must be at most {hi:,}, got {getattr(self, name):,}")
        for name in ("alpha_theta", "alpha_w", "avg_alpha"):
            v = getattr(self, name)
            if v is None:
                continue
            if not spec.takes(name):
                raise ValueError(f"{name} applies to {', '.join(registry.ids_where(KIND, takes=name))} only, "
                                 f"not {self.method}")
            if not (_real(v) and 0.0 < v <= 1.0):
                raise ValueError(f"{name} must be in (0, 1], got {v!r}")
        if not is_whole(self.eval_every) or self.eval_every < 0:
            raise ValueError(f"eval_every must be an integer >= 0, got {self.eval_every!r}")
        if not (_real(self.eval_budget) and self.eval_budget >= 0):
            raise ValueError(f"eval_budget must be a finite number >= 0, got {self.eval_budget!r}")
        if not is_whole(self.start):
            raise ValueError(f"start must be a state number, got {self.start!r}")
        if not is_whole(self.seed) or self.seed < 0:
            raise ValueError(f"seed must be an integer >= 0, got {self.seed!r}")
        if not _real(self.initial):
            raise ValueError(f"initial must be a finite number, got {self.initial!r}")
        if self.initial_theta is not None:
            try:
                th = np.asarray(self.initial_theta, dtype=np.float64)
            except (TypeError, ValueError):
                raise ValueError(f"initial_theta must be a list of numbers, got {self.initial_theta!r}") from None
            if th.ndim != 1 or not np.all(np.isfinite(th)):
                raise ValueError("initial_theta must be a flat list of finite numbers")

    @property
    def code(self) -> int:
        """The loop's code of the method."""
        return loop_code(self.method)

    def step(self, name: str) -> float:
        """The step size ``name`` (alpha_theta, alpha_w, avg_alpha) used: the given one, else the registry
        line's default; 0 when the method takes none."""
        v = getattr(self, name)
        if v is not None:
            return float(v)
        p = registry.get(self.method).param(name)
        return 0.0 if p is None or p.default is None else float(p.default)


# ====================================================================== snapshots
@dataclass(frozen=True)
class ThetaUpdate:
    """The last step of theta of a snapshot, ``theta <- theta + alpha gamma^t delta grad ln pi(A|S)`` (sign -1:
    minus, for costs), with its numbers (the inspector writes it out)."""

    state: int
    """S_t."""
    action: int
    """A_t (the action id)."""
    t: int
    """The step of the episode (gamma^t's t)."""
    G_or_target: float
    """REINFORCE: the return G_t; the actor-critics: the target R + gamma v_hat(S') (average reward:
    R - R_bar + v_hat(S'))."""
    baseline: float
    """b(S_t): v_hat(S_t, w) (0 for REINFORCE without baseline)."""
    delta: float
    """G_or_target - baseline."""
    alpha: float
    """alpha_theta."""
    gamma_t: float
    """gamma^t (the actor-critic's I; 1 for the average-reward actor-critic)."""
    grad_log_pi: tuple[tuple[int, float], ...]
    """The nonzero components (index, value) of grad ln pi(A_t|S_t, theta) at the theta of that step."""
    sign: float = 1.0
    """+1: theta ascends J; -1: it descends (costs)."""
    target_name: str = "G"
    """What ``G_or_target`` is called in the text ("G" or "target")."""

    def text(self, state_name: Callable[[int], str] = str, action_name: Callable[[int], str] = str) -> str:
        """The update with its numbers, e.g. "theta <- theta + alpha gamma^t (G) grad ln pi(A|S) = 0.000244 x 1 x
        (-12) x grad ln pi(right|s0), t = 0; grad ln pi = {0: 0.95, 1: -0.95}" (with a baseline or a critic:
        "(G - b)" or "(delta - b)" as the method's target is named, its numbers beside)."""
        f = lambda v: f"{v:.4g}"  # noqa: E731
        op = "+" if self.sign >= 0 else "-"
        where = f"{action_name(self.action)}|{state_name(self.state)}"
        g = ", ".join(f"{i}: {f(v)}" for i, v in self.grad_log_pi[:8])
        more = f", ... ({len(self.grad_log_pi)} nonzero)" if len(self.grad_log_pi) > 8 else ""
        base = "" if self.baseline == 0.0 and self.target_name == "G" else f" - {f(self.baseline)}"
        what = f"{self.target_name} - b" if base else self.target_name
        return (f"\u03b8 <- \u03b8 {op} \u03b1 \u03b3^t ({what}) \u2207ln \u03c0(A|S) = {f(self.alpha)} x "
                f"{f(self.gamma_t)} x ({f(self.G_or_target)}{base}) x \u2207ln \u03c0({where}), t = {self.t}; "
                f"\u2207ln \u03c0 = {{{g}{more}}}")


@dataclass(frozen=True, eq=False)
class PGStep:
    """One immutable snapshot of a policy-gradient learner, after each episode (or batch)."""

    method: str
    """Learner id (kind "policy-gradient")."""
    episode: int
    """Episodes done so far."""
    updates: int
    """Steps learned from so far (one update of theta and/or w per step)."""
    features: str
    """The feature spec as given."""
    n_features: int
    """d, the length of theta."""
    theta: np.ndarray
    """float64 (d), read-only: the policy's parameters."""
    policy: np.ndarray
    """float64 (n_rows), read-only: pi(a|s) per (state, action) row (the opponent's fixed probabilities at its
    states; 0 at none)."""
    critic: np.ndarray | None
    """float64, read-only: w of the baseline / critic over the state features, or None (REINFORCE)."""
    J: float
    """The exact J(theta) of this snapshot's policy (v_pi(start); continuing: the average reward r(pi)); NaN
    when not evaluated this time."""
    J_best: float
    """The best value the policies of these features reach (:func:`mdpviz.solvers.pg_exact.best_value`)."""
    J_best_how: str
    """How J_best was found (V*(start), or the best of exact-gradient ascents: a local optimum)."""
    gradient: np.ndarray | None
    """float64 (d), read-only: the exact gradient of J at this theta (with J), else None."""
    avg_reward: float | None
    """The average-reward actor-critic's estimate R_bar, else None."""
    visits: np.ndarray
    """int64 (n_states), read-only: how often each state has been visited."""
    returns: tuple[float, ...]
    """Discounted return of each episode of this batch (continuing: the mean reward per step)."""
    lengths: tuple[int, ...]
    """Steps of each episode of this batch."""
    path: tuple[int, ...]
    """States of the last episode."""
    actions: tuple[int, ...]
    """Action ids of the last episode (one fewer than ``path``)."""
    rewards: tuple[float, ...]
    """Rewards of the last episode's steps."""
    last_update: ThetaUpdate | None
    """The last step of theta (None before any)."""
    sign: float = 1.0
    """+1: the learner maximises J; -1: it minimises it (costs)."""
    elapsed: float = 0.0
    """Seconds since the learner started (learning, evaluations and snapshots)."""
    learning_seconds: float = 0.0
    """Seconds spent in the episode loop so far."""
    done: bool = False
    """True for the last snapshot."""
    evaluation: Any = field(default=None, repr=False)
    """The :class:`mdpviz.solvers.pg_exact.PolicyValue` behind J and the gradient (None when not evaluated)."""


# ====================================================================== the compiled loop
LOOP = CompiledLoop("mdpviz.solvers._numba_pg:run_pg", "mdpviz.solvers.pg_loop:run_pg", "policy-gradient loop")
"""The family's loop: the numba module is imported on first use only."""


def compiled_loop() -> Callable | None:
    """The compiled loop (:mod:`mdpviz.solvers._numba_pg`), or None when numba is missing or turned off (then
    the same loop runs in Python)."""
    return LOOP.loop()


def _loop(compiled: bool | None) -> Callable:
    return LOOP.pick(compiled)


def prepare_loop() -> float:
    """Compile the loop (or load it from numba's cache) on a tiny model ahead of its first use, so that a run's
    ``learning_seconds`` are learning alone: the seconds it took (0 without numba)."""
    loop = compiled_loop()
    if loop is None or getattr(loop, "signatures", None):
        return 0.0
    t = time.perf_counter()
    mdp = TabularMDP.from_transitions(2, 1, [0], [0], [1], [1.0], [-1.0], discount=1.0, terminal=[1])
    settings = PGSettings(episodes=1, max_steps=2)
    run = _new_run(mdp, settings, np.ones((1, 1)), np.ones((2, 1)), np.zeros(1), None, None, continuing=False)
    _run_loop(loop, mdp, settings, run, 1)
    return time.perf_counter() - t


# ====================================================================== inputs
def feature_rows(X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """X (rows x d) in CSR form ``(ptr, idx, val)``: each row's nonzero features, in column order."""
    from mdpviz.solvers.approximation import feature_rows as csr

    return csr(X)


def _checked(name: str, M: Any, rows: int, what: str) -> np.ndarray:
    """M as a C-contiguous float64 (rows x d) array; ValueError naming ``name`` when it is not one."""
    try:
        M = np.ascontiguousarray(M, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: the feature matrix must be numbers ({what} x d)") from None
    if M.ndim != 2 or M.shape[0] != rows or M.shape[1] < 1:
        raise ValueError(f"{name}: the feature matrix must be {rows} x d ({what}), got shape {M.shape}")
    if not np.all(np.isfinite(M)):
        raise ValueError(f"{name}: the feature matrix has values that are not finite")
    return M


def build_features(mdp: TabularMDP, features: Any = "tabular", *, Xsa: np.ndarray | None = None,
                   X: np.ndarray | None = None, coords: Any = None, game_features: np.ndarray | None = None,
                   game_action_features: np.ndarray | None = None,
                   critic: bool = True) -> tuple[str, np.ndarray, np.ndarray | None]:
    """``(spec text, Xsa, X)``: the policy's state-action features (n_rows x d) and the critic's state features
    (n_states x d_w; None unless ``critic``). Xsa: given, else for "game" the game's own state-action features
    when it has them, else the state features of the spec stacked by action
    (:func:`mdpviz.solvers.features.action_features`). X: given, else the spec's state features; for "game"
    without state features of the game, one constant feature (1 at every non-terminal state: every state looks
    the same, as in Example 13.1, where the book's baseline is one number)."""
    from mdpviz.solvers.features import action_features, feature_matrix, parse_features

    text = getattr(features, "text", features)
    if not isinstance(text, str):
        raise ValueError(f"features: give a spec such as 'tabular' or 'tiles:8:0.25', got {features!r}")
    spec = parse_features(text)
    game_sa = spec.kind == "game" and game_action_features is not None
    if Xsa is None:
        if game_sa:
            Xsa = _checked("game_action_features", game_action_features, mdp.n_rows, "one row per (state, action)")
        else:
            if X is None:
                X = feature_matrix(spec, mdp, coords=coords, game_features=game_features)
            Xsa = action_features(X, mdp)
    Xsa = _checked("Xsa", Xsa, mdp.n_rows, "one row per (state, action)")
    if critic and X is None:
        if spec.kind == "game" and game_features is None:
            X = np.where(np.asarray(mdp.terminal), 0.0, 1.0)[:, None]
        else:
            X = feature_matrix(spec, mdp, coords=coords, game_features=game_features)
    if X is not None:
        X = _checked("X", X, mdp.n_states, "one row per state")
    return text, read_only(Xsa), None if not critic or X is None else read_only(X)


def is_continuing(mdp: TabularMDP, start: int) -> bool:
    """True when no terminal state can be reached from ``start`` (every action of a softmax policy has a
    positive probability, so this holds for every theta): J is then the average reward (section 13.6)."""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import breadth_first_order

    term = np.asarray(mdp.terminal)
    if not term.any():
        return True
    rows = np.asarray(mdp.row_state)[np.repeat(np.arange(mdp.n_rows), np.diff(mdp.row_ptr))]
    g = sp.csr_matrix((np.ones(rows.size), (rows, np.asarray(mdp.dst))), shape=(mdp.n_states, mdp.n_states))
    reached = breadth_first_order(g, int(start), directed=True, return_predecessors=False)
    return not bool(term[reached].any())


def opponent(mdp: TabularMDP, exact: Any = None) -> tuple[np.ndarray | None, np.ndarray | None]:
    """``(fixed, fixed_probs)``: on a two-player model the rows where the opponent moves (bool, n_rows) and the
    exact (minimax) solution's row probabilities it plays (float64, n_rows; ``exact``: the tabular
    :class:`~mdpviz.solvers.learning.ExactAnswer` when already solved); ``(None, None)`` for one player."""
    if not mdp.is_two_player:
        return None, None
    from mdpviz.solvers import learning_loop as L
    from mdpviz.solvers.learning import LearningSettings, exact_answer
    from mdpviz.solvers.pg_exact import opponent_rows

    if exact is None:
        exact = exact_answer(mdp, LearningSettings(method=registry.ids_where("learner", code=L.SARSA)[0]))
    probs = np.ascontiguousarray(exact.policy_rows, dtype=np.float64)
    return read_only(np.asarray(opponent_rows(mdp, probs), dtype=bool)), read_only(probs)


# ====================================================================== the run
@dataclass(eq=False)
class _Run:
    """A learner's mutable arrays (private to one generator)."""

    arr: dict
    xa: tuple
    x: tuple
    theta: np.ndarray
    w: np.ndarray
    avg: np.ndarray
    carry: np.ndarray
    learner: np.ndarray
    fixed_probs: np.ndarray
    pbuf: np.ndarray
    upi: np.ndarray
    visits: np.ndarray
    path_s: np.ndarray
    path_r: np.ndarray
    path_g: np.ndarray
    path_u: np.ndarray
    last: np.ndarray
    rng: np.random.Generator
    continuing: bool


def _new_run(mdp: TabularMDP, settings: PGSettings, Xsa: np.ndarray, X: np.ndarray | None, theta0: np.ndarray,
             fixed: np.ndarray | None, fixed_probs: np.ndarray | None, *, continuing: bool) -> _Run:
    from mdpviz.solvers.approximation import model_arrays

    n = settings.max_steps + 1
    learner = ~np.asarray(mdp.terminal, dtype=bool)
    if fixed is not None:  # the opponent's states: those whose rows it plays
        on = np.zeros(mdp.n_states, dtype=bool)
        on[np.asarray(mdp.row_state)[np.asarray(fixed, dtype=bool)]] = True
        learner &= ~on
    Xw = X if X is not None else np.zeros((mdp.n_states, 1))
    return _Run(arr=model_arrays(mdp), xa=feature_rows(Xsa), x=feature_rows(Xw),
                theta=np.array(theta0, dtype=np.float64), w=np.zeros(Xw.shape[1]),
                avg=np.zeros(1),
                carry=np.full(1, -1, np.int64), learner=np.ascontiguousarray(learner),
                fixed_probs=(np.zeros(max(1, mdp.n_rows)) if fixed_probs is None
                             else np.ascontiguousarray(fixed_probs, dtype=np.float64)),
                pbuf=np.zeros(max(1, mdp.n_rows)), upi=np.zeros(max(1, mdp.n_rows)),
                visits=np.zeros(mdp.n_states, np.int64), path_s=np.zeros(n, np.int64), path_r=np.zeros(n, np.int64),
                path_g=np.zeros(n), path_u=np.zeros(n), last=np.full(len(_last_fields()), -1.0),
                rng=np.random.default_rng(settings.seed), continuing=continuing)


def _last_fields() -> tuple[str, ...]:
    from mdpviz.solvers.pg_loop import LAST_FIELDS

    return LAST_FIELDS


def _sign(mdp: TabularMDP) -> float:
    return 1.0 if mdp.objective == "max" else -1.0


def _run_loop(loop, mdp, settings, run: _Run, episodes: int) -> tuple[int, np.ndarray, np.ndarray]:
    """Run ``episodes`` episodes of the loop on ``run``; ``(updates, returns, lengths)``."""
    returns = np.zeros(episodes)
    lengths = np.zeros(episodes, np.int64)
    a = run.arr
    noisy = bool(np.any(a["noise"] > 0.0))
    updates = int(loop(settings.code, episodes, a["state_ptr"], a["row_ptr"], a["dst"], a["cum"], a["reward"],
                       a["noise"], noisy, a["terminal"], run.learner, run.fixed_probs, float(mdp.discount),
                       _sign(mdp), int(settings.start), run.continuing, run.carry, *run.xa, run.theta, *run.x,
                       run.w, run.avg, settings.step("alpha_theta"), settings.step("alpha_w"),
                       settings.step("avg_alpha"),
                       int(settings.max_steps), run.rng, run.pbuf, run.upi, run.visits, run.path_s, run.path_r,
                       run.path_g, run.path_u, returns, lengths, run.last))
    return updates, returns, lengths


def _last_update(mdp: TabularMDP, settings: PGSettings, Xsa: np.ndarray, run: _Run) -> ThetaUpdate | None:
    rec = run.last
    if rec[0] < 0:
        return None
    s, row = int(rec[0]), int(rec[1])
    r0, r1 = int(mdp.state_ptr[s]), int(mdp.state_ptr[s + 1])
    grad = Xsa[row] - run.upi[r0:r1] @ Xsa[r0:r1]
    nz = np.flatnonzero(grad)
    reinforce = registry.get(settings.method).multi_step
    return ThetaUpdate(state=s, action=int(mdp.row_action[row]), t=int(rec[2]), G_or_target=float(rec[3]),
                       baseline=float(rec[4]), delta=float(rec[5]), alpha=float(rec[6]), gamma_t=float(rec[7]),
                       grad_log_pi=tuple((int(i), float(grad[i])) for i in nz), sign=_sign(mdp),
                       target_name="G" if reinforce else "target")


def _learn(mdp, settings, Xsa, X, theta0, fixed, fixed_probs, best, loop, continuing, evaluate):
    t0 = time.perf_counter()
    run = _new_run(mdp, settings, Xsa, X, theta0, fixed, fixed_probs, continuing=continuing)
    from mdpviz.solvers.learning import evaluation_cost
    from mdpviz.solvers.pg_exact import policy_rows

    cost = evaluation_cost(mdp)
    with_critic = X is not None
    average = settings.code == _avg_code()
    done_eps, updates, at = 0, 0, 0
    learning = 0.0
    memo: dict = {}
    last = None
    sent = None
    while done_eps < settings.episodes:
        m = min(int(sent) if isinstance(sent, (int, np.integer)) and sent > 0 else settings.batch,
                settings.episodes - done_eps)
        t_loop = time.perf_counter()
        n, returns, lengths = _run_loop(loop, mdp, settings, run, m)
        learning += time.perf_counter() - t_loop
        prev = done_eps
        updates += n
        done_eps += m
        final = done_eps == settings.episodes
        ev = settings.eval_every
        due = final or (ev > 0 and done_eps // ev > prev // ev and (
            settings.eval_budget <= 0 or updates - at >= settings.eval_budget * cost))
        value = None
        if due:  # the same theta as last time: the same value (no second solve)
            at = updates
            key = run.theta.tobytes()
            if memo.get("key") != key:
                memo["key"], memo["value"] = key, evaluate(run.theta)
            value = memo["value"]
        theta = read_only(run.theta.copy())
        t = int(lengths[-1])
        rows = run.path_r[:t]
        last = PGStep(
            method=settings.method, episode=done_eps, updates=updates, features=settings.features,
            n_features=int(Xsa.shape[1]), theta=theta,
            policy=read_only(np.asarray(policy_rows(mdp, Xsa, theta, fixed=fixed, fixed_probs=fixed_probs),
                                        dtype=np.float64).copy()),
            critic=read_only(run.w.copy()) if with_critic else None,
            J=math.nan if value is None else float(value.J), J_best=float(best[0]), J_best_how=str(best[1]),
            gradient=None if value is None else read_only(np.array(value.gradient, dtype=np.float64)),
            avg_reward=float(run.avg[0]) if average else None, visits=read_only(run.visits.copy()),
            returns=tuple(returns.tolist()), lengths=tuple(lengths.tolist()),
            path=tuple(run.path_s[:t + 1].tolist()), actions=tuple(np.asarray(mdp.row_action)[rows].tolist()),
            rewards=tuple(run.path_g[:t].tolist()), last_update=_last_update(mdp, settings, Xsa, run),
            sign=_sign(mdp), elapsed=time.perf_counter() - t0, learning_seconds=learning, done=final,
            evaluation=value)
        sent = yield last
    return last


def _avg_code() -> int:
    from mdpviz.solvers.pg_loop import AVG_ACTOR_CRITIC

    return AVG_ACTOR_CRITIC


def _episodic_codes() -> tuple[int, ...]:
    from mdpviz.solvers.pg_loop import EPISODIC

    return EPISODIC


def _critic_codes() -> tuple[int, ...]:
    from mdpviz.solvers.pg_loop import WITH_CRITIC

    return WITH_CRITIC


# ====================================================================== the learner
def pg_learner(mdp: TabularMDP, method: str = "reinforce", *, features: Any = "tabular",
               Xsa: np.ndarray | None = None, X: np.ndarray | None = None, coords: Any = None,
               game_features: np.ndarray | None = None, game_action_features: np.ndarray | None = None,
               best: tuple[float, str] | None = None, exact: Any = None, compiled: bool | None = None,
               **options) -> Generator[PGStep, int | None, PGStep]:
    """The generator of policy-gradient learner ``method`` (a registry id of kind "policy-gradient") on ``mdp``;
    ``options`` are the fields of :class:`PGSettings`, checked now (ValueError naming the option).

    ``Xsa``: the policy's state-action features (n_rows x d) when the caller built them; ``X``: the critic's
    state features (n_states x d_w); else built from ``features`` (:func:`build_features`, with the game's
    ``coords``, ``game_features`` and ``game_action_features``). ``best``: ``(J_best, how)`` when already
    computed (:func:`mdpviz.solvers.pg_exact.best_value` runs once per call otherwise); ``exact``: the tabular
    :class:`~mdpviz.solvers.learning.ExactAnswer` of a two-player model when already solved (its policy is the
    opponent's). ``compiled``: True = the numba loop (an error when unavailable), False = the Python reference
    loop (the same source), None = compiled when available.
    """
    if "initial_theta" in options and options["initial_theta"] is not None:
        try:
            options["initial_theta"] = tuple(float(v) for v in options["initial_theta"])
        except (TypeError, ValueError):
            raise ValueError(f"initial_theta must be a list of numbers, got {options['initial_theta']!r}") from None
    if options.get("alpha") is not None:
        raise ValueError("alpha: the policy-gradient learners take alpha_theta (the policy's step size) and "
                         "alpha_w (the critic's)")
    options.pop("alpha", None)
    unknown = sorted(set(options) - {f.name for f in fields(PGSettings)} - {"method", "features"})
    if unknown:
        raise ValueError(f"{unknown[0]}: not an option of the policy-gradient learners")
    text = getattr(features, "text", features)
    settings = PGSettings(method=method, features=text if isinstance(text, str) else "?", **options)
    if not (0 <= settings.start < mdp.n_states):
        raise ValueError(f"start state {settings.start} is out of range 0..{mdp.n_states - 1}")
    if mdp.terminal[settings.start]:
        raise ValueError(f"start state {settings.start} is terminal: an episode from it has no step")
    continuing = is_continuing(mdp, settings.start)
    code = settings.code
    if continuing and code in _episodic_codes():
        raise ValueError(f"method: {settings.method} learns from episodes, but no terminal state can be reached "
                         f"from state {settings.start} (a continuing model); use "
                         f"{', '.join(registry.ids_where(KIND, code=_avg_code()))}")
    if not continuing and code not in _episodic_codes():
        raise ValueError(f"method: {settings.method} is for continuing models, but this one's episodes end; use "
                         f"{', '.join(s.id for s in registry.specs(KIND) if s.code in _episodic_codes())}")
    text, Xsa, X = build_features(mdp, features, Xsa=Xsa, X=X, coords=coords, game_features=game_features,
                                  game_action_features=game_action_features, critic=code in _critic_codes())
    d = Xsa.shape[1]
    theta0 = np.zeros(d)
    if settings.initial_theta is not None:
        theta0 = np.array(settings.initial_theta, dtype=np.float64)
        if theta0.size != d:
            raise ValueError(f"initial_theta: expected {d} numbers (one per feature of x(s, a)), got {theta0.size}")
    loop = _loop(compiled)
    fixed, fixed_probs = opponent(mdp, exact)
    from mdpviz.solvers.features import parse_features
    from mdpviz.solvers.pg_exact import best_value, evaluate_policy

    start = int(settings.start)

    def evaluate(theta: np.ndarray):
        return evaluate_policy(mdp, Xsa, theta, start=start, fixed=fixed, fixed_probs=fixed_probs)

    if best is None:
        best = best_value(mdp, Xsa, start=start, tabular=parse_features(text).kind == "tabular", fixed=fixed,
                          fixed_probs=fixed_probs)
    else:
        try:
            best = (float(best[0]), str(best[1]))
        except (TypeError, ValueError, IndexError):
            raise ValueError(f"best: give (J_best, how), got {best!r}") from None
    return _learn(mdp, settings, Xsa, X, theta0, fixed, fixed_probs, best, loop, continuing, evaluate)


def learn(mdp: TabularMDP, method: str = "reinforce", **options) -> tuple[PGStep, list[PGStep]]:
    """Run a learner to the end: ``(last snapshot, every snapshot)``."""
    steps = list(pg_learner(mdp, method, **options))
    return steps[-1], steps


__all__ = ["KIND", "PGSettings", "PGStep", "ThetaUpdate", "build_features", "compiled_loop", "feature_rows",
           "is_continuing", "learn", "loop_code", "opponent", "pg_learner", "prepare_loop"]
