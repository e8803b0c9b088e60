"""Models out to the model checkers (issue 29): DRN and PRISM explicit export, DRN import, and Storm's
values checked against mdpviz's on the same exported files (stormpy; those tests skip without it)."""
from __future__ import annotations

import dataclasses
import functools
from pathlib import Path

import numpy as np
import pytest

from mdpviz.core import modelcheck as mc
from mdpviz.core.cs747 import MDPFileError, load_cs747
from mdpviz.core.examples import mdp_examples
from mdpviz.models.kit.game import registry
from mdpviz.core.mdp import TabularMDP
from mdpviz.solvers import solve

TOL = 1e-6
"""How close Storm's values and the round trip's must be to mdpviz's (the issue's bound)."""

QUICK_ROWS = 200_000
"""Largest model (rows) a round trip runs on here; every registered game with a table is below it."""
ROUND_TRIP_TRANSITIONS = 600_000
"""Largest model (transitions) read back by the DRN round trip at its defaults: the reader parses one line per
transition in Python (Jack's rental at its defaults, 1,861,461 transitions: 6 s idle, 23 s on a busy 2-core
machine). A game above it is read back at its :data:`SMALLER` settings (Storm still checks its defaults)."""
EXACT_MAX_TRANSITIONS = 50_000
"""Undiscounted models up to this many transitions are checked in Storm's exact (rational) arithmetic; larger ones
(the 1000-state random walk, 190,100 transitions, and the mountain car's grid: minutes in rationals) in its sound
floating-point value iteration to 1e-10."""
STORM_SMALLER = {"mountaincar": {"positions": 18, "velocities": 11}}
"""Settings Storm checks a game at instead of its defaults: the mountain car's -1 per step is a negative reward,
which Storm's floating-point total-reward computation refuses, and its exact arithmetic takes minutes on the
default grid; a coarser grid of the same rules is checked exactly."""
STORM_DISCOUNT = 0.9
"""The discount Storm checks a game at when its own is 1 and Storm's semantics cannot give its values there (some
policy never ends and rewards are negative: the short corridor's always-left policy stays at S forever, -1 a
step; :func:`mdpviz.core.modelcheck.model_property` writes that note): the same rules, discounted."""
SMALLER = {"jack": {"max_cars": 12, "max_move": 4}}
"""Settings that shrink a game below :data:`ROUND_TRIP_TRANSITIONS` with the same rules (Jack: 213,109
transitions, the same Poisson rentals and returns, move cost and discount)."""


def optimal_sets(mdp: TabularMDP, values: np.ndarray, tol: float = 1e-7) -> list[frozenset[str]]:
    """Per state, the labels of every action whose Q is within ``tol`` of the best (terminal: empty)."""
    q = mdp.q_values(values)
    sense = np.asarray(mdp.sense)
    names = mc.action_names(mdp)
    out = []
    for s in range(mdp.n_states):
        lo, hi = int(mdp.state_ptr[s]), int(mdp.state_ptr[s + 1])
        if mdp.terminal[s] or lo == hi:
            out.append(frozenset())
            continue
        qs = q[lo:hi] * sense[s]
        best = qs.max()
        out.append(frozenset(names[int(mdp.row_action[r])] for r in range(lo, hi) if qs[r - lo] >= best - tol))
    return out


@functools.lru_cache(maxsize=1)
def table_models() -> tuple[tuple[str, TabularMDP | None, str], ...]:
    """(key, model, why it is skipped) for every registered game, with its default settings."""
    out = []
    for key in registry.keys():
        spec = registry.get(key)
        if spec.no_table:
            out.append((key, None, f"{key} has no table ({spec.no_table})"))
            continue
        mdp = spec.compile(spec.default_settings())
        if mdp is None:
            out.append((key, None, f"{key} compiles no table"))
        elif mdp.is_two_player:
            out.append((key, None, f"{key} is a two-player game (out of scope: PRISM-games)"))
        elif mdp.n_rows > QUICK_ROWS:
            out.append((key, None, f"{key} has {mdp.n_rows:,} rows, too many for a quick round trip"))
        else:
            out.append((key, mdp, ""))
    return tuple(out)


