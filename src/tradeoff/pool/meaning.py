"""What a pool's columns mean, and the one check of their values that readers and writers share.

A pool column measures something: a class's recall (a share in [0, 1]), a cost or a
reward in its natural unit. :class:`Meaning` says which values a column may hold, and
:func:`value_problems` finds the rows that break it: missing, NaN or infinite values, values
beyond ±:data:`~tradeoff.ask.scenario.MAX_MAGNITUDE` (where weights lose precision, and where
MLflow's stand-in for infinity, 1.8e308, lands), values outside the meaning's bounds and,
for a count, values that are not whole numbers, each a :class:`~tradeoff.errors.Problem`
naming the row (its line in a CSV file, else its number; and its model name), the column,
the value and the fix. A yes/no value (``True``) is no measurement: :func:`boolean_problems`
refuses it in every column that has a meaning, and :func:`name_problems` refuses a missing
or empty model name.
:func:`tradeoff.pool.load_pool` applies them to every objective that carries a meaning (a
scenario's pool columns do, :func:`tradeoff.choose.pool_metric.metric_objectives`), and the
pool writers apply them before writing (:meth:`tradeoff.pool.Measured.write`), so no writer
writes what no reader accepts.

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
from pathlib import Path

import numpy as np
import pandas as pd

from tradeoff.ask.scenario import MAX_MAGNITUDE, AttributeSpec, ClassSpec
from tradeoff.errors import InputError, Problem
from tradeoff.pool.table import NO_LINES, RowPlaces
from tradeoff.text import clean_text, count, cut, spreadsheet_cell

__all__ = [
    "CASES",
    "MAX_CASES",
    "MAX_PROBLEMS",
    "SE",
    "Meaning",
    "allowed",
    "attribute_meaning",
    "boolean_problems",
    "check_frame",
    "class_meaning",
    "column_meaning",
    "empty_name",
    "frame_meanings",
    "name_problems",
    "pool_cell",
    "read_cell",
    "row_number",
    "shown_cell",
    "value_problems",
    "whole_cell",
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
    whole
        Whether only whole numbers are allowed (a count).
    """

    what: str
    low: float = -MAX_MAGNITUDE
    high: float = MAX_MAGNITUDE
    fix: str = "give a finite number."
    whole: bool = False

    def allows(self, value: float) -> bool:
        """Whether ``value`` is finite, within the bounds (and ±MAX_MAGNITUDE) and, for a
        count, whole.

        >>> class_meaning("x").allows(7.0), class_meaning("x").allows(0.93)
        (False, True)
        >>> CASES.allows(300.0), CASES.allows(300.5), CASES.allows(1e40)
        (True, False, False)
        """
        return bool(allowed(np.array([value], dtype=np.float64), self)[0])


#: A column of no declared meaning: any finite number of sane size.
NUMBER = Meaning("a number")

RECALL_FIX = "give each recall as a share between 0 and 1 (0.93, not 93 or 93%)."

#: The most cases a share may be said to be measured on (``<column>_cases``): a billion.
#: No test set is larger, and the Beta posterior of a count far beyond it takes seconds per
#: plausible value to invert (10⁴⁰ cases held ``select`` for minutes).
MAX_CASES = 1_000_000_000

