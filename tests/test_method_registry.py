"""The method registry (mdpviz/solvers/registry.py): one line per solver and learner (issue 34, item 1).

* the learners' loop codes are explicit, unique and stable (never a position in a list);
* a new solver and a new learner are their module plus one ``register`` call: a toy of each, written in
  a temporary package, is seen by ``mdpviz solve`` / ``mdpviz learn`` and by the Solver panel's list;
* no method id is spelled as a string outside its registry line, its own module and the tests (an
  ast scan of mdpviz/**/*.py, docstrings aside), but for the uses listed in :data:`NOT_IDS` (the same
  word meaning something else) and :data:`REMAINING` (ids still spelled, each with why).
"""
from __future__ import annotations

import ast
import contextlib
import io
import json
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from mdpviz.solvers import registry

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "mdpviz"


# ------------------------------------------------------------------------------------ the lines
def test_loop_codes_are_explicit_unique_and_stable():
    from mdpviz.solvers import learning_loop as L

    codes = {s.id: s.code for s in registry.specs("learner") if s.code is not None}
    assert codes == {"td0": L.TD0, "nstep": L.NSTEP, "mc": L.MC, "mc-control": L.MC_CONTROL, "sarsa": L.SARSA,
                     "expected-sarsa": L.EXPECTED_SARSA, "q": L.Q_LEARNING, "double-q": L.DOUBLE_Q}
    assert codes == {"td0": 0, "nstep": 1, "mc": 2, "mc-control": 3, "sarsa": 4, "expected-sarsa": 5, "q": 6,
                     "double-q": 7}  # stable: a compiled cache and saved numbers keep their meaning
    assert len(set(codes.values())) == len(codes)
    # the prediction codes are those below the loop's CONTROL_FROM, as the loop reads them
    assert all((c < L.CONTROL_FROM) == registry.get(m).prediction for m, c in codes.items())


def test_a_taken_loop_code_or_id_is_refused():
    spec = registry.get("q")
    with pytest.raises(ValueError, match="already registered"):
        registry.register(spec)
    clash = registry.MethodSpec("toy-clash", "clash", "learner", "mdpviz.solvers.learning:learner", code=spec.code)
    with pytest.raises(ValueError, match="loop code 6 is 'q'"):
        registry.register(clash)
    with pytest.raises(ValueError, match="kind"):
        registry.MethodSpec("x", "x", "oracle", "a:b")
    with pytest.raises(ValueError, match="entry_point"):
        registry.MethodSpec("x", "x", "solver", "no colon")
    with pytest.raises(ValueError, match="cannot be removed"):
        registry.unregister("vi")


def test_the_views_read_the_registry_in_its_order():
    from mdpviz.models.kit.teaching.algorithms import ALGORITHM_LESSONS
    from mdpviz.solvers import METHOD_NAMES, METHODS
    from mdpviz.solvers.learning import LEARNERS

    assert list(METHOD_NAMES) == list(registry.ids("solver"))
    assert list(METHODS) == list(registry.ids("solver", aliases=True))
    assert registry.get("hpi") is registry.get("pi") and "hpi" not in registry.ids()
    assert list(LEARNERS) == list(registry.ids("learner"))
    assert all(ALGORITHM_LESSONS[m] for m in registry.ids("solver"))
    assert all(registry.get(m).load() is not None for m in registry.ids())  # every entry point imports
    with pytest.raises(ValueError, match="unknown method 'nope'"):
        registry.get("nope")


def test_each_needs_flag_is_what_the_method_does():
    """The flags the command line and the panel read, against what the methods themselves do."""
    from mdpviz.models.kit.game import registry as games
    from mdpviz.solvers import start

    spec = games.get("gridworld")
    mdp = spec.compile(spec.default_settings())
    for m in registry.ids("solver"):
        s = registry.get(m)
        if s.needs_acyclic or (s.one_player and mdp.is_two_player):
            continue
        try:
            first = next(start(m, mdp, **({"policy": "random"} if s.needs_policy else {})))
        except ValueError:  # (relative value iteration: the grid's discount is not the average reward's)
            assert m == "rvi"
            continue
        assert (len(first.updated) == 1) == s.steps_states, m
        assert (first.phase == "evaluate") == (s.unit == "round"), m
    assert registry.ids_where("solver", steps_states=True) == ("async-vi", "prioritized")
    assert registry.ids_where("solver", needs_policy=True) == ("evaluate",)
    assert registry.ids_where("solver", uses_tol=True, in_panel=True) == ("vi", "gs", "async-vi", "evaluate")
    assert registry.exact_solver() == "pi"


