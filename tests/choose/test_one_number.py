"""One number with measurement noise: the stop, the recommendation and a replay state the
same noise-aware P(best) (issue: "Measurement noise splits the number")."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tradeoff.ask.population import scenario_population
from tradeoff.ask.scenario import load_scenario
from tradeoff.choose.candidates import scenario_pool
from tradeoff.choose.pool_metric import metric_objectives, metric_vectors
from tradeoff.choose.recommend import measured_vectors, recommend
from tradeoff.learn import Engine
from tradeoff.learn.particles import PARTICLES
from tradeoff.pool import load_pool
from tradeoff.record.log import read_session
from tradeoff.record.replay import replay
from tradeoff.simulation.oracles import SimulatedOracle
from tradeoff.study.opening import start_session

pytestmark = [pytest.mark.core, pytest.mark.other_path]

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
TRUTH = [0.45, 0.45, 0.05, 0.05]


def noisy_scenario(tmp_path: Path, cases: int | None = 60) -> Path:
    """The triage scenario beside a copy of its pool whose recalls were measured on
    ``cases`` cases per class (``None``: no count, the pool exact)."""
    (tmp_path / "pools").mkdir()
    frame = pd.read_csv(SCENARIOS / "pools" / "breast-cancer.csv").head(12)
    if cases is not None:
        frame["recall_malignant_cases"] = cases
        frame["recall_benign_cases"] = cases
    frame.to_csv(tmp_path / "pools" / "breast-cancer.csv", index=False)
    path = tmp_path / "triage.toml"
    shutil.copy(SCENARIOS / "breast-cancer-triage.toml", path)
    return path


def answered(engine: Engine, n: int, scenario_path: Path) -> Engine:
    sc = load_scenario(scenario_path).scenario
    oracle = SimulatedOracle.for_scenario(sc, TRUTH, seed=1)
    for _ in range(n):
        q = engine.next_query()
        if q is None:
            break
        engine.answer(oracle.choose(q))
    return engine


def test_the_stop_and_the_recommendation_state_the_same_noise_aware_p_best(
    tmp_path: Path,
) -> None:
    path = noisy_scenario(tmp_path)
    sc = load_scenario(path).scenario
    pool = scenario_pool(sc, tmp_path)
    priors = scenario_population(sc).priors.tolist()
    rows = metric_vectors(sc, pool, priors)
    measured = measured_vectors(sc, pool, priors, PARTICLES)
    assert measured is not None and measured.shape[0] == PARTICLES
    noisy = answered(Engine(sc, seed=3, candidates=rows, measured=measured), 4, path)
    verdict = noisy.verdict()
    posterior = noisy.weighted_draws()
    assert verdict is not None and posterior is not None
    draws, weights = posterior
    rec = recommend(
        sc, pool, noisy.result().weights, priors, draws=draws, draw_weights=weights, vectors=rows
    )
    assert rec.index == verdict.pick
    assert rec.probability is not None and rec.p_near is not None
    assert abs(rec.probability - verdict.p_best) < 1e-9
    assert abs(rec.p_near - verdict.p_near) < 1e-9


def test_a_session_records_the_measurement_and_its_replay_states_the_same(
    tmp_path: Path,
) -> None:
    path = noisy_scenario(tmp_path)
    loaded = load_scenario(path)
    rec = start_session(loaded, "p1", tmp_path / "sessions", seed=5)
    oracle = SimulatedOracle.for_scenario(loaded.scenario, TRUTH, seed=1)
    for _ in range(5):
        q = rec.engine.next_query()
        assert q is not None
        rec.answer(oracle.choose(q))
    stated = rec.engine.verdict()
    rec.close()
    header = json.loads(rec.path.read_text().splitlines()[0])
    assert header["measurement"]["tables"] == PARTICLES
    assert header["measurement"]["cases"][0] == [60.0, 60.0, 0.0, 0.0]
    again = replay(read_session(rec.path))
    assert again.measured is not None
    found = again.verdict()
    assert stated is not None and found is not None
    assert found.pick == stated.pick
    assert abs(found.p_best - stated.p_best) < 1e-9


def test_an_exact_pool_writes_the_header_as_before(tmp_path: Path) -> None:
    path = noisy_scenario(tmp_path, cases=None)
    rec = start_session(load_scenario(path), "p1", tmp_path / "sessions", seed=5)
    rec.close()
    header = json.loads(rec.path.read_text().splitlines()[0])
    assert "measurement" not in header
    assert replay(read_session(rec.path)).measured is None


def test_noise_lowers_the_stated_p_best_on_few_cases(tmp_path: Path) -> None:
    path = noisy_scenario(tmp_path, cases=30)
    sc = load_scenario(path).scenario
    pool = scenario_pool(sc, tmp_path)
    priors = scenario_population(sc).priors.tolist()
    rows = metric_vectors(sc, pool, priors)
    measured = measured_vectors(sc, pool, priors, PARTICLES)
    noisy = answered(Engine(sc, seed=2, candidates=rows, measured=measured), 6, path)
    exact = answered(Engine(sc, seed=2, candidates=rows), 6, path)
    v_noisy, v_exact = noisy.verdict(), exact.verdict()
    assert v_noisy is not None and v_exact is not None
    assert v_noisy.p_best < v_exact.p_best
    assert np.isfinite(v_noisy.p_best)


def test_the_noise_sentence_names_a_model_that_could_be_best_first(tmp_path: Path) -> None:
    """Three models tied at the top within noise and one that beats the pick only at its
    edge: each that is best in at least 5% of the plausible draws is named, the likelier
    best first (the rule before named only a model beating the pick in 20% of them)."""
    sc = load_scenario(SCENARIOS / "breast-cancer-triage.toml").scenario
    frame = pd.DataFrame(
        {
            "model": ["a", "b", "c", "d", "e"],
            "recall_malignant": [0.9, 0.9, 0.9, 0.9, 0.9],
            "recall_benign": [0.95, 0.945, 0.944, 0.943, 0.90],
            "latency_ms": 1.0,
            "size_kb": 50.0,
        }
    )
    values = frame[["recall_malignant", "recall_benign", "latency_ms", "size_kb"]].to_numpy()
    rng = np.random.default_rng(0)
    tables = np.broadcast_to(values, (2000, *values.shape)).copy()
    tables[:, :, 1] += rng.normal(0.0, 0.004, (2000, 5))  # b, c, d each sometimes best
    pool = load_pool("p.csv", metric_objectives(sc), frame=frame, name_column="model")
    priors = [0.37, 0.63]
    draws = np.tile([0.5, 0.5, 0.0, 0.0], (2000, 1))
    rec = recommend(
        sc,
        pool,
        [0.5, 0.5, 0.0, 0.0],
        priors,
        draws=draws,
        measured=metric_vectors(sc, tables, priors),
    )
    assert rec.name == "a" and rec.p_best is not None
    named = [t.name for t in rec.noise_tied]
    could = [pool.names[i] for i in range(5) if i != 0 and rec.p_best[i] >= 0.05]
    assert set(could) <= set(named) and could
    assert named[: len(could)] == sorted(could, key=lambda n: -rec.p_best[pool.names.index(n)])
    assert "e" not in named


def test_questions_end_once_the_weights_settle_the_pick_whatever_the_noise(
    tmp_path: Path,
) -> None:
    """On 30 cases per class no answer can lift P(best) to 95%: the questions end once the
    answers settle the pick at the measured numbers, and the stop states the noise-aware
    P(best) (below 95%), not the budget's worth of questions."""
    path = noisy_scenario(tmp_path, cases=30)
    sc = load_scenario(path).scenario
    pool = scenario_pool(sc, tmp_path)
    priors = scenario_population(sc).priors.tolist()
    rows = metric_vectors(sc, pool, priors)
    measured = measured_vectors(sc, pool, priors, PARTICLES)
    engine = Engine(sc, seed=0, candidates=rows, measured=measured)
    oracle = SimulatedOracle.for_scenario(sc, TRUTH, seed=1)
    while (q := engine.next_query()) is not None:
        engine.answer(oracle.choose(q))
    verdict = engine.verdict()
    assert verdict is not None
    assert engine.answered < sc.elicitation.budget
    assert verdict.stated < sc.elicitation.decision_confidence
