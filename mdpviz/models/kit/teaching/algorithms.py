"""The lesson's entry for the algorithm in the Solver panel, and the convention it runs under.

Each solver's registry line (:data:`mdpviz.solvers.registry.ENTRIES`) has a short entry (what one Step does, the equation,
the source it follows); :func:`algorithm_blocks` adds the convention in force (the tie rule, which values
a sweep's policy backs up from, AIMA's sequence), in the words the Solver panel's tooltips use. Qt-free.
"""
from __future__ import annotations

from typing import Any, Mapping

from mdpviz.models.kit.teaching.lessons import Block
from mdpviz.solvers import registry
from mdpviz.solvers.sweep import Q_FROM, TIES

class _Lessons(Mapping):
    """A live read-only view: solver id -> its registry line's lesson paragraph."""

    def __getitem__(self, key: str) -> str:
        spec = registry.find(key)
        if spec is None or spec.id != key or spec.kind != "solver":
            raise KeyError(key)
        return spec.lesson

    def __iter__(self):
        return iter(registry.ids("solver"))

    def __len__(self) -> int:
        return len(registry.ids("solver"))


ALGORITHM_LESSONS: Mapping[str, str] = _Lessons()
"""One short lesson entry per solver id (each written beside its line in :data:`mdpviz.solvers.registry.ENTRIES`)."""


def convention_text(method: str, ties: str = "tolerance", q_from: str = "previous", sequence: str = "standard") -> str:
    """The convention in force for ``method`` with these options, in a few sentences (the Solver panel's
    tooltip and the lesson): the tie rule (:data:`~mdpviz.solvers.sweep.TIES`), which values a sweep's
    policy and Q view back up from (:data:`~mdpviz.solvers.sweep.Q_FROM`; value iteration only) and
    AIMA's sequence when chosen."""
    parts = [f"Ties: {TIES[ties]}."]
    spec = registry.find(method)
    if spec is not None and spec.value_iteration:
        parts.append(f"{Q_FROM[q_from][:1].upper()}{Q_FROM[q_from][1:]}.")
    elif spec is not None and spec.own_policy:
        parts.append("Each snapshot's policy is greedy in its own values.")
    if spec is not None and spec.takes("sequence") and sequence == "aima":
        parts.append("AIMA's sequence (aima-python): U_0 = 0, terminal squares worth R(s) from sweep 1, stop when "
                     "\u0394 \u2264 \u03b5(1\u2212\u03b3)/\u03b3 (\u03b5: the tolerance), the values of the sweep "
                     "before returned.")
    return " ".join(parts)


def algorithm_blocks(method: str, options: Mapping[str, Any] | None = None) -> tuple[Block, ...]:
    """The lesson's paragraphs on ``method`` run with solver ``options``: its entry and the convention."""
    opts = dict(options or {})
    spec = registry.find(method)
    name = method if spec is None else spec.title
    text = "" if spec is None else spec.lesson
    conv = convention_text(method, str(opts.get("ties", "tolerance")), str(opts.get("q_from", "previous")),
                           str(opts.get("sequence", "standard")))
    return (Block("p", f"{name[:1].upper() + name[1:]} \u2014 {text}".strip()),
            Block("p", f"Convention in force \u2014 {conv}"))


__all__ = ["ALGORITHM_LESSONS", "algorithm_blocks", "convention_text"]
