"""``mdpviz solve --game KEY``: every game of the registry headless, the shared option grammar
(model options as each game's own command takes them, ``--set FIELD=VALUE``), ``--sweeps K`` with Q
from the printed values (CS188's own numbers), ``--policy``, and one-line errors with exit status 2."""
from __future__ import annotations

import json

import numpy as np
import pytest

from mdpviz.cli import main
from mdpviz.models.kit.game import registry
from tests import cs188_reference as cs188

MAX_STATES = 60_000
"""Games whose default model is larger are left to their own tests (a quick suite)."""


def run(capsys, argv):
    status = main(argv)
    out = capsys.readouterr()
    return status, out.out, out.err


def solve_json(capsys, *argv):
    status, out, err = run(capsys, ["solve", *argv, "--json"])
    assert status == 0, err
    return json.loads(out)


def table_keys() -> list[str]:
    return [k for k in registry.keys() if not registry.get(k).no_table]


@pytest.mark.parametrize("key", table_keys())
def test_every_game_solves_headless_with_its_names_in_the_models_order(capsys, key):
    from mdpviz.models.kit.game.game_model import build_game
    from mdpviz.solvers import solve

    game = build_game(key)
    if game.mdp.n_states > MAX_STATES:
        pytest.skip(f"{key}: {game.mdp.n_states} states")
    d = solve_json(capsys, "--game", key)
    mdp = game.mdp
    assert d["game"] == key and len(d["states"]) == len(d["values"]) == len(d["policy"]) == len(d["q"]) == mdp.n_states
    assert d["states"] == game.state_labels()
    method, opts = game.solve_defaults()
    want = solve(mdp, method, **opts)
    np.testing.assert_allclose(d["values"], want.values, rtol=0, atol=1e-9)
    for s in range(mdp.n_states):  # q: every legal action of a live state, by its label, from the printed values
        if mdp.terminal[s]:
            assert d["q"][s] == {} and d["policy"][s] is None
            continue
        legal = [game.action_label(s, a) for a in mdp.actions_of(s)]
        assert sorted(d["q"][s]) == sorted(legal) and d["policy"][s] in legal
    q = mdp.q_values(np.asarray(d["values"]))
    s = d["start"]
    got = [d["q"][s][game.action_label(s, a)] for a in mdp.actions_of(s)]
    np.testing.assert_allclose(got, q[mdp.state_ptr[s]:mdp.state_ptr[s + 1]], rtol=0, atol=1e-12)


def test_ttt3d_has_no_table_and_says_so(capsys):
    status, out, err = run(capsys, ["solve", "--game", "ttt3d"])
    assert status == 2 and out == "" and len(err.strip().splitlines()) == 1 and "no table" in err


# ---------------------------------------------------------------------------------- the grammar
def test_gridworld_options_are_those_of_its_own_command(capsys):
    status, out, _ = run(capsys, ["gridworld", "--grid", "bridge", "--noise", "0.1", "--living-reward", "-0.5",
                                  "--discount", "0.8", "--json"])
    own = json.loads(out)
    d = solve_json(capsys, "--game", "gridworld", "--grid", "bridge", "--noise", "0.1", "--living-reward", "-0.5",
                   "--discount", "0.8", "--tol", "1e-12")
    got = dict(zip(d["states"], d["values"]))
    for r, row in enumerate(own["value_grid"]):
        for c, v in enumerate(row):
            if v is not None:
                assert got[f"(row {r + 1}, col {c + 1})"] == pytest.approx(v, abs=1e-9)


def test_set_reaches_the_same_fields_as_the_options(capsys):
    a = solve_json(capsys, "--game", "gridworld", "--noise", "0.1", "--discount", "0.5")
    b = solve_json(capsys, "--game", "gridworld", "--set", "noise=0.1", "--set", "discount=0.5")
    c = solve_json(capsys, "--game", "gridworld")
    assert a["values"] == b["values"] and a["values"] != c["values"]
    d = solve_json(capsys, "--game", "gridworld", "--set", "convention=aima")  # a bare word is a string
    assert d["values"] != c["values"]


