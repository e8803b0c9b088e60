"""The dynamic-programming algorithms of issue 26 against the courses' own numbers.

Sources (each test names its own):
* Berkeley CS188's reinforcement project autograder, questions 4 (asynchronous value iteration) and 5
  (prioritized sweeping): the cases of ``test_cases/q4`` and ``test_cases/q5``, copied into
  tests/cs188_reference.py, at the grader's tolerance 0.01;
* pymdptoolbox 4.0b3 (``pip download pymdptoolbox==4.0b3``; repository sawcordwell/pymdptoolbox): the
  docstrings of ``mdptoolbox.mdp`` and the tests in ``src/tests``, at their own tolerances (1e-12 in
  the docstrings, ``SMALLNUM = 10e-12`` in the tests);
* Sutton and Barto, *Reinforcement Learning: An Introduction* (2nd ed.), figure 4.1: V_k of the
  equiprobable random policy on the 4x4 grid world, as printed (one decimal; whole numbers at k = inf).
"""
from __future__ import annotations

import numpy as np
import pytest

from mdpviz.models.gridworld.rules import ACTION_NAMES, GridSettings, compile_gridworld, parse_grid
from mdpviz.core.mdp import TabularMDP
from mdpviz.solvers import METHODS, ImproperPolicyError, evaluate_policy, run, solve, solver
from tests import cs188_reference as cs188


# --------------------------------------------------------------------------- CS188 q4 and q5
def cs188_world(case: str):
    """CS188's ``Gridworld`` of a test case, compiled in the project's CS188 convention."""
    t = cs188.GRIDS[case]
    return compile_gridworld(GridSettings(grid=parse_grid(t["grid"]), noise=t["noise"],
                                          living_reward=t["livingReward"], discount=t["discount"],
                                          convention="cs188"))


def cs188_states(world) -> list[int]:
    """CS188's ``Gridworld.getStates()`` as state ids: the terminal ("exited") state first, then the
    cells column by column (x from the left), each column from the bottom row up (y = 0 at the bottom)."""
    geo = world.geometry
    exited = world.mdp.n_states - 1
    return [exited] + [int(geo.state[r, c]) for c in range(geo.cols) for r in reversed(range(geo.rows))
                       if geo.state[r, c] >= 0]


def printed_cells(world) -> list[tuple[int, int]]:
    """The states the grader prints, in its order: non-wall cells row by row from the top."""
    geo = world.geometry
    return [(r, c) for r in range(geo.rows) for c in range(geo.cols) if geo.state[r, c] >= 0]


def tokens(printed: str) -> list[str]:
    return [t for t in printed.split() if t != "/"]


def check_against_cs188(world, history, expected: dict) -> None:
    """V_k for every k the grader checks, Q of every action and the policy at the last k (0.01)."""
    mdp, geo = world.mdp, world.geometry
    cells = printed_cells(world)
    last = max(expected["values"])
    for k, printed in expected["values"].items():
        # iteration k = k single-state updates; after the last one (queue empty) the values stay
        v = np.zeros(mdp.n_states) if k == 0 else history[min(k, len(history)) - 1].values
        got = [v[geo.state[r, c]] for r, c in cells]
        np.testing.assert_allclose(got, [float(x) for x in tokens(printed)], atol=cs188.TOLERANCE, rtol=0,
                                   err_msg=f"V after iteration {k}")
    v = history[min(last, len(history)) - 1].values
    q = mdp.q_values(v)  # CS188 computes Q and the policy from V_k itself
    for action, printed in expected["q"].items():
        a = ACTION_NAMES.index(action)
        for (r, c), want in zip(cells, tokens(printed), strict=True):
            s = int(geo.state[r, c])
            legal = list(mdp.actions_of(s))
            if want == "illegal":
                assert a not in legal
            else:
                got_q = q[mdp.state_ptr[s] + legal.index(a)]
                assert abs(got_q - float(want)) <= cs188.TOLERANCE, (action, (r, c), got_q, want)
    policy = history[min(last, len(history)) - 1].policy
    drawn = [ACTION_NAMES[policy[geo.state[r, c]]] for r, c in cells]
    assert drawn == tokens(expected["policy"])


