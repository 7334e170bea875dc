"""Pools from Optuna studies, and the pick written back to the study.

:func:`from_optuna` turns the trials of a study in an Optuna storage (an RDB URL such as
``sqlite:///study.db``) into a pool table: one row per trial, a ``model`` name (``trial-7``
unless told otherwise), the trial's number (``optuna_trial``), and one column per entry of a
column mapping from the trial's objective values, user attributes or params
(``recall_malignant=values.0``, ``=values.recall_m`` when the study has metric names,
``latency_ms=user_attrs.latency_ms``, ``C=params.C``). With a scenario the mapping may name
its classes and attributes (``malignant=values.0``) and the columns are written under the
names its ``[pool] columns`` give, so the pool loads against that scenario as it is; a class
or attribute left out is looked up as an objective of its pool column's name (the study's
metric names), then as a user attribute of that name, then the same by its own name.

The rows are the study's Pareto front (``study.best_trials``: the completed trials no other
completed trial dominates in the study's objectives and directions, feasible ones only when
the study has constraints), the default for a study of several objectives, or every
completed trial (``trials="all"``, the default for one objective). Pruned, failed, running
and waiting trials are left out and counted in the provenance, as are the completed trials
off the front.

:func:`record_pick` writes a decision back: the study's user attribute ``tradeoff_pick``
becomes the picked trial's number with its model name, P(best), the participants, sessions,
scenario and the time. (Optuna refuses to change a finished trial, user attributes included:
``check_trial_is_updatable`` raises ``UpdateFinishedTrialError``, so the pick lives on the
study.)

Optuna is an optional dependency (``pip install 'tradeoff[optuna]'``), imported only here and
only when called; its absence is an :class:`~tradeoff.errors.InputError` saying how to
install it. The storage is looked at before Optuna opens it, so that a URL that is not an
Optuna storage is refused without a table being added to it (Optuna creates its tables in
any database it is given) and a SQLite file that does not exist is not created. A database
server waits at most :data:`CONNECT_SECONDS` to connect. A password in a URL (in its
userinfo or its query, :func:`tradeoff.net.shown_url`) is shown as ``***`` in every message
and in the provenance.

Every value read is checked against what its column means before anything is written
(:mod:`tradeoff.pool.meaning`); with ``skip_incomplete`` a trial with a missing or impossible
value is left out and named in the pool's notes, and a pool with fewer than 2 trials left is
an error.
"""

from __future__ import annotations

import importlib
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import pandas as pd

from tradeoff.ask.scenario import Scenario
from tradeoff.errors import InputError, Problem
from tradeoff.net import shown_url
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
from tradeoff.pool.tracking import _short
from tradeoff.text import clean_text, count

__all__ = [
    "CONNECT_SECONDS",
    "PICK_ATTRIBUTE",
    "TRIAL_COLUMN",
    "from_optuna",
    "open_study",
    "parse_mapping",
    "trial_candidates",
]

INSTALL = "install the extra: pip install 'tradeoff[optuna]'"
#: What Optuna records: a trial's objective values (what was measured, by index or the
#: study's metric names), user attributes (what a person recorded beside them) and params
#: (the hyperparameters).
OPTUNA = Fields(
    name="the study",
    kinds=("values", "user_attrs", "params"),
    looked_up=("values", "user_attrs"),
    things="trials",
    record="record it in the trial (trial.set_user_attr)",
    numeric="objective, user attribute or param",
    example="recall_malignant=values.0 or latency_ms=user_attrs.latency_ms",
    words=("objective", "user attribute", "param"),
    thing="completed trial",
    forms="NAME=values.INDEX, NAME=values.METRIC, NAME=user_attrs.KEY or NAME=params.KEY",
)
SOURCES = OPTUNA.kinds
#: The pool column that ties a row to its trial (written by :func:`from_optuna`).
TRIAL_COLUMN = "optuna_trial"
#: The study user attribute :func:`record_pick` sets.
PICK_ATTRIBUTE = "tradeoff_pick"
#: Seconds a database server (PostgreSQL, MySQL) may take to accept the connection.
CONNECT_SECONDS = 10
#: Tables every Optuna RDB storage holds.
_TABLES = ("studies", "trials", "version_info")
TrialChoice = Literal["pareto", "all"]
_URL_FIX = (
    "give an Optuna storage URL such as sqlite:///study.db (a file in this folder), "
    "sqlite:////abs/path/study.db or postgresql://user@host/db."
)


