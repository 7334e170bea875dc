"""COPA (paper 000): rank CDF, weighted p-norm, tie-break, sweeps, baselines."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.stats import rankdata

from tradeoff.choose import copa
from tradeoff.pareto import dominated_by_any

pytestmark = pytest.mark.core

# Small integer grids make ties (equal values, equal scores) common.
matrices = st.integers(2, 30).flatmap(
    lambda n: st.integers(2, 4).flatmap(
        lambda k: arrays(np.float64, (n, k), elements=st.integers(0, 5).map(float))
    )
)
ps = st.sampled_from([1.0, 2.0, 3.5, math.inf])


@given(y=matrices)
def test_rank_cdf_matches_scipy_min_rank(y: np.ndarray) -> None:
    u = copa.rank_cdf(y)
    expected = (rankdata(y, method="min", axis=0) - 1) / y.shape[0]
    np.testing.assert_array_equal(u, expected)


def test_ties_take_the_minimum_rank() -> None:
    u = copa.rank_cdf(np.array([[2.0], [1.0], [2.0], [2.0], [5.0]]))
    assert u.ravel().tolist() == [0.2, 0.0, 0.2, 0.2, 0.8]


@given(y=matrices)
def test_rank_cdf_is_invariant_to_increasing_transforms(y: np.ndarray) -> None:
    transformed = np.column_stack([np.exp(y[:, 0]), *(3 * y[:, 1:].T + 7)])
    np.testing.assert_array_equal(copa.rank_cdf(y), copa.rank_cdf(transformed))


@given(y=matrices, p=ps, seed=st.integers(0, 1000))
def test_permuting_rows_does_not_change_the_pick(y: np.ndarray, p: float, seed: int) -> None:
    rng = np.random.default_rng(seed)
    w = rng.dirichlet(np.ones(y.shape[1]))
    perm = rng.permutation(y.shape[0])
    a = copa.rank_cdf(y)
    b = copa.rank_cdf(y[perm])
    pick = copa.select(a, w, p)
    pick_perm = perm[copa.select(b, w, p)]
    # Same model, or one tied with it in score (within the tie tolerance) and in Σû: such
    # ties go to row order, which the permutation changes. (Tied score and Σû do not imply
    # the same û vector: [0.6, 0, 0.6, 0] and [0, 0.6, 0.6, 0] at p = ∞, for instance.)
    s = copa.scores(a, w, p)
    assert s[pick] == pytest.approx(s[pick_perm], rel=copa.TIE_TOLERANCE, abs=copa.TIE_TOLERANCE)
    assert a[pick].sum() == pytest.approx(a[pick_perm].sum(), abs=1e-12)


@given(y=matrices, p=st.sampled_from([1.0, 2.0, 3.5]), seed=st.integers(0, 1000))
def test_finite_p_selects_a_pareto_optimal_model(y: np.ndarray, p: float, seed: int) -> None:
    w = np.random.default_rng(seed).dirichlet(np.ones(y.shape[1])) + 1e-3
    pick = copa.select(copa.rank_cdf(y), w / w.sum(), p)
    assert not dominated_by_any(y, [pick])[0]


_ZERO_WEIGHT_TIE = np.array([[1, 0, 2], [0, 2, 0], [0, 1, 1]], dtype=float)


@given(y=matrices, p=ps)
# At α = 1 rows 1 and 2 tie in score and in Σφ; row 2 is better only where the weight is 0.
@example(y=_ZERO_WEIGHT_TIE, p=2.0)
def test_sweep_equals_selecting_each_alpha_on_all_models(y: np.ndarray, p: float) -> None:
    phi = copa.rank_cdf(y)
    alphas = np.linspace(0, 1, 41)
    fast = copa.sweep(phi, [0], alphas, p)
    slow = [copa.select(phi, w, p) for w in copa.alpha_weights(y.shape[1], [0], alphas)]
    assert fast.tolist() == slow


@given(y=matrices, p=ps, seed=st.integers(0, 1000))
def test_prefiltered_weight_sweep_equals_full_selection(y: np.ndarray, p: float, seed: int) -> None:
    phi = copa.rank_cdf(y)
    w = np.random.default_rng(seed).dirichlet(np.ones(y.shape[1]), size=20)
    selectable = np.random.default_rng(seed).random(y.shape[0]) < 0.7
    if not selectable.any():
        selectable[0] = True
    fast = copa.sweep_weights(phi, w, p, selectable)
    slow = [copa.select(phi, row, p, selectable) for row in w]
    assert fast.tolist() == slow


def test_constraints_restrict_selection_not_the_population() -> None:
    y = np.array([[0.0, 3.0], [1.0, 1.0], [3.0, 0.0], [2.0, 2.0]])
    phi = copa.rank_cdf(y)
    selectable = np.array([True, False, True, True])
    pick = copa.select(phi, [0.5, 0.5], math.inf, selectable)
    assert pick != 1
    # û still counts the excluded model: model 3 is beaten by model 1 on both objectives.
    assert phi[3].tolist() == [0.5, 0.5]


def test_scores_use_weights_inside_the_power() -> None:
    u = np.array([[0.2, 0.4]])
    assert copa.scores(u, [0.5, 0.5], 2.0)[0] == pytest.approx(math.sqrt(0.1**2 + 0.2**2))
    assert copa.scores(u, [0.5, 0.5], math.inf)[0] == pytest.approx(0.2)
    assert copa.scores(u, [0.5, 0.5], 1.0)[0] == pytest.approx(0.3)


def test_baselines() -> None:
    y = np.array([[1.0, 10.0], [2.0, 20.0], [4.0, 30.0]])
    naive, _ = copa.normalise(y, "naive")
    ideal, _ = copa.normalise(y, "ideal")
    delta, _ = copa.normalise(y, "delta")
    norm, _ = copa.normalise(y, "norm")
    np.testing.assert_allclose(naive, y)
    # a maximised score in percent (negated in y) becomes its shortfall from 100
    raw, _ = copa.normalise(np.array([[-52.0, 33.0], [-6.0, 0.04]]), "naive", [True, False])
    np.testing.assert_allclose(raw, [[48.0, 33.0], [94.0, 0.04]])
    np.testing.assert_allclose(ideal, [[0, 0], [1, 10], [3, 20]])
    np.testing.assert_allclose(delta, [[0, 0], [1, 1], [3, 2]])
    np.testing.assert_allclose(norm, [[0, 0], [1 / 3, 0.5], [1, 1]])
    _, warnings = copa.normalise(np.array([[0.0], [1.0]]), "delta")
    assert warnings


def eq13(n: int = 240, seed: int = 0) -> np.ndarray:
    """The synthetic front of paper 000 eq. 13."""
    y1 = np.random.default_rng(seed).uniform(0.02, 0.2, n)
    y2 = 0.25 * np.cos(39 * y1**0.85) - np.log(y1) - 0.46
    return np.column_stack((y1, y2))


def test_synthetic_front_copa_spreads_and_baselines_concentrate() -> None:
    """Paper 000 Fig. 2: as α sweeps [0, 1] at p = ∞, COPA's picks spread uniformly along the
    front (their y₁ quantile is ~uniform) while Δ and norm crowd toward small y₁."""
    from scipy.stats import kstest

    y = eq13()
    u = copa.rank_cdf(y)
    alphas = np.linspace(0, 1, 201)
    span = y[:, 0].max() - y[:, 0].min()
    ks, median = {}, {}
    for method in ("copa", "naive", "delta", "norm"):
        phi, _ = copa.normalise(y, method)
        picks = copa.sweep(phi, [0], alphas, math.inf)
        ks[method] = kstest(u[picks, 0], "uniform").statistic
        median[method] = float(np.median(u[picks, 0]))
        if method == "copa":
            q05, q95 = np.quantile(y[picks, 0], [0.05, 0.95])
            assert (q95 - q05) / span >= 0.8
    assert ks["copa"] <= 0.1  # measured 0.07
    assert ks["delta"] >= 0.3 and ks["norm"] >= 0.15  # measured 0.45 and 0.18
    assert ks["naive"] >= 0.6 and median["naive"] > 0.9  # measured 0.82, 1.00: toward y₂
    # Fig. 3: at p = 1 the sweep only reaches the extremes and the middle (u₁ ≈ 1 − u₂).
    assert len(set(copa.sweep(u, [0], alphas, 1.0).tolist())) <= 5
    assert abs(median["copa"] - 0.5) < 0.05
    assert median["delta"] < 0.25 and median["norm"] < 0.45
    phi, _ = copa.normalise(y, "copa")
    pick = copa.select(phi, [0.5, 0.5], math.inf)
    # The min-max pick sits at the middle of both objectives' populations, y₁ ≈ 0.12 here
    # (the median of U(0.02, 0.2) is 0.11), next to the flat region around y₁ ≈ 0.1.
    assert abs(y[pick, 0] - 0.1) < 0.025
    assert phi[pick] == pytest.approx([0.5, 0.5], abs=0.01)


def test_alpha_weights_group() -> None:
    w = copa.alpha_weights(4, [0, 2], [0.6])[0]
    np.testing.assert_allclose(w, [0.3, 0.2, 0.3, 0.2])
    with pytest.raises(ValueError, match="some, but not all"):
        copa.alpha_weights(2, [0, 1], [0.5])


@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 80),
    limit=st.integers(1, 90),
    coarse=st.booleans(),
)
def test_rank_by_with_a_limit_is_the_head_of_the_full_order(
    seed: int, n: int, limit: int, coarse: bool
) -> None:
    """Sorting only the rows that can reach the first ``limit`` places gives the same head
    as sorting everything (ties in score, Σφ and near-ties at the top included)."""
    rng = np.random.default_rng(seed)
    phi = rng.random((n, 3))
    if coarse:
        phi = np.round(phi, 1)
    s = copa.scores(phi, np.array([0.5, 0.3, 0.2]), np.inf)
    selectable = rng.random(n) < 0.8
    if not selectable.any():
        selectable[0] = True
    full = copa.rank_by(phi, s, selectable)
    assert copa.rank_by(phi, s, selectable, limit=limit).tolist() == full[:limit].tolist()


@given(st.lists(st.text(), max_size=30))
def test_clean_texts_equals_clean_text_of_each(texts: list[str]) -> None:
    """The one-pass cleaning of many names gives what cleaning each name gives."""
    from tradeoff.text import clean_text, clean_texts

    out, changed = clean_texts(texts)
    assert list(out) == [clean_text(t) for t in texts]
    assert changed == (list(out) != texts)
