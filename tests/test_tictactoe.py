"""Board rules and tic-tac-toe against a uniformly random opponent (seed 001)."""
from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from mdpviz.core.simulate import proportion_ci
from mdpviz.models.ttt import (
    EMPTY,
    O,
    TTT3,
    X,
    BoardGeometry,
    VsRandomSettings,
    compile_vs_random,
    move_reports,
    outcome_matrix,
    outcome_probabilities,
    simulate_outcomes,
    swap_marks,
)
from mdpviz.solvers import hitting_probabilities, row_weights_deterministic, solve
from mdpviz.solvers.sweep import policy_to_rows

SEED_LINES = [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]]


def _py_winner(board: tuple[int, ...], lines) -> set[int]:
    return {board[line[0]] for line in lines if board[line[0]] != EMPTY and all(board[c] == board[line[0]] for c in line)}


@pytest.fixture(scope="module")
def games():
    """Both orders of play with the seed's rewards, solved by VI and PI."""
    out = {}
    for first in ("opponent", "agent"):
        g = compile_vs_random(VsRandomSettings(agent="O", first=first))
        out[first] = (g, solve(g.mdp, "vi"), solve(g.mdp, "pi"))
    return out


# ---------------------------------------------------------------------- board rules
def test_lines_of_the_classic_board_are_the_seeds_win_conditions():
    assert sorted(sorted(map(int, l)) for l in TTT3.lines) == sorted(SEED_LINES)


def test_line_and_symmetry_counts_in_other_shapes():
    assert len(BoardGeometry(size=4).lines) == 10  # 4 rows, 4 columns, 2 diagonals
    assert len(BoardGeometry(size=4, line=3).lines) == 4 * 2 + 4 * 2 + 4 * 2  # rows, cols, 8 diagonal segments
    cube = BoardGeometry(size=3, dims=3)
    assert len(cube.lines) == (5**3 - 3**3) // 2 == 49
    assert len(cube.symmetries) == 48
    assert len(TTT3.symmetries) == 8


@pytest.mark.parametrize("geo", [TTT3, BoardGeometry(size=4), BoardGeometry(size=3, dims=3)])
def test_symmetries_map_lines_to_lines(geo):
    lines = {frozenset(map(int, l)) for l in geo.lines}
    for perm in geo.symmetries:
        # the board b -> b[perm]: cell c of the image holds cell perm[c] of b; a line L of b lands on inv(L)
        inv = np.argsort(perm)
        assert {frozenset(int(inv[c]) for c in l) for l in lines} == lines
    assert len({tuple(p) for p in geo.symmetries.tolist()}) == len(geo.symmetries)


def test_encoding_round_trip_and_child_index():
    b = TTT3.board("X.O/.X./..O")
    i = TTT3.index(b)
    assert i == 1 * 1 + 2 * 3**2 + 1 * 3**4 + 2 * 3**8
    assert np.array_equal(TTT3.decode(i), b)
    assert TTT3.index("X.O.X...O") == i  # separators are optional
    # placing O on the empty cell 5 adds 2 * 3**5
    assert TTT3.index("X.O.XO..O") == i + O * 3**5
    assert TTT3.text(i) == "X.O.X...O"
    assert TTT3.text(i, rows=True) == "X.O\n.X.\n..O"


def test_board_parsing_errors_name_the_problem():
    with pytest.raises(ValueError, match="cell 4 is 'Z'"):
        TTT3.board("X...Z....")
    with pytest.raises(ValueError, match="needs 9 cells, got 8"):
        TTT3.board("X.......")
    with pytest.raises(ValueError, match="cell 0 holds 7"):
        TTT3.board([7, 0, 0, 0, 0, 0, 0, 0, 0])


def test_winner():
    assert TTT3.winner("XXX/OO./...") == X
    assert TTT3.winner("X.O/XO./O.X") == O
    assert TTT3.winner("XOX/XOO/OXX") == 0  # full, no line: draw
    assert TTT3.winner("XO./.../...") is None
    with pytest.raises(ValueError, match="line of X and a line of O"):
        TTT3.winner("XXX/OOO/...")


@pytest.mark.parametrize("geo", [TTT3, BoardGeometry(size=4), BoardGeometry(size=4, line=3), BoardGeometry(size=3, dims=3)])
def test_line_analysis_matches_brute_force(geo):
    rng = np.random.default_rng(7)
    idx = rng.integers(0, geo.n_boards, size=300)
    d = geo.digits(idx)
    a = geo.analyse(d)
    lines = geo.lines.tolist()
    for row, b in enumerate(d.tolist()):
        owners = _py_winner(tuple(b), lines)
        assert a.x_line[row] == (X in owners)
        assert a.o_line[row] == (O in owners)
        for c in range(geo.n_cells):
            for mark, comp in ((X, a.x_completes), (O, a.o_completes)):
                if b[c] != EMPTY:
                    assert not comp[row, c]
                    continue
                nb = list(b)
                nb[c] = mark
                made = any(c in l and all(nb[j] == mark for j in l) for l in lines)
                assert comp[row, c] == made


