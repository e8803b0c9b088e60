"""Issue 26's course conventions and per-cell rewards, against the courses' own published numbers.

Sources (each named where used):
* aima-python (github.com/aimacode/aima-python): ``aima/mdp.py`` (``value_iteration``, figure 17.4;
  ``GridMDP``) and ``tests/test_mdp.py`` (``test_value_iteration``, ``test_best_policy``,
  ``test_policy_iteration``; its environments 0-3, the third with R(s) of -0.1, -0.5 and +0.5 on different
  squares). aima-python compares values with ``pytest.approx`` (relative 1e-6): so do these tests.
* aima-java (github.com/aimacode/aima-java): ``ValueIterationTest.testValueIterationForFig17_3``
  (discount 1, figure 17.3's utilities, ``DELTA_THRESHOLD = 0.001``).
* Berkeley CS188's reinforcement project: ``reinforcementTestClasses.py``, ``GridPolicyTest`` (question 3:
  ``computePolicy`` runs ``ValueIterationAgent(grid, discount)`` with its default 100 iterations and asks
  ``computeActionFromValues`` for each state: the policy from V_100 itself, by the strict float maximum
  ``q > best``), and the most probable path from the start must reach the chosen exit.
"""
from __future__ import annotations

import numpy as np
import pytest

from mdpviz.models.gridworld.rules import (
    BUILTIN_MAPS, GridFileError, GridSettings, cell_value, compile_gridworld, load_map, parse_grid, q_by_direction,
)
from mdpviz.models.gridworld.spec import settings_from_dict, settings_to_dict
from mdpviz.solvers import run, solve, solver

# ---------------------------------------------------------------------------------- aima-python's worlds
# tests/test_mdp.py's environments as map files: rows top first; an exit is a terminal square with its R,
# an open square carries the living reward or its own R (".-0.5"). aima-python's (x, y) has y up, x right.
AIMA_ENVS: dict[str, tuple[str, float]] = {
    "sequential_decision_environment": ("""
        . . . +1
        . # . -1
        S . . .
    """, -0.04),
    "sequential_decision_environment_1": ("""
        . . . +1
        . # . -1
        S . . .
    """, -0.1),
    "sequential_decision_environment_2": ("""
        . . . +1
        . # . -1
        S . . .
    """, -2.0),
    "sequential_decision_environment_3": ("""
        -1    .     .     .     .     .+0.5
        S     #     #     .-0.5 .     .
        .     #     +1    +3    #     .
        .     .     .     #     #     .
        .+0.5 .     .     .     .     -1
    """, -0.1),
}

AIMA_VALUES: dict[str, dict[tuple[int, int], float]] = {  # test_value_iteration, value_iteration(env, .01)
    "sequential_decision_environment": {
        (3, 2): 1.0, (3, 1): -1.0,
        (3, 0): 0.12958868267972745, (0, 1): 0.39810203830605462,
        (0, 2): 0.50928545646220924, (1, 0): 0.25348746162470537,
        (0, 0): 0.29543540628363629, (1, 2): 0.64958064617168676,
        (2, 0): 0.34461306281476806, (2, 1): 0.48643676237737926,
        (2, 2): 0.79536093684710951},
    "sequential_decision_environment_1": {
        (3, 2): 1.0, (3, 1): -1.0,
        (3, 0): -0.0897388258468311, (0, 1): 0.146419707398967840,
        (0, 2): 0.30596200514385086, (1, 0): 0.010092796415625799,
        (0, 0): 0.00633408092008296, (1, 2): 0.507390193380827400,
        (2, 0): 0.15072242145212010, (2, 1): 0.358309043654212570,
        (2, 2): 0.71675493618997840},
    "sequential_decision_environment_2": {
        (3, 2): 1.0, (3, 1): -1.0,
        (3, 0): -3.5141584808407855, (0, 1): -7.8000009574737180,
        (0, 2): -6.1064293596058830, (1, 0): -7.1012549580376760,
        (0, 0): -8.5872244532783200, (1, 2): -3.9653547121245810,
        (2, 0): -5.3099468802901630, (2, 1): -3.3543366255753995,
        (2, 2): -1.7383376462930498},
    "sequential_decision_environment_3": {
        (0, 0): 4.350592130345558, (0, 1): 3.640700980321895, (0, 2): 3.0734806370346943, (0, 3): 2.5754335063434937,
        (0, 4): -1.0,
        (1, 0): 3.640700980321895, (1, 1): 3.129579352304856, (1, 4): 2.0787517066719916,
        (2, 0): 3.0259220379893352, (2, 1): 2.5926103577982897, (2, 2): 1.0, (2, 4): 2.507774181360808,
        (3, 0): 2.5336747364500076, (3, 2): 3.0, (3, 3): 2.292172805400873, (3, 4): 2.996383110867515,
        (4, 0): 2.1014575936349886, (4, 3): 3.1297590518608907, (4, 4): 3.6408806798779287,
        (5, 0): -1.0, (5, 1): 2.5756132058995282, (5, 2): 3.0736603365907276, (5, 3): 3.6408806798779287,
        (5, 4): 4.350771829901593},
}

