"""Checkers as a game of the registry, headless: its settings, its background jobs (written as
generators) and its :data:`SPEC`.

* :class:`CheckersSettings`: the game's edits as one frozen value, the model's
  :class:`~mdpviz.models.checkers.rules.CheckersRules` (the variant) plus the agent's colour and the
  discount; the window starts at :data:`WINDOW_RULES` (5x5, 1 row, a 20-ply limit);
* :func:`compile_job`: the enumeration and compile of a variant, yielding
  :class:`~mdpviz.models.kit.game.registry.JobProgress` (the window's controller steps it on its job thread);
* :func:`matchup_job`: the simulated matchups (optimal vs random, random vs random) beside the
  exact probabilities;
* :data:`SPEC`: the game for :mod:`mdpviz.models.kit.game.registry` (``compile(settings)`` enumerates in this
  process with the model's budgets and keeps the last variants, see :func:`compiled`).

The positions shown on the board are :mod:`mdpviz.models.checkers.play`'s; the rules and the
compiler are :mod:`mdpviz.models.checkers.rules`'s. numpy only; never imports Qt.

Compiling off the GUI thread
----------------------------
``compile_checkers`` has no progress or cancel hook, so a compile is run in two tries: first in
the job thread itself with a small state and transition budget (:data:`QUICK_MAX_STATES`,
:data:`QUICK_MAX_TRANSITIONS`, about a second on the development machine), which the model
refuses within that second when the variant is larger; then in a child Python process with the
model's own budgets, which Cancel ends at once (closing the generator kills the child) and which
leaves the window's interpreter free while it runs (a pure-Python enumeration in a thread would
hold the GIL for tens of seconds). The result comes back pickled on the child's stdout.
"""
from __future__ import annotations

from typing import Callable

from mdpviz.models.kit.teaching.lessons import (Lesson, doc_section, field_docs, fmt_number, mdp_lesson, parameters_of,
                                      sentence_starting, sentence_with)

import json
import os
import pickle
import subprocess
import sys
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Generator

import numpy as np

from mdpviz.models.checkers import compiler as cc
from mdpviz.models.checkers import rules as ck
from mdpviz.models.checkers.play import COLOUR_NAME, OUTCOME_LABELS, CheckersPositionModel
from mdpviz.models.kit.game.codec import INLINE, FieldError
from mdpviz.models.checkers.play import annotate_terms
from mdpviz.models.kit.game import hooks
from mdpviz.models.kit.boards.episodes import sample_mdp_episode
from mdpviz.models.kit.game.registry import DIVERGING, DisplayHooks, EpisodeHooks, GameSpec, JobProgress, ModelHooks, NameHooks
from mdpviz.core.mdp import TabularMDP
from mdpviz.models.kit.boards.position import MatchupResult, MatchupRow
from mdpviz.core.simulate import policy_matrix, simulate
from mdpviz.solvers import solve
from mdpviz.models.kit.boards.strategies import settings_strategy_probs as strategy_probs  # the one shared rule

WINDOW_PLY_LIMIT = 20
"""The window's ply limit: 5x5 with 1 row at 20 plies has 49,021 states and compiles in about 0.4 s,
where the model's default (40 plies, the CLI's) has 1.29 million and takes about 10 s."""
WINDOW_RULES = ck.CheckersRules(ply_limit=WINDOW_PLY_LIMIT)
"""The variant a new window starts with: the model's default rules with :data:`WINDOW_PLY_LIMIT`."""

GREEDY_DISCOUNT = ck.DEFAULT_DISCOUNT
"""The seed's discount (0.1): the agent grabs material now."""
FAR_SIGHTED_DISCOUNT = 0.9
"""A discount that makes the agent play for the +100 win."""

QUICK_MAX_STATES = 80_000
"""State budget of the first, in-thread compile try (5x5, 1 row, 20 plies has 49,021 states and
compiles in about 0.4 s on the development machine); a larger variant goes to a child process."""
QUICK_MAX_TRANSITIONS = 600_000
"""Transition budget of the first, in-thread compile try (see :data:`QUICK_MAX_STATES`)."""

POLL_SECONDS = 0.25
"""How often the compile job yields progress (a chance to cancel) while the child process compiles."""

SIM_CHUNK_TRANSITIONS = 2_000_000
"""A simulation is split into at most this many transitions / the variant's transitions chunks
(at most 10): each chunk reports progress and is a chance to cancel."""
SIM_MAX_STEPS = 10_000
"""Agent moves after which a simulated game without a ply limit is stopped and counted as a draw."""

