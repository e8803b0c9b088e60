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

PW_BLOCK = 128
"""numpy's pairwise summation: blocks of at most this many numbers are summed with 8 accumulators."""


@njit(cache=True, nogil=True)
def pairwise_leaves(n, out, count):
    """The block lengths of numpy's pairwise sum of n numbers, in order, into out[count[0]:]."""
    if n <= PW_BLOCK:
        out[count[0]] = n
        count[0] += 1
        return 0
    n2 = n // 2
    n2 -= n2 % 8
    pairwise_leaves(n2, out, count)
    pairwise_leaves(n - n2, out, count)
    return 0


@njit(cache=True, nogil=True)
def pairwise_combine(n, sums, pos):
    """numpy's pairwise sum of n numbers from the sums of its blocks (in order, from sums[pos[0]])."""
    if n <= PW_BLOCK:
        x = sums[pos[0]]
        pos[0] += 1
        return x
    n2 = n // 2
    n2 -= n2 % 8
    a = pairwise_combine(n2, sums, pos)
    return a + pairwise_combine(n - n2, sums, pos)


@njit(cache=True, nogil=True)
def pairwise_blocks(n):
    """(block lengths, their number, room for their sums) of numpy's pairwise sum of n numbers."""
    leaf_len = np.empty(n // 32 + 2, np.int64)
    cnt = np.zeros(1, np.int64)
    pairwise_leaves(n, leaf_len, cnt)
    return leaf_len, cnt[0], np.empty(cnt[0] + 1)


@njit(cache=True, nogil=True)
def store_stats(stats, n, delta, total, arg, nch, pairwise, leaf_sum):
    """The last sweep's figures into stats (see :func:`jacobi_sweeps`); ``total`` is replaced by
    numpy's pairwise sum of the block sums when ``pairwise``."""
    if n == 0:
        delta = 0.0
    if pairwise and n > 0:
        pos = np.zeros(1, np.int64)
        total = pairwise_combine(n, leaf_sum, pos)
    stats[0] = delta
    stats[1] = total
    stats[2] = arg
    stats[3] = nch
    stats[4] = total


@njit(cache=True, nogil=True, inline="always")
def numpy_block_sum(buf, m):
    """numpy's sum of buf[:m] (m <= PW_BLOCK), bit for bit: fewer than 8 numbers added to 0; else
    8 accumulators, combined pairwise, then the rest."""
    if m < 8:
        res = 0.0
        for i in range(m):
            res += buf[i]
        return res
    a0, a1, a2, a3 = buf[0], buf[1], buf[2], buf[3]
    a4, a5, a6, a7 = buf[4], buf[5], buf[6], buf[7]
    i = 8
    while i < m - m % 8:
        a0 += buf[i]
        a1 += buf[i + 1]
        a2 += buf[i + 2]
        a3 += buf[i + 3]
        a4 += buf[i + 4]
        a5 += buf[i + 5]
        a6 += buf[i + 6]
        a7 += buf[i + 7]
        i += 8
    res = ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7))
    while i < m:
        res += buf[i]
        i += 1
    return res


@njit(cache=True, nogil=True)
def row_q(r, indptr, indices, prob, row_reward, pmul, gmul, v):
    """Q of row r: ``row_reward[r] + gmul * sum_j (pmul * prob_j) * v[dst_j]`` (the sweep's own arithmetic)."""
    one = np.uint64(1)
    j = np.uint64(indptr[r])
    e = np.uint64(indptr[r + one])
    acc = 0.0
    while j < e:
        acc += (pmul * prob[j]) * v[np.uint64(indices[j])]
        j += one
    return row_reward[r] + gmul * acc


@njit(cache=True, nogil=True)
def lowest_tied_row(r0, r1, sg, thresh, indptr, indices, prob, row_reward, pmul, gmul, v):
    """The tie rule in full: the lowest row whose (signed) Q is not below ``thresh``, else the last.

    Called only when a row before the first maximum may be within the tolerance (rare), so the
    Q-values are computed again rather than kept for every state.
    """
    one = np.uint64(1)
    row = r1 - one
    r = r1
    while r > r0:
        r -= one
        q = sg * row_q(r, indptr, indices, prob, row_reward, pmul, gmul, v)
        row = row if q < thresh else r
    return row