def _optuna(source: str) -> Any:
    try:
        return importlib.import_module("optuna")
    except ImportError:
        raise InputError.single(
            source,
            "",
            "reading or writing an Optuna study needs optuna, which is not installed.",
            INSTALL,
        ) from None


def parse_mapping(items: Sequence[str], source: str = "--map") -> dict[str, str]:
    """``NAME=values.I`` (an objective by index or metric name), ``NAME=user_attrs.KEY`` or
    ``NAME=params.KEY`` items as a dict.

    >>> parse_mapping(["recall_m=values.0", "latency_ms=user_attrs.latency"])
    {'recall_m': 'values.0', 'latency_ms': 'user_attrs.latency'}
    """
    return OPTUNA.parse_mapping(items, source)


def _shown_url(storage: str) -> str:
    """``storage`` as messages show it: its credentials hidden (:func:`tradeoff.net.shown_url`).

    >>> _shown_url("postgresql://ann:secret@db.example/optuna")
    'postgresql://ann:***@db.example/optuna'
    >>> _shown_url("sqlite:///x.db?password=secret")
    'sqlite:///x.db?password=***'
    """
    return clean_text(shown_url(storage))


def _engine_kwargs(url: Any) -> dict[str, Any]:
    """A bound on the wait for a database server (SQLite has no server to wait for)."""
    if url.get_backend_name() in ("postgresql", "mysql", "mariadb"):
        return {"connect_args": {"connect_timeout": CONNECT_SECONDS}}
    return {}


def _storage_error(shown: str, problem: str, fix: str = _URL_FIX) -> InputError:
    return InputError.single(shown, "Optuna storage", problem, fix)


def _storage(storage: str) -> Any:
    """An Optuna ``RDBStorage`` of ``storage`` once the URL is known to name an existing
    Optuna storage (the checks in the module docstring); nothing is written to it."""
    shown = _shown_url(storage)
    optuna = _optuna(shown)
    sqlalchemy = importlib.import_module("sqlalchemy")
    try:
        url = sqlalchemy.engine.make_url(storage)
    except Exception:
        fix = _URL_FIX
        if Path(storage).is_file():
            fix = f"for this file give {_shown_url('sqlite:///' + storage)} (as a SQLite URL)."
        raise _storage_error(shown, "is not a database URL.", fix) from None
    if url.get_backend_name() == "sqlite":
        database = url.database or ""
        if database in ("", ":memory:") or database.startswith("file:"):
            raise _storage_error(shown, "names no SQLite file, so it holds no study.")
        if not Path(database).is_file():
            raise _storage_error(
                shown,
                f"the SQLite file {clean_text(database)!r} does not exist (nothing was created).",
                "check the path: sqlite:///study.db is study.db in this folder, "
                "sqlite:////abs/study.db an absolute path.",
            )
    kwargs = _engine_kwargs(url)
    try:
        engine = sqlalchemy.create_engine(url, **kwargs)
        try:
            tables = set(sqlalchemy.inspect(engine).get_table_names())
        finally:
            engine.dispose()
    except ModuleNotFoundError as exc:  # the dialect is known, its driver is not installed
        raise _storage_error(
            shown,
            f"the database driver {exc.name!r} is not installed.",
            f"install it (pip install {exc.name}), or use a SQLite storage.",
        ) from None
    except Exception as exc:
        if type(exc).__name__ == "NoSuchModuleError":
            raise _storage_error(
                shown, f"names a kind of database SQLAlchemy does not know ({url.drivername!r})."
            ) from None
        raise _storage_error(
            shown,
            f"could not be opened or reached: {_short(exc)}",
            f"check the URL and that the database server is running (a server is given "
            f"{CONNECT_SECONDS} s to answer); {_URL_FIX}",
        ) from None
    absent = [t for t in _TABLES if t not in tables]
    if absent:
        raise _storage_error(
            shown,
            "is not an Optuna storage (it has no "
            f"{', '.join(absent)} table{'s' if len(absent) > 1 else ''}); it is left as it is.",
            "give the storage your study was created in (optuna.create_study(storage=...)).",
        )
    try:
        return optuna.storages.RDBStorage(storage, engine_kwargs=kwargs, skip_table_creation=True)
    except Exception as exc:
        raise _storage_error(
            shown,
            f"Optuna cannot open it: {_short(exc)}",
            f"if Optuna says the schema is old, upgrade it: optuna storage upgrade --storage "
            f"URL; else {_URL_FIX}",
        ) from None


