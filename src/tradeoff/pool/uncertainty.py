"""How exactly a pool's numbers were measured, and plausible values of them.

A recall of 0.912 against 0.915 measured on 300 cases is a coin toss. A pool may say so,
per model and objective column, in two ways (both optional; a column without either is
taken as exact):

- ``<column>_cases``: the number of cases a share (a class's recall) was measured on, a
  whole number from 1 to :data:`~tradeoff.pool.meaning.MAX_CASES` (a billion), not a
  yes/no value. The recall r measured on n cases has the Jeffreys posterior
  Beta(r·n + ½, (1 − r)·n + ½) (the binomial likelihood with the Beta(½, ½) prior).
- ``<column>_se``: the standard error of the value, finite, ≥ 0 and at most
  :data:`~tradeoff.ask.scenario.MAX_MAGNITUDE` (e.g. the spread over
  cross-validation folds, divided by √folds). A value is then Normal(value, se), kept
  within what its column may hold (a recall in [0, 1], a latency ≥ 0).

When a column has both, the wider of the two is used for each model (the Beta's standard
deviation against the se). :func:`read_uncertainty` reads and validates these columns
(:func:`tradeoff.pool.load_pool` calls it), :class:`Uncertainty` holds them and
:meth:`Uncertainty.sample` draws plausible values: seeded, by the inverse CDF of uniform
numbers (a value differs between machines only in its last bits, and one draw never
shifts the next), independently for every model and column. Models measured on the same
cases are in truth positively correlated, so independent draws make two models' difference
look somewhat noisier than a paired comparison would (erring towards "not sure").
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from tradeoff.arrays import FloatArray
from tradeoff.errors import Problem
from tradeoff.pool.meaning import CASES, MAX_CASES, SE, allowed, boolean_problems
from tradeoff.pool.table import NO_LINES, RowPlaces
from tradeoff.text import clean_text

__all__ = [
    "CASES_SUFFIX",
    "SE_SUFFIX",
    "Uncertainty",
    "read_uncertainty",
]


#: The column beside ``<column>`` that gives the cases a share was measured on.
CASES_SUFFIX = "_cases"
#: The column beside ``<column>`` that gives the standard error of its value.
SE_SUFFIX = "_se"

#: Uniform numbers are kept this far from 0 and 1 (the inverse CDFs are finite there).
_EDGE = 1e-12


@dataclass(frozen=True)
class Uncertainty:
    """Per model (row) and objective (column) of a pool: the standard error ``se`` and the
    number of cases ``cases`` its value was measured on (0 where not given), and the
    bounds ``low``/``high`` each objective's values may take.

    ``source`` names, for each objective, the columns it was read from ("" if none).
    """

    se: FloatArray
    cases: FloatArray
    low: FloatArray
    high: FloatArray
    source: tuple[str, ...]

    @property
    def any(self) -> bool:
        """Whether any value is uncertain at all."""
        return bool((self.se > 0).any() or (self.cases > 0).any())

    def spread(self, values: FloatArray) -> FloatArray:
        """The standard deviation of each value's plausible values (models × objectives):
        the wider of the Beta posterior's (from ``cases``) and ``se``.

        >>> u = Uncertainty(np.array([[0.0, 0.01]]), np.array([[300.0, 0.0]]),
        ...                 np.array([0.0, 0.0]), np.array([1.0, 1.0]), ("", ""))
        >>> [round(float(x), 4) for x in u.spread(np.array([[0.9, 0.5]]))[0]]
        [0.0174, 0.01]
        """
        out: FloatArray = np.maximum(_beta_sd(self, values), self.se)
        return out

    def _beta(self, values: FloatArray) -> tuple[FloatArray, FloatArray]:
        n = self.cases
        s = np.clip(values, 0.0, 1.0) * n
        return s + 0.5, n - s + 0.5

    def sample(self, values: FloatArray, count: int, seed: int) -> FloatArray:
        """``count`` plausible tables of ``values`` (count × models × objectives): a value
        with cases from its Beta posterior, one with only a standard error (or a wider
        one) from its normal, clipped to its column's bounds; an exact value as it is.

        Seeded: the same ``seed`` gives the same draws on every machine (uniform numbers
        from numpy's PCG64, each turned into a value by its inverse CDF).

        >>> u = Uncertainty(np.array([[0.0], [0.0]]), np.array([[300.0], [0.0]]),
        ...                 np.array([0.0]), np.array([1.0]), ("recall_cases",))
        >>> draws = u.sample(np.array([[0.9], [0.8]]), 4000, seed=1)
        >>> round(float(draws[:, 0, 0].mean()), 2), bool((draws[:, 1, 0] == 0.8).all())
        (0.9, True)
        """
        from scipy.special import betaincinv, ndtri

        values = np.asarray(values, dtype=np.float64)
        out = np.broadcast_to(values, (count, *values.shape)).copy()
        spread = self.spread(values)
        beta = (self.cases > 0) & (self.se <= _beta_sd(self, values))
        normal = ~beta & (spread > 0)
        drawn_cells = beta | normal  # uniform numbers only for these, in row-major order
        uniform = np.random.default_rng(seed).random((count, int(drawn_cells.sum())))
        uniform = np.clip(uniform, _EDGE, 1.0 - _EDGE)
        column = np.cumsum(drawn_cells.ravel()).reshape(values.shape) - 1
        if beta.any():
            a, b = self._beta(values)
            rows, cols = np.nonzero(beta)
            u = uniform[:, column[rows, cols]]
            out[:, rows, cols] = betaincinv(a[rows, cols], b[rows, cols], u)
        if normal.any():
            rows, cols = np.nonzero(normal)
            u = uniform[:, column[rows, cols]]
            drawn = values[rows, cols] + spread[rows, cols] * ndtri(u)
            out[:, rows, cols] = np.clip(drawn, self.low[cols], self.high[cols])
        result: FloatArray = out
        return result

    def subset(self, keep: NDArray[np.bool_]) -> Uncertainty:
        """The same for the rows ``keep`` only."""
        return Uncertainty(self.se[keep], self.cases[keep], self.low, self.high, self.source)


def _beta_sd(u: Uncertainty, values: FloatArray) -> FloatArray:
    a, b = u._beta(values)
    with np.errstate(invalid="ignore", divide="ignore"):
        sd: FloatArray = np.where(u.cases > 0, np.sqrt(a * b / ((a + b) ** 2 * (a + b + 1))), 0.0)
    return sd


def read_uncertainty(
    table: pd.DataFrame,
    columns: Sequence[str],
    values: FloatArray,
    names: Sequence[str],
    bounds: Sequence[tuple[float, float]],
    *,
    declared: Mapping[str, str] | None = None,
    places: RowPlaces = NO_LINES,
) -> tuple[Uncertainty | None, list[Problem]]:
    """The uncertainty columns of a pool table, validated, or the problems found.

    For each objective ``column`` the table's ``<column>_se`` and ``<column>_cases`` are
    read when present; ``declared`` maps further uncertainty columns to the objective they
    belong to (a name ending in ``_se`` is a standard error, ``_cases`` a count). A
    standard error must be a finite number ≥ 0 (:data:`~tradeoff.pool.meaning.SE`), a
    count a whole number from 1 to a billion (:data:`~tradeoff.pool.meaning.CASES`), neither
    a yes/no value, and a count belongs to a share in [0, 1]; each problem names the row
    (its line in a CSV file, ``places``, else its number; and its model), the column and the
    fix. ``table``'s index holds the file's row numbers. Returns ``None``
    (and no problem) when no column gives an uncertainty: the pool is then exact.
    """
    n, k = values.shape
    se = np.zeros((n, k))
    cases = np.zeros((n, k))
    problems: list[Problem] = []
    found = ["" for _ in columns]
    wanted: list[tuple[int, str, str]] = []
    for j, column in enumerate(columns):
        for suffix in (SE_SUFFIX, CASES_SUFFIX):
            if f"{column}{suffix}" in table.columns:
                wanted.append((j, f"{column}{suffix}", suffix))
    for extra, objective in (declared or {}).items():
        if objective not in columns:
            problems.append(
                Problem(
                    f"column {extra!r}",
                    f"is declared the uncertainty of {objective!r}, which is not an objective.",
                    "name one of the objective columns: " + ", ".join(map(repr, columns)) + ".",
                )
            )
            continue
        if extra not in table.columns:
            problems.append(
                Problem(
                    f"column {extra!r}",
                    "is declared an uncertainty column but is not in the file.",
                    "add the column, or leave it out of the declaration.",
                )
            )
            continue
        suffix = CASES_SUFFIX if extra.endswith(CASES_SUFFIX) else SE_SUFFIX
        wanted.append((columns.index(objective), extra, suffix))
    rows = table.index.tolist()
    for j, name, suffix in wanted:
        raw = table[name]
        cell = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=np.float64)
        what = "standard error" if suffix == SE_SUFFIX else "count of cases"
        meaning = SE if suffix == SE_SUFFIX else CASES
        if suffix == SE_SUFFIX:
            fix = (
                f"give the standard error of {columns[j]!r} as a finite number of 0 or more "
                "(0: measured exactly), in the column's own units."
            )
            rule = f"a finite number ≥ 0 (at most {SE.high:g})."
        else:
            fix = (
                f"give the number of cases {columns[j]!r} was measured on, a whole number "
                f"from 1 to {MAX_CASES:,}."
            )
            rule = f"a whole number ≥ 1 (at most {MAX_CASES:,})."
        booleans = boolean_problems(name, raw, meaning, names, rows, places)
        problems += [Problem(p.location, p.problem, fix) for p in booleans]
        flagged = {p.location for p in booleans}
        bad = ~allowed(cell, meaning)
        for i in np.flatnonzero(bad).tolist():
            shown = raw.iloc[i]
            where = f"{places.named(rows[i], names[i])}, column {name!r}"
            if where in flagged:
                continue
            problems.append(Problem(where, f"is {_shown(shown)}; a {what} must be {rule}", fix))
        if suffix == CASES_SUFFIX:
            outside = ~bad & ~((values[:, j] >= 0) & (values[:, j] <= 1))
            if outside.any():
                i = int(np.flatnonzero(outside)[0])
                problems.append(
                    Problem(
                        f"column {name!r}",
                        f"counts cases, but {columns[j]!r} is not a share in [0, 1] "
                        f"({places.one(rows[i])}: {values[i, j]:.10g}).",
                        f"give {columns[j]!r} a standard error ({columns[j]}{SE_SUFFIX}) "
                        "instead; a count of cases fits a recall.",
                    )
                )
                continue
        good = np.where(bad, 0.0, cell)
        if suffix == SE_SUFFIX:
            se[:, j] = good
        else:
            cases[:, j] = good
        found[j] = ", ".join(x for x in (found[j], name) if x)
    if problems or not any(found):
        return None, problems
    low = np.array([b[0] for b in bounds], dtype=np.float64)
    high = np.array([b[1] for b in bounds], dtype=np.float64)
    return Uncertainty(se, cases, low, high, tuple(found)), []


def _shown(value: object) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "missing"
    if isinstance(value, float):
        return f"{value:.10g}"
    return repr(clean_text(str(value)))
