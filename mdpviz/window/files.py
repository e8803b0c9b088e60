"""Scenario files, course MDP files and figure exports of the main window (File menu).

Dialogs go through the window's :class:`~mdpviz.window.parts.Dialogs`, so tests never block.

:class:`FilesPart` is one part of :class:`mdpviz.app.MainWindow`, handed the window's
:class:`~mdpviz.window.hub.Hub` (the dialogs, the Solver panel, the undo group, the status line, the
window's title; the games through the stage part). It owns the File menu's scenario, course-file and
figure-export actions, the scenario path, the saved solver settings, the
file-loading progress and the window title; it emits ``scenario_loaded`` and hears ``game_shown``
(the title) and ``shutting_down`` (the title stays).
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from PySide6.QtCore import QObject, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QProgressBar, QPushButton, QWidget

from mdpviz.models.kit.game.scenario import Scenario, ScenarioError, load_scenario, save_scenario
from mdpviz.widgets.convergence import render_svg
from mdpviz.core.jobs import Job, JobProgress, drive
from mdpviz.models.kit.game import registry as game_registry
from mdpviz.models.kit.game.game_model import read_game_dict
from mdpviz.widgets.learning import learns
from mdpviz.window.hub import Hub


def read_scenario_job(path: str | Path, keys, *, one_line: bool = False):
    """Read a scenario file and check every game's settings in it (any thread: no widget is touched; a game
    with a course file parses it to check it): a job generator returning ``(scenario, {key: (settings,
    data)})``. ScenarioError names the field; ``one_line``: any other failure (too big, too deep, unreadable)
    also as one line naming the file, as the job's failure message."""
    name = Path(path).name
    try:
        yield JobProgress(0, 0, f"Reading {name}\u2026")
        scn = load_scenario(path)
        states = {}
        for i, (key, data) in enumerate(scn.games.items()):
            if key not in keys:
                raise ScenarioError(path, f"games.{key}", "unknown game")
            yield JobProgress(i, len(scn.games), f"Checking {name}: {game_registry.title(key)}\u2026")
            try:
                states[key] = (read_game_dict(game_registry.get(key), data, str(path)), data)
            except ScenarioError:
                raise
            except (ValueError, MemoryError, RecursionError) as e:  # a game's own check: still one message
                raise ScenarioError(path, f"games.{key}", str(e) or type(e).__name__) from None
        if scn.game not in keys:
            raise ScenarioError(path, "game", f"unknown game {scn.game!r}")
        return scn, states
    except ScenarioError:
        raise
    except (ValueError, MemoryError, RecursionError, OSError) as e:
        if not one_line:
            raise
        raise ValueError(f"{path}: {e or type(e).__name__}") from None


