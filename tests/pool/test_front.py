"""The trade-off-curve posterior of a pool's measured numbers (tradeoff.pool.front):
against a brute-force evaluation of the same mixture, on points that lie on one curve, and
replayed from a session's header as the stop drew it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import multivariate_normal

from tradeoff.ask.scenario import load_scenario
from tradeoff.choose.pool_metric import metric_objectives, metric_vectors
from tradeoff.choose.recommend import measured_vectors, measurement_record
from tradeoff.pool import load_pool
from tradeoff.pool.front import (
    SIZES,
    _bent,
    _curve_draws,
    _loglik,
    _scatter_sizes,
    front_posterior,
    front_sample,
)
from tradeoff.pool.pooled import pooled_sample
from tradeoff.pool.uncertainty import Uncertainty
from tradeoff.record.records import MeasurementRecord

from ..conftest import SCENARIOS

pytestmark = pytest.mark.core


def arc(rng: np.random.Generator, m: int) -> np.ndarray:
    theta = np.sort(rng.uniform(0.15, 1.42, m))
    return 0.70 + 0.28 * np.column_stack((np.sin(theta), np.cos(theta)))


def test_the_posterior_is_the_mixture_its_fit_gives() -> None:
    """Each model's weight on a grid point is πₖ·N(x̂ᵢ; c(tₖ), Σ + Sᵢ), normalised, and
    the component is the normal conditioned on x̂ᵢ: recomputed here with scipy's normal."""
    rng = np.random.default_rng(3)
    truth = arc(rng, 12)
    s = rng.uniform(0.01, 0.03, truth.shape)
    x = truth + rng.normal(0.0, s)
    post = front_posterior(x, s)
    for i in (0, 5, 11):
        cov = post.scatter + np.diag(s[i] ** 2)
        like = np.array([multivariate_normal(c, cov).pdf(x[i]) for c in post.curve])
        brute = post.prior * like / np.sum(post.prior * like)
        assert np.allclose(post.weights[i], brute, atol=1e-9)
        k = int(np.argmax(brute))
        gain = post.scatter @ np.linalg.inv(cov)
        assert np.allclose(post.means[i, k], post.curve[k] + gain @ (x[i] - post.curve[k]))
        assert np.allclose(post.cov[i], post.scatter - gain @ post.scatter, atol=1e-12)


def test_models_on_one_curve_are_drawn_near_it() -> None:
    """Twenty models on an arc, measured on 200 cases a class, five pools: across the arc
    (what the measured noise adds and no model truly has), the posterior means lie at
    under half the measured points' distance from it (root mean square over the pools;
    0.30 measured, against 0.67 with the other models' points as the prior,
    :func:`~tradeoff.pool.pooled.pooled_sample`)."""
    off, raw = [], []
    for seed in range(5):
        rng = np.random.default_rng([seed, 46])
        truth = arc(rng, 20)
        x = rng.binomial(200, truth) / 200
        cases = np.full(x.shape, 200.0)
        u = Uncertainty(np.zeros_like(x), cases, np.zeros(2), np.ones(2), ("", ""))
        draws = front_sample(u, x, 500, seed)
        assert ((draws >= 0) & (draws <= 1)).all()
        off.append(np.hypot(*(draws.mean(axis=0) - 0.70).T) - 0.28)
        raw.append(np.hypot(*(x - 0.70).T) - 0.28)
    ratio = np.sqrt(np.mean(np.square(off)) / np.mean(np.square(raw)))
    assert ratio < 0.5


SC = load_scenario(SCENARIOS / "breast-cancer-triage.toml").scenario
OBJECTIVES = metric_objectives(SC)
COLUMNS = [c.column for c in OBJECTIVES]
PRIORS = (0.37, 0.63)


