"""Pareto dominance: the one rule for every room that asks which models no other beats.

Every function takes objectives to *minimise* (with ``maximise=True``, every column is one
to maximise).

**The rule.** Row a *dominates* row b when a is no worse than b on every objective and
better on at least one (weak dominance). Equal rows neither dominate the other, so of
duplicates :func:`nondominated` keeps every copy (``duplicates="all"``: the Pareto front as
shown, a duplicate of a front model is on it too) or only the first in row order
(``duplicates="first"``: what a tie-break by row order needs, one candidate per point).

**Comparisons.** Values are compared as :mod:`tradeoff.stable` settles a branch: each column
rounded to :data:`~tradeoff.stable.DIGITS` significant digits of its largest magnitude
(:func:`~tradeoff.stable.rounded_rows` on the columns), so two values equal in exact
arithmetic but apart in their last bits are equal on every machine, and values further
apart than a billionth of their column's scale compare as they are. (A value within the
last bits of a rounding boundary can still fall either way, about one in 10⁶, never
systematically.) ``settle=False`` compares the floats as they are: only for a superset of
candidates that are then scored with a tolerance of their own
(:func:`tradeoff.choose.copa.candidates`), where exact dominance is what the superset's
guarantee rests on and no result hinges on it.

moocore's ``is_nondominated`` finds the front of the compared values (O(N log N) for two
and three objectives); :func:`dominates` and :func:`dominated_by_any` are the same rule for
one pair and for a few rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import moocore
import numpy as np
from numpy.typing import ArrayLike

from tradeoff.arrays import BoolArray, FloatArray
from tradeoff.stable import DIGITS, SCORE_FLOOR, rounded_rows

__all__ = [
    "Duplicates",
    "dominated_by_any",
    "dominates",
    "dominates_reference",
    "nondominated",
    "pareto_mask",
    "settled_columns",
]

Duplicates = Literal["all", "first"]


def settled_columns(y: ArrayLike) -> FloatArray:
    """``y`` (rows × objectives) as the rule compares it: each column rounded as
    :func:`~tradeoff.stable.rounded_rows` rounds a row (the values become integers of that
    column's scale; their order and ties are what dominance reads).

    >>> a = settled_columns([[0.1 + 0.2, 1.0], [0.3, 2.0]])
    >>> bool(a[0, 0] == a[1, 0]), bool(a[0, 1] < a[1, 1])
    (True, True)
    """
    a = np.asarray(y, dtype=np.float64)
    if a.ndim != 2:
        raise ValueError("y must be a 2-D array (rows × objectives)")
    if a.size == 0:
        return a.copy()
    if not np.isfinite(a).all():
        out: FloatArray = np.ascontiguousarray(rounded_rows(a.T).T)
        return out
    # rounded_rows on the columns in fewer passes (a big pool's front): scaling by the
    # column's power of two and by 10**DIGITS in one product gives the same floats.
    top = np.maximum(np.abs(a).max(axis=0), SCORE_FLOOR)
    out = a * (10.0**DIGITS / np.ldexp(1.0, np.frexp(top)[1]))
    np.round(out, out=out)
    out += 0.0  # −0.0 and 0.0 tie
    return out


def _compared(y: ArrayLike, maximise: bool, settle: bool) -> FloatArray:
    a = np.asarray(y, dtype=np.float64)
    if a.ndim != 2:
        raise ValueError("y must be a 2-D array (rows × objectives)")
    if maximise:
        a = -a  # rounding is symmetric, so negating first or after is the same
    return settled_columns(a) if settle else a


def nondominated(
    y: ArrayLike,
    *,
    maximise: bool = False,
    duplicates: Duplicates = "all",
    settle: bool = True,
) -> BoolArray:
    """The rows no other row dominates (the module docstring's rule), as a mask.

    Parameters
    ----------
    y
        Objective values, rows × objectives, no NaN.
    maximise
        Every column is one to maximise.
    duplicates
        ``"all"``: every copy of a non-dominated row is kept; ``"first"``: only the first.
    settle
        Compare values settled to 9 significant digits of their column (``False``: as
        they are; see the module docstring).

    Examples
    --------
    >>> y = np.array([[1.0, 4.0], [2.0, 2.0], [4.0, 1.0], [3.0, 3.0], [2.0, 2.0]])
    >>> nondominated(y).tolist()  # (3, 3) is dominated by (2, 2); both (2, 2) are kept
    [True, True, True, False, True]
    >>> nondominated(y, duplicates="first").tolist()
    [True, True, True, False, False]
    >>> nondominated(y, maximise=True).tolist()  # both (2, 2) fall to (3, 3)
    [True, False, True, True, False]

    Values equal but for their last bits are equal (0.1 + 0.2 is 0.30000000000000004):

    >>> nondominated(np.array([[0.3, 1.0], [0.1 + 0.2, 0.5]])).tolist()
    [False, True]
    """
    a = _compared(y, maximise, settle)
    if a.shape[0] == 0:
        return np.zeros(0, dtype=bool)
    keep = moocore.is_nondominated(a, keep_weakly=duplicates == "all")
    return np.asarray(keep, dtype=bool)


def pareto_mask(y: ArrayLike) -> BoolArray:
    """The Pareto front of minimised ``y`` as shown (:func:`nondominated`, duplicates all
    kept): the flags of a ranking, the front of a plot.

    >>> pareto_mask(np.array([[1.0, 4.0], [2.0, 2.0], [4.0, 1.0], [3.0, 3.0]])).tolist()
    [True, True, True, False]
    """
    return nondominated(y)


def dominates(a: ArrayLike, b: ArrayLike, *, maximise: bool = False) -> bool:
    """Whether row ``a`` dominates row ``b`` (compared settled over the two rows).

    >>> dominates([1.0, 2.0], [1.0, 3.0]), dominates([1.0, 2.0], [1.0, 2.0])
    (True, False)
    >>> dominates([0.1 + 0.2, 1.0], [0.3, 2.0])  # equal on the first, better on the second
    True
    """
    pair = _compared(np.vstack([np.asarray(a, float), np.asarray(b, float)]), maximise, True)
    return bool(np.all(pair[0] <= pair[1]) and np.any(pair[0] < pair[1]))


def dominated_by_any(y: ArrayLike, rows: Sequence[int]) -> BoolArray:
    """For each of ``rows``, whether some row of minimised ``y`` dominates it (O(N·K) each).

    >>> y = np.array([[1.0, 4.0], [2.0, 2.0], [4.0, 1.0], [3.0, 3.0]])
    >>> dominated_by_any(y, [1, 3]).tolist()  # (2, 2) beats (3, 3)
    [False, True]
    """
    a = _compared(y, False, True)
    out = np.empty(len(rows), dtype=bool)
    for i, r in enumerate(rows):
        le = (a <= a[r]).all(axis=1)
        lt = (a < a[r]).any(axis=1)
        out[i] = bool((le & lt).any())
    return out


def dominates_reference(points: ArrayLike, ref: ArrayLike) -> BoolArray:
    """Which minimised points are better than the reference point on every objective
    (strictly: a point equal to it on one objective bounds no volume), compared settled
    over the points and the reference together.

    >>> points = np.array([[1.0, 4.0], [2.0, 2.0], [4.0, 1.0], [3.0, 3.0]])
    >>> dominates_reference(points, np.array([3.5, 3.5])).tolist()
    [False, True, False, True]
    """
    p = np.asarray(points, dtype=np.float64)
    r = np.asarray(ref, dtype=np.float64).reshape(1, -1)
    if p.shape[0] == 0:
        return np.zeros(0, dtype=bool)
    both = settled_columns(np.vstack([p, r]))
    return np.asarray((both[:-1] < both[-1]).all(axis=1), dtype=bool)
