"""The numba kernels of :mod:`mdpviz.models.checkers.rules`: move generation and the enumeration.

Imported only through ``rules.py`` (see there for the rules and the bitboard layout); kept in
their own module, at top level, so that numba can cache them (``cache=True``).

Bitboards are int64 in the *compact* layout: dark square (r, c) is bit ``(r*Wc + c) // 2`` with
``Wc`` the odd one of n + 1, n + 2 (so ``r*Wc + c`` is even on dark squares; columns n.. Wc-1 are
guards). A diagonal step is a shift by ``A = (Wc - 1) // 2`` or ``B = (Wc + 1) // 2`` (``<<`` up
the board, ``>>`` down); the highest square of an 8 x 8 board is bit 35, so no shift overflows.
The order of squares is the order of the board layout of :class:`~mdpviz.models.checkers.rules.Position`
(row, then column), so "lowest bit first" visits pieces in the same order in both layouts.

``geo`` (int64[7]) describes the variant: A, B, valid squares, top row, bottom row, forced
capture (0/1), multi-jump (0/1).

A move's *code* names its path: start square (6 bits) | jumps << 6 (5 bits, 0 for a step) |
directions << 11 (2 bits per step or jump: 0 A-up, 1 B-up, 2 A-down, 3 B-down).
"""
from __future__ import annotations

import numba
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

njit = numba.njit

WIN, LOSS, BEYOND, DRAW = -2, -1, -3, -4  # outcome codes in the position graph (>= 0: a position id)
MAX_DEPTH = 40  # jump-chain stack frames (a chain captures at most the 18 inner squares of 8 x 8)
OK, TOO_MANY_POSITIONS, TOO_MANY_TRANSITIONS, TOO_MANY_STATES, TOO_MANY_STATE_TRANSITIONS, INTERNAL, MOVE_BUFFER = (
    0, 1, 2, 3, 4, 5, 6)


@njit(cache=True, nogil=True, inline="always")
def _shift(x, s, up):
    return x << s if up else x >> s


@njit(cache=True, nogil=True)
def has_move(me, them, kings, up, geo):
    """True if the mover (moving up the board if ``up``) has a legal move."""
    if me == 0:
        return False
    empty = geo[2] & ~(me | them)
    mk = me & kings
    up_p = me if up else mk
    down_p = mk if up else me
    for i in range(2):
        s = geo[i]
        if up_p != 0:
            y = up_p << s
            if (y & empty) != 0 or (((y & them) << s) & empty) != 0:
                return True
        if down_p != 0:
            y = down_p >> s
            if (y & empty) != 0 or (((y & them) >> s) & empty) != 0:
                return True
    return False


@njit(cache=True, nogil=True)
def gen_moves(me, them, kings, up, geo, o_me, o_them, o_kings, o_code, stack):
    """Legal moves of the mover into o_* (new me, them, kings, path code), in the fixed order of
    the rules (jumps by piece, depth-first chains; then steps A-up, A-down, B-up, B-down by
    destination); returns their number, or -1 if the buffers are too small.

    ``stack``: int64 (7, MAX_DEPTH) scratch for the jump chains.
    """
    a = geo[0]
    b = geo[1]
    forced = geo[5] != 0
    multi = geo[6] != 0
    cap_out = o_me.size
    empty = geo[2] & ~(me | them)
    mk = me & kings
    if up:
        up_p = me
        down_p = mk
        promo = geo[3]
    else:
        up_p = mk
        down_p = me
        promo = geo[4]
    n = 0
    jumpers = (up_p & (((them >> a) & (empty >> (2 * a))) | ((them >> b) & (empty >> (2 * b))))) | (
        down_p & (((them << a) & (empty << (2 * a))) | ((them << b) & (empty << (2 * b)))))
    if jumpers != 0:
        x = jumpers
        while x != 0:
            p = x & -x
            x ^= p
            is_king = (kings & p) != 0
            if is_king:
                d_lo, d_hi = 0, 3
            elif up:
                d_lo, d_hi = 0, 1
            else:
                d_lo, d_hi = 2, 3
            n = _chains(p, is_king, d_lo, d_hi, promo, them, empty | p, me, kings, a, b, forced, multi,
                        o_me, o_them, o_kings, o_code, n, stack)
            if n < 0:
                return -1
        if forced:
            return n
    for i in range(2):
        s = a if i == 0 else b
        for upward in (True, False):
            src_p = up_p if upward else down_p
            t = _shift(src_p, s, upward) & empty
            while t != 0:
                q = t & -t
                t ^= q
                src = _shift(q, s, not upward)
                if (kings & src) != 0:
                    nk = kings ^ src ^ q
                elif (q & promo) != 0:
                    nk = kings | q
                else:
                    nk = kings
                if n >= cap_out:
                    return -1
                o_me[n] = me ^ src ^ q
                o_them[n] = them
                o_kings[n] = nk
                d = i if upward else 2 + i
                o_code[n] = trailing_zeros(src) | (d << 11)
                n += 1
    return n


