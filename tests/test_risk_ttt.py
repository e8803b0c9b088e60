"""Risk tic-tac-toe (seed 003): presets, the 3x3 MDP, backward induction, matchups."""
from __future__ import annotations

import itertools
import json
from fractions import Fraction

import numpy as np
import pytest

from mdpviz.models.risk_ttt import (
    PRESETS,
    STOCHASTIC_3X3,
    RiskLayers,
    check_exact_size,
    compile_risk,
    exact_match,
    exact_requirements,
    expand_boards,
    load_policy_file,
    make_agent,
    parse_risk,
    play_match,
    risk_preset,
    solve_exact,
    state_label,
    swap_index,
    validate_risk,
)
from mdpviz.models.ttt import EMPTY, O, TTT3, X, BoardGeometry
from mdpviz.solvers import run, solve
from mdpviz.solvers.backward_induction import backward_induction_mdp, evaluate_acyclic, mdp_layers
from mdpviz.solvers.value_iteration import value_iteration

# The seed's log of value iteration on the stochastic preset: (max |T(V)-V|, state, mean change).
SEED_LOG_STOCHASTIC = [
    (0.95, "XXOO.XXXO", O, 0.29935094203553664),
    (0.8999999999999999, "XXOX.XOX.", X, 0.18552375371856858),
    (0.8999999999999999, "XXOX..O.X", X, 0.12448458487334439),
    (0.8999999999999999, "XXO...O.X", X, 0.08418015865861354),
    (0.8999999999999999, "X.O...O.X", X, 0.03923012507887873),
    (0.8202119999999999, "X.O...O..", X, 0.013901889434778688),
    (0.7528356, "..X...X..", O, 0.0031635938564860736),
    (0.37447880000000006, "X........", X, 0.0003390430131614532),
    (0.27007661000000005, ".........", X, 2.434657982511494e-05),
    (0.0, None, X, 0.0),
]
SEED_MEANS_CLASSIC = [0.5936175966825926, 0.1732624177409177, 0.06373388623456233, 0.034977012530424595,
                      0.011989542955016677, 0.00018029387902280717, 0.0]


@pytest.fixture(scope="module")
def solved():
    """name -> (game, recorded VI solution) for the presets with fixed vectors."""
    out = {}
    for name in ("stochastic", "classic", "reverse", "half"):
        g = compile_risk(risk_preset(name))
        out[name] = (g, run(value_iteration(g.mdp, tol=1e-12), record=True))
    return out


# ---------------------------------------------------------------------- risk vectors
def test_the_seven_presets():
    assert list(PRESETS) == ["stochastic", "classic", "reverse", "noisy-classic", "noisy-reverse", "half", "random"]
    assert risk_preset("stochastic").tolist() == list(STOCHASTIC_3X3) == [0.9, 0.3, 0.5, 0.2, 0.95, 0.7, 0.6, 0.45, 0.1]
    assert risk_preset("classic").tolist() == [0.0] * 9
    assert risk_preset("reverse", n_cells=16).tolist() == [1.0] * 16
    assert risk_preset("half").tolist() == [0.5] * 9
    nc, nr, rnd = (risk_preset(n, seed=5) for n in ("noisy-classic", "noisy-reverse", "random"))
    assert np.all((0 <= nc) & (nc < 0.1)) and np.all((0.9 < nr) & (nr <= 1)) and np.all((0 <= rnd) & (rnd < 1))
    assert np.array_equal(risk_preset("random", seed=5), rnd)  # seedable
    assert not np.array_equal(risk_preset("random", seed=6), rnd)
    assert np.array_equal(risk_preset("totally random", seed=5), rnd)  # the seed's name works too


def test_bad_presets_and_risk_vectors_are_clear_errors():
    with pytest.raises(ValueError, match="unknown risk preset 'wild'"):
        risk_preset("wild")
    with pytest.raises(ValueError, match="stochastic preset has 9 risks"):
        risk_preset("stochastic", n_cells=16)
    with pytest.raises(ValueError, match="needs 9 entries"):
        validate_risk([0.5] * 8, 9)
    with pytest.raises(ValueError, match=r"risk\[3\] = 1.5 \(cell 3\) is not a number in \[0, 1\]"):
        validate_risk([0, 0, 0, 1.5, 0, 0, 0, 0, 0], 9)
    with pytest.raises(ValueError, match=r"risk\[0\] = -0.1"):
        validate_risk([-0.1] + [0] * 8, 9)
    with pytest.raises(ValueError, match=r"risk\[8\] = nan"):
        validate_risk([0] * 8 + [float("nan")], 9)
    with pytest.raises(ValueError, match="risk entry 2 \\('x'\\) is not a number"):
        parse_risk("0.1,0.2,x,0,0,0,0,0,0", 9)
    assert parse_risk("0.9, 0.3 0.5,0.2,0.95,0.7,0.6,0.45,0.1", 9).tolist() == list(STOCHASTIC_3X3)


