"""The episode loop of the policy-gradient learners, written once: run by numba (compiled) and by Python
(reference).

As :mod:`mdpviz.solvers.approx_loop` (whose :func:`~mdpviz.solvers.approx_loop.dot` and
:func:`~mdpviz.solvers.approx_loop.add` the critic uses) and :mod:`mdpviz.solvers.learning_loop` (whose
:func:`~mdpviz.solvers.learning_loop.sample_row`, :func:`~mdpviz.solvers.learning_loop.draw_transition` and
:func:`~mdpviz.solvers.learning_loop.normal` draw every action and outcome), every function here is plain
Python over numpy arrays and a ``numpy.random.Generator`` (only ``rng.random()``); ``register_jitable`` lets
the compiled loop (:mod:`mdpviz.solvers._numba_pg`) inline the small ones, and without numba they are the
reference loop itself, so one seed gives the same numbers either way.

The policy (Sutton and Barto, 2nd edition, section 13.1): preferences ``h(s, a) = theta . x(s, a)`` over
state-action features given per (state, action) row in CSR form (``xa_ptr``, ``xa_idx``, ``xa_val``), and
``pi(a|s)`` the softmax of h over the state's rows (eq. 13.2). Its eligibility vector is
``grad ln pi(a|s) = x(s, a) - sum_b pi(b|s) x(s, b)`` (eq. 13.9's softmax form, exercise 13.3). The critic
(or baseline) is ``v_hat(s, w) = w . x(s)`` over state features (``x_ptr``, ``x_idx``, ``x_val``; 0 at a
terminal state). Each step of theta is made in the direction ``sign`` (+1: the learner maximises J, -1: it
minimises a cost). Where the learner does not move (``learner[s]`` False: the opponent of a two-player
game) the action is drawn from the fixed row probabilities ``fixed_probs`` and theta is not stepped there.

The updates:

* REINFORCE (section 13.3): after the episode, for t = 0 .. T-1, ``theta <- theta + alpha_theta gamma^t G_t
  grad ln pi(A_t|S_t, theta)``, each gradient at the theta that made the episode (:func:`reinforce_sweep`
  says why);
* REINFORCE with baseline (section 13.4): ``delta = G_t - v_hat(S_t, w)``, ``w <- w + alpha_w delta x(S_t)``,
  ``theta <- theta + alpha_theta gamma^t delta grad ln pi``;
* one-step actor-critic (section 13.5): at every step ``delta = R + gamma v_hat(S', w) - v_hat(S, w)``,
  ``w <- w + alpha_w delta x(S)``, ``theta <- theta + alpha_theta I delta grad ln pi(A|S)``, ``I <- gamma I``;
* average-reward actor-critic (section 13.6, the one-step case, lambda = 0, of the book's box for continuing
  tasks): ``delta = R - R_bar + v_hat(S', w) - v_hat(S, w)``, ``R_bar <- R_bar + alpha_R_bar delta``, then w
  and theta as above without I. An "episode" is ``max_steps`` steps and the next continues where the last
  stopped (``carry``).

An episode cut by ``max_steps`` on an episodic model: REINFORCE uses the returns of the steps made (cut, so
biased); the actor-critics have already bootstrapped at every step.
"""
from __future__ import annotations

from bisect import bisect_right

import math

from mdpviz.solvers.approx_loop import add, dot
from mdpviz.solvers.learning_loop import draw_transition, register_jitable, sample_row

REINFORCE, REINFORCE_BASELINE, ACTOR_CRITIC, AVG_ACTOR_CRITIC = range(4)
"""Method codes of the loop (each policy-gradient line of :data:`mdpviz.solvers.registry.ENTRIES` carries its
code as ``code=``; a test holds them equal)."""
EPISODIC = (REINFORCE, REINFORCE_BASELINE, ACTOR_CRITIC)
"""The codes for episodic models (the average-reward actor-critic is for continuing ones)."""
WITH_CRITIC = (REINFORCE_BASELINE, ACTOR_CRITIC, AVG_ACTOR_CRITIC)
"""The codes that learn a state-value estimate v_hat(s, w) (baseline or critic)."""

