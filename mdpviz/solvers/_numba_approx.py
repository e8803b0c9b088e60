"""The compiled episode loop of the learners with linear function approximation (imported only through
:func:`mdpviz.solvers.approximation.compiled_loop`).

The loop's source is :func:`mdpviz.solvers.approx_loop.run_approx`, the same function the reference runs in
Python; numba compiles it here (its helpers are ``register_jitable``), cached next to that module
(``cache=True``), without the GIL (``nogil=True``), as :mod:`mdpviz.solvers._numba_learning` compiles the
tabular loop.
"""
from __future__ import annotations

import numba

from mdpviz.solvers import approx_loop

run_approx = numba.njit(cache=True, nogil=True)(approx_loop.run_approx)
