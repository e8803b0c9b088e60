"""``mdpviz export --game KEY [model options] [--set FIELD=VALUE ...] --out lesson.png
[--width 1600 --height 900]``: solve a game and write its lesson snapshot (board + convergence plot +
parameters) headless, at exactly that size, as PNG or SVG by the file's extension. ``--figure`` writes
the board, the convergence plot, the methods' comparison, the sweeps as an image sequence or a GIF, or the
whole lesson as one self-contained web page (``--figure html``, :mod:`mdpviz.lesson_page`) instead;
``--csv`` and ``--lesson`` write the results and the lesson text beside it.

The game is taken by the shared grammar of ``mdpviz solve`` (:mod:`mdpviz.commands.game_args`: every
game's model options, ``--set``), built and solved by the headless game
(:class:`~mdpviz.models.kit.game.game_model.Game`); a view of the game is built only to paint a figure that
shows the board (the figures are the window's own, :mod:`mdpviz.export`, painted offscreen).
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from mdpviz.commands import positive_float
from mdpviz.solvers import registry as methods

FIGURES = ("snapshot", "board", "convergence", "compare", "frames", "gif", "html")
"""What --figure writes: the lesson snapshot (default), the board, the convergence plot, the
methods' error curves overlaid, the board at every sweep as numbered PNG files, the same
sweeps as one animated GIF (``--out NAME.gif``), or the lesson as one self-contained web page
(``--out NAME.html``: :mod:`mdpviz.lesson_page`)."""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "export",
        help="write a game's lesson snapshot (board + convergence plot + parameters) as PNG or SVG",
        description="Solve a game with its defaults and write its lesson snapshot, headless, at exactly "
        "--width x --height pixels (PNG or SVG by the extension of --out).",
    )
    from mdpviz.commands.game_args import add_game_options
    from mdpviz.models.kit.game.registry import get, keys

    add_game_options(p, game_help=f"the game: {', '.join(k for k in keys() if not get(k).no_table)}")
    p.add_argument("--out", required=True,
                   help="the figure (.png or .svg); for --figure frames a folder or NAME.png (numbered files)")
    p.add_argument("--width", type=int, default=1600, help="width in pixels (default 1600)")
    p.add_argument("--height", type=int, default=900, help="height in pixels (default 900)")
    p.add_argument("--figure", choices=FIGURES, default="snapshot", help="what to write (default: snapshot)")
    p.add_argument("--max-sweeps", type=int, default=None, metavar="N",
                   help="with --figure html: the most sweeps the page keeps (default 200; a longer solve keeps "
                   "evenly spaced sweeps and the last, and the page says so)")
    learners = methods.ids("learner")
    p.add_argument("--method", choices=methods.game_choices() + learners + _not_on_a_page(), default=None, metavar="M",
                   help=f"solver: {', '.join(methods.game_choices())} (default: the game's own default, else synchronous "
                   f"value iteration); with --figure html also a learner: {', '.join(learners)} (its episodes, run "
                   "with the learning options below, as mdpviz learn runs them)")
    p.add_argument("--tol", type=positive_float, default=None, help="value-iteration tolerance (default: the game's, 1e-9)")
    p.add_argument("--csv", default=None,
                   help="also write the results as CSV: value and greedy action per state "
                   "(with --figure compare: the comparison table)")
    p.add_argument("--history", default=None,
                   help="also write every sweep of the solve as CSV (delta, mean delta, policy changes, time)")
    p.add_argument("--lesson", default=None, help="also write the lesson text: .md (Markdown) or .html")
    p.add_argument("--json", action="store_true", help="print what was written as JSON")
    from mdpviz.commands.learn import add_learner_options

    add_learner_options(p.add_argument_group("learning options (with --method a learner and --figure html; as mdpviz "
                                             "learn takes them; --seed seeds the episodes)"), required=False)
    p.set_defaults(func=run)


def _not_on_a_page() -> tuple[str, ...]:
    """The methods ``--method`` names only to refuse them in one line: their runs have no table of values per
    state and step for a page's board (function approximation, policy gradients, planning, bandits)."""
    return tuple(m for kind in NOT_ON_A_PAGE for m in methods.ids(kind))


