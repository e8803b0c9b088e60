"""What each key of the commands' ``--json`` output means: one table, one meaning and one type per key.

Issue 35, item 21: ``sensitivity --json`` printed ``start`` (a label) and ``values`` (V*(start) along the
range) where ``solve`` and ``learn`` print ``start`` (the start state's index) and ``values`` (V per state).
Every key a command prints at the top level of its JSON, and in the objects of a list it prints there (the
entries of ``history``, ``curve``, ``intervals``, ``strategies``...), is a line of :data:`KEYS`, and means
the same thing with the same type in every command; tests/test_json_keys.py runs every command's ``--json``
and checks it. Keys inside a nested object (``return_distribution``, ``phase``, ``variant``, ``ci``...) are
that object's own fields (its line says what the object is).

A type is ``int``, ``float`` (a JSON number), ``str``, ``bool``, ``object`` (fields of its own), ``map``
(keys that are data: action labels, state labels, names), ``list[T]``, and ``T|null``.
"""
from __future__ import annotations

NOT_METHOD_IDS = {"q": "the JSON key of the Q table (per state, action label -> Q)",
                  "ucb": "the JSON key of a search node's UCB score (mdpviz mcts), not the bandit method"}
"""Words of this module that are not method ids (the registry test's scan reads this declaration)."""

