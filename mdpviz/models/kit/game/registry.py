"""The games mdpviz knows, headless: one ordered registry of :class:`GameSpec` objects.

Like Gymnasium's ``register(id, entry_point=...)``, each game is one line of :data:`ENTRIES`: its
key and its title. The key names the game's folder, ``mdpviz/models/<key>/`` (its spec, ``SPEC`` in
``spec.py``, is imported on first use, so listing the games imports no game), and its view module,
``mdpviz/widgets/games/<key>.py``. The CLI, ``mdpviz export``, the lessons, the scenario files and
the window all read this one list.

This module, and every spec, imports no Qt::

    import mdpviz.models.kit.game.registry as g
    for key in g.keys():
        spec = g.get(key)
        mdp = spec.compile(spec.default_settings())   # a TabularMDP (None: the game has no table)

Adding a game: one folder ``mdpviz/models/<key>/`` (``rules.py``, and ``spec.py`` ending with
``SPEC = GameSpec(...)``), one view module ``mdpviz/widgets/games/<key>.py`` (ending with
``VIEW = <its view class>``) and one line ``(key, title)`` in :data:`ENTRIES` here.
"""
from __future__ import annotations

import importlib
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable, Iterator, Mapping

from mdpviz.models.kit.game import codec
from mdpviz.models.kit.game import hooks
from mdpviz.core.jobs import JobProgress  # noqa: F401 (what job generators yield; games import it from here)
from mdpviz.core.mdp import TabularMDP

SEQUENTIAL = "sequential"
"""Colour kind of costs and returns (one-sided scale)."""
DIVERGING = "diverging"
"""Colour kind of win/loss values (a scale centred on 0)."""


@dataclass(frozen=True)
class ScenarioCodec:
    """How a game's settings are stored in a scenario file (its entry under ``games.<key>``)."""

    to_dict: Callable[[Any], dict] | None = None
    """Settings to plain JSON data; None: the generic codec's :func:`~mdpviz.models.kit.game.codec.to_data`
    (a game gives its own only for real extras)."""
    from_dict: Callable[[dict, str], Any] | None = None
    """``from_dict(data, path)``: settings from scenario data, validated (``ScenarioError`` naming the field
    ``games.<key>.<field>``); None: the generic codec's :func:`~mdpviz.models.kit.game.codec.from_data` over
    the spec's ``settings_type``."""


