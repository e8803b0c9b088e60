"""Presenter mode, dock and page layouts, the saved settings of the main window.

Presenter mode enlarges everything for a projector and moves the editor and the player into the
right-hand tabs; the layout and view modes are saved in QSettings.

:class:`ViewPart` is one part of :class:`mdpviz.app.MainWindow`, handed the window's
:class:`~mdpviz.window.hub.Hub` and through it the window as a plain QMainWindow (``hub.main``: it saves
and restores the dock layout, resizes docks and sets the font, which only the window can do). It owns
View > Presenter mode, Reset layout and the docks' toggles, presenter mode, the dock and page layout
(which docks a game hid, the plot a results page hid) and the saved settings; it emits the hub's
``presenter_changed`` and hears ``game_shown`` (the Game dock fits the editor, the game's panels show).
"""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, QByteArray, QCoreApplication, QEvent, QSize, Qt, QTimer
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QComboBox, QTabBar

from mdpviz.widgets.convergence import set_legend_font
from mdpviz.widgets.focus import FocusKeeper

from mdpviz.window.hub import Hub
from mdpviz.window.parts import PLOT_PX, PRESENTER_PLOT_PX, PRESENTER_SCALE


class ViewPart(QObject):
    """Presenter mode, dock layouts and the saved settings (part of :class:`~mdpviz.app.MainWindow`)."""

    def __init__(self, hub: Hub) -> None:
        """Declare the view part's state, build its View menu actions and connect it to the central tabs
        and the hub's signals."""
        super().__init__(hub)
        self._hub = hub
        self.presenter = False
        """Presenter mode is on (see :meth:`set_presenter`)."""
        self._base_font = QFont(self._hub.main.font())
        """The window's font outside presenter mode."""
        self._normal_state: QByteArray | None = None
        """The dock layout presenter mode replaced (restored when it ends; None outside it)."""
        self._normal_hidden: set[str] = set()
        """The docks a game had hidden when presenter mode began."""
        self._sim_plot_px: int | None = None
        """The shared simulation plot's text size (px) set by presenter mode (None: never switched, the plot's own)."""
        self._hidden_by_game: set[str] = set()
        """Docks hidden because the shown game does not use them (they come back with a game that does)."""
        self._plot_hidden_for_results = False
        """The Convergence dock is hidden because a results page is shown (it comes back with the board)."""
        self._forced_from: QSize | None = None
        """The window's size before its minimum grew it (put back by :meth:`_undo_forced_growth`)."""
        self._undoing = False
        """:meth:`_undo_forced_growth` is resizing the window (not the user)."""
        self.layout_restored = False
        """The saved dock layout was restored (else the default dock sizes apply once shown; read-only for
        the others)."""
        self._hub.stage.central_tabs.currentChanged.connect(self._on_page_changed)
        self._hub.main.installEventFilter(self)
        self.focus = FocusKeeper(lambda: self._hub.stage.board, self)
        """The boards take the keyboard focus when clicked, an editor's field gives it back on Enter (so the
        single-key shortcuts work after an edit: issue 35 item 4)."""
        self._hub.game_shown.connect(self._view_game_shown)
        m = hub.menus.view
        self.act_presenter = hub.action("&Presenter mode", "presenterAction", self.set_presenter, "F5",
                                        tip="Everything larger, for a projector", checkable=True)
        m.addAction(self.act_presenter)
        self.act_reset_layout = hub.action("Reset &layout", "resetLayoutAction", self.reset_layout)
        m.addAction(self.act_reset_layout)
        m.addSeparator()
        for d in hub.docks.values():
            m.addAction(d.toggleViewAction())
        m.addSeparator()

    def _view_game_shown(self, _game: object) -> None:
        """Another game is shown (the hub's ``game_shown``): the Game dock fits its editor and its
        panels show; its board and editor hand the keyboard focus back and forth."""
        self.focus.watch_board(self._hub.stage.board)
        self.focus.watch_editor(self._hub.stage.editor_stack.currentWidget())
        self._widen_game_dock()
        self.apply_panels()

    # ------------------------------------------------------------------ layout: docks and pages
    def default_dock_sizes(self) -> None:
        """Dock sizes of the default layout, as fractions of the window (applied once shown)."""
        w, h = max(self._hub.main.width(), 800), max(self._hub.main.height(), 500)
        self._hub.main.resizeDocks([self._hub.docks["game"], self._hub.docks["solver"]], [int(w * 0.16), int(w * 0.27)], Qt.Orientation.Horizontal)
        self._hub.main.resizeDocks([self._hub.docks["convergence"]], [int(h * 0.36)], Qt.Orientation.Vertical)
        self._hub.main.resizeDocks([self._hub.docks["solver"], self._hub.docks["inspector"]], [int(h * 0.36), int(h * 0.64)], Qt.Orientation.Vertical)
        self._hub.main.resizeDocks([self._hub.docks["game"], self._hub.docks["player"]], [int(h * 0.55), int(h * 0.45)], Qt.Orientation.Vertical)

    def _widen_game_dock(self) -> None:
        """The Game dock is as wide as the widest editor shown so far (measured in the normal font; all fit
        in :data:`GAME_DOCK_EM` at the default font), so switching back to a game does not change the layout."""
        if self.presenter:  # the editor shares the right-hand column; measured when presenter mode ends
            return
        need = self._hub.stage.game_scroll.widget().minimumSizeHint().width() + 16
        if need > self._hub.stage.game_scroll.minimumWidth():
            self._hub.stage.game_scroll.setMinimumWidth(need)

    def _on_page_changed(self, _index: int = -1) -> None:
        """A results page takes the plot's room too: the Convergence dock (bottom) is hidden while a
        results page is shown, and comes back with the board."""
        page = self._hub.stage.central_tabs.currentWidget()
        if page is self._hub.stage.pages["compare"]:
            self._hub.stage.compare_panel  # noqa: B018 (built when first shown)
        elif page is self._hub.stage.sim_stack and self._hub.stage.sim_stack.currentWidget() is self._hub.stage.sim_placeholder:
            self._hub.stage.simulation  # noqa: B018 (built when first shown)
        board = page is self._hub.stage.pages["board"]
        d = self._hub.docks["convergence"]
        if not board and not d.isHidden() and not d.isFloating():
            d.hide()
            self._plot_hidden_for_results = True
        elif board and self._plot_hidden_for_results:
            self._plot_hidden_for_results = False
            if "convergence" in self._hub.stage.game.panels:
                d.show()

    def _save_layout(self) -> QByteArray:
        """saveState() as the layout would be with the board shown (the plot a results page hid included)."""
        if not self._plot_hidden_for_results:
            return self._hub.main.saveState()
        self._hub.docks["convergence"].show()
        try:
            return self._hub.main.saveState()
        finally:
            self._hub.docks["convergence"].hide()

    def apply_panels(self) -> None:
        """Show the panels the shown game uses (:attr:`Game.panels`) and hide the rest. A dock hidden
        here comes back when a game that uses it is shown; one the user closed stays closed."""
        want = self._hub.stage.game.panels
        for name, d in self._hub.docks.items():
            used = name in want
            d.toggleViewAction().setEnabled(used)
            if not used:
                if not d.isHidden():
                    d.hide()
                    self._hidden_by_game.add(name)
            elif name in self._hidden_by_game:
                self._hidden_by_game.discard(name)
                d.show()
        tabs = self._hub.stage.central_tabs
        for name, page in self._hub.stage.pages.items():
            tabs.setTabVisible(tabs.indexOf(page), name == "board" or name in want)
        if not tabs.isTabVisible(tabs.currentIndex()):
            tabs.setCurrentIndex(0)
        self._hide_orphan_tab_bars()

    def _hide_orphan_tab_bars(self) -> None:
        """Hide dock tab bars that no group of tabbed docks uses any more. Qt 6.11's restoreState leaves
        the tab bar of a group it rebuilt visible, painted over the docks (leaving presenter mode showed
        one more stray bar each time, measured); the live bar of a group is the newest one with its tabs."""
        groups = set()
        for d in self._hub.docks.values():
            if d.isHidden() or d.isFloating():
                continue
            group = frozenset([d.windowTitle(), *(t.windowTitle() for t in self._hub.main.tabifiedDockWidgets(d) if not t.isHidden())])
            if len(group) > 1:
                groups.add(group)
        seen = set()
        bars = self._hub.main.findChildren(QTabBar, options=Qt.FindChildOption.FindDirectChildrenOnly)
        for bar in reversed(bars):
            titles = frozenset(bar.tabText(i) for i in range(bar.count()))
            if titles not in groups or titles in seen:
                bar.hide()
            else:
                seen.add(titles)
                bar.setElideMode(Qt.TextElideMode.ElideNone)  # whole titles (scroll buttons if they do not fit)
                bar.setUsesScrollButtons(True)

    def visible_tab_bars(self) -> list[tuple[str, ...]]:
        """The tabs of every visible dock tab bar, sorted (what a test of the layout compares)."""
        bars = self._hub.main.findChildren(QTabBar, options=Qt.FindChildOption.FindDirectChildrenOnly)
        return sorted(tuple(sorted(b.tabText(i) for i in range(b.count()))) for b in bars if b.isVisible())


    # ------------------------------------------------------------------ view
    def set_presenter(self, on: bool) -> None:
        """Presenter mode, for a projector: fonts, plots and toolbar scaled up by PRESENTER_SCALE, and
        the game editor and episode player moved into the right-hand tabs so the board gets the width.
        Leaving it restores the previous arrangement."""
        on = bool(on)
        if self.act_presenter.isChecked() != on:
            self.act_presenter.setChecked(on)
        if on == self.presenter:
            return
        self.presenter = on
        self._hub.docks["player"].setWindowTitle("Episode" if on else "Episode player")  # a tab title that fits
        if on:  # the docks move before the font grows: in the projector's font the normal layout's minimum
            self._move_docks_for_presenter()  # width (1,419 px with Jack's board) grew the window for good
        f = QFont(self._base_font)
        size = f.pointSizeF() if f.pointSizeF() > 0 else 10.0
        f.setPointSizeF(size * (PRESENTER_SCALE if on else 1.0))
        self._hub.main.setFont(f)
        # a QComboBox keeps the minimum size hint of the font it was first measured in (a font change
        # forgets only its size hint; a style change forgets both): the grid world's editor first shown
        # in presenter mode kept its projector widths after it and widened the Game dock for good
        for combo in self._hub.main.findChildren(QComboBox):
            QCoreApplication.sendEvent(combo, QEvent(QEvent.Type.StyleChange))
        px = PRESENTER_PLOT_PX if on else PLOT_PX
        self._hub.convergence.set_font_size(px)
        for cw in self._hub.stage.built_plots():
            cw.set_font_size(px)
        self._sim_plot_px = px
        self.style_simulation()
        self._hub.toolbar.setIconSize(QSize(32, 32) if on else QSize(20, 20))
        self._hub.inspector.set_compact(on)  # every action's Q at once, the best one's backup written out
        self._hub.color_bar.set_min_width(120 if on else 0)  # as wide as its text needs (ColorBar.fit), 120 px at least on a projector
        self._hub.presenter_changed.emit(on)  # the boards' text and lines too
        self._hub.stage.game_scroll.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded if on
                                                    else Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        if on:
            QTimer.singleShot(0, self, self._hide_orphan_tab_bars)
            QTimer.singleShot(0, self, self._presenter_dock_sizes)
        elif self._normal_state is not None:  # (after the font shrank: the normal layout in the normal font)
            self._hub.main.restoreState(self._normal_state)
            self._normal_state = None
            self._after_restore(self._normal_hidden)
        if not on:
            self._widen_game_dock()  # an editor first shown in presenter mode
        self._hub.settings.setValue("view/presenter", on)
        self._hub.solving.mark_dirty()

    def _move_docks_for_presenter(self) -> None:
        """Presenter mode's arrangement: the normal layout kept, the game editor and the episode player
        tabbed beside the lesson in the right-hand column."""
        self._normal_state = self._save_layout()
        self._normal_hidden = set(self._hidden_by_game)
        for d in (self._hub.docks["game"], self._hub.docks["player"]):
            d.setFloating(False)
            self._hub.main.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, d)
            self._hub.main.tabifyDockWidget(self._hub.docks["lesson"], d)
        self._hub.docks["inspector"].raise_()

    def eventFilter(self, obj: QObject, ev: QEvent) -> bool:  # noqa: N802
        """The window grown to exactly its new minimum (a font, docks or a game's widgets met on the way: not
        the user, who never drags a window *up* to its minimum) is put back once its layout allows."""
        if obj is self._hub.main:
            t = ev.type()
            if t == QEvent.Type.Resize:
                old, new, main = ev.oldSize(), ev.size(), self._hub.main
                grown_w = old.width() > 0 and new.width() > old.width() and new.width() == main.minimumWidth()
                grown_h = old.height() > 0 and new.height() > old.height() and new.height() == main.minimumHeight()
                if (grown_w or grown_h) and main.isVisible():
                    if self._forced_from is None:
                        self._forced_from = QSize(old)
                    QTimer.singleShot(0, self, self._undo_forced_growth)
                elif not self._undoing:  # the user (or a program) chose a size: that one stands
                    self._forced_from = None
            elif t == QEvent.Type.LayoutRequest and self._forced_from is not None:
                QTimer.singleShot(0, self, self._undo_forced_growth)
        return False

    def _undo_forced_growth(self) -> None:
        """Back to the size the window had before its minimum grew it (:meth:`eventFilter`), as far as its
        minimum allows now; never past the screen's available geometry when the window fit in it (issue 35:
        presenter mode and game switches took Jack's window to 1,308-1,471 px on a 1,280 x 720 projector)."""
        before, main = self._forced_from, self._hub.main
        if before is None or not main.isVisible() or main.isMaximized() or main.isFullScreen():
            self._forced_from = None
            return
        if main.layout() is not None:
            main.layout().activate()  # the minimum of the layout as it is now, not as it was on the way
        screen = main.screen()
        avail = screen.availableGeometry().size() if screen is not None else None
        cap = QSize(before)
        if avail is not None and before.width() <= avail.width() and before.height() <= avail.height():
            cap = cap.boundedTo(avail)
        want = QSize(max(min(main.width(), cap.width()), main.minimumWidth()),
                     max(min(main.height(), cap.height()), main.minimumHeight()))
        if want != main.size():
            self._undoing = True
            try:
                main.resize(want)
            finally:
                self._undoing = False
        if want.width() <= cap.width() and want.height() <= cap.height():
            self._forced_from = None  # (else tried again at the layout's next change)

    def style_simulation(self) -> None:
        """The shared simulation panel's plot text at the size presenter mode set (once the panel is built)."""
        sim, px = self._hub.stage.shared_simulation, self._sim_plot_px
        if sim is None or px is None:
            return
        for ax in ("left", "bottom"):
            fnt = QFont()
            fnt.setPixelSize(px)
            a = sim.hist_plot.getAxis(ax)
            a.setStyle(tickFont=fnt)
            a.label.setFont(fnt)
        set_legend_font(sim.hist_plot, sim.legend, max(11, int(px * 0.8)))
        sim.fit_legend()  # (its columns in the new text size)

    def _presenter_dock_sizes(self) -> None:
        """Presenter mode: the right-hand column a third of the width, the plot a third of the height, the
        convergence plot 38% (room for its |dV| plot's LOG_AXIS_LINES text lines and the counts below
        them); the board and the results pages get the rest; a results page hides the plot."""
        if not self.presenter:
            return
        share = 0.38 if self._hub.conv_stack.currentWidget() is self._hub.convergence else 0.34
        self._hub.main.resizeDocks([self._hub.docks["solver"]], [int(self._hub.main.width() * 0.33)], Qt.Orientation.Horizontal)
        self._hub.main.resizeDocks([self._hub.docks["convergence"]], [int(self._hub.main.height() * share)], Qt.Orientation.Vertical)

    def _after_restore(self, hidden_by_game: set[str]) -> None:
        """A layout was restored: the docks hidden for the game shown when it was saved are hidden by a
        game (not by the user), the shown game's panels apply, and stray tab bars go."""
        self._hidden_by_game = {n for n in hidden_by_game if n in self._hub.docks and self._hub.docks[n].isHidden()}
        self._plot_hidden_for_results = False
        self.apply_panels()
        self._on_page_changed()
        QTimer.singleShot(0, self, self._hide_orphan_tab_bars)  # Qt may lay the tabs out on the next turn

    def reset_layout(self) -> None:
        """Back to the default arrangement of the panels."""
        for name, d in self._hub.docks.items():
            d.setFloating(False)
            d.setVisible(name in self._hub.stage.game.panels)
        self._hidden_by_game = set(self._hub.docks) - set(self._hub.stage.game.panels)
        self.default_dock_sizes()

    # ------------------------------------------------------------------ settings
    def last_dir(self, kind: str) -> str:
        return str(self._hub.settings.value(f"dirs/{kind}", str(Path.home())))

    def remember_dir(self, kind: str, path: str) -> None:
        self._hub.settings.setValue(f"dirs/{kind}", str(Path(path).parent))

    def restore_settings(self) -> None:
        s = self._hub.settings
        geo = s.value("window/geometry")
        if isinstance(geo, (QByteArray, bytes)):
            self._hub.main.restoreGeometry(geo)
        saved_state = s.value("window/state")
        if isinstance(saved_state, (QByteArray, bytes)):
            self.layout_restored = bool(self._hub.main.restoreState(saved_state))
            hidden = s.value("window/hiddenByGame", "")
            self._after_restore(set(str(hidden).split(",")) if hidden else set())
        speed = s.value("solver/speed")
        if speed is not None:
            try:
                self._hub.solver_panel.set_speed_index(int(speed))
            except (TypeError, ValueError):
                pass
        self._hub.controller.set_rate(self._hub.solver_panel.rate)
        if str(s.value("view/contrast", "false")).lower() in ("true", "1"):
            self._hub.classroom.set_high_contrast(True)
        if str(s.value("view/presenter", "false")).lower() in ("true", "1"):
            self.set_presenter(True)

    def save_settings(self) -> None:
        s = self._hub.settings
        s.setValue("window/geometry", self._hub.main.saveGeometry())
        s.setValue("window/state", self._normal_state if self._normal_state is not None else self._save_layout())
        hidden = self._normal_hidden if self._normal_state is not None else self._hidden_by_game
        s.setValue("window/hiddenByGame", ",".join(sorted(hidden)))
        s.setValue("solver/speed", self._hub.solver_panel.speed.currentIndex())
        s.setValue("view/presenter", self.presenter)
        s.sync()
