"""Display data behind the widgets (colours, frames, backups, dice text, CSV, episodes): pure, no Qt
except the checks that read pyqtgraph's colour maps."""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass

import numpy as np
import pytest

from mdpviz.core.mdp import TabularMDP
from mdpviz.models.kit.pictures.colors import (
    COLORMAP,
    DIVERGING,
    DIVERGING_COLORMAP,
    ColorScale,
    fitted_scale,
    action_badge,
    contrast_ratio,
    format_value,
    nice_step,
    scale_for,
    text_color,
)
from mdpviz.models.kit.pictures.display import (
    ActionBackup,
    BackupTerm,
    Inspection,
    StrategyRow,
    backup_q,
    backup_text,
    best_actions,
    board_frame,
    format_faces,
    format_prob,
    histogram_bins,
    inspection_html,
    merge_terms,
    parse_faces,
    results_csv,
    sweep_caption,
)
from mdpviz.models.kit.boards.episodes import sample_mdp_episode, snakes_moves


# ---------------------------------------------------------------------------------- colours
def test_color_scale_is_fixed_and_clips():
    s = ColorScale(0.0, 20.0, "turns")
    assert s.normalise(np.array([0.0, 5.0, 20.0, 25.0, -1.0])).tolist() == [0.0, 0.25, 1.0, 1.0, 0.0]
    assert np.isnan(s.normalise(np.nan))
    flat = ColorScale(3.0, 3.0)
    assert flat.normalise(np.array([1.0, 3.0])).tolist() == [0.5, 0.5]
    with pytest.raises(ValueError, match="below lo"):
        ColorScale(2.0, 1.0)
    with pytest.raises(ValueError, match="finite"):
        ColorScale(0.0, float("inf"))


def test_scale_for_rounds_the_ends():
    assert nice_step(3.46) == 5.0 and nice_step(0.3) == 0.5 and nice_step(1.0) == 1.0 and nice_step(0.011) == 0.02
    s = scale_for(0.0, 17.3, label="turns")
    assert (s.lo, s.hi, s.label) == (0.0, 20.0, "turns")
    s = scale_for(-0.76, 1.22)  # step nice_step(0.396) = 0.5
    assert (s.lo, s.hi) == (-1.0, 1.5)
    assert (scale_for(0.0, 0.0).lo, scale_for(0.0, 0.0).hi) == (0.0, 1.0)


@pytest.mark.parametrize("name", [COLORMAP, DIVERGING_COLORMAP])
def test_text_colour_is_readable_on_both_maps(name):
    pg = pytest.importorskip("pyqtgraph")
    cmap = pg.colormap.get(name)
    assert contrast_ratio((0, 0, 0), (255, 255, 255)) == pytest.approx(21.0)
    if name == COLORMAP:
        assert text_color(tuple(int(x) for x in cmap.map(0.0, mode="byte")[:3])) == "#ffffff"  # dark purple
        assert text_color(tuple(int(x) for x in cmap.map(1.0, mode="byte")[:3])) == "#000000"  # yellow
    for t in np.linspace(0, 1, 41):  # whatever the value, the chosen ink contrasts at least 4.5:1 (WCAG AA)
        bg = tuple(int(x) for x in cmap.map(float(t), mode="byte")[:3])
        ink = (0, 0, 0) if text_color(bg) == "#000000" else (255, 255, 255)
        assert contrast_ratio(bg, ink) >= 4.5, (t, bg)


def test_fitted_scale_spans_the_values_with_round_ends():
    s = fitted_scale(1.33, 6.67, label="turns")  # the snakes statement board's optimal values
    assert (s.lo, s.hi, s.label) == (1.0, 7.0, "turns")
    for lo, hi in [(1.33, 6.67), (233.74, 376.07), (-0.03, 1.2), (0.0168, 0.0226), (-3500.0, 500.0), (-7.3, -1.1)]:
        for kind in ("sequential", DIVERGING):
            s = fitted_scale(lo, hi, kind=kind)
            assert s.lo <= lo and s.hi >= hi and (hi - lo) / (s.hi - s.lo) >= 0.8, (lo, hi, s)
    assert fitted_scale(0.0, 0.0, kind=DIVERGING) == ColorScale(-1.0, 1.0, kind=DIVERGING)
    flat = fitted_scale(1.0, 1.0)
    assert flat.lo < 1.0 < flat.hi


