"""A game of the registry built headless from its settings: :class:`GameModel` and :func:`build_game`.

The window's session builds a game's model from its settings (caching it, compiling in a job where the
spec says so); the command line, tests and grading scripts need the same model with no window:
:func:`build_game` builds it here and now, on the calling thread (a compile job runs to its end as the
window's job thread would run it), and the :class:`GameModel` answers what the spec's hooks answer in
the window: the state and action names, the start state. Plain Python; never imports Qt.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Mapping

from mdpviz.core.jobs import drive
from mdpviz.models.kit.game import registry
from mdpviz.models.kit.game.hooks import Context
from mdpviz.core.mdp import TabularMDP

DEFAULT_SOLVE: tuple[str, Mapping[str, Any]] = ("vi", {"tol": 1e-9})
"""(method, options) of a game whose spec names no :attr:`~mdpviz.models.kit.game.registry.GameSpec.solve_with`:
synchronous value iteration to 1e-9, the window's first algorithm."""


@dataclass(frozen=True, eq=False)
class GameModel:
    """One game's settings and the model they build, with the game's own names for its states and actions."""

    spec: Any
    """The game's :class:`~mdpviz.models.kit.game.registry.GameSpec`."""
    settings: Any
    """What the model was built from: the settings (validated), or what a game's driver makes of them."""
    built: Any
    """What the spec built from them (its ``build``, else the MDP itself)."""
    mdp: TabularMDP
    """The compiled model."""
    driver: Any = None
    """The game's :class:`~mdpviz.models.kit.game.driver.Driver` (rounds), or None."""

    @property
    def key(self) -> str:
        return self.spec.key

    @cached_property
    def context(self) -> Context:
        """What the spec's hooks see (as the window's session would show them, without display settings)."""
        display = self.spec.display({}, "") if self.spec.display is not None else {}
        return Context(self.spec, self.settings, self.built, self.mdp, display, self.driver)

    def state_labels(self) -> list[str]:
        """One name per state, in the model's state order (the names the window's inspector shows)."""
        return [self.spec.state_name(self.context, s) for s in range(self.mdp.n_states)]

    def action_label(self, s: int, a: int) -> str:
        """Action ``a`` of state ``s`` in the game's words."""
        return self.spec.action_name(self.context, int(a))

    def start_state(self) -> int:
        """Where the game starts (episodes, simulations, the lesson's worked example)."""
        return int(self.spec.start_state(self.context))

    def solve_defaults(self) -> tuple[str, dict[str, Any]]:
        """(method, options) the game is solved with when nothing else is asked."""
        method, opts = (self.spec.solve_with(self.settings) if self.spec.solve_with is not None else DEFAULT_SOLVE)
        return str(method), dict(opts)


def build_game(key: str, settings: Any = None) -> GameModel:
    """Game ``key`` (any spelling the registry accepts) built from ``settings`` (default: the game's
    defaults) on the calling thread. ValueError: an unknown key (naming the choices), a game without a
    table (saying why), or settings that do not build (the game's own words)."""
    spec = registry.get(registry.canonical(key))
    if spec.no_table:
        raise ValueError(f"game {spec.key!r} has no table of states to solve: {spec.no_table}")
    settings = spec.default_settings() if settings is None else settings
    driver = None
    if spec.driver is not None:  # a game with rounds builds what its driver makes of the settings
        driver = spec.driver()
        driver.settings_changed(settings)
    inp = settings if driver is None else driver.model_input(settings)
    if "compile" in spec.jobs:
        built = drive(spec.jobs["compile"](inp))
    elif spec.build is not None:
        built = spec.build(inp)
    else:
        built = spec.compile(inp)
    if built is None:
        raise ValueError(f"game {spec.key!r}: its settings build no model")
    if spec.mdp_of is not None:
        mdp = spec.mdp_of(inp, built)
    else:
        mdp = built if isinstance(built, TabularMDP) else built.mdp
    if mdp is None:
        raise ValueError(f"game {spec.key!r}: its settings build no model")
    return GameModel(spec, inp, built, mdp, driver)


__all__ = ["DEFAULT_SOLVE", "GameModel", "build_game"]
