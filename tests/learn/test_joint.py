"""Strategy `joint`: a particle posterior checked against brute-force integration, one
likelihood for every kind of question, questions about real candidates (whole sessions and
their exact replay: test_joint_sessions.py)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tradeoff.ask.population import build_population
from tradeoff.ask.queries import ClassifierProfile, Query, QuerySpace
from tradeoff.ask.scenario import parse_scenario
from tradeoff.learn import Choice, Engine
from tradeoff.learn.joint import JointStrategy
from tradeoff.learn.likelihood import (
    NOISE_PRIOR,
    UNSURE_SHARE,
    NoiseGrid,
    _cell_masses,
    answer_log_likelihoods,
    answer_probabilities,
    outcome_probabilities,
)
from tradeoff.learn.particles import NOISE_TAIL, PARTICLES
from tradeoff.learn.swing_prior import draw_swing_prior, natural_weights, swing_log_prior
from tradeoff.simulation.oracles import Noise, SimulatedOracle

from ..conftest import scenario, spec

pytestmark = [pytest.mark.core, pytest.mark.other_path]

# -- the likelihood ------------------------------------------------------------------


def reference_probabilities(delta: float, eps: float, temp: float, band: float) -> list[float]:
    """The module docstring's likelihood, written out for one answer (slow and plain)."""

    def sig(x: float) -> float:
        return 1.0 / (1.0 + math.exp(-x)) if x > -700 else 0.0

    def band_model(b: float) -> list[float]:
        if temp == 0:
            up, down = float(delta > b), float(delta < -b)
            mid = float(abs(delta) <= b)
        else:
            up, down = sig((delta - b) / temp), sig((-delta - b) / temp)
            mid = sig((b - delta) / temp) - sig((-b - delta) / temp)
        return [eps / 2 + (1 - eps) * up, eps / 2 + (1 - eps) * down, (1 - eps) * mid]

    # ρ of the band model at δ, 1 − ρ of forced choice (the band model at 0).
    return [
        UNSURE_SHARE * x + (1 - UNSURE_SHARE) * y
        for x, y in zip(band_model(band), band_model(0.0), strict=True)
    ]


noise_cells = st.tuples(
    st.floats(-0.05, 0.05),
    st.sampled_from(NOISE_PRIOR.lapses),
    st.sampled_from(NOISE_PRIOR.temperatures),
    st.sampled_from(NOISE_PRIOR.bands),
)


@settings(max_examples=200)
@given(cell=noise_cells)
def test_outcome_probabilities_follow_the_documented_likelihood(
    cell: tuple[float, float, float, float],
) -> None:
    delta, eps, temp, band = cell
    got = outcome_probabilities(delta, eps, temp, band)
    assert got.sum() == pytest.approx(1.0, abs=1e-12)
    assert got == pytest.approx(reference_probabilities(*cell), abs=1e-12)
    fast = answer_probabilities(
        np.array([[delta]]), np.array([eps]), np.array([temp]), np.array([band])
    )[:, 0, 0]
    assert fast == pytest.approx(got, abs=1e-12)
    weighted = answer_probabilities(
        np.array([[delta]]), np.array([eps]), np.array([temp]), np.array([band]), np.array([0.3])
    )[:, 0, 0]
    assert weighted == pytest.approx(0.3 * got, abs=1e-12)
    for outcome in range(3):
        log_p = answer_log_likelihoods(
            np.array([[delta]]),
            np.array([outcome]),
            np.array([eps]),
            np.array([temp]),
            np.array([band]),
        )[0, 0]
        assert np.exp(log_p) == pytest.approx(got[outcome], abs=1e-12)


def test_log_likelihoods_of_many_answers_and_particles_follow_the_documented_likelihood() -> None:
    """Every kind of answer, particles answering from the numbers or not, value for value
    against the likelihood written out."""
    rng = np.random.default_rng(4)
    cells = rng.integers(0, len(NOISE_PRIOR.prior_masses()), 300)
    lapse, temp, band = NOISE_PRIOR.values(cells)
    delta = rng.normal(0, 0.004, (7, 300))
    outcomes = np.array([0, 1, 2, 0, 2, 1, 0])
    log_p = answer_log_likelihoods(delta, outcomes, lapse, temp, band)
    assert log_p.shape == (7, 300)
    for n in range(0, 300, 37):
        for a in range(7):
            p = reference_probabilities(delta[a, n], lapse[n], temp[n], band[n])[outcomes[a]]
            assert np.exp(log_p[a, n]) == pytest.approx(p, abs=1e-12)


