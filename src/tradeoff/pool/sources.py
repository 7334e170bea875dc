"""One protocol for the places models live (scikit-learn, MLflow, Optuna), and the one
mapping of what they record onto a scenario.

A model source (:class:`ModelSource`) does three things: it reads its candidates
(:meth:`ModelSource.candidates`: the runs of an MLflow experiment, the trials of an Optuna
study, the estimators measured on a dataset), maps them onto a pool
(:meth:`ModelSource.pool`, always through :func:`scenario_columns` and :func:`mapped_rows`
here) and writes the pick back (:meth:`ModelSource.write_pick`). Each candidate is a
:class:`Candidate`: how messages name it, the columns that tie its row to the source, and
what it recorded, by kind (``metrics``, ``params``, ``tags``; ``values``, ``user_attrs``,
``params``; ``measured``).

The rules, the same for every source (:class:`Fields` says what each calls its kinds):

- With a scenario, the pool's columns are its classes, then its attributes, in the
  scenario's order, each under the name its ``[pool] columns`` gives; other columns mapped
  follow in the order given.
- A class or attribute the mapping leaves out is looked up under its pool column's name,
  then under its own name, each first among what the source measured (MLflow's metrics,
  Optuna's objectives, scikit-learn's measurements), then among what a person recorded
  beside it (MLflow's tags, Optuna's user attributes); never among the hyperparameters.
- A value that is missing, not a number, or not what its column means (a recall outside
  [0, 1], a negative cost) is a problem naming the candidate, the column and where it was
  looked for, with the fix; every problem of every candidate is said at once, or, with
  ``skip_incomplete``, such candidates are left out and named in the pool's notes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from tradeoff.ask.scenario import AttributeSpec, ClassSpec, Scenario
from tradeoff.errors import InputError, Problem
from tradeoff.pool.meaning import Meaning, attribute_meaning, column_meaning, value_problems
from tradeoff.pool.measured import Measured
from tradeoff.text import clean_text, cut

__all__ = [
    "Candidate",
    "Fields",
    "ModelSource",
    "Pick",
    "column_meanings",
    "keep_row",
    "mapped_rows",
    "parse_mapping",
    "scenario_columns",
    "unknown_keys",
]


@dataclass(frozen=True)
class Fields:
    """What a source calls what it records.

    Parameters
    ----------
    name
        The source, as messages and provenance name it (``MLflow``).
    kinds
        Every kind a mapping may name (``metrics``, ``params``, ``tags``).
    looked_up
        The kinds a scenario's class or attribute left out of the mapping is looked up in,
        in order: what the source measured, then what a person recorded beside it.
    things
        What its candidates are called (``runs``).
    record
        How a person gives a missing value (``log it in the run``).
    numeric
        What a mapping should name when a value is not a number.
    example
        A mapping item, for the message of one that is malformed.
    """

    name: str
    kinds: tuple[str, ...]
    looked_up: tuple[str, ...]
    things: str
    record: str
    numeric: str
    example: str
    #: What one of each kind is called in a sentence, in the order of ``kinds``.
    words: tuple[str, ...] = ()
    #: What one candidate is called in a sentence (``run``, ``completed trial``).
    thing: str = "candidate"
    #: The forms a mapping item takes, for the message of one that is malformed
    #: (default: ``NAME=KIND.KEY`` for each kind).
    forms: str = ""

    def parse_mapping(self, items: Sequence[str], source: str = "--map") -> dict[str, str]:
        """``NAME=KIND.KEY`` items as a dict (:func:`parse_mapping`)."""
        return parse_mapping(items, self, source)


@dataclass(frozen=True)
class Candidate:
    """One model as a source recorded it.

    ``where`` names it in messages (``run 'logreg' (3f2a…)``, ``trial 7``, ``estimator
    'lr'``); ``row`` holds the columns that tie its pool row to the source (``model`` first);
    ``fields`` what it recorded, kind → key → value; ``missing`` what it lacks that is not a
    mapped value (its name, when ``--name`` names a field it does not have)."""

    where: str
    row: Mapping[str, Any]
    fields: Mapping[str, Mapping[str, Any]]
    missing: tuple[str, ...] = ()
    #: How the provenance lists it when it is left out (default: ``where``).
    label: str = ""


@dataclass(frozen=True)
class Pick:
    """What was decided, for a source to write back: the picked model's pool ``row``, the
    decision's ``facts`` (:func:`tradeoff.choose.decide.decision_facts`), the same as
    ``tags`` (text, :func:`tradeoff.choose.decide.decision_tags`), files that say why
    (``artifacts``: the report) and the pool file it was picked from (``pool_path``)."""

    row: Mapping[str, Any]
    facts: Mapping[str, Any] = field(default_factory=dict)
    tags: Mapping[str, str] = field(default_factory=dict)
    artifacts: tuple[str | Path, ...] = ()
    pool_path: str | Path | None = None


@runtime_checkable
class ModelSource(Protocol):
    """A place models live: read its candidates, map them onto a pool, write the pick back.

    Implemented by :class:`tradeoff.pool.tracking.MlflowSource`,
    :class:`tradeoff.pool.searches.OptunaSource` and
    :class:`tradeoff.pool.sklearn_source.SklearnSource`.
    """

    @property
    def fields(self) -> Fields:
        """What the source calls what it records."""
        ...

    def candidates(self) -> Sequence[Candidate]:
        """The candidates as the source holds them (nothing written)."""
        ...

    def pool(
        self,
        mapping: Mapping[str, str],
        *,
        scenario: Scenario | None = None,
        skip_incomplete: bool = False,
    ) -> Measured:
        """The candidates as a pool: ``mapping`` (pool column → ``KIND.KEY``) and the
        ``scenario``'s classes and attributes mapped by :func:`scenario_columns` and
        :func:`mapped_rows`, with the source's provenance."""
        ...

    def write_pick(self, pick: Pick) -> Any:
        """Write the pick back where the models live; returns what was written."""
        ...


