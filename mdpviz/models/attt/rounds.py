"""Anti-tic-tac-toe's best-response rounds as the window steps them, headless: :class:`Rounds`.

The window's one Step computes the next round, Run keeps stepping (a pause between rounds, so each
can be seen) until the policies stop changing, Pause stops, Reset goes back to the start policy.
Each round is one background job (:func:`~mdpviz.models.attt.setup.rounds_job`) that resumes after
the rounds computed so far and returns after the next one, so no generator is kept alive between
Steps. The rounds computed for a setup are kept: Reset, or an undo back to that setup, and a later
Step applies them at once, without a job.

The rounds are solve progress, not edits: like the solver's sweeps they are not in the undo
history and not saved in scenarios (a scenario keeps the setup); any change of the setup starts them
again at round 0. The model on the board is built from :attr:`Rounds.state` (the setup with the
rounds applied): the last round's responder against the other player's policy.

:class:`Rounds` is the game's :class:`~mdpviz.models.kit.game.driver.Driver`; its jobs run on its host
(the window's session, or a :class:`~mdpviz.models.kit.game.driver.HereHost`). Plain Python; no Qt.
"""
from __future__ import annotations

from mdpviz.models.attt.iteration import Round
from mdpviz.models.attt.setup import AtttSettings, AtttState, round_summary, rounds_job
from mdpviz.core.jobs import Job
from mdpviz.models.kit.game.driver import Driver

ROUND_PAUSE_MS = 350
"""Pause between rounds when the rounds run on their own (so each round can be seen)."""


