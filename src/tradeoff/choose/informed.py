"""The candidates in the order a person's answers put them: only what was learned orders.

A list shown as "best for you first" is a claim about the person. When some aspect was
never asked (no question showed two options that read differently on it:
:attr:`~tradeoff.learn.base.ElicitationResult.asked`), the posterior's weight on it is the
prior's guess, and ordering by the posterior expected metric lets that guess move models
up and down: after five answers that never showed memory, a model missing 188 of 1,000
cancers stood above ones missing about 50 because the guess gave its small memory 38 %.

:func:`informed_order` orders by what the answers informed, by this rule:

1. **The asked aspects decide.** Each posterior draw's weights on the asked aspects are
   scaled so their swing weights add up to one (the shares a review shows,
   :func:`~tradeoff.learn.shares.asked_shares`), and the models are ordered by the mean
   over the draws of their metric under those weights. The unasked weights drop out of
   every draw, so no guess of theirs moves a model; what is ordered is the person's own
   trade-off between the aspects they were asked about.
2. **An unasked aspect only breaks a practical tie.** Between models whose asked metric
   differs by less than the person's perceivable margin (a thousandth of the range of
   what they weigh most: :func:`~tradeoff.learn.particles.perceivable_margin`), the answers
   cannot tell which is better; one that is at least as good on every unasked aspect as
   the table shows it, and better on one, goes first: whatever weight the unasked aspects
   have, it is then no worse. Only the direction of an aspect is used (a cost is better
   lower), never a guessed weight. Such a place rests on an unasked aspect, and
   :attr:`InformedOrder.placed_by` names it, so a face can say so.

With every aspect asked, the order is that of the posterior expected metric (the one the
pick is made by), as it always was.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from tradeoff.arrays import FloatArray
from tradeoff.ask.scenario import Scenario
from tradeoff.ask.shown import per_thousand, shown_number
from tradeoff.ask.words import option_noun
from tradeoff.choose.chances import chance_cells
from tradeoff.choose.pool_metric import metric_vectors
from tradeoff.choose.stakeholder import Stakeholder
from tradeoff.learn.particles import perceivable_margin
from tradeoff.learn.shares import Shares, shares_of
from tradeoff.pareto import nondominated
from tradeoff.stable import settled, stable_order


@dataclass(frozen=True)
class InformedOrder:
    """Pool rows, best for the person first by what their answers informed.

    ``unasked`` lists the aspects (classes, then attributes) no answer informed, which do
    not order the list; ``placed_by[i]`` the unasked aspects on which pool row ``i`` was
    placed above a model the answers make practically tied with it and better on the
    asked aspects (empty: its place rests on the asked aspects alone).
    """

    order: tuple[int, ...]
    unasked: tuple[int, ...]
    placed_by: tuple[tuple[int, ...], ...]

    def rank_of(self, row: int) -> int:
        """The place of pool row ``row`` in the list, from 1."""
        return self.order.index(row) + 1


def _shown(scenario: Scenario, values: FloatArray, j: int) -> FloatArray:
    """Column ``j`` of ``values`` as the table shows it, higher better."""
    k = scenario.n_classes
    if j < k:
        return np.array([float(per_thousand(float(v))) for v in values[:, j]])
    spec = scenario.attributes[j - k]
    sign = -1.0 if spec.kind == "cost" else 1.0
    return np.array([sign * shown_number(spec, float(v)) for v in values[:, j]])


def _asked_metric(
    scenario: Scenario,
    values: FloatArray,
    priors: Sequence[float],
    asked: NDArray[np.bool_],
    posterior: tuple[FloatArray, FloatArray] | None,
    weights: Sequence[float] | None,
) -> tuple[FloatArray, float]:
    """Every model's metric over the asked aspects (swing weights scaled to add up to one,
    per draw, then averaged), and the person's perceivable margin in the same units."""
    vectors = metric_vectors(scenario, values, priors)[:, asked]
    spans = np.array([*priors, *(a.range[1] - a.range[0] for a in scenario.attributes)])[asked]
    if posterior is not None and len(posterior[0]):
        draws = np.asarray(posterior[0], dtype=np.float64)[:, asked]
        w = np.asarray(posterior[1], dtype=np.float64)
    else:
        assert weights is not None, "a point estimate or posterior draws"
        draws = np.asarray(weights, dtype=np.float64)[None, asked]
        w = np.ones(1)
    total = draws @ spans
    keep = total > 0
    if not keep.any():  # the asked aspects weigh nothing in any draw: no order among them
        return np.zeros(len(values)), 0.0
    scaled = draws[keep] / total[keep, None]
    w = w[keep] / w[keep].sum()
    value: FloatArray = (vectors @ scaled.T) @ w
    margin = float(perceivable_margin(scaled, spans.tolist()) @ w)
    return value, margin


