"""Checkers compiled into a TabularMDP: every position reachable from the start enumerated by the
rules' kernels (:mod:`mdpviz.models.checkers.kernels`), the agent's moves as actions and the random
opponent's replies as outcomes (the rules and the game's text: :mod:`mdpviz.models.checkers.rules`)."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    import scipy.sparse as sp
import time
from dataclasses import dataclass, field
from functools import cached_property
import numpy as np
from mdpviz.core.mdp import TabularMDP, check_state_budget, state_budget
from mdpviz.core.simulate import policy_matrix, proportion_ci, simulate, uniform_policy_matrix
from mdpviz.solvers.policy_iteration import row_weights_deterministic
from mdpviz.solvers.sweep import policy_to_rows
from mdpviz.models.checkers.rules import (  # noqa: F401
    DRAW_REWARD,
    LOSS_REWARD,
    WIN_REWARD,
    _DRAW,
    _LOSS,
    _WIN,
    BLACK,
    Checkers,
    CheckersRules,
    DEFAULT_DISCOUNT,
    DEFAULT_MAX_STATES,
    DEFAULT_MAX_TRANSITIONS,
    KING_FACTOR,
    MAN_WEIGHT,
    Move,
    Position,
    VariantTooLarge,
    _BUDGET_REASON,
    _Engine,
    _check_colour,
    _engine,
    _fwd,
    _kernels,
)
from mdpviz.models.checkers.rules import MIN_SIZE, kernels_loaded  # noqa: F401


# ---------------------------------------------------------------------------------- the compiled MDP
@dataclass(frozen=True, eq=False)
class CheckersMDP:
    """A variant compiled to a :class:`TabularMDP`, with what the GUI and the CLI need to show it."""

    rules: CheckersRules
    """The variant."""
    agent: str
    """The agent's colour; the opponent (the other colour) plays uniformly at random."""
    mdp: TabularMDP
    """States = positions with the agent to move (by ply when there is a ply limit) + win, draw, loss."""
    state_position: np.ndarray
    """int64 (n_states): position id of each state (-1 for the three terminal states)."""
    state_ply: np.ndarray
    """int64 (n_states): plies played in each state (-1 for terminal states, and for every state
    when there is no ply limit, where the ply is not part of the state)."""
    start_states: np.ndarray
    """int64: the states a game starts in (one if the agent moves first; after each opening reply otherwise)."""
    start_probs: np.ndarray
    """float64: probability of each start state (sums to 1)."""
    win: int
    """Index of the absorbing win state (reward +100 on entry)."""
    draw: int
    """Index of the absorbing draw state (ply limit reached, reward 0)."""
    loss: int
    """Index of the absorbing loss state (reward -100 on entry)."""
    n_positions: int
    """Distinct positions (ply ignored) that the enumeration expanded."""
    seconds: float
    """Wall-clock seconds to enumerate and compile."""
    _keys: np.ndarray = field(repr=False)
    """int64 (positions, 3): (agent's pieces, opponent's pieces, kings) per position id, bitboards in
    the compact layout of :mod:`mdpviz.models.checkers.kernels`."""
    _position_material: np.ndarray = field(repr=False)
    """float64 per position id: R, the material reward of the position for the agent."""

    @property
    def n_states(self) -> int:
        """Number of MDP states, terminal ones included."""
        return self.mdp.n_states

    @cached_property
    def game(self) -> Checkers:
        """The rules object of this variant."""
        return Checkers(self.rules)

    @cached_property
    def _position_table(self) -> np.ndarray:
        """Hash table of the position keys (ids into ``_keys``), built by the kernels."""
        k = self._keys
        return _kernels().build_table(k[:, 0].copy(), k[:, 1].copy(), k[:, 2].copy(), k.shape[0])

    @cached_property
    def _layers(self) -> tuple[np.ndarray, np.ndarray]:
        """(plies, first state of each) of the live states, which come ply by ply, by position id
        within a ply (one layer of ply -1 without a ply limit)."""
        live = self.state_ply[self.state_position >= 0]
        plies, first = np.unique(live, return_index=True)
        return plies, np.append(first, live.size)

    def _state_index(self, key: tuple[int, int, int], ply: int) -> int | None:
        """The state of a compact position key at a ply (-1: no ply limit), or None."""
        k = self._keys
        p = int(_kernels().lookup(self._position_table, k[:, 0], k[:, 1], k[:, 2], *key))
        plies, first = self._layers
        j = int(np.searchsorted(plies, ply))
        if p < 0 or j >= plies.size or plies[j] != ply:
            return None
        lo, hi = int(first[j]), int(first[j + 1])
        s = lo + int(np.searchsorted(self.state_position[lo:hi], p))
        return s if s < hi and self.state_position[s] == p else None

    def _check_state(self, state: int) -> int:
        s = int(state)
        if not 0 <= s < self.n_states:
            raise ValueError(f"state {state} is out of range 0..{self.n_states - 1}")
        return s

    def position(self, state: int) -> Position | None:
        """The position of a state (agent to move), or None for the win/draw/loss states."""
        s = self._check_state(state)
        p = int(self.state_position[s])
        if p < 0:
            return None
        e = _engine(self.rules.size, self.rules.forced_capture, self.rules.multi_jump)
        me, them, kings = (e.board_bits(int(x)) for x in self._keys[p])
        black, white = (me, them) if self.agent == BLACK else (them, me)
        ply = int(self.state_ply[s])
        if ply < 0:  # no ply limit: the ply is not part of the state; report the parity only
            ply = 0 if self.agent == BLACK else 1
        return Position(black, white, kings, self.agent, ply)

    def state_of(self, position: Position) -> int:
        """The state of a position with the agent to move; ValueError if it is not reachable."""
        if position.to_move != self.agent:
            raise ValueError(f"states are positions with the agent ({self.agent}) to move")
        e = _engine(self.rules.size, self.rules.forced_capture, self.rules.multi_jump)
        me, them = (position.black, position.white) if self.agent == BLACK else (position.white, position.black)
        key = (e.compact(me), e.compact(them), e.compact(position.kings))
        ply = position.ply if self.rules.ply_limit is not None else -1
        s = self._state_index(key, int(ply))
        if s is None:
            raise ValueError("this position is not reachable in the compiled variant")
        return s

    def board(self, state: int) -> np.ndarray:
        """The board of a state as :meth:`Checkers.board` draws it (all zeros for terminal states)."""
        pos = self.position(state)
        if pos is None:
            return np.zeros((self.rules.size, self.rules.size), dtype=np.int8)
        return self.game.board(pos)

    @cached_property
    def _action_of_label(self) -> dict[str, int]:
        return {lab: a for a, lab in enumerate(self.mdp.action_labels or ())}

    def action_label(self, action: int) -> str:
        """The move notation of an action id, e.g. "b2-c3" or "a1xc3xe5"."""
        labels = self.mdp.action_labels or ()
        if not 0 <= int(action) < len(labels):
            raise ValueError(f"action {action} is out of range 0..{len(labels) - 1}")
        return labels[int(action)]

    def moves(self, state: int, *, square: str | None = None) -> list[tuple[int, Move]]:
        """The agent's legal moves in ``state`` as (action id, :class:`Move`), in action order;
        with ``square``, only the moves of the piece standing there (the piece the user clicked)."""
        pos = self.position(state)
        if square is not None:
            self.game.square_bit(square)  # validates the name
        if pos is None:
            return []
        out = [(self._action_of_label[m.label], m) for m in self.game.legal_moves(pos)
               if square is None or m.start == square]
        return sorted(out, key=lambda am: am[0])

    def move_values(self, state: int, values: np.ndarray) -> list[tuple[int, str, float]]:
        """(action id, label, Q) for each legal move of ``state``: Q(s, a) = sum_Z p(Z) (R(Z) + gamma V(Z)),
        the expected reward of the move and the opponent's random reply plus the discounted value after."""
        s = self._check_state(state)
        if self.mdp.terminal[s]:
            return []
        v = np.asarray(values, dtype=np.float64)
        if v.shape != (self.n_states,):
            raise ValueError(f"values must have {self.n_states} entries, got shape {v.shape}")
        lo, hi = int(self.mdp.state_ptr[s]), int(self.mdp.state_ptr[s + 1])
        out = []
        for r in range(lo, hi):
            t0, t1 = int(self.mdp.row_ptr[r]), int(self.mdp.row_ptr[r + 1])
            q = float(np.sum(self.mdp.prob[t0:t1] * (self.mdp.reward[t0:t1] + self.mdp.discount * v[self.mdp.dst[t0:t1]])))
            a = int(self.mdp.row_action[r])
            out.append((a, self.action_label(a), q))
        return out

    def seed_values(self, values: np.ndarray) -> np.ndarray:
        """The seed's V_seed(s) = R(s) + gamma V(s) (its values include the reward of being in s);
        terminal states get their entry reward (+100, 0, -100)."""
        v = np.asarray(values, dtype=np.float64)
        r = np.zeros(self.n_states)
        live = self.state_position >= 0
        r[live] = self.material[live]
        out = r + self.mdp.discount * v
        out[self.win], out[self.draw], out[self.loss] = WIN_REWARD, DRAW_REWARD, LOSS_REWARD
        return out

    @cached_property
    def material(self) -> np.ndarray:
        """float64 (n_states): R(s), the material reward of each state for the agent (0 for terminal)."""
        live = self.state_position >= 0
        out = np.zeros(self.n_states)
        out[live] = self._position_material[self.state_position[live]]
        return out

    def random_policy(self) -> np.ndarray:
        """(n_states x n_actions) probabilities of playing uniformly among the legal moves."""
        return uniform_policy_matrix(self.mdp)

    def _weights(self, policy: np.ndarray | None) -> sp.csr_matrix:
        """Row weights W (n_states x n_rows) of a deterministic policy, or of uniform play if None."""
        if policy is not None:
            return row_weights_deterministic(self.mdp, policy_to_rows(self.mdp, policy))
        import scipy.sparse as sp  # on first use: importing scipy costs the window's start ~0.5 s

        m = self.mdp
        w = np.where(m.terminal[m.row_state], 0.0, 1.0 / np.maximum(m.actions_per_state[m.row_state], 1))
        return sp.csr_matrix((w, m.row_state, np.arange(m.n_rows + 1)), shape=(m.n_rows, m.n_states)).T.tocsr()

    def outcome_probabilities(self, policy: np.ndarray | None, *, tol: float = 1e-13,
                              max_iterations: int = 100_000) -> dict[str, float]:
        """Exact probabilities of win, draw and loss from the start when the agent plays ``policy``
        (action id per state; None: uniformly random moves) against the random opponent.

        Absorption probabilities of the policy's Markov chain P_pi (no sampling): H_{k+1} = P_pi H_k
        with the three terminal states held at the identity. With a ply limit every transition goes
        one layer down or into a terminal state, so the iteration is exact (it stops when nothing
        changes, after at most ply_limit / 2 + 1 steps). Without one, games can cycle: it stops when
        no probability changes by ``tol``, and the probability of a game never ending is counted
        as a draw (as the simulation's step cap does). Returns {"win", "draw", "loss"} plus
        "never_ends" (0 with a ply limit) and "iterations".
        """
        m = self.mdp
        P = (self._weights(policy) @ m.matrix).tocsr()
        term = np.array([self.win, self.draw, self.loss])
        eye = np.eye(3)
        H = np.zeros((m.n_states, 3))
        H[term] = eye
        exact = self.rules.ply_limit is not None
        for it in range(1, int(max_iterations) + 1):
            Hn = P @ H
            Hn[term] = eye
            change = float(np.abs(Hn - H).max())
            H = Hn
            if change == 0.0 or (not exact and change < tol):
                break
        else:
            raise ValueError(f"outcome probabilities did not settle in {max_iterations} iterations")
        p = self.start_probs @ H[self.start_states]
        never = 0.0 if exact else max(0.0, 1.0 - float(p.sum()))
        return {"win": float(p[0]), "draw": float(p[1]) + never, "loss": float(p[2]), "never_ends": never,
                "iterations": it}

    def play_games(
        self,
        policy: np.ndarray | None,
        *,
        games: int = 10_000,
        seed: int | np.random.Generator | None = None,
        max_steps: int = 10_000,
    ) -> "GameResults":
        """Simulate ``games`` games of the agent playing ``policy`` (action id per state; None:
        uniformly random moves) against the random opponent.

        Uses the core's vectorised Monte Carlo over the compiled MDP, so the rules live in one
        place (the compiler); start states are drawn from the opening distribution. A game still
        running after ``max_steps`` agent moves (possible only without a ply limit) counts as a draw.
        """
        from mdpviz.core.chunked import check_games, run_chunks

        games = check_games(games, "the number of games")
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        probs = self.random_policy() if policy is None else policy_matrix(self.mdp, policy)
        tally = np.zeros(4, dtype=np.int64)  # wins, losses, unfinished, total moves

        def step(n: int) -> None:  # chunks of games: memory does not grow with ``games``
            starts = self.start_states[rng.choice(self.start_states.size, size=n, p=self.start_probs)]
            ep = simulate(self.mdp, probs, start=starts, episodes=n, seed=rng, max_steps=max_steps)
            tally[:] += (np.count_nonzero(ep.final_state == self.win), np.count_nonzero(ep.final_state == self.loss),
                         np.count_nonzero(~ep.finished), int(ep.steps.sum()))

        run_chunks(games, step)
        win, loss, unfinished = int(tally[0]), int(tally[1]), int(tally[2])
        return GameResults(games=games, win=win, draw=games - win - loss, loss=loss, unfinished=unfinished,
                           mean_moves=float(tally[3]) / games)


