"""Only what was learned orders what is shown: the shares of the asked aspects add up to
100 % among them, and a list ordered "best for you" does not move with the guess of an
unasked weight (it only breaks practical ties by an unasked aspect, and says so)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tradeoff.choose.informed import informed_order
from tradeoff.learn.base import ElicitationResult
from tradeoff.learn.particles import perceivable_margin
from tradeoff.learn.shares import asked_shares

from ..conftest import scenario

pytestmark = [pytest.mark.core, pytest.mark.other_path]

SC = scenario("breast-cancer-triage")
PRIORS = (0.3726, 0.6274)
SPANS = np.array([*PRIORS, 14.95, 749.0])


def _pool(rng: np.random.Generator, n: int) -> np.ndarray:
    return np.column_stack(
        [
            rng.uniform(0.8, 1.0, n).round(3),
            rng.uniform(0.85, 1.0, n).round(3),
            rng.uniform(0.05, 15.0, n).round(1),
            rng.uniform(1.0, 750.0, n).round(0),
        ]
    )


def _draws(rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray]:
    swing = rng.dirichlet(np.ones(4), size)
    natural = swing / SPANS
    natural /= natural.sum(axis=1, keepdims=True)
    return natural, rng.dirichlet(np.ones(size))


@given(
    seed=st.integers(0, 2**32 - 1),
    unasked=st.sampled_from([(3,), (2,), (1, 3), (0,)]),
    factor=st.floats(0.01, 100.0),
)
def test_the_order_does_not_move_with_the_guess_of_an_unasked_weight(
    seed: int, unasked: tuple[int, ...], factor: float
) -> None:
    rng = np.random.default_rng(seed)
    values = _pool(rng, 12)
    draws, w = _draws(rng, 50)
    asked = tuple(j not in unasked for j in range(4))
    guessed = draws.copy()
    guessed[:, list(unasked)] *= factor * rng.uniform(0.5, 2.0, (50, len(unasked)))
    guessed /= guessed.sum(axis=1, keepdims=True)
    expected = np.zeros(len(values))  # not used with an aspect unasked
    a = informed_order(SC, values, PRIORS, asked, expected, posterior=(draws, w))
    b = informed_order(SC, values, PRIORS, asked, expected, posterior=(guessed, w))
    assert a == b


@given(seed=st.integers(0, 2**32 - 1), ties=st.booleans())
def test_an_unasked_aspect_only_breaks_practical_ties(seed: int, ties: bool) -> None:
    """Brute force over every pair: a model listed above one the asked aspects make better
    by the perceivable margin or more never happens; a place above a better model on the
    asked aspects is marked, with an unasked aspect it is better on."""
    rng = np.random.default_rng(seed)
    values = _pool(rng, 15)
    if ties:  # copies that differ only on memory
        values[8:, :3] = values[:7, :3]
    draws, w = _draws(rng, 40)
    asked = (True, True, True, False)
    o = informed_order(SC, values, PRIORS, asked, np.zeros(len(values)), posterior=(draws, w))
    assert sorted(o.order) == list(range(len(values)))
    # The asked metric, computed here on its own: each draw's asked swing weights add up to 1.
    d = draws[:, :3] / (draws[:, :3] @ SPANS[:3])[:, None]
    vec = values[:, :3] * np.array([*PRIORS, -1.0])
    value = (vec @ d.T) @ w
    margin = float(perceivable_margin(d, SPANS[:3]) @ w)
    memory = np.round(values[:, 3])
    for p, i in enumerate(o.order):
        for j in o.order[p + 1 :]:
            assert value[j] - value[i] < margin * (1 + 1e-6) + 1e-12
        passed = [j for j in o.order[p + 1 :] if value[j] > value[i] - 1e-9]
        if o.placed_by[i]:
            assert o.placed_by[i] == (3,)
            assert any(memory[i] < memory[j] for j in passed)
    if ties:  # every copy with less memory is above its twin
        for a, b in zip(range(7), range(8, 15), strict=True):
            if memory[a] != memory[b]:
                first, second = (a, b) if memory[a] < memory[b] else (b, a)
                assert o.rank_of(first) < o.rank_of(second)


def test_with_every_aspect_asked_the_order_is_the_expected_metric() -> None:
    rng = np.random.default_rng(3)
    values = _pool(rng, 10)
    expected = rng.normal(size=10)
    o = informed_order(SC, values, PRIORS, (True,) * 4, expected)
    assert list(o.order) == list(np.argsort(-expected, kind="stable"))
    assert o.unasked == () and all(p == () for p in o.placed_by)


@given(seed=st.integers(0, 2**32 - 1))
def test_asked_shares_add_up_to_one_and_ignore_the_unasked_guess(seed: int) -> None:
    rng = np.random.default_rng(seed)
    draws, w = _draws(rng, 60)
    point = draws.T @ w
    swing = point * SPANS / (point * SPANS).sum()
    result = ElicitationResult(
        "joint",
        ("malignant", "benign", "latency", "memory"),
        tuple(float(x) for x in point),
        5,
        True,
        swing_weights=tuple(float(x) for x in swing),
        asked=(True, True, True, False),
    )
    s = asked_shares(result, tuple(SPANS), (draws, w))
    assert s.values[3] is None and s.intervals[3] is None and s.left_out == (3,)
    assert abs(sum(v for v in s.values if v is not None) - 1) < 1e-9
    guessed = draws.copy()
    guessed[:, 3] *= rng.uniform(0.01, 100.0, 60)
    again = asked_shares(result, tuple(SPANS), (guessed, w))
    for x, y in zip(s.intervals[:3], again.intervals[:3], strict=True):
        assert x is not None and y is not None
        assert np.allclose(x, y)


def test_the_words_about_the_order_name_options_by_what_they_are() -> None:
    """A pool of train trips is told of as options, a pool of classifiers as models."""
    from tradeoff.choose.informed import InformedOrder, order_words

    order = InformedOrder((1, 0), (3,), ((3,), ()))
    trips = order_words(scenario("train-trips"), order, ["a", "b"], pick=0, measured=1)
    assert "practically tied option" in trips and "each option was measured" in trips
    assert "model" not in trips
    models = order_words(scenario("breast-cancer-triage"), order, ["a", "b"], pick=0, measured=1)
    assert "practically tied model" in models and "each model was measured" in models
