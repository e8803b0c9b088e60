"""``mdpviz attt encode|decode|iterate`` through :func:`mdpviz.cli.main` (exit code, stdout, stderr)."""
from __future__ import annotations

import json
from pathlib import Path

from mdpviz.core.examples import ATTT_DIR

import pytest

from mdpviz.cli import main
from mdpviz.models import attt
from mdpviz.core.cs747 import parse_cs747

DATA = ATTT_DIR


@pytest.fixture(scope="module")
def data() -> Path:
    """The course's anti-tic-tac-toe folder, shipped inside the package (mdpviz/examples/cs747/attt)."""
    assert DATA.is_dir(), f"the package's example data is missing: {DATA}"
    return DATA


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def one_line_error(code: int, out: str, err: str) -> str:
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mdpviz: error: "), err
    assert "Traceback" not in err
    return lines[0][len("mdpviz: error: "):]


@pytest.mark.parametrize("me", [1, 2])
def test_encode_plan_decode_pipeline(capsys, tmp_path, data, me):
    states = data / "states" / f"states_file_p{me}.txt"
    opp = data / "policies" / f"p{3 - me}_policy1.txt"
    code, mdp_text, err = cli(capsys, "attt", "encode", "--policy", opp, "--states", states)
    assert code == 0 and err == ""
    n = 2423 if me == 1 else 2097
    assert mdp_text.startswith(f"numStates {n + 3}\nnumActions 9\nend {n} {n + 1} {n + 2}\n")
    mdp = parse_cs747(mdp_text, "mdp.txt")
    assert mdp.discount == 1.0 and mdp.is_episodic
    (tmp_path / "mdp.txt").write_text(mdp_text)

    code, vp, err = cli(capsys, "plan", "--mdp", tmp_path / "mdp.txt")
    assert code == 0 and err == ""
    vp_lines = vp.splitlines()
    assert len(vp_lines) == n + 3
    (tmp_path / "vp.txt").write_text(vp)

    code, pol_text, err = cli(capsys, "attt", "decode", "--value-policy", tmp_path / "vp.txt",
                              "--states", states, "--player-id", me)
    assert code == 0 and err == ""
    lines = pol_text.splitlines()
    assert lines[0] == str(me) and len(lines) == n + 1
    assert [ln.split()[0] for ln in lines[1:]] == states.read_text().split()
    assert all(sorted(ln.split()[1:]) == ["0"] * 8 + ["1"] for ln in lines[1:])  # one-hot rows
    # the decoded rows play the planner's actions
    assert all(ln.split()[1 + int(v.split()[1])] == "1" for ln, v in zip(lines[1:], vp_lines))
    mine = attt.parse_policy(pol_text, "policy.txt", player=me)
    other = attt.load_policy(opp)
    out = attt.outcome_probabilities(*((mine, other) if me == 1 else (other, mine)))
    assert (out.p1_win if me == 1 else out.p2_win) == 1.0
    if me == 1:
        assert vp_lines[0].split()[0] == "1.000000"  # V(empty board) = P(player 1 wins) = 1


def test_iterate_from_a_policy_file_json(capsys, data):
    code, out, err = cli(capsys, "attt", "iterate", "--start", data / "policies" / "p1_policy1.txt", "--json")
    assert code == 0 and err == ""
    d = json.loads(out)
    for key in ("rounds", "converged", "p1_win", "p2_win", "draw", "changed_per_round"):
        assert key in d
    assert d["converged"] is True and d["rounds"] == 7
    assert d["changed_per_round"] == [2097, 1556, 374, 322, 40, 36, 0]
    assert (d["p1_win"], d["p2_win"], d["draw"]) == (0.0, 1.0, 0.0)
    assert [h["player"] for h in d["history"]] == [2, 1, 2, 1, 2, 1, 2]
    assert [h["changed"] for h in d["history"]] == d["changed_per_round"]
    assert d["start_policy"]["player"] == 1 and d["ties"] == "lowest"


def test_iterate_random_start_text_and_saved_policies(capsys, tmp_path):
    code, out, err = cli(capsys, "attt", "iterate", "--start", "random", "--seed", "1",
                         "--algorithm", "vi-sync", "--save-dir", tmp_path / "final")
    assert code == 0 and err == ""
    assert "random (seed 1)" in out
    assert "converged after" in out and "player 1 never wins at convergence" in out
    assert "final: P(p1 win) = 0, P(p2 win) = 1, P(draw) = 0" in out
    p1 = attt.load_policy(tmp_path / "final" / "p1_policy.txt", player=1)
    p2 = attt.load_policy(tmp_path / "final" / "p2_policy.txt", player=2)
    assert attt.outcome_probabilities(p1, p2).p1_win == 0.0
    # same seed, same run; another seed, another start
    code, a, _ = cli(capsys, "attt", "iterate", "--start", "random", "--seed", "1", "--algorithm", "vi-sync", "--json")
    code, b, _ = cli(capsys, "attt", "iterate", "--start", "random", "--seed", "2", "--algorithm", "vi-sync", "--json")
    a, b = json.loads(a), json.loads(b)
    assert a["converged"] and b["converged"] and a["p1_win"] == b["p1_win"] == 0.0
    assert a["changed_per_round"][1] != b["changed_per_round"][1]


