"""Plausible values of a pool's numbers that borrow strength across its models.

:meth:`tradeoff.pool.uncertainty.Uncertainty.sample` judges each model's numbers on their
own: the recall r measured on n cases has the Jeffreys posterior, centred on r. A pool's
models are seldom unrelated, though: tuned variants, neighbours on a front and near copies
lie closer together than their measured numbers say, and the model that measured best is
the one whose luck was best (the winner's curse). Each number judged alone then makes
P(best) too sure in the middle (``benchmarks/results/measurement-noise.md``).

:func:`pooled_sample` draws instead from an empirical-Bayes posterior (Efron's
g-modelling; Koenker & Mizera's Kiefer–Wolfowitz estimate with its support at the
observations): the true numbers of a model (its uncertain columns together) are a priori
one of the *other* models' measured numbers, blurred by a Gaussian of width h per column,
with shares π estimated by EM from all the models' measurements (each model's own point
left out of its prior, so that no model explains itself), beside a flat part (a model
unlike any other: then its numbers are judged on their own, as before), and h chosen among
:data:`WIDTHS` (multiples of the columns' median standard deviation) by that leave-one-out
likelihood. Model i's posterior is then the mixture over the other models j of
N((h²·x̂ᵢ + sᵢ²·x̂ⱼ)/(h² + sᵢ²), h²·sᵢ²/(h² + sᵢ²)), each weighted by πⱼ times the
likelihood of x̂ᵢ under it. A pool spread far beyond its noise keeps every model at its own
numbers (a wide h wins); models within the noise of one another share their draws. A
recall (a column with cases) is drawn from the Beta of that mean and variance, so it never
leaves [0, 1]; a value with only a standard error from the normal, kept within its bounds.

Every uniform number comes from one seeded generator, turned into a value by an inverse
CDF, so the same seed gives the same draws on every machine but for the last bits.
"""

from __future__ import annotations

import numpy as np

from tradeoff.arrays import FloatArray
from tradeoff.pool.uncertainty import Uncertainty

#: The widths h tried, as multiples of each column's median standard deviation.
WIDTHS = (0.25, 0.5, 1.0, 2.0, 4.0)
#: EM steps for the shares π.
STEPS = 200
#: Fewer models than this, or more than :data:`MOST`, are judged each on their own.
FEWEST = 3
MOST = 1000
#: Uniform numbers are kept this far from 0 and 1.
_EDGE = 1e-12