AIMA_ARROWS: dict[str, list[list[str | None]]] = {  # test_best_policy: to_arrows(best_policy(env, U)), top row first
    "sequential_decision_environment": [['>', '>', '>', '.'], ['^', None, '^', '.'], ['^', '>', '^', '<']],
    "sequential_decision_environment_1": [['>', '>', '>', '.'], ['^', None, '^', '.'], ['^', '>', '^', '<']],
    "sequential_decision_environment_2": [['>', '>', '>', '.'], ['^', None, '>', '.'], ['>', '>', '>', '^']],
    "sequential_decision_environment_3": [['.', '>', '>', '>', '>', '>'],
                                          ['v', None, None, '>', '>', '^'],
                                          ['v', None, '.', '.', None, '^'],
                                          ['v', '<', 'v', None, None, '^'],
                                          ['<', '<', '<', '<', '<', '.']],
}

ARROW = {"north": "^", "east": ">", "south": "v", "west": "<"}


def aima_world(name: str, *, discount: float = 0.9):
    """aima-python's environment ``name`` in mdpviz's AIMA convention (GridMDP's default gamma 0.9)."""
    text, living = AIMA_ENVS[name]
    grid = parse_grid(text, f"<{name}>")
    return compile_gridworld(GridSettings(grid=grid, noise=0.2, living_reward=living, discount=discount,
                                          convention="aima"))


def at_xy(world, values: np.ndarray, x: int, y: int) -> float:
    """The value drawn on aima-python's square (x, y) (y counts rows from the bottom)."""
    g = world.geometry
    return cell_value(g, values, g.rows - 1 - y, x)


@pytest.mark.parametrize("name", list(AIMA_ENVS))
def test_aima_python_value_iteration_tables(name: str) -> None:
    """aima-python tests/test_mdp.py test_value_iteration: value_iteration(env, .01) cell by cell, at its
    own tolerance (pytest.approx); the third environment has its own R(s) on different squares."""
    world = aima_world(name)
    sol = solve(world.mdp, "vi", sequence="aima", epsilon=0.01)
    assert sol.converged
    got = {xy: at_xy(world, sol.values, *xy) for xy in AIMA_VALUES[name]}
    assert got == pytest.approx(AIMA_VALUES[name])


@pytest.mark.parametrize("name", list(AIMA_ENVS))
def test_aima_python_best_policy(name: str) -> None:
    """aima-python tests/test_mdp.py test_best_policy: the greedy policy of the returned utilities."""
    world = aima_world(name)
    # aima-python's best_policy: max(actions, key=...) takes the first of its orientations (east, north,
    # west, south) among equal floats; in the third world the top-right square's east and north tie exactly
    sol = solve(world.mdp, "vi", sequence="aima", epsilon=0.01, ties="strict",
                action_order=("east", "north", "west", "south"))
    g = world.geometry
    names = world.mdp.action_labels
    arrows = []
    for r in range(g.rows):
        row: list[str | None] = []
        for c in range(g.cols):
            s = int(g.state[r, c])
            row.append(None if s < 0 else "." if world.mdp.terminal[s] else ARROW[names[int(sol.policy[s])]])
        arrows.append(row)
    assert arrows == AIMA_ARROWS[name]


