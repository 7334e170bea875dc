"""How a person answers: the likelihood of an answer and the prior over its noise.

Strategy `joint` (:mod:`~tradeoff.learn.particles`) takes every answer through this model.

* **Likelihood.** Every answer, whatever the question (a hypothetical trade or two real
  candidate models), is about Δ = a·(v_left − v_right): ψ of the left option minus ψ of
  the right one, with the natural-unit weights a (‖a‖₁ = 1) and the statistics v the metric
  is linear in (d_i, then each attribute signed so that higher is better), in the same
  units as the simulated people's T and τ (:mod:`tradeoff.simulation.oracles`). A person
  attends with probability 1 − ε; attending, they perceive Δ + T·L (L standard logistic);
  when that lies within ±δ they say "can't tell" with probability ρ (``UNSURE_SHARE``),
  else they pick the side it favours; lapsing (probability ε), they pick a side at random
  (:func:`outcome_probabilities`). That is the band model B at δ with weight ρ and at 0
  (forced choice) with weight 1 − ρ, P = ρ·B(δ) + (1 − ρ)·B(0), where::

      B(left; δ)        = ε/2 + (1 − ε)·σ((Δ − δ)/T)
      B(right; δ)       = ε/2 + (1 − ε)·σ((−Δ − δ)/T)
      B(can't tell; δ)  = (1 − ε)·[σ((δ − Δ)/T) − σ((−δ − Δ)/T)]

  each summing to 1; T = 0 is the step (σ(x/0) = 1 for x > 0, 0 for x < 0; "can't tell"
  when |Δ| ≤ δ), δ = 0 a person who never says "can't tell" (forced choice). No ratio is
  taken against a reference class. With ρ = 1 (the band model alone) an answer "left"
  within the band could only be a lapse, so one "can't tell", which rules out δ = 0,
  turned the earlier answers closest to the person's exchange rate (those that had
  narrowed it) into likely lapses, and intervals they had settled widened: after 25
  exact answers, one "can't tell" exactly at the person's own exchange rate took the
  posterior mean lapse rate from 0.033 to 0.078 (tests/learn/test_cant_tell.py) and, over
  20 people, widened 30% of the exchange rates by more than a tenth. With ρ = ½ the lapse
  rate stays at 0.034 and 3% widen (``benchmarks/results/cant-tell.md``): an answer within
  the band costs at most a factor of about 1 − ρ, and a "can't tell" says what it should,
  that the exchange rate is near this question's.
* **Noise grids.** ε, T and δ are unknown: each particle carries one point of the grid
  ``LAPSES`` × ``TEMPERATURES`` × ``BANDS``, drawn from hierarchical priors
  (:data:`NOISE_PRIOR`): ε ~ Beta(κμ, κ(1 − μ)) with the mean μ itself uncertain
  (``LAPSE_MEANS``), so that lapse rates up to a half (one answer in four wrong) keep
  prior mass; T = 0 (answers from the numbers) with probability ``EXACT_SHARE``, else
  log T normal around a scale that is itself uncertain (``TEMPERATURE_SCALES``); δ = 0
  with probability ``EXACT_SHARE``, else log-uniform on the grid. P(best) and every
  summary marginalise over them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from tradeoff.arrays import FloatArray, IntArray
from tradeoff.learn.base import Choice
from tradeoff.stable import sigmoid

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
#: ρ: the share of the answers, of those whose perceived difference lies within the band
#: ±δ, that are "can't tell" (the others pick the side perceived as better). Fixed, not
#: learned: below 1, an answer within the band is never only a lapse
#: (benchmarks/results/cant-tell.md compares ρ = 1, 0.9, 0.75 and ½).
UNSURE_SHARE = 0.5
#: Prior probability that T = 0 (and, separately, that δ = 0).
EXACT_SHARE = 0.5
#: Hyperprior of T > 0: log T ~ Normal(log τ, 1) with τ one of these, equally likely.
TEMPERATURE_SCALES = (0.001, 0.01)

#: The column of each answer in :func:`outcome_probabilities`.
OUTCOME = {Choice.LEFT: 0, Choice.RIGHT: 1, Choice.INDIFFERENT: 2}


def _between(d: FloatArray, b: FloatArray, t: FloatArray) -> FloatArray:
    """P(perceived Δ + T·L lies within ±δ) = σ((δ − Δ)/T) − σ((−δ − Δ)/T), computed at
    |Δ| (it is even in Δ), where both terms are small in the tails and do not cancel."""
    a = np.abs(d)
    out: FloatArray = np.clip(sigmoid((b - a) / t) - sigmoid((-b - a) / t), 0.0, 1.0)
    return out


def _sigmoid_into(a: FloatArray, out: FloatArray, work: FloatArray) -> None:
    """:func:`~tradeoff.stable.sigmoid` of ``a`` written into ``out`` (``work``: scratch of
    the same shape), by the same operations: the same numbers, without new arrays. ``out``
    may be ``a`` itself.

    >>> a = np.array([[-40.0, 0.0, 3.0]]); out = np.empty_like(a)
    >>> _sigmoid_into(a, out, np.empty_like(a)); bool((out == sigmoid(a)).all())
    True
    >>> x = a.copy(); _sigmoid_into(x, x, np.empty_like(x)); bool((x == sigmoid(a)).all())
    True
    """
    positive = a >= 0  # before ``out`` is written: it may be ``a``
    np.abs(a, out=work)
    np.negative(work, out=work)
    np.exp(work, out=work)  # e^(−|a|)
    # 1 where a ≥ 0 (e^(−|a|) ≤ 1: the larger is 1), else e^(−|a|) (the larger beside 0):
    # the numbers of a masked copy, without its branch per element (several times faster).
    np.maximum(work, positive, out=out)
    work += 1.0
    out /= work


def _sigmoid_pair_into(a: FloatArray, up: FloatArray, down: FloatArray, work: FloatArray) -> None:
    """σ(a) written into ``up`` and σ(−a) into ``down`` from one exp (``work``: scratch of
    the same shape): e^(−|a|) is the same for a and −a, so these are the numbers of
    :func:`~tradeoff.stable.sigmoid` of each, to the last bit.

    >>> a = np.array([[-40.0, -0.0, 0.0, 3.0]]); up, down = np.empty_like(a), np.empty_like(a)
    >>> _sigmoid_pair_into(a, up, down, np.empty_like(a))
    >>> bool((up == sigmoid(a)).all()), bool((down == sigmoid(-a)).all())
    (True, True)
    """
    np.abs(a, out=work)
    np.negative(work, out=work)
    np.exp(work, out=work)  # e^(−|a|)
    # 1 on the side whose argument is ≥ 0, else e^(−|a|), as in :func:`_sigmoid_into`.
    np.maximum(work, a >= 0, out=up)
    np.maximum(work, a <= 0, out=down)  # −a ≥ 0
    work += 1.0
    up /= work
    down /= work


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
    (1.0, 0.231)
    >>> [round(float(x), 3) for x in outcome_probabilities(0.001, 0.0, 0.0, 0.002)]
    [0.5, 0.0, 0.5]
    """
    d, e, t, b = np.broadcast_arrays(
        *(np.asarray(x, dtype=np.float64) for x in (delta, lapse, temperature, band))
    )
    graded = t > 0
    scale = np.where(graded, t, 1.0)
    rho = UNSURE_SHARE
    # The band model at δ (weight ρ) and at 0 (forced choice, weight 1 − ρ).
    up = rho * np.where(graded, sigmoid((d - b) / scale), (d > b).astype(np.float64))
    up += (1 - rho) * np.where(graded, sigmoid(d / scale), (d > 0).astype(np.float64))
    down = rho * np.where(graded, sigmoid((-d - b) / scale), (d < -b).astype(np.float64))
    down += (1 - rho) * np.where(graded, sigmoid(-d / scale), (d < 0).astype(np.float64))
    mid = rho * np.where(graded, _between(d, b, scale), (np.abs(d) <= b).astype(np.float64))
    mid += (1 - rho) * np.where(graded, 0.0, (d == 0).astype(np.float64))
    out: FloatArray = np.stack(
        (e / 2 + (1 - e) * up, e / 2 + (1 - e) * down, (1 - e) * mid), axis=-1
    )
    return out


