"""Jack's car rental as the registry sees it: lesson, simulation and :data:`SPEC`.

Scenario data is the generic codec's over :class:`~mdpviz.models.jack.rules.JackSettings` (``max_cars``,
``max_move``, ``move_cost``, ``rental_reward``, ``request_means``, ``return_means``, ``discount``,
``free_shuttle``, ``parking_limit``, ``parking_cost``). Plain numpy; never imports Qt.
"""
from __future__ import annotations

from typing import Any, Callable, Generator

from mdpviz.models.jack import rules as jr
from mdpviz.models.jack.rules import JackSettings, compile_jack, move_of, state_of
from mdpviz.models.kit.boards.grid import walk_simulation
from mdpviz.models.kit.game import hooks
from mdpviz.models.kit.game.registry import DisplayHooks, EpisodeHooks, GameSpec, JobProgress, ModelHooks, SEQUENTIAL
from mdpviz.models.kit.boards.strategies import SimulationResult
from mdpviz.models.kit.boards.strategies import settings_strategy_probs as strategy_probs  # the one shared rule
from mdpviz.core.mdp import TabularMDP


def strategies(settings: JackSettings, mdp: TabularMDP) -> tuple[str, ...]:
    """The strategies the simulation compares: optimal and random moves."""
    return ("optimal", "random")


def start_state(settings: JackSettings) -> int:
    """Where episodes start: half the cars at each location (10, 10)."""
    half = settings.max_cars // 2
    return state_of(half, half, settings.max_cars)


def simulate(settings: JackSettings, mdp: TabularMDP, policy=None, *, games: int, seed,
             start: int | None = None) -> Generator[JobProgress, None, SimulationResult]:
    """Optimal and random moves from (10, 10) (or ``start``), ``games`` runs each of as many days as the
    discount leaves worth counting (until gamma^t < 1e-9)."""
    start = start_state(settings) if start is None else int(start)
    i, j = jr.cars_of(start, settings.max_cars)
    return (yield from walk_simulation(mdp, strategies(settings, mdp), lambda n, opt: strategy_probs(settings, n, mdp, opt),
                                       policy, games=games, seed=seed, start=start, start_name=f"({i}, {j})"))


EXACT_NOTE = ("The book's figure 4.2 draws V_4 on an axis from 420 to 612: its values come from a model whose "
              "Poisson tails were cut off. Counted exactly (a request beyond the cars available rents them all, "
              "a return beyond 20 cars is lost), the optimal values run from about 421 at (0, 0) to about 637 at "
              "(20, 20) (421.41 and 636.99, measured here with policy iteration); the policies pi_0..pi_4 have the "
              "figure's shapes, and pi_4 is optimal (a fifth improvement changes nothing).")
"""Why this model's values differ from figure 4.2's axis (the lesson and the README say so)."""


def lesson(settings: JackSettings, mdp: TabularMDP | None = None, *, start: int | None = None,
           state_name: Callable[[int], str] | None = None, **_names: Any):
    """Jack's lesson: Example 4.2 in our words, the exact day, the Bellman equation with its numbers."""
    from mdpviz.models.kit.teaching.lessons import Block, doc_paragraphs, mdp_lesson, parameters_of

    if mdp is None:
        try:
            mdp = compile_jack(settings)
        except ValueError:
            mdp = None
    N = settings.max_cars
    variant = (f" Exercise 4.7's variant is on: the first car moved from the first location to the second is "
               f"free, and each location keeping more than {settings.parking_limit} cars overnight pays "
               f"${settings.parking_cost:g}." if settings.free_shuttle else "")
    return mdp_lesson(
        mdp,
        title="Jack's car rental" + (" (Exercise 4.7)" if settings.free_shuttle else ""),
        intro=doc_paragraphs(jr, "Jack manages", "The day is counted", "Exercise 4.7's variant") + (
            Block("p", "Sutton and Barto solve it by policy iteration (figure 4.2): pi_0 moves no car; each Step "
                       "of policy iteration evaluates the policy (V of pi_k) and improves it (pi_{k+1} greedy with "
                       "respect to that V). The board draws each policy as the book's contour map of cars moved "
                       "over the (cars at the first, cars at the second) plane, on a heatmap of V."),
            Block("p", EXACT_NOTE)),
        states=f"A state is (cars at the first location i, cars at the second j), 0..{N} each, numbered "
               f"{N + 1} i + j.",
        actions=f"Net cars moved overnight from the first location to the second, \u2212{settings.max_move}..{settings.max_move}, "
                "as far as the cars are there.",
        transitions=("Requests and returns at each location are Poisson (means "
                     f"{settings.request_means[0]:g} and {settings.request_means[1]:g} requests, {settings.return_means[0]:g} and "
                     f"{settings.return_means[1]:g} returns), the two locations independent, the tails counted exactly."),
        rewards=(f"${settings.rental_reward:g} per car rented (expected), less ${settings.move_cost:g} per car moved." + variant),
        discount_why=f"the problem never ends: a dollar tomorrow is worth {settings.discount:g} today.",
        parameters=parameters_of(settings),
        start=start_state(settings) if start is None else start,
        state_name=state_name or (lambda s: "({}, {})".format(*jr.cars_of(s, N))),
        action_name=lambda a: mdp.action_labels[a] if mdp is not None else f"move {move_of(a)}",
        where="(10, 10)" if N == 20 else "the middle state",
        sources=("mdpviz.models.jack.rules",),
    )



def compile_job(settings: JackSettings) -> Generator[JobProgress, None, TabularMDP]:
    """The job that compiles the model of ``st`` off the GUI thread (1.9 million transitions: about a
    second, which froze the window at every edit when it ran there)."""
    yield JobProgress(0, 0, f"Compiling Jack's car rental ({settings.max_cars + 1} x {settings.max_cars + 1} states)\u2026")
    return compile_jack(settings)


SPEC = GameSpec(
    key="jack",
    title="Jack's car rental",
    value_label="expected discounted profit ($)",
    unit="dollars",
    settings_type=JackSettings,
    default_settings=JackSettings,
    compile=compile_jack,
    jobs={"compile": compile_job, "simulate": simulate},
    model=ModelHooks(
        with_discount=hooks.set_discount,
        solve_with=lambda settings: ("pi", {}),  # figure 4.2: policy iteration from pi_0 = move nothing
    ),
    episodes=EpisodeHooks(
        strategies=strategies,
        strategy_probs=strategy_probs,
        start_state=lambda ctx: start_state(ctx.settings),
    ),
    display=DisplayHooks(
        color_kind=SEQUENTIAL,
        lesson=lesson,
    ),
)
"""Jack's car rental (Sutton and Barto, Example 4.2; Exercise 4.7 with ``free_shuttle``) in the registry."""

__all__ = ["EXACT_NOTE", "SPEC", "lesson", "simulate", "start_state", "strategies", "strategy_probs"]
