"""Anti-tic-tac-toe's settings (the window's edits), their scenario data, and the state of the rounds.

:class:`AtttSettings` is the game's settings object (both players' boards, the start policy, the tie rule,
the solver of each best response); :func:`compile_setup` gives the MDP the window shows at round 0;
:class:`AtttState` adds the best-response rounds computed so far (solve progress, not edits), and
:func:`rounds_job` computes more of them as a background job. Plain numpy; never imports Qt.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generator, Sequence

import numpy as np

from mdpviz.models.attt import iteration as it
from mdpviz.models.attt import rules as attt
from mdpviz.core.cs747 import MDPFileError
from mdpviz.core.examples import ATTT_DIR
from mdpviz.core.files import ScenarioError
from mdpviz.models.kit.game.codec import FieldError, as_object, from_data, to_data
from mdpviz.core.mdp import TabularMDP
from mdpviz.solvers import registry as methods

COURSE_DIR = ATTT_DIR
"""The course's anti-tic-tac-toe files, shipped inside the package (``mdpviz/examples/cs747/attt``)."""

PLAYERS = {1: "P1 (X)", 2: "P2 (O)"}
"""Names of the players on the board (player 1 draws X and moves first, player 2 draws O)."""

RESULTS = ("P1 wins", "P2 wins", "draw")
"""The three results of a game, in the order of the matchup bars and the outcome lines."""

START_KINDS = ("file", "random", "uniform")
"""How the start policy is made: a policy file, a random deterministic policy, the uniform policy."""

METHODS = (it.SEED_METHOD, *(m for m in methods.game_choices() if m != it.SEED_METHOD))
"""Solvers a best response may use (:func:`mdpviz.solvers.solve` ids: the seed's planner first, then the
games' commands' methods a one-player model with cycles takes); V* is unique, so the rounds do not depend on it."""

METHOD_NAMES = {"gs": "in-place value iteration", "vi": "synchronous value iteration",
                "pi": "policy iteration", "lp": "linear programming"}
"""Names of :data:`METHODS` in the Setup tab ("gs" is the seed's planner: measured about 0.2 s per
round here, "vi" about 0.02 s)."""


def course_files(folder: str | os.PathLike | None = None) -> dict[str, Path] | None:
    """The course's four files (``states_p1``, ``states_p2``, ``policy_p1``, ``policy_p2``) in
    ``folder`` (default :data:`COURSE_DIR`), or None if any is missing."""
    d = Path(folder) if folder is not None else COURSE_DIR
    files = {
        "states_p1": d / "states" / "states_file_p1.txt",
        "states_p2": d / "states" / "states_file_p2.txt",
        "policy_p1": d / "policies" / "p1_policy1.txt",
        "policy_p2": d / "policies" / "p2_policy1.txt",
    }
    return files if all(p.is_file() for p in files.values()) else None


def boards_path(boards: attt.Boards) -> str:
    """The states file ``boards`` were read from ("" for the boards generated from the rules)."""
    return "" if boards.lines is None else boards.source


def describe_boards(boards: attt.Boards) -> str:
    """"states_file_p1.txt (2423 boards)" or "every reachable board (2423)"."""
    if boards.lines is None:
        return f"every reachable board ({len(boards)})"
    return f"{Path(boards.source).name} ({len(boards)} boards)"


