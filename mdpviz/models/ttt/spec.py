"""Tic-tac-toe against a random opponent as the registry sees it: jobs, lesson and :data:`SPEC`."""
from __future__ import annotations
from dataclasses import replace
from typing import Any, Generator

import numpy as np

from mdpviz.models.kit.boards.episodes import Move, sample_mdp_episode
from mdpviz.models.kit.game.hooks import Context, position_outcome
from mdpviz.models.kit.game.registry import DIVERGING, DisplayHooks, EpisodeHooks, GameSpec, JobProgress, ModelHooks, NameHooks
from mdpviz.core.mdp import TabularMDP
from mdpviz.models.kit.boards.position import MatchupResult
from mdpviz.models.kit.boards.ttt_board import (  # noqa: F401  (re-exported: the board rules' old home)
    EMPTY,
    MARK_CHARS,
    TTT3,
    BoardGeometry,
    LineAnalysis,
    O,
    X,
    other,
    parse_mark,
    swap_marks,
)
from mdpviz.models.ttt.rules import (  # noqa: F401
    TicTacToeSettings,
    VsRandomPositionModel,
    VsRandomSettings,
    compile_vs_random,
    vs_random_matchups,
)
from mdpviz.models.kit.boards.strategies import settings_strategy_probs as strategy_probs  # the one shared rule


KEY = "ttt"
"""The game's key in the registry and in scenario files."""


def _compile(state: TicTacToeSettings) -> TabularMDP:
    return compile_vs_random(state.settings).mdp


def _position_model(state: TicTacToeSettings, mdp: TabularMDP | None = None) -> VsRandomPositionModel:
    return VsRandomPositionModel(compile_vs_random(state.settings))


def _matchups_job(state: TicTacToeSettings, policy: np.ndarray | None = None, *, games: int,
                  seed: int) -> Generator[JobProgress, None, MatchupResult]:
    return vs_random_matchups(compile_vs_random(state.settings), policy, games=games, seed=seed)


def lesson(state: Any, mdp: TabularMDP | None = None, *, start: int | None = None, **_names: Any):
    """The game's :class:`~mdpviz.models.kit.teaching.lessons.Lesson` (``state``: a :class:`TicTacToeSettings` or its
    :class:`VsRandomSettings`; ``start`` defaults to the first start state)."""
    from mdpviz.models.kit.teaching.lessons import doc_paragraphs, field_docs, fmt_number, mdp_lesson, parameters_of, sentence_with

    from mdpviz.models.ttt import rules as tt
    settings = state.settings if isinstance(state, TicTacToeSettings) else state

    game = None
    if mdp is None:
        game = tt.compile_vs_random(settings)
        mdp = game.mdp
    if start is None:
        game = game or tt.compile_vs_random(settings)
        start = int(game.start_states[0])
    docs = field_docs(tt.VsRandomSettings)
    comp = tt.compile_vs_random.__doc__
    return mdp_lesson(
        mdp,
        title="Tic-tac-toe against a random opponent",
        intro=doc_paragraphs(tt, "The vs-random game"),
        states=sentence_with(comp, "States:"),
        actions=sentence_with(tt.VsRandomGame.__doc__, "action id"),
        transitions=sentence_with(comp, "From board b"),
        rewards=(f"win {fmt_number(settings.win)} ({docs.get('win', '')}), draw {fmt_number(settings.draw)} "
                 f"({docs.get('draw', '')}), loss {fmt_number(settings.loss)} ({docs.get('loss', '')})."),
        discount_why=docs.get("discount", ""),
        parameters=parameters_of(settings),
        start=start,
        sources=("mdpviz.models.ttt.rules", "compile_vs_random", "VsRandomSettings"),
    )


# ---------------------------------------------------------------------------------- the window's hooks
def _build(state: TicTacToeSettings):
    return compile_vs_random(state.settings)


def _episode(ctx: Context, probs: np.ndarray, rng: np.random.Generator) -> list[Move]:
    """One game from the random opponent's opening (or the empty board when the agent opens)."""
    g = ctx.built
    start = int(g.start_states[rng.integers(g.start_states.size)])
    return sample_mdp_episode(ctx.mdp, probs, rng=rng, start=start, max_steps=g.geometry.n_cells + 1,
                              state_name=None, action_name=lambda a: f"cell {a}")


def _with_discount(ctx: Context, gamma: float) -> TicTacToeSettings:
    return TicTacToeSettings(replace(ctx.settings.settings, discount=gamma))


SPEC = GameSpec(
    key=KEY,
    title="Tic-tac-toe vs random",
    value_label="Q (reward)",
    unit="reward",
    settings_type=TicTacToeSettings,
    default_settings=TicTacToeSettings,
    compile=_compile,
    jobs={"matchups": _matchups_job},
    model=ModelHooks(
        build=_build,
        with_discount=_with_discount,
    ),
    names=NameHooks(
        outcome_text=lambda ctx, s: position_outcome(VsRandomPositionModel(ctx.built), ctx, s),
    ),
    episodes=EpisodeHooks(
        strategy_probs=strategy_probs,
        start_state=lambda ctx: int(ctx.built.start_states[0]),
        episode=_episode,
        simulation=lambda ctx, policy, *, games, seed: vs_random_matchups(ctx.built, policy, games=games, seed=seed),
    ),
    display=DisplayHooks(
        color_kind=DIVERGING,
        position_model=_position_model,
        lesson=lesson,
    ),
)
"""Tic-tac-toe against a random opponent in the registry :mod:`mdpviz.models.kit.game.registry`."""



__all__ = ['SPEC', 'lesson', 'strategy_probs']
