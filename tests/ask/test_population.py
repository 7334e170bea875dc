"""The synthetic population and the query classifiers built on it (paper 004 §4.2, §5)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tradeoff.ask.metric import l1_error
from tradeoff.ask.population import (
    Population,
    build_population,
    make_population,
    scenario_population,
    softmax_linear,
)
from tradeoff.ask.queries import QuerySpace, internal_bounds
from tradeoff.ask.scenario import load_scenario
from tradeoff.cli import main
from tradeoff.learn import Engine
from tradeoff.simulation.oracles import SimulatedOracle

from ..conftest import ROOT, small

pytestmark = pytest.mark.core


def test_same_seed_same_population() -> None:
    a = softmax_linear(k=3, samples=5000, seed=3)
    b = softmax_linear(k=3, samples=5000, seed=3)
    c = softmax_linear(k=3, samples=5000, seed=4)
    assert a.eta.dtype == np.float64
    np.testing.assert_array_equal(a.eta, b.eta)
    assert not np.array_equal(a.eta, c.eta)
    np.testing.assert_allclose(a.eta.sum(axis=1), 1.0)


def test_priors_are_computed_once_and_the_same_numbers() -> None:
    """Every engine on a population reads its priors (a mean over all n rows): the first
    read computes them, later reads return the same read-only array, equal bit for bit to
    the mean of η."""
    pop = softmax_linear(k=3, samples=5000, seed=3, prevalence=(0.2, 0.3, 0.5))
    expected = pop.eta.mean(axis=0)
    first = pop.priors
    np.testing.assert_array_equal(first, expected)
    assert not first.flags.writeable  # a caller cannot change what the next one reads
    assert pop.priors is first  # kept, not computed again


def test_population_matches_the_papers_recipe() -> None:
    """η = softmax(Wx), x ~ N(0, I₁₀), W ~ U[−1.5, 1.5]^{k×10}, rebuilt independently."""
    rng = np.random.default_rng(9)
    w = rng.uniform(-1.5, 1.5, size=(2, 10))
    x = rng.standard_normal((3000, 10))
    logits = x @ w.T
    eta = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(softmax_linear(k=2, samples=3000, seed=9).eta, eta, rtol=1e-12)


@pytest.mark.parametrize("prevalence", [(0.1, 0.9), (0.02, 0.98), (0.2, 0.3, 0.5)])
def test_prevalence_is_honoured(prevalence: tuple[float, ...]) -> None:
    pop = softmax_linear(k=len(prevalence), samples=20_000, seed=5, prevalence=prevalence)
    np.testing.assert_allclose(pop.priors, prevalence, atol=1e-9)


def brute_rbo(pop: Population, i: int, j: int, m: float) -> tuple[float, float]:
    eta = pop.eta
    pred_i = m * eta[:, i] >= (1 - m) * eta[:, j]
    return float(eta[pred_i, i].sum() / pop.n), float(eta[~pred_i, j].sum() / pop.n)


@given(m=st.floats(0, 1), pair=st.sampled_from([(0, 1), (0, 2), (2, 1)]))
def test_rbo_accuracies_match_a_direct_evaluation(m: float, pair: tuple[int, int]) -> None:
    pop = softmax_linear(k=3, samples=4000, seed=1)
    fast = pop.rbo_accuracies(*pair, m)
    slow = brute_rbo(pop, *pair, m)
    np.testing.assert_allclose(fast, slow, rtol=1e-9, atol=1e-12)


@given(m=st.floats(0.01, 0.99), other=st.floats(0, 1))
def test_rbo_classifier_is_optimal_for_its_weights(m: float, other: float) -> None:
    """Proposition 2: no other RBO threshold does better for the weights m·e_i + (1−m)·e_j."""
    pop = softmax_linear(k=2, samples=4000, seed=2)
    d1, d2 = pop.rbo_accuracies(0, 1, m)
    o1, o2 = pop.rbo_accuracies(0, 1, other)
    assert m * d1 + (1 - m) * d2 >= m * o1 + (1 - m) * o2 - 1e-15


def test_rbo_extremes_are_the_trivial_classifiers() -> None:
    pop = softmax_linear(k=2, samples=4000, seed=2)
    z = pop.priors
    np.testing.assert_allclose(pop.rbo_accuracies(0, 1, 1.0), (z[0], 0.0))
    np.testing.assert_allclose(pop.rbo_accuracies(0, 1, 0.0), (0.0, z[1]))


def test_ellipse_classifier_formulas() -> None:
    sc = small("paper-k2-reward-cost")
    space = QuerySpace(sc, softmax_linear(k=2, samples=4000, seed=2))
    zeta = space.priors[0]
    for attr in (0, 1):
        lower, upper = internal_bounds(sc.attributes[attr])
        for m in (0.0, 0.2, 0.5, 0.9, 1.0):
            prof = space.ellipse(0, attr, m)
            theta = math.atan2(zeta * m, (upper - lower) * (1 - m))
            internal = lower + (upper - lower) * math.cos(theta)
            natural = internal if sc.attributes[attr].kind == "reward" else -internal
            assert prof.attributes[attr] == pytest.approx(natural)
            assert prof.accuracies[0] == pytest.approx(zeta * math.sin(theta))
            assert prof.recalls[0] == pytest.approx(math.sin(theta))
            assert prof.accuracies[1] == 0.0
            # The other attribute sits at the middle of its range on every query.
            o = 1 - attr
            assert prof.attributes[o] == pytest.approx(sum(sc.attributes[o].range) / 2)


def test_ellipse_point_is_optimal_for_its_weights() -> None:
    """θ(m) maximises m·d₁ + (1−m)·attribute on the quarter ellipse (§4.2.2)."""
    sc = small("paper-k2-two-costs")
    space = QuerySpace(sc, softmax_linear(k=2, samples=4000, seed=2))
    zeta = space.priors[0]
    lower, upper = internal_bounds(sc.attributes[1])
    grid = np.linspace(0, math.pi / 2, 20001)
    for m in (0.05, 0.3, 0.5, 0.7, 0.95):
        values = m * zeta * np.sin(grid) + (1 - m) * (lower + (upper - lower) * np.cos(grid))
        assert space.ellipse_angle(0, 1, m) == pytest.approx(grid[np.argmax(values)], abs=1e-4)


def test_profiles_report_recall_as_share_of_class() -> None:
    sc = small("glaucoma-screening")

    space = QuerySpace(sc, build_population(sc.population, ("glaucoma", "healthy")))
    prof = space.rbo(0, 1, 0.5)
    for d, r, z in zip(prof.accuracies, prof.recalls, space.priors, strict=True):
        assert r == pytest.approx(d / z)
        assert 0 <= r <= 1


def test_warm_builds_every_pair_with_class_one_and_changes_nothing() -> None:
    sc = small("paper-k3-two-costs-reward")
    # fresh populations, not the process-wide cached one other tests have sorted pairs of
    build = make_population
    pop = build(sc.population, tuple(c.name for c in sc.classes))
    cold = QuerySpace(sc, pop).rbo(0, 2, 0.3)
    warm_pop = build(sc.population, tuple(c.name for c in sc.classes))
    assert warm_pop is not pop and not warm_pop._pairs
    space = QuerySpace(sc, warm_pop)
    space.warm()
    assert set(warm_pop._pairs) == {(0, 1), (0, 2)}
    assert space.rbo(0, 2, 0.3) == cold


REAL = ROOT / "scenarios" / "breast-cancer-triage-real.toml"


def test_a_real_probability_population_end_to_end(capsys: pytest.CaptureFixture[str]) -> None:
    """The shipped population of a real model's out-of-fold probabilities (no seed): the
    scenario checks, its priors are the file's class means (212 of 569 cases malignant, so
    ζ ≈ 0.37), the elicitation recovers a person's weights from it, and ``simulate`` runs."""
    import pandas as pd

    sc = load_scenario(REAL).scenario
    assert sc.population.kind == "probabilities" and sc.population.seed is None
    pop = scenario_population(sc)
    eta = pd.read_csv(ROOT / "scenarios" / "populations" / "breast-cancer-lr.csv")
    assert pop.n == 569 and pop.k == 2
    assert pop.priors == pytest.approx(eta[["malignant", "benign"]].mean().to_numpy())
    assert abs(pop.priors[0] - 212 / 569) < 0.02
    engine = Engine(sc, sc.elicitation.override(stop="weights", budget=30), seed=1)
    # swing weights 0.4, 0.3, 0.2, 0.1 (what each aspect's whole range is worth)
    spans = np.asarray(engine.space.spans)
    truth = tuple(float(x) for x in np.array([0.4, 0.3, 0.2, 0.1]) / spans)
    oracle = SimulatedOracle.for_scenario(sc, truth)
    while (q := engine.next_query()) is not None:
        engine.answer(oracle.choose(q))
    result = engine.result()
    assert result.priors == pytest.approx(tuple(pop.priors))
    assert l1_error(result.swing_weights, (0.4, 0.3, 0.2, 0.1)) < 0.03
    assert main(["scenario", "check", str(REAL)]) == 0
    assert "population probabilities from" in capsys.readouterr().out
    assert main(["simulate", str(REAL), "--runs", "2", "--json"]) == 0
    assert '"l1_error"' in capsys.readouterr().out


@pytest.mark.parametrize(
    ("population", "words"),
    [
        ('kind = "probabilities"\npath = "eta.csv"\nseed = 3', "seed only apply"),
        ('kind = "probabilities"\npath = "eta.csv"\nsamples = 5000', "samples only apply"),
        ('kind = "softmax-linear"', "add e.g. 'seed = 1'"),
    ],
)
def test_population_keys_that_do_not_apply_are_refused(
    tmp_path: Path, population: str, words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    text = REAL.read_text().replace(
        'kind = "probabilities"\npath = "populations/breast-cancer-lr.csv"', population
    )
    assert text != REAL.read_text()
    (tmp_path / "eta.csv").write_text("malignant,benign\n0.3,0.7\n0.6,0.4\n")
    (tmp_path / "s.toml").write_text(text.replace('path = "pools/', 'path = "/nonexistent/'))
    assert main(["scenario", "check", str(tmp_path / "s.toml")]) != 0
    err = capsys.readouterr().err
    assert words in err and "population" in err
