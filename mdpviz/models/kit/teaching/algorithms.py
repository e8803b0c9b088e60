"""The lesson's entry for the algorithm in the Solver panel, and the convention it runs under.

Each solver id of :data:`mdpviz.solvers.METHODS` has a short entry (what one Step does, the equation,
the source it follows); :func:`algorithm_blocks` adds the convention in force (the tie rule, which values
a sweep's policy backs up from, AIMA's sequence), in the words the Solver panel's tooltips use. Qt-free.
"""
from __future__ import annotations

from typing import Any, Mapping

from mdpviz.models.kit.teaching.lessons import Block
from mdpviz.solvers import METHOD_NAMES
from mdpviz.solvers.sweep import Q_FROM, TIES

ALGORITHM_LESSONS: dict[str, str] = {
    "vi": "Every Step is one sweep: every state is backed up from the previous sweep's values, "
          "V_(k+1)(s) = max_a \u03a3 p(s\u2032|s,a) [r + \u03b3 V_k(s\u2032)] (Sutton and Barto eq. 4.10). "
          "It stops when the largest change of a sweep is below the tolerance.",
    "gs": "Every Step is one sweep in state order, each state backed up from the values already updated in this "
          "sweep (Gauss-Seidel, Sutton and Barto 4.5): usually fewer sweeps than the synchronous version.",
    "pi": "Policy iteration alternates Evaluate (solve V of the current policy exactly, eq. 4.5 as a linear "
          "system) and Improve (the greedy policy of those values, eq. 4.9) until the policy stops changing.",
    "lp": "Linear programming finds V* in one step: the smallest V with V(s) \u2265 r + \u03b3 \u03a3 p V(s\u2032) "
          "for every action (PuLP/CBC).",
    "bi": "Backward induction: on a model without cycles, one layer of states per Step, each backed up once "
          "from the later layers, already final.",
    "async-vi": "Asynchronous value iteration (Sutton and Barto 4.5; Berkeley CS188 q4): every Step backs up "
                "one state in place, in state order (or at random), and leaves the others as they are; a "
                "terminal state counts as a Step. The board outlines the state each Step updated.",
    "prioritized": "Prioritized sweeping (Moore and Atkeson; Berkeley CS188 q5): every Step backs up the state "
                   "whose value is furthest from its backup, taken from a queue; its predecessors whose "
                   "|V - max Q| exceeds \u03b8 join the queue, and the solve ends when it is empty. The board "
                   "outlines the state each Step updated.",
    "evaluate": "Iterative policy evaluation (Sutton and Barto 4.1, eq. 4.5): every Step is one sweep of the "
                "random policy's expectation backup, each action equally likely, until the largest change is "
                "below the tolerance (figure 4.1's V_k). The arrows are the greedy policy of those values: "
                "what one improvement step would choose.",
    "mpi": "Modified policy iteration (pymdptoolbox's PolicyIterationModified): an improvement, then a few "
           "evaluation sweeps of that policy, repeated until the span of the improvement's change is small.",
    "rvi": "Relative value iteration (average reward per step): undiscounted sweeps with the value of one "
           "reference state subtracted; the gain is the reward per step.",
}
"""One short lesson entry per solver id."""


def convention_text(method: str, ties: str = "tolerance", q_from: str = "previous", sequence: str = "standard") -> str:
    """The convention in force for ``method`` with these options, in a few sentences (the Solver panel's
    tooltip and the lesson): the tie rule (:data:`~mdpviz.solvers.sweep.TIES`), which values a sweep's
    policy and Q view back up from (:data:`~mdpviz.solvers.sweep.Q_FROM`; value iteration only) and
    AIMA's sequence when chosen."""
    parts = [f"Ties: {TIES[ties]}."]
    if method in ("vi", "gs"):
        parts.append(f"{Q_FROM[q_from][:1].upper()}{Q_FROM[q_from][1:]}.")
    elif method in ("async-vi", "prioritized", "evaluate"):
        parts.append("Each snapshot's policy is greedy in its own values.")
    if method == "vi" and sequence == "aima":
        parts.append("AIMA's sequence (aima-python): U_0 = 0, terminal squares worth R(s) from sweep 1, stop when "
                     "\u0394 \u2264 \u03b5(1\u2212\u03b3)/\u03b3 (\u03b5: the tolerance), the values of the sweep "
                     "before returned.")
    return " ".join(parts)


def algorithm_blocks(method: str, options: Mapping[str, Any] | None = None) -> tuple[Block, ...]:
    """The lesson's paragraphs on ``method`` run with solver ``options``: its entry and the convention."""
    opts = dict(options or {})
    name = METHOD_NAMES.get(method, method)
    text = ALGORITHM_LESSONS.get(method, "")
    conv = convention_text(method, str(opts.get("ties", "tolerance")), str(opts.get("q_from", "previous")),
                           str(opts.get("sequence", "standard")))
    return (Block("p", f"{name[:1].upper() + name[1:]} \u2014 {text}".strip()),
            Block("p", f"Convention in force \u2014 {conv}"))


__all__ = ["ALGORITHM_LESSONS", "algorithm_blocks", "convention_text"]