NOT_ON_A_PAGE = {k: methods.KIND_WORDS[k] for k in methods.KINDS if k not in ("solver", "learner")}
"""The registry's kinds of method ``mdpviz export`` refuses, each in words (see :func:`_not_on_a_page`)."""


BOARD_FIGURES = ("snapshot", "board", "frames", "gif", "html")
"""The figures that show the board: the only ones for which a view of the game is built (to paint it)."""


def export_view(game):
    """The window view of ``game`` alone (only that game's view is built): a key (any spelling the registry
    accepts; the game's default settings), or a headless :class:`~mdpviz.models.kit.game.game_model.Game`, which
    the view then draws as it is (nothing is built again).

    ValueError naming the choices for an unknown key, or saying why a game has no table to export."""
    from mdpviz.models.kit.game import registry
    from mdpviz.widgets.games import view_class

    if isinstance(game, str):
        spec = registry.get(registry.canonical(game))
        if spec.no_table:
            raise ValueError(f"game {game!r} cannot be exported: {spec.no_table}")
        return view_class(spec.key)()
    from mdpviz.widgets.session import GameSession

    return view_class(game.key)(GameSession(game.spec, game=game))


def run(args: argparse.Namespace) -> int:
    from mdpviz import export as ex

    out = Path(args.out)
    width, height = ex.check_size(args.width, args.height)
    if args.figure == "frames":
        ex.sequence_paths(out, 1)  # checks the name before any work
    elif args.figure == "gif":
        ex.gif_path(out)
    elif args.figure == "html":
        from mdpviz.lesson_page import check_page_path

        check_page_path(out)
    else:
        ex.figure_format(out)
    if args.max_sweeps is not None:
        if args.figure != "html":
            raise ValueError("--max-sweeps applies to --figure html only")
        from mdpviz.lesson_page import check_limit

        check_limit(args.max_sweeps)
    if args.lesson and Path(args.lesson).suffix.lower() not in (".md", ".html", ".htm"):
        raise ValueError(f"--lesson {args.lesson}: write the lesson as .md or .html")
    if args.tol is not None and not args.tol > 0:
        raise ValueError(f"--tol must be a positive number, got {args.tol}")
    learning = _learning_options(args)
    outputs = [("--out", out, "figure")] if args.figure != "frames" else []
    outputs += [(flag, path, what) for flag, path, what in (("--csv", args.csv, "CSV"), ("--history", args.history,
                "history CSV"), ("--lesson", args.lesson, "lesson")) if path]
    for flag, path, what in outputs:  # every output checked before any work (no figure left beside an error)
        try:
            ex.check_writable(path, what)
        except ValueError as e:
            raise ValueError(f"{flag} {e}") from None
    from mdpviz.commands.game_args import headless_game_from_args
    from mdpviz.models.kit.game import registry

    try:
        key = registry.canonical(args.game)
    except ValueError:
        raise ValueError(f"unknown game {args.game!r}; choose one of {', '.join(registry.keys())}") from None
    if registry.get(key).no_table:
        raise ValueError(f"game {args.game!r} cannot be exported: {registry.get(key).no_table}")
    hg = headless_game_from_args(args)
    run_of = None  # (references, index in the run) of a learning run's kept episodes
    if learning is not None:  # a learner's episodes, those the page keeps (as the window's board draws them)
        from mdpviz.commands.learn import _say_compiling
        from mdpviz.lesson_page import LIMIT, learn_game

        solved, refs, at = learn_game(hg, args.method, learning, limit=args.max_sweeps or LIMIT, notify=_say_compiling)
        run_of = (refs, at)
    else:
        solved = ex.solve_game(hg, method=args.method, tol=args.tol)  # the numbers: the headless game's
    view = None
    if args.figure in BOARD_FIGURES:  # Qt paints the board (offscreen): only then is a view built
        ex.ensure_app()
        view = export_view(hg)
    from mdpviz.core.files import StagedFiles

    # every file is written under a temporary name in its folder and renamed into place only when all
    # were written: a failing command writes nothing (issue 35, item 20)
    with StagedFiles() as stage:
        try:
            _write_all(args, stage, hg, solved, view, out, width, height, run_of=run_of)
        except (ValueError, OSError) as e:  # name the files as given, not their temporary names
            raise ValueError(stage.final_names(str(e))) from None
        finally:
            if view is not None:
                view.deleteLater()
                from PySide6.QtCore import QCoreApplication, QEvent

                QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    return 0


