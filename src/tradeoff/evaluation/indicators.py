"""Indicators of a system's solution set and the radar chart (paper 003).

* Indicators of a system's solution set S (paper 003, §III-B): hypervolume HV, ONVG = |X_n|
  and ONVGR = |X_n|/|S| (eqs. 8–9, X_n the non-dominated solutions of S), uniform
  distribution UD(S, σ) = 1/(1 + D_nc) with D_nc the standard deviation of the niche counts
  nc(x_i, σ) = |{x ∈ X_n : ‖x − x_i‖ < σ}| − 1 (eqs. 2–4) and its complement 1 − UD, and
  overall Pareto spread OS(S, P) = Π_i (max_S s_i − min_S s_i)/(max_P p_i − min_P p_i)
  against the joint Pareto set P of all systems compared (eq. 5), each ratio capped
  at 1. A system with a single non-dominated solution has UD and OS "not defined" (use
  cases UC-1/UC-2).
* Radar chart (§III-C): the indicators on equally spaced axes, the polygon's area by the
  surveyor's formula (eq. 10), normalised by its theoretical range [0, area of the unit
  polygon] (≈ 2.378 for five axes), which reproduces the paper's Table 9b (0.83 and 0.04).

Points are minimised (see :mod:`tradeoff.evaluation.fronts`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tradeoff.evaluation.fronts import (
    FloatArray,
    dominates_reference,
    hypervolume,
    nondominated,
    reference_point,
)


def uniform_distribution(front: FloatArray, sigma: float) -> float | None:
    """UD(S, σ) = 1 / (1 + D_nc(S, σ)) (paper 003 eqs. 2–4); ``None`` below 2 points.

    ``front`` holds the non-dominated solutions X_n (already scaled); D_nc is the sample
    standard deviation (ddof = 1) of the niche counts.
    """
    if front.shape[0] < 2:
        return None
    dist = np.linalg.norm(front[:, None, :] - front[None, :, :], axis=2)
    nc = (dist < sigma).sum(axis=1) - 1
    return float(1.0 / (1.0 + np.std(nc, ddof=1)))


def overall_spread(front: FloatArray, joint: FloatArray) -> float | None:
    """OS(S, P) (paper 003 eq. 5); ``None`` below 2 points or for a degenerate joint front."""
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
    """Radar area min–max normalised over its theoretical range [0, unit polygon]."""
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
    ud: float | None
    ud_complement: float | None
    os: float | None
    area: float
    excluded: int = 0

    def radar_values(self) -> tuple[float, float, float, float, float]:
        """The five radar axes in [0, 1]: HV, ONVG/max ONVG, ONVGR, 1 − UD, OS (undefined → 0)."""
        return (
            self.hv_normalised,
            self.onvg_normalised,
            self.onvgr,
            self.ud_complement or 0.0,
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
            "ud": self.ud,
            "ud_complement": self.ud_complement,
            "os": self.os,
            "area": self.area,
            "excluded_from_hv": self.excluded,
        }


RADAR_AXES = ("HV", "ONVG/max", "ONVGR", "1 − UD", "OS")


def indicators(
    systems: Mapping[str, FloatArray],
    ref: FloatArray | None = None,
    sigma: float = 0.1,
) -> tuple[list[SystemIndicators], FloatArray]:
    """The measurement table of paper 003 for several systems' solution sets (minimised).

    UD's distances are measured after scaling every objective by the joint Pareto set's
    range, so σ is unit-free (default 0.1). HV is normalised for the radar by the volume of
    the box between the joint ideal point and the reference point.

    Returns the rows and the reference point used.
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
    box = float(np.prod(np.maximum(r - allpts.min(axis=0), 0)))
    rows = []
    fronts = {n: systems[n][nondominated(systems[n])] for n in names}
    max_onvg = max(f.shape[0] for f in fronts.values())
    for n in names:
        pts = systems[n]
        front = fronts[n]
        hv = hypervolume(front, r)
        ud = uniform_distribution((front - lo) / scale, sigma)
        os_ = overall_spread(front, joint)
        partial = SystemIndicators(
            name=n,
            solutions=int(pts.shape[0]),
            hv=hv,
            hv_normalised=hv / box if box > 0 else 0.0,
            onvg=int(front.shape[0]),
            onvg_normalised=front.shape[0] / max_onvg,
            onvgr=front.shape[0] / pts.shape[0],
            ud=ud,
            ud_complement=None if ud is None else 1.0 - ud,
            os=os_,
            area=0.0,
            excluded=int((~dominates_reference(pts, r)).sum()),
        )
        area = radar_area_normalised(partial.radar_values())
        rows.append(SystemIndicators(**{**partial.__dict__, "area": area}))
    return rows, r
