"""Comparing the solvers on one model (mdpviz.solvers.compare): pure, no Qt.

The comparison table must equal the single-algorithm results; agreement is judged on values
(within 1e-6) and policies (equal or tied), and a disagreement is reported as such.
"""
from __future__ import annotations

import csv
import io
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from mdpviz.models import snakes as sn
from mdpviz.core.cs747 import parse_cs747
from mdpviz.core.mdp import TabularMDP
from mdpviz.solvers import solve
from mdpviz.solvers import compare as cmp
from mdpviz.solvers.compare import (
    COMPARE_METHODS,
    compare_methods,
    comparison_csv,
    comparison_rows,
    comparison_table,
    error_floor,
    format_seconds,
    judge,
    log_floor,
    lp_fits,
    method_options,
)
from tests.conftest import LAYOUT, SMALL_MDP

REPO = Path(__file__).resolve().parents[1]
@pytest.fixture(scope="module")
def snakes_mdp() -> TabularMDP:
    return sn.compile_snakes(sn.SnakesSettings(layout=LAYOUT))


@pytest.fixture(scope="module")
def snakes_comparison(snakes_mdp):
    return compare_methods(snakes_mdp, tol=1e-10, state_name=lambda s: f"square {s + 1}")


def two_player_mdp() -> TabularMDP:
    """s0 (max) -> s1 with reward 1 (a0) or ends with reward 2 (a1); s1 (min) ends with reward 0 (a0)
    or 5 (a1). V(s1) = min(0, 5) = 0, V(s0) = max(1 + 0, 2) = 2 (a1)."""
    return TabularMDP.from_transitions(
        3, 2, [0, 0, 1, 1], [0, 1, 0, 1], [1, 2, 2, 2], [1, 1, 1, 1], [1, 2, 0, 5],
        discount=1.0, terminal=[2], mover=[1, -1, 1],
    )


# ---------------------------------------------------------------------------------- the table equals solve()
def test_table_values_equal_the_single_algorithm_results(snakes_mdp, snakes_comparison):
    comp = snakes_comparison
    assert comp.methods == COMPARE_METHODS
    assert comp.skipped == ()
    for run in comp.runs:
        single = solve(snakes_mdp, run.method, **method_options(run.method, tol=1e-10, max_sweeps=100_000))
        assert run.sweeps == single.sweeps
        assert run.converged and single.converged
        np.testing.assert_array_equal(run.policy, single.policy)
        if run.method == "lp":  # CBC is run again: equal to round-off (it is evaluated exactly afterwards)
            np.testing.assert_allclose(run.values, single.values, rtol=0, atol=1e-9)
        else:  # the same deterministic generator: bit for bit
            np.testing.assert_array_equal(run.values, single.values)
    table = comparison_table(comp)
    for row, run in zip(table, comp.runs):
        assert row["method"] == run.method
        assert row["start_value"] == float(run.values[0])
        assert row["sweeps"] == run.sweeps


def test_snakes_methods_agree_and_the_sentence_says_so(snakes_comparison):
    comp = snakes_comparison
    assert comp.agree
    assert comp.reference == "pi"
    assert comp.max_gap <= 1e-6
    assert comp.tied_states == () and comp.policy_conflicts == ()
    assert comp.summary.startswith("All 4 methods agree")
    assert "tolerance 1e-06" in comp.summary and "identical" in comp.summary
    # every method's value of square 1 is the course's expected number of turns (markovDecision)
    expec, _ = sn.markovDecision(np.array(LAYOUT), False)
    for run in comp.runs:
        assert run.values[0] == pytest.approx(expec[0], abs=1e-8)


def test_hand_checked_mdp_every_method_finds_v_star():
    mdp = parse_cs747(SMALL_MDP, "small.txt")
    comp = compare_methods(mdp)
    assert comp.agree
    for run in comp.runs:
        np.testing.assert_allclose(run.values, [3.0, 2.0, 0.0], atol=1e-8)
        np.testing.assert_array_equal(run.policy, [1, 0, -1])
    np.testing.assert_allclose(comp.reference_values, [3.0, 2.0, 0.0], atol=1e-12)


# ---------------------------------------------------------------------------------- error curves
def test_error_curves_and_times(snakes_mdp, snakes_comparison):
    comp = snakes_comparison
    ref = comp.reference_values
    vi = comp.run("vi")
    assert vi.steps.size == vi.error.size == vi.times.size == vi.delta.size == vi.sweeps
    np.testing.assert_array_equal(vi.steps, np.arange(1, vi.sweeps + 1))
    assert np.all(np.diff(vi.times) >= 0) and vi.times[-1] <= vi.elapsed + 1e-12
    # synchronous VI from V = 0 on a cost model with positive costs rises monotonically to V*:
    # the error never grows, and the first sweep's error is max|V_1 - V*|
    assert np.all(np.diff(vi.error) <= 1e-12)
    first = solve(snakes_mdp, "vi", tol=1e-10, max_sweeps=1)
    assert vi.error[0] == pytest.approx(float(np.abs(first.values - ref).max()), abs=1e-12)
    assert vi.final_error == pytest.approx(float(np.abs(vi.values - ref).max()), abs=0)
    pi = comp.run("pi")
    assert pi.steps.size == pi.sweeps  # one point per evaluation (the improvements do not move V)
    assert pi.snapshots == 2 * pi.sweeps
    assert pi.error[-1] == 0.0  # the reference is policy iteration's own final evaluation
    lp = comp.run("lp")
    assert lp.steps.tolist() == [1.0] and lp.sweeps == 1
    floor = error_floor(comp)
    assert floor == pytest.approx(1e-15 * max(1.0, float(np.abs(ref).max())))
    np.testing.assert_array_equal(log_floor(np.array([0.0, 1e-3, np.inf]), floor=1e-15), [1e-15, 1e-3, np.nan])


