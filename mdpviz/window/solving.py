"""The solver, the drawing at screen rate and the inspector of the main window.

Step, Run, Pause and Reset (or a game's own rounds), the sweeps recorded by the controller drawn
on the board about 30 times a second, and the Bellman backup of the inspected state.

:class:`SolvingPart` is one part of :class:`mdpviz.app.MainWindow`, handed the window's
:class:`~mdpviz.window.hub.Hub` (the controller, the Solver panel, the inspector, the plot, the colour
bar, the status line; the shown game through the stage part). It owns the colour scale, the shown sweep,
the inspected state, the dirty flag (others call :meth:`~SolvingPart.mark_dirty`), the redraw timer and
the Solve menu's buttons (Step ... Reset) and View > Error and bounds. It hears ``model_changed`` (the
model's solver is loaded, then it emits :attr:`~SolvingPart.model_loaded`) and ``shutting_down`` (the
timer stops); it emits :attr:`~SolvingPart.solve_finished` after its own word on a finished solve.
"""
from __future__ import annotations

import math
import time

import numpy as np
from PySide6.QtCore import QObject, QTimer, Signal

from mdpviz.controller import FinishedSolve, ValueRange
from mdpviz.export import sweep_caption_of
from mdpviz.models.kit.pictures.value_range import range_scale
from mdpviz.solvers import Solution, Sweep, kernels, registry
from mdpviz.solvers.learning import LearningStep
from mdpviz.widgets.learning import learns
from mdpviz.solvers.value_iteration import default_block_size
from mdpviz.models.kit.pictures.colors import ColorScale, scale_for
from mdpviz.models.kit.pictures.chain import BackupChain, follow_href, parse_href
from mdpviz.models.kit.pictures.ties import backed_up, endless_states, endless_text
from mdpviz.models.kit.pictures.display import (
    ActionBackup,
    Inspection,
    backup_q,
    backup_sources,
    backup_text,
    backup_values,
    greedy_action,
    merge_terms,
)

from mdpviz.widgets.panels import uses_tolerance
from mdpviz.widgets.convergence import bounded_method
from mdpviz.window.hub import Hub
from mdpviz.window.parts import PLOT_MIN_INTERVAL, REDRAW_MS


