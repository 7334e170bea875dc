"""Rank a candidate pool: COPA or a baseline, constraints, Pareto flags, explanations, and the
mapping from an elicited linear metric onto the pool's columns and COPA's ω.

The numeric work is in :mod:`tradeoff.pool.copa`; this module ties it to a
:class:`~tradeoff.pool.Pool` and produces what the CLI, the app and reports show.

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
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any, TypedDict, Unpack

import numpy as np
from numpy.typing import NDArray

from tradeoff.ask.presentation import difference_words
from tradeoff.ask.scenario import Scenario
from tradeoff.errors import InputError
from tradeoff.pool import Objective, Pool, copa
from tradeoff.pool.meaning import attribute_meaning
from tradeoff.stable import stable_argmax, stable_argmax_rows, stable_order

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
    #: One row per model the sweep picks (paper 000 Table 2), in order of first α.
    sweep_picks: tuple[SweepPick, ...] = ()
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
            data["sweep_picks"] = [s.to_dict() for s in self.sweep_picks]
        if self.linear is not None:
            data.update(self.linear.to_dict())
            data["agreement"]["top1"] = self.linear.top_match
        if self.recommended is not None:
            data["recommended"] = self.recommended.to_dict()
        return data


@dataclass(frozen=True)
class SweepPick:
    """A model an α sweep picks, as in paper 000 Table 2.

    ``alpha_min``/``alpha_max``: the α values that pick it; ``u_group``: the share of the
    population better on the objective(s) α weighs (for several, the CDF of their equally
    weighted p-norm of û); ``u_rest``: the same summary of the other objectives (Table 2's
    "Perf. (p = ∞)" column; the paper's two CDF headers are swapped: its "Perf." column
    holds the CO₂ value and vice versa, e.g. the α = 0.01 pick, the best performer, reads
    Perf. 0.95, CO₂ 0.00).
    """

    name: str
    alpha_min: float
    alpha_max: float
    u_group: float
    u_rest: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "alpha_min": self.alpha_min,
            "alpha_max": self.alpha_max,
            "u_group": self.u_group,
            "u_rest": self.u_rest,
        }


def _summary_cdf(
    u: FloatArray, columns: Sequence[int], p: float, rows: NDArray[np.intp]
) -> FloatArray:
    """For the models ``rows``: the rank CDF, over the whole population, of the equally
    weighted p-norm of û over ``columns`` (the share of models with a strictly smaller
    summary). Counted for those rows only, not ranked for every model."""
    sub = u[:, list(columns)]
    if sub.shape[1] == 1:
        return np.asarray(sub[rows, 0], dtype=np.float64)
    s = copa.scores(sub, np.full(sub.shape[1], 1.0 / sub.shape[1]), p)
    return np.array([np.count_nonzero(s < s[r]) / len(s) for r in rows], dtype=np.float64)


def sweep_picks(
    pool: Pool,
    u: FloatArray,
    group: Sequence[int],
    alphas: Sequence[float],
    picks: Sequence[int] | NDArray[np.intp],
    p: float,
) -> tuple[SweepPick, ...]:
    """Table 2 of paper 000 for a sweep: each picked model's α range and CDF summaries.

    ``picks`` holds the row picked at each of ``alphas``; models appear in the order they
    are first picked.
    """
    rest = [k for k in range(u.shape[1]) if k not in set(group)]
    ranges: dict[int, list[float]] = {}
    for a, row in zip(alphas, picks, strict=True):
        ranges.setdefault(int(row), []).append(float(a))
    rows = np.fromiter(ranges, dtype=np.intp, count=len(ranges))
    ug = _summary_cdf(u, group, p, rows)
    ur = _summary_cdf(u, rest, p, rows) if rest else np.zeros(len(rows))
    return tuple(
        SweepPick(pool.names[row], min(a), max(a), float(ug[j]), float(ur[j]))
        for j, (row, a) in enumerate(ranges.items())
    )


@dataclass(frozen=True)
class LinearRanking:
    """The pool ranked by an elicited linear metric ψ, beside COPA's ranking of it."""

    metric: dict[str, float]
    selected: str
    ranking: tuple[tuple[str, float], ...]
    kendall_tau: float
    top_match: bool
    #: Which of ``OMEGA_MAPPINGS`` gave COPA's ω (:func:`omega_for_metric`).
    omega_mapping: str = "swing"

    def to_dict(self) -> dict[str, Any]:
        return {
            "linear": {
                "selected": self.selected,
                "ranking": [{"name": n, "psi": v} for n, v in self.ranking],
            },
            "agreement": {
                "kendall_tau": self.kendall_tau,
                "top_match": self.top_match,
                "omega_mapping": self.omega_mapping,
            },
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
    """ω from named weights (unlisted objectives 0) or from α over a group (default: all equal).

    Every value is checked here, once: each weight names an objective and is finite and
    ≥ 0, not all are zero; α lies in [0, 1] and comes with the objectives it weighs. The
    errors name these parameters (``weight 'acc'``, ``alpha``, ``alpha objective``).

    Examples
    --------
    >>> import pandas as pd
    >>> from tradeoff.pool import Objective, Pool
    >>> objectives = (Objective("acc", "max"), Objective("ms", "min"))
    >>> pool = Pool("p.csv", ("a", "b"), objectives, np.eye(2), pd.DataFrame(), np.arange(2))
    >>> weights_from_options(pool, {"acc": 3.0, "ms": 1.0})
    (0.75, 0.25)
    >>> weights_from_options(pool, alpha=0.3)
    Traceback (most recent call last):
    ...
    tradeoff.errors.InputError: p.csv: alpha: needs the objective(s) α weighs. Fix: ...
    """
    cols = pool.columns
    k = len(cols)
    if weights and alpha_objectives:
        raise InputError.single(
            pool.source,
            "weights and an alpha objective",
            "cannot be combined.",
            "use one way to set the weights.",
        )
    if weights:
        for c, value in weights.items():
            if c not in cols:
                raise InputError.single(
                    pool.source,
                    f"weight {c!r}",
                    "is not one of the objectives.",
                    f"use one of: {', '.join(cols)}.",
                )
            if not (math.isfinite(value) and value >= 0):
                raise InputError.single(
                    pool.source,
                    f"weight {c!r}",
                    f"must be a finite number ≥ 0, got {value}.",
                    "give each objective a weight ≥ 0.",
                )
        w = np.array([weights.get(c, 0.0) for c in cols])
        if w.sum() <= 0:
            raise InputError.single(
                pool.source,
                "weights",
                "are all zero.",
                "give at least one objective a weight above 0.",
            )
        return tuple(float(x) for x in w / w.sum())
    if alpha is not None and not alpha_objectives:
        raise InputError.single(
            pool.source,
            "alpha",
            "needs the objective(s) α weighs.",
            "name the objective(s) α weighs (the alpha objective(s)).",
        )
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
    ``constraints`` on raw values (conditions of :mod:`tradeoff.pool.expr`), ``top`` models to
    report (default 10), an optional α sweep: ``sweep_alphas`` over the objectives
    ``sweep_group``, and the ``reference`` model that ``ideal``, ``delta`` and ``norm``
    measure every model against (default: the ideal point)."""

    p: float
    method: copa.Method
    constraints: Sequence[str]
    top: int
    sweep_group: Sequence[str]
    sweep_alphas: Sequence[float] | None
    reference: str | None


@dataclass(frozen=True)
class _Settings:
    """:class:`RankOptions` checked once, with their defaults filled in."""

    p: float
    method: copa.Method
    constraints: tuple[str, ...]
    top: int
    sweep_group: tuple[str, ...]
    sweep_alphas: tuple[float, ...] | None
    reference: int | None


def check_p(p: float, source: str) -> float:
    """The criterion p of a p-norm, checked: a number ≥ 1, or ∞ (an InputError naming ``p``).

    >>> check_p(math.inf, "options")
    inf
    >>> check_p(0.5, "options")
    Traceback (most recent call last):
    ...
    tradeoff.errors.InputError: options: p: must be at least 1 (or inf), got 0.5. Fix: ...
    """
    if not p >= 1:  # also refuses nan
        raise InputError.single(
            source,
            "p",
            f"must be at least 1 (or inf), got {p:g}.",
            "use criterion p = 1 for a weighted sum or criterion p = inf for the worst objective.",
        )
    return float(p)


def check_top(top: int, source: str) -> int:
    """How many ranked models to report, checked: at least 1 (an InputError naming ``top``)."""
    if top < 1:
        raise InputError.single(
            source, "top", f"must be at least 1, got {top}.", "report at least one model."
        )
    return int(top)


def _settings(pool: Pool, options: RankOptions) -> _Settings:
    """Every ranking option checked, once, where it enters the core; errors name the
    option (``p``, ``top``, ``sweep_group``, …), which each face maps to its own words."""
    p = check_p(options.get("p", math.inf), pool.source)
    top = check_top(options.get("top", 10), pool.source)
    method = options.get("method", "copa")
    alphas = options.get("sweep_alphas")
    group = tuple(options.get("sweep_group", ()))
    if alphas is not None:
        if not group:
            raise InputError.single(
                pool.source,
                "sweep_group",
                "is empty, but an α sweep needs the objective(s) α weighs.",
                "name the objective(s) α weighs (the alpha objective(s)).",
            )
        bad = [a for a in alphas if not 0 <= a <= 1]
        if bad:
            raise InputError.single(
                pool.source, "sweep_alphas", f"must lie in [0, 1], got {bad[0]}.", "use 0 ≤ α ≤ 1."
            )
    return _Settings(
        p=p,
        method=method,
        constraints=tuple(options.get("constraints", ())),
        top=top,
        sweep_group=group,
        sweep_alphas=None if alphas is None else tuple(float(a) for a in alphas),
        reference=_reference_row(pool, options.get("reference"), method, p),
    )


def _selectable(pool: Pool, constraints: Sequence[str]) -> NDArray[np.bool_]:
    """The models meeting every constraint (each condition parsed once, here)."""
    selectable = pool.mask(constraints) if constraints else np.ones(pool.n, dtype=bool)
    if not selectable.any():
        raise InputError.single(
            pool.source,
            "constraints",
            "no model satisfies every constraint.",
            "relax the constraints.",
        )
    return selectable


def rank_pool(
    pool: Pool, *, weights: Sequence[float], **options: Unpack[RankOptions]
) -> RankOutcome:
    """Rank ``pool`` with weights ω and criterion p; optionally sweep α over a group.

    Constraints restrict the selectable models, never the population defining û.
    """
    settings = _settings(pool, options)
    return _rank(pool, weights, settings, _selectable(pool, settings.constraints))


def _rank(
    pool: Pool, weights: Sequence[float], settings: _Settings, selectable: NDArray[np.bool_]
) -> RankOutcome:
    y = pool.minimisation()
    # The Pareto flags (a K-D non-dominance pass, the slowest step on big pools) run on the
    # other core while the ranking is computed; moocore releases the GIL.
    with ThreadPoolExecutor(1) as pool_exec:
        pareto_future = pool_exec.submit(copa.pareto_mask, y)
        outcome = _rank_pool(pool, y, weights, settings, selectable, pareto_future)
    return outcome


def _reference_row(pool: Pool, name: str | None, method: str, p: float) -> int | None:
    """The row of the ``reference`` model, checked against the method and p."""
    if name is None:
        return None
    if method not in ("ideal", "delta", "norm"):
        raise InputError.single(
            pool.source,
            "reference",
            f"method {method!r} does not measure models against a reference.",
            "use method ideal, delta or norm with a reference model.",
        )
    if not (p == 1 or math.isinf(p)):
        raise InputError.single(
            pool.source,
            "reference",
            f"models better than the reference get negative values, and a p-norm with "
            f"p = {p:g} of those does not rank them.",
            "use criterion p = 1 (a weighted sum, the multi-task average Δ) or criterion p = inf.",
        )
    if name not in pool.names:
        close = [n for n in pool.names if name.lower() in n.lower()][:5]
        raise InputError.single(
            pool.source,
            "reference",
            f"no model is named {name!r}.",
            f"give a name from the name column{'; close: ' + ', '.join(close) if close else ''}.",
        )
    return pool.names.index(name)


def _rank_pool(
    pool: Pool,
    y: FloatArray,
    weights: Sequence[float],
    settings: _Settings,
    selectable: NDArray[np.bool_],
    pareto_future: Future[NDArray[np.bool_]],
) -> RankOutcome:
    p, method = settings.p, settings.method
    u = pool.rank_cdf
    reference = None if settings.reference is None else y[settings.reference]
    phi, warnings = (
        (u, ()) if method == "copa" else copa.normalise(y, method, pool.maximise, reference)
    )
    s = copa.scores(phi, weights, p)
    order = copa.rank_by(phi, s, selectable, limit=settings.top)
    shown = order
    sweep = None
    table: tuple[SweepPick, ...] = ()
    if settings.sweep_alphas is not None:
        group = _group(pool, settings.sweep_group)
        picks = copa.sweep(phi, group, settings.sweep_alphas, p, selectable)
        sweep = tuple(
            (float(a), pool.names[int(i)])
            for a, i in zip(settings.sweep_alphas, picks, strict=True)
        )
        table = sweep_picks(pool, u, group, settings.sweep_alphas, picks, p)
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
        sweep_picks=table,
        warnings=pool.warnings + warnings,
        scores=s,
        selectable_mask=selectable,
    )


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


def rank_with_metric(
    pool: Pool,
    scenario: Scenario,
    metric: Sequence[float],
    priors: Sequence[float],
    **options: Unpack[RankOptions],
) -> RankOutcome:
    """Rank ``pool`` with COPA weights mapped from an elicited metric, and by the metric.

    ω comes from :func:`omega_for_metric`; the outcome also carries the metric's own ranking
    ψ of the selectable models and its agreement with COPA's (Kendall τ, same top pick),
    computed from the same scores and selectable set as the COPA ranking. The options are
    checked, the constraints parsed and ψ computed once each.
    """
    metric = check_metric(scenario, metric)
    settings = _settings(pool, options)
    selectable = _selectable(pool, settings.constraints)
    vectors = metric_vectors(scenario, pool, priors)
    psi = vectors @ np.asarray(metric)  # the metric itself: a point estimate has no spread
    coefficients = metric_coefficients(scenario, metric, priors)
    omega, mapping = omega_for_metric(pool, coefficients, settings.p, selectable, psi=psi)
    outcome = _rank(pool, omega, settings, selectable)
    assert outcome.scores is not None
    advice = recommend(scenario, pool, metric, priors, selectable=selectable, vectors=vectors)
    rows = np.flatnonzero(selectable)
    order = rows[stable_order(-psi[rows])]  # ties (to 9 digits): the earlier row
    tau = agreement(outcome.scores, psi, selectable)["kendall_tau"]
    linear = LinearRanking(
        metric=dict(zip(scenario.weight_names, metric, strict=True)),
        selected=advice.name,
        ranking=tuple((pool.names[int(i)], float(psi[i])) for i in order[: settings.top]),
        kendall_tau=float(tau),
        top_match=advice.name == outcome.selected.name,
        omega_mapping=mapping,
    )
    return replace(outcome, linear=linear, recommended=advice)


# --------------------------------------------------------------------------------------
# From an elicited linear metric to the pool's columns and ω
# --------------------------------------------------------------------------------------


def metric_objectives(scenario: Scenario) -> tuple[Objective, ...]:
    """The pool columns a scenario's ``[pool] columns`` names, with their directions and
    meanings (a class's recall in [0, 1], a cost or reward as its range allows,
    :func:`tradeoff.pool.meaning.attribute_meaning`), which :func:`tradeoff.pool.load_pool`
    checks every row against."""
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
    objs = [Objective(cols[c.name], "max", attribute_meaning(c)) for c in scenario.classes]
    objs += [
        Objective(cols[a.name], "min" if a.kind == "cost" else "max", attribute_meaning(a))
        for a in scenario.attributes
    ]
    return tuple(objs)


def _metric_scale(scenario: Scenario, priors: Sequence[float]) -> FloatArray:
    """dψ per unit of each pool column for a unit weight: ζ_i for a class's recall column,
    −1 for a cost and +1 for a reward (the one place the metric's units are defined)."""
    k = scenario.n_classes
    signs = [-1.0 if a.kind == "cost" else 1.0 for a in scenario.attributes]
    return np.asarray(list(priors)[:k] + signs, dtype=np.float64)


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
) -> tuple[tuple[float, ...], str]:
    """COPA's ω for a linear metric on ``pool``, chosen by measurement, and its mapping's name.

    Rank CDFs keep each column's order but drop its magnitudes, so no ω makes a weighted
    p-norm over û reproduce a linear metric ψ over natural units in general. Of three
    mappings (``OMEGA_MAPPINGS``) this takes the one whose COPA ranking at ``p`` agrees best
    with ψ over the pool: first, COPA's pick must be a best model under ψ; then the higher
    Kendall τ between the two orders (ties: the earlier mapping). ``psi`` (one value per
    model, e.g. the posterior expected metric of :func:`recommend`) replaces ψ = values·c
    when given, so that COPA agrees with the recommendation itself; ``mappings`` restricts
    the choice (benchmarks/omega.py measures each mapping alone).

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
    u = pool.rank_cdf
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
        data: dict[str, Any] = {
            "name": self.name,
            "expected_value": self.expected_value,
            "p_best": self.probability,
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
    selectable: NDArray[np.bool_] | None = None,
    vectors: FloatArray | None = None,
) -> Recommendation:
    """The Bayes decision for one person: the selectable model with the highest posterior
    expected value of their own linear metric, with every model's P(best).

    With posterior ``draws`` of the weights, E[ψ] is the mean over the draws and P(best) the
    share of draws in which a model is the best selectable one (ties: the earlier row);
    without, the point estimate ``weights`` decides and P(best) is ``None``. ``vectors``
    are the pool's :func:`metric_vectors` under ``priors`` when the caller has them
    already (they are computed here otherwise).

    Examples
    --------
    >>> from tradeoff.pool import load_pool
    >>> from tradeoff.ask.scenario import load_scenario
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
    if draws is not None:
        psi = np.asarray(draws, dtype=np.float64) @ vectors.T  # (draws, models)
        expected = psi.mean(axis=0)
        best = rows[stable_argmax_rows(psi[:, rows])]  # ties: the earlier row, everywhere
        p_best: tuple[float, ...] | None = tuple(
            float(x) for x in np.bincount(best, minlength=pool.n) / psi.shape[0]
        )
    else:
        expected = vectors @ np.asarray(weights, dtype=np.float64)
        p_best = None
    order = rows[stable_order(-expected[rows])]  # ties (to 9 digits): the earlier row
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
