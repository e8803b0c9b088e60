"""Learning with linear function approximation beside the exact answer (Sutton and Barto, chapters 9-11).

The learners of :mod:`mdpviz.solvers.learning` keep one number per state (or per state and action); these
keep a weight vector w and a feature vector x(s) per state (:mod:`mdpviz.solvers.features`), and estimate
``v_hat(s, w) = w . x(s)`` (eq. 9.8) or, for control, ``q_hat(s, a, w) = w . x(s, a)`` (section 10.1). Each
is measured against the exact answers of :mod:`mdpviz.solvers.fixed_points`, computed from the model: the
true values, the on-policy distribution mu, the best fit (where gradient Monte Carlo goes) and the TD fixed
point (where semi-gradient TD and LSTD go); a snapshot's ``ve`` is the mu-weighted value error (eq. 9.1).

Written as the tabular learners: ``approx_learner(mdp, "semi-td", features="aggregate:10", episodes=500)``
returns a generator that yields one frozen :class:`ApproxStep` per episode (or per ``batch`` of episodes:
the same numbers, fewer snapshots) and returns the last. The update rules are written once, in
:mod:`mdpviz.solvers.approx_loop`: numba compiles that loop, Python runs the very same source as the
reference (``compiled=False``), and the random numbers are drawn in the tabular loop's order, so that with
``tabular`` (one-hot) features each learner with a tabular twin gives its numbers for the same seed:
semi-gradient TD(0) = TD(0) with a constant step size, n-step semi-gradient TD = n-step TD, gradient Monte
Carlo = every-visit Monte Carlo with a constant step size, semi-gradient SARSA = SARSA (:func:`tabular_twin`).
n-step semi-gradient SARSA, LSTD, off-policy TD and TDC have no tabular twin among the learners.

``expected=True`` (off-policy TD, TDC, semi-gradient TD) runs the expected update instead of sampling
(:func:`mdpviz.solvers.fixed_points.expected_updates`, figures 11.2 and 11.5): one snapshot per step.

Continuing models (no terminal state, Baird's counterexample): an "episode" is ``max_steps`` steps and the
next continues from where the last stopped. Never imports Qt.
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

KIND = "approximation"
"""The registry kind of these learners."""

POLICIES = ("optimal", "random")
"""The target policies a prediction (or off-policy) learner evaluates by name."""
BEHAVIOURS = ("random", "game")
"""The behaviour policies of the off-policy learners: uniform over the legal actions, or the game's own
(``behaviour_rows``, e.g. Baird's 6/7 dashed, 1/7 solid)."""
BOARD_MODES = ("approximate", "exact", "td", "best", "error", "visits")
"""What a board can show of a snapshot (:meth:`ApproxStep.shown`)."""

DEFAULT_ALPHA_SCALE = 0.1
"""The default step size is this over the mean squared norm of the features, ``alpha = 1 / (10 E[x^T x])``
(section 9.6, eq. 9.19, with tau = 10): 0.1 with one-hot or aggregated features, 0.1 / T with T tilings."""
LSTD_MAX_FEATURES = 4000
"""Most features LSTD keeps its d x d matrix A_hat for (4000: 128 MB)."""
PBE_MAX_FEATURES = 500
"""Most features for which a sampled prediction snapshot carries its projected Bellman error (a pseudo-inverse
of X^T D X, d x d, once per run; each snapshot then costs one product with the chain)."""

LSTD_DENSE_SOLVE = 200
"""Above this many features LSTD's snapshot solves A_hat w = b_hat as a sparse system (a dense solve of
1000 one-hot features took about 0.1 s a snapshot)."""

MAX_EPISODES = 100_000_000
MAX_STEPS_LIMIT = 10_000_000

def _twins() -> dict[str, int]:
    """Approximation loop code -> the tabular loop's code of its twin."""
    from mdpviz.solvers import approx_loop as A
    from mdpviz.solvers import learning_loop as L

    return {A.SEMI_TD: L.TD0, A.SEMI_NSTEP: L.NSTEP, A.GRADIENT_MC: L.MC, A.SEMI_SARSA: L.SARSA}


def tabular_twin(method: str) -> str | None:
    """The tabular learner that ``method`` equals with one-hot features (constant step size; Monte Carlo with
    every-visit updates), or None when it has none (n-step SARSA, LSTD, off-policy TD, TDC)."""
    code = registry.get(method).code
    twin = _twins().get(code)
    return None if twin is None else registry.ids_where("learner", code=twin)[0]


def loop_code(method: str) -> int:
    """The approximation loop's code of ``method`` (its registry line's ``code``)."""
    spec = registry.get(method)
    if spec.kind != KIND or spec.code is None:
        raise ValueError(f"method: {method!r} is not a learner with function approximation; choose one of "
                         f"{', '.join(registry.ids(KIND))}")
    return int(spec.code)


# ====================================================================== settings
@dataclass(frozen=True)
class ApproxSettings:
    """How a learner with function approximation learns; validates itself (ValueError naming the field)."""

    method: str = "semi-td"
    """The learner (a registry id of kind "approximation")."""
    features: str = "tabular"
    """The feature spec as given (:func:`mdpviz.solvers.features.parse_features`)."""
    episodes: int = 500
    """Episodes to run (expected mode: steps of the expected update)."""
    alpha: float | None = None
    """Constant step size of w; None: ``0.1 / mean x^T x`` (:data:`DEFAULT_ALPHA_SCALE`); not used by LSTD."""
    beta: float = 0.05
    """TDC's step size of its second weight vector v (section 11.7)."""
    epsilon: float = 0.1
    """Control: probability of a uniformly random legal action."""
    epsilon_decay: float = 1.0
    """Control: epsilon is multiplied by this after every episode..."""
    epsilon_min: float = 0.0
    """...down to this floor."""
    n: int = 1
    """Steps of the n-step learners."""
    policy: str = "optimal"
    """The policy evaluated (prediction) or the target policy (off-policy): "optimal" or "random"."""
    behaviour: str = "random"
    """Off-policy: the policy followed, "random" (uniform) or "game" (the game's own, given as behaviour_rows)."""
    expected: bool = False
    """Off-policy TD, TDC, semi-gradient TD: run the expected update (no sampling), one snapshot per step."""
    initial_weights: tuple[float, ...] | None = None
    """The weights at the start (control: d x n_actions of them, action by action); None: all 0."""
    lstd_epsilon: float = 1e-3
    """LSTD: A_hat starts as this times I (section 9.8's epsilon, a ridge that makes it invertible)."""
    max_steps: int = 1000
    """Cap on the steps of an episode (a continuing model: the steps of each episode)."""
    initial: float = 0.0
    """Accepted for the tabular learners' option set; ignored (the weights start at ``initial_weights``)."""
    start: int = 0
    """The state episodes start in (a non-terminal state)."""
    seed: int = 0
    """Seed of the numpy Generator that draws every action and outcome."""
    batch: int = 1
    """Episodes per snapshot (the numbers do not depend on it)."""
    eval_every: int = 0
    """Accepted for the tabular learners' option set; unused (the snapshots' ``ve`` is exact every time)."""
    eval_budget: float = 0.0
    """Accepted for the tabular learners' option set; unused."""

    def __post_init__(self) -> None:
        spec = registry.find(self.method)
        if spec is None or spec.kind != KIND:
            raise ValueError(f"method: unknown learner with function approximation {self.method!r}; choose one of "
                             f"{', '.join(registry.ids(KIND))}")
        for name in ("episodes", "n", "max_steps", "batch"):
            v = getattr(self, name)
            if not is_whole(v) or v < 1:
                raise ValueError(f"{name} must be a positive integer, got {v!r}")
        for name, hi in (("episodes", MAX_EPISODES), ("max_steps", MAX_STEPS_LIMIT)):
            if getattr(self, name) > hi:
                raise ValueError(f"{name} must be at most {hi:,}, got {getattr(self, name):,}")
        if self.alpha is not None and not (_real(self.alpha) and 0.0 < self.alpha <= 1.0):
            raise ValueError(f"alpha must be in (0, 1], got {self.alpha!r}")
        if not (_real(self.beta) and 0.0 < self.beta <= 1.0):
            raise ValueError(f"beta must be in (0, 1], got {self.beta!r}")
        for name in ("epsilon", "epsilon_min"):
            v = getattr(self, name)
            if not (_real(v) and 0.0 <= v <= 1.0):
                raise ValueError(f"{name} must be in [0, 1], got {v!r}")
        if not (_real(self.epsilon_decay) and 0.0 < self.epsilon_decay <= 1.0):
            raise ValueError(f"epsilon_decay must be in (0, 1], got {self.epsilon_decay!r}")
        if not (_real(self.lstd_epsilon) and self.lstd_epsilon > 0.0):
            raise ValueError(f"lstd_epsilon must be a number above 0, got {self.lstd_epsilon!r}")
        if self.policy not in POLICIES:
            raise ValueError(f"policy must be one of {', '.join(POLICIES)}, got {self.policy!r}")
        if self.behaviour not in BEHAVIOURS:
            raise ValueError(f"behaviour must be one of {', '.join(BEHAVIOURS)}, got {self.behaviour!r}")
        if not isinstance(self.expected, (bool, np.bool_)):
            raise ValueError(f"expected must be true or false, got {self.expected!r}")
        if not is_whole(self.start):
            raise ValueError(f"start must be a state number, got {self.start!r}")
        if not is_whole(self.seed) or self.seed < 0:
            raise ValueError(f"seed must be an integer >= 0, got {self.seed!r}")
        if self.initial_weights is not None:
            try:
                ws = np.asarray(self.initial_weights, dtype=np.float64)
            except (TypeError, ValueError):
                raise ValueError(f"initial_weights must be a list of numbers, got {self.initial_weights!r}") from None
            if ws.ndim != 1 or not np.all(np.isfinite(ws)):
                raise ValueError("initial_weights must be a flat list of finite numbers")
        # an option given (not its default) to a method that does not take it
        defaults = {f.name: f.default for f in fields(ApproxSettings)}
        for name in OWN_OPTIONS:
            if getattr(self, name) != defaults[name] and not spec.takes(name):
                raise ValueError(f"{name} applies to {', '.join(registry.ids_where(KIND, takes=name))} only, "
                                 f"not {self.method}")

    @property
    def code(self) -> int:
        """The loop's code of the method."""
        return loop_code(self.method)

    @property
    def is_control(self) -> bool:
        """True for the learners of q_hat (control)."""
        return not registry.get(self.method).prediction

    @property
    def off_policy(self) -> bool:
        """True for the learners that follow a behaviour policy (they take ``behaviour``)."""
        return registry.get(self.method).takes("behaviour")


OWN_OPTIONS = ("alpha", "initial_weights", "beta", "epsilon", "epsilon_decay", "epsilon_min", "n", "policy", "behaviour", "expected",
               "lstd_epsilon")
"""Options that only some methods take (their registry line's params say which); giving one to another
method is refused."""


def _real(x: object) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool) and math.isfinite(x)


