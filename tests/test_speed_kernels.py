"""The compiled sweep kernels against the numpy reference, and batching that changes no number.

Random models with ragged action sets (ids with gaps), terminal states (with and without rows),
both movers and both objectives. No timing here: speed is measured by ``mdpviz bench``.
"""
from __future__ import annotations

import numpy as np
import pytest

from mdpviz.core.mdp import TabularMDP
from mdpviz.solvers import kernels, run, solve
from mdpviz.solvers.sweep import greedy, rows_to_policy
from mdpviz.solvers.value_iteration import (
    gauss_seidel_numpy,
    gauss_seidel_value_iteration,
    value_iteration,
    value_iteration_numpy,
    value_iteration_values,
)

needs_numba = pytest.mark.skipif(not kernels.available(), reason=f"numba unavailable: {kernels.unavailable_reason()}")


def random_model(seed: int, *, n: int = 30, n_actions: int = 4, two_player: bool = False,
                 objective: str = "max", gamma: float = 0.9) -> TabularMDP:
    rng = np.random.default_rng(seed)
    terminal = np.flatnonzero(rng.random(n) < 0.15)
    src, act, dst, prob, rew = [], [], [], [], []
    for s in range(n):
        if s in terminal and rng.random() < 0.5:
            continue  # a terminal state without rows; the others keep rows that the solvers ignore
        acts = np.flatnonzero(rng.random(n_actions) < 0.6)
        if acts.size == 0:
            acts = np.array([rng.integers(n_actions)])
        for a in acts:
            k = int(rng.integers(1, 5))
            p = rng.random(k) + 0.1
            p /= p.sum()
            d = rng.integers(0, n, size=k)
            src += [s] * k
            act += [int(a)] * k
            dst += d.tolist()
            prob += p.tolist()
            rew += (rng.normal(size=k) * 3).tolist()
    mover = np.where(rng.random(n) < 0.5, 1, -1) if two_player else None
    return TabularMDP.from_transitions(n, n_actions, src, act, dst, prob, rew, discount=gamma,
                                       terminal=terminal, mover=mover, objective=objective)


MODELS = [
    dict(seed=1),
    dict(seed=2, two_player=True),
    dict(seed=3, objective="min"),
    dict(seed=4, two_player=True, objective="min", gamma=0.97),
    dict(seed=5, n=200, n_actions=6),
    dict(seed=6, n=3, n_actions=1),
]


@pytest.fixture(params=["cached-V", "gather-ahead"])
def sweep_kernel(request, monkeypatch):
    """Each version of the synchronous sweep kernel in turn: without the prefetch of V, and with it
    (models from GATHER_AHEAD_MIN_STATES states), forced on these small models, 3 transitions
    ahead (so the last prefetches of a sweep reach past the last transition: clamped). Only the
    folded kernel (above JACOBI_KERNEL_MAX_TRANSITIONS, forced by the tests that say so) prefetches:
    the small models' loop (mdpviz/solvers/sweep_loops.py) has no prefetch to force."""
    import importlib

    vi = importlib.import_module("mdpviz.solvers.value_iteration")
    if request.param == "gather-ahead":
        monkeypatch.setattr(vi, "GATHER_AHEAD_MIN_STATES", 0)
        monkeypatch.setattr(vi, "GATHER_AHEAD", 3)
    return request.param


def same_snapshot(a, b, *, exact: bool, prev: np.ndarray | None = None) -> None:
    """``a`` equals ``b`` (to rounding unless ``exact``; ``prev``: the values before this sweep)."""
    assert a.iteration == b.iteration
    if exact:
        assert np.array_equal(a.values, b.values)
        assert a.delta == b.delta
    else:
        assert np.allclose(a.values, b.values, rtol=0, atol=1e-12)
        assert a.delta == pytest.approx(b.delta, rel=1e-9, abs=1e-12)
    assert np.array_equal(a.policy, b.policy)
    if exact or prev is None or a.delta_state == b.delta_state:
        assert a.delta_state == b.delta_state
    else:  # two states changed by the same amount up to rounding: either may be reported
        d = np.abs(np.asarray(b.values) - prev)
        assert d[a.delta_state] == pytest.approx(d[b.delta_state], rel=1e-9, abs=1e-12)
    assert a.mean_delta == pytest.approx(b.mean_delta, rel=1e-9, abs=1e-12)
    assert np.array_equal(a.changed, b.changed)
    assert not a.values.flags.writeable and not a.policy.flags.writeable


