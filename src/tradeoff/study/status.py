"""The coordinator's view of a study: each participant's state (not started, declined
consent, unfinished after N answers, complete, withdrawn, erased), their newest complete
sessions, who a report leaves out and why; where people stop, the time per question,
long pauses, who came in by a panel's link and who was turned away; pilot participants
apart, never counted. An erased participant (``study erase``) has a row of their own,
after the study's others, that says so and nothing more (their tombstone,
:mod:`tradeoff.study.erasures`).

``study status --json`` and the coordinator's web page (:mod:`tradeoff.web.coordinator`)
both show :meth:`StudyStatus.to_dict`. :func:`counted_sessions` is who a report counts
(each participant's newest complete session) and who it leaves out: ``study report``
(:func:`tradeoff.study.report.study_sessions`) and the export's summary
(:mod:`tradeoff.study.export`) both count them."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tradeoff.errors import InputError
from tradeoff.record.log import read_session
from tradeoff.study.arms import arms_status
from tradeoff.study.checks import INATTENTIVE, CheckSummary
from tradeoff.study.counted import read_once, replay_unknown, session_bytes, session_facts
from tradeoff.study.declines import declined_consent
from tradeoff.study.entries import entries_path, read_entries, session_on_disk
from tradeoff.study.erasures import read_erasures
from tradeoff.study.folder import Study
from tradeoff.study.withdrawals import certain_withdrawals, read_withdrawals, withdrawn
from tradeoff.text import count

#: An answer that took longer than this (seconds) is a long pause.
LONG_PAUSE_S = 300.0
#: The coordinator's view lists this many participants of the latest activity.
RECENT = 10


def median(values: list[float]) -> float | None:
    """The median (``None`` of nothing).

    >>> median([3.0, 1.0, 2.0]), median([1.0, 2.0]), median([])
    (2.0, 1.5, None)
    """
    if not values:
        return None
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


@dataclass(frozen=True)
class ParticipantStatus:
    participant: str
    sessions: int
    answers: int
    complete: bool
    #: The newest session file's time; without a session, when they came in by link or
    #: withdrew, the later of the two (``None``: nothing to say when).
    last_activity: str | None
    flagged: bool
    note: str = ""
    withdrawn: str | None = None
    #: Whether a session of theirs opens with their consent (the study web page's).
    consented: bool = False
    #: Response times of the newest session's answers that count, by question
    #: (milliseconds; ``None`` where none was recorded).
    times_ms: tuple[float | None, ...] = ()
    #: Whether they came in by the pilot link.
    pilot: bool = False
    #: Their id on the panel, when they came in by a panel's link.
    panel_id: str | None = None
    #: Whether they declined consent (by a panel's link or with an access code:
    #: :mod:`tradeoff.study.declines`) and have no session.
    declined: bool = False
    #: When they were erased on request (``study erase``): nothing of theirs is left.
    erased: str | None = None
    #: Attention checks shown and failed over their sessions (:mod:`tradeoff.study.checks`).
    checks_shown: int = 0
    checks_failed: int = 0
    #: The arm they were assigned to (a study with arms: :mod:`tradeoff.study.arms`).
    arm: str | None = None

    @property
    def longest_s(self) -> float | None:
        """The longest time they took over an answer (seconds)."""
        times = [t for t in self.times_ms if t is not None]
        return max(times) / 1000 if times else None

    @property
    def state(self) -> str:
        """``not started``, ``declined consent`` (any way in), ``consented, no answer
        yet``, ``unfinished after N answers``, ``complete``, ``withdrawn …``,
        ``unreadable`` or ``erased``.

        >>> ParticipantStatus("p01", 1, 4, False, None, False).state
        'unfinished after 4 answers'
        >>> ParticipantStatus("p01", 1, 0, False, None, False, consented=True).state
        'consented, no answer yet'
        >>> ParticipantStatus("p01", 0, 0, False, None, False, erased="2026-11-27").state
        'erased'
        """
        if self.erased is not None:
            return "erased"
        if self.withdrawn is not None:
            return f"withdrawn {self.withdrawn}"
        if self.complete:
            return "complete"
        if self.sessions == 0:
            return "declined consent" if self.declined else "not started"
        if self.note.startswith("unreadable"):
            return "unreadable"
        if self.answers == 0 and self.consented:
            return "consented, no answer yet"
        return f"unfinished after {self.answers} answer{'' if self.answers == 1 else 's'}"

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
            "long_pause": (self.longest_s or 0.0) > LONG_PAUSE_S,
            "panel_id": self.panel_id,
            "note": self.note,
            "erased": self.erased,
            "checks_shown": self.checks_shown,
            "checks_failed": self.checks_failed,
            "attention": CheckSummary(self.checks_shown, self.checks_failed).state,
        } | ({} if self.arm is None else {"arm": self.arm})


def row_note(row: dict[str, Any]) -> str:
    """A status row (:meth:`ParticipantStatus.to_dict`) as the coordinator reads its note,
    in ``study status`` and its ``--watch`` table: their arm, their attention checks, their
    panel id, then what is noted of them or their state.

    A withdrawal is said whatever else is noted (the table has no column of states):

    >>> row_note(ParticipantStatus("p01", 1, 6, False, None, False, arm="joint",
    ...                            checks_shown=2, checks_failed=1).to_dict())
    'arm joint; attention checks: 1 of 2 failed; unfinished after 6 answers'
    >>> row = ParticipantStatus("p02", 1, 9, True, None, True, withdrawn="2026-11-29").to_dict()
    >>> row_note(row)
    'withdrawn 2026-11-29; inconsistent answers'
    """
    note = "inconsistent answers" if row["consistency_flagged"] else str(row["note"])
    state = str(row["state"])
    if state.startswith("withdrawn") and not note.startswith("withdrawn"):
        note = "; ".join(part for part in (state, note) if part)
    elif not row["complete"] and not note:
        note = state
    before = [
        f"arm {row['arm']}" if row.get("arm") else "",
        CheckSummary(row["checks_shown"], row["checks_failed"]).words
        if row.get("checks_shown")
        else "",
        f"panel id {row['panel_id']}" if row.get("panel_id") else "",
    ]
    return "; ".join(part for part in (*before, note) if part)


def minute(when: str | None) -> str:
    """An ISO time to the minute, as the tables show it (times are UTC).

    >>> minute("2026-11-29T10:22:33+00:00"), minute(None)
    ('2026-11-29 10:22', '—')
    """
    return "—" if not when else when[:16].replace("T", " ")


def stamp(when: str) -> str:
    """A recorded time as the tables show it: a UTC ISO time to the minute (the seconds
    are in ``study status --json`` and the export), anything else whole.

    >>> stamp("2026-11-29T10:22:33+00:00"), stamp("2026-11-29T12:22:33+02:00")
    ('2026-11-29 10:22', '2026-11-29T12:22:33+02:00')
    """
    return minute(when) if _UTC_TIME.fullmatch(when) else when


#: An ISO time in UTC, as the study's files record them.
_UTC_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(\+00:00|Z)", re.ASCII)


def table_note(row: dict[str, Any]) -> str:
    """:func:`row_note` with the time of a withdrawal or an erasure to the minute, as the
    tables of ``study status`` and its ``--watch`` view show the last activity, so that a
    withdrawn participant's note keeps to its row at 80 columns.

    >>> table_note(ParticipantStatus("p01", 1, 2, False, None, False,
    ...                              withdrawn="2026-11-29T10:22:33+00:00").to_dict())
    'withdrawn 2026-11-29 10:22'
    """
    row = dict(row)
    state, note, erased = str(row["state"]), str(row["note"]), row.get("erased")
    if state.startswith("withdrawn "):
        row["state"] = "withdrawn " + stamp(state.removeprefix("withdrawn "))
    if erased and note.endswith(f" at {erased}"):
        row["note"] = note.removesuffix(str(erased)) + stamp(str(erased))
    return row_note(row)


def totals_words(data: dict[str, Any]) -> str:
    """A study's totals (:meth:`StudyStatus.to_dict`) in words, as ``study status`` opens
    with them after the study's folder and its ``--watch`` view shows them.

    >>> data = {"participants": 3, "started": 2, "complete": 1, "flagged": 0,
    ...         "withdrawn": 1, "erased": 1, "median_response_s": 4.5}
    >>> print(totals_words(data))  # doctest: +NORMALIZE_WHITESPACE
    3 participants, 2 started, 1 complete, 0 flagged as inconsistent, 1 withdrawn,
    1 erased; median 4.5 s per answer
    """
    return (
        f"{count(data['participants'], 'participant')}, {data['started']} started, "
        + (f"{data['consented']} consented, " if data.get("consented") is not None else "")
        + f"{data['complete']} complete, {data['flagged']} flagged as inconsistent, "
        f"{data.get('withdrawn', 0)} withdrawn"
        + (f", {data['declined']} declined consent" if data.get("declined") else "")
        + (f", {data['erased']} erased" if data.get("erased") else "")
        + (
            f"; median {data['median_response_s']} s per answer"
            if data.get("median_response_s") is not None
            else ""
        )
    )


@dataclass(frozen=True)
class StudyStatus:
    study: Study
    rows: tuple[ParticipantStatus, ...]
    #: What is wrong with the study's shared files (``withdrawals.jsonl``,
    #: ``entries.jsonl``), each naming the file, the line and the fix.
    problems: tuple[str, ...] = ()
    #: The pilot participants (never in ``rows``, never counted).
    pilot_rows: tuple[ParticipantStatus, ...] = ()
    #: Who came in by a panel's link, declined, was screened out
    #: (:meth:`EntryState.summary`); ``None`` for a study without a panel.
    entries: dict[str, Any] | None = None

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
        """Median seconds per answer over the answers that count of every session (an
        undone answer left out; pilots left out)."""
        ms = median(
            [
                t
                for pid in self.study.participants
                if pid not in self.study.pilots
                for f in session_facts(self.study, pid)[0].values()
                for t in f.response_ms
                if t is not None
            ]
        )
        return None if ms is None else round(ms / 1000, 1)

    def stopped_at(self) -> dict[str, int]:
        """Where people stop: of those started and not complete (nor withdrawn), how many
        stand after each number of answers."""
        counts: dict[int, int] = {}
        for r in self.rows:
            if r.sessions and not r.complete and r.withdrawn is None:
                counts[r.answers] = counts.get(r.answers, 0) + 1
        return {str(k): counts[k] for k in sorted(counts)}

    def by_question(self) -> list[dict[str, Any]]:
        """Median seconds of the answer to the n-th question (newest session of each
        participant, its answers that count: an answer an undo took back is not a question;
        pilots and withdrawn left out), with how many answers it is over."""
        times: dict[int, list[float]] = {}
        for r in self.rows:
            if r.withdrawn is not None:
                continue
            for i, t in enumerate(r.times_ms, start=1):
                if t is not None:
                    times.setdefault(i, []).append(t)
        out = []
        for i in sorted(times):
            ms = median(times[i])
            assert ms is not None
            out.append({"question": i, "median_s": round(ms / 1000, 1), "answers": len(times[i])})
        return out

    def recent(self) -> list[dict[str, Any]]:
        """The :data:`RECENT` participants with the latest activity, latest first."""
        active = sorted(
            (r for r in self.rows if r.last_activity),
            key=lambda r: (r.last_activity or "", r.participant),
            reverse=True,
        )
        return [
            {
                "participant": r.participant,
                "panel_id": r.panel_id,
                "state": r.state,
                "last_activity": r.last_activity,
            }
            for r in active[:RECENT]
        ]

    def missing(
        self, exclude_inconsistent: bool = False, exclude_inattentive: bool = False
    ) -> list[tuple[str, str]]:
        """Who a report over the complete sessions leaves out, and why (in study order)."""
        out = []
        for r in self.rows:
            if not r.complete or r.withdrawn is not None or r.erased is not None:
                out.append((r.participant, r.state))
            elif exclude_inattentive and r.checks_failed:
                out.append((r.participant, INATTENTIVE))
            elif exclude_inconsistent and r.flagged:
                out.append((r.participant, "flagged as inconsistent and excluded"))
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "study": str(self.study.path),
            "scenario_sha256": self.study.scenario_sha256,
            "participants": len(self.rows),
            "started": self.started,
            # counted where the study asks consent (none asked: no count, not 0)
            "consented": sum(r.consented for r in self.rows)
            if self.study.consent_path is not None
            else None,
            "withdrawn": sum(r.withdrawn is not None for r in self.rows),
            # whatever the way in, without a session (a panel's count is in "panel" too)
            "declined": sum(r.state == "declined consent" for r in self.rows),
            "erased": sum(r.erased is not None for r in self.rows),
            "median_response_s": self.median_response_s(),
            "complete": self.complete,
            "flagged": sum(r.flagged for r in self.rows),
            "attention_checks": list(self.study.attention_checks),
            "contact": self.study.contact,
            "failed_checks": sum(r.checks_failed > 0 for r in self.rows),
            "long_pauses": sum((r.longest_s or 0.0) > LONG_PAUSE_S for r in self.rows),
            "long_pause_s": LONG_PAUSE_S,
            "stopped_at": self.stopped_at(),
            "by_question": self.by_question(),
            "recent": self.recent(),
            "pilots": {
                "participants": len(self.pilot_rows),
                "sessions": sum(r.sessions for r in self.pilot_rows),
                "complete": sum(r.complete for r in self.pilot_rows),
            },
            "panel": self.entries,
            "problems": list(self.problems),
            "rows": [r.to_dict() for r in self.rows],
            "pilot_rows": [r.to_dict() for r in self.pilot_rows],
        } | ({"arms": arms_status(self.study.arms, self.rows)} if self.study.arms else {})


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
    them (file and line), never hidden. Each file is read once (:func:`read_once`)."""
    with read_once():
        return _study_status(study)


