"""The pure-Python checkers compiler that mdpviz used before its numba kernels, kept ONLY as the
reference of tests/test_checkers_kernels.py (the new compiler must produce the identical MDP).

Copied from mdpviz/models/checkers.py at commit a03ed1a: the bitboard engine (Python ints), the
breadth-first enumeration and the layering; :func:`reference_compile` returns the arrays that the
old ``compile_checkers`` handed to ``TabularMDP.from_transitions`` and stored in ``CheckersMDP``.
"""
from __future__ import annotations

from array import array
from collections import deque
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from mdpviz.models.checkers import (
    BLACK, DRAW_REWARD, KING_FACTOR, LOSS_REWARD, MAN_WEIGHT, WIN_REWARD, CheckersRules, Checkers, Position,
    VariantTooLarge,
)
from mdpviz.core.mdp import TabularMDP

_BUDGET_REASON = (
    ", the budget within which a variant enumerates and solves in under 30 s and 4 GiB on a 2-core "
    "machine; choose a smaller board, fewer rows or a lower ply limit"
)
_WIN, _LOSS, _BEYOND, _DRAW = -2, -1, -3, -4  # outcome codes in the position graph (>= 0: a position id)


class _Engine:
    """Bitboard move generation for one board size and rule set (the only place the rules live).

    Bitboards use bit ``r*W + c`` with ``W = n + 1``: the guard column c = n is never a square,
    so a diagonal shift that leaves the board lands on a guard bit or outside and is masked off.
    Positions are given as (mover's pieces, opponent's pieces, kings) plus the mover's direction.
    """

    def __init__(self, size: int, forced_capture: bool, multi_jump: bool) -> None:
        n = size
        W = n + 1
        self.size, self.W = n, W
        self.forced, self.multi = bool(forced_capture), bool(multi_jump)
        self.squares = [(r, c) for r in range(n) for c in range(n) if (r + c) % 2 == 0]
        self.bits = [r * W + c for r, c in self.squares]
        self.valid = sum(1 << b for b in self.bits)
        self.bits_len = (n - 1) * W + n  # highest bit + 1
        self.names = {r * W + c: f"{chr(ord('a') + c)}{r + 1}" for r, c in self.squares}
        self.bit_of = {v: k for k, v in self.names.items()}
        top = sum(1 << (r * W + c) for r, c in self.squares if r == n - 1)
        bottom = sum(1 << (r * W + c) for r, c in self.squares if r == 0)
        self.top, self.bottom = top, bottom
        # A diagonal step shifts by W - 1 or W + 1: left (<<) is up the board, right (>>) down.
        a, b = W - 1, W + 1
        self.dirs_man = {+1: ((a, True), (b, True)), -1: ((a, False), (b, False))}
        self.dirs_king = ((a, True), (b, True), (a, False), (b, False))

    def start_rows(self, rows: int) -> tuple[int, int]:
        """Bitboards of Black's and White's men at the start."""
        n, W = self.size, self.W
        black = sum(1 << (r * W + c) for r, c in self.squares if r < rows)
        white = sum(1 << (r * W + c) for r, c in self.squares if r >= n - rows)
        return black, white

    def has_move(self, me: int, them: int, kings: int, fwd: int) -> bool:
        """True if the mover (moving in direction ``fwd``: +1 up, -1 down) has a legal move."""
        if not me:
            return False
        empty = self.valid & ~(me | them)
        mk = me & kings
        up_p, down_p = (me, mk) if fwd > 0 else (mk, me)  # pieces that may move up / down
        for s in (self.W - 1, self.W + 1):
            if up_p:
                y = up_p << s
                if y & empty or (y & them) << s & empty:
                    return True
            if down_p:
                y = down_p >> s
                if y & empty or (y & them) >> s & empty:
                    return True
        return False

    def moves(self, me: int, them: int, kings: int, fwd: int) -> list[tuple[tuple[int, ...], int, int, int]]:
        """Legal moves of the mover as (path of bits, new me, new them, new kings), in a fixed order."""
        a, b = self.W - 1, self.W + 1
        empty = self.valid & ~(me | them)
        mk = me & kings
        if fwd > 0:
            up_p, down_p, promo = me, mk, self.top
        else:
            up_p, down_p, promo = mk, me, self.bottom
        out: list[tuple[tuple[int, ...], int, int, int]] = []
        # pieces with a jump: the enemy next to them and an empty square beyond, in some direction
        jumpers = (up_p & (((them >> a) & (empty >> 2 * a)) | ((them >> b) & (empty >> 2 * b)))) | (
            down_p & (((them << a) & (empty << 2 * a)) | ((them << b) & (empty << 2 * b)))
        )
        if jumpers:
            dirs_man, dirs_king = self.dirs_man[fwd], self.dirs_king
            x = jumpers
            while x:
                p = x & -x
                x ^= p
                is_king = bool(kings & p)
                self._chain(p, p, is_king, dirs_king if is_king else dirs_man, promo, them, 0, empty | p,
                            (p.bit_length() - 1,), me, them, kings, out)
            if self.forced:
                return out
        for s in (a, b):
            t = (up_p << s) & empty
            while t:
                q = t & -t
                t ^= q
                src = q >> s
                nk = kings ^ src ^ q if kings & src else (kings | q if q & promo else kings)
                out.append(((src.bit_length() - 1, q.bit_length() - 1), me ^ src ^ q, them, nk))
            t = (down_p >> s) & empty
            while t:
                q = t & -t
                t ^= q
                src = q << s
                nk = kings ^ src ^ q if kings & src else (kings | q if q & promo else kings)
                out.append(((src.bit_length() - 1, q.bit_length() - 1), me ^ src ^ q, them, nk))
        return out

    def _chain(
        self, start: int, cur: int, is_king: bool, dirs: tuple[tuple[int, bool], ...], promo: int, them_left: int,
        captured: int, empty: int, path: tuple[int, ...], me: int, them: int, kings: int, out: list,
    ) -> bool:
        """Depth-first jump chains of the piece that started on ``start`` and stands on ``cur``.

        ``empty`` holds the squares a jump may land on (the start square is empty once the piece
        has left it; captured pieces stay on the board until the move ends, so they block).
        Appends the moves to ``out``; returns True if at least one jump was possible from ``cur``.
        """
        any_jump = False
        for s, left in dirs:
            if left:
                over = cur << s
                if not over & them_left:
                    continue
                land = over << s
            else:
                over = cur >> s
                if not over & them_left:
                    continue
                land = over >> s
            if not land & empty:
                continue
            any_jump = True
            cap = captured | over
            new_path = path + (land.bit_length() - 1,)
            crowned = (not is_king) and bool(land & promo)
            more = False
            if self.multi and not crowned:
                more = self._chain(start, land, is_king, dirs, promo, them_left & ~over, cap, empty, new_path,
                                   me, them, kings, out)
            if not more or not self.forced:
                nk = kings & ~cap & ~start
                if is_king or crowned:
                    nk |= land
                out.append((new_path, (me ^ start) | land, them & ~cap, nk))
        return any_jump


