"""The inspector's chain of backups: pure data, no Qt (tested without a display).

The inspector writes the Bellman backup of one state, Q(s, a) = sum_s' p (r + gamma V(s')) with
its numbers (:mod:`mdpviz.models.kit.pictures.display`). Each V(s') there is a link to the backup of s'
itself: the page that says where that number came from, and so on down to a terminal state (its
value is fixed) or to V = 0 before the first sweep. The chain is the path followed, root first;
the breadcrumb at the top of the page goes back along it.

A page is a state at a history index: the snapshot whose values the parent's term read
(:func:`~mdpviz.models.kit.pictures.display.backup_sources`). Under synchronous (Jacobi) value iteration
the term V_{k-1}(s') of sweep k's backup links to the backup of s' at sweep k-1 (which gave that
number); under in-place (Gauss-Seidel) sweeps to this sweep for the states already updated; under
the "Q from V_k" convention, policy improvement, a linear program and the board games to the same
snapshot. So the number a link shows on its page is the number in the term.

The links are anchors in the inspector's HTML: ``chain:next/<state>`` (follow a term) and
``chain:back/<depth>`` (a breadcrumb, 0 = the clicked state)::

    chain = BackupChain.start(4)
    chain = chain.follow(5)                    # the term V(5) was clicked
    chain.pages(root_index, sources)           # ((4, 12), (5, 11))
    chain.back(0)                              # the breadcrumb's first crumb: (4,)
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

SCHEME = "chain"
"""The scheme of the inspector's chain links (never opened as a URL: the window handles them)."""


def follow_href(state: int) -> str:
    """The link of a term V(``state``): open ``state``'s own backup (the next page of the chain)."""
    return f"{SCHEME}:next/{int(state)}"


def back_href(depth: int) -> str:
    """The link of the breadcrumb's crumb at ``depth`` (0: the clicked state): go back to that page."""
    return f"{SCHEME}:back/{int(depth)}"


def parse_href(href: str) -> tuple[str, int] | None:
    """("next", state) or ("back", depth) of a chain link, None for anything else."""
    head, sep, rest = str(href).partition(":")
    if not sep or head != SCHEME:
        return None
    kind, sep, num = rest.partition("/")
    if not sep or kind not in ("next", "back") or not num.isdigit():
        return None
    return kind, int(num)


@dataclass(frozen=True)
class BackupChain:
    """The states of the chain, root (the clicked state) first, the shown page last. A state may come
    back (a grid world's wall bounces to itself): under Jacobi sweeps it is another page, one sweep back."""

    states: tuple[int, ...] = ()
    """MDP states, root first (empty: nothing inspected)."""

    @classmethod
    def start(cls, state: int | None) -> "BackupChain":
        """A new chain at ``state`` (a board click); None: the empty chain."""
        return cls(() if state is None else (int(state),))

    @property
    def current(self) -> int | None:
        """The state whose page is shown (None: nothing inspected)."""
        return self.states[-1] if self.states else None

    def follow(self, state: int) -> "BackupChain":
        """The chain with ``state`` appended (a term of the shown page was clicked)."""
        return BackupChain((*self.states, int(state)))

    def back(self, depth: int) -> "BackupChain":
        """The chain cut after position ``depth`` (a breadcrumb was clicked; ValueError past the end)."""
        if not 0 <= int(depth) < len(self.states):
            raise ValueError(f"crumb {depth} is not in a chain of {len(self.states)} pages")
        return BackupChain(self.states[: int(depth) + 1])

    def pages(self, root_index: int, sources: Callable[[int, int], np.ndarray]) -> tuple[tuple[int, int], ...]:
        """(state, history index) of every page, the root at ``root_index``: each next page at the index
        whose values its parent's backup read, ``sources(parent, parent_index)[state]`` (the window's
        :func:`~mdpviz.models.kit.pictures.display.backup_sources`; -1: V = 0 before the first sweep)."""
        out: list[tuple[int, int]] = []
        index = int(root_index)
        for d, s in enumerate(self.states):
            if d > 0:
                parent, at = out[-1]
                index = -1 if at < 0 else int(sources(parent, at)[s])
            out.append((int(s), index))
        return tuple(out)


def outline_labels(states: Sequence[int], *, most: int = 3) -> dict[int, str]:
    """The number(s) each state of a chain is outlined with on the board, in the chain's order
    ("1", "2", ...; a state met again "1,3"; more than ``most`` numbers end in "+"); none for a chain
    of one state (the inspected state's own outline marks it)."""
    if len(states) < 2:
        return {}
    orders: dict[int, list[int]] = {}
    for k, s in enumerate(states, start=1):
        orders.setdefault(int(s), []).append(k)
    return {s: ",".join(map(str, ks[:most])) + ("+" if len(ks) > most else "") for s, ks in orders.items()}


def breadcrumb_html(names: Sequence[str], *, escape: Callable[[str], str]) -> str:
    """The breadcrumb "(0,0) > (0,1) > (1,1)": every crumb but the last (the shown page) a link back
    (:func:`back_href`); "" for a chain of one page."""
    if len(names) < 2:
        return ""
    crumbs = [f"<a href='{back_href(d)}'>{escape(n)}</a>" for d, n in enumerate(names[:-1])]
    crumbs.append(f"<b>{escape(names[-1])}</b>")
    return "<p style='margin-bottom:4px'>Chain: " + " &gt; ".join(crumbs) + "</p>"


__all__ = ["SCHEME", "BackupChain", "back_href", "breadcrumb_html", "follow_href", "outline_labels", "parse_href"]
