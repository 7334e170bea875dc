"""Decisions that do not hinge on the last bits of a float.

Two machines compute the same formula to results that differ in the last bits: numpy picks
other kernels for ``exp``, ``log`` and ``tanh`` on a CPU with AVX-512 than on one without,
OpenBLAS sums a product in another order on each core type, and an ARM machine has kernels
of its own. Such differences are ~1e-16 relative: harmless as numbers, but fatal where a
branch compares two quantities that are equal in exact arithmetic (two questions that score
the same, a P(best) of exactly 19 in 20 against a threshold of 0.95) or where the bits seed
a random stream. Every such branch in the engine goes through this module:

* :func:`settled` rounds a quantity to ``DIGITS`` significant digits before it is compared
  with a threshold, so that a value equal to the threshold in exact arithmetic compares the
  same way everywhere;
* :func:`stable_order` orders scores after rounding them to ``DIGITS`` digits of their
  largest magnitude, ties in the order the options were listed;
* :func:`canonical` writes floats as text at ``DIGITS`` significant digits, for digests that
  seed random streams and for keys that look a question up.

A rounded value still differs between two machines when the exact value lies within the
last bits of a rounding boundary: with ``DIGITS`` = 9 and differences of a few units in
the 16th digit that happens to about one value in 10⁶, never systematically.
(docs/architecture.md, "The same result on every machine").
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
from numpy.typing import ArrayLike, NDArray

#: Significant digits kept of a quantity that decides a branch.
DIGITS = 9
#: Magnitudes below this are 0 in :func:`canonical` (the residue of a cancellation).
TINY = 1e-12


def settled(x: float, digits: int = DIGITS) -> float:
    """``x`` rounded to ``digits`` significant digits (0, ±inf and nan as they are).

    >>> settled(0.9499999999999999)
    0.95
    >>> settled(0.95) == settled(0.9500000000000001)
    True
    >>> settled(123456.78901234)
    123456.789
    """
    if x == 0 or not math.isfinite(x):
        return float(x)
    return float(f"{x:.{digits}g}")


#: :func:`stable_order` never resolves scores finer than this times ``10**-digits``: a score
#: that is 0 in exact arithmetic comes out as the residue (~1e-16) of its terms, which are of
#: order 1 (shares of a spread, L1 distances, metric values), so all-but-zero scores tie.
SCORE_FLOOR = 1e-6


def stable_order(scores: ArrayLike, digits: int = DIGITS) -> NDArray[np.intp]:
    """Indices that sort ``scores`` ascending, after rounding each to ``digits`` digits of
    the largest magnitude among them (never finer than ``SCORE_FLOOR·10**-digits``); equal
    rounded scores keep their order (the order the options were listed in), so near-ties
    fall the same way on every machine.

    >>> stable_order([0.3, 0.1 + 1e-17, 0.1, 0.2]).tolist()
    [1, 2, 3, 0]
    >>> stable_order([1e-17, 0.0, -2e-17]).tolist()
    [0, 1, 2]
    >>> stable_order([]).tolist()
    []
    """
    a = np.asarray(scores, dtype=np.float64).ravel()
    if a.size == 0:
        return np.empty(0, dtype=np.intp)
    key = rounded_rows(a[None, :], digits)[0]
    out: NDArray[np.intp] = np.argsort(key, kind="stable").astype(np.intp)
    return out


def canonical(values: Iterable[float], digits: int = DIGITS) -> str:
    """Floats as text at ``digits`` significant digits, comma-separated: the same text on
    every machine for values that differ only in their last bits.

    Magnitudes below :data:`TINY` are written 0: a value that is 0 in exact arithmetic
    comes out as 0 on one machine and 1e-17 on another, which no number of digits hides.

    >>> canonical([0.6035587999986008, 7.5, 376.0])
    '0.6035588,7.5,376'
    >>> canonical([0.6035587999986006]) == canonical([0.6035587999986008])
    True
    >>> canonical([0.0, -0.0, 1e-17, -3e-300])
    '0,0,0,0'
    """
    if digits != DIGITS:
        return ",".join(_text(float(x), digits) for x in values)
    texts = _TEXTS
    if len(texts) >= TEXTS_KEPT:
        texts.clear()
    out = []
    for x in values:
        v = float(x)
        text = texts.get(v)
        if text is None:
            text = texts[v] = _text(v, digits)
        out.append(text)
    return ",".join(out)


def _text(v: float, digits: int) -> str:
    """One value of :func:`canonical`."""
    return "0" if abs(v) < TINY else f"{v:.{digits}g}"


#: :func:`canonical`'s text of the values it wrote last (at :data:`DIGITS` digits): the
#: options of the questions repeat most values (their context, the reference attributes).
_TEXTS: dict[float, str] = {}
#: Values kept in :data:`_TEXTS` before it is emptied.
TEXTS_KEPT = 50_000


def stable_argmax_rows(values: ArrayLike, digits: int = DIGITS) -> NDArray[np.intp]:
    """For every row of a 2-D array, the index of its largest value after rounding the row
    as :func:`stable_order` does; of values equal after rounding, the first. (Identical
    models scored by a matrix product can differ in their last bits by their position in
    the product: OpenBLAS treats a matrix's edge rows with other kernels.)

    >>> stable_argmax_rows([[0.1, 0.3, 0.3 + 1e-17], [0.5, 0.2, 0.1]]).tolist()
    [1, 0]
    """
    out: NDArray[np.intp] = np.argmax(rounded_rows(values, digits), axis=1).astype(np.intp)
    return out


def rounded_rows(values: ArrayLike, digits: int = DIGITS) -> NDArray[np.float64]:
    """Every row of a 2-D array rounded as :func:`stable_order` rounds scores (to ``digits``
    digits of the row's largest magnitude, never finer than ``SCORE_FLOOR·10**-digits``),
    for orders and maxima per row that do not see the last bits.

    >>> a = rounded_rows([[0.3, 0.1 + 0.2]]); bool(a[0, 0] == a[0, 1])
    True
    """
    a = np.asarray(values, dtype=np.float64)
    if a.ndim != 2 or a.shape[1] == 0:
        raise ValueError("rounded_rows takes a 2-D array with at least one column")
    finite = np.isfinite(a)
    # A power of two at least as large as the row's largest magnitude (or the floor): exact
    # to compute, and the same on every machine unless that magnitude sits on a power of two.
    top = np.max(np.abs(np.where(finite, a, 0.0)), axis=1)
    scale = np.ldexp(1.0, np.frexp(np.maximum(top, SCORE_FLOOR))[1])
    key: NDArray[np.float64] = np.where(finite, np.round(a / scale[:, None] * 10.0**digits), a)
    return np.where(key == 0, 0.0, key)  # −0.0 and 0.0 tie


def stable_argmax(values: ArrayLike, digits: int = DIGITS) -> int:
    """Index of the largest of ``values`` after rounding as :func:`stable_order` does; of
    values equal after rounding, the first.

    >>> stable_argmax([0.2, 0.5, 0.5 + 1e-17, 0.1])
    1
    """
    return int(stable_order(-np.asarray(values, dtype=np.float64), digits)[0])


def sigmoid(x: ArrayLike) -> NDArray[np.float64]:
    """The logistic function 1/(1 + e^(−x)), accurate in both tails.

    The usual ``0.5·(1 + tanh(x/2))`` cancels below about −37: there it is 0 or 1.1e-16
    depending on the last bit of the CPU's ``tanh``, so a likelihood is 0 on one machine and
    not on another. Here e^(−|x|) is never added to 1 before it is used, so every result
    carries its relative precision down to the smallest float (numpy only: a study
    participant's process imports no scipy).

    >>> [float(v) for v in sigmoid(np.array([-40.0, 0.0, 40.0]))]
    [4.248354255291589e-18, 0.5, 1.0]
    """
    a = np.asarray(x, dtype=np.float64)
    e = np.abs(a, out=np.empty_like(a))
    np.negative(e, out=e)
    np.exp(e, out=e)  # e^(−|a|), in place: the same numbers without new arrays
    out: NDArray[np.float64] = np.where(a >= 0, 1.0, e)
    e += 1.0
    out /= e  # 1/(1 + e) or e/(1 + e): one division
    return out


def probability(x: float | None) -> float | None:
    """A probability as written out (JSON, a tracking server's attributes, an export):
    within [0, 1]. A sum of weights that add up to 1 may come out a few units of the last
    place above it (1.000000000000012), which a reader's ``0 <= p <= 1`` check refuses.

    >>> probability(1.000000000000012), probability(0.25), probability(None)
    (1.0, 0.25, None)
    """
    return None if x is None else min(1.0, max(0.0, float(x)))


def whole_parts(shares: Iterable[float | None], decimals: int = 0) -> tuple[int | None, ...]:
    """Parts of one whole as a person reads them: percentages at ``decimals`` decimals,
    counted in units of the last digit shown (``decimals=1``: tenths of a percent), that add
    up to exactly 100 %, so a list of shares never reads 101 %.

    Each share is first rounded down; the units still missing go to the shares with the
    largest remainders (the largest-remainder rule), ties to the first listed. No part
    moves by a whole unit of the last digit from its exact value: each shown part is its
    share rounded up or down, and the parts add up to their total rounded (100 % for shares
    that sum to 1; ``None``, a part not shown, is left out and stays ``None``). Every
    quantity a branch reads is rounded by :func:`settled` first, so the same shares come
    out the same on every machine.

    Examples
    --------
    >>> whole_parts([0.6086, 0.3674, 0.0158, 0.0082])  # 61 + 37 + 2 + 1 read 101
    (61, 37, 1, 1)
    >>> whole_parts([0.6086, 0.3674, 0.0158, 0.0082], decimals=1)
    (609, 367, 16, 8)
    >>> whole_parts([1 / 3, 1 / 3, 1 / 3]), whole_parts([0.5, None, 0.5])
    ((34, 33, 33), (50, None, 50))
    >>> whole_parts([0.6, 0.06, 0.08, 0.25])  # 99 %: the parts of a whole not quite shown
    (60, 6, 8, 25)
    >>> whole_parts([0.0, 0.0]), whole_parts([])
    ((0, 0), ())
    """
    shares = list(shares)
    units = 100 * 10**decimals
    exact = [settled(max(0.0, float(s)) * units) for s in shares if s is not None]
    total = math.fsum(exact)
    if not math.isfinite(total):
        return tuple(None for _ in shares)
    floors = [math.floor(x) for x in exact]
    remainders = [settled(x - f) for x, f in zip(exact, floors, strict=True)]
    missing = round(settled(total)) - sum(floors)
    # Largest remainder first; equal remainders in the order listed.
    for i in sorted(range(len(floors)), key=lambda i: (-remainders[i], i))[:missing]:
        floors[i] += 1
    parts = iter(floors)
    return tuple(None if s is None else next(parts) for s in shares)


def whole_percents(shares: Iterable[float | None], decimals: int = 0) -> tuple[str | None, ...]:
    """:func:`whole_parts` as text, "61%" (or "60.9%" at one decimal), ``None`` kept.

    >>> whole_percents([0.6086, 0.3674, 0.0158, 0.0082])
    ('61%', '37%', '1%', '1%')
    >>> whole_percents([0.6086, None, 0.3914], decimals=1)
    ('60.9%', None, '39.1%')
    """
    scale = 10**decimals
    return tuple(
        None if p is None else f"{p / scale:.{decimals}f}%" for p in whole_parts(shares, decimals)
    )