@lru_cache(maxsize=32)
def _engine(size: int, forced_capture: bool, multi_jump: bool) -> _Engine:
    return _Engine(size, forced_capture, multi_jump)


def _fwd(colour: str) -> int:
    return +1 if colour == BLACK else -1




def _material(me: int, them: int, kings: int) -> float:
    mk, tk = (me & kings).bit_count(), (them & kings).bit_count()
    return MAN_WEIGHT * ((me.bit_count() - mk) + KING_FACTOR * mk - (them.bit_count() - tk) - KING_FACTOR * tk)


# ---------------------------------------------------------------------------------- enumeration
@dataclass(frozen=True, eq=False)
class _PositionGraph:
    """Every agent-to-move position reachable (within the ply limit), with its moves and replies."""

    keys: list
    """Position key per id: me | them << S | kings << 2S (agent's pieces, opponent's, kings)."""
    min_ply: np.ndarray
    """int64 per id: the first ply the position is reached at."""
    pos_ptr: np.ndarray
    """int64 (expanded + 1): rows (agent moves) of expanded position i are pos_ptr[i]:pos_ptr[i+1]."""
    row_move: np.ndarray
    """int64 per row: move id (index into ``move_paths``)."""
    row_ptr: np.ndarray
    """int64 (rows + 1): outcomes of row r are row_ptr[r]:row_ptr[r+1]."""
    out: np.ndarray
    """int64 per outcome: position id, or _WIN (the move wins: one outcome), _LOSS, _BEYOND."""
    move_paths: list
    """Path (tuple of bits) per move id."""
    material: np.ndarray
    """float64 per id: the material reward of the position for the agent."""