MATCHUPS = ("optimal vs random", "random vs random")
"""The matchups a simulation plays (the agent's colour against the random opponent)."""

HEADLESS_CACHE = 2
"""Compiled variants :func:`compiled` keeps (the window keeps its own, see its view)."""


# ---------------------------------------------------------------------------------- settings
@dataclass(frozen=True)
class CheckersSettings:
    """The checkers game's edits: the variant, the agent's colour and the discount."""

    rules: ck.CheckersRules = field(default=WINDOW_RULES, metadata=INLINE)  # flat in scenario files: size, rows, ...
    """The variant (board, rows, capture rules, ply limit): validated when it is built."""
    agent: str = ck.BLACK
    """The agent's colour ("black" moves first); the other colour plays uniformly at random."""
    discount: float = GREEDY_DISCOUNT
    """gamma per agent move (the seed's 0.1: greedy for material; near 1: plays for the win)."""

    def validate(self) -> "CheckersSettings":
        """Self, checked: rules, agent colour, discount (ValueError naming the field)."""
        if not isinstance(self.rules, ck.CheckersRules):
            raise FieldError("rules", f"must be CheckersRules, got {type(self.rules).__name__}", subject="checkers rules")
        if self.agent not in ck.COLOURS:
            raise FieldError("agent", f"must be 'black' or 'white', got {self.agent!r}", subject="agent colour")
        g = self.discount
        if isinstance(g, bool) or not isinstance(g, (int, float)) or not 0.0 <= float(g) <= 1.0:
            raise FieldError("discount", f"must be a number in [0, 1], got {g!r}")
        if self.rules.ply_limit is None and float(g) >= 1.0:
            raise FieldError("discount", "without a ply limit games can cycle forever: the discount must be below 1",
                             subject="")
        return self

    @property
    def key(self) -> tuple[ck.CheckersRules, str]:
        """What a compile depends on (the discount is not: it is swapped into the compiled MDP)."""
        return (self.rules, self.agent)


RULE_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(ck.CheckersRules))
"""The variant's fields, as the scenario data and the editor name them (size, rows, ...)."""


# ---------------------------------------------------------------------------------- compiling
_CHILD = """
import json, pickle, sys
from mdpviz.models.checkers.compiler import CheckersRules, compile_checkers
a = json.loads(sys.argv[1])
try:
    res = ("ok", compile_checkers(CheckersRules(**a["rules"]), agent=a["agent"], discount=a["discount"]))
except ValueError as e:
    res = ("error", str(e))
except MemoryError:
    res = ("error", "the enumeration ran out of memory: use a smaller board, fewer rows or a lower ply limit")
sys.stdout.buffer.write(pickle.dumps(res, protocol=pickle.HIGHEST_PROTOCOL))
sys.stdout.buffer.flush()
"""


def compile_in_process(rules: ck.CheckersRules, *, agent: str, discount: float,
                       poll: float | None = None) -> Generator[JobProgress, None, cc.CheckersMDP]:
    """``compile_checkers`` in a child Python process with the model's budgets, yielding progress
    every ``poll`` seconds (default :data:`POLL_SECONDS`); closing the generator (a cancel) kills the
    child at once. ValueError with the model's message when it refuses the variant."""
    poll = POLL_SECONDS if poll is None else poll
    root = str(Path(ck.__file__).resolve().parents[2])
    env = dict(os.environ)
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    arg = json.dumps({"rules": {name: getattr(rules, name) for name in RULE_FIELDS}, "agent": agent,
                      "discount": float(discount)})
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", _CHILD, arg], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env)
    try:
        while True:
            try:
                out, err = proc.communicate(timeout=poll)
                break
            except subprocess.TimeoutExpired:
                yield JobProgress(0, 0, f"Enumerating {rules.describe()} in a worker process\u2026 "
                                        f"{time.perf_counter() - t0:.0f} s")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    if proc.returncode != 0 or not out:
        tail = err.decode("utf-8", "replace").strip().splitlines()
        raise RuntimeError(f"the checkers compile process failed (exit {proc.returncode})"
                           + (f": {tail[-1]}" if tail else ""))
    status, payload = pickle.loads(out)
    if status != "ok":
        raise ValueError(payload)
    return payload


FIRST_COMPILE_S = 20
"""About how long numba takes to compile the checkers kernels the first time after installing
(14-22 s measured on the 2-core development machine; `mdpviz bench` prints it)."""


