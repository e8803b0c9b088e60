"""Anti-tic-tac-toe (seed 000): rules, files, encoder/decoder, outcomes, best-response iteration.

The "independent" checks use a plain recursive game-tree walk written here, with its own line
test and exact fractions; it never goes through the encoder, the TabularMDP or a solver.
"""
from __future__ import annotations

import dataclasses
import re
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

from mdpviz.core.examples import ATTT_DIR

import numpy as np
import pytest

from mdpviz.models import attt
from mdpviz.core.cs747 import MDPFileError, format_cs747, format_value_policy, parse_cs747
from mdpviz.solvers import hitting_probabilities, row_weights_deterministic, solve
from mdpviz.solvers.sweep import policy_to_rows

DATA = ATTT_DIR


@pytest.fixture(scope="module")
def data() -> Path:
    """The course's anti-tic-tac-toe folder, shipped inside the package (mdpviz/examples/cs747/attt)."""
    assert DATA.is_dir(), f"the package's example data is missing: {DATA}"
    return DATA


@pytest.fixture(scope="module")
def course(data: Path) -> dict:
    """The course's states files and policy files, parsed."""
    return {
        "s1": attt.load_states(data / "states" / "states_file_p1.txt"),
        "s2": attt.load_states(data / "states" / "states_file_p2.txt"),
        "p1": attt.load_policy(data / "policies" / "p1_policy1.txt"),
        "p2": attt.load_policy(data / "policies" / "p2_policy1.txt"),
    }


# ------------------------------------------------------------------ an independent game-tree walk
T_LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


def t_result(board: str, mover: str) -> str:
    """'lose' if ``mover`` completed a line, 'draw' if the board is full, else 'go'."""
    if any(board[i] == board[j] == board[k] == mover for i, j, k in T_LINES):
        return "lose"
    return "draw" if "0" not in board else "go"


def t_policy(text: str) -> tuple[str, dict[str, list[Fraction]]]:
    """A policy file as (player, {board: [Fraction per cell]}), parsed here without mdpviz."""
    lines = [ln.split() for ln in text.splitlines() if ln.strip()]
    return lines[0][0], {ln[0]: [Fraction(x) for x in ln[1:]] for ln in lines[1:]}


def t_outcome(pols: dict[str, dict[str, list[Fraction]]]) -> tuple[Fraction, Fraction, Fraction]:
    """Exact (P1 win, P2 win, draw) of two policies from the empty board, by recursion."""

    @lru_cache(maxsize=None)
    def go(board: str, mover: str) -> tuple[Fraction, Fraction, Fraction]:
        w1 = w2 = d = Fraction(0)
        for c, p in enumerate(pols[mover][board]):
            if not p:
                continue
            assert board[c] == "0"
            nb = board[:c] + mover + board[c + 1:]
            r = t_result(nb, mover)
            if r == "lose":
                w1, w2 = (w1, w2 + p) if mover == "1" else (w1 + p, w2)
            elif r == "draw":
                d += p
            else:
                a, b, e = go(nb, "2" if mover == "1" else "1")
                w1, w2, d = w1 + p * a, w2 + p * b, d + p * e
        return w1, w2, d

    return go("0" * 9, "1")


def t_best_win(me: str, opp: dict[str, list[Fraction]]):
    """max over my policies of P(I win) from each of my boards against the opponent's fixed policy."""
    other = "2" if me == "1" else "1"

    @lru_cache(maxsize=None)
    def best(board: str) -> Fraction:
        vals = []
        for c in range(9):
            if board[c] != "0":
                continue
            nb = board[:c] + me + board[c + 1:]
            if t_result(nb, me) != "go":
                vals.append(Fraction(0))  # I lost or drew
                continue
            v = Fraction(0)
            for c2, p in enumerate(opp[nb]):
                if p:
                    nb2 = nb[:c2] + other + nb[c2 + 1:]
                    r = t_result(nb2, other)
                    v += p * (1 if r == "lose" else 0 if r == "draw" else best(nb2))
            vals.append(v)
        return max(vals)

    return best


def t_uniform(boards: attt.Boards) -> dict[str, list[Fraction]]:
    out = {}
    for s in boards.labels:
        k = s.count("0")
        out[s] = [Fraction(1, k) if ch == "0" else Fraction(0) for ch in s]
    return out


