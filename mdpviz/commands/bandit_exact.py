"""The exact modes of ``mdpviz bandit``: ``--exact`` (the Bayes-optimal value of a Bernoulli bandit) and
``--gittins`` (a table of Gittins indices). The command itself lives in :mod:`mdpviz.commands.bandit`, which
calls :func:`add_exact_options` on its parser and :func:`run_exact` before its testbed::

    mdpviz bandit --bernoulli --arms 2 --horizon 8 --prior 1,1 --exact --json     # value, first_action
    mdpviz bandit --gittins --discount 0.9 --max-count 10 --json                  # index over (a, b)

``--exact`` solves the belief MDP of :mod:`mdpviz.solvers.bandit_exact` by backward induction and prints
``value`` (the Bayes-optimal expected total reward from the prior), ``first_action`` (every optimal first
arm, numbered from 1 as the game's actions "pull arm 1" ..) and ``reward_per_step``. ``--gittins`` prints
``index`` (a list per a = 1..N of the indices for b = 1..N), with ``a`` and ``b`` the axes, ``depth`` (the
look-ahead) and ``error_bound`` (the truncation's bound gamma^depth / (1 - gamma)). Bad input is one
line (ValueError; the command line makes it exit 2).
"""
from __future__ import annotations

import argparse
import time
from typing import Any

from mdpviz.commands import positive_int

DEFAULT_ARMS = 2
"""``--exact``'s arms when ``--arms`` is not given."""
DEFAULT_HORIZON = 8
"""``--horizon``'s default: 2 arms over 8 pulls is 495 beliefs."""
DEFAULT_DISCOUNT_EXACT = 1.0
"""The exact mode's default discount (total reward over the horizon)."""
DEFAULT_DISCOUNT_GITTINS = 0.9
"""The Gittins mode's default discount (Gittins' table)."""
DEFAULT_MAX_COUNT = 10
"""``--max-count``'s default: a and b in 1..10."""


def _has(parser: argparse.ArgumentParser, flag: str) -> bool:
    return flag in parser._option_string_actions  # noqa: SLF001 (argparse keeps no public index of its flags)


def add_exact_options(parser: argparse.ArgumentParser) -> None:
    """Add the exact modes' options to ``mdpviz bandit``'s parser (each only if the parser lacks it, so
    the testbed's own ``--arms``, ``--bernoulli`` or ``--prior``, when it has them, are the ones used)."""
    group = parser.add_argument_group("exact answers (Bernoulli arms with a Beta prior)")
    group.add_argument("--exact", action="store_true",
                       help="the Bayes-optimal value and first arm of --arms Bernoulli arms over --horizon pulls, "
                       "by backward induction on the belief MDP")
    group.add_argument("--gittins", action="store_true",
                       help="the Gittins index of Beta(a, b) arms at --discount, a table over a, b = 1..--max-count")
    if not _has(parser, "--arms"):
        group.add_argument("--arms", type=positive_int, default=None, metavar="K",
                           help=f"number of arms (--exact: default {DEFAULT_ARMS})")
    if not _has(parser, "--bernoulli"):
        group.add_argument("--bernoulli", action="store_true", help="Bernoulli arms (the exact modes' only kind)")
    if not _has(parser, "--horizon"):
        group.add_argument("--horizon", type=positive_int, default=None, metavar="T",
                           help=f"--exact: pulls in all (default {DEFAULT_HORIZON})")
    if not _has(parser, "--prior"):
        group.add_argument("--prior", default=None, metavar="A,B",
                           help="every arm's success probability is a priori Beta(A, B) (default 1,1: uniform)")
    if not _has(parser, "--discount"):
        group.add_argument("--discount", type=float, default=None, metavar="G",
                           help=f"discount per pull (--exact: default {DEFAULT_DISCOUNT_EXACT:g}; --gittins: in (0, 1), "
                           f"default {DEFAULT_DISCOUNT_GITTINS:g})")
    group.add_argument("--max-count", type=positive_int, default=None, metavar="N",
                       help=f"--gittins: the table's a and b run over 1..N (default {DEFAULT_MAX_COUNT})")
    group.add_argument("--depth", type=positive_int, default=None, metavar="D",
                       help="--gittins: pulls looked ahead (default: enough for an index within 1e-6)")
    group.add_argument("--index-method", choices=("calibration", "restart"), default="calibration",
                       help="--gittins: calibration (bisection on a retirement reward) or restart (Katehakis-Veinott "
                       "restart-in-state, by policy iteration); default calibration")