def open_study(storage: str, study: str | None = None, *, option: str = "--study") -> Any:
    """The Optuna study ``study`` in ``storage`` (an RDB URL); without ``study``, the
    storage's only study. A storage that is not there, not reachable or not Optuna's, a
    study it does not hold, or a storage of several studies without ``study`` is an
    :class:`~tradeoff.errors.InputError` naming the storage and the fix (``option`` is the
    face's name for the study)."""
    shown = _shown_url(storage)
    optuna = _optuna(shown)
    rdb = _storage(storage)
    try:
        names = [s.study_name for s in rdb.get_all_studies()]
    except Exception as exc:
        raise _storage_error(shown, f"the studies could not be read: {_short(exc)}") from None
    listed = ", ".join(repr(clean_text(n)) for n in names[:12]) + (", …" if len(names) > 12 else "")
    if study is None:
        if len(names) != 1:
            raise InputError.single(
                shown,
                "study",
                f"the storage holds {len(names)} studies{f' ({listed})' if names else ''}, so "
                "none is taken by default.",
                f"give {option} NAME." if names else "give the storage your study is in.",
            )
        study = names[0]
    elif study not in names:
        raise InputError.single(
            shown,
            f"study {clean_text(study)!r}",
            "no such study in this storage.",
            f"the studies are {listed or 'none'}; give one with {option}.",
        )
    try:
        return optuna.load_study(study_name=study, storage=rdb)
    except Exception as exc:
        raise InputError.single(
            shown, f"study {clean_text(study)!r}", f"Optuna cannot load it: {_short(exc)}"
        ) from None


def _objective(key: str, metric_names: Sequence[str] | None) -> int | None:
    """The index of the objective ``key`` names (a number, or one of the metric names)."""
    if key.isdigit():
        return int(key)
    if metric_names and key in metric_names:
        return list(metric_names).index(key)
    return None


def _check_sources(
    shown: str,
    mapping: Mapping[str, str],
    study: Any,
    trials: Sequence[Any],
) -> None:
    """Refuse a mapping that names an objective the study does not have, or a user
    attribute or param no completed trial has (:func:`~tradeoff.pool.sources.unknown_keys`;
    each located, with what there is)."""
    names = study.metric_names
    count = len(study.directions)
    where = f"the study {clean_text(study.study_name)!r}"
    problems = []
    for column, source in mapping.items():
        kind, _, key = source.partition(".")
        if kind == "values":
            index = _objective(key, names)
            if index is None or index >= count:
                named = f" (named {', '.join(repr(clean_text(n)) for n in names)})" if names else ""
                have = f"{count} objective{'s' if count > 1 else ''}: values.0"
                have += f" to values.{count - 1}" if count > 1 else ""
                why = (
                    "is no objective's index"
                    if key.isdigit()
                    else "is no metric name of the study"
                    if names
                    else "is not an index, and the study has no metric names"
                )
                problems.append(
                    Problem(
                        f"--map {column}={clean_text(source)}",
                        f"{clean_text(key)!r} {why}.",
                        f"{where} has {have}{named}.",
                    )
                )
    name_kind, name_key = _name_source("number")
    candidates = [_candidate(t, name_kind, name_key, "number", names) for t in trials]
    problems += unknown_keys(mapping, candidates, OPTUNA, where, kinds=OPTUNA.kinds[1:])
    if problems:
        raise InputError.many(shown, problems)


