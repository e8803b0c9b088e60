"""The random walk (Example 9.1) as the registry sees it: lesson, coordinates and :data:`SPEC`.

Scenario data is the generic codec's over :class:`~mdpviz.models.randomwalk.rules.RandomWalkSettings`
(``n_states``, ``max_jump``, ``left_reward``, ``discount``). Plain numpy; never imports Qt.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from mdpviz.core.mdp import TabularMDP
from mdpviz.models.kit.game import hooks
from mdpviz.models.kit.game.registry import DIVERGING, DisplayHooks, EpisodeHooks, GameSpec, ModelHooks
from mdpviz.models.randomwalk import rules as rw
from mdpviz.models.randomwalk.rules import RandomWalkSettings, compile_randomwalk


def coordinates(settings: RandomWalkSettings, mdp: TabularMDP):
    """The states' one coordinate, their position 1 .. n in the row, scaled from [1, n] (the two ends have
    none: a row of NaN). What state aggregation's groups, tiles, polynomials and Fourier features of section
    9.5 are built over."""
    from mdpviz.solvers.features import Coordinates  # (lazily: the features module is the solvers' layer)

    n = int(settings.n_states)
    values = np.full((n + 2, 1), np.nan)
    values[1:n + 1, 0] = np.arange(1, n + 1, dtype=np.float64)
    values.setflags(write=False)
    low, high = np.array([1.0]), np.array([float(max(n, 2))])
    low.setflags(write=False)
    high.setflags(write=False)
    return Coordinates(("position",), values, low, high)


def default_features(settings: RandomWalkSettings) -> str:
    """Figure 9.1's state aggregation: 10 groups of 100 states on the 1000-state walk (fewer groups on a walk
    with fewer than 20 states: one per state is then the table itself)."""
    return "aggregate:10"


LESSON_METHODS = (
    "Gradient Monte Carlo (section 9.3) moves the weights along the sampled return's error, an unbiased "
    "target, so it converges to the best fit: the weights minimising the value error VE weighted by the "
    "on-policy distribution mu (eq. 9.1). With state aggregation (10 groups of 100 states, figure 9.1) each "
    "group's value is the mu-weighted mean of its states' true values: a staircase. Within a group the states "
    "nearer the start in the middle, where mu is larger, weigh more, so each step sits a little nearer 0 than "
    "its group's plain mean (figure 9.1's asymmetric steps).",
    "Semi-gradient TD(0) (section 9.3) bootstraps: its target uses its own estimate of the next state, so it "
    "does not follow the gradient of any error and converges instead to the TD fixed point w_TD = A^-1 b "
    "(eq. 9.12), where the expected update is zero. Its VE is larger than the best fit's: on the aggregated walk "
    "the end groups sit nearer 0 than gradient MC's (about -0.69 against -0.83 for states 1..100 of the book's "
    "walk), since a group bootstraps from its neighbours' values. "
    "Discounted, the bound VE(w_TD) <= VE(best) / (1 - gamma) (eq. 9.14) says how much larger it can be"
    " (VE(w_TD) is about 0.013 against the best fit's 0.003 on the book's walk).",
    "LSTD (section 9.8) estimates A and b from the same experience and solves for w_TD directly: its weights "
    "reach the TD fixed point with far fewer episodes than semi-gradient TD and with no step size to tune.",
    "With tabular features (one per state) all of them converge to the true values: the best fit and the TD "
    "fixed point are then both v itself. Read it off the board: under Board shows, compare approximate, exact, "
    "best fit and TD fixed point; the error view colours V_hat - v, and the plot of v against the state draws "
    "the staircase, the two fixed points and mu.",
)
"""What each method converges to on the walk, and why (the lesson; issue 36, item 7)."""


def lesson(settings: RandomWalkSettings, mdp: TabularMDP | None = None, *, start: int | None = None,
           state_name: Callable[[int], str] | None = None, **_names: Any):
    """Example 9.1 in our words, what each learner with linear features converges to, the model's facts."""
    from mdpviz.models.kit.teaching.lessons import Block, doc_paragraphs, mdp_lesson, parameters_of

    if mdp is None:
        try:
            mdp = compile_randomwalk(settings)
        except ValueError:
            mdp = None
    n, k = int(settings.n_states), int(settings.max_jump)
    labels = rw.state_labels(settings)
    return mdp_lesson(
        mdp,
        title=f"Random walk ({n} states, jumps of 1..{k}; Example 9.1)",
        intro=doc_paragraphs(rw, "The states are", "The 19-state") + tuple(Block("p", t) for t in LESSON_METHODS),
        states=f"The walk's states 1..{n} in a row, and the two ends (terminal).",
        actions="One: walk. There is nothing to choose, so the values are those of the only policy (prediction).",
        transitions=(f"From state i, each of the states i-{k}..i-1 and i+1..i+{k} with probability 1/{2 * k}; a "
                     "jump beyond an end lands on that end."),
        rewards=f"{settings.left_reward:g} on reaching the left end, +1 on reaching the right end, 0 otherwise.",
        discount_why="nothing is discounted, as in the book (the task is episodic)." if settings.discount == 1 else "",
        parameters=parameters_of(settings),
        start=rw.middle(settings) if start is None else start,
        state_name=state_name or (lambda s: labels[s] if 0 <= s < len(labels) else str(s)),
        action_name=lambda a: "walk",
        where=f"state {rw.middle(settings)}",
        sources=("mdpviz.models.randomwalk.rules",),
    )


SPEC = GameSpec(
    key="randomwalk",
    title="Random walk (1000 states)",
    value_label="expected return",
    unit="return",
    settings_type=RandomWalkSettings,
    default_settings=RandomWalkSettings,
    compile=compile_randomwalk,
    aliases=("random-walk", "example-9.1"),
    model=ModelHooks(with_discount=hooks.set_discount, coordinates=coordinates,
                     default_features="aggregate:10"),
    episodes=EpisodeHooks(start_state=lambda ctx: rw.middle(ctx.settings)),
    display=DisplayHooks(color_kind=DIVERGING, lesson=lesson),
)
"""The random walk (Sutton and Barto, Example 9.1; Example 6.2 and chapter 7's 19 states as settings)."""

__all__ = ["LESSON_METHODS", "SPEC", "coordinates", "lesson"]
