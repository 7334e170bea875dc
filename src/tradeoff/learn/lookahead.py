"""The one-step look-ahead that scores strategy `joint`'s questions: for each question, the
loss left after its answer, averaged over its three answers and the particles. With
candidates, the expected regret of the Bayes pick after the answer (as a share of the
metric's spread) less ``INFORMATION_WEIGHT`` × the information the answer carries about
which model is best (which separates questions when no single answer could change the
pick); without, the expected L1 error of the swing weights' posterior mean (:func:`scores`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tradeoff.arrays import FloatArray, IntArray
from tradeoff.learn.joint_questions import Candidate, Trade
from tradeoff.learn.joint_state import JointState
from tradeoff.learn.likelihood import NoiseGrid, answer_probabilities
from tradeoff.learn.particles import Summary

__all__ = ["INFORMATION_WEIGHT", "carrying", "graded_first", "scores"]


#: Weight of the information about the best model's identity (nats) beside the expected
#: regret (as a share of the metric's spread) when choosing a question.
INFORMATION_WEIGHT = 0.01


def carrying(weights: FloatArray) -> IntArray:
    """Indices of the particles whose weight is not 0. The weights the summaries read weigh
    up the noisiest answers (:meth:`~tradeoff.learn.particles.ParticlePosterior.robust_weights`):
    a particle in none of the noise parameters' upper tails has weight 0 there (about two
    in five), and adds exact zeros to every probability of an answer the look-ahead sums.

    >>> carrying(np.array([0.5, 0.0, 0.25, 0.25])).tolist()
    [0, 2, 3]
    """
    out: IntArray = np.flatnonzero(weights > 0).astype(np.intp)
    return out


def graded_first(
    order: IntArray, temperature: FloatArray, band: FloatArray | None = None
) -> IntArray:
    """``order`` (particle indices) with the particles whose ``temperature`` (indexed by
    particle) is above 0 first, each part in its order: the particles that answer with a
    logistic then form one block of columns (:func:`answer_probabilities` runs the
    logistic on it without gathering). With ``band`` (indexed by particle), the block
    starts with those whose band is 0 (they take both sides' logistic from one exp).

    >>> graded_first(np.array([0, 2, 3, 5]), np.array([0.0, 0, 1e-3, 0, 0, 2e-3])).tolist()
    [2, 5, 0, 3]
    >>> t, b = np.array([1e-3, 1e-3, 0.0, 1e-3]), np.array([0.001, 0.0, 0.0, 0.0])
    >>> graded_first(np.arange(4), t, b).tolist()
    [1, 3, 0, 2]
    """
    graded = temperature[order] > 0
    if band is None:
        out: IntArray = np.concatenate((order[graded], order[~graded])).astype(np.intp)
        return out
    exact = band[order] == 0
    parts = (order[graded & exact], order[graded & ~exact], order[~graded])
    out = np.concatenate(parts).astype(np.intp)
    return out


def scores(
    summary: Summary,
    state: JointState,
    options: Sequence[Trade | Candidate],
    noise_grid: NoiseGrid,
    aims_at_decision: bool,
) -> FloatArray:
    """The loss left after each of ``options`` (lower is better), by a one-step look-ahead
    over its three answers and the particles, under the answer model of ``noise_grid``:
    with candidates and ``aims_at_decision``, the expected regret of the Bayes pick less
    ``INFORMATION_WEIGHT`` × the information about the best model; else the expected L1
    error of the swing weights (see the module docstring)."""
    a, w, noise, swing = summary.natural, summary.weights, state.noise, state.swing
    psi, best = summary.psi, summary.best
    if summary.exact_psi is not None:
        # Answers settle the weights, not the measurements: score what they can settle.
        psi, best = summary.exact_psi, summary.exact_best
    deciding = aims_at_decision and psi is not None and best is not None
    # Only the particles with weight (:func:`carrying`): the others add exact zeros; those
    # answering with a temperature first (:func:`graded_first`), so that the logistic runs
    # on one block of columns.
    order = graded_first(
        carrying(w), noise_grid.cell_temperature[noise], noise_grid.cell_band[noise]
    )
    a, w, noise, swing = a[order], w[order], noise[order], swing[order]
    diffs = np.array([c.diff for c in options])  # (Q, n)
    n_q = len(options)
    lapse, temp, band = noise_grid.values(noise)
    # P(particle, answer): a row per (answer, question), a column per particle.
    delta = diffs @ a.T  # (Q, N)
    # (Deciding, "can't tell" is the rest of each particle's weight: left and right only.)
    sides = answer_probabilities(delta, lapse, temp, band, w, unsure=not deciding)
    flat = sides.reshape(len(sides) * n_q, len(w))
    if deciding:
        assert psi is not None and best is not None
        psi, best = psi[order], best[order]
        m = psi.shape[1]
        top = psi.max(axis=1)
        spread = float(w @ (top - psi.min(axis=1))) or 1.0
        # One product gives both sums over the particles: Σ_n P(n, answer)·ψ_nm (the value
        # of each pick after the answer) and P(answer, best = m) (the particles of each best).
        both = np.zeros((len(w), 2 * m))
        both[:, :m] = psi
        both[np.arange(len(w)), m + best] = 1.0
        # The three answers' probabilities of a particle sum to its weight: the sums of
        # "can't tell" are those of every answer less those of "left" and "right".
        sided = flat @ both
        rest = w @ both - sided[:n_q] - sided[n_q:]
        sums = np.concatenate((sided, rest))
        # Expected regret of the Bayes pick after each answer:
        # E[max_m ψ_m] − Σ_answers max_m Σ_n P(n, answer)·ψ_nm.
        value = sums[:, :m].reshape(3, n_q, -1).max(axis=2).sum(axis=0)
        regret = (float(w @ top) - value) / spread
        # Information each answer carries about which candidate is best (nats).
        p_joint = np.maximum(sums[:, m:], 0.0).reshape(3, n_q, -1)
        p_answer = p_joint.sum(axis=2, keepdims=True)
        p_best = p_joint.sum(axis=0, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(p_joint > 0, p_joint / (p_answer * p_best), 1.0)
        info = (p_joint * np.log(ratio)).sum(axis=(0, 2))
        out: FloatArray = np.maximum(regret, 0.0) - INFORMATION_WEIGHT * info
        return out
    flat = flat.reshape(3, n_q, -1).transpose(2, 1, 0).reshape(len(w), n_q * 3)
    # Expected L1 error of the swing weights' posterior mean after each answer.
    s = swing
    p_answer = flat.sum(axis=0)  # (Q*3,)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = (flat.T @ s) / p_answer[:, None]  # (Q*3, n)
    means = np.nan_to_num(means)
    loss = np.empty(n_q * 3)
    for col in range(n_q * 3):
        loss[col] = flat[:, col] @ np.abs(s - means[col]).sum(axis=1)
    return np.asarray(loss.reshape(n_q, 3).sum(axis=1), dtype=np.float64)
