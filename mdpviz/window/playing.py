"""Batch simulations, a game's own background jobs and the episode player of the main window.

Every job runs on the controller's job thread; results come back on the GUI thread.

:class:`PlayingPart` is one part of :class:`mdpviz.app.MainWindow`, handed the window's
:class:`~mdpviz.window.hub.Hub` (the controller, the episode player, the status line; the simulation
panels through the stage part). It owns Solve > Simulate, the simulation results and their token and the
episode seed; it hears ``model_changed`` (the running job stops, results and the episode go) and
``shutting_down`` (the player pauses).
"""
from __future__ import annotations


import numpy as np
from PySide6.QtCore import QObject

from mdpviz.core.jobs import Job
from mdpviz.widgets.session import REFUSED
from mdpviz.widgets.game import SimulationResult
from mdpviz.window.hub import Hub


class PlayingPart(QObject):
    """Batch simulations, a game's own background jobs and the episode player (part of :class:`~mdpviz.app.MainWindow`)."""

    def __init__(self, hub: Hub) -> None:
        """Declare the playing part's state, build Solve > Simulate and connect it to the episode player
        and the hub's signals."""
        super().__init__(hub)
        self._hub = hub
        self.sim_result: SimulationResult | None = None
        """The last simulation's results (None: none for the shown model)."""
        self._sim_token = 0
        """Counts model changes: a simulation or comparison started under an older token is discarded."""
        self._episode_seed = np.random.SeedSequence(20240).generate_state(1)[0]
        """The episode player's seed; episode k draws from ``[seed, k]``."""
        self._episode_count = 0
        """Episodes played so far."""
        self._hub.player.new_requested.connect(self.new_episode)
        self._hub.player.position_changed.connect(self._on_token)
        self._hub.model_changed.connect(self._playing_model_changed)
        self._hub.shutting_down.connect(self._hub.player.pause)
        self.act_simulate = hub.action("Si&mulate", "simulateAction", self.simulate_from_panel, "Ctrl+Return",
                                       tip="Batch simulation of every strategy")
        hub.menus.solve.addAction(self.act_simulate)

    @property
    def sim_token(self) -> int:
        """Counts model changes: a job started under an older token (a simulation, a comparison) is discarded."""
        return self._sim_token

    def _playing_model_changed(self) -> None:
        """The shown model changed (the hub's ``model_changed``): a running job stops, simulations
        and the episode are forgotten, and the player offers the game's strategies."""
        if self._hub.controller.job_busy:
            self._hub.controller.cancel_job()
        self._sim_token += 1
        self.sim_result = None
        for panel in (self._hub.stage.shared_simulation, self._hub.stage.own_simulation(self._hub.stage.game.key)):
            if panel is not None:
                panel.clear()
        self._hub.player.clear()
        self._hub.player.set_strategies(self._hub.stage.session.game.strategies())

    # ------------------------------------------------------------------ simulation
    def simulate_from_panel(self) -> None:
        self.start_simulation(self.sim_panel.games.value(), self.sim_panel.seed.value())

    def current_policy(self) -> np.ndarray | None:
        """The converged solution's policy, or None when the solver has not converged."""
        sol = self._hub.controller.solution
        if sol is not None and sol.converged:
            return np.asarray(sol.policy)
        return None

    def start_simulation(self, games: int, seed: int) -> bool:
        """Batch simulation of every strategy in the background (the optimal one uses the converged
        solution, or is solved on the job thread if the solver has not converged)."""
        try:
            gen = self._hub.stage.session.game.simulation(self.current_policy(), games=int(games), seed=int(seed))
        except ValueError as e:
            self._hub.status.showMessage(str(e), 8000)
            return False
        token = self._sim_token
        job = Job(lambda: gen, label=f"Simulating {games:,} games per strategy",
                  on_done=lambda r: self._on_sim_done(r, token),
                  on_progress=lambda d, t, text: self._on_sim_progress(d, t, text, token),
                  on_failed=self._on_sim_failed, on_cancelled=self._on_sim_cancelled)
        if not self._hub.controller.start_job(job):
            self._hub.status.showMessage("A simulation is already running.", 6000)
            return False
        self.sim_panel.show_running(True, f"Simulating {games:,} games per strategy\u2026")
        self._hub.stage.show_page("simulation")
        return True

    @property
    def sim_panel(self):
        """The simulation panel of the active game (its own, or the shared one)."""
        own = self._hub.stage.own_simulation(self._hub.stage.game.key)
        return own if own is not None else self._hub.stage.simulation

    def start_game_job(self, job: Job) -> bool:
        """Run a game's own background job (e.g. an exact 4x4 solve) on the controller's job thread; if
        another job runs, its ``on_failed`` is told at once."""
        if not self._hub.controller.start_job(job):
            self._hub.status.showMessage(REFUSED, 6000)
            if job.on_failed is not None:
                job.on_failed(REFUSED)
            return False
        if job.label:
            self._hub.status.showMessage(job.label, 4000)
        return True

    def cancel_game_job(self) -> None:
        self._hub.controller.cancel_job()

    def _on_sim_progress(self, done: int, total: int, text: str, token: int) -> None:
        if token == self._sim_token:
            self.sim_panel.show_progress(done, total, text)

    def _on_sim_done(self, result: SimulationResult | None, token: int) -> None:
        panel = self.sim_panel
        panel.show_running(False)
        if token != self._sim_token:
            panel.clear("The model changed during the simulation: results discarded.")
            return
        if result is None:
            panel.clear("Simulation cancelled.")
            return
        self.sim_result = result
        panel.show_results(result.rows, unit=result.unit, start=result.start, notes=result.notes)

    def _on_sim_failed(self, msg: str) -> None:
        self.sim_panel.show_running(False, f"Simulation failed: {msg}")
        self._hub.status.showMessage(f"Simulation failed: {msg}", 10000)

    def _on_sim_cancelled(self) -> None:
        self.sim_panel.show_running(False)
        self.sim_panel.clear("Simulation cancelled.")

    # ------------------------------------------------------------------ episode player
    def new_episode(self, strategy: str) -> bool:
        """Play one game with ``strategy`` ("optimal" uses the greedy policy of the shown sweep)."""
        g = self._hub.stage.session
        mdp = g.mdp()
        if mdp is None:
            return False
        sw = self._hub.solving.shown_sweep()
        policy = None if sw is None else np.asarray(sw.policy)
        try:
            probs = g.game.strategy_probs(strategy, policy)
            self._episode_count += 1
            rng = np.random.default_rng([int(self._episode_seed), self._episode_count])
            moves = g.game.episode(probs, rng)
        except ValueError as e:
            self._hub.status.showMessage(str(e), 8000)
            return False
        note = ""
        if strategy == "optimal" and (sw is None or not sw.converged):
            note = f"(greedy policy of {'the shown sweep' if sw else 'V = 0'}; not converged) "
        start = g.start_state()
        # only the states the episode visits are named (every state would be O(states) on the GUI thread)
        names = {s: g.state_name(s) for s in {start, *(m.state for m in moves), *(m.next_state for m in moves)}}
        end = moves[-1].next_state if moves else start
        outcome = g.game.outcome_text(end) if mdp.terminal[end] else (
            f"stopped after {len(moves)} moves (not finished)" if moves else "")
        # a discounted total is named as one ("405 reward" was a win's 500 discounted twice)
        total_label = (f"discounted return (\u03b3 = {mdp.discount:g})"
                       if g.game.unit in ("return", "reward") and mdp.discount < 1 else "")
        self._hub.player.show_episode(moves, start_state=start, unit=g.game.unit, names=names,
                                 header=f"{strategy} {note}".strip() + ":", outcome=outcome, total_label=total_label)
        self._hub.docks["player"].raise_()
        return True

    def _on_token(self, pos) -> None:
        board = self._hub.stage.board
        if pos is None:
            board.show_token(None)
        else:
            state, text, before = pos
            p = self._hub.player
            mdp = self._hub.controller.mdp
            if (0 <= p.index < len(p.moves) and p.moves[p.index].next_state == state and mdp is not None
                    and 0 <= state < mdp.n_states and mdp.terminal[state]
                    and board.show_episode_end(before, p.moves[p.index].action, state, text)):
                return  # the board the game ended on (tic-tac-toe's outcome states have none)
            board.show_token(self.token_state(state, before), text)

    def token_state(self, state: int, before: int) -> int:
        """The state the board can draw for the episode's token: a game's absorbing end state (win,
        draw, loss) has no board, so the last real position is shown instead."""
        mdp = self._hub.controller.mdp
        if mdp is None or not 0 <= state < mdp.n_states or not mdp.terminal[state] or self._hub.stage.board.shows_state(state):
            return state
        return before
