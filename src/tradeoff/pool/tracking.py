"""Pools from MLflow, and the decision written back to it.

:func:`from_mlflow` turns the runs of an experiment, or the versions of a registered model,
into a pool table: one row per run (or version), a ``model`` name, the run's id (and the
version), and one column per entry of a column mapping from the run's metrics, params or
tags (``recall_malignant=metrics.recall_m``). With a scenario, the mapping may name its
classes and attributes (``malignant=metrics.recall_m``) and the columns are written under
the names its ``[pool] columns`` give, in the scenario's order, so the pool loads against
that scenario as it is; a class or attribute left out is looked up as a metric, then a tag,
of its pool column's name, then the same of its own name (the one mapping of every model
source, :mod:`tradeoff.pool.sources`).

:func:`record_decision` writes a decision back: it sets an alias (``champion`` unless told
otherwise) on the registered model's version of the recommended row, tags that version
(P(best), the sessions used, …) and attaches files (the report) to the version's run.

MLflow is an optional dependency (``pip install 'tradeoff[mlflow]'``), imported only here and
only when called; its absence is an :class:`~tradeoff.errors.InputError` saying how to
install it. Everything MLflow refuses (a missing experiment, model or metric) is a located
error too. A tracking URI is shown in messages and the provenance without its credentials
(:func:`tradeoff.net.shown_url`).

Every value read is checked against what its column means before anything is written
(:mod:`tradeoff.pool.meaning`: a recall in [0, 1], a cost finite and not negative, …); with
``skip_incomplete`` a run with a missing or impossible value is left out and named in the
pool's notes, and a pool with fewer than 2 runs left is an error. A tracking server that
cannot be reached fails within seconds (:func:`bounded_http`), naming the server.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pandas as pd

from tradeoff.ask.scenario import Scenario
from tradeoff.errors import InputError
from tradeoff.net import redacted, shown_url
from tradeoff.pool.meaning import capped, empty_name
from tradeoff.pool.measured import Measured
from tradeoff.pool.sources import (
    Candidate,
    Fields,
    column_meanings,
    mapped_rows,
    scenario_columns,
    unknown_keys,
)
from tradeoff.pool.tracking_checks import check_tracking_uri, failed_runs
from tradeoff.text import clean_text, count

__all__ = [
    "DEFAULT_ALIAS",
    "HTTP_DEFAULTS",
    "MLFLOW",
    "RunsRead",
    "bounded_http",
    "check_alias",
    "from_mlflow",
    "parse_mapping",
    "read_runs",
]

DEFAULT_ALIAS = "champion"
#: How long MLflow waits for a tracking server, unless the environment says otherwise:
#: seconds per request, retries, and the backoff between them (MLflow's own defaults, 120 s
#: and 7 retries doubling from 2 s, keep an unreachable server silent for minutes).
HTTP_DEFAULTS = {
    "MLFLOW_HTTP_REQUEST_TIMEOUT": "15",
    "MLFLOW_HTTP_REQUEST_MAX_RETRIES": "2",
    "MLFLOW_HTTP_REQUEST_BACKOFF_FACTOR": "1",
    "MLFLOW_HTTP_REQUEST_BACKOFF_JITTER": "0.2",
}
#: MLflow's rules for an alias (mlflow.utils.validation): letters, digits, ``_`` and ``-``,
#: at most 255 characters, not ``latest`` and not a version's name such as ``v3``.
_ALIAS = re.compile(r"[A-Za-z0-9_-]{1,255}")
_VERSION_ALIAS = re.compile(r"[vV][0-9]+")


@contextlib.contextmanager
def bounded_http() -> Iterator[None]:
    """Within the block, MLflow's HTTP timeout, retries and backoff are
    :data:`HTTP_DEFAULTS` unless the environment sets them (then the person's choice
    stands); the environment is restored afterwards."""
    added = [k for k in HTTP_DEFAULTS if k not in os.environ]
    for key in added:
        os.environ[key] = HTTP_DEFAULTS[key]
    try:
        yield
    finally:
        for key in added:
            os.environ.pop(key, None)


def check_alias(alias: str | None, source: str = "--alias") -> str:
    """The alias to set: :data:`DEFAULT_ALIAS` for ``None``; else ``alias`` if MLflow's
    rules allow it, or a located error saying which rule it breaks.

    >>> check_alias(None), check_alias("prod-2")
    ('champion', 'prod-2')
    >>> print(InputError.message(_alias_error("")))  # doctest: +ELLIPSIS
    --alias: '' is empty. Fix: leave --alias out for 'champion', or give a name of ...
    """
    if alias is None:
        return DEFAULT_ALIAS
    if not alias or not _ALIAS.fullmatch(alias) or alias.lower() == "latest":
        raise _alias_error(alias, source)
    if _VERSION_ALIAS.fullmatch(alias):
        raise _alias_error(alias, source)
    return alias


def _alias_error(alias: str, source: str = "--alias") -> InputError:
    if not alias:
        problem = "is empty."
    elif not _ALIAS.fullmatch(alias):
        problem = (
            "holds characters an MLflow alias may not hold (only letters, digits, '_' and "
            "'-', at most 255 of them)."
        )
    elif alias.lower() == "latest":
        problem = "is reserved by MLflow (it always means the newest version)."
    else:
        problem = "is reserved by MLflow for the version of that number."
    fix = (
        f"leave {source} out for {DEFAULT_ALIAS!r}, or give a name of letters, digits, '_' "
        "and '-' (such as prod or champion-2025)."
    )
    return InputError.single(source, "", f"{clean_text(alias)!r} {problem}", fix)


def _unreachable(exc: BaseException) -> bool:
    """Whether ``exc`` (or what caused it) says the server could not be reached."""
    seen: BaseException | None = exc
    for _ in range(10):
        if seen is None:
            return False
        name = type(seen).__name__
        if isinstance(seen, ConnectionError | TimeoutError) or name in (
            "ConnectionError",
            "ConnectTimeout",
            "ReadTimeout",
            "Timeout",
            "MaxRetryError",
            "NewConnectionError",
        ):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _failure(tracking_uri: str | None, location: str, exc: Exception, fix: str) -> InputError:
    """The error for an MLflow call that failed: an unreachable server said as such."""
    if _unreachable(exc):
        uri = _where(tracking_uri or os.environ.get("MLFLOW_TRACKING_URI"))
        timeout = os.environ.get("MLFLOW_HTTP_REQUEST_TIMEOUT", "?")
        retries = os.environ.get("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "?")
        tries = count(int(retries), "more time") if retries.isdigit() else f"{retries} more times"
        return InputError.single(
            uri,
            "tracking server",
            f"could not be reached (tried {tries}, waiting up to {timeout} s each).",
            "start the MLflow server there, or give its right address with --tracking-uri "
            "(or MLFLOW_TRACKING_URI); to wait longer, set MLFLOW_HTTP_REQUEST_TIMEOUT "
            "and MLFLOW_HTTP_REQUEST_MAX_RETRIES.",
        )
    return InputError.single(_where(tracking_uri), location, f"MLflow refused: {_short(exc)}", fix)


INSTALL = "install the extra: pip install 'tradeoff[mlflow]'"
#: What MLflow records: a run's metrics (what was measured), params (the
#: hyperparameters) and tags (what a person recorded beside them).
MLFLOW = Fields(
    name="MLflow",
    kinds=("metrics", "params", "tags"),
    looked_up=("metrics", "tags"),
    things="runs",
    record="log it in the run",
    numeric="metric or param",
    example="recall_malignant=metrics.recall_m",
    words=("metric", "param", "tag"),
    thing="run",
)
SOURCES = MLFLOW.kinds
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
    mlflow = _mlflow(_where(tracking_uri))
    check_tracking_uri(tracking_uri)  # a local store that is not there: nothing created
    try:
        return mlflow.MlflowClient(tracking_uri=tracking_uri)
    except Exception as exc:
        raise InputError.single(
            _where(tracking_uri) if tracking_uri else "MLFLOW_TRACKING_URI",
            "tracking URI",
            f"MLflow cannot open it: {_short(exc)}",
            "give a tracking URI such as sqlite:///mlflow.db or http://host:5000.",
        ) from None


def _where(uri: str | None) -> str:
    """A tracking URI as messages show it, its credentials hidden; ``MLflow`` for none."""
    return clean_text(shown_url(uri)) if uri else "MLflow"


def _short(exc: Exception) -> str:
    """The first line of an exception's message, any URL in it shown without credentials."""
    text = str(getattr(exc, "message", "") or exc).strip().splitlines()
    return redacted((text[0] if text else type(exc).__name__).rstrip(".") + ".")


