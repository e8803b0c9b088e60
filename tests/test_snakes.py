"""Snakes and ladders (seed 002): rules, compiler, markovDecision. Values derived by hand in comments."""
from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest

from mdpviz.models.snakes import (
    DEFAULT_DICE,
    NORMAL,
    RISKY,
    RULE_SETS,
    SECURITY,
    SPECIAL,
    SQUARE_TYPES,
    Die,
    SnakesSettings,
    apply_rule_set,
    compile_snakes,
    layout_from_input,
    markovDecision,
    next_squares,
    outcomes,
    parse_die,
    penalty_square,
    square_type_name,
    walk,
    wrap_square,
)
from mdpviz.solvers import evaluate_policy, solve

ISSUE_LAYOUT = (0, 0, 0, 1, 0, 0, 2, 0, 3, 0, 4, 0, 1, 2, 0)
STEP = Die("step", ((1, 1.0),), 1.0)
"""A deterministic die (always +1, always triggers): turns can be counted by hand."""


def lay(**traps: int) -> tuple[int, ...]:
    """A layout with traps given as s<square>=type, e.g. lay(s14=3)."""
    out = [0] * 15
    for k, t in traps.items():
        out[int(k[1:]) - 1] = t
    return tuple(out)


def dist(cfg: SnakesSettings, square: int, die: int) -> dict[tuple[int, float, str], float]:
    """Outcomes merged by (square, cost, event), probabilities as exact-ish floats."""
    d: dict[tuple[int, float, str], float] = {}
    for o in outcomes(cfg, square, die):
        key = (o.square, o.cost, o.event)
        d[key] = d.get(key, 0.0) + o.prob
    return d


def approx_dict(d: dict, expected: dict) -> None:
    assert set(d) == set(expected)
    for k, v in expected.items():
        assert d[k] == pytest.approx(float(v), abs=1e-12), k


# ------------------------------------------------------------------ the reference values of the issue
def test_reference_empty_board_no_circle():
    expec, dice = markovDecision(np.zeros(15), False)
    assert np.round(expec[:3], 4).tolist() == [6.6674, 6.1089, 4.7721]
    assert round(float(expec[-1]), 4) == 1.3333
    assert dice.tolist() == [3] * 14
    # By hand, risky everywhere on the last four squares of each lane: V(14) = 1 + V(14)/4 gives
    # 4/3; V(13) = 1 + (V13 + V14)/4 gives 16/9; then 64/27 and 256/81 (powers of 4/3).
    for lane in ((7, 8, 9, 10), (11, 12, 13, 14)):
        got = expec[[s - 1 for s in lane]]
        np.testing.assert_allclose(got, [(4 / 3) ** 4, (4 / 3) ** 3, (4 / 3) ** 2, 4 / 3], rtol=0, atol=1e-10)
    # V(6) = 1 + (V6 + V7 + V8 + V9)/4  ->  V6 = 916/243.
    assert expec[5] == pytest.approx(916 / 243, abs=1e-10)


def test_reference_empty_board_circle():
    expec, dice = markovDecision(np.zeros(15), True)
    assert round(float(expec[0]), 4) == 7.2566
    # By hand: square 14: security 1 + V/2 -> 2 (any other die can overshoot and restart).
    # Square 13: normal 1 + (V13 + V14)/3 -> 5/2. Square 12: risky 1 + (V12 + 5/2 + 2)/4 -> 17/6.
    # Square 11: risky 1 + (V11 + 17/6 + 5/2 + 2)/4 -> 34/9. Same on the slow lane (7..10).
    for lane in ((7, 8, 9, 10), (11, 12, 13, 14)):
        np.testing.assert_allclose(expec[[s - 1 for s in lane]], [34 / 9, 17 / 6, 5 / 2, 2], rtol=0, atol=1e-10)
        assert dice[[s - 1 for s in lane]].tolist() == [3, 3, 2, 1]


def test_return_types_follow_the_statement():
    res = markovDecision(np.array(ISSUE_LAYOUT), True)
    assert type(res) is list and len(res) == 2
    expec, dice = res
    assert isinstance(expec, np.ndarray) and expec.shape == (14,) and expec.dtype == np.float64
    assert isinstance(dice, np.ndarray) and dice.shape == (14,) and dice.dtype.kind == "i"
    assert set(dice.tolist()) <= {1, 2, 3}
    # Also accepts a plain list, integral floats and numpy booleans.
    e2, d2 = markovDecision([float(x) for x in ISSUE_LAYOUT], np.bool_(True))
    np.testing.assert_array_equal(e2, expec)
    np.testing.assert_array_equal(d2, dice)