# ====================================================================== snapshots
@dataclass(frozen=True)
class WeightUpdate:
    """The last update of a snapshot, ``w <- w + alpha rho delta x`` (TDC: minus its correction), with its
    numbers (the inspector writes it out)."""

    state: int
    """S_t (whose features are updated)."""
    action: int
    """A_t (control and off-policy: the action taken; -1 when the update learns v_hat of a state)."""
    reward: float
    """R_{t+1} (the last reward of the target)."""
    next_state: int
    """The state bootstrapped from (S_{t+n}); -1 for Monte Carlo (no bootstrap)."""
    target: float
    """U_t: the return (Monte Carlo) or the bootstrapped target."""
    estimate: float
    """v_hat(S_t, w) (or q_hat(S_t, A_t, w)) before the update."""
    delta: float
    """U_t - estimate."""
    alpha: float
    """The step size."""
    rho: float
    """The importance ratio pi(A|S) / b(A|S) (1 on-policy)."""
    active: tuple[int, ...]
    """Indices of the nonzero features of x (control: in the block of action A_t)."""
    x: tuple[float, ...]
    """Their values."""
    correction: float = 0.0
    """TDC: x(S)^T v, the correction's factor (w also moves by -alpha rho gamma (x(S)^T v) x(S')); 0 otherwise."""
    stacked: bool = False
    """The features are x(S, A) (control: a block per action); False: x(S), the action only weighs by rho."""

    def text(self, state_name: Callable[[int], str] = str, action_name: Callable[[int], str] = str) -> str:
        """The update with its numbers, e.g. "w <- w + 0.1 x (0.52 - 0.4) x(s3); x(s3) = {3: 1}" (off-policy:
        "A = dashed, rho = pi/b = 7: w <- w + 0.01 x 7 x (...) x(s)"; TDC adds its correction term)."""
        f = lambda v: f"{v:.4g}"  # noqa: E731
        state = state_name(self.state)
        where = f"{state},{action_name(self.action)}" if self.stacked and self.action >= 0 else state
        xs = ", ".join(f"{i}: {f(v)}" for i, v in zip(self.active[:8], self.x[:8]))
        more = f", ... ({len(self.active)} active)" if len(self.active) > 8 else ""
        head = ""
        if not self.stacked and self.action >= 0:  # off-policy: the action taken weighs the update by rho
            head = f"A = {action_name(self.action)}, \u03c1 = \u03c0/b = {f(self.rho)}: "
        rho = "" if self.rho == 1.0 and not head else f" x {f(self.rho)}"
        tdc = ""
        if self.correction != 0.0 and self.next_state >= 0:
            tdc = (f" - {f(self.alpha)}{rho} x \u03b3 x {f(self.correction)} x(S\u2032 = {state_name(self.next_state)})"
                   f" (TDC's correction: x(S)\u1d40v = {f(self.correction)})")
        return (f"{head}w <- w + {f(self.alpha)}{rho} x ({f(self.target)} - {f(self.estimate)}) x({where}){tdc}; "
                f"x({where}) = {{{xs}{more}}}")


