"""Decision curves: net benefit, and the threshold probability a person's answers imply.

Net benefit (Vickers & Elkin 2006) of acting on the cases a classifier calls positive, at a
threshold probability pₜ, is

    NB(pₜ) = TP/n − FP/n · pₜ/(1 − pₜ),

true and false positives per case, a false positive counted at the odds w = pₜ/(1 − pₜ)
of a true one. A model with probabilities calls a case positive when its probability is
≥ pₜ (:func:`net_benefit`: a curve over pₜ, as ``dcurves`` counts it); a fixed classifier
has one operating point, TP/n = π₁·recall₁ and FP/n = π₀·(1 − recall₀)
(:func:`fixed_net_benefit`: a curve in pₜ through the weight w only). "Treat all" is
π₁ − π₀·w, "treat none" 0.

The person's threshold
----------------------
The project's metric on two classes is ψ = a₁·d₁ + a₀·d₀ (+ costs and rewards), with
d_k = π_k·recall_k (paper 004 §2; the weights a_k are the engine's, in the scenario's class
order). Written in recall, its weights are c_k = a_k·π_k. For two classifiers that differ
only in recall,

    NB = π₁·recall₁ − π₀·(1 − recall₀)·w = π₁·recall₁ + w·π₀·recall₀ − w·π₀,

so net benefit ranks them as the linear metric with recall weights (π₁, w·π₀): the same
ranking as the person's (c₁, c₀) exactly when c₀/c₁ = w·π₀/π₁, that is

    w = c₀·π₁/(c₁·π₀),   pₜ = w/(1 + w) = c₀·π₁/(c₀·π₁ + c₁·π₀)
    (:func:`threshold_from_recall_weights`),

and with c_k = a_k·π_k the prevalences cancel: pₜ = a₀/(a₀ + a₁)
(:func:`implied_threshold`). It is the Bayes rule's threshold too: the rule that maximises
ψ on calibrated probabilities η calls a case positive when a₁·η ≥ a₀·(1 − η), i.e.
η ≥ a₀/(a₀ + a₁) (:mod:`tradeoff.pool.rule`): a model tuned to the person is its own
decision curve read at the person's pₜ. Net benefit leaves out every cost and reward
(latency, money): a person who weighs those ranks models by more than net benefit.

Which class is which: the scenario's FIRST class is the positive one, the condition the
action is for (malignant lumps: refer for biopsy; glaucoma: refer to a specialist); the
second is the negative one. The prevalences are the scenario's class priors (the ones its
metric weighs recall with), so the net benefit of a pool's fixed classifiers and the
person's metric use the same π.

The threshold's credible interval is the weighted quantiles of a₀/(a₀ + a₁) over the
posterior's draws (each draw's pₜ; a ratio, so the weights' normalisation does not
matter), at the level the weights' intervals have (90%).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from tradeoff.arrays import FloatArray
from tradeoff.text import percent, plain_number

if TYPE_CHECKING:
    from tradeoff.ask.scenario import Scenario

__all__ = [
    "LEVEL",
    "Threshold",
    "fixed_net_benefit",
    "implied_threshold",
    "net_benefit",
    "person_threshold",
    "threshold_from_recall_weights",
    "threshold_percent",
    "threshold_words",
    "treat_all",
]


#: The credible level of the threshold's interval (the weights' intervals are 90%).
LEVEL = 0.9


def _odds(thresholds: ArrayLike) -> FloatArray:
    """w = pₜ/(1 − pₜ) of every threshold, each checked to lie in [0, 1)."""
    t = np.atleast_1d(np.asarray(thresholds, dtype=np.float64))
    if not (np.isfinite(t).all() and (t >= 0).all() and (t < 1).all()):
        raise ValueError("threshold probabilities must lie in [0, 1)")
    out: FloatArray = t / (1.0 - t)
    return out


def net_benefit(outcome: ArrayLike, probability: ArrayLike, thresholds: ArrayLike) -> FloatArray:
    """Net benefit of acting on the cases whose probability is ≥ each threshold.

    ``outcome`` is true (1) for a positive case, ``probability`` the model's probability
    that the case is positive; NB(pₜ) = TP/n − FP/n · pₜ/(1 − pₜ).

    Examples
    --------
    Two of four cases positive; at pₜ = ½ the model acts on three (two right, one wrong):
    NB = 2/4 − 1/4·1.

    >>> net_benefit([1, 1, 0, 0], [0.9, 0.6, 0.7, 0.2], [0.5]).tolist()
    [0.25]
    """
    y = np.asarray(outcome).astype(bool)
    p = np.asarray(probability, dtype=np.float64)
    if y.shape != p.shape or y.ndim != 1:
        raise ValueError(f"outcome {y.shape} and probability {p.shape} must be one case each")
    w = _odds(thresholds)
    t = np.atleast_1d(np.asarray(thresholds, dtype=np.float64))
    n = len(y)
    # Cases sorted by probability: the positives called at t are those with p ≥ t.
    order = np.argsort(p, kind="stable")
    ps, ys = p[order], y[order]
    first = np.searchsorted(ps, t, side="left")  # index of the first p ≥ t
    pos_above = np.concatenate([np.cumsum(ys[::-1])[::-1], [0]])
    neg_above = np.concatenate([np.cumsum(~ys[::-1])[::-1], [0]])
    tp = pos_above[first] / n
    fp = neg_above[first] / n
    out: FloatArray = tp - fp * w
    return out


def fixed_net_benefit(
    recall_positive: float, recall_negative: float, prevalence: float, thresholds: ArrayLike
) -> FloatArray:
    """Net benefit of a fixed classifier at every threshold, from its recall of each class
    and the positive class's prevalence π₁: π₁·recall₁ − (1 − π₁)·(1 − recall₀)·w.

    >>> fixed_net_benefit(0.9, 0.8, 0.25, [0.0, 0.5]).round(4).tolist()
    [0.225, 0.075]
    """
    w = _odds(thresholds)
    out: FloatArray = (
        prevalence * recall_positive - (1.0 - prevalence) * (1.0 - recall_negative) * w
    )
    return out


def treat_all(prevalence: float, thresholds: ArrayLike) -> FloatArray:
    """Net benefit of acting on every case: π₁ − (1 − π₁)·w ("treat none" is 0).

    >>> treat_all(0.1, [0.1]).round(12).tolist()
    [0.0]
    """
    return fixed_net_benefit(1.0, 0.0, prevalence, thresholds)


def implied_threshold(weight_positive: ArrayLike, weight_negative: ArrayLike) -> FloatArray:
    """pₜ = a₀/(a₀ + a₁) from the metric's weights on d_k = π_k·recall_k (the module
    docstring); ``nan`` where both are 0.

    >>> implied_threshold(0.92, 0.08).round(6).tolist()
    [0.08]
    """
    a1 = np.atleast_1d(np.asarray(weight_positive, dtype=np.float64))
    a0 = np.atleast_1d(np.asarray(weight_negative, dtype=np.float64))
    total = a0 + a1
    out: FloatArray = np.divide(
        a0, total, out=np.full(np.broadcast(a0, a1).shape, np.nan), where=total > 0
    )
    return out


def threshold_from_recall_weights(
    weight_positive: float, weight_negative: float, prevalence: float
) -> float:
    """pₜ = c₀·π₁/(c₀·π₁ + c₁·π₀) from weights c_k on recall_k and the positive class's
    prevalence π₁ (the module docstring).

    >>> round(threshold_from_recall_weights(1.0, 1.0, 0.5), 6)
    0.5
    """
    c0pi1 = weight_negative * prevalence
    return c0pi1 / (c0pi1 + weight_positive * (1.0 - prevalence))


def _weighted_quantiles(
    values: FloatArray, weights: FloatArray, qs: tuple[float, ...]
) -> FloatArray:
    """Quantiles of ``values`` under ``weights`` (the first value whose cumulative share
    reaches each q)."""
    order = np.argsort(values, kind="stable")
    cum = np.cumsum(weights[order])
    cum /= cum[-1]
    picks = np.minimum(np.searchsorted(cum, qs), len(values) - 1)
    out: FloatArray = values[order][picks]
    return out


@dataclass(frozen=True)
class Threshold:
    """A person's threshold probability: ``value`` from the posterior mean weights (the
    rule tuned to them uses those), with its credible interval (``low``, ``high``) at
    ``level`` from the posterior's draws, ``None`` for a point estimate."""

    value: float
    low: float | None = None
    high: float | None = None
    level: float = LEVEL

    @staticmethod
    def per_found(pt: float) -> float:
        """Unnecessary actions accepted per case found: (1 − pₜ)/pₜ (∞ at pₜ = 0)."""
        return math.inf if pt <= 0 else (1.0 - pt) / pt

    def to_dict(self) -> dict[str, Any]:
        """The threshold as JSON: value, interval and level, and the unnecessary actions
        per case found at each."""
        data: dict[str, Any] = {
            "threshold": self.value,
            "unnecessary_per_found": _finite(self.per_found(self.value)),
        }
        if self.low is not None and self.high is not None:
            data["interval"] = [self.low, self.high]
            data["level"] = self.level
            data["unnecessary_per_found_interval"] = [
                _finite(self.per_found(self.high)),
                _finite(self.per_found(self.low)),
            ]
        return data


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def person_threshold(
    scenario: Scenario,
    weights: ArrayLike,
    draws: ArrayLike | None = None,
    draw_weights: ArrayLike | None = None,
    level: float = LEVEL,
) -> Threshold | None:
    """The threshold probability a two-class scenario's metric weights imply, with its
    credible interval from posterior ``draws`` (rows, weighted by ``draw_weights``, equal
    when ``None``); ``None`` for more classes (decision curves are for a two-class
    decision) or when both class weights are 0.

    ``weights`` are the posterior mean (or point) weights in the scenario's order.

    Examples
    --------
    >>> from tradeoff.ask.scenario import load_scenario
    >>> sc = load_scenario("scenarios/breast-cancer-triage.toml").scenario
    >>> person_threshold(sc, [0.6, 0.06, 0.3, 0.04]).value  # doctest: +ELLIPSIS
    0.0909...
    """
    if scenario.n_classes != 2:
        return None
    w = np.asarray(weights, dtype=np.float64)
    value = float(implied_threshold(w[0], w[1])[0])
    if not math.isfinite(value):
        return None
    if draws is None:
        return Threshold(value, level=level)
    d = np.asarray(draws, dtype=np.float64)
    dw = (
        np.full(len(d), 1.0 / len(d))
        if draw_weights is None
        else np.asarray(draw_weights, dtype=np.float64)
    )
    pts = implied_threshold(d[:, 0], d[:, 1])
    keep = np.isfinite(pts) & (dw > 0)
    if not keep.any():
        return Threshold(value, level=level)
    tail = (1.0 - level) / 2
    low, high = _weighted_quantiles(pts[keep], dw[keep], (tail, 1.0 - tail))
    return Threshold(value, float(low), float(high), level)


