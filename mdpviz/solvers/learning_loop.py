"""The episode loop of the learners, written once: run by numba (compiled) and by Python (reference).

Every function here is plain Python over numpy arrays and a ``numpy.random.Generator``. numba's
``register_jitable`` lets the compiled loop (:mod:`mdpviz.solvers._numba_learning`) inline the small
ones; without numba (or with ``MDPVIZ_NO_NUMBA`` set) they stay the plain functions, so
:func:`run_episodes` is then the reference loop itself. Both draw the same random numbers in the
same order (only ``rng.random()``, never a distribution numba draws differently), so one seed
gives the same numbers either way.

The model is used only as a simulator: the row of (state, action) is sampled by the cumulative
probabilities ``cum`` of its transitions. Values are stored per row (Q, one entry per legal
(state, action)) or per state (V). ``sense[s]`` is +1 where the value is a max over actions, -1
where a min (the mover and the objective, :attr:`~mdpviz.core.mdp.TabularMDP.sense`): a
"greedy" action is the best for the player who moves, so costs are minimised and a two-player
game learns by self-play, as the solvers back it up.

The updates (Sutton and Barto, 2nd edition):

* TD(0), eq. 6.2: ``V(S) <- V(S) + alpha [R + gamma V(S') - V(S)]``; n-step TD, eq. 7.2 (TD(0)
  is n = 1);
* first-visit (or every-visit) Monte Carlo, section 5.1 (prediction) and 5.4 (control of epsilon-soft
  policies; 5.3 with exploring starts): ``V(S_t) <- V(S_t) + alpha [G_t - V(S_t)]`` at the first visit
  (or at every visit);
* SARSA, eq. 6.7: target ``R + gamma Q(S', A')``; Expected SARSA, eq. 6.9: target
  ``R + gamma sum_a pi(a | S') Q(S', a)`` under the epsilon-greedy policy; Q-learning, eq. 6.8:
  target ``R + gamma max_a Q(S', a)``; Double Q-learning, section 6.7: a fair coin picks the
  table to update, its greedy action at S' is valued by the other table.

A terminal next state has value 0: the target is the reward alone (no bootstrap). An episode cut
by the step cap is not terminal: its last targets bootstrap from the state where it stopped.
"""
from __future__ import annotations

import math
import os

import numpy as np

if os.environ.get("MDPVIZ_NO_NUMBA"):
    def register_jitable(fn):  # noqa: D103 - the reference loop without numba
        return fn
else:
    try:
        from numba.extending import register_jitable
    except ImportError:  # numba missing: the plain functions are the loop
        def register_jitable(fn):  # noqa: D103
            return fn

TD0, NSTEP, MC, MC_CONTROL, SARSA, EXPECTED_SARSA, Q_LEARNING, DOUBLE_Q = range(8)
"""Method codes of the loop. Each loop learner's line in :data:`mdpviz.solvers.registry.ENTRIES` carries its
code explicitly (``code=``); a test holds the two equal, so a code never follows from a position in a list."""
CONTROL_FROM = MC_CONTROL
"""Codes from this one on learn Q (control); those below learn V of a given policy (prediction)."""


@register_jitable
def step_size(alpha: float, power: float, n: int) -> float:
    """The step size of an update that is the n-th of its entry: ``alpha / n**power`` (power 0:
    constant alpha; alpha 1 and power 1: 1/N, the sample average; power w in (0.5, 1]: 1/N^w)."""
    if power == 0.0:
        return alpha
    return alpha / n ** power


@register_jitable
def sample_row(rng, state_ptr, pi, s) -> int:
    """A row of state ``s`` drawn with the row probabilities ``pi`` (a given policy)."""
    u = rng.random()
    r0 = state_ptr[s]
    r1 = state_ptr[s + 1]
    acc = 0.0
    for r in range(r0, r1 - 1):
        acc += pi[r]
        if u < acc:
            return r
    return r1 - 1


@register_jitable
def sample_next(rng, row_ptr, cum, r) -> int:
    """The transition of row ``r`` drawn with its probabilities (``cum``: cumulative within the row): the
    first ``j`` with ``u < cum[j]`` (the last when there is none). A row of many outcomes (the random walk's 200
    jumps, a dice game's) is searched by bisection, which finds that same ``j`` (``cum`` does not decrease
    within a row), so the numbers do not depend on the search."""
    u = rng.random()
    lo = row_ptr[r]
    hi = row_ptr[r + 1] - 1
    if hi - lo > 8:
        while lo < hi:
            mid = (lo + hi) // 2
            if u < cum[mid]:
                hi = mid
            else:
                lo = mid + 1
        return lo
    for j in range(lo, hi):
        if u < cum[j]:
            return j
    return hi


