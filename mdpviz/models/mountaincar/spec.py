"""Mountain car (Example 10.1) on a grid as the registry sees it: lesson, coordinates and :data:`SPEC`.

Scenario data is the generic codec's over :class:`~mdpviz.models.mountaincar.rules.MountainCarSettings`
(``positions``, ``velocities``, ``discount``). Plain numpy; never imports Qt.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from mdpviz.core.mdp import TabularMDP
from mdpviz.models.kit.game import hooks
from mdpviz.models.kit.game.registry import DisplayHooks, EpisodeHooks, GameSpec, ModelHooks, SEQUENTIAL
from mdpviz.models.mountaincar import rules as mc
from mdpviz.models.mountaincar.rules import MountainCarSettings, compile_mountaincar

DEFAULT_FEATURES = "tiles:8:0.125"
"""Section 10.1's features: 8 tilings of 8 x 8 tiles over position and velocity (each tile an eighth of each
range), asymmetrically offset."""


def coordinates(settings: MountainCarSettings, mdp: TabularMDP):
    """The states' two coordinates, position and velocity of their grid point, scaled from the book's bounds
    ([-1.2, 0.5] and [-0.07, 0.07]); the goal has none (a row of NaN)."""
    from mdpviz.solvers.features import Coordinates  # (lazily: the features module is the solvers' layer)

    ps, vs = mc.grid(settings)
    n_live = mc.goal_state(settings)
    ii, jj = np.divmod(np.arange(n_live), int(settings.velocities))
    values = np.full((n_live + 1, 2), np.nan)
    values[:n_live, 0], values[:n_live, 1] = ps[ii], vs[jj]
    low, high = np.array([mc.P_MIN, mc.V_MIN]), np.array([mc.P_MAX, mc.V_MAX])
    for a in (values, low, high):
        a.setflags(write=False)
    return Coordinates(("position", "velocity"), values, low, high)


LESSON_METHODS = (
    "Semi-gradient SARSA (section 10.1) learns q(s, a) = x(s, a)^T w with tile coding: 8 tilings of the two "
    "coordinates, one weight vector per throttle. Its weights start at 0, which is optimistic when every step "
    "costs -1, so the greedy car explores without epsilon: it tries what it has not tried. Episodes shorten "
    "from several hundred steps to about 120-150 within a few hundred episodes (figure 10.2); the board's "
    "cost-to-go, -max_a q, grows the spiral of figure 10.1 out of the start, where the car must swing back and "
    "forth. It does not converge to the exact answer: it chases a moving target (its own greedy policy) with "
    "features that cannot draw the sharp ridges of the true cost-to-go, so its values stay a smoothed copy; "
    "where it never goes, they stay at 0. n-step semi-gradient SARSA (section 10.2) bootstraps n steps later "
    "and learns faster at a middling n (figure 10.4: n = 8 at alpha 0.5/8 is about best).",
    "The exact answer here is value iteration's on the grid: the optimal cost-to-go of every grid point (at the "
    "start about 105 steps, the book's optimal episodes' length), the picture the learner's should approach. "
    "Prediction methods evaluating a fixed policy (gradient MC, semi-gradient TD, LSTD with tile coding) "
    "converge to the best fit and to the TD fixed point of that policy's values, as on the random walk: with "
    "tiles much wider than the grid both differ from the true values across the ridges. Off-policy TD and TDC "
    "apply too, but nothing here needs them.",
)
"""What each method converges to on mountain car, and why (the lesson; issue 36, item 7)."""


def lesson(settings: MountainCarSettings, mdp: TabularMDP | None = None, *, start: int | None = None,
           state_name: Callable[[int], str] | None = None, **_names: Any):
    """Example 10.1 in our words, the grid that makes it a table, what SARSA with tile coding learns."""
    from mdpviz.models.kit.teaching.lessons import Block, doc_paragraphs, mdp_lesson, parameters_of

    if mdp is None:
        try:
            mdp = compile_mountaincar(settings)
        except ValueError:
            mdp = None
    labels = mc.state_labels(settings)
    P, V = int(settings.positions), int(settings.velocities)
    return mdp_lesson(
        mdp,
        title=f"Mountain car (Example 10.1, a grid of {P} positions x {V} velocities)",
        intro=doc_paragraphs(mc, "An underpowered car", "v' = bound", "with p in", "The book's car") + tuple(
            Block("p", t) for t in LESSON_METHODS),
        states=f"Grid points of position (-1.2 .. 0.5, {P} points) x velocity (-0.07 .. 0.07, {V} points); the "
               "points at position 0.5 are one terminal goal.",
        actions="Full throttle reverse (-1), zero throttle (0), full throttle forward (+1).",
        transitions="The book's next position and velocity, split between the four grid points around them "
                    "(bilinear weights); anything at position 0.5 is the goal.",
        rewards="-1 per step until the goal: V(s) is minus the number of steps from s.",
        discount_why="nothing is discounted, as in the book (the task is episodic)." if settings.discount == 1 else "",
        parameters=parameters_of(settings),
        start=mc.start_state(settings) if start is None else start,
        state_name=state_name or (lambda s: labels[s] if 0 <= s < len(labels) else str(s)),
        action_name=lambda a: mc.ACTION_LABELS[a] if 0 <= a < 3 else str(a),
        where="the start (position -0.5, velocity 0)",
        sources=("mdpviz.models.mountaincar.rules",),
    )


SPEC = GameSpec(
    key="mountaincar",
    title="Mountain car",
    value_label="return (minus the steps to the goal)",
    unit="return",
    settings_type=MountainCarSettings,
    default_settings=MountainCarSettings,
    compile=compile_mountaincar,
    aliases=("mountain-car", "example-10.1"),
    model=ModelHooks(with_discount=hooks.set_discount, coordinates=coordinates, default_features=DEFAULT_FEATURES),
    episodes=EpisodeHooks(start_state=lambda ctx: mc.start_state(ctx.settings)),
    display=DisplayHooks(color_kind=SEQUENTIAL, lesson=lesson),
)
"""Mountain car (Sutton and Barto, Example 10.1) on a grid of position x velocity, in the registry."""

__all__ = ["DEFAULT_FEATURES", "LESSON_METHODS", "SPEC", "coordinates", "lesson"]
