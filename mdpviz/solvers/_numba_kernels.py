"""The numba kernels of :mod:`mdpviz.solvers.kernels` (imported only through it; see there).

Kept in their own module, at top level, so that numba can cache them (``cache=True``). The sweeps of
small models (in place, and synchronous with gamma outside the sum) are the plain Python functions of
:mod:`mdpviz.solvers.sweep_loops`, compiled here: one source for the interpreter's first sweeps and
the compiled ones after (numba caches them beside that module, keyed by its source). Only the
synchronous sweep of large models (gamma folded into P, prefetching, unsigned indices) is written
here alone.
"""
from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir
from numba.core import cgutils
from numba.extending import intrinsic, register_jitable

from mdpviz.solvers import sweep_loops

njit = numba.njit

# The helpers of the shared loops: numba compiles a call to them where a kernel makes one (the
# functions stay what they are for the interpreter). backup_state inline: a call per state passes
# 11 arrays, as costly as the backup itself.
register_jitable(inline="always")(sweep_loops.backup_state)
for _helper in (sweep_loops.row_q, sweep_loops.lowest_tied_row, sweep_loops.all_finite, sweep_loops.jacobi_sweep):
    register_jitable(_helper)

run_gauss_seidel = njit(cache=True, nogil=True)(sweep_loops.gauss_seidel_sweeps)
"""In-place sweeps: :func:`mdpviz.solvers.sweep_loops.gauss_seidel_sweeps`, compiled."""

jacobi_small_sweeps = njit(cache=True, nogil=True)(sweep_loops.jacobi_sweeps)
"""Synchronous sweeps of small models: :func:`mdpviz.solvers.sweep_loops.jacobi_sweeps`, compiled
(called with unsigned index arrays, so no access checks for a negative wrap-around)."""


def _prefetch_intrinsic(locality: int, doc: str):
    """A numba intrinsic ``f(arr, idx)``: ask the CPU to start loading ``arr[idx]`` (an unsigned
    index) now, with LLVM's cache ``locality`` (0: use once, 3: keep). A hint: it changes no result."""

    def prefetch(typingctx, arr, idx):
        sig = numba.types.void(arr, idx)

        def codegen(context, builder, signature, args):
            aryty = signature.args[0]
            ary = context.make_array(aryty)(context, builder, args[0])
            ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]], wraparound=False)
            i8p = ir.PointerType(ir.IntType(8))
            i32 = ir.IntType(32)
            fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
            fn = builder.module.declare_intrinsic("llvm.prefetch", [i8p], fnty)
            # (address, 0: read, locality, 1: data cache)
            builder.call(fn, [builder.bitcast(ptr, i8p), ir.Constant(i32, 0), ir.Constant(i32, locality),
                              ir.Constant(i32, 1)])
            return context.get_dummy_value()

        return sig, codegen

    prefetch.__doc__ = doc
    prefetch.__name__ = prefetch.__qualname__ = f"prefetch_locality_{locality}"
    return intrinsic(prefetch)


prefetch_stream = _prefetch_intrinsic(0, "Prefetch a line of the model, read once per sweep: it should not "
                                         "push V out of the caches.")
prefetch_keep = _prefetch_intrinsic(3, "Prefetch a value of V, which the sweep reads now and may read again.")


STREAM_AHEAD = 512
"""How far ahead (transitions) a sweep asks for the model's probabilities and destinations, and
(STREAM_AHEAD // 8 rows) its rewards and row pointers: the hardware prefetcher alone runs too
short a distance ahead of a sweep's irregular pace. Measured on this project's machine at 10^5
states: 1.11-1.14 times the bare CSR product, 1.16-1.20 without."""


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
def row_q(r, indptr, indices, prob, row_reward, pmul, v):
    """Q of row r: ``row_reward[r] + sum_j (pmul * prob_j) * v[dst_j]`` (the folded sweep's own arithmetic)."""
    one = np.uint64(1)
    j = np.uint64(indptr[r])
    e = np.uint64(indptr[r + one])
    acc = 0.0
    while j < e:
        acc += (pmul * prob[j]) * v[np.uint64(indices[j])]
        j += one
    return row_reward[r] + acc