@register_jitable
def row_value(q, q2, both, r) -> float:
    """Q of row ``r``: ``q[r]``, or ``q[r] + q2[r]`` when ``both`` (Double Q-learning acts on the sum)."""
    if both:
        return q[r] + q2[r]
    return q[r]


@register_jitable
def greedy_row(q, q2, both, r0, r1, sg) -> int:
    """The first row of ``r0:r1`` with the best ``sg * Q`` (the lowest action among exact ties)."""
    best = -np.inf
    out = r0
    for r in range(r0, r1):
        v = sg * row_value(q, q2, both, r)
        if v > best:
            best = v
            out = r
    return out


@register_jitable
def scan_rows(q, q2, both, r0, r1, sg):
    """One pass over the rows ``r0:r1``: ``(best, count, first)``, the best ``sg * Q``, how many rows
    reach it exactly and the first of them (so ``sg * best`` is ``max_a`` / ``min_a`` Q of the state)."""
    best = -np.inf
    count = 0
    first = r0
    for r in range(r0, r1):
        v = sg * row_value(q, q2, both, r)
        if v > best:
            best = v
            count = 1
            first = r
        elif v == best:
            count += 1
    return best, count, first


@register_jitable
def pick_row(rng, q, q2, both, r0, r1, sg, eps, best, count, first) -> int:
    """Epsilon-greedy over the rows ``r0:r1`` given their :func:`scan_rows`: with probability ``eps`` a
    uniformly random legal action, else a greedy one (best ``sg * Q``), exact ties broken uniformly at random."""
    k = r1 - r0
    if eps > 0.0 and rng.random() < eps:
        return r0 + min(int(rng.random() * k), k - 1)
    if count == 1:
        return first
    j = min(int(rng.random() * count), count - 1)
    for r in range(r0, r1):
        if sg * row_value(q, q2, both, r) == best:
            if j == 0:
                return r
            j -= 1
    return r1 - 1


@register_jitable
def choose_row(rng, q, q2, both, r0, r1, sg, eps) -> int:
    """Epsilon-greedy over the rows ``r0:r1``: with probability ``eps`` a uniformly random legal
    action, else a greedy one (best ``sg * Q``), exact ties broken uniformly at random."""
    best, count, first = scan_rows(q, q2, both, r0, r1, sg)
    return pick_row(rng, q, q2, both, r0, r1, sg, eps, best, count, first)


@register_jitable
def best_value(q, r0, r1, sg) -> float:
    """``max_a Q(s, a)`` for a maximising state (``sg`` +1), ``min_a`` for a minimising one (-1)."""
    best = -np.inf
    for r in range(r0, r1):
        v = sg * q[r]
        if v > best:
            best = v
    return sg * best


@register_jitable
def expected_value(q, r0, r1, sg, eps) -> float:
    """``sum_a pi(a | s) Q(s, a)`` under the epsilon-greedy policy of ``choose_row`` (each action
    eps / k, the greedy ones share 1 - eps equally)."""
    k = r1 - r0
    best = -np.inf
    count = 0
    total = 0.0
    for r in range(r0, r1):
        v = sg * q[r]
        total += q[r]
        if v > best:
            best = v
            count = 1
        elif v == best:
            count += 1
    return eps * total / k + (1.0 - eps) * sg * best


@register_jitable
def q_target(method, q, q2, r_next, state_ptr, sense, terminal, gamma, reward, s2, eps) -> float:
    """The one-step target of SARSA (``r_next``: the row chosen at S'), Expected SARSA, Q-learning or
    (``q``, ``q2``: the table updated and the other one) Double Q-learning; the reward alone when S'
    is terminal."""
    if terminal[s2]:
        return reward
    r0 = state_ptr[s2]
    r1 = state_ptr[s2 + 1]
    sg = sense[s2]
    if method == SARSA:
        return reward + gamma * q[r_next]
    if method == EXPECTED_SARSA:
        return reward + gamma * expected_value(q, r0, r1, sg, eps)
    if method == DOUBLE_Q:
        return reward + gamma * q2[greedy_row(q, q, False, r0, r1, sg)]
    return reward + gamma * best_value(q, r0, r1, sg)


@register_jitable
def normal(rng) -> float:
    """A standard normal number from two ``rng.random()`` draws (Box-Muller), so that the compiled loop and
    Python draw the same numbers (numba's own normal sampler differs from numpy's)."""
    u1 = rng.random()
    u2 = rng.random()
    return math.sqrt(-2.0 * math.log(1.0 - u1)) * math.cos(2.0 * math.pi * u2)