def test_a_lapse_never_says_cant_tell_and_no_band_never_does() -> None:
    p = outcome_probabilities(np.linspace(-0.01, 0.01, 21), 0.3, 0.002, 0.0)
    assert np.all(p[:, 2] < 1e-12)
    p = outcome_probabilities(0.0, 0.4, 0.0, 0.001)
    assert p.tolist() == pytest.approx([0.2, 0.2, 0.6])


def test_noise_priors_are_wide_and_normalised() -> None:
    """Lapse rates of 0–50% (up to one answer in four wrong) all keep prior mass, and every
    prior over a grid sums to 1."""
    g = NOISE_PRIOR
    for masses in (g.lapse_prior, g.temperature_prior, g.band_prior, g.prior_masses()):
        assert masses.sum() == pytest.approx(1.0)
        assert np.all(masses > 0)
    big = np.asarray(g.lapses) >= 0.2
    assert g.lapse_prior[big].sum() > 0.15


def test_cell_masses_split_a_density_at_midpoints() -> None:
    xs = (np.arange(1000) + 0.5) / 1000
    masses = _cell_masses((0.0, 0.5, 1.0), np.ones_like(xs), xs)
    assert masses.tolist() == pytest.approx([0.25, 0.5, 0.25])


# -- the prior over swing weights ---------------------------------------------------


def simplex_grid(k: int) -> tuple[np.ndarray, float]:
    """Centroids of the k² triangles of equal area that tile the 2-simplex, and the area
    of one in the coordinates (s₁, s₂)."""
    pts = []
    for i in range(k):
        for j in range(k - i):
            pts.append(((i + 1 / 3) / k, (j + 1 / 3) / k))
            if i + j < k - 1:
                pts.append(((i + 2 / 3) / k, (j + 2 / 3) / k))
    p = np.array(pts)
    return np.column_stack((p, 1 - p.sum(axis=1))), 0.5 / k**2


@pytest.mark.parametrize(("sparse", "natural"), [(0.0, 0.0), (0.5, 0.0), (0.3, 0.2), (0, 1.0)])
def test_swing_prior_is_a_density_and_its_draws_follow_it(sparse: float, natural: float) -> None:
    spans = (0.4, 0.6, 15.0)
    s, area = simplex_grid(400)
    density = np.exp(swing_log_prior(s, spans, sparse, natural))
    # Dirichlet(½) is unbounded at the edges: integrate it to 1 only approximately.
    assert density.sum() * area == pytest.approx(1.0, abs=0.03 if sparse else 1e-3)
    draws = draw_swing_prior(np.random.default_rng(1), 40_000, spans, sparse, natural)
    mean = (density[:, None] * s).sum(axis=0) / density.sum()
    assert draws.mean(axis=0) == pytest.approx(mean, abs=0.01)


# -- a small case, integrated by brute force ----------------------------------------

SMALL = {
    "id": "small",
    "title": "two classes and a cost",
    "population": {"seed": 3, "samples": 1000, "prevalence": [0.3, 0.7]},
    "classes": [
        {"name": "a", "label": "a cases", "recall_range": [0.5, 1.0]},
        {"name": "b", "label": "b cases", "recall_range": [0.5, 1.0]},
    ],
    "attributes": [
        {
            "name": "cost",
            "kind": "cost",
            "unit": "$",
            "range": [0.0, 1.0],
            "label": "per case",
            "format": "${value:.3f} per case",
        }
    ],
}
#: A small grid of noise parameters for the many hypothesis examples (the full grid is
#: checked once below).
SMALL_GRID = NoiseGrid(
    (0.0, 0.1, 0.4),
    (0.0, 0.005, 0.03),
    (0.0, 0.004),
    np.array([0.5, 0.3, 0.2]),
    np.array([0.5, 0.3, 0.2]),
    np.array([0.7, 0.3]),
)


def small_space() -> QuerySpace:
    sc = parse_scenario(SMALL)
    return QuerySpace(sc, build_population(sc.population, ("a", "b")), context=True)


