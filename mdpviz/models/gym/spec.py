"""Gymnasium environments as the registry sees them: strategies, simulation, lesson and :data:`SPEC`."""
from __future__ import annotations
from typing import Any, Callable, Generator
import numpy as np
from mdpviz.models.kit.registry import SEQUENTIAL, GameSpec, JobProgress
from mdpviz.models.kit.grid import walk_simulation
from mdpviz.models.kit.strategies import two_strategy_probs
from mdpviz.models.mdp import TabularMDP
from mdpviz.models.kit.strategies import SimulationResult
from mdpviz.models.gym.rules import (  # noqa: F401
    GymState,
    compile_gym,
    import_env,
)


def strategies(state: GymState, mdp: TabularMDP) -> tuple[str, ...]:
    """The strategies the simulation compares: optimal and random."""
    return ("optimal", "random")


def strategy_probs(state: GymState, name: str, mdp: TabularMDP, optimal_policy) -> np.ndarray:
    """Action probabilities of "optimal" or "random"."""
    return two_strategy_probs(state, name, mdp, optimal_policy)


def _label(mdp: TabularMDP, s: int) -> str:
    return mdp.state_labels[s] if mdp.state_labels is not None and 0 <= s < mdp.n_states else str(s)


def simulate(state: GymState, mdp: TabularMDP, policy=None, *, games: int, seed,
             start: int | None = None) -> Generator[JobProgress, None, SimulationResult]:
    """Optimal and random from ``start`` (default: the environment's most likely start, which imports
    it), ``games`` episodes each, beside their exact values."""
    start = import_env(state).start if start is None else int(start)
    return (yield from walk_simulation(mdp, strategies(state, mdp), lambda n, opt: strategy_probs(state, n, mdp, opt),
                                       policy, games=games, seed=seed, start=start, start_name=_label(mdp, start)))


def lesson(state: GymState, mdp: TabularMDP | None = None, *, start: int | None = None,
           state_name: Callable[[int], str] | None = None, **_names: Any):
    """The environment's lesson: this module's account of the import, then the model's facts."""
    from mdpviz.models.gym import rules
    from mdpviz.models.kit.lessons import Block, clean_rst, mdp_lesson, parameters_of

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


def default_settings() -> GymState:
    """The window's first environment: FrozenLake 4x4, slippery (the kwargs spelled out, so the scenario
    file a teacher saves says which map it is)."""
    return GymState("FrozenLake-v1", (("map_name", "'4x4'"), ("is_slippery", "True")))


SPEC = GameSpec(
    key="gym",
    title="Gymnasium environment",
    value_label="value V(s)",
    unit="return",
    settings_type=GymState,
    default_settings=default_settings,
    compile=compile_gym,
    color_kind=SEQUENTIAL,
    strategies=strategies,
    strategy_probs=strategy_probs,
    lesson=lesson,
    jobs={"simulate": simulate},
)
"""Gymnasium's toy-text environments in the registry (compile imports Gymnasium; importing this does
not). ``jobs["simulate"](state, mdp, policy, games=, seed=, start=)``."""


__all__ = ['SPEC', 'lesson', 'simulate', 'strategies', 'strategy_probs']