class Rounds(Driver):
    """The best-response rounds of the game's current setup: those applied, those computed, the job."""

    drives_steps = True

    def __init__(self) -> None:
        super().__init__()
        self.setup: AtttSettings | None = None
        """The setup the rounds belong to (the game's settings)."""
        self.state: AtttState | None = None
        """The setup with the rounds applied so far (one object while they stay: the model is built from it)."""
        self._computed: tuple[AtttSettings, tuple[Round, ...]] | None = None
        """The rounds computed for one setup (kept across Reset and undo)."""
        self.busy = False
        """A round job is running."""
        self.auto = False
        """Rounds keep running (one job after the other) until convergence or :meth:`pause`."""
        self.pause_ms = ROUND_PAUSE_MS
        """Pause between two rounds of Run, in milliseconds."""
        self.progress_text = ""
        """The running round job's last progress text."""
        self._token = 0  # bumped by Reset and by setup changes: a round job of an older token is not applied

    # ------------------------------------------------------------------ the driver's interface
    def settings_changed(self, settings: AtttSettings) -> None:
        """A new setup (an edit, undo, a loaded scenario): back to round 0."""
        if settings is not self.setup:
            self.auto = False
            self._token += 1
            self.setup = settings
            self.state = AtttState(settings)

    def model_input(self, settings: AtttSettings) -> AtttState:
        self.settings_changed(settings)
        return self.state

    @property
    def rounds(self) -> tuple[Round, ...]:
        """The rounds applied so far."""
        return self.state.rounds if self.state is not None else ()

    def can_step(self) -> bool:
        """A round can be computed: no round job running, not converged, below the round limit."""
        state = self.state
        return not self.busy and not state.converged and len(state.rounds) < int(state.setup.max_rounds)

    def running(self) -> bool:
        return bool(self.auto or self.busy)

    def solve_after_reset(self) -> bool:
        """After a round the window solves the MDP on the board at once: the round's best response."""
        return bool(self.rounds)

    def cached(self) -> tuple[Round, ...]:
        """The rounds computed for the current setup so far (Reset and an undo back to it keep them)."""
        c = self._computed
        return c[1] if c is not None and c[0] is self.setup else ()

    def step(self) -> bool:
        """Compute the next round on the host's job thread (a round already computed for this setup is
        applied at once). False (with a message) if it cannot."""
        state = self.state
        host = self.host
        if self.busy:
            host.note("A best-response round is being computed.")
            return False
        if state.converged:
            self.auto = False
            host.note(f"Converged after {len(state.rounds)} rounds: neither policy changes any more.")
            return False
        if not self.can_step():
            self.auto = False
            host.note(f"Stopped after {len(state.rounds)} rounds without converging (limit {state.setup.max_rounds}).")
            return False
        setup = state.setup
        wanted = len(state.rounds) + 1
        have = self.cached()
        if len(have) >= wanted:
            self._apply(have[:wanted])
            return True
        if len(have) < len(state.rounds) or self._computed is None or self._computed[0] is not setup:
            self._computed = (setup, state.rounds)  # e.g. an undo back to the rounds of an earlier setup
        done = state.rounds
        self.busy = True
        self.progress_text = ""
        host.state_changed()
        started = [True]
        token = self._token

        def failed(msg: str) -> None:
            started[0] = False
            self.auto = False
            self._job_over()
            host.note(f"Best-response round failed: {msg}")

        host.run_job(Job(
            lambda: rounds_job(setup, done=done, stop_after=wanted),
            label=f"Anti-tic-tac-toe: round {wanted} (player {state.responder}'s best response)\u2026",
            on_done=lambda _result: self._on_rounds(setup, wanted, token),
            on_progress=self._on_progress,
            on_failed=failed,
            on_cancelled=self._on_cancelled,
            on_partial=lambda r: self._keep(setup, r),
        ))
        return started[0]

    def run(self) -> bool:
        """Step rounds one after the other (each its own job, shown as it arrives) until convergence."""
        if self.state.converged or not self.can_step():
            return self.step()
        self.auto = True
        ok = self.step()
        if not ok:
            self.auto = False
        self.host.state_changed()
        return ok

    def pause(self) -> None:
        """Stop running rounds: the round being computed is cancelled (a round already computed is kept)."""
        if not (self.auto or self.busy):
            return
        self.auto = False
        if self.busy:
            self.host.cancel_job()
        self.host.state_changed()

    def reset(self) -> bool:
        """Back to the start policy (round 0); the rounds computed so far are reused by later Steps."""
        if not self.rounds and not self.busy:
            return False
        self.auto = False
        self._token += 1
        if self.busy:
            self.host.cancel_job()
        self.state = AtttState(self.setup)
        self.host.model_changed("rounds reset")
        self.host.note("Rounds reset to the start policy.")
        self.host.state_changed()
        return True

    # ------------------------------------------------------------------ the job's callbacks
    def _on_progress(self, done: int, total: int, text: str) -> None:
        self.progress_text = text
        self.host.state_changed()

    def _keep(self, setup: AtttSettings, r: Round) -> None:
        """A round the job yielded: kept for ``setup``, applied when the job is done (a round that arrives
        after a cancel or a Reset stays kept: the next Step applies it at once)."""
        c = self._computed
        if c is not None and c[0] is setup and len(c[1]) + 1 == r.round:
            self._computed = (setup, c[1] + (r,))

    def _job_over(self) -> None:
        self.busy = False
        self.host.state_changed()

    def _on_cancelled(self) -> None:
        self.auto = False
        self._job_over()
        self.host.note("Best-response round cancelled.")

    def _on_rounds(self, setup: AtttSettings, wanted: int, token: int) -> None:
        self._job_over()
        if token != self._token or setup is not self.setup:
            return  # reset or edited while the round was computed (the round stays kept for its setup)
        have = self.cached()
        if len(have) >= wanted:
            self._apply(have[:wanted])
        else:
            self.auto = False
            self.host.note(f"Stopped after {len(have)} rounds without converging (limit {setup.max_rounds}).")
            self.host.state_changed()

    def _apply(self, rounds: tuple[Round, ...]) -> None:
        new = AtttState(self.setup, rounds)
        r = rounds[-1]
        self.state = new
        self.host.model_changed(f"round {r.round}")
        tail = (" Converged: neither policy changes any more." if r.converged else
                f" The board shows player {r.player}'s best response (its moves and values); Step: "
                f"player {new.responder}'s.")
        summary = round_summary(r)
        self.host.note(summary[0].upper() + summary[1:] + "." + tail)
        if r.converged:
            self.auto = False
        self.host.state_changed()
        if self.auto:
            self.host.later(int(self.pause_ms), self._auto_step)

    def _auto_step(self) -> None:
        if self.auto and not self.busy:
            if not self.step():
                self.auto = False
                self.host.state_changed()


__all__ = ["ROUND_PAUSE_MS", "Rounds"]
