"""Candidate pools: one row per model, named objective columns with a direction.

:func:`load_pool` reads a CSV or Parquet file with pandas, optionally restricts the
population with a condition (``where``, see :mod:`tradeoff.pool.expr`), and validates every
objective column: the file must exist, the columns must exist and be numeric, NaN and ±inf
are refused (or their rows dropped on request), a value its objective's meaning does not
allow (a recall outside [0, 1], a negative latency, a yes/no value;
:mod:`tradeoff.pool.meaning`) is refused naming the row, model, column and value, model
names must be given (not empty) and unique, and at least two models must remain. In a CSV
file a model name that starts with an apostrophe before a formula character (``'=x``, as
spreadsheets and the pool writers mark a text that would otherwise be evaluated) is read
without it.
A constant objective only warns, since it carries no information. Every mistake is an
:class:`~tradeoff.errors.InputError` naming the file, the rows and the column.

Rows are named where a person finds them: in a CSV file by their line, the header being
line 1 ("line 18": the 17th model of a file without blank lines), in a Parquet file or a
table given in memory by their number below the header ("row 17";
:class:`~tradeoff.pool.table.RowPlaces`).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from tradeoff.arrays import FloatArray
from tradeoff.errors import InputError, Problem
from tradeoff.pool.expr import CONDITION_HELP, ExpressionError, parse_condition
from tradeoff.pool.meaning import (
    Meaning,
    boolean_problems,
    capped,
    name_problems,
    read_cell,
    value_problems,
)
from tradeoff.pool.table import NO_LINES, read_pool_table, read_table
from tradeoff.pool.uncertainty import Uncertainty, read_uncertainty
from tradeoff.text import clean_text, clean_texts, count

if TYPE_CHECKING:
    from tradeoff.ranks import Ranks

Direction = Literal["min", "max"]


@dataclass(frozen=True)
class Objective:
    """A pool column and whether lower (``min``) or higher (``max``) is better, and
    optionally what it measures (its :class:`~tradeoff.pool.meaning.Meaning`, which bounds
    the values :func:`load_pool` accepts).

    >>> Objective("co2_kg", "min", label="CO2 (kg)").shown, Objective("acc", "max").shown
    ('CO2 (kg)', 'acc')
    """

    column: str
    direction: Direction
    meaning: Meaning | None = field(default=None, compare=False, repr=False)
    #: What people reading about the pool call the column (a scenario's aspect and unit,
    #: ``"CO2 (kg)"``), or ``None``: the column's own name.
    label: str | None = field(default=None, compare=False, repr=False)

    #: The column as people read it: its label, else its name (a plain value, fixed when
    #: the objective is made).
    shown: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "shown", self.label or self.column)

    @classmethod
    def parse(cls, text: str) -> Objective:
        """Parse ``"COL:min"`` or ``"COL:max"`` (the column name may itself contain ':').

        >>> Objective.parse("CO₂ cost (kg):min")
        Objective(column='CO₂ cost (kg)', direction='min')
        """
        column, sep, direction = text.rpartition(":")
        if not sep or not column or direction not in ("min", "max"):
            raise ValueError(f"an objective looks like COL:min or COL:max, got {text!r}")
        return cls(column, "min" if direction == "min" else "max")


@dataclass(frozen=True)
class Pool:
    """A validated pool: model names, raw objective values and the full table.

    Parameters
    ----------
    source
        The file it came from.
    names
        One name per model (row order as in the file, after ``where``/drops).
    objectives
        The objective columns, in the order given.
    values
        Raw values, shape (models, objectives), float64, all finite.
    frame
        The remaining table (every column), for constraints and reports.
    rows
        The file's data-row number (1-based) of each model.
    warnings
        Things worth knowing that are not errors (e.g. a constant objective).
    uncertainty
        The standard errors and case counts of the values, when the file gives them
        (``<column>_se``, ``<column>_cases``; :mod:`tradeoff.pool.uncertainty`).
    """

    source: str
    names: tuple[str, ...]
    objectives: tuple[Objective, ...]
    values: FloatArray
    frame: pd.DataFrame = field(repr=False)
    rows: NDArray[np.int64] = field(repr=False)
    warnings: tuple[str, ...] = ()
    #: How exactly each value was measured (:mod:`tradeoff.pool.uncertainty`), or
    #: ``None``: every value is taken as exact.
    uncertainty: Uncertainty | None = field(default=None, repr=False, compare=False)
    #: The number of models, and the objective columns in order: fixed when the pool is
    #: made (plain values, read by every stage that uses the pool).
    n: int = field(init=False, repr=False, compare=False)
    columns: tuple[str, ...] = field(init=False, repr=False, compare=False)
    #: Each objective column's name as people read it (:attr:`Objective.shown`).
    labels: dict[str, str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "n", len(self.names))
        object.__setattr__(self, "columns", tuple(o.column for o in self.objectives))
        object.__setattr__(self, "labels", {o.column: o.shown for o in self.objectives})

    @property
    def maximise(self) -> NDArray[np.bool_]:
        return np.array([o.direction == "max" for o in self.objectives])

    def minimisation(self) -> FloatArray:
        """Values turned into objectives to minimise (maximised columns negated; computed
        once per pool, read-only)."""
        return self._minimised

    @cached_property
    def _minimised(self) -> FloatArray:
        out: FloatArray = np.where(self.maximise, -self.values, self.values)
        out.setflags(write=False)
        return out

    @cached_property
    def ranks(self) -> Ranks:
        """COPA's û on demand: the minimised columns sorted once (computed once per pool)."""
        from tradeoff.ranks import Ranks

        return Ranks(self.minimisation())

    @property
    def rank_cdf(self) -> FloatArray:
        """COPA's û of every model and objective (computed once per pool; read-only)."""
        return self.ranks.all()

    def mask(self, expressions: Sequence[str]) -> NDArray[np.bool_]:
        """Rows satisfying every condition (e.g. ``"EO <= 0.02"``; see
        :mod:`tradeoff.pool.expr`)."""
        keep = np.ones(self.n, dtype=bool)
        for expr in expressions:
            keep &= condition_mask(self.source, self.frame, expr, "constraint")
        return keep


