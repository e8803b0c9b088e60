"""What the board-game view writes and colours, as pure functions (no Qt).

The position board (:mod:`mdpviz.widgets.position`) paints; the data it paints comes from here and
from :mod:`mdpviz.models.kit.boards.position`, so it is tested without a display:

* :func:`moves_range`: the range of the shown position's move values its colour scale spans;
* :func:`table_rows`: the rows of the moves table beside the board;
* :func:`walk_words` and :func:`walk_path_text`: the walk to a position in a student's words;
* :func:`terminal_words`: how a game ended, from the label of an absorbing win/draw/loss state;
* :func:`tick_labels` and :func:`legend_html`: the matchup chart's axis labels and legend line.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from mdpviz.models.kit.pictures.display import best_actions, format_prob

OUTCOME_COLORS = ("#0072b2", "#d55e00", "#999999")
"""Bar colours of the three results (X wins, O wins, draws): Okabe-Ito blue, vermillion, grey."""
TABLE_HEADER = ["Matchup", "X wins %", "exact", "O wins %", "exact", "draws %", "exact"]
"""Columns of the matchup table (one row per matchup; per result the simulated share ± the half-width of
its Wilson 95% interval, and the exact probability, ticked when inside the interval); the result
columns are named after the game's results."""
MAX_NAMED_BARS = 3
"""Up to this many matchups the bar chart's axis names them; with more, letters (A, B, ...) keyed in the table."""
AXIS_FONT_PT = 11
"""Point size of the matchup chart's tick labels and legend (readable from the back of a room)."""


def html_escape(s: str) -> str:
    """``s`` with &, < and > escaped for Qt's rich text."""
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


# ---------------------------------------------------------------------------------- the position's colours
def moves_range(qs: Any, seen: tuple[float, float] | None = None) -> tuple[float, float] | None:
    """(lo, hi) of the finite values ``qs`` joined with ``seen`` (a range is widened when exceeded,
    never shrunk); ``seen`` itself when no value is finite; None when there is neither."""
    q = np.asarray(qs, dtype=np.float64).ravel()
    q = q[np.isfinite(q)]
    if q.size == 0:
        return seen
    lo, hi = float(q.min()), float(q.max())
    if seen is not None:
        lo, hi = min(lo, seen[0]), max(hi, seen[1])
    return lo, hi


# ---------------------------------------------------------------------------------- the moves table
def table_rows(moves: Sequence[Any], qs: Sequence[float], greedy: int, *, model_pos: bool, hidden: bool,
               revealed: set[int] | frozenset[int] = frozenset(),
               objective: str = "max") -> tuple[tuple[str, str, str, int], ...]:
    """The rows of a position's moves table: (move label, value text, star, action id) per move.

    The value text is Q to 4 decimals at a decision (blank when hidden, unless the move's cell was
    revealed, or when Q is not finite), or the model's move probability at a model's position (blank
    when hidden); the star marks the greedy move (index ``greedy`` of ``moves``), an outlined star every
    other move tied with it under the solvers' tie rule (all of them optimal; ``objective``: the mover's
    "max" or "min")."""
    out = []
    tied: set[int] = set()
    if greedy >= 0 and not model_pos and not hidden:
        q = [float(x) for x in qs]
        ok = [i for i, x in enumerate(q) if math.isfinite(x)]
        tied = {i for i, b in zip(ok, best_actions([q[i] for i in ok], objective)) if b}
    for i, mv in enumerate(moves):
        if model_pos:
            qt = format_prob(mv.prob) if math.isfinite(mv.prob) and not hidden else ""
        else:
            q = float(qs[i])
            qt = f"{q:.4f}" if math.isfinite(q) and (not hidden or mv.cell in revealed) else ""
        out.append((str(mv.label), qt, "\u2605" if i == greedy else "\u2606" if i in tied else "", int(mv.action)))
    return tuple(out)


