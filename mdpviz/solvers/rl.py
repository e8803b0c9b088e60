"""Generic reinforcement-learning parts: function approximators and their semi-gradient update.

The approximators (:data:`APPROX_CLASSES`) are differentiable functions of a 0/1 feature vector z
of any length ``n_features``, each with ``n_out`` outputs (1 for a state value V, one per action
for Q):

* ``linear``: ``f(z) = b + W^T z``.
* ``quadratic``: ``f(z) = b + W^T z + sum_{i<j} S_ij z_i z_j``, every product of two features (with
  0/1 features z_i^2 = z_i is already linear), stored as a symmetric matrix with zero diagonal.
* ``mlp``: ``f(z) = W2^T relu(W1^T z + b1) + b2``, one hidden layer of ReLU units, plain numpy.

The learning rule is each approximator's :meth:`Approximator.step`, the semi-gradient update
``w += alpha [U - f(z)] grad f(z)`` (Sutton and Barto eq. 9.7 and section 9.3) toward a target U:
TD(0) (S&B eq. 6.2) and Q-learning (S&B eq. 6.8) differ only in the target their caller forms.

A game's encoding, episodes and opponent belong to the game (e.g. :mod:`mdpviz.models.ttt3d.learning`);
this module knows no game. Plain numpy; never imports Qt.
"""
from __future__ import annotations

import math
from typing import Mapping

import numpy as np


