"""``mdpviz learn --game KEY --method M --episodes N [options] [--json]``: learning from experience, headless.

Any game of the registry with a table (its model options as its own command takes them, see
:mod:`mdpviz.commands.game_args`) is learned by one of the registry's learners (:mod:`mdpviz.solvers.registry`),
the model used only as a simulator, and the result is set beside the exact answer solved by the
project's own solver: V* for control, V of the evaluated policy for prediction. ``--json`` prints
``method``, ``episodes``, ``updates``, ``seconds`` (learning time only: the episode loop, without the exact
solve, the curve's snapshots and evaluations, or the compile), ``compile_seconds`` (compiling the loop, or
loading it from numba's cache, on its first use in the process; 0 when it was loaded already or with
``--python``), ``seconds_with_curve`` (the whole run: learning, snapshots and evaluations),
``states`` (labels, the model's order), ``values`` (learned V per state; control: the greedy value of
Q), ``q`` (per state, action label -> learned Q; control), ``policy`` (learned greedy action label
per state, null when terminal; control), ``exact``, ``rms_error``, ``max_error``, ``greedy_agreement``
(control), ``policy_value`` (the exact value of the learned greedy policy from the start; control)
and ``curve`` (a list of {episode, rms_error, return}: every ``--every`` episodes, the return
averaged over those episodes; control adds ``greedy_agreement``, and ``policy_value`` every
``--eval-every`` episodes and at the last). Bad input: one line, exit status 2.

``mdpviz bench learn`` (:mod:`mdpviz.commands.bench_learn`) measures this command as the user runs it.
"""
from __future__ import annotations

import argparse
import math
import time

from mdpviz.commands import check_seed, learn_approx, learn_dyna, learn_pg, positive_int
from mdpviz.commands.game_args import add_game_options

NOT_METHOD_IDS = {"q": "the JSON field of the learned Q table"}
"""Words of this module that are not method ids (the registry test's scan reads this declaration)."""

INITIAL_LIMIT = 1e15
"""Largest magnitude of ``--initial``: an optimistic start is a few times the largest value; past about
1e15 adding a reward of 1 no longer changes a float64 sum, and squares in the error overflow."""

CURVE_POINTS = 100
"""Points of the JSON curve when ``--every`` is not given (one per episodes // 100 episodes)."""

EVAL_POINTS = 10
"""Most curve points with the learned greedy policy's exact value when ``--eval-every`` is not given (each
is a linear solve of the model: on a 10,000-state model about as long as 200,000 updates; issue 35, item 22)."""

EVAL_BUDGET = 20.0
"""When ``--eval-every`` is not given, a curve point's evaluation is skipped unless 20 evaluations' worth of
updates (:func:`~mdpviz.solvers.learning.evaluation_cost`) were learned since the last one, so the evaluations
cost at most about a twentieth of the learning time (the last episode is always evaluated)."""


def _unit(flag: str):
    def parse(text: str) -> float:
        try:
            v = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number in [0, 1], got {text!r}") from None
        if not 0.0 <= v <= 1.0:
            raise argparse.ArgumentTypeError(f"expected a number in [0, 1], got {text!r}")
        return v
    return parse


def register(sub: argparse._SubParsersAction) -> None:
    from mdpviz.solvers import registry

    predict = registry.ids_where("learner", prediction=True)
    control = registry.ids_where("learner", prediction=False)
    p = sub.add_parser(
        "learn",
        help="learn any game from experience (TD, Monte Carlo, SARSA, Q-learning) beside its exact answer",
        description="Learn any game of the registry from sampled episodes (the model used only as a simulator) "
        "and compare with the exact answer: TD(0), n-step TD and Monte Carlo (first or every visit) predict V of a policy; "
        "Monte Carlo control, SARSA, Expected SARSA, Q-learning and Double Q-learning learn Q. The game's model "
        "options are those of its own command; --set FIELD=VALUE sets any settings field.",
    )
    add_game_options(p, own_help={"--seed": "seed of the episodes: every random number of the learner (default 0); "
                                  "with --game risk_ttt also of its noisy and random risk presets"})
    approx, pg, plan = registry.ids("approximation"), registry.ids("policy-gradient"), registry.ids("planning")
    p.add_argument("--method", required=True, choices=registry.ids("learner") + approx + pg + plan,
                   help=f"{', '.join(predict)} (prediction); {', '.join(control)} (control); with linear function "
                   f"approximation (--features): {', '.join(approx)}"
                   + (f"; policy gradients (--features, --alpha-theta, --alpha-w): {', '.join(pg)}" if pg else "")
                   + (f"; planning with a learned model (--planning-steps, --kappa): {', '.join(plan)}" if plan else ""))
    add_learner_options(p, required=True)
    p.add_argument("--every", type=positive_int, default=None, metavar="K",
                   help=f"a curve point every K episodes (default: episodes / {CURVE_POINTS})")
    p.add_argument("--eval-every", type=positive_int, default=None, metavar="K",
                   help=f"control: the learned greedy policy's exact value every K episodes and at the last (default: "
                   f"at most every {CURVE_POINTS // EVAL_POINTS}th curve point, where the learning since the last "
                   f"evaluation took at least {EVAL_BUDGET:g} times as long as one: counted in updates, not timed)")
    p.add_argument("--python", action="store_true", help="run the Python reference loop, not the compiled one")
    p.add_argument("--digits", type=int, default=4, help="decimals printed (default 4; --json prints all)")
    p.add_argument("--json", action="store_true", help="print JSON")
    learn_approx.add_options(p)
    learn_pg.add_options(p)
    learn_dyna.add_options(p)
    p.set_defaults(func=run)