LAST_FIELDS = ("state", "row", "t", "target", "baseline", "delta", "alpha", "gamma_t")
"""What the loop writes of its last step of theta into ``last`` (float64, one entry each; -1 for none); the
probabilities pi(.|S) that step used stay in ``upi`` at the rows of S."""


@register_jitable
def preference(xa_ptr, xa_idx, xa_val, theta, r) -> float:
    """h(s, a, theta) = theta . x(s, a) of row ``r`` (section 13.1's linear preferences)."""
    acc = 0.0
    for k in range(xa_ptr[r], xa_ptr[r + 1]):
        acc += xa_val[k] * theta[xa_idx[k]]
    return acc


@register_jitable
def softmax_into(xa_ptr, xa_idx, xa_val, theta, r0, r1, out) -> None:
    """pi(a|s, theta) of the rows ``r0:r1`` of one state into ``out[r0:r1]``: the soft-max of the preferences
    (eq. 13.2), the largest subtracted first so that no exp overflows."""
    hmax = -math.inf
    for r in range(r0, r1):
        h = preference(xa_ptr, xa_idx, xa_val, theta, r)
        out[r] = h
        if h > hmax:
            hmax = h
    total = 0.0
    for r in range(r0, r1):
        e = math.exp(out[r] - hmax)
        out[r] = e
        total += e
    for r in range(r0, r1):
        out[r] = out[r] / total


@register_jitable
def choose(rng, state_ptr, xa_ptr, xa_idx, xa_val, theta, learner, fixed_probs, pbuf, s) -> int:
    """The row of the action taken in ``s``: drawn from pi(.|s, theta) where the learner moves, from the fixed
    (opponent's) row probabilities elsewhere; one ``rng.random()`` either way."""
    if learner[s]:
        softmax_into(xa_ptr, xa_idx, xa_val, theta, state_ptr[s], state_ptr[s + 1], pbuf)
        return sample_row(rng, state_ptr, pbuf, s)
    return sample_row(rng, state_ptr, fixed_probs, s)


@register_jitable
def add_grad(xa_ptr, xa_idx, xa_val, probs, out, r0, r1, row, step) -> None:
    """``out <- out + step grad ln pi(A|S)`` with A the action of ``row`` among the rows ``r0:r1`` of S, whose
    probabilities pi(b|S) are ``probs[r0:r1]``: ``step`` times x(s, a) minus ``step`` times sum_b pi(b|s) x(s, b)
    (eq. 13.9's softmax form)."""
    for b in range(r0, r1):
        c = step * probs[b]
        for k in range(xa_ptr[b], xa_ptr[b + 1]):
            out[xa_idx[k]] = out[xa_idx[k]] - c * xa_val[k]
    for k in range(xa_ptr[row], xa_ptr[row + 1]):
        out[xa_idx[k]] = out[xa_idx[k]] + step * xa_val[k]


@register_jitable
def policy_step(xa_ptr, xa_idx, xa_val, theta, out, upi, state_ptr, s, row, step) -> None:
    """``out <- out + step grad ln pi(A|S, theta)`` (:func:`add_grad`) with pi(.|s, theta) computed first (into
    ``upi``, where the inspector reads it), so ``out`` may be theta itself (a step of theta)."""
    r0 = state_ptr[s]
    r1 = state_ptr[s + 1]
    softmax_into(xa_ptr, xa_idx, xa_val, theta, r0, r1, upi)
    add_grad(xa_ptr, xa_idx, xa_val, upi, out, r0, r1, row, step)


@register_jitable
def record(last, s, row, t, target, baseline, delta, alpha, gamma_t) -> None:
    """The step of theta just made, for the inspector (:data:`LAST_FIELDS`)."""
    last[0] = s
    last[1] = row
    last[2] = t
    last[3] = target
    last[4] = baseline
    last[5] = delta
    last[6] = alpha
    last[7] = gamma_t