@pytest.mark.parametrize("key", registry.keys())
def test_drn_round_trip_every_game(key):
    """Export to DRN then import: the same model (states, terminals, discount, objective, labels), the
    same values and the same optimal actions in every state."""
    _, mdp, why = next(m for m in table_models() if m[0] == key)
    if mdp is None:
        pytest.skip(why)
    if mdp.n_transitions > ROUND_TRIP_TRANSITIONS and key in SMALLER:
        spec = registry.get(key)
        mdp = spec.compile(dataclasses.replace(spec.default_settings(), **SMALLER[key]).validate())
        assert mdp.n_transitions <= ROUND_TRIP_TRANSITIONS
    text = mc.format_drn(mdp, start=1 % mdp.n_states, title=key)
    back = mc.parse_drn(text, f"{key}.drn")
    m2 = back.mdp
    assert back.init == 1 % mdp.n_states
    assert m2.n_states == mdp.n_states
    assert np.array_equal(m2.terminal, mdp.terminal)
    assert (m2.discount, m2.objective) == (mdp.discount, mdp.objective)
    if mdp.state_labels is not None:
        assert m2.state_labels == tuple(" ".join(s.split()) for s in mdp.state_labels)
    a = solve(mdp, "pi")
    b = solve(m2, "pi")
    assert np.max(np.abs(a.values - b.values)) < TOL
    assert optimal_sets(mdp, a.values) == optimal_sets(m2, b.values)


def test_two_player_refused_in_one_line():
    spec = registry.get("risk_ttt")
    mdp = spec.compile(spec.default_settings())
    assert mdp.is_two_player
    for fmt in mc.FORMATS:
        with pytest.raises(ValueError) as e:
            mc.export_texts(mdp, "x.drn", fmt)
        assert str(e.value) == mc.TWO_PLAYER and "\n" not in str(e.value)


def random_mdp(seed: int, *, n: int = 25, k: int = 3, discount: float = 0.95, objective: str = "max",
               end: float = 0.0, signs: str = "mixed") -> TabularMDP:
    """A random MDP: 1-4 successors per row, some actions missing, the last two states terminal; with
    ``end`` > 0 every row also ends with that probability (every policy ends)."""
    rng = np.random.default_rng(seed)
    src, act, dst, prob, rew = [], [], [], [], []
    for s in range(n - 2):
        acts = rng.choice(k, size=int(rng.integers(1, k + 1)), replace=False)
        for a in acts:
            m = int(rng.integers(1, 5))
            d = rng.choice(n, size=m, replace=False)
            p = rng.dirichlet(np.ones(m)) * (1 - end)
            if end:
                d, p = np.r_[d, n - 1], np.r_[p, end]
            r = rng.normal(size=d.size) if signs == "mixed" else rng.uniform(0.1, 2.0, size=d.size)
            src += [s] * d.size
            act += [int(a)] * d.size
            dst += d.tolist()
            prob += p.tolist()
            rew += r.tolist()
    return TabularMDP.from_transitions(n, k, src, act, dst, prob, rew, discount=discount, terminal=[n - 2, n - 1],
                                       objective=objective, action_labels=[f"move {a}" for a in range(k)])


def test_round_trip_random_mdps_and_labels():
    for seed in range(5):
        mdp = random_mdp(seed, discount=0.9)
        back = mc.parse_drn(mc.format_drn(mdp), "r.drn").mdp
        assert back.action_labels is not None and set(back.action_labels) <= {"move_0", "move_1", "move_2"}
        a, b = solve(mdp, "pi"), solve(back, "pi")
        assert np.max(np.abs(a.values - b.values)) < TOL
        assert optimal_sets(mdp, a.values) == optimal_sets(back, b.values)


