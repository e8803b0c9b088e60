"""Risk tic-tac-toe as the registry sees it: jobs, lesson and :data:`SPEC`."""
from __future__ import annotations
from dataclasses import replace
from functools import lru_cache
from typing import Any, Callable, Generator
import numpy as np
from mdpviz.models.kit.game.registry import DIVERGING, DisplayHooks, EpisodeHooks, GameSpec, JobProgress, ModelHooks, NameHooks, ScenarioCodec
from mdpviz.core.mdp import TabularMDP
from mdpviz.models.kit.pictures.display import BackupTerm
from mdpviz.models.kit.game.hooks import Context, position_outcome
from mdpviz.models.kit.boards.position import MatchupResult, PositionModel
from mdpviz.models.risk_ttt.rules import (
    RiskGame,
    compile_risk,
)
from mdpviz.models.kit.boards.ttt_board import MARK_CHARS
from mdpviz.models.kit.boards.strategies import settings_strategy_probs as strategy_probs
from mdpviz.models.risk_ttt.exact import (  # noqa: F401
    ExactRiskPositionModel,
    ExactRiskSolution,
    RiskPositionModel,
    RiskSettings,
    exact_solve_job,
    risk_matchups,
)


KEY = "risk_ttt"
"""The game's key in the registry and in scenario files."""


@lru_cache(maxsize=4)
def _labels(game: RiskGame) -> tuple[str, ...]:
    chars = np.array(list(MARK_CHARS))[game.geometry.digits(game.board_index)]
    boards = ["".join(row) for row in chars]
    return tuple(f"{b}|{t}" for b in boards for t in ("X", "O"))


def state_labels(game: RiskGame) -> tuple[str, ...]:
    """``"XO.......|X"`` for every state (as :func:`state_label`), built at once."""
    return _labels(game)


def labelled_mdp(game: RiskGame) -> TabularMDP:
    """The compiled MDP with "board|mover" state labels, so the inspector's backups name positions."""
    return replace(game.mdp, state_labels=state_labels(game))


def compile_settings(state: RiskSettings) -> TabularMDP | None:
    """The 3x3 game's labelled MDP; None for 4x4 (86 million (board, turn) pairs: no table, solved
    exactly by :func:`exact_solve_job` instead)."""
    if state.size != 3:
        return None
    return labelled_mdp(compile_risk(np.asarray(state.risk)))


def position_model(state: RiskSettings, mdp: TabularMDP | None = None, *,
                   solution: ExactRiskSolution | None = None) -> PositionModel:
    """The board's position model: the compiled 3x3 game, or the exact n x n one (values from ``solution``)."""
    if state.size == 3:
        return RiskPositionModel(compile_risk(np.asarray(state.risk)))
    return ExactRiskPositionModel(np.asarray(state.risk), state.size, solution)


def _exact_job(state: RiskSettings, *, chunk_size: int | None = None) -> Generator[JobProgress, None, ExactRiskSolution]:
    return exact_solve_job(np.asarray(state.risk), size=state.size, chunk_size=chunk_size)


def _matchups_job(state: RiskSettings, policy: np.ndarray | None = None, *, games: int,
                  seed: int) -> Generator[JobProgress, None, MatchupResult]:
    if state.size != 3:
        raise ValueError("matchups are simulated on the 3x3 board (the 4x4 game is not compiled to an MDP)")
    return risk_matchups(compile_risk(np.asarray(state.risk)), policy, games=games, seed=seed)


