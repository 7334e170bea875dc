"""Is a P(best) band's share right within a few points of what it states? With intervals.

A band of ~30 people has a share right with a standard error of ~9 points, so "within 5
points" is a claim only an interval can support. Two 90 % intervals per band:

- Wilson's, of the share right (people taken as independent);
- a percentile bootstrap over pools of the gap, share right − mean stated P(best): people
  in one pool share its measurements, so pools are what is resampled (the band's members
  drawn again with their pool).

The verdict on "within ``TOLERANCE`` of the stated mean" reads the bootstrap interval of
the gap: *within* when all of it lies within ±``TOLERANCE``, *off* when none of it does,
*cannot decide* otherwise.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import ndtri

#: How far (in share) a band's share right may be from its mean stated P(best).
TOLERANCE = 0.05
#: The intervals' level.
LEVEL = 0.90
#: Bootstrap resamples of the pools.
RESAMPLES = 2000


def wilson(right: int, n: int, level: float = LEVEL) -> tuple[float, float]:
    """Wilson's interval of a share ``right`` / ``n`` at ``level``.

    >>> low, high = wilson(15, 30)
    >>> round(low, 3), round(high, 3)
    (0.356, 0.644)
    >>> wilson(0, 0)
    (0.0, 1.0)
    """
    if n == 0:
        return 0.0, 1.0
    z = float(ndtri(0.5 + level / 2.0))
    p = right / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return float(centre - half), float(centre + half)


def pool_bootstrap(
    stated: ArrayLike,
    right: ArrayLike,
    pools: ArrayLike,
    inside: ArrayLike,
    *,
    level: float = LEVEL,
    resamples: int = RESAMPLES,
    seed: int = 0,
) -> tuple[float, float] | None:
    """The percentile interval at ``level`` of a band's gap (share right − mean stated),
    pools resampled with replacement; ``inside`` marks the band's people. ``None`` when
    the band is empty.

    >>> pools = [0, 0, 1, 1, 2, 2, 3, 3]
    >>> stated = [0.6] * 8
    >>> right = [True, True, False, True, False, False, False, False]
    >>> low, high = pool_bootstrap(stated, right, pools, [True] * 8)
    >>> bool(low < 3 / 8 - 0.6 < high)
    True
    """
    p = np.asarray(stated, dtype=float)
    r = np.asarray(right, dtype=float)
    pool = np.asarray(pools)
    mask = np.asarray(inside, dtype=bool)
    if not mask.any():
        return None
    ids, where = np.unique(pool, return_inverse=True)
    k = len(ids)
    # per pool: band members, sum stated, sum right
    count = np.bincount(where, weights=mask, minlength=k)
    said = np.bincount(where, weights=p * mask, minlength=k)
    hits = np.bincount(where, weights=r * mask, minlength=k)
    rng = np.random.default_rng(seed)
    times = np.stack([np.bincount(rng.integers(0, k, k), minlength=k) for _ in range(resamples)])
    n = times @ count
    ok = n > 0
    gap = (times[ok] @ hits - times[ok] @ said) / n[ok]
    low, high = np.quantile(gap, [(1 - level) / 2, (1 + level) / 2])
    return float(low), float(high)


def verdict(interval: tuple[float, float] | None, tolerance: float = TOLERANCE) -> str:
    """ "within", "off" or "cannot decide" for a gap's interval (module docstring).

    >>> verdict((-0.03, 0.04)), verdict((-0.2, -0.08)), verdict((-0.12, 0.01))
    ('within', 'off', 'cannot decide')
    """
    if interval is None:
        return "–"
    low, high = interval
    if -tolerance <= low and high <= tolerance:
        return "within"
    if high < -tolerance or low > tolerance:
        return "off"
    return "cannot decide"
