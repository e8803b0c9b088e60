"""Checkers (seed 004): move generation on hand-made positions, the compiled MDP against an
independent brute-force implementation of the rules, hand-derived values, VI = PI, and the agent
beating the random player."""
from __future__ import annotations

from collections import deque
from fractions import Fraction
from functools import lru_cache

import numpy as np
import pytest

from mdpviz.models.checkers import (
    BLACK,
    WHITE,
    Checkers,
    CheckersRules,
    Move,
    Position,
    VariantTooLarge,
    compile_checkers,
)
from mdpviz.solvers import solve


def labels(game: Checkers, pos: Position) -> set[str]:
    return {m.label for m in game.legal_moves(pos)}


# ------------------------------------------------------------------------- move generation
def test_board_geometry_and_start():
    g = Checkers(CheckersRules(size=5, rows=2))
    assert g.squares[:5] == ("a1", "c1", "e1", "b2", "d2")
    assert len(g.squares) == 13
    b = g.board(g.initial_position())
    # rank 1 and 2 black men, ranks 4 and 5 white men, light squares empty
    assert b[0].tolist() == [1, 0, 1, 0, 1] and b[1].tolist() == [0, 1, 0, 1, 0]
    assert b[2].tolist() == [0, 0, 0, 0, 0]
    assert b[3].tolist() == [0, -1, 0, -1, 0] and b[4].tolist() == [-1, 0, -1, 0, -1]
    with pytest.raises(ValueError, match="not a dark square"):
        g.position(black_men=["a2"])
    with pytest.raises(ValueError, match="1..2"):
        CheckersRules(size=5, rows=3)
    with pytest.raises(ValueError, match="4..8"):
        CheckersRules(size=9)
    with pytest.raises(ValueError, match="ply_limit"):
        CheckersRules(ply_limit=0)


def test_men_move_forward_only_and_kings_both_ways():
    g = Checkers(CheckersRules(size=5, ply_limit=None))
    assert labels(g, g.position(black_men=["c3"], white_men=["a5"])) == {"c3-b4", "c3-d4"}
    # a white man moves down the board
    assert labels(g, g.position(black_men=["a1"], white_men=["c3"], to_move=WHITE)) == {"c3-b2", "c3-d2"}
    # kings step back as well as forward
    assert labels(g, g.position(black_kings=["c3"], white_men=["a5"])) == {"c3-b4", "c3-d4", "c3-b2", "c3-d2"}
    assert labels(g, g.position(black_men=["a1"], white_kings=["c3"], to_move=WHITE)) == {
        "c3-b4", "c3-d4", "c3-b2", "c3-d2"}
    # edges: a man on the a-file has one forward square
    assert labels(g, g.position(black_men=["a3"], white_men=["e5"])) == {"a3-b4"}


def test_capture_is_forced_and_optional_when_switched_off():
    forced = Checkers(CheckersRules(size=5, ply_limit=None))
    free = Checkers(CheckersRules(size=5, forced_capture=False, ply_limit=None))
    pos = forced.position(black_men=["c3", "a1"], white_men=["d4"])
    assert labels(forced, pos) == {"c3xe5"}  # the other man's step and c3-b4 are not allowed
    assert labels(free, pos) == {"c3xe5", "c3-b4", "a1-b2"}
    (move,) = forced.legal_moves(pos)
    assert move.captures == ("d4",) and move.path == ("c3", "e5") and move.promotes  # e5 is the last rank
    after = forced.play(pos, move)
    assert after.to_move == WHITE and after.ply == 1
    assert forced.board(after)[4, 4] == 2 and forced.board(after)[3, 3] == 0  # crowned, d4 removed
    assert forced.result(after) == BLACK  # white has no piece left


def test_kings_capture_backwards():
    g = Checkers(CheckersRules(size=5, ply_limit=None))
    pos = g.position(black_kings=["d4"], white_men=["c3"], white_kings=["a5"])
    assert labels(g, pos) == {"d4xb2"}
    # a man cannot capture backwards: the same position with a black man has only steps
    pos = g.position(black_men=["d4"], white_men=["c3"], white_kings=["a5"])
    assert labels(g, pos) == {"d4-c5", "d4-e5"}


