"""Snakes and ladders of the course assignment: the game as the registry sees it (:data:`SPEC`).

The rules, the compiler and the course's ``markovDecision`` are in :mod:`mdpviz.models.snakes.rules`
(re-exported here, so ``from mdpviz.models.snakes import compile_snakes`` works); the strategies and
their simulation in :mod:`mdpviz.models.snakes.simulate`; the lesson in
:func:`snakes_lesson`. This package adds the spec (scenario data: the generic codec of
:mod:`mdpviz.models.kit.game.codec`, with the dice written last, :func:`snakes_to_dict`). The game is a package so the spec
can name the simulation and the lesson, which import the rules, without an import cycle.

Plain numpy; never imports Qt.
"""
from __future__ import annotations

from mdpviz.models.kit.teaching.lessons import doc_blocks, doc_paragraphs, field_docs, mdp_lesson, parameters_of, sentences

from typing import Any, Generator

import numpy as np

from mdpviz.models.snakes import simulate as snakes_sim
from mdpviz.models.kit.pictures.display import BackupTerm
from mdpviz.models.kit.game.codec import to_data
from mdpviz.models.kit.boards.episodes import Move, snakes_moves
from mdpviz.models.kit.game.hooks import Context
from mdpviz.models.kit.game.registry import DisplayHooks, EpisodeHooks, GameSpec, ModelHooks, NameHooks, SEQUENTIAL, ScenarioCodec
from mdpviz.models.kit.teaching.lessons import Lesson
from mdpviz.core.mdp import TabularMDP
from mdpviz.models.snakes.rules import *  # noqa: F403 (the rules are this package's public names)
from mdpviz.models.snakes.rules import N_SQUARES, SnakesSettings, compile_snakes, outcomes
from mdpviz.models.snakes.rules import __all__ as _RULES_ALL


# ---------------------------------------------------------------------------------- scenario data
def snakes_to_dict(cfg: SnakesSettings) -> dict[str, Any]:
    """A :class:`SnakesSettings` as scenario data: the generic codec's (floats are written exactly: JSON keeps repr)."""
    data = to_data(cfg)
    data["dice"] = data.pop("dice")  # extra: every scenario file lists the dice last (after type4), the class before
    return data


# ---------------------------------------------------------------------------------- inspector
def backup_terms(cfg: SnakesSettings, state: int, action: int, values: np.ndarray) -> list[BackupTerm]:
    """The outcomes of throwing die ``action`` on square ``state + 1``, for the inspector's Bellman backup
    (each with the roll, any trap or bonus and where it ends, in words)."""
    if state >= N_SQUARES - 1:
        return []
    out = []
    for o in outcomes(cfg, state + 1, action):
        note = f"roll {o.roll}" + (f", {o.event}" if o.event else "") + f" \u2192 {o.square}"
        out.append(BackupTerm(o.prob, o.cost, o.square - 1, float(values[o.square - 1]), note))
    return out


# ---------------------------------------------------------------------------------- the spec
def strategies(cfg: SnakesSettings, mdp: TabularMDP | None = None) -> tuple[str, ...]:
    """The strategies the simulation compares: optimal, one per die, random, mixed."""
    return snakes_sim.strategy_names(cfg)


def spec_strategy_probs(cfg: SnakesSettings, name: str, mdp: TabularMDP | None, optimal_policy) -> np.ndarray:
    """(15, n_dice) die probabilities of strategy ``name`` (``optimal_policy``: the solved dice, for "optimal")."""
    if name == "optimal":
        if optimal_policy is None:
            raise ValueError("the optimal strategy needs a solved model: run the solver first")
        return snakes_sim.strategy_probs(cfg, "optimal", optimal_policy=np.asarray(optimal_policy, dtype=np.int64))
    return snakes_sim.strategy_probs(cfg, name)


def simulation(cfg: SnakesSettings, mdp: TabularMDP, policy=None, *, games: int, seed) -> Generator:
    """The window's batch simulation of every strategy (:func:`mdpviz.models.snakes.simulate.simulation_job`)."""
    # a generator of its own rather than the function itself: snakes_sim imports the rules, so it may
    # still be importing while this package is (read its attribute when the job runs)
    return (yield from snakes_sim.simulation_job(cfg, mdp, policy, games=games, seed=seed))


# ---------------------------------------------------------------------------------- the window's hooks
def _state_name(ctx: Context, s: int) -> str:
    return f"square {s + 1}"


def _action_name(ctx: Context, a: int) -> str:
    return f"die {a + 1} ({ctx.settings.dice[a].name})"


def _outcome_text(ctx: Context, s: int) -> str:
    return f"finished: reached square {int(s) + 1}"  # as the state's name words it


