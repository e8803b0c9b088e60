"""The "MDP from file" game: any MDP in the course file format, as the registry sees it (:data:`SPEC`).

The game's settings are a :class:`FileSettings`: which file, its text (kept, so a scenario is
self-contained) and the discount in use. The reader is :mod:`mdpviz.core.cs747`; strategies and
their simulation are the plain-walk ones of :mod:`mdpviz.models.kit.boards.strategies`; the lesson is
:func:`file_lesson`.

A new window starts with no file (its view's own default, :class:`FileSettings` ``()``); the spec's
:attr:`~mdpviz.models.kit.game.registry.GameSpec.default_settings` is the first shipped course example
(:func:`default_file_state`), so the headless registry always has a model to compile.

Plain numpy; never imports Qt.
"""
from __future__ import annotations

from mdpviz.models.kit.teaching.lessons import Block, doc_blocks, first_sentence, mdp_lesson, parameters_of

import os
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Generator

import numpy as np

from mdpviz.core.cs747 import MDPFileError, parse_cs747, parse_cs747_job, read_text_file
from mdpviz.core.modelcheck import drn_start, is_drn, parse_drn, parse_drn_job
from mdpviz.core.examples import mdp_examples
from mdpviz.models.kit.game.codec import FieldError
from mdpviz.core.files import ScenarioError
from mdpviz.core.jobs import drive
from mdpviz.models.kit.game.registry import DisplayHooks, EpisodeHooks, GameSpec, JobProgress, ModelHooks, NameHooks, SEQUENTIAL
from mdpviz.models.kit.teaching.lessons import Lesson
from mdpviz.core.mdp import TabularMDP
from mdpviz.models.kit.boards.episodes import Move, sample_mdp_episode
from mdpviz.models.kit.game.hooks import Context, label_of, simulation_from_start
from mdpviz.models.kit.boards.strategies import (
    SimulationResult, discounted_max_steps, fixed_action_strategies, strategy_simulation,
)
from mdpviz.solvers import registry, solve
from mdpviz.models.kit.boards.strategies import settings_strategy_probs as strategy_probs  # the one shared rule


@dataclass(frozen=True)
class FileSettings:
    """The "MDP from file" game's edits: which file, its text and the discount."""

    path: str = ""
    """File the MDP was read from ("" before any file)."""
    text: str = ""
    """The file's text (kept so a scenario is self-contained)."""
    discount: float | None = None
    """Discount in use (None: the file's own)."""

    def __post_init__(self) -> None:
        d = self.discount
        if d is not None and (isinstance(d, bool) or not isinstance(d, (int, float)) or not 0.0 <= d <= 1.0):
            raise FieldError("discount", f"must be a number in [0, 1] or None (the file's own), got {d!r}")

    def validate(self) -> "FileSettings":
        """Self, with its text parsed to check it (FieldError naming the text and the line otherwise)."""
        if self.text:
            try:
                parse_file_state(self)
            except MDPFileError as e:
                raise FieldError("text", str(e), subject="") from None
        return self


def default_file_state() -> FileSettings:
    """The first shipped course example (by name), read from the package's example folder."""
    ex = mdp_examples()
    if not ex:
        raise ValueError("no course example is installed (mdpviz/examples/cs747/mdp is missing)")
    return FileSettings(path=str(ex[0].path), text=read_text_file(ex[0].path))


def parse_file_state(state: FileSettings) -> TabularMDP:
    """The model written in ``state.text`` (a course file, or Storm's DRN) with the file's own discount
    (MDPFileError naming the line); ValueError when there is no file."""
    if not state.text:
        raise ValueError("no course MDP file loaded")
    if is_drn(state.text):
        return parse_drn(state.text, state.path or "<scenario>").mdp
    return parse_cs747(state.text, state.path or "<scenario>")


def with_discount(mdp: TabularMDP, state: FileSettings) -> TabularMDP:
    """``mdp`` with the discount of ``state`` (the file's own when ``state.discount`` is None)."""
    if state.discount is not None and state.discount != mdp.discount:
        return replace(mdp, discount=float(state.discount))
    return mdp


