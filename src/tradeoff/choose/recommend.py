"""The recommendation: the model a person's own metric makes best (a Bayes decision).

:func:`recommend` takes the weights the person's answers give (a point estimate, or
posterior draws of them) and the pool's ψ rows (:func:`tradeoff.choose.pool_metric.metric_vectors`),
and returns the selectable model of highest posterior expected metric, every model's
P(best), and the trade against the runner-up in the person's words.

When the pool's numbers carry an uncertainty (:mod:`tradeoff.pool.uncertainty`), P(best),
P(best or practically tied) and rank acceptability integrate over it together with the
weight posterior, as SMAA does (Lahdelma & Salminen): each draw of the weights meets
plausible measurements (:func:`measured_vectors`, :func:`~tradeoff.choose.robustness.joint_psi`),
and a model that beats the pick in a fair share of them only because of the measurement
is named (:attr:`Recommendation.noise_tied`: within measurement noise for the person).
The pick is then the selectable model of highest P(best) over the weights and the
plausible measurements, which borrow strength across the pool's models
(:mod:`tradeoff.pool.front`), so a model that measured best by luck is not taken at that
luck; without a measurement noise it is the model of highest expected ψ (the Bayes
decision). In ``benchmarks/measurement_noise.py`` (the commands are in
``benchmarks/results/measurement-noise.md``; 600 people per test-set size) the likeliest
best was the truth's best for 23.0% of people at 100 cases per class (the model of highest
expected ψ at the measured numbers: 17.5%), 31.2% at 300 (21.2%) and 38.2% at 1,000
(31.0%), and its stated P(best) is the more honest (on 2,000 people a size, within 5 points of
the share right in the band below 0.5 at 100 and 300 cases; the band 0.80–0.95 at 1,000 cases
still overstated by 7–24 points); and a pick can no longer have a lower P(best) than another
model. When it is not the model that measured best,
:attr:`Recommendation.measured_best` names that one (the words say why).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from tradeoff.arrays import FloatArray, IntArray
from tradeoff.ask.scenario import Scenario
from tradeoff.ask.words import difference_words
from tradeoff.choose.pool_metric import metric_scale, metric_vectors
from tradeoff.choose.robustness import joint_psi
from tradeoff.errors import InputError
from tradeoff.learn.particles import PARTICLES, near_best
from tradeoff.learn.verdict import said_tied, tied_with
from tradeoff.pool import Pool
from tradeoff.pool.front import front_sample
from tradeoff.record.records import MAX_MEASURED_CANDIDATES, MeasurementRecord
from tradeoff.stable import (
    probability,
    rounded_rows,
    settled,
    stable_argmax,
    stable_argmax_rows,
    stable_order,
)

#: Plausible measurements drawn for a decision on a pool that carries uncertainty (at
#: least; rounded up to a whole number of repeats of the weight draws): one per particle of
#: the engine's posterior, so that the stop and every later recommendation pair each
#: particle with the same table and state the same P(best).
NOISE_DRAWS = PARTICLES
#: The seed of those draws: the same plausible measurements for every decision on a pool.
NOISE_SEED = 20_000_417
#: A model beats the pick in at least this share of the joint draws, and ...
NOISE_SHARE = 0.2
#: ... at least this much more often than at the measured numbers: then the two are said
#: to be within measurement noise for the person.
NOISE_GAIN = 0.1
#: A model best in at least this share of the draws of weights and plausible measurements,
#: and better than the pick in a share of them at least this far from the one at the
#: measured numbers, is named as one that could be best, however rarely it beats the pick.
NOISE_BEST = 0.05


@dataclass(frozen=True)
class NoiseTie:
    """A model that is within measurement noise of the pick for a person: it beats the
    pick in a share ``share`` of the draws of weights and plausible measurements, against
    ``exact`` at the measured numbers; ``cases`` is the fewest cases either model's
    numbers that matter to the person were measured on (``None``: only standard errors)."""

    name: str
    share: float
    exact: float
    cases: int | None
    #: P(best) of the model over the weights and the plausible measurements.
    p_best: float = 0.0


def noise_draws(draws: int) -> int:
    """How many plausible measurements a decision over ``draws`` weight draws uses:
    :data:`NOISE_DRAWS`, rounded up to a whole number of repeats of the draws.

    >>> noise_draws(1000), noise_draws(2000), noise_draws(3000)
    (2000, 2000, 3000)
    """
    return -(-NOISE_DRAWS // draws) * draws


def measured_vectors(
    scenario: Scenario,
    pool: Pool,
    priors: Sequence[float],
    draws: int,
    *,
    seed: int = NOISE_SEED,
    pooled: bool = True,
) -> FloatArray | None:
    """Plausible metric rows of the pool (samples × models × weights), one table per
    sample, :func:`noise_draws` of them for ``draws`` weight draws; ``None`` when the
    pool's numbers are exact (it carries no uncertainty). ``pooled``: strength borrowed
    across the pool's models (:func:`tradeoff.pool.front.front_sample`), else each
    model's numbers judged on their own (:meth:`~tradeoff.pool.Uncertainty.sample`).

    >>> from tradeoff.ask.scenario import load_scenario
    >>> from tradeoff.choose.pool_metric import metric_objectives
    >>> from tradeoff.pool import load_pool
    >>> sc = load_scenario("scenarios/breast-cancer-triage.toml").scenario
    >>> pool = load_pool("scenarios/pools/breast-cancer.csv", metric_objectives(sc))
    >>> measured_vectors(sc, pool, [0.37, 0.63], 1000) is None
    True
    """
    u = pool.uncertainty
    if u is None or not u.any:
        return None
    count = noise_draws(draws)
    values = (
        front_sample(u, pool.values, count, seed) if pooled else u.sample(pool.values, count, seed)
    )
    return metric_vectors(scenario, values, priors)


def measurement_record(
    scenario: Scenario,
    pool: Pool,
    priors: Sequence[float],
    candidates: FloatArray | None,
    *,
    seed: int = NOISE_SEED,
) -> MeasurementRecord | None:
    """How the pool's models were measured, for a session's header when its questions aim
    at ``candidates`` (the pool's :func:`metric_vectors` under ``priors``): the engine's
    stop then counts over the same plausible tables as :func:`measured_vectors` draws for
    every later recommendation. ``None`` when the pool is exact, the candidates are not
    its models one for one, or there are more than
    :data:`~tradeoff.record.records.MAX_MEASURED_CANDIDATES` of them (the stop then reads
    their numbers as exact).

    >>> from tradeoff.ask.scenario import load_scenario
    >>> from tradeoff.choose.pool_metric import metric_objectives
    >>> from tradeoff.pool import load_pool
    >>> sc = load_scenario("scenarios/breast-cancer-triage.toml").scenario
    >>> pool = load_pool("scenarios/pools/breast-cancer.csv", metric_objectives(sc))
    >>> measurement_record(sc, pool, [0.37, 0.63], metric_vectors(sc, pool, [0.37, 0.63]))
    """
    u = pool.uncertainty
    if u is None or not u.any or candidates is None or len(candidates) != pool.n:
        return None
    if pool.n > MAX_MEASURED_CANDIDATES:
        return None  # the stop then reads the numbers as exact; the result still counts

    def bound(x: float) -> float | None:
        return float(x) if math.isfinite(x) else None

    return MeasurementRecord(
        seed=seed,
        tables=noise_draws(PARTICLES),
        values=tuple(tuple(float(x) for x in row) for row in pool.values),
        scale=tuple(float(x) for x in metric_scale(scenario, priors)),
        cases=tuple(tuple(float(x) for x in row) for row in u.cases),
        se=tuple(tuple(float(x) for x in row) for row in u.se),
        low=tuple(bound(float(x)) for x in u.low),
        high=tuple(bound(float(x)) for x in u.high),
        pooled=True,
        prior="scattered",
        pick="likeliest",
    )


def fewest_cases(
    pool: Pool, weights: Sequence[float] | FloatArray, models: Sequence[int]
) -> int | None:
    """The fewest cases any of ``models``' numbers that matter to the person (a positive
    weight) were measured on; ``None`` when none says (exact, or standard errors only).

    >>> from tradeoff.ask.scenario import load_scenario
    >>> from tradeoff.choose.pool_metric import metric_objectives
    >>> from tradeoff.pool import load_pool
    >>> sc = load_scenario("scenarios/breast-cancer-triage.toml").scenario
    >>> pool = load_pool("scenarios/pools/breast-cancer.csv", metric_objectives(sc))
    >>> fewest_cases(pool, [0.5, 0.5, 0.0, 0.0], [0, 1]) is None
    True
    """
    if pool.uncertainty is None:
        return None
    used = np.asarray(weights, dtype=np.float64) > 0
    counted = pool.uncertainty.cases[list(models)][:, used]
    counted = counted[counted > 0]
    return int(counted.min()) if counted.size else None


def _noise_ties(
    pool: Pool,
    pick: int,
    weights: Sequence[float] | FloatArray,
    psi: FloatArray,
    w: FloatArray,
    exact: FloatArray,
    exact_w: FloatArray,
    rows: NDArray[np.intp],
    p_best: Sequence[float],
) -> tuple[NoiseTie, ...]:
    """The models within measurement noise of the pick: each is best in at least
    :data:`NOISE_BEST` of the joint draws (``p_best``) and beats the pick in a share of
    them that far from the one at the measured numbers, or beats the pick in at least
    :data:`NOISE_SHARE` of them (``psi`` with row weights ``w``), a share at least
    :data:`NOISE_GAIN` from the one at the measured numbers (``exact``, ``exact_w``; the
    pick, the likeliest best over the plausible measurements, may lose at them);
    the likelier best first, then the more often better (ties: the earlier row)."""
    found: list[NoiseTie] = []
    # Compared after rounding (stable.rounded_rows): two models equal at their measured
    # numbers never beat each other by the last bits of a matrix product.
    joint, plain = rounded_rows(psi), rounded_rows(exact)
    for m in rows:
        if m == pick:
            continue
        share = float(w @ (joint[:, m] > joint[:, pick]))
        before = float(exact_w @ (plain[:, m] > plain[:, pick]))
        gain = abs(settled(share - before))  # the noise changes how often it wins
        often = settled(share) >= NOISE_SHARE and gain >= NOISE_GAIN
        if often or (settled(p_best[m]) >= NOISE_BEST and gain >= NOISE_BEST):
            fewest = fewest_cases(pool, weights, [pick, m])
            found.append(NoiseTie(pool.names[m], share, before, fewest, float(p_best[m])))
    order = stable_order([-t.share for t in found])
    found = [found[i] for i in order]
    order = stable_order([-t.p_best for t in found])
    return tuple(found[i] for i in order)


@dataclass(frozen=True)
class Recommendation:
    """The model that maximises the posterior expected value of a person's own metric.

    ``expected`` holds E[ψ] of every model of the pool (pool order; ψ in the metric's own
    normalisation, up to a constant), ``p_best`` the posterior probability that each is the
    best selectable model (``None`` with a point estimate only). ``trade`` says, in the
    person's words, how the recommended model differs from the runner-up ("against the
    runner-up mlp-8: flags 12 more malignant lumps per 1,000 malignant lumps; 22 KB of
    memory less").
    """

    name: str
    index: int
    expected: tuple[float, ...]
    p_best: tuple[float, ...] | None
    runner_up: str | None
    trade: str
    #: P(the recommended model is best, or within the person's perceivable margin of the
    #: best: :func:`~tradeoff.learn.particles.perceivable_margin`), with draws.
    p_near: float | None = None
    #: The models that may be better for the person by less than that margin (each for at
    #: least :data:`~tradeoff.learn.verdict.TIE_MENTION` of the draws), most likely first.
    tied: tuple[str, ...] = ()
    #: The confidence the person's questions stopped at (``decision_confidence``).
    confidence: float = 0.95
    #: The models within measurement noise of the pick for the person (the pool's numbers
    #: carry an uncertainty, :mod:`tradeoff.pool.uncertainty`), most often better first.
    noise_tied: tuple[NoiseTie, ...] = ()
    #: Whether the options are classifiers (the scenario has classes); ``False`` for
    #: options described by their aspects alone, whose words speak of no class.
    classes: bool = True
    #: Whether the recommendation is to be said practically tied with :attr:`tied`, decided
    #: by :func:`recommend` with ``p_near`` and ``tied`` (the rule of
    #: :class:`~tradeoff.learn.verdict.Verdict`, :func:`~tradeoff.learn.verdict.said_tied`):
    #: then :attr:`stated` is P(best or practically tied).
    practically_tied: bool = False
    #: With a measurement noise, the model of highest expected ψ at the measured numbers
    #: when it is not the pick (the pick is the likeliest best once the noise is counted),
    #: its name, its P(best) and the fewest cases its numbers and the pick's that matter to
    #: the person were measured on (:func:`fewest_cases`); ``None`` otherwise.
    measured_best: str | None = None
    measured_best_p: float | None = None
    measured_cases: tuple[int | None, int | None] = (None, None)
    #: With a measurement noise and draws, E[ψ] of every model over the draws paired with
    #: plausible measurements (the lucky measurement's luck shrunk away, as P(best) counts
    #: it); ``None`` otherwise. What a group's consensus weighs (:attr:`values`).
    expected_noisy: tuple[float, ...] | None = None

    @property
    def values(self) -> tuple[float, ...]:
        """E[ψ] of every model as the pick counts the pool's numbers: over plausible
        measurements when they carry a noise (:attr:`expected_noisy`), else
        :attr:`expected`."""
        return self.expected if self.expected_noisy is None else self.expected_noisy

    @property
    def stated(self) -> float | None:
        """The probability said to the person: :attr:`probability`, or :attr:`p_near` when
        :attr:`practically_tied` (the one the questions stopped on)."""
        return self.p_near if self.practically_tied else self.probability

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
            "p_best": probability(self.probability),
            "p_best_or_practically_tied": self.p_near,
            "practically_tied_with": list(self.tied) if self.practically_tied else [],
            "stated_probability": self.stated,
            "runner_up": self.runner_up,
            "trade": self.trade,
        }
        if self.measured_best is not None:
            data["measured_best"] = {
                "name": self.measured_best,
                "p_best": probability(self.measured_best_p),
                "cases": self.measured_cases[0],
                "pick_cases": self.measured_cases[1],
            }
        if self.noise_tied:
            data["within_measurement_noise"] = [
                {
                    "name": t.name,
                    "p_better": t.share,
                    "p_better_if_exact": t.exact,
                    "p_best": probability(t.p_best),
                    "cases": t.cases,
                }
                for t in self.noise_tied
            ]
        if self.p_best is None:
            data["p_best_why_none"] = (
                "the weights are a point metric (no posterior draws), so no probability of "
                "being best can be given; the pick is the best model under those weights"
            )
        return data


def _runner_up(order: IntArray, index: int, vectors: FloatArray) -> int | None:
    """The model the pick is set against: the first of ``order`` (the others by expected
    ψ) that the pick does not dominate, one better on some aspect (a model no better on any
    aspect, e.g. the same recalls at more memory, is never a choice to weigh against it);
    the first other when the pick dominates them all; ``None`` alone.

    >>> v = np.array([[0.5, -2.0], [0.5, -3.0], [0.4, -1.0]])  # row 1: row 0 with a higher cost
    >>> _runner_up(np.array([0, 1, 2]), 0, v), _runner_up(np.array([0, 1]), 0, v)
    (2, 1)
    """
    rest = order[order != index]
    if rest.size == 0:
        return None
    beaten = (vectors[rest] <= vectors[index]).all(axis=1)
    open_ = rest[~beaten]
    return int((open_ if open_.size else rest)[0])


def _less_likely(runner: int, index: int, rows: IntArray, p_best: Sequence[float] | None) -> bool:
    """Whether another model than the pick is more often the best than the runner-up (by a
    percentage point or more). The runner-up is second in expected value, as the pick is
    first; the trade then names it "the runner-up in expected value", since the chances
    listed beside it rank another one second.

    >>> rows = np.arange(3)
    >>> _less_likely(1, 0, rows, [0.5, 0.3, 0.2]), _less_likely(1, 0, rows, [0.41, 0.2, 0.39])
    (False, True)
    """
    if p_best is None:
        return False
    others = [float(p_best[int(i)]) for i in rows if int(i) not in (runner, index)]
    # Compared as settled numbers: no machine's last bits decide the words.
    return bool(others) and settled(max(others) - float(p_best[runner])) >= 0.01


def recommend(
    scenario: Scenario,
    pool: Pool,
    weights: Sequence[float],
    priors: Sequence[float],
    *,
    draws: FloatArray | None = None,
    draw_weights: FloatArray | None = None,
    selectable: NDArray[np.bool_] | None = None,
    vectors: FloatArray | None = None,
    measured: FloatArray | None = None,
    likeliest: bool = True,
) -> Recommendation:
    """The Bayes decision for one person: the selectable model with the highest posterior
    expected value of their own linear metric (with a measurement noise, the one of
    highest P(best)), with every model's P(best).

    With posterior ``draws`` of the weights (weighted by ``draw_weights``, else equally:
    :meth:`tradeoff.learn.Engine.weighted_draws` gives both, so the pick and P(best) are the
    ones the questions stopped on), E[ψ] is the mean over the draws and P(best) the
    share of draws in which a model is the best selectable one (ties: the earlier row), and
    P(best or practically tied) the share in which the pick is within the draw's perceivable
    margin of the best (:func:`~tradeoff.learn.particles.perceivable_margin`);
    without, the point estimate ``weights`` decides and P(best) is ``None``. ``vectors``
    are the pool's :func:`~tradeoff.choose.pool_metric.metric_vectors` under ``priors``
    when the caller has them already (they are computed here otherwise).

    A pool whose numbers carry an uncertainty adds plausible measurements to the draws
    (``measured``, :func:`measured_vectors`, drawn here when not given): P(best) and
    P(best or practically tied) count over each draw paired with them
    (:func:`~tradeoff.choose.robustness.joint_psi`), and the models within measurement noise
    of the pick are named (:attr:`Recommendation.noise_tied`). The pick is then the
    selectable model of highest P(best) (ties, to :data:`~tradeoff.stable.DIGITS` digits:
    the earlier row), as the engine's stop picks (:mod:`tradeoff.learn.particles`), unless
    ``likeliest`` is ``False`` (the rule of sessions recorded before); E[ψ] is at the
    measured numbers, and :attr:`Recommendation.measured_best` names the model of highest
    E[ψ] when it is not the pick.

    Examples
    --------
    >>> from tradeoff.pool import load_pool
    >>> from tradeoff.ask.scenario import load_scenario
    >>> from tradeoff.choose.pool_metric import metric_objectives
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
    p_near: float | None = None
    tied: tuple[str, ...] = ()
    said = False
    noise_tied: tuple[NoiseTie, ...] = ()
    mean_w: Sequence[float] | FloatArray = weights
    noisy_values: tuple[float, ...] | None = None
    if draws is not None:
        exact, d0, w0 = joint_psi(np.asarray(draws, dtype=np.float64), vectors, draw_weights)
        expected = w0 @ exact
        mean_w = d0.T @ w0  # the posterior mean weights
        if measured is None:
            measured = measured_vectors(scenario, pool, priors, len(d0))
        psi, d, w = (exact, d0, w0) if measured is None else joint_psi(d0, vectors, w0, measured)
        if measured is not None:
            noisy_values = tuple(float(x) for x in w @ psi)
        best = rows[stable_argmax_rows(psi[:, rows])]  # ties: the earlier row, everywhere
        p_best: tuple[float, ...] | None = tuple(
            float(x) for x in np.bincount(best, weights=w, minlength=pool.n)
        )
    else:
        expected = vectors @ np.asarray(weights, dtype=np.float64)
        p_best = None
    order = rows[stable_order(-expected[rows])]  # ties (to 9 digits): the earlier row
    index = top = int(order[0])
    if measured is not None and likeliest and p_best is not None:
        index = int(rows[stable_argmax(np.asarray(p_best)[rows])])  # the likeliest best
        order = np.concatenate(([index], order[order != index]))  # the runner-up: E[ψ]
    runner = _runner_up(order, index, vectors)
    if draws is not None:
        spans = (*priors, *(a.range[1] - a.range[0] for a in scenario.attributes))
        near = near_best(psi, best, index, d, spans, w)
        p_near = float(near.sum())
        tied = tuple(pool.names[i] for i in tied_with(near, index))
        assert p_best is not None
        confidence = scenario.elicitation.decision_confidence
        said = said_tied(p_best[index], p_near, bool(tied), confidence)
        if measured is not None:
            noise_tied = _noise_ties(pool, index, mean_w, psi, w, exact, w0, rows, p_best)
    trade = ""
    if runner is not None:
        words = difference_words(scenario, pool.values[index], pool.values[runner])
        name = pool.names[runner]
        if not _less_likely(runner, index, rows, p_best):
            trade = f"against the runner-up {name}: {'; '.join(words)}"
            trade = trade if words else f"the runner-up {name} looks the same"
        else:
            trade = f"against {name}, the runner-up in expected value: {'; '.join(words)}"
            trade = trade if words else f"the runner-up in expected value, {name}, looks the same"
    return Recommendation(
        name=pool.names[index],
        index=index,
        expected=tuple(float(x) for x in expected),
        p_best=p_best,
        runner_up=None if runner is None else pool.names[runner],
        trade=trade,
        p_near=p_near,
        tied=tied,
        confidence=scenario.elicitation.decision_confidence,
        noise_tied=noise_tied,
        classes=bool(scenario.classes),
        practically_tied=said,
        measured_best=None if top == index else pool.names[top],
        measured_best_p=None if top == index or p_best is None else p_best[top],
        measured_cases=(None, None)
        if top == index
        else (fewest_cases(pool, mean_w, [top]), fewest_cases(pool, mean_w, [index])),
        expected_noisy=noisy_values,
    )