@pytest.mark.parametrize("case", sorted(cs188.Q4))
def test_cs188_q4_asynchronous_value_iteration(case):
    """CS188 q4 (AsynchronousValueIterationTest): iteration i updates state i mod n of getStates()."""
    world = cs188_world(case)
    order = cs188_states(world)
    n = cs188.GRIDS[case]["valueIterations"]
    sol = run(solver(world.mdp, "async-vi", order=order, iterations=n, tol=0.0), record=True)
    assert len(sol.history) == n and sol.sweeps == n
    # one state per step, cycling through the course's list, the terminal state counting as a step
    assert [sw.updated for sw in sol.history[: 2 * len(order)]] == [(s,) for s in order + order]
    assert all(sw.values[order[0]] == 0.0 for sw in sol.history)
    check_against_cs188(world, sol.history, cs188.Q4[case])


@pytest.mark.parametrize("case", sorted(cs188.Q5))
def test_cs188_q5_prioritized_sweeping(case):
    """CS188 q5 (PrioritizedSweepingValueIterationTest): theta = 1e-5, the agent's default."""
    world = cs188_world(case)
    n = cs188.GRIDS[case]["valueIterations"]
    sol = run(solver(world.mdp, "prioritized", order=cs188_states(world), iterations=n), record=True)
    assert sol.converged and sol.history[-1].converged  # the queue ran empty before iteration 1000
    assert all(len(sw.updated) == 1 and not world.mdp.terminal[sw.updated[0]] for sw in sol.history)
    check_against_cs188(world, sol.history, cs188.Q5[case])


def test_prioritized_sweeping_needs_the_course_state_order_for_the_course_numbers():
    """The heap breaks ties by the order states were first pushed (CS188's getStates() order): the
    project's own index order gives another sequence of updates on the discount grid."""
    world = cs188_world("4-discountgrid")
    geo = world.geometry
    ours = run(solver(world.mdp, "prioritized", iterations=9), record=True).history
    course = cs188.Q5["4-discountgrid"]["values"]
    off = [k for k in range(1, 10)
           if np.abs([ours[k - 1].values[geo.state[r, c]] for r, c in printed_cells(world)]
                     - np.array([float(x) for x in tokens(course[k])])).max() > cs188.TOLERANCE]
    assert off  # with the course's order every k agrees (test_cs188_q5_prioritized_sweeping)


def test_asynchronous_orders_converge_to_value_iteration():
    world = cs188_world("4-discountgrid")
    mdp = world.mdp
    best = solve(mdp, "vi", tol=1e-12).values
    for order in ("index", "random", cs188_states(world)[::-1]):
        sol = solve(mdp, "async-vi", order=order, seed=7, tol=1e-10)
        assert sol.converged
        np.testing.assert_allclose(sol.values, best, atol=1e-8)
    first = run(solver(mdp, "async-vi", order="random", seed=3, iterations=50), record=True)
    again = run(solver(mdp, "async-vi", order="random", seed=3, iterations=50), record=True)
    assert [sw.updated for sw in first.history] == [sw.updated for sw in again.history]
    sol = solve(mdp, "prioritized", theta=1e-9)
    np.testing.assert_allclose(sol.values, best, atol=1e-6)