def threshold_percent(pt: float) -> str:
    """A threshold as a percentage: whole percent from 1% on, one decimal below.

    >>> threshold_percent(0.0826), threshold_percent(0.004)
    ('8%', '0.4%')
    """
    return f"{pt:.1%}" if pt < 0.0095 else f"{pt:.0%}"


def _count(x: float) -> str:
    return "more than 1,000" if x > 1000 else plain_number(x)


def threshold_words(
    threshold: Threshold,
    scenario: Scenario,
    whose: str = "Your",
    priors: Sequence[float] | None = None,
) -> str:
    """The sentence a clinician reads: the threshold with its interval, and how many cases
    of the second class the person would act on to find one more of the first, in the
    scenario's words.

    Examples
    --------
    >>> from tradeoff.ask.scenario import load_scenario
    >>> sc = load_scenario("scenarios/breast-cancer-triage.toml").scenario
    >>> print(threshold_words(Threshold(0.09, 0.05, 0.12), sc))  # doctest: +NORMALIZE_WHITESPACE
    Your answers put the threshold probability at 9% (90% credible interval 5%–12%): to find
    one more of the malignant lumps you would accept about 10 (7.3 to 19) benign lumps taken
    for malignant.

    Above 50%, fewer than one per case found, said the other way round:

    >>> print(threshold_words(Threshold(0.75), sc, whose="kim's"))
    ... # doctest: +NORMALIZE_WHITESPACE
    kim's answers put the threshold probability at 75%: they would accept one of the benign
    lumps taken for malignant only for about every 3 more of the malignant lumps found.

    With the class priors, it says that it counts cases as they come (a trade-off said per
    1,000 of each class reads otherwise by their ratio):

    >>> print(threshold_words(Threshold(0.09), sc, priors=(0.37, 0.63)))
    ... # doctest: +NORMALIZE_WHITESPACE
    Your answers put the threshold probability at 9%: to find one more of the malignant
    lumps you would accept about 10 benign lumps taken for malignant, counting cases as they
    come (37% of them malignant).
    """
    pos, neg = scenario.classes[0], scenario.classes[1]
    you = "you" if whose == "Your" else "they"
    head = f"{whose} answers put the threshold probability at {threshold_percent(threshold.value)}"
    if threshold.low is not None and threshold.high is not None:
        head += (
            f" ({threshold.level:.0%} credible interval "
            f"{threshold_percent(threshold.low)}–{threshold_percent(threshold.high)})"
        )
    per = threshold.per_found(threshold.value)
    if not math.isfinite(per):
        return f"{head}: {you} would act on every case, whatever its probability."
    bounds = None
    if threshold.low is not None and threshold.high is not None and threshold.low > 0:
        bounds = (threshold.per_found(threshold.high), threshold.per_found(threshold.low))
    if per >= 1 or per == 0:
        spread = "" if bounds is None else f" ({_count(bounds[0])} to {_count(bounds[1])})"
        counted = (
            ""
            if priors is None
            else f", counting cases as they come ({percent(priors[0])} of them {pos.name})"
        )
        return (
            f"{head}: to find one more of the {pos.label} {you} would accept about "
            f"{_count(per)}{spread} {neg.label} taken for {pos.name}{counted}."
        )
    # above 50%: fewer than one unnecessary action per case found, said the other way
    spread = (
        ""
        if bounds is None or bounds[0] <= 0
        else f" ({_count(1 / bounds[1])} to {_count(1 / bounds[0])})"
    )
    return (
        f"{head}: {you} would accept one of the {neg.label} taken for {pos.name} only for "
        f"about every {_count(1 / per)}{spread} more of the {pos.label} found."
    )
