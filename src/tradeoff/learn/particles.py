"""The posterior of strategy `joint`: weighted particles over the whole weight vector.

One posterior over all swing weights at once (not one per ratio against class 1, as
:mod:`~tradeoff.learn.probabilistic` keeps), as weighted particles, that learns from any
question through one likelihood (:mod:`~tradeoff.learn.likelihood`: every answer is about
Δ = ψ(left) − ψ(right), each particle carries one cell of the noise grid);
:mod:`~tradeoff.learn.joint` chooses the questions.

* **Prior.** Particles are swing weights s on the simplex (weight × the statistic's span,
  normalised; docs/architecture.md), drawn from a mixture: ``SPARSE_PRIOR_SHARE`` of a
  Dirichlet(½) (truths that put nearly all weight on one or two aspects), with
  ``precision = "natural"`` :data:`~tradeoff.learn.posterior.NATURAL_PRIOR_SHARE` of the
  prior that a flat Dirichlet over natural-unit weights implies (:func:`swing_log_prior`),
  the rest a flat Dirichlet over swing weights.
* **Particles.** ``PARTICLES`` weighted particles (s, ε, T, δ). An answer multiplies each
  weight by its likelihood; when the effective sample size falls below ``ESS_FLOOR`` of
  the particles they are resampled (systematic) and moved (the sweeps of
  Metropolis–Hastings of ``MOVE_SWEEPS``, each a Gaussian random walk in the additive
  log-ratio coordinates of s with the particles' covariance, then a new value for one of
  ε, T, δ), every move accepted by the likelihood of *all* answers so far, so the
  particles are a sample of the posterior again (resample-move; Gilks & Berzuini 2001).
  A brute-force test compares P(best) and the 90% intervals with numerical integration on
  a fine simplex grid.
* **Determinism.** The random numbers of each step come from (seed, a digest of every
  answer so far: both options as shown and the choice), so a replay reaches the identical
  particles, and undo is the previous immutable state.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from tradeoff.ask.queries import Query, profile_key
from tradeoff.ask.shown import ShownKey
from tradeoff.learn.base import Choice
from tradeoff.learn.likelihood import NOISE_PRIOR, NoiseGrid, answer_log_likelihoods
from tradeoff.stable import stable_argmax, stable_argmax_rows

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.intp]

#: Particles of the posterior.
PARTICLES = 2000
#: Resample and move when the effective sample size falls below this share of particles.
ESS_FLOOR = 0.5
#: The sweeps of one resample-move: Metropolis–Hastings sweeps, each a move of the weights
#: (a random walk whose step is this multiple of 2.38/√d times the particles' covariance)
#: and then of the noise parameters. Fewer do not mix: against numerical integration
#: (tests/learn/test_joint.py, the example of two candidates after a "can't tell"; 40
#: seeds) P(best) is off by 0.027 (root mean square) with these 12, 0.031 with 9, 0.033
#: with 8 and 0.039 with 6 sweeps at scales (1, 1, ½), up to 0.135, which the brute-force
#: test flags. The decisions on the shipped pool did not show it (6 sweeps, 300 people per
#: cell: benchmarks/results/decision_compare-6-sweeps.md).
MOVE_SWEEPS = (1.0, 0.5, 0.25) * 4
#: Resampling from fewer effective particles than this share moves them twice as long.
SCARCE = 0.05
#: At most this many tempered steps per answer (then the rest of it in one step).
MAX_STAGES = 3

#: Share of the swing-weight prior that is Dirichlet(½) (sparse truths: one aspect that
#: dominates keeps real prior mass). Measured with benchmarks/decision.py on the shipped
#: pool (40 people per family, exact answers and flips of 0.1): with 0 the picks within
#: the perceivable margin were 97.5% for truths where latency dominates (exact) and 95%
#: where the benign class does (flip 0.1); with 0.1, 97.5% and 97.5%; with 0.25 every
#: family reached 100% with exact answers and ≥ 97.5% with flips, at about one question
#: more (benchmarks/results/decision-families.md holds the full run).
SPARSE_PRIOR_SHARE = 0.25
#: Two candidates closer for a person than this share of the span of the aspect they weigh
#: most are practically tied for them (:func:`perceivable_margin`): the screen shows a
#: recall per 1,000 cases.
PERCEIVABLE = 1e-3
#: Summaries kept per posterior (each about (particles × (candidates + weights)) floats,
#: 0.4 MB on the shipped pool): the states a session is at and was just at (an undo).
SUMMARIES_KEPT = 4
#: Every summary weighs up the noisiest answers the posterior allows: its upper quarter of
#: lapse rates, temperatures and bands (:meth:`ParticlePosterior.robust_weights`). The upper
#: tenth was tried (benchmarks/results/decision-families-tail-0.1.md against
#: decision-families.md, 300 people per cell): with slips of one in ten the stops at a
#: stated P ≥ 0.95 were then wrong for at most 2.4% of any family (5.5% with a quarter),
#: but with near ties under logistic answers still 15.7% (18.7%), two to four questions
#: more; and the summary then rests on about 650 of the 2,000 particles (effective), so
#: its intervals missed numerical integration by 0.079 on a brute-force example
#: (tests/learn/test_joint.py, bound 0.07). Not kept.
NOISE_TAIL = 0.25


# -- the prior over swing weights ----------------------------------------------------


def _log_dirichlet(s: FloatArray, alpha: float, axis: int = -1) -> FloatArray:
    n = s.shape[axis]
    with np.errstate(divide="ignore"):
        logs = np.log(s)
    out: FloatArray = (
        math.lgamma(n * alpha) - n * math.lgamma(alpha) + (alpha - 1) * logs.sum(axis=axis)
    )
    return out


def swing_log_prior(
    s: FloatArray, spans: Sequence[float], sparse: float, natural: float, axis: int = -1
) -> FloatArray:
    """Log density (on the simplex, w.r.t. the first n − 1 coordinates) of the prior
    over swing weights ``s`` (rows; columns with ``axis=0``): ``sparse`` × Dirichlet(½) +
    ``natural`` × the density that a flat Dirichlet over natural-unit weights a implies,
    (n − 1)!·Π(1/c_i)·(Σ s_j/c_j)^(−n) with c the spans (the Jacobian of a_i ∝ s_i/c_i),
    + the rest × a flat Dirichlet.

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
    if sparse == 0 and natural == 0:
        return _log_dirichlet(s, 1.0, axis)
    parts = []
    flat = 1.0 - sparse - natural
    if flat > 0:
        parts.append(math.log(flat) + _log_dirichlet(s, 1.0, axis))
    if sparse > 0:
        parts.append(math.log(sparse) + _log_dirichlet(s, 0.5, axis))
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