def answer_probabilities(
    delta: FloatArray,
    lapse: FloatArray,
    temperature: FloatArray,
    band: FloatArray,
    weights: FloatArray | None = None,
    unsure: bool = True,
) -> FloatArray:
    """:func:`outcome_probabilities` for Δ of shape (questions, particles) and one (ε, T, δ)
    per particle, computing the logistic only where T > 0, each particle's column times its
    ``weights`` when given (P(particle, answer)): shape (3, questions, particles), the
    answers left, right and can't tell first (the look-ahead's layout: a row per question
    and answer, the per-particle operations along rows). With ``unsure=False`` only left
    and right (shape (2, questions, particles)): "can't tell" is the rest of each column.

    >>> d = np.array([[0.01], [-0.01]])  # two questions, one particle
    >>> one = np.array([0.1]), np.array([0.0]), np.array([0.0])
    >>> np.round(answer_probabilities(d, *one)[:, :, 0], 3).tolist()
    [[0.95, 0.05], [0.05, 0.95], [0.0, 0.0]]
    >>> np.round(answer_probabilities(d, *one, np.array([0.5]))[:, 0, 0], 3).tolist()
    [0.475, 0.025, 0.0]
    >>> answer_probabilities(d, *one, unsure=False).shape
    (2, 2, 1)
    """
    b = band[None, :]
    out: FloatArray = np.empty((3 if unsure else 2, *delta.shape))
    up, down = out[0], out[1]
    graded = np.flatnonzero(temperature > 0)
    # The particles with a temperature as one block of columns when they come first (the
    # look-ahead orders them so: :func:`~tradeoff.learn.lookahead.graded_first`), else
    # gathered.
    first = graded.size == 0 or graded[-1] == graded.size - 1
    steps = slice(graded.size, None) if first else slice(None)
    # Answering from the numbers (T = 0): a step.
    np.greater(delta[:, steps], b[:, steps], out=up[:, steps])
    np.less(delta[:, steps], -b[:, steps], out=down[:, steps])
    mixed = False  # whether ρ·band + (1 − ρ)·forced choice is taken already
    if graded.size and first:
        # One block: the logistic written straight into it. Its particles with δ = 0 first
        # (:func:`~tradeoff.learn.lookahead.graded_first` orders them so) take σ(Δ/T) and
        # σ(−Δ/T) from one exp.
        g = graded.size
        exact = band[:g] == 0
        z = int(exact.sum())
        z = z if exact[:z].all() else 0
        if z:
            arg = delta[:, :z] / temperature[None, :z]  # (Δ − 0)/T
            _sigmoid_pair_into(arg, up[:, :z], down[:, :z], np.empty_like(arg))
        if z < g:
            cols = slice(z, g)
            x, bg, t = delta[:, cols], b[:, cols], temperature[None, cols]
            arg = x - bg
            arg /= t
            work = np.empty_like(arg)
            _sigmoid_into(arg, up[:, cols], work)
            np.negative(x, out=arg)
            arg -= bg
            arg /= t
            _sigmoid_into(arg, down[:, cols], work)
            if bool((band[cols] > 0).all()):
                # Their forced choice, σ(±Δ/T) from one exp, mixed in on the block.
                np.divide(x, t, out=arg)
                free_up, free_down = np.empty_like(arg), np.empty_like(arg)
                _sigmoid_pair_into(arg, free_up, free_down, work)
                _mix_into(up[:, cols], free_up)
                _mix_into(down[:, cols], free_down)
                mixed = True
        else:
            mixed = True
        if mixed and g < delta.shape[1]:
            # Forced choice of those answering from the numbers: sides by the sign of Δ (a
            # particle with δ = 0 is left as it is: ρ·1 + (1 − ρ)·1 is 1, and 0 is 0).
            cols = slice(g, None)
            _mix_into(up[:, cols], (delta[:, cols] > 0).astype(np.float64))
            _mix_into(down[:, cols], (delta[:, cols] < 0).astype(np.float64))
    elif graded.size:
        x, bg, t = delta[:, graded], b[:, graded], temperature[None, graded]
        arg = x - bg
        arg /= t
        up[:, graded] = sigmoid(arg)
        np.negative(x, out=arg)
        arg -= bg
        arg /= t
        down[:, graded] = sigmoid(arg)
    if not mixed:
        _mix_forced(delta, temperature, band, up, down)
    w = 1.0 if weights is None else weights[None, :]
    slip = w * lapse[None, :] / 2  # a lapse picks either side
    attend = w * (1 - lapse[None, :])
    up *= attend
    down *= attend
    if unsure:
        # "Can't tell": the rest of the attentive mass (never below 0 where up + down
        # rounds above 1).
        rest = out[2]
        np.subtract(attend, up, out=rest)
        rest -= down
        np.maximum(rest, 0.0, out=rest)
    up += slip
    down += slip
    return out