# ------------------------------------------------------------------ rules
def test_rules_by_hand():
    b = lambda s: np.array([int(c) for c in s])  # noqa: E731
    assert attt.line_completed(b("111220000"), 1) and not attt.line_completed(b("111220000"), 2)
    assert attt.line_completed(b("200020002"), 2)  # main diagonal
    assert attt.line_completed(b("001010100"), 1)  # anti-diagonal
    assert attt.line_completed(b("120120100"), 1)  # first column
    assert attt.move_result(b("111220000"), 1) == attt.MOVER_LOSES
    assert attt.move_result(b("121211212"), 1) == attt.DRAW  # full, no line
    assert attt.move_result(b("120000000"), 2) == attt.CONTINUE
    assert list(attt.player_to_move(np.array([b("000000000"), b("100000000"), b("110000000"), b("200000000")]))) == [1, 2, 0, 0]
    assert attt.board_codes(b("000000012"))[()] == 5 and attt.board_codes(b("100000000"))[()] == 3**8
    assert attt.board_strings(np.array([b("120000000")])) == ("120000000",)


def test_reachable_boards_are_the_course_states_files(course):
    b1, b2 = attt.reachable_boards()
    assert (len(b1), len(b2)) == (2423, 2097)
    assert b1.labels == course["s1"].labels and b2.labels == course["s2"].labels  # same boards, same order
    assert course["s1"].player == 1 and course["s2"].player == 2
    assert course["p1"].player == 1 and course["p2"].player == 2
    assert course["p1"].is_deterministic and course["p2"].is_deterministic


# ------------------------------------------------------------------ a hand-checked encoding
# Player 1 to move on B = 121/122/000. Playing 6 completes column 0 (loss). Playing 7: player 2
# replies 6 or 8 (1/2 each): 121/122/210 (P1 then fills 8: draw) or 121/122/012 (P1 fills 6,
# completing column 0: loss). Playing 8: player 2 replies 6 (1/4) -> 121/122/201 (P1 fills 7: draw)
# or 7 (3/4), completing column 1 -> player 1 wins. So V(B) = 3/4 with action 8.
SMALL_STATES = "121122000\n121122210\n121122012\n121122201\n"
SMALL_P2 = "2\n121122010 0 0 0 0 0 0 0.5 0 0.5\n121122001 0 0 0 0 0 0 0.25 0.75 0\n"


def test_encode_small_case_by_hand():
    boards = attt.parse_states(SMALL_STATES, "mine.txt")
    opp = attt.parse_policy(SMALL_P2, "opp.txt")
    enc = attt.encode(boards, opp)
    m = enc.mdp
    assert (enc.win, enc.draw, enc.loss) == (4, 5, 6)
    assert m.n_states == 7 and m.n_actions == 9 and m.discount == 1.0 and m.is_episodic
    assert list(np.flatnonzero(m.terminal)) == [4, 5, 6]
    got = {(s, int(a)): sorted(m.outcomes(s, int(a))) for s in range(4) for a in m.actions_of(s)}
    assert got == {
        (0, 6): [(6, 1.0, 0.0)],
        (0, 7): [(1, 0.5, 0.0), (2, 0.5, 0.0)],
        (0, 8): [(3, 0.25, 0.0), (4, 0.75, 1.0)],
        (1, 8): [(5, 1.0, 0.0)],
        (2, 6): [(6, 1.0, 0.0)],
        (3, 7): [(5, 1.0, 0.0)],
    }
    br = attt.best_response(boards, opp)
    assert list(br.values) == [0.75, 0.0, 0.0, 0.0]
    assert list(br.policy.actions) == [8, 8, 6, 7]
    W = row_weights_deterministic(m, policy_to_rows(m, np.r_[br.policy.actions, -1, -1, -1]))
    h = hitting_probabilities(m, W, [enc.win, enc.draw, enc.loss])
    assert h[0] == pytest.approx([0.75, 0.25, 0.0], abs=1e-15)