def test_each_step_changes_only_the_updated_state_and_keeps_the_greedy_policy():
    world = cs188_world("3-bridge")
    mdp = world.mdp
    from mdpviz.solvers import greedy
    from mdpviz.solvers.sweep import rows_to_policy

    for method in ("async-vi", "prioritized"):
        hist = run(solver(mdp, method, iterations=40), record=True).history
        prev = np.zeros(mdp.n_states)
        for sw in hist:
            moved = np.flatnonzero(sw.values != prev)
            assert set(moved.tolist()) <= set(sw.updated)
            assert sw.delta == pytest.approx(float(np.abs(sw.values - prev).max()))
            _, rows = greedy(mdp, mdp.q_values(sw.values))
            np.testing.assert_array_equal(sw.policy, rows_to_policy(mdp, rows))
            prev = sw.values


def test_asynchronous_options_that_do_not_fit_are_value_errors():
    mdp = cs188_world("1-tinygrid").mdp
    with pytest.raises(ValueError, match="theta must be a finite number > 0, got 0"):
        solver(mdp, "prioritized", theta=0)
    with pytest.raises(ValueError, match="theta must be a finite number > 0, got -1"):
        solver(mdp, "prioritized", theta=-1)
    with pytest.raises(ValueError, match="order leaves out non-terminal state"):
        solver(mdp, "async-vi", order=[0, 1])
    with pytest.raises(ValueError, match="order: state 9 is out of range 0..3"):
        solver(mdp, "async-vi", order=[0, 1, 2, 9])
    with pytest.raises(ValueError, match="order must be one of index, random"):
        solver(mdp, "async-vi", order="reverse")
    with pytest.raises(ValueError, match="unknown method 'async'; choose one of .*async-vi"):
        solver(mdp, "async")


# --------------------------------------------------------------------------- Sutton and Barto, figure 4.1
def sutton_barto_grid(reward: float = -1.0) -> TabularMDP:
    """Example 4.1: the 4x4 grid, states 0..15 in reading order, 0 and 15 the terminal corners; actions
    up, down, right, left, deterministic, a move off the grid leaves the state unchanged; reward -1 (or
    ``reward``) on every transition; undiscounted."""
    src, act, dst = [], [], []
    for s in range(1, 15):
        r, c = divmod(s, 4)
        for a, (dr, dc) in enumerate(((-1, 0), (1, 0), (0, 1), (0, -1))):
            nr, nc = r + dr, c + dc
            src.append(s), act.append(a), dst.append(nr * 4 + nc if 0 <= nr < 4 and 0 <= nc < 4 else s)
    n = len(src)
    return TabularMDP.from_transitions(16, 4, src, act, dst, [1.0] * n, [reward] * n, discount=1.0, terminal=[0, 15],
                                       action_labels=("up", "down", "right", "left"))


FIGURE_4_1 = {
    0: [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]],
    1: [[0.0, -1.0, -1.0, -1.0], [-1.0, -1.0, -1.0, -1.0], [-1.0, -1.0, -1.0, -1.0], [-1.0, -1.0, -1.0, 0.0]],
    2: [[0.0, -1.7, -2.0, -2.0], [-1.7, -2.0, -2.0, -2.0], [-2.0, -2.0, -2.0, -1.7], [-2.0, -2.0, -1.7, 0.0]],
    3: [[0.0, -2.4, -2.9, -3.0], [-2.4, -2.9, -3.0, -2.9], [-2.9, -3.0, -2.9, -2.4], [-3.0, -2.9, -2.4, 0.0]],
    10: [[0.0, -6.1, -8.4, -9.0], [-6.1, -7.7, -8.4, -8.4], [-8.4, -8.4, -7.7, -6.1], [-9.0, -8.4, -6.1, 0.0]],
}
"""Sutton and Barto, figure 4.1 (left column): V_k of the random policy, printed to one decimal."""

FIGURE_4_1_LIMIT = [[0, -14, -20, -22], [-14, -18, -20, -20], [-20, -20, -18, -14], [-22, -20, -14, 0]]
"""Figure 4.1, k = infinity: v_pi, minus the expected number of steps to the end (whole numbers)."""

PRINTED = 0.05 + 1e-12
"""Half a unit of the figure's one printed decimal: a value within it prints as the figure does (the
book prints V_2 = -1.75 as -1.7, so the bound is reached there)."""