def condition_mask(source: str, frame: pd.DataFrame, text: str, what: str) -> NDArray[np.bool_]:
    """Rows of ``frame`` meeting the condition ``text``, or an InputError naming ``what``.

    The condition is parsed against the allow-list of :mod:`tradeoff.pool.expr` before anything
    is evaluated, so nothing but the table's columns can be reached.
    """
    try:
        return parse_condition(text, frame.columns).evaluate(frame)
    except ExpressionError as exc:
        raise InputError.single(
            source, f"{what} {clean_text(text)!r}", f"refused: {exc.problem}.", _fix(exc)
        ) from None


def _fix(exc: ExpressionError) -> str:
    at = f"look at character {exc.position + 1}; " if exc.position is not None else ""
    return at + CONDITION_HELP


def _values(n: int, what: str, many: str | None = None) -> str:
    """What ``n`` values are: "1 value is missing", "3 values are not numbers"."""
    return f"{count(n, 'value')} {'is ' + what if n == 1 else 'are ' + (many or what)}"


def _check_columns(
    source: str, frame: pd.DataFrame, wanted: Sequence[str], what: str, scenario: bool = False
) -> None:
    """Every column of ``wanted`` is in ``frame``, else the problems and their fixes.
    ``scenario``: a scenario names the columns (a slip is then the file's, to be renamed),
    not the person at the command line (a slip is then theirs: "did you mean")."""
    problems = []
    names = [str(c) for c in frame.columns]
    noise = ("_se", "_cases")  # a recall's uncertainty is never the recall
    missing = [c for c in wanted if c not in frame.columns and c.startswith("recall_")]
    others = [
        n for n in names if n.startswith("recall_") and not n.endswith(noise) and n not in wanted
    ]
    shown = ", ".join(repr(n) for n in names[:12]) + (", …" if len(names) > 12 else "")
    none = not any(c in frame.columns for c in wanted)
    if none and ((missing and others) or (scenario and len(wanted) > 1)):
        # Not one of them, and recalls of other classes (or a scenario's columns): the
        # pool of another scenario.
        asked = "columns its scenario needs" if scenario else f"{what}s asked for"
        raise InputError.single(
            source,
            "columns",
            f"holds none of the {asked} ({', '.join(wanted)}); its columns are {shown}.",
            "this looks like the pool of another scenario: give the pool made for this one "
            "(for sessions, the scenario they were recorded on).",
        )
    for col in wanted:
        if col not in frame.columns:
            near = names if col.endswith(noise) else [n for n in names if not n.endswith(noise)]
            near = [n for n in near if n not in wanted]  # another objective's is never this one
            typo = difflib.get_close_matches(col, near, n=1, cutoff=0.8)
            close = difflib.get_close_matches(col, near, n=1, cutoff=0.5)
            close += [n for n in near if n and (n in col or col in n)][:1]
            if typo and scenario:  # the file's slip: the scenario names the column
                fix = f"rename the file's column {typo[0]!r} to {col!r}."
            elif typo:  # a slip of the keyboard, not another class
                fix = f"did you mean {typo[0]!r}?"
            elif col in missing and len(others) == len(missing):  # classes named otherwise
                fix = (
                    f"the file's recalls are {', '.join(others)}: its classes are named "
                    f"otherwise than the scenario's ({', '.join(missing)}). Rename those "
                    "columns to the scenario's names (which is which is yours to say), or "
                    "measure the pool with a target column that holds the scenario's class "
                    "names."
                )
            elif close and scenario:
                fix = f"if the file's column {close[0]!r} holds it, rename it to {col!r}."
            elif close:
                fix = f"did you mean {close[0]!r}?"
            else:
                fix = f"the columns are {shown}."
            said = "not found in the file; the scenario needs it."
            problems.append(
                Problem(
                    f"column {col!r}", said if scenario else f"{what} not found in the file.", fix
                )
            )
    if problems:
        raise InputError.many(source, problems)