def test_tie_rule_is_a_parameter():
    # If player 2 always replies 6 after 8, every action of B is worth 0: the tie rule decides.
    opp = attt.parse_policy("2\n121122010 0 0 0 0 0 0 0.5 0 0.5\n121122001 0 0 0 0 0 0 1 0 0\n", "opp.txt")
    boards = attt.parse_states(SMALL_STATES, "mine.txt")
    assert attt.best_response(boards, opp).policy.actions[0] == 6
    assert attt.best_response(boards, opp, ties="lowest").policy.actions[0] == 6
    assert attt.best_response(boards, opp, ties="highest").policy.actions[0] == 8
    with pytest.raises(ValueError, match="tie rule"):
        attt.best_response(boards, opp, ties="random")
    with pytest.raises(ValueError, match="tie rule"):
        attt.IterationSettings(ties="middle")


# ------------------------------------------------------------------ course files: round trips
def test_policy_files_round_trip(data, course):
    for name, key in (("p1_policy1.txt", "p1"), ("p2_policy1.txt", "p2")):
        text = (data / "policies" / name).read_text()
        assert attt.format_policy(course[key]) == text


def test_encoding_round_trips_through_the_course_format(course):
    enc = attt.encode(course["s2"], course["p1"])
    text = format_cs747(enc.mdp)
    assert text.startswith("numStates 2100\nnumActions 9\nend 2097 2098 2099\n")
    assert text.rstrip().endswith("mdptype episodic\ndiscount 1.0")
    back = parse_cs747(text, "mdp.txt")
    for f in ("state_ptr", "row_action", "row_ptr", "dst", "prob", "reward", "terminal"):
        assert np.array_equal(getattr(back, f), getattr(enc.mdp, f)), f
    assert format_cs747(back) == text
    # only empty cells are actions; every (s, a) sums to 1 (checked by TabularMDP); rewards 1 iff win
    assert np.all(course["s2"].legal[enc.mdp.row_state[enc.mdp.row_state < 2097], enc.mdp.row_action[enc.mdp.row_state < 2097]])
    assert np.array_equal(enc.mdp.reward == 1.0, enc.mdp.dst == enc.win)


@pytest.mark.parametrize("me", [1, 2])
def test_pipeline_best_response_wins_with_probability_one(course, me):
    """encode -> course text -> plan (in-place VI, as `mdpviz plan`) -> V pi text -> decode, then
    the decoded policy is checked by the independent game-tree walk."""
    mine, opp = (course["s1"], course["p2"]) if me == 1 else (course["s2"], course["p1"])
    mdp = parse_cs747(format_cs747(attt.encode(mine, opp).mdp), "mdp.txt")
    sol = solve(mdp, "gs", tol=1e-12)
    vp = format_value_policy(sol.values, sol.policy)
    actions = attt.parse_value_policy_for(vp, "vp.txt", mine)
    text = attt.format_policy(attt.decode(mine, actions))
    decoded = attt.parse_policy(text, "policy.txt", player=me)
    assert decoded.is_deterministic and decoded.boards.labels == mine.labels
    # independent: exact game-tree evaluation of the pair of policy files
    pid, mine_t = t_policy(text)
    assert pid == str(me)
    opp_t = t_policy(attt.format_policy(opp))[1]
    pols = {"1": mine_t, "2": opp_t} if me == 1 else {"1": opp_t, "2": mine_t}
    w1, w2, d = t_outcome(pols)
    assert (w1, w2, d) == ((1, 0, 0) if me == 1 else (0, 1, 0))
    out = attt.outcome_probabilities(*((decoded, opp) if me == 1 else (opp, decoded)))
    assert (out.p1_win, out.p2_win, out.draw) == ((1.0, 0.0, 0.0) if me == 1 else (0.0, 1.0, 0.0))


def test_best_response_values_match_an_independent_game_tree(course):
    """V* of player 2 against uniformly random player 1, on all 2097 boards, by two methods."""
    b1, b2 = course["s1"], course["s2"]
    uni1 = attt.AtttPolicy.uniform(b1)
    br = attt.best_response(b2, uni1, method="vi")
    best = t_best_win("2", t_uniform(b1))
    exact = np.array([float(best(s)) for s in b2.labels])
    assert np.max(np.abs(exact - br.values)) < 1e-12
    # from the empty board: player 1 opens uniformly, then player 2's best response
    p2_from_start = sum(Fraction(1, 9) * best("0" * c + "1" + "0" * (8 - c)) for c in range(9))
    out = attt.outcome_probabilities(uni1, br.policy)
    assert p2_from_start == Fraction(944, 945)  # both methods agree on this exact value
    assert out.p2_win == pytest.approx(944 / 945, abs=1e-14)
    assert out.p1_win + out.p2_win + out.draw == pytest.approx(1.0, abs=1e-14)
    # and player 1 against uniformly random player 2, from the empty board
    best1 = t_best_win("1", t_uniform(b2))
    assert best1("0" * 9) == Fraction(173, 192)
    assert attt.best_response(b1, attt.AtttPolicy.uniform(b2), method="vi").values[0] == pytest.approx(173 / 192, abs=1e-14)