def test_the_header_replays_what_the_stop_drew() -> None:
    """The session header names the curve posterior (fitted again with each spread at
    the fitted numbers, the scatter's size drawn), and its tables are the ones every later
    recommendation draws; headers written before replay as they were drawn then:
    ``fitted`` with the fitted scatter plugged in, ``curves`` with the spreads at the
    measured numbers too, ``front`` with the fitted bend too, and no ``prior`` with the
    other models' points."""
    rng = np.random.default_rng(8)
    truth = arc(rng, 10)
    frame = pd.DataFrame(np.column_stack((truth, np.ones(10), np.full(10, 50.0))), columns=COLUMNS)
    frame.insert(0, "model", [f"m{i}" for i in range(10)])
    frame["recall_malignant_cases"] = 300
    frame["recall_benign_cases"] = 300
    pool = load_pool("arc.csv", OBJECTIVES, frame=frame, name_column="model")
    vectors = metric_vectors(SC, pool, PRIORS)
    record = measurement_record(SC, pool, PRIORS, vectors)
    assert record is not None and record.prior == "scattered"
    again = MeasurementRecord.model_validate_json(record.model_dump_json())
    measured = measured_vectors(SC, pool, PRIORS, len(record.array()))
    assert measured is not None
    assert np.allclose(again.array(), measured, rtol=0, atol=1e-12)
    fitted_scatter = MeasurementRecord.model_validate({**record.model_dump(), "prior": "fitted"})
    assert pool.uncertainty is not None
    plugged_in = front_sample(
        pool.uncertainty, pool.values, record.tables, record.seed, scatter=False
    )
    scale = np.asarray(record.scale)
    assert np.allclose(fitted_scatter.array(), plugged_in * scale, rtol=0, atol=1e-12)
    assert not np.allclose(fitted_scatter.array(), again.array(), rtol=0, atol=1e-6)
    curves = MeasurementRecord.model_validate({**record.model_dump(), "prior": "curves"})
    assert pool.uncertainty is not None
    once = front_sample(
        pool.uncertainty, pool.values, record.tables, record.seed, refit=False, scatter=False
    )
    assert np.allclose(curves.array(), once * np.asarray(record.scale), rtol=0, atol=1e-12)
    assert not np.allclose(curves.array(), again.array(), rtol=0, atol=1e-6)
    plugged = MeasurementRecord.model_validate({**record.model_dump(), "prior": "front"})
    assert pool.uncertainty is not None
    fitted = front_sample(
        pool.uncertainty, pool.values, record.tables, record.seed, curves=0, refit=False
    )
    assert np.allclose(plugged.array(), fitted * np.asarray(record.scale), rtol=0, atol=1e-12)
    before = record.model_dump()
    del before["prior"]
    old = MeasurementRecord.model_validate(before)
    assert pool.uncertainty is not None
    exemplars = pooled_sample(pool.uncertainty, pool.values, record.tables, record.seed)
    scale = np.asarray(record.scale)
    assert np.allclose(old.array(), exemplars * scale, rtol=0, atol=1e-12)


def test_the_bends_covariance_is_the_inverse_hessian_of_the_marginal_likelihood() -> None:
    """The bend's covariance is the inverse of the observed information of the marginal
    likelihood Σᵢ log Σₖ πₖ N(x̂ᵢ; c(tₖ; β), Σ + Sᵢ) at the fitted bend (Louis's formula in
    the code), here by finite differences of that sum written out afresh; and the bends
    drawn have that mean and covariance."""
    rng = np.random.default_rng(5)
    truth = arc(rng, 14)
    s = rng.uniform(0.01, 0.03, truth.shape)
    x = truth + rng.normal(0.0, s)
    post = front_posterior(x, s)
    total = post.scatter[None] + np.stack([np.diag(row**2) for row in s])
    inv, logdet = np.linalg.inv(total), np.linalg.slogdet(total)[1]

    def loglik(flat: np.ndarray) -> float:
        diff = x[:, None, :] - post.geometry.curve(flat.reshape(post.beta.shape))[None]
        quad = np.einsum("nki,nij,nkj->nk", diff, inv, diff)
        with np.errstate(divide="ignore"):
            log_pi = np.log(post.prior)
        each = log_pi[None] - 0.5 * (quad + logdet[:, None] + 2 * np.log(2 * np.pi))
        top = each.max(axis=1)
        return float(np.sum(top + np.log(np.exp(each - top[:, None]).sum(axis=1))))

    size, h = post.beta.size, 1e-4
    hessian = np.empty((size, size))
    base = post.beta.reshape(-1)
    for i in range(size):
        for j in range(size):
            e_i, e_j = np.eye(size)[i] * h, np.eye(size)[j] * h
            hessian[i, j] = -(
                loglik(base + e_i + e_j)
                - loglik(base + e_i - e_j)
                - loglik(base - e_i + e_j)
                + loglik(base - e_i - e_j)
            ) / (4 * h * h)
    assert np.allclose(np.linalg.inv(post.beta_cov), hessian, rtol=1e-4)
    bends = _curve_draws(post, 20_000, np.random.default_rng(1)).reshape(20_000, -1)
    sd = np.sqrt(np.diag(post.beta_cov))
    assert np.all(np.abs(bends.mean(axis=0) - base) < 4 * sd / np.sqrt(20_000))
    assert np.allclose(np.cov(bends.T), post.beta_cov, rtol=0.1, atol=0.05 * sd.max() ** 2)


