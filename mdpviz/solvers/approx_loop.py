"""The episode loop of the learners with linear function approximation, written once: run by numba
(compiled) and by Python (reference).

As :mod:`mdpviz.solvers.learning_loop` (whose helpers it calls: :func:`sample_row`, :func:`draw_transition`,
:func:`scan_rows`, :func:`pick_row`, :func:`choose_row`, :func:`normal`), every function here is plain
Python over numpy arrays and a ``numpy.random.Generator``; ``register_jitable`` lets the compiled loop
(:mod:`mdpviz.solvers._numba_approx`) inline the small ones, and without numba they are the reference loop
itself. The random numbers are drawn in the order the tabular loop draws them, so with one-hot
("tabular") features each learner gives the tabular learner's numbers for the same seed, bit for bit.

The features are a state feature matrix X (n_states x d) given in CSR form (``x_ptr``, ``x_idx``,
``x_val``: the nonzero features of each state), so an update costs the active features only (a tile
coder's T, not d). The approximate value is ``v_hat(s, w) = w . x(s)`` (Sutton and Barto eq. 9.8);
control learns ``q_hat(s, a, w) = w . x(s, a)`` with x(s, a) = x(s) placed in the block of action a
(``w[a * d + k]``, section 10.1's stacking). A terminal state has value 0 (no bootstrap), as in the
tabular loop.

The updates (Sutton and Barto, 2nd edition):

* gradient Monte Carlo, eq. 9.5 with U_t = G_t: ``w <- w + alpha [G_t - v_hat(S_t, w)] x(S_t)`` at every
  step of the episode, made walking back from its end (as the tabular every-visit Monte Carlo does, so
  that one-hot features give its numbers);
* semi-gradient TD(0), eq. 9.7 with U_t = R + gamma v_hat(S', w); n-step semi-gradient TD, eq. 9.15;
* LSTD, section 9.8: ``A_hat = eps I + sum x_t (x_t - gamma x_{t+1})^T``, ``b_hat = sum R_{t+1} x_t``
  accumulated here, ``w = A_hat^-1 b_hat`` solved at each snapshot by the caller;
* off-policy semi-gradient TD(0), eq. 11.2: ``w <- w + alpha rho_t delta_t x(S_t)``,
  ``rho_t = pi(A_t | S_t) / b(A_t | S_t)`` (eq. 11.1);
* TDC (gradient-TD, section 11.7): ``w <- w + alpha rho (delta x - gamma x' (x^T v))``,
  ``v <- v + beta rho (delta - v^T x) x``;
* episodic semi-gradient SARSA, eq. 10.1, and n-step semi-gradient SARSA, eq. 10.4 (section 10.2).

Continuing models (no terminal state): an episode is ``max_steps`` steps, and the next one continues
from the state (and the action already chosen there) where the last stopped (``carry``).
"""
from __future__ import annotations

from bisect import bisect_right

from mdpviz.solvers.learning_loop import (choose_row, draw_transition, pick_row, register_jitable, sample_row,
                                          scan_rows)

GRADIENT_MC, SEMI_TD, SEMI_NSTEP, LSTD, OFF_TD, TDC, SEMI_SARSA, SEMI_NSTEP_SARSA = range(8)
"""Method codes of the loop (each approximation line of :data:`mdpviz.solvers.registry.ENTRIES` carries its
code as ``code=``; a test holds them equal)."""
CONTROL_FROM = SEMI_SARSA
"""Codes from this one on learn q_hat (control); those below learn v_hat of a given policy."""
OFF_POLICY = (OFF_TD, TDC)
"""The codes that follow a behaviour policy and weigh each update by the importance ratio rho."""

LAST_FIELDS = ("state", "row", "reward", "next_state", "target", "estimate", "delta", "alpha", "rho", "correction")
"""What the loop writes of its last update into ``last`` (float64, one entry each; -1 for none)."""


@register_jitable
def dot(x_ptr, x_idx, x_val, w, s, off) -> float:
    """``w[off:off + d] . x(s)``: v_hat(s, w) (``off`` 0), or q_hat(s, a, w) (``off`` = a * d)."""
    acc = 0.0
    for k in range(x_ptr[s], x_ptr[s + 1]):
        acc += x_val[k] * w[off + x_idx[k]]
    return acc


