"""Learning from experience beside the exact answer: TD, Monte Carlo, SARSA, Q-learning on any TabularMDP.

The learners see a :class:`~mdpviz.core.mdp.TabularMDP` only as a simulator: an episode samples
each next state from the outcomes of the (state, action) taken and learns from the rewards it
meets (Sutton and Barto, chapters 5-7). Nothing here knows a game.

Written like the solvers: ``learner(mdp, "q", episodes=500)`` returns a generator that yields one
frozen :class:`LearningStep` per episode (or per ``batch`` of episodes: the same numbers, fewer
snapshots) and returns the last one. Each snapshot carries the learned Q (or V), the visit counts,
the last episode's path and return, and its distance to the exact answer, solved once by the
project's own solver: RMS and largest error of V over the non-terminal states, the share of
non-terminal states whose greedy action is one of the optimal ones (ties within
:data:`~mdpviz.solvers.sweep.TIE_TOL` count as optimal), and every ``eval_every`` episodes the exact
value of the learned greedy policy from the start.

The update rules are written once, in :mod:`mdpviz.solvers.learning_loop`: numba compiles that
loop, Python runs the very same source as the reference (``compiled=False``), and
:class:`ExperienceLearner` (a grader feeds it its own transitions) calls the same update
functions. A seeded ``numpy.random.Generator`` drives every draw: the same seed gives the same
numbers, compiled or not, whatever the batch size.

Never imports Qt.
"""
from __future__ import annotations

import math
import re
import time
import weakref
from dataclasses import dataclass, field
from typing import Generator

import numpy as np

from collections.abc import Mapping

from mdpviz.core.mdp import TabularMDP, read_only
from mdpviz.solvers import registry
from mdpviz.solvers.sweep import greedy, optimal_rows

class _LearnerTitles(Mapping):
    """A live read-only view of the registry's learners: id -> title (a learner registered later is in it)."""

    def __getitem__(self, key: str) -> str:
        spec = registry.find(key)
        if spec is None or spec.id != key or spec.kind != "learner":
            raise KeyError(key)
        return spec.title

    def __iter__(self):
        return iter(registry.ids("learner"))

    def __len__(self) -> int:
        return len(registry.ids("learner"))

    def __repr__(self) -> str:
        return repr(dict(self))


LEARNERS: Mapping[str, str] = _LearnerTitles()
"""Learner ids and their display names, read from the registry (:mod:`mdpviz.solvers.registry`; kept
apart from the DP :data:`~mdpviz.solvers.METHODS`: a learner samples, a solver sweeps). Each loop
learner's code in the compiled loop is its registry line's ``code``, never its position here."""

PREDICTION = registry.ids_where("learner", prediction=True)
"""The learners that estimate V of a given policy; the others learn Q and improve on it (control)."""

POLICIES = ("optimal", "random")
"""The policies a prediction learner can evaluate by name: the exact solver's greedy optimal policy,
or the uniformly random one over legal actions."""

VISITS = ("first", "every")
"""Which visits a Monte Carlo learner updates at: the first of each state (or pair) in an episode, or every one."""

MAX_EPISODES = 100_000_000
"""Most episodes one run may ask for (the house's bound on a run's games)."""
MAX_STEPS_LIMIT = 10_000_000
"""Largest step cap: the last episode's path is kept in buffers of this length (about 24 bytes a step)."""

BOARD_MODES = ("learned", "exact", "error", "visits")
"""What a board can show of a learner's snapshot (:meth:`LearningStep.shown`): the learned values on the
exact solution's colour scale, the exact ones, their difference, or how often each state was visited."""

DEFAULT_EVAL_EVERY = 100
"""Episodes between exact evaluations of the learned greedy policy (a linear solve each)."""


# ====================================================================== settings
def parse_alpha(text: str | float) -> tuple[float, float]:
    """A step size as ``(alpha, power)`` (the step of an entry's N-th update is ``alpha / N**power``):
    a number ("0.1": constant), "1/n" (the sample average) or "1/n^w" (e.g. "1/n^0.8")."""
    if isinstance(text, (int, float)):
        return float(text), 0.0
    t = str(text).strip().lower().replace(" ", "").replace("**", "^")
    m = re.fullmatch(r"1/n(?:\^([0-9.]+))?", t)
    if m:
        return 1.0, float(m.group(1)) if m.group(1) else 1.0
    try:
        return float(t), 0.0
    except ValueError:
        raise ValueError(f"step size {text!r}: give a number in (0, 1], 1/n or 1/n^w") from None


