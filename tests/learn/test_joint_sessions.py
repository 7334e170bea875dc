"""Strategy `joint` over whole sessions: exact answers pick the best model, a replay and an
undo reach the same particles, questions without candidates aim at the weights, a person
answering by a fixed rule answers every repeat the same way (e2e: many engine steps; the
strategy's own tests are in test_joint.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tradeoff.learn import Choice, Engine
from tradeoff.learn.joint import JointStrategy
from tradeoff.learn.swing_prior import natural_weights
from tradeoff.simulation.oracles import Noise, SimulatedOracle

from ..conftest import scenario, small, spec
from .test_joint import pool_rows

pytestmark = [pytest.mark.e2e, pytest.mark.other_path]


@pytest.fixture(scope="module")
def triage() -> tuple[Any, np.ndarray]:
    sc = scenario("breast-cancer-triage")
    return sc, pool_rows(sc)


def test_exact_answers_pick_the_best_model(triage: tuple[Any, np.ndarray]) -> None:
    sc, rows = triage
    rng = np.random.default_rng(5)
    right = 0
    for k in range(6):
        engine = Engine(sc, spec(sc, strategy="joint", budget=30), seed=k, candidates=rows)
        swing = rng.dirichlet(np.ones(4))
        truth = natural_weights(swing[None, :], engine.space.spans)[0]
        oracle = SimulatedOracle.for_scenario(sc, truth)
        while (q := engine.next_query()) is not None:
            engine.answer(oracle.choose(q))
        strategy = engine._strategy
        assert isinstance(strategy, JointStrategy)
        right += strategy.pick(engine.state) == int(np.argmax(rows @ truth))
        decision = engine.decision()
        assert decision is not None
        assert engine.stop_reason() == "budget" or decision[0] >= 0.95
    assert right >= 5


def test_replay_and_undo_reach_identical_particles(triage: tuple[Any, np.ndarray]) -> None:
    sc, rows = triage
    strategy_spec = spec(sc, strategy="joint", budget=12)
    oracle = SimulatedOracle.for_scenario(sc, (0.2, 0.2, 0.3, 0.3), noise=Noise("flip", 0.2))

    def engine_after(choices: list[Choice]) -> Engine:
        e = Engine(sc, strategy_spec, seed=9, candidates=rows)
        for c in choices:
            e.answer(c)
        return e

    a = Engine(sc, strategy_spec, seed=9, candidates=rows)
    choices: list[Choice] = []
    while (q := a.next_query()) is not None:
        choices.append(oracle.choose(q))
        a.answer(choices[-1])
    b = engine_after(choices)
    assert a.state == b.state
    assert np.array_equal(a.state.swing, b.state.swing)
    assert np.array_equal(a.state.noise, b.state.noise)
    assert a.result() == b.result()
    draws_a, draws_b = a.weight_draws(), b.weight_draws()
    assert draws_a is not None and draws_b is not None and np.array_equal(draws_a, draws_b)
    while b.answered > 5:
        b.undo()
    c = engine_after(choices[:5])
    assert b.state == c.state and np.array_equal(b.state.swing, c.state.swing)
    assert b.next_query() == c.next_query()
    b.answer(choices[5])
    assert np.array_equal(b.state.swing, engine_after(choices[:6]).state.swing)


def test_without_candidates_questions_aim_at_the_weights() -> None:
    sc = small("paper-k2-two-costs")
    truth = (0.32, 0.17, 0.28, 0.23)
    engine = Engine(sc, spec(sc, strategy="joint", budget=30), seed=3)
    oracle = SimulatedOracle.for_scenario(sc, truth)
    while (q := engine.next_query()) is not None:
        assert q.kind == "trade"
        engine.answer(oracle.choose(q))
    assert engine.answered == 30 and engine.decision() is None
    r = engine.result()
    assert r.intervals is not None
    assert np.abs(np.array(r.weights) - np.array(truth)).sum() < 0.05
    assert all(lo <= t <= hi for t, (lo, hi) in zip(truth, r.intervals, strict=True))


def test_a_person_answering_by_a_fixed_rule_answers_every_repeat_the_same_way(
    triage: tuple[Any, np.ndarray],
) -> None:
    """Exact answers by one fixed weight vector: every repeated question is answered the
    same way, though a repeat's statistics may be computed anew (seed 1 here differs from
    its first asking in the 16th digit)."""
    sc, rows = triage
    truths = np.random.default_rng(5).dirichlet(np.ones(4), size=28)
    checked = 0
    for k in (1, 17, 27):
        engine = Engine(sc, spec(sc, strategy="joint", budget=20), seed=k, candidates=rows)
        truth = natural_weights(truths[k][None, :], engine.space.spans)[0]
        oracle = SimulatedOracle.for_scenario(sc, truth)
        while (q := engine.next_query()) is not None:
            engine.answer(oracle.choose(q))
        repeats = engine.consistency()
        assert repeats is not None
        same, total = repeats
        assert same == total, (k, repeats)
        checked += total
    assert checked >= 3