# ---------------------------------------------------------------------------------- the edits
@dataclass(frozen=True)
class AtttSettings:
    """The edits of anti-tic-tac-toe: both players' boards, the start policy and the tie rule."""

    p1_boards: attt.Boards
    """Player 1's boards (a states file's, in file order, or every reachable board)."""
    p2_boards: attt.Boards
    """Player 2's boards."""
    start: attt.AtttPolicy
    """The policy the iteration starts from; the first round is the other player's best response to it."""
    start_kind: str = "file"
    """How ``start`` was made: "file" (a policy file), "random" (one uniformly drawn cell per board) or "uniform"."""
    seed: int = 0
    """Seed of a "random" start (unused otherwise)."""
    ties: str = "lowest"
    """Tie rule of a best response among cells of equal value: "lowest" (the seed's) or "highest" cell."""
    method: str = it.SEED_METHOD
    """Solver of each best response: "gs" (in-place value iteration, the seed's), "vi", "pi" or "lp"."""
    max_rounds: int = 100
    """Give up (not converged) after this many rounds."""

    def __post_init__(self) -> None:
        if self.p1_boards.player != 1:
            raise ValueError(f"{self.p1_boards.source}: player 1's boards hold player {self.p1_boards.player}'s boards")
        if self.p2_boards.player != 2:
            raise ValueError(f"{self.p2_boards.source}: player 2's boards hold player {self.p2_boards.player}'s boards")
        if self.start_kind not in START_KINDS:
            raise FieldError("start_kind", f"must be one of {', '.join(START_KINDS)}, got {self.start_kind!r}",
                             subject="start kind")
        if isinstance(self.seed, bool) or not isinstance(self.seed, (int, np.integer)) or self.seed < 0:
            raise FieldError("seed", f"must be a non-negative integer, got {self.seed!r}", subject="the start's seed")
        if self.ties not in attt.TIE_RULES:
            raise FieldError("ties", f"must be one of {', '.join(attt.TIE_RULES)}, got {self.ties!r}",
                             subject="tie rule")
        if self.method not in METHODS:
            raise FieldError("method", f"must be one of {', '.join(METHODS)}, got {self.method!r}",
                             subject="best-response solver")
        if int(self.max_rounds) < 1:
            raise FieldError("max_rounds", f"must be at least 1, got {self.max_rounds}", subject="max_rounds")

    def boards(self, player: int) -> attt.Boards:
        """The boards of ``player`` (1 or 2)."""
        return self.p1_boards if player == 1 else self.p2_boards

    def settings(self) -> it.IterationSettings:
        """The iteration settings of these edits."""
        return it.IterationSettings(ties=self.ties, method=self.method, max_rounds=int(self.max_rounds))

    def start_text(self) -> str:
        """The start policy in words ("p1_policy1.txt (player 1)", "random player-2 policy (seed 3)")."""
        p = self.start.player
        if self.start_kind == "file":
            return f"{Path(self.start.source).name} (player {p})"
        if self.start_kind == "random":
            return f"random player-{p} policy (seed {self.seed})"
        return f"uniform player-{p} policy"


def make_start(kind: str, boards: attt.Boards, *, seed: int = 0) -> attt.AtttPolicy:
    """A generated start policy on ``boards``: "random" (seeded) or "uniform"."""
    if kind == "random":
        return attt.AtttPolicy.random(boards, seed=int(seed))
    if kind == "uniform":
        return attt.AtttPolicy.uniform(boards)
    raise ValueError(f"a generated start policy is 'random' or 'uniform', not {kind!r}")


def default_setup(folder: str | os.PathLike | None = None) -> AtttSettings:
    """The course's states files and player 1's course policy as the start, if the files are in
    ``folder`` (default :data:`COURSE_DIR`); else every reachable board and a random player-1
    policy (seed 0)."""
    files = course_files(folder)
    if files is not None:
        b1 = attt.load_states(files["states_p1"], player=1)
        b2 = attt.load_states(files["states_p2"], player=2)
        return AtttSettings(b1, b2, attt.load_policy(files["policy_p1"], player=1), start_kind="file")
    b1, b2 = attt.reachable_boards()
    return AtttSettings(b1, b2, make_start("random", b1, seed=0), start_kind="random", seed=0)


def carried_start(setup: AtttSettings, b1: attt.Boards, b2: attt.Boards) -> attt.AtttPolicy:
    """The start policy of ``setup`` carried over to new boards ``b1``/``b2`` (a policy file's is kept;
    a generated one is made again on the new boards)."""
    if setup.start_kind == "file":
        return setup.start
    return make_start(setup.start_kind, b1 if setup.start.player == 1 else b2, seed=setup.seed)


