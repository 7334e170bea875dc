"""The elicitation benchmark's machinery (the full run lives in benchmarks/)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tradeoff.ask.population import build_population
from tradeoff.ask.queries import QuerySpace
from tradeoff.simulation.bench import (
    BUDGETS,
    STRATEGIES,
    _checkpoints,
    candidate_pool,
    elicitation_figure,
    elicitation_table,
    regret,
    run_elicitation,
)
from tradeoff.simulation.oracles import Noise
from tradeoff.simulation.simulate import run_once

from ..conftest import small, spec

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("strategy", ["paper", "bisection", "probabilistic"])
def test_checkpoint_equals_a_run_with_that_budget(strategy: str) -> None:
    sc = small("paper-k2-two-costs")
    truth = (0.3, 0.2, 0.4, 0.1)
    noise = Noise("flip", 0.1)
    checkpoints = _checkpoints(sc, strategy, truth, noise, seed=4)
    for budget in (BUDGETS[0], BUDGETS[2]):
        direct = run_once(
            sc, truth, spec=spec(sc, strategy=strategy, budget=budget), noise=noise, seed=4
        )
        assert checkpoints[budget].weights == direct.result.weights


def test_regret_is_zero_for_the_truth_and_positive_otherwise() -> None:
    sc = small("paper-k2-reward-cost")
    space = QuerySpace(sc, build_population(sc.population, ("class1", "class2")))
    pool = candidate_pool(space, seed=1)
    truth = [0.4, 0.3, 0.2, 0.1]
    assert regret(pool, truth, truth) == 0.0
    assert 0 < regret(pool, truth, [0.0, 0.0, 0.0, 1.0]) <= 1
    values = pool @ np.array(truth)
    assert values.max() > values.min()


def test_tiny_benchmark_writes_table_and_figure(tmp_path: Path) -> None:
    rows = run_elicitation(runs=2, scenarios=["paper-k2-two-costs"], noises=["flip:0.1"], workers=1)
    assert len(rows) == len(STRATEGIES) * len(BUDGETS)  # every strategy, every budget
    table = elicitation_table(rows)
    assert table.count("\n") == len(rows) + 1
    png = tmp_path / "f.png"
    elicitation_figure(rows, png)
    assert png.stat().st_size > 1000
