"""Ties and endless policies (issue 28 item 6), headless: every optimal action under the solvers' tie rule
against Q computed separately, the states a policy never ends from against hand-built chains, and
policy evaluation at discount 1 refusing a policy that loops collecting reward (library and CLI)."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from mdpviz.models.kit.pictures.display import inspection_html, Inspection, ActionBackup, state_q
from mdpviz.models.kit.game.game_model import build_game
from mdpviz.models.kit.pictures.ties import (board_legend, endless_states, endless_text, state_ties, sweep_ties, tied_sets,
                                    ties_legend)
from mdpviz.core.mdp import TabularMDP
from tests.test_course_algorithms import sutton_barto_grid
from mdpviz.solvers import ImproperPolicyError, evaluate_policy, run, solve, solver
from mdpviz.solvers.endless import infinite_states, never_ends, policy_matrix, trap_classes
from mdpviz.solvers.sweep import TIE_TOL


def sutton_grid(reward: float = -1.0) -> TabularMDP:
    """Sutton and Barto's Example 4.1, with ``reward`` per move (the course tests' grid)."""
    return sutton_barto_grid(reward)


def brute_force_ties(mdp: TabularMDP, values: np.ndarray) -> dict[int, tuple[int, ...]]:
    """The optimal-action sets of ``values`` with Q computed one outcome at a time in Python (not through
    the model's matrix), under the rule the solvers state: within TIE_TOL (1 + |best|) of the best."""
    out = {}
    for s in range(mdp.n_states):
        if mdp.terminal[s]:
            continue
        q = {}
        for a in mdp.actions_of(s):
            q[int(a)] = sum(p * (r + mdp.discount * values[d]) for d, p, r in mdp.outcomes(s, int(a)))
        best = max(q.values()) if mdp.sense[s] > 0 else min(q.values())
        tied = tuple(a for a in sorted(q) if abs(q[a] - best) <= TIE_TOL * (1 + abs(best)))
        if len(tied) > 1:
            out[s] = tied
    return out


# ---------------------------------------------------------------------------------- ties
def test_sutton_grid_ties_are_the_books_and_equal_a_separate_q_computation():
    mdp = sutton_grid()
    history = list(solver(mdp, "vi"))
    last = len(history) - 1
    ties = sweep_ties(mdp, history, last)
    assert ties == brute_force_ties(mdp, np.asarray(history[last - 1].values))  # V_(k-1): the sweep's backup
    # V* = minus the steps to the nearer corner: two shortest ways from the cells off the diagonal, four from
    # the two cells 3 steps from both corners
    up, down, right, left = range(4)
    assert ties == {3: (down, left), 5: (up, left), 6: (up, down, right, left), 9: (up, down, right, left),
                    10: (down, right), 12: (up, right)}
    for s, acts in ties.items():  # the solver's pick is one of them, the lowest
        assert history[last].policy[s] == acts[0]


def test_random_policy_evaluation_ties_are_figure_4_1_right_column():
    # figure 4.1, k = infinity: the greedy policy of v_pi (random policy) has the same six two-way cells
    mdp = sutton_grid()
    history = list(solver(mdp, "evaluate", policy="random"))
    ties = sweep_ties(mdp, history, len(history) - 1)
    assert ties == brute_force_ties(mdp, np.asarray(history[-1].values))  # evaluation: Q from its own V
    assert sorted(ties) == [3, 5, 6, 9, 10, 12]


def test_gambler_ties_equal_a_separate_q_computation():
    mdp = build_game("gambler").mdp
    sol = solve(mdp, "vi")
    values = np.asarray(sol.values)
    ties = tied_sets(mdp, mdp.q_values(values))
    expect = brute_force_ties(mdp, values)
    assert ties == expect
    assert len(ties) > 10  # the gambler's problem's many optimal stakes (Sutton and Barto figure 4.3)


def test_tic_tac_toe_symmetric_moves_are_all_optimal():
    game = build_game("ttt")
    mdp = game.mdp
    method, opts = game.solve_defaults()
    values = np.asarray(solve(mdp, method, **opts).values)
    expect = brute_force_ties(mdp, values)
    for s in range(mdp.n_states):  # a position's optimal moves, as its board draws them
        if mdp.terminal[s]:
            continue
        moves = state_ties(state_q(mdp, s, values), "min" if mdp.sense[s] < 0 else "max")
        assert moves == expect.get(s, moves if len(moves) == 1 else ()), s
    assert sum(len(m) >= 2 for m in expect.values()) > 10  # positions whose symmetric moves are equally good


def test_state_ties_and_legends():
    assert state_ties([1.0, np.nan, 1.0 + 1e-12, 0.5], "max") == (0, 2)
    assert state_ties([1.0, 0.2, 0.2], "min") == (1, 2)
    assert state_ties([np.nan, np.nan], "max") == ()
    assert ties_legend(None) == "" and ties_legend({}) == "one optimal action in every state (no ties)"
    assert ties_legend({1: (0, 1), 4: (2, 3)}).endswith("2 states have ties")
    assert ties_legend(1).endswith("1 state has ties")
    assert board_legend(None, np.array([False, True, True])) == "\u221e: the policy never ends from these 2 states"
    assert board_legend(None, None) == ""


def test_inspector_marks_every_tied_action():
    acts = (ActionBackup(0, "north", -2.0, "", True), ActionBackup(1, "east", -2.0, "", False),
            ActionBackup(2, "south", -3.0, "", False))
    html = inspection_html(Inspection("cell", -2.0, acts, "max", 1.0))
    assert "north: Q = -2.0000 \u2605 best" in html and "east: Q = -2.0000 \u2606 tied" in html
    assert "south: Q = -3.0000</b>" in html


# ---------------------------------------------------------------------------------- endless
def chain() -> TabularMDP:
    """0 -> 1 -> 2 (terminal); 3 <-> 4 a loop; 5 goes to 3 or to 2 with 1/2 each; 6 stays in 6 or goes to 2."""
    src = [0, 1, 3, 4, 5, 5, 6, 6]
    act = [0, 0, 0, 0, 0, 0, 0, 1]
    dst = [1, 2, 4, 3, 3, 2, 6, 2]
    prob = [1, 1, 1, 1, 0.5, 0.5, 1, 1]
    rew = [-1, -1, 0, 0, -1, -1, 0, -1]
    return TabularMDP.from_transitions(7, 2, src, act, dst, prob, rew, discount=1.0, terminal=[2])


def test_never_ends_on_a_hand_built_chain():
    mdp = chain()
    pol = np.array([0, 0, -1, 0, 0, 0, 0])
    # 3 and 4 loop; 5 falls into the loop with probability 1/2 (< 1: it may never end); 6 loops on itself
    assert never_ends(mdp, pol).tolist() == [False, False, False, True, True, True, True]
    assert never_ends(mdp, np.array([0, 0, -1, 0, 0, 0, 1])).tolist() == [False, False, False, True, True, True, False]
    cls = trap_classes(policy_matrix(mdp, pol), mdp.terminal)
    assert cls.tolist() == [-1, -1, -1, 0, 0, -1, 1]
    r = np.array([-1.0, -1, 0, 0, 1, -1, 0])  # the 3-4 loop pays 1 at 4: 3, 4 and 5 have no finite value
    infinite, free = infinite_states(policy_matrix(mdp, pol), r, mdp.terminal)
    assert infinite.tolist() == [False, False, False, True, True, True, False]
    assert free.tolist() == [False] * 6 + [True]


def test_never_ends_on_a_grid_whose_policy_bumps_into_the_wall():
    mdp = sutton_grid()
    up = np.where(mdp.terminal, -1, 0)
    # going up ends only in the first column (into the corner 0); everything else ends at the top wall
    expect = [s not in (0, 4, 8, 12, 15) for s in range(16)]
    assert never_ends(mdp, up).tolist() == expect
    assert endless_states(mdp, up).tolist() == expect
    names = endless_text(endless_states(mdp, up), lambda s: f"s{s}", limit=3)
    assert names == "the policy never ends from 11 states: s1, s2, s3 and 8 more"
    # going left ends in the corner from the first row only; the other rows stop at the wall
    left = never_ends(mdp, np.where(mdp.terminal, -1, 3))
    assert left.tolist() == [s not in (0, 1, 2, 3, 15) for s in range(16)]


def test_endless_states_only_where_the_question_arises():
    mdp = sutton_grid()
    up = np.where(mdp.terminal, -1, 0)
    disc = TabularMDP.from_transitions(2, 1, [0], [0], [1], [1.0], [1.0], discount=0.9, terminal=[1])
    assert endless_states(disc, np.array([0, -1])) is None  # a discount below 1: every value is finite
    assert endless_states(mdp, None) is None
    assert endless_states(mdp, up[:5]) is None  # not this model's policy


# ---------------------------------------------------------------------------------- evaluation at discount 1
def test_evaluation_refuses_a_loop_that_collects_reward_naming_every_state_it_diverges_from():
    mdp = sutton_grid()
    up = np.where(mdp.terminal, -1, 0)
    with pytest.raises(ImproperPolicyError) as e:
        solver(mdp, "evaluate", policy=up)
    assert sorted(e.value.states.tolist()) == [s for s in range(16) if s not in (0, 4, 8, 12, 15)]
    assert "never reaches a terminal state" in str(e.value)
    with pytest.raises(ImproperPolicyError):
        evaluate_policy(mdp, up)


def test_a_loop_that_collects_nothing_is_worth_zero_and_still_never_ends():
    mdp = sutton_grid(reward=0.0)
    up = np.where(mdp.terminal, -1, 0)
    for in_place in (False, True):
        sol = run(solver(mdp, "evaluate", policy=up, in_place=in_place))
        assert sol.converged and np.all(sol.values == 0.0)
    assert never_ends(mdp, up).sum() == 11
    # a state that pays before it falls into a free loop keeps what it paid
    m = chain()
    sol = run(solver(m, "evaluate", policy=np.array([0, 0, -1, 0, 0, 0, 0]), initial=np.arange(7.0)))
    assert sol.values.tolist() == [-2.0, -1.0, 0.0, 0.0, 0.0, -1.0, 0.0]


def test_policy_iteration_values_free_loops_at_zero_and_refuses_paying_ones():
    loop = TabularMDP.from_transitions(2, 1, [0], [0], [0], [1.0], [1.0], discount=1.0, terminal=[1])
    with pytest.raises(ImproperPolicyError, match=r"from state\(s\) 0 the policy never reaches"):
        run(solver(loop, "pi"))


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mdpviz.cli", *args], capture_output=True, text=True, timeout=120)


def test_cli_evaluate_at_discount_one_refuses_in_one_line_or_names_the_free_loop(tmp_path):
    north = tmp_path / "north.txt"
    north.write_text("-\n" + "north\n" * 14 + "-\n")
    r = _cli("solve", "--game", "gridworld", "--grid", "sutton4x4", "--policy", str(north))
    assert r.returncode == 2 and r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mdpviz: error: policy evaluation with discount 1: from state(s) (1,2)")
    r = _cli("solve", "--game", "gridworld", "--grid", "sutton4x4", "--set", "living_reward=0", "--policy", str(north))
    assert r.returncode == 0, r.stderr
    assert "the evaluated policy never ends from 11 states: (1,2), (1,3)" in r.stdout
    r = _cli("solve", "--game", "gridworld", "--grid", "sutton4x4", "--set", "living_reward=0", "--policy", str(north),
             "--json")
    out = json.loads(r.stdout)
    assert sum(out["never_ends"]) == 11 and len(out["never_ends"]) == len(out["states"])
    assert set(out["values"]) == {0.0}