# ------------------------------------------------------------------------------------ the toys
TOY_MODULE = '''
"""A toy solver and a toy learner, written outside mdpviz: each is this module plus one register() call."""
import time

import numpy as np

from mdpviz.solvers.sweep import Solution, Sweep, greedy


def toy_vi(mdp, *, tol=1e-9, max_sweeps=10_000):
    """Jacobi value iteration, one Sweep per sweep."""
    t0 = time.perf_counter()
    v = np.zeros(mdp.n_states)
    old_policy = None
    for k in range(1, max_sweeps + 1):
        new, rows = greedy(mdp, mdp.q_values(v))
        new = np.where(mdp.terminal, 0.0, new)
        policy = np.where(rows >= 0, np.asarray(mdp.row_action)[np.maximum(rows, 0)], -1)
        d = np.abs(new - v)
        changed = np.arange(0) if old_policy is None else np.flatnonzero(policy != old_policy)
        for a in (new, policy, changed):
            a.flags.writeable = False
        done = float(d.max()) < tol
        yield Sweep("toy", "sweep", k, new, policy, float(d.max()), float(d.mean()), int(d.argmax()), changed,
                    time.perf_counter() - t0, converged=done)
        v, old_policy = new, policy
        if done:
            return Solution("toy", v, policy, k, True, float(d.max()), time.perf_counter() - t0)
    return Solution("toy", v, policy, max_sweeps, False, float(d.max()), time.perf_counter() - t0)


def toy_learner(mdp, method, *, episodes=10, start=0, exact=None, compiled=None, batch=1, eval_every=100,
                seed=0, alpha=None, alpha_power=0.0, max_steps=200, initial=0.0, **_ignored):
    """Q-learning of a uniformly random behaviour, in plain Python: one LearningStep per batch of episodes."""
    from mdpviz.solvers.learning import LearningSettings, LearningStep, exact_answer

    st = LearningSettings(method=method, episodes=episodes, start=start, seed=seed, batch=batch,
                          eval_every=eval_every, max_steps=max_steps, initial=initial)
    exact = exact if exact is not None else exact_answer(mdp, st)
    rng = np.random.default_rng(seed)
    a = 0.1 if alpha is None else float(alpha)
    q = np.full(mdp.n_rows, float(initial))
    n = np.zeros(mdp.n_rows, np.int64)
    visits = np.zeros(mdp.n_states, np.int64)
    ptr, rp = np.asarray(mdp.state_ptr), np.asarray(mdp.row_ptr)
    updates, t0, done, last = 0, time.perf_counter(), 0, None
    while done < episodes:
        m = min(batch, episodes - done)
        returns, lengths = [], []
        for _ in range(m):
            s, path, acts, rews, g, disc = int(start), [int(start)], [], [], 0.0, 1.0
            for _t in range(max_steps):
                if mdp.terminal[s]:
                    break
                r = int(rng.integers(ptr[s], ptr[s + 1]))
                p = np.asarray(mdp.prob[rp[r]:rp[r + 1]], dtype=np.float64)
                j = rp[r] + int(rng.choice(p.size, p=p / p.sum()))
                s2, rew = int(mdp.dst[j]), float(mdp.reward[j])
                sg = float(mdp.sense[s2])
                nxt = 0.0 if mdp.terminal[s2] else sg * float(np.max(sg * q[ptr[s2]:ptr[s2 + 1]]))
                q[r] += a * (rew + mdp.discount * nxt - q[r])
                n[r] += 1
                updates += 1
                visits[s] += 1
                g += disc * rew
                disc *= mdp.discount
                acts.append(int(mdp.row_action[r]))
                rews.append(rew)
                path.append(s2)
                s = s2
            returns.append(g)
            lengths.append(len(acts))
        done += m
        values, rows = greedy(mdp, q, tie_tol=0.0)
        live = ~np.asarray(mdp.terminal)
        err = (values - exact.values)[live]
        policy = np.where(rows >= 0, np.asarray(mdp.row_action)[np.maximum(rows, 0)], -1).astype(np.int64)
        last = LearningStep(
            method=method, episode=done, updates=updates, q=q.copy(), values=values, policy=policy,
            visits=visits.copy(), row_updates=n.copy(), path=tuple(path), actions=tuple(acts), rewards=tuple(rews),
            returns=tuple(returns), lengths=tuple(lengths), epsilon=1.0,
            rms_error=float(np.sqrt(np.mean(err ** 2))) if err.size else 0.0,
            max_error=float(np.abs(err).max()) if err.size else 0.0,
            greedy_agreement=float(exact.optimal[rows[live]].mean()) if live.any() else 1.0,
            policy_value=None, exact=exact, elapsed=time.perf_counter() - t0, done=done == episodes)
        yield last
    return last
'''


