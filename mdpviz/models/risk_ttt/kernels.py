"""numba kernel of the exact n x n risk tic-tac-toe solve (imported only through
:func:`mdpviz.models.risk_ttt.exact.layer_kernel`; kept at top level so that numba can cache it).

One call backs up a batch of boards of one layer: it decodes each board, finds its lines, and
for each empty cell computes Q with the same operations, in the same order, as the numpy path
(:func:`mdpviz.models.risk_ttt.exact.expand_boards` + :func:`mdpviz.solvers.backward_induction._best`),
so the values are bit-for-bit the same; it writes V and the policy in place. It replaces about
40 numpy passes over (boards x cells) temporaries with one pass and no temporaries.
"""
from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def risk_layer(idx, own, opp, risk, powers, line_masks, tab_x, tab_o, gamma, tie_tol, V, policy, keep_policy, counts):
    """Back up boards ``idx`` (base-3 indices; children already solved) with mark ``own`` to move.

    ``line_masks``: int64 per winning line, bit c set for each of its cells. ``tab_x``/``tab_o``:
    int64 (3**8): the X / O bitmask of every 8-digit base-3 number (boards of at most 16 cells
    are decoded in two look-ups, not 16 divisions). Terminal boards (a
    line, or full) get value 0 and action -1; a board with a line of each mark is invalid (value
    0, not counted). Ties within ``tie_tol * (1 + |best|)`` go to the lowest cell.
    ``counts`` += (states, terminal states, rows of non-terminal states).

    Works in blocks of boards: decode a block into bitmasks (X, O, empty, and the empty cells
    that complete a line of each mark), then one pass per cell over the block (the reads of V
    for one cell form an increasing stream, as in the numpy code's one pass per outcome slot),
    then reduce per board.
    """
    n = powers.size
    n_lines = line_masks.size
    sign = 1.0 if own == 1 else -1.0
    B = 4096
    emask = np.empty(B, np.int64)
    own_done = np.empty(B, np.int64)
    opp_done = np.empty(B, np.int64)
    live = np.empty(B, np.bool_)
    sq = np.empty((n, B))
    n_states = 0
    n_term = 0
    n_rows = 0
    for lo in range(0, idx.size, B):
        m = min(B, idx.size - lo)
        for i in range(m):
            b = idx[lo + i]
            lo8 = b % 6561
            hi8 = b // 6561
            xm = tab_x[lo8] | (tab_x[hi8] << 8)
            om = tab_o[lo8] | (tab_o[hi8] << 8)
            em = ((1 << n) - 1) & ~(xm | om)
            x_line = False
            o_line = False
            xc = 0
            oc = 0
            for l in range(n_lines):
                lm = line_masks[l]
                if xm & lm == lm:
                    x_line = True
                elif om & lm == lm:
                    o_line = True
                else:
                    e = em & lm
                    if e != 0 and e & (e - 1) == 0:  # one empty cell: it completes the line
                        if om & lm == 0:
                            xc |= e
                        elif xm & lm == 0:
                            oc |= e
            emask[i] = em
            if own == 1:
                own_done[i] = xc
                opp_done[i] = oc
            else:
                own_done[i] = oc
                opp_done[i] = xc
            if x_line or o_line or em == 0:
                live[i] = False
                V[b] = 0.0
                if keep_policy:
                    policy[b] = -1
                if not (x_line and o_line):  # a line of each mark: an invalid index, not a state
                    n_states += 1
                    n_term += 1
            else:
                live[i] = True
                n_states += 1
        for c in range(n):
            p1 = risk[c]
            p0 = 1.0 - p1
            s_own = own * powers[c]
            s_opp = opp * powers[c]
            for i in range(m):
                if not live[i] or (emask[i] >> c) & 1 == 0:
                    continue
                b = idx[lo + i]
                r0 = (1.0 if (own_done[i] >> c) & 1 else 0.0) * sign
                r1 = (1.0 if (opp_done[i] >> c) & 1 else 0.0) * -sign
                v0 = V[b + s_own]
                v1 = V[b + s_opp]
                if gamma != 1.0:
                    v0 *= gamma
                    v1 *= gamma
                v0 += r0
                v0 *= p0
                v1 += r1
                v1 *= p1
                qq = 0.0
                qq += v0
                qq += v1
                sq[c, i] = qq if own == 1 else -qq
        for i in range(m):
            if not live[i]:
                continue
            em = emask[i]
            best = -np.inf
            for c in range(n):
                if (em >> c) & 1:
                    n_rows += 1
                    if sq[c, i] > best:
                        best = sq[c, i]
            thresh = best - tie_tol * (1.0 + abs(best))
            act = -1
            for c in range(n):
                if (em >> c) & 1 and sq[c, i] >= thresh:
                    act = c
                    break
            b = idx[lo + i]
            V[b] = best * sign
            if keep_policy:
                policy[b] = act
    counts[0] += n_states
    counts[1] += n_term
    counts[2] += n_rows
