"""What a question is taken to be about: its options as the screen shows them.

Every strategy that shows trades (``bisection``, ``probabilistic``, ``joint``) takes an
answer to be about what a person read, not the exact values behind it: the options rounded
as the screen shows them (:func:`as_shown`), two questions the same pair when they read the
same (:func:`question_key`), and two options different enough to tell apart without
rounding when they differ visibly (:func:`visible_difference`).
"""

from __future__ import annotations

from tradeoff.ask.presentation import shown_pair, shown_profile
from tradeoff.ask.queries import ClassifierProfile, Query, QuerySpace

#: Two options as the screen shows them (:func:`question_key`).
ShownKey = tuple[tuple[str, ...], tuple[str, ...]]

#: Visibly different: recall differs by this much (40 per 1,000), or an attribute by this
#: share of its range.
VISIBLE = 0.04


def visible_difference(space: QuerySpace, a: ClassifierProfile, b: ClassifierProfile) -> float:
    """The larger of the recall difference and the attribute difference as a share of range."""
    diffs = [abs(x - y) for x, y in zip(a.recalls, b.recalls, strict=True)]
    for spec, x, y in zip(space.scenario.attributes, a.attributes, b.attributes, strict=True):
        diffs.append(abs(x - y) / (spec.range[1] - spec.range[0]))
    return max(diffs)


def as_shown(space: QuerySpace, query: Query) -> Query:
    """The question with both options rounded as the screen shows them
    (:func:`~tradeoff.ask.presentation.shown_profile`) and the threshold of the rounded options:
    what a person reads is exactly what the answer is taken to be about."""
    left = shown_profile(space.scenario, query.left)
    right = shown_profile(space.scenario, query.right)
    ref, other = query.pair
    threshold = space.threshold_of(ref, other, left, right)
    return Query(left, right, query.pair, query.params, threshold, query.repeat_of, query.tag)


def question_key(space: QuerySpace, query: Query, shown: bool) -> ShownKey:
    """What makes two questions "the same pair": the options as shown
    (:func:`~tradeoff.ask.presentation.shown_pair`), or with ``shown=False`` their exact values."""
    if shown:
        return shown_pair(space.scenario, query)
    a, b = sorted((repr(query.left), repr(query.right)))
    return (a,), (b,)
