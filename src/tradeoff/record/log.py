"""Reading a session file: every line validated, the chain of hashes verified.

:func:`read_session` reads a file written by :class:`~tradeoff.record.recorder.Recorder`
into a :class:`SessionLog`: the :class:`~tradeoff.record.records.Header`, the events with the
line numbers they came from, and warnings. A bad field is an
:class:`~tradeoff.errors.InputError` naming the file, the line and the field; a line cut short
by a crash is reported and skipped, never silently dropped. :func:`iter_sessions`,
:func:`closed` and :func:`unfinished_sessions` find a participant's sessions in a sessions
folder.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from tradeoff.ask.scenario import STRATEGY_NAMES, Scenario, parse_scenario
from tradeoff.data import shipped_ids, shipped_scenarios
from tradeoff.errors import InputError, Problem, read_user_file
from tradeoff.limits import MAX_DECISION_CANDIDATES, check_toml
from tradeoff.record.records import (
    READABLE_FORMATS,
    AnswerRecord,
    CheckRecord,
    ConsentRecord,
    EntryRecord,
    Event,
    EventRecord,
    Header,
    HeaderRecord,
    ResultRecord,
    chain_hash,
    split_chain,
)
from tradeoff.text import clean_text, cut

#: The fix said of a file that is not as tradeoff wrote it.
RESTORE = (
    "restore the file as tradeoff wrote it (from a backup or the copy you were sent), "
    "or start a new session; an edited session is not replayed."
)

_EVENT = TypeAdapter(Event)
_EVENT_TYPES = ("answer", "undo", "note", "extend", "result", "check", "consent")
_FIXES = {
    "choice": "an answer's choice is left, right or indifferent.",
    "query": "an answer carries the question as tradeoff wrote it.",
    "type": "a line's type is consent, entry, header, answer, check, undo, note, extend or result.",
    "version": "a consent record names the consent text's version.",
    "text_sha256": "a consent record carries the sha256 of the text shown (64 hex digits).",
    "extra": "extend needs a whole number of extra questions (1–10000).",
    "position": "a check names the question it came before (a whole number ≥ 1).",
    "dominant": "a check names its better side: left or right.",
    "weights": "a result carries what the engine learned, as tradeoff wrote it.",
}


_HEADER_FIXES = {
    "format": f"this version reads formats {', '.join(map(str, READABLE_FORMATS))}.",
    "strategy": f"the strategy is one of {', '.join(STRATEGY_NAMES)}.",
    "seed": "the seed is a whole number ≥ 0.",
    "budget": "the budget is a whole number from 1 to 10,000, or null.",
    "candidates": f"the candidates are at most {MAX_DECISION_CANDIDATES:,} rows of at most 64 "
    "numbers each, one per weight of the scenario.",
    "scenario_sha256": "the scenario hash is 64 hexadecimal digits.",
    "participant": "a participant id is 1–64 letters, digits, '.', '-' or '_'.",
}


def _problems(error: ValidationError, line: int, fixes: dict[str, str]) -> list[Problem]:
    out = []
    for item in error.errors()[:6]:
        loc = [str(x) for x in item["loc"] if not str(x).endswith("Record")]
        loc = [x for x in loc if x not in _EVENT_TYPES] or loc
        field_ = ".".join(loc) or ("type" if item["type"].startswith("union_tag") else "")
        given = item.get("input")
        shown = (
            "" if isinstance(given, dict | list) else f" (found {cut(clean_text(repr(given)), 60)})"
        )
        if item["type"] == "missing":
            what = "is missing."
        else:
            what = f"{item['msg'].rstrip('.')}{shown}."
        fix = fixes.get(field_.split(".")[0], "this line was not written by tradeoff.")
        out.append(Problem(f"line {line}, field {field_!r}", what, f"{fix} {RESTORE}"))
    return out


@dataclass(frozen=True)
class Line:
    """An event of a session file with the file's line number it came from."""

    number: int
    event: EventRecord

    @property
    def type(self) -> str:
        return self.event.type


