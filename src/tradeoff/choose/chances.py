"""A list of chances as a person reads it: parts of one whole that add up to 100%
(:func:`chance_cells`), for the app's tables, the ranking details and ``pick``'s list of how
likely each candidate is the best. It imports only the words and the numbers' rules, so a
participant's process (the app's result screen) reads it without pandas or scipy."""

from __future__ import annotations

from collections.abc import Sequence

from tradeoff.stable import whole_percents
from tradeoff.text import probability_words

__all__ = ["chance_cells"]


def chance_cells(chances: Sequence[float]) -> tuple[str, ...]:
    """Every candidate's chance to be the best, as parts of one whole: whole percentages
    by the largest remainder (:func:`~tradeoff.stable.whole_percents`), so the list adds up
    to 100%. "Over 99%" and "under 1%" stay as :func:`~tradeoff.text.probability_words`
    says them, and a chance above 0 never reads "0%".

    >>> [round(100 * p) for p in (0.335, 0.335, 0.33)]  # each rounded alone: 101 in all
    [34, 34, 33]
    >>> chance_cells([0.335, 0.335, 0.33])
    ('34%', '33%', '33%')
    >>> chance_cells([0.996, 0.004, 0.0])
    ('over 99%', 'under 1%', '0%')
    >>> chance_cells([0.496, 0.496, 0.002, 0.006])  # 0.6% gets no unit left: not "0%"
    ('50%', '50%', 'under 1%', 'under 1%')
    """
    cells = []
    for p, part in zip(chances, whole_percents(chances), strict=True):
        if part is None or not 0.005 <= p < 0.995:
            cells.append(probability_words(p))
        elif part == "0%":
            cells.append(probability_words(p, whole="under 1%%"))
        else:
            cells.append(part)
    return tuple(cells)