def test_outcome_probabilities_match_the_independent_walk_for_stochastic_pairs(course):
    b1, b2 = course["s1"], course["s2"]
    pairs = [
        (attt.AtttPolicy.uniform(b1), attt.AtttPolicy.uniform(b2)),
        (attt.AtttPolicy.uniform(b1), course["p2"]),
        (attt.AtttPolicy.random(b1, seed=4), attt.AtttPolicy.uniform(b2)),
    ]
    for p1, p2 in pairs:
        t = t_outcome({"1": t_uniform(b1) if p1.source == "uniform" else t_policy(attt.format_policy(p1))[1],
                       "2": t_uniform(b2) if p2.source == "uniform" else t_policy(attt.format_policy(p2))[1]})
        out = attt.outcome_probabilities(p1, p2)
        assert [out.p1_win, out.p2_win, out.draw] == pytest.approx([float(x) for x in t], abs=1e-13)
        assert sum(t) == 1


def test_outcomes_agree_with_hitting_probabilities_of_the_encoded_mdp(course):
    b1, b2 = course["s1"], course["s2"]
    uni2 = attt.AtttPolicy.uniform(b2)
    br = attt.best_response(b1, uni2, method="vi")
    enc = br.encoding
    m = enc.mdp
    W = row_weights_deterministic(m, policy_to_rows(m, np.r_[br.policy.actions, -1, -1, -1]))
    h = hitting_probabilities(m, W, [enc.win, enc.draw, enc.loss])[0]  # state 0 = empty board
    out = attt.outcome_probabilities(br.policy, uni2)
    assert [out.p1_win, out.draw, out.p2_win] == pytest.approx(list(h), abs=1e-12)
    assert br.values[0] == pytest.approx(out.p1_win, abs=1e-12)


def test_solver_choice_does_not_change_the_best_response(course):
    b2, uni1 = course["s2"], attt.AtttPolicy.uniform(course["s1"])
    ref = attt.best_response(b2, uni1, method="gs").policy.actions
    for m in ("vi", "pi"):
        assert np.array_equal(attt.best_response(b2, uni1, method=m).policy.actions, ref), m


# ------------------------------------------------------------------ best-response iteration
def _starts(course):
    b1, b2 = course["s1"], course["s2"]
    return [
        course["p1"], course["p2"],
        attt.AtttPolicy.uniform(b1), attt.AtttPolicy.uniform(b2),
        attt.AtttPolicy.random(b1, seed=1), attt.AtttPolicy.random(b1, seed=2), attt.AtttPolicy.random(b2, seed=3),
    ]


def test_iteration_converges_and_player_1_never_wins(course):
    settings = attt.IterationSettings(method="vi")
    for start in _starts(course):
        res = attt.run_iteration(attt.best_response_iteration(start, settings=settings))
        assert res.converged, start.source
        assert res.changed[-1] == 0 and all(c > 0 for c in res.changed[:-1]), (start.source, res.changed)
        assert res.rounds == len(res.history) == len(res.changed) <= 10
        assert res.outcome.p1_win == 0.0, start.source  # the seed's finding
        assert res.outcome.p2_win == 1.0 and res.outcome.draw == 0.0  # with ties to the lowest cell
        # a fixed point: each final policy is the best response to the other
        for boards, opp, mine in ((course["s1"], res.p2_policy, res.p1_policy), (course["s2"], res.p1_policy, res.p2_policy)):
            assert attt.best_response(boards, opp, method="vi").policy.changed_from(mine).size == 0
        # independent check of the final outcome
        t = t_outcome({"1": t_policy(attt.format_policy(res.p1_policy))[1], "2": t_policy(attt.format_policy(res.p2_policy))[1]})
        assert t == (0, 1, 0)


