"""Works on a fresh machine and under abuse (issue 14), headless: shipped examples, start-or-explain,
bad input as one line with exit 2 and empty stdout, bounded memory, BOMs, renormalised files.

Size cases run ``mdpviz`` in a subprocess and read its peak memory with ``resource.getrusage``.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from mdpviz.cli import build_parser, main
from mdpviz.core import chunked
from mdpviz.core.examples import ATTT_DIR, MDP_DIR, examples, mdp_examples, resolve_mdp

REPO = Path(__file__).resolve().parents[1]
GIB = 1024**3
BOM = "\ufeff"
LAYOUT = "0,0,0,1,0,0,2,0,3,0,4,0,1,2,0"


def run_cli(capsys, argv: list[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(code: int, out: str, err: str) -> str:
    assert code == 2, (code, out, err)
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


# A small parent runs `mdpviz ARGV` as its child and reads the child's peak memory with
# getrusage(RUSAGE_CHILDREN) (ru_maxrss, KiB on Linux). Linux carries a process's peak across fork and
# exec, so a child forked straight from pytest (hundreds of MB) would report pytest's peak, not its own.
PARENT = textwrap.dedent("""
    import json, resource, subprocess, sys
    r = subprocess.run([sys.executable, "-c", "import sys; from mdpviz.cli import main; sys.exit(main(sys.argv[1:]))",
                        *json.loads(sys.argv[1])], capture_output=True, text=True)
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    print(json.dumps({"code": r.returncode, "out": r.stdout, "err": r.stderr, "peak": peak}))
""")


def run_measured(argv: list[str], env: dict | None = None, timeout: float = 600) -> dict:
    """Exit status, stdout, stderr and peak memory (bytes) of ``mdpviz ARGV`` in a subprocess."""
    e = dict(os.environ, **(env or {}))
    r = subprocess.run([sys.executable, "-c", PARENT, json.dumps(argv)], capture_output=True, text=True,
                       cwd=REPO, env=e, timeout=timeout)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------------------------- example data
def test_the_course_files_are_shipped_and_listed(capsys):
    names = {e.name for e in mdp_examples()}
    assert names == {f"{k}-mdp-{n}" for k in ("continuing", "episodic") for n in ("2-2", "10-5", "50-20")}
    assert all(e.solution is not None and e.solution.is_file() for e in mdp_examples())
    assert (ATTT_DIR / "states" / "states_file_p1.txt").is_file() and (ATTT_DIR / "policies" / "p2_policy1.txt").is_file()
    code, out, err = run_cli(capsys, ["examples"])
    assert code == 0 and err == ""
    for e in examples():
        assert e.name in out
    code, out, _ = run_cli(capsys, ["examples", "--paths"])
    assert str(MDP_DIR / "episodic-mdp-2-2.txt") in out


@pytest.mark.parametrize("name", sorted(e.name for e in mdp_examples()))
def test_plan_by_example_name_reproduces_the_published_solution(capsys, name):
    code, out, err = run_cli(capsys, ["plan", "--mdp", name])
    assert code == 0 and err == ""
    want = (MDP_DIR / f"sol-{name}.txt").read_text()
    got_v = [float(x.split()[0]) for x in out.splitlines()]
    want_v = [float(x.split()[0]) for x in want.splitlines()]
    assert np.allclose(got_v, want_v, atol=1.5e-6)
    assert out == want  # values to 6 decimals and actions, exactly as published


def test_a_real_path_wins_over_an_example_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "episodic-mdp-2-2").write_text("x")
    assert resolve_mdp("episodic-mdp-2-2") == Path("episodic-mdp-2-2")
    assert resolve_mdp("episodic-mdp-2-2.txt") == MDP_DIR / "episodic-mdp-2-2.txt"
    assert resolve_mdp("nothing-here") == Path("nothing-here")


def test_package_data_is_declared_in_pyproject():
    text = (REPO / "pyproject.toml").read_text()
    for pattern in ("examples/cs747/mdp/*.txt", "examples/cs747/attt/states/*.txt", "examples/cs747/attt/policies/*.txt"):
        assert pattern in text


def test_no_code_or_test_reads_the_shared_folder():
    """A user's clone has no course folder beside it: the data comes from the package (mdpviz/examples)."""
    word = "sha" + "red"  # spelled in two parts so this test does not find itself
    patterns = [f'"{word}"', f"'{word}'", f"{word}/data", f"../{word}"]
    offenders = [str(p.relative_to(REPO)) for folder in ("mdpviz", "tests") for p in (REPO / folder).rglob("*.py")
                 if any(pat in p.read_text(encoding="utf-8") for pat in patterns)]
    assert offenders == []


