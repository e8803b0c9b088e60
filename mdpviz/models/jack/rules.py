"""Jack's car rental: Sutton and Barto's Example 4.2 (and Exercise 4.7's variant), compiled exactly.

Jack manages two locations of a car rental company. Each day customers come to each location to
rent cars; a car rented earns $10, and a customer who finds no car is lost business. Cars returned
are available the next day. The numbers of requests and returns are Poisson: requests with means
3 and 4, returns with means 3 and 2 at the first and the second location. No location holds more
than 20 cars (a car returned to a full location, or moved into one, goes back to the company and
disappears from the problem). Overnight Jack may move up to 5 cars from one location to the other
at $2 a car. The discount is 0.9 and the problem never ends (a continuing MDP).

A state is the number of cars at each location at the end of the day, (i, j), numbered
21 i + j (with 20 cars at most). An action is the net number of cars moved overnight from the first
location to the second, -5..5; a move needs the cars (moving n > 0 needs n cars at the first, n < 0
needs -n at the second), so a state's legal actions are only those it can make. Action ids are ordered
0, +1, -1, +2, -2, ..., so the solvers' lowest-action tie rule moves the fewest cars, and policy
iteration's first policy (the lowest action everywhere) is figure 4.2's pi_0: move nothing.

The day is counted exactly, with no truncation of the Poisson tails: after the move a location holds
a cars; it rents min(requests, a) (a request beyond the cars available rents them all, P(requests >= a)
counted at a), and ends the day with min(a - rented + returns, 20) cars (returns beyond capacity are
lost, P(... >= 20) counted at 20). The two locations are independent, so the next state's probability
is the product of theirs; the reward of (s, a) is its expected rentals times $10 less the move's cost
(an expected reward r(s, a), the same for every next state).

Exercise 4.7's variant (``free_shuttle``): one of Jack's employees takes one car from the first
location to the second free each night, and each location that keeps more than ``parking_limit``
cars overnight pays ``parking_cost`` for a second parking lot.

Plain numpy and scipy; never imports Qt.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mdpviz.models.kit.game.codec import FieldError
from mdpviz.core.mdp import TabularMDP

MAX_CARS_LIMIT = 30
"""Largest ``max_cars`` a setting may ask for: what fits in memory. The model has about
(max_cars + 1)^4 x 10 transitions (every next state of every legal move) at about 110 bytes each
while it is built and solved: 30 peaks at 1.1 GB (9.2 million transitions), 40 at 3.1 GB and 60 at
about 16 GB, beyond a laptop (issue 35, item 18)."""


@dataclass(frozen=True)
class JackSettings:
    """Everything that defines Jack's car rental (Example 4.2's numbers by default)."""

    max_cars: int = 20
    """Most cars a location can hold (more are returned to the company)."""
    max_move: int = 5
    """Most cars moved overnight, either way."""
    move_cost: float = 2.0
    """Dollars per car moved overnight."""
    rental_reward: float = 10.0
    """Dollars earned per car rented."""
    request_means: tuple[float, float] = (3.0, 4.0)
    """Mean rental requests per day at the first and the second location (Poisson)."""
    return_means: tuple[float, float] = (3.0, 2.0)
    """Mean returns per day at the first and the second location (Poisson), available the next day."""
    discount: float = 0.9
    """Discount gamma per day."""
    free_shuttle: bool = False
    """Exercise 4.7: one car moved from the first location to the second is free, and parking over the limit costs."""
    parking_limit: int = 10
    """Exercise 4.7 (with free_shuttle): cars a location may keep overnight without a second parking lot."""
    parking_cost: float = 4.0
    """Exercise 4.7 (with free_shuttle): dollars per night for each location keeping more than parking_limit cars."""

    def validate(self) -> "JackSettings":
        """Self, or ValueError naming the bad field (a :class:`~mdpviz.models.kit.game.codec.FieldError`)."""
        for name, lo, hi in (("max_cars", 1, MAX_CARS_LIMIT), ("max_move", 0, MAX_CARS_LIMIT),
                             ("parking_limit", 0, MAX_CARS_LIMIT)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int):
                raise FieldError(name, f"must be a whole number of cars, got {v!r}")
            if not lo <= v <= hi:
                why = " (a larger model does not fit in memory: (max_cars + 1)^4 x 10 transitions, 1.1 GB at 30)"
                raise FieldError(name, f"must be in {lo}..{hi}, got {v}{why if v > hi and name == 'max_cars' else ''}")
        for name in ("move_cost", "rental_reward", "discount", "parking_cost"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise FieldError(name, f"must be a finite number, got {v!r}")
        if not 0.0 <= self.discount <= 1.0:
            raise FieldError("discount", f"must be in [0, 1], got {self.discount}")
        for name in ("request_means", "return_means"):
            v = getattr(self, name)
            if (not isinstance(v, tuple) or len(v) != 2
                    or any(isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x) or x < 0
                           for x in v)):
                raise FieldError(name, f"must be two means >= 0 (first, second location), got {v!r}")
        if not isinstance(self.free_shuttle, bool):
            raise FieldError("free_shuttle", f"must be true or false, got {self.free_shuttle!r}")
        if self.discount == 1.0:
            raise FieldError("discount", "must be below 1: the problem never ends, so undiscounted values are "
                             "infinite", subject="")
        self._check_scale()
        return self

    def _check_scale(self) -> None:
        """FieldError naming the largest money field when a day's reward, or the values it sums to
        (at most the largest day / (1 - discount)), would overflow float64 (issue 35, item 13:
        ``rental_reward=1e308`` times 40 rentals is inf). The limit is the solvers' :data:`VALUE_LIMIT`."""
        from mdpviz.solvers.sweep import VALUE_LIMIT

        terms = {"rental_reward": abs(float(self.rental_reward)) * 2 * self.max_cars,
                 "move_cost": abs(float(self.move_cost)) * self.max_move,
                 "parking_cost": abs(float(self.parking_cost)) * 2 * bool(self.free_shuttle)}
        day = sum(terms.values())
        if day / (1.0 - float(self.discount)) <= VALUE_LIMIT:
            return
        name = max(terms, key=lambda k: terms[k])
        why = (f"a day's reward of up to {day:.3g} dollars summed at discount {self.discount:g} is over "
               f"{VALUE_LIMIT:g}, beyond what float64 values hold with room for their sums" if math.isfinite(day)
               else f"a day's reward (up to {2 * self.max_cars} rentals) overflows float64 to inf")
        raise FieldError(name, f"{getattr(self, name):g} does not fit: {why}", subject="")


