"""Rank a candidate pool: COPA or a baseline, constraints, Pareto flags, explanations, α
sweeps, and the ranking by an elicited linear metric beside COPA's (:func:`rank_with_metric`).

The numeric work is in :mod:`tradeoff.choose.copa`; this module ties it to a
:class:`~tradeoff.pool.Pool` and produces what the CLI, the app and reports show. The
metric's mapping onto the pool's columns and ω is :mod:`tradeoff.choose.pool_metric`; the
Bayes pick, :mod:`tradeoff.choose.recommend`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any, TypedDict, Unpack

import numpy as np
from numpy.typing import NDArray

from tradeoff.arrays import FloatArray
from tradeoff.ask.scenario import Scenario
from tradeoff.choose import copa
from tradeoff.choose.copa import top_percent
from tradeoff.choose.pool_metric import (
    agreement,
    check_metric,
    metric_coefficients,
    metric_vectors,
    omega_for_metric,
)
from tradeoff.choose.recommend import Recommendation, recommend
from tradeoff.errors import InputError
from tradeoff.pareto import pareto_mask
from tradeoff.pool import Pool
from tradeoff.stable import stable_order


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
    #: The selected model explained, one clause per objective (:func:`explain`).
    clauses: tuple[str, ...]
    sweep: tuple[tuple[float, str], ...] | None = None
    #: One row per model the sweep picks (paper 000 Table 2), in order of first α.
    sweep_picks: tuple[SweepPick, ...] = ()
    warnings: tuple[str, ...] = ()
    linear: LinearRanking | None = None
    recommended: Recommendation | None = None
    scores: FloatArray | None = field(default=None, repr=False, compare=False)
    selectable_mask: NDArray[np.bool_] | None = field(default=None, repr=False, compare=False)

    @property
    def explanation(self) -> str:
        """The selected model explained in one line: "name: top-9% on …; top-8% on …"."""
        return f"{self.selected.name}: " + "; ".join(self.clauses)

    def to_dict(self) -> dict[str, Any]:
        ties = copa.tied([r.score for r in self.ranking])  # a place set by the tie-break
        data: dict[str, Any] = {
            "n": self.n,
            "selectable": self.selectable,
            "method": self.method,
            "p": "inf" if math.isinf(self.p) else self.p,
            "weights": list(self.weights),
            "lower_is_better": True,  # the score: the best model has the lowest
            "selected": self.selected.to_dict(),
            "ranking": [r.to_dict() | {"tied": t} for r, t in zip(self.ranking, ties, strict=True)],
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


def sweep_picks(
    pool: Pool,
    ranks: copa.Ranks,
    group: Sequence[int],
    alphas: Sequence[float],
    picks: Sequence[int] | NDArray[np.intp],
    p: float,
) -> tuple[SweepPick, ...]:
    """Table 2 of paper 000 for a sweep: each picked model's α range and CDF summaries.

    ``picks`` holds the row picked at each of ``alphas``; models appear in the order they
    are first picked. The summaries are :func:`tradeoff.choose.copa.summary_cdf` of û
    (``ranks``), counted for the picked models only.
    """
    rest = [k for k in range(ranks.k) if k not in set(group)]
    ranges: dict[int, list[float]] = {}
    for a, row in zip(alphas, picks, strict=True):
        ranges.setdefault(int(row), []).append(float(a))
    rows = np.fromiter(ranges, dtype=np.intp, count=len(ranges))
    ug = copa.summary_cdf(ranks, group, p, rows)
    ur = copa.summary_cdf(ranks, rest, p, rows) if rest else np.zeros(len(rows))
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


def explain(pool: Pool, ranks: copa.Ranks, index: int) -> tuple[str, ...]:
    """Explain a model in the population's terms, one clause per objective.

    E.g. "top-9% on MMLU-PRO (33.7; best 73.0, median 25.1)", "top-8% on CO₂ cost (kg)
    (0.47; best 0.08, median 1.9)" (:attr:`RankOutcome.explanation` joins them). û and the
    medians come from ``ranks`` (the sorted columns of the minimised values; a maximised
    column's are its values negated). Each
    objective is named as people read it (:attr:`~tradeoff.pool.Objective.shown`: a
    scenario's aspect and unit for options described by their aspects).
    """
    u = ranks.of(np.array([index]))[0]
    n = ranks.n
    parts = []
    for k, obj in enumerate(pool.objectives):
        col = pool.values[:, k]
        best = col.max() if obj.direction == "max" else col.min()
        ordered = ranks.sorted[k]  # as np.median: the middle value, or the middle two's mean
        median = ordered[n // 2] if n % 2 else (ordered[n // 2 - 1] + ordered[n // 2]) / 2
        if obj.direction == "max":
            median = -median
        parts.append(
            f"top-{top_percent(u[k])}% on {obj.shown} "
            f"({pool.values[index, k]:.4g}; best {best:.4g}, median {median:.4g})"
        )
    return tuple(parts)


def _row(pool: Pool, u: FloatArray, score: float, i: int, pareto: bool) -> ModelRow:
    """Model ``i`` as reported, given its û (``u``, one value per objective) and score."""
    cols = pool.columns
    return ModelRow(
        index=int(i),
        name=pool.names[i],
        score=float(score),
        u={c: float(u[k]) for k, c in enumerate(cols)},
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
    tradeoff.errors.InputError: p.csv: alpha: needs the objectives α weighs (one or more). Fix: ...
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
            "needs the objectives α weighs (one or more).",
            "name one or more objectives for α to weigh (the alpha objectives).",
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
                "is empty, but an α sweep needs the objectives α weighs (one or more).",
                "name one or more objectives for α to weigh (the alpha objectives).",
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
    pool: Pool,
    weights: Sequence[float],
    settings: _Settings,
    selectable: NDArray[np.bool_],
    *,
    all_scores: bool = False,
) -> RankOutcome:
    """The ranking; with ``all_scores``, the outcome carries every model's score."""
    y = pool.minimisation()
    # The Pareto flags (a K-D non-dominance pass, the slowest step on big pools) run on the
    # other core while the ranking is computed; moocore releases the GIL.
    with ThreadPoolExecutor(1) as pool_exec:
        pareto_future = pool_exec.submit(pareto_mask, y)
        outcome = _rank_pool(pool, y, weights, settings, selectable, pareto_future, all_scores)
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
    all_scores: bool,
) -> RankOutcome:
    """COPA ranks from ``pool.ranks``: û only of the models that can reach the head or win
    the sweep (the same order and picks as ranking every model), unless ``all_scores``; the
    baselines score every model on their own normalisation."""
    p, method = settings.p, settings.method
    ranks = pool.ranks
    warnings: tuple[str, ...] = ()
    s: FloatArray | None = None
    phi: FloatArray | None = None
    if method == "copa" and not all_scores:
        order, shown_scores = copa.head(ranks, weights, p, selectable, settings.top)
    else:
        reference = None if settings.reference is None else y[settings.reference]
        phi, warnings = (
            (ranks.all(), ())
            if method == "copa"
            else copa.normalise(y, method, pool.maximise, reference)
        )
        s = copa.scores(phi, weights, p)
        order = copa.rank_by(phi, s, selectable, limit=settings.top)
        shown_scores = s[order]
    sweep = None
    table: tuple[SweepPick, ...] = ()
    if settings.sweep_alphas is not None:
        group = _group(pool, settings.sweep_group)
        alphas = settings.sweep_alphas
        if method == "copa":
            picks = copa.sweep_ranks(ranks, group, alphas, p, selectable)
        else:
            assert phi is not None
            picks = copa.sweep(phi, group, alphas, p, selectable)
        sweep = tuple((float(a), pool.names[int(i)]) for a, i in zip(alphas, picks, strict=True))
        table = sweep_picks(pool, ranks, group, alphas, picks, p)
    pareto = pareto_future.result()
    shown_u = ranks.of(order)
    rows = tuple(
        _row(pool, shown_u[j], float(shown_scores[j]), int(i), bool(pareto[i]))
        for j, i in enumerate(order)
    )
    return RankOutcome(
        n=pool.n,
        selectable=int(selectable.sum()),
        method=method,
        p=p,
        weights=tuple(float(w) for w in weights),
        selected=rows[0],
        ranking=rows,
        pareto_count=int(pareto.sum()),
        clauses=explain(pool, ranks, int(order[0])),
        sweep=sweep,
        sweep_picks=table,
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
    outcome = _rank(pool, omega, settings, selectable, all_scores=True)
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