def parse_mapping(items: Sequence[str], fields: Fields, source: str = "--map") -> dict[str, str]:
    """``NAME=KIND.KEY`` items, each ``KIND`` one of ``fields.kinds``, as a dict.

    >>> from tradeoff.pool.tracking import MLFLOW
    >>> parse_mapping(["recall_m=metrics.recall_malignant", "size_kb=params.size"], MLFLOW)
    {'recall_m': 'metrics.recall_malignant', 'size_kb': 'params.size'}
    """
    out: dict[str, str] = {}
    for item in items:
        name, sep, where = item.partition("=")
        kind, dot, key = where.partition(".")
        if not sep or not name or kind not in fields.kinds or not dot or not key:
            each = [f"NAME={k}.KEY" for k in fields.kinds]
            listed = ", ".join(each[:-1]) + " or " + each[-1] if len(each) > 1 else each[0]
            forms = fields.forms or listed
            raise InputError.single(
                source,
                repr(clean_text(item)),
                f"is not {forms}.",
                f"map a column to where {fields.name} keeps it, e.g. {fields.example}.",
            )
        if name in out:
            raise InputError.single(source, repr(item), f"maps {name!r} twice.", "map it once.")
        out[name] = where
    return out


def scenario_columns(
    scenario: Scenario | None, mapping: Mapping[str, str], fields: Fields
) -> dict[str, str]:
    """Pool column → where its value is (alternatives separated by ``|``): the scenario's
    classes and attributes first, in its order, under their ``[pool] columns`` names (a
    name in ``mapping`` may be a class or attribute), each one left out looked up as the
    module docstring says; then the other columns of ``mapping`` in its order.

    >>> from tradeoff.ask.scenario import load_scenario
    >>> from tradeoff.pool.tracking import MLFLOW
    >>> mapped = scenario_columns(load_scenario("breast-cancer-triage").scenario,
    ...                           {"seed": "params.seed", "memory": "tags.kb"}, MLFLOW)
    >>> for column, source in mapped.items():
    ...     print(column, source.split("|"))  # doctest: +NORMALIZE_WHITESPACE
    recall_malignant ['metrics.recall_malignant', 'tags.recall_malignant',
                      'metrics.malignant', 'tags.malignant']
    recall_benign ['metrics.recall_benign', 'tags.recall_benign', 'metrics.benign',
                   'tags.benign']
    latency_ms ['metrics.latency_ms', 'tags.latency_ms', 'metrics.latency', 'tags.latency']
    size_kb ['tags.kb']
    seed ['params.seed']
    """
    if scenario is None:
        return dict(mapping)
    columns = dict(scenario.pool.columns) if scenario.pool is not None else {}
    given = {columns.get(name, name): where for name, where in mapping.items()}
    out: dict[str, str] = {}
    for name in scenario.weight_names:  # the scenario's order: classes, then attributes
        column = columns.get(name, name)
        keys = dict.fromkeys((column, name))
        found = "|".join(f"{kind}.{key}" for key in keys for kind in fields.looked_up)
        out[column] = given.pop(column, found)
    return out | given