def test_sutton_barto_figure_4_1_random_policy_synchronous():
    mdp = sutton_barto_grid()
    sol = run(solver(mdp, "evaluate", policy="random", tol=1e-12), record=True)
    assert sol.converged
    for k, table in FIGURE_4_1.items():
        v = np.zeros(16) if k == 0 else sol.history[k - 1].values
        np.testing.assert_allclose(v.reshape(4, 4), table, atol=PRINTED, rtol=0, err_msg=f"V_{k}")
    np.testing.assert_allclose(sol.values.reshape(4, 4), FIGURE_4_1_LIMIT, atol=1e-9, rtol=0)
    # the same values as the exact (linear-solve) evaluation of the same stochastic policy
    from mdpviz.solvers import evaluate_stochastic_policy
    from mdpviz.solvers.evaluation import uniform_policy

    np.testing.assert_allclose(sol.values, evaluate_stochastic_policy(mdp, uniform_policy(mdp)), atol=1e-9)
    # "the last policy [...] and all policies after the third iteration, are optimal": from V_3 on, the
    # greedy action of every state is one of the optimal ones (the fewest steps to a corner)
    steps = np.array([[0, 1, 2, 3], [1, 2, 3, 2], [2, 3, 2, 1], [3, 2, 1, 0]]).ravel()
    for sw in sol.history[2:]:
        live = np.flatnonzero(~mdp.terminal)
        nxt = [mdp.outcomes(s, int(sw.policy[s]))[0][0] for s in live]
        np.testing.assert_array_equal(steps[nxt], steps[live] - 1)


def test_sutton_barto_in_place_evaluation_reaches_the_same_values_sooner():
    """Section 4.1: the in-place (one-array) version "usually converges faster"."""
    mdp = sutton_barto_grid()
    two = solve(mdp, "evaluate", tol=1e-10)
    one = solve(mdp, "evaluate", in_place=True, tol=1e-10)
    assert one.converged and two.converged and one.sweeps < two.sweeps
    np.testing.assert_allclose(one.values.reshape(4, 4), FIGURE_4_1_LIMIT, atol=1e-8)
    # sweep 1 in place, state by state in reading order: state 1 sees V = 0 everywhere (-1); state 2
    # already sees V(1) = -1 (-1 + (0 + 0 + 0 - 1) / 4); state 5 sees V(1) = V(4) = -1 (-1 - 2 / 4)
    first = run(solver(mdp, "evaluate", in_place=True, max_sweeps=1), record=True).history[0].values
    assert (first[1], first[2], first[4], first[5]) == (-1.0, -1.25, -1.0, -1.5)


def test_evaluation_of_a_deterministic_policy_matches_the_exact_solve():
    mdp = sutton_barto_grid()
    left_or_up = np.array([-1] + [3] * 3 + [0] * 12)  # left along the top row, up everywhere else
    left_or_up[15] = -1
    sol = solve(mdp, "evaluate", policy=left_or_up, tol=1e-12)
    np.testing.assert_allclose(sol.values, evaluate_policy(mdp, left_or_up), atol=1e-9)
    probs = np.zeros((16, 4))
    probs[np.arange(1, 15), left_or_up[1:15]] = 1.0
    np.testing.assert_allclose(solve(mdp, "evaluate", policy=probs, tol=1e-12).values, sol.values, atol=1e-12)