def _name_source(name: str) -> tuple[str, str]:
    """``--name`` as (kind, key): ``number``, or ``user_attrs.KEY`` / ``params.KEY``."""
    if name == "number":
        return "number", ""
    kind, dot, key = name.partition(".")
    if kind not in ("user_attrs", "params") or not dot or not key:
        raise InputError.single(
            "--name",
            repr(clean_text(name)),
            "is not number, user_attrs.KEY or params.KEY.",
            "name each row by its trial's number (trial-7, the default) or by a user "
            "attribute or param every trial has, e.g. user_attrs.model_name.",
        )
    return kind, key


def _candidate(
    trial: Any, name_kind: str, name_key: str, name: str, metric_names: Sequence[str] | None
) -> Candidate:
    """A trial as a candidate: its objective values by index and by the study's metric
    names, its user attributes and params; named as :func:`from_optuna` says."""
    row: dict[str, Any] = {"model": f"trial-{trial.number}", TRIAL_COLUMN: trial.number}
    missing = []
    if name_kind != "number":
        given = getattr(trial, name_kind)
        if name_key in given and not empty_name(given[name_key]):
            row["model"] = str(given[name_key])
        else:
            empty = "; it is empty" if name_key in given else ""
            missing.append(f"{name} (the model name, --name{empty})")
    values = list(trial.values or [])
    by_name = dict(zip(metric_names or (), values, strict=False))
    fields = {
        "values": {str(i): v for i, v in enumerate(values)} | by_name,
        "user_attrs": dict(trial.user_attrs),
        "params": dict(trial.params),
    }
    return Candidate(f"trial {trial.number}", row, fields, tuple(missing))


def trial_candidates(
    opened: Any, name: str = "number", trials: str | None = None
) -> tuple[Candidate, ...]:
    """The trials of an opened study :func:`from_optuna` reads (its Pareto front or every
    completed trial, as ``trials`` says), as candidates
    (:class:`~tradeoff.pool.sources.Candidate`)."""
    name_kind, name_key = _name_source(name)
    complete_state = _optuna(opened.study_name).trial.TrialState.COMPLETE
    complete = [t for t in opened.get_trials(deepcopy=False) if t.state == complete_state]
    which = trials or ("pareto" if len(opened.directions) > 1 else "all")
    chosen = sorted(opened.best_trials, key=lambda t: t.number) if which == "pareto" else complete
    return tuple(_candidate(t, name_kind, name_key, name, opened.metric_names) for t in chosen)


