""" "10 more questions" asks at most 10 more, whatever the plan was."""

from __future__ import annotations

import pytest

from tradeoff.learn import Engine
from tradeoff.simulation.oracles import SimulatedOracle

from ..conftest import scenario

pytestmark = [pytest.mark.core, pytest.mark.other_path]


def test_ten_more_after_a_settled_pick_asks_at_most_ten() -> None:
    """A pick settled early (the decision stop), then "10 more": the counter says at most 10
    and at most 10 are asked (the extension used to raise the budget past the plan: 31)."""
    from tradeoff.ask.population import scenario_priors
    from tradeoff.choose.candidates import decision_candidates

    sc = scenario("breast-cancer-triage")
    rows = decision_candidates(sc, "scenarios", scenario_priors(sc), "decision")
    engine = Engine(sc, sc.elicitation.override(budget=30), seed=1, candidates=rows)
    person = SimulatedOracle.for_scenario(sc, (0.4, 0.3, 0.2, 0.1), seed=1)
    while (q := engine.next_query()) is not None:
        engine.answer(person.choose(q))
    settled = engine.answered
    assert settled < 30 and engine.stop_reason() == "decided"
    engine.extend(10)
    assert engine.expected_remaining() <= 10
    while (q := engine.next_query()) is not None:
        engine.answer(person.choose(q))
    assert settled < engine.answered <= settled + 10