def aima_python_value_iteration(world, epsilon: float, gamma: float) -> list[dict[tuple[int, int], float]]:
    """aima-python's ``value_iteration`` loop (aima/mdp.py, figure 17.4) written again over the grid's
    cells, returning every sweep's U_k (k = 1, 2, ...): U_0 = 0, U_{k+1}(s) = R(s) + gamma max_a sum_s'
    P(s' | s, a) U_k(s') with no action (U = R) on a terminal square, until delta <= epsilon (1 - gamma) /
    gamma. GridMDP's T: 0.8 ahead, 0.1 to each side, a wall or the edge leaves the agent in place."""
    g, st = world.geometry, world.settings
    cells = [(r, c) for r in range(g.rows) for c in range(g.cols) if g.state[r, c] >= 0]
    grid = st.grid

    def R(cell):
        x = grid.cells[cell[0]][cell[1]]
        if not isinstance(x, str):
            return float(x)
        return float(x[1:]) if len(x) > 1 else st.living_reward

    def go(cell, d):
        r, c = cell[0] + d[0], cell[1] + d[1]
        return (r, c) if 0 <= r < g.rows and 0 <= c < g.cols and g.state[r, c] >= 0 else cell

    terminal = {cell for cell in cells if not isinstance(grid.cells[cell[0]][cell[1]], str)}
    dirs = [(0, 1), (-1, 0), (0, -1), (1, 0)]  # east, north, west, south (aima's orientations)
    U1 = {s: 0.0 for s in cells}
    out = []
    while True:
        U = U1.copy()
        delta = 0.0
        for s in cells:
            if s in terminal:
                best = 0.0
            else:
                best = max(sum(p * U[go(s, d2)] for p, d2 in
                               ((0.8, d), (0.1, dirs[(i + 1) % 4]), (0.1, dirs[(i - 1) % 4])))
                           for i, d in enumerate(dirs))
            U1[s] = R(s) + gamma * best
            delta = max(delta, abs(U1[s] - U[s]))
        out.append(dict(U1))
        if delta <= epsilon * (1 - gamma) / gamma:
            return out


def test_figure_17_5a_curves_come_out_sweep_by_sweep() -> None:
    """AIMA figure 17.5(a): the utilities of (4,3), (3,3), (1,1), (3,1), (4,1) against the number of
    iterations (discount 1, R(s) = -0.04), as aima-python's loop computes them, every sweep to 1e-12;
    mdpviz's plain value iteration is another sequence (R(s') one sweep early), so the option matters."""
    world = aima_world("sequential_decision_environment", discount=1.0)
    ref = aima_python_value_iteration(world, 0.001, 1.0)
    hist = run(solver(world.mdp, "vi", sequence="aima", epsilon=0.001), record=True).history
    assert len(hist) == len(ref) and hist[-1].converged
    g = world.geometry
    for k, (sw, u) in enumerate(zip(hist, ref), 1):
        for (r, c), want in u.items():
            assert cell_value(g, sw.values, r, c) == pytest.approx(want, abs=1e-12), (k, r, c)
    # the curves' opening: (3,3) (row 1 from the top, column 3) is R(s) = -0.04 after sweep 1, then rises
    assert cell_value(g, hist[0].values, 0, 2) == pytest.approx(-0.04)
    plain = run(solver(world.mdp, "vi", max_sweeps=1), record=True).history[0]
    assert cell_value(g, plain.values, 0, 2) != pytest.approx(-0.04)  # R(s') counted from the first sweep


def test_aima_java_figure_17_3_at_discount_1() -> None:
    """aima-java ValueIterationTest.testValueIterationForFig17_3: discount 1, figure 17.3's utilities
    within DELTA_THRESHOLD = 0.001 (aima-java's (x, y): column x, row y from the bottom, 1-based)."""
    world = aima_world("sequential_decision_environment", discount=1.0)
    sol = solve(world.mdp, "vi", sequence="aima", epsilon=1e-4)
    want = {(1, 1): 0.705, (1, 2): 0.762, (1, 3): 0.812, (2, 1): 0.655, (2, 3): 0.868, (3, 1): 0.611,
            (3, 2): 0.660, (3, 3): 0.918, (4, 1): 0.388, (4, 2): -1.0, (4, 3): 1.0}
    for (x, y), u in want.items():
        assert at_xy(world, sol.values, x - 1, y - 1) == pytest.approx(u, abs=0.001), (x, y)