def column_meanings(scenario: Scenario | None, columns: Mapping[str, str]) -> dict[str, Meaning]:
    """What each written column means: the scenario's class or attribute it measures, else
    what its name says (:func:`~tradeoff.pool.meaning.column_meaning`)."""
    out = {column: column_meaning(column) for column in columns}
    if scenario is not None and scenario.pool is not None:
        named = dict(scenario.pool.columns)
        specs: list[AttributeSpec | ClassSpec] = [*scenario.classes, *scenario.attributes]
        for spec in specs:
            column = named.get(spec.name, spec.name)
            if column in out:
                out[column] = attribute_meaning(spec)
    return out


def unknown_keys(
    columns: Mapping[str, str],
    candidates: Sequence[Candidate],
    fields: Fields,
    where: str,
    *,
    kinds: Sequence[str] | None = None,
) -> list[Problem]:
    """A problem for each column mapped to one place (``NAME=KIND.KEY``, of ``kinds``,
    default all) that no candidate has, with the keys they have: a mistyped key is said
    once, not once per candidate. A scenario's look-ups (``|``) are only tried.

    >>> from tradeoff.pool.tracking import MLFLOW
    >>> runs = [Candidate("run 'a'", {"model": "a"}, {"metrics": {"recall_m": 0.9}})]
    >>> [p.problem for p in unknown_keys({"r": "metrics.recal_m"}, runs, MLFLOW, "'e'")]
    ["no run of 'e' has the metric 'recal_m'."]
    """
    problems = []
    for column, source in columns.items():
        kind, _, key = source.partition(".")
        if "|" in source or (kinds is not None and kind not in kinds):
            continue
        if any(key in c.fields.get(kind, {}) for c in candidates):
            continue
        known = sorted({str(k) for c in candidates for k in c.fields.get(kind, {})})
        listed = ", ".join(f"{kind}.{clean_text(k)}" for k in known[:12]) or "none"
        word = dict(zip(fields.kinds, fields.words, strict=False)).get(kind, kind)
        problems.append(
            Problem(
                f"--map {clean_text(column)}={clean_text(source)}",
                f"no {fields.thing} of {where} has the {word} {clean_text(key)!r}.",
                f"map one the {fields.things} have: {listed}.",
            )
        )
    return problems


