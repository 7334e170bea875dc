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

**Measurement noise.** A pool whose numbers carry an uncertainty
(:mod:`tradeoff.pool.uncertainty`) gives ``measured``: plausible metric rows, one table per
sample (samples × models × weights; :func:`tradeoff.choose.recommend.measured_vectors`).
Then, as in SMAA (Lahdelma & Salminen's stochastic multicriteria acceptability analysis,
which integrates over uncertain criteria values and weights together), each posterior draw
of the weights is paired with one plausible table (:func:`joint_psi`: the draws repeated,
each repeat with its own tables), and rank acceptability counts over the pairs; the change
of a weight is taken in every plausible table and its median said. Without ``measured``
every result is exactly the one from the measured numbers.

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

from tradeoff.arrays import FloatArray
from tradeoff.ask.scenario import Scenario
from tradeoff.stable import rounded_rows

__all__ = [
    "LIMIT",
    "WeightChange",
    "aspect_words",
    "consensus_acceptability",
    "consensus_changes",
    "joint_psi",
    "rank_acceptability",
    "weight_changes",
]


#: The largest factor looked at (a weight 100 times as large, or a hundredth).
LIMIT = 100.0
# The range's ends are kept a hair wide: a factor that is exactly the limit (grid values
# make them) can come out of the arithmetic a few last bits either side of it.
_EDGE = 1e-9


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


