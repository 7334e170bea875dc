"""Generalisation from validation to test (paper 001, eqs. 1–2).

The validation Pareto set, its optimistic and pessimistic fronts on test data, their
hypervolumes and the approximation gap; and paper 001 §4's comparisons of two methods.
Points are minimised.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tradeoff.arrays import FloatArray
from tradeoff.judge.fronts import hypervolume, nondominated
from tradeoff.pareto import nondominated as front_of


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

    Examples
    --------
    >>> val = np.array([[0.1, 0.9], [0.5, 0.5], [0.9, 0.1], [0.6, 0.6]])
    >>> test = np.array([[0.2, 0.9], [0.4, 0.7], [0.9, 0.2], [0.5, 0.5]])
    >>> g = generalisation(val, test, ["a", "b", "c", "d"], ref=np.array([1.0, 1.0]))
    >>> g.validation_pareto, round(g.validation_hv, 4), round(g.optimistic_hv, 4)
    (('a', 'b', 'c'), 0.33, 0.25)
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
    # Optimistic: no other point dominates it; pessimistic: it dominates no other point,
    # i.e. no other point dominates it when every objective is maximised instead.
    opt = front_of(t)
    pes = front_of(t, maximise=True)
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
    and the sets differ (Emmerich & Deutz 2018).

    Examples
    --------
    >>> a = np.array([[0.0, 1.0], [1.0, 0.0]])
    >>> b = np.array([[0.5, 1.0], [1.0, 0.5]])
    >>> set_dominates(a, b), set_dominates(b, a)
    (True, False)
    """
    if a.size == 0 or b.size == 0:
        return False
    weakly = all(bool(((a <= q).all(axis=1)).any()) for q in b)
    same = a.shape == b.shape and np.array_equal(np.sort(a, axis=0), np.sort(b, axis=0))
    return weakly and not same


def compare_generalisation(a: GapResult, b: GapResult) -> dict[str, Any]:
    """Paper 001 §4's three comparisons of methods A and B.

    Examples
    --------
    >>> val = np.array([[0.1, 0.9], [0.5, 0.5], [0.9, 0.1], [0.6, 0.6]])
    >>> test = np.array([[0.2, 0.9], [0.4, 0.7], [0.9, 0.2], [0.5, 0.5]])
    >>> ids, ref = ["a", "b", "c", "d"], np.array([1.0, 1.0])
    >>> a = generalisation(val, test, ids, ref=ref)
    >>> b = generalisation(val + 0.05, test + 0.05, ids, ref=ref)
    >>> out = compare_generalisation(a, b)
    >>> out["a_pessimistic_dominates_b_optimistic"], out["smaller_gap"]
    (True, 'equal')
    """
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
