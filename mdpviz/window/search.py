"""The Tree search dock of the main window (issue 38): Monte Carlo tree search from the shown position.

:class:`SearchPart` is one part of :class:`mdpviz.app.MainWindow`, handed the window's
:class:`~mdpviz.window.hub.Hub`. It owns Solve > Tree search, the dock (hidden until opened, tabbed with the
convergence plot) and the search it shows: a :class:`~mdpviz.solvers.mcts.SearchRun` from the position the board
shows (a board game's shown position; another game's start), with the exact values of the game's own exact solve.
Step runs one simulation through its four phases, Run many: both as jobs on the controller's job thread (progress,
Cancel), the exact solve first when it is not known yet. The panel (:class:`~mdpviz.widgets.search_tree.SearchTreePanel`)
draws the tree (:func:`~mdpviz.models.kit.pictures.search_tree.tree_view`), the last simulation's phases, the
root's moves and the move the search plays against the exact best moves. The part hears ``game_shown`` and
``model_changed`` (a new model: a new tree) and ``presenter_changed`` (text size).
"""
from __future__ import annotations

from typing import Any

import numpy as np
from PySide6.QtCore import QTimer, QObject, Qt
from PySide6.QtWidgets import QDockWidget, QWidget

from mdpviz.core.jobs import Job, JobProgress
from mdpviz.models.kit.pictures.search_tree import phase_text, tree_view
from mdpviz.models.kit.pictures.value_range import range_scale
from mdpviz.solvers.mcts import MAX_SIMULATIONS, SearchRun, SearchTree, root_moves
from mdpviz.widgets.search_tree import SearchTreePanel
from mdpviz.window.hub import Hub
from mdpviz.window.parts import PLOT_PX, PRESENTER_PLOT_PX

WHY = (" Its random rollouts estimate each move's value under random play, not under best play; the exact solve "
       "backs up by expectimax over shared positions.")
"""Why textbook UCT can play a move that is not exact best (said when it does)."""

BATCH = 2_000
"""Simulations between two progress reports of a Run (and two checks of Cancel)."""
DRAW_EVERY = 10
"""A Run's partial tree is drawn every this many batches."""
SEARCH_HEIGHT = 0.5
"""Share of the window's height the dock takes when opened."""
PRESENTER_TREE_PX = 15
"""The tree's text size in presenter mode (nine moves side by side at 1280 pixels)."""
PRESENTER_SEARCH_HEIGHT = 0.62
"""The share in presenter mode (its larger text needs the room; the board keeps the rest)."""