# ---------------------------------------------------------------------------------- the walk in words
def walk_words(model: Any, walk: Any, state: int) -> str | None:
    """MDP state ``state`` in a student's words: how ``walk`` got there ("after X on cell 4. O on
    cell 0; X to move ...") when it is on the walk's path, "empty board, X to move ..." at the start,
    else None (the caller names it by its board). ``model``: a
    :class:`~mdpviz.models.kit.boards.position.PositionModel`; ``walk``: a :class:`~mdpviz.models.kit.boards.position.GameWalk`
    or None."""
    if model is None or state < 0:
        return None
    try:
        pos = model.position_of(int(state))
        turn = model.describe(pos)
    except (ValueError, IndexError, KeyError, AttributeError, NotImplementedError):
        return None
    if walk is not None:
        path = walk.path()
        at = next((i for i, p in enumerate(path) if p.state == state), -1)
        if at > 0:
            texts = [p.text.rstrip(".") for p in walk.plies[:at] if p.text]
            if texts:
                more = "\u2026 " if len(texts) > 2 else ""
                return f"after {more}{'; '.join(texts[-2:])}: {turn}"
    cells = np.asarray(pos.cells)
    if cells.size and not cells.any():
        return f"empty board, {turn}"
    return None


def walk_path_text(walk: Any) -> str:
    """The line about ``walk``'s path to the shown position: how many positions and the move number
    (not the MDP's state numbers: "0 \u2192 2909 \u2192 2910" told a class nothing)."""
    if walk is None:
        return ""
    return f"Positions on the path: {len(walk.path())}; move {walk.index} of {len(walk.plies)}"


def terminal_words(label: str) -> str | None:
    """How a game ended from the label of one of a compiled game's absorbing states ("win ...",
    "draw ...", "loss ..."): "the agent wins", "draw", "the agent loses"; None for any other label."""
    words = {"win": "the agent wins", "draw": "draw", "loss": "the agent loses"}
    low = label.strip().lower()
    return next((w for k, w in words.items() if low.startswith(k)), None)


# ---------------------------------------------------------------------------------- the matchup chart
def tick_labels(names: Sequence[str]) -> list[str]:
    """The matchups' labels on the bar chart's axis: up to :data:`MAX_NAMED_BARS` matchups, each name
    on two lines ("optimal" / "vs random"); with more, the letters A, B, C, ... (the table gives each
    letter's matchup in full), so that every label stays readable at a large font."""
    if len(names) > MAX_NAMED_BARS:
        if len(names) > 26:
            raise ValueError(f"{len(names)} matchups: the bar chart letters them A to Z, at most 26")
        return [chr(ord("A") + i) for i in range(len(names))]
    return ["\nvs ".join(n.split(" vs ")) for n in names]


def legend_html(labels: Sequence[str], *, exact: bool) -> str:
    """The bar chart's legend line (the plot's title): a coloured square per result (the bars'
    :data:`OUTCOME_COLORS`), and the dashes of the exact probabilities if any are shown."""
    parts = [f"<span style='color:{c}'>\u25a0</span>&nbsp;{html_escape(str(t))}"
             for c, t in zip(OUTCOME_COLORS, labels)]
    if exact:
        parts.append("<b>- -</b>&nbsp;exact")
    return (f"<span style='color:#000000; font-size:{AXIS_FONT_PT}pt'>" + "&nbsp; ".join(parts)
            + "</span>")


NOT_VISITED = "Not visited: the behaviour has never been at this position (its numbers are only the initial value)."
"""What a position board says of a position a learner never visited (issue 35 item 6)."""


def unvisited_view(view: Any) -> Any:
    """``view`` (a :class:`~mdpviz.models.kit.boards.position.PositionView`) of a position the behaviour never
    visited: no value colours, numbers, greedy star or value, as the cell boards hatch such states (its learned
    numbers are only the initial value, on no value scale); the legal moves stay marked."""
    import dataclasses

    import numpy as np

    nan = np.full(np.shape(view.fill), np.nan)
    qs = np.full(np.shape(view.qs), np.nan)
    for a in (nan, qs):
        a.setflags(write=False)
    tips = tuple("not visited" if legal else tip for tip, legal in zip(view.tips, view.legal))
    return dataclasses.replace(view, qs=qs, greedy=-1, fill=nan, texts=("",) * len(view.texts), tips=tips,
                               greedy_cell=-1, greedy_origin=-1, value=float("nan"), tied_cells=())


__all__ = [
    "NOT_VISITED", "unvisited_view",
    "AXIS_FONT_PT", "MAX_NAMED_BARS", "OUTCOME_COLORS", "TABLE_HEADER", "html_escape", "legend_html",
    "moves_range", "table_rows", "terminal_words", "tick_labels", "walk_path_text", "walk_words",
]
