"""Snakes and ladders strategies: exact expected turns vs vectorised simulation, and the episode player."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from scipy.stats import norm

from mdpviz.models.snakes import RULE_SETS, SnakesSettings, apply_rule_set, compile_snakes, markovDecision, outcomes
from mdpviz.models.snakes.simulate import (
    STRATEGY_NAMES,
    Z95,
    compare_strategies,
    default_mix,
    exact_turns,
    play_episode,
    simulate_every_start,
    simulate_turns,
    strategy_names,
    strategy_probs,
)
from mdpviz.solvers import ImproperPolicyError

ISSUE_LAYOUT = (0, 0, 0, 1, 0, 0, 2, 0, 3, 0, 4, 0, 1, 2, 0)


def test_strategy_probabilities():
    cfg = SnakesSettings(layout=ISSUE_LAYOUT)
    assert set(STRATEGY_NAMES) >= {"optimal", "security", "normal", "risky", "random", "mixed", "custom"}
    assert strategy_names(cfg) == ("optimal", "security", "normal", "risky", "random", "mixed")
    for name in strategy_names(cfg):
        p = strategy_probs(cfg, name)
        assert p.shape == (15, 3)
        np.testing.assert_allclose(p[:14].sum(axis=1), 1.0)
        assert not p[14].any()
    _, dice = markovDecision(np.array(ISSUE_LAYOUT), False)
    assert strategy_probs(cfg, "optimal").argmax(axis=1)[:14].tolist() == (dice - 1).tolist()
    np.testing.assert_allclose(strategy_probs(cfg, "mixed")[0], [1 / 6, 1 / 3, 1 / 2])
    np.testing.assert_allclose(default_mix(4), [0.1, 0.2, 0.3, 0.4])
    np.testing.assert_allclose(strategy_probs(cfg, "random")[5], [1 / 3] * 3)
    assert strategy_probs(cfg, "normal")[:14, 1].all()
    custom = strategy_probs(cfg, "custom", per_square=np.array([0] * 10 + [2] * 4))
    assert custom[:14].argmax(axis=1).tolist() == [0] * 10 + [2] * 4
    special = apply_rule_set(cfg, "special die")
    assert strategy_probs(special, "special")[:14, 3].all()


def test_strategy_errors():
    cfg = SnakesSettings()
    with pytest.raises(ValueError, match="unknown strategy 'lucky'"):
        strategy_probs(cfg, "lucky")
    with pytest.raises(ValueError, match="needs per_square"):
        strategy_probs(cfg, "custom")
    with pytest.raises(ValueError, match="per_square must have 14 entries"):
        strategy_probs(cfg, "custom", per_square=np.zeros(13, dtype=int))
    with pytest.raises(ValueError, match="square 3 has die index 3"):
        strategy_probs(cfg, "custom", per_square=np.array([0, 0, 3] + [0] * 11))
    with pytest.raises(ValueError, match="sum to 1"):
        strategy_probs(cfg, "mixed", mix=[0.5, 0.6, -0.1])
    with pytest.raises(ValueError, match="shape \\(15, 3\\)"):
        exact_turns(cfg, np.ones((14, 3)) / 3)
    bad = strategy_probs(cfg, "random")
    bad[4] = [1.0, 1.0, 0.0]
    with pytest.raises(ValueError, match="square 5: the die probabilities sum to 2"):
        simulate_turns(cfg, bad, games=10, seed=0)


def test_exact_turns_by_hand():
    # Security only: each throw moves with probability 1/2 (never triggers). From 1: 2 moves to
    # square 3, then 8 moves (slow lane) or 5 (fast lane) with prob 1/2: 8.5 moves, 17 throws.
    for circle in (False, True):
        cfg = SnakesSettings(layout=ISSUE_LAYOUT, circle=circle)
        ex = exact_turns(cfg, strategy_probs(cfg, "security"))
        assert ex[0] == pytest.approx(17.0, abs=1e-12)
        assert ex[13] == pytest.approx(2.0, abs=1e-12) and ex[9] == pytest.approx(2.0, abs=1e-12)
    # the optimal strategy's exact value is markovDecision's Expec
    cfg = SnakesSettings(layout=ISSUE_LAYOUT, circle=True)
    expec, _ = markovDecision(np.array(ISSUE_LAYOUT), True)
    np.testing.assert_allclose(exact_turns(cfg, strategy_probs(cfg, "optimal")), expec, atol=1e-9)
    # every fixed strategy is at least as slow as the optimal one
    for name in strategy_names(cfg):
        assert np.all(exact_turns(cfg, strategy_probs(cfg, name)) >= expec - 1e-9)


def test_improper_strategy_is_reported():
    # Risky only with restarts on 2..14: never finishes.
    cfg = SnakesSettings(layout=(0,) + (1,) * 13 + (0,))
    with pytest.raises(ImproperPolicyError):
        exact_turns(cfg, strategy_probs(cfg, "risky"))
    res = {r.name: r for r in compare_strategies(cfg, games=200, seed=0, names=("security", "risky"))}
    assert res["security"].error == "" and res["security"].exact[0] == pytest.approx(17.0)
    assert res["risky"].error and np.isinf(res["risky"].exact).all() and res["risky"].turns_hist.size == 0
    with pytest.raises(ValueError, match="did not reach square 15"):
        simulate_turns(cfg, strategy_probs(cfg, "risky"), games=5, seed=0, max_steps=50)


def test_simulation_is_seeded_and_integer():
    cfg = SnakesSettings(layout=ISSUE_LAYOUT)
    p = strategy_probs(cfg, "random")
    a = simulate_turns(cfg, p, games=500, seed=3)
    b = simulate_turns(cfg, p, games=500, seed=3)
    assert a.dtype == np.int64 and a.shape == (500,) and np.array_equal(a, b)
    assert a.min() >= 1
    s = simulate_turns(cfg, strategy_probs(cfg, "security"), games=200, seed=1, start=14)
    assert set(np.unique(s)) <= set(range(1, 200))


@pytest.mark.parametrize("circle", [False, True])
def test_theory_vs_simulation_every_strategy(circle):
    # The statement's check: for each strategy the exact expected turns from square 1 lie within
    # the confidence interval of the simulated mean (fixed seed, 20,000 games). Seven strategies
    # are checked at once, so the intervals are simultaneous 95% ones (Bonferroni: each at level
    # 0.05/7, z = 2.69); seven separate 95% intervals would all hold only 70% of the time.
    cfg = SnakesSettings(layout=ISSUE_LAYOUT, circle=circle)
    results = compare_strategies(cfg, games=20_000, seed=1, games_per_square=2_000,
                                 per_square=np.array([0] * 10 + [2] * 4))
    assert [r.name for r in results] == ["optimal", "security", "normal", "risky", "random", "mixed", "custom"]
    z_simultaneous = float(norm.ppf(1 - 0.025 / len(results)))
    for r in results:
        assert r.error == ""
        assert r.turns_hist.sum() == 20_000 and r.games.tolist() == [20_000] + [2_000] * 13
        t = np.arange(r.turns_hist.size)
        assert (t * r.turns_hist).sum() / 20_000 == pytest.approx(r.mean[0])
        half = r.ci[0] * z_simultaneous / Z95
        assert abs(r.mean[0] - r.exact[0]) <= half, (r.name, r.mean[0], r.exact[0], half)
        # every start square: no estimate more than 4 standard errors away (catches any bias)
        assert np.all(np.abs(r.mean - r.exact) <= 4 * r.ci / Z95), r.name
    opt = results[0]
    assert all(opt.exact[0] <= r.exact[0] + 1e-12 for r in results)


@pytest.mark.parametrize("rules", [r for r in RULE_SETS if r != "statement"])
def test_theory_vs_simulation_other_rule_sets(rules):
    cfg = apply_rule_set(SnakesSettings(layout=ISSUE_LAYOUT, circle=True), rules)
    probs = strategy_probs(cfg, "optimal")
    stats = simulate_every_start(cfg, probs, games=3_000, seed=5)
    exact = exact_turns(cfg, probs)
    assert stats.games.tolist() == [3_000] * 14
    assert np.all(np.abs(stats.mean - exact) <= 4 * stats.ci / Z95)
    assert np.mean(np.abs(stats.mean - exact) <= stats.ci) >= 0.75  # about 95% expected


def test_compare_streams_do_not_depend_on_other_strategies():
    cfg = SnakesSettings(layout=ISSUE_LAYOUT)
    a = compare_strategies(cfg, games=300, seed=9, games_per_square=10)
    b = compare_strategies(cfg, games=300, seed=9, games_per_square=10, names=("optimal", "security"))
    assert np.array_equal(a[0].turns_hist, b[0].turns_hist)
    assert np.array_equal(a[1].turns_hist, b[1].turns_hist)


def test_play_episode_follows_the_rules():
    cfg = SnakesSettings(layout=ISSUE_LAYOUT, circle=True)
    probs = strategy_probs(cfg, "random")
    steps = play_episode(cfg, probs, rng=np.random.default_rng(4), start=1)
    assert steps[0].square == 1 and steps[-1].next_square == 15
    for a, b in zip(steps, steps[1:]):
        assert a.next_square == b.square
    for st in steps:
        allowed = {(o.roll, o.square, o.event, o.cost) for o in outcomes(cfg, st.square, st.die)}
        assert (st.roll, st.next_square, st.event, st.cost) in allowed
    short = play_episode(cfg, probs, rng=1, max_turns=2)
    assert len(short) <= 2
    with pytest.raises(ValueError, match="start must be a square"):
        play_episode(cfg, probs, rng=1, start=15)


def test_play_episode_mean_matches_exact():
    # The episode player samples outcomes() directly (not the compiled MDP): its mean turns from
    # square 9 under the optimal strategy must match the exact value (4 standard errors).
    cfg = replace(SnakesSettings(layout=ISSUE_LAYOUT), circle=True)
    probs = strategy_probs(cfg, "optimal")
    rng = np.random.default_rng(11)
    turns = np.array([sum(s.cost for s in play_episode(cfg, probs, rng=rng, start=9)) for _ in range(1500)])
    exact = exact_turns(cfg, probs, mdp=compile_snakes(cfg))[8]
    se = turns.std(ddof=1) / np.sqrt(turns.size)
    assert abs(turns.mean() - exact) <= 4 * se
