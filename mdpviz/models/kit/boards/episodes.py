"""One played-out episode as the episode player shows it: pure functions, no Qt.

A game gives the player a list of :class:`Move`. Snakes and ladders converts the throws of
``mdpviz.models.snakes.simulate.play_episode`` (which samples the game's own rule function);
any other MDP is sampled from its compiled transitions by :func:`sample_mdp_episode`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from mdpviz.core.mdp import TabularMDP


@dataclass(frozen=True)
class Move:
    """One step of an episode."""

    state: int
    """State before the step."""
    action: int
    """Action taken (die index for snakes)."""
    text: str
    """What happened, in words (e.g. "die 3 rolled 2: 5 -> 7, penalty -> 4")."""
    next_state: int
    """State after the step."""
    cost: float
    """Reward or cost of the step (turns for snakes)."""
    total: float
    """Running (discounted) total after this step."""
    label: str = ""
    """A few words for the token on the board (e.g. "die 3: 2, penalty")."""


def sample_mdp_episode(
    mdp: TabularMDP,
    probs: np.ndarray,
    *,
    rng: np.random.Generator,
    start: int = 0,
    max_steps: int = 200,
    state_name: Callable[[int], str] | None = str,
    action_name: Callable[[int], str] = str,
) -> list[Move]:
    """Play one episode of ``mdp`` with action probabilities ``probs`` (n_states x n_actions).

    Samples an action from ``probs[state]``, then a transition of that (state, action) row; the
    running total is discounted by ``mdp.discount`` per step. Stops at a terminal state or after
    ``max_steps`` steps (continuing MDPs never end by themselves). ``state_name`` None: the texts name
    the moves only (board games, whose states are numbers a student never sees; the board shows them).
    """
    probs = np.asarray(probs, dtype=np.float64)
    if probs.shape != (mdp.n_states, mdp.n_actions):
        raise ValueError(f"policy probabilities must have shape ({mdp.n_states}, {mdp.n_actions}), got {probs.shape}")
    if not 0 <= start < mdp.n_states:
        raise ValueError(f"start state {start} is out of range 0..{mdp.n_states - 1}")
    s = int(start)
    total, disc = 0.0, 1.0
    out: list[Move] = []
    for _ in range(int(max_steps)):
        if mdp.terminal[s]:
            break
        acts = mdp.actions_of(s)
        w = probs[s, acts]
        if not w.sum() > 0:
            where = state_name(s) if state_name is not None else f"move {len(out) + 1}"
            raise ValueError(f"{where}: the policy gives no probability to any legal action")
        a = int(acts[rng.choice(acts.size, p=w / w.sum())])
        r = mdp.row_of(s, a)
        lo, hi = int(mdp.row_ptr[r]), int(mdp.row_ptr[r + 1])
        p = np.asarray(mdp.prob[lo:hi])
        t = lo + int(rng.choice(hi - lo, p=p / p.sum()))
        nxt, rew = int(mdp.dst[t]), float(mdp.reward[t])
        total += disc * rew
        disc *= mdp.discount
        if state_name is None:
            text = f"{action_name(a)}" + (f", reward {rew:g}" if rew else "")
            label = action_name(a)
        else:
            text = f"action {action_name(a)}: {state_name(s)} -> {state_name(nxt)}, reward {rew:g}"
            label = f"action {action_name(a)}"
        out.append(Move(s, a, text, nxt, rew, total, label))
        s = nxt
    return out


def snakes_moves(steps: Sequence, dice_names: Sequence[str]) -> list[Move]:
    """The throws of ``snakes_sim.play_episode`` as moves (states are squares - 1, total in turns)."""
    out: list[Move] = []
    total = 0.0
    for step in steps:
        total += float(step.cost)
        text = f"die {step.die + 1} ({dice_names[step.die]}) rolled {step.roll}: square {step.square} -> {step.next_square}"
        if step.event:
            text += f" ({step.event})"
        if step.cost != 1.0:
            text += f", {step.cost:g} turn{'s' if step.cost != 1 else ''}"
        label = f"die {step.die + 1}: {step.roll}" + (f", {step.event}" if step.event else "")
        out.append(Move(step.square - 1, step.die, text, step.next_square - 1, float(step.cost), total, label))
    return out