def _alr_columns(s: FloatArray) -> FloatArray:
    """The additive log-ratio coordinates (log s_i − log s_n, i < n) of swing weights held
    as columns."""
    with np.errstate(divide="ignore"):
        logs = np.log(s)
    out: FloatArray = logs[:-1] - logs[-1:]
    return out


def _alr_inverse_columns(z: FloatArray) -> FloatArray:
    """Swing weights (columns) from their additive log-ratio coordinates (columns): the
    inverse of :func:`_alr_columns`."""
    full = np.concatenate((z, np.zeros((1, z.shape[1]))), axis=0)
    full = np.exp(full - full.max(axis=0))
    out: FloatArray = np.maximum(full / full.sum(axis=0), 1e-300)
    return out


# -- records and states --------------------------------------------------------------


@dataclass(frozen=True)
class JointRecord:
    """One answer as the posterior sees it.

    ``diff`` is v(left) − v(right) of the options as shown (the statistics ψ is linear in),
    ``outcome`` 0 (left), 1 (right) or 2 (can't tell). ``kind`` is "trade" or
    "candidates"; a trade records its two statistics ``pair`` and exchange rate
    ``threshold`` (m = w_ref / (w_ref + w_other)), a pair of candidates their indices.
    """

    diff: tuple[float, ...]
    outcome: int
    kind: str
    shown: ShownKey
    pair: tuple[int, int] | None = None
    threshold: float | None = None
    candidates: tuple[int, int] | None = None
    repeat_of: int | None = None
    #: Per statistic, whether the two options' card lines for it read differently (the
    #: answer could say something about its weight; :func:`~tradeoff.learn.base.asked_aspects`).
    differs: tuple[bool, ...] = ()