# ---------------------------------------------------------------------------------- start or explain
def test_no_display_explains_instead_of_a_qt_abort():
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "WAYLAND_DISPLAY")}
    env["DISPLAY"] = ""
    r = subprocess.run([sys.executable, "-c", "import sys; from mdpviz.cli import main; sys.exit(main([]))"],
                       capture_output=True, text=True, cwd=REPO, env=env, timeout=120)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert r.stdout == ""
    paragraph = r.stderr.strip()
    assert len(paragraph.splitlines()) == 1
    assert "no display" in paragraph and "subcommand" in paragraph and "xvfb" in paragraph.lower()
    assert "Aborted" not in r.stderr and "qt.qpa" not in r.stderr


def test_missing_xcb_libraries_are_named_with_their_debian_packages():
    from mdpviz.startup_check import XCB_LIBRARIES, explain_missing_display

    libs = XCB_LIBRARIES[:1] + (("libxcb-not-installed-here.so.4", "libxcb-not-installed-here4"),)
    msg = explain_missing_display({"DISPLAY": ":0"}, platform="linux", libraries=libs)
    assert msg is not None and "libxcb-not-installed-here.so.4" in msg
    assert "apt-get install libxcb-not-installed-here4" in msg and "subcommand" in msg
    # what Qt's xcb plugin links against, with the packages the issue found missing on minimal Debian
    pkgs = dict(XCB_LIBRARIES)
    assert pkgs["libxcb-icccm.so.4"] == "libxcb-icccm4" and pkgs["libxcb-keysyms.so.1"] == "libxcb-keysyms1"
    assert pkgs["libxcb-cursor.so.0"] == "libxcb-cursor0" and pkgs["libxkbcommon-x11.so.0"] == "libxkbcommon-x11-0"


def test_other_platforms_and_explicit_qt_platforms_are_not_second_guessed():
    from mdpviz.startup_check import explain_missing_display

    assert explain_missing_display({}, platform="darwin") is None
    assert explain_missing_display({}, platform="win32") is None
    assert explain_missing_display({"QT_QPA_PLATFORM": "offscreen"}, platform="linux") is None
    assert explain_missing_display({"WAYLAND_DISPLAY": "wayland-0"}, platform="linux") is None
    assert "no display" in explain_missing_display({"DISPLAY": ""}, platform="linux")


