"""Scores and peer models for choices between two options (benchmarks/real_choices.py).

Every model here predicts p = P(the person picks A) of a pair from the differences
d = x_A − x_B of the two options' aspects:

* :func:`fit_conditional_logit`: one β for everyone, P(A) = σ(β·d), by maximum likelihood
  (scipy.optimize, BFGS with the exact gradient);
* :func:`per_person_logistic`: one β per person, an L2-regularised logistic regression
  (scikit-learn) without an intercept, each choice also entered with its sides exchanged
  so that which option stood on the left tells nothing;
* :func:`mixed_logit_posterior`: a panel mixed logit's individual-level predictions: the
  population draws β_r ~ N(μ, diag σ²) weighted by the likelihood of the person's
  training choices (importance weighting), averaged into P(A) of each new pair.

Scores: :func:`log_loss`, :func:`brier`, :func:`accuracy`, :func:`ece` (10 equal-width
bins of p), :func:`reliability` and :func:`ece_floor` (the ECE a perfectly calibrated model
shows on the same rows, by simulation).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import minimize
from scipy.special import expit, log_expit

FloatArray = NDArray[np.float64]

CLIP = 1e-15
BINS = 10


def log_loss(y: FloatArray, p: FloatArray) -> float:
    """Mean negative log likelihood (natural log) of outcomes ``y`` (1: A) under P(A) = ``p``.

    >>> round(log_loss(np.array([1.0, 0.0]), np.array([0.8, 0.4])), 4)
    0.367
    """
    q = np.clip(p, CLIP, 1 - CLIP)
    return float(-np.mean(y * np.log(q) + (1 - y) * np.log(1 - q)))


def brier(y: FloatArray, p: FloatArray) -> float:
    """Mean squared error of ``p`` against ``y``.

    >>> round(brier(np.array([1.0, 0.0]), np.array([0.8, 0.4])), 4)
    0.1
    """
    return float(np.mean((p - y) ** 2))


def accuracy(y: FloatArray, p: FloatArray) -> float:
    """Share of rows whose more likely side was picked (p = ½ counts a half).

    >>> accuracy(np.array([1.0, 0.0, 1.0]), np.array([0.8, 0.4, 0.5]))
    0.8333333333333334
    """
    right = np.where(p > 0.5, y, np.where(p < 0.5, 1 - y, 0.5))
    return float(np.mean(right))


def _bins(p: FloatArray, bins: int) -> NDArray[np.intp]:
    return np.minimum((p * bins).astype(np.intp), bins - 1)


def ece(y: FloatArray, p: FloatArray, bins: int = BINS) -> float:
    """Expected calibration error: Σ_b (n_b/n)·|mean y − mean p| over ``bins`` equal-width
    bins of p.

    >>> ece(np.array([1.0, 0.0, 1.0, 1.0]), np.array([0.75, 0.75, 0.75, 0.75]))
    0.0
    >>> round(ece(np.array([1.0, 0.0]), np.array([0.95, 0.05])), 3)
    0.05
    """
    index = _bins(p, bins)
    total = 0.0
    for b in np.unique(index):
        inside = index == b
        total += inside.sum() * abs(float(y[inside].mean() - p[inside].mean()))
    return float(total / len(p))


def reliability(
    y: FloatArray, p: FloatArray, bins: int = BINS
) -> list[tuple[str, int, float, float]]:
    """Per non-empty bin of p: its range, rows, mean p and the share that picked A."""
    index = _bins(p, bins)
    rows = []
    for b in range(bins):
        inside = index == b
        if inside.any():
            span = f"{b / bins:.1f}–{(b + 1) / bins:.1f}"
            rows.append((span, int(inside.sum()), float(p[inside].mean()), float(y[inside].mean())))
    return rows


def ece_floor(p: FloatArray, repeats: int = 200, seed: int = 0) -> tuple[float, float]:
    """Median and 95th percentile of the ECE of ``p`` when the outcomes are drawn from ``p``
    itself (a perfectly calibrated model on the same rows), over ``repeats`` draws."""
    rng = np.random.default_rng(seed)
    values = [ece((rng.random(len(p)) < p).astype(np.float64), p) for _ in range(repeats)]
    return float(np.median(values)), float(np.quantile(values, 0.95))


# -- the pooled conditional logit ---------------------------------------------------------


def fit_conditional_logit(d: FloatArray, y: FloatArray) -> FloatArray:
    """β of P(A) = σ(β·d) by maximum likelihood (features scaled for the optimiser, β
    returned in the units of ``d``)."""
    scale = d.std(axis=0)
    scale[scale == 0] = 1.0
    z = d / scale
    sign = 2 * y - 1

    def objective(beta: FloatArray) -> tuple[float, FloatArray]:
        u = sign * (z @ beta)
        value = -float(np.sum(log_expit(u)))
        gradient = -(z * (sign * expit(-u))[:, None]).sum(axis=0)
        return value, gradient

    found = minimize(objective, np.zeros(d.shape[1]), jac=True, method="BFGS")
    out: FloatArray = found.x / scale
    return out


def conditional_logit_p(beta: FloatArray, d: FloatArray) -> FloatArray:
    out: FloatArray = expit(d @ beta)
    return out


# -- the per-person logistic regression ---------------------------------------------------


def per_person_logistic(
    d: FloatArray, y: FloatArray, d_new: FloatArray, scale: FloatArray, c: float = 1.0
) -> FloatArray:
    """P(A) of ``d_new`` from one person's choices (``d``, ``y``): scikit-learn's
    L2-regularised logistic regression (inverse strength ``c``) on d / ``scale``, no
    intercept, every choice entered twice (as recorded and with its sides exchanged)."""
    from sklearn.linear_model import LogisticRegression

    z = np.vstack([d / scale, -d / scale])
    target = np.concatenate([y, 1 - y])
    model = LogisticRegression(C=c, fit_intercept=False)
    model.fit(z, target)
    out: FloatArray = model.predict_proba(d_new / scale)[:, 1]
    return out


# -- the panel mixed logit's individual-level predictions ---------------------------------


def fit_mixed_logit(
    d: FloatArray,
    y: FloatArray,
    person: Sequence[str],
    names: Sequence[str],
    n_draws: int = 300,
    seed: int = 0,
) -> tuple[FloatArray, FloatArray]:
    """Means and standard deviations of normally distributed β of a panel mixed logit
    (xlogit) on the recorded pairs (rows ``d`` = x_A − x_B: option B's aspects are
    taken as 0 and A's as d, the same utility differences), in the units of ``d``."""
    from xlogit import MixedLogit

    order = np.argsort(np.asarray(person), kind="stable")
    d, y = d[order], y[order]
    panels = np.repeat(np.unique(np.asarray(person)[order], return_inverse=True)[1], 2)
    scale = d.std(axis=0)
    scale[scale == 0] = 1.0
    n = len(y)
    x = np.zeros((2 * n, d.shape[1]))
    x[0::2] = d / scale
    chosen = np.zeros(2 * n)
    chosen[0::2] = y
    chosen[1::2] = 1 - y
    model = MixedLogit()
    model.fit(
        X=x,
        y=chosen,
        varnames=list(names),
        alts=np.tile([1, 2], n),
        ids=np.repeat(np.arange(n), 2),
        panels=panels,
        randvars={name: "n" for name in names},
        n_draws=n_draws,
        random_state=seed,
        verbose=0,
        skip_std_errs=True,
    )
    coeff = dict(zip(model.coeff_names, model.coeff_, strict=True))
    means = np.array([coeff[name] for name in names]) / scale
    sds = np.abs(np.array([coeff[f"sd.{name}"] for name in names])) / scale
    return means, sds


def mixed_logit_draws(
    means: FloatArray, sds: FloatArray, size: int = 4000, seed: int = 0
) -> FloatArray:
    """``size`` draws of β from the population distribution N(means, diag sds²)."""
    rng = np.random.default_rng(seed)
    out: FloatArray = means + sds * rng.standard_normal((size, len(means)))
    return out


def mixed_logit_posterior(
    draws: FloatArray, d: FloatArray, y: FloatArray, d_new: FloatArray
) -> tuple[FloatArray, float]:
    """P(A) of ``d_new`` for one person: the population ``draws`` of β weighted by the
    likelihood of their choices (``d``, ``y``), the logit averaged over them; and the
    effective number of draws that carry it (1/Σw²)."""
    sign = 2 * y - 1
    log_w = log_expit(sign[:, None] * (d @ draws.T)).sum(axis=0)
    w = np.exp(log_w - log_w.max())
    w /= w.sum()
    out: FloatArray = expit(d_new @ draws.T) @ w
    return out, float(1.0 / np.sum(w**2))
