"""The course reference cases of issue 26 not covered by tests/test_course_algorithms.py and
tests/test_course_conventions.py, each against its public source at the source's own tolerance.

Sources (each test names its own):
* Berkeley CS188's reinforcement project autograder (``reinforcementTestClasses.py``), question 1
  (``ValueIterationTest``, ``test_cases/q1``: tests/cs188_reference_q1.py), questions 2 and 3
  (``GridPolicyTest``, ``test_cases/q2`` and ``q3``: tests/cs188_reference.py, with the parameters of a
  public solution, sebsadface/ai's ``reinforcement/analysis.py``);
* pymdptoolbox 4.0b3 (``pip download pymdptoolbox==4.0b3``; repository sawcordwell/pymdptoolbox): the
  docstrings of ``mdptoolbox.mdp.ValueIteration``, ``ValueIterationGS`` and ``FiniteHorizon``.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from mdpviz.cli import main
from mdpviz.models.gridworld.rules import ACTION_NAMES, GridSettings, compile_gridworld, parse_grid
from mdpviz.solvers import run, solve, solver
from tests import cs188_reference as cs188
from tests import cs188_reference_q1 as q1
from tests.test_course_algorithms import SMALL_P, SMALL_R, forest, printed_cells, pymdptoolbox_mdp, tokens


def cs188_grid(grid: str, noise: float, living_reward: float, discount: float):
    """CS188's ``Gridworld(parseGrid(grid))`` with ``setNoise`` / ``setLivingReward``, in the CS188 convention."""
    return compile_gridworld(GridSettings(grid=parse_grid(grid), noise=noise, living_reward=living_reward,
                                          discount=discount, convention="cs188"))


def solve_json(capsys, *argv) -> dict:
    status = main(["solve", *argv, "--json"])
    out = capsys.readouterr()
    assert status == 0, out.err
    return json.loads(out.out)


# --------------------------------------------------------------------------- CS188 q1
def q1_world(case: str):
    t = q1.Q1_GRIDS[case]
    return cs188_grid(t["grid"], t["noise"], t["livingReward"], t["discount"])


def check_q1_iteration(world, k: int, values, q_of, policy, expected: dict) -> None:
    """One ``executeNIterations(n=k)`` of ValueIterationTest: V_k, Q of every action from V_k (``q_of(s)``:
    action name -> Q of the legal ones) and, at the last k, the policy, all at the grader's 0.01."""
    geo = world.geometry
    cells = printed_cells(world)
    got = [values[geo.state[r, c]] for r, c in cells]
    np.testing.assert_allclose(got, [float(x) for x in tokens(expected["values"][k])], atol=q1.TOLERANCE,
                               rtol=0, err_msg=f"V at iteration {k}")
    for action, printed in expected["q"][k].items():
        for (r, c), want in zip(cells, tokens(printed), strict=True):
            q = q_of(int(geo.state[r, c]))
            if want == "illegal":
                assert action not in q, (k, action, (r, c))
            else:
                assert abs(q[action] - float(want)) <= q1.TOLERANCE, (k, action, (r, c), q[action], want)
    if k == max(expected["values"]):
        assert [policy[geo.state[r, c]] for r, c in cells] == tokens(expected["policy"])


@pytest.mark.parametrize("case", sorted(q1.Q1))
def test_cs188_q1_value_iteration(case):
    """CS188 q1 (ValueIterationTest, test_cases/q1/<case>.test / .solution): k = 0..9 and 100 iterations of
    synchronous value iteration; CS188 computes Q and the policy from V_k itself (``q_from="current"``)."""
    world = q1_world(case)
    mdp = world.mdp
    expected = q1.Q1[case]
    n = q1.Q1_GRIDS[case]["valueIterations"]
    sol = run(solver(mdp, "vi", q_from="current", tol=0.0, max_sweeps=n), record=True)
    assert sol.sweeps == n == max(expected["values"]) and len(sol.history) == n
    for k in expected["values"]:
        v = np.zeros(mdp.n_states) if k == 0 else sol.history[k - 1].values
        qv = mdp.q_values(v)

        def q_of(s: int) -> dict[str, float]:
            return {ACTION_NAMES[a]: qv[mdp.state_ptr[s] + i] for i, a in enumerate(mdp.actions_of(s))}

        policy = None if k == 0 else [ACTION_NAMES[a] if a >= 0 else None for a in sol.history[k - 1].policy]
        check_q1_iteration(world, k, v, q_of, policy, expected)