@dataclass(frozen=True)
class ModelHooks:
    """How the settings build the game's model and how it is solved when nothing else is asked (what the
    headless :class:`~mdpviz.models.kit.game.game_model.Game` asks; defaults: build with the spec's ``compile``)."""

    build: Callable[[Any], Any] | None = None
    """``build(settings)``: the game built from its settings (e.g. the tic-tac-toe game with its start
    states), kept while they stay and handed to the hooks as ``ctx.built``; None: the spec's ``compile``,
    the built object is the MDP. A game with ``jobs["compile"]`` builds in that job instead (in the window:
    off the GUI thread)."""
    build_key: Callable[[Any], Hashable] | None = None
    """What building depends on when that is less than the settings (e.g. not the discount): the game then
    builds once per key and keeps the last few. None: the settings themselves."""
    mdp_of: Callable[[Any, Any], TabularMDP | None] | None = None
    """``mdp_of(settings, built)``: the MDP of the settings from what was built (None: what was built when
    it is a TabularMDP, else its ``mdp``)."""
    driver: Callable[[], Any] | None = None
    """Builds the game's :class:`~mdpviz.models.kit.game.driver.Driver` (its rounds or its training), or None."""
    solve_with: Callable[[Any], tuple[str, Mapping[str, Any]]] | None = None
    """``solve_with(settings)``: (method, options) the game is solved with when nothing else is asked (the
    window's first algorithm, ``mdpviz solve`` and ``mdpviz export`` without ``--method``, the lesson); None:
    synchronous value iteration to 1e-9 (:data:`mdpviz.models.kit.game.game_model.DEFAULT_SOLVE`)."""
    with_discount: Callable[[Any, float], Any] | None = None
    """``with_discount(ctx, gamma)``: the settings with discount ``gamma`` (ValueError if it cannot be);
    None: the game fixes its discount."""
    discount_note: str = ""
    """Why the discount is fixed (the discount field's tooltip; "": a note naming the fixed value)."""
    coordinates: Callable[[Any, TabularMDP], Any] | None = None
    """``coordinates(settings, mdp)``: the states' :class:`~mdpviz.solvers.features.Coordinates` (grid world: row
    and column; random walk: position; mountain car: position and velocity; snakes: square), what tile coding,
    polynomials and Fourier features are built over (Sutton and Barto section 9.5); None: the game has none
    (tabular, aggregation and a features file only)."""
    features: Callable[[Any, TabularMDP], Any] | None = None
    """``features(settings, mdp)``: the game's own feature matrix, float64 (n_states, d) (the "game" kind of
    features: Baird's counterexample's eight weights, Example 11.1); None: the game has none."""
    default_features: str = ""
    """The Features picker's first choice for this game (e.g. "tiles:8:0.125"); "": "tabular"."""
    policies: Callable[[Any, TabularMDP], Mapping[str, Any]] | None = None
    """``policies(settings, mdp)``: the game's own policies as row probabilities, float64 (n_rows) each, by name
    (Baird: {"target": always solid, "behaviour": dashed 6/7, solid 1/7}); None: the game names none."""
    initial_weights: Callable[[Any, TabularMDP], Any] | None = None
    """``initial_weights(settings, mdp)``: the weights the book starts the game's own features from, float64
    (d) (Baird: (1, 1, 1, 1, 1, 1, 10, 1)); for a game with :attr:`action_features`, the policy's weights theta
    over those (the short corridor: (0, ln 19), right with probability 0.05); None: zeros."""
    action_features: Callable[[Any, TabularMDP], Any] | None = None
    """``action_features(settings, mdp)``: the game's own state-action features, float64 (n_rows, d), one row per
    (state, action) row of ``mdp`` (Example 13.1: x(s, right) = (1, 0), x(s, left) = (0, 1) in every state): the
    policy-gradient learners' "game" features (h(s, a) = theta . x(s, a), eq. 13.3); None: the game's
    :attr:`features` stacked by action, if it has them."""
    switch: Callable[[Any, Any], tuple[TabularMDP, int] | None] | None = None
    """``switch(settings, built)``: the world after it changes while it is learned, ``(mdp, steps)``: a second
    model over the same states and (state, action) rows that replaces the first after ``steps`` real steps
    (Sutton and Barto 8.3's blocking and shortcut mazes); None (or a hook returning None): it never changes."""


@dataclass(frozen=True)
class NameHooks:
    """How the game names its states, actions and endings, each called with a
    :class:`~mdpviz.models.kit.game.hooks.Context` first (defaults: :mod:`mdpviz.models.kit.game.hooks`)."""

    state_name: Callable[..., str] = hooks.state_name
    """``state_name(ctx, s)``: state ``s`` in words (the inspector, the episode player, tooltips)."""
    action_name: Callable[..., str] = hooks.action_name
    """``action_name(ctx, a)``: action ``a`` in words."""
    outcome_text: Callable[..., str] = hooks.outcome_text
    """``outcome_text(ctx, s)``: how an episode that ended in terminal state ``s`` ended, in the game's words."""
    backup_terms: Callable[..., list] = hooks.backup_terms
    """``backup_terms(ctx, s, a, values)``: the outcomes of (s, a) for the inspector's Bellman backup."""


@dataclass(frozen=True)
class EpisodeHooks:
    """Where episodes start, how one is played, which strategies play them and how a batch is simulated."""

    start_state: Callable[..., int] = hooks.start_state
    """``start_state(ctx)``: where episodes, simulations and the lesson's worked example start."""
    episode: Callable[..., list] = hooks.episode
    """``episode(ctx, probs, rng)``: one played episode (:class:`~mdpviz.models.kit.boards.episodes.Move` list)."""
    simulation: Callable[..., Iterator] = hooks.simulation
    """``simulation(ctx, policy, games=, seed=)``: the window's batch simulation, a job generator (its
    arguments checked at once: ValueError); ``policy``: the converged one, or None (the job solves)."""
    strategies: Callable[[Any, TabularMDP], tuple[str, ...]] | None = None
    """``strategies(settings, mdp)``: the strategies simulation compares (None: optimal and random)."""
    strategy_probs: Callable[[Any, str, TabularMDP, Any], Any] | None = None
    """``strategy_probs(settings, name, mdp, optimal_policy)``: (n_states, n_actions) action probabilities."""


