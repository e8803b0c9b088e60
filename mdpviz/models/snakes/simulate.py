"""Snakes and ladders strategies: exact expected turns and Monte Carlo play (the statement's section 4).

A strategy is a matrix of die probabilities, shape (15, n_dice): row s - 1 is the distribution of
the die chosen on square s (row 14, square 15, is terminal and all zero). Every strategy is
evaluated two ways so theory and simulation can be compared for each one, not only the optimum:

* exactly, by policy evaluation of the compiled MDP (solve (I - P_pi) V = c_pi on squares 1..14,
  Sutton and Barto eq. 4.4 with gamma = 1; :func:`exact_turns`);
* empirically, by playing many games at once with the vectorised Monte Carlo of
  :func:`mdpviz.core.simulate.simulate` over the same compiled MDP (:func:`simulate_turns`).

Both read the transitions built by :func:`mdpviz.models.snakes.outcomes`, as does the single
game player :func:`play_episode` used by the GUI, so the rules live in one place.
Turns are the statement's cost: 1 per throw, 2 for a throw that ends in prison, 0 for a throw
that triggers a bonus. Plain numpy; never imports Qt.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import Callable, Generator

import numpy as np

from mdpviz.core.chunked import Progress, SimulationInterrupted, check_games, reporter, run_chunks
from mdpviz.models.kit.pictures.display import StrategyRow
from mdpviz.models.kit.game.registry import JobProgress
from mdpviz.core.mdp import TabularMDP
from mdpviz.core.simulate import Z95, mean_ci, simulate
from mdpviz.models.snakes.rules import GOAL, N_SQUARES, SnakesSettings, compile_snakes, outcomes
from mdpviz.models.kit.boards.strategies import SimulationResult, at_least_two_games
from mdpviz.solvers import ImproperPolicyError, evaluate_stochastic_policy, solve
from mdpviz.solvers.distribution import turn_distribution

N_PLAY = N_SQUARES - 1
"""Squares a game can be played from (1..14)."""

STRATEGY_NAMES: tuple[str, ...] = ("optimal", "security", "normal", "risky", "random", "mixed", "custom")
"""Strategy names for the default dice. "optimal": the value-iteration policy; "security",
"normal", "risky" (any die name of the configuration): that die only; "random": every die with
equal probability; "mixed": fixed die probabilities (``mix``; default proportional to 1, 2, ...,
n_dice, i.e. 1/6, 1/3, 1/2 for the three default dice); "custom": a die per square (``per_square``)."""


def strategy_names(cfg: SnakesSettings, *, custom: bool = False) -> tuple[str, ...]:
    """The strategies available for ``cfg``: optimal, one per die, random, mixed (and custom if asked)."""
    return ("optimal", *cfg.dice_names, "random", "mixed") + (("custom",) if custom else ())


def default_mix(n_dice: int) -> np.ndarray:
    """The default "mixed" strategy: die k (0-based) with probability (k + 1) / (1 + 2 + ... + n_dice)."""
    w = np.arange(1, n_dice + 1, dtype=np.float64)
    return w / w.sum()


def strategy_probs(
    cfg: SnakesSettings,
    name: str,
    *,
    optimal_policy: np.ndarray | None = None,
    mix: np.ndarray | None = None,
    per_square: np.ndarray | None = None,
) -> np.ndarray:
    """Die probabilities of strategy ``name`` for ``cfg``: float64 (15, n_dice), row 14 all zero.

    ``optimal_policy``: for "optimal", the die index per state of a solved compiled MDP (15
    entries as in ``Solution.policy``, the last is ignored); solved here by value iteration if
    None. ``mix``: for "mixed", n_dice probabilities (default :func:`default_mix`).
    ``per_square``: for "custom", the die index (0-based) to use on each of squares 1..14.
    """
    k = cfg.n_dice
    probs = np.zeros((N_SQUARES, k))
    if name == "optimal":
        if optimal_policy is None:
            optimal_policy = solve(compile_snakes(cfg), tol=1e-12).policy
        pol = _die_indices(optimal_policy, k, N_SQUARES, "optimal_policy")
        probs[np.arange(N_PLAY), pol[:N_PLAY]] = 1.0
    elif name == "random":
        probs[:N_PLAY] = 1.0 / k
    elif name == "mixed":
        m = default_mix(k) if mix is None else np.asarray(mix, dtype=np.float64).ravel()
        if m.size != k:
            raise ValueError(f"mix must give one probability per die ({k}), got {m.size}")
        if not np.all(np.isfinite(m)) or np.any(m < 0) or abs(m.sum() - 1.0) > 1e-9:
            raise ValueError(f"mix must hold probabilities >= 0 that sum to 1, got {m.tolist()}")
        probs[:N_PLAY] = m
    elif name == "custom":
        if per_square is None:
            raise ValueError("the custom strategy needs per_square: a die index for each of squares 1..14")
        pol = _die_indices(per_square, k, N_PLAY, "per_square")
        probs[np.arange(N_PLAY), pol] = 1.0
    elif name in cfg.dice_names:
        probs[:N_PLAY, cfg.dice_names.index(name)] = 1.0
    else:
        raise ValueError(f"unknown strategy {name!r}; choose one of {', '.join(strategy_names(cfg, custom=True))}")
    return probs


def _die_indices(policy: object, k: int, n: int, what: str) -> np.ndarray:
    arr = np.asarray(policy)
    if arr.ndim != 1 or arr.size != n:
        raise ValueError(f"{what} must have {n} entries, got shape {arr.shape}")
    if arr.dtype.kind not in "iu":
        raise ValueError(f"{what} must hold integer die indices, got dtype {arr.dtype}")
    arr = arr.astype(np.int64)
    bad = np.flatnonzero((arr[:N_PLAY] < 0) | (arr[:N_PLAY] >= k))
    if bad.size:
        s = int(bad[0])
        raise ValueError(f"{what}: square {s + 1} has die index {arr[s]}, outside 0..{k - 1}")
    return arr


def _check_probs(cfg: SnakesSettings, probs: np.ndarray) -> np.ndarray:
    p = np.asarray(probs, dtype=np.float64)
    if p.shape != (N_SQUARES, cfg.n_dice):
        raise ValueError(f"strategy probabilities must have shape ({N_SQUARES}, {cfg.n_dice}), got {p.shape}")
    live = p[:N_PLAY]
    if not np.all(np.isfinite(live)) or np.any(live < 0):
        raise ValueError("strategy probabilities must be finite and >= 0")
    bad = np.flatnonzero(np.abs(live.sum(axis=1) - 1.0) > 1e-9)
    if bad.size:
        s = int(bad[0])
        raise ValueError(f"square {s + 1}: the die probabilities sum to {live[s].sum():.6g}, not 1")
    return p


# ------------------------------------------------------------------------------ exact
def exact_turns(cfg: SnakesSettings, probs: np.ndarray, *, mdp: TabularMDP | None = None) -> np.ndarray:
    """Expected turns to reach 15 from squares 1..14 under the strategy ``probs`` (float64, (14,)).

    Exact policy evaluation of the compiled MDP (``mdp``, compiled here if None). Raises
    :class:`~mdpviz.solvers.ImproperPolicyError` (a ValueError) when the strategy never finishes
    from some square.
    """
    p = _check_probs(cfg, probs)
    mdp = compile_snakes(cfg) if mdp is None else mdp
    return evaluate_stochastic_policy(mdp, p)[:N_PLAY].copy()


# ------------------------------------------------------------------------------ simulation
@dataclass(frozen=True, eq=False)
class TurnStats:
    """Monte Carlo estimate of the expected turns from every start square."""

    mean: np.ndarray
    """float64 (14,): mean turns of the games started on squares 1..14."""
    ci: np.ndarray
    """float64 (14,): half-width of the normal 95% confidence interval of each mean (turns)."""
    games: np.ndarray
    """int64 (14,): number of games played from each square."""


def _play(
    cfg: SnakesSettings,
    probs: np.ndarray,
    starts: np.ndarray,
    rng: np.random.Generator,
    mdp: TabularMDP | None,
    max_steps: int,
) -> np.ndarray:
    """Turns of one game from each square of ``starts`` (int64); ValueError if a game never ends."""
    p = _check_probs(cfg, probs)
    mdp = compile_snakes(cfg) if mdp is None else mdp
    ep = simulate(mdp, p, start=starts - 1, episodes=starts.size, seed=rng, max_steps=max_steps)
    if not ep.finished.all():
        n = int((~ep.finished).sum())
        raise ValueError(
            f"{n} of {starts.size} simulated games did not reach square {GOAL} within {max_steps} throws "
            "(does the strategy ever finish?)"
        )
    return np.rint(ep.total).astype(np.int64)


def simulate_turns(
    cfg: SnakesSettings,
    probs: np.ndarray,
    *,
    games: int = 100_000,
    seed: int | np.random.Generator | None = None,
    start: int = 1,
    mdp: TabularMDP | None = None,
    max_steps: int = 10_000,
) -> np.ndarray:
    """Play ``games`` games from square ``start`` with strategy ``probs``; int64 (games,) turns per game.

    Vectorised over games (one numpy pass per throw). ``seed`` makes it repeatable.
    """
    games = _positive(games, "games")
    if isinstance(start, bool) or not isinstance(start, numbers.Integral) or not 1 <= start <= N_PLAY:
        raise ValueError(f"start must be a square in 1..{N_PLAY}, got {start!r}")
    rng = np.random.default_rng(seed)
    return _play(cfg, probs, np.full(games, int(start), dtype=np.int64), rng, mdp, max_steps)


def simulate_every_start(
    cfg: SnakesSettings,
    probs: np.ndarray,
    *,
    games: int = 100_000,
    seed: int | np.random.Generator | None = None,
    mdp: TabularMDP | None = None,
    max_steps: int = 10_000,
) -> TurnStats:
    """Mean turns and 95% confidence half-width from each start square 1..14, ``games`` games each.

    The 14 x ``games`` games are played in one vectorised batch.
    """
    games = _positive(games, "games")
    rng = np.random.default_rng(seed)
    starts = np.repeat(np.arange(1, N_PLAY + 1), games)
    turns = _play(cfg, probs, starts, rng, mdp, max_steps).reshape(N_PLAY, games)
    stats = [mean_ci(turns[i]) for i in range(N_PLAY)]
    return TurnStats(
        mean=np.array([m for m, _ in stats]),
        ci=np.array([c for _, c in stats]),
        games=np.full(N_PLAY, games, dtype=np.int64),
    )


def _positive(n: object, what: str) -> int:
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
        raise ValueError(f"{what} must be a positive integer, got {n!r}")
    return int(n)


# ------------------------------------------------------------------------------ comparison
@dataclass(frozen=True, eq=False)
class StrategyResult:
    """One strategy, evaluated exactly and by simulation."""

    name: str
    """Strategy name (see STRATEGY_NAMES)."""
    probs: np.ndarray
    """float64 (15, n_dice): die probabilities per square."""
    exact: np.ndarray
    """float64 (14,): exact expected turns from squares 1..14 (inf if the strategy never finishes)."""
    mean: np.ndarray
    """float64 (14,): simulated mean turns from squares 1..14 (nan if not simulated)."""
    ci: np.ndarray
    """float64 (14,): 95% confidence half-widths of ``mean`` (turns)."""
    games: np.ndarray
    """int64 (14,): games simulated from each square."""
    turns_hist: np.ndarray
    """int64 (k,): ``turns_hist[t]`` games from square 1 took t turns (the distribution; its size
    does not grow with the number of games)."""
    error: str = field(default="")
    """Why the strategy was not evaluated or simulated ("" if it was)."""

    @property
    def inside(self) -> np.ndarray:
        """bool (14,): the exact value lies within the simulated mean's 95% confidence interval."""
        return np.abs(self.mean - self.exact) <= self.ci


