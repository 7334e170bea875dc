"""What a person reads about options described by their aspects alone (language models by
benchmark scores and CO₂, train trips): the scenario's aspect names and units, not the pool
file's column names, and no sentence written for classifiers; classifier scenarios keep
their wording."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import pytest

from tradeoff.ask.population import scenario_priors
from tradeoff.choose.candidates import scenario_pool
from tradeoff.choose.rank import rank_pool
from tradeoff.choose.recommend import recommend
from tradeoff.choose.words import chance_words
from tradeoff.cli.rank import format_rank
from tradeoff.tui.screens.review import ReviewScreen
from tradeoff.web.i18n import languages
from tradeoff.web.pages import _why_stopped as pages_why_stopped

from ..conftest import SCENARIOS, scenario

pytestmark = pytest.mark.core


def test_copa_speaks_of_the_scenarios_aspects_not_the_pool_columns() -> None:
    pool = scenario_pool(scenario("llm-leaderboard"), SCENARIOS)
    outcome = rank_pool(pool, weights=[1.0] * len(pool.columns), top=3)
    assert "on CO2 (kg) (" in outcome.explanation
    assert "on MATH (points) (" in outcome.explanation
    table = format_rank(outcome, pool.labels, table_width=200)
    header = next(line for line in table.splitlines() if line.lstrip().startswith("#"))
    assert "CO2 (kg)" in header and "MMLU-PRO (points)" in header
    for column in ("co2_kg", "math_lvl5", "mmlu_pro"):
        assert column not in outcome.explanation and column not in table


def test_a_classifiers_pool_keeps_its_column_names() -> None:
    pool = scenario_pool(scenario("breast-cancer-triage"), SCENARIOS)
    assert pool.labels == {c: c for c in pool.columns}
    outcome = rank_pool(pool, weights=[1.0] * len(pool.columns), top=3)
    assert all(f"on {c} (" in outcome.explanation for c in pool.columns)


def _tied_engine(name: str) -> SimpleNamespace:
    """An engine that stopped with its pick practically tied with another model."""
    verdict = SimpleNamespace(practically_tied=True, stated=0.97, one_answer=())
    return SimpleNamespace(
        scenario=scenario(name),
        stop_reason=lambda: "decided",
        decision=lambda: (0.97, 0),
        verdict=lambda: verdict,
    )


@pytest.mark.parametrize(
    ("name", "classes"), [("llm-leaderboard", False), ("breast-cancer-triage", True)]
)
def test_practically_tied_speaks_of_a_class_only_for_classifiers(name: str, classes: bool) -> None:
    sc = scenario(name)
    pool = scenario_pool(sc, SCENARIOS)
    weights = [1.0 / len(sc.weight_names)] * len(sc.weight_names)
    rec = recommend(sc, pool, weights, scenario_priors(sc))
    assert rec.classes is classes
    p_best = (0.6, 0.4) + (0.0,) * (pool.n - 2)
    tied = replace(rec, p_best=p_best, p_near=0.97, tied=("x",), practically_tied=True)
    per_class = "for a class, one case per 1,000"
    said = chance_words(tied)
    assert "practically tied with x" in said and (per_class in said) is classes
    for lang in languages().values():
        page = pages_why_stopped(_tied_engine(name), lang)  # type: ignore[arg-type]
        assert ("1,000" in page or "1.000" in page) is classes
    app = ReviewScreen._why_stopped(
        SimpleNamespace(recorder=SimpleNamespace(engine=_tied_engine(name)))
    )  # type: ignore[arg-type]
    assert "practically tied" in app and (per_class in app) is classes
