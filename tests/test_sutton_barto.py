"""Sutton and Barto's dynamic-programming examples (issue 27): the 4x4 grid (figure 4.1), Jack's car
rental (figure 4.2, Exercise 4.7) and the gambler's problem (figure 4.3), against the book's printed
numbers, independent brute solves and a published solution of Exercise 4.7."""
from __future__ import annotations

import json

import numpy as np
import pytest

from mdpviz.models.gambler import GamblerSettings, compile_gambler, tied_stakes
from mdpviz.models.gridworld import GridSettings, compile_gridworld, load_map, value_rows, with_map
from mdpviz.models.jack import JackSettings, action_of, compile_jack, location_day, move_grid, move_of, state_of
from mdpviz.solvers import solve, solver

# ---------------------------------------------------------------------------------- figure 4.1
FIGURE_4_1 = {  # V_k of the equiprobable random policy, as printed (one decimal; the corners are terminal)
    0: [[0.0] * 4] * 4,
    1: [[0.0, -1.0, -1.0, -1.0], [-1.0, -1.0, -1.0, -1.0], [-1.0, -1.0, -1.0, -1.0], [-1.0, -1.0, -1.0, 0.0]],
    2: [[0.0, -1.7, -2.0, -2.0], [-1.7, -2.0, -2.0, -2.0], [-2.0, -2.0, -2.0, -1.7], [-2.0, -2.0, -1.7, 0.0]],
    3: [[0.0, -2.4, -2.9, -3.0], [-2.4, -2.9, -3.0, -2.9], [-2.9, -3.0, -2.9, -2.4], [-3.0, -2.9, -2.4, 0.0]],
    10: [[0.0, -6.1, -8.4, -9.0], [-6.1, -7.7, -8.4, -8.4], [-8.4, -8.4, -7.7, -6.1], [-9.0, -8.4, -6.1, 0.0]],
    None: [[0.0, -14.0, -20.0, -22.0], [-14.0, -18.0, -20.0, -20.0], [-20.0, -20.0, -18.0, -14.0],
           [-22.0, -20.0, -14.0, 0.0]],
}
"""Sutton and Barto (2nd ed.), figure 4.1, left column; None: k = infinity."""
PRINTED = 0.05 + 1e-9
"""The book prints one decimal (V_2(1) = -1.75 is printed -1.7, V_3(5) = -2.875 is -2.9): within 0.05 of it."""


def sutton_world():
    return compile_gridworld(with_map(GridSettings(), load_map("sutton4x4")))


def test_choosing_the_4x4_map_sets_example_4_1s_rules_and_numbers_the_cells_as_the_book():
    st = with_map(GridSettings(), load_map("sutton4x4"))
    assert (st.convention, st.noise, st.living_reward, st.discount) == ("aima", 0.0, -1.0, 1.0)
    w = compile_gridworld(st)
    assert w.mdp.n_states == 16 and w.mdp.terminal.sum() == 2 and w.mdp.terminal[[0, 15]].all()
    numbers = [w.geometry.label[r][c] for r in range(4) for c in range(4)][1:15]
    assert numbers == [str(k) for k in range(1, 15)]  # the book's numbering, 1..14 in reading order
    # other maps keep their rules: choosing CS188's book map changes nothing but the map
    assert with_map(GridSettings(), load_map("book")) == GridSettings()


@pytest.mark.parametrize("in_place", [False])
def test_figure_4_1_iterative_evaluation_of_the_random_policy(in_place):
    w = sutton_world()
    seen = {0: np.zeros(16)}
    for sw in solver(w.mdp, "evaluate", policy="random", tol=1e-12, max_sweeps=10_000, in_place=in_place):
        seen[int(sw.iteration)] = np.array(sw.values)
    assert sw.converged
    seen[None] = np.array(sw.values)
    for k, printed in FIGURE_4_1.items():
        got = np.array(value_rows(w.geometry, seen[k]), dtype=float)
        assert np.all(np.abs(got - np.array(printed)) <= PRINTED), (k, got)
    assert np.allclose(seen[None].reshape(4, 4), FIGURE_4_1[None], atol=1e-9)  # V_pi is exact integers