# ------------------------------------------------------------------ one trap of each type, by hand
def test_prison_costs_an_extra_turn():
    expec, dice = markovDecision(np.array(lay(s14=3)), False)
    # Square 14 is a prison. risky: V = 1/4 (2 + V) + 3/4 * 1 -> V = 5/3;
    # normal: V = 1/3 [1/2 (2 + V) + 1/2 (1 + V)] + 2/3 -> 7/4; security: 2.
    assert expec[13] == pytest.approx(5 / 3, abs=1e-10)
    assert dice[13] == 3
    cfg = SnakesSettings(layout=lay(s14=3))
    approx_dict(dist(cfg, 14, 2), {(14, 2.0, "prison"): 0.25, (15, 1.0, ""): 0.75})


def test_bonus_turn_is_free():
    expec, dice = markovDecision(np.array(lay(s14=4)), False)
    # Square 14 is a bonus. risky: V = 1/4 (0 + V) + 3/4 -> V = 1 (a roll of 0 triggers it: free);
    # normal: V = 1/3 [1/2 V + 1/2 (1 + V)] + 2/3 -> 5/4.
    assert expec[13] == pytest.approx(1.0, abs=1e-10)
    assert dice[13] == 3
    cfg = SnakesSettings(layout=lay(s14=4))
    approx_dict(dist(cfg, 14, 1), {(14, 0.0, "bonus"): 1 / 6, (14, 1.0, ""): 1 / 6, (15, 1.0, ""): 2 / 3})
    approx_dict(dist(cfg, 14, 0), {(14, 1.0, ""): 0.5, (15, 1.0, ""): 0.5})  # security: immune


def test_restart_on_square_14():
    expec, dice = markovDecision(np.array(lay(s14=1)), False)
    # risky: 1 + V1/4 > 2 (V1 > 4), normal: (6 + V1)/5 > 2, so security: V = 2.
    assert expec[13] == pytest.approx(2.0, abs=1e-10)
    assert dice[13] == 1
    approx_dict(dist(SnakesSettings(layout=lay(s14=1)), 14, 2), {(1, 1.0, "restart"): 0.25, (15, 1.0, ""): 0.75})


def test_penalty_from_14_goes_back_to_11_along_the_fast_lane():
    cfg = SnakesSettings(layout=lay(s14=2))
    # Risky only on the fast lane, a = V11 .. d = V14 (a roll onto / on 14 sends the player to 11):
    # d = 1 + a/4; c = 1 + (c + a)/4; b = 1 + (b + c + a)/4; a = 1 + (a + b + c + a)/4
    # -> a = 64/11, b = 48/11, c = 36/11, d = 27/11.
    mdp = compile_snakes(cfg)
    v = evaluate_policy(mdp, np.r_[np.full(14, 2), -1])
    np.testing.assert_allclose(v[10:14], np.array([64, 48, 36, 27]) / 11, rtol=0, atol=1e-12)