def informed_order(
    scenario: Scenario,
    values: FloatArray,
    priors: Sequence[float],
    asked: Sequence[bool] | None,
    expected: Sequence[float],
    *,
    posterior: tuple[FloatArray, FloatArray] | None = None,
    weights: Sequence[float] | None = None,
) -> InformedOrder:
    """The pool's rows (``values``, one row per model in the scenario's aspect order) in
    the order the person's answers put them (the module's rule).

    ``expected`` is every model's posterior expected metric (the recommendation's), which
    orders the list when every aspect was asked; otherwise the posterior draws and their
    weights (``posterior``: :meth:`~tradeoff.learn.Engine.weighted_draws`) or, for a point
    estimate, ``weights`` give the metric over the asked aspects.

    Examples
    --------
    Memory never asked; the second model is a little better on the asked aspects and the
    first uses far less memory; the third is far better on the asked aspects:

    >>> from tradeoff.ask.scenario import load_scenario
    >>> sc = load_scenario("scenarios/breast-cancer-triage.toml").scenario
    >>> values = np.array([[0.90, 0.95, 1.0, 2.0],
    ...                    [0.90, 0.95, 1.0, 600.0],
    ...                    [0.99, 0.95, 1.0, 700.0]])
    >>> values[1, 1] += 1e-5  # practically tied with the first on what was asked
    >>> w = [0.5, 0.3, 0.002, 0.0]
    >>> o = informed_order(sc, values, [0.37, 0.63], (1, 1, 1, 0), [0, 1, 2], weights=w)
    >>> o.order, o.unasked, o.placed_by
    ((2, 0, 1), (3,), ((3,), (), ()))
    >>> informed_order(sc, values, [0.37, 0.63], None, [0, 1, 2], weights=w).order
    (2, 1, 0)
    """
    n = len(values)
    if asked is None or all(asked):
        by_expected = stable_order(-np.asarray(expected, dtype=np.float64))
        return InformedOrder(tuple(int(i) for i in by_expected), (), ((),) * n)
    mask = np.asarray(asked, dtype=bool)
    unasked = tuple(int(j) for j in np.flatnonzero(~mask))
    value, margin = _asked_metric(scenario, values, priors, mask, posterior, weights)
    shown = np.column_stack([_shown(scenario, values, j) for j in unasked])

    remaining = [int(i) for i in stable_order(-value)]
    tie = settled(margin)
    order: list[int] = []
    placed_by: list[tuple[int, ...]] = [()] * n
    while remaining:
        top = float(value[remaining[0]])
        window = remaining[:1]
        for i in remaining[1:]:  # in order of the asked metric: the tied ones come first
            if settled(top - float(value[i])) >= tie:
                break
            window.append(i)
        # The first of the window no other dominates on the unasked aspects as shown (a
        # window of one, no practical tie, is its model).
        pick = window[0]
        if len(window) > 1:
            pick = window[int(np.argmax(nondominated(shown[window], maximise=True)))]
        passed = window[: window.index(pick)]  # better on the asked aspects, tied with it
        if passed:
            placed_by[pick] = tuple(
                j
                for c, j in enumerate(unasked)
                if any(shown[pick, c] > shown[p, c] for p in passed)
            )
        order.append(pick)
        remaining.remove(pick)
    return InformedOrder(tuple(order), unasked, tuple(placed_by))