class SolvingPart(QObject):
    """The solver, the drawing at screen rate and the inspector (part of :class:`~mdpviz.app.MainWindow`)."""

    model_loaded = Signal()
    """The shown model's solver is loaded after a ``model_changed`` (a fresh one, or the game's kept solve):
    what the live part waits for to run an edit's solve (not the order of the listeners)."""
    solve_finished = Signal(object)
    """A solve (or a learner's run) finished and this part said so on the status line: the live part
    compares it with the solve before the edit (its sentence then replaces this part's)."""

    def __init__(self, hub: Hub) -> None:
        """Declare the solving part's state, build its actions and connect it to the controller, the
        solver panel and the hub's signals."""
        super().__init__(hub)
        self._hub = hub
        self.scale: ColorScale | None = None
        """The solve's colour scale, fixed for the solve (a game without solves may fix its own)."""
        self.view_index: int | None = None
        """The sweep the history slider points at (None: follow the newest sweep)."""
        self.selected: int | None = None
        """The inspected state (None: nothing inspected): the shown page of :attr:`chain`."""
        self.chain = BackupChain()
        """The inspector's chain of backups followed from the clicked state (:mod:`mdpviz.models.kit.pictures.chain`):
        a board click starts it, a term's link extends it, a breadcrumb cuts it, a model edit clears it."""
        self._dirty = True
        """Something shown changed since the last frame (see :meth:`mark_dirty`)."""
        self._trajectory_shown = False
        """The board outlines a real-time DP trajectory (cleared when another snapshot is drawn)."""
        self._endless_seen: tuple = (None, None, "")
        """(model, snapshot, text) of the status line's states the drawn policy never ends from (kept per snapshot)."""
        self._plot_time = 0.0
        """``time.perf_counter()`` of the convergence plot's last refresh."""
        self.solve_owner: str | None = None
        """The key of the game whose model the controller was last loaded with."""
        self._queued: tuple[str, str] | None = None
        """(game key, "step" or "run"): Step or Run pressed while that game's model was being built on the
        job thread (:attr:`~mdpviz.widgets.session.GameSession.building`): done once it is built."""
        self._kept_solves: dict[str, FinishedSolve] = {}
        """Each game's finished solve, kept when another game is shown and shown again when it comes
        back (dropped when its model or the solver's settings no longer match)."""
        self.redraw_timer = QTimer(self)
        """Draws a frame every REDRAW_MS when something changed (started when the window is built)."""
        self.redraw_timer.setInterval(REDRAW_MS)
        self.redraw_timer.timeout.connect(self.redraw)
        c = self._hub.controller
        c.sweeps_added.connect(self._on_sweeps)
        c.history_reset.connect(self._on_history_reset)
        c.range_ready.connect(self._on_range)
        self._hub.convergence.set_theory_shown(False)  # (View > Error and bounds: off until asked; the lesson snapshot draws them)
        c.state_changed.connect(self._on_state)
        c.finished.connect(self._on_finished)
        c.failed.connect(self._on_failed)
        p = self._hub.solver_panel
        p.step.clicked.connect(self.step)
        p.evaluate.clicked.connect(c.step)
        p.improve.clicked.connect(c.step)
        p.run.clicked.connect(self.run_solver)
        p.pause.clicked.connect(self.pause_solver)
        p.reset.clicked.connect(self.reset_action)
        p.method_changed.connect(lambda _m: self.reset_solver())
        p.tolerance_changed.connect(lambda _t: self.reset_solver())
        p.options_changed.connect(self.reset_solver)
        p.discount_changed.connect(self._on_discount)
        p.speed_changed.connect(c.set_rate)
        p.history_moved.connect(self._on_history_moved)
        p.invalid_input.connect(lambda msg: self._hub.status.showMessage(msg, 8000))
        self._hub.game_shown.connect(self._keep_solve)
        self._hub.model_changed.connect(self._solving_model_changed)
        self._hub.inspector.link_clicked.connect(self.follow_link)
        self._hub.shutting_down.connect(self.redraw_timer.stop)
        m, act = hub.menus.solve, hub.action
        self.act_step = act("&Step", "stepAction", self.step, "Space", tip="One sweep (policy iteration: one round)")
        self.act_eval = act("&Evaluate", "evaluateAction", c.step, tip="Policy iteration: evaluate")
        self.act_improve = act("&Improve", "improveAction", c.step, tip="Policy iteration: improve")
        self.act_run = act("&Run / pause", "runAction", self.toggle_run, "R", tip="Run to convergence or pause")
        self.act_pause = act("&Pause", "pauseAction", self.pause_solver, tip="Pause the run")
        self.act_stop = act("S&top", "stopAction", self.stop, "Esc", tip="Pause the solver and the episode player")
        self.act_reset = act("Rese&t", "resetAction", self.reset_action, "Ctrl+R", tip="Start the solve again")
        m.addActions([self.act_step, self.act_eval, self.act_improve, self.act_run, self.act_pause, self.act_stop,
                      self.act_reset])
        m.addSeparator()
        self.act_bounds = act("&Error and bounds on the convergence plot", "boundsAction", self.set_theory_shown,
                              "Ctrl+Shift+B", checkable=True,
                              tip="Beside max |dV|: the true error max |V - V*| and, for value iteration, "
                                  "the bounds that the stopping rule and the contraction guarantee")
        hub.menus.view.addAction(self.act_bounds)

    def fix_scale(self, scale: ColorScale) -> None:
        """Draw the shown solve on ``scale`` from now on (the live part: one scale for the solves before and
        after an edit, so that flipping between them compares colours)."""
        self.scale = scale
        if not self._hub.classroom.delta_view:
            self._hub.color_bar.show_scale(scale)
        self._dirty = True

    def mark_dirty(self) -> None:
        """Something shown changed: the next frame (at most REDRAW_MS away) draws it."""
        self._dirty = True

    def deselect(self) -> None:
        """Forget the inspected state (the inspector shows it no more from the next frame)."""
        self.selected = None

    def _keep_solve(self, _game) -> None:
        """Another game is shown (the hub's ``game_shown``): the finished solve of the game shown
        until now is kept for when it comes back."""
        kept = self._hub.controller.finished_solve()
        if kept is not None and self.solve_owner is not None and self.solve_owner != self._hub.stage.game.key:
            self._kept_solves[self.solve_owner] = kept

    def _solving_model_changed(self) -> None:
        """The shown model changed (the hub's ``model_changed``): a state beyond it is no longer
        inspected, and the game's kept solve is shown again if it solved this model with the solver's
        present settings, else a fresh solver is loaded."""
        mdp = self._hub.stage.session.mdp()
        if mdp is None and self.selected is not None and not self._hub.stage.session.building:
            self.selected = None  # (while the model is built the inspected state waits for it)
        if self.selected is not None and mdp is not None and self.selected >= mdp.n_states:
            self.selected = None
        kept = self._kept_solves.pop(self._hub.stage.game.key, None)
        if (kept is not None and mdp is not None and kept.mdp is mdp and kept.method == self._hub.solver_panel.method
                and kept.options == self.solver_options()):
            self.view_index = None
            self.scale = self._hub.stage.game.fixed_scale
            self._hub.color_bar.show_scale(self.scale)
            self.solve_owner = self._hub.stage.game.key
            self._hub.controller.restore(kept)
            self._dirty = True
        else:
            self.reset_solver()
            if self._queued is not None and (self._queued[0] != self._hub.stage.game.key or not self._hub.stage.session.building):
                (key, what), self._queued = self._queued, None
                if key == self._hub.stage.game.key and mdp is not None:  # pressed while the model was built: now
                    self.run_solver() if what == "run" else self.step()
        self.chain = BackupChain.start(self.selected)  # a model edit (or another game) clears the chain
        self.model_loaded.emit()

    # ------------------------------------------------------------------ solver
    def solver_options(self) -> dict:
        """The options of the Solver panel's choices: the tolerance (AIMA's sequence: its epsilon), the
        method's own options and the conventions in force; a learner's settings (window/learning.py)."""
        p = self._hub.solver_panel
        if learns(p.method):
            return self._hub.learning.learning_options()
        opts = p.options()
        spec = registry.find(p.method)
        if spec is not None and spec.needs_start and self._hub.stage.session.mdp() is not None:
            opts["start"] = int(self._hub.stage.session.start_state())  # (RTDP's trajectories start there)
        if uses_tolerance(p.method):
            opts["epsilon" if opts.get("sequence") == "aima" else "tol"] = p.tol
        return opts

    def reset_solver(self) -> None:
        """Load a fresh solver for the current model, method and options (Reset)."""
        mdp = self._hub.stage.session.mdp()
        self.view_index = None
        self.scale = self._hub.stage.game.fixed_scale  # a game without solves may fix its own scale
        self._hub.color_bar.show_scale(self.scale)
        self.solve_owner = self._hub.stage.game.key
        self._hub.controller.reset(mdp, self._hub.solver_panel.method, **self.solver_options())
        if mdp is not None and self._hub.stage.session.game.solve_after_reset() and not learns(self._hub.solver_panel.method):
            self._hub.controller.run(math.inf)  # the game's Step already decided: show that solve (anti-tic-tac-toe)
        self._dirty = True

    # A game whose Step is its own (anti-tic-tac-toe's best-response rounds) has a driver that says so
    # (GameSession.drives_steps); the window's one Step, Run, Pause and Reset then drive it.
    def _drives(self) -> bool:
        return self._hub.stage.session.game.drives_steps and not learns(self._hub.solver_panel.method)  # (a learner: the window's Step)

    def reset_action(self) -> None:
        """The Reset button: the game's own reset (rounds back to 0) or a fresh solver."""
        if self._drives():
            self._hub.stage.session.driver.reset()
        self.reset_solver()

    def pause_solver(self) -> None:
        """The Pause button."""
        if self._drives():
            self._hub.stage.session.driver.pause()
        self._hub.controller.pause()

    def _queue(self, what: str) -> bool:
        """Step or Run (``what``) pressed while the shown game's model is being built: done once it is built
        (True); False when the model is there (or will not come)."""
        if not self._hub.stage.session.building:  # (an edit built before it is taken: the old model is loaded)
            return False
        self._queued = (self._hub.stage.game.key, what)
        self._hub.status.showMessage(f"{self._hub.stage.game.title}: {'Run' if what == 'run' else 'Step'} starts "
                                     f"when the model is compiled.", 8000)
        self.update_buttons()
        return True

    def step(self) -> None:
        """Step: one sweep, or one full round (evaluate + improve) of policy iteration."""
        if self._drives():
            self._hub.stage.session.driver.step()
            return
        if self._queue("step"):
            return
        if self._hub.learning.active and self._hub.solver_panel.learning.step_unit == "transition":
            self._hub.learning.step_transition()  # (window/learning.py)
        elif getattr(registry.find(self._hub.controller.method), "unit", None) == "round":  # (policy iteration)
            self._hub.controller.step_round()
        else:
            self._hub.controller.step()

    def run_solver(self) -> None:
        self.view_index = None
        if self._drives():
            self._hub.stage.session.driver.run()
            return
        if self._queue("run"):  # queued until the model is built
            return
        self._hub.controller.run(self._hub.solver_panel.rate)

    def toggle_run(self) -> None:
        if self._drives():
            self.pause_solver() if self._hub.stage.session.driver.running() else self.run_solver()
            return
        if self._hub.controller.state == "running":
            self._hub.controller.pause()
        else:
            self.run_solver()

    def stop(self) -> None:
        """Esc: pause the solver and the episode player (and stop writing an image sequence or a lesson page)."""
        self.pause_solver()
        self._hub.player.pause()
        self._hub.classroom.cancel_frames()
        self._hub.files.cancel_page()

    def _on_discount(self, gamma: float) -> None:
        try:
            self._hub.stage.session.set_discount(gamma)
        except ValueError as e:
            self._hub.status.showMessage(str(e), 8000)

    def _on_sweeps(self, sweeps: tuple[Sweep, ...]) -> None:
        if self._hub.learning.active:  # a learner's episodes: the learning curves take them
            self._hub.learning.take_steps(sweeps)
            self._dirty = True
            return
        self._hub.convergence.extend(sweeps)
        self._dirty = True

    def _on_history_reset(self) -> None:
        m = self._hub.controller.method
        tol = self._hub.controller.options.get("tol") if registry.get(m).value_iteration else None
        x_label = ("step (evaluate / improve)" if registry.get(m).unit == "round" else
                   "trajectory (RTDP: one from the start each)" if registry.get(m).unit == "trajectory" else
                   "step (one state each)" if registry.get(m).steps_states else "sweep")
        self._hub.convergence.reset(tol=tol, x_label=x_label)
        self._hub.convergence.set_reference(None, gamma=None, method=m)  # (the new solve's V* follows with its range)
        self._dirty = True

    def set_theory_shown(self, on: bool) -> None:
        """The View menu's toggle: the true error and the bounds on the convergence plot."""
        if self.act_bounds.isChecked() != bool(on):
            self.act_bounds.setChecked(bool(on))
        self._hub.convergence.set_theory_shown(bool(on))
        self._dirty = True

    def _on_range(self, rng: ValueRange) -> None:
        """The solve's value range (the optimal values, or the values seen so far): the colour scale
        spans it, fixed for the solve (a board game's board narrows it to the shown position). With the
        optimal values (a small model's reference solve) the convergence plot can draw the true error."""
        if rng.source == "reference" and rng.values is not None and self._hub.controller.mdp is not None:
            self._hub.convergence.set_reference(rng.values, gamma=float(self._hub.controller.mdp.discount),
                                           method=bounded_method(self._hub.controller.method, self._hub.controller.options))
        self.scale = range_scale(rng.lo, rng.hi, label=self._hub.stage.session.game.value_label,
                                 kind=self._hub.stage.session.game.color_kind)
        if not self._hub.classroom.delta_view:
            self._hub.color_bar.show_scale(self.scale)
        self._dirty = True

    def on_board_scale(self, key: str, scale: ColorScale | None) -> None:
        if key != self._hub.stage.game.key:
            return
        self._hub.color_bar.setVisible(not self._hub.stage.board.has_color_bar)  # (a board may change it: a tab)
        if scale is not None and not self._hub.classroom.delta_view:
            self._hub.color_bar.show_scale(scale)

    def _on_state(self, state: str) -> None:
        self._dirty = True
        self.update_buttons()

    def _on_finished(self, sol: Solution) -> None:
        if isinstance(sol, LearningStep):
            self._hub.status.showMessage(f"{registry.title(sol.method)}: {sol.episode:,} episodes learned, RMS error "
                                         f"{sol.rms_error:.3g}", 8000)
        elif not isinstance(sol, Solution):  # a learner with function approximation's (or policy gradient's) last snapshot
            last = f"\u221aVE {sol.rms_ve:.3g}" if hasattr(sol, "rms_ve") else f"J {sol.J:.5g} (best {sol.J_best:.5g})"
            self._hub.status.showMessage(f"{registry.title(sol.method)}: {sol.episode:,} episodes learned, {last}", 8000)
        else:
            what = "converged" if sol.converged else "stopped (sweep limit)"
            self._hub.status.showMessage(f"{registry.title(sol.method)} {what} after {sol.sweeps} "
                                         f"{registry.get(sol.method).count_word}", 8000)
        self._dirty = True
        self.solve_finished.emit(sol)

    def _on_failed(self, msg: str) -> None:
        self._hub.status.showMessage(f"Solver failed: {msg}", 15000)
        self._hub.solver_panel.show_status(f"Failed: {msg}")
        self._dirty = True

    def update_buttons(self) -> None:
        c = self._hub.controller
        has = c.mdp is not None
        self._hub.solver_panel.show_state(c.state, method=c.method, next_phase=c.next_phase, has_model=has)
        can = has and c.state in ("ready", "paused", "stepping")
        self.act_step.setEnabled(can)
        self.act_eval.setEnabled(can and c.next_phase == "evaluate")  # (next_phase: "" unless a round method)
        self.act_improve.setEnabled(can and c.next_phase == "improve")
        self.act_run.setEnabled(can or c.state == "running")
        self.act_pause.setEnabled(c.state == "running")
        self.act_reset.setEnabled(has)
        if not has and self._hub.stage.session.building and not self._drives():  # Step or Run now: queued
            queued = self._queued is not None and self._queued[0] == self._hub.stage.game.key
            for b in (self.act_step, self._hub.solver_panel.step, self.act_run, self._hub.solver_panel.run):
                b.setEnabled(not queued)
        if self._drives():  # the game's own Step (best-response rounds): its buttons follow the game
            d = self._hub.stage.session.driver
            step, running = self._hub.stage.session.mdp() is not None and d.can_step(), d.running()
            for b, on in ((self.act_step, step), (self._hub.solver_panel.step, step), (self.act_run, step or running),
                          (self._hub.solver_panel.run, step or running), (self.act_pause, running),
                          (self._hub.solver_panel.pause, running)):
                b.setEnabled(on)

    def _on_history_moved(self, index: int) -> None:
        n = len(self._hub.controller.history)
        self.view_index = None if index >= n - 1 else int(index)
        self._dirty = True

    def follow_newest(self) -> None:
        """Show the newest snapshot from now on (as the history slider at its end does)."""
        self.view_index = None
        self._dirty = True

    def shown_index(self) -> int:
        """Index of the sweep on display (-1 before the first sweep)."""
        n = len(self._hub.controller.history)
        if self.view_index is None or self.view_index >= n:
            return n - 1
        return self.view_index

    def shown_sweep(self) -> Sweep | None:
        i = self.shown_index()
        return self._hub.controller.history[i] if i >= 0 else None

    # ------------------------------------------------------------------ drawing (at screen rate)
    def redraw(self) -> None:
        """Redraw board, plot, inspector and status from the recorded history, if anything changed."""
        if not self._dirty:
            return
        gate = self._hub.controller.frame_gate
        if gate is not None:
            gate.begin()  # the workers wait until this frame is painted (see FrameGate)
        try:
            self._draw_frame()
        finally:
            if gate is not None:
                gate.end()

    def _draw_frame(self) -> None:
        self._dirty = False
        c = self._hub.controller
        if self._hub.learning.active:  # a learner from experience (window/learning.py) draws its own frame
            self._hub.learning.draw_frame()
            return
        now = time.perf_counter()
        if c.state == "running" and self._hub.convergence.stale and now - self._plot_time >= PLOT_MIN_INTERVAL:
            # During a Run the plot and the board take turns, a frame each: the two together made
            # the longest frames (the event loop's largest gaps, measured with `mdpviz bench gui`).
            self._plot_time = now
            self._hub.convergence.refresh()
            self._dirty = True  # the board at the next frame
            return
        g, session = self._hub.stage.game, self._hub.stage.session
        mdp = c.mdp if c.mdp is not None else None
        hist = c.history
        i = self.shown_index()
        sw = hist[i] if i >= 0 else None
        self._hub.classroom.predict_follow(sw)
        # every game's board derives what it shows from the sweep itself
        cap = "" if sw is None else sweep_caption_of(hist, i)
        if mdp is not None and sw is None:
            cap = "Not solved yet: press Step or Run"
        if mdp is not None:
            cap = g.board_caption(cap, sw)
        if mdp is not None and sw is not None and getattr(sw, "visited", None) is not None:
            cap += self._trajectory_caption(sw, mdp)
        cap = self._hub.live.live_caption(cap, sw)  # the last edit's diff (window/live.py)
        board = self._hub.stage.board
        board.set_value_range(c.value_range if sw is not None else None)
        board.show_history(hist, i)
        board.show_sweep(sw, None if sw is None else (self.scale or scale_for(0.0, 1.0, label=session.game.value_label)),
                         caption=cap if mdp is not None else (session.mdp_error() or g.building_text() or g.empty_text()),
                         previous=hist[i - 1] if i > 0 else None,
                         delta=self._hub.classroom.delta_scale() if sw is not None and self._hub.classroom.delta_view else None)
        self._hub.live.draw_live(board, sw, cap)
        self._show_trajectory(sw, mdp)
        shown = board.shown_scale  # the shown position's scale (its moves' values), the delta view's
        if shown is not None:
            self._hub.color_bar.show_scale(shown)
        elif sw is None and board.own_scale is not None:  # values without a sweep (exact 4x4)
            self._hub.color_bar.show_scale(board.own_scale)
        if c.state != "running":
            self._plot_time = now
            self._hub.convergence.refresh()
        elif self._hub.convergence.stale:
            self._dirty = True  # the plot is behind: drawn in a frame of its own when due
        self._hub.convergence.set_cursor(None if self.view_index is None else i)
        self._hub.solver_panel.show_history(len(hist), i)
        self.update_buttons()
        self.update_status(sw)
        if self.selected is not None:
            self.update_inspection()

    def _show_trajectory(self, sw: Sweep | None, mdp) -> None:
        """A real-time DP snapshot (it has ``visited``): the states never backed up drawn as unvisited (hatched),
        its trajectory outlined in order, 1, 2, 3, ... (while no state is inspected: the inspector's chain of
        backups takes the outlines then). Another snapshot after one: the outlines cleared."""
        board = self._hub.stage.board
        visited = getattr(sw, "visited", None)
        if visited is None or mdp is None:
            if self._trajectory_shown and self.selected is None:
                board.show_chain(())
            self._trajectory_shown = False
            return
        never = ~np.asarray(visited) & ~np.asarray(mdp.terminal)
        board.show_unvisited(never if never.any() else None)
        if self.selected is None:
            board.show_chain(tuple(sw.trajectory))
            self._trajectory_shown = True

    def _trajectory_caption(self, sw: Sweep, mdp) -> str:
        """The caption's words on a real-time DP snapshot: the trajectory's length and how many states are backed up."""
        live = int(np.count_nonzero(~np.asarray(mdp.terminal)))
        return f", {len(sw.trajectory) - 1} steps, {int(np.asarray(sw.visited).sum())}/{live} backed up"

    def _trajectory_values(self, sw: Sweep) -> str:
        """The Solver panel's words on a real-time DP snapshot: the visited states' values against the exact
        ones (the solve's reference V*, when the controller has it; "" otherwise)."""
        visited = getattr(sw, "visited", None)
        rng = self._hub.controller.value_range
        if visited is None or rng is None or rng.source != "reference" or rng.values is None or not visited.any():
            return ""
        visited = np.asarray(visited)
        err = float(np.max(np.abs(np.asarray(sw.values)[visited] - rng.values[visited])))
        s0 = int(sw.trajectory[0])
        return (f" \u00b7 V(start) {sw.values[s0]:.4g} vs V* {rng.values[s0]:.4g} \u00b7 max |V - V*| on the "
                f"{int(visited.sum())} visited {err:.3g}")

    def update_status(self, sw: Sweep | None) -> None:
        if self._hub.learning.active:  # a learner's frame writes its own status
            self.mark_dirty()
            return
        c = self._hub.controller
        name = registry.title(c.method)
        if c.mdp is None:
            text = (self._hub.stage.session.mdp_error() or self._hub.stage.game.building_text()
                    or self._hub.stage.game.empty_text() or "No model")
        elif (sw is None and c.state in ("stepping", "running") and c.method in kernels.KERNEL_METHODS
              and not kernels.ready()):
            # the first start after installing: numba compiles the kernels before the first sweep
            text = (f"{name}: preparing the compiled solver (the first start after installing takes "
                    f"{kernels.FIRST_COMPILE_S})\u2026")
        elif sw is None:
            text = f"{name}: ready" if c.state != "failed" else f"{name}: failed: {c.error}"
        else:
            d = f"max |dV| {sw.delta:.3g}" if sw.phase != "improve" else f"residual {sw.delta:.3g}"
            n = len(c.history)
            text = (f"{n} snapshot{'s' if n != 1 else ''} \u00b7 {sw.phase} {sw.iteration} \u00b7 {d} \u00b7 "
                    f"{sw.policy_changes} policy change{'s' if sw.policy_changes != 1 else ''}")
            text += self._trajectory_values(sw)
            if c.state == "failed":
                text += f" \u00b7 failed: {c.error}"
            # discount 1: the states the drawn policy never ends from (one search per shown snapshot, kept;
            # none while a run draws a new snapshot every frame: said when it pauses or converges)
            seen = self._endless_seen
            if c.state == "running":
                seen = (None, None, "")
            elif seen[0] is not c.mdp or seen[1] is not sw:
                endless = endless_states(c.mdp, sw.policy) if backed_up(sw) else None
                seen = (c.mdp, sw, endless_text(endless, self._hub.stage.session.state_name))
                self._endless_seen = seen
            if seen[2]:
                text += f" \u00b7 {seen[2]}"
        self._hub.solver_panel.show_status(text)
        own = self._hub.stage.session.game.state_text()  # a game without a solver (the 3D game trains) says its own state
        self._hub.state_label.setText(f"{self._hub.stage.game.title} \u00b7 {own}" if own is not None
                                 else f"{self._hub.stage.game.title} \u00b7 {name} \u00b7 {c.state}")

    # ------------------------------------------------------------------ inspector
    def inspect(self, state: int | None) -> None:
        """Show the Bellman backup of ``state`` at the shown sweep (None: clear); a new chain of backups
        starts there."""
        mdp = self._hub.controller.mdp
        if mdp is None:  # (a model just built, heard by the board before the solver is loaded with it)
            mdp = self._hub.stage.session.game.mdp()
        if state is not None and (mdp is None or not 0 <= state < mdp.n_states):
            state = None
        self.selected = state
        self.chain = BackupChain.start(state)
        self.update_inspection()

    def follow_link(self, href: str) -> None:
        """An inspector link (:mod:`mdpviz.models.kit.pictures.chain`): a term's V(s') opens the backup of s' (the
        chain grows), a breadcrumb goes back to its page; anything else is ignored."""
        link = parse_href(href)
        mdp = self._hub.controller.mdp
        chain = self._synced_chain()
        if link is None or mdp is None or not chain.states:
            return
        kind, n = link
        if kind == "next" and 0 <= n < mdp.n_states:
            chain = chain.follow(n)
        elif kind == "back" and n < len(chain.states):
            chain = chain.back(n)
        else:
            return
        self.chain, self.selected = chain, chain.current
        self.update_inspection()

    def _synced_chain(self) -> BackupChain:
        """The chain, started anew at the inspected state when that was set some other way."""
        if self.chain.current != self.selected:
            self.chain = BackupChain.start(self.selected)
        return self.chain

    def chain_pages(self) -> tuple[tuple[int, int], ...]:
        """(state, history index) of each page of the chain: the clicked state at the shown sweep, each
        next page at the snapshot whose values its parent's term read (so its V is the term's number)."""
        mdp = self._hub.controller.mdp
        chain = self._synced_chain()
        if mdp is None or not chain.states:
            return ()
        hist, n, block = self._hub.controller.history, mdp.n_states, default_block_size(mdp.n_states)
        greedy = not self._hub.stage.board.draws_sweep_policy
        return chain.pages(self.shown_index(), lambda s, i: backup_sources(
            hist, i, s, n_states=n, gs_block=block, greedy_of_shown=greedy)[0])

    def inspection(self) -> Inspection | None:
        """The inspector's data for the shown page of the chain (the selected state; pure computation)."""
        mdp = self._hub.controller.mdp
        if mdp is None or self.selected is None:
            return None
        pages = self.chain_pages()
        names = tuple(self._crumb_name(s) for s, _ in pages)
        s, i = pages[-1]
        return self._inspection_at(s, i, chain=names)

    def _inspection_at(self, s: int, index: int, *, chain: tuple[str, ...] = ()) -> Inspection | None:
        """The backup of state ``s`` at history index ``index`` (-1: before the first sweep), its terms'
        V(s') linked to their own backups."""
        mdp = self._hub.controller.mdp
        g, session = self._hub.stage.game, self._hub.stage.session
        if session.mdp() is not mdp:  # the game changed and the solver has not been reset to its model yet
            return None
        hist = self._hub.controller.history
        sw = hist[index] if 0 <= index < len(hist) else None
        if sw is not None and not isinstance(sw, Sweep):  # a learner's snapshot (see learning_inspection_html)
            return None
        values = np.zeros(mdp.n_states) if sw is None else np.asarray(sw.values)
        # Q backs up from the values the board's action was chosen with (one rule for badge and inspector)
        sweep_policy = self._hub.stage.board.draws_sweep_policy
        src, source = backup_values(hist, index if sw is not None else -1, s, n_states=mdp.n_states,
                                    gs_block=default_block_size(mdp.n_states), greedy_of_shown=not sweep_policy)
        when = "before the first sweep (V = 0)" if sw is None else (
            f"after sweep {sw.iteration}" if sw.phase == "sweep" else
            ("(linear program)" if sw.phase == "lp" else f"after round {sw.iteration}, {sw.phase}"))
        title = f"{g.state_title(s)} {when}"  # board games: in words
        if mdp.terminal[s]:
            return Inspection(title, 0.0, (), mdp.objective, mdp.discount, terminal=True, unit=session.game.unit, chain=chain)
        acts = [int(a) for a in mdp.actions_of(s)]
        # each V(s') links to the backup of s' (before the first sweep every V is 0: no chain to follow)
        link = None if sw is None else (lambda t: follow_href(t.next_state) if 0 <= t.next_state < mdp.n_states
                                        else None)
        name = lambda t: self._short_name(t)  # noqa: E731
        rows = []
        qs = []
        for a in acts:
            terms = session.game.backup_terms(s, a, src)
            qs.append(backup_q(terms, mdp.discount))
            shown = terms if len(terms) <= 12 else merge_terms(terms)  # (a merged term still names one s')
            rows.append((a, tuple(shown), backup_text(shown, mdp.discount, state_name=name),
                         "" if link is None else backup_text(shown, mdp.discount, state_name=name, link=link)))
        objective = "min" if mdp.sense[s] < 0 else "max"
        chosen = greedy_action(acts, qs, objective)
        if sw is not None and sw.phase == "evaluate" and sweep_policy:
            chosen = int(sw.policy[s])  # an evaluation evaluates its policy (round 1: the starting one)
        actions = tuple(ActionBackup(a, session.action_name(a), q, text, a == chosen, html, shown)
                        for (a, shown, text, html), q in zip(rows, qs))
        return Inspection(title, float(values[s]), actions, objective, mdp.discount,
                          unit=session.game.unit if session.game.unit == "turns" else "", source=source, chain=chain)

    def _crumb_name(self, s: int) -> str:
        """A state's name in the chain's breadcrumb: as the backups name it (:meth:`_short_name`), or its
        title where that says nothing on its own (a board game's "next")."""
        short = self._short_name(s)
        return short if short != "next" else self._hub.stage.game.state_title(s)

    def _short_name(self, s: int) -> str:
        """A successor's name inside a backup's V(...): the model's label (a tic-tac-toe board "O.X...X.",
        a grid cell "(2,1)"), else on a board game its position in marks or its outcome, never the bare
        state number of a compiled game ("V(121000000)", "V(72)" told a class nothing). A course file's
        states are numbers: they stay numbers."""
        mdp = self._hub.controller.mdp
        lab = mdp.state_labels[s] if mdp is not None and mdp.state_labels else ""
        model = self._hub.stage.board.model
        if model is None or (lab and not lab.isdigit()):
            return lab or str(s)
        try:
            pos = model.position_of(int(s))
        except (ValueError, IndexError):
            return lab or str(s)
        if pos.outcome:
            return pos.outcome
        cells = np.asarray(pos.cells)
        if cells.size and 0 <= int(cells.min()) and int(cells.max()) <= 2:
            return "".join(".XO"[int(c)] for c in cells)  # as tic-tac-toe's labels write a board
        return "next"  # the reply in brackets after it names the position ("[White b4-c3]")

    def update_inspection(self) -> None:
        page = self._hub.learning.learning_inspection_html()
        if page is not None:  # a learner: its last update, the clicked state's learned and exact Q
            self._hub.inspector.inspection = None
            self._hub.inspector.text.setHtml(page)
            self._hub.stage.board.show_selection(self.selected)
            self._hub.stage.board.show_chain(())
            return
        insp = self._hub.live.shown_inspection(self.inspection(), self.selected)  # (the solve the board shows)
        self._hub.inspector.show_inspection(insp)
        mdp = self._hub.controller.mdp
        board = self._hub.stage.board
        if insp is None or mdp is None or self.selected is None:
            board.show_selection(None)
            board.show_chain(())
            return
        s, i = self.chain_pages()[-1]
        hist = self._hub.controller.history
        sw = hist[i] if 0 <= i < len(hist) else None
        succ: dict[int, float] = {}
        if not mdp.terminal[s]:
            acts = [int(sw.policy[s])] if sw is not None and sw.policy[s] >= 0 else [int(a) for a in mdp.actions_of(s)]
            for a in acts:
                for d, p, _ in mdp.outcomes(s, a):
                    succ[d] = succ.get(d, 0.0) + p / len(acts)
        board.show_selection(s, succ)
        board.show_chain(self.chain.states)