# ---------------------------------------------------------------------------------- small items
def test_version(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    from mdpviz import __version__

    assert capsys.readouterr().out.strip() == f"mdpviz {__version__}"


def test_no_literal_double_percent_in_any_help(capsys):
    parser = build_parser()
    texts = [parser.format_help()]
    stack = [parser]
    while stack:
        p = stack.pop()
        for action in p._actions:
            if hasattr(action, "choices") and isinstance(action.choices, dict):
                for sub in action.choices.values():
                    texts.append(sub.format_help())
                    stack.append(sub)
    assert len(texts) > 10
    assert not any("%%" in t for t in texts)
    assert any("95%" in t for t in texts)


def test_match_with_a_missing_policy_file_says_no_such_file(capsys):
    line = one_line_error(*run_cli(capsys, ["match", "--x", "missing.json", "--games", "10"]))
    assert "missing.json" in line and "no such file" in line


def test_a_utf8_bom_is_accepted_in_every_file_type(tmp_path, capsys):
    # MDP file
    mdp = tmp_path / "m.txt"
    mdp.write_text(BOM + (MDP_DIR / "episodic-mdp-2-2.txt").read_text(), encoding="utf-8")
    code, out, err = run_cli(capsys, ["plan", "--mdp", str(mdp)])
    assert code == 0 and out == (MDP_DIR / "sol-episodic-mdp-2-2.txt").read_text()
    # anti-tic-tac-toe states and policy files, and a value-policy file
    states = tmp_path / "s2.txt"
    states.write_text(BOM + (ATTT_DIR / "states" / "states_file_p2.txt").read_text(), encoding="utf-8")
    pol = tmp_path / "p1.txt"
    pol.write_text(BOM + (ATTT_DIR / "policies" / "p1_policy1.txt").read_text(), encoding="utf-8")
    code, enc, err = run_cli(capsys, ["attt", "encode", "--policy", str(pol), "--states", str(states)])
    assert code == 0 and enc.startswith("numStates"), err
    enc_file = tmp_path / "enc.txt"
    enc_file.write_text(enc)
    code, vp, err = run_cli(capsys, ["plan", "--mdp", str(enc_file)])
    assert code == 0, err
    vp_file = tmp_path / "vp.txt"
    vp_file.write_text(BOM + vp, encoding="utf-8")
    code, out, err = run_cli(capsys, ["attt", "decode", "--value-policy", str(vp_file), "--states", str(states),
                                      "--player-id", "2"])
    assert code == 0 and out.startswith("2\n"), err
    # a risk tic-tac-toe policy file (JSON)
    risk = tmp_path / "policy.json"
    risk.write_text(BOM + json.dumps({"X........": 4}), encoding="utf-8")
    code, out, err = run_cli(capsys, ["match", "--x", str(risk), "--games", "100", "--no-exact", "--seed", "1"])
    assert code == 0, err
    # a scenario file
    from mdpviz.models.kit.game.scenario import Scenario, load_scenario, save_scenario

    scn = tmp_path / "s.json"
    save_scenario(Scenario(game="snakes"), scn)
    scn.write_text(BOM + scn.read_text(), encoding="utf-8")
    assert load_scenario(scn).game == "snakes"


def test_probabilities_written_to_6_decimals_are_renormalised_with_one_note(tmp_path, capsys):
    p = tmp_path / "thirds.txt"
    p.write_text("numStates 2\nnumActions 1\nend 1\n" + "transition 0 0 0 1 0.333333\n" * 2
                 + "transition 0 0 1 1 0.333333\nmdptype episodic\ndiscount 0.5\n")
    code, out, err = run_cli(capsys, ["plan", "--mdp", str(p)])
    assert code == 0
    assert len(err.strip().splitlines()) == 1 and "note" in err and "rescaled" in err and str(p) in err
    # V = 1 + 0.5 (2/3) V  ->  V = 1.5 (exactly thirds after rescaling)
    assert out.splitlines()[0] == "1.500000 0"
    p.write_text(p.read_text().replace("0.333333", "0.3333"))  # off by 1e-4: still an error
    line = one_line_error(*run_cli(capsys, ["plan", "--mdp", str(p)]))
    assert "sum to 0.9999" in line and ":4:" in line


def test_ttt3d_train_checks_the_out_folder_before_training(tmp_path, capsys):
    if os.geteuid() == 0:  # root writes anywhere a permission allows nothing: use a folder no one can write
        out = "/proc/agent.npz"
    else:
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o555)
        out = str(ro / "agent.npz")
    line = one_line_error(*run_cli(capsys, ["ttt3d", "train", "--seed", "1", "--episodes", "100000", "--out", out]))
    assert "--out" in line and "cannot write" in line


def _agent_file(tmp_path) -> Path:
    from mdpviz.models.ttt3d import learning as rl

    p = tmp_path / "good.npz"
    rl.untrained_agent(rl.TrainSettings(approx="linear")).save(p)
    return p


@pytest.mark.parametrize("kind", ["truncated", "npy", "text", "empty", "object", "directory"])
def test_bad_agent_files_give_one_line_and_never_mention_pickles(tmp_path, capsys, kind):
    p = tmp_path / f"bad-{kind}.npz"
    if kind == "truncated":
        p.write_bytes(_agent_file(tmp_path).read_bytes()[:300])
    elif kind == "npy":
        np.save(tmp_path / "a.npy", np.zeros(3))
        p = tmp_path / "a.npy"
    elif kind == "text":
        p.write_text("this is not an agent\n")
    elif kind == "empty":
        p.write_bytes(b"")
    elif kind == "object":
        np.savez(p, meta=np.array([{"a": 1}], dtype=object))
    else:
        p.mkdir()
    line = one_line_error(*run_cli(capsys, ["ttt3d", "eval", "--agent", str(p), "--games", "10"]))
    assert str(p) in line and "pickle" not in line.lower()


