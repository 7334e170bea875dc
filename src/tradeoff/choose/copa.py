"""COPA (paper 000): make objectives comparable through their rank-based CDF, then aggregate:
the criterion, the α sweeps and the ranking by it.

Conventions (docs/architecture.md): every objective is turned into one to minimise
(maximised columns are negated first); the rank-based CDF is û_i = #{j : y_j < y_i} / N
(eq. 10; ties share the minimum rank, footnote 2); the criterion is
‖ω ⊙ û‖_p = (Σ_k (ω_k û_k)^p)^{1/p} with the weights inside the power (eq. 12), p ∈ [1, ∞],
and the best model minimises it (eq. 11).
Constraints remove models from the *selectable* set but never from the population that
defines û (footnote 4).

Ties are broken explicitly, so that results never depend on how candidates were filtered:
lower score first, then lower Σ_k û_k, then earlier row. Scores closer than
:data:`TIE_TOLERANCE` (relative) count as equal, so that two ways of computing the same score
(one weight vector at a time, or many at once) that differ only by rounding always pick the
same model. For any criterion that is monotone
in û a best model is never strictly dominated, and among identical û vectors the earliest
row wins the tie-break, so sweeps only need the (first copies of the) non-dominated models.

The rank-based CDF û itself sits below both (:mod:`tradeoff.ranks`, as Pareto dominance
does): a pool keeps its :class:`~tradeoff.ranks.Ranks`, so nothing below the choose stage
imports this module.
A big pool need not rank every model: :class:`Ranks` sorts each column once and gives û of
the models asked for; :func:`head` (the first models of a ranking), :func:`sweep_ranks` (an
α sweep, prefiltered on raw values) and :func:`summary_cdf` (Table 2's CDF columns) use it
and return what ranking every model returns.

The baselines of §2 use the same criterion on other normalisations of y (minimised):
``naive`` the original objectives as they are (a maximised one as its shortfall from the top
of its scale, see :func:`scale_top`): eq. 4 on raw values, which reproduces Fig. 1's Naive
row; ``ideal`` y − y^ideal (the global criterion of eq. 3); ``delta``
(y − y^ideal)/|y^ideal| (eq. 6) and ``norm`` (y − y^ideal)/(y^nadir − y^ideal) (eq. 7).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

import numpy as np

from tradeoff.arrays import BoolArray, FloatArray, Int64Array
from tradeoff.pareto import nondominated
from tradeoff.ranks import Ranks as Ranks  # the criterion's û, read from here too
from tradeoff.ranks import rank_cdf as rank_cdf

Method = Literal["copa", "naive", "ideal", "delta", "norm"]
METHODS: tuple[Method, ...] = ("copa", "naive", "ideal", "delta", "norm")


def top_percent(u: float) -> int:
    """û as the "top-x%" people read: x = 100·û rounded, at least 1 (the best of a large
    pool is top-1%).

    >>> top_percent(0.0004), top_percent(0.094)
    (1, 9)
    """
    return max(1, round(100 * u))


def scale_top(best: float) -> float:
    """The top of a maximised objective's scale, from its best value: 1 for scores in
    [0, 1], 100 for percentages, else the next power of ten (the shortfall from it is what
    a "raw" minimisation of a score means, e.g. 100 − average score in paper 000 Fig. 1).

    >>> scale_top(0.93), scale_top(52.0), scale_top(340.0)
    (1.0, 100.0, 1000.0)
    """
    if best <= 1.0:
        return 1.0
    if best <= 100.0:
        return 100.0
    return float(10.0 ** math.ceil(math.log10(best)))


def normalise(
    y: FloatArray,
    method: Method = "copa",
    maximise: Sequence[bool] | BoolArray | None = None,
    reference: FloatArray | None = None,
) -> tuple[FloatArray, tuple[str, ...]]:
    """φ(y) of a method, all columns to minimise; returns (φ, warnings).

    ``maximise`` says which columns of ``y`` were maximised objectives (negated); only
    ``naive`` needs it, to turn such a column x back into its shortfall top − x.
    ``reference`` (a row of ``y``, a reference model's values) replaces y^ideal in
    ``ideal``, ``delta`` and ``norm``, as multi-task learning measures every model against
    a reference (Δ_k = (y_k − y_k^ref)/|y_k^ref|); models better than the reference then
    get negative values.

    Examples
    --------
    >>> y = np.array([[1.0, 4.0], [2.0, 2.0], [4.0, 1.0], [3.0, 3.0]])
    >>> normalise(y)[0].tolist()  # COPA: the share of models strictly better, per column
    [[0.0, 0.75], [0.25, 0.25], [0.75, 0.0], [0.5, 0.5]]
    >>> normalise(y, "ideal")[0].tolist()  # the distance from the best value
    [[0.0, 3.0], [1.0, 1.0], [3.0, 0.0], [2.0, 2.0]]
    """
    y = np.asarray(y, dtype=np.float64)
    if method == "copa":
        return rank_cdf(y), ()
    ideal = y.min(axis=0) if reference is None else np.asarray(reference, dtype=np.float64)
    if method == "naive":
        out = y.copy()
        flags = np.zeros(y.shape[1], dtype=bool) if maximise is None else np.asarray(maximise)
        for k in np.flatnonzero(flags):
            out[:, k] = scale_top(float(-ideal[k])) + y[:, k]
        negative = np.flatnonzero(out.min(axis=0) < 0)
        if negative.size:
            out[:, negative] -= out[:, negative].min(axis=0)
            return out, (
                f"naive: negative values in objective{'s' * (negative.size > 1)} "
                f"{negative.tolist()}, where a p-norm of raw values is undefined; the difference "
                "from the best, y − y^ideal, is used there.",
            )
        return out, ()
    diff = y - ideal
    if method == "ideal":
        return diff, ()
    warnings: list[str] = []
    if method == "delta":
        denom = np.abs(ideal)
        zero = denom == 0
        if zero.any():
            warnings.append(
                f"delta: the {'ideal' if reference is None else 'reference'} value is 0 in "
                f"objective{'s' * (len(which := np.flatnonzero(zero)) > 1)} {which.tolist()}, "
                "so eq. 6 is undefined there and the raw difference is used."
            )
        return diff / np.where(zero, 1.0, denom), tuple(warnings)
    if method == "norm":
        span = y.max(axis=0) - y.min(axis=0)
        return diff / np.where(span == 0, 1.0, span), ()
    raise ValueError(f"unknown method {method!r}; use one of {', '.join(METHODS)}")


TIE_TOLERANCE = 1e-9
"""Scores within this relative distance of each other are a tie (rounding, not preference)."""


def _tolerance(best: FloatArray | float) -> FloatArray:
    return np.asarray(TIE_TOLERANCE * np.maximum(1.0, np.abs(best)), dtype=np.float64)


def tied(ranked: Sequence[float]) -> tuple[bool, ...]:
    """For scores in ranked order, whether each ties the one before or after it (within
    :data:`TIE_TOLERANCE`): its place then comes from the tie-break (Σφ, then row).

    >>> tied([0.1176, 0.1765, 0.1765 + 1e-17, 0.1863])
    (False, True, True, False)
    """
    s = np.asarray(ranked, dtype=np.float64)
    near = np.abs(np.diff(s)) <= _tolerance(np.maximum(np.abs(s[:-1]), np.abs(s[1:])))
    out = np.zeros(s.size, dtype=bool)
    out[:-1] |= near
    out[1:] |= near
    return tuple(bool(t) for t in out)


def snap(s: FloatArray) -> FloatArray:
    """Scores with the near-tie at the top merged: every score within the tolerance of the
    lowest is replaced by the lowest, so sorting by the snapped score, then Σφ, then row,
    puts first exactly the model that :func:`pick_many` picks (O(N)).

    >>> snap(np.array([0.18333333333333335, 0.18333333333333332, 0.5])).tolist()
    [0.18333333333333332, 0.18333333333333332, 0.5]
    """
    out = np.array(s, dtype=np.float64, copy=True)
    if out.size:
        best = out.min()
        out[out - best <= _tolerance(best)] = best
    return out


def scores(phi: FloatArray, weights: Sequence[float] | FloatArray, p: float) -> FloatArray:
    """‖ω ⊙ φ‖_p for every model (eq. 12); ``weights`` of shape (K,) or (M, K).

    With a matrix of weights the result has shape (M, N).

    Examples
    --------
    >>> phi = np.array([[0.0, 0.75], [0.25, 0.25], [0.75, 0.0], [0.5, 0.5]])
    >>> scores(phi, [0.5, 0.5], np.inf).tolist()  # max_k ω_k·φ_k
    [0.375, 0.125, 0.375, 0.25]
    >>> scores(phi, [0.5, 0.5], 1).tolist()  # Σ_k ω_k·φ_k
    [0.375, 0.25, 0.375, 0.5]
    """
    if not p >= 1:
        raise ValueError(f"p must be at least 1 (or inf), got {p}")
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim == 1:
        prod = phi * w
        if math.isinf(p):
            out: FloatArray = prod.max(axis=1)
            return out
        return np.asarray(np.power(np.power(prod, p).sum(axis=1), 1.0 / p), dtype=np.float64)
    return np.stack([scores(phi, row, p) for row in w])


def _tie_order(phi: FloatArray, rows: Int64Array) -> Int64Array:
    """``rows`` sorted by (Σ φ, row)."""
    total = phi[rows].sum(axis=1)
    return rows[np.lexsort((rows, total))]


def rank(
    phi: FloatArray,
    weights: Sequence[float] | FloatArray,
    p: float,
    selectable: BoolArray | None = None,
) -> Int64Array:
    """Selectable models, best first, with the explicit tie-break (score, Σφ, row).

    Examples
    --------
    >>> phi = np.array([[0.0, 0.75], [0.25, 0.25], [0.75, 0.0], [0.5, 0.5]])
    >>> rank(phi, [0.5, 0.5], np.inf).tolist()  # rows 0 and 2 tie on score and Σφ: row order
    [1, 3, 0, 2]
    >>> rank(phi, [0.9, 0.1], np.inf).tolist()
    [0, 1, 3, 2]
    """
    return rank_by(phi, scores(phi, weights, p), selectable)


def rank_by(
    phi: FloatArray,
    s: FloatArray,
    selectable: BoolArray | None = None,
    *,
    limit: int | None = None,
) -> Int64Array:
    """Selectable models ordered by precomputed scores ``s``, then Σφ, then row.

    With ``limit``, only the first ``limit`` of that order (the same rows as the full
    order's head): the rows whose snapped score reaches the limit-th smallest are sorted,
    not the whole pool.

    Examples
    --------
    >>> phi = np.array([[0.5, 0.0], [0.0, 0.5], [0.25, 0.25], [0.75, 0.75]])
    >>> s = np.array([0.5, 0.5, 0.25, 0.75])
    >>> rank_by(phi, s).tolist()
    [2, 0, 1, 3]
    >>> rank_by(phi, s, limit=2).tolist()
    [2, 0]
    >>> rank_by(phi, s, np.array([True, True, False, True]), limit=1).tolist()
    [0]
    """
    rows = np.arange(phi.shape[0]) if selectable is None else np.flatnonzero(selectable)
    snapped = snap(s[rows])
    if limit is not None and 0 < limit < rows.size:
        cut = np.partition(snapped, limit - 1)[limit - 1]
        keep = snapped <= cut
        rows, snapped = rows[keep], snapped[keep]
    total = phi[rows].sum(axis=1)
    order = rows[np.lexsort((rows, total, snapped))]
    return order if limit is None else order[:limit]


def select(
    phi: FloatArray,
    weights: Sequence[float] | FloatArray,
    p: float,
    selectable: BoolArray | None = None,
) -> int:
    """The best selectable model (eq. 11 with the tie-break of :func:`rank`).

    Examples
    --------
    >>> phi = np.array([[0.0, 0.75], [0.25, 0.25], [0.75, 0.0], [0.5, 0.5]])
    >>> select(phi, [0.5, 0.5], np.inf), select(phi, [0.9, 0.1], np.inf)
    (1, 0)
    >>> select(phi, [0.5, 0.5], np.inf, np.array([True, False, True, True]))
    3
    """
    order = rank(phi, weights, p, selectable)
    if order.size == 0:
        raise ValueError("no selectable model")
    return int(order[0])


def alpha_weights(k: int, group: Sequence[int], alphas: Sequence[float] | FloatArray) -> FloatArray:
    """ω(α): the objectives in ``group`` share α equally, the others share 1 − α.

    With one objective in the group this is the paper's ω = [α, (1−α)/6, …] (§5.2).

    >>> alpha_weights(3, [0], [0.5]).tolist()
    [[0.5, 0.25, 0.25]]
    """
    g = sorted(set(group))
    if not g or len(g) >= k or min(g) < 0 or max(g) >= k:
        raise ValueError("the alpha group must name some, but not all, objectives")
    a = np.asarray(alphas, dtype=np.float64).reshape(-1, 1)
    in_group = np.zeros(k, dtype=bool)
    in_group[g] = True
    out: FloatArray = np.where(in_group, a / len(g), (1 - a) / (k - len(g)))
    return out


def candidates(phi: FloatArray, selectable: BoolArray | None = None) -> Int64Array:
    """Selectable models not strictly dominated in φ (first copy of duplicates only).

    Any criterion monotone in φ, with the tie-break (score, Σφ, row), picks one of these.

    Examples
    --------
    >>> phi = np.array([[0.0, 0.75], [0.25, 0.25], [0.75, 0.0], [0.5, 0.5]])
    >>> candidates(phi).tolist()  # row 3 is dominated by row 1
    [0, 1, 2]
    >>> candidates(phi, np.array([True, True, False, True])).tolist()
    [0, 1]
    """
    rows = np.arange(phi.shape[0]) if selectable is None else np.flatnonzero(selectable)
    if rows.size == 0:
        return rows
    # Exact dominance (a superset the criterion then scores with its own tolerance).
    out: Int64Array = rows[nondominated(phi[rows], duplicates="first", settle=False)]
    return out


def _sweep_candidates(
    phi: FloatArray, group: Sequence[int], p: float, selectable: BoolArray | None
) -> Int64Array:
    """Candidates of an α sweep: non-dominated in (group part, other part, tie position).

    Under ω(α) the criterion depends on φ only through A = max (or Σ φ^p) over the group and
    B = the same over the others. The third coordinate is the model's position in the
    tie-break order (Σφ, then row), unique per model: a model beaten or equalled in A and B
    by one that also comes first in the tie-break never wins, whatever α (at α = 0 or 1 one
    of A, B has weight 0, so being better there alone does not beat a tie). 3-D
    non-dominance is O(N log N).
    """
    rows = np.arange(phi.shape[0]) if selectable is None else np.flatnonzero(selectable)
    if rows.size == 0:
        return rows
    sub = phi[rows]
    mask = np.zeros(phi.shape[1], dtype=bool)
    mask[list(group)] = True
    if math.isinf(p):
        a, b = sub[:, mask].max(axis=1), sub[:, ~mask].max(axis=1)
    else:
        powered = np.power(sub, p)
        a, b = powered[:, mask].sum(axis=1), powered[:, ~mask].sum(axis=1)
    position = np.empty(rows.size)
    position[np.lexsort((rows, sub.sum(axis=1)))] = np.arange(rows.size)
    feats = np.column_stack((a, b, position))
    out: Int64Array = rows[nondominated(feats, settle=False)]
    return out


def pick_many(phi: FloatArray, weights: FloatArray, p: float, rows: Int64Array) -> Int64Array:
    """The best of ``rows`` for every weight vector (rows of ``weights``), vectorised.

    Examples
    --------
    >>> phi = np.array([[0.0, 0.75], [0.25, 0.25], [0.75, 0.0], [0.5, 0.5]])
    >>> w = np.array([[0.9, 0.1], [0.5, 0.5], [0.1, 0.9]])
    >>> pick_many(phi, w, np.inf, np.array([0, 1, 2])).tolist()
    [0, 1, 2]
    """
    ordered = _tie_order(phi, rows)
    sub = phi[ordered]
    out = np.empty(weights.shape[0], dtype=np.int64)
    step = max(1, 4_000_000 // max(1, sub.size))
    for start in range(0, weights.shape[0], step):
        w = weights[start : start + step]
        prod = sub[None, :, :] * w[:, None, :]
        if math.isinf(p):
            s = prod.max(axis=2)
        else:
            s = np.power(np.power(prod, p).sum(axis=2), 1.0 / p)
        best = s.min(axis=1, keepdims=True)
        # The first model in tie order among those within the tolerance of the best.
        out[start : start + step] = ordered[np.argmax(s - best <= _tolerance(best), axis=1)]
    return out


def sweep(
    phi: FloatArray,
    group: Sequence[int],
    alphas: Sequence[float] | FloatArray,
    p: float,
    selectable: BoolArray | None = None,
) -> Int64Array:
    """The model selected for every α of an α sweep (same picks as :func:`select`).

    Examples
    --------
    >>> phi = rank_cdf(np.array([[0.0, 3.0], [1.0, 1.0], [3.0, 0.0]]))
    >>> sweep(phi, [0], [0.0, 0.5, 1.0], np.inf).tolist()
    [2, 1, 0]
    """
    w = alpha_weights(phi.shape[1], group, alphas)
    return pick_many(phi, w, p, _sweep_candidates(phi, group, p, selectable))


#: Models whose û a prefilter computes to learn where the best ones lie (evenly spaced rows).
SAMPLE = 4096


def _rows_of(ranks: Ranks, selectable: BoolArray | None) -> Int64Array:
    out: Int64Array = np.arange(ranks.n) if selectable is None else np.flatnonzero(selectable)
    return out


def _sample(rows: Int64Array) -> Int64Array:
    """:data:`SAMPLE` of ``rows``, evenly spaced (the same ones on every machine)."""
    out: Int64Array = rows[np.linspace(0, rows.size - 1, SAMPLE).astype(np.int64)]
    return out


def head(
    ranks: Ranks,
    weights: Sequence[float] | FloatArray,
    p: float,
    selectable: BoolArray | None = None,
    limit: int | None = None,
) -> tuple[Int64Array, FloatArray]:
    """The first ``limit`` selectable models by (score, Σû, row) and their scores (eq. 12),
    with û from ``ranks``: the same as ``rank_by(û, scores(û, ω, p), selectable, limit)``.

    On a big pool only the models that can reach the head are scored: those whose every
    ω_k·û_k is at most the ``limit``-th smallest score of a sample (a p-norm is at least its
    largest term), found by comparing raw values with one threshold per objective.

    Examples
    --------
    >>> ranks = Ranks(np.array([[1.0, 4.0], [2.0, 2.0], [4.0, 1.0], [3.0, 3.0]]))
    >>> order, s = head(ranks, [0.5, 0.5], np.inf, limit=2)
    >>> order.tolist(), s.tolist()
    ([1, 3], [0.125, 0.25])
    """
    w = np.asarray(weights, dtype=np.float64)
    rows = _rows_of(ranks, selectable)
    if limit is not None and 0 < limit <= SAMPLE and rows.size > 2 * SAMPLE:
        s_sample = scores(ranks.of(_sample(rows)), w, p)
        t = float(np.partition(s_sample, limit - 1)[limit - 1])
        # Every model scoring at most t, or tied with the best (which is at most t); slack
        # for rounding, since a larger set only costs time.
        bound = (t + TIE_TOLERANCE * max(1.0, abs(t))) * (1 + 1e-6)
        # (Not where the largest term's p-th power could underflow: that score comes out low.)
        if math.isinf(p) or bound**p > 1e-300:
            keep = np.ones(rows.size, dtype=bool)
            for c in np.flatnonzero(w > 0):
                count = math.floor(ranks.n * bound / w[c]) + 2  # û_c ≤ bound/ω_c
                if count < ranks.n:
                    keep &= ranks.columns[c, rows] <= ranks.at_most(int(c), count)
            rows = rows[keep]
    u = ranks.all()[rows] if rows.size > max(2 * SAMPLE, ranks.n // 8) else ranks.of(rows)
    s = scores(u, w, p)
    local = rank_by(u, s, limit=limit)
    return rows[local], s[local]


def _margin(ranks: Ranks, weights: FloatArray, group: Sequence[int]) -> int:
    """How many ranks worse, on both the group's largest û and the others', a model must be
    than another for its ∞-norm score to exceed that one's by more than the tie tolerance at
    every α of the sweep (whose ω(α) are the rows of ``weights``).

    Scores are below 1 (so the tolerance is ``TIE_TOLERANCE``). Worse by d/N on both parts
    raises ‖ω ⊙ û‖_∞ by at least d/N times the smaller positive part weight (the only
    positive one at α = 0 or 1); twice the tolerance covers rounding.
    """
    in_group = np.zeros(ranks.k, dtype=bool)
    in_group[list(group)] = True
    a = weights[:, in_group].max(axis=1)
    b = weights[:, ~in_group].max(axis=1)
    both = np.where(a == 0, b, np.where(b == 0, a, np.minimum(a, b)))
    least = float(both.min())
    if least <= 0:
        return ranks.n
    return min(ranks.n, math.ceil(2 * TIE_TOLERANCE * ranks.n / least) + 1)


def _sweep_prefilter(
    ranks: Ranks, group: Sequence[int], weights: FloatArray, rows: Int64Array
) -> Int64Array:
    """The ``rows`` that can win an α sweep at p = ∞ (a superset), from raw values.

    The criterion depends on û only through a = the group's largest û and b = the others'
    largest. A model worse by the margin of :func:`_margin` on both a and b than some
    selectable model scores more than the tolerance above it at every α, so it is never the
    pick nor tied with it. The models compared against are the 2-D non-dominated (a, b) of a
    sample; "a_j ≥ a_i + margin" is "some group value above a threshold", read from the
    sorted columns, so no other model needs its û.
    """
    margin = _margin(ranks, weights, group)
    if margin >= ranks.n // 4 or rows.size <= 2 * SAMPLE:
        return rows
    in_group = np.zeros(ranks.k, dtype=bool)
    in_group[list(group)] = True
    g, rest = np.flatnonzero(in_group), np.flatnonzero(~in_group)
    counts = ranks.counts(_sample(rows))
    a, b = counts[:, g].max(axis=1), counts[:, rest].max(axis=1)
    # The sample's staircase: by a, keeping each model whose b beats every earlier one.
    order = np.lexsort((b, a))
    lowest = np.minimum.accumulate(b[order])
    stairs = order[np.r_[True, lowest[1:] < lowest[:-1]]]
    stairs = stairs[np.argsort(a[stairs] + b[stairs], kind="stable")]  # most telling first
    columns = ranks.columns if rows.size == ranks.n else ranks.columns[:, rows]
    for i in stairs:
        ta, tb = int(a[i]) + margin, int(b[i]) + margin
        if ta >= ranks.n or tb >= ranks.n:
            continue
        # a_j ≥ ta: some group value has ta or more strictly smaller ones (same for b).
        worse = np.zeros(rows.size, dtype=bool)
        for c in g:
            worse |= columns[c] > ranks.at_most(int(c), ta)
        worse_b = np.zeros(rows.size, dtype=bool)
        for c in rest:
            worse_b |= columns[c] > ranks.at_most(int(c), tb)
        worse &= worse_b
        if worse.any():
            keep = ~worse
            rows, columns = rows[keep], columns[:, keep]
    return rows


def sweep_ranks(
    ranks: Ranks,
    group: Sequence[int],
    alphas: Sequence[float] | FloatArray,
    p: float,
    selectable: BoolArray | None = None,
) -> Int64Array:
    """The model selected for every α, with û from ``ranks``: the same picks as
    ``sweep(ranks.all(), group, alphas, p, selectable)``.

    At p = ∞ the models that can win are first narrowed down on raw values
    (:func:`_sweep_prefilter`); only those get their û (eq. 10), then the usual candidates
    (:func:`_sweep_candidates`) and picks (:func:`pick_many`, eqs. 11-12). Other p rank
    every model.

    Examples
    --------
    >>> ranks = Ranks(np.array([[0.0, 3.0], [1.0, 1.0], [3.0, 0.0]]))
    >>> sweep_ranks(ranks, [0], [0.0, 0.5, 1.0], np.inf).tolist()
    [2, 1, 0]
    """
    if not math.isinf(p):
        return sweep(ranks.all(), group, alphas, p, selectable)
    w = alpha_weights(ranks.k, group, alphas)
    rows = _sweep_prefilter(ranks, group, w, _rows_of(ranks, selectable))
    u = ranks.of(rows)
    picks = pick_many(u, w, p, _sweep_candidates(u, group, p, None))
    out: Int64Array = rows[picks]
    return out


def summary_cdf(ranks: Ranks, columns: Sequence[int], p: float, rows: Int64Array) -> FloatArray:
    """For the models ``rows``: the rank CDF, over the whole population, of the equally
    weighted p-norm of û over ``columns`` (the share of models with a strictly smaller
    summary; paper 000 Table 2's CDF columns).

    At p = ∞ the summary orders models as the largest count of strictly smaller values
    over ``columns`` does (û_k·ω and k/N keep the order of the integers), so a model's share
    is that of the models whose every value in ``columns`` stays under its largest count:
    one scan of the raw values per distinct count. Other p rank every model.

    Examples
    --------
    >>> ranks = Ranks(np.array([[0.0, 3.0], [1.0, 1.0], [3.0, 0.0], [2.0, 2.0]]))
    >>> summary_cdf(ranks, [0, 1], np.inf, np.array([1, 3])).tolist()
    [0.0, 0.25]
    """
    cols = list(columns)
    if len(cols) == 1:
        out: FloatArray = ranks.of(rows)[:, cols[0]]
        return out
    if not math.isinf(p):
        sub = ranks.all()[:, cols]
        s = scores(sub, np.full(len(cols), 1.0 / len(cols)), p)
        return np.array([np.count_nonzero(s < s[r]) / len(s) for r in rows], dtype=np.float64)
    level = ranks.counts(rows)[:, cols].max(axis=1)
    below: dict[int, int] = {0: 0}
    alive = ranks.columns[cols]
    for count in sorted(set(level.tolist()) - {0}, reverse=True):  # nested sets, shrinking
        inside = np.ones(alive.shape[1], dtype=bool)
        for j, c in enumerate(cols):
            inside &= alive[j] <= ranks.at_most(c, count)
        alive = alive[:, inside]
        below[count] = alive.shape[1]
    return np.array([below[int(v)] / ranks.n for v in level], dtype=np.float64)


def sweep_weights(
    phi: FloatArray, weights: FloatArray, p: float, selectable: BoolArray | None = None
) -> Int64Array:
    """The model selected for each of many arbitrary weight vectors.

    Examples
    --------
    >>> phi = np.array([[0.0, 0.75], [0.25, 0.25], [0.75, 0.0], [0.5, 0.5]])
    >>> sweep_weights(phi, np.array([[0.9, 0.1], [0.5, 0.5], [0.1, 0.9]]), np.inf).tolist()
    [0, 1, 2]
    """
    return pick_many(phi, np.atleast_2d(weights), p, candidates(phi, selectable))