def _study_status(study: Study) -> StudyStatus:
    rows = []
    entries = read_entries(study.path)
    declined = declined_consent(entries)
    withdrawals = read_withdrawals(study)
    gone = withdrawals.times
    replay_unknown(study, study.participants)
    for pid in study.participants:
        facts, others = session_facts(study, pid)
        files = list(facts)
        if not files:
            note = "; ".join(others)
            # no session: what they did last is coming in by link, or withdrawing
            entered = entries.people.get(pid)
            done = [t for t in (gone.get(pid), entered and entered.at) if t]
            rows.append(
                ParticipantStatus(
                    pid,
                    0,
                    0,
                    False,
                    max(done) if done else None,
                    False,
                    note,
                    gone.get(pid),
                    pilot=pid in study.pilots,
                    panel_id=study.panel_ids.get(pid),
                    declined=pid in declined,
                )
            )
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
                facts[newest].response_ms,
                pid in study.pilots,
                study.panel_ids.get(pid),
                checks_shown=sum(f.checks_shown for f in facts.values()),
                checks_failed=sum(f.checks_failed for f in facts.values()),
            )
        )
    tombstones = read_erasures(study.path)
    for pid, erasure in tombstones.by_participant.items():
        if pid not in study.participants:
            note = f"erased on request ({erasure.requested_by}) at {erasure.time}"
            rows.append(ParticipantStatus(pid, 0, 0, False, None, False, note, erased=erasure.time))
    problems = withdrawals.messages() + entries.problems(entries_path(study.path))
    if study.arms:
        rows = [replace(r, arm=entries.arms.get(r.participant)) for r in rows]
    return StudyStatus(
        study,
        tuple(r for r in rows if not r.pilot),
        tuple(problems + tombstones.messages()),
        tuple(r for r in rows if r.pilot),
        # a study no panel's link enters has no panel counts (its pilot link's entries
        # are counted with the pilots, and an access code's decline in the totals)
        entries.summary(study.panel, frozenset(gone), session_on_disk(study.path))
        if study.panel is not None
        else None,
    )


