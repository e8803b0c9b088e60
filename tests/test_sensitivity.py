"""``mdpviz sensitivity`` (issue 28, item 2): switch points against closed forms and brute force, the
policy of each interval, the phase diagram's regions, one-line errors."""
from __future__ import annotations

import json

import numpy as np
import pytest

from mdpviz.cli import main
from mdpviz.models.kit.game.game_model import build_game
from mdpviz.solvers import solve


def run(capsys, *argv):
    status = main(["sensitivity", *argv])
    out = capsys.readouterr()
    return status, out.out, out.err


def sens_json(capsys, *argv) -> dict:
    status, out, err = run(capsys, *argv, "--json")
    assert status == 0, err
    return json.loads(out)


@pytest.fixture
def corridor(tmp_path):
    """CS188 convention, no noise: from S, west is the +1 exit one move away (worth gamma), east the +10
    exit two moves away (worth 10 gamma^2): east pays from gamma = 0.1 on."""
    p = tmp_path / "corridor.txt"
    p.write_text("1 S . 10\n")
    return str(p)


def test_a_closed_form_switch_point(capsys, corridor):
    d = sens_json(capsys, "--game", "gridworld", "--grid", corridor, "--noise", "0", "--param", "discount",
                  "--from", "0.01", "--to", "0.99")
    start = d["states"].index(d["start_label"])
    assert start == d["start"]
    switches_at_start = [iv["to"] for iv, nxt in zip(d["intervals"], d["intervals"][1:])
                         if iv["optimal_actions"][start] != nxt["optimal_actions"][start]]
    assert switches_at_start == [pytest.approx(0.1, abs=1e-6)]
    assert d["intervals"][0]["optimal_actions"][start] == ["west"] and d["intervals"][-1]["optimal_actions"][start] == ["east"]
    assert d["switch_points"] == sorted(d["switch_points"])
    for v in d["start_value_curve"]:  # V*(start) = max(gamma, 10 gamma^2)
        assert v["start_value"] == pytest.approx(max(v["param_value"], 10 * v["param_value"] ** 2), abs=1e-9)


def test_cs188_bridge_noise_switch_point_by_brute_force(capsys):
    """CS188 q2's bridge: crossing pays only for little noise. The located point separates two solves."""
    d = sens_json(capsys, "--game", "gridworld", "--grid", "bridge", "--param", "noise", "--from", "0", "--to", "0.5")
    start = d["states"].index(d["start_label"])
    assert start == d["start"]
    first = d["switch_points"][0]
    assert d["intervals"][0]["optimal_actions"][start] == ["east"] and d["intervals"][1]["optimal_actions"][start] == ["west"]

    def start_actions(noise):
        from mdpviz.models.gridworld import GridSettings, load_map

        from mdpviz.models.kit.teaching.sensitivity import optimal_rows

        g = build_game("gridworld", GridSettings(grid=load_map("bridge"), noise=noise))
        opt = optimal_rows(g)[0]
        s = g.start_state()
        rows = range(int(g.mdp.state_ptr[s]), int(g.mdp.state_ptr[s + 1]))
        return [g.action_label(s, int(g.mdp.row_action[r])) for r in rows if opt[r]]

    assert start_actions(first - 2e-6) == ["east"] and start_actions(first + 2e-6) == ["west"]
    # a dense scan finds the start's action changing only there
    xs = np.linspace(0, 0.1, 201)
    acts = [start_actions(x) for x in xs]
    flips = [0.5 * (xs[i] + xs[i + 1]) for i in range(len(xs) - 1) if acts[i] != acts[i + 1]]
    assert len(flips) == 1 and abs(flips[0] - first) <= 0.5 * (xs[1] - xs[0])


def test_each_interval_holds_one_policy_that_two_separate_solves_confirm(capsys, corridor):
    d = sens_json(capsys, "--game", "gridworld", "--grid", "book", "--param", "living_reward", "--from", "-2",
                  "--to", "0.5", "--steps", "51")
    from mdpviz.models.gridworld import GridSettings, load_map
    from mdpviz.models.kit.teaching.sensitivity import optimal_rows

    for iv in d["intervals"]:
        if iv["to"] - iv["from"] < 1e-4:
            continue
        for x in (iv["from"] + 0.25 * (iv["to"] - iv["from"]), iv["from"] + 0.75 * (iv["to"] - iv["from"])):
            g = build_game("gridworld", GridSettings(grid=load_map("book"), living_reward=x))
            opt = optimal_rows(g)[0]
            m = g.mdp
            got = [[g.action_label(s, int(m.row_action[r])) for r in range(int(m.state_ptr[s]), int(m.state_ptr[s + 1]))
                    if opt[r]] for s in range(m.n_states)]
            assert got == iv["optimal_actions"], x


def test_phase_diagram_regions_are_the_likely_paths(capsys, corridor):
    d = sens_json(capsys, "--game", "gridworld", "--grid", corridor, "--noise", "0", "--param", "discount",
                  "--from", "0.02", "--to", "0.98", "--param2", "living_reward", "--from2", "-0.5", "--to2", "0",
                  "--steps", "11")
    ph = d["phase"]
    assert len(ph["x"]) == len(ph["y"]) == 11 and len(ph["region"]) == 11
    regions = ph["regions"]

    def path(i, j):
        return regions[ph["region"][j][i]]

    assert path(0, 10)["(row 1, col 2)"] == ["west"]  # short-sighted, no living cost: the close exit
    assert path(10, 10)["(row 1, col 2)"] == ["east"]  # far-sighted: the far exit, through (row 1, col 3)
    assert "(row 1, col 3)" in path(10, 10)
    # each cell's region is what a separate solve of that cell gives
    from mdpviz.models.gridworld import GridSettings, load_map
    from mdpviz.models.kit.teaching.sensitivity import likely_path

    for j, i in ((3, 4), (8, 2)):
        g = build_game("gridworld", GridSettings(grid=load_map(corridor), noise=0.0, discount=ph["x"][i],
                                                 living_reward=ph["y"][j]))
        pol = solve(g.mdp, "pi").policy
        names = g.state_labels()
        assert list(path(i, j)) == [names[s] for s in likely_path(g, pol) if not g.mdp.terminal[s]]


@pytest.mark.parametrize("argv, words", [
    (["--game", "gridworld", "--param", "nois", "--from", "0", "--to", "1"], "numeric fields"),
    (["--game", "gridworld", "--param", "convention", "--from", "0", "--to", "1"], "not a number"),
    (["--game", "gridworld", "--param", "noise", "--from", "0.5", "--to", "0.1"], "lower to a higher"),
    (["--game", "gridworld", "--param", "noise", "--from", "0", "--to", "2"], "noise"),
    (["--game", "gridworld", "--param", "noise", "--from", "0", "--to", "0.5", "--param2", "discount"], "--from2"),
    (["--game", "ttt3d", "--param", "discount", "--from", "0", "--to", "1"], "no table"),
    (["--game", "gridworld", "--param", "noise", "--from", "nan", "--to", "1"], "finite"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, words):
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == "" and words in err and "Traceback" not in err