def compile_job(settings: CheckersSettings) -> Generator[JobProgress, None, cc.CheckersMDP]:
    """The job that enumerates and compiles the variant of ``settings`` (its MDP with the settings'
    discount): in the calling thread under the small budgets (:data:`QUICK_MAX_STATES`), else in a
    child process (:func:`compile_in_process`). Yields progress; returns the :class:`CheckersMDP`."""
    rules, agent, discount = settings.rules, settings.agent, float(settings.discount)
    if not ck.kernels_loaded():  # say why the first compile of a fresh install waits (numba compiles them)
        yield JobProgress(0, 0, f"Preparing the checkers rules (first use after installing: about {FIRST_COMPILE_S} s)\u2026")
        cc.warm_up()
    yield JobProgress(0, 0, f"Enumerating {rules.describe()}\u2026")
    try:
        cm = cc.compile_checkers(rules, agent=agent, discount=discount, max_states=QUICK_MAX_STATES,
                                 max_transitions=QUICK_MAX_TRANSITIONS)
    except ck.VariantTooLarge:  # larger than the quick budget: the child process applies the model's own
        yield JobProgress(0, 0, f"Enumerating {rules.describe()} in a worker process\u2026")
        cm = yield from compile_in_process(rules, agent=agent, discount=discount)
    yield JobProgress(0, 0, f"Indexing {cm.n_states:,} states\u2026")
    index_variant(cm)
    return cm


def index_variant(cm: cc.CheckersMDP) -> None:
    """Build the compiled variant's lazy lookups (position -> state, the row matrix) on the calling
    thread, so that the GUI thread's first position does not pay for them (about 2 s at 1.3 million
    states on the development machine)."""
    for s in cm.start_states[:1]:
        pos = cm.position(int(s))
        if pos is not None:
            cm.state_of(pos)
    cm.mdp.matrix
    cm.mdp.row_reward


def with_discount(cm: cc.CheckersMDP, discount: float) -> TabularMDP:
    """The compiled MDP with another discount (the same arrays: the discount is not part of a compile)."""
    g = float(discount)
    return cm.mdp if float(cm.mdp.discount) == g else replace(cm.mdp, discount=g)


_cache: OrderedDict[tuple, cc.CheckersMDP] = OrderedDict()
_cache_lock = threading.Lock()


def compiled(settings: CheckersSettings) -> cc.CheckersMDP:
    """The compiled variant of ``settings`` (in this process, with the model's budgets), the last
    :data:`HEADLESS_CACHE` kept: what :data:`SPEC`'s ``compile`` and ``position_model`` share."""
    key = settings.validate().key
    with _cache_lock:
        cm = _cache.get(key)
        if cm is not None:
            _cache.move_to_end(key)
            return cm
    cm = cc.compile_checkers(key[0], agent=key[1], discount=float(settings.discount))
    with _cache_lock:
        _cache[key] = cm
        while len(_cache) > HEADLESS_CACHE:
            _cache.popitem(last=False)
    return cm


# ---------------------------------------------------------------------------------- matchups
def matchup_job(cm: cc.CheckersMDP, mdp: TabularMDP, policy: np.ndarray | None, *, games: int,
                seed: int) -> Generator[JobProgress, None, MatchupResult]:
    """Simulate ``games`` games of the agent's greedy ``policy`` (None: solved by value iteration to
    the seed's tolerance) and of uniformly random moves against the random opponent, in chunks (each
    yields progress), with the exact probabilities beside them. ``mdp`` is the compiled MDP of ``cm``
    with the discount in use. The arguments are checked at once (ValueError), the work is the
    returned generator's."""
    if cm.n_states != mdp.n_states:
        raise ValueError(f"the MDP has {mdp.n_states} states, the compiled variant {cm.n_states}")
    games = int(games)
    if games < 1:
        raise ValueError(f"simulate at least 1 game, got {games}")
    pol = None if policy is None else np.array(policy, dtype=np.int64)
    return _matchups(replace(cm, mdp=mdp), mdp, pol, games=games, seed=int(seed))


