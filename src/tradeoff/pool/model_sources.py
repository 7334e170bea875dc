"""The three model sources, each a :class:`~tradeoff.pool.sources.ModelSource`: read the
candidates, map them onto a pool by the one mapping of :mod:`tradeoff.pool.sources`, write
the pick back.

- :class:`MlflowSource`: an experiment's runs or a registered model's versions
  (:mod:`tradeoff.pool.tracking`); the pick is the registered model's alias, tags and the
  report in the version's run (:mod:`tradeoff.pool.mlflow_pick`).
- :class:`OptunaSource`: a study's trials (:mod:`tradeoff.pool.searches`); the pick is the
  study's ``tradeoff_pick`` attribute (:mod:`tradeoff.pool.optuna_pick`).
- :class:`SklearnSource`: estimators measured on a dataset (:mod:`tradeoff.pool.measuring`);
  the pick is the picked estimator refitted on the whole dataset and pickled beside the
  pool, and a line in ``<pool>.picks.jsonl`` (:mod:`tradeoff.pool.sklearn_pick`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import pandas as pd

from tradeoff.ask.scenario import Scenario
from tradeoff.errors import InputError
from tradeoff.pool.meaning import capped
from tradeoff.pool.measured import Measured
from tradeoff.pool.measuring import measure
from tradeoff.pool.mlflow_pick import RecordedDecision, record_decision
from tradeoff.pool.optuna_pick import RecordedPick, record_pick
from tradeoff.pool.searches import OPTUNA, from_optuna, open_study, trial_candidates
from tradeoff.pool.sklearn_inputs import Dataset
from tradeoff.pool.sklearn_pick import RecordedEstimator, record_estimator
from tradeoff.pool.sources import (
    Candidate,
    Fields,
    Pick,
    column_meanings,
    mapped_rows,
    scenario_columns,
    unknown_keys,
)
from tradeoff.pool.tracking import DEFAULT_ALIAS, MLFLOW, from_mlflow, read_runs
from tradeoff.pool.tuned import Tuning
from tradeoff.text import clean_text, count

__all__ = ["SKLEARN", "MlflowSource", "OptunaSource", "SklearnSource"]

#: What a measurement records: each model's measured columns (``recall_<class>``,
#: ``accuracy``, ``latency_ms``, ``size_kb``).
SKLEARN = Fields(
    name="the measurement",
    kinds=("measured",),
    looked_up=("measured",),
    things="estimators",
    record="measure it (a column of pool from-sklearn)",
    numeric="measured column",
    example="recall_malignant=measured.recall_malignant",
    words=("measured column",),
    thing="estimator",
)
#: The columns of a measured pool that say what a row is, kept beside the mapped ones.
_IDENTITY = ("model", "family", "variant_of", "tuned_for")


def _unmeasured(value: Any) -> bool:
    """Whether a measured table's cell holds no measurement (an empty cell, NaN)."""
    return value is None or (isinstance(value, float) and math.isnan(value))


def scenario_names(scenario: Scenario) -> set[str]:
    """The pool columns of a scenario's classes and attributes."""
    columns = dict(scenario.pool.columns) if scenario.pool is not None else {}
    return {columns.get(name, name) for name in scenario.weight_names}


@dataclass(frozen=True)
class MlflowSource:
    """An MLflow experiment's runs (``experiment``) or a registered model's versions
    (``registered_model``) in the store at ``tracking_uri``; the pick is written to the
    registered model ``model`` under ``alias``."""

    tracking_uri: str | None = None
    experiment: str | None = None
    registered_model: str | None = None
    name: str = "run_name"
    model: str | None = None
    alias: str = DEFAULT_ALIAS

    @property
    def fields(self) -> Fields:
        return MLFLOW

    def candidates(self) -> Sequence[Candidate]:
        return read_runs(
            tracking_uri=self.tracking_uri,
            experiment=self.experiment,
            registered_model=self.registered_model,
            name=self.name,
        ).candidates

    def pool(
        self,
        mapping: Mapping[str, str],
        *,
        scenario: Scenario | None = None,
        skip_incomplete: bool = False,
    ) -> Measured:
        return from_mlflow(
            mapping,
            tracking_uri=self.tracking_uri,
            experiment=self.experiment,
            registered_model=self.registered_model,
            scenario=scenario,
            name=self.name,
            skip_incomplete=skip_incomplete,
        )

    def write_pick(self, pick: Pick) -> RecordedDecision:
        """The alias on the picked version, its tags, the artifacts in its run
        (:func:`tradeoff.pool.mlflow_pick.record_decision`)."""
        if not self.model:
            raise InputError.single(
                "MLflow",
                "registered model",
                "no registered model to write the pick to was given.",
                "give --mlflow-model NAME.",
            )
        return record_decision(
            self.model,
            pick.row,
            tracking_uri=self.tracking_uri,
            alias=self.alias,
            tags=pick.tags,
            artifacts=pick.artifacts,
            source=str(pick.pool_path or "pool"),
        )