@dataclass(frozen=True)
class GameResults:
    """Wins, draws and losses of simulated games, from the agent's side."""

    games: int
    """Number of games played."""
    win: int
    """Games the agent won."""
    draw: int
    """Games drawn (ply limit, or still running after the step cap)."""
    loss: int
    """Games the agent lost."""
    unfinished: int
    """Of the draws, games stopped by the simulator's step cap (only without a ply limit)."""
    mean_moves: float
    """Mean number of agent moves per game."""

    def rates(self) -> dict[str, dict[str, float]]:
        """{"win"|"draw"|"loss": {"rate", "ci_low", "ci_high"}} with Wilson 95% intervals."""
        out = {}
        for k in ("win", "draw", "loss"):
            c = getattr(self, k)
            lo, hi = proportion_ci(c, self.games)  # clipped: at 0 or n rounding can step outside [0, 1]
            out[k] = {"rate": c / self.games, "ci_low": min(max(float(lo), 0.0), c / self.games),
                      "ci_high": max(min(float(hi), 1.0), c / self.games)}
        return out


TRANSITIONS_PER_STATE = DEFAULT_MAX_TRANSITIONS // DEFAULT_MAX_STATES
"""Transitions the budgets allow per state (6, as the defaults): the transition budget may be at most
this many times the process's state budget."""