def _write_all(args: argparse.Namespace, stage, hg, solved, view, out: Path, width: int, height: int, *,
               run_of: tuple | None = None) -> None:
    """Write the figure and the other outputs (staged by ``stage``, committed at the end), then print.
    ``run_of``: a learning run's (references, index in the run) of its kept episodes (:func:`~mdpviz.lesson_page.learn_game`)."""
    from mdpviz import export as ex

    mdp = solved.mdp
    comp = None
    staged = stage.path(out) if args.figure != "frames" else None
    if args.figure == "snapshot":
        ex.export_lesson_snapshot(view, solved, staged, width=width, height=height)
    elif args.figure == "board":
        ex.export_board(view, solved, staged, width=width, height=height)
    elif args.figure == "convergence":
        ex.export_convergence(solved, staged, width=width, height=height)
    elif args.figure == "compare":
        from mdpviz.solvers.compare import compare_methods

        start = int(hg.start_state())
        comp = compare_methods(mdp, tol=solved.tol or 1e-10, start=start, state_name=hg.state_name)
        ex.export_comparison_plot(comp, staged, width=width, height=height)
    elif args.figure == "gif":
        ex.export_sweep_gif(view, solved, staged, width=width, height=height)
    elif args.figure == "html":
        from mdpviz.lesson_page import LIMIT, write_page

        refs, at = run_of if run_of is not None else (None, None)
        write_page(view, solved, staged, limit=args.max_sweeps or LIMIT, command=_command(args), previous=refs, at=at)
    else:
        folder = out if not out.suffix else out.parent
        tmp = stage.folder(folder)
        ex.export_sweep_frames(view, solved, tmp / out.name if out.suffix else tmp, width=width, height=height)
    if args.csv:
        if comp is not None:
            from mdpviz.solvers.compare import comparison_csv

            text = comparison_csv(comp)
        else:
            sw = solved.history[-1]
            text = ex.solution_csv(mdp, np.asarray(sw.values), np.asarray(sw.policy), state_name=hg.state_name,
                                   action_name=hg.action_name)
        ex.write_text(stage.path(args.csv), text)
    if args.history:
        ex.write_text(stage.path(args.history), ex.convergence_csv(solved.history))
    if args.lesson:
        lesson = hg.lesson()
        text = lesson.markdown() if Path(args.lesson).suffix.lower() == ".md" else (
            f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{lesson.title}</title></head>"
            f"<body>{lesson.html()}</body></html>")
        ex.write_text(stage.path(args.lesson), text)
    written = stage.commit()  # all written: now every file takes its name
    last = solved.history[-1]
    s = int(hg.start_state())
    info = {
        "game": hg.key, "title": hg.title, "figure": args.figure, "files": [str(p) for p in written],
        "width": width, "height": height, "method": solved.method, "tol": solved.tol,
        "discount": mdp.discount, "sweeps": int(last.iteration), "snapshots": len(solved.history),
        "converged": bool(last.converged), "start_label": hg.state_name(s), "start_value": float(last.values[s]),
    }
    if comp is not None:
        info["agree"] = comp.agree
        info["summary"] = comp.summary
    if args.json:
        from mdpviz.cli import print_json

        print_json(info)
    else:
        from mdpviz.solvers import METHOD_NAMES

        unit = methods.get(solved.method).count_word
        if run_of is not None:
            print(f"{hg.title}: {methods.title(solved.method)}, a learning run of {info['sweeps']} episodes "
                  f"({info['snapshots']} on the page); learned V({info['start_label']}) = {info['start_value']:.10g}, "
                  f"largest error to the exact V {last.delta:.4g}")
        else:
            print(f"{hg.title}: {METHOD_NAMES[solved.method]}, {info['sweeps']} {unit}, "
                  f"{'converged' if info['converged'] else 'NOT converged'}; "
                  f"V({info['start_label']}) = {info['start_value']:.10g}")
        if comp is not None:
            print(comp.summary)
        kind = {"snapshot": "lesson snapshot", "board": "board", "convergence": "convergence plot",
                "compare": "comparison plot", "frames": "sweep image", "gif": "animated GIF",
                "html": "lesson page"}[args.figure]
        figs = [p for p in written if p.suffix.lower() in (".png", ".svg", ".gif", ".html", ".htm")]
        if args.figure == "gif":
            frames = len(ex.frame_indices(len(solved.history), ex.MAX_GIF_FRAMES))
            print(f"wrote {kind} {figs[0]} ({width} x {height}, {frames} frames, one per "
                  f"{'snapshot' if frames == len(solved.history) else 'sampled snapshot'})")
        elif args.figure == "html":
            print(f"wrote {kind} {figs[0]} ({figs[0].stat().st_size / 1e6:.2f} MB)")
        elif args.figure == "frames":
            print(f"wrote {len(figs)} {kind}s ({width} x {height} PNG): {figs[0]} .. {figs[-1]}")
        else:
            print(f"wrote {kind} {figs[0]} ({width} x {height} {figs[0].suffix[1:].upper()})")
        for p in written:
            if p.suffix.lower() not in (".png", ".svg", ".gif", ".html", ".htm"):
                print(f"wrote {p}")