def parse_mapping(items: Sequence[str], source: str = "--map") -> dict[str, str]:
    """``NAME=metrics.KEY`` (or ``params.KEY``, ``tags.KEY``) items as a dict.

    >>> parse_mapping(["recall_m=metrics.recall_malignant", "size_kb=params.size"])
    {'recall_m': 'metrics.recall_malignant', 'size_kb': 'params.size'}
    """
    return MLFLOW.parse_mapping(items, source)


def _all(page_call: Any) -> list[Any]:
    out: list[Any] = []
    token = None
    while True:
        page = page_call(token)
        out.extend(page)
        token = getattr(page, "token", None)
        if not token:
            return out


def _name_source(name: str) -> tuple[str, str]:
    """``--name`` as (kind, key): ``run_name`` or ``params.KEY`` / ``tags.KEY``."""
    if name == "run_name":
        return "run_name", ""
    kind, dot, key = name.partition(".")
    if kind not in ("params", "tags") or not dot or not key:
        raise InputError.single(
            "--name",
            repr(name),
            "is not run_name, params.KEY or tags.KEY.",
            "name each row by its run's name (run_name, the default) or by a param or tag "
            "every run has, e.g. tags.model_name.",
        )
    return kind, key


@dataclass(frozen=True)
class RunsRead:
    """What :func:`read_runs` found: the runs as candidates, the FAILED runs left out, the
    notes that name them, and the client's tracking URI."""

    candidates: tuple[Candidate, ...]
    failed: list[str]
    notes: list[str]
    tracking_uri: str


