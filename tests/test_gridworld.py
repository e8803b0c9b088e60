"""Grid worlds (mdpviz.models.gridworld): the textbook figures reproduced exactly, both conventions,
the built-in CS188 maps and the text-file maps with file:line errors."""
from __future__ import annotations

import numpy as np
import pytest

from mdpviz import solve
from mdpviz.models import gridworld as gw
from mdpviz.models.gridworld import (
    BUILTIN_MAPS, GridFileError, GridSettings, compile_gridworld, move_outcomes, parse_grid, policy_rows,
    q_by_direction, read_grid, value_rows,
)
from mdpviz.solvers import evaluate_policy


def solved(**kw):
    w = compile_gridworld(GridSettings(**kw))
    return w, solve(w.mdp, "pi")


def arrows(w, sol) -> list[str]:
    return ["".join(x if x in "\u2191\u2192\u2193\u2190" else "." for x in (c or "." for c in row))
            for row in policy_rows(w.geometry, w.mdp, sol.policy)]


# --------------------------------------------------------------------------- Russell and Norvig, 4x3
AIMA_FIG_17_3 = [[0.812, 0.868, 0.918, 1.0],
                 [0.762, None, 0.660, -1.0],
                 [0.705, 0.655, 0.611, 0.388]]
"""AIMA 3rd ed. fig. 17.3 (4th ed. fig. 16.3): utilities of the 4x3 world with R(s) = -0.04, gamma = 1,
noise 0.2 (0.8 intended, 0.1 each side), the terminal cells showing their rewards +1 and -1."""


@pytest.mark.parametrize("convention", ["aima", "cs188"])
def test_aima_figure_17_3_values(convention):
    w, sol = solved(living_reward=-0.04, discount=1.0, noise=0.2, convention=convention)
    got = value_rows(w.geometry, sol.values)
    for grow, frow in zip(got, AIMA_FIG_17_3):
        for g, f in zip(grow, frow):
            if f is None:
                assert g is None
            else:
                assert round(g, 3) == pytest.approx(f, abs=1e-12)
    # the optimal policy of AIMA fig. 17.2(a)
    assert arrows(w, sol) == ["\u2192\u2192\u2192.", "\u2191.\u2191.", "\u2191\u2190\u2190\u2190"]


def test_aima_values_solve_the_book_bellman_equation():
    """U(s) = R(s) + gamma max_a sum P U(s') (AIMA eq. 17.5), with U(terminal) = R(terminal): checked
    cell by cell from the transition model, independently of the compiled rewards."""
    st = GridSettings(living_reward=-0.04, discount=1.0, noise=0.2, convention="aima")
    w, sol = solved(living_reward=-0.04, discount=1.0, noise=0.2, convention="aima")
    U = np.array(value_rows(w.geometry, sol.values), dtype=object)
    g = st.grid
    for r in range(g.rows):
        for c in range(g.cols):
            if g.cells[r][c] != ".":
                continue
            best = max(sum(p * U[nr][nc] for (nr, nc), p in move_outcomes(g, r, c, a, 0.2)) for a in range(4))
            assert U[r][c] == pytest.approx(-0.04 + best, abs=1e-10)


# The policy regimes of AIMA 3rd ed. fig. 17.2(b), as R(s) of the open cells changes, with the text's
# descriptions. The figure's boundaries -0.0850 and -0.0221 reproduce exactly; its -1.6284 and -0.4278
# do not: exact policy iteration puts those switches at -1.6497 and -0.4526 (a known discrepancy of
# the printed figure; these tests pin the computed boundaries, checked on both sides below).
REGIMES = {
    # R < -1.6497: "life is so painful that the agent heads straight for the nearest exit, even -1"
    -2.0: ["\u2192\u2192\u2192.", "\u2191.\u2192.", "\u2192\u2192\u2192\u2191"],
    # -0.4526 < R < -0.0850: the shortest route to +1, taking the shortcut from (3,1) past the -1
    -0.2: ["\u2192\u2192\u2192.", "\u2191.\u2191.", "\u2191\u2192\u2191\u2190"],
    # -0.0221 < R < 0: no risk at all: (4,1) and (3,2) head directly away from the -1
    -0.01: ["\u2192\u2192\u2192.", "\u2191.\u2190.", "\u2191\u2190\u2190\u2193"],
}


