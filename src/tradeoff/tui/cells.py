"""The cells of the app's ranking tables: COPA's ranking as the ranking details show it,
each model's score marked ``=`` where it ties (:func:`copa_rows`); each candidate's chance to
be the best is said by :func:`tradeoff.choose.chances.chance_cells`."""

from __future__ import annotations

from collections.abc import Sequence

from tradeoff.choose import copa
from tradeoff.choose.rank import ModelRow

__all__ = ["COPA_ORDER", "copa_rows"]

#: How COPA's ranking is ordered, in the words ``tradeoff pool rank`` uses
#: (:func:`tradeoff.choose.words.order_words`), short enough for the caption.
COPA_ORDER = "Best first: a lower score is better; = marks scores that tie."


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