def test_step_die_counts_turns_by_hand_for_each_trap_type():
    # One deterministic die (+1, always triggers). From 3 the junction sends the player to the
    # slow lane (8 more throws: 4..10, 15) or the fast lane (11, 12, 13, 14, 15) with prob 1/2.
    def v(layout, **kw):
        cfg = SnakesSettings(layout=layout, dice=(STEP,), **kw)
        return solve(compile_snakes(cfg), "pi").values

    empty = v(lay())
    assert empty[2] == pytest.approx((8 + 5) / 2) and empty[0] == pytest.approx(2 + 6.5)
    # Restart on 12: V3 = 8/2 + (2 + V1)/2 and V1 = 2 + V3 -> V3 = 12, V1 = 14.
    r = v(lay(s12=1))
    assert (r[2], r[0]) == (pytest.approx(12.0), pytest.approx(14.0))
    # Penalty on 12 (-> 2): V3 = 8/2 + (3 + V3)/2 -> V3 = 11, V1 = 13.
    p = v(lay(s12=2))
    assert (p[2], p[0]) == (pytest.approx(11.0), pytest.approx(13.0))
    # Prison on 12: fast lane costs 1 + 2 + 1 + 1 + 1 = 6 -> V3 = (8 + 6)/2 = 7.
    assert v(lay(s12=3))[2] == pytest.approx(7.0)
    # Bonus on 12: fast lane costs 1 + 0 + 1 + 1 + 1 = 4 -> V3 = (8 + 4)/2 = 6.
    assert v(lay(s12=4))[2] == pytest.approx(6.0)
    # Mystery on 12: 3 -> 11 costs 1; the move onto 12 costs 1 (restart, penalty) or 2 (prison),
    # then restart: from 1, 2 + V3 more; penalty (to 2): 1 + V3 more; prison: 3 more throws.
    # V3 = 8/2 + 1/2 [1 + 1/3 (1 + 2 + V3) + 1/3 (1 + 1 + V3) + 1/3 (2 + 3)]
    #    = 9/2 + (10 + 2 V3)/6  ->  (2/3) V3 = 37/6  ->  V3 = 37/4.
    assert v(lay(s12=4), type4="mystery")[2] == pytest.approx(37 / 4)


def test_gamble_teleports_uniformly_without_cascade():
    cfg = SnakesSettings(layout=lay(s12=4, s5=1), type4="gamble")
    d = dist(cfg, 12, 2)  # risky on 12: roll 0 gambles, 1 -> 13, 2 -> 14, 3 -> 15
    for s in range(1, 16):
        extra = 0.25 if s in (13, 14, 15) else 0.0
        assert d.get((s, 1.0, "gamble"), 0.0) + d.get((s, 1.0, ""), 0.0) == pytest.approx(0.25 / 15 + extra)
    # landing on square 5 (a restart) by gamble does not restart: no cascade
    assert (5, 1.0, "gamble") in d and (1, 1.0, "restart") not in d


def test_mystery_is_restart_penalty_or_prison():
    cfg = SnakesSettings(layout=lay(s13=4), type4="mystery")
    approx_dict(dist(cfg, 13, 2), {
        (1, 1.0, "mystery restart"): 1 / 12, (3, 1.0, "mystery penalty"): 1 / 12,
        (13, 2.0, "mystery prison"): 1 / 12, (14, 1.0, ""): 0.25, (15, 1.0, ""): 0.5,
    })


def test_no_cascade_after_a_teleport():
    # Penalty on 14 sends to 11, which is a restart: the restart does not fire on arrival.
    cfg = SnakesSettings(layout=lay(s14=2, s11=1))
    approx_dict(dist(cfg, 14, 2), {(11, 1.0, "penalty"): 0.25, (15, 1.0, ""): 0.75})
    # ... but it can fire later on a roll of 0 from 11.
    assert dist(cfg, 11, 2)[(1, 1.0, "restart")] == pytest.approx(0.25)
    # Penalty on 6 sends to 3: the junction applies on the next move (the player stands on 3).
    cfg = SnakesSettings(layout=lay(s6=2, s3=3))
    approx_dict(dist(cfg, 5, 2), {(5, 1.0, ""): 0.25, (3, 1.0, "penalty"): 0.25, (7, 1.0, ""): 0.25,
                                  (8, 1.0, ""): 0.25})


def test_normal_die_triggers_half_the_time_and_on_a_roll_of_zero():
    cfg = SnakesSettings(layout=lay(s5=1))
    approx_dict(dist(cfg, 5, 1), {(1, 1.0, "restart"): 1 / 6, (5, 1.0, ""): 1 / 6, (6, 1.0, ""): 1 / 3,
                                  (7, 1.0, ""): 1 / 3})
    approx_dict(dist(cfg, 4, 1), {(4, 1.0, ""): 1 / 3, (5, 1.0, ""): 1 / 6, (1, 1.0, "restart"): 1 / 6,
                                  (6, 1.0, ""): 1 / 3})