def _logsumexp(a: FloatArray, axis: int) -> FloatArray:
    top = np.max(a, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        out: FloatArray = np.log(np.sum(np.exp(a - top), axis=axis, keepdims=True)) + top
    return np.squeeze(out, axis=axis)


def pooled_posterior(x: FloatArray, s: FloatArray) -> tuple[FloatArray, FloatArray]:
    """(each model's posterior weight on every other model's point and, last, on the flat
    part (models × (models + 1), rows summing to 1), the width h per column) for measured
    points ``x`` with standard deviations ``s`` (models × columns; 0: exact, that column
    left out of the model's likelihood).

    >>> x = np.array([[0.90], [0.91], [0.905], [0.50]])
    >>> post, h = pooled_posterior(x, np.full((4, 1), 0.02))
    >>> post[:3, :3].sum(axis=1).round(1).tolist(), float(post[3, 4].round(2))
    ([0.9, 0.9, 0.9], 1.0)
    """
    n, d = x.shape
    known = s > 0
    med = np.array(
        [float(np.median(s[known[:, c], c])) if known[:, c].any() else 0.0 for c in range(d)]
    )
    diff2 = (x[:, None, :] - x[None, :, :]) ** 2
    # The flat part: a density uniform over the span of the measured points and 3 median
    # standard deviations beyond, in each column a model's likelihood counts.
    span = x.max(axis=0) - x.min(axis=0) + 6.0 * med
    flat = -np.where(known, np.log(np.maximum(span, 1e-300)), 0.0).sum(axis=1)
    best: tuple[float, FloatArray, FloatArray] | None = None
    for factor in WIDTHS:
        h = factor * med
        var = np.maximum(s[:, None, :] ** 2 + h**2, 1e-300)
        terms = np.where(known[:, None, :], diff2 / var + np.log(2 * np.pi * var), 0.0)
        logk = -0.5 * terms.sum(axis=2)
        np.fill_diagonal(logk, -np.inf)
        logk = np.column_stack((logk, flat))
        log_pi = np.full(n + 1, -np.log(n + 1))
        post = np.zeros((n, n))
        for _ in range(STEPS):
            lp = logk + log_pi
            post = np.exp(lp - _logsumexp(lp, axis=1)[:, None])
            log_pi = np.log(post.mean(axis=0) + 1e-300)
        likelihood = float(_logsumexp(logk + log_pi, axis=1).sum())
        # Widths compared to 9 digits: the same on every machine but for a near tie.
        if best is None or round(likelihood, 9) > round(best[0], 9):
            best = (likelihood, post, h)
    assert best is not None
    return best[1], best[2]


def pooled_sample(u: Uncertainty, values: FloatArray, count: int, seed: int) -> FloatArray:
    """``count`` plausible tables of ``values`` (count × models × objectives) from the
    pooled posterior (module docstring); exact values as they are. Fewer than
    :data:`FEWEST` or more than :data:`MOST` models: :meth:`Uncertainty.sample`.

    >>> u = Uncertainty(np.zeros((4, 1)), np.full((4, 1), 300.0), np.array([0.0]),
    ...                 np.array([1.0]), ("recall_cases",))
    >>> values = np.array([[0.90], [0.905], [0.91], [0.60]])
    >>> draws = pooled_sample(u, values, 4000, seed=1)
    >>> bool(((draws >= 0) & (draws <= 1)).all()), round(float(draws[:, 3, 0].mean()), 2)
    (True, 0.6)
    >>> spread = draws[:, :3, 0].mean(axis=0)  # the three close ones drawn together
    >>> bool(spread.max() - spread.min() < 0.01)
    True
    """
    from scipy.special import betaincinv, ndtri

    values = np.asarray(values, dtype=np.float64)
    n = len(values)
    sd = u.spread(values)
    cols = np.flatnonzero((sd > 0).any(axis=0))
    if cols.size == 0 or not FEWEST <= n <= MOST:
        return u.sample(values, count, seed)
    x, s = values[:, cols], sd[:, cols]
    known = s > 0
    beta = (u.cases[:, cols] > 0) & (u.se[:, cols] <= s)
    n_cases = u.cases[:, cols]
    centre = np.where(beta, (np.clip(x, 0.0, 1.0) * n_cases + 0.5) / (n_cases + 1.0), x)
    post, h = pooled_posterior(centre, s)
    alone = u.sample(values, count, seed)  # the flat part: each model on its own
    rng = np.random.default_rng([seed, 1])
    uniform = np.clip(rng.random((count, n, 1 + cols.size)), _EDGE, 1.0 - _EDGE)
    cum = np.cumsum(post, axis=1)
    cum /= cum[:, -1:]
    atom = np.empty((count, n), dtype=np.intp)
    for i in range(n):
        atom[:, i] = np.minimum(np.searchsorted(cum[i], uniform[:, i, 0]), n)
    h2, s2 = h**2, s**2
    a = centre[np.minimum(atom, n - 1)]  # count × models × columns
    mean = (h2 * centre[None] + s2[None] * a) / np.maximum(h2 + s2, 1e-300)[None]
    var = h2 * s2 / np.maximum(h2 + s2, 1e-300)
    z = uniform[:, :, 1:]
    drawn = mean + np.sqrt(var)[None] * ndtri(z)
    if beta.any():
        # A recall from the Beta of that mean and variance (within [0, 1]).
        m = np.clip(mean, 1e-9, 1.0 - 1e-9)
        v = np.minimum(np.broadcast_to(var, m.shape), m * (1.0 - m) * (1.0 - 1e-9))
        k = np.maximum(m * (1.0 - m) / np.maximum(v, 1e-300) - 1.0, 1e-9)
        from_beta = betaincinv(m * k, (1.0 - m) * k, z)
        drawn = np.where(beta[None], from_beta, drawn)
    drawn = np.clip(drawn, u.low[cols], u.high[cols])
    out = np.broadcast_to(values, (count, *values.shape)).copy()
    out[:, :, cols] = np.where(known[None], drawn, x[None])
    out = np.where((atom == n)[:, :, None], alone, out)
    result: FloatArray = out
    return result
