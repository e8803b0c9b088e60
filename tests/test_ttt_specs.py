"""The registry specs of the tic-tac-toe family (ttt, risk_ttt, ttt3d), headless: settings codecs,
compiles, position models, and the job generators iterated as the CLI and tests do (no Qt).

The job results are compared with the functions that ran these jobs before they became generators
(:func:`mdpviz.models.risk_ttt.solve_exact`, :func:`mdpviz.models.ttt3d.learning.run_training`)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from mdpviz.models.kit.game import registry as games
from mdpviz.models import risk_ttt as rt
from mdpviz.models import ttt as tt
from mdpviz.models import ttt3d
from mdpviz.models.ttt3d import learning as rl
from mdpviz.models.kit.game.registry import JobProgress
from mdpviz.core.simulate import uniform_policy_matrix

GOLDEN = Path(__file__).parent / "data" / "golden"
KEYS = ("ttt", "risk_ttt", "ttt3d")


def drive(gen, *, stop_after: int | None = None):
    """(result, partial results, progress reports) of a job generator; closed (a cancel) after
    ``stop_after`` items, the result then None."""
    partial, progress = [], []
    try:
        while True:
            if stop_after is not None and len(partial) + len(progress) >= stop_after:
                return None, partial, progress
            try:
                item = next(gen)
            except StopIteration as stop:
                return stop.value, partial, progress
            (progress if isinstance(item, JobProgress) else partial).append(item)
    finally:
        gen.close()


def _defaults_when_written(key: str):
    """The settings a golden file was written with: the game's defaults of that time. The 3D game's
    defaults changed with issue 30 (both seats, 128 units, 60,000 games against the tactical opponent);
    its golden file holds the defaults before, trained and measured against the random opponent."""
    spec = games.get(key)
    if key != "ttt3d":
        return spec.default_settings()
    from dataclasses import replace

    before = rl.TrainSettings(episodes=20_000, hidden=64, mark="X", report_every=500, eval_games=1_000,
                              opponent="random", eval_opponent="random")
    return replace(spec.default_settings(), settings=before)


@pytest.mark.parametrize("key", KEYS)
def test_spec_settings_round_trip_the_golden_entry(key):
    spec = games.get(key)
    data = json.loads((GOLDEN / f"{key}.json").read_text(encoding="utf-8"))["games"][key]
    settings = spec.from_dict(data, "golden.json")
    assert isinstance(settings, spec.settings_type)
    assert settings == _defaults_when_written(key)
    out = spec.to_dict(settings)
    assert json.dumps(out) == json.dumps(data)  # same keys in the same order, same values


def test_spec_codecs_name_the_bad_field():
    from mdpviz.core.files import ScenarioError

    with pytest.raises(ScenarioError, match=r"games\.risk_ttt\.size"):
        games.get("risk_ttt").from_dict({"size": 5}, "x.json")
    with pytest.raises(ScenarioError, match=r"games\.ttt\.win"):
        games.get("ttt").from_dict({"win": "big"}, "x.json")
    with pytest.raises(ScenarioError, match=r"games\.ttt3d\.settings"):
        games.get("ttt3d").from_dict({"settings": {"nope": 1}}, "x.json")


@pytest.mark.parametrize("key", ["ttt", "risk_ttt", "ttt3d"])
def test_specs_compile_and_walk(key):
    """(That this needs no Qt: tests/test_core_no_qt.py.)"""
    s = games.get(key)
    st = s.default_settings()
    m = s.compile(st)
    assert (m is None) == bool(s.no_table), key
    pm = s.display.position_model(st, m)
    p = pm.start()
    rng = np.random.default_rng(0)
    while not p.terminal:
        p = pm.play(p, pm.moves(p)[0].action, rng).after


def test_ttt3d_has_no_table_and_says_why():
    spec = games.get("ttt3d")
    assert spec.compile(spec.default_settings()) is None and "3^27" in spec.no_table
    assert games.get("risk_ttt").compile(rt.RiskSettings(size=4, risk=(0.5,) * 16, preset="half")) is None


def test_exact_solve_job_reports_each_batch_and_equals_solve_exact():
    risk = rt.risk_preset("stochastic")
    state = rt.RiskSettings(risk=tuple(float(p) for p in risk))
    sol, partial, progress = drive(games.get("risk_ttt").jobs["exact_solve"](state, chunk_size=1000))
    ref = rt.solve_exact(risk, size=3)
    assert not partial
    assert len(progress) == 27  # 10 layers of a 3x3 board cut into batches of at most 1,000 boards
    assert [p.done for p in progress] == sorted(p.done for p in progress)
    assert progress[-1].done == progress[-1].total == 3 ** 9
    assert progress[0].text.startswith("layer 9 (9 marks)") and progress[-1].text.startswith("layer 0 (0 marks)")
    np.testing.assert_array_equal(sol.layered.values, ref.layered.values)
    np.testing.assert_array_equal(sol.layered.policy, ref.layered.policy)
    assert (sol.layered.states, sol.layered.rows, sol.layered.layers) == (ref.layered.states, ref.layered.rows, 10)
    assert sol.empty_value == pytest.approx(0.11966164, abs=1e-8)
    assert drive(rt.exact_solve_job(risk, size=3, chunk_size=1000), stop_after=3)[0] is None  # closed mid-solve
    with pytest.raises(ValueError, match="5x5"):
        rt.exact_solve_job(np.full(25, 0.5), size=5)  # at once, before any work


def test_ttt3d_training_job_streams_the_records_of_run_training():
    settings = rl.TrainSettings(approx="linear", episodes=60, report_every=20, eval_games=30, seed=2)
    state = ttt3d.Ttt3dSettings(settings=settings)
    agent, records, progress = drive(games.get("ttt3d").jobs["train"](state))
    ref_agent, ref_records = rl.run_training(settings, risk=state.risk_vector())
    assert [r.episodes for r in records] == [r.episodes for r in ref_records] == [0, 20, 40, 60]
    assert [r.win for r in records] == [r.win for r in ref_records]
    assert [(p.done, p.total) for p in progress] == [(0, 60), (20, 60), (40, 60), (60, 60)]
    for k in ref_agent.params:
        np.testing.assert_array_equal(agent.params[k], ref_agent.params[k])


def test_matchup_jobs_report_progress_and_agree_with_the_exact_numbers():
    spec = games.get("ttt")
    st = spec.default_settings()
    res, _, progress = drive(spec.jobs["matchups"](st, games=2_000, seed=5))
    assert [(p.done, p.total) for p in progress] == [(1, 2), (2, 2)]
    g = tt.compile_vs_random(st.settings)
    # the optimal agent (O, the opponent first) never loses: 866/945 wins, 79/945 draws (seed 001)
    opt = res.rows[0]
    assert opt.exact[1] == pytest.approx(866 / 945) and opt.exact[2] == pytest.approx(79 / 945)
    assert opt.counts[0] == 0 and sum(opt.counts) == 2_000
    counts, _ = tt.vs_random_match(g, uniform_policy_matrix(g.mdp), games=2_000,
                                   seed=np.random.default_rng(np.random.SeedSequence(5).spawn(2)[1]))
    assert res.rows[1].counts == (int(counts[2]), int(counts[0]), int(counts[1]))  # agent O: (X wins, O wins, draws)
    rres, _, rprog = drive(games.get("risk_ttt").jobs["matchups"](rt.RiskSettings(), games=200, seed=1))
    assert len(rres.rows) == len(rt.MATCHUPS) and rprog[-1].done == rprog[-1].total == len(rt.MATCHUPS)
    with pytest.raises(ValueError, match="at least 2 games"):
        spec.jobs["matchups"](st, games=1, seed=0)
    with pytest.raises(ValueError, match="3x3 board"):
        games.get("risk_ttt").jobs["matchups"](rt.RiskSettings(size=4, risk=(0.5,) * 16), games=10, seed=0)


@pytest.mark.parametrize("key", KEYS)
def test_spec_lesson_is_the_lesson_the_window_shows(key):
    from mdpviz.models.kit.teaching.lessons import lesson_for

    spec = games.get(key)
    st = spec.default_settings()
    mdp = spec.compile(st)
    got = spec.display.lesson(st, mdp, start=0)
    want = lesson_for(key, st, mdp, title=spec.title, start=0)
    assert got.html() == want.html() and got.title