@njit(cache=True, nogil=True, inline="always")
def _chains(start, is_king, d_lo, d_hi, promo, them, empty, me, kings, a, b, forced, multi,
            o_me, o_them, o_kings, o_code, n, stack):
    """The depth-first jump chains of the piece on ``start`` (the recursion of the rules written
    with an explicit stack, visiting and emitting in the same order). A captured piece stays on
    the board until the move ends (it blocks landings and cannot be jumped again)."""
    cur = stack[0]
    left = stack[1]
    cap = stack[2]
    dnext = stack[3]
    anyj = stack[4]
    pland = stack[5]
    pcode = stack[6]
    cap_out = o_me.size
    start_idx = trailing_zeros(start)
    cur[0] = start
    left[0] = them
    cap[0] = 0
    dnext[0] = d_lo
    anyj[0] = 0
    pcode[0] = 0  # directions of the jumps so far
    k = 0
    while True:
        if dnext[k] > d_hi:  # every direction tried at depth k: back to the jump that led here
            if k == 0:
                break
            more = anyj[k] != 0
            k -= 1
            if not more or not forced:
                land = pland[k]
                c = cap[k + 1]
                nk = kings & ~c & ~start
                if is_king:
                    nk |= land
                if n >= cap_out:
                    return -1
                o_me[n] = (me ^ start) | land
                o_them[n] = them & ~c
                o_kings[n] = nk
                o_code[n] = start_idx | ((k + 1) << 6) | (pcode[k + 1] << 11)
                n += 1
            continue
        d = dnext[k]
        dnext[k] = d + 1
        s = a if d % 2 == 0 else b
        upward = d < 2
        over = _shift(cur[k], s, upward)
        if (over & left[k]) == 0:
            continue
        land = _shift(over, s, upward)
        if (land & empty) == 0:
            continue
        anyj[k] = 1
        capn = cap[k] | over
        crowned = (not is_king) and (land & promo) != 0
        code = pcode[k] | (d << (2 * k))
        if multi and not crowned:
            if k + 1 >= MAX_DEPTH:
                return -1
            pland[k] = land
            cur[k + 1] = land
            left[k + 1] = left[k] & ~over
            cap[k + 1] = capn
            dnext[k + 1] = d_lo
            anyj[k + 1] = 0
            pcode[k + 1] = code
            k += 1
            continue
        nk = kings & ~capn & ~start
        if is_king or crowned:
            nk |= land
        if n >= cap_out:
            return -1
        o_me[n] = (me ^ start) | land
        o_them[n] = them & ~capn
        o_kings[n] = nk
        o_code[n] = start_idx | ((k + 1) << 6) | (code << 11)
        n += 1
    return n


def moves_buffers(capacity: int = 256):
    """Output buffers and the chain stack for :func:`gen_moves`."""
    return (np.empty(capacity, np.int64), np.empty(capacity, np.int64), np.empty(capacity, np.int64),
            np.empty(capacity, np.int64), np.empty((7, MAX_DEPTH), np.int64))


# ------------------------------------------------------------------------------- hashing
@njit(cache=True, nogil=True, inline="always")
def _hash(x, y, z, mask):
    h = x * np.int64(-7046029254386353131) + y * np.int64(-4658895280553007687) + z * np.int64(7640891576956012809)
    h ^= (h >> 31) & np.int64(0x1FFFFFFFF)
    h *= np.int64(-4265267296055464877)
    h ^= (h >> 29) & np.int64(0x7FFFFFFFF)
    return h & mask