@pytest.fixture
def toys(tmp_path, monkeypatch):
    """A package ``toypkg`` in a temporary folder, its solver and learner registered with one line each."""
    pkg = tmp_path / "toypkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "methods.py").write_text(textwrap.dedent(TOY_MODULE))
    monkeypatch.syspath_prepend(str(tmp_path))
    # the one line each (what a plugin's module or a user's script writes):
    registry.register(registry.MethodSpec("toy", "toy value iteration", "solver", "toypkg.methods:toy_vi", in_panel=True, uses_tol=True, cap_as="max_sweeps"))
    registry.register(registry.MethodSpec("toy-q", "toy Q-learning", "learner", "toypkg.methods:toy_learner", unit="episode", needs_start=True, tol_as=None))
    yield
    registry.unregister("toy")
    registry.unregister("toy-q")
    sys.modules.pop("toypkg.methods", None)
    sys.modules.pop("toypkg", None)


def _cli(argv: list[str]) -> tuple[int, str]:
    from mdpviz.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(argv)
    return status, out.getvalue()


def test_a_toy_solver_is_seen_by_mdpviz_solve(toys):
    status, text = _cli(["solve", "--game", "gridworld", "--method", "toy", "--json"])
    assert status == 0
    got = json.loads(text)
    _s, ref = _cli(["solve", "--game", "gridworld", "--method", "vi", "--tol", "1e-9", "--json"])
    ref = json.loads(ref)
    assert got["method"] == "toy" and got["method_name"] == "toy value iteration" and got["converged"]
    np.testing.assert_allclose(got["values"], ref["values"], atol=1e-7)
    status, text = _cli(["solve", "--help"]) if False else (0, "")
    from mdpviz.cli import build_parser

    helptext = io.StringIO()
    with contextlib.redirect_stdout(helptext), pytest.raises(SystemExit):
        build_parser(["solve", "--help"]).parse_args(["solve", "--help"])
    assert "toy toy value iteration" in " ".join(helptext.getvalue().split())
    # its options are checked through its line: it takes no --theta
    from mdpviz.cli import main

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert main(["solve", "--game", "gridworld", "--method", "toy", "--theta", "0.1"]) == 2
    assert "--theta applies to --method prioritized only" in err.getvalue()


def test_a_toy_learner_is_seen_by_mdpviz_learn(toys):
    status, text = _cli(["learn", "--game", "gridworld", "--method", "toy-q", "--episodes", "20", "--json"])
    assert status == 0
    got = json.loads(text)
    assert got["method"] == "toy-q" and got["method_name"] == "toy Q-learning" and got["episodes"] == 20
    assert got["updates"] > 0 and len(got["curve"]) == 20
    from mdpviz.cli import main

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert main(["learn", "--game", "gridworld", "--method", "toy-q", "--episodes", "5", "--n", "2"]) == 2
    assert "--n applies to --method nstep only, not toy-q" in err.getvalue()


def test_the_solver_panel_lists_both_toys(toys, qtbot):
    from mdpviz.widgets.panels import SolverPanel

    panel = SolverPanel()
    qtbot.addWidget(panel)
    items = [panel.algorithm.itemData(i) for i in range(panel.algorithm.count())]
    assert "toy" in items and "toy-q" in items
    assert items.index("toy") < items.index(registry.ids("learner")[0]) < items.index("toy-q")
    panel.set_method("toy")
    assert panel.tolerance.isEnabled() and not panel.learning_scroll.isVisibleTo(panel)
    assert not panel.order.isVisibleTo(panel) and not panel.theta.isVisibleTo(panel)
    panel.set_method("toy-q")
    assert panel.learning_scroll.isVisibleTo(panel)
    assert not panel.learning.n.isEnabled() and not panel.learning.epsilon.isEnabled()


