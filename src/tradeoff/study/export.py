"""A study's answers as one table for analysis, with a codebook: :func:`export_study`.

The table has one row per ``answer`` line of every session file (docs/architecture.md,
"Files": the study folder and the session format) of every participant who has not
withdrawn: who answered, the question as the screen showed it (Option A is the question's
left profile, Option B its right one) and exactly, the answer, and what the engine had
learned right after it. That posterior comes from replaying the file the way
:func:`tradeoff.record.replay.replay` does, asking the engine for its result (and, when its
questions aim at a decision, for P(best)) after every answer; an answer that a later
``undo`` took back keeps its row, flagged ``undone``, with the posterior right after it was
given.

The table is written as CSV (``.csv``) or Parquet (``.parquet``), and beside it the codebook
``<stem>.codebook.csv`` (``column``, ``unit``, ``meaning``) and ``<stem>.codebook.md`` (the
same as a Markdown table). Nothing is ever written over an existing file: every file is
written under a temporary name in the same folder first and then linked to its name, which
fails rather than replaces.

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
import os
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tradeoff.ask.population import Population
from tradeoff.ask.presentation import per_thousand, shown_number
from tradeoff.ask.scenario import Scenario, load_scenario
from tradeoff.errors import InputError
from tradeoff.learn import Engine
from tradeoff.record.log import SessionLog, read_session
from tradeoff.record.records import AnswerRecord, ExtendRecord, UndoRecord
from tradeoff.record.replay import replay
from tradeoff.study.codebook import (
    ANSWERS,
    FORMATS,
    SIDES,
    Column,
    aspect_slugs,
    codebook_csv,
    codebook_md,
    columns,
)
from tradeoff.study.counted import not_counted, session_files
from tradeoff.study.folder import Study
from tradeoff.study.withdrawals import certain_withdrawals
from tradeoff.text import spreadsheet_cell

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ExportSummary", "export_study"]


@dataclass(frozen=True)
class ExportSummary:
    """What :func:`export_study` wrote.

    Parameters
    ----------
    path
        The table.
    codebook
        The codebook (CSV) beside it; :attr:`codebook_md` is the same as Markdown.
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
    """

    path: Path
    codebook: Path
    rows: int
    participants: tuple[str, ...]
    withdrawn: tuple[str, ...]
    skipped: tuple[tuple[str, str], ...]
    warnings: tuple[str, ...] = ()
    codebook_md: Path | None = None

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
            "rows": self.rows,
            "participants": list(self.participants),
            "withdrawn": list(self.withdrawn),
            "skipped": [{"file": f, "reason": r} for f, r in self.skipped],
            "warnings": list(self.warnings),
        }


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


def _session_rows(
    log: SessionLog, scenario: Scenario, slugs: Sequence[str], population: Population | None
) -> list[Row]:
    """One row per answer line of ``log``, read as :func:`tradeoff.record.replay.replay`
    applies it.

    Raises
    ------
    InputError
        If a recorded question can be neither asked again nor applied as recorded.
    """
    h = log.header
    consent = log.consent
    noted = [
        e.text.removeprefix("language ")
        for e in log.events
        if e.type == "note" and e.text.startswith("language ")
    ]
    common: Row = {
        "participant": h.participant,
        "session": log.path.name,
        "language": consent.language if consent is not None else (noted[0] if noted else None),
        "consent_version": None if consent is None else consent.version,
        "strategy": h.strategy,
    }
    rows: list[Row] = []
    counted: list[Row] = []  # the rows of the answers the engine counts now, oldest first

    def after(engine: Engine, event: AnswerRecord | UndoRecord | ExtendRecord) -> None:
        if isinstance(event, AnswerRecord):
            row = {
                **common,
                "question": event.index if event.index is not None else engine.answered,
                "answer_seq": len(rows) + 1,
                **_answer_row(scenario, slugs, event),
                **_posterior(engine, slugs),
            }
            rows.append(row)
            counted.append(row)
        while len(counted) > engine.answered:  # an undo took the newest answer back
            counted.pop()["undone"] = True

    replay(log, population=population, after=after)
    return rows


@dataclass(frozen=True)
class _Collected:
    rows: list[Row]
    participants: tuple[str, ...]
    withdrawn: tuple[str, ...]
    skipped: tuple[tuple[str, str], ...]
    warnings: tuple[str, ...]


def _collect(study: Study, scenario: Scenario, slugs: Sequence[str]) -> _Collected:
    gone = certain_withdrawals(study)
    rows: list[Row] = []
    exported: list[str] = []
    skipped: list[tuple[str, str]] = []
    warnings: list[str] = []
    population: Population | None = None
    for pid in study.participants:
        if pid in gone:
            continue
        before = len(rows)
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
            if population is None:
                population = study.populations()(header.scenario)
            try:
                rows += _session_rows(log, scenario, slugs, population)
            except InputError as exc:
                skipped.append((str(path), f"cannot be replayed: {exc.message()}"))
                continue
            warnings += log.warnings
        if len(rows) > before:
            exported.append(pid)
    return _Collected(
        rows,
        tuple(exported),
        tuple(p for p in study.participants if p in gone),
        tuple(skipped),
        tuple(warnings),
    )


# -- files ----------------------------------------------------------------------------------


def _text_cell(value: Any) -> Any:
    """A text value as the table holds it (:func:`tradeoff.text.spreadsheet_cell`); a
    missing one stays missing."""
    return spreadsheet_cell(value) if isinstance(value, str) else value


def _frame(cols: Sequence[Column], rows: Sequence[Row]) -> pd.DataFrame:
    """The rows as a pandas DataFrame with every column's type set, every text through
    :func:`tradeoff.text.spreadsheet_cell` (numbers are never touched)."""
    import pandas as pd

    # text: pandas 3's own string type (missing is NaN, as read_csv gives it); object before
    text = "str" if int(pd.__version__.split(".")[0]) >= 3 else "object"
    dtypes = {"str": text, "int": "int64", "Int64": "Int64", "float": "float64", "bool": "bool"}
    data = {
        c.name: pd.Series(
            [_text_cell(r[c.name]) if c.dtype == "str" else r[c.name] for r in rows],
            dtype=dtypes[c.dtype],
        )
        for c in cols
    }
    return pd.DataFrame(data, columns=[c.name for c in cols])


def _refuse_existing(paths: Iterable[Path]) -> None:
    for p in paths:
        if os.path.lexists(p):
            raise InputError.single(
                p,
                "",
                "exists already; an export never writes over a file.",
                "give a new name for the export (its codebook is written beside it as "
                "<name>.codebook.csv and .codebook.md).",
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


def export_study(study: Study, out: str | Path) -> ExportSummary:
    """Write a study's answers as one table (CSV or Parquet) and its codebook beside it.

    Parameters
    ----------
    study
        The study, as :func:`tradeoff.study.folder.load_study` read it (its files checked).
    out
        The table to write, ending in ``.csv`` or ``.parquet``; the codebook is written
        beside it as ``<stem>.codebook.csv`` and ``<stem>.codebook.md``.

    Returns
    -------
    ExportSummary
        What was written, who was exported, who was left out as withdrawn, and every
        session file skipped with the reason.

    Raises
    ------
    InputError
        If ``out`` ends otherwise, its folder does not exist, or it or a codebook file
        exists already (nothing is then written, and nothing there is touched).

    Notes
    -----
    Rows come in the study's participant order, then by session file name, then in file
    order. The posterior columns (``w_*``, ``p_best``, ``expected_regret``) are what the
    engine reports right after each answer: ``p_best`` and ``expected_regret`` are
    :meth:`~tradeoff.learn.Engine.decision`'s (P(best) of the pick, its expected
    relative regret); the engine does not say which model it would pick, so the table does
    not either. The population is memory-mapped from the study's ``cache/`` (built there
    first if its entry is missing, as a participant's process would). The files are
    readable by their owner only (mode 0600), as the session files are.
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
    book = folder / f"{target.stem}.codebook.csv"
    book_md = folder / f"{target.stem}.codebook.md"
    _refuse_existing([target, book, book_md])

    scenario = load_scenario(study.scenario_path).scenario
    cols = columns(scenario)
    collected = _collect(study, scenario, aspect_slugs(scenario))
    frame = _frame(cols, collected.rows)

    staged: list[tuple[Path, Path]] = []
    try:
        for final in (target, book, book_md):
            staged.append((_stage(folder, final.name), final))
        table_tmp = staged[0][0]
        if fmt == "parquet":
            frame.to_parquet(table_tmp, index=False)
        else:
            frame.to_csv(table_tmp, index=False)
        staged[1][0].write_text(codebook_csv(cols), encoding="utf-8")
        staged[2][0].write_text(codebook_md(scenario, cols), encoding="utf-8")
        for tmp, _ in staged:
            with open(tmp, "rb") as fh:
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
        codebook=book,
        rows=len(collected.rows),
        participants=collected.participants,
        withdrawn=collected.withdrawn,
        skipped=collected.skipped,
        warnings=collected.warnings,
        codebook_md=book_md,
    )
