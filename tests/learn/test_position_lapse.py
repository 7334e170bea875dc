"""The real-choices benchmark's position experiments (benchmarks/position_lapse.py,
benchmarks/choice_positions.py, benchmarks/recency_weights.py): with no growth the
experiment is the population prior exactly; its likelihood agrees with a loop over the
engine's answer model; the growth of the lapse is found in simulated people whose answers
tire and not in people whose do not; the position groups split the rows; the pooled
logit's weights by position find an aspect dropped late; discounting older answers leans
on the recent ones."""

from __future__ import annotations

import numpy as np
import pytest
from benchmarks.choice_models import mixed_logit_posterior
from benchmarks.choice_positions import (
    KINDS,
    LATE,
    SPREAD,
    dominated,
    first_checks,
    value_of_time,
    weights_by_position,
)
from benchmarks.position_lapse import (
    GROWTH,
    growing_predictive,
    growth_posterior,
    lapse_at,
    log_likelihoods,
    log_marginal,
)
from benchmarks.recency_weights import recency_posterior
from hypothesis import given
from hypothesis import strategies as st

from tradeoff.ask.scenario import load_scenario
from tradeoff.learn.choices import learn_choices, pairs
from tradeoff.learn.likelihood import NOISE_PRIOR, outcome_probabilities
from tradeoff.learn.pooled import (
    PopulationPrior,
    differences,
    pooled_predictive,
    population_prior,
)

pytestmark = [pytest.mark.stats, pytest.mark.other_path]

NO_GROWTH = np.array([1.0] + [0.0] * (len(GROWTH) - 1))


def test_no_growth_is_the_population_prior() -> None:
    sc = load_scenario("scenarios/train-trips.toml").scenario
    rng = np.random.default_rng(1)
    a = (rng.choice([20.0, 30, 40], (8, 1)) * [1, 0, 0, 0] + [0, 120, 0, 1]).tolist()
    b = (rng.choice([20.0, 30, 40], (8, 1)) * [1, 0, 0, 0] + [0, 150, 1, 0]).tolist()
    picks = ["left", "right", "left", "left", "right", "left"]
    engine = learn_choices(sc, pairs(sc, a[:6], b[:6]), picks, seed=2)
    particles = engine.particles()
    assert particles is not None
    prior = population_prior(sc, {"p": particles}, per_person=50)
    train, test = pairs(sc, a[:6], b[:6]), pairs(sc, a[6:], b[6:])
    expected, _ = pooled_predictive(sc, prior, train, picks, test)
    ll = log_likelihoods(prior, differences(sc, train), [0, 1, 0, 0, 1, 0], range(6))
    got, g = growing_predictive(prior, NO_GROWTH, ll, (differences(sc, test), [6, 7]))
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12)
    assert g[0] == pytest.approx(1.0)


def _prior(natural: np.ndarray, cell: tuple[int, int, int]) -> PopulationPrior:
    index = np.full(len(natural), np.ravel_multi_index(cell, NOISE_PRIOR.shape), dtype=np.intp)
    weights = np.full(len(natural), 1.0 / len(natural))
    return PopulationPrior(natural, index, weights, ("x",) * len(natural), NOISE_PRIOR, 0.1)


def test_log_likelihoods_agree_with_a_loop_over_the_answer_model() -> None:
    rng = np.random.default_rng(5)
    natural = rng.normal(size=(4, 2))
    cells = rng.integers(0, len(NOISE_PRIOR.cell_lapse), 4)
    prior = PopulationPrior(
        natural, cells.astype(np.intp), np.full(4, 0.25), ("x",) * 4, NOISE_PRIOR, 0.1
    )
    d = rng.normal(scale=0.01, size=(5, 2))
    picked, positions = [0, 1, 2, 0, 1], [0, 3, 4, 9, 12]
    got = log_likelihoods(prior, d, picked, positions)
    for gi, g in enumerate(GROWTH):
        for k in range(4):
            e, t, band = (float(v[k]) for v in NOISE_PRIOR.values(cells))
            total = 0.0
            for row in range(5):
                lapse = 1 - (1 - e) * (1 - g) ** positions[row]
                p = outcome_probabilities(float(d[row] @ natural[k]), lapse, t, band)
                total += np.log(max(float(p[picked[row]]), 1e-300))
            assert got[gi, k] == pytest.approx(total, rel=1e-9, abs=1e-9)


