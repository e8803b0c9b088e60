"""Reinforcement learning for 3x3x3 risk tic-tac-toe: the game's encoding, its episodes and its
opponents, over the generic approximators of :mod:`mdpviz.solvers.rl`.

3^27 boards are far too many for a table (seed 003), so the agent learns an approximate value
function by playing: semi-gradient TD(0) on state values or Q-learning on action values, with
epsilon-greedy exploration, one game at a time.

Opponents (:data:`TRAIN_OPPONENTS`, issue 30). A uniformly random opponent measures almost nothing on
this board (an agent trained on one game already beats it 96% of the time as X), so the default
opponent of training and of the learning curve is the tactical player of
:func:`mdpviz.models.ttt3d.rules.tactical_moves` (wins if it can, blocks if it must, else random:
60% as X and 40% as O against itself). The agent can also train against itself ("self": its own
epsilon-greedy moves in the other seat, the weights as they are) or by a curriculum
(:data:`CURRICULUM`: random, then tactical, then itself). It trains in one seat or in both
(``mark="both"``: X in even games, O in odd ones; one network, as the encoding is the mover's view).
Every evaluation is reported beside its yardsticks: the tactical player and the untrained agent on
the same games (:func:`evaluate_seats`).

Encoding. A position is seen from the player to move ("me"): ``z`` in {0, 1}^54 with
``z[c] = 1`` if my mark is on cell c and ``z[27 + c] = 1`` if the opponent's is. Rewards: +1 when
my mark completes a line (whoever's move placed it: the risk coin can place my mark on the
opponent's move), -1 when the opponent's does, 0 for a draw; one discount ``gamma`` per round
(my move and the opponent's reply).

Function approximators (:data:`APPROXIMATORS`), each with ``n_out`` outputs (1 for V, 27 for Q):

* ``linear``: ``f(z) = b + W^T z`` (55 weights per output).
* ``quadratic``: ``f(z) = b + W^T z + sum_{i<j} S_ij z_i z_j``, every product of two features (the
  seed's degree-2 approximator, with 0/1 features: z_i^2 = z_i is already linear), 1486 weights
  per output, stored as a symmetric matrix with zero diagonal.
* ``mlp``: ``f(z) = W2^T relu(W1^T z + b1) + b2`` with one hidden layer of ReLU units (128 by default; the
  seed's best agent), plain numpy.

Methods (:data:`METHODS`):

* ``td``: V(a) of the agent's afterstates a (the position after its move and risk coin, the
  opponent to move: Sutton and Barto section 6.8). A move's value is the exact expectation over
  the coin, ``q(s, c) = (1 - P[c]) u(a_own) + P[c] u(a_opp)`` with ``u(a)`` the reward (+1, -1
  or 0) if afterstate a ends the game and V(a) otherwise (the risks are part of the rules, as in
  the seed's Bellman equation), so all legal moves of a position are scored by one pass over its
  54 one-mark afterstates (one matrix product for the network). Update (S&B eq. 6.2; semi-gradient
  form, eq. 9.7 and section 9.3): ``w += alpha [U - V(a_t)] grad V(a_t)`` with target
  ``U = R`` when the opponent's reply ends the game with reward R, else ``U = gamma u(a_{t+1})``
  for the next afterstate the agent actually reaches (on-policy TD(0) of the epsilon-greedy
  behaviour; gamma once per round).
* ``q``: Q(s, c) for the positions s where the agent is to move, one output per cell (illegal
  cells masked). Update (S&B eq. 6.8, semi-gradient): ``w += alpha [r + gamma max_c' Q(s', c')
  - Q(s, c)] grad Q(s, c)``, target r when the round ends the game.

Training (:func:`train`) is a generator: it yields a frozen :class:`TrainProgress` (episodes,
epsilon, mean |TD error|, the greedy agent's win rate in each seat over an evaluation batch
against the chosen opponent beside its yardsticks, and a read-only snapshot of the agent) every ``report_every``
episodes, and returns the final :class:`Agent`. The generator is seeded: the same settings give
the same agent, bit for bit, whatever the reporting interval (evaluation uses its own stream).
Agents are saved to and loaded from ``.npz`` files (:meth:`Agent.save`, :func:`load_agent`).

Plain numpy; never imports Qt.
"""
from __future__ import annotations

import io
import json
import math
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Callable, Generator, Mapping

import numpy as np

from mdpviz.models.kit.game.codec import FieldError
from mdpviz.models.ttt3d import rules as ttt3d
from mdpviz.models.kit.boards.ttt_board import validate_risk
from mdpviz.models.kit.boards.ttt_board import EMPTY, MARK_CHARS, O, X, other, parse_mark
from mdpviz.solvers.rl import APPROX_CLASSES, MLP, Approximator, Linear, Quadratic, param_shapes  # noqa: F401

