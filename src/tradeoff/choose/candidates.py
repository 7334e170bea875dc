"""The scenario's candidate models: its ``[pool]`` loaded, and the rows the engine aims at.

A low module (docs/architecture.md, "Modules and their contracts"): it knows scenarios,
pools and ψ's statistics (:func:`tradeoff.choose.pool_metric.metric_vectors`), and nothing of
sessions or selection, so that :mod:`tradeoff.study.cache` and the start of a session can use it
without reaching back up to the decision.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from tradeoff.arrays import FloatArray
from tradeoff.ask.scenario import Scenario
from tradeoff.choose.pool_metric import metric_objectives, metric_vectors
from tradeoff.data import shipped_scenarios
from tradeoff.errors import InputError
from tradeoff.limits import MAX_DECISION_CANDIDATES
from tradeoff.pareto import pareto_mask
from tradeoff.pool import Pool, load_pool


def scenario_pool_path(scenario: Scenario, base: str | Path = ".") -> Path:
    """Where the scenario's ``[pool]`` file is: its ``path``, relative to ``base`` (the
    scenario file's folder) unless absolute.

    >>> from tradeoff.ask.scenario import load_scenario
    >>> sc = load_scenario("scenarios/breast-cancer-triage.toml").scenario
    >>> scenario_pool_path(sc, "scenarios").as_posix()
    'scenarios/pools/breast-cancer.csv'
    """
    if scenario.pool is None:
        raise InputError.single(
            scenario.id,
            "pool",
            "the scenario has no [pool] section.",
            "add [pool] with path, name_column and columns, or pass a pool file.",
        )
    path = Path(scenario.pool.path)
    return path if path.is_absolute() else Path(base) / path


def scenario_pool(scenario: Scenario, base: str | Path = ".") -> Pool:
    """Load the candidate pool a scenario's ``[pool]`` section names (path relative to
    ``base``, the scenario file's folder), its columns mapped to the scenario's classes
    and attributes (:func:`~tradeoff.choose.pool_metric.metric_objectives`)."""
    path = scenario_pool_path(scenario, base)
    assert scenario.pool is not None
    return load_pool(
        path, metric_objectives(scenario), name_column=scenario.pool.name_column, scenario=True
    )


def _pools(scenario: Scenario, given: Pool | None, bases: Sequence[Path]) -> Iterator[Pool]:
    """``given`` (when there is one), then the scenario's pool beside each of ``bases`` that
    has one, each read only when the one before did not do."""
    if given is not None:
        yield given
    for base in bases:
        try:
            yield scenario_pool(scenario, base)
        except InputError:
            continue


def decision_candidates(
    scenario: Scenario, base: str | Path, priors: Sequence[float], stop: str | None
) -> FloatArray | None:
    """The scenario pool's models as the rows the engine aims its questions at
    (:func:`~tradeoff.choose.pool_metric.metric_vectors`), or ``None`` when there is no pool,
    ``stop`` is ``weights``, or the pool cannot be read (the engine then aims at the
    weights)."""
    if scenario.pool is None or stop == "weights":
        return None
    try:
        pool = scenario_pool(scenario, base)
    except InputError:
        return None
    rows = metric_vectors(scenario, pool, priors)
    if len(rows) > MAX_DECISION_CANDIDATES:
        rows = rows[pareto_mask(-rows)]  # ψ is maximised
        if len(rows) > MAX_DECISION_CANDIDATES:
            return None
    return rows


def recorded_pool(
    scenario: Scenario,
    rows: FloatArray | None,
    priors: Sequence[float] | None,
    scenario_path: str = "",
    pool: Pool | None = None,
) -> tuple[Pool, tuple[str, ...]] | None:
    """The pool a session's recorded candidates (``rows``, the header's, made with the class
    ``priors``) are found in, and their names: the scenario's pool where it is found (beside
    the scenario file the session was recorded from, ``scenario_path``, the header's; beside
    the scenarios of the working folder; or beside the shipped ones), only when each
    recorded row is one of its models (to 9 digits); else ``None`` (the pool moved or
    changed since). ``pool``: the pool beside that scenario file, when the caller read it
    already (it is not read again)."""
    if rows is None or priors is None or scenario.pool is None:
        return None
    recorded = [Path(scenario_path).parent] if scenario_path and pool is None else []
    for read in _pools(scenario, pool, (*recorded, Path("scenarios"), shipped_scenarios())):
        now = metric_vectors(scenario, read, priors)
        found = []
        for row in rows:
            same = np.flatnonzero(np.all(np.isclose(now, row, rtol=1e-9, atol=1e-12), axis=1))
            if same.size == 0:
                break
            found.append(read.names[int(same[0])])
        else:
            return read, tuple(found)
    return None