def test_figure_4_1_greedy_policy_of_v_infinity_is_optimal_and_in_place_sweeps_converge_faster():
    w = sutton_world()
    sync = solve(w.mdp, "evaluate", tol=1e-10)
    inplace = solve(w.mdp, "evaluate", tol=1e-10, in_place=True)
    assert np.allclose(sync.values, inplace.values, atol=1e-7) and inplace.sweeps < sync.sweeps
    opt = solve(w.mdp, "pi")
    # the greedy policy w.r.t. V_pi of the random policy (figure 4.1's last right-hand panel) is optimal
    from mdpviz.solvers import evaluate_policy

    assert np.allclose(evaluate_policy(w.mdp, np.asarray(sync.policy)), opt.values)
    assert opt.values.reshape(4, 4)[0, 1] == -1 and opt.values.reshape(4, 4)[1, 1] == -2


# ---------------------------------------------------------------------------------- figure 4.3
def brute_gambler(p: float, goal: int) -> np.ndarray:
    """V* of the gambler by plain in-place value iteration over capitals, written here independently."""
    v = np.zeros(goal + 1)
    v[goal] = 1.0  # the goal's value written as the reward of reaching it
    while True:
        delta = 0.0
        for s in range(1, goal):
            stakes = np.arange(1, min(s, goal - s) + 1)
            best = np.max(p * v[s + stakes] + (1 - p) * v[s - stakes])
            delta = max(delta, abs(best - v[s]))
            v[s] = best
        if delta < 1e-14:
            return v


@pytest.mark.parametrize("p", [0.4, 0.25, 0.55])
def test_figure_4_3_final_values_agree_with_an_independent_solve(p):
    mdp = compile_gambler(GamblerSettings(p_heads=p))
    sol = solve(mdp, "vi", tol=1e-13, max_sweeps=100_000)
    want = brute_gambler(p, 100)
    assert np.allclose(sol.values[1:100], want[1:100], atol=1e-10)
    assert sol.values[0] == sol.values[100] == 0.0  # terminal states: the +1 is the last step's reward


def test_figure_4_3_values_and_spikes_at_p_0_4():
    mdp = compile_gambler(GamblerSettings())
    sol = solve(mdp, "gs", tol=1e-12)
    v = sol.values
    # bold play at p = 0.4: V(50) = p, V(25) = p^2, V(75) = p + (1 - p) p
    assert v[50] == pytest.approx(0.4, abs=1e-9)
    assert v[25] == pytest.approx(0.16, abs=1e-9)
    assert v[75] == pytest.approx(0.64, abs=1e-9)
    stakes = np.asarray(sol.policy) + 1
    # the book's spikes: all-in at 25, 50 and 75, stake 1 beside them (the smallest optimal stake)
    assert stakes[[25, 50, 75]].tolist() == [25, 50, 25] and stakes[[24, 26, 49, 51]].tolist() == [1, 1, 1, 1]
    ties = tied_stakes(mdp, v)
    assert ties[51] == (1, 49) and ties[50] == (50,)
    for s in range(1, 100):  # the drawn stake is always one of the tied optimal ones, the smallest
        assert ties[s] and stakes[s] == ties[s][0]
    assert sum(len(t) > 1 for t in ties) > 20  # many capitals have several optimal stakes


def test_gambler_sweeps_rise_towards_the_final_curve():
    mdp = compile_gambler(GamblerSettings())
    sweeps = [np.array(sw.values) for sw in solver(mdp, "gs", tol=1e-12)]
    assert len(sweeps) >= 4
    for a, b in zip(sweeps, sweeps[1:]):  # from V = 0 the estimates only rise (a monotone backup)
        assert np.all(b >= a - 1e-15)
    # synchronous sweep 1 from V = 0: only a bet that reaches the goal at once pays, so V_1(s) = 0.4 from 50 up
    first = np.array(next(iter(solver(mdp, "vi", tol=1e-12))).values)
    assert np.all(first[50:100] == 0.4) and np.all(first[1:50] == 0.0)