def test_diverging_scale_is_centred_on_zero():
    both = ColorScale(-1.0, 0.5, kind=DIVERGING)
    assert both.colormap == DIVERGING_COLORMAP and both.map_span() == (0.0, 0.75)  # 0 at the map's middle
    assert ColorScale(-2.0, 2.0, kind=DIVERGING).map_span() == (0.0, 1.0)
    lo, hi = ColorScale(230.0, 380.0, kind=DIVERGING).map_span()  # all wins: the win half, never neutral
    assert 0.5 < lo < hi == 1.0
    lo, hi = ColorScale(-3.0, -1.0, kind=DIVERGING).map_span()
    assert 0.0 == lo < hi < 0.5
    assert ColorScale(0.0, 20.0).map_span() == (0.0, 1.0) and ColorScale(0.0, 20.0).colormap == COLORMAP
    with pytest.raises(ValueError, match="kind"):
        ColorScale(0.0, 1.0, kind="rainbow")


def test_value_text_and_badges():
    assert format_value(11.98597) == "11.99"
    assert format_value(0.0) == "0.00"
    assert format_value(123456.0) == "1.23e+05"
    assert format_value(float("inf")) == "\u221e"
    assert action_badge(2, None, one_based=True) == "3"
    assert action_badge(1, ("a", "b")) == "b"
    assert action_badge(1, ("security", "normal")) == "1"  # long labels: the id
    assert action_badge(-1, None) == ""


# ---------------------------------------------------------------------------------- frames
def test_board_frame_texts_fill_badges_and_changes():
    scale = ColorScale(0.0, 4.0)
    prev = np.array([1.231, 1.5, 0.0])
    frame = board_frame(
        np.array([1.234, 2.0, 0.0]), np.array([0, 2, -1]), scale=scale, terminal=np.array([False, False, True]),
        badge=lambda a: str(a + 1), prev_values=prev, prev_policy=np.array([0, 2, -1]), caption="sweep 3",
    )
    assert frame.texts == ("1.23", "2.00", "")
    assert frame.fill[:2].tolist() == [1.234 / 4, 0.5] and np.isnan(frame.fill[2])
    assert frame.badges == ("1", "3", "")
    # 1.231 -> 1.234 prints the same: not highlighted; 1.5 -> 2.0 is
    assert frame.changed.tolist() == [False, True, False]
    # an action change alone highlights too
    frame = board_frame(np.array([1.234, 2.0, 0.0]), np.array([1, 2, -1]), scale=scale,
                        terminal=np.array([False, False, True]), badge=str, prev_values=np.array([1.234, 2.0, 0.0]),
                        prev_policy=np.array([0, 2, -1]))
    assert frame.changed.tolist() == [True, False, False]
    # the first sweep compares with V = 0
    frame = board_frame(np.array([0.0, 1.0, 0.0]), np.array([0, 0, -1]), scale=scale,
                        terminal=np.array([False, False, True]), badge=str)
    assert frame.changed.tolist() == [False, True, False]
    with pytest.raises(ValueError, match="same shape"):
        board_frame(np.zeros(3), np.zeros(2), scale=scale, terminal=np.zeros(3, bool), badge=str)


def test_sweep_caption():
    assert sweep_caption("value iteration (synchronous)", "sweep", 12, 11, 12) == "value iteration (synchronous): sweep 12"
    assert sweep_caption("policy iteration", "improve", 3, 2, 6) == "policy iteration: round 3, improve (step 3 of 6)"


