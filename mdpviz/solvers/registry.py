"""The methods mdpviz knows: one ordered registry of :class:`MethodSpec` lines, solvers and learners alike.

Like Gymnasium's ``register(id, entry_point="module:function")`` (and the game registry,
:mod:`mdpviz.models.kit.game.registry`), each method is its module plus one line of :data:`ENTRIES`: its id,
title, kind, entry point (imported on first use, so listing the methods imports no solver), typed
parameters and what it needs. The command line (``mdpviz solve`` / ``mdpviz learn``: choices, help and
which options a method takes), the Solver panel (its list and which fields show), the lesson, the
scenario files, the bench and the window's controller all read this list; none of them spells an id.
:func:`mdpviz.solvers.start` builds any method's generator from its line (the controller only runs it).

Adding a method: its module (a generator function, see :mod:`mdpviz.solvers.sweep` for a solver's
:class:`~mdpviz.solvers.sweep.Sweep` / :class:`~mdpviz.solvers.sweep.Solution`, and
:mod:`mdpviz.solvers.learning` for a learner's :class:`~mdpviz.solvers.learning.LearningStep`) and one
line here, or, from outside the package, one :func:`register` call before the command line or the window
is built::

    from mdpviz.solvers import registry
    registry.register(registry.MethodSpec("toy", "toy value iteration", "solver", "mypkg.toy:toy_vi"))

Code elsewhere asks a line's flags, never an id: ``registry.get(m).value_iteration`` (the tolerance
applies), ``.count_word`` ("rounds" / "sweeps"), ``.mixed_q_view`` (the in-place Q view), ``in_compare``
and ``curve`` (the Compare panel), :func:`game_choices` (the games' own commands), :func:`planner_names`
and :func:`planner_notes` (``mdpviz plan``), :data:`DEFAULT_SOLVER` and :func:`exact_solver`. A module that
uses a word equal to an
id in another sense (a JSON field "q") declares it in its own ``NOT_METHOD_IDS = {word: why}``, which the
registry test's scan reads.

The ids of the learners of the compiled episode loop carry their loop code (:attr:`MethodSpec.code`,
the constants of :mod:`mdpviz.solvers.learning_loop`): a code never follows from a position in a list.

Imports nothing beyond the standard library at module level (the command line lists the methods).
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable

KINDS = ("solver", "learner", "approximation", "policy-gradient", "planning", "bandit")
"""The kinds of method: "solver" (dynamic programming on the table: one :class:`~mdpviz.solvers.sweep.Sweep`
per step), "learner" (from sampled episodes: one :class:`~mdpviz.solvers.learning.LearningStep` per
episode), and the kinds later issues add (function approximation, policy gradient, planning, bandits)."""

KIND_WORDS = {"solver": "dynamic programming", "learner": "learning from experience",
              "approximation": "function approximation", "policy-gradient": "policy gradient",
              "planning": "planning with a learned model", "bandit": "a bandit method"}
"""Each kind of method in a few words (for messages that name a kind)."""

UNITS = ("sweep", "round", "state", "layer", "solve", "episode", "pull", "trajectory")
"""What one step of a method is: a sweep over every state, a round of policy iteration (evaluate and
improve), one state's backup, one layer of backward induction, the whole solve (one linear program),
one episode, one pull of every run of the bandit testbed (a time step), one greedy trajectory from the
start (real-time dynamic programming)."""

LINE_STYLES = ("solid", "dash", "dot", "dashdot")
"""The line styles a method's :attr:`MethodSpec.curve` may name (the Compare plot maps them to Qt's pens)."""


@dataclass(frozen=True)
class Param:
    """One option a method takes, typed (the command line and the panel offer it for this method only)."""

    name: str
    """The keyword of the method's entry point (and of its options in scenario files)."""
    type: type = float
    """Its Python type (``str``, ``int``, ``float``, ``bool``, ``list``)."""
    default: Any = None
    """Its default (None: the entry point's own)."""
    choices: tuple = ()
    """The values it may take, when a fixed few."""
    low: float | None = None
    """Smallest value (inclusive), when bounded."""
    high: float | None = None
    """Largest value (inclusive), when bounded."""
    help: str = ""
    """One line on what it does."""

    def check(self, value: Any) -> Any:
        """``value`` when it is one this parameter takes, else ValueError naming the parameter."""
        if self.choices and value not in self.choices:
            raise ValueError(f"{self.name}: {value!r} is not one of {', '.join(map(str, self.choices))}")
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if self.low is not None and value < self.low:
                raise ValueError(f"{self.name} must be at least {self.low:g}, got {value!r}")
            if self.high is not None and value > self.high:
                raise ValueError(f"{self.name} must be at most {self.high:g}, got {value!r}")
        return value


