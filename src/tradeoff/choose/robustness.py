"""How sure the pick is, and what would change it.

Two answers a team asks for before deploying a model, both computed from the same inputs
as the recommendation (``ranking.recommend``): the candidates' metric rows ``vectors``
(one row per model, ψ = vectors @ w; :func:`tradeoff.choose.pool_metric.metric_vectors`) and the
posterior draws of the person's weights.

- **Rank acceptability** (:func:`rank_acceptability`): for every candidate, the share of
  posterior draws in which it ranks 1st, 2nd, 3rd, … by ψ (ties: the earlier row, the rule
  of ``ranking.recommend``), so the first column is P(best).
- **What would change the pick** (:func:`weight_changes`): for each weight, the smallest
  factor by which it must grow, and the smallest by which it must shrink, others held, for
  another candidate to become best in expectation, and which one ("if latency mattered
  twice as much, mlp-8 would win"). ψ is linear in the weights, so E[ψ] is ψ at the
  posterior mean, and each candidate overtakes the pick where two lines cross: exact, no
  search.

For a group, :func:`consensus_acceptability` counts how often each candidate is the
consensus (the smallest largest relative regret, ``selection.select_for_stakeholders``)
when every person's weights are one of their posterior draws, and
:func:`consensus_changes` finds, by a scan refined by bisection, how far one weight of
everyone must move for another consensus.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
from numpy.typing import NDArray

from tradeoff.ask.scenario import Scenario
from tradeoff.stable import rounded_rows

__all__ = [
    "LIMIT",
    "WeightChange",
    "aspect_words",
    "consensus_acceptability",
    "consensus_changes",
    "rank_acceptability",
    "weight_changes",
]

FloatArray = NDArray[np.float64]

#: The largest factor looked at (a weight 100 times as large, or a hundredth).
LIMIT = 100.0


def aspect_words(scenario: Scenario) -> tuple[str, ...]:
    """Each weight's aspect in the person's words: a class as "flagged malignant lumps",
    an attribute by its name ("latency"), in weight order.

    >>> from tradeoff.ask.scenario import load_scenario
    >>> aspect_words(load_scenario("scenarios/breast-cancer-triage.toml").scenario)
    ('flagged malignant lumps', 'cleared benign lumps', 'latency', 'memory')
    """
    return tuple(f"{c.outcome} {c.label}" for c in scenario.classes) + tuple(
        a.name for a in scenario.attributes
    )


def _order(psi: FloatArray) -> NDArray[np.intp]:
    """Per row of ψ (draws × models), the models from best to worst; ties (to 9 digits,
    :func:`~tradeoff.stable.rounded_rows`): earlier row."""
    return np.argsort(-rounded_rows(psi), axis=1, kind="stable")


def rank_acceptability(
    draws: FloatArray,
    vectors: FloatArray,
    *,
    draw_weights: FloatArray | None = None,
    ranks: int = 3,
    selectable: NDArray[np.bool_] | None = None,
) -> FloatArray:
    """P(rank = r) of every candidate over the posterior draws, r = 1 … ``ranks``.

    Parameters
    ----------
    draws
        Posterior draws of the weights, one per row (draws × weights).
    vectors
        The candidates' metric rows (models × weights): ψ = vectors @ w.
    draw_weights
        The weight of each draw (``None``: equal).
    ranks
        How many ranks to count (capped at the number of selectable models).
    selectable
        Only these models are ranked (the others get 0).

    Returns
    -------
    FloatArray
        models × ranks; each column sums to 1 and column 0 is P(best).

    Examples
    --------
    >>> vectors = np.array([[1.0, 0.0], [0.0, 1.0], [0.4, 0.4]])
    >>> draws = np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4], [0.5, 0.5]])
    >>> rank_acceptability(draws, vectors, ranks=2)
    array([[0.75, 0.  ],
           [0.25, 0.5 ],
           [0.  , 0.5 ]])
    """
    psi = np.atleast_2d(np.asarray(draws, dtype=np.float64)) @ np.asarray(vectors).T
    rows = np.arange(psi.shape[1]) if selectable is None else np.flatnonzero(selectable)
    order = rows[_order(psi[:, rows])]
    ranks = min(ranks, rows.size)
    if draw_weights is None:
        w = np.full(psi.shape[0], 1.0 / psi.shape[0])
    else:
        w = np.asarray(draw_weights, dtype=np.float64) / float(np.sum(draw_weights))
    out = np.zeros((psi.shape[1], ranks))
    for r in range(ranks):
        out[:, r] = np.bincount(order[:, r], weights=w, minlength=psi.shape[1])
    return out


@dataclass(frozen=True)
class WeightChange:
    """What one weight would have to become for another candidate to be best.

    ``more`` is (the smallest factor > 1 by which the weight must grow, the model that then
    wins), ``less`` the same for shrinking (a factor < 1); ``None`` when no factor within
    [1/:data:`LIMIT`, :data:`LIMIT`] changes the pick.
    """

    index: int
    aspect: str
    more: tuple[float, int] | None
    less: tuple[float, int] | None

    def nearest(self) -> tuple[float, int] | None:
        """The smaller of the two changes, as a ratio (2 and 1/2 are as far)."""
        options = [c for c in (self.more, self.less) if c is not None]
        return min(options, key=lambda c: abs(math.log(c[0])), default=None)

    def to_dict(self, names: Sequence[str]) -> dict[str, Any]:
        from tradeoff.choose.words import change_sentence  # words builds on this module

        def one(change: tuple[float, int] | None) -> dict[str, Any] | None:
            return None if change is None else {"factor": change[0], "winner": names[change[1]]}

        return {
            "aspect": self.aspect,
            "more": one(self.more),
            "less": one(self.less),
            "sentence": change_sentence(self, names),
        }


def weight_changes(
    weights: Sequence[float] | FloatArray,
    vectors: FloatArray,
    aspects: Sequence[str],
    *,
    selectable: NDArray[np.bool_] | None = None,
    limit: float = LIMIT,
) -> tuple[WeightChange, ...]:
    """For each weight, the smallest change (others held) that makes another model best.

    The pick is argmax ψ = vectors @ ``weights`` (pass the posterior mean: E[ψ] is ψ at the
    mean). Multiplying weight j by t moves model m's ψ by (t − 1)·w_j·v_mj, a line in t;
    m overtakes the pick b where ψ_b − ψ_m = (1 − t)·w_j·(v_bj − v_mj), and the nearest
    such t on each side of 1 is the answer (its model ties the pick there and wins just
    beyond). A weight of zero cannot change by a factor. The pick and its ties follow
    :func:`~tradeoff.stable.stable_argmax` (after rounding; the earlier row), so the answer
    does not hinge on the last bits of ψ.

    Examples
    --------
    >>> vectors = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> change = weight_changes([0.6, 0.4], vectors, ["speed", "cost"])[1]
    >>> round(change.more[0], 6), change.more[1], change.less
    (1.5, 1, None)
    """
    w = np.asarray(weights, dtype=np.float64)
    v = np.asarray(vectors, dtype=np.float64)
    rows = np.arange(v.shape[0]) if selectable is None else np.flatnonzero(selectable)
    psi = v @ w
    # The pick as stable_argmax makes it (rounded, then the earlier row); models equal to it
    # after rounding tie it (gap 0) on every machine, whatever their last bits: the change
    # is then any change at all that favours them (t = 1).
    key = np.full(psi.shape, -np.inf)
    key[rows] = rounded_rows(psi[rows][None, :])[0]
    best = int(rows[np.argmax(key[rows])])
    tied = key == key[best]
    out = []
    for j, aspect in enumerate(aspects):
        more: tuple[float, int] | None = None
        less: tuple[float, int] | None = None
        if w[j] > 0:
            for m in rows:
                if m == best:
                    continue
                gap = 0.0 if tied[m] else psi[best] - psi[m]  # ≥ 0
                slope = w[j] * (v[best, j] - v[m, j])  # ψ_b − ψ_m = gap + (t − 1)·slope
                if slope == 0:
                    continue
                with np.errstate(over="ignore", divide="ignore"):
                    t = 1.0 - gap / slope  # rows go up: on a tie the earlier row stays
                if slope < 0 and t <= limit and (more is None or t < more[0]):
                    more = (float(t), int(m))
                elif slope > 0 and 1.0 / limit <= t <= 1.0 and (less is None or t > less[0]):
                    less = (float(t), int(m))
        out.append(WeightChange(j, aspect, more, less))
    return tuple(out)


def _consensus_order(psis: Sequence[FloatArray]) -> NDArray[np.intp]:
    """Models ordered as the consensus rule orders them: the smaller largest relative
    regret over the people, then the smaller total, then the earlier row. Each ψ is
    draws × models; returns draws × models."""
    regrets = []
    for psi in psis:
        top, low = psi.max(axis=1, keepdims=True), psi.min(axis=1, keepdims=True)
        spread = np.where(top - low > 0, top - low, 1.0)
        regrets.append((top - psi) / spread)
    stacked = np.stack(regrets)  # people × draws × models
    worst, total = stacked.max(axis=0), stacked.sum(axis=0)
    rows = np.broadcast_to(np.arange(worst.shape[1]), worst.shape)
    return np.lexsort((rows, total, worst), axis=-1)


def consensus_acceptability(
    draws: Sequence[FloatArray], vectors: Sequence[FloatArray], *, ranks: int = 3
) -> FloatArray:
    """How often each model is the group's 1st, 2nd, … choice by the consensus rule when
    each person's weights are their d-th posterior draw (d over the fewest draws anyone
    has; people are independent, so the d-th draws together are a draw of the group).

    ``draws[s]`` and ``vectors[s]`` are person s's draws and the metric rows under their
    priors. Returns models × ranks.
    """
    count = min(len(d) for d in draws)
    psis = [np.asarray(d[:count]) @ np.asarray(v).T for d, v in zip(draws, vectors, strict=True)]
    order = _consensus_order(psis)
    n = psis[0].shape[1]
    ranks = min(ranks, n)
    out = np.zeros((n, ranks))
    for r in range(ranks):
        out[:, r] = np.bincount(order[:, r], minlength=n) / count
    return out


def _first_change(
    pick: Callable[[float], int], base: int, toward: float, steps: int = 96
) -> tuple[float, int] | None:
    """The factor nearest 1 (toward ``toward``) at which ``pick`` leaves ``base``: a scan
    on a log grid, then 40 bisections."""
    grid = np.geomspace(1.0, toward, steps + 1)[1:]
    inside = 1.0
    for t in grid:
        if pick(float(t)) != base:
            outside = float(t)
            for _ in range(40):
                mid = math.sqrt(inside * outside)
                if pick(mid) != base:
                    outside = mid
                else:
                    inside = mid
            return outside, pick(outside)
        inside = float(t)
    return None


def consensus_changes(
    weights: Sequence[Sequence[float] | FloatArray],
    vectors: Sequence[FloatArray],
    aspects: Sequence[str],
    *,
    limit: float = LIMIT,
) -> tuple[WeightChange, ...]:
    """For each weight, the smallest factor applied to that weight of every person (others
    held) that changes the consensus computed from their expected ψ (``weights[s]`` is
    person s's posterior mean). Found by a scan on a log grid refined by bisection (the
    rule is not linear in the weights)."""
    ws = [np.asarray(w, dtype=np.float64) for w in weights]

    def pick_at(j: int, t: float) -> int:
        psis = []
        for w, v in zip(ws, vectors, strict=True):
            scaled = w.copy()
            scaled[j] *= t
            psis.append((np.asarray(v) @ scaled)[None, :])
        return int(_consensus_order(psis)[0, 0])

    base = pick_at(0, 1.0)
    out = []
    for j, aspect in enumerate(aspects):
        if all(w[j] == 0 for w in ws):
            out.append(WeightChange(j, aspect, None, None))
            continue
        at = partial(pick_at, j)
        more, less = _first_change(at, base, limit), _first_change(at, base, 1.0 / limit)
        out.append(WeightChange(j, aspect, more, less))
    return tuple(out)


LEAD = "Chance of being best, over the weights the answers allow"
CONSENSUS_LEAD = "Chance of being the consensus, over the weights everyone's answers allow"


