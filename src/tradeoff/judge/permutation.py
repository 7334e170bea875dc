"""Paper 002's permutation test of a claimed Pareto improvement across seeds.

Δ = HV(new) − HV(baseline) with seed runs as exchangeable units, B random label
permutations, two-sided p = (1 + #{|Δ_b| ≥ |Δ|})/(B + 1). When there are no more ways to
split the runs than B, every split is enumerated instead (the exact test:
p = #{|Δ_s| ≥ |Δ|}/#splits, the observed split included). Below the paper's protocol
(K ≥ 5 seed runs per system, B ≥ 1,000 for a sampled test) the result carries a warning.
Points are minimised.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from tradeoff.arrays import BoolArray, FloatArray
from tradeoff.judge.fronts import dominates_reference, hypervolume, reference_point
from tradeoff.text import count


@dataclass(frozen=True)
class PermutationResult:
    baseline: str
    candidate: str
    delta: float
    p_value: float
    permutations: int
    reference: tuple[float, ...]
    null_deltas: FloatArray = field(repr=False, compare=False)
    exact: bool = False
    warnings: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "baseline": self.baseline,
            "candidate": self.candidate,
            "delta": self.delta,
            "p_value": self.p_value,
            "permutations": self.permutations,
            "exact": self.exact,
            "reference": list(self.reference),
            "warnings": list(self.warnings),
        }


MIN_RUNS = 5
"""Paper 002's protocol: at least this many seed runs per system."""
MIN_PERMUTATIONS = 1000
"""Paper 002's protocol: at least this many random permutations (a sampled test)."""


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
        B, the number of random relabellings of the seed runs; when the runs can be split
        in no more than B ways, all splits are enumerated (exact test).
    seed
        Seed of the permutations.

    Examples
    --------
    >>> base = [np.array([[0.3, 0.7], [0.7, 0.3]]) + d for d in (0, 0.01, 0.02, 0.03, 0.04)]
    >>> new = [np.array([[0.2, 0.6], [0.6, 0.2]]) + d for d in (0, 0.01, 0.02, 0.03, 0.04)]
    >>> r = permutation_test(base, new, ref=np.array([1.0, 1.0]), permutations=1000)
    >>> round(r.delta, 4), r.permutations, r.exact  # 252 = C(10, 5) splits, all enumerated
    (0.15, 252, True)
    >>> round(r.p_value, 4)  # 2/252: the observed split and its mirror
    0.0079
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
    splits = math.comb(n_units, k_new)
    exact = splits <= permutations
    if exact:
        combos = np.array(list(itertools.combinations(range(n_units), k_new)), dtype=np.intp)
        members = np.zeros((splits, n_units), dtype=bool)
        members[np.arange(splits)[:, None], combos] = True
        permutations = splits
    else:
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
    extreme = int(np.sum(np.abs(null) >= abs(delta) - tol))
    p = extreme / permutations if exact else (1 + extreme) / (permutations + 1)
    warnings = []
    if min(len(base), len(new)) < MIN_RUNS:
        warnings.append(
            f"{candidate} vs {baseline}: {count(min(len(base), len(new)), 'seed run')} on one "
            f"side; paper 002's protocol asks for at least {MIN_RUNS} per system."
        )
    if not exact and permutations < MIN_PERMUTATIONS:
        warnings.append(
            f"{candidate} vs {baseline}: B = {permutations} random permutations; paper 002's "
            f"protocol asks for at least {MIN_PERMUTATIONS}."
        )
    return PermutationResult(
        baseline,
        candidate,
        delta,
        p,
        permutations,
        tuple(float(x) for x in r),
        null,
        exact,
        tuple(warnings),
    )