def _backup_terms(ctx: Context, s: int, a: int, values: np.ndarray) -> list[BackupTerm]:
    return backup_terms(ctx.settings, s, a, values)


def _episode(ctx: Context, probs: np.ndarray, rng: np.random.Generator) -> list[Move]:
    """One game from square 1, the dice named."""
    steps = snakes_sim.play_episode(ctx.settings, probs, rng=rng, start=1)
    return snakes_moves(steps, ctx.settings.dice_names)


def lesson(cfg: SnakesSettings, mdp: TabularMDP | None = None, **_names: Any) -> Lesson:
    """The game's lesson (:func:`~snakes_lesson`; squares and dice name themselves)."""
    return snakes_lesson(cfg, mdp)


def square_coordinates(settings: Any, mdp: TabularMDP):
    """The states' one coordinate, their square 1 .. 15 (state s is square s + 1), scaled from [1, 15]; the
    last square, terminal, has none (a row of NaN)."""
    from mdpviz.solvers.features import Coordinates  # (lazily: the features module is the solvers' layer)

    values = np.arange(1, mdp.n_states + 1, dtype=np.float64).reshape(-1, 1)
    values[np.asarray(mdp.terminal)] = np.nan
    low, high = np.array([1.0]), np.array([float(max(mdp.n_states, 2))])
    for a in (values, low, high):
        a.setflags(write=False)
    return Coordinates(("square",), values, low, high)


SPEC = GameSpec(
    key="snakes",
    title="Snakes and ladders",
    value_label="expected turns to 15",
    unit="turns",
    settings_type=SnakesSettings,
    default_settings=SnakesSettings,
    compile=compile_snakes,
    jobs={"simulate": simulation},
    model=ModelHooks(
        discount_note="Turns are counted, not discounted: the discount is 1.",
        coordinates=lambda settings, mdp: square_coordinates(settings, mdp),
    ),
    names=NameHooks(
        state_name=_state_name,
        action_name=_action_name,
        outcome_text=_outcome_text,
        backup_terms=_backup_terms,
    ),
    episodes=EpisodeHooks(
        strategies=strategies,
        strategy_probs=spec_strategy_probs,
        episode=_episode,
    ),
    display=DisplayHooks(
        color_kind=SEQUENTIAL,
        lesson=lesson,
    ),
    codec=ScenarioCodec(
        to_dict=snakes_to_dict,
    ),
)
"""Snakes and ladders in the registry. ``jobs["simulate"](cfg, mdp, policy, games=, seed=)``: every
strategy from square 1 (:func:`simulation`)."""


def snakes_lesson(cfg, mdp: TabularMDP | None = None) -> Lesson:
    """Snakes and ladders (:mod:`mdpviz.models.snakes`) with configuration ``cfg`` (a SnakesSettings)."""
    from mdpviz.models.snakes import rules as sn

    if mdp is None:
        mdp = sn.compile_snakes(cfg)
    traps = [f"{i + 1} {sn.square_type_name(t, cfg.type4)}" for i, t in enumerate(cfg.layout) if t]
    board = ("Current board: " + (", ".join(traps) if traps else "no traps") + "; "
             + ("circular (stop exactly on 15; overshoot: " + cfg.overshoot + ")." if cfg.circle
                else "reaching or passing 15 wins."))
    outcome_rule = " ".join(sentences(next((b.text for b in doc_blocks(sn.outcomes.__doc__)[1:2]), ""))[:2])
    docs = field_docs(sn.Outcome)
    return mdp_lesson(
        mdp,
        title="Snakes and ladders",
        intro=doc_paragraphs(sn, "The board has", "A turn is", "circle=False"),
        states=(f"A state is the square the player stands on, 1..{sn.N_SQUARES}; square {sn.GOAL} "
                f"({field_docs(sn).get('GOAL', 'the goal').rstrip('.').lower()}) is terminal."),
        actions=f"{field_docs(sn.SnakesSettings).get('dice', '')} "
                + "; ".join(d.describe() for d in cfg.dice) + ".",
        transitions=f"{outcome_rule} {board}",
        rewards=f"Cost of a turn: {docs.get('cost', '')}",
        discount_why="the turns are counted, not discounted: V(s) is the expected number of turns to reach 15.",
        parameters=parameters_of(cfg),
        start=0,
        state_name=lambda s: str(s + 1),
        action_name=lambda a: cfg.dice[a].name,
        where="square 1 (the start)",
        action_set="{" + ", ".join(cfg.dice_names) + "}",
        sources=("mdpviz.models.snakes", "snakes.outcomes", "snakes.Outcome", "snakes.SnakesSettings"),
    )


__all__ = [*_RULES_ALL, "SPEC", "backup_terms", "lesson", "simulation", "snakes_to_dict", "spec_strategy_probs", "strategies"]