# ---------------------------------------------------------------------- the 3x3 MDP
def test_states_are_every_board_and_turn_but_double_wins(solved):
    g, _ = solved["classic"]
    lines = TTT3.lines.tolist()
    double = 0
    for b in itertools.product((EMPTY, X, O), repeat=9):
        owners = {b[l[0]] for l in lines if b[l[0]] != EMPTY and all(b[c] == b[l[0]] for c in l)}
        double += owners == {X, O}
    assert g.n_states == 2 * (3**9 - double)
    s = g.state_of("X.O......", "O")
    assert g.turn_of(s) == O and TTT3.text(g.board_of(s)) == "X.O......"
    assert np.array_equal(g.legal_moves(s), [1, 3, 4, 5, 6, 7, 8])
    assert state_label(g, s) == "X.O......|O"
    with pytest.raises(ValueError, match="line of X and a line of O"):
        g.state_of("XXX/OOO/...")


def test_a_hand_checked_position():
    """X X . / O O X / X O O: only cell 2 is empty. An X there completes the top row (+1), an O
    completes nothing (full board, 0). With P[2] = 0.3: X to move gets 0.7, O to move 0.3."""
    risk = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
    g = compile_risk(risk)
    sol = solve(g.mdp, "vi")
    sx, so = g.state_of("XX./OOX/XOO", "X"), g.state_of("XX./OOX/XOO", "O")
    full = TTT3.index("XXO/OOX/XOO")
    won = TTT3.index("XXX/OOX/XOO")
    assert sorted(g.mdp.outcomes(sx, 2)) == sorted([(g.state_of(won, "O"), 0.7, 1.0), (g.state_of(full, "O"), 0.3, 0.0)])
    assert sol.values[sx] == pytest.approx(0.7, abs=1e-15)
    assert sol.values[so] == pytest.approx(0.3, abs=1e-15)
    q = g.cell_values(sol.values, sx)
    assert q[2] == pytest.approx(0.7, abs=1e-15) and np.isnan(np.delete(q, 2)).all()


def test_cell_values_pick_the_policy(solved):
    g, sol = solved["stochastic"]
    for s in (g.start, g.state_of("X...O....", "X"), g.state_of("X...O....", "O")):
        q = g.cell_values(sol.values, s)
        pick = np.nanargmax(q) if g.turn_of(s) == X else np.nanargmin(q)
        assert pick == sol.policy[s] and np.nanmax(q) * (g.turn_of(s) == X) + np.nanmin(q) * (g.turn_of(s) == O) \
            == pytest.approx(sol.values[s], abs=1e-12)
    assert np.isnan(g.cell_values(sol.values, g.state_of("XXX/OO./...", "O"))).all()  # game over


def test_golden_empty_board_values(solved):
    want = {"stochastic": 0.11966164, "classic": 0.0, "reverse": 0.0, "half": 0.01171875}
    for name, v in want.items():
        g, sol = solved[name]
        assert abs(g.value(sol.values, 0, "X") - v) < 1e-12, name
    g, sol = solved["half"]
    assert Fraction(g.value(sol.values, 0, "X")) == Fraction(3, 256)  # exact in binary


def test_value_iteration_reproduces_the_seeds_log(solved):
    g, sol = solved["stochastic"]
    assert sol.sweeps == len(SEED_LOG_STOCHASTIC) == 10
    prev = np.zeros(g.n_states)
    for sw, (delta, board, turn, mean) in zip(sol.history, SEED_LOG_STOCHASTIC):
        assert sw.delta == pytest.approx(delta, abs=1e-12)
        assert sw.mean_delta == pytest.approx(mean, rel=1e-9, abs=1e-15)
        if board is not None:  # the seed's state attains the maximum (ours may be another tied one)
            s = g.state_of(board, turn)
            assert abs(sw.values[s] - prev[s]) == pytest.approx(delta, abs=1e-12)
        prev = sw.values
    g, sol = solved["classic"]
    assert [sw.mean_delta for sw in sol.history] == pytest.approx(SEED_MEANS_CLASSIC, rel=1e-9, abs=1e-15)
    assert [sw.delta for sw in sol.history] == [1.0] * 6 + [0.0]
    s = g.state_of("XXOXXOOO.", "X")
    assert abs(sol.history[0].values[s]) == 1.0  # the seed's first max-change state


