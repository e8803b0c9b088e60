"""The sweep loops of value iteration for small models: one source, run two ways.

Plain Python, no numba import: :mod:`mdpviz.solvers.python_sweeps` runs these functions on lists for
the first sweeps of a small model (so ``mdpviz plan --algorithm vi`` on a 10-state file never
loads the compiler), and :mod:`mdpviz.solvers._numba_kernels` compiles the very same functions
(``register_jitable`` for the helpers, ``njit(cache=True)`` for the drivers) for everything after.
Both evaluate every expression in the same order on IEEE doubles (numba contracts no multiply-add
into an FMA unless asked to with fastmath, which these kernels never are), so a run may hand over
from one to the other between any two sweeps without changing a bit.

The Bellman optimality backup (Sutton and Barto, eq. 4.10):
``Q(s, a) = r(s, a) + gamma * sum_s' p(s' | s, a) V(s')``, max for maximising states and min for
minimising ones, ties within ``tie_tol * (1 + |best|)`` to the lowest row, terminal states (and
states without rows) 0 with action -1. Written for numba as much as for Python: no container other
than the arrays (or lists) passed in, every loop index an int, every number a float.
"""
from __future__ import annotations

import math

INF = math.inf


# ---------------------------------------------------------------------------- in place (Gauss-Seidel)
def backup_state(s, indptr, indices, prob, row_reward, state_ptr, sense, gamma, tie_tol, v, qbuf):
    """(value, row) of state s from values v: opt over its rows, ties to the lowest row (qbuf: room
    for the state's Q-values)."""
    r0 = state_ptr[s]
    r1 = state_ptr[s + 1]
    sg = 1.0 if sense[s] > 0 else -1.0
    best = -INF
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


def gauss_seidel_sweeps(indptr, indices, prob, row_reward, state_ptr, row_action, sense, terminal,
                        gamma, tie_tol, tol, max_sweeps, v, pol, v_prev, pol_prev, stats, qbuf):
    """Up to max_sweeps in-place sweeps in state order (each state sees the values already updated
    in this sweep); stops after the first sweep whose largest change is below tol; how many ran.

    v/pol in: current, out: after the last sweep; v_prev/pol_prev out: before it; stats out:
    largest change, summed |change| (in state order), its argmax, changed count; qbuf: room for
    the Q-values of the state with the most rows."""
    n = len(v)
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


# ---------------------------------------------------------------------------- synchronous (Jacobi)
def row_q(r, indptr, indices, prob, row_reward, gamma, v):
    """Q of row r: ``row_reward[r] + gamma * sum_j prob_j * v[dst_j]`` (the sweep's own arithmetic)."""
    acc = 0.0
    for j in range(indptr[r], indptr[r + 1]):
        acc += prob[j] * v[indices[j]]
    return row_reward[r] + gamma * acc


def lowest_tied_row(r0, r1, sg, thresh, indptr, indices, prob, row_reward, gamma, v):
    """The tie rule in full: the lowest row whose (signed) Q is not below ``thresh``, else the last.

    Called only when a row before the first maximum may be within the tolerance (rare), so the
    Q-values are computed again rather than kept for every state.
    """
    row = r1 - 1
    r = r1
    while r > r0:
        r -= 1
        q = sg * row_q(r, indptr, indices, prob, row_reward, gamma, v)
        if not (q < thresh):
            row = r
    return row


def all_finite(v):
    """True when no entry of v is inf or NaN."""
    for i in range(len(v)):
        if not (abs(v[i]) < INF):
            return False
    return True


