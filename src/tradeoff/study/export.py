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
become ``?``; number columns are never touched. The codebook says so (:data:`TEXT_CELLS`),
and its Markdown holds every label and name as text (:func:`tradeoff.text.markdown_text`).

A session file that cannot be read or replayed, or whose header names another participant
than the folder holding it (a file copied from another folder) or another scenario than the
study's, is left out and listed in :attr:`ExportSummary.skipped` with the reason.
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
import re
import tempfile
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from tradeoff.ask.population import Population
from tradeoff.ask.presentation import per_thousand, shown_number
from tradeoff.ask.scenario import Scenario, load_scenario
from tradeoff.errors import InputError
from tradeoff.learn import Choice, Engine
from tradeoff.record.log import SessionLog, read_session
from tradeoff.record.records import AnswerRecord, ExtendRecord, UndoRecord
from tradeoff.record.replay import replay
from tradeoff.study.counted import not_counted, session_files
from tradeoff.study.folder import Study
from tradeoff.study.withdrawals import withdrawn
from tradeoff.text import markdown_text, spreadsheet_cell

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "FORMATS",
    "Column",
    "ExportSummary",
    "aspect_slugs",
    "columns",
    "export_study",
    "slugify",
]

#: Table formats by file suffix.
FORMATS = {".csv": "csv", ".parquet": "parquet"}

#: How a column is stored: text, a whole number (``Int64``: one that may be empty), a
#: number, or true/false.
Dtype = Literal["str", "int", "Int64", "float", "bool"]

_ANSWERS = {Choice.LEFT: "A", Choice.RIGHT: "B", Choice.INDIFFERENT: "cant_tell"}
_SIDES = (("A", "left"), ("B", "right"))
_WEIGHT_UNIT = "weight (0–1, sums to 1)"
_POOL_ROWS = (
    "(the scenario pool's models in the pool file's order, or only its non-dominated ones "
    "when the pool is too large)"
)


@dataclass(frozen=True)
class Column:
    """One column of the table and its codebook entry.

    Parameters
    ----------
    name
        The column's name in the table.
    unit
        Its unit (``per 1,000 cases``, ``fraction``, an attribute's unit, ``ms``, …).
    meaning
        One sentence in the scenario's own words.
    dtype
        How it is stored (:data:`Dtype`).
    """

    name: str
    unit: str
    meaning: str
    dtype: Dtype


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


# -- columns --------------------------------------------------------------------------------


def slugify(text: str) -> str:
    """``text`` as part of a column name: lower case, ASCII letters and digits, every other
    run of characters one ``_`` (accents are dropped, not the letters).

    >>> slugify("Malignant lumps"), slugify("  Latency (ms) "), slugify("lésions")
    ('malignant_lumps', 'latency_ms', 'lesions')
    """
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "_", plain.lower()).strip("_")


_FIXED_BEFORE = (
    Column("participant", "id", "The participant's id in the study.", "str"),
    Column("session", "file name", "The session file the answer was read from.", "str"),
    Column(
        "language",
        "language tag",
        "The language the pages were shown in (from the consent record, or the study web "
        "page's 'language' note when the study asked no consent; empty when neither was "
        "recorded, as at a terminal).",
        "str",
    ),
    Column(
        "consent_version",
        "text",
        "The version of the consent text the participant agreed to (empty when the session "
        "recorded no consent).",
        "str",
    ),
    Column("strategy", "name", "The strategy that chose the questions.", "str"),
    Column(
        "question",
        "number",
        "The question's number as the participant saw it (an answer taken back and given "
        "again repeats the number).",
        "int",
    ),
    Column(
        "answer_seq",
        "number",
        "The order of this answer line among the answer lines of the session file, from 1.",
        "int",
    ),
    Column(
        "kind",
        "category",
        "'trade' for two made-up classifiers that trade one aspect against another, "
        "'candidates' for two real models of the scenario's pool.",
        "str",
    ),
    Column(
        "candidate_A",
        "row index (from 0)",
        "For a 'candidates' question, Option A's row among the decision candidates the "
        f"session's header recorded {_POOL_ROWS}; empty otherwise.",
        "Int64",
    ),
    Column(
        "candidate_B",
        "row index (from 0)",
        "For a 'candidates' question, Option B's row among the decision candidates the "
        f"session's header recorded {_POOL_ROWS}; empty otherwise.",
        "Int64",
    ),
)