@dataclass(frozen=True)
class MethodSpec:
    """One method: its names, where its code is, what it takes and what it needs. Frozen: a line of
    :data:`ENTRIES` (or a :func:`register` call)."""

    id: str
    """The one spelling of the method's id (``--method``, scenario files, the panel's item data)."""
    title: str
    """Its name in the command line's help, the status line, the lesson and the panel."""
    kind: str
    """One of :data:`KINDS`."""
    entry_point: str
    """``"module:function"``, imported on first use. A solver's: ``fn(mdp, **options)`` -> a generator of
    sweeps returning a Solution; a learner's: ``fn(mdp, method_id, **options)`` -> a generator of
    LearningStep returning the last one (the options of :class:`~mdpviz.solvers.learning.LearningSettings`,
    plus ``exact`` and ``compiled``)."""
    params: tuple[Param, ...] = ()
    """The options of this method beyond the common ones of its kind (:data:`mdpviz.solvers.COMMON_OPTIONS`
    for solvers; ``episodes``, ``alpha``, ``max_steps``, ``initial``, ``seed`` for learners)."""
    aliases: tuple[str, ...] = ()
    """Other ids that name this method (accepted by :func:`get`, not listed by :func:`ids`)."""
    unit: str = "sweep"
    """What one step is (:data:`UNITS`)."""
    lesson: str = ""
    """The lesson's paragraph on the method: what one Step does, the equation, the source it follows."""
    in_panel: bool = False
    """Listed in the Solver panel's picker (in registry order)."""
    panel_title: str = ""
    """The picker's name where it says more than the title (what is evaluated); empty: the title."""
    panel_options: tuple[tuple[str, Any], ...] = ()
    """Options the panel always gives this method (e.g. the policy evaluated)."""
    uses_tol: bool = False
    """Stops by the tolerance (the panel's Tolerance field is enabled for it)."""
    tol_as: str | None = "tol"
    """The keyword the common option ``tol`` goes to: "tol", another name (pymdptoolbox's ``epsilon``),
    or None (an exact method, or one that stops by its own rule: ``tol`` is dropped)."""
    cap_as: str | None = None
    """The keyword the common cap (``max_sweeps`` / ``max_iterations``) goes to; None: no cap (dropped)."""
    value_iteration: bool = False
    """A value-iteration sweep: its policy is chosen from other values than the snapshot's, so the
    conventions ``q_from`` and ``action_order`` apply, the convergence plot's error bound holds, and at
    discount 1 its ties are ended towards the terminal states."""
    own_policy: bool = False
    """Each snapshot's policy is greedy in its own values (the lesson's convention sentence says so)."""
    exact: bool = False
    """Finds the values exactly, to the linear algebra's rounding (no tolerance)."""
    optimal: bool = True
    """Its values are V* (False: the value of a given policy, or the relative values of the average reward)."""
    needs_start: bool = False
    """Runs from a start state (episodes start there)."""
    needs_table: bool = True
    """Needs the model's table (a TabularMDP)."""
    needs_acyclic: bool = False
    """Solves acyclic models only."""
    needs_policy: bool = False
    """Evaluates a given policy (``policy``) instead of finding an optimal one."""
    one_player: bool = False
    """Solves one-player models only (two players: not this method)."""
    compiled: bool = False
    """Has compiled sweep kernels (:mod:`mdpviz.solvers.kernels`)."""
    code: int | None = None
    """A learner's method code in the compiled episode loop (:mod:`mdpviz.solvers.learning_loop`); None:
    not a loop learner (its entry point runs its own loop)."""
    prediction: bool = False
    """A learner that estimates V of a given policy (the others learn Q and improve on it: control)."""
    replayable: bool = False
    """A learner whose episode can be replayed one transition at a time (one update per step)."""
    short: str = ""
    """Its short name (the Compare plot's legend and table, the learning lesson's "Q-learning's update");
    empty: the title."""
    in_compare: bool = False
    """Compared by default in the Compare panel (:data:`mdpviz.solvers.compare.COMPARE_METHODS`, in registry order)."""
    reference_rank: int | None = None
    """Where a comparison looks for its reference values V_ref among the converged methods, most exact
    first (lowest rank first; None: after every ranked method)."""
    curve: tuple[str, str, str] = ()
    """The Compare plot's curve of this method: (colour, line style of :data:`LINE_STYLES`, symbol), each
    curve differing in all three so it is told apart in greyscale; empty: black, solid, circles."""
    fits: str = ""
    """``"module:function"``: ``fn(mdp)`` -> why this method does not fit the model ("" when it does; the
    Compare panel skips it with that reason). Empty: it fits every model its other flags allow."""
    in_game_cli: bool = False
    """Offered by the games' own commands (``mdpviz gridworld``, ``snakes``, ``ttt``, ``checkers``,
    ``export``: the course's few methods), where the game's model meets its needs (:func:`game_choices`)."""
    mixed_q_view: bool = False
    """An in-place sweep: state s is backed up from this sweep's values of the states before it and the
    previous sweep's of the rest (Gauss-Seidel), so the Q view of a sweep mixes two snapshots."""
    in_planner: bool = False
    """Offered by the course planner's ``--algorithm`` (``mdpviz plan``, ``mdpviz attt iterate``) under its id,
    its :attr:`aliases` and its :attr:`planner_aliases`: the registry's meaning of every word (issue 35, item 21:
    "vi" is synchronous value iteration there too)."""
    planner_aliases: tuple[tuple[str, str], ...] = ()
    """(name, note) pairs: more names the course planner takes for it, e.g. the CS 747 planner's; a note says
    why a name is deprecated ("" : not deprecated)."""
    worked_example: str = ""
    """A learner: the id of the one-step learner whose update the learning lesson writes out with its
    numbers for this one (Monte Carlo and n-step TD: the one-step update they generalise); empty: its own."""
    multi_step: bool = False
    """A learner whose update waits for more than one step (Monte Carlo: the episode's end; n-step TD: n steps)."""
    targets: str = ""
    """A learner whose target is not the one-step target: what it is, as the inspector says it
    ("its targets are returns"); empty: the one-step target."""
    needs_next_action: bool = False
    """A learner whose update reads the next action A' too (SARSA: S, A, R, S', A')."""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"method {self.id!r}: kind {self.kind!r} is not one of {', '.join(KINDS)}")
        if self.unit not in UNITS:
            raise ValueError(f"method {self.id!r}: unit {self.unit!r} is not one of {', '.join(UNITS)}")
        if ":" not in self.entry_point:
            raise ValueError(f"method {self.id!r}: entry_point must be 'module:function', got {self.entry_point!r}")
        if self.fits and ":" not in self.fits:
            raise ValueError(f"method {self.id!r}: fits must be 'module:function', got {self.fits!r}")
        if self.curve and (len(self.curve) != 3 or self.curve[1] not in LINE_STYLES):
            raise ValueError(f"method {self.id!r}: curve must be (colour, one of {', '.join(LINE_STYLES)}, symbol)")

    @property
    def steps_states(self) -> bool:
        """One state per step (asynchronous value iteration, prioritized sweeping)."""
        return self.unit == "state"

    @property
    def is_learner(self) -> bool:
        """Learns from sampled episodes (one snapshot per episode)."""
        return self.kind == "learner"

    @property
    def short_title(self) -> str:
        """Its short name (:attr:`short`, else the title)."""
        return self.short or self.title

    @property
    def count_word(self) -> str:
        """The word the reports put after a count of its steps (:attr:`Solution.sweeps`): "rounds" for a
        method whose step is a round of policy iteration, "trajectories" for real-time DP's, "sweeps" for the
        others."""
        return "rounds" if self.unit == "round" else "trajectories" if self.unit == "trajectory" else "sweeps"

    @property
    def synchronous_vi(self) -> bool:
        """Synchronous value iteration: every state of a sweep backed up from the previous sweep's values
        (a value-iteration sweep that is not in place)."""
        return self.value_iteration and not self.mixed_q_view

    @property
    def example_id(self) -> str:
        """A learner: the id whose one-step update the lesson writes out for it (:attr:`worked_example`)."""
        return self.worked_example or self.id

    def misfit(self, mdp: Any) -> str:
        """Why this method does not fit ``mdp`` (its :attr:`fits` check), "" when it does."""
        if not self.fits:
            return ""
        module, _, attr = self.fits.partition(":")
        return str(getattr(importlib.import_module(module), attr)(mdp))

    @property
    def picker_title(self) -> str:
        """The Solver panel's name of the method."""
        return self.panel_title or self.title

    def param(self, name: str) -> Param | None:
        """The parameter ``name`` of this method, or None when it takes no such option."""
        return next((p for p in self.params if p.name == name), None)

    def takes(self, name: str) -> bool:
        """True when ``name`` is one of this method's own parameters."""
        return self.param(name) is not None

    def load(self) -> Callable[..., Any]:
        """The entry point's function (its module imported now)."""
        module, _, attr = self.entry_point.partition(":")
        return getattr(importlib.import_module(module), attr)