def read_prism(files: dict[str, str], discount: float, objective: str) -> TabularMDP:
    """PRISM's explicit files read back (the test's own small reader: .tra, .lab's ``done``, .trew)."""
    tra = files[".tra"].splitlines()
    n, n_choices, n_trans = map(int, tra[0].split())
    assert len(tra) - 1 == n_trans
    lab = files[".lab"].splitlines()
    assert lab[0] == '0="init" 1="deadlock" 2="done"'
    done = [int(line.split(":")[0]) for line in lab[1:] if "2" in line.split(":")[1].split()]
    rew = {}
    for line in files[".trew"].splitlines()[1:]:
        s, c, d, r = line.split()
        rew[(int(s), int(c), int(d))] = float(r)
    names: dict[str, int] = {}
    src, act, dst, prob, rw = [], [], [], [], []
    choices = set()
    for line in tra[1:]:
        f = line.split()
        s, c, d, p = int(f[0]), int(f[1]), int(f[2]), float(f[3])
        choices.add((s, c))
        if s in done:
            continue
        src.append(s)
        act.append(names.setdefault(f[4], len(names)))
        dst.append(d)
        prob.append(p)
        rw.append(rew.get((s, c, d), 0.0))
    assert len(choices) == n_choices
    return TabularMDP.from_transitions(n, max(len(names), 1), src, act, dst, prob, rw, discount=discount,
                                       terminal=done, objective=objective)


@pytest.mark.parametrize("key", ["snakes", "gridworld", "file", "gym"])
def test_prism_explicit_files_hold_the_model(key):
    spec = registry.get(key)
    mdp = spec.compile(spec.default_settings())
    files = mc.format_prism(mdp, start=0)
    assert set(files) == set(mc.PRISM_SUFFIXES)
    assert files[".sta"].splitlines()[:2] == ["(s)", "0:(0)"]
    assert "0: 0" in files[".lab"].splitlines()[1]
    back = read_prism(files, mdp.discount, mdp.objective)
    a, b = solve(mdp, "pi"), solve(back, "pi")
    assert np.max(np.abs(a.values - b.values)) < TOL


def test_write_model_files_and_props(tmp_path):
    spec = registry.get("gridworld")
    mdp = spec.compile(spec.default_settings())
    written = mc.write_model(mdp, tmp_path / "grid.drn", "drn")
    assert written == [tmp_path / "grid.drn", tmp_path / "grid.props"]
    props = (tmp_path / "grid.props").read_text().splitlines()
    first = next(line for line in props if not line.startswith("//"))
    assert first == 'R{"reward"}max=? [Cdiscount=0.9]'
    written = mc.write_model(mdp, tmp_path / "grid.tra", "prism")
    assert [p.suffix for p in written] == [".tra", ".sta", ".lab", ".trew", ".props"]


def test_properties_per_objective_and_discount():
    assert mc.model_property(random_mdp(1, discount=0.9)).text == 'R{"reward"}max=? [Cdiscount=0.9]'
    ends = random_mdp(1, discount=1.0, end=0.2)
    assert not mc.never_ending_states(ends).any()
    assert mc.model_property(ends).text == 'R{"reward"}max=? [F "done"]'
    costs = random_mdp(1, discount=1.0, end=0.2, objective="min")
    assert mc.model_property(costs).text == 'R{"cost"}min=? [F "done"]'
    loops = random_mdp(0, discount=1.0)  # 14 of its states can avoid the two terminals forever
    assert mc.never_ending_states(loops).any()
    p = mc.model_property(loops)
    assert p.text == 'R{"reward"}max=? [C]' and "Storm cannot give mdpviz's values" in p.note
    positive = random_mdp(0, discount=1.0, signs="positive", objective="min")
    assert mc.model_property(positive).note == ""
    assert "Storm cannot" in mc.format_props(loops).splitlines()[1]