# ---------------------------------------------------------------------------------- figure 4.2
def test_a_locations_day_counts_the_poisson_tails_exactly():
    T, rented = location_day(20, 3.0, 3.0)
    assert np.allclose(T.sum(axis=1), 1.0, atol=1e-12)
    from scipy.stats import poisson

    assert rented[0] == 0 and rented[20] == pytest.approx(sum(min(k, 20) * poisson.pmf(k, 3) for k in range(200)))
    # a location with no cars in the evening ends the day with the returns, lumped at 20
    assert T[0, 5] == pytest.approx(poisson.pmf(5, 3)) and T[0, 20] == pytest.approx(poisson.sf(19, 3))


def brute_jack(st: JackSettings) -> tuple[np.ndarray, np.ndarray]:
    """Expected reward r[i, j, move] and next-state probabilities P[i, j, move] (21 x 21) written loop by
    loop from the rules (Example 4.2), independently of the compiler, for the legal moves (nan elsewhere)."""
    from scipy.stats import poisson

    N = st.max_cars
    n = N + 1

    def day(a, req, ret):
        out, rent = np.zeros(n), 0.0
        for r in range(a + 1):
            pr = poisson.pmf(r, req) if r < a else poisson.sf(a - 1, req)
            rent += r * pr
            for m in range(n):
                back = m - (a - r)
                if back < 0:
                    continue
                pm = poisson.pmf(back, ret) if m < N else poisson.sf(back - 1, ret)
                out[m] += pr * pm
        return out, rent

    moves = range(-st.max_move, st.max_move + 1)
    R = np.full((n, n, len(moves)), np.nan)
    P = np.zeros((n, n, len(moves), n, n))
    for i in range(n):
        for j in range(n):
            for k, m in enumerate(moves):
                if m > i or -m > j:
                    continue
                a, b = min(i - m, N), min(j + m, N)
                d1, r1 = day(a, st.request_means[0], st.return_means[0])
                d2, r2 = day(b, st.request_means[1], st.return_means[1])
                paid = (max(m - 1, 0) if st.free_shuttle and m > 0 else abs(m))
                park = st.parking_cost * ((a > st.parking_limit) + (b > st.parking_limit)) if st.free_shuttle else 0
                R[i, j, k] = st.rental_reward * (r1 + r2) - st.move_cost * paid - park
                P[i, j, k] = np.outer(d1, d2)
    return R, P


@pytest.mark.parametrize("st", [JackSettings(max_cars=6, max_move=2),
                                JackSettings(max_cars=7, max_move=3, free_shuttle=True, parking_limit=4,
                                             request_means=(2.0, 3.5), return_means=(2.5, 1.0))])
def test_jacks_model_is_the_rules_written_loop_by_loop(st):
    mdp = compile_jack(st)
    R, P = brute_jack(st)
    n = st.max_cars + 1
    q_rows = mdp.row_reward
    for s in range(mdp.n_states):
        i, j = divmod(s, n)
        legal = [move_of(int(a)) for a in mdp.actions_of(s)]
        assert sorted(legal) == [m for m in range(-st.max_move, st.max_move + 1) if m <= i and -m <= j]
        for row in range(mdp.state_ptr[s], mdp.state_ptr[s + 1]):
            m = move_of(int(mdp.row_action[row]))
            k = m + st.max_move
            assert q_rows[row] == pytest.approx(R[i, j, k], abs=1e-9)
            got = np.zeros(n * n)
            lo, hi = mdp.row_ptr[row], mdp.row_ptr[row + 1]
            np.add.at(got, mdp.dst[lo:hi], mdp.prob[lo:hi])
            assert np.allclose(got, P[i, j, k].ravel(), atol=1e-12)


