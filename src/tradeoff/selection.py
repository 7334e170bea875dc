"""From elicited weights to a ranked pool: the path from a session to a decision.

:func:`rank_for_session` maps a linear metric over a scenario's classes and attributes onto
the columns of the scenario's candidate pool (:func:`tradeoff.ranking.metric_to_omega`) and
ranks the pool with COPA.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from tradeoff.errors import InputError
from tradeoff.pool import Pool, load_pool
from tradeoff.population import build_population
from tradeoff.ranking import (
    RankOutcome,
    metric_coefficients,
    metric_objectives,
    metric_to_omega,
    rank_pool,
)
from tradeoff.scenario import Scenario


def scenario_pool(scenario: Scenario, base: str | Path = ".") -> Pool:
    """Load the candidate pool a scenario's ``[pool]`` section names (path relative to
    ``base``, the scenario file's folder)."""
    if scenario.pool is None:
        raise InputError.single(
            scenario.id,
            "pool",
            "the scenario has no [pool] section.",
            "add [pool] with path, name_column and columns, or pass a pool file.",
        )
    path = Path(scenario.pool.path)
    if not path.is_absolute():
        path = Path(base) / path
    return load_pool(path, metric_objectives(scenario), name_column=scenario.pool.name_column)


def rank_for_session(
    scenario: Scenario,
    weights: Sequence[float],
    *,
    base: str | Path = ".",
    pool: Pool | None = None,
    p: float = math.inf,
    top: int = 10,
) -> RankOutcome:
    """Rank the scenario's pool with COPA weights ω derived from the elicited ``weights``."""
    pool = pool if pool is not None else scenario_pool(scenario, base)
    priors = build_population(scenario.population, tuple(c.name for c in scenario.classes)).priors
    coefficients = metric_coefficients(scenario, weights, priors.tolist())
    omega = metric_to_omega(coefficients, pool.values)
    return rank_pool(pool, weights=omega, p=p, top=top)
