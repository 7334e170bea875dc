"""Which of a study's session files count, and what each says.

A participant's session files are the regular ``*.jsonl`` files in their folder under
``sessions/`` (anything else there is named, never opened: a FIFO would block its reader);
one counts for them when its header names them and the study's scenario
(:func:`not_counted`). The coordinator's status, the export and a withdrawal all ask here.

What a file says needs it replayed (whether the answers were consistent is the engine's
to say), every answer given to the engine as recorded (:func:`~tradeoff.record.replay.replay`
with ``check=False``: the status does not ask which questions this version would choose),
the files no one has replayed yet side by side, one process per core, each sent the
bytes of the files it replays (:func:`replay_unknown`). What a file says is kept, per
process and in the user's cache folder (:func:`tradeoff.study.cache.read_record`), under
a key of everything it depends on: the file's bytes, its path, the participant, the
study's scenario and copied files, and the package's code
(:func:`~tradeoff.study.cache.package_digest`); a file replays once. An entry there is
read only when this user's tradeoff sealed it under that key
(:mod:`tradeoff.study.sealed`): edited facts, or another file's, are replayed again.

A command reads each session file once (:func:`read_once`, :func:`session_bytes`): the
bytes its key is made of are the bytes replayed, and the export's own replay
(:mod:`tradeoff.study.export_people`) shares them with the status it counts from.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import stat
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import asdict, dataclass, fields
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tradeoff.ask.scenario import load_scenario
from tradeoff.errors import InputError, read_user_file
from tradeoff.record.log import MISSING_SESSION, session_entries
from tradeoff.record.records import AnswerRecord, ExtendRecord, Header, UndoRecord
from tradeoff.study import sealed
from tradeoff.study.cache import (
    CACHE_VERSION,
    entry_key,
    package_digest,
    read_record,
    user_cache_dir,
    write_record,
)
from tradeoff.study.files import file_kind
from tradeoff.study.folder import Study

if TYPE_CHECKING:
    from tradeoff.learn.engine import Engine


#: The session files read within :func:`read_once`, by path: what ``lstat`` said of each
#: (inode, modification time, size) and its bytes. ``None`` outside one.
_READ: ContextVar[dict[str, tuple[tuple[int, int, int], bytes]] | None] = ContextVar(
    "session_files_read", default=None
)


@contextmanager
def read_once() -> Iterator[None]:
    """Within it, :func:`session_bytes` reads each session file once, whoever asks (the
    status's keys and replays, the export's rows, which sessions are pilots); a file that
    changed since is read again. Nested, the outermost one's reads are shared; after it,
    nothing read is kept."""
    if _READ.get() is not None:
        yield
        return
    token = _READ.set({})
    try:
        yield
    finally:
        _READ.reset(token)


def session_bytes(path: Path) -> bytes:
    """The bytes of a session file (an :class:`~tradeoff.errors.InputError` as
    :func:`~tradeoff.record.log.read_session` raises one when it cannot be read); within
    :func:`read_once`, read once."""
    read = _READ.get()
    try:
        st = os.lstat(path) if read is not None else None
    except OSError:
        st = None  # read_user_file says why
    if read is None or st is None:
        return read_user_file(path, MISSING_SESSION)
    stamp = (st.st_ino, st.st_mtime_ns, st.st_size)
    known = read.get(str(path))
    if known is not None and known[0] == stamp:
        return known[1]
    raw = read_user_file(path, MISSING_SESSION)
    read[str(path)] = (stamp, raw)
    return raw


def session_files(study: Study, participant: str) -> tuple[list[Path], list[str]]:
    """A participant's session files that are regular files (read), and a note for every
    other ``*.jsonl`` in their folder (a FIFO, a link, a folder: never opened, since a
    FIFO would block its reader). Sorted by name; the only list of a participant's files
    that the status, the export and a withdrawal read."""
    files: list[Path] = []
    notes: list[str] = []
    for path, mode in session_entries(study.sessions_dir / participant):
        if stat.S_ISREG(mode):
            files.append(path)
        else:
            notes.append(
                f"{path.name} is {file_kind(mode)}, not a session file: not read. Fix: remove it "
                "or put the session file itself there."
            )
    return files, notes


def not_counted(
    header: Header, participant: str, scenario_sha256: str | frozenset[str]
) -> str | None:
    """Why a session file in ``participant``'s folder of a study does not count for them
    (its header names another participant, a file copied from another folder, or another
    scenario than ``scenario_sha256``, or than any of them: a study with arms,
    :attr:`~tradeoff.study.folder.Study.scenario_hashes`), or ``None`` when it does.
    Status, report and export all ask this."""
    if not isinstance(scenario_sha256, str):
        if header.scenario_sha256 in scenario_sha256 or not scenario_sha256:
            scenario_sha256 = header.scenario_sha256
        else:
            scenario_sha256 = min(scenario_sha256)
    if header.participant != participant:
        return (
            f"recorded by participant {header.participant!r}, not {participant!r} (a file "
            "copied from another folder?)"
        )
    if header.scenario_sha256 != scenario_sha256:
        return (
            f"recorded on another scenario (sha256 {header.scenario_sha256[:12]}…, the "
            f"study's is {scenario_sha256[:12]}…)"
        )
    return None


@dataclass(frozen=True)
class SessionFacts:
    """What one session file says, as the coordinator's status counts it."""

    complete: bool
    answers: int
    flagged: bool
    problem: str = ""
    #: The reader's warnings, each naming the file and the line.
    warnings: tuple[str, ...] = ()
    #: Response times of the answers that count (an undo's answer left out), by question:
    #: the n-th is the n-th question's (milliseconds; ``None`` where none was recorded).
    response_ms: tuple[float | None, ...] = ()
    consented: bool = False
    #: Attention checks shown, and failed (the dominated option chosen).
    checks_shown: int = 0
    checks_failed: int = 0

    def to_json(self) -> dict[str, Any]:
        """The facts as JSON holds them (lists, not tuples)."""
        data = asdict(self)
        data["warnings"], data["response_ms"] = list(self.warnings), list(self.response_ms)
        return data

    @classmethod
    def from_json(cls, data: Any) -> SessionFacts | None:
        """The facts a :meth:`to_json` wrote, or ``None`` for anything else.

        >>> facts = SessionFacts(True, 4, False, warnings=("w",), response_ms=(1.5,))
        >>> SessionFacts.from_json(facts.to_json()) == facts
        True
        >>> SessionFacts.from_json({"complete": "yes"}) is None
        True
        """
        if not isinstance(data, dict) or set(data) != {f.name for f in fields(cls)}:
            return None
        flags = [data[k] for k in ("complete", "flagged", "consented")]
        texts = data["warnings"]
        times = data["response_ms"]
        if not (
            all(isinstance(x, bool) for x in flags)
            and type(data["answers"]) is int
            and isinstance(data["problem"], str)
            and isinstance(texts, list)
            and all(isinstance(x, str) for x in texts)
            and isinstance(times, list)
            and all(x is None or type(x) in (int, float) for x in times)
            and type(data["checks_shown"]) is int
            and type(data["checks_failed"]) is int
        ):
            return None
        return cls(
            data["complete"],
            data["answers"],
            data["flagged"],
            data["problem"],
            tuple(texts),
            tuple(None if x is None else float(x) for x in times),
            data["consented"],
            data["checks_shown"],
            data["checks_failed"],
        )