@register_jitable
def add(x_ptr, x_idx, x_val, w, s, off, step) -> None:
    """``w[off:off + d] <- w[off:off + d] + step x(s)`` (the semi-gradient step: the gradient of a linear
    v_hat is x(s), eq. 9.9)."""
    for k in range(x_ptr[s], x_ptr[s + 1]):
        w[off + x_idx[k]] = w[off + x_idx[k]] + step * x_val[k]


@register_jitable
def record(last, s, row, reward, s2, target, estimate, delta, alpha, rho, correction) -> None:
    """The update just made, for the inspector (:data:`LAST_FIELDS`)."""
    last[0] = s
    last[1] = row
    last[2] = reward
    last[3] = s2
    last[4] = target
    last[5] = estimate
    last[6] = delta
    last[7] = alpha
    last[8] = rho
    last[9] = correction


@register_jitable
def fill_q(qbuf, x_ptr, x_idx, x_val, w, d, row_action, r0, r1, s) -> None:
    """q_hat(s, a, w) of each row ``r0:r1`` of state ``s`` into ``qbuf[r0:r1]`` (the epsilon-greedy helpers
    of the tabular loop read them there)."""
    for r in range(r0, r1):
        qbuf[r] = dot(x_ptr, x_idx, x_val, w, s, row_action[r] * d)


@register_jitable
def nstep_v(x_ptr, x_idx, x_val, w, path_s, path_g, tau, t, gamma, terminal, done, alpha, last) -> int:
    """n-step semi-gradient TD (eq. 9.15): ``G = R_{tau+1} + ... + gamma^{n-1} R_{tau+n} + gamma^n
    v_hat(S_{tau+n}, w)`` (no v_hat term when S_t is terminal; ``t = tau + n``), then ``w <- w + alpha [G -
    v_hat(S_tau, w)] x(S_tau)`` (TD(0): n = 1, eq. 9.7); summed in the tabular loop's order. 1 update."""
    g = 0.0
    disc = 1.0
    for i in range(tau, t):
        g += disc * path_g[i]
        disc *= gamma
    s_end = path_s[t]
    if not (done and terminal[s_end]):
        g += disc * dot(x_ptr, x_idx, x_val, w, s_end, 0)
    s = path_s[tau]
    est = dot(x_ptr, x_idx, x_val, w, s, 0)
    delta = g - est
    add(x_ptr, x_idx, x_val, w, s, 0, alpha * delta)
    record(last, s, -1, path_g[t - 1], s_end, g, est, delta, alpha, 1.0, 0.0)
    return 1


@register_jitable
def nstep_q(x_ptr, x_idx, x_val, w, d, row_action, path_s, path_r, path_g, tau, t, gamma, terminal, done, alpha,
            last) -> int:
    """n-step semi-gradient SARSA (eq. 10.4): ``G = R_{tau+1} + ... + gamma^n q_hat(S_{tau+n}, A_{tau+n}, w)``
    (no q_hat term when S_t is terminal), ``w <- w + alpha [G - q_hat(S_tau, A_tau, w)] x(S_tau, A_tau)``;
    SARSA (eq. 10.1) is n = 1. ``path_r[t]``: the action chosen in S_t. 1 update."""
    g = 0.0
    disc = 1.0
    for i in range(tau, t):
        g += disc * path_g[i]
        disc *= gamma
    s_end = path_s[t]
    if not (done and terminal[s_end]):
        g += disc * dot(x_ptr, x_idx, x_val, w, s_end, row_action[path_r[t]] * d)
    s = path_s[tau]
    row = path_r[tau]
    off = row_action[row] * d
    est = dot(x_ptr, x_idx, x_val, w, s, off)
    delta = g - est
    add(x_ptr, x_idx, x_val, w, s, off, alpha * delta)
    record(last, s, row, path_g[t - 1], s_end, g, est, delta, alpha, 1.0, 0.0)
    return 1


@register_jitable
def off_policy_update(method, x_ptr, x_idx, x_val, w, h, s, row, rew, s2, done, gamma, alpha, beta, rho,
                      last) -> int:
    """One step of off-policy semi-gradient TD (eq. 11.2) or TDC (section 11.7) with the importance ratio
    ``rho``; on-policy (rho = 1) semi-gradient TD(0). 1 update."""
    v2 = 0.0
    if not done:
        v2 = dot(x_ptr, x_idx, x_val, w, s2, 0)
    est = dot(x_ptr, x_idx, x_val, w, s, 0)
    target = rew + gamma * v2
    if done:
        target = rew
    delta = target - est
    corr = 0.0
    if method == TDC:
        corr = dot(x_ptr, x_idx, x_val, h, s, 0)  # x^T v, before either vector moves
        add(x_ptr, x_idx, x_val, w, s, 0, alpha * rho * delta)
        if not done:
            add(x_ptr, x_idx, x_val, w, s2, 0, -alpha * rho * gamma * corr)
        add(x_ptr, x_idx, x_val, h, s, 0, beta * rho * (delta - corr))
    else:
        add(x_ptr, x_idx, x_val, w, s, 0, alpha * rho * delta)
    record(last, s, row, rew, s2, target, est, delta, alpha, rho, corr)
    return 1