def is_pilot(path: Path) -> bool:
    """Whether the session file at ``path`` is a pilot (its entry record says so); a file
    that cannot be read is not (the status names it)."""
    try:
        entry = read_session(path, session_bytes(path)).entry
    except InputError:
        return False
    return entry is not None and entry.pilot


@dataclass(frozen=True)
class CountedSessions:
    """Who a report over a study counts: the participant and newest complete session of
    each who has one, and who is left out and why (both in study order)."""

    sessions: tuple[tuple[str, Path], ...]
    left_out: tuple[tuple[str, str], ...]


def counted_sessions(
    study: Study,
    *,
    exclude_inconsistent: bool = False,
    include_pilot: bool = False,
    exclude_inattentive: bool = False,
) -> CountedSessions:
    """Each participant's newest complete session (pilot sessions only with
    ``include_pilot``), and who is left out and why: not started, unfinished after N
    answers, withdrawn, only pilot sessions complete; with ``exclude_inattentive`` one who
    failed an attention check (:mod:`tradeoff.study.checks`); erased on request, after the
    others, as ``study status`` lists them. With ``exclude_inconsistent`` one flagged as
    inconsistent keeps their session and is named as left out (of the consensus).

    Raises
    ------
    InputError
        For a withdrawals file that cannot be read (it could not tell who withdrew).
    """
    with read_once():  # the status and the pilots' entries read each file once
        return _counted_sessions(
            study,
            exclude_inconsistent=exclude_inconsistent,
            include_pilot=include_pilot,
            exclude_inattentive=exclude_inattentive,
        )


