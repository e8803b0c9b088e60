"""The short corridor (Example 13.1) as the registry sees it: lesson, the book's features and starting weights, and
:data:`SPEC`.

Scenario data is the generic codec's over :class:`~mdpviz.models.corridor.rules.CorridorSettings` (``n_states``,
``reversed``, ``discount``). Plain numpy; never imports Qt.
"""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from mdpviz.core.mdp import TabularMDP
from mdpviz.models.corridor import rules as cr
from mdpviz.models.corridor.rules import CorridorSettings, compile_corridor
from mdpviz.models.kit.game import hooks
from mdpviz.models.kit.game.registry import DisplayHooks, EpisodeHooks, GameSpec, ModelHooks, NameHooks, SEQUENTIAL

BOOK_ACTION_FEATURES = {cr.RIGHT: (1.0, 0.0), cr.LEFT: (0.0, 1.0)}
"""Example 13.1's state-action features, the same in every state: x(s, right) = (1, 0), x(s, left) = (0, 1)."""


def action_features(settings: CorridorSettings, mdp: TabularMDP) -> np.ndarray:
    """float64 (n_rows, 2), read-only: the book's x(s, a) of every (state, action) row of ``mdp``
    (:data:`BOOK_ACTION_FEATURES`): with them h(s, a) = theta . x(s, a) is theta_right or theta_left whatever the
    state, so the softmax policy (eq. 13.2) goes right with one probability in every state."""
    acts = np.asarray(mdp.row_action)
    X = np.array([BOOK_ACTION_FEATURES[int(a)] for a in acts], dtype=np.float64).reshape(acts.size, 2)
    X.setflags(write=False)
    return X


def features(settings: CorridorSettings, mdp: TabularMDP) -> np.ndarray:
    """float64 (n_states, 1), read-only: the state features that match the book's, every state alike, x(s) = (1):
    a state-value estimate over them is one number, the baseline v_hat(s, w) = w of REINFORCE with baseline on
    this corridor (figure 13.2). (Terminal G's row is zeroed by the features module.)"""
    X = np.ones((mdp.n_states, 1))
    X.setflags(write=False)
    return X


def initial_weights(settings: CorridorSettings, mdp: TabularMDP) -> np.ndarray:
    """The policy weights the book starts from, theta = (theta_right, theta_left) = (0, ln 19) over
    :func:`action_features`: the softmax gives right the probability 1 / (1 + 19) = 0.05 in every state, the
    epsilon-greedy-left policy of figure 13.1 (epsilon 0.1)."""
    p = cr.BOOK_P_RIGHT
    theta = np.array([0.0, math.log((1.0 - p) / p)])
    theta.setflags(write=False)
    return theta


def _lesson_numbers(settings: CorridorSettings) -> str:
    """Figure 13.1's numbers for these settings: the two epsilon-greedy policies, the best stochastic one."""
    e = cr.BOOK_EPSILON
    lo, hi = cr.value_of_right_probability(settings, e / 2), cr.value_of_right_probability(settings, 1 - e / 2)
    p, j = cr.best_right_probability(settings)
    return (f"On this corridor: epsilon-greedy with epsilon {e:g} goes right with probability {e / 2:g} "
            f"(J = {lo:.4g}) or {1 - e / 2:g} (J = {hi:.4g}); the best probability of right is p = {p:.4f}, "
            f"with J = {j:.4f}.")


LESSON_METHODS = (
    "Why epsilon-greedy fails here: an action-value method with these features learns one q per action, the same "
    "in every state, so its greedy action is the same everywhere and its epsilon-greedy policy goes right with "
    "probability epsilon/2 or 1 - epsilon/2, near one end of the curve J(p), and both ends are poor: going "
    "right nearly always, the reversed state keeps sending the agent back to S. The best policy is stochastic, "
    "and only a method that learns the probabilities themselves finds it. REINFORCE (section 13.3) starting "
    "from the book's epsilon-greedy-left policy (p = 0.05: theta = (0, ln 19) over the book's features) with "
    "step size 2^-12 climbs the curve to within a little of -11.657 in a thousand episodes (figure 13.1); a "
    "baseline (section 13.4, figure 13.2) makes it faster.",
    "With tabular features (one preference per state and action) the agent tells the states apart and the "
    "corridor is an ordinary MDP: right, left, right reaches G in three steps, so V*(S) = -3, the answer of "
    "every solver here (value and policy iteration, the LP), a deterministic policy. The book's features are "
    "the point of the example: when states look alike (state aliasing) a stochastic policy can beat every "
    "deterministic one, whereas a fully observed MDP always has a deterministic optimal policy.",
)
"""What the corridor teaches (figure 13.1), and the tabular answer (the lesson; issue 37, item 4)."""


