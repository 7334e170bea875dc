"""Session files: every answer written to disk before the next question, replayable exactly.

A session is a JSON Lines file, ``sessions/<participant>/<scenario-id>-<UTC timestamp>.jsonl``
(format 3, docs/architecture.md "Files"). Each line type is one pydantic model, used both to
write the line (:func:`record_bytes`: the model's fields in order) and to read it:
:class:`ConsentRecord` (a study participant's consent; when present, line 1), the
:class:`HeaderRecord` (format, tradeoff version, the scenario stored once as its TOML text and
sha256, participant, strategy, seed, budget, start time, the candidates' metric rows; read
into :class:`Header`, which adds the parsed scenario), then :class:`AnswerRecord` (both
profiles, the choice left/right/indifferent, the response time), :class:`UndoRecord`,
:class:`NoteRecord`, :class:`ExtendRecord` (more questions asked for after a review); a
:class:`ResultRecord` closes a finished session and is always last. A bad field is an
:class:`~tradeoff.errors.InputError` naming the file, the line and the field. Every line ends
with ``"chain"``: sha256 of the previous line's chain and this line's JSON without the chain
(the first line chains from a fixed seed), so an edited, deleted, added or moved line is
evident. The chain makes edits evident, not impossible: someone who recomputes every hash
can still rewrite a file. Format 2 files (the same chain, the scenario also stored parsed)
and format 1 files (no chain) still replay.

Safety:

* every line is written whole (short writes are continued) and fsynced before
  :meth:`Recorder.answer` returns; if that fails (disk full, file-size limit), the bytes of
  that line are cut off again, :class:`SessionWriteError` is raised and the engine does not
  move on, so the same answer can be saved again later;
* files are created with mode 0600 (directories 0700); nothing written is ever rewritten;
* one process at a time may write a session file (an exclusive ``flock``);
* a line cut short by a crash is reported and skipped, never silently dropped; the next
  line written starts on a line of its own.

Replaying the events through a fresh :class:`~tradeoff.learn.Engine` reproduces the
state exactly; every recorded question is checked against the one the engine asks. The
recorder is given what it needs (the population, the candidates' metric rows); it looks up
nothing that chooses (:mod:`tradeoff.study.opening` prepares a session for the faces).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import re
import secrets
import signal
import stat
import time
import tomllib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
from numpy.typing import NDArray
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_serializer,
)

from tradeoff.ask.population import Population
from tradeoff.ask.presentation import settled_tradeoff_sentences
from tradeoff.ask.queries import ClassifierProfile, Query, same_question
from tradeoff.ask.scenario import (
    STRATEGY_NAMES,
    ElicitationSpec,
    LoadedScenario,
    Scenario,
    StrategyName,
    parse_scenario,
)
from tradeoff.data import shipped_ids, shipped_scenarios
from tradeoff.errors import InputError, Problem, read_user_file
from tradeoff.learn import Choice, Consistency, ElicitationResult, Engine, consistency_of
from tradeoff.limits import MAX_DECISION_CANDIDATES, check_toml
from tradeoff.text import clean_text
from tradeoff.version import __version__

FORMAT_VERSION = 3
"""Format written: one typed record per line, each carrying a ``chain`` hash, the scenario
stored once (its text). Format 2 (the same chain, the scenario also stored parsed) and
format 1 (no chain) still replay."""
READABLE_FORMATS = (1, 2, 3)
_PARTICIPANT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_CHAIN_SUFFIX = re.compile(r', "chain": "([0-9a-f]{64})"\}$')
_CHAIN_SEED = b"tradeoff session\n"
_RESTORE = (
    "restore the file as tradeoff wrote it (from a backup or the copy you were sent), "
    "or start a new session; an edited session is not replayed."
)


def valid_participant(participant: str) -> bool:
    """Whether ``participant`` is safe as a folder name (the one rule for ids)."""
    return bool(_PARTICIPANT.fullmatch(participant)) and ".." not in participant


def check_participant(participant: str) -> str:
    """A participant id that is safe as a file name, or an InputError saying why not.

    >>> check_participant("dr-lee")
    'dr-lee'
    """
    if not valid_participant(participant):
        raise InputError.single(
            "participant id",
            repr(participant),
            "is not allowed: it becomes a folder name.",
            "use 1–64 letters, digits, '.', '-' or '_', starting with a letter or digit, "
            "without '..' (no slashes, spaces or control characters).",
        )
    return participant


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def query_to_dict(query: Query) -> dict[str, Any]:
    return {
        "left": query.left.to_dict(),
        "right": query.right.to_dict(),
        "pair": list(query.pair),
        "params": list(query.params),
        "threshold": query.threshold,
        "repeat_of": query.repeat_of,
        **(
            {
                "kind": query.kind,
                "candidates": None if query.candidates is None else list(query.candidates),
            }
            if query.kind != "trade"
            else {}
        ),
    }


FiniteFloat = Annotated[float, Field(allow_inf_nan=False)]


class _Record(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class ProfileRecord(_Record):
    """One option of a recorded question."""

    accuracies: tuple[FiniteFloat, ...]
    recalls: tuple[FiniteFloat, ...]
    attributes: tuple[FiniteFloat, ...]


class QueryRecord(_Record):
    """A recorded question: both options and what the strategy meant by asking it."""

    left: ProfileRecord
    right: ProfileRecord
    pair: tuple[Annotated[int, Field(strict=True, ge=0)], Annotated[int, Field(strict=True, ge=0)]]
    params: tuple[FiniteFloat, FiniteFloat]
    threshold: FiniteFloat | None = None
    repeat_of: Annotated[int, Field(strict=True, ge=0)] | None = None
    kind: Literal["trade", "candidates"] = "trade"
    candidates: (
        tuple[Annotated[int, Field(strict=True, ge=0)], Annotated[int, Field(strict=True, ge=0)]]
        | None
    ) = None

    @model_serializer(mode="wrap")
    def _written(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """A trade is written without ``kind`` and ``candidates`` (as before they existed)."""
        out: dict[str, Any] = handler(self)
        if self.kind == "trade" and self.candidates is None:
            out.pop("kind", None)
            out.pop("candidates", None)
        return out

    @classmethod
    def of(cls, query: Query) -> QueryRecord:
        """The record of a question as asked."""
        return cls.model_validate(query_to_dict(query))

    def to_query(self) -> Query:
        return Query(
            ClassifierProfile(self.left.accuracies, self.left.recalls, self.left.attributes),
            ClassifierProfile(self.right.accuracies, self.right.recalls, self.right.attributes),
            self.pair,
            self.params,
            self.threshold,
            self.repeat_of,
            kind=self.kind,
            candidates=self.candidates,
        )


class AnswerRecord(_Record):
    """``answer``: the question as shown and the person's choice."""

    type: Literal["answer"]
    index: Annotated[int, Field(strict=True, ge=1)] | None = None
    query: QueryRecord
    choice: Choice
    response_ms: Annotated[float, Field(allow_inf_nan=False, ge=0)] | None = None
    at: str = ""


