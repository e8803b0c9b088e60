"""Display data derived from snapshots: pure functions, no Qt (tested without a display).

What a board shows for one sweep (:func:`board_frame`) or for one snapshot of a learner
(:func:`learning_view`), the Bellman backup of the inspector written out with its numbers
(:func:`backup_terms`, :func:`backup_text`), dice faces as text (:func:`format_faces`,
:func:`parse_faces`), and the simulation table as CSV (:func:`results_csv`).
"""
from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

import numpy as np

from mdpviz.models.kit.pictures.chain import breadcrumb_html
from mdpviz.models.kit.pictures.colors import ColorScale, format_value
from mdpviz.solvers import registry as methods
from mdpviz.solvers.sweep import TIE_TOL, Sweep

if TYPE_CHECKING:
    from mdpviz.core.mdp import TabularMDP
    from mdpviz.solvers.learning import LearningStep


# ---------------------------------------------------------------------------------- board frames
@dataclass(frozen=True, eq=False)
class BoardFrame:
    """Everything a board draws for one snapshot (arrays indexed by state)."""

    values: np.ndarray
    """float64 (n_states): V after the shown sweep (model units)."""
    texts: tuple[str, ...]
    """The number printed on each cell ("" for terminal states)."""
    fill: np.ndarray
    """float64 (n_states): position on the colour scale in [0, 1]; NaN for terminal states."""
    badges: tuple[str, ...]
    """Greedy action badge per state ("" for terminal states or before any sweep)."""
    changed: np.ndarray
    """bool (n_states): the printed value or the greedy action changed in this sweep."""
    caption: str = ""
    """One line saying which sweep this is."""
    actions: np.ndarray | None = None
    """int64 (n_states): the greedy action id of each state (-1: none), for policy glyphs."""
    ties: Mapping[int, tuple[int, ...]] | None = None
    """{state: every optimal action id} where two or more tie under the solvers' tie rule
    (:func:`mdpviz.models.kit.pictures.ties.sweep_ties`); the board draws them all, ``actions`` solid. None: not
    looked at (a learner's snapshot, a model too large)."""
    tied_badges: Mapping[int, tuple[str, ...]] = field(default_factory=dict)
    """{state: the badges of its tied actions other than ``actions``' own}, drawn outlined."""
    endless: np.ndarray | None = None
    """bool (n_states): at discount 1, the states from which the drawn policy never reaches a terminal
    state (:func:`mdpviz.models.kit.pictures.ties.endless_states`); None: not looked at."""


def board_frame(
    values: np.ndarray,
    policy: np.ndarray,
    *,
    scale: ColorScale,
    terminal: np.ndarray,
    badge: Callable[[int], str],
    prev_values: np.ndarray | None = None,
    prev_policy: np.ndarray | None = None,
    digits: int = 2,
    caption: str = "",
    ties: Mapping[int, tuple[int, ...]] | None = None,
    endless: np.ndarray | None = None,
) -> BoardFrame:
    """The frame of one sweep; "changed" compares with the previous snapshot (all True for the first
    when anything is non-zero): a cell is highlighted when its printed number or its action changed.
    ``ties``: every optimal action of the states with a tie (their badges made by ``badge`` too);
    ``endless``: the states the drawn policy never ends from."""
    values = np.asarray(values, dtype=np.float64)
    policy = np.asarray(policy, dtype=np.int64)
    terminal = np.asarray(terminal, dtype=bool)
    if values.shape != policy.shape or values.shape != terminal.shape:
        raise ValueError(
            f"values {values.shape}, policy {policy.shape} and terminal {terminal.shape} must have the same shape"
        )
    texts = _texts(values, terminal, digits)
    fill = np.where(terminal, np.nan, scale.normalise(values))
    badges = tuple("" if (t or a < 0) else badge(int(a)) for a, t in zip(policy, terminal))
    prev = np.zeros_like(values) if prev_values is None else np.asarray(prev_values, dtype=np.float64)
    prev_texts = _texts(prev, terminal, digits)
    changed = np.fromiter((a != b for a, b in zip(texts, prev_texts)), dtype=bool, count=len(texts))
    if prev_values is not None and prev_policy is not None:
        changed |= (np.asarray(prev_policy) != policy) & ~terminal
    actions = np.where(terminal, -1, policy)
    tied_badges = TiedBadges({} if ties is None else ties, actions, badge)
    return BoardFrame(values, texts, fill, badges, changed & ~terminal, caption, actions, ties, tied_badges,
                      None if endless is None else np.asarray(endless, dtype=bool))


