"""A study's answers and participants as two tables for analysis, with a codebook:
:func:`export_study`.

The answers table has one row per ``answer`` line of every session file (docs/architecture.md,
"Files": the study folder and the session format) of every participant who has not
withdrawn: who answered, the question as the screen showed it (Option A is the question's
left profile, Option B its right one) and exactly, the answer, and what the engine had
learned right after it; the language the question was shown in (the answer's own, else the
session's) and whose clock timed the answer (``response_timer``: the study server's for a
session of the study web page, else the recording app's, :func:`served`). That posterior
comes from replaying the file the way
:func:`tradeoff.record.replay.replay` does, asking the engine for its result (and, when its
questions aim at a decision, for P(best)) after every answer; an answer that a later
``undo`` took back keeps its row, flagged ``undone``, with the posterior right after it was
given.

Beside it, a second table has one row per participant who has not withdrawn: their state
(not started, declined consent, unfinished, complete), the questions they answered, the
model their answers pick (by name from the scenario's pool, as ``tradeoff study report``
computes it: the decide step's recommendation,
:func:`tradeoff.choose.recommend.recommend`) and the one probability the questions stopped
on, how they came in (panel id, entry, pilot), their consent version and language.

Pilot sessions (a session whose entry record says ``pilot``) are left out unless asked for
(``include_pilot``); a participant with nothing but pilot sessions is then left out of both
tables and named in :attr:`ExportSummary.pilot`. Both tables have a ``pilot`` column.

The tables are written as CSV (``.csv``: true/false as ``TRUE``/``FALSE``, which R's
``read.csv`` reads as logical and pandas' ``read_csv`` as bool, a missing value as an empty
cell) or Parquet (``.parquet``: native types), named from the answers table's name:
``answers.csv`` and ``answers.participants.csv``, with the codebook beside them, each file
named after the answers table it describes, so a CSV and a Parquet export of one name live
side by side: ``answers.csv.codebook.csv`` (``table``, ``column``, ``unit``, ``meaning``),
``answers.csv.codebook.md`` (the same as Markdown) and ``answers.csv.datapackage.json``
(a Frictionless Data Package: both tables' Table Schemas, types, units, missing and
true/false values, keys; :func:`tradeoff.study.codebook.datapackage`). Nothing is ever
written over an existing file: every file is written under a temporary name in the same
folder first and then linked to its name, which fails rather than replaces.

Text cells are written through :func:`tradeoff.text.spreadsheet_cell`, in the CSV and the
Parquet file alike (the same table whichever format; a Parquet file is often converted to a
spreadsheet): a text a spreadsheet would evaluate as a formula (starting with ``=``, ``+``,
``-``, ``@``, tab or carriage return) gets a leading apostrophe, and control characters
become ``?``; number columns are never touched. The codebook says so
(:data:`tradeoff.study.codebook.TEXT_CELLS`),
and its Markdown holds every label and name as text (:func:`tradeoff.text.markdown_text`).

A session file that cannot be read or replayed, or whose header names another participant
than the folder holding it (a file copied from another folder) or another scenario than the
study's, is left out and listed in :attr:`ExportSummary.skipped` with the reason.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tradeoff.ask.population import Population
from tradeoff.ask.scenario import Scenario, load_scenario
from tradeoff.ask.shown import per_thousand, shown_number
from tradeoff.errors import InputError
from tradeoff.learn import Engine
from tradeoff.record.log import SessionLog, read_session
from tradeoff.record.records import AnswerRecord, ExtendRecord, UndoRecord
from tradeoff.record.replay import replay
from tradeoff.study.codebook import (
    ANSWERS,
    ANSWERS_ROW,
    FORMATS,
    PARTICIPANTS_ROW,
    SIDES,
    Column,
    Table,
    aspect_slugs,
    codebook_csv,
    codebook_md,
    columns,
    datapackage,
)
from tradeoff.study.counted import not_counted, session_files
from tradeoff.study.entries import read_entries
from tradeoff.study.folder import Study
from tradeoff.study.thresholds import add_thresholds, median_threshold, participant_columns
from tradeoff.study.withdrawals import certain_withdrawals
from tradeoff.text import spreadsheet_cell

if TYPE_CHECKING:
    import pandas as pd

    from tradeoff.choose.selection import Stakeholder

__all__ = ["ExportSummary", "export_files", "export_study"]


@dataclass(frozen=True)
class ExportSummary:
    """What :func:`export_study` wrote.

    Parameters
    ----------
    path
        The answers table.
    codebook
        The codebook (CSV) beside it; :attr:`codebook_md` is the same as Markdown,
        :attr:`datapackage` the same as a Frictionless Data Package.
    rows
        Rows written (answer lines, undone ones included).
    participants
        Participants with at least one row, in study order.
    withdrawn
        Participants left out because they withdrew, in study order.
    skipped
        Session files left out, as (file, reason).
    warnings
        What the session reader reported about files that were exported (a line cut short
        by a crash and skipped, questions replayed as recorded by another version).
    codebook_md
        The codebook as a Markdown table.
    participants_table
        The participants table (one row per participant who has not withdrawn).
    datapackage
        The codebook as a Frictionless Data Package (``datapackage.json``).
    pilot
        Participants left out because every session of theirs was a pilot (only without
        ``include_pilot``), in study order.
    pilot_sessions
        Pilot session files left out (only without ``include_pilot``).
    states
        Each participant in the participants table and their state, in study order.
    undone
        Of the rows, the answers an undo took back: ``rows - undone`` answers count, as
        ``study status`` counts them.
    threshold_median
        The median of the participants' threshold probabilities (the participants table's
        ``threshold``, :mod:`tradeoff.study.thresholds`); ``None`` when none has one.
    """

    path: Path
    codebook: Path
    rows: int
    participants: tuple[str, ...]
    withdrawn: tuple[str, ...]
    skipped: tuple[tuple[str, str], ...]
    warnings: tuple[str, ...] = ()
    codebook_md: Path | None = None
    participants_table: Path | None = None
    datapackage: Path | None = None
    pilot: tuple[str, ...] = ()
    pilot_sessions: int = 0
    states: tuple[tuple[str, str], ...] = field(default=())
    undone: int = 0
    threshold_median: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """The summary as JSON-ready values.

        >>> s = ExportSummary(Path("a.csv"), Path("a.codebook.csv"), 3, ("p01",), ("p03",),
        ...                   (("x.jsonl", "unreadable"),))
        >>> s.to_dict()["skipped"]
        [{'file': 'x.jsonl', 'reason': 'unreadable'}]
        """
        return {
            "path": str(self.path),
            "codebook": str(self.codebook),
            "codebook_md": None if self.codebook_md is None else str(self.codebook_md),
            "participants_table": _str(self.participants_table),
            "datapackage": _str(self.datapackage),
            "rows": self.rows,
            "undone": self.undone,
            "participants": list(self.participants),
            "states": {p: state for p, state in self.states},
            "withdrawn": list(self.withdrawn),
            "pilot": list(self.pilot),
            "pilot_sessions": self.pilot_sessions,
            "skipped": [{"file": f, "reason": r} for f, r in self.skipped],
            "warnings": list(self.warnings),
            "threshold_median": self.threshold_median,
        }


def _str(path: Path | None) -> str | None:
    return None if path is None else str(path)


# -- rows -----------------------------------------------------------------------------------


Row = dict[str, Any]


def _posterior(engine: Engine, slugs: Sequence[str]) -> Row:
    """The engine's swing weights, their intervals and P(best), by column."""
    result = engine.result()
    if result.swing_weights is not None:
        weights, intervals = result.swing_weights, result.swing_intervals
    else:
        weights, intervals = result.weights, result.intervals
    row: Row = {}
    for k, slug in enumerate(slugs):
        row[f"w_{slug}"] = float(weights[k])
        lo, hi = (None, None) if intervals is None else intervals[k]
        row[f"w_{slug}_lo"] = lo
        row[f"w_{slug}_hi"] = hi
    decision = engine.decision()
    row["p_best"] = None if decision is None else decision[0]
    row["expected_regret"] = None if decision is None else decision[1]
    return row


