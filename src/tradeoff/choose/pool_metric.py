"""An elicited linear metric on a candidate pool: its columns, ψ's rows, and COPA's ω.

The elicited weights name classes and attributes; a pool measures them in its columns
(:func:`metric_objectives`). This module computes ψ of every candidate
(:func:`metric_vectors`), its coefficients in the pool's units (:func:`metric_coefficients`),
and maps them onto COPA's ω and back (:func:`metric_to_omega`, :func:`omega_for_metric`,
:func:`omega_to_weights`). Ranking with that ω is :func:`tradeoff.choose.rank.rank_with_metric`.

From elicited weights to ω (:func:`metric_to_omega`, :func:`omega_for_metric`)
-----------------------------------------------------------------------------
The elicited metric is ψ = Σ_i a_i·d_i + Σ_j s_j·a_j·x_j in the scenario's natural units,
with d_i = ζ_i·recall_i (recall ↔ d_i via the class priors ζ; docs/architecture.md) and
s_j = −1 for a cost, +1 for a reward. On a pool whose columns measure recall per class and
each attribute, ψ is linear in the columns with coefficients c_k = a_i·ζ_i (recall column) or
s_j·a_j.

COPA compares models through û_k ∈ [0, 1], the share of the population better on column k,
and eq. 12 reads ω_k/ω_l as a trade-off ratio: going from the best to the worst model of
the population on objective k is worth ω_k/ω_l times the same move on l. Under ψ, going
from the best to the worst value of column k costs |c_k|·(max_k − min_k). Hence

    ω_k ∝ |c_k| · (max_k − min_k) over the population, normalised to Σ ω = 1

(the "swing weights" of multi-attribute utility theory). This is the right scaling because
it is the only one that is invariant to units: expressing a column in other units (seconds
instead of minutes, ×c) divides its coefficient by c and multiplies its range by c, and
shifting it changes neither, so ω does not change (tested). Weights proportional to raw
|c_k| alone would change with the units; weights from ranges of the *scenario* rather than
the pool would ignore where the real candidates lie.

Swing weights are one reading; they put ψ's best model first for only about a quarter of
people (benchmarks/results/omega.md), because û drops magnitudes. :func:`omega_for_metric`
therefore chooses, by measurement on the pool, among swing weights, a least-squares fit
and ω anchored at ψ's best model, the one whose COPA ranking agrees best with ψ (its
limits are stated there).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from tradeoff.arrays import FloatArray
from tradeoff.ask.formats import counts_itself
from tradeoff.ask.scenario import Scenario
from tradeoff.choose import copa
from tradeoff.errors import InputError
from tradeoff.pool import Objective, Pool
from tradeoff.pool.meaning import attribute_meaning
from tradeoff.stable import stable_argmax


def check_metric(scenario: Scenario, metric: Sequence[float]) -> tuple[float, ...]:
    """Elicited metric weights, checked: one per class and attribute in the scenario's
    order, finite, ≥ 0 and not all zero (an InputError naming ``metric weights``)."""
    names = scenario.weight_names
    if len(metric) != len(names):
        raise InputError.single(
            scenario.id,
            "metric weights",
            f"needs {len(names)} weights ({', '.join(names)}), got {len(metric)}.",
            "give one weight per class and attribute, in the scenario's order.",
        )
    w = np.asarray(metric, dtype=np.float64)
    if not (np.isfinite(w).all() and (w >= 0).all() and w.sum() > 0):
        raise InputError.single(
            scenario.id,
            "metric weights",
            "must be finite, non-negative and not all zero.",
            "give each class and attribute a weight ≥ 0.",
        )
    return tuple(float(x) for x in w)


def metric_objectives(scenario: Scenario) -> tuple[Objective, ...]:
    """The pool columns a scenario's ``[pool] columns`` names, with their directions and
    meanings (a class's recall in [0, 1], a cost or reward as its range allows,
    :func:`tradeoff.pool.meaning.attribute_meaning`), which :func:`tradeoff.pool.load_pool`
    checks every row against. A scenario without ``[pool]`` reads a pool file given to it
    by the aspects' own names: a column per class and attribute, named as the scenario
    names it.

    >>> from tradeoff.ask.scenario import load_scenario
    >>> [o.column for o in metric_objectives(load_scenario("train-trips").scenario)]
    ['price', 'time', 'changes', 'discomfort']
    """
    if scenario.pool is None:
        cols = {name: name for name in scenario.weight_names}
    else:
        cols = scenario.pool.columns
    missing = [n for n in scenario.weight_names if n not in cols]
    if missing:
        raise InputError.single(
            scenario.id,
            "pool.columns",
            f"no pool column given for {missing}.",
            "map every class and attribute to the pool column that measures it.",
        )
    objs = [Objective(cols[c.name], "max", attribute_meaning(c)) for c in scenario.classes]
    # Options described by their aspects alone are read by the aspects' names and units;
    # a classifier's pool keeps its own column names.
    aspects_only = not scenario.classes
    objs += [
        Objective(
            cols[a.name],
            "min" if a.kind == "cost" else "max",
            attribute_meaning(a),
            (a.name if not a.unit or counts_itself(a.name, a.unit) else f"{a.name} ({a.unit})")
            if aspects_only
            else None,
        )
        for a in scenario.attributes
    ]
    return tuple(objs)


def _metric_scale(scenario: Scenario, priors: Sequence[float]) -> FloatArray:
    """dψ per unit of each pool column for a unit weight: ζ_i for a class's recall column,
    −1 for a cost and +1 for a reward (the one place the metric's units are defined)."""
    k = scenario.n_classes
    signs = [-1.0 if a.kind == "cost" else 1.0 for a in scenario.attributes]
    return np.asarray(list(priors)[:k] + signs, dtype=np.float64)


def metric_scale(scenario: Scenario, priors: Sequence[float]) -> FloatArray:
    """dψ per unit of each pool column for a unit weight (``metric_vectors`` is the
    pool's values times this).

    >>> from tradeoff.ask.scenario import load_scenario
    >>> sc = load_scenario("scenarios/breast-cancer-triage.toml").scenario
    >>> metric_scale(sc, [0.4, 0.6]).tolist()
    [0.4, 0.6, -1.0, -1.0]
    """
    return _metric_scale(scenario, priors)


def metric_vectors(
    scenario: Scenario, candidates: Pool | FloatArray, priors: Sequence[float]
) -> FloatArray:
    """ψ's statistics of every candidate, one row per model: d_i = ζ_i·recall_i for the
    classes, then each attribute with the sign that makes higher better, so that
    ψ = vectors @ weights for normalised metric weights (one weight vector, or one column
    per vector: ``vectors @ draws.T``).

    ``candidates`` is a pool (its columns in the scenario's ``[pool] columns`` order) or
    its values, one row per model. This is the one computation of ψ: the recommendation,
    the regret matrix, COPA's agreement with the metric and the engine's aim at the
    decision all start from these rows (the engine takes them as plain numbers; it never
    sees a pool). Compute them once per pool and priors and pass them on.

    Examples
    --------
    >>> from tradeoff.ask.scenario import load_scenario
    >>> sc = load_scenario("scenarios/breast-cancer-triage.toml").scenario
    >>> rows = metric_vectors(sc, np.array([[0.9, 0.8, 5.0, 300.0]]), [0.4, 0.6])
    >>> [round(float(x), 6) for x in rows[0]]
    [0.36, 0.48, -5.0, -300.0]
    >>> round(float((rows @ np.array([0.5, 0.5, 0.0, 0.0]))[0]), 6)  # ψ = ½·0.36 + ½·0.48
    0.42
    """
    values = candidates.values if isinstance(candidates, Pool) else np.asarray(candidates)
    out: FloatArray = values * _metric_scale(scenario, priors)
    return out


def metric_coefficients(
    scenario: Scenario, weights: Sequence[float], priors: Sequence[float]
) -> tuple[float, ...]:
    """dψ per unit of each pool column: a_i·ζ_i for recall, ∓a_j for a cost/reward (the
    weights in the pool's units, which COPA's ω is mapped from: :func:`metric_to_omega`).
    ``values @ coefficients`` equals ``metric_vectors(...) @ weights``."""
    c = np.asarray(weights, dtype=np.float64) * _metric_scale(scenario, priors)
    return tuple(float(x) for x in c)


def metric_to_omega(coefficients: Sequence[float], values: FloatArray) -> tuple[float, ...]:
    """COPA's ω from a linear metric's per-unit coefficients and the population's values.

    ω_k ∝ |c_k|·(max_k − min_k), normalised (see the module docstring for why).

    Examples
    --------
    >>> metric_to_omega([1.0, -2.0], np.array([[0.0, 10.0], [1.0, 11.0]]))
    (0.3333333333333333, 0.6666666666666666)
    """
    span = values.max(axis=0) - values.min(axis=0)
    swing = np.abs(np.asarray(coefficients, dtype=np.float64)) * span
    total = swing.sum()
    if not total > 0:
        k = len(coefficients)
        return tuple([1.0 / k] * k)
    return tuple(float(x) for x in swing / total)


#: The weights → ω mappings :func:`omega_for_metric` chooses from, in order of preference
#: on ties (measured in benchmarks/results/omega.md).
OMEGA_MAPPINGS = ("swing", "fitted", "anchored")


def _omega_of(
    mapping: str,
    u: FloatArray,
    psi: FloatArray,
    coefficients: FloatArray,
    values: FloatArray,
    selectable: NDArray[np.bool_],
) -> FloatArray:
    if mapping == "swing":
        return np.asarray(metric_to_omega(tuple(coefficients), values))
    used = coefficients != 0
    if mapping == "fitted":
        # Σ_k ω_k·û_k (p = 1) as close as least squares gets to ψ's shortfall from its best,
        # ω ≥ 0 on the columns the metric uses, plus a free intercept; a tiny ridge makes
        # the fit unique when there are fewer models than columns.
        from scipy.optimize import lsq_linear

        spread = float(np.ptp(psi)) or 1.0
        k = int(used.sum())
        design = np.vstack(
            (
                np.hstack((u[:, used], np.ones((len(u), 1)))),
                np.hstack((1e-3 * np.eye(k), np.zeros((k, 1)))),
            )
        )
        target = np.r_[(psi.max() - psi) / spread, np.zeros(k)]
        lower = np.r_[np.zeros(k), -np.inf]
        fit = lsq_linear(design, target, bounds=(lower, np.inf), method="bvls", tol=1e-12)
        omega = np.zeros(len(coefficients))
        omega[used] = fit.x[:-1]
        return omega
    # anchored: the metric's best selectable model m* scores the same on every objective
    # the metric uses, so only a model ranked better on all of them beats it at p = ∞.
    rows = np.flatnonzero(selectable)
    best = int(rows[stable_argmax(psi[rows])])
    out: FloatArray = np.where(used, 1.0 / (u[best] + 1.0 / len(u)), 0.0)
    return out


def omega_for_metric(
    pool: Pool,
    coefficients: Sequence[float],
    p: float = math.inf,
    selectable: NDArray[np.bool_] | None = None,
    psi: FloatArray | None = None,
    mappings: Sequence[str] = OMEGA_MAPPINGS,
    u: FloatArray | None = None,
) -> tuple[tuple[float, ...], str]:
    """COPA's ω for a linear metric on ``pool``, chosen by measurement, and its mapping's name.

    Rank CDFs keep each column's order but drop its magnitudes, so no ω makes a weighted
    p-norm over û reproduce a linear metric ψ over natural units in general. Of three
    mappings (``OMEGA_MAPPINGS``) this takes the one whose COPA ranking at ``p`` agrees best
    with ψ over the pool: first, COPA's pick must be a best model under ψ; then the higher
    Kendall τ between the two orders (ties: the earlier mapping). ``psi`` (one value per
    model, e.g. the posterior expected metric of :func:`~tradeoff.choose.recommend.recommend`)
    replaces ψ = values·c when given, so that COPA agrees with the recommendation itself;
    ``mappings`` restricts the choice (benchmarks/omega.py measures each mapping alone);
    ``u`` is the pool's û (:attr:`~tradeoff.pool.Pool.rank_cdf`) when the caller read it
    with the pool (it is read here otherwise).

    * ``swing``: ω_k ∝ |c_k|·(max_k − min_k) (:func:`metric_to_omega`, eq. 12 read as a
      trade-off ratio);
    * ``fitted``: ω ≥ 0 fitted by least squares so that Σ_k ω_k·û_k (COPA at p = 1) follows
      ψ's shortfall from its best;
    * ``anchored``: ω_k ∝ 1/(û_k(m*) + 1/N) for the metric's best model m*: at p = ∞, m*
      then scores the same on every objective, and a model can only beat it by being ranked
      at least as well on all of them, which makes it at least as good under ψ: COPA's pick
      is then always a best model under ψ.

    Measured over 1,000 people on the shipped pool and 20 on each of 200 other pools
    (benchmarks/results/omega.md): at p = ∞ COPA's pick is the metric's best for every
    person (the swing mapping alone: 23–24%); Kendall τ has median 0.67 (shipped pool),
    0.63 (random pools with skewed or tied columns) and 0.77 (leaderboard pools); at p = 1
    the pick agrees for 77–87% with τ 0.65, 0.81 and 0.93. τ ≥ 0.9 is out of reach on
    skewed or tied pools: that is the limit of ranking by rank CDFs, not of ω.

    Examples
    --------
    >>> import pandas as pd
    >>> from tradeoff.pool import Objective, Pool
    >>> values = np.array([[0.9, 9.0], [0.8, 2.0], [0.7, 1.0]])
    >>> objectives = (Objective("acc", "max"), Objective("ms", "min"))
    >>> pool = Pool("x", ("a", "b", "c"), objectives, values, pd.DataFrame(), np.arange(3))
    >>> omega, mapping = omega_for_metric(pool, [10.0, -0.1])
    >>> mapping, [round(w, 2) for w in omega]
    ('swing', [0.71, 0.29])
    """
    c = np.asarray(coefficients, dtype=np.float64)
    selectable = np.ones(pool.n, dtype=bool) if selectable is None else selectable
    u = pool.rank_cdf if u is None else u
    psi = pool.values @ c if psi is None else np.asarray(psi, dtype=np.float64)
    top = float(psi[selectable].max())
    chosen: tuple[float, ...] = tuple([1.0 / len(c)] * len(c))
    name, best = "swing", (False, -math.inf)
    for mapping in mappings:
        omega = _omega_of(mapping, u, psi, c, pool.values, selectable)
        if not omega.sum() > 0:
            continue
        omega = omega / omega.sum()
        s = copa.scores(u, omega, p)
        pick = int(copa.rank_by(u, s, selectable, limit=1)[0])
        first = bool(psi[pick] >= top - 1e-12 * max(1.0, abs(top)))
        score = (first, float(agreement(s, psi, selectable)["kendall_tau"]))
        if score > best:  # strictly better: on a tie the earlier mapping stays
            chosen, name, best = tuple(float(x) for x in omega), mapping, score
    return chosen, name


def omega_to_weights(
    scenario: Scenario, omega: Sequence[float], priors: Sequence[float], values: FloatArray
) -> tuple[float, ...]:
    """The metric weights (per unit, normalised) whose ω over ``values`` is ``omega``.

    The inverse of :func:`metric_to_omega` after :func:`metric_coefficients`: a weight per
    unit is ω_k over the column's range, and a class's is further divided by its prior
    (its pool column is a recall, ψ's statistic is d_i = ζ_i·recall_i). Columns must
    vary over ``values``.

    Examples
    --------
    >>> from tradeoff.ask.scenario import load_scenario
    >>> sc = load_scenario("scenarios/paper-k2-two-costs.toml").scenario
    >>> values = np.array([[0.5, 0.5, 0.0, 0.0], [1.0, 1.0, 1.0, 2.0]])
    >>> a = omega_to_weights(sc, [0.4, 0.3, 0.2, 0.1], [0.5, 0.5], values)
    >>> [round(x, 3) for x in metric_to_omega(metric_coefficients(sc, a, [0.5, 0.5]), values)]
    [0.4, 0.3, 0.2, 0.1]
    """
    span = values.max(axis=0) - values.min(axis=0)
    if not (span > 0).all():
        raise ValueError("every column must vary over the values to invert ω")
    a = np.asarray(omega, dtype=np.float64) / span
    a[: scenario.n_classes] /= np.asarray(priors, dtype=np.float64)
    return tuple(float(x) for x in a / a.sum())


def agreement(
    copa_scores: FloatArray, psi: FloatArray, selectable: NDArray[np.bool_] | None = None
) -> dict[str, float | bool]:
    """Kendall τ between the COPA order (low score best) and the ψ order (high best)."""
    rows = np.arange(len(psi)) if selectable is None else np.flatnonzero(selectable)
    tau = kendall_tau(-copa_scores[rows], psi[rows])
    return {"kendall_tau": tau if math.isfinite(tau) else 0.0}


#: From this many values on :func:`kendall_tau` is scipy's (its loop here takes about
#: 0.1 s at 20,000 values, 0.4 s at 100,000; importing scipy.stats about 0.3 s).
SCIPY_FROM = 50_000


def kendall_tau(x: ArrayLike, y: ArrayLike) -> float:
    """Kendall's τ-b of two equally long sequences, as ``scipy.stats.kendalltau`` computes
    it: the same dense ranks, counts of discordant and tied pairs and the same arithmetic,
    so the same float; nan when either sequence is constant, shorter than two or holds a
    nan. Written out because importing ``scipy.stats`` costs ``select`` and ``rank`` a
    third of a second (tests/choose/test_rank.py compares it with scipy's); from
    :data:`SCIPY_FROM` values on, where the counting loop here would take longer than
    that import, scipy's own compiled version answers.

    >>> kendall_tau([1, 2, 3, 4], [1, 3, 2, 4])
    0.6666666666666669
    >>> kendall_tau([1, 1, 2], [3, 2, 1])
    -0.816496580927726
    """
    x = np.asarray(x, dtype=np.float64).ravel()
    y = np.asarray(y, dtype=np.float64).ravel()
    if x.size != y.size:
        raise ValueError("x and y must be equally long")
    size = x.size
    if size < 2 or np.isnan(x).any() or np.isnan(y).any():
        return math.nan
    if size >= SCIPY_FROM:
        from scipy.stats import kendalltau

        return float(kendalltau(x, y).statistic)
    perm = np.argsort(y)  # sort on y and convert y to dense ranks
    x, y = x[perm], y[perm]
    y_rank = np.r_[True, y[1:] != y[:-1]].cumsum(dtype=np.intp)
    perm = np.argsort(x, kind="mergesort")  # stable sort on x, x to dense ranks
    x, y_rank = x[perm], y_rank[perm]
    x_rank = np.r_[True, x[1:] != x[:-1]].cumsum(dtype=np.intp)
    dis = _discordant_pairs(x_rank, y_rank)
    obs = np.r_[True, (x_rank[1:] != x_rank[:-1]) | (y_rank[1:] != y_rank[:-1]), True]
    cnt = np.diff(np.nonzero(obs)[0]).astype(np.int64, copy=False)
    ntie = int((cnt * (cnt - 1) // 2).sum())  # pairs tied in both
    xtie, ytie = _tied_pairs(x_rank), _tied_pairs(y_rank)
    tot = (size * (size - 1)) // 2
    if xtie == tot or ytie == tot:
        return math.nan
    con_minus_dis = tot - xtie - ytie + ntie - 2 * dis
    tau = con_minus_dis / np.sqrt(tot - xtie) / np.sqrt(tot - ytie)
    return float(np.minimum(1.0, max(-1.0, tau)))


def _tied_pairs(ranks: NDArray[np.intp]) -> int:
    cnt = np.bincount(ranks).astype(np.int64, copy=False)
    cnt = cnt[cnt > 1]
    return int((cnt * (cnt - 1) // 2).sum())


def _discordant_pairs(x: NDArray[np.intp], y: NDArray[np.intp]) -> int:
    """Pairs ordered one way by ``x`` (dense ranks, sorted) and the other by ``y`` (dense
    ranks): each element counts the earlier ones of smaller ``x`` and larger ``y``, read
    from a Fenwick tree of the ``y`` seen so far (O(n log n), as scipy's ``_kendall_dis``)."""
    xs, ys = x.tolist(), y.tolist()
    sup = max(ys) + 1
    tree = [0] * (sup + 1)
    size = len(xs)
    dis = i = k = 0
    while i < size:
        while k < size and xs[i] == xs[k]:
            dis += i
            idx = ys[k]
            while idx != 0:
                dis -= tree[idx]
                idx &= idx - 1
            k += 1
        while i < k:
            idx = ys[i]
            while idx < sup:
                tree[idx] += 1
                idx += idx & -idx
            i += 1
    return dis