class _Moments:
    """Exact running count, sum and sum of squares of integer turns per start square."""

    def __init__(self) -> None:
        self.n = np.zeros(N_PLAY, dtype=np.int64)
        self.s1 = np.zeros(N_PLAY, dtype=np.int64)
        self.s2 = np.zeros(N_PLAY, dtype=np.int64)
        self.hist = np.zeros(0, dtype=np.int64)

    def add(self, square: np.ndarray, turns: np.ndarray) -> None:
        i = square - 1
        self.n += np.bincount(i, minlength=N_PLAY)
        self.s1 += np.bincount(i, weights=turns, minlength=N_PLAY).astype(np.int64)
        self.s2 += np.bincount(i, weights=turns.astype(np.float64) ** 2, minlength=N_PLAY).astype(np.int64)
        h = np.bincount(turns[square == 1])
        if h.size > self.hist.size:
            self.hist = np.r_[self.hist, np.zeros(h.size - self.hist.size, dtype=np.int64)]
        self.hist[: h.size] += h

    def mean_ci(self) -> tuple[np.ndarray, np.ndarray]:
        """Mean and 95% half-width per start square from the running sums (so no game's turns are kept,
        which :func:`mdpviz.core.simulate.mean_ci` would need)."""
        n = self.n.astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = self.s1 / n
            var = (self.s2 - self.s1.astype(np.float64) ** 2 / n) / (n - 1)
            ci = np.where(n >= 2, Z95 * np.sqrt(np.maximum(var, 0.0) / n), np.inf)
        return mean, ci


