"""Monte Carlo tree search (UCT) on a compiled table, with the exact value of every node beside its estimate.

Kocsis and Szepesvari's UCT, as Sutton and Barto section 8.11 describe Monte Carlo tree search: every
simulation runs four phases from the root position,

1. **selection**: down the tree, in each position the move of largest UCB score,
   ``sense * mean + c * scale * sqrt(ln N / n)`` (N the position's visits, n the move's, sense +1 where the
   mover maximises and -1 where it minimises: minimax falls out of the mover signs of the
   :class:`~mdpviz.core.mdp.TabularMDP`), until a position with a move not tried yet;
2. **expansion**: one untried move (drawn uniformly) is added, and its outcome is sampled: a row of the table with
   several outcomes (the random opponent's reply, a die, a risky cell) is a chance node, whose outcomes are
   drawn with their probabilities and grow as separate children; the outcome position is added;
3. **rollout**: from that position, uniformly random legal moves (outcomes drawn with their probabilities) to
   the end of the game (or :data:`ROLLOUT_CAP` moves), the discounted return G summed on the way;
4. **backup**: along the path back to the root every node's visits grow by one and its sum by the return from
   it (a move's return is r + gamma G of the position it led to).

``scale`` is the range of the model's rewards (max r - min r): UCT's constant ``c`` is meant for returns in
[0, 1], so the exploration term is stretched to the model's units. The tree is a tree: a position reached by
two move orders is two nodes (textbook UCT; a search that shares them and backs up by expectimax over the shared
positions is the exact solve, whose values each node carries in :attr:`SearchTree.exact`).

Each node carries its visits, mean return, UCB score and the **exact** value of its position from the project's
exact solve of the same table: V*(s) for a position, Q*(s, a) = sum_s' p (r + gamma V*(s')) for a move.
:func:`tree_search` is a generator yielding one frozen :class:`SearchTree` per simulation (``gen.send(k)``:
k simulations before the next snapshot, as the solvers' Run does), each with the last simulation's four phases.
Plain Python lists in the loop (about 40,000 simulations a second on tic-tac-toe): no numba needed.
"""
from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass
from typing import Generator

import numpy as np

from mdpviz.core.mdp import TabularMDP, read_only

POSITION, MOVE = 0, 1
"""Node kinds: a position (a state of the table) and a move (a row: the position's action, a chance node when
its row has several outcomes)."""

ROLLOUT_CAP = 10_000
"""A rollout stops after this many moves (a game that can cycle)."""

MAX_SIMULATIONS = 1_000_000
"""The most simulations one tree takes: each adds up to two nodes, about 0.7 KB each as this module keeps them
(checkers: 215,000 nodes after 300,000 simulations took 150 MB), so a tree stays under about 1.4 GB."""

DEFAULT_C = math.sqrt(2.0)
"""UCT's exploration constant (Kocsis and Szepesvari's sqrt(2), for returns in [0, 1])."""


@dataclass(frozen=True, eq=False)
class SearchTree:
    """One snapshot of the search: the tree after ``simulations`` simulations (arrays per node, node 0 the root,
    read-only) and the last simulation's four phases."""

    simulations: int
    """Simulations run so far."""
    root: int
    """The root position's state id."""
    kind: np.ndarray
    """int8 per node: :data:`POSITION` or :data:`MOVE`."""
    state: np.ndarray
    """int64 per node: the position's state id (a move node: the state it is a move of)."""
    row: np.ndarray
    """int64 per node: a move node's row of the table (-1 for positions)."""
    action: np.ndarray
    """int64 per node: a move node's action id (-1 for positions)."""
    parent: np.ndarray
    """int64 per node: the parent node (-1 for the root)."""
    visits: np.ndarray
    """int64 per node: simulations through the node."""
    mean: np.ndarray
    """float64 per node: the mean return from the node (a move: of r + gamma G), reward units; nan before a visit."""
    ucb: np.ndarray
    """float64 per node: a move's UCB score in its mover's direction, mean + sense c scale sqrt(ln N / n), as the
    next selection would see it (nan for positions)."""
    exact: np.ndarray
    """float64 per node: the exact value, V*(s) of a position, Q*(s, a) of a move (the project's exact solve)."""
    selection: tuple[int, ...]
    """The last simulation's selection: the nodes it walked down through (root first)."""
    expanded: tuple[int, ...]
    """The nodes the last simulation added (its new move and outcome, or an outcome of a known move)."""
    rollout: tuple[int, ...]
    """The states of the last simulation's random rollout, from the expanded position to the end."""
    rollout_return: float
    """The discounted return of that rollout (reward units)."""
    elapsed: float
    """Seconds of search so far."""
    c: float
    """The exploration constant."""
    scale: float
    """The reward range the exploration term is stretched by."""
    root_rows: np.ndarray
    """int64: the root's rows (its legal moves), tried or not."""
    root_q: np.ndarray
    """float64: Q*(root, a) of each of those rows (the exact solve)."""
    root_sense: int = 1
    """+1 when the root's mover maximises, -1 when it minimises."""

    @property
    def n_nodes(self) -> int:
        """How many nodes the tree holds."""
        return int(self.kind.size)

    def children(self, node: int) -> np.ndarray:
        """The child nodes of ``node``, in the order they were added."""
        return np.flatnonzero(self.parent == node)

    def move_nodes(self) -> np.ndarray:
        """The root's move nodes, by action id."""
        kids = self.children(0)
        return kids[np.argsort(self.action[kids], kind="stable")]

    def best_move(self) -> int:
        """The action the search would play: its most visited root move (ties: the better mean for the root's
        mover, then the lower action id); -1 before any simulation."""
        kids = self.move_nodes()
        if not kids.size:
            return -1
        better = np.nan_to_num(self.root_sense * self.mean[kids], nan=-np.inf)
        key = np.lexsort((self.action[kids], -better, -self.visits[kids]))
        return int(self.action[kids[key[0]]])

    @property
    def phases(self) -> tuple[tuple[str, tuple[int, ...]], ...]:
        """The last simulation's four phases as (name, nodes or states): selection, expansion (nodes), rollout
        (states), backup (the nodes whose statistics changed: the selection and the expansion)."""
        return (("selection", self.selection), ("expansion", self.expanded), ("rollout", self.rollout),
                ("backup", self.selection + self.expanded))


