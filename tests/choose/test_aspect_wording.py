"""What a person reads about options described by their aspects alone (language models by
benchmark scores and CO₂, train trips): the scenario's aspect names and units, not the pool
file's column names, and no sentence written for classifiers; classifier scenarios keep
their wording."""

from __future__ import annotations

import pytest

from tradeoff.choose.candidates import scenario_pool
from tradeoff.choose.rank import rank_pool
from tradeoff.cli.rank import format_rank

from ..conftest import SCENARIOS, scenario

pytestmark = pytest.mark.core


def test_copa_speaks_of_the_scenarios_aspects_not_the_pool_columns() -> None:
    pool = scenario_pool(scenario("llm-leaderboard"), SCENARIOS)
    outcome = rank_pool(pool, weights=[1.0] * len(pool.columns), top=3)
    assert "on CO2 (kg) (" in outcome.explanation
    assert "on MATH (points) (" in outcome.explanation
    table = format_rank(outcome, pool.labels)
    header = next(line for line in table.splitlines() if line.lstrip().startswith("#"))
    assert "CO2 (kg)" in header and "MMLU-PRO (points)" in header
    for column in ("co2_kg", "math_lvl5", "mmlu_pro"):
        assert column not in outcome.explanation and column not in table


def test_a_classifiers_pool_keeps_its_column_names() -> None:
    pool = scenario_pool(scenario("breast-cancer-triage"), SCENARIOS)
    assert pool.labels == {c: c for c in pool.columns}
    outcome = rank_pool(pool, weights=[1.0] * len(pool.columns), top=3)
    assert all(f"on {c} (" in outcome.explanation for c in pool.columns)