def test_a_policy_that_does_not_fit_the_model_is_a_value_error_naming_what_is_wrong():
    mdp = cs188_world("1-tinygrid").mdp  # 4 states; the exits have only "exit" (4), the middle cell 0..3
    with pytest.raises(ValueError, match="policy has 3 entries for 4 states"):
        solver(mdp, "evaluate", policy=[4, 0, 4])
    with pytest.raises(ValueError, match=r"state 0: action 1 is not one of its legal actions \[4\]"):
        solver(mdp, "evaluate", policy=[1, 0, 4, -1])
    with pytest.raises(ValueError, match=r"shape \(4, 5\) \(states x actions\), got \(4, 4\)"):
        solver(mdp, "evaluate", policy=np.zeros((4, 4)))
    probs = np.zeros((4, 5))
    probs[[0, 2], 4] = 1.0
    probs[1, :4] = 0.25
    bad = probs.copy()
    bad[1, 0] = 0.1
    with pytest.raises(ValueError, match="state 1: the policy's probabilities over its legal actions sum to 0.85"):
        solver(mdp, "evaluate", policy=bad)
    bad = probs.copy()
    bad[0, 1] = 0.5
    with pytest.raises(ValueError, match=r"state 0: probability 0.5 on action 1, which is not one of its legal"):
        solver(mdp, "evaluate", policy=bad)
    bad = probs.copy()
    bad[1, 2] = -0.25
    with pytest.raises(ValueError, match="state 1: probability -0.25 of action 2 is not a number in"):
        solver(mdp, "evaluate", policy=bad)
    with pytest.raises(ValueError, match="policy must be 'random'"):
        solver(mdp, "evaluate", policy="greedy")
    solve(mdp, "evaluate", policy=probs)  # the fitting one is taken


def test_evaluating_a_policy_that_never_ends_without_discount_is_refused():
    mdp = sutton_barto_grid()
    up = np.zeros(16, dtype=np.int64)  # the top row bumps into the wall for ever
    with pytest.raises(ImproperPolicyError, match="never reaches a terminal state"):
        solver(mdp, "evaluate", policy=up)


# --------------------------------------------------------------------------- pymdptoolbox 4.0b3
def pymdptoolbox_mdp(P, R, discount: float) -> TabularMDP:
    """pymdptoolbox's (A x S x S) transitions and (S x A) expected rewards as a TabularMDP."""
    P = np.asarray(P, dtype=np.float64)
    R = np.asarray(R, dtype=np.float64)
    a, s, t = np.nonzero(P)
    return TabularMDP.from_transitions(P.shape[1], P.shape[0], s, a, t, P[a, s, t], R[s, a], discount=discount)


def forest(S: int = 3, r1: float = 4, r2: float = 2, p: float = 0.1):
    """``mdptoolbox.example.forest`` (dense): action 0 wait, 1 cut; a fire (p) sends the forest to state 0."""
    P = np.zeros((2, S, S))
    P[0, :, :] = (1 - p) * np.diag(np.ones(S - 1), 1)
    P[0, :, 0] = p
    P[0, S - 1, S - 1] = 1 - p
    P[1, :, 0] = 1
    R = np.zeros((S, 2))
    R[S - 1, 0] = r1
    R[:, 1] = np.ones(S)
    R[0, 1] = 0
    R[S - 1, 1] = r2
    return P, R


SMALL_P = [[[0.5, 0.5], [0.8, 0.2]], [[0, 1], [0.1, 0.9]]]
SMALL_R = [[5, 10], [-1, 2]]
"""``mdptoolbox.example.small()`` (the tests' P_small, R_small)."""

SMALLNUM = 10e-12
"""pymdptoolbox's test tolerance (src/tests/utils.py)."""


def test_pymdptoolbox_forest_arrays_are_the_documented_ones():
    """``mdptoolbox.example.forest`` docstring: P and R of the default forest."""
    P, R = forest()
    np.testing.assert_array_equal(P[0], [[0.1, 0.9, 0], [0.1, 0, 0.9], [0.1, 0, 0.9]])
    np.testing.assert_array_equal(P[1], [[1, 0, 0]] * 3)
    np.testing.assert_array_equal(R, [[0, 0], [0, 1], [4, 2]])