_FIXED_MIDDLE = (
    Column(
        "answer",
        "category",
        "The answer: 'A' (Option A preferred), 'B' (Option B preferred) or 'cant_tell'.",
        "str",
    ),
    Column(
        "response_ms",
        "ms",
        "Time from showing the question to the answer (empty when not recorded).",
        "float",
    ),
    Column("answered_at", "ISO 8601 time", "When the answer was saved (UTC).", "str"),
    Column(
        "undone",
        "true/false",
        "True when a later undo in the same session took this answer back (it then does not "
        "count towards the session's result).",
        "bool",
    ),
    Column(
        "repeat_of",
        "answer index (from 0)",
        "For a question asked again to check consistency, the position (from 0) among the "
        "answers then counted of the question it repeats, so question repeat_of + 1; empty "
        "otherwise.",
        "Int64",
    ),
    Column(
        "is_repeat",
        "true/false",
        "True when the question asks an earlier question again to check consistency.",
        "bool",
    ),
)

_FIXED_AFTER = (
    Column(
        "p_best",
        "probability",
        "Posterior probability, right after this answer, that the model the engine would "
        "pick from the pool is the best one for this participant (empty when the questions "
        "did not aim at a pick).",
        "float",
    ),
    Column(
        "expected_regret",
        "fraction of the spread",
        "Right after this answer, the pick's expected shortfall from the best model, as a "
        "fraction of the mean spread between the pool's best and worst models (empty when "
        "the questions did not aim at a pick).",
        "float",
    ),
)


def _aspects(scenario: Scenario) -> list[tuple[str, str]]:
    """(base slug, words) of every weight of the scenario, classes then attributes."""
    out = [
        (slugify(c.label) or slugify(c.name), f"{c.label} {c.outcome}") for c in scenario.classes
    ]
    out += [(slugify(a.name), a.name) for a in scenario.attributes]
    return [(base or f"aspect_{k + 1}", words) for k, (base, words) in enumerate(out)]


def _derived(slug: str, is_class: bool) -> list[str]:
    sides = [
        f"{s}_{slug}{end}"
        for end in (("_per_1000", "_recall") if is_class else ("_shown", ""))
        for s in ("A", "B")
    ]
    return [*sides, f"w_{slug}", f"w_{slug}_lo", f"w_{slug}_hi"]


def aspect_slugs(scenario: Scenario) -> tuple[str, ...]:
    """The slug of every weight (classes by label, attributes by name), made unique so
    that no two columns share a name.

    >>> from tradeoff.ask.scenario import load_scenario
    >>> aspect_slugs(load_scenario("scenarios/breast-cancer-triage.toml").scenario)
    ('malignant_lumps', 'benign_lumps', 'latency', 'memory')
    """
    taken = {c.name for c in (*_FIXED_BEFORE, *_FIXED_MIDDLE, *_FIXED_AFTER)}
    slugs: list[str] = []
    for k, (base, _) in enumerate(_aspects(scenario)):
        is_class = k < scenario.n_classes
        slug, n = base, 1
        while any(name in taken for name in _derived(slug, is_class)):
            n += 1
            slug = f"{base}_{n}"
        taken.update(_derived(slug, is_class))
        slugs.append(slug)
    return tuple(slugs)


