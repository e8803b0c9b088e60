"""A job run in a child process (issue 35 item 8: the 3D agent's training beside the window): what it yields
and returns arrives in order, its error is one line, and closing it ends the child."""
from __future__ import annotations

import multiprocessing as mp
import os
import time

import pytest

from mdpviz.core.jobs import JobProgress, drive, in_child_process


def counting(n: int, fail_at: int = -1):
    """A job generator: progress and the numbers 0..n-1, then their sum and the process id; ValueError at
    ``fail_at``."""
    for i in range(n):
        if i == fail_at:
            raise ValueError(f"no number {i}")
        yield JobProgress(i, n, f"number {i}")
        yield i
    return sum(range(n)), os.getpid()


def forever():
    while True:
        time.sleep(0.01)
        yield None


def test_a_child_job_yields_and_returns_as_the_same_job_here():
    got, progress = [], []
    result = drive(in_child_process(counting, 5), partial=got.append, progress=lambda d, t, s: progress.append(s))
    assert got == [0, 1, 2, 3, 4] and progress == [f"number {i}" for i in range(5)]
    assert result[0] == 10 and result[1] != os.getpid()  # worked out in another process


def test_a_child_jobs_error_is_its_one_line():
    with pytest.raises(ValueError, match="^no number 2$"):
        drive(in_child_process(counting, 5, 2))


def test_closing_a_child_job_ends_the_child():
    gen = in_child_process(forever)
    assert next(gen) is None  # a checkpoint while the child works
    children = mp.active_children()
    assert any(c.name == "mdpviz-job" for c in children)
    gen.close()
    assert not any(c.name == "mdpviz-job" and c.is_alive() for c in mp.active_children())
