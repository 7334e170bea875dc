"""The pooled posterior of a pool's measured numbers (tradeoff.pool.pooled), against a
brute-force evaluation of the same mixture and against each model judged on its own."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tradeoff.pool.pooled import pooled_posterior, pooled_sample
from tradeoff.pool.uncertainty import Uncertainty

pytestmark = pytest.mark.core


def brute_posterior(x: np.ndarray, s: np.ndarray, h: np.ndarray, pi: np.ndarray) -> np.ndarray:
    """Model i's weight on model j's point (j ≠ i) and on the flat part, by loops."""
    n, d = x.shape
    med = np.array([np.median(s[:, c]) for c in range(d)])
    span = x.max(axis=0) - x.min(axis=0) + 6 * med
    out = np.zeros((n, n + 1))
    for i in range(n):
        for j in range(n + 1):
            if j == i:
                continue
            if j == n:
                like = math.prod(1 / span[c] for c in range(d))
            else:
                like = 1.0
                for c in range(d):
                    v = s[i, c] ** 2 + h[c] ** 2
                    like *= math.exp(-((x[i, c] - x[j, c]) ** 2) / (2 * v)) / math.sqrt(
                        2 * math.pi * v
                    )
            out[i, j] = pi[j] * like
        out[i] /= out[i].sum()
    return out


def test_the_posterior_is_the_mixture_its_shares_give() -> None:
    rng = np.random.default_rng(4)
    x = rng.uniform(0.8, 0.95, (7, 2))
    s = rng.uniform(0.01, 0.03, (7, 2))
    post, h = pooled_posterior(x, s)
    pi = post.mean(axis=0)  # the EM's fixed point: shares are the mean posterior weights
    assert np.allclose(post.sum(axis=1), 1.0)
    assert np.allclose(np.diag(post[:, :7]), 0.0)
    assert np.allclose(post, brute_posterior(x, s, h, pi), atol=2e-3)


def test_models_far_apart_are_judged_on_their_own() -> None:
    values = np.array([[0.55], [0.70], [0.85], [0.97]])
    u = Uncertainty(
        np.zeros((4, 1)), np.full((4, 1), 400.0), np.array([0.0]), np.array([1.0]), ("r_cases",)
    )
    pooled = pooled_sample(u, values, 4000, seed=2)
    alone = u.sample(values, 4000, seed=2)
    assert np.allclose(pooled.mean(axis=0), alone.mean(axis=0), atol=2e-3)
    assert np.allclose(pooled.std(axis=0), alone.std(axis=0), rtol=0.1)


def test_close_models_share_their_draws_and_the_lucky_one_is_pulled_back() -> None:
    """Five models whose recalls differ by less than the noise: the one that measured best
    is drawn lower than on its own, and P(it is best) falls."""
    values = np.array([[0.90], [0.905], [0.91], [0.915], [0.93]])
    u = Uncertainty(
        np.zeros((5, 1)), np.full((5, 1), 300.0), np.array([0.0]), np.array([1.0]), ("r_cases",)
    )
    pooled = pooled_sample(u, values, 4000, seed=3)
    alone = u.sample(values, 4000, seed=3)
    assert pooled[:, 4, 0].mean() < alone[:, 4, 0].mean() - 0.005
    best_pooled = np.mean(pooled[:, :, 0].argmax(axis=1) == 4)
    best_alone = np.mean(alone[:, :, 0].argmax(axis=1) == 4)
    assert best_pooled < best_alone - 0.1
    assert ((pooled >= 0) & (pooled <= 1)).all()


def test_the_same_seed_gives_the_same_draws() -> None:
    values = np.array([[0.90, 0.8], [0.905, 0.82], [0.91, 0.79]])
    u = Uncertainty(
        np.array([[0, 0.01]] * 3, dtype=float),
        np.array([[300.0, 0]] * 3),
        np.array([0.0, 0.0]),
        np.array([1.0, 1.0]),
        ("a", "b"),
    )
    a = pooled_sample(u, values, 500, seed=9)
    b = pooled_sample(u, values, 500, seed=9)
    assert np.allclose(a, b, rtol=0, atol=1e-12)
