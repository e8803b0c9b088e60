"""``mdpviz solve --game KEY [model options] [--set FIELD=VALUE ...] [--method M] [--sweeps K] [--json]``:
any game of the registry solved headless, by any of the solvers, to the end or for K sweeps.

The game and its settings are taken as every game-wide command takes them
(:mod:`mdpviz.commands.game_args`). Without ``--method`` the game is solved as its window solves it
first. ``--sweeps K`` stops after K steps of the method (sweeps of value iteration and evaluation,
rounds of policy iteration, single-state updates of asynchronous VI and prioritized sweeping) and prints
the values V_K, the greedy policy the method draws with them, and Q computed from the printed values
(Q_K(s, a) = sum_s' p (r + gamma V_K(s')), as CS188's "iteration K" table prints it). ``--policy
optimal|random|FILE`` evaluates a given policy (the method is then "evaluate" unless another is named).
``--json`` prints ``states`` (labels, the model's order), ``values``, ``policy`` (action labels, null
for terminal states), ``q`` (per state, action label -> Q), ``sweeps``, ``converged``, and with
``--history`` one entry per step. Bad input: one line, exit status 2.
"""
from __future__ import annotations

import argparse
import math
from pathlib import Path

from mdpviz.commands import check_seed, positive_float, positive_int
from mdpviz.commands.game_args import add_game_options

NOT_METHOD_IDS = {"q": "the JSON field of the Q table (Q per state and action)"}
"""Words of this module that are not method ids (the registry test's scan reads this declaration)."""

POLICY_FILE_BYTES = 64 << 20
"""A policy file is at most this long (one short line per state): a device file or a typo is refused."""


