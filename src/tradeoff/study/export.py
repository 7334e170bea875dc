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
(not started, declined consent, unfinished, complete; erased, for one erased on request,
whose row holds nothing else), the questions they answered, the
model their answers pick (by name from the scenario's pool, as ``tradeoff study report``
computes it: the decide step's recommendation,
:func:`tradeoff.choose.recommend.recommend`) and the one probability the questions stopped
on, how they came in (panel id, entry, pilot; for a study recruiting through a panel,
the quota group and the link's kept parameters each panel entrant came in with:
:mod:`tradeoff.study.entry_columns`), their consent version and language.

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

import json
import os
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tradeoff.ask.scenario import load_scenario
from tradeoff.errors import InputError
from tradeoff.study.codebook import (
    ANSWERS_ROW,
    PARTICIPANTS_ROW,
    Table,
    codebook_csv,
    codebook_md,
    datapackage,
)
from tradeoff.study.counted import read_once
from tradeoff.study.entry_columns import with_entry_columns
from tradeoff.study.export_people import collect
from tradeoff.study.folder import Study
from tradeoff.study.status import counted_sessions
from tradeoff.study.table_columns import aspect_slugs, columns
from tradeoff.study.table_files import (
    FORMATS,
    discard,
    export_files,
    publish,
    refuse_existing,
    stage,
    table_frame,
)
from tradeoff.study.thresholds import median_threshold, participant_columns

__all__ = ["ExportSummary", "export_study"]


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
        The median of the threshold probabilities (the participants table's ``threshold``,
        :mod:`tradeoff.study.thresholds`) of the complete participants, those ``study
        report`` counts (:func:`tradeoff.study.status.counted_sessions`); ``None`` when
        none has one.
    threshold_count
        How many complete participants' thresholds :attr:`threshold_median` is over.
    erased
        Participants erased on request (``study erase``): a row each in the participants
        table, state ``erased``, and nothing else anywhere.
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
    erased: tuple[str, ...] = ()
    threshold_count: int = 0

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
            "threshold_count": self.threshold_count,
            "erased": list(self.erased),
        }


def _str(path: Path | None) -> str | None:
    return None if path is None else str(path)


def export_study(
    study: Study,
    out: str | Path,
    *,
    include_pilot: bool = False,
    exclude_inattentive: bool = False,
) -> ExportSummary:
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
    exclude_inattentive
        Leave out of both tables every participant who failed an attention check (said
        in ``skipped``, by participant id).

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
    refuse_existing(files.values())

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
            with_entry_columns(participant_columns(), study.panel),
            PARTICIPANTS_ROW,
            ("participant",),
        ),
    )
    if study.arms:  # an arm column in both tables
        from tradeoff.study.arm_report import with_arm_column

        tables = (
            replace(tables[0], columns=with_arm_column(tables[0].columns)),
            replace(tables[1], columns=with_arm_column(tables[1].columns)),
        )
    with read_once():  # the rows and the status the summary counts from read each file once
        collected = collect(
            study, scenario, aspect_slugs(scenario), include_pilot, exclude_inattentive
        )
        # the complete participants, as study report counts them (with the same pilots and
        # attention checks left out)
        report = counted_sessions(
            study, include_pilot=include_pilot, exclude_inattentive=exclude_inattentive
        )
    frames = (
        table_frame(tables[0].columns, collected.rows, fmt),
        table_frame(tables[1].columns, collected.people, fmt),
    )
    created = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    package = datapackage(scenario, tables, fmt, created)

    staged: list[tuple[Path, Path]] = []
    try:
        for final in files.values():
            staged.append((stage(folder, final.name), final))
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
        discard(staged)
        raise InputError.single(
            target,
            "",
            f"could not be written ({exc.strerror or exc}); nothing was left behind.",
            "give a folder you can write to, with room for the export.",
        ) from None
    except BaseException:
        discard(staged)
        raise
    publish(staged)
    counted = {pid for pid, _ in report.sessions}
    complete = [r for r in collected.people if r["participant"] in counted]
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
        threshold_median=median_threshold(complete),
        erased=collected.erased,
        threshold_count=sum(r.get("threshold") is not None for r in complete),
    )