# ---------------------------------------------------------------------------------- inspector
def test_backup_written_out_with_its_numbers():
    terms = [BackupTerm(1 / 3, 1.0, 3, 2.5, "roll 1"), BackupTerm(2 / 3, 2.0, 0, 1.0)]
    # 1/3 (1 + 2.5) + 2/3 (2 + 1) = 7/6 + 2 = 19/6
    assert backup_q(terms, 1.0) == pytest.approx(19 / 6)
    text = backup_text(terms, 1.0, state_name=lambda s: str(s + 1))
    assert text == "1/3 x (1 + V(4)=2.5000) [roll 1] + 2/3 x (2 + V(1)=1.0000) = 3.1667"
    # with a discount: p x (r + gamma x V)
    assert backup_q(terms, 0.5) == pytest.approx(1 / 3 * (1 + 1.25) + 2 / 3 * (2 + 0.5))
    assert "0.5 x V(4)=2.5000" in backup_text(terms, 0.5, state_name=lambda s: str(s + 1))


def test_merge_terms_sums_identical_outcomes():
    terms = [BackupTerm(0.25, 1.0, 2, 3.0), BackupTerm(0.5, 1.0, 2, 3.0), BackupTerm(0.25, 0.0, 2, 3.0)]
    merged = merge_terms(terms)
    assert [(t.prob, t.reward) for t in merged] == [(0.75, 1.0), (0.25, 0.0)]
    assert backup_q(merged, 1.0) == pytest.approx(backup_q(terms, 1.0))


def test_probabilities_as_fractions():
    assert format_prob(1 / 6) == "1/6"
    assert format_prob(1 / 24) == "1/24"
    assert format_prob(0.5) == "1/2"
    assert format_prob(1.0) == "1"
    assert format_prob(0.123456) == "0.1235"


def test_best_actions_follow_the_objective_and_ties():
    assert best_actions([3.0, 2.0, 2.0 + 1e-12], "min") == [False, True, True]
    assert best_actions([3.0, 2.0, 1.0], "max") == [True, False, False]
    assert best_actions([], "max") == []


def test_inspection_html_lists_every_action():
    insp = Inspection("square 7 after sweep 3", 4.5, (
        ActionBackup(0, "die 1 (security)", 4.7363, "1/2 x (1 + V(7)=4.6582) = 4.7363", True),
        ActionBackup(1, "die 2 (normal)", 4.9506, "...", False),
    ), "min", 1.0, unit="turns")
    html = inspection_html(insp)
    assert "square 7 after sweep 3" in html and "V = 4.5000 turns" in html
    assert "Q = 4.7363 \u2605 best" in html and "Q = 4.9506" in html
    assert "min over actions" in html
    assert "terminal" in inspection_html(Inspection("goal", 0.0, (), "min", 1.0, terminal=True)).lower()


# ---------------------------------------------------------------------------------- dice text
def test_faces_round_trip_and_errors():
    faces = ((0, 1 / 3), (1, 1 / 3), (2, 1 / 3))
    assert format_faces(faces) == "0:1/3, 1:1/3, 2:1/3"
    assert parse_faces("0:1/3, 1:1/3, 2:1/3") == faces
    assert parse_faces("-3:0.25; 5:0.75") == ((-3, 0.25), (5, 0.75))
    with pytest.raises(ValueError, match="at least one face"):
        parse_faces(" , ")
    with pytest.raises(ValueError, match="face 2 '1': write it as move:probability"):
        parse_faces("0:1/2, 1")
    with pytest.raises(ValueError, match="face 1 'x:1/2': the move 'x' is not a whole number"):
        parse_faces("x:1/2")
    with pytest.raises(ValueError, match="the probability 'a' is not a number"):
        parse_faces("1:a")
    with pytest.raises(ValueError, match="not a number or fraction"):
        parse_faces("1:1/0")