# ---------------------------------------------------------------------------------- parameters
_ORDER = Param("order", str, "index", help="the update order: state index, random (with seed), or a list of state ids")
_SEED = Param("seed", int, 0, low=0, help="seed of the random update order")
_THETA = Param("theta", float, 1e-5, low=0.0, help="a predecessor is queued when its |V - max Q| exceeds theta (> 0)")
_SEQUENCE = Param("sequence", str, "standard", choices=("standard", "aima"),
                  help="aima: aima-python's value iteration (U_0 = 0, terminal U = R(s), its epsilon stopping rule)")
_ACTION_ORDER = Param("action_order", list, None, help="ties go to the first of these actions (labels or ids)")
_EPSILON_PMDP = Param("epsilon", float, None, low=0.0, help="pymdptoolbox's epsilon (the common tol)")
_POLICY = Param("policy", object, None, help="the policy evaluated: 'random', or an action id per state")
_START = Param("start", int, None, low=0, help="the state every trajectory starts in (default: the game's start)")
_IN_PLACE = Param("in_place", bool, False, help="Gauss-Seidel sweeps instead of synchronous ones")

_EPS = Param("epsilon", float, 0.1, low=0.0, high=1.0, help="probability of a uniformly random legal action")
_EPS_DECAY = Param("epsilon_decay", float, 1.0, low=0.0, high=1.0, help="epsilon is multiplied by this after each episode")
_EPS_MIN = Param("epsilon_min", float, 0.0, low=0.0, high=1.0, help="epsilon's floor")
_EXPLORE = Param("exploring_starts", bool, False, help="each episode starts in a random state with a random first action")
_CONTROL = (_EPS, _EPS_DECAY, _EPS_MIN, _EXPLORE)
_PREDICT = (Param("policy", str, "optimal", choices=("optimal", "random"), help="the policy prediction evaluates"),)
_N = Param("n", int, 1, low=1, help="steps of n-step TD")
_VISITS = Param("visits", str, "first", choices=("first", "every"),
                help="Monte Carlo: update at the first visit of each state (or pair) in an episode, or at every visit")

_LOOP = "mdpviz.solvers.learning:learner"


def _learner(id: str, title: str, code: int, params: tuple[Param, ...], **flags: Any) -> MethodSpec:
    """A learner of the compiled episode loop (loop code ``code``)."""
    return MethodSpec(id, title, "learner", _LOOP, params, unit="episode", needs_start=True, tol_as=None,
                      code=code, **flags)


_APPROX = "mdpviz.solvers.approximation:approx_learner"
_FEATURES = Param("features", str, "tabular",
                  help="the features: tabular, aggregate:G, tiles:T:W, poly:K, fourier:K, file:PATH or game")
_A_ALPHA = Param("alpha", float, None, low=0.0, high=1.0,
                 help="constant step size of the weights (default 0.1 / mean x^T x, S&B eq. 9.19)")
_A_POLICY = Param("policy", str, "optimal", choices=("optimal", "random"), help="the policy evaluated")
_TARGET = Param("policy", str, "optimal", choices=("optimal", "random"),
                help="the target policy evaluated (a game's own target is passed by the game)")
_BEHAVIOUR = Param("behaviour", str, "random", choices=("random", "game"),
                   help="the policy followed: uniform over legal actions, or the game's own (Baird's 6/7 dashed)")
_EXPECTED = Param("expected", bool, False, help="run the expected update (no sampling), one snapshot per step")
_BETA = Param("beta", float, 0.05, low=0.0, high=1.0, help="TDC's step size of its second weight vector")
_INIT_W = Param("initial_weights", list, None, help="the weights at the start (default all 0)")
_LSTD_EPS = Param("lstd_epsilon", float, 1e-3, low=0.0, help="LSTD's ridge: A_hat starts as epsilon I")
_A_N = Param("n", int, 1, low=1, help="steps of the n-step update")
_A_CONTROL = (_EPS, _EPS_DECAY, _EPS_MIN)