#: A count of cases (``<column>_cases``; :mod:`tradeoff.pool.uncertainty`).
CASES = Meaning(
    "a count of cases",
    1.0,
    float(MAX_CASES),
    f"give the number of cases the value was measured on, a whole number from 1 to {MAX_CASES:,}.",
    whole=True,
)
#: A standard error (``<column>_se``; :mod:`tradeoff.pool.uncertainty`).
SE = Meaning(
    "a standard error",
    0.0,
    MAX_MAGNITUDE,
    "give the standard error as a finite number of 0 or more (0: measured exactly), in the "
    "column's own units.",
)


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

    >>> column_meaning("recall_benign_se").low, column_meaning("recall_benign_cases").high
    (0.0, 1000000000.0)

    The columns that tie a row to its trial or version (``optuna_trial``,
    ``mlflow_version``) are whole numbers.
    """
    if column.endswith("_se"):
        return Meaning(f"the standard error in {column}", SE.low, SE.high, SE.fix)
    if column.endswith("_cases"):
        return Meaning(f"the count of cases in {column}", CASES.low, CASES.high, CASES.fix, True)
    if column == "optuna_trial":
        return Meaning(
            "an Optuna trial's number",
            0.0,
            MAX_MAGNITUDE,
            "give the number of the trial the row was read from (a whole number ≥ 0), as "
            "tradeoff pool from-optuna writes it.",
            whole=True,
        )
    if column == "mlflow_version":
        return Meaning(
            "a registered model's version",
            1.0,
            MAX_MAGNITUDE,
            "give the version the row was read from (a whole number ≥ 1), as tradeoff "
            "pool from-mlflow writes it.",
            whole=True,
        )
    if column.startswith("recall_"):
        return class_meaning(f"{column.removeprefix('recall_')} (column {column})")
    if column == "recall":
        return class_meaning(f"column {column}")
    if column == "accuracy":
        return Meaning("the accuracy", 0.0, 1.0, "give the accuracy as a share in [0, 1].")
    if column in ("latency_ms", "size_kb"):
        return Meaning(f"the {column}", 0.0, MAX_MAGNITUDE, "give a value of 0 or more.")
    return NUMBER


def _shown(value: object) -> str:
    if isinstance(value, np.generic):
        value = value.item()
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
    places: RowPlaces = NO_LINES,
) -> list[Problem]:
    """One :class:`~tradeoff.errors.Problem` per value of ``column`` that ``meaning`` does
    not allow, located by row (its line in a CSV file: ``places``) and model name.

    >>> [p.render() for p in value_problems("recall_benign", [0.9, 7.0],
    ...                                     class_meaning("benign lumps"), ["a", "b"], [1, 2])]
    ... # doctest: +NORMALIZE_WHITESPACE
    ["row 2 (model 'b'), column 'recall_benign': is 7; the recall of benign lumps must lie
    in [0, 1]. Fix: give each recall as a share between 0 and 1 (0.93, not 93 or 93%)."]
    """
    out = []
    array = np.asarray(values, dtype=np.float64)
    bad = ~allowed(array, meaning)
    for i in np.flatnonzero(bad).tolist():
        value = float(array[i])
        if math.isfinite(value) and abs(value) > MAX_MAGNITUDE:
            problem = (
                f"is {value:g}, beyond ±{MAX_MAGNITUDE:g} (an overflow, or infinity stored "
                "as the largest number)"
            )
        elif math.isfinite(value) and meaning.whole:
            problem = (
                f"is {value:.10g}; {meaning.what} must be a whole number in {_bounds(meaning)}"
            )
        elif math.isfinite(value):
            problem = f"is {value:.10g}; {meaning.what} must lie in {_bounds(meaning)}"
        else:
            problem = f"is {_shown(value)}; {meaning.what} must be a finite number"
        out.append(
            Problem(
                f"{places.named(rows[i], names[i])}, column {column!r}",
                problem + ".",
                meaning.fix,
            )
        )
    return out


def allowed(values: np.ndarray, meaning: Meaning) -> np.ndarray:
    """Which of ``values`` (float64) ``meaning`` allows: finite, within ±MAX_MAGNITUDE and
    its bounds, and whole for a count.

    >>> allowed(np.array([0.5, 1.5, np.nan]), class_meaning("x")).tolist()
    [True, False, False]
    """
    array = np.asarray(values, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        ok = (
            np.isfinite(array)
            & (np.abs(array) <= MAX_MAGNITUDE)
            & (array >= meaning.low)
            & (array <= meaning.high)
        )
        if meaning.whole:
            ok &= np.floor(np.where(ok, array, 0.0)) == np.where(ok, array, 0.0)
    result: np.ndarray = ok
    return result


def shown_cell(value: object) -> str:
    """A cell's value as a message shows it.

    >>> shown_cell(np.float64(2.5)), shown_cell(np.True_), shown_cell(float("nan"))
    ('2.5', 'True', 'NaN')
    >>> shown_cell("0.91 (measured on the held-out fold, seed 1337)")  # cut, and says so
    "'0.91 (measured on the held-out fold, s…"
    """
    return cut(clean_text(_shown(value)), 40)


def whole_cell(value: object, meaning: Meaning) -> int | None:
    """A pool cell that ties a row to its source (a trial's number, a model's version) as
    the whole number ``meaning`` allows, or ``None`` (a yes/no value, text, a fraction, a
    number out of its bounds).

    >>> m = column_meaning("optuna_trial")
    >>> whole_cell(7.0, m), whole_cell(True, m), whole_cell(2.5, m), whole_cell(1e40, m)
    (7, None, None, None)
    """
    if _is_boolean(value) or not isinstance(value, int | float | np.integer | np.floating):
        return None
    number = float(value)
    return int(number) if meaning.allows(number) else None


def row_number(row: Mapping[str, object], column: str, source: str | Path) -> int:
    """The whole number in ``column`` of a pool ``row`` that ties it to its source (an
    Optuna trial, an MLflow version: :func:`column_meaning`), or an
    :class:`~tradeoff.errors.InputError` naming ``source``, the row's model, the column,
    the value, the range and the fix (nothing is written on such a row).

    >>> row_number({"model": "a", "optuna_trial": 7.0}, "optuna_trial", "pool.csv")
    7
    >>> print(InputError.message(_row_number_error({"model": "a", "optuna_trial": True},
    ...       "optuna_trial", "pool.csv")))  # doctest: +ELLIPSIS
    pool.csv: row of model 'a', column 'optuna_trial': is True; an Optuna trial's number ...
    """
    meaning = column_meaning(column)
    number = whole_cell(row.get(column), meaning)
    if number is None:
        raise _row_number_error(row, column, source)
    return number


def _row_number_error(row: Mapping[str, object], column: str, source: str | Path) -> InputError:
    meaning = column_meaning(column)
    return InputError.single(
        source,
        f"row of model {clean_text(str(row.get('model')))!r}, column {column!r}",
        f"is {shown_cell(row.get(column))}; {meaning.what} must be a whole number in "
        f"[{meaning.low:g}, {meaning.high:g}]; nothing was written.",
        meaning.fix,
    )


def _is_boolean(value: object) -> bool:
    return isinstance(value, bool | np.bool_)


def boolean_problems(
    column: str,
    raw: pd.Series,
    meaning: Meaning,
    names: Sequence[str],
    rows: Sequence[int],
    places: RowPlaces = NO_LINES,
) -> list[Problem]:
    """One :class:`~tradeoff.errors.Problem` per yes/no cell (``True``, ``False``) of
    ``raw``, the column as read: a measurement is a number, and a yes/no value would
    otherwise be taken as 1 or 0 (a count of ``True`` cases is one case). Rows are located
    as in :func:`value_problems`.

    >>> [p.render() for p in boolean_problems("recall_b_cases", pd.Series([300, True],
    ...     dtype=object), CASES, ["a", "b"], [1, 2])]  # doctest: +NORMALIZE_WHITESPACE
    ["row 2 (model 'b'), column 'recall_b_cases': is True, a yes/no value; a count of
    cases is a number. Fix: give the number of cases the value was measured on, a whole
    number from 1 to 1,000,000,000."]
    """
    dtype = raw.dtype
    if pd.api.types.is_bool_dtype(dtype):
        flags = raw.notna().to_numpy(dtype=bool)
    elif pd.api.types.is_object_dtype(dtype):
        flags = np.fromiter((_is_boolean(v) for v in raw.tolist()), dtype=bool, count=len(raw))
    else:
        return []
    return [
        Problem(
            f"{places.named(rows[i], names[i])}, column {column!r}",
            f"is {bool(raw.iloc[i])}, a yes/no value; {meaning.what} is a number.",
            meaning.fix,
        )
        for i in np.flatnonzero(flags).tolist()
    ]


def empty_name(value: object) -> bool:
    """Whether a model name is missing or empty (None, NaN, a blank or spaces only).

    >>> empty_name(""), empty_name("  "), empty_name(float("nan")), empty_name("a")
    (True, True, True, False)
    """
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    if isinstance(value, float | np.floating) and math.isnan(value):
        return True
    return not str(value).strip()


def name_problems(
    values: Sequence[object], rows: Sequence[int], column: str, places: RowPlaces = NO_LINES
) -> list[Problem]:
    """One :class:`~tradeoff.errors.Problem` per missing or empty model name (a blank
    cell, spaces only, NaN or None): a model the person cannot tell apart, and which no
    report could name. Rows are located as in :func:`value_problems`.

    >>> [p.render() for p in name_problems(["a", "", None], [1, 2, 3], "model")]
    ... # doctest: +NORMALIZE_WHITESPACE
    ["row 2, column 'model': the model name is empty. Fix: give every model a name.",
     "row 3, column 'model': the model name is empty. Fix: give every model a name."]
    """
    return [
        Problem(f"{places.one(row)}, column {column!r}", "the model name is empty.", NAME_FIX)
        for row, value in zip(rows, values, strict=True)
        if empty_name(value)
    ]


NAME_FIX = "give every model a name."


def _bounds(meaning: Meaning) -> str:
    if meaning.whole and meaning.high < MAX_MAGNITUDE:
        return f"[{meaning.low:,.0f}, {meaning.high:,.0f}]"
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
    more = Problem("", f"… and {rest} more problems like these.", stands_for=rest)
    return [*problems[:MAX_PROBLEMS], more]


def frame_meanings(
    frame: pd.DataFrame, given: Mapping[str, Meaning] | None = None
) -> dict[str, Meaning]:
    """What each column of a pool table means: ``given``, else what its name says
    (:func:`column_meaning`) for every numeric column and every column whose name gives a
    meaning (a count, a recall: whatever its cells hold), the ``model`` column aside.

    >>> table = pd.DataFrame({"model": ["a"], "recall_a_cases": ["x"], "note": ["y"]})
    >>> list(frame_meanings(table))
    ['recall_a_cases']
    """
    meanings = dict(given or {})
    for column in frame.columns:
        meaning = column_meaning(str(column))
        if column != "model" and (
            meaning != NUMBER or pd.api.types.is_numeric_dtype(frame[column])
        ):
            meanings.setdefault(str(column), meaning)
    return meanings


def check_frame(
    source: str, frame: pd.DataFrame, meanings: Mapping[str, Meaning], name_column: str = "model"
) -> None:
    """Refuse a pool table a reader would refuse: a value a column's meaning does not allow
    (:func:`value_problems`; a yes/no value in a column that has a meaning,
    :func:`boolean_problems`), a missing, empty or repeated model name, or fewer than 2
    models.
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
            f"holds {count(len(frame), 'model')}; a pool needs at least 2.",
            "add models, or leave out fewer.",
        )
    rows = list(range(1, len(frame) + 1))
    raw_names = frame[name_column].tolist()
    names = ["" if empty_name(n) else str(n) for n in raw_names]
    problems = name_problems(raw_names, rows, name_column)
    first: dict[str, int] = {}
    for row, name in zip(rows, names, strict=True):
        if not name:
            continue
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
            if meaning != NUMBER:
                problems += boolean_problems(column, frame[column], meaning, names, rows)
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