def _answers(
    rng: np.random.Generator, w: np.ndarray, growth: float, n: int
) -> tuple[np.ndarray, list[int], list[int]]:
    d = rng.normal(size=(n, 2))
    lapse = lapse_at(np.full(n, 0.05), np.full(n, growth), np.arange(n, dtype=float))
    random = rng.random(n) < lapse
    picked = np.where(random, rng.integers(0, 2, n), np.where(d @ w > 0, 0, 1))
    return d, picked.tolist(), list(range(n))


@pytest.mark.parametrize("growth", [0.0, 0.08])
def test_growth_is_found_only_where_answers_tire(growth: float) -> None:
    rng = np.random.default_rng(7)
    natural = rng.normal(size=(300, 2))
    prior = _prior(natural, (2, 0, 0))  # ε = 0.05, answers from the numbers
    margins = []
    for _ in range(80):
        d, picked, positions = _answers(rng, natural[rng.integers(300)], growth, 15)
        margins.append(log_marginal(prior, log_likelihoods(prior, d, picked, positions)))
    p = growth_posterior(margins)
    mean_g = float(p @ np.asarray(GROWTH))
    if growth == 0.0:
        assert p[0] > 0.5 and mean_g < 0.02
    else:
        assert p[0] < 0.01 and 0.04 <= mean_g <= 0.12


def test_a_person_who_tires_is_predicted_near_chance_late() -> None:
    rng = np.random.default_rng(3)
    prior = _prior(rng.normal(size=(200, 2)), (2, 0, 0))
    w = prior.natural[0]
    d = rng.normal(size=(10, 2))
    picked = np.where(d @ w > 0, 0, 1).tolist()
    ll = log_likelihoods(prior, d, picked, range(10))
    steep = np.zeros(len(GROWTH))
    steep[-1] = 1.0
    ask = np.array([w]) * 0.5
    early, _ = growing_predictive(prior, steep, ll, (ask, [0]))
    late, _ = growing_predictive(prior, steep, ll, (ask, [30]))
    flat, _ = growing_predictive(prior, NO_GROWTH, ll, (ask, [30]))
    assert early[0, 0] > 0.9 and flat[0, 0] > 0.9
    assert abs(late[0, 0] - 0.5) < 0.05


@given(st.integers(1, 25), st.data())
def test_position_groups_split_the_rows(n: int, data: st.DataObject) -> None:
    j = data.draw(st.integers(0, n - 1))
    pos, end = np.array([j]), np.array([n - 1 - j])
    assert sum(bool(member(pos, end)[0]) for _, member in SPREAD) == 1
    assert sum(bool(member(pos, end)[0]) for _, member in LATE) == (1 if n - 1 - j < 3 else 0)


def test_dominated_first_pairs_are_counted() -> None:
    d = np.array([[-1.0, 0.0], [1.0, -1.0]])
    text = first_checks([d, d[::-1]], [np.array([1.0, 0.0]), np.array([1.0, 0.0])])
    assert "for 1 of 2 people (the better trip picked by 1 of them); 1 later pair is" in text
    assert dominated(d).tolist() == [True, False]


def test_weights_by_position_see_time_lose_weight_late() -> None:
    rng = np.random.default_rng(11)
    people = []
    for _ in range(150):
        d = rng.normal(size=(12, 4)) * [6.0, 15.0, 0.5, 0.6]
        late = np.arange(12) >= 9
        beta = np.where(late[:, None], [-0.16, 0.0, -0.4, -1.2], [-0.16, -0.04, -0.4, -1.2])
        u = (d * beta).sum(axis=1)
        people.append((d, (rng.random(12) < 1 / (1 + np.exp(-u))).astype(np.float64)))
    fits = weights_by_position(people, repeats=10)
    early, last = (value_of_time(fits[k][0]) for k in (KINDS[0], KINDS[2]))
    assert 10 < early < 20 and abs(last) < 4
    assert fits[KINDS[2]][1][1] > 0  # a bootstrap standard error


def test_recent_answers_count_more_when_older_ones_are_discounted() -> None:
    rng = np.random.default_rng(4)
    draws = rng.normal(size=(2000, 2))
    d = np.tile([[1.0, 0.0]], (10, 1))
    y = np.array([0.0] * 6 + [1.0] * 4)  # B early, A lately
    plain, _ = mixed_logit_posterior(draws, d, y, d[:1])
    same = recency_posterior(draws, d, y, np.arange(10, 0, -1.0), d[0], 1.0)
    assert same == pytest.approx(float(plain[0]), rel=1e-9)
    recent = recency_posterior(draws, d, y, np.arange(10, 0, -1.0), d[0], 0.6)
    assert plain[0] < 0.5 < recent