LEARNER_FLAGS = ("--episodes", "--alpha", "--epsilon", "--epsilon-decay", "--epsilon-min", "--n", "--policy",
                 "--exploring-starts", "--initial", "--max-steps", "--visits")
"""The options :func:`add_learner_options` adds (a command that runs solvers too refuses them for a solver)."""


def add_learner_options(p: argparse.ArgumentParser, *, required: bool = True) -> None:
    """The options of the tabular learners (:func:`learner_options` reads them): ``mdpviz learn``'s, and
    ``mdpviz export``'s for the lesson page of a learning run (there ``--episodes`` is asked for only when
    ``--method`` is a learner: ``required=False``)."""
    p.add_argument("--episodes", type=positive_int, required=required, default=None, metavar="N",
                   help="episodes to run" + ("" if required else " (required with a learner)"))
    p.add_argument("--alpha", default=None, metavar="A|1/n|1/n^w",
                   help="step size: a constant in (0, 1], 1/n (sample average) or 1/n^w (default: 1/n for "
                   "mc and mc-control, 0.1 for the others)")
    p.add_argument("--epsilon", type=_unit("--epsilon"), default=None,
                   help="probability of a random action (control; default 0.1)")
    p.add_argument("--epsilon-decay", type=_unit("--epsilon-decay"), default=None, metavar="D",
                   help="epsilon is multiplied by D after each episode (default 1: constant)")
    p.add_argument("--epsilon-min", type=_unit("--epsilon-min"), default=None, help="epsilon's floor (default 0)")
    p.add_argument("--n", type=positive_int, default=None, help="steps of n-step TD (--method nstep; default 1)")
    p.add_argument("--policy", choices=("optimal", "random"), default=None,
                   help="the policy prediction evaluates (td0, nstep, mc; default optimal)")
    p.add_argument("--exploring-starts", action="store_true",
                   help="control: each episode starts in a random state with a random first action")
    p.add_argument("--initial", type=float, default=None, help="initial value of every entry (high: optimistic)")
    p.add_argument("--max-steps", type=positive_int, default=None, metavar="M",
                   help="cap on the steps of an episode (default 1000)")
    p.add_argument("--visits", choices=("first", "every"), default=None,
                   help="Monte Carlo (mc, mc-control): update at the first visit of each state (or pair) in an "
                   "episode, or at every visit (default first)")


