"""Fronts and hypervolumes: the shared ground of every analysis in :mod:`tradeoff.judge`.

Every function takes objectives to *minimise*; :func:`to_minimisation` converts maximised
columns (and the reference point) by negation where a caller's data are maximised.

Reference points. Where none is given, the rule is r_k = w_k + 0.1·|w_k| (w_k the worst
observed value of objective k in minimisation form; 0.1·range if w_k = 0): "a fixed multiple
of the worst observed value" (paper 002 §6), valid for negative values too, and frozen once
for all permutations. Points that do not strictly dominate r contribute nothing; they are
reported, never silently dropped.
"""

from __future__ import annotations

from collections.abc import Sequence

import moocore
import numpy as np

from tradeoff import pareto
from tradeoff.arrays import BoolArray, FloatArray
from tradeoff.errors import InputError
from tradeoff.pareto import dominates_reference as dominates_reference  # judge reads it here

#: Hypervolumes come from moocore, except from 7 objectives on, and at 6 objectives with at
#: least WFG_MIN_POINTS_6D points, where the WFG algorithm (hvwfg) is faster
#: (benchmarks/evaluation.py: 7.2× at 7 objectives, 200 points).
WFG_MIN_POINTS_6D = 150


def use_wfg(points: int, objectives: int) -> bool:
    """Whether the WFG backend is the faster one for this size (measured).

    Examples
    --------
    >>> use_wfg(10, 3), use_wfg(2000, 6)
    (False, True)
    """
    return objectives > 6 or (objectives == 6 and points >= WFG_MIN_POINTS_6D)


REFERENCE_MARGIN = 0.1


def to_minimisation(points: FloatArray, maximise: Sequence[bool] | BoolArray) -> FloatArray:
    """Negate the maximised columns so that every objective is minimised.

    Examples
    --------
    >>> to_minimisation(np.array([[0.9, 2.0]]), [True, False]).tolist()
    [[-0.9, 2.0]]
    """
    sign = np.where(np.asarray(maximise, dtype=bool), -1.0, 1.0)
    out: FloatArray = np.asarray(points, dtype=np.float64) * sign
    return out


def reference_point(points: FloatArray, margin: float = REFERENCE_MARGIN) -> FloatArray:
    """The default reference point of minimised ``points`` (see the module docstring).

    Examples
    --------
    >>> reference_point(np.array([[1.0, 4.0], [2.0, 2.0], [4.0, 1.0]])).tolist()
    [4.4, 4.4]
    """
    worst = points.max(axis=0)
    span = points.max(axis=0) - points.min(axis=0)
    step = np.where(worst != 0, np.abs(worst), np.where(span > 0, span, 1.0))
    out: FloatArray = worst + margin * step
    return out


def hypervolume(points: FloatArray, ref: Sequence[float] | FloatArray) -> float:
    """Hypervolume of minimised ``points`` w.r.t. ``ref`` (moocore or WFG, see ``use_wfg``).

    Points that do not strictly dominate ``ref`` add nothing and are ignored here; callers
    that face users report them (:func:`indicators`).

    >>> hypervolume(np.array([[1.0, 2.0], [2.0, 1.0]]), [3.0, 3.0])
    3.0
    """
    pts = np.asarray(points, dtype=np.float64)
    r = np.asarray(ref, dtype=np.float64)
    if pts.size == 0:
        return 0.0
    if pts.ndim != 2 or pts.shape[1] != r.size:
        raise ValueError("points must be (n, d) with d equal to the reference point's length")
    pts = pts[dominates_reference(pts, r)]
    if pts.shape[0] == 0:
        return 0.0
    pts = pts[pareto.nondominated(pts, duplicates="first")]
    if not use_wfg(pts.shape[0], pts.shape[1]):
        return float(moocore.hypervolume(pts, ref=r))
    import hvwfg

    return float(hvwfg.wfg(np.ascontiguousarray(pts), np.ascontiguousarray(r)))


def nondominated(points: FloatArray) -> BoolArray:
    """Mask of the non-dominated points, of duplicates the first only
    (:func:`tradeoff.pareto.nondominated`, its rule).

    Examples
    --------
    >>> nondominated(np.array([[1.0, 2.0], [1.0, 2.0], [2.0, 1.0], [2.0, 2.0]])).tolist()
    [True, False, True, False]
    """
    return pareto.nondominated(points, duplicates="first")


def check_reference(source: str, points: FloatArray, ref: FloatArray) -> None:
    """Refuse a reference point that no solution dominates (every HV would be 0).

    Examples
    --------
    >>> points = np.array([[0.2, 0.8], [0.8, 0.2]])
    >>> check_reference("runs.csv", points, np.array([1.0, 1.0]))  # fine: nothing said
    >>> check_reference("runs.csv", points, np.array([0.1, 0.1]))
    Traceback (most recent call last):
    ...
    tradeoff.errors.InputError: runs.csv: reference point: no solution dominates ...
    """
    if not dominates_reference(points, ref).any():
        raise InputError.single(
            source,
            "reference point",
            f"no solution dominates the reference point {ref.tolist()} (in minimisation form).",
            "choose a reference point worse than the solutions on every objective, or leave "
            "it out to use the default rule.",
        )
