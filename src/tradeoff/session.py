"""Session files: every answer written to disk before the next question, replayable exactly.

A session is a JSON Lines file, ``sessions/<participant>/<scenario-id>-<UTC timestamp>.jsonl``
(DESIGN.md). The first line is a header with the format version, the tradeoff version, the
full scenario (its TOML text, parsed form and sha256), participant, strategy, seed, budget
and start time. Then one line per event: ``answer`` (both profiles, the choice
left/right/indifferent, the response time), ``undo``, ``note``, ``extend`` (more questions
asked for after a review); a ``result`` line closes a finished session.

Safety:

* every event is written, flushed and fsynced before :meth:`Recorder.answer` returns;
* files are created with mode 0600 (directories 0700) and never truncated or rewritten;
* one process at a time may write a session file (an exclusive ``flock``);
* a truncated or unreadable line is reported and skipped, never silently dropped; before
  appending after a truncated last line, a newline closes it so nothing is glued to it.

Replaying the events through a fresh :class:`~tradeoff.elicitation.Engine` reproduces the
state exactly; every recorded question is checked against the one the engine asks.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tradeoff import __version__
from tradeoff.elicitation import Choice, ElicitationResult, Engine
from tradeoff.errors import InputError, Problem
from tradeoff.queries import ClassifierProfile, Query
from tradeoff.scenario import LoadedScenario, Scenario, parse_scenario

FORMAT_VERSION = 1
_PARTICIPANT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def check_participant(participant: str) -> str:
    """A participant id that is safe as a file name, or an InputError saying why not.

    >>> check_participant("dr-lee")
    'dr-lee'
    """
    if not _PARTICIPANT.match(participant) or ".." in participant:
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
    }


def query_from_dict(data: dict[str, Any]) -> Query:
    return Query(
        ClassifierProfile.from_dict(data["left"]),
        ClassifierProfile.from_dict(data["right"]),
        (int(data["pair"][0]), int(data["pair"][1])),
        (float(data["params"][0]), float(data["params"][1])),
        None if data.get("threshold") is None else float(data["threshold"]),
        None if data.get("repeat_of") is None else int(data["repeat_of"]),
    )


@dataclass(frozen=True)
class Header:
    """The first line of a session file."""

    participant: str
    scenario: Scenario
    scenario_text: str
    scenario_sha256: str
    scenario_path: str
    strategy: str
    seed: int
    budget: int | None
    started: str
    version: str = __version__
    format: int = FORMAT_VERSION

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": "header",
            "format": self.format,
            "tradeoff": self.version,
            "participant": self.participant,
            "scenario_id": self.scenario.id,
            "scenario_path": self.scenario_path,
            "scenario_sha256": self.scenario_sha256,
            "scenario_text": self.scenario_text,
            "scenario": self.scenario.model_dump(mode="json"),
            "strategy": self.strategy,
            "seed": self.seed,
            "budget": self.budget,
            "started": self.started,
        }


@dataclass
class SessionLog:
    """A session file as read: header, events, and what could not be read."""

    path: Path
    header: Header
    events: list[dict[str, Any]]
    warnings: list[str] = field(default_factory=list)
    truncated_tail: bool = False

    @property
    def finished(self) -> bool:
        return any(e["type"] == "result" for e in self.events)


def _header_from(path: Path, data: dict[str, Any]) -> Header:
    problems = []
    for key in ("participant", "scenario_text", "scenario_sha256", "strategy", "seed"):
        if key not in data:
            problems.append(
                Problem(
                    f"line 1, key {key!r}",
                    "is missing from the header.",
                    "this is not a complete session file.",
                )
            )
    if data.get("format") != FORMAT_VERSION:
        problems.append(
            Problem(
                "line 1, key 'format'",
                f"unsupported session format {data.get('format')!r}.",
                f"this version reads format {FORMAT_VERSION}.",
            )
        )
    if problems:
        raise InputError.many(path, problems)
    import tomllib

    scenario = parse_scenario(tomllib.loads(data["scenario_text"]), f"{path} (embedded scenario)")
    return Header(
        participant=str(data["participant"]),
        scenario=scenario,
        scenario_text=str(data["scenario_text"]),
        scenario_sha256=str(data["scenario_sha256"]),
        scenario_path=str(data.get("scenario_path", "")),
        strategy=str(data["strategy"]),
        seed=int(data["seed"]),
        budget=None if data.get("budget") is None else int(data["budget"]),
        started=str(data.get("started", "")),
        version=str(data.get("tradeoff", "")),
    )


_EVENTS = {"answer", "undo", "note", "extend", "result"}


def read_session(path: str | Path) -> SessionLog:
    """Read and check a session file.

    Raises
    ------
    InputError
        If the file is missing, empty, or has no valid header.
    """
    p = Path(path)
    if not p.is_file():
        raise InputError.single(p, "", "session file not found.", "check the path.")
    raw = p.read_bytes()
    if not raw.strip():
        raise InputError.single(
            p, "", "the session file is empty.", "start a new session; this one recorded nothing."
        )
    lines = raw.split(b"\n")
    ends_cleanly = raw.endswith(b"\n")
    if ends_cleanly:
        lines = lines[:-1]
    try:
        first = json.loads(lines[0])
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise InputError.single(
            p,
            "line 1",
            "is not a session header (not JSON).",
            "give a .jsonl file written by tradeoff.",
        ) from None
    if not isinstance(first, dict) or first.get("type") != "header":
        raise InputError.single(
            p, "line 1", "is not a session header.", "give a .jsonl file written by tradeoff."
        )
    header = _header_from(p, first)
    events: list[dict[str, Any]] = []
    warnings: list[str] = []
    truncated = False
    for number, line in enumerate(lines[1:], start=2):
        last = number == len(lines)
        try:
            event = json.loads(line)
            if not isinstance(event, dict) or event.get("type") not in _EVENTS:
                raise ValueError("unknown event")
        except (json.JSONDecodeError, UnicodeDecodeError, ValueError):
            if last and not ends_cleanly:
                truncated = True
                warnings.append(
                    f"{p}: line {number} is truncated (the program was stopped while "
                    "writing it) and was skipped; every earlier answer is intact."
                )
            else:
                warnings.append(f"{p}: line {number} could not be read and was skipped.")
            continue
        events.append(event)
    return SessionLog(p, header, events, warnings, truncated)


def replay(log: SessionLog, *, population: Any = None) -> Engine:
    """A fresh engine with every recorded answer and undo applied, checked against the log.

    A recorded question that differs from the one this version asks at that point (the
    session was recorded by another version) is applied as recorded when the strategy learns
    from any question and the question is one the scenario builds; the result is then the
    same as when it was recorded, and a warning is added to ``log.warnings``.
    """
    h = log.header
    engine = Engine(
        h.scenario, strategy=h.strategy, budget=h.budget, seed=h.seed, population=population
    )
    differs = 0
    for n, event in enumerate(log.events, start=2):
        kind = event["type"]
        if kind == "answer":
            expected = engine.next_query()
            recorded = query_from_dict(event["query"])
            if expected is not None and expected == recorded:
                engine.answer(Choice(event["choice"]))
                continue
            try:
                engine.answer_recorded(recorded, Choice(event["choice"]))
            except ValueError as exc:
                raise InputError.single(
                    log.path,
                    f"event {n - 1} (answer {event.get('index')})",
                    "does not match the question this version of tradeoff asks at that point, "
                    f"and cannot be replayed as recorded ({exc}).",
                    f"replay it with the tradeoff version named in the header ({h.version}).",
                ) from None
            differs += 1
        elif kind == "undo":
            engine.undo()
        elif kind == "extend":
            engine.extend(int(event["extra"]))
    if differs:
        log.warnings.append(
            f"{log.path}: {differs} recorded question(s) differ from those this version of "
            f"tradeoff would ask (recorded with {h.version or 'another version'}); the answers "
            "were applied to the questions as recorded, so the result is unchanged. New "
            "questions are chosen by this version."
        )
    return engine


def iter_sessions(sessions_dir: str | Path, participant: str) -> Iterator[Path]:
    folder = Path(sessions_dir) / participant
    if folder.is_dir():
        yield from sorted(folder.glob("*.jsonl"))


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


class Recorder:
    """Drives an engine and records every event, durably, in a session file.

    Use :meth:`start` for a new session and :meth:`resume` to continue one.
    """

    def __init__(self, engine: Engine, path: Path, fd: int, header: Header) -> None:
        self.engine = engine
        self.path = path
        self._fd = fd
        self.header = header
        self.warnings: list[str] = []

    # -- creating and opening ---------------------------------------------------------

    @staticmethod
    def _lock(fd: int, path: Path) -> None:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise SessionLocked.single(
                path,
                "",
                "is open in another tradeoff window or process.",
                "finish or quit that one first; two processes must not write one session.",
            ) from None

    @classmethod
    def start(
        cls,
        loaded: LoadedScenario,
        participant: str,
        sessions_dir: str | Path = "sessions",
        *,
        strategy: str | None = None,
        budget: int | None = None,
        seed: int = 0,
    ) -> Recorder:
        """Create a new session file and write its header."""
        check_participant(participant)
        folder = Path(sessions_dir) / participant
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        engine = Engine(loaded.scenario, strategy=strategy, budget=budget, seed=seed)
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        path = folder / f"{loaded.scenario.id}-{stamp}.jsonl"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o600)
        cls._lock(fd, path)
        header = Header(
            participant=participant,
            scenario=loaded.scenario,
            scenario_text=loaded.text,
            scenario_sha256=loaded.sha256,
            scenario_path=loaded.path,
            strategy=engine.strategy_name,
            seed=seed,
            budget=engine.settings.budget,
            started=now(),
        )
        rec = cls(engine, path, fd, header)
        rec._write(header.to_dict())
        return rec

    @classmethod
    def resume(
        cls, path: str | Path, *, current: LoadedScenario | None = None, use_embedded: bool = False
    ) -> Recorder:
        """Continue a session: replay its events and reopen the file for appending.

        If ``current`` (the scenario file as it is now) differs from the embedded copy, the
        session is refused unless ``use_embedded`` is set.
        """
        p = Path(path)
        log = read_session(p)
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
                "continue with the scenario embedded in the session (--use-embedded, or the "
                "app's 'continue with the recorded scenario'), or start a new session.",
            )
        if log.finished:
            raise InputError.single(
                p,
                "",
                "this session is already finished.",
                "start a new session to answer more questions.",
            )
        fd = os.open(p, os.O_WRONLY | os.O_APPEND)
        cls._lock(fd, p)
        engine = replay(log)
        rec = cls(engine, p, fd, log.header)
        rec.warnings = list(log.warnings)
        if log.truncated_tail:
            os.write(fd, b"\n")
            os.fsync(fd)
        return rec

    # -- recording ----------------------------------------------------------------------

    def _write(self, event: dict[str, Any]) -> None:
        line = (json.dumps(event, ensure_ascii=False, allow_nan=False) + "\n").encode()
        os.write(self._fd, line)
        os.fsync(self._fd)

    def answer(self, choice: Choice | str, response_ms: float | None = None) -> Query:
        """Give the answer to the current question; it is on disk when this returns."""
        choice = Choice(choice)
        query = self.engine.next_query()
        if query is None:
            raise RuntimeError("no question to answer")
        event = {
            "type": "answer",
            "index": self.engine.answered + 1,
            "query": query_to_dict(query),
            "choice": choice.value,
            "response_ms": None if response_ms is None else round(response_ms, 1),
            "at": now(),
        }
        self._write(event)
        self.engine.answer(choice)
        return query

    def undo(self) -> Query | None:
        """Take back the last answer (recorded as an ``undo`` event)."""
        if self.engine.answered == 0:
            return None
        self._write({"type": "undo", "at": now()})
        return self.engine.undo()

    def extend(self, extra: int) -> int:
        """Ask ``extra`` more questions than planned (recorded, so replay does the same)."""
        self._write({"type": "extend", "extra": int(extra), "at": now()})
        return self.engine.extend(extra)

    def note(self, text: str) -> None:
        self._write({"type": "note", "text": text, "at": now()})

    def finish(self) -> ElicitationResult:
        """Write the final ``result`` line."""
        result = self.engine.result()
        self._write({"type": "result", **result.to_dict(), "at": now()})
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


def summarise(path: str | Path) -> dict[str, Any]:
    """What ``tradeoff session show --json`` prints: who, what, and the replayed result."""
    log = read_session(path)
    engine = replay(log)
    result = engine.result()
    answers = sum(e["type"] == "answer" for e in log.events)
    undos = sum(e["type"] == "undo" for e in log.events)
    data: dict[str, Any] = {
        "path": str(log.path),
        "participant": log.header.participant,
        "scenario_id": log.header.scenario.id,
        "scenario_sha256": log.header.scenario_sha256,
        "strategy": log.header.strategy,
        "started": log.header.started,
        "answers": engine.answered,
        "answers_recorded": answers,
        "undos": undos,
        "complete": log.finished,
        "names": list(result.names),
        "weights": list(result.weights),
        "warnings": log.warnings,
    }
    if result.intervals is not None:
        data["intervals"] = [list(iv) for iv in result.intervals]
    if result.error_rate_estimate is not None:
        data["error_rate_estimate"] = result.error_rate_estimate
    if result.swing_weights is not None:
        data["swing_weights"] = list(result.swing_weights)
    if result.swing_intervals is not None:
        data["swing_intervals"] = [list(iv) for iv in result.swing_intervals]
    return data
