"""Participants held in memory by one study web server process.

Each participant's engine is kept between requests (rebuilt from their session file when it
was evicted, or when another process wrote to the file in between); their session file is
locked only while one request writes to it, so several processes behind one proxy can
serve one study folder: one writer per participant at a time, enforced by the file's lock
(docs/architecture.md, "The study web page").
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from tradeoff.ask.scenario import LoadedScenario
from tradeoff.errors import InputError
from tradeoff.learn import Engine
from tradeoff.record.log import closed, read_session
from tradeoff.record.recorder import Recorder
from tradeoff.record.records import ConsentRecord, EntryRecord, Header
from tradeoff.study.counted import session_files
from tradeoff.study.entries import study_lock
from tradeoff.study.folder import Study
from tradeoff.study.opening import resume_session, start_session

T = TypeVar("T")

#: How long a request waits for another process to finish writing a participant's file.
LOCK_WAIT = 5.0


@dataclass
class Held:
    """A participant's engine as it stands after the file's first ``size`` bytes."""

    path: Path
    engine: Engine
    header: Header
    chain: str | None
    size: int


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
        #: How many times an engine was rebuilt from its file (evicted, or written by
        #: another process); the load benchmark reports it.
        self.rebuilt = 0

    def _lock_for(self, participant: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(participant, threading.Lock())

    def _sessions(self, participant: str) -> list[Path]:
        prefix = f"{self.loaded.scenario.id}-"
        files, _ = session_files(self.study, participant)  # the study's one list
        return [p for p in files if p.name.startswith(prefix)]

    def open_session(self, participant: str) -> Path | None:
        """The participant's newest unfinished session of the study's scenario, if any
        (each file's last line looked at, not the whole file: this is asked on every
        request; a file that cannot be resumed says so when it is opened)."""
        found = [p for p in self._sessions(participant) if not closed(p)]
        return found[-1] if found else None

    def has_finished(self, participant: str) -> bool:
        """Whether a session of theirs is complete (its closing record checked whole)."""
        for path in self._sessions(participant):
            if not closed(path):
                continue
            try:
                if read_session(path).finished:
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
        to carry it). Their session folder's lock is held meanwhile, so two tabs (even on
        two server processes) agreeing at once start one session."""
        folder = self.study.sessions_dir / participant
        folder.mkdir(exist_ok=True)
        with self._lock_for(participant), study_lock(folder):
            existing = self.open_session(participant)
            if existing is not None:  # two tabs agreeing at once start one session
                return existing
            recorder = start_session(
                self.loaded,
                participant,
                self.study.sessions_dir,
                cache_dir=self.study.cache_dir,
                consent=consent,
                entry=entry,
            )
            try:
                if consent is None:
                    recorder.note(f"language {language}")
                self._keep(participant, recorder)
            finally:
                recorder.close()
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

    def _keep(self, participant: str, recorder: Recorder) -> None:
        held = Held(
            recorder.path,
            recorder.engine,
            recorder.header,
            recorder.chain,
            recorder.size,
        )
        with self._guard:
            self._held[participant] = held
            self._held.move_to_end(participant)
            while len(self._held) > self.capacity:
                self._held.popitem(last=False)

    def __len__(self) -> int:
        return len(self._held)