def _approx(id: str, title: str, code: int, params: tuple[Param, ...], lesson: str, **flags: Any) -> MethodSpec:
    """A learner with linear function approximation (code ``code`` of :mod:`mdpviz.solvers.approx_loop`)."""
    return MethodSpec(id, title, "approximation", _APPROX, params, unit="episode", needs_start=True, tol_as=None,
                      code=code, lesson=lesson, **flags)


_PG = "mdpviz.solvers.policy_gradient:pg_learner"
_PG_FEATURES = Param("features", str, "tabular",
                     help="the policy's features x(s, a): a state feature spec stacked by action, or game (the "
                     "game's own)")
_INIT_THETA = Param("initial_theta", list, None, help="theta at the start (default all 0: the uniform policy)")


def _alpha_theta(default: float) -> Param:
    return Param("alpha_theta", float, default, low=0.0, high=1.0, help=f"step size of theta (default {default:g})")


def _alpha_w(default: float) -> Param:
    return Param("alpha_w", float, default, low=0.0, high=1.0,
                 help=f"step size of the baseline's / critic's weights w (default {default:g})")


def _pg(id: str, title: str, code: int, params: tuple[Param, ...], lesson: str, **flags: Any) -> MethodSpec:
    """A policy-gradient learner (code ``code`` of :mod:`mdpviz.solvers.pg_loop`)."""
    return MethodSpec(id, title, "policy-gradient", _PG, (_PG_FEATURES, *params, _INIT_THETA), unit="episode",
                      needs_start=True, tol_as=None, code=code, lesson=lesson, **flags)


_BANDITS = "mdpviz.solvers.bandits"
_B_ALPHA = Param("alpha", float, None, low=0.0, high=1.0,
                 help="constant step size of the estimates (default: sample averages, 1/n)")
_B_INITIAL = Param("initial", float, 0.0, help="the estimates' initial value Q_1 (default 0)")


def _bandit(id: str, title: str, function: str, params: tuple[Param, ...], lesson: str, **flags: Any) -> MethodSpec:
    """A method of the k-armed testbed (:mod:`mdpviz.solvers.bandits`: one snapshot per time step)."""
    return MethodSpec(id, title, "bandit", f"{_BANDITS}:{function}", params, unit="pull", tol_as=None,
                      needs_table=False, lesson=lesson, **flags)
_DYNA = "mdpviz.solvers.dyna:dyna_learner"
_PLANNING_STEPS = Param("planning_steps", int, 5, low=0, high=100_000, help="n: planning updates from the model per real step")
_KAPPA = Param("kappa", float, 1e-3, low=0.0, help="Dyna-Q+'s bonus weight: a planning reward is R + kappa sqrt(tau)")
_TOTAL = Param("total_steps", int, 0, low=0, help="stop after this many real steps in all (0: run the episodes)")


def _dyna(id: str, title: str, params: tuple[Param, ...], lesson: str, **flags: Any) -> MethodSpec:
    """A planning method with a learned model (:mod:`mdpviz.solvers.dyna`)."""
    return MethodSpec(id, title, "planning", _DYNA, (_PLANNING_STEPS, *params, _EPS, _TOTAL), unit="episode",
                      needs_start=True, tol_as=None, lesson=lesson, **flags)