def test_aima_python_policy_iteration_policies() -> None:
    """aima-python tests/test_mdp.py test_policy_iteration: policy iteration's policy on environments 0-2
    (the same arrows as test_best_policy's, which these tests read)."""
    for name in ("sequential_decision_environment", "sequential_decision_environment_1",
                 "sequential_decision_environment_2"):
        world = aima_world(name)
        pi = solve(world.mdp, "pi").policy
        vi = solve(world.mdp, "vi", sequence="aima", epsilon=0.01).policy
        np.testing.assert_array_equal(pi, vi)


def test_aima_sequence_stops_one_sweep_early_and_says_so() -> None:
    """aima-python returns U, the values before its last sweep: the Solution's values are the
    second-to-last snapshot's, and the count of sweeps is the snapshots'."""
    world = aima_world("sequential_decision_environment")
    sol = run(solver(world.mdp, "vi", sequence="aima", epsilon=0.01), record=True)
    assert sol.sweeps == len(sol.history)
    np.testing.assert_array_equal(sol.values, sol.history[-2].values)
    bound = 0.01 * (1 - 0.9) / 0.9
    assert sol.history[-1].delta <= bound < sol.history[-2].delta


# ---------------------------------------------------------------------------------- CS188 q3's tie
def most_probable_path(world, policy: np.ndarray, limit: int = 50) -> list[tuple[int, int]]:
    """CS188 GridPolicyTest's followPath: from the start, move the policy's way (no slip) until an exit."""
    g, mdp = world.geometry, world.mdp
    cell = g.start
    path = [cell]
    moves = {"north": (-1, 0), "east": (0, 1), "south": (1, 0), "west": (0, -1)}
    for _ in range(limit):
        s = int(g.state[cell])
        name = mdp.action_labels[int(policy[s])]
        if name == "exit":
            break
        dr, dc = moves[name]
        r, c = cell[0] + dr, cell[1] + dc
        if 0 <= r < g.rows and 0 <= c < g.cols and g.state[r, c] >= 0:
            cell = (r, c)
        path.append(cell)
    return path


def test_cs188_q3_answer_at_discount_1_goes_east_under_the_strict_rule() -> None:
    """CS188 q3 ("prefer the distant exit (+10), avoiding the cliff (-10)") with the answer (discount 1,
    noise 0.4, living reward 0): after 100 iterations every Q-value near the top is 10 up to rounding.
    CS188's agent (policy from V_100, strict float maximum) walks up and east to the +10; mdpviz's
    tolerance rule calls those values ties and takes north, into the wall at the top-left corner, for ever."""
    world = compile_gridworld(GridSettings(grid=load_map("discount"), noise=0.4, living_reward=0.0, discount=1.0))
    strict = run(solver(world.mdp, "vi", max_sweeps=100, tol=0.0, ties="strict", q_from="current"))
    path = most_probable_path(world, strict.policy)
    assert path[-1] == (2, 4)  # the +10 exit
    assert all(r < 4 for r, _ in path)  # never on the cliff row
    tolerant = run(solver(world.mdp, "vi", max_sweeps=100, tol=0.0, q_from="current"))
    assert most_probable_path(world, tolerant.policy)[-3:] == [(0, 0)] * 3  # north into the wall
    # the strict maximum is not a tie-break in disguise: on the path, one action is the float maximum
    q = q_by_direction(world.geometry, world.mdp, strict.values)
    for cell in path[:-1]:
        qs = list(q[int(world.geometry.state[cell])].values())
        assert qs.count(max(qs)) == 1


def test_q_from_current_is_the_greedy_policy_of_the_shown_values() -> None:
    """q_from='current': sweep k's policy is greedy in V_k (CS188's iteration k); 'previous' (the default)
    is greedy in V_(k-1), the backup that made V_k: the default's sweep k+1 policy is the other's sweep k."""
    mdp = compile_gridworld(GridSettings(grid=BUILTIN_MAPS["bridge"], noise=0.2, discount=0.9)).mdp
    cur = run(solver(mdp, "vi", max_sweeps=12, tol=0.0, q_from="current"), record=True).history
    prev = run(solver(mdp, "vi", max_sweeps=12, tol=0.0), record=True).history
    assert all(sw.q_from == "current" for sw in cur) and all(sw.q_from == "previous" for sw in prev)
    for a, b in zip(cur[:-1], prev[1:]):
        np.testing.assert_array_equal(a.values, prev[a.iteration - 1].values)
        np.testing.assert_array_equal(a.policy, b.policy)
    gs = run(solver(mdp, "gs", max_sweeps=5, tol=0.0, q_from="current"), record=True).history
    from mdpviz.solvers.sweep import greedy_policy

    np.testing.assert_array_equal(gs[-1].policy, greedy_policy(mdp, gs[-1].values)[1])