def test_the_fitted_bend_gives_back_the_fitted_posterior() -> None:
    """Each bend's posterior is the mixture of the fit with the bend changed: at the fitted
    bend, the fit's own weights and means; at another, scipy's normal says the same."""
    rng = np.random.default_rng(6)
    truth = arc(rng, 12)
    s = rng.uniform(0.01, 0.03, truth.shape)
    x = truth + rng.normal(0.0, s)
    post = front_posterior(x, s)
    other = post.beta + 0.01
    same, moved = _bent(post, x, s, np.stack((post.beta, other)))
    assert np.allclose(same.weights, post.weights, atol=1e-12)
    assert np.allclose(same.means, post.means, atol=1e-12)
    curve = post.geometry.curve(other)
    for i in (0, 7):
        cov = post.scatter + np.diag(s[i] ** 2)
        like = np.array([multivariate_normal(c, cov).pdf(x[i]) for c in curve])
        brute = post.prior * like / np.sum(post.prior * like)
        assert np.allclose(moved.weights[i], brute, atol=1e-9)
    ll, _ = _loglik(x, np.stack([np.diag(row**2) for row in s]), post.geometry, other, post.scatter)
    assert ll.shape == (12, len(curve))


@pytest.mark.stats  # forty fits of the curve
def test_true_numbers_lie_within_the_posteriors_spread() -> None:
    """Twenty pools of 10–30 models on an arc (each pulled inwards by |N(0, 0.003)|, as in
    benchmarks/measurement_noise.py), measured on 100 and on 300 cases a class: the true
    recalls' distance from the posterior mean, in posterior standard deviations, has a root
    mean square near 1 across the curve too (the fitted curve plugged in: 1.75, its bend's
    uncertainty left out; drawn from its posterior: 0.93; with the scatter's size drawn too,
    0.85: a little wider than the truth's distance, never narrower)."""
    z = []
    for cases in (100, 300):
        rng = np.random.default_rng([cases, 46])
        for _ in range(20):
            m = int(rng.integers(10, 31))
            truth = arc(rng, m) - np.abs(rng.normal(0.0, 0.003, (m, 2)))
            x = rng.binomial(cases, truth) / cases
            u = Uncertainty(
                np.zeros_like(x), np.full(x.shape, float(cases)), np.zeros(2), np.ones(2), ("", "")
            )
            draws = front_sample(u, x, 2000, int(rng.integers(1 << 30)))
            along = draws.mean(axis=0)[-1] - draws.mean(axis=0)[0]
            normal = np.array([-along[1], along[0]]) / np.hypot(*along)
            across = draws @ normal
            z.append((truth @ normal - across.mean(axis=0)) / across.std(axis=0))
    rms = float(np.sqrt(np.mean(np.concatenate(z) ** 2)))
    assert 0.7 < rms < 1.3, rms