@dataclass(frozen=True)
class LearningSettings:
    """How a learner learns; validates itself (ValueError naming the field)."""

    method: str = "q"
    """The learner: td0, nstep, mc (prediction); mc-control, sarsa, expected-sarsa, q, double-q (control)."""
    episodes: int = 500
    """Episodes to run."""
    alpha: float | None = None
    """Step size (constant, or the numerator of 1/N^w); None: 1 with power 1 (sample averages) for the
    Monte Carlo methods, 0.1 constant for the others."""
    alpha_power: float = 0.0
    """w of the step size alpha / N^w (N: updates of that entry so far); 0 = constant, 1 = 1/N."""
    epsilon: float = 0.1
    """Probability of a uniformly random legal action (control; Expected SARSA's target uses it too)."""
    epsilon_decay: float = 1.0
    """Epsilon is multiplied by this after every episode (1 = constant)..."""
    epsilon_min: float = 0.0
    """...down to this floor."""
    n: int = 1
    """Steps of n-step TD (TD(0) is n = 1)."""
    visits: str = "first"
    """Monte Carlo (mc, mc-control): update at the "first" visit of a state (or pair) in an episode, or at
    "every" visit (Sutton and Barto 5.1)."""
    policy: str = "optimal"
    """The policy prediction evaluates: "optimal" (the exact solver's) or "random" (uniform over legal actions)."""
    exploring_starts: bool = False
    """Control: start every episode in a random non-terminal state with a random first action (S&B 5.3)."""
    max_steps: int = 1000
    """Cap on the steps of an episode (a loop with discount 1 would otherwise never end); a cut
    episode is not terminal, its last targets bootstrap."""
    initial: float = 0.0
    """Initial value of every Q (or V) entry; a high one is optimistic and makes the greedy policy explore."""
    start: int = 0
    """The state episodes start in (a non-terminal state)."""
    seed: int = 0
    """Seed of the numpy Generator that draws every action, outcome and coin."""
    batch: int = 1
    """Episodes per snapshot (the numbers do not depend on it)."""
    eval_every: int = DEFAULT_EVAL_EVERY
    """Episodes between exact evaluations of the learned greedy policy from the start (0: never)."""
    eval_budget: float = 0.0
    """With a positive budget b, a due evaluation (but the last) is made only when at least b times its
    estimated cost (:func:`evaluation_cost`, in updates) has been learned since the one before, so that the
    evaluations take at most about 1/b of the learning time (deterministic: counted in updates, not timed).
    0: every ``eval_every`` episodes."""

    def __post_init__(self) -> None:
        if self.method not in LEARNERS:
            raise ValueError(f"method: unknown learner {self.method!r}; choose one of {', '.join(LEARNERS)}")
        for name in ("episodes", "n", "max_steps", "batch"):
            v = getattr(self, name)
            if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < 1:
                raise ValueError(f"{name} must be a positive integer, got {v!r}")
        for name, hi in (("episodes", MAX_EPISODES), ("max_steps", MAX_STEPS_LIMIT)):
            if getattr(self, name) > hi:
                raise ValueError(f"{name} must be at most {hi:,}, got {getattr(self, name):,}")
        if not (isinstance(self.eval_budget, (int, float)) and math.isfinite(self.eval_budget)
                and self.eval_budget >= 0):
            raise ValueError(f"eval_budget must be a finite number >= 0, got {self.eval_budget!r}")
        if not isinstance(self.eval_every, (int, np.integer)) or self.eval_every < 0:
            raise ValueError(f"eval_every must be an integer >= 0, got {self.eval_every!r}")
        if self.alpha is not None and not (0.0 < self.alpha <= 1.0):
            raise ValueError(f"alpha must be in (0, 1], got {self.alpha!r}")
        if not (0.0 <= self.alpha_power <= 1.0):
            raise ValueError(f"alpha_power (w of 1/N^w) must be in [0, 1], got {self.alpha_power!r}")
        for name in ("epsilon", "epsilon_min"):
            v = getattr(self, name)
            if not (0.0 <= v <= 1.0):
                raise ValueError(f"{name} must be in [0, 1], got {v!r}")
        if not (0.0 < self.epsilon_decay <= 1.0):
            raise ValueError(f"epsilon_decay must be in (0, 1], got {self.epsilon_decay!r}")
        if self.visits not in VISITS:
            raise ValueError(f"visits must be one of {', '.join(VISITS)}, got {self.visits!r}")
        if self.visits != "first" and not registry.get(self.method).takes("visits"):
            raise ValueError(f"visits applies to {', '.join(registry.ids_where('learner', takes='visits'))} only, "
                             f"not {self.method}")
        if self.policy not in POLICIES:
            raise ValueError(f"policy must be one of {', '.join(POLICIES)}, got {self.policy!r}")
        if not math.isfinite(self.initial):
            raise ValueError(f"initial must be finite, got {self.initial!r}")

    @property
    def is_control(self) -> bool:
        """True for the learners of Q (control), False for prediction."""
        return not registry.get(self.method).prediction

    @property
    def step(self) -> tuple[float, float]:
        """``(alpha, power)`` of the step size actually used (the method's default when alpha is None)."""
        if self.alpha is None:
            return (1.0, 1.0) if self.method in ("mc", "mc-control") else (0.1, 0.0)
        return float(self.alpha), float(self.alpha_power)

    def step_text(self) -> str:
        """The step size as a student writes it: "0.1", "1/N" or "1/N^0.8"."""
        a, w = self.step
        if w == 0:
            return f"{a:g}"
        head = "1" if a == 1 else f"{a:g}"
        return f"{head}/N" if w == 1 else f"{head}/N^{w:g}"


# ====================================================================== the exact answer
@dataclass(frozen=True, eq=False)
class ExactAnswer:
    """What the learner is measured against, solved once by the project's own solvers."""

    values: np.ndarray
    """float64 (n_states): V* (control) or V of the evaluated policy (prediction)."""
    q: np.ndarray
    """float64 (n_rows): Q* (control) or Q of the evaluated policy, one Bellman backup of ``values``."""
    optimal: np.ndarray
    """bool (n_rows): rows whose action is optimal (within TIE_TOL of the best; every tie counts)."""
    policy_rows: np.ndarray
    """float64 (n_rows): the row probabilities of the policy prediction follows (control: the optimal one)."""


