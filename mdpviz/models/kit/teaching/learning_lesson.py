"""The lesson of the learners from experience, for any game with a table (the window shows it later).

Its prose is this module's docstring, read by the lesson engine (:mod:`mdpviz.models.kit.teaching.lessons`)
section by section; its numbers come from the compiled model and the learner's settings, and its
worked update is made by :class:`~mdpviz.solvers.learning.ExperienceLearner`, the same update
functions as the compiled episode loop. Plain Python; never imports Qt.

Learning from experience
------------------------
A learner is not given the model. It plays episodes: from a state it takes an action, the game
answers with a reward and a next state drawn with the model's probabilities, and the learner
changes one number of its table a little toward what it has just seen. The exact answer beside it
(the Bellman equation below, solved by the project's solver) is what it should reach, and the
error to it is what the learning curves show.

Each update moves an estimate a step alpha toward a target: new = old + alpha (target - old).
With alpha = 1/N (N: how often that entry has been updated) the estimate is the plain average of
its targets; a constant alpha keeps forgetting old targets, so it follows a changing policy but
never settles exactly; 1/N^w with w between 0.5 and 1 does both.

The updates
-----------
* TD(0) (Sutton and Barto eq. 6.2): V(S) <- V(S) + alpha [R + gamma V(S') - V(S)]. The target
  uses the current guess of the next state's value: it bootstraps, learning during the episode.
* n-step TD (eq. 7.2): the target adds the next n rewards before it bootstraps, gamma^n V(S_t+n).
  TD(0) is n = 1; an n longer than every episode is Monte Carlo.
* Monte Carlo (sections 5.1, 5.4): wait until the episode ends, then move each first visit of a
  state (or state and action) toward the return G that followed it. No bootstrap: unbiased, but
  noisy, and nothing is learned before the end.
* SARSA (eq. 6.7): Q(S, A) <- Q(S, A) + alpha [R + gamma Q(S', A') - Q(S, A)], where A' is the
  action the learner really takes next, exploration included: it learns the value of the policy
  it follows (on-policy).
* Expected SARSA (eq. 6.9): the same, with the average of Q(S', a) over the epsilon-greedy policy
  instead of the one sampled A': less noise for the same meaning.
* Q-learning (eq. 6.8): the target takes the best next action, R + gamma max_a Q(S', a), whatever
  the learner does next: it learns the optimal Q (off-policy) while it explores.
* Double Q-learning (section 6.7): two tables; a coin picks the one to update, whose best next
  action is valued by the other. One table's lucky overestimate is not also its own yardstick,
  which removes the upward bias of max.

A terminal next state has value 0: the target is the reward alone. Where the other player moves
(two-player games) or where the objective is a cost (snakes counts turns), "best" is the min: the
target takes the mover's best, as the Bellman equation does.

Why SARSA and Q-learning part ways on the cliff
-----------------------------------------------
On Sutton and Barto's cliff (Example 6.6: a 4x12 grid, every step -1, stepping off the bottom edge
-100 and back to the start) both learners explore with epsilon = 0.1. Q-learning's target assumes
the best action next, so it learns the optimal path along the edge of the cliff (13 steps), and
its greedy path runs there; but while it explores, one random step in ten along that edge falls,
and its returns per episode are worse. SARSA's target is the action it will really take, random
steps included, so a cell next to the cliff is worth less to it: it learns the safer path one or
two rows up, longer but rarely fatal, and earns more per episode while it explores. With epsilon
decaying to 0 both reach the optimal path: the difference is the value of the policy followed
(SARSA) versus the value of the greedy policy (Q-learning).
"""
from __future__ import annotations

import dataclasses
from typing import Callable

import numpy as np

from mdpviz.models.kit.teaching.lessons import Block, Lesson, doc_section, fmt_number, mdp_lesson, parameters_of
from mdpviz.core.mdp import TabularMDP
from mdpviz.solvers import registry as methods

SECTIONS = ("Learning from experience", "The updates", "Why SARSA and Q-learning part ways on the cliff")
"""The sections of this module's docstring the lesson shows, in order."""

