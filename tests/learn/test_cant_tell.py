"""A "can't tell" says the exchange rate is near the question's: it does not widen the
intervals the other answers settled, and it does not turn them into slips
(:data:`~tradeoff.learn.likelihood.UNSURE_SHARE`; benchmarks/results/cant-tell.md)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tradeoff.ask.scenario import load_scenario
from tradeoff.learn import Choice, Engine, truth_from_dirichlet
from tradeoff.learn.joint import JointStrategy
from tradeoff.learn.joint_state import JointState
from tradeoff.learn.likelihood import NOISE_PRIOR, UNSURE_SHARE, outcome_probabilities
from tradeoff.learn.particles import weighted_quantiles
from tradeoff.simulation.oracles import SimulatedOracle

pytestmark = [pytest.mark.core, pytest.mark.other_path]


def _factor(strategy: JointStrategy, state: JointState, j: int) -> float:
    """high/low of the 90% interval of a₁/aⱼ (the exchange rate the review states)."""
    s = strategy.posterior.summary(state)
    ratio = s.natural[:, 0] / s.natural[:, j]
    lo, hi = weighted_quantiles(ratio[:, None], s.weights, (0.05, 0.95))[:, 0]
    return float(hi / lo)


def test_a_cant_tell_at_the_persons_own_rate_does_not_widen_what_their_answers_settled() -> None:
    """25 exact answers (seed 0), then "can't tell" about a trade exactly at the person's
    own exchange rate of malignant against benign (and, apart, against latency): each
    interval is narrower after it. With the band model alone (every answer within the band
    a "can't tell") both widened, 1.11× to 1.27× and 2.5× to 5.3×: the "can't tell" ruled
    out δ = 0 and the noisy tail the summary weighs up made the closest answers slips."""
    sc = load_scenario("breast-cancer-triage").scenario
    spec = sc.elicitation.override(strategy="joint", budget=25, stop="weights")
    engine = Engine(sc, spec, seed=0)
    truth = truth_from_dirichlet(engine.space.spans, np.random.default_rng(0))
    oracle = SimulatedOracle.for_scenario(sc, truth, seed=0)
    while (q := engine.next_query()) is not None:
        engine.answer(oracle.choose(q))
    strategy = engine._strategy
    assert isinstance(strategy, JointStrategy)
    assert all(c is not Choice.INDIFFERENT for _, c in engine.history)
    for j in (1, 2):
        rate = truth[0] / (truth[0] + truth[j])
        trade = engine.space.trade(0, j, rate)
        assert abs(oracle.difference(trade)) < 1e-12  # a person with any band says it
        after = strategy.update(engine.state, trade, Choice.INDIFFERENT)
        assert _factor(strategy, after, j) <= _factor(strategy, engine.state, j)
        # Nor does it make the person look careless (band model alone: a lapse rate of
        # 0.033 before, 0.078 and 0.070 after).
        lapse = strategy.posterior.noise_posterior(after)[0]
        assert lapse <= strategy.posterior.noise_posterior(engine.state)[0] + 0.01


cells = st.tuples(
    st.floats(-0.02, 0.02),
    st.sampled_from(NOISE_PRIOR.lapses),
    st.sampled_from(NOISE_PRIOR.temperatures),
    st.sampled_from(NOISE_PRIOR.bands),
)


@settings(max_examples=200)
@given(cell=cells)
def test_a_band_never_makes_an_answer_more_than_twice_as_unlikely(
    cell: tuple[float, float, float, float],
) -> None:
    """Against forced choice (δ = 0), a band δ makes an answer "left" or "right" at most
    1/(1 − ρ) times less likely, wherever Δ lies: an answer on the side of Δ within the
    band is never a slip, so a "can't tell" elsewhere (which rules out δ = 0) does not take
    the other answers' word away."""
    delta, eps, temp, band = cell
    assert 0 < UNSURE_SHARE < 1
    banded = outcome_probabilities(delta, eps, temp, band)
    forced = outcome_probabilities(delta, eps, temp, 0.0)
    assert np.all(banded[:2] >= (1 - UNSURE_SHARE) * forced[:2] - 1e-15)
    # ... and P(A | A or B) is forced choice's for a person without a band.
    assert forced[2] == 0.0 or delta == 0.0
