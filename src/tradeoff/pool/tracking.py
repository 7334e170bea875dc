"""Pools from MLflow, and the decision written back to it.

:func:`from_mlflow` turns the runs of an experiment, or the versions of a registered model,
into a pool table: one row per run (or version), a ``model`` name, the run's id (and the
version), and one column per entry of a column mapping from the run's metrics, params or
tags (``recall_malignant=metrics.recall_m``). With a scenario, the mapping may name its
classes and attributes (``malignant=metrics.recall_m``) and the columns are written under
the names its ``[pool] columns`` give, so the pool loads against that scenario as it is;
a class or attribute left out is looked up as a metric of its pool column's name, then of
its own name.

:func:`record_decision` writes a decision back: it sets an alias (``champion`` unless told
otherwise) on the registered model's version of the recommended row, tags that version
(P(best), the sessions used, …) and attaches files (the report) to the version's run.

MLflow is an optional dependency (``pip install 'tradeoff[mlflow]'``), imported only here and
only when called; its absence is an :class:`~tradeoff.errors.InputError` saying how to
install it. Everything MLflow refuses (a missing experiment, model or metric) is a located
error too.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from tradeoff.ask.scenario import Scenario
from tradeoff.errors import InputError, Problem
from tradeoff.pool.measuring import Measured

__all__ = ["RecordedDecision", "from_mlflow", "parse_mapping", "record_decision"]

INSTALL = "install the extra: pip install 'tradeoff[mlflow]'"
SOURCES = ("metrics", "params", "tags")
#: The pool columns that tie a row to MLflow (written by :func:`from_mlflow`).
RUN_COLUMN, VERSION_COLUMN = "mlflow_run_id", "mlflow_version"


def _mlflow(source: str) -> Any:
    try:
        return importlib.import_module("mlflow")
    except ImportError:
        raise InputError.single(
            source, "", "reading or writing MLflow needs mlflow, which is not installed.", INSTALL
        ) from None


def _client(tracking_uri: str | None) -> Any:
    mlflow = _mlflow(tracking_uri or "MLflow")
    try:
        return mlflow.MlflowClient(tracking_uri=tracking_uri)
    except Exception as exc:
        raise InputError.single(
            tracking_uri or "MLFLOW_TRACKING_URI",
            "tracking URI",
            f"MLflow cannot open it: {_short(exc)}",
            "give a tracking URI such as sqlite:///mlflow.db or http://host:5000.",
        ) from None


def _short(exc: Exception) -> str:
    text = str(getattr(exc, "message", "") or exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__).rstrip(".") + "."


def parse_mapping(items: Sequence[str], source: str = "--map") -> dict[str, str]:
    """``NAME=metrics.KEY`` (or ``params.KEY``, ``tags.KEY``) items as a dict.

    >>> parse_mapping(["recall_m=metrics.recall_malignant", "size_kb=params.size"])
    {'recall_m': 'metrics.recall_malignant', 'size_kb': 'params.size'}
    """
    out: dict[str, str] = {}
    for item in items:
        name, sep, where = item.partition("=")
        kind, dot, key = where.partition(".")
        if not sep or not name or kind not in SOURCES or not dot or not key:
            raise InputError.single(
                source,
                repr(item),
                "is not NAME=metrics.KEY, NAME=params.KEY or NAME=tags.KEY.",
                "map a column to where MLflow keeps it, e.g. recall_malignant=metrics.recall_m.",
            )
        if name in out:
            raise InputError.single(source, repr(item), f"maps {name!r} twice.", "map it once.")
        out[name] = where
    return out


def _scenario_mapping(scenario: Scenario, mapping: Mapping[str, str]) -> dict[str, str]:
    """Pool column → source, with the scenario's classes and attributes as names."""
    columns = dict(scenario.pool.columns) if scenario.pool is not None else {}
    out: dict[str, str] = {}
    for name, where in mapping.items():
        out[columns.get(name, name)] = where
    for name in scenario.weight_names:
        column = columns.get(name, name)
        if column not in out:
            out[column] = f"metrics.{column}|metrics.{name}"
    return out


def _value(run: Any, where: str) -> tuple[float | None, str]:
    """The run's value at ``where`` (alternatives separated by ``|``), or None and what was
    looked for."""
    for option in where.split("|"):
        kind, _, key = option.partition(".")
        values = getattr(run.data, kind)
        if key in values:
            try:
                return float(values[key]), option
            except (TypeError, ValueError):
                raise InputError.single(
                    f"run {run.info.run_id}",
                    option,
                    f"is {values[key]!r}, not a number.",
                    "map a numeric metric or param.",
                ) from None
    return None, " or ".join(where.split("|"))