class FilesPart(QObject):
    """Scenario files, course MDP files and figure exports (part of :class:`~mdpviz.app.MainWindow`)."""

    def __init__(self, hub: Hub) -> None:
        """Declare the files part's state, build the File menu's actions and connect the window title to
        what it shows."""
        super().__init__(hub)
        self._hub = hub
        self.scenario_path: Path | None = None
        """The scenario file last opened or saved (None: untitled)."""
        self._saved_solver = self._solver_settings()
        """The solver settings when last saved or opened; others are unsaved edits (see :attr:`dirty`)."""
        self._load_bar: QProgressBar | None = None
        self.opening_scenario = False
        """A scenario chosen in File > Open is being read and checked (on the job thread)."""
        """The status bar's progress of opening an MDP file (built the first time one is opened)."""
        self._load_cancel: QPushButton | None = None
        """The Cancel button beside :attr:`_load_bar`."""
        self._closed = False
        """The window shut down: its title is left as it is."""
        p = self._hub.solver_panel
        p.method_changed.connect(lambda _m: self._update_title())  # solver settings are saved edits too
        p.tolerance_changed.connect(lambda _t: self._update_title())
        p.options_changed.connect(self._update_title)
        p.learning.settings_changed.connect(self._update_title)
        self._hub.undo_group.cleanChanged.connect(lambda _c: self._update_title())
        self._hub.game_shown.connect(lambda _g: self._update_title())
        self._hub.shutting_down.connect(self._files_shutting_down)
        m, ex, act = hub.menus.file, hub.menus.export, hub.action
        self.act_open = act("&Open scenario\u2026", "openScenarioAction", self.open_scenario_dialog,
                            QKeySequence.StandardKey.Open)
        self.act_save = act("&Save scenario", "saveScenarioAction", self.save_scenario_dialog,
                            QKeySequence.StandardKey.Save)
        self.act_save_as = act("Save scenario &as\u2026", "saveScenarioAsAction",
                               lambda: self.save_scenario_dialog(ask=True), "Ctrl+Shift+S")
        self.act_open_mdp = act("Open course &MDP file\u2026", "openMdpAction", self.open_mdp_dialog, "Ctrl+M")
        m.addActions([self.act_open, self.act_save, self.act_save_as])
        m.addSeparator()
        m.addAction(self.act_open_mdp)
        self._build_example_menu(m)
        m.addSeparator()
        m.addMenu(ex)
        self.act_export_board = act("Board\u2026", "exportBoardAction", lambda: self.export_dialog("board"), "Ctrl+E")
        self.act_export_conv = act("Convergence plot\u2026", "exportConvergenceAction",
                                   lambda: self.export_dialog("convergence"))
        self.act_export_hist = act("Histogram\u2026", "exportHistogramAction", lambda: self.export_dialog("histogram"))
        self.act_export_csv = act("Simulation table (CSV)\u2026", "exportCsvAction", self.export_csv_dialog)
        ex.addActions([self.act_export_board, self.act_export_conv, self.act_export_hist, self.act_export_csv])
        self.act_export_model = act("Export &model (DRN/PRISM)\u2026", "exportModelAction", self.export_model_dialog,
                                    tip="Write the model as Storm DRN or PRISM explicit files, with the "
                                        "property that gives mdpviz's values")
        m.addAction(self.act_export_model)
        self.act_export_page = act("Export lesson as &web page\u2026", "exportWebPageAction", self.export_page_dialog,
                                   tip="The board at every sweep, the convergence plot, the inspector's backups and "
                                       "the lesson in one HTML file that opens in any browser, offline")
        m.addAction(self.act_export_page)
        self._page_writer = None
        """The lesson page being written (its frames drawn one per event-loop turn), or None."""
        m.addSeparator()

    def _files_shutting_down(self) -> None:
        self.cancel_page()
        self._closed = True

    # ------------------------------------------------------------------ scenarios
    def _solver_settings(self) -> tuple[str, float, str]:
        """The solver settings a scenario saves (method, tolerance, the rest as sorted JSON)."""
        d = self._solver_dict()
        rest = {k: v for k, v in d.items() if k not in ("method", "tol")}
        return (d["method"], float(d["tol"]), json.dumps(rest, sort_keys=True))

    def _solver_dict(self) -> dict:
        """The scenario's ``solver`` object: method and tolerance; ``options`` (the Solver panel's tie rule,
        Q convention, sequence, order, theta) where any is not at its default; ``learning`` (the learner's
        settings) when a learner is picked. A scenario of the previous version writes the same bytes."""
        p = self._hub.solver_panel
        out: dict = {"method": p.method, "tol": p.tol}
        opts = p.scenario_options()
        if opts:
            out["options"] = opts
        if learns(p.method):
            out["learning"] = p.learning.scenario_settings()
        return out

    def solver_set_by_game(self, change) -> None:
        """Run ``change``, which puts a game's own first algorithm in the Solver panel as the game is shown
        (Jack's car rental: policy iteration): not an edit, so solver settings saved before stay saved
        (issue 35 item 8: a fresh window's game switch marked the scenario unsaved)."""
        saved = self._solver_settings() == self._saved_solver
        change()
        if saved:
            self._saved_solver = self._solver_settings()
        self._update_title()

    @property
    def dirty(self) -> bool:
        """Unsaved edits in any game, or solver settings changed since the last save or open."""
        return (any(not g.session.undo_stack.isClean() for g in self._hub.stage.games.built())
                or self._solver_settings() != self._saved_solver)

    def _update_title(self) -> None:
        if self._closed:
            return
        name = self.scenario_path.name if self.scenario_path else "untitled"
        self._hub.main.setWindowTitle(f"mdpviz \u2014 {self._hub.stage.game.title} \u2014 {name}{' *' if self.dirty else ''}")

    def scenario(self) -> Scenario:
        """The current edits and solver settings as a scenario."""
        return Scenario(game=self._hub.stage.game.key, games={g.key: g.session.to_dict() for g in self._hub.stage.games},
                        solver=self._solver_dict())

    def save_scenario(self, path: str | Path) -> Path:
        """Save atomically to ``path``; the edits count as saved."""
        p = save_scenario(self.scenario(), path)
        self.scenario_path = Path(p)
        self._saved_solver = self._solver_settings()
        for g in self._hub.stage.games.built():  # a game not built yet has no edits
            g.session.undo_stack.setClean()
        self._update_title()
        self._hub.status.showMessage(f"Saved {p}", 5000)
        return p

    def load_scenario(self, path: str | Path) -> None:
        """Load a scenario now, the GUI thread waiting (scripts, tests); any error leaves every game as it was
        (ScenarioError). File > Open reads and checks it on the job thread (:meth:`open_scenario_in_background`)."""
        scn, states = drive(read_scenario_job(path, self._hub.stage.games.keys))
        self._apply_scenario(path, scn, states)

    def open_scenario_in_background(self, path: str | Path) -> None:
        """Read and check a scenario on the job thread (progress and Cancel in the status bar: a scenario
        embedding a 45 MB course file took seconds to check, the window frozen), then show it; a bad file is
        one message and nothing changes. Asked while another job runs (a game's compile), it starts when that
        job ends."""
        name = Path(path).name
        self.opening_scenario = True
        if self._hub.controller.job_busy:
            self._hub.status.showMessage(f"Opening {name} after the running job\u2026")
            QTimer.singleShot(50, self, lambda: self.open_scenario_in_background(path))
            return

        def done(result) -> None:
            self._hide_load_progress()
            if result is None:
                self.opening_scenario = False
                self._hub.status.showMessage(f"Opening {name} cancelled.", 5000)
                return
            try:
                self._apply_scenario(path, *result)
            except (ValueError, MemoryError, RecursionError, OSError) as e:
                failed(str(e) if isinstance(e, ScenarioError) else f"{path}: {e or type(e).__name__}")
            self.opening_scenario = False

        def failed(msg: str) -> None:
            self._hide_load_progress()
            self.opening_scenario = False
            self._hub.dialogs.error("Cannot open scenario", msg)

        job = Job(lambda: read_scenario_job(path, self._hub.stage.games.keys, one_line=True),
                  label=f"Opening {name}\u2026", on_done=done,
                  on_progress=lambda d, t, text: self._show_load_progress(d, t, text),
                  on_failed=failed, on_cancelled=lambda: done(None))
        if self._hub.playing.start_game_job(job):
            self._show_load_progress(0, 0, f"Opening {name}\u2026")

    def _apply_scenario(self, path: str | Path, scn: Scenario, states: dict) -> None:
        """Show a scenario read and checked by :func:`read_scenario_job` (the solver settings may still be
        refused, ScenarioError, before any game is changed)."""
        target = self._hub.stage.game_by_key(scn.game)
        self._open_solver_settings(scn.solver, path)  # (a bad field refused before any game is changed)
        for key, (settings, data) in states.items():
            g = self._hub.stage.game_by_key(key)
            g.session.open_state(settings, f"open {Path(path).name}")  # Undo goes back to what was shown
            g.session.load_display(data, str(path))
        self._saved_solver = self._solver_settings()
        self.scenario_path = Path(path)
        self._hub.scenario_loaded.emit(target)
        features = dict(scn.solver.get("learning", {})).get("features")
        if isinstance(features, str):  # (showing the game offered its own features first: the scenario's win)
            self._hub.solver_panel.learning.set_features(features)
            self._saved_solver = self._solver_settings()
        self._hub.status.showMessage(f"Opened {path}", 5000)

    def _open_solver_settings(self, solver: dict, path: str | Path) -> None:
        """Show a scenario's ``solver`` object in the Solver panel; ScenarioError naming the field (and the
        panel as it was) for a value the panel does not offer."""
        before = self._solver_dict()
        try:
            self._apply_solver_dict(solver, path)
        except ScenarioError:
            self._apply_solver_dict(before, path)
            raise

    def _apply_solver_dict(self, solver: dict, path: str | Path) -> None:
        p = self._hub.solver_panel
        method = solver.get("method", p.method)
        try:
            p.set_method(method)
        except ValueError:
            raise ScenarioError(path, "solver.method", f"{method!r} is not in this window's algorithm picker") from None
        for key, apply in (("options", p.set_scenario_options), ("learning", p.learning.set_scenario_settings)):
            try:
                apply(dict(solver.get(key, {})))
            except ValueError as e:
                field, _, why = str(e).partition(": ")
                raise ScenarioError(path, f"solver.{key}.{field}", why) from None
        if "tol" in solver:
            p.set_tolerance(float(solver["tol"]))

    def open_scenario_dialog(self) -> None:
        if self.dirty:  # as Quit does: the edits are not thrown away without asking
            ans = self._hub.dialogs.ask_unsaved()
            if ans == "cancel" or (ans == "save" and not self.save_scenario_dialog()):
                return
        path = self._hub.dialogs.open_file("Open scenario", self._hub.view.last_dir("scenario"), "mdpviz scenarios (*.json);;All files (*)")
        if not path:
            return
        self._hub.view.remember_dir("scenario", path)
        self.open_scenario_in_background(path)

    def save_scenario_dialog(self, ask: bool = False) -> bool:
        path = self.scenario_path
        if path is None or ask:
            name = self._hub.dialogs.save_file("Save scenario", self._hub.view.last_dir("scenario"), "mdpviz scenarios (*.json)")
            if not name:
                return False
            path = Path(name if name.lower().endswith(".json") else name + ".json")
            self._hub.view.remember_dir("scenario", str(path))
        try:
            self.save_scenario(path)
        except OSError as e:
            self._hub.dialogs.error("Cannot save scenario", f"{path}: {e.strerror or e}")
            return False
        return True

    def open_mdp_file(self, path: str | Path) -> None:
        """Open a course-format MDP file in the "MDP from file" game (MDPFileError: nothing changes)."""
        g = self._hub.stage.game_by_key("file")
        new = g.read_file(path)  # raises before anything changes
        self._show_opened_file(g, new)

    def _show_opened_file(self, g, state) -> None:
        """Show an opened course file in the "MDP from file" game ``g``: one undo step, and an unsaved
        edit only if the scenario file open names another file (an untitled window browses files)."""
        s = g.session
        old, was_saved = s.settings, s.undo_stack.isClean()
        self._hub.stage.switch_game(g.key)
        s.edit(state, f"opened {Path(state.path).name}")
        if was_saved and (self.scenario_path is None or (old.path, old.text) == (state.path, state.text)):
            s.undo_stack.setClean()

    def open_mdp_dialog(self) -> None:
        path = self._hub.dialogs.open_file("Open course MDP file", self._hub.view.last_dir("mdp"), "MDP files (*.txt *.drn);;All files (*)")
        if not path:
            return
        self._hub.view.remember_dir("mdp", path)
        self.open_mdp_file_in_background(path)

    # ------------------------------------------------------------------ MDP files: examples, loading off the GUI thread
    def _build_example_menu(self, file_menu) -> None:
        """File > Open example: the course MDP files shipped with the package (mdpviz examples)."""
        from mdpviz.core.examples import mdp_examples

        menu = file_menu.addMenu("Open e&xample")
        menu.setObjectName("exampleMenu")
        self.example_actions: dict[str, QAction] = {}
        for ex in mdp_examples():
            a = QAction(ex.name, self)
            a.setObjectName(f"example_{ex.name}")
            a.setToolTip(f"{ex.path}" + (f" (published solution: {ex.solution.name})" if ex.solution else ""))
            a.triggered.connect(lambda _c=False, p=str(ex.path): self.open_mdp_file_in_background(p))
            menu.addAction(a)
            self.example_actions[ex.name] = a
        menu.setEnabled(bool(self.example_actions))

    def open_mdp_file_in_background(self, path: str | Path) -> bool:
        """Read and check an MDP file on the job thread (progress and Cancel in the status bar), then
        open it; a bad file is one message and nothing changes. False if another job is running."""
        from mdpviz.models.file.spec import read_file_job  # the game's module, imported when first used
        from mdpviz.widgets.board_image import lattice_of
        from mdpviz.widgets.geometry import warm_grid_layout

        g = self._hub.stage.game_by_key("file")
        name = Path(path).name

        def done(result) -> None:
            self._hide_load_progress()
            if result is None:
                self._hub.status.showMessage(f"Opening {name} cancelled.", 5000)
                return
            state, mdp = result
            g.session.game.prime(state, mdp)  # the parse is not repeated on the GUI thread
            self._show_opened_file(g, state)

        def failed(msg: str) -> None:
            self._hide_load_progress()
            self._hub.dialogs.error("Cannot open MDP file", msg)

        def progress(done_: int, total: int, text: str) -> None:
            self._show_load_progress(done_, total, text)

        def read_and_lay_out():
            result = yield from read_file_job(path)
            if result is not None and result[1] is not None:  # the board's cells, here, not on the GUI thread
                lattice_of(warm_grid_layout(result[1].n_states))
            return result

        job = Job(read_and_lay_out, label=f"Opening {name}\u2026", on_done=done, on_progress=progress,
                  on_failed=failed, on_cancelled=lambda: done(None))
        if not self._hub.playing.start_game_job(job):
            return False
        self._show_load_progress(0, 0, f"Opening {name}\u2026")
        return True

    def _show_load_progress(self, done: int, total: int, text: str) -> None:
        if self._load_bar is None or self._load_cancel is None:
            self._load_bar = QProgressBar()
            self._load_bar.setObjectName("loadProgress")
            self._load_bar.setMaximumWidth(160)
            self._load_bar.setFormat("%p%")  # the details go to the status message beside it
            self._load_cancel = QPushButton("Cancel")
            self._load_cancel.setObjectName("loadCancel")
            self._load_cancel.setAccessibleName("Cancel opening the file")
            self._load_cancel.clicked.connect(self._hub.playing.cancel_game_job)
            self._hub.status.addPermanentWidget(self._load_bar)
            self._hub.status.addPermanentWidget(self._load_cancel)
        self._load_bar.setRange(0, max(total, 0))
        if total > 0:
            self._load_bar.setValue(done)
        self._load_bar.setTextVisible(total > 0)
        self._load_bar.show()
        self._load_cancel.show()
        self._hub.status.showMessage(text)

    def _hide_load_progress(self) -> None:
        if self._load_bar is not None and self._load_cancel is not None:
            self._load_bar.hide()
            self._load_cancel.hide()
            self._hub.status.clearMessage()

    # ------------------------------------------------------------------ export
    def export_figure(self, which: str, path: str | Path) -> Path:
        """Save the board, the convergence plot or the histogram as PNG or SVG (by extension)."""
        path = Path(path)
        ext = path.suffix.lower()
        if ext not in (".png", ".svg"):
            raise ValueError(f"{path}: export as .png or .svg, not '{ext or '(no extension)'}'")
        if which == "convergence":
            self._hub.conv_stack.currentWidget().export(path)  # the shown plot: the game's own (learning curve) or sweeps
        elif which == "histogram":
            self._hub.playing.sim_panel.export_plot_to(path)
        elif which == "board":
            self._export_widget(self._hub.stage.board_area, path)
        else:
            raise ValueError(f"unknown figure {which!r} (board, convergence or histogram)")
        return path

    @staticmethod
    def _export_widget(widget: QWidget, path: Path) -> None:
        if path.suffix.lower() == ".png":
            if not widget.grab().save(str(path), "PNG"):
                raise OSError(f"cannot write {path}")
            return
        render_svg(widget, path, title="mdpviz board")

    def export_dialog(self, which: str) -> None:
        if which == "histogram" and self._hub.playing.sim_result is None:
            self._hub.status.showMessage("Run a simulation first.", 5000)
            return
        name = self._hub.dialogs.save_file(f"Export {which}", os.path.join(self._hub.view.last_dir("export"), f"{which}.png"),
                                      "PNG image (*.png);;SVG image (*.svg)")
        if not name:
            return
        self._hub.view.remember_dir("export", name)
        try:
            p = self.export_figure(which, name)
        except (ValueError, OSError) as e:
            self._hub.dialogs.error("Cannot export", str(e))
            return
        self._hub.status.showMessage(f"Saved {p}", 5000)

    def export_model(self, path: str | Path) -> bool:
        """Write the shown game's model to ``path`` for a model checker (``.drn``: Storm's DRN; ``.tra``:
        PRISM's explicit files), with its properties file beside it, on the job thread; the outcome goes to
        the status bar (or one message). False when there is nothing to write or another job runs."""
        from mdpviz.core import modelcheck  # imported when first used

        g = self._hub.stage.game
        ctx = g.session.game.context()
        mdp = ctx.mdp
        problem = ""
        if mdp is None:
            problem = g.spec.no_table or g.session.mdp_error() or "the model is not compiled yet"
        elif mdp.is_two_player:
            problem = modelcheck.TWO_PLAYER
        try:
            fmt = modelcheck.format_of(path)
        except ValueError as e:
            problem = problem or str(e)
        if problem:
            self._hub.dialogs.error("Cannot export model", problem)
            return False
        start = int(g.spec.episodes.start_state(ctx))
        mdp = modelcheck.named_model(mdp, lambda s: g.spec.names.state_name(ctx, s), lambda s, a: g.spec.names.action_name(ctx, a))

        def done(paths) -> None:
            if paths is not None:
                self._hub.status.showMessage(f"Saved {', '.join(p.name for p in paths)}", 8000)

        job = Job(lambda: modelcheck.write_model_job(mdp, path, fmt, start=start, title=g.spec.title),
                  label=f"Writing {Path(path).name}\u2026", on_done=done,
                  on_failed=lambda msg: self._hub.dialogs.error("Cannot export model", msg))
        return self._hub.playing.start_game_job(job)

    def export_page(self, path: str | Path) -> bool:
        """Write the shown solve as a lesson web page (:mod:`mdpviz.lesson_page`): its numbers on the job thread,
        then its frames on the GUI thread one per event-loop turn (Qt paints widgets only there; Esc cancels),
        then the file, written whole or not at all. ValueError at once for a bad path or nothing to export;
        False when another job runs."""
        import dataclasses

        from mdpviz import lesson_page
        from mdpviz.core.files import check_writable
        from mdpviz.solvers import Sweep

        path = lesson_page.check_page_path(path)
        check_writable(path, "lesson page")
        if self._page_writer is not None and self._page_writer.running:
            raise ValueError("a lesson page is already being written")
        solved = self._hub.classroom.solved_view()
        if not solved.history:
            raise ValueError("nothing to export: run the solver first")
        previous = None
        if not isinstance(solved.history[0], Sweep):  # a learner: each episode as its board shows the learned values
            shown, previous = lesson_page.learning_sweeps(solved.history, solved.mdp)
            # (each reference marks the states whose learned action is not optimal)
            solved = dataclasses.replace(solved, history=shown)
        view = self._hub.stage.game
        facts = lesson_page.view_facts(view, solved.mdp.n_states)  # (widgets are read on the GUI thread)
        status = self._hub.status

        drawer = lesson_page.drawing_view(view)  # (the window's own board stays in the window)

        def draw(data) -> None:
            if data is None or self._hub.stage.game is not view:
                return
            pw = lesson_page.PageWriter(drawer, solved, path, data, previous=previous, parent=self)
            if drawer is not view:
                pw.finished.connect(lambda _p: drawer.deleteLater())
                pw.failed.connect(lambda _m: drawer.deleteLater())
            pw.progress.connect(lambda k, n, text: status.showMessage(f"Web page: {text}\u2026 (Esc cancels)"))
            pw.finished.connect(lambda p: status.showMessage(f"Saved {p}" if p else "Web page cancelled", 8000))
            pw.failed.connect(lambda msg: self._hub.dialogs.error("Cannot export", msg))
            self._page_writer = pw
            pw.start()

        job = Job(lambda: lesson_page.data_job(view.session.game, solved, facts=facts),
                  label=f"Writing {path.name}\u2026", on_done=draw,
                  on_failed=lambda msg: self._hub.dialogs.error("Cannot export", msg))
        return self._hub.playing.start_game_job(job)

    @property
    def page_writer(self):
        """The lesson page being written or last written (:class:`~mdpviz.lesson_page.PageWriter`), or None."""
        return self._page_writer

    def cancel_page(self) -> None:
        """Stop writing a lesson page, if one is being written (nothing is left on disk)."""
        if self._page_writer is not None:
            self._page_writer.cancel()

    def export_page_dialog(self) -> None:
        name = self._hub.dialogs.save_file("Export lesson as web page",
                                           os.path.join(self._hub.view.last_dir("export"),
                                                        f"{self._hub.stage.game.key}-lesson.html"),
                                           "Web page (*.html)")
        if not name:
            return
        self._hub.view.remember_dir("export", name)
        try:
            self.export_page(name)
        except (ValueError, OSError) as e:
            self._hub.dialogs.error("Cannot export", str(e))

    def export_model_dialog(self) -> None:
        name = self._hub.dialogs.save_file("Export model for a model checker",
                                      os.path.join(self._hub.view.last_dir("export"), f"{self._hub.stage.game.key}.drn"),
                                      "Storm DRN (*.drn);;PRISM explicit files (*.tra)")
        if not name:
            return
        self._hub.view.remember_dir("export", name)
        self.export_model(name)

    def export_csv(self, path: str | Path) -> Path:
        """Write the simulation table as CSV (ValueError when there are no results)."""
        if self._hub.playing.sim_result is None:
            raise ValueError("no simulation results to export: run a simulation first")
        path = Path(path)
        tmp = path.with_name(f".{path.name}.tmp")
        text = self._hub.playing.sim_result.csv()
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
        return path

    def export_csv_dialog(self) -> None:
        if self._hub.playing.sim_result is None:
            self._hub.status.showMessage("Run a simulation first.", 5000)
            return
        name = self._hub.dialogs.save_file("Export simulation table", os.path.join(self._hub.view.last_dir("export"), "simulation.csv"),
                                      "CSV (*.csv)")
        if not name:
            return
        self._hub.view.remember_dir("export", name)
        try:
            p = self.export_csv(name)
        except (ValueError, OSError) as e:
            self._hub.dialogs.error("Cannot export", str(e))
            return
        self._hub.status.showMessage(f"Saved {p}", 5000)