def test_multi_jump_chain_and_its_options():
    pos_args = dict(black_men=["a1"], white_men=["b2", "d4"], white_kings=["f6"])
    full = Checkers(CheckersRules(size=6, rows=1, ply_limit=None))
    assert labels(full, full.position(**pos_args)) == {"a1xc3xe5"}
    (m,) = full.legal_moves(full.position(**pos_args))
    assert m.captures == ("b2", "d4") and not m.promotes
    single = Checkers(CheckersRules(size=6, multi_jump=False, ply_limit=None))
    assert labels(single, single.position(**pos_args)) == {"a1xc3"}
    # optional capture with multi-jump: the chain may stop after any jump, or not capture at all
    free = Checkers(CheckersRules(size=6, forced_capture=False, ply_limit=None))
    assert labels(free, free.position(**pos_args)) == {"a1xc3", "a1xc3xe5"}
    # f4 cannot be jumped from e3: g5 is off the 6x6 board
    edge = full.position(black_men=["c1"], white_men=["d2", "d4", "f4"], white_kings=["a5"])
    assert labels(full, edge) == {"c1xe3xc5"}


def test_branching_chains():
    g = Checkers(CheckersRules(size=8, rows=3, ply_limit=None))
    # from c3 over d4 to e5, then over d6 to c7 or over f6 to g7
    pos = g.position(black_men=["c3"], white_men=["d4", "d6", "f6"], white_kings=["a7"])
    assert labels(g, pos) == {"c3xe5xc7", "c3xe5xg7"}


def test_promotion_ends_a_capture():
    g = Checkers(CheckersRules(size=6, rows=2, ply_limit=None))
    # b4 x c5 lands on d6 (the last rank): crowned, so the move ends although a king could go on
    # over e5 to f4
    pos = g.position(black_men=["b4"], white_men=["c5", "e5"])
    (m,) = g.legal_moves(pos)
    assert m.label == "b4xd6" and m.promotes
    after = g.play(pos, m)
    assert g.board(after)[5, 3] == 2
    # a plain step onto the last rank crowns too
    pos = g.position(black_men=["c5"], white_men=["a1"])
    assert {(m.label, m.promotes) for m in g.legal_moves(pos)} == {("c5-b6", True), ("c5-d6", True)}
    # a white man crowns on rank 1
    pos = g.position(black_men=["f6"], white_men=["b2"], to_move=WHITE)
    assert {(m.label, m.promotes) for m in g.legal_moves(pos)} == {("b2-a1", True), ("b2-c1", True)}


def test_a_captured_piece_is_not_jumped_twice_and_a_king_may_return_to_its_square():
    g = Checkers(CheckersRules(size=8, rows=3, ply_limit=None))
    pos = g.position(black_kings=["c3"], white_men=["d4", "f4", "f2", "d2"])
    assert labels(g, pos) == {"c3xe5xg3xe1xc3", "c3xe1xg3xe5xc3"}
    for m in g.legal_moves(pos):
        assert sorted(m.captures) == ["d2", "d4", "f2", "f4"]
        after = g.play(pos, m)
        assert after.white == 0 and g.board(after)[2, 2] == 2


def test_no_piece_or_no_move_loses_and_the_ply_limit_draws():
    g = Checkers(CheckersRules(size=4, ply_limit=10))
    blocked = g.position(black_men=["a1"], white_men=["b2", "c3"])  # b2 cannot be jumped: c3 is taken
    assert g.legal_moves(blocked) == [] and g.result(blocked) == WHITE
    assert g.result(g.position(white_men=["b4"])) == WHITE
    assert g.result(g.position(black_men=["a1"], white_men=["d4"], ply=10)) == "draw"
    assert g.result(g.position(black_men=["a1"], white_men=["d4"], ply=9)) is None
    # a side without a move loses even on the last ply
    assert g.result(g.position(black_men=["a1"], white_men=["b2", "c3"], ply=10)) == WHITE
    with pytest.raises(ValueError, match="not a legal move"):
        g.play(g.initial_position(), "a1-a2")
    with pytest.raises(ValueError, match="game is over"):
        g.play(blocked, "a1-b2")


