"""The Sensitivity dock of the main window: when does the optimal policy switch (issue 28, item 2)?

:class:`SensitivityPart` is one part of :class:`mdpviz.app.MainWindow`, handed the window's
:class:`~mdpviz.window.hub.Hub` (the controller, the Solver panel, the status line, ``hub.dock`` to add
its dock and ``hub.main`` to place it beside the convergence plot). It owns Solve > Sensitivity, the Sensitivity dock (opened from Solve > Sensitivity),
the last sweep and the edit its clicks made. A sweep runs as a job on the controller's job thread
(:func:`~mdpviz.models.kit.teaching.sensitivity.sensitivity_job` or ``phase_job``: progress and cancel); the
panel (:class:`~mdpviz.widgets.sensitivity.SensitivityPanel`) draws what it returns.

A click on an interval (or a phase region) sets the swept setting(s) to the interval's middle (the
clicked cell's values) as one undoable edit of the game, and solves that model to convergence with the
Solver panel's algorithm: the board, the inspector and the Q view then all show that interval's policy,
and Undo (Ctrl+Z) gives back the user's own value. A second click replaces the first click's edit (one
Undo still returns to the user's settings). The part hears ``game_shown`` (the game's numbers),
``model_changed`` (a sweep of settings that have since changed is marked stale) and
``presenter_changed`` (text size).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QDockWidget, QWidget

from mdpviz.core.jobs import Job
from mdpviz.models.kit.game import registry
from mdpviz.models.kit.teaching.sensitivity import Phase, Sensitivity, phase_job, sensitivity_job, value_of, with_value
from mdpviz.models.kit.teaching.sweep_fields import check_range, numeric_fields
from mdpviz.widgets.learning import learns
from mdpviz.widgets.sensitivity import SensitivityPanel, SweepRequest, region_letter
from mdpviz.window.hub import Hub
from mdpviz.window.parts import PLOT_PX, PRESENTER_PLOT_PX

MAX_PHASE_STEPS = 201
"""Values per axis of a phase diagram at most (as ``mdpviz sensitivity --steps`` takes them)."""
SENSITIVITY_HEIGHT = 0.5
"""Share of the window's height the Sensitivity dock takes when opened (its phase diagram needs room)."""
PRESENTER_SENSITIVITY_HEIGHT = 0.38
"""The share in presenter mode, as the convergence plot's (half of a 720-px projector left the board 150 px)."""


@dataclass(frozen=True)
class SweepRun:
    """A finished sweep and what it was computed from."""

    game_key: str
    """The game's key."""
    data: dict
    """Its scenario data at the time (the settings not swept)."""
    params: tuple[str, ...]
    result: Sensitivity | Phase