@njit(cache=True, nogil=True)
def _find(table, k0, k1, k2, x, y, z):
    """Slot of key (x, y, z) in the open-addressing ``table`` (ids into k0/k1/k2; -1 empty)."""
    mask = table.size - 1
    h = _hash(x, y, z, mask)
    while True:
        j = table[h]
        if j < 0 or (k0[j] == x and k1[j] == y and k2[j] == z):
            return h
        h = (h + 1) & mask


@njit(cache=True, nogil=True)
def build_table(k0, k1, k2, n):
    """A hash table of the first ``n`` keys (load factor <= 1/2)."""
    size = 1024
    while size < 2 * n + 2:
        size *= 2
    table = np.full(size, -1, np.int64)
    for i in range(n):
        table[_find(table, k0, k1, k2, k0[i], k1[i], k2[i])] = i
    return table


@njit(cache=True, nogil=True)
def lookup(table, k0, k1, k2, x, y, z):
    """Id of key (x, y, z), or -1."""
    return table[_find(table, k0, k1, k2, x, y, z)]


@njit(cache=True, nogil=True, inline="always")
def _grow(a, need):
    if need <= a.size:
        return a
    size = a.size * 2
    while size < need:
        size *= 2
    out = np.empty(size, a.dtype)
    out[: a.size] = a
    return out


@njit(cache=True, nogil=True, inline="always")
def _popcount(x):
    x = x - ((x >> 1) & np.int64(0x5555555555555555))
    x = (x & np.int64(0x3333333333333333)) + ((x >> 2) & np.int64(0x3333333333333333))
    x = (x + (x >> 4)) & np.int64(0x0F0F0F0F0F0F0F0F)
    return (x * np.int64(0x0101010101010101)) >> 56


@njit(cache=True, nogil=True)
def material(k0, k1, k2, man_weight, king_factor):
    """Seed 004's material reward of each position (me, them, kings) for me, in the rules' order of
    operations: w * ((men) + f * kings - (their men) - f * their kings)."""
    n = k0.size
    out = np.empty(n)
    for i in range(n):
        me, them, kings = k0[i], k1[i], k2[i]
        mk = _popcount(me & kings)
        tk = _popcount(them & kings)
        out[i] = man_weight * ((_popcount(me) - mk) + king_factor * mk - (_popcount(them) - tk) - king_factor * tk)
    return out