def test_labels_and_play_by_label():
    g = Checkers(CheckersRules(size=4))
    start = g.initial_position()
    assert labels(g, start) == {"a1-b2", "c1-b2", "c1-d2"}
    after = g.play(start, "c1-d2")
    assert labels(g, after) == {"b4-a3", "b4-c3", "d4-c3"}
    assert Move(("a1", "c3", "e5"), ("b2", "d4"), False).label == "a1xc3xe5"


# ------------------------------------------------------------------------- an independent reference
# A deliberately plain implementation of the same rules on (row, column) squares and dicts, used
# to check the bitboard engine and the compiler. It shares no code with mdpviz.models.checkers.
_DIAG = ((1, -1), (1, 1), (-1, -1), (-1, 1))


def ref_moves(n, board, side, forced, multi):
    """[(label, new board)] for ``side`` ('b' moves up, 'w' down); board: {(r, c): 'b'|'B'|'w'|'W'}."""
    opp = "w" if side == "b" else "b"
    up = 1 if side == "b" else -1
    last = n - 1 if side == "b" else 0

    def name(sq):
        return f"{chr(97 + sq[1])}{sq[0] + 1}"

    def dirs(king):
        return _DIAG if king else ((up, -1), (up, 1))

    jumps, steps = [], []
    for sq, p in sorted(board.items()):
        if p.lower() != side:
            continue
        king = p.isupper()

        def chain(cur, path, captured):
            any_jump = False
            for dr, dc in dirs(king):
                over, land = (cur[0] + dr, cur[1] + dc), (cur[0] + 2 * dr, cur[1] + 2 * dc)
                if not (0 <= land[0] < n and 0 <= land[1] < n):
                    continue
                if over in captured or board.get(over, " ").lower() != opp:
                    continue
                if land != sq and land in board:
                    continue
                any_jump = True
                crowned = not king and land[0] == last
                more = chain(land, path + [land], captured | {over}) if multi and not crowned else False
                if not more or not forced:
                    nb = {k: v for k, v in board.items() if k != sq and k not in captured | {over}}
                    nb[land] = p.upper() if (king or crowned) else p
                    jumps.append(("x".join(name(s) for s in path + [land]), nb))
            return any_jump

        chain(sq, [sq], frozenset())
        for dr, dc in dirs(king):
            t = (sq[0] + dr, sq[1] + dc)
            if 0 <= t[0] < n and 0 <= t[1] < n and t not in board:
                nb = dict(board)
                del nb[sq]
                nb[t] = p.upper() if (king or t[0] == last) else p
                steps.append((f"{name(sq)}-{name(t)}", nb))
    return jumps if (jumps and forced) else jumps + steps


def ref_material(board, me):
    score = 0.0
    for p in board.values():
        v = 3.33 if p.isupper() else 1.0
        score += v if p.lower() == me else -v
    return 1.5 * score


def ref_start(n, rows):
    b = {}
    for r in range(n):
        for c in range(n):
            if (r + c) % 2 == 0 and r < rows:
                b[(r, c)] = "b"
            elif (r + c) % 2 == 0 and r >= n - rows:
                b[(r, c)] = "w"
    return b