class SensitivityPart(QObject):
    """The Sensitivity dock (part of :class:`~mdpviz.app.MainWindow`)."""

    def __init__(self, hub: Hub) -> None:
        """Declare the sensitivity part's state, its action and its dock (hidden until opened), and connect
        it to the hub's signals."""
        super().__init__(hub)
        self._hub = hub
        self.act_sensitivity = hub.action(
            "Sensiti&vity: when does the policy switch?\u2026", "sensitivityAction", self.open_sensitivity,
            "Ctrl+Shift+W", tip="Sweep a setting (or two: a phase diagram) and see where the optimal policy switches")
        hub.menus.solve.addAction(self.act_sensitivity)
        self._sens_panel: SensitivityPanel | None = None
        """The dock's panel, built when first opened."""
        self._sens_run: SweepRun | None = None
        """The sweep shown (None: none)."""
        self._sens_edit: tuple[str, Any, str] | None = None
        """(game, settings, undo text) of the last edit a click on an interval made (a next click replaces it)."""
        self.sensitivity_dock: QDockWidget = self._hub.dock("Sensitivity", "sensitivityDock", QWidget(),
                                                        Qt.DockWidgetArea.BottomDockWidgetArea)
        """Sweeps of a setting: V*(start), the intervals of one policy, the switch points, the phase diagram."""
        self.sensitivity_dock.hide()  # tabbed with the convergence plot when first opened (see open_sensitivity)
        self._sens_placed = False
        """The dock has been put beside the convergence plot (once, when first opened; a layout restored
        with the dock in it places it too)."""
        # shown (opened, or restored with a saved layout): its panel is built then, with the game's numbers
        self.sensitivity_dock.visibilityChanged.connect(self._on_sensitivity_shown)
        self._hub.game_shown.connect(lambda _g: self._sensitivity_game_shown())
        self._hub.model_changed.connect(self._sensitivity_model_changed)
        self._hub.presenter_changed.connect(self._sensitivity_presenter)

    @property
    def sensitivity_panel(self) -> SensitivityPanel:
        """The Sensitivity dock's panel, built the first time it is opened or asked for."""
        if self._sens_panel is None:
            p = SensitivityPanel()
            self._sens_panel = p
            self.sensitivity_dock.setWidget(p)
            p.sweep_requested.connect(self.run_sensitivity)
            p.cancel_requested.connect(self._hub.playing.cancel_game_job)
            p.interval_clicked.connect(self.show_interval)
            p.cell_clicked.connect(self.show_phase_cell)
            p.set_font_size(PRESENTER_PLOT_PX if self._hub.view.presenter else PLOT_PX)
            self._sensitivity_fields()
        return self._sens_panel

    def open_sensitivity(self) -> SensitivityPanel:
        """Solve > Sensitivity: show the dock (beside the convergence plot, a good share of the height) in front."""
        panel = self.sensitivity_panel
        d = self.sensitivity_dock
        if not self._sens_placed and d.isHidden() and not d.isFloating():
            self._sens_placed = True
            self._hub.main.tabifyDockWidget(self._hub.docks["convergence"], d)
        d.show()
        d.raise_()
        if not d.isFloating():
            share = PRESENTER_SENSITIVITY_HEIGHT if self._hub.view.presenter else SENSITIVITY_HEIGHT
            self._hub.main.resizeDocks([d], [int(self._hub.main.height() * share)], Qt.Orientation.Vertical)
        return panel

    def _on_sensitivity_shown(self, shown: bool) -> None:
        if shown:
            self.sensitivity_panel  # noqa: B018 (built when first shown)
            self._sensitivity_fields()

    # ------------------------------------------------------------------ the game's numbers
    def _sensitivity_fields(self) -> None:
        if self._sens_panel is None:
            return
        s = self._hub.stage.session
        spec = registry.get(s.spec.key)
        fields = () if spec.no_table else numeric_fields(s.spec.key, s.to_dict())
        note = (f"{s.spec.title} has no table of states to solve ({spec.no_table})." if spec.no_table else
                f"{s.spec.title} has no real-valued setting to sweep." if not fields else "")
        self._sens_panel.set_fields(fields, note=note)

    def _sensitivity_game_shown(self) -> None:
        if self._sens_run is not None and self._sens_run.game_key != self._hub.stage.game.key:
            self._sens_run = None
            if self._sens_panel is not None:
                self._sens_panel.clear()
        self._sensitivity_fields()

    def _sensitivity_stale(self) -> bool:
        """The shown sweep's other settings are no longer the game's."""
        run = self._sens_run
        if run is None or run.game_key != self._hub.stage.game.key:
            return False
        now = self._hub.stage.session.to_dict()
        for p in run.params:
            now = with_value(now, p, value_of(run.data, p))
        return now != run.data

    def _sensitivity_model_changed(self) -> None:
        self._sensitivity_fields()
        if self._sens_panel is not None and self._sensitivity_stale():
            self._sens_panel.set_caption("The game's other settings changed since this sweep: sweep again to see "
                                         "their switch points.")

    def _sensitivity_presenter(self, on: bool) -> None:
        if self._sens_panel is not None:
            self._sens_panel.set_font_size(PRESENTER_PLOT_PX if on else PLOT_PX)

    # ------------------------------------------------------------------ sweeping
    def run_sensitivity(self, request: SweepRequest | None = None) -> bool:
        """Sweep what the panel asks (or ``request``) as a job on the controller; False (and one line in the
        panel saying why) when the range is refused or another job runs."""
        panel = self.sensitivity_panel
        req = request if request is not None else panel.request()
        if req is None:
            return False
        s = self._hub.stage.session
        key, data = s.spec.key, s.to_dict()
        try:
            check_range(key, data, req.param, req.lo, req.hi)
            if req.param2 is not None:
                if req.param2 == req.param:
                    raise ValueError("choose two different settings for a phase diagram")
                check_range(key, data, req.param2, req.lo2, req.hi2)
        except ValueError as e:
            panel.show_error(str(e))
            return False
        if req.param2 is not None and not 2 <= req.steps <= MAX_PHASE_STEPS:
            panel.show_error(f"a phase diagram takes 2 to {MAX_PHASE_STEPS} values per axis, got {req.steps}")
            return False
        panel.show_error("")
        label = panel.label_of(req.param)
        if req.param2 is None:
            params: tuple[str, ...] = (req.param,)
            make = lambda: sensitivity_job(key, data, req.param, req.lo, req.hi, steps=req.steps)  # noqa: E731
            what = f"Sweeping {label} from {req.lo:g} to {req.hi:g}"
        else:
            params = (req.param, req.param2)
            make = lambda: phase_job(key, data, (req.param, req.param2),  # noqa: E731
                                     ((req.lo, req.hi), (req.lo2, req.hi2)), steps=req.steps)
            what = (f"Phase diagram of {label} and {panel.label_of(req.param2)} ({req.steps} x {req.steps} = "
                    f"{req.steps ** 2:,} exact solves; the progress says how long once the first are done)")

        def done(result: Sensitivity | Phase | None) -> None:
            panel.show_running(False)
            if result is None:
                panel.message.setText("Sweep cancelled.")
                return
            self._sens_run = SweepRun(key, data, params, result)
            self._sens_edit = None
            if isinstance(result, Phase):
                panel.show_phase(result, labels=(label, panel.label_of(params[1])))
            else:
                panel.show_sweep(result, label=label)
            panel.set_caption("")
            self._hub.status.showMessage(f"{what}: done.", 6000)

        def failed(msg: str) -> None:
            panel.show_running(False)
            panel.show_error(f"The sweep stopped: {msg}")

        job = Job(make, label=f"{what}\u2026", on_done=done, on_progress=panel.show_progress, on_failed=failed,
                  on_cancelled=lambda: panel.show_running(False, "Sweep cancelled."))
        if not self._hub.playing.start_game_job(job):
            return False
        panel.show_running(True, f"{what}\u2026 (Cancel stops it)")
        return True

    # ------------------------------------------------------------------ showing an interval on the board
    def show_interval(self, i: int) -> bool:
        """Show interval ``i`` of the shown sweep on the board: its middle as one undoable edit, solved."""
        run = self._sens_run
        if run is None or not isinstance(run.result, Sensitivity) or not 0 <= i < len(run.result.intervals):
            return False
        res = run.result
        iv = res.intervals[i]
        x = 0.5 * (iv.lo + iv.hi)
        where = f"the middle of interval {i + 1} of {len(res.intervals)}, {iv.lo:.6f} to {iv.hi:.6f}"
        return self._apply_sweep_values(((res.param, x),), where)

    def show_phase_cell(self, i: int, j: int) -> bool:
        """Show the phase diagram's cell (i, j) on the board: both settings at its values, as one undoable
        edit, solved."""
        run = self._sens_run
        if run is None or not isinstance(run.result, Phase):
            return False
        ph = run.result
        r = int(ph.region[j, i])
        name = ph.names[r] if r < len(ph.names) else f"policy {r + 1}"
        return self._apply_sweep_values(((ph.params[0], float(ph.xs[i])), (ph.params[1], float(ph.ys[j]))),
                                        f"region {region_letter(r)}: {name}")

    def _apply_sweep_values(self, values: tuple[tuple[str, float], ...], where: str) -> bool:
        panel = self.sensitivity_panel
        if self._sensitivity_stale():
            panel.show_error("The game's other settings changed since this sweep: sweep again first.")
            return False
        s = self._hub.stage.session
        ours = self._sens_edit
        if (ours is not None and ours[0] == s.spec.key and s.settings == ours[1] and s.undo_stack.canUndo()
                and s.undo_stack.undoText() == ours[2]):
            s.undo_stack.undo()  # the last click's edit: replaced, so one Undo still returns to the user's settings
        data = s.to_dict()
        before = [(p, value_of(data, p)) for p, _x in values]
        for p, x in values:
            data = with_value(data, p, x)
        try:
            new = s.spec.from_dict(data, "sensitivity")
        except ValueError as e:
            panel.show_error(str(e))
            return False
        panel.show_error("")
        shown = ", ".join(f"{panel.label_of(p)} = {x:.6g}" for p, x in values)
        text = f"{shown} (sensitivity)"
        if s.edit(new, text):
            self._sens_edit = (s.spec.key, s.settings, text)
        back = ", ".join(f"{panel.label_of(p)} = {v:g}" for p, v in before)
        caption = f"The board: {shown} ({where}). Undo (Ctrl+Z): back to {back}."
        panel.set_caption(caption)
        if learns(self._hub.solver_panel.method):
            self._hub.status.showMessage(f"{shown}: a learner is chosen in the Solver panel; choose a solver and "
                                         "Run to see this policy.", 10000)
        elif self._hub.controller.mdp is None and self._hub.stage.session.building:
            self._hub.solving.run_solver()  # (its model is built on the job thread) queued until it is built
        else:
            self._hub.solving.follow_newest()
            self._hub.controller.run(math.inf)
            self._hub.status.showMessage(f"{shown}: solving; Undo (Ctrl+Z) puts back {back}.", 10000)
        return True


__all__ = ["SensitivityPart", "SweepRun"]