def test_filled_counts_and_digits():
    counts = TTT3.filled_counts()
    d = TTT3.digits(np.arange(TTT3.n_boards))
    assert np.array_equal(counts, (d != EMPTY).sum(axis=1))
    assert np.array_equal(d.astype(np.int64) @ TTT3.powers, np.arange(TTT3.n_boards))


def test_swap_marks():
    assert TTT3.text(swap_marks(TTT3.board("XO./..X/O.."))) == "OX...OX.."


# ---------------------------------------------------------------------- the vs-random game
@pytest.mark.parametrize("first", ["opponent", "agent"])
def test_states_are_the_live_boards_with_the_agent_to_move(first):
    g = compile_vs_random(VsRandomSettings(first=first))
    lead = 1 if first == "opponent" else 0
    want = set()
    for b in itertools.product((EMPTY, X, O), repeat=9):
        if b.count(X) == b.count(O) + lead and not _py_winner(b, SEED_LINES) and EMPTY in b:
            want.add(sum(v * 3**i for i, v in enumerate(b)))
    assert set(g.board_index.tolist()) == want
    assert g.mdp.n_states == len(want) + 3
    assert g.mdp.terminal.sum() == 3 and g.mdp.terminal[g.outcome_states].all()
    # Every board state's legal moves are its empty cells, and the lookups invert each other.
    for s in (0, 17, len(want) - 1):
        b = g.board_of(s)
        assert g.state_of(b) == s
        assert np.array_equal(g.legal_moves(s), np.flatnonzero(b == EMPTY))


def test_state_of_refuses_positions_where_the_agent_does_not_move():
    g = compile_vs_random(VsRandomSettings(agent="O", first="opponent"))
    with pytest.raises(ValueError, match="is not a position where the agent"):
        g.state_of(".........")  # the opponent (X) opens
    with pytest.raises(ValueError, match="is not a board state"):
        g.board_of(int(g.outcome_states[0]))


def test_a_hand_checked_endgame():
    """X O X / O X . / O X . with O (the agent) to move: cell 5 lets X complete 0-4-8 (loss,
    -3500 in the same round), cell 8 leaves X only cell 5, which fills the board (draw, 0)."""
    g = compile_vs_random(VsRandomSettings(agent="O", first="opponent"))
    s = g.state_of("XOX/OX./OX.")
    assert g.mdp.outcomes(s, 5) == [(int(g.outcome_states[2]), 1.0, -3500.0)]
    assert g.mdp.outcomes(s, 8) == [(int(g.outcome_states[1]), 1.0, 0.0)]
    sol = solve(g.mdp, "vi")
    assert sol.values[s] == 0.0 and sol.policy[s] == 8
    reps = {r.cell: r for r in move_reports(g, sol.values, sol.policy, s)}
    assert (reps[5].q, reps[5].loss, reps[8].q, reps[8].draw) == (-3500.0, 1.0, 0.0, 1.0)
    q = g.cell_values(sol.values, s)  # what a board view shows on each cell
    assert np.isnan(q[[0, 1, 2, 3, 4, 6, 7]]).all() and (q[5], q[8]) == (-3500.0, 0.0)


def test_an_immediate_win_is_worth_the_win_reward():
    g = compile_vs_random(VsRandomSettings(agent="O", first="opponent"))
    s = g.state_of("XX./OO./X..")  # O completes 3-4-5 on cell 5
    sol = solve(g.mdp, "vi")
    assert sol.policy[s] == 5 and sol.values[s] == 500.0


def _frac(x: float) -> Fraction:
    f = Fraction(x).limit_denominator(10**6)
    assert abs(float(f) - x) < 1e-12
    return f


def test_golden_outcomes_opponent_first(games):
    g, vi, pi = games["opponent"]
    for sol in (vi, pi):
        p = outcome_probabilities(g, sol.policy)
        assert (_frac(p.win), _frac(p.draw), _frac(p.loss)) == (Fraction(866, 945), Fraction(79, 945), 0)


def test_golden_outcomes_agent_first(games):
    g, vi, pi = games["agent"]
    for sol in (vi, pi):
        p = outcome_probabilities(g, sol.policy)
        assert (_frac(p.win), _frac(p.draw), _frac(p.loss)) == (Fraction(191, 192), Fraction(1, 192), 0)