MALFORMED = [
    ("@type: MDP\n@nr_states\n1\n@model\nstate 0\n\taction a\n\t\t0 : x\n", 7, "not a number"),
    ("@type: MDP\n@nr_states\n2\n@model\nstate 0\n\taction a\n\t\t5 : 1\nstate 1 done\n", 7, "out of range"),
    ("@type: MDP\n@nr_states\n2\n@model\nstate 0\n\taction a\n\t\t1 : 0.5\nstate 1 done\n", 6, "sum to 0.5"),
    ("@type: MDP\n@nr_states\n2\n@model\nstate 1\n", 5, "expected 0, got 1"),
    ("@type: POMDP\n@nr_states\n1\n@model\n", 1, "observations"),
    ("@type: CTMC\n@nr_states\n1\n@model\n", 1, "discrete-time"),
    ("@type: MDP\n@parameters\np q\n@nr_states\n1\n@model\n", 3, "parametric"),
    ("@type: MDP\n@value_type: double-interval\n@nr_states\n1\n@model\n", 2, "interval"),
    ("@type: MDP\n@reward_models\na b\n@nr_states\n1\n@model\n", 3, "2 reward models"),
    ("@type: MDP\n@nr_states\n2\n@model\nstate 0 init\n\taction a\n\t\t1 : 1\nstate 1 init done\n", 8,
     "second initial state"),
    ("@type: MDP\n@nr_states\n1\n@model\nstate 0\n\taction a\n\t\t0 : [0.4, 0.6]\n", 7, "interval"),
    ("@type: MDP\n@nr_states\n1\n@model\nstate 0\n\t\t0 : 1\n", 6, "before any action"),
    ("@type: MDP\n@nr_states\n1\n@model\nstate 0\n\taction a\n\t\t0 : 1\n\taction a\n\t\t0 : 1\n", 8,
     "two actions named 'a'"),
    ("@type: MDP\n@nr_states\nmany\n@model\n", 3, "positive integer"),
    ("@type: MDP\n@bogus\n", 2, "unknown header line"),
    ("@type: MDP\n@nr_states\n2\n@model\nstate 0\nstate 1 done\n", 5, "state 0 has no action"),
]


@pytest.mark.parametrize("text,line,words", MALFORMED)
def test_malformed_drn_names_its_line(text, line, words):
    with pytest.raises(MDPFileError) as e:
        mc.parse_drn(text, "bad.drn")
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(f"bad.drn:{line}: ") and words in msg, msg


def test_drn_from_storm_and_a_markov_chain():
    """Storm's own DRN (unlabelled choices, state valuations) and a DTMC read as a one-action model."""
    storm_text = ("// Exported by storm\n@type: MDP\n@value_type: double\n@parameters\n\n@reward_models\nr \n"
                  "@nr_states\n3\n@nr_choices\n4\n@model\nstate 0 [1] init\n//[s=0]\n\taction a [2]\n\t\t1 : 0.5\n"
                  "\t\t2 : 0.5\n\taction b [1.5]\n\t\t2 : 1\nstate 1 [0] done\n//[s=1]\n\taction __NOLABEL__ [0]\n"
                  "\t\t1 : 1\nstate 2 [0] done\n//[s=2]\n\taction __NOLABEL__ [0]\n\t\t2 : 1\n")
    m = mc.parse_drn(storm_text, "storm.drn")
    assert m.init == 0 and m.mdp.state_labels == ("s=0", "s=1", "s=2")
    assert solve(m.mdp, "pi").values[0] == pytest.approx(3.0)  # state reward 1 + action a's 2
    dtmc = "@type: DTMC\n@nr_states\n2\n@model\nstate 0 init\n\taction 0 [2]\n\t\t0 : 0.5\n\t\t1 : 0.5\nstate 1 done\n"
    d = mc.parse_drn(dtmc, "chain.drn").mdp
    assert solve(d, "pi").values[0] == pytest.approx(4.0)
    assert mc.is_drn(dtmc) and not mc.is_drn("numStates 2\n")
    # only the lines up to the first one that says are read (issue 35 item 10: asked on the GUI thread)
    assert mc.is_drn("// c\r\n\n  @type: mdp\n" + "x" * 10) and not mc.is_drn("//a\rnumStates 2")
    assert not mc.is_drn("") and not mc.is_drn("// only a comment\n\n")