def learner_options(args: argparse.Namespace) -> dict:
    """The options of :func:`~mdpviz.solvers.learning.learner` the command line gives (ValueError for an
    option the method does not take)."""
    from mdpviz.solvers import registry
    from mdpviz.solvers.learning import parse_alpha

    method = args.method
    spec = registry.get(method)
    opts: dict = {"episodes": args.episodes}
    if args.alpha is not None:
        a, w = parse_alpha(args.alpha)
        opts.update(alpha=a, alpha_power=w)
    control_only = {"--epsilon": args.epsilon, "--epsilon-decay": args.epsilon_decay,
                    "--epsilon-min": args.epsilon_min, "--exploring-starts": args.exploring_starts or None}
    for flag, value in control_only.items():
        if value is not None and not spec.takes(flag[2:].replace("-", "_")):
            raise ValueError(f"{flag} applies to the control methods only "
                             f"({', '.join(registry.ids_where('learner', takes='epsilon'))}), not {method}")
    if args.policy is not None and not spec.takes("policy"):
        raise ValueError(f"--policy applies to the prediction methods only "
                         f"({', '.join(registry.ids_where('learner', takes='policy'))}), not {method}")
    if args.visits is not None and not spec.takes("visits"):
        raise ValueError(f"--visits applies to --method {' or '.join(registry.ids_where('learner', takes='visits'))} "
                         f"only, not {method}")
    if args.n is not None and not spec.takes("n"):
        raise ValueError(f"--n applies to --method {' or '.join(registry.ids_where('learner', takes='n'))} only, "
                         f"not {method}")
    if args.initial is not None and not (math.isfinite(args.initial) and abs(args.initial) <= INITIAL_LIMIT):
        raise ValueError(f"--initial must be a finite number between -{INITIAL_LIMIT:g} and {INITIAL_LIMIT:g}, got "
                         f"{args.initial:g} (beyond that a reward no longer changes the sum: float64 keeps 15-16 "
                         "digits)")
    for name in ("epsilon", "epsilon_decay", "epsilon_min", "n", "policy", "initial", "max_steps", "visits"):
        v = getattr(args, name)
        if v is not None:
            opts[name] = v
    if args.exploring_starts:
        opts["exploring_starts"] = True
    if args.seed is not None:
        opts["seed"] = check_seed(args.seed)
    return opts