def _learning_options(args: argparse.Namespace) -> dict | None:
    """The learner's options (:func:`~mdpviz.commands.learn.learner_options`) when ``--method`` is a tabular
    learner, else None; ValueError (one line) for a method no page draws, a learner with another figure or
    without ``--episodes``, a solver's option given to a learner, or a learner's option given to a solver."""
    from mdpviz.commands.learn import LEARNER_FLAGS, learner_options

    method = args.method
    kind = methods.get(method).kind if method is not None else "solver"
    if kind in NOT_ON_A_PAGE:
        raise ValueError(f"--method {method} ({NOT_ON_A_PAGE[kind]}): no table of values per state for the board to "
                         f"draw; export draws the solvers' sweeps ({', '.join(methods.game_choices())}) and, as a lesson "
                         f"page (--figure html), the tabular learners' episodes ({', '.join(methods.ids('learner'))})")
    if kind != "learner":
        given = [flag for flag in LEARNER_FLAGS if getattr(args, flag[2:].replace("-", "_")) not in (None, False)]
        if given:
            raise ValueError(f"{given[0]} applies to the learners ({', '.join(methods.ids('learner'))}, with --figure "
                             f"html), not {method or 'the solve'}")
        return None
    if args.figure != "html":
        raise ValueError(f"--method {method}: a learning run is exported as a lesson page only (--figure html), "
                         f"not --figure {args.figure}")
    for flag, value in (("--tol", args.tol), ("--history", args.history)):
        if value is not None:
            raise ValueError(f"{flag} applies to the solvers, not the learner {method}")
    if args.episodes is None:
        raise ValueError(f"--method {method} needs --episodes N (the episodes to learn from)")
    return learner_options(args)


def _command(args: argparse.Namespace) -> str:
    """The command that made a page, as the page shows it: ``mdpviz`` and the arguments it was given."""
    import shlex
    import sys

    argv = getattr(args, "argv", None)
    if argv is None:
        argv = sys.argv[1:]
    return "mdpviz " + shlex.join(str(a) for a in argv)
