"""A stakeholder made of an engine's outcome read in one go (``learn.outcome_of``, what
``load_stakeholders`` does after a replay) is the one made of the engine itself: the same
result, answers, consistency, draws and posterior."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from tradeoff.ask.scenario import load_scenario
from tradeoff.choose.stakeholder import stakeholder_of
from tradeoff.learn import Engine, outcome_of
from tradeoff.simulation.oracles import SimulatedOracle

pytestmark = pytest.mark.core


@pytest.mark.parametrize("strategy", ["paper", "probabilistic"])
def test_a_stakeholder_is_the_same_made_of_the_engine_or_of_its_outcome(strategy: str) -> None:
    sc = load_scenario("scenarios/paper-k2-reward-cost.toml").scenario
    engine = Engine(sc, sc.elicitation.override(strategy=strategy, budget=8))
    oracle = SimulatedOracle.for_scenario(sc, [0.10, 0.05, 0.05, 0.80])
    for _ in range(5):
        query = engine.next_query()
        assert query is not None
        engine.answer(oracle.choose(query))
    header = SimpleNamespace(
        participant="dr-kim", scenario=sc, scenario_sha256="0" * 64, measurement=None
    )
    outcome = outcome_of(engine)
    made = stakeholder_of(header, outcome, "dr-kim.jsonl")
    direct = stakeholder_of(header, engine, "dr-kim.jsonl")
    assert made == direct and made.answers == outcome.answered == 5
    assert made.consistency == direct.consistency == outcome.consistency
    for a, b in ((made.draws, direct.draws), (made.posterior, direct.posterior)):
        assert (a is None) == (b is None)
    if made.draws is not None and direct.draws is not None:
        np.testing.assert_allclose(made.draws, direct.draws, rtol=1e-12)