def _answer_row(scenario: Scenario, slugs: Sequence[str], event: AnswerRecord) -> Row:
    """What an answer line says, by column (without the session's and the posterior's)."""
    q = event.query
    k = scenario.n_classes
    row: Row = {
        "kind": q.kind,
        "candidate_A": None if q.candidates is None else q.candidates[0],
        "candidate_B": None if q.candidates is None else q.candidates[1],
    }
    for side, attr in SIDES:
        profile = getattr(q, attr)
        for i, slug in enumerate(slugs[:k]):
            row[f"{side}_{slug}_per_1000"] = per_thousand(profile.recalls[i])
            row[f"{side}_{slug}_recall"] = profile.recalls[i]
        for j, slug in enumerate(slugs[k:]):
            row[f"{side}_{slug}_shown"] = shown_number(
                scenario.attributes[j], profile.attributes[j]
            )
            row[f"{side}_{slug}"] = profile.attributes[j]
    row.update(
        answer=ANSWERS[event.choice],
        response_ms=event.response_ms,
        answered_at=event.at,
        undone=False,
        repeat_of=q.repeat_of,
        is_repeat=q.repeat_of is not None,
    )
    return row


def session_language(log: SessionLog) -> str | None:
    """The language a session was shown in: its consent record's, else the study web
    page's ``language`` note, else ``None``."""
    if log.consent is not None:
        return log.consent.language
    for e in log.events:
        if e.type == "note" and e.text.startswith("language "):
            return e.text.removeprefix("language ")
    return None