@pytest.mark.parametrize("case", sorted(q1.Q1))
def test_cs188_q1_through_the_command_line(capsys, tmp_path, case):
    """CS188 q1 through ``mdpviz solve --game gridworld --grid FILE ... --sweeps K --q-from current --json``:
    the printed V_K, Q from V_K and, at K = 100, the policy."""
    t = q1.Q1_GRIDS[case]
    grid = tmp_path / f"{case}.txt"
    grid.write_text(t["grid"])
    world = q1_world(case)
    base = ["--game", "gridworld", "--grid", str(grid), "--noise", str(t["noise"]), "--living-reward",
            str(t["livingReward"]), "--discount", str(t["discount"]), "--method", "vi", "--q-from", "current",
            "--tol", "1e-300"]
    for k in q1.Q1[case]["values"]:
        if k == 0:
            continue  # --sweeps takes K >= 1 (V_0 is 0 everywhere); the library test checks k = 0
        d = solve_json(capsys, *base, "--sweeps", str(k))
        assert d["sweeps"] == k or (d["converged"] and d["sweeps"] < k)  # exactly converged: V_k stays
        check_q1_iteration(world, k, d["values"], lambda s: d["q"][s], d["policy"], q1.Q1[case])


# --------------------------------------------------------------------------- CS188 q2 and q3
def grid_policy(world, discount: float) -> list[str | None]:
    """``computePolicy``: ValueIterationAgent's default 100 iterations, the action of every state from
    V_100 by the strict float maximum (``computeActionFromValues``)."""
    sol = run(solver(world.mdp, "vi", max_sweeps=cs188.GRID_POLICY_ITERATIONS, tol=0.0, ties="strict",
                     q_from="current"))
    assert sol.sweeps == cs188.GRID_POLICY_ITERATIONS
    return [ACTION_NAMES[a] if a >= 0 else None for a in sol.policy]


def wrong_cells(world, policy: list[str | None], spec: str) -> list[tuple[tuple[int, int], str, str]]:
    """The cells where the .test's policy grid names an action (N/E/S/W; ``_`` unchecked) and the policy
    takes another: (cell, wanted, taken)."""
    names = {"N": "north", "E": "east", "S": "south", "W": "west", "X": "exit"}
    rows = [row.split() for row in spec.strip().replace("/", "\n").splitlines() if row.strip()]
    geo = world.geometry
    assert (len(rows), len(rows[0])) == (geo.rows, geo.cols)
    return [((r, c), names[ch], policy[geo.state[r, c]]) for r, row in enumerate(rows) for c, ch in enumerate(row)
            if ch in names and policy[geo.state[r, c]] != names[ch]]


def follow_path(world, policy: list[str | None], steps: int = 100) -> list[str]:
    """``followPath(policy, start)``: from the start, each state's action without noise, as "(x,y)" with
    (0, 0) at the bottom left, until an exit ("TERMINAL_STATE"), a move off the board's states, or 100 steps."""
    geo = world.geometry
    moves = {"north": (0, 1), "south": (0, -1), "east": (1, 0), "west": (-1, 0)}
    r, c = geo.start
    x, y = c, geo.rows - 1 - r
    path: list[str] = []
    for _ in range(steps):
        row, col = geo.rows - 1 - y, x
        if not (0 <= row < geo.rows and 0 <= col < geo.cols) or geo.state[row, col] < 0:
            break  # "if state not in policy: break" (a wall or off the board)
        action = policy[geo.state[row, col]]
        path.append(f"({x},{y})")
        if action in ("exit", None):
            path.append("TERMINAL_STATE")
            break
        dx, dy = moves[action]
        x, y = x + dx, y + dy
    return path


