"""What would change a pick, in words: one weight's change as a sentence
(:func:`change_sentence`, its factor as a person writes it, :func:`factor_words`), several
of them with those already in doubt within measurement noise said once
(:func:`change_lines`), and the changes nearest first (:func:`nearest_changes`, the one
place they are ordered).

:func:`change_dict` is a :class:`~tradeoff.choose.robustness.WeightChange` as JSON with
its sentence: the numbers are robustness's, the words this module's.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

from tradeoff.choose.robustness import LIMIT, WeightChange
from tradeoff.text import plain_number

__all__ = [
    "change_dict",
    "change_lines",
    "change_sentence",
    "change_sentences",
    "factor_words",
    "nearest_changes",
]


def nearest_changes(changes: Iterable[WeightChange]) -> list[WeightChange]:
    """The weight changes that alter the pick, the nearest first: by how far the factor is
    from 1 as a ratio (2 and 1/2 are as far); ties keep their order. Changes that alter
    nothing within the searched factors are left out.

    Examples
    --------
    >>> far = WeightChange(0, "speed", (4.0, 1), None)
    >>> near = WeightChange(1, "cost", None, (0.5, 2))
    >>> none = WeightChange(2, "size", None, None)
    >>> [c.aspect for c in nearest_changes([far, none, near])]
    ['cost', 'speed']
    """
    near = [(c, n[0]) for c in changes if (n := c.nearest()) is not None]
    near.sort(key=lambda pair: abs(math.log(pair[1])))
    return [c for c, _ in near]


#: Factors said in words, by how :func:`~tradeoff.text.plain_number` shows them.
_NAMED_FACTORS = {"2": "twice", "3": "three times", "0.5": "half", "0.25": "a quarter"}


def factor_words(factor: float) -> str:
    """A factor on a weight in words, its number as a person writes it: never "1e+02".

    Examples
    --------
    >>> [factor_words(f) for f in (2.0, 2.04, 1.2, 3.456, 0.5, 0.8, 0.3, 1.004, 0.25)]
    ['twice as much', 'twice as much', '20% more', '3.5 times as much', 'half as much', \
'20% less', '0.3 times as much', '0.4% more', 'a quarter as much']
    >>> [factor_words(f) for f in (99.7, 100.0, 0.0101, 0.1)]
    ['100 times as much', '100 times as much', '0.01 times as much', 'a tenth as much']
    """
    if 1 < factor < 1.5:
        return f"{_percent_change(factor - 1)} more"
    if 2 / 3 < factor < 1:
        return f"{_percent_change(1 - factor)} less"
    shown = plain_number(factor)
    if shown in _NAMED_FACTORS:
        return f"{_NAMED_FACTORS[shown]} as much"
    if shown == "0.1":
        return "a tenth as much"
    return f"{shown} times as much"


def _percent_change(x: float) -> str:
    """A change of ``x`` (a share) in percent: two significant figures under 10%.

    >>> _percent_change(0.004), _percent_change(0.0761), _percent_change(0.2)
    ('0.4%', '7.6%', '20%')
    """
    return f"{plain_number(100 * x)}%" if x < 0.1 else f"{100 * x:.0f}%"


def change_sentence(change: WeightChange, names: Sequence[str]) -> str:
    """The nearer change of one weight that alters the pick, in words ("If latency mattered
    twice as much, mlp-8 would win."), or that no change within a factor of
    :data:`~tradeoff.choose.robustness.LIMIT` alters it; factors as :func:`factor_words`
    says them.

    Examples
    --------
    >>> names = ["mlp-8", "logreg"]
    >>> change_sentence(WeightChange(0, "memory", (99.7, 1), None), names)
    'If memory mattered 100 times as much, logreg would win.'
    >>> change_sentence(WeightChange(0, "latency", None, (1.0, 0)), names)
    'mlp-8 ties with the pick: if latency mattered the least bit less, mlp-8 would win.'
    >>> change_sentence(WeightChange(0, "memory", None, None), names)[:44]
    'No change in how much memory matters (from a'

    Over plausible measurements (:attr:`~tradeoff.choose.robustness.WeightChange.noisy`):

    >>> change_sentence(WeightChange(0, "memory", (2.0, 1), None, noisy=True), names)
    'If memory mattered twice as much, logreg would win (in half the plausible measurements).'

    A weight no answer informed is only the starting guess, and the sentence says so:

    >>> print(change_sentence(WeightChange(0, "memory", (2.0, 1), None, asked=False), names))
    ... # doctest: +NORMALIZE_WHITESPACE
    No question asked about memory, so its weight is only the starting guess: if memory
    mattered twice as much, logreg would win.
    """
    said = _change_sentence(change, names)
    if change.asked or change.nearest() is None:
        return said
    if said.startswith(("If ", "Any ", "No ")):  # not a model's name: its case is its own
        said = said[0].lower() + said[1:]
    return (
        f"No question asked about {change.aspect}, so its weight is only the starting guess: {said}"
    )


def _change_sentence(change: WeightChange, names: Sequence[str]) -> str:
    near = change.nearest()
    if near is None:
        return (
            f"No change in how much {change.aspect} matters (from a hundredth to "
            f"{plain_number(LIMIT)} times as much) alters the pick."
        )
    factor, winner = near
    if _in_doubt(change):
        return _doubt_sentence([change.aspect], [names[winner]])
    if change.noisy:
        return (
            f"If {change.aspect} mattered {factor_words(factor)}, {names[winner]} would win "
            "(in half the plausible measurements)."
        )
    if factor == 1.0:  # a tie with the pick: any change that way decides it
        way = "more" if near == change.more else "less"
        return (
            f"{names[winner]} ties with the pick: if {change.aspect} mattered the least bit "
            f"{way}, {names[winner]} would win."
        )
    return f"If {change.aspect} mattered {factor_words(factor)}, {names[winner]} would win."


def _in_doubt(change: WeightChange) -> bool:
    """Whether the pick is in doubt within measurement noise whatever this weight is."""
    near = change.nearest()
    if not change.noisy or near is None:
        return False
    factor, _ = near
    return factor == 1.0  # a tie after rounding (robustness.weight_change)


def _doubt_sentence(aspects: Sequence[str], winners: Sequence[str]) -> str:
    listed = ", ".join(aspects[:-1]) + f" or {aspects[-1]}" if len(aspects) > 1 else aspects[0]
    others = ", ".join(winners[:-1]) + f" or {winners[-1]}" if len(winners) > 1 else winners[0]
    return (
        f"Any change in how much {listed} matters may change the pick: within measurement "
        "noise it is already in doubt (in half the plausible measurements or more another "
        f"model, such as {others}, wins at these weights)."
    )


def change_lines(changes: Sequence[WeightChange], names: Sequence[str]) -> list[str]:
    """:func:`change_sentence` of each change, in their order, those that say the pick is
    already in doubt within measurement noise said once for all their aspects (where the
    first of them stood).

    >>> names = ["mlp-8", "logreg", "knn"]
    >>> doubt = [WeightChange(i, a, (1.0, 1 + i % 2), None, noisy=True)
    ...          for i, a in enumerate(["latency", "memory", "recall"])]
    >>> for line in change_lines([*doubt, WeightChange(3, "cost", (2.0, 1), None)], names):
    ...     print(line)  # doctest: +NORMALIZE_WHITESPACE
    Any change in how much latency, memory or recall matters may change the pick: within
    measurement noise it is already in doubt (in half the plausible measurements or more
    another model, such as logreg or knn, wins at these weights).
    If cost mattered twice as much, logreg would win.
    """
    doubt = [c for c in changes if _in_doubt(c)]
    if len(doubt) < 2:
        return [change_sentence(c, names) for c in changes]
    winners = list(dict.fromkeys(names[n[1]] for c in doubt if (n := c.nearest()) is not None))
    once = _doubt_sentence([c.aspect for c in doubt], winners)
    out = []
    for c in changes:
        if not _in_doubt(c):
            out.append(change_sentence(c, names))
        elif c is doubt[0]:
            out.append(once)
    return out


def change_sentences(
    changes: Sequence[WeightChange], names: Sequence[str], limit: int
) -> list[str]:
    """The ``limit`` weight changes closest to the present weights, in words."""
    near = nearest_changes(changes)
    if not near:
        return ["No change of one weight within a factor of 100 alters the pick."]
    said = dict.fromkeys(change_lines(near, names))  # each sentence once
    return list(said)[:limit]


def change_dict(change: WeightChange, names: Sequence[str]) -> dict[str, Any]:
    """:meth:`~tradeoff.choose.robustness.WeightChange.to_dict` with the sentence
    (:func:`change_sentence`).

    >>> change_dict(WeightChange(0, "memory", (2.0, 1), None), ["a", "b"])["sentence"]
    'If memory mattered twice as much, b would win.'
    """
    return {**change.to_dict(names), "sentence": change_sentence(change, names)}