class TiedBadges(Mapping[int, tuple[str, ...]]):
    """{state: the badges of its tied actions other than the drawn one}, each made when a cell asks for it
    (a model with 200,000 tied states would otherwise name them all at every frame)."""

    def __init__(self, ties: Mapping[int, tuple[int, ...]], actions: np.ndarray, badge: Callable[[int], str]) -> None:
        self._ties, self._actions, self._badge = ties, actions, badge

    def __getitem__(self, state: int) -> tuple[str, ...]:
        drawn = int(self._actions[int(state)])
        return tuple(self._badge(a) for a in self._ties[state] if a != drawn)

    def __len__(self) -> int:
        return len(self._ties)

    def __iter__(self):
        return iter(self._ties)


def _texts(values: np.ndarray, terminal: np.ndarray, digits: int) -> tuple[str, ...]:
    """:func:`format_value` of every value ("" for terminal states), fast for the common case."""
    a = np.abs(values)
    plain = np.isfinite(values) & ((a == 0) | ((a >= 10.0 ** (-digits)) & (a < 10_000)))
    fmt = f"{{:.{digits}f}}".format
    return tuple("" if t else (fmt(v) if ok else format_value(v, digits=digits))
                 for v, t, ok in zip(values.tolist(), terminal.tolist(), plain.tolist()))


def sweep_caption(method_name: str, phase: str, iteration: int, index: int, total: int) -> str:
    """"value iteration (synchronous): sweep 12" or "policy iteration: round 3, improve", with the
    position in the history when scrubbing back ("... (step 5 of 9)")."""
    if phase == "sweep":
        what = f"sweep {iteration}"
    elif phase == "update":
        what = f"step {iteration} (one state backed up, outlined)"
    elif phase == "lp":
        what = "linear program solved"
    elif phase == "trajectory":
        what = f"trajectory {iteration}"
    elif phase == "episode":  # a learner's snapshot (a lesson page of a learning run)
        what = f"episode {iteration}"
    else:
        what = f"round {iteration}, {phase}"
    where = f" (step {index + 1} of {total})" if index + 1 < total else ""
    return f"{method_name}: {what}{where}"


# ---------------------------------------------------------------------------------- a learner's snapshot on a board
def exact_policy(mdp: "TabularMDP", step: "LearningStep") -> np.ndarray:
    """int64 (n_states): an optimal action per state (the lowest optimal one; -1 at terminal states)."""
    out = np.full(mdp.n_states, -1, dtype=np.int64)
    opt = np.asarray(step.exact.optimal)
    rows = np.flatnonzero(opt & ~np.asarray(mdp.terminal)[mdp.row_state])
    states = np.asarray(mdp.row_state)[rows]
    # the first optimal row of each state (rows of a state are contiguous and in action order)
    first = np.unique(states, return_index=True)[1]
    out[states[first]] = np.asarray(mdp.row_action)[rows[first]]
    return out


def learning_view(step: "LearningStep", mdp: "TabularMDP", mode: str) -> tuple[Sweep, Sweep]:
    """``(shown, reference)`` snapshots for a board's ``show_sweep(shown, previous=reference)``: the
    values of view ``mode`` with the learned greedy policy (the exact one in the "exact" view; none for
    prediction), and a reference that differs from it only in the policy of the states whose learned
    action is not optimal, so that a board marks exactly those as it marks changed states. (The window's
    learning frames and the lesson page of a learning run both draw a learner's snapshot through it.)"""
    values = np.array(step.shown(mode), dtype=np.float64)
    values[np.asarray(mdp.terminal)] = 0.0 if mode != "visits" else values[np.asarray(mdp.terminal)]
    exact_pi = exact_policy(mdp, step)
    if mode == "exact":
        policy, differs = exact_pi, np.zeros(mdp.n_states, dtype=bool)
    elif step.policy is None:
        policy, differs = np.full(mdp.n_states, -1, dtype=np.int64), np.zeros(mdp.n_states, dtype=bool)
    else:
        policy, differs = np.array(step.policy, dtype=np.int64), step.differs(mdp)
    ref_policy = np.where(differs, exact_pi, policy)
    for a in (values, policy, ref_policy):
        a.setflags(write=False)
    changed = np.flatnonzero(differs).astype(np.int64)
    changed.setflags(write=False)
    common = dict(method=step.method, phase="episode", iteration=step.episode, delta=step.max_error,
                  mean_delta=step.rms_error, delta_state=-1, elapsed=step.elapsed)
    shown = Sweep(values=values, policy=policy, changed=changed, **common)
    ref = Sweep(values=values, policy=ref_policy, changed=changed, **common)
    return shown, ref