@dataclass(frozen=True)
class JointState:
    """The answers so far (equality and hashing) and the particles they led to."""

    records: tuple[JointRecord, ...] = ()
    #: Digest of every answer so far (both options as shown and the choice).
    key: int = 0
    swing: FloatArray = field(default_factory=lambda: np.empty((0, 0)), compare=False, repr=False)
    noise: IntArray = field(
        default_factory=lambda: np.empty(0, dtype=np.intp), compare=False, repr=False
    )
    log_weights: FloatArray = field(default_factory=lambda: np.empty(0), compare=False, repr=False)
    #: How many times the particles were resampled and moved.
    moves: int = field(default=0, compare=False)

    @property
    def answered(self) -> int:
        return len(self.records)

    def weights(self) -> FloatArray:
        """The particles' normalised weights."""
        w = np.exp(self.log_weights - self.log_weights.max())
        out: FloatArray = w / w.sum()
        return out


def answer_digest(previous: int, query: Query, choice: Choice) -> int:
    """The digest of the answers so far after ``choice`` to ``query``: both options'
    values at :data:`~tradeoff.stable.DIGITS` significant digits (the same on every machine,
    whatever its last bits; :func:`~tradeoff.stable.canonical`) and the choice."""
    h = hashlib.blake2b(digest_size=8)
    h.update(previous.to_bytes(8, "little"))
    for profile in (query.left, query.right):
        h.update(profile_key(profile).encode())
    h.update(choice.value.encode())
    return int.from_bytes(h.digest(), "little")


@dataclass(frozen=True)
class Summary:
    """What the particles say about the candidates (cached per state)."""

    natural: FloatArray  # (N, n) natural-unit weights
    weights: FloatArray  # (N,) normalised particle weights
    psi: FloatArray | None  # (N, M) ψ of the non-dominated candidates
    best: IntArray | None  # (N,) index of each particle's best candidate
    p_best: FloatArray | None  # (M,) posterior probability of being best
    pick: int | None  # Bayes pick (index among the non-dominated candidates)
    #: (M,) posterior probability that each candidate is best while the pick is within the
    #: perceivable margin of it (:func:`perceivable_margin`; the pick's own entry is its
    #: P(best)): P(the pick is best or practically tied with the best) is their sum.
    near: FloatArray | None = None
    #: With a measurement noise (:attr:`ParticlePosterior.measured`): ``p_best`` and
    #: ``near`` at the candidates' measured numbers, what the answers alone settle.
    exact_p_best: FloatArray | None = None
    exact_near: FloatArray | None = None
    #: ... and ψ and each particle's best there (what the questions are scored on).
    exact_psi: FloatArray | None = None
    exact_best: IntArray | None = None


def perceivable_margin(natural: FloatArray, spans: Sequence[float]) -> FloatArray:
    """The smallest difference of ψ a person can perceive, per row of natural-unit weights:
    ``PERCEIVABLE`` of the span of the aspect they weigh most, in ψ's units
    (``PERCEIVABLE`` × maxⱼ aⱼ·spanⱼ). For a class that is what one case per 1,000 of that
    class is worth to them, the screen's resolution: two models closer than this for a
    person are practically tied for them.

    >>> perceivable_margin(np.array([[0.5, 0.5], [1.0, 0.0]]), [0.4, 2.0]).tolist()
    [0.001, 0.0004]
    """
    out: FloatArray = PERCEIVABLE * (natural * np.asarray(spans, dtype=np.float64)).max(axis=1)
    return out