def exact_answer(mdp: TabularMDP, settings: LearningSettings) -> ExactAnswer:
    """V* and Q* by value iteration (as :func:`mdpviz.solvers.solve` runs it), the optimal rows, and
    for prediction the exact value of the policy it evaluates (a linear solve)."""
    from mdpviz.solvers.policy_iteration import evaluate_weights, progress_rows
    from mdpviz.solvers.sweep import policy_to_rows, rows_to_policy, run
    from mdpviz.solvers.value_iteration import value_iteration

    sol = run(value_iteration(mdp, tol=1e-12, max_sweeps=1_000_000))
    if not np.all(np.isfinite(sol.values)):
        raise ValueError("value iteration gave values that are not finite: the rewards are too large for floating "
                         "point (scale them down)")
    q_star = mdp.q_values(sol.values)
    best, _ = greedy(mdp, q_star)
    optimal = optimal_rows(mdp, q_star, best)
    policy = np.asarray(sol.policy)
    if mdp.discount >= 1.0 and not mdp.is_two_player:
        # with discount 1 a free loop can tie with the way out: break such ties towards the terminal
        # states, as mdpviz.solvers.solve does, so the "optimal" policy evaluated ends its episodes
        rows = policy_to_rows(mdp, np.where(mdp.terminal, -1, policy))
        policy = rows_to_policy(mdp, progress_rows(mdp, q_star, best, rows))
    if settings.policy == "random":
        pi = 1.0 / np.asarray(mdp.actions_per_state, dtype=np.float64)[mdp.row_state]
    else:
        pi = np.zeros(mdp.n_rows)
        rows = policy_to_rows(mdp, np.where(mdp.terminal, -1, policy))  # every live state has a greedy action
        pi[rows[rows >= 0]] = 1.0
    if settings.is_control:
        values, q = np.asarray(sol.values, dtype=np.float64), q_star
    else:
        values = evaluate_weights(mdp, _weights(mdp, pi), zero_loops=True)
        q = mdp.q_values(values)
    return ExactAnswer(read_only(values), read_only(q), read_only(optimal), read_only(pi))


def _weights(mdp: TabularMDP, row_probs: np.ndarray):
    """The (n_states x n_rows) policy matrix of row probabilities (terminal states: none)."""
    import scipy.sparse as sp

    w = np.where(mdp.terminal[mdp.row_state], 0.0, row_probs)
    return sp.csr_matrix((w, (mdp.row_state, np.arange(mdp.n_rows))), shape=(mdp.n_states, mdp.n_rows))


def evaluation_cost(mdp: TabularMDP) -> int:
    """About what one :func:`greedy_policy_value` of ``mdp`` costs, in updates of the compiled loop: a fixed
    part (building and factorising or iterating, about 20,000 updates' time) plus 2 per transition (measured
    on a 10,000-state course file and FrozenLake 8x8; issue 35, item 22)."""
    return 20_000 + 2 * int(np.asarray(mdp.dst).size)


def greedy_policy_value(mdp: TabularMDP, rows: np.ndarray, start: int) -> float:
    """The exact value from ``start`` of the deterministic policy taking row ``rows[s]`` in each state
    (a linear solve); NaN when, with discount 1, it never reaches a terminal state and so has no value."""
    from mdpviz.solvers.policy_iteration import ImproperPolicyError, evaluate_weights

    pi = np.zeros(mdp.n_rows)
    live = rows >= 0
    pi[rows[live]] = 1.0
    try:
        return float(evaluate_weights(mdp, _weights(mdp, pi))[start])
    except ImproperPolicyError:
        return math.nan


# ====================================================================== snapshots
@dataclass(frozen=True, eq=False)
class LearningStep:
    """One immutable snapshot of a learner, yielded after each episode (or batch of episodes)."""

    method: str
    """Learner id (a key of :data:`LEARNERS`)."""
    episode: int
    """Episodes done so far (1-based: the episode just finished)."""
    updates: int
    """Value updates made so far (one per TD step; one per first visit, or every visit, for Monte Carlo)."""
    q: np.ndarray | None
    """float64 (n_rows), read-only: learned Q per (state, action) row (Double Q-learning: the mean of
    its two tables); None for prediction."""
    values: np.ndarray
    """float64 (n_states), read-only: learned V (control: the greedy value, max or min over the state's Q);
    0 at terminal states."""
    policy: np.ndarray | None
    """int64 (n_states), read-only: the learned greedy action id (-1 terminal; exact ties: lowest action);
    None for prediction."""
    visits: np.ndarray
    """int64 (n_states), read-only: how often each state has been visited."""
    row_updates: np.ndarray
    """int64 (n_rows) for control, (n_states) for prediction, read-only: updates of each entry (the N of 1/N)."""
    path: tuple[int, ...]
    """States of the last episode, start to end."""
    actions: tuple[int, ...]
    """Action ids of the last episode (one fewer than ``path``)."""
    rewards: tuple[float, ...]
    """Rewards (or costs) of the last episode's steps."""
    returns: tuple[float, ...]
    """Discounted return of each episode of this batch, from its start (reward units)."""
    lengths: tuple[int, ...]
    """Steps of each episode of this batch."""
    epsilon: float
    """Exploration rate of the last episode."""
    rms_error: float
    """sqrt(mean over non-terminal states of (V_learned - V_exact)^2)."""
    max_error: float
    """max over non-terminal states of |V_learned - V_exact|."""
    greedy_agreement: float
    """Share of non-terminal states whose learned greedy action is optimal (NaN for prediction)."""
    policy_value: float | None
    """Exact value from the start of the learned greedy policy, when evaluated at this episode (every
    ``eval_every`` episodes and at the last; control only), else None; NaN if it never ends (discount 1)."""
    exact: ExactAnswer = field(repr=False)
    """The exact answer the errors are measured against (the same object in every snapshot)."""
    elapsed: float = 0.0
    """Seconds since the learner started (learning and snapshots, not the exact solve)."""
    learning_seconds: float = 0.0
    """Seconds spent in the episode loop so far: learning only (no snapshot, no policy evaluation, no
    compile: see :func:`mdpviz.solvers.learning_warmup.prepare_loop`)."""
    done: bool = False
    """True for the last snapshot."""

    @property
    def ret(self) -> float:
        """Return of the last episode."""
        return self.returns[-1]

    def shown(self, mode: str) -> np.ndarray:
        """What a board shows per state in view ``mode`` (one of :data:`BOARD_MODES`): the learned V,
        the exact V, the error learned - exact (0 at terminal states) or the visit counts; float64."""
        if mode == "learned":
            return np.asarray(self.values, dtype=np.float64)
        if mode == "exact":
            return np.asarray(self.exact.values, dtype=np.float64)
        if mode == "error":
            return np.asarray(self.values, dtype=np.float64) - self.exact.values
        if mode == "visits":
            return np.asarray(self.visits, dtype=np.float64)
        raise ValueError(f"unknown board mode {mode!r}; choose one of {', '.join(BOARD_MODES)}")

    def differs(self, mdp: TabularMDP) -> np.ndarray:
        """bool (n_states): the states whose learned greedy action is not one of the optimal ones
        (control; all False for prediction and at terminal states)."""
        out = np.zeros(mdp.n_states, dtype=bool)
        if self.policy is None:
            return out
        live = np.flatnonzero(np.asarray(self.policy) >= 0)
        if not live.size:
            return out
        # each (state, action)'s row at once (issue 35 item 8: a Python row_of per state took ~100 ms a
        # frame on risk tic-tac-toe, on the GUI thread): the rows are sorted by state, then action, so
        # state * k + action is sorted and one searchsorted finds them all
        k = int(max(int(np.max(mdp.row_action)) if mdp.n_rows else 0, int(np.max(self.policy))) + 1)
        keys = np.asarray(mdp.row_state, dtype=np.int64) * k + np.asarray(mdp.row_action, dtype=np.int64)
        want = live.astype(np.int64) * k + np.asarray(self.policy, dtype=np.int64)[live]
        rows = np.minimum(np.searchsorted(keys, want), max(keys.size - 1, 0))
        bad = keys[rows] != want if keys.size else np.ones(live.size, dtype=bool)
        if bad.any():
            s = int(live[np.argmax(bad)])
            raise ValueError(f"action {int(self.policy[s])} is not legal in state {s}")
        out[live] = ~np.asarray(self.exact.optimal)[rows]
        return out


