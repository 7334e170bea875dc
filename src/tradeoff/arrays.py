"""The array types the package names, each defined once.

>>> import numpy as np
>>> from tradeoff.arrays import FloatArray
>>> x: FloatArray = np.zeros(3)
>>> x.dtype
dtype('float64')
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["BoolArray", "FloatArray", "Int64Array", "IntArray"]

#: Real numbers (weights, metrics, probabilities).
FloatArray = NDArray[np.float64]
#: Masks.
BoolArray = NDArray[np.bool_]
#: Indices and counts (numpy's index type).
IntArray = NDArray[np.intp]
#: Integers that are data (ranks stored in a file), 64 bits on every machine.
Int64Array = NDArray[np.int64]
