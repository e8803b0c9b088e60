"""The Bandit dock of the main window: the k-armed testbed of Sutton and Barto chapter 2 (issue 39).

:class:`BanditPart` is one part of :class:`mdpviz.app.MainWindow`, handed the window's
:class:`~mdpviz.window.hub.Hub`. It owns View > Bandit testbed, the Bandit dock (opened from there; tabbed with
the convergence plot, like the Sensitivity dock), the stepped run and the finished results. The panel
(:class:`~mdpviz.widgets.bandit.BanditPanel`) only draws and asks:

* Step: one pull of every run of the chosen method (its generator, :func:`mdpviz.solvers.bandits.start_bandit`,
  kept between Steps; a pull of 2,000 runs takes about a millisecond, so it runs here; the first Step builds
  the generator as a job, since the Bayes-optimal policy solves its belief MDP first). The bars show run 1.
* Run: the chosen method over all the runs and steps, as a job on the controller's job thread (progress,
  Cancel); its curves join the ones shown (figure 2.2 for several methods at once).
* Figure 2.2: epsilon-greedy at epsilon 0, 0.01, 0.1, one job.
* Parameter study: figure 2.6 as a job (:func:`mdpviz.solvers.bandits.parameter_study_job`).

The part hears ``presenter_changed`` (text size). The testbed is no game: switching games leaves it alone.
"""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtWidgets import QDockWidget, QWidget

from mdpviz.core.jobs import Job
from mdpviz.solvers import bandits, registry
from mdpviz.solvers.bandits import BanditStep, ParameterStudy, TestbedResult
from mdpviz.widgets.bandit import BanditPanel, BanditRequest
from mdpviz.window.hub import Hub
from mdpviz.window.parts import PLOT_PX, PRESENTER_PLOT_PX

BANDIT_HEIGHT = 0.55
"""Share of the window's height the Bandit dock takes when opened (its plots need room)."""
PRESENTER_BANDIT_HEIGHT = 0.5
"""The share in presenter mode."""
FIGURE_2_2_EPSILONS = (0.0, 0.01, 0.1)
"""The book's figure 2.2: greedy, epsilon 0.01 and epsilon 0.1, sample averages."""
STUDY_RUNS = 500
"""Runs per point of the window's parameter study (the book's 2,000 take about a minute here; the command line
takes any number)."""


