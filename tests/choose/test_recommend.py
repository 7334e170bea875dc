"""The recommendation is a Bayes decision: the model with the highest posterior expected
value of the person's own metric, with P(best) from the same draws."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from tradeoff.ask.scenario import load_scenario
from tradeoff.choose.pool_metric import metric_objectives, metric_vectors
from tradeoff.choose.recommend import recommend
from tradeoff.pool import load_pool
from tradeoff.stable import DIGITS

from ..conftest import SCENARIOS

pytestmark = [pytest.mark.core, pytest.mark.other_path]

SC = load_scenario(SCENARIOS / "breast-cancer-triage.toml").scenario
COLUMNS = [c.column for c in metric_objectives(SC)]
PRIORS = (0.37, 0.63)


def pool_of(values: np.ndarray) -> object:
    frame = pd.DataFrame(values, columns=COLUMNS)
    frame.insert(0, "model", [f"m{i}" for i in range(len(frame))])
    return load_pool("random.csv", metric_objectives(SC), frame=frame, name_column="model")


def brute_psi(values: np.ndarray, w: np.ndarray) -> float:
    """ψ by the definition: Σ a_i ζ_i recall_i − Σ a_j x_j (both attributes are costs)."""
    return float(
        w[0] * PRIORS[0] * values[0]
        + w[1] * PRIORS[1] * values[1]
        - w[2] * values[2]
        - w[3] * values[3]
    )


values = st.integers(2, 12).flatmap(
    lambda n: arrays(np.float64, (n, 4), elements=st.floats(0, 1, allow_subnormal=False))
)


@settings(max_examples=60)
@given(v=values, seed=st.integers(0, 10_000), n_draws=st.integers(1, 50))
def test_recommendation_is_the_argmax_of_the_expected_metric(
    v: np.ndarray, seed: int, n_draws: int
) -> None:
    pool = pool_of(v)
    draws = np.random.default_rng(seed).dirichlet(np.ones(4), size=n_draws)
    rec = recommend(SC, pool, draws.mean(axis=0), PRIORS, draws=draws)  # type: ignore[arg-type]
    expected = np.array([np.mean([brute_psi(row, w) for w in draws]) for row in v])
    # The argmax, with ties as every machine breaks them (tradeoff.stable): metrics equal to
    # DIGITS significant digits of the largest are one value, the earlier row taken.
    tie = 10.0**-DIGITS * max(1.0, float(np.abs(expected).max()))
    assert expected[rec.index] >= expected.max() - tie
    assert np.allclose(rec.expected, expected, atol=1e-12)
    # P(best): the share of draws in which each model is the best (ties: earlier row, ties
    # to 9 significant digits, as on every machine: tradeoff.stable).
    from tradeoff.stable import stable_argmax

    wins = np.zeros(len(v))
    for w in draws:
        psi = np.array([brute_psi(row, w) for row in v])
        wins[stable_argmax(psi)] += 1
    assert rec.p_best is not None and np.allclose(rec.p_best, wins / n_draws)
    assert abs(sum(rec.p_best) - 1) < 1e-9


def test_point_estimate_has_no_probability_and_the_runner_up_in_words() -> None:
    v = np.array([[0.95, 0.90, 0.2, 10.0], [0.90, 0.90, 0.2, 10.0], [0.80, 0.99, 5.0, 500.0]])
    rec = recommend(SC, pool_of(v[:2]), [0.7, 0.3, 0.0, 0.0], PRIORS)  # type: ignore[arg-type]
    assert rec.name == "m0" and rec.p_best is None and rec.runner_up == "m1"
    assert rec.trade == (
        "against the runner-up m1: flags 50 more malignant lumps per 1,000 malignant lumps"
    )
    assert rec.to_dict()["p_best"] is None
    # m1 (second by ψ) is no better than m0 on any aspect: the pick is set against m2,
    # which is better on some (the runner-up is m1 only when nothing else is left)
    rec = recommend(SC, pool_of(v), [0.7, 0.3, 0.0, 0.0], PRIORS)  # type: ignore[arg-type]
    assert rec.name == "m0" and rec.runner_up == "m2"
    assert rec.trade.startswith("against the runner-up m2: flags 150 more malignant lumps")


def test_a_runner_up_less_often_best_than_another_is_named_by_expected_value() -> None:
    """The pick is first in expected value and the runner-up second; when a third model
    is more often the best (C: best for 60 % of the draws, the runner-up B for none), the
    trade says "the runner-up in expected value", as the chances listed beside it rank C
    second."""
    v = np.array([[0.90, 0.90, 0.2, 10.0], [0.95, 0.75, 0.2, 10.0], [1.00, 0.50, 0.2, 10.0]])
    draws = np.array([[1.0, 0.0, 0.0, 0.0]] * 60 + [[0.0, 1.0, 0.0, 0.0]] * 40)
    rec = recommend(SC, pool_of(v), draws.mean(axis=0), PRIORS, draws=draws)  # type: ignore[arg-type]
    assert rec.name == "m0" and rec.runner_up == "m1"
    assert rec.p_best is not None and rec.p_best[2] == pytest.approx(0.6)
    assert rec.trade.startswith("against m1, the runner-up in expected value: ")
    close = np.array([[1.0, 0.0, 0.0, 0.0]] * 45 + [[0.0, 1.0, 0.0, 0.0]] * 55)
    rec = recommend(SC, pool_of(v[:2]), close.mean(axis=0), PRIORS, draws=close)  # type: ignore[arg-type]
    assert rec.trade.startswith("against the runner-up m1: ")


def test_metric_vectors_match_the_definition() -> None:
    v = np.random.default_rng(1).random((5, 4))
    w = np.random.default_rng(2).dirichlet(np.ones(4), size=3)
    got = w @ metric_vectors(SC, pool_of(v), PRIORS).T  # type: ignore[arg-type]
    assert np.allclose(got, [[brute_psi(row, a) for row in v] for a in w])
    assert np.array_equal(metric_vectors(SC, v, PRIORS), metric_vectors(SC, pool_of(v), PRIORS))  # type: ignore[arg-type]


def test_selectable_models_only() -> None:
    v = np.array([[0.99, 0.99, 0.1, 1.0], [0.90, 0.90, 0.2, 10.0], [0.80, 0.80, 0.3, 20.0]])
    mask = np.array([False, True, True])
    rec = recommend(SC, pool_of(v), [0.5, 0.5, 0, 0], PRIORS, selectable=mask)  # type: ignore[arg-type]
    assert rec.name == "m1"


@pytest.mark.slow
@pytest.mark.parametrize(("noise", "at_least"), [("exact", 0.95), ("flip:0.1", 0.85)])
def test_simulated_stakeholders_get_their_own_best_model(noise: str, at_least: float) -> None:
    """End to end on the shipped pool: simulated stakeholders answer the questions that aim
    at the pick (``stop = "decision"``), and the recommendation is the best model under
    their true weights at least this often (the benchmark's 1,000-stakeholder figures:
    benchmarks/results/decision.md)."""
    from tradeoff.choose.candidates import scenario_pool
    from tradeoff.simulation.oracles import Noise
    from tradeoff.simulation.simulate import simulate

    from ..conftest import SCENARIOS, scenario

    sc = scenario("breast-cancer-triage")
    pool = scenario_pool(sc, SCENARIOS)
    summary = simulate(sc, runs=30, pool=pool, noise=Noise.parse(noise), seed=11)
    decision = summary.to_dict()["decision"]
    assert decision["right_pick_rate"] >= at_least, decision
    assert decision["questions"]["median"] <= 20


def test_one_psi_helper_gives_the_three_old_computations_on_the_shipped_pool() -> None:
    """ψ = metric_vectors(...) @ weights against the three ways it was computed before
    (written out here as they were): per-unit coefficients times the pool's values for
    many weight vectors (``metric_values``), the rows scaled by ζ and the attributes' signs
    (the old ``metric_vectors``, bit for bit: sessions record these rows), and the pool's
    values times one vector's coefficients (``linear_values``, and ``omega_for_metric``'s
    ψ); and the recommendation's E[ψ] from them."""
    from tradeoff.ask.population import scenario_priors
    from tradeoff.choose.candidates import scenario_pool
    from tradeoff.choose.pool_metric import metric_coefficients

    pool = scenario_pool(SC, SCENARIOS)
    priors = scenario_priors(SC)
    draws = np.random.default_rng(5).dirichlet(np.ones(4), size=200)
    k = SC.n_classes
    signs = np.array([-1.0 if a.kind == "cost" else 1.0 for a in SC.attributes])
    values = pool.values

    old_coefficients = np.hstack((draws[:, :k] * np.asarray(priors), draws[:, k:] * signs))
    old_metric_values = old_coefficients @ values.T
    old_metric_vectors = values * np.asarray(list(priors)[:k] + list(signs))
    old_linear = np.array([values @ np.array(metric_coefficients(SC, w, priors)) for w in draws])

    vectors = metric_vectors(SC, pool, priors)
    psi = draws @ vectors.T
    assert np.array_equal(vectors, old_metric_vectors)
    np.testing.assert_allclose(psi, old_metric_values, rtol=0, atol=1e-12)
    np.testing.assert_allclose(psi, old_linear, rtol=0, atol=1e-12)
    np.testing.assert_allclose(old_coefficients[0], metric_coefficients(SC, draws[0], priors))
    rec = recommend(SC, pool, draws.mean(axis=0), priors, draws=draws)
    np.testing.assert_allclose(rec.expected, old_metric_values.mean(axis=0), rtol=0, atol=1e-12)
    assert rec.index == int(np.argmax(old_metric_values.mean(axis=0)))