@dataclass(frozen=True)
class OptunaSource:
    """The trials of the Optuna study ``study`` (default: the storage's only one) in
    ``storage``; the pick is written to the study's ``tradeoff_pick`` attribute."""

    storage: str
    study: str | None = None
    trials: str | None = None
    name: str = "number"
    option: str = "--study"

    @property
    def fields(self) -> Fields:
        return OPTUNA

    def opened(self) -> Any:
        """The Optuna study (:func:`tradeoff.pool.searches.open_study`)."""
        return open_study(self.storage, self.study, option=self.option)

    def candidates(self) -> Sequence[Candidate]:
        return trial_candidates(self.opened(), self.name, self.trials)

    def pool(
        self,
        mapping: Mapping[str, str],
        *,
        scenario: Scenario | None = None,
        skip_incomplete: bool = False,
    ) -> Measured:
        return from_optuna(
            mapping,
            storage=self.storage,
            study=self.study,
            trials=self.trials,  # type: ignore[arg-type]  # checked by from_optuna
            scenario=scenario,
            name=self.name,
            skip_incomplete=skip_incomplete,
        )

    def write_pick(self, pick: Pick, study: Any = None) -> RecordedPick:
        """The pick as the study's attribute (:func:`tradeoff.pool.optuna_pick.record_pick`);
        ``study``: the study already opened, else it is opened now."""
        opened = self.opened() if study is None else study
        return record_pick(
            self.storage, opened, pick.row, pick.facts, source=pick.pool_path or "pool"
        )


@dataclass(frozen=True)
class SklearnSource:
    """scikit-learn ``estimators`` measured on ``dataset`` (:func:`tradeoff.pool.measure`,
    its options as there); measured once, when first read. The pick is the picked
    estimator refitted on the whole dataset (:mod:`tradeoff.pool.sklearn_pick`)."""

    estimators: Mapping[str, Any] | Sequence[Any]
    dataset: Dataset
    folds: int = 5
    test_size: float | None = None
    seed: int = 0
    latency_repeats: int = 60
    tuned: Tuning | None = None
    progress: Callable[[int, int], None] | None = field(default=None, compare=False)

    @property
    def fields(self) -> Fields:
        return SKLEARN

    @cached_property
    def measured(self) -> Measured:
        """Every estimator measured (:func:`tradeoff.pool.measure`), once."""
        return measure(
            self.estimators,
            self.dataset,
            folds=self.folds,
            test_size=self.test_size,
            seed=self.seed,
            latency_repeats=self.latency_repeats,
            progress=self.progress,
            tuned=self.tuned,
        )

    def candidates(self) -> Sequence[Candidate]:
        frame = self.measured.frame
        numeric = [c for c in frame.columns if c not in _IDENTITY]
        return tuple(
            Candidate(
                f"estimator {clean_text(str(record['model']))!r}",
                {c: record[c] for c in _IDENTITY if c in record},
                {"measured": {c: record[c] for c in numeric if not _unmeasured(record[c])}},
                label=str(record["model"]),
            )
            for record in frame.to_dict("records")
        )

    def pool(
        self,
        mapping: Mapping[str, str],
        *,
        scenario: Scenario | None = None,
        skip_incomplete: bool = False,
    ) -> Measured:
        """The measured pool as :func:`tradeoff.pool.measure` wrote it when neither
        ``mapping`` nor ``scenario`` is given; else its columns mapped (``NAME=measured.X``,
        a scenario's classes and attributes by the one rule), each recall's ``_cases`` and
        ``_se`` carried under the column's new name."""
        measured = self.measured
        if not mapping and scenario is None:
            return measured
        columns = scenario_columns(scenario, mapping, SKLEARN)
        frame = measured.frame
        # the measured column each column is read from (every row has the same ones)
        found = {
            written: next(
                (key for o in where.split("|") if (key := o.partition(".")[2]) in frame), None
            )
            for written, where in columns.items()
        }
        unknown = unknown_keys(columns, self.candidates(), SKLEARN, "the measurement")
        if unknown:
            raise InputError.many(self.dataset.source or "dataset", unknown)
        meanings = column_meanings(scenario, columns)
        for written, column in found.items():  # what was measured keeps its meaning
            known = (measured.meanings or {}).get(column or "")
            if known is not None and (scenario is None or written not in scenario_names(scenario)):
                meanings[written] = known
        rows, skipped, notes, problems = mapped_rows(
            self.candidates(), columns, meanings, SKLEARN, skip_incomplete=skip_incomplete
        )
        if problems:
            raise InputError.many(self.dataset.source or "dataset", capped(problems))
        if len(rows) < 2:
            raise InputError.single(
                self.dataset.source or "dataset",
                "estimators",
                f"give {count(len(rows), 'complete model')}, {len(skipped)} left out; a pool needs "
                "at least 2, so nothing was written.",
                "map columns the measurement has (recall_<class>, accuracy, latency_ms, "
                "size_kb), or measure more estimators.",
            )
        by_model = {str(r["model"]): r for r in frame.to_dict("records")}
        for row in rows:
            measured_row = by_model[str(row["model"])]
            for written, column in found.items():
                for suffix in ("_cases", "_se"):
                    if column is not None and f"{column}{suffix}" in measured_row:
                        row[f"{written}{suffix}"] = measured_row[f"{column}{suffix}"]
        provenance = dict(measured.provenance) | {"columns": columns, "skipped_incomplete": skipped}
        return Measured(pd.DataFrame(rows), provenance, meanings, measured.notes + tuple(notes))

    def write_pick(self, pick: Pick) -> RecordedEstimator:
        """The picked estimator refitted on the whole dataset, pickled beside the pool, and
        a line in ``<pool>.picks.jsonl`` (:func:`tradeoff.pool.sklearn_pick.record_estimator`)."""
        return record_estimator(self.estimators, self.dataset, pick, tuned=self.tuned)