KEYS: dict[str, tuple[str, str]] = {
    # --- the game and the run
    "game": ("the game's registry key", "str"),
    "method": ("the method's id in the registry (mdpviz.solvers.registry), or a game command's own method word", "str"),
    "method_name": ("the method's title", "str"),
    "algorithm": ("the course planner's --algorithm name (mdpviz plan's words)", "str"),
    "objective": ("max (rewards) or min (costs)", "str"),
    "discount": ("the discount gamma per step, in [0, 1]", "float|null"),
    "gamma": ("the discount's old key (deprecated: read discount)", "float"),
    "seed": ("the seed of the random numbers (null: fresh randomness)", "int|null"),
    "seconds": ("wall-clock seconds of the run's main work", "float"),
    "compile_seconds": ("seconds spent preparing the compiled learning loop before learning (numba compiles it on first use, else loads it from its cache)", "float"),
    "seconds_with_curve": ("seconds of learning including the curve's exact evaluations", "float"),
    "train_seconds": ("seconds of training", "float"),
    "settings": ("the run's settings, by field", "object"),
    "timing": ("seconds per phase", "object"),
    "log": ("one entry per layer of the exact solve", "list[object]"),
    "layer": ("the layer's index", "int"),
    "n_states": ("how many states the model (or a layer) has", "int"),
    "n_actions": ("how many actions the model has", "int"),
    "board_states": ("how many boards have the agent to move", "int"),
    "boards_solved": ("how many boards the exact solve evaluated", "int"),
    "positions": ("how many positions (boards with the side to move)", "int"),
    "transitions": ("how many transitions the model has", "int"),
    "terminal": ("how many terminal states a layer has", "int"),
    # --- states, values, policies (per state: a list indexed by the model's state order)
    "states": ("the states' labels, in the model's order", "list[str]"),
    "state_labels": ("the states' labels, in the model's order (null: the model has none)", "list[str]|null"),
    "actions": ("the actions' labels", "list[str]"),
    "start": ("the start state's index in states", "int"),
    "start_label": ("the start state's label", "str"),
    "start_cell": ("the start's (row, column) on the grid, from 0", "list[int]"),
    "start_value": ("the value of the start state", "float|null"),
    "expected_start_value": ("the value averaged over the start distribution", "float"),
    "exact_start_value": ("the exact optimal value of the start state", "float"),
    "values": ("the value per state (V_k, or the learned V)", "list[float|null]"),
    "policy": ("the action label per state (null: terminal)", "list[str|null]"),
    "q": ("per state, action label -> Q", "list[map]"),
    "value_grid": ("the value per grid cell, a list per grid row (null: a wall)", "list[list[float|null]]"),
    "policy_grid": ("the action per grid cell, a list per grid row (null: a wall or an end)", "list[list[str|null]]"),
    "rows": ("the grid's rows", "int"),
    "cols": ("the grid's columns", "int"),
    "exact": ("the exact value per state (the answer learning is compared with); mcts's children: Q*(position, move) of the game's exact solve", "list[float]|float"),
    "visits": ("how many times each state was visited (mcts's children: how many simulations took that move)", "list[int]|int"),
    "never_ends": ("per state: the evaluated policy never reaches an end from it", "list[bool]"),
    "gain": ("the average reward per step", "float"),
    # --- iterations
    "sweeps": ("steps of the method (sweeps, rounds, states, layers)", "int"),
    "iterations": ("sweeps of the exact solve", "int"),
    "converged": ("the method met its stopping rule", "bool"),
    "visited": ("per state: true where real-time dynamic programming backed the state up (the others keep their optimistic starting value)", "list[bool]"),
    "position": ("the label of the position searched (mcts)", "str"),
    "simulations": ("how many simulations the tree search ran", "int"),
    "c": ("UCT's exploration constant, in units of the reward range", "float"),
    "nodes": ("how many nodes the search tree holds (positions and moves)", "int"),
    "exact_value": ("V* of the position searched, from the game's exact solve", "float"),
    "children": ("one entry per legal move of the position searched", "list[object]"),
    "move": ("a move's label", "str"),
    "ucb": ("the move's UCB score as the next selection sees it (null: never tried)", "float|null"),
    "optimal": ("the move is one of the exact best moves (within the solvers' tie tolerance)", "bool"),
    "best_move": ("the move the tree search plays: its most visited", "str"),
    "exact_best_moves": ("every exact best move under the solvers' tie rule", "list[str]"),
    "trajectories": ("how many greedy trajectories from the start real-time dynamic programming ran", "int"),
    "history": ("one entry per step of the method", "list[object]"),
    "sweep": ("the step's number", "int"),
    "round": ("the round's number", "int"),
    "rounds": ("how many rounds ran", "int"),
    "phase": ("the step's phase (a word), or the phase diagram (an object)", "str|object"),
    "delta": ("the largest change of the step (null: not finite)", "float|null"),
    "updated": ("the states the step backed up", "list[int]"),
    "changed": ("how many boards changed action in that round", "int"),
    "changed_per_round": ("how many boards changed action, per round", "list[int]"),
    # --- distributions (solve --distribution, snakes)
    "distribution": ("P(the run takes k turns), k = 0, 1, ...", "list[float]"),
    "distribution_counts": ("what is counted (turns, moves)", "str"),
    "distribution_mean": ("the distribution's mean", "float"),
    "median": ("the distribution's median (null: beyond its support)", "int|null"),
    "quantile_90": ("the 90% quantile (null: beyond its support)", "int|null"),
    "tail": ("the probability left beyond the distribution's last count", "float"),
    "never": ("the probability of never ending", "float"),
    "return_distribution": ("the exact distribution of the return", "object"),
    # --- learning
    "episodes": ("episodes (games) run", "int"),
    "episode": ("the episode count at a curve point", "int"),
    "trained_episodes": ("episodes the agent was trained for", "int"),
    "updates": ("value updates made", "int"),
    "rms_error": ("RMS error of the learned values against the exact ones", "float|null"),
    "max_error": ("largest error of the learned values against the exact ones", "float|null"),
    "greedy_agreement": ("the share of states whose learned greedy action is optimal", "float"),
    "policy_value": ("the exact value of the learned greedy policy from the start (null: never ends)", "float|null"),
    "curve": ("one entry per curve point", "list[object]"),
    "return": ("the return averaged over the episodes since the last curve point", "float"),
    # --- planning with a learned model (Dyna-Q, Dyna-Q+: mdpviz learn --method dyna-q|dyna-q+)
    "planning_steps": ("n: planning updates from the learned model per real step", "int"),
    "kappa": ("Dyna-Q+'s bonus weight: a planning update's reward is R + kappa sqrt(tau) (null: Dyna-Q)", "float|null"),
    "real_steps": ("real steps (environment transitions) taken so far", "int"),
    "planning_updates": ("updates made from the learned model so far (apart from the real steps)", "int"),
    "steps": ("the real steps of an episode (averaged over the episodes since the last curve point)", "float"),
    "cumulative_reward": ("the sum of every real step's reward so far, undiscounted", "float"),
    "total_steps": ("the real steps the run was asked to stop after (0: run the episodes)", "int"),
    "switch_after": ("real steps after which the world changes (null: it never does)", "int|null"),
    "switched": ("the world has changed: exact is the second world's answer", "bool"),
    "exact_before": ("the exact value per state of the world before its change (null: it never changes)", "list[float]|null"),
    "epsilon": ("the exploration probability (epsilon-greedy)", "float"),
    "mean_td_error": ("the mean absolute TD error (null: none yet)", "float|null"),
    "eval_games": ("games of each evaluation", "int"),
    "eval_opponent": ("the evaluation's opponent", "str"),
    "done": ("training has finished", "bool"),
    "seat_win": ("win rate per seat", "object"),
    "baselines": ("the same games played by reference agents", "object"),
    "final": ("the final evaluation per mark", "object"),
    "out": ("the file written", "str"),
    "risk_name": ("the risk preset's name", "str"),
    "approx": ("the value-function approximator", "str"),
    "mark": ("the agent's mark, X or O", "str"),
    "opponent": ("the opponent's kind", "str"),
    "agent": ("the agent: its mark or colour, or its file", "str"),
    "agent_outcomes": ("the agent's games and exact outcome probabilities", "object"),
    "random": ("a uniformly random agent's games and exact outcome probabilities", "object"),
    # --- outcomes of games
    "games": ("games simulated", "int"),
    "win": ("probability (or rate) of a win", "float"),
    "draw": ("probability (or rate) of a draw", "float"),
    "loss": ("probability (or rate) of a loss", "float"),
    "wins": ("games won", "int"),
    "draws": ("the share of draws (match) or games drawn (ttt3d)", "float|int"),
    "losses": ("games lost", "int"),
    "win_ci": ("95% interval of the win rate", "list[float]"),
    "x_wins": ("share of games X won", "float"),
    "o_wins": ("share of games O won", "float"),
    "ci": ("95% intervals per outcome", "object"),
    "exact_outcomes": ("the exact outcome probabilities", "object"),
    "swapped": ("the same match with the marks swapped", "object"),
    "simulated": ("the simulated games' rates", "object"),
    "fractions": ("the exact outcome probabilities as fractions", "object"),
    "fraction": ("the value as an exact fraction", "str|null"),
    "value": ("the value of the start", "float"),
    "first_moves": ("the agent's first moves with their Q and outcome probabilities", "list[object]"),
    "board": ("a board as text", "str"),
    "cell": ("a cell index", "int"),
    "q_value": ("the Q value of that move", "float"),
    "chosen": ("the policy plays this move", "bool"),
    "explain": ("every move of one board", "object"),
    "x": ("the X player (a policy name or file)", "str"),
    "o": ("the O player (a policy name or file)", "str"),
    "p1_win": ("player 1's win probability", "float"),
    "p2_win": ("player 2's win probability", "float"),
    "player": ("the player (1 or 2)", "int"),
    "start_policy": ("the starting policy and its player", "object"),
    "ties": ("the tie rule", "str"),
    "saved": ("the files written", "list[str]"),
    # --- games' own settings
    "grid": ("the grid world's map", "str"),
    "convention": ("the grid world's convention (cs188 or aima)", "str"),
    "noise": ("the grid world's noise", "float"),
    "living_reward": ("the grid world's living reward", "float"),
    "env": ("the Gymnasium environment id", "str"),
    "kwargs": ("the keyword arguments of gymnasium.make", "map"),
    "layout": ("snakes and ladders' square types", "list[int]"),
    "circle": ("the circular board", "bool"),
    "rules": ("the rule set's name", "str"),
    "overshoot": ("the circular board's overshoot rule", "str|null"),
    "dice_names": ("the dice's names", "list[str]"),
    "dice": ("the optimal die per square (an index into dice_names)", "list[int]"),
    "expec": ("the expected turns to finish per square", "list[float]"),
    "games_per_square": ("games simulated per square", "list[int]"),
    "strategies": ("one entry per strategy compared", "list[object]"),
    "name": ("a name", "str"),
    "exact_mean": ("the exact expected turns from the first square", "float|null"),
    "mean": ("the simulated mean turns from the first square; mcts's children: the move's mean return over the simulations that took it (null: never tried)", "float|null"),
    "ci_half_width": ("half the 95% interval of the simulated mean", "float|null"),
    "inside": ("the exact mean is inside the simulated interval", "bool"),
    "exact_by_square": ("the exact expected turns per square", "list[float|null]"),
    "mean_by_square": ("the simulated mean turns per square", "list[float|null]"),
    "ci_by_square": ("half the 95% interval per square", "list[float|null]"),
    "error": ("why the strategy could not be evaluated (empty: it was)", "str|null"),
    "agent_first": ("the agent moves first", "bool"),
    "first": ("who moves first", "str"),
    "rewards": ("win, draw, loss rewards", "list[float]"),
    "size": ("the board's side", "int"),
    "preset": ("the risk preset's name", "str"),
    "risk": ("the risk per cell", "list[float]"),
    "variant": ("the checkers variant's settings", "object"),
    # --- sensitivity
    "param": ("the setting swept", "str"),
    "params": ("the two settings of a phase diagram", "list[str]"),
    "from": ("the low end of a range", "float"),
    "to": ("the high end of a range", "float"),
    "switch_points": ("where the set of optimal actions changes, ascending", "list[float]"),
    "intervals": ("one entry per interval between switch points", "list[object]"),
    "optimal_actions": ("per state, the labels of its optimal actions", "list[list[str]]"),
    "start_value_curve": ("V*(start) at each grid value of the setting", "list[object]"),
    "param_value": ("the setting's value", "float"),
    # --- function approximation (mdpviz learn --method gradient-mc|semi-td|...; issue 36)
    "features": ("the features as given (--features: tabular, aggregate:G, tiles:T:W, poly:K, fourier:K, file:PATH, game)", "str"),
    "n_features": ("how many features x(s) has (the length of the state weight vector)", "int"),
    "weights": ("the weight vector w (control: one block of n_features per action)", "list[float]"),
    "mu": ("the on-policy distribution per state (off-policy: the behaviour's), summing to 1", "list[float]"),
    "ve": ("the mean squared value error sum_s mu(s) (v_hat(s) - v(s))^2 (Sutton and Barto eq. 9.1; null: not finite)", "float|null"),
    "fixed_points": ("mc: the best fit (min VE, where gradient MC converges), td: the TD fixed point (where semi-gradient TD and LSTD converge; null: it does not exist), each {weights, values, ve}", "object"),
    "pbe": ("the mean squared projected Bellman error of the weights (Sutton and Barto section 11.4; prediction methods)", "float"),
    "td_note": ("why the TD fixed point does not exist", "str"),
    "bound": ("VE(best fit) / (1 - gamma), the bound on the TD fixed point's VE (eq. 9.14; null at discount 1)", "float|null"),
    "expected": ("true: the expected update was run (no sampling), each episode one step", "bool"),
    # --- policy gradients (mdpviz learn --method reinforce|...; mdpviz gradient; issue 37)
    "theta": ("the policy's preference weights theta, h(s, a) = theta . x(s, a)", "list[float]"),
    "policy_probs": ("per state, action label -> the softmax policy's probability (terminal: {})", "list[map]"),
    "J": ("the exact value of the policy from the start (continuing models: its average reward per step; null: undefined)", "float|null"),
    "J_best": ("the best value a policy of these features reaches from the start (null: undefined)", "float|null"),
    "J_best_how": ("how J_best was found (V*(start) for tabular features; else the best of exact-gradient ascents)", "str"),
    "gradient": ("the exact gradient of J with respect to theta (the policy-gradient theorem; null: not computed)", "list[float]|null"),
    "critic": ("the weights of the learned baseline or critic over the state features", "list[float]"),
    "avg_reward": ("the average-reward actor-critic's estimate of the reward per step", "float|null"),
    "samples": ("how many episodes were sampled", "int"),
    "without_baseline": ("the sampled one-episode REINFORCE estimates: their mean, variance (trace of the covariance), cosine with the exact gradient, standard error", "object"),
    "with_baseline": ("the same with the exact v_pi(S_t) subtracted from each return (section 13.4's baseline)", "object"),
    # --- export
    "title": ("the game's title", "str"),
    "figure": ("what was drawn", "str"),
    "files": ("the files written", "list[str]"),
    "width": ("width in pixels", "int"),
    "height": ("height in pixels", "int"),
    "tol": ("the stopping tolerance", "float|null"),
    "snapshots": ("snapshots recorded", "int"),
    # --- the bandit testbed (mdpviz bandit, issue 39; Sutton and Barto ch. 2)
    "arms": ("the number of arms of the bandit", "int"),
    "bernoulli": ("Bernoulli arms (p ~ Beta(prior) per run) rather than Gaussian ones (q* ~ N(arm_mean, 1))", "bool"),
    "arm_mean": ("the mean of the Gaussian arms' true values (null: Bernoulli arms)", "float|null"),
    "prior": ("the Beta(a, b) prior of the Bernoulli arms' success probabilities, [a, b] (null: Gaussian arms)", "list[float]|null"),
    "drift": ("the standard deviation of each true value's random-walk step per time step (0: stationary)", "float"),
    "runs": ("independent runs of the testbed averaged", "int"),
    "pulls": ("time steps (pulls) per run (--steps)", "int"),
    "options": ("the method's parameters as run, by name (its registry defaults filled in)", "object"),
    "average_reward": ("the reward at each time step, averaged over the runs (Sutton and Barto figure 2.2)", "list[float]"),
    "average_reward_se": ("the standard error of average_reward at each time step (null: one run)", "list[float|null]"),
    "optimal_action": ("the fraction of the runs that pulled an optimal arm at each time step (1 = 100%)", "list[float]"),
    "total_reward": ("the runs' mean total reward over the steps", "float"),
    "total_reward_se": ("the standard error of total_reward (null: one run)", "float|null"),
    "regret": ("per time step, the Bayes-optimal policy's expected reward minus average_reward (Bernoulli arms; null: not measured)", "list[float]|null"),
    "total_regret": ("the sum of regret over the steps (null: not measured)", "float|null"),
    "parameter_study": ("one entry per method of the parameter study (figure 2.6)", "list[object]"),
    "param_values": ("the values of the method's parameter swept (powers of 2)", "list[float]"),
    "study_reward": ("the average reward over the first steps at each of param_values", "list[float]"),
    "study_reward_se": ("the standard error of study_reward at each value (null: one run)", "list[float|null]"),
    # --- bandits: the exact modes (mdpviz bandit --exact / --gittins)
    "horizon": ("how many pulls the bandit lasts", "int"),
    "first_action": ("every Bayes-optimal first pull, arm numbers from 1 (tied arms all listed)", "list[int]"),
    "reward_per_step": ("the expected reward of each pull under the Bayes-optimal policy, from the first", "list[float]"),
    "index": ("the Gittins index (reward per pull) of Beta(a, b), a list per a of the values per b", "list[list[float]]"),
    "a": ("the Beta prior's first parameter (successes + a) along the table's rows", "list[int]"),
    "b": ("the Beta prior's second parameter (failures + b) along the table's columns", "list[int]"),
    "depth": ("how many pulls the Gittins index looks ahead (its truncation)", "int"),
    "error_bound": ("the truncation's bound on how far each index lies below the untruncated one", "float"),
}
"""JSON key -> (what it means, its type), for every command's ``--json``."""