def served(log: SessionLog) -> bool:
    """Whether the study web page recorded the session (it opens with an entry or a
    consent record, or notes its language, or an answer carries one), so its response
    times are the server's (:data:`tradeoff.study.codebook` ``response_timer``)."""
    return (
        log.entry is not None
        or log.consent is not None
        or session_language(log) is not None
        or any(isinstance(e, AnswerRecord) and e.language is not None for e in log.events)
    )


def _session_rows(
    log: SessionLog, scenario: Scenario, slugs: Sequence[str], population: Population | None
) -> tuple[list[Row], Engine]:
    """One row per answer line of ``log``, read as :func:`tradeoff.record.replay.replay`
    applies it, and the engine after the whole file.

    Raises
    ------
    InputError
        If a recorded question can be neither asked again nor applied as recorded.
    """
    h = log.header
    consent = log.consent
    language = session_language(log)
    common: Row = {
        "participant": h.participant,
        "session": log.path.name,
        "consent_version": None if consent is None else consent.version,
        "pilot": log.entry is not None and log.entry.pilot,
        "strategy": h.strategy,
        "response_timer": "server" if served(log) else "app",
    }
    rows: list[Row] = []
    counted: list[Row] = []  # the rows of the answers the engine counts now, oldest first

    def after(engine: Engine, event: AnswerRecord | UndoRecord | ExtendRecord) -> None:
        if isinstance(event, AnswerRecord):
            row = {
                **common,
                "language": event.language if event.language is not None else language,
                "question": event.index if event.index is not None else engine.answered,
                "answer_seq": len(rows) + 1,
                **_answer_row(scenario, slugs, event),
                **_posterior(engine, slugs),
            }
            rows.append(row)
            counted.append(row)
        while len(counted) > engine.answered:  # an undo took the newest answer back
            counted.pop()["undone"] = True

    engine = replay(log, population=population, after=after)
    return rows, engine


@dataclass(frozen=True)
class _Session:
    """One exported session file: its log, the engine after it, its modification time."""

    log: SessionLog
    engine: Engine
    mtime: float


@dataclass(frozen=True)
class _Collected:
    rows: list[Row]
    people: list[Row]
    participants: tuple[str, ...]
    withdrawn: tuple[str, ...]
    skipped: tuple[tuple[str, str], ...]
    warnings: tuple[str, ...]
    pilot: tuple[str, ...]
    pilot_sessions: int


def _mtime(path: Path) -> float:
    try:
        return os.lstat(path).st_mtime
    except OSError:
        return 0.0


def _described(sessions: Sequence[_Session]) -> _Session | None:
    """The session a participant's row describes: their newest complete session, else
    their newest (by modification time, as ``study status`` and ``study report`` tell)."""
    if not sessions:
        return None
    done = [s for s in sessions if s.log.finished]
    return max(done or sessions, key=lambda s: s.mtime)