def _positions(
    engine: _Engine,
    starts: list[tuple[int, int]],
    *,
    fwd: int,
    ply_limit: int | None,
    max_states: int,
    max_transitions: int,
    variant: str,
) -> _PositionGraph:
    """Breadth-first enumeration of the agent's positions from ``starts`` = [(key, ply)].

    Each position is expanded once (at its first ply): its moves, for each move the opponent's
    replies, and whether each reply leaves the agent without a move (loss). Raises
    :class:`VariantTooLarge` as soon as a budget is exceeded.
    """
    S = engine.bits_len
    mask = (1 << S) - 1
    moves, has_move = engine.moves, engine.has_move
    ids: dict[int, int] = {}
    keys: list[int] = []
    min_ply = array("q")
    queue: deque[int] = deque()
    for key, ply in starts:
        if key not in ids:
            ids[key] = len(keys)
            keys.append(key)
            min_ply.append(ply)
            queue.append(key)
    pos_ptr = array("q", [0])
    row_move = array("q")
    row_ptr = array("q", [0])
    out = array("q")
    move_id: dict[tuple[int, ...], int] = {}
    move_paths: list[tuple[int, ...]] = []
    while queue:
        key = queue.popleft()
        i = ids[key]
        ply = min_ply[i]
        if ply_limit is not None and ply >= ply_limit:
            break  # BFS order: every later position is first reached at the limit or beyond
        me, them, kings = key & mask, (key >> S) & mask, key >> (2 * S)
        expand_next = ply_limit is None or ply + 2 < ply_limit
        for path, m1, t1, k1 in moves(me, them, kings, fwd):
            a = move_id.get(path)
            if a is None:
                a = move_id[path] = len(move_paths)
                move_paths.append(path)
            row_move.append(a)
            replies = moves(t1, m1, k1, -fwd)
            if not replies:
                out.append(_WIN)
            elif ply_limit is not None and ply + 1 >= ply_limit:
                out.append(_BEYOND)  # the game is drawn before the opponent replies
            else:
                for _, t2, m2, k2 in replies:
                    z = m2 | t2 << S | k2 << (2 * S)
                    j = ids.get(z)  # every known position has a move, so look it up first
                    if j is None:
                        if not has_move(m2, t2, k2, fwd):
                            out.append(_LOSS)
                            continue
                        if not expand_next:
                            out.append(_BEYOND)
                            continue
                        j = ids[z] = len(keys)
                        keys.append(z)
                        min_ply.append(ply + 2)
                        queue.append(z)
                        if len(keys) > max_states:
                            raise VariantTooLarge(
                                f"checkers variant ({variant}) refused: more than {max_states:,} "
                                f"positions within {ply + 2} plies{_BUDGET_REASON}"
                            )
                    out.append(j)
            row_ptr.append(len(out))
        pos_ptr.append(len(row_move))
        if len(out) > max_transitions:
            raise VariantTooLarge(
                f"checkers variant ({variant}) refused: more than {max_transitions:,} transitions "
                f"after {len(pos_ptr) - 1:,} positions{_BUDGET_REASON}"
            )
    mat = np.fromiter((_material(k & mask, (k >> S) & mask, k >> (2 * S)) for k in keys), dtype=np.float64,
                      count=len(keys))
    return _PositionGraph(
        keys=keys,
        min_ply=np.frombuffer(min_ply, dtype=np.int64).copy(),
        pos_ptr=np.frombuffer(pos_ptr, dtype=np.int64).copy(),
        row_move=np.frombuffer(row_move, dtype=np.int64).copy(),
        row_ptr=np.frombuffer(row_ptr, dtype=np.int64).copy(),
        out=np.frombuffer(out, dtype=np.int64).copy(),
        move_paths=move_paths,
        material=mat,
    )