@dataclass
class SessionLog:
    """A session file as read: header, validated events (with line numbers), warnings."""

    path: Path
    header: Header
    lines: list[Line]
    warnings: list[str] = field(default_factory=list)
    truncated_tail: bool = False
    chain: str | None = None
    #: The participant's consent when a study recorded it (the file's first line).
    consent: ConsentRecord | None = None
    #: How a study participant came in (access code, panel link, pilot), when recorded
    #: (the line just before the header).
    entry: EntryRecord | None = None

    @property
    def events(self) -> list[EventRecord]:
        return [line.event for line in self.lines]

    @property
    def checks(self) -> list[CheckRecord]:
        """The attention checks shown, in order."""
        return [e for e in self.events if isinstance(e, CheckRecord)]

    @property
    def consents(self) -> list[ConsentRecord]:
        """Every consent given: the first line's, then each given again to a new version."""
        later = [e for e in self.events if isinstance(e, ConsentRecord)]
        return ([] if self.consent is None else [self.consent]) + later

    #: Recorded questions that differ from those this version asks on this machine at that
    #: point (applied as recorded; set by :func:`~tradeoff.record.replay.replay`).
    replay_differs: int = 0
    #: The largest difference between the result recomputed by
    #: :func:`~tradeoff.record.replay.replay` and the one recorded in the file's result line
    #: (weights and their interval ends), or ``None``.
    result_difference: float | None = None
    #: Whether every answer is a choice recorded elsewhere (``tradeoff choices fit``:
    #: queries of kind ``recorded``), so that the person who made them is not the reader
    #: (found as the file is read).
    made_elsewhere: bool = False

    @property
    def finished(self) -> bool:
        return bool(self.lines) and self.lines[-1].type == "result"

    @property
    def recorded_result(self) -> ResultRecord | None:
        """The closing ``result`` record, when the session is finished."""
        if not self.finished:
            return None
        event = self.lines[-1].event
        return event if isinstance(event, ResultRecord) else None


def _load_json(raw: str) -> Any:
    try:
        return json.loads(raw)
    except RecursionError:
        raise ValueError("nested too deeply") from None


def _header_from(path: Path, data: dict[str, Any], line: int = 1) -> Header:
    try:
        rec = HeaderRecord.model_validate(data)
    except ValidationError as exc:
        raise InputError.many(path, _problems(exc, line, _HEADER_FIXES)) from None
    if rec.format not in READABLE_FORMATS:
        raise InputError.single(
            path,
            f"line {line}, field 'format'",
            f"unsupported session format {rec.format}.",
            _HEADER_FIXES["format"],
        )
    if hashlib.sha256(rec.scenario_text.encode()).hexdigest() != rec.scenario_sha256:
        raise InputError.single(
            path,
            f"line {line}, field 'scenario_text'",
            "does not match the scenario hash recorded beside it: the embedded scenario "
            "was edited.",
            RESTORE,
        )
    check_toml(rec.scenario_text, f"{path}, line {line}, field 'scenario_text'")
    try:
        parsed = tomllib.loads(rec.scenario_text)
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        raise InputError.single(
            path,
            f"line {line}, field 'scenario_text'",
            f"the embedded scenario is not valid TOML ({reason}).",
            RESTORE,
        ) from None
    scenario = parse_scenario(parsed, f"{path} (embedded scenario)")
    spec = scenario.elicitation.override(strategy=rec.strategy, budget=rec.budget)
    width = len(scenario.weight_names)
    if rec.candidates is not None and any(len(row) != width for row in rec.candidates):
        raise InputError.single(
            path,
            f"line {line}, field 'candidates'",
            f"holds a row that does not have {width} numbers (one per weight: "
            f"{', '.join(scenario.weight_names)}).",
            RESTORE,
        )
    return Header.of(rec, _with_population_file(scenario, rec.scenario_path, path, line), spec)