def lesson(settings: CorridorSettings, mdp: TabularMDP | None = None, *, start: int | None = None,
           state_name: Callable[[int], str] | None = None, **_names: Any):
    """Example 13.1 in our words, figure 13.1's numbers for the current settings, the model's facts."""
    from mdpviz.models.kit.teaching.lessons import Block, doc_paragraphs, mdp_lesson, parameters_of

    if mdp is None:
        try:
            mdp = compile_corridor(settings)
        except ValueError:
            mdp = None
    try:
        numbers: tuple[Block, ...] = (Block("p", _lesson_numbers(settings)),)
    except ValueError:
        numbers = ()
    n, r = int(settings.n_states), int(settings.reversed)
    labels = cr.state_labels(settings) if mdp is not None else ()
    return mdp_lesson(
        mdp,
        title=f"Short corridor with switched actions (Example 13.1: {n} states, state {r + 1} reversed)",
        intro=doc_paragraphs(cr, "Three non-terminal", "With the book's") + tuple(
            Block("p", t) for t in LESSON_METHODS) + numbers,
        states=f"S and the corridor's states 2..{n} in a row, then the goal G (terminal)." if n > 1 else
               "S, then the goal G (terminal).",
        actions="Left and right in every corridor state.",
        transitions=(f"Surely one state left or right (S's left stays at the wall, the last state's right reaches "
                     f"G); in state {r + 1} the two are swapped."),
        rewards="-1 per step: the value is minus the expected number of steps to G.",
        discount_why="nothing is discounted, as in the book (the task is episodic)." if settings.discount == 1 else "",
        parameters=parameters_of(settings),
        start=cr.START if start is None else start,
        state_name=state_name or (lambda s: labels[s] if 0 <= s < len(labels) else str(s)),
        action_name=lambda a: cr.ACTION_LABELS[a] if 0 <= a < 2 else str(a),
        where="S",
        sources=("mdpviz.models.corridor.rules",),
    )


def state_name(ctx: Any, s: int) -> str:
    """State ``s`` in words: "S (start)", "state 2 (reversed)", "G (goal)" (the inspector, the episodes)."""
    n, r = int(ctx.settings.n_states), int(ctx.settings.reversed)
    if s == n:
        return "G (goal)"
    base = "S" if s == cr.START else f"state {s + 1}"
    notes = [w for w, on in (("start", s == cr.START), ("reversed", s == r)) if on]
    return f"{base} ({', '.join(notes)})" if notes else base


SPEC = GameSpec(
    key="corridor",
    title="Short corridor (Example 13.1)",
    value_label="expected return (\u2212steps to G)",
    unit="return",
    settings_type=CorridorSettings,
    default_settings=CorridorSettings,
    compile=compile_corridor,
    aliases=("short-corridor", "example-13.1"),
    model=ModelHooks(with_discount=hooks.set_discount, features=features, action_features=action_features,
                     default_features="game", initial_weights=initial_weights),
    names=NameHooks(state_name=state_name),
    episodes=EpisodeHooks(start_state=lambda ctx: cr.START),
    display=DisplayHooks(color_kind=SEQUENTIAL, lesson=lesson),
)
"""The short corridor with switched actions (Sutton and Barto, Example 13.1, figure 13.1) in the registry."""

__all__ = ["BOOK_ACTION_FEATURES", "LESSON_METHODS", "SPEC", "action_features", "features", "initial_weights",
           "lesson", "state_name"]