def test_jacks_states_and_actions_are_numbered_as_the_issue_says():
    mdp = compile_jack(JackSettings())
    assert mdp.n_states == 441 and mdp.n_actions == 11
    assert state_of(3, 7) == 21 * 3 + 7 and mdp.state_labels[state_of(3, 7)] == "3 cars at the first, 7 at the second"
    assert [move_of(a) for a in range(11)] == [0, 1, -1, 2, -2, 3, -3, 4, -4, 5, -5]
    assert all(action_of(move_of(a)) == a for a in range(11))
    assert mdp.action_labels[action_of(-3)] == "move -3" and mdp.action_labels[0] == "move 0"
    assert not mdp.terminal.any()


@pytest.fixture(scope="module")
def jack_pi():
    """Policy iteration on Example 4.2: the policies pi_0..pi_k and their values."""
    mdp = compile_jack(JackSettings())
    policies, values = [], []
    for sw in solver(mdp, "pi"):
        if sw.phase == "evaluate":
            policies.append(move_grid(sw.policy))
            values.append(np.array(sw.values))
    return mdp, sw, policies, values


def test_figure_4_2_policy_iteration_pi_0_to_pi_4(jack_pi):
    mdp, last, policies, values = jack_pi
    assert last.converged and len(policies) == 5  # pi_0..pi_4 evaluated; improving pi_4 changes nothing
    pi0, pi1, pi2, pi3, pi4 = policies
    assert np.all(pi0 == 0)  # pi_0: move nothing
    # the figure's shapes: positive moves (first -> second) in the upper left (many cars at the first,
    # few at the second), negative ones in the lower right, 0 on the diagonal band between them
    for pi in policies[1:]:
        assert pi[20, 0] == 5 and pi[0, 20] <= -2
        assert pi.max() == 5 and pi.min() == -4  # the figure's contour labels run from 5 to -4
        i, j = np.indices(pi.shape)
        assert np.all(j[pi < 0] > i[pi < 0])  # cars come back from the second only where it has more
        assert np.all(pi[(i >= 5) & (j == 0)] > 0) and np.all(pi[(j >= 10) & (i == 0)] < 0)
    assert pi1[10, 10] == 3 and pi2[10, 10] == pi3[10, 10] == pi4[10, 10] == 0  # pi_1's wide positive region
    counts = [int((pi == 0).sum()) for pi in policies]
    assert counts == [441, 123, 287, 268, 270]  # measured: states that move no car under pi_0..pi_4
    assert int((pi1 == 5).sum()) == 149  # pi_1 moves 5 cars from most of the upper left (the figure's wide 5)
    assert int((pi4 == 5).sum()) == 26 and int((pi4 == -4).sum()) == 3


def test_figure_4_2_values_with_exact_tails_run_from_421_to_637(jack_pi):
    mdp, last, policies, values = jack_pi
    v = np.asarray(last.values).reshape(21, 21)
    assert v[0, 0] == pytest.approx(421.414, abs=1e-3) and v.min() == v[0, 0]
    assert v[20, 20] == pytest.approx(636.990, abs=1e-3) and v.max() == v[20, 20]
    # the figure's 420..612 axis is a truncated model's: its top is far below the exact V_4
    assert v.max() > 612 + 20
    # the value of each policy improves on the one before, everywhere (the policy improvement theorem)
    for a, b in zip(values, values[1:]):
        assert np.all(b >= a - 1e-9)
    lp_free = solve(mdp, "vi", tol=1e-10, max_sweeps=10_000)
    assert np.allclose(lp_free.values, last.values, atol=1e-6)


def test_exercise_4_7_differs_where_a_published_solution_says():
    """Published results of Exercise 4.7: lucaslingle/policy_iteration_car_rental_variant2 (GitHub), its
    README: values from 429 to 603; with 15 cars at the first location and 0..5 at the second, move 5;
    with 14 at the first and 0..6 at the second, move at least 4; with 10 at the second and many at the
    first, move none."""
    base = move_grid(solve(compile_jack(JackSettings()), "pi").policy)
    sol = solve(compile_jack(JackSettings(free_shuttle=True)), "pi")
    pi = move_grid(sol.policy)
    assert 429 < sol.values.min() < 430 and 603 < sol.values.max() < 604
    assert np.all(pi[15, 0:6] == 5) and np.all(pi[14, 0:7] >= 4)
    assert np.all(pi[12:21, 10] == 0)
    # the free car: states where Example 4.2 moved none now send one car from the first to the second
    free = (pi == 1) & (base == 0)
    assert free.sum() > 50 and free[5, 5] and base[5, 5] == 0
    # parking: with 15 cars at the first and 4 at the second, Example 4.2 moves 3 (12 stay overnight);
    # Exercise 4.7 moves 5, so the first location keeps 10 and pays no second lot
    assert base[15, 4] == 3 and pi[15, 4] == 5 and base[14, 5] == 2 and pi[14, 5] == 4