def move_of(action: int) -> int:
    """Net cars moved from the first location to the second by action id ``action`` (0, +1, -1, +2, -2, ...)."""
    a = int(action)
    return (a + 1) // 2 if a % 2 else -(a // 2)


def action_of(move: int) -> int:
    """The action id of net move ``move`` (the inverse of :func:`move_of`)."""
    m = int(move)
    return 2 * m - 1 if m > 0 else -2 * m


def state_of(i: int, j: int, max_cars: int = 20) -> int:
    """The state of i cars at the first location and j at the second: (max_cars + 1) i + j."""
    return (max_cars + 1) * int(i) + int(j)


def cars_of(state: int, max_cars: int = 20) -> tuple[int, int]:
    """(cars at the first, cars at the second) of ``state``."""
    return divmod(int(state), max_cars + 1)


def location_day(max_cars: int, request_mean: float, return_mean: float) -> tuple[np.ndarray, np.ndarray]:
    """One location's day, exactly: (T, rented) with T[a, m] the probability of ending the day with m
    cars when it started with a (rows sum to 1), rented[a] the expected cars rented. Requests beyond the
    a cars rent them all; returns beyond ``max_cars`` are lost (both Poisson tails lumped, not cut)."""
    from scipy.stats import poisson

    n = max_cars + 1
    k = np.arange(n)
    req_pmf, req_sf = poisson.pmf(k, request_mean), poisson.sf(k - 1, request_mean)  # sf(k-1) = P(X >= k)
    # L[a, l]: probability that l cars are left after rentals, starting with a
    L = np.zeros((n, n))
    rented = np.zeros(n)
    for r in range(n):  # r rented: left = a - r, for a >= r (the tail at r = a)
        p = np.where(k > r, req_pmf[r], np.where(k == r, req_sf[r], 0.0))
        L[k[k >= r], (k - r)[k >= r]] += p[k >= r]
        rented += r * p
    ret_pmf, ret_sf = poisson.pmf(k, return_mean), poisson.sf(k - 1, return_mean)
    # R[l, m]: probability of ending with m cars from l left: returns m - l, the tail lumped at max_cars
    d = k[None, :] - k[:, None]
    R = np.where(d >= 0, ret_pmf[np.clip(d, 0, None)], 0.0)
    R[:, max_cars] = ret_sf[max_cars - k]
    return L @ R, rented