# ------------------------------------------------------------------------------------- Storm itself
def storm_values(mdp: TabularMDP, tmp_path: Path, *, start: int = 0,
                 exact: bool | None = None) -> tuple[np.ndarray, list[frozenset[str]]]:
    """Storm's values of the export's first property in every state, and per state the label of the
    choice Storm's scheduler takes. ``exact``: Storm's exact mode (rational arithmetic; the file's
    decimals read exactly), else its sound value iteration to 1e-10; by default exact at discount 1
    (Storm has no exact discounted total reward), where with rewards of both signs Storm 2.0's
    floating-point engine gives wrong minima
    (random_mdp(3, discount=1.0, end=0.1, objective="min"): -3.34 in state 21 where its exact mode
    and every mdpviz solver give -4.8996)."""
    stormpy = pytest.importorskip("stormpy", reason="stormpy is not installed (pip install '.[storm]')")
    import stormpy.environments as envs

    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "model.drn"
    written = mc.write_model(mdp, path, "drn", start=start)
    props = [line for line in written[1].read_text().splitlines() if line and not line.startswith("//")]
    options = stormpy.io.DirectEncodingParserOptions()
    options.build_choice_labeling = True
    if exact is None:
        exact = mdp.discount >= 1.0
    if exact:
        model = stormpy.build_model_from_drn[stormpy.Rational](str(path), options=options)
        env = envs.exact()
    else:
        model = stormpy.build_model_from_drn(str(path), options=options)
        env = envs.sound()
        for solver in (env.solver().min_max(), env.solver().native()):
            solver.precision = stormpy.Rational("1/10000000000")
    assert model.nr_states == mdp.n_states
    prop = stormpy.parse_properties(props[0])[0]
    result = stormpy.model_checking(model, prop, extract_scheduler=True, environment=env)
    values = np.array([float(result.get_value(s)) for s in range(mdp.n_states)])
    sched = result.get_scheduler()
    labeling = model.choice_labeling  # read once: each read of the property copies every choice's labels
    chosen = []
    for s in range(mdp.n_states):
        choice = model.get_choice_index(s, sched.get_choice(s).get_deterministic_choice())
        chosen.append(frozenset(labeling.get_labels_of_choice(choice)))
    return values, chosen


def check_in_storm(mdp: TabularMDP, tmp_path: Path, *, exact: bool | None = None) -> None:
    """Storm's values equal mdpviz's to :data:`TOL`, and Storm's choice is optimal in mdpviz's Q."""
    ours = solve(mdp, "pi")
    values, chosen = storm_values(mdp, tmp_path, exact=exact)
    err = np.abs(values - ours.values)
    assert err.max() < TOL, f"state {int(err.argmax())}: Storm {values[err.argmax()]!r}, mdpviz {ours.values[err.argmax()]!r}"
    best = optimal_sets(mdp, ours.values, tol=1e-6)
    for s in range(mdp.n_states):
        if best[s]:
            assert chosen[s] <= best[s] and chosen[s], (s, chosen[s], best[s])


@pytest.mark.parametrize("name", [e.path.name for e in mdp_examples()])
def test_storm_course_files(name, tmp_path):
    path = next(e.path for e in mdp_examples() if e.path.name == name)
    check_in_storm(load_cs747(path), tmp_path)


SNAKE_LAYOUTS = [
    (0,) * 15,
    (0, 1, 0, 0, 2, 0, 0, 3, 0, 0, 1, 0, 4, 0, 0),
    (0, 3, 3, 1, 0, 2, 0, 4, 1, 0, 2, 3, 0, 1, 0),
    (0, 0, 0, 4, 4, 0, 1, 1, 0, 0, 3, 2, 0, 0, 0),
]


