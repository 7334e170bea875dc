"""Rank a candidate pool: COPA or a baseline, constraints, Pareto flags, explanations, and the
mapping from an elicited linear metric onto the pool's columns and COPA's ω.

The numeric work is in :mod:`tradeoff.copa`; this module ties it to a
:class:`~tradeoff.pool.Pool` and produces what the CLI, the app and reports show.

From elicited weights to ω (:func:`metric_to_omega`)
----------------------------------------------------
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
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any, TypedDict, Unpack

import numpy as np
from numpy.typing import NDArray

from tradeoff import copa
from tradeoff.errors import InputError
from tradeoff.pool import Objective, Pool
from tradeoff.presentation import difference_words
from tradeoff.scenario import Scenario

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class ModelRow:
    """One model as reported: its name, score, û and raw values, Pareto flag."""

    index: int
    name: str
    score: float
    u: dict[str, float]
    values: dict[str, float]
    pareto: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "score": self.score,
            "u": self.u,
            "values": self.values,
            "pareto": self.pareto,
        }


@dataclass(frozen=True)
class RankOutcome:
    """Everything ``tradeoff rank`` reports."""

    n: int
    selectable: int
    method: str
    p: float
    weights: tuple[float, ...]
    selected: ModelRow
    ranking: tuple[ModelRow, ...]
    pareto_count: int
    explanation: str
    sweep: tuple[tuple[float, str], ...] | None = None
    warnings: tuple[str, ...] = ()
    linear: LinearRanking | None = None
    recommended: Recommendation | None = None
    scores: FloatArray | None = field(default=None, repr=False, compare=False)
    selectable_mask: NDArray[np.bool_] | None = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "n": self.n,
            "selectable": self.selectable,
            "method": self.method,
            "p": "inf" if math.isinf(self.p) else self.p,
            "weights": list(self.weights),
            "selected": self.selected.to_dict(),
            "ranking": [r.to_dict() for r in self.ranking],
            "pareto_count": self.pareto_count,
            "explanation": self.explanation,
            "warnings": list(self.warnings),
        }
        if self.sweep is not None:
            data["sweep"] = [{"alpha": a, "name": n} for a, n in self.sweep]
        if self.linear is not None:
            data.update(self.linear.to_dict())
            data["agreement"]["top1"] = self.linear.top_match
        if self.recommended is not None:
            data["recommended"] = self.recommended.to_dict()
        return data


@dataclass(frozen=True)
class LinearRanking:
    """The pool ranked by an elicited linear metric ψ, beside COPA's ranking of it."""

    metric: dict[str, float]
    selected: str
    ranking: tuple[tuple[str, float], ...]
    kendall_tau: float
    top_match: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "linear": {
                "selected": self.selected,
                "ranking": [{"name": n, "psi": v} for n, v in self.ranking],
            },
            "agreement": {"kendall_tau": self.kendall_tau, "top_match": self.top_match},
            "metric": dict(self.metric),
        }


def top_percent(u: float) -> int:
    """û as the "top-x%" people read: x = 100·û rounded, at least 1."""
    return max(1, round(100 * u))


def explain(pool: Pool, u: FloatArray, index: int) -> str:
    """Explain a model in the population's terms, one clause per objective.

    E.g. "top-9% on MMLU-PRO (33.7; best 73.0, median 25.1); top-8% on CO₂ cost (kg)
    (0.47; best 0.08, median 1.9)".
    """
    parts = []
    for k, obj in enumerate(pool.objectives):
        col = pool.values[:, k]
        best = col.max() if obj.direction == "max" else col.min()
        parts.append(
            f"top-{top_percent(u[index, k])}% on {obj.column} "
            f"({pool.values[index, k]:.4g}; best {best:.4g}, median {np.median(col):.4g})"
        )
    return f"{pool.names[index]}: " + "; ".join(parts)


def _row(pool: Pool, u: FloatArray, s: FloatArray, i: int, pareto: bool) -> ModelRow:
    cols = pool.columns
    return ModelRow(
        index=int(i),
        name=pool.names[i],
        score=float(s[i]),
        u={c: float(u[i, k]) for k, c in enumerate(cols)},
        values={c: float(pool.values[i, k]) for k, c in enumerate(cols)},
        pareto=pareto,
    )