@register_jitable
def lstd_accumulate(x_ptr, x_idx, x_val, amat, bvec, s, rew, s2, done, gamma) -> int:
    """LSTD's sums (section 9.8): ``A_hat += x (x - gamma x')^T``, ``b_hat += R x`` (x' = 0 at a terminal
    state). 1 update."""
    for k in range(x_ptr[s], x_ptr[s + 1]):
        i = x_idx[k]
        xi = x_val[k]
        bvec[i] += rew * xi
        for m in range(x_ptr[s], x_ptr[s + 1]):
            amat[i, x_idx[m]] += xi * x_val[m]
        if not done:
            for m in range(x_ptr[s2], x_ptr[s2 + 1]):
                amat[i, x_idx[m]] -= gamma * xi * x_val[m]
    return 1


def run_approx(method, n_episodes, first_episode, state_ptr, row_ptr, dst, cum, reward, noise, noisy, terminal,
               sense, row_action, gamma, pi, bpi, start, continuing, carry, alpha, beta, eps0, eps_decay, eps_min,
               n_step, max_steps, rng, x_ptr, x_idx, x_val, d, w, h, amat, bvec, qbuf, visits, path_s, path_r,
               path_g, returns, lengths, last):
    """Run ``n_episodes`` episodes of ``method`` (a code above) in place; the number of updates made.

    Episode ``first_episode + i`` explores with ``max(eps_min, eps0 * eps_decay**k)`` (control); it starts
    in ``start`` (a continuing model: where the last stopped, ``carry`` = [state, row], -1 before the first)
    and stops in a terminal state or after ``max_steps`` steps. Prediction and LSTD follow the row
    probabilities ``pi``; the off-policy codes follow ``bpi`` and weigh by ``pi / bpi``. ``w`` (weights:
    d, or d * n_actions for control), ``h`` (TDC's second vector), ``amat`` / ``bvec`` (LSTD's sums),
    ``visits`` are updated in place; ``qbuf`` (n_rows) is scratch. Per episode: ``returns[i]``
    (discounted return) and ``lengths[i]`` (steps); ``path_s`` / ``path_r`` / ``path_g`` (max_steps + 1)
    hold the last episode's states, rows and rewards; ``last`` the last update (:data:`LAST_FIELDS`).
    """
    updates = 0
    control = method >= CONTROL_FROM
    off = method == OFF_TD or method == TDC
    nstep = method == SEMI_TD or method == SEMI_NSTEP
    nq = method == SEMI_SARSA or method == SEMI_NSTEP_SARSA
    follow = bpi if off else pi
    s2 = start
    row2 = -1
    for i in range(n_episodes):
        k = first_episode + i
        eps = max(eps_min, eps0 * eps_decay ** float(k))
        if continuing and carry[0] >= 0:
            s = carry[0]
            row = carry[1]
        else:
            s = start
            r0 = state_ptr[s]
            r1 = state_ptr[s + 1]
            if control:
                fill_q(qbuf, x_ptr, x_idx, x_val, w, d, row_action, r0, r1, s)
                row = choose_row(rng, qbuf, qbuf, False, r0, r1, sense[s], eps)
            else:
                row = sample_row(rng, state_ptr, follow, s)
            visits[s] += 1
        t = 0
        ret = 0.0
        disc = 1.0
        done = False
        path_s[0] = s
        path_r[0] = row
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
            # the next action, chosen before the update (SARSA's A')
            row2 = -1
            if not done:
                r0 = state_ptr[s2]
                r1 = state_ptr[s2 + 1]
                if control:
                    fill_q(qbuf, x_ptr, x_idx, x_val, w, d, row_action, r0, r1, s2)
                    sg = sense[s2]
                    best, count, top = scan_rows(qbuf, qbuf, False, r0, r1, sg)
                    row2 = pick_row(rng, qbuf, qbuf, False, r0, r1, sg, eps, best, count, top)
                else:
                    row2 = sample_row(rng, state_ptr, follow, s2)
            path_r[t] = row2
            if nq:
                tau = t - n_step
                if tau >= 0:
                    updates += nstep_q(x_ptr, x_idx, x_val, w, d, row_action, path_s, path_r, path_g, tau, t, gamma,
                                       terminal, done, alpha, last)
            elif nstep:
                tau = t - n_step  # the time whose state is updated now (S&B 7.1's box)
                if tau >= 0:
                    updates += nstep_v(x_ptr, x_idx, x_val, w, path_s, path_g, tau, t, gamma, terminal, done, alpha,
                                       last)
            elif off:
                rho = 1.0
                if follow[row] > 0.0:
                    rho = pi[row] / follow[row]
                else:
                    rho = 0.0
                updates += off_policy_update(method, x_ptr, x_idx, x_val, w, h, s, row, rew, s2, done, gamma, alpha,
                                             beta, rho, last)
            elif method == LSTD:
                updates += lstd_accumulate(x_ptr, x_idx, x_val, amat, bvec, s, rew, s2, done, gamma)
            if done:
                break
            s = s2
            row = row2
        # the episode ended (terminal: no bootstrap; cut: bootstrap from where it stopped)
        if nstep:
            for tau in range(max(0, t - n_step + 1), t):
                updates += nstep_v(x_ptr, x_idx, x_val, w, path_s, path_g, tau, t, gamma, terminal, done, alpha, last)
        elif nq:
            for tau in range(max(0, t - n_step + 1), t):
                updates += nstep_q(x_ptr, x_idx, x_val, w, d, row_action, path_s, path_r, path_g, tau, t, gamma,
                                   terminal, done, alpha, last)
        elif method == GRADIENT_MC:
            updates += mc_sweep(x_ptr, x_idx, x_val, w, path_s, path_g, t, gamma, alpha, last)
        if continuing and not done:
            carry[0] = s
            carry[1] = row
        returns[i] = ret
        lengths[i] = t
    return updates