def ref_mdp(rules: CheckersRules, agent: str = "b"):
    """Brute force: {state: {label: sorted [(next state or 'win'/'draw'/'loss', prob, reward)]}}.

    A state is (the board's sorted items, ply, or None without a ply limit), agent to move.
    """
    n, L, f, m = rules.size, rules.ply_limit, rules.forced_capture, rules.multi_jump
    opp = "w" if agent == "b" else "b"
    board0 = ref_start(n, rules.rows)
    if agent == "b":
        starts = [(board0, 0)]
    else:
        starts = [(nb, 1) for _, nb in ref_moves(n, board0, "b", f, m)]
    key = lambda b, ply: (tuple(sorted(b.items())), ply if L is not None else None)  # noqa: E731
    out: dict = {}
    queue = deque()
    for b, ply in starts:
        if key(b, ply) not in out:
            out[key(b, ply)] = None
            queue.append((b, ply))
    while queue:
        b, ply = queue.popleft()
        rows = {}
        for lab, b1 in ref_moves(n, b, agent, f, m):
            replies = ref_moves(n, b1, opp, f, m)
            if not replies:
                rows[lab] = [("win", 1.0, 100.0)]
                continue
            if L is not None and ply + 1 >= L:
                rows[lab] = [("draw", 1.0, 0.0)]
                continue
            outs = []
            for _, b2 in replies:
                if not ref_moves(n, b2, agent, f, m):
                    outs.append(("loss", 1 / len(replies), -100.0))
                elif L is not None and ply + 2 >= L:
                    outs.append(("draw", 1 / len(replies), 0.0))
                else:
                    k = key(b2, ply + 2)
                    outs.append((k, 1 / len(replies), ref_material(b2, agent)))
                    if k not in out:
                        out[k] = None
                        queue.append((b2, ply + 2))
            rows[lab] = outs
        out[key(b, ply)] = rows
    return out


def mdp_as_ref(cm) -> dict:
    """The compiled MDP in the reference's form."""
    sym = {1: "b", 2: "B", -1: "w", -2: "W"}

    def key(s):
        if s == cm.win:
            return "win"
        if s == cm.draw:
            return "draw"
        if s == cm.loss:
            return "loss"
        b = cm.board(s)
        items = tuple(sorted(((int(r), int(c)), sym[int(b[r, c])]) for r, c in zip(*np.nonzero(b))))
        return (items, int(cm.state_ply[s]) if cm.rules.ply_limit is not None else None)

    m = cm.mdp
    out = {}
    for s in np.flatnonzero(~m.terminal):
        rows = {}
        for r in range(m.state_ptr[s], m.state_ptr[s + 1]):
            t = range(m.row_ptr[r], m.row_ptr[r + 1])
            rows[m.action_labels[m.row_action[r]]] = [(key(int(m.dst[i])), float(m.prob[i]), float(m.reward[i])) for i in t]
        out[key(int(s))] = rows
    return out


def _canon(d: dict) -> dict:
    return {s: {a: sorted((str(k), round(p, 12), round(r, 9)) for k, p, r in outs) for a, outs in rows.items()}
            for s, rows in d.items()}


TINY = [
    CheckersRules(size=4, rows=1, ply_limit=None),
    CheckersRules(size=4, rows=1, ply_limit=12),
    CheckersRules(size=4, rows=1, forced_capture=False, ply_limit=12),
    CheckersRules(size=4, rows=1, multi_jump=False, forced_capture=False, ply_limit=None),
    CheckersRules(size=5, rows=1, ply_limit=6),
    CheckersRules(size=5, rows=2, forced_capture=False, multi_jump=False, ply_limit=3),
]


@pytest.mark.parametrize("rules", TINY, ids=lambda r: r.describe())
@pytest.mark.parametrize("agent", ["black", "white"])
def test_compiled_mdp_equals_an_independent_brute_force(rules, agent):
    cm = compile_checkers(rules, agent=agent)
    ref = ref_mdp(rules, agent[0])
    assert cm.n_states - 3 == len(ref)  # the state count, checked by brute force
    assert cm.mdp.n_rows == sum(len(rows) for rows in ref.values())
    assert cm.mdp.n_transitions == sum(len(o) for rows in ref.values() for o in rows.values())
    assert _canon(mdp_as_ref(cm)) == _canon(ref)  # every state, move, reply, probability and reward


