"""The numba kernels of :mod:`mdpviz.solvers.kernels` (imported only through it; see there).

Kept in their own module, at top level, so that numba can cache them (``cache=True``).
"""
from __future__ import annotations

import numba
import numpy as np

njit = numba.njit


# inline="always": a call per state passes 11 arrays, as costly as the backup itself.
@njit(cache=True, nogil=True, inline="always")
def backup_state(s, indptr, indices, prob, row_reward, state_ptr, sense, gamma, tie_tol, v, qbuf):
    """(value, row) of state s from values v: opt over its rows, ties to the lowest row."""
    r0 = state_ptr[s]
    r1 = state_ptr[s + 1]
    sg = 1.0 if sense[s] > 0 else -1.0
    best = -np.inf
    for r in range(r0, r1):
        acc = 0.0
        for j in range(indptr[r], indptr[r + 1]):
            acc += prob[j] * v[indices[j]]
        q = sg * (row_reward[r] + gamma * acc)
        qbuf[r - r0] = q
        if q > best:
            best = q
    thresh = best - tie_tol * (1.0 + abs(best))
    row = r1 - 1
    for r in range(r0, r1):
        if not (qbuf[r - r0] < thresh):
            row = r
            break
    return sg * best, row

@njit(cache=True, nogil=True)
def run_jacobi(indptr, indices, prob, row_reward, state_ptr, row_action, sense, terminal,
               gamma, tie_tol, tol, max_sweeps, v, pol, v_prev, pol_prev, stats):
    """Up to max_sweeps synchronous sweeps; v/pol in: current, out: after the last sweep;
    v_prev/pol_prev out: before it; stats out: delta, summed |change|, argmax, changed count."""
    n = v.size
    maxk = 1
    for s in range(n):
        k = state_ptr[s + 1] - state_ptr[s]
        if k > maxk:
            maxk = k
    qbuf = np.empty(maxk)
    a = v.copy()
    b = np.empty(n)
    pa = pol.copy()
    pb = np.empty(n, np.int64)
    done = 0
    delta = 0.0
    total = 0.0
    arg = -1
    nch = 0
    for _ in range(max_sweeps):
        delta = -1.0
        total = 0.0
        arg = -1
        nch = 0
        for s in range(n):
            if terminal[s] or state_ptr[s + 1] == state_ptr[s]:
                val = 0.0
                act = -1
            else:
                val, row = backup_state(s, indptr, indices, prob, row_reward, state_ptr, sense, gamma, tie_tol, a, qbuf)
                act = row_action[row]
            b[s] = val
            pb[s] = act
            d = abs(val - a[s])
            total += d
            if d > delta:
                delta = d
                arg = s
            if act != pa[s]:
                nch += 1
        done += 1
        a, b = b, a
        pa, pb = pb, pa
        if delta < tol:
            break
    if n == 0:
        delta = 0.0
    v[:] = a
    v_prev[:] = b
    pol[:] = pa
    pol_prev[:] = pb
    stats[0] = delta
    stats[1] = total
    stats[2] = arg
    stats[3] = nch
    return done

@njit(cache=True, nogil=True)
def run_gauss_seidel(indptr, indices, prob, row_reward, state_ptr, row_action, sense, terminal,
                     gamma, tie_tol, tol, max_sweeps, v, pol, v_prev, pol_prev, stats):
    """Up to max_sweeps in-place sweeps in state order (each state sees the values already
    updated in this sweep); arguments as run_jacobi."""
    n = v.size
    maxk = 1
    for s in range(n):
        k = state_ptr[s + 1] - state_ptr[s]
        if k > maxk:
            maxk = k
    qbuf = np.empty(maxk)
    done = 0
    delta = 0.0
    total = 0.0
    arg = -1
    nch = 0
    for _ in range(max_sweeps):
        v_prev[:] = v
        pol_prev[:] = pol
        delta = -1.0
        total = 0.0
        arg = -1
        nch = 0
        for s in range(n):
            if terminal[s] or state_ptr[s + 1] == state_ptr[s]:
                val = 0.0
                act = -1
            else:
                val, row = backup_state(s, indptr, indices, prob, row_reward, state_ptr, sense, gamma, tie_tol, v, qbuf)
                act = row_action[row]
            d = abs(val - v[s])
            v[s] = val
            if act != pol[s]:
                nch += 1
            pol[s] = act
            total += d
            if d > delta:
                delta = d
                arg = s
        done += 1
        if delta < tol:
            break
    if n == 0:
        delta = 0.0
    stats[0] = delta
    stats[1] = total
    stats[2] = arg
    stats[3] = nch
    return done