def weights_from_options(
    pool: Pool,
    weights: dict[str, float] | None = None,
    alpha_objectives: Sequence[str] = (),
    alpha: float | None = None,
) -> tuple[float, ...]:
    """ω from named weights (unlisted objectives 0) or from α over a group (default: all equal)."""
    cols = pool.columns
    k = len(cols)
    if weights and alpha_objectives:
        raise InputError.single(
            pool.source,
            "options",
            "weights and an alpha objective cannot be combined.",
            "use one way to set the weights.",
        )
    if weights:
        unknown = [c for c in weights if c not in cols]
        if unknown:
            raise InputError.single(
                pool.source,
                f"weight {unknown[0]!r}",
                "is not one of the objectives.",
                f"use one of: {', '.join(cols)}.",
            )
        w = np.array([weights.get(c, 0.0) for c in cols])
        if (w < 0).any() or not np.isfinite(w).all() or w.sum() <= 0:
            raise InputError.single(
                pool.source,
                "weights",
                "weights must be non-negative and not all zero.",
                "give each objective a weight ≥ 0.",
            )
        return tuple(float(x) for x in w / w.sum())
    if alpha_objectives:
        group = _group(pool, alpha_objectives)
        a = 0.5 if alpha is None else alpha
        if not 0 <= a <= 1:
            raise InputError.single(
                pool.source, "alpha", f"must lie in [0, 1], got {a}.", "use 0 ≤ α ≤ 1."
            )
        return tuple(float(x) for x in copa.alpha_weights(k, group, [a])[0])
    return tuple([1.0 / k] * k)


def _group(pool: Pool, names: Sequence[str]) -> list[int]:
    cols = pool.columns
    out = []
    for name in names:
        if name not in cols:
            raise InputError.single(
                pool.source,
                f"alpha objective {name!r}",
                "is not one of the objectives.",
                f"use one of: {', '.join(cols)}.",
            )
        out.append(cols.index(name))
    if len(set(out)) == len(cols):
        raise InputError.single(
            pool.source,
            "alpha objective",
            "names every objective; α needs others to trade.",
            "leave at least one objective out of the α group.",
        )
    return out


class RankOptions(TypedDict, total=False):
    """How to rank: criterion ``p`` (default ∞), ``method`` (default ``copa``),
    ``constraints`` on raw values (conditions of :mod:`tradeoff.expr`), ``top`` models to
    report (default 10), and an optional α sweep: ``sweep_alphas`` over the objectives
    ``sweep_group``."""

    p: float
    method: copa.Method
    constraints: Sequence[str]
    top: int
    sweep_group: Sequence[str]
    sweep_alphas: Sequence[float] | None


def rank_pool(
    pool: Pool, *, weights: Sequence[float], **options: Unpack[RankOptions]
) -> RankOutcome:
    """Rank ``pool`` with weights ω and criterion p; optionally sweep α over a group.

    Constraints restrict the selectable models, never the population defining û.
    """
    p = options.get("p", math.inf)
    method = options.get("method", "copa")
    constraints = options.get("constraints", ())
    top = options.get("top", 10)
    sweep_group = options.get("sweep_group", ())
    sweep_alphas = options.get("sweep_alphas")
    y = pool.minimisation()
    # The Pareto flags (a K-D non-dominance pass, the slowest step on big pools) run on the
    # other core while the ranking is computed; moocore releases the GIL.
    with ThreadPoolExecutor(1) as pool_exec:
        pareto_future = pool_exec.submit(copa.pareto_mask, y)
        outcome = _rank_pool(
            pool, y, weights, p, method, constraints, top, sweep_group, sweep_alphas, pareto_future
        )
    return outcome


def _rank_pool(
    pool: Pool,
    y: FloatArray,
    weights: Sequence[float],
    p: float,
    method: copa.Method,
    constraints: Sequence[str],
    top: int,
    sweep_group: Sequence[str],
    sweep_alphas: Sequence[float] | None,
    pareto_future: Future[NDArray[np.bool_]],
) -> RankOutcome:
    phi, warnings = copa.normalise(y, method)
    u = phi if method == "copa" else copa.rank_cdf(y)
    selectable = pool.mask(constraints) if constraints else np.ones(pool.n, dtype=bool)
    if not selectable.any():
        raise InputError.single(
            pool.source,
            "constraints",
            "no model satisfies every constraint.",
            "relax the constraints.",
        )
    s = copa.scores(phi, weights, p)
    order = copa.rank_by(phi, s, selectable)
    shown = order[: max(1, top)]
    sweep = None
    if sweep_alphas is not None:
        group = _group(pool, sweep_group)
        picks = copa.sweep(phi, group, sweep_alphas, p, selectable)
        sweep = tuple(
            (float(a), pool.names[int(i)]) for a, i in zip(sweep_alphas, picks, strict=True)
        )
    pareto = pareto_future.result()
    rows = tuple(_row(pool, u, s, int(i), bool(pareto[i])) for i in shown)
    return RankOutcome(
        n=pool.n,
        selectable=int(selectable.sum()),
        method=method,
        p=p,
        weights=tuple(float(w) for w in weights),
        selected=rows[0],
        ranking=rows,
        pareto_count=int(pareto.sum()),
        explanation=explain(pool, u, int(order[0])),
        sweep=sweep,
        warnings=pool.warnings + warnings,
        scores=s,
        selectable_mask=selectable,
    )