def check_budgets(max_states: int, max_transitions: int) -> None:
    """ValueError when a budget is over what this process accepts: the state budget over the core's
    (:func:`~mdpviz.core.mdp.state_budget`, ``MDPVIZ_MAX_STATES``), the transition budget over
    :data:`TRANSITIONS_PER_STATE` times it; the enumeration's memory grows with the budgets (a budget
    of 10^12 states grew to 3.8 GB before it said anything)."""
    check_state_budget(max_states, "states (the state budget asked for)")
    cap = TRANSITIONS_PER_STATE * state_budget()
    if max_transitions > cap:
        raise ValueError(f"{max_transitions:,} transitions (the transition budget asked for) is over the "
                         f"transition budget of {cap:,} ({TRANSITIONS_PER_STATE} per state of the state budget; set "
                         "the environment variable MDPVIZ_MAX_STATES to raise both)")


def compile_checkers(
    rules: CheckersRules | None = None,
    *,
    agent: str = BLACK,
    discount: float = DEFAULT_DISCOUNT,
    max_states: int = DEFAULT_MAX_STATES,
    max_transitions: int = DEFAULT_MAX_TRANSITIONS,
    start: Position | None = None,
) -> CheckersMDP:
    """Enumerate the reachable states of a variant and compile them into a :class:`CheckersMDP`.

    A state is a position with ``agent`` to move (and its ply, with a ply limit); an action is a
    legal move (action ids are the variant's moves sorted by path, labels like "b2-c3" or
    "a1xc3xe5"); its transitions are the opponent's replies, probability 1/k each. ``discount`` is
    gamma (per agent move). ``start`` replaces the initial position (a puzzle, a test position);
    when the opponent is to move there, the game starts after each of its replies with equal
    probability. Raises :class:`VariantTooLarge` (a ValueError) when the enumeration passes
    ``max_states`` positions (or states) or ``max_transitions`` transitions.
    """
    rules = rules if rules is not None else CheckersRules()
    _check_colour(agent, "agent colour")
    if int(max_states) < 1 or int(max_transitions) < 1:
        raise ValueError("the state and transition budgets must be at least 1")
    check_budgets(int(max_states), int(max_transitions))
    t0 = time.perf_counter()
    e = _engine(rules.size, rules.forced_capture, rules.multi_jump)
    L = rules.ply_limit
    fwd = _fwd(agent)
    variant = rules.describe()

    game = Checkers(rules)
    start = game.initial_position() if start is None else game.validate(start)
    start_codes, start_ply = _start_codes(e, start, agent=agent, ply_limit=L)
    live = list(dict.fromkeys(k for k in start_codes if isinstance(k, tuple)))  # first appearance: ids 0, 1, ...
    start_pos = {k: i for i, k in enumerate(live)}
    k = _kernels()
    sk = np.array(live, dtype=np.int64).reshape(-1, 3)
    move_cap = 256  # moves of one position; more (long branching chains) and the kernel asks again
    while True:
        (status, info, k0, k1, k2, n_keys, pos_ptr, n_pos, row_move, row_ptr, n_rows, out, n_out, mcodes,
         n_moves) = k.enumerate_positions(
            np.ascontiguousarray(sk[:, 0]), np.ascontiguousarray(sk[:, 1]), np.ascontiguousarray(sk[:, 2]),
            start_ply, fwd > 0, -1 if L is None else int(L), e.geo, int(max_states), int(max_transitions), move_cap)
        if status != k.MOVE_BUFFER:
            break
        move_cap *= 8
    if status == k.TOO_MANY_POSITIONS:
        raise VariantTooLarge(f"checkers variant ({variant}) refused: more than {max_states:,} "
                              f"positions within {info} plies{_BUDGET_REASON}")
    if status == k.TOO_MANY_TRANSITIONS:
        raise VariantTooLarge(f"checkers variant ({variant}) refused: more than {max_transitions:,} transitions "
                              f"after {info:,} positions{_BUDGET_REASON}")
    keys = np.stack([k0[:n_keys], k1[:n_keys], k2[:n_keys]], axis=1)
    pos_ptr, row_move, row_ptr, out = pos_ptr[: n_pos + 1], row_move[:n_rows], row_ptr[: n_rows + 1], out[:n_out]
    del k0, k1, k2
    material = k.material(keys[:, 0], keys[:, 1], keys[:, 2], MAN_WEIGHT, KING_FACTOR)

    # Action ids: the variant's moves sorted by path (square order), so that ids do not depend on
    # the order the enumeration met them in.
    paths = [e.path(c) for c in mcodes[:n_moves].tolist()]
    order = sorted(range(n_moves), key=lambda i: paths[i])
    remap = np.empty(n_moves, dtype=np.int64)
    remap[order] = np.arange(n_moves)
    labels = tuple(_label(e, paths[i]) for i in order) or ("none",)
    perm = k.sorted_rows(pos_ptr, row_move, remap)  # each state's rows in action order, as the core keeps them

    if L is None:
        # No ply limit: a state is a position; the graph may have cycles (discount < 1 needed).
        n_live = n_pos
        win, draw, loss = n_live, n_live + 1, n_live + 2
        state_position = np.arange(n_live, dtype=np.int64)
        state_ply = np.full(n_live, -1, dtype=np.int64)
        state_ptr, row_action, t_ptr, dst, prob, reward = k.fill_unlimited(
            n_pos, pos_ptr, perm, row_move, remap, row_ptr, out, material, WIN_REWARD, LOSS_REWARD)
        start_list = [start_pos[c] if isinstance(c, tuple) else {_WIN: win, _LOSS: loss, _DRAW: draw}[c]
                      for c in start_codes]
    else:
        # Lay the (position, ply) states out ply by ply: layer j holds the positions reached at
        # ply start_ply + 2j, sorted by position id.
        status, info, state_position, layer_ptr, n_trans = k.layers(
            n_keys, np.arange(len(live), dtype=np.int64), start_ply, int(L), pos_ptr, row_ptr, out,
            int(max_states), int(max_transitions))
        if status in (k.TOO_MANY_STATES, k.TOO_MANY_STATE_TRANSITIONS):
            raise VariantTooLarge(
                f"checkers variant ({variant}) refused: more than "
                + (f"{max_states:,} states" if status == k.TOO_MANY_STATES else f"{max_transitions:,} transitions")
                + f" by ply {info}{_BUDGET_REASON}"
            )
        n_live = state_position.size
        win, draw, loss = n_live, n_live + 1, n_live + 2
        status, state_ptr, row_action, t_ptr, dst, prob, reward = k.fill_layers(
            state_position, layer_ptr, start_ply, int(L), pos_ptr, perm, row_move, remap, row_ptr, out, material,
            n_trans, WIN_REWARD, DRAW_REWARD, LOSS_REWARD)
        if status != k.OK:  # cannot happen: outcomes beyond the limit are only recorded near it
            raise RuntimeError("checkers compiler: a position beyond the ply limit inside the horizon")
        state_ply = np.repeat(start_ply + 2 * np.arange(layer_ptr.size - 1), np.diff(layer_ptr))
        start_list = [start_pos[c] if isinstance(c, tuple) else {_WIN: win, _LOSS: loss, _DRAW: draw}[c]
                      for c in start_codes]  # layer 0 holds the start positions, ids 0, 1, ... in order
    del perm, out, row_ptr

    state_position = np.concatenate([state_position, [-1, -1, -1]]).astype(np.int64)
    state_ply = np.concatenate([state_ply, [-1, -1, -1]]).astype(np.int64)
    mdp = _tabular(n_live + 3, labels, state_ptr, row_action, t_ptr, dst, prob, reward, discount=discount,
                   terminal=(win, draw, loss))
    starts, cnt = np.unique(np.asarray(start_list, dtype=np.int64), return_counts=True)
    return CheckersMDP(
        rules=rules, agent=agent, mdp=mdp, state_position=state_position, state_ply=state_ply,
        start_states=starts, start_probs=cnt / cnt.sum(), win=win, draw=draw, loss=loss,
        n_positions=n_pos, seconds=time.perf_counter() - t0, _keys=keys,
        _position_material=material,
    )