# ---------------------------------------------------------------------------------- size cases
@pytest.mark.parametrize("argv", [
    ["snakes", "--layout", LAYOUT, "--compare", "--games", "1000000000"],
    ["ttt", "--games", "1000000000"],
    ["match", "--games", "1000000000"],
    ["checkers", "--games", "1000000000"],
    ["ttt3d", "eval", "--agent", "random", "--games", "1000000000"],
])
def test_a_billion_games_is_refused_at_once_with_the_limit_stated(argv):
    r = run_measured(argv)
    line = one_line_error(r["code"], r["out"], r["err"])
    assert "--games" in line and f"{chunked.MAX_GAMES:,}" in line
    assert r["peak"] < GIB


def test_a_typo_in_numstates_is_refused_before_allocating(tmp_path):
    p = tmp_path / "huge.txt"
    p.write_text("numStates 100000000\nnumActions 2\nend -1\ntransition 0 0 0 1 1\ntransition 0 1 0 1 1\n"
                 "mdptype continuing\ndiscount 0.9\n")
    r = run_measured(["plan", "--mdp", str(p)])
    line = one_line_error(r["code"], r["out"], r["err"])
    assert f"{p}:1:" in line and "state budget of 5,000,000" in line and "MDPVIZ_MAX_STATES" in line
    assert r["peak"] < GIB
    # the budget is the user's to raise
    r = run_measured(["plan", "--mdp", str(p)], env={"MDPVIZ_MAX_STATES": "10"})
    assert "state budget of 10" in r["err"]


def test_simulations_run_in_chunks_with_constant_memory(monkeypatch):
    from mdpviz.core import simulate as sim_mod
    from mdpviz.models.snakes import SnakesSettings
    from mdpviz.models.snakes.simulate import compare_strategies

    sizes = []
    real = sim_mod.simulate

    def spy(mdp, probs, *, episodes, **kw):
        sizes.append(episodes)
        return real(mdp, probs, episodes=episodes, **kw)

    monkeypatch.setattr("mdpviz.models.snakes.simulate.simulate", spy)
    monkeypatch.setattr(chunked, "CHUNK_GAMES", 1000)
    res = compare_strategies(SnakesSettings(layout=tuple(int(x) for x in LAYOUT.split(","))), games=5_000, seed=1,
                             names=("security",))
    assert max(sizes) <= 1000 and sum(sizes) == 5_000 + 13 * 500
    assert res[0].games.tolist() == [5_000] + [500] * 13 and res[0].turns_hist.sum() == 5_000


def test_a_million_games_stay_far_below_a_gibibyte():
    r = run_measured(["match", "--games", "1000000", "--no-exact", "--seed", "1"])
    assert r["code"] == 0 and "1,000,000 games" in r["out"]
    assert r["peak"] < GIB / 4  # measured about 95 MB, as for 1,000 games


def test_ctrl_c_stops_cleanly_and_says_the_partial_count(monkeypatch, capsys):
    from mdpviz.models.snakes import simulate as snakes_sim

    calls = {"n": 0}
    real = snakes_sim._play

    def interrupted_on_the_third_chunk(*a, **kw):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(*a, **kw)

    monkeypatch.setattr(snakes_sim, "_play", interrupted_on_the_third_chunk)
    code = main(["snakes", "--layout", LAYOUT, "--compare", "--games", "200000", "--seed", "1"])
    out, err = capsys.readouterr()
    assert code == 130 and out == ""
    assert len(err.strip().splitlines()) == 1
    done = 2 * chunked.CHUNK_GAMES
    assert f"interrupted after {done:,} of" in err and "games" in err


def test_progress_is_reported_per_chunk():
    seen = []
    played = chunked.run_chunks(150_000, lambda n: None, progress=lambda d, t, lab: seen.append((d, t)))
    assert played == 150_000 and seen[-1] == (150_000, 150_000) and len(seen) == 3
    stop = iter([False, True])
    assert chunked.run_chunks(150_000, lambda n: None, cancelled=lambda: next(stop)) == chunked.CHUNK_GAMES
