"""Strategy `bisection`: one chord question per halving of a weight ratio's interval.

Algorithm 1 of paper 004 spends four questions per halving. For a linear metric one is
enough: comparing two frontier classifiers that differ only in d₁ and one other statistic
is answered by the side of the *chord's slope* on which the true ratio lies (§4.1). With
m = w₁ / (w₁ + w_i) the chord between frontier(m_lo) and frontier(m_hi) has threshold
t = 1 / (1 + slope): the option with more class-1 accuracy is preferred exactly when the
true m exceeds t. :meth:`~tradeoff.ask.queries.QuerySpace.chord_pair` places t at the middle of
the current interval while keeping the two options visibly different, and the exact t is
recorded with the question.

Intervals live in the swing-scaled m' (see :func:`~tradeoff.learn.base.scale_shift`),
so the first question sits in the middle of the frontier whatever the units.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from tradeoff.ask.queries import Query, QuerySpace
from tradeoff.ask.scenario import ElicitationSpec
from tradeoff.ask.shown import (
    VISIBLE,
    ShownKey,
    as_shown,
    question_key,
    unanswerable,
    visible_difference,
)
from tradeoff.learn.base import (
    Choice,
    ElicitationResult,
    Strategy,
    logit,
    point_result,
    raw_to_scaled,
    scaled_to_raw,
    weights_from_ratios,
    weights_from_scaled,
)
from tradeoff.stable import settled, stable_order


@dataclass(frozen=True)
class BisectionState:
    """One interval [low, high] of m per ratio (ratio i compares class 1 with weight i+1)."""

    intervals: tuple[tuple[float, float], ...]
    answered: int = 0
    #: The pairs of options shown so far (:func:`~tradeoff.ask.shown.question_key`), and
    #: the ratios whose answer was "can't tell" (settled: the ratio is within the band of
    #: that threshold).
    shown: tuple[ShownKey, ...] = ()
    unsure: frozenset[int] = frozenset()


def show_reference_left(seed: int, index: int) -> bool:
    """Which side shows the option with more class-1 accuracy (a seeded coin per question).

    Randomising the sides keeps a person's habit of picking "A" from biasing every ratio in
    the same direction.
    """
    return bool(np.random.default_rng([seed, index]).random() < 0.5)


#: Spreads (in logit m) tried in turn, narrowest first, until the two options differ
#: visibly: both options stay close to the frontier point the question is about.
SPREADS = (0.25, 0.5, 1.0, 2.0, 3.0)
#: Shares of the ranges a trade question spans, tried in turn until it can be read: the
#: middle 60% of both ranges, else all of them (an extreme trade-off).
TRADE_SHARES = (0.6, 1.0)
#: With a ``tolerance``, the shares of the ranges searched, nearest the usual 60% first,
#: for a shown pair whose threshold lies closer to the target: rounding to what the screen
#: shows (counts per 1,000, an attribute's format) moves a pair's threshold, and trades of
#: different sizes round to different exchange rates, so a fine threshold is reached with
#: numbers a person reads. Large trades first: a difference a person reads as too small to
#: matter covers fewer exchange rates when the differences are large.
FINE_SHARES = tuple(
    sorted(
        (round(0.4 + 0.01 * i, 2) for i in range(51)),
        key=lambda s: (round(abs(s - 0.6), 2), -s),
    )
)


def chord_query(
    space: QuerySpace,
    other: int,
    m_target: float,
    *,
    seed: int,
    index: int,
    shown: bool = True,
    tolerance: float | None = None,
) -> Query:
    """A chord question on class 1 against weight ``other`` with threshold at ``m_target``.

    With ``shown`` (``[elicitation] rounding = "shown"``, for people) the question is
    :meth:`~tradeoff.ask.queries.QuerySpace.trade`: two options that differ only in the two
    statistics, by as much of both ranges as the threshold allows, inside every
    ``recall_range``, then rounded as the screen shows them
    (:func:`~tradeoff.ask.shown.as_shown`) with the threshold of the rounded options. Large
    differences keep the rounding's effect on the threshold small, and the recorded
    threshold is exactly the one of what was shown. With
    a ``tolerance`` (in logit m), a shown pair whose threshold misses the target by more is
    replaced by the answerable one, among trades of ``FINE_SHARES`` of the ranges, whose
    threshold lies closest to it. A question a person still could not answer from the screen
    (:func:`~tradeoff.ask.shown.unanswerable`) is returned as it is; the strategies skip
    it.

    Without ``shown`` (paper 004's setting, answered from exact values) both options are
    frontier classifiers, placed ever further apart (``SPREADS``) until they differ
    visibly (``VISIBLE``); near the ends of the frontier the widest pair is used.
    """
    if shown:
        for share in TRADE_SHARES:
            query = as_shown(space, space.trade(0, other, m_target, share))
            if unanswerable(space.scenario, query) is None:
                break
        if tolerance is not None:
            query = _closer_trade(space, other, m_target, query, tolerance)
    else:
        for spread in SPREADS:
            m_lo, m_hi, exact = space.chord_pair(0, other, m_target, spread)
            lo, hi = space.frontier(0, other, m_lo), space.frontier(0, other, m_hi)
            query = Query(hi, lo, (0, other), (m_hi, m_lo), threshold=exact)
            if visible_difference(space, lo, hi) >= VISIBLE:
                break
    if show_reference_left(seed, index):
        return query
    return query.swapped()


def _closer_trade(
    space: QuerySpace, other: int, m_target: float, query: Query, tolerance: float
) -> Query:
    """``query``, or the answerable shown trade of ``FINE_SHARES`` whose threshold lies
    closest to ``m_target`` when ``query``'s misses it by more than ``tolerance``."""

    def miss(q: Query) -> float:
        # Settled (tradeoff.stable): two shown pairs with the same exchange rate miss the
        # target equally on every machine, and the first in FINE_SHARES' order is kept.
        assert q.threshold is not None
        return settled(abs(logit(q.threshold) - logit(m_target)))

    best = query if unanswerable(space.scenario, query) is None else None
    if best is not None and miss(best) <= tolerance:
        return best
    for share in FINE_SHARES:
        candidate = as_shown(space, space.trade(0, other, m_target, share))
        if unanswerable(space.scenario, candidate) is not None:
            continue
        if best is None or miss(candidate) < miss(best):
            best = candidate
            if miss(best) <= tolerance:
                break
    return query if best is None else best


def prefers_reference(query: Query, choice: Choice, space: QuerySpace | None = None) -> bool | None:
    """Whether the answer prefers the side with more class-1 accuracy, or more of the
    reference attribute in a scenario without classes (None: can't tell)."""
    if choice is Choice.INDIFFERENT:
        return None
    return reference_left(query, space) == (choice is Choice.LEFT)


def reference_left(query: Query, space: QuerySpace | None = None) -> bool:
    """Whether the left option has more accuracy on the question's reference class (or,
    in a scenario without classes, more of its reference attribute in the metric's signed
    scale: ``space`` says which way is more)."""
    ref = query.pair[0]
    if ref < len(query.left.accuracies) or space is None:
        return query.left.accuracies[ref] > query.right.accuracies[ref]
    return space.statistic(query.left, ref) > space.statistic(query.right, ref)


@dataclass(frozen=True)
class BisectionStrategy(Strategy[BisectionState]):
    """Noise-free bisection with one question per halving (see the module docstring).

    Each question goes to the ratio whose interval moves the normalised weights most (the L1
    distance between the weights at its two ends); it stops when no ratio moves them by
    more than ε. A ratio far from 1 in swing terms takes a few more halvings than one near
    it; the paper's setups take 30–40 questions for four weights and 50–66 for six
    (Algorithm 1: 120 and 200). "Can't tell" keeps the middle half of the interval around
    the threshold (the ratio is near it).
    """

    space: QuerySpace
    spec: ElicitationSpec = field(default_factory=ElicitationSpec)
    seed: int = 0
    name: str = field(default="bisection", init=False)
    #: An answer narrows the asked ratio's interval at the question's recorded threshold.
    learns_from_any_question: bool = field(default=True, init=False)

    def initial(self) -> BisectionState:
        return BisectionState(((0.0, 1.0),) * (self.space.n_weights - 1))

    def effects(self, state: BisectionState) -> list[float]:
        """For each ratio, how far its interval's two ends move the normalised weights (L1),
        in swing or natural-unit weights as ``spec.precision`` says."""
        mids = [(lo + hi) / 2 for lo, hi in state.intervals]
        out = []
        for i, (lo, hi) in enumerate(state.intervals):
            at_lo, at_hi = list(mids), list(mids)
            at_lo[i], at_hi[i] = lo, hi
            natural = sum(
                abs(x - y)
                for x, y in zip(
                    weights_from_scaled(self.space, at_lo),
                    weights_from_scaled(self.space, at_hi),
                    strict=True,
                )
            )
            a = weights_from_ratios(at_lo)
            b = weights_from_ratios(at_hi)
            swing = sum(abs(x - y) for x, y in zip(a, b, strict=True))
            out.append(swing if self.spec.precision == "swing" else natural)
        return out

    def next_question(self, state: BisectionState) -> Query | None:
        """The chord question at the middle of the interval of the ratio with the largest
        effect. A ratio answered "can't tell" is settled, and a ratio whose next question
        shows a pair of options already shown cannot be narrowed on this screen: both are
        skipped (no pair is shown twice)."""
        budget = self.spec.budget
        if budget is not None and state.answered >= budget:
            return None
        effects = self.effects(state)
        shown = self.spec.rounding == "shown"
        # Ratios whose effects are equal in exact arithmetic (as before the first answers)
        # are taken in their order on every machine (tradeoff.stable).
        for ratio in (int(i) for i in stable_order([-e for e in effects])):
            if settled(effects[ratio]) <= self.spec.epsilon:
                return None
            if ratio in state.unsure:
                continue
            lo, hi = state.intervals[ratio]
            target = scaled_to_raw(self.space, ratio, (lo + hi) / 2)
            query = chord_query(
                self.space, ratio + 1, target, seed=self.seed, index=state.answered, shown=shown
            )
            if shown and unanswerable(self.space.scenario, query) is not None:
                continue
            if question_key(self.space, query, shown) in state.shown:
                continue
            return query
        return None

    def update(self, state: BisectionState, query: Query, choice: Choice) -> BisectionState:
        ratio = query.pair[1] - 1
        lo, hi = state.intervals[ratio]
        if query.threshold is None:
            t = (lo + hi) / 2
        else:
            t = min(max(raw_to_scaled(self.space, ratio, query.threshold), lo), hi)
        side = prefers_reference(query, choice, self.space)
        if side is None:
            quarter = (hi - lo) / 4
            new = (max(lo, t - quarter), min(hi, t + quarter))
        elif side:
            new = (t, hi)
        else:
            new = (lo, t)
        intervals = list(state.intervals)
        intervals[ratio] = new
        shown = self.spec.rounding == "shown"
        return BisectionState(
            tuple(intervals),
            state.answered + 1,
            (*state.shown, question_key(self.space, query, shown)),
            state.unsure | {ratio} if side is None else state.unsure,
        )

    def result(self, state: BisectionState) -> ElicitationResult:
        mids = [(lo + hi) / 2 for lo, hi in state.intervals]
        weights = weights_from_scaled(self.space, mids)
        return point_result(
            self.name, self.space, weights, state.answered, self.next_question(state) is None
        )

    def weight_draws(self, state: BisectionState) -> None:
        """A point estimate only: no posterior to draw from."""
        return None

    def consistency(self, state: BisectionState) -> None:
        """This strategy repeats no question."""
        return None

    def expected_total(self, state: BisectionState) -> int:
        eps = self.spec.epsilon
        left = sum(max(0, math.ceil(math.log2(e / eps) - 1e-12)) for e in self.effects(state))
        total = state.answered + left
        budget = self.spec.budget
        return total if budget is None else min(total, budget)