# ====================================================================== the learner
def learner(mdp: TabularMDP, method: str = "q", *, exact: ExactAnswer | None = None, compiled: bool | None = None,
            **options) -> Generator[LearningStep, None, LearningStep]:
    """The generator of learner ``method`` (a key of :data:`LEARNERS`) on ``mdp``; ``options`` are the
    fields of :class:`LearningSettings`. Settings are checked now (ValueError), not at the first step.

    ``alpha`` may be written as the command line takes it ("0.1", "1/n", "1/n^0.8", see :func:`parse_alpha`).
    ``exact``: the answer to measure against, when already solved (else solved once here).
    ``compiled``: True = the numba loop (an error when numba is missing), False = the Python reference
    loop (the same source), None = compiled when available.
    """
    if isinstance(options.get("alpha"), str):  # "1/n", "1/n^0.8" or "0.1", as the command line writes it
        alpha, power = parse_alpha(options["alpha"])
        if power and options.get("alpha_power", power) != power:
            raise ValueError(f"alpha {options['alpha']!r} and alpha_power {options['alpha_power']} disagree; give one")
        options["alpha"], options["alpha_power"] = alpha, power or options.get("alpha_power", 0.0)
    settings = LearningSettings(method=method, **options)
    loop_code(method)  # (a learner with a loop of its own is started by its registry line's entry point)
    check_model(mdp, settings)
    loop = _loop(compiled)
    if exact is None:
        exact = exact_answer(mdp, settings)
    if settings.is_control and settings.eval_every:  # the evaluations' solvers, imported now: not in the curve's time
        import scipy.sparse.linalg  # noqa: F401
    return _learn(mdp, settings, exact, loop)


def loop_code(method: str) -> int:
    """The compiled episode loop's code of learner ``method`` (its registry line's ``code``; ValueError for
    a learner that runs a loop of its own)."""
    code = registry.get(method).code
    if code is None:
        raise ValueError(f"method: {method!r} is not a learner of the episode loop")
    return int(code)


def check_model(mdp: TabularMDP, settings: LearningSettings) -> None:
    """ValueError when ``mdp`` cannot be learned with ``settings``: start out of range or terminal."""
    if not (0 <= settings.start < mdp.n_states):
        raise ValueError(f"start state {settings.start} is out of range 0..{mdp.n_states - 1}")
    if mdp.terminal[settings.start]:
        raise ValueError(f"start state {settings.start} is terminal: an episode from it has no step")


def _loop(compiled: bool | None) -> tuple:
    """``(run_episodes, summarise)``: both compiled, or the Python loop and None (snapshots by numpy)."""
    from mdpviz.solvers import kernels

    if compiled is not False:
        k = kernels.learning_loop()
        if k is not None:
            return k
        if compiled:
            raise ValueError("the compiled learning loop is unavailable: " + (kernels.unavailable_reason()
                                                                             or "numba could not compile it"))
    from mdpviz.solvers.learning_loop import run_episodes

    return run_episodes, None


@dataclass(eq=False)
class _Tables:
    """The learner's mutable arrays (private to one generator)."""

    q: np.ndarray
    q2: np.ndarray
    v: np.ndarray
    n_row: np.ndarray
    n_state: np.ndarray
    visits: np.ndarray
    first: np.ndarray

    @classmethod
    def new(cls, mdp: TabularMDP, initial: float) -> "_Tables":
        q = np.full(mdp.n_rows, float(initial))
        v = np.where(mdp.terminal, 0.0, float(initial))
        return cls(q, q.copy(), v, np.zeros(mdp.n_rows, np.int64), np.zeros(mdp.n_states, np.int64),
                   np.zeros(mdp.n_states, np.int64), np.full(max(mdp.n_rows, mdp.n_states), -1, np.int64))


