"""The method registry (mdpviz/solvers/registry.py): one line per solver and learner (issue 34, item 1).

* the learners' loop codes are explicit, unique and stable (never a position in a list);
* a new solver and a new learner are their module plus one ``register`` call: a toy of each, written in
  a temporary package, is seen by ``mdpviz solve`` / ``mdpviz learn`` and by the Solver panel's list;
* no method id is spelled as a string outside its registry line, its own module and the tests (an
  ast scan of mdpviz/**/*.py, docstrings and phases aside), but for the words a module declares in its
  own ``NOT_METHOD_IDS`` (the same word meaning something else there, each with why) and
  :data:`REMAINING` (ids still spelled, each with why).
"""
from __future__ import annotations

import ast
import contextlib
import io
import json
import sys
import textwrap
from pathlib import Path
from typing import Iterator

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
    assert registry.ids_where("solver", uses_tol=True, in_panel=True) == ("vi", "gs", "async-vi", "rtdp", "evaluate")
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


# ------------------------------------------------------------------------------------ the flags
def test_the_flags_give_what_the_literals_gave():
    """The sites that spelled ids now read flags; the flags give the same sets, in the same order."""
    from mdpviz.commands import plan
    from mdpviz.models.attt import iteration, setup
    from mdpviz.models.kit.teaching.learning_lesson import EXAMPLE_METHODS
    from mdpviz.solvers import aima, compare

    assert compare.COMPARE_METHODS == ("vi", "gs", "pi", "lp")
    assert sorted(registry.ids("solver"), key=compare._reference_rank)[:5] == ["pi", "lp", "bi", "gs", "vi"]
    assert [m for m in registry.ids("solver") if registry.get(m).misfit(_two_player_mdp())] == ["lp"]
    assert registry.game_choices() == ("vi", "gs", "pi", "lp")
    assert registry.game_choices(acyclic=True) == ("vi", "gs", "pi", "lp", "bi")
    assert registry.game_choices(two_player=True) == ("vi", "gs", "pi")
    assert registry.game_choices(two_player=True, acyclic=True) == ("vi", "gs", "pi", "bi")
    # issue 35 item 21: plan's words mean the registry's methods (vi synchronous); the course's old in-place
    # "vi" only as the deprecated cs747-vi
    assert plan.ALGORITHMS == {"vi": "vi", "vi-sync": "vi", "gs": "gs", "cs747-vi": "gs", "pi": "pi", "hpi": "pi",
                               "lp": "lp"} and plan.DEFAULT_ALGORITHM == "pi"
    assert all(registry.get(name).id == m for name, m in plan.ALGORITHMS.items() if registry.find(name) is not None)
    assert list(registry.planner_notes()) == ["cs747-vi"]
    assert iteration.SEED_METHOD == "gs" and setup.METHODS == ("gs", "vi", "pi", "lp") and aima.METHOD == "vi"
    assert registry.ids_where("solver", mixed_q_view=True) == ("gs",)
    assert [m for m in registry.ids("solver") if registry.get(m).synchronous_vi] == ["vi"]
    assert [m for m in registry.ids("solver") if registry.get(m).count_word == "rounds"] == ["pi"]
    assert registry.ids_where("solver", unit="solve") == ("lp",)
    assert EXAMPLE_METHODS == {"q": "q", "double-q": "q", "sarsa": "sarsa", "expected-sarsa": "expected-sarsa",
                               "mc-control": "q", "td0": "td0", "nstep": "td0", "mc": "td0"}
    assert registry.ids_where("learner", multi_step=True) == ("nstep", "mc", "mc-control")
    assert registry.ids_where("learner", needs_next_action=True) == ("sarsa",)
    assert {m: registry.get(m).targets for m in registry.ids("learner") if registry.get(m).targets} == {
        "nstep": "n-step returns", "mc": "returns", "mc-control": "returns", "double-q": "from the other table"}
    assert [registry.get(m).short_title for m in ("q", "sarsa", "expected-sarsa", "td0")] == [
        "Q-learning", "SARSA", "Expected SARSA", "TD(0)"]
    with pytest.raises(ValueError, match="curve"):
        registry.MethodSpec("x", "x", "solver", "a:b", curve=("#000000", "wavy", "o"))
    with pytest.raises(ValueError, match="fits"):
        registry.MethodSpec("x", "x", "solver", "a:b", fits="no colon")


def _two_player_mdp():
    from mdpviz.models.kit.game import registry as games

    spec = games.get("risk_ttt")
    return spec.compile(spec.default_settings())


# ------------------------------------------------------------------------------------ the scan
DECLARATION = "NOT_METHOD_IDS"
"""The module-level name under which a module declares the words it uses as something other than a
method id: a dict ``{word: why}`` (e.g. ``{"q": "the JSON field of the Q table"}``), read by the scan."""

PHASE_NAMES = {"evaluate", "lp"}
"""Phases of a :class:`~mdpviz.solvers.sweep.Sweep` that share their word with a method id: skipped
where compared with, or passed as, a ``phase``."""