#: What each session file says, by (path, modification time, size, the folder's participant,
#: the study's scenario hash): a live view refreshing every few seconds replays a file once
#: per change, not once per refresh.
_FACTS: dict[tuple[str, int, int, str, str], SessionFacts] = {}


def stored_key(path: Path, study: Study, participant: str) -> str | None:
    """The key of a file's facts in the cache folder (``None`` when it cannot be read: the
    replay then says why)."""
    try:
        raw = session_bytes(path)
    except InputError:
        return None
    return entry_key(
        {
            "kind": "session-facts",
            "version": CACHE_VERSION,
            "code": package_digest(),
            "path": str(path),
            "sha256": hashlib.sha256(raw).hexdigest(),
            "participant": participant,
            "scenario": study.scenario_sha256,
            "files": study.files,
        }
    )


def _facts(
    path: Path, participant: str, study: Study, replayed: SessionFacts | None = None
) -> SessionFacts:
    """What a session file in ``participant``'s folder of a study says, from this process's
    memory, the cache folder, or replayed (:func:`_replayed`, or ``replayed`` when the
    caller replayed it already) and kept in both."""
    known = _known(path, participant, study)
    if isinstance(known, SessionFacts):
        return known
    key, folder, name = known
    facts = replayed if replayed is not None else _replayed(path, participant, study)
    if folder is not None and name is not None:
        write_record(folder, f"facts-{name}", facts.to_json())
    if len(_FACTS) > 4096:
        _FACTS.clear()
    _FACTS[key] = facts
    return facts


_Key = tuple[str, int, int, str, str]


def _known(
    path: Path, participant: str, study: Study
) -> SessionFacts | tuple[_Key, Path | None, str | None]:
    """The file's facts when this process or the cache folder knows them (or the file
    cannot be read), else where to keep them once replayed: (memory key, cache folder,
    entry name)."""
    try:
        st = os.lstat(path)
    except OSError as exc:
        return SessionFacts(False, 0, False, f"unreadable: {path.name}: {exc.strerror}")
    if not stat.S_ISREG(st.st_mode):
        return SessionFacts(False, 0, False, f"unreadable: {path.name} is {file_kind(st.st_mode)}")
    key = (str(path), st.st_mtime_ns, st.st_size, participant, study.scenario_sha256)
    cached = _FACTS.get(key)
    if cached is not None:
        return cached
    folder = user_cache_dir()
    name = None if folder is None else stored_key(path, study, participant)
    if folder is not None and name is not None:
        stored = SessionFacts.from_json(read_record(folder, f"facts-{name}"))
        if stored is not None:
            _FACTS[key] = stored
            return stored
    return key, folder, name