def test_pymdptoolbox_policy_iteration_modified_forest_docstring():
    """``PolicyIterationModified`` docstring: forest(), discount 0.9 -> policy (0, 0, 0) and
    V = (21.81408652334702, 25.054086523347017, 29.054086523347017) (checked there as
    ``expected[k] - V[k] < 1e-12``, one-sided; here both sides)."""
    sol = solve(pymdptoolbox_mdp(*forest(), 0.9), "mpi")
    assert tuple(sol.policy) == (0, 0, 0) and sol.converged
    np.testing.assert_allclose(sol.values, (21.81408652334702, 25.054086523347017, 29.054086523347017),
                               atol=1e-12, rtol=0)


def test_pymdptoolbox_policy_iteration_modified_small():
    """src/tests/test_PolicyIterationModified.py: small(), discount 0.9 -> V (41.8656419239403,
    35.4702797722819), policy (1, 0); undiscounted -> policy (1, 0)."""
    sol = solve(pymdptoolbox_mdp(SMALL_P, SMALL_R, 0.9), "mpi")
    np.testing.assert_allclose(sol.values, (41.8656419239403, 35.4702797722819), atol=SMALLNUM, rtol=0)
    assert tuple(sol.policy) == (1, 0)
    assert tuple(solve(pymdptoolbox_mdp(SMALL_P, SMALL_R, 1.0), "mpi").policy) == (1, 0)