def from_optuna(
    mapping: Mapping[str, str],
    *,
    storage: str,
    study: str | None = None,
    trials: TrialChoice | None = None,
    scenario: Scenario | None = None,
    name: str = "number",
    skip_incomplete: bool = False,
) -> Measured:
    """A pool of the trials of an Optuna study.

    Parameters
    ----------
    mapping
        Pool column → ``values.INDEX`` or ``values.METRIC`` (an objective, by index or by
        the study's metric name), ``user_attrs.KEY`` or ``params.KEY``
        (:func:`parse_mapping`). With ``scenario``, a name may be a class or attribute (its
        ``[pool] columns`` entry is the column written), and every class and attribute
        left out is looked up as in the module docstring.
    storage
        The storage's RDB URL (``sqlite:///study.db``).
    study
        The study's name; default: the storage's only study.
    trials
        ``"pareto"``: the study's Pareto front (``study.best_trials``); ``"all"``: every
        completed trial. Default: ``"pareto"`` for several objectives, ``"all"`` for one.
    name
        The model name of each row: ``number`` (``trial-<number>``), or ``user_attrs.KEY``
        / ``params.KEY`` (a trial without it, or with it empty, is incomplete).
    skip_incomplete
        Leave out trials that lack a mapped value or the name, or whose value its column's
        meaning does not allow; else they are an error naming the trial, the column and
        the value. Those left out are named in the result's ``notes``.

    Returns
    -------
    Measured
        Columns ``model``, ``optuna_trial``, then the mapped columns, rows by trial number;
        the provenance names the storage, the study, its directions, the rows chosen and
        how many trials of each state were left out.
    """
    if trials not in (None, "pareto", "all"):
        raise InputError.single(
            "--trials", repr(trials), "is not pareto or all.", "give --trials pareto or all."
        )
    columns = scenario_columns(scenario, mapping, OPTUNA)
    if not columns:
        raise InputError.single("--map", "", "no column mapped.", "map at least one column.")
    name_kind, name_key = _name_source(name)
    opened = open_study(storage, study)
    shown = _shown_url(storage)
    optuna = _optuna(shown)
    complete_state = optuna.trial.TrialState.COMPLETE
    everything = opened.get_trials(deepcopy=False)
    complete = [t for t in everything if t.state == complete_state]
    directions = [d.name.lower() for d in opened.directions]
    which: TrialChoice = trials or ("pareto" if len(directions) > 1 else "all")
    chosen = sorted(opened.best_trials, key=lambda t: t.number) if which == "pareto" else complete
    states = Counter(t.state.name for t in everything if t.state != complete_state)
    left = [f"{n} {s.lower()}" for s, n in sorted(states.items())]
    where = f"study {clean_text(opened.study_name)!r}"
    if not complete:
        raise InputError.single(
            shown,
            where,
            f"has no completed trial{' (' + ', '.join(left) + ')' if left else ''}, so "
            "nothing was written.",
            "run the study's trials to the end (study.optimize), or give another --study.",
        )
    # a mapping given must name what the study has; the scenario's look-ups are only tried
    explicit = {c: s for c, s in columns.items() if "|" not in s}
    _check_sources(shown, explicit, opened, complete)
    if name_kind != "number" and not any(name_key in getattr(t, name_kind) for t in complete):
        known = sorted({k for t in complete for k in getattr(t, name_kind)})
        listed = ", ".join(f"{name_kind}.{clean_text(k)}" for k in known[:12]) or "none"
        raise InputError.single(
            "--name",
            repr(clean_text(name)),
            f"no completed trial of the {where} has it, so no row could be named by it.",
            f"use number (the default), or one the trials have: {listed}.",
        )
    meanings = column_meanings(scenario, columns)
    candidates = [
        _candidate(trial, name_kind, name_key, name, opened.metric_names) for trial in chosen
    ]
    rows, skipped, notes, problems = mapped_rows(
        candidates, columns, meanings, OPTUNA, skip_incomplete=skip_incomplete
    )
    if problems:
        raise InputError.many(shown, capped(problems))
    if len(rows) < 2:
        left += [f"{len(skipped)} left out as incomplete or impossible"] if skipped else []
        off = len(complete) - len(chosen)
        are = "is" if off == 1 else "are"
        front = (
            f" on its Pareto front ({count(off, 'completed trial')} {are} off it)" if off else ""
        )
        raise InputError.single(
            shown,
            where,
            f"gives {count(len(rows), 'completed trial')}{front}"
            f"{' (' + ', '.join(left) + ')' if left else ''}; a pool needs at least 2, so "
            "nothing was written.",
            ("give --trials all for every completed trial, or " if which == "pareto" else "")
            + "run more trials, or map values every trial has.",
        )
    provenance = {
        "source": "Optuna",
        "storage": shown,
        "study": opened.study_name,
        "directions": directions,
        "metric_names": opened.metric_names,
        "trials": which,
        "rows": len(rows),
        "completed": len(complete),
        "off_the_front": len(complete) - len(chosen),
        "left_out_by_state": dict(sorted(states.items())),
        "skipped_incomplete": skipped,
        "columns": columns,
        "name": "trial-<number>" if name_kind == "number" else name,
        "read": datetime.now(UTC).isoformat(timespec="seconds"),
        "optuna": optuna.__version__,
    }
    return Measured(pd.DataFrame(rows), provenance, meanings, tuple(notes))