def test_state_counts_of_the_tiny_variants():
    # The numbers the brute force above confirms, written down so that a change shows in review.
    assert compile_checkers(CheckersRules(size=4, ply_limit=None)).n_states == 1175
    assert compile_checkers(CheckersRules(size=4, ply_limit=12)).n_states == 167
    assert compile_checkers(CheckersRules(size=4, ply_limit=None), agent="white").n_states == 1117


def test_the_mdp_is_well_formed_and_agrees_with_the_rules_object():
    cm = compile_checkers(CheckersRules(size=5, ply_limit=10), agent="white")
    m = cm.mdp
    assert list(np.flatnonzero(m.terminal)) == [cm.win, cm.draw, cm.loss]
    sums = np.add.reduceat(m.prob, m.row_ptr[:-1])
    assert np.allclose(sums, 1.0)
    # each row's replies are equally likely
    k = np.diff(m.row_ptr)
    assert np.allclose(m.prob, np.repeat(1.0 / k, k))
    assert abs(cm.start_probs.sum() - 1.0) < 1e-12
    game = cm.game
    for s in range(0, cm.n_states - 3, 37):
        pos = cm.position(s)
        assert pos.to_move == WHITE and pos.ply == cm.state_ply[s]
        assert cm.state_of(pos) == s
        legal = sorted(mv.label for mv in game.legal_moves(pos))
        assert sorted(lab for _, lab in [(a, m.action_labels[a]) for a in m.actions_of(s)]) == legal
        assert [a for a, _ in cm.moves(s)] == list(m.actions_of(s))
        assert cm.material[s] == pytest.approx(game.material(pos, WHITE))
    assert cm.position(cm.win) is None and cm.moves(cm.loss) == []


def test_moves_of_a_clicked_piece_and_their_values():
    cm = compile_checkers(CheckersRules(size=4, ply_limit=12))
    s = int(cm.start_states[0])
    ids = cm.mdp.action_labels.index
    assert [(a, mv.label) for a, mv in cm.moves(s, square="c1")] == [(ids("c1-b2"), "c1-b2"), (ids("c1-d2"), "c1-d2")]
    assert cm.moves(s, square="a3") == []
    with pytest.raises(ValueError, match="not a dark square"):
        cm.moves(s, square="b1")
    sol = solve(cm.mdp, "vi", tol=1e-12)
    q = cm.move_values(s, sol.values)
    assert [lab for _, lab, _ in q] == ["a1-b2", "c1-b2", "c1-d2"]
    assert max(v for _, _, v in q) == pytest.approx(sol.values[s])
    assert cm.action_label(q[0][0]) == "a1-b2"


# ------------------------------------------------------------------------- values
def test_hand_derived_values():
    # 4x4, ply limit 4, gamma 0.1. Black man b2; white men c3, a3. Black must jump b2xd4 and is
    # crowned; White's only reply is a3-b2 (ply 2): R = 1.5 (3.33 - 1) = 3.495. From there the king's
    # only move d4-c3 and either reply reach ply 4: draws, worth 0. So V = 3.495 exactly.
    g = Checkers(CheckersRules(size=4, ply_limit=4))
    cm = compile_checkers(g.rules, start=g.position(black_men=["b2"], white_men=["c3", "a3"]), discount=0.1)
    sol = solve(cm.mdp, "vi", tol=1e-12)
    s0 = int(cm.start_states[0])
    assert cm.move_values(s0, sol.values) == [(0, "b2xd4", pytest.approx(3.495, abs=1e-12))]
    # the seed's value of the start adds its own reward: 1.5 (1 - 2) + 0.1 * 3.495
    assert cm.seed_values(sol.values)[s0] == pytest.approx(-1.5 + 0.3495, abs=1e-12)
    # Black man b2 vs white man d4: b2-c3 is jumped at once (a loss, -100); b2-a3 leads to draws.
    cm = compile_checkers(g.rules, start=g.position(black_men=["b2"], white_men=["d4"]), discount=0.1)
    sol = solve(cm.mdp, "vi", tol=1e-12)
    q = {lab: v for _, lab, v in cm.move_values(int(cm.start_states[0]), sol.values)}
    assert q == {"b2-a3": pytest.approx(0.0, abs=1e-12), "b2-c3": pytest.approx(-100.0, abs=1e-12)}
    assert sol.policy[cm.start_states[0]] == cm.mdp.action_labels.index("b2-a3")
    # a capture of the last piece wins at once: +100
    g5 = Checkers(CheckersRules(size=5))
    cm = compile_checkers(g5.rules, start=g5.position(black_men=["c3"], white_men=["d4"]))
    assert cm.mdp.n_states == 4
    assert solve(cm.mdp, "vi").values[cm.start_states[0]] == 100.0