@dataclass(frozen=True)
class AtttState:
    """The game's state: the edits and the best-response rounds computed for them so far."""

    setup: AtttSettings
    """The edits."""
    rounds: tuple[it.Round, ...] = ()
    """The rounds done, in order (solve progress, not edits)."""

    @property
    def responder(self) -> int:
        """The player whose best response the next round computes."""
        last = self.rounds[-1].player if self.rounds else self.setup.start.player
        return 3 - last

    @property
    def shown_player(self) -> int:
        """The player whose MDP the board shows: the last round's responder (its new policy and values),
        or before round 1 the first responder (its MDP against the start policy, not solved yet)."""
        return self.rounds[-1].player if self.rounds else self.responder

    def policies(self) -> dict[int, attt.AtttPolicy | None]:
        """Each player's current policy (None for a player who has not responded yet and did not start)."""
        if self.rounds:
            r = self.rounds[-1]
            cur: dict[int, attt.AtttPolicy | None] = {1: r.p1_policy, 2: r.p2_policy}
            return cur
        cur = {1: None, 2: None}
        cur[self.setup.start.player] = self.setup.start
        return cur

    @property
    def converged(self) -> bool:
        """The last round changed nothing: neither policy changes any more."""
        return bool(self.rounds) and self.rounds[-1].converged

    def previous_policy(self, index: int) -> attt.AtttPolicy | None:
        """The responder's policy before round ``index`` (0-based): its previous response, the start
        policy if it started, or None before its first response."""
        r = self.rounds[index]
        for j in range(index - 1, -1, -1):
            if self.rounds[j].player == r.player:
                return self.rounds[j].p1_policy if r.player == 1 else self.rounds[j].p2_policy
        return self.setup.start if self.setup.start.player == r.player else None


@dataclass(frozen=True)
class BoardChange:
    """One board whose move a round changed."""

    board: str
    """The board (9 characters)."""
    new_cell: int
    """The cell the new policy plays (its most probable cell)."""
    old_cell: int
    """The cell the responder's previous policy played (-1: it had no policy there)."""


def round_changes(state: AtttState, index: int) -> list[BoardChange]:
    """The boards whose move changed in round ``index`` (0-based), with the new and the old cell."""
    r = state.rounds[index]
    new = r.p1_policy if r.player == 1 else r.p2_policy
    old = state.previous_policy(index)
    idx = np.asarray(r.changed_states, dtype=np.int64)
    new_cells = new.actions[idx]
    if old is None:
        old_cells = np.full(idx.size, -1, dtype=np.int64)
    else:
        p, found = old.probs_at(new.boards.codes[idx])
        old_cells = np.where(found, np.argmax(p, axis=1), -1)
    labels = new.boards.labels
    return [BoardChange(labels[i], int(a), int(b)) for i, a, b in zip(idx.tolist(), new_cells.tolist(), old_cells.tolist())]


def round_summary(r: it.Round) -> str:
    """One line for a round: who responded, how much changed, the outcome probabilities."""
    done = " (converged)" if r.converged else ""
    return (f"round {r.round}: player {r.player} best response, {r.changed} board{'s' if r.changed != 1 else ''} "
            f"changed; P1 wins {r.p1_win:.4f}, P2 wins {r.p2_win:.4f}, draw {r.draw:.4f}{done}")


# The boards and the start policy are stored as the names of their course files (a generated start
# as its kind, player and seed), not as arrays: the scenario data's extra beside the generic codec.
FILE_FIELDS = ("p1_boards", "p2_boards", "start", "start_kind", "seed")
"""The fields of :class:`AtttSettings` that :func:`setup_to_dict` writes as files (the rest: the generic codec)."""


def setup_to_dict(s: AtttSettings) -> dict[str, Any]:
    """The setup as scenario data (a states file's name, "" for every reachable board; the start policy)."""
    start: dict[str, Any] = {"kind": s.start_kind, "player": s.start.player}
    if s.start_kind == "file":
        start["path"] = s.start.source
    elif s.start_kind == "random":
        start["seed"] = s.seed
    return {"p1_states": boards_path(s.p1_boards), "p2_states": boards_path(s.p2_boards), "start": start,
            **to_data(s, skip=FILE_FIELDS)}