def _ranges(starts: np.ndarray, stops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Concatenation of ranges starts[i]:stops[i] and, for each element, its range number i."""
    counts = stops - starts
    owner = np.repeat(np.arange(starts.size), counts)
    offs = np.arange(owner.size) - np.repeat(np.cumsum(counts) - counts, counts)
    return starts[owner] + offs, owner


def _start_codes(e: _Engine, pos: Position, *, agent: str, ply_limit: int | None) -> tuple[list[int], int]:
    """Where games start, as position keys (agent to move) or _WIN/_LOSS/_DRAW, and their ply.

    If the opponent is to move in ``pos``, each of its replies is a start (equal probabilities).
    """
    S = e.bits_len
    fwd = _fwd(agent)
    me, them = (pos.black, pos.white) if agent == BLACK else (pos.white, pos.black)
    k = pos.kings
    if pos.to_move == agent:
        if not e.has_move(me, them, k, fwd):
            return [_LOSS], pos.ply
        if ply_limit is not None and pos.ply >= ply_limit:
            return [_DRAW], pos.ply
        return [me | them << S | k << (2 * S)], pos.ply
    replies = e.moves(them, me, k, -fwd)
    if not replies:
        return [_WIN], pos.ply
    if ply_limit is not None and pos.ply >= ply_limit:
        return [_DRAW], pos.ply
    codes = []
    for _, t1, m1, k1 in replies:
        if not e.has_move(m1, t1, k1, fwd):
            codes.append(_LOSS)
        elif ply_limit is not None and pos.ply + 1 >= ply_limit:
            codes.append(_DRAW)
        else:
            codes.append(m1 | t1 << S | k1 << (2 * S))
    return codes, pos.ply + 1


def _label(e: _Engine, path: tuple[int, ...]) -> str:
    jump = abs(path[1] - path[0]) > e.W + 1
    return ("x" if jump else "-").join(e.names[b] for b in path)


def reference_compile(rules: CheckersRules, *, agent: str = BLACK, discount: float = 0.1,
                      max_states: int = 2_000_000, max_transitions: int = 12_000_000,
                      start: Position | None = None) -> dict:
    """The old ``compile_checkers``: the MDP (through ``TabularMDP.from_transitions``) and the arrays
    it stored, as a dict."""
    rules = rules if rules is not None else CheckersRules()
    if int(max_states) < 1 or int(max_transitions) < 1:
        raise ValueError("the state and transition budgets must be at least 1")
    e = _engine(rules.size, rules.forced_capture, rules.multi_jump)
    L = rules.ply_limit
    fwd = +1 if agent == BLACK else -1
    variant = rules.describe()

    game = Checkers(rules)
    start = game.initial_position() if start is None else game.validate(start)
    start_codes, start_ply = _start_codes(e, start, agent=agent, ply_limit=L)
    live = [k for k in start_codes if k >= 0]
    g = _positions(e, [(k, start_ply) for k in live], fwd=fwd, ply_limit=L, max_states=int(max_states),
                   max_transitions=int(max_transitions), variant=variant)
    start_pos = {k: i for i, k in enumerate(g.keys[: len(set(live))])}

    # Action ids: the variant's moves sorted by path (square order), so that ids do not depend on
    # the order the enumeration met them in.
    order = sorted(range(len(g.move_paths)), key=lambda i: g.move_paths[i])
    remap = np.empty(len(order), dtype=np.int64)
    remap[order] = np.arange(len(order))
    labels = tuple(_label(e, g.move_paths[i]) for i in order) or ("none",)
    row_move = remap[g.row_move] if g.row_move.size else g.row_move
    n_expanded = g.pos_ptr.size - 1
    n_out = np.diff(g.row_ptr)  # replies (outcomes) per row

    if L is None:
        # No ply limit: a state is a position; the graph may have cycles (discount < 1 needed).
        n_live = n_expanded
        win, draw, loss = n_live, n_live + 1, n_live + 2
        state_position = np.arange(n_live, dtype=np.int64)
        state_ply = np.full(n_live, -1, dtype=np.int64)
        out_row = np.repeat(np.arange(row_move.size), n_out)
        src = np.repeat(np.arange(n_expanded), np.diff(g.pos_ptr))[out_row]
        action = row_move[out_row]
        prob = 1.0 / n_out[out_row]
        del out_row
        d = g.out
        dst = np.where(d >= 0, d, np.where(d == _WIN, win, loss))
        start_list = [start_pos[k] if k >= 0 else {_WIN: win, _LOSS: loss, _DRAW: draw}[k] for k in start_codes]
    else:
        # Lay the (position, ply) states out ply by ply: layer k holds the positions reached at
        # ply start_ply + 2k, sorted by position id. First pass: the layers and their sizes.
        layer_pos: list[np.ndarray] = []
        cur = np.unique(np.fromiter(start_pos.values(), dtype=np.int64, count=len(start_pos)))
        ply, n_live, n_trans = start_ply, 0, 0
        while cur.size and ply < L:
            layer_pos.append(cur)
            n_live += cur.size
            rows, _ = _ranges(g.pos_ptr[cur], g.pos_ptr[cur + 1])
            outs, _ = _ranges(g.row_ptr[rows], g.row_ptr[rows + 1])
            n_trans += rows.size if ply + 1 >= L else outs.size  # at the limit a move has one outcome
            if n_live > max_states or n_trans > max_transitions:
                raise VariantTooLarge(
                    f"checkers variant ({variant}) refused: more than "
                    + (f"{max_states:,} states" if n_live > max_states else f"{max_transitions:,} transitions")
                    + f" by ply {ply}{_BUDGET_REASON}"
                )
            d = g.out[outs]
            cur = np.unique(d[d >= 0]) if ply + 2 < L else np.zeros(0, dtype=np.int64)
            ply += 2
            del rows, outs, d
        win, draw, loss = n_live, n_live + 1, n_live + 2
        bases = np.cumsum([0] + [lp.size for lp in layer_pos])
        # Second pass: fill the transition arrays layer by layer (one layer's temporaries at a time).
        src = np.empty(n_trans, dtype=np.int64)
        action = np.empty(n_trans, dtype=np.int64)
        dst = np.empty(n_trans, dtype=np.int64)
        prob = np.empty(n_trans)
        t = 0
        for k, cur in enumerate(layer_pos):
            p = start_ply + 2 * k  # the ply of this layer's states
            rows, owner = _ranges(g.pos_ptr[cur], g.pos_ptr[cur + 1])
            if p + 1 >= L:  # the agent's move reaches the limit: one outcome, a draw unless the move wins
                sl = slice(t, t + rows.size)
                src[sl] = bases[k] + owner
                action[sl] = row_move[rows]
                dst[sl] = np.where(g.out[g.row_ptr[rows]] == _WIN, win, draw)
                prob[sl] = 1.0
                t += rows.size
                continue
            outs, orow = _ranges(g.row_ptr[rows], g.row_ptr[rows + 1])
            d = g.out[outs]
            if p + 2 >= L:  # the reply reaches the limit: a draw, unless it leaves me without a move
                code = np.where(d == _WIN, win, np.where(d == _LOSS, loss, draw))
            else:
                if np.any(d == _BEYOND):  # cannot happen: such outcomes are only recorded near the limit
                    raise RuntimeError("checkers compiler: a position beyond the ply limit inside the horizon")
                nxt = layer_pos[k + 1] if k + 1 < len(layer_pos) else np.zeros(1, dtype=np.int64)
                code = np.where(d == _WIN, win, np.where(d == _LOSS, loss, bases[k + 1] + np.searchsorted(nxt, d)))
            sl = slice(t, t + d.size)
            src[sl] = bases[k] + owner[orow]
            r = rows[orow]
            action[sl] = row_move[r]
            dst[sl] = code
            prob[sl] = 1.0 / n_out[r]
            t += d.size
            del rows, owner, outs, orow, d, code, r
        if t != n_trans:  # the two passes must agree
            raise RuntimeError(f"checkers compiler: {t} transitions filled, {n_trans} counted")
        state_position = np.concatenate(layer_pos) if layer_pos else np.zeros(0, dtype=np.int64)
        state_ply = np.repeat(start_ply + 2 * np.arange(len(layer_pos)), [lp.size for lp in layer_pos])
        start_list = [
            bases[0] + int(np.searchsorted(layer_pos[0], start_pos[k])) if k >= 0
            else {_WIN: win, _LOSS: loss, _DRAW: draw}[k]
            for k in start_codes
        ]

    state_position = np.concatenate([state_position, [-1, -1, -1]]).astype(np.int64)
    state_ply = np.concatenate([state_ply, [-1, -1, -1]]).astype(np.int64)
    entry_reward = np.concatenate([g.material[state_position[:-3]], [WIN_REWARD, DRAW_REWARD, LOSS_REWARD]])
    reward = entry_reward[dst]
    del entry_reward
    mdp = TabularMDP.from_transitions(
        n_live + 3, len(labels), src, action, dst, prob, reward,
        discount=discount, terminal=[win, draw, loss], action_labels=labels, mdptype="episodic",
    )
    del src, action, dst, prob, reward
    st, cnt = np.unique(np.asarray(start_list, dtype=np.int64), return_counts=True)
    return dict(mdp=mdp, state_position=state_position, state_ply=state_ply, start_states=st,
                start_probs=cnt / cnt.sum(), win=win, draw=draw, loss=loss, n_positions=n_expanded,
                keys=g.keys, position_material=g.material, bits_len=e.bits_len)