# ---------------------------------------------------------------------------------- simulation output
def test_results_csv_has_exact_numbers():
    rows = [StrategyRow("optimal", 11.98597081930415, 12.0133, 0.0962, np.array([10, 14])),
            StrategyRow("security", 17.0, 17.0333, 0.0998, np.array([17, 17, 18]))]
    text = results_csv(rows, unit="turns", start="square 1")
    table = list(csv.reader(io.StringIO(text)))
    assert table[0] == ["strategy", "start", "games", "exact_turns", "mean_turns", "ci95_half_width", "ci95_low",
                        "ci95_high"]
    assert table[1][:3] == ["optimal", "square 1", "2"]
    assert float(table[1][3]) == 11.98597081930415  # repr: no digits lost
    assert float(table[1][6]) == pytest.approx(12.0133 - 0.0962) and float(table[1][7]) == pytest.approx(12.0133 + 0.0962)
    assert table[2][2] == "3"


def test_strategy_row_within_ci():
    assert StrategyRow("a", 10.0, 10.05, 0.1, np.zeros(3)).within_ci
    assert not StrategyRow("a", 10.0, 10.2, 0.1, np.zeros(3)).within_ci


def test_histogram_bins_are_unit_wide_for_turns():
    edges = histogram_bins([np.array([3, 4, 4, 10]), np.array([5, 6])])
    assert edges[0] == 2.5 and np.all(np.diff(edges) == 1.0) and edges[-1] >= 10.5
    edges = histogram_bins([np.linspace(0.0, 1.0, 101)], max_bins=10)
    assert edges.size == 11 and edges[0] == 0.0
    assert histogram_bins([]).tolist() == [0.0, 1.0]


# ---------------------------------------------------------------------------------- episodes
def test_sample_mdp_episode_follows_the_chain_and_discounts():
    # 0 -> 1 -> 2 (terminal), reward 1 per step, discount 0.5: totals 1, 1.5
    m = TabularMDP.from_transitions(3, 1, [0, 1], [0, 0], [1, 2], [1.0, 1.0], [1.0, 1.0], discount=0.5, terminal=[2])
    probs = np.array([[1.0], [1.0], [0.0]])
    moves = sample_mdp_episode(m, probs, rng=np.random.default_rng(0))
    assert [(mv.state, mv.next_state) for mv in moves] == [(0, 1), (1, 2)]
    assert [mv.total for mv in moves] == [1.0, 1.5]
    with pytest.raises(ValueError, match="shape"):
        sample_mdp_episode(m, np.ones((3, 2)), rng=np.random.default_rng(0))


def test_sample_mdp_episode_stops_a_continuing_mdp():
    m = TabularMDP.from_transitions(1, 1, [0], [0], [0], [1.0], [2.0], discount=0.9)
    moves = sample_mdp_episode(m, np.ones((1, 1)), rng=np.random.default_rng(0), max_steps=5)
    assert len(moves) == 5
    assert moves[-1].total == pytest.approx(2 * (1 - 0.9**5) / (1 - 0.9))


def test_snakes_moves_text_and_turns():
    @dataclass
    class Step:
        square: int
        die: int
        roll: int
        event: str
        next_square: int
        cost: float

    moves = snakes_moves([Step(1, 2, 3, "", 4, 1.0), Step(4, 1, 0, "prison", 4, 2.0), Step(4, 2, 2, "bonus", 6, 0.0)],
                         ("security", "normal", "risky"))
    assert [m.total for m in moves] == [1.0, 3.0, 3.0]
    assert moves[0].text == "die 3 (risky) rolled 3: square 1 -> 4"
    assert moves[1].text == "die 2 (normal) rolled 0: square 4 -> 4 (prison), 2 turns"
    assert moves[2].state == 3 and moves[2].next_state == 5 and "0 turns" in moves[2].text
    assert [m.label for m in moves] == ["die 3: 3", "die 2: 0, prison", "die 3: 2, bonus"]
