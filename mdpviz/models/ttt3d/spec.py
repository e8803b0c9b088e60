"""3x3x3 risk tic-tac-toe (seed 003, second half) as a game of the registry: learned, not tabulated.

The cube has 3^27 boards: there is no :class:`~mdpviz.core.mdp.TabularMDP` (``SPEC.compile``
returns None; :attr:`~mdpviz.models.kit.game.registry.GameSpec.no_table` says why). An agent is trained by
playing instead (:mod:`mdpviz.models.ttt3d.learning`, over the generic approximators of
:mod:`mdpviz.solvers.rl`), as the job generator :func:`training_job`.

Where things are: the cube, its 49 lines and the batch engine in :mod:`mdpviz.models.ttt3d.rules`
(re-exported here); learning in :mod:`mdpviz.models.ttt3d.learning`; here the game's settings
(:class:`Ttt3dSettings`), its position model for the common board, the learning curve's arrays, the
training and matchup jobs (generators yielding :class:`~mdpviz.models.kit.game.registry.JobProgress`), the
scenario codec and the registry's :data:`SPEC`. Plain numpy; never imports Qt.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Generator, Mapping, Sequence

import numpy as np

from mdpviz.models.ttt3d import learning as rl
from mdpviz.models.kit.pictures.colors import DIVERGING, ColorScale
from mdpviz.models.kit.pictures.display import BackupTerm
from mdpviz.core.files import ScenarioError
from mdpviz.models.kit.game.codec import FieldError, from_data, to_data
from mdpviz.models.kit.game.registry import DisplayHooks, EpisodeHooks, GameSpec, JobProgress, ModelHooks, ScenarioCodec
from mdpviz.models.kit.boards.position import DECISION, MODEL, MatchupResult, MatchupRow, MoveSpec, Ply, Position, PositionModel
from mdpviz.core.simulate import proportion_ci
from mdpviz.models.ttt3d.rules import (  # noqa: F401  (re-exported: the rules' old home)
    CENTRE,
    CUBE,
    LINES,
    LINES_PER_CELL,
    LINES_THROUGH,
    N_CELLS,
    N_LINES,
    RISK_CHOICES,
    SEED_CHECKED,
    Player,
    Score,
    board,
    board_text,
    cell_coords,
    check_move,
    completes,
    completes_one,
    completing_cells,
    legal_moves,
    line_kind,
    line_owners,
    play_batch,
    play_move,
    play_vs,
    play_vs_random,
    random_moves,
    random_player,
    resolve_risk,
    scripted_player,
    tactical_move,
    seed_missing_lines,
    winner,
)
from mdpviz.models.kit.boards.ttt_board import EMPTY, MARK_CHARS, O, X, other, parse_mark
from mdpviz.models.ttt3d.training import Training, method_text, record_text, training_job  # noqa: F401 (re-exported)

AGENT_SCALE = ColorScale(-1.0, 1.0, label="move value to the mover (+1 win, \u22121 loss)",
                         kind=DIVERGING)
"""The fixed colour scale of the cube's move values: the agent's rewards are +1, -1 and 0, so every
value it can learn lies in [-1, 1] (values outside are clipped to the end colours)."""

GUI_SETTINGS = rl.TrainSettings(report_every=1_000, eval_games=500)
"""Training settings of a new game: the CLI's target agent (the defaults of :class:`TrainSettings`:
TD(0), 128-ReLU network, both seats against the tactical opponent) with a learning-curve point every
1,000 games over 500 evaluation games per seat, so Stop is seen within a few seconds."""

REPLIES: dict[str, str] = {
    "agent": "the trained agent (greedy)",
    "tactical": "tactical: wins if it can, blocks if it must, else random",
    "random": "uniformly random",
}
"""Who plays the side that is not the agent's when you walk the tree; in "play vs agent", the side
you do not play: the agent, or the scripted player chosen here (tactical or random)."""

LEGACY_OPPONENT = "random"
"""The opponent of a scenario file or agent file written before issue 30, which has no ``opponent``
or ``eval_opponent`` key: training and its curve knew only the random opponent then."""


# ---------------------------------------------------------------------------------- the edits
@dataclass(frozen=True)
class Ttt3dSettings:
    """The 3D game's edits: how the next agent is trained, and the risks of the cube's cells."""

    settings: rl.TrainSettings = GUI_SETTINGS
    """Training settings (method, approximator, games, evaluation batch, mark, seed, ...)."""
    risk: str | tuple[float, ...] = "classic"
    """A preset of :data:`mdpviz.models.ttt3d.spec.RISK_CHOICES` (noisy and random ones drawn with the
    settings' seed) or 27 probabilities, cell ``9 * layer + 3 * row + column``."""

    def __post_init__(self) -> None:
        try:
            self.risk_vector()
        except ValueError as e:
            raise FieldError("risk", str(e), subject="") from None

    def risk_vector(self) -> np.ndarray:
        """float64 (27), read-only: the probability that a move on each cell lands the opponent's mark."""
        spec = self.risk if isinstance(self.risk, str) else list(self.risk)
        return resolve_risk(spec, seed=self.settings.seed)


def risk_spec_for(risk: np.ndarray, *, seed: int) -> str | tuple[float, ...]:
    """The preset name that gives ``risk`` with ``seed`` (e.g. a loaded agent's), else the 27 numbers."""
    p = np.asarray(risk, dtype=np.float64)
    for name in RISK_CHOICES:
        if np.array_equal(resolve_risk(name, seed=seed), p):
            return name
    return tuple(float(v) for v in p)


def risk_text(spec: str | tuple[float, ...]) -> str:
    """How a risk spec reads in the panel: the preset name, or "custom (mean 0.42)"."""
    if isinstance(spec, str):
        return spec
    return f"custom (mean {float(np.mean(spec)):.2f})"


# ---------------------------------------------------------------------------------- pure helpers
def cell_label(cell: int) -> str:
    """A cell of the cube in words, 1-based like the board's titles: "layer 2, row 2, col 2"."""
    layer, row, col = cell_coords(cell)
    return f"layer {layer + 1}, row {row + 1}, col {col + 1}"


@dataclass(frozen=True, eq=False)
class LearningCurve:
    """The learning curve of one training run, as arrays (what the plot draws)."""

    episodes: np.ndarray
    """float64 (k): training games played at each point."""
    win: np.ndarray
    """float64 (k): fraction of the evaluation games the greedy agent won against ``opponent`` (an
    agent of both seats: the mean of the two seats)."""
    win_lo: np.ndarray
    """float64 (k): lower end of the Wilson 95% interval of ``win``."""
    win_hi: np.ndarray
    """float64 (k): upper end of the Wilson 95% interval of ``win``."""
    loss: np.ndarray
    """float64 (k): fraction lost."""
    draw: np.ndarray
    """float64 (k): fraction drawn (0 on the cube: every full cube holds a line)."""
    td_error: np.ndarray
    """float64 (k): mean |TD error| (reward units) of the updates since the previous point (NaN at 0)."""
    eval_games: int
    """Games behind each rate, per seat (0: no evaluation, the rates are NaN)."""
    opponent: str = "random"
    """The scripted opponent of the evaluation games."""
    seat_win: Mapping[str, np.ndarray] = field(default_factory=dict)
    """float64 (k) per seat the agent plays ("X", "O"): its win rate in that seat."""
    seat_ci: Mapping[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    """The Wilson 95% interval (low, high) of each seat's win rate."""
    baselines: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    """The yardsticks of the same evaluation, ``{"tactical": {seat: win}, "untrained": {seat: win}}``
    (:attr:`mdpviz.models.ttt3d.learning.TrainProgress.baselines`)."""

    def __len__(self) -> int:
        return int(self.episodes.size)


def _wilson(win: np.ndarray, games: int) -> tuple[np.ndarray, np.ndarray]:
    lo = np.full(win.size, np.nan)
    hi = np.full(win.size, np.nan)
    ok = np.isfinite(win)
    if games > 0 and ok.any():
        wins = np.rint(win[ok] * games).astype(np.int64)
        a, b = proportion_ci(wins, games)
        lo[ok], hi[ok] = a, b
    return lo, hi


def learning_curve(records: Sequence[rl.TrainProgress]) -> LearningCurve:
    """The arrays of a run's progress records. The counts behind each rate are ``round(rate * games)``
    (exact: the rates are counts divided by the batch size), and the interval is Wilson's (for the
    mean of two seats: over the pooled games of both)."""
    k = len(records)
    ep = np.array([r.episodes for r in records], dtype=np.float64)
    win = np.array([r.win for r in records], dtype=np.float64)
    games = int(records[-1].eval_games) if k else 0
    seats = tuple(records[-1].seat_win) if k else ()
    lo, hi = _wilson(win, games * max(len(seats), 1))
    seat_win = {s: np.array([r.seat_win.get(s, np.nan) for r in records], dtype=np.float64) for s in seats}
    return LearningCurve(
        episodes=ep, win=win, win_lo=lo, win_hi=hi,
        loss=np.array([r.loss for r in records], dtype=np.float64),
        draw=np.array([r.draw for r in records], dtype=np.float64),
        td_error=np.array([r.mean_td_error for r in records], dtype=np.float64),
        eval_games=games, opponent=records[-1].eval_opponent if k else "random",
        seat_win=seat_win, seat_ci={s: _wilson(w, games) for s, w in seat_win.items()},
        baselines=records[-1].baselines if k else {},
    )


def agent_text(agent: rl.Agent | None) -> str:
    """What the current agent is: how it learned, its mark, games behind it, the risk it expects."""
    if agent is None:
        return "No agent yet: press Train (or load an agent file)."
    s = agent.settings
    spec = risk_spec_for(agent.risk, seed=s.seed)
    plays = "X and O" if len(s.seats) == 2 else s.mark
    return (f"Agent: {method_text(s)}, plays {plays}, trained against {s.opponent}, {agent.episodes:,} training games "
            f"({agent.train_seconds:.1f} s), risk {risk_text(spec)}")



# ---------------------------------------------------------------------------------- the position model
class Ttt3dPositionModel(PositionModel):
    """The cube for the common position board (rules from :mod:`mdpviz.models.ttt3d.spec`).

    ``side`` is the agent's mark: its positions are DECISION positions whose moves carry the
    agent's values (the ``values`` the board is shown are an :class:`~mdpviz.models.ttt3d.learning.Agent`).
    Walking the tree (``play`` False), the other side is played by the model: uniformly at
    random, or by the agent's greedy move for that mark (``reply`` = "random" / "agent"). In a game
    against the agent (``play`` True) both sides are DECISION positions: you play your mark, the
    agent greedily plays the other, and the hints on your moves are the agent's values for them.
    X always moves first. Values are from the mover's side: both players maximise. The risk coin
    of every move uses ``risk`` (the environment; the agent scores moves with the risk it was
    trained for).
    """

    players = ("X", "O")
    n_cells = N_CELLS

    def __init__(self, *, risk: np.ndarray, side: str = "X", reply: str = "agent", play: bool = False,
                 agent: Callable[[], rl.Agent | None] = lambda: None) -> None:
        self.risk = resolve_risk(np.asarray(risk, dtype=np.float64))
        self.side = MARK_CHARS[parse_mark(side)]
        if reply not in REPLIES:
            raise ValueError(f"reply must be one of {', '.join(REPLIES)}, got {reply!r}")
        self.reply_mode = reply
        self.play_mode = bool(play)
        self._agent = agent
        self._rng = np.random.default_rng(0)  # the scripted player's draws in "play vs agent"

    # ------------------------------------------------------------------ positions
    @staticmethod
    def board_of(pos: Position) -> np.ndarray:
        """int8 (27): the marks of a position (a fresh copy)."""
        return np.frombuffer(pos.key[0], dtype=np.int8).copy()

    def position(self, board: np.ndarray, mover: str, *, result: int | None = None, text: str = "") -> Position:
        """The position of ``board`` with ``mover`` to move (``result``: X, O or 0 once the game is over)."""
        b = np.asarray(board, dtype=np.int8).copy()
        b.flags.writeable = False
        cells = b.copy()
        if result is None:
            decides = self.play_mode or mover == self.side
            return Position(key=(b.tobytes(), mover), cells=cells, mover=mover,
                            chooser=DECISION if decides else MODEL, objective="max", text=text)
        outcome = "draw" if result == 0 else f"{MARK_CHARS[result]} wins"
        if result:  # the completed line's cells get codes 3 (X) / 4 (O): the painter highlights them
            for line in LINES:
                if np.all(b[line] == result):
                    cells[line] = result + 2
        return Position(key=(b.tobytes(), ""), cells=cells, mover="", outcome=outcome, text=text)

    def start(self, *, first: str | None = None) -> Position:
        if first not in (None, "X"):
            raise ValueError("X always moves first in 3x3x3 tic-tac-toe: choose O to let the agent open as X")
        return self.position(np.zeros(N_CELLS, dtype=np.int8), "X")

    def first_choices(self) -> tuple[str, ...]:
        return ("X",)

    def human_marks(self) -> tuple[str, ...]:
        opp = MARK_CHARS[other(parse_mark(self.side))]
        return (opp, self.side)  # default: you take the side the agent does not play (O for an agent of both seats)

    def moves(self, pos: Position) -> tuple[MoveSpec, ...]:
        if pos.terminal:
            return ()
        b = self.board_of(pos)
        empty = legal_moves(b)
        probs = np.full(empty.size, np.nan)
        if pos.chooser == MODEL:
            agent = self._agent()
            if self.reply_mode == "tactical":  # uniform over its class: wins, else blocks, else every cell
                me = parse_mark(pos.mover)
                hot = next((c for c in (completing_cells(b[None], me)[0], completing_cells(b[None], other(me))[0])
                            if c.any()), b == EMPTY)
                probs[:] = hot[empty] / np.count_nonzero(hot[empty])
            elif self.reply_mode == "random" or agent is None:
                probs[:] = 1.0 / empty.size
            else:
                probs[int(np.flatnonzero(empty == agent.choose_move(b, pos.mover))[0])] = 1.0
        return tuple(MoveSpec(int(c), cell_label(int(c)), int(c), prob=float(p)) for c, p in zip(empty, probs))

    def play(self, pos: Position, action: int, rng: np.random.Generator) -> Ply:
        b = self.board_of(pos)
        c = int(action)
        check_move(b, c)
        me = parse_mark(pos.mover)
        mark, result = play_move(b, c, me, risk=self.risk, rng=rng)
        text = f"{pos.mover} on {cell_label(c)}"
        if mark != me:
            text += f"; the coin (risk {self.risk[c]:.2f}) put {MARK_CHARS[mark]}'s mark there"
        if result:
            text += f"; {MARK_CHARS[result]} completes a line and wins"
        elif result == 0:
            text += "; the cube is full: a draw"
        agent = parse_mark(self.side)
        reward = 0.0 if not result else (1.0 if result == agent else -1.0)
        after = self.position(b, "" if result is not None else MARK_CHARS[other(me)], result=result)
        return Ply(pos, c, after, text, reward)

    def reply(self, pos: Position, rng: np.random.Generator) -> int:
        b = self.board_of(pos)
        agent = self._agent()
        if self.reply_mode == "agent" and agent is not None:
            return int(agent.choose_move(b, pos.mover))
        if self.reply_mode == "tactical":
            return tactical_move(b, parse_mark(pos.mover), rng)
        return int(random_moves(b[None], rng)[0])

    # ------------------------------------------------------------------ values
    def move_values(self, pos: Position, values: Any) -> np.ndarray:
        mv = self.moves(pos)
        if not isinstance(values, rl.Agent) or pos.terminal or pos.chooser != DECISION:
            return np.full(len(mv), np.nan)
        q = values.move_values(self.board_of(pos), pos.mover)
        return np.array([q[m.action] for m in mv], dtype=np.float64)

    def value(self, pos: Position, values: Any) -> float:
        """The agent's value of the position to the mover: its best move's value (max over cells)."""
        q = self.move_values(pos, values)
        return float(np.max(q)) if q.size and np.all(np.isfinite(q)) else math.nan

    def agent_move(self, pos: Position, values: Any) -> int:
        if self.play_mode and self.reply_mode != "agent":  # play the scripted yardstick instead of the agent
            return self.reply(pos, self._rng)
        if not isinstance(values, rl.Agent):
            raise ValueError("there is no agent to play against yet: press Train (or load an agent file)")
        return int(values.choose_move(self.board_of(pos), pos.mover))

    def backup(self, pos: Position, action: int, values: Any) -> list[BackupTerm]:
        """The move's value as the agent computes it. TD(0): the expectation over the risk coin,
        (1 - P[c]) u(own mark on c) + P[c] u(opponent's mark on c), with u the reward (+1 / -1 / 0)
        if that afterstate ends the game, else the afterstate value V(a) (rl module docstring).
        Q-learning: the learned Q(s, c) itself (the coin is inside it)."""
        if not isinstance(values, rl.Agent) or pos.terminal:
            return []
        b = self.board_of(pos)
        c = int(action)
        me = parse_mark(pos.mover)
        if values.settings.method != "td":
            q = float(values.move_values(b, me)[c])
            return [BackupTerm(1.0, 0.0, 2 * c + 2 * N_CELLS, q, "Q-learning: Q(s, c) learned directly")]
        p = float(values.risk[c])
        zero, one = np.zeros(N_CELLS), np.ones(N_CELLS)
        u_own = float(values.move_values_batch(b[None], me, risk=zero)[0, c])
        u_opp = float(values.move_values_batch(b[None], me, risk=one)[0, c])
        last = int(np.count_nonzero(b == EMPTY)) == 1
        terms = []
        for prob, mark, u, flip in ((1.0 - p, me, u_own, 0), (p, other(me), u_opp, 1)):
            if prob <= 0.0:
                continue
            done = bool(completing_cells(b[None], mark)[0, c])
            if done:
                r, v, note = (1.0 if mark == me else -1.0), 0.0, f"{MARK_CHARS[mark]} completes a line"
            elif last:
                r, v, note = 0.0, 0.0, "the cube is full: draw"
            else:
                r, v, note = 0.0, u, ("own mark lands" if not flip else "the coin: the opponent's mark lands")
            terms.append(BackupTerm(prob, r, 2 * c + flip, v, note))
        return terms

    def state_name(self, code: int) -> str:
        """Name of a backup term's afterstate (code ``2 c + flip``; see :meth:`backup`)."""
        c, flip = divmod(int(code), 2)
        if c >= N_CELLS:
            return f"Q: cell {c - N_CELLS}"
        return f"{'coin' if flip else 'own'} @{c}"

    def describe(self, pos: Position) -> str:
        if pos.terminal:
            return f"Game over: {pos.outcome}"
        if self.play_mode:
            return f"{pos.mover} to move"
        by_agent = self.reply_mode == "agent" and self._agent() is not None
        who = "the agent's side" if pos.mover == self.side else (
            "played by " + ("the agent" if by_agent else "the tactical player" if self.reply_mode == "tactical"
                            else "random moves"))
        return f"{pos.mover} to move ({who})"



# ---------------------------------------------------------------------------------- background jobs
MATCHUPS: tuple[tuple[str, str, str], ...] = (
    ("agent vs tactical", "agent", "tactical"),
    ("tactical vs agent", "tactical", "agent"),
    ("tactical vs tactical", "tactical", "tactical"),
    ("agent vs random", "agent", "random"),
    ("random vs agent", "random", "agent"),
    ("agent vs agent", "agent", "agent"),
    ("random vs random", "random", "random"),
)
"""(name, X player, O player) of the simulated matchups; X moves first."""

MATCHUP_CHUNK = 2_000
"""Games per batch of a matchup simulation (progress and cancel are checked between batches)."""


def matchup_job(agent: rl.Agent | None, risk: np.ndarray, *, games: int,
                seed: int) -> Generator[JobProgress, None, MatchupResult]:
    """Every matchup of :data:`MATCHUPS` played ``games`` times from the empty cube with the vectorised
    engine :func:`mdpviz.models.ttt3d.rules.play_batch` (the agent greedy, its coin model its own; the
    environment's risk ``risk``), as a job generator yielding progress after every batch of
    :data:`MATCHUP_CHUNK` games (ValueError at once for fewer than 1 game). No exact probabilities:
    the cube has 3^27 boards. Without an agent only the matchups of scripted players are played
    ("tactical vs tactical": the yardstick, X wins about 60%)."""
    n = int(games)
    if n < 1:
        raise ValueError(f"simulate at least 1 game per matchup, got {n}")
    p = np.asarray(risk, dtype=np.float64)
    names = [m for m in MATCHUPS if agent is not None or "agent" not in m[1:]]
    notes = () if agent is not None else ("the matchups with the agent need an agent: press Train first",)

    def run() -> Generator[JobProgress, None, MatchupResult]:
        streams = np.random.SeedSequence(int(seed)).spawn(len(names))
        sizes = [min(MATCHUP_CHUNK, n - k) for k in range(0, n, MATCHUP_CHUNK)]
        rows = []
        for i, ((name, xs, os_), ss) in enumerate(zip(names, streams)):
            rng = np.random.default_rng(ss)
            rand = random_player(rng)
            players = {"agent": (agent.choose_moves if agent is not None else rand), "random": rand,
                       "tactical": scripted_player("tactical", rng)}
            counts = np.zeros(3, dtype=np.int64)
            for j, m in enumerate(sizes):
                res = play_batch(players[xs], players[os_], risk=p, games=m, rng=rng)
                counts += [np.count_nonzero(res == X), np.count_nonzero(res == O), np.count_nonzero(res == 0)]
                yield JobProgress(i * len(sizes) + j + 1, len(names) * len(sizes),
                                  f"{name}: {sum(sizes[:j + 1]):,} of {n:,} games")
            rows.append(MatchupRow(name, xs, os_, (int(counts[0]), int(counts[1]), int(counts[2])), n))
        return MatchupResult(tuple(rows), "games", "the empty cube", notes)

    return run()


# ---------------------------------------------------------------------------------- scenario codec and spec
KEY = "ttt3d"
"""The game's key in the registry and in scenario files."""

NO_TABLE = ("3D tic-tac-toe has 3^27 boards: no table of states to step or solve. "
            "Train an agent in the Game panel; its values are shown on the cube.")
"""Why the game compiles to no MDP (the window shows it where the board's table would be)."""


DISPLAY_KEYS = ("reply",)
"""The view's display setting saved beside the settings: who answers on the cube (:data:`REPLIES`)."""


LEGACY_KEYS = ("opponent", "eval_opponent")
"""Training settings that files written before issue 30 lack: such a file means :data:`LEGACY_OPPONENT`
for each, so that value is left out when written (and the old file saves back byte for byte)."""


def settings_to_dict(state: Ttt3dSettings, *, reply: str = "agent") -> dict[str, Any]:
    """The game's entry in a scenario file: the generic codec's, then the view's ``reply``."""
    data = to_data(state)
    for k in LEGACY_KEYS:
        if data["settings"][k] == LEGACY_OPPONENT:
            del data["settings"][k]
    return {**data, "reply": reply}  # extra: a display setting the spec writes too (files always had it)


def settings_from_dict(data: dict[str, Any], path: str) -> Ttt3dSettings:
    """Settings from a scenario file's entry (ScenarioError naming the field; ``reply`` is checked too)."""
    where = f"games.{KEY}"
    if isinstance(data.get("settings"), dict):
        data = {**data, "settings": {**{k: LEGACY_OPPONENT for k in LEGACY_KEYS}, **data["settings"]}}
    state = from_data(Ttt3dSettings, data, path, where, ignore=DISPLAY_KEYS)
    reply = data.get("reply", "agent")
    if reply not in REPLIES:
        raise ScenarioError(path, f"{where}.reply", f"must be one of {', '.join(REPLIES)}, got {reply!r}")
    return state


def _position_model(state: Ttt3dSettings, mdp: Any = None, *, agent: Callable[[], rl.Agent | None] = lambda: None,
                    reply: str = "agent", play: bool = False) -> Ttt3dPositionModel:
    return Ttt3dPositionModel(risk=state.risk_vector(), side=MARK_CHARS[state.settings.seats[0]], reply=reply, play=play,
                              agent=agent)


def _training_job(state: Ttt3dSettings) -> Generator[Any, None, rl.Agent | None]:
    return training_job(state.settings, state.risk_vector())


def _matchups_job(state: Ttt3dSettings, agent: rl.Agent | None = None, *, games: int,
                  seed: int) -> Generator[JobProgress, None, MatchupResult]:
    return matchup_job(agent, state.risk_vector(), games=games, seed=seed)


TITLE = "3D tic-tac-toe (learning)"


APPROX_WORDS = {"linear": "a linear function", "quadratic": "a quadratic function (every product of two features)",
                "mlp": "a neural network with one hidden layer"}
"""The approximators in words, for the lesson."""


def lesson(state: Ttt3dSettings, mdp: Any = None, **names: Any):
    """The game's :class:`~mdpviz.models.kit.teaching.lessons.Lesson`: a game learnt from experience, not solved,
    so its facts say what the agent learns and from what (it said "No model yet" however long the agent
    had trained); its parameter table the training settings and risks."""
    from mdpviz.models.kit.teaching.lessons import Lesson, doc_paragraphs, fmt_number, parameters_of

    state = state if isinstance(state, Ttt3dSettings) else Ttt3dSettings()
    settings = state.settings
    approx = APPROX_WORDS.get(settings.approx, settings.approx)
    if settings.approx == "mlp":
        approx += f" of {settings.hidden} ReLU units"
    method = ("TD(0) on the values V(a) of its afterstates (the position after its move and the risk coin; "
              "Sutton and Barto section 6.8)" if settings.method == "td"
              else "Q-learning on the values Q(s, c) of its moves (Sutton and Barto eq. 6.8)")
    update = ("<p>w \u2190 w + \u03b1 [U \u2212 V(a<sub>t</sub>)] \u2207V(a<sub>t</sub>), with U = R when the "
              "opponent's reply ends the game, else U = \u03b3 u(a<sub>t+1</sub>) (semi-gradient TD(0), "
              "Sutton and Barto eq. 6.2 and 9.7).</p>" if settings.method == "td" else
              "<p>w \u2190 w + \u03b1 [r + \u03b3 max<sub>c'</sub> Q(s', c') \u2212 Q(s, c)] \u2207Q(s, c) "
              "(semi-gradient Q-learning, Sutton and Barto eq. 6.8).</p>")
    return Lesson(
        title=TITLE,
        intro=doc_paragraphs(rl, "Reinforcement learning", "3^27 boards"),
        states=(f"A position of the 3 x 3 x 3 cube ({N_CELLS} cells, {N_LINES} lines) seen from the player to move: "
                "3^27 boards are far too many for a table, so there is no MDP to solve here. The agent learns by "
                f"playing, with {method}; the values are approximated by {approx} over the board's 54 features."),
        actions="Putting the mover's mark on an empty cell (27 at the start).",
        transitions=(f"With probability 1 \u2212 risk the mover's own mark lands on the chosen cell, with probability "
                     f"risk (the risk coin; here {risk_text(state.risk)}) the opponent's does; then the opponent (uniformly "
                     "random in training) replies the same way."),
        rewards="+1 when the agent's mark completes a line, \u22121 when the opponent's does, 0 for a draw.",
        discount=(f"\u03b3 = {fmt_number(settings.discount)} per round (the agent's move and the opponent's reply): "
                  "a win sooner is worth more."),
        bellman="<p>Not solved: the agent's weights w are learnt from games. Its update:</p>" + update,
        example="",
        parameters=parameters_of(state),
        gamma=float(settings.discount),
        sources=("mdpviz.models.ttt3d.learning",),
    )


SPEC = GameSpec(
    key=KEY,
    title=TITLE,
    value_label=AGENT_SCALE.label,
    unit="games",
    settings_type=Ttt3dSettings,
    default_settings=Ttt3dSettings,
    compile=lambda state: None,
    jobs={"train": _training_job, "matchups": _matchups_job},
    no_table=NO_TABLE,
    model=ModelHooks(
        driver=Training,
    ),
    episodes=EpisodeHooks(
        simulation=lambda ctx, policy, *, games, seed: matchup_job(ctx.driver.agent, ctx.settings.risk_vector(),
                                                                  games=games, seed=seed),
    ),
    display=DisplayHooks(
        keys=DISPLAY_KEYS,
        color_kind=DIVERGING,
        position_model=_position_model,
        lesson=lesson,
        settings=lambda data, path: {"reply": data["reply"] if data.get("reply") in REPLIES else "agent"},
    ),
    codec=ScenarioCodec(
        to_dict=settings_to_dict,
        from_dict=settings_from_dict,
    ),
)
"""3x3x3 risk tic-tac-toe in the registry :mod:`mdpviz.models.kit.game.registry` (no table: ``compile`` gives None)."""


__all__ = [
    "AGENT_SCALE", "CENTRE", "CUBE", "GUI_SETTINGS", "LINES", "LINES_PER_CELL", "LINES_THROUGH", "LearningCurve",
    "MATCHUPS", "MATCHUP_CHUNK", "NO_TABLE", "N_CELLS", "N_LINES", "O", "Player", "REPLIES", "RISK_CHOICES",
    "SEED_CHECKED", "SPEC", "Score", "Ttt3dPositionModel", "Ttt3dSettings", "X", "agent_text", "board", "board_text",
    "cell_coords", "cell_label", "check_move", "completes", "completes_one", "completing_cells", "learning_curve",
    "legal_moves", "lesson", "line_kind", "line_owners", "matchup_job", "method_text", "play_batch", "play_move",
    "play_vs_random", "random_moves", "random_player", "record_text", "resolve_risk", "risk_spec_for", "risk_text",
    "seed_missing_lines", "settings_from_dict", "settings_to_dict", "training_job", "winner",
]
