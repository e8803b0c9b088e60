"""Discount-1 models: every method (vi, gs, pi, lp) agrees with the others or refuses with a message
naming the problem; never a wrong answer (issue 14).

Optimal total rewards are derived by hand in each case's comment.
"""
from __future__ import annotations

import numpy as np
import pytest

from mdpviz.cli import main
from mdpviz.core.cs747 import parse_cs747
from mdpviz.solvers import evaluate_weights, row_weights_deterministic, solve
from mdpviz.solvers.sweep import policy_to_rows


def mdp_text(trans: list[str], n: int, na: int, end: str, discount: float = 1.0) -> str:
    body = "\n".join(f"transition {t}" for t in trans)
    return f"numStates {n}\nnumActions {na}\nend {end}\n{body}\nmdptype episodic\ndiscount {discount}\n"


# name: (file text, V* or None when V* is infinite)
CASES = {
    # one state paying 1 per step for ever: V* = +inf, nobody may print a number
    "pay-loop": (mdp_text(["0 0 0 1 1"], 1, 1, "-1"), None),
    # one state looping for free: V* = 0 (the "well-defined file that VI solves")
    "free-loop-only": (mdp_text(["0 0 0 0 1"], 1, 1, "-1"), [0.0]),
    # stay for free (action 0) or leave paying -1 (action 1): staying is worth 0 > -1
    "free-loop-vs-exit-neg": (mdp_text(["0 0 0 0 1", "0 1 1 -1 1"], 2, 2, "1"), [0.0, 0.0]),
    # the same with the actions swapped (Howard's rule ties at -1 if started at the exit)
    "exit-neg-vs-free-loop": (mdp_text(["0 1 0 0 1", "0 0 1 -1 1"], 2, 2, "1"), [0.0, 0.0]),
    # a loop costing 1 per step or a way out paying 1: the stochastic-shortest-path case, V* = 1
    "cost-loop-vs-exit": (mdp_text(["0 0 0 -1 1", "0 1 1 1 1"], 2, 2, "1"), [1.0, 0.0]),
    # a free loop ties with the way out paying 1: V* = 1, and the policy must leave
    "free-loop-vs-exit-pos": (mdp_text(["0 0 0 0 1", "0 1 1 1 1"], 2, 2, "1"), [1.0, 0.0]),
    # 5 once, then a free loop for ever: V* = (5, 0)
    "transient-into-free-loop": (mdp_text(["0 0 1 5 1", "1 0 1 0 1"], 2, 1, "-1"), [5.0, 0.0]),
    # a paying loop beside a way out: V* = +inf at state 0
    "pay-loop-or-exit": (mdp_text(["0 0 0 1 1", "0 1 1 0 1"], 2, 2, "1"), None),
    # half the time back to the start for free, else the goal paying 1: V* = 1 (proper, cycles)
    "coin-to-goal": (mdp_text(["0 0 0 0 0.5", "0 0 1 1 0.5"], 2, 1, "1"), [1.0, 0.0]),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("method", ["vi", "gs", "pi", "lp"])
def test_every_method_agrees_or_refuses(name, method):
    text, want = CASES[name]
    mdp = parse_cs747(text, name)
    try:
        sol = solve(mdp, method, tol=1e-10, max_sweeps=5_000)
    except ValueError as e:
        msg = str(e)
        assert "\n" not in msg
        assert "discount 1" in msg or "unbounded" in msg or "not finite" in msg or "infinite" in msg, msg
        # a refusal is acceptable where V* is infinite, and for LP where the LP is not exact
        assert want is None or method == "lp", f"{method} refused a well-defined model: {msg}"
        return
    if want is None:  # infinite V*: the iterative methods must say they did not converge
        assert not sol.converged, f"{method} printed a finite answer for an infinite value"
        return
    assert sol.converged
    np.testing.assert_allclose(sol.values, want, atol=1e-8)
    # the returned policy is worth what is reported (a free loop tied with the way out must not win)
    rows = policy_to_rows(mdp, np.where(mdp.terminal, -1, sol.policy))
    got = evaluate_weights(mdp, row_weights_deterministic(mdp, rows), zero_loops=True)
    np.testing.assert_allclose(got, want, atol=1e-8)


def test_lp_with_a_reward_1_self_loop_is_refused_not_printed_as_zero(tmp_path, capsys):
    p = tmp_path / "loop.txt"
    p.write_text(CASES["pay-loop"][0])
    assert main(["plan", "--mdp", str(p), "--algorithm", "lp"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and "infinite" in err


@pytest.mark.parametrize("name", ["free-loop-only", "free-loop-vs-exit-neg", "transient-into-free-loop"])
def test_lp_free_loops_give_one_line_and_no_pulp_traceback(tmp_path, capsys, name):
    p = tmp_path / "m.txt"
    p.write_text(CASES[name][0])
    assert main(["plan", "--mdp", str(p), "--algorithm", "lp"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1
    assert "Traceback" not in err and "PulpSolverError" not in err


def test_policy_iteration_solves_the_free_loop_file_value_iteration_solves(tmp_path, capsys):
    p = tmp_path / "free.txt"
    p.write_text(CASES["free-loop-only"][0])
    assert main(["plan", "--mdp", str(p), "--algorithm", "hpi"]) == 0
    assert capsys.readouterr().out == "0.000000 0\n"


def test_solve_accepts_the_common_options_for_every_method():
    mdp = parse_cs747(CASES["cost-loop-vs-exit"][0])
    for method in ("vi", "gs", "pi", "lp"):
        sol = solve(mdp, method=method, tol=1e-9, max_sweeps=1000, tie_tol=1e-12)
        np.testing.assert_allclose(sol.values, [1.0, 0.0], atol=1e-8)
    assert solve(mdp, method="lp", tol=1e-9).converged
    assert solve(mdp, method="pi", max_sweeps=50).converged
    with pytest.raises(ValueError, match="does not take"):
        solve(mdp, method="vi", evaluation_sweeps=3)


def test_reachability_search_matches_scipys_breadth_first_search():
    """The numpy backward search of policy_iteration._reaches_terminal (no csgraph import on the
    CLI's path) finds exactly the states csgraph's breadth-first search found, on random chains
    with explicit zero entries (not edges), duplicates, self-loops and no terminal state at all."""
    import scipy.sparse as sp
    import scipy.sparse.csgraph as csgraph
    from types import SimpleNamespace

    from mdpviz.solvers.policy_iteration import _reaches_terminal

    def reference(term: np.ndarray, P: sp.csr_matrix) -> np.ndarray:
        n = term.size
        t = np.flatnonzero(term)
        if t.size == 0:
            return np.zeros(n, dtype=bool)
        rev = P.T.tocoo()
        keep = rev.data > 0
        r = np.r_[rev.row[keep], np.full(t.size, n)]
        c = np.r_[rev.col[keep], t]
        g = sp.csr_matrix((np.ones(r.size), (r, c)), shape=(n + 1, n + 1))
        order = csgraph.breadth_first_order(g, n, directed=True, return_predecessors=False)
        seen = np.zeros(n + 1, dtype=bool)
        seen[order] = True
        return seen[:n]

    rng = np.random.default_rng(15)
    for _ in range(500):
        n = int(rng.integers(1, 40))
        m = int(rng.integers(0, 3 * n))
        rows, cols = rng.integers(0, n, m), rng.integers(0, n, m)
        data = np.where(rng.random(m) < 0.2, 0.0, rng.random(m))
        P = sp.csr_matrix((data, (rows, cols)), shape=(n, n))  # duplicates summed, zeros kept
        term = rng.random(n) < rng.random() * 0.3
        got = _reaches_terminal(SimpleNamespace(n_states=n, terminal=term), P)
        assert np.array_equal(got, reference(term, P))


@pytest.mark.parametrize("algorithm", ["hpi", "vi", "vi-sync"])
def test_plan_on_a_file_where_every_state_is_terminal(tmp_path, capsys, algorithm):
    """No action anywhere: every value is 0 (it was an IndexError traceback with hpi)."""
    path = tmp_path / "ends.txt"
    path.write_text("numStates 2\nnumActions 1\nend 0 1\nmdptype episodic\ndiscount 1.0\n")
    assert main(["plan", "--algorithm", algorithm, "--mdp", str(path)]) == 0
    assert capsys.readouterr().out == "0.000000 0\n0.000000 0\n"


@pytest.mark.parametrize("discount", [1.0, 0.9])
@pytest.mark.parametrize("text", [
    mdp_text(["0 0 1 0 1"], 2, 1, "0 1"),  # every state terminal: V = 0, nothing to solve
    mdp_text(["0 0 1 1 1"], 3, 1, "1 2"),  # terminal state 2 is in no transition: CBC gave it no value
], ids=["all-terminal", "unreferenced-terminal"])
def test_lp_prints_what_policy_iteration_prints_when_terminal_states_need_no_solving(tmp_path, capsys, text,
                                                                                    discount):
    p = tmp_path / "m.txt"
    p.write_text(text.replace("discount 1.0", f"discount {discount}"))
    outs = []
    for algorithm in ("hpi", "lp"):
        assert main(["plan", "--mdp", str(p), "--algorithm", algorithm]) == 0
        out, err = capsys.readouterr()
        assert err == ""
        outs.append(out)
    assert outs[0] == outs[1]
