"""Every optimal action, not only the one the solver picks: the tied sets a board draws, and in words.

The solvers' greedy policy takes, in each state, the lowest action whose Q is within the tie rule of
the best (:func:`mdpviz.solvers.sweep.optimal_rows`: ``TIE_TOL * (1 + |best|)``). Where several
actions are that close they are all optimal, and a board draws them all, the solver's pick solid
and the others outlined (the gambler's problem's many optimal stakes, the four corners of Sutton and
Barto's 4x4 grid, the symmetric moves of tic-tac-toe). The Q of each action is backed up from the
values the board's action was chosen with (:func:`mdpviz.models.kit.pictures.display.board_row_q`, the
inspector's rule), so the drawn set is the inspector's set of best actions at every sweep.

At discount 1 a policy may never end (:mod:`mdpviz.solvers.endless`): :func:`endless_text` says from
which states, for the status line. Pure functions, no Qt.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

import numpy as np

from mdpviz.models.kit.pictures.display import board_row_q
from mdpviz.solvers.endless import never_ends
from mdpviz.solvers.sweep import TIE_TOL, optimal_rows

ENDLESS_MAX_STATES = 20_000
"""The window looks for states where the drawn policy never ends up to this many states (one search of
the chain's components per shown sweep, on the GUI thread: about 0.2 s at 50,000 states and 0.6 s at
200,000 on a shared 2-core machine); larger models are not checked."""


class TiedSets(Mapping[int, tuple[int, ...]]):
    """{state: its optimal action ids, ascending} for the states where two or more tie: a read-only mapping
    over flat arrays (built without a Python loop over states; a tuple is made only when a state is asked
    for), equal to the plain dict of the same items."""

    def __init__(self, states: np.ndarray, ptr: np.ndarray, actions: np.ndarray) -> None:
        self.states = states
        """int64 (k): the states with a tie, ascending."""
        self._ptr = ptr
        self._actions = actions
        self._index = {int(s): i for i, s in enumerate(states.tolist())}

    def __getitem__(self, state: int) -> tuple[int, ...]:
        i = self._index[int(state)]
        return tuple(int(a) for a in self._actions[self._ptr[i]:self._ptr[i + 1]].tolist())

    def __len__(self) -> int:
        return int(self.states.size)

    def __iter__(self):
        return iter(self.states.tolist())

    def __repr__(self) -> str:
        return f"TiedSets({dict(self)!r})"


def backed_up(sweep: Any) -> bool:
    """True when ``sweep``'s values are values to back up (a solver's or a value learner's :class:`Sweep`), so
    that the ties of its greedy actions and the states its policy never ends from mean something; False for
    a policy-gradient run's frame, whose "values" are its actions' probabilities (issue 37)."""
    from mdpviz.solvers import registry
    from mdpviz.solvers.sweep import Sweep

    return isinstance(sweep, Sweep) and not registry.is_kind(getattr(sweep, "method", None), "policy-gradient")


def tied_sets(mdp: Any, q_rows: np.ndarray, *, tie_tol: float = TIE_TOL) -> TiedSets:
    """{state: its optimal action ids, ascending} for every state where two or more actions are optimal
    under the solvers' tie rule (:func:`~mdpviz.solvers.sweep.optimal_rows`) with the row Q-values
    ``q_rows`` (n_rows); states with one optimal action, and terminal states, are left out."""
    rows = np.flatnonzero(optimal_rows(mdp, np.asarray(q_rows, dtype=np.float64), tie_tol=tie_tol))
    states = np.asarray(mdp.row_state)[rows]  # rows are sorted by (state, action)
    acts = np.asarray(mdp.row_action)[rows].astype(np.int64)
    counts = np.bincount(states, minlength=int(mdp.n_states))
    multi = counts[states] > 1
    states, acts = states[multi], acts[multi]
    tied = np.flatnonzero(counts > 1).astype(np.int64)
    ptr = np.concatenate(([0], np.cumsum(counts[tied]))).astype(np.int64)
    return TiedSets(tied, ptr, acts)


def sweep_ties(mdp: Any, history: Sequence[Any], index: int, *, gs_block: int = 1, greedy_of_shown: bool = False,
               tie_tol: float = TIE_TOL) -> Mapping[int, tuple[int, ...]]:
    """:func:`tied_sets` of the snapshot ``history[index]``, each Q backed up as the board's action and
    the inspector's are (:func:`~mdpviz.models.kit.pictures.display.board_row_q`); none before the first sweep."""
    if index < 0 or not history:
        return TiedSets(np.zeros(0, np.int64), np.zeros(1, np.int64), np.zeros(0, np.int64))
    q = board_row_q(mdp, history, index, gs_block=gs_block, greedy_of_shown=greedy_of_shown)
    return tied_sets(mdp, q, tie_tol=tie_tol)


