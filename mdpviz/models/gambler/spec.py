"""The gambler's problem as the registry sees it: lesson, simulation and :data:`SPEC`.

Scenario data is the generic codec's over :class:`~mdpviz.models.gambler.rules.GamblerSettings`
(``p_heads``, ``goal``, ``discount``). Plain numpy; never imports Qt.
"""
from __future__ import annotations

from typing import Any, Callable, Generator

from mdpviz.models.gambler import rules as gb
from mdpviz.models.gambler.rules import GamblerSettings, compile_gambler
from mdpviz.models.kit.boards.grid import walk_simulation
from mdpviz.models.kit.game import hooks
from mdpviz.models.kit.game.registry import DisplayHooks, EpisodeHooks, GameSpec, JobProgress, ModelHooks, SEQUENTIAL
from mdpviz.models.kit.boards.strategies import SimulationResult
from mdpviz.models.kit.boards.strategies import settings_strategy_probs as strategy_probs  # the one shared rule
from mdpviz.core.mdp import TabularMDP


def strategies(settings: GamblerSettings, mdp: TabularMDP) -> tuple[str, ...]:
    """The strategies the simulation compares: optimal and random stakes."""
    return ("optimal", "random")


def start_capital(settings: GamblerSettings) -> int:
    """Where episodes start: half the goal (capital 50 of 100)."""
    return int(settings.goal) // 2


def simulate(settings: GamblerSettings, mdp: TabularMDP, policy=None, *, games: int, seed,
             start: int | None = None) -> Generator[JobProgress, None, SimulationResult]:
    """Optimal and random stakes from half the goal (or ``start``), ``games`` episodes each: the mean
    return is the fraction of games that reached the goal."""
    start = start_capital(settings) if start is None else int(start)
    return (yield from walk_simulation(mdp, strategies(settings, mdp), lambda n, opt: strategy_probs(settings, n, mdp, opt),
                                       policy, games=games, seed=seed, start=start, start_name=f"capital {start}"))


TIE_NOTE = ("Many capitals have several optimal stakes (their Q-values are equal to within rounding): "
            "at p_heads = 0.4 and a goal of 100, capital 51 can stake 1 or 49, for example. Figure 4.3's "
            "policy, with its spikes at 25, 50 and 75, is one of these optimal policies, the one that takes the "
            "smallest of the tied stakes; the solvers here break ties the same way, and the board draws every "
            "tied stake as a dot above the drawn one's bar. Questions of the form \u201cmy code gives another "
            "policy than the book's\u201d are usually this: both are optimal.")
"""The tie rule, in the lesson and the board's caption."""


def lesson(settings: GamblerSettings, mdp: TabularMDP | None = None, *, start: int | None = None,
           state_name: Callable[[int], str] | None = None, **_names: Any):
    """The gambler's lesson: Example 4.3 in our words, the Bellman equation with its numbers, the tie rule."""
    from mdpviz.models.kit.teaching.lessons import Block, doc_paragraphs, mdp_lesson, parameters_of

    if mdp is None:
        try:
            mdp = compile_gambler(settings)
        except ValueError:
            mdp = None
    p, goal = float(settings.p_heads), int(settings.goal)
    return mdp_lesson(
        mdp,
        title=f"The gambler's problem (p_heads = {p:g}, goal {goal})",
        intro=doc_paragraphs(gb, "A gambler bets", "States are") + (
            Block("p", "Sutton and Barto solve it by value iteration (Example 4.3, figure 4.3): the value "
                       "estimates after sweeps 1, 2 and 3 climb towards the final curve, which at p_heads = 0.4 "
                       "is a staircase: V(25) = 0.16, V(50) = 0.4, V(75) = 0.64 (a single bet of 50 at capital "
                       "50 wins with probability 0.4; at 75 the gambler stakes 25 and, on tails, is back at 50)."),
            Block("p", "With p_heads below 0.5 the coin is against the gambler, so bold play, as few flips as "
                       "possible, is optimal; with p_heads above 0.5 cautious play (stake 1) is."),
            Block("p", TIE_NOTE)),
        states=f"A state is the gambler's capital, 0..{goal} dollars; 0 and {goal} are terminal.",
        actions=f"The stake, 1..min(s, {goal} - s) dollars.",
        transitions=f"Heads (probability {p:g}): capital s + stake; tails ({1 - p:g}): capital s \u2212 stake.",
        rewards=f"+1 on reaching {goal}, 0 otherwise: with discount 1, V(s) is the probability of winning from s.",
        discount_why="nothing is discounted: V(s) is a probability of reaching the goal." if settings.discount == 1 else "",
        parameters=parameters_of(settings),
        start=start_capital(settings) if start is None else start,
        state_name=state_name or (lambda s: f"capital {s}"),
        action_name=lambda a: f"stake {gb.stake_of(a)}",
        where=f"capital {start_capital(settings)}",
        sources=("mdpviz.models.gambler.rules",),
    )



SPEC = GameSpec(
    key="gambler",
    title="Gambler's problem",
    value_label="probability of reaching the goal",
    unit="return",
    settings_type=GamblerSettings,
    default_settings=GamblerSettings,
    compile=compile_gambler,
    jobs={"simulate": simulate},
    model=ModelHooks(
        with_discount=hooks.set_discount,
        solve_with=lambda settings: ("gs", {"tol": 1e-9}),  # Sutton and Barto's value iteration sweeps in place (section 4.4)
    ),
    episodes=EpisodeHooks(
        strategies=strategies,
        strategy_probs=strategy_probs,
        start_state=lambda ctx: start_capital(ctx.settings),
    ),
    display=DisplayHooks(
        color_kind=SEQUENTIAL,
        lesson=lesson,
    ),
)
"""The gambler's problem (Sutton and Barto, Example 4.3) in the registry."""

__all__ = ["SPEC", "TIE_NOTE", "lesson", "simulate", "start_capital", "strategies", "strategy_probs"]
