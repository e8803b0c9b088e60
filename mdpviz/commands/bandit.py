"""``mdpviz bandit``: the k-armed testbed of Sutton and Barto chapter 2, and the exact answers beside it (issue 39).

The testbed (:mod:`mdpviz.solvers.bandits`)::

    mdpviz bandit --arms K [--bernoulli] [--mean M] [--drift SD] [--equal-start] [--prior A,B]
                  --method ID [--epsilon E] [--alpha A] [--initial Q0] [--c C] [--no-baseline]
                  [--prior-mean M0] [--prior-sd S0] --runs R --steps T [--seed S] [--no-regret] --json

prints ``average_reward`` and ``optimal_action`` (lists per step, averaged over the runs: figure 2.2), their
``average_reward_se``, the runs' ``total_reward`` and, for Bernoulli arms, ``regret`` per step: the Bayes-optimal
policy's expected reward at that step (the exact belief MDP over the same prior and horizon) minus the method's
average reward. A Bernoulli testbed whose belief MDP is over the budget is refused in one line naming ``--arms``
and ``--steps``, unless ``--no-regret`` says to skip the regret. Method ids come from the method registry (kind
"bandit"); a unique beginning of one is taken too (``--method gradient``). ``--study`` runs the parameter study
instead (figure 2.6: each method's average reward over the first ``--steps`` steps against its parameter on powers
of 2), printing ``parameter_study``.

The exact modes (``--exact``: the Bayes-optimal value and first actions; ``--gittins``: the Gittins index table)
are the options of :mod:`mdpviz.commands.bandit_exact` (issue 39's exact part): this module calls its
``add_exact_options(parser)`` when the parser is built and its ``run_exact(args)`` before the testbed (a dict is
that mode's answer; None: neither mode was asked). Options shared by both parts are added here first:
``--arms`` (default None: the testbed's 10; the exact modes choose their own), ``--bernoulli``, ``--prior`` (a
(float, float) tuple, :func:`prior_pair`), ``--seed`` (None when not given), ``--digits`` and ``--json``; an
option the exact part adds again is skipped (the first spelling wins), so the two modules never clash.

Bad input is one line, exit 2.
"""
from __future__ import annotations

import argparse
import math
import time
from typing import Any

from mdpviz.commands import finite_float, positive_int, seed as seed_type

ARMS = 10
"""The testbed's arms when ``--arms`` is not given (the book's 10-armed testbed)."""

OPTION_FLAGS: dict[str, str] = {
    "epsilon": "--epsilon",
    "alpha": "--alpha",
    "initial": "--initial",
    "c": "--c",
    "baseline": "--no-baseline",
    "prior_mean": "--prior-mean",
    "prior_sd": "--prior-sd",
}
"""A bandit method's parameter (its registry line's ``Param.name``) -> the option that sets it."""


