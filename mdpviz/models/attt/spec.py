"""Anti-tic-tac-toe (seed 000): the player who COMPLETES a line of their own marks loses.

The package: :mod:`~mdpviz.models.attt.rules` (the rules, the course's files, encoder, decoder,
outcome probabilities; its docstring describes the game, and the lesson quotes it),
:mod:`~mdpviz.models.attt.iteration` (best responses and their iteration, as generators),
:mod:`~mdpviz.models.attt.setup` (the window's settings and rounds, their scenario data) and
:mod:`~mdpviz.models.attt.play` (the position board's model, matchups, the lesson). Every public
name is importable from here; :data:`SPEC` is the game's entry in :mod:`mdpviz.models.kit.game.registry`.

Plain numpy; never imports Qt.
"""
from __future__ import annotations

import numpy as np

from mdpviz.models.attt.rules import (  # noqa: F401
    CONTINUE,
    DRAW,
    MOVER_LOSES,
    END_LABELS,
    LINES,
    N_CELLS,
    POW3,
    PROB_SUM_TOL,
    TIE_RULES,
    AtttPolicy,
    Boards,
    Encoding,
    Outcome,
    board_codes,
    board_strings,
    decode,
    encode,
    format_policy,
    line_completed,
    load_policy,
    load_states,
    move_result,
    outcome_probabilities,
    parse_policy,
    parse_states,
    parse_value_policy_for,
    player_to_move,
    reachable_boards,
)
from mdpviz.models.attt.iteration import (  # noqa: F401
    BestResponse,
    IterationGen,
    IterationResult,
    IterationSettings,
    Round,
    best_response,
    best_response_iteration,
    choose_actions,
    iteration_job,
    run_iteration,
)
from mdpviz.models.attt.setup import (  # noqa: F401
    carried_start,
    COURSE_DIR,
    METHODS,
    METHOD_NAMES,
    PLAYERS,
    RESULTS,
    START_KINDS,
    AtttSettings,
    AtttState,
    BoardChange,
    boards_path,
    compile_setup,
    course_files,
    default_setup,
    describe_boards,
    encode_state,
    make_start,
    round_changes,
    round_summary,
    rounds_job,
    setup_from_dict,
    setup_to_dict,
)
from mdpviz.models.attt.play import (  # noqa: F401
    first_board,
    AtttPositionModel,
    backup_with_notes,
    end_names,
    lesson,
    matchup_names,
    matchup_plan,
    matchups_job,
    outcome_notes,
    play_matchup,
    position_model,
)
from mdpviz.models.attt.rounds import Rounds
from mdpviz.models.kit.game import hooks
from mdpviz.models.kit.game.registry import DisplayHooks, EpisodeHooks, GameSpec, ModelHooks, NameHooks, SEQUENTIAL, ScenarioCodec


# ---------------------------------------------------------------------------------- the window's hooks
# The window's model is built from the setup with the rounds applied (an AtttState, :class:`Rounds`):
# ``ctx.settings`` is that state, ``ctx.built`` its :class:`Encoding`.
def _state_name(ctx, s: int) -> str:
    """A board string, or the result of an end state."""
    enc = ctx.built
    n = len(enc.boards)
    return enc.boards.labels[s] if s < n else end_names(enc.boards.player)[s - n]


def _backup_terms(ctx, s: int, a: int, values):
    """The terms of (board, cell), each noted with the opponent's reply or who completed a line."""
    enc = ctx.built
    if enc.mdp is not ctx.mdp or s >= len(enc.boards):
        return hooks.backup_terms(ctx, s, a, values)
    return backup_with_notes(enc, s, a, np.asarray(values, dtype=np.float64))


def _simulation(ctx, policy, *, games: int, seed: int):
    games = int(games)
    if games < 2:
        raise ValueError(f"simulate at least 2 games, got {games}")
    pol = None if policy is None else np.array(policy, dtype=np.int64)
    return matchups_job(ctx.settings, ctx.built, pol, games=games, seed=seed)


SPEC = GameSpec(
    key="attt",
    title="Anti-tic-tac-toe",
    value_label="P(responder wins)",
    unit="wins",
    settings_type=AtttSettings,
    default_settings=default_setup,
    compile=compile_setup,
    aliases=("anti-ttt", "anti-tictactoe", "anti-tic-tac-toe"),
    jobs={"rounds": rounds_job, "matchups": matchups_job},
    model=ModelHooks(
        build=encode_state,
        driver=Rounds,
    ),
    names=NameHooks(
        state_name=_state_name,
        action_name=lambda ctx, a: f"cell {a}",
        outcome_text=lambda ctx, s: hooks.position_outcome(AtttPositionModel(ctx.settings, ctx.built), ctx, s),
        backup_terms=_backup_terms,
    ),
    episodes=EpisodeHooks(
        strategies=matchup_names,
        start_state=lambda ctx: first_board(ctx.built),
        simulation=_simulation,
    ),
    display=DisplayHooks(
        color_kind=SEQUENTIAL,
        position_model=position_model,
        lesson=lesson,
    ),
    codec=ScenarioCodec(
        to_dict=setup_to_dict,
        from_dict=setup_from_dict,
    ),
)
"""Anti-tic-tac-toe in the registry. Its simulations are matchups (pairs of policies from the empty
board, :func:`matchups_job`), not strategies of one player on one MDP, so ``strategy_probs`` is None;
``strategies`` names the matchups. ``jobs``: "rounds" (:func:`rounds_job`) and "matchups". In the window
the rounds are stepped by its :class:`~mdpviz.models.attt.rounds.Rounds` driver."""