# ------------------------------------------------------------------ the board: junction, lanes, circle
def test_junction_only_when_stopping_on_3():
    cfg = SnakesSettings()
    # the statement's example: security on 3: 0 -> stay, 1 -> 4 or 11 with prob 1/2 each
    approx_dict(dist(cfg, 3, 0), {(3, 1.0, ""): 0.5, (4, 1.0, ""): 0.25, (11, 1.0, "fast lane"): 0.25})
    approx_dict(dist(cfg, 3, 2), {(3, 1.0, ""): 0.25, (4, 1.0, ""): 0.125, (11, 1.0, "fast lane"): 0.125,
                                  (5, 1.0, ""): 0.125, (12, 1.0, "fast lane"): 0.125, (6, 1.0, ""): 0.125,
                                  (13, 1.0, "fast lane"): 0.125})
    # passing through 3 stays on the slow lane
    approx_dict(dist(cfg, 2, 2), {(2, 1.0, ""): 0.25, (3, 1.0, ""): 0.25, (4, 1.0, ""): 0.25, (5, 1.0, ""): 0.25})
    approx_dict(dist(cfg, 1, 2), {(1, 1.0, ""): 0.25, (2, 1.0, ""): 0.25, (3, 1.0, ""): 0.25, (4, 1.0, ""): 0.25})


def test_lanes_end_at_15():
    cfg = SnakesSettings()
    approx_dict(dist(cfg, 9, 2), {(9, 1.0, ""): 0.25, (10, 1.0, ""): 0.25, (15, 1.0, ""): 0.5})
    approx_dict(dist(cfg, 13, 1), {(13, 1.0, ""): 1 / 3, (14, 1.0, ""): 1 / 3, (15, 1.0, ""): 1 / 3})
    assert next_squares(1) == (2,) and next_squares(3) == (4, 11) and next_squares(10) == (15,)
    assert next_squares(11) == (12,) and next_squares(14) == (15,) and next_squares(15) == ()
    assert [next_squares(s) for s in range(4, 10)] == [(s + 1,) for s in range(4, 10)]


def test_circle_overshoot_restart_and_wrap():
    restart = SnakesSettings(circle=True)
    approx_dict(dist(restart, 14, 2), {(14, 1.0, ""): 0.25, (15, 1.0, ""): 0.25, (1, 1.0, "overshoot"): 0.5})
    approx_dict(dist(restart, 9, 2), {(9, 1.0, ""): 0.25, (10, 1.0, ""): 0.25, (15, 1.0, ""): 0.25,
                                      (1, 1.0, "overshoot"): 0.25})
    wrap = SnakesSettings(layout=lay(s2=3), circle=True, overshoot="wrap")
    # overshoot by 1 -> square 1, by 2 -> square 2, whose prison fires (risky always triggers)
    approx_dict(dist(wrap, 14, 2), {(14, 1.0, ""): 0.25, (15, 1.0, ""): 0.25, (1, 1.0, "overshoot"): 0.25,
                                    (2, 2.0, "prison"): 0.25})
    assert [wrap_square(k) for k in (1, 2, 3, 10, 11, 12)] == [1, 2, 3, 10, 15, 1]


def test_circle_values_with_a_deterministic_die():
    # Die +3: 1 -> 4 -> 7 -> 10 (passes 3: slow lane). Not circular: 10 -> 15 wins: 4 throws.
    hop3 = Die("hop3", ((3, 1.0),), 1.0)
    v = solve(compile_snakes(SnakesSettings(dice=(hop3,))), "pi").values
    assert v[0] == pytest.approx(4.0)
    # Circular with wrap: 10 + 3 overshoots by 2 -> square 2 -> 5 -> 8 -> 15 exactly: 7 throws.
    v = solve(compile_snakes(SnakesSettings(dice=(hop3,), circle=True, overshoot="wrap")), "pi").values
    assert v[0] == pytest.approx(7.0)
    # Circular with restart: 1 -> 4 -> 7 -> 10 -> 1 forever: refused with a clear message.
    with pytest.raises(ValueError, match="no choice of dice ever reaches square 15"):
        compile_snakes(SnakesSettings(dice=(hop3,), circle=True))
    # Die +2 on a circle (restart): 1 -> 3; slow 5, 7, 9, 15 (4 throws); fast 12, 14, overshoot -> 1.
    # V3 = 4/2 + (3 + V1)/2, V1 = 1 + V3 -> V3 = 8, V1 = 9.
    hop2 = Die("hop2", ((2, 1.0),), 1.0)
    v = solve(compile_snakes(SnakesSettings(dice=(hop2,), circle=True)), "pi").values
    assert (v[2], v[0]) == (pytest.approx(8.0), pytest.approx(9.0))


