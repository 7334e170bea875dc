"""The measurement-noise benchmark's band intervals (benchmarks/bands.py): Wilson's interval
against scipy's, the bootstrap over pools against a loop written here, and a verdict that
says "within" only when the interval lies within the tolerance."""

from __future__ import annotations

import numpy as np
import pytest
from benchmarks.bands import pool_bootstrap, verdict, wilson
from scipy.stats import binomtest

pytestmark = pytest.mark.core


@pytest.mark.parametrize(("k", "n"), [(0, 5), (3, 31), (16, 30), (85, 85), (44, 85)])
def test_wilson_is_scipys(k: int, n: int) -> None:
    ci = binomtest(k, n).proportion_ci(confidence_level=0.9, method="wilson")
    assert np.allclose(wilson(k, n), (ci.low, ci.high), atol=1e-12)


def test_the_bootstrap_resamples_whole_pools() -> None:
    """The interval of the gap (share right − mean stated) over pools drawn with
    replacement, as a loop over resamples with the same generator computes it; people of
    one pool move together (a pool all right or all wrong keeps the interval wide, where
    the same people counted as independent give a narrower one)."""
    rng = np.random.default_rng(4)
    pools = np.repeat(np.arange(12), 5)
    stated = rng.uniform(0.5, 0.8, 60)
    right = np.repeat(rng.random(12) < 0.6, 5)
    inside = rng.random(60) < 0.8
    found = pool_bootstrap(stated, right, pools, inside, resamples=500, seed=3)
    assert found is not None
    low, high = found
    loop = np.random.default_rng(3)
    gaps = []
    for _ in range(500):
        chosen = loop.integers(0, 12, 12)
        rows = np.concatenate([np.flatnonzero((pools == k) & inside) for k in chosen])
        if len(rows):
            gaps.append(right[rows].mean() - stated[rows].mean())
    assert np.allclose((low, high), np.quantile(gaps, [0.05, 0.95]), atol=1e-12)
    alone = pool_bootstrap(stated, right, np.arange(60), inside, resamples=500, seed=3)
    assert alone is not None and alone[1] - alone[0] < 0.8 * (high - low)


def test_within_only_when_the_whole_interval_is() -> None:
    assert verdict((-0.049, 0.049)) == "within"
    assert verdict((-0.06, 0.01)) == "cannot decide"
    assert verdict((0.051, 0.2)) == "off"
    assert verdict(None) == "–"
    assert pool_bootstrap([0.6], [True], [0], [False]) is None


def test_the_left_out_draws_are_the_others_curve_posterior() -> None:
    """The experiment's draws of one model (benchmarks/front_calibration.py
    ``left_out_sample``) have the mean of its posterior under the curve fitted to the other
    models: rebuilt here with scipy's normal on the grid (uniform over it) and numpy's own
    multivariate normal for the bends."""
    from benchmarks.front_calibration import left_out_sample
    from scipy.stats import multivariate_normal

    from tradeoff.pool.front import front_posterior

    rng = np.random.default_rng(12)
    theta = np.sort(rng.uniform(0.15, 1.42, 10))
    truth = 0.70 + 0.28 * np.column_stack((np.sin(theta), np.cos(theta)))
    s = np.full(truth.shape, 0.02)
    x = truth + rng.normal(0.0, s)
    x[4] += 0.04  # far outside the curve: fitted with the others, it would bend it out
    draws = left_out_sample(x, s, 4000, 5, steps=40)
    for i in (0, 4):
        keep = np.arange(10) != i
        post = front_posterior(x[keep], s[keep], 40)
        cov = post.scatter + np.diag(s[i] ** 2)
        gain = post.scatter @ np.linalg.inv(cov)
        bends = np.random.default_rng(7).multivariate_normal(
            post.beta.reshape(-1), post.beta_cov, 400
        )
        means = []
        for bend in bends:
            curve = post.geometry.curve(bend.reshape(post.beta.shape))
            like = multivariate_normal(x[i], cov).pdf(curve)
            parts = curve + (x[i] - curve) @ gain.T
            means.append(like @ parts / like.sum())
        brute = np.mean(means, axis=0)
        spread = np.std(means, axis=0) / np.sqrt(100) + draws[:, i].std(axis=0) / np.sqrt(4000)
        assert np.all(np.abs(draws[:, i].mean(axis=0) - brute) < 4 * spread + 1e-4)


def test_the_exact_posterior_of_a_known_curve_is_the_binomial_one() -> None:
    """The reference of the ablations (benchmarks/front_calibration.py
    ``known_curve_sample``): a model's draws lie on the truth's curve, their mean that of its
    place's posterior under a uniform prior on the range and scipy's binomial likelihood of
    its counts, integrated here by Simpson's rule on a grid ten times finer."""
    from benchmarks.front_calibration import known_curve_sample, truth_curve
    from scipy.integrate import simpson
    from scipy.stats import binom

    curve, low, high = truth_curve("arc0")
    cases, count = 300, 20_000
    x = np.array([[0.93, 0.81], [0.84, 0.92]])
    draws = known_curve_sample("arc0", x, np.full(x.shape, 0.02), cases, count,
                               np.random.default_rng(3))  # fmt: skip
    places = np.linspace(low, high, 20_001)
    on = curve(places)
    some = draws.reshape(-1, 2)[::20]  # 2,000 of the draws: each on the curve
    assert np.linalg.norm(some[:, None] - on[None, ::10], axis=2).min(axis=1).max() < 1e-3
    for i in range(len(x)):
        like = np.exp(binom.logpmf(np.round(x[i] * cases), cases, on).sum(axis=1))
        mean = simpson(like[:, None] * on, x=places, axis=0) / simpson(like, x=places)
        spread = draws[:, i].std(axis=0)
        assert (np.abs(draws[:, i].mean(axis=0) - mean) < 4 * spread / np.sqrt(count)).all()