def _tabular(n_states: int, labels: tuple[str, ...], state_ptr: np.ndarray, row_action: np.ndarray,
             row_ptr: np.ndarray, dst: np.ndarray, prob: np.ndarray, reward: np.ndarray, *, discount: float,
             terminal: tuple[int, int, int]) -> TabularMDP:
    """The :class:`TabularMDP` of CSR arrays the kernels built already sorted (states, rows by action).

    ``TabularMDP.from_transitions`` would sort 8 million transitions (a second at the default
    variant) only to find them in order; its checks on what a game may produce are made here
    (the state budget, the discount). Probabilities are 1/k by construction, and every live state
    has a move (the enumeration keeps only those)."""
    check_state_budget(n_states, "states")
    check_state_budget(len(labels), "action ids")
    discount = float(discount)
    if not 0.0 <= discount <= 1.0:
        raise ValueError(f"discount must be in [0, 1], got {discount}")
    term = np.zeros(n_states, dtype=bool)
    term[list(terminal)] = True
    arrays = dict(state_ptr=state_ptr, row_action=row_action, row_ptr=row_ptr, dst=dst, prob=prob, reward=reward,
                  terminal=term, mover=np.ones(n_states, dtype=np.int8))
    for a in arrays.values():
        a.flags.writeable = False
    return TabularMDP(n_states=n_states, n_actions=len(labels), discount=discount, objective="max",
                      state_labels=None, action_labels=labels, mdptype="episodic", **arrays)


