"""COPA from sorted columns (copa.Ranks): the same û, heads, sweeps and Table 2 summaries as
ranking every model, with the prefilters on (a tiny sample makes small pools use them)."""

from __future__ import annotations

import math
from unittest.mock import patch

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from tradeoff.choose import copa

pytestmark = pytest.mark.core

# Enough rows for the prefilters (more than twice the patched sample), small integer grids
# for ties in values, scores and Σû.
matrices = st.integers(20, 70).flatmap(
    lambda n: st.integers(2, 5).flatmap(
        lambda k: arrays(np.float64, (n, k), elements=st.integers(0, 6).map(float))
    )
)
ps = st.sampled_from([1.0, 2.0, 3.5, math.inf])
TINY_SAMPLE = 8


def _selectable(rng: np.random.Generator, n: int) -> np.ndarray | None:
    if rng.random() < 0.4:
        return None
    out = rng.random(n) < 0.7
    out[rng.integers(n)] = True
    return out


def _literal_summary(u: np.ndarray, columns: list[int], p: float, rows: np.ndarray) -> list[float]:
    """Table 2's CDF of the equally weighted p-norm, counted over every model."""
    s = copa.scores(u[:, columns], np.full(len(columns), 1.0 / len(columns)), p)
    return [np.count_nonzero(s < s[r]) / len(s) for r in rows]


@given(y=matrices)
def test_ranks_give_the_rank_cdf(y: np.ndarray) -> None:
    ranks = copa.Ranks(y)
    np.testing.assert_array_equal(ranks.of(np.arange(len(y))), copa.rank_cdf(y))
    np.testing.assert_array_equal(ranks.all(), copa.rank_cdf(y))


@given(y=matrices, p=ps, seed=st.integers(0, 2**32 - 1), steps=st.integers(2, 60))
def test_sweep_from_ranks_equals_the_sweep_over_every_model(
    y: np.ndarray, p: float, seed: int, steps: int
) -> None:
    rng = np.random.default_rng(seed)
    k = y.shape[1]
    group = sorted(rng.choice(k, size=int(rng.integers(1, k)), replace=False).tolist())
    alphas = np.linspace(0.0, 1.0, steps)
    selectable = _selectable(rng, len(y))
    expected = copa.sweep(copa.rank_cdf(y), group, alphas, p, selectable)
    with patch.object(copa, "SAMPLE", TINY_SAMPLE):
        got = copa.sweep_ranks(copa.Ranks(y), group, alphas, p, selectable)
    assert got.tolist() == expected.tolist()


def test_sweep_prefilter_keeps_models_tied_within_the_tolerance() -> None:
    """α = 1e-12 weighs the first objective so little that models a rank apart on it tie:
    the prefilter's margin grows and it keeps them (here: it keeps every model)."""
    rng = np.random.default_rng(3)
    y = rng.random((200, 3))
    alphas = np.array([0.0, 1e-12, 0.5, 1.0])
    expected = copa.sweep(copa.rank_cdf(y), [0], alphas, math.inf)
    with patch.object(copa, "SAMPLE", TINY_SAMPLE):
        ranks = copa.Ranks(y)
        weights = copa.alpha_weights(3, [0], alphas)
        assert copa._margin(ranks, weights, [0]) >= ranks.n // 4
        assert copa.sweep_ranks(ranks, [0], alphas, math.inf).tolist() == expected.tolist()


def test_sweep_prefilter_narrows_a_big_pool() -> None:
    rng = np.random.default_rng(0)
    y = rng.random((20_000, 5))
    alphas = np.linspace(0.0, 1.0, 101)
    ranks = copa.Ranks(y)
    rows = copa._sweep_prefilter(ranks, [0], copa.alpha_weights(5, [0], alphas), np.arange(len(y)))
    assert rows.size < len(y) // 20
    expected = copa.sweep(copa.rank_cdf(y), [0], alphas, math.inf)
    assert copa.sweep_ranks(ranks, [0], alphas, math.inf).tolist() == expected.tolist()


@given(y=matrices, p=ps, seed=st.integers(0, 2**32 - 1), limit=st.integers(1, 12))
def test_head_equals_ranking_every_model(y: np.ndarray, p: float, seed: int, limit: int) -> None:
    rng = np.random.default_rng(seed)
    k = y.shape[1]
    w = rng.dirichlet(np.ones(k))
    w[rng.random(k) < 0.3] = 0.0  # objectives without weight bound nothing
    if w.sum() == 0:
        w[0] = 1.0
    w = w / w.sum()
    selectable = _selectable(rng, len(y))
    u = copa.rank_cdf(y)
    s = copa.scores(u, w, p)
    expected = copa.rank_by(u, s, selectable, limit=limit)
    with patch.object(copa, "SAMPLE", TINY_SAMPLE):
        order, shown = copa.head(copa.Ranks(y), w, p, selectable, limit)
    assert order.tolist() == expected.tolist()
    assert shown.tolist() == s[expected].tolist()


@given(y=matrices, p=ps, seed=st.integers(0, 2**32 - 1))
def test_summary_cdf_counts_as_every_model_would(y: np.ndarray, p: float, seed: int) -> None:
    rng = np.random.default_rng(seed)
    k = y.shape[1]
    columns = sorted(rng.choice(k, size=int(rng.integers(1, k + 1)), replace=False).tolist())
    rows = rng.choice(len(y), size=int(rng.integers(1, 10)), replace=False)
    u = copa.rank_cdf(y)
    got = copa.summary_cdf(copa.Ranks(y), columns, p, rows)
    assert got.tolist() == _literal_summary(u, columns, p, rows)


def test_sweep_prefilter_margin_keeps_a_near_tie() -> None:
    """A model one rank worse than another on both parts (a, b) can still win: at α = 8e-5
    on 10⁵ models one rank of a moves the score by 8e-10, less than the tie tolerance, and
    Σû then prefers it. The prefilter's margin (4 ranks here) keeps it."""
    n = 100_000
    rng = np.random.default_rng(0)
    y = np.column_stack([rng.random(n), 100 + rng.random(n), 100 + rng.random(n)])
    x, other = 0, 777  # x is in the sample, so it is one of the prefilter's references
    y[x] = [0.5, 3.0, 5.0]
    y[other] = [np.nextafter(0.5, 1.0), 0.0, 6.0]
    y[1:3, 1] = [1.0, 2.0]  # two models between them on the second objective ...
    y[3:8, 2] = [0.0, 1.0, 2.0, 3.0, 4.0]  # ... and five on the third
    y[(y[:, 0] > 0.5) & (y[:, 0] < 0.6), 0] += 0.1  # nobody between them on the first
    alphas = np.array([0.0, 8e-5, 0.5, 1.0])
    expected = copa.sweep(copa.rank_cdf(y), [0], alphas, math.inf)
    assert expected[1] == other
    ranks = copa.Ranks(y)
    assert copa._margin(ranks, copa.alpha_weights(3, [0], alphas), [0]) == 4
    assert copa.sweep_ranks(ranks, [0], alphas, math.inf).tolist() == expected.tolist()
