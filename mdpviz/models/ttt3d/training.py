"""3x3x3 risk tic-tac-toe's training as the window runs it, headless: :class:`Training`.

Training is the 3D game's solve: there is no table of states, so an agent learns by playing an
opponent (random, tactical, itself or a curriculum) (:func:`mdpviz.models.ttt3d.learning.train`), as the job generator
:func:`training_job`. :class:`Training` is the game's :class:`~mdpviz.models.kit.game.driver.Driver`: it
starts and stops that job on its host (the window's session), keeps each progress record as it
arrives (the learning curve), the latest agent, whether it runs, its status line and progress. The
trained agent is a result, like a solve, not an edit. Plain numpy; never imports Qt.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Generator

import numpy as np

from mdpviz.core.jobs import Job, JobProgress, in_child_process
from mdpviz.models.kit.game.driver import Driver
from mdpviz.core.simulate import proportion_ci
from mdpviz.models.ttt3d import learning as rl


def method_text(settings: rl.TrainSettings) -> str:
    """"TD(0), mlp (64 ReLU)" etc.: how an agent learns, in a few words."""
    m = "TD(0)" if settings.method == "td" else "Q-learning"
    a = f"mlp ({settings.hidden} ReLU)" if settings.approx == "mlp" else settings.approx
    return f"{m}, {a}"


def record_text(rec: rl.TrainProgress, total: int) -> str:
    """One line about a progress record: games, win rate with its interval, TD error, time."""
    parts = [f"{rec.episodes:,} of {total:,} games"]
    if math.isfinite(rec.win):
        seats = []
        for seat, w in rec.seat_win.items():
            lo, hi = proportion_ci(int(round(w * rec.eval_games)), rec.eval_games)
            tac = rec.baselines.get("tactical", {}).get(seat, math.nan)
            seats.append(f"as {seat} {100 * w:.1f}% [{100 * float(lo):.1f}, {100 * float(hi):.1f}] "
                         f"(tactical player {100 * tac:.1f}%)")
        parts.append(f"win vs {rec.eval_opponent} " + ", ".join(seats) + f" ({rec.eval_games:,} games per seat)")
    if math.isfinite(rec.mean_td_error):
        parts.append(f"mean |TD error| {rec.mean_td_error:.3f}")
    parts.append(f"\u03b5 {rec.epsilon:.3f}")
    parts.append(f"{rec.seconds:.1f} s")
    return " \u00b7 ".join(parts)


def training_job(settings: rl.TrainSettings, risk: np.ndarray) -> Generator[Any, None, rl.Agent | None]:
    """Training as a job generator: :func:`mdpviz.models.ttt3d.learning.train` with every progress
    record yielded as a partial result (the learning curve's next point) followed by a
    :class:`~mdpviz.models.kit.game.registry.JobProgress` (games done of ``settings.episodes``, :func:`record_text`).
    Closing it (Stop) ends training after the current record. Returns the last record's agent (None
    if no record was made)."""
    total = int(settings.episodes)
    p = np.asarray(risk, dtype=np.float64)

    def run() -> Generator[Any, None, rl.Agent | None]:
        gen = rl.train(settings, risk=p)
        last: rl.TrainProgress | None = None
        try:
            for rec in gen:
                last = rec
                yield rec
                yield JobProgress(rec.episodes, max(total, 1), record_text(rec, total))
        finally:
            gen.close()
        return None if last is None else last.agent

    return run()


class Training(Driver):
    """The 3D game's training: the agent trained (or loaded) so far and the run that trains it."""

    def __init__(self) -> None:
        super().__init__()
        self.settings: Any = None
        """The game's settings (a :class:`~mdpviz.models.ttt3d.spec.Ttt3dSettings`): what the next run trains with."""
        self.agent: rl.Agent | None = None
        """The current agent (the latest training point, or a loaded file); None before any."""
        self.records: list[rl.TrainProgress] = []
        """The progress records of the current (or last) training run."""
        self.busy = False
        """A training job is running."""
        self.status = ""
        """The training status line."""
        self.progress: tuple[int, int] = (0, 1)
        """(games done, games to play) of the current (or last) run."""
        self.run_id = 0
        """Bumped by each run and each loaded agent (a job of an older run is not applied)."""

    def settings_changed(self, settings: Any) -> None:
        self.settings = settings

    def running(self) -> bool:
        return self.busy

    def state_text(self) -> str:
        if self.busy:
            return "training"
        return "agent ready" if self.agent is not None else "no agent yet: press Train"

    def start(self) -> bool:
        """Train a new agent with the current settings on the host's job thread; each progress record
        becomes the agent and a point of the learning curve. False if training already runs or the job
        could not start (then the status says why)."""
        if self.busy:
            return False
        ts, risk = self.settings.settings, self.settings.risk_vector()
        host = self.host
        self.run_id += 1
        run = self.run_id
        self.records = []
        self.busy = True
        self.progress = (0, max(int(ts.episodes), 1))
        self.status = f"Training {method_text(ts)} for {ts.episodes:,} games\u2026"
        host.state_changed()

        def on_record(rec: Any) -> None:  # each progress record, in order
            if run != self.run_id or not isinstance(rec, rl.TrainProgress):
                return
            self.records.append(rec)
            self.agent = rec.agent
            self.progress = (rec.episodes, max(int(ts.episodes), 1))
            self.status = record_text(rec, int(ts.episodes))
            host.state_changed()

        def finish(text: str) -> None:
            if run != self.run_id:
                return
            self.busy = False
            self.status = text + (f" {self.status}" if self.records else "")
            host.state_changed()

        return host.run_job(Job(
            lambda: in_child_process(training_job, ts, risk),  # (beside the window: see in_child_process)
            label=f"Training the 3D tic-tac-toe agent ({ts.episodes:,} games)",
            on_done=lambda _agent: finish("Trained."),
            on_failed=lambda msg: finish(f"Training failed: {msg}."),
            on_cancelled=lambda: finish("Stopped."),
            on_partial=on_record,
        ))

    def stop(self) -> None:
        """Stop training after the current learning-curve point (the agent so far is kept)."""
        if self.busy:
            self.host.cancel_job()

    def load(self, path: str | Path) -> rl.Agent:
        """Load an agent file as the current agent (ValueError naming the file and the problem; nothing
        changes then). Its learning curve is not in the file."""
        if self.busy:
            raise ValueError("stop training before loading an agent")
        agent = rl.load_agent(path)
        self.run_id += 1
        self.agent = agent
        self.records = []
        self.progress = (0, 1)
        self.status = f"Loaded {Path(path).name}."
        self.host.state_changed()
        return agent


__all__ = ["Training", "method_text", "record_text", "training_job"]
