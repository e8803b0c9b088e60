"""The classroom tools of the main window: lesson, method comparison, lesson exports and view modes.

Predict-then-reveal, the change (delta) view, high contrast and the Q view.

:class:`ClassroomPart` is one part of :class:`mdpviz.app.MainWindow`, handed the window's
:class:`~mdpviz.window.hub.Hub` (the controller, the lesson panel and dock, the Solver panel, the status
line, the window's palette for high contrast; the boards through the stage part). It owns the lesson
exports of File > Export figure, Solve > Compare methods, View's board modes, the view modes, the lesson's staleness and the
running image export; it hears ``model_changed`` (the lesson and comparison are stale),
``presenter_changed`` (lines and text) and ``shutting_down`` (an image export stops).
"""
from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import numpy as np
from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QPalette
from PySide6.QtWidgets import QMenu

from mdpviz.solvers import Sweep, registry
from mdpviz.widgets.game_board import GameBoard
from mdpviz.models.kit.teaching.algorithms import algorithm_blocks
from mdpviz.models.kit.pictures.colors import ColorScale, scale_for
from mdpviz.core.jobs import Job
from mdpviz import export as lesson_export
from mdpviz.widgets.delta import delta_scale
from mdpviz.window.hub import Hub


class ClassroomPart(QObject):
    """The classroom tools (part of :class:`~mdpviz.app.MainWindow`)."""

    def __init__(self, hub: Hub) -> None:
        """Declare the classroom part's state, build its actions and connect it to the lesson dock and the
        hub's signals."""
        super().__init__(hub)
        self._hub = hub
        self.predict_mode = False
        """Predict-then-reveal: the board hides values and actions until a square is clicked."""
        self.delta_view = False
        """The board is coloured by how much each square changed in the shown sweep."""
        self.high_contrast = False
        """High-contrast theme (black on white, thicker lines)."""
        self.q_view = False
        """Every action's Q-value is drawn on the boards (the View menu's toggle)."""
        self._predict_key: int | None = None
        """The sweep (its ``id``) predict mode last hid the boards for."""
        self._frame_writer: lesson_export.FrameWriter | None = None
        """The image sequence or GIF being written (or the last one)."""
        self._base_palette: QPalette | None = None
        """The window's palette before high contrast was first switched on."""
        self._lesson_stale = True
        """The lesson panel shows an older model's lesson (written again when shown or asked for)."""
        self._hub.lesson_panel.copied.connect(lambda text: self._hub.status.showMessage(text, 4000))
        self._hub.docks["lesson"].visibilityChanged.connect(self._on_lesson_dock_shown)
        self._hub.model_changed.connect(self._classroom_model_changed)
        # the lesson names the algorithm and the convention in force: a new choice writes it again
        self._hub.solver_panel.method_changed.connect(lambda _m: self._lesson_solver_changed())
        self._hub.solver_panel.options_changed.connect(self._lesson_solver_changed)
        self._hub.solver_panel.tolerance_changed.connect(lambda _t: self._lesson_solver_changed())
        self._hub.presenter_changed.connect(lambda _on: self._apply_lines())
        self._hub.shutting_down.connect(self.cancel_frames)
        self._build_classroom_actions(hub.menus.export)
        hub.menus.solve.addAction(self.act_compare)
        hub.menus.view.addActions([self.act_predict, self.act_delta, self.act_contrast, self.act_q])

    def cancel_frames(self) -> None:
        """Stop writing an image sequence or GIF, if one is being written."""
        if self._frame_writer is not None:
            self._frame_writer.cancel()

    # ------------------------------------------------------------------ classroom: lesson, compare, export, view

    def _build_classroom_actions(self, export_menu: QMenu) -> None:
        export_menu.addSeparator()
        self.act_export_lesson = self._hub.action("&Lesson snapshot (board + plot + parameters)\u2026", "exportLessonAction",
                                              self.export_lesson_dialog, "Ctrl+Shift+E",
                                              tip="The board, the convergence plot and the parameters in one picture")
        self.act_export_frames = self._hub.action("Sweeps as a PNG &sequence\u2026", "exportFramesAction",
                                              self.export_frames_dialog, tip="The board after every sweep, numbered")
        self.act_export_gif = self._hub.action("Sweeps as an animated &GIF\u2026", "exportGifAction", self.export_gif_dialog,
                                           tip="The board after every sweep as one looping GIF, for slides")
        self.act_export_results = self._hub.action("&Values and policy (CSV)\u2026", "exportResultsAction",
                                               self.export_results_dialog)
        self.act_export_compare = self._hub.action("&Comparison table (CSV)\u2026", "exportCompareAction",
                                               self.export_comparison_dialog)
        self.act_export_history = self._hub.action("Convergence &history (CSV)\u2026", "exportHistoryAction",
                                               self.export_history_dialog, tip="Every recorded sweep: delta, "
                                               "policy changes, time")
        self.act_export_board_sized = self._hub.action("Board at export si&ze\u2026", "exportBoardSizedAction",
                                                   lambda: self.export_sized_dialog("board"))
        self.act_export_conv_sized = self._hub.action("Convergence plot at export size\u2026", "exportConvSizedAction",
                                                  lambda: self.export_sized_dialog("convergence"))
        export_menu.addActions([self.act_export_lesson, self.act_export_board_sized, self.act_export_conv_sized,
                                self.act_export_frames, self.act_export_gif, self.act_export_results,
                                self.act_export_compare,
                                self.act_export_history])
        sizes = export_menu.addMenu("Export si&ze")
        sizes.setObjectName("exportSizeMenu")
        self.export_size_actions: dict[tuple[int, int], QAction] = {}
        saved = str(self._hub.settings.value("export/size", "1600x900"))
        for w, h in ((1280, 720), (1600, 900), (1920, 1080), (3840, 2160)):
            a = QAction(f"{w} \u00d7 {h}", self)
            a.setObjectName(f"exportSize{w}x{h}")
            a.setCheckable(True)
            a.setChecked(saved == f"{w}x{h}")
            a.triggered.connect(lambda _c=False, w=w, h=h: self.set_export_size(w, h))
            sizes.addAction(a)
            self.export_size_actions[(w, h)] = a
        if not any(a.isChecked() for a in self.export_size_actions.values()):
            self.export_size_actions[(1600, 900)].setChecked(True)
        self.act_compare = self._hub.action("&Compare methods", "compareAction", self.compare_methods, "Ctrl+Shift+C",
                                        tip="Run every solver on this model and overlay their convergence")
        self.act_predict = self._hub.action("&Predict, then reveal", "predictAction", self.set_predict_mode,
                                        "Ctrl+Shift+P", checkable=True,
                                        tip="Hide values and actions on the board until a square is clicked")
        self.act_delta = self._hub.action("Colour by &change (\u0394V)", "deltaAction", self.set_delta_view,
                                      "Ctrl+Shift+D", checkable=True,
                                      tip="Colour each square by how much its value changed in the shown sweep")
        self.act_contrast = self._hub.action("&High contrast", "highContrastAction", self.set_high_contrast,
                                         checkable=True, tip="Black on white with thicker lines, for projectors")
        self.act_q = self._hub.action("Every action's &Q on the board", "qValuesAction", self.set_q_view,
                                  "Ctrl+Shift+Q", checkable=True,
                                  tip="Show every action's Q-value on the board at once: a bar per action, "
                                      "coloured on the board's scale (hover a square for the numbers)")

    def set_q_view(self, on: bool) -> None:
        """Show (or hide) every action's Q on the boards (the cell boards: bars coloured on the board's scale)."""
        self.q_view = bool(on)
        if self.act_q.isChecked() != self.q_view:
            self.act_q.setChecked(self.q_view)
        for b in self._game_boards():
            b.set_q_view(self.q_view)
        self._hub.solving.mark_dirty()
        self._hub.solving.redraw()

    def _game_boards(self) -> list[GameBoard]:
        """Every game's board built so far."""
        return self._hub.stage.built_boards()

    def _lesson_solver_changed(self) -> None:
        self._lesson_stale = True
        if self._hub.docks["lesson"].isVisible():
            self.update_lesson()

    def _classroom_model_changed(self) -> None:
        """The model changed (the hub's ``model_changed``): new lesson text, and a comparison of the
        old model is stale."""
        self._lesson_stale = True
        dock = self._hub.docks["lesson"]  # (a tab behind the inspector is "visible" with nothing on screen: a
        if dock.isVisible() and not dock.visibleRegion().isEmpty():  # model built just after the first paint)
            self.update_lesson()
        if self._hub.stage.built_compare_panel is not None:
            self._hub.stage.built_compare_panel.clear()
        self._predict_key = None
        for b in self._game_boards():
            b.hide_all()

    @property
    def lesson_panel(self):
        """The Lesson dock's panel, showing the current game's lesson. A lesson is written (~0.1 s) only
        when the dock is shown or the panel asked for: at start the dock is a tab behind the inspector."""
        if self._lesson_stale:
            self.update_lesson()
        return self._hub.lesson_panel

    def _on_lesson_dock_shown(self, shown: bool) -> None:
        if shown and self._lesson_stale:
            self.update_lesson()

    def lesson_changed(self) -> None:
        """What the lesson shows changed (a learner chosen in the Solver panel): written again now if it is
        on screen, else when shown."""
        self._lesson_stale = True
        if self._hub.docks["lesson"].isVisible():
            self.update_lesson()

    def update_lesson(self) -> None:
        """Show the lesson of the current game with its current parameters."""
        g = self._hub.stage.game
        self._lesson_stale = False
        try:
            lesson = self._hub.learning.learning_lesson() if self._hub.learning.active else lesson_export.game_lesson(g)
        except (ValueError, TypeError, AttributeError, KeyError) as e:
            self._hub.lesson_panel.show_lesson(None, message=f"No lesson for {g.title}: {e}")
            return
        if not self._hub.stage.session.game.drives_steps:  # the Solver panel's algorithm and the convention in force
            lesson = dataclasses.replace(lesson, algorithm=algorithm_blocks(self._hub.solver_panel.method,
                                                                            self._hub.solving.solver_options()))
        self._hub.lesson_panel.show_lesson(lesson)

    def compare_methods(self) -> bool:
        """Run every method on the current model on the job thread; the compare panel shows the result."""
        from mdpviz.solvers.compare import COMPARE_METHODS, compare_job

        g = self._hub.stage.session
        mdp = g.mdp()
        if mdp is None:
            self._hub.status.showMessage("Nothing to compare: no model.", 6000)
            return False
        token = self._hub.playing.sim_token
        start = int(g.start_state()) if 0 <= int(g.start_state()) < mdp.n_states else 0

        def done(result) -> None:
            if result is None:
                self._hub.stage.compare_panel.clear("Comparison cancelled.")
            elif token != self._hub.playing.sim_token:
                self._hub.stage.compare_panel.clear("The model changed during the comparison: results discarded.")
            else:
                self._hub.stage.compare_panel.show_comparison(result, start_name=g.state_name(result.start))
                self._hub.status.showMessage(result.summary, 10000)

        tol = self._hub.solver_panel.tol
        job = Job(
            lambda: compare_job(mdp, methods=COMPARE_METHODS, tol=tol, start=start, state_name=g.state_name),
            label="Comparing the solvers on this model\u2026", on_done=done,
            on_progress=self._hub.stage.compare_panel.show_progress,
            on_failed=lambda msg: self._hub.stage.compare_panel.show_running(False, f"Comparison failed: {msg}"),
            on_cancelled=lambda: self._hub.stage.compare_panel.clear("Comparison cancelled."),
        )
        if not self._hub.playing.start_game_job(job):
            return False
        self._hub.stage.compare_panel.show_running(True, "Running every method on this model\u2026")
        self._hub.stage.show_page("compare")
        return True

    # export
    def export_size(self) -> tuple[int, int]:
        """The size chosen in File > Export figure > Export size (pixels)."""
        for size, a in self.export_size_actions.items():
            if a.isChecked():
                return size
        return lesson_export.DEFAULT_SIZE

    def set_export_size(self, width: int, height: int) -> None:
        for size, a in self.export_size_actions.items():
            a.setChecked(size == (width, height))
        self._hub.settings.setValue("export/size", f"{width}x{height}")

    def solved_view(self) -> "lesson_export.SolvedGame":
        """The current solve as the exporter sees it: model, recorded sweeps and the board's colour scale."""
        c = self._hub.controller
        if c.mdp is None:
            raise ValueError(f"nothing to export: {self._hub.stage.session.mdp_error() or 'no model'}")
        scale = self._hub.solving.scale or scale_for(0.0, 1.0, label=self._hub.stage.session.game.value_label)
        rng = c.value_range  # the range the scale was fitted to (the exporter fits it the same way)
        lo, hi = (rng.lo, rng.hi) if rng is not None else (scale.lo, scale.hi)
        return lesson_export.SolvedGame(mdp=c.mdp, method=c.method, options=dict(c.options),
                                        history=tuple(c.history), solution=c.solution, lo=lo, hi=hi,
                                        value_range=rng)

    def export_lesson(self, path: str | Path, *, width: int | None = None, height: int | None = None) -> Path:
        """Write the lesson snapshot of the shown sweep as PNG or SVG (size: the Export size setting)."""
        w, h = self.export_size() if width is None or height is None else (width, height)
        return lesson_export.export_lesson_snapshot(self._hub.stage.game, self.solved_view(), path, width=w, height=h,
                                                    index=self._hub.solving.shown_index())

    def _export_to(self, title: str, name: str, filters: str, fn) -> None:
        path = self._hub.dialogs.save_file(title, os.path.join(self._hub.view.last_dir("export"), name), filters)
        if not path:
            return
        self._hub.view.remember_dir("export", path)
        try:
            p = fn(path)
        except (ValueError, OSError) as e:
            self._hub.dialogs.error("Cannot export", str(e))
            return
        if p is not None:
            self._hub.status.showMessage(f"Saved {p}", 5000)

    def export_lesson_dialog(self) -> None:
        self._export_to("Export lesson snapshot", "lesson.png", "PNG image (*.png);;SVG image (*.svg)",
                        self.export_lesson)

    def export_frames(self, out: str | Path, *, width: int | None = None, height: int | None = None):
        """Start writing the board after every recorded sweep as numbered PNG files (one per event-loop
        turn, so the window stays responsive); returns the running FrameWriter."""
        if self._frame_writer is not None and self._frame_writer.running:
            raise ValueError("an image sequence is already being written")
        w, h = (width, height) if width is not None and height is not None else lesson_export.FRAME_SIZE
        view = self._drawing_view()
        fw = lesson_export.FrameWriter(view, self.solved_view(), out, width=w, height=h, parent=self)
        self._dispose_after(fw, view)
        fw.progress.connect(lambda k, n, text: self._hub.status.showMessage(f"Writing {text}\u2026 (Esc cancels)"))
        fw.finished.connect(lambda paths: self._hub.status.showMessage(
            f"Wrote {len(paths)} image{'s' if len(paths) != 1 else ''}"
            + (f": {paths[0].name} .. {paths[-1].name}" if paths else ""), 8000))
        fw.failed.connect(lambda msg: self._hub.dialogs.error("Cannot export", msg))
        self._frame_writer = fw
        fw.start()
        return fw

    def _drawing_view(self):
        """The view the frames are drawn with: a board on screen shows one sweep, so each frame is drawn on a
        twin of the game (the page export's :func:`~mdpviz.lesson_page.drawing_view`; a grid world's frames
        were all the window's current board). ValueError for a game whose model follows the window's rounds."""
        from mdpviz.lesson_page import drawing_view

        return drawing_view(self._hub.stage.game)

    def _dispose_after(self, fw, view) -> None:
        """The twin ``view`` is deleted once ``fw`` has written (or failed)."""
        if view is not self._hub.stage.game:
            fw.finished.connect(lambda _paths: view.deleteLater())
            fw.failed.connect(lambda _msg: view.deleteLater())

    def export_gif(self, path: str | Path, *, width: int | None = None, height: int | None = None):
        """Start writing the board after every recorded sweep (at most MAX_GIF_FRAMES, evenly sampled)
        as one animated GIF: the frames are drawn one per event-loop turn (the window stays responsive),
        then joined; returns the running FrameWriter (its ``gif`` signal-free result: the status bar)."""
        import tempfile

        path = lesson_export.gif_path(path)
        if self._frame_writer is not None and self._frame_writer.running:
            raise ValueError("an image sequence is already being written")
        w, h = (width, height) if width is not None and height is not None else lesson_export.FRAME_SIZE
        tmp = tempfile.TemporaryDirectory(prefix="mdpviz-gif-")
        view = self._drawing_view()
        fw = lesson_export.FrameWriter(view, self.solved_view(), tmp.name, width=w, height=h,
                                       max_frames=lesson_export.MAX_GIF_FRAMES, parent=self)
        self._dispose_after(fw, view)
        fw.progress.connect(lambda k, n, text: self._hub.status.showMessage(f"GIF: {text}\u2026 (Esc cancels)"))

        def done(paths) -> None:
            try:
                if len(paths) == len(fw.indices):
                    p = lesson_export.write_gif(paths, path)
                    self._hub.status.showMessage(f"Wrote {p.name}: {len(paths)} frames", 8000)
                else:
                    self._hub.status.showMessage("GIF cancelled", 5000)
            except (OSError, ValueError) as e:
                self._hub.dialogs.error("Cannot export", str(e))
            finally:
                tmp.cleanup()

        fw.finished.connect(done)
        fw.failed.connect(lambda msg: (tmp.cleanup(), self._hub.dialogs.error("Cannot export", msg)))
        self._frame_writer = fw
        fw.start()
        return fw

    def export_gif_dialog(self) -> None:
        self._export_to("Export the sweeps as an animated GIF", "sweeps.gif", "Animated GIF (*.gif)",
                        lambda p: (self.export_gif(p), None)[1])

    def export_frames_dialog(self) -> None:
        self._export_to("Export the sweeps as numbered PNG files", "sweep.png", "PNG images (*.png)",
                        lambda p: (self.export_frames(p), None)[1])

    def export_results_csv(self, path: str | Path) -> Path:
        """Write the shown sweep's value and greedy action per state as CSV."""
        sw = self._hub.solving.shown_sweep()
        mdp = self._hub.controller.mdp
        if sw is None or mdp is None:
            raise ValueError("no values to export: run the solver first")
        g = self._hub.stage.session
        return lesson_export.write_text(path, lesson_export.solution_csv(
            mdp, np.asarray(sw.values), np.asarray(sw.policy), state_name=g.state_name, action_name=g.action_name))

    def export_results_dialog(self) -> None:
        self._export_to("Export values and policy", "values.csv", "CSV (*.csv)", self.export_results_csv)

    def export_comparison_csv(self, path: str | Path) -> Path:
        from mdpviz.solvers.compare import comparison_csv

        comp = self._hub.stage.built_compare_panel.comparison if self._hub.stage.built_compare_panel is not None else None
        if comp is None:
            raise ValueError("no comparison to export: press Compare methods first")
        return lesson_export.write_text(path, comparison_csv(comp))

    def export_sized(self, which: str, path: str | Path, *, width: int | None = None,
                     height: int | None = None) -> Path:
        """The board ("board") or the convergence plot ("convergence") of the shown sweep as PNG or SVG at
        the Export size (or ``width`` x ``height``)."""
        w, h = self.export_size() if width is None or height is None else (width, height)
        solved = self.solved_view()
        if which == "board":
            return lesson_export.export_board(self._hub.stage.game, solved, path, width=w, height=h, index=self._hub.solving.shown_index())
        if which == "convergence":
            return lesson_export.export_convergence(solved, path, width=w, height=h)
        raise ValueError(f"unknown figure {which!r} (board or convergence)")

    def export_sized_dialog(self, which: str) -> None:
        self._export_to(f"Export {which}", f"{which}.png", "PNG image (*.png);;SVG image (*.svg)",
                        lambda p: self.export_sized(which, p))

    def export_history_csv(self, path: str | Path) -> Path:
        """Every recorded sweep of the current solve as CSV (:func:`mdpviz.export.convergence_csv`)."""
        if not self._hub.controller.history:
            raise ValueError("no sweeps to export: run the solver first")
        return lesson_export.write_text(path, lesson_export.convergence_csv(self._hub.controller.history))

    def export_history_dialog(self) -> None:
        self._export_to("Export the convergence history", "convergence.csv", "CSV (*.csv)", self.export_history_csv)

    def export_comparison_dialog(self) -> None:
        self._export_to("Export the comparison table", "comparison.csv", "CSV (*.csv)", self.export_comparison_csv)

    # view options
    def set_predict_mode(self, on: bool) -> None:
        """Predict, then reveal: hide values and actions on the board until a square is clicked; a new
        sweep hides everything again (and closes the inspector, which would give the answer away)."""
        on = bool(on)
        if self.act_predict.isChecked() != on:
            self.act_predict.setChecked(on)
        self.predict_mode = on
        self._predict_key = None
        for b in self._game_boards():
            b.set_predict_mode(on)
        if on:
            self._hub.solving.inspect(None)
        self._hub.solving.mark_dirty()

    def predict_follow(self, sw: Sweep | None) -> None:
        if not self.predict_mode:
            return
        key = None if sw is None else id(sw)
        if key != self._predict_key:
            self._predict_key = key
            for b in self._game_boards():
                b.hide_all()
            if self._hub.solving.selected is not None:
                self._hub.solving.inspect(None)

    def set_delta_view(self, on: bool) -> None:
        """Colour the board by |V_k - V_{k-1}| of the shown sweep (log scale fixed per solve)."""
        on = bool(on)
        if self.act_delta.isChecked() != on:
            self.act_delta.setChecked(on)
        self.delta_view = on
        if not on:
            self._hub.color_bar.show_scale(self._hub.solving.scale)
        self._hub.solving.mark_dirty()

    def delta_scale(self) -> ColorScale:
        """The delta view's log scale of |dV|, fixed for the solve: from its tolerance to its value span."""
        lo, hi = (self._hub.solving.scale.lo, self._hub.solving.scale.hi) if self._hub.solving.scale is not None else (0.0, 1.0)
        spec = registry.find(self._hub.controller.method)
        tol = self._hub.controller.options.get("tol") if spec is not None and spec.value_iteration else None
        return delta_scale(lo, hi, tol=tol)

    def set_high_contrast(self, on: bool) -> None:
        """High-contrast theme: pure black on white, black cell borders, thicker lines."""
        from PySide6.QtGui import QColor, QPalette

        on = bool(on)
        if self.act_contrast.isChecked() != on:
            self.act_contrast.setChecked(on)
        if on == self.high_contrast:
            return
        if self._base_palette is None:
            self._base_palette = QPalette(self._hub.main.palette())
        self.high_contrast = on
        if on:
            pal = QPalette(self._base_palette)
            R = QPalette.ColorRole
            for role, colour in ((R.Window, "#ffffff"), (R.WindowText, "#000000"), (R.Base, "#ffffff"),
                                 (R.AlternateBase, "#e8e8e8"), (R.Text, "#000000"), (R.Button, "#ffffff"),
                                 (R.ButtonText, "#000000"), (R.Highlight, "#00007f"), (R.HighlightedText, "#ffffff"),
                                 (R.ToolTipBase, "#ffffff"), (R.ToolTipText, "#000000"), (R.PlaceholderText, "#333333"),
                                 (R.Mid, "#000000"), (R.Dark, "#000000"), (R.Shadow, "#000000")):
                pal.setColor(role, QColor(colour))
            for role in (R.WindowText, R.Text, R.ButtonText):  # disabled controls must still look disabled
                pal.setColor(QPalette.ColorGroup.Disabled, role, QColor("#595959"))  # 7:1 on white
            self._hub.main.setPalette(pal)
        else:
            self._hub.main.setPalette(self._base_palette)
        self._apply_lines()
        self._hub.settings.setValue("view/contrast", on)
        self._hub.solving.mark_dirty()

    def line_factor(self) -> float:
        """Line widths' factor: thicker in presenter mode and in high contrast."""
        return (1.6 if self._hub.view.presenter else 1.0) * (1.4 if self.high_contrast else 1.0)

    def board_style(self) -> dict:
        """The boards' text and line factors and cell borders in the current presenter and contrast modes."""
        return {"text_scale": 1.3 if self._hub.view.presenter else 1.0, "line_scale": self.line_factor(),
                "outline": "#000000" if self.high_contrast else "#444444"}

    def _apply_lines(self) -> None:
        """Line widths (and text) of the boards and the plots: thicker in presenter mode and in high contrast."""
        f = self.line_factor()
        for b in self._game_boards():
            b.set_view_style(**self.board_style())
        self._hub.convergence.set_line_width(2.0 * f)
        if self._hub.stage.built_compare_panel is not None:  # else set when built
            self._hub.stage.built_compare_panel.chart.set_line_width(2.0 * f)
