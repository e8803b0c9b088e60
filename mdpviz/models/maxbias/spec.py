"""Maximization bias (Example 6.7) as the registry sees it: lesson and :data:`SPEC`.

Scenario data is the generic codec's over :class:`~mdpviz.models.maxbias.rules.MaxBiasSettings`
(``n_actions_b``, ``mean``, ``sd``, ``discount``). The exact answer (any solver) uses the mean reward;
the learners sample B's rewards from N(mean, sd^2) (the model's ``reward_sd``). Plain numpy; never imports Qt.
"""
from __future__ import annotations

from typing import Any, Callable

from mdpviz.core.mdp import TabularMDP
from mdpviz.models.kit.game import hooks
from mdpviz.models.kit.game.registry import DisplayHooks, EpisodeHooks, GameSpec, ModelHooks, SEQUENTIAL
from mdpviz.models.maxbias import rules as mb
from mdpviz.models.maxbias.rules import MaxBiasSettings, compile_maxbias


def lesson(settings: MaxBiasSettings, mdp: TabularMDP | None = None, *, start: int | None = None,
           state_name: Callable[[int], str] | None = None, **_names: Any):
    """Example 6.7 in our words, the model's facts, and how to see figure 6.5 (Q-learning against Double
    Q-learning)."""
    from mdpviz.models.kit.teaching.lessons import Block, doc_paragraphs, mdp_lesson, parameters_of

    if mdp is None:
        try:
            mdp = compile_maxbias(settings)
        except ValueError:
            mdp = None
    n = int(settings.n_actions_b)
    return mdp_lesson(
        mdp,
        title=f"Maximization bias (Example 6.7: {n} actions in B, rewards N({settings.mean:g}, {settings.sd:g}\u00b2))",
        intro=doc_paragraphs(mb, "An episode starts", "So the expected") + (
            Block("p", "Learn it with Q-learning, then with Double Q-learning (epsilon 0.1, alpha 0.1, as figure "
                       "6.5): the share of episodes that go left from A stays far above the 5% that exploration "
                       "alone explains for Q-learning, and falls to it for Double Q-learning. `mdpviz learn "
                       "--game maxbias --method q` and `--method double-q` print the learned Q of A."),),
        states="A (the start), B, and the end.",
        actions=f"In A: right or left. In B: b0 .. b{n - 1}.",
        transitions="Right and every action of B end the episode; left goes to B. Nothing is random but B's rewards.",
        rewards=(f"0 for right and left; each action of B pays a reward drawn from N({settings.mean:g}, {settings.sd:g}\u00b2) "
                 f"when learning, while the exact values below use its mean {settings.mean:g}."),
        discount_why="nothing is discounted, as in the book." if settings.discount == 1 else "",
        parameters=parameters_of(settings),
        start=mb.A if start is None else start,
        state_name=state_name or (lambda s: ("A", "B", "end")[s]),
        action_name=lambda a: mb.action_names(n)[a],
        where="A",
        sources=("mdpviz.models.maxbias.rules",),
    )


SPEC = GameSpec(
    key="maxbias",
    title="Maximization bias",
    value_label="expected return",
    unit="return",
    settings_type=MaxBiasSettings,
    default_settings=MaxBiasSettings,
    compile=compile_maxbias,
    model=ModelHooks(with_discount=hooks.set_discount),
    episodes=EpisodeHooks(start_state=lambda ctx: mb.A),
    display=DisplayHooks(color_kind=SEQUENTIAL, lesson=lesson),
)
"""Maximization bias (Sutton and Barto, Example 6.7) in the registry."""

__all__ = ["SPEC", "lesson"]