@pytest.mark.parametrize("circle", [False, True])
@pytest.mark.parametrize("layout", range(len(SNAKE_LAYOUTS)))
def test_storm_snakes(layout, circle, tmp_path):
    spec = registry.get("snakes")
    config = dataclasses.replace(spec.default_settings(), layout=SNAKE_LAYOUTS[layout], circle=circle)
    mdp = spec.compile(config.validate())
    assert mc.model_property(mdp).text == 'R{"cost"}min=? [F "done"]'
    check_in_storm(mdp, tmp_path)


def test_storm_tic_tac_toe_vs_random(tmp_path):
    spec = registry.get("ttt")
    check_in_storm(spec.compile(spec.default_settings()), tmp_path)


@pytest.mark.parametrize("convention", ["cs188", "aima"])
@pytest.mark.parametrize("grid", ["book", "bridge", "cliff"])
def test_storm_grid_worlds(grid, convention, tmp_path):
    from mdpviz.models.gridworld.rules import BUILTIN_MAPS

    spec = registry.get("gridworld")
    settings = dataclasses.replace(spec.default_settings(), grid=BUILTIN_MAPS[grid], convention=convention,
                                   living_reward=-0.04)
    check_in_storm(spec.compile(settings), tmp_path)


def test_storm_frozen_lake(tmp_path):
    pytest.importorskip("gymnasium", reason="gymnasium is not installed (pip install '.[gym]')")
    spec = registry.get("gym")
    check_in_storm(spec.compile(spec.default_settings()), tmp_path)


@pytest.mark.parametrize("seed", range(4))
def test_storm_random_mdps(seed, tmp_path):
    check_in_storm(random_mdp(seed, discount=0.9), tmp_path / "d")
    check_in_storm(random_mdp(seed, discount=1.0, end=0.1), tmp_path / "e")
    check_in_storm(random_mdp(seed, discount=1.0, end=0.1, objective="min"), tmp_path / "m")
    check_in_storm(random_mdp(seed, discount=1.0, signs="positive", objective="min"), tmp_path / "c")


# ------------------------------------------------------------------------------------- the command line
def cli(capsys, *argv: str) -> tuple[int, str, str]:
    from mdpviz.cli import main

    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_export_model_command_drn(capsys, tmp_path):
    out_path = tmp_path / "grid.drn"
    code, out, err = cli(capsys, "export-model", "--game", "gridworld", "--noise", "0.1", "--living-reward", "-0.04",
                         "--format", "drn", "--out", str(out_path))
    assert code == 0 and err == ""
    assert f"wrote {out_path}, {tmp_path / 'grid.props'}" in out
    assert 'property giving mdpviz\'s values: R{"reward"}max=? [Cdiscount=0.9]' in out
    from mdpviz.commands.game_args import game_from_args
    from mdpviz.cli import build_parser

    game = game_from_args(build_parser(["solve"]).parse_args(
        ["solve", "--game", "gridworld", "--noise", "0.1", "--living-reward", "-0.04"]))
    back = mc.parse_drn(out_path.read_text(), str(out_path))
    assert back.init == game.start_state()
    assert list(back.mdp.state_labels) == [" ".join(s.split()) for s in game.state_labels()]
    assert np.max(np.abs(solve(back.mdp, "pi").values - solve(game.mdp, "pi").values)) < TOL
    # the course file game reads it back, as mdpviz plan does
    code, out, err = cli(capsys, "plan", "--mdp", str(out_path))
    assert code == 0 and len(out.splitlines()) == game.mdp.n_states