def test_iteration_from_the_course_policy_round_by_round(course):
    """Regression of the measured run from p1_policy1.txt (seed's tie rule, in-place VI)."""
    gen = attt.best_response_iteration(course["p1"], p1_boards=course["s1"], p2_boards=course["s2"])
    first = next(gen)
    assert (first.round, first.player, first.changed) == (1, 2, 2097)  # a first response sets every board
    assert (first.p1_win, first.p2_win, first.draw) == (0.0, 1.0, 0.0)
    assert first.p1_policy is course["p1"] and first.p2_policy.player == 2
    assert first.values[0] == 1.0 and not first.converged
    rounds = [first]
    with pytest.raises(StopIteration) as stop:
        while True:
            rounds.append(next(gen))
    res = stop.value.value
    assert [r.round for r in rounds] == list(range(1, len(rounds) + 1))
    assert [r.player for r in rounds] == [2, 1] * (len(rounds) // 2) + [2] * (len(rounds) % 2)
    assert res.changed == (2097, 1556, 374, 322, 40, 36, 0)
    assert rounds[-1].converged and not any(r.converged for r in rounds[:-1])
    assert [r.p1_win for r in rounds] == [0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0]
    # each round's changed boards are exactly where the responder's policy moved
    for prev, cur in zip(rounds, rounds[1:]):
        mine_prev = prev.p1_policy if cur.player == 1 else prev.p2_policy
        mine_cur = cur.p1_policy if cur.player == 1 else cur.p2_policy
        diff = np.flatnonzero(np.any(mine_prev.probs != mine_cur.probs, axis=1))
        assert np.array_equal(diff, cur.changed_states)
        assert cur.changed_boards == tuple(mine_cur.boards.labels[i] for i in diff)
    # records are frozen with read-only arrays
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.changed = 3  # type: ignore[misc]
    with pytest.raises(ValueError):
        first.changed_states[0] = 1


def test_uniform_start_changes_only_boards_with_a_choice(course):
    b1 = course["s1"]
    gen = attt.best_response_iteration(attt.AtttPolicy.uniform(b1), settings=attt.IterationSettings(method="vi"))
    next(gen)
    second = next(gen)  # player 1 replaces the uniform policy
    single = int(np.sum(b1.legal.sum(axis=1) == 1))  # boards with one empty cell: uniform == one-hot
    assert second.player == 1 and second.changed == len(b1) - single


def test_iteration_stops_at_max_rounds(course):
    res = attt.run_iteration(attt.best_response_iteration(course["p1"], settings=attt.IterationSettings(method="vi", max_rounds=2)))
    assert not res.converged and res.rounds == 2 and res.changed == (2097, 1556)
    with pytest.raises(ValueError, match="max_rounds"):
        attt.IterationSettings(max_rounds=0)


# ------------------------------------------------------------------ bad files
@pytest.mark.parametrize(
    "text, line, msg",
    [
        ("000000000\n12000000\n", 2, "not a board"),
        ("000000000\n12a000000\n", 2, "not a board"),
        ("000000000\n\n110000000\n", 3, "impossible counts"),
        ("000000000\n200000000\n", 2, "impossible counts"),
        ("000000000\n120000000\n100000000\n", 3, "player 2 to move"),
        ("000000000\n120000000\n000000000\n", 3, "repeated (first given on line 1)"),
        ("111222000\n", 1, "already over"),
        ("121121212\n", 1, "is full, so nobody is to move"),
        ("000000000 1\n", 1, "one board per line"),
    ],
)
def test_bad_states_files(text, line, msg):
    with pytest.raises(MDPFileError, match=re.escape(msg)) as e:
        attt.parse_states(text, "s.txt")
    assert e.value.line == line and str(e.value).startswith(f"s.txt:{line}: ")


def test_states_file_of_the_wrong_player():
    with pytest.raises(MDPFileError, match=r"s.txt:1: board 000000000 has player 1 to move .* not player 2 \(why\)"):
        attt.parse_states("000000000\n", "s.txt", player=2, why=" (why)")
    with pytest.raises(MDPFileError, match="s.txt: lists no boards"):
        attt.parse_states("\n\n", "s.txt")


@pytest.mark.parametrize(
    "text, line, msg",
    [
        ("3\n", 1, "player id, 1 or 2"),
        ("1\n000000000 0.5 0.4 0 0 0 0 0 0 0\n", 2, "sum to 0.9, not 1"),
        ("1\n000000000 0.5 0.49998 0 0 0 0 0 0 0\n", 2, "sum to 0.99998, not 1"),
        ("1\n000000000 1 0 0 0 0 0 0 0\n", 2, "10 fields"),
        ("1\n000000000 1 0 0 0 0 0 0 0 x\n", 2, "must be numbers"),
        ("1\n000000000 1.5 -0.5 0 0 0 0 0 0 0\n", 2, "outside"),
        ("1\n000000000 1 0 0 0 0 0 0 0 0\n120000000 1 0 0 0 0 0 0 0 0\n", 3, "occupied"),
        ("1\n000000000 1 0 0 0 0 0 0 0 0\n100000000 0 1 0 0 0 0 0 0 0\n", 3, "player 2 to move"),
        ("2\n110000000 0 0 1 0 0 0 0 0 0\n", 2, "impossible counts"),
    ],
)
def test_bad_policy_files(text, line, msg):
    with pytest.raises(MDPFileError, match=re.escape(msg)) as e:
        attt.parse_policy(text, "p.txt")
    assert e.value.line == line and str(e.value).startswith(f"p.txt:{line}: ")


def test_policy_file_checks():
    with pytest.raises(MDPFileError, match="p.txt:1: wrong player id: this is player 1's policy, expected player 2's"):
        attt.parse_policy("1\n000000000 1 0 0 0 0 0 0 0 0\n", "p.txt", player=2)
    with pytest.raises(MDPFileError, match="p.txt: is empty"):
        attt.parse_policy("", "p.txt")
    # probabilities rounded to 6 decimals are accepted and rescaled to sum to 1
    pol = attt.parse_policy("1\n000000000 0.333333 0.333333 0.333333 0 0 0 0 0 0\n", "p.txt")
    assert pol.probs[0, :3] == pytest.approx([1 / 3] * 3, abs=1e-15) and abs(pol.probs.sum() - 1) < 1e-15


def test_encode_reports_missing_boards():
    boards = attt.parse_states(SMALL_STATES, "mine.txt")
    # the opponent's file lacks the board after move 8
    opp = attt.parse_policy("2\n121122010 0 0 0 0 0 0 0.5 0 0.5\n", "opp.txt")
    with pytest.raises(MDPFileError, match=r"^opp.txt: no entry for board 121122001, where player 2 must move "
                       r"after player 1 plays cell 8 on board 121122000 \(mine.txt:1\)"):
        attt.encode(boards, opp)
    # my states file lacks 121122201, reached after 8 and the reply 6
    mine = attt.parse_states("121122000\n121122210\n121122012\n", "mine.txt")
    with pytest.raises(MDPFileError, match=r"^mine.txt: does not list board 121122201"):
        attt.encode(mine, attt.parse_policy(SMALL_P2, "opp.txt"))
    with pytest.raises(ValueError, match="the opponent must be player 2"):
        attt.encode(boards, attt.parse_policy("1\n000000000 1 0 0 0 0 0 0 0 0\n", "p1.txt"))


def test_decode_checks_the_value_policy_file():
    boards = attt.parse_states(SMALL_STATES, "mine.txt")
    acts = attt.parse_value_policy_for("0.75 8\n0 8\n0 6\n0 7\n1 0\n0 0\n0 0\n", "vp.txt", boards)
    assert list(acts) == [8, 8, 6, 7]
    assert attt.format_policy(attt.decode(boards, acts)).splitlines()[:2] == ["1", "121122000 0 0 0 0 0 0 0 0 1"]
    with pytest.raises(MDPFileError, match=r"vp.txt:3: action 0 is an occupied cell of board 121122012 \(mine.txt:3\)"):
        attt.parse_value_policy_for("0.75 8\n0 8\n0 0\n0 7\n", "vp.txt", boards)
    with pytest.raises(MDPFileError, match="vp.txt: has 2 'value action' lines, fewer than the 4 boards"):
        attt.parse_value_policy_for("0.75 8\n0 8\n", "vp.txt", boards)
    with pytest.raises(MDPFileError, match="vp.txt:2: expected 'value action'"):
        attt.parse_value_policy_for("0.75 8\n0 8 1\n", "vp.txt", boards)
    with pytest.raises(MDPFileError, match="vp.txt:1: action 9 is not a cell"):
        attt.parse_value_policy_for("0.75 9\n0 8\n0 6\n0 7\n", "vp.txt", boards)


# ------------------------------------------------------------------ the rounds as a job, and the spec
def test_iteration_resumes_after_given_rounds_exactly(course):
    """The window's Step runs one job per round that resumes after the rounds it has: resuming after
    any k rounds gives the same later rounds (counts, policies, outcomes) as one uninterrupted run."""
    settings = attt.IterationSettings(method="vi")
    kw = dict(p1_boards=course["s1"], p2_boards=course["s2"], settings=settings)
    full = attt.run_iteration(attt.best_response_iteration(course["p1"], **kw))
    assert full.changed == (2097, 1556, 374, 322, 40, 36, 0) and len(full.history) == 7
    for k in (1, 2, 5):
        res = attt.run_iteration(attt.best_response_iteration(course["p1"], resume=full.history[:k], **kw))
        assert res.changed == full.changed and res.converged and res.rounds == 7
        assert res.history[:k] == full.history[:k]
        for a, b in zip(res.history[k:], full.history[k:]):
            assert (a.round, a.player, a.changed, a.p1_win, a.p2_win, a.draw, a.converged) == (
                b.round, b.player, b.changed, b.p1_win, b.p2_win, b.draw, b.converged)
            assert np.array_equal(a.p1_policy.probs, b.p1_policy.probs)
            assert np.array_equal(a.p2_policy.probs, b.p2_policy.probs)
            assert np.array_equal(a.values, b.values)
    # after the converged round there is nothing left to compute
    done = attt.run_iteration(attt.best_response_iteration(course["p1"], resume=full.history, **kw))
    assert done.converged and done.history == full.history
    with pytest.raises(ValueError, match="cannot resume"):
        next(attt.best_response_iteration(course["p1"], resume=full.history[1:], **kw))


def test_rounds_job_yields_progress_then_one_round_and_stops(course):
    from mdpviz.models.kit.game.registry import JobProgress

    setup = attt.AtttSettings(course["s1"], course["s2"], course["p1"], method="vi")
    items = []
    gen = attt.rounds_job(setup, stop_after=1)
    with pytest.raises(StopIteration) as stop:
        while True:
            items.append(next(gen))
    assert [type(x) for x in items] == [JobProgress, attt.Round]
    assert items[0] == JobProgress(0, 1, "round 1: player 2's best response")
    res = stop.value.value
    assert res.rounds == 1 and not res.converged and res.history == (items[1],) and res.changed == (2097,)
    # the next Step: a job resuming after round 1 computes round 2 only
    items = list(attt.rounds_job(setup, done=res.history, stop_after=2))
    assert items[0] == JobProgress(1, 2, "round 2: player 1's best response")
    assert [r.changed for r in items[1:]] == [1556]


def test_tie_rule_lowest_and_highest_is_the_one_greedy_rule(course):
    """choose_actions (both tie rules) picks, per state, among the actions display.best_actions
    calls tied: the lowest of them (display.greedy_action, the solvers' rule) or the highest."""
    from mdpviz.models.kit.pictures.display import best_actions, greedy_action

    opp = attt.AtttPolicy.uniform(course["s1"])
    enc = attt.encode(course["s2"], opp)
    v = np.asarray(solve(enc.mdp, "vi", tol=1e-12).values)
    q = enc.mdp.q_values(v)
    low = attt.choose_actions(enc.mdp, v, ties="lowest")
    high = attt.choose_actions(enc.mdp, v, ties="highest")
    ties = 0
    for s in range(enc.mdp.n_states):
        rows = range(int(enc.mdp.state_ptr[s]), int(enc.mdp.state_ptr[s + 1]))
        if enc.mdp.terminal[s] or not rows:
            assert low[s] == high[s] == -1
            continue
        acts = [int(enc.mdp.row_action[r]) for r in rows]
        qs = [float(q[r]) for r in rows]
        tied = [a for a, b in zip(acts, best_actions(qs, "max")) if b]
        assert low[s] == greedy_action(acts, qs, "max") == min(tied)
        assert high[s] == max(tied)
        ties += len(tied) > 1
    assert ties > 100  # the uniform opponent leaves many equal moves: both rules are exercised


def test_spec_compiles_round_trips_and_walks(course):
    import mdpviz.models.kit.game.registry as games

    spec = games.get("anti-tic-tac-toe")
    assert spec is attt.SPEC and spec.key == "attt" and spec.settings_type is attt.AtttSettings
    setup = spec.default_settings()
    mdp = spec.compile(setup)
    assert mdp.n_states == 2097 + 3  # player 2's boards (the first responder) and the three end states
    data = spec.to_dict(setup)
    back = spec.from_dict(data, "s.json")
    assert spec.to_dict(back) == data and back.start.source == setup.start.source
    with pytest.raises(ValueError, match=r"s\.json: games\.attt\.ties: must be one of lowest, highest"):
        spec.from_dict({**data, "ties": "middle"}, "s.json")
    assert spec.episodes.strategies(setup, mdp) == ("solved P2", "P1 vs uniform", "uniform vs uniform")
    model = spec.display.position_model(setup, mdp)
    pos, rng = model.start(), np.random.default_rng(0)
    for _ in range(9):  # player 1's start policy and a random player 2 to the end of a game
        if pos.terminal:
            break
        moves = model.moves(pos)
        pos = model.play(pos, moves[int(rng.integers(len(moves)))].action if pos.chooser != "model"
                         else model.reply(pos, rng), rng).after
    assert pos.terminal and pos.outcome in attt.RESULTS
    lesson = spec.display.lesson(setup, mdp)
    assert lesson.title == "Anti-tic-tac-toe" and "COMPLETES" in lesson.html()
    assert set(spec.jobs) == {"rounds", "matchups"}


# ------------------------------------------------------------------ the window's rounds, headless
def test_rounds_step_reset_reuse_and_stop_at_the_limit():
    """The window's Step, Run, Pause and Reset of the best-response rounds, driven without Qt: each
    round is one job (run at once by a HereHost), computed rounds are kept for their setup, a new setup
    starts again at round 0, and Run stops at the round limit."""
    from mdpviz.models.attt.rounds import Rounds
    from mdpviz.models.attt.setup import default_setup, encode_state
    from mdpviz.models.kit.game.driver import HereHost

    setup = dataclasses.replace(default_setup(), method="vi")  # synchronous value iteration: fast, the same rounds
    r = Rounds()
    host = r.host = HereHost()
    jobs = []
    run_job = host.run_job
    host.run_job = lambda job: (jobs.append(job.label), run_job(job))[1]
    r.settings_changed(setup)
    st0 = r.model_input(setup)
    assert st0.rounds == () and r.model_input(setup) is st0  # one object while nothing changes
    assert r.can_step() and not r.running() and not r.solve_after_reset()
    assert r.step() and len(jobs) == 1 and not r.busy
    assert [x.round for x in r.rounds] == [1] and r.rounds[0].player == 2 and r.rounds[0].changed == 2097
    assert host.changes == ["round 1"] and r.solve_after_reset()
    assert encode_state(r.state).boards.player == 2  # the board shows the round's responder
    assert r.reset() and r.rounds == () and host.changes[-1] == "rounds reset"
    assert r.step() and len(jobs) == 1 and len(r.rounds) == 1  # the kept round, applied without a job
    other = dataclasses.replace(setup, ties="highest")
    r.settings_changed(other)  # a new setup: round 0, its own rounds
    assert r.rounds == () and r.cached() == ()
    r.settings_changed(setup)
    assert r.rounds == () and len(r.cached()) == 1  # back to the first setup: its round is still kept
    limited = dataclasses.replace(setup, max_rounds=2)
    r.settings_changed(limited)
    r.pause_ms = 0
    assert r.run() and not r.auto and len(r.rounds) == 2 and not r.can_step()
    assert "without converging (limit 2)" in host.messages[-1]
    assert not r.step() and "limit 2" in host.messages[-1]
    assert tuple(x.changed for x in r.rounds) == (2097, 1556)  # the course's first two rounds
