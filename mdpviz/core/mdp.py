"""The one finite-MDP representation that every game compiles into and every solver reads.

A :class:`TabularMDP` is a stack of (state, action) rows in CSR form:

* ``state_ptr[s]:state_ptr[s+1]`` are the rows (legal actions) of state ``s``, sorted by action;
* ``row_action[r]`` is the action number of row ``r``;
* ``row_ptr[r]:row_ptr[r+1]`` are the transitions of row ``r``: ``dst`` (next state),
  ``prob`` (probability) and ``reward`` (reward, or cost when the objective is ``"min"``).

Per state: ``terminal`` (absorbing, value 0, its rows if any are ignored by the solvers) and
``mover`` (+1: the player to move maximises, -1: minimises), so an alternating two-player
zero-sum game is solved by the same code as a one-player MDP. ``objective="min"`` turns the
whole problem into cost minimisation (snakes and ladders minimises expected turns).

This module is plain numpy/scipy; it never imports Qt.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Sequence

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    import scipy.sparse as sp

PROB_TOL = 1e-9
"""Allowed deviation of a (state, action)'s probabilities from a sum of 1."""

DEFAULT_STATE_BUDGET = 5_000_000
"""Largest number of states (and of action ids) a model may declare, unless ``MDPVIZ_MAX_STATES``
says otherwise. A model of 5 million states takes a few hundred MB to solve; a typo such as
``numStates 100000000`` would take gigabytes before anything could be said about it."""


def state_budget() -> int:
    """The state budget: ``MDPVIZ_MAX_STATES`` from the environment, else :data:`DEFAULT_STATE_BUDGET`."""
    import os

    raw = os.environ.get("MDPVIZ_MAX_STATES", "").strip().replace("_", "")
    if raw:
        try:
            v = int(raw)
        except ValueError:
            raise ValueError(f"MDPVIZ_MAX_STATES must be a positive integer, got {raw!r}") from None
        if v >= 1:
            return v
        raise ValueError(f"MDPVIZ_MAX_STATES must be a positive integer, got {raw!r}")
    return DEFAULT_STATE_BUDGET


def check_state_budget(n: int, what: str = "states") -> None:
    """ValueError if ``n`` states (or action ids) is over :func:`state_budget`, saying how to raise it."""
    budget = state_budget()
    if n > budget:
        raise ValueError(
            f"{n:,} {what} is over the state budget of {budget:,} "
            f"(set the environment variable MDPVIZ_MAX_STATES to raise it)"
        )


def is_whole(x: object) -> bool:
    """``x`` is a whole number (a Python or numpy integer, not a bool): how settings check their counts."""
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


def read_only(a: np.ndarray) -> np.ndarray:
    """A read-only view of ``a`` (``a`` keeps its own flag): how frozen results hand out their arrays."""
    v = a.view()
    v.flags.writeable = False
    return v


