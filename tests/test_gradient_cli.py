"""``mdpviz gradient`` (issue 37, item 6): the exact J and gradient at a theta beside sampled REINFORCE estimates
with and without baseline, checked against the corridor's closed form (Example 13.1: J(p) = (2p - 4) / (p(1 - p))
with p the probability of right) and against the estimates' own statistics; one-line errors."""
from __future__ import annotations

import json
import math
import os

import numpy as np
import pytest

from mdpviz.cli import main
from mdpviz.commands.json_keys import problems


def run(capsys, argv):
    status = main(argv)
    out = capsys.readouterr()
    return status, out.out, out.err


def gradient_json(capsys, *argv):
    status, out, err = run(capsys, ["gradient", *argv, "--json"])
    assert status == 0, err
    doc = json.loads(out)
    assert problems(doc, "gradient") == []
    return doc


def closed_form(p: float) -> tuple[float, float]:
    """J(p) and dJ/dp of the short corridor (derived from its three Bellman equations)."""
    j = (2 * p - 4) / (p * (1 - p))
    dj = (2 * (p - p * p) - (2 * p - 4) * (1 - 2 * p)) / (p - p * p) ** 2
    return j, dj


def test_the_corridor_at_the_books_start_is_the_closed_form(capsys):
    d = gradient_json(capsys, "--game", "corridor", "--samples", "4000", "--seed", "1")
    p = 0.05  # the game's start: epsilon-greedy left (theta = (0, ln 19) over x(s, right) = (1, 0), x(s, left) = (0, 1))
    j, dj = closed_form(p)
    assert d["features"] == "game" and d["n_features"] == 2
    assert d["J"] == pytest.approx(j, rel=1e-9)
    # dJ/dtheta_right = dJ/dp * p (1 - p); theta_left the opposite (the softmax of two preferences)
    np.testing.assert_allclose(d["gradient"], [dj * p * (1 - p), -dj * p * (1 - p)], rtol=1e-7)
    g = np.asarray(d["gradient"])
    for key in ("without_baseline", "with_baseline"):
        e = d[key]
        assert np.all(np.abs(np.asarray(e["mean"]) - g) <= 4 * np.asarray(e["standard_error"]) + 1e-12), key
        assert e["cosine"] == pytest.approx(1.0, abs=1e-9)  # two preferences summing to 0: one direction
    assert d["with_baseline"]["variance"] < d["without_baseline"]["variance"]  # section 13.4: lower variance


def test_a_theta_file_and_tabular_features(capsys, tmp_path):
    f = tmp_path / "theta.json"
    f.write_text(json.dumps([0.3, -0.2, 0.0, 0.1, 0.5, -0.4]))
    d = gradient_json(capsys, "--game", "corridor", "--features", "tabular", "--theta", str(f), "--samples", "2000")
    assert d["theta"] == [0.3, -0.2, 0.0, 0.1, 0.5, -0.4] and len(d["gradient"]) == 6
    assert math.isfinite(d["J"]) and d["J"] <= -3.0  # no policy beats V*(start) = -3


@pytest.mark.parametrize("argv, words", [
    (["--theta", "THETA3", "--samples", "5"], "3 numbers for 2 features"),
    (["--theta", "/dev/zero", "--samples", "5"], "not a regular file"),
    (["--samples", "2000000"], "--samples must be at most"),
    (["--features", "tiles:x", "--samples", "5"], "features:"),
])
def test_bad_input_is_one_line(capsys, tmp_path, argv, words):
    theta3 = tmp_path / "t.json"
    theta3.write_text("[1, 2, 3]")
    argv = [str(theta3) if a == "THETA3" else a for a in argv]
    status, out, err = run(capsys, ["gradient", "--game", "corridor", *argv])
    assert status == 2 and out == "" and words in err and len(err.strip().splitlines()) == 1


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_as_theta_is_refused_at_once(capsys, tmp_path):
    fifo = tmp_path / "theta.fifo"
    os.mkfifo(fifo)
    status, out, err = run(capsys, ["gradient", "--game", "corridor", "--theta", str(fifo), "--samples", "5"])
    assert status == 2 and "not a regular file" in err