def test_modified_policy_iteration_starts_low_and_alternates_improve_and_evaluate():
    """PolicyIterationModified's V_0 = R_min / (1 - gamma) (0 for the forest), then improve / evaluate."""
    mdp = pymdptoolbox_mdp(SMALL_P, SMALL_R, 0.9)
    hist = run(solver(mdp, "mpi"), record=True).history
    # V_1 is one Bellman backup of V_0 = -1 / (1 - 0.9) = -10: max_a R(s, a) + 0.9 * (-10)
    np.testing.assert_allclose(hist[0].values, (10 - 9, 2 - 9))
    assert [sw.phase for sw in hist] == ["improve", "evaluate"] * ((len(hist) - 1) // 2) + ["improve"]
    assert hist[-1].converged and all(not sw.converged for sw in hist[:-1])


def test_pymdptoolbox_policy_iteration_iterative_forest():
    """src/tests/test_PolicyIteration.py, test_PolicyIteration_iterative_forest: eval_type=1 ->
    V (26.2439058351861, 29.4839058351861, 33.4839058351861), policy (0, 0, 0), 2 iterations; and the
    first evaluation (test_PolicyIteration_evalPolicyIterative_forest): policy0 = (0, 1, 0), the
    reward-greedy policy (test_PolicyIteration_init_policy0_forest), evaluated to
    (4.47504640074458, 5.02753258879703, 23.17234211944304)."""
    sol = run(solver(pymdptoolbox_mdp(*forest(), 0.9), "pi", evaluation="iterative"), record=True)
    np.testing.assert_allclose(sol.values, (26.2439058351861, 29.4839058351861, 33.4839058351861),
                               atol=SMALLNUM, rtol=0)
    assert tuple(sol.policy) == (0, 0, 0) and sol.sweeps == 2 and sol.converged
    first = sol.history[0]
    assert first.phase == "evaluate" and tuple(first.policy) == (0, 1, 0)
    np.testing.assert_allclose(first.values, (4.47504640074458, 5.02753258879703, 23.17234211944304),
                               atol=SMALLNUM, rtol=0)


def test_pymdptoolbox_policy_iteration_starting_policy_small():
    """test_PolicyIteration_init_policy0: small(), discount 0.9 -> policy0 (1, 1)."""
    hist = run(solver(pymdptoolbox_mdp(SMALL_P, SMALL_R, 0.9), "pi", evaluation="iterative"), record=True).history
    assert tuple(hist[0].policy) == (1, 1)


def test_pymdptoolbox_policy_iteration_exact_forest_docstring():
    """``PolicyIteration`` docstring and test_PolicyIteration_matrix_forest: exact evaluation ->
    V (26.244000000000014, 29.484000000000016, 33.484000000000016), policy (0, 0, 0), 2 iterations
    from pymdptoolbox's starting policy (0, 1, 0) (mdpviz's "pi" starts from the lowest action unless
    given one)."""
    sol = solve(pymdptoolbox_mdp(*forest(), 0.9), "pi", initial_policy=[0, 1, 0])
    np.testing.assert_allclose(sol.values, (26.244000000000014, 29.484000000000016, 33.484000000000016),
                               atol=1e-12, rtol=0)
    assert tuple(sol.policy) == (0, 0, 0) and sol.sweeps == 2


def test_pymdptoolbox_relative_value_iteration_forest_docstring():
    """``RelativeValueIteration`` docstring: forest() -> average_reward 3.2399999999999993, policy
    (0, 0, 0), 4 iterations (test_RelativeValueIteration_forest: 3.24 within SMALLNUM)."""
    sol = run(solver(pymdptoolbox_mdp(*forest(), 0.9), "rvi"), record=True)
    assert sol.gain == pytest.approx(3.24, abs=SMALLNUM) and abs(sol.gain - 3.2399999999999993) < 1e-12
    assert tuple(sol.policy) == (0, 0, 0) and sol.sweeps == 4 and sol.converged
    assert sol.history[-1].gain == sol.gain and all(sw.gain is not None for sw in sol.history)


def test_pymdptoolbox_relative_value_iteration_small_docstring():
    """``RelativeValueIteration`` docstring: small() -> V (10.0, 3.885235246411831), average_reward
    3.8852352464118312, policy (1, 0), 29 iterations (test_RelativeValueIteration_small: 3.88523524641183
    from Octave MDPtoolbox, within SMALLNUM)."""
    sol = solve(pymdptoolbox_mdp(SMALL_P, SMALL_R, 0.9), "rvi")
    np.testing.assert_allclose(sol.values, (10.0, 3.885235246411831), atol=1e-12, rtol=0)
    assert abs(sol.gain - 3.8852352464118312) < 1e-12 and abs(sol.gain - 3.88523524641183) < SMALLNUM
    assert tuple(sol.policy) == (1, 0) and sol.sweeps == 29


def test_pymdptoolbox_relative_value_iteration_forest_ten_states():
    """test_RelativeValueIteration_forest_sparse: forest(S=10) -> average reward 1.54968195600000 (from
    Octave MDPtoolbox, within SMALLNUM), policy all 0."""
    sol = solve(pymdptoolbox_mdp(*forest(S=10), 0.9), "rvi")
    assert abs(sol.gain - 1.549681956) < SMALLNUM
    assert tuple(sol.policy) == (0,) * 10


def test_relative_value_iteration_is_for_continuing_models_only():
    with pytest.raises(ValueError, match="continuing models .* 2 terminal state"):
        solver(sutton_barto_grid(), "rvi")


# --------------------------------------------------------------------------- the common entry points
def test_every_new_method_is_reached_through_solver_and_solve_with_the_common_options():
    for m in ("async-vi", "prioritized", "evaluate", "mpi", "rvi"):
        assert m in METHODS
    mdp = pymdptoolbox_mdp(*forest(), 0.9)
    # tol is MPI's and RVI's epsilon; the common cap is their max_iterations
    assert solve(mdp, "mpi", tol=0.01).sweeps == solve(mdp, "mpi").sweeps
    assert not solve(mdp, "rvi", max_iterations=2).converged
    with pytest.raises(ValueError, match="tol .* and epsilon .* are the same setting"):
        solver(mdp, "rvi", tol=0.1, epsilon=0.2)
    sol = solve(mdp, "async-vi", max_sweeps=5)
    assert sol.sweeps == 5 and not sol.converged
    assert solve(mdp, "evaluate", max_iterations=3).sweeps == 3