@njit(cache=True, nogil=True)
def all_finite(v):
    """True when no entry of v is inf or NaN."""
    for i in range(v.size):
        if not (abs(v[i]) < np.inf):
            return False
    return True


@njit(cache=True, nogil=True)
def jacobi_sweeps(indptr, indices, prob, row_reward, state_ptr, row_action, kind,
                  pmul, gmul, tie_tol, k_uniform, dense, pairwise, tol, max_sweeps, v_in, p_in, va, vb, pa, pb,
                  changed, stats):
    """Up to max_sweeps synchronous sweeps from (v_in, p_in), which are only read.

    Sweep 1 writes (va, pa), sweep 2 (vb, pb), sweep 3 (va, pa) again, and so on: the result is
    in (va, pa) when the returned count is odd, else in (vb, pb) (vb/pb may be va/pa when
    max_sweeps is 1). Q(s, a) = row_reward + gmul * sum_j (pmul * prob_j) * V(dst_j): pmul = 1,
    gmul = gamma is the small models' arithmetic, pmul = gamma, gmul = 1 that of a product with
    gamma * P (scipy's CSR product), bit for bit. Of the last sweep: ``changed[:stats[3]]`` the
    states whose greedy action changed, stats = (delta, summed |change|, its argmax, number
    changed, summed |change| again); the sum is in state order, or with ``pairwise`` in numpy's
    pairwise order (= np.abs(new - old).sum(), bit for bit). ``kind`` (int8 per state): +1
    maximise, -1 minimise, 0 value 0 and action -1 (terminal, or no rows). ``k_uniform`` > 0:
    every state has that many rows (state_ptr is not read); ``dense``: they are the actions
    0..k-1, so a row's action is its offset (row_action is not read).

    One pass per state: its rows' products and the reduction together (the first maximum, and
    the best value before it, so the tie rule needs a second look only when that value is within
    the tolerance). The indices are unsigned (numba checks a signed index for a negative
    wrap-around on every access: about 20% of a sparse product). A large sweep is bound by memory
    traffic, so it reads no array it can do without: it moves about as many bytes as scipy's bare
    CSR product plus V and the policy.
    """
    n = v_in.size
    one = np.uint64(1)
    ku = np.uint64(k_uniform)
    # numpy's pairwise sum of |change|, streamed: block lengths, 8 accumulators, block sums
    leaf_len, n_leaves, leaf_sum = pairwise_blocks(n)
    dbuf = np.empty(PW_BLOCK)
    # Q is NaN only where V is not finite (the model's numbers are checked finite); a NaN row
    # escapes the first-maximum pass, so sweeps from such values use the full tie rule everywhere.
    full = not all_finite(v_in)
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
        s = 0
        for li in range(n_leaves):  # the states in numpy's pairwise blocks, so |change| sums as numpy's
            ll = leaf_len[li]
            for lp in range(ll):
                if ku > 0:
                    r0 = np.uint64(s) * ku
                    r1 = r0 + ku
                else:
                    r0 = np.uint64(state_ptr[s])
                    r1 = np.uint64(state_ptr[s + 1])
                ks = kind[s]
                if ks == 0:
                    val = 0.0
                    act = np.int64(-1)
                else:
                    sg = np.float64(ks)
                    best = -np.inf
                    prev = -np.inf  # the best of the rows before the first maximum
                    row = r0
                    j = np.uint64(indptr[r0])
                    r = r0
                    while r < r1:
                        e = np.uint64(indptr[r + one])
                        acc = 0.0
                        while j < e:
                            acc += (pmul * prob[j]) * src_v[np.uint64(indices[j])]
                            j += one
                        q = row_reward[r] + gmul * acc
                        if ks < 0:  # minimising: -q exactly, as sg * q (no multiply per row)
                            q = -q
                        if q > best:
                            prev = best
                            best = q
                            row = r
                        r += one
                    thresh = best - tie_tol * (1.0 + abs(best))
                    if full or not (prev < thresh):
                        row = lowest_tied_row(r0, r1, sg, thresh, indptr, indices, prob, row_reward, pmul, gmul, src_v)
                    val = sg * best
                    act = np.int64(row - r0) if dense else row_action[row]
                dst_v[s] = val
                dst_p[s] = act
                d = abs(val - src_v[s])
                if d > delta:
                    delta = d
                    arg = s
                if pairwise:
                    dbuf[lp] = d
                else:
                    total += d
                changed[nch] = s  # kept only if the action changed (no branch)
                nch += act != src_p[s]
                s += 1
            if pairwise:
                leaf_sum[li] = numpy_block_sum(dbuf, ll)
        done += 1
        # from finite values, a value is not finite only if its change is not: then delta is inf
        full = not all_finite(dst_v) if full or not (delta < np.inf) else False
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
    store_stats(stats, n, delta, total, arg, nch, pairwise, leaf_sum)
    return done


