"""Checkers' headless side (no Qt): the registry's spec, the compile and matchup jobs iterated as
plain generators (as the CLI and the window's controller do), and the greedy rows of a few states.

The jobs run on a 4x4 variant (1,193 states, compiled in ~10 ms); the cancel test starts the 5x5,
40-ply variant (1.29 million states, ~10 s) in its child process and closes the job at once.
"""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

from mdpviz.models import checkers as ck
from mdpviz.models.checkers import spec as cg
from mdpviz.models.kit.game import registry as games
from mdpviz.models.checkers.spec import CheckersSettings, compile_job, matchup_job
from mdpviz.models.checkers.play import OUTCOME_LABELS
from mdpviz.models.kit.game.registry import JobProgress
from mdpviz.core.mdp import TabularMDP
from mdpviz.solvers import solve
from mdpviz.solvers.sweep import greedy, greedy_rows

SMALL = CheckersSettings(ck.CheckersRules(size=4, rows=1, ply_limit=20))
"""4x4, one row of men, a draw after 20 plies: 1,193 states."""
GOLDEN = Path(__file__).parent / "data" / "golden" / "checkers.json"


def drain(gen):
    """Iterate a job generator as the controller does: (what it yielded, what it returned)."""
    items = []
    while True:
        try:
            items.append(next(gen))
        except StopIteration as stop:
            return items, stop.value


# ---------------------------------------------------------------------------------- settings and the spec
def test_the_window_default_is_the_model_default_with_a_20_ply_limit():
    s = CheckersSettings()
    assert s.rules == ck.CheckersRules(ply_limit=20) == cg.WINDOW_RULES
    assert ck.CheckersRules().ply_limit == 40  # the CLI's default is the model's, unchanged
    assert (s.agent, s.discount) == (ck.BLACK, ck.DEFAULT_DISCOUNT)
    # the scenario data lists the variant's fields in the model's order, then agent and discount
    assert list(cg.SPEC.to_dict(s)) == ["size", "rows", "forced_capture", "multi_jump", "ply_limit", "agent",
                                            "discount"]


def test_the_registry_spec_round_trips_the_golden_scenario():
    spec = games.get("checkers")
    assert spec is cg.SPEC and games.get("draughts") is spec
    data = json.loads(GOLDEN.read_text(encoding="utf-8"))["games"]["checkers"]
    s = spec.from_dict(data, str(GOLDEN))
    assert s == spec.default_settings() and spec.to_dict(s) == data


def test_the_spec_compiles_and_walks_a_game_to_its_end():
    spec = cg.SPEC
    mdp = spec.compile(SMALL)
    assert isinstance(mdp, TabularMDP) and mdp.n_states == 1193 and mdp.discount == SMALL.discount
    assert spec.compile(CheckersSettings(SMALL.rules, discount=0.9)).discount == 0.9  # same variant, new gamma
    model = spec.display.position_model(SMALL, mdp)
    rng = np.random.default_rng(1)
    pos = model.start()
    for _ in range(40):
        if pos.terminal:
            break
        pos = model.play(pos, model.moves(pos)[0].action, rng).after
    assert pos.terminal and pos.outcome
    assert spec.episodes.strategies(SMALL, mdp) == ("optimal", "random")
    probs = spec.episodes.strategy_probs(SMALL, "random", mdp, None)
    np.testing.assert_allclose(probs.sum(axis=1)[~mdp.terminal], 1.0)


# ---------------------------------------------------------------------------------- the compile job
def test_compile_job_yields_progress_and_returns_the_variant():
    items, cm = drain(compile_job(SMALL))
    assert items and all(isinstance(i, JobProgress) for i in items)
    assert items[0].text.startswith("Enumerating 4x4") and items[-1].text == "Indexing 1,193 states\u2026"
    assert isinstance(cm, ck.CheckersMDP) and cm.n_states == 1193 and cm.rules == SMALL.rules


def test_compile_job_goes_to_a_child_process_past_the_quick_budget(monkeypatch):
    monkeypatch.setattr(cg, "QUICK_MAX_STATES", 100)
    items, cm = drain(compile_job(SMALL))
    assert any("worker process" in i.text for i in items)
    assert cm.n_states == 1193 and cm.mdp.discount == SMALL.discount
    with pytest.raises(ValueError, match="agent colour"):  # the child's refusal comes back as the model's message
        drain(cg.compile_in_process(SMALL.rules, agent="red", discount=0.5))