class BanditPart(QObject):
    """The Bandit dock (part of :class:`~mdpviz.app.MainWindow`)."""

    def __init__(self, hub: Hub) -> None:
        """Declare the bandit part's state, its action and its dock (hidden until opened)."""
        super().__init__(hub)
        self._hub = hub
        self.act_bandit = hub.action("&Bandit testbed (Sutton and Barto ch. 2)\u2026", "banditAction",
                                     self.open_bandit, "Ctrl+Shift+K",
                                     tip="The k-armed testbed: arms, figure 2.2's curves, the parameter study")
        hub.menus.view.addAction(self.act_bandit)
        self._panel: BanditPanel | None = None
        """The dock's panel, built when first opened."""
        self.bandit_dock: QDockWidget = hub.dock("Bandit testbed", "banditDock", QWidget(),
                                                 Qt.DockWidgetArea.BottomDockWidgetArea)
        """The k-armed testbed: arms, curves, parameter study."""
        self.bandit_dock.hide()
        self._placed = False
        """The dock has been put beside the convergence plot (once, when first opened)."""
        self._gen: Any = None
        """The stepped run's generator (None: no stepped run)."""
        self._stepped: BanditStep | None = None
        """The stepped run's last snapshot."""
        self.results: list[TestbedResult] = []
        """The finished runs whose curves are shown, in order."""
        self.study: ParameterStudy | None = None
        """The last parameter study."""
        self.bandit_dock.visibilityChanged.connect(self._on_shown)
        hub.presenter_changed.connect(self._presenter)

    @property
    def panel(self) -> BanditPanel:
        """The dock's panel, built the first time it is opened or asked for."""
        if self._panel is None:
            p = BanditPanel()
            self._panel = p
            self.bandit_dock.setWidget(p)
            p.step_requested.connect(self.step)
            p.run_requested.connect(self.run)
            p.figure_requested.connect(self.run_figure_2_2)
            p.study_requested.connect(self.run_study)
            p.cancel_requested.connect(self._hub.playing.cancel_game_job)
            p.clear_requested.connect(self.clear)
            p.settings_changed.connect(self._drop_stepped)
            p.set_font_size(PRESENTER_PLOT_PX if self._hub.view.presenter else PLOT_PX)
        return self._panel

    @property
    def stepped(self) -> BanditStep | None:
        """The stepped run's last snapshot (None: no stepped run)."""
        return self._stepped

    def open_bandit(self) -> BanditPanel:
        """View > Bandit testbed: show the dock (beside the convergence plot, a good share of the height)."""
        panel = self.panel
        d = self.bandit_dock
        if not self._placed and d.isHidden() and not d.isFloating():
            self._placed = True
            self._hub.main.tabifyDockWidget(self._hub.docks["convergence"], d)
        d.show()
        d.raise_()
        self._share_height()
        return panel

    def _on_shown(self, shown: bool) -> None:
        if shown:
            self.panel  # noqa: B018 (built when first shown)

    def _presenter(self, on: bool) -> None:
        if self._panel is not None:
            self._panel.set_font_size(PRESENTER_PLOT_PX if on else PLOT_PX)
        # larger text: the dock's share of the height again, after the view part has sized the docks of presenter
        # mode (its sizes are set on the event loop's next turn: this one's on the turn after)
        QTimer.singleShot(0, self, lambda: QTimer.singleShot(0, self, self._share_height))

    def _share_height(self) -> None:
        d = self.bandit_dock
        if d.isVisible() and not d.isFloating() and not d.visibleRegion().isEmpty():
            share = PRESENTER_BANDIT_HEIGHT if self._hub.view.presenter else BANDIT_HEIGHT
            self._hub.main.resizeDocks([d], [int(self._hub.main.height() * share)], Qt.Orientation.Vertical)

    # ------------------------------------------------------------------ stepping
    def _drop_stepped(self) -> None:
        self._gen = None
        self._stepped = None

    def _request(self) -> BanditRequest | None:
        """The panel's request, its fields and the method's options checked here (one line in the panel when
        refused: None)."""
        try:
            req = self.panel.request()
            bandits.method_options(req.method, req.options)
            bandits.check_size(req.testbed, req.runs, req.steps)
        except ValueError as e:
            self.panel.message.setText(str(e))
            return None
        return req

    def step(self) -> bool:
        """One pull of every run of the chosen method; the first Step of a run builds its generator as a job
        (False when refused)."""
        panel = self.panel
        if self._gen is None:
            req = self._request()
            if req is None:
                return False

            def make():
                gen = bandits.start_bandit(req.method, req.testbed, runs=req.runs, steps=req.steps, seed=req.seed,
                                           **req.options)
                return gen
                yield  # (a job generator: its result is the method's generator, built on the job thread)

            def done(gen: Any) -> None:
                panel.show_running(False)
                if gen is not None:
                    self._gen = gen
                    self.step()

            return self._start(Job(make, label="Preparing the stepped run\u2026", on_done=done,
                                   on_failed=self._failed, on_cancelled=self._cancelled), "Preparing\u2026")
        try:
            s = next(self._gen)
        except StopIteration:
            self._gen = None
            panel.message.setText("The stepped run reached its last step: Step again starts a new one.")
            return False
        except ValueError as e:
            self._gen = None
            panel.message.setText(str(e))
            return False
        self._stepped = s
        panel.show_step(s, self.results)
        panel.tabs.setCurrentWidget(panel.bars.parentWidget())
        return True

    # ------------------------------------------------------------------ runs as jobs
    def run(self) -> bool:
        """The chosen method over all the runs and steps, as a job (its curves join the ones shown)."""
        req = self._request()
        if req is None:
            return False
        return self._run_methods(req, [(req.method, req.options)])

    def run_figure_2_2(self) -> bool:
        """Figure 2.2: epsilon-greedy with sample averages at epsilon 0, 0.01 and 0.1 on the panel's testbed."""
        req = self._request()
        if req is None:
            return False
        method = bandits.method_of(bandits.epsilon_greedy)
        self.panel.set_method(method)
        return self._run_methods(req, [(method, {"epsilon": e}) for e in FIGURE_2_2_EPSILONS])

    def _run_methods(self, req: BanditRequest, methods: list[tuple[str, dict]]) -> bool:
        panel = self.panel

        def done(results: tuple[TestbedResult, ...] | None) -> None:
            panel.show_running(False)
            if results is None:
                panel.message.setText("Run cancelled.")
                return
            keep = [r for r in self.results if r.testbed == req.testbed and r.steps == req.steps]
            self.results = keep + list(results)
            panel.curves.show_results(self.results)
            panel.tabs.setCurrentWidget(panel.curves)
            last = results[-1]
            panel.message.setText(f"{len(results)} run(s) of {req.runs:,} x {req.steps:,} pulls done; average reward "
                                  f"at the last step {last.average_reward[-1]:.3f}, optimal action "
                                  f"{100 * last.optimal_action[-1]:.1f}%.")

        make = lambda: bandits.testbed_job(req.testbed, methods, runs=req.runs, steps=req.steps, seed=req.seed)  # noqa: E731
        names = ", ".join(dict.fromkeys(registry.get(m).short_title for m, _o in methods))
        return self._start(Job(make, label=f"Bandit testbed: {names}, {req.runs:,} runs of {req.steps:,} steps\u2026",
                               on_done=done,
                               on_progress=panel.show_progress, on_failed=self._failed, on_cancelled=self._cancelled),
                           "Running\u2026 (Cancel stops it)")

    def run_study(self) -> bool:
        """The parameter study (figure 2.6) on the panel's testbed, :data:`STUDY_RUNS` runs a point, as a job."""
        panel = self.panel
        req = self._request()
        if req is None:
            return False

        def done(study: ParameterStudy | None) -> None:
            panel.show_running(False)
            if study is None:
                panel.message.setText("Parameter study cancelled.")
                return
            self.study = study
            panel.study_plot.show_study(study)
            panel.tabs.setCurrentWidget(panel.study_plot)
            panel.message.setText(f"Parameter study: {study.runs:,} runs of {study.steps:,} steps per point.")

        runs = min(req.runs, STUDY_RUNS)
        make = lambda: bandits.parameter_study_job(req.testbed, runs=runs, steps=req.steps, seed=req.seed)  # noqa: E731
        return self._start(Job(make, label="Parameter study (figure 2.6)\u2026", on_done=done,
                               on_progress=panel.show_progress, on_failed=self._failed, on_cancelled=self._cancelled),
                           f"Parameter study, {runs:,} runs a point\u2026 (Cancel stops it)")

    def clear(self) -> None:
        """Forget the curves, the study and the stepped run."""
        self.results = []
        self.study = None
        self._drop_stepped()
        p = self.panel
        p.curves.show_results([])
        p.study_plot.show_study(None)
        p.bars.clear()
        p.last.setText("")
        p.message.setText("")

    def _start(self, job: Job, text: str) -> bool:
        if not self._hub.playing.start_game_job(job):
            return False
        self.panel.show_running(True, text)
        return True

    def _failed(self, msg: str) -> None:
        self.panel.show_running(False, msg)

    def _cancelled(self) -> None:
        self.panel.show_running(False, "Cancelled.")


__all__ = ["BanditPart", "FIGURE_2_2_EPSILONS", "STUDY_RUNS"]