@register_jitable
def reinforce_sweep(method, t, gamma, sign, state_ptr, learner, xa_ptr, xa_idx, xa_val, theta, pbuf, upi, x_ptr,
                    x_idx, x_val, w, alpha_theta, alpha_w, path_s, path_r, path_g, path_u, last) -> int:
    """REINFORCE (section 13.3) or, with ``method`` REINFORCE_BASELINE, REINFORCE with baseline (13.4) over an
    episode of ``t`` steps: the returns G_k walking back (into ``path_u``), then for k = 0 .. t-1 in order the
    step of w (the baseline moving as it goes, as in the book's box) and the step ``alpha_theta gamma^k delta_k
    grad ln pi(A_k|S_k, theta)`` of theta, each gradient taken at the theta that chose the episode's actions
    (whose probabilities are still in ``pbuf`` at the rows of each state the learner moved in). The number of
    updates (one per step of the episode).

    Why the episode's theta, not theta moving within the sweep (the box of section 13.3 reads
    ``grad ln pi(A_t|S_t, theta)`` with the theta of the previous step): each term is then the estimate of eq.
    13.8 of the gradient at the policy that made the episode, and their sum is unbiased. Moving theta within
    the sweep feeds back: on the corridor with alpha_theta = 2^-12, one long episode from p(right) = 0.05
    (400 steps of returns near -400) pushed p(right) to 1 - 1e-8 in about 4 runs of 100, where no episode
    ends; with the episode's theta no run of 400 did."""
    g = 0.0
    for k in range(t - 1, -1, -1):
        g = gamma * g + path_g[k]
        path_u[k] = g
    gamma_k = 1.0
    s_last = -1
    for k in range(t):
        sk = path_s[k]
        delta = path_u[k]
        b = 0.0
        if method == REINFORCE_BASELINE:
            b = dot(x_ptr, x_idx, x_val, w, sk, 0)
            delta = path_u[k] - b
            add(x_ptr, x_idx, x_val, w, sk, 0, alpha_w * delta)
        if learner[sk]:
            add_grad(xa_ptr, xa_idx, xa_val, pbuf, theta, state_ptr[sk], state_ptr[sk + 1], path_r[k],
                     alpha_theta * sign * gamma_k * delta)
            record(last, sk, path_r[k], k, path_u[k], b, delta, alpha_theta, gamma_k)
            s_last = sk
        gamma_k *= gamma
    if s_last >= 0:  # the probabilities of the last step, for the inspector
        for r in range(state_ptr[s_last], state_ptr[s_last + 1]):
            upi[r] = pbuf[r]
    return t


def run_pg(method, n_episodes, state_ptr, row_ptr, dst, cum, reward, noise, noisy, terminal, learner, fixed_probs,
           gamma, sign, start, continuing, carry, xa_ptr, xa_idx, xa_val, theta, x_ptr, x_idx, x_val, w, avg,
           alpha_theta, alpha_w, avg_alpha, max_steps, rng, pbuf, upi, visits, path_s, path_r, path_g, path_u,
           returns, lengths, last):
    """Run ``n_episodes`` episodes of ``method`` (a code above) in place; the number of updates made (one per
    step).

    An episode starts in ``start`` (a continuing model: where the last stopped, ``carry[0]``, -1 before the
    first) and stops in a terminal state or after ``max_steps`` steps. ``theta`` (the policy's parameters),
    ``w`` (the critic's weights), ``avg`` (``avg[0]``: R_bar of the average-reward actor-critic) and
    ``visits`` are updated in place; ``pbuf`` (n_rows) is scratch, ``upi`` (n_rows) keeps pi(.|S) of each
    step of theta at the rows of S. Per episode: ``returns[i]`` (the discounted return; continuing: the mean
    reward per step) and ``lengths[i]`` (steps); ``path_s`` / ``path_r`` / ``path_g`` (max_steps + 1) hold the
    last episode's states, rows and rewards (``path_u``: scratch for its returns); ``last`` the last step of
    theta (:data:`LAST_FIELDS`).
    """
    updates = 0
    reinforce = method == REINFORCE or method == REINFORCE_BASELINE
    average = method == AVG_ACTOR_CRITIC
    s2 = start
    for i in range(n_episodes):
        if continuing and carry[0] >= 0:
            s = carry[0]
        else:
            s = start
            visits[s] += 1
        t = 0
        ret = 0.0
        disc = 1.0
        done = False
        path_s[0] = s
        while t < max_steps:
            row = choose(rng, state_ptr, xa_ptr, xa_idx, xa_val, theta, learner, fixed_probs, pbuf, s)
            s2, rew = draw_transition(rng, row_ptr, cum, dst, reward, noise, noisy, row)
            path_r[t] = row
            path_g[t] = rew
            path_s[t + 1] = s2
            ret += disc * rew
            done = terminal[s2]
            if not done:
                visits[s2] += 1
            if not reinforce:  # the actor-critics: one step of w and theta now
                v = dot(x_ptr, x_idx, x_val, w, s, 0)
                v2 = 0.0
                if not done:
                    v2 = dot(x_ptr, x_idx, x_val, w, s2, 0)
                if average:
                    target = rew - avg[0] + v2
                    delta = target - v
                    avg[0] = avg[0] + avg_alpha * delta
                    gamma_t = 1.0
                else:
                    target = rew + gamma * v2
                    delta = target - v
                    gamma_t = disc  # I = gamma^t
                add(x_ptr, x_idx, x_val, w, s, 0, alpha_w * delta)
                if learner[s]:
                    policy_step(xa_ptr, xa_idx, xa_val, theta, theta, upi, state_ptr, s, row,
                                alpha_theta * sign * gamma_t * delta)
                    record(last, s, row, t, target, v, delta, alpha_theta, gamma_t)
                updates += 1
            disc *= gamma
            t += 1
            if done:
                break
            s = s2
        if reinforce:
            updates += reinforce_sweep(method, t, gamma, sign, state_ptr, learner, xa_ptr, xa_idx, xa_val, theta,
                                       pbuf, upi, x_ptr, x_idx, x_val, w, alpha_theta, alpha_w, path_s, path_r,
                                       path_g, path_u, last)
        if continuing and not done:
            carry[0] = s
        if average:
            returns[i] = ret / t
        else:
            returns[i] = ret
        lengths[i] = t
    return updates