class _Table:
    """The rows of each state as Python lists, built on first use (a tree visits few of a big table's states)."""

    def __init__(self, mdp: TabularMDP) -> None:
        self.state_ptr = mdp.state_ptr.tolist()
        self.row_ptr = np.asarray(mdp.row_ptr)
        self.dst = np.asarray(mdp.dst)
        self.prob = np.asarray(mdp.prob, dtype=np.float64)
        self.reward = np.asarray(mdp.reward, dtype=np.float64)
        self.row_action = np.asarray(mdp.row_action)
        self.terminal = np.asarray(mdp.terminal).tolist()
        self.sense = np.asarray(mdp.sense).tolist()
        self._rows: dict[int, list[int]] = {}
        self._out: dict[int, tuple[list[int], list[float], list[float]]] = {}

    def rows(self, s: int) -> list[int]:
        """The rows of state ``s`` (empty for a terminal state)."""
        got = self._rows.get(s)
        if got is None:
            got = [] if self.terminal[s] else list(range(self.state_ptr[s], self.state_ptr[s + 1]))
            self._rows[s] = got
        return got

    def outcomes(self, row: int) -> tuple[list[int], list[float], list[float]]:
        """(next states, cumulative probabilities, rewards) of ``row``."""
        got = self._out.get(row)
        if got is None:
            t0, t1 = int(self.row_ptr[row]), int(self.row_ptr[row + 1])
            c = np.cumsum(self.prob[t0:t1])
            got = (self.dst[t0:t1].tolist(), (c / c[-1]).tolist(), self.reward[t0:t1].tolist())
            self._out[row] = got
        return got


def tree_search(
    mdp: TabularMDP,
    root: int,
    *,
    exact: np.ndarray,
    c: float = DEFAULT_C,
    seed: int | None = 0,
    simulations: int | None = None,
) -> Generator[SearchTree, "int | None", SearchTree]:
    """UCT from state ``root`` of ``mdp`` (see the module docstring): one :class:`SearchTree` per simulation
    (``gen.send(k)`` asks for k before the next snapshot), ending after ``simulations`` simulations (None: never;
    the caller stops it) with the last snapshot as its return value. ``exact``: V* per state (the project's exact
    solve of this table), written beside every node. ``seed``: the expansions', outcomes' and rollouts' draws.
    ValueError naming the option for a bad root, c, seed or count."""
    n = mdp.n_states
    if isinstance(root, bool) or not isinstance(root, (int, np.integer)) or not 0 <= int(root) < n:
        raise ValueError(f"position: state {root!r} is not a state of this model (0..{n - 1})")
    if mdp.terminal[int(root)] or mdp.state_ptr[int(root)] == mdp.state_ptr[int(root) + 1]:
        raise ValueError(f"position: state {int(root)} is the end of the game, there is no move to search")
    if isinstance(c, bool) or not isinstance(c, (int, float)) or not (math.isfinite(c) and c >= 0):
        raise ValueError(f"c must be a finite number >= 0, got {c!r}")
    if simulations is not None and (isinstance(simulations, bool) or int(simulations) != simulations
                                    or simulations < 1):
        raise ValueError(f"simulations must be a whole number >= 1, got {simulations!r}")
    v = np.asarray(exact, dtype=np.float64)
    if v.shape != (n,):
        raise ValueError(f"exact: {v.shape} values for {n} states")
    return _search(mdp, int(root), v, float(c), seed, simulations)