def _all(page_call: Any) -> list[Any]:
    out: list[Any] = []
    token = None
    while True:
        page = page_call(token)
        out.extend(page)
        token = getattr(page, "token", None)
        if not token:
            return out


def from_mlflow(
    mapping: Mapping[str, str],
    *,
    tracking_uri: str | None = None,
    experiment: str | None = None,
    registered_model: str | None = None,
    scenario: Scenario | None = None,
    name: str = "run_name",
    skip_incomplete: bool = False,
) -> Measured:
    """A pool of the runs of ``experiment`` or the versions of ``registered_model``.

    Parameters
    ----------
    mapping
        Pool column → ``metrics.KEY``, ``params.KEY`` or ``tags.KEY`` (:func:`parse_mapping`).
        With ``scenario``, a name may be a class or attribute (its ``[pool] columns`` entry
        is the column written), and every class and attribute left out is looked up as a
        metric of its column's name, then of its own name.
    tracking_uri
        MLflow's tracking URI (default: MLflow's own, ``MLFLOW_TRACKING_URI``).
    experiment, registered_model
        Exactly one: an experiment's name (its active runs), or a registered model's name
        (each version, with its run's metrics, params and tags).
    name
        The model name of each row: ``run_name``, or ``params.KEY`` / ``tags.KEY``; a
        registered model's version is named ``<model>-v<version>``.
    skip_incomplete
        Leave out runs that lack a mapped value (else they are an error naming the run and
        the value).

    Returns
    -------
    Measured
        Columns ``model``, ``mlflow_run_id`` (and ``mlflow_version``), then the mapped
        columns; provenance names the store, the experiment or model and the mapping.
    """
    if (experiment is None) == (registered_model is None):
        raise InputError.single(
            "MLflow",
            "source",
            "give exactly one of an experiment and a registered model.",
            "use --experiment NAME or --registered-model NAME.",
        )
    columns = _scenario_mapping(scenario, mapping) if scenario is not None else dict(mapping)
    if not columns:
        raise InputError.single("--map", "", "no column mapped.", "map at least one column.")
    client = _client(tracking_uri)
    where = experiment or registered_model or ""
    runs: list[tuple[Any, str | None]] = []
    try:
        if experiment is not None:
            found = client.get_experiment_by_name(experiment)
            if found is None:
                names = [e.name for e in client.search_experiments()]
                raise InputError.single(
                    tracking_uri or "MLflow",
                    f"experiment {experiment!r}",
                    "no such experiment.",
                    f"the experiments are {', '.join(map(repr, names[:12])) or 'none'}.",
                )
            runs = [
                (run, None)
                for run in _all(
                    lambda token: client.search_runs(
                        [found.experiment_id], page_token=token, order_by=["attributes.start_time"]
                    )
                )
            ]
        else:
            versions = _all(
                lambda token: client.search_model_versions(
                    f"name = '{registered_model}'", page_token=token
                )
            )
            if not versions:
                raise InputError.single(
                    tracking_uri or "MLflow",
                    f"registered model {registered_model!r}",
                    "has no versions (or does not exist).",
                    "register the model's versions first, or give --experiment.",
                )
            versions.sort(key=lambda v: int(v.version))
            runs = [(client.get_run(v.run_id), str(v.version)) for v in versions]
    except InputError:
        raise
    except Exception as exc:
        raise InputError.single(
            tracking_uri or "MLflow", repr(where), f"MLflow refused: {_short(exc)}", ""
        ) from None
    rows, problems, skipped = [], [], []
    for run, version in runs:
        label = run.info.run_name or run.info.run_id
        if version is not None:
            model = f"{registered_model}-v{version}"
        elif name == "run_name":
            model = label
        else:
            kind, _, key = name.partition(".")
            model = str(getattr(run.data, kind, {}).get(key, label))
        row: dict[str, Any] = {"model": model, RUN_COLUMN: run.info.run_id}
        if version is not None:
            row[VERSION_COLUMN] = int(version)
        missing = []
        for column, source in columns.items():
            value, looked = _value(run, source)
            if value is None:
                missing.append(f"{column} ({looked})")
            row[column] = value
        if missing:
            if skip_incomplete:
                skipped.append(label)
                continue
            problems.append(
                Problem(
                    f"run {label!r} ({run.info.run_id})",
                    f"has no {', '.join(missing)}.",
                    "log it in the run, map another key, or leave such runs out "
                    "(--skip-incomplete).",
                )
            )
        rows.append(row)
    if problems:
        raise InputError.many(tracking_uri or "MLflow", problems[:10])
    if len(rows) < 2:
        raise InputError.single(
            tracking_uri or "MLflow",
            repr(where),
            f"gives {len(rows)} complete run(s); a pool needs at least 2.",
            "log more runs, or map values every run has.",
        )
    mlflow = _mlflow("MLflow")
    provenance = {
        "source": "MLflow",
        "tracking_uri": str(client.tracking_uri),
        "experiment" if experiment is not None else "registered_model": where,
        "rows": len(rows),
        "skipped_incomplete": skipped,
        "columns": columns,
        "name": "<model>-v<version>" if registered_model is not None else name,
        "read": datetime.now(UTC).isoformat(timespec="seconds"),
        "mlflow": mlflow.__version__,
    }
    return Measured(pd.DataFrame(rows), provenance)