def compile_file(state: FileSettings) -> TabularMDP:
    """The model of ``state``: its file parsed, with the discount in use."""
    return with_discount(parse_file_state(state), state)


def read_file(path: str | os.PathLike) -> tuple[FileSettings, TabularMDP]:
    """Read and parse ``path``: (state, model); the reader's errors name the file and line."""
    return drive(read_file_job(path))


def read_file_job(path: str | os.PathLike) -> Generator[JobProgress, None, tuple[FileSettings, TabularMDP]]:
    """:func:`read_file` as a job generator (any thread): the file is read once and parsed once,
    with progress (:func:`mdpviz.core.cs747.parse_cs747_job`)."""
    path = str(path)
    yield JobProgress(0, 0, f"Reading {Path(path).name}\u2026")
    text = read_text_file(path)  # the course reader's checks: missing, binary, not UTF-8
    if is_drn(text):
        mdp = (yield from parse_drn_job(text, path)).mdp
    else:
        mdp = yield from parse_cs747_job(text, path)
    return FileSettings(path=path, text=text, discount=None), mdp


def first_live_state(mdp: TabularMDP) -> int:
    """The first state that is not terminal (0 if every state is terminal)."""
    live = np.flatnonzero(~np.asarray(mdp.terminal, dtype=bool))
    return int(live[0]) if live.size else 0


def start_state(mdp: TabularMDP, chosen: int | None = None) -> int:
    """Where simulations and episodes start: ``chosen`` if it is a state of ``mdp``, else
    :func:`first_live_state` (course files may make state 0 terminal, where every strategy scores 0)."""
    if chosen is not None and 0 <= chosen < mdp.n_states:
        return int(chosen)
    return first_live_state(mdp)


def strategies(state: FileSettings, mdp: TabularMDP) -> tuple[str, ...]:
    """Optimal, each action that is legal everywhere ("action k"), random."""
    return ("optimal", *fixed_action_strategies(mdp), "random")


def max_steps(mdp: TabularMDP) -> int:
    """Steps per simulated episode: until gamma^t < 1e-12 for a discount below 1, else 10,000."""
    return discounted_max_steps(mdp, eps=1e-12, cap=10_000)


def simulate(state: FileSettings, mdp: TabularMDP, policy=None, *, games: int, seed,
             start: int | None = None) -> Generator[JobProgress, None, SimulationResult]:
    """Every strategy from ``start`` (default: :func:`first_live_state`), ``games`` episodes each, beside
    its exact value; the optimal policy is solved by policy iteration when ``policy`` is None."""
    start = start_state(mdp, start)
    names = strategies(state, mdp)
    return (yield from strategy_simulation(
        mdp, names, lambda name, opt: strategy_probs(state, name, mdp, opt), policy, games=games, seed=seed,
        start=start, start_name=f"state {start}", max_steps=max_steps(mdp),
        optimal=lambda: solve(mdp, registry.exact_solver()).policy))


def lesson(state: FileSettings, mdp: TabularMDP | None = None, **_names: Any) -> Lesson:
    """The lesson of the loaded file (:func:`~file_lesson`)."""
    return file_lesson(mdp, path=str(getattr(state, "path", "") or ""), state=state)


# ---------------------------------------------------------------------------------- the window's hooks
def display_settings(data: dict[str, Any], path: str | os.PathLike = "<scenario>") -> dict[str, Any]:
    """The display settings stored after the settings: the board's "view" ("grid" or "graph";
    ScenarioError otherwise) and the "start" state of simulations and episodes (None: the first live one)."""
    view = data.get("view", "grid")
    if view not in ("grid", "graph"):
        raise ScenarioError(path, "games.file.view", f"must be 'grid' or 'graph', got {view!r}")
    start = data.get("start")
    ok = isinstance(start, int) and not isinstance(start, bool) and start >= 0
    return {"view": view, "start": int(start) if ok else None}


