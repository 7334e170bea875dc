"""Recording a session: every answer written to disk before the next question.

:class:`Recorder` drives an :class:`~tradeoff.learn.Engine` and writes each event as a
chained line (:mod:`tradeoff.record.records`) to a new session file (:meth:`Recorder.start`)
or to one it replays and continues (:meth:`Recorder.resume`).

Safety:

* every line is written whole (short writes are continued) and fsynced before
  :meth:`Recorder.answer` returns; if that fails (disk full, file-size limit), the bytes of
  that line are cut off again, :class:`SessionWriteError` is raised and the engine does not
  move on, so the same answer can be saved again later;
* files are created with mode 0600 (directories 0700); nothing written is ever rewritten;
* one process at a time may write a session file (an exclusive ``flock``;
  :class:`SessionLocked` otherwise);
* a line cut short by a crash is reported and skipped, never silently dropped; the next
  line written starts on a line of its own.

The recorder is given what it needs (the population, the candidates' metric rows); it looks
up nothing that chooses (:mod:`tradeoff.study.opening` prepares a session for the faces).
"""

from __future__ import annotations

import errno
import fcntl
import os
import secrets
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel

from tradeoff.ask.population import Population
from tradeoff.ask.queries import Query
from tradeoff.ask.scenario import ElicitationSpec, LoadedScenario
from tradeoff.errors import InputError
from tradeoff.learn import Choice, ElicitationResult, Engine
from tradeoff.learn.starting_prior import StartingPrior
from tradeoff.record.log import SessionLog, read_session
from tradeoff.record.marks import Marks
from tradeoff.record.prior_files import store_prior
from tradeoff.record.records import (
    FORMAT_VERSION,
    AnswerRecord,
    CheckRecord,
    ConsentRecord,
    EntryRecord,
    ExtendRecord,
    Header,
    HeaderRecord,
    MeasurementRecord,
    NoteRecord,
    PriorRecord,
    QueryRecord,
    ResultRecord,
    SourceRecord,
    UndoRecord,
    chained_line,
    check_participant,
    now,
    record_bytes,
)
from tradeoff.record.replay import replay
from tradeoff.version import __version__


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
        #: Marks of what the session holds besides answers (attention checks, consents).
        self.marks = Marks()

    # -- creating and opening ---------------------------------------------------------

    @staticmethod
    def _lock(fd: int, path: Path, wait: float = 0.0, *, shared: bool = False) -> None:
        """Take the file's exclusive lock (a writer's; with ``shared``, a reader's shared
        lock, which keeps writers out but not other readers), waiting up to ``wait``
        seconds for a writer to let go (a web server holds it only while it writes one
        answer); ``fd`` is closed and :class:`SessionLocked` raised when it does not."""
        deadline = time.monotonic() + wait
        kind = fcntl.LOCK_SH if shared else fcntl.LOCK_EX
        while True:
            try:
                fcntl.flock(fd, kind | fcntl.LOCK_NB)
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
        entry: EntryRecord | None = None,
        measurement: MeasurementRecord | None = None,
        start: StartingPrior | None = None,
        source: SourceRecord | None = None,
        scenario_path: str | None = None,
    ) -> Recorder:
        """Create a new session file and write its first lines.

        ``candidates`` are the pool's models as metric rows that the questions aim at, or
        ``None`` (the caller prepares them: :func:`tradeoff.study.opening.start_session` reads
        them from the study cache or the scenario's pool); ``population`` the scenario's
        population when the caller has it (memory-mapped from a cache, say). ``spec``
        defaults to the scenario's ``[elicitation]``; the header records the strategy and
        budget it sets, which is what a replay needs besides the scenario. ``consent``, when
        given, is written first: the chain of the file starts at it; ``entry`` (how a study
        participant came in), when given, next, just before the header.
        ``measurement``, when the pool carries a measurement noise, says how the
        candidates were measured: the stop then counts over their plausible values, and the
        header keeps it for every replay. ``start``, a study's population prior, is
        stored by its hash beside the sessions folder
        (:func:`~tradeoff.record.prior_files.store_prior`) and named in the header.
        ``source``: the file of choices recorded elsewhere the answers will be read from
        (:meth:`answer_given` names each one's line), named in the header.
        ``scenario_path``: the scenario file's path as the header names it; by default
        ``loaded.path`` made absolute, so that a session read from any folder finds the
        files beside its scenario. The example sessions in git give theirs relative to the
        repository, so they name no folder of the machine they were made on.
        """
        check_participant(participant)
        folder = check_sessions_dir(sessions_dir) / participant
        try:
            folder.mkdir(exist_ok=True, mode=0o700)
        except OSError as exc:
            raise InputError.single(
                folder, "", f"cannot hold sessions ({exc.strerror})", "choose another folder."
            ) from None
        if candidates is None or (
            measurement is not None and len(measurement.values) != len(candidates)
        ):
            measurement = None
        engine = Engine(
            loaded.scenario,
            spec,
            seed=seed,
            population=population,
            candidates=candidates,
            measured=None if measurement is None else measurement.array(),
            start=start,
            likeliest=measurement is None or measurement.pick == "likeliest",
        )
        if start is not None:
            store_prior(sessions_dir, start)
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        path = folder / f"{loaded.scenario.id}-{stamp}.jsonl"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o600)
        cls._lock(fd, path)
        record = HeaderRecord(
            format=FORMAT_VERSION,
            tradeoff=__version__,
            participant=participant,
            scenario_id=loaded.scenario.id,
            scenario_path=str(Path(loaded.path).resolve())
            if scenario_path is None
            else scenario_path,
            scenario_sha256=loaded.sha256,
            scenario_text=loaded.text,
            strategy=engine.strategy_name,
            seed=seed,
            budget=engine.spec.budget,
            started=now(),
            candidates=None if candidates is None else tuple(map(tuple, candidates.tolist())),
            measurement=measurement,
            population_prior=None
            if start is None
            else PriorRecord(
                sha256=start.sha256,
                sessions=len(start.sessions),
                agreeing=engine.study_agreeing,
            ),
            noise_unit=None if loaded.scenario.n_classes else engine.noise_unit,
            source=source,
        )
        rec = cls(engine, path, fd, Header.of(record, loaded.scenario))
        if consent is not None:
            rec.marks = Marks(consented=(consent.version,))
        try:
            if consent is not None:
                rec._write(consent)
            if entry is not None:
                rec._write(entry)
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
        rec.marks = Marks.of(log)
        rec.warnings = list(log.warnings)
        rec._dangling = log.truncated_tail
        return rec

    @classmethod
    def read_between_writes(cls, path: Path, *, wait: float = 5.0) -> tuple[SessionLog, int]:
        """A session file read whole under its shared lock (no writer appends meanwhile,
        other readers are not kept out; no exclusive lock is taken), and its size in bytes
        as read: what a reader that only shows the session needs. Waits up to ``wait``
        seconds for a writer (then :class:`SessionLocked`)."""
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError as exc:
            raise InputError.single(
                path, "", f"cannot be opened ({exc.strerror}).", "check its permissions."
            ) from None
        cls._lock(fd, path, wait, shared=True)
        try:
            return read_session(path), os.fstat(fd).st_size
        finally:
            os.close(fd)  # releases the lock

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

    def answer(
        self, choice: Choice | str, response_ms: float | None = None, language: str | None = None
    ) -> Query:
        """Give the answer to the current question; it is on disk when this returns.
        ``language``: the language the question was shown in (a study web page's tag,
        written as the answer's ``language``; the terminal leaves it out)."""
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
                language=language,
            )
        )
        self.engine.answer(choice)
        return query

    def answer_given(
        self, query: Query, choice: Choice | str, source_line: int | None = None
    ) -> None:
        """Record an answer given elsewhere to ``query`` (a choice recorded in another tool,
        :func:`~tradeoff.ask.queries.recorded_query`; ``source_line``, its line in the
        header's source file) and apply it
        (:meth:`~tradeoff.learn.Engine.answer_recorded`, which checks it first); it is on
        disk when this returns, and a replay applies it as recorded."""
        choice = Choice(choice)
        self.engine.check_recorded(query)
        self._write(
            AnswerRecord(
                type="answer",
                index=self.engine.answered + 1,
                query=QueryRecord.of(query),
                choice=choice,
                at=now(),
                source_line=source_line,
            )
        )
        self.engine.answer_recorded(query, choice)

    def check(
        self,
        query: Query,
        dominant: Literal["left", "right"],
        choice: Choice | str,
        response_ms: float | None = None,
        language: str | None = None,
    ) -> CheckRecord:
        """Record the person's choice on an attention check shown before the next question
        (never given to the engine); it is on disk when this returns."""
        record = CheckRecord(
            type="check",
            position=self.engine.answered + 1,
            query=QueryRecord.of(query),
            dominant=dominant,
            choice=Choice(choice),
            response_ms=None if response_ms is None else round(response_ms, 1),
            at=now(),
            language=language,
        )
        self._write(record)
        self.marks = self.marks.checked(record.position)
        return record

    def consent_again(self, consent: ConsentRecord) -> None:
        """Record consent given again, to a new version of the study's text."""
        self._write(consent)
        self.marks = self.marks.agreed(consent.version)

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
