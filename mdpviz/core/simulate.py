"""Vectorised Monte Carlo play-out of any :class:`TabularMDP` under a (stochastic) policy.

All games are simulated by sampling the same transitions the solvers read, so the rules of a game
live in one place (its compiler). Every episode advances one step per numpy pass; a transition is
sampled by one ``searchsorted`` over the cumulative probabilities of all rows.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mdpviz.core.mdp import TabularMDP


@dataclass(frozen=True, eq=False)
class Episodes:
    """The outcome of N simulated episodes."""

    start: np.ndarray
    """int64 (N): start state of each episode."""
    final_state: np.ndarray
    """int64 (N): the state each episode ended in (a terminal state unless it hit ``max_steps``)."""
    total: np.ndarray
    """float64 (N): discounted sum of rewards (or costs) of each episode."""
    steps: np.ndarray
    """int64 (N): number of steps (actions taken) in each episode."""
    finished: np.ndarray
    """bool (N): the episode reached a terminal state within ``max_steps``."""


Z95 = 1.959963984540054
"""Normal quantile of a two-sided 95% confidence interval."""


def mean_ci(x: np.ndarray) -> tuple[float, float]:
    """Sample mean and the half-width of its normal 95% confidence interval (e.g. of ``Episodes.total``)."""
    x = np.asarray(x, dtype=np.float64)
    if x.size < 2:
        return (float(x.mean()) if x.size else math.nan), math.inf
    return float(x.mean()), float(Z95 * x.std(ddof=1) / math.sqrt(x.size))


def policy_matrix(mdp: TabularMDP, policy: np.ndarray) -> np.ndarray:
    """(n_states x n_actions) probabilities of a deterministic policy (action id per state; -1 and
    terminal states get no action)."""
    probs = np.zeros((mdp.n_states, mdp.n_actions))
    policy = np.asarray(policy, dtype=np.int64)
    ok = np.flatnonzero((policy >= 0) & ~mdp.terminal)
    probs[ok, policy[ok]] = 1.0
    return probs


def uniform_policy_matrix(mdp: TabularMDP) -> np.ndarray:
    """(n_states x n_actions) probabilities of playing uniformly among each state's legal actions
    (terminal states get no action): the random opponent and the random strategy of every game."""
    probs = np.zeros((mdp.n_states, mdp.n_actions))
    live = ~mdp.terminal[mdp.row_state]
    w = 1.0 / mdp.actions_per_state[mdp.row_state]
    probs[mdp.row_state[live], mdp.row_action[live]] = w[live]
    return probs


def proportion_ci(k: np.ndarray | int, n: int, z: float = 1.96) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval (lower, upper) for k successes in n trials (95% by default)."""
    k = np.asarray(k, dtype=np.float64)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return centre - half, centre + half


def _row_choice_table(mdp: TabularMDP, probs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cumulative action probabilities over each state's rows, for sampling a row per state."""
    probs = np.asarray(probs, dtype=np.float64)
    if probs.shape != (mdp.n_states, mdp.n_actions):
        raise ValueError(f"policy probabilities must have shape ({mdp.n_states}, {mdp.n_actions}), got {probs.shape}")
    w = probs[mdp.row_state, mdp.row_action]
    tot = np.bincount(mdp.row_state, weights=w, minlength=mdp.n_states)
    bad = np.flatnonzero(~mdp.terminal & (np.abs(tot - 1.0) > 1e-9))
    if bad.size:
        s = bad[0]
        raise ValueError(f"state {s}: the policy's probabilities over its legal actions sum to {tot[s]:.6g}, not 1")
    # key = state index + cumulative probability within the state's rows
    cum = np.cumsum(w) - np.repeat(np.r_[0.0, np.cumsum(tot)][:-1], mdp.actions_per_state)
    return mdp.row_state + np.minimum(cum, 1.0), w


def simulate(
    mdp: TabularMDP,
    probs: np.ndarray,
    *,
    start: int | np.ndarray,
    episodes: int,
    seed: int | np.random.Generator | None = None,
    max_steps: int = 10_000,
) -> Episodes:
    """Play ``episodes`` episodes of ``mdp`` with action probabilities ``probs`` (n_states x n_actions).

    ``start`` is one state or an array of start states (one per episode). Rewards are discounted
    by ``mdp.discount`` per step. Episodes still running after ``max_steps`` stop with
    ``finished=False``. ``seed`` makes the run repeatable.
    """
    episodes = int(episodes)
    if episodes < 1:
        raise ValueError(f"the number of episodes must be at least 1, got {episodes}")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    row_key, _ = _row_choice_table(mdp, probs)
    trans_key = np.repeat(np.arange(mdp.n_rows), np.diff(mdp.row_ptr)) + np.minimum(
        np.cumsum(mdp.prob) - np.repeat(np.r_[0.0, np.cumsum(mdp.prob)][mdp.row_ptr[:-1]], np.diff(mdp.row_ptr)), 1.0
    )
    starts = np.broadcast_to(np.asarray(start, dtype=np.int64), (episodes,)).copy()
    if np.any((starts < 0) | (starts >= mdp.n_states)):
        raise ValueError(f"start state out of range 0..{mdp.n_states - 1}")
    state = starts.copy()
    total = np.zeros(episodes)
    steps = np.zeros(episodes, dtype=np.int64)
    disc = np.ones(episodes)
    active = np.flatnonzero(~mdp.terminal[state])
    rp0 = mdp.row_ptr
    sp0 = mdp.state_ptr
    for _ in range(int(max_steps)):
        if active.size == 0:
            break
        s = state[active]
        u = rng.random(active.size)
        r = np.searchsorted(row_key, s + u, side="right")
        r = np.clip(r, sp0[s], sp0[s + 1] - 1)
        u2 = rng.random(active.size)
        t = np.searchsorted(trans_key, r + u2, side="right")
        t = np.clip(t, rp0[r], rp0[r + 1] - 1)
        total[active] += disc[active] * mdp.reward[t]
        disc[active] *= mdp.discount
        steps[active] += 1
        nxt = mdp.dst[t]
        state[active] = nxt
        active = active[~mdp.terminal[nxt]]
    return Episodes(start=starts, final_state=state, total=total, steps=steps, finished=mdp.terminal[state])