# ------------------------------------------------------------------------------- enumeration
@njit(cache=True, nogil=True)
def enumerate_positions(s_me, s_them, s_kings, start_ply, up, limit, geo, max_states, max_transitions,
                        move_cap):
    """Breadth-first enumeration of the agent's positions from the start keys (ids in order of
    discovery; position i is expanded at its first ply ``min_ply[i]``): its moves, for each move
    the opponent's replies, and what each reply leads to (a position id, or WIN when the move
    leaves the opponent without a move, LOSS when a reply leaves the agent without one, BEYOND
    when the ply limit ends the game first). ``limit`` < 0: no ply limit.

    Returns (status, info, k0, k1, k2, n_keys, pos_ptr, n_pos, row_move, row_ptr, n_rows, out,
    n_out, move_codes, n_moves); status TOO_MANY_POSITIONS (info: the ply) or
    TOO_MANY_TRANSITIONS (info: positions expanded) when a budget is exceeded, MOVE_BUFFER when a
    position has more than ``move_cap`` moves (call again with a larger one).
    """
    cap = 1024
    k0 = np.empty(cap, np.int64)
    k1 = np.empty(cap, np.int64)
    k2 = np.empty(cap, np.int64)
    min_ply = np.empty(cap, np.int64)
    table = np.full(4096, -1, np.int64)
    n_keys = 0
    mcodes = np.empty(256, np.int64)
    mtable = np.full(1024, -1, np.int64)
    zeros = np.zeros(256, np.int64)
    n_moves = 0
    pos_ptr = np.empty(cap + 1, np.int64)
    row_move = np.empty(cap, np.int64)
    row_ptr = np.empty(cap + 1, np.int64)
    out = np.empty(cap * 4, np.int64)
    pos_ptr[0] = 0
    row_ptr[0] = 0
    n_pos = 0
    n_rows = 0
    n_out = 0
    # move buffers of a fixed size (reallocating them inside the loop costs a third of the time)
    bufs = np.empty((8, move_cap), np.int64)
    a_me, a_them, a_k, a_code = bufs[0], bufs[1], bufs[2], bufs[3]
    r_me, r_them, r_k, r_code = bufs[4], bufs[5], bufs[6], bufs[7]
    stack = np.empty((7, MAX_DEPTH), np.int64)
    for i in range(s_me.size):
        h = _find(table, k0, k1, k2, s_me[i], s_them[i], s_kings[i])
        if table[h] < 0:
            table[h] = n_keys
            k0[n_keys] = s_me[i]
            k1[n_keys] = s_them[i]
            k2[n_keys] = s_kings[i]
            min_ply[n_keys] = start_ply
            n_keys += 1
    i = 0
    while i < n_keys:
        ply = min_ply[i]
        if limit >= 0 and ply >= limit:
            break  # BFS order: every later position is first reached at the limit or beyond
        me, them, kings = k0[i], k1[i], k2[i]
        expand_next = limit < 0 or ply + 2 < limit
        na = gen_moves(me, them, kings, up, geo, a_me, a_them, a_k, a_code, stack)
        if na < 0:
            return (MOVE_BUFFER, 0, k0, k1, k2, n_keys, pos_ptr, n_pos, row_move, row_ptr, n_rows, out, n_out,
                    mcodes, n_moves)
        row_move = _grow(row_move, n_rows + na)
        row_ptr = _grow(row_ptr, n_rows + na + 1)
        for m in range(na):
            c = a_code[m]
            h = _find(mtable, mcodes, zeros, zeros, c, 0, 0)
            mid = mtable[h]
            if mid < 0:
                mid = n_moves
                if n_moves >= mcodes.size:
                    mcodes = _grow(mcodes, n_moves + 1)
                    zeros = np.zeros(mcodes.size, np.int64)
                mcodes[n_moves] = c
                n_moves += 1
                mtable[h] = mid
                if 2 * n_moves > mtable.size:
                    mtable = build_table(mcodes, zeros, zeros, n_moves)
            row_move[n_rows] = mid
            m1, t1, q1 = a_me[m], a_them[m], a_k[m]
            nr = gen_moves(t1, m1, q1, not up, geo, r_me, r_them, r_k, r_code, stack)
            if nr < 0:
                return (MOVE_BUFFER, 0, k0, k1, k2, n_keys, pos_ptr, n_pos, row_move, row_ptr, n_rows, out, n_out,
                        mcodes, n_moves)
            out = _grow(out, n_out + max(nr, 1))
            if nr == 0:
                out[n_out] = WIN
                n_out += 1
            elif limit >= 0 and ply + 1 >= limit:
                out[n_out] = BEYOND  # the game is drawn before the opponent replies
                n_out += 1
            else:
                for r in range(nr):
                    # a reply (t2, m2, k2) from the opponent's side: the agent's pieces are r_them
                    zm, zt, zk = r_them[r], r_me[r], r_k[r]
                    h = _find(table, k0, k1, k2, zm, zt, zk)
                    j = table[h]  # every known position has a move, so look it up first
                    if j < 0:
                        if not has_move(zm, zt, zk, up, geo):
                            out[n_out] = LOSS
                            n_out += 1
                            continue
                        if not expand_next:
                            out[n_out] = BEYOND
                            n_out += 1
                            continue
                        j = n_keys
                        if n_keys >= k0.size:
                            k0 = _grow(k0, n_keys + 1)
                            k1 = _grow(k1, n_keys + 1)
                            k2 = _grow(k2, n_keys + 1)
                            min_ply = _grow(min_ply, n_keys + 1)
                        k0[j] = zm
                        k1[j] = zt
                        k2[j] = zk
                        min_ply[j] = ply + 2
                        table[h] = j
                        n_keys += 1
                        if n_keys > max_states:
                            return (TOO_MANY_POSITIONS, ply + 2, k0, k1, k2, n_keys, pos_ptr, n_pos, row_move,
                                    row_ptr, n_rows, out, n_out, mcodes, n_moves)
                        if 2 * n_keys > table.size:
                            table = build_table(k0, k1, k2, n_keys)
                    out[n_out] = j
                    n_out += 1
            n_rows += 1
            row_ptr[n_rows] = n_out
        n_pos += 1
        pos_ptr = _grow(pos_ptr, n_pos + 1)
        pos_ptr[n_pos] = n_rows
        if n_out > max_transitions:
            return (TOO_MANY_TRANSITIONS, n_pos, k0, k1, k2, n_keys, pos_ptr, n_pos, row_move, row_ptr, n_rows,
                    out, n_out, mcodes, n_moves)
        i += 1
    return (OK, 0, k0, k1, k2, n_keys, pos_ptr, n_pos, row_move, row_ptr, n_rows, out, n_out, mcodes, n_moves)