class SearchPart(QObject):
    """The Tree search dock (part of :class:`~mdpviz.app.MainWindow`)."""

    def __init__(self, hub: Hub) -> None:
        """Declare the part's state, its action and its dock, and connect it to the hub's signals."""
        super().__init__(hub)
        self._hub = hub
        self.act_search = hub.action(
            "&Tree search (MCTS)\u2026", "treeSearchAction", self.open_search,
            tip="Monte Carlo tree search from the shown position, each node beside its exact value")
        hub.menus.solve.addAction(self.act_search)
        self._search_panel: SearchTreePanel | None = None
        """The dock's panel, built when first opened."""
        self.search_run: SearchRun | None = None
        """The search shown (None: none yet)."""
        self._exact: tuple[Any, np.ndarray] | None = None
        """(model, V*) of the game's exact solve, once computed."""
        self._search_placed = False
        """The dock has been put beside the convergence plot."""
        self.search_dock: QDockWidget = hub.dock("Tree search", "treeSearchDock", QWidget(),
                                                 Qt.DockWidgetArea.BottomDockWidgetArea)
        """The tree of a Monte Carlo tree search, its nodes' visits and means beside the exact values."""
        self.search_dock.hide()
        self.search_dock.visibilityChanged.connect(self._on_shown)
        hub.game_shown.connect(lambda _g: self.clear_search())
        hub.model_changed.connect(self.clear_search)
        hub.presenter_changed.connect(self._presenter)

    @property
    def search_panel(self) -> SearchTreePanel:
        """The dock's panel, built the first time it is opened or asked for."""
        if self._search_panel is None:
            p = SearchTreePanel()
            self._search_panel = p
            self.search_dock.setWidget(p)
            p.step_requested.connect(lambda: self.simulate(1))
            p.run_requested.connect(self.simulate)
            p.reset_requested.connect(self.clear_search)
            p.cancel_requested.connect(self._hub.playing.cancel_game_job)
            self._presenter(self._hub.view.presenter)
            self._draw()
        return self._search_panel

    def open_search(self) -> SearchTreePanel:
        """Solve > Tree search: show the dock in front (beside the convergence plot)."""
        panel = self.search_panel
        d = self.search_dock
        if not self._search_placed and d.isHidden() and not d.isFloating():
            self._search_placed = True
            self._hub.main.tabifyDockWidget(self._hub.docks["convergence"], d)
        d.show()
        d.raise_()
        self._fit_height()
        return panel

    def _fit_height(self) -> None:
        """The dock's share of the window's height (more in presenter mode)."""
        d = self.search_dock
        if d.isVisible() and not d.isFloating():
            share = PRESENTER_SEARCH_HEIGHT if self._hub.view.presenter else SEARCH_HEIGHT
            self._hub.main.resizeDocks([d], [int(self._hub.main.height() * share)], Qt.Orientation.Vertical)

    def _on_shown(self, shown: bool) -> None:
        if shown:
            self.search_panel  # noqa: B018 (built when first shown)

    def _presenter(self, on: bool) -> None:
        if self._search_panel is not None:
            self._search_panel.set_font_size(PRESENTER_PLOT_PX if on else PLOT_PX,
                                      tree_px=PRESENTER_TREE_PX if on else PLOT_PX)
            self._search_panel.set_compact(on)
            self._fit_height()
            QTimer.singleShot(0, self, self._fit_height)  # (after presenter mode has placed the docks again)

    # ------------------------------------------------------------------ the search
    def position_state(self) -> int | None:
        """The state searched from: the board's shown position (a board game), else the game's start; None
        without a model."""
        session = self._hub.stage.session
        if session.mdp() is None:
            return None
        pos = self._hub.stage.board.position
        state = getattr(pos, "state", None) if pos is not None else None
        return int(state) if state is not None else int(session.start_state())

    def clear_search(self) -> None:
        """Forget the tree (another game, an edited model, Reset): the next Step starts a new one."""
        self.search_run = None
        if self._exact is not None and self._exact[0] is not self._hub.stage.session.mdp():
            self._exact = None
        self._draw()

    def simulate(self, n: int) -> bool:
        """Run ``n`` more simulations as a job (the exact solve first when not known); False when refused."""
        session = self._hub.stage.session
        mdp = session.mdp()
        root = self.position_state()
        if mdp is None or root is None:
            self._hub.status.showMessage("Tree search: no model to search yet.", 6000)
            return False
        panel = self.search_panel
        if self.search_run is not None and (self.search_run.mdp is not mdp or self.search_run.root != root):
            self.search_run = None  # the board shows another position now: a new tree from it
        exact = self._exact[1] if self._exact is not None and self._exact[0] is mdp else None
        c, seed = float(panel.c.value()), int(panel.seed.value())
        method, opts = session.game.solve_defaults()
        run = self.search_run
        total = int(n)
        done = 0 if run is None else int(run.tree.simulations)
        if done + total > MAX_SIMULATIONS:  # (a tree's memory grows with its simulations)
            self._hub.status.showMessage(f"Tree search: {done:,} simulations so far; at most {MAX_SIMULATIONS:,} in one "
                                         "tree (its memory grows with them): Reset for a new tree.", 8000)
            return False

        def make():
            nonlocal run
            v = exact
            if v is None:
                from mdpviz.solvers import solve

                yield JobProgress(0, total, "the exact solve")
                v = solve(mdp, method, **opts).values
            if run is None:
                run = SearchRun(mdp, root, exact=v, c=c, seed=seed)
            done, tree = 0, None
            while done < total:
                k = min(BATCH, total - done)
                tree = run.advance(k)
                done += k
                yield JobProgress(done, total, f"{done:,} of {total:,} simulations")
                if done < total and (done // BATCH) % DRAW_EVERY == 0:
                    yield tree
            return (mdp, v, run, tree)

        job = Job(make, label=f"Tree search: {total:,} simulation{'s' if total != 1 else ''}",
                  on_done=self._on_done, on_progress=lambda d, t, _x: panel.show_progress(d, t),
                  on_partial=lambda tree: self._draw(tree), on_failed=self._on_failed,
                  on_cancelled=self._on_cancelled)
        if not self._hub.playing.start_game_job(job):
            return False
        panel.show_running(total > 1)
        return True

    def _on_done(self, result) -> None:
        self.search_panel.show_running(False)
        if result is None:
            return
        mdp, v, run, _tree = result
        if mdp is not self._hub.stage.session.mdp():
            return  # the model changed meanwhile: its tree is gone
        self._exact = (mdp, v)
        self.search_run = run
        self._draw()

    def _on_cancelled(self) -> None:
        """A Run cancelled between two batches: the tree as far as it went (a Step or Run goes on from there; a
        first Run cancelled before its end leaves no tree)."""
        self.search_panel.show_running(False)
        self._draw()

    def _on_failed(self, msg: str) -> None:
        self.search_panel.show_running(False)
        self._hub.status.showMessage(f"Tree search failed: {msg}", 10000)

    # ------------------------------------------------------------------ drawing
    def _draw(self, tree: SearchTree | None = None) -> None:
        """Draw the search's newest tree (or ``tree``, a Run's partial one)."""
        if self._search_panel is None:
            return
        p = self._search_panel
        run = self.search_run
        tree = tree if tree is not None else (run.tree if run is not None else None)
        session = self._hub.stage.session
        if tree is None or run is None or run.mdp is not session.mdp():
            root = self.position_state()
            where = "" if root is None else f" from {session.state_name(root)}"
            p.view.show_tree([], None, f"Press Step (one simulation) or Run{where}.")
            p.set_verdict("Monte Carlo tree search (UCT) from the position the board shows.")
            p.phases.setText("")
            p.show_moves([])
            return
        mdp = run.mdp
        moves = root_moves(tree, mdp)
        best = {m.action for m in moves if m.optimal}

        def label(_s: int, a: int) -> str:
            return session.action_name(a)

        nodes = tree_view(tree, label, best)
        finite = np.concatenate([tree.mean[np.isfinite(tree.mean)], tree.exact[np.isfinite(tree.exact)]])
        lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
        scale = range_scale(lo, hi, label=session.game.value_label, kind=session.game.color_kind)
        p.view.show_tree(nodes, scale)
        played = tree.best_move()
        exact_names = ", ".join(session.action_name(a) for a in sorted(best))
        verdict = "an exact best move" if played in best else "NOT an exact best move"
        p.set_verdict(f"UCT plays {session.action_name(played)} (most visited of {tree.simulations:,} "
                      f"simulations, c = {tree.c:.3g}): {verdict}. Exact best: {exact_names} "
                      f"(V* = {tree.exact[0]:.4g})." + ("" if played in best else WHY),
                      short=f"UCT plays {session.action_name(played)} ({tree.simulations:,} simulations): {verdict}. "
                      f"Exact best: {exact_names}.")
        p.phases.setText(phase_text(tree, label))
        p.show_moves([(session.action_name(m.action), m.visits, m.mean, m.ucb, m.exact,
                       ("plays" if m.action == played else "") + (" best" if m.optimal else ""))
                      for m in moves])


__all__ = ["SearchPart"]