def test_penalty_goes_back_along_the_path():
    expected = {2: 1, 3: 1, 4: 1, 5: 2, 6: 3, 7: 4, 8: 5, 9: 6, 10: 7, 11: 1, 12: 2, 13: 3, 14: 11}
    assert {s: penalty_square(s) for s in expected} == expected
    assert walk(12, -3) == (2, 0) and walk(11, -1) == (3, 0) and walk(9, 3) == (15, 1)


def test_special_die_backward_moves():
    cfg = apply_rule_set(SnakesSettings(), "special die")
    assert cfg.dice[-1] == SPECIAL and len(cfg.dice) == 4
    approx_dict(dist(cfg, 12, 3), {(2, 1.0, ""): 0.25, (11, 1.0, ""): 0.25, (15, 1.0, ""): 0.5})
    approx_dict(dist(cfg, 1, 3), {(1, 1.0, ""): 0.5, (4, 1.0, ""): 0.25, (6, 1.0, ""): 0.25})
    approx_dict(dist(cfg, 3, 3), {(1, 1.0, ""): 0.25, (2, 1.0, ""): 0.25, (6, 1.0, ""): 0.125,
                                  (13, 1.0, "fast lane"): 0.125, (8, 1.0, ""): 0.125, (15, 1.0, "fast lane"): 0.125})
    # backward onto a trap triggers it (always)
    trap = replace(cfg, layout=lay(s11=3))
    assert dist(trap, 12, 3)[(11, 2.0, "prison")] == pytest.approx(0.25)


def test_outcome_probabilities_sum_to_one_everywhere():
    rng = np.random.default_rng(7)
    for _ in range(12):
        layout = tuple(int(x) for x in np.r_[0, rng.integers(0, 5, 13), 0])
        for name in RULE_SETS:
            for circle in (False, True):
                cfg = apply_rule_set(SnakesSettings(layout=layout, circle=circle), name)
                for s in range(1, 15):
                    for k in range(cfg.n_dice):
                        outs = outcomes(cfg, s, k)
                        assert math.fsum(o.prob for o in outs) == pytest.approx(1.0, abs=1e-12)
                        assert all(1 <= o.square <= 15 and o.cost in (0.0, 1.0, 2.0) for o in outs)
    assert outcomes(SnakesSettings(), 15, 0) == []


# ------------------------------------------------------------------ compiler and solvers
def test_compiled_mdp_shape():
    cfg = SnakesSettings(layout=ISSUE_LAYOUT)
    mdp = compile_snakes(cfg)
    assert (mdp.n_states, mdp.n_actions, mdp.objective, mdp.discount) == (15, 3, "min", 1.0)
    assert mdp.terminal.tolist() == [False] * 14 + [True]
    assert mdp.state_labels == tuple(str(s) for s in range(1, 16))
    assert mdp.action_labels == ("security", "normal", "risky")
    assert mdp.outcomes(9, 2)  # state 9 = square 10


def _model_from_the_rule_function(cfg: SnakesSettings):
    """compile_snakes as it was: every outcome() of every (square, die), through from_transitions."""
    from mdpviz.core.mdp import TabularMDP

    src, act, dst, prob, cost = [], [], [], [], []
    for s in range(1, 15):
        for k in range(len(cfg.dice)):
            for o in outcomes(cfg, s, k):
                src.append(s - 1)
                act.append(k)
                dst.append(o.square - 1)
                prob.append(o.prob)
                cost.append(o.cost)
    return TabularMDP.from_transitions(15, len(cfg.dice), src, act, dst, prob, cost, discount=1.0, terminal=(14,),
                                       objective="min", state_labels=[str(s) for s in range(1, 16)],
                                       action_labels=cfg.dice_names)