@dataclass(frozen=True, eq=False)
class TabularMDP:
    """A finite MDP in CSR form (see the module docstring). Build it with :meth:`from_transitions`."""

    n_states: int
    """Number of states."""
    n_actions: int
    """Number of action ids; each state has a subset of them (its legal actions)."""
    state_ptr: np.ndarray
    """int64 (n_states + 1): the rows of state s are state_ptr[s]:state_ptr[s+1]."""
    row_action: np.ndarray
    """int64 (n_rows): the action id of each row, increasing within a state."""
    row_ptr: np.ndarray
    """int64 (n_rows + 1): the transitions of row r are row_ptr[r]:row_ptr[r+1]."""
    dst: np.ndarray
    """int64 (n_transitions): next state of each transition."""
    prob: np.ndarray
    """float64 (n_transitions): probability of each transition."""
    reward: np.ndarray
    """float64 (n_transitions): reward (or cost, with objective "min") of each transition."""
    discount: float
    """Discount factor gamma in [0, 1] applied to the value of the next state."""
    terminal: np.ndarray
    """bool (n_states): absorbing states whose value is 0."""
    mover: np.ndarray
    """int8 (n_states): +1 if the player to move maximises the objective, -1 if it minimises it."""
    objective: str = "max"
    """"max" (rewards) or "min" (costs, e.g. expected number of turns)."""
    state_labels: tuple[str, ...] | None = None
    """Optional display name per state."""
    action_labels: tuple[str, ...] | None = None
    """Optional display name per action id."""
    mdptype: str = field(default="")
    """"episodic" or "continuing" as given by a course file; inferred from terminal states if empty."""
    reward_sd: np.ndarray | None = field(default=None, repr=False)
    """Optional float64 (n_transitions): the standard deviation of each transition's reward (None: every
    reward is exact). ``reward`` is then the mean, which the solvers use; the learners' simulator draws
    N(mean, sd^2) where sd > 0 (Sutton and Barto's example 6.7). Kept by ``dataclasses.replace``."""

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_transitions(
        cls,
        n_states: int,
        n_actions: int,
        src: Sequence[int] | np.ndarray,
        action: Sequence[int] | np.ndarray,
        dst: Sequence[int] | np.ndarray,
        prob: Sequence[float] | np.ndarray,
        reward: Sequence[float] | np.ndarray,
        *,
        discount: float,
        terminal: Sequence[int] | np.ndarray = (),
        mover: Sequence[int] | np.ndarray | None = None,
        objective: str = "max",
        state_labels: Sequence[str] | None = None,
        action_labels: Sequence[str] | None = None,
        mdptype: str = "",
    ) -> "TabularMDP":
        """Build and validate an MDP from flat per-transition arrays.

        ``src[i], action[i] -> dst[i]`` with probability ``prob[i]`` and reward ``reward[i]``.
        ``terminal`` lists terminal state indices. ``mover`` is +1/-1 per state (default all +1).
        Raises ``ValueError`` naming the offending state and action.
        """
        n_states = int(n_states)
        n_actions = int(n_actions)
        if n_states < 1:
            raise ValueError(f"n_states must be at least 1, got {n_states}")
        if n_actions < 1:
            raise ValueError(f"n_actions must be at least 1, got {n_actions}")
        check_state_budget(n_states, "states")  # before any per-state array is allocated
        check_state_budget(n_actions, "action ids")
        src = np.asarray(src, dtype=np.int64).ravel()
        action = np.asarray(action, dtype=np.int64).ravel()
        dst = np.asarray(dst, dtype=np.int64).ravel()
        prob = np.asarray(prob, dtype=np.float64).ravel()
        reward = np.asarray(reward, dtype=np.float64).ravel()
        n = src.size
        if not (action.size == dst.size == prob.size == reward.size == n):
            raise ValueError(
                "src, action, dst, prob and reward must have the same length, got "
                f"{src.size}, {action.size}, {dst.size}, {prob.size}, {reward.size}"
            )
        for name, arr, hi in (("src", src, n_states), ("dst", dst, n_states), ("action", action, n_actions)):
            bad = np.flatnonzero((arr < 0) | (arr >= hi))
            if bad.size:
                i = bad[0]
                raise ValueError(
                    f"transition {i} (state {src[i]}, action {action[i]}): {name} index {arr[i]} "
                    f"is out of range 0..{hi - 1}"
                )
        bad = np.flatnonzero(~np.isfinite(prob) | (prob < 0) | (prob > 1 + PROB_TOL))
        if bad.size:
            i = bad[0]
            raise ValueError(
                f"state {src[i]}, action {action[i]}: probability {float(prob[i])!r} of moving to "
                f"state {dst[i]} is outside [0, 1]"
            )
        bad = np.flatnonzero(~np.isfinite(reward))
        if bad.size:
            i = bad[0]
            raise ValueError(f"state {src[i]}, action {action[i]}: reward {float(reward[i])!r} is not finite")
        discount = float(discount)
        if not (0.0 <= discount <= 1.0):
            raise ValueError(f"discount must be in [0, 1], got {discount}")
        if objective not in ("max", "min"):
            raise ValueError(f"objective must be 'max' or 'min', got {objective!r}")

        term = np.zeros(n_states, dtype=bool)
        terminal = np.asarray(terminal, dtype=np.int64).ravel()
        if terminal.size:
            bad = terminal[(terminal < 0) | (terminal >= n_states)]
            if bad.size:
                raise ValueError(f"terminal state {bad[0]} is out of range 0..{n_states - 1}")
            term[terminal] = True

        if mover is None:
            mov = np.ones(n_states, dtype=np.int8)
        else:
            mov = np.asarray(mover).ravel()
            if mov.size != n_states or not np.all((mov == 1) | (mov == -1)):
                raise ValueError(f"mover must hold +1 or -1 for each of the {n_states} states")
            mov = mov.astype(np.int8)

        # Sort transitions by (state, action); stable, so the given order of successors is kept.
        order = np.lexsort((action, src))
        src, action, dst, prob, reward = src[order], action[order], dst[order], prob[order], reward[order]
        key = src * n_actions + action
        starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if n else np.zeros(0, np.int64)
        row_key = key[starts]
        row_state = row_key // n_actions
        row_action = row_key % n_actions
        row_ptr = np.r_[starts, n].astype(np.int64)
        state_ptr = np.searchsorted(row_state, np.arange(n_states + 1)).astype(np.int64)

        if n:
            sums = np.add.reduceat(prob, starts)
            bad = np.flatnonzero(np.abs(sums - 1.0) > PROB_TOL)
            if bad.size:
                r = bad[0]
                raise ValueError(
                    f"state {row_state[r]}, action {row_action[r]}: probabilities sum to "
                    f"{sums[r]:.12g}, not 1 (tolerance {PROB_TOL:g})"
                )
        counts = np.diff(state_ptr)
        bad = np.flatnonzero((counts == 0) & ~term)
        if bad.size:
            raise ValueError(
                f"state {bad[0]} has no action and is not terminal "
                f"({bad.size} such state{'s' if bad.size > 1 else ''})"
            )
        if state_labels is not None:
            state_labels = tuple(str(x) for x in state_labels)
            if len(state_labels) != n_states:
                raise ValueError(f"state_labels has {len(state_labels)} entries for {n_states} states")
        if action_labels is not None:
            action_labels = tuple(str(x) for x in action_labels)
            if len(action_labels) != n_actions:
                raise ValueError(f"action_labels has {len(action_labels)} entries for {n_actions} actions")
        if mdptype not in ("", "episodic", "continuing"):
            raise ValueError(f"mdptype must be 'episodic' or 'continuing', got {mdptype!r}")
        return cls(
            n_states=n_states,
            n_actions=n_actions,
            state_ptr=read_only(state_ptr),
            row_action=read_only(row_action.astype(np.int64)),
            row_ptr=read_only(row_ptr),
            dst=read_only(dst),
            prob=read_only(prob),
            reward=read_only(reward),
            discount=discount,
            terminal=read_only(term),
            mover=read_only(mov),
            objective=objective,
            state_labels=state_labels,
            action_labels=action_labels,
            mdptype=mdptype,
        )

    # ------------------------------------------------------------------ derived data
    @property
    def n_rows(self) -> int:
        """Number of (state, action) pairs."""
        return int(self.row_action.size)

    @property
    def n_transitions(self) -> int:
        """Number of stored transitions."""
        return int(self.dst.size)

    @property
    def is_episodic(self) -> bool:
        """True for an episodic MDP (the course file says so, or there are terminal states)."""
        if self.mdptype:
            return self.mdptype == "episodic"
        return bool(self.terminal.any())

    @property
    def is_two_player(self) -> bool:
        """True when some states are the maximiser's and some the minimiser's."""
        return bool((self.mover == 1).any() and (self.mover == -1).any())

    @cached_property
    def row_state(self) -> np.ndarray:
        """int64 (n_rows): the state of each row."""
        return read_only(np.repeat(np.arange(self.n_states), np.diff(self.state_ptr)))

    @cached_property
    def actions_per_state(self) -> np.ndarray:
        """int64 (n_states): number of legal actions of each state."""
        return read_only(np.diff(self.state_ptr))

    @cached_property
    def row_reward(self) -> np.ndarray:
        """float64 (n_rows): expected immediate reward (or cost) of each row, sum of p * r."""
        if self.n_transitions == 0:
            return read_only(np.zeros(self.n_rows))
        return read_only(np.add.reduceat(self.prob * self.reward, self.row_ptr[:-1]))

    @cached_property
    def matrix(self) -> "sp.csr_matrix":
        """The (n_rows x n_states) transition matrix P as scipy CSR (duplicates kept)."""
        import scipy.sparse as sp  # imported on first use: the CLI's small commands never need it

        idx = self.dst.astype(np.int32) if self.n_states < 2**31 else self.dst
        ptr = self.row_ptr.astype(np.int32) if self.n_transitions < 2**31 else self.row_ptr
        m = sp.csr_matrix((np.asarray(self.prob), idx, ptr), shape=(self.n_rows, self.n_states))
        return m

    @cached_property
    def sense(self) -> np.ndarray:
        """int8 (n_states): +1 where the state's value is a max over actions, -1 where a min."""
        s = self.mover.astype(np.int8) * (1 if self.objective == "max" else -1)
        return read_only(s)

    @cached_property
    def uniform_actions(self) -> int:
        """k if every state has exactly k actions (dense fast path in the solvers), else 0."""
        c = self.actions_per_state
        return int(c[0]) if c.size and np.all(c == c[0]) and c[0] > 0 else 0

    @cached_property
    def dense_actions(self) -> bool:
        """True if every state has exactly the actions 0..n_actions-1 (then action id = row offset)."""
        k = self.uniform_actions
        return bool(k == self.n_actions and np.array_equal(self.row_action, np.tile(np.arange(k), self.n_states)))

    def actions_of(self, state: int) -> np.ndarray:
        """Action ids legal in ``state``."""
        return self.row_action[self.state_ptr[state] : self.state_ptr[state + 1]]

    def row_of(self, state: int, action: int) -> int:
        """Row index of (state, action); ValueError if the action is not legal there."""
        lo, hi = int(self.state_ptr[state]), int(self.state_ptr[state + 1])
        i = lo + int(np.searchsorted(self.row_action[lo:hi], action))
        if i >= hi or self.row_action[i] != action:
            raise ValueError(f"action {action} is not legal in state {state}")
        return i

    def outcomes(self, state: int, action: int) -> list[tuple[int, float, float]]:
        """The transitions of (state, action) as (next state, probability, reward) triples."""
        r = self.row_of(state, action)
        lo, hi = int(self.row_ptr[r]), int(self.row_ptr[r + 1])
        return [(int(d), float(p), float(w)) for d, p, w in zip(self.dst[lo:hi], self.prob[lo:hi], self.reward[lo:hi])]

    def q_values(self, values: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """float64 (n_rows): Q(s, a) = sum_s' p (r + gamma V(s')) for every row (Bellman backup);
        with ``rows`` (row indices), for those rows only, in that order (the same sums)."""
        v = np.asarray(values, dtype=np.float64)
        if rows is None:
            return self.row_reward + self.discount * (self.matrix @ v)
        return self.row_reward[rows] + self.discount * (self.matrix[rows] @ v)

    def to_transitions(self) -> dict[str, np.ndarray]:
        """The flat arrays that :meth:`from_transitions` takes (src, action, dst, prob, reward)."""
        row_of_t = np.repeat(np.arange(self.n_rows), np.diff(self.row_ptr))
        return {
            "src": self.row_state[row_of_t],
            "action": self.row_action[row_of_t],
            "dst": np.asarray(self.dst),
            "prob": np.asarray(self.prob),
            "reward": np.asarray(self.reward),
        }

    def __repr__(self) -> str:
        kind = "two-player" if self.is_two_player else self.objective
        return (
            f"TabularMDP({self.n_states} states, {self.n_actions} actions, {self.n_rows} rows, "
            f"{self.n_transitions} transitions, discount={self.discount:g}, {kind}, "
            f"{int(self.terminal.sum())} terminal)"
        )
