"""What a game does in the window, headless: the defaults of the :class:`~mdpviz.models.kit.game.registry.GameSpec`
hooks, and the :class:`Context` every hook is called with.

The window's generic session (:class:`mdpviz.widgets.session.GameSession`) asks a game's spec, never
its view, how to name a state or an action, where an episode starts and how it ended, what a
Bellman backup's outcomes are, how to play one episode and how to simulate a batch. A game whose
answer differs from these defaults gives its own function in its ``SPEC``; each takes the
:class:`Context` first. Plain numpy; never imports Qt.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping

import numpy as np

from mdpviz.models.kit.pictures.display import BackupTerm
from mdpviz.models.kit.boards.episodes import Move, sample_mdp_episode
from mdpviz.models.kit.boards.position_display import terminal_words
from mdpviz.core.mdp import TabularMDP


@dataclass(frozen=True, eq=False)
class Context:
    """What a spec's hooks see of a game in the window (the session makes one when it asks)."""

    spec: Any
    """The game's :class:`~mdpviz.models.kit.game.registry.GameSpec` (a hook may call the others)."""
    settings: Any
    """The game's settings (for a game with a driver, what the driver makes of them: anti-tic-tac-toe's
    setup with the rounds applied so far)."""
    built: Any
    """What the game built from them (its spec's ``build``; without one, the TabularMDP); None: nothing yet."""
    mdp: TabularMDP | None
    """The compiled MDP (None: none, e.g. while it compiles or for a game without a table)."""
    display: Mapping[str, Any] = field(default_factory=dict)
    """The display settings (not edits: e.g. the course-file game's start state)."""
    driver: Any = None
    """The game's :class:`~mdpviz.models.kit.game.driver.Driver` (rounds, training), or None."""


def label_of(mdp: TabularMDP | None, s: int) -> str | None:
    """State ``s``'s label in ``mdp`` (None: no labels, or no such state)."""
    if mdp is not None and mdp.state_labels is not None and 0 <= s < len(mdp.state_labels):
        return mdp.state_labels[s]
    return None


def state_name(ctx: Context, s: int) -> str:
    """The MDP's label of state ``s`` (the board, not the state's number: students read this), else its number."""
    label = label_of(ctx.mdp, s)
    return str(s) if label is None else label


def action_name(ctx: Context, a: int) -> str:
    """The MDP's label of action ``a``, else its number."""
    m = ctx.mdp
    if m is not None and m.action_labels is not None:
        return m.action_labels[a]
    return str(a)


def set_discount(ctx: Context, gamma: float) -> Any:
    """A spec's ``with_discount`` for settings with a ``discount`` field: that field set to ``gamma``,
    validated (ValueError naming what is wrong)."""
    from dataclasses import replace

    return replace(ctx.settings, discount=gamma).validate()


def start_state(ctx: Context) -> int:
    """State 0."""
    return 0


def outcome_text(ctx: Context, s: int) -> str:
    """How an episode that ended in terminal state ``s`` ended: a compiled game's absorbing win/draw/loss
    state in words, else "ended in <the state's name>"."""
    words = terminal_words(label_of(ctx.mdp, s) or "")
    return words or f"ended in {ctx.spec.names.state_name(ctx, s)}"


def backup_terms(ctx: Context, s: int, a: int, values: np.ndarray) -> list[BackupTerm]:
    """The outcomes of (``s``, ``a``) for the inspector's Bellman backup, as the MDP lists them."""
    return [BackupTerm(p, r, d, float(values[d])) for d, p, r in ctx.mdp.outcomes(s, a)]


def episode(ctx: Context, probs: np.ndarray, rng: np.random.Generator) -> list[Move]:
    """One episode from the start state, at most 1,000 moves, actions named by the spec."""
    spec = ctx.spec
    return sample_mdp_episode(ctx.mdp, probs, rng=rng, start=spec.episodes.start_state(ctx), max_steps=1000, state_name=None,
                              action_name=lambda a: spec.names.action_name(ctx, a))


def simulation(ctx: Context, policy: np.ndarray | None, *, games: int, seed: int) -> Iterator:
    """The spec's ``jobs["simulate"](settings, mdp, policy, games=, seed=)`` (every strategy; at least two
    games); the policy is copied, so the job sees the one it was given."""
    from mdpviz.models.kit.boards.strategies import at_least_two_games  # (the simulators, imported when first used)

    pol = None if policy is None else np.array(policy, dtype=np.int64)
    return ctx.spec.jobs["simulate"](ctx.settings, ctx.mdp, pol, games=at_least_two_games(games), seed=seed)


def walk_episode(ctx: Context, probs: np.ndarray, rng: np.random.Generator) -> list[Move]:
    """One episode from the start state, at most 200 moves, states and actions named by the spec (the
    games drawn on a grid)."""
    spec = ctx.spec
    return sample_mdp_episode(ctx.mdp, probs, rng=rng, start=spec.episodes.start_state(ctx), max_steps=200,
                              state_name=lambda s: spec.names.state_name(ctx, s), action_name=lambda a: spec.names.action_name(ctx, a))


def simulation_from_start(ctx: Context, policy: np.ndarray | None, *, games: int, seed: int) -> Iterator:
    """:func:`simulation` from the spec's start state (``jobs["simulate"](..., start=)``)."""
    from mdpviz.models.kit.boards.strategies import at_least_two_games  # (the simulators, imported when first used)

    pol = None if policy is None else np.array(policy, dtype=np.int64)
    return ctx.spec.jobs["simulate"](ctx.settings, ctx.mdp, pol, games=at_least_two_games(games), seed=seed,
                                     start=ctx.spec.episodes.start_state(ctx))


def position_outcome(model: Any, ctx: Context, s: int) -> str:
    """A board game's words for how an episode ended in ``s``: the outcome of the position ``model``
    (:class:`~mdpviz.models.kit.boards.position.PositionModel`) shows for it, else :func:`outcome_text`."""
    if model is not None:
        try:
            pos = model.position_of(int(s))
            if pos.outcome:
                return pos.outcome
        except (ValueError, IndexError):
            pass
    return outcome_text(ctx, s)


def world_change(spec: Any, settings: Any, built: Any) -> tuple[TabularMDP, int] | None:
    """The world after it changes while it is learned: the game's ``spec.model.switch`` hook's ``(mdp, real
    steps)``, or None when the game has no such hook or its world never changes (Sutton and Barto 8.3)."""
    hook = getattr(spec.model, "switch", None)
    return None if hook is None else hook(settings, built)


__all__ = ["world_change", "Context", "action_name", "backup_terms", "episode", "label_of", "outcome_text", "position_outcome",
           "simulation", "simulation_from_start", "start_state", "state_name", "walk_episode"]