def parse_prior(text: object) -> tuple[float, float]:
    """``--prior``'s "A,B" (or a pair already) as two numbers > 0, else a one-line ValueError naming it."""
    from mdpviz.solvers.bandit_exact import check_prior

    if text is None:
        return (1.0, 1.0)
    if isinstance(text, str):
        parts = [p.strip() for p in text.split(",")]
        try:
            pair = [float(p) for p in parts]
        except ValueError:
            raise ValueError(f"--prior must be two numbers A,B > 0, got {text!r}") from None
        return check_prior(pair)
    return check_prior(text)  # type: ignore[arg-type]


def run_exact(args: argparse.Namespace) -> dict[str, Any] | None:
    """The result of ``--exact`` or ``--gittins`` as a dict of JSON keys (None when neither was given).
    ValueError, one line naming the option, on bad input."""
    exact, gittins = bool(getattr(args, "exact", False)), bool(getattr(args, "gittins", False))
    if not exact and not gittins:
        return None
    if exact and gittins:
        raise ValueError("--exact and --gittins are two modes: give one")
    from mdpviz.solvers import bandit_exact as be

    t0 = time.perf_counter()
    prior = parse_prior(getattr(args, "prior", None))
    discount = getattr(args, "discount", None)
    if exact:
        if getattr(args, "max_count", None) is not None or getattr(args, "depth", None) is not None:
            raise ValueError("--max-count and --depth belong to --gittins, not --exact")
        horizon = DEFAULT_HORIZON if getattr(args, "horizon", None) is None else args.horizon
        g = be.check_discount(DEFAULT_DISCOUNT_EXACT if discount is None else discount)
        arms = getattr(args, "arms", None)
        arms = DEFAULT_ARMS if arms is None else arms  # (the testbed's --arms defaults to None: its own 10)
        n = be.check_belief_size(arms, horizon)
        bo = be.bayes_optimal(int(arms), int(horizon), prior=prior, discount=g)
        return {"method": "bayes-optimal exact", "arms": bo.arms, "horizon": bo.horizon, "prior": list(bo.prior),
                "discount": bo.discount, "n_states": n, "value": bo.value,
                "first_action": [a + 1 for a in bo.first_action], "reward_per_step": bo.reward_per_step.tolist(),
                "seconds": time.perf_counter() - t0}
    if getattr(args, "horizon", None) is not None:
        raise ValueError("--horizon belongs to --exact, not --gittins")
    g = be.check_discount(DEFAULT_DISCOUNT_GITTINS if discount is None else discount, strict=True)
    m = DEFAULT_MAX_COUNT if getattr(args, "max_count", None) is None else args.max_count
    if m > 100:
        raise ValueError(f"--max-count must be at most 100, got {m}")
    depth = getattr(args, "depth", None)
    depth = be.truncation_depth(g) if depth is None else depth
    method = getattr(args, "index_method", "calibration")
    table = be.gittins_table(g, m, method=method, depth=depth)
    return {"method": f"gittins {method}", "discount": g, "depth": int(depth),
            "error_bound": be.truncation_error(g, depth), "a": list(range(1, m + 1)), "b": list(range(1, m + 1)),
            "index": table.tolist(), "seconds": time.perf_counter() - t0}


def exact_text(result: dict[str, Any], *, digits: int = 4) -> str:
    """``run_exact``'s result as the lines a terminal shows (the --json flag prints the dict itself)."""
    if "value" in result:
        arms = ", ".join(str(a) for a in result["first_action"])
        lines = [f"Bernoulli bandit, {result['arms']} arms, Beta({result['prior'][0]:g}, {result['prior'][1]:g}) prior, "
                 f"{result['horizon']} pulls, discount {result['discount']:g}: {result['n_states']:,} beliefs",
                 f"Bayes-optimal expected total reward: {result['value']:.{digits}f}",
                 f"Bayes-optimal first pull: arm {arms}" if len(result["first_action"]) == 1
                 else f"Bayes-optimal first pull: any of arms {arms} (tied)",
                 "expected reward per pull: " + " ".join(f"{r:.{digits}f}" for r in result["reward_per_step"])]
        return "\n".join(lines)
    a, b = result["a"], result["b"]
    width = digits + 3
    head = "a\\b".rjust(4) + " " + " ".join(str(x).rjust(width) for x in b)
    rows = [str(x).rjust(4) + " " + " ".join(f"{v:.{digits}f}".rjust(width) for v in row)
            for x, row in zip(a, result["index"])]
    return "\n".join([f"Gittins index of Beta(a, b) arms at discount {result['discount']:g} ({result['method']}, "
                      f"{result['depth']} pulls ahead, truncation error at most {result['error_bound']:.1e})",
                      head, *rows])


__all__ = ["DEFAULT_ARMS", "DEFAULT_HORIZON", "DEFAULT_MAX_COUNT", "add_exact_options", "exact_text", "parse_prior", "run_exact"]
