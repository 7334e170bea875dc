"""Whole analyses over a table of solutions: compare systems (paper 003 indicators and
paper 002's permutation test) and validation-to-test gaps per method (paper 001).

These take validated pools (:mod:`tradeoff.pool`) in their own units and directions, turn
them into minimised points, and return typed results with ``to_dict()``; the faces only
parse options and print.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tradeoff.arrays import FloatArray
from tradeoff.errors import InputError
from tradeoff.judge.fronts import check_reference, reference_point, to_minimisation
from tradeoff.judge.generalisation import GapResult, compare_generalisation, generalisation
from tradeoff.judge.indicators import SystemIndicators, indicators
from tradeoff.judge.permutation import PermutationResult, permutation_test
from tradeoff.pool import Pool
from tradeoff.text import count


@dataclass(frozen=True)
class SystemComparison:
    """Indicators of every system, the reference point, and the permutation tests."""

    rows: tuple[SystemIndicators, ...]
    reference: tuple[float, ...]
    sigma: float
    tests: tuple[PermutationResult, ...] = ()
    warnings: tuple[str, ...] = ()
    hv_scale: str = "box"

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "systems": [r.to_dict() for r in self.rows],
            "reference": list(self.reference),
            "sigma": self.sigma,
            "hv_scale": self.hv_scale,
        }
        if self.tests:
            tests = [t.to_dict() for t in self.tests]
            data["permutation"] = tests[0] if len(tests) == 1 else tests
        data["warnings"] = list(self.warnings)
        return data


def compare_systems(
    pool: Pool,
    *,
    ref: Sequence[float] | None = None,
    sigma: float = 0.1,
    hv_scale: str | None = None,
    seed_column: str | None = None,
    baseline: str | None = None,
    permutations: int = 5000,
    seed: int = 0,
) -> SystemComparison:
    """Paper 003's measurement table for the systems of ``pool`` (rows grouped by name), and,
    with ``seed_column``, paper 002's permutation test of every system against ``baseline``
    (default: the first system), each seed's rows forming one run.

    ``ref`` is in the pool's own units and directions (default: the rule of
    :func:`~tradeoff.judge.fronts.reference_point`). ``hv_scale`` (see
    :mod:`~tradeoff.judge.indicators`) defaults to ``raw``, paper 003's convention, when
    every objective value and the reference point lie in [0, 1], else to ``box``; ``raw``
    outside [0, 1] is allowed with a warning (its radar axis is capped at 1).

    Raises
    ------
    InputError
        For an unknown seed column or baseline, a single system, or a reference point that
        no solution dominates.

    Examples
    --------
    >>> import pandas as pd
    >>> from tradeoff.pool import Objective, Pool
    >>> v = np.array([[0.2, 0.8], [0.5, 0.5], [0.8, 0.2], [0.3, 0.9], [0.9, 0.3]])
    >>> objectives = (Objective("err", "min"), Objective("cost", "min"))
    >>> pool = Pool("runs.csv", ("A", "A", "A", "B", "B"), objectives, v, pd.DataFrame(),
    ...             np.arange(1, 6))
    >>> out = compare_systems(pool, ref=[1.0, 1.0], hv_scale="raw")
    >>> [(r.name, r.solutions, round(r.hv, 4)) for r in out.rows]
    [('A', 3, 0.37), ('B', 2, 0.13)]
    """
    if seed_column and seed_column not in pool.frame.columns:
        raise InputError.single(
            pool.source,
            f"column {seed_column!r}",
            "not found.",
            "name the column that holds the seed of each run.",
        )
    y = to_minimisation(pool.values, pool.maximise)
    systems: dict[str, list[int]] = {}
    for i, name in enumerate(pool.names):
        systems.setdefault(name, []).append(i)
    if baseline is not None and baseline not in systems:
        raise InputError.single(
            pool.source,
            f"baseline {baseline!r}",
            f"system {baseline!r} has no rows.",
            f"use one of: {', '.join(systems)}.",
        )
    if len(systems) < 2:
        raise InputError.single(
            pool.source,
            "systems",
            "the table holds only one system; nothing to compare.",
            "give a table with rows of at least two systems.",
        )
    r = (
        None
        if ref is None
        else to_minimisation(np.asarray([ref], dtype=np.float64), pool.maximise)[0]
    )
    if r is not None:
        check_reference(pool.source, y, r)
    groups = {n: y[idx] for n, idx in systems.items()}
    used = reference_point(y) if r is None else r
    back = to_minimisation(np.asarray([used]), pool.maximise)[0]
    inside = np.vstack((pool.values, back[None, :]))
    unit = bool(((inside >= 0) & (inside <= 1)).all())
    scale = hv_scale or ("raw" if unit else "box")
    notes: tuple[str, ...] = ()
    if scale == "raw" and not unit:
        notes = (
            "--hv-scale raw: some objective values or the reference point lie outside [0, 1], "
            "so raw HV is not on the radar's [0, 1] scale (its axis is capped at 1); "
            "--hv-scale box divides HV by the ideal-to-reference box instead.",
        )
    rows, _ = indicators(groups, ref=used, sigma=sigma, hv_scale=scale)  # the same reference
    warnings = notes + tuple(
        f"{count(row.excluded, 'solution')} of {row.name} "
        + (
            "does not dominate the reference point and adds"
            if row.excluded == 1
            else "do not dominate the reference point and add"
        )
        + " nothing to its hypervolume"
        for row in rows
        if row.excluded
    )
    tests: list[PermutationResult] = []
    if seed_column:
        first = baseline or next(iter(systems))
        seeds = pool.frame[seed_column].to_numpy()

        def runs(ix: list[int]) -> list[FloatArray]:
            s = seeds[ix]
            return [y[np.asarray(ix)[s == value]] for value in dict.fromkeys(s)]

        for name, idx in systems.items():
            if name == first:
                continue
            tests.append(
                permutation_test(
                    runs(systems[first]),
                    runs(idx),
                    ref=used,
                    permutations=permutations,
                    seed=seed,
                    baseline=first,
                    candidate=name,
                )
            )
    return SystemComparison(
        rows=tuple(rows),
        reference=tuple(float(x) for x in back),
        sigma=sigma,
        hv_scale=scale,
        tests=tuple(tests),
        warnings=warnings + tuple(w for t in tests for w in t.warnings),
    )


@dataclass(frozen=True)
class GapReport:
    """Paper 001's gap for every method (``all`` when rows are not grouped)."""

    results: dict[str, GapResult]

    def comparisons(self) -> list[dict[str, Any]]:
        """Paper 001 §4's comparisons of every pair of methods."""
        names = list(self.results)
        return [
            {"a": a, "b": b, **compare_generalisation(self.results[a], self.results[b])}
            for i, a in enumerate(names)
            for b in names[i + 1 :]
        ]

    def to_dict(self) -> dict[str, Any]:
        if len(self.results) == 1:
            return next(iter(self.results.values())).to_dict()
        return {
            "methods": {g: r.to_dict() for g, r in self.results.items()},
            "comparisons": self.comparisons(),
        }