def compile_jack(settings: JackSettings) -> TabularMDP:
    """Jack's MDP (module docstring), built with numpy: one location's day per location (scipy's
    Poisson), their outer product for every legal (state, move)."""
    valid = settings.validate()
    N = valid.max_cars
    n = N + 1
    T1, rent1 = location_day(N, float(valid.request_means[0]), float(valid.return_means[0]))
    T2, rent2 = location_day(N, float(valid.request_means[1]), float(valid.return_means[1]))
    moves = np.arange(-valid.max_move, valid.max_move + 1)
    ii, jj, mm = np.meshgrid(np.arange(n), np.arange(n), moves, indexing="ij")
    ii, jj, mm = ii.ravel(), jj.ravel(), mm.ravel()
    legal = (mm <= ii) & (-mm <= jj)
    ii, jj, mm = ii[legal], jj[legal], mm[legal]
    a1 = np.minimum(ii - mm, N)  # cars moved into a full location disappear
    a2 = np.minimum(jj + mm, N)
    paid = np.abs(mm).astype(np.float64)
    cost = np.zeros(ii.size)
    if valid.free_shuttle:
        paid = np.where(mm > 0, mm - 1, -mm).astype(np.float64)
        cost += valid.parking_cost * ((a1 > valid.parking_limit).astype(np.float64) + (a2 > valid.parking_limit))
    cost += valid.move_cost * paid
    row_reward = valid.rental_reward * (rent1[a1] + rent2[a2]) - cost
    prob = (T1[a1][:, :, None] * T2[a2][:, None, :]).reshape(ii.size, n * n)
    rows = ii.size
    keep = prob > 0.0
    src = np.repeat(n * ii + jj, n * n)[keep.ravel()]
    act = np.repeat(np.where(mm > 0, 2 * mm - 1, -2 * mm), n * n)[keep.ravel()]
    dst = np.tile(np.arange(n * n), rows)[keep.ravel()]
    rew = np.repeat(row_reward, n * n)[keep.ravel()]
    p = prob[keep]
    n_actions = 2 * valid.max_move + 1
    return TabularMDP.from_transitions(
        n * n, n_actions, src, act, dst, p, rew, discount=valid.discount,
        state_labels=[f"{i} cars at the first, {j} at the second" for i in range(n) for j in range(n)],
        action_labels=[f"move {move_of(a):+d}" if move_of(a) else "move 0" for a in range(n_actions)],
        mdptype="continuing",
    )


def move_grid(policy: np.ndarray, max_cars: int = 20) -> np.ndarray:
    """int (max_cars + 1, max_cars + 1): cars moved by ``policy`` (action ids per state), row i = cars at
    the first location, column j = cars at the second (figure 4.2's axes)."""
    pol = np.asarray(policy, dtype=np.int64)
    moves = np.where(pol % 2 == 1, (pol + 1) // 2, -(pol // 2))
    return moves.reshape(max_cars + 1, max_cars + 1)


def move_regions(grid: np.ndarray, *, min_gap: int = 2) -> list[tuple[int, int, int]]:
    """Where the contour map writes its numbers: one (row, column, cars moved) per connected region of
    equal moves in ``grid`` (:func:`move_grid`), at the region's cell nearest its centre of mass; larger
    regions first, and a region whose place is within ``min_gap`` cells (either way) of an earlier
    number's is left unnumbered (narrow bands of a contour map would otherwise print on each other)."""
    from scipy import ndimage

    g = np.asarray(grid)
    found: list[tuple[int, int, int, int]] = []
    for move in np.unique(g).tolist():
        labels, count = ndimage.label(g == move)
        for k in range(1, count + 1):
            cells = np.argwhere(labels == k)
            centre = cells.mean(axis=0)
            r, c = cells[int(np.argmin(((cells - centre) ** 2).sum(axis=1)))]
            found.append((len(cells), int(r), int(c), int(move)))
    out: list[tuple[int, int, int]] = []
    for _, r, c, move in sorted(found, key=lambda x: (-x[0], x[3])):
        if all(max(abs(r - r2), abs(c - c2)) > min_gap for r2, c2, _m in out):
            out.append((r, c, move))
    return out


__all__ = ["move_regions", "JackSettings", "MAX_CARS_LIMIT", "action_of", "cars_of", "compile_jack", "location_day",
           "move_grid", "move_of", "state_of"]