def prior_pair(text: str) -> tuple[float, float]:
    """argparse type: ``A,B``, the Beta prior's two parameters, each a finite number above 0."""
    parts = [p.strip() for p in str(text).split(",")]
    try:
        a, b = (float(p) for p in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected A,B (two numbers above 0, the Beta prior), got {text!r}") from None
    if not all(math.isfinite(v) and v > 0 for v in (a, b)):
        raise argparse.ArgumentTypeError(f"expected A,B (two numbers above 0, the Beta prior), got {text!r}")
    return a, b


class _Shared:
    """The parser as the exact part sees it: an option already added here is not added again."""

    def __init__(self, parser: argparse.ArgumentParser) -> None:
        self._parser = parser

    def add_argument(self, *flags: str, **kwargs: Any) -> Any:
        taken = self._parser._option_string_actions  # argparse's own table of the options added so far
        if flags and all(f.startswith("-") for f in flags) and any(f in taken for f in flags):
            return taken[next(f for f in flags if f in taken)]
        return self._parser.add_argument(*flags, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._parser, name)


def _exact_hooks() -> Any:
    """The exact part's command module (:mod:`mdpviz.commands.bandit_exact`), None when this build lacks it."""
    try:
        from mdpviz.commands import bandit_exact
    except ImportError:
        return None
    return bandit_exact


def register(sub: argparse._SubParsersAction) -> None:
    from mdpviz.solvers import registry

    ids = ", ".join(registry.ids("bandit"))
    p = sub.add_parser(
        "bandit",
        help="the k-armed bandit testbed (Sutton and Barto ch. 2): curves, regret, the Bayes-optimal answer",
        description="The k-armed testbed: --runs runs of --steps pulls of one method, averaged per step (figure "
        "2.2); for Bernoulli arms the regret against the exact Bayes-optimal policy; --study: the parameter study "
        "(figure 2.6); the exact modes (--exact, --gittins) of the belief MDP and the Gittins index.",
    )
    p.add_argument("--arms", type=positive_int, default=None, metavar="K",
                   help=f"number of arms (default {ARMS} for the testbed)")
    p.add_argument("--bernoulli", action="store_true",
                   help="Bernoulli arms (p ~ Beta(--prior) per run) instead of Gaussian ones (q* ~ N(--mean, 1))")
    p.add_argument("--prior", type=prior_pair, default=None, metavar="A,B",
                   help="the Beta prior of the Bernoulli arms' success probabilities (default 1,1: uniform)")
    p.add_argument("--mean", type=finite_float, default=None, metavar="M",
                   help="mean of the Gaussian arms' true values (default 0; 4 in figure 2.5)")
    p.add_argument("--drift", type=finite_float, default=0.0, metavar="SD",
                   help="each true value takes an N(0, SD) step every step (exercise 2.5; default 0: stationary)")
    p.add_argument("--equal-start", action="store_true",
                   help="every true value starts equal (exercise 2.5), then drifts")
    p.add_argument("--method", default=None, metavar="ID",
                   help=f"the method (default {registry.ids('bandit')[0]}): {ids}; a unique beginning is enough")
    p.add_argument("--epsilon", type=finite_float, default=None, metavar="E", help="probability of a random arm")
    p.add_argument("--alpha", type=finite_float, default=None, metavar="A",
                   help="constant step size (epsilon-greedy, UCB: default sample averages; optimistic and gradient: 0.1)")
    p.add_argument("--initial", type=finite_float, default=None, metavar="Q0", help="initial estimates Q_1")
    p.add_argument("--c", type=finite_float, default=None, metavar="C", help="UCB's exploration constant (default 2)")
    p.add_argument("--no-baseline", action="store_true", help="the gradient bandit without its baseline")
    p.add_argument("--prior-mean", type=finite_float, default=None, metavar="M0",
                   help="Thompson sampling on Gaussian arms: the prior mean of each true value (default 0)")
    p.add_argument("--prior-sd", type=finite_float, default=None, metavar="S0",
                   help="Thompson sampling on Gaussian arms: the prior standard deviation (default 1)")
    p.add_argument("--runs", type=positive_int, default=2000, metavar="R", help="independent runs (default 2000)")
    p.add_argument("--steps", type=positive_int, default=1000, metavar="T", help="pulls per run (default 1000)")
    p.add_argument("--seed", type=seed_type, default=None, metavar="S", help="seed (default 0)")
    p.add_argument("--no-regret", action="store_true",
                   help="Bernoulli arms: skip the regret against the Bayes-optimal policy (needed past its budget)")
    p.add_argument("--study", action="store_true",
                   help="the parameter study (figure 2.6) instead of one method: each method's average reward over "
                   "the first --steps steps against its parameter on powers of 2")
    p.add_argument("--digits", type=int, default=4, help="decimals printed (default 4; --json prints all)")
    p.add_argument("--json", action="store_true", help="print JSON")
    hooks = _exact_hooks()
    if hooks is not None:
        hooks.add_exact_options(_Shared(p))
    p.set_defaults(func=run)


def resolve_method(text: str | None) -> str:
    """The bandit method ``text`` names: an id or alias of the registry's kind "bandit", or a unique beginning
    of one; ValueError naming ``--method`` and the choices."""
    from mdpviz.solvers import registry

    ids = registry.ids("bandit")
    if text is None:
        return ids[0]
    spec = registry.find(text)
    if spec is not None and spec.kind == "bandit":
        return spec.id
    starts = [m for m in ids if m.startswith(text)] if text else []
    if len(starts) == 1:
        return starts[0]
    why = f"is the beginning of {', '.join(starts)}" if starts else "is not a bandit method"
    raise ValueError(f"--method {text!r} {why}; choose one of {', '.join(ids)}")


def method_options(args: argparse.Namespace, method: str) -> dict[str, Any]:
    """The options given for ``method``; ValueError naming an option it does not take."""
    from mdpviz.solvers import registry

    spec = registry.get(method)
    given = {name: getattr(args, flag.removeprefix("--").replace("-", "_"))
             for name, flag in OPTION_FLAGS.items()}
    given["baseline"] = False if args.no_baseline else None
    out: dict[str, Any] = {}
    for name, value in given.items():
        if value is None:
            continue
        if not spec.takes(name):
            takes = ", ".join(OPTION_FLAGS.get(p.name, p.name) for p in spec.params) or "none of the method options"
            raise ValueError(f"{OPTION_FLAGS[name]} is not an option of --method {method} (it takes {takes})")
        out[name] = value
    return out


def testbed_of(args: argparse.Namespace) -> Any:
    from mdpviz.solvers.bandits import Testbed

    if args.bernoulli and args.mean is not None:
        raise ValueError("--mean is the Gaussian arms' mean; Bernoulli arms draw p from --prior")
    if not args.bernoulli and args.prior is not None:
        raise ValueError("--prior is the Bernoulli arms' Beta prior (add --bernoulli); Gaussian arms take --mean")
    return Testbed(arms=args.arms if args.arms is not None else ARMS, bernoulli=bool(args.bernoulli),
                   mean=0.0 if args.mean is None else args.mean, drift=args.drift,
                   prior=args.prior if args.prior is not None else (1.0, 1.0), equal_start=bool(args.equal_start))


def run(args: argparse.Namespace) -> int:
    from mdpviz.cli import print_json

    if not 0 <= args.digits <= 15:
        raise ValueError(f"--digits must be 0..15, got {args.digits}")
    hooks = _exact_hooks()
    out = hooks.run_exact(args) if hooks is not None else None
    if out is not None:
        if args.json:
            print_json(out)
        else:
            _print_exact(out, args.digits)
        return 0
    out = study_report(args) if args.study else testbed_report(args)
    if args.json:
        print_json(out)
    elif args.study:
        _print_study(out, args.digits)
    else:
        _print_testbed(out, args.digits)
    return 0


def _common(args: argparse.Namespace, tb: Any) -> dict[str, Any]:
    return {"arms": tb.arms, "bernoulli": tb.bernoulli, "arm_mean": None if tb.bernoulli else tb.mean,
            "prior": list(tb.prior) if tb.bernoulli else None, "drift": tb.drift, "runs": int(args.runs),
            "pulls": int(args.steps), "seed": 0 if args.seed is None else int(args.seed)}


def testbed_report(args: argparse.Namespace) -> dict[str, Any]:
    """The testbed's JSON object (the module docstring)."""
    from mdpviz.solvers import bandits, registry

    tb = testbed_of(args)
    method = resolve_method(args.method)
    opts = method_options(args, method)
    if args.no_regret and not tb.bernoulli:
        raise ValueError("--no-regret: regret is measured for Bernoulli arms only (add --bernoulli)")
    regret = tb.bernoulli and not args.no_regret
    if regret and tb.drift > 0:
        raise ValueError("--drift: regret is measured against the Bayes-optimal policy of stationary arms; "
                         "add --no-regret")
    bandits.check_size(tb, args.runs, args.steps)
    full = bandits.method_options(method, opts)
    t0 = time.perf_counter()
    res = bandits.run_testbed(method, tb, runs=args.runs, steps=args.steps,
                              seed=0 if args.seed is None else args.seed, regret=regret, **opts)
    seconds = time.perf_counter() - t0
    out = {"method": method, "method_name": registry.title(method), **_common(args, tb),
           "options": full, "average_reward": res.average_reward, "optimal_action": res.optimal_action,
           "average_reward_se": res.average_reward_se, "total_reward": res.total_reward,
           "total_reward_se": res.total_reward_se,
           "regret": None if res.regret is None else res.regret,
           "total_regret": None if res.regret is None else float(res.regret.sum()), "seconds": seconds}
    return out


def study_report(args: argparse.Namespace) -> dict[str, Any]:
    """The parameter study's JSON object (figure 2.6)."""
    from mdpviz.solvers import bandits

    tb = testbed_of(args)
    given = [flag for name, flag in OPTION_FLAGS.items()
             if (args.no_baseline if name == "baseline" else getattr(args, flag[2:].replace("-", "_"))) not in (None, False)]
    if args.method is not None or given:
        raise ValueError(f"--study sweeps each method's parameter itself; drop {(['--method'] if args.method else []) + given}"
                         .replace("[", "").replace("]", "").replace("'", ""))
    t0 = time.perf_counter()
    study = bandits.parameter_study(tb, runs=args.runs, steps=args.steps, seed=0 if args.seed is None else args.seed)
    curves = [{"method": c.method, "param": c.param, "param_values": c.values, "study_reward": c.average_reward,
               "study_reward_se": c.standard_error} for c in study.curves]
    return {**_common(args, tb), "parameter_study": curves, "seconds": time.perf_counter() - t0}


CHECKPOINTS = (1, 10, 100, 1000, 10_000, 100_000)
"""Steps at which the text output prints the curves (and the last step)."""


def _print_testbed(out: dict[str, Any], d: int) -> None:
    kind = (f"Bernoulli arms, p ~ Beta({out['prior'][0]:g}, {out['prior'][1]:g})" if out["bernoulli"]
            else f"Gaussian arms, q* ~ N({out['arm_mean']:g}, 1)")
    drift = f", drifting by N(0, {out['drift']:g}) per step" if out["drift"] else ""
    opts = ", ".join(f"{k} = {v}" for k, v in out["options"].items())
    print(f"{out['method_name']} ({opts or 'no options'}) on {out['arms']} {kind}{drift}: {out['runs']:,} runs "
          f"of {out['pulls']:,} steps, seed {out['seed']}")
    steps = out["pulls"]
    for t in sorted({t for t in CHECKPOINTS if t <= steps} | {steps}):
        line = (f"  step {t:>7,}: average reward {out['average_reward'][t - 1]:.{d}f} "
                f"(+- {_se(out['average_reward_se'][t - 1], d)}), optimal action {100 * out['optimal_action'][t - 1]:.1f}%")
        if out["regret"] is not None:
            line += f", regret {out['regret'][t - 1]:.{d}f}"
        print(line)
    print(f"total reward per run {out['total_reward']:.{d}f} (+- {_se(out['total_reward_se'], d)})"
          + ("" if out["total_regret"] is None else
             f"; total regret against the Bayes-optimal policy {out['total_regret']:.{d}f}"))


def _se(v: float | None, d: int) -> str:
    """A standard error as text ("n/a" for one run: no spread to measure)."""
    return "n/a" if v is None or not math.isfinite(v) else f"{v:.{d}f}"


def _print_study(out: dict[str, Any], d: int) -> None:
    print(f"parameter study: average reward over the first {out['pulls']:,} steps, {out['runs']:,} runs each")
    for c in out["parameter_study"]:
        pts = ", ".join(f"{x:g}: {y:.{d}f}" for x, y in zip(c["param_values"], c["study_reward"]))
        print(f"  {c['method']} ({c['param']}) {pts}")


def _print_exact(out: dict[str, Any], d: int) -> None:
    """The exact modes' answer as text (the exact part's own lines)."""
    print(_exact_hooks().exact_text(out, digits=d))


__all__ = ["ARMS", "OPTION_FLAGS", "method_options", "prior_pair", "register", "resolve_method", "run",
           "study_report", "testbed_of", "testbed_report"]