class Person(Protocol):
    """What :func:`person_order` needs of a stakeholder
    (:class:`~tradeoff.choose.selection.Stakeholder`)."""

    @property
    def weights(self) -> tuple[float, ...]: ...
    @property
    def priors(self) -> tuple[float, ...]: ...
    @property
    def asked(self) -> tuple[bool, ...] | None: ...
    @property
    def posterior(self) -> tuple[FloatArray, FloatArray] | None: ...
    @property
    def swing_weights(self) -> tuple[float, ...] | None: ...
    @property
    def swing_intervals(self) -> tuple[tuple[float, float], ...] | None: ...


def person_shares(scenario: Scenario, person: Person) -> Shares:
    """A replayed person's shares of the aspects their answers informed, as their review
    showed them (:func:`~tradeoff.learn.shares.shares_of`): a stakeholder's own, read
    with their engine's outcome, else computed from the person."""
    if isinstance(person, Stakeholder) and person.shares is not None:
        return person.shares
    spans = (*person.priors, *(a.range[1] - a.range[0] for a in scenario.attributes))
    return shares_of(
        person.swing_weights or person.weights,
        person.swing_intervals,
        person.asked,
        spans,
        person.posterior,
    )


def person_order(
    scenario: Scenario, values: FloatArray, person: Person, expected: Sequence[float]
) -> InformedOrder:
    """:func:`informed_order` for one replayed person (their posterior, or their point
    weights), ``expected`` their recommendation's
    (:attr:`~tradeoff.choose.recommend.Recommendation.expected`)."""
    return informed_order(
        scenario,
        values,
        person.priors,
        person.asked,
        expected,
        posterior=person.posterior,
        weights=person.weights,
    )


class Advice(Protocol):
    """What :func:`listed` needs of a recommendation
    (:class:`~tradeoff.choose.recommend.Recommendation`)."""

    @property
    def index(self) -> int: ...
    @property
    def expected(self) -> tuple[float, ...]: ...
    @property
    def p_best(self) -> tuple[float, ...] | None: ...
    @property
    def measured_best(self) -> str | None: ...


@dataclass(frozen=True)
class Listed:
    """One person's candidates as a face lists them: pool rows in :func:`person_order`'s
    order, every model's name as listed (:data:`MARK` after one whose place rests on an
    unasked aspect; pool order) and what the list says of its order (:func:`order_words`)."""

    order: tuple[int, ...]
    names: tuple[str, ...]
    words: str


def listed(
    scenario: Scenario, names: Sequence[str], values: FloatArray, person: Person, advice: Advice
) -> Listed:
    """One person's candidates as every face lists them "best for you first"."""
    informed = person_order(scenario, values, person, advice.expected)
    shown = tuple(
        f"{name} {MARK}" if placed else name
        for name, placed in zip(names, informed.placed_by, strict=True)
    )
    # With a measurement noise the pick is the likeliest best, which the list (ordered at
    # the measured numbers) may place lower than the model that measured best.
    measured = advice.index if advice.measured_best is None else names.index(advice.measured_best)
    words = order_words(scenario, informed, names, advice.index, measured)
    return Listed(informed.order, shown, words)


@dataclass(frozen=True)
class PeopleList:
    """The candidates as the people's own metrics order them: pool rows, the heading and
    the cells of the column that says why, every name as listed (pool order), and what the
    list says of its order."""

    order: tuple[int, ...]
    label: str
    extra: tuple[str, ...]
    names: tuple[str, ...]
    words: str = ""


class Pooled(Protocol):
    """What :func:`people_list` needs of a pool (:class:`~tradeoff.pool.Pool`)."""

    @property
    def names(self) -> Sequence[str]: ...
    @property
    def values(self) -> FloatArray: ...


