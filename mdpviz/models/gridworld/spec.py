"""Grid worlds as the registry sees them: settings codec, strategies, simulation, lesson and :data:`SPEC`."""
from __future__ import annotations
import os
from dataclasses import replace
from typing import Any, Callable, Generator

import numpy as np
from mdpviz.core.files import ScenarioError
from mdpviz.models.kit.game.codec import as_object, from_data, to_data
from mdpviz.models.kit.game import hooks
from mdpviz.models.kit.game.hooks import simulation_from_start, walk_episode
from mdpviz.models.kit.game.registry import DisplayHooks, EpisodeHooks, GameSpec, JobProgress, ModelHooks, NameHooks, SEQUENTIAL, ScenarioCodec
from mdpviz.core.mdp import TabularMDP
from mdpviz.models.kit.boards.strategies import SimulationResult
from mdpviz.models.gridworld.rules import (  # noqa: F401
    ACTION_NAMES,
    CONVENTIONS,
    CONVENTION_RULES,
    GridFileError,
    GridSettings,
    GridWorld,
    NUMBERED_MAPS,
    compile_gridworld,
    parse_grid,
    state_name,
)
from mdpviz.models.kit.boards.grid import max_steps, walk_simulation  # noqa: F401
from mdpviz.models.kit.boards.strategies import settings_strategy_probs as strategy_probs  # the one shared rule


def settings_to_dict(settings: GridSettings) -> dict[str, Any]:
    """The settings as scenario data: the generic codec's, with the grid as its map's text and name."""
    # extra: the grid is stored as the text of parse_grid and its name, not as GridMap's tuples of cells; a world
    # that never changes writes no switch_map / switch_after (the scenarios written before them stay byte-identical)
    data = to_data(settings, skip=("grid",))
    if not settings.switch_map and not settings.switch_after:
        data.pop("switch_map", None), data.pop("switch_after", None)
    return {"map": settings.grid.to_text(), "name": settings.grid.name, **data}


def settings_from_dict(data: dict[str, Any], path: str | os.PathLike = "<scenario>") -> GridSettings:
    """The :class:`GridSettings` of :func:`settings_to_dict` data (the map parsed); ScenarioError naming the field."""
    where = "games.gridworld"
    data = as_object(data, path, where)
    text, name = data.get("map"), data.get("name")
    if not isinstance(text, str):
        raise ScenarioError(path, f"{where}.map", "must be the map's text")
    if name is not None and not isinstance(name, str):
        raise ScenarioError(path, f"{where}.name", f"must be a string, got {name!r}")
    try:
        grid = parse_grid(text, "<map>")
    except GridFileError as e:
        raise ScenarioError(path, f"{where}.map", str(e)) from None
    grid = grid if name is None else replace(grid, name=name)
    return from_data(GridSettings, data, path, where, given={"grid": grid}, ignore=("map", "name"))


# ---------------------------------------------------------------------------------- the spec
def strategies(settings: GridSettings, mdp: TabularMDP) -> tuple[str, ...]:
    """The strategies the simulation compares: optimal and random."""
    return ("optimal", "random")






def simulate(settings: GridSettings, mdp: TabularMDP, policy=None, *, games: int, seed,
             start: int | None = None) -> Generator[JobProgress, None, SimulationResult]:
    """Optimal and random from the start cell (or ``start``), ``games`` episodes each, beside their exact values."""
    world = compile_gridworld(settings)
    start = world.start_state if start is None else int(start)
    return (yield from walk_simulation(mdp, strategies(settings, mdp), lambda n, opt: strategy_probs(settings, n, mdp, opt),
                                       policy, games=games, seed=seed, start=start,
                                       start_name=state_name(world.geometry, settings.convention, start)))