_SCALARS = {"int", "float", "str", "bool", "object", "map"}


def conforms(value: object, kind: str) -> bool:
    """True when ``value`` (parsed JSON) has type ``kind`` (see the module docstring)."""
    if "|" in kind and not kind.startswith("list["):
        return any(conforms(value, k) for k in kind.split("|"))
    if kind.startswith("list[") and "]|" in kind:  # list[...]|null
        head, _, tail = kind.rpartition("|")
        return conforms(value, head) or conforms(value, tail)
    if kind == "null":
        return value is None
    if kind.startswith("list["):
        inner = kind[len("list["):-1]
        return isinstance(value, list) and all(conforms(v, inner) for v in value)
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "float":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "str":
        return isinstance(value, str)
    if kind == "bool":
        return isinstance(value, bool)
    if kind in ("object", "map"):
        return isinstance(value, dict)
    raise ValueError(f"unknown JSON type {kind!r} (one of {', '.join(sorted(_SCALARS))}, list[T], T|null)")


def problems(doc: dict, command: str) -> list[str]:
    """What in ``doc`` (one command's JSON) is not in :data:`KEYS` or not of its type: its top-level keys and
    the keys of the objects in its top-level lists."""
    out: list[str] = []

    def check(key: str, value: object, where: str) -> None:
        if key not in KEYS:
            out.append(f"{command}: {where}{key} is not in mdpviz.commands.json_keys.KEYS")
        elif not conforms(value, KEYS[key][1]):
            out.append(f"{command}: {where}{key} = {str(value)[:60]} is not {KEYS[key][1]}")

    for key, value in doc.items():
        check(key, value, "")
        if isinstance(value, list) and KEYS.get(key, ("", ""))[1] == "list[object]":
            for entry in value:
                for k, v in entry.items():
                    check(k, v, f"{key}[].")
    return out


__all__ = ["KEYS", "NOT_METHOD_IDS", "conforms", "problems"]