def test_cs188_q2_bridge_crossing():
    """CS188 q2 (GridPolicyTest, test_cases/q2/1-bridge-grid.test): with sebsadface/ai's answer (discount
    0.9, noise 0) the agent at the start crosses the bridge (E); only one of the defaults (0.9, 0.2) changed.
    With the defaults themselves it does not cross (the question's premise)."""
    default, answer = cs188.Q2["default"], cs188.Q2["answer"]
    assert not (answer[0] != default[0] and answer[1] != default[1])
    discount, noise = answer
    world = cs188_grid(cs188.Q2["grid"], noise, 0.0, discount)
    assert wrong_cells(world, grid_policy(world, discount), cs188.Q2["policy"]) == []
    world = cs188_grid(cs188.Q2["grid"], default[1], 0.0, default[0])
    assert wrong_cells(world, grid_policy(world, default[0]), cs188.Q2["policy"]) == [((1, 1), "east", "west")]


@pytest.mark.parametrize("case", sorted(cs188.Q3))
def test_cs188_q3_policies(case):
    """CS188 q3 (GridPolicyTest, test_cases/q3/<case>.test) with sebsadface/ai's answers: the policy grid
    and the noise-free path's ``pathVisits`` / ``pathNotVisits``."""
    t = cs188.Q3[case]
    discount, noise, living = t["answer"]
    world = cs188_grid(cs188.DISCOUNT_GRID, noise, living, discount)
    policy = grid_policy(world, discount)
    assert wrong_cells(world, policy, t["policy"]) == []
    path = follow_path(world, policy)
    if "pathVisits" in t:
        assert t["pathVisits"] in path, path
    if "pathNotVisits" in t:
        assert t["pathNotVisits"] not in path, path


def test_cs188_q3_each_answer_passes_its_own_case_only():
    """The five regimes are five different behaviours: each answer's policy passes its own .test and fails
    every other one (policy grid or path), so none of the passes above is an accident of a loose check."""
    for answer_of, t in cs188.Q3.items():
        discount, noise, living = t["answer"]
        world = cs188_grid(cs188.DISCOUNT_GRID, noise, living, discount)
        policy = grid_policy(world, discount)
        path = follow_path(world, policy)
        passed = [case for case, u in cs188.Q3.items()
                  if not wrong_cells(world, policy, u["policy"]) and u.get("pathVisits", path[0]) in path
                  and u.get("pathNotVisits") not in path]
        assert passed == [answer_of], (answer_of, passed, path)


@pytest.mark.parametrize("case", sorted(cs188.Q3))
def test_cs188_q3_through_the_command_line(capsys, tmp_path, case):
    """The same policies from ``mdpviz solve --game gridworld ... --sweeps 100 --ties strict --q-from current``."""
    t = cs188.Q3[case]
    discount, noise, living = t["answer"]
    grid = tmp_path / "discount.txt"
    grid.write_text(cs188.DISCOUNT_GRID)
    d = solve_json(capsys, "--game", "gridworld", "--grid", str(grid), "--noise", str(noise), "--living-reward",
                   str(living), "--discount", str(discount), "--method", "vi", "--sweeps", "100", "--tol", "1e-300",
                   "--ties", "strict", "--q-from", "current")
    world = cs188_grid(cs188.DISCOUNT_GRID, noise, living, discount)
    assert d["sweeps"] == 100 or (d["converged"] and d["sweeps"] < 100)  # exactly converged: V_100 = V_sweeps
    assert d["policy"] == grid_policy(world, discount)
    assert wrong_cells(world, d["policy"], t["policy"]) == []


# --------------------------------------------------------------------------- pymdptoolbox 4.0b3
def pymdptoolbox_bound(P, R, discount: float, epsilon: float = 0.01) -> int:
    """``ValueIteration._boundIter``: the iteration cap pymdptoolbox computes for discount < 1, from one
    Bellman backup of V = 0 (span of the change) and k = 1 - sum_s' min_{a,s} P(s' | s, a)."""
    P = np.asarray(P, dtype=np.float64)
    k = 1 - P.min(axis=(0, 1)).sum()
    span = float(np.ptp(np.asarray(R, dtype=np.float64).max(axis=1)))
    return int(math.ceil(math.log((epsilon * (1 - discount) / discount) / span) / math.log(discount * k)))