EXAMPLE_METHODS = {s.id: s.example_id for s in methods.specs("learner")}
"""The one-step update the worked example writes out for each learner (Monte Carlo and n-step TD wait
for more than one step; their example is the one-step update they generalise): each learner's registry
line's ``worked_example``, else its own."""


def learning_lesson(
    mdp: TabularMDP | None,
    settings=None,
    *,
    title: str = "",
    start: int = 0,
    q: np.ndarray | None = None,
    state_name: Callable[[int], str] | None = None,
    action_name: Callable[[int], str] | None = None,
) -> Lesson:
    """The learning lesson for ``mdp`` learned with ``settings`` (a
    :class:`~mdpviz.solvers.learning.LearningSettings`; None: Q-learning's defaults): the prose of this
    module, the model's facts and its Bellman equation (what the learner should reach; the learner
    never reads the probabilities), the learner's parameters, and one update written out with its
    numbers from ``start`` (``q``: the learned Q per row to start from; None: the initial values)."""
    import sys

    from mdpviz.solvers.learning import LEARNERS, LearningSettings

    learning = settings if settings is not None else LearningSettings()
    module = sys.modules[__name__]
    intro: tuple[Block, ...] = ()
    for head in SECTIONS:
        intro += (Block("p", head + ":"),) + doc_section(module, head)
    name = LEARNERS[learning.method]
    lesson = mdp_lesson(
        mdp, title=title or f"Learning from experience: {name}", intro=intro,
        transitions="The learner never reads these probabilities: it samples them, one step at a time.",
        parameters=parameters_of(learning), start=start, state_name=state_name, action_name=action_name,
    )
    if mdp is None:
        return lesson
    example = worked_update(mdp, learning, start=start, q=q, state_name=state_name, action_name=action_name)
    return dataclasses.replace(lesson, example=lesson.example + example)


def worked_update(mdp: TabularMDP, learning, *, start: int = 0, q: np.ndarray | None = None,
                  state_name: Callable[[int], str] | None = None,
                  action_name: Callable[[int], str] | None = None) -> str:
    """HTML: one update of ``st.method`` (see :data:`EXAMPLE_METHODS`) from ``start``, its first legal
    action and that action's most likely outcome, written out with the numbers
    ("Q(s,a) <- 0.42 + 0.1 x (-0.04 + 0.9 x 0.61 - 0.42) = 0.4289")."""
    import html

    from mdpviz.solvers.learning import LEARNERS, ExperienceLearner

    if not (0 <= start < mdp.n_states) or mdp.terminal[start]:
        return ""
    sn = state_name or (lambda s: mdp.state_labels[s] if mdp.state_labels else str(s))
    an = action_name or (lambda a: mdp.action_labels[a] if mdp.action_labels else f"action {a}")
    kind = methods.get(learning.method).example_id
    alpha, power = learning.step
    learner = ExperienceLearner(mdp, kind, alpha=alpha if power == 0 else f"1/n^{power:g}", epsilon=learning.epsilon,
                                initial=learning.initial)
    if q is not None:
        learner.Q[:] = np.asarray(q, dtype=np.float64)
    a = int(mdp.actions_of(start)[0])
    d, p, r = max(mdp.outcomes(start, a), key=lambda o: o[1])
    a_next = None
    if methods.get(kind).needs_next_action and not mdp.terminal[d]:
        a_next = int(mdp.actions_of(d)[0])
    u = learner.update(start, a, r, d, a_next=a_next)
    what = f"{methods.get(kind).short_title}'s"
    name = LEARNERS[learning.method]
    how = (f"{name[:1].upper()}{name[1:]} waits for more than one step; the one-step update it generalises"
           if methods.get(learning.method).multi_step else f"{what} update")
    after = "" if a_next is None else f", then takes {html.escape(an(a_next))}"
    return (f"<p>One step of experience: in {html.escape(sn(start))} the learner takes {html.escape(an(a))}, "
            f"the game answers with reward {fmt_number(r)} and {html.escape(sn(d))} (probability "
            f"{fmt_number(p)}){after}. {how} with step size {fmt_number(u.alpha)}:<br><code>"
            f"{html.escape(u.text(sn, an))}</code></p>")


__all__ = ["EXAMPLE_METHODS", "SECTIONS", "learning_lesson", "worked_update"]