def lesson(settings: GridSettings, mdp: TabularMDP | None = None, *, start: int | None = None,
           state_name: Callable[[int], str] | None = None, **_names: Any):
    """The grid world's lesson: the rules and both conventions (this module's docstring)."""
    from mdpviz.models.gridworld import rules as gw_rules

    from mdpviz.models.kit.teaching.lessons import Block, doc_paragraphs, mdp_lesson, parameters_of

    world: GridWorld | None
    try:
        world = compile_gridworld(settings)
    except ValueError:
        world = None
    if start is None:
        start = world.start_state if world is not None else 0
    if state_name is None:
        geom = None if world is None else world.geometry
        state_name = lambda s: _state_name(geom, settings.convention, s)  # noqa: E731
    other = next(k for k in CONVENTIONS if k != settings.convention)  # (the lesson names one other convention)
    return mdp_lesson(
        mdp,
        title=f"Grid world ({settings.grid.name or 'custom'}, {settings.convention.upper()} convention)",
        intro=doc_paragraphs(gw_rules, "A grid world is") + (
            Block("p", "Three conventions are in use; for the same map and settings the first two give the same "
                       "values and differ in the exit step, the third pays an exit undiscounted on arrival."),
            Block("p", f"Shown here: {CONVENTION_RULES[settings.convention]}"),
            Block("p", f"The other one: {CONVENTION_RULES[other]}")),
        states=("A state is an open or exit cell" + (" plus the absorbing \u201cexited\u201d state."
                                                      if settings.convention == "cs188" else "; exit cells are terminal.")),
        actions=("north, east, south, west from an open cell" + ("; \u201cexit\u201d from an exit cell."
                                                                 if settings.convention == "cs188" else ".")),
        transitions=f"The intended direction with probability {1 - settings.noise:g}, each perpendicular one with "
                    f"{settings.noise / 2:g}; a wall or the edge leaves the agent where it is.",
        rewards=(f"Living reward {settings.living_reward:g} per move from an open cell"
                 + (f" ({own} cell{'' if own == 1 else 's'} with an own reward, which replaces it there)" if (own := sum(
                     1 for row in settings.grid.cells for x in row if gw_rules.own_reward(x) is not None)) else "")
                 + "; an exit pays its number"
                 + (" (with the exit action)." if settings.convention == "cs188" else
                    " on arrival, undiscounted (its terminal state's value is 0)." if settings.convention == "sutton" else
                    " as R(s) of its terminal state (a move into it pays R(s) + \u03b3 R(s\u2032)).")
                 + (f" The world changes to the map {settings.switch_map} after {settings.switch_after:,} real steps "
                    "of a learner (Sutton and Barto 8.3)." if settings.switch_map and settings.switch_after else "")),
        parameters=parameters_of(settings, skip=("grid",)),
        start=start, state_name=state_name,
        action_name=(lambda a: ACTION_NAMES[a]), where="the start cell",
        sources=("mdpviz.models.gridworld.rules",),
    )


_state_name = state_name


def _compile_mdp(settings: GridSettings) -> TabularMDP:
    return compile_gridworld(settings).mdp



def grid_coordinates(settings: Any, mdp: TabularMDP):
    """The states' two coordinates, (row, column) of their cell counted from 1 as the labels write them, scaled
    from [1, rows] and [1, columns]; CS188's "exited" state has none (a row of NaN). What tile coding and the
    board's blocks of state aggregation are built over (Sutton and Barto section 9.5)."""
    from mdpviz.models.gridworld.rules import WALL
    from mdpviz.solvers.features import Coordinates  # (lazily: the features module is the solvers' layer)

    g = settings.validate().grid
    cells = [(r + 1.0, c + 1.0) for r in range(g.rows) for c in range(g.cols) if g.cells[r][c] != WALL]
    values = np.full((mdp.n_states, 2), np.nan)
    values[:len(cells)] = np.array(cells, dtype=np.float64).reshape(-1, 2)
    low = np.array([1.0, 1.0])
    high = np.array([float(max(g.rows, 2)), float(max(g.cols, 2))])
    for a in (values, low, high):
        a.setflags(write=False)
    return Coordinates(("row", "column"), values, low, high)


SPEC = GameSpec(
    key="gridworld",
    title="Grid world",
    value_label="value V(s)",
    unit="return",
    settings_type=GridSettings,
    default_settings=GridSettings,
    compile=_compile_mdp,
    jobs={"simulate": simulate},
    model=ModelHooks(
        build=compile_gridworld,
        with_discount=hooks.set_discount,
        solve_with=lambda settings: (("evaluate", {"tol": 1e-9}) if settings.grid.name in NUMBERED_MAPS else ("vi", {"tol": 1e-9})),
        coordinates=lambda settings, mdp: grid_coordinates(settings, mdp),
        switch=lambda settings, built: (None if built.after is None or not settings.switch_after
                                        else (built.after.mdp, int(settings.switch_after))),
    ),
    names=NameHooks(
        state_name=lambda ctx, s: state_name(ctx.built.geometry, ctx.settings.convention, s),
    ),
    episodes=EpisodeHooks(
        strategies=strategies,
        strategy_probs=strategy_probs,
        start_state=lambda ctx: int(ctx.built.start_state),
        episode=walk_episode,
        simulation=simulation_from_start,
    ),
    display=DisplayHooks(
        color_kind=SEQUENTIAL,
        lesson=lesson,
    ),
    codec=ScenarioCodec(
        to_dict=settings_to_dict,
        from_dict=settings_from_dict,
    ),
)
"""The grid world in the registry. ``jobs["simulate"](settings, mdp, policy, games=, seed=, start=)``."""


__all__ = ['SPEC', 'lesson', 'max_steps', 'settings_from_dict', 'settings_to_dict', 'simulate', 'strategies', 'strategy_probs', 'walk_simulation']