def _with_population_file(
    scenario: Scenario, scenario_path: str, path: str | Path, line: int
) -> Scenario:
    """The embedded scenario with its probabilities file (``[population] path``, relative to
    the scenario file, as :func:`~tradeoff.ask.scenario.load_scenario` reads it) found beside the
    scenario file it was recorded from, whatever the folder the session is read from."""
    if scenario.population is None:
        return scenario
    relative = scenario.population.path
    if relative is None or Path(relative).is_absolute():
        return scenario
    bases = [Path(scenario_path).parent if scenario_path else Path(path).parent]
    if scenario.id in shipped_ids():  # a shipped scenario, recorded from another folder
        bases.append(shipped_scenarios())
    found = next(
        (f for f in ((b / relative).resolve() for b in bases) if f.is_file()),
        (bases[0] / relative).resolve(),
    )
    if not found.is_file():
        raise InputError.single(
            path,
            f"line {line}, field 'scenario_text' (population.path)",
            f"the embedded scenario's probabilities file {relative!r} is not found beside "
            f"the scenario it was recorded from (looked in {found}).",
            f"put {relative!r} back beside {scenario_path or 'the scenario file'}.",
        )
    population = scenario.population.model_copy(update={"path": str(found)})
    return scenario.model_copy(update={"population": population})


#: The fix :func:`read_session` gives for a session file that is not found.
MISSING_SESSION = "check the path of the session file."


def read_session(path: str | Path, raw: bytes | None = None) -> SessionLog:
    """Read and check a session file: every line validated, the chain of hashes verified.

    A line cut short by a crash (the last one, without its newline) is skipped with a
    warning; every earlier line must be a valid record, in the order written. ``raw``: the
    file's bytes when the caller has read them already (they are checked, not read again).

    Raises
    ------
    InputError
        If the file is missing, unreadable or empty, its header is not valid, a line is not
        a valid record (naming the line and field), a ``result`` line is not the last, or
        (format 2) a line does not match the chain of hashes: it was edited, or lines were
        deleted, added or moved.
    """
    p = Path(path)
    if raw is None:
        raw = read_user_file(p, MISSING_SESSION)
    if not raw.strip():
        raise InputError.single(
            p, "", "the session file is empty.", "start a new session; this one recorded nothing."
        )
    lines = raw.split(b"\n")
    ends_cleanly = raw.endswith(b"\n")
    if ends_cleanly:
        lines = lines[:-1]

    def head_line(index: int, what: str) -> tuple[str, Any]:
        try:
            text = lines[index].decode()
            return text, _load_json(text)
        except (IndexError, json.JSONDecodeError, UnicodeDecodeError, ValueError):
            raise InputError.single(
                p,
                f"line {index + 1}",
                f"is not {what} (not JSON, or missing).",
                "give a .jsonl file written by tradeoff.",
            ) from None

    chain: str | None = None
    chains: list[str] = []
    consent: ConsentRecord | None = None
    first_text, first = head_line(0, "a session header")
    at = 0  # the header's index: 1 when a consent record opens the file
    if isinstance(first, dict) and first.get("type") == "consent":
        try:
            consent = ConsentRecord.model_validate(first)
        except ValidationError as exc:
            raise InputError.many(p, _problems(exc, 1, _FIXES)) from None
        content, chain = split_chain(first_text)
        if chain is None or chain_hash(None, content) != chain:
            raise InputError.single(
                p, "line 1", "does not match its chain hash: the consent was edited.", RESTORE
            )
        chains.append(chain)
        at = 1
        first_text, first = head_line(1, "the session header that follows the consent")
    entry: EntryRecord | None = None
    if isinstance(first, dict) and first.get("type") == "entry":
        try:
            entry = EntryRecord.model_validate(first)
        except ValidationError as exc:
            raise InputError.many(p, _problems(exc, at + 1, _FIXES)) from None
        content, stored_entry = split_chain(first_text)
        if stored_entry is None or chain_hash(chain, content) != stored_entry:
            raise InputError.single(
                p,
                f"line {at + 1}",
                "does not match its chain hash: how the participant came in was edited.",
                RESTORE,
            )
        chain = stored_entry
        chains.append(stored_entry)
        at += 1
        first_text, first = head_line(at, "the session header that follows the entry")
    if not isinstance(first, dict) or first.get("type") != "header":
        raise InputError.single(
            p,
            f"line {at + 1}",
            "is not a session header.",
            "give a .jsonl file written by tradeoff.",
        )
    header = _header_from(p, first, at + 1)
    chained = header.format >= 2
    if (consent is not None or entry is not None) and header.format < 3:
        raise InputError.single(
            p, "line 1", "a consent or entry record opens only format 3 sessions.", RESTORE
        )
    if chained:
        content, stored = split_chain(first_text)
        if stored is None or chain_hash(chain, content) != stored:
            raise InputError.single(
                p,
                f"line {at + 1}",
                "does not match its chain hash: the header was edited.",
                RESTORE,
            )
        chain = stored
        chains.append(stored)
    out: list[Line] = []
    warnings: list[str] = []
    truncated = False
    for number, line in enumerate(lines[at + 1 :], start=at + 2):
        last = number == len(lines)
        try:
            text = line.decode()
            data = _load_json(text)
            if not isinstance(data, dict):
                raise ValueError("not an object")
        except (json.JSONDecodeError, UnicodeDecodeError, ValueError):
            if last and not ends_cleanly:
                truncated = True
                warnings.append(
                    f"{p}: line {number} is truncated (the program was stopped while "
                    "writing it) and was skipped; every earlier line is intact."
                )
            else:
                warnings.append(
                    f"{p}: line {number} is not a complete record (a write that failed) and "
                    "was skipped."
                )
            continue
        if chained:
            content, stored = split_chain(text)
            if stored is None:
                raise InputError.single(
                    p,
                    f"line {number}, field 'chain'",
                    "is missing: this line was not written by tradeoff, or was edited.",
                    RESTORE,
                )
            if chain_hash(chain, content) != stored:
                moved = any(chain_hash(c, content) == stored for c in chains[:-1])
                what = (
                    "follows a different line than the one written before it: lines before "
                    "it were deleted or moved."
                    if moved
                    else "does not match its chain hash: this line was edited, or a line "
                    "was added, deleted or moved before it."
                )
                raise InputError.single(p, f"line {number}", what, RESTORE)
            chain = stored
            chains.append(stored)
        try:
            event = _EVENT.validate_python(data)
        except ValidationError as exc:
            raise InputError.many(p, _problems(exc, number, _FIXES)) from None
        if out and out[-1].type == "result":
            raise InputError.single(
                p,
                f"line {out[-1].number}",
                "a result line closes a session, but more lines follow it.",
                RESTORE,
            )
        out.append(Line(number, event))
    kinds = [e.event.query.kind for e in out if isinstance(e.event, AnswerRecord)]
    elsewhere = bool(kinds) and all(k == "recorded" for k in kinds)
    return SessionLog(
        p, header, out, warnings, truncated, chain, consent, entry, made_elsewhere=elsewhere
    )


