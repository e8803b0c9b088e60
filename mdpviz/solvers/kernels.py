"""Compiled sweep kernels (numba): one pass per sweep that multiplies and reduces per state.

Each kernel backs up a state's rows (Bellman optimality backup, Sutton and Barto eq. 4.10,
``Q(s, a) = r(s, a) + gamma * sum_s' p(s' | s, a) V(s')``) and reduces them at once (max for
maximising states, min for minimising ones, ties within ``tie_tol * (1 + |best|)`` to the lowest
action, terminal states 0 and action -1), exactly the rule of
:func:`mdpviz.solvers.sweep.greedy`. While it goes it also gathers what a snapshot needs: the
largest change and where it happened, the summed change, and how many greedy actions changed.
So a sweep reads the model once (the memory floor of a sparse mat-vec) and costs one call, not
the 20-30 numpy calls of the vectorised reference in :mod:`mdpviz.solvers.value_iteration`.

``jacobi_sweeps`` and ``run_gauss_seidel`` do up to ``max_sweeps`` sweeps per call and stop after
the first sweep whose largest change is below ``tol``: the solvers call them with 1 for the
Step button and with many when nobody records every sweep; the arithmetic is the same.

numba is imported only when a kernel is first needed (``mdpviz --help`` and the policy-iteration
CLI never pay for it), and a small model's first sweeps do not need one: ``run_gauss_seidel`` and
``jacobi_small_sweeps`` are the plain Python loops of :mod:`mdpviz.solvers.sweep_loops`, compiled,
which :mod:`mdpviz.solvers.python_sweeps` runs in the interpreter until a process has done a budget
of work (the same numbers, bit for bit). :func:`available` is False when numba cannot be imported; the solvers
then use their numpy reference code, which gives the same answers, only slower. Kernels are
compiled with ``cache=True``; the cache goes next to this file, or (read-only install) to
numba's per-user cache directory, or to ``NUMBA_CACHE_DIR`` (set here to a temporary directory
when neither is writable). They release the GIL (``nogil=True``), so a solve on a worker thread
never holds up the window; :func:`warm_up` compiles (or loads) them ahead of first use.
"""
from __future__ import annotations

import os
import threading
import time
import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np

from mdpviz.core.mdp import read_only
from mdpviz.solvers import registry as _registry

_lock = threading.Lock()
_state: dict[str, Any] = {}
WARM_UP_SECONDS: dict[str, float] = {}
"""Seconds the last :func:`warm_up` spent per kernel (compiling, or loading from numba's cache)."""


def _writable(path: str) -> bool:
    try:
        os.makedirs(path, exist_ok=True)
    except OSError:
        return False
    return os.access(path, os.W_OK | os.X_OK)