@dataclass(frozen=True, eq=False)
class ApproxStep:
    """One immutable snapshot of a learner with function approximation, after each episode (or batch)."""

    method: str
    """Learner id (kind "approximation")."""
    episode: int
    """Episodes done so far (expected mode: steps of the expected update)."""
    updates: int
    """Weight updates made so far (LSTD: transitions accumulated)."""
    features: str
    """The feature spec as given."""
    n_features: int
    """d, the features per state."""
    weights: np.ndarray
    """float64, read-only: w (d; control: d x n_actions, action by action, over the stacked x(s, a))."""
    values: np.ndarray
    """float64 (n_states), read-only: v_hat per state (control: the greedy max / min of q_hat); 0 at terminal."""
    q: np.ndarray | None
    """float64 (n_rows), read-only: q_hat per (state, action) row (control), else None."""
    policy: np.ndarray | None
    """int64 (n_states), read-only: the greedy action per state (control; -1 terminal; lowest among ties)."""
    visits: np.ndarray
    """int64 (n_states), read-only: how often each state has been visited."""
    ve: float
    """The value error sum_s mu(s) (v_hat(s) - v(s))^2 against the answer's true values (eq. 9.1)."""
    answer: Any
    """The exact answers (:class:`mdpviz.solvers.fixed_points.ApproxAnswer`; the same object every snapshot)."""
    last_update: WeightUpdate | None
    """The last update of this snapshot (None for LSTD, the expected update, or before any)."""
    path: tuple[int, ...]
    """States of the last episode."""
    actions: tuple[int, ...]
    """Action ids of the last episode (one fewer than ``path``)."""
    rewards: tuple[float, ...]
    """Rewards of the last episode's steps."""
    returns: tuple[float, ...]
    """Discounted return of each episode of this batch."""
    lengths: tuple[int, ...]
    """Steps of each episode of this batch."""
    epsilon: float
    """Exploration rate of the last episode (control; 0 otherwise)."""
    expected: bool
    """True: a step of the expected update (no sampling)."""
    elapsed: float = 0.0
    """Seconds since the learner started (learning and snapshots, not the exact answers)."""
    learning_seconds: float = 0.0
    """Seconds spent in the episode loop so far."""
    done: bool = False
    """True for the last snapshot."""
    aux: np.ndarray | None = field(default=None, repr=False)
    """TDC's second weight vector v (read-only), else None."""
    pbe: float = math.nan
    """The projected Bellman error of w (eq. 11.22, figure 11.5): the expected mode's from
    :class:`~mdpviz.solvers.fixed_points.ExpectedStep`, a sampled prediction snapshot's computed from the model
    (up to :data:`PBE_MAX_FEATURES` features); NaN for control and beyond that."""

    @property
    def rms_ve(self) -> float:
        """sqrt(VE), the curve the book plots (figures 9.2, 11.5)."""
        return math.sqrt(max(self.ve, 0.0))

    def shown(self, mode: str) -> np.ndarray:
        """What a board shows per state in view ``mode`` (:data:`BOARD_MODES`): v_hat, the true v, the TD
        fixed point's values (NaN when it does not exist), the best fit's, the error v_hat - v, the visits."""
        if mode == "approximate":
            return np.asarray(self.values, dtype=np.float64)
        if mode == "exact":
            return np.asarray(self.answer.v, dtype=np.float64)
        if mode == "td":
            td = self.answer.td
            return np.full(self.values.shape, np.nan) if td is None else np.asarray(td.values, dtype=np.float64)
        if mode == "best":
            return np.asarray(self.answer.best.values, dtype=np.float64)
        if mode == "error":
            return np.asarray(self.values, dtype=np.float64) - np.asarray(self.answer.v, dtype=np.float64)
        if mode == "visits":
            return np.asarray(self.visits, dtype=np.float64)
        raise ValueError(f"board mode: unknown {mode!r}; choose one of {', '.join(BOARD_MODES)}")