def rank_with_metric(
    pool: Pool,
    scenario: Scenario,
    metric: Sequence[float],
    priors: Sequence[float],
    **options: Unpack[RankOptions],
) -> RankOutcome:
    """Rank ``pool`` with COPA weights mapped from an elicited metric, and by the metric.

    ω comes from :func:`metric_to_omega`; the outcome also carries the metric's own ranking
    ψ of the selectable models and its agreement with COPA's (Kendall τ, same top pick),
    computed from the same scores and selectable set as the COPA ranking.
    """
    if len(metric) != len(scenario.weight_names):
        raise InputError.single(
            scenario.id,
            "metric weights",
            f"needs {len(scenario.weight_names)} weights ({', '.join(scenario.weight_names)}), "
            f"got {len(metric)}.",
            "give one weight per class and attribute, in the scenario's order.",
        )
    coefficients = metric_coefficients(scenario, metric, priors)
    outcome = rank_pool(pool, weights=metric_to_omega(coefficients, pool.values), **options)
    assert outcome.scores is not None and outcome.selectable_mask is not None
    advice = recommend(scenario, pool, metric, priors, selectable=outcome.selectable_mask)
    psi = np.asarray(advice.expected)  # the metric itself: a point estimate has no spread
    rows = np.flatnonzero(outcome.selectable_mask)
    order = rows[np.lexsort((rows, -psi[rows]))]
    tau = agreement(outcome.scores, psi, outcome.selectable_mask)["kendall_tau"]
    linear = LinearRanking(
        metric=dict(zip(scenario.weight_names, (float(w) for w in metric), strict=True)),
        selected=advice.name,
        ranking=tuple((pool.names[int(i)], float(psi[i])) for i in order[: options.get("top", 10)]),
        kendall_tau=float(tau),
        top_match=advice.name == outcome.selected.name,
    )
    return replace(outcome, linear=linear, recommended=advice)


# --------------------------------------------------------------------------------------
# From an elicited linear metric to the pool's columns and ω
# --------------------------------------------------------------------------------------


def metric_objectives(scenario: Scenario) -> tuple[Objective, ...]:
    """The pool columns a scenario's ``[pool] columns`` names, with their directions."""
    if scenario.pool is None:
        raise InputError.single(
            scenario.id,
            "pool",
            "the scenario has no [pool] section.",
            "add [pool] with path, name_column and columns (class or attribute = column).",
        )
    cols = scenario.pool.columns
    missing = [n for n in scenario.weight_names if n not in cols]
    if missing:
        raise InputError.single(
            scenario.id,
            "pool.columns",
            f"no pool column given for {missing}.",
            "map every class and attribute to the pool column that measures it.",
        )
    objs = [Objective(cols[c.name], "max") for c in scenario.classes]
    objs += [
        Objective(cols[a.name], "min" if a.kind == "cost" else "max") for a in scenario.attributes
    ]
    return tuple(objs)


def metric_coefficients(
    scenario: Scenario, weights: Sequence[float], priors: Sequence[float]
) -> tuple[float, ...]:
    """dψ per unit of each pool column: a_i·ζ_i for recall, ∓a_j for a cost/reward."""
    return tuple(float(c) for c in coefficient_matrix(scenario, np.asarray(weights), priors)[0])


def coefficient_matrix(
    scenario: Scenario, weights: FloatArray, priors: Sequence[float]
) -> FloatArray:
    """:func:`metric_coefficients` for many weight vectors at once (one row each)."""
    w = np.atleast_2d(np.asarray(weights, dtype=np.float64))
    k = scenario.n_classes
    signs = np.array([-1.0 if a.kind == "cost" else 1.0 for a in scenario.attributes])
    out: FloatArray = np.hstack((w[:, :k] * np.asarray(priors, dtype=np.float64), w[:, k:] * signs))
    return out


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
    >>> from tradeoff.scenario import load_scenario
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


