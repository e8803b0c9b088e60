"""Snakes and ladders of the course statement: the view (rules in :mod:`mdpviz.models.snakes`)."""
from __future__ import annotations

from dataclasses import replace
from typing import Callable

import numpy as np
from PySide6.QtCore import QObject
from PySide6.QtWidgets import QWidget

from mdpviz.models import snakes as sn
from mdpviz.models import snakes_sim
from mdpviz.models.mdp import TabularMDP
from mdpviz.scenario import snakes_from_dict, snakes_to_dict
from mdpviz.solvers import ImproperPolicyError, solve
from mdpviz.widgets.board import CellDecor
from mdpviz.models.colors import SQUARE_COLORS, SQUARE_ICONS, action_badge
from mdpviz.models.display import BackupTerm, StrategyRow
from mdpviz.models.episodes import snakes_moves
from mdpviz.widgets.geometry import BoardLayout, snakes_layout
from mdpviz.widgets.game import Cancelled, Game, Progress, SimulationResult, mean_ci


# ---------------------------------------------------------------------------------- snakes and ladders
class SnakesGame(Game):
    """Snakes and ladders of the course statement (rules in :mod:`mdpviz.models.snakes`)."""

    key = "snakes"
    title = "Snakes and ladders"
    value_label = "expected turns to 15"
    unit = "turns"
    supports_discount = False
    discount_note = "Turns are counted, not discounted: the discount is 1."

    def __init__(self, cfg: sn.SnakesConfig | None = None, parent: QObject | None = None) -> None:
        super().__init__(cfg or sn.SnakesConfig(), parent)
        self.edit_mode = False
        """True: a left click cycles the square's type; False: it inspects the square."""
        self._editor: QWidget | None = None
        self._layout = snakes_layout(sn.next_squares)

    @property
    def cfg(self) -> sn.SnakesConfig:
        return self._state

    def build_mdp(self) -> TabularMDP:
        return sn.compile_snakes(self.cfg)

    def board_layout(self, mdp, policy) -> BoardLayout:
        return self._layout

    def type_name(self, t: int) -> str:
        return sn.square_type_name(t, self.cfg.type4)

    def decor(self) -> dict[int, CellDecor]:
        out = {}
        for i, t in enumerate(self.cfg.layout):
            if t:
                name = self.type_name(t)
                out[i] = CellDecor(SQUARE_ICONS[name], SQUARE_COLORS[t], name)
        out[0] = CellDecor("start", "", "start")
        out[sn.N_SQUARES - 1] = CellDecor("", "", "goal", goal=True)
        return out

    def state_name(self, s: int) -> str:
        return f"square {s + 1}"

    def policy_glyph(self) -> tuple[str, tuple[str, ...]]:
        return "die", tuple(d.name for d in self.cfg.dice)

    def badge(self, a: int, mdp: TabularMDP) -> str:
        return action_badge(a, None, one_based=True)

    def action_name(self, a: int, mdp: TabularMDP) -> str:
        return f"die {a + 1} ({self.cfg.dice[a].name})"

    # ---------------------------------------------------------------- editing
    def editor(self) -> QWidget:
        if self._editor is None:
            from mdpviz.widgets.editors import SnakesEditor

            self._editor = SnakesEditor(self)
        return self._editor

    def refuse_trap(self, square: int) -> str:
        """The message for a trap on square 1 or 15 ("" if the square can hold one)."""
        if square == 1:
            return "Square 1 is the start: it cannot hold a trap or bonus."
        if square == sn.N_SQUARES:
            return "Square 15 is the goal: it cannot hold a trap or bonus."
        return ""

    def set_square(self, square: int, t: int) -> bool:
        """Give ``square`` (1..15) type ``t``; refused with a status message on squares 1 and 15."""
        if t not in sn.SQUARE_TYPES:
            raise ValueError(f"square type {t} is not one of {sorted(sn.SQUARE_TYPES)}")
        msg = self.refuse_trap(square)
        if msg and t != 0:
            self.message.emit(msg)
            return False
        lay = list(self.cfg.layout)
        lay[square - 1] = t
        return self.edit(replace(self.cfg, layout=tuple(lay)), f"square {square}: {self.type_name(t)}")

    def cycle_square(self, square: int) -> bool:
        """Next type of ``square`` (ordinary -> restart -> penalty -> prison -> type 4 -> ordinary)."""
        t = (self.cfg.layout[square - 1] + 1) % len(sn.SQUARE_TYPES)
        return self.set_square(square, t)

    def cell_clicked(self, state: int) -> bool:
        if not self.edit_mode:
            return False
        self.cycle_square(state + 1)
        return True

    def cell_menu(self, state: int):
        sq = state + 1
        entries: list[tuple[str, Callable[[], None] | None]] = []
        refused = bool(self.refuse_trap(sq))
        for t in sn.SQUARE_TYPES:
            name = self.type_name(t)
            mark = " \u2713" if self.cfg.layout[state] == t else ""
            if refused and t != 0:
                entries.append((f"{name} (not on square {sq})", None))
            else:
                entries.append((f"{name}{mark}", lambda t=t: self.set_square(sq, t)))
        return entries

    def set_circle(self, circle: bool) -> bool:
        return self.edit(replace(self.cfg, circle=bool(circle)), "circular board" if circle else "no circle")

    def rule_set_name(self) -> str:
        """The preset the current rules match, or "custom"."""
        for name in sn.RULE_SETS:
            if sn.apply_rule_set(self.cfg, name) == self.cfg:
                return name
        return "custom"

    def set_rule_set(self, name: str) -> bool:
        return self.edit(sn.apply_rule_set(self.cfg, name), f"rule set: {name}")

    def set_die(self, index: int, die: sn.Die) -> bool:
        dice = list(self.cfg.dice)
        dice[index] = die
        new = replace(self.cfg, dice=tuple(dice))
        new.validate()
        return self.edit(new, f"die {index + 1}: {die.describe()}")

    def add_die(self) -> bool:
        names = set(self.cfg.dice_names)
        name = next(f"die {k}" for k in range(len(names) + 1, 100) if f"die {k}" not in names)
        new = replace(self.cfg, dice=self.cfg.dice + (sn.Die(name, ((1, 0.5), (2, 0.5)), 0.5),))
        return self.edit(new.validate(), f"added {name}")

    def remove_die(self, index: int) -> bool:
        if len(self.cfg.dice) <= 1:
            self.message.emit("The game needs at least one die.")
            return False
        dice = self.cfg.dice[:index] + self.cfg.dice[index + 1:]
        try:
            new = replace(self.cfg, dice=dice).validate()
        except ValueError as e:
            self.message.emit(f"Cannot remove die {index + 1}: {e}")
            return False
        return self.edit(new, f"removed die {index + 1} ({self.cfg.dice[index].name})")

    def clear_layout(self) -> bool:
        return self.edit(replace(self.cfg, layout=(0,) * sn.N_SQUARES), "cleared the board")

    # ---------------------------------------------------------------- inspector
    def backup_terms(self, mdp, state, action, values):
        if state >= sn.N_SQUARES - 1:
            return []
        out = []
        for o in sn.outcomes(self.cfg, state + 1, action):
            note = f"roll {o.roll}" + (f", {o.event}" if o.event else "") + f" \u2192 {o.square}"
            out.append(BackupTerm(o.prob, o.cost, o.square - 1, float(values[o.square - 1]), note))
        return out

    # ---------------------------------------------------------------- playing
    def outcome_text(self, mdp, state):
        return f"finished: reached square {int(state) + 1}"  # as state_name words it

    def strategies(self, mdp):
        return list(snakes_sim.strategy_names(self.cfg))

    def strategy_probs(self, name, mdp, policy):
        if name == "optimal":
            if policy is None:
                raise ValueError("the optimal strategy needs a solved model: run the solver first")
            return snakes_sim.strategy_probs(self.cfg, "optimal", optimal_policy=np.asarray(policy, dtype=np.int64))
        return snakes_sim.strategy_probs(self.cfg, name)

    def simulation_job(self, mdp, policy, *, games, seed):
        cfg = self.cfg
        names = self.strategies(mdp)
        pol = None if policy is None else np.array(policy, dtype=np.int64)
        games = int(games)
        if games < 2:
            raise ValueError(f"simulate at least 2 games, got {games}")

        def job(progress: Progress, cancelled: Cancelled) -> SimulationResult | None:
            opt = pol if pol is not None else solve(mdp, "vi", tol=1e-12).policy
            streams = np.random.SeedSequence(seed).spawn(len(names))
            chunks = max(1, min(8, games // 1000))
            sizes = [games // chunks + (1 if i < games % chunks else 0) for i in range(chunks)]
            total_steps = len(names) * chunks
            rows, notes = [], []
            for i, (name, ss) in enumerate(zip(names, streams)):
                probs = snakes_sim.strategy_probs(cfg, name, optimal_policy=opt)
                try:
                    exact = float(snakes_sim.exact_turns(cfg, probs, mdp=mdp)[0])
                except ImproperPolicyError as e:
                    notes.append(f"{name}: {e}")
                    continue
                rng = np.random.default_rng(ss)
                parts = []
                for j, n in enumerate(sizes):
                    if cancelled():
                        return None
                    parts.append(snakes_sim.simulate_turns(cfg, probs, games=n, seed=rng, mdp=mdp))
                    progress(i * chunks + j + 1, total_steps, f"{name}: {sum(sizes[:j + 1]):,} of {games:,} games")
                turns = np.concatenate(parts)
                m, c = mean_ci(turns)
                rows.append(StrategyRow(name, exact, m, c, turns))
            return SimulationResult(tuple(rows), "turns", "square 1", tuple(notes))

        return job

    def episode(self, mdp, probs, rng):
        steps = snakes_sim.play_episode(self.cfg, probs, rng=rng, start=1)
        return snakes_moves(steps, self.cfg.dice_names)

    # ---------------------------------------------------------------- scenarios
    def to_dict(self):
        return snakes_to_dict(self.cfg)

    def load_dict(self, data, path):
        return snakes_from_dict(data, path)