# ====================================================================== the compiled loop
LOOP = CompiledLoop("mdpviz.solvers._numba_approx:run_approx", "mdpviz.solvers.approx_loop:run_approx", "approximation loop")
"""The family's loop: the numba module is imported on first use only."""


def compiled_loop() -> Callable | None:
    """The compiled loop (:mod:`mdpviz.solvers._numba_approx`), or None when numba is missing or turned off
    (then the same loop runs in Python). numba's cache directory is chosen as for the sweep kernels."""
    return LOOP.loop()


def _loop(compiled: bool | None) -> Callable:
    return LOOP.pick(compiled)


def prepare_loop() -> float:
    """Compile the loop (or load it from numba's cache) on a tiny model ahead of its first use, so that a
    run's ``learning_seconds`` are learning alone: the seconds it took (0 without numba)."""
    loop = compiled_loop()
    if loop is None or getattr(loop, "signatures", None):
        return 0.0
    t = time.perf_counter()
    mdp = TabularMDP.from_transitions(2, 1, [0], [0], [1], [1.0], [0.0], discount=1.0, terminal=[1])
    X = np.array([[1.0], [0.0]])
    _run_loop(loop, mdp, ApproxSettings(episodes=1), X, np.ones(1), np.ones(1), np.zeros(1))
    return time.perf_counter() - t


