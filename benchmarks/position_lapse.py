"""An experiment for benchmarks/real_choices.py, not part of the engine: lapses that grow
with an answer's position in the person's sequence of choices (fatigue).

The engine's answer model (:mod:`tradeoff.learn.likelihood`) gives every answer of a
person the same lapse rate ε. Here the answer at position j (0 for a person's first
choice) lapses with

    ε_j = 1 − (1 − ε)·(1 − g)^j,

ε the person's lapse rate as the engine has it and g ≥ 0 a growth per answer, one of
:data:`GROWTH`, with prior mass :data:`NO_GROWTH_SHARE` on g = 0 (no growth) and the rest
spread evenly over the others. g is a property of the study (how tiring its questions are):
its posterior is learnt from the other people's recorded choices (each person's marginal
likelihood under the population prior without them, multiplied over people), and a person's
own posterior starts from it (:func:`growth_posterior`, :func:`growing_predictive`). Only
the lapse depends on the position; the weights, T and δ are the population prior's draws
(:mod:`tradeoff.learn.pooled`) as they are.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from tradeoff.learn.likelihood import outcome_probabilities
from tradeoff.learn.pooled import PopulationPrior

FloatArray = NDArray[np.float64]

#: Growth g of the lapse per answer (0: the engine's own model, every answer alike).
GROWTH = (0.0, 0.01, 0.02, 0.03, 0.05, 0.08, 0.12)
#: Prior probability of no growth (g = 0).
NO_GROWTH_SHARE = 0.5


def growth_prior() -> FloatArray:
    """Prior masses of :data:`GROWTH`.

    >>> [round(float(x), 3) for x in growth_prior()][:3]
    [0.5, 0.083, 0.083]
    """
    rest = (1 - NO_GROWTH_SHARE) / (len(GROWTH) - 1)
    return np.array([NO_GROWTH_SHARE] + [rest] * (len(GROWTH) - 1))


def lapse_at(lapse: FloatArray, growth: FloatArray, position: FloatArray) -> FloatArray:
    """ε_j = 1 − (1 − ε)·(1 − g)^j, broadcast over the inputs.

    >>> round(float(lapse_at(np.array(0.1), np.array(0.0), np.array(7))), 6)
    0.1
    >>> round(float(lapse_at(np.array(0.0), np.array(0.1), np.array(2))), 3)
    0.19
    """
    out: FloatArray = 1 - (1 - lapse) * (1 - growth) ** position
    return out


def _attending(prior: PopulationPrior, d: FloatArray) -> FloatArray:
    """P(left), P(right), P(can't tell) of an attending answer (ε = 0) to the rows ``d``
    (v_left − v_right) under each draw: shape (rows, draws, 3)."""
    _, temperature, band = prior.grid.values(prior.noise)
    out: FloatArray = outcome_probabilities(
        d @ prior.natural.T, 0.0, temperature[None, :], band[None, :]
    )
    return out


def _probabilities(prior: PopulationPrior, d: FloatArray, positions: Sequence[int]) -> FloatArray:
    """P(left), P(right), P(can't tell): shape (growths, rows, draws, 3)."""
    lapse, _, _ = prior.grid.values(prior.noise)
    attending = _attending(prior, d)
    g = np.asarray(GROWTH)[:, None, None]
    e = lapse_at(lapse[None, None, :], g, np.asarray(positions, dtype=float)[None, :, None])
    out: FloatArray = (1 - e)[..., None] * attending[None]
    out[..., :2] += (e / 2)[..., None]
    return out


def log_likelihoods(
    prior: PopulationPrior, d: FloatArray, picked: Sequence[int], positions: Sequence[int]
) -> FloatArray:
    """log P(the answers | draw, g): shape (growths, draws); ``picked`` the column of each
    answer (0 left, 1 right, 2 can't tell), ``positions`` each answer's position.

    >>> from tradeoff.learn.likelihood import NOISE_PRIOR
    >>> draws = PopulationPrior(np.array([[1.0]]), np.zeros(1, dtype=np.intp),
    ...                         np.array([1.0]), ("a",), NOISE_PRIOR, 0.1)
    >>> ll = log_likelihoods(draws, np.array([[1.0], [1.0]]), [0, 1], [0, 5])
    >>> ll.shape, bool(ll[0, 0] < ll[-1, 0])  # a late wrong answer: likelier with growth
    ((7, 1), True)
    """
    if len(picked) == 0:
        return np.zeros((len(GROWTH), len(prior.weights)))
    lapse, _, _ = prior.grid.values(prior.noise)
    rows = np.arange(len(picked))
    picked_array = np.asarray(picked)
    attending = _attending(prior, d)[rows, :, picked_array]  # (rows, draws)
    g = np.asarray(GROWTH)[:, None, None]
    e = lapse_at(lapse[None, None, :], g, np.asarray(positions, dtype=float)[None, :, None])
    chosen = (1 - e) * attending[None] + (e / 2) * (picked_array < 2)[None, :, None]
    out: FloatArray = np.log(np.maximum(chosen, 1e-300)).sum(axis=1)
    return out


def log_marginal(prior: PopulationPrior, log_lik: FloatArray) -> FloatArray:
    """log P(the answers | g) under ``prior``'s draws: one value per growth."""
    terms = log_lik + np.log(prior.weights)[None, :]
    top = terms.max(axis=1, keepdims=True)
    out: FloatArray = top[:, 0] + np.log(np.exp(terms - top).sum(axis=1))
    return out


def growth_posterior(log_marginals: Sequence[FloatArray]) -> FloatArray:
    """P(g | the people's answers) ∝ prior(g)·Π_people P(their answers | g).

    >>> flat = [np.zeros(len(GROWTH))] * 3  # answers that cannot tell g apart
    >>> bool(np.allclose(growth_posterior(flat), growth_prior()))
    True
    >>> steep = np.array([-3.0, -2, -1, 0, 1, 2, 3])
    >>> int(np.argmax(growth_posterior([steep] * 20)))
    6
    """
    total = np.log(growth_prior()) + np.sum(log_marginals, axis=0)
    w = np.exp(total - total.max())
    out: FloatArray = w / w.sum()
    return out


def growing_predictive(
    prior: PopulationPrior,
    growth: FloatArray,
    log_lik: FloatArray,
    holdout: tuple[FloatArray, Sequence[int]],
) -> tuple[FloatArray, FloatArray]:
    """P(left), P(right), P(can't tell) of each held-out row (rows v_left − v_right and
    their positions), and the person's posterior of g, after their answers (``log_lik``
    of :func:`log_likelihoods`), starting from ``prior``'s draws and ``growth`` (P(g),
    from the other people).

    Examples
    --------
    >>> from tradeoff.learn.likelihood import NOISE_PRIOR
    >>> draws = PopulationPrior(np.array([[1.0], [-1.0]]), np.zeros(2, dtype=np.intp),
    ...                         np.array([0.5, 0.5]), ("a", "b"), NOISE_PRIOR, 0.1)
    >>> ll = log_likelihoods(draws, np.ones((3, 1)), [0] * 3, [0, 1, 2])
    >>> p, g = growing_predictive(draws, growth_prior(), ll, (np.ones((1, 1)), [3]))
    >>> bool(p[0, 0] > 0.9), round(float(g.sum()), 6)
    (True, 1.0)
    """
    with np.errstate(divide="ignore"):  # a growth given no mass keeps none
        log_w = log_lik + np.log(prior.weights)[None, :] + np.log(growth)[:, None]
    w = np.exp(log_w - log_w.max())
    w /= w.sum()
    d_new, new_positions = holdout
    probs = _probabilities(prior, d_new, new_positions)
    out: FloatArray = np.einsum("grdk,gd->rk", probs, w)
    return out, w.sum(axis=1)