N_CELLS = ttt3d.N_CELLS
N_FEATURES = 2 * N_CELLS
"""Length of the board encoding z: my marks (cells 0..26), then the opponent's (27..53)."""

NOT_METHOD_IDS = {"q": "the 3D game's own agent method (METHODS): Q-learning on an approximator's action values"}
"""Words of this module that are not method ids (the registry test's scan reads this declaration)."""

METHODS: dict[str, str] = {
    "td": "TD(0) on afterstate values V",
    "q": "Q-learning on action values Q",
}
"""Learning methods."""

APPROXIMATORS: dict[str, str] = {
    "linear": "linear in the 54 board features",
    "quadratic": "degree 2: every product of two board features",
    "mlp": "numpy network, one hidden layer of ReLU units",
}
"""Function approximators."""

TRAIN_OPPONENTS: dict[str, str] = {
    **ttt3d.OPPONENTS,
    "self": "self-play: the agent's own epsilon-greedy moves in the other seat",
    "curriculum": "random for the first tenth of the games, tactical for the next 40%, then self-play",
}
"""Who the agent trains against (the scripted players of :data:`mdpviz.models.ttt3d.rules.OPPONENTS`,
its own play, or a curriculum of the three)."""

CURRICULUM: tuple[tuple[float, str], ...] = ((0.1, "random"), (0.5, "tactical"), (1.0, "self"))
"""The curriculum: (end of the phase as a fraction of the training games, the opponent of the phase)."""

MARKS: tuple[str, ...] = ("X", "O", "both")
"""The seats an agent trains in: X (moves first), O, or both (X in even games, O in odd ones)."""


def seats(mark: str) -> tuple[int, ...]:
    """The marks of a training setting's seats: (X,), (O,) or (X, O) for "both" (ValueError otherwise)."""
    if str(mark).strip().lower() == "both":
        return (X, O)
    return (parse_mark(mark),)

FORMAT = "mdpviz-ttt3d-agent"
"""The ``format`` field of a saved agent's metadata."""
FORMAT_VERSION = 1
"""The ``version`` field of a saved agent's metadata."""


def encode(boards: np.ndarray, mark: int) -> np.ndarray:
    """float64 (m, 54): the boards seen by ``mark``: its own marks, then the opponent's (0/1)."""
    b = np.atleast_2d(boards)
    z = np.empty((b.shape[0], N_FEATURES))
    np.equal(b, mark, out=z[:, :N_CELLS], casting="unsafe")
    np.equal(b, other(mark), out=z[:, N_CELLS:], casting="unsafe")
    return z


# ====================================================================== settings and progress
DEFAULT_LEARNING_RATES: dict[tuple[str, str], float] = {
    ("td", "linear"): 0.01,
    ("td", "quadratic"): 0.002,
    ("td", "mlp"): 0.03,
    ("q", "linear"): 0.01,
    ("q", "quadratic"): 0.002,
    ("q", "mlp"): 0.01,
}
"""The learning rate used when :attr:`TrainSettings.learning_rate` is None."""


MAX_HIDDEN = 1024
"""Most hidden units of the mlp approximator: its afterstate pass holds (1024, 54, hidden) float64,
0.45 GB at this cap (a typo of 100,000,000 would ask for 44 TB)."""