def load_pool(
    path: str | Path,
    objectives: Sequence[Objective],
    *,
    name_column: str | None = None,
    where: str | None = None,
    drop_missing: bool = False,
    frame: pd.DataFrame | None = None,
    unique_names: bool = True,
    uncertainty: Mapping[str, str] | None = None,
    scenario: bool = False,
) -> Pool:
    """Load and validate a candidate pool.

    Parameters
    ----------
    path
        CSV or Parquet file (or only a label, when ``frame`` is given).
    objectives
        The objective columns and their directions.
    name_column
        Column with model names; default: the first of ``model``, ``name``, ``fullname``,
        else the row number.
    where
        A condition selecting the population (e.g. ``"`Available on the hub` == True"``),
        parsed against the allow-list of :mod:`tradeoff.pool.expr`.
    drop_missing
        Drop rows with NaN or ±inf in an objective instead of refusing them.
    frame
        An already loaded table (``path`` is then only used in messages).
    unique_names
        Refuse repeated model names (off for tables with several rows per model, such as
        one row per system and seed).
    uncertainty
        Further columns that give an objective's uncertainty, each mapped to its objective
        column (a name ending in ``_cases`` counts cases, any other is a standard error);
        ``<column>_se`` and ``<column>_cases`` are read without being named
        (:func:`tradeoff.pool.uncertainty.read_uncertainty`).
    scenario
        The objectives are a scenario's (:func:`tradeoff.choose.pool_metric.metric_objectives`):
        a column missing from the file is the file's to rename, not a slip at the command
        line.

    Raises
    ------
    InputError
        For every problem listed in the module docstring.
    """
    source = str(path)
    if not objectives:
        raise InputError.single(
            source,
            "",
            "no objective given.",
            "name at least one objective column and its direction.",
        )
    table, places = read_pool_table(path) if frame is None else (frame, NO_LINES)
    table = table.reset_index(drop=True)
    table.index = pd.RangeIndex(1, len(table) + 1)
    cols = [o.column for o in objectives]
    if len(set(cols)) != len(cols):
        raise InputError.single(
            source, "objectives", "the same column is given twice.", "list each column once."
        )
    _check_columns(source, table, cols, "objective column", scenario)
    if name_column is None:
        name_column = next((c for c in ("model", "name", "fullname") if c in table.columns), None)
    elif name_column not in table.columns:
        _check_columns(source, table, [name_column], "name column")
    if where:
        table = table[condition_mask(source, table, where, "where condition")]
    problems: list[Problem] = []
    numeric = {}
    for col in cols:
        values = pd.to_numeric(table[col], errors="coerce")
        bad = values.isna() & table[col].notna()
        if bad.any():
            rows = list(table.index[bad])
            problems.append(
                Problem(
                    f"column {col!r}, {places.many(rows)}",
                    f"{_values(len(rows), 'not a number', 'not numbers')} (e.g. "
                    f"{table[col][bad].iloc[0]!r}).",
                    "make every value in an objective column a number.",
                )
            )
        numeric[col] = values.astype(np.float64)
    if problems:
        raise InputError.many(source, problems)
    arr = np.column_stack([numeric[c].to_numpy() for c in cols]) if cols else np.empty((0, 0))
    missing = ~np.isfinite(arr)
    if missing.any():
        if drop_missing:
            keep = ~missing.any(axis=1)
            table, arr = table.iloc[np.flatnonzero(keep)], arr[keep]
        else:
            for j, col in enumerate(cols):
                rows = list(table.index[missing[:, j]])
                if rows:
                    problems.append(
                        Problem(
                            f"column {col!r}, {places.many(rows)}",
                            f"{_values(len(rows), 'missing, NaN or infinite')}.",
                            f"fill {'it' if len(rows) == 1 else 'them'} in, or use "
                            "drop_missing to leave those models out.",
                        )
                    )
            raise InputError.many(source, problems)
    if name_column is not None:
        problems += name_problems(
            table[name_column].tolist(), table.index.tolist(), name_column, places
        )
        if problems:  # a missing name cannot be told apart, nor its row's other problems
            raise InputError.many(source, capped(problems))
        name_series = table[name_column].astype(str)
        if Path(source).suffix.lower() not in (".parquet", ".pq"):
            unquoted = name_series.map(read_cell)
            if (unquoted != name_series).any():
                name_series = unquoted
                table = table.assign(**{name_column: unquoted})
    else:
        name_series = pd.Series([f"row {i}" for i in table.index], index=table.index)
    names, cleaned_names = clean_texts(name_series.tolist())
    if cleaned_names:
        name_series = pd.Series(names, index=name_series.index)
    if unique_names and len(set(names)) < len(names):  # a set: cheaper than pandas' hashing
        repeated = name_series.duplicated(keep=False)
        if repeated.any():
            first: dict[str, int] = {}
            for row, name in zip(
                name_series.index[repeated].tolist(), name_series[repeated].tolist(), strict=True
            ):
                if name in first:
                    problems.append(
                        Problem(
                            f"{places.many([first[name], row])}, column {name_column!r}",
                            f"the model name {name!r} appears twice.",
                            "give every model its own name, or choose another name column.",
                        )
                    )
                else:
                    first[name] = int(row)
    for j, objective in enumerate(objectives):
        if objective.meaning is not None:
            problems += boolean_problems(
                objective.column,
                table[objective.column],
                objective.meaning,
                names,
                table.index.tolist(),
                places,
            )
            problems += value_problems(
                objective.column, arr[:, j], objective.meaning, names, table.index.tolist(), places
            )
    noise, noise_problems = read_uncertainty(
        table,
        cols,
        np.asarray(arr, dtype=np.float64),
        names,
        [(o.meaning.low, o.meaning.high) if o.meaning else (-np.inf, np.inf) for o in objectives],
        declared=uncertainty,
        places=places,
    )
    problems += noise_problems
    if problems:
        raise InputError.many(source, capped(problems))
    if len(names) < 2:
        kept = "left after the where condition and drop_missing" if where or drop_missing else ""
        raise InputError.single(
            source,
            "",
            f"holds {count(len(names), 'model')}{' ' if kept else ''}{kept}; a pool needs at "
            "least 2.",
            (
                "check the where condition and drop_missing, or add models."
                if kept
                else "add a row per model below the header."
            ),
        )
    warnings = (
        ("some model names hold control characters; they are shown with '?' instead.",)
        if cleaned_names
        else ()
    ) + tuple(
        f"objective {c!r} is constant ({arr[0, j]:g}) across the population: it carries no "
        "information and does not affect the choice."
        for j, c in enumerate(cols)
        if np.all(arr[:, j] == arr[0, j])
    )
    return Pool(
        source=source,
        names=names,
        objectives=tuple(objectives),
        values=np.ascontiguousarray(arr, dtype=np.float64),
        frame=table,
        rows=np.asarray(table.index, dtype=np.int64),
        warnings=warnings,
        uncertainty=noise,
    )


# Measuring pools (scikit-learn is imported only when something is measured); no module
# these come from imports this package back.
from tradeoff.pool.measured import Measured  # noqa: E402
from tradeoff.pool.measuring import (  # noqa: E402
    Dataset,
    load_dataset,
    load_estimators,
    measure,
)

__all__ = [
    "Dataset",
    "Meaning",
    "Measured",
    "Objective",
    "Pool",
    "Uncertainty",
    "condition_mask",
    "load_dataset",
    "load_estimators",
    "load_pool",
    "measure",
    "read_table",
]