def _person(pid: str, sessions: Sequence[_Session], panel_id: str | None = None) -> Row:
    """A participant's row, without the pick (:func:`_picks` adds it); ``panel_id``, their
    id on the panel as the study knows it (its allow-list), for one who has not started."""
    chosen = _described(sessions)
    if chosen is None:
        return {
            "participant": pid,
            "state": "not started",
            "completed": False,
            "questions_answered": 0,
            "sessions": 0,
            "session": None,
            "final_pick": None,
            "p_best": None,
            "panel_id": panel_id,
            "entry_via": None,
            "pilot": False,
            "consent_version": None,
            "language": None,
        }
    log, entry = chosen.log, chosen.log.entry
    answers = [e for e in log.events if isinstance(e, AnswerRecord)]
    shown = [e.language for e in answers if e.language is not None]
    language = session_language(log)
    complete = log.finished
    return {
        "participant": pid,
        "state": "complete" if complete else "unfinished",
        "completed": complete,
        "questions_answered": chosen.engine.answered,
        "sessions": len(sessions),
        "session": log.path.name,
        "final_pick": None,
        "p_best": None,
        "panel_id": None if entry is None else entry.panel_id,
        "entry_via": None if entry is None else entry.via,
        "pilot": entry is not None and entry.pilot,
        "consent_version": None if log.consent is None else log.consent.version,
        "language": language if language is not None else (shown[-1] if shown else None),
    }


def _picks(
    study: Study, scenario: Scenario, people: list[Row], described: dict[str, Stakeholder]
) -> str | None:
    """Each described session's pick and the probability it was stated with, written into
    ``people``: the recommendation of the decide step (:func:`tradeoff.choose.recommend.
    recommend` over the scenario's pool, with the stakeholder's posterior draws, as
    :func:`tradeoff.choose.decide.decide` and so ``tradeoff study report`` make it), from
    the engine the export replayed (nothing is replayed again, and no group consensus is
    computed: its cost grows with the square of the participants). Nothing when the
    scenario has no pool; returns why the picks were left empty when its pool cannot be
    read, else ``None``."""
    from tradeoff.choose.candidates import scenario_pool
    from tradeoff.choose.selection import recommend_each

    if not described or scenario.pool is None:
        return None
    try:
        pool = scenario_pool(scenario, study.scenario_path.parent)
    except InputError as exc:
        return f"final_pick and p_best left empty: {exc.message()}"
    by_id: dict[str, Row] = {row["participant"]: row for row in people}
    each = recommend_each(scenario, list(described.values()), pool)
    for pid, rec in zip(described, each.recommendations, strict=True):
        by_id[pid]["final_pick"] = rec.name
        by_id[pid]["p_best"] = rec.stated
    return None


def _collect(
    study: Study, scenario: Scenario, slugs: Sequence[str], include_pilot: bool
) -> _Collected:
    gone = certain_withdrawals(study)
    declined = {p for p, e in read_entries(study.path).people.items() if e.ever_declined}
    rows: list[Row] = []
    people: list[Row] = []
    exported: list[str] = []
    skipped: list[tuple[str, str]] = []
    warnings: list[str] = []
    pilot_only: list[str] = []
    pilot_sessions = 0
    described: dict[str, _Session] = {}
    population: Population | None = None
    for pid in study.participants:
        if pid in gone:
            continue
        before = len(rows)
        sessions: list[_Session] = []
        pilots = 0
        for path in session_files(study, pid)[0]:
            try:
                log = read_session(path)
            except InputError as exc:
                skipped.append((str(path), f"unreadable: {exc.message()}"))
                continue
            header = log.header
            foreign = not_counted(header, pid, study.scenario_sha256)
            if foreign is not None:
                skipped.append((str(path), foreign))
                continue
            if log.entry is not None and log.entry.pilot and not include_pilot:
                pilots += 1
                continue
            if population is None:
                population = study.populations()(header.scenario)
            try:
                found, engine = _session_rows(log, scenario, slugs, population)
            except InputError as exc:
                skipped.append((str(path), f"cannot be replayed: {exc.message()}"))
                continue
            rows += found
            sessions.append(_Session(log, engine, _mtime(path)))
            warnings += log.warnings
        pilot_sessions += pilots
        if not sessions and (pilots or (pid in study.pilots and not include_pilot)):
            pilot_only.append(pid)  # a pilot, with or without a session yet
            continue
        row = _person(pid, sessions, study.panel_ids.get(pid))
        if not sessions and pid in declined:
            row["state"] = "declined consent"
        people.append(row)
        chosen = _described(sessions)
        if chosen is not None and chosen.engine.answered > 0:
            described[pid] = chosen
        if len(rows) > before:
            exported.append(pid)
    from tradeoff.choose.selection import stakeholder_of

    of = {p: stakeholder_of(s.log.header, s.engine, s.log.path) for p, s in described.items()}
    refused = _picks(study, scenario, people, of)
    add_thresholds(scenario, people, of)  # from the posterior each pick comes from
    if refused is not None:
        warnings.append(refused)
    return _Collected(
        rows,
        people,
        tuple(exported),
        tuple(p for p in study.participants if p in gone),
        tuple(skipped),
        tuple(warnings),
        tuple(pilot_only),
        pilot_sessions,
    )