@register_jitable
def draw_transition(rng, row_ptr, cum, dst, reward, noise, noisy, row):
    """One step of the environment from row ``row`` (a state's action): the next state and the reward, drawn
    as the model says (:func:`sample_next`; a reward with a standard deviation, Example 6.7's, gets its normal
    noise). Every compiled loop steps its episodes through here: the tabular learners', the approximation
    learners' and the policy-gradient learners'."""
    j = sample_next(rng, row_ptr, cum, row)
    rew = reward[j]
    if noisy and noise[j] > 0.0:
        rew += noise[j] * normal(rng)
    return dst[j], rew


@register_jitable
def td_update(table, i, target, alpha) -> float:
    """``table[i] <- table[i] + alpha (target - table[i])``, the update every learner makes; the new value."""
    table[i] = table[i] + alpha * (target - table[i])
    return table[i]


def run_episodes(method, n_episodes, first_episode, state_ptr, row_ptr, dst, cum, reward, noise, noisy, terminal,
                 sense, gamma, pi, starts, start, exploring, alpha, power, eps0, eps_decay, eps_min, n_step, every_visit,
                 max_steps, rng, q, q2, v, n_row, n_state, visits, first, path_s, path_r, path_g, returns, lengths):
    """Run ``n_episodes`` episodes of ``method`` (a code above) in place; the number of updates made.

    Episode ``first_episode + i`` explores with ``max(eps_min, eps0 * eps_decay**k)``; it starts in
    ``start``, or with ``exploring`` (control only) in a state drawn from ``starts`` with a random
    first action (exploring starts, S&B 5.3). It stops in a terminal state or after ``max_steps``
    steps. ``q``/``q2`` (rows), ``v`` (states), ``n_row``/``n_state`` (update counts: the N of the
    step size), ``visits`` (state visits) are updated in place; ``first`` (n_rows, all -1) is
    scratch. Per episode: ``returns[i]`` (discounted return from its start) and ``lengths[i]``
    (steps); ``path_s``/``path_r``/``path_g`` (max_steps + 1) hold the last episode's states, rows
    and rewards. ``pi`` (row probabilities) is the policy that prediction methods follow.
    With ``noisy``, a transition ``j`` whose ``noise[j]`` (a standard deviation) is positive pays a reward
    drawn from N(``reward[j]``, ``noise[j]``^2) (:func:`normal`; the model's reward is the mean, which the
    exact answer uses); without it ``noise`` is not read and no extra number is drawn. ``every_visit``:
    Monte Carlo updates at every visit (S&B 5.1's every-visit MC), not the first only.
    """
    updates = 0
    control = method >= CONTROL_FROM
    double = method == DOUBLE_Q
    for i in range(n_episodes):
        k = first_episode + i
        eps = max(eps_min, eps0 * eps_decay ** float(k))  # libm pow in both loops (numba's int power differs in the last bit)
        s = start
        if exploring and control:
            s = starts[min(int(rng.random() * starts.size), starts.size - 1)]
        # the first action: exploring start, the policy followed, or epsilon-greedy
        r0 = state_ptr[s]
        r1 = state_ptr[s + 1]
        if not control:
            row = sample_row(rng, state_ptr, pi, s)
        elif exploring:
            row = r0 + min(int(rng.random() * (r1 - r0)), r1 - r0 - 1)
        else:
            row = choose_row(rng, q, q2, double, r0, r1, sense[s], eps)
        t = 0
        ret = 0.0
        disc = 1.0
        done = False
        path_s[0] = s
        visits[s] += 1
        while t < max_steps:
            s2, rew = draw_transition(rng, row_ptr, cum, dst, reward, noise, noisy, row)
            path_r[t] = row
            path_g[t] = rew
            path_s[t + 1] = s2
            ret += disc * rew
            disc *= gamma
            t += 1
            done = terminal[s2]
            if not done:
                visits[s2] += 1
            # the next action, chosen before the update (SARSA's A'); Q-learning chooses it alike
            row2 = -1
            if not done:
                r0 = state_ptr[s2]
                r1 = state_ptr[s2 + 1]
                if control:
                    sg = sense[s2]
                    best, count, top = scan_rows(q, q2, double, r0, r1, sg)
                    row2 = pick_row(rng, q, q2, double, r0, r1, sg, eps, best, count, top)
                    if method == Q_LEARNING:
                        # the target's max_a Q(S', a) is this scan's (Q unchanged since): the same number
                        n_row[row] += 1
                        td_update(q, row, rew + gamma * (sg * best), step_size(alpha, power, n_row[row]))
                        updates += 1
                        s = s2
                        row = row2
                        continue
                else:
                    row2 = sample_row(rng, state_ptr, pi, s2)
            if method >= SARSA:
                if double and rng.random() >= 0.5:
                    n_row[row] += 1
                    target = q_target(method, q2, q, row2, state_ptr, sense, terminal, gamma, rew, s2, eps)
                    td_update(q2, row, target, step_size(alpha, power, n_row[row]))
                else:
                    n_row[row] += 1
                    target = q_target(method, q, q2, row2, state_ptr, sense, terminal, gamma, rew, s2, eps)
                    td_update(q, row, target, step_size(alpha, power, n_row[row]))
                updates += 1
            elif method == TD0 or method == NSTEP:
                tau = t - n_step  # the time whose state is updated now (S&B 7.1's box)
                if tau >= 0:
                    updates += nstep_update(v, n_state, path_s, path_g, tau, t, n_step, gamma, terminal, done,
                                            alpha, power)
            if done:
                break
            s = s2
            row = row2
        if method == TD0 or method == NSTEP:
            # the episode ended (terminal: no bootstrap; cut: bootstrap from where it stopped)
            for tau in range(max(0, t - n_step + 1), t):
                updates += nstep_update(v, n_state, path_s, path_g, tau, t, t - tau, gamma, terminal, done,
                                        alpha, power)
        elif method == MC or method == MC_CONTROL:
            updates += mc_updates(method == MC_CONTROL, q, v, n_row, n_state, first, path_s, path_r, path_g, t,
                                  gamma, alpha, power, every_visit)
        returns[i] = ret
        lengths[i] = t
    return updates