def _counted_sessions(
    study: Study, *, exclude_inconsistent: bool, include_pilot: bool, exclude_inattentive: bool
) -> CountedSessions:
    gone = certain_withdrawals(study)  # refuses an unreadable withdrawals file
    status = study_status(study)
    missing = dict(status.missing(exclude_inconsistent, exclude_inattentive))
    sessions: list[tuple[str, Path]] = []
    left_out: list[tuple[str, str]] = []
    for pid in study.participants:
        if pid in gone:
            left_out.append((pid, missing.get(pid, "withdrawn")))
            continue
        if missing.get(pid) == INATTENTIVE:
            left_out.append((pid, INATTENTIVE))
            continue
        facts = session_facts(study, pid)[0]
        pilots = set() if include_pilot else {f for f in facts if is_pilot(f)}
        real = [f for f in facts if f not in pilots]
        done = [f for f in real if facts[f].complete]
        if done:
            sessions.append((pid, max(done, key=_mtime)))
            if pid in missing:  # flagged as inconsistent and excluded: in the report
                left_out.append((pid, missing[pid]))
        elif pilots and not real:
            left_out.append((pid, "a pilot: --include-pilot counts pilots"))
        elif pid in missing:
            left_out.append((pid, missing[pid]))  # as study status says it
        elif real:  # a complete pilot session besides, or a pilot counted only here
            newest = max(real, key=_mtime)
            n = facts[newest].answers
            left_out.append((pid, f"unfinished after {n} answer{'' if n == 1 else 's'}"))
        else:
            left_out.append((pid, "not started"))
    left_out += [(r.participant, r.note) for r in status.rows if r.erased is not None]
    return CountedSessions(tuple(sessions), tuple(left_out))