def _value(
    candidate: Candidate, where: str, fields: Fields
) -> tuple[float | None, str, Problem | None]:
    """The candidate's value at ``where`` (alternatives separated by ``|``): the number,
    the place it was found (or every place looked in), and a problem for a value that is
    not a number."""
    for option in where.split("|"):
        kind, _, key = option.partition(".")
        recorded = candidate.fields.get(kind, {})
        if key not in recorded:
            continue
        found = recorded[key]
        if found is not None and not isinstance(found, bool):
            try:
                return float(found), option, None
            except (TypeError, ValueError):
                pass
        shown = cut(clean_text(str(found)), 60)
        return (
            None,
            option,
            Problem(
                f"{candidate.where}, {clean_text(option)}",
                f"is {shown!r}, not a number.",
                f"map a numeric {fields.numeric}.",
            ),
        )
    return None, " or ".join(clean_text(o) for o in where.split("|")), None


def keep_row(
    row: Mapping[str, Any],
    meanings: Mapping[str, Meaning],
    missing: Sequence[str],
    where: str,
    *,
    fields: Fields,
    skip_incomplete: bool,
    notes: list[str],
    problems: list[Problem],
    wrong: Sequence[Problem] = (),
) -> bool:
    """Whether a candidate's ``row`` goes into the pool: its values checked against what
    their columns mean (:func:`~tradeoff.pool.meaning.value_problems`), the ``missing``
    ones and the ``wrong`` ones (not numbers) named. A row with any of them is left out
    with a note under ``skip_incomplete``, else each problem is added to ``problems`` and
    the row kept, so that every problem of every row is said at once."""
    bad = [
        p
        for column, meaning in meanings.items()
        if row.get(column) is not None
        for p in value_problems(column, [row[column]], meaning, [row["model"]], [0])
    ]
    if not (missing or bad or wrong):
        return True
    if skip_incomplete:
        why = [f"has no {', '.join(missing)}"] if missing else []
        why += [f"{p.location.split(', ', 1)[1]} {p.problem.rstrip('.')}" for p in wrong]
        why += [f"{p.location.split(', ', 1)[1]} {p.problem.rstrip('.')}" for p in bad]
        notes.append(f"left out {where}: {'; '.join(why)}.")
        return False
    leave = f"leave such {fields.things} out (--skip-incomplete)"
    if missing:
        problems.append(
            Problem(
                where,
                f"has no {', '.join(missing)}.",
                f"{fields.record}, map another key, or {leave}.",
            )
        )
    problems += [Problem(p.location, p.problem, f"{p.fix.rstrip('.')}; or {leave}.") for p in wrong]
    problems += [
        Problem(
            f"{where}, {p.location.split(', ', 1)[1]}",
            p.problem,
            f"{p.fix.rstrip('.')}; or {leave}.",
        )
        for p in bad
    ]
    return True


def mapped_rows(
    candidates: Sequence[Candidate],
    columns: Mapping[str, str],
    meanings: Mapping[str, Meaning],
    fields: Fields,
    *,
    skip_incomplete: bool = False,
) -> tuple[list[dict[str, Any]], list[str], list[str], list[Problem]]:
    """Each candidate's pool row: its ``row`` then one value per column of ``columns``
    (:func:`scenario_columns`), checked by :func:`keep_row`.

    Returns the rows kept, the candidates left out (their ``where``), the notes that name
    them and the problems (empty under ``skip_incomplete``), for the source to raise with
    its store named."""
    rows: list[dict[str, Any]] = []
    skipped: list[str] = []
    notes: list[str] = []
    problems: list[Problem] = []
    for candidate in candidates:
        row: dict[str, Any] = dict(candidate.row)
        missing = list(candidate.missing)
        wrong: list[Problem] = []
        for column, source in columns.items():
            value, looked, problem = _value(candidate, source, fields)
            if problem is not None:
                wrong.append(problem)
            elif value is None:
                missing.append(f"{column} ({looked})")
            row[column] = value
        if keep_row(
            row,
            meanings,
            missing,
            candidate.where,
            fields=fields,
            skip_incomplete=skip_incomplete,
            notes=notes,
            problems=problems,
            wrong=wrong,
        ):
            rows.append(row)
        else:
            skipped.append(candidate.label or candidate.where)
    return rows, skipped, notes, problems