# ---------------------------------------------------------------------------------- the methods
# (loop codes: mdpviz.solvers.learning_loop's TD0 = 0, NSTEP, MC, MC_CONTROL, SARSA, EXPECTED_SARSA, Q_LEARNING, DOUBLE_Q = 7)
ENTRIES: tuple[MethodSpec, ...] = (
    MethodSpec("vi", "value iteration (synchronous)", "solver", "mdpviz.solvers.value_iteration:value_iteration",
               (_SEQUENCE, _ACTION_ORDER), in_panel=True, uses_tol=True, cap_as="max_sweeps", value_iteration=True,
               compiled=True, short="VI sync", in_compare=True, reference_rank=4, curve=("#0072b2", "solid", "o"),
               in_game_cli=True, in_planner=True, planner_aliases=(("vi-sync", ""),),
               lesson="Every Step is one sweep: every state is backed up from the previous sweep's "
               "values, V_(k+1)(s) = max_a \u03a3 p(s\u2032|s,a) [r + \u03b3 V_k(s\u2032)] (Sutton and Barto eq. "
               "4.10). It stops when the largest change of a sweep is below the tolerance."),
    MethodSpec("gs", "value iteration (in place)", "solver", "mdpviz.solvers.value_iteration:gauss_seidel_value_iteration",
               (_ACTION_ORDER,), in_panel=True, uses_tol=True, cap_as="max_sweeps", value_iteration=True, compiled=True,
               short="VI in place", in_compare=True, reference_rank=3, curve=("#e69f00", "dash", "s"),
               in_game_cli=True, mixed_q_view=True, in_planner=True,
               planner_aliases=(("cs747-vi", "deprecated: the course planner's old vi (in place); use gs"),),
               lesson="Every Step is one sweep in state order, each state backed up from the values already updated "
               "in this sweep (Gauss-Seidel, Sutton and Barto 4.5): usually fewer sweeps than the synchronous version."),
    MethodSpec("pi", "policy iteration", "solver", "mdpviz.solvers.policy_iteration:policy_iteration", aliases=("hpi",),
               unit="round", in_panel=True, cap_as="max_iterations", exact=True, short="PI", in_compare=True,
               reference_rank=0, curve=("#009e73", "solid", "t"), in_game_cli=True, in_planner=True,
               lesson="Policy iteration alternates Evaluate (solve V of the current policy exactly, eq. 4.5 as a "
               "linear system) and Improve (the greedy policy of those values, eq. 4.9) until the policy stops changing."),
    MethodSpec("lp", "linear programming", "solver", "mdpviz.solvers.linear_programming:linear_programming",
               unit="solve", in_panel=True, one_player=True, exact=True, short="LP", in_compare=True, reference_rank=1,
               curve=("#d55e00", "dot", "star"), fits="mdpviz.solvers.compare:lp_fits", in_game_cli=True,
               in_planner=True,
               lesson="Linear programming finds V* in one step: the smallest V with V(s) \u2265 r + \u03b3 \u03a3 p "
               "V(s\u2032) for every action (PuLP/CBC)."),
    MethodSpec("bi", "backward induction", "solver", "mdpviz.solvers.backward_induction:backward_induction_mdp",
               unit="layer", tol_as=None, needs_acyclic=True, exact=True, short="BI", reference_rank=2,
               curve=("#cc79a7", "dashdot", "d"), in_game_cli=True,
               lesson="Backward induction: on a model without cycles, one layer of states per Step, each backed up "
               "once from the later layers, already final."),
    MethodSpec("async-vi", "asynchronous value iteration", "solver",
               "mdpviz.solvers.asynchronous:asynchronous_value_iteration", (_ORDER, _SEED), unit="state",
               in_panel=True, uses_tol=True, cap_as="iterations", own_policy=True,
               lesson="Asynchronous value iteration (Sutton and Barto 4.5; Berkeley CS188 q4): every Step backs up "
               "one state in place, in state order (or at random), and leaves the others as they are; a terminal "
               "state counts as a Step. The board outlines the state each Step updated."),
    MethodSpec("prioritized", "prioritized sweeping", "solver", "mdpviz.solvers.asynchronous:prioritized_sweeping",
               (_THETA,), unit="state", in_panel=True, tol_as=None, cap_as="iterations", own_policy=True,
               lesson="Prioritized sweeping (Moore and Atkeson; Berkeley CS188 q5): every Step backs up the state "
               "whose value is furthest from its backup, taken from a queue; its predecessors whose |V - max Q| "
               "exceeds \u03b8 join the queue, and the solve ends when it is empty. The board outlines the state "
               "each Step updated."),
    MethodSpec("rtdp", "real-time dynamic programming", "solver", "mdpviz.solvers.rtdp:rtdp",
               (_START, Param("seed", int, 0, low=0, help="seed of the sampled next states"),
                Param("max_depth", int, None, low=1, help="steps per trajectory at most (default 10 per state)")),
               unit="trajectory", in_panel=True, uses_tol=True, cap_as="trajectories", own_policy=True,
               needs_start=True, one_player=True, short="RTDP",
               lesson="Real-time dynamic programming (Sutton and Barto 8.7): every Step is one greedy trajectory "
               "from the start; each state it reaches is backed up in place (eq. 4.10), the greedy action taken "
               "and the next state sampled. Values start optimistic (each action's luckiest outcome taken as "
               "certain), so the states optimal play never reaches are never backed up. It stops when every "
               "state the greedy policy can reach from the start is within the tolerance of its backup: the "
               "start's value has settled at V*(start)."),
    MethodSpec("evaluate", "policy evaluation", "solver", "mdpviz.solvers.evaluation:policy_evaluation",
               (_POLICY, _IN_PLACE), in_panel=True, panel_title="evaluate the random policy",
               panel_options=(("policy", "random"),), uses_tol=True, cap_as="max_sweeps", own_policy=True,
               optimal=False, needs_policy=True,
               lesson="Iterative policy evaluation (Sutton and Barto 4.1, eq. 4.5): every Step is one sweep of the "
               "random policy's expectation backup, each action equally likely, until the largest change is below "
               "the tolerance (figure 4.1's V_k). The arrows are the greedy policy of those values: what one "
               "improvement step would choose."),
    MethodSpec("mpi", "modified policy iteration", "solver",
               "mdpviz.solvers.modified_policy_iteration:modified_policy_iteration", (_EPSILON_PMDP,),
               uses_tol=True, tol_as="epsilon", cap_as="max_iterations",
               lesson="Modified policy iteration (pymdptoolbox's PolicyIterationModified): an improvement, then a "
               "few evaluation sweeps of that policy, repeated until the span of the improvement's change is small."),
    MethodSpec("rvi", "relative value iteration (average reward)", "solver",
               "mdpviz.solvers.relative_value_iteration:relative_value_iteration", (_EPSILON_PMDP,),
               uses_tol=True, tol_as="epsilon", cap_as="max_iterations", optimal=False,
               lesson="Relative value iteration (average reward per step): undiscounted sweeps with the value of "
               "one reference state subtracted; the gain is the reward per step."),
    _learner("td0", "TD(0) prediction", 0, _PREDICT, prediction=True, replayable=True, short="TD(0)"),
    _learner("nstep", "n-step TD prediction", 1, (*_PREDICT, _N), prediction=True, worked_example="td0",
             multi_step=True, targets="n-step returns"),
    _learner("mc", "Monte Carlo prediction", 2, (*_PREDICT, _VISITS), prediction=True, worked_example="td0",
             multi_step=True, targets="returns"),
    _learner("mc-control", "Monte Carlo control (epsilon-soft)", 3, (*_CONTROL, _VISITS), worked_example="q",
             multi_step=True, targets="returns"),
    _learner("sarsa", "SARSA", 4, _CONTROL, replayable=True, needs_next_action=True),
    _learner("expected-sarsa", "Expected SARSA", 5, _CONTROL, replayable=True),
    _learner("q", "Q-learning", 6, _CONTROL, replayable=True),
    _learner("double-q", "Double Q-learning", 7, _CONTROL, worked_example="q", targets="from the other table"),
    # (approximation loop codes: mdpviz.solvers.approx_loop's GRADIENT_MC = 0, SEMI_TD, SEMI_NSTEP, LSTD, OFF_TD,
    # TDC, SEMI_SARSA, SEMI_NSTEP_SARSA = 7; unique within the kind)
    _approx("gradient-mc", "gradient Monte Carlo", 0, (_FEATURES, _A_ALPHA, _A_POLICY, _INIT_W),
            "Gradient Monte Carlo (Sutton and Barto eq. 9.5 with U = G_t): after each episode, w <- w + \u03b1 "
            "[G_t - v\u0302(S_t, w)] x(S_t) at every step. It converges to the best fit: the weights that "
            "minimise the \u03bc-weighted value error VE.", prediction=True, multi_step=True, targets="returns"),
    _approx("semi-td", "semi-gradient TD(0)", 1, (_FEATURES, _A_ALPHA, _A_POLICY, _INIT_W, _EXPECTED),
            "Semi-gradient TD(0) (eq. 9.7): w <- w + \u03b1 [R + \u03b3 v\u0302(S\u2032, w) - v\u0302(S, w)] x(S). "
            "It converges to the TD fixed point w_TD = A\u207b\u00b9 b (eq. 9.12), not to the best fit; its VE is "
            "at most VE(best) / (1 - \u03b3) (eq. 9.14).", prediction=True, short="semi-gradient TD"),
    _approx("semi-nstep", "n-step semi-gradient TD", 2, (_FEATURES, _A_ALPHA, _A_POLICY, _INIT_W, _A_N),
            "n-step semi-gradient TD (eq. 9.15): the target is the n-step return bootstrapped from "
            "v\u0302(S_(t+n), w); n = 1 is semi-gradient TD(0).", prediction=True, multi_step=True,
            targets="n-step returns"),
    _approx("lstd", "least-squares TD (LSTD)", 3, (_FEATURES, _A_POLICY, _LSTD_EPS),
            "LSTD (section 9.8): A\u0302 = \u03b5I + \u03a3 x_t (x_t - \u03b3 x_(t+1))\u1d40 and b\u0302 = "
            "\u03a3 R_(t+1) x_t from the episodes, w = A\u0302\u207b\u00b9 b\u0302: the TD fixed point estimated "
            "from data, with no step size.", prediction=True, short="LSTD"),
    _approx("semi-sarsa", "episodic semi-gradient SARSA", 6, (_FEATURES, _A_ALPHA, *_A_CONTROL, _INIT_W),
            "Episodic semi-gradient SARSA (eq. 10.1): w <- w + \u03b1 [R + \u03b3 q\u0302(S\u2032, A\u2032, w) - "
            "q\u0302(S, A, w)] x(S, A), acting \u03b5-greedily in q\u0302 (section 10.1).", short="semi-gradient SARSA",
            needs_next_action=True),
    _approx("semi-nstep-sarsa", "n-step semi-gradient SARSA", 7, (_FEATURES, _A_ALPHA, *_A_CONTROL, _INIT_W, _A_N),
            "n-step semi-gradient SARSA (eq. 10.4): the target is the n-step return bootstrapped from "
            "q\u0302(S_(t+n), A_(t+n), w).", multi_step=True, needs_next_action=True, targets="n-step returns"),
    _approx("off-td", "off-policy semi-gradient TD(0)", 4,
            (_FEATURES, _A_ALPHA, _TARGET, _BEHAVIOUR, _INIT_W, _EXPECTED),
            "Off-policy semi-gradient TD(0) (eq. 11.2): w <- w + \u03b1 \u03c1 \u03b4 x(S), \u03c1 = "
            "\u03c0(A|S) / b(A|S). Bootstrapping, function approximation and off-policy training together (the "
            "deadly triad) can make it diverge (Baird's counterexample, figure 11.2).", prediction=True,
            short="off-policy TD"),
    _approx("tdc", "TDC (gradient-corrected TD)", 5,
            (_FEATURES, _A_ALPHA, _TARGET, _BEHAVIOUR, _INIT_W, _EXPECTED, _BETA),
            "TDC (section 11.7): w <- w + \u03b1 \u03c1 (\u03b4 x - \u03b3 x\u2032 x\u1d40v), v <- v + \u03b2 "
            "\u03c1 (\u03b4 - v\u1d40x) x. A true gradient method for the projected Bellman error: it converges "
            "off-policy where semi-gradient TD diverges (figure 11.5).", prediction=True, short="TDC"),
    # (policy-gradient loop codes: mdpviz.solvers.pg_loop's REINFORCE = 0, REINFORCE_BASELINE, ACTOR_CRITIC,
    # AVG_ACTOR_CRITIC = 3; the step sizes' defaults are the book's: 2^-12 for REINFORCE on the corridor (figure
    # 13.1), 2^-9 and 2^-6 with a baseline (figure 13.2))
    _pg("reinforce", "REINFORCE (Monte Carlo policy gradient)", 0, (_alpha_theta(2.0 ** -12),),
        "REINFORCE (Sutton and Barto 13.3): after each episode, \u03b8 <- \u03b8 + \u03b1 \u03b3^t G_t "
        "\u2207ln \u03c0(A_t|S_t, \u03b8) for t = 0, 1, ..., with the soft-max policy of the preferences "
        "\u03b8\u1d40x(s, a). Its steps follow the gradient of J in expectation, with a high variance.",
        multi_step=True, targets="returns", short="REINFORCE"),
    _pg("reinforce-baseline", "REINFORCE with baseline", 1, (_alpha_theta(2.0 ** -9), _alpha_w(2.0 ** -6)),
        "REINFORCE with baseline (13.4): \u03b4 = G_t - v\u0302(S_t, w), w <- w + \u03b1_w \u03b4 x(S_t), "
        "\u03b8 <- \u03b8 + \u03b1_\u03b8 \u03b3^t \u03b4 \u2207ln \u03c0(A_t|S_t, \u03b8). The baseline "
        "leaves the expected step unchanged and lowers its variance.", multi_step=True, targets="returns",
        short="REINFORCE + baseline"),
    _pg("actor-critic", "one-step actor-critic", 2, (_alpha_theta(2.0 ** -9), _alpha_w(2.0 ** -6)),
        "One-step actor-critic (13.5): \u03b4 = R + \u03b3 v\u0302(S\u2032, w) - v\u0302(S, w), w <- w + "
        "\u03b1_w \u03b4 x(S), \u03b8 <- \u03b8 + \u03b1_\u03b8 I \u03b4 \u2207ln \u03c0(A|S, \u03b8), "
        "I <- \u03b3 I: the critic's TD error replaces the return (lower variance, some bias).",
        short="actor-critic"),
    _pg("avg-actor-critic", "actor-critic (average reward)", 3,
        (_alpha_theta(2.0 ** -9), _alpha_w(2.0 ** -6),
         Param("avg_alpha", float, 2.0 ** -6, low=0.0, high=1.0,
               help="step size of the average reward's estimate R_bar (default 2^-6)")),
        "Actor-critic for continuing tasks (13.6, one-step): \u03b4 = R - R\u0304 + v\u0302(S\u2032, w) - "
        "v\u0302(S, w), R\u0304 <- R\u0304 + \u03b1_R\u0304 \u03b4, then w and \u03b8 as the actor-critic: "
        "it climbs the average reward r(\u03c0).", short="average-reward actor-critic"),
    # (the k-armed testbed of Sutton and Barto ch. 2, issue 39: defaults are the book's figures' settings)
    _bandit("eps-greedy", "epsilon-greedy (sample averages or constant step)", "epsilon_greedy",
            (Param("epsilon", float, 0.1, low=0.0, high=1.0, help="probability of a uniformly random arm (default 0.1)"),
             _B_ALPHA, _B_INITIAL),
            "Epsilon-greedy (Sutton and Barto 2.2-2.4): the arm of largest Q (ties at random) with probability "
            "1 - \u03b5, else a random arm; Q(A) += (R - Q(A)) / N(A) (eq. 2.3) or \u03b1 (R - Q(A)) (eq. 2.5).",
            short="\u03b5-greedy", curve=("#0072b2", "solid", "o")),
    _bandit("optimistic", "optimistic initial values (greedy)", "optimistic",
            (Param("initial", float, 5.0, help="the optimistic initial estimate Q_1 (default 5, figure 2.3)"),
             Param("epsilon", float, 0.0, low=0.0, high=1.0, help="probability of a random arm (default 0: greedy)"),
             Param("alpha", float, 0.1, low=0.0, high=1.0, help="constant step size (default 0.1, figure 2.3)")),
            "Optimistic initial values (2.6, figure 2.3): greedy from Q_1 = 5 with \u03b1 = 0.1; every arm "
            "disappoints at first, so the greedy choice explores all of them early.",
            short="optimistic", curve=("#e69f00", "dash", "s")),
    _bandit("ucb", "upper confidence bound (UCB)", "ucb",
            (Param("c", float, 2.0, low=0.0, help="the exploration constant c (default 2, figure 2.4)"), _B_ALPHA,
             _B_INITIAL),
            "UCB (2.7, eq. 2.10): A_t = argmax_a [Q_t(a) + c \u221a(ln t / N_t(a))], an arm never pulled first: "
            "the bonus shrinks as an arm is pulled, so uncertain arms are tried.",
            short="UCB", curve=("#009e73", "dot", "t")),
    _bandit("gradient-bandit", "gradient bandit (soft-max preferences)", "gradient_bandit",
            (Param("alpha", float, 0.1, low=0.0, high=64.0, help="step size of the preferences (default 0.1)"),
             Param("baseline", bool, True, help="the average reward as baseline (False: none, figure 2.5)")),
            "The gradient bandit (2.8, eq. 2.12): \u03c0 = soft-max(H); H(A_t) += \u03b1 (R_t - R\u0304_t) "
            "(1 - \u03c0(A_t)) and H(a) -= \u03b1 (R_t - R\u0304_t) \u03c0(a) for the others, the baseline "
            "R\u0304_t the average reward so far: stochastic gradient ascent on the expected reward.",
            short="gradient", curve=("#d55e00", "dashdot", "d")),
    _bandit("thompson", "Thompson sampling", "thompson",
            (Param("prior_mean", float, 0.0, help="Gaussian arms: the prior mean of each q*(a) (default 0)"),
             Param("prior_sd", float, 1.0, low=1e-6, help="Gaussian arms: the prior standard deviation (default 1)")),
            "Thompson sampling: each step draws every arm's value from its posterior (Beta(a + s, b + f) for "
            "Bernoulli arms, a normal posterior with unit reward variance for Gaussian ones) and pulls the largest.",
            short="Thompson", curve=("#cc79a7", "solid", "star")),
    _bandit("bayes-optimal", "Bayes-optimal (exact, Bernoulli arms)", "bayes_optimal_policy", (),
            "The Bayes-optimal policy: the optimal arm of the belief MDP over the success and failure counts of "
            "Bernoulli arms with a Beta prior, solved exactly by backward induction over the horizon.",
            short="Bayes-optimal", curve=("#000000", "dash", "x")),
    # planning with a learned model (Sutton and Barto 8.2-8.3; issue 38): mdpviz.solvers.dyna
    _dyna("dyna-q", "Dyna-Q", (),
          "Dyna-Q (Sutton and Barto 8.2): after every real step's Q-learning update the step is recorded in a "
          "deterministic model, Model(S, A) <- R, S\u2032, and n planning updates follow, each from a previously "
          "observed state and an action taken there, drawn at random, with the model's R and S\u2032. Real steps "
          "and planning updates are counted apart; n = 0 is one-step Q-learning.", short="Dyna-Q"),
    _dyna("dyna-q+", "Dyna-Q+", (_KAPPA,),
          "Dyna-Q+ (8.3): Dyna-Q whose planning reward is R + \u03ba \u221a\u03c4, \u03c4 the real steps "
          "since (S, A) was last tried, and whose model holds every action of a visited state (the untried ones "
          "lead back to it with reward 0, the book's footnote): long-untried actions look worth retrying, so it "
          "finds a shortcut that opens later (figure 8.5).", short="Dyna-Q+"),
)
"""Every method, in the order the command line, the panel and the lesson list them: one line each."""