def profile(space: QuerySpace, row: np.ndarray) -> ClassifierProfile:
    """Any option with accuracies d and a cost (row in the metric's terms)."""
    d = tuple(float(x) for x in row[:2])
    return ClassifierProfile(
        d, tuple(x / z for x, z in zip(d, space.priors, strict=True)), (-float(row[2]),)
    )


def brute_force(
    strategy: JointStrategy, answers: list[tuple[np.ndarray, int]], k: int = 300
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """P(best) of every candidate and the grid's robust posterior (points, mass) by
    numerical integration on ``simplex_grid(k)``: the same prior and likelihood, the joint
    posterior of (weights, noise cell) on the grid, then, for each of ε, T and δ, the
    posterior given that it lies in its upper ``NOISE_TAIL`` of mass (the boundary level
    in part), averaged over the three (``ParticlePosterior.robust_weights``, written out)."""
    s, _ = simplex_grid(k)
    spans = strategy.space.spans
    prior = np.exp(swing_log_prior(s, spans, strategy.sparse_share, strategy.natural_share))
    a = natural_weights(s, spans)
    grid = strategy.noise_grid
    joint = np.zeros((len(s), len(grid.prior_masses())))
    for g, mass in enumerate(grid.prior_masses()):
        eps, temp, band = grid.cell_lapse[g], grid.cell_temperature[g], grid.cell_band[g]
        lik = np.ones(len(s))
        for diff, outcome in answers:
            lik *= outcome_probabilities(a @ diff, eps, temp, band)[:, outcome]
        joint[:, g] = prior * mass * lik
    joint /= joint.sum()
    parts = []
    for values in (grid.cell_lapse, grid.cell_temperature, grid.cell_band):
        levels = np.unique(values)
        per_level = np.array([joint[:, values == v].sum() for v in levels])
        if np.count_nonzero(per_level > 1e-300) < 2:
            parts.append(joint.sum(axis=1))
            continue
        taken = np.zeros(len(s))
        left = NOISE_TAIL
        for level in levels[::-1]:  # the noisiest first
            m = joint[:, values == level].sum(axis=1)
            share = min(1.0, left / m.sum()) if m.sum() > 0 else 0.0
            taken += share * m
            left -= share * m.sum()
            if left <= 1e-15:
                break
        parts.append(taken / taken.sum())
    post = np.mean(parts, axis=0)
    assert strategy.candidates is not None
    best = np.argmax(a @ strategy.candidates.T, axis=1)
    p_best = np.bincount(best, weights=post, minlength=len(strategy.candidates))
    return p_best, s, post


def cdf_at(values: np.ndarray, mass: np.ndarray, x: float) -> float:
    return float(mass[values <= x].sum())


CHOICES = [Choice.LEFT, Choice.RIGHT, Choice.INDIFFERENT]
row = st.tuples(st.floats(0.15, 0.3), st.floats(0.35, 0.7), st.floats(-1.0, 0.0))


def trade_off(pair: tuple[tuple[float, ...], tuple[float, ...]]) -> bool:
    """Each option better on something: the only pairs the strategy shows."""
    diff = np.subtract(pair[0], pair[1])
    return bool(np.any(diff > 1e-3) and np.any(diff < -1e-3))


answer = st.tuples(st.tuples(row, row).filter(trade_off), st.sampled_from([0, 0, 1, 1, 2])).map(
    lambda x: (x[0][0], x[0][1], x[1])
)


rows_st = st.lists(row, min_size=2, max_size=5)
answers_st = st.lists(answer, min_size=1, max_size=6)


#: How far the particles' P(best) may lie from numerical integration: with N particles, a
#: share p estimated from independent draws has standard deviation √(p(1 − p)/N) ≤ 0.5/√N;
#: resampling and moving keep the particles correlated, which we allow for as an effective
#: sample of N/4: with N = 2,000 that is 0.022, and 4 of them, 0.089, would flag a real error.
P_BEST_TOLERANCE = 4 * 0.5 / math.sqrt(PARTICLES / 4)
#: How far the CDF of numerical integration at a 90% interval's end may lie from 5% or 95%.
QUANTILE_TOLERANCE = 0.07


# The examples are derandomised in every run (not only in CI): the bounds are statistical,
# and an example hypothesis finds at random can exceed them by chance.
# `benchmarks.posterior_check` draws 1,200 random examples and measures how far the errors
# reach (benchmarks/results/posterior_check.md): beyond the bounds for 3 of them, and for two
# examples found at random (two "can't tell" answers) up to 0.13 in P(best) with this small
# noise grid, 0.034 with the grid the engine ships with.
@settings(max_examples=6, deadline=None, derandomize=True)
@given(rows=rows_st, answers=answers_st, seed=st.integers(0, 1000))
def test_particles_match_brute_force_integration(
    rows: list[tuple[float, float, float]], answers: list[tuple[Any, Any, int]], seed: int
) -> None:
    """P(best) and the 90% intervals from the particles against numerical integration
    (:func:`brute_force_errors`), a few examples on a 20,000-cell grid."""
    p_error, q_error = brute_force_errors(rows, answers, seed, k=200)
    assert p_error <= P_BEST_TOLERANCE
    assert q_error <= QUANTILE_TOLERANCE


@pytest.mark.slow
@settings(max_examples=15, deadline=None, derandomize=True)
@given(rows=rows_st, answers=answers_st, seed=st.integers(0, 1000))
def test_particles_match_brute_force_integration_on_many(
    rows: list[tuple[float, float, float]], answers: list[tuple[Any, Any, int]], seed: int
) -> None:
    """The same on 15 more examples and a 90,000-cell grid (CI)."""
    p_error, q_error = brute_force_errors(rows, answers, seed, k=300)
    assert p_error <= P_BEST_TOLERANCE
    assert q_error <= QUANTILE_TOLERANCE


def brute_force_errors(
    rows: list[tuple[float, float, float]],
    answers: list[tuple[Any, Any, int]],
    seed: int,
    k: int,
    noise_grid: NoiseGrid | None = None,
) -> tuple[float, float]:
    """How far the particles lie from numerical integration over a fine simplex grid under
    the same prior and likelihood (and the same weighing up of the noisy tails), for
    answers to pairs that each read better on something (what the strategy shows; after
    "can't tell" to a pair one option dominates, a person's answer nearly nothing can
    explain, the particles were measured off by up to 0.13 in P(best)): the largest
    difference in any candidate's P(best), and the largest distance of the grid's CDF at an
    end of a 90% interval (of any weight, natural or swing) from 5% or 95%. A quantile is
    checked where the grid's CDF puts it, so the grid's resolution does not enter.
    ``noise_grid``: the grid of (ε, T, δ) (``SMALL_GRID`` if not given).

    Measured (tests) on 16 random examples of this kind: at most 0.030 in P(best) and 0.044
    in a quantile's CDF (with 6 moves per resample instead of 12, 0.12: the particles had
    not mixed, which this check caught); on 1,200 in ``benchmarks.posterior_check``.
    """
    space = small_space()
    candidates = np.array(rows)
    strategy = JointStrategy(
        space,
        spec(parse_scenario(SMALL)),
        seed,
        candidates=candidates,
        noise_grid=SMALL_GRID if noise_grid is None else noise_grid,
    )
    state = strategy.initial()
    recorded = []
    for left, right, outcome in answers:
        lp, rp = profile(space, np.array(left)), profile(space, np.array(right))
        query = Query(lp, rp, (0, 1), (0.5, 0.5))
        state = strategy.update(state, query, CHOICES[outcome])
        recorded.append((np.array(state.records[-1].diff), outcome))
    p_grid, s, post = brute_force(strategy, recorded, k=k)
    p_particles = strategy.p_best(state)
    assert p_particles is not None
    result = strategy.result(state)
    assert result.intervals is not None and result.swing_intervals is not None
    a = natural_weights(s, space.spans)
    q_error = 0.0
    for i in range(3):
        checks = ((a[:, i], result.intervals[i]), (s[:, i], result.swing_intervals[i]))
        for values, (lo, hi) in checks:
            q_error = max(
                q_error,
                abs(cdf_at(values, post, lo) - 0.05),
                abs(cdf_at(values, post, hi) - 0.95),
            )
    return float(np.abs(p_particles - p_grid).max()), q_error


@pytest.mark.stats  # a statistical run in a file of the core tier
def test_particles_match_brute_force_with_the_full_noise_grid() -> None:
    """The same check once with the noise grid the strategy ships with, after answers that
    contradict each other (so the lapse and the temperature matter)."""
    space = small_space()
    rng = np.random.default_rng(4)
    candidates = np.column_stack(
        (rng.uniform(0.15, 0.3, 6), rng.uniform(0.35, 0.7, 6), rng.uniform(-1, 0, 6))
    )
    strategy = JointStrategy(space, spec(parse_scenario(SMALL)), 7, candidates=candidates)
    state = strategy.initial()
    recorded = []
    pairs = [(0, 1, 0), (1, 2, 0), (0, 2, 1), (3, 4, 0), (4, 3, 0), (2, 5, 2)]
    for i, j, outcome in pairs:
        left, right = profile(space, candidates[i]), profile(space, candidates[j])
        query = Query(left, right, (0, 1), (0.5, 0.5))
        state = strategy.update(state, query, CHOICES[outcome])
        recorded.append((np.array(state.records[-1].diff), outcome))
    p_grid, _, _ = brute_force(strategy, recorded, k=200)
    p_particles = strategy.p_best(state)
    assert p_particles is not None
    assert np.abs(p_particles - p_grid).max() <= 0.05, (p_particles, p_grid)


# -- the strategy in the engine -------------------------------------------------------


def pool_rows(sc: Any) -> np.ndarray:
    from tradeoff.ask.population import scenario_population
    from tradeoff.choose.pool_metric import metric_vectors
    from tradeoff.choose.selection import scenario_pool

    pool = scenario_pool(sc, "scenarios")
    return metric_vectors(sc, pool, scenario_population(sc).priors.tolist())


@pytest.fixture(scope="module")
def triage() -> tuple[Any, np.ndarray]:
    sc = scenario("breast-cancer-triage")
    return sc, pool_rows(sc)


def test_candidate_questions_show_two_real_models_as_the_screen_does(
    triage: tuple[Any, np.ndarray],
) -> None:
    from tradeoff.ask.shown import shown_profile

    sc, rows = triage
    engine = Engine(sc, spec(sc, strategy="joint", budget=30), seed=2, candidates=rows)
    strategy = engine._strategy
    assert isinstance(strategy, JointStrategy)
    asked = []
    oracle = SimulatedOracle.for_scenario(sc, (0.3, 0.5, 0.1, 0.1))
    while (q := engine.next_query()) is not None:
        asked.append(q)
        engine.answer(oracle.choose(q))
    picks = [q for q in asked if q.kind == "candidates"]
    for q in picks:
        assert q.candidates is not None
        i, j = q.candidates
        for index, shown in ((i, q.left), (j, q.right)):
            d = tuple(rows[index][:2])
            raw = ClassifierProfile(
                d,
                tuple(x / z for x, z in zip(d, engine.space.priors, strict=True)),
                tuple(-rows[index][2:]),
            )
            assert shown == shown_profile(sc, raw)
        assert q.pair == (0, 0) and q.threshold is None
    assert all(q.kind == "trade" and q.candidates is None for q in asked if q not in picks)
    assert engine.stop_reason() in ("decided", "budget")


def test_a_recorded_candidate_question_replays_without_its_labels(
    triage: tuple[Any, np.ndarray],
) -> None:
    """A session records a question's options, not its labels: read back as a plain
    question it equals the one asked, and an engine that would ask something else still
    accepts it (both options are candidates as shown) and reaches the same state."""
    sc, rows = triage
    strategy_spec = spec(sc, strategy="joint", budget=30)
    engine = Engine(sc, strategy_spec, seed=1, candidates=rows)
    strategy = engine._strategy
    assert isinstance(strategy, JointStrategy)
    front = strategy._front
    query = strategy.candidate_query(int(front[0]), int(front[1]))
    assert query is not None and query.kind == "candidates"
    plain = Query(query.left, query.right, query.pair, query.params, query.threshold)
    assert plain == query and plain.kind == "trade"
    engine.answer_recorded(plain, Choice.LEFT)
    other = Engine(sc, strategy_spec, seed=1, candidates=rows)
    other.answer_recorded(query, Choice.LEFT)
    assert engine.state == other.state
    assert np.array_equal(engine.state.swing, other.state.swing)
    assert engine.state.records[0].kind == "candidates"
    assert engine.state.records[0].candidates == query.candidates


def test_repeats_answered_the_same_way_count_whatever_the_last_bits() -> None:
    """The pilot's case: three repeated questions answered the same way, the repeat's
    statistics differing from the first asking's in the last bits (0.6154793999985732
    against 0.615479399998573), are 3 of 3 answered the same way; a reversed answer and a
    "can't tell" against a preference are not."""
    from dataclasses import replace

    from tradeoff.learn.joint_state import JointRecord, JointState

    shown = ((("a",), ("b",)), (("c",), ("d",)), (("e",), ("f",)))
    first = [
        JointRecord((0.6154793999985732, 0.0, -0.3, 0.0), 0, "trade", shown[0]),
        JointRecord((0.0, -0.08407159999980518, 3.2, 0.0), 1, "trade", shown[1]),
        JointRecord((-0.06706800000026442, 0.0, 0.6, 0.0), 1, "trade", shown[2]),
    ]
    again = [
        JointRecord((-0.615479399998573, 0.0, 0.3, 0.0), 1, "trade", shown[0], repeat_of=0),
        JointRecord((0.0, -0.0840715999998052, 3.2, 0.0), 1, "trade", shown[1], repeat_of=1),
        JointRecord((0.06706800000026436, 0.0, -0.6, 0.0), 0, "trade", shown[2], repeat_of=2),
    ]
    strategy = JointStrategy(small_space(), spec(small_space().scenario, strategy="joint"), 0)
    assert strategy.consistency(JointState(tuple(first + again))) == (3, 3)
    reversed_ = [replace(again[0], outcome=0), replace(again[1], outcome=2), again[2]]
    assert strategy.consistency(JointState(tuple(first + reversed_))) == (1, 3)


def test_trades_pair_any_class_with_any_other_statistic(triage: tuple[Any, np.ndarray]) -> None:
    sc, _ = triage
    engine = Engine(sc, spec(sc, strategy="joint", budget=30, stop="weights"), seed=4)
    oracle = SimulatedOracle.for_scenario(sc, (0.25, 0.25, 0.25, 0.25))
    pairs = set()
    while (q := engine.next_query()) is not None:
        pairs.add(q.pair)
        engine.answer(oracle.choose(q))
    assert any(p[0] == 1 for p in pairs), pairs  # the second class as the reference


def test_simplex_grid_tiles_the_simplex() -> None:
    s, area = simplex_grid(50)
    assert len(s) == 50**2 and len(s) * area == pytest.approx(0.5)
    assert np.all(s > 0)
    assert len({tuple(np.round(p, 9)) for p in s}) == len(s)


def slow_scores(strategy: JointStrategy, state: Any, options: list[Any]) -> np.ndarray:
    """The look-ahead's loss of every option written out particle by particle and answer by
    answer: expected regret of the Bayes pick after the answer, less the information the
    answer carries about the best model (the module docstring of tradeoff.learn.joint)."""
    from tradeoff.learn.lookahead import INFORMATION_WEIGHT

    summary = strategy.posterior.summary(state)
    a, w, psi, best = summary.natural, summary.weights, summary.psi, summary.best
    assert psi is not None and best is not None
    lapse, temp, band = strategy.noise_grid.values(state.noise)
    top = psi.max(axis=1)
    spread = float(np.sum(w * (top - psi.min(axis=1))))
    out = []
    for option in options:
        delta = a @ option.diff
        cells = zip(delta, lapse, temp, band, strict=True)
        probs = np.array([reference_probabilities(*cell) for cell in cells])
        value = 0.0
        info = 0.0
        for answer in range(3):
            joint = w * probs[:, answer]
            value += max(float(np.sum(joint * psi[:, m])) for m in range(psi.shape[1]))
            p_answer = joint.sum()
            for m in range(psi.shape[1]):
                p_am = float(joint[best == m].sum())
                p_m = float(w[best == m].sum())
                if p_am > 0:
                    info += p_am * math.log(p_am / (p_answer * p_m))
        regret = (float(np.sum(w * top)) - value) / spread
        out.append(max(regret, 0.0) - INFORMATION_WEIGHT * info)
    return np.array(out)


def test_the_look_ahead_matches_a_slow_particle_by_particle_version(
    triage: tuple[Any, np.ndarray],
) -> None:
    sc, rows = triage
    engine = Engine(sc, spec(sc, strategy="joint", budget=30), seed=3, candidates=rows)
    strategy = engine._strategy
    assert isinstance(strategy, JointStrategy)
    oracle = SimulatedOracle.for_scenario(sc, (0.3, 0.5, 0.1, 0.1), noise=Noise("flip", 0.1))
    for _ in range(4):
        q = engine.next_query()
        assert q is not None
        engine.answer(oracle.choose(q))
    state = engine.state
    summary = strategy.posterior.summary(state)
    options = strategy._options(summary)[:12]
    fast = strategy._scores(summary, state, options)
    assert fast == pytest.approx(slow_scores(strategy, state, options), rel=1e-9, abs=1e-12)


def test_trades_are_shared_by_strategies_on_the_same_space_only(
    triage: tuple[Any, np.ndarray],
) -> None:
    """A trade, and the questions about two candidates, are built once per question space;
    another scenario (or the same one with other rounding) gets its own, and a trade built
    afresh equals the shared one."""
    from tradeoff.learn import joint_questions

    sc, rows = triage
    first = Engine(sc, spec(sc, strategy="joint"), seed=1, candidates=rows)._strategy
    second = Engine(sc, spec(sc, strategy="joint"), seed=2, candidates=rows)._strategy
    exact = Engine(sc, spec(sc, strategy="joint", rounding="exact"), seed=1)._strategy
    other_sc = scenario("glaucoma-screening")
    other = Engine(other_sc, spec(other_sc, strategy="joint"), seed=1)._strategy
    assert isinstance(first, JointStrategy) and isinstance(second, JointStrategy)
    assert isinstance(exact, JointStrategy) and isinstance(other, JointStrategy)
    assert first._space_questions.key == second._space_questions.key
    assert first._pairs is second._pairs and np.array_equal(first._front, second._front)
    keys = (first._space_questions.key, exact._space_questions.key, other._space_questions.key)
    assert len(set(keys)) == 3
    t = first._space_questions.trade(0, 2, 0.5, 0.6)
    assert second._space_questions.trade(0, 2, 0.5, 0.6) is t
    assert exact._space_questions.trade(0, 2, 0.5, 0.6) is not t
    joint_questions._TRADES.clear()
    joint_questions._SHOWN_TRADES.clear()
    again = second._space_questions.trade(0, 2, 0.5, 0.6)
    assert again is not t and again.query == t.query and again.keys == t.keys
    assert np.array_equal(again.diff, t.diff)


@pytest.mark.parametrize("seed", [3, 5])
def test_the_question_just_answered_is_not_asked_again_at_once(
    triage: tuple[Any, np.ndarray], seed: int
) -> None:
    """A person with one slip in ten (seeds on which the engine used to ask its sixth or
    seventh question again straight away): every repeat comes after another question."""
    from tradeoff.learn.engine import truth_from_dirichlet

    sc, rows = triage
    engine = Engine(sc, spec(sc, strategy="joint", budget=30), seed=seed, candidates=rows)
    truth = truth_from_dirichlet(engine.space.spans, np.random.default_rng([seed, 35]))
    oracle = SimulatedOracle.for_scenario(sc, truth, noise=Noise.parse("flip:0.1"), seed=seed)
    repeats = []
    for n in range(8):
        query = engine.next_query()
        assert query is not None
        if query.repeat_of is not None:
            repeats.append((n, query.repeat_of))
        engine.answer(oracle.choose(query))
    assert all(first < n - 1 for n, first in repeats), repeats


def test_the_question_just_answered_is_asked_when_nothing_else_may_be(
    triage: tuple[Any, np.ndarray], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Held back, not ruled out: when the options come down to the question just answered,
    it is asked again (marked as a repeat of that answer), not taken for the end."""
    sc, rows = triage
    engine = Engine(sc, spec(sc, strategy="joint", budget=30), seed=5, candidates=rows)
    options = JointStrategy._options
    offered: list[Any] = []

    def seen(self: JointStrategy, summary: Any) -> list[Any]:
        out = options(self, summary)
        offered.extend(out)
        return out

    monkeypatch.setattr(JointStrategy, "_options", seen)
    assert engine.next_query() is not None
    engine.answer(Choice.LEFT)
    strategy = engine._strategy
    assert isinstance(strategy, JointStrategy)
    just = engine.state.records[-1].shown
    last = [o for o in offered if strategy._space_questions.allowed(engine.state, o) == just]
    assert last
    monkeypatch.setattr(JointStrategy, "_options", lambda self, summary: last[:1])
    again = engine.next_query()
    assert again is not None and again.repeat_of == 0