def test_vi_pi_and_backward_induction_agree(solved):
    for name in ("stochastic",):
        g, vi = solved[name]
        pi = solve(g.mdp, "pi")
        bi = run(backward_induction_mdp(g.mdp))
        assert np.abs(pi.values - vi.values).max() < 1e-9
        assert np.abs(bi.values - vi.values).max() < 1e-12
        assert np.array_equal(bi.policy, vi.policy)
        assert bi.sweeps == 10  # layers: 0..9 marks


def test_colour_symmetry(solved):
    """Swapping X and O and the player to move negates the value: V(b, O) = -V(swap(b), X)."""
    for name in ("stochastic", "half"):
        g, sol = solved[name]
        sw = swap_index(TTT3, g.board_index)
        sx = g.states_of(g.board_index, X)
        so = g.states_of(sw, O)
        assert np.abs(sol.values[sx] + sol.values[so]).max() < 1e-12


def test_rotated_and_reflected_boards_have_the_same_value(solved):
    # A uniform risk vector is itself symmetric: every image of a board has its value.
    for name in ("classic", "reverse", "half"):
        g, sol = solved[name]
        images = TTT3.images(g.board_index)
        for t in (X, O):
            base = g.states_of(g.board_index, t)
            for j in range(1, images.shape[1]):
                assert np.abs(sol.values[g.states_of(images[:, j], t)] - sol.values[base]).max() < 1e-12
    # With the stochastic risks, the image of a board has its value in the game whose risks are
    # moved along: b' = b[perm] with P' = P[perm].
    g, sol = solved["stochastic"]
    perm = TTT3.symmetries[3]
    g2 = compile_risk(np.asarray(STOCHASTIC_3X3)[perm])
    sol2 = solve(g2.mdp, "vi")
    img = TTT3.digits(g.board_index)[:, perm].astype(np.int64) @ TTT3.powers
    assert np.abs(sol2.values[g2.states_of(img, X)] - sol.values[g.states_of(g.board_index, X)]).max() < 1e-12
    assert abs(g2.value(sol2.values, 0) - 0.11966164) < 1e-12


# ---------------------------------------------------------------------- backward induction, n x n
@pytest.mark.parametrize("name", ["stochastic", "half", "random"])
def test_layered_solver_matches_value_iteration_on_every_state(name):
    risk = risk_preset(name, seed=11)
    ex = solve_exact(risk, size=3)
    g = compile_risk(risk)
    vi = solve(g.mdp, "vi")
    assert ex.n_states == g.n_states
    boards = g.board_index
    even = TTT3.filled_counts()[boards] % 2 == 0
    swapped = swap_index(TTT3, boards)
    for t in (X, O):
        s = g.states_of(boards, t)
        live = ~g.mdp.terminal[s]
        direct = even if t == X else ~even  # the solved half; the other by colour symmetry
        got = np.where(direct, ex.layered.values[boards], -ex.layered.values[swapped])
        assert np.abs(got[live] - vi.values[s[live]]).max() < 1e-12
        moves = np.where(direct, ex.layered.policy[boards], ex.layered.policy[swapped])
        assert np.array_equal(moves[live], vi.policy[s[live]])
    for s in (g.start, g.state_of("X........", "X"), g.state_of("XO.......", "O"), g.state_of("X.O.X....", "O")):
        assert ex.value(g.board_of(s), g.turn_of(s)) == pytest.approx(vi.values[s], abs=1e-12)
        assert ex.best_move(g.board_of(s), g.turn_of(s)) == vi.policy[s]


