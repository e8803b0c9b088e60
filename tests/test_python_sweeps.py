"""A small model's first sweeps in the interpreter give the compiled kernels' numbers bit for bit.

The loops of :mod:`mdpviz.solvers.sweep_loops` run as plain Python on lists (the first sweeps of a
small model in a process that has not loaded numba) and compiled by numba (everything else). Each
model here is solved three ways, in the interpreter alone, by the kernel alone, and crossing from
one to the other part-way (a budget of a few sweeps), and every snapshot must be the same: values,
policy, changes, where the largest change was, which actions changed, how many sweeps (np.array_equal
and ==, never a tolerance). No timing here: ``mdpviz bench`` measures the whole ``plan`` process.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mdpviz.core.cs747 import load_cs747
from mdpviz.core.examples import CS747_DIR
from mdpviz.models.gridworld import BUILTIN_MAPS, GridSettings, compile_gridworld
from mdpviz.solvers import kernels, python_sweeps, run, solve, sweep_loops
from mdpviz.solvers.value_iteration import gauss_seidel_value_iteration, value_iteration, value_iteration_values
from tests.test_speed_kernels import MODELS, random_model

REPO = Path(__file__).resolve().parents[1]

needs_numba = pytest.mark.skipif(not kernels.available(), reason=f"numba unavailable: {kernels.unavailable_reason()}")
pytestmark = needs_numba

COURSE_FILES = sorted(p.name for p in (CS747_DIR / "mdp").glob("*.txt") if not p.name.startswith("sol-"))


def course_model(name: str):
    return load_cs747(CS747_DIR / "mdp" / name)


def grid_model(name: str, convention: str):
    return compile_gridworld(GridSettings(grid=BUILTIN_MAPS[name], convention=convention)).mdp


CASES = (
    [pytest.param(lambda o=o: random_model(**o), id="random-" + "-".join(f"{k}={v}" for k, v in o.items()))
     for o in MODELS]
    + [pytest.param(lambda f=f: course_model(f), id=f) for f in COURSE_FILES]
    + [pytest.param(lambda g=g, c=c: grid_model(g, c), id=f"cs188-{g}-{c}")
       for g in sorted(BUILTIN_MAPS) for c in ("cs188", "aima")]
)


@pytest.fixture
def path(monkeypatch):
    """``path(kind, sweeps=0)``: make the next solves run in the interpreter only ("python"), the
    kernel only ("kernel"), or the interpreter for ``sweeps`` sweeps of ``mdp`` and then the kernel
    ("cross"); returns a function giving the transition visits the interpreter has run since."""

    def choose(kind: str, mdp=None, sweeps: int = 0):
        monkeypatch.setattr(python_sweeps, "_spent", 0)
        if kind == "kernel":
            monkeypatch.setattr(python_sweeps, "PYTHON_BUDGET", 0)
            return lambda: python_sweeps._spent
        monkeypatch.setattr(kernels, "loaded", lambda: False)  # as in a process that has not loaded numba
        budget = 1 << 60 if kind == "python" else sweeps * python_sweeps.sweep_cost(mdp)
        monkeypatch.setattr(python_sweeps, "PYTHON_BUDGET", budget)
        return lambda: python_sweeps._spent

    return choose


def same_run(a, b) -> None:
    """Two recorded runs agree in every number of every snapshot."""
    assert a.sweeps == b.sweeps and a.converged == b.converged and a.delta == b.delta
    assert np.array_equal(a.values, b.values) and np.array_equal(a.policy, b.policy)
    assert len(a.history) == len(b.history)
    for x, y in zip(a.history, b.history):
        assert x.iteration == y.iteration
        assert np.array_equal(x.values, y.values), x.iteration
        assert np.array_equal(x.policy, y.policy), x.iteration
        assert x.delta == y.delta and x.mean_delta == y.mean_delta and x.delta_state == y.delta_state
        assert np.array_equal(x.changed, y.changed) and x.converged == y.converged


def generator(method: str, mdp, **opts):
    return (value_iteration if method == "vi" else gauss_seidel_value_iteration)(mdp, **opts)


@pytest.mark.parametrize("method", ["vi", "gs"])
@pytest.mark.parametrize("make", CASES)
def test_interpreter_kernel_and_hand_over_agree_bit_for_bit(make, method, path):
    mdp = make()
    assert mdp.n_transitions <= python_sweeps.SMALL_MAX_TRANSITIONS
    cost = python_sweeps.sweep_cost(mdp)
    opts = dict(tol=1e-12, max_sweeps=1500)  # every snapshot of the first 1500 sweeps (or to convergence)

    spent = path("kernel")
    kern = run(generator(method, mdp, **opts), record=True)
    assert spent() == 0

    spent = path("python")
    py = run(generator(method, mdp, **opts), record=True)
    assert spent() == py.sweeps * cost  # the interpreter ran every sweep
    same_run(py, kern)

    k = min(3, kern.sweeps)  # across the hand-over after sweep 3 (after the last one if fewer)
    spent = path("cross", mdp, k)
    cross = run(generator(method, mdp, **opts), record=True)
    assert spent() == k * cost
    same_run(cross, kern)

    # to convergence, many sweeps per step (as solve() and the command line run), crossing mid-batch
    spent = path("kernel")
    full = solve(mdp, method, tol=1e-12, max_sweeps=100_000)
    half = max(1, full.sweeps // 2)
    for kind, budget in (("python", 0), ("cross", half)):
        spent = path(kind, mdp, budget)
        got = solve(mdp, method, tol=1e-12, max_sweeps=100_000)
        assert spent() == (full.sweeps if kind == "python" else half) * cost
        assert got.sweeps == full.sweeps and got.converged == full.converged and got.delta == full.delta
        assert np.array_equal(got.values, full.values) and np.array_equal(got.policy, full.policy)
    if method == "vi":  # the values-only path (the course grader's markovDecision)
        path("kernel")
        ref = value_iteration_values(mdp, tol=1e-12)
        for kind, budget in (("python", 0), ("cross", max(1, ref.sweeps // 3))):
            path(kind, mdp, budget)
            got = value_iteration_values(mdp, tol=1e-12)
            assert got.sweeps == ref.sweeps and got.delta == ref.delta
            assert np.array_equal(got.values, ref.values) and np.array_equal(got.policy, ref.policy)


@pytest.mark.parametrize("method", ["vi", "gs"])
def test_a_step_of_many_sweeps_crosses_over_without_a_seam(method, path):
    """``send(m)`` with the hand-over inside the step: the snapshots are the recorded ones."""
    mdp = random_model(4, two_player=True, objective="min", gamma=0.97)
    path("kernel")
    rec = run(generator(method, mdp, tol=1e-11), record=True)
    path("cross", mdp, 5)
    gen = generator(method, mdp, tol=1e-11)
    got = [next(gen)]
    try:
        while True:
            got.append(gen.send(7))  # sweeps 2-8 (the interpreter to 5, the kernel from 6), 9-15, ...
    except StopIteration as stop:
        sol = stop.value
    assert [s.iteration for s in got][:3] == [1, 8, 15]
    for s in got:
        ref = rec.history[s.iteration - 1]
        assert np.array_equal(s.values, ref.values) and np.array_equal(s.policy, ref.policy)
        assert s.delta == ref.delta and s.mean_delta == ref.mean_delta and s.delta_state == ref.delta_state
        assert np.array_equal(s.changed, ref.changed)
    assert np.array_equal(sol.values, rec.values) and sol.sweeps == rec.sweeps


def test_values_that_overflow_take_the_same_path_in_both():
    """Values that are not finite (the full tie rule everywhere): the interpreter and the kernel alike."""
    mdp = random_model(1)
    km = kernels.kernel_model(mdp)
    lists = python_sweeps.model_lists(mdp)
    n = mdp.n_states
    v0 = np.zeros(n)
    v0[::3] = np.inf
    v0[1::5] = np.nan
    args = (mdp.discount, 1e-9, int(mdp.uniform_actions), bool(mdp.dense_actions), 0.0, 3)
    out = []
    for fn, model, v, p, new_v, new_p, stats in (
        (sweep_loops.jacobi_sweeps, lists[:6] + (lists[8],), v0.tolist(), [-2] * n, lambda: [0.0] * n,
         lambda: [0] * n, [0.0] * 5),
        (kernels.kernels()["jacobi_small_sweeps"], km.shared_args()[:6] + (km.kind,), v0.copy(),
         np.full(n, -2, np.int64), lambda: np.zeros(n), lambda: np.zeros(n, np.int64), np.zeros(5)),
    ):
        va, vb, pa, pb = new_v(), new_v(), new_p(), new_p()
        changed = new_p()
        done = fn(*model, *args, v, p, va, vb, pa, pb, changed, stats, False)
        res_v, res_p = (va, pa) if done % 2 else (vb, pb)
        out.append((done, np.array(res_v), np.array(res_p), np.array(stats)))
    (d1, v1, p1, s1), (d2, v2, p2, s2) = out
    assert d1 == d2 == 3
    assert np.array_equal(v1, v2, equal_nan=True) and np.array_equal(p1, p2)
    assert np.array_equal(s1, s2, equal_nan=True) and s1[4] == 0.0  # still not finite: the full rule


def test_the_budget_is_the_process_s_and_loaded_kernels_skip_the_interpreter(monkeypatch):
    mdp = course_model("continuing-mdp-10-5.txt")
    cost = python_sweeps.sweep_cost(mdp)
    monkeypatch.setattr(kernels, "loaded", lambda: False)
    monkeypatch.setattr(python_sweeps, "PYTHON_BUDGET", 10 * cost)
    monkeypatch.setattr(python_sweeps, "_spent", 0)
    assert python_sweeps.python_first(mdp)
    first = solve(mdp, "gs", tol=1e-12)  # 75 sweeps: 10 in the interpreter, the rest in the kernel
    assert python_sweeps._spent == 10 * cost and first.sweeps > 10
    assert not python_sweeps.python_first(mdp)  # this process has spent its budget: the kernel from now on
    again = solve(mdp, "gs", tol=1e-12)
    assert python_sweeps._spent == 10 * cost
    assert np.array_equal(again.values, first.values) and again.sweeps == first.sweeps
    monkeypatch.setattr(python_sweeps, "_spent", 0)
    monkeypatch.setattr(kernels, "loaded", lambda: True)  # numba already loaded (the window warms it up)
    assert not python_sweeps.python_first(mdp)
    monkeypatch.setattr(kernels, "loaded", lambda: False)
    monkeypatch.setenv("MDPVIZ_NO_NUMBA", "1")  # no kernels to hand over to: the numpy reference, as before
    assert not python_sweeps.python_first(mdp)


PLAN = """
import contextlib, io, json, sys
{before}
from mdpviz.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    status = main(["plan", "--algorithm", "{algorithm}", "--mdp", "continuing-mdp-10-5"])
print(json.dumps({{"status": status, "out": out.getvalue(),
                   "numba": sorted(m for m in sys.modules if m.split(".")[0] in ("numba", "llvmlite"))}}))
"""


@pytest.mark.parametrize("algorithm", ["vi", "vi-sync"])
def test_plan_vi_on_a_course_file_loads_no_compiler_and_prints_what_the_kernel_prints(algorithm):
    got = {}
    for label, before in (("small", ""), ("kernel", "from mdpviz.solvers import kernels; kernels.warm_up()")):
        code = PLAN.format(before=before, algorithm=algorithm)
        res = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300)
        assert res.returncode == 0, res.stderr
        got[label] = json.loads(res.stdout.strip().splitlines()[-1])
        assert got[label]["status"] == 0
    assert got["small"]["numba"] == []
    assert "numba" in got["kernel"]["numba"]  # (the comparison is with the compiled kernel)
    assert got["small"]["out"] == got["kernel"]["out"]
    assert got["small"]["out"] == (CS747_DIR / "mdp" / "sol-continuing-mdp-10-5.txt").read_text()  # the course's own