def session_entries(folder: str | Path) -> list[tuple[Path, int]]:
    """Every ``*.jsonl`` in a participant's folder with its mode (``lstat``: a link is a
    link), sorted by name: the one listing of a participant's files, which
    :func:`iter_sessions` and a study's status (``tradeoff.study.counted``) read."""
    folder = Path(folder)
    out: list[tuple[Path, int]] = []
    if folder.is_dir():
        for path in sorted(folder.glob("*.jsonl")):
            with contextlib.suppress(OSError):
                out.append((path, path.lstat().st_mode))
    return out


def iter_sessions(sessions_dir: str | Path, participant: str) -> Iterator[Path]:
    """A participant's session files: only regular files (a FIFO, device or link placed
    among them is never opened: opening a FIFO waits for a writer for ever)."""
    for path, mode in session_entries(Path(sessions_dir) / participant):
        if stat.S_ISREG(mode):
            yield path


def closed(path: str | Path) -> bool:
    """Whether a session file's last line is its closing ``result`` record, read from the
    file's end only (what a server asks on every request; :func:`read_session` checks the
    whole file). A file that cannot be read, or is not a regular file (a FIFO would block
    the reading thread), counts as not closed."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
        with open(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return False
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - 65536))
            tail = fh.read()
    except OSError:
        return False
    lines = [line for line in tail.split(b"\n") if line.strip()]
    if not lines or not tail.endswith(b"\n"):
        return False
    return lines[-1].startswith(b'{"type": "result"')


def unfinished_sessions(sessions_dir: str | Path, participant: str, scenario_id: str) -> list[Path]:
    """This participant's sessions of this scenario that have no result line yet."""
    out = []
    for path in iter_sessions(sessions_dir, participant):
        if not path.name.startswith(f"{scenario_id}-"):
            continue
        try:
            if not read_session(path).finished:
                out.append(path)
        except InputError:
            continue
    return out