def _matchups(cm: cc.CheckersMDP, mdp: TabularMDP, opt: np.ndarray | None, *, games: int,
              seed: int) -> Generator[JobProgress, None, MatchupResult]:
    agent = COLOUR_NAME[cm.agent]
    opp = COLOUR_NAME[ck.WHITE if cm.agent == ck.BLACK else ck.BLACK]
    notes = []
    if opt is None:
        yield JobProgress(0, 1, "Solving (value iteration) for the optimal policy\u2026")
        sol = solve(mdp, tol=ck.DEFAULT_TOL)  # (the default solver: value iteration)
        opt = np.asarray(sol.policy)
        notes.append(f"the solver had not converged: optimal = value iteration to {ck.DEFAULT_TOL:g} "
                     f"({sol.sweeps} sweeps)")
    streams = np.random.SeedSequence(seed).spawn(2)
    # chunks for progress and Cancel; few on big variants (each call of the simulator sets up
    # tables over every transition)
    chunks = max(1, min(10, games // 2000, SIM_CHUNK_TRANSITIONS // max(mdp.n_transitions, 1)))
    sizes = [games // chunks + (1 if i < games % chunks else 0) for i in range(chunks)]
    rows = []
    for j, (name, p) in enumerate(zip(MATCHUPS, (opt, None))):
        rng = np.random.default_rng(streams[j])
        probs = cm.random_policy() if p is None else policy_matrix(mdp, p)
        win = loss = 0
        for i, n in enumerate(sizes):
            starts = cm.start_states[rng.choice(cm.start_states.size, size=n, p=cm.start_probs)]
            ep = simulate(mdp, probs, start=starts, episodes=n, seed=rng, max_steps=SIM_MAX_STEPS)
            win += int(np.count_nonzero(ep.final_state == cm.win))
            loss += int(np.count_nonzero(ep.final_state == cm.loss))
            yield JobProgress(j * chunks + i + 1, 2 * chunks, f"{name}: {sum(sizes[:i + 1]):,} of {games:,} games")
        del probs
        draw = games - win - loss  # the ply limit (or, without one, still playing at the step cap)
        ex = cm.outcome_probabilities(p)
        first = (win, loss) if cm.agent == ck.BLACK else (loss, win)
        efirst = (ex["win"], ex["loss"]) if cm.agent == ck.BLACK else (ex["loss"], ex["win"])
        who = "optimal" if p is not None else "random"
        x, o = (f"{who} agent", "random") if cm.agent == ck.BLACK else ("random", f"{who} agent")
        rows.append(MatchupRow(name, x, o, (first[0], first[1], draw), games,
                               (efirst[0], efirst[1], ex["draw"]), OUTCOME_LABELS))
    start = f"the start ({agent} agent, {opp} random)"
    return MatchupResult(tuple(rows), "games", start, tuple(notes))


# ---------------------------------------------------------------------------------- the registry's spec
def compile_settings(settings: CheckersSettings) -> TabularMDP:
    """The game's MDP: the variant compiled (:func:`compiled`) with the settings' discount."""
    return with_discount(compiled(settings), settings.discount)


def position_model(settings: CheckersSettings, mdp: TabularMDP | None = None) -> CheckersPositionModel:
    """The board's positions over the compiled variant of ``settings`` (values of ``mdp``, by default
    :func:`compile_settings`)."""
    return CheckersPositionModel(compiled(settings), mdp if mdp is not None else compile_settings(settings))


def simulate_job(settings: CheckersSettings, mdp: TabularMDP | None, policy: np.ndarray | None, *, games: int,
                 seed: int) -> Generator[JobProgress, None, MatchupResult]:
    """:func:`matchup_job` on the compiled variant of ``settings`` (``mdp``: its MDP, None: compiled)."""
    cm = compiled(settings)
    return matchup_job(cm, mdp if mdp is not None else with_discount(cm, settings.discount), policy,
                       games=games, seed=seed)


def lesson(settings: CheckersSettings, mdp: TabularMDP | None, **names: Any) -> Any:
    """The checkers lesson (:func:`checkers_lesson`) of these settings."""

    return checkers_lesson(mdp, state=settings, **names)


# ---------------------------------------------------------------------------------- the window's hooks
# The window compiles in ``jobs["compile"]`` (what is built is the CheckersMDP, once per variant and
# colour: :attr:`CheckersSettings.key`); every hook receives it as ``ctx.built``.
def _state_name(ctx: Any, s: int) -> str:
    """The absorbing "win", "draw", "loss", else the position described, not numbered (students read this)."""
    cm = ctx.built
    if s == cm.win:
        return "win"
    if s == cm.draw:
        return "draw"
    if s == cm.loss:
        return "loss"
    if 0 <= s < cm.state_ply.size:
        ply = int(cm.state_ply[s])
        return f"the position (ply {ply})" if ply >= 0 else "the position"
    return str(s)


def _backup_terms(ctx: Any, s: int, a: int, values: np.ndarray) -> list:
    """The outcomes of (s, a), each annotated with the opponent's reply that leads to it."""
    terms = hooks.backup_terms(ctx, s, a, values)
    cm = ctx.built
    if cm.n_states != ctx.mdp.n_states or not terms:
        return terms
    return annotate_terms(cm, s, a, terms)


def _episode(ctx: Any, probs: np.ndarray, rng: np.random.Generator) -> list:
    """One game from a start drawn from the opening distribution (several when the agent is White)."""
    cm = ctx.built
    start = int(rng.choice(cm.start_states, p=cm.start_probs))
    return sample_mdp_episode(ctx.mdp, probs, rng=rng, start=start, max_steps=1000, state_name=None,
                              action_name=lambda a: ctx.spec.names.action_name(ctx, a))



SPEC = GameSpec(
    key="checkers",
    title="Checkers",
    value_label="value of each move Q (reward)",
    unit="reward",
    settings_type=CheckersSettings,
    default_settings=CheckersSettings,
    compile=compile_settings,
    aliases=("draughts",),
    jobs={"compile": compile_job, "simulate": simulate_job},
    model=ModelHooks(
        build_key=lambda settings: settings.key,
        mdp_of=lambda settings, cm: with_discount(cm, settings.discount),
        with_discount=hooks.set_discount,
    ),
    names=NameHooks(
        state_name=_state_name,
        outcome_text=lambda ctx, s: hooks.position_outcome(CheckersPositionModel(ctx.built, ctx.mdp), ctx, s),
        backup_terms=_backup_terms,
    ),
    episodes=EpisodeHooks(
        strategies=lambda settings, mdp: ("optimal", "random"),
        strategy_probs=strategy_probs,
        start_state=lambda ctx: int(ctx.built.start_states[0]),
        episode=_episode,
        simulation=lambda ctx, policy, *, games, seed: matchup_job(ctx.built, ctx.mdp, policy, games=games, seed=seed),
    ),
    display=DisplayHooks(
        color_kind=DIVERGING,
        position_model=position_model,
        lesson=lesson,
    ),
)
"""Checkers in the registry (:mod:`mdpviz.models.kit.game.registry`)."""


def checkers_lesson(mdp: TabularMDP | None, *, rules: Any = None, state: Any = None, start: int = 0,
    state_name: Callable[[int], str] | None = None, action_name: Callable[[int], str] | None = None) -> Lesson:
    """Checkers against a random opponent: the rules' own text (the docstring of
    :mod:`mdpviz.models.checkers.rules`, its sections "The rules" and "The MDP") and the model's facts."""
    if rules is None and getattr(state, "rules", None) is not None:  # the settings: the variant's fields first
        params = parameters_of(state.rules) + parameters_of(state, skip=("rules",))
    else:
        params = parameters_of(state) or parameters_of(rules)
    mdp_section = doc_section(ck, "The MDP")
    text = " ".join(b.text for b in mdp_section)
    act, _, trans = sentence_with(text, "An action is").partition("; ")
    return mdp_lesson(
        mdp,
        title="Checkers against a random opponent",
        intro=doc_section(ck, "The rules"),
        states=sentence_with(text, "A state is"),
        actions=act.rstrip(".") + "." if act else "",
        transitions=trans[:1].upper() + trans[1:],
        rewards=sentence_starting(text, "Rewards"),
        discount_why=_checkers_discount(ck, mdp),
        parameters=params,
        start=start,
        state_name=state_name,
        action_name=action_name,
        sources=("mdpviz.models.checkers.rules",),
    )


def _checkers_discount(ck, mdp: TabularMDP | None) -> str:
    why = field_docs(ck).get("DEFAULT_DISCOUNT", "")
    default = getattr(ck, "DEFAULT_DISCOUNT", None)
    if not why or default is None:
        return ""
    if mdp is not None and mdp.discount == default:
        return why
    return f"set by the user; the seed's default is {fmt_number(default)} ({why})"


__all__ = [
    "CheckersSettings", "FAR_SIGHTED_DISCOUNT", "GREEDY_DISCOUNT", "MATCHUPS", "POLL_SECONDS", "QUICK_MAX_STATES",
    "QUICK_MAX_TRANSITIONS", "RULE_FIELDS", "SIM_CHUNK_TRANSITIONS", "SIM_MAX_STEPS", "SPEC", "WINDOW_PLY_LIMIT",
    "WINDOW_RULES", "compile_in_process", "compile_job", "compile_settings", "compiled", "lesson", "matchup_job",
    "position_model", "simulate_job", "strategy_probs", "index_variant",
    "with_discount",
]