# ====================================================================== function approximators
class Approximator:
    """A differentiable function of a 0/1 feature vector z (length ``n_features``) with ``n_out``
    outputs (mutable weights).

    ``forward(Z)`` gives (m, n_out); ``after_values(Z)`` gives, for a single-output approximator,
    f at each z with feature k switched on (m, n_features): e.g. the value of every one-mark
    afterstate of a board game in one pass; ``step(z, out, target, lr)`` moves output ``out`` at ``z`` toward ``target`` by
    one semi-gradient step, ``w += lr (target - f) grad f``, and returns the error ``target - f``.
    """

    kind = ""

    def __init__(self, params: Mapping[str, np.ndarray]) -> None:
        self.p = {k: np.array(v, dtype=np.float64) for k, v in params.items()}
        self.n_out = int(self.p["b"].size)
        self.n_features = int((self.p["W"] if "W" in self.p else self.p["W1"]).shape[0])
        """Length of the feature vector z."""

    def forward(self, Z: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def after_values(self, Z: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def step(self, z: np.ndarray, out: int, target: float, lr: float) -> float:
        raise NotImplementedError

    def params(self) -> dict[str, np.ndarray]:
        """Read-only copies of the weights."""
        out = {}
        for k, v in self.p.items():
            c = v.copy()
            c.flags.writeable = False
            out[k] = c
        return out

    @property
    def n_params(self) -> int:
        """Number of free weights (the quadratic's symmetric matrix counts each pair once)."""
        return int(sum(v.size for v in self.p.values()))


class Linear(Approximator):
    """``f(z) = b + W^T z``; the gradient w.r.t. (b, W) is (1, z)."""

    kind = "linear"

    @staticmethod
    def init(n_out: int, rng: np.random.Generator, *, n_features: int, **_: int) -> dict[str, np.ndarray]:
        return {"b": np.zeros(n_out), "W": np.zeros((n_features, n_out))}

    def forward(self, Z: np.ndarray) -> np.ndarray:
        return Z @ self.p["W"] + self.p["b"]

    def after_values(self, Z: np.ndarray) -> np.ndarray:
        return self.forward(Z) + self.p["W"][:, 0][None, :]

    def step(self, z: np.ndarray, out: int, target: float, lr: float) -> float:
        idx = np.flatnonzero(z)
        W, b = self.p["W"], self.p["b"]
        delta = float(target - (b[out] + W[idx, out].sum()))
        b[out] += lr * delta
        W[idx, out] += lr * delta
        return delta


class Quadratic(Approximator):
    """``f(z) = b + W^T z + 1/2 z^T S z`` with S symmetric, zero diagonal: S_ij = S_ji is the
    weight of the feature z_i z_j (i < j). Switching on feature k adds ``W_k + (S z)_k``."""

    kind = "quadratic"

    @staticmethod
    def init(n_out: int, rng: np.random.Generator, *, n_features: int, **_: int) -> dict[str, np.ndarray]:
        return {"b": np.zeros(n_out), "W": np.zeros((n_features, n_out)),
                "S": np.zeros((n_out, n_features, n_features))}

    @property
    def n_params(self) -> int:
        n = self.n_features
        return int(self.n_out * (1 + n + n * (n - 1) // 2))

    def forward(self, Z: np.ndarray) -> np.ndarray:
        S = self.p["S"]
        lin = Z @ self.p["W"] + self.p["b"]
        if self.n_out == 1:
            return lin + 0.5 * np.einsum("mi,mi->m", Z @ S[0], Z)[:, None]
        # (m, 54) @ (54, n_out * 54) -> (m, n_out, 54), then contract with z again.
        n = self.n_features
        T = (Z @ S.transpose(1, 0, 2).reshape(n, -1)).reshape(Z.shape[0], self.n_out, n)
        return lin + 0.5 * np.einsum("moi,mi->mo", T, Z)

    def after_values(self, Z: np.ndarray) -> np.ndarray:
        SZ = Z @ self.p["S"][0]
        f = Z @ self.p["W"][:, 0] + self.p["b"][0] + 0.5 * np.einsum("mi,mi->m", SZ, Z)
        return f[:, None] + self.p["W"][:, 0][None, :] + SZ

    def step(self, z: np.ndarray, out: int, target: float, lr: float) -> float:
        idx = np.flatnonzero(z)
        W, b, S = self.p["W"], self.p["b"], self.p["S"][out]
        block = np.ix_(idx, idx)
        delta = float(target - (b[out] + W[idx, out].sum() + 0.5 * S[block].sum()))
        s = lr * delta
        b[out] += s
        W[idx, out] += s
        S[block] += s
        S[idx, idx] -= s  # keep the zero diagonal (z_i z_i = z_i is a linear feature)
        return delta


class MLP(Approximator):
    """``f(z) = W2^T relu(W1^T z + b1) + b2``: one hidden layer of ReLU units. Gradients by hand:
    d f_o / d W2[:, o] = h, d f_o / d b1 = W2[:, o] * [pre > 0], d f_o / d W1[k] = z_k d f_o / d b1."""

    kind = "mlp"

    @staticmethod
    def init(n_out: int, rng: np.random.Generator, *, n_features: int, hidden: int = 64) -> dict[str, np.ndarray]:
        # He initialisation of the ReLU layer; a small output layer so the untrained values are near 0.
        return {
            "W1": rng.normal(0.0, math.sqrt(2.0 / n_features), size=(n_features, hidden)),
            "b1": np.zeros(hidden),
            "W2": rng.normal(0.0, 0.1 / math.sqrt(hidden), size=(hidden, n_out)),
            "b": np.zeros(n_out),
        }

    def forward(self, Z: np.ndarray) -> np.ndarray:
        return np.maximum(Z @ self.p["W1"] + self.p["b1"], 0.0) @ self.p["W2"] + self.p["b"]

    def after_values(self, Z: np.ndarray) -> np.ndarray:
        W1, w2 = self.p["W1"], self.p["W2"][:, 0]
        pre = Z @ W1 + self.p["b1"]  # (m, H)
        # Feature k switched on adds row k of W1 to the pre-activations: (m, 54, H) in one broadcast.
        h = np.maximum(pre[:, None, :] + W1[None, :, :], 0.0)
        return h @ w2 + self.p["b"][0]

    def step(self, z: np.ndarray, out: int, target: float, lr: float) -> float:
        idx = np.flatnonzero(z)
        W1, b1, W2, b = self.p["W1"], self.p["b1"], self.p["W2"], self.p["b"]
        pre = W1[idx].sum(axis=0) + b1
        h = np.maximum(pre, 0.0)
        delta = float(target - (h @ W2[:, out] + b[out]))
        s = lr * delta
        g = W2[:, out] * (pre > 0)  # d f / d pre, before W2 moves
        W2[:, out] += s * h
        b[out] += s
        b1 += s * g
        W1[idx] += s * g
        return delta


APPROX_CLASSES: dict[str, type[Approximator]] = {"linear": Linear, "quadratic": Quadratic, "mlp": MLP}
"""The approximators by name."""



def param_shapes(kind: str, *, n_features: int, n_out: int, hidden: int) -> dict[str, tuple[int, ...]]:
    """The shape of every weight array of approximator ``kind`` (what a saved agent must hold)."""
    f, n, h = int(n_features), int(n_out), int(hidden)
    return {
        "linear": {"b": (n,), "W": (f, n)},
        "quadratic": {"b": (n,), "W": (f, n), "S": (n, f, f)},
        "mlp": {"W1": (f, h), "b1": (h,), "W2": (h, n), "b": (n,)},
    }[kind]


__all__ = ["APPROX_CLASSES", "Approximator", "Linear", "MLP", "Quadratic", "param_shapes"]