@dataclass(frozen=True)
class TrainSettings:
    """How an agent is trained and measured (defaults: the target agent of issue 30, which beats the
    tactical opponent in both seats)."""

    method: str = "td"
    """"td" (TD(0) on afterstate values) or "q" (Q-learning on action values)."""
    approx: str = "mlp"
    """"linear", "quadratic" or "mlp" (one hidden layer of ReLU units)."""
    episodes: int = 60_000
    """Training games (the default reaches the targets of issue 30 against the tactical opponent in
    both seats: README's 3D row)."""
    learning_rate: float | None = None
    """Step size alpha of the semi-gradient update; None: :data:`DEFAULT_LEARNING_RATES`."""
    discount: float = 0.9
    """gamma per round (the agent's move and the opponent's reply), in (0, 1]."""
    epsilon: float = 1.0
    """Exploration probability of the first episode (a uniformly random legal move)."""
    epsilon_decay: float = 0.9995
    """epsilon is multiplied by this after every episode, in (0, 1]."""
    epsilon_min: float = 0.05
    """epsilon never decays below this."""
    hidden: int = 128
    """Hidden ReLU units of the mlp approximator (at most 1,024)."""
    mark: str = "both"
    """The agent's seat: "X" moves first, "O" second, "both": X in even games and O in odd ones
    (one network plays either seat: the encoding is the mover's view)."""
    opponent: str = "tactical"
    """Who the agent trains against (:data:`TRAIN_OPPONENTS`): "random", "tactical", "self" or "curriculum"."""
    eval_opponent: str = "tactical"
    """The scripted opponent of the learning curve's evaluation games ("random" or "tactical")."""
    report_every: int = 5_000
    """K: a progress record every K episodes (and at episode 0 and at the end)."""
    eval_games: int = 1_000
    """Games per seat against ``eval_opponent`` behind each progress record's rates (0: no evaluation)."""
    seed: int = 0
    """Seed of the training generator (exploration, risk coins, the opponent, initial weights)."""

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise FieldError("method", f"unknown method {self.method!r}; choose one of {', '.join(METHODS)}",
                             subject="")
        if self.approx not in APPROXIMATORS:
            raise FieldError("approx", f"unknown approximator {self.approx!r}; choose one of "
                             f"{', '.join(APPROXIMATORS)}", subject="")
        for name, lo in (("episodes", 0), ("hidden", 1), ("report_every", 1), ("eval_games", 0)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
                raise FieldError(name, f"must be an integer >= {lo}, got {v!r}", subject=name)
        if self.hidden > MAX_HIDDEN:  # the afterstate pass holds (1024, 54, hidden) floats: 0.45 GB at the cap
            raise FieldError("hidden", f"must be at most {MAX_HIDDEN:,} units, got {self.hidden:,}", subject="hidden")
        lr = self.learning_rate
        if lr is not None and not (math.isfinite(float(lr)) and float(lr) > 0):
            raise FieldError("learning_rate", f"must be a positive number, got {lr!r}", subject="the learning rate")
        if not (0.0 < float(self.discount) <= 1.0):
            raise FieldError("discount", f"must be in (0, 1], got {self.discount!r}", subject="the discount")
        for name in ("epsilon", "epsilon_min"):
            v = float(getattr(self, name))
            if not 0.0 <= v <= 1.0:
                raise FieldError(name, f"must be in [0, 1], got {v!r}", subject=name)
        if not (0.0 < float(self.epsilon_decay) <= 1.0):
            raise FieldError("epsilon_decay", f"must be in (0, 1], got {self.epsilon_decay!r}", subject="epsilon_decay")
        try:
            seats(self.mark)
        except ValueError:
            raise FieldError("mark", f"must be one of {', '.join(MARKS)}, got {self.mark!r}", subject="the mark") from None
        if self.opponent not in TRAIN_OPPONENTS:
            raise FieldError("opponent", f"unknown opponent {self.opponent!r}; choose one of {', '.join(TRAIN_OPPONENTS)}",
                             subject="")
        if self.eval_opponent not in ttt3d.OPPONENTS:
            raise FieldError("eval_opponent", f"unknown evaluation opponent {self.eval_opponent!r}; choose one of "
                             f"{', '.join(ttt3d.OPPONENTS)}", subject="")
        if not isinstance(self.seed, (int, np.integer)) or isinstance(self.seed, bool) or self.seed < 0:
            raise FieldError("seed", f"must be a non-negative integer (numpy's seeds), got {self.seed!r}",
                             subject="the seed")

    @property
    def alpha(self) -> float:
        """The learning rate in use."""
        return float(self.learning_rate) if self.learning_rate is not None else DEFAULT_LEARNING_RATES[(self.method, self.approx)]

    @property
    def seats(self) -> tuple[int, ...]:
        """The marks the agent trains (and is evaluated) in: :func:`seats` of :attr:`mark`."""
        return seats(self.mark)

    def opponent_at(self, episode: int) -> str:
        """The opponent of 0-based training game k: "random", "tactical" or "self" (the curriculum's phase)."""
        if self.opponent != "curriculum":
            return self.opponent
        frac = int(episode) / max(int(self.episodes), 1)
        return next((name for end, name in CURRICULUM if frac < end), CURRICULUM[-1][1])

    def epsilon_at(self, episode: int) -> float:
        """epsilon of 0-based episode k: ``max(epsilon_min, epsilon * epsilon_decay**k)``."""
        return max(float(self.epsilon_min), float(self.epsilon) * float(self.epsilon_decay) ** int(episode))


@dataclass(frozen=True, eq=False)
class Agent:
    """A trained (or untrained) player: read-only weights plus how they were obtained."""

    settings: TrainSettings
    """The training settings (method, approximator, discount, ...)."""
    risk: np.ndarray
    """float64 (27), read-only: the risk vector the agent was trained with."""
    params: Mapping[str, np.ndarray]
    """The approximator's weights by name (read-only arrays)."""
    episodes: int = 0
    """Training episodes behind these weights."""
    train_seconds: float = 0.0
    """Seconds of training behind these weights (evaluations excluded)."""

    @property
    def mark(self) -> int:
        """The agent's first seat (X for an agent trained in both): its default mark."""
        return self.settings.seats[0]

    @property
    def marks(self) -> tuple[int, ...]:
        """The marks the agent was trained to play: (X,), (O,) or (X, O)."""
        return self.settings.seats

    def _approx(self) -> Approximator:
        a = self.__dict__.get("_approx_cache")
        if a is None:
            a = APPROX_CLASSES[self.settings.approx](self.params)
            object.__setattr__(self, "_approx_cache", a)
        return a

    def move_values_batch(self, boards: np.ndarray, mark: int, *, risk: np.ndarray | None = None) -> np.ndarray:
        """float64 (m, 27): the value of every legal move of each board to the player ``mark`` who
        makes it (expected return in reward units, +1 = a win), -inf on occupied cells.
        ``risk`` (default: the agent's own) is the coin the td agent expects."""
        p = self.risk if risk is None else validate_risk(risk, N_CELLS)
        b = np.atleast_2d(np.asarray(boards, dtype=np.int8))
        out = np.empty(b.shape, dtype=np.float64)
        chunk = 1024  # the network's afterstate pass holds (chunk, 54, hidden) floats
        for i in range(0, b.shape[0], chunk):
            out[i : i + chunk] = _move_values(self._approx(), self.settings.method, b[i : i + chunk], int(mark), p)
        return out

    def move_values(self, board: np.ndarray | str, mark: str | int | None = None) -> np.ndarray:
        """float64 (27): the value of each legal move to the player to move (NaN on occupied cells).
        ``mark`` is the player to move (default: the agent's own mark); the board must be in play."""
        b = ttt3d.board(board)
        me = self.mark if mark is None else parse_mark(mark)
        if ttt3d.winner(b) is not None:
            raise ValueError(f"board {ttt3d.board_text(b)!r}: the game is over, there is no move to choose")
        v = self.move_values_batch(b[None], me)[0]
        v[b != EMPTY] = np.nan
        return v

    def choose_move(self, board: np.ndarray | str, mark: str | int | None = None) -> int:
        """The greedy move (a cell 0..26) for the player ``mark`` (default: the agent's); ties go to
        the lowest cell."""
        v = self.move_values(board, mark)
        return int(np.nanargmax(v))

    def choose_moves(self, boards: np.ndarray, mark: int) -> np.ndarray:
        """int64 (m): the greedy move of each board of a batch (ties to the lowest cell)."""
        return np.argmax(self.move_values_batch(boards, mark), axis=1)

    def evaluate(
        self, games: int, *, seed: int | np.random.Generator | None = None, risk: np.ndarray | None = None,
        mark: str | int | None = None, opponent: str = "random",
    ) -> ttt3d.Score:
        """Play ``games`` greedy games against the scripted ``opponent`` ("random" or "tactical",
        vectorised, in lockstep) with the agent's mark and risk unless given; the score from the
        agent's side. In a game with other risks the td agent still scores its moves with the risks
        it was trained for (its model of the coin), like the seed's "agent trained for one risk
        vector" matchups."""
        me = self.mark if mark is None else parse_mark(mark)
        p = self.risk if risk is None else validate_risk(risk, N_CELLS)
        return ttt3d.play_vs(self.choose_moves, opponent=opponent, mark=me, risk=p, games=games, seed=seed)

    # ------------------------------------------------------------------ files
    def save(self, path: str | Path) -> Path:
        """Write the agent to ``path`` (an ``.npz`` archive: weights, risk and JSON metadata)."""
        p = Path(path)
        meta = {"format": FORMAT, "version": FORMAT_VERSION, "settings": asdict(self.settings),
                "episodes": int(self.episodes), "train_seconds": float(self.train_seconds)}
        arrays = {f"param_{k}": np.asarray(v) for k, v in self.params.items()}
        buf = io.BytesIO()
        np.savez(buf, meta=np.array(json.dumps(meta)), risk=np.asarray(self.risk), **arrays)
        p.write_bytes(buf.getvalue())  # exactly this name (np.savez would append ".npz")
        return p


MAX_AGENT_BYTES = 16 * 1024 * 1024
"""Most bytes an agent file may inflate to (all its entries, uncompressed): the largest agent mdpviz
writes (Q-learning on the quadratic approximator, or 1,024 hidden units) holds under 0.7 MB, so a file
over this budget is refused from its sizes, before anything is decompressed."""


def load_agent(path: str | Path) -> Agent:
    """Read an agent written by :meth:`Agent.save`; ValueError naming the file and what is wrong."""
    from mdpviz.core.files import check_archive_budget, check_regular_file

    p = Path(path)

    def problem(text: str) -> ValueError:
        return ValueError(f"{p}: {'no such agent file' if text == 'no such file' else text}")

    check_regular_file(p, problem, what="agent file")  # a FIFO would block open() for ever
    try:
        with open(p, "rb") as f:
            head = f.read(4)
    except OSError as e:
        raise ValueError(f"{p}: cannot be read ({e.strerror or e})") from None
    if head != b"PK\x03\x04":  # not a zip archive: a .npy array, a text file, an empty file...
        kind = "a single NumPy array (.npy)" if head == b"\x93NUM" else "empty" if not head else "not a zip archive"
        raise ValueError(f"{p}: not an mdpviz agent file (an .npz archive written by 'mdpviz ttt3d train'; this file is {kind})")
    # sizes from the zip directory and the arrays' headers, before anything is inflated (issue 35, item 12)
    check_archive_budget(p, MAX_AGENT_BYTES, problem, what="agent file")
    try:
        data = np.load(p, allow_pickle=False)
        files = data.files
    except Exception as e:  # noqa: BLE001  truncated or corrupt archives raise zipfile/OSError/ValueError/EOFError
        raise ValueError(f"{p}: not a readable agent file (a damaged or truncated .npz archive: {type(e).__name__})") from None
    with data:
        try:
            return _agent_from_archive(p, data, files)
        except ValueError as e:
            if str(e).startswith(f"{p}: "):
                raise  # ours: names the file and the entry
            # numpy's own (e.g. an object array, whose advice about pickles must never be passed on)
            raise ValueError(f"{p}: not an mdpviz agent file (an entry holds data this reader does not load)") from None
        except Exception as e:  # noqa: BLE001  an entry that cannot be decompressed (truncated archive)
            raise ValueError(f"{p}: not a readable agent file (a damaged .npz entry: {type(e).__name__})") from None


def _agent_from_archive(p: Path, data, files: list[str]) -> "Agent":
    """The agent in an opened .npz archive (see :func:`load_agent`)."""
    if "meta" not in data.files:
        raise ValueError(f"{p}: not an mdpviz agent file (no 'meta' entry)")
    try:
        meta = json.loads(str(data["meta"]))
    except json.JSONDecodeError as e:
        raise ValueError(f"{p}: the 'meta' entry is not valid JSON ({e.msg})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ValueError(f"{p}: not an mdpviz 3x3x3 agent file (format {meta.get('format') if isinstance(meta, dict) else None!r})")
    if meta.get("version") != FORMAT_VERSION:
        raise ValueError(f"{p}: agent file version {meta.get('version')!r} is not supported (expected {FORMAT_VERSION})")
    raw = meta.get("settings")
    if isinstance(raw, dict):  # a file from before issue 30 was trained and measured against the random opponent
        raw = {"opponent": "random", "eval_opponent": "random", **raw}
    known = {f.name for f in fields(TrainSettings)}
    if not isinstance(raw, dict) or set(raw) - known:
        raise ValueError(f"{p}: bad 'settings' in the metadata: {raw!r}")
    try:
        settings = TrainSettings(**raw)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{p}: bad settings: {e}") from None
    if "risk" not in data.files:
        raise ValueError(f"{p}: no 'risk' entry")
    try:
        risk = validate_risk(data["risk"], N_CELLS)
    except ValueError as e:
        raise ValueError(f"{p}: {e}") from None
    n_out = 1 if settings.method == "td" else N_CELLS
    want = param_shapes(settings.approx, n_features=N_FEATURES, n_out=n_out, hidden=settings.hidden)
    params = {}
    for name, shape in want.items():
        key = f"param_{name}"
        if key not in data.files:
            raise ValueError(f"{p}: missing weights {name!r} of the {settings.approx} approximator")
        a = np.array(data[key], dtype=np.float64)
        if a.shape != shape:
            raise ValueError(f"{p}: weights {name!r} have shape {a.shape}, expected {shape}")
        if not np.all(np.isfinite(a)):
            raise ValueError(f"{p}: weights {name!r} hold non-finite numbers")
        a.flags.writeable = False
        params[name] = a
    return Agent(settings=settings, risk=risk, params=params, episodes=int(meta.get("episodes", 0)),
                 train_seconds=float(meta.get("train_seconds", 0.0)))


def untrained_agent(settings: TrainSettings = TrainSettings(), *, risk: np.ndarray | None = None) -> Agent:
    """The agent :func:`train` starts from (zero weights, or the seeded random network)."""
    n_out = 1 if settings.method == "td" else N_CELLS
    rng = np.random.default_rng(settings.seed)
    params = APPROX_CLASSES[settings.approx].init(n_out, rng, n_features=N_FEATURES, hidden=settings.hidden)
    a = APPROX_CLASSES[settings.approx](params)
    return Agent(settings=settings, risk=ttt3d.resolve_risk(risk), params=a.params())


# ====================================================================== move values
def _move_values(approx: Approximator, method: str, boards: np.ndarray, me: int, risk: np.ndarray) -> np.ndarray:
    """float64 (m, 27): value of each move to the player ``me`` (-inf on occupied cells)."""
    Z = encode(boards, me)
    empty = boards == EMPTY
    if method == "q":
        q = approx.forward(Z)
    else:
        A = approx.after_values(Z)
        own_done = ttt3d.completing_cells(boards, me)
        opp_done = ttt3d.completing_cells(boards, other(me))
        last = (empty.sum(axis=1) == 1)[:, None]
        v_own = np.where(own_done, 1.0, np.where(last, 0.0, A[:, :N_CELLS]))
        v_opp = np.where(opp_done, -1.0, np.where(last, 0.0, A[:, N_CELLS:]))
        q = v_own + risk * (v_opp - v_own)
    return np.where(empty, q, -np.inf)


# ====================================================================== training
@dataclass(frozen=True, eq=False)
class TrainProgress:
    """One point of the learning curve, yielded every K episodes by :func:`train`."""

    episodes: int
    """Training episodes played so far."""
    epsilon: float
    """The exploration probability of the next episode."""
    mean_td_error: float
    """Mean |TD error| (reward units) over the updates since the previous record (NaN if none)."""
    updates: int
    """Number of updates since the previous record."""
    win: float
    """Fraction of the evaluation games the greedy agent won against ``eval_opponent`` (NaN: no
    evaluation); an agent of both seats: the mean of its two seats' rates (equal games in each)."""
    draw: float
    """Fraction drawn."""
    loss: float
    """Fraction lost."""
    eval_games: int
    """Games in the evaluation batch of each seat."""
    train_seconds: float
    """Seconds spent training so far (evaluations excluded)."""
    seconds: float
    """Wall time since training started, evaluations included."""
    agent: Agent
    """A read-only snapshot of the agent at this point (play against it, save it)."""
    done: bool = False
    """True for the last record."""
    eval_opponent: str = "random"
    """The scripted opponent of the evaluation games."""
    seat_win: Mapping[str, float] = field(default_factory=dict)
    """Win rate of each seat the agent plays ("X", "O") against ``eval_opponent`` (empty: no evaluation)."""
    baselines: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    """The yardsticks of the same evaluation (the same games and seeds, measured once per run):
    ``{"tactical": {seat: win}, "untrained": {seat: win}}``: the tactical player's and the
    untrained agent's win rate in each seat against ``eval_opponent`` (empty: no evaluation)."""

    def as_dict(self) -> dict[str, Any]:
        """The numbers of the record (without the agent), for JSON."""
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("agent", "seat_win", "baselines")}
        return {**out, "seat_win": dict(self.seat_win), "baselines": {k: dict(v) for k, v in self.baselines.items()}}


EVAL_SEED_SALT = 0x3D
"""The evaluation batch of each record uses ``default_rng([seed, EVAL_SEED_SALT])`` afresh (the
same opponent randomness at every point of the curve, and training untouched by evaluation)."""


def evaluate_seats(player: "Agent | str", games: int, *, seed: int, opponent: str, risk: np.ndarray,
                   marks: tuple[int, ...]) -> dict[str, ttt3d.Score]:
    """The score of ``player`` (an agent, greedy, or a scripted player's name) in each seat of
    ``marks`` over ``games`` games against ``opponent`` with the risks ``risk``. Seat X's games use
    ``default_rng([seed, EVAL_SEED_SALT])``, seat O's ``default_rng([seed, EVAL_SEED_SALT, 1])``:
    every player measured this way meets the same opponent draws."""
    out = {}
    for m in marks:
        key = [int(seed), EVAL_SEED_SALT] + ([1] if m == O else [])
        mine = player.choose_moves if isinstance(player, Agent) else player
        out[MARK_CHARS[m]] = ttt3d.play_vs(mine, opponent=opponent, mark=m, risk=risk, games=games,
                                           seed=np.random.default_rng(key))
    return out


def _diverged(episode: int, alpha: float, what: str) -> FieldError:
    return FieldError("learning_rate", f"{alpha:g} is too large: training diverged at episode {episode:,} ({what} "
                      "is no longer a finite number); stopped, nothing saved", subject="learning rate")


def _check_weights(approx: Approximator, episode: int, alpha: float) -> None:
    """FieldError naming the learning rate when a weight is NaN or infinite (issue 35, item 15: an agent
    of NaN weights was saved with exit 0)."""
    for name, w in approx.params().items():
        if not np.all(np.isfinite(w)):
            raise _diverged(episode, alpha, f"a weight of {name!r}")


def train(settings: TrainSettings = TrainSettings(), *, risk: np.ndarray | str | None = None) -> Generator[TrainProgress, None, Agent]:
    """Train an agent against ``settings.opponent`` in ``settings.mark``'s seats; yield a
    :class:`TrainProgress` at episode 0, every ``settings.report_every`` episodes and at the end
    (the greedy agent's win rate in each seat against ``settings.eval_opponent``, beside the
    baselines of the same games: the tactical player and the untrained agent); return the final agent.

    ``risk``: 27 probabilities, a preset name (seedable presets use ``settings.seed``) or None
    (classic). Stop early by simply not asking for more records; each record holds the agent.
    """
    p = ttt3d.resolve_risk(risk, seed=settings.seed)
    rng = np.random.default_rng(settings.seed)
    n_out = 1 if settings.method == "td" else N_CELLS
    approx = APPROX_CLASSES[settings.approx](APPROX_CLASSES[settings.approx].init(n_out, rng, n_features=N_FEATURES, hidden=settings.hidden))
    play = _episode_td if settings.method == "td" else _episode_q
    marks = settings.seats
    alpha, gamma = settings.alpha, float(settings.discount)
    t_start = time.perf_counter()
    train_secs = 0.0
    err_sum, n_upd = 0.0, 0
    n_eval = int(settings.eval_games)
    baselines: dict[str, dict[str, float]] = {}
    if n_eval:
        untrained = Agent(settings=settings, risk=p, params=approx.params())
        for name, who in (("tactical", "tactical"), ("untrained", untrained)):
            sc = evaluate_seats(who, n_eval, seed=settings.seed, opponent=settings.eval_opponent, risk=p, marks=marks)
            baselines[name] = {k: v.win for k, v in sc.items()}

    def record(done_eps: int, last: bool) -> TrainProgress:
        nonlocal err_sum, n_upd
        agent = Agent(settings=settings, risk=p, params=approx.params(), episodes=done_eps, train_seconds=train_secs)
        seat_win: dict[str, float] = {}
        if n_eval:
            sc = evaluate_seats(agent, n_eval, seed=settings.seed, opponent=settings.eval_opponent, risk=p, marks=marks)
            seat_win = {k: v.win for k, v in sc.items()}
            w, d, lo = (float(np.mean([getattr(v, a) for v in sc.values()])) for a in ("win", "draw", "loss"))
        else:
            w = d = lo = float("nan")
        rec = TrainProgress(
            episodes=done_eps, epsilon=settings.epsilon_at(done_eps),
            mean_td_error=err_sum / n_upd if n_upd else float("nan"), updates=n_upd, win=w, draw=d, loss=lo,
            eval_games=n_eval, train_seconds=train_secs,
            seconds=time.perf_counter() - t_start, agent=agent, done=last, eval_opponent=settings.eval_opponent,
            seat_win=seat_win, baselines=baselines,
        )
        err_sum, n_upd = 0.0, 0
        return rec

    total = int(settings.episodes)
    yield record(0, total == 0)
    k = int(settings.report_every)
    for start in range(0, total, k):
        stop = min(start + k, total)
        t0 = time.perf_counter()
        for ep in range(start, stop):
            eps = settings.epsilon_at(ep)
            opp = _opponent(settings.opponent_at(ep), approx, settings.method, p, eps)
            with np.errstate(over="ignore", invalid="ignore"):  # a divergence is caught below, as one error
                e, n = play(approx, rng, p, marks[ep % len(marks)], alpha, gamma, eps, opp)
            if not math.isfinite(e):  # the episode's |TD errors| sum: finite while every weight is
                _check_weights(approx, ep + 1, alpha)
                raise _diverged(ep + 1, alpha, "the TD error")
            err_sum += e
            n_upd += n
        train_secs += time.perf_counter() - t0
        _check_weights(approx, stop, alpha)
        yield record(stop, stop == total)
    return Agent(settings=settings, risk=p, params=approx.params(), episodes=total, train_seconds=train_secs)


def run_training(settings: TrainSettings = TrainSettings(), *, risk: np.ndarray | str | None = None) -> tuple[Agent, list[TrainProgress]]:
    """Drive :func:`train` to the end: the final agent and every progress record."""
    gen = train(settings, risk=risk)
    curve: list[TrainProgress] = []
    while True:
        try:
            curve.append(next(gen))
        except StopIteration as stop:
            return stop.value, curve


def _random_legal(board: np.ndarray, rng: np.random.Generator) -> int:
    empties = np.flatnonzero(board == EMPTY)
    return int(empties[rng.integers(empties.size)])


Opponent = Callable[[np.ndarray, int, np.random.Generator], int]
"""A training opponent: ``(board, its mark, rng) -> cell``."""


def _random_opponent(board: np.ndarray, mark: int, rng: np.random.Generator) -> int:
    """The uniformly random opponent (one ``integers`` draw)."""
    return _random_legal(board, rng)


def _opponent(name: str, approx: Approximator, method: str, risk: np.ndarray, eps: float) -> Opponent:
    """The training opponent ``name`` ("random", "tactical" or "self": the learner's own
    epsilon-greedy move for the other mark, with the weights as they are at that moment)."""
    if name == "random":
        return _random_opponent
    if name == "tactical":
        return ttt3d.tactical_move

    def own(board: np.ndarray, mark: int, rng: np.random.Generator) -> int:
        if rng.random() < eps:
            return _random_legal(board, rng)
        return int(np.argmax(_move_values(approx, method, board[None], mark, risk)[0]))

    return own


def _opponent_reply(board: np.ndarray, rng: np.random.Generator, risk: np.ndarray, me: int,
                    opp: Opponent) -> tuple[bool, float]:
    """The opponent's move and its coin; (game over, reward to me)."""
    _, result = ttt3d.play_move(board, opp(board, other(me), rng), other(me), risk=risk, rng=rng)
    return result is not None, _reward(result, me)


def _reward(result: int | None, me: int) -> float:
    """+1 if ``me`` won, -1 if the opponent did, 0 for a draw or a running game."""
    return 0.0 if not result else (1.0 if result == me else -1.0)


def _episode_td(approx: Approximator, rng: np.random.Generator, risk: np.ndarray, me: int,
                alpha: float, gamma: float, eps: float, opp: Opponent = _random_opponent) -> tuple[float, int]:
    """One game of semi-gradient TD(0) on afterstate values; (sum |delta|, number of updates)."""
    board = np.zeros(N_CELLS, dtype=np.int8)
    prev: np.ndarray | None = None  # z of the agent's previous (non-terminal) afterstate
    err, n = 0.0, 0
    if me == O:
        _opponent_reply(board, rng, risk, me, opp)  # the first move of a game never ends it
    while True:
        # The agent's move: every legal move scored by its expected value over the risk coin.
        if rng.random() < eps:
            c = _random_legal(board, rng)
        else:
            c = int(np.argmax(_move_values(approx, "td", board[None], me, risk)[0]))
        _, result = ttt3d.play_move(board, c, me, risk=risk, rng=rng)
        over, r = result is not None, _reward(result, me)
        z = encode(board, me)[0]
        if prev is not None:
            v_next = 0.0 if over else float(approx.forward(z[None])[0, 0])
            err += abs(approx.step(prev, 0, gamma * (r + v_next), alpha))
            n += 1
        if over:
            return err, n
        prev = z
        over, r = _opponent_reply(board, rng, risk, me, opp)
        if over:
            err += abs(approx.step(prev, 0, r, alpha))
            return err, n + 1


def _episode_q(approx: Approximator, rng: np.random.Generator, risk: np.ndarray, me: int,
               alpha: float, gamma: float, eps: float, opp: Opponent = _random_opponent) -> tuple[float, int]:
    """One game of semi-gradient Q-learning; (sum |delta|, number of updates)."""
    board = np.zeros(N_CELLS, dtype=np.int8)
    prev: tuple[np.ndarray, int] | None = None  # (z, cell) of the agent's previous decision
    err, n = 0.0, 0
    if me == O:
        _opponent_reply(board, rng, risk, me, opp)
    while True:
        z = encode(board, me)[0]
        q = np.where(board == EMPTY, approx.forward(z[None])[0], -np.inf)
        if prev is not None:  # the round that began at prev ended here, the game still running
            err += abs(approx.step(prev[0], prev[1], gamma * float(q.max()), alpha))
            n += 1
        c = _random_legal(board, rng) if rng.random() < eps else int(np.argmax(q))
        _, result = ttt3d.play_move(board, c, me, risk=risk, rng=rng)
        if result is None:
            over, r = _opponent_reply(board, rng, risk, me, opp)
        else:
            over, r = True, _reward(result, me)
        if over:
            err += abs(approx.step(z, c, r, alpha))
            return err, n + 1
        prev = (z, c)


__all__ = [
    "APPROXIMATORS", "APPROX_CLASSES", "Agent", "Approximator", "DEFAULT_LEARNING_RATES", "Linear", "METHODS", "MLP",
    "CURRICULUM", "MARKS", "N_FEATURES", "Quadratic", "TRAIN_OPPONENTS", "TrainProgress", "TrainSettings", "encode",
    "evaluate_seats", "load_agent", "run_training", "seats", "train", "untrained_agent",
]