def model_arrays(mdp: TabularMDP) -> dict[str, np.ndarray]:
    """The simulator's arrays: CSR pointers, next states, rewards (the mean) and their standard deviation
    ("noise": one 0 when the model's rewards are exact, :attr:`~mdpviz.core.mdp.TabularMDP.reward_sd`), the
    cumulative probability of each transition within its row, terminal flags and the sense (+1 max, -1 min)
    per state."""
    prob = np.asarray(mdp.prob, dtype=np.float64)
    # summed within each row, in order (a global cumsum minus its value at the row's start would
    # carry the rounding of all rows before: a tiny probability could then never be drawn)
    pos = np.arange(prob.size) - np.repeat(np.asarray(mdp.row_ptr[:-1]), np.diff(mdp.row_ptr))
    cum = prob.copy()
    if prob.size:
        order = np.argsort(pos, kind="stable")
        bounds = np.searchsorted(pos[order], np.arange(int(pos.max()) + 2))
        for j in range(1, int(pos.max()) + 1):
            idx = order[bounds[j]:bounds[j + 1]]
            cum[idx] = cum[idx - 1] + prob[idx]
    return {"state_ptr": np.ascontiguousarray(mdp.state_ptr, np.int64),
            "row_ptr": np.ascontiguousarray(mdp.row_ptr, np.int64),
            "dst": np.ascontiguousarray(mdp.dst, np.int64), "cum": np.ascontiguousarray(cum),
            "reward": np.ascontiguousarray(mdp.reward, np.float64),
            "noise": (np.zeros(1) if getattr(mdp, "reward_sd", None) is None
                      else np.array(mdp.reward_sd, dtype=np.float64)),  # (a writable copy: one compiled signature)
            "terminal": np.ascontiguousarray(mdp.terminal, np.bool_),
            "sense": np.ascontiguousarray(mdp.sense, np.float64)}


_REPLAY_ARRAYS: list = [None, None]
"""(weak reference to the last model replayed, its :func:`model_arrays`): the window replays an episode
in every frame of a Run (issue 35 item 8: rebuilding them took 15-30 ms a frame on checkers)."""


def _replay_arrays(mdp: TabularMDP) -> dict[str, np.ndarray]:
    """:func:`model_arrays` of ``mdp``, kept for the last model (only read by :func:`replay_episode`)."""
    ref, arr = _REPLAY_ARRAYS
    if ref is None or ref() is not mdp:
        arr = model_arrays(mdp)
        _REPLAY_ARRAYS[:] = [weakref.ref(mdp), arr]
    return arr


def _learn(mdp: TabularMDP, settings: LearningSettings, exact: ExactAnswer, kernels: tuple) -> Generator[LearningStep, None, LearningStep]:
    from mdpviz.solvers.learning_loop import CONTROL_FROM

    loop, summarise = kernels
    code = loop_code(settings.method)
    arr = model_arrays(mdp)
    tab = _Tables.new(mdp, settings.initial)
    rng = np.random.default_rng(settings.seed)
    alpha, power = settings.step
    pi = np.ascontiguousarray(exact.policy_rows, dtype=np.float64)
    starts = np.flatnonzero(~mdp.terminal).astype(np.int64)
    n_step = settings.n if settings.method == "nstep" else 1
    path_s = np.zeros(settings.max_steps + 1, np.int64)
    path_r = np.zeros(settings.max_steps + 1, np.int64)
    path_g = np.zeros(settings.max_steps + 1, np.float64)
    live = ~np.asarray(mdp.terminal)
    control = code >= CONTROL_FROM
    noisy = bool(np.any(arr["noise"] > 0.0))
    every_visit = settings.visits == "every"
    t0 = time.perf_counter()
    done_eps, updates = 0, 0
    learning = 0.0  # seconds in the loop
    memo: dict = {}
    last = None
    sent = None
    while done_eps < settings.episodes:
        # (a value sent in asks for that many episodes in the next snapshot: the same numbers, see learning_batches)
        m = min(int(sent) if isinstance(sent, (int, np.integer)) and sent > 0 else settings.batch, settings.episodes - done_eps)
        returns = np.zeros(m)
        lengths = np.zeros(m, np.int64)
        t_loop = time.perf_counter()
        updates += int(loop(code, m, done_eps, arr["state_ptr"], arr["row_ptr"], arr["dst"], arr["cum"],
                            arr["reward"], arr["noise"], noisy, arr["terminal"], arr["sense"], float(mdp.discount),
                            pi, starts, int(settings.start), bool(settings.exploring_starts), float(alpha), float(power),
                            float(settings.epsilon), float(settings.epsilon_decay), float(settings.epsilon_min), int(n_step),
                            every_visit, int(settings.max_steps), rng, tab.q, tab.q2, tab.v, tab.n_row, tab.n_state,
                            tab.visits, tab.first, path_s, path_r, path_g, returns, lengths))
        learning += time.perf_counter() - t_loop
        prev = done_eps
        done_eps += m
        last = _snapshot(mdp, settings, exact, tab, control, live, done_eps, prev, updates, path_s, path_r, path_g,
                         returns, lengths, t0, summarise, arr, memo, learning)
        sent = yield last
    return last


def learned_q(settings: LearningSettings, q: np.ndarray, q2: np.ndarray) -> np.ndarray:
    """The Q a learner shows: its table, or for Double Q-learning the mean of its two tables."""
    return (q + q2) / 2.0 if settings.method == "double-q" else q.copy()