@njit(cache=True, nogil=True)
def jacobi_sweeps_blocked(indptr, indices, prob, row_reward, state_ptr, row_action, kind,
                          pmul, gmul, tie_tol, k_uniform, dense, pairwise, tol, max_sweeps, v_in, p_in, va, vb, pa, pb, changed, stats):
    """:func:`jacobi_sweeps` for models whose values do not fit in the cache: the same arguments
    and results, bit for bit, computed in blocks of at most 128 states.

    Pass 1 computes the Q of every row of a block's states into a small buffer (a tight CSR
    product with no data-dependent branch, so many reads of V are in flight at once); pass 2
    reduces them without a branch. Where V does not fit in the cache these reads wait on memory,
    and the one-pass kernel's branches (which wait on them) would keep fewer of them in flight.
    """
    n = v_in.size
    one = np.uint64(1)
    maxk = 1
    for s in range(n):
        k = state_ptr[s + 1] - state_ptr[s]
        if k > maxk:
            maxk = k
    qblk = np.empty(PW_BLOCK * maxk)
    ku = np.uint64(k_uniform)
    # numpy's pairwise sum of |change|, streamed: block lengths, 8 accumulators, block sums
    leaf_len, n_leaves, leaf_sum = pairwise_blocks(n)
    dbuf = np.empty(PW_BLOCK)
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
        s0 = 0
        for li in range(n_leaves):  # the states in numpy's pairwise blocks, so |change| sums as numpy's
            ll = leaf_len[li]
            s1 = s0 + ll
            # pass 1: Q of every row of the block's states (a tight CSR product into a cached buffer)
            if ku > 0:
                rs = np.uint64(s0) * ku
                re = np.uint64(s1) * ku
            else:
                rs = np.uint64(state_ptr[s0])
                re = np.uint64(state_ptr[s1])
            j = np.uint64(indptr[rs])
            r = rs
            while r < re:
                e = np.uint64(indptr[r + one])
                acc = 0.0
                while j < e:
                    acc += (pmul * prob[j]) * src_v[np.uint64(indices[j])]
                    j += one
                qblk[r - rs] = row_reward[r] + gmul * acc
                r += one
            # pass 2: per state, the optimum, its lowest tied row, the policy and the snapshot's extras
            for lp in range(ll):
                s = s0 + lp
                if ku > 0:
                    r0 = np.uint64(s) * ku - rs
                    r1 = r0 + ku
                else:
                    r0 = np.uint64(state_ptr[s]) - rs
                    r1 = np.uint64(state_ptr[s + 1]) - rs
                ks = kind[s]
                if ks == 0:
                    val = 0.0
                    act = -1
                else:
                    sg = np.float64(ks)
                    best = -np.inf
                    r = r0
                    while r < r1:
                        q = sg * qblk[r]
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
                            row = row if sg * qblk[r] < thresh else r
                    val = sg * best
                    act = np.int64(row - r0) if dense else row_action[row + rs]
                dst_v[s] = val
                dst_p[s] = act
                d = abs(val - src_v[s])
                total += d
                if d > delta:
                    delta = d
                    arg = s
                changed[nch] = s  # kept only if the action changed (no branch)
                nch += act != src_p[s]
                dbuf[lp] = d
            leaf_sum[li] = numpy_block_sum(dbuf, ll)
            s0 = s1
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
    store_stats(stats, n, delta, total, arg, nch, pairwise, leaf_sum)
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