# -- files ----------------------------------------------------------------------------------


def _text_cell(value: Any) -> Any:
    """A text value as the table holds it (:func:`tradeoff.text.spreadsheet_cell`); a
    missing one stays missing."""
    return spreadsheet_cell(value) if isinstance(value, str) else value


def _frame(cols: Sequence[Column], rows: Sequence[Row], fmt: str) -> pd.DataFrame:
    """The rows as a pandas DataFrame with every column's type set, every text through
    :func:`tradeoff.text.spreadsheet_cell` (numbers are never touched); for CSV, true/false
    as the words ``TRUE``/``FALSE`` (what R's ``read.csv`` reads as logical). A missing
    number is an empty cell in CSV, null in Parquet (pyarrow writes pandas' NaN so)."""
    import pandas as pd

    # text: pandas 3's own string type (missing is NaN, as read_csv gives it); object before
    text = "str" if int(pd.__version__.split(".")[0]) >= 3 else "object"
    dtypes = {"str": text, "int": "int64", "Int64": "Int64", "float": "float64", "bool": "bool"}

    def series(c: Column) -> pd.Series:
        values = [r[c.name] for r in rows]
        if c.dtype == "str":
            return pd.Series([_text_cell(v) for v in values], dtype=text)
        if c.dtype == "bool" and fmt == "csv":
            return pd.Series(["TRUE" if v else "FALSE" for v in values], dtype=text)
        return pd.Series(values, dtype=dtypes[c.dtype])

    return pd.DataFrame({c.name: series(c) for c in cols}, columns=[c.name for c in cols])


def _refuse_existing(paths: Iterable[Path]) -> None:
    for p in paths:
        if os.path.lexists(p):
            raise InputError.single(
                p,
                "",
                "exists already; an export never writes over a file.",
                "give a new name for the export (its participants table and codebook are "
                "written beside it: for answers.csv, answers.participants.csv, "
                "answers.csv.codebook.csv, answers.csv.codebook.md and "
                "answers.csv.datapackage.json).",
            )


def _publish(staged: Sequence[tuple[Path, Path]]) -> None:
    """Link every temporary file to its name (which must not exist), then remove the
    temporary names; if a name appeared meanwhile, the names already linked are removed
    again (they were ours) and an InputError names the file."""
    done: list[Path] = []
    try:
        for tmp, final in staged:
            try:
                os.link(tmp, final)
            except FileExistsError:
                _refuse_existing([final])
                raise
            except OSError:  # a file system without hard links: check, then rename
                _refuse_existing([final])
                os.replace(tmp, final)
            done.append(final)
    except BaseException:
        for final in done:
            with contextlib.suppress(OSError):
                final.unlink()
        raise
    finally:
        _discard(staged)


def _discard(staged: Sequence[tuple[Path, Path]]) -> None:
    for tmp, _ in staged:
        with contextlib.suppress(OSError):
            tmp.unlink()


def _stage(folder: Path, name: str) -> Path:
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
    os.close(fd)
    return Path(tmp)


def export_files(out: str | Path) -> dict[str, Path]:
    """Every file an export to ``out`` writes, by role: ``answers`` (``out`` itself),
    ``participants``, ``codebook``, ``codebook_md`` and ``datapackage``. The companions of
    the answers table are named after its whole file name, so a CSV and a Parquet export of
    one name never share a file.

    >>> [p.name for p in export_files("out/answers.csv").values()]
    ... # doctest: +NORMALIZE_WHITESPACE
    ['answers.csv', 'answers.participants.csv', 'answers.csv.codebook.csv',
     'answers.csv.codebook.md', 'answers.csv.datapackage.json']
    """
    target = Path(out)
    folder, name = target.parent, target.name
    return {
        "answers": target,
        "participants": folder / f"{target.stem}.participants{target.suffix}",
        "codebook": folder / f"{name}.codebook.csv",
        "codebook_md": folder / f"{name}.codebook.md",
        "datapackage": folder / f"{name}.datapackage.json",
    }


