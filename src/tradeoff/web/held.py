"""Participants held in memory by one study web server process.

Each participant's engine is kept between requests (rebuilt from their session file when it
was evicted, or when another process wrote to the file in between); their session file is
locked only while one request writes to it, so several processes behind one proxy can
serve one study folder: one writer per participant at a time, enforced by the file's lock
(docs/architecture.md, "The study web page"). A request that only shows the session
(:meth:`Participants.look`) takes no exclusive lock: the kept engine when the file is as
this process left it (one ``stat``), else the file read under its shared lock. Which
session files a participant has is kept too (:class:`Listing`): their folder is listed
again only when it changed, so a request's work does not grow with the study's history.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TypeVar

from tradeoff.ask.scenario import ElicitationSpec, LoadedScenario
from tradeoff.errors import InputError
from tradeoff.learn import Engine
from tradeoff.record.log import closed, read_session
from tradeoff.record.marks import Marks
from tradeoff.record.recorder import Recorder
from tradeoff.record.records import ConsentRecord, EntryRecord, Header
from tradeoff.record.replay import replay
from tradeoff.study.arms import arm_session, assign_arm
from tradeoff.study.cache import cached_population
from tradeoff.study.counted import session_files
from tradeoff.study.entries import EntryLog, study_lock
from tradeoff.study.folder import Study
from tradeoff.study.opening import resume_session, start_session
from tradeoff.study.pooling import current_prior
from tradeoff.study.withdrawals import withdrawn

T = TypeVar("T")

#: How long a request waits for another process to finish writing a participant's file.
LOCK_WAIT = 5.0
#: A folder's listing is trusted only when it was made this many seconds after the folder
#: last changed: a file made within the same tick of the file system's clock as the
#: listing leaves the folder's time as it was, so such a listing is made again next time.
SETTLED = 0.1


@dataclass
class Held:
    """A participant's engine as it stands after the file's first ``size`` bytes."""

    path: Path
    engine: Engine
    header: Header
    chain: str | None
    size: int
    #: The checks shown and consents given (:class:`~tradeoff.record.marks.Marks`).
    marks: Marks = field(default_factory=Marks)


@dataclass
class Listing:
    """A participant's session files of the study's scenario (sorted by name), as their
    folder was listed when its ``stat`` said ``key``; those found finished or closed are
    noted (a session file's closing line is never taken back)."""

    key: tuple[int, int] | None
    files: list[Path]
    trusted: bool
    closed: set[Path] = field(default_factory=set)
    finished: set[Path] = field(default_factory=set)


def _folder_key(folder: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(folder, follow_symlinks=False)
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns


class Erased(Exception):
    """A session was not started: its participant was erased on request (``when``, the
    tombstone's time)."""

    def __init__(self, when: str) -> None:
        super().__init__(when)
        self.when = when


class Participants:
    """The participants one process serves: engines in memory, at most ``capacity`` kept
    (the least recently used are dropped and rebuilt from their file when they come back).
    """

    def __init__(self, study: Study, loaded: LoadedScenario, *, capacity: int = 1000) -> None:
        self.study = study
        self.loaded = loaded
        self.capacity = capacity
        self._held: OrderedDict[str, Held] = OrderedDict()
        self._guard = threading.Lock()
        self._locks: dict[str, threading.Lock] = {}
        self._listings: OrderedDict[str, Listing] = OrderedDict()
        #: How many times an engine was rebuilt from its file (evicted, or written by
        #: another process); the load benchmark reports it.
        self.rebuilt = 0
        #: Each arm's scenario and elicitation (:mod:`tradeoff.study.arms`), and who was
        #: assigned to which, as ``entries.jsonl`` says (read under the study's lock).
        self.arms = {a.name: arm_session(study, a) for a in study.arms}
        #: The arms that show the page in a language of their own, and that language.
        self.arm_languages = {a.name: a.language for a in study.arms if a.language is not None}
        self._prefixes = tuple(
            {f"{loaded.scenario.id}-"} | {f"{s.scenario.id}-" for s, _ in self.arms.values()}
        )
        self._entries = EntryLog(study.path)
        #: When a participant was erased on request (``None``: they were not); the page
        #: sets it (:mod:`tradeoff.web.erased`).
        self.erased_on: Callable[[str], str | None] = lambda participant: None

    def _lock_for(self, participant: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(participant, threading.Lock())

    def _sessions(self, participant: str) -> list[Path]:
        files, _ = session_files(self.study, participant)  # the study's one list
        return [p for p in files if p.name.startswith(self._prefixes)]

    def arm_of(self, participant: str) -> str | None:
        """The arm ``participant`` was assigned to (``None``: not yet, or no arms)."""
        if not self.arms:
            return None
        return self._entries.refresh().arms.get(participant)

    def language_of(self, participant: str) -> str | None:
        """The language ``participant``'s pages are shown in from their assignment on: their
        arm's (``None``: not assigned yet, or their arm has none, or no arm has one)."""
        if not self.arm_languages:
            return None
        arm = self.arm_of(participant)
        return None if arm is None else self.arm_languages.get(arm)

    def loaded_for(self, participant: str | None) -> LoadedScenario:
        """The scenario ``participant``'s sessions run on: their arm's, or the study's."""
        arm = None if participant is None else self.arm_of(participant)
        return self.loaded if arm is None else self.arms[arm][0]

    def _arm_session(
        self, participant: str
    ) -> tuple[str | None, LoadedScenario, ElicitationSpec | None]:
        """The arm of a new session of ``participant`` (assigned now when they have none:
        :func:`~tradeoff.study.arms.assign_arm`), its scenario and elicitation."""
        if not self.arms:
            return None, self.loaded, None
        study = self.study
        name = assign_arm(
            study.path,
            study.arms,
            study.arm_seed,
            participant,
            gone=partial(withdrawn, study),
            refresh=self._entries.refresh,
        )
        return (name, *(self.arms.get(name) or next(iter(self.arms.values()))))

    def _listing(self, participant: str, *, fresh: bool = False) -> Listing:
        """The participant's session files: their folder listed again only when its
        ``stat`` changed since the last listing (or that listing was not :data:`SETTLED`),
        or when ``fresh``."""
        key = _folder_key(self.study.sessions_dir / participant)
        with self._guard:
            kept = self._listings.get(participant)
            if kept is not None:
                self._listings.move_to_end(participant)
        if kept is not None and kept.trusted and kept.key == key and not fresh:
            return kept
        files = self._sessions(participant) if key is not None else []
        trusted = key is not None and time.time_ns() - key[1] > SETTLED * 1e9
        listing = Listing(key, files, trusted)
        if kept is not None:  # what was found closed stays so
            listing.closed = {p for p in kept.closed if p in files}
            listing.finished = {p for p in kept.finished if p in files}
        with self._guard:
            self._listings[participant] = listing
            while len(self._listings) > self.capacity:
                self._listings.popitem(last=False)
        return listing

    def open_session(self, participant: str, *, fresh: bool = False) -> Path | None:
        """The participant's newest unfinished session of the study's scenario, if any
        (its last line looked at, not the whole file: this is asked on every request; a
        file that cannot be resumed says so when it is opened). Their folder is not
        listed again unless it changed (or ``fresh``)."""
        listing = self._listing(participant, fresh=fresh)
        for path in reversed(listing.files):
            if path in listing.closed:
                continue
            if not closed(path):
                return path
            listing.closed.add(path)
        return None

    def has_finished(self, participant: str) -> bool:
        """Whether a session of theirs is complete (its closing record checked whole)."""
        listing = self._listing(participant)
        if listing.finished:
            return True
        for path in listing.files:
            if path not in listing.closed and not closed(path):
                continue
            listing.closed.add(path)
            try:
                if read_session(path).finished:
                    listing.finished.add(path)
                    return True
            except InputError:  # an unreadable file is the coordinator's to see
                continue
        return False

    def start(
        self,
        participant: str,
        consent: ConsentRecord | None,
        language: str,
        entry: EntryRecord | None = None,
    ) -> Path:
        """Open a new session (the consent, when given, as its first line, then the
        ``entry``: how they came in; the language shown as a note when there is no consent
        to carry it, or its text is in another language than the page; a study with arms:
        their arm as a note too, and its language, which the pages are shown in from now
        on, when it has one). Their session folder's lock is held meanwhile, so two tabs
        (even on two server processes) agreeing at once start one session.

        Someone erased on request is refused (:class:`Erased`), their folder not made again:
        the check and the folder's making hold the study's lock, which ``study erase`` holds
        throughout (an erasure either ended before, or will find the folder and remove it),
        and a session started while an erasure ran is removed again once its tombstone is
        seen (it is in place before any folder is removed)."""
        folder = self.study.sessions_dir / participant
        with study_lock(self.study.path):
            when = self.erased_on(participant)
            if when is not None:
                raise Erased(when)
            folder.mkdir(exist_ok=True)
        with self._lock_for(participant), study_lock(folder):
            existing = self.open_session(participant, fresh=True)
            if existing is not None:  # two tabs agreeing at once start one session
                return existing
            arm, loaded, spec = self._arm_session(participant)
            recorder = start_session(
                loaded,
                participant,
                self.study.sessions_dir,
                spec=spec,
                cache_dir=self.study.cache_dir,
                consent=consent,
                entry=entry,
                start=current_prior(self.study.path),
            )
            shown = None if arm is None else self.arm_languages.get(arm)
            try:
                if consent is None or shown is not None or consent.language != language:
                    recorder.note(f"language {shown or language}")
                if arm is not None:  # the session says its arm too
                    recorder.note(f"arm {arm}")
                self._keep(participant, recorder)
            finally:
                recorder.close()
            self._listing(participant, fresh=True)  # the new file listed
        when = self.erased_on(participant)
        if when is not None:  # erased while it was being started
            recorder.path.unlink(missing_ok=True)
            with contextlib.suppress(OSError):
                folder.rmdir()
            self.forget(participant)
            raise Erased(when)
        return recorder.path

    def run(self, participant: str, path: Path, work: Callable[[Recorder], T]) -> T:
        """Do ``work`` with the participant's recorder on ``path``, the file locked for the
        time it takes; the engine is reused when the file is as this process left it."""
        with self._lock_for(participant):
            with self._guard:
                held = self._held.get(participant)
            recorder: Recorder | None = None
            if held is not None and held.path == path:
                recorder = Recorder.attach(
                    path, held.engine, held.header, held.chain, wait=LOCK_WAIT
                )
                recorder.marks = held.marks
                if recorder.size != held.size:  # another process wrote in between
                    recorder.close()
                    recorder = None
            if recorder is None:
                self.rebuilt += 1
                recorder = resume_session(path, cache_dir=self.study.cache_dir, wait=LOCK_WAIT)
            try:
                out = work(recorder)
                self._keep(participant, recorder)
            finally:
                recorder.close()
            return out

    def look(self, participant: str, path: Path, see: Callable[[Engine], T]) -> T:
        """What ``see`` makes of the participant's engine (:meth:`look_marked`)."""
        return self.look_marked(participant, path, lambda engine, _marks: see(engine))

    def look_marked(self, participant: str, path: Path, see: Callable[[Engine, Marks], T]) -> T:
        """What ``see`` makes of the participant's engine on ``path``, with no exclusive
        lock taken: the engine kept in memory when the file is as this process left it
        (one ``stat``), else the file read again under its shared lock (waiting for a
        writer at most :data:`LOCK_WAIT`, then
        :class:`~tradeoff.record.recorder.SessionLocked`). A finished session raises
        :class:`~tradeoff.errors.InputError`, as opening it to write would."""
        with self._lock_for(participant):
            with self._guard:
                held = self._held.get(participant)
            if held is not None and held.path == path and _size(path) == held.size:
                with self._guard:
                    if participant in self._held:
                        self._held.move_to_end(participant)
                return see(held.engine, held.marks)
            self.rebuilt += 1
            log, size = Recorder.read_between_writes(path, wait=LOCK_WAIT)
            if log.finished:
                raise InputError.single(
                    path, "", "this session is already finished.", "start a new session."
                )
            population = cached_population(log.header.scenario, self.study.cache_dir)
            engine = replay(log, population=population)
            marks = Marks.of(log)
            if not log.truncated_tail:  # a writer must first end the cut line: not kept
                self._hold(participant, Held(path, engine, log.header, log.chain, size, marks))
            return see(engine, marks)

    def _keep(self, participant: str, recorder: Recorder) -> None:
        self._hold(
            participant,
            Held(
                recorder.path,
                recorder.engine,
                recorder.header,
                recorder.chain,
                recorder.size,
                recorder.marks,
            ),
        )

    def _hold(self, participant: str, held: Held) -> None:
        with self._guard:
            self._held[participant] = held
            self._held.move_to_end(participant)
            while len(self._held) > self.capacity:
                self._held.popitem(last=False)

    def forget(self, participant: str) -> None:
        """Drop what this process keeps of ``participant`` (their engine and the listing of
        their folder): someone erased on request (:mod:`tradeoff.web.erased`)."""
        with self._guard:
            self._held.pop(participant, None)
            self._listings.pop(participant, None)

    def __len__(self) -> int:
        return len(self._held)


def _size(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return -1
