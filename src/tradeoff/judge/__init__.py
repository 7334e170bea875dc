"""Judging whole systems and fronts (the "judge" stage; see docs/architecture.md).

* :mod:`~tradeoff.judge.fronts`: minimisation form, reference points, hypervolume.
* :mod:`~tradeoff.judge.indicators`: paper 003's indicators and radar area.
* :mod:`~tradeoff.judge.permutation`: paper 002's permutation test.
* :mod:`~tradeoff.judge.generalisation`: paper 001's optimistic/pessimistic fronts.
* :mod:`~tradeoff.judge.systems`: the analyses over a pool that the faces call.

Tables and figures of these results are drawn by :mod:`tradeoff.judge.render`.
"""

from tradeoff.judge.fronts import (
    REFERENCE_MARGIN,
    check_reference,
    dominates_reference,
    hypervolume,
    nondominated,
    reference_point,
    to_minimisation,
    use_wfg,
)
from tradeoff.judge.generalisation import (
    GapResult,
    compare_generalisation,
    generalisation,
    set_dominates,
)
from tradeoff.judge.indicators import (
    RADAR_AXES,
    SystemIndicators,
    indicators,
    niche_deviation,
    overall_spread,
    radar_area,
    radar_area_normalised,
    uniform_distribution,
)
from tradeoff.judge.permutation import PermutationResult, permutation_test
from tradeoff.judge.systems import GapReport, SystemComparison, compare_systems, gaps

__all__ = [
    "RADAR_AXES",
    "REFERENCE_MARGIN",
    "GapReport",
    "GapResult",
    "PermutationResult",
    "SystemComparison",
    "SystemIndicators",
    "check_reference",
    "compare_generalisation",
    "compare_systems",
    "dominates_reference",
    "gaps",
    "generalisation",
    "hypervolume",
    "indicators",
    "niche_deviation",
    "nondominated",
    "overall_spread",
    "permutation_test",
    "radar_area",
    "radar_area_normalised",
    "reference_point",
    "set_dominates",
    "to_minimisation",
    "uniform_distribution",
    "use_wfg",
]
