"""Which of a study's session files count, and what each says.

A participant's session files are the regular ``*.jsonl`` files in their folder under
``sessions/`` (anything else there is named, never opened: a FIFO would block its reader);
one counts for them when its header names them and the study's scenario
(:func:`not_counted`). The coordinator's status, the export and a withdrawal all ask here.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from tradeoff.errors import InputError
from tradeoff.record.log import session_entries
from tradeoff.record.records import AnswerRecord, Header
from tradeoff.record.summary import summarise
from tradeoff.study.files import file_kind
from tradeoff.study.folder import Study


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


def not_counted(header: Header, participant: str, scenario_sha256: str) -> str | None:
    """Why a session file in ``participant``'s folder of a study does not count for them
    (its header names another participant, a file copied from another folder, or another
    scenario), or ``None`` when it does. Status, report and export all ask this."""
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
    #: Response times of its answers that recorded one (milliseconds).
    response_ms: tuple[float, ...] = ()
    consented: bool = False


#: What each session file says, by (path, modification time, size, the folder's participant,
#: the study's scenario hash): a live view refreshing every few seconds replays a file once
#: per change, not once per refresh.
_FACTS: dict[tuple[str, int, int, str, str], SessionFacts] = {}


def _facts(path: Path, participant: str, scenario_sha256: str) -> SessionFacts:
    """What a session file in ``participant``'s folder of a study says. A session whose
    header names another participant (a file copied from another folder) or another
    scenario is never counted, and says why; one without its closing ``result`` record is
    unfinished, with its answers counted (a file cut at a line boundary loses that record
    and so shows as unfinished: every record is chained to the one before, and only the
    closing one says the session was finished)."""
    try:
        st = os.lstat(path)
    except OSError as exc:
        return SessionFacts(False, 0, False, f"unreadable: {path.name}: {exc.strerror}")
    if not stat.S_ISREG(st.st_mode):
        return SessionFacts(False, 0, False, f"unreadable: {path.name} is {file_kind(st.st_mode)}")
    key = (str(path), st.st_mtime_ns, st.st_size, participant, scenario_sha256)
    cached = _FACTS.get(key)
    if cached is None:
        try:
            summary = summarise(path)
        except InputError as exc:
            cached = SessionFacts(False, 0, False, f"unreadable: {exc.message()}")
        else:
            header = summary.log.header
            warnings = tuple(summary.log.warnings)
            times = tuple(
                e.response_ms
                for e in summary.log.events
                if isinstance(e, AnswerRecord) and e.response_ms is not None
            )
            foreign = not_counted(header, participant, scenario_sha256)
            if foreign is not None:
                cached = SessionFacts(
                    False, 0, False, f"{path.name} was {foreign}: not counted", warnings
                )
            else:
                flagged = summary.consistency is not None and summary.consistency.flagged
                cached = SessionFacts(
                    summary.log.finished,
                    summary.answers,
                    flagged,
                    "",
                    warnings,
                    times,
                    summary.log.consent is not None,
                )
        if len(_FACTS) > 4096:
            _FACTS.clear()
        _FACTS[key] = cached
    return cached


def session_facts(study: Study, participant: str) -> tuple[dict[Path, SessionFacts], list[str]]:
    """What each of a participant's session files (:func:`session_files`) says, and a note
    for every other ``*.jsonl`` in their folder; each file is read once per change."""
    files, notes = session_files(study, participant)
    return {p: _facts(p, participant, study.scenario_sha256) for p in files}, notes