def linear_values(pool: Pool, coefficients: Sequence[float]) -> FloatArray:
    """ψ of every model (up to a constant): Σ_k c_k·value_k."""
    out: FloatArray = pool.values @ np.asarray(coefficients, dtype=np.float64)
    return out


def agreement(
    copa_scores: FloatArray, psi: FloatArray, selectable: NDArray[np.bool_] | None = None
) -> dict[str, float | bool]:
    """Kendall τ between the COPA order (low score best) and the ψ order (high best)."""
    from scipy.stats import kendalltau

    rows = np.arange(len(psi)) if selectable is None else np.flatnonzero(selectable)
    tau = kendalltau(-copa_scores[rows], psi[rows]).statistic
    return {"kendall_tau": float(tau) if np.isfinite(tau) else 0.0}


# --------------------------------------------------------------------------------------
# The recommendation: the model a person's own metric makes best (a Bayes decision)
# --------------------------------------------------------------------------------------


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

    @property
    def expected_value(self) -> float:
        return self.expected[self.index]

    @property
    def probability(self) -> float | None:
        """P(best) of the recommended model."""
        return None if self.p_best is None else self.p_best[self.index]

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "expected_value": self.expected_value,
            "p_best": self.probability,
            "runner_up": self.runner_up,
            "trade": self.trade,
        }


def metric_values(
    scenario: Scenario, pool: Pool, weights: FloatArray, priors: Sequence[float]
) -> FloatArray:
    """ψ of every model for every weight vector: shape (weight vectors, models).

    ``weights`` holds normalised metric weights in the scenario's order, one row per vector
    (e.g. posterior draws); ψ = Σ_i a_i·ζ_i·recall_i ∓ Σ_j a_j·x_j over the pool's columns.
    """
    out: FloatArray = coefficient_matrix(scenario, weights, priors) @ pool.values.T
    return out


def metric_vectors(scenario: Scenario, pool: Pool, priors: Sequence[float]) -> FloatArray:
    """Every model's statistics in the metric's own terms, one row per model: d_i = ζ_i·recall_i
    for the classes, then each attribute with the sign that makes higher better, so that
    ψ = vectors @ weights for normalised metric weights (:func:`metric_values`, transposed).

    The elicitation engine takes these rows as plain numbers (it never sees a pool) to aim
    its questions at the decision.
    """
    k = scenario.n_classes
    signs = [-1.0 if a.kind == "cost" else 1.0 for a in scenario.attributes]
    scale = np.asarray(list(priors)[:k] + signs, dtype=np.float64)
    out: FloatArray = pool.values * scale
    return out


def recommend(
    scenario: Scenario,
    pool: Pool,
    weights: Sequence[float],
    priors: Sequence[float],
    *,
    draws: FloatArray | None = None,
    selectable: NDArray[np.bool_] | None = None,
) -> Recommendation:
    """The Bayes decision for one person: the selectable model with the highest posterior
    expected value of their own linear metric, with every model's P(best).

    With posterior ``draws`` of the weights, E[ψ] is the mean over the draws and P(best) the
    share of draws in which a model is the best selectable one (ties: the earlier row);
    without, the point estimate ``weights`` decides and P(best) is ``None``.

    Examples
    --------
    >>> from tradeoff.pool import load_pool
    >>> from tradeoff.scenario import load_scenario
    >>> sc = load_scenario("scenarios/breast-cancer-triage.toml").scenario
    >>> pool = load_pool("scenarios/pools/breast-cancer.csv", metric_objectives(sc))
    >>> rec = recommend(sc, pool, [0.5, 0.5, 0.0, 0.0], [0.37, 0.63])
    >>> rec.name == pool.names[int(np.argmax(metric_values(sc, pool, [0.5, 0.5, 0, 0],
    ...                                                     [0.37, 0.63])[0]))]
    True
    """
    rows = np.arange(pool.n) if selectable is None else np.flatnonzero(selectable)
    if rows.size == 0:
        raise InputError.single(pool.source, "constraints", "no model is selectable.", "")
    if draws is not None:
        psi = metric_values(scenario, pool, draws, priors)
        expected = psi.mean(axis=0)
        best = rows[np.argmax(psi[:, rows], axis=1)]
        p_best: tuple[float, ...] | None = tuple(
            float(x) for x in np.bincount(best, minlength=pool.n) / psi.shape[0]
        )
    else:
        expected = metric_values(scenario, pool, np.asarray(weights), priors)[0]
        p_best = None
    order = rows[np.lexsort((rows, -expected[rows]))]
    index = int(order[0])
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
    )