def test_opponent_to_move_at_the_start_averages_over_its_replies():
    g = Checkers(CheckersRules(size=4, ply_limit=4))
    # White to move, d4 against black b2: White's only move d4-c3 puts Black to move at ply 1,
    # where b2xd4 is forced and takes White's last piece
    pos = g.position(black_men=["b2"], white_men=["d4"], to_move=WHITE)
    cm = compile_checkers(g.rules, start=pos)
    assert cm.start_probs.tolist() == [1.0]
    assert cm.position(int(cm.start_states[0])).ply == 1
    assert [mv.label for _, mv in cm.moves(int(cm.start_states[0]))] == ["b2xd4"]
    assert solve(cm.mdp, "vi").values[cm.start_states[0]] == 100.0


@lru_cache(maxsize=None)
def _ref_seed_value(n, items, ply, L, gamma):
    """The seed's recursion V(s) = R(s) + gamma max_a mean V(s''), terminal values +-100 / 0."""
    board = dict(items)
    best = None
    for _, b1 in ref_moves(n, board, "b", True, True):
        replies = ref_moves(n, b1, "w", True, True)
        if not replies:
            val = Fraction(100)
        elif ply + 1 >= L:
            val = Fraction(0)
        else:
            tot = Fraction(0)
            for _, b2 in replies:
                if not ref_moves(n, b2, "b", True, True):
                    tot += -100
                elif ply + 2 >= L:
                    tot += 0
                else:
                    tot += _ref_seed_value(n, frozenset(b2.items()), ply + 2, L, gamma)
            val = tot / len(replies)
        best = val if best is None else max(best, val)
    mat = Fraction(3, 2) * sum((Fraction(333, 100) if p.isupper() else 1) * (1 if p.lower() == "b" else -1)
                               for p in board.values())
    return mat + gamma * best


def test_values_equal_the_seeds_recursion_exactly():
    rules = CheckersRules(size=4, ply_limit=10)
    gamma = Fraction(1, 2)
    cm = compile_checkers(rules, discount=0.5)
    sol = solve(cm.mdp, "vi", tol=1e-13)
    seed_v = cm.seed_values(sol.values)
    sym = {1: "b", 2: "B", -1: "w", -2: "W"}
    for s in range(cm.n_states - 3):
        b = cm.board(s)
        items = frozenset(((int(r), int(c)), sym[int(b[r, c])]) for r, c in zip(*np.nonzero(b)))
        exact = _ref_seed_value(4, items, int(cm.state_ply[s]), 10, gamma)
        assert seed_v[s] == pytest.approx(float(exact), abs=1e-9)


@pytest.mark.parametrize("rules,gamma", [
    (CheckersRules(size=4, ply_limit=40), 0.1),
    (CheckersRules(size=4, ply_limit=None), 0.9),
    (CheckersRules(size=5, ply_limit=14), 0.9),
    (CheckersRules(size=5, ply_limit=12, forced_capture=False), 1.0),
])
def test_value_iteration_agrees_with_policy_iteration(rules, gamma):
    cm = compile_checkers(rules, discount=gamma)
    vi = solve(cm.mdp, "vi", tol=1e-11)
    pi = solve(cm.mdp, "pi")
    assert vi.converged and pi.converged
    assert np.abs(vi.values - pi.values).max() < 1e-8
    # each solver's policy is greedy for the other's values (ties within 1e-7 allowed)
    q = cm.mdp.q_values(pi.values)
    for pol in (vi.policy, pi.policy):
        live = ~cm.mdp.terminal
        rows = np.array([cm.mdp.row_of(s, pol[s]) for s in np.flatnonzero(live)])
        assert np.all(q[rows] >= pi.values[live] - 1e-7)


