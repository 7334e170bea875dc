"""Plausible values of a pool's numbers near the trade-off curve its models trace.

The models of a pool are seldom unrelated: a threshold sweep, tuned variants and neighbours
on a front lie along one curve of what they trade, closer to it than their measured numbers
say, and the model that measured best is the one whose luck was best (the winner's curse).
Near a person's best, their true numbers differ by much less than the noise of a test set of
a few hundred cases, so P(best) is honest only when the posterior knows how close to one
curve they lie (``benchmarks/results/measurement-noise.md``).

:func:`front_posterior` fits an empirical-Bayes prior to the pool by marginal likelihood
(EM): each model's true numbers (its uncertain columns together, d of them) are a point
c(t) on a curve plus a scatter e across it, e ~ N(0, B·Σ⊥·Bᵀ), the curve running along
the first principal axis a of the measured points, c(t) = μ + t·a + B·(β₀ + β₁·t + β₂·t²)
with B the other principal axes (a quadratic bend in each), and t uniform on a stretch of
a grid of :data:`POINTS` positions spanning the measured points' projections and 3
standard deviations beyond (no place along the front favoured: a prior share fitted at
each point, a Kiefer–Wolfowitz estimate, gathers the models on a few points and overstates
P(best)); the stretch's ends, like the rest, by marginal likelihood (:func:`_extent`). The
measured point is the true one plus the noise N(0, Sᵢ) (Sᵢ diagonal: each column's standard
deviation, :meth:`~tradeoff.pool.uncertainty.Uncertainty.spread`, a recall's Beta centred
like the Jeffreys posterior). :data:`STEPS` steps fit Σ⊥ (EM) and the β (the weighted
least squares of the measured points about the curve given the grid weights, a conditional
maximisation); the posterior of model i is then exactly the mixture over the grid: weight
∝ N(x̂ᵢ; c(tₖ), Σ + Sᵢ), component N(c(tₖ) + Σ(Σ + Sᵢ)⁻¹(x̂ᵢ − c(tₖ)), Σ − Σ(Σ + Sᵢ)⁻¹Σ).
A pool whose models lie far from one curve gets a wide Σ⊥ and keeps every model near its
own numbers; models on one curve, within the noise of one another, are drawn near it, at
places along it as uncertain as their measurement. :func:`front_sample` does not plug the
fitted bend in: it draws :data:`CURVES` bends from N(β̂, I⁻¹) (I the observed information
of the marginal likelihood, by Louis's formula) and each table from the models' mixture
under one of them, so that a true point's distance from the fitted curve is within its
posterior's spread (plugged in, the true recalls of simulated pools lay 1.75 posterior
standard deviations across the curve from the posterior mean, root mean square; drawn,
1.0). Nor does it take each measurement's standard deviation at its measured value: a
recall measured high by luck has a narrower Beta than its true value would give (99 of 100
cases: 0.012 against 0.020 for a true 0.96), so the luckiest model, the one most often
picked, was trusted most. The curve is fitted once with them, then again with each
standard deviation taken at the model's fitted numbers (its posterior mean,
:func:`_spread_at_fit`), as a binomial model's variance is taken at its fitted mean (on
2,000 simulated people at 100 cases a class, the picks stated 50–80 % sure were right for
43.5 % before, 59.0 % after; ``benchmarks/results/measurement-noise.md``). Nor does it plug
in the fitted scatter Σ̂, an estimate that comes out small when the measurements are
noisier than the models' spread about the curve: each bend is drawn with a scatter whose
size comes from its own posterior (:func:`_scatter_sizes`; at 1,000 cases a class, the
picks stated 80–95 % sure were right for 72 % with Σ̂ plugged in). Pools this does
not fit (one uncertain
column, exact values mixed with noisy ones in a column, more than :data:`WIDEST` uncertain
columns, fewer than :data:`FEWEST_ON_CURVE` or more than
:data:`~tradeoff.pool.pooled.MOST` models) are left to
:func:`tradeoff.pool.pooled.pooled_sample`.

Every uniform number comes from one seeded generator, turned into a value by an inverse CDF
(ndtri) and a fixed linear map, so the same seed gives the same draws on every machine but
for the last bits (no branch hinges on a float but the inverse CDF's choice of a grid point).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tradeoff.arrays import FloatArray, IntArray
from tradeoff.pool.pooled import FEWEST, MOST, pooled_sample
from tradeoff.pool.uncertainty import Uncertainty

#: Grid positions along the curve.
POINTS = 200
#: The stretch along the curve is chosen with ends every this many grid points.
STRIDE = 5
#: EM steps.
STEPS = 300
#: Fewer models than this (the curve's 3 numbers per column across it and its scatter
#: would be fitted to too few points): :func:`~tradeoff.pool.pooled.pooled_sample`.
FEWEST_ON_CURVE = 8
#: More uncertain columns than this: :func:`~tradeoff.pool.pooled.pooled_sample`.
WIDEST = 8
#: The bend across the curve is a polynomial of this degree in the place t along it.
DEGREE = 2
#: Draws of the curve's bend from its posterior (:func:`front_sample`).
CURVES = 100
#: The scatter's size is drawn, with each bend, from its posterior on this many sizes
#: (:func:`_scatter_sizes`) ...
SIZES = 16
#: ... evenly spaced from 0 to this many times the larger of the measurements' standard
#: deviation and the fitted scatter's (root mean square over the columns).
REACH = 3.0
#: The bend's observed information is kept at least this share of its complete-data one
#: in every direction (:func:`_observed_inverse`).
KEPT = 0.05
#: Uniform numbers are kept this far from 0 and 1.
_EDGE = 1e-12


@dataclass(frozen=True)
class FrontPosterior:
    """Each model's posterior over its true numbers: the weight of each grid point
    (models × points, rows summing to 1), the component means there (models × points ×
    columns) and the component covariance (models × columns × columns), with the fitted
    scatter ``scatter`` (Σ), the curve's grid points ``curve`` (points × columns) and their
    prior shares ``prior``, and the marginal log-likelihood ``loglik`` of the measured
    points; then what draws the curve again: where it runs (``geometry``), its fitted bend
    ``beta`` ((DEGREE + 1) × (columns - 1)), its covariance ``beta_cov`` (the inverse of
    the marginal likelihood's observed information, :func:`_missing_information`), and the
    log prior shares ``log_prior``."""

    weights: FloatArray
    means: FloatArray
    cov: FloatArray
    scatter: FloatArray
    curve: FloatArray
    prior: FloatArray
    loglik: float
    geometry: _Geometry
    beta: FloatArray
    beta_cov: FloatArray
    log_prior: FloatArray


def front_posterior(x: FloatArray, s: FloatArray, steps: int = STEPS) -> FrontPosterior:
    """The empirical-Bayes posterior of the module docstring for measured points ``x`` with
    standard deviations ``s`` (models × columns, every ``s`` > 0, at least two columns).

    >>> t = np.linspace(0.0, 1.0, 12)
    >>> truth = np.column_stack((t, 1.0 - t**2))  # twelve models on one curve
    >>> noise = np.random.default_rng(0).normal(0.0, 0.05, truth.shape)
    >>> post = front_posterior(truth + noise, np.full(truth.shape, 0.05))
    >>> bool(np.sqrt(np.linalg.eigvalsh(post.scatter).max()) < 0.05)  # within the noise
    True
    >>> bool(np.allclose(post.weights.sum(axis=1), 1.0))
    True
    """
    n, d = x.shape
    mu = x.mean(axis=0)
    centred = x - mu
    _, axes = np.linalg.eigh(centred.T @ centred / n)
    a, across = axes[:, -1], axes[:, :-1]
    proj = centred @ a
    reach = 3.0 * float(np.max(np.sqrt((s**2) @ (a**2))))
    t = np.linspace(float(proj.min()) - reach, float(proj.max()) + reach, POINTS)
    geometry = _Geometry(mu, a, across, t)
    beta = np.zeros((DEGREE + 1, d - 1))
    noise = _noise(s)
    scatter = across @ (across.T @ np.diag(np.mean(s**2, axis=0)) @ across) @ across.T
    log_pi = np.full(POINTS, -np.log(POINTS))
    for step in range(steps + 1):
        ll, inv = _loglik(x, noise, geometry, beta, scatter)
        if step == steps:
            log_pi = _extent(ll)
        weights, means, cov, total = _mixture(ll + log_pi[None], inv, geometry, beta, scatter, x)
        lhs, rhs = _bend_equations(x, inv, geometry, weights)
        if step == steps:
            info = lhs + 1e-12 * np.trace(lhs) / lhs.shape[0] * np.eye(lhs.shape[0])
            missing = _missing_information(x, inv, geometry, weights, beta)
            curve = geometry.curve(beta)
            return FrontPosterior(
                weights,
                means,
                cov,
                scatter,
                curve,
                np.exp(log_pi),
                float(total.sum()),
                geometry,
                beta,
                _observed_inverse(info, missing),
                log_pi,
            )
        off = means - geometry.curve(beta)[None]
        full = (np.einsum("nk,nki,nkj->ij", weights, off, off) + cov.sum(axis=0)) / n
        # The scatter lies across the curve only (along it, t moves the point).
        scatter = across @ (across.T @ full @ across) @ across.T
        scatter = (scatter + scatter.T) / 2.0
        # The bend: weighted least squares of the measured points about the curve, each
        # grid point by its posterior weight and each model by (Σ + Sᵢ)⁻¹ (a conditional
        # maximisation of the marginal likelihood given the weights, so that the curve
        # follows the points even when Σ is small).
        size = lhs.shape[0]
        ridge = 1e-12 * np.trace(lhs) / size * np.eye(size)
        beta = np.linalg.solve(lhs + ridge, rhs).reshape(DEGREE + 1, d - 1)
    raise AssertionError("unreachable")  # pragma: no cover


def _basis(t: FloatArray) -> FloatArray:
    """1, t, …, t^DEGREE at each place ``t`` (places × (DEGREE + 1))."""
    out: FloatArray = t[:, None] ** np.arange(DEGREE + 1)[None]
    return out


@dataclass(frozen=True)
class _Geometry:
    """Where the curve runs: the measured points' mean ``mu``, their first principal axis
    ``axis``, the other axes ``across`` (columns) and the grid ``t`` along ``axis``."""

    mu: FloatArray
    axis: FloatArray
    across: FloatArray
    t: FloatArray

    def curve(self, beta: FloatArray) -> FloatArray:
        """The grid points c(tₖ) of the curve bent by ``beta`` (3 × (d-1)): points × d."""
        basis = _basis(self.t)
        out: FloatArray = (
            self.mu + self.t[:, None] * self.axis[None] + (basis @ beta) @ self.across.T
        )
        return out


def _loglik(
    x: FloatArray, noise: FloatArray, geometry: _Geometry, beta: FloatArray, scatter: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """log N(x̂ᵢ; c(tₖ), Σ + Sᵢ) (models × points) and the (Σ + Sᵢ)⁻¹."""
    d = x.shape[1]
    inv = np.asarray(np.linalg.inv(scatter[None] + noise), dtype=np.float64)
    _, logdet = np.linalg.slogdet(scatter[None] + noise)
    diff = x[:, None, :] - geometry.curve(beta)[None]
    sol = np.einsum("nij,nkj->nki", inv, diff)
    ll: FloatArray = -0.5 * (
        np.einsum("nki,nki->nk", diff, sol) + logdet[:, None] + d * np.log(2 * np.pi)
    )
    return ll, inv


def _row_totals(ll: FloatArray) -> FloatArray:
    """log Σⱼ exp(llᵢⱼ) of each row (models × points): log p(x̂ᵢ) of a log joint."""
    top = ll.max(axis=1, keepdims=True)
    out: FloatArray = top[:, 0] + np.log(np.exp(ll - top).sum(axis=1))
    return out


def _mixture(
    ll: FloatArray,
    inv: FloatArray,
    geometry: _Geometry,
    beta: FloatArray,
    scatter: FloatArray,
    x: FloatArray,
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """Each model's mixture over the grid given the log joint ``ll`` (models × points):
    the weights, the component means and covariance, and log p(x̂ᵢ) per model."""
    curve = geometry.curve(beta)
    total = _row_totals(ll)
    weights = np.exp(ll - total[:, None])
    sol = np.einsum("nij,nkj->nki", inv, x[:, None, :] - curve[None])
    means = curve[None] + np.einsum("ij,nkj->nki", scatter, sol)
    cov = scatter[None] - np.einsum("ij,njk,kl->nil", scatter, inv, scatter)
    cov = (cov + np.transpose(cov, (0, 2, 1))) / 2.0
    return weights, means, cov, total


def _bend_equations(
    x: FloatArray, inv: FloatArray, geometry: _Geometry, weights: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """The normal equations of the bend β given the grid weights: the information matrix
    (3(d-1) square) and the right-hand side."""
    d = x.shape[1]
    t, across = geometry.t, geometry.across
    basis = _basis(t)
    across_inv = np.einsum("ji,njk,kl->nil", across, inv, across)  # n × (d-1) × (d-1)
    lead = x[:, None, :] - geometry.mu - t[None, :, None] * geometry.axis  # n × points × d
    z = np.einsum("ji,njk,nmk->nmi", across, inv, lead)  # n × points × (d-1)
    lhs = np.einsum("nm,mp,njl,mq->pjql", weights, basis, across_inv, basis)
    rhs = np.einsum("nm,mp,nmj->pj", weights, basis, z)
    size = (DEGREE + 1) * (d - 1)
    return lhs.reshape(size, size), rhs.reshape(size)


def _missing_information(
    x: FloatArray, inv: FloatArray, geometry: _Geometry, weights: FloatArray, beta: FloatArray
) -> FloatArray:
    """What not knowing each model's place on the grid takes from the bend's information
    (Louis, 1982): Σᵢ Covₖ[sᵢₖ] over the grid weights, sᵢₖ the complete-data score of the
    bend, basis(tₖ) ⊗ Bᵀ(Σ + Sᵢ)⁻¹(x̂ᵢ − c(tₖ))."""
    t, across = geometry.t, geometry.across
    basis = _basis(t)
    across_inv = np.einsum("ji,njk,kl->nil", across, inv, across)
    lead = x[:, None, :] - geometry.mu - t[None, :, None] * geometry.axis
    z = np.einsum("ji,njk,nmk->nmi", across, inv, lead)
    resid = z - np.einsum("nij,mj->nmi", across_inv, basis @ beta)  # n × points × (d-1)
    score = (basis[None, :, :, None] * resid[:, :, None, :]).reshape(len(x), len(t), -1)
    mean = np.einsum("nm,nmp->np", weights, score)
    second = np.einsum("nm,nmp,nmq->pq", weights, score, score)
    out: FloatArray = second - mean.T @ mean
    return out


def _observed_inverse(complete: FloatArray, missing: FloatArray) -> FloatArray:
    """The inverse of the observed information, complete − missing (Louis), its
    eigenvalues relative to the complete-data information kept at least :data:`KEPT`
    (a continuous floor, no branch: the bend's variance at most 1/KEPT times what the
    complete data would give)."""
    root = np.linalg.cholesky(complete)
    left = np.linalg.inv(root)
    rel = np.eye(len(complete)) - left @ missing @ left.T
    values, vectors = np.linalg.eigh((rel + rel.T) / 2.0)
    inner = (vectors / np.maximum(values, KEPT)) @ vectors.T
    out: FloatArray = left.T @ inner @ left
    return (out + out.T) / 2.0


def _extent(ll: FloatArray) -> FloatArray:
    """The log prior shares along the grid: uniform on the stretch [tₗ, tₕ] (ends every
    :data:`STRIDE` points) of highest marginal likelihood given the likelihoods ``ll``
    (models × points), likelihoods compared to 9 digits (the same on every machine)."""
    top = ll.max(axis=1, keepdims=True)
    lik = np.exp(ll - top)
    prefix = np.concatenate((np.zeros((len(ll), 1)), np.cumsum(lik, axis=1)), axis=1)
    ends = np.arange(0, POINTS + 1, STRIDE)
    ends[-1] = POINTS
    best: tuple[float, int, int] | None = None
    for i, lo in enumerate(ends[:-1]):
        for hi in ends[i + 1 :]:
            mass = (prefix[:, hi] - prefix[:, lo]) / (hi - lo)
            with np.errstate(divide="ignore"):
                value = round(float(np.sum(np.log(mass))), 9)
            if best is None or value > best[0]:
                best = (value, int(lo), int(hi))
    assert best is not None
    out = np.full(POINTS, -np.inf)
    out[best[1] : best[2]] = -np.log(best[2] - best[1])
    return out


def front_sample(
    u: Uncertainty,
    values: FloatArray,
    count: int,
    seed: int,
    curves: int = CURVES,
    refit: bool = True,
    scatter: bool = True,
) -> FloatArray:
    """``count`` plausible tables of ``values`` (count × models × objectives) from the
    posterior of :func:`front_posterior` (module docstring); exact values as they are,
    drawn values kept within their columns' bounds. ``curves`` > 0: the curve's bend is
    drawn that many times from its posterior (:func:`_curve_draws`), table j from the
    models' mixture under bend j mod ``curves``; 0: the fitted bend plugged in (what a
    session header with ``prior = "front"`` drew). ``refit``: the curve fitted again with
    each measurement's standard deviation taken at the model's fitted numbers
    (:func:`_spread_at_fit`); without, at its measured ones (what a header with ``prior =
    "curves"`` drew). ``scatter`` (with ``curves``): the scatter's size drawn with each
    bend from its posterior (:func:`_scatter_sizes`); without, the fitted scatter plugged
    in (what a header with ``prior = "fitted"`` drew).

    >>> u = Uncertainty(np.zeros((10, 2)), np.full((10, 2), 200.0), np.zeros(2),
    ...                 np.ones(2), ("a_cases", "b_cases"))
    >>> t = np.linspace(0.2, 1.3, 10)
    >>> values = 0.7 + 0.28 * np.column_stack((np.sin(t), np.cos(t)))
    >>> draws = front_sample(u, values, 2000, seed=1)
    >>> bool(((draws >= 0) & (draws <= 1)).all()), draws.shape
    (True, (2000, 10, 2))
    """
    values = np.asarray(values, dtype=np.float64)
    n = len(values)
    sd = u.spread(values)
    cols = np.flatnonzero((sd > 0).any(axis=0))
    s = sd[:, cols]
    if (
        not (2 <= cols.size <= WIDEST and max(FEWEST, FEWEST_ON_CURVE) <= n <= MOST)
        or not (s > 0).all()
    ):
        return pooled_sample(u, values, count, seed)
    x = values[:, cols]
    n_cases = u.cases[:, cols]
    beta = (n_cases > 0) & (u.se[:, cols] <= s)
    centre = np.where(beta, (np.clip(x, 0.0, 1.0) * n_cases + 0.5) / (n_cases + 1.0), x)
    post = front_posterior(centre, s)
    if refit:
        s = np.where(beta, _spread_at_fit(u, values, cols, post), s)
        post = front_posterior(centre, s)
    rng = np.random.default_rng([seed, 3])
    uniform = np.clip(rng.random((count, n, 1 + cols.size)), _EDGE, 1.0 - _EDGE)
    if curves:
        drawn = np.empty((count, n, cols.size))
        bends = _curve_draws(post, curves, rng)
        scatters = _scatter_draws(post, centre, s, curves, rng) if scatter else None
        for k, posterior in enumerate(_bent(post, centre, s, bends, scatters)):
            drawn[k::curves] = _draw(posterior, uniform[k::curves])
    else:
        drawn = _draw(post, uniform)
    out = np.broadcast_to(values, (count, *values.shape)).copy()
    out[:, :, cols] = np.clip(drawn, u.low[cols], u.high[cols])
    result: FloatArray = out
    return result


def _spread_at_fit(
    u: Uncertainty, values: FloatArray, cols: IntArray, post: FrontPosterior
) -> FloatArray:
    """The standard deviation of each measurement in ``cols`` taken at the model's fitted
    numbers (its posterior mean under ``post``, within [0, 1]):
    :meth:`~tradeoff.pool.uncertainty.Uncertainty.spread` there (the caller keeps a standard
    error wider than the Beta's as given).

    A recall measured at 99 of 100 cases on a curve whose models lie near 0.96 is as
    uncertain as one at 0.96, not as one at 0.99:

    >>> u = Uncertainty(np.zeros((1, 1)), np.full((1, 1), 100.0), np.zeros(1), np.ones(1),
    ...                 ("r_cases",))
    >>> post = FrontPosterior(np.ones((1, 1)), np.full((1, 1, 1), 0.96), *[None] * 9)
    >>> at = _spread_at_fit(u, np.array([[0.99]]), np.array([0]), post)
    >>> round(float(u.spread(np.array([[0.99]]))[0, 0]), 3), round(float(at[0, 0]), 3)
    (0.012, 0.02)
    """
    fitted = np.einsum("nk,nkd->nd", post.weights, post.means)
    at = np.array(values, dtype=np.float64, copy=True)
    at[:, cols] = np.clip(fitted, 0.0, 1.0)
    out: FloatArray = u.spread(at)[:, cols]
    return out


def _draw(post: FrontPosterior, uniform: FloatArray) -> FloatArray:
    """Draws of every model's true numbers from ``post``, one per row of ``uniform``
    (rows × models × (1 + columns): the grid point's, then the normal's)."""
    from scipy.special import ndtri

    count, n = uniform.shape[:2]
    d = post.cov.shape[1]
    cum = np.cumsum(post.weights, axis=1)
    cum /= cum[:, -1:]
    point = np.empty((count, n), dtype=np.intp)
    for i in range(n):
        point[:, i] = np.minimum(np.searchsorted(cum[i], uniform[:, i, 0]), POINTS - 1)
    # A relative jitter keeps the Cholesky factor (unique, so the same on every machine)
    # defined where the covariance is singular to the last bits.
    size = np.trace(post.cov, axis1=1, axis2=2)[:, None, None] / d
    root = np.linalg.cholesky(post.cov + (1e-12 * size + 1e-300) * np.eye(d)[None])
    rows = np.arange(n)[None, :]
    out: FloatArray = post.means[rows, point] + np.einsum(
        "nij,snj->sni", root, ndtri(uniform[:, :, 1:])
    )
    return out


def _curve_draws(post: FrontPosterior, curves: int, rng: np.random.Generator) -> FloatArray:
    """``curves`` bends (curves × (DEGREE + 1) × (d-1)) from N(β̂, I⁻¹), the fitted bend
    and the inverse of its observed information (the curve's uncertainty, which
    plugging in β̂ leaves out: with 10–30 models measured on a few hundred cases its
    standard error across the curve is several times the fitted scatter), from uniform
    numbers of ``rng`` through ndtri and the Cholesky factor."""
    from scipy.special import ndtri

    size = post.beta.size
    uniform = np.clip(rng.random((curves, size)), _EDGE, 1.0 - _EDGE)
    cov = (post.beta_cov + post.beta_cov.T) / 2.0
    scale = float(np.trace(cov)) / size
    root = np.linalg.cholesky(cov + (1e-12 * scale + 1e-300) * np.eye(size))
    out: FloatArray = post.beta.reshape(-1)[None] + ndtri(uniform) @ root.T
    return out.reshape(curves, *post.beta.shape)


def _noise(s: FloatArray) -> FloatArray:
    """Each model's measurement covariance Sᵢ: the standard deviations ``s`` (models ×
    columns) on the diagonal."""
    n, d = s.shape
    noise = np.zeros((n, d, d))
    noise[:, np.arange(d), np.arange(d)] = s**2
    return noise


def _scatter_sizes(
    post: FrontPosterior, x: FloatArray, s: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """The scatter across the curve at :data:`SIZES` sizes, and the posterior weight of
    each (sizes × columns × columns, sizes).

    The EM's scatter Σ̂ is a point estimate, and a small one when the measurements are
    noisier than the models' spread about the curve: with 10–30 models, the data cannot
    tell a scatter of nothing from one of a third of the noise, and plugged in, Σ̂ draws
    the models onto the curve more tightly than they lie (at 1,000 cases a class, picks
    stated 80–95 % sure were right for 72 %, for 82 % with the size drawn;
    ``benchmarks/results/measurement-noise.md``).
    So the scatter keeps Σ̂'s shape across the curve (with a twentieth of the noise's
    variance added, so that a Σ̂ of nothing still has one) and takes its size σ (the
    root mean square standard deviation across) from a uniform prior on [0, :data:`REACH`
    × max(noise, σ̂)] (a flat prior on a scatter's standard deviation, as for a
    hierarchical model with few groups; Gelman 2006) at :data:`SIZES` evenly spaced
    points, each weighted by its marginal likelihood at the fitted bend and prior shares.

    >>> t = np.linspace(0.0, 1.0, 12)
    >>> x = np.column_stack((t, 1.0 - t**2))  # on one curve, measured with noise 0.05
    >>> s = np.full(x.shape, 0.05)
    >>> sizes, weights = _scatter_sizes(front_posterior(x, s), x, s)
    >>> sizes.shape, bool(np.isclose(weights.sum(), 1.0)), bool(weights[0] > weights[-1])
    ((16, 2, 2), True, True)
    """
    d = x.shape[1]
    across = post.geometry.across
    noise_var = float(np.mean(s**2))
    shape = post.scatter + 0.05 * noise_var * (across @ across.T)
    shape = shape / (np.trace(shape) / (d - 1))  # unit variance across, on average
    fitted = float(np.trace(post.scatter)) / (d - 1)
    top = REACH * np.sqrt(max(noise_var, fitted))
    sigma = np.linspace(0.0, top, SIZES)
    sizes: FloatArray = sigma[:, None, None] ** 2 * shape[None]
    noise = _noise(s)
    loglik = np.empty(SIZES)
    for k in range(SIZES):
        ll, _ = _loglik(x, noise, post.geometry, post.beta, sizes[k])
        loglik[k] = float(np.sum(_row_totals(ll + post.log_prior[None])))
    weights = np.exp(loglik - loglik.max())
    return sizes, weights / weights.sum()


def _scatter_draws(
    post: FrontPosterior, x: FloatArray, s: FloatArray, curves: int, rng: np.random.Generator
) -> FloatArray:
    """``curves`` scatters (curves × columns × columns) from :func:`_scatter_sizes`'s
    posterior, each by one uniform number of ``rng`` (the inverse CDF on the sizes)."""
    sizes, weights = _scatter_sizes(post, x, s)
    cum = np.cumsum(weights)
    uniform = np.clip(rng.random(curves), _EDGE, 1.0 - _EDGE)
    picked = np.minimum(np.searchsorted(cum / cum[-1], uniform), SIZES - 1)
    out: FloatArray = sizes[picked]
    return out


def _bent(
    post: FrontPosterior,
    x: FloatArray,
    s: FloatArray,
    bends: FloatArray,
    scatters: FloatArray | None = None,
) -> list[FrontPosterior]:
    """The models' posterior under each of ``bends`` (with the scatter of the same row of
    ``scatters``, else the fitted one), the prior shares kept (points ``x`` with standard
    deviations ``s``, as fitted)."""
    noise = _noise(s)
    out = []
    for k, beta in enumerate(bends):
        scatter = post.scatter if scatters is None else scatters[k]
        ll, inv = _loglik(x, noise, post.geometry, beta, scatter)
        weights, means, cov, total = _mixture(
            ll + post.log_prior[None], inv, post.geometry, beta, scatter, x
        )
        out.append(
            FrontPosterior(
                weights,
                means,
                cov,
                scatter,
                post.geometry.curve(beta),
                post.prior,
                float(total.sum()),
                post.geometry,
                beta,
                post.beta_cov,
                post.log_prior,
            )
        )
    return out
