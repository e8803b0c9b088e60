"""The compiled episode loop of the learners (imported only through :func:`mdpviz.solvers.kernels.learning_loop`).

The loop's source is :func:`mdpviz.solvers.learning_loop.run_episodes` (and a snapshot's :func:`~mdpviz.solvers.learning_loop.summarise`), the same function the
reference runs in Python; numba compiles it here (its helpers are ``register_jitable``), cached
next to that module (``cache=True``), without the GIL (``nogil=True``).
"""
from __future__ import annotations

import numba

from mdpviz.solvers import learning_loop

run_episodes = numba.njit(cache=True, nogil=True)(learning_loop.run_episodes)
summarise = numba.njit(cache=True, nogil=True)(learning_loop.summarise)