def _ensure_cache_dir() -> None:
    """Point numba's cache at a writable place when neither the package dir nor the user cache is."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    here = os.path.dirname(os.path.abspath(__file__))
    if _writable(os.path.join(here, "__pycache__")):
        return
    user = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "numba")
    if _writable(user):
        return
    import tempfile

    os.environ["NUMBA_CACHE_DIR"] = os.path.join(tempfile.gettempdir(), f"mdpviz-numba-{os.getuid()}")


def _build() -> dict[str, Any]:
    _ensure_cache_dir()
    from mdpviz.solvers import _numba_kernels as nk  # ImportError -> no kernels: numpy reference

    return {"jacobi_sweeps": nk.jacobi_sweeps, "jacobi_small_sweeps": nk.jacobi_small_sweeps,
            "run_gauss_seidel": nk.run_gauss_seidel, "pairwise_blocks": nk.pairwise_blocks}


def kernels() -> dict[str, Any] | None:
    """The compiled kernels, or None if numba is not importable (then use the numpy reference)."""
    if "k" not in _state:
        with _lock:
            if "k" not in _state:
                if os.environ.get("MDPVIZ_NO_NUMBA"):
                    _state["k"] = None
                else:
                    try:
                        _state["k"] = _build()
                    except Exception as e:  # noqa: BLE001 - a broken numba install must not break solving
                        _state["k"] = None
                        _state["error"] = f"{type(e).__name__}: {e}"
    return _state["k"]


def available() -> bool:
    """True when the compiled kernels can be used."""
    return kernels() is not None


def ready() -> bool:
    """Whether a sweep can start without waiting for numba: the sweep kernels are compiled (or loaded
    from numba's cache) in this process, or there is nothing to wait for (numba missing or turned
    off). Never imports numba (the window asks it while the warm-up runs)."""
    if os.environ.get("MDPVIZ_NO_NUMBA"):
        return True
    if "k" not in _state:
        return False
    k = _state["k"]
    return k is None or all(k[name].signatures for name in SWEEP_KERNELS)


SWEEP_KERNELS = ("jacobi_sweeps", "jacobi_small_sweeps", "run_gauss_seidel")
"""The kernels :func:`warm_up` compiles (or loads) for the solvers."""


def expected() -> bool:
    """Whether :func:`kernels` will (as far as can be told without importing numba) give the kernels:
    not turned off by ``MDPVIZ_NO_NUMBA``, not failed already in this process, numba installed."""
    if os.environ.get("MDPVIZ_NO_NUMBA"):
        return False
    if "k" in _state:
        return _state["k"] is not None
    import importlib.util

    return importlib.util.find_spec("numba") is not None


def loaded() -> bool:
    """Whether this process has imported numba and the kernels' module already (the costly part of
    the first use: a later first call of a kernel only loads it from numba's cache). Never imports
    numba."""
    return _state.get("k") is not None


KERNEL_METHODS = frozenset(_registry.ids_where("solver", compiled=True))
"""The solver ids whose sweeps run in these kernels (the others: scipy, PuLP or numpy)."""

FIRST_COMPILE_S = "10-15 s"
"""How long numba takes to compile the sweep kernels the first time after installing (2-core
development machine; ``mdpviz bench`` prints it on a fresh cache)."""


def unavailable_reason() -> str:
    """Why the kernels are not used ("" when they are)."""
    kernels()
    if os.environ.get("MDPVIZ_NO_NUMBA"):
        return "MDPVIZ_NO_NUMBA is set"
    return _state.get("error", "")



def learning_loop() -> Any | None:
    """The compiled episode loop of the learners and their snapshot summary, ``(run_episodes, summarise)``
    (:mod:`mdpviz.solvers._numba_learning`), or None
    when numba is missing or turned off (then the learners run the same loop in Python)."""
    if kernels() is None:
        return None
    if "learn" not in _state:
        with _lock:
            if "learn" not in _state:
                try:
                    from mdpviz.solvers import _numba_learning as nl

                    _state["learn"] = (nl.run_episodes, nl.summarise)
                except Exception as e:  # noqa: BLE001 - a broken numba install must not break learning
                    _state["learn"] = None
                    _state["learn_error"] = f"{type(e).__name__}: {e}"
    return _state["learn"]

# ---------------------------------------------------------------------------- model arrays
class CompiledLoop:
    """A learner family's episode loop, written once (``python``: ``"module:function"``, the reference) and
    compiled by numba in its own module (``compiled``: ``"module:function"``), loaded once, thread-safely, on
    first use. :meth:`loop` is the compiled one or None (numba missing or turned off, or it failed: then
    :attr:`error` says why); :meth:`pick` chooses for a learner's ``compiled`` option."""

    def __init__(self, compiled: str, python: str, what: str) -> None:
        self._compiled, self._python, self.what = compiled, python, what
        self._lock = threading.Lock()
        self._state: dict[str, Any] = {}

    @property
    def error(self) -> str:
        """Why the compiled loop could not be loaded ("" when it could, or was not tried)."""
        return self._state.get("error", "")

    def loop(self) -> Any | None:
        """The compiled loop, or None."""
        if kernels() is None:
            return None
        if "loop" not in self._state:
            with self._lock:
                if "loop" not in self._state:
                    try:
                        self._state["loop"] = _function(self._compiled)
                    except Exception as e:  # noqa: BLE001 - a broken numba install must not break learning
                        self._state["loop"] = None
                        self._state["error"] = f"{type(e).__name__}: {e}"
        return self._state["loop"]

    def pick(self, compiled: bool | None) -> Any:
        """The loop a learner runs: compiled when available (``compiled`` None), compiled or a ValueError naming
        why not (True), the Python reference (False, or None without numba)."""
        if compiled is not False:
            loop = self.loop()
            if loop is not None:
                return loop
            if compiled:
                raise ValueError(f"compiled: the compiled {self.what} is unavailable: "
                                 + (unavailable_reason() or self.error or "numba could not compile it"))
        return _function(self._python)


def _function(entry: str) -> Any:
    import importlib

    module, _, attr = entry.partition(":")
    return getattr(importlib.import_module(module), attr)


@dataclass(frozen=True, eq=False)
class KernelModel:
    """A model's arrays in the one set of dtypes the kernels are compiled for (all read-only)."""

    indptr: np.ndarray
    """int32 (or int64 past 2**31 transitions): transitions of row r are indptr[r]:indptr[r+1]."""
    indices: np.ndarray
    """int32 (or int64): next state of each transition."""
    prob: np.ndarray
    """float64: probability of each transition."""
    row_reward: np.ndarray
    """float64 (n_rows): expected reward of each row."""
    state_ptr: np.ndarray
    """int64 (n_states + 1)."""
    row_action: np.ndarray
    """int64 (n_rows)."""
    sense: np.ndarray
    """int8 (n_states): +1 max, -1 min."""
    terminal: np.ndarray
    """bool (n_states)."""
    uindptr: np.ndarray
    """indptr seen as unsigned (uint32 or uint64; the same memory): numba checks no index read from
    it for a negative wrap-around (the shared loops of :mod:`mdpviz.solvers.sweep_loops` are
    compiled with these)."""
    uindices: np.ndarray
    """indices seen as unsigned, likewise."""
    gamma: float
    """Discount factor."""
    kind: np.ndarray
    """int8 (n_states): sense, or 0 where the value is 0 and the action -1 (terminal, or no rows)."""

    def args(self) -> tuple:
        return (self.indptr, self.indices, self.prob, self.row_reward, self.state_ptr, self.row_action,
                self.sense, self.terminal, self.gamma)

    def shared_args(self) -> tuple:
        """:meth:`args` with the index arrays unsigned: the arguments of the shared loops' kernels."""
        return (self.uindptr, self.uindices) + self.args()[2:]