@njit(cache=True, nogil=True)
def sorted_rows(pos_ptr, row_move, remap):
    """Each position's rows sorted by action id (``remap[row_move]``), as one permutation of rows."""
    n_rows = row_move.size
    perm = np.arange(n_rows)
    for p in range(pos_ptr.size - 1):
        lo, hi = pos_ptr[p], pos_ptr[p + 1]
        for i in range(lo + 1, hi):  # insertion sort: a position has a few moves
            r = perm[i]
            key = remap[row_move[r]]
            j = i - 1
            while j >= lo and remap[row_move[perm[j]]] > key:
                perm[j + 1] = perm[j]
                j -= 1
            perm[j + 1] = r
    return perm


@njit(cache=True, nogil=True)
def layers(n_keys, starts, start_ply, limit, pos_ptr, row_ptr, out, max_states, max_transitions):
    """The (position, ply) states of a ply-limited variant, laid out ply by ply: layer k holds the
    positions reached at ply start_ply + 2k, sorted by position id.

    Returns (status, info, state_position (live states), layer_ptr, n_trans); status
    TOO_MANY_STATES or TOO_MANY_STATE_TRANSITIONS (info: the ply) over a budget.
    """
    stamp = np.full(n_keys, -1, np.int64)
    cap = max(1024, starts.size)
    sp = np.empty(cap, np.int64)
    n = 0
    for j in range(starts.size):
        sp[n] = starts[j]
        n += 1
    layer_ptr = [0]
    lo = 0
    hi = n
    ply = start_ply
    n_trans = 0
    k = 0
    while hi > lo and ply < limit:
        layer_ptr.append(hi)
        nxt = ply + 2 < limit
        sp = _grow(sp, hi + n_keys)  # the next layer holds each position at most once
        for i in range(lo, hi):
            p = sp[i]
            for r in range(pos_ptr[p], pos_ptr[p + 1]):
                if ply + 1 >= limit:
                    n_trans += 1  # at the limit a move has one outcome
                else:
                    n_trans += row_ptr[r + 1] - row_ptr[r]
                if nxt:
                    for o in range(row_ptr[r], row_ptr[r + 1]):
                        d = out[o]
                        if d >= 0 and stamp[d] != k:
                            stamp[d] = k
                            sp[n] = d
                            n += 1
        if hi > max_states:
            return TOO_MANY_STATES, ply, sp[:hi], np.array(layer_ptr), n_trans
        if n_trans > max_transitions:
            return TOO_MANY_STATE_TRANSITIONS, ply, sp[:hi], np.array(layer_ptr), n_trans
        sp[hi:n].sort()
        lo = hi
        hi = n
        ply += 2
        k += 1
    return OK, 0, sp[:lo].copy(), np.array(layer_ptr), n_trans


