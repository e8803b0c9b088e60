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
def jacobi_sweeps(indptr, indices, prob, row_reward, state_ptr, row_action, sense, terminal,
                  pmul, gmul, tie_tol, tol, max_sweeps, v_in, p_in, va, vb, pa, pb, changed, diff, stats):
    """Up to max_sweeps synchronous sweeps from (v_in, p_in), which are only read.

    Sweep 1 writes (va, pa), sweep 2 (vb, pb), sweep 3 (va, pa) again, and so on: the result is
    in (va, pa) when the returned count is odd, else in (vb, pb) (vb/pb may be va/pa when
    max_sweeps is 1). Q(s, a) = row_reward + gmul * sum_j (pmul * prob_j) * V(dst_j): pmul = 1,
    gmul = gamma is the small models' arithmetic, pmul = gamma, gmul = 1 that of a product with
    gamma * P (scipy's CSR product), bit for bit. Of the last sweep: ``changed[:stats[3]]`` the
    states whose greedy action changed, ``diff`` |V_new - V_old| per state (if diff.size == n),
    stats = (delta, summed |change| in state order, its argmax, number changed).

    The transitions of a state's rows are read as one stream (one index, no per-row reload of
    the row pointer), and the indices are unsigned (numba checks a signed index for a negative
    wrap-around on every access: about 20% of a sparse product): with the per-state work kept to
    a few branches, a sweep costs about as much as scipy's bare CSR product.
    """
    n = v_in.size
    maxk = 1
    for s in range(n):
        k = state_ptr[s + 1] - state_ptr[s]
        if k > maxk:
            maxk = k
    qbuf = np.empty(maxk)
    want_diff = diff.size == n
    one = np.uint64(1)
    src_v = v_in
    src_p = p_in
    dst_v = va
    dst_p = pa
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
            r0 = np.uint64(state_ptr[s])
            r1 = np.uint64(state_ptr[s + 1])
            if terminal[s] or r0 == r1:
                val = 0.0
                act = -1
            else:
                sg = 1.0 if sense[s] > 0 else -1.0
                best = -np.inf
                j = np.uint64(indptr[r0])
                r = r0
                while r < r1:
                    e = np.uint64(indptr[r + one])
                    acc = 0.0
                    while j < e:
                        acc += (pmul * prob[j]) * src_v[np.uint64(indices[j])]
                        j += one
                    q = sg * (row_reward[r] + gmul * acc)
                    qbuf[r - r0] = q
                    best = q if q > best else best  # a select, not a branch (random data mispredicts)
                    r += one
                row = r0
                if r1 - r0 > one:
                    # the lowest row within the tie tolerance (else the last), without a branch
                    thresh = best - tie_tol * (1.0 + abs(best))
                    row = r1 - one
                    r = r1
                    while r > r0:
                        r -= one
                        row = row if qbuf[r - r0] < thresh else r
                val = sg * best
                act = row_action[row]
            dst_v[s] = val
            dst_p[s] = act
            d = abs(val - src_v[s])
            if want_diff:
                diff[s] = d
            total += d
            if d > delta:
                delta = d
                arg = s
            if act != src_p[s]:
                changed[nch] = s
                nch += 1
        done += 1
        src_v = dst_v
        src_p = dst_p
        if done % 2 == 1:
            dst_v = vb
            dst_p = pb
        else:
            dst_v = va
            dst_p = pa
        if delta < tol:
            break
    if n == 0:
        delta = 0.0
    stats[0] = delta
    stats[1] = total
    stats[2] = arg
    stats[3] = nch
    return done

@njit(cache=True, nogil=True)
def run_gauss_seidel(indptr, indices, prob, row_reward, state_ptr, row_action, sense, terminal,
                     gamma, tie_tol, tol, max_sweeps, v, pol, v_prev, pol_prev, stats):
    """Up to max_sweeps in-place sweeps in state order (each state sees the values already
    updated in this sweep); v/pol in: current, out: after the last sweep; v_prev/pol_prev out: before it;
    stats out: delta, summed |change|, argmax, changed count."""
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