def test_jack_compiles_in_well_under_a_second():
    """Not a timing test (timings are mdpviz bench's): the compile is vectorised, so its transitions are
    built by numpy, checked here by their count (21^2 x the legal moves x 21^2)."""
    mdp = compile_jack(JackSettings())
    legal = sum(1 for i in range(21) for j in range(21) for m in range(-5, 6) if m <= i and -m <= j)
    assert mdp.n_rows == legal and mdp.n_transitions == legal * 441


# ---------------------------------------------------------------------------------- the command line
def run_solve(capsys, *argv):
    from mdpviz.cli import main

    status = main(["solve", *argv, "--json"])
    out = capsys.readouterr()
    assert status == 0, out.err
    return json.loads(out.out)


def test_mdpviz_solve_gambler_json_state_i_is_capital_i(capsys):
    d = run_solve(capsys, "--game", "gambler")
    assert d["states"] == [f"capital {i}" for i in range(101)]
    assert d["values"][50] == pytest.approx(0.4, abs=1e-8) and d["values"][25] == pytest.approx(0.16, abs=1e-8)
    assert d["policy"][50] == "stake 50" and d["policy"][0] is None
    d = run_solve(capsys, "--game", "gambler", "--set", "goal=10", "--set", "p_heads=0.25")
    assert len(d["states"]) == 11 and d["values"][5] == pytest.approx(0.25, abs=1e-8)


def test_mdpviz_solve_jack_json_state_is_21_i_plus_j(capsys):
    d = run_solve(capsys, "--game", "jack")
    assert d["method"] == "pi" and len(d["states"]) == 441
    assert d["states"][21 * 3 + 7] == "3 cars at the first, 7 at the second"
    assert d["values"][0] == pytest.approx(421.414, abs=1e-3) and d["values"][440] == pytest.approx(636.990, abs=1e-3)
    assert d["policy"][state_of(20, 0)] == "move +5" and d["policy"][state_of(10, 10)] == "move 0"
    d = run_solve(capsys, "--game", "jack", "--set", "free_shuttle=true")
    assert d["values"][0] == pytest.approx(429.946, abs=1e-3) and d["policy"][state_of(15, 0)] == "move +5"


def test_mdpviz_solve_the_4x4_grid_evaluates_the_random_policy(capsys):
    d = run_solve(capsys, "--game", "gridworld", "--grid", "sutton4x4")
    assert d["method"] == "evaluate"
    assert np.allclose(d["values"], np.ravel(FIGURE_4_1[None]), atol=1e-6)


def test_the_contour_maps_numbers_sit_in_their_regions_apart_from_each_other(jack_pi):
    from mdpviz.models.jack import move_regions

    pi4 = jack_pi[2][-1]
    every = move_regions(pi4, min_gap=0)
    assert {m for _, _, m in every} == set(np.unique(pi4).tolist())  # every move of the policy is numbered
    for gap in (0, 1, 3):
        placed = move_regions(pi4, min_gap=gap)
        assert all(pi4[r, c] == m for r, c, m in placed)  # each number stands inside its own region
        for k, (r, c, _) in enumerate(placed):
            assert all(max(abs(r - r2), abs(c - c2)) > gap for r2, c2, _m in placed[:k])
    assert move_regions(np.zeros((21, 21), int)) == [(10, 10, 0)]  # pi_0: one region, numbered in its middle
