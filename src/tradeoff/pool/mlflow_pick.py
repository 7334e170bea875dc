"""The decision written back to MLflow: the chosen model's version gets the alias (``champion``
by default), tags that say what was decided and why, and the report as artifacts in the
version's run (``select --mlflow-model``). Reading runs into a pool is
:mod:`tradeoff.pool.tracking`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from tradeoff.errors import InputError
from tradeoff.pool.meaning import row_number
from tradeoff.pool.tracking import (
    DEFAULT_ALIAS,
    RUN_COLUMN,
    VERSION_COLUMN,
    _client,
    _failure,
    _short,
    _unreachable,
    _where,
    bounded_http,
    check_alias,
)

__all__ = ["RecordedDecision", "record_decision"]


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
        return client.get_model_version(model, str(row_number(row, VERSION_COLUMN, source)))
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
    alias: str = DEFAULT_ALIAS,
    tags: Mapping[str, str] | None = None,
    artifacts: Sequence[str | Path] = (),
    source: str = "pool",
) -> RecordedDecision:
    """Set ``alias`` on the version of registered ``model`` that the pool ``row`` names,
    tag it, and attach ``artifacts`` to its run under ``tradeoff-decision/``.

    The version is the row's ``mlflow_version`` when it has one, else the newest version of
    ``model`` made from the row's ``mlflow_run_id``. Nothing is written when the version
    cannot be found (an :class:`~tradeoff.errors.InputError` naming what is missing), when
    ``alias`` breaks MLflow's rules (:func:`check_alias`), or when the tracking server
    cannot be reached within :data:`HTTP_DEFAULTS`' bounds.
    """
    alias = check_alias(alias)
    with bounded_http():
        return _record(model, row, tracking_uri, alias, dict(tags or {}), artifacts, source)


def _record(
    model: str,
    row: Mapping[str, Any],
    tracking_uri: str | None,
    alias: str,
    tags: dict[str, str],
    artifacts: Sequence[str | Path],
    source: str,
) -> RecordedDecision:
    client = _client(tracking_uri)
    try:
        if client.get_registered_model(model) is None:
            raise LookupError(model)
    except Exception as exc:
        if _unreachable(exc):
            raise _failure(tracking_uri, "", exc, "") from None
        raise InputError.single(
            _where(tracking_uri),
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
        if _unreachable(exc):
            raise _failure(tracking_uri, "", exc, "") from None
        raise InputError.single(
            _where(tracking_uri),
            f"registered model {model!r} version {version.version}",
            f"MLflow refused the write: {_short(exc)}",
            "check that the tracking store is writable.",
        ) from None
    return RecordedDecision(
        model, str(version.version), alias, tags, tuple(logged), version.run_id or None
    )
