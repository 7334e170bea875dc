"""The groups of the population picture (:mod:`tradeoff.study.groups`): clear groups
found whole and numbered by size, one homogeneous population found as one group."""

from __future__ import annotations

import numpy as np
import pytest

from tradeoff.study.groups import find_groups, group_picks

pytestmark = pytest.mark.core


def test_groups_recovered_on_a_clear_synthetic_case() -> None:
    rng = np.random.default_rng(5)
    centres = ([0.7, 0.1, 0.1, 0.1], [0.1, 0.7, 0.1, 0.1], [0.1, 0.1, 0.1, 0.7])
    sizes = (40, 30, 10)
    truth = np.repeat(np.arange(3), sizes)
    swing = np.vstack(
        [rng.dirichlet(50 * np.array(c), size=n) for c, n in zip(centres, sizes, strict=True)]
    )
    groups = find_groups(swing)
    assert groups.count == 3 and groups.sizes() == [40, 30, 10]
    # Each found group is exactly one true group (numbered by size, as the truth is).
    assert groups.labels.tolist() == truth.tolist()
    assert min(groups.sureness()) > 0.9
    assert np.allclose(groups.probabilities.sum(axis=1), 1.0)


def test_one_homogeneous_population_is_one_group() -> None:
    swing = np.random.default_rng(2).dirichlet([20.0, 10.0, 10.0, 5.0], size=80)
    assert find_groups(swing).count == 1


def test_each_group_picks_the_candidate_best_at_its_mean_weights() -> None:
    rng = np.random.default_rng(1)
    swing = np.vstack((rng.dirichlet([40, 5, 5], size=20), rng.dirichlet([5, 5, 40], size=20)))
    groups = find_groups(swing)
    rows = np.eye(3)  # candidate j is worth weight j: the group's largest weight picks
    assert group_picks(groups, [1.0, 1.0, 1.0], rows) == [0, 2] or group_picks(
        groups, [1.0, 1.0, 1.0], rows
    ) == [2, 0]
