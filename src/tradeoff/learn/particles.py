"""Strategy `joint`: one posterior over the whole weight vector, aimed at the pick.

Where :mod:`~tradeoff.learn.probabilistic` keeps one posterior per ratio against
class 1, this strategy keeps one joint posterior over all swing weights at once, as
weighted particles, and learns from any question through one likelihood.

* **Prior.** Particles are swing weights s on the simplex (weight × the statistic's span,
  normalised; docs/architecture.md), drawn from a mixture: ``SPARSE_PRIOR_SHARE`` of a
  Dirichlet(½) (truths that put nearly all weight on one or two aspects), with
  ``precision = "natural"`` ``NATURAL_PRIOR_SHARE`` of the prior that a flat Dirichlet over
  natural-unit weights implies (:func:`swing_log_prior`), the rest a flat Dirichlet over
  swing weights.
* **Likelihood.** Every answer, whatever the question (a hypothetical trade or two real
  candidate models), is about Δ = a·(v_left − v_right): ψ of the left option minus ψ of
  the right one, with the natural-unit weights a (‖a‖₁ = 1) and the statistics v the metric
  is linear in (d_i, then each attribute signed so that higher is better), in the same
  units as the simulated people's T and τ (:mod:`tradeoff.simulation.oracles`). A person
  attends with probability 1 − ε; attending, they perceive Δ + T·L (L standard logistic) and say
  "can't tell" when that lies within ±δ; lapsing (probability ε), they pick a side at
  random (:func:`outcome_probabilities`)::

      P(left)        = ε/2 + (1 − ε)·σ((Δ − δ)/T)
      P(right)       = ε/2 + (1 − ε)·σ((−Δ − δ)/T)
      P(can't tell)  = (1 − ε)·[σ((δ − Δ)/T) − σ((−δ − Δ)/T)]

  which sum to 1; T = 0 is the step (σ(x/0) = 1 for x > 0, 0 for x < 0), δ = 0 a person
  who never says "can't tell". No ratio is taken against a reference class.
* **Noise grids.** ε, T and δ are unknown: each particle carries one point of the grid
  ``LAPSES`` × ``TEMPERATURES`` × ``BANDS``, drawn from hierarchical priors
  (:data:`NOISE_PRIOR`): ε ~ Beta(κμ, κ(1 − μ)) with the mean μ itself uncertain
  (``LAPSE_MEANS``), so that lapse rates up to a half (one answer in four wrong) keep
  prior mass; T = 0 (answers from the numbers) with probability ``EXACT_SHARE``, else
  log T normal around a scale that is itself uncertain (``TEMPERATURE_SCALES``); δ = 0
  with probability ``EXACT_SHARE``, else log-uniform on the grid. P(best) and every
  summary marginalise over them.
* **Particles.** ``PARTICLES`` weighted particles (s, ε, T, δ). An answer multiplies each
  weight by its likelihood; when the effective sample size falls below ``ESS_FLOOR`` of
  the particles they are resampled (systematic) and moved (``MOVE_SWEEPS`` sweeps of
  Metropolis–Hastings, each a Gaussian random walk in the additive log-ratio coordinates
  of s with the particles' covariance, then a new value for one of ε, T, δ), every move
  accepted by the likelihood of *all* answers so far, so the particles are a sample of the
  posterior again (resample-move; Gilks & Berzuini 2001). A brute-force test compares
  P(best) and the 90% intervals with numerical integration on a fine simplex grid.
* **Determinism.** The random numbers of each step come from (seed, a digest of every
  answer so far: both options as shown and the choice), so a replay reaches the identical
  particles, and undo is the previous immutable state.
* **Questions.** Two kinds, scored by one criterion: (a) hypothetical trades
  (:meth:`~tradeoff.ask.queries.QuerySpace.trade`) between any class and any other statistic,
  aimed at the posterior's quantiles of their exchange rate (``TRADE_QUANTILES``) at a few
  sizes (``TRADE_SHARES``), rounded as the screen shows them; (b) two of the candidate
  models, as the screen shows them, among those best for some particle. Questions a person
  could not answer from the screen, pairs already shown ``MAX_SHOWS`` times and pairs
  answered "can't tell" (and trades within ``UNSURE_GAP`` of such an exchange rate) are
  not asked. With candidates, each question is the one that leaves the lowest expected
  regret of the Bayes pick after the answer (a one-step look-ahead over the three answers
  and the particles), less ``INFORMATION_WEIGHT`` × the information the answer carries
  about which model is best (which separates questions when no single answer could change
  the pick); without candidates, the one that leaves the lowest expected L1 error of the
  swing weights. A question asked before may be asked again (sides as the coin falls):
  when one answer could flip a confident pick, the look-ahead values hearing it twice.
* **Stopping.** At the budget; with candidates, once the pick is best with posterior
  probability ``decision_confidence`` (or its expected regret is below
  ``regret_tolerance``); without, once every weight's 90% interval is narrower than
  ``target_width``; or when no question is left that a person could tell apart.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
from numpy.typing import NDArray

from tradeoff.ask.presentation import card_lines, shown_profile, unanswerable
from tradeoff.ask.queries import ClassifierProfile, Query, QuerySpace, profile_key
from tradeoff.ask.scenario import ElicitationSpec
from tradeoff.ask.shown import ShownKey, as_shown, question_key
from tradeoff.learn.base import Choice, ElicitationResult, Strategy, logit, swing_weights
from tradeoff.stable import settled, sigmoid, stable_argmax, stable_order

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.intp]

#: Particles of the posterior.
PARTICLES = 2000
#: Resample and move when the effective sample size falls below this share of particles.
ESS_FLOOR = 0.5
#: Metropolis–Hastings sweeps per resample-move; each sweep moves the weights (at the
#: step scales of ``MOVE_SCALES`` in turn) and then the noise parameters.
MOVE_SWEEPS = 12
#: Resampling from fewer effective particles than this share moves them twice as long.
SCARCE = 0.05
#: At most this many tempered steps per answer (then the rest of it in one step).
MAX_STAGES = 3
#: Random-walk step sizes, as multiples of 2.38/√d times the particles' covariance.
MOVE_SCALES = (1.0, 0.5, 0.25)

#: Lapse rates ε (a lapse picks a side at random: a wrong answer with probability ε/2).
LAPSES = (0.0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5)
#: Logistic temperatures T in the metric's natural units (0: answers from the numbers).
TEMPERATURES = (0.0, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05)
#: Indifference bands δ in the metric's natural units (0: never "can't tell").
BANDS = (0.0, 0.0005, 0.001, 0.002, 0.005, 0.01)
#: Hyperprior of the lapse rate: its mean μ is one of these, equally likely, and
#: ε ~ Beta(LAPSE_CONCENTRATION·μ, LAPSE_CONCENTRATION·(1 − μ)).
LAPSE_MEANS = (0.02, 0.08, 0.25)
LAPSE_CONCENTRATION = 4.0
#: Prior probability that T = 0 (and, separately, that δ = 0).
EXACT_SHARE = 0.5
#: Hyperprior of T > 0: log T ~ Normal(log τ, 1) with τ one of these, equally likely.
TEMPERATURE_SCALES = (0.001, 0.01)

#: Share of the swing-weight prior that is Dirichlet(½) (sparse truths).
SPARSE_PRIOR_SHARE = 0.0
#: With ``precision = "natural"``, share of the prior flat over natural-unit weights (the
#: value of :data:`tradeoff.learn.probabilistic.NATURAL_PRIOR_SHARE`).
NATURAL_PRIOR_SHARE = 0.2

#: Quantiles of a pair's exchange rate at which trades are offered.
TRADE_QUANTILES = (0.1, 0.3, 0.5, 0.7, 0.9)
#: Sizes of a trade, as shares of the ranges (:meth:`~tradeoff.ask.queries.QuerySpace.trade`);
#: a trade that cannot be read at the first size is tried at the whole range.
TRADE_SHARES = (0.6, 0.9)
#: A trade is aimed at its target exchange rate rounded to this many decimals in logit m
#: (a factor 1.01 in the weight ratio, finer than the screen's rounding), so trades are
#: built once per rounded target.
TRADE_AIM_DIGITS = 2
#: The most times one pair of options is shown in a session (a repeat counts).
MAX_SHOWS = 2
#: No trade within this distance in logit m of an exchange rate answered "can't tell" on
#: the same two statistics (as :data:`tradeoff.learn.probabilistic.UNSURE_GAP`).
UNSURE_GAP = 0.05
#: Weight of the information about the best model's identity (nats) beside the expected
#: regret (as a share of the metric's spread) when choosing a question.
INFORMATION_WEIGHT = 0.01
#: Questions a session asks when no budget is given, per weight after the first.
QUESTIONS_PER_RATIO = 12
#: Candidate models best for less than this share of the posterior are not asked about.
MIN_BEST_SHARE = 1e-3
#: Every summary weighs up the noisiest answers the posterior allows: its upper quarter of
#: lapse rates, temperatures and bands (:meth:`JointStrategy.robust_weights`).
NOISE_TAIL = 0.25

_OUTCOME = {Choice.LEFT: 0, Choice.RIGHT: 1, Choice.INDIFFERENT: 2}


# -- the noise model -----------------------------------------------------------------


def _between(d: FloatArray, b: FloatArray, t: FloatArray) -> FloatArray:
    """P(perceived Δ + T·L lies within ±δ) = σ((δ − Δ)/T) − σ((−δ − Δ)/T), computed at
    |Δ| (it is even in Δ), where both terms are small in the tails and do not cancel."""
    a = np.abs(d)
    out: FloatArray = np.clip(sigmoid((b - a) / t) - sigmoid((-b - a) / t), 0.0, 1.0)
    return out


def outcome_probabilities(
    delta: FloatArray | float,
    lapse: FloatArray | float,
    temperature: FloatArray | float,
    band: FloatArray | float,
) -> FloatArray:
    """P(left), P(right), P(can't tell) of an answer (last axis), broadcast over the inputs.

    ``delta`` is Δ = ψ(left) − ψ(right) in the metric's natural units; ``lapse`` ε,
    ``temperature`` T and ``band`` δ as in the module docstring (T = 0: the step).

    >>> p = outcome_probabilities(0.01, 0.1, 0.0, 0.0)
    >>> [round(float(x), 3) for x in p]
    [0.95, 0.05, 0.0]
    >>> p = outcome_probabilities(0.0, 0.0, 0.01, 0.01)
    >>> round(float(p.sum()), 12), round(float(p[2]), 3)
    (1.0, 0.462)
    """
    d, e, t, b = np.broadcast_arrays(
        *(np.asarray(x, dtype=np.float64) for x in (delta, lapse, temperature, band))
    )
    graded = t > 0
    scale = np.where(graded, t, 1.0)
    up = np.where(graded, sigmoid((d - b) / scale), (d > b).astype(np.float64))
    down = np.where(graded, sigmoid((-d - b) / scale), (d < -b).astype(np.float64))
    mid = np.where(graded, _between(d, b, scale), (np.abs(d) <= b).astype(np.float64))
    out: FloatArray = np.stack(
        (e / 2 + (1 - e) * up, e / 2 + (1 - e) * down, (1 - e) * mid), axis=-1
    )
    return out


def particle_outcome_probabilities(
    delta: FloatArray, lapse: FloatArray, temperature: FloatArray, band: FloatArray
) -> FloatArray:
    """:func:`outcome_probabilities` for Δ of shape (particles, questions) and one (ε, T, δ)
    per particle, computing the logistic only where T > 0 (shape (particles, questions, 3))."""
    b = band[:, None]
    up = (delta > b).astype(np.float64)
    down = (delta < -b).astype(np.float64)
    graded = np.flatnonzero(temperature > 0)
    if graded.size:
        x, bg, t = delta[graded], b[graded], temperature[graded, None]
        up[graded] = sigmoid((x - bg) / t)
        down[graded] = sigmoid((-x - bg) / t)
    mid = np.clip(1.0 - up - down, 0.0, 1.0)
    e = lapse[:, None]
    out: FloatArray = np.stack((e / 2 + (1 - e) * up, e / 2 + (1 - e) * down, (1 - e) * mid), -1)
    return out


def _log_answer_likelihood(
    delta: FloatArray,
    outcome: IntArray,
    lapse: FloatArray,
    temperature: FloatArray,
    band: FloatArray,
) -> FloatArray:
    """log P(outcome | Δ, ε, T, δ) for Δ of shape (particles, answers), the answers'
    outcomes (answers,) and one (ε, T, δ) per particle: the observed outcome's column of
    :func:`outcome_probabilities`, computed alone."""
    # An answer "right" is an answer "left" about −Δ.
    d = delta * np.where(outcome == 1, -1.0, 1.0)[None, :]
    b = band[:, None]
    side = (d > b).astype(np.float64)
    graded = np.flatnonzero(temperature > 0)
    scale = temperature[graded, None]
    if graded.size:
        side[graded] = sigmoid((d[graded] - b[graded]) / scale)
    e = lapse[:, None]
    p = e / 2 + (1 - e) * side
    unsure = np.flatnonzero(outcome == 2)
    if unsure.size:
        du = d[:, unsure]
        mid = (np.abs(du) <= b).astype(np.float64)
        if graded.size:
            dg, bg = du[graded], b[graded]
            mid[graded] = _between(dg, bg, scale)
        p[:, unsure] = (1 - e) * mid
    with np.errstate(divide="ignore"):
        out: FloatArray = np.log(p)
    return out


def _cell_masses(grid: Sequence[float], density: FloatArray, xs: FloatArray) -> FloatArray:
    """Masses of ``density`` (sampled at ``xs``) over the cells around each grid value
    (cell edges halfway between neighbours), normalised."""
    g = np.asarray(grid, dtype=np.float64)
    edges = np.concatenate(([-np.inf], (g[1:] + g[:-1]) / 2, [np.inf]))
    cell = np.searchsorted(edges, xs, side="right") - 1
    mass = np.bincount(cell, weights=density, minlength=len(g))[: len(g)]
    out: FloatArray = mass / mass.sum()
    return out


def _lapse_prior() -> FloatArray:
    """Prior masses of ``LAPSES``: Beta(κμ, κ(1 − μ)) averaged over ``LAPSE_MEANS``."""
    xs = (np.arange(200_000) + 0.5) / 200_000  # midpoints of (0, 1)
    density = np.zeros_like(xs)
    k = LAPSE_CONCENTRATION
    for mu in LAPSE_MEANS:
        a, b = k * mu, k * (1 - mu)
        log_b = math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)
        density += np.exp((a - 1) * np.log(xs) + (b - 1) * np.log1p(-xs) - log_b)
    return _cell_masses(LAPSES, density / len(LAPSE_MEANS), xs)


def _log_scale_prior(grid: Sequence[float], centres: Sequence[float], sd: float) -> FloatArray:
    """Prior masses of the positive values of ``grid``: log x ~ Normal(log c, sd) with c
    one of ``centres``, equally likely, given mass ``EXACT_SHARE`` at 0."""
    g = np.asarray(grid, dtype=np.float64)
    positive = g > 0
    logs = np.log(g[positive])
    edges = np.concatenate(([-np.inf], (logs[1:] + logs[:-1]) / 2, [np.inf]))
    mass = np.zeros(len(logs))
    for c in centres:
        z = (edges - math.log(c)) / sd
        cdf = np.array([0.5 * math.erfc(-x / math.sqrt(2)) for x in z])
        mass += np.diff(cdf)
    out = np.zeros(len(g))
    out[positive] = (1 - EXACT_SHARE) * mass / mass.sum()
    out[~positive] = EXACT_SHARE / max(1, int((~positive).sum()))
    return out


def _band_prior() -> FloatArray:
    g = np.asarray(BANDS)
    out = np.where(g > 0, (1 - EXACT_SHARE) / max(1, int((g > 0).sum())), EXACT_SHARE)
    return np.asarray(out / out.sum(), dtype=np.float64)


@dataclass(frozen=True)
class NoiseGrid:
    """The grid of (ε, T, δ) and its prior; cells are numbered as ``np.ravel_multi_index``
    numbers (ε, T, δ) indices."""

    lapses: tuple[float, ...]
    temperatures: tuple[float, ...]
    bands: tuple[float, ...]
    lapse_prior: FloatArray = field(repr=False, compare=False)
    temperature_prior: FloatArray = field(repr=False, compare=False)
    band_prior: FloatArray = field(repr=False, compare=False)
    #: Per flat cell: ε, T, δ and the log prior mass (lookup tables).
    cell_lapse: FloatArray = field(init=False, repr=False, compare=False)
    cell_temperature: FloatArray = field(init=False, repr=False, compare=False)
    cell_band: FloatArray = field(init=False, repr=False, compare=False)
    cell_log_prior: FloatArray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        i, j, k = np.unravel_index(np.arange(int(np.prod(self.shape))), self.shape)
        object.__setattr__(self, "cell_lapse", np.asarray(self.lapses, dtype=np.float64)[i])
        object.__setattr__(
            self, "cell_temperature", np.asarray(self.temperatures, dtype=np.float64)[j]
        )
        object.__setattr__(self, "cell_band", np.asarray(self.bands, dtype=np.float64)[k])
        with np.errstate(divide="ignore"):
            log_prior = (
                np.log(self.lapse_prior)[i]
                + np.log(self.temperature_prior)[j]
                + np.log(self.band_prior)[k]
            )
        object.__setattr__(self, "cell_log_prior", log_prior)

    @property
    def shape(self) -> tuple[int, int, int]:
        return len(self.lapses), len(self.temperatures), len(self.bands)

    def values(self, index: IntArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        """(ε, T, δ) of flat cell indices."""
        return self.cell_lapse[index], self.cell_temperature[index], self.cell_band[index]

    def log_prior(self, index: IntArray) -> FloatArray:
        out: FloatArray = self.cell_log_prior[index]
        return out

    def prior_masses(self) -> FloatArray:
        """Prior mass of every flat cell."""
        out: FloatArray = np.exp(self.cell_log_prior)
        return out


def default_noise_grid() -> NoiseGrid:
    """``LAPSES`` × ``TEMPERATURES`` × ``BANDS`` with their hierarchical priors."""
    return NoiseGrid(
        LAPSES,
        TEMPERATURES,
        BANDS,
        _lapse_prior(),
        _log_scale_prior(TEMPERATURES, TEMPERATURE_SCALES, 1.0),
        _band_prior(),
    )


NOISE_PRIOR = default_noise_grid()


# -- the prior over swing weights ----------------------------------------------------


def _log_dirichlet(s: FloatArray, alpha: float) -> FloatArray:
    n = s.shape[-1]
    with np.errstate(divide="ignore"):
        logs = np.log(s)
    out: FloatArray = (
        math.lgamma(n * alpha) - n * math.lgamma(alpha) + (alpha - 1) * logs.sum(axis=-1)
    )
    return out


def swing_log_prior(
    s: FloatArray, spans: Sequence[float], sparse: float, natural: float
) -> FloatArray:
    """Log density (on the simplex, w.r.t. the first n − 1 coordinates) of the prior
    over swing weights ``s`` (rows): ``sparse`` × Dirichlet(½) + ``natural`` × the density
    that a flat Dirichlet over natural-unit weights a implies, (n − 1)!·Π(1/c_i)·
    (Σ s_j/c_j)^(−n) with c the spans (the Jacobian of a_i ∝ s_i/c_i), + the rest × a flat
    Dirichlet.

    >>> s = np.array([[0.2, 0.3, 0.5]])
    >>> round(float(np.exp(swing_log_prior(s, [1.0, 1.0, 1.0], 0.0, 0.0))[0]), 6)
    2.0
    >>> round(float(np.exp(swing_log_prior(s, [1.0, 1.0, 1.0], 0.0, 1.0))[0]), 6)
    2.0
    """
    n = s.shape[-1]
    if sparse == 0 and natural == 0:
        return _log_dirichlet(s, 1.0)
    parts = []
    flat = 1.0 - sparse - natural
    if flat > 0:
        parts.append(math.log(flat) + _log_dirichlet(s, 1.0))
    if sparse > 0:
        parts.append(math.log(sparse) + _log_dirichlet(s, 0.5))
    if natural > 0:
        c = np.asarray(spans, dtype=np.float64)
        log_nat = (
            math.lgamma(n) - float(np.log(c).sum()) - n * np.log((s / c).sum(axis=-1))
        )
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


def natural_weights(swing: FloatArray, spans: Sequence[float]) -> FloatArray:
    """Natural-unit weights (‖a‖₁ = 1) of swing weights (rows): a_i ∝ s_i / span_i."""
    raw = swing / np.asarray(spans, dtype=np.float64)
    out: FloatArray = raw / raw.sum(axis=-1, keepdims=True)
    return out


def _times(a: FloatArray, b: FloatArray) -> FloatArray:
    """``a @ b`` for a short inner dimension (the weights), summed term by term: a BLAS
    call would start threads for a product this thin, which costs more than it saves."""
    out: FloatArray = a[:, :1] * b[:1, :]
    for i in range(1, a.shape[1]):
        out = out + a[:, i : i + 1] * b[i : i + 1, :]
    return out


def _alr(s: FloatArray) -> FloatArray:
    with np.errstate(divide="ignore"):
        logs = np.log(s)
    out: FloatArray = logs[:, :-1] - logs[:, -1:]
    return out


def _alr_inverse(z: FloatArray) -> FloatArray:
    full = np.concatenate((z, np.zeros((z.shape[0], 1))), axis=1)
    full = np.exp(full - full.max(axis=1, keepdims=True))
    out: FloatArray = np.maximum(full / full.sum(axis=1, keepdims=True), 1e-300)
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

    def ess(self) -> float:
        """Effective sample size of the particles' weights."""
        w = self.weights()
        return float(1.0 / np.sum(w**2))


def _digest(previous: int, query: Query, choice: Choice) -> int:
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
class Candidate:
    """Two candidate models as a question: the query, v(left) − v(right) and its shown key."""

    query: Query
    diff: FloatArray
    shown: ShownKey


@dataclass(frozen=True)
class Trade:
    """A trade as a question: the query as shown and v(left) − v(right)."""

    query: Query
    diff: FloatArray


@dataclass(frozen=True)
class Summary:
    """What the particles say about the candidates (cached per state)."""

    natural: FloatArray  # (N, n) natural-unit weights
    weights: FloatArray  # (N,) normalised particle weights
    psi: FloatArray | None  # (N, M) ψ of the non-dominated candidates
    best: IntArray | None  # (N,) index of each particle's best candidate
    p_best: FloatArray | None  # (M,) posterior probability of being best
    pick: int | None  # Bayes pick (index among the non-dominated candidates)


def _non_dominated(rows: FloatArray) -> IntArray:
    """Indices of the rows no other row weakly dominates (of equal rows, the first)."""
    keep = []
    for i, r in enumerate(rows):
        ge = np.all(rows >= r, axis=1)
        gt = np.any(rows > r, axis=1)
        if np.any(ge & gt) or np.any(np.all(rows[:i] == r, axis=1)):
            continue
        keep.append(i)
    return np.asarray(keep, dtype=np.intp)


def _weighted_quantiles(values: FloatArray, weights: FloatArray, qs: Sequence[float]) -> FloatArray:
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
class JointStrategy(Strategy[JointState]):
    """A joint particle posterior over the weights, questions aimed at the pick (see the
    module docstring)."""

    space: QuerySpace
    spec: ElicitationSpec = field(default_factory=ElicitationSpec)
    seed: int = 0
    #: The candidate models' statistics in the metric's terms (one row each,
    #: :func:`tradeoff.choose.ranking.metric_vectors`), when questions aim at the decision.
    candidates: FloatArray | None = field(default=None, compare=False, repr=False)
    particles: int = PARTICLES
    noise_grid: NoiseGrid = field(default=NOISE_PRIOR, compare=False, repr=False)
    sparse_share: float = SPARSE_PRIOR_SHARE
    name: str = field(default="joint", init=False)
    #: An answer is a likelihood on Δ of its two options, whatever the question.
    learns_from_any_question: bool = field(default=True, init=False)
    _summaries: dict[JointState, Summary] = field(default_factory=dict, compare=False, repr=False)
    _questions: dict[JointState, Query | None] = field(
        default_factory=dict, compare=False, repr=False
    )
    _initial: list[JointState] = field(default_factory=list, compare=False, repr=False)
    _trade_cache: dict[tuple[int, int, float, float], Trade] = field(
        default_factory=dict, compare=False, repr=False
    )
    _readable_cache: dict[tuple[ClassifierProfile, ClassifierProfile], ShownKey | None] = field(
        default_factory=dict, compare=False, repr=False
    )
    #: Indices (into ``candidates``) of the non-dominated candidates, and for every pair
    #: of them that a person could tell apart on the screen: (i, j, diff, shown key, query).
    _front: IntArray = field(init=False, compare=False, repr=False)
    _pairs: dict[tuple[int, int], Candidate] = field(init=False, compare=False, repr=False)
    #: Candidate index by the :func:`~tradeoff.ask.queries.profile_key` of its shown profile (a
    #: recorded pair is recognised whatever the last bits of the machine that recorded it).
    _shown_rows: dict[str, int] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        front = np.empty(0, dtype=np.intp)
        pairs: dict[tuple[int, int], Candidate] = {}
        shown_rows: dict[str, int] = {}
        if self.candidates is not None:
            rows = np.asarray(self.candidates, dtype=np.float64)
            object.__setattr__(self, "candidates", rows)
            front = _non_dominated(rows)
            profiles = {int(i): self.candidate_profile(int(i)) for i in front}
            for i, p in profiles.items():
                shown_rows.setdefault(profile_key(p), i)
            front_list = [int(x) for x in front]
            for a_pos, i in enumerate(front_list):
                for j in front_list[a_pos + 1 :]:
                    left, right = profiles[int(i)], profiles[int(j)]
                    query = Query(
                        left, right, (0, 0), (0.0, 0.0), kind="candidates",
                        candidates=(int(i), int(j)),
                    )
                    if not _readable(self.space, query):
                        continue
                    pairs[(int(i), int(j))] = Candidate(
                        query,
                        self._vector(left) - self._vector(right),
                        question_key(self.space, query, True),
                    )
        object.__setattr__(self, "_front", front)
        object.__setattr__(self, "_pairs", pairs)
        object.__setattr__(self, "_shown_rows", shown_rows)

    # -- settings ---------------------------------------------------------------------

    @property
    def aims_at_decision(self) -> bool:
        """Whether questions and stopping aim at the pick (candidates were given and
        ``stop`` is not ``weights``)."""
        return self.candidates is not None and self.spec.stop != "weights"

    @property
    def shows_rounded(self) -> bool:
        return self.spec.rounding == "shown"

    @property
    def budget(self) -> int:
        if self.spec.budget is not None:
            return self.spec.budget
        return QUESTIONS_PER_RATIO * (self.space.n_weights - 1)

    @property
    def natural_share(self) -> float:
        return NATURAL_PRIOR_SHARE if self.spec.precision == "natural" else 0.0

    # -- statistics of options ----------------------------------------------------------

    def _signs(self) -> FloatArray:
        return np.array(
            [-1.0 if a.kind == "cost" else 1.0 for a in self.space.scenario.attributes]
        )

    def _vector(self, profile: ClassifierProfile) -> FloatArray:
        """The statistics ψ is linear in: d, then each attribute signed."""
        out: FloatArray = np.concatenate(
            (
                np.asarray(profile.accuracies, dtype=np.float64),
                self._signs() * np.asarray(profile.attributes, dtype=np.float64),
            )
        )
        return out

    def candidate_profile(self, index: int) -> ClassifierProfile:
        """Candidate ``index`` as the screen shows it: recalls d_i/ζ_i per 1,000 and every
        attribute in its natural unit, rounded as its format shows it."""
        assert self.candidates is not None
        row = self.candidates[index]
        k = self.space.k
        priors = self.space.priors
        accuracies = tuple(float(x) for x in row[:k])
        recalls = tuple(d / z if z > 0 else 0.0 for d, z in zip(accuracies, priors, strict=True))
        attributes = tuple(float(x) for x in self._signs() * row[k:])
        return shown_profile(
            self.space.scenario, ClassifierProfile(accuracies, recalls, attributes)
        )

    # -- the posterior ------------------------------------------------------------------

    def initial(self) -> JointState:
        """Particles drawn from the prior (the same for every engine with this seed)."""
        if not self._initial:
            rng = np.random.default_rng([self.seed, 0, 0])
            swing = draw_swing_prior(
                rng, self.particles, self.space.spans, self.sparse_share, self.natural_share
            )
            masses = self.noise_grid.prior_masses()
            noise = rng.choice(len(masses), size=self.particles, p=masses).astype(np.intp)
            self._initial.append(
                JointState((), 0, swing, noise, np.zeros(self.particles), 0)
            )
        return self._initial[0]

    def _deltas(self, natural: FloatArray, records: Sequence[JointRecord]) -> FloatArray:
        """Δ of every answer for every particle, shape (particles, answers)."""
        if not records:
            return np.zeros((natural.shape[0], 0))
        out: FloatArray = _times(natural, np.array([r.diff for r in records]).T)
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
        """Σ over ``records`` of log P(answer | particle) (each times its power) from Δ."""
        if not records:
            return np.zeros(delta.shape[0])
        outcomes = np.array([r.outcome for r in records], dtype=np.intp)
        lapse, temp, band = self.noise_grid.values(noise)
        log_p = _log_answer_likelihood(delta, outcomes, lapse, temp, band)
        if powers is not None and powers[-1] != 1.0:
            log_p[:, -1] *= powers[-1]
        out: FloatArray = log_p.sum(axis=1)
        return out

    def _log_prior_z(self, swing: FloatArray) -> FloatArray:
        """Log prior density of swing weights in additive log-ratio coordinates (the prior
        of :func:`swing_log_prior` times the Jacobian Π s_i)."""
        with np.errstate(divide="ignore"):
            out: FloatArray = swing_log_prior(
                swing, self.space.spans, self.sparse_share, self.natural_share
            ) + np.log(swing).sum(axis=1)
        return out

    def _move(
        self,
        swing: FloatArray,
        noise: IntArray,
        records: Sequence[JointRecord],
        rng: np.random.Generator,
        cov: FloatArray,
        power: float = 1.0,
        sweeps: int = MOVE_SWEEPS,
    ) -> tuple[FloatArray, IntArray]:
        """``sweeps`` Metropolis–Hastings sweeps that leave the posterior of
        ``records`` invariant (the last answer's likelihood raised to ``power``): a random
        walk of the weights' additive log-ratios, then a new value of one noise parameter
        (ε, T or δ, uniform on its grid: a symmetric proposal). Each is accepted by prior ×
        the likelihood of every answer so far."""
        n_part, dim = swing.shape[0], swing.shape[1] - 1
        spans = self.space.spans
        diffs = np.array([r.diff for r in records]).T  # (n, t)
        z = _alr(swing)
        delta = _times(natural_weights(swing, spans), diffs)
        prior_z = self._log_prior_z(swing)
        prior_g = self.noise_grid.log_prior(noise)
        powers = np.ones(len(records))
        powers[-1] = power
        lik = self._log_likelihood_of(delta, noise, records, powers)
        chol: FloatArray = np.linalg.cholesky(cov + 1e-8 * np.eye(dim)).astype(np.float64)
        shape = self.noise_grid.shape
        columns = np.arange(n_part)
        for sweep in range(sweeps):
            scale = MOVE_SCALES[sweep % len(MOVE_SCALES)] * 2.38 / math.sqrt(dim)
            step = _times(rng.standard_normal((n_part, dim)), chol.T)
            z_new = np.clip(z + scale * step, -60, 60)
            s_new = _alr_inverse(z_new)
            d_new = _times(natural_weights(s_new, spans), diffs)
            p_new = self._log_prior_z(s_new)
            l_new = self._log_likelihood_of(d_new, noise, records, powers)
            gain = (p_new + l_new) - (prior_z + lik)
            accept = (np.log(rng.random(n_part)) < gain) & np.isfinite(p_new + l_new)
            z = np.where(accept[:, None], z_new, z)
            swing = np.where(accept[:, None], s_new, swing)
            delta = np.where(accept[:, None], d_new, delta)
            prior_z = np.where(accept, p_new, prior_z)
            lik = np.where(accept, l_new, lik)
            coords = np.array(np.unravel_index(noise, shape))  # (3, N)
            which = rng.integers(0, 3, size=n_part)
            coords[which, columns] = (rng.random(n_part) * np.asarray(shape)[which]).astype(
                np.intp
            )
            g_new = np.ravel_multi_index(tuple(coords), shape).astype(np.intp)
            pg_new = self.noise_grid.log_prior(g_new)
            l_new = self._log_likelihood_of(delta, g_new, records, powers)
            gain = (pg_new + l_new) - (prior_g + lik)
            accept = (np.log(rng.random(n_part)) < gain) & np.isfinite(pg_new + l_new)
            noise = np.where(accept, g_new, noise).astype(np.intp)
            prior_g = np.where(accept, pg_new, prior_g)
            lik = np.where(accept, l_new, lik)
        return swing, noise

    def update(self, state: JointState, query: Query, choice: Choice) -> JointState:
        """The state after ``choice`` was given to ``query``: the particles reweighted by
        the answer's likelihood; when too few would carry the weight, the answer is taken
        in tempered steps L^λ (λ rising to 1, each step as large as keeps the effective
        sample size at ``ESS_FLOOR``), the particles resampled and moved after each."""
        choice = Choice(choice)
        record = self._record(state, query, choice)
        records = (*state.records, record)
        key = _digest(state.key, query, choice)
        rng = np.random.default_rng([self.seed, len(records), key])
        swing, noise, moves = state.swing, state.noise, state.moves
        log_w = state.log_weights
        n = len(log_w)
        new = self._log_likelihood(natural_weights(swing, self.space.spans), noise, (record,))
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
            new = self._log_likelihood(natural_weights(swing, self.space.spans), noise, (record,))
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
        z = _alr(swing)
        scarce = 1.0 / float(np.sum(weights**2)) < SCARCE * len(weights)
        shape = previous if scarce else weights
        mean = shape @ z
        cov = np.atleast_2d(((z - mean).T * shape) @ (z - mean))
        cov += 1e-4 * np.eye(cov.shape[0])
        chosen = _systematic(weights, len(weights), rng)
        sweeps = MOVE_SWEEPS * (2 if scarce else 1)
        return self._move(swing[chosen], noise[chosen], records, rng, cov, power, sweeps)

    def _record(self, state: JointState, query: Query, choice: Choice) -> JointRecord:
        shown = question_key(self.space, query, self.shows_rounded)
        diff = tuple(float(x) for x in self._vector(query.left) - self._vector(query.right))
        indices = self._candidate_indices(query)
        repeat = next(
            (i for i in range(len(state.records) - 1, -1, -1) if state.records[i].shown == shown),
            None,
        )
        if indices is not None:
            return JointRecord(
                diff, _OUTCOME[choice], "candidates", shown, candidates=indices, repeat_of=repeat
            )
        pair = query.pair if query.pair[0] != query.pair[1] else None
        return JointRecord(
            diff, _OUTCOME[choice], "trade", shown, pair, query.threshold, repeat_of=repeat
        )

    def _candidate_indices(self, query: Query) -> tuple[int, int] | None:
        """The candidates' indices when both options are candidate models as shown."""
        left = self._shown_rows.get(profile_key(query.left))
        right = self._shown_rows.get(profile_key(query.right))
        if left is None or right is None:
            return None
        return left, right

    def candidate_query(self, left: int, right: int) -> Query | None:
        """Candidates ``left`` and ``right`` (indices into the candidates) as a question of
        the kind "candidates", as the screen shows them, or ``None`` when a person could not
        tell them apart there (they read the same, or one reads better on every line) or
        one of them is dominated."""
        c = self._pairs.get((min(left, right), max(left, right)))
        if c is None:
            return None
        return c.query if left < right else c.query.swapped()

    def is_candidate_pair(self, query: Query) -> bool:
        """Whether both options are candidate models exactly as this strategy shows them
        (a recorded question of the kind "candidates")."""
        return self._candidate_indices(query) is not None

    def summary(self, state: JointState) -> Summary:
        """Natural-unit weights, particle weights and the candidates' ψ (cached)."""
        cached = self._summaries.get(state)
        if cached is not None:
            return cached
        natural = natural_weights(state.swing, self.space.spans)
        weights = self.robust_weights(state)
        psi = best = p_best = None
        pick = None
        if self.candidates is not None:
            psi = _times(natural, self.candidates[self._front].T)
            best = np.argmax(psi, axis=1).astype(np.intp)
            p_best = np.bincount(best, weights=weights, minlength=len(self._front)).astype(
                np.float64
            )
            pick = stable_argmax(weights @ psi)
        out = Summary(natural, weights, psi, best, p_best, pick)
        if len(self._summaries) > 64:
            self._summaries.clear()
        self._summaries[state] = out
        return out

    # -- what the engine asks -------------------------------------------------------------

    def decision(self, state: JointState) -> tuple[float, float] | None:
        """(P(best) of the Bayes pick, its expected regret relative to the metric's mean
        spread over the candidates), under the posterior as :meth:`summary` weighs it (its
        noisy tails weighed up), or ``None`` without candidates."""
        s = self.summary(state)
        if s.psi is None or s.p_best is None or s.pick is None:
            return None
        top = s.psi.max(axis=1)
        spread = float(s.weights @ (top - s.psi.min(axis=1))) or 1.0
        regret = float(s.weights @ (top - s.psi[:, s.pick]))
        return float(s.p_best[s.pick]), regret / spread

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

    def pick(self, state: JointState) -> int | None:
        """Index (into the candidates) of the Bayes pick, or ``None`` without candidates."""
        s = self.summary(state)
        return None if s.pick is None else int(self._front[s.pick])

    def p_best(self, state: JointState) -> FloatArray | None:
        """Posterior probability that each candidate is best (dominated ones: 0)."""
        s = self.summary(state)
        if s.p_best is None or self.candidates is None:
            return None
        out = np.zeros(len(self.candidates))
        out[self._front] = s.p_best
        return out

    def weight_draws(self, state: JointState) -> FloatArray:
        """An equally weighted (systematic, seeded) resample of the particles'
        natural-unit weights."""
        s = self.summary(state)
        rng = np.random.default_rng([self.seed, state.answered, state.key, 7])
        out: FloatArray = s.natural[_systematic(s.weights, len(s.weights), rng)]
        return out

    def noise_posterior(self, state: JointState) -> tuple[float, float, float]:
        """Posterior means of ε, T and δ."""
        lapse, temp, band = self.noise_grid.values(state.noise)
        w = state.weights()
        return float(w @ lapse), float(w @ temp), float(w @ band)

    def stop_reason(self, state: JointState) -> str | None:
        """Why the questions stop now (``None`` while they go on): "budget", "decided",
        "precise" or "exhausted"."""
        reason = self._stop_before_choosing(state)
        if reason is None and self.next_question(state) is None:
            return "exhausted"
        return reason

    def _stop_before_choosing(self, state: JointState) -> str | None:
        if state.answered >= self.budget:
            return "budget"
        if self.aims_at_decision:
            known = self.decision(state)
            assert known is not None
            if self.spec.decided(*known):
                return "decided"
            return None
        width = self.spec.target_width
        if (
            width > 0
            and state.answered > 0
            and all(settled(hi - lo) < width for lo, hi in self._intervals(state)[0])
        ):
            return "precise"
        return None

    def next_question(self, state: JointState) -> Query | None:
        """The next question (cached per state), or ``None`` once the questions stop."""
        if state not in self._questions:
            if len(self._questions) > 256:
                self._questions.clear()
            self._questions[state] = (
                None if self._stop_before_choosing(state) is not None else self._choose(state)
            )
        return self._questions[state]

    # -- choosing a question ------------------------------------------------------------------

    def _shows(self, state: JointState) -> dict[ShownKey, int]:
        out: dict[ShownKey, int] = {}
        for rec in state.records:
            out[rec.shown] = out.get(rec.shown, 0) + 1
        return out

    def _trades(self, summary: Summary) -> list[Trade]:
        """Trades between every class and every other statistic, aimed at the posterior
        quantiles of their exchange rate, at the sizes of ``TRADE_SHARES``, as the screen
        shows them (not yet checked for what a person can read)."""
        space = self.space
        a, w = summary.natural, summary.weights
        out: list[Trade] = []
        # Two trades that are the same in exact arithmetic are one option on every machine.
        seen: set[tuple[str, str]] = set()
        pairs = [(i, j) for i in range(space.k) for j in range(i + 1, space.n_weights)]
        m = np.stack([a[:, i] / (a[:, i] + a[:, j]) for i, j in pairs], axis=1)
        targets = _weighted_quantiles(m, w, TRADE_QUANTILES)
        for col, (i, j) in enumerate(pairs):
            for target in targets[:, col]:
                aim = round(logit(float(target)), TRADE_AIM_DIGITS)
                for share in TRADE_SHARES:
                    t = self._trade(i, j, aim, share)
                    key = (profile_key(t.query.left), profile_key(t.query.right))
                    if key in seen:
                        continue
                    seen.add(key)
                    out.append(t)
        return out

    def _trade(self, i: int, j: int, aim: float, share: float) -> Trade:
        """The trade of statistic ``i`` (a class) against ``j`` at the exchange rate
        logit m = ``aim`` and size ``share``, as the screen shows it (cached: a pure
        function of its arguments)."""
        key = (i, j, aim, share)
        cached = self._trade_cache.get(key)
        if cached is not None:
            return cached
        space = self.space
        query = space.trade(i, j, 1.0 / (1.0 + math.exp(-aim)), share)
        if self.shows_rounded:
            query = as_shown(space, query)
        out = Trade(query, self._vector(query.left) - self._vector(query.right))
        if len(self._trade_cache) > 20_000:
            self._trade_cache.clear()
        self._trade_cache[key] = out
        return out

    def _shown_key(self, query: Query) -> ShownKey | None:
        """The trade's two options as the screen shows them
        (:func:`~tradeoff.ask.shown.question_key`), or ``None`` when a person could not
        answer it from the screen (cached)."""
        key = (query.left, query.right)
        if key in self._readable_cache:
            return self._readable_cache[key]
        out: ShownKey | None = None
        if not self.shows_rounded or unanswerable(self.space.scenario, query) is None:
            out = question_key(self.space, query, self.shows_rounded)
        if len(self._readable_cache) > 20_000:
            self._readable_cache.clear()
        self._readable_cache[key] = out
        return out

    def _options(self, summary: Summary) -> list[Trade | Candidate]:
        """Every question that may be scored now (both kinds), before what a person can
        read and what was shown before are checked (:meth:`_allowed`)."""
        options: list[Trade | Candidate] = list(self._trades(summary))
        if self.aims_at_decision and summary.best is not None:
            share = np.bincount(summary.best, weights=summary.weights, minlength=len(self._front))
            live = {int(self._front[i]) for i in np.flatnonzero(share >= MIN_BEST_SHARE)}
            options.extend(c for (i, j), c in self._pairs.items() if i in live and j in live)
        return options

    def _allowed(self, state: JointState, option: Trade | Candidate) -> ShownKey | None:
        """The option's shown key when it may be asked now, else ``None``: a person could
        not read it, it was shown ``MAX_SHOWS`` times or answered "can't tell", or (a
        trade) its exchange rate lies within ``UNSURE_GAP`` of one answered "can't tell"
        on the same two statistics."""
        key = option.shown if isinstance(option, Candidate) else self._shown_key(option.query)
        if key is None:
            return None
        shows = sum(r.shown == key for r in state.records)
        if shows >= MAX_SHOWS or any(r.shown == key and r.outcome == 2 for r in state.records):
            return None
        t = option.query.threshold
        if isinstance(option, Trade) and t is not None:
            for r in state.records:
                if (
                    r.outcome == 2
                    and r.pair == option.query.pair
                    and r.threshold is not None
                    and abs(logit(t) - logit(r.threshold)) < UNSURE_GAP
                ):
                    return None
        return key

    def _scores(
        self, summary: Summary, state: JointState, options: Sequence[Trade | Candidate]
    ) -> FloatArray:
        """The loss left after each question (lower is better), by a one-step look-ahead
        over its three answers and the particles (see the module docstring)."""
        a, w = summary.natural, summary.weights
        diffs = np.array([c.diff for c in options])  # (Q, n)
        delta = _times(a, diffs.T)  # (N, Q)
        lapse, temp, band = self.noise_grid.values(state.noise)
        probs = particle_outcome_probabilities(delta, lapse, temp, band)  # (N, Q, 3)
        joint = probs * w[:, None, None]  # P(particle, answer)
        n_q = len(options)
        flat = joint.reshape(len(w), n_q * 3)
        if self.aims_at_decision and summary.psi is not None and summary.best is not None:
            psi = summary.psi
            top = psi.max(axis=1)
            spread = float(w @ (top - psi.min(axis=1))) or 1.0
            # Expected regret of the Bayes pick after each answer:
            # E[max_m ψ_m] − Σ_answers max_m Σ_n P(n, answer)·ψ_nm.
            value = (flat.T @ psi).reshape(n_q, 3, -1).max(axis=2).sum(axis=1)
            regret = (float(w @ top) - value) / spread
            # Information each answer carries about which candidate is best (nats).
            one_hot = np.zeros((len(w), psi.shape[1]))
            one_hot[np.arange(len(w)), summary.best] = 1.0
            p_joint = (flat.T @ one_hot).reshape(n_q, 3, -1)  # P(answer, best)
            p_answer = p_joint.sum(axis=2, keepdims=True)
            p_best = p_joint.sum(axis=1, keepdims=True)
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = np.where(p_joint > 0, p_joint / (p_answer * p_best), 1.0)
            info = (p_joint * np.log(ratio)).sum(axis=(1, 2))
            out: FloatArray = np.maximum(regret, 0.0) - INFORMATION_WEIGHT * info
            return out
        # Expected L1 error of the swing weights' posterior mean after each answer.
        s = state.swing
        p_answer = flat.sum(axis=0)  # (Q*3,)
        with np.errstate(invalid="ignore", divide="ignore"):
            means = (flat.T @ s) / p_answer[:, None]  # (Q*3, n)
        means = np.nan_to_num(means)
        loss = np.empty(n_q * 3)
        for col in range(n_q * 3):
            loss[col] = flat[:, col] @ np.abs(s - means[col]).sum(axis=1)
        return np.asarray(loss.reshape(n_q, 3).sum(axis=1), dtype=np.float64)

    def _choose(self, state: JointState) -> Query | None:
        summary = self.summary(state)
        options = self._options(summary)
        if not options:
            return None
        scores = self._scores(summary, state, options)
        # Scores equal to DIGITS digits fall in the options' order on every machine.
        for index in stable_order(scores):
            option = options[int(index)]
            key = self._allowed(state, option)
            if key is None:
                continue
            query = option.query
            repeat = next(
                (i for i in range(state.answered - 1, -1, -1) if state.records[i].shown == key),
                None,
            )
            if np.random.default_rng([self.seed, state.answered]).random() >= 0.5:
                query = query.swapped()
            if repeat is not None:
                query = replace(query, repeat_of=repeat)
            return query
        return None  # nothing left that a person could tell apart

    # -- results ------------------------------------------------------------------------

    def _intervals(
        self, state: JointState
    ) -> tuple[tuple[tuple[float, float], ...], tuple[tuple[float, float], ...]]:
        s = self.summary(state)
        nat = _weighted_quantiles(s.natural, s.weights, (0.05, 0.95))
        sw = _weighted_quantiles(state.swing, s.weights, (0.05, 0.95))
        return (
            tuple((float(lo), float(hi)) for lo, hi in nat.T),
            tuple((float(lo), float(hi)) for lo, hi in sw.T),
        )

    def result(self, state: JointState) -> ElicitationResult:
        s = self.summary(state)
        weights = tuple(float(x) for x in s.weights @ s.natural)
        intervals, swing_intervals = self._intervals(state)
        lapse, _, _ = self.noise_posterior(state)
        return ElicitationResult(
            strategy=self.name,
            names=self.space.names,
            weights=weights,
            answers=state.answered,
            complete=self.next_question(state) is None,
            intervals=intervals,
            error_rate_estimate=lapse / 2,
            swing_weights=swing_weights(weights, self.space.spans),
            swing_intervals=swing_intervals,
            priors=tuple(float(z) for z in self.space.priors),
        )

    def consistency(self, state: JointState) -> tuple[int, int]:
        """(repeated questions answered the same way both times, repeated questions)."""
        same = total = 0
        for rec in state.records:
            if rec.repeat_of is None:
                continue
            total += 1
            same += _preference(rec) == _preference(state.records[rec.repeat_of])
        return same, total

    def expected_total(self, state: JointState) -> int:
        return self.budget

    def kinds(self, state: JointState) -> tuple[str, ...]:
        """The kind of every question answered so far ("trade" or "candidates")."""
        return tuple(r.kind for r in state.records)


def _preference(record: JointRecord) -> tuple[float, ...]:
    """An answer whatever side each option was shown on: the preferred option's
    statistics minus the other's (zeros for "can't tell")."""
    sign = (1.0, -1.0, 0.0)[record.outcome]
    return tuple(sign * x + 0.0 for x in record.diff)


def _readable(space: QuerySpace, query: Query) -> bool:
    """Whether a person could tell two candidate models apart on the screen: they read
    differently and each is better on something (else one reads better on every line)."""
    lines = card_lines(space.scenario, query.left, query.right)
    differing = [line for line in lines if line.differs]
    return bool(differing) and any(x.better for x in differing) and not all(
        x.better for x in differing
    )