def read_runs(
    *,
    tracking_uri: str | None = None,
    experiment: str | None = None,
    registered_model: str | None = None,
    name: str = "run_name",
) -> RunsRead:
    """The runs of ``experiment``, or the versions of ``registered_model``, as candidates
    (:class:`~tradeoff.pool.sources.Candidate`): named as :func:`from_mlflow` says, their
    metrics, params and tags as the fields a mapping reads."""
    if (experiment is None) == (registered_model is None):
        raise InputError.single(
            "MLflow",
            "source",
            "give exactly one of an experiment and a registered model.",
            "use --experiment NAME or --registered-model NAME.",
        )
    name_kind, name_key = _name_source(name) if registered_model is None else ("", "")
    with bounded_http():
        client = _client(tracking_uri)
        runs = _runs(client, tracking_uri, experiment, registered_model)
    where = experiment or registered_model or ""
    runs, failed, notes = failed_runs(runs, where)
    named_by = name_kind not in ("", "run_name")
    if named_by and runs and not any(name_key in getattr(r.data, name_kind) for r, _ in runs):
        known = sorted({k for run, _ in runs for k in getattr(run.data, name_kind)})
        shown = ", ".join(f"{name_kind}.{k}" for k in known[:12]) or "none"
        raise InputError.single(
            "--name",
            repr(name),
            f"no run of {where!r} has this {name_kind[:-1]}, so no row could be named by it.",
            f"use run_name (the default), or one the runs have: {clean_text(shown)}.",
        )
    candidates = []
    for run, version in runs:
        label = run.info.run_id if empty_name(run.info.run_name) else run.info.run_name
        row: dict[str, Any] = {"model": label, RUN_COLUMN: run.info.run_id}
        missing = []
        if version is not None:
            row["model"] = f"{registered_model}-v{version}"
            row[VERSION_COLUMN] = int(version)
        elif name_kind != "run_name":
            given = getattr(run.data, name_kind, {})
            if name_key in given and not empty_name(given[name_key]):
                row["model"] = str(given[name_key])
            else:
                empty = "; it is empty" if name_key in given else ""
                missing.append(f"{name} (the model name, --name{empty})")
        fields = {kind: dict(getattr(run.data, kind)) for kind in MLFLOW.kinds}
        where_run = f"run {clean_text(label)!r} ({run.info.run_id})"
        candidates.append(Candidate(where_run, row, fields, tuple(missing), label=label))
    return RunsRead(tuple(candidates), failed, notes, str(client.tracking_uri))


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
        is the column written), the columns follow the scenario's order, and every class
        and attribute left out is looked up as a metric, then a tag, of its column's name,
        then of its own name (:func:`tradeoff.pool.sources.scenario_columns`).
    tracking_uri
        MLflow's tracking URI (default: MLflow's own, ``MLFLOW_TRACKING_URI``).
    experiment, registered_model
        Exactly one: an experiment's name (its active runs), or a registered model's name
        (each version, with its run's metrics, params and tags).
    name
        The model name of each row: ``run_name`` (a run without one is named by its id), or
        ``params.KEY`` / ``tags.KEY`` (a run without it, or with it empty, is incomplete); a
        registered model's version is named ``<model>-v<version>``.
    skip_incomplete
        Leave out runs that lack a mapped value or the name, or whose value is not a number
        or not what its column's meaning allows (NaN, infinite, a recall outside [0, 1], a
        negative cost); else they are an error naming the run, the column and the value.
        Those left out are named in the result's ``notes``.

    Returns
    -------
    Measured
        Columns ``model``, ``mlflow_run_id`` (and ``mlflow_version``), then the mapped
        columns; provenance names the store, the experiment or model and the mapping.
    """
    if (experiment is None) == (registered_model is None):
        read_runs(experiment=experiment, registered_model=registered_model)  # says why
    columns = scenario_columns(scenario, mapping, MLFLOW)
    if not columns:
        raise InputError.single("--map", "", "no column mapped.", "map at least one column.")
    if registered_model is None:
        _name_source(name)  # a malformed --name before the store is opened
    read = read_runs(
        tracking_uri=tracking_uri,
        experiment=experiment,
        registered_model=registered_model,
        name=name,
    )
    where = experiment or registered_model or ""
    unknown = unknown_keys(columns, read.candidates, MLFLOW, repr(where))
    if unknown and read.candidates:
        raise InputError.many(_where(tracking_uri), unknown)
    meanings = column_meanings(scenario, columns)
    rows, skipped, notes, problems = mapped_rows(
        read.candidates, columns, meanings, MLFLOW, skip_incomplete=skip_incomplete
    )
    if problems:
        raise InputError.many(_where(tracking_uri), capped(problems))
    if len(rows) < 2:
        left_out = f", {len(skipped)} left out as incomplete or impossible" if skipped else ""
        left_out += f", {len(read.failed)} FAILED left out" if read.failed else ""
        raise InputError.single(
            _where(tracking_uri),
            repr(where),
            f"gives {count(len(rows), 'complete run')}{left_out}; a pool needs at least 2, so "
            "nothing was written.",
            "log more runs, or map values every run has.",
        )
    mlflow = _mlflow("MLflow")
    provenance = {
        "source": "MLflow",
        "tracking_uri": _where(read.tracking_uri),
        "experiment" if experiment is not None else "registered_model": where,
        "rows": len(rows),
        "skipped_incomplete": skipped,
        "failed_runs_left_out": read.failed,
        "columns": columns,
        "name": "<model>-v<version>" if registered_model is not None else name,
        "read": datetime.now(UTC).isoformat(timespec="seconds"),
        "mlflow": mlflow.__version__,
    }
    return Measured(pd.DataFrame(rows), provenance, meanings, tuple(read.notes + notes))


def _runs(
    client: Any, tracking_uri: str | None, experiment: str | None, registered_model: str | None
) -> list[tuple[Any, str | None]]:
    """The runs of ``experiment``, or the versions of ``registered_model`` with their runs."""
    where = experiment or registered_model or ""
    runs: list[tuple[Any, str | None]] = []
    try:
        if experiment is not None:
            found = client.get_experiment_by_name(experiment)
            if found is None:
                names = [e.name for e in client.search_experiments()]
                raise InputError.single(
                    _where(tracking_uri),
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
                    _where(tracking_uri),
                    f"registered model {registered_model!r}",
                    "has no versions (or does not exist).",
                    "register the model's versions first, or give --experiment.",
                )
            versions.sort(key=lambda v: int(v.version))
            runs = [(client.get_run(v.run_id), str(v.version)) for v in versions]
    except InputError:
        raise
    except Exception as exc:
        raise _failure(tracking_uri, repr(where), exc, "") from None
    return runs
