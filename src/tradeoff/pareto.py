"""Pareto dominance: one rule for every room that asks which models no other beats.

Every function takes objectives to *minimise* (negate a maximised column first).
"""

from __future__ import annotations

from collections.abc import Sequence

import moocore
import numpy as np
from numpy.typing import NDArray

__all__ = ["dominated_by_any", "pareto_mask"]

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]


def pareto_mask(y: FloatArray) -> BoolArray:
    """Models not strictly dominated by any other (duplicates all kept), y minimised.

    Examples
    --------
    >>> pareto_mask(np.array([[1.0, 4.0], [2.0, 2.0], [4.0, 1.0], [3.0, 3.0]])).tolist()
    [True, True, True, False]
    """
    return np.asarray(moocore.is_nondominated(y, keep_weakly=True), dtype=bool)


def dominated_by_any(y: FloatArray, rows: Sequence[int]) -> BoolArray:
    """For each of ``rows``, whether some model strictly dominates it (O(N·K) each).

    Examples
    --------
    >>> y = np.array([[1.0, 4.0], [2.0, 2.0], [4.0, 1.0], [3.0, 3.0]])
    >>> dominated_by_any(y, [1, 3]).tolist()  # (2, 2) beats (3, 3)
    [False, True]
    """
    out = np.empty(len(rows), dtype=bool)
    for i, r in enumerate(rows):
        le = (y <= y[r]).all(axis=1)
        lt = (y < y[r]).any(axis=1)
        out[i] = bool((le & lt).any())
    return out
