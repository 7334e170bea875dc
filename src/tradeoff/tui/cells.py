"""The cells of the app's ranking tables: each candidate's chance to be the best, said as
parts of one whole (:func:`chance_cells`), and COPA's ranking as the ranking details show
it, each model's score marked ``=`` where it ties (:func:`copa_rows`)."""

from __future__ import annotations

from collections.abc import Sequence

from tradeoff.choose import copa
from tradeoff.choose.rank import ModelRow
from tradeoff.stable import whole_percents
from tradeoff.text import probability_words

__all__ = ["COPA_ORDER", "chance_cells", "copa_rows"]

#: How COPA's ranking is ordered, in the words ``tradeoff pool rank`` uses
#: (:func:`tradeoff.choose.words.order_words`), short enough for the caption.
COPA_ORDER = "Best first: a lower score is better; = marks scores that tie."


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


def copa_rows(ranked: Sequence[ModelRow], columns: Sequence[str]) -> list[tuple[str, list[str]]]:
    """COPA's ranking as rows of the ranking details' table: each model's name, its score
    (marked ``=`` where it ties the one before or after it, as ``tradeoff pool rank``
    marks it: :func:`tradeoff.choose.copa.tied`), its top-% on each of ``columns`` and
    whether it is Pareto-optimal."""
    ties = copa.tied([r.score for r in ranked])
    return [
        (
            r.name,
            [
                f"{r.score:.4f}{'=' if tie else ''}",
                *(f"top-{copa.top_percent(r.u[c])}%" for c in columns),
                "yes" if r.pareto else "",
            ],
        )
        for r, tie in zip(ranked, ties, strict=True)
    ]
