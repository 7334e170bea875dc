"""Attention checks: a question whose one option is better on every line shown.

A check is a dominated pair (the standard attention check of choice experiments): one
option is better or equal on every line of its card and clearly better on at least one,
as the screen shows it (:func:`tradeoff.ask.shown.card_lines`, rounded as displayed). It
looks like any other question; a person who reads it picks the better option, whatever
they weigh. :func:`attention_check` builds one from a scenario and :func:`dominant_side`
says which side is better as shown (``None`` when neither is: not a check).

Nothing here learns: the engine never sees a check (a session records it as its own
line, :class:`tradeoff.record.records.CheckRecord`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Literal

from tradeoff.ask.queries import ClassifierProfile, Query
from tradeoff.ask.scenario import Scenario
from tradeoff.ask.shown import PER, VISIBLE, card_lines, per_thousand, shown_number

Side = Literal["left", "right"]

#: The quarter points of a range the two options of a check sit at, on a line that differs.
LOW, HIGH = 0.2, 0.8
#: How many lines a check's better option is better on (fewer when fewer are clear).
BETTER_LINES = 2


def _clear(scenario: Scenario, index: int, a: float, b: float) -> bool:
    """Whether statistic ``index`` (a class's recall, then the attributes) reads clearly
    apart at ``a`` and ``b`` as shown: 40 per 1,000, or 4% of an attribute's range."""
    k = scenario.n_classes
    if index < k:
        return abs(per_thousand(a) - per_thousand(b)) >= VISIBLE * PER
    spec = scenario.attributes[index - k]
    span = spec.range[1] - spec.range[0]
    return abs(shown_number(spec, a) - shown_number(spec, b)) >= VISIBLE * span


def _apart(scenario: Scenario, index: int) -> tuple[float, float] | None:
    """(worse, better) values of statistic ``index`` that read clearly apart, or ``None``."""
    k = scenario.n_classes
    if index < k:
        lo, hi = scenario.classes[index].recall_range
        tries = [(lo + LOW * (hi - lo), lo + HIGH * (hi - lo)), (LOW, HIGH)]
        for worse, better in tries:
            if _clear(scenario, index, worse, better):
                return worse, better
        return None
    spec = scenario.attributes[index - k]
    lo, hi = spec.range
    low, high = lo + LOW * (hi - lo), lo + HIGH * (hi - lo)
    if not _clear(scenario, index, low, high):
        return None
    return (high, low) if spec.kind == "cost" else (low, high)


def middle(scenario: Scenario) -> tuple[list[float], list[float]]:
    """(recalls, attributes) at the middle of each class's recall range and each
    attribute's range: what both options of a check show on a line that does not differ."""
    recalls = [sum(c.recall_range) / 2 for c in scenario.classes]
    attributes = [(a.range[0] + a.range[1]) / 2 for a in scenario.attributes]
    return recalls, attributes


def checkable(scenario: Scenario) -> list[int]:
    """The statistics a check can show clearly apart (indices in weight order)."""
    n = scenario.n_classes + len(scenario.attributes)
    return [i for i in range(n) if _apart(scenario, i) is not None]


def attention_check(
    scenario: Scenario, priors: Sequence[float], position: int, seed: int = 0
) -> Query:
    """The attention check shown before question ``position``: a dominated pair whose
    better option is clearly better on up to :data:`BETTER_LINES` lines and equal on the
    rest; which lines and which side is better are drawn from ``seed`` and ``position``.

    ``priors`` are the classes' shares (the accuracies recorded with each option are
    recall × share). Raises ``ValueError`` when no line of the scenario can read clearly
    apart (every range too narrow for its format).

    >>> from tradeoff.ask.scenario import load_scenario
    >>> sc = load_scenario("scenarios/glaucoma-screening.toml").scenario
    >>> q = attention_check(sc, (0.1, 0.9), 3)
    >>> dominant_side(sc, q) in ("left", "right"), q.kind
    (True, 'check')
    """
    lines = checkable(scenario)
    if not lines:
        raise ValueError("no line of the scenario reads clearly apart at its range's ends")
    rng = random.Random(f"attention check {seed} {position}")
    chosen = rng.sample(lines, min(BETTER_LINES, len(lines)))
    k = scenario.n_classes
    recalls, attributes = middle(scenario)
    worse = (list(recalls), list(attributes))
    better = (list(recalls), list(attributes))
    for index in chosen:
        apart = _apart(scenario, index)
        assert apart is not None
        for option, value in ((worse, apart[0]), (better, apart[1])):
            if index < k:
                option[0][index] = value
            else:
                option[1][index - k] = value

    def profile(option: tuple[list[float], list[float]]) -> ClassifierProfile:
        accuracies = tuple(r * z for r, z in zip(option[0], priors, strict=True))
        return ClassifierProfile(accuracies, tuple(option[0]), tuple(option[1]))

    good, bad = profile(better), profile(worse)
    left, right = (good, bad) if rng.random() < 0.5 else (bad, good)
    return Query(left, right, (0, 0), (0.0, 0.0), kind="check")


def dominant_side(scenario: Scenario, query: Query) -> Side | None:
    """The side of ``query`` better or equal on every line as shown and clearly better on
    at least one (:func:`_clear`), or ``None`` when neither side is.

    >>> from tradeoff.ask.scenario import load_scenario
    >>> sc = load_scenario("scenarios/glaucoma-screening.toml").scenario
    >>> a = ClassifierProfile((0.09, 0.72), (0.9, 0.8), (0.2, 5.0))
    >>> b = ClassifierProfile((0.07, 0.72), (0.7, 0.8), (0.2, 5.0))
    >>> dominant_side(sc, Query(a, b, (0, 0), (0.0, 0.0))), dominant_side(
    ...     sc, Query(b, a, (0, 0), (0.0, 0.0)))
    ('left', 'right')
    """
    sides: tuple[tuple[Side, ClassifierProfile, ClassifierProfile], ...] = (
        ("left", query.left, query.right),
        ("right", query.right, query.left),
    )
    for side, mine, other in sides:
        lines = card_lines(scenario, mine, other)
        if any(line.differs and not line.better for line in lines):
            continue
        mine_values = (*mine.recalls, *mine.attributes)
        other_values = (*other.recalls, *other.attributes)
        if len(mine_values) != len(lines) or len(other_values) != len(lines):
            return None
        for i, line in enumerate(lines):
            if line.differs and _clear(scenario, i, mine_values[i], other_values[i]):
                return side
        return None
    return None