def register(sub: argparse._SubParsersAction) -> None:
    from mdpviz.solvers import registry

    p = sub.add_parser(
        "solve",
        help="any game, any solver: values, policy and Q per state (to the end or after K sweeps)",
        description="Solve any game of the registry headless and print its values, greedy policy and Q per "
        "state. The game's model options are those of its own command; --set FIELD=VALUE sets any "
        "settings field (JSON values, as a scenario file writes them).",
    )
    add_game_options(p, own_help={"--seed": "seed of --order random (default 0); with --game risk_ttt also of its "
                                  "noisy and random risk presets"})
    solvers = registry.specs("solver")
    evaluator = next((s.id for s in solvers if s.needs_policy), None)
    p.add_argument("--method", choices=[s.id for s in solvers], default=None,
                   help=f"the solver (default: the game's own first algorithm; '{evaluator}' with --policy): " +
                   "; ".join(f"{s.id} {s.title}" for s in solvers))
    p.add_argument("--sweeps", type=positive_int, default=None, metavar="K",
                   help="stop after K steps of the method and print V_K, its greedy policy and Q from V_K")
    p.add_argument("--policy", default=None, metavar="optimal|random|FILE",
                   help="the policy to evaluate: the optimal one, the equiprobable random one, or a file with "
                   "one action per state (its label or id; '-' for a terminal state)")
    p.add_argument("--order", default=None, metavar="index|random|S,S,...",
                   help=f"{_taking(registry, 'order')}'s update order: state index (default), random (with --seed), "
                   "or state ids")
    p.add_argument("--theta", type=positive_float, default=None, help="prioritized sweeping's threshold (> 0)")
    p.add_argument("--in-place", action="store_true", help="evaluate: Gauss-Seidel sweeps instead of synchronous ones")
    p.add_argument("--tol", type=positive_float, default=None,
                   help="the iterative methods' stopping tolerance (mpi and rvi: pymdptoolbox's epsilon)")
    p.add_argument("--ties", choices=("tolerance", "strict"), default=None,
                   help="the greedy policy's tie rule: Q within 1e-9 tie, lowest action (tolerance, default), or "
                   "the strict float maximum (CS188's computeActionFromValues)")
    p.add_argument("--q-from", choices=("previous", "current"), default=None,
                   help="vi/gs: a sweep's policy backs up from V_(k-1) (previous, default) or V_k (current: "
                   "CS188's iteration k)")
    p.add_argument("--sequence", choices=("standard", "aima"), default=None,
                   help="vi: aima = aima-python's value iteration (U_0 = 0, terminal U = R(s), stop when "
                   "delta <= E (1 - gamma) / gamma with E its --error-bound, the sweep before returned)")
    p.add_argument("--error-bound", type=positive_float, default=None, metavar="E",
                   help="--sequence aima: the largest error allowed in a state's value (AIMA's epsilon; default 0.001)")
    p.add_argument("--epsilon", type=positive_float, default=None, help=argparse.SUPPRESS)  # old spelling, see _epsilon
    p.add_argument("--action-order", default=None, metavar="A,A,...",
                   help="vi/gs: ties go to the first of these actions (labels or ids), e.g. east,north,west,south")
    p.add_argument("--distribution", action="store_true",
                   help="the exact distribution of the number of turns from the start under the policy found, "
                   "and of the return where it takes finitely many values")
    p.add_argument("--history", action="store_true", help="with --json: one entry per step (values and policy)")
    p.add_argument("--digits", type=int, default=6, help="decimals printed (default 6; --json prints all)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def _taking(registry, param: str) -> str:
    """The solvers that take ``param``, as "a" or "a/b"."""
    return "/".join(registry.ids_where("solver", takes=param))


def _only(registry, flag: str, param: str, method: str) -> None:
    """ValueError when ``method`` does not take ``param`` (given as ``flag``)."""
    if not registry.get(method).takes(param):
        raise ValueError(f"{flag} applies to --method {' or '.join(registry.ids_where('solver', takes=param))} only")


def read_policy(path: str, game) -> "list[int]":
    """Action ids per state from a policy file: one line per state, an action label or id, '-' for a
    terminal state (ValueError naming the file and line)."""
    import numpy as np

    from mdpviz.core.files import read_bytes_limited

    mdp = game.mdp
    raw = read_bytes_limited(Path(path), POLICY_FILE_BYTES, lambda text: ValueError(f"--policy {path}: {text}"),
                             what="policy file", stop_at_nul=True)
    if b"\0" in raw:
        raise ValueError(f"--policy {path}: not a text file")
    lines = [ln.strip() for ln in raw.decode("utf-8-sig", errors="replace").splitlines()]
    lines = [ln for ln in lines if ln and not ln.startswith("#")]
    if len(lines) != mdp.n_states:
        raise ValueError(f"{path}: {len(lines)} actions for {mdp.n_states} states (one line per state)")
    out = []
    for s, text in enumerate(lines):
        legal = [int(a) for a in mdp.actions_of(s)]
        if mdp.terminal[s] or not legal:
            out.append(legal[0] if legal else 0)
            continue
        names = {game.action_label(s, a): a for a in legal}
        if text in names:
            out.append(names[text])
            continue
        try:
            a = int(text)
        except ValueError:
            a = -1
        if a not in legal:
            raise ValueError(f"{path}: line {s + 1} (state {game.state_labels()[s]}): {text!r} is not a legal "
                             f"action there ({', '.join(names)})")
        out.append(a)
    return list(np.asarray(out, dtype=np.int64))


def solver_options(args: argparse.Namespace, game, method: str) -> dict:
    """The options the command gives ``method`` (ValueError for an option the method does not take)."""
    import numpy as np

    opts: dict = {}
    tol, bound = _epsilon(args, method)
    if tol is not None:
        opts["tol"] = tol
    if bound is not None:
        if getattr(args, "sequence", None) != "aima":
            raise ValueError("--error-bound applies to --sequence aima only (the other methods stop by --tol)")
        opts["epsilon"] = bound  # the solver's keyword: AIMA's epsilon
    for name in ("ties", "q_from", "sequence"):  # checked by the solver (one-line ValueErrors)
        if getattr(args, name, None) is not None:
            opts[name] = getattr(args, name)
    if getattr(args, "action_order", None) is not None:
        opts["action_order"] = [int(a) if a.strip().isdigit() else a.strip() for a in args.action_order.split(",")]
    from mdpviz.solvers import registry

    spec = registry.get(method)
    if args.order is not None:
        _only(registry, "--order", "order", method)
        order = args.order.strip()
        if order not in ("index", "random"):
            try:
                order = [int(x) for x in order.split(",") if x.strip()]
            except ValueError:
                raise ValueError(f"--order: index, random, or state ids separated by commas, got {args.order!r}") from None
        opts["order"] = order
    if spec.needs_start:
        opts["start"] = int(game.start_state())  # (RTDP: the game's start, --set start=K where the game has one)
    if spec.takes("seed") and args.seed is not None:
        opts["seed"] = check_seed(args.seed)
    if args.theta is not None:
        _only(registry, "--theta", "theta", method)
        opts["theta"] = args.theta
    if args.in_place:
        _only(registry, "--in-place", "in_place", method)
        opts["in_place"] = True
    if args.policy is not None:
        _only(registry, "--policy", "policy", method)
        if args.policy == "random":
            opts["policy"] = "random"
        elif args.policy == "optimal":
            from mdpviz.solvers import solve

            opts["policy"] = np.asarray(solve(game.mdp, registry.exact_solver()).policy, dtype=np.int64).clip(min=0)
        else:
            opts["policy"] = np.asarray(read_policy(args.policy, game), dtype=np.int64)
    return opts


def _epsilon(args: argparse.Namespace, method: str) -> tuple[float | None, float | None]:
    """(--tol, --error-bound) with the old ``--epsilon`` read as the one it meant for ``method`` (issue 35,
    item 21: "epsilon" named three things): AIMA's error bound with ``--sequence aima``, the stopping
    tolerance of mpi and rvi (pymdptoolbox's epsilon, their ``tol``). ValueError when it means neither, or
    when it is given beside the option it stands for with another value."""
    from mdpviz.solvers import registry

    tol, bound, old = args.tol, getattr(args, "error_bound", None), getattr(args, "epsilon", None)
    if old is None:
        return tol, bound
    if getattr(args, "sequence", None) == "aima":
        if bound is not None and bound != old:
            raise ValueError(f"--epsilon ({old:g}) is the old spelling of --error-bound ({bound:g}); give one")
        return tol, old
    if registry.get(method).tol_as == "epsilon":
        if tol is not None and tol != old:
            raise ValueError(f"--epsilon ({old:g}) is {method}'s --tol ({tol:g}); give one")
        return old, bound
    takes = "/".join(registry.ids_where("solver", tol_as="epsilon"))
    raise ValueError(f"--epsilon applies to --sequence aima (now --error-bound) and --method {takes} (their --tol) "
                     f"only, not {method}; the learners' exploration epsilon is mdpviz learn's --epsilon")


def _q_table(game, values) -> list[dict[str, float]]:
    import numpy as np

    mdp = game.mdp
    q = mdp.q_values(np.asarray(values, dtype=np.float64))
    out = []
    for s in range(mdp.n_states):
        lo, hi = int(mdp.state_ptr[s]), int(mdp.state_ptr[s + 1])
        if mdp.terminal[s]:
            out.append({})
            continue
        out.append({game.action_label(s, int(a)): float(q[r]) for r, a in zip(range(lo, hi), mdp.row_action[lo:hi])})
    return out


def _policy_labels(game, policy) -> list[str | None]:
    return [None if game.mdp.terminal[s] or int(a) < 0 else game.action_label(s, int(a)) for s, a in enumerate(policy)]


def solve_steps(mdp, method: str, opts: dict, sweeps: int | None, *, history: bool = False):
    """(last snapshot, the snapshots kept, the generator's Solution or None) of ``method`` on ``mdp``,
    stopped after ``sweeps`` steps when given."""
    from mdpviz.solvers import solver

    gen = solver(mdp, method, **opts)
    kept, last, solution = [], None, None
    while True:
        try:
            snap = next(gen)
        except StopIteration as stop:
            solution = stop.value
            break
        if sweeps is not None and snap.iteration > sweeps:
            gen.close()
            break
        last = snap
        if history:
            kept.append(snap)
    return last, kept, solution


def solution_after(mdp, method: str, opts: dict, sweeps: int):
    """The :class:`~mdpviz.solvers.Solution` of ``method`` stopped after ``sweeps`` steps (or at its end)."""
    from mdpviz.solvers import Solution

    last, _kept, _solution = solve_steps(mdp, method, opts, sweeps)
    if last is None:
        raise ValueError(f"{method} made no step")
    return Solution(method, last.values, last.policy, int(last.iteration), bool(last.converged), float(last.delta),
                    float(last.elapsed))


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from mdpviz.cli import print_json
    from mdpviz.commands.game_args import game_from_args
    from mdpviz.solvers import registry

    if not 0 <= args.digits <= 15:
        raise ValueError(f"--digits must be 0..15, got {args.digits}")
    if args.history and not args.json:
        raise ValueError("--history applies to --json output only")
    game = game_from_args(args)
    default_method, default_opts = game.solve_defaults()
    evaluator = registry.ids_where("solver", needs_policy=True)[0]
    method = args.method or (evaluator if args.policy is not None else default_method)
    opts = dict(default_opts) if method == default_method and args.method is None else {}
    opts.update(solver_options(args, game, method))
    if opts.get("sequence") == "aima" and args.tol is None:
        opts.pop("tol", None)  # the game's default tolerance: AIMA's sequence stops by its error bound instead
    last, kept, solution = solve_steps(game.mdp, method, opts, args.sweeps, history=args.history)
    if last is None:
        raise ValueError(f"{registry.title(method)} made no step")
    if args.sweeps is None and solution is not None:
        values, policy, steps, converged = solution.values, solution.policy, int(solution.sweeps), bool(solution.converged)
    else:
        values, policy, steps, converged = last.values, last.policy, int(last.iteration), bool(last.converged)
    if not np.all(np.isfinite(values)):
        raise ValueError(f"{registry.title(method)} gave values that are not finite (rewards too large for floating "
                         "point, or a policy that never ends at discount 1)")
    mdp = game.mdp
    labels = game.state_labels()
    start = game.start_state()
    out = {
        "game": game.key, "method": method, "method_name": registry.title(method), "objective": mdp.objective,
        "discount": float(mdp.discount), "sweeps": steps, "converged": converged, "start": start,
        "start_label": labels[start], "start_value": float(values[start]),
        "states": labels, "values": [float(v) for v in values], "policy": _policy_labels(game, policy),
        "q": _q_table(game, values),
    }
    if solution is not None and solution.gain is not None and args.sweeps is None:
        out["gain"] = float(solution.gain)
    visited = getattr(last, "visited", None)
    if visited is not None:  # (RTDP: the states it backed up; the others keep their optimistic start)
        out["visited"] = [bool(x) for x in visited]
        out["trajectories"] = int(last.iteration)
    if args.history:
        out["history"] = [{"sweep": int(s.iteration), "phase": s.phase, "delta": _finite(s.delta),
                           "values": [float(v) for v in s.values], "policy": _policy_labels(game, s.policy),
                           **({"updated": [int(x) for x in s.updated]} if s.updated else {})} for s in kept]
    endless = _evaluated_never_ends(mdp, method, opts)
    if endless is not None:
        out["never_ends"] = [bool(x) for x in endless]
    dist = None
    if args.distribution:
        from mdpviz.solvers.distribution import turn_distribution

        from mdpviz.solvers.distribution import return_distribution

        dist = turn_distribution(mdp, np.asarray(policy), start)
        out.update(distribution_json(dist))
        rdist = return_distribution(mdp, np.asarray(policy), start)
        out["return_distribution"] = return_distribution_json(rdist)
    if args.json:
        print_json(out)
        return 0
    d = args.digits
    words = ("trajectory", "trajectories") if registry.get(method).unit == "trajectory" else ("step", "steps")
    stop = f"after {steps} {words[steps != 1]}" + ("" if converged else " (not converged)")  # (RTDP: trajectories)
    print(f"{game.spec.title}: {registry.title(method)}, {stop}; discount {mdp.discount:g}, "
          f"{'minimise' if mdp.objective == 'min' else 'maximise'}; V({labels[start]}) = {values[start]:.{d}f}")
    width = min(40, max(len(x) for x in labels))
    for s, (name, v, a) in enumerate(zip(labels, values, out["policy"])):
        print(f"{name:<{width}}  {v:>{d + 8}.{d}f}  {'' if a is None else a}")
    if endless is not None:
        from mdpviz.solvers.endless import name_states

        n = int(endless.sum())
        print(f"the evaluated policy never ends from {n} state{'s' if n != 1 else ''}: "
              f"{name_states(mdp, np.flatnonzero(endless))} (a loop that collects no reward: worth 0)")
    if dist is not None:
        print(distribution_line(dist, labels[start]))
        print(return_distribution_line(rdist, labels[start], digits=d))
    return 0


def _evaluated_never_ends(mdp, method: str, opts: dict):
    """bool (n_states) of the states from which the evaluated deterministic policy never ends, when it is
    evaluated at discount 1 and loops somewhere (a loop that collects nothing: evaluation gave it 0); else None."""
    import numpy as np

    pol = opts.get("policy")
    from mdpviz.solvers import registry

    if not registry.get(method).needs_policy or mdp.discount < 1.0 or not isinstance(pol, np.ndarray) or pol.ndim != 1:
        return None
    from mdpviz.solvers.endless import never_ends

    endless = never_ends(mdp, np.where(mdp.terminal, -1, pol))
    return endless if endless.any() else None


def distribution_json(dist) -> dict:
    """The JSON fields of an exact turn distribution (see :mod:`mdpviz.solvers.distribution`)."""
    return {"distribution": [float(x) for x in dist.probabilities], "tail": float(dist.tail),
            "never": float(dist.never), "distribution_counts": dist.counts, "distribution_mean": dist.mean(),
            "median": dist.quantile(0.5), "quantile_90": dist.quantile(0.9)}


def return_distribution_json(dist) -> dict:
    """The JSON fields of an exact return distribution: ``values`` ascending and their
    ``probabilities``, ``tail`` (games not ended when the levels stopped), ``never``, ``mean``,
    ``median``, ``quantile_10``, ``quantile_90`` and ``stopped`` (why the values were not all listed)."""
    return {"values": [float(x) for x in dist.values], "probabilities": [float(x) for x in dist.probabilities],
            "tail": float(dist.tail), "never": float(dist.never), "moves": int(dist.moves), "mean": dist.mean(),
            "median": dist.quantile(0.5), "quantile_10": dist.quantile(0.1), "quantile_90": dist.quantile(0.9),
            "stopped": dist.stopped}


def return_distribution_line(dist, start: str, *, digits: int = 6) -> str:
    """One line: the exact return distribution's size, mean, median and 10%/90% quantiles, its most
    likely values, and what it leaves (or why it is not listed)."""
    if dist.never >= 1.0:
        return f"from {start} the policy never reaches a terminal state: no distribution of the return"
    if dist.stopped:
        return f"return from {start}: {dist.stopped} ({dist.tail:.3g} of the mass not listed)"

    def q(x: float | None) -> str:
        return "-" if x is None else f"{x:.{digits}g}"

    import numpy as np

    top = np.argsort(-dist.probabilities, kind="stable")[:3]
    likely = ", ".join(f"P({dist.values[i]:.{digits}g}) = {dist.probabilities[i]:.4f}" for i in top)
    text = (f"return from {start} (exact): {dist.values.size} value{'s' if dist.values.size != 1 else ''}, "
            f"mean {dist.mean():.{digits}g}, median {q(dist.quantile(0.5))}, 10%-90% {q(dist.quantile(0.1))} to "
            f"{q(dist.quantile(0.9))}; most likely {likely}")
    return text + (f"; tail {dist.tail:.3g}" if dist.tail > 0 else "")


def distribution_line(dist, start: str) -> str:
    """One line: the exact distribution's mean, median, 90% quantile and the mass it leaves."""
    if dist.never >= 1.0:
        return f"from {start} the policy never reaches a terminal state: no distribution of {dist.counts}"
    med, q90 = dist.quantile(0.5), dist.quantile(0.9)
    text = (f"{dist.counts} to the end from {start} (exact): mean {dist.mean():.4f}, median "
            f"{'-' if med is None else med}, 90% within {'-' if q90 is None else q90}")
    if dist.never > 0:
        text += f"; never ends with probability {dist.never:.6g}"
    return text + f"; tail beyond {dist.probabilities.size - 1}: {dist.tail:.3g}"


def _finite(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None
