"""Finite rewards whose values overflow double precision are one clear error everywhere (issue 24,
item 15): value iteration printed ``inf`` with exit 0, policy iteration said "singular" and the LP
"Infeasible"."""
from __future__ import annotations

import pytest

from mdpviz.cli import main
from mdpviz.core.cs747 import parse_cs747
from mdpviz.solvers import METHODS, VALUE_LIMIT, solve, solver

BIG = """numStates 3
numActions 1
end 2
transition 0 0 1 {r} 1.0
transition 1 0 2 {r} 1.0
mdptype episodic
discount {gamma}
"""


@pytest.mark.parametrize("method", sorted(METHODS))
@pytest.mark.parametrize("r, gamma", [("1e308", 0.9), ("-1e308", 0.9), ("1e300", 1.0), ("1e299", 0.999)])
def test_every_solver_refuses_values_that_overflow(method, r, gamma):
    mdp = parse_cs747(BIG.format(r=r, gamma=gamma))
    with pytest.raises(ValueError, match="overflow floating point"):
        solver(mdp, method)


@pytest.mark.parametrize("method", ["vi", "gs", "pi"])
def test_large_but_safe_rewards_still_solve_exactly(method):
    mdp = parse_cs747(BIG.format(r="1e290", gamma=0.9))
    sol = solve(mdp, method)
    assert sol.values[0] == pytest.approx(1e290 + 0.9 * 1e290, rel=1e-12)
    assert 1e290 / (1 - 0.9) < VALUE_LIMIT


def test_the_lp_refuses_what_cbc_takes_for_infinite_and_solves_below_it():
    with pytest.raises(ValueError, match="overflow the LP solver's range.*value iteration or policy iteration"):
        solve(parse_cs747(BIG.format(r="1e45", gamma=0.9)), "lp")  # CBC said "Infeasible" here
    sol = solve(parse_cs747(BIG.format(r="1e15", gamma=0.9)), "lp")
    assert sol.values[0] == pytest.approx(1.9e15, rel=1e-9)


@pytest.mark.parametrize("algorithm", ["vi", "vi-sync", "hpi", "lp"])
def test_plan_says_so_in_one_line_with_exit_2(tmp_path, capsys, algorithm):
    f = tmp_path / "big.txt"
    f.write_text(BIG.format(r="1e308", gamma=0.9), encoding="utf-8")
    code = main(["plan", "--mdp", str(f), "--algorithm", algorithm])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and "Traceback" not in err
    assert err.strip().count("\n") == 0 and "overflow floating point" in err