# ------------------------------------------------------------------------- play
def test_the_agent_beats_random_on_a_small_variant():
    cm = compile_checkers(CheckersRules(size=4, ply_limit=40))
    sol = solve(cm.mdp, "vi", tol=1e-4)
    exact_agent = cm.outcome_probabilities(sol.policy)
    exact_random = cm.outcome_probabilities(None)
    assert exact_agent["win"] > exact_random["win"] + 0.15
    assert exact_agent["loss"] < exact_random["loss"]
    for d in (exact_agent, exact_random):
        assert d["win"] + d["draw"] + d["loss"] == pytest.approx(1.0)
    agent = cm.play_games(sol.policy, games=4000, seed=11)
    rnd = cm.play_games(None, games=4000, seed=12)
    assert agent.win + agent.draw + agent.loss == 4000 and agent.unfinished == 0
    assert agent.rates()["win"]["ci_low"] > rnd.rates()["win"]["ci_high"]  # clearly more wins
    # the simulation agrees with the exact probabilities (5 standard errors)
    for res, ex in ((agent, exact_agent), (rnd, exact_random)):
        for k in ("win", "draw", "loss"):
            p = ex[k]
            assert abs(getattr(res, k) / res.games - p) <= 5 * np.sqrt(max(p * (1 - p), 1e-4) / res.games)


def test_random_outcomes_are_symmetric_between_colours():
    # random against random: black's win probability is white's loss probability
    b = compile_checkers(CheckersRules(size=5, ply_limit=12)).outcome_probabilities(None)
    w = compile_checkers(CheckersRules(size=5, ply_limit=12), agent="white").outcome_probabilities(None)
    assert b["win"] == pytest.approx(w["loss"], abs=1e-12)
    assert b["draw"] == pytest.approx(w["draw"], abs=1e-12)


def test_without_a_ply_limit_a_greedy_agent_can_cycle_forever():
    # gamma 0.1 on 4x4: a king up, the agent prefers 1.5 x material per move to a win far away;
    # the exact computation reports the games that never end (counted as draws), as the simulator does.
    cm = compile_checkers(CheckersRules(size=4, ply_limit=None), discount=0.1)
    sol = solve(cm.mdp, "vi", tol=1e-4)
    ex = cm.outcome_probabilities(sol.policy)
    assert ex["never_ends"] > 0.05 and ex["draw"] == pytest.approx(ex["never_ends"])
    sim = cm.play_games(sol.policy, games=500, seed=3, max_steps=300)
    assert sim.unfinished > 0 and sim.draw == sim.unfinished


def test_too_large_a_variant_is_refused_with_the_reason():
    with pytest.raises(VariantTooLarge, match=r"refused: more than 1,000 positions"):
        compile_checkers(CheckersRules(size=8, rows=3, ply_limit=None), max_states=1000)
    with pytest.raises(VariantTooLarge, match=r"more than 5,000 transitions"):
        compile_checkers(CheckersRules(size=6, rows=2, ply_limit=40), max_transitions=5000)
    # the layering of (position, ply) states is checked too: 4x4 has few positions but many plies
    with pytest.raises(VariantTooLarge, match=r"more than 2,000 states"):
        compile_checkers(CheckersRules(size=4, ply_limit=60), max_states=2000)


def test_bad_positions_are_rejected():
    g = Checkers(CheckersRules(size=4))
    with pytest.raises(ValueError, match="two pieces"):
        g.position(black_men=["a1"], white_men=["a1"])
    with pytest.raises(ValueError, match="king is marked on an empty square"):
        compile_checkers(g.rules, start=Position(black=1, white=1 << 18, kings=1 << 2))
    with pytest.raises(ValueError, match="agent colour"):
        compile_checkers(g.rules, agent="red")