def test_closing_the_compile_job_kills_its_child(monkeypatch):
    started = []
    real = subprocess.Popen

    def popen(*a, **k):
        p = real(*a, **k)
        started.append(p)
        return p

    monkeypatch.setattr(cg.subprocess, "Popen", popen)
    monkeypatch.setattr(cg, "QUICK_MAX_STATES", 100)
    monkeypatch.setattr(cg, "POLL_SECONDS", 0.05)
    gen = compile_job(CheckersSettings(ck.CheckersRules(size=5, ply_limit=40)))
    for item in gen:  # until the child has started and reported once
        if item.text.endswith(" s"):
            break
    assert started and started[0].poll() is None
    gen.close()  # what a cancel does
    assert started[0].poll() is not None


# ---------------------------------------------------------------------------------- the matchup job
@pytest.fixture(scope="module")
def small_cm() -> ck.CheckersMDP:
    return ck.compile_checkers(SMALL.rules, discount=SMALL.discount)


def test_matchup_job_reports_progress_and_matches_the_exact_probabilities(small_cm):
    mdp = small_cm.mdp
    sol = solve(mdp, "vi", tol=1e-12)
    items, res = drain(matchup_job(small_cm, mdp, sol.policy, games=4000, seed=7))
    assert all(isinstance(i, JobProgress) for i in items)
    assert [i.done for i in items] == list(range(1, len(items) + 1)) and items[-1].done == items[-1].total
    assert [r.name for r in res.rows] == list(cg.MATCHUPS) and res.notes == ()
    opt, rnd = res.rows
    ex = small_cm.outcome_probabilities(sol.policy)
    assert opt.labels == OUTCOME_LABELS and sum(opt.counts) == 4000
    assert opt.exact == pytest.approx((ex["win"], ex["loss"], ex["draw"]), abs=1e-12)
    assert np.all(np.abs(opt.fractions - np.asarray(opt.exact)) < 0.04)
    assert opt.fractions[0] > rnd.fractions[0] + 0.1
    _, again = drain(matchup_job(small_cm, mdp, sol.policy, games=4000, seed=7))
    assert [r.counts for r in again.rows] == [r.counts for r in res.rows]  # the seed fixes the games


def test_matchup_job_solves_when_there_is_no_policy_and_checks_its_arguments(small_cm):
    items, res = drain(matchup_job(small_cm, small_cm.mdp, None, games=50, seed=1))
    assert items[0].text.startswith("Solving") and "value iteration" in res.notes[0]
    with pytest.raises(ValueError, match="at least 1 game"):
        matchup_job(small_cm, small_cm.mdp, None, games=0, seed=1)  # at once, not on the first step
    other = ck.compile_checkers(ck.CheckersRules(size=4, ply_limit=6))
    with pytest.raises(ValueError, match="states"):
        matchup_job(small_cm, other.mdp, None, games=10, seed=1)


# ---------------------------------------------------------------------------------- greedy rows
def test_greedy_rows_of_a_few_states_are_the_solvers_greedy_rows(small_cm):
    mdp = small_cm.mdp
    v = np.random.default_rng(3).normal(0, 50, mdp.n_states).round(0)  # round: many exact ties
    _, want = greedy(mdp, mdp.q_values(v))
    states = np.arange(mdp.n_states)
    np.testing.assert_array_equal(greedy_rows(mdp, states, v), want)
    pick = np.array([5, 0, 77, small_cm.win])
    np.testing.assert_array_equal(greedy_rows(mdp, pick, v), want[pick])
    assert greedy_rows(mdp, np.zeros(0, dtype=np.int64), v).size == 0


def test_the_first_compile_of_a_process_says_that_it_prepares_the_rules_first(monkeypatch):
    """On a fresh install numba compiles the checkers kernels on first use (about 20 s): the job says
    so before it enumerates, instead of a stalled 'Enumerating'."""
    from mdpviz.models.checkers import compiler, rules

    monkeypatch.setattr(rules, "kernels_loaded", lambda: False)
    calls = []
    monkeypatch.setattr(compiler, "warm_up", lambda: calls.append(1) or 0.0)
    items, cm = drain(compile_job(SMALL))
    assert items[0].text.startswith("Preparing the checkers rules") and "first use after installing" in items[0].text
    assert items[1].text.startswith("Enumerating 4x4") and calls == [1]
    assert cm.n_states == 1193


def test_the_kernels_are_loaded_once_a_variant_is_compiled():
    ck.compile_checkers(ck.CheckersRules(size=4, ply_limit=4))
    assert ck.kernels_loaded()
    items, _ = drain(compile_job(SMALL))
    assert items[0].text.startswith("Enumerating 4x4")