def _mix_into(side: FloatArray, free: FloatArray) -> None:
    """``side`` made ρ of itself plus 1 − ρ of ``free`` (the forced choice), in place
    (``free`` is overwritten): :func:`_mix_forced` on gathered columns, the look-ahead on
    its blocks."""
    side *= UNSURE_SHARE
    free *= 1 - UNSURE_SHARE
    side += free


def _mix_forced(
    delta: FloatArray, temperature: FloatArray, band: FloatArray, up: FloatArray, down: FloatArray
) -> None:
    """P(left), P(right) of the attentive band model at δ (``up``, ``down``: questions ×
    particles) made ρ of themselves plus 1 − ρ of forced choice, in place, in the columns
    whose δ is not 0 (with δ = 0 both are forced choice)."""
    banded = np.flatnonzero(band > 0)
    if not banded.size:
        return
    x = delta[:, banded]
    t = temperature[banded]
    free_up = (x > 0).astype(np.float64)
    free_down = (x < 0).astype(np.float64)
    g = np.flatnonzero(t > 0)
    if g.size:
        arg = x[:, g] / t[None, g]
        pair_up, pair_down = np.empty_like(arg), np.empty_like(arg)
        _sigmoid_pair_into(arg, pair_up, pair_down, np.empty_like(arg))
        free_up[:, g] = pair_up
        free_down[:, g] = pair_down
    for side, free in ((up, free_up), (down, free_down)):
        part = side[:, banded]
        _mix_into(part, free)
        side[:, banded] = part