def test_snakes_options_are_those_of_its_own_command(capsys):
    layout = "0,0,0,1,0,0,2,0,3,0,0,4,0,0,0"
    status, out, _ = run(capsys, ["snakes", "--layout", layout, "--circle", "--json"])
    own = json.loads(out)
    d = solve_json(capsys, "--game", "snakes", "--layout", layout, "--circle", "--tol", "1e-12")
    np.testing.assert_allclose(d["values"][:14], own["expec"], rtol=0, atol=1e-6)


def test_course_file_as_plan_takes_it(capsys):
    status, out, _ = run(capsys, ["plan", "--mdp", "continuing-mdp-10-5"])
    own = [float(line.split()[0]) for line in out.splitlines()]
    d = solve_json(capsys, "--game", "file", "--mdp", "continuing-mdp-10-5", "--method", "pi")
    np.testing.assert_allclose(d["values"], own, rtol=0, atol=1e-6)


def test_two_games_that_share_a_flag_each_read_it_their_way(capsys):
    ttt = solve_json(capsys, "--game", "ttt", "--agent", "x", "--gamma", "0.5", "--method", "pi")
    assert ttt["discount"] == 0.5 and ttt["states"][0].count("X") == 0  # the agent X moves first... or waits
    ck = solve_json(capsys, "--game", "checkers", "--size", "4", "--ply-limit", "6", "--agent", "white",
                    "--gamma", "0.9", "--method", "pi")
    assert ck["discount"] == 0.9


# ---------------------------------------------------------------------------------- --sweeps, CS188's tables
@pytest.mark.parametrize("case", sorted(cs188.Q4))
def test_sweeps_reproduce_cs188_q4_values_and_q_from_the_printed_values(capsys, tmp_path, case):
    """CS188 q4 (AsynchronousValueIterationTest, test_cases/q4/*.test): V after iteration k and, at the
    last k, Q of every action from V_k, through the command line."""
    from tests.test_course_algorithms import cs188_states, cs188_world, printed_cells, tokens

    t = cs188.GRIDS[case]
    grid = tmp_path / f"{case}.txt"
    grid.write_text(t["grid"])
    world = cs188_world(case)
    order = ",".join(str(s) for s in cs188_states(world))
    base = ["--game", "gridworld", "--grid", str(grid), "--noise", str(t["noise"]), "--living-reward",
            str(t["livingReward"]), "--discount", str(t["discount"]), "--method", "async-vi", "--order", order,
            "--tol", "1e-300"]
    cells = printed_cells(world)
    expected = cs188.Q4[case]
    for k in (1, 2, 5, 9):
        d = solve_json(capsys, *base, "--sweeps", str(k))
        assert d["sweeps"] == k or (d["converged"] and d["sweeps"] < k)  # a converged run stops there
        got = [d["values"][world.geometry.state[r, c]] for r, c in cells]
        np.testing.assert_allclose(got, [float(x) for x in tokens(expected["values"][k])], atol=cs188.TOLERANCE, rtol=0)
    last = max(expected["values"])
    d = solve_json(capsys, *base, "--sweeps", str(last))
    for action, printed in expected["q"].items():
        for (r, c), want in zip(cells, tokens(printed), strict=True):
            q = d["q"][int(world.geometry.state[r, c])]
            if want == "illegal":
                assert action not in q
            else:
                assert q[action] == pytest.approx(float(want), abs=cs188.TOLERANCE)


def test_gridworld_and_plan_take_sweeps(capsys):
    status, out, _ = run(capsys, ["gridworld", "--grid", "book", "--sweeps", "2", "--json"])
    d = json.loads(out)
    assert status == 0 and d["sweeps"] == 2
    assert d["value_grid"][0][2] == pytest.approx(0.72)  # V_2 next to the +1 exit: 0.9 x 0.8 x 1
    status, out, _ = run(capsys, ["plan", "--mdp", "continuing-mdp-2-2", "--algorithm", "vi-sync", "--sweeps", "1"])
    from mdpviz.core.cs747 import load_cs747
    from mdpviz.core.examples import resolve_mdp

    mdp = load_cs747(resolve_mdp("continuing-mdp-2-2"))
    v1 = mdp.q_values(np.zeros(mdp.n_states))
    best = [max(v1[mdp.state_ptr[s]:mdp.state_ptr[s + 1]]) for s in range(mdp.n_states)]
    assert [float(line.split()[0]) for line in out.splitlines()] == pytest.approx(best, abs=1e-6)


