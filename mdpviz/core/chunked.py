"""Bounded Monte Carlo: games are played in fixed-size chunks, so memory does not grow with ``--games``.

Every simulation of the CLI and the window (snakes strategies, tic-tac-toe against the random
player, risk tic-tac-toe matchups, checkers) runs its games through :func:`run_chunks`: at most
:data:`CHUNK_GAMES` games are in memory at once and only counts and sums are kept, so a million
games take the memory of 65,536. Between chunks it reports progress (the CLI draws it on a
terminal) and checks for cancellation (the window's Cancel); Ctrl+C raises
:class:`SimulationInterrupted` carrying the number of games played so far. :data:`MAX_GAMES` caps
a run so a typo (one zero too many) is refused at once, with the limit in the message.
Plain numpy; never imports Qt.
"""
from __future__ import annotations

import numbers
from typing import Callable

CHUNK_GAMES = 65_536
"""Games simulated per chunk (a chunk's arrays take a few MB whatever the model)."""

MAX_GAMES = 100_000_000
"""Most games one run may ask for (per strategy or per player); at a few million games per second
that is already minutes of work, and more adds nothing a 95% interval can show."""

Progress = Callable[[int, int, str], None]
"""``progress(done, total, label)``: called after every chunk."""

_reporter: Progress | None = None


def set_reporter(fn: Progress | None) -> Progress | None:
    """Install the default progress reporter (the CLI's terminal line); returns the previous one."""
    global _reporter
    old, _reporter = _reporter, fn
    return old


def reporter() -> Progress | None:
    """The installed default progress reporter, or None."""
    return _reporter


class SimulationInterrupted(KeyboardInterrupt):
    """Ctrl+C during a chunked simulation: ``done`` of ``total`` games had been played."""

    def __init__(self, done: int, total: int, label: str) -> None:
        self.done, self.total, self.label = int(done), int(total), label
        super().__init__(f"interrupted after {self.done:,} of {self.total:,} {label}")


def check_games(n: object, what: str = "games", *, allow_zero: bool = False) -> int:
    """``n`` as an int in 1..MAX_GAMES (0 too if ``allow_zero``); ValueError naming ``what`` and the limit."""
    need = "0 or more" if allow_zero else "at least 1"
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or int(n) < (0 if allow_zero else 1):
        raise ValueError(f"{what} must be {need}, got {n!r}")
    n = int(n)
    if n > MAX_GAMES:
        raise ValueError(f"{what} {n:,} is over the limit of {MAX_GAMES:,} games per run "
                         f"(games are simulated {CHUNK_GAMES:,} at a time; run several seeds for more)")
    return n


def run_chunks(
    total: int,
    step: Callable[[int], None],
    *,
    label: str = "games",
    progress: Progress | None = None,
    cancelled: Callable[[], bool] | None = None,
    chunk: int | None = None,
) -> int:
    """Call ``step(n)`` for chunks of at most ``chunk`` (default :data:`CHUNK_GAMES`) games until
    ``total`` are played.

    Returns the number of games played (less than ``total`` only when ``cancelled()`` said so).
    ``progress`` (default: the installed reporter) is told after every chunk. Ctrl+C inside a
    step raises :class:`SimulationInterrupted` with the games completed before it.
    """
    report = progress if progress is not None else _reporter
    chunk = CHUNK_GAMES if chunk is None else int(chunk)
    done = 0
    try:
        while done < total:
            if cancelled is not None and cancelled():
                break
            n = min(chunk, total - done)
            step(n)
            done += n
            if report is not None:
                report(done, total, label)
    except SimulationInterrupted:
        raise
    except KeyboardInterrupt:
        raise SimulationInterrupted(done, total, label) from None
    return done
