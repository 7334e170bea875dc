"""Simulated answers are the same as before the noise models became a registry: 400 recorded
answers (8 noises × 2 seeds × 25 questions), each session run whole (e2e: many engine steps;
the registry's own tests are in test_noise_registry.py)."""

from __future__ import annotations

import json

import pytest

from tradeoff.learn import Engine
from tradeoff.simulation.oracles import (
    Noise,
    SimulatedOracle,
)

from ..conftest import ROOT, small

pytestmark = pytest.mark.e2e

RECORDED = json.loads((ROOT / "tests" / "fixtures" / "oracle_answers.json").read_text())


@pytest.mark.parametrize(
    "case", RECORDED, ids=lambda c: f"{c['noise']}-{c['indifference']}-{c['seed']}"
)
def test_answers_are_those_recorded_before_the_registry(case: dict[str, object]) -> None:
    """400 answers (8 noises × 2 seeds × 25 questions on breast-cancer-triage) recorded from
    the string-dispatched oracle, reproduced answer for answer."""
    sc = small("breast-cancer-triage")
    seed = int(case["seed"])  # type: ignore[call-overload]
    spec = sc.elicitation.override(strategy="probabilistic", stop="weights", budget=25)
    engine = Engine(sc, spec, seed=seed)  # the strategy the answers were recorded with
    oracle = SimulatedOracle.for_scenario(
        sc,
        (0.4, 0.3, 0.2, 0.1),
        noise=Noise.parse(str(case["noise"])),
        indifference=float(case["indifference"]),  # type: ignore[arg-type]
        seed=seed,
    )
    answers = []
    while (q := engine.next_query()) is not None:
        c = oracle.choose(q)
        answers.append(c.value)
        engine.answer(c)
    assert answers == case["answers"]