def test_layered_solver_on_a_2x2_board():
    """2x2 by hand: every pair of cells is a line, so the second mark of a colour wins.
    After one X and one O, X to move: any landing decides, V = max_c (1 - P[c]) - P[c].
    With one mark m at c1 and O to move on c2: the mark landing is O w.p. 1 - P[c2]; if it has
    m's colour, m wins, else the X-and-O position above follows."""
    P = [0.25, 0.5, 0.75, 0.1]
    cells = range(4)

    def v2(empties):  # one X, one O, X to move
        return max((1 - P[c]) - P[c] for c in empties)

    def v1(c1, m):  # one mark m at c1, O to move
        qs = []
        for c2 in cells:
            if c2 == c1:
                continue
            rest = [c for c in cells if c not in (c1, c2)]
            if m == X:  # O lands: X and O on the board; X lands: X wins
                qs.append((1 - P[c2]) * v2(rest) + P[c2] * 1.0)
            else:  # O lands: O wins; X lands: X and O on the board
                qs.append((1 - P[c2]) * -1.0 + P[c2] * v2(rest))
        return min(qs)

    v0 = max((1 - P[c]) * v1(c, X) + P[c] * v1(c, O) for c in cells)
    ex = solve_exact(P, size=2)
    assert ex.empty_value == pytest.approx(v0, abs=1e-15)
    g = compile_risk(P, geometry=BoardGeometry(size=2))
    assert g.value(solve(g.mdp, "vi").values, 0) == pytest.approx(v0, abs=1e-15)


def test_expansion_of_4x4_boards_matches_the_rules():
    geo = BoardGeometry(size=4)
    risk = risk_preset("random", n_cells=16, seed=2)
    rng = np.random.default_rng(3)
    idx = rng.integers(0, geo.n_boards, size=200)
    ex = expand_boards(geo, risk, idx, O)
    d = geo.digits(idx)
    for r in range(ex.row_state.size):
        i, c = int(ex.row_state[r]), int(ex.row_action[r])
        assert d[i, c] == EMPTY and not ex.terminal[i]
        for slot, mark in ((0, O), (1, X)):
            child = d[i].copy()
            child[c] = mark
            assert ex.child[slot, r] == child.astype(np.int64) @ geo.powers
            won = geo.has_line(child[None], mark)[0]
            assert ex.reward[slot, r] == (0.0 if not won else (1.0 if mark == X else -1.0))
        assert ex.prob[1, r] == risk[c] and ex.prob[0, r] == 1 - risk[c]
    full = ~np.any(d == EMPTY, axis=1)
    assert np.array_equal(ex.terminal, geo.has_line(d, X) | geo.has_line(d, O) | full)


def test_layers_of_the_4x4_game():
    layers = RiskLayers(np.zeros(16), geometry=BoardGeometry(size=4))
    assert layers.n_index == 3**16 and layers.n_layers == 17
    assert layers.layer(1).tolist() == sorted(m * 3**c for m in (1, 2) for c in range(16))
    assert layers.layer(16).size == 2**16


def test_boards_of_5x5_and_more_are_refused_with_their_cost():
    check_exact_size(4)
    pairs, nbytes = exact_requirements(5)
    assert pairs == 2 * 3**25
    with pytest.raises(ValueError, match=r"2 x 3\^25 = 1,694,577,218,886 \(board, turn\) states.*TB"):
        check_exact_size(5)
    with pytest.raises(ValueError, match=r"3\^36"):
        solve_exact(np.zeros(36), size=6)
    with pytest.raises(ValueError, match="at least 2"):
        check_exact_size(1)


def test_acyclic_layers_and_exact_evaluation(solved):
    g, sol = solved["stochastic"]
    lay = mdp_layers(g.mdp)
    src = g.mdp.row_state[np.repeat(np.arange(g.mdp.n_rows), np.diff(g.mdp.row_ptr))]
    live = ~g.mdp.terminal[src]
    assert np.all(lay[g.mdp.dst[live]] > lay[src[live]])
    from mdpviz.solvers import row_weights_deterministic
    from mdpviz.solvers.sweep import policy_to_rows

    W = row_weights_deterministic(g.mdp, policy_to_rows(g.mdp, sol.policy))
    assert np.abs(evaluate_acyclic(g.mdp, W) - sol.values).max() < 1e-12


def test_backward_induction_refuses_a_cycle():
    from mdpviz.core.mdp import TabularMDP

    loop = TabularMDP.from_transitions(2, 1, [0, 1], [0, 0], [1, 0], [1.0, 1.0], [0.0, 0.0], discount=0.9)
    with pytest.raises(ValueError, match="has a cycle"):
        run(backward_induction_mdp(loop))