@dataclass(frozen=True)
class DisplayHooks:
    """What the window and the lesson show of a game beyond its board: colours, display settings, the
    position walk of a board game, the lesson."""

    color_kind: str = SEQUENTIAL
    """:data:`SEQUENTIAL` for costs and returns, :data:`DIVERGING` for win/loss values."""
    settings: Callable[[dict, str], dict] | None = None
    """Display settings stored beside the settings in a scenario (not edits: no undo, no solver reset):
    ``settings(data, path)`` reads them from the game's scenario entry (ScenarioError naming a bad one),
    ``settings({}, "")`` gives their defaults. None: the game has none."""
    keys: tuple[str, ...] = ()
    """Keys the game's view adds to its scenario entry for its display settings (not settings: the codec
    lets them pass and the view reads them)."""
    position_model: Callable[..., Any] | None = None
    """Board games: ``position_model(settings, mdp)``, the :class:`~mdpviz.models.kit.boards.position.PositionModel`
    that walks positions from the start to a terminal one."""
    lesson: Callable[..., Any] | None = None
    """``lesson(settings, mdp, **names)``: the game's :class:`~mdpviz.models.kit.teaching.lessons.Lesson`."""


@dataclass(frozen=True, eq=False)
class GameSpec:
    """Everything headless about one game: its names, its settings and how they compile, and its hooks
    grouped by concern (:class:`ModelHooks`, :class:`NameHooks`, :class:`EpisodeHooks`,
    :class:`DisplayHooks`, :class:`ScenarioCodec`).

    ``settings`` below is the game's settings object: a frozen dataclass (``settings_type``) that
    validates itself, compared with ``==`` and stored in scenario files through :meth:`to_dict` and
    :meth:`from_dict` (by default the one codec of :mod:`mdpviz.models.kit.game.codec`)."""

    key: str
    """The one spelling of the game's key (scenario files, ``--game``, the view map)."""
    title: str
    """Name in the game picker and in lessons."""
    value_label: str
    """What V measures, with its unit (the colour bar's title), e.g. "expected turns to 15"."""
    unit: str
    """What one simulated episode's total counts ("turns", "return", ...)."""
    settings_type: type
    """The frozen dataclass of the game's settings."""
    default_settings: Callable[[], Any]
    """The settings a new window starts with."""
    compile: Callable[[Any], TabularMDP | None]
    """``compile(settings)``: the game's one :class:`TabularMDP` (None only for a game without a
    table of states, see :attr:`no_table`). May take seconds for large games: run it off the GUI thread."""
    aliases: tuple[str, ...] = ()
    """Other spellings accepted for :attr:`key` (old scenario files, CLI commands); each is also in
    :data:`ALIASES`, which :func:`canonical` reads without importing any game (a test checks)."""
    jobs: Mapping[str, Callable[..., Iterator]] = field(default_factory=dict)
    """Background jobs the game offers, by name, each a generator function: it yields
    :class:`JobProgress` and partial results and returns its result; the window's controller steps it
    on its job thread (cancel closes it between two yields), the CLI and tests simply iterate it."""
    no_table: str = ""
    """Why :attr:`compile` returns None ("" for a game with a table)."""
    model: ModelHooks = ModelHooks()
    """How the settings build the model, the discount, the default solve, the driver."""
    names: NameHooks = NameHooks()
    """How states, actions and endings are named."""
    episodes: EpisodeHooks = EpisodeHooks()
    """Start state, episodes, strategies, the batch simulation."""
    display: DisplayHooks = DisplayHooks()
    """Colours, display settings, the position walk, the lesson."""
    codec: ScenarioCodec = ScenarioCodec()
    """The settings in scenario files (default: the generic codec)."""

    def to_dict(self, settings: Any) -> dict:
        """Settings to plain JSON data (the game's entry in a scenario file)."""
        if self.codec.to_dict is not None:
            return self.codec.to_dict(settings)
        return codec.to_data(settings)

    def from_dict(self, data: dict, path: str) -> Any:
        """Settings from scenario data, validated (``ScenarioError`` naming the field ``games.<key>.<field>``)."""
        if self.codec.from_dict is not None:
            return self.codec.from_dict(data, path)
        return codec.from_data(self.settings_type, data, path, where=f"games.{self.key}", ignore=self.display.keys)