class UndoRecord(_Record):
    """``undo``: the last answer taken back."""

    type: Literal["undo"]
    at: str = ""


class NoteRecord(_Record):
    """``note``: free text (e.g. ``paused``)."""

    type: Literal["note"]
    text: str = ""
    at: str = ""


class ExtendRecord(_Record):
    """``extend``: more questions asked for after a review."""

    type: Literal["extend"]
    extra: Annotated[int, Field(strict=True, ge=1, le=10_000)]
    at: str = ""


class ResultRecord(_Record):
    """``result``: what was learned, :class:`~tradeoff.learn.ElicitationResult`'s fields
    in its order, then the time; closes a finished session (always the last line).

    Every version of tradeoff wrote these fields in this order (the last four were added
    over time, so they may be missing), so a result line of format 1, 2 or 3 is written
    again byte for byte from the record read.
    """

    type: Literal["result"]
    strategy: str
    names: tuple[str, ...]
    weights: tuple[FiniteFloat, ...]
    answers: Annotated[int, Field(strict=True, ge=0)]
    complete: Annotated[bool, Field(strict=True)]
    intervals: tuple[tuple[FiniteFloat, FiniteFloat], ...] | None = None
    error_rate_estimate: FiniteFloat | None = None
    swing_weights: tuple[FiniteFloat, ...] | None = None
    swing_intervals: tuple[tuple[FiniteFloat, FiniteFloat], ...] | None = None
    priors: tuple[FiniteFloat, ...] | None = None
    at: str = ""

    @classmethod
    def of(cls, result: ElicitationResult) -> ResultRecord:
        """The record of a result, written now."""
        return cls.model_validate({"type": "result", **result.to_dict(), "at": now()})


class ConsentRecord(_Record):
    """``consent``: the participant agreed to a study's information and consent text (its
    version and the sha256 of the text shown, in the language shown). When present it is
    the first line of the file: the chain of hashes starts at it and the header follows."""

    type: Literal["consent"]
    version: Annotated[str, Field(min_length=1, max_length=64)]
    text_sha256: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
    language: Annotated[str, Field(min_length=1, max_length=35)] = "en"
    at: str = ""


