"""The compiled episode loop of the policy-gradient learners (imported only through
:func:`mdpviz.solvers.policy_gradient.compiled_loop`).

The loop's source is :func:`mdpviz.solvers.pg_loop.run_pg`, the same function the reference runs in Python;
numba compiles it here (its helpers are ``register_jitable``), cached next to that module (``cache=True``),
without the GIL (``nogil=True``), as :mod:`mdpviz.solvers._numba_approx` compiles the approximation loop.
"""
from __future__ import annotations

import numba

from mdpviz.solvers import pg_loop

run_pg = numba.njit(cache=True, nogil=True)(pg_loop.run_pg)