def joint_psi(
    draws: FloatArray,
    vectors: FloatArray,
    draw_weights: FloatArray | None = None,
    measured: FloatArray | None = None,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """ψ of every model per draw (rows), the draws as paired and the weight of each row.

    Without ``measured``: ψ = draws @ vectors.T with the draws' weights (normalised; equal
    when ``None``). With ``measured`` (S × models × weights plausible metric rows) the
    draws are repeated r = ⌈S / draws⌉ times, each repeat's weight divided by r, and row
    i is scored on table i mod S: every draw of the weights meets r plausible measurements
    (SMAA's joint integration over weights and values).

    >>> d = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> measured = np.array([[[1.0, 0.0], [0.0, 1.0]], [[0.0, 0.0], [1.0, 1.0]]] * 2)
    >>> psi, rows, w = joint_psi(d, measured[0], None, measured)
    >>> psi.tolist(), w.tolist()
    ([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 1.0]], [0.25, 0.25, 0.25, 0.25])
    """
    d = np.atleast_2d(np.asarray(draws, dtype=np.float64))
    if draw_weights is None:
        w = np.full(d.shape[0], 1.0 / d.shape[0])
    else:
        w = np.asarray(draw_weights, dtype=np.float64) / float(np.sum(draw_weights))
    if measured is None:
        psi: FloatArray = d @ np.asarray(vectors).T
        return psi, d, w
    samples = measured.shape[0]
    reps = -(-samples // d.shape[0])
    d = np.tile(d, (reps, 1))
    w = np.tile(w, reps) / reps
    tables = measured if d.shape[0] == samples else measured[np.arange(d.shape[0]) % samples]
    psi = np.einsum("sw,smw->sm", d, tables)
    return psi, d, w


def rank_acceptability(
    draws: FloatArray,
    vectors: FloatArray,
    *,
    draw_weights: FloatArray | None = None,
    ranks: int = 3,
    selectable: NDArray[np.bool_] | None = None,
    measured: FloatArray | None = None,
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
    measured
        Plausible metric rows (samples × models × weights) when the pool's numbers carry
        an uncertainty: each draw is paired with them (:func:`joint_psi`).

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
    psi, _, w = joint_psi(draws, vectors, draw_weights, measured)
    rows = np.arange(psi.shape[1]) if selectable is None else np.flatnonzero(selectable)
    order = rows[_order(psi[:, rows])]
    ranks = min(ranks, rows.size)
    out = np.zeros((psi.shape[1], ranks))
    for r in range(ranks):
        out[:, r] = np.bincount(order[:, r], weights=w, minlength=psi.shape[1])
    return out


@dataclass(frozen=True)
class WeightChange:
    """What one weight would have to become for another candidate to be best.

    ``more`` is (the smallest factor > 1 by which the weight must grow, the model that then
    wins), ``less`` the same for shrinking (a factor < 1); ``None`` when no factor within
    [1/:data:`LIMIT`, :data:`LIMIT`] changes the pick. ``noisy``: the factors are medians
    over plausible measurements (the pool's numbers carry an uncertainty). ``asked``:
    whether some answer informed this weight (else it is the starting guess, and the
    sentence says so).
    """

    index: int
    aspect: str
    more: tuple[float, int] | None
    less: tuple[float, int] | None
    noisy: bool = False
    asked: bool = True

    def nearest(self) -> tuple[float, int] | None:
        """The smaller of the two changes, as a ratio (2 and 1/2 are as far)."""
        options = [c for c in (self.more, self.less) if c is not None]
        return min(options, key=lambda c: abs(math.log(c[0])), default=None)

    def to_dict(self, names: Sequence[str]) -> dict[str, Any]:
        """As JSON, the winners by name (the sentence is
        :func:`tradeoff.choose.change_words.change_dict`'s)."""

        def one(change: tuple[float, int] | None) -> dict[str, Any] | None:
            return None if change is None else {"factor": change[0], "winner": names[change[1]]}

        return {
            "aspect": self.aspect,
            "more": one(self.more),
            "less": one(self.less),
            "asked": self.asked,
        }


def weight_changes(
    weights: Sequence[float] | FloatArray,
    vectors: FloatArray,
    aspects: Sequence[str],
    *,
    selectable: NDArray[np.bool_] | None = None,
    limit: float = LIMIT,
    measured: FloatArray | None = None,
    pick: int | None = None,
) -> tuple[WeightChange, ...]:
    """For each weight, the smallest change (others held) that makes another model best.

    With ``measured`` (plausible metric rows, samples × models × weights) the pick stays
    ``pick`` (the person's, the likeliest best once the noise is counted; by default the
    one ``vectors`` give), and the change is found in every plausible table as below;
    said is the median over the tables of how far it is (as a ratio), with the model that
    wins in that table. In a table where another model already beats the pick the change
    is any change at all (factor 1), on a weight whose aspect that model differs from the
    pick on: a weight on which no model differs from the pick changes nothing.

    The pick is argmax ψ = vectors @ ``weights`` (pass the posterior mean: E[ψ] is ψ at the
    mean). Multiplying weight j by t moves model m's ψ by (t − 1)·w_j·v_mj, a line in t;
    m overtakes the pick b where ψ_b − ψ_m = (1 − t)·w_j·(v_bj − v_mj), and the nearest
    such t on each side of 1 is the answer (its model ties the pick there and wins just
    beyond). The range is from 1/``limit`` to ``limit``, both ends in it whatever the
    last bits of the factor found there. A weight of zero cannot change by a factor. The
    pick and its ties follow :func:`~tradeoff.stable.stable_argmax` (after rounding; the
    earlier row), so the answer does not hinge on the last bits of ψ.

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
    if measured is not None:
        return _noisy_changes(w, v, np.asarray(measured), aspects, rows, limit, pick)
    psi = v @ w
    # The pick as stable_argmax makes it (rounded, then the earlier row); models equal to it
    # after rounding tie it (gap 0) on every machine, whatever their last bits: the change
    # is then any change at all that favours them (t = 1).
    key = np.full(psi.shape, -np.inf)
    key[rows] = rounded_rows(psi[rows][None, :])[0]
    best = int(rows[np.argmax(key[rows])])
    tied = key == key[best]
    top, bottom = limit * (1 + _EDGE), (1 - _EDGE) / limit
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
                if slope < 0 and t <= top and (more is None or t < more[0]):
                    more = (float(t), int(m))
                elif slope > 0 and bottom <= t <= 1.0 and (less is None or t > less[0]):
                    less = (float(t), int(m))
        out.append(WeightChange(j, aspect, more, less))
    return tuple(out)


def _pick(psi: FloatArray, rows: NDArray[np.intp]) -> tuple[int, NDArray[np.bool_]]:
    """The pick of ψ among ``rows`` as :func:`~tradeoff.stable.stable_argmax` makes it, and
    the models equal to it after rounding."""
    key = np.full(psi.shape, -np.inf)
    key[rows] = rounded_rows(psi[rows][None, :])[0]
    best = int(rows[np.argmax(key[rows])])
    return best, key == key[best]


def _noisy_changes(
    w: FloatArray,
    v: FloatArray,
    tables: FloatArray,
    aspects: Sequence[str],
    rows: NDArray[np.intp],
    limit: float,
    pick: int | None = None,
) -> tuple[WeightChange, ...]:
    """:func:`weight_changes` over plausible tables: the pick ``pick``, else from ``v``;
    per table, the nearest factor each way (1 where another model that differs from the
    pick on the weight's aspect already beats it there), the median over the tables (the
    lower middle one, ordered by distance from 1 as a ratio, after rounding; ties: the
    earlier table)."""
    best = _pick(v @ w, rows)[0] if pick is None else pick
    psi = tables @ w  # samples × models
    key = np.full(psi.shape, -np.inf)
    key[:, rows] = rounded_rows(psi[:, rows])
    samples = psi.shape[0]
    top, bottom = limit * (1 + _EDGE), (1 - _EDGE) / limit
    out = []
    for j, aspect in enumerate(aspects):
        more_t, less_t = np.full(samples, np.inf), np.zeros(samples)
        more_m, less_m = np.full(samples, -1), np.full(samples, -1)
        if w[j] > 0:
            for m in rows:
                if m == best:
                    continue
                slope = w[j] * (tables[:, best, j] - tables[:, m, j])
                # a model ahead of the pick that is the same on this aspect: no change of
                # this weight moves either (it is ahead whatever the weight)
                ahead = (key[:, m] > key[:, best]) & (slope != 0)
                tied = key[:, m] == key[:, best]
                gap = np.where(tied, 0.0, psi[:, best] - psi[:, m])
                with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
                    t = np.where(ahead, 1.0, 1.0 - gap / slope)
                up = (ahead | (slope < 0)) & (t <= top) & (t < more_t)
                down = (ahead | (slope > 0)) & (t >= bottom) & (t <= 1.0) & (t > less_t)
                more_t, more_m = np.where(up, t, more_t), np.where(up, m, more_m)
                less_t, less_m = np.where(down, t, less_t), np.where(down, m, less_m)
        out.append(
            WeightChange(j, aspect, _median(more_t, more_m), _median(less_t, less_m), noisy=True)
        )
    return tuple(out)


def _median(factors: FloatArray, winners: NDArray[np.int_]) -> tuple[float, int] | None:
    """The lower median over the tables of a factor (a ratio's distance from 1), with its
    table's winner; ``None`` when in half the tables or more no factor changes the pick."""
    with np.errstate(divide="ignore"):
        far = np.where(winners >= 0, np.abs(np.log(np.where(winners >= 0, factors, 1.0))), np.inf)
    order = np.argsort(
        rounded_rows(np.where(np.isfinite(far), far, 0.0)[None, :])[0]
        + np.where(np.isfinite(far), 0.0, np.inf),
        kind="stable",
    )
    mid = int(order[(len(order) - 1) // 2])
    if winners[mid] < 0:
        return None
    return float(factors[mid]), int(winners[mid])


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