def near_best(
    psi: FloatArray,
    best: IntArray,
    pick: int,
    natural: FloatArray,
    spans: Sequence[float],
    weights: FloatArray,
) -> FloatArray:
    """Per candidate (column of ``psi``, one row per draw), the weight of the draws in which
    it is best (``best``) and ``pick`` is within the draw's :func:`perceivable_margin` of
    it: their sum is P(the pick is best or practically tied with the best).

    >>> psi = np.array([[1.0, 0.9995], [0.5, 1.0]])
    >>> near_best(psi, np.array([0, 1]), 1, np.array([[1.0, 0.0], [1.0, 0.0]]), [1.0, 1.0],
    ...           np.array([0.5, 0.5])).tolist()
    [0.5, 0.5]
    """
    gap = psi[np.arange(len(best)), best] - psi[:, pick]
    within = gap <= perceivable_margin(natural, spans)
    out: FloatArray = np.bincount(best, weights=weights * within, minlength=psi.shape[1]).astype(
        np.float64
    )
    return out


def measured_psi(natural: FloatArray, measured: FloatArray) -> FloatArray:
    """ψ of every candidate per row of natural-unit weights, row i scored on the plausible
    table i mod tables of ``measured`` (tables × candidates × statistics).

    >>> measured = np.array([[[1.0, 0.0], [0.0, 1.0]], [[0.0, 0.0], [1.0, 1.0]]])
    >>> measured_psi(np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]]), measured).tolist()
    [[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]]
    """
    tables = measured[np.arange(len(natural)) % measured.shape[0]]
    out: FloatArray = np.einsum("sw,smw->sm", natural, tables)
    return out


def weighted_quantiles(values: FloatArray, weights: FloatArray, qs: Sequence[float]) -> FloatArray:
    """Quantiles of every column of ``values`` under the row weights ``weights``."""
    order = np.argsort(values, axis=0)
    out = np.empty((len(qs), values.shape[1]))
    for j in range(values.shape[1]):
        v = values[order[:, j], j]
        cum = np.cumsum(weights[order[:, j]])
        cum /= cum[-1]
        out[:, j] = v[np.minimum(np.searchsorted(cum, qs), len(v) - 1)]
    return out


def _normalised(log_w: FloatArray) -> FloatArray:
    """Normalised weights from log weights (all −∞: equal weights)."""
    top = np.max(log_w)
    if not np.isfinite(top):
        return np.full(len(log_w), 1.0 / len(log_w))
    w = np.exp(log_w - top)
    out: FloatArray = w / w.sum()
    return out


def _ess(log_w: FloatArray) -> float:
    """Effective sample size of log weights (0 when every weight is 0)."""
    if not np.isfinite(np.max(log_w)):
        return 0.0
    w = _normalised(log_w)
    return float(1.0 / np.sum(w**2))


def _tempered_step(log_w: FloatArray, new: FloatArray, rest: float) -> float:
    """The step δ ∈ (0, rest] of the tempering exponent whose weights log_w + δ·new keep
    ``ESS_FLOOR`` of the effective sample size of the particles the answer leaves possible
    (those where its likelihood is not 0: no step can keep the others), by bisection."""
    alive = np.where(np.isfinite(new), log_w, -np.inf)
    target = ESS_FLOOR * _ess(alive)
    if _ess(log_w + rest * new) >= target:
        return rest
    lo, hi = 0.0, rest
    for _ in range(30):
        mid = (lo + hi) / 2
        if _ess(log_w + mid * new) >= target:
            lo = mid
        else:
            hi = mid
    return max(lo, 1e-3 * rest)


