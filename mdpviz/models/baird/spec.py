"""Baird's counterexample (Example 11.1) as the registry sees it: lesson, the book's features, initial weights
and policies, and :data:`SPEC`.

Scenario data is the generic codec's over :class:`~mdpviz.models.baird.rules.BairdSettings` (``discount``,
``behaviour_dashed``, ``initial_weights``). Plain numpy; never imports Qt.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from mdpviz.core.mdp import TabularMDP
from mdpviz.models.baird import rules as bd
from mdpviz.models.baird.rules import BairdSettings, compile_baird
from mdpviz.models.kit.game import hooks
from mdpviz.models.kit.game.registry import DisplayHooks, EpisodeHooks, GameSpec, ModelHooks, SEQUENTIAL


def features(settings: BairdSettings, mdp: TabularMDP) -> np.ndarray:
    """The book's feature matrix (7 x 8, figure 11.1): the "game" kind of features."""
    return bd.book_features()


def initial_weights(settings: BairdSettings, mdp: TabularMDP) -> np.ndarray:
    """The weights the learners start the book's features from (the settings' ``initial_weights``; the book's
    (1, 1, 1, 1, 1, 1, 10, 1) by default)."""
    w = np.array(settings.initial_weights, dtype=np.float64)
    w.setflags(write=False)
    return w


def policies(settings: BairdSettings, mdp: TabularMDP) -> dict[str, np.ndarray]:
    """Row probabilities of the book's two policies: the target (always solid) and the behaviour (dashed 6/7,
    solid 1/7: the settings' ``behaviour_dashed``)."""
    return {"target": bd.policy_rows(mdp, 0.0), "behaviour": bd.policy_rows(mdp, float(settings.behaviour_dashed))}


LESSON_METHODS = (
    "Off-policy semi-gradient TD (section 11.1, eq. 11.2) learns the target policy's values from the behaviour's "
    "transitions, each update weighted by the importance ratio rho = pi(a|s)/b(a|s): 0 after dashed, 7 after "
    "solid. From the book's initial weights its weights grow without bound (figure 11.2, left), and so does its "
    "expected update, semi-gradient dynamic programming, which samples nothing (figure 11.2, right). Why: "
    "the update's expected direction is b - A w with A = X^T D (I - gamma P_pi) X, and under the behaviour's "
    "uniform distribution D this A has two eigenvalues below 0 (about -0.24 and -0.02 at gamma 0.99): along "
    "their directions the update pushes the weights outwards at every step, however small the step size. All three parts of the deadly triad are here: "
    "function approximation, bootstrapping (the target uses v(7)), off-policy training.",
    "The TD fixed point is not one point: every weight vector with v = 0 in all seven states is one (w_i = -w_8/2 "
    "for the upper states, w_7 = -2 w_8), so A is singular and TD diverges although exact answers are at hand.",
    "TDC (gradient-corrected TD, section 11.7, eq. 11.7-11.8) follows the true gradient of the projected "
    "Bellman error with a second set of weights learning its correction (step size beta): its expected update "
    "converges and its weights stay bounded: the projected Bellman error falls to 0 while VE falls far more "
    "slowly (figure 11.5). Its second step size beta must be larger than alpha for that.",
    "Trained on-policy, the same features are safe: gradient Monte Carlo and semi-gradient TD (or LSTD) "
    "evaluating the behaviour policy from its own experience converge (section 9.4), to the best fit and to "
    "the TD fixed point, both v = 0 here. With every reward 0 there is nothing to control: semi-gradient SARSA "
    "learns q = 0. Read it off the board: the weights view and the weights over steps show the divergence; "
    "the board colours each state's v = x(s)^T w, which should be 0.",
)
"""What each method converges to on Baird's counterexample, and why (the lesson; issue 36, item 7)."""


def lesson(settings: BairdSettings, mdp: TabularMDP | None = None, *, start: int | None = None,
           state_name: Callable[[int], str] | None = None, **_names: Any):
    """Example 11.1 in our words, what each learner converges to (or why it diverges), the model's facts."""
    from mdpviz.models.kit.teaching.lessons import Block, doc_paragraphs, mdp_lesson, parameters_of

    if mdp is None:
        try:
            mdp = compile_baird(settings)
        except ValueError:
            mdp = None
    b = float(settings.behaviour_dashed)
    return mdp_lesson(
        mdp,
        title="Baird's counterexample (Example 11.1)",
        intro=doc_paragraphs(bd, "Seven states", "The behaviour policy", "The value is") + tuple(
            Block("p", t) for t in LESSON_METHODS),
        states="Six upper states 1..6 and the seventh below them; none is terminal (a continuing task).",
        actions="Dashed (to one of the six upper states) and solid (to the seventh).",
        transitions="Dashed: each upper state with probability 1/6. Solid: the seventh state, surely.",
        rewards="0 on every transition: every state's true value is 0.",
        discount_why="0.99, as in the book." if settings.discount == 0.99 else "",
        parameters=parameters_of(settings),
        start=0 if start is None else start,
        state_name=state_name or (lambda s: f"state {s + 1}"),
        action_name=lambda a: ("dashed", "solid")[a] if 0 <= a < 2 else str(a),
        where=f"state 1 (behaviour: dashed {b:.3g}, solid {1 - b:.3g}; target: solid)",
        sources=("mdpviz.models.baird.rules",),
    )


SPEC = GameSpec(
    key="baird",
    title="Baird's counterexample",
    value_label="expected discounted return",
    unit="return",
    settings_type=BairdSettings,
    default_settings=BairdSettings,
    compile=compile_baird,
    aliases=("baird-counterexample", "example-11.1"),
    model=ModelHooks(with_discount=hooks.set_discount, features=features, default_features="game",
                     policies=policies, initial_weights=initial_weights),
    episodes=EpisodeHooks(start_state=lambda ctx: 0),
    display=DisplayHooks(color_kind=SEQUENTIAL, lesson=lesson),
)
"""Baird's counterexample (Sutton and Barto, Example 11.1, figure 11.1) in the registry."""

__all__ = ["LESSON_METHODS", "SPEC", "features", "initial_weights", "lesson", "policies"]