def _snapshot(mdp, settings, exact, tab, control, live, episode, prev, updates, path_s, path_r, path_g, returns,
              lengths, t0, summarise, arr, memo, learning) -> LearningStep:
    t = int(lengths[-1])
    rows = path_r[:t]
    q = policy = None
    if control:
        q = learned_q(settings, tab.q, tab.q2)
    if summarise is not None:  # one compiled pass
        values = np.empty(mdp.n_states)
        best_rows = np.empty(mdp.n_states, np.int64)
        sumsq, mx, n_agree, n_live = summarise(control, q if control else tab.q, arr["state_ptr"], arr["sense"],
                                               arr["terminal"], tab.v, exact.values, exact.optimal, values, best_rows)
        rms = math.sqrt(sumsq / n_live) if n_live else 0.0
        agree = n_agree / n_live if n_live else 1.0
    else:  # the same numbers by numpy (the lowest action among exact ties)
        if control:
            values, best_rows = greedy(mdp, q, tie_tol=0.0)
            agree = float(exact.optimal[best_rows[live]].mean()) if live.any() else 1.0
        else:
            values = tab.v.copy()
        err = (values - exact.values)[live]
        rms = float(np.sqrt(np.mean(err ** 2))) if err.size else 0.0
        mx = float(np.abs(err).max()) if err.size else 0.0
    if control:
        policy = np.where(best_rows >= 0, np.asarray(mdp.row_action)[np.maximum(best_rows, 0)], -1)
        ev = settings.eval_every
        due = episode == settings.episodes or (ev > 0 and episode // ev > prev // ev and (
            settings.eval_budget <= 0 or updates - memo.get("at", 0) >= settings.eval_budget * evaluation_cost(mdp)))
        pv = None
        if due:  # the same policy as last time: the same value (no second solve)
            memo["at"] = updates
            key = best_rows.tobytes()
            if memo.get("rows") != key:
                memo["rows"], memo["value"] = key, greedy_policy_value(mdp, best_rows, settings.start)
            pv = memo["value"]
        row_updates = tab.n_row.copy()
    else:
        agree, pv = math.nan, None
        row_updates = tab.n_state.copy()
    return LearningStep(
        method=settings.method, episode=episode, updates=updates,
        q=None if q is None else read_only(q), values=read_only(values),
        policy=None if policy is None else read_only(policy.astype(np.int64)),
        visits=read_only(tab.visits.copy()), row_updates=read_only(row_updates),
        path=tuple(path_s[:t + 1].tolist()),
        actions=tuple(np.asarray(mdp.row_action)[rows].tolist()),
        rewards=tuple(path_g[:t].tolist()),
        returns=tuple(returns.tolist()), lengths=tuple(lengths.tolist()),
        epsilon=max(settings.epsilon_min, settings.epsilon * settings.epsilon_decay ** (episode - 1)),
        rms_error=float(rms), max_error=float(mx), greedy_agreement=float(agree), policy_value=pv, exact=exact,
        elapsed=time.perf_counter() - t0, learning_seconds=learning, done=episode == settings.episodes)


def learning_job(mdp: TabularMDP, method: str = "q", **options) -> Generator[object, None, LearningStep]:
    """The learner as a background job (:mod:`mdpviz.core.jobs`; the window's controller runs it on its
    job thread): before each snapshot a :class:`~mdpviz.core.jobs.JobProgress` in episodes, then the
    snapshot as a partial result; it may be cancelled between batches; its result is the last snapshot.
    Options as :func:`learner` (checked now, ValueError, not on the job thread)."""
    from mdpviz.core.jobs import JobProgress

    gen = learner(mdp, method, **options)
    total = int(options.get("episodes", LearningSettings.episodes))
    name = LEARNERS[method]

    def run() -> Generator[object, None, LearningStep]:
        last = None
        for step in gen:
            yield JobProgress(step.episode, total, f"{name}: episode {step.episode:,} of {total:,}, "
                                                   f"RMS error {step.rms_error:.3g}")
            yield step
            last = step
        return last

    return run()


def learning_run(mdp: TabularMDP, method: str, options: dict, *, history_bytes: int
                 ) -> tuple[Generator[LearningStep, int | None, LearningStep], ExactAnswer]:
    """A learner as the window runs it: ``(generator, exact answer)``. The exact answer (V* for control, V of
    the evaluated policy for prediction) is solved once here and given to the learner (its entry point,
    :func:`mdpviz.solvers.start`) as its reference; the generator is driven by
    :func:`learning_batches`, with batches so large that the snapshots of the run stay within about
    ``history_bytes`` whatever the model's size and the episodes (the same numbers either way)."""
    settings = LearningSettings(method=method, **options)
    exact = exact_answer(mdp, settings)
    min_batch = max(1, math.ceil(settings.episodes * snapshot_bytes(mdp) / (history_bytes / 2)))
    gen = registry.get(method).load()(mdp, method, exact=exact, **options)
    return learning_batches(gen, min_batch=min_batch, episodes=settings.episodes), exact


def learn(mdp: TabularMDP, method: str = "q", **options) -> tuple[LearningStep, list[LearningStep]]:
    """Run a learner to the end: ``(last snapshot, every snapshot)`` (one per ``batch`` episodes)."""
    steps = list(learner(mdp, method, **options))
    return steps[-1], steps


BATCH_SECONDS = 0.005
"""Learning time one snapshot of a run at full speed aims at (:func:`learning_batches`; beyond its minimum)."""


def snapshot_bytes(mdp: TabularMDP) -> int:
    """About how many bytes one :class:`LearningStep` of ``mdp`` holds (its per-row and per-state arrays)."""
    return 8 * (2 * mdp.n_rows + 4 * mdp.n_states) + 512


def learning_batches(gen: Generator[LearningStep, int | None, LearningStep], *, min_batch: int = 1,
                     episodes: int | None = None) -> Generator[LearningStep, int | None, LearningStep]:
    """A learner's generator driven as the solvers are: ``next()`` gives the snapshot after one more
    batch (the learner's ``batch`` episodes; the window's: one); ``send(k)`` with k > 1 the snapshot after
    up to k more episodes: at least ``min_batch``, else as many as :data:`BATCH_SECONDS` of learning
    allow at the speed measured so far; with ``episodes`` (the learner's total) the last episode is a
    snapshot of its own (the window writes its updates out). The numbers of every episode are the same
    whatever is asked (a run at full speed sends; a Step does not): only the snapshots are fewer."""
    per_episode = 0.0  # seconds of learning per episode, measured
    started = False
    done = 0  # episodes learned so far
    ask = None
    try:
        while True:
            if started and isinstance(ask, (int, np.integer)) and ask > 1:
                n = int(BATCH_SECONDS / per_episode) if per_episode > 0 else 1
                n = max(1, min(int(ask), max(int(min_batch), n)))
                if episodes is not None:
                    n = max(1, min(n, int(episodes) - done - 1))
                t0 = time.perf_counter()
                step = gen.send(n)
            else:
                t0 = time.perf_counter()
                step = next(gen)
            per_episode = (time.perf_counter() - t0) / max(1, step.episode - done)
            started = True
            done = step.episode
            ask = yield step
    except StopIteration as stop:
        return stop.value


