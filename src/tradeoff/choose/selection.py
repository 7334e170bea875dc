"""Several stakeholders' sessions turned into picks, a regret matrix and a consensus.

:func:`select_for_stakeholders` takes replayed stakeholders (:class:`Stakeholder`) and a
pool; reading and replaying the session files, and finding the pool, is the decide step's
(:mod:`tradeoff.choose.decide`). This module never imports :mod:`tradeoff.record`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from tradeoff.arrays import FloatArray
from tradeoff.ask.scenario import Scenario
from tradeoff.choose.candidates import (
    scenario_pool as scenario_pool,  # the app imports it from here
)
from tradeoff.choose.change_words import change_dict
from tradeoff.choose.pool_metric import metric_coefficients, metric_vectors, omega_for_metric
from tradeoff.choose.range_words import outside_range_words
from tradeoff.choose.rank import RankOutcome, rank_pool
from tradeoff.choose.recommend import (
    Recommendation,
    measured_vectors,
    measurement_record,
    noise_draws,
    recommend,
)
from tradeoff.choose.robustness import (
    WeightChange,
    aspect_words,
    consensus_acceptability,
    consensus_changes,
    rank_acceptability,
    weight_changes,
)
from tradeoff.choose.stakeholder import Stakeholder
from tradeoff.pool import Pool
from tradeoff.stable import probability, rounded_rows


def _acceptability(
    s: Stakeholder, vectors: FloatArray, measured: FloatArray | None = None
) -> FloatArray | None:
    """P(rank = 1, 2, 3) of every model for one stakeholder, over the posterior as their
    questions' stop read it (``None`` for a point estimate), and over the pool's
    plausible measurements when it carries them (``measured``)."""
    if s.posterior is not None:
        return rank_acceptability(
            s.posterior[0], vectors, draw_weights=s.posterior[1], measured=measured
        )
    return None if s.draws is None else rank_acceptability(s.draws, vectors, measured=measured)


@dataclass(frozen=True)
class Selection:
    """Everything ``tradeoff select`` reports."""

    stakeholders: list[Stakeholder]
    recommendations: list[Recommendation]
    picks: list[RankOutcome]
    linear_picks: list[str]
    regret: list[list[float]]
    consensus_name: str
    consensus_rule: str
    consensus_max_regret: float
    average_pick: RankOutcome
    pool: Pool = field(repr=False)
    scenario: Scenario | None = field(default=None, repr=False)
    #: Per stakeholder: P(rank = 1, 2, 3) of every model over their posterior draws
    #: (models × 3; ``None`` for a point estimate), and for each weight the smallest change
    #: that makes another model their recommendation (:mod:`tradeoff.choose.robustness`).
    acceptability: list[FloatArray | None] = field(default_factory=list, repr=False)
    changes: list[tuple[WeightChange, ...]] = field(default_factory=list, repr=False)
    #: The same for the consensus (several stakeholders; acceptability when all have draws).
    consensus_acceptability: FloatArray | None = field(default=None, repr=False)
    consensus_changes: tuple[WeightChange, ...] = ()
    #: The participants left out of the consensus (their answers flagged as inconsistent).
    excluded: tuple[str, ...] = ()

    def top_acceptability(self, table: FloatArray | None, limit: int = 5) -> list[dict[str, Any]]:
        """The models most often first (then second, third) in ``table``, as JSON rows."""
        if table is None:
            return []
        order = np.lexsort(
            (np.arange(len(table)), *(-table[:, r] for r in reversed(range(table.shape[1]))))
        )
        return [
            {
                "name": self.pool.names[m],
                **{f"p_rank_{r + 1}": float(table[m, r]) for r in range(table.shape[1])},
            }
            for m in order[:limit]
            if table[m].any()
        ]

    def outside_ranges(self, rec: Recommendation) -> str:
        """:func:`~tradeoff.choose.range_words.outside_range_words` of a recommendation's
        pick ("" without a scenario, or when the pick lies inside the questions' ranges):
        what ``pick``, its JSON, the report and the app's pick screen say of it."""
        if self.scenario is None:
            return ""
        return outside_range_words(self.scenario, self.pool.values[rec.index], rec.name)

    def rows(self) -> list[tuple[Stakeholder, Recommendation, RankOutcome, str]]:
        """Per stakeholder: who, the recommendation, COPA's pick, the point estimate's pick."""
        return list(
            zip(
                self.stakeholders,
                self.recommendations,
                self.picks,
                self.linear_picks,
                strict=True,
            )
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "stakeholders": [
                {
                    "participant": s.participant,
                    "session": s.path,
                    "weights": dict(zip(s.names, s.weights, strict=True)),
                    "intervals": None if s.intervals is None else [list(iv) for iv in s.intervals],
                    "answers": s.answers,
                    "warnings": list(s.warnings),
                    "consistency": None if s.consistency is None else s.consistency.to_dict(),
                    "recommended": rec.name,
                    "p_best": probability(rec.probability),
                    "expected_value": rec.expected_value,
                    "runner_up": rec.runner_up,
                    "trade": rec.trade,
                    "outside_ranges_sentence": self.outside_ranges(rec),
                    "selected": pick.selected.name,
                    "linear_selected": lin,
                    "omega": list(pick.weights),
                    "explanation": pick.explanation,
                    "rank_acceptability": self.top_acceptability(table, self.pool.n),
                    "what_would_change_the_pick": [
                        change_dict(c, self.pool.names) for c in changes
                    ],
                }
                for (s, rec, pick, lin), table, changes in zip(
                    self.rows(),
                    self.acceptability or [None] * len(self.stakeholders),
                    self.changes or [()] * len(self.stakeholders),
                    strict=True,
                )
            ],
            "regret": self.regret,
            "regret_rows": "stakeholder whose metric is used",
            "regret_columns": "stakeholder whose pick is used",
            "consensus": {
                "rule": self.consensus_rule,
                "name": self.consensus_name,
                "max_regret": self.consensus_max_regret,
                "average_omega_pick": self.average_pick.selected.name,
                "rank_acceptability": self.top_acceptability(
                    self.consensus_acceptability, self.pool.n
                ),
                "excluded": list(self.excluded),
                "what_would_change_it": [
                    change_dict(c, self.pool.names) for c in self.consensus_changes
                ],
            },
            "ranking": [r.to_dict() for r in self.average_pick.ranking],
        }


def _relative_regret(psi: FloatArray, index: int, own: int) -> float:
    """What model ``index`` costs a person against their own recommendation ``own``, in
    their expected metric ``psi`` (over the pool), as a share of its spread over the pool:
    0 when it gives them at least as much. With a measurement noise their recommendation
    is the likeliest best, which need not have the highest expected ψ; a model of higher
    expected ψ costs them nothing, and their own recommendation costs 0 (the diagonal).

    >>> psi = np.array([0.2, 0.5, 0.4])  # model 2 recommended, model 1 of higher E[ψ]
    >>> round(_relative_regret(psi, 0, 2), 6), _relative_regret(psi, 1, 2)
    (0.666667, 0.0)
    """
    spread = float(psi.max() - psi.min())
    return float(max(psi[own] - psi[index], 0.0) / spread) if spread > 0 else 0.0


@dataclass(frozen=True)
class EachRecommended:
    """Every stakeholder's :func:`recommend` (:func:`recommend_each`), with what it was
    computed from: ψ's rows per set of priors and each stakeholder's plausible metric rows
    (``None``: the pool's numbers are exact, or a point estimate)."""

    recommendations: list[Recommendation]
    measured: list[FloatArray | None]
    vectors: dict[tuple[float, ...], FloatArray]


def recorded_tables(
    person: Stakeholder, scenario: Scenario, pool: Pool, vectors: FloatArray, draws: int
) -> FloatArray | None:
    """The plausible tables ``person``'s session header says its stop counted over, when
    ``pool`` is the pool it measured (the same models' numbers, cases, standard errors and
    bounds as :func:`~tradeoff.choose.recommend.measurement_record` writes them for this
    pool, ``vectors`` its rows under the person's priors) and ``draws`` weight draws meet
    the same number of tables; ``None`` otherwise (a recommendation then draws them as this
    version does, :func:`~tradeoff.choose.recommend.measured_vectors`). So a session
    recorded before the tables were drawn another way states its stop's P(best) wherever
    it is read.

    Compared as the header writes them (JSON), not as numbers: these are the numbers read
    from the pool's file, the same on every machine."""
    recorded = person.measurement
    if recorded is None or recorded.tables != noise_draws(draws):
        return None
    now = measurement_record(scenario, pool, person.priors, vectors)
    if now is None:
        return None
    fields = ("values", "cases", "se", "low", "high")
    if json.dumps([getattr(recorded, f) for f in fields]) != json.dumps(
        [getattr(now, f) for f in fields]
    ):
        return None
    return recorded.array()


def recommend_each(
    scenario: Scenario, stakeholders: Sequence[Stakeholder], pool: Pool
) -> EachRecommended:
    """Each stakeholder's Bayes decision over the posterior their questions stopped on,
    ψ's rows computed once per set of priors and the pool's plausible measurements once per
    priors and number of draws (the same tables for everyone alike); what
    :func:`select_for_stakeholders` and a study's export (without a consensus) both use."""
    recs: list[Recommendation] = []
    measured: list[FloatArray | None] = []
    plausible: dict[tuple[tuple[float, ...], int], FloatArray | None] = {}
    vectors: dict[tuple[float, ...], FloatArray] = {}
    for s in stakeholders:
        if s.priors not in vectors:
            vectors[s.priors] = metric_vectors(scenario, pool, s.priors)
        draws, draw_weights = s.posterior if s.posterior is not None else (s.draws, None)
        noisy = None
        if draws is not None:
            noisy = recorded_tables(s, scenario, pool, vectors[s.priors], len(draws))
        if draws is not None and noisy is None:
            key = (s.priors, len(draws))
            if key not in plausible:
                plausible[key] = measured_vectors(scenario, pool, s.priors, len(draws))
            noisy = plausible[key]
        measured.append(noisy)
        recs.append(
            recommend(
                scenario,
                pool,
                s.weights,
                s.priors,
                draws=draws,
                draw_weights=draw_weights,
                vectors=vectors[s.priors],
                measured=noisy,
                likeliest=s.likeliest,
            )
        )
    return EachRecommended(recs, measured, vectors)


def select_for_stakeholders(
    scenario: Scenario,
    stakeholders: Sequence[Stakeholder],
    pool: Pool,
    *,
    p: float = math.inf,
    top: int = 10,
    exclude_inconsistent: bool = False,
    u: FloatArray | None = None,
) -> Selection:
    """Each stakeholder's recommendation and COPA pick, the regret matrix and a consensus.

    With ``exclude_inconsistent`` the consensus leaves out the stakeholders whose answers
    are flagged (:class:`~tradeoff.learn.Consistency`), unless every one is.

    A stakeholder's recommendation is the Bayes decision of :func:`recommend` (their own
    metric, expected over their posterior; with a measurement noise, over plausible
    measurements too: :attr:`~tradeoff.choose.recommend.Recommendation.values`, so a model
    that measured best by luck on few cases is not everyone's best). regret[i][j] is what
    stakeholder j's recommendation costs stakeholder i in i's own expected metric against
    i's own recommendation: max(E ψ_i(recommendation of i) − E ψ_i(recommendation of j), 0)
    / (max E ψ_i − min E ψ_i) over the pool, so the diagonal is 0 (with a measurement noise
    the recommendation is the likeliest best, which need not have the highest E ψ). The
    consensus minimises the largest regret over all stakeholders among all models of the
    pool (ties: the smaller sum of regrets, then the model recommended to more of them, then
    row order), so one stakeholder's consensus is their recommendation. COPA's
    picks (ω chosen by :func:`~tradeoff.choose.pool_metric.omega_for_metric`) and the pick from the
    averaged ω are the practitioner's view, reported beside them. Every ω is measured on
    the pool's û (``u``: :attr:`~tradeoff.pool.Pool.rank_cdf`, read here once when the
    caller, who loaded the pool, has not read it with the pool).
    """
    u = pool.rank_cdf if u is None else u
    picks, linear_picks, psis, omegas = [], [], [], []
    each = recommend_each(scenario, stakeholders, pool)
    recs, measured, vectors = each.recommendations, each.measured, each.vectors
    for s, rec in zip(stakeholders, recs, strict=True):
        rows = vectors[s.priors]
        coefficients = metric_coefficients(scenario, s.weights, s.priors)
        omega, _ = omega_for_metric(pool, coefficients, p, psi=np.asarray(rec.expected), u=u)
        omegas.append(omega)
        picks.append(rank_pool(pool, weights=omega, p=p, top=top))
        linear_picks.append(pool.names[int(np.argmax(rows @ np.asarray(s.weights)))])
        psis.append(np.asarray(rec.values))
    regret = [
        [_relative_regret(psis[i], recs[j].index, recs[i].index) for j in range(len(stakeholders))]
        for i in range(len(stakeholders))
    ]
    counted = [
        i
        for i, st in enumerate(stakeholders)
        if not (exclude_inconsistent and st.consistency is not None and st.consistency.flagged)
    ] or list(range(len(stakeholders)))
    per_model = np.array(
        [[_relative_regret(psis[i], m, recs[i].index) for m in range(pool.n)] for i in counted]
    )
    worst, total = per_model.max(axis=0), per_model.sum(axis=0)
    # Ties (to 9 digits, on every machine): the smaller total regret, then the model
    # recommended to more of them (one person: their own), then row order.
    chosen = np.bincount([recs[i].index for i in counted], minlength=pool.n)
    keys = rounded_rows(np.stack((worst, total)))
    best = int(np.lexsort((np.arange(pool.n), -chosen, keys[1], keys[0]))[0])
    aspects = aspect_words(scenario)
    acceptability = [
        _acceptability(s, vectors[s.priors], noisy)
        for s, noisy in zip(stakeholders, measured, strict=True)
    ]
    means = [
        np.asarray(s.weights) if s.draws is None else np.asarray(s.draws).mean(axis=0)
        for s in stakeholders
    ]
    # Each change knows whether the person's answers informed its weight (the sentence
    # says when it is the starting guess).
    changes = [
        tuple(
            replace(c, asked=s.asked is None or s.asked[c.index])
            for c in weight_changes(w, vectors[s.priors], aspects, measured=noisy, pick=rec.index)
        )
        for s, w, noisy, rec in zip(stakeholders, means, measured, recs, strict=True)
    ]
    group_table: FloatArray | None = None
    group_changes: tuple[WeightChange, ...] = ()
    if len(counted) > 1:
        people = [stakeholders[i] for i in counted]
        group_vectors = [vectors[s.priors] for s in people]
        if all(s.draws is not None for s in people):
            group_table = consensus_acceptability(
                [np.asarray(s.draws) for s in people], group_vectors
            )
        group_changes = consensus_changes([means[i] for i in counted], group_vectors, aspects)
    average = np.mean(np.array(omegas), axis=0)
    average_pick = rank_pool(pool, weights=tuple(float(x) for x in average), p=p, top=top)
    classes = not recs or recs[0].classes  # options are classifiers ("model"), or not
    return Selection(
        stakeholders=list(stakeholders),
        recommendations=recs,
        picks=picks,
        linear_picks=linear_picks,
        regret=regret,
        consensus_name=pool.names[best],
        consensus_rule="minimise the largest relative regret over the stakeholders, each in "
        "their own expected linear metric"
        + (
            " over plausible measurements"
            if any(r.expected_noisy is not None for r in recs)
            else ""
        )
        + f" ({'a model' if classes else 'an option'}'s regret: how much less it gives them "
        "than their own recommendation, none if not less; ties: smaller total regret, then "
        f"the {'model' if classes else 'option'} recommended to more of them, then row order)"
        + (
            f"; {len(stakeholders) - len(counted)} flagged as inconsistent left out"
            if len(counted) < len(stakeholders)
            else ""
        ),
        consensus_max_regret=float(worst[best]),
        average_pick=average_pick,
        pool=pool,
        scenario=scenario,
        acceptability=acceptability,
        changes=changes,
        consensus_acceptability=group_table,
        consensus_changes=group_changes,
        excluded=tuple(s.participant for i, s in enumerate(stakeholders) if i not in set(counted)),
    )
