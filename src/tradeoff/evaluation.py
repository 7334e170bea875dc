"""Judging whole systems: front indicators, radar chart, permutation test, generalisation.

* Indicators of a system's solution set S (paper 003, §III-B): hypervolume HV, ONVG = |X_n|
  and ONVGR = |X_n|/|S| (eqs. 8–9, X_n the non-dominated solutions of S), uniform
  distribution UD(S, σ) = 1/(1 + D_nc) with D_nc the standard deviation of the niche counts
  nc(x_i, σ) = |{x ∈ X_n : ‖x − x_i‖ < σ}| − 1 (eqs. 2–4) and its complement 1 − UD, and
  overall Pareto spread OS(S, P) = Π_i (max_S s_i − min_S s_i)/(max_P p_i − min_P p_i)
  against the joint Pareto set P of all systems compared (eq. 5), each ratio capped
  at 1. A system with a single
  non-dominated solution has UD and OS "not defined" (use cases UC-1/UC-2).
* Radar chart (§III-C): the indicators on equally spaced axes, the polygon's area by the
  surveyor's formula (eq. 10), normalised by its theoretical range [0, area of the unit
  polygon] (≈ 2.378 for five axes), which reproduces the paper's Table 9b (0.83 and 0.04).
* Permutation test (paper 002): Δ = HV(new) − HV(baseline) with seed runs as exchangeable
  units, B label permutations, two-sided p = (1 + #{|Δ_b| ≥ |Δ|})/(B + 1).
* Generalisation (paper 001, eqs. 1–2): the validation Pareto set, its optimistic and
  pessimistic fronts on test data, their hypervolumes and the approximation gap.

Every function takes objectives to *minimise*; :func:`to_minimisation` converts maximised
columns (and the reference point) by negation.

Reference points. Where none is given, the rule is r_k = w_k + 0.1·|w_k| (w_k the worst
observed value of objective k in minimisation form; 0.1·range if w_k = 0): "a fixed multiple
of the worst observed value" (paper 002 §6), valid for negative values too, and frozen once
for all permutations. Points that do not strictly dominate r contribute nothing; they are
reported, never silently dropped.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import moocore
import numpy as np
from numpy.typing import NDArray

from tradeoff.errors import InputError

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]

#: moocore computes hypervolumes up to 5 objectives, and for 6 with fewer than
#: WFG_MIN_POINTS_6D points; otherwise the WFG algorithm (hvwfg) is used, which
#: benchmarks/evaluation.py measures as faster there (7.2× at 7 objectives, 200 points).
MOOCORE_MAX_DIM = 5
WFG_MIN_POINTS_6D = 150


def use_wfg(points: int, objectives: int) -> bool:
    """Whether the WFG backend is the faster one for this size (measured)."""
    return objectives > 6 or (objectives == 6 and points >= WFG_MIN_POINTS_6D)


REFERENCE_MARGIN = 0.1


def to_minimisation(points: FloatArray, maximise: Sequence[bool] | BoolArray) -> FloatArray:
    """Negate the maximised columns so that every objective is minimised."""
    sign = np.where(np.asarray(maximise, dtype=bool), -1.0, 1.0)
    out: FloatArray = np.asarray(points, dtype=np.float64) * sign
    return out


def reference_point(points: FloatArray, margin: float = REFERENCE_MARGIN) -> FloatArray:
    """The default reference point of minimised ``points`` (see the module docstring)."""
    worst = points.max(axis=0)
    span = points.max(axis=0) - points.min(axis=0)
    step = np.where(worst != 0, np.abs(worst), np.where(span > 0, span, 1.0))
    out: FloatArray = worst + margin * step
    return out


def dominates_reference(points: FloatArray, ref: FloatArray) -> BoolArray:
    """Which points strictly dominate the reference point (all coordinates smaller)."""
    return np.asarray((points < ref).all(axis=1), dtype=bool)


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
    pts = pts[np.asarray(moocore.is_nondominated(pts, keep_weakly=False), dtype=bool)]
    if not use_wfg(pts.shape[0], pts.shape[1]):
        return float(moocore.hypervolume(pts, ref=r))
    import hvwfg

    return float(hvwfg.wfg(np.ascontiguousarray(pts), np.ascontiguousarray(r)))


def nondominated(points: FloatArray) -> BoolArray:
    """Mask of the non-dominated points (exact duplicates: the first only)."""
    return np.asarray(moocore.is_nondominated(points, keep_weakly=False), dtype=bool)


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


def measurement_table(rows: Sequence[SystemIndicators]) -> str:
    """The measurement table as Markdown ("n/d" where an indicator is not defined)."""

    def f(x: float | None) -> str:
        return "n/d" if x is None else f"{x:.4g}"

    out = [
        "| system | solutions | HV | HV (norm.) | ONVG | ONVG/max | ONVGR | UD | 1 − UD | OS "
        "| area |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        out.append(
            f"| {r.name} | {r.solutions} | {f(r.hv)} | {f(r.hv_normalised)} | {r.onvg} | "
            f"{f(r.onvg_normalised)} | {f(r.onvgr)} | {f(r.ud)} | {f(r.ud_complement)} | "
            f"{f(r.os)} | {f(r.area)} |"
        )
    return "\n".join(out)


def radar_png(rows: Sequence[SystemIndicators], path: str, title: str = "") -> None:
    """Draw the radar chart of ``rows`` to a PNG file (matplotlib)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = len(RADAR_AXES)
    theta = np.concatenate((2 * np.pi * np.arange(n) / n, [0.0]))
    fig = plt.figure(figsize=(5, 5))
    ax = fig.add_subplot(projection="polar")
    for r in rows:
        vals = list(r.radar_values())
        ax.plot(theta, vals + vals[:1], label=f"{r.name} (area {r.area:.2f})")
        ax.fill(theta, vals + vals[:1], alpha=0.15)
    ax.set_xticks(theta[:-1])
    ax.set_xticklabels(RADAR_AXES)
    ax.set_ylim(0, 1)
    ax.legend(loc="upper right", bbox_to_anchor=(1.3, 1.12), fontsize=8)
    if title:
        ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def radar_text(rows: Sequence[SystemIndicators], width: int = 41, height: int = 21) -> str:
    """A terminal rendering of the radar chart: each system's polygon drawn in characters."""
    grid = [[" "] * width for _ in range(height)]
    cx, cy = (width - 1) / 2, (height - 1) / 2
    n = len(RADAR_AXES)
    angles = [np.pi / 2 - 2 * np.pi * i / n for i in range(n)]

    def plot(x: float, y: float, ch: str) -> None:
        col = round(cx + x * cx)
        row = round(cy - y * cy)
        if 0 <= row < height and 0 <= col < width:
            grid[row][col] = ch

    for a in angles:
        for t in np.linspace(0, 1, 30):
            plot(t * math.cos(a), t * math.sin(a), "·")
    marks = "#*o+x%@"
    for k, r in enumerate(rows):
        vals = r.radar_values()
        pts = [(v * math.cos(a), v * math.sin(a)) for v, a in zip(vals, angles, strict=True)]
        for i in range(n):
            (x0, y0), (x1, y1) = pts[i], pts[(i + 1) % n]
            for t in np.linspace(0, 1, 40):
                plot(x0 + t * (x1 - x0), y0 + t * (y1 - y0), marks[k % len(marks)])
    for a, label in zip(angles, RADAR_AXES, strict=True):
        col = round(cx + 1.0 * math.cos(a) * cx)
        row = round(cy - 1.0 * math.sin(a) * cy)
        row = min(max(row, 0), height - 1)
        start = min(max(col - len(label) // 2, 0), width - len(label))
        for j, ch in enumerate(label):
            grid[row][start + j] = ch
    lines = ["".join(r).rstrip() for r in grid]
    legend = [f"  {marks[k % len(marks)]} {r.name}: area {r.area:.3f}" for k, r in enumerate(rows)]
    return "\n".join(lines + legend)


# --------------------------------------------------------------------------------------
# Permutation test (paper 002)
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PermutationResult:
    baseline: str
    candidate: str
    delta: float
    p_value: float
    permutations: int
    reference: tuple[float, ...]
    null_deltas: FloatArray = field(repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "baseline": self.baseline,
            "candidate": self.candidate,
            "delta": self.delta,
            "p_value": self.p_value,
            "permutations": self.permutations,
            "reference": list(self.reference),
        }


_GRID_MAX_CELLS = 400_000


def _grid_hypervolumes(
    points: FloatArray,
    unit_of: NDArray[np.int64],
    n_units: int,
    members: BoolArray,
    ref: FloatArray,
) -> FloatArray | None:
    """Hypervolumes of many unions of units at once, on the grid of all coordinates.

    Every cell of the grid spanned by the points' coordinates and the reference point is
    covered by a fixed set of units (a bit mask); a union of units covers a cell if it holds
    one of them. ``members`` (B, n_units) says which units each union holds. Returns
    ``None`` when the grid would be too large (then each union is computed on its own).
    """
    if n_units > 62:
        return None
    keep = dominates_reference(points, ref)
    pts, units = points[keep], unit_of[keep]
    d = points.shape[1]
    axes = [np.unique(np.concatenate((pts[:, k], [ref[k]]))) for k in range(d)]
    cells = math.prod(len(a) - 1 for a in axes)
    if cells == 0:
        return np.zeros(members.shape[0])
    if cells > _GRID_MAX_CELLS:
        return None
    lows = np.meshgrid(*[a[:-1] for a in axes], indexing="ij")
    widths = np.meshgrid(*[np.diff(a) for a in axes], indexing="ij")
    low = np.stack([g.ravel() for g in lows], axis=1)
    vol = np.prod(np.stack([g.ravel() for g in widths], axis=1), axis=1)
    covers = (pts[None, :, :] <= low[:, None, :]).all(axis=2)  # (cells, points)
    bits = np.left_shift(np.int64(1), units.astype(np.int64))
    mask = (covers * bits[None, :]).astype(np.int64)
    cell_mask = np.bitwise_or.reduce(mask, axis=1)
    nonzero = cell_mask != 0
    # Cells covered by the same set of units contribute together.
    cell_mask, inverse = np.unique(cell_mask[nonzero], return_inverse=True)
    vol = np.bincount(inverse.ravel(), weights=vol[nonzero], minlength=cell_mask.size)
    weights = np.left_shift(np.int64(1), np.arange(n_units, dtype=np.int64))
    subset = (members.astype(np.int64) * weights).sum(axis=1)
    out = np.empty(members.shape[0])
    step = max(1, 20_000_000 // max(1, cell_mask.size))
    for s in range(0, members.shape[0], step):
        hit = (subset[s : s + step, None] & cell_mask[None, :]) != 0
        out[s : s + step] = hit @ vol
    return out


def permutation_test(
    base: Sequence[FloatArray],
    new: Sequence[FloatArray],
    *,
    ref: FloatArray | None = None,
    permutations: int = 5000,
    seed: int = 0,
    baseline: str = "baseline",
    candidate: str = "candidate",
) -> PermutationResult:
    """Permutation test of Δ = HV(new) − HV(base) (paper 002 §3).

    Parameters
    ----------
    base, new
        One array of minimised points per seed run (a run may hold one or several points).
        A system's front is the non-dominated set of all its runs' points.
    ref
        Reference point; default: the rule of the module docstring on all runs, frozen.
    permutations
        B, the number of random relabellings of the seed runs.
    seed
        Seed of the permutations.
    """
    runs = list(base) + list(new)
    if not base or not new:
        raise ValueError("each system needs at least one seed run")
    allpts = np.vstack(runs)
    r = reference_point(allpts) if ref is None else np.asarray(ref, dtype=np.float64)
    unit_of = np.concatenate([np.full(len(x), i) for i, x in enumerate(runs)])
    n_units, k_new = len(runs), len(new)
    observed = np.zeros((2, n_units), dtype=bool)
    observed[0, len(base) :] = True
    observed[1, : len(base)] = True
    rng = np.random.default_rng(seed)
    keys = rng.random((permutations, n_units))
    idx = np.argsort(keys, axis=1)[:, :k_new]
    members = np.zeros((permutations, n_units), dtype=bool)
    np.put_along_axis(members, idx, True, axis=1)
    both = np.vstack((observed, members, ~members))
    hv = _grid_hypervolumes(allpts, unit_of, n_units, both, r)
    if hv is None:
        hv = np.array([hypervolume(allpts[m[unit_of]], r) for m in both])
    delta = float(hv[0] - hv[1])
    null = hv[2 : 2 + permutations] - hv[2 + permutations :]
    tol = 1e-12 * max(1.0, abs(delta))
    p = (1 + int(np.sum(np.abs(null) >= abs(delta) - tol))) / (permutations + 1)
    return PermutationResult(
        baseline, candidate, delta, p, permutations, tuple(float(x) for x in r), null
    )


# --------------------------------------------------------------------------------------
# Generalisation: optimistic and pessimistic fronts (paper 001)
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GapResult:
    """Validation Pareto set, its optimistic/pessimistic test fronts and their HVs."""

    validation_hv: float
    optimistic_hv: float
    pessimistic_hv: float
    validation_pareto: tuple[str, ...]
    optimistic: tuple[str, ...]
    pessimistic: tuple[str, ...]
    reference: tuple[float, ...]
    dropped: tuple[str, ...] = ()
    optimistic_points: FloatArray = field(default_factory=lambda: np.empty((0, 0)), repr=False)
    pessimistic_points: FloatArray = field(default_factory=lambda: np.empty((0, 0)), repr=False)

    @property
    def gap(self) -> float:
        """The approximation gap: optimistic HV − pessimistic HV."""
        return self.optimistic_hv - self.pessimistic_hv

    def to_dict(self) -> dict[str, Any]:
        return {
            "validation_hv": self.validation_hv,
            "optimistic_hv": self.optimistic_hv,
            "pessimistic_hv": self.pessimistic_hv,
            "gap": self.gap,
            "validation_pareto": list(self.validation_pareto),
            "optimistic": list(self.optimistic),
            "pessimistic": list(self.pessimistic),
            "reference": list(self.reference),
            "dropped": list(self.dropped),
        }


def _strictly_dominates(a: FloatArray, b: FloatArray) -> bool:
    return bool((a <= b).all() and (a < b).any())


def generalisation(
    validation: FloatArray,
    test: FloatArray,
    ids: Sequence[str],
    *,
    ref: FloatArray,
    drop_point: FloatArray | None = None,
) -> GapResult:
    """Optimistic and pessimistic test fronts of the validation Pareto set (paper 001).

    P̃ is the non-dominated set of the validation points (exact duplicates count once, the
    first configuration, as in the authors' code). Of P̃'s test points, the optimistic front
    keeps those no other test point of P̃ dominates (eq. 1), the pessimistic front those that
    dominate no other (eq. 2). Configurations whose validation or test point equals
    ``drop_point`` are dropped first.
    """
    val = np.asarray(validation, dtype=np.float64)
    tst = np.asarray(test, dtype=np.float64)
    names = np.asarray([str(i) for i in ids])
    dropped: tuple[str, ...] = ()
    if drop_point is not None:
        bad = (val == drop_point).all(axis=1) | (tst == drop_point).all(axis=1)
        dropped = tuple(str(x) for x in names[bad])
        val, tst, names = val[~bad], tst[~bad], names[~bad]
    pareto = nondominated(val)
    t = tst[pareto]
    ids_p = names[pareto]
    m = t.shape[0]
    opt = [i for i in range(m) if not any(_strictly_dominates(t[j], t[i]) for j in range(m))]
    pes = [i for i in range(m) if not any(_strictly_dominates(t[i], t[j]) for j in range(m))]
    r = np.asarray(ref, dtype=np.float64)
    return GapResult(
        validation_hv=hypervolume(val[pareto], r),
        optimistic_hv=hypervolume(t[opt], r),
        pessimistic_hv=hypervolume(t[pes], r),
        validation_pareto=tuple(str(x) for x in ids_p),
        optimistic=tuple(str(x) for x in ids_p[opt]),
        pessimistic=tuple(str(x) for x in ids_p[pes]),
        reference=tuple(float(x) for x in r),
        dropped=dropped,
        optimistic_points=t[opt],
        pessimistic_points=t[pes],
    )


def set_dominates(a: FloatArray, b: FloatArray) -> bool:
    """Pareto-front dominance: every point of ``b`` is weakly dominated by a point of ``a``,
    and the sets differ (Emmerich & Deutz 2018)."""
    if a.size == 0 or b.size == 0:
        return False
    weakly = all(bool(((a <= q).all(axis=1)).any()) for q in b)
    same = a.shape == b.shape and np.array_equal(np.sort(a, axis=0), np.sort(b, axis=0))
    return weakly and not same


def compare_generalisation(a: GapResult, b: GapResult) -> dict[str, Any]:
    """Paper 001 §4's three comparisons of methods A and B."""
    return {
        "a_pessimistic_above_b_optimistic": a.pessimistic_hv > b.optimistic_hv,
        "b_pessimistic_above_a_optimistic": b.pessimistic_hv > a.optimistic_hv,
        "a_pessimistic_dominates_b_optimistic": set_dominates(
            a.pessimistic_points, b.optimistic_points
        ),
        "b_pessimistic_dominates_a_optimistic": set_dominates(
            b.pessimistic_points, a.optimistic_points
        ),
        "gap_a": a.gap,
        "gap_b": b.gap,
        "smaller_gap": "a" if a.gap < b.gap else ("b" if b.gap < a.gap else "equal"),
    }


def check_reference(source: str, points: FloatArray, ref: FloatArray) -> None:
    """Refuse a reference point that no solution dominates (every HV would be 0)."""
    if not dominates_reference(points, ref).any():
        raise InputError.single(
            source,
            "--ref",
            f"no solution dominates the reference point {ref.tolist()} (in minimisation form).",
            "choose a reference point worse than the solutions on every objective, or omit "
            "--ref to use the default rule.",
        )
