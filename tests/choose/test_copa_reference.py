"""The plain numpy reference of benchmarks/copa_reference.py picks what the project picks."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from benchmarks import copa_reference as reference
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from tradeoff.choose import copa
from tradeoff.pool import Objective, load_pool

pytestmark = pytest.mark.core

matrices = st.integers(2, 40).flatmap(
    lambda n: st.integers(2, 5).flatmap(
        lambda k: arrays(np.float64, (n, k), elements=st.integers(0, 5).map(float))
    )
)


@given(y=matrices, steps=st.integers(2, 50), two=st.booleans())
def test_reference_sweep_equals_the_project_sweep(y: np.ndarray, steps: int, two: bool) -> None:
    group = [0, 1] if two and y.shape[1] > 2 else [0]
    alphas = np.linspace(0.0, 1.0, steps)
    u = reference.rank_cdf(y)
    np.testing.assert_array_equal(u, copa.rank_cdf(y))
    picks = reference.sweep_picks(u, group, alphas)
    assert picks.tolist() == copa.sweep(copa.rank_cdf(y), group, alphas, math.inf).tolist()


def test_reference_reads_and_picks_as_the_rank_path(tmp_path: Path) -> None:
    """From the Parquet file to the names picked, on a pool with and without ties."""
    rng = np.random.default_rng(7)
    alphas = np.linspace(0.0, 1.0, 1000)
    for y in (rng.random((3000, 7)), rng.integers(0, 12, (3000, 7)).astype(float)):
        frame = pd.DataFrame(y, columns=[f"o{i}" for i in range(7)])
        frame.insert(0, "model", [f"m{i}" for i in range(len(frame))])
        path = tmp_path / "pool.parquet"
        frame.to_parquet(path)
        names = reference.rank_sweep(path, list(frame.columns[1:]), [0], alphas)
        pool = load_pool(path, [Objective(c, "min") for c in frame.columns[1:]])
        picks = copa.sweep_ranks(pool.ranks, [0], alphas, math.inf)
        assert names.tolist() == [pool.names[i] for i in picks]
