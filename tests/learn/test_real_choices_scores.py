"""The real-choices benchmark's scores and peers (benchmarks/choice_models.py): log loss and
Brier agree with scikit-learn's, ECE with a brute-force sum over bins, the conditional logit
recovers a simulated β, the mixed logit's individual posterior follows the person; the
population prior (tradeoff.learn.pooled) moves a person who answered nothing toward the
others and leaves a person unlike them to their own choices."""

from __future__ import annotations

import numpy as np
import pytest
from benchmarks.choice_models import (
    accuracy,
    brier,
    conditional_logit_p,
    ece,
    ece_floor,
    fit_conditional_logit,
    log_loss,
    mixed_logit_posterior,
    per_person_logistic,
)
from sklearn.metrics import brier_score_loss
from sklearn.metrics import log_loss as sk_log_loss

from tradeoff.ask.scenario import load_scenario
from tradeoff.learn.choices import forced, learn_choices, pairs, predictive
from tradeoff.learn.pooled import pooled_predictive, population_prior

pytestmark = [pytest.mark.core, pytest.mark.other_path]


@pytest.fixture(scope="module")
def rows() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    p = rng.uniform(0.02, 0.98, 400)
    y = (rng.random(400) < p).astype(np.float64)
    return y, p


def test_log_loss_and_brier_agree_with_scikit_learn(rows: tuple[np.ndarray, np.ndarray]) -> None:
    y, p = rows
    assert log_loss(y, p) == pytest.approx(sk_log_loss(y, p), rel=1e-9)
    assert brier(y, p) == pytest.approx(brier_score_loss(y, p), rel=1e-9)
    assert accuracy(y, p) == pytest.approx(float(np.mean((p > 0.5) == (y == 1))))


def test_ece_is_the_weighted_gap_per_bin(rows: tuple[np.ndarray, np.ndarray]) -> None:
    y, p = rows
    brute = 0.0
    for b in range(10):
        inside = (p >= b / 10) & (p < (b + 1) / 10)
        if inside.any():
            brute += inside.sum() / len(p) * abs(y[inside].mean() - p[inside].mean())
    assert ece(y, p) == pytest.approx(brute, rel=1e-9)
    assert ece(1 - y, p) > 0.2  # outcomes turned over: far from calibrated
    median, high = ece_floor(p, repeats=50)
    assert 0.0 < median < high < 0.15


def test_conditional_logit_recovers_a_simulated_beta() -> None:
    rng = np.random.default_rng(7)
    truth = np.array([-0.15, -0.03, -0.4, -0.9])
    d = rng.normal(0, [20.0, 40.0, 1.5, 1.0], size=(6000, 4))
    y = (rng.random(6000) < conditional_logit_p(truth, d)).astype(np.float64)
    beta = fit_conditional_logit(d, y)
    assert np.allclose(beta, truth, rtol=0.12)


def test_individual_predictions_follow_each_person() -> None:
    rng = np.random.default_rng(0)
    draws = rng.normal(0, 1, size=(4000, 2))  # half the population prefers aspect 0
    d = np.array([[1.0, 0.0]] * 6)
    up, ess = mixed_logit_posterior(draws, d, np.ones(6), np.array([[1.0, 0.0]]))
    down, _ = mixed_logit_posterior(draws, d, np.zeros(6), np.array([[1.0, 0.0]]))
    assert up[0] > 0.75 > 0.25 > down[0]
    assert 100 < ess < 4000  # the draws that fit the choices carry it
    scale = np.ones(2)
    yes = per_person_logistic(d, np.ones(6), np.array([[1.0, 0.0]]), scale)
    assert yes[0] > 0.75


def test_population_prior_borrows_and_guards_the_minority() -> None:
    sc = load_scenario("scenarios/train-trips.toml").scenario
    cheap, fast = [20.0, 150, 0, 1], [40.0, 120, 0, 1]
    thrifty = {
        f"p{k}": learn_choices(sc, pairs(sc, [cheap] * 6, [fast] * 6), ["left"] * 6, seed=k)
        for k in range(3)
    }
    prior = population_prior(sc, {k: e.particles() for k, e in thrifty.items()})
    ask = pairs(sc, [cheap], [fast])
    before, _ = pooled_predictive(sc, prior, [], [], ask)
    fresh = learn_choices(sc, [], [])
    assert forced(before)[0] > forced(predictive(fresh, ask))[0] + 0.2
    # Someone who always paid for speed is not pulled to the thrifty majority.
    hasty, ess = pooled_predictive(
        sc, prior, pairs(sc, [cheap] * 6, [fast] * 6), ["right"] * 6, ask
    )
    assert forced(hasty)[0] < 0.25 and ess > 20
    assert prior.without("p0").owners.count("p0") == 0
