"""``mdpviz export-model --game KEY [model options] [--set FIELD=VALUE ...] --format drn|prism --out PATH``:
any game's model written for the probabilistic model checkers (Storm's DRN, PRISM's explicit files), with
the property that gives mdpviz's values in ``PATH`` with ``.props`` in place of its suffix.

The game and its settings are taken as every game-wide command takes them
(:mod:`mdpviz.commands.game_args`); the formats are :mod:`mdpviz.core.modelcheck`'s. State i of the
files is state i of the model (the order ``mdpviz solve --json`` prints); the game's start state is
labelled ``init``, its terminal states ``done``. Where Storm's semantics cannot give mdpviz's values, one
line on stderr says so (and the properties file in a comment). Bad input: one line, exit status 2.
"""
from __future__ import annotations

import argparse
import sys

from mdpviz.commands.game_args import add_game_options


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "export-model",
        help="write a game's model for Storm (DRN) or PRISM (explicit files), with the property giving mdpviz's values",
        description="Write any game's model as Storm's DRN file or PRISM's explicit files (.tra .sta .lab "
        ".trew), and beside it PATH.props: one property per line, the first giving mdpviz's values. The "
        "game's model options are those of its own command; --set FIELD=VALUE sets any settings field.",
    )
    add_game_options(p)
    p.add_argument("--format", choices=("drn", "prism"), default=None,
                   help="drn: Storm's one-file format; prism: PRISM's explicit files, named PATH with .tra .sta "
                   ".lab .trew (default: from PATH's suffix)")
    p.add_argument("--out", required=True, metavar="PATH", help="the file to write (e.g. model.drn)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from mdpviz.commands.game_args import game_from_args
    from mdpviz.core import modelcheck
    from mdpviz.core.files import check_writable

    fmt = args.format or modelcheck.format_of(args.out)
    paths = modelcheck.export_paths(args.out, fmt)
    for p in paths:
        check_writable(p, "model")  # before the game is built: a typo in the folder costs nothing
    game = game_from_args(args)
    mdp = game.mdp
    modelcheck.check_exportable(mdp)
    start = game.start_state()
    mdp = modelcheck.named_model(mdp, lambda s: game.spec.names.state_name(game.context, s), game.action_label)
    written = modelcheck.write_model(mdp, args.out, fmt, start=start, title=game.spec.title)
    prop = modelcheck.model_property(mdp)
    print(f"wrote {', '.join(str(p) for p in written)}")
    n_done = int(mdp.terminal.sum())
    print(f"{mdp.n_states:,} states ({n_done:,} terminal: done), {mdp.n_rows:,} state-action pairs; "
          f"start state {start} (init)")
    print(f"property giving mdpviz's values: {prop.text}")
    if prop.note:
        print(f"mdpviz: note: {prop.note}", file=sys.stderr)
    return 0