def answer_log_likelihoods(
    delta: FloatArray,
    outcome: IntArray,
    lapse: FloatArray,
    temperature: FloatArray,
    band: FloatArray,
) -> FloatArray:
    """log P(outcome | Δ, ε, T, δ) for Δ of shape (answers, particles), the answers'
    outcomes (answers,) and one (ε, T, δ) per particle: the observed outcome's row of
    :func:`outcome_probabilities`, computed alone, one row per answer and one column per
    particle (the per-particle operations run along rows).

    >>> d = np.array([[0.01, 0.01], [-0.01, 0.0]])  # two answers "left", two particles
    >>> noise = np.array([0.1, 0.0]), np.array([0.0, 0.01]), np.array([0.0, 0.0])
    >>> np.round(np.exp(answer_log_likelihoods(d, np.array([0, 0]), *noise)), 3).tolist()
    [[0.95, 0.731], [0.05, 0.5]]
    """
    # An answer "right" is an answer "left" about −Δ.
    d = delta * answer_signs(outcome)[:, None]
    return signed_log_likelihoods(d, np.flatnonzero(outcome == 2), lapse, temperature, band)


def answer_signs(outcome: IntArray) -> FloatArray:
    """−1 for an answer "right", else 1: an answer "right" is an answer "left" about −Δ
    (:func:`signed_log_likelihoods` takes Δ times these).

    >>> answer_signs(np.array([0, 1, 2])).tolist()
    [1.0, -1.0, 1.0]
    """
    out: FloatArray = np.where(outcome == 1, -1.0, 1.0)
    return out


