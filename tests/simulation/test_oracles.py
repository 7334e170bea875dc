"""Simulated oracles: exact, flip noise, logistic, indifference band."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tradeoff.ask.population import softmax_linear
from tradeoff.ask.queries import Query, QuerySpace
from tradeoff.learn import Choice
from tradeoff.simulation.oracles import Noise, SimulatedOracle

from ..conftest import small

pytestmark = pytest.mark.core

SC = small("paper-k3-two-costs-reward", 5000)
SPACE = QuerySpace(SC, softmax_linear(k=3, samples=5000, seed=SC.population.seed))
weights = st.lists(st.floats(0.001, 1.0), min_size=6, max_size=6)
queries = st.builds(
    SPACE.query,
    st.just(0),
    st.integers(1, 5),
    st.floats(0, 1),
    st.floats(0, 1),
)


@given(truth=weights, query=queries, scale=st.floats(0.01, 100))
def test_exact_answers_are_invariant_to_scaling_the_weights(
    truth: list[float], query: Query, scale: float
) -> None:
    a = SimulatedOracle.for_scenario(SC, truth)
    b = SimulatedOracle.for_scenario(SC, [scale * w for w in truth])
    assert a.choose(query) == b.choose(query)


@given(truth=weights, query=queries)
def test_swapping_sides_flips_the_exact_answer(truth: list[float], query: Query) -> None:
    oracle = SimulatedOracle.for_scenario(SC, truth)
    assert oracle.choose(query.swapped()) == oracle.choose(query).swapped()


def test_exact_oracle_prefers_higher_metric() -> None:
    oracle = SimulatedOracle.for_scenario(SC, [1, 0, 0, 0, 0, 0])
    q = SPACE.query(0, 1, 0.9, 0.1)  # left has more class-1 accuracy
    assert q.left.accuracies[0] > q.right.accuracies[0]
    assert oracle.choose(q) is Choice.LEFT
    assert oracle.choose(SPACE.query(0, 1, 0.5, 0.5)) is Choice.INDIFFERENT


def test_flip_noise_flips_at_the_stated_rate() -> None:
    truth = [0.2, 0.1, 0.1, 0.3, 0.2, 0.1]
    exact = SimulatedOracle.for_scenario(SC, truth)
    noisy = SimulatedOracle.for_scenario(SC, truth, noise=Noise("flip", 0.2), seed=1)
    q = SPACE.query(0, 3, 0.2, 0.6)
    n = 20_000
    flips = sum(noisy.choose(q) != exact.choose(q) for _ in range(n))
    assert abs(flips / n - 0.2) < 4 * math.sqrt(0.2 * 0.8 / n)


def test_logistic_noise_follows_the_sigmoid() -> None:
    truth = [0.2, 0.1, 0.1, 0.3, 0.2, 0.1]
    q = SPACE.query(0, 4, 0.3, 0.5)
    diff = SimulatedOracle.for_scenario(SC, truth).difference(q)
    temperature = abs(diff)  # P(left) = σ(±1)
    oracle = SimulatedOracle.for_scenario(SC, truth, noise=Noise("logistic", temperature), seed=2)
    n = 20_000
    p_left = sum(oracle.choose(q) is Choice.LEFT for _ in range(n)) / n
    expected = 1 / (1 + math.exp(-diff / temperature))
    assert abs(p_left - expected) < 4 * math.sqrt(expected * (1 - expected) / n)


def test_indifference_band() -> None:
    truth = [0.2, 0.1, 0.1, 0.3, 0.2, 0.1]
    q = SPACE.query(0, 1, 0.45, 0.55)
    diff = abs(SimulatedOracle.for_scenario(SC, truth).difference(q))
    wide = SimulatedOracle.for_scenario(SC, truth, indifference=diff * 1.01)
    narrow = SimulatedOracle.for_scenario(SC, truth, indifference=diff * 0.99)
    assert wide.choose(q) is Choice.INDIFFERENT
    assert narrow.choose(q) is not Choice.INDIFFERENT


def test_seeded_noise_is_reproducible() -> None:
    truth = [0.2, 0.1, 0.1, 0.3, 0.2, 0.1]
    qs = [SPACE.query(0, 1 + i % 5, 0.1 * (i % 9), 0.5) for i in range(50)]
    runs = [
        [
            SimulatedOracle.for_scenario(SC, truth, noise=Noise("flip", 0.3), seed=7).choose(q)
            for q in qs
        ]
        for _ in range(2)
    ]
    assert runs[0] == runs[1]


@pytest.mark.parametrize(
    ("text", "expected"),
    [("exact", None), ("flip:0.1", Noise("flip", 0.1)), ("logistic:0.02", Noise("logistic", 0.02))],
)
def test_noise_parse(text: str, expected: Noise | None) -> None:
    assert Noise.parse(text) == expected


@pytest.mark.parametrize("text", ["flip", "flip:x", "flip:1.5", "logistic:0", "gauss:1"])
def test_noise_parse_rejects(text: str) -> None:
    with pytest.raises(ValueError, match=r"."):
        Noise.parse(text)


def test_oracle_rejects_negative_band() -> None:
    with pytest.raises(ValueError, match="non-negative"):
        SimulatedOracle.for_scenario(SC, np.ones(6).tolist(), indifference=-1)


def test_display_person_answers_from_the_rounded_numbers() -> None:
    """999.66 against 998.90 per 1,000 reads "1,000 against 999": the display person
    answers from that; equal as shown is "can't tell"."""
    from tradeoff.ask.queries import ClassifierProfile

    from ..conftest import scenario

    sc = scenario("breast-cancer-triage")
    zeta = (0.4, 0.6)

    def option(malignant: float, benign: float, latency: float) -> ClassifierProfile:
        recalls = (malignant, benign)
        return ClassifierProfile(
            tuple(z * r for z, r in zip(zeta, recalls, strict=True)), recalls, (latency, 100.0)
        )

    truth = (0.5, 0.45, 0.04, 0.01)
    display = SimulatedOracle.for_scenario(sc, truth, noise=Noise.parse("display"))
    exact = SimulatedOracle.for_scenario(sc, truth)
    # Shown equal (both 1.0 ms, 900 and 950 per 1,000): can't tell; exactly, A is better.
    same = Query(option(0.9001, 0.95, 1.04), option(0.9, 0.95, 0.96), (0, 1), (1.0, 0.0), 0.5)
    assert exact.choose(same) is Choice.RIGHT
    assert display.choose(same) is Choice.INDIFFERENT
    # Shown 1,000 against 999 malignant, 2.0 against 1.0 ms: the display person weighs those.
    shown = Query(option(0.99966, 0.95, 1.96), option(0.9989, 0.95, 1.04), (0, 2), (1.0, 0.0), 0.5)
    diff = display.shown_difference(shown)
    w = np.asarray(truth) / np.sum(truth)
    assert diff == pytest.approx(w[0] * 0.4 * 0.001 - w[2] * 1.0)


def test_indifference_noise_kind_is_the_band() -> None:
    sc = small("paper-k2-two-costs")
    noise = Noise.parse("indifference:0.5")
    assert noise == Noise("indifference", 0.5) and str(noise) == "indifference:0.5"
    oracle = SimulatedOracle.for_scenario(sc, (0.25, 0.25, 0.25, 0.25), noise=noise)
    space = QuerySpace(sc, softmax_linear(k=2, samples=2000, seed=1))
    q = space.query(0, 2, 0.3, 0.7)
    assert oracle.choose(q) is Choice.INDIFFERENT
