"""The learning loop compiled (or loaded from numba's cache) ahead of its first use, timed apart.

``mdpviz learn`` calls :func:`prepare_loop` before it learns, so that its ``seconds`` are learning alone and
the first use's compile is reported apart (``compile_seconds``), with a line on stderr while numba compiles
(issue 35, item 22). Never imports Qt.
"""
from __future__ import annotations

import threading
import time

import numpy as np

from mdpviz.core.mdp import TabularMDP, read_only
from mdpviz.solvers import registry
from mdpviz.solvers.learning import ExactAnswer, LearningSettings, _learn


COMPILE_SECONDS_ESTIMATE = 10
"""About how long numba takes to compile the learning loop the first time (measured 5.5 s at load 2.8 and 15.9 s under a heavier load on this project's
2-core machine under load); :func:`prepare_loop` says so before it starts."""


LOAD_SECONDS_AT_MOST = 3.0
"""Loading the loop from numba's cache takes 0.4-0.6 s on this project's machine: when the cache seems to hold
it but nothing is ready after this long, numba is compiling after all, and :func:`prepare_loop` says so."""


def prepare_loop(*, notify=None) -> float:
    """Compile the learning loop (or load it from numba's cache) ahead of its first use in this process, so
    that a run's timing is learning alone: the seconds it took (0 when already loaded, or without numba).
    ``notify(seconds_estimate)`` is called first when numba's cache does not hold the loop (a compile of
    about :data:`COMPILE_SECONDS_ESTIMATE` seconds follows; the command line says so on stderr), or from a
    timer thread when the cache seemed to hold it but nothing is ready after :data:`LOAD_SECONDS_AT_MOST`."""
    from mdpviz.solvers import kernels

    k = kernels.learning_loop()
    if k is None:
        return 0.0
    loop, summarise = k
    if getattr(loop, "signatures", None) and getattr(summarise, "signatures", None):
        return 0.0
    timer = None
    if notify is not None:
        if not (_on_disk(loop) and _on_disk(summarise)):
            notify(COMPILE_SECONDS_ESTIMATE)
        else:  # cached, but maybe not for these argument types (another numba, another numpy): say so if slow
            timer = threading.Timer(LOAD_SECONDS_AT_MOST, notify, args=(COMPILE_SECONDS_ESTIMATE,))
            timer.daemon = True
            timer.start()
    t = time.perf_counter()
    try:
        mdp = TabularMDP.from_transitions(2, 1, [0], [0], [1], [1.0], [0.0], discount=1.0, terminal=[1])
        settings = LearningSettings(method=registry.DEFAULT_LEARNER, episodes=1, eval_every=0)  # (one loop for all)
        for _step in _learn(mdp, settings, _tiny_exact(mdp), k):
            pass
    finally:
        if timer is not None:
            timer.cancel()
    return time.perf_counter() - t


def _on_disk(dispatcher) -> bool:
    """True when numba's cache file of ``dispatcher`` exists (its index: the loop was compiled before)."""
    import os

    try:
        return os.path.exists(dispatcher._cache._cache_file._index_path)
    except AttributeError:  # another numba version: say nothing
        return True


def _tiny_exact(mdp: TabularMDP) -> ExactAnswer:
    z = read_only(np.zeros(mdp.n_states))
    return ExactAnswer(z, read_only(np.zeros(mdp.n_rows)), read_only(np.ones(mdp.n_rows, bool)),
                       read_only(np.ones(mdp.n_rows)))


__all__ = ["COMPILE_SECONDS_ESTIMATE", "prepare_loop"]