def test_the_controller_runs_a_toy_learner_it_did_not_build(toys):
    """The controller's load starts any registered learner through the solvers layer."""
    from mdpviz.controller import learning_start
    from mdpviz.models.kit.game import registry as games

    spec = games.get("gridworld")
    mdp = spec.compile(spec.default_settings())
    gen, rng = learning_start(mdp, "toy-q", {"episodes": 3, "start": 0})
    steps = list(gen)
    assert steps[-1].episode == 3 and steps[-1].method == "toy-q" and rng is not None


# ------------------------------------------------------------------------------------ the scan
NOT_IDS: dict[str, frozenset[str]] = {
    # the same word meaning something else
    "mdpviz/commands/solve.py": frozenset({"q"}),  # the JSON field of the Q table
    "mdpviz/commands/learn.py": frozenset({"q"}),  # the JSON field of the learned Q table
    "mdpviz/controller.py": frozenset({"evaluate"}),  # next_phase's value: policy iteration's phase
}
"""Per file, words that are in it as something other than a method id."""

PHASE_NAMES = {"evaluate", "lp"}
"""Phases of a :class:`~mdpviz.solvers.sweep.Sweep` that share their word with a method id: skipped
where compared with, or passed as, a ``phase``."""

REMAINING: dict[str, frozenset[str]] = {
    # the window (app.py, window/*.py, in conversion to part objects on another branch at the same time):
    # the default method of a new window, the classroom's comparison and the learner inspector's texts
    "mdpviz/window/classroom.py": frozenset({"gs", "vi"}),
    "mdpviz/window/learning.py": frozenset({"double-q", "expected-sarsa", "mc", "mc-control", "nstep", "q", "sarsa",
                                            "td0"}),
    "mdpviz/window/solving.py": frozenset({"pi"}),
    # a game's own command with the few methods its course uses (--method choices and names), or a
    # course's algorithm names mapped to ids (plan: hpi, vi, vi-sync, lp), and JSON fields named "q"
    "mdpviz/commands/attt.py": frozenset({"vi"}),
    "mdpviz/commands/checkers.py": frozenset({"gs", "pi", "vi"}),
    "mdpviz/commands/export.py": frozenset({"gs", "lp", "pi", "vi"}),
    "mdpviz/commands/gridworld.py": frozenset({"gs", "lp", "pi", "vi"}),
    "mdpviz/commands/gym.py": frozenset({"pi"}),
    "mdpviz/commands/plan.py": frozenset({"gs", "hpi", "lp", "pi", "vi"}),
    "mdpviz/commands/snakes.py": frozenset({"gs", "lp", "pi", "vi"}),
    "mdpviz/commands/ttt.py": frozenset({"bi", "gs", "lp", "pi", "q", "vi"}),
    # the bench's measured rows name the method each row times
    "mdpviz/commands/bench_table.py": frozenset({"gs", "hpi", "pi", "q", "vi"}),
    # a game's default solve (solve_with / its own solver settings) and its course's method choices
    "mdpviz/models/attt/iteration.py": frozenset({"gs", "vi"}),
    "mdpviz/models/attt/setup.py": frozenset({"gs", "lp", "pi", "vi"}),
    "mdpviz/models/checkers/spec.py": frozenset({"vi"}),
    "mdpviz/models/file/spec.py": frozenset({"pi"}),
    "mdpviz/models/gambler/spec.py": frozenset({"gs"}),
    "mdpviz/models/gridworld/spec.py": frozenset({"evaluate", "vi"}),
    "mdpviz/models/jack/spec.py": frozenset({"pi"}),
    "mdpviz/models/risk_ttt/match.py": frozenset({"vi"}),
    "mdpviz/models/snakes/simulate.py": frozenset({"vi"}),
    "mdpviz/models/ttt/rules.py": frozenset({"pi"}),
    "mdpviz/models/kit/game/game_model.py": frozenset({"vi"}),
    "mdpviz/models/kit/boards/grid.py": frozenset({"vi"}),
    "mdpviz/models/kit/teaching/sensitivity.py": frozenset({"pi"}),
    # 3D tic-tac-toe's agents have methods of their own (function approximation), one named "q"
    "mdpviz/models/ttt3d/learning.py": frozenset({"q"}),
    # the display's Q view of an in-place sweep (needs a flag for Gauss-Seidel's mixed values)
    "mdpviz/models/kit/pictures/display.py": frozenset({"gs"}),
    # the worked examples of each learner's update (the learning lesson's own table per id)
    "mdpviz/models/kit/teaching/learning_lesson.py": frozenset({"double-q", "expected-sarsa", "mc", "mc-control", "nstep", "q",
                                                       "sarsa", "td0"}),
    # pictures and scripted shots: each picture names the method it shows
    "mdpviz/export.py": frozenset({"gs", "pi", "vi"}),
    "mdpviz/screenshot_views.py": frozenset({"q", "vi"}),
    "mdpviz/screenshots.py": frozenset({"pi", "vi"}),
    "mdpviz/shot_window.py": frozenset({"pi", "vi"}),
    "mdpviz/widgets/game.py": frozenset({"vi"}),
    "mdpviz/widgets/games/grid_board.py": frozenset({"vi"}),
    # value iteration's AIMA sequence (a module of the "vi" method other than its entry point's)
    "mdpviz/solvers/aima.py": frozenset({"vi"}),
    # the Compare panel's fixed set of four methods and their columns
    "mdpviz/solvers/compare.py": frozenset({"bi", "gs", "lp", "pi", "vi"}),
    "mdpviz/widgets/compare.py": frozenset({"bi", "gs", "lp", "pi", "vi"}),
    # the convergence plot's AIMA variant ("vi" with sequence aima is "vi-aima" to the theory curves)
    "mdpviz/widgets/convergence.py": frozenset({"vi"}),
}
"""Per file, the method ids still spelled there (issue 34 leaves them for a later step; the report lists
why): a game's own default solve, a command of its own with a course's few methods, a picture's script,
a JSON field named "q". A file may lose an entry; a new id in a file not listed fails."""


