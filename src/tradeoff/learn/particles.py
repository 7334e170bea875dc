"""The posterior of strategy `joint`: weighted particles over the whole weight vector, and
what they say of the candidates (P(best), the pick, the draws, the intervals).

One posterior over all swing weights at once (not one per ratio against class 1, as
:mod:`~tradeoff.learn.probabilistic` keeps), as weighted particles, that learns from any
question through one likelihood (:mod:`~tradeoff.learn.likelihood`: every answer is about
Δ = ψ(left) − ψ(right), each particle carries one cell of the noise grid);
:mod:`~tradeoff.learn.joint` chooses the questions.

* **Prior.** Particles are swing weights s on the simplex (weight × the statistic's span,
  normalised; docs/architecture.md), drawn from a mixture: ``SPARSE_PRIOR_SHARE`` of a
  Dirichlet(½) (truths that put nearly all weight on one or two aspects), with
  ``precision = "natural"`` :data:`~tradeoff.learn.posterior.NATURAL_PRIOR_SHARE` of the
  prior that a flat Dirichlet over natural-unit weights implies
  (:func:`~tradeoff.learn.swing_prior.swing_log_prior`), the rest a flat Dirichlet over
  swing weights (:mod:`~tradeoff.learn.swing_prior`).
* **Particles.** ``PARTICLES`` weighted particles (s, ε, T, δ). An answer multiplies each
  weight by its likelihood; when the effective sample size falls below ``ESS_FLOOR`` of
  the particles they are resampled (systematic) and moved (the sweeps of
  Metropolis–Hastings of ``MOVE_SWEEPS``, each a Gaussian random walk in the additive
  log-ratio coordinates of s with the particles' covariance, then a new value for one of
  ε, T, δ), every move accepted by the likelihood of *all* answers so far, so the
  particles are a sample of the posterior again (resample-move; Gilks & Berzuini 2001;
  :mod:`~tradeoff.learn.particle_move`).
  A brute-force test compares P(best) and the 90% intervals with numerical integration on
  a fine simplex grid, and ``benchmarks/posterior_check.py`` how far they lie from it over
  many random examples (``benchmarks/results/posterior_check.md``).
* **Determinism.** The random numbers of each step come from (seed, a digest of every
  answer so far: both options as shown and the choice), so a replay reaches the identical
  particles, and undo is the previous immutable state (:mod:`~tradeoff.learn.joint_state`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from tradeoff.arrays import FloatArray, IntArray
from tradeoff.learn.joint_state import JointRecord, JointState
from tradeoff.learn.likelihood import NOISE_PRIOR, NoiseGrid
from tradeoff.learn.particle_move import MoveKernel, systematic
from tradeoff.learn.starting_prior import StartingPrior
from tradeoff.learn.swing_prior import SPARSE_PRIOR_SHARE, draw_swing_prior, natural_weights
from tradeoff.stable import stable_argmax, stable_argmax_rows

#: Particles of the posterior.
PARTICLES = 2000
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
    #: The candidate of highest expected ψ at the measured numbers (what the answers alone
    #: settle; ``exact_near`` is this one's): the pick too without a measurement noise, or
    #: under the rule ``likeliest=False`` (:attr:`ParticlePosterior.likeliest`).
    exact_pick: int | None = None


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


def weighted_quantiles(
    values: FloatArray, weights: FloatArray, qs: Sequence[float], order: IntArray | None = None
) -> FloatArray:
    """Quantiles of every column of ``values`` under the row weights ``weights``
    (``order``: ``np.argsort(values, axis=0)``, when the caller keeps it)."""
    if order is None:
        order = np.argsort(values, axis=0)
    out = np.empty((len(qs), values.shape[1]))
    for j in range(values.shape[1]):
        v = values[order[:, j], j]
        cum = np.cumsum(weights[order[:, j]])
        cum /= cum[-1]
        out[:, j] = v[np.minimum(np.searchsorted(cum, qs), len(v) - 1)]
    return out


def _upper_tail(
    values: FloatArray, weights: FloatArray, share: float, ranks: IntArray | None = None
) -> FloatArray | None:
    """Weights of the particles whose ``values`` lie in the upper ``share`` of the weighted
    distribution (the particle on the boundary in part), normalised; ``None`` when every
    particle has the same value (no tail to speak of). ``ranks``: small integers that
    order the particles as ``values`` do (:meth:`~tradeoff.learn.likelihood.NoiseGrid.ranks`),
    sorted instead of the values (the same order, found faster).

    >>> _upper_tail(np.array([0.0, 0.1, 0.2, 0.4]), np.full(4, 0.25), 0.5).tolist()
    [0.0, 0.0, 0.5, 0.5]
    >>> _upper_tail(np.array([0.0, 0.1, 0.2, 0.4]), np.full(4, 0.25), 0.5,
    ...             np.array([0, 1, 2, 3], dtype=np.int16)).tolist()
    [0.0, 0.0, 0.5, 0.5]
    """
    if values.min() == values.max():
        return None
    order = np.argsort(-(values if ranks is None else ranks), kind="stable")
    above = np.cumsum(weights[order]) - weights[order]  # mass strictly before each particle
    part = np.clip(share - above, 0.0, weights[order])
    out = np.zeros_like(weights)
    out[order] = part
    total = out.sum()
    return out / total if total > 0 else None


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
        weights (:func:`~tradeoff.learn.swing_prior.swing_log_prior`).
    front
        The non-dominated candidates' statistics in the metric's terms (one row each),
        whose ψ the summaries compare, or ``None`` without candidates.
    measured
        Plausible values of ``front`` when the pool's numbers carry a measurement noise
        (tables × candidates × statistics), or ``None``: particle i is then scored on table
        i mod tables (the pairing of :func:`tradeoff.choose.robustness.joint_psi` when there
        are as many tables as particles), so P(best) and P(best or practically tied) count
        over the weights and the measurements together, and the pick is the candidate of
        highest P(best) among them (``likeliest``).
    likeliest
        With ``measured``: the pick is the candidate of highest P(best) over the weights and
        the measurements (ties, to :data:`~tradeoff.stable.DIGITS` digits: the earlier), as
        :func:`tradeoff.choose.recommend.recommend` picks; ``False``: the one of highest
        expected ψ at ``front`` itself (the rule of sessions recorded before, whose header's
        measurement says ``pick = "expected"``). Without ``measured`` both are the latter.
    start
        A study's pooled prior over the weights (:mod:`~tradeoff.learn.starting_prior`), or
        ``None``: the prior above alone.
    """

    spans: tuple[float, ...]
    seed: int
    particles: int = PARTICLES
    noise_grid: NoiseGrid = field(default=NOISE_PRIOR, compare=False, repr=False)
    sparse_share: float = SPARSE_PRIOR_SHARE
    natural_share: float = 0.0
    front: FloatArray | None = field(default=None, compare=False, repr=False)
    measured: FloatArray | None = field(default=None, compare=False, repr=False)
    start: StartingPrior | None = field(default=None, compare=False, repr=False)
    likeliest: bool = True
    _summaries: dict[JointState, Summary] = field(
        default_factory=dict, init=False, compare=False, repr=False
    )
    _initial: list[JointState] = field(default_factory=list, init=False, compare=False, repr=False)
    #: What moves the particles (:mod:`~tradeoff.learn.particle_move`), from the fields above.
    kernel: MoveKernel = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        kernel = MoveKernel(
            self.spans,
            self.seed,
            self.noise_grid,
            self.sparse_share,
            self.natural_share,
            self.start,
        )
        object.__setattr__(self, "kernel", kernel)

    def initial(self) -> JointState:
        """Particles drawn from the prior (the same for every engine with this seed)."""
        if not self._initial:
            rng = np.random.default_rng([self.seed, 0, 0])

            def own(size: int) -> FloatArray:
                return draw_swing_prior(
                    rng, size, self.spans, self.sparse_share, self.natural_share
                )

            swing = (
                own(self.particles)
                if self.start is None
                else self.start.draw(rng, self.particles, own)
            )
            masses = self.noise_grid.prior_masses()
            noise = rng.choice(len(masses), size=self.particles, p=masses).astype(np.intp)
            self._initial.append(JointState((), 0, swing, noise, np.zeros(self.particles), 0))
        return self._initial[0]

    def update(self, state: JointState, record: JointRecord, key: int) -> JointState:
        """The state after the answer ``record`` (``key``: the digest of every answer so far,
        :func:`~tradeoff.learn.joint_state.answer_digest`;
        :meth:`~tradeoff.learn.particle_move.MoveKernel.update`)."""
        return self.kernel.update(state, record, key)

    def summary(self, state: JointState) -> Summary:
        """Natural-unit weights, particle weights and the candidates' ψ (cached)."""
        cached = self._summaries.get(state)
        if cached is not None:
            return cached
        natural = natural_weights(state.swing, self.spans)
        weights = self.robust_weights(state)
        psi = best = p_best = near = exact_p_best = exact_near = None
        exact = top = None
        pick = exact_pick = None
        if self.front is not None:
            psi = exact = natural @ self.front.T
            if self.measured is None:
                best = np.argmax(psi, axis=1).astype(np.intp)
            else:
                psi = measured_psi(natural, self.measured)
                best = stable_argmax_rows(psi)  # as the recommendation counts it
            m = len(self.front)
            p_best = np.bincount(best, weights=weights, minlength=m).astype(np.float64)
            pick = exact_pick = stable_argmax(weights @ exact)
            if self.measured is not None and self.likeliest:
                pick = stable_argmax(p_best)  # the likeliest best (ties: the earlier)
            near = near_best(psi, best, pick, natural, self.spans, weights)
            if self.measured is not None:
                top = stable_argmax_rows(exact)
                exact_p_best = np.bincount(top, weights=weights, minlength=m).astype(np.float64)
                exact_near = near_best(exact, top, exact_pick, natural, self.spans, weights)
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
            exact_pick,
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
        ranks = self.noise_grid.ranks(state.noise)
        for n, values in enumerate(self.noise_grid.values(state.noise)):
            tail = _upper_tail(values, w, NOISE_TAIL, None if ranks is None else ranks[n])
            parts.append(w if tail is None else tail)
        out: FloatArray = np.mean(parts, axis=0)
        return out

    def draws(self, state: JointState) -> FloatArray:
        """An equally weighted (systematic, seeded) resample of the particles'
        natural-unit weights."""
        s = self.summary(state)
        rng = np.random.default_rng([self.seed, state.answered, state.key, 7])
        out: FloatArray = s.natural[systematic(s.weights, len(s.weights), rng)]
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
