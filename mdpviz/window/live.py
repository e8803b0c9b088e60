"""Live re-solve and the policy diff: edit the game and watch the solution follow.

With "Live re-solve" on (the Solve menu; on by default, saved with the window's settings), every
edit of the game (a board edit, an editor field, a spin box stepped or dragged, the discount, Undo
and Redo) loads a fresh solver through the controller, as Reset does, and runs it at full speed on
the controller's solver thread: the solved board follows the edit instead of "Not solved yet". An
edit that arrives during a re-solve resets the controller again, which drops the stale solve (its
sweeps carry an old job number): no queue of solves, only the newest edit is solved.

Live re-solve is for models that solve in well under a second. Whether one does is decided from
its size and from what this session has measured, not from a constant tuned on one machine: a
model over :data:`LIVE_MAX_TRANSITIONS` transitions (the size up to which the window already solves
every model exactly for its colour scale) is never re-solved live, and neither is one whose re-solve
the session's last solve (live or Run) predicts to take over :data:`LIVE_BUDGET_S` (its time scaled by the number of
transitions). Such a model falls back to Run, and the status line says why.

When a solve finishes after an edit, the window compares it with the solve before the edit
(:func:`~mdpviz.models.kit.pictures.policy_diff.policy_diff`): the states whose set of optimal actions changed
are outlined on the board, the status line says what changed ("3 states changed action; V(start)
0.41 -> 0.52"), and the View menu flips between the solve before the edit and after it (B) or shows
the difference map V after - V before on a diverging scale centred on 0 (Shift+B). Undo is an edit
too: it shows the way back the same way.

:class:`LivePart` is one part of :class:`mdpviz.app.MainWindow`, handed the window's
:class:`~mdpviz.window.hub.Hub`. It owns the toggle, the diff and the session's measured solve time and
the Solve menu's toggle and the View menu's flips. It hears the solving part's ``model_loaded`` (an
edit's solver is loaded: run it) and ``solve_finished`` (compare with the solve before the edit), the
hub's ``game_shown`` and the controller's ``history_reset``; the stage part asks :meth:`LivePart.edit_message`
when the shown game is edited.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from PySide6.QtCore import QObject

from mdpviz.controller import ValueRange
from mdpviz.models.kit.pictures.display import (ActionBackup, BackupTerm, Inspection, backup_q, backup_text,
                                                 greedy_action, merge_terms)
from mdpviz.models.kit.pictures.policy_diff import PolicyDiff, diff_scale, policy_diff
from mdpviz.models.kit.pictures.value_range import REFERENCE_MAX_TRANSITIONS, range_scale
from mdpviz.core.mdp import TabularMDP
from mdpviz.solvers import Sweep, kernels
from mdpviz.widgets.learning import learns
from mdpviz.window.hub import Hub

LIVE_MAX_TRANSITIONS = REFERENCE_MAX_TRANSITIONS
"""Models with more transitions than this are not re-solved live (the window's exact reference solve,
which the colour scale and the diff's optimal actions come from, stops at the same size)."""

LIVE_BUDGET_S = 0.5
"""A live re-solve should take at most about this long ("well under a second": the time a class
waits for the board to follow an edit); a model whose predicted time is longer falls back to Run.
Not a measure of this computer: the prediction comes from the last solve of the session."""

EXTRAPOLATE = 4
"""The last solve's time predicts a model's only up to this many times its number of transitions (a
model larger than that is re-solved live, and its own time then predicts the next edit's)."""

DIFF_MODES = ("after", "before", "difference")
"""What the board shows of the last edit: the solve after it (the changed states outlined), the solve
before it, or the difference map V after - V before."""


def transitions_text(n: int) -> str:
    """ "273,016 transitions", "4.1 million transitions"."""
    return f"{n / 1e6:.1f} million transitions" if n >= 1_000_000 else f"{n:,} transition{'s' if n != 1 else ''}"


def live_refusal(n_transitions: int, measured: tuple[int, float] | None, *,
                 max_transitions: int = LIVE_MAX_TRANSITIONS, budget_s: float = LIVE_BUDGET_S) -> str:
    """Why a model of ``n_transitions`` is not re-solved live ("" when it is): over ``max_transitions``,
    or predicted over ``budget_s`` from ``measured`` = (transitions, seconds) of the session's last solve
    (time taken to grow with the number of transitions), when that solve's model was at least
    1/:data:`EXTRAPOLATE` of this one's size: a tiny model's time is mostly fixed costs, and scaled up
    1,600 times (the 4x3 grid's 98 transitions to risk tic-tac-toe's 160,300) it predicted 1.3 s for a
    solve of 17 ms."""
    off = "live re-solve is off for this model, press Run"
    if n_transitions > max_transitions:
        return f"{transitions_text(n_transitions)}: {off}"
    if measured is not None and measured[0] > 0 and n_transitions <= EXTRAPOLATE * measured[0]:
        predicted = measured[1] * n_transitions / measured[0]
        if predicted > budget_s:
            return (f"the last solve took {measured[1]:.2g} s for {transitions_text(measured[0])} "
                    f"(this model: about {predicted:.2g} s): {off}")
    return ""


def before_inspection(mdp: TabularMDP, values: np.ndarray, s: int, *, title: str,
                      action_name: Any = str, unit: str = "") -> Inspection:
    """The Bellman backup of state ``s`` of ``mdp`` with the values ``values`` (the solve before an edit, in
    its own model: Sutton and Barto eq. 4.10's Q(s, a) = sum p (r + gamma V(s')) per action)."""
    v = np.asarray(values, dtype=np.float64)
    objective = "min" if mdp.sense[s] < 0 else "max"
    if mdp.terminal[s]:
        return Inspection(title, float(v[s]), (), objective, mdp.discount, terminal=True, unit=unit)
    labels = mdp.state_labels
    name = (lambda t: labels[t] or str(t)) if labels else str  # noqa: E731
    acts = [int(a) for a in mdp.actions_of(s)]
    rows = []
    for a in acts:
        terms = [BackupTerm(p, r, d, float(v[d])) for d, p, r in mdp.outcomes(s, a)]
        shown = terms if len(terms) <= 12 else merge_terms(terms)
        rows.append((a, tuple(shown), backup_q(terms, mdp.discount), backup_text(shown, mdp.discount, state_name=name)))
    chosen = greedy_action(acts, [q for _, _, q, _ in rows], objective)
    actions = tuple(ActionBackup(a, action_name(a), q, text, a == chosen, "", shown) for a, shown, q, text in rows)
    return Inspection(title, float(v[s]), actions, objective, mdp.discount, unit=unit,
                      source="V of the solve before the edit")


@dataclass(frozen=True, eq=False)
class SolvedModel:
    """A finished solve of one game, what the next edit's diff compares with."""

    key: str
    """The game's key."""
    mdp: TabularMDP
    """The model solved."""
    values: np.ndarray
    """V of every state: the exact optimal values when the window had them (its reference solve),
    else the solve's last sweep."""
    sweep: Sweep
    """The solve's last snapshot (what the board showed)."""
    value_range: ValueRange | None
    """The solve's value range (its colour scale)."""


class LivePart(QObject):
    """Live re-solve after every edit and the policy diff (part of :class:`~mdpviz.app.MainWindow`)."""

    def __init__(self, hub: Hub) -> None:
        """Declare the live part's state, build its actions and connect it."""
        super().__init__(hub)
        self._hub = hub
        self.live_resolve: bool = str(hub.settings.value("solve/liveResolve", "true")).lower() not in ("false", "0")
        """Re-solve after every edit (the Solve menu's toggle, saved in the window's settings)."""
        self.diff_mode = "after"
        """What the board shows of the last edit (one of :data:`DIFF_MODES`)."""
        self.live_diff: PolicyDiff | None = None
        """The last edit's diff (None: no edit solved since the last finished solve of the shown game)."""
        self.live_note = ""
        """Why the shown model is not re-solved live ("" when it is, or live re-solve is off)."""
        self.live_max_transitions = LIVE_MAX_TRANSITIONS
        """Models over this many transitions fall back to Run (see :func:`live_refusal`)."""
        self._live_base: SolvedModel | None = None
        """The solve the next finished solve is compared with (the last one before the pending edits)."""
        self._live_before: SolvedModel | None = None
        """The solve before the edit of :attr:`live_diff`."""
        self._live_go = False
        """The model change being announced is an edit to re-solve live."""
        self._live_timed = False
        """The running solve started with the compiled kernels loaded (its time says how fast this computer
        solves; the first solve of a session may include their loading or first compile)."""
        self._live_measured: tuple[int, float] | None = None
        """(transitions, seconds) of the session's last finished solve (live or Run), as the solver timed it."""
        act, solve_menu, view_menu = hub.action, hub.menus.solve, hub.menus.view
        self.act_live = act("&Live re-solve after every edit", "liveResolveAction", self.set_live_resolve,
                            checkable=True,
                            tip="Solve again after every edit (small models): the board follows the edit "
                                "and marks the states whose optimal action changed")
        self.act_live.setChecked(self.live_resolve)
        solve_menu.addSeparator()
        solve_menu.addAction(self.act_live)
        self.act_diff_before = act("Show the solve &before the last edit", "diffBeforeAction",
                                   lambda on: self.set_diff_mode("before" if on else "after"), "B",
                                   checkable=True, tip="Flip between the solve before the last edit and after it")
        self.act_diff_map = act("Colour by the last edit's change (V after \u2212 V before)", "diffMapAction",
                                lambda on: self.set_diff_mode("difference" if on else "after"), "Shift+B",
                                checkable=True,
                                tip="Each square coloured by how much the last edit changed its value "
                                    "(diverging: 0 in the middle)")
        view_menu.addSeparator()
        view_menu.addActions([self.act_diff_before, self.act_diff_map])
        hub.solving.solve_finished.connect(self._live_finished)
        hub.solving.model_loaded.connect(self._live_model_loaded)
        hub.controller.history_reset.connect(self._live_history_reset)
        hub.game_shown.connect(self._live_game_shown)

    # ------------------------------------------------------------------ the toggle
    def set_live_resolve(self, on: bool) -> None:
        """Live re-solve on or off (saved with the window's settings)."""
        self.live_resolve = bool(on)
        if self.act_live.isChecked() != self.live_resolve:
            self.act_live.setChecked(self.live_resolve)
        self._hub.settings.setValue("solve/liveResolve", "true" if self.live_resolve else "false")

    def set_diff_mode(self, mode: str) -> None:
        """Show the solve "after" the last edit, "before" it, or the "difference" map (see :data:`DIFF_MODES`)."""
        if mode not in DIFF_MODES:
            raise ValueError(f"diff mode must be one of {', '.join(DIFF_MODES)}, got {mode!r}")
        self.diff_mode = mode
        for a, m in ((self.act_diff_before, "before"), (self.act_diff_map, "difference")):
            if a.isChecked() != (mode == m):
                a.blockSignals(True)
                a.setChecked(mode == m)
                a.blockSignals(False)
        if mode != "after" and self.live_diff is None:
            self._hub.status.showMessage("No edit to compare yet: edit the game with live re-solve on "
                                         "(Solve menu).", 8000)
        self._hub.solving.mark_dirty()

    # ------------------------------------------------------------------ edits
    def live_verdict(self) -> str:
        """Why the shown model would not be re-solved live now ("" when it would)."""
        mdp = self._hub.stage.session.mdp()
        if mdp is None:
            return "no model"
        return live_refusal(mdp.n_transitions, self._live_measured, max_transitions=self.live_max_transitions)

    def _live_applies(self) -> bool:
        """Live re-solve applies to the shown game and solver (not a learner, nor a game whose Step is its own)."""
        return (self.live_resolve and not self._hub.stage.session.game.drives_steps and not learns(self._hub.solver_panel.method)
                and not self._hub.learning.active and self._hub.stage.session.mdp() is not None)

    def edit_message(self, text: str) -> str:
        """The shown game was edited (``text``): keep the solve to compare with, decide whether to re-solve
        live, and say so (the status line's message for the edit)."""
        kept = self._hub.controller.finished_solve()
        if kept is not None and self._hub.solving.solve_owner == self._hub.stage.game.key and kept.history:
            self._live_base = self._solved(kept.mdp, kept.history[-1], kept.value_range)
        elif self._live_base is not None and self._live_base.key != self._hub.stage.game.key:
            self._live_base = None
        self.live_diff = None
        self._live_go = False
        self.live_note = ""
        if self._hub.stage.session.new_lesson:  # a map chosen (issue 35 items 2, 3): the lesson starts at sweep 0,
            self._live_base = None  # with Step ready; nothing is compared with the map before
            if self._hub.stage.session.building:
                return f"{text[:1].upper()}{text[1:]}: building the model\u2026"
            return f"{text[:1].upper()}{text[1:]}: a new lesson at sweep 0 (Step or Run)."
        if self._hub.stage.session.building:  # the edit's model is built on the job thread: the solve to compare
            return f"Edited ({text}): building the model\u2026"  # with stays (its compile's end is told again)
        if not self._live_applies():  # (a manual Run after the edit shows no diff: the board is as it always was)
            self._live_base = None
            return f"Edited ({text}): the solution is stale and the solver was reset."
        why = self.live_verdict()
        if why:
            self._live_base = None
            self.live_note = why
            return f"Edited ({text}): {why}."
        self._live_go = True
        return f"Edited ({text}): re-solving\u2026"

    def _live_model_loaded(self) -> None:
        """The solving part loaded the edited model's solver (its ``model_loaded``): run it at full speed."""
        go, self._live_go = self._live_go, False
        if not go:
            return
        mdp = self._hub.stage.session.mdp()
        if mdp is None or self._hub.controller.mdp is not mdp or not self._hub.controller.can_step:
            return
        self._hub.controller.run(math.inf)

    def _live_game_shown(self, _game: Any) -> None:
        """Another game: nothing of the last one's edits is compared."""
        self._live_base = self._live_before = None
        self.live_diff = None
        self._live_go = False
        self.live_note = ""
        if self.diff_mode != "after":
            self.set_diff_mode("after")

    def _live_history_reset(self) -> None:
        """A fresh solve (an edit's, Reset, another algorithm): the diff shown belonged to the last one."""
        self._live_timed = kernels.ready()
        if self.live_diff is not None:
            self.live_diff = None
            self._hub.solving.mark_dirty()

    def _solved(self, mdp: TabularMDP, last: Sweep, rng: ValueRange | None) -> SolvedModel:
        exact = rng is not None and rng.source == "reference" and rng.values is not None \
            and np.shape(rng.values) == (mdp.n_states,)
        values = np.asarray(rng.values if exact else last.values, dtype=np.float64)
        return SolvedModel(self._hub.stage.game.key, mdp, values, last, rng)

    def _live_finished(self, sol: Any) -> None:
        """A solve finished: keep its time (the next edit's prediction) and compare it with the solve before
        the edit."""
        c = self._hub.controller
        elapsed = getattr(sol, "elapsed", None)
        if (self._live_timed and c.mdp is not None and not learns(c.method) and elapsed is not None
                and math.isfinite(elapsed)):
            self._live_measured = (c.mdp.n_transitions, float(elapsed))
        base = self._live_base
        if c.mdp is None or not c.history or not isinstance(c.history[-1], Sweep) or self._hub.solving.solve_owner != self._hub.stage.game.key:
            return
        if base is None or base.key != self._hub.stage.game.key or base.mdp is c.mdp or c.mdp is not self._hub.stage.session.mdp():
            return
        if max(base.mdp.n_transitions, c.mdp.n_transitions) > self.live_max_transitions:
            return  # (the comparison runs here, on the GUI thread: only for the models live re-solve is for)
        after = self._solved(c.mdp, c.history[-1], c.value_range)
        start = self._hub.stage.session.start_state()
        try:
            diff = policy_diff(base.mdp, base.values, after.mdp, after.values,
                               start=start if 0 <= start < c.mdp.n_states else None)
        except ValueError as e:  # (a model that cannot be compared: said, never drawn)
            self._hub.status.showMessage(f"The edit's change cannot be shown: {e}", 8000)
            return
        self._live_base = None
        self._live_before = base
        self.live_diff = diff
        # one colour scale for the solve before and after the edit, so that flipping compares colours
        lo = min(r.lo for r in (base.value_range, c.value_range) if r is not None) if c.value_range else None
        if lo is not None and base.value_range is not None:
            hi = max(base.value_range.hi, c.value_range.hi)
            self._hub.solving.fix_scale(range_scale(lo, hi, label=self._hub.stage.session.game.value_label, kind=self._hub.stage.session.game.color_kind))
        self._hub.status.showMessage(self.diff_sentence(), 15000)
        self._hub.solving.mark_dirty()

    def diff_sentence(self) -> str:
        """What the last edit changed, in words ("" without a diff)."""
        d = self.live_diff
        if d is None:
            return ""
        return f"{self._hub.stage.game.title}: {d.sentence(lambda s: self._hub.stage.session.state_name(s))}"

    # ------------------------------------------------------------------ drawing (from SolvingPart._draw_frame)
    def _shown_diff(self, sw: Sweep | None) -> PolicyDiff | None:
        """The last edit's diff when the sweep on display is the newest of the solve it belongs to."""
        d, c = self.live_diff, self._hub.controller
        if (d is None or self._live_before is None or sw is None or self._hub.learning.active or self._hub.solving.view_index is not None
                or not c.history or sw is not c.history[-1] or c.mdp is None or c.mdp is not self._hub.stage.session.mdp()
                or np.shape(d.changed) != (c.mdp.n_states,)):
            return None
        return d

    def live_caption(self, caption: str, sw: Sweep | None) -> str:
        """The board's caption while the last edit's diff is shown: which solve, and what changed."""
        d = self._shown_diff(sw)
        if d is None:
            return caption
        # short enough for presenter mode: the value of the start is in the status line's sentence
        what = "; ".join(p for p in d.sentence().split("; ") if not p.startswith("V("))
        if d.n_changed and self._hub.stage.board.change_mark:
            what = what.replace("changed action", f"changed action ({self._hub.stage.board.change_mark})", 1)
        mode = self.diff_mode
        if mode == "before" and np.all(d.compared):
            return f"Before the edit: {what}"
        if mode == "difference":
            return f"V after − V before the edit: {what}"
        return f"After the edit: {what}"

    def shown_inspection(self, insp: Inspection | None, s: int | None) -> Inspection | None:
        """The inspector's page for state ``s`` as the board shows it (issue 35 item 5: the "before" and
        "difference" views kept the inspector on the backup after the edit, V = -6.4475 beside a board's
        4.48): "before", the backup of the state in the model before the edit with the values of the solve
        before it; "difference", the backup after the edit titled with V after - V before. ``insp`` is the
        page after the edit (what the "after" view shows, returned as it is there)."""
        d = self._shown_diff(self._hub.solving.shown_sweep())
        if insp is None or s is None or d is None or self.diff_mode == "after" or not 0 <= s < len(d.before_state):
            return insp
        title = self._hub.stage.game.state_title(s)
        if self.diff_mode == "difference":
            if not d.compared[s]:
                return replace(insp, title=f"{insp.title} (new in the edit: no V before it)")
            return replace(insp, title=f"{insp.title}: V after \u2212 V before = {float(d.dv[s]):+.4g} "
                                       f"(before the edit {float(d.v_before[s]):.4g})")
        base = self._live_before
        b = int(d.before_state[s])
        if base is None or b < 0:
            return Inspection(f"{title}: not a state before the edit", 0.0, (), insp.objective, insp.discount,
                              terminal=True, unit=insp.unit)
        return before_inspection(base.mdp, base.values, b, title=f"{title} in the solve before the edit",
                                 action_name=self._hub.stage.session.action_name, unit=insp.unit)

    def draw_live(self, board: Any, sw: Sweep | None, caption: str) -> None:
        """After the board drew the shown sweep: the last edit's diff on it (the changed states marked, the
        solve before the edit, or the difference map)."""
        d = self._shown_diff(sw)
        if d is None:
            return
        mode = self.diff_mode
        if mode == "before":
            if np.all(d.compared):
                before = self._live_before
                pol = np.asarray(before.sweep.policy)[d.before_state].astype(np.int64)
                shown = replace(sw, values=np.asarray(d.v_before), policy=pol)
                board.show_sweep(shown, self._hub.solving.scale, caption=caption, previous=None)
            else:
                self._hub.status.showMessage(f"The solve before the edit had other states ({d.n_new} new, "
                                             f"{d.gone} removed): the board shows the solve after the edit.", 8000)
                mode = "after"
        drawn = board.show_change(d, mode, diff_scale(d) if mode == "difference" else None)
        if mode == "difference" and not drawn:
            self._hub.status.showMessage(f"{self._hub.stage.game.title}'s board draws no difference map: "
                                         f"{self.diff_sentence()}", 8000)