# ---------------------------------------------------------------------------------- per-cell rewards
def test_own_reward_cells_parse_print_and_load_back() -> None:
    text = "-1 . .+0.5\nS-0.25 # .-0.5\n"
    grid = parse_grid(text)
    assert grid.cells[0][2] == ".+0.5" and grid.cells[1][2] == ".-0.5" and grid.cells[1][0] == ".-0.25"
    assert grid.start == (1, 0)
    assert grid.to_text() == text
    st = GridSettings(grid=grid, discount=0.9)
    back = settings_from_dict(settings_to_dict(st))
    assert back.grid.cells == grid.cells and back.grid.start == grid.start
    assert settings_to_dict(back) == settings_to_dict(st)
    # ".5" is still an exit worth 0.5: the sign is what makes a number an open cell's reward
    assert parse_grid("S .5\n").cells[0][1] == 0.5
    with pytest.raises(GridFileError, match=":1: cell 2"):
        parse_grid("S .-x 1\n")


def test_own_rewards_in_both_conventions() -> None:
    """CS188 pays a cell's reward on leaving it, AIMA as its R(s): the same values on the open cells."""
    grid = parse_grid(". .-0.5 +1\nS # -1\n")
    cs, ai = (compile_gridworld(GridSettings(grid=grid, noise=0.2, living_reward=-0.04, discount=0.9,
                                             convention=k)) for k in ("cs188", "aima"))
    vc, va = solve(cs.mdp).values, solve(ai.mdp).values
    for r, c in ((0, 0), (0, 1), (1, 0)):
        assert cell_value(cs.geometry, vc, r, c) == pytest.approx(cell_value(ai.geometry, va, r, c), abs=1e-9)
    # every move from (1, 2) of the first row pays -0.5 under CS188's rule
    s = int(cs.geometry.state[0, 1])
    rows = slice(int(cs.mdp.state_ptr[s]), int(cs.mdp.state_ptr[s + 1]))
    assert set(np.round(cs.mdp.row_reward[rows], 12)) == {-0.5}
    with pytest.raises(ValueError, match="positive reward"):
        GridSettings(grid=parse_grid("S .+1 +1\n"), discount=1.0).validate()


# ---------------------------------------------------------------------------------- bad options
@pytest.mark.parametrize("method, options, message", [
    ("bogus", {}, "unknown method 'bogus'"),
    ("prioritized", {"theta": 0.0}, "theta must be a finite number > 0"),
    ("prioritized", {"theta": -1.0}, "theta must be a finite number > 0"),
    ("evaluate", {"policy": [0, 1]}, "policy has 2 entries"),
    ("vi", {"ties": "loose"}, "ties must be one of tolerance, strict"),
    ("vi", {"q_from": "next"}, "q_from must be one of previous, current"),
    ("vi", {"sequence": "book"}, "sequence must be one of standard, aima"),
    ("pi", {"sequence": "aima"}, "sequence 'aima' is value iteration's"),
    ("vi", {"sequence": "aima", "tol": 1e-3}, "give epsilon, not tol"),
    ("vi", {"sequence": "aima", "epsilon": 0}, "epsilon must be a finite number > 0"),
    ("vi", {"ties": "strict", "tie_tol": 1e-6}, "same setting"),
    ("vi", {"action_order": ("east", "up")}, "'up' is not an action"),
    ("vi", {"action_order": (0, 0)}, "names action 0 twice"),
    ("pi", {"action_order": (1, 0)}, "value iteration's option"),
])
def test_bad_options_are_one_line_value_errors(method: str, options: dict, message: str) -> None:
    mdp = compile_gridworld(GridSettings()).mdp
    with pytest.raises(ValueError, match=message) as info:
        run(solver(mdp, method, **options))
    assert "\n" not in str(info.value)


def test_aima_sequence_needs_rewards_per_state() -> None:
    """A model whose steps from one state pay different rewards has no R(s): a ValueError, not a guess."""
    from mdpviz.core.mdp import TabularMDP

    mdp = TabularMDP.from_transitions(2, 2, [0, 0], [0, 1], [0, 0], [1.0, 1.0], [1.0, 2.0], discount=0.9,
                                      terminal=[1])
    with pytest.raises(ValueError, match="reward R\\(s\\) per state"):
        solver(mdp, "vi", sequence="aima")