@needs_numba
@pytest.mark.parametrize("opts", MODELS, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_jacobi_kernel_equals_numpy_reference(opts, sweep_kernel):
    mdp = random_model(**opts)
    fast = run(value_iteration(mdp, tol=1e-10, max_sweeps=400), record=True)
    ref = run(value_iteration_numpy(mdp, tol=1e-10, max_sweeps=400), record=True)
    assert fast.sweeps == ref.sweeps and fast.converged == ref.converged
    prev = np.zeros(mdp.n_states)
    for a, b in zip(fast.history, ref.history):
        same_snapshot(a, b, exact=False, prev=prev)
        prev = np.asarray(b.values)
    assert np.array_equal(fast.policy, ref.policy)


@needs_numba
@pytest.mark.parametrize("opts", MODELS + [dict(seed=8, n=3001, n_actions=3), dict(seed=9, n=1000, n_actions=2, gamma=0.99)],
                         ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_large_model_kernel_is_bit_identical_to_the_numpy_path(opts, monkeypatch, sweep_kernel):
    """Above JACOBI_KERNEL_MAX_TRANSITIONS the kernel folds gamma into P as the sparse numpy path
    does: every number of every snapshot, and the values-only path, bit for bit."""
    import importlib

    vi = importlib.import_module("mdpviz.solvers.value_iteration")

    monkeypatch.setattr(vi, "JACOBI_KERNEL_MAX_TRANSITIONS", 0)
    monkeypatch.setattr(vi, "DENSE_MAX_ENTRIES", 0)  # the numpy path's sparse product (scipy CSR)
    mdp = random_model(**opts)
    assert vi._jacobi_engine(mdp, np.zeros(mdp.n_states), 1e-9).folded
    fast = run(value_iteration(mdp, tol=1e-10, max_sweeps=400), record=True)
    ref = run(value_iteration_numpy(mdp, tol=1e-10, max_sweeps=400), record=True)
    assert fast.sweeps == ref.sweeps and fast.converged == ref.converged
    for a, b in zip(fast.history, ref.history):
        same_snapshot(a, b, exact=True)
        assert a.mean_delta == b.mean_delta
    batched = solve(mdp, "vi", tol=1e-10, max_sweeps=400)
    assert np.array_equal(batched.values, ref.values) and np.array_equal(batched.policy, ref.policy)
    only = value_iteration_values(mdp, tol=1e-10, max_sweeps=400)
    monkeypatch.setitem(kernels._state, "k", None)
    only_ref = value_iteration_values(mdp, tol=1e-10, max_sweeps=400)
    assert np.array_equal(only.values, only_ref.values) and np.array_equal(only.policy, only_ref.policy)
    assert only.sweeps == only_ref.sweeps and only.delta == only_ref.delta


@needs_numba
def test_pairwise_sum_replays_numpy():
    """The kernel's streamed sum of |change| is numpy's pairwise sum, bit for bit, at every size."""
    from mdpviz.solvers import _numba_kernels as nk

    rng = np.random.default_rng(3)
    for n in [*range(1, 300), 1000, 4097, 8192, 8193, 65_537, 100_000]:
        a = np.abs(rng.standard_normal(n)) * 10.0 ** rng.integers(-8, 8, n)
        leaves, cnt = np.empty(n // 32 + 2, np.int64), np.zeros(1, np.int64)
        nk.pairwise_leaves(n, leaves, cnt)
        ends = np.cumsum(leaves[: cnt[0]])
        assert ends[-1] == n
        sums = np.array([a[e - m : e].sum() for e, m in zip(ends, leaves[: cnt[0]])])  # numpy sums each block
        assert nk.pairwise_combine(n, sums, np.zeros(1, np.int64)) == a.sum(), n


@needs_numba
def test_one_compiled_signature_per_kernel():
    """warm_up compiles exactly the signatures the solvers use (no second compile on first solve)."""
    kernels.warm_up()
    k = kernels.kernels()
    before = {name: len(fn.signatures) for name, fn in k.items()}
    mdp = random_model(7)
    run(value_iteration(mdp, tol=1e-9))
    solve(mdp, "vi")
    value_iteration_values(mdp)
    solve(mdp, "gs")
    assert {name: len(fn.signatures) for name, fn in k.items()} == before


@needs_numba
@pytest.mark.parametrize("opts", MODELS, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_gauss_seidel_kernel_equals_state_by_state_reference(opts):
    mdp = random_model(**opts)
    fast = run(gauss_seidel_value_iteration(mdp, tol=1e-10, max_sweeps=400), record=True)
    ref = run(gauss_seidel_numpy(mdp, tol=1e-10, max_sweeps=400, block_size=1), record=True)
    assert fast.sweeps == ref.sweeps and fast.converged == ref.converged
    prev = np.zeros(mdp.n_states)
    for a, b in zip(fast.history, ref.history):
        same_snapshot(a, b, exact=False, prev=prev)
        prev = np.asarray(b.values)


@pytest.mark.parametrize("method", ["vi", "gs"])
@pytest.mark.parametrize("opts", MODELS[:4], ids=lambda o: str(o["seed"]))
def test_many_sweeps_per_step_change_no_number(method, opts):
    """solve() asks for many sweeps per snapshot; Step (next) and record=True get one: same numbers."""
    mdp = random_model(**opts)
    rec = solve(mdp, method, tol=1e-11, record=True)
    fast = solve(mdp, method, tol=1e-11)
    assert len(rec.history) == rec.sweeps == fast.sweeps
    assert np.array_equal(rec.values, fast.values) and np.array_equal(rec.policy, fast.policy)
    assert rec.delta == fast.delta
    # a generator driven with send(m) yields a subset of the recorded snapshots, identical to them
    gen = value_iteration(mdp, tol=1e-11) if method == "vi" else gauss_seidel_value_iteration(mdp, tol=1e-11)
    got = [next(gen)]
    try:
        while True:
            got.append(gen.send(7))
    except StopIteration as stop:
        sol = stop.value
    assert [s.iteration for s in got][:3] == [1, 8, 15]
    for s in got:
        same_snapshot(s, rec.history[s.iteration - 1], exact=True)
    assert np.array_equal(sol.values, rec.values) and sol.sweeps == rec.sweeps
    # and the values-only path (markovDecision's) ends in the same place
    if method == "vi":
        only = value_iteration_values(mdp, tol=1e-11)
        assert np.array_equal(only.values, rec.values) and np.array_equal(only.policy, rec.policy)
        _, rows = greedy(mdp, mdp.q_values(only.values))  # its policy is greedy in the final values
        assert np.array_equal(only.policy, rows_to_policy(mdp, rows))


@pytest.mark.parametrize("opts", MODELS[:4], ids=lambda o: str(o["seed"]))
def test_all_solvers_agree_with_the_kernels(opts):
    mdp = random_model(**opts)
    ref = solve(mdp, "vi", tol=1e-12, max_sweeps=100_000)
    gs = solve(mdp, "gs", tol=1e-12, max_sweeps=100_000)
    assert np.allclose(ref.values, gs.values, atol=1e-6, rtol=0)
    if not mdp.is_two_player:
        pi = solve(mdp, "pi")
        assert np.allclose(ref.values, pi.values, atol=1e-6, rtol=0)


def test_without_numba_the_numpy_reference_runs(monkeypatch):
    mdp = random_model(2, two_player=True)
    with_k = solve(mdp, "gs", tol=1e-11)
    monkeypatch.setitem(kernels._state, "k", None)
    assert not kernels.available()
    without = solve(mdp, "gs", tol=1e-11)
    assert np.allclose(with_k.values, without.values, atol=1e-9, rtol=0)
    assert np.array_equal(with_k.policy, without.policy)


def test_cache_dir_falls_back_when_nothing_is_writable(monkeypatch, tmp_path):
    # set first, so that the value _ensure_cache_dir writes is undone after the test: left behind, it sent
    # every later numba compile of this process to an empty cache (the checkers kernels took 10-25 s again)
    monkeypatch.setenv("NUMBA_CACHE_DIR", "")
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    monkeypatch.setattr(kernels, "_writable", lambda path: False)
    monkeypatch.setattr("tempfile.gettempdir", lambda: str(tmp_path))
    kernels._ensure_cache_dir()
    import os

    assert os.environ["NUMBA_CACHE_DIR"].startswith(str(tmp_path))


def test_cli_help_table_matches_the_registered_commands():
    """``main`` imports one command module; its stub table must say what the modules register."""
    from mdpviz.cli import COMMAND_HELP, build_parser

    full = build_parser()
    (action,) = [a for a in full._actions if a.__class__.__name__ == "_SubParsersAction"]
    registered = {ch.dest: ch.help for ch in action._choices_actions}
    assert registered == {name: help_text for name, (_, help_text) in COMMAND_HELP.items()}
    assert list(registered) == list(COMMAND_HELP)
    for name, (module, _) in COMMAND_HELP.items():
        one = build_parser(["--help", name])  # the top-level help lists every command
        (sub,) = [a for a in one._actions if a.__class__.__name__ == "_SubParsersAction"]
        assert set(sub.choices) == set(COMMAND_HELP)
        # A command without a top-level option before it never shows that list: no stubs are built.
        alone = build_parser([name, "--help"])
        (sub,) = [a for a in alone._actions if a.__class__.__name__ == "_SubParsersAction"]
        assert set(sub.choices) == {c for c, (m, _) in COMMAND_HELP.items() if m == module}


def tied_model(seed: int, *, n: int = 60, n_actions: int = 5, two_player: bool = False, objective: str = "max",
               gamma: float = 0.9) -> TabularMDP:
    """Exact ties and near-ties everywhere: rows copied within a state (in any order), rewards on a
    coarse grid, and copies nudged by less than the tie tolerance, so the lowest tied action is
    chosen among many and the first maximum is often not the lowest tied row."""
    rng = np.random.default_rng(seed)
    terminal = np.flatnonzero(rng.random(n) < 0.1)
    src, act, dst, prob, rew = [], [], [], [], []
    for s in range(n):
        base_d = rng.integers(0, n, size=2)
        base_r = float(rng.integers(-2, 3))
        for a in range(n_actions):
            if rng.random() < 0.5:  # a copy of the state's base row, maybe nudged below the tolerance
                d, p, r = base_d, [0.5, 0.5], base_r + float(rng.choice([0.0, 1e-14, -1e-14, 3e-13]))
            else:
                d, p, r = rng.integers(0, n, size=2), [0.25, 0.75], float(rng.integers(-2, 3))
            src += [s, s]
            act += [a, a]
            dst += [int(x) for x in d]
            prob += p
            rew += [r, r]
    mover = np.where(rng.random(n) < 0.5, 1, -1) if two_player else None
    return TabularMDP.from_transitions(n, n_actions, src, act, dst, prob, rew, discount=gamma,
                                       terminal=terminal, mover=mover, objective=objective)


@needs_numba
@pytest.mark.parametrize("folded", [False, True])
@pytest.mark.parametrize("opts", [dict(seed=11), dict(seed=12, two_player=True), dict(seed=13, objective="min"),
                                  dict(seed=14, n_actions=1), dict(seed=15, two_player=True, gamma=1.0)],
                         ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_kernel_tie_rule_equals_numpy_reference(opts, folded, monkeypatch, sweep_kernel):
    """The kernel's one-pass tie rule (first maximum, and the full rule only when a lower row may be
    within the tolerance) picks the same lowest tied action as the reference on models full of ties."""
    import importlib

    vi = importlib.import_module("mdpviz.solvers.value_iteration")
    if folded:
        monkeypatch.setattr(vi, "JACOBI_KERNEL_MAX_TRANSITIONS", 0)
        monkeypatch.setattr(vi, "DENSE_MAX_ENTRIES", 0)
    mdp = tied_model(**opts)
    fast = run(value_iteration(mdp, tol=1e-10, max_sweeps=60), record=True)
    ref = run(value_iteration_numpy(mdp, tol=1e-10, max_sweeps=60), record=True)
    assert fast.sweeps == ref.sweeps
    n_ties = 0
    prev = np.zeros(mdp.n_states)
    for a, b in zip(fast.history, ref.history):
        same_snapshot(a, b, exact=folded, prev=prev)
        prev = np.asarray(b.values)
    for s in range(mdp.n_states):  # the models do exercise the rule: many states with tied actions
        q = mdp.row_reward[mdp.state_ptr[s]:mdp.state_ptr[s + 1]] + mdp.discount * (
            mdp.matrix[mdp.state_ptr[s]:mdp.state_ptr[s + 1]] @ prev)
        n_ties += int(np.sum(np.abs(q - q.max()) <= 1e-9 * (1 + abs(q.max())))) > 1
    assert n_ties >= (0 if mdp.n_actions == 1 else 10)


@needs_numba
@pytest.mark.parametrize("batch", [1, 3])
def test_a_snapshot_kept_by_anyone_is_never_written_again(batch):
    """The engine writes a sweep into buffers of an earlier sweep only when nobody holds them or a
    view of them: every snapshot a caller keeps (whole, or only a view of its values or policy)
    still shows, after many more sweeps, exactly what it showed when it was yielded."""
    mdp = random_model(seed=21, n=300)
    gen = value_iteration(mdp, tol=0.0, max_sweeps=60)
    kept, views, seen = [], [], []
    i = 0
    try:
        snap = next(gen)
        while True:
            seen.append((snap.values.copy(), snap.policy.copy()))
            if i % 3 == 0:
                kept.append((i, snap))
            elif i % 3 == 1:
                views.append((i, snap.values[::2], snap.policy[1:]))
            i += 1
            snap = gen.send(batch)  # many sweeps per step too: the kernel's own second buffer is reused
    except StopIteration:
        pass
    assert len(seen) > 10 and kept and views
    distinct = {bytes(v) for v, _ in seen}
    assert len(distinct) == len(seen)  # the values move every step, so an overwrite would show
    for i, s in kept:
        assert np.array_equal(s.values, seen[i][0]) and np.array_equal(s.policy, seen[i][1])
    for i, v, p in views:
        assert np.array_equal(v, seen[i][0][::2]) and np.array_equal(p, seen[i][1][1:])