def test_a_lucky_measurement_is_as_uncertain_as_its_fitted_value() -> None:
    """Twelve models on an arc measured on 100 cases a class, one of them 99 of 100 on a
    recall whose neighbours lie near 0.95: its Beta at 0.99 is narrow (0.012), so fitted
    with the spreads at the measured values the curve trusted it most. Fitted again with
    each spread at the model's fitted value, it is as uncertain as a model there (the
    Beta's spread at its posterior mean), and its draws come down towards its neighbours."""
    rng = np.random.default_rng(48)
    truth = arc(rng, 12)
    x = np.round(truth * 100) / 100
    lucky = int(np.argmax(truth[:, 0]))
    x[lucky, 0] = 0.99
    u = Uncertainty(np.zeros_like(x), np.full(x.shape, 100.0), np.zeros(2), np.ones(2), ("", ""))
    once = front_sample(u, x, 4000, 5, refit=False)
    twice = front_sample(u, x, 4000, 5)
    mean = twice.mean(axis=0)
    beta_at_fit = u.spread(mean)[lucky, 0]
    assert u.spread(x)[lucky, 0] < 0.8 * beta_at_fit  # measured: narrower than fitted
    assert once[:, lucky, 0].std() < twice[:, lucky, 0].std()
    assert twice[:, lucky, 0].mean() < once[:, lucky, 0].mean()  # drawn nearer the curve
    miss = [abs(float(d[:, lucky, 0].mean()) - truth[lucky, 0]) for d in (once, twice)]
    assert miss[1] < miss[0] / 2  # and nearer the truth (0.972 and 0.965 for 0.965)


def test_the_scatters_size_posterior_is_its_marginal_likelihood_on_the_sizes() -> None:
    """Each size's weight is the marginal likelihood of the measured points under that
    scatter (a mixture over the grid of the curve, each model's Gaussian evaluated by
    scipy), times a flat prior on the sizes, normalised; the sizes run from no scatter to
    three times the noise, across the curve only."""
    rng = np.random.default_rng(5)
    truth = arc(rng, 12)
    s = np.full(truth.shape, 0.02)
    x = truth + rng.normal(0.0, 0.02, truth.shape)
    post = front_posterior(x, s)
    sizes, weights = _scatter_sizes(post, x, s)
    assert sizes.shape == (SIZES, 2, 2) and np.allclose(sizes[0], 0.0)
    along = post.geometry.axis
    assert np.allclose(sizes @ along, 0.0, atol=1e-15)  # across the curve only
    assert np.sqrt(np.trace(sizes[-1])) == pytest.approx(3 * 0.02, rel=1e-9)
    curve = post.geometry.curve(post.beta)
    logp = []
    for k in range(SIZES):
        total = 0.0
        for i in range(len(x)):
            dens = [
                multivariate_normal(c, sizes[k] + np.diag(s[i] ** 2)).logpdf(x[i]) for c in curve
            ]
            total += float(np.logaddexp.reduce(np.array(dens) + post.log_prior))
        logp.append(total)
    brute = np.exp(np.array(logp) - max(logp))
    assert np.allclose(weights, brute / brute.sum(), atol=1e-9)


@pytest.mark.parametrize(("pull", "smaller"), [(0.0005, True), (0.03, False)])
def test_the_scatter_drawn_follows_how_far_the_models_lie_from_the_curve(
    pull: float, smaller: bool
) -> None:
    """Models 0.0005 from the curve, measured with noise 0.01: the scatter drawn stays
    mostly below the noise; models 0.03 from it: the scatter drawn is about that (the data
    tell it), not pulled to the prior's middle."""
    rng = np.random.default_rng(6)
    truth = arc(rng, 25)
    normal = rng.normal(0.0, pull, (25, 2))
    s = np.full(truth.shape, 0.01)
    x = truth + normal + rng.normal(0.0, 0.01, truth.shape)
    post = front_posterior(x, s)
    sizes, weights = _scatter_sizes(post, x, s)
    sigma = np.sqrt(np.trace(sizes, axis1=1, axis2=2))
    mean = float(weights @ sigma)
    if smaller:
        assert mean < 0.01
    else:
        assert 0.015 < mean < 0.05
