"""Indicators of a system's solution set and the radar chart (paper 003).

* Indicators of a system's solution set S (paper 003, §III-B): hypervolume HV, ONVG = |X_n|
  and ONVGR = |X_n|/|S| (eqs. 8–9, X_n the non-dominated solutions of S), uniform
  distribution UD(S, σ) = 1/(1 + D_nc) with D_nc the standard deviation of the niche counts
  nc(x_i, σ) = |{x ∈ X_n : ‖x − x_i‖ < σ}| − 1 (eqs. 2–4), and overall Pareto spread
  OS(S, P) = Π_i (max_S s_i − min_S s_i)/(max_P p_i − min_P p_i) against the joint Pareto
  set P of all systems compared (eq. 5), each ratio capped at 1. A system with a single
  non-dominated solution has UD and OS "not defined" (use cases UC-1/UC-2).
* Radar chart (§III-C): the indicators on equally spaced axes, the polygon's area by the
  surveyor's formula (eq. 10), normalised by its theoretical range [0, area of the unit
  polygon] (≈ 2.378 for five axes), which reproduces the paper's Table 9b (0.83 and 0.04).

**Uniformity on the radar: UD itself, not 1 − UD.** The paper is inconsistent here: eq. 2
defines UD = 1/(1 + D_nc), which *rises* as the niche counts even out (D_nc = 0 gives 1), yet
its text says a lower UD is more uniform and puts 1 − UD on the radar "so that a higher value
means more uniformity". Its intent (higher = more uniform on every axis) is unambiguous, and
with eq. 2 as written that is UD, so the radar's uniformity axis is UD. With 1 − UD a
clustered front would out-score an evenly spread one (tested on such a pair). The table
shows D_nc beside UD so either reading can be checked.

**Hypervolume scale** (``hv_scale``): ``raw`` is the paper's convention, HV itself, meaningful
on the radar when every objective lies in [0, 1]; ``box`` divides HV by the box between the
joint ideal point and the reference point, which keeps the axis in [0, 1] for objectives in
any units but inflates it whenever no system reaches 0 on an objective, so its areas are not
comparable with the paper's.

Points are minimised (see :mod:`tradeoff.judge.fronts`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tradeoff.arrays import FloatArray
from tradeoff.judge.fronts import dominates_reference, hypervolume, nondominated, reference_point


def niche_deviation(front: FloatArray, sigma: float) -> float | None:
    """D_nc(S, σ): the sample standard deviation (ddof = 1) of the niche counts (paper 003
    eqs. 3–4); ``None`` below 2 points. ``front`` holds X_n, already scaled.

    Examples
    --------
    >>> front = np.array([[0.0, 1.0], [0.5, 0.5], [1.0, 0.0]])
    >>> round(niche_deviation(front, 0.8), 4)  # niche counts 1, 2, 1: sd √(1/3)
    0.5774
    """
    if front.shape[0] < 2:
        return None
    dist = np.linalg.norm(front[:, None, :] - front[None, :, :], axis=2)
    nc = (dist < sigma).sum(axis=1) - 1
    return float(np.std(nc, ddof=1))


def uniform_distribution(front: FloatArray, sigma: float) -> float | None:
    """UD(S, σ) = 1 / (1 + D_nc(S, σ)) (paper 003 eq. 2); ``None`` below 2 points.

    It rises with uniformity: 1 when every niche count is the same.

    Examples
    --------
    >>> front = np.array([[0.0, 1.0], [0.5, 0.5], [1.0, 0.0]])
    >>> round(uniform_distribution(front, 0.8), 4)  # 1 / (1 + √(1/3))
    0.634
    >>> uniform_distribution(front[:1], 0.8) is None
    True
    """
    d = niche_deviation(front, sigma)
    return None if d is None else 1.0 / (1.0 + d)


def overall_spread(front: FloatArray, joint: FloatArray) -> float | None:
    """OS(S, P) (paper 003 eq. 5); ``None`` below 2 points or for a degenerate joint front.

    Examples
    --------
    >>> joint = np.array([[0.0, 1.0], [0.5, 0.5], [1.0, 0.0]])
    >>> overall_spread(joint[:2], joint)  # half of each objective's joint range: ½·½
    0.25
    """
    if front.shape[0] < 2:
        return None
    span_p = joint.max(axis=0) - joint.min(axis=0)
    if np.any(span_p <= 0):
        return None
    span_s = front.max(axis=0) - front.min(axis=0)
    # A system's own non-dominated points may reach beyond the joint front's range (they can
    # be dominated by another system's points there); each ratio is capped at 1 so that OS
    # stays in [0, 1], 1 meaning the system spans the joint front on every objective.
    return float(np.prod(np.minimum(np.abs(span_s / span_p), 1.0)))


def radar_area(values: Sequence[float]) -> float:
    """Area of the radar polygon with ``values`` on equally spaced axes (eq. 10).

    Vertices v_i = (r_i cos Θ_i, r_i sin Θ_i), Θ_i = 2πi/n, counter-clockwise; the surveyor's
    formula ½ Σ (x_i y_{i+1} − x_{i+1} y_i).

    >>> round(radar_area([1, 1, 1, 1, 1]), 3)
    2.378
    """
    r = np.asarray(values, dtype=np.float64)
    n = r.size
    if n < 3:
        raise ValueError("a radar polygon needs at least 3 axes")
    theta = 2 * np.pi * np.arange(n) / n
    x, y = r * np.cos(theta), r * np.sin(theta)
    return float(0.5 * np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


def radar_area_normalised(values: Sequence[float]) -> float:
    """Radar area min–max normalised over its theoretical range [0, unit polygon].

    Examples
    --------
    >>> radar_area_normalised([1, 1, 1]), radar_area_normalised([0, 0, 0])
    (1.0, 0.0)
    >>> radar_area_normalised([1, 0.5, 1, 0.5])
    0.5
    """
    return radar_area(values) / radar_area([1.0] * len(values))


@dataclass(frozen=True)
class SystemIndicators:
    """One row of the measurement table."""

    name: str
    solutions: int
    hv: float
    hv_normalised: float
    onvg: int
    onvg_normalised: float
    onvgr: float
    d_nc: float | None
    ud: float | None
    os: float | None
    area: float
    excluded: int = 0

    def radar_values(self) -> tuple[float, float, float, float, float]:
        """The five radar axes in [0, 1]: HV (scaled as ``hv_scale`` says, capped at 1),
        ONVG/max ONVG, ONVGR, UD, OS (undefined → 0)."""
        return (
            min(self.hv_normalised, 1.0),
            self.onvg_normalised,
            self.onvgr,
            self.ud or 0.0,
            self.os or 0.0,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "solutions": self.solutions,
            "hv": self.hv,
            "hv_normalised": self.hv_normalised,
            "onvg": self.onvg,
            "onvg_normalised": self.onvg_normalised,
            "onvgr": self.onvgr,
            "d_nc": self.d_nc,
            "ud": self.ud,
            "os": self.os,
            "area": self.area,
            "excluded_from_hv": self.excluded,
        }


RADAR_AXES = ("HV", "ONVG/max", "ONVGR", "UD", "OS")
HV_SCALES = ("raw", "box")


def indicators(
    systems: Mapping[str, FloatArray],
    ref: FloatArray | None = None,
    sigma: float = 0.1,
    hv_scale: str = "box",
) -> tuple[list[SystemIndicators], FloatArray]:
    """The measurement table of paper 003 for several systems' solution sets (minimised).

    UD's distances are measured after scaling every objective by the joint Pareto set's
    range, so σ is unit-free (default 0.1). HV goes on the radar raw (``hv_scale="raw"``,
    the paper's convention for objectives in [0, 1]) or divided by the volume of the box
    between the joint ideal point and the reference point (``"box"``).

    Returns the rows and the reference point used.

    Examples
    --------
    >>> a = np.array([[0.2, 0.8], [0.5, 0.5], [0.8, 0.2]])
    >>> rows, ref = indicators({"A": a, "B": np.array([[0.3, 0.9], [0.9, 0.3]])},
    ...                        ref=np.array([1.0, 1.0]), hv_scale="raw")
    >>> [(r.name, round(r.hv, 4), r.onvg) for r in rows]  # 0.3·0.2 + 0.3·0.5 + 0.2·0.8
    [('A', 0.37, 3), ('B', 0.13, 2)]
    """
    names = list(systems)
    if not names:
        raise ValueError("no systems to compare")
    allpts = np.vstack([systems[n] for n in names])
    r = reference_point(allpts) if ref is None else np.asarray(ref, dtype=np.float64)
    joint = allpts[nondominated(allpts)]
    lo = joint.min(axis=0)
    span = joint.max(axis=0) - lo
    scale = np.where(span > 0, span, 1.0)
    if hv_scale not in HV_SCALES:
        raise ValueError(f"hv_scale must be one of {HV_SCALES}, got {hv_scale!r}")
    box = 1.0 if hv_scale == "raw" else float(np.prod(np.maximum(r - allpts.min(axis=0), 0)))
    rows = []
    fronts = {n: systems[n][nondominated(systems[n])] for n in names}
    max_onvg = max(f.shape[0] for f in fronts.values())
    for n in names:
        pts = systems[n]
        front = fronts[n]
        hv = hypervolume(front, r)
        d_nc = niche_deviation((front - lo) / scale, sigma)
        os_ = overall_spread(front, joint)
        partial = SystemIndicators(
            name=n,
            solutions=int(pts.shape[0]),
            hv=hv,
            hv_normalised=hv / box if box > 0 else 0.0,
            onvg=int(front.shape[0]),
            onvg_normalised=front.shape[0] / max_onvg,
            onvgr=front.shape[0] / pts.shape[0],
            d_nc=d_nc,
            ud=None if d_nc is None else 1.0 / (1.0 + d_nc),
            os=os_,
            area=0.0,
            excluded=int((~dominates_reference(pts, r)).sum()),
        )
        area = radar_area_normalised(partial.radar_values())
        rows.append(SystemIndicators(**{**partial.__dict__, "area": area}))
    return rows, r
