"""The coordinator's view of a study: each participant's state (not started, unfinished
after N answers, complete, withdrawn), their newest complete sessions, who a report leaves
out and why."""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tradeoff.study.counted import replay_unknown, session_facts
from tradeoff.study.folder import Study
from tradeoff.study.withdrawals import read_withdrawals, withdrawn


@dataclass(frozen=True)
class ParticipantStatus:
    participant: str
    sessions: int
    answers: int
    complete: bool
    last_activity: str | None
    flagged: bool
    note: str = ""
    withdrawn: str | None = None
    #: Whether a session of theirs opens with their consent (the study web page's).
    consented: bool = False

    @property
    def state(self) -> str:
        """``not started``, ``consented, no answer yet``, ``unfinished after N answers``,
        ``complete``, ``withdrawn …`` or ``unreadable``.

        >>> ParticipantStatus("p01", 1, 4, False, None, False).state
        'unfinished after 4 answers'
        >>> ParticipantStatus("p01", 1, 0, False, None, False, consented=True).state
        'consented, no answer yet'
        """
        if self.withdrawn is not None:
            return f"withdrawn {self.withdrawn}"
        if self.complete:
            return "complete"
        if self.sessions == 0:
            return "not started"
        if self.note.startswith("unreadable"):
            return "unreadable"
        if self.answers == 0 and self.consented:
            return "consented, no answer yet"
        return f"unfinished after {self.answers} answers"

    def to_dict(self) -> dict[str, Any]:
        return {
            "participant": self.participant,
            "state": self.state,
            "sessions": self.sessions,
            "answers": self.answers,
            "complete": self.complete,
            "consented": self.consented,
            "last_activity": self.last_activity,
            "consistency_flagged": self.flagged,
            "note": self.note,
        }


@dataclass(frozen=True)
class StudyStatus:
    study: Study
    rows: tuple[ParticipantStatus, ...]
    #: What is wrong with the study's shared files (``withdrawals.jsonl``), each naming the
    #: file, the line and the fix.
    problems: tuple[str, ...] = ()

    @property
    def started(self) -> int:
        return sum(r.sessions > 0 for r in self.rows)

    @property
    def complete(self) -> int:
        return sum(r.complete for r in self.rows)

    def complete_sessions(self) -> list[Path]:
        """The newest complete session of every participant who has one."""
        out = []
        gone = withdrawn(self.study)
        for pid in self.study.participants:
            if pid in gone:
                continue
            done = [p for p, f in session_facts(self.study, pid)[0].items() if f.complete]
            if done:
                out.append(max(done, key=_mtime))
        return out

    def median_response_s(self) -> float | None:
        """Median seconds per answer over every recorded answer of every session."""
        times = sorted(
            t
            for pid in self.study.participants
            for f in session_facts(self.study, pid)[0].values()
            for t in f.response_ms
        )
        if not times:
            return None
        mid = len(times) // 2
        ms = times[mid] if len(times) % 2 else (times[mid - 1] + times[mid]) / 2
        return round(ms / 1000, 1)

    def missing(self, exclude_inconsistent: bool = False) -> list[tuple[str, str]]:
        """Who a report over the complete sessions leaves out, and why (in study order)."""
        out = []
        for r in self.rows:
            if not r.complete or r.withdrawn is not None:
                out.append((r.participant, r.state))
            elif exclude_inconsistent and r.flagged:
                out.append((r.participant, "flagged as inconsistent and excluded"))
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "study": str(self.study.path),
            "scenario_sha256": self.study.scenario_sha256,
            "participants": len(self.rows),
            "started": self.started,
            "consented": sum(r.consented for r in self.rows),
            "withdrawn": sum(r.withdrawn is not None for r in self.rows),
            "median_response_s": self.median_response_s(),
            "complete": self.complete,
            "flagged": sum(r.flagged for r in self.rows),
            "problems": list(self.problems),
            "rows": [r.to_dict() for r in self.rows],
        }


def _mtime(path: Path) -> float:
    """When a file was last changed (0 when it cannot be asked)."""
    try:
        return os.lstat(path).st_mtime
    except OSError:
        return 0.0


def study_status(study: Study) -> StudyStatus:
    """Per participant: sessions, answers of the newest, complete or not (any session),
    last activity, the consistency flag; every file is read, and a session that cannot be
    read, belongs to another participant or scenario, or carries warnings is named with
    them (file and line), never hidden."""
    rows = []
    withdrawals = read_withdrawals(study)
    gone = withdrawals.times
    replay_unknown(study, study.participants)
    for pid in study.participants:
        facts, others = session_facts(study, pid)
        files = list(facts)
        if not files:
            note = "; ".join(others)
            rows.append(ParticipantStatus(pid, 0, 0, False, None, False, note, gone.get(pid)))
            continue
        newest = max(files, key=_mtime)
        when = datetime.fromtimestamp(_mtime(newest), UTC).isoformat(timespec="seconds")
        complete = any(f.complete for f in facts.values())
        notes = [f.problem for f in facts.values() if f.problem] + others
        notes += [w for f in facts.values() for w in f.warnings]
        rows.append(
            ParticipantStatus(
                pid,
                len(files),
                facts[newest].answers,
                complete,
                when,
                facts[newest].flagged,
                "; ".join(notes),
                gone.get(pid),
                any(f.consented for f in facts.values()),
            )
        )
    return StudyStatus(study, tuple(rows), tuple(withdrawals.messages()))
