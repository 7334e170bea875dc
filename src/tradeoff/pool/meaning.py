"""What a pool's columns mean, and the one check of their values that readers and writers share.

A pool column measures something: a class's recall (a share in [0, 1]), a cost or a
reward in its natural unit. :class:`Meaning` says which values a column may hold, and
:func:`value_problems` finds the rows that break it: missing, NaN or infinite values, values
beyond ±:data:`~tradeoff.ask.scenario.MAX_MAGNITUDE` (where weights lose precision, and where
MLflow's stand-in for infinity, 1.8e308, lands) and values outside the meaning's bounds,
each a :class:`~tradeoff.errors.Problem` naming the row (its number and model name), the
column, the value and the fix. :func:`tradeoff.pool.load_pool` applies it to every
objective that carries a meaning (a scenario's pool columns do,
:func:`tradeoff.choose.pool_metric.metric_objectives`), and the pool writers apply it before writing
(:meth:`tradeoff.pool.Measured.write`), so no writer writes what no reader accepts.

Pool CSV files are written with every text cell through :func:`pool_cell`: a text a
spreadsheet would evaluate (``=HYPERLINK(…)``, ``+1+1``, ``@SUM(1)``, ``-x``) gets a leading
apostrophe, which spreadsheets show as text; :func:`read_cell` removes it again, so a name
reads back as the person wrote it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from tradeoff.ask.scenario import MAX_MAGNITUDE, AttributeSpec, ClassSpec
from tradeoff.errors import InputError, Problem
from tradeoff.text import clean_text, spreadsheet_cell

__all__ = [
    "MAX_PROBLEMS",
    "Meaning",
    "attribute_meaning",
    "check_frame",
    "class_meaning",
    "column_meaning",
    "pool_cell",
    "read_cell",
    "value_problems",
]

#: At most this many problems are listed in one error (the count of the rest is given).
MAX_PROBLEMS = 10


@dataclass(frozen=True)
class Meaning:
    """What a pool column measures and the values it may therefore hold.

    Parameters
    ----------
    what
        The quantity in words (``"the recall of benign lumps"``).
    low, high
        The smallest and largest value allowed (inclusive).
    fix
        How to fix a value outside them.
    """

    what: str
    low: float = -MAX_MAGNITUDE
    high: float = MAX_MAGNITUDE
    fix: str = "give a finite number."

    def allows(self, value: float) -> bool:
        """Whether ``value`` is finite and within the bounds (and ±MAX_MAGNITUDE).

        >>> class_meaning("x").allows(7.0), class_meaning("x").allows(0.93)
        (False, True)
        """
        return (
            math.isfinite(value) and abs(value) <= MAX_MAGNITUDE and self.low <= value <= self.high
        )


#: A column of no declared meaning: any finite number of sane size.
NUMBER = Meaning("a number")

RECALL_FIX = "give each recall as a share between 0 and 1 (0.93, not 93 or 93%)."


def class_meaning(label: str) -> Meaning:
    """A class's recall: a share in [0, 1].

    >>> class_meaning("benign lumps").what
    'the recall of benign lumps'
    """
    return Meaning(f"the recall of {label}", 0.0, 1.0, RECALL_FIX)


def attribute_meaning(spec: AttributeSpec | ClassSpec) -> Meaning:
    """What a scenario's class or attribute allows in its pool column: a class's recall
    in [0, 1]; a cost or reward finite, and not negative when the scenario's range for it
    starts at 0 or above (a latency, a price, a size cannot be negative; a scenario that
    means a signed quantity gives a range below 0).

    >>> from tradeoff.ask.scenario import AttributeSpec
    >>> m = attribute_meaning(AttributeSpec(name="latency", kind="cost", unit="ms",
    ...                                     range=(0.05, 15.0), label="per case"))
    >>> m.low, m.allows(-0.5)
    (0.0, False)
    """
    if isinstance(spec, ClassSpec):
        return class_meaning(spec.label)
    low, high = spec.range
    unit = f" {spec.unit}" if spec.unit else ""
    what = f"the {spec.kind} {spec.name!r}{f' ({spec.unit})' if spec.unit else ''}"
    if low >= 0:
        return Meaning(
            what,
            0.0,
            MAX_MAGNITUDE,
            f"give a value of 0{unit} or more (the scenario's range for {spec.name} is "
            f"[{low:g}, {high:g}]{unit}).",
        )
    return Meaning(what, fix=f"give a finite number of at most {MAX_MAGNITUDE:g}{unit}.")


def column_meaning(column: str) -> Meaning:
    """The meaning a column's name gives when no scenario does: ``recall_*`` and
    ``accuracy`` are shares in [0, 1] (the names :func:`tradeoff.pool.measure` writes);
    ``latency_ms`` and ``size_kb`` are not negative; anything else is a finite number.

    >>> column_meaning("recall_benign").high, column_meaning("latency_ms").low
    (1.0, 0.0)

    A column that gives another's uncertainty (:mod:`tradeoff.pool.uncertainty`) is a
    standard error ≥ 0 (``<column>_se``) or a count of cases ≥ 1 (``<column>_cases``):

    >>> column_meaning("recall_benign_se").low, column_meaning("recall_benign_cases").low
    (0.0, 1.0)
    """
    if column.endswith("_se"):
        return Meaning(
            f"the standard error in {column}", 0.0, MAX_MAGNITUDE, "give a value of 0 or more."
        )
    if column.endswith("_cases"):
        return Meaning(
            f"the count of cases in {column}", 1.0, MAX_MAGNITUDE, "give a whole number ≥ 1."
        )
    if column.startswith("recall_") or column == "recall":
        return class_meaning(f"column {column}")
    if column == "accuracy":
        return Meaning("the accuracy", 0.0, 1.0, "give the accuracy as a share in [0, 1].")
    if column in ("latency_ms", "size_kb"):
        return Meaning(f"the {column}", 0.0, MAX_MAGNITUDE, "give a value of 0 or more.")
    return NUMBER


def _shown(value: object) -> str:
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "infinite"
        return f"{value:.10g}"
    return repr(value) if value is not None else "missing"


def value_problems(
    column: str,
    values: Sequence[float] | np.ndarray,
    meaning: Meaning,
    names: Sequence[str],
    rows: Sequence[int],
) -> list[Problem]:
    """One :class:`~tradeoff.errors.Problem` per value of ``column`` that ``meaning`` does
    not allow, located by row number and model name.

    >>> [p.render() for p in value_problems("recall_benign", [0.9, 7.0],
    ...                                     class_meaning("benign lumps"), ["a", "b"], [1, 2])]
    ... # doctest: +NORMALIZE_WHITESPACE
    ["row 2 (model 'b'), column 'recall_benign': is 7; the recall of benign lumps must lie
    in [0, 1]. Fix: give each recall as a share between 0 and 1 (0.93, not 93 or 93%)."]
    """
    out = []
    array = np.asarray(values, dtype=np.float64)
    bad = ~(
        np.isfinite(array)
        & (np.abs(array) <= MAX_MAGNITUDE)
        & (array >= meaning.low)
        & (array <= meaning.high)
    )
    for i in np.flatnonzero(bad).tolist():
        value = float(array[i])
        if math.isfinite(value) and abs(value) > MAX_MAGNITUDE:
            problem = (
                f"is {value:g}, beyond ±{MAX_MAGNITUDE:g} (an overflow, or infinity stored "
                "as the largest number)"
            )
        elif math.isfinite(value):
            problem = f"is {value:.10g}; {meaning.what} must lie in {_bounds(meaning)}"
        else:
            problem = f"is {_shown(value)}; {meaning.what} must be a finite number"
        out.append(
            Problem(
                f"row {rows[i]} (model {clean_text(names[i])!r}), column {column!r}",
                problem + ".",
                meaning.fix,
            )
        )
    return out


def _bounds(meaning: Meaning) -> str:
    if meaning.high >= MAX_MAGNITUDE and meaning.low <= -MAX_MAGNITUDE:
        return f"±{MAX_MAGNITUDE:g}"
    if meaning.high >= MAX_MAGNITUDE:
        return f"[{meaning.low:g}, ∞) (it cannot be below {meaning.low:g})"
    return f"[{meaning.low:g}, {meaning.high:g}]"


def capped(problems: Sequence[Problem]) -> list[Problem]:
    """The first :data:`MAX_PROBLEMS` problems, and a last one counting the rest."""
    if len(problems) <= MAX_PROBLEMS:
        return list(problems)
    rest = len(problems) - MAX_PROBLEMS
    return [*problems[:MAX_PROBLEMS], Problem("", f"… and {rest} more problems like these.")]


def check_frame(
    source: str, frame: pd.DataFrame, meanings: Mapping[str, Meaning], name_column: str = "model"
) -> None:
    """Refuse a pool table a reader would refuse: a value a column's meaning does not allow
    (:func:`value_problems`), a missing or repeated model name, or fewer than 2 models.
    This is the check every pool writer makes before writing.

    Raises
    ------
    InputError
        Naming ``source``, and for each problem the row, model, column and value.
    """
    if len(frame) < 2:
        raise InputError.single(
            source,
            "",
            f"holds {len(frame)} model(s); a pool needs at least 2.",
            "add models, or leave out fewer.",
        )
    rows = list(range(1, len(frame) + 1))
    names = [str(n) for n in frame[name_column].tolist()]
    problems: list[Problem] = []
    first: dict[str, int] = {}
    for row, name in zip(rows, names, strict=True):
        if name in first:
            problems.append(
                Problem(
                    f"rows {first[name]} and {row}, column {name_column!r}",
                    f"the model name {clean_text(name)!r} appears twice.",
                    "give every model its own name.",
                )
            )
        first.setdefault(name, row)
    for column, meaning in meanings.items():
        if column in frame.columns:
            values = pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=np.float64)
            problems += value_problems(column, values, meaning, names, rows)
    if problems:
        raise InputError.many(source, capped(problems))


_ESCAPED = re.compile(r"'+[=+\-@]")
_QUOTED = re.compile(r"^'(?='*[=+\-@])")


def pool_cell(text: str) -> str:
    """A text cell of a pool CSV: :func:`tradeoff.text.spreadsheet_cell` of ``text`` (a
    text a spreadsheet would evaluate gets a leading apostrophe; control characters become
    ``?``), with a text that already starts with apostrophes before a formula character
    given one more, so that :func:`read_cell` gives every text back.

    >>> pool_cell("=HYPERLINK(1)"), pool_cell("'=x"), pool_cell("logreg")
    ("'=HYPERLINK(1)", "''=x", 'logreg')
    """
    cleaned = clean_text(text)
    return spreadsheet_cell("'" + cleaned if _ESCAPED.match(cleaned) else cleaned)


def read_cell(text: str) -> str:
    """A text cell of a pool CSV as it was meant: a leading apostrophe before a formula
    character (``'=x``, ``'+1``, ``'-a``, ``'@b``, as spreadsheets and :func:`pool_cell`
    write them) is removed; every other text is unchanged.

    >>> read_cell("'=HYPERLINK(1)"), read_cell("''=x"), read_cell("'tis"), read_cell("a")
    ('=HYPERLINK(1)', "'=x", "'tis", 'a')
    """
    return _QUOTED.sub("", text, count=1) if text[:1] == "'" else text