REPLAYABLE = registry.ids_where("learner", replayable=True)
"""The learners whose episode :func:`replay_episode` can take one transition at a time (one update per
step, no coin of its own; n-step TD with n = 1 is TD(0))."""


def replay_episode(mdp: TabularMDP, prev: LearningStep | None, step: LearningStep,
                   settings: LearningSettings) -> list[tuple[np.ndarray, Update]] | None:
    """``step``'s episode one transition at a time: after each transition, the learned table (Q per row
    for control, V per state for TD(0)) and the update it made, with its numbers, from the table of
    ``prev`` (the snapshot before; None: the initial values) and the same update functions as the loop,
    so the last table is ``step``'s (bit for bit with a constant step size; with 1/N^w within the last
    bit of the compiled loop's power function). None when it cannot be replayed: a learner not in
    :data:`REPLAYABLE`, a snapshot of more than one episode, or (SARSA) an episode cut by the step cap
    whose last next action was not kept (then every transition before it)."""
    from mdpviz.solvers import learning_loop as L

    method = "td0" if settings.method == "nstep" and settings.n == 1 else settings.method
    if method not in REPLAYABLE or step.episode - (0 if prev is None else prev.episode) != 1:
        return None
    control = method != "td0"
    arr = _replay_arrays(mdp)
    terminal = arr["terminal"]
    if prev is None:
        table = (np.full(mdp.n_rows, float(settings.initial)) if control
                 else np.where(mdp.terminal, 0.0, float(settings.initial)))
        counts = np.zeros(mdp.n_rows if control else mdp.n_states, np.int64)
    else:
        table = np.array(prev.q if control else prev.values, dtype=np.float64)
        counts = np.array(prev.row_updates, dtype=np.int64)
    alpha, power = settings.step
    gamma = float(mdp.discount)
    code = loop_code(method)
    out: list[tuple[np.ndarray, Update]] = []
    path, acts, rews = step.path, step.actions, step.rewards
    for t in range(len(acts)):
        s, a, r, s2 = int(path[t]), int(acts[t]), float(rews[t]), int(path[t + 1])
        if control:
            row = mdp.row_of(s, a)
            r_next = -1
            if method == "sarsa" and not terminal[s2]:
                if t + 1 >= len(acts):
                    break  # cut by the step cap: A' was drawn but not kept
                r_next = mdp.row_of(s2, int(acts[t + 1]))
            old = float(table[row])
            target = float(L.q_target(code, table, table, r_next, arr["state_ptr"], arr["sense"], terminal, gamma,
                                      r, s2, float(step.epsilon)))
            counts[row] += 1
            alpha_t = L.step_size(alpha, power, counts[row])
            new = float(L.td_update(table, row, target, alpha_t))
            nxt = None if terminal[s2] else ((target - r) / gamma if gamma > 0 else 0.0)
            upd = Update(s, a, r, s2, old, alpha_t, gamma, nxt, target, new, "Q")
        else:
            g = 0.0
            g += 1.0 * r  # (as nstep_update sums it: the same rounding)
            nxt = None
            if not terminal[s2]:
                g += gamma * table[s2]
                nxt = float(table[s2])
            old = float(table[s])
            counts[s] += 1
            alpha_t = L.step_size(alpha, power, counts[s])
            new = float(L.td_update(table, s, g, alpha_t))
            upd = Update(s, -1, r, s2, old, alpha_t, gamma, nxt, float(g), new, "V")
        out.append((table.copy(), upd))
    return out


# ====================================================================== experience-level API
@dataclass(frozen=True)
class Update:
    """One update of :class:`ExperienceLearner`, with every number of it (the inspector writes it out)."""

    state: int
    """S."""
    action: int
    """A (action id; -1 for TD(0), which learns V)."""
    reward: float
    """R."""
    next_state: int
    """S'."""
    old: float
    """The value before: Q(S, A) (or V(S))."""
    alpha: float
    """The step size used."""
    gamma: float
    """The discount."""
    next_value: float | None
    """The bootstrap term's value (max_a Q(S', a), Q(S', A'), the expectation, or V(S')); None when S'
    is terminal (no bootstrap)."""
    target: float
    """R + gamma x next_value (R alone at a terminal S')."""
    new: float
    """The value after: old + alpha (target - old)."""
    table: str = "Q"
    """Which table moved: "Q", "V", or Double Q-learning's "Q1" / "Q2"."""

    def text(self, state_name=str, action_name=str) -> str:
        """The update with its numbers: "Q(s,a) <- 0.42 + 0.1 x (-0.04 + 0.9 x 0.61 - 0.42) = 0.4308"."""
        f = lambda x: f"{x:.4g}"  # noqa: E731
        key = (f"{self.table}({state_name(self.state)})" if self.action < 0
               else f"{self.table}({state_name(self.state)},{action_name(self.action)})")
        boot = "" if self.next_value is None else f" + {f(self.gamma)} x {f(self.next_value)}"
        return f"{key} <- {f(self.old)} + {f(self.alpha)} x ({f(self.reward)}{boot} - {f(self.old)}) = {f(self.new)}"