def signed_log_likelihoods(
    d: FloatArray,
    unsure: IntArray,
    lapse: FloatArray,
    temperature: FloatArray,
    band: FloatArray,
    hit: FloatArray | None = None,
    miss: FloatArray | None = None,
    within: FloatArray | None = None,
) -> FloatArray:
    """:func:`answer_log_likelihoods` from Δ times each answer's :func:`answer_signs` (shape
    (answers, particles)) and the rows answered "can't tell" (``unsure``); ``hit`` and
    ``miss``, when given, are log(ε/2 + (1 − ε)) and log(ε/2) per particle
    (:attr:`NoiseGrid.cell_log_hit`, :attr:`NoiseGrid.cell_log_miss` of its cell) and
    ``within`` log(ε/2 + (1 − ε)(1 − ρ)) (:attr:`NoiseGrid.cell_log_within`): the same
    numbers, looked up instead of taken again.

    >>> d = np.array([[0.01, 0.01], [0.01, 0.0]])  # "left", then "right" about −Δ
    >>> noise = np.array([0.1, 0.0]), np.array([0.0, 0.01]), np.array([0.0, 0.0])
    >>> np.round(np.exp(signed_log_likelihoods(d, np.array([], dtype=np.intp), *noise)), 3)
    array([[0.95 , 0.731],
           [0.95 , 0.5  ]])
    """
    rho = UNSURE_SHARE
    graded = np.flatnonzero(temperature > 0)
    # All with a temperature (the stop's check): whole rows, nothing gathered or scattered.
    every = graded.size == d.shape[1]
    with np.errstate(divide="ignore"):
        if every:
            out: FloatArray = np.empty_like(d)
        else:
            # Answering from the numbers (T = 0), P is one of three values per particle,
            # looked up: against Δ, within the band (0 < Δ ≤ δ: ρ say "can't tell"), beyond.
            # Which of the three is the number of (Δ > 0, Δ > δ) that hold (δ ≥ 0), read
            # from one table (a gather, not a masked copy with its branch per element).
            if hit is None or miss is None or within is None:
                hit, miss, within = _step_logs(lapse)
            n = d.shape[1]
            which = (d > 0).astype(np.intp)
            which += d > band[None, :]
            which *= n
            which += np.arange(n)
            out = np.concatenate((miss, within, hit))[which]
        if graded.size:
            _graded_log_likelihoods(d, lapse, temperature, band, graded, every, out)
        if unsure.size:
            b, e = band[None, :], lapse[None, :]
            du = d[unsure]
            mid = rho * (np.abs(du) <= b) + (1 - rho) * (du == 0)
            if every:
                mid[:] = rho * _between(du, b, temperature[None, :])
            elif graded.size:
                bg, tg = b[:, graded], temperature[None, graded]
                mid[:, graded] = rho * _between(du[:, graded], bg, tg)
            out[unsure] = np.log((1 - e) * mid)
    return out