# ---------------------------------------------------------------------------------- the inspector
def backup_sources(
    history: Sequence[Any],
    index: int,
    state: int,
    *,
    n_states: int,
    gs_block: int = 1,
    greedy_of_shown: bool = False,
) -> tuple[np.ndarray, str]:
    """int64 (n_states): for each successor s', the history index of the snapshot whose V(s') the
    backup of ``state`` at history index ``index`` reads (-1: V = 0 before the first sweep), and how
    to say so. The one rule behind :func:`backup_values` and the inspector's chain of backups
    (:mod:`mdpviz.models.kit.pictures.chain`: a term's link opens s' at that index, so the page's V is the
    term's number). The cases are :func:`backup_values`'s."""
    n = int(n_states)
    if index < 0 or not history:
        return np.full(n, -1, dtype=np.int64), "V = 0 (before the first sweep)"
    sw = history[index]
    cur, prev = np.full(n, index, dtype=np.int64), np.full(n, index - 1, dtype=np.int64)
    if greedy_of_shown or sw.phase in ("improve", "lp", "layer"):
        return cur, "V of this snapshot (the shown values)"
    if getattr(sw, "q_from", "previous") == "current":
        return cur, "V of this snapshot itself (V_k: the convention \u201cQ from V_k\u201d, CS188's iteration k)"
    if sw.phase == "evaluate":
        if index == 0:
            return cur, "V of this evaluation (round 1 evaluates the starting policy: \u2605 marks its action)"
        return prev, "V of the previous snapshot (the one this round's policy was chosen from)"
    if _mixed(sw):
        b = max(1, int(gs_block))
        start = (int(state) // b) * b
        prev[:start] = index
        return prev, (f"V of this sweep for states before {start} (already updated in place), "
                      "of the previous sweep for the rest")
    return prev, "V of the previous sweep (this sweep's backup)"


def _mixed(sw: Any) -> bool:
    """True when snapshot ``sw`` is an in-place sweep (its method's registry line: ``mixed_q_view``)."""
    spec = methods.find(getattr(sw, "method", None))
    return spec is not None and spec.mixed_q_view


def backup_values(
    history: Sequence[Any],
    index: int,
    state: int,
    *,
    n_states: int,
    gs_block: int = 1,
    greedy_of_shown: bool = False,
) -> tuple[np.ndarray, str]:
    """The values V(s') the shown snapshot's action of ``state`` was chosen from, and how to say so:
    the inspector backs up from them, so its best action is the board's badge at every history index.

    * value iteration (Jacobi): the previous snapshot's values (V = 0 before sweep 1): sweep k set
      V_k(s) = best Q and the badge from V_{k-1} (Sutton and Barto eq. 4.10);
    * in-place (Gauss-Seidel) sweeps, state by state in index order in blocks of ``gs_block``
      states: this sweep's values for the blocks before the state's, the previous sweep's for the rest;
    * policy iteration: an improvement is greedy in its own values; an evaluation's policy was chosen
      by the previous improvement, from the previous snapshot's values (round 1: the starting policy,
      backed up from its own values);
    * a linear program's policy is greedy in its optimal values; backward induction's layer is backed
      up from the later layers' values, already final in the snapshot;
    * a snapshot whose ``q_from`` is "current" (value iteration under that convention, one-state
      updates, policy evaluation): greedy in its own values.

    ``greedy_of_shown``: the board draws the greedy moves of the shown values themselves (board
    games), so the inspector backs up from those. Which snapshot each V(s') comes from is
    :func:`backup_sources`.
    """
    src, text = backup_sources(history, index, state, n_states=n_states, gs_block=gs_block,
                               greedy_of_shown=greedy_of_shown)
    out = np.zeros(int(n_states))
    for j in np.unique(src):
        if j >= 0:
            at = src == j
            out[at] = np.asarray(history[int(j)].values, dtype=np.float64)[at]
    return out, text


def board_q(
    mdp: Any,
    history: Sequence[Any],
    index: int,
    *,
    gs_block: int = 1,
) -> np.ndarray:
    """float64 (n_states, n_actions): Q(s, a) of every legal action (NaN for illegal ones and
    terminal states), backed up from the values each state's badge was chosen with
    (:func:`backup_values`, vectorised), so the best Q of a cell is its badge's action."""
    n, k = int(mdp.n_states), int(mdp.n_actions)
    out = np.full((n, k), np.nan)
    out[np.asarray(mdp.row_state), np.asarray(mdp.row_action)] = board_row_q(mdp, history, index, gs_block=gs_block)
    out[np.asarray(mdp.terminal)] = np.nan
    return out


def board_row_q(
    mdp: Any,
    history: Sequence[Any],
    index: int,
    *,
    gs_block: int = 1,
    greedy_of_shown: bool = False,
) -> np.ndarray:
    """float64 (n_rows): :func:`board_q` per (state, action) row of the model; ``greedy_of_shown``: backed
    up from the shown values themselves (a board that draws the greedy moves of the shown values, as
    :func:`backup_values` says)."""
    n = int(mdp.n_states)
    if greedy_of_shown and index >= 0 and history:
        q = mdp.q_values(np.asarray(history[index].values, dtype=np.float64))
    elif index < 0 or not history:
        v = np.zeros(n)
        q = mdp.q_values(v)
    else:
        sw = history[index]
        cur = np.asarray(sw.values, dtype=np.float64)
        prev = np.asarray(history[index - 1].values, dtype=np.float64) if index > 0 else np.zeros(n)
        if (sw.phase in ("improve", "lp", "layer") or (sw.phase == "evaluate" and index == 0)
                or getattr(sw, "q_from", "previous") == "current"):
            q = mdp.q_values(cur)
        elif _mixed(sw) and sw.phase == "sweep":
            row_state = np.asarray(mdp.row_state)
            counts = np.diff(np.asarray(mdp.row_ptr))
            t_row = np.repeat(np.arange(row_state.size), counts)
            dst = np.asarray(mdp.dst)
            start = (row_state[t_row] // max(1, int(gs_block))) * max(1, int(gs_block))
            vt = np.where(dst < start, cur[dst], prev[dst])
            q = np.asarray(mdp.row_reward, dtype=np.float64) + mdp.discount * np.bincount(
                t_row, weights=np.asarray(mdp.prob) * vt, minlength=row_state.size)
        else:
            q = mdp.q_values(prev)
    return np.asarray(q, dtype=np.float64)


def state_q(mdp: Any, state: int, values: np.ndarray) -> np.ndarray:
    """float64 (n_actions): Q(state, a) = sum_s' p (r + gamma V(s')) (Sutton and Barto eq. 3.17) of
    ``state``'s legal actions under ``values``, NaN for the other actions and for a terminal (or
    negative) state: what a board game shows on each move of one position. The one place Q(s, .) of
    one state is computed; ValueError for a state past the last."""
    out = np.full(int(mdp.n_actions), np.nan)
    s = int(state)
    if s >= mdp.n_states:
        raise ValueError(f"state {s} is out of range 0..{mdp.n_states - 1}")
    if s < 0 or mdp.terminal[s]:
        return out
    lo, hi = int(mdp.state_ptr[s]), int(mdp.state_ptr[s + 1])
    if hi > lo:
        v = np.asarray(values, dtype=np.float64)
        out[mdp.row_action[lo:hi]] = mdp.row_reward[lo:hi] + mdp.discount * (mdp.matrix[lo:hi] @ v)
    return out


@dataclass(frozen=True)
class BackupTerm:
    """One outcome of (state, action) in a Bellman backup: p x (r + gamma V(next))."""

    prob: float
    """Probability of the outcome."""
    reward: float
    """Immediate reward or cost of the outcome (model units; turns for snakes)."""
    next_state: int
    """The state it leads to."""
    next_value: float
    """V(next) at the shown sweep."""
    note: str = ""
    """What happened, e.g. "roll 2, penalty" (empty for plain MDP transitions)."""


def backup_q(terms: Sequence[BackupTerm], discount: float) -> float:
    """Q(s, a) = sum over outcomes of p x (r + gamma V(s')) (Sutton and Barto, eq. 4.9 / 3.14)."""
    return float(math.fsum(t.prob * (t.reward + discount * t.next_value) for t in terms))


def format_prob(p: float) -> str:
    """A probability as a short fraction when it is one (1/6, 1/12), else 4 significant digits."""
    f = Fraction(p).limit_denominator(144)
    if f.denominator > 1 and abs(float(f) - p) < 1e-12:
        return f"{f.numerator}/{f.denominator}"
    if p == 1.0:
        return "1"
    return f"{p:.4g}"


def backup_text(
    terms: Sequence[BackupTerm],
    discount: float,
    *,
    state_name: Callable[[int], str] = str,
    digits: int = 4,
    link: Callable[[BackupTerm], str | None] | None = None,
) -> str:
    """The backup with its numbers: "1/3 x (1 + V(4)=2.5000) + ... = 3.1667".

    With a discount other than 1 each term reads p x (r + gamma x V(s')). ``link``: the text as HTML
    (escaped), each term's "V(s')=..." an anchor to ``link(term)`` (None: no anchor), the inspector's
    chain of backups (:mod:`mdpviz.models.kit.pictures.chain`).
    """
    mark = (lambda s: s) if link is None else html_escape
    parts = []
    for t in terms:
        v = mark(f"V({state_name(t.next_state)})={t.next_value:.{digits}f}")
        href = None if link is None else link(t)
        if href is not None:
            v = f"<a href='{href}'>{v}</a>"
        g = "" if discount == 1.0 else f"{discount:g} x "
        note = mark(f" [{t.note}]") if t.note else ""
        parts.append(mark(f"{format_prob(t.prob)} x ({t.reward:g} + {g}") + v + ")" + note)
    q = backup_q(terms, discount)
    return " + ".join(parts) + f" = {q:.{digits}f}"


def html_escape(text: str) -> str:
    """``text`` with &, < and > escaped for the inspector's HTML."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def merge_terms(terms: Sequence[BackupTerm]) -> list[BackupTerm]:
    """Terms with the same next state, reward and note summed into one (for a shorter backup)."""
    out: dict[tuple[int, float, str], BackupTerm] = {}
    for t in terms:
        key = (t.next_state, t.reward, t.note)
        if key in out:
            o = out[key]
            out[key] = BackupTerm(o.prob + t.prob, o.reward, o.next_state, o.next_value, o.note)
        else:
            out[key] = t
    return list(out.values())


# ---------------------------------------------------------------------------------- dice text
def format_faces(faces: Sequence[tuple[int, float]]) -> str:
    """Dice faces as "move:prob" pairs, e.g. "0:1/3, 1:1/3, 2:1/3"."""
    return ", ".join(f"{m}:{format_prob(p)}" for m, p in faces)


def parse_faces(text: str) -> tuple[tuple[int, float], ...]:
    """Parse "move:prob, move:prob, ..." (probabilities as decimals or fractions like 1/3).

    Raises ValueError naming the faulty item; whether the probabilities sum to 1 is checked by
    the die itself.
    """
    items = [x.strip() for x in text.replace(";", ",").split(",") if x.strip()]
    if not items:
        raise ValueError("a die needs at least one face, written as move:probability (e.g. 0:1/2, 1:1/2)")
    faces = []
    for i, item in enumerate(items, start=1):
        if ":" not in item:
            raise ValueError(f"face {i} '{item}': write it as move:probability, e.g. 2:1/3")
        m, p = (x.strip() for x in item.split(":", 1))
        try:
            move = int(m)
        except ValueError:
            raise ValueError(f"face {i} '{item}': the move '{m}' is not a whole number") from None
        try:
            prob = float(Fraction(p))
        except (ValueError, ZeroDivisionError):
            raise ValueError(f"face {i} '{item}': the probability '{p}' is not a number or fraction") from None
        faces.append((move, prob))
    return tuple(faces)


# ---------------------------------------------------------------------------------- simulation
@dataclass(frozen=True, eq=False)
class StrategyRow:
    """Exact and simulated performance of one strategy from the start state."""

    name: str
    """Strategy name ("optimal", "security", ...)."""
    exact: float
    """Exact expected value from the start (policy evaluation; turns for snakes)."""
    mean: float
    """Simulated mean."""
    ci: float
    """Half-width of the simulated mean's 95% confidence interval."""
    samples: np.ndarray
    """Per game: the simulated total (turns, or discounted return)."""
    finished: int = -1
    """Games that reached a terminal state (-1: all, or not applicable)."""
    distribution: np.ndarray | None = None
    """The exact distribution of the simulated total where it is a count of turns: entry k is the
    probability that a game takes exactly k turns (:func:`mdpviz.solvers.distribution.turn_distribution`);
    None where the total is a return."""
    returns: tuple[np.ndarray, np.ndarray] | None = None
    """The exact distribution of the simulated total where it is a return that takes finitely many
    values: (the values ascending, their probabilities)
    (:func:`mdpviz.solvers.distribution.return_distribution`); None where it is not listed."""

    @property
    def games(self) -> int:
        return int(self.samples.size)

    @property
    def within_ci(self) -> bool:
        """The exact value lies inside the simulated 95% interval."""
        return abs(self.mean - self.exact) <= self.ci


def results_csv(rows: Sequence[StrategyRow], *, unit: str = "turns", start: str = "1") -> str:
    """The simulation table as CSV: strategy, games, exact, mean, CI half-width, CI low, CI high."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["strategy", "start", "games", f"exact_{unit}", f"mean_{unit}", "ci95_half_width", "ci95_low", "ci95_high"])
    for r in rows:
        w.writerow([r.name, start, r.games, repr(float(r.exact)), repr(float(r.mean)), repr(float(r.ci)),
                    repr(float(r.mean - r.ci)), repr(float(r.mean + r.ci))])
    return buf.getvalue()


def histogram_bins(samples: Sequence[np.ndarray], *, max_bins: int = 60) -> np.ndarray:
    """Common bin edges covering every sample of several strategies: unit-wide bins centred on the
    integers for whole-number samples (turns), widened to at most ``max_bins`` bins."""
    data = [np.asarray(s, dtype=np.float64) for s in samples if np.asarray(s).size]
    if not data:
        return np.array([0.0, 1.0])
    allv = np.concatenate(data)
    allv = allv[np.isfinite(allv)]
    if allv.size == 0:
        return np.array([0.0, 1.0])
    lo, hi = float(np.min(allv)), float(np.max(allv))
    if np.allclose(allv, np.round(allv)):
        width = max(1.0, math.ceil((hi - lo + 1) / max_bins))
        return np.arange(math.floor(lo) - 0.5, math.floor(hi) + width + 0.5, width)
    if hi <= lo:
        hi = lo + 1.0
    return np.linspace(lo, hi, max_bins + 1)


# ---------------------------------------------------------------------------------- inspector text
@dataclass(frozen=True)
class ActionBackup:
    """One action of the inspected state: its Q-value and the backup that gives it."""

    action: int
    """Action id."""
    name: str
    """Display name (e.g. "die 2 (normal)")."""
    q: float
    """Q(s, a) from the values of the shown sweep."""
    text: str
    """The backup written out with its numbers (see :func:`backup_text`)."""
    best: bool
    """This action attains the max (or min) over actions."""
    html: str = ""
    """The backup as HTML, each V(s') a link to s''s own backup (the chain of backups; "": ``text``)."""
    terms: tuple[BackupTerm, ...] = ()
    """The terms written out (merged as in ``text``), each with the V(s') it shows."""


@dataclass(frozen=True)
class Inspection:
    """What the inspector shows for one state at one sweep."""

    title: str
    """E.g. "square 7 after sweep 12"."""
    value: float
    """V(s) at the shown sweep."""
    actions: tuple[ActionBackup, ...]
    """Every legal action, in action order."""
    objective: str
    """"min" or "max": which Q is the best."""
    discount: float
    """The model's discount (1 for snakes)."""
    terminal: bool = False
    """The state is terminal (value 0, no actions)."""
    unit: str = ""
    """Unit of values (e.g. "turns")."""
    source: str = "V of this sweep; the next sweep takes the {opt} over actions"
    """Which values V(s') the Q-values back up from (see :func:`backup_values`); "{opt}" is min or max."""
    chain: tuple[str, ...] = ()
    """The chain of backups followed to this page, names root first (:mod:`mdpviz.models.kit.pictures.chain`):
    the breadcrumb, each crumb but the last a link back; () or one name: none drawn."""


def best_actions(qs: Sequence[float], objective: str, *, tie_tol: float = TIE_TOL) -> list[bool]:
    """Which of ``qs`` attain the min ("min") or max ("max"), within the solvers' tie tolerance."""
    if not qs:
        return []
    b = min(qs) if objective == "min" else max(qs)
    tol = tie_tol * (1.0 + abs(b))
    return [abs(q - b) <= tol for q in qs]


def greedy_action(actions: Sequence[int], qs: Sequence[float], objective: str, *, tie_tol: float = TIE_TOL) -> int:
    """The action the solvers pick: the best Q (:func:`best_actions`), ties to the lowest action id."""
    best = best_actions(qs, objective, tie_tol=tie_tol)
    tied = [a for a, b in zip(actions, best) if b]
    return min(tied) if tied else -1


def inspection_html(insp: Inspection, *, digits: int = 4, compact: bool = False) -> str:
    """The inspector's text as simple HTML (tables would not wrap on a narrow dock). ``compact``
    (presenter mode, where the inspector is short): every action's Q in one small table, the best
    action marked, and only the best action's backup written out, so all of them are seen at once."""
    esc = html_escape
    unit = f" {insp.unit}" if insp.unit else ""
    out = [breadcrumb_html(insp.chain, escape=esc),
           f"<p><b>{esc(insp.title)}</b><br>V = {insp.value:.{digits}f}{unit}</p>"]
    if insp.terminal:
        out.append("<p>Terminal state: its value is 0 and it has no actions." +
                   (" The chain ends here.</p>" if len(insp.chain) > 1 else "</p>"))
        return "".join(out)
    opt = "min" if insp.objective == "min" else "max"
    g = "" if insp.discount == 1.0 else "\u03b3 "
    tied = best_actions([a.q for a in insp.actions], insp.objective)  # every optimal action (the board's)
    several = sum(tied) > 1
    if compact:
        rows = []
        for a, t in zip(insp.actions, tied):
            colour = "#006644" if a.best else "#000000"
            weight = "bold" if a.best else "normal"
            star = " \u2605" if a.best else (" \u2606" if t and several else "")
            rows.append(f"<tr style='color:{colour}; font-weight:{weight}'><td>{esc(a.name)}</td>"
                        f"<td align='right'>&nbsp;{a.q:.{digits}f}</td><td>{star}</td></tr>")
        out.append(f"<p>Q(s,a) = \u03a3 p \u00d7 (r + {g}V(s')); \u2605 the {opt}</p>"
                   f"<table cellspacing='0' cellpadding='1'>{''.join(rows)}</table>")
        chosen = next((a for a in insp.actions if a.best), None)
        if chosen is not None:
            out.append(f"<p style='margin-top:6px'><b style='color:#006644'>{esc(chosen.name)}:</b> "
                       f"<span style='font-family:monospace'>{chosen.html or esc(chosen.text)}</span></p>")
        return "".join(out)
    follow = " Click a V(s') for its own backup." if any(a.html for a in insp.actions) else ""
    # every action within the tie rule of the best is optimal too (the board draws it outlined)
    also = "; \u2606 tied with it, drawn outlined" if several else ""
    out.append(f"<p>Q(s,a) = \u03a3 p \u00d7 (r + {g}V(s')) with {esc(insp.source.format(opt=opt))}; "
               f"\u2605 the {opt} (ties: the lowest action), as on the board{also}.{follow}</p>")
    for a, t in zip(insp.actions, tied):
        mark = " \u2605 best" if a.best else (" \u2606 tied" if t and several else "")
        colour = "#006644" if a.best else "#000000"
        out.append(f"<p style='margin-top:6px'><b style='color:{colour}'>{esc(a.name)}: Q = {a.q:.{digits}f}{mark}</b>"
                   f"<br><span style='font-family:monospace'>{a.html or esc(a.text)}</span></p>")
    return "".join(out)