def _start_codes(e: _Engine, pos: Position, *, agent: str, ply_limit: int | None) -> tuple[list, int]:
    """Where games start, as position keys (me, them, kings) in the compact layout (agent to move)
    or _WIN/_LOSS/_DRAW, and their ply.

    If the opponent is to move in ``pos``, each of its replies is a start (equal probabilities).
    """
    fwd = _fwd(agent)
    me, them = (pos.black, pos.white) if agent == BLACK else (pos.white, pos.black)
    me, them, k = e.compact(me), e.compact(them), e.compact(pos.kings)
    if pos.to_move == agent:
        if not e.has_move_c(me, them, k, fwd):
            return [_LOSS], pos.ply
        if ply_limit is not None and pos.ply >= ply_limit:
            return [_DRAW], pos.ply
        return [(me, them, k)], pos.ply
    replies = e.moves_c(them, me, k, -fwd)
    if not replies:
        return [_WIN], pos.ply
    if ply_limit is not None and pos.ply >= ply_limit:
        return [_DRAW], pos.ply
    codes: list = []
    for _, t1, m1, k1 in replies:
        if not e.has_move_c(m1, t1, k1, fwd):
            codes.append(_LOSS)
        elif ply_limit is not None and pos.ply + 1 >= ply_limit:
            codes.append(_DRAW)
        else:
            codes.append((m1, t1, k1))
    return codes, pos.ply + 1


def _label(e: _Engine, path: tuple[int, ...]) -> str:
    jump = abs(path[1] - path[0]) > e.W + 1
    return ("x" if jump else "-").join(e.names[b] for b in path)


def warm_up() -> float:
    """Compile (or load from numba's cache) every checkers kernel, on the smallest variants (with a
    ply limit and without); seconds taken. On a fresh install numba compiles them on first use,
    14-22 s once (2-core development machine), then its cache serves them in under a second."""
    t0 = time.perf_counter()
    for limit in (4, None):
        cm = compile_checkers(CheckersRules(size=MIN_SIZE, rows=1, ply_limit=limit))
        cm.state_of(cm.position(int(cm.start_states[0])))  # the position table and its lookup
    return time.perf_counter() - t0