@pytest.mark.parametrize("rules", list(RULE_SETS) + ["custom dice"])
@pytest.mark.parametrize("circle", [False, True])
def test_compiled_model_is_bit_identical_to_the_rule_function(rules, circle):
    """The tabulated compiler (moves once per rule set, traps per layout) builds exactly the model
    of outcome(): every array, dtype, order, probability bit and label, on random layouts."""
    import dataclasses

    from mdpviz.core.mdp import TabularMDP

    rng = np.random.default_rng(7 + circle)
    base = SnakesSettings(circle=circle, overshoot="wrap" if circle else "restart")
    if rules == "custom dice":
        base = replace(base, dice=(STEP, Die("odd", ((-2, 0.2), (0, 0.1), (4, 0.7)), 0.3), SECURITY), type4="gamble")
    else:
        base = apply_rule_set(base, rules)
    for _ in range(25):
        cfg = replace(base, layout=(0, *(int(x) for x in rng.integers(0, 5, 13)), 0))
        got, want = compile_snakes(cfg), _model_from_the_rule_function(cfg)
        for f in dataclasses.fields(TabularMDP):
            a, b = getattr(got, f.name), getattr(want, f.name)
            if isinstance(b, np.ndarray):
                assert a.dtype == b.dtype and np.array_equal(a, b) and not a.flags.writeable, f.name
            else:
                assert a == b, f.name


@pytest.mark.parametrize("rules", list(RULE_SETS))
@pytest.mark.parametrize("circle", [False, True])
def test_all_solvers_agree(rules, circle):
    cfg = apply_rule_set(SnakesSettings(layout=ISSUE_LAYOUT, circle=circle), rules)
    mdp = compile_snakes(cfg)
    sols = {m: solve(mdp, m, **({"tol": 1e-12} if m in ("vi", "gs") else {})) for m in ("vi", "gs", "pi", "lp")}
    ref = sols["pi"].values
    for m, s in sols.items():
        assert s.converged, m
        np.testing.assert_allclose(s.values, ref, rtol=0, atol=1e-9, err_msg=m)
        # every solver's policy achieves the optimal values
        np.testing.assert_allclose(evaluate_policy(mdp, s.policy), ref, rtol=0, atol=1e-9, err_msg=m)


def test_markov_decision_matches_policy_iteration_on_random_layouts():
    rng = np.random.default_rng(2022)
    for i in range(40):
        layout = np.r_[0, rng.integers(0, 5, 13), 0]
        circle = bool(i % 2)
        expec, dice = markovDecision(layout, circle)
        mdp = compile_snakes(SnakesSettings(layout=tuple(int(x) for x in layout), circle=circle))
        exact = solve(mdp, "pi").values[:14]
        np.testing.assert_allclose(expec, exact, rtol=0, atol=1e-9)
        # the returned dice achieve the returned expectations
        np.testing.assert_allclose(evaluate_policy(mdp, np.r_[dice - 1, -1])[:14], exact, rtol=0, atol=1e-9)


# ------------------------------------------------------------------ invalid input
@pytest.mark.parametrize("layout, message", [
    (np.zeros(14), "15 values"),
    (np.zeros(16), "15 values"),
    (np.r_[0, 5, np.zeros(13)], r"layout\[1\] \(square 2\) = 5 is outside 0..4"),
    (np.r_[0, -1, np.zeros(13)], "outside 0..4"),
    (np.r_[1, np.zeros(14)], "square 1, the start"),
    (np.r_[np.zeros(14), 3], "square 15, the goal"),
    (np.r_[0, 5, np.zeros(13, dtype=int)], r"layout\[1\] \(square 2\) = 5 is outside 0..4"),
    (np.r_[0, -1, np.zeros(13, dtype=np.int8)], "outside 0..4"),
    (np.r_[np.zeros(14, dtype=int), 4], "square 15, the goal"),
    (np.r_[2, np.zeros(14, dtype=np.uint8)], "square 1, the start"),
    ([0, "a"] + [0] * 13, r"layout\[1\] \(square 2\) is not a number"),
    ([0, None] + [0] * 13, "is not a number"),
    ([0, 2.5] + [0] * 13, "is not an integer"),
    ([0, float("nan")] + [0] * 13, "is not an integer"),
    (np.zeros((3, 5)), "flat sequence"),
    ("000000000000000", "string"),
    (5, "flat sequence"),
])
def test_invalid_layouts(layout, message):
    with pytest.raises(ValueError, match=message):
        markovDecision(layout, False)


@pytest.mark.parametrize("circle", [1, 0, "True", None, 1.0])
def test_circle_must_be_a_bool(circle):
    with pytest.raises(ValueError, match="circle must be a bool"):
        markovDecision(np.zeros(15), circle)