@njit(cache=True, nogil=True)
def fill_layers(state_position, layer_ptr, start_ply, limit, pos_ptr, perm, row_move, remap, row_ptr, out,
                pmat, n_trans, win_reward, draw_reward, loss_reward):
    """The CSR arrays of a ply-limited variant in the order the core keeps them (states, then each
    state's rows by action id, then each row's replies in the order of the rules).

    Returns (status, state_ptr, row_action, row_ptr, dst, prob, reward); status INTERNAL if an
    outcome beyond the limit turns up inside the horizon (cannot happen).
    """
    n_live = state_position.size
    win, draw, loss = n_live, n_live + 1, n_live + 2
    n_pos = pos_ptr.size - 1
    where = np.full(n_pos, -1, np.int64)
    n_rows = 0
    for s in range(n_live):
        p = state_position[s]
        n_rows += pos_ptr[p + 1] - pos_ptr[p]
    state_ptr = np.empty(n_live + 4, np.int64)
    o_action = np.empty(n_rows, np.int64)
    o_rowptr = np.empty(n_rows + 1, np.int64)
    dst = np.empty(n_trans, np.int64)
    prob = np.empty(n_trans)
    reward = np.empty(n_trans)
    o_rowptr[0] = 0
    r_out = 0
    t = 0
    n_layers = layer_ptr.size - 1
    for k in range(n_layers):
        p_ply = start_ply + 2 * k
        if k + 1 < n_layers:
            base = layer_ptr[k + 1]
            for i in range(layer_ptr[k + 1], layer_ptr[k + 2]):
                where[state_position[i]] = i - base
        for s in range(layer_ptr[k], layer_ptr[k + 1]):
            state_ptr[s] = r_out
            p = state_position[s]
            for ri in range(pos_ptr[p], pos_ptr[p + 1]):
                r = perm[ri]
                o_action[r_out] = remap[row_move[r]]
                if p_ply + 1 >= limit:  # the agent's move reaches the limit: a draw unless the move wins
                    if out[row_ptr[r]] == WIN:
                        dst[t] = win
                        reward[t] = win_reward
                    else:
                        dst[t] = draw
                        reward[t] = draw_reward
                    prob[t] = 1.0
                    t += 1
                else:
                    k_out = row_ptr[r + 1] - row_ptr[r]
                    for o in range(row_ptr[r], row_ptr[r + 1]):
                        d = out[o]
                        if d == WIN:
                            dst[t] = win
                            reward[t] = win_reward
                        elif d == LOSS:
                            dst[t] = loss
                            reward[t] = loss_reward
                        elif p_ply + 2 >= limit:  # the reply reaches the limit: a draw
                            dst[t] = draw
                            reward[t] = draw_reward
                        elif d < 0:
                            return INTERNAL, state_ptr, o_action, o_rowptr, dst, prob, reward
                        else:
                            dst[t] = layer_ptr[k + 1] + where[d]
                            reward[t] = pmat[d]
                        prob[t] = 1.0 / k_out
                        t += 1
                r_out += 1
                o_rowptr[r_out] = t
    for s in range(n_live, n_live + 4):
        state_ptr[s] = r_out
    if t != n_trans:
        return INTERNAL, state_ptr, o_action, o_rowptr, dst, prob, reward
    return OK, state_ptr, o_action, o_rowptr, dst, prob, reward


@njit(cache=True, nogil=True)
def fill_unlimited(n_pos, pos_ptr, perm, row_move, remap, row_ptr, out, pmat, win_reward, loss_reward):
    """The CSR arrays without a ply limit: a state is a position (the graph may have cycles)."""
    win, loss = n_pos, n_pos + 2
    n_rows = pos_ptr[n_pos]
    n_trans = row_ptr[n_rows]
    state_ptr = np.empty(n_pos + 4, np.int64)
    o_action = np.empty(n_rows, np.int64)
    o_rowptr = np.empty(n_rows + 1, np.int64)
    dst = np.empty(n_trans, np.int64)
    prob = np.empty(n_trans)
    reward = np.empty(n_trans)
    o_rowptr[0] = 0
    r_out = 0
    t = 0
    for p in range(n_pos):
        state_ptr[p] = r_out
        for ri in range(pos_ptr[p], pos_ptr[p + 1]):
            r = perm[ri]
            o_action[r_out] = remap[row_move[r]]
            k_out = row_ptr[r + 1] - row_ptr[r]
            for o in range(row_ptr[r], row_ptr[r + 1]):
                d = out[o]
                if d >= 0:
                    dst[t] = d
                    reward[t] = pmat[d]
                elif d == WIN:
                    dst[t] = win
                    reward[t] = win_reward
                else:
                    dst[t] = loss
                    reward[t] = loss_reward
                prob[t] = 1.0 / k_out
                t += 1
            r_out += 1
            o_rowptr[r_out] = t
    for s in range(n_pos, n_pos + 4):
        state_ptr[s] = r_out
    return state_ptr, o_action, o_rowptr, dst, prob, reward