Event = Annotated[
    AnswerRecord | UndoRecord | NoteRecord | ExtendRecord | ResultRecord,
    Field(discriminator="type"),
]
_EVENT = TypeAdapter(Event)
_FIXES = {
    "choice": "an answer's choice is left, right or indifferent.",
    "query": "an answer carries the question as tradeoff wrote it.",
    "type": "a line's type is consent, header, answer, undo, note, extend or result.",
    "version": "a consent record names the consent text's version.",
    "text_sha256": "a consent record carries the sha256 of the text shown (64 hex digits).",
    "extra": "extend needs a whole number of extra questions (1–10000).",
    "weights": "a result carries what the engine learned, as tradeoff wrote it.",
}


class HeaderRecord(_Record):
    """The header line of a session file: written from this model and read into it.

    The scenario is stored once, as its TOML text with the text's sha256 (format 2 also
    stored a parsed copy, which is ignored when read). :class:`Header` adds the parsed
    scenario.
    """

    type: Literal["header"] = "header"
    format: Annotated[int, Field(strict=True)]
    tradeoff: str = ""
    participant: str
    scenario_id: str = ""
    scenario_path: str = ""
    scenario_sha256: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
    scenario_text: str
    strategy: StrategyName
    seed: Annotated[int, Field(strict=True, ge=0)]
    budget: Annotated[int, Field(strict=True, ge=1, le=10_000)] | None = None
    started: str = ""
    #: The scenario pool's models in the metric's terms when the questions aimed at the
    #: pick (:func:`tradeoff.choose.candidates.decision_candidates`); recorded so that a replay
    #: asks the same questions even if the pool file changes later.
    candidates: (
        Annotated[
            tuple[Annotated[tuple[FiniteFloat, ...], Field(max_length=64)], ...],
            Field(max_length=MAX_DECISION_CANDIDATES),
        ]
        | None
    ) = None

    @field_validator("participant")
    @classmethod
    def _safe_id(cls, v: str) -> str:
        if not valid_participant(v):
            raise ValueError("is not a participant id tradeoff writes")
        return v


class Header(HeaderRecord):
    """The header as used: the record, with the scenario parsed from its text."""

    _scenario: Scenario | None = PrivateAttr(default=None)

    @classmethod
    def of(cls, record: HeaderRecord, scenario: Scenario) -> Header:
        """The header of ``record`` whose embedded text parses to ``scenario`` (the record's
        validated values taken as they are, not validated again)."""
        header = cls.model_construct(record.model_fields_set, **dict(record))
        header._scenario = scenario
        return header

    @property
    def scenario(self) -> Scenario:
        """The embedded scenario, parsed."""
        assert self._scenario is not None, "a Header is made by Header.of"
        return self._scenario

    @property
    def version(self) -> str:
        """The tradeoff version that wrote the session."""
        return self.tradeoff

    def candidate_array(self) -> NDArray[np.float64] | None:
        """:attr:`candidates` as the array the engine takes."""
        if self.candidates is None:
            return None
        return np.asarray(self.candidates, dtype=np.float64)

    @property
    def spec(self) -> ElicitationSpec:
        """The elicitation settings the session ran with."""
        return self.scenario.elicitation.override(strategy=self.strategy, budget=self.budget)


def record_bytes(record: BaseModel) -> str:
    """A record's JSON as written (before its chain is added): the model's fields in order.

    >>> record_bytes(UndoRecord(type="undo", at="2026-01-01T00:00:00.000+00:00"))
    '{"type": "undo", "at": "2026-01-01T00:00:00.000+00:00"}'
    """
    return json.dumps(record.model_dump(mode="json"), ensure_ascii=False, allow_nan=False)


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
        loc = [x for x in loc if x not in ("answer", "undo", "note", "extend", "result")] or loc
        field_ = ".".join(loc) or ("type" if item["type"].startswith("union_tag") else "")
        given = item.get("input")
        shown = "" if isinstance(given, dict | list) else f" (found {clean_text(repr(given))[:60]})"
        if item["type"] == "missing":
            what = "is missing."
        else:
            what = f"{item['msg'].rstrip('.')}{shown}."
        fix = fixes.get(field_.split(".")[0], "this line was not written by tradeoff.")
        out.append(Problem(f"line {line}, field {field_!r}", what, f"{fix} {_RESTORE}"))
    return out


@dataclass(frozen=True)
class Line:
    """An event of a session file with the file's line number it came from."""

    number: int
    event: AnswerRecord | UndoRecord | NoteRecord | ExtendRecord | ResultRecord

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

    @property
    def events(self) -> list[AnswerRecord | UndoRecord | NoteRecord | ExtendRecord | ResultRecord]:
        return [line.event for line in self.lines]

    #: Recorded questions that differ from those this version asks on this machine at that
    #: point (applied as recorded; set by :func:`replay`).
    replay_differs: int = 0
    #: The largest difference between the result recomputed by :func:`replay` and the one
    #: recorded in the file's result line (weights and their interval ends), or ``None``.
    result_difference: float | None = None

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