def _upper_tail(values: FloatArray, weights: FloatArray, share: float) -> FloatArray | None:
    """Weights of the particles whose ``values`` lie in the upper ``share`` of the weighted
    distribution (the particle on the boundary in part), normalised; ``None`` when every
    particle has the same value (no tail to speak of).

    >>> _upper_tail(np.array([0.0, 0.1, 0.2, 0.4]), np.full(4, 0.25), 0.5).tolist()
    [0.0, 0.0, 0.5, 0.5]
    """
    if values.min() == values.max():
        return None
    order = np.argsort(-values, kind="stable")
    above = np.cumsum(weights[order]) - weights[order]  # mass strictly before each particle
    part = np.clip(share - above, 0.0, weights[order])
    out = np.zeros_like(weights)
    out[order] = part
    total = out.sum()
    return out / total if total > 0 else None


def _systematic(weights: FloatArray, size: int, rng: np.random.Generator) -> IntArray:
    cum = np.cumsum(weights)
    cum /= cum[-1]
    points = (rng.random() + np.arange(size)) / size
    out: IntArray = np.minimum(np.searchsorted(cum, points), len(weights) - 1).astype(np.intp)
    return out


@dataclass(frozen=True)
class ParticlePosterior:
    """The posterior over swing weights and noise cells as weighted particles (see the
    module docstring): drawn from the prior, updated answer by answer, summarised.

    Parameters
    ----------
    spans
        Each statistic's span (:attr:`~tradeoff.ask.queries.QuerySpace.spans`): swing weights
        are weights times spans.
    seed
        Seed of every random number (with a digest of the answers so far).
    particles
        How many particles.
    noise_grid
        The grid of (ε, T, δ) and its prior.
    sparse_share, natural_share
        Shares of the swing-weight prior that are Dirichlet(½) and flat over natural-unit
        weights (:func:`swing_log_prior`).
    front
        The non-dominated candidates' statistics in the metric's terms (one row each),
        whose ψ the summaries compare, or ``None`` without candidates.
    measured
        Plausible values of ``front`` when the pool's numbers carry a measurement noise
        (tables × candidates × statistics), or ``None``: particle i is then scored on table
        i mod tables (the pairing of :func:`tradeoff.choose.robustness.joint_psi` when there
        are as many tables as particles), so P(best) and P(best or practically tied) count
        over the weights and the measurements together. The pick stays the best candidate
        at ``front`` itself (as :func:`tradeoff.choose.recommend.recommend` picks).
    """

    spans: tuple[float, ...]
    seed: int
    particles: int = PARTICLES
    noise_grid: NoiseGrid = field(default=NOISE_PRIOR, compare=False, repr=False)
    sparse_share: float = SPARSE_PRIOR_SHARE
    natural_share: float = 0.0
    front: FloatArray | None = field(default=None, compare=False, repr=False)
    measured: FloatArray | None = field(default=None, compare=False, repr=False)
    _summaries: dict[JointState, Summary] = field(
        default_factory=dict, init=False, compare=False, repr=False
    )
    _initial: list[JointState] = field(default_factory=list, init=False, compare=False, repr=False)

    def initial(self) -> JointState:
        """Particles drawn from the prior (the same for every engine with this seed)."""
        if not self._initial:
            rng = np.random.default_rng([self.seed, 0, 0])
            swing = draw_swing_prior(
                rng, self.particles, self.spans, self.sparse_share, self.natural_share
            )
            masses = self.noise_grid.prior_masses()
            noise = rng.choice(len(masses), size=self.particles, p=masses).astype(np.intp)
            self._initial.append(JointState((), 0, swing, noise, np.zeros(self.particles), 0))
        return self._initial[0]

    def _deltas(self, natural: FloatArray, records: Sequence[JointRecord]) -> FloatArray:
        """Δ of every answer for every particle, shape (answers, particles)."""
        if not records:
            return np.zeros((0, natural.shape[0]))
        out: FloatArray = np.array([r.diff for r in records]) @ natural.T
        return out

    def _log_likelihood(
        self, natural: FloatArray, noise: IntArray, records: Sequence[JointRecord]
    ) -> FloatArray:
        """Σ over ``records`` of log P(answer | particle), per particle."""
        return self._log_likelihood_of(self._deltas(natural, records), noise, records)

    def _log_likelihood_of(
        self,
        delta: FloatArray,
        noise: IntArray,
        records: Sequence[JointRecord],
        powers: FloatArray | None = None,
    ) -> FloatArray:
        """Σ over ``records`` of log P(answer | particle) (each times its power) from Δ of
        shape (answers, particles)."""
        if not records:
            return np.zeros(delta.shape[1])
        outcomes = np.array([r.outcome for r in records], dtype=np.intp)
        lapse, temp, band = self.noise_grid.values(noise)
        log_p = answer_log_likelihoods(delta, outcomes, lapse, temp, band)
        if powers is not None and powers[-1] != 1.0:
            log_p[-1] *= powers[-1]
        out: FloatArray = log_p.sum(axis=0)
        return out

    def _log_prior_z(self, swing: FloatArray, axis: int = -1) -> FloatArray:
        """Log prior density of swing weights (rows; columns with ``axis=0``) in additive
        log-ratio coordinates (the prior of :func:`swing_log_prior` times the Jacobian
        Π s_i)."""
        with np.errstate(divide="ignore"):
            out: FloatArray = swing_log_prior(
                swing, self.spans, self.sparse_share, self.natural_share, axis
            ) + np.log(swing).sum(axis=axis)
        return out

    def _move(
        self,
        swing: FloatArray,
        noise: IntArray,
        records: Sequence[JointRecord],
        rng: np.random.Generator,
        cov: FloatArray,
        power: float = 1.0,
        sweeps: Sequence[float] = MOVE_SWEEPS,
    ) -> tuple[FloatArray, IntArray]:
        """Metropolis–Hastings sweeps (one per step scale of ``sweeps``) that leave the
        posterior of
        ``records`` invariant (the last answer's likelihood raised to ``power``): a random
        walk of the weights' additive log-ratios, then a new value of one noise parameter
        (ε, T or δ, uniform on its grid: a symmetric proposal). Each is accepted by prior ×
        the likelihood of every answer so far."""
        n_part, dim = swing.shape[0], swing.shape[1] - 1
        # Every array below holds one particle per column: the per-particle operations then
        # run along long rows.
        diffs = np.array([r.diff for r in records])  # (t, n)
        s_cur = np.ascontiguousarray(swing.T)  # (n, N)
        noise = noise.astype(np.intp, copy=True)
        z = _alr_columns(s_cur)
        delta = diffs @ natural_weights(s_cur, self.spans, axis=0)  # (t, N)
        prior_z = self._log_prior_z(s_cur, axis=0)
        prior_g = self.noise_grid.log_prior(noise)
        powers = np.ones(len(records))
        powers[-1] = power
        lik = self._log_likelihood_of(delta, noise, records, powers)
        chol: FloatArray = np.linalg.cholesky(cov + 1e-8 * np.eye(dim)).astype(np.float64)
        shape = self.noise_grid.shape
        columns = np.arange(n_part)
        for size in sweeps:
            scale = size * 2.38 / math.sqrt(dim)
            step = chol @ rng.standard_normal((n_part, dim)).T
            z_new = np.clip(z + scale * step, -60, 60)
            s_new = _alr_inverse_columns(z_new)
            d_new = diffs @ natural_weights(s_new, self.spans, axis=0)
            p_new = self._log_prior_z(s_new, axis=0)
            l_new = self._log_likelihood_of(d_new, noise, records, powers)
            gain = (p_new + l_new) - (prior_z + lik)
            accept = (np.log(rng.random(n_part)) < gain) & np.isfinite(p_new + l_new)
            np.copyto(z, z_new, where=accept)
            np.copyto(s_cur, s_new, where=accept)
            np.copyto(delta, d_new, where=accept)
            np.copyto(prior_z, p_new, where=accept)
            np.copyto(lik, l_new, where=accept)
            coords = np.array(np.unravel_index(noise, shape))  # (3, N)
            which = rng.integers(0, 3, size=n_part)
            coords[which, columns] = (rng.random(n_part) * np.asarray(shape)[which]).astype(np.intp)
            g_new = np.ravel_multi_index(tuple(coords), shape).astype(np.intp)
            pg_new = self.noise_grid.log_prior(g_new)
            l_new = self._log_likelihood_of(delta, g_new, records, powers)
            gain = (pg_new + l_new) - (prior_g + lik)
            accept = (np.log(rng.random(n_part)) < gain) & np.isfinite(pg_new + l_new)
            np.copyto(noise, g_new, where=accept)
            np.copyto(prior_g, pg_new, where=accept)
            np.copyto(lik, l_new, where=accept)
        return np.ascontiguousarray(s_cur.T), noise

    def update(self, state: JointState, record: JointRecord, key: int) -> JointState:
        """The state after the answer ``record`` (``key``: the digest of every answer so far,
        :func:`answer_digest`): the particles reweighted by the answer's likelihood; when
        too few would carry the weight, the answer is taken in tempered steps L^λ (λ rising
        to 1, each step as large as keeps the effective sample size at ``ESS_FLOOR``), the
        particles resampled and moved after each."""
        records = (*state.records, record)
        rng = np.random.default_rng([self.seed, len(records), key])
        swing, noise, moves = state.swing, state.noise, state.moves
        log_w = state.log_weights
        n = len(log_w)
        new = self._log_likelihood(natural_weights(swing, self.spans), noise, (record,))
        power = 0.0  # how much of the answer's likelihood the particles carry
        for stage in range(MAX_STAGES + 1):
            rest = 1.0 - power
            if _ess(log_w + rest * new) >= ESS_FLOOR * n:
                log_w = log_w + rest * new
                power = 1.0
                break
            step = rest if stage == MAX_STAGES else _tempered_step(log_w, new, rest)
            weights = _normalised(log_w + step * new)
            power += step
            swing, noise = self._resample_move(
                swing, noise, weights, _normalised(log_w), records, power, rng
            )
            moves += 1
            log_w = np.zeros(n)
            if power >= 1.0:
                break
            new = self._log_likelihood(natural_weights(swing, self.spans), noise, (record,))
        return JointState(records, key, swing, noise, log_w - log_w.max(), moves)

    def _resample_move(
        self,
        swing: FloatArray,
        noise: IntArray,
        weights: FloatArray,
        previous: FloatArray,
        records: Sequence[JointRecord],
        power: float,
        rng: np.random.Generator,
    ) -> tuple[FloatArray, IntArray]:
        """Resample (systematic) by ``weights`` and move with random-walk steps shaped by
        the weighted particles' covariance, the last answer's likelihood raised to
        ``power``. When few particles carry the weight (a surprising answer), their
        covariance says little about the posterior's spread: the steps are shaped by the
        particles' spread before this answer (``previous``, their weights then) and the
        particles move twice as long."""
        z = _alr_columns(swing.T).T
        scarce = 1.0 / float(np.sum(weights**2)) < SCARCE * len(weights)
        shape = previous if scarce else weights
        mean = shape @ z
        cov = np.atleast_2d(((z - mean).T * shape) @ (z - mean))
        cov += 1e-4 * np.eye(cov.shape[0])
        chosen = _systematic(weights, len(weights), rng)
        sweeps = MOVE_SWEEPS * (2 if scarce else 1)
        return self._move(swing[chosen], noise[chosen], records, rng, cov, power, sweeps)

    def summary(self, state: JointState) -> Summary:
        """Natural-unit weights, particle weights and the candidates' ψ (cached)."""
        cached = self._summaries.get(state)
        if cached is not None:
            return cached
        natural = natural_weights(state.swing, self.spans)
        weights = self.robust_weights(state)
        psi = best = p_best = near = exact_p_best = exact_near = None
        exact = top = None
        pick = None
        if self.front is not None:
            psi = exact = natural @ self.front.T
            if self.measured is None:
                best = np.argmax(psi, axis=1).astype(np.intp)
            else:
                psi = measured_psi(natural, self.measured)
                best = stable_argmax_rows(psi)  # as the recommendation counts it
            m = len(self.front)
            p_best = np.bincount(best, weights=weights, minlength=m).astype(np.float64)
            pick = stable_argmax(weights @ exact)
            near = near_best(psi, best, pick, natural, self.spans, weights)
            if self.measured is not None:
                top = stable_argmax_rows(exact)
                exact_p_best = np.bincount(top, weights=weights, minlength=m).astype(np.float64)
                exact_near = near_best(exact, top, pick, natural, self.spans, weights)
        out = Summary(
            natural,
            weights,
            psi,
            best,
            p_best,
            pick,
            near,
            exact_p_best,
            exact_near,
            None if self.measured is None or self.front is None else exact,
            None if self.measured is None else top,
        )
        if len(self._summaries) >= SUMMARIES_KEPT:
            self._summaries.pop(next(iter(self._summaries)))  # the oldest
        self._summaries[state] = out
        return out

    def robust_weights(self, state: JointState) -> FloatArray:
        """The particles' weights given answers as noisy as the posterior allows.

        The mean, over the lapse rate, the temperature and the "can't tell" band, of the
        posterior given that this noise lies in the posterior's upper ``NOISE_TAIL``
        (the particles in that tail, reweighted; a noise the particles all share enters as
        the whole posterior). A posterior that puts most of its mass on careful answers is
        right to be sure of a careful person, but a person who slips more than most would
        get the same confident numbers after the same few answers; weighing the noisier
        answers up keeps P(best) honest for them (the calibration tables of
        ``benchmarks/results/decision.md``). Every summary reads these weights: the pick,
        P(best), the draws, the intervals, the estimate and the look-ahead.
        """
        w = state.weights()
        parts = []
        for values in self.noise_grid.values(state.noise):
            tail = _upper_tail(values, w, NOISE_TAIL)
            parts.append(w if tail is None else tail)
        out: FloatArray = np.mean(parts, axis=0)
        return out

    def draws(self, state: JointState) -> FloatArray:
        """An equally weighted (systematic, seeded) resample of the particles'
        natural-unit weights."""
        s = self.summary(state)
        rng = np.random.default_rng([self.seed, state.answered, state.key, 7])
        out: FloatArray = s.natural[_systematic(s.weights, len(s.weights), rng)]
        return out

    def weighted_draws(self, state: JointState) -> tuple[FloatArray, FloatArray]:
        """The particles' natural-unit weights and the weights :meth:`summary` gives them:
        P(best) and the pick computed from these are the ones the questions stopped on."""
        s = self.summary(state)
        return s.natural, s.weights

    def noise_posterior(self, state: JointState) -> tuple[float, float, float]:
        """Posterior means of ε, T and δ."""
        lapse, temp, band = self.noise_grid.values(state.noise)
        w = state.weights()
        return float(w @ lapse), float(w @ temp), float(w @ band)

    def credible_intervals(
        self, state: JointState
    ) -> tuple[tuple[tuple[float, float], ...], tuple[tuple[float, float], ...]]:
        """90% credible interval of every natural-unit weight, and of every swing weight."""
        s = self.summary(state)
        nat = weighted_quantiles(s.natural, s.weights, (0.05, 0.95))
        sw = weighted_quantiles(state.swing, s.weights, (0.05, 0.95))
        return (
            tuple((float(lo), float(hi)) for lo, hi in nat.T),
            tuple((float(lo), float(hi)) for lo, hi in sw.T),
        )