DEFAULT_SOLVER = "vi"
"""The solver :func:`mdpviz.solvers.solve` runs when none is named."""
DEFAULT_LEARNER = "q"
"""The learner :func:`mdpviz.solvers.learning.learner` runs when none is named."""

_SPECS: dict[str, MethodSpec] = {}
_ALIASES: dict[str, str] = {}


def register(spec: MethodSpec, *, replace: bool = False) -> MethodSpec:
    """Add ``spec`` to the registry (after the methods already there). ValueError when its id, an alias,
    or its loop code is taken (``replace=True`` replaces a method of the same id)."""
    if not isinstance(spec, MethodSpec):
        raise TypeError(f"register takes a MethodSpec, not {type(spec).__name__}")
    taken = {spec.id, *spec.aliases}
    old = _SPECS.get(spec.id)
    if old is not None and not replace:
        raise ValueError(f"method {spec.id!r} is already registered")
    for name in spec.aliases:
        if (name in _SPECS or name in _ALIASES) and _ALIASES.get(name) != spec.id:
            raise ValueError(f"alias {name!r} of {spec.id!r} is already a method id or alias")
    if spec.id in _ALIASES:
        raise ValueError(f"method id {spec.id!r} is already an alias of {_ALIASES[spec.id]!r}")
    if spec.code is not None:
        clash = next((s.id for s in _SPECS.values() if s.code == spec.code and s.kind == spec.kind
                      and s.id != spec.id), None)
        if clash is not None:
            raise ValueError(f"method {spec.id!r}: loop code {spec.code} is {clash!r}'s")
    if old is not None:
        for name in old.aliases:
            _ALIASES.pop(name, None)
    _SPECS[spec.id] = spec
    for name in taken - {spec.id}:
        _ALIASES[name] = spec.id
    return spec