@pytest.mark.parametrize("reward", sorted(REGIMES))
def test_aima_policy_regimes(reward):
    w, sol = solved(living_reward=reward, discount=1.0, noise=0.2, convention="aima")
    assert arrows(w, sol) == REGIMES[reward]


@pytest.mark.parametrize("below, above", [(-1.6498, -1.6496), (-0.0851, -0.0849), (-0.0222, -0.0220)])
def test_aima_policy_switches_at_the_figure_thresholds(below, above):
    """The policy changes exactly at the figure's boundaries -0.0850 and -0.0221, and at -1.6497
    (printed as -1.6284 in the 3rd edition's figure, which does not reproduce)."""
    def pol(r):
        w, sol = solved(living_reward=r, discount=1.0, noise=0.2, convention="aima")
        return arrows(w, sol)

    assert pol(below) != pol(above)
    assert pol(below) == pol(below - 0.002) and pol(above) == pol(above + 0.002)


def test_positive_living_reward_avoids_both_exits():
    """R > 0 (the fourth regime): the agent never leaves. With gamma = 1 the utilities are infinite,
    so this is checked with gamma = 0.999: no chosen move can end in an exit, even by slipping."""
    w, sol = solved(living_reward=0.1, discount=0.999, noise=0.2, convention="aima")
    m = w.mdp
    for s in np.flatnonzero(~m.terminal):
        for d, p, _ in m.outcomes(int(s), int(sol.policy[s])):
            assert not m.terminal[d], (s, d, p)


# --------------------------------------------------------------------------- CS188 BookGrid
CS188_BOOKGRID = [[0.64, 0.74, 0.85, 1.00],
                  [0.57, None, 0.57, -1.00],
                  [0.49, 0.43, 0.48, 0.28]]
"""CS188 gridworld.py BookGrid after value iteration converges (discount 0.9, noise 0.2, living
reward 0), as its display prints them (two decimals): e.g. ``python gridworld.py -a value -i 100``."""


def test_cs188_bookgrid_values():
    w, sol = solved(discount=0.9, noise=0.2, living_reward=0.0, convention="cs188")
    got = value_rows(w.geometry, sol.values)
    for grow, frow in zip(got, CS188_BOOKGRID):
        for g, f in zip(grow, frow):
            assert (g is None) if f is None else round(g, 2) == pytest.approx(f)
    # the policy CS188 draws: exits on +1/-1, north at the bottom of the middle column
    assert policy_rows(w.geometry, w.mdp, sol.policy) == [
        ["\u2192", "\u2192", "\u2192", "exit"], ["\u2191", None, "\u2191", "exit"], ["\u2191", "\u2190", "\u2191", "\u2190"]]
    # independent check: the policy's values by a linear solve equal value iteration's
    v = evaluate_policy(w.mdp, sol.policy)
    assert np.allclose(v, sol.values, atol=1e-9)
    assert sol.values[w.start_state] == pytest.approx(0.4907, abs=5e-5)


def test_conventions_agree_on_every_builtin_map():
    for name, grid in BUILTIN_MAPS.items():
        for lr, g in ((0.0, 0.9), (-0.1, 1.0), (-1.0, 0.5)):
            a, sa = solved(grid=grid, living_reward=lr, discount=g, convention="aima")
            c, sc = solved(grid=grid, living_reward=lr, discount=g, convention="cs188")
            assert c.mdp.n_states == a.mdp.n_states + 1  # CS188's "exited" state
            va, vc = value_rows(a.geometry, sa.values), value_rows(c.geometry, sc.values)
            assert np.allclose(np.array(va, dtype=float), np.array(vc, dtype=float), atol=1e-9, equal_nan=True), name


def test_transitions_noise_and_walls():
    g = BUILTIN_MAPS["book"]
    # start (2, 0) bottom left, north: 0.8 up, 0.1 west (edge: stays), 0.1 east
    assert dict(move_outcomes(g, 2, 0, 0, 0.2)) == pytest.approx({(1, 0): 0.8, (2, 0): 0.1, (2, 1): 0.1})
    # (1, 0) east into the wall: stays 0.8; slips north and south
    assert dict(move_outcomes(g, 1, 0, 1, 0.2)) == pytest.approx({(1, 0): 0.8, (0, 0): 0.1, (2, 0): 0.1})
    # corner (0, 0) north: 0.8 + 0.1 stay (duplicates summed), 0.1 east
    assert dict(move_outcomes(g, 0, 0, 0, 0.2)) == pytest.approx({(0, 0): 0.9, (0, 1): 0.1})
    assert move_outcomes(g, 2, 0, 1, 0.0) == [((2, 1), 1.0)]