# ---------------------------------------------------------------------------------- agreement
def test_a_value_disagreement_is_reported(snakes_mdp, snakes_comparison):
    comp = snakes_comparison
    bad = replace(comp.run("gs"), values=np.asarray(comp.run("gs").values) + np.eye(15)[4] * 2e-3)
    runs = [bad if r.method == "gs" else r for r in comp.runs]
    out = judge(snakes_mdp, runs, reference="pi", reference_values=comp.reference_values,
                state_name=lambda s: f"square {s + 1}")
    assert not out.agree
    assert out.gap_state == 4 and out.max_gap == pytest.approx(2e-3, rel=1e-6)
    assert out.summary.startswith("The methods do NOT agree")
    assert "square 5" in out.summary and "value iteration (in place)" in out.summary


def test_tied_actions_count_as_agreement_and_a_worse_action_does_not():
    # state 0: action 0 and action 1 both end the game with reward 1 (a tie); action 2 pays 0
    mdp = TabularMDP.from_transitions(2, 3, [0, 0, 0], [0, 1, 2], [1, 1, 1], [1, 1, 1], [1, 1, 0],
                                      discount=1.0, terminal=[1])
    comp = compare_methods(mdp, methods=("vi", "pi"))
    assert comp.agree and comp.tied_states == ()
    assert comp.max_gap == 0.0 and "Both methods agree: the final values are identical in every state" in comp.summary
    other = replace(comp.run("pi"), policy=np.array([1, -1]))
    tied = judge(mdp, [comp.run("vi"), other], reference="pi", reference_values=comp.reference_values)
    assert tied.agree and tied.tied_states == (0,) and tied.policy_conflicts == ()
    assert "equal except in 1 state where the chosen actions are tied" in tied.summary
    worse = replace(comp.run("pi"), policy=np.array([2, -1]))
    bad = judge(mdp, [comp.run("vi"), worse], reference="pi", reference_values=comp.reference_values)
    assert not bad.agree and bad.policy_conflicts == (0,)
    assert "not optimal" in bad.summary


def test_a_run_that_did_not_converge_is_not_agreement():
    mdp = parse_cs747(SMALL_MDP, "small.txt")
    comp = compare_methods(mdp, methods=("vi", "pi"), max_sweeps=1)  # VI needs 2 sweeps here
    assert not comp.run("vi").converged
    assert not comp.agree
    assert "stopped at its sweep limit" in comp.summary


# ---------------------------------------------------------------------------------- where LP fits
def test_lp_is_skipped_on_a_two_player_model():
    mdp = two_player_mdp()
    assert lp_fits(mdp).startswith("two-player")
    comp = compare_methods(mdp)
    assert comp.methods == ("vi", "gs", "pi")
    assert comp.skipped[0][0] == "lp" and "two-player" in comp.skipped[0][1]
    assert comp.agree
    for run in comp.runs:
        np.testing.assert_allclose(run.values, [2.0, 0.0, 0.0], atol=1e-12)
        assert run.policy[0] == 1
    assert "Linear programming was not run: two-player model" in comp.summary


def test_lp_is_skipped_on_a_large_model(monkeypatch, snakes_mdp):
    monkeypatch.setattr(cmp, "LP_MAX_STATES", 10)
    assert "15 states" in lp_fits(snakes_mdp)
    comp = compare_methods(snakes_mdp, methods=("pi", "lp"))
    assert comp.methods == ("pi",) and comp.skipped[0][0] == "lp"
    assert comp.summary.startswith("Only policy iteration ran")


def test_cancel_and_progress(snakes_mdp):
    seen = []
    comp = compare_methods(snakes_mdp, progress=lambda d, t, text: seen.append((d, t, text)))
    assert [d for d, _, _ in seen] == [1, 2, 3, 4] and all(t == 4 for _, t, _ in seen)
    assert seen[0][2].startswith("policy iteration")  # the reference runs first
    calls = []

    def cancelled() -> bool:
        calls.append(1)
        return len(calls) > 3

    assert compare_methods(snakes_mdp, cancelled=cancelled) is None


def test_bad_arguments():
    mdp = two_player_mdp()
    with pytest.raises(ValueError, match="unknown method 'xx'"):
        compare_methods(mdp, methods=("vi", "xx"))
    with pytest.raises(ValueError, match="at least one method"):
        compare_methods(mdp, methods=())
    with pytest.raises(ValueError, match="start state 7"):
        compare_methods(mdp, start=7)


# ---------------------------------------------------------------------------------- text and CSV
def test_rows_and_csv(snakes_comparison):
    comp = snakes_comparison
    rows = comparison_rows(comp)
    assert rows[0][0] == "value iteration (synchronous)" and rows[0][1] == f"{comp.run('vi').sweeps} sweeps"
    assert rows[2][1] == f"{comp.run('pi').sweeps} rounds" and rows[3][1] == "1 solve"
    assert rows[0][3] == f"{float(comp.run('vi').values[0]):.10g}"
    text = comparison_csv(comp)
    lines = list(csv.reader(io.StringIO(text)))
    assert lines[0][0] == "method" and len(lines) == 6
    for line, run in zip(lines[1:5], comp.runs):
        assert line[0] == run.method and int(line[2]) == run.sweeps
        assert float(line[6]) == float(run.values[0])  # full precision round trip
    assert lines[5][0].startswith("# All 4 methods agree")
    assert format_seconds(0.000850) == "850 \u00b5s" and format_seconds(0.0123) == "12.3 ms"
    assert format_seconds(4.5678) == "4.57 s"