def test_every_method_has_a_lesson_entry_and_the_lesson_names_the_convention() -> None:
    from mdpviz.models.kit.teaching.algorithms import ALGORITHM_LESSONS, algorithm_blocks
    from mdpviz.models.kit.teaching.lessons import lesson_for
    from mdpviz.solvers import METHODS, TIES

    assert set(METHODS) - {"hpi"} <= set(ALGORITHM_LESSONS)
    blocks = algorithm_blocks("vi", {"ties": "strict", "q_from": "current", "sequence": "aima"})
    text = " ".join(b.text for b in blocks)
    assert TIES["strict"] in text and "V_k itself" in text and "aima-python" in text
    world = compile_gridworld(GridSettings())
    import dataclasses

    lesson = dataclasses.replace(lesson_for("gridworld", world.settings, world.mdp),
                                 algorithm=algorithm_blocks("async-vi", {}))
    assert "The algorithm" in lesson.html() and "one state in place" in lesson.text()
    assert "### The algorithm" in lesson.markdown()


# ---------------------------------------------------------------------------------- the command line
def test_the_conventions_reach_the_command_line(capsys, tmp_path) -> None:
    """mdpviz solve takes --sequence aima --epsilon, --ties, --q-from and --action-order: aima-python's third
    environment from a map file with its own R(s) squares, and CS188 q3's strict case after 100 sweeps."""
    import json

    from mdpviz.cli import main

    path = tmp_path / "env3.grid"
    path.write_text(AIMA_ENVS["sequential_decision_environment_3"][0])
    assert main(["solve", "--game", "gridworld", "--grid", str(path), "--convention", "aima", "--living-reward",
                 "-0.1", "--discount", "0.9", "--sequence", "aima", "--epsilon", "0.01", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    world = aima_world("sequential_decision_environment_3")
    for (x, y), u in AIMA_VALUES["sequential_decision_environment_3"].items():
        r, c = world.geometry.rows - 1 - y, x
        if world.mdp.terminal[world.geometry.state[r, c]]:
            continue  # the generic command prints the model's 0 on terminal squares (their U is R(s))
        assert out["values"][int(world.geometry.state[r, c])] == pytest.approx(u)
    assert main(["solve", "--game", "gridworld", "--grid", "discount", "--noise", "0.4", "--discount", "1",
                 "--sweeps", "100", "--ties", "strict", "--q-from", "current", "--json"]) == 0
    top_row = json.loads(capsys.readouterr().out)["policy"][:5]
    assert top_row == ["east", "east", "east", "east", "south"]
    assert main(["solve", "--game", "gridworld", "--grid", "book", "--method", "pi", "--sequence", "aima"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mdpviz: error: sequence 'aima' is value iteration's") and err.count("\n") == 1


def test_aima_sequence_on_a_cs188_grid_is_cs188s_value_iteration_with_aimas_stop() -> None:
    """On CS188's convention (an exit cell's one action pays its reward) U_k is CS188's V_k: the exit
    cell's R(s) is its exit's reward, the "exited" state worth 0. Same sweeps as plain value iteration."""
    mdp = compile_gridworld(GridSettings(noise=0.2, living_reward=-0.04, discount=0.9)).mdp
    aima = run(solver(mdp, "vi", sequence="aima", epsilon=0.01), record=True)
    plain = run(solver(mdp, "vi", tol=0.0, max_sweeps=len(aima.history)), record=True)
    for a, b in zip(aima.history, plain.history):
        np.testing.assert_allclose(a.values, b.values, atol=1e-12)


def test_an_action_order_gives_the_same_answer_run_in_batches_or_step_by_step() -> None:
    """solve() asks value iteration for many sweeps per snapshot; the restated policy is the same."""
    world = aima_world("sequential_decision_environment_3")
    opts = dict(tol=1e-10, ties="strict", action_order=("east", "north", "west", "south"))
    batched = solve(world.mdp, "vi", **opts)
    stepped = run(solver(world.mdp, "vi", **opts), record=True)
    np.testing.assert_array_equal(batched.policy, stepped.policy)
    assert batched.sweeps == stepped.sweeps