def export_study(study: Study, out: str | Path, *, include_pilot: bool = False) -> ExportSummary:
    """Write a study's answers and participants as two tables (CSV or Parquet) and their
    codebook beside them.

    Parameters
    ----------
    study
        The study, as :func:`tradeoff.study.folder.load_study` read it (its files checked).
    out
        The answers table to write, ending in ``.csv`` or ``.parquet``; the participants
        table and the codebook are written beside it (:func:`export_files`).
    include_pilot
        Export pilot sessions too (they are left out by default).

    Returns
    -------
    ExportSummary
        What was written, who was exported, who was left out as withdrawn or as pilot, and
        every session file skipped with the reason.

    Raises
    ------
    InputError
        If ``out`` ends otherwise, its folder does not exist, or any file the export would
        write exists already (nothing is then written, and nothing there is touched).

    Notes
    -----
    Rows come in the study's participant order, then by session file name, then in file
    order. The posterior columns (``w_*``, ``p_best``, ``expected_regret``) are what the
    engine reports right after each answer: ``p_best`` and ``expected_regret`` are
    :meth:`~tradeoff.learn.Engine.decision`'s (P(best) of the pick, its expected
    relative regret); the participants table names the pick at the end. The population is
    memory-mapped from the study's ``cache/`` (built there first if its entry is missing,
    as a participant's process would). The files are readable by their owner only (mode
    0600), as the session files are.
    """
    target = Path(out)
    fmt = FORMATS.get(target.suffix.lower())
    if fmt is None:
        raise InputError.single(
            target,
            "",
            f"is not a table format this export writes (suffix {target.suffix or 'none'!r}).",
            "give a file ending in .csv or .parquet.",
        )
    folder = target.parent
    if not folder.is_dir():
        raise InputError.single(
            target, "", "its folder does not exist.", "give a file in an existing folder."
        )
    files = export_files(target)
    _refuse_existing(files.values())

    scenario = load_scenario(study.scenario_path).scenario
    tables = (
        Table(
            "answers",
            files["answers"].name,
            columns(scenario),
            ANSWERS_ROW,
            ("participant", "session", "answer_seq"),
        ),
        Table(
            "participants",
            files["participants"].name,
            participant_columns(),
            PARTICIPANTS_ROW,
            ("participant",),
        ),
    )
    collected = _collect(study, scenario, aspect_slugs(scenario), include_pilot)
    frames = (
        _frame(tables[0].columns, collected.rows, fmt),
        _frame(tables[1].columns, collected.people, fmt),
    )
    created = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    package = datapackage(scenario, tables, fmt, created)

    staged: list[tuple[Path, Path]] = []
    try:
        for final in files.values():
            staged.append((_stage(folder, final.name), final))
        tmp = dict(zip(files, (t for t, _ in staged), strict=True))
        for name, frame in zip(("answers", "participants"), frames, strict=True):
            if fmt == "parquet":
                frame.to_parquet(tmp[name], index=False)
            else:
                frame.to_csv(tmp[name], index=False)
        tmp["codebook"].write_text(codebook_csv(tables), encoding="utf-8")
        tmp["codebook_md"].write_text(codebook_md(scenario, tables), encoding="utf-8")
        tmp["datapackage"].write_text(
            json.dumps(package, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        for t, _ in staged:
            with open(t, "rb") as fh:
                os.fsync(fh.fileno())
    except OSError as exc:
        _discard(staged)
        raise InputError.single(
            target,
            "",
            f"could not be written ({exc.strerror or exc}); nothing was left behind.",
            "give a folder you can write to, with room for the export.",
        ) from None
    except BaseException:
        _discard(staged)
        raise
    _publish(staged)
    return ExportSummary(
        path=target,
        codebook=files["codebook"],
        rows=len(collected.rows),
        undone=sum(bool(r.get("undone")) for r in collected.rows),
        participants=collected.participants,
        withdrawn=collected.withdrawn,
        skipped=collected.skipped,
        warnings=collected.warnings,
        codebook_md=files["codebook_md"],
        participants_table=files["participants"],
        datapackage=files["datapackage"],
        pilot=collected.pilot,
        pilot_sessions=collected.pilot_sessions,
        states=tuple((r["participant"], r["state"]) for r in collected.people),
        threshold_median=median_threshold(collected.people),
    )