# ====================================================================== the learner
def approx_learner(mdp: TabularMDP, method: str = "semi-td", *, features: Any = "tabular", X: np.ndarray | None = None,
                   coords: Any = None, game_features: np.ndarray | None = None,
                   behaviour_rows: np.ndarray | None = None, target_rows: np.ndarray | None = None,
                   answer: Any = None, exact: Any = None, compiled: bool | None = None,
                   **options) -> Generator[ApproxStep, int | None, ApproxStep]:
    """The generator of learner ``method`` (a registry id of kind "approximation") on ``mdp``; ``options``
    are the fields of :class:`ApproxSettings`, checked now (ValueError naming the option).

    ``X``: the state feature matrix (n_states x d) when the caller built it, else
    :func:`~mdpviz.solvers.features.feature_matrix` of ``features`` (with the game's ``coords`` and
    ``game_features``). ``target_rows`` / ``behaviour_rows``: row probabilities given by the game (Baird),
    else the ``policy`` (and for ``behaviour`` "random" the uniform one) as the tabular learners choose it.
    ``answer``: the :class:`~mdpviz.solvers.fixed_points.ApproxAnswer` when already computed; ``exact``: the
    tabular :class:`~mdpviz.solvers.learning.ExactAnswer` when already solved. ``compiled``: True = the numba
    loop (an error when unavailable), False = the Python reference loop (the same source), None = compiled
    when available.
    """
    spec_text = getattr(features, "text", features)
    if not isinstance(spec_text, str):
        raise ValueError(f"features: give a spec such as 'tabular' or 'tiles:8:0.25', got {features!r}")
    if "initial_weights" in options and options["initial_weights"] is not None:
        try:
            options["initial_weights"] = tuple(float(v) for v in options["initial_weights"])
        except (TypeError, ValueError):
            raise ValueError(f"initial_weights must be a list of numbers, got {options['initial_weights']!r}") from None
    unknown = sorted(set(options) - {f.name for f in fields(ApproxSettings)} - {"method", "features"})
    if unknown:
        raise ValueError(f"{unknown[0]}: not an option of the learners with function approximation")
    settings = ApproxSettings(method=method, features=spec_text, **options)
    if not (0 <= settings.start < mdp.n_states):
        raise ValueError(f"start state {settings.start} is out of range 0..{mdp.n_states - 1}")
    if mdp.terminal[settings.start]:
        raise ValueError(f"start state {settings.start} is terminal: an episode from it has no step")
    if mdp.is_two_player:
        raise ValueError("method: the learners with function approximation take one-player models only")
    if X is None:
        from mdpviz.solvers.features import feature_matrix

        X = feature_matrix(features, mdp, coords=coords, game_features=game_features)
    X = _checked_features(X, mdp)
    pi, bpi, v, exact = _policies(mdp, settings, target_rows, behaviour_rows, exact)
    w0 = _initial_weights(settings, X, mdp)
    if settings.method == "lstd" and X.shape[1] > LSTD_MAX_FEATURES:
        raise ValueError(f"features: LSTD keeps a d x d matrix; {X.shape[1]:,} features is more than "
                         f"{LSTD_MAX_FEATURES:,}")
    loop = None if settings.expected else _loop(compiled)
    if answer is None:
        from mdpviz.solvers.fixed_points import approximation_answer

        answer = approximation_answer(mdp, X, pi, start=int(settings.start),
                                      behaviour_rows=bpi if settings.off_policy else None, v=v)
    if settings.expected:
        return _expected(mdp, settings, X, pi, answer, w0)
    return _learn(mdp, settings, X, pi, bpi, answer, w0, loop)