def gaps(
    validation: Pool,
    test: Pool,
    *,
    ids: Sequence[str],
    groups: Sequence[str] | None = None,
    ref: Sequence[float] | None = None,
    drop_point: Sequence[float] | None = None,
) -> GapReport:
    """Optimistic and pessimistic test fronts of the validation Pareto set, per method.

    ``validation`` and ``test`` hold the same configurations in the same order; ``groups``
    names each row's method (``None``: one group, ``all``). ``ref`` and ``drop_point`` are in
    the pools' units (default reference: the rule over validation and test points together).

    Raises
    ------
    InputError
        If the tables differ in length or no point dominates the reference point.

    Examples
    --------
    >>> import pandas as pd
    >>> from tradeoff.pool import Objective, Pool
    >>> v = np.array([[0.2, 0.8], [0.5, 0.5], [0.8, 0.2]])
    >>> objectives = (Objective("err", "min"), Objective("cost", "min"))
    >>> val = Pool("val.csv", ("m",) * 3, objectives, v, pd.DataFrame(), np.arange(1, 4))
    >>> test = Pool("test.csv", ("m",) * 3, objectives, v + 0.05, pd.DataFrame(), np.arange(1, 4))
    >>> report = gaps(val, test, ids=["r0", "r1", "r2"], ref=[1.0, 1.0])
    >>> g = report.results["all"]
    >>> round(g.validation_hv, 4), round(g.optimistic_hv, 4)  # every point 0.05 worse on test
    (0.37, 0.2925)
    """
    if test.n != validation.n:
        raise InputError.single(
            test.source,
            "",
            f"has {test.n} rows but the validation table has {validation.n}; each "
            "configuration needs a validation and a test row.",
            "give both tables the same configurations in the same order.",
        )
    maximise = validation.maximise
    val = to_minimisation(validation.values, maximise)
    tst = to_minimisation(test.values, maximise)
    both = np.vstack((val, tst))

    def minimised(point: Sequence[float]) -> FloatArray:
        out: FloatArray = to_minimisation(np.asarray([point], dtype=np.float64), maximise)[0]
        return out

    r = reference_point(both) if ref is None else minimised(ref)
    check_reference(validation.source, both, r)
    drop = None if drop_point is None else minimised(drop_point)
    members: dict[str, list[int]] = {"all": list(range(validation.n))}
    if groups is not None:
        members = {}
        for i, g in enumerate(groups):
            members.setdefault(str(g), []).append(i)
    results = {}
    for g, idx in members.items():
        ix = np.asarray(idx)
        results[g] = generalisation(val[ix], tst[ix], [ids[i] for i in idx], ref=r, drop_point=drop)
    return GapReport(results)