def _step_logs(lapse: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """log P of an answer from the numbers (T = 0) per particle: on the side of Δ beyond
    the band, against Δ, and within the band (0 < Δ ≤ δ: ρ of those say "can't tell").

    >>> [np.round(x, 4).tolist() for x in _step_logs(np.array([0.1]))]
    [[-0.0513], [-2.9957], [-0.6931]]
    """
    with np.errstate(divide="ignore"):
        hit = np.log(lapse / 2 + (1 - lapse) * 1.0)
        miss = np.log(lapse / 2 + 0.0)
        within = np.log(lapse / 2 + (1 - lapse) * (1 - UNSURE_SHARE))
    return hit, miss, within


def _graded_log_likelihoods(
    d: FloatArray,
    lapse: FloatArray,
    temperature: FloatArray,
    band: FloatArray,
    graded: IntArray,
    every: bool,
    out: FloatArray,
) -> None:
    """log(ε/2 + (1 − ε)·P) of the particles with a temperature (columns ``graded``; all
    of them when ``every``), P = ρ·σ((Δ − δ)/T) + (1 − ρ)·σ(Δ/T) (σ((Δ − δ)/T) alone where
    δ = 0), written into their columns of ``out``: the formula's operations, in place."""
    rho = UNSURE_SHARE
    cols: slice | IntArray = slice(None) if every else graded
    scale, eg, bg = temperature[cols], lapse[cols], band[cols]
    dg = d if every else d[:, graded]
    p = dg - bg
    p /= scale
    work = np.empty_like(p)
    _sigmoid_into(p, p, work)  # σ((Δ − δ)/T)
    mixed = np.flatnonzero(bg > 0)  # with δ = 0, forced choice already
    if mixed.size == bg.size:
        free = dg / scale
        _sigmoid_into(free, free, work)  # σ(Δ/T)
        free *= 1 - rho
        p *= rho
        p += free
    elif mixed.size:
        free = dg[:, mixed]
        free /= scale[mixed]
        _sigmoid_into(free, free, work[:, : mixed.size])
        free *= 1 - rho
        part = p[:, mixed]
        part *= rho
        part += free
        p[:, mixed] = part
    p *= 1 - eg
    p += eg / 2
    if every:
        np.log(p, out=out)
    else:
        np.log(p, out=p)
        out[:, graded] = p


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
    #: Per flat cell: log(ε/2 + (1 − ε)) and log(ε/2), the log likelihood of an answer
    #: from the numbers (T = 0) on the side of Δ and against it.
    cell_log_hit: FloatArray = field(init=False, repr=False, compare=False)
    cell_log_miss: FloatArray = field(init=False, repr=False, compare=False)
    #: Per flat cell: log(ε/2 + (1 − ε)(1 − ρ)), the same within the band (0 < Δ ≤ δ).
    cell_log_within: FloatArray = field(init=False, repr=False, compare=False)
    #: Per flat cell: the indices of its ε, T and δ in their grids (3 × cells, small
    #: integers: ranks of the values when each grid increases, :meth:`ranks`).
    cell_coords: IntArray = field(init=False, repr=False, compare=False)

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
        e = self.cell_lapse
        hit, miss, within = _step_logs(e)
        object.__setattr__(self, "cell_log_hit", hit)
        object.__setattr__(self, "cell_log_miss", miss)
        object.__setattr__(self, "cell_log_within", within)
        object.__setattr__(self, "cell_coords", np.array((i, j, k), dtype=np.int16))

    def ranks(self, index: IntArray) -> tuple[IntArray, ...] | None:
        """Per parameter (ε, T, δ), small integers that order flat cell indices as their
        values do (the values' indices in their grids), or ``None`` when a grid does not
        increase: stable sorts of small integers are faster than of floats.

        >>> g = NOISE_PRIOR
        >>> [r.tolist() for r in g.ranks(np.array([0, 1, len(g.cell_lapse) - 1]))]
        [[0, 0, 8], [0, 0, 7], [0, 1, 5]]
        """
        grids = (self.lapses, self.temperatures, self.bands)
        if any(np.any(np.diff(np.asarray(g)) <= 0) for g in grids):
            return None
        coords = self.cell_coords[:, index]
        return coords[0], coords[1], coords[2]

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