def state_ties(q: Sequence[float], objective: str, *, tie_tol: float = TIE_TOL) -> tuple[int, ...]:
    """The actions (indices of ``q``, NaN: not legal) within the tie rule of the best, "max" or "min": a
    board game's optimal moves of one position from :func:`~mdpviz.models.kit.pictures.display.state_q`."""
    q = np.asarray(q, dtype=np.float64)
    legal = np.isfinite(q)
    if not legal.any():
        return ()
    sign = -1.0 if objective == "min" else 1.0
    best = float(np.max(sign * q[legal]))
    ok = legal & (sign * np.where(legal, q, 0.0) >= best - tie_tol * (1.0 + abs(best)))
    return tuple(int(a) for a in np.flatnonzero(ok))


def ties_legend(ties: Mapping[int, Sequence[int]] | int | None) -> str:
    """The board's legend of ties: "every optimal action is drawn (tied ones outlined); 7 states have
    ties" (the solver's own pick is the solid one), "one optimal action in every state (no ties)", or ""
    where the ties were not looked at (None)."""
    if ties is None:
        return ""
    n = ties if isinstance(ties, int) else len(ties)
    if n <= 0:
        return "one optimal action in every state (no ties)"
    return f"every optimal action is drawn (tied ones outlined); {n} state{'s have' if n != 1 else ' has'} ties"


def board_legend(ties: Mapping[int, Sequence[int]] | None, endless: np.ndarray | None, *, mark: str = "\u221e") -> str:
    """The line under a board: :func:`ties_legend`, and what ``mark`` on a cell means where the drawn policy
    never ends from some states ("" where neither applies)."""
    parts = [t] if (t := ties_legend(ties)) else []
    if endless is not None and np.asarray(endless).any():
        n = int(np.count_nonzero(endless))
        parts.append(f"{mark}: the policy never ends from {'this state' if n == 1 else f'these {n} states'}")
    return "; ".join(parts)


def endless_states(mdp: Any, policy: np.ndarray | None) -> np.ndarray | None:
    """bool (n_states): the states from which ``policy`` (a snapshot's action per state) never reaches a
    terminal state, at discount 1 (:func:`~mdpviz.solvers.endless.never_ends`); None where the question
    does not arise: a discount below 1 (every policy's value is finite), no policy yet, a model without
    terminal states (a continuing task never ends by design) or larger than :data:`ENDLESS_MAX_STATES`."""
    if (mdp is None or policy is None or mdp.discount < 1.0 or not np.asarray(mdp.terminal).any()
            or mdp.n_states > ENDLESS_MAX_STATES):
        return None
    pol = np.asarray(policy, dtype=np.int64)
    if pol.shape != (mdp.n_states,) or (pol[~np.asarray(mdp.terminal)] < 0).any():
        return None  # not a full policy (a learner's snapshot, a sweep of the model before an edit)
    return never_ends(mdp, pol)


def endless_text(endless: np.ndarray | None, name: Callable[[int], str], *, limit: int = 6) -> str:
    """"the policy never ends from 3 states: (1,1), (1,2), (2,2)" ("" where it ends from every state)."""
    if endless is None or not np.asarray(endless).any():
        return ""
    states = np.flatnonzero(endless)
    names = ", ".join(name(int(s)) for s in states[:limit])
    more = f" and {states.size - limit} more" if states.size > limit else ""
    n = states.size
    return f"the policy never ends from {n} state{'s' if n != 1 else ''}: {names}{more}"


__all__ = ["ENDLESS_MAX_STATES", "TiedSets", "backed_up", "board_legend", "endless_states", "endless_text", "state_ties", "sweep_ties", "tied_sets",
           "ties_legend"]