def columns(scenario: Scenario) -> tuple[Column, ...]:
    """Every column of a study's table, in order, with its unit and meaning.

    >>> from tradeoff.ask.scenario import load_scenario
    >>> sc = load_scenario("scenarios/breast-cancer-triage.toml").scenario
    >>> [c.name for c in columns(sc)][10:14]
    ['A_malignant_lumps_per_1000', 'B_malignant_lumps_per_1000', 'A_malignant_lumps_recall', \
'B_malignant_lumps_recall']
    """
    slugs = aspect_slugs(scenario)
    aspects = _aspects(scenario)
    k = scenario.n_classes
    shown: list[Column] = []
    for c, slug in zip(scenario.classes, slugs[:k], strict=True):
        for side, _ in _SIDES:
            shown.append(
                Column(
                    f"{side}_{slug}_per_1000",
                    "per 1,000 cases",
                    f"Option {side}: of 1,000 {c.label}, how many are {c.outcome}, as the "
                    "screen showed it (rounded).",
                    "int",
                )
            )
        for side, _ in _SIDES:
            shown.append(
                Column(
                    f"{side}_{slug}_recall",
                    "fraction",
                    f"Option {side}: the exact share of {c.label} {c.outcome} (recall).",
                    "float",
                )
            )
    for a, slug in zip(scenario.attributes, slugs[k:], strict=True):
        unit = a.unit or "the scenario's unit"
        for side, _ in _SIDES:
            shown.append(
                Column(
                    f"{side}_{slug}_shown",
                    unit,
                    f"Option {side}: {a.name} as the screen showed it (in {unit} "
                    f"{a.label}), rounded as the scenario's format rounds it.",
                    "float",
                )
            )
        for side, _ in _SIDES:
            shown.append(
                Column(
                    f"{side}_{slug}",
                    unit,
                    f"Option {side}: the exact {a.name}, in {unit} {a.label}.",
                    "float",
                )
            )
    weights: list[Column] = []
    for (_, words), slug in zip(aspects, slugs, strict=True):
        weights += [
            Column(
                f"w_{slug}",
                _WEIGHT_UNIT,
                f"Swing weight of {words} right after this answer (posterior estimate): how "
                "much it matters over its whole range in the scenario; a row's weights sum "
                "to 1.",
                "float",
            ),
            Column(
                f"w_{slug}_lo",
                "weight (0–1)",
                f"Lower end of the 90 % credible interval of the swing weight of {words} "
                "right after this answer (empty when the strategy gives no interval).",
                "float",
            ),
            Column(
                f"w_{slug}_hi",
                "weight (0–1)",
                f"Upper end of the 90 % credible interval of the swing weight of {words} "
                "right after this answer (empty when the strategy gives no interval).",
                "float",
            ),
        ]
    return (*_FIXED_BEFORE, *shown, *_FIXED_MIDDLE, *weights, *_FIXED_AFTER)


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
    for side, attr in _SIDES:
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
        answer=_ANSWERS[event.choice],
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


def _study_population(study: Study, scenario: Scenario) -> Population | None:
    """The scenario's population from the study's cache (``None``: the engine builds it)."""
    if not study.cache_dir.is_dir():
        return None
    from tradeoff.study.cache import cached_population

    return cached_population(scenario, study.cache_dir)


@dataclass(frozen=True)
class _Collected:
    rows: list[Row]
    participants: tuple[str, ...]
    withdrawn: tuple[str, ...]
    skipped: tuple[tuple[str, str], ...]
    warnings: tuple[str, ...]


def _collect(study: Study, scenario: Scenario, slugs: Sequence[str]) -> _Collected:
    gone = withdrawn(study)
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
                population = _study_population(study, header.scenario)
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


def _codebook_csv(cols: Iterable[Column]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["column", "unit", "meaning"])
    writer.writerows([spreadsheet_cell(t) for t in (c.name, c.unit, c.meaning)] for c in cols)
    return buffer.getvalue()


#: How text cells are written, as the codebook says it.
TEXT_CELLS = (
    "Text cells (ids, versions, names, labels) are written as given, with two exceptions "
    "that keep the table safe to open in a spreadsheet, in the CSV and the Parquet file "
    "alike: a text that starts with =, +, -, @, a tab or a carriage return, which a "
    "spreadsheet would evaluate as a formula, starts with an apostrophe ('), which "
    "spreadsheets show as text and do not evaluate (remove it to get the text as given); "
    "and control characters (line breaks and tabs included) are written as ?. Number "
    "columns hold numbers, negative ones included, never touched."
)


def _codebook_md(scenario: Scenario, cols: Iterable[Column]) -> str:
    lines = [
        f"# Codebook: {markdown_text(scenario.title)}",
        "",
        "One row per answer line of every session file of every participant who has not "
        "withdrawn. Option A is the question's left option, Option B its right one.",
        "",
        markdown_text(TEXT_CELLS),
        "",
        "| column | unit | meaning |",
        "| --- | --- | --- |",
    ]
    # a column's name is a slug (a-z, 0-9, _: see slugify), safe as a code span; units and
    # meanings carry the scenario's labels and names, text from a file
    lines += [
        f"| `{c.name}` | {markdown_text(c.unit)} | {markdown_text(c.meaning)} |" for c in cols
    ]
    return "\n".join(lines) + "\n"


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
        staged[1][0].write_text(_codebook_csv(cols), encoding="utf-8")
        staged[2][0].write_text(_codebook_md(scenario, cols), encoding="utf-8")
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
