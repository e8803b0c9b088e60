"""Gymnasium environments as the registry sees them: strategies, simulation, lesson and :data:`SPEC`."""
from __future__ import annotations
from dataclasses import replace
from typing import Any, Callable, Generator
from mdpviz.models.kit.game.registry import DisplayHooks, EpisodeHooks, GameSpec, JobProgress, ModelHooks, SEQUENTIAL
from mdpviz.models.kit.boards.grid import walk_simulation
from mdpviz.core.mdp import TabularMDP
from mdpviz.models.kit.boards.strategies import SimulationResult
from mdpviz.models.gym.rules import (  # noqa: F401
    GymSettings,
    ImportedEnv,
    compile_gym,
    import_env,
)
from mdpviz.models.kit.game.hooks import simulation_from_start, walk_episode
from mdpviz.models.kit.boards.strategies import settings_strategy_probs as strategy_probs  # the one shared rule


def strategies(state: GymSettings, mdp: TabularMDP) -> tuple[str, ...]:
    """The strategies the simulation compares: optimal and random."""
    return ("optimal", "random")


def _label(mdp: TabularMDP, s: int) -> str:
    return mdp.state_labels[s] if mdp.state_labels is not None and 0 <= s < mdp.n_states else str(s)


def simulate(state: GymSettings, mdp: TabularMDP, policy=None, *, games: int, seed,
             start: int | None = None) -> Generator[JobProgress, None, SimulationResult]:
    """Optimal and random from ``start`` (default: the environment's most likely start, which imports
    it), ``games`` episodes each, beside their exact values."""
    start = import_env(state).start if start is None else int(start)
    return (yield from walk_simulation(mdp, strategies(state, mdp), lambda n, opt: strategy_probs(state, n, mdp, opt),
                                       policy, games=games, seed=seed, start=start, start_name=_label(mdp, start)))


def lesson(state: GymSettings, mdp: TabularMDP | None = None, *, start: int | None = None,
           state_name: Callable[[int], str] | None = None, **_names: Any):
    """The environment's lesson: this module's account of the import, then the model's facts."""
    from mdpviz.models.gym import rules
    from mdpviz.models.kit.teaching.lessons import Block, clean_rst, mdp_lesson, parameters_of

    if start is None:
        start = import_env(state).start if mdp is not None else 0
    if state_name is None and mdp is not None:
        state_name = lambda s: _label(mdp, s)  # noqa: E731
    return mdp_lesson(
        mdp, title=f"Gymnasium: {state.env_id}",
        intro=(Block("p", clean_rst(" ".join(rules.__doc__.split("\n\n")[1].split()))),
               Block("p", "Each listed outcome of env.unwrapped.P[s][a] is a transition; an outcome marked "
                     "terminated goes to one absorbing state (value 0); a time limit is not termination.")),
        parameters=parameters_of(state), start=start, state_name=state_name,
        sources=("mdpviz.models.gym.rules",))


def default_settings() -> GymSettings:
    """The window's first environment: FrozenLake 4x4, slippery (the kwargs spelled out, so the scenario
    file a teacher saves says which map it is)."""
    return GymSettings("FrozenLake-v1", (("map_name", "'4x4'"), ("is_slippery", "True")))


# ---------------------------------------------------------------------------------- the window's hooks
WINDOW_MAX_PAIRS = 200_000
"""Largest (state, action) count the window imports from an environment (it imports on the GUI thread)."""


def window_import(state: GymSettings) -> ImportedEnv:
    """The environment of ``state`` imported as the window does (at most :data:`WINDOW_MAX_PAIRS` pairs;
    ValueError with a one-line reason)."""
    return import_env(state, max_pairs=WINDOW_MAX_PAIRS,
                      too_many=f"the window imports ({WINDOW_MAX_PAIRS:,}); use mdpviz gym on the command line")


def _mdp_of(state: GymSettings, env: ImportedEnv) -> TabularMDP:
    m = env.mdp
    return m if m.discount == state.discount else replace(m, discount=float(state.discount))


SPEC = GameSpec(
    key="gym",
    title="Gymnasium environment",
    value_label="value V(s)",
    unit="return",
    settings_type=GymSettings,
    default_settings=default_settings,
    compile=compile_gym,
    jobs={"simulate": simulate},
    model=ModelHooks(
        build=window_import,
        build_key=lambda state: (state.env_id, state.kwargs),  # imported once per environment, whatever the discount
        mdp_of=_mdp_of,
        with_discount=lambda ctx, gamma: replace(ctx.settings, discount=gamma),
    ),
    episodes=EpisodeHooks(
        strategies=strategies,
        strategy_probs=strategy_probs,
        start_state=lambda ctx: int(ctx.built.start),
        episode=walk_episode,
        simulation=simulation_from_start,
    ),
    display=DisplayHooks(
        color_kind=SEQUENTIAL,
        lesson=lesson,
    ),
)
"""Gymnasium's toy-text environments in the registry (compile imports Gymnasium; importing this does
not). ``jobs["simulate"](state, mdp, policy, games=, seed=, start=)``."""


__all__ = ['SPEC', 'WINDOW_MAX_PAIRS', 'default_settings', 'lesson', 'simulate', 'strategies', 'strategy_probs', 'window_import']