def jacobi_sweep(indptr, indices, prob, row_reward, state_ptr, row_action, kind, gamma, tie_tol, k_uniform,
                 dense, full, src_v, src_p, dst_v, dst_p, changed):
    """One synchronous sweep from (src_v, src_p) into (dst_v, dst_p): (largest change, summed
    |change| in state order, its argmax, how many greedy actions changed, their states in
    ``changed[:count]``).

    One pass per state: its rows' products and the reduction together (the first maximum, and the
    best value before it, so the tie rule needs a second look only when that value is within the
    tolerance, or everywhere with ``full``: values that are not all finite, where a NaN row escapes
    the first-maximum pass). ``kind``: +1 maximise, -1 minimise, 0 value 0 and action -1;
    ``k_uniform`` > 0: every state has that many rows (state_ptr is not read); ``dense``: they are
    the actions 0..k-1 (row_action is not read).
    """
    ninf = -INF
    delta = -1.0
    total = 0.0
    arg = -1
    nch = 0
    for s in range(len(src_v)):
        if k_uniform > 0:
            r0 = s * k_uniform
            r1 = r0 + k_uniform
        else:
            r0 = state_ptr[s]
            r1 = state_ptr[s + 1]
        ks = kind[s]
        if ks == 0:
            val = 0.0
            act = -1
        else:
            sg = 1.0 if ks > 0 else -1.0
            prev = ninf  # the best of the rows before the first maximum
            row = r0
            # the first row apart: it is the best so far unless NaN, and no row comes before it
            acc = 0.0
            for j in range(indptr[r0], indptr[r0 + 1]):
                acc += prob[j] * src_v[indices[j]]
            q = row_reward[r0] + gamma * acc
            if ks < 0:  # minimising: -q exactly, as sg * q
                q = -q
            best = q if q > ninf else ninf
            for r in range(r0 + 1, r1):
                acc = 0.0
                for j in range(indptr[r], indptr[r + 1]):
                    acc += prob[j] * src_v[indices[j]]
                q = row_reward[r] + gamma * acc
                if ks < 0:
                    q = -q
                if q > best:
                    prev = best
                    best = q
                    row = r
            thresh = best - tie_tol * (1.0 + abs(best))
            if full or not (prev < thresh):
                row = lowest_tied_row(r0, r1, sg, thresh, indptr, indices, prob, row_reward, gamma, src_v)
            val = sg * best
            act = row - r0 if dense else row_action[row]
        dst_v[s] = val
        dst_p[s] = act
        d = abs(val - src_v[s])
        if d > delta:
            delta = d
            arg = s
        total += d
        if act != src_p[s]:
            changed[nch] = s
            nch += 1
    return delta, total, arg, nch


def jacobi_sweeps(indptr, indices, prob, row_reward, state_ptr, row_action, kind, gamma, tie_tol, k_uniform,
                  dense, tol, max_sweeps, v_in, p_in, va, vb, pa, pb, changed, stats, finite):
    """Up to max_sweeps synchronous sweeps from (v_in, p_in), which are only read; how many ran.

    Sweep 1 writes (va, pa), sweep 2 (vb, pb), sweep 3 (va, pa) again, and so on: the result is in
    (va, pa) when the count is odd, else in (vb, pb) (vb/pb may be va/pa when max_sweeps is 1).
    Stops after the first sweep whose largest change is below tol. Of the last sweep:
    ``changed[:stats[3]]`` the states whose greedy action changed, stats = (largest change, summed
    |change|, its argmax, number changed, 1 if the values are known to be finite else 0).
    ``finite``: v_in is known to hold only finite values (else it is checked).
    """
    n = len(v_in)
    # Q is NaN only where V is not finite (the model's numbers are checked finite); a NaN row
    # escapes the first-maximum pass, so sweeps from such values use the full tie rule everywhere.
    full = not (finite or all_finite(v_in))
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
        delta, total, arg, nch = jacobi_sweep(indptr, indices, prob, row_reward, state_ptr, row_action, kind, gamma,
                                              tie_tol, k_uniform, dense, full, src_v, src_p, dst_v, dst_p, changed)
        done += 1
        # from finite values, a value is not finite only if its change is not: then delta is inf
        if full or not (delta < INF):
            full = not all_finite(dst_v)
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
    stats[4] = 0.0 if full else 1.0
    return done