@register_jitable
def nstep_update(v, n_state, path_s, path_g, tau, t, n, gamma, terminal, done, alpha, power) -> int:
    """n-step TD (S&B eq. 7.2): ``V(S_tau) <- V(S_tau) + alpha [G_{tau:tau+n} - V(S_tau)]`` with
    ``G = R_{tau+1} + ... + gamma^{n-1} R_{tau+n} + gamma^n V(S_{tau+n})`` (``t = tau + n``; no
    ``V`` term when S_t is terminal); 1 update."""
    g = 0.0
    d = 1.0
    for i in range(tau, t):
        g += d * path_g[i]
        d *= gamma
    s_end = path_s[t]
    if not (done and terminal[s_end]):
        g += d * v[s_end]
    s = path_s[tau]
    n_state[s] += 1
    td_update(v, s, g, step_size(alpha, power, n_state[s]))
    return 1


@register_jitable
def mc_updates(control, q, v, n_row, n_state, first, path_s, path_r, path_g, t, gamma, alpha, power,
               every_visit) -> int:
    """First-visit (or, with ``every_visit``, every-visit) Monte Carlo (S&B 5.1, 5.4) over an episode of
    ``t`` steps: walking back, ``G <- gamma G + R_{k+1}``, and at the first visit of S_k (prediction)
    or of (S_k, A_k) (control), or at every visit, ``value <- value + alpha [G - value]``; the number
    of updates. Every-visit updates are made walking back, so a later visit's return is taken first."""
    n = 0
    for k in range(t):  # first visits: the earliest time of each state (or row)
        key = path_r[k] if control else path_s[k]
        if first[key] < 0:
            first[key] = k
    g = 0.0
    for k in range(t - 1, -1, -1):
        g = gamma * g + path_g[k]
        key = path_r[k] if control else path_s[k]
        if every_visit or first[key] == k:
            if control:
                n_row[key] += 1
                td_update(q, key, g, step_size(alpha, power, n_row[key]))
            else:
                n_state[key] += 1
                td_update(v, key, g, step_size(alpha, power, n_state[key]))
            n += 1
    for k in range(t):
        first[path_r[k] if control else path_s[k]] = -1
    return n


def summarise(control, q, state_ptr, sense, terminal, v, exact_values, optimal, values, rows):
    """A snapshot's numbers in one pass: per state the learned value (control: ``sense``-best Q, the
    lowest action among exact ties, its row in ``rows``; prediction: ``v``), and over the non-terminal
    states the sum of squared errors to ``exact_values``, the largest error, the number whose greedy
    row is ``optimal`` and their count. Terminal states: value 0, row -1."""
    sumsq = 0.0
    maxerr = 0.0
    agree = 0
    live = 0
    for s in range(terminal.size):
        if terminal[s]:
            values[s] = 0.0
            rows[s] = -1
            continue
        if control:
            r = greedy_row(q, q, False, state_ptr[s], state_ptr[s + 1], sense[s])
            rows[s] = r
            values[s] = q[r]
            if optimal[r]:
                agree += 1
        else:
            values[s] = v[s]
            rows[s] = -1
        e = abs(values[s] - exact_values[s])
        sumsq += e * e
        if e > maxerr:
            maxerr = e
        live += 1
    return sumsq, maxerr, agree, live
