"""A Gaussian mixture with full covariances, its number of components by BIC: the one
fit behind the groups of a study's population picture (:mod:`tradeoff.study.groups`) and
the latent classes of a study's population prior (:mod:`tradeoff.learn.starting_prior`).

Expectation–maximisation from several seeded k-means++ starts per number of components
(the best start by log likelihood), a ridge added to every covariance at every step (no
component collapses onto a point), and the number of components (1 to ``max_components``)
chosen by the Bayesian information criterion compared at :data:`~tradeoff.stable.DIGITS`
digits (:func:`~tradeoff.stable.settled`): the same seed gives the same mixture on every
machine. Written out in NumPy (a few dozen lines; no dependency is added for it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tradeoff.arrays import FloatArray
from tradeoff.stable import rounded_rows, settled, stable_argmax

__all__ = ["Mixture", "best_mixture", "log_gauss"]

#: EM steps at most per start.
STEPS = 100


@dataclass(frozen=True)
class Mixture:
    """A fitted mixture: ``shares`` (k), ``means`` (k × d), ``covariances`` (k × d × d),
    ``responsibilities`` (n × k: each point's posterior probability of each component) and
    ``bic`` by number of components tried (1, 2, …)."""

    shares: FloatArray
    means: FloatArray
    covariances: FloatArray
    responsibilities: FloatArray
    bic: tuple[float, ...]


def log_gauss(x: FloatArray, mean: FloatArray, cov: FloatArray) -> FloatArray:
    """log N(xᵢ; mean, cov) of the rows of ``x``.

    >>> float(log_gauss(np.zeros((1, 2)), np.zeros(2), np.eye(2))[0])  # doctest: +ELLIPSIS
    -1.8378...
    """
    chol = np.linalg.cholesky(cov)
    sol = np.linalg.solve(chol, (x - mean).T)
    out: FloatArray = (
        -0.5 * (sol * sol).sum(axis=0)
        - float(np.log(np.diag(chol)).sum())
        - 0.5 * x.shape[1] * math.log(2 * math.pi)
    )
    return out


def _log_gauss_all(x: FloatArray, means: FloatArray, covs: FloatArray) -> FloatArray:
    """log N(xᵢ; means[g], covs[g]) for every row i and component g (n × k)."""
    chol = np.linalg.cholesky(covs)  # (k, d, d)
    sol = np.linalg.solve(chol, (x[None, :, :] - means[:, None, :]).transpose(0, 2, 1))
    log_det = np.log(np.diagonal(chol, axis1=1, axis2=2)).sum(axis=1)
    out: FloatArray = (
        -0.5 * (sol * sol).sum(axis=1) - log_det[:, None] - 0.5 * x.shape[1] * math.log(2 * math.pi)
    ).T
    return out


def _em(
    x: FloatArray, k: int, rng: np.random.Generator, ridge: float
) -> tuple[float, FloatArray, FloatArray, FloatArray, FloatArray]:
    """(log likelihood, responsibilities, shares, means, covariances) of one EM run from a
    k-means++ start."""
    n, d = x.shape
    centres = [x[int(rng.integers(n))]]
    for _ in range(1, k):
        # The distances as whole numbers at DIGITS digits of the largest (rounded_rows): a
        # machine whose last bits differ draws the same centre from the same uniform.
        d2 = rounded_rows(np.min([((x - c) ** 2).sum(axis=1) for c in centres], axis=0)[None, :])[0]
        total = float(d2.sum())
        p = d2 / total if total > 0 else np.full(n, 1.0 / n)
        centres.append(x[int(rng.choice(n, p=p))])
    means = np.array(centres)
    spread = np.atleast_2d(np.cov(x, rowvar=False)) if n > 1 else np.eye(d)
    covs = np.array([spread + ridge * np.eye(d)] * k)
    shares = np.full(k, 1.0 / k)
    previous = -np.inf
    resp = np.full((n, k), 1.0 / k)
    loglik = -np.inf
    for _ in range(STEPS):
        log_p = np.log(shares)[None, :] + _log_gauss_all(x, means, covs)
        top = log_p.max(axis=1, keepdims=True)
        norm = top + np.log(np.exp(log_p - top).sum(axis=1, keepdims=True))
        resp = np.exp(log_p - norm)
        loglik = float(norm.sum())
        nk = resp.sum(axis=0) + 1e-10
        shares = nk / n
        means = (resp.T @ x) / nk[:, None]
        c = x[None, :, :] - means[:, None, :]  # (k, n, d)
        covs = (resp.T[:, :, None] * c).transpose(0, 2, 1) @ c / nk[:, None, None]
        covs += ridge * np.eye(d)
        if settled(loglik - previous) < settled(1e-5 * abs(loglik) + 1e-6):
            break
        previous = loglik
    return loglik, resp, shares, means, covs


def best_mixture(
    x: FloatArray,
    *,
    max_components: int,
    ridge: float,
    seed: int = 0,
    starts: int = 3,
    patience: int | None = None,
) -> Mixture:
    """The mixture of 1 to ``max_components`` components (at least 1) with the lowest
    BIC over the rows of ``x`` (n × d), each number fitted from ``starts`` k-means++
    starts seeded by (``seed``, k, start). With ``patience``, more components are not
    tried once the BIC has not improved on the best for that many numbers in a row.

    >>> rng = np.random.default_rng(0)
    >>> x = np.vstack((rng.normal(-3, 0.3, (40, 2)), rng.normal(3, 0.3, (20, 2))))
    >>> m = best_mixture(x, max_components=4, ridge=0.01)
    >>> len(m.shares), sorted(np.round(m.shares, 2).tolist())
    (2, [0.33, 0.67])
    """
    n, d = x.shape
    best: tuple[float, tuple[float, FloatArray, FloatArray, FloatArray, FloatArray]] | None
    best = None
    bics: list[float] = []
    for k in range(1, max(1, max_components) + 1):
        params = (k - 1) + k * d + k * d * (d + 1) / 2
        runs = [_em(x, k, np.random.default_rng([seed, k, s]), ridge) for s in range(starts)]
        run = runs[stable_argmax([r[0] for r in runs])]
        bic = settled(-2 * run[0] + params * math.log(n))
        bics.append(bic)
        if best is None or bic < best[0]:
            best = (bic, run)
        elif patience is not None and k - bics.index(best[0]) - 1 >= patience:
            break
    assert best is not None
    _, resp, shares, means, covs = best[1]
    return Mixture(shares, means, covs, resp, tuple(bics))