@register_jitable
def mc_sweep(x_ptr, x_idx, x_val, w, path_s, path_g, t, gamma, alpha, last) -> int:
    """Gradient Monte Carlo (eq. 9.5, U_t = G_t) over an episode of ``t`` steps: walking back,
    ``G <- gamma G + R_{k+1}`` and ``w <- w + alpha [G - v_hat(S_k, w)] x(S_k)`` at every step (the tabular
    every-visit Monte Carlo's order); the number of updates."""
    g = 0.0
    for k in range(t - 1, -1, -1):
        g = gamma * g + path_g[k]
        s = path_s[k]
        est = dot(x_ptr, x_idx, x_val, w, s, 0)
        delta = g - est
        add(x_ptr, x_idx, x_val, w, s, 0, alpha * delta)
        record(last, s, -1, path_g[k], -1, g, est, delta, alpha, 1.0, 0.0)
    return t


def plain_semi_td(x_rows, *, state_ptr, row_ptr, dst, cum, reward, terminal, pi, gamma, start, alpha, episodes,
                  max_steps, seed=0) -> int:
    """Semi-gradient TD(0) (eq. 9.7) as plain Python, for the bench: lists, ``random.random()``, the features
    of each state as a list of (index, value) pairs. The number of updates."""
    import random

    w = [0.0] * (1 + max((i for row in x_rows for i, _v in row), default=0))
    rnd = random.Random(seed).random
    updates = 0

    def pick(s: int) -> int:
        u = rnd()
        acc = 0.0
        r0, r1 = state_ptr[s], state_ptr[s + 1]
        for r in range(r0, r1 - 1):
            acc += pi[r]
            if u < acc:
                return r
        return r1 - 1

    for _ in range(episodes):
        s = start
        row = pick(s)
        for _t in range(max_steps):
            u = rnd()
            j, end = row_ptr[row], row_ptr[row + 1] - 1
            j = bisect_right(cum, u, j, end)  # (the first j with u < cum[j], else the row's last, by bisection)
            s2, r = dst[j], reward[j]
            xs = x_rows[s]
            v = sum(val * w[i] for i, val in xs)
            target = r if terminal[s2] else r + gamma * sum(val * w[i] for i, val in x_rows[s2])
            step = alpha * (target - v)
            for i, val in xs:
                w[i] += step * val
            updates += 1
            if terminal[s2]:
                break
            s = s2
            row = pick(s)
    return updates