# ---------------------------------------------------------------------- matchups
def test_random_against_random_classic_is_the_known_result():
    g = compile_risk(risk_preset("classic"))
    r = make_agent("random", g)
    m = exact_match(g, r, r)
    fr = [Fraction(v).limit_denominator(10**6) for v in (m.x_wins, m.o_wins, m.draws)]
    assert fr == [Fraction(737, 1260), Fraction(121, 420), Fraction(8, 63)]
    for v, f in zip((m.x_wins, m.o_wins, m.draws), fr):
        assert abs(v - float(f)) < 1e-12


def test_optimal_agents_draw_classic_tic_tac_toe():
    g = compile_risk(risk_preset("classic"))
    opt = make_agent("optimal", g)
    m = exact_match(g, opt, opt)
    assert (m.x_wins, m.o_wins) == (0.0, 0.0) and m.draws == pytest.approx(1.0, abs=1e-12)
    # and the optimal agent never loses to random play, in either order
    r = make_agent("random", g)
    assert exact_match(g, opt, r).o_wins == 0.0
    assert exact_match(g, r, opt).x_wins == 0.0


def test_optimal_values_are_the_exact_outcome_of_optimal_play(solved):
    g, sol = solved["stochastic"]
    opt = make_agent("optimal", g)
    m = exact_match(g, opt, opt)
    assert m.x_wins + m.o_wins + m.draws == pytest.approx(1.0, abs=1e-12)
    assert m.x_wins - m.o_wins == pytest.approx(0.11966164, abs=1e-12)


def test_matchups_simulated_agree_with_exact_both_orders():
    g = compile_risk(risk_preset("stochastic"))
    opt, rnd, cls = make_agent("optimal", g), make_agent("random", g), make_agent("classic", g)
    for x, o in ((opt, rnd), (rnd, opt), (cls, opt)):
        res = play_match(g, x, o, games=20_000, seed=4)
        assert sum(res.counts) == 20_000 and res.exact is not None
        ex = (res.exact.x_wins, res.exact.o_wins, res.exact.draws)
        from mdpviz.core.simulate import proportion_ci

        lo, hi = proportion_ci(np.array(res.counts), res.games, z=3.29)  # 99.9%, fixed seed
        for j in range(3):
            assert lo[j] <= ex[j] <= hi[j], (x.name, o.name, j)
    # the optimal agent does better against random play than random play does, in each seat
    m1, m2 = exact_match(g, opt, rnd), exact_match(g, rnd, rnd)
    assert m1.x_wins > m2.x_wins
    assert exact_match(g, rnd, opt).o_wins > m2.o_wins


def test_classic_agent_uses_the_p0_policy_in_this_environment():
    g = compile_risk(risk_preset("stochastic"))
    classic = compile_risk(risk_preset("classic"))
    cpol = solve(classic.mdp, "vi").policy
    a = make_agent("classic", g)
    live = np.flatnonzero(~g.mdp.terminal)
    assert np.array_equal(a.probs[live].argmax(axis=1), cpol[live])


def test_policy_file(tmp_path):
    g = compile_risk(risk_preset("half"))
    f = tmp_path / "p.json"
    f.write_text(json.dumps({"         ": 4, "X        ": 8, "XXX OO   ": None}))
    probs, listed = load_policy_file(f, g)
    assert listed == 2
    assert probs[g.state_of(".........", "X"), 4] == 1.0
    assert probs[g.state_of("X........", "O"), 8] == 1.0
    s = g.state_of("XO.......", "X")  # not listed: uniform over the 7 empty cells
    assert probs[s].sum() == pytest.approx(1.0) and probs[s, 2] == pytest.approx(1 / 7)
    f.write_text(json.dumps({"X        ": 0}))
    with pytest.raises(ValueError, match="cell 0 is not empty"):
        load_policy_file(f, g)
    f.write_text(json.dumps({"X??      ": 0}))
    with pytest.raises(ValueError, match="cell 1 is '\\?'"):
        load_policy_file(f, g)
    f.write_text("[1, 2]")
    with pytest.raises(ValueError, match="expected a JSON object"):
        load_policy_file(f, g)


def test_bad_agent_kind():
    g = compile_risk(risk_preset("half"))
    with pytest.raises(ValueError, match="unknown agent 'genius'"):
        make_agent("genius", g)
    with pytest.raises(ValueError, match="not one of its legal actions"):
        make_agent("policy", g, policy=np.zeros(g.n_states, dtype=np.int64))