def run(args: argparse.Namespace) -> int:
    from mdpviz.cli import print_json
    from mdpviz.commands.game_args import game_from_args
    from mdpviz.solvers import check_value_scale, registry
    from mdpviz.solvers import start as start_method
    from mdpviz.solvers.learning_warmup import prepare_loop

    if not 0 <= args.digits <= 15:
        raise ValueError(f"--digits must be 0..15, got {args.digits}")
    opts = learner_options(args)
    every = args.every or max(1, args.episodes // CURVE_POINTS)
    if not learn_dyna.is_planning(args.method):
        learn_dyna.check_not_planning(args)
    if learn_pg.is_policy_gradient(args.method):
        for flag, value in (("--expected", args.expected or None), ("--beta", args.beta), ("--behaviour", args.behaviour)):
            if value is not None:
                raise ValueError(f"{flag} applies to the approximation methods, not {args.method}")
        out = learn_pg.run_pg(args, opts, every=every)
        if args.json:
            print_json(out)
        else:
            learn_pg.print_text(out, args.digits)
        return 0
    learn_pg.check_not_policy_gradient(args)
    if learn_dyna.is_planning(args.method):
        for flag, value in (("--expected", args.expected or None), ("--beta", args.beta), ("--behaviour", args.behaviour),
                            ("--features", args.features)):
            if value is not None:
                raise ValueError(f"{flag} applies to the approximation methods, not {args.method}")
        out = learn_dyna.run_dyna(args, opts, every=args.every)
        if args.json:
            print_json(out)
        else:
            learn_dyna.print_text(out, args.digits)
        return 0
    if learn_approx.is_approximation(args.method):
        out = learn_approx.run_approx(args, opts, every=every)
        if args.json:
            print_json(out)
        else:
            learn_approx.print_text(out, args.digits)
        return 0
    learn_approx.check_not_approximation(args)
    game = game_from_args(args)
    mdp = game.mdp
    check_value_scale(mdp)  # rewards of 1e307: the exact values (and the learned ones) would overflow
    start = game.start_state()
    eval_every = args.eval_every or every * max(1, CURVE_POINTS // EVAL_POINTS)
    # the generator checks every option and the start first (ValueError: one line), then the loop is compiled:
    # a bad input is never preceded by the "compiling" line, however long loading numba's cache takes
    gen = start_method(args.method, mdp, start=start, batch=every, eval_every=eval_every,
                       eval_budget=0.0 if args.eval_every else EVAL_BUDGET,
                       compiled=False if args.python else None, **opts)
    compile_seconds = 0.0 if args.python else prepare_loop(notify=_say_compiling)
    curve, last = [], None
    t0 = time.perf_counter()
    for snap in gen:
        last = snap
        curve.append({"episode": snap.episode, "rms_error": snap.rms_error,
                      "return": sum(snap.returns) / len(snap.returns),
                      **({} if snap.policy_value is None else {"policy_value": _finite(snap.policy_value)}),
                      **({} if math.isnan(snap.greedy_agreement) else {"greedy_agreement": snap.greedy_agreement})})
    wall = time.perf_counter() - t0
    _check_finite(last, args)
    labels = game.state_labels()
    control = last.q is not None
    out = {
        "game": game.key, "method": args.method, "method_name": registry.title(args.method), "episodes": last.episode,
        "updates": last.updates, "seconds": last.learning_seconds, "compile_seconds": compile_seconds,
        "seconds_with_curve": wall,
        "objective": mdp.objective, "discount": float(mdp.discount), "start": start, "start_label": labels[start],
        "seed": opts.get("seed", 0), "states": labels, "values": [float(v) for v in last.values],
        "exact": [float(v) for v in last.exact.values], "visits": [int(v) for v in last.visits],
        "rms_error": last.rms_error, "max_error": last.max_error,
    }
    if control:
        out["q"] = _q_table(game, last.q)
        out["policy"] = [None if mdp.terminal[s] or a < 0 else game.action_label(s, int(a))
                         for s, a in enumerate(last.policy)]
        out["greedy_agreement"] = last.greedy_agreement
        out["policy_value"] = _finite(last.policy_value)
        out["exact_start_value"] = float(last.exact.values[start])
    out["curve"] = curve
    if args.json:
        print_json(out)
        return 0
    _print_text(game, last, out, args.digits)
    return 0


def _say_compiling(seconds: float) -> None:
    """The line on stderr while numba compiles the learning loop (its first use on this installation)."""
    import sys

    print(f"compiling the learning loop (first use, about {seconds:.0f} s)...", file=sys.stderr, flush=True)


def _check_finite(last, args: argparse.Namespace) -> None:
    """ValueError naming the cause when a learned number is not finite (issue 35, item 14): nothing that
    overflowed is printed as a result, as text or as JSON."""
    import numpy as np

    parts = {"values": last.values, "Q": last.q, "RMS error": [last.rms_error], "largest error": [last.max_error]}
    bad = [name for name, a in parts.items() if a is not None and not np.all(np.isfinite(np.asarray(a, dtype=float)))]
    if bad:
        cause = f"--initial {args.initial:g}" if args.initial is not None else "the rewards' scale"
        raise ValueError(f"the learned {' and '.join(bad)} overflowed (not finite) after {last.episode} "
                         f"episodes, from {cause}; lower --initial or scale the rewards down")


def _q_table(game, q) -> list[dict[str, float]]:
    mdp = game.mdp
    table = []
    for s in range(mdp.n_states):
        lo, hi = int(mdp.state_ptr[s]), int(mdp.state_ptr[s + 1])
        table.append({} if mdp.terminal[s] else
                     {game.action_label(s, int(mdp.row_action[r])): float(q[r]) for r in range(lo, hi)})
    return table


def _finite(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


def _print_text(game, last, out: dict, d: int) -> None:
    mdp = game.mdp
    control = last.q is not None
    print(f"{game.spec.title}: {out['method_name']}, {out['episodes']} episodes, {out['updates']:,} updates in "
          f"{out['seconds']:.3f} s; discount {mdp.discount:g}, {'minimise' if mdp.objective == 'min' else 'maximise'}")
    what = "V*" if control else "V of the evaluated policy"
    line = f"error to {what} over non-terminal states: RMS {out['rms_error']:.{d}f}, max {out['max_error']:.{d}f}"
    if control:
        line += f"; greedy action optimal in {out['greedy_agreement']:.1%} of them"
        pv = out["policy_value"]
        line += (f"; learned greedy policy from {out['start_label']}: {pv:.{d}f} (optimal {out['exact_start_value']:.{d}f})"
                 if pv is not None else "; the learned greedy policy never ends")
    print(line)
    labels = out["states"]
    width = min(40, max(len(x) for x in labels))
    print(f"{'state':<{width}}  {'learned':>{d + 8}}  {'exact':>{d + 8}}  {'visits':>8}" + ("  greedy action" if control else ""))
    optimal = last.exact.optimal
    for s, name in enumerate(labels):
        row = f"{name:<{width}}  {last.values[s]:>{d + 8}.{d}f}  {last.exact.values[s]:>{d + 8}.{d}f}  {last.visits[s]:>8}"
        if control and not mdp.terminal[s]:
            a = int(last.policy[s])
            ok = bool(optimal[mdp.row_of(s, a)])
            row += f"  {out['policy'][s]}" + ("" if ok else "  (not optimal)")
        print(row)