def setup_from_dict(data: dict[str, Any], path: str) -> AtttSettings:
    """The setup of scenario data, validated (:class:`ScenarioError` naming the field ``games.attt.*``)."""
    where = "games.attt"

    def fail(field_: str, problem: str) -> ScenarioError:
        return ScenarioError(path, f"{where}.{field_}", problem)

    data = as_object(data, path, where)
    boards = {}
    for p in (1, 2):
        f = data.get(f"p{p}_states", "")
        if not isinstance(f, str):
            raise fail(f"p{p}_states", f"must be a file name or \"\" (every reachable board), got {f!r}")
        try:
            boards[p] = attt.load_states(f, player=p) if f else attt.reachable_boards()[p - 1]
        except MDPFileError as e:
            raise fail(f"p{p}_states", str(e)) from None
    start = as_object(data.get("start", {}), path, f"{where}.start")
    unknown = [k for k in start if k not in ("kind", "player", "path", "seed")]
    if unknown:
        raise fail(f"start.{unknown[0]}", "unknown field (fields: kind, player, path, seed)")
    kind, player = start.get("kind", "random"), start.get("player", 1)
    if kind not in START_KINDS:
        raise fail("start.kind", f"must be one of {', '.join(START_KINDS)}, got {kind!r}")
    if player not in (1, 2) or isinstance(player, bool):
        raise fail("start.player", f"must be 1 or 2, got {player!r}")
    seed = start.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise fail("start.seed", f"must be a non-negative integer, got {seed!r}")
    if kind == "file":
        fpath = start.get("path")
        if not isinstance(fpath, str) or not fpath:
            raise fail("start.path", f"must be the policy file's name, got {fpath!r}")
        try:
            pol = attt.load_policy(fpath, player=player)
        except MDPFileError as e:
            raise fail("start.path", str(e)) from None
    else:
        pol = make_start(kind, boards[player], seed=seed)
    files = {"p1_boards": boards[1], "p2_boards": boards[2], "start": pol, "start_kind": kind, "seed": seed}
    return from_data(AtttSettings, data, path, where, given=files, ignore=("p1_states", "p2_states", "start"))


# ---------------------------------------------------------------------------------- the spec's functions
def compile_setup(setup: AtttSettings) -> TabularMDP:
    """The MDP the window shows at round 0: the first responder's boards against the start policy
    (:func:`~mdpviz.models.attt.rules.encode`). ValueError (e.g. a policy lacking a board) says why
    there is none."""
    return encode_state(AtttState(setup)).mdp


def encode_state(state: AtttState) -> attt.Encoding:
    """The encoding on the board of ``state``: the last round's responder against the other player's
    policy, or before round 1 the first responder against the start policy."""
    pols = state.policies()
    me = state.shown_player
    opp = pols[3 - me]
    if opp is None:  # cannot happen: the other player started or responded last
        raise ValueError(f"player {3 - me} has no policy yet")
    return attt.encode(state.setup.boards(me), opp)


def rounds_job(setup: AtttSettings, *, done: Sequence[it.Round] = (),
               stop_after: int | None = None) -> Generator[Any, None, it.IterationResult]:
    """The best-response rounds of ``setup`` as a background job (:func:`~mdpviz.models.attt.iteration.iteration_job`):
    yields :class:`~mdpviz.models.kit.game.registry.JobProgress` and each :class:`~mdpviz.models.attt.iteration.Round`,
    returns the :class:`~mdpviz.models.attt.iteration.IterationResult`. ``done``: rounds already
    computed for this setup (the job continues after them); ``stop_after``: return after that round."""
    return (yield from it.iteration_job(setup.start, p1_boards=setup.p1_boards, p2_boards=setup.p2_boards,
                                        settings=setup.settings(), resume=done, stop_after=stop_after))