def _search(mdp: TabularMDP, root: int, v_star: np.ndarray, c: float, seed: int | None,
            total: int | None) -> Generator[SearchTree, "int | None", SearchTree]:
    table = _Table(mdp)
    rng = random.Random(seed)
    gamma = float(mdp.discount)
    r = np.asarray(mdp.reward)
    scale = float(r.max() - r.min()) if r.size else 1.0
    scale = scale if scale > 0 else 1.0
    q_star = mdp.q_values(v_star)
    # the tree, one Python list per field (node 0: the root position)
    kind, state, row_of, parent = [POSITION], [root], [-1], [-1]
    visits, total_return = [0], [0.0]
    kids: list[list[int]] = [[]]  # a position: its move nodes; a move: its outcome nodes
    untried: list[list[int] | None] = [None]  # a position's rows not expanded yet (None: not listed yet)
    outcome_of: list[dict[int, int] | None] = [None]  # a move: next state -> outcome node
    reward_of: list[float] = [0.0]  # a position: the reward of the move's outcome that led to it
    t0 = time.perf_counter()
    done = 0
    want = 1
    log_n = [0.0]
    sel: list[int] = []
    new: list[int] = []
    roll: list[int] = []
    roll_g = math.nan

    def add(k: int, s: int, row: int, par: int, rew: float) -> int:
        kind.append(k)
        state.append(s)
        row_of.append(row)
        parent.append(par)
        visits.append(0)
        total_return.append(0.0)
        kids.append([])
        untried.append(None)
        outcome_of.append({} if k == MOVE else None)
        reward_of.append(rew)
        kids[par].append(len(kind) - 1)
        return len(kind) - 1

    def sample(row: int) -> tuple[int, float]:
        dst, cum, rew = table.outcomes(row)
        if len(dst) == 1:
            return dst[0], rew[0]
        u = rng.random()
        i, last = 0, len(cum) - 1
        while i < last and cum[i] <= u:
            i += 1
        return dst[i], rew[i]

    def snapshot() -> SearchTree:
        return _snapshot(done, root, kind, state, row_of, parent, visits, total_return, table, v_star, q_star, c,
                         scale, sel, new, roll, roll_g, t0)

    while total is None or done < total:
        # 1. selection, down the tried moves by UCB
        node = 0
        sel = [0]
        new = []
        while True:
            s = state[node]
            if table.terminal[s] or not table.rows(s):  # (the end of the game, or a state with no move)
                break
            if untried[node] is None:
                untried[node] = list(table.rows(s))
                rng.shuffle(untried[node])
            if untried[node]:
                # 2. expansion: an untried move (the shuffled list's last), then its sampled outcome
                row = untried[node].pop()
                move = add(MOVE, s, row, node, 0.0)
                nxt, rew = sample(row)
                pos = add(POSITION, nxt, -1, move, rew)
                outcome_of[move][nxt] = pos
                new = [move, pos]
                node = pos
                break
            sense = table.sense[s]
            big_n = visits[node]
            while len(log_n) <= big_n:
                log_n.append(math.log(len(log_n)))
            explore = c * scale * math.sqrt(log_n[big_n])
            best, best_score = -1, -math.inf
            for m in kids[node]:
                nm = visits[m]
                score = sense * total_return[m] / nm + explore / math.sqrt(nm)
                if score > best_score:
                    best, best_score = m, score
            sel.append(best)
            nxt, rew = sample(row_of[best])
            pos = outcome_of[best].get(nxt)
            if pos is None:  # a chance node's outcome not drawn before: expanded
                pos = add(POSITION, nxt, -1, best, rew)
                outcome_of[best][nxt] = pos
                new = [pos]
                node = pos
                break
            sel.append(pos)
            node = pos
        # 3. rollout: uniformly random moves from the expanded (or terminal) position to the end
        s = state[node]
        roll = [s]
        g = 0.0
        disc = 1.0
        steps = 0
        while not table.terminal[s] and steps < ROLLOUT_CAP:
            rows = table.rows(s)
            if not rows:
                break
            s, rew = sample(rows[int(rng.random() * len(rows))])
            g += disc * rew
            disc *= gamma
            roll.append(s)
            steps += 1
        roll_g = g
        # 4. backup: the return from each node of the path, leaf to root (a position's return, then the move
        # above it earned that position's reward: r + gamma G)
        for nd in reversed(sel + new):
            visits[nd] += 1
            total_return[nd] += g
            if kind[nd] == POSITION:
                g = reward_of[nd] + gamma * g
        done += 1
        want -= 1
        if want <= 0:
            ask = yield snapshot()
            want = int(ask) if isinstance(ask, (int, np.integer)) and not isinstance(ask, bool) and ask > 1 else 1
    return snapshot()


