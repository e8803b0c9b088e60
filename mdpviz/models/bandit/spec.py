"""The Bernoulli bandit's belief MDP as the registry sees it: lesson, the Gittins job and :data:`SPEC`.

Scenario data is the generic codec's over :class:`~mdpviz.models.bandit.rules.BanditSettings` (``arms``,
``horizon``, ``prior`` as a list [a, b], ``discount``). The game is solved when nothing
else is asked by value iteration, the window's first solver: on this acyclic model its sweep k makes every belief
within k pulls of the horizon exact, so ``horizon`` sweeps solve it (backward induction, ``mdpviz solve --method``
with the registry's acyclic exact solver, does it one layer per step). Plain numpy; never imports Qt.
"""
from __future__ import annotations

from typing import Any, Callable, Generator

import numpy as np

from mdpviz.core.mdp import TabularMDP
from mdpviz.models.bandit import rules as bd
from mdpviz.models.bandit.rules import BanditSettings, compile_bandit
from mdpviz.models.kit.game import hooks
from mdpviz.models.kit.game.registry import (DisplayHooks, EpisodeHooks, GameSpec, JobProgress, ModelHooks, NameHooks,
                                              SEQUENTIAL)
from mdpviz.solvers import bandit_exact as be


def gittins_job(discount: float, max_count: int, *, tol: float = 1e-7) -> Generator[JobProgress, None, np.ndarray]:
    """The Gittins index of Beta(a, b) for a, b in 1..``max_count`` at ``discount`` (calibration,
    :func:`mdpviz.solvers.bandit_exact.gittins_table`), one row of a per step: yields progress, returns the table
    float64 (max_count, max_count). ValueError naming the discount or the count."""
    g = be.check_discount(discount, name="discount", strict=True)
    m = int(max_count)
    if not 1 <= m <= 30:
        raise ValueError(f"max count must be in 1..30, got {max_count!r}")
    depth = be.truncation_depth(g)
    table = np.zeros((m, m))
    for a in range(1, m + 1):
        yield JobProgress(a - 1, m, f"Gittins index at discount {g:g}: a = {a} of {m}")
        table[a - 1] = be.gittins_indices(np.full(m, float(a)), np.arange(1, m + 1, dtype=np.float64), g, depth=depth, tol=tol)
    yield JobProgress(m, m, "Gittins index: done")
    table.flags.writeable = False
    return table


def lesson(settings: BanditSettings, mdp: TabularMDP | None = None, *, start: int | None = None,
           state_name: Callable[[int], str] | None = None, **_names: Any):
    """The bandit's lesson: the belief MDP in our words, its facts, the Bayes-optimal value and the Gittins index."""
    from mdpviz.models.kit.teaching.lessons import Block, doc_paragraphs, mdp_lesson, parameters_of

    if mdp is None:
        try:
            mdp = compile_bandit(settings)
        except ValueError:
            mdp = None
    k, h = int(settings.arms), int(settings.horizon)
    a, b = (float(x) for x in settings.prior)
    return mdp_lesson(
        mdp,
        title=f"Bernoulli bandit as a belief MDP ({k} arms, {h} pulls, Beta({a:g}, {b:g}) prior)",
        intro=doc_paragraphs(bd, "A k-armed bandit", "So a state is", "The transitions pay") + (
            Block("p", "Sutton and Barto's chapter 2 compares heuristics (epsilon-greedy, UCB, gradient bandits, "
                       "Thompson sampling); section 2.10 notes that the Bayes-optimal balance of exploring and "
                       "exploiting is computable in principle over the posteriors, and that is what this model "
                       "does. Step value iteration: sweep k makes exact every belief at most k pulls from the "
                       "horizon (the tree's rows fill in from the bottom), so the horizon's number of sweeps "
                       "solves it. The tree colours each belief by its value and marks its Bayes-optimal pull."),
            Block("p", "The Gittins tab gives, for a discount gamma < 1 and no horizon, the index of an arm "
                       "whose posterior is Beta(a, b): the sure reward per pull at which one would be indifferent "
                       "between it and the unknown arm. Pulling the arm of highest index is optimal (Gittins' "
                       "theorem); Beta(1, 1) at gamma 0.9 has index 0.7029, well above its mean 0.5: the "
                       "value of information. `mdpviz bandit --gittins --discount 0.9 --json` prints the table, "
                       "`mdpviz bandit --bernoulli --arms 2 --horizon 8 --exact --json` the Bayes-optimal value.")),
        states=f"A belief: the success and failure counts of each of the {k} arms, after 0..{h} pulls.",
        actions=f"Pull arm 1 .. arm {k}.",
        transitions=("Pulling arm i succeeds with the posterior mean (a + s_i) / (a + b + s_i + f_i) and adds a "
                     "success, else adds a failure."),
        rewards="1 for a success, 0 for a failure (the value is the expected number of successes).",
        discount_why="nothing is discounted: V is the expected total reward over the horizon." if settings.discount == 1 else "",
        parameters=parameters_of(settings),
        start=0 if start is None else start,
        state_name=state_name or (lambda s: bd.state_label(settings, s)),
        action_name=lambda i: f"pull arm {int(i) + 1}",
        where="the prior's belief",
        sources=("mdpviz.models.bandit.rules", "mdpviz.solvers.bandit_exact"),
    )


def _state_name(ctx: hooks.Context, s: int) -> str:
    return hooks.label_of(ctx.mdp, s) or bd.state_label(ctx.settings, s)


SPEC = GameSpec(
    key="bandit",
    title="Bernoulli bandit (belief MDP)",
    value_label="expected total reward",
    unit="return",
    settings_type=BanditSettings,
    default_settings=BanditSettings,
    compile=compile_bandit,
    jobs={"gittins": gittins_job},
    model=ModelHooks(with_discount=hooks.set_discount),
    names=NameHooks(state_name=_state_name),
    episodes=EpisodeHooks(start_state=lambda ctx: 0),
    display=DisplayHooks(color_kind=SEQUENTIAL, lesson=lesson),
)
"""The Bernoulli bandit's belief MDP (issue 39) in the registry."""

__all__ = ["SPEC", "gittins_job", "lesson"]
