"""One grammar, one meaning per name (issue 35, item 21): one spelling of the discount with its old one
hidden, the planner's words meaning the registry's methods, --epsilon's meanings named apart, and argparse's
own errors in one line from every parser."""
from __future__ import annotations

import json

import pytest

from mdpviz.cli import main


def run(capsys, argv: list[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def help_of(capsys, argv: list[str]) -> str:
    with pytest.raises(SystemExit):
        main([*argv, "--help"])
    return capsys.readouterr().out


@pytest.mark.parametrize("argv", [
    ["solve", "--game", "gambler", "--set", "goal=10"],
    ["solve", "--game", "jack", "--set", "max_cars=3", "--set", "max_move=1"],
    ["solve", "--game", "ttt"],
    ["solve", "--game", "gridworld", "--grid", "book"],
    ["solve", "--game", "file", "--mdp", "continuing-mdp-2-2"],
])
def test_every_game_with_a_discount_takes_discount_and_the_old_gamma(capsys, argv):
    got = {}
    for spelling in (["--discount", "0.5"], ["--gamma", "0.5"], ["--set", "discount=0.5"]):
        code, out, err = run(capsys, [*argv, *spelling, "--json"])
        assert code == 0, err
        d = json.loads(out)
        assert d["discount"] == 0.5
        got[spelling[0]] = d["values"]
    assert got["--discount"] == got["--gamma"] == got["--set"]


def test_the_discount_is_refused_by_a_game_without_one(capsys):
    code, _, err = run(capsys, ["solve", "--game", "snakes", "--discount", "0.5"])
    assert code == 2 and "--discount applies to --game file" in err


@pytest.mark.parametrize("command", [["ttt"], ["checkers"], ["gridworld", "--grid", "book"], ["solve", "--game", "ttt"],
                                     ["learn", "--game", "ttt", "--method", "q", "--episodes", "1"]])
def test_help_shows_discount_and_hides_gamma(capsys, command):
    text = help_of(capsys, command)
    assert "--discount" in text and "--gamma" not in text


def test_the_games_own_commands_read_gamma_as_discount(capsys):
    a = run(capsys, ["ttt", "--gamma", "0.5", "--games", "0", "--json"])
    b = run(capsys, ["ttt", "--discount", "0.5", "--games", "0", "--json"])
    assert a[0] == b[0] == 0 and json.loads(a[1])["value"] == json.loads(b[1])["value"]
    assert json.loads(b[1])["discount"] == json.loads(b[1])["gamma"] == 0.5  # the old key kept beside the new
    code, _, err = run(capsys, ["checkers", "--discount", "1.5"])
    assert code == 2 and "--discount must be in [0, 1]" in err  # the message names the spelling typed


def test_plan_words_mean_the_registry_methods(capsys):
    outs = {}
    for name in ("vi", "vi-sync", "gs", "cs747-vi", "pi", "hpi"):
        code, out, err = run(capsys, ["plan", "--mdp", "continuing-mdp-10-5", "--algorithm", name, "--sweeps", "2"])
        assert code == 0, err
        outs[name] = out
    code, out, _ = run(capsys, ["solve", "--game", "file", "--mdp", "continuing-mdp-10-5", "--method", "vi",
                                "--sweeps", "2", "--json"])
    v_sync = [round(v, 6) for v in json.loads(out)["values"]]
    assert [float(line.split()[0]) for line in outs["vi"].splitlines()] == v_sync  # vi: synchronous, as in solve
    assert outs["vi"] == outs["vi-sync"] and outs["gs"] == outs["cs747-vi"] and outs["pi"] == outs["hpi"]
    assert outs["vi"] != outs["gs"]  # after 2 sweeps in-place and synchronous differ
    assert "cs747-vi: deprecated" in help_of(capsys, ["plan"])


def test_epsilon_meanings_have_their_own_names(capsys):
    base = ["solve", "--game", "gridworld", "--grid", "book", "--sequence", "aima", "--json"]
    new = run(capsys, [*base, "--error-bound", "0.01"])
    old = run(capsys, [*base, "--epsilon", "0.01"])
    assert new[0] == old[0] == 0 and json.loads(new[1])["values"] == json.loads(old[1])["values"]
    mpi = ["solve", "--game", "gridworld", "--grid", "book", "--method", "mpi", "--json"]
    assert json.loads(run(capsys, [*mpi, "--tol", "0.01"])[1]) == json.loads(run(capsys, [*mpi, "--epsilon", "0.01"])[1])
    code, _, err = run(capsys, ["solve", "--game", "gridworld", "--grid", "book", "--epsilon", "0.01"])
    assert code == 2 and "--epsilon applies to --sequence aima" in err
    code, _, err = run(capsys, ["solve", "--game", "gridworld", "--grid", "book", "--error-bound", "0.01"])
    assert code == 2 and "--error-bound applies to --sequence aima only" in err
    text = help_of(capsys, ["solve", "--game", "ttt"])
    assert "--error-bound" in text and "--epsilon" not in text
    assert "--switch-tol" in help_of(capsys, ["sensitivity", "--game", "ttt", "--param", "x", "--from", "0", "--to", "1"])


def test_learn_seed_help_says_what_it_seeds(capsys):
    text = " ".join(help_of(capsys, ["learn", "--game", "ttt", "--method", "q", "--episodes", "1"]).split())
    assert "--seed SEED seed of the episodes" in text


@pytest.mark.parametrize("argv", [
    ["solve", "--game", "ttt", "--tol", "x"],
    ["learn", "--game", "ttt", "--method", "nope", "--episodes", "1"],
    ["plan", "--mdp", "continuing-mdp-2-2", "--algorithm", "nope"],
    ["attt", "iterate", "--max-rounds", "x"],
    ["ttt3d", "eval", "--games", "x", "--agent", "a.npz"],
    ["bench", "core", "--sizes", "x"],
    ["bench", "learn", "--updates", "0"],
    ["gridworld", "--grid", "book", "--bogus"],
    ["nosuchcommand"],
])
def test_every_argparse_error_is_one_line(capsys, argv):
    code, out, err = run(capsys, argv)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith("mdpviz: error: "), err
    command = argv[0] if argv[0] != "nosuchcommand" else ""
    assert not command or err.startswith(f"mdpviz: error: {command}"), err


def test_bench_options_all_have_help_without_markup(capsys):
    from mdpviz.commands import bench

    for name in bench.BENCHES:
        with pytest.raises(SystemExit):
            bench.run_bench(name, ["--help"])
        text = capsys.readouterr().out
        assert "`" not in text, name
        assert "  --seed SEED\n" not in text and not text.rstrip().endswith("--seed SEED"), name