def _checked_features(X: Any, mdp: TabularMDP) -> np.ndarray:
    """X as a C-contiguous float64 (n_states x d) array; ValueError naming ``X`` when it is not one."""
    try:
        X = np.ascontiguousarray(X, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("X: the feature matrix must be numbers (n_states x d)") from None
    if X.ndim != 2 or X.shape[0] != mdp.n_states or X.shape[1] < 1:
        raise ValueError(f"X: the feature matrix must be {mdp.n_states} x d, got shape {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError("X: the feature matrix has values that are not finite")
    return X


def _policies(mdp: TabularMDP, settings: ApproxSettings, target_rows, behaviour_rows, exact):
    """``(pi, bpi, v, exact)``: the target (or evaluated, or for control the optimal) policy's row
    probabilities, the behaviour's, the true values (V of pi; V* for control) and the tabular exact answer
    (None when the game gave the target)."""
    from mdpviz.solvers import learning_loop as L
    from mdpviz.solvers.learning import LearningSettings, _weights, exact_answer
    from mdpviz.solvers.policy_iteration import evaluate_weights

    def rows(name: str, given) -> np.ndarray:
        p = np.ascontiguousarray(given, dtype=np.float64)
        if p.shape != (mdp.n_rows,) or not np.all(np.isfinite(p)) or np.any(p < 0):
            raise ValueError(f"{name}: row probabilities must be {mdp.n_rows} numbers >= 0, got shape {p.shape}")
        sums = np.bincount(np.asarray(mdp.row_state), weights=p, minlength=mdp.n_states)
        live = ~np.asarray(mdp.terminal) & (np.diff(mdp.state_ptr) > 0)
        if not np.allclose(sums[live], 1.0, atol=1e-9):
            raise ValueError(f"{name}: the row probabilities of each live state must sum to 1")
        return p

    control = settings.is_control
    if target_rows is not None and not control:
        pi = rows("target_rows", target_rows)
        v = evaluate_weights(mdp, _weights(mdp, pi), zero_loops=True)
    else:
        if exact is None:
            twin = L.SARSA if control else L.TD0
            exact = exact_answer(mdp, LearningSettings(method=registry.ids_where("learner", code=twin)[0],
                                                       policy=settings.policy))
        pi = np.ascontiguousarray(exact.policy_rows, dtype=np.float64)
        v = np.asarray(exact.values, dtype=np.float64)
    bpi = pi
    if settings.off_policy:
        if settings.behaviour == "game":
            if behaviour_rows is None:
                raise ValueError("behaviour: 'game' needs the game's own behaviour policy (this game has none)")
            bpi = rows("behaviour_rows", behaviour_rows)
        else:
            bpi = 1.0 / np.asarray(mdp.actions_per_state, dtype=np.float64)[mdp.row_state]
        if np.any((pi > 0) & (bpi <= 0) & ~np.asarray(mdp.terminal)[mdp.row_state]):
            raise ValueError("behaviour: it never takes an action the target policy takes (no coverage, S&B 5.5)")
    return pi, np.ascontiguousarray(bpi, dtype=np.float64), read_only(np.asarray(v, dtype=np.float64)), exact


def _initial_weights(settings: ApproxSettings, X: np.ndarray, mdp: TabularMDP) -> np.ndarray:
    d = X.shape[1] * (mdp.n_actions if settings.is_control else 1)
    if settings.initial_weights is None:
        return np.zeros(d)
    w = np.array(settings.initial_weights, dtype=np.float64)
    if w.size != d:
        raise ValueError(f"initial_weights: expected {d} numbers (the features{' x actions' if settings.is_control else ''}), "
                         f"got {w.size}")
    return w


def default_alpha(X: np.ndarray) -> float:
    """``0.1 / mean x^T x`` over the states with features (section 9.6: alpha = 1 / (tau E[x^T x]), tau = 10),
    at most 1."""
    sq = np.einsum("ij,ij->i", X, X)
    sq = sq[sq > 0]
    return 1.0 if not sq.size else min(1.0, DEFAULT_ALPHA_SCALE / float(sq.mean()))


def model_arrays(mdp: TabularMDP) -> dict[str, np.ndarray]:
    """The tabular learners' simulator arrays (:func:`mdpviz.solvers.learning.model_arrays`) and the row actions."""
    from mdpviz.solvers.learning import model_arrays as tabular_arrays

    arr = tabular_arrays(mdp)
    arr["row_action"] = np.ascontiguousarray(mdp.row_action, np.int64)
    return arr


def feature_rows(X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """X in CSR form ``(x_ptr, x_idx, x_val)``: each state's nonzero features, in column order."""
    nz = X != 0.0
    x_ptr = np.zeros(X.shape[0] + 1, np.int64)
    np.cumsum(nz.sum(axis=1), out=x_ptr[1:])
    r, c = np.nonzero(nz)
    return x_ptr, np.ascontiguousarray(c, np.int64), np.ascontiguousarray(X[r, c], np.float64)


@dataclass(eq=False)
class _Run:
    """A learner's mutable arrays (private to one generator)."""

    arr: dict
    x: tuple
    w: np.ndarray
    h: np.ndarray
    amat: np.ndarray
    bvec: np.ndarray
    qbuf: np.ndarray
    visits: np.ndarray
    carry: np.ndarray
    path_s: np.ndarray
    path_r: np.ndarray
    path_g: np.ndarray
    last: np.ndarray
    rng: np.random.Generator
    alpha: float
    xs: Any = None
    """X as a scipy CSR matrix (the snapshots' v_hat = X w), built once."""


def _new_run(mdp: TabularMDP, settings: ApproxSettings, X: np.ndarray, w0: np.ndarray) -> _Run:
    d = X.shape[1]
    lstd = settings.method == "lstd"
    tdc = settings.method == "tdc"
    import scipy.sparse as sp

    return _Run(arr=model_arrays(mdp), x=feature_rows(X), xs=sp.csr_matrix(X), w=np.array(w0, dtype=np.float64),
                h=np.zeros(d if tdc else 1), amat=np.zeros((d, d) if lstd else (1, 1)),
                bvec=np.zeros(d if lstd else 1), qbuf=np.zeros(max(1, mdp.n_rows)),
                visits=np.zeros(mdp.n_states, np.int64), carry=np.full(2, -1, np.int64),
                path_s=np.zeros(settings.max_steps + 1, np.int64), path_r=np.zeros(settings.max_steps + 1, np.int64),
                path_g=np.zeros(settings.max_steps + 1, np.float64), last=np.full(10, -1.0),
                rng=np.random.default_rng(settings.seed),
                alpha=float(settings.alpha) if settings.alpha is not None else default_alpha(X))


def _run_loop(loop, mdp, settings, X, pi, bpi, w0, *, run: _Run | None = None, episodes: int | None = None,
              first: int = 0) -> tuple[int, _Run, np.ndarray, np.ndarray]:
    """Run ``episodes`` (default: all) of the loop; ``(updates, run, returns, lengths)``."""
    run = run or _new_run(mdp, settings, X, w0)
    m = settings.episodes if episodes is None else episodes
    returns = np.zeros(m)
    lengths = np.zeros(m, np.int64)
    a = run.arr
    x_ptr, x_idx, x_val = run.x
    continuing = not bool(np.any(mdp.terminal))
    noisy = bool(np.any(a["noise"] > 0.0))
    n_step = settings.n if registry.get(settings.method).takes("n") else 1
    updates = int(loop(settings.code, m, first, a["state_ptr"], a["row_ptr"], a["dst"], a["cum"], a["reward"],
                       a["noise"], noisy, a["terminal"], a["sense"], a["row_action"], float(mdp.discount), pi, bpi,
                       int(settings.start), continuing, run.carry, run.alpha, float(settings.beta),
                       float(settings.epsilon), float(settings.epsilon_decay), float(settings.epsilon_min), int(n_step),
                       int(settings.max_steps), run.rng, x_ptr, x_idx, x_val, int(X.shape[1]), run.w, run.h, run.amat,
                       run.bvec, run.qbuf, run.visits, run.path_s, run.path_r, run.path_g, returns, lengths, run.last))
    return updates, run, returns, lengths


def lstd_weights(amat: np.ndarray, bvec: np.ndarray, eps: float) -> np.ndarray:
    """LSTD's weights (section 9.8): ``w = (eps I + A_hat)^-1 b_hat`` (a least-squares solution when singular)."""
    a = amat + eps * np.eye(amat.shape[0])
    if a.shape[0] > LSTD_DENSE_SOLVE:  # one-hot, aggregated or tiled features: A_hat is sparse
        import warnings

        import scipy.sparse as sp
        import scipy.sparse.linalg as spla

        with warnings.catch_warnings():
            warnings.simplefilter("error", spla.MatrixRankWarning)
            try:
                w = spla.spsolve(sp.csc_matrix(a), bvec)
                if np.all(np.isfinite(w)):
                    return np.asarray(w, dtype=np.float64)
            except (spla.MatrixRankWarning, RuntimeError):
                pass
    try:
        return np.linalg.solve(a, bvec)
    except np.linalg.LinAlgError:
        return np.linalg.lstsq(a, bvec, rcond=None)[0]


def _learn(mdp, settings, X, pi, bpi, answer, w0, loop) -> Generator[ApproxStep, int | None, ApproxStep]:
    t0 = time.perf_counter()
    run = _new_run(mdp, settings, X, w0)
    pbe = None
    if not settings.is_control and X.shape[1] <= PBE_MAX_FEATURES:  # (each snapshot's PBE: figure 11.5's curve)
        from mdpviz.solvers.fixed_points import pbe_function

        pbe = pbe_function(mdp, X, pi, answer.mu)
    done_eps, updates = 0, 0
    learning = 0.0
    last = None
    sent = None
    while done_eps < settings.episodes:
        m = min(int(sent) if isinstance(sent, (int, np.integer)) and sent > 0 else settings.batch,
                settings.episodes - done_eps)
        t_loop = time.perf_counter()
        n, run, returns, lengths = _run_loop(loop, mdp, settings, X, pi, bpi, w0, run=run, episodes=m, first=done_eps)
        learning += time.perf_counter() - t_loop
        updates += n
        done_eps += m
        last = _snapshot(mdp, settings, X, run, answer, done_eps, updates, returns, lengths, t0, learning, pbe)
        sent = yield last
    return last


def q_of(mdp: TabularMDP, X: Any, w: np.ndarray) -> np.ndarray:
    """q_hat per row: ``w[a * d:(a + 1) * d] . x(s)`` for each (s, a) row (section 10.1's stacked features)."""
    import scipy.sparse as sp

    d = X.shape[1]
    per_action = (X if sp.issparse(X) else sp.csr_matrix(X)) @ np.asarray(w).reshape(mdp.n_actions, d).T  # (n_states, n_actions)
    return np.asarray(per_action)[np.asarray(mdp.row_state), np.asarray(mdp.row_action)]


def values_of(mdp: TabularMDP, X: Any, w: np.ndarray) -> np.ndarray:
    """v_hat per state, ``X w`` (0 at terminal states; X dense or scipy sparse)."""
    import scipy.sparse as sp

    return np.where(mdp.terminal, 0.0, (X if sp.issparse(X) else sp.csr_matrix(X)) @ np.asarray(w))


def _value_error(values: np.ndarray, answer) -> float:
    """VE = sum_s mu(s) (v_hat(s) - v(s))^2 (eq. 9.1; what :func:`mdpviz.solvers.fixed_points.value_error` computes)."""
    err = np.asarray(values, dtype=np.float64) - np.asarray(answer.v, dtype=np.float64)
    return float(np.dot(np.asarray(answer.mu, dtype=np.float64), err * err))


def _last_update(mdp: TabularMDP, settings: ApproxSettings, run: _Run) -> WeightUpdate | None:
    rec = run.last
    if rec[0] < 0 or settings.method == "lstd":
        return None
    s, row = int(rec[0]), int(rec[1])
    x_ptr, x_idx, x_val = run.x
    sl = slice(int(x_ptr[s]), int(x_ptr[s + 1]))
    action = int(mdp.row_action[row]) if row >= 0 else -1
    off = action * (run.w.size // (mdp.n_actions)) if settings.is_control and action >= 0 else 0
    return WeightUpdate(state=s, action=action, reward=float(rec[2]), next_state=int(rec[3]), target=float(rec[4]),
                        estimate=float(rec[5]), delta=float(rec[6]), alpha=float(rec[7]), rho=float(rec[8]),
                        active=tuple((x_idx[sl] + off).tolist()), x=tuple(x_val[sl].tolist()),
                        correction=float(rec[9]), stacked=bool(settings.is_control))


def _snapshot(mdp, settings, X, run, answer, episode, updates, returns, lengths, t0, learning, pbe=None) -> ApproxStep:
    t = int(lengths[-1])
    q = policy = None
    w = lstd_weights(run.amat, run.bvec, settings.lstd_epsilon) if settings.method == "lstd" else run.w.copy()
    if settings.is_control:
        from mdpviz.solvers.sweep import greedy

        q = q_of(mdp, run.xs, w)
        values, best_rows = greedy(mdp, q, tie_tol=0.0)
        values = np.where(mdp.terminal, 0.0, values)
        policy = np.where(best_rows >= 0, np.asarray(mdp.row_action)[np.maximum(best_rows, 0)], -1).astype(np.int64)
    else:
        values = values_of(mdp, run.xs, w)
    rows = run.path_r[:t]
    return ApproxStep(
        method=settings.method, episode=episode, updates=updates, features=settings.features,
        n_features=int(X.shape[1]), weights=read_only(w), values=read_only(np.asarray(values, dtype=np.float64)),
        q=None if q is None else read_only(q), policy=None if policy is None else read_only(policy),
        visits=read_only(run.visits.copy()), ve=_value_error(values, answer), answer=answer,
        last_update=_last_update(mdp, settings, run),
        path=tuple(run.path_s[:t + 1].tolist()), actions=tuple(np.asarray(mdp.row_action)[rows].tolist()),
        rewards=tuple(run.path_g[:t].tolist()), returns=tuple(returns.tolist()), lengths=tuple(lengths.tolist()),
        epsilon=(max(settings.epsilon_min, settings.epsilon * settings.epsilon_decay ** (episode - 1))
                 if settings.is_control else 0.0),
        expected=False, elapsed=time.perf_counter() - t0, learning_seconds=learning,
        done=episode == settings.episodes, aux=read_only(run.h.copy()) if settings.method == "tdc" else None,
        pbe=math.nan if pbe is None else pbe(w))


def _expected(mdp, settings, X, pi, answer, w0) -> Generator[ApproxStep, int | None, ApproxStep]:
    """The expected update of :func:`mdpviz.solvers.fixed_points.expected_updates`, one snapshot per step
    (every ``batch`` steps)."""
    from mdpviz.solvers.fixed_points import expected_updates

    t0 = time.perf_counter()
    alpha = float(settings.alpha) if settings.alpha is not None else default_alpha(X)
    gen = expected_updates(mdp, X, pi, answer.mu, method=settings.method, w0=np.array(w0), alpha=alpha,
                           beta=float(settings.beta) if settings.method == "tdc" else 0.0, steps=settings.episodes,
                           v=np.asarray(answer.v, dtype=np.float64))
    import scipy.sparse as sp

    xs = sp.csr_matrix(X)
    visits = read_only(np.zeros(mdp.n_states, np.int64))
    last = None
    learning = 0.0
    k = 0
    while True:
        t_loop = time.perf_counter()
        try:
            item = next(gen)
        except StopIteration:
            break
        learning += time.perf_counter() - t_loop
        k += 1
        w = np.array(getattr(item, "weights", item), dtype=np.float64)
        aux = getattr(item, "aux", None)
        if k % settings.batch and k != settings.episodes:
            continue
        values = values_of(mdp, xs, w)
        last = ApproxStep(
            method=settings.method, episode=k, updates=k, features=settings.features, n_features=int(X.shape[1]),
            weights=read_only(w), values=read_only(values), q=None, policy=None, visits=visits,
            ve=_value_error(values, answer), answer=answer, last_update=None, path=(), actions=(), rewards=(),
            returns=(), lengths=(), epsilon=0.0, expected=True, elapsed=time.perf_counter() - t0,
            learning_seconds=learning, done=k == settings.episodes,
            aux=None if aux is None else read_only(np.array(aux, dtype=np.float64)),
            pbe=float(getattr(item, "pbe", math.nan)))
        yield last
        if k >= settings.episodes:
            break
    return last


def learn(mdp: TabularMDP, method: str = "semi-td", **options) -> tuple[ApproxStep, list[ApproxStep]]:
    """Run a learner to the end: ``(last snapshot, every snapshot)``."""
    steps = list(approx_learner(mdp, method, **options))
    return steps[-1], steps


__all__ = ["ApproxSettings", "ApproxStep", "BEHAVIOURS", "BOARD_MODES", "KIND", "LSTD_MAX_FEATURES", "POLICIES",
           "WeightUpdate", "approx_learner", "compiled_loop", "default_alpha", "feature_rows", "learn", "loop_code",
           "lstd_weights", "model_arrays", "prepare_loop", "q_of", "tabular_twin", "values_of"]
