"""What the tree-search view draws (issue 38), as pure data: the nodes of a :class:`~mdpviz.solvers.mcts.SearchTree`
it shows, where, how large and with which numbers. No Qt (tested without a display).

The view shows the root, every move of the root the search has tried (level 1, by action id), and below the
``lines`` most visited of them their best-visited line: from a move, its most visited outcome position, then that
position's most visited move, and so on for ``depth`` more moves. A node's area grows with its visits (radius
proportional to sqrt(visits / root visits)), its colour is its mean return, and its exact value (V* or Q* of the
game's exact solve) is written beside it, so the gap between the rollouts' means and the exact values is seen.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from mdpviz.solvers.mcts import MOVE, SearchTree

LINES = 3
"""The most visited root moves whose best-visited line is drawn below them."""
DEPTH = 3
"""Moves of a line below its root move."""


@dataclass(frozen=True)
class NodeView:
    """One drawn node."""

    node: int
    """The node's id in the tree."""
    parent: int
    """The index of its parent among the drawn nodes (-1: the root)."""
    x: float
    """Horizontal place in [0, 1]."""
    level: int
    """0 for the root, 1 for the root's moves, then one per move down a line."""
    label: str
    """The move's label ("root" for the root)."""
    visits: int
    """Simulations through it."""
    mean: float
    """Its mean return (reward units; nan before a visit)."""
    exact: float
    """V* of the root, Q* of a move."""
    ucb: float
    """A move's UCB score (nan for the root)."""
    size: float
    """Radius as a share of the largest, sqrt(visits / root visits) in [0, 1]."""
    mark: str
    """"selection" or "expansion": the last simulation passed or added it; "" otherwise."""
    best: bool
    """A root move that is one of the exact best moves."""
    chosen: bool
    """The root move the search plays (its most visited)."""
    line: int = -1
    """Below level 1: which best-visited line it is on (0: the most visited root move's), -1 otherwise."""


def _most_visited(tree: SearchTree, kids: np.ndarray) -> int:
    return int(kids[np.argmax(tree.visits[kids])]) if kids.size else -1


def tree_view(tree: SearchTree, move_label: Callable[[int, int], str], exact_best: set[int], *,
              lines: int = LINES, depth: int = DEPTH) -> list[NodeView]:
    """The drawn nodes of ``tree`` (see the module docstring): the root first. ``move_label(state, action)``
    names a move; ``exact_best``: the root's exact best actions."""
    root_visits = max(1, int(tree.visits[0]))
    sel, new = set(tree.selection), set(tree.expanded)
    chosen = tree.best_move()

    def view(node: int, parent: int, x: float, level: int, line: int = -1) -> NodeView:
        is_move = tree.kind[node] == MOVE
        label = move_label(int(tree.state[node]), int(tree.action[node])) if is_move else "root"
        mark = "expansion" if node in new else "selection" if node in sel else ""
        top = level == 1
        return NodeView(node, parent, x, level, label, int(tree.visits[node]), float(tree.mean[node]),
                        float(tree.exact[node]), float(tree.ucb[node]),
                        math.sqrt(int(tree.visits[node]) / root_visits), mark,
                        top and int(tree.action[node]) in exact_best, top and int(tree.action[node]) == chosen, line)

    out = [view(0, -1, 0.5, 0)]
    moves = tree.move_nodes()
    n = moves.size
    order = sorted(range(n), key=lambda i: -int(tree.visits[moves[i]]))[:lines]
    for i, m in enumerate(moves):
        x = (i + 0.5) / n
        out.append(view(int(m), 0, x, 1))
        if i not in order:
            continue
        here, parent_index = int(m), len(out) - 1
        for level in range(2, depth + 2):
            pos = _most_visited(tree, tree.children(here))  # the move's most visited outcome
            if pos < 0:
                break
            nxt = _most_visited(tree, tree.children(pos))  # that position's most visited move
            if nxt < 0 or tree.visits[nxt] == 0:
                break
            out.append(view(nxt, parent_index, x, level, order.index(i)))
            here, parent_index = nxt, len(out) - 1
    return out


def phase_text(tree: SearchTree, move_label: Callable[[int, int], str]) -> str:
    """The last simulation's four phases in one line: how deep its selection went, the move it added, the
    rollout's length and return, the nodes its backup updated."""
    moves_down = [k for k in tree.selection if tree.kind[k] == MOVE]
    added = [k for k in tree.expanded if tree.kind[k] == MOVE]
    expand = (f"added {move_label(int(tree.state[added[0]]), int(tree.action[added[0]]))}" if added else
              "added an outcome not drawn before" if tree.expanded else "reached the end of the game")
    path = " > ".join(move_label(int(tree.state[k]), int(tree.action[k])) for k in moves_down) or "the root"
    return (f"simulation {tree.simulations:,}: 1 selection {path}; 2 expansion {expand}; 3 rollout "
            f"{max(0, len(tree.rollout) - 1)} random moves, return {tree.rollout_return:.4g}; 4 backup "
            f"{len(tree.selection) + len(tree.expanded)} nodes")


__all__ = ["DEPTH", "LINES", "NodeView", "phase_text", "tree_view"]