def chain_hash(previous: str | None, content: str) -> str:
    """The chain value of a line: sha256 of the previous line's chain and this line's JSON."""
    seed = _CHAIN_SEED if previous is None else previous.encode()
    return hashlib.sha256(seed + content.encode()).hexdigest()


def chained_line(previous: str | None, record: BaseModel) -> tuple[str, bytes]:
    """(chain, the bytes of the line): the record's JSON (:func:`record_bytes`) with its
    chain added as the last key."""
    content = record_bytes(record)
    chain = chain_hash(previous, content)
    return chain, (content[:-1] + f', "chain": "{chain}"}}\n').encode()


def _split_chain(text: str) -> tuple[str, str | None]:
    match = _CHAIN_SUFFIX.search(text)
    if match is None:
        return text, None
    return text[: match.start()] + "}", match.group(1)


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
            _RESTORE,
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
            _RESTORE,
        ) from None
    scenario = parse_scenario(parsed, f"{path} (embedded scenario)")
    width = len(scenario.weight_names)
    if rec.candidates is not None and any(len(row) != width for row in rec.candidates):
        raise InputError.single(
            path,
            f"line {line}, field 'candidates'",
            f"holds a row that does not have {width} numbers (one per weight: "
            f"{', '.join(scenario.weight_names)}).",
            _RESTORE,
        )
    return Header.of(rec, _with_population_file(scenario, rec.scenario_path, path, line))


def _with_population_file(
    scenario: Scenario, scenario_path: str, path: str | Path, line: int
) -> Scenario:
    """The embedded scenario with its probabilities file (``[population] path``, relative to
    the scenario file, as :func:`~tradeoff.ask.scenario.load_scenario` reads it) found beside the
    scenario file it was recorded from, whatever the folder the session is read from."""
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


