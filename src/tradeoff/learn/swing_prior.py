"""The prior of strategy `joint` over swing weights (weight × the statistic's span,
normalised; docs/architecture.md): a mixture of a flat Dirichlet, ``SPARSE_PRIOR_SHARE`` of
a Dirichlet(½) and, with ``precision = "natural"``, the prior that a flat Dirichlet over
natural-unit weights implies (:func:`swing_log_prior`, :func:`draw_swing_prior`); swing
weights as natural-unit weights (:func:`natural_weights`) and in the additive log-ratio
coordinates the particles move in (:func:`alr_columns`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from tradeoff.arrays import FloatArray

__all__ = [
    "SPARSE_PRIOR_SHARE",
    "alr_columns",
    "alr_inverse_columns",
    "draw_swing_prior",
    "log_sum",
    "natural_weights",
    "swing_log_prior",
]


#: Share of the swing-weight prior that is Dirichlet(½) (sparse truths: one aspect that
#: dominates keeps real prior mass). Measured with benchmarks/decision.py on the shipped
#: pool (40 people per family, exact answers and flips of 0.1): with 0 the picks within
#: the perceivable margin were 97.5% for truths where latency dominates (exact) and 95%
#: where the benign class does (flip 0.1); with 0.1, 97.5% and 97.5%; with 0.25 every
#: family reached 100% with exact answers and ≥ 97.5% with flips, at about one question
#: more (benchmarks/results/decision-families.md holds the full run).
SPARSE_PRIOR_SHARE = 0.25


def log_sum(s: FloatArray, axis: int = -1) -> FloatArray:
    """Σ log s_i of swing weights (rows; columns with ``axis=0``): the part of every
    Dirichlet density that depends on them (:func:`swing_log_prior` takes it once)."""
    with np.errstate(divide="ignore"):
        logs = np.log(s)
    out: FloatArray = logs.sum(axis=axis)
    return out


def _log_dirichlet(n: int, alpha: float, logs: FloatArray) -> FloatArray:
    """Log Dirichlet(α) density of n weights whose :func:`log_sum` is ``logs``."""
    out: FloatArray = math.lgamma(n * alpha) - n * math.lgamma(alpha) + (alpha - 1) * logs
    return out


def swing_log_prior(
    s: FloatArray,
    spans: Sequence[float],
    sparse: float,
    natural: float,
    axis: int = -1,
    logs: FloatArray | None = None,
) -> FloatArray:
    """Log density (on the simplex, w.r.t. the first n − 1 coordinates) of the prior
    over swing weights ``s`` (rows; columns with ``axis=0``): ``sparse`` × Dirichlet(½) +
    ``natural`` × the density that a flat Dirichlet over natural-unit weights a implies,
    (n − 1)!·Π(1/c_i)·(Σ s_j/c_j)^(−n) with c the spans (the Jacobian of a_i ∝ s_i/c_i),
    + the rest × a flat Dirichlet. ``logs``: the weights' :func:`log_sum`, when known.

    >>> s = np.array([[0.2, 0.3, 0.5]])
    >>> round(float(np.exp(swing_log_prior(s, [1.0, 1.0, 1.0], 0.0, 0.0))[0]), 6)
    2.0
    >>> round(float(np.exp(swing_log_prior(s, [1.0, 1.0, 1.0], 0.0, 1.0))[0]), 6)
    2.0
    >>> bool(swing_log_prior(s.T, [1.0, 2.0, 3.0], 0.3, 0.2, axis=0)[0]
    ...      == swing_log_prior(s, [1.0, 2.0, 3.0], 0.3, 0.2)[0])
    True
    """
    n = s.shape[axis]
    if logs is None:
        logs = log_sum(s, axis)
    if sparse == 0 and natural == 0:
        return _log_dirichlet(n, 1.0, logs)
    parts = []
    flat = 1.0 - sparse - natural
    if flat > 0:
        parts.append(math.log(flat) + _log_dirichlet(n, 1.0, logs))
    if sparse > 0:
        parts.append(math.log(sparse) + _log_dirichlet(n, 0.5, logs))
    if natural > 0:
        c = np.asarray(spans, dtype=np.float64)
        if axis == 0:
            c = c[:, None]
        log_nat = math.lgamma(n) - float(np.log(c).sum()) - n * np.log((s / c).sum(axis=axis))
        parts.append(math.log(natural) + log_nat)
    out: FloatArray = np.logaddexp.reduce(np.stack(parts), axis=0)
    return out


def draw_swing_prior(
    rng: np.random.Generator, size: int, spans: Sequence[float], sparse: float, natural: float
) -> FloatArray:
    """``size`` draws of the prior of :func:`swing_log_prior`."""
    n = len(spans)
    c = np.asarray(spans, dtype=np.float64)
    which = rng.choice(3, size=size, p=[1.0 - sparse - natural, sparse, natural])
    out = np.empty((size, n))
    for comp, alpha in ((0, 1.0), (1, 0.5), (2, 1.0)):
        rows = np.flatnonzero(which == comp)
        if rows.size == 0:
            continue
        draws = rng.dirichlet(np.full(n, alpha), size=rows.size)
        if comp == 2:  # flat over natural-unit weights, as swing weights
            draws = draws * c
            draws /= draws.sum(axis=1, keepdims=True)
        out[rows] = draws
    out = np.maximum(out, 1e-300)
    normed: FloatArray = out / out.sum(axis=1, keepdims=True)
    return normed


def natural_weights(swing: FloatArray, spans: Sequence[float], axis: int = -1) -> FloatArray:
    """Natural-unit weights (‖a‖₁ = 1) of swing weights (rows; columns with ``axis=0``):
    a_i ∝ s_i / span_i.

    >>> natural_weights(np.array([[0.5, 0.5]]), [1.0, 3.0]).tolist()
    [[0.75, 0.25]]
    >>> natural_weights(np.array([[0.5], [0.5]]), [1.0, 3.0], axis=0).tolist()
    [[0.75], [0.25]]
    """
    c = np.asarray(spans, dtype=np.float64)
    raw = swing / (c[:, None] if axis == 0 else c)
    out: FloatArray = raw / raw.sum(axis=axis, keepdims=True)
    return out


def alr_columns(s: FloatArray) -> FloatArray:
    """The additive log-ratio coordinates (log s_i − log s_n, i < n) of swing weights held
    as columns."""
    with np.errstate(divide="ignore"):
        logs = np.log(s)
    out: FloatArray = logs[:-1] - logs[-1:]
    return out


def alr_inverse_columns(z: FloatArray) -> FloatArray:
    """Swing weights (columns) from their additive log-ratio coordinates (columns): the
    inverse of :func:`alr_columns`."""
    full = np.concatenate((z, np.zeros((1, z.shape[1]))), axis=0)
    full = np.exp(full - full.max(axis=0))
    out: FloatArray = np.maximum(full / full.sum(axis=0), 1e-300)
    return out