def pymdptoolbox_stop(history, discount: float, bound: int, epsilon: float = 0.01) -> int:
    """The iteration at which pymdptoolbox's (Gauss-Seidel) value iteration stops on these sweeps: the
    first whose change has a span below epsilon (1 - discount) / discount, or the bound."""
    thresh = epsilon * (1 - discount) / discount
    prev = np.zeros_like(history[0].values)
    for i, sw in enumerate(history, 1):
        if float(np.ptp(sw.values - prev)) < thresh or i == bound:
            return i
        prev = sw.values
    raise AssertionError("no stop within the recorded sweeps")


def test_pymdptoolbox_value_iteration_forest_docstring():
    """``ValueIteration`` docstring: forest(), discount 0.96 -> V (5.93215488, 9.38815488, 13.38815488)
    (``expected[k] - vi.V[k] < 1e-12``; here both sides), policy (0, 0, 0), ``vi.iter`` 4.

    pymdptoolbox stops value iteration when the SPAN of V_k - V_(k-1) falls below epsilon (1 - gamma) /
    gamma (epsilon 0.01); mdpviz's "vi" stops on its max-norm (``tol``). The forest's values all rise by
    nearly the same amount each sweep, so the span rule stops at sweep 4, far from V*; mdpviz's own rule at
    the same threshold runs on. The count is reproduced by pymdptoolbox's rule applied to mdpviz's sweeps,
    and V_4 with its policy (greedy in V_3, the backup that made V_4: mdpviz's default) are the documented ones."""
    P, R = forest()
    mdp = pymdptoolbox_mdp(P, R, 0.96)
    hist = run(solver(mdp, "vi", tol=0.0, max_sweeps=100), record=True).history
    it = pymdptoolbox_stop(hist, 0.96, pymdptoolbox_bound(P, R, 0.96))
    assert it == 4
    np.testing.assert_allclose(hist[it - 1].values, (5.93215488, 9.38815488, 13.38815488), atol=1e-12, rtol=0)
    assert tuple(hist[it - 1].policy) == (0, 0, 0)
    sol = run(solver(mdp, "vi", max_sweeps=4, tol=0.0))  # the same through the common cap
    np.testing.assert_array_equal(sol.values, hist[3].values)
    assert solve(mdp, "vi", tol=0.01 * 0.04 / 0.96).sweeps > 4  # mdpviz's max-norm rule: not the same count


def test_pymdptoolbox_value_iteration_small_docstring():
    """``ValueIteration`` docstring (dense and sparse P): small(), discount 0.9 -> V (40.048625392716815,
    33.65371175967546), policy (1, 0), ``vi.iter`` 26 (by the span rule, before the bound)."""
    mdp = pymdptoolbox_mdp(SMALL_P, SMALL_R, 0.9)
    hist = run(solver(mdp, "vi", tol=0.0, max_sweeps=100), record=True).history
    bound = pymdptoolbox_bound(SMALL_P, SMALL_R, 0.9)
    it = pymdptoolbox_stop(hist, 0.9, bound)
    assert it == 26 < bound
    np.testing.assert_allclose(hist[it - 1].values, (40.048625392716815, 33.65371175967546), atol=1e-12, rtol=0)
    assert tuple(hist[it - 1].policy) == (1, 0)


def test_pymdptoolbox_value_iteration_gauss_seidel_forest_docstring():
    """``ValueIterationGS`` docstring: forest(), discount 0.9 -> V (25.5833879767579, 28.830654635546928,
    32.83065463554693) (``expected[k] - vigs.V[k] < 1e-12``; here both sides), policy (0, 0, 0).

    pymdptoolbox's ValueIterationGS sweeps the states in place in index order (mdpviz's "gs") and stops by
    the span rule above; its policy loop then backs every state up once more, in place, writing V[s]: the V
    it returns is one Gauss-Seidel sweep past the stop, and its policy the greedy actions of that sweep."""
    P, R = forest()
    mdp = pymdptoolbox_mdp(P, R, 0.9)
    hist = run(solver(mdp, "gs", tol=0.0, max_sweeps=100), record=True).history
    it = pymdptoolbox_stop(hist, 0.9, pymdptoolbox_bound(P, R, 0.9))
    final = hist[it]  # sweep it + 1
    np.testing.assert_allclose(final.values, (25.5833879767579, 28.830654635546928, 32.83065463554693),
                               atol=1e-12, rtol=0)
    from mdpviz.solvers import greedy_policy

    assert tuple(greedy_policy(mdp, hist[it - 1].values)[1]) == (0, 0, 0) == tuple(final.policy)
    assert solve(mdp, "gs", tol=1e-12).values[0] > final.values[0] + 0.5  # far from V*, as documented


