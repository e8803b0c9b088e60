"""Dyna-Q and Dyna-Q+ in the main window (Sutton and Barto 8.2-8.3; issue 38 item 4).

While the Solver panel holds a planning method (kind "planning" of the registry), the learning part
(:mod:`mdpviz.window.learning`) draws its snapshots (:class:`~mdpviz.solvers.dyna.DynaStep`, a learner's snapshot
with the planning's counts) as a learner's, and hands them to :class:`DynaView` for what planning adds: the
convergence dock's page (:class:`~mdpviz.widgets.dyna.DynaCurves`: steps per episode, cumulative reward against
real steps with the world's change marked, earlier runs beside), the model's known transitions and the last real
step's planning updates on the board (a grid world draws them; other boards say so in the caption), the counts in
the status line and the inspector's paragraph on the model. Its options add what the game gives: the world after
its change (:func:`~mdpviz.models.kit.game.hooks.world_change`).
"""
from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import QObject

from mdpviz.models.kit.game.hooks import world_change
from mdpviz.solvers import registry
from mdpviz.solvers.dyna import DynaStep
from mdpviz.widgets.dyna import DynaCurves
from mdpviz.window.parts import PLOT_PX, PRESENTER_PLOT_PX


def run_label(method: str, options: dict) -> str:
    """The curves' name of a run: its method and n (and kappa for Dyna-Q+), "Dyna-Q+ n=25 \u03ba=0.001"."""
    spec = registry.get(method)
    n = options.get("planning_steps", spec.param("planning_steps").default)
    kappa = f" \u03ba={options.get('kappa', spec.param('kappa').default):g}" if spec.takes("kappa") else ""
    return f"{spec.short_title} n={n}{kappa}"


def planning_inputs(session: Any, opts: dict) -> dict:
    """``opts`` with the world after its change (``switch_mdp``, ``switch_after``) when the shown game's world
    changes (the blocking and shortcut mazes), as ``mdpviz learn`` adds it."""
    built = session.built()
    if built is None:
        return opts
    change = world_change(session.spec, session.settings, built)
    if change is None:
        return opts
    return {**opts, "switch_mdp": change[0], "switch_after": int(change[1])}


class DynaView(QObject):
    """Draws what a planning method adds to a learner's frame (owned by the learning part)."""

    def __init__(self, hub: Any) -> None:
        super().__init__(hub)
        self._hub = hub
        self._curves: DynaCurves | None = None
        self._px = PLOT_PX
        self._game = ""
        hub.presenter_changed.connect(self._on_presenter)
        self.marks_shown = False
        """The board drew the model's marks at the last frame (the status line then says what they are)."""

    @property
    def plan_curves(self) -> DynaCurves:
        """The convergence dock's page while a planning method is loaded (built on first use: every window pays
        for the plots it builds, and most lessons never plan)."""
        if self._curves is None:
            self._curves = DynaCurves()
            self._curves.set_font_size(self._px)
            self._hub.conv_stack.addWidget(self._curves)
        return self._curves

    def page_shown(self) -> bool:
        """The convergence dock shows the planning curves."""
        return self._curves is not None and self._hub.conv_stack.currentWidget() is self._curves

    def _on_presenter(self, on: bool) -> None:
        self._px = PRESENTER_PLOT_PX if on else PLOT_PX
        if self._curves is not None:
            self._curves.set_font_size(self._px)

    def reset(self, method: str, options: dict) -> None:
        """A new run: the curves start a new series (the last one kept beside it, on the same game and map)."""
        game = self._hub.stage.game
        where = f"{game.key}:{getattr(getattr(self._hub.stage.session.settings, 'grid', None), 'name', '')}"
        if where != self._game:
            self.plan_curves.forget_runs()
            self._game = where
        self.plan_curves.reset(run_label(method, options), switch_after=int(options.get("switch_after", 0) or 0))
        self._hub.conv_stack.setCurrentWidget(self.plan_curves)
        self._hub.docks["convergence"].setWindowTitle("Planning curves")
        self._hub.docks["convergence"].setAccessibleName("Planning curves")

    def extend(self, steps: tuple) -> None:
        """The curves take these snapshots' episodes (drawn at the next frame)."""
        dyna = tuple(s for s in steps if isinstance(s, DynaStep))
        if dyna:
            self.plan_curves.extend(dyna)

    @staticmethod
    def caption(step: DynaStep) -> str:
        """The board caption's words on the planning: the real steps, and whether the world has changed."""
        world = "" if not step.switch_after else ", world changed" if step.switched else ""
        return f" ({step.real_steps:,} real steps{world})"

    def draw(self, step: DynaStep, *, cursor: int | None) -> None:
        """After the board showed ``step`` as a learner's: its model's marks (once the world changed, on the map
        after the change) and the curves."""
        self.marks_shown = self._hub.stage.board.show_model(step.known, step.tried, step.planned, switched=step.switched)
        self.plan_curves.refresh()
        self.plan_curves.set_cursor(cursor)

    def status(self, step: DynaStep) -> str:
        """The status line's words on the planning."""
        return (f"{step.real_steps:,} real steps + {step.planning_updates:,} planning updates (n = "
                f"{step.planning_steps}) \u00b7 cumulative reward {step.cumulative_reward:g} \u00b7 model knows "
                f"{int(step.known.sum()):,} of {step.known.size:,} (state, action) pairs"
                + (" (board: black dots; hollow: untried) \u00b7 the last step's planning updates: orange edges"
                   if self.marks_shown else ""))

    def inspection_html(self, step: DynaStep) -> str:
        """The inspector's paragraph on the model and the last real step's planning updates."""
        session = self._hub.stage.session
        pairs = ", ".join(f"({html.escape(session.state_name(s))}, {html.escape(session.action_name(a))})"
                          for s, a in step.planned[:12])
        more = "" if len(step.planned) <= 12 else f" and {len(step.planned) - 12} more"
        untried = int((step.known & ~step.tried).sum())
        return (f"<p><b>Planning</b>: {step.real_steps:,} real steps and {step.planning_updates:,} planning updates "
                f"({step.planning_steps} per real step); the model knows {int(step.known.sum()):,} (state, action) pairs"
                + (f", {untried:,} of them never tried (Dyna-Q+: they lead back with reward 0)" if untried else "")
                + f". The last real step's planning updated: {pairs or 'nothing (n = 0)'}{more}.</p>")


__all__ = ["DynaView", "planning_inputs", "run_label"]
