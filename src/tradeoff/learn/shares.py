"""How much each aspect weighs, among the aspects the answers informed.

A swing weight (:attr:`~tradeoff.learn.base.ElicitationResult.swing_weights`) is a share of
all the aspects together. When no answer informed an aspect (its ``asked`` is false: no
question showed two options that read differently on it), its share is the prior's guess,
and so is the part of 100 % the other shares leave to it: shown beside the asked ones,
"malignant 35 %, benign 3 %, latency 23 %" add up to 61 % because memory was guessed at
38 %. :func:`asked_shares` gives every asked aspect's share of the asked aspects only
(they add up to 100 % among them) and no number for an unasked one: the ratios between
asked aspects are what the answers speak to, whatever the unasked ones weigh.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tradeoff.arrays import FloatArray
from tradeoff.learn.base import ElicitationResult
from tradeoff.text import ENGLISH, N_, YOU, Voice, Words

#: The 90 % credible range of a share, as the strategies give theirs.
RANGE = (0.05, 0.95)


@dataclass(frozen=True)
class Shares:
    """Each aspect's share of the aspects the answers informed (``None``: not asked), with
    its 90 % credible range when the strategy has draws.

    ``left_out`` names the positions of the unasked aspects: when it is not empty, the
    shares are of the asked aspects only, and a face says so.
    """

    values: tuple[float | None, ...]
    intervals: tuple[tuple[float, float] | None, ...]

    @property
    def left_out(self) -> tuple[int, ...]:
        """The aspects no answer informed, whose weight is not counted."""
        return tuple(j for j, v in enumerate(self.values) if v is None)


def _weighted_quantiles(values: FloatArray, weights: FloatArray) -> FloatArray:
    """The :data:`RANGE` quantiles of every column of ``values`` under row ``weights``."""
    out = np.empty((2, values.shape[1]))
    for j in range(values.shape[1]):
        order = np.argsort(values[:, j], kind="stable")
        v = values[order, j]
        cum = np.cumsum(weights[order])
        cum /= cum[-1]
        out[:, j] = v[np.minimum(np.searchsorted(cum, RANGE), len(v) - 1)]
    return out


def asked_shares(
    result: ElicitationResult,
    spans: Sequence[float],
    draws: tuple[FloatArray, FloatArray] | None = None,
) -> Shares:
    """Every aspect's swing weight as a share of the asked aspects' (``None`` for an
    aspect no answer informed), and its 90 % range: :func:`shares_of` of a result.

    Examples
    --------
    >>> r = ElicitationResult("joint", ("a", "b", "c", "d"), (0.25,) * 4, 5, True,
    ...     swing_weights=(0.35, 0.03, 0.24, 0.38), asked=(True, True, True, False))
    >>> s = asked_shares(r, (1.0, 1.0, 1.0, 1.0))
    >>> [None if v is None else round(v, 2) for v in s.values], s.left_out
    ([0.56, 0.05, 0.39, None], (3,))
    >>> draws = np.array([[0.5, 0.1, 0.2, 0.2], [0.2, 0.1, 0.1, 0.6]])
    >>> s = asked_shares(r, (1.0, 1.0, 1.0, 1.0), (draws, np.array([0.5, 0.5])))
    >>> s.intervals[0], s.intervals[3]
    ((0.5, 0.625), None)
    """
    return shares_of(
        result.swing_weights or result.weights, result.swing_intervals, result.asked, spans, draws
    )


def shares_of(
    swing: Sequence[float],
    swing_intervals: Sequence[tuple[float, float]] | None,
    asked: Sequence[bool] | None,
    spans: Sequence[float],
    draws: tuple[FloatArray, FloatArray] | None = None,
) -> Shares:
    """Every aspect's swing weight as a share of the asked aspects' (``None`` for an
    aspect no answer informed), and its 90 % range.

    With every aspect asked (or ``asked`` unknown) these are the swing weights ``swing``
    and their ranges ``swing_intervals`` as they are. Otherwise the point share is the
    swing weight over the sum of the asked ones', and the range is taken over ``draws``
    (natural-unit weights, rows, and the weight of each:
    :meth:`~tradeoff.learn.Engine.weighted_draws`), each draw's swing weights divided by
    the sum of its asked ones: the range of the ratio the answers speak to, not of a share
    that moves with the guess of the unasked weight. Without draws there is no range.
    """
    n = len(swing)
    if asked is None or all(asked):
        ranges = tuple(swing_intervals) if swing_intervals else (None,) * n
        return Shares(tuple(float(x) for x in swing), ranges)
    mask = np.asarray(asked, dtype=bool)
    point = np.asarray(swing, dtype=np.float64)
    total = float(point[mask].sum())
    values = tuple(
        (float(point[j]) / total if total > 0 else 1.0 / int(mask.sum())) if mask[j] else None
        for j in range(n)
    )
    if draws is None or len(draws[0]) == 0 or not mask.any():
        return Shares(values, (None,) * n)
    rows = np.asarray(draws[0], dtype=np.float64)[:, mask] * np.asarray(spans)[mask]
    sums = rows.sum(axis=1, keepdims=True)
    keep = sums[:, 0] > 0
    if not keep.any():
        return Shares(values, (None,) * n)
    rel = rows[keep] / sums[keep]
    q = _weighted_quantiles(rel, np.asarray(draws[1], dtype=np.float64)[keep])
    columns = iter(range(rel.shape[1]))
    intervals: list[tuple[float, float] | None] = []
    for j in range(n):
        if mask[j]:
            c = next(columns)
            intervals.append((float(q[0, c]), float(q[1, c])))
        else:
            intervals.append(None)
    return Shares(values, tuple(intervals))


def left_out_words(
    shares: Shares, names: Sequence[str], voice: Voice = YOU, words: Words = ENGLISH
) -> str:
    """What a review says under the shares when some aspect was not asked ("" when every
    one was): which aspects are not counted, and that the shares add up to 100 % among
    the others.

    >>> s = Shares((0.6, 0.4, None), ((0.5, 0.7), (0.3, 0.5), None))
    >>> print(left_out_words(s, ["malignant", "latency", "memory"]))
    ... # doctest: +NORMALIZE_WHITESPACE
    Not asked, so not counted: memory. The shares are of the aspects your answers informed
    and add up to 100% among them.
    >>> left_out_words(Shares((1.0,), (None,)), ["malignant"])
    ''
    >>> print(left_out_words(Shares((1.0, None), ((1.0, 1.0), None)), ["price", "time"]))
    ... # doctest: +NORMALIZE_WHITESPACE
    Only price was asked about, so its share is 100% of what your answers informed: they
    have not yet weighed it against time.
    """
    left = shares.left_out
    if not left:
        return ""
    if len(left) == len(shares.values) - 1:  # one aspect asked: its share says nothing
        only = next(j for j, v in enumerate(shares.values) if v is not None)
        return voice.say(
            N_(
                "Only %(name)s was asked about, so its share is 100%% of what your answers "
                "informed: they have not yet weighed it against %(names)s."
            ),
            words,
        ) % {"name": names[only], "names": ", ".join(names[j] for j in left)}
    return voice.say(
        N_(
            "Not asked, so not counted: %(names)s. The shares are of the aspects your "
            "answers informed and add up to 100%% among them."
        ),
        words,
    ) % {"names": ", ".join(names[j] for j in left)}