def test_layout_from_input_returns_ints():
    assert layout_from_input(np.array(ISSUE_LAYOUT, dtype=float)) == ISSUE_LAYOUT
    for dtype in (np.int64, np.int8, np.uint16):
        got = layout_from_input(np.array(ISSUE_LAYOUT, dtype=dtype))
        assert got == ISSUE_LAYOUT and all(type(t) is int for t in got)


def test_config_validation():
    with pytest.raises(ValueError, match="15 squares"):
        SnakesSettings(layout=(0,) * 14).validate()
    with pytest.raises(ValueError, match="square 1 is the start"):
        SnakesSettings(layout=(2,) + (0,) * 14).validate()
    with pytest.raises(ValueError, match="overshoot must be"):
        SnakesSettings(overshoot="bounce").validate()
    with pytest.raises(ValueError, match="type4 must be"):
        SnakesSettings(type4="ladder").validate()
    with pytest.raises(ValueError, match="repeated: risky"):
        SnakesSettings(dice=(RISKY, RISKY)).validate()
    with pytest.raises(ValueError, match="no die has a forward move"):
        SnakesSettings(dice=(Die("back", ((-1, 1.0),), 0.0),)).validate()
    with pytest.raises(ValueError, match="unknown rule set"):
        apply_rule_set(SnakesSettings(), "ladders")
    assert SnakesSettings(layout=ISSUE_LAYOUT).validate().layout == ISSUE_LAYOUT


def test_die_validation_and_parsing():
    with pytest.raises(ValueError, match="sum to 0.9"):
        Die("d", ((0, 0.5), (1, 0.4)), 0.0)
    with pytest.raises(ValueError, match="move 1 appears more than once"):
        Die("d", ((1, 0.5), (1, 0.5)), 0.0)
    with pytest.raises(ValueError, match="trigger must be a probability"):
        Die("d", ((1, 1.0),), 1.5)
    with pytest.raises(ValueError, match="never leave its square"):
        Die("d", ((0, 1.0),), 1.0)
    with pytest.raises(ValueError, match="move 20 is outside"):
        Die("d", ((20, 1.0),), 1.0)
    with pytest.raises(ValueError, match="must be an integer"):
        Die("d", ((1.5, 1.0),), 1.0)
    with pytest.raises(ValueError, match="non-empty name"):
        Die("", ((1, 1.0),), 1.0)
    d = parse_die("lucky:1=1/2, 3=1/2:1/4")
    assert d == Die("lucky", ((1, 0.5), (3, 0.5)), 0.25)
    with pytest.raises(ValueError, match="expected NAME"):
        parse_die("lucky:1=1")
    with pytest.raises(ValueError, match="'x' is not a probability"):
        parse_die("lucky:1=x:0")
    assert RISKY.describe() == "risky: 0,1,2,3 (1/4 each), trigger 1"
    assert [Fraction(p).limit_denominator(10) for _, p in NORMAL.faces] == [Fraction(1, 3)] * 3
    assert DEFAULT_DICE == (SECURITY, NORMAL, RISKY) and SECURITY.trigger == 0.0


def test_square_types_and_names():
    assert SQUARE_TYPES == {0: "ordinary", 1: "restart", 2: "penalty", 3: "prison", 4: "bonus"}
    assert [square_type_name(4, t) for t in ("bonus", "gamble", "mystery")] == ["bonus", "gamble", "mystery"]
    assert square_type_name(2, "gamble") == "penalty"
    with pytest.raises(ValueError):
        square_type_name(5, "bonus")
    assert {"statement", "gamble", "mystery", "special die"} <= set(RULE_SETS)


def test_custom_dice_rebuild_the_model():
    lucky = parse_die("lucky:2=1/2,3=1/2:0")
    cfg = replace(SnakesSettings(layout=ISSUE_LAYOUT), dice=DEFAULT_DICE + (lucky,))
    mdp = compile_snakes(cfg)
    assert mdp.n_actions == 4 and mdp.action_labels[-1] == "lucky"
    base = solve(compile_snakes(SnakesSettings(layout=ISSUE_LAYOUT)), "pi").values
    better = solve(mdp, "pi").values
    assert np.all(better <= base + 1e-12) and better[0] < base[0]