def test_export_model_command_prism_and_note(capsys, tmp_path):
    code, out, err = cli(capsys, "export-model", "--game", "snakes", "--circle", "--layout",
                         "0,1,0,0,2,0,0,3,0,0,1,0,4,0,0", "--format", "prism", "--out", str(tmp_path / "s.tra"))
    assert code == 0 and err == ""
    assert all((tmp_path / f"s{sfx}").is_file() for sfx in (*mc.PRISM_SUFFIXES, ".props"))
    code, out, err = cli(capsys, "export-model", "--game", "gridworld", "--discount", "1", "--living-reward", "-0.04",
                         "--out", str(tmp_path / "g.drn"))
    assert code == 0
    assert err.count("\n") == 1 and err.startswith("mdpviz: note: Storm cannot give mdpviz's values")
    assert "Storm cannot give mdpviz's values" in (tmp_path / "g.props").read_text()


@pytest.mark.parametrize("argv,words", [
    (["--game", "risk_ttt"], "two-player games are out of scope"),
    (["--game", "ttt3d"], "no table"),
    (["--game", "ttt", "--format", "drn", "--out", "{tmp}/no/such/x.drn"], "does not exist"),
    (["--game", "ttt", "--out", "{tmp}/x.csv"], "not '.csv'"),
])
def test_export_model_command_refusals(capsys, tmp_path, argv, words):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    if "--out" not in argv:
        argv += ["--out", str(tmp_path / "x.drn")]
    code, out, err = cli(capsys, "export-model", *argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith("mdpviz: error: ") and words in err, err
    assert not (tmp_path / "x.drn").exists()


def test_malformed_drn_on_the_command_line(capsys, tmp_path):
    bad = tmp_path / "bad.drn"
    bad.write_text("// a model\n@type: MDP\n@nr_states\n2\n@model\nstate 0 init\n\taction go\n\t\t1 0.5\nstate 1 done\n")
    for argv in (["plan", "--mdp", str(bad)], ["export-model", "--game", "file", "--mdp", str(bad), "--out",
                                                str(tmp_path / "y.drn")]):
        code, out, err = cli(capsys, *argv)
        assert code == 2 and out == ""
        assert err == f"mdpviz: error: {bad}:8: expected 'state ...', 'action ...' or 'target : probability', got '1 0.5'\n"


def test_file_game_reads_drn(tmp_path):
    """The file game opens a DRN file: its model, its names for states and actions, its init state."""
    from mdpviz.models.file.spec import SPEC, FileSettings, read_file
    from mdpviz.models.kit.game.hooks import Context

    spec = registry.get("gridworld")
    mdp = spec.compile(spec.default_settings())
    path = tmp_path / "grid.drn"
    mc.write_model(mdp, path, "drn", start=7)
    state, m2 = read_file(path)
    assert state.text == path.read_text() and m2.n_states == mdp.n_states
    ctx = Context(SPEC, state, m2, SPEC.model.mdp_of(state, m2), {})
    assert SPEC.episodes.start_state(ctx) == 7
    assert [SPEC.names.state_name(ctx, s) for s in range(mdp.n_states)] == list(mdp.state_labels)
    assert SPEC.names.action_name(ctx, 0) == mc.action_names(mdp)[0]
    again = SPEC.compile(FileSettings(path=str(path), text=state.text, discount=0.5))
    assert again.discount == 0.5 and np.array_equal(again.terminal, mdp.terminal)


@pytest.mark.parametrize("key", registry.keys())
def test_storm_every_game_at_its_defaults(key, tmp_path):
    """Every registered game with a one-player table, as a new window shows it, checked in Storm."""
    _, mdp, why = next(m for m in table_models() if m[0] == key)
    if mdp is None:
        pytest.skip(why)
    if key in STORM_SMALLER:
        spec = registry.get(key)
        mdp = spec.compile(dataclasses.replace(spec.default_settings(), **STORM_SMALLER[key]).validate())
    if mc.model_property(mdp).note:
        mdp = dataclasses.replace(mdp, discount=STORM_DISCOUNT)
        assert not mc.model_property(mdp).note
    check_in_storm(mdp, tmp_path, exact=None if mdp.n_transitions <= EXACT_MAX_TRANSITIONS else False)