def lesson(state: Any, mdp: TabularMDP | None = None, *, risk=None, start: int = 0,
           state_name: Callable[[int], str] | None = None, action_name: Callable[[int], str] | None = None):
    """The game's :class:`~mdpviz.models.kit.teaching.lessons.Lesson`: ``state`` is the game's settings (its fields
    become the parameter table), ``risk`` the vector P (default: the settings')."""
    from mdpviz.models.kit.teaching.lessons import (Parameter, doc_paragraphs, field_docs, fmt_value, mdp_lesson, parameters_of,
                                       sentence_starting, sentence_with)

    from mdpviz.models.risk_ttt import exact as rt
    if risk is None:
        risk = getattr(state, "risk", None)

    params = parameters_of(state)
    if risk is not None and not any(p.name in ("risk", "risks") for p in params):
        params = (Parameter("risk", fmt_value(np.asarray(risk)), field_docs(rt.RiskGame).get("risk", "")),) + params
    return mdp_lesson(
        mdp,
        title="Risk tic-tac-toe",
        intro=doc_paragraphs(rt, "A state is (board", "V(s) = opt", "with opt"),
        states=sentence_starting(rt.RiskGame.__doc__, "State "),
        actions=sentence_with(rt.RiskGame.__doc__, "Action id"),
        transitions=sentence_with(rt.__doc__, "The player to move picks"),
        rewards=sentence_with(rt.__doc__, "Completing a line"),
        discount_why="there is no discount (an episodic game that ends within 9 moves).",
        parameters=params,
        start=start,
        state_name=state_name,
        action_name=action_name,
        mover_names=("X (the maximiser)", "O (the minimiser)"),
        sources=("mdpviz.models.risk_ttt.exact", "RiskGame"),
    )


def settings_from_data(data: Any, path: str) -> RiskSettings:
    """The generic codec, with one extra: an entry without ``preset`` says where its risks came from
    as "custom" (a hand-written file gives its own risks; the dataclass's default names the preset of
    its default risks), as every version before the generic codec read it."""
    from mdpviz.models.kit.game import codec

    if isinstance(data, dict) and "preset" not in data:
        data = {**data, "preset": "custom"}
    return codec.from_data(RiskSettings, data, path, where=f"games.{KEY}")
# ---------------------------------------------------------------------------------- the window's hooks
def _build(state: RiskSettings) -> RiskGame | None:
    """The compiled 3x3 game (None for 4x4: no table, see :func:`compile_settings`)."""
    return compile_risk(np.asarray(state.risk)) if state.size == 3 else None


def _backup_terms(ctx: Context, s: int, a: int, values: np.ndarray) -> list[BackupTerm]:
    """The two outcomes of the risk coin, noted "own mark" / "coin: opponent's mark"."""
    m = RiskPositionModel(ctx.built)
    return m.backup(m.position_of(s), a, values)


def _simulation(ctx: Context, policy: np.ndarray | None, *, games: int, seed: int) -> Generator:
    if ctx.built is None:
        raise ValueError("matchups are simulated on the 3x3 board (the 4x4 game is not compiled to an MDP)")
    return risk_matchups(ctx.built, policy, games=games, seed=seed)


SPEC = GameSpec(
    key=KEY,
    title="Risk tic-tac-toe",
    value_label="Q (X's expected result)",
    unit="result",
    settings_type=RiskSettings,
    default_settings=RiskSettings,
    compile=compile_settings,
    jobs={"exact_solve": _exact_job, "matchups": _matchups_job},
    model=ModelHooks(
        build=_build,
        mdp_of=lambda state, game: labelled_mdp(game),  # "board|mover" state labels: the inspector names positions
    ),
    names=NameHooks(
        outcome_text=lambda ctx, s: position_outcome(RiskPositionModel(ctx.built), ctx, s),
        backup_terms=_backup_terms,
    ),
    episodes=EpisodeHooks(
        strategy_probs=strategy_probs,
        start_state=lambda ctx: int(ctx.built.start),
        simulation=_simulation,
    ),
    display=DisplayHooks(
        color_kind=DIVERGING,
        position_model=position_model,
        lesson=lesson,
    ),
    codec=ScenarioCodec(
        from_dict=settings_from_data,
    ),
)
"""Risk tic-tac-toe in the registry :mod:`mdpviz.models.kit.game.registry` (``compile`` gives None for the 4x4
board: its table is too large, the ``exact_solve`` job solves it by backward induction instead)."""



__all__ = ['SPEC', 'compile_settings', 'labelled_mdp', 'lesson', 'position_model', 'state_labels']