def _docstring_nodes(tree: ast.AST) -> set[int]:
    out: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list):
            for st in body:
                if isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant) and isinstance(st.value.value, str):
                    out.add(id(st.value))
    return out


def _phase_nodes(tree: ast.AST) -> set[int]:
    """String constants compared with, or given as, a ``phase`` / ``next_phase``."""
    def is_phase(e: ast.AST) -> bool:
        return ((isinstance(e, ast.Attribute) and e.attr in ("phase", "next_phase"))
                or (isinstance(e, ast.Name) and e.id in ("phase", "next_phase")))

    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and any(is_phase(e) for e in (node.left, *node.comparators)):
            for e in (node.left, *node.comparators):
                for c in ast.walk(e):
                    if isinstance(c, ast.Constant):
                        out.add(id(c))
        elif isinstance(node, ast.keyword) and node.arg == "phase":
            for c in ast.walk(node.value):
                if isinstance(c, ast.Constant):
                    out.add(id(c))
    return out


def _own_module(spec: registry.MethodSpec) -> str:
    return "mdpviz/" + spec.entry_point.partition(":")[0].removeprefix("mdpviz.").replace(".", "/") + ".py"


def id_literals() -> dict[str, list[tuple[int, str]]]:
    """Per file (relative to the repository), (line, id) of every string constant equal to a method id,
    docstrings, phases, the registry module and each method's own module aside."""
    own: dict[str, set[str]] = {}
    names: set[str] = set()
    for spec in registry.specs():
        for name in (spec.id, *spec.aliases):
            names.add(name)
            own.setdefault(name, set()).add(_own_module(spec))
    found: dict[str, list[tuple[int, str]]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel == "mdpviz/solvers/registry.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _docstring_nodes(tree) | _phase_nodes(tree)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names
                    and id(node) not in skip and rel not in own[node.value]
                    and node.value not in NOT_IDS.get(rel, ())):
                found.setdefault(rel, []).append((node.lineno, node.value))
    return found


def test_no_method_id_is_spelled_outside_its_line_and_module():
    found = id_literals()
    new = [f"{rel}:{line}: {value!r}" for rel, hits in found.items() for line, value in hits
           if value not in REMAINING.get(rel, ())]
    assert not new, ("method ids spelled outside the registry (ask registry.get(id)'s flags instead):\n"
                     + "\n".join(new))


def test_the_list_of_remaining_ids_only_shrinks():
    """Every entry of REMAINING is still needed (a file cleaned of an id must leave the list)."""
    found = id_literals()
    stale = [f"{rel}: {sorted(ids - {v for _l, v in found.get(rel, [])})}" for rel, ids in REMAINING.items()
             if ids - {v for _l, v in found.get(rel, [])}]
    assert not stale, "ids no longer spelled there; remove them from REMAINING:\n" + "\n".join(stale)
