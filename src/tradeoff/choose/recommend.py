"""The recommendation: the model a person's own metric makes best (a Bayes decision).

:func:`recommend` takes the weights the person's answers give (a point estimate, or
posterior draws of them) and the pool's ψ rows (:func:`tradeoff.choose.pool_metric.metric_vectors`),
and returns the selectable model of highest posterior expected metric, every model's
P(best), and the trade against the runner-up in the person's words.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from tradeoff.ask.presentation import difference_words
from tradeoff.ask.scenario import Scenario
from tradeoff.choose.pool_metric import metric_vectors
from tradeoff.errors import InputError
from tradeoff.learn.joint import said_tied, tied_with
from tradeoff.learn.particles import near_best
from tradeoff.pool import Pool
from tradeoff.stable import stable_argmax_rows, stable_order

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class Recommendation:
    """The model that maximises the posterior expected value of a person's own metric.

    ``expected`` holds E[ψ] of every model of the pool (pool order; ψ in the metric's own
    normalisation, up to a constant), ``p_best`` the posterior probability that each is the
    best selectable model (``None`` with a point estimate only). ``trade`` says, in the
    person's words, how the recommended model differs from the runner-up ("against the
    runner-up mlp-8: flags 12 more malignant lumps per 1,000; 22 KB of memory less").
    """

    name: str
    index: int
    expected: tuple[float, ...]
    p_best: tuple[float, ...] | None
    runner_up: str | None
    trade: str
    #: P(the recommended model is best, or within the person's perceivable margin of the
    #: best: :func:`~tradeoff.learn.particles.perceivable_margin`), with draws.
    p_near: float | None = None
    #: The models that may be better for the person by less than that margin (each for at
    #: least :data:`~tradeoff.learn.joint.TIE_MENTION` of the draws), most likely first.
    tied: tuple[str, ...] = ()
    #: The confidence the person's questions stopped at (``decision_confidence``).
    confidence: float = 0.95

    @property
    def practically_tied(self) -> bool:
        """Whether the recommendation is to be said practically tied with :attr:`tied` (the
        rule of :class:`~tradeoff.learn.joint.Verdict`): then :attr:`stated` is P(best or
        practically tied)."""
        p = self.probability
        if p is None or self.p_near is None:
            return False
        return said_tied(p, self.p_near, bool(self.tied), self.confidence)

    @property
    def stated(self) -> float | None:
        """The probability said to the person: :attr:`probability`, or :attr:`p_near` when
        :attr:`practically_tied` (the one the questions stopped on)."""
        return self.p_near if self.practically_tied else self.probability

    @property
    def expected_value(self) -> float:
        return self.expected[self.index]

    @property
    def probability(self) -> float | None:
        """P(best) of the recommended model."""
        return None if self.p_best is None else self.p_best[self.index]

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "name": self.name,
            "expected_value": self.expected_value,
            "p_best": self.probability,
            "p_best_or_practically_tied": self.p_near,
            "practically_tied_with": list(self.tied) if self.practically_tied else [],
            "stated_probability": self.stated,
            "runner_up": self.runner_up,
            "trade": self.trade,
        }
        if self.p_best is None:
            data["p_best_why_none"] = (
                "the weights are a point metric (no posterior draws), so no probability of "
                "being best can be given; the pick is the best model under those weights"
            )
        return data


def recommend(
    scenario: Scenario,
    pool: Pool,
    weights: Sequence[float],
    priors: Sequence[float],
    *,
    draws: FloatArray | None = None,
    draw_weights: FloatArray | None = None,
    selectable: NDArray[np.bool_] | None = None,
    vectors: FloatArray | None = None,
) -> Recommendation:
    """The Bayes decision for one person: the selectable model with the highest posterior
    expected value of their own linear metric, with every model's P(best).

    With posterior ``draws`` of the weights (weighted by ``draw_weights``, else equally:
    :meth:`tradeoff.learn.Engine.weighted_draws` gives both, so the pick and P(best) are the
    ones the questions stopped on), E[ψ] is the mean over the draws and P(best) the
    share of draws in which a model is the best selectable one (ties: the earlier row), and
    P(best or practically tied) the share in which the pick is within the draw's perceivable
    margin of the best (:func:`~tradeoff.learn.particles.perceivable_margin`);
    without, the point estimate ``weights`` decides and P(best) is ``None``. ``vectors``
    are the pool's :func:`~tradeoff.choose.pool_metric.metric_vectors` under ``priors``
    when the caller has them already (they are computed here otherwise).

    Examples
    --------
    >>> from tradeoff.pool import load_pool
    >>> from tradeoff.ask.scenario import load_scenario
    >>> from tradeoff.choose.pool_metric import metric_objectives
    >>> sc = load_scenario("scenarios/breast-cancer-triage.toml").scenario
    >>> pool = load_pool("scenarios/pools/breast-cancer.csv", metric_objectives(sc))
    >>> rec = recommend(sc, pool, [0.5, 0.5, 0.0, 0.0], [0.37, 0.63])
    >>> psi = metric_vectors(sc, pool, [0.37, 0.63]) @ np.array([0.5, 0.5, 0.0, 0.0])
    >>> rec.name == pool.names[int(np.argmax(psi))]
    True
    """
    rows = np.arange(pool.n) if selectable is None else np.flatnonzero(selectable)
    if rows.size == 0:
        raise InputError.single(pool.source, "constraints", "no model is selectable.", "")
    if vectors is None:
        vectors = metric_vectors(scenario, pool, priors)
    p_near: float | None = None
    tied: tuple[str, ...] = ()
    if draws is not None:
        d = np.asarray(draws, dtype=np.float64)
        if draw_weights is None:
            w = np.full(len(d), 1.0 / len(d))
        else:
            w = np.asarray(draw_weights, dtype=np.float64)
            w = w / w.sum()
        psi = d @ vectors.T  # (draws, models)
        expected = w @ psi
        best = rows[stable_argmax_rows(psi[:, rows])]  # ties: the earlier row, everywhere
        p_best: tuple[float, ...] | None = tuple(
            float(x) for x in np.bincount(best, weights=w, minlength=pool.n)
        )
    else:
        expected = vectors @ np.asarray(weights, dtype=np.float64)
        p_best = None
    order = rows[stable_order(-expected[rows])]  # ties (to 9 digits): the earlier row
    index = int(order[0])
    if draws is not None:
        spans = (*priors, *(a.range[1] - a.range[0] for a in scenario.attributes))
        near = near_best(psi, best, index, d, spans, w)
        p_near = float(near.sum())
        tied = tuple(pool.names[i] for i in tied_with(near, index))
    runner = int(order[1]) if order.size > 1 else None
    trade = ""
    if runner is not None:
        words = difference_words(scenario, pool.values[index], pool.values[runner])
        if words:
            trade = f"against the runner-up {pool.names[runner]}: {'; '.join(words)}"
        else:
            trade = f"the runner-up {pool.names[runner]} looks the same"
    return Recommendation(
        name=pool.names[index],
        index=index,
        expected=tuple(float(x) for x in expected),
        p_best=p_best,
        runner_up=None if runner is None else pool.names[runner],
        trade=trade,
        p_near=p_near,
        tied=tied,
        confidence=scenario.elicitation.decision_confidence,
    )