def plain_reinforce(xa_rows, *, state_ptr, row_ptr, dst, cum, reward, terminal, gamma, start, alpha, theta, episodes,
                    max_steps, seed=0) -> int:
    """REINFORCE (section 13.3) as plain Python, for the bench: lists, ``random.random()``, the features of each
    row as a list of (index, value) pairs, one player maximising. ``theta`` (a list) is updated in place; the
    number of updates."""
    import random

    rnd = random.Random(seed).random
    exp = math.exp
    updates = 0

    def probs(s: int) -> list[float]:
        hs = [sum(v * theta[i] for i, v in xa_rows[r]) for r in range(state_ptr[s], state_ptr[s + 1])]
        m = max(hs)
        es = [exp(h - m) for h in hs]
        z = sum(es)
        return [e / z for e in es]

    for _ in range(episodes):
        s = start
        states, rows, rewards, dists = [], [], [], []
        for _t in range(max_steps):
            p = probs(s)
            dists.append(p)
            u = rnd()
            acc = 0.0
            r0 = state_ptr[s]
            row = r0 + len(p) - 1
            for k in range(len(p) - 1):
                acc += p[k]
                if u < acc:
                    row = r0 + k
                    break
            u = rnd()
            j, end = row_ptr[row], row_ptr[row + 1] - 1
            j = bisect_right(cum, u, j, end)  # (the first j with u < cum[j], else the row's last, by bisection)
            states.append(s)
            rows.append(row)
            rewards.append(reward[j])
            s = dst[j]
            if terminal[s]:
                break
        returns = [0.0] * len(rewards)
        g = 0.0
        for k in range(len(rewards) - 1, -1, -1):
            g = gamma * g + rewards[k]
            returns[k] = g
        gk = 1.0
        change = [0.0] * len(theta)  # each gradient at the episode's theta (see pg_loop.reinforce_sweep)
        for k, (sk, row) in enumerate(zip(states, rows)):
            p = dists[k]
            step = alpha * gk * returns[k]
            for b, pb in enumerate(p):
                for i, v in xa_rows[state_ptr[sk] + b]:
                    change[i] -= step * pb * v
            for i, v in xa_rows[row]:
                change[i] += step * v
            gk *= gamma
            updates += 1
        for i, c in enumerate(change):
            theta[i] += c
    return updates
