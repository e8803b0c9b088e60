"""What a game gives a learner with function approximation, headless: one function for the window and the CLI.

A game's :class:`~mdpviz.models.kit.game.registry.ModelHooks` may say what its states' coordinates are (tile
coding, polynomials and Fourier features are built over them), give features of its own (Baird's eight
weights, Example 11.1) with the weights the book starts them from, and give a target and a behaviour policy
(Baird's: always solid; dashed 6/7, solid 1/7). :func:`approx_inputs` adds them to a learner's options, so that
``mdpviz learn --game baird --method off-td`` and the window's Run learn the same thing. Never imports Qt.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from mdpviz.core.mdp import TabularMDP


def default_features(spec: Any) -> str:
    """The features a game starts with (its ``model.default_features``, else "tabular")."""
    return getattr(spec.model, "default_features", "") or "tabular"


def approx_inputs(spec: Any, settings: Any, mdp: TabularMDP, method: str, options: dict[str, Any]) -> dict[str, Any]:
    """``options`` of learner ``method`` (kind "approximation" or "policy-gradient") with what the game gives: ``features`` (its
    default when not given), ``coords``, ``game_features`` and, for the game's own features, its
    ``initial_weights`` (unless given); for a prediction method the game's ``target_rows``, and for an
    off-policy one its ``behaviour_rows`` with ``behaviour="game"``: the game's own policies unless the options
    ask for the "random" one (its target stands for the default "optimal": on Baird's counterexample every
    policy is optimal, its rewards being 0, and the book's target is "always solid"). A policy-gradient learner
    (kind "policy-gradient") also gets the game's ``game_action_features`` (its state-action features x(s, a)) and,
    for its "game" features, ``initial_theta`` from its ``initial_weights`` (the corridor's epsilon-greedy-left
    start, Example 13.1) unless given."""
    from mdpviz.solvers import registry

    hooks = spec.model
    m = registry.get(method)
    out = dict(options)
    out.setdefault("features", default_features(spec))
    if getattr(hooks, "coordinates", None) is not None:
        out["coords"] = hooks.coordinates(settings, mdp)
    if getattr(hooks, "features", None) is not None:
        out["game_features"] = np.asarray(hooks.features(settings, mdp), dtype=np.float64)
        if (str(out["features"]).strip() == "game" and out.get("initial_weights") is None and m.prediction
                and m.takes("initial_weights") and getattr(hooks, "initial_weights", None) is not None
                and getattr(hooks, "action_features", None) is None):
            # (the book's weights are a state-value vector: control learns one block per action, from 0; a game
            # with state-action features of its own gives the policy's theta there: the short corridor's)
            out["initial_weights"] = [float(w) for w in hooks.initial_weights(settings, mdp)]
    if m.kind == "policy-gradient" and getattr(hooks, "action_features", None) is not None:
        # (issue 37: the game's own state-action features, Example 13.1's, and the policy it starts from)
        out["game_action_features"] = np.asarray(hooks.action_features(settings, mdp), dtype=np.float64)
        if (str(out["features"]).strip() == "game" and out.get("initial_theta") is None
                and getattr(hooks, "initial_weights", None) is not None):
            out["initial_theta"] = [float(w) for w in hooks.initial_weights(settings, mdp)]
    if getattr(hooks, "policies", None) is not None and m.prediction:
        given = hooks.policies(settings, mdp)
        if "target" in given and out.get("policy") != "random":
            out["target_rows"] = np.asarray(given["target"], dtype=np.float64)
        if "behaviour" in given and m.takes("behaviour") and out.get("behaviour") != "random":
            out["behaviour_rows"] = np.asarray(given["behaviour"], dtype=np.float64)
            out["behaviour"] = "game"
    return out


__all__ = ["approx_inputs", "default_features"]