def _with_discount(ctx: Context, gamma: float) -> FileSettings:
    """The discount in use: None when it is the file's own (a scenario then follows the file)."""
    if ctx.built is None:
        return ctx.settings
    return replace(ctx.settings, discount=None if gamma == ctx.built.discount else gamma)


@lru_cache(maxsize=4)
def _drn_init(text: str) -> int | None:
    """A DRN file's ``init`` state (None: a course file, or none labelled)."""
    return drn_start(text) if is_drn(text) else None


def _start_state(ctx: Context) -> int:
    chosen = ctx.display.get("start")
    if chosen is None:
        chosen = _drn_init(getattr(ctx.settings, "text", "") or "")
    return start_state(ctx.mdp, chosen)


def _state_name(ctx: Context, s: int) -> str:
    """A DRN file's name of state ``s`` (the comment after its state line), else "state s"."""
    label = label_of(ctx.mdp, s)
    return f"state {s}" if label is None else label


def _action_name(ctx: Context, a: int) -> str:
    """A DRN file's name of action ``a``, else "action a" (a course file numbers its actions)."""
    m = ctx.mdp
    if m is not None and m.action_labels is not None and 0 <= a < len(m.action_labels):
        return m.action_labels[a]
    return f"action {a}"


def _episode(ctx: Context, probs: np.ndarray, rng: np.random.Generator) -> list[Move]:
    return sample_mdp_episode(ctx.mdp, probs, rng=rng, start=_start_state(ctx), max_steps=200, state_name=str,
                              action_name=str)


SPEC = GameSpec(
    key="file",
    title="MDP from file",
    value_label="value V(s)",
    unit="return",
    settings_type=FileSettings,
    default_settings=default_file_state,
    compile=compile_file,
    jobs={"simulate": simulate},
    model=ModelHooks(
        build=lambda settings: parse_file_state(settings) if settings.text else None,  # the file's model with its own discount
        build_key=lambda settings: (settings.path, settings.text),  # a file is parsed once, whatever the discount
        mdp_of=lambda settings, parsed: with_discount(parsed, settings),
        with_discount=_with_discount,
    ),
    names=NameHooks(
        state_name=lambda ctx, s: _state_name(ctx, s),
        action_name=lambda ctx, a: _action_name(ctx, a),
        outcome_text=lambda ctx, s: f"reached {_state_name(ctx, s)} (terminal)",
    ),
    episodes=EpisodeHooks(
        strategies=strategies,
        strategy_probs=strategy_probs,
        start_state=_start_state,
        episode=_episode,
        simulation=simulation_from_start,
    ),
    display=DisplayHooks(
        keys=("view", "start"),
        color_kind=SEQUENTIAL,
        lesson=lesson,
        settings=display_settings,
    ),
)
"""The course-file game in the registry. ``jobs["simulate"](state, mdp, policy, games=, seed=, start=)``."""


def file_lesson(mdp: TabularMDP | None, *, path: str = "", state: Any = None) -> Lesson:
    """An MDP read from a course-format file (:mod:`mdpviz.core.cs747`)."""
    from mdpviz.core import cs747

    name = path.rsplit("/", 1)[-1] if path else ""
    return mdp_lesson(
        mdp,
        title=f"MDP from file{': ' + name if name else ''}",
        intro=(Block("p", first_sentence(cs747.__doc__) + " Each transition line gives s, a, s\u2032, the "
                     "reward and the probability:"),) + tuple(b for b in doc_blocks(cs747.__doc__) if b.kind == "pre"),
        states="States are numbered 0..numStates-1; the end line lists the terminal ones.",
        actions="Actions are numbered 0..numActions-1; a state's legal actions are those with transition lines.",
        transitions="As listed in the file.",
        rewards="As listed in the file (reward units).",
        parameters=parameters_of(state, skip=("text",)),
        sources=("mdpviz.core.cs747",),
    )


__all__ = ["FileSettings", "SPEC", "compile_file", "default_file_state", "display_settings", "first_live_state", "lesson",
           "start_state", "max_steps", "parse_file_state", "read_file", "read_file_job", "simulate", "strategies",
           "strategy_probs", "with_discount"]