def unregister(method_id: str) -> None:
    """Remove a method added by :func:`register` (tests; a line of :data:`ENTRIES` stays)."""
    if any(s.id == method_id for s in ENTRIES):
        raise ValueError(f"method {method_id!r} is a line of the registry's ENTRIES; it cannot be removed")
    spec = _SPECS.pop(method_id, None)
    for name in spec.aliases if spec else ():
        _ALIASES.pop(name, None)


def get(method_id: str) -> MethodSpec:
    """The spec of ``method_id`` (or of one of its aliases); ValueError naming the known ids."""
    spec = _SPECS.get(_ALIASES.get(method_id, method_id)) if isinstance(method_id, str) else None
    if spec is None:
        raise ValueError(f"unknown method {method_id!r}; choose one of {', '.join(_SPECS)}")
    return spec


def find(method_id: object) -> MethodSpec | None:
    """The spec of ``method_id``, or None when it names no method."""
    if not isinstance(method_id, str):
        return None
    return _SPECS.get(_ALIASES.get(method_id, method_id))


def is_kind(method_id: object, kind: str) -> bool:
    """True when ``method_id`` names a method of ``kind``."""
    spec = find(method_id)
    return spec is not None and spec.kind == kind


def specs(kind: str | None = None) -> tuple[MethodSpec, ...]:
    """Every registered method of ``kind`` (all kinds when None), in registry order."""
    return tuple(s for s in _SPECS.values() if kind is None or s.kind == kind)


