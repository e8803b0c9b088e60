"""Tic-tac-toe against a random opponent (seed 001) and risk tic-tac-toe (seed 003) in the window.

Both are :class:`~mdpviz.widgets.position.PositionGame`\\ s: the board shows one position with each
legal cell coloured by its Q-value. The rules live in :mod:`mdpviz.models.tictactoe` and
:mod:`mdpviz.models.risk_ttt`; the position models here only call them (the compiled MDP's
transitions, ``BoardGeometry.winner``, ``expand_boards``).

* :class:`VsRandomPositionModel`: the agent's positions are the MDP's states (DECISION); after the
  agent's move the random opponent is to move (a MODEL position, each empty cell with probability
  1/e), which is the second half of one MDP transition.
* :class:`RiskPositionModel` (3x3, compiled): both players are DECISION players (X maximises, O
  minimises); playing a cell tosses the risk coin (probability ``P[cell]`` that the opponent's mark
  lands) from the MDP's own outcomes.
* :class:`ExactRiskPositionModel` (4x4): no TabularMDP (86 million (board, turn) pairs); values from
  the exact backward-induction solution (:func:`solve_exact_cancellable`, on the window's job thread
  with a progress bar and Cancel), moves from :func:`~mdpviz.models.risk_ttt.expand_boards`.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

import numpy as np
from PySide6.QtCore import QObject, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from mdpviz.models import risk_ttt as rt
from mdpviz.models import tictactoe as tt
from mdpviz.models.mdp import TabularMDP
from mdpviz.models.simulate import policy_matrix, simulate, uniform_policy_matrix
from mdpviz.scenario import ScenarioError
from mdpviz.solvers import greedy, solve
from mdpviz.solvers.backward_induction import LayerExpansion, backward_induction
from mdpviz.solvers.sweep import rows_to_policy
from mdpviz.models.display import BackupTerm
from mdpviz.widgets.game import PANELS
from mdpviz.widgets.position import GridPainter, PositionGame
from mdpviz.models.position import (
    DECISION,
    MODEL,
    MatchupResult,
    MatchupRow,
    MoveSpec,
    Ply,
    Position,
    PositionModel,
    TabularPositionModel,
)
from mdpviz.widgets import named as _named

RISK_COLOR = "#e69f00"
"""Fill of the risk gauge on each cell (Okabe-Ito orange)."""

MARK = {tt.X: "X", tt.O: "O"}


def _mark_name(m: int) -> str:
    return MARK[int(m)]


def greedy_policy(mdp: TabularMDP, values: np.ndarray) -> np.ndarray:
    """int64 (n_states): the greedy action of every state under ``values`` (ties to the lowest action,
    min for minimising movers), -1 for terminal states."""
    _, rows = greedy(mdp, mdp.q_values(np.asarray(values, dtype=np.float64)))
    return rows_to_policy(mdp, rows)


class _ValuesCache:
    """Remembers one result per values array (the board asks again at every redraw)."""

    def __init__(self) -> None:
        self._key: Any = None
        self._val: Any = None

    def get(self, values: Any, fn: Callable[[], Any]) -> Any:
        if self._key is not values:
            self._val = fn()
            self._key = values
        return self._val


# ====================================================================== tic-tac-toe vs random
class VsRandomPositionModel(TabularPositionModel):
    """Positions of tic-tac-toe against a uniformly random opponent (agent: DECISION; opponent: MODEL)."""

    def __init__(self, game: tt.VsRandomGame) -> None:
        super().__init__(game.mdp)
        self.game = game
        self.geo = game.geometry
        self.me, self.opp = game.agent, game.opponent
        self.players = (_mark_name(self.me), _mark_name(self.opp))
        self.n_cells = self.geo.n_cells
        self.settings = game.settings
        self._outcomes = _ValuesCache()

    # ------------------------------------------------------------------ positions
    def _board_pos(self, idx: int) -> Position:
        """The position of board index ``idx``: the agent to move (a state), the opponent to move
        (after the agent's move), or the end of the game."""
        cells = self.geo.decode(idx)
        w = self.geo.winner(cells)
        if w is not None:
            outcome = "draw" if w == 0 else f"{_mark_name(w)} wins"
            return Position(("end", idx), cells, "", outcome=outcome)
        n_me = int(np.count_nonzero(cells == self.me))
        n_opp = int(np.count_nonzero(cells == self.opp))
        lead = 0 if self.settings.first == "agent" else 1
        if n_opp == n_me + lead:  # the agent is to move: an MDP state
            s = self.game.state_of(idx)
            return Position(("s", s), cells, _mark_name(self.me), state=s, chooser=DECISION, objective="max")
        return Position(("after", idx), cells, _mark_name(self.opp), chooser=MODEL)

    def start(self, *, first: str | None = None) -> Position:
        starter = self.me if self.settings.first == "agent" else self.opp
        if first is not None and tt.parse_mark(first) != starter:
            who = "the agent" if starter == self.me else "the random opponent"
            raise ValueError(f"In this game {who} ({_mark_name(starter)}) moves first: change 'First move' in the "
                             "game panel to let the other side start (the solver restarts).")
        return self._board_pos(0)

    def position_of(self, state: int) -> Position:
        s = int(state)
        if not 0 <= s < self.mdp.n_states:
            raise ValueError(f"state {s} is out of range 0..{self.mdp.n_states - 1}")
        if s >= self.game.n_board_states:  # the outcome states (no board: the game is over)
            name = tt.OUTCOMES[s - self.game.n_board_states]
            return Position(("outcome", s), np.zeros(self.n_cells, dtype=np.int8), "", state=s,
                            outcome={"win": f"{self.players[0]} (agent) wins", "draw": "draw",
                                     "loss": f"{self.players[1]} (random) wins"}[name])
        return self._board_pos(int(self.game.board_index[s]))

    def _index(self, pos: Position) -> int:
        return int(pos.cells.astype(np.int64) @ self.geo.powers)

    def moves(self, pos: Position) -> tuple[MoveSpec, ...]:
        if pos.terminal:
            return ()
        if pos.chooser == DECISION:
            return tuple(MoveSpec(int(a), f"cell {int(a)}", int(a)) for a in self.game.legal_moves(pos.state))
        empty = np.flatnonzero(pos.cells == tt.EMPTY)
        return tuple(MoveSpec(int(c), f"cell {int(c)}", int(c), prob=1.0 / empty.size) for c in empty)

    def play(self, pos: Position, action: int, rng: np.random.Generator) -> Ply:
        c = int(action)
        if pos.terminal or pos.cells[c] != tt.EMPTY:
            raise ValueError(f"cell {c} is not a legal move here")
        mark = self.me if pos.chooser == DECISION else self.opp
        nxt = self._board_pos(self._index(pos) + mark * int(self.geo.powers[c]))
        s = self.settings
        reward = 0.0
        if nxt.terminal:  # the reward of the MDP transition that ends the game
            reward = float(s.draw if nxt.outcome == "draw" else (s.win if mark == self.me else s.loss))
        who = "agent" if mark == self.me else "random opponent"
        text = f"{_mark_name(mark)} ({who}) on cell {c}"
        if nxt.terminal:
            text += f": {nxt.outcome}, reward {reward:g}"
        return Ply(pos, c, nxt, text, reward)

    def reply(self, pos: Position, rng: np.random.Generator) -> int:
        empty = np.flatnonzero(pos.cells == tt.EMPTY)
        return int(empty[rng.integers(empty.size)])

    def human_marks(self) -> tuple[str, ...]:
        return (self.players[1],)

    def first_choices(self) -> tuple[str, ...]:
        return (self.players[0] if self.settings.first == "agent" else self.players[1],)

    def state_name(self, s: int) -> str:
        lab = self.mdp.state_labels
        return lab[s] if lab is not None else str(s)

    def describe(self, pos: Position) -> str:
        if pos.terminal:
            return f"Game over: {pos.outcome}"
        if pos.chooser == DECISION:
            return f"{pos.mover} (agent) to move"
        return f"{pos.mover} (random opponent) to move: each empty cell 1/{int(np.count_nonzero(pos.cells == 0))}"

    # ------------------------------------------------------------------ exact outcomes
    def outcome_matrix(self, values: np.ndarray) -> np.ndarray:
        """(n_states, 3): exact P(agent wins), P(draw), P(agent loses) from every state under the
        greedy policy of ``values`` (cached per values array)."""
        return self._outcomes.get(values, lambda: tt.outcome_matrix(self.game, greedy_policy(self.mdp, values)))

    def outcome_probabilities(self, pos: Position, values: Any) -> dict[str, float] | None:
        if values is None or pos.terminal:
            return None
        h = self.outcome_matrix(values)
        if pos.chooser == DECISION:
            p = h[pos.state]
        else:  # the random opponent's reply first: the mean over its moves
            p = np.zeros(3)
            mv = self.moves(pos)
            rng = np.random.default_rng(0)  # play() draws nothing for a given cell
            for m in mv:
                nxt = self.play(pos, m.action, rng).after
                if nxt.terminal:
                    p[{"draw": 1}.get(nxt.outcome, 2)] += m.prob
                else:
                    p += m.prob * h[nxt.state]
        return {f"{self.players[0]} (agent) wins": float(p[0]), "draw": float(p[1]),
                f"{self.players[1]} wins": float(p[2])}


@dataclass(frozen=True)
class TicTacToeState:
    """The edits of the vs-random game (the rules and rewards of seed 001)."""

    settings: tt.VsRandomSettings = tt.VsRandomSettings()
    """Agent's mark, who moves first, rewards and discount."""


class TicTacToeGame(PositionGame):
    """Tic-tac-toe against a uniformly random opponent (seed 001)."""

    key = "ttt"
    title = "Tic-tac-toe vs random"
    value_label = "Q (reward)"
    unit = "reward"
    supports_discount = True

    def __init__(self, settings: tt.VsRandomSettings | None = None, parent: QObject | None = None) -> None:
        super().__init__(TicTacToeState(settings or tt.VsRandomSettings()), parent)
        self._compiled: tuple[Any, tt.VsRandomGame] | None = None
        self._model: tuple[Any, VsRandomPositionModel] | None = None
        self._editor: QWidget | None = None

    @property
    def settings(self) -> tt.VsRandomSettings:
        return self._state.settings

    def compiled(self) -> tt.VsRandomGame:
        """The compiled game of the current settings (cached)."""
        if self._compiled is None or self._compiled[0] is not self._state:
            self._compiled = (self._state, tt.compile_vs_random(self.settings))
        return self._compiled[1]

    def build_mdp(self) -> TabularMDP:
        return self.compiled().mdp

    def position_model(self) -> VsRandomPositionModel | None:
        if self._model is None or self._model[0] is not self._state:
            try:
                self._model = (self._state, VsRandomPositionModel(self.compiled()))
            except ValueError:
                return None
        return self._model[1]

    def painter(self) -> GridPainter:
        return GridPainter(self.settings.size)

    def state_name(self, s: int) -> str:
        m = self.mdp()
        if m is not None and m.state_labels is not None:
            return m.state_labels[s]
        return str(s)

    def start_state(self) -> int:
        return int(self.compiled().start_states[0])

    # ------------------------------------------------------------------ edits
    def _set(self, text: str, **changes) -> bool:
        try:
            new = replace(self.settings, **changes)
        except ValueError as e:
            self.message.emit(str(e))
            return False
        return self.edit(TicTacToeState(new), text)

    def set_discount(self, gamma: float) -> bool:
        gamma = float(gamma)
        if not 0.0 <= gamma <= 1.0:
            raise ValueError(f"discount must be in [0, 1], got {gamma}")
        return self._set(f"discount {gamma:g}", discount=gamma)

    def set_rewards(self, *, win: float | None = None, draw: float | None = None, loss: float | None = None) -> bool:
        s = self.settings
        w, d, lo = (s.win if win is None else float(win)), (s.draw if draw is None else float(draw)), \
            (s.loss if loss is None else float(loss))
        return self._set(f"rewards win {w:g}, draw {d:g}, loss {lo:g}", win=w, draw=d, loss=lo)

    def set_agent(self, mark: str) -> bool:
        m = _mark_name(tt.parse_mark(mark))
        return self._set(f"agent plays {m}", agent=m)

    def set_first(self, who: str) -> bool:
        if who not in ("agent", "opponent"):
            raise ValueError(f"first must be 'agent' or 'opponent', got {who!r}")
        return self._set(f"{who} moves first", first=who)

    def editor(self) -> QWidget:
        if self._editor is None:
            self._editor = VsRandomEditor(self)
        return self._editor

    # ------------------------------------------------------------------ playing
    def episode(self, mdp, probs, rng):
        from mdpviz.models.episodes import sample_mdp_episode

        g = self.compiled()
        start = int(g.start_states[rng.integers(g.start_states.size)])  # the opponent's random opening
        return sample_mdp_episode(mdp, probs, rng=rng, start=start, max_steps=g.geometry.n_cells + 1,
                                  state_name=None, action_name=lambda a: f"cell {a}")

    def matchups(self) -> list[str]:
        a, o = _mark_name(self.compiled().agent), _mark_name(self.compiled().opponent)
        return [f"optimal {a} vs random {o}", f"random {a} vs random {o}"]

    def simulation_job(self, mdp, policy, *, games, seed):
        g = self.compiled()
        pol = None if policy is None else np.array(policy, dtype=np.int64)
        games = int(games)
        if games < 2:
            raise ValueError(f"simulate at least 2 games, got {games}")
        names = self.matchups()

        def job(progress, cancelled) -> MatchupResult | None:
            opt = pol if pol is not None else solve(g.mdp, "pi").policy
            rows = []
            streams = np.random.SeedSequence(int(seed)).spawn(2)
            for i, (name, probs) in enumerate(zip(names, (policy_matrix(g.mdp, opt), uniform_policy_matrix(g.mdp)))):
                if cancelled():
                    return None
                counts, exact = vs_random_match(g, probs, games=games, seed=np.random.default_rng(streams[i]))
                rows.append(_agent_row(g, name, counts, exact))
                progress(i + 1, len(names), f"{name}: {games:,} games")
            first = "agent" if g.settings.first == "agent" else "random opponent"
            return MatchupResult(tuple(rows), start=f"the empty board ({first} first)")

        return job

    # ------------------------------------------------------------------ scenarios
    def to_dict(self) -> dict[str, Any]:
        s = self.settings
        return {"agent": s.agent, "first": s.first, "win": s.win, "draw": s.draw, "loss": s.loss,
                "discount": s.discount, "size": s.size}

    def load_dict(self, data: dict[str, Any], path: str) -> TicTacToeState:
        where = f"games.{self.key}"
        if not isinstance(data, dict):
            raise ScenarioError(path, where, "must be an object")
        kw = {}
        for k in ("agent", "first"):
            if k in data:
                if not isinstance(data[k], str):
                    raise ScenarioError(path, f"{where}.{k}", f"must be a string, got {data[k]!r}")
                kw[k] = data[k]
        for k in ("win", "draw", "loss", "discount"):
            if k in data:
                v = data[k]
                if isinstance(v, bool) or not isinstance(v, (int, float)):
                    raise ScenarioError(path, f"{where}.{k}", f"must be a number, got {v!r}")
                kw[k] = float(v)
        if "size" in data:
            if isinstance(data["size"], bool) or not isinstance(data["size"], int):
                raise ScenarioError(path, f"{where}.size", f"must be a whole number, got {data['size']!r}")
            kw["size"] = data["size"]
        try:
            return TicTacToeState(tt.VsRandomSettings(**kw))
        except ValueError as e:
            raise ScenarioError(path, where, str(e)) from None


def vs_random_match(game: tt.VsRandomGame, probs: np.ndarray, *, games: int,
                    seed: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(wins, draws, losses counts, exact P(win), P(draw), P(loss)) of the agent playing ``probs``
    (n_states x n_cells) against the random opponent: simulated with the vectorised simulator over the
    compiled MDP, exact from the absorption probabilities (:func:`mdpviz.models.tictactoe.outcome_matrix`)."""
    starts = game.start_states[seed.integers(0, game.start_states.size, size=games)]
    ep = simulate(game.mdp, probs, start=starts, episodes=games, seed=seed, max_steps=game.geometry.n_cells + 1)
    if not ep.finished.all():
        raise RuntimeError("internal error: a simulated game did not end")
    counts = np.bincount(ep.final_state - game.n_board_states, minlength=3).astype(np.int64)
    h = tt.outcome_matrix(game, probs=probs)
    exact = game.start_probs @ h[game.start_states]
    return counts, exact


def _agent_row(game: tt.VsRandomGame, name: str, counts: np.ndarray, exact: np.ndarray) -> MatchupRow:
    """A matchup row in X / O terms from the agent's win / draw / loss."""
    w, d, lo = (int(c) for c in counts)
    ew, ed, el = (float(e) for e in exact)
    if game.agent == tt.X:
        return MatchupRow(name, "agent", "random", (w, lo, d), w + d + lo, (ew, el, ed))
    return MatchupRow(name, "random", "agent", (lo, w, d), w + d + lo, (el, ew, ed))


class VsRandomEditor(QWidget):
    """The vs-random game's panel: the agent's mark, who moves first, rewards, discount."""

    def __init__(self, game: TicTacToeGame, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.game = game
        self.setObjectName("tttEditor")
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        self.agent = _named(QComboBox(), "tttAgentMark", "Agent's mark")
        self.agent.addItems(["O", "X"])
        self.agent.setToolTip("The agent's mark; the random opponent (or you, in 'play vs agent') has the other")
        self.first = _named(QComboBox(), "tttFirst", "First move")
        self.first.addItem("random opponent", "opponent")
        self.first.addItem("agent", "agent")
        self.win = self._spin("tttWin", "Reward for a win")
        self.draw = self._spin("tttDraw", "Reward for a draw")
        self.loss = self._spin("tttLoss", "Reward for a loss")
        self.discount = _named(QDoubleSpinBox(), "tttDiscount", "Discount per round")
        self.discount.setRange(0.0, 1.0)
        self.discount.setDecimals(3)
        self.discount.setSingleStep(0.05)
        self.discount.setKeyboardTracking(False)
        form.addRow("Agent plays", self.agent)
        form.addRow("First move", self.first)
        form.addRow("Win reward", self.win)
        form.addRow("Draw reward", self.draw)
        form.addRow("Loss reward", self.loss)
        form.addRow("Discount", self.discount)
        note = QLabel("The opponent picks an empty cell uniformly at random. One MDP step is a round (your move and "
                      "its reply). Seed 001: +500 / 0 / \u22123500, discount 0.9. In 'Play vs agent' you take the "
                      "random opponent's place: choose the agent's mark and who moves first here.")
        note.setWordWrap(True)
        form.addRow(note)
        self.refresh()
        self.agent.currentTextChanged.connect(lambda t: self.game.set_agent(t))
        self.first.currentIndexChanged.connect(lambda _i: self.game.set_first(self.first.currentData()))
        for w, k in ((self.win, "win"), (self.draw, "draw"), (self.loss, "loss")):
            w.valueChanged.connect(lambda v, k=k: self.game.set_rewards(**{k: v}))
        self.discount.valueChanged.connect(lambda v: self.game.set_discount(v))
        game.edited.connect(lambda _t: self.refresh())

    def _spin(self, name: str, text: str) -> QDoubleSpinBox:
        s = _named(QDoubleSpinBox(), name, text)
        s.setRange(-1e6, 1e6)
        s.setDecimals(1)
        s.setSingleStep(100)
        s.setKeyboardTracking(False)
        return s

    def refresh(self) -> None:
        s = self.game.settings
        for w, v in ((self.win, s.win), (self.draw, s.draw), (self.loss, s.loss), (self.discount, s.discount)):
            w.blockSignals(True)
            w.setValue(float(v))
            w.blockSignals(False)
        for combo, data in ((self.agent, None), (self.first, s.first)):
            combo.blockSignals(True)
            if data is None:
                combo.setCurrentText(s.agent)
            else:
                combo.setCurrentIndex(combo.findData(data))
            combo.blockSignals(False)




# ====================================================================== risk tic-tac-toe
def _risk_outcome(cells: np.ndarray, geo: tt.BoardGeometry) -> str:
    w = geo.winner(cells)
    return "" if w is None else ("draw" if w == 0 else f"{_mark_name(w)} wins")


class RiskPositionModel(TabularPositionModel):
    """Positions of 3x3 risk tic-tac-toe: every (board, turn) is an MDP state; X max, O min."""

    def __init__(self, game: rt.RiskGame) -> None:
        super().__init__(game.mdp)
        self.game = game
        self.geo = game.geometry
        self.n_cells = self.geo.n_cells
        self._policy = _ValuesCache()

    def position_of(self, state: int) -> Position:
        s = int(state)
        g = self.game
        cells = g.board_of(s)
        mover = _mark_name(g.turn_of(s))
        out = ""
        if g.mdp.terminal[s]:
            out = {0: "X wins", 1: "O wins", 2: "draw"}[int(g.outcome[s])]
        return Position(("s", s), cells, "" if out else mover, state=s, chooser=DECISION,
                        objective="max" if g.turn_of(s) == tt.X else "min", outcome=out)

    def start(self, *, first: str | None = None) -> Position:
        return self.position_of(self.game.state_of(0, first or "X"))

    def moves(self, pos: Position) -> tuple[MoveSpec, ...]:
        if pos.terminal:
            return ()
        p = self.game.risk
        return tuple(MoveSpec(int(c), f"cell {int(c)} (risk {p[c]:.2f})", int(c))
                     for c in self.game.legal_moves(pos.state))

    def play(self, pos: Position, action: int, rng: np.random.Generator) -> Ply:
        c = int(action)
        if c not in self.game.legal_moves(pos.state):
            raise ValueError(f"cell {c} is not a legal move here")
        outs = self.mdp.outcomes(pos.state, c)  # the compiled coin: (next state, probability, reward)
        k = int(rng.choice(len(outs), p=np.array([o[1] for o in outs]) / sum(o[1] for o in outs)))
        dst, _p, r = outs[k]
        nxt = self.position_of(int(dst))
        own = tt.parse_mark(pos.mover)
        landed = int(nxt.cells[c])
        risk = float(self.game.risk[c])
        if landed == own:
            text = f"{pos.mover} on cell {c}: its own mark landed (risk {risk:.2f})"
        else:
            text = f"{pos.mover} chose cell {c}: the coin (risk {risk:.2f}) put {_mark_name(landed)}'s mark there"
        if nxt.terminal:
            text += f"; {nxt.outcome}"
        return Ply(pos, c, nxt, text, float(r))

    def state_name(self, s: int) -> str:
        return rt.state_label(self.game, int(s))

    def describe(self, pos: Position) -> str:
        if pos.terminal:
            return f"Game over: {pos.outcome}"
        return f"{pos.mover} to move ({'maximises' if pos.mover == 'X' else 'minimises'} X's result)"

    def backup(self, pos: Position, action: int, values: Any) -> list[BackupTerm]:
        terms = super().backup(pos, action, values)
        out = []
        for t in terms:
            landed = int(self.game.board_of(t.next_state)[int(action)])
            note = "own mark" if _mark_name(landed) == pos.mover else "coin: opponent's mark"
            out.append(BackupTerm(t.prob, t.reward + 0.0, t.next_state, t.next_value, note))  # + 0.0: no "-0"
        return out

    def outcome_probabilities(self, pos: Position, values: Any) -> dict[str, float] | None:
        if values is None or pos.terminal:
            return None
        agent = self._policy.get(values, lambda: rt.Agent("greedy", policy_matrix(self.mdp, greedy_policy(self.mdp, values))))
        m = rt.exact_match(self.game, agent, agent, start=pos.state)
        return {"X wins": m.x_wins, "O wins": m.o_wins, "draw": m.draws}


class ExactRiskPositionModel(PositionModel):
    """Positions of n x n risk tic-tac-toe solved exactly (no MDP: values from an ExactRiskSolution).

    ``values`` given to the board is the :class:`~mdpviz.models.risk_ttt.ExactRiskSolution` (or None
    before the solve). Moves and the coin come from :func:`~mdpviz.models.risk_ttt.expand_boards`.
    """

    value_label = "Q (X's expected result)"

    def __init__(self, risk: np.ndarray, size: int, solution: rt.ExactRiskSolution | None = None) -> None:
        self.geo = tt.BoardGeometry(size=int(size))
        self.risk = rt.validate_risk(risk, self.geo.n_cells)
        self.n_cells = self.geo.n_cells
        self.solution = solution

    def _pos(self, idx: int, turn: int) -> Position:
        cells = self.geo.decode(idx)
        out = _risk_outcome(cells, self.geo)
        return Position((idx, turn), cells, "" if out else _mark_name(turn), chooser=DECISION,
                        objective="max" if turn == tt.X else "min", outcome=out)

    def start(self, *, first: str | None = None) -> Position:
        return self._pos(0, tt.parse_mark(first or "X"))

    def _expand(self, pos: Position) -> LayerExpansion:
        idx, turn = pos.key
        return rt.expand_boards(self.geo, self.risk, np.array([idx]), turn, digits=pos.cells[None])

    def moves(self, pos: Position) -> tuple[MoveSpec, ...]:
        if pos.terminal:
            return ()
        ex = self._expand(pos)
        return tuple(MoveSpec(int(c), f"cell {int(c)} (risk {self.risk[c]:.2f})", int(c)) for c in ex.row_action)

    def _children(self, pos: Position) -> tuple[LayerExpansion, int]:
        return self._expand(pos), tt.other(pos.key[1])

    def move_values(self, pos: Position, values: Any) -> np.ndarray:
        """Q(b, t, c) = sum over the two coin outcomes of p (r + V(child, other turn)) (no discount)."""
        mv = self.moves(pos)
        sol = values if values is not None else self.solution
        if sol is None or not mv:
            return np.full(len(mv), np.nan)
        ex, nt = self._children(pos)
        q = np.zeros(ex.row_action.size)
        for j in range(ex.child.shape[0]):
            v = np.array([sol.value(int(ch), nt) for ch in ex.child[j]])
            q += ex.prob[j] * (ex.reward[j] + v)
        return q

    def value(self, pos: Position, values: Any) -> float:
        sol = values if values is not None else self.solution
        if sol is None:
            return math.nan
        return 0.0 if pos.terminal else float(sol.value(pos.key[0], pos.key[1]))

    def default_values(self) -> Any:
        return self.solution

    def value_range(self) -> tuple[float, float]:
        return (-1.0, 1.0)  # X's expected result: +1 a line of X, -1 a line of O

    def play(self, pos: Position, action: int, rng: np.random.Generator) -> Ply:
        ex, nt = self._children(pos)
        rows = np.flatnonzero(ex.row_action == int(action))
        if pos.terminal or rows.size == 0:
            raise ValueError(f"cell {action} is not a legal move here")
        r = int(rows[0])
        slot = int(rng.random() < ex.prob[1, r])  # slot 1: the opponent's mark lands (probability P[cell])
        nxt = self._pos(int(ex.child[slot, r]), nt)
        c = int(action)
        risk = float(self.risk[c])
        text = (f"{pos.mover} on cell {c}: its own mark landed (risk {risk:.2f})" if slot == 0 else
                f"{pos.mover} chose cell {c}: the coin (risk {risk:.2f}) put {_mark_name(nt)}'s mark there")
        if nxt.terminal:
            text += f"; {nxt.outcome}"
        return Ply(pos, c, nxt, text, float(ex.reward[slot, r]))

    def backup(self, pos: Position, action: int, values: Any) -> list[BackupTerm]:
        sol = values if values is not None else self.solution
        if sol is None or pos.terminal:
            return []
        ex, nt = self._children(pos)
        rows = np.flatnonzero(ex.row_action == int(action))
        if rows.size == 0:
            return []
        r = int(rows[0])
        out = []
        for j, note in ((0, "own mark"), (1, "coin: opponent's mark")):
            if ex.prob[j, r] > 0:
                ch = int(ex.child[j, r])
                out.append(BackupTerm(float(ex.prob[j, r]), float(ex.reward[j, r]) + 0.0, ch, float(sol.value(ch, nt)),
                                      note))
        return out

    def state_name(self, idx: int) -> str:
        return self.geo.text(int(idx))

    def describe(self, pos: Position) -> str:
        if pos.terminal:
            return f"Game over: {pos.outcome}"
        if self.solution is None:
            return f"{pos.mover} to move (not solved yet: press Solve 4x4 in the game panel)"
        return f"{pos.mover} to move ({'maximises' if pos.mover == 'X' else 'minimises'} X's result)"


class _Cancelled(Exception):
    """Raised inside the layered solve when the job was cancelled."""


class _CancellableLayers:
    """A LayeredGame that checks for cancellation and reports progress before every batch."""

    def __init__(self, game: rt.RiskLayers, progress: Callable[[int, int, str], None],
                 cancelled: Callable[[], bool]) -> None:
        self.game = game
        self.n_index, self.n_actions, self.n_layers = game.n_index, game.n_actions, game.n_layers
        self.discount = game.discount
        self.progress, self.cancelled = progress, cancelled
        self.done = 0

    def layer(self, k: int) -> np.ndarray:
        if self.cancelled():
            raise _Cancelled
        return self.game.layer(k)

    def expand(self, indices: np.ndarray, layer: int) -> LayerExpansion:
        if self.cancelled():
            raise _Cancelled
        ex = self.game.expand(indices, layer)
        self._report(indices, layer)
        return ex

    def backup(self, indices: np.ndarray, layer: int, V: np.ndarray, policy, tie_tol: float):
        """The game's compiled backup of a batch (the same numbers as ``expand`` + the generic
        backup; None where no kernel applies, and backward induction then calls ``expand``)."""
        if self.cancelled():
            raise _Cancelled
        done = self.game.backup(indices, layer, V, policy, tie_tol)
        if done is not None:
            self._report(indices, layer)
        return done

    def _report(self, indices: np.ndarray, layer: int) -> None:
        self.done += int(np.asarray(indices).size)
        self.progress(self.done, self.n_index, f"layer {layer} ({layer} marks): {self.done:,} of {self.n_index:,} boards")


def solve_exact_cancellable(risk: np.ndarray, *, size: int = 4, progress: Callable[[int, int, str], None],
                            cancelled: Callable[[], bool]) -> rt.ExactRiskSolution | None:
    """:func:`mdpviz.models.risk_ttt.solve_exact` with progress per batch of boards and cancellation
    (None when ``cancelled()`` turned True; checked before every batch of 2^18 boards)."""
    rt.check_exact_size(size)
    t0 = time.perf_counter()
    geo = tt.BoardGeometry(size=int(size))
    game = _CancellableLayers(rt.RiskLayers(risk, geometry=geo), progress, cancelled)
    gen = backward_induction(game, keep_policy=True)
    try:
        while True:
            try:
                next(gen)
            except StopIteration as stop:
                sol = stop.value
                break
    except _Cancelled:
        return None
    return rt.ExactRiskSolution(geometry=geo, risk=game.game.risk, layered=sol, seconds=time.perf_counter() - t0)


@dataclass(frozen=True)
class RiskState:
    """The edits of risk tic-tac-toe."""

    risk: tuple[float, ...] = rt.STOCHASTIC_3X3
    """P[i] per cell: the probability that playing cell i places the opponent's mark."""
    size: int = 3
    """Board side: 3 (compiled, stepped by the solvers) or 4 (solved exactly on the job thread)."""
    preset: str = "stochastic"
    """The preset the risks came from, or "custom" after an edit on the board."""
    seed: int = 0
    """Seed of the noisy and random presets."""


class RiskPainter(GridPainter):
    """A grid whose cells show their risk: an orange gauge along the bottom and the number."""

    def __init__(self, game: "RiskTicTacToeGame") -> None:
        super().__init__(game.rstate.size)
        self.game = game
        self.preview: dict[int, float] = {}
        """Risks being dragged (not yet an edit)."""

    def risk(self, cell: int) -> float:
        if cell in self.preview:
            return self.preview[cell]
        r = self.game.rstate.risk
        return float(r[cell]) if cell < len(r) else 0.0

    def paint_piece(self, qp: QPainter, r: QRectF, cell: int, code: int) -> None:
        super().paint_piece(qp, r, cell, code)

    def paint_background(self, qp: QPainter, rect: QRectF, cells: list[QRectF]) -> None:
        pass

    def paint_overlay(self, qp: QPainter, cells: list[QRectF]) -> None:
        """The risk gauge and number of every cell (drawn over the values)."""
        f = QFont()
        for c, r in enumerate(cells):
            p = self.risk(c)
            h = max(4.0, r.height() * 0.07)
            band = QRectF(r.left() + 2, r.bottom() - h - 2, r.width() - 4, h)
            qp.setPen(Qt.PenStyle.NoPen)
            qp.setBrush(QColor("#ffffff"))
            qp.drawRect(band)
            qp.setBrush(QColor(RISK_COLOR))
            qp.drawRect(QRectF(band.left(), band.top(), band.width() * p, band.height()))
            qp.setPen(QColor("#555555"))
            qp.setBrush(Qt.BrushStyle.NoBrush)
            qp.drawRect(band)
            f.setPixelSize(max(8, int(r.width() * 0.11)))
            qp.setFont(f)
            inset = max(4.0, r.width() * 0.08)  # clear of the greedy move's frame
            tag = QRectF(r.left() + inset, r.top() + inset, r.width() * 0.42, f.pixelSize() * 1.35)
            qp.setPen(Qt.PenStyle.NoPen)
            qp.setBrush(QColor(255, 255, 255, 220))
            qp.drawRoundedRect(tag, 3, 3)
            qp.setPen(QColor("#000000"))
            qp.drawText(tag, Qt.AlignmentFlag.AlignCenter, f"P {p:.2f}")

    def cell_name(self, cell: int) -> str:
        return f"{super().cell_name(cell)}, risk {self.risk(cell):.2f}"


class RiskTicTacToeGame(PositionGame):
    """Risk tic-tac-toe (seed 003): 3x3 stepped by the solvers, 4x4 solved exactly in the background."""

    key = "risk_ttt"
    title = "Risk tic-tac-toe"
    value_label = "Q (X's expected result)"
    unit = "result"
    supports_discount = False

    def __init__(self, state: RiskState | None = None, parent: QObject | None = None) -> None:
        super().__init__(state or RiskState(), parent)
        self._compiled: tuple[Any, rt.RiskGame] | None = None
        self._model: tuple[Any, Any, PositionModel] | None = None
        self._exact: tuple[RiskState, rt.ExactRiskSolution] | None = None
        self._editor: RiskEditor | None = None
        self._painter: RiskPainter | None = None
        self.solving = False
        """An exact solve runs on the job thread."""
        self.edit_on_board = False
        """Dragging on a cell sets its risk (instead of playing it)."""

    @property
    def rstate(self) -> RiskState:
        return self._state

    def compiled(self) -> rt.RiskGame:
        if self._compiled is None or self._compiled[0] is not self._state:
            self._compiled = (self._state, rt.compile_risk(np.asarray(self.rstate.risk)))
        return self._compiled[1]

    @property
    def panels(self) -> frozenset[str]:
        """3x3: every panel. 4x4: solved exactly in the background, with no MDP to step, inspect, play
        or simulate, so only the game panel (and the lesson) stay beside the board."""
        return PANELS if self.rstate.size == 3 else frozenset({"game", "lesson"})

    def build_mdp(self) -> TabularMDP | None:
        if self.rstate.size != 3:
            return None
        # the compiled MDP with "board|mover" state labels, so the inspector's backups name positions
        return replace(self.compiled().mdp, state_labels=tuple(self._state_labels()))

    def backup_terms(self, mdp: TabularMDP, state: int, action: int, values: np.ndarray) -> list[BackupTerm]:
        """The two outcomes of the risk coin, noted "own mark" / "coin: opponent's mark"."""
        m = self.position_model()
        if not isinstance(m, RiskPositionModel):
            return super().backup_terms(mdp, state, action, values)
        return m.backup(m.position_of(state), action, values)

    def empty_text(self) -> str:
        n = self.rstate.size
        if self.exact_solution() is not None:
            sol = self.exact_solution()
            return (f"{n}x{n}: exact values by backward induction ({sol.n_states:,} (board, turn) states, "
                    f"{sol.seconds:.1f} s); V(empty board, X to move) = {sol.empty_value:.6f}")
        pairs, _ = rt.exact_requirements(n)
        return (f"{n}x{n}: {pairs:,} (board, turn) states, too many to step: press 'Solve {n}x{n} exactly' in the "
                "game panel (backward induction on the job thread)")

    def exact_solution(self) -> rt.ExactRiskSolution | None:
        """The exact solution of the current n x n game, if it was solved."""
        if self._exact is not None and self._exact[0] == self.rstate:
            return self._exact[1]
        return None

    def position_model(self) -> PositionModel | None:
        sol = self.exact_solution() if self.rstate.size != 3 else None
        if self._model is None or self._model[0] is not self._state or self._model[1] is not sol:
            if self.rstate.size == 3:
                m: PositionModel = RiskPositionModel(self.compiled())
            else:
                m = ExactRiskPositionModel(np.asarray(self.rstate.risk), self.rstate.size, sol)
            self._model = (self._state, sol, m)
        return self._model[2]

    def painter(self) -> RiskPainter:
        self._painter = RiskPainter(self)
        return self._painter

    def state_name(self, s: int) -> str:
        if self.rstate.size != 3:
            return str(s)
        return self._state_labels()[int(s)]

    def _state_labels(self) -> list[str]:
        """``"XO.......|X"`` for every state (as :func:`mdpviz.models.risk_ttt.state_label`), built at once."""
        g = self.compiled()
        if getattr(self, "_labels", (None,))[0] is not g:
            chars = np.array(list(tt.MARK_CHARS))[g.geometry.digits(g.board_index)]
            boards = ["".join(row) for row in chars]
            self._labels = (g, [f"{b}|{t}" for b in boards for t in ("X", "O")])
        return self._labels[1]

    def start_state(self) -> int:
        return self.compiled().start

    # ------------------------------------------------------------------ edits
    def set_preset(self, name: str) -> bool:
        """Risks from one of the seven presets (the noisy and random ones drawn with the state's seed)."""
        try:
            p = rt.risk_preset(name, n_cells=self.rstate.size ** 2, seed=self.rstate.seed)
        except ValueError as e:
            self.message.emit(str(e))
            return False
        return self.edit(replace(self.rstate, risk=tuple(float(x) for x in p), preset=name), f"risk preset {name}")

    def set_seed(self, seed: int) -> bool:
        st = replace(self.rstate, seed=int(seed))
        if st.preset in ("noisy-classic", "noisy-reverse", "random"):
            p = rt.risk_preset(st.preset, n_cells=st.size ** 2, seed=st.seed)
            st = replace(st, risk=tuple(float(x) for x in p))
        return self.edit(st, f"preset seed {seed}")

    def set_risk(self, cell: int, p: float) -> bool:
        """Set P[cell] (an edit; the preset becomes "custom")."""
        risk = list(self.rstate.risk)
        if not 0 <= int(cell) < len(risk):
            raise ValueError(f"cell {cell} is outside the board (0..{len(risk) - 1})")
        p = float(p)
        if not (0.0 <= p <= 1.0) or not math.isfinite(p):
            raise ValueError(f"risk of cell {cell} must be in [0, 1], got {p}")
        risk[int(cell)] = p
        return self.edit(replace(self.rstate, risk=tuple(risk), preset="custom"), f"risk of cell {cell}: {p:.2f}")

    def set_size(self, size: int) -> bool:
        """3 (stepped) or 4 (solved exactly); the preset is applied to the new board (stochastic: 3x3 only)."""
        size = int(size)
        if size not in (3, 4):
            raise ValueError(f"board side must be 3 or 4, got {size}")
        if size == self.rstate.size:
            return False
        preset = self.rstate.preset if self.rstate.preset not in ("custom",) else "half"
        try:
            p = rt.risk_preset(preset, n_cells=size * size, seed=self.rstate.seed)
        except ValueError:
            preset = "half"
            p = rt.risk_preset(preset, n_cells=size * size)
            self.message.emit(f"The risks of the previous board do not fit a {size}x{size} board: preset 'half' used.")
        return self.edit(replace(self.rstate, size=size, risk=tuple(float(x) for x in p), preset=preset),
                         f"{size}x{size} board")

    def _set_state(self, state: Any, text: str) -> None:
        if self.solving:
            self.cancel_job()
        super()._set_state(state, text)

    def set_edit_on_board(self, on: bool) -> None:
        """Drag on the board's cells to set their risks (True) or play moves (False)."""
        self.edit_on_board = bool(on)
        self.board.set_cell_editor(self._on_drag if on else None,
                                   "Drag up or down on a cell to set its risk (release to apply)." if on else "")

    def _on_drag(self, cell: int, value: float, final: bool) -> None:
        v = round(float(value) * 20) / 20  # steps of 0.05 while dragging
        if self._painter is not None:
            self._painter.preview = {} if final else {cell: v}
        if final:
            self.set_risk(cell, v)
        self.board.canvas.update()

    # ------------------------------------------------------------------ the exact solve
    def solve_exact(self) -> None:
        """Solve the n x n board exactly on the window's job thread (progress bar, Cancel)."""
        st = self.rstate
        if self.exact_solution() is not None:
            self.message.emit("Already solved.")
            return
        risk = np.asarray(st.risk)
        size = st.size
        self.solving = True
        ed = self.editor()
        ed.show_solving(True, f"Solving {size}x{size} exactly\u2026")

        def fn(progress, cancelled):
            return solve_exact_cancellable(risk, size=size, progress=progress, cancelled=cancelled)

        def done(sol):
            self.solving = False
            if sol is None:
                ed.show_solving(False, "Cancelled.")
                return
            if self.rstate != st:
                ed.show_solving(False, "The risks changed during the solve: result discarded.")
                return
            self._exact = (st, sol)
            ed.show_solving(False, f"Solved: {sol.n_states:,} (board, turn) states in {sol.seconds:.1f} s; "
                                   f"V(empty, X to move) = {sol.empty_value:.6f}")
            self.redraw.emit()

        def failed(msg):
            self.solving = False
            ed.show_solving(False, f"Failed: {msg}")

        def cancelled():
            self.solving = False
            ed.show_solving(False, "Cancelled: the board is usable; solve again at any time.")

        self.run_job(fn, label=f"Solving {size}x{size} risk tic-tac-toe exactly", on_done=done,
                     on_progress=lambda d, t, text: ed.show_progress(d, t, text), on_failed=failed,
                     on_cancelled=cancelled)

    def editor(self) -> "RiskEditor":
        if self._editor is None:
            self._editor = RiskEditor(self)
        return self._editor

    # ------------------------------------------------------------------ matchups
    def matchups(self) -> list[str]:
        return ["optimal vs random", "random vs optimal", "optimal vs optimal", "random vs random",
                "optimal vs classic", "classic vs optimal"]

    def simulation_job(self, mdp, policy, *, games, seed):
        if self.rstate.size != 3:
            raise ValueError("matchups are simulated on the 3x3 board (the 4x4 game is not compiled to an MDP)")
        g = self.compiled()
        pol = None if policy is None else np.array(policy, dtype=np.int64)
        games = int(games)
        if games < 2:
            raise ValueError(f"simulate at least 2 games, got {games}")
        names = self.matchups()

        def job(progress, cancelled) -> MatchupResult | None:
            opt = rt.make_agent("policy", g, policy=pol, name="optimal") if pol is not None else \
                rt.make_agent("optimal", g)
            agents = {"optimal": opt, "random": rt.make_agent("random", g), "classic": rt.make_agent("classic", g)}
            streams = np.random.SeedSequence(int(seed)).spawn(len(names))
            rows = []
            for i, name in enumerate(names):
                if cancelled():
                    return None
                xn, on = name.split(" vs ")
                res = rt.play_match(g, agents[xn], agents[on], games=games, seed=np.random.default_rng(streams[i]))
                e = res.exact
                rows.append(MatchupRow(name, xn, on, res.counts, res.games,
                                       None if e is None else (e.x_wins, e.o_wins, e.draws)))
                progress(i + 1, len(names), f"{name}: {games:,} games")
            return MatchupResult(tuple(rows), start="the empty board (X first)",
                                 notes=("classic = the agent solved for risk 0, playing in these risks",))

        return job

    # ------------------------------------------------------------------ scenarios
    def to_dict(self) -> dict[str, Any]:
        s = self.rstate
        return {"risk": list(s.risk), "size": s.size, "preset": s.preset, "seed": s.seed}

    def load_dict(self, data: dict[str, Any], path: str) -> RiskState:
        where = f"games.{self.key}"
        if not isinstance(data, dict):
            raise ScenarioError(path, where, "must be an object")
        size = data.get("size", 3)
        if isinstance(size, bool) or size not in (3, 4):
            raise ScenarioError(path, f"{where}.size", f"must be 3 or 4, got {size!r}")
        try:
            risk = rt.validate_risk(data.get("risk", rt.STOCHASTIC_3X3), size * size)
        except ValueError as e:
            raise ScenarioError(path, f"{where}.risk", str(e)) from None
        preset = data.get("preset", "custom")
        if not isinstance(preset, str) or (preset != "custom" and preset not in rt.PRESETS):
            raise ScenarioError(path, f"{where}.preset", f"must be 'custom' or one of {', '.join(rt.PRESETS)}")
        seed = data.get("seed", 0)
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ScenarioError(path, f"{where}.seed", f"must be a whole number, got {seed!r}")
        return RiskState(tuple(float(x) for x in risk), size, preset, seed)


class RiskEditor(QWidget):
    """Risk tic-tac-toe's panel: board size, the seven presets, the risks as numbers, the exact solve."""

    def __init__(self, game: RiskTicTacToeGame, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.game = game
        self.setObjectName("riskEditor")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        form = QFormLayout()
        self.size = _named(QComboBox(), "riskSize", "Board size")
        self.size.addItem("3x3 (stepped)", 3)
        self.size.addItem("4x4 (exact, background)", 4)
        self.preset = _named(QComboBox(), "riskPreset", "Risk preset")
        for name, text in rt.PRESETS.items():
            self.preset.addItem(name, name)
            self.preset.setItemData(self.preset.count() - 1, text, Qt.ItemDataRole.ToolTipRole)
        self.preset.addItem("custom", "custom")
        self.seed = _named(QSpinBox(), "riskSeed", "Seed of the noisy presets")
        self.seed.setRange(0, 999_999)
        self.seed.setToolTip("Seed of the noisy-classic, noisy-reverse and random presets")
        form.addRow("Board", self.size)
        form.addRow("Preset", self.preset)
        form.addRow("Seed", self.seed)
        lay.addLayout(form)
        self.edit_check = _named(QCheckBox("Edit risks on the board (drag)"), "riskEditOnBoard",
                                 "Edit risks on the board")
        self.edit_check.setToolTip("Drag up or down on a cell to set its risk; release to apply (one undo step)")
        lay.addWidget(self.edit_check)
        self.grid_box = QWidget()
        self.grid = QGridLayout(self.grid_box)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setSpacing(2)
        self.spins: list[QDoubleSpinBox] = []
        lay.addWidget(self.grid_box)
        row = QHBoxLayout()
        self.solve_button = _named(QPushButton("Solve 4x4 exactly"), "riskSolveExact", "Solve the 4x4 board exactly")
        self.cancel_button = _named(QPushButton("Cancel"), "riskCancelSolve", "Cancel the exact solve")
        self.cancel_button.setEnabled(False)
        row.addWidget(self.solve_button)
        row.addWidget(self.cancel_button)
        lay.addLayout(row)
        self.progress = _named(QProgressBar(), "riskSolveProgress", "Progress of the exact solve")
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        lay.addWidget(self.progress)
        self.status = _named(QLabel(""), "riskSolveStatus", "Exact solve status")
        self.status.setWordWrap(True)
        lay.addWidget(self.status)
        note = QLabel("Playing cell i places the opponent's mark with probability P[i]. X maximises, O minimises; "
                      "+1 / \u22121 for a line of X / O, no discount.")
        note.setWordWrap(True)
        lay.addWidget(note)
        lay.addStretch(1)
        self.refresh()
        self.size.currentIndexChanged.connect(lambda _i: self.game.set_size(self.size.currentData()))
        self.preset.currentIndexChanged.connect(self._on_preset)
        self.seed.valueChanged.connect(lambda v: self.game.set_seed(v))
        self.edit_check.toggled.connect(self.game.set_edit_on_board)
        self.solve_button.clicked.connect(self.game.solve_exact)
        self.cancel_button.clicked.connect(self.game.cancel_job)
        game.edited.connect(lambda _t: self.refresh())

    def _on_preset(self, _i: int) -> None:
        name = self.preset.currentData()
        if name != "custom":
            if not self.game.set_preset(name):
                self.refresh()

    def _build_spins(self, n: int) -> None:
        for s in self.spins:
            self.grid.removeWidget(s)
            s.deleteLater()
        self.spins = []
        for c in range(n * n):
            s = _named(QDoubleSpinBox(), f"riskCell{c}", f"Risk of cell {c}")
            s.setRange(0.0, 1.0)
            s.setDecimals(2)
            s.setSingleStep(0.05)
            s.setKeyboardTracking(False)
            s.setToolTip(f"P[{c}]: probability that playing cell {c} places the opponent's mark")
            s.valueChanged.connect(lambda v, c=c: self.game.set_risk(c, v))
            self.grid.addWidget(s, c // n, c % n)
            self.spins.append(s)

    def refresh(self) -> None:
        st = self.game.rstate
        for combo, data in ((self.size, st.size), (self.preset, st.preset)):
            combo.blockSignals(True)
            combo.setCurrentIndex(combo.findData(data))
            combo.blockSignals(False)
        self.seed.blockSignals(True)
        self.seed.setValue(int(st.seed))
        self.seed.blockSignals(False)
        if len(self.spins) != st.size ** 2:
            self._build_spins(st.size)
        for s, p in zip(self.spins, st.risk):
            s.blockSignals(True)
            s.setValue(float(p))
            s.blockSignals(False)
        big = st.size != 3
        self.solve_button.setVisible(big)
        self.cancel_button.setVisible(big)
        self.progress.setVisible(big)
        self.solve_button.setText(f"Solve {st.size}x{st.size} exactly")
        self.solve_button.setEnabled(big and not self.game.solving and self.game.exact_solution() is None)
        if not big:
            self.status.setText("")

    def show_solving(self, running: bool, text: str) -> None:
        self.solve_button.setEnabled(not running and self.game.exact_solution() is None and self.game.rstate.size != 3)
        self.cancel_button.setEnabled(running)
        if running:
            self.progress.setRange(0, 0)
        else:
            self.progress.setRange(0, 1)
            self.progress.setValue(1 if self.game.exact_solution() is not None else 0)
        self.status.setText(text)

    def show_progress(self, done: int, total: int, text: str) -> None:
        self.progress.setRange(0, max(int(total), 1))
        self.progress.setValue(int(done))
        self.status.setText(text)


# ====================================================================== screenshots
def save_ttt_screenshots(out: str | Path, *, games: int = 10_000) -> list[Path]:
    """``ttt-vs-random.png`` (for the README; ``python -m mdpviz.screenshots --games ttt``): tic-tac-toe
    vs random solved by policy iteration, the agent's first move played and the opponent's replies
    shown, with the matchups simulated (``games`` games each; exact probabilities beside them)."""
    from mdpviz.screenshots import screenshot_window

    with screenshot_window(out) as sw:
        w = sw.window
        w.switch_game("ttt")
        sw.reset("pi")
        sw.solve()
        b = w.game.board
        b.new_game()
        b.play_move(int(w.controller.solution.policy[b.position.state]))
        b.select_move(b.view().moves[0].action)
        sw.simulate(games)
        sw.shot("ttt-vs-random.png")
    return sw.saved


def save_risk_screenshots(out: str | Path, *, solve_4x4: bool = True) -> list[Path]:
    """Risk tic-tac-toe screenshots (for the README; ``python -m mdpviz.screenshots --games risk_ttt``):

    * ``risk-ttt.png``: stochastic risks, six sweeps of value iteration, the risks on the cells;
    * ``risk-ttt-play-1280x720.png``: solved, human (O) vs agent (X) at 1280 x 720;
    * ``risk-ttt-4x4.png``: the 4x4 board during its exact solve (progress bar), then solved
      (``risk-ttt-4x4-solved.png``) if ``solve_4x4``, else the solve is cancelled."""
    from mdpviz.screenshots import SIZE_1280x720, screenshot_window

    with screenshot_window(out) as sw:
        w = sw.window
        w.switch_game("risk_ttt")
        sw.reset("vi")
        sw.step(6)
        w.inspector_dock.raise_()
        sw.shot("risk-ttt.png")

        sw.solve()
        b = w.game.board
        b.set_mode("play")
        b.set_human("O")
        b.set_first("X")
        b.play_move(b.view().moves[0].action)
        sw.shot("risk-ttt-play-1280x720.png", size=SIZE_1280x720)
        b.set_mode("walk")

        g = w.game
        g.set_size(4)
        g.solve_exact()
        sw.wait(lambda: g.editor().progress.value() > 0 and g.editor().progress.maximum() > 1,
                what="the exact 4x4 solve to report progress")
        sw.pump(1.0)
        sw.shot("risk-ttt-4x4.png")
        if solve_4x4:
            sw.wait(lambda: g.exact_solution() is not None or not g.solving, timeout=600,
                    what="the exact 4x4 solve")
            if g.exact_solution() is None:
                raise RuntimeError("screenshots: the exact 4x4 risk tic-tac-toe solve stopped without a solution")
            sw.shot("risk-ttt-4x4-solved.png")
        else:
            g.cancel_job()
            sw.wait(lambda: not g.solving, what="the cancelled 4x4 solve to stop")
    return sw.saved


__all__ = [
    "ExactRiskPositionModel", "RiskEditor", "RiskPositionModel", "RiskState", "RiskTicTacToeGame", "TicTacToeGame",
    "TicTacToeState", "VsRandomEditor", "VsRandomPositionModel", "greedy_policy", "solve_exact_cancellable",
    "save_risk_screenshots", "save_ttt_screenshots",
    "vs_random_match",
]