def read_session(path: str | Path) -> SessionLog:
    """Read and check a session file: every line validated, the chain of hashes verified.

    A line cut short by a crash (the last one, without its newline) is skipped with a
    warning; every earlier line must be a valid record, in the order written.

    Raises
    ------
    InputError
        If the file is missing, unreadable or empty, its header is not valid, a line is not
        a valid record (naming the line and field), a ``result`` line is not the last, or
        (format 2) a line does not match the chain of hashes: it was edited, or lines were
        deleted, added or moved.
    """
    p = Path(path)
    raw = read_user_file(p, "check the path of the session file.")
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
        content, chain = _split_chain(first_text)
        if chain is None or chain_hash(None, content) != chain:
            raise InputError.single(
                p, "line 1", "does not match its chain hash: the consent was edited.", _RESTORE
            )
        chains.append(chain)
        at = 1
        first_text, first = head_line(1, "the session header that follows the consent")
    if not isinstance(first, dict) or first.get("type") != "header":
        raise InputError.single(
            p,
            f"line {at + 1}",
            "is not a session header.",
            "give a .jsonl file written by tradeoff.",
        )
    header = _header_from(p, first, at + 1)
    chained = header.format >= 2
    if consent is not None and header.format < 3:
        raise InputError.single(
            p, "line 1", "a consent record opens only format 3 sessions.", _RESTORE
        )
    if chained:
        content, stored = _split_chain(first_text)
        if stored is None or chain_hash(chain, content) != stored:
            raise InputError.single(
                p,
                f"line {at + 1}",
                "does not match its chain hash: the header was edited.",
                _RESTORE,
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
            content, stored = _split_chain(text)
            if stored is None:
                raise InputError.single(
                    p,
                    f"line {number}, field 'chain'",
                    "is missing: this line was not written by tradeoff, or was edited.",
                    _RESTORE,
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
                raise InputError.single(p, f"line {number}", what, _RESTORE)
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
                _RESTORE,
            )
        out.append(Line(number, event))
    return SessionLog(p, header, out, warnings, truncated, chain, consent)


def replay(
    log: SessionLog,
    *,
    population: Population | None = None,
    after: Callable[[Engine, AnswerRecord | UndoRecord | ExtendRecord], None] | None = None,
) -> Engine:
    """A fresh engine with every recorded answer and undo applied, checked against the log;
    ``after(engine, event)``, when given, is called once each answer, undo or extend has been
    applied (an export reads the posterior after every answer so).

    A recorded question that differs from the one this version asks at that point is applied
    as recorded when the strategy learns from any question and the question is one the
    scenario builds (within :data:`~tradeoff.ask.queries.SAME_TOLERANCE`, never bit for bit);
    the result is then the same as when it was recorded. Another version choosing other
    questions is said in ``log.warnings``; the same version on a machine whose arithmetic
    tips a choice the other way is only counted (``log.replay_differs``): nothing about the
    result changes. A finished session's recomputed result is compared with its recorded
    result line (``log.result_difference``); beyond :data:`RESULT_TOLERANCE` a warning says
    by how much (docs/architecture.md, "The same result on every machine").
    """
    h = log.header
    engine = Engine(
        h.scenario,
        h.spec,
        seed=h.seed,
        population=population,
        candidates=h.candidate_array(),
    )
    differs = 0
    for line in log.lines:
        event = line.event
        if isinstance(event, AnswerRecord):
            expected = engine.next_query()
            recorded = event.query.to_query()
            if expected is not None and same_question(expected, recorded):
                engine.answer(event.choice)
                if after is not None:
                    after(engine, event)
                continue
            try:
                engine.answer_recorded(recorded, event.choice)
            except ValueError as exc:
                if h.version == __version__:
                    fix = (
                        "this version wrote the session, so the line was changed afterwards: "
                        + _RESTORE
                    )
                else:
                    fix = f"replay it with the tradeoff version named in the header ({h.version})."
                raise InputError.single(
                    log.path,
                    f"line {line.number} (answer {event.index}), field 'query'",
                    "does not match the question this version of tradeoff asks at that point, "
                    f"and cannot be replayed as recorded ({exc}).",
                    fix,
                ) from None
            differs += 1
        elif isinstance(event, UndoRecord):
            engine.undo()
        elif isinstance(event, ExtendRecord):
            engine.extend(event.extra)
        else:
            continue
        if after is not None:
            after(engine, event)
    log.replay_differs = differs
    if differs and h.version != __version__:
        log.warnings.append(
            f"{log.path}: {differs} recorded question(s) differ from those this version of "
            f"tradeoff would ask (recorded with {h.version or 'an earlier version'}); the "
            "answers were applied to the questions as recorded. New questions are chosen by "
            "this version."
        )
    closing = log.recorded_result
    if closing is not None:
        gap, where = result_difference(engine.result(), closing)
        log.result_difference = gap
        if gap > RESULT_TOLERANCE:
            log.warnings.append(
                f"{log.path}: the result recomputed here differs from the one recorded when "
                f"the session closed by up to {100 * gap:.1f} percentage points ({where}); "
                "the recorded result is the one shown"
                + (
                    f" (recorded with {h.version})."
                    if h.version != __version__
                    else " (the arithmetic of this machine differs from that of the one "
                    "that recorded it)."
                )
            )
    return engine


#: A recomputed result within this of the recorded one (weights and interval ends, as
#: shares) is the same result; beyond it, the recorded one is shown and the gap said.
RESULT_TOLERANCE = 0.005


def result_difference(result: ElicitationResult, recorded: ResultRecord) -> tuple[float, str]:
    """The largest absolute difference between a recomputed result and a recorded one, over
    the weights, the swing weights and their 90% interval ends, and where it lies ("weight
    of benign", "90% interval's low end of cost"...); (0.0, "") when they share nothing."""
    gaps: list[tuple[float, str]] = [(0.0, "")]
    names = result.names

    def compare(
        mine: Sequence[float] | None, theirs: Sequence[float] | None, what: str
    ) -> None:
        if mine is None or theirs is None or len(mine) != len(theirs):
            return
        for name, a, b in zip(names, mine, theirs, strict=False):
            gaps.append((abs(a - b), f"{what} of {name}"))

    compare(result.weights, recorded.weights, "weight")
    compare(result.swing_weights, recorded.swing_weights, "swing weight")
    for label, mine_iv, theirs_iv in (
        ("90% interval", result.intervals, recorded.intervals),
        ("swing weight's 90% interval", result.swing_intervals, recorded.swing_intervals),
    ):
        if mine_iv is not None and theirs_iv is not None:
            compare([lo for lo, _ in mine_iv], [lo for lo, _ in theirs_iv], f"{label}'s low end")
            compare([hi for _, hi in mine_iv], [hi for _, hi in theirs_iv], f"{label}'s high end")
    return max(gaps, key=lambda g: g[0])


def shown_result(log: SessionLog, engine: Engine) -> ElicitationResult:
    """The result to show for a replayed session: the recomputed one, or, when it differs
    from the recorded result line by more than :data:`RESULT_TOLERANCE` (``replay`` has
    said by how much in ``log.warnings``), the recorded one."""
    recomputed = engine.result()
    recorded = log.recorded_result
    if recorded is None or (log.result_difference or 0.0) <= RESULT_TOLERANCE:
        return recomputed
    data = recorded.model_dump(exclude={"type", "at"})
    return replace(
        recomputed,
        weights=tuple(data["weights"]),
        intervals=None if data["intervals"] is None else tuple(map(tuple, data["intervals"])),
        swing_weights=None if data["swing_weights"] is None else tuple(data["swing_weights"]),
        swing_intervals=(
            None
            if data["swing_intervals"] is None
            else tuple(map(tuple, data["swing_intervals"]))
        ),
    )


def iter_sessions(sessions_dir: str | Path, participant: str) -> Iterator[Path]:
    """A participant's session files: only regular files (a FIFO, device or link placed
    among them is never opened: opening a FIFO waits for a writer for ever)."""
    folder = Path(sessions_dir) / participant
    if folder.is_dir():
        for path in sorted(folder.glob("*.jsonl")):
            with contextlib.suppress(OSError):
                if stat.S_ISREG(path.lstat().st_mode):
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


class SessionLocked(InputError):
    """Another process is writing this session file."""


class SessionWriteError(Exception):
    """A line could not be written completely to the session file (disk full, file too large,
    I/O error). Nothing was recorded: the file is as it was before, and the engine has not
    moved on, so the same answer can be given again once the cause is fixed."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: could not be saved ({reason}).")


def ignore_file_size_signal() -> None:
    """Past a file-size limit (``ulimit -f``), make ``write`` fail with EFBIG, which the
    recorder reports while keeping the answer, instead of the process being killed by
    SIGXFSZ. Only possible from the main thread; elsewhere it does nothing."""
    if hasattr(signal, "SIGXFSZ"):
        with contextlib.suppress(ValueError):
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


def check_sessions_dir(sessions_dir: str | Path) -> Path:
    """The sessions folder, created if needed and proven writable, or an InputError.

    Called before the first question, so a folder that cannot hold sessions is refused
    with a message instead of failing (or hanging) when the first answer is saved.
    """
    folder = Path(sessions_dir)
    fix = "give a sessions folder you can write to (it is created if missing)."
    if folder.exists() and not folder.is_dir():
        raise InputError.single(folder, "", "is a file, not a folder for sessions.", fix)
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        # a name of its own: threads of one server process start sessions side by side
        probe = folder / f".tradeoff-write-test-{os.getpid()}-{secrets.token_hex(8)}"
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.close(fd)
        probe.unlink()
    except OSError as exc:
        raise InputError.single(
            folder, "", f"cannot hold sessions ({exc.strerror or exc}).", fix
        ) from None
    return folder


class Recorder:
    """Drives an engine and records every event, durably, in a session file.

    Use :meth:`start` for a new session and :meth:`resume` to continue one.
    """

    def __init__(
        self, engine: Engine, path: Path, fd: int, header: Header, chain: str | None = None
    ) -> None:
        self.engine = engine
        self.path = path
        self._fd = fd
        self.header = header
        self.warnings: list[str] = []
        self._chain = chain
        self._chained = header.format >= 2
        self._dangling = False

    # -- creating and opening ---------------------------------------------------------

    @staticmethod
    def _lock(fd: int, path: Path, wait: float = 0.0) -> None:
        """Take the file's exclusive lock, waiting up to ``wait`` seconds for another
        writer to let go (a web server holds it only while it writes one answer)."""
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    break
                time.sleep(0.005)
        os.close(fd)
        raise SessionLocked.single(
            path,
            "",
            "is open in another tradeoff window or process.",
            "finish or quit that one first; two processes must not write one session.",
        ) from None

    @classmethod
    def attach(
        cls, path: Path, engine: Engine, header: Header, chain: str | None, *, wait: float = 5.0
    ) -> Recorder:
        """Reopen a session whose engine is kept in memory between writes (the study web
        page holds many participants and locks a file only while it writes to it): the
        file is locked (waiting up to ``wait`` seconds) and appended to after ``chain``.
        The caller checks :attr:`size` against what the engine has seen, since another
        process may have written in between."""
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        except OSError as exc:
            raise InputError.single(
                path, "", f"cannot be opened for writing ({exc.strerror}).", "check permissions."
            ) from None
        cls._lock(fd, path, wait)
        return cls(engine, path, fd, header, chain)

    @property
    def chain(self) -> str | None:
        """The chain value of the last line written or read."""
        return self._chain

    @property
    def size(self) -> int:
        """The file's size in bytes, as it stands under this recorder's lock."""
        return os.fstat(self._fd).st_size

    @classmethod
    def start(
        cls,
        loaded: LoadedScenario,
        participant: str,
        sessions_dir: str | Path = "sessions",
        *,
        candidates: NDArray[np.float64] | None,
        population: Population | None = None,
        spec: ElicitationSpec | None = None,
        seed: int = 0,
        consent: ConsentRecord | None = None,
    ) -> Recorder:
        """Create a new session file and write its first lines.

        ``candidates`` are the pool's models as metric rows that the questions aim at, or
        ``None`` (the caller prepares them: :func:`tradeoff.study.opening.start_session` reads
        them from the study cache or the scenario's pool); ``population`` the scenario's
        population when the caller has it (memory-mapped from a cache, say). ``spec``
        defaults to the scenario's ``[elicitation]``; the header records the strategy and
        budget it sets, which is what a replay needs besides the scenario. ``consent``, when
        given, is written first: the chain of the file starts at it.
        """
        check_participant(participant)
        folder = check_sessions_dir(sessions_dir) / participant
        try:
            folder.mkdir(exist_ok=True, mode=0o700)
        except OSError as exc:
            raise InputError.single(
                folder, "", f"cannot hold sessions ({exc.strerror})", "choose another folder."
            ) from None
        engine = Engine(
            loaded.scenario, spec, seed=seed, population=population, candidates=candidates
        )
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        path = folder / f"{loaded.scenario.id}-{stamp}.jsonl"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o600)
        cls._lock(fd, path)
        record = HeaderRecord(
            format=FORMAT_VERSION,
            tradeoff=__version__,
            participant=participant,
            scenario_id=loaded.scenario.id,
            scenario_path=str(Path(loaded.path).resolve()),
            scenario_sha256=loaded.sha256,
            scenario_text=loaded.text,
            strategy=engine.strategy_name,
            seed=seed,
            budget=engine.spec.budget,
            started=now(),
            candidates=None if candidates is None else tuple(map(tuple, candidates.tolist())),
        )
        rec = cls(engine, path, fd, Header.of(record, loaded.scenario))
        try:
            if consent is not None:
                rec._write(consent)
            rec._write(record)
        except SessionWriteError as exc:
            rec.close()
            path.unlink(missing_ok=True)
            raise InputError.single(
                path.parent, "", f"cannot hold sessions ({exc.reason}).", "free some space."
            ) from None
        return rec

    @classmethod
    def resume(
        cls,
        path: str | Path,
        *,
        current: LoadedScenario | None = None,
        use_embedded: bool = False,
        log: SessionLog | None = None,
        population: Population | None = None,
        wait: float = 0.0,
    ) -> Recorder:
        """Continue a session: replay its events and reopen the file for appending.

        If ``current`` (the scenario file as it is now) differs from the embedded copy, the
        session is refused unless ``use_embedded`` is set. ``log`` is the file as already
        read (it is read here otherwise); the file is locked before anything is appended.
        ``population`` is as for :meth:`start`. With ``wait`` the lock is waited for that
        many seconds and the file read again once it is held.
        """
        p = Path(path)
        log = log if log is not None else read_session(p)
        if (
            current is not None
            and current.sha256 != log.header.scenario_sha256
            and not use_embedded
        ):
            raise InputError.single(
                p,
                "header",
                f"was recorded with a different version of {current.path} "
                f"(sha256 {log.header.scenario_sha256[:12]}…, the file now has "
                f"{current.sha256[:12]}…).",
                "continue with the scenario embedded in the session (the app offers "
                "'continue with the recorded scenario'), or start a new session.",
            )
        if log.finished:
            raise InputError.single(
                p,
                "",
                "this session is already finished.",
                "start a new session to answer more questions.",
            )
        try:
            fd = os.open(p, os.O_WRONLY | os.O_APPEND)
        except OSError as exc:
            raise InputError.single(
                p, "", f"cannot be opened for writing ({exc.strerror}).", "check its permissions."
            ) from None
        cls._lock(fd, p, wait)
        if wait:  # read again under the lock: another writer may have appended meanwhile
            try:
                log = read_session(p)
            except BaseException:
                os.close(fd)
                raise
            if log.finished:
                os.close(fd)
                raise InputError.single(
                    p, "", "this session is already finished.", "start a new session."
                )
        try:
            engine = replay(log, population=population)
        except BaseException:
            os.close(fd)
            raise
        rec = cls(engine, p, fd, log.header, log.chain)
        rec.warnings = list(log.warnings)
        rec._dangling = log.truncated_tail
        return rec

    # -- recording ----------------------------------------------------------------------

    def _write(self, record: BaseModel) -> None:
        """Write one whole line and fsync it, or raise :class:`SessionWriteError`.

        Short writes are continued until the line is complete. If the line cannot be
        completed, the bytes of this line that did reach the file are cut off again (nothing
        written before is touched), so the file stays a sequence of whole records; if even
        that fails, the next line starts on a fresh line and the reader skips the fragment.
        """
        chain: str | None = None
        if self._chained:
            chain, data = chained_line(self._chain, record)
        else:  # a format 1 session resumed: its lines carry no chain
            data = (record_bytes(record) + "\n").encode()
        if self._dangling:
            data = b"\n" + data
        try:
            size = os.fstat(self._fd).st_size
        except OSError as exc:
            raise SessionWriteError(self.path, exc.strerror or str(exc)) from None
        view = memoryview(data)
        try:
            while view:
                written = os.write(self._fd, view)
                if written <= 0:
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                view = view[written:]
            os.fsync(self._fd)
        except OSError as exc:
            try:
                os.ftruncate(self._fd, size)  # the file is as it was: _dangling unchanged
            except OSError:
                self._dangling = True
            raise SessionWriteError(self.path, exc.strerror or str(exc)) from None
        self._chain = chain
        self._dangling = False

    def answer(self, choice: Choice | str, response_ms: float | None = None) -> Query:
        """Give the answer to the current question; it is on disk when this returns."""
        choice = Choice(choice)
        query = self.engine.next_query()
        if query is None:
            raise RuntimeError("no question to answer")
        self._write(
            AnswerRecord(
                type="answer",
                index=self.engine.answered + 1,
                query=QueryRecord.of(query),
                choice=choice,
                response_ms=None if response_ms is None else round(response_ms, 1),
                at=now(),
            )
        )
        self.engine.answer(choice)
        return query

    def undo(self) -> Query | None:
        """Take back the last answer (recorded as an ``undo`` event)."""
        if self.engine.answered == 0:
            return None
        self._write(UndoRecord(type="undo", at=now()))
        return self.engine.undo()

    def extend(self, extra: int) -> int:
        """Ask ``extra`` more questions than planned (recorded, so replay does the same)."""
        self._write(ExtendRecord(type="extend", extra=int(extra), at=now()))
        return self.engine.extend(extra)

    def note(self, text: str) -> None:
        self._write(NoteRecord(type="note", text=text, at=now()))

    def finish(self) -> ElicitationResult:
        """Write the final ``result`` line."""
        result = self.engine.result()
        self._write(ResultRecord.of(result))
        return result

    def close(self) -> None:
        if self._fd >= 0:
            try:
                fcntl.flock(self._fd, fcntl.LOCK_UN)
            finally:
                os.close(self._fd)
                self._fd = -1

    def __enter__(self) -> Recorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass(frozen=True)
class SessionSummary:
    """What ``tradeoff session show`` reports: who, what, and the replayed result."""

    log: SessionLog
    result: ElicitationResult
    answers: int
    consistency: Consistency | None = None
    #: The trade-offs the answers settled, and the ranges of those they did not
    #: (:func:`~tradeoff.ask.presentation.settled_tradeoff_sentences`).
    tradeoffs: tuple[str, ...] = ()

    @property
    def recorded(self) -> int:
        """Answer lines in the file (undone ones included)."""
        return sum(e.type == "answer" for e in self.log.events)

    @property
    def undos(self) -> int:
        return sum(e.type == "undo" for e in self.log.events)

    def to_dict(self) -> dict[str, Any]:
        h, r = self.log.header, self.result
        data: dict[str, Any] = {
            "path": str(self.log.path),
            "participant": h.participant,
            "scenario_id": h.scenario.id,
            "scenario_sha256": h.scenario_sha256,
            "strategy": h.strategy,
            "started": h.started,
            "answers": self.answers,
            "answers_recorded": self.recorded,
            "undos": self.undos,
            "complete": self.log.finished,
            "names": list(r.names),
            "weights": list(r.weights),
            "warnings": list(self.log.warnings),
            "consistency": None if self.consistency is None else self.consistency.to_dict(),
            "tradeoffs": list(self.tradeoffs),
        }
        if r.intervals is not None:
            data["intervals"] = [list(iv) for iv in r.intervals]
        if r.error_rate_estimate is not None:
            data["error_rate_estimate"] = r.error_rate_estimate
        if r.swing_weights is not None:
            data["swing_weights"] = list(r.swing_weights)
        if r.swing_intervals is not None:
            data["swing_intervals"] = [list(iv) for iv in r.swing_intervals]
        return data


def summarise(path: str | Path) -> SessionSummary:
    """Read and replay a session file (once) and summarise it."""
    log = read_session(path)
    engine = replay(log)
    result = shown_result(log, engine)
    sentences = settled_tradeoff_sentences(
        log.header.scenario, result.weights, engine.space.priors, engine.weight_draws()
    )
    return SessionSummary(
        log, result, engine.answered, consistency_of(engine), tuple(sentences)
    )