def test_iterate_uniform_start_for_player_2_and_tie_rule(capsys):
    code, out, err = cli(capsys, "attt", "iterate", "--start", "uniform", "--start-player", "2",
                         "--ties", "highest", "--algorithm", "vi-sync", "--json")
    assert code == 0 and err == ""
    d = json.loads(out)
    assert d["start_policy"] == {"policy": "uniform", "player": 2} and d["ties"] == "highest"
    assert d["converged"] and d["p1_win"] == 0.0 and d["history"][0]["player"] == 1
    # player 1's best response to uniform player 2 wins with probability 173/192 whatever the
    # tie rule (V* is unique; checked by a game-tree walk in test_attt.py)
    h = d["history"][0]
    assert h["changed"] == 2423 and h["p1_win"] == pytest.approx(173 / 192, abs=1e-14)
    assert h["p1_win"] + h["p2_win"] + h["draw"] == pytest.approx(1.0, abs=1e-14)


def test_bad_inputs_give_one_line_errors(capsys, tmp_path, data):
    s1 = data / "states" / "states_file_p1.txt"
    s2 = data / "states" / "states_file_p2.txt"
    p1 = data / "policies" / "p1_policy1.txt"
    # states file of the wrong player for this opponent
    msg = one_line_error(*cli(capsys, "attt", "encode", "--policy", p1, "--states", s1))
    assert msg.startswith(f"{s1}:1: board 000000000 has player 1 to move") and "must be player 2's" in msg
    # probabilities not summing to 1, on line 3
    bad = tmp_path / "bad_policy.txt"
    lines = p1.read_text().splitlines()
    lines[2] = lines[2].split()[0] + " 0 0 0.5 0 0 0 0.25 0 0"
    bad.write_text("\n".join(lines) + "\n")
    msg = one_line_error(*cli(capsys, "attt", "encode", "--policy", bad, "--states", s2))
    assert msg == f"{bad}:3: board 120000000: probabilities sum to 0.75, not 1"
    # an impossible board in a states file
    bad_s = tmp_path / "bad_states.txt"
    bad_s.write_text("100000000\n121000000\n111000000\n")
    msg = one_line_error(*cli(capsys, "attt", "encode", "--policy", p1, "--states", bad_s))
    assert msg.startswith(f"{bad_s}:3: board 111000000 has impossible counts")
    # a board the opponent's policy lacks (unknown state)
    short = tmp_path / "short_policy.txt"
    short.write_text("\n".join(p1.read_text().splitlines()[:100]) + "\n")
    msg = one_line_error(*cli(capsys, "attt", "encode", "--policy", short, "--states", s2))
    assert msg.startswith(f"{short}: no entry for board ")
    # an unknown board in a policy file
    unk = tmp_path / "unknown.txt"
    unk.write_text("1\n000000000 1 0 0 0 0 0 0 0 0\n12000000x 0 0 1 0 0 0 0 0 0\n")
    msg = one_line_error(*cli(capsys, "attt", "encode", "--policy", unk, "--states", s2))
    assert msg.startswith(f"{unk}:3: '12000000x' is not a board")
    # wrong player id for decode
    vp = tmp_path / "vp.txt"
    vp.write_text("1.0 0\n" * 2100)
    msg = one_line_error(*cli(capsys, "attt", "decode", "--value-policy", vp, "--states", s2, "--player-id", "1"))
    assert msg.startswith(f"{s2}:1: board 100000000 has player 2 to move") and msg.endswith("(--player-id 1)")
    msg = one_line_error(*cli(capsys, "attt", "decode", "--value-policy", vp, "--states", s2, "--player-id", "3"))
    assert msg == "--player-id must be 1 or 2, got 3"
    # an action on an occupied cell
    msg = one_line_error(*cli(capsys, "attt", "decode", "--value-policy", vp, "--states", s2, "--player-id", "2"))
    assert msg.startswith(f"{vp}:1: action 0 is an occupied cell of board 100000000")
    # a missing file
    msg = one_line_error(*cli(capsys, "attt", "decode", "--value-policy", tmp_path / "nope.txt", "--states", s2, "--player-id", "2"))
    assert msg == f"{tmp_path / 'nope.txt'}: no such file"
    # iterate option checks
    msg = one_line_error(*cli(capsys, "attt", "iterate", "--start", p1, "--seed", "1"))
    assert "--seed applies to --start random only" in msg
    msg = one_line_error(*cli(capsys, "attt", "iterate", "--start", p1, "--start-player", "2"))
    assert msg == f"--start-player 2, but {p1} is player 1's policy"
    msg = one_line_error(*cli(capsys, "attt", "iterate", "--start", "random", "--max-rounds", "0"))
    assert msg == "--max-rounds must be at least 1, got 0"
    msg = one_line_error(*cli(capsys, "attt", "iterate", "--start", tmp_path / "missing.txt"))
    assert msg == f"{tmp_path / 'missing.txt'}: no such file"