_models: "weakref.WeakKeyDictionary[Any, KernelModel]" = weakref.WeakKeyDictionary()


def kernel_model(mdp) -> KernelModel:
    """The :class:`KernelModel` of a TabularMDP (cached per model; shares the CSR matrix's arrays if built)."""
    km = _models.get(mdp)
    if km is not None:
        return km
    small = mdp.n_transitions < 2**31 and mdp.n_states < 2**31
    m = mdp.__dict__.get("matrix")
    if m is not None and small and m.indices.dtype == np.int32 and m.indptr.dtype == np.int32:
        indptr, indices = m.indptr, m.indices
    else:
        it = np.int32 if small else np.int64
        indptr = np.asarray(mdp.row_ptr, dtype=it)
        indices = np.asarray(mdp.dst, dtype=it)
    indptr = read_only(np.ascontiguousarray(indptr))
    indices = read_only(np.ascontiguousarray(indices))
    unsigned = np.uint32 if indptr.dtype == np.int32 else np.uint64
    km = KernelModel(
        indptr=indptr,
        indices=indices,
        prob=read_only(np.ascontiguousarray(mdp.prob, dtype=np.float64)),
        row_reward=read_only(np.ascontiguousarray(mdp.row_reward, dtype=np.float64)),
        state_ptr=read_only(np.ascontiguousarray(mdp.state_ptr, dtype=np.int64)),
        row_action=read_only(np.ascontiguousarray(mdp.row_action, dtype=np.int64)),
        sense=read_only(np.ascontiguousarray(mdp.sense, dtype=np.int8)),
        terminal=read_only(np.ascontiguousarray(mdp.terminal, dtype=np.bool_)),
        uindptr=read_only(indptr.view(unsigned)),
        uindices=read_only(indices.view(unsigned)),
        gamma=float(mdp.discount),
        kind=read_only(np.where(np.asarray(mdp.terminal) | (np.diff(mdp.state_ptr) == 0), 0,
                                mdp.sense).astype(np.int8)),
    )
    _models[mdp] = km
    return km


def warm_up() -> dict[str, float]:
    """Compile (or load from numba's cache) every kernel on a tiny model; seconds per kernel.

    Call it off the GUI thread (the controller does, on its job thread). Empty if numba is missing.
    """
    t0 = time.perf_counter()
    k = kernels()
    WARM_UP_SECONDS.clear()
    if k is None:
        return {}
    WARM_UP_SECONDS["import numba"] = time.perf_counter() - t0
    from mdpviz.core.mdp import TabularMDP

    mdp = TabularMDP.from_transitions(2, 2, [0, 0, 0], [0, 1, 1], [1, 0, 1], [1.0, 0.5, 0.5], [1.0, 0.0, 2.0],
                                      discount=0.9, terminal=[1])
    km = kernel_model(mdp)
    v, pol = np.zeros(2), np.full(2, -1, np.int64)
    # without gather_ahead (None): only models from GATHER_AHEAD_MIN_STATES (2^19) states prefetch V,
    # and their first solve compiles that version (a few seconds, once per installation) on the
    # thread that solves them
    t = time.perf_counter()
    k["jacobi_sweeps"](*km.args()[:6], km.kind, 0.9, 1e-9, 0, False, True, 0.0, 2, v, pol, np.empty(2),
                       np.empty(2), np.empty(2, np.int64), np.empty(2, np.int64), np.empty(2, np.int64), np.zeros(5),
                       None, *k["pairwise_blocks"](2), False)
    WARM_UP_SECONDS["jacobi_sweeps"] = time.perf_counter() - t
    t = time.perf_counter()
    k["jacobi_small_sweeps"](*km.shared_args()[:6], km.kind, 0.9, 1e-9, 0, False, 0.0, 2, v, pol, np.empty(2),
                             np.empty(2), np.empty(2, np.int64), np.empty(2, np.int64), np.empty(2, np.int64),
                             np.zeros(5), False)
    WARM_UP_SECONDS["jacobi_small_sweeps"] = time.perf_counter() - t
    t = time.perf_counter()
    k["run_gauss_seidel"](*km.shared_args(), 1e-9, 0.0, 1, v, pol, np.empty(2), np.empty(2, np.int64), np.zeros(4),
                          np.empty(2))
    WARM_UP_SECONDS["run_gauss_seidel"] = time.perf_counter() - t
    return dict(WARM_UP_SECONDS)
