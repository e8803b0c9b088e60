"""What `mdpviz plan --algorithm hpi` imports (issue 15: the whole process < 0.5 s on a course file).

Timing-free guards of the start-up cost: a fresh interpreter runs the command and reports which of
the heavy modules it loaded. On a course file `plan` evaluates policies with dense numpy arrays and
LAPACK (``linear_solver="lapack"``), so it needs numpy only: importing scipy.sparse alone costs more
than numpy (its array-API layer imports numpy.f2py, numpy.testing, numpy.ma, ...).
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

NOT_ON_THE_PLAN_PATH = (
    "scipy",  # dense evaluation; reachability is a numpy breadth-first search (policy_iteration._reaches_terminal)
    "numba", "pulp", "threadpoolctl",  # value-iteration kernels, linear programming, large solves
    "PySide6", "pyqtgraph", "matplotlib", "gymnasium",
    "mdpviz.commands.bench", "mdpviz.commands.snakes", "mdpviz.models.kit.game.registry",  # other commands
)

CODE = """
import contextlib, io, json, sys
from mdpviz.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    status = main(["plan", "--algorithm", "hpi", "--mdp", "episodic-mdp-10-5.txt"])
print(json.dumps({"status": status, "lines": out.getvalue().count(chr(10)), "modules": sorted(sys.modules)}))
"""


def test_plan_hpi_loads_no_module_it_does_not_use():
    res = subprocess.run([sys.executable, "-c", CODE], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    got = json.loads(res.stdout.strip().splitlines()[-1])
    assert got["status"] == 0 and got["lines"] == 10  # one 'V pi' line per state: the command did run
    loaded = set(got["modules"])
    bad = sorted(m for m in loaded if any(m == n or m.startswith(n + ".") for n in NOT_ON_THE_PLAN_PATH))
    assert not bad, f"mdpviz plan --algorithm hpi imported {bad}"


def test_a_large_file_still_uses_scipys_sparse_lu(tmp_path):
    """Above LAPACK_MAX_STATES the plan path is the sparse one (scipy imported, dense never built)."""
    from mdpviz.core.cs747 import save_cs747
    from mdpviz.core.mdp import TabularMDP
    from mdpviz.solvers.policy_iteration import LAPACK_MAX_STATES

    n = LAPACK_MAX_STATES + 1
    s = list(range(n - 1))
    mdp = TabularMDP.from_transitions(n, 1, s, [0] * (n - 1), [x + 1 for x in s], [1.0] * (n - 1), [1.0] * (n - 1),
                                      discount=1.0, terminal=[n - 1], mdptype="episodic")
    path = tmp_path / "chain.txt"
    save_cs747(mdp, path)
    code = CODE.replace('"episodic-mdp-10-5.txt"', repr(str(path)))
    res = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    got = json.loads(res.stdout.strip().splitlines()[-1])
    assert got["status"] == 0 and got["lines"] == n
    assert "scipy.sparse.linalg" in got["modules"]