#: Replays run in other processes (one per core) when at least this many files need one:
#: starting a process costs about as much as a few replays.
PARALLEL_FROM = 16


def replay_unknown(study: Study, participants: Iterable[str]) -> int:
    """Replay, side by side in one process per core, every session file of
    ``participants`` whose facts neither this process nor the cache folder knows (when
    there are :data:`PARALLEL_FROM` or more and more than one core), and keep what each
    says; returns how many were replayed so. A study's first ``study status`` then takes
    the replays' time divided by the cores. Each file is read here, once
    (:func:`read_once`), and its bytes sent to the process that replays it."""
    with read_once():
        return _replay_unknown(study, participants)


def _replay_unknown(study: Study, participants: Iterable[str]) -> int:
    todo = [
        (path, pid)
        for pid in participants
        for path in session_files(study, pid)[0]
        if not isinstance(_known(path, pid, study), SessionFacts)
    ]
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    workers = min(cores or 1, len(todo) // 4)
    if len(todo) < PARALLEL_FROM or workers < 2:
        return 0
    # The study's population checked here first (rebuilt here if it must be, and said
    # here once): the workers then find it sealed, and say nothing themselves.
    study.populations()(load_scenario(study.scenario_path).scenario)
    context = multiprocessing.get_context("spawn")  # no threads of this process copied
    with ProcessPoolExecutor(workers, mp_context=context, initializer=sealed.quiet) as pool:
        done = pool.map(
            _replayed,
            [p for p, _ in todo],
            [pid for _, pid in todo],
            [study] * len(todo),
            [_bytes_or_none(p) for p, _ in todo],
            chunksize=max(1, len(todo) // (4 * workers)),
        )
        for (path, pid), facts in zip(todo, done, strict=True):
            _facts(path, pid, study, facts)
    return len(todo)


def _bytes_or_none(path: Path) -> bytes | None:
    """A session file's bytes (:func:`session_bytes`), or ``None`` when it cannot be read
    (its replay then says why)."""
    try:
        return session_bytes(path)
    except InputError:
        return None


def _replayed(path: Path, participant: str, study: Study, raw: bytes | None = None) -> SessionFacts:
    """What a session file in ``participant``'s folder of a study says, replayed. A session
    whose header names another participant (a file copied from another folder) or another
    scenario is never counted, and says why; one without its closing ``result`` record is
    unfinished, with its answers counted (a file cut at a line boundary loses that record
    and so shows as unfinished: every record is chained to the one before, and only the
    closing one says the session was finished). ``raw``: the file's bytes, when read
    already (by the process that sent them here)."""
    # The engine: only when a file replays.
    from tradeoff.learn.engine import consistency_of
    from tradeoff.record.log import read_session
    from tradeoff.record.replay import replay

    times: list[float | None] = []
    try:
        log = read_session(path, raw if raw is not None else session_bytes(path))
        engine = replay(
            log,
            population=study.populations()(log.header.scenario),
            after=partial(_counted_times, times),
            check=False,
        )
    except InputError as exc:
        return SessionFacts(False, 0, False, f"unreadable: {exc.message()}")
    warnings = tuple(log.warnings)
    foreign = not_counted(log.header, participant, study.scenario_hashes)
    if foreign is not None:
        return SessionFacts(False, 0, False, f"{path.name} was {foreign}: not counted", warnings)
    return SessionFacts(
        log.finished,
        engine.answered,
        consistency_of(engine).flagged,
        "",
        warnings,
        tuple(times),
        log.consent is not None,
        len(log.checks),
        sum(c.failed for c in log.checks),
    )


def _counted_times(
    times: list[float | None], engine: Engine, event: AnswerRecord | UndoRecord | ExtendRecord
) -> None:
    """Keep ``times`` the response times of the answers ``engine`` counts, by question
    (a ``replay`` callback): an answer's is added, an undone answer's taken back."""
    if isinstance(event, AnswerRecord):
        times.append(event.response_ms)
    del times[engine.answered :]


def session_facts(study: Study, participant: str) -> tuple[dict[Path, SessionFacts], list[str]]:
    """What each of a participant's session files (:func:`session_files`) says, and a note
    for every other ``*.jsonl`` in their folder; each file is read once per change."""
    files, notes = session_files(study, participant)
    with read_once():
        return {p: _facts(p, participant, study) for p in files}, notes