REMAINING: dict[str, frozenset[str]] = {
    # a game's own default method, in its one place (spec.model.solve_with; the window, the command line,
    # export and the jobs read it from there): the book's choice for that figure
    "mdpviz/models/gambler/spec.py": frozenset({"gs"}),  # Sutton and Barto 4.4: value iteration in place
    "mdpviz/models/gridworld/spec.py": frozenset({"evaluate", "vi"}),  # figure 4.1's maps: the random policy's V_k
    "mdpviz/models/jack/spec.py": frozenset({"pi"}),  # figure 4.2: policy iteration from "move nothing"
    # the anti-tic-tac-toe Setup tab's own words for its four planners ("in-place value iteration", ...)
    "mdpviz/models/attt/setup.py": frozenset({"gs", "lp", "pi", "vi"}),
    # the bench: each row times the method its label names, and runs `mdpviz plan --algorithm` by the
    # planner's own names (hpi, vi, vi-sync)
    "mdpviz/commands/bench_table.py": frozenset({"gs", "hpi", "pi", "q", "vi"}),
    # the bandit bench times the command of figure 2.2 (epsilon-greedy) as a user types it
    "mdpviz/commands/bench_bandit.py": frozenset({"eps-greedy"}),
    # the event-loop gaps of issue 35 item 8 are measured on the cases it names (SARSA, a Jack policy-iteration Step)
    "mdpviz/commands/bench_stalls.py": frozenset({"pi", "sarsa"}),
    # issue 36: the expected update (fixed_points.expected_updates, part A) takes the learner's id as its
    # ``method`` and keeps the rule of each (semi-gradient or TDC) beside it, as the contract names them
    "mdpviz/solvers/fixed_points.py": frozenset({"semi-td", "off-td", "tdc"}),
    # issue 36's pictures: each of the book's figures (9.1, 11.2, 11.5, 10.1) is drawn by the method the book drew it with
    "mdpviz/screenshot_approx.py": frozenset({"gradient-mc", "off-td", "semi-sarsa", "tdc"}),
    # issue 37's pictures: the corridor learned by REINFORCE, as figure 13.1 learns it
    "mdpviz/screenshot_pg.py": frozenset({"reinforce"}),
    # issue 38's pictures: figure 8.2 drawn by Dyna-Q (n = 0, 5, 50), figure 8.5 by Dyna-Q against Dyna-Q+
    "mdpviz/screenshot_planning.py": frozenset({"dyna-q", "dyna-q+"}),
}
"""Per file, the method ids still spelled there, each group with why. A file may lose an entry; a new id
in a file not listed fails. A word meaning something else in a module is declared in that module's
own ``NOT_METHOD_IDS`` instead (:data:`DECLARATION`)."""


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
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in ("phase", "next_phase"):
            for ret in ast.walk(node):  # the value a phase property returns
                if isinstance(ret, ast.Return) and ret.value is not None:
                    for c in ast.walk(ret.value):
                        if isinstance(c, ast.Constant):
                            out.add(id(c))
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


def declared(tree: ast.Module) -> tuple[dict[str, str], set[int]]:
    """The module's own :data:`DECLARATION` (word -> why; {} when it has none) and the string constants
    of that declaration (skipped by the scan: the declaration spells the words it declares)."""
    for st in tree.body:
        target = (st.targets[0] if isinstance(st, ast.Assign) and len(st.targets) == 1
                  else st.target if isinstance(st, ast.AnnAssign) else None)
        if isinstance(target, ast.Name) and target.id == DECLARATION:
            value = ast.literal_eval(st.value)
            assert isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str)
                                                   for k, v in value.items()), f"{DECLARATION} must be a dict of str"
            return value, {id(c) for c in ast.walk(st.value) if isinstance(c, ast.Constant)}
    return {}, set()


def _trees() -> Iterator[tuple[str, ast.Module]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path.relative_to(ROOT).as_posix(), ast.parse(path.read_text(encoding="utf-8"))


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
    for rel, tree in _trees():
        if rel == "mdpviz/solvers/registry.py":
            continue
        words, declaration = declared(tree)
        skip = _docstring_nodes(tree) | _phase_nodes(tree) | declaration
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names
                    and id(node) not in skip and rel not in own[node.value] and node.value not in words):
                found.setdefault(rel, []).append((node.lineno, node.value))
    return found


def test_no_method_id_is_spelled_outside_its_line_and_module():
    found = id_literals()
    new = [f"{rel}:{line}: {value!r}" for rel, hits in found.items() for line, value in hits
           if value not in REMAINING.get(rel, ())]
    assert not new, ("method ids spelled outside the registry (ask registry.get(id)'s flags instead):\n"
                     + "\n".join(new))


def test_each_declared_word_is_used_and_says_why():
    """A module's NOT_METHOD_IDS names words that are method ids, that the module still uses, each with why."""
    names = set(registry.ids(aliases=True))
    problems = []
    seen = 0
    for rel, tree in _trees():
        words, declaration = declared(tree)
        seen += bool(words)
        docstrings = _docstring_nodes(tree)  # (once per module: asked per constant, the scan was quadratic)
        used = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
                and id(n) not in declaration and id(n) not in docstrings}
        for word, why in words.items():
            if word not in names:
                problems.append(f"{rel}: {word!r} is no method id (drop it from {DECLARATION})")
            elif word not in used:
                problems.append(f"{rel}: {word!r} is no longer used here (drop it from {DECLARATION})")
            elif len(why.split()) < 3:
                problems.append(f"{rel}: {word!r} needs a reason (what the word means here)")
    assert not problems, "\n".join(problems)
    assert seen >= 4  # commands/solve.py, learn.py, ttt.py, models/ttt3d/learning.py


def test_the_list_of_remaining_ids_only_shrinks():
    """Every entry of REMAINING is still needed (a file cleaned of an id must leave the list)."""
    found = id_literals()
    stale = [f"{rel}: {sorted(ids - {v for _l, v in found.get(rel, [])})}" for rel, ids in REMAINING.items()
             if ids - {v for _l, v in found.get(rel, [])}]
    assert not stale, "ids no longer spelled there; remove them from REMAINING:\n" + "\n".join(stale)