def test_iteration_counts_match_the_seed(games):
    for first in ("opponent", "agent"):
        _, vi, pi = games[first]
        assert vi.converged and pi.converged
        assert (vi.sweeps, pi.sweeps) == (5, 4)


def test_vi_and_pi_agree(games):
    for first in ("opponent", "agent"):
        g, vi, pi = games[first]
        assert np.abs(vi.values - pi.values).max() < 1e-9
        assert abs(g.start_value(vi.values) - g.start_value(pi.values)) < 1e-9


def test_exact_outcomes_agree_with_the_core_hitting_probabilities(games):
    g, vi, _ = games["opponent"]
    W = row_weights_deterministic(g.mdp, policy_to_rows(g.mdp, vi.policy))
    ref = hitting_probabilities(g.mdp, W, g.outcome_states)
    assert np.abs(outcome_matrix(g, vi.policy) - ref).max() < 1e-9


def test_playing_x_is_the_same_game(games):
    g, vi, _ = games["opponent"]
    gx = compile_vs_random(VsRandomSettings(agent="X", first="opponent"))
    solx = solve(gx.mdp, "vi")
    assert np.allclose(sorted(solx.values), sorted(vi.values), atol=1e-9)
    px, po = outcome_probabilities(gx, solx.policy), outcome_probabilities(g, vi.policy)
    assert abs(px.win - po.win) < 1e-12 and abs(px.draw - po.draw) < 1e-12
    # the board with the marks swapped is the same position for the X agent
    s = g.state_of("X...O...X")
    assert abs(solx.values[gx.state_of("O...X...O")] - vi.values[s]) < 1e-9


def test_symmetric_boards_have_equal_values(games):
    for first in ("opponent", "agent"):
        g, vi, _ = games[first]
        images = g.geometry.images(g.board_index)  # (n, 8) board indices
        states = np.vectorize(g.state_of)(images)
        assert np.abs(vi.values[states] - vi.values[: g.n_board_states, None]).max() < 1e-9


def test_other_rewards_change_the_policy_and_show_why():
    """+1/0/-1 with no discount: the agent moving second wins more often but now loses sometimes."""
    g = compile_vs_random(VsRandomSettings(agent="O", first="opponent", win=1, draw=0, loss=-1, discount=1))
    base = compile_vs_random(VsRandomSettings(agent="O", first="opponent"))
    base_pol = solve(base.mdp, "vi").policy
    for method in ("vi", "pi"):
        sol = solve(g.mdp, method)
        p = outcome_probabilities(g, sol.policy)
        assert p.win > 866 / 945 and p.loss > 0
        assert abs(g.start_value(sol.values) - (p.win - p.loss)) < 1e-9  # no discount: V = P(win) - P(loss)
        assert np.any(sol.policy[: g.n_board_states] != base_pol[: base.n_board_states])
    # why, on the opponent's corner-adjacent opening: a riskier reply scores higher under +1/0/-1
    sol = solve(g.mdp, "vi")
    s = g.state_of(".X.......")
    reps = {r.cell: r for r in move_reports(g, sol.values, sol.policy, s)}
    chosen = reps[int(sol.policy[s])]
    assert chosen.loss > 0 and chosen.win - chosen.loss == pytest.approx(chosen.q, abs=1e-12)
    assert chosen.q >= max(r.q for r in reps.values()) - 1e-12


def test_simulation_agrees_with_exact_probabilities(games):
    for first in ("opponent", "agent"):
        g, vi, _ = games[first]
        n = 20_000
        counts = simulate_outcomes(g, vi.policy, games=n, seed=123)
        assert counts.sum() == n
        exact = outcome_probabilities(g, vi.policy)
        lo, hi = proportion_ci(counts, n, z=3.29)  # 99.9% interval: a fixed seed, so this cannot flake
        for j, p in enumerate((exact.win, exact.draw, exact.loss)):
            assert lo[j] - 1e-12 <= p <= hi[j] + 1e-12


def test_the_seeds_simulated_rates_are_consistent_with_the_exact_ones():
    """The seed's 100,000-game rates (91.62% and 99.47%) lie in the 95% band of the exact probabilities."""
    for p, seen in ((866 / 945, 0.9162), (191 / 192, 0.9947)):
        half = 1.96 * np.sqrt(p * (1 - p) / 100_000)
        assert abs(seen - p) < half


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="mark must be 'X' or 'O'"):
        VsRandomSettings(agent="Z")
    with pytest.raises(ValueError, match="first must be"):
        VsRandomSettings(first="me")
    with pytest.raises(ValueError, match="discount must be in"):
        VsRandomSettings(discount=1.5)
    with pytest.raises(ValueError, match="loss reward must be a finite"):
        VsRandomSettings(loss=float("nan"))