def test_cs188_exit_action_and_terminal():
    w = compile_gridworld(GridSettings())
    m = w.mdp
    s = int(w.geometry.state[0, 3])
    assert [int(a) for a in m.actions_of(s)] == [4]
    (d, p, r), = m.outcomes(s, 4)
    assert m.terminal[d] and p == 1.0 and r == 1.0
    assert m.terminal.sum() == 1 and m.state_labels[d] == "exited"
    wa = compile_gridworld(GridSettings(convention="aima"))
    assert wa.mdp.terminal.sum() == 2 and wa.mdp.n_actions == 4


@pytest.mark.parametrize("name", sorted(BUILTIN_MAPS))
def test_builtin_maps_solve(name):
    w, sol = solved(grid=BUILTIN_MAPS[name])
    assert sol.converged
    q = q_by_direction(w.geometry, w.mdp, sol.values)
    s = w.start_state
    assert max(q[s].values()) == pytest.approx(sol.values[s])


def test_cliff_and_bridge_known_choices():
    # bridge with noise 0 and discount 0.9: crossing to the 10 is optimal from the start
    w, sol = solved(grid=BUILTIN_MAPS["bridge"], noise=0.0)
    assert policy_rows(w.geometry, w.mdp, sol.policy)[1][1] == "\u2192"
    # with CS188's default noise 0.2 the bridge is too risky: go back to the 1
    w, sol = solved(grid=BUILTIN_MAPS["bridge"], noise=0.2)
    assert policy_rows(w.geometry, w.mdp, sol.policy)[1][1] == "\u2190"


# --------------------------------------------------------------------------- text maps
def test_parse_grid_round_trip_and_errors(tmp_path):
    text = "; the book's world\n. . . +1\n. # . -1\nS . . .\n"
    g = parse_grid(text, "x.txt")
    assert g.cells == BUILTIN_MAPS["book"].cells and g.start == (2, 0)
    assert parse_grid(g.to_text()).cells == g.cells
    bad = {
        ". . x\nS . 1\n": "x.txt:1: cell 3 'x' is not",
        ". . .\nS . 1 .\n": "x.txt:2: this row has 4 cells, the first row (line 1) has 3",
        ". . 1\n. . .\n": "x.txt:1: no start cell 'S'",
        "S . .\n. . .\n": "x.txt:1: no exit",
        "S . 1\nS . .\n": "x.txt:2: a second start 'S' (the first is on line 1)",
        "S . nan\n": "x.txt:1: cell 3: exit reward 'nan' is not a finite number",
        "\n\n": "x.txt:1: no rows",
    }
    for t, msg in bad.items():
        with pytest.raises(GridFileError) as e:
            parse_grid(t, "x.txt")
        assert str(e.value).startswith(msg), str(e.value)
        assert "\n" not in str(e.value)
    p = tmp_path / "bin.txt"
    p.write_bytes(b"S . 1\n\0")
    with pytest.raises(GridFileError, match="binary"):
        read_grid(p)
    with pytest.raises(GridFileError, match="too large"):
        parse_grid(("S" + " ." * 200 + " 1\n") + (". " * 202 + "\n") * 60, "big.txt")


def test_settings_validation():
    for kw, msg in (({"noise": 1.5}, "noise"), ({"discount": -0.1}, "discount"), ({"convention": "x"}, "convention"),
                    ({"living_reward": float("nan")}, "living reward")):
        with pytest.raises(ValueError, match=msg):
            compile_gridworld(GridSettings(**kw))


def test_best_directions_use_the_solvers_tie_rule():
    # ties within the solvers' tolerance (models.display.best_actions) are all outlined
    q = {"north": 1.0, "east": 1.0 + 1e-12, "south": 0.5, "west": -2.0}
    assert gw.best_directions(q) == {"north", "east"}
    assert gw.best_directions(q, "min") == {"west"}
    assert gw.best_directions({}) == set()