def _snapshot(done: int, root: int, kind: list, state: list, row_of: list, parent: list, visits: list,
              total_return: list, table: _Table, v_star: np.ndarray, q_star: np.ndarray, c: float, scale: float,
              sel: list, new: list, roll: list, g: float, t0: float) -> SearchTree:
    """The frozen :class:`SearchTree` of the lists as they are now."""
    k = np.array(kind, dtype=np.int8)
    node_state = np.array(state, dtype=np.int64)
    rw = np.array(row_of, dtype=np.int64)
    par = np.array(parent, dtype=np.int64)
    vis = np.array(visits, dtype=np.int64)
    tot = np.array(total_return, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(vis > 0, tot / np.maximum(vis, 1), np.nan)
        pv = np.where(par >= 0, vis[np.maximum(par, 0)], 0)
        sense = np.asarray(table.sense, dtype=np.float64)[node_state]
        bonus = c * scale * np.sqrt(np.log(np.maximum(pv, 1)) / np.maximum(vis, 1))
        ucb = np.where((k == MOVE) & (vis > 0), mean + sense * bonus, np.nan)
    exact = np.where(k == MOVE, q_star[np.maximum(rw, 0)], v_star[node_state])
    act = np.where(k == MOVE, table.row_action[np.maximum(rw, 0)], -1)
    r0, r1 = table.state_ptr[root], table.state_ptr[root + 1]
    return SearchTree(done, root, read_only(k), read_only(node_state), read_only(rw), read_only(act), read_only(par),
                      read_only(vis), read_only(mean), read_only(ucb), read_only(exact), tuple(sel), tuple(new),
                      tuple(roll), float(g), time.perf_counter() - t0, float(c), float(scale),
                      read_only(np.arange(r0, r1, dtype=np.int64)), read_only(q_star[r0:r1].copy()),
                      int(table.sense[root]))


class SearchRun:
    """A tree search advanced k simulations at a time (the window's Step: 1; Run: many, in a job), keeping its
    newest snapshot."""

    def __init__(self, mdp: TabularMDP, root: int, *, exact: np.ndarray, c: float = DEFAULT_C,
                 seed: int | None = 0) -> None:
        self.mdp = mdp
        """The table searched."""
        self.root = int(root)
        """The root position's state id."""
        self._gen = tree_search(mdp, root, exact=exact, c=c, seed=seed)
        self.tree: SearchTree | None = None
        """The newest snapshot (None before the first simulation)."""

    def advance(self, k: int = 1) -> SearchTree:
        """Run ``k`` more simulations (k >= 1) and return the snapshot after them."""
        k = int(k)
        if k < 1:
            raise ValueError(f"simulations must be at least 1, got {k}")
        if self.tree is None:
            self.tree = next(self._gen)
            k -= 1
        if k > 0:
            self.tree = self._gen.send(k)
        return self.tree


@dataclass(frozen=True)
class RootMove:
    """One legal move of the root: the search's statistics beside the exact value."""

    action: int
    """The move's action id."""
    visits: int
    """Simulations that took it."""
    mean: float
    """Their mean return r + gamma G (reward units; nan when never tried)."""
    ucb: float
    """Its UCB score as the next selection sees it (nan when never tried)."""
    exact: float
    """Q*(root, move) from the exact solve."""
    optimal: bool
    """One of the exact best moves (within the solvers' tie tolerance of the best Q*)."""


def root_moves(tree: SearchTree, mdp: TabularMDP) -> list[RootMove]:
    """Every legal move of the root, by action id (the untried ones with 0 visits and nan statistics), beside
    Q*(root, move) and whether it is an exact best move: within the solvers' tie tolerance of the best Q* in the
    mover's direction (the rule of :func:`~mdpviz.solvers.sweep.optimal_rows`)."""
    from mdpviz.solvers.sweep import TIE_TOL

    s = tree.root
    sense = float(mdp.sense[s])
    best = float(np.max(sense * tree.root_q))
    opt = sense * tree.root_q >= best - TIE_TOL * (1.0 + abs(best))
    by_row = {int(tree.row[k]): int(k) for k in tree.children(0)}
    out = []
    for i, r in enumerate(tree.root_rows):
        k = by_row.get(int(r))
        stats = (0, math.nan, math.nan) if k is None else (int(tree.visits[k]), float(tree.mean[k]), float(tree.ucb[k]))
        out.append(RootMove(int(mdp.row_action[r]), *stats, float(tree.root_q[i]), bool(opt[i])))
    return out


__all__ = ["DEFAULT_C", "MOVE", "POSITION", "RootMove", "SearchRun", "SearchTree", "root_moves", "tree_search"]