ENTRIES: tuple[tuple[str, str], ...] = (
    ("snakes", "Snakes and ladders"),
    ("file", "MDP from file"),
    ("ttt", "Tic-tac-toe vs random"),
    ("risk_ttt", "Risk tic-tac-toe"),
    ("attt", "Anti-tic-tac-toe"),
    ("checkers", "Checkers"),
    ("ttt3d", "3D tic-tac-toe (learning)"),
    ("gridworld", "Grid world"),
    ("gym", "Gymnasium environment"),
    ("jack", "Jack's car rental"),
    ("gambler", "Gambler's problem"),
    ("maxbias", "Maximization bias"),
    ("randomwalk", "Random walk (1000 states)"),
    ("baird", "Baird's counterexample"),
    ("mountaincar", "Mountain car"),
    ("corridor", "Short corridor (Example 13.1)"),
)
"""The games in picker order, one line each: (key, title). Game ``key`` lives in the folder
``mdpviz/models/<key>/``, its :class:`GameSpec` is ``SPEC`` in ``mdpviz/models/<key>/spec.py`` (imported
on first use, so listing the games by name, as the window's game picker does at start, imports none of
them), and its view is ``VIEW`` in ``mdpviz/widgets/games/<key>.py``. A test checks that each spec's
:attr:`GameSpec.title` is the title given here."""

TITLES: dict[str, str] = dict(ENTRIES)
"""Each game's title by key."""


def spec_module(key: str) -> str:
    """Where game ``key``'s spec lives (``SPEC`` in that module)."""
    return f"mdpviz.models.{canonical(key)}.spec"

ALIASES: dict[str, str] = {
    "risk-ttt": "risk_ttt", "risk": "risk_ttt", "stochastic-ttt": "risk_ttt",
    "tictactoe": "ttt", "tic-tac-toe": "ttt",
    "anti-ttt": "attt", "anti-tic-tac-toe": "attt",
    "grid-world": "gridworld", "grid": "gridworld",
    "ttt-3d": "ttt3d", "3d": "ttt3d", "3x3x3": "ttt3d",
    "gymnasium": "gym", "mdp": "file",
    "anti-tictactoe": "attt", "draughts": "checkers",
    "gamblers-problem": "gambler", "car-rental": "jack", "jacks-car-rental": "jack",
    "maximization-bias": "maxbias", "example-6.7": "maxbias",
    "random-walk": "randomwalk", "example-9.1": "randomwalk",
    "baird-counterexample": "baird", "bairds-counterexample": "baird", "example-11.1": "baird",
    "mountain-car": "mountaincar", "example-10.1": "mountaincar",
    "short-corridor": "corridor", "example-13.1": "corridor",
}
"""Old and loose spellings of keys (compared after :func:`normalise_key`)."""

_SPECS: dict[str, GameSpec] = {}


def normalise_key(key: str) -> str:
    """Keys compared loosely: "risk_ttt", "Risk TTT" and "risk-ttt" are the same."""
    return re.sub(r"[\s_]+", "-", str(key).strip().lower())


def keys() -> tuple[str, ...]:
    """Every game's key, in picker order."""
    return tuple(k for k, _ in ENTRIES)


def canonical(key: str) -> str:
    """The registered key for any accepted spelling of it (ValueError naming the choices)."""
    want = normalise_key(key)
    for k in keys():
        if normalise_key(k) == want:
            return k
    alias = {normalise_key(a): k for a, k in ALIASES.items()}.get(want)
    if alias is not None:
        return alias
    raise ValueError(f"unknown game {key!r}; choose one of {', '.join(keys())}")


def get(key: str) -> GameSpec:
    """The spec of game ``key`` (any accepted spelling); imports its module on first use."""
    k = canonical(key)
    spec = _SPECS.get(k)
    if spec is None:
        module = spec_module(k)
        spec = getattr(importlib.import_module(module), "SPEC")
        if not isinstance(spec, GameSpec) or spec.key != k:
            raise TypeError(f"{module}:SPEC is not the GameSpec of {k!r}")
        _SPECS[k] = spec
    return spec


def title(key: str) -> str:
    """The title of game ``key`` without importing it (its spec's title once the spec is loaded)."""
    k = canonical(key)
    return _SPECS[k].title if k in _SPECS else TITLES[k]


def specs() -> list[GameSpec]:
    """Every game's spec, in picker order."""
    return [get(k) for k in keys()]


__all__ = ["ALIASES", "DIVERGING", "DisplayHooks", "ENTRIES", "EpisodeHooks", "GameSpec", "ModelHooks", "NameHooks", "ScenarioCodec", "JobProgress", "SEQUENTIAL", "TITLES", "canonical", "get",
           "keys", "normalise_key", "spec_module", "specs", "title"]