# ---------------------------------------------------------------------------------- --policy
def test_policy_random_and_a_policy_file(capsys, tmp_path):
    from mdpviz.models.kit.game.game_model import build_game
    from mdpviz.solvers import evaluate_stochastic_policy, solve
    from mdpviz.solvers.evaluation import uniform_policy

    game = build_game("gridworld")
    d = solve_json(capsys, "--game", "gridworld", "--policy", "random", "--tol", "1e-13")
    assert d["method"] == "evaluate"
    want = evaluate_stochastic_policy(game.mdp, uniform_policy(game.mdp))
    np.testing.assert_allclose(d["values"], want, atol=1e-10, rtol=0)
    opt = solve_json(capsys, "--game", "gridworld", "--method", "pi")
    f = tmp_path / "policy.txt"
    f.write_text("\n".join(a if a is not None else "-" for a in opt["policy"]) + "\n")
    d = solve_json(capsys, "--game", "gridworld", "--policy", str(f), "--tol", "1e-13")
    np.testing.assert_allclose(d["values"], solve(game.mdp, "pi").values, atol=1e-10, rtol=0)
    d = solve_json(capsys, "--game", "gridworld", "--policy", "optimal", "--tol", "1e-13")
    np.testing.assert_allclose(d["values"], solve(game.mdp, "pi").values, atol=1e-10, rtol=0)


def test_history_has_one_entry_per_step(capsys):
    d = solve_json(capsys, "--game", "gridworld", "--sweeps", "4", "--history")
    assert [h["sweep"] for h in d["history"]] == [1, 2, 3, 4] and d["history"][-1]["values"] == d["values"]
    d = solve_json(capsys, "--game", "gridworld", "--method", "async-vi", "--sweeps", "3", "--history")
    assert [h["updated"] for h in d["history"]] == [[0], [1], [2]]


# ---------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("argv, words", [
    (["--game", "nope"], "unknown game"),
    (["--game", "snakes", "--noise", "0.1"], "--noise applies to --game gridworld only"),
    (["--game", "gridworld", "--set", "noise=2"], "noise"),
    (["--game", "gridworld", "--set", "nois=0.1"], "unknown field"),
    (["--game", "gridworld", "--set", "noise"], "FIELD=VALUE"),
    (["--game", "gridworld", "--method", "prioritized", "--theta", "0"], "--theta"),
    (["--game", "gridworld", "--method", "nope"], "--method"),
    (["--game", "gridworld", "--theta", "1e-5"], "prioritized only"),
    (["--game", "gridworld", "--method", "async-vi", "--order", "0,99"], "out of range"),
    (["--game", "gridworld", "--policy", "/dev/zero"], "--policy"),
    (["--game", "gridworld", "--policy", "/no/such/file"], "--policy"),
    (["--game", "risk_ttt", "--size", "4"], "risk"),
    (["--game", "gridworld", "--history"], "--json"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, words):
    status, out, err = run(capsys, ["solve", *argv])
    assert status == 2 and out == ""
    assert err.strip().splitlines()[-1].startswith("mdpviz: error:") and words in err and "Traceback" not in err


def test_a_policy_file_that_does_not_fit_names_its_line(capsys, tmp_path):
    opt = solve_json(capsys, "--game", "gridworld", "--method", "pi")
    lines = [a if a is not None else "-" for a in opt["policy"]]
    f = tmp_path / "policy.txt"
    f.write_text("\n".join(lines[:3] + ["jump"] + lines[4:]) + "\n")
    status, _, err = run(capsys, ["solve", "--game", "gridworld", "--policy", str(f)])
    assert status == 2 and "line 4" in err and "jump" in err
    f.write_text("\n".join(lines[:3] + ["north"] + lines[4:]) + "\n")  # an exit cell has only "exit"
    status, _, err = run(capsys, ["solve", "--game", "gridworld", "--policy", str(f)])
    assert status == 2 and "line 4" in err and "(exit)" in err
    f.write_text("north\n" * 5)
    status, _, err = run(capsys, ["solve", "--game", "gridworld", "--policy", str(f)])
    assert status == 2 and "5 actions for 12 states" in err