def people_list(
    scenario: Scenario | None,
    pool: Pooled,
    people: Sequence[Person],
    advice: Sequence[Advice],
) -> PeopleList:
    """One person's candidates by :func:`listed` (with each one's chance to be the best),
    a group's by the largest regret (the consensus rule: each person's shortfall from
    their best, as a share of their spread, the worst of them first-smallest)."""
    n = len(pool.names)
    if len(people) == 1:
        rec = advice[0]
        p = rec.p_best
        # The chances are parts of one whole: said so that they add up to 100%.
        best = ("",) * n if p is None else chance_cells(p)
        if scenario is None:
            by = tuple(int(i) for i in stable_order(-np.asarray(rec.expected)))
            return PeopleList(by, "chance\nbest", best, tuple(pool.names))
        one = listed(scenario, pool.names, pool.values, people[0], rec)
        return PeopleList(one.order, "chance\nbest", best, one.names, one.words)
    psis = [np.asarray(r.expected) for r in advice]
    spread = [max(float(p.max() - p.min()), 1e-300) for p in psis]
    worst = [
        max(float(p.max() - p[i]) / w for p, w in zip(psis, spread, strict=True)) for i in range(n)
    ]
    order = tuple(sorted(range(n), key=lambda i: (worst[i], i)))
    regret = tuple(f"{w:.0%}" for w in worst)
    return PeopleList(order, "largest\nregret", regret, tuple(pool.names))


def _names(names: Sequence[str]) -> str:
    """ "a", "a and b", "a, b and c"."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 21st.

    >>> [_ordinal(n) for n in (1, 2, 3, 4, 11, 12, 21, 112)]
    ['1st', '2nd', '3rd', '4th', '11th', '12th', '21st', '112th']
    """
    last = 0 if n % 100 in (11, 12, 13) else n % 10
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(last, 'th') }"


#: The mark after a model's name whose place rests on an unasked aspect.
MARK = "*"


def order_words(
    scenario: Scenario,
    informed: InformedOrder,
    names: Sequence[str],
    pick: int | None = None,
    measured: int | None = None,
) -> str:
    """What a list in ``informed``'s order says of it, in English ("" when every aspect
    was asked): which aspects do not order it, what :data:`MARK` means when some
    place rests on an unasked aspect, and where the recommendation (pool row ``pick``) is
    when it is not first, and why: it is made by the posterior, the unasked guess
    included, and with a measurement noise it is the likeliest best, not the model of
    highest expected value at the measured numbers (``measured``, when that differs).

    >>> from tradeoff.ask.scenario import load_scenario
    >>> sc = load_scenario("scenarios/breast-cancer-triage.toml").scenario
    >>> o = InformedOrder((1, 0), (3,), ((3,), ()))
    >>> print(order_words(sc, o, ["a", "b"], pick=0))  # doctest: +NORMALIZE_WHITESPACE
    Memory was not asked, so it does not order this list. *: placed above a practically
    tied model because it is better on memory. The recommended a is 2nd: the pick also
    counts a starting guess for memory.
    >>> order_words(sc, o, ["a", "b"], pick=0, measured=1).split(": the pick ")[1]
    'also counts how exactly each model was measured.'

    Every aspect asked, the list is silent on its order unless the pick is not first:

    >>> every = InformedOrder((1, 0), (), ((), ()))
    >>> order_words(sc, every, ["a", "b"], pick=1)
    ''
    >>> order_words(sc, every, ["a", "b"], pick=0, measured=1)
    'The recommended a is 2nd: the pick also counts how exactly each model was measured.'
    """
    aspect = [c.name for c in scenario.classes] + [a.name for a in scenario.attributes]
    noun = option_noun(scenario)
    left = _names([aspect[j] for j in informed.unasked]) if informed.unasked else ""
    said = []
    if informed.unasked:
        one = len(informed.unasked) == 1
        text = f"{left} {'was' if one else 'were'} not asked, so "
        said.append(
            text[0].upper() + text[1:] + ("it does" if one else "they do") + " not order this list."
        )
        marked = sorted({j for p in informed.placed_by for j in p})
        if marked:
            said.append(
                f"{MARK}: placed above a practically tied {noun} because it is better on "
                f"{_names([aspect[j] for j in marked])}."
            )
    if pick is not None and informed.order[0] != pick:
        measured = pick if measured is None else measured
        guessed = informed.unasked and informed.order[0] != measured
        why = [f"a starting guess for {left}"] if guessed else []
        if measured != pick:
            why.insert(0, f"how exactly each {noun} was measured")
        if why:
            said.append(
                f"The recommended {names[pick]} is {_ordinal(informed.rank_of(pick))}: the "
                f"pick also counts {' and '.join(why)}."
            )
    return " ".join(said)