@dataclass(frozen=True)
class RecordedDecision:
    """What :func:`record_decision` wrote: the model, the version given the alias, the
    alias, the tags and the artifact paths in the version's run."""

    model: str
    version: str
    alias: str
    tags: dict[str, str]
    artifacts: tuple[str, ...]
    run_id: str | None


def _version_of(client: Any, model: str, row: Mapping[str, Any], source: str) -> Any:
    version = row.get(VERSION_COLUMN)
    if version is not None and not pd.isna(version):
        return client.get_model_version(model, str(int(version)))
    run_id = row.get(RUN_COLUMN)
    if not run_id or pd.isna(run_id):
        raise InputError.single(
            source,
            f"column {RUN_COLUMN!r}",
            f"the pool does not say which MLflow run or version the recommended model "
            f"{row.get('model')!r} is.",
            "build the pool with tradeoff pool from-mlflow (it writes mlflow_run_id and, for "
            "a registered model, mlflow_version).",
        )
    versions = [v for v in client.search_model_versions(f"run_id = '{run_id}'") if v.name == model]
    if not versions:
        raise InputError.single(
            source,
            f"registered model {model!r}",
            f"has no version made from the recommended run {run_id} ({row.get('model')!r}).",
            "register that run's model first (mlflow.register_model), or give the model "
            "it was registered under.",
        )
    return max(versions, key=lambda v: int(v.version))


def record_decision(
    model: str,
    row: Mapping[str, Any],
    *,
    tracking_uri: str | None = None,
    alias: str = "champion",
    tags: Mapping[str, str] | None = None,
    artifacts: Sequence[str | Path] = (),
    source: str = "pool",
) -> RecordedDecision:
    """Set ``alias`` on the version of registered ``model`` that the pool ``row`` names,
    tag it, and attach ``artifacts`` to its run under ``tradeoff-decision/``.

    The version is the row's ``mlflow_version`` when it has one, else the newest version of
    ``model`` made from the row's ``mlflow_run_id``. Nothing is written when the version
    cannot be found (an :class:`~tradeoff.errors.InputError` naming what is missing).
    """
    client = _client(tracking_uri)
    tags = dict(tags or {})
    try:
        if client.get_registered_model(model) is None:
            raise LookupError(model)
    except Exception:
        raise InputError.single(
            tracking_uri or "MLflow",
            f"registered model {model!r}",
            "no such registered model.",
            "give the name the candidates are registered under (--mlflow-model).",
        ) from None
    version = _version_of(client, model, row, source)
    try:
        client.set_registered_model_alias(model, alias, str(version.version))
        for key, value in tags.items():
            client.set_model_version_tag(model, str(version.version), key, value)
        logged = []
        if artifacts and version.run_id:
            for path in artifacts:
                client.log_artifact(version.run_id, str(path), "tradeoff-decision")
                logged.append(f"tradeoff-decision/{Path(path).name}")
    except Exception as exc:
        raise InputError.single(
            tracking_uri or "MLflow",
            f"registered model {model!r} version {version.version}",
            f"MLflow refused the write: {_short(exc)}",
            "check that the tracking store is writable.",
        ) from None
    return RecordedDecision(
        model, str(version.version), alias, tags, tuple(logged), version.run_id or None
    )