FINITE_HORIZON_V = [[2.6973, 0.81, 0.0, 0.0], [5.9373, 3.24, 1.0, 0.0], [9.9373, 7.24, 4.0, 0.0]]
"""``FiniteHorizon`` docstring: ``fh.V`` for forest(), discount 0.9, N = 3 (S x (N + 1); column n = stage n,
column N the terminal stage, 0), printed by numpy to 4 decimals."""

FINITE_HORIZON_POLICY = [[0, 0, 0], [0, 0, 1], [0, 0, 0]]
"""``FiniteHorizon`` docstring: ``fh.policy`` (S x N; column n = the action at stage n)."""

PRINTED_4 = 0.5e-4 + 1e-12
"""Half a unit of the docstring's 4th printed decimal (the doctest compares the printed array)."""


def test_pymdptoolbox_finite_horizon_forest_docstring():
    """``FiniteHorizon(P, R, 0.9, 3)`` on forest(): backward induction from V[:, N] = 0. Stage n has
    N - n stages to go, so V[:, n] is mdpviz's V after N - n sweeps of synchronous value iteration from
    V = 0, and policy[:, n] (greedy in V[:, n + 1], the backup that made V[:, n]) is that sweep's policy in
    mdpviz's default convention (``q_from="previous"``). No finite-horizon solver is needed: the sweeps of
    "vi" ARE the stages, and their policies the non-stationary policy."""
    P, R = forest()
    mdp = pymdptoolbox_mdp(P, R, 0.9)
    n = 3
    hist = run(solver(mdp, "vi", tol=0.0, max_sweeps=n), record=True).history
    assert len(hist) == n
    V = np.asarray(FINITE_HORIZON_V)
    policy = np.asarray(FINITE_HORIZON_POLICY)
    np.testing.assert_array_equal(V[:, n], 0.0)
    for stage in range(n):
        sw = hist[n - stage - 1]  # n - stage stages to go
        np.testing.assert_allclose(sw.values, V[:, stage], atol=PRINTED_4, rtol=0, err_msg=f"stage {stage}")
        np.testing.assert_array_equal(sw.policy, policy[:, stage], err_msg=f"stage {stage}")
    # the stage policies differ (cut the young forest with one stage to go): a stationary policy cannot say it
    assert tuple(policy[:, n - 1]) != tuple(policy[:, 0])


def test_pymdptoolbox_finite_horizon_through_the_command_line(capsys, tmp_path):
    """The same stages from ``mdpviz solve --game file --mdp FILE --sweeps K --json``: the forest written as
    a course MDP file (continuing, each transition carrying R(s, a))."""
    P, R = forest()
    lines = ["numStates 3", "numActions 2", "end -1"]
    for a in range(2):
        for s in range(3):
            for t in range(3):
                if P[a, s, t] > 0:
                    lines.append(f"transition {s} {a} {t} {R[s, a]} {P[a, s, t]}")
    lines += ["mdptype continuing", "discount  0.9"]
    f = tmp_path / "forest.txt"
    f.write_text("\n".join(lines) + "\n")
    for stage in range(3):
        d = solve_json(capsys, "--game", "file", "--mdp", str(f), "--method", "vi", "--sweeps", str(3 - stage),
                       "--tol", "1e-300")
        np.testing.assert_allclose(d["values"], np.asarray(FINITE_HORIZON_V)[:, stage], atol=PRINTED_4, rtol=0)
