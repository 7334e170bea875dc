"""What MLflow gives checked before it becomes a pool (:mod:`tradeoff.pool.tracking`): the
tracking URI before MLflow opens it, and the runs that failed.

MLflow creates what a local tracking URI names when it is not there: a typo such as
``sqlite:///mlfow.db`` made a new, empty database, and reading it then said the only
experiment was ``'Default'``. As for an Optuna storage (:mod:`tradeoff.pool.searches`), a
local store must exist before it is read or written: a SQLite URI's file, a ``file:`` URI's
or a plain path's folder. Nothing is created; the error names the URI and the fix. A
server (``http://``, ``https://``, ``databricks``, a database server) is left to MLflow.

A run MLflow marks ``FAILED`` (its logging crashed; often rerun, so it left a duplicate) is
no candidate: :func:`failed_runs` leaves such runs out, and the pool's notes count and
name them.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from tradeoff.errors import InputError
from tradeoff.net import shown_url
from tradeoff.text import clean_text

__all__ = ["check_tracking_uri", "failed_runs"]

_SQLITE_FIX = (
    "check the path: sqlite:///mlflow.db is mlflow.db in this folder, "
    "sqlite:////abs/mlflow.db an absolute path."
)


def _sqlite_file(uri: str) -> str | None:
    """The file a ``sqlite:`` URI names (``None`` for an in-memory database or none)."""
    rest = uri.split(":", 1)[1]
    if not rest.startswith("//"):
        return None
    path = rest[2:]
    if path.startswith("/"):
        path = path[1:]  # sqlite:///x.db is x.db; sqlite:////abs/x.db is /abs/x.db
    path = path.split("?", 1)[0]
    return unquote(path) or None


def check_tracking_uri(uri: str | None) -> None:
    """Refuse a local tracking URI whose store is not there (the module docstring);
    ``None`` reads ``MLFLOW_TRACKING_URI``, and without it MLflow's own default is left
    as it is.

    >>> check_tracking_uri("http://localhost:5000")
    >>> print(InputError.message(_caught("sqlite:///no-such-mlfow.db")))
    ... # doctest: +NORMALIZE_WHITESPACE
    sqlite:///no-such-mlfow.db: tracking URI: the SQLite file 'no-such-mlfow.db' does not
    exist (nothing was created). Fix: check the path: sqlite:///mlflow.db is mlflow.db in
    this folder, sqlite:////abs/mlflow.db an absolute path.
    """
    given = uri if uri else os.environ.get("MLFLOW_TRACKING_URI")
    if not given:
        return
    source = clean_text(shown_url(given)) if uri else "MLFLOW_TRACKING_URI"
    scheme = urlparse(given).scheme.lower()
    if scheme.startswith("sqlite"):
        database = _sqlite_file(given)
        if database is None or database == ":memory:":
            raise InputError.single(
                source,
                "tracking URI",
                "names no SQLite file, so it holds no runs.",
                "give a file: sqlite:///mlflow.db.",
            )
        if not Path(database).is_file():
            raise InputError.single(
                source,
                "tracking URI",
                f"the SQLite file {clean_text(database)!r} does not exist (nothing was created).",
                _SQLITE_FIX,
            )
        return
    if scheme == "file" or scheme == "" or (len(scheme) == 1 and os.name == "nt"):
        folder = unquote(urlparse(given).path) if scheme == "file" else given
        if not Path(folder).is_dir():
            raise InputError.single(
                source,
                "tracking URI",
                f"the folder {clean_text(folder)!r} of a file store does not exist "
                "(nothing was created).",
                "check the path, or give the store's URI (sqlite:///mlflow.db, http://host:5000).",
            )


def failed_runs(
    runs: Sequence[tuple[Any, str | None]], where: str
) -> tuple[list[tuple[Any, str | None]], list[str], list[str]]:
    """The runs of an experiment without those MLflow marks ``FAILED``, the failed runs'
    names (or ids), and the note that counts and names them (none when none failed). A
    registered model's version (``version`` not ``None``) is kept whatever its run's
    status: it was registered on purpose."""
    kept: list[tuple[Any, str | None]] = []
    failed: list[str] = []
    for run, version in runs:
        if version is None and str(getattr(run.info, "status", "")).upper() == "FAILED":
            name = run.info.run_name or run.info.run_id
            failed.append(f"{clean_text(str(name))} ({run.info.run_id})")
        else:
            kept.append((run, version))
    notes = []
    if failed:
        shown = ", ".join(failed[:10]) + (
            f" and {len(failed) - 10} more" if len(failed) > 10 else ""
        )
        notes.append(
            f"{len(failed)} FAILED run{'' if len(failed) == 1 else 's'} of {where!r} left out "
            f"(a failed run is no candidate): {shown}."
        )
    return kept, failed, notes


def _caught(uri: str) -> InputError:
    """The error :func:`check_tracking_uri` raises (for the examples)."""
    try:
        check_tracking_uri(uri)
    except InputError as exc:
        return exc
    raise AssertionError("no error")