def compare_strategies(
    cfg: SnakesSettings,
    *,
    games: int = 100_000,
    seed: int | None = None,
    games_per_square: int | None = None,
    names: tuple[str, ...] | None = None,
    mix: np.ndarray | None = None,
    per_square: np.ndarray | None = None,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> list[StrategyResult]:
    """Every strategy evaluated exactly and by simulation, for a side-by-side comparison.

    ``names``: the strategies (default :func:`strategy_names`, plus "custom" when ``per_square``
    is given). For each, ``games`` games are played from square 1 (their distribution is
    ``turns_hist``) and ``games_per_square`` games (default ``max(games // 10, 1)``) from each of
    squares 2..14, in chunks of :data:`~mdpviz.core.chunked.CHUNK_GAMES` games (memory does not
    grow with ``games``; at most :data:`~mdpviz.core.chunked.MAX_GAMES`). Each strategy draws
    from its own random stream derived from ``seed`` (``numpy.random.SeedSequence(seed).spawn``),
    so results do not depend on which other strategies are compared. A strategy that never
    finishes from some square gets exact = inf, no simulation and an ``error`` message.
    ``progress(done, total, label)`` is told after every chunk; ``cancelled()`` stops between
    chunks (the results then hold the games played so far). Ctrl+C raises
    :class:`~mdpviz.core.chunked.SimulationInterrupted` with the games played over all strategies.
    """
    games = check_games(games, "games")
    per = max(games // 10, 1) if games_per_square is None else check_games(games_per_square, "games_per_square")
    mdp = compile_snakes(cfg)
    if names is None:
        names = strategy_names(cfg, custom=per_square is not None)
    optimal = solve(mdp, tol=1e-12).policy if "optimal" in names else None
    streams = np.random.SeedSequence(seed).spawn(len(names))
    counts = np.r_[games, np.full(N_PLAY - 1, per)].astype(np.int64)
    bounds = np.r_[0, np.cumsum(counts)]
    each = int(bounds[-1])
    grand = each * len(names)
    report = progress if progress is not None else reporter()
    out: list[StrategyResult] = []
    for k, (name, ss) in enumerate(zip(names, streams)):
        probs = strategy_probs(cfg, name, optimal_policy=optimal, mix=mix, per_square=per_square)
        try:
            exact = exact_turns(cfg, probs, mdp=mdp)
        except ImproperPolicyError as e:
            nan = np.full(N_PLAY, np.nan)
            out.append(StrategyResult(name, probs, np.full(N_PLAY, np.inf), nan, nan.copy(),
                                      np.zeros(N_PLAY, dtype=np.int64), np.zeros(0, dtype=np.int64), str(e)))
            continue
        rng = np.random.default_rng(ss)
        acc = _Moments()
        pos = [0]

        def step(n: int) -> None:
            idx = np.arange(pos[0], pos[0] + n)
            square = np.searchsorted(bounds, idx, side="right").astype(np.int64)  # 1..14
            acc.add(square, _play(cfg, probs, square, rng, mdp, 10_000))
            pos[0] += n

        offset = k * each
        tell = None if report is None else (lambda d, t, lab, o=offset: report(o + d, grand, lab))
        try:
            run_chunks(each, step, label="games", progress=tell, cancelled=cancelled)
        except SimulationInterrupted as e:
            raise SimulationInterrupted(offset + e.done, grand, "games") from None
        mean, ci = acc.mean_ci()
        out.append(StrategyResult(
            name=name, probs=probs, exact=exact, mean=mean, ci=ci, games=acc.n.copy(), turns_hist=acc.hist.copy(),
        ))
    return out


# ------------------------------------------------------------------------------ one game, step by step
@dataclass(frozen=True)
class EpisodeStep:
    """One throw of a played game (for the GUI's animated episode player)."""

    square: int
    """Square before the throw (1..14)."""
    die: int
    """Index of the die thrown (0-based, into cfg.dice)."""
    roll: int
    """The face thrown (move in squares)."""
    event: str
    """What happened besides the move ("" or an Outcome event: restart, penalty, prison, bonus, ...)."""
    next_square: int
    """Square after the throw and any trap (1..15)."""
    cost: float
    """Turns this throw used (1; 2 after a prison; 0 after a bonus)."""


def play_episode(
    cfg: SnakesSettings,
    probs: np.ndarray,
    *,
    rng: np.random.Generator | int | None,
    start: int = 1,
    max_turns: int = 10_000,
) -> list[EpisodeStep]:
    """Play one game from ``start`` with strategy ``probs``, sampling :func:`outcomes` throw by throw.

    Stops on square 15 or after ``max_turns`` throws. ``rng``: a numpy Generator (or a seed).
    """
    cfg.validate()
    p = _check_probs(cfg, probs)
    if isinstance(start, bool) or not isinstance(start, numbers.Integral) or not 1 <= start <= N_PLAY:
        raise ValueError(f"start must be a square in 1..{N_PLAY}, got {start!r}")
    max_turns = _positive(max_turns, "max_turns")
    rng = np.random.default_rng(rng)
    square = int(start)
    steps: list[EpisodeStep] = []
    while square != GOAL and len(steps) < max_turns:
        die = int(rng.choice(cfg.n_dice, p=p[square - 1]))
        outs = outcomes(cfg, square, die)
        w = np.array([o.prob for o in outs])
        o = outs[int(rng.choice(len(outs), p=w / w.sum()))]
        steps.append(EpisodeStep(square, die, o.roll, o.event, o.square, o.cost))
        square = o.square
    return steps


# ------------------------------------------------------------------------------ the window's simulation job
def simulation_job(cfg: SnakesSettings, mdp: TabularMDP, policy: np.ndarray | None = None, *, games: int,
                   seed) -> Generator[JobProgress, None, SimulationResult]:
    """The batch simulation of every strategy of ``cfg`` from square 1, ``games`` games each, beside its
    exact expected turns (:func:`exact_turns`): a generator (the window's job thread steps it) that
    yields :class:`~mdpviz.models.kit.game.registry.JobProgress` per chunk of games and returns the
    :class:`~mdpviz.models.kit.boards.strategies.SimulationResult`. ``policy``: the optimal dice when solved
    already (else value iteration to 1e-12 here). Each strategy draws from its own stream of
    ``np.random.SeedSequence(seed)``."""
    names = strategy_names(cfg)
    games = at_least_two_games(games)
    opt = np.array(policy, dtype=np.int64) if policy is not None else solve(mdp, tol=1e-12).policy
    streams = np.random.SeedSequence(seed).spawn(len(names))
    chunks = max(1, min(8, games // 1000))
    sizes = [games // chunks + (1 if i < games % chunks else 0) for i in range(chunks)]
    total_steps = len(names) * chunks
    rows, notes = [], []
    for i, (name, ss) in enumerate(zip(names, streams)):
        probs = strategy_probs(cfg, name, optimal_policy=opt)
        try:
            exact = float(exact_turns(cfg, probs, mdp=mdp)[0])
        except ImproperPolicyError as e:
            notes.append(f"{name}: {e}")
            continue
        rng = np.random.default_rng(ss)
        parts = []
        for j, n in enumerate(sizes):
            parts.append(simulate_turns(cfg, probs, games=n, seed=rng, mdp=mdp))
            yield JobProgress(i * chunks + j + 1, total_steps, f"{name}: {sum(sizes[:j + 1]):,} of {games:,} games")
        turns = np.concatenate(parts)
        m, c = mean_ci(turns)
        dist = turn_distribution(mdp, probs, 0).probabilities  # exact P(k turns) beside the histogram
        rows.append(StrategyRow(name, exact, m, c, turns, distribution=dist))
    return SimulationResult(tuple(rows), "turns", "square 1", tuple(notes))


__all__ = [
    "EpisodeStep", "STRATEGY_NAMES", "StrategyResult", "TurnStats", "compare_strategies", "default_mix",
    "exact_turns", "play_episode", "simulate_every_start", "simulate_turns", "simulation_job", "strategy_names", "strategy_probs",
]