def ids(kind: str | None = None, *, aliases: bool = False) -> tuple[str, ...]:
    """The ids of :func:`specs` (``aliases=True``: each followed by its aliases)."""
    out: list[str] = []
    for s in specs(kind):
        out.append(s.id)
        if aliases:
            out.extend(s.aliases)
    return tuple(out)


def ids_where(kind: str | None = None, **flags: Any) -> tuple[str, ...]:
    """The ids of the methods of ``kind`` whose attributes equal ``flags`` (e.g. ``prediction=True``),
    or, for a flag named ``takes``, that take that parameter."""
    takes = flags.pop("takes", None)
    return tuple(s.id for s in specs(kind) if all(getattr(s, k) == v for k, v in flags.items())
                 and (takes is None or s.takes(takes)))


def exact_solver() -> str:
    """The first exact solver that takes any model (one or two players, with cycles): policy iteration."""
    return ids_where("solver", exact=True, one_player=False, needs_acyclic=False)[0]


def game_choices(*, two_player: bool = False, acyclic: bool = False) -> tuple[str, ...]:
    """The methods a game's own command offers (:attr:`MethodSpec.in_game_cli`, in registry order) for a
    model with ``two_player`` sides and (``acyclic``) no cycles: a one-player-only method is left out for
    a two-player game, an acyclic-only one for a game with cycles."""
    return tuple(s.id for s in specs("solver") if s.in_game_cli and not (s.one_player and two_player)
                 and not (s.needs_acyclic and not acyclic))


def planner_names() -> dict[str, str]:
    """The course planner's ``--algorithm`` names -> method id: each :attr:`MethodSpec.in_planner` solver's
    id, aliases and :attr:`~MethodSpec.planner_aliases`, so a word means in ``mdpviz plan`` what it means
    everywhere else."""
    out: dict[str, str] = {}
    for s in specs("solver"):
        if s.in_planner:
            out.update({name: s.id for name in (s.id, *s.aliases, *(a for a, _note in s.planner_aliases))})
    return out


def planner_notes() -> dict[str, str]:
    """The course planner's deprecated names -> why (:attr:`MethodSpec.planner_aliases` with a note)."""
    return {name: note for s in specs("solver") if s.in_planner for name, note in s.planner_aliases if note}


def title(method_id: str) -> str:
    """The title of ``method_id`` (the id itself when it names no method: a saved run of an old version)."""
    spec = find(method_id)
    return method_id if spec is None else spec.title


for _spec in ENTRIES:
    register(_spec)
del _spec


__all__ = ["DEFAULT_LEARNER", "DEFAULT_SOLVER", "ENTRIES", "KINDS", "LINE_STYLES", "MethodSpec", "Param", "UNITS",
           "exact_solver", "find", "game_choices", "get", "ids", "ids_where", "is_kind", "planner_names", "planner_notes", "register",
           "specs", "title", "unregister"]
