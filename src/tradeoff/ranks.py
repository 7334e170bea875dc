"""The rank-based CDF of a pool's models (COPA's û, paper 000 eq. 10): the share of models
strictly better on each objective, every objective to minimise; ties share the minimum
rank (footnote 2).

A tool on an array of objectives, as Pareto dominance (:mod:`tradeoff.pareto`) is, placed
below the stages that use it: a :class:`~tradeoff.pool.Pool` keeps its :class:`Ranks`
(each column sorted once), and the criterion that aggregates û, its sweeps and the ranking
by it (:mod:`tradeoff.choose.copa`) read û from it without going back to the pool.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from tradeoff.arrays import FloatArray, Int64Array

__all__ = ["Ranks", "rank_cdf"]


def rank_cdf(y: FloatArray) -> FloatArray:
    """Rank-based CDF û of every column (eq. 10): the share of models strictly better.

    Parameters
    ----------
    y
        Objective values to minimise, shape (N, K), no NaN.

    Examples
    --------
    >>> rank_cdf(np.array([[3.0], [1.0], [3.0], [2.0]])).ravel().tolist()
    [0.5, 0.0, 0.5, 0.25]
    """
    return _rank_columns(y)[0]


def _rank_columns(y: FloatArray) -> tuple[FloatArray, FloatArray]:
    """û of every column (eq. 10) and, by the way, each column sorted (shape (K, N))."""
    y = np.asarray(y, dtype=np.float64)
    if y.ndim != 2:
        raise ValueError("y must be a 2-D array (models × objectives)")
    n, k = y.shape
    u = np.empty((n, k), dtype=np.float64)
    ordered_columns = np.empty((k, n), dtype=np.float64)
    positions = np.arange(n)
    for c in range(k):
        col = y[:, c]
        # any sort will do: tied values get their run's first position, whatever their order
        order = np.argsort(col)
        ordered = ordered_columns[c]
        np.take(col, order, out=ordered)
        first = np.empty(n, dtype=np.int64)
        first[0] = 0
        if n > 1:
            starts = np.concatenate(([True], ordered[1:] != ordered[:-1]))
            first = np.where(starts, positions, 0)
            np.maximum.accumulate(first, out=first)
        u[order, c] = first / n
    return u, ordered_columns


class Ranks:
    """The rank-based CDF û of a population (eq. 10), for the models that need it.

    Each column is sorted once (values only, no argsort); û of a model is then the position
    of its value in its sorted column by binary search, i.e. the number of strictly smaller
    values, over N: the same integers divided the same way as :func:`rank_cdf`, so the same
    floats. Ranking, sweeping and summarising a big pool needs û of a few thousand models
    (the prefiltered candidates, the head of the ranking), not of all of them.

    Parameters
    ----------
    y
        Objective values to minimise, shape (N, K), no NaN.

    Examples
    --------
    >>> ranks = Ranks(np.array([[3.0, 1.0], [1.0, 1.0], [3.0, 0.0], [2.0, 5.0]]))
    >>> ranks.of(np.array([0, 3])).tolist()
    [[0.5, 0.25], [0.25, 0.75]]
    >>> bool((ranks.all() == rank_cdf(ranks.y)).all())
    True
    """

    def __init__(self, y: FloatArray) -> None:
        y = np.asarray(y, dtype=np.float64)
        if y.ndim != 2:
            raise ValueError("y must be a 2-D array (models × objectives)")
        self.y = y
        self.n: int = int(y.shape[0])
        self.k: int = int(y.shape[1])
        self._all: FloatArray | None = None

    @cached_property
    def columns(self) -> FloatArray:
        """One contiguous row per objective, shape (K, N) (for filters that scan a column)."""
        return np.ascontiguousarray(self.y.T)

    @cached_property
    def sorted(self) -> FloatArray:
        """Each objective's values in ascending order, shape (K, N)."""
        out: FloatArray = np.sort(self.columns, axis=1)
        return out

    def counts(self, rows: Int64Array) -> Int64Array:
        """#{j : y_jk < y_ik} for each of ``rows`` (i) and objective k, shape (len(rows), K)."""
        out = np.empty((len(rows), self.k), dtype=np.int64)
        for c in range(self.k):
            out[:, c] = np.searchsorted(self.sorted[c], self.columns[c, rows], side="left")
        return out

    def of(self, rows: Int64Array) -> FloatArray:
        """û of ``rows`` (eq. 10), shape (len(rows), K); equal to ``rank_cdf(y)[rows]``."""
        out: FloatArray = self.counts(rows) / self.n
        return out

    def all(self) -> FloatArray:
        """û of every model: :func:`rank_cdf` of ``y`` (computed once, read-only; the
        sorted columns come with it)."""
        if self._all is None:
            self._all, ordered = _rank_columns(self.y)
            self._all.setflags(write=False)
            self.__dict__.setdefault("sorted", ordered)
        return self._all

    def at_most(self, c: int, count: int) -> float:
        """The ``count``-th smallest value of objective ``c`` (1 ≤ count ≤ N): a model has
        #{j : y_jc < y_ic} < count exactly when y_ic ≤ this value, so a threshold on û_c
        becomes one on raw values."""
        return float(self.sorted[c, count - 1])