@njit(cache=True, nogil=True)
def lowest_tied_row(r0, r1, sg, thresh, indptr, indices, prob, row_reward, pmul, v):
    """The tie rule in full: the lowest row whose (signed) Q is not below ``thresh``, else the last.

    Called only when a row before the first maximum may be within the tolerance (rare), so the
    Q-values are computed again rather than kept for every state.
    """
    one = np.uint64(1)
    row = r1 - one
    r = r1
    while r > r0:
        r -= one
        q = sg * row_q(r, indptr, indices, prob, row_reward, pmul, v)
        row = row if q < thresh else r
    return row


@njit(cache=True, nogil=True)
def jacobi_sweep_once(indptr, indices, prob, row_reward, state_ptr, row_action, kind, pmul, tie_tol,
                      k_uniform, dense, pairwise, full, src_v, src_p, dst_v, dst_p, changed, leaf_len, n_leaves,
                      leaf_sum, dbuf, gather_ahead):
    """One sweep of :func:`jacobi_sweeps` from (src_v, src_p) into (dst_v, dst_p); (delta, summed
    |change|, its argmax, number changed), the sum in state order (with ``pairwise``: numpy's
    block sums into leaf_sum, combined by :func:`store_stats`).

    ``gather_ahead`` is None or a count of transitions: numba compiles one version for each, whose
    loops carry no test of the option. A function of
    its own (not inlined in the loop over sweeps, which swaps the arrays) and an unsigned state
    index: the loop over states keeps its arrays in registers and checks no index for a negative
    wrap-around.

    Software prefetch, a hint that changes no result: every state asks for the model's arrays
    :data:`STREAM_AHEAD` transitions ahead; with ``gather_ahead``, every transition also asks for
    the value V[dst] of the transition that many places ahead. That is for values that do not fit
    in the cache: there each read of V waits on memory, and asking early overlaps the waits;
    where V is cached it only adds work (measured in ``value_iteration.GATHER_AHEAD_MIN_STATES``).
    """
    one = np.uint64(1)
    ku = np.uint64(k_uniform)
    jahead = np.uint64(STREAM_AHEAD)
    rahead = np.uint64(STREAM_AHEAD // 8)
    jlast = np.uint64(max(indices.size, 1) - 1)
    rlast = np.uint64(max(row_reward.size, 1) - 1)
    delta = -1.0
    total = 0.0
    arg = np.int64(-1)
    nch = np.uint64(0)
    s = np.uint64(0)
    for li in range(n_leaves):  # the states in numpy's pairwise blocks, so |change| sums as numpy's
        ll = np.uint64(leaf_len[li])
        lp = np.uint64(0)
        while lp < ll:
            if ku > 0:
                r0 = s * ku
                r1 = r0 + ku
            else:
                r0 = np.uint64(state_ptr[s])
                r1 = np.uint64(state_ptr[s + one])
            ks = kind[s]
            if ks == 0:
                val = 0.0
                act = np.int64(-1)
            else:
                sg = np.float64(ks)
                prev = -np.inf  # the best of the rows before the first maximum
                row = r0
                j = np.uint64(indptr[r0])
                # the streams a few states ahead (clamped to the arrays; never a fault, a hint)
                jp = min(j + jahead, jlast)
                prefetch_stream(prob, jp)
                prefetch_stream(prob, min(jp + np.uint64(8), jlast))  # a state's ~16 probabilities span 2 lines
                prefetch_stream(indices, jp)
                rp = min(r0 + rahead, rlast)
                prefetch_stream(row_reward, rp)
                prefetch_stream(indptr, rp)
                r = r0
                # the first row apart (the same product as the loop below): it is the best so far
                # unless NaN, and no row comes before it, so it needs no comparison (measured at
                # 10^5 states: 1.07-1.11 times the bare CSR product, 1.14-1.18 with the loop alone)
                e = np.uint64(indptr[r + one])
                acc = 0.0
                while j < e:
                    if gather_ahead is not None:
                        prefetch_keep(src_v, np.uint64(indices[min(j + np.uint64(gather_ahead), jlast)]))
                    acc += (pmul * prob[j]) * src_v[np.uint64(indices[j])]
                    j += one
                q = row_reward[r] + acc
                if ks < 0:  # minimising: -q exactly, as sg * q (no multiply per row)
                    q = -q
                best = q if q > -np.inf else -np.inf
                r += one
                while r < r1:
                    e = np.uint64(indptr[r + one])
                    acc = 0.0
                    while j < e:
                        if gather_ahead is not None:
                            prefetch_keep(src_v, np.uint64(indices[min(j + np.uint64(gather_ahead), jlast)]))
                        acc += (pmul * prob[j]) * src_v[np.uint64(indices[j])]
                        j += one
                    q = row_reward[r] + acc
                    if ks < 0:  # minimising: -q exactly, as sg * q (no multiply per row)
                        q = -q
                    if q > best:
                        prev = best
                        best = q
                        row = r
                    r += one
                thresh = best - tie_tol * (1.0 + abs(best))
                if full or not (prev < thresh):
                    row = lowest_tied_row(r0, r1, sg, thresh, indptr, indices, prob, row_reward, pmul, src_v)
                val = sg * best
                act = np.int64(row - r0) if dense else row_action[row]
            dst_v[s] = val
            dst_p[s] = act
            d = abs(val - src_v[s])
            if d > delta:
                delta = d
                arg = np.int64(s)
            if pairwise:
                dbuf[lp] = d
            else:
                total += d
            changed[nch] = np.int64(s)  # kept only if the action changed (no branch)
            nch += np.uint64(act != src_p[s])
            s += one
            lp += one
        if pairwise:
            leaf_sum[li] = numpy_block_sum(dbuf, np.int64(ll))
    return delta, total, arg, np.int64(nch)


@njit(cache=True, nogil=True)
def jacobi_sweeps(indptr, indices, prob, row_reward, state_ptr, row_action, kind,
                  pmul, tie_tol, k_uniform, dense, pairwise, tol, max_sweeps, v_in, p_in, va, vb, pa, pb,
                  changed, stats, gather_ahead, leaf_len, n_leaves, leaf_sum, finite):
    """Up to max_sweeps synchronous sweeps of a large model from (v_in, p_in), which are only read.

    Sweep 1 writes (va, pa), sweep 2 (vb, pb), sweep 3 (va, pa) again, and so on: the result is
    in (va, pa) when the returned count is odd, else in (vb, pb) (vb/pb may be va/pa when
    max_sweeps is 1). Q(s, a) = row_reward + sum_j (pmul * prob_j) * V(dst_j) with pmul = gamma:
    the arithmetic of a product with gamma * P (scipy's CSR product), bit for bit (small models
    keep gamma outside the sum: :func:`mdpviz.solvers.sweep_loops.jacobi_sweeps`).
    Of the last sweep: ``changed[:stats[3]]`` the
    states whose greedy action changed, stats = (delta, summed |change|, its argmax, number
    changed, 1 if the values are known to be finite else 0); the sum is in state order, or with ``pairwise`` in numpy's
    pairwise order (= np.abs(new - old).sum(), bit for bit). ``kind`` (int8 per state): +1
    maximise, -1 minimise, 0 value 0 and action -1 (terminal, or no rows). ``k_uniform`` > 0:
    every state has that many rows (state_ptr is not read); ``dense``: they are the actions
    0..k-1, so a row's action is its offset (row_action is not read).

    One pass per state (:func:`jacobi_sweep_once`): its rows' products and the reduction together
    (the first maximum, and the best value before it, so the tie rule needs a second look only
    when that value is within the tolerance). ``gather_ahead``: None, or how many transitions
    ahead to prefetch V (for models whose V does not fit in the cache). ``leaf_len, n_leaves,
    leaf_sum``: :func:`pairwise_blocks` of the state count, and ``finite``: v_in is known to hold
    only finite values (else it is checked), both kept by the caller from call to call (each is a
    pass a sweep of 10^5 states would otherwise repeat: ~1.5% of it). The indices are unsigned
    (numba checks a signed index for a negative wrap-around on every access: about 20% of a
    sparse product). A large sweep is bound by memory, so it reads no array it can do without: it
    moves about as many bytes as scipy's bare CSR product plus V and the policy.
    """
    n = v_in.size
    dbuf = np.empty(PW_BLOCK)
    # Q is NaN only where V is not finite (the model's numbers are checked finite); a NaN row
    # escapes the first-maximum pass, so sweeps from such values use the full tie rule everywhere.
    full = not (finite or sweep_loops.all_finite(v_in))
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
        delta, total, arg, nch = jacobi_sweep_once(
            indptr, indices, prob, row_reward, state_ptr, row_action, kind, pmul, tie_tol, k_uniform, dense,
            pairwise, full, src_v, src_p, dst_v, dst_p, changed, leaf_len, n_leaves, leaf_sum, dbuf, gather_ahead)
        done += 1
        # from finite values, a value is not finite only if its change is not: then delta is inf
        full = not sweep_loops.all_finite(dst_v) if full or not (delta < np.inf) else False
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
    stats[4] = 0.0 if full else 1.0
    return done