class ExperienceLearner:
    """Feed your own transitions: ``update(s, a, r, s_next)`` applies the textbook update of ``method``
    ("q", "sarsa" (give ``a_next``), "expected-sarsa", "double-q" or "td0") to the learned table of
    ``mdp``'s (state, action) pairs, with the same update functions as the episode loop. A terminal
    ``s_next`` has value 0 (no bootstrap); the max (or min) at S' is the mover's of S', as the solvers take it.

    ``q(s, a)`` reads a value, ``q_table()`` all of them (NaN where an action is illegal), ``values``
    V (TD(0)) and ``act(s)`` draws an epsilon-greedy action. The mdp gives the legal actions, the
    terminal states, the discount and each state's sense; its transitions are not used.
    """

    def __init__(self, mdp: TabularMDP, method: str = "q", *, alpha: float | str = 0.1, epsilon: float = 0.1,
                 initial: float = 0.0, seed: int = 0) -> None:
        if method not in ("q", "sarsa", "expected-sarsa", "double-q", "td0"):
            raise ValueError(f"ExperienceLearner learns by q, sarsa, expected-sarsa, double-q or td0, not {method!r}")
        self.mdp = mdp
        self.method = method
        self.alpha, self.power = parse_alpha(alpha)
        LearningSettings(method=method, alpha=self.alpha, alpha_power=self.power, epsilon=epsilon, initial=initial)
        self.epsilon = float(epsilon)
        self.rng = np.random.default_rng(seed)
        self.arr = model_arrays(mdp)
        self.Q = np.full(mdp.n_rows, float(initial))
        self.Q2 = self.Q.copy()
        self.V = np.where(mdp.terminal, 0.0, float(initial))
        self.N = np.zeros(max(mdp.n_rows, mdp.n_states), np.int64)

    def q(self, s: int, a: int) -> float:
        """Learned Q(s, a) (Double Q-learning: the mean of its two tables)."""
        r = self.mdp.row_of(int(s), int(a))
        return float((self.Q[r] + self.Q2[r]) / 2 if self.method == "double-q" else self.Q[r])

    def q_table(self) -> np.ndarray:
        """float64 (n_states x n_actions): learned Q, NaN where an action is not legal."""
        out = np.full((self.mdp.n_states, self.mdp.n_actions), np.nan)
        q = (self.Q + self.Q2) / 2 if self.method == "double-q" else self.Q
        out[self.mdp.row_state, self.mdp.row_action] = q
        return out

    @property
    def values(self) -> np.ndarray:
        """float64 (n_states): V (TD(0)), or the greedy value of Q (max or min by the state's mover)."""
        if self.method == "td0":
            return self.V.copy()
        q = (self.Q + self.Q2) / 2 if self.method == "double-q" else self.Q
        return greedy(self.mdp, q, tie_tol=0.0)[0]

    def act(self, s: int) -> int:
        """An epsilon-greedy action id in ``s`` (the loop's rule: exact ties broken at random)."""
        from mdpviz.solvers.learning_loop import choose_row

        a = self.arr
        r = choose_row(self.rng, self.Q, self.Q2, self.method == "double-q", a["state_ptr"][s],
                       a["state_ptr"][s + 1], a["sense"][s], self.epsilon)
        return int(self.mdp.row_action[r])

    def update(self, s: int, a: int, r: float, s_next: int, a_next: int | None = None) -> Update:
        """One textbook update from the transition (s, a, r, s_next) (SARSA: and the next action ``a_next``)."""
        from mdpviz.solvers import learning_loop as L

        mdp, arr = self.mdp, self.arr
        s, s_next, r = int(s), int(s_next), float(r)
        if not (0 <= s_next < mdp.n_states):
            raise ValueError(f"next state {s_next} is out of range 0..{mdp.n_states - 1}")
        gamma = float(mdp.discount)
        term = bool(mdp.terminal[s_next])
        if self.method == "td0":
            if not (0 <= s < mdp.n_states):
                raise ValueError(f"state {s} is out of range 0..{mdp.n_states - 1}")
            old = float(self.V[s])
            nxt = None if term else float(self.V[s_next])
            target = r if nxt is None else r + gamma * nxt
            self.N[s] += 1
            step = L.step_size(self.alpha, self.power, self.N[s])
            new = L.td_update(self.V, s, target, step)
            return Update(s, -1, r, s_next, old, step, gamma, nxt, target, float(new), "V")
        row = mdp.row_of(s, int(a))
        code = loop_code(self.method)
        r_next = -1
        if self.method == "sarsa" and not term:
            if a_next is None:
                raise ValueError("SARSA's update needs the next action a_next (S, A, R, S', A')")
            r_next = mdp.row_of(s_next, int(a_next))
        table, other, name = self.Q, self.Q2, "Q"
        if self.method == "double-q":
            if self.rng.random() >= 0.5:
                table, other, name = self.Q2, self.Q, "Q2"
            else:
                name = "Q1"
        old = float(table[row])
        target = float(L.q_target(code, table, other, r_next, arr["state_ptr"], arr["sense"], arr["terminal"],
                                  gamma, r, s_next, self.epsilon))
        nxt = None if term else (target - r) / gamma if gamma > 0 else 0.0
        self.N[row] += 1
        step = L.step_size(self.alpha, self.power, self.N[row])
        new = L.td_update(table, row, target, step)
        return Update(s, int(a), r, s_next, old, step, gamma, nxt, target, float(new), name)


__all__ = ["BOARD_MODES", "DEFAULT_EVAL_EVERY", "ExactAnswer", "ExperienceLearner", "LEARNERS", "LearningSettings",
           "LearningStep", "MAX_EPISODES", "VISITS", "MAX_STEPS_LIMIT", "POLICIES", "PREDICTION", "REPLAYABLE", "Update",
           "evaluation_cost", "exact_answer", "greedy_policy_value", "learn", "learning_run", "loop_code", "learning_batches", "snapshot_bytes", "learned_q", "learner", "learning_job", "model_arrays",
           "parse_alpha", "replay_episode"]
