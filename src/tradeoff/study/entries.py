"""Who came in by link: ``entries.jsonl`` in a study's folder, one JSON line per event.

The events (each with its time, ``at``):

* ``enrolled``: a panel id let in (its participant id, the panel id, its quota group and
  the link's kept parameters), once per person (again only after a decline);
* ``declined``: a panel participant declined consent (no session was opened); with
  ``"via": "code"``, a participant with an access code did (:mod:`tradeoff.study.declines`);
* ``started``: a panel participant took up their place (consented, or began where the
  study asks no consent), written under the lock before their session is made: from then
  on their place is theirs, however long they take. One who is let in and does not start
  within the panel's :attr:`~tradeoff.study.panel.Panel.consent_minutes` gives up the
  place (it counts for nobody; opening the link again takes a place anew if there is room);
* ``screened``: a panel id turned away, with the reason
  (:data:`~tradeoff.study.panel.SCREEN_REASONS`);
* ``pilot``: a pilot participant began (the pilot link, :mod:`tradeoff.study.keys`);
* ``pilot-removed``: a pilot participant's sessions were moved aside
  (``study remove-pilots``);
* ``assigned``: a participant (of any way in) given an arm of a study with arms, once
  (:mod:`tradeoff.study.arms`).

A completed panel session says so in its own chain (a ``note`` before its result). The
file is appended to under the study folder's ``flock`` (:func:`study_lock`), which also
makes the cap and the quotas count right when many server processes let people in at once
(:func:`admit`). It is read to a bound (:data:`ENTRIES_LIMIT`), and a server reads only
what was appended since it last looked (:class:`EntryLog`), so a request's cost does not
grow with the study's history. Screen-outs are written once per panel id that a process
has seen, and not at all past :data:`SCREENED_STOP` bytes (a flood of made-up ids fills
no disk): the screen-outs counted are the distinct panel ids written. One address brings
at most :data:`NEW_ENTRIES_PER_SOURCE` new panel ids in :data:`NEW_ENTRY_WINDOW` seconds,
counted for the whole study from :data:`SOURCES_FILE` (not per server process). A line cut
short by a crash is skipped and named (:mod:`tradeoff.study.tail`).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tradeoff.net import clean_source
from tradeoff.record.records import valid_participant
from tradeoff.study.files import open_regular, read_bounded
from tradeoff.study.panel import Panel
from tradeoff.study.tail import Tail, append_line, complete_lines, open_for_append

ENTRIES_FILE = "entries.jsonl"
#: entries.jsonl is read only up to this size (10,000 entries with full parameters take
#: about 40 MB; without, about 2 MB).
ENTRIES_LIMIT = 64_000_000
#: A server reads at most this many bytes of new lines at one look.
ENTRIES_READ = 1 << 16
#: Screen-outs are no longer written once the file is this large.
SCREENED_STOP = 8_000_000
#: A participant is enrolled again after a decline at most this many times.
REENROL_LIMIT = 10
#: At most this many pilot participants are made (each pilot link's visit makes one).
PILOT_LIMIT = 1000
#: Panel ids of screen-outs a process remembers, so each is written once.
SCREENED_MEMORY = 100_000
#: Where each new panel entry came from: ``<unix time> <address>`` lines (as
#: ``attempts.log`` has them), appended under the study's lock, so that every server
#: process on the study counts the same new entries from one address. Never exported.
SOURCES_FILE = "entry-sources.log"
#: One address may bring at most this many new panel entries per
#: :data:`NEW_ENTRY_WINDOW` seconds, in the whole study (every server process counts them
#: from :data:`SOURCES_FILE`; a returning panel id is never held back), so one client
#: cannot fill an open study's cap with made-up ids at once.
NEW_ENTRIES_PER_SOURCE = 20
NEW_ENTRY_WINDOW = 600.0
_SOURCE_LINE = re.compile(rb"([0-9]{1,12}\.[0-9]{3}) ([A-Za-z0-9:.-]{1,64})")


@contextlib.contextmanager
def study_lock(folder: Path) -> Iterator[None]:
    """The exclusive ``flock`` of a study's folder for the ``with`` block (the same lock
    ``study withdraw`` takes)."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


@dataclass
class Entered:
    """A participant who came in by link."""

    participant: str
    panel_id: str | None
    group: str | None
    params: dict[str, str]
    pilot: bool
    at: str
    declined: bool = False
    removed: bool = False
    lines: int = 1
    #: Whether they took up their place (the ``started`` event).
    started: bool = False
    #: Whether an earlier entry of theirs declined (they opened the link again since).
    declined_before: bool = False

    @property
    def ever_declined(self) -> bool:
        """Whether they declined consent, now or on an earlier entry: without a session
        they stay "declined consent" in status and the export."""
        return self.declined or self.declined_before

    def age(self, now: float) -> float:
        """Seconds since they were let in (0 when the time cannot be read: the place
        is held)."""
        try:
            return max(0.0, now - datetime.fromisoformat(self.at).timestamp())
        except (ValueError, OverflowError):
            return 0.0


@dataclass
class EntryState:
    """What ``entries.jsonl`` says so far."""

    people: dict[str, Entered] = field(default_factory=dict)
    declines: int = 0
    screened: Counter[str] = field(default_factory=Counter)
    screened_ids: set[str] = field(default_factory=set)
    #: The numbers of the lines that are not events of this file (a line cut short by a
    #: crash, a line edited by hand): each is skipped, and named by :meth:`problems`.
    bad_lines: list[int] = field(default_factory=list)
    #: The number of the last line read.
    lines: int = 0
    #: Participant → arm, of every ``assigned`` line (:mod:`tradeoff.study.arms`), and
    #: how many such lines were read.
    arms: dict[str, str] = field(default_factory=dict)
    assignments: int = 0
    #: Participants with an access code who declined consent (``declined`` with ``via``).
    code_declined: set[str] = field(default_factory=set)

    def add(self, record: Any, number: int | None = None) -> None:
        """Take in the event ``record``, line ``number`` of the file (the next one)."""
        self.lines = self.lines + 1 if number is None else number
        if not isinstance(record, dict) or not isinstance(record.get("event"), str):
            self.bad_lines.append(self.lines)
            return
        event, pid, at = record["event"], record.get("participant"), str(record.get("at", ""))
        if event == "screened":
            reason = str(record.get("reason", ""))[:64]
            self.screened[reason] += 1
            if isinstance(record.get("panel_id"), str):
                self.screened_ids.add(record["panel_id"])
            return
        if not isinstance(pid, str):
            self.bad_lines.append(self.lines)
            return
        known = self.people.get(pid)
        if event == "assigned" and isinstance(record.get("arm"), str):
            self.assignments += 1
            self.arms.setdefault(pid, record["arm"])
        elif event in ("enrolled", "pilot"):
            params = record.get("params", {})
            params = {str(k): str(v) for k, v in params.items()} if isinstance(params, dict) else {}
            panel_id = record.get("panel_id")
            group = record.get("group")
            self.people[pid] = Entered(
                pid,
                panel_id if isinstance(panel_id, str) else None,
                group if isinstance(group, str) else None,
                params,
                event == "pilot",
                at,
                lines=1 + (known.lines if known else 0),
                declined_before=known is not None and known.ever_declined,
            )
        elif event == "declined" and known is None and record.get("via") == "code":
            self.code_declined.add(pid)
        elif event == "declined" and known is not None:
            known.declined = True
            self.declines += 1
        elif event == "started" and known is not None:
            known.started = True
        elif event == "pilot-removed" and known is not None:
            known.removed = True
        else:
            self.bad_lines.append(self.lines)

    def problems(self, path: Path) -> list[str]:
        """Each line skipped, named: ``…/entries.jsonl: line 7: …`` (at most 20, then how
        many more)."""
        out = [
            f"{path}: line {n}: is not an event of this file (cut short by a crash, or "
            "edited); it is skipped and every other line is read. Leave it as it is, or "
            "restore the line from a backup if it was edited."
            for n in self.bad_lines[:20]
        ]
        if len(self.bad_lines) > 20:
            out.append(f"{path}: {len(self.bad_lines) - 20} more such lines.")
        return out

    def active(
        self,
        panel: Panel | None = None,
        gone: frozenset[str] = frozenset(),
        now: float | None = None,
        started: Callable[[str], bool] | None = None,
    ) -> list[Entered]:
        """Panel participants holding a place: let in, not declined, not withdrawn
        (``gone``), and (in open enrolment) started or let in less than the ``panel``'s
        :attr:`~tradeoff.study.panel.Panel.consent_minutes` before ``now``; pilots apart.
        ``started`` says whether someone has a session all the same (a study begun before
        ``started`` events were written); a ``True`` is remembered.

        >>> from tradeoff.study.panel import Panel
        >>> s = EntryState()
        >>> s.add({"event": "enrolled", "participant": "a", "at": "2026-01-01T10:00:00+00:00"})
        >>> s.add({"event": "enrolled", "participant": "b", "at": "2026-01-01T10:00:00+00:00"})
        >>> s.add({"event": "started", "participant": "b"})
        >>> at = datetime(2026, 1, 1, 11, 1, tzinfo=UTC).timestamp()  # 61 minutes on
        >>> [e.participant for e in s.active(Panel("PID", (), b"k" * 16), frozenset(), at)]
        ['b']
        """
        limit = None
        if panel is not None and not panel.allow_list and now is not None:
            limit = panel.consent_minutes * 60.0
        out = []
        for e in self.people.values():
            if e.pilot or e.declined or e.removed or e.participant in gone:
                continue
            if not e.started and limit is not None and e.age(now or 0.0) >= limit:
                if started is None or not started(e.participant):
                    continue
                e.started = True
            out.append(e)
        return out

    def summary(
        self,
        panel: Panel | None,
        gone: frozenset[str] = frozenset(),
        started: Callable[[str], bool] | None = None,
    ) -> dict[str, Any]:
        """The counts ``study status`` and the coordinator's page show (the places held as
        :func:`admit` counts them now, without ``gone``, those who withdrew; as the rows,
        "declined" only those who have not taken part since, the others apart)."""
        active = self.active(panel, gone, time.time(), started)
        groups = Counter(e.group for e in active if e.group is not None)
        declined = [e for e in self.people.values() if e.ever_declined and not e.pilot]
        took_part = sum(e.started or bool(started and started(e.participant)) for e in declined)
        out: dict[str, Any] = {
            "entered": sum(not e.pilot for e in self.people.values()),
            "holding_a_place": len(active),
            "declined": len(declined) - took_part,
            "declined_then_took_part": took_part,
            "screened": dict(sorted(self.screened.items())),
            "screened_total": sum(self.screened.values()),
        }
        if panel is not None:
            out["cap"] = panel.cap
            out["allow_list"] = panel.allow_list
            out["quotas"] = {g: {"filled": groups[g], "size": n} for g, n in panel.quotas.items()}
        return out


def entries_path(folder: Path) -> Path:
    return folder / ENTRIES_FILE


def _feed(state: EntryState, lines: list[bytes], first: int) -> None:
    """Take in ``lines``, the file's lines from number ``first`` on (blank ones skipped)."""
    for number, raw in enumerate(lines, first):
        state.lines = number
        if not raw.strip():
            continue
        try:
            record = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            state.bad_lines.append(number)
            continue
        state.add(record, number)


def read_entries(folder: Path) -> EntryState:
    """What the study's ``entries.jsonl`` says (absent: nothing), read to
    :data:`ENTRIES_LIMIT` bytes; a file that is not a regular one reads as empty."""
    state = EntryState()
    try:
        fd = open_regular(entries_path(folder), os.O_RDONLY)
    except OSError:
        return state
    try:
        data = read_bounded(fd, ENTRIES_LIMIT)
    finally:
        os.close(fd)
    _feed(state, complete_lines(data), 1)
    return state


class EntryLog:
    """A server process's view of ``entries.jsonl``: only what was appended since the last
    look is read (a ``stat`` when nothing was), by the study's one reader of appended
    files (:class:`tradeoff.study.tail.Tail`)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.path = entries_path(folder)
        self.state = EntryState()
        self._tail = Tail(self.path, ENTRIES_READ, ENTRIES_LIMIT)
        self._lock = threading.Lock()
        self._sources = Tail(folder / SOURCES_FILE, ENTRIES_READ, ENTRIES_LIMIT)
        self._recent: dict[bytes, list[float]] = {}

    def refresh(self) -> EntryState:
        """The state with every complete line appended so far (up to the file's bound)."""
        with self._lock:
            for piece in self._tail.pieces(ENTRIES_LIMIT // ENTRIES_READ + 1):
                if piece.fresh:
                    self.state = EntryState()
                _feed(self.state, piece.lines, piece.first)
            return self.state

    @property
    def size(self) -> int:
        return self._tail.offset

    def recent_from(self, source: str, now: float) -> int:
        """How many new entries ``source`` brought in the last :data:`NEW_ENTRY_WINDOW`
        seconds, by every server process on the study (the caller holds
        :func:`study_lock`; only lines appended since the last look are read)."""
        since = now - NEW_ENTRY_WINDOW
        for piece in self._sources.pieces(ENTRIES_LIMIT // ENTRIES_READ + 1):
            if piece.fresh:
                self._recent = {}
            for line in piece.lines:
                found = _SOURCE_LINE.fullmatch(line)
                if found is not None and float(found[1]) > since:
                    self._recent.setdefault(found[2], []).append(float(found[1]))
            if len(self._recent) > SCREENED_MEMORY:  # forget what is past the window
                self._recent = {
                    who: kept
                    for who, times in self._recent.items()
                    if (kept := [t for t in times if t > since])
                }
        times = [t for t in self._recent.get(clean_source(source).encode(), []) if t > since]
        return len(times)

    def note_source(self, source: str, now: float) -> None:
        """Write that ``source`` brought a new entry at ``now`` (the caller holds
        :func:`study_lock`)."""
        line = f"{now:.3f} {clean_source(source)}\n".encode("ascii")
        fd = open_for_append(self.folder / SOURCES_FILE, 0o600)
        try:
            append_line(fd, line)
            os.fsync(fd)
        finally:
            os.close(fd)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def append_entry(folder: Path, record: Mapping[str, Any]) -> None:
    """Append one event (the caller holds :func:`study_lock`), synced; on a line of its own
    even after a writer cut short (:func:`tradeoff.study.tail.append_line`)."""
    line = (json.dumps(dict(record), sort_keys=True, ensure_ascii=True) + "\n").encode("ascii")
    fd = open_for_append(entries_path(folder), 0o644)
    try:
        append_line(fd, line)
        os.fsync(fd)
    finally:
        os.close(fd)


@dataclass(frozen=True)
class Admission:
    """The outcome of a panel link: the participant let in, or the reason they were not."""

    participant: str | None
    reason: str | None = None
    #: Whether they came back (already let in before).
    returning: bool = False


def session_on_disk(folder: Path) -> Callable[[str], bool]:
    """Whether a participant has a session file in the study ``folder`` (a place taken up
    before ``started`` events were written counts as started)."""

    def found(participant: str) -> bool:
        try:
            return any((folder / "sessions" / participant).glob("*.jsonl"))
        except OSError:
            return False

    return found


def _no_room(
    panel: Panel,
    state: EntryState,
    group: str | None,
    gone: frozenset[str],
    now: float,
    started: Callable[[str], bool],
    leaving: str | None = None,
) -> str | None:
    """Why open enrolment has no place for one more person of quota ``group`` now (``None``:
    there is room); ``leaving`` is not counted (the person asking, whose own place lapsed)."""
    active = [e for e in state.active(panel, gone, now, started) if e.participant != leaving]
    if panel.quota_field is not None:
        if group not in panel.quotas:
            return "quota group unknown"
        if sum(e.group == group for e in active) >= panel.quotas[group]:
            return "quota full"
    if panel.cap is not None and len(active) >= panel.cap:
        return "study full"
    return None


def admit(
    panel: Panel,
    log: EntryLog,
    panel_id: str,
    params: Mapping[str, str],
    allowed: frozenset[str] = frozenset(),
    source: str | None = None,
    most_from_source: int | None = None,
    gone: frozenset[str] = frozenset(),
) -> Admission:
    """Let ``panel_id`` in or screen it out, under the study's lock so every server
    process counts the same cap and quotas: a panel id already let in comes back to its
    participant (never a second one); an allow-list lets in only ``allowed`` participant
    ids; open enrolment lets in while the cap and the person's quota group have room.
    A place counts while its person holds it (:meth:`EntryState.active`): not once they
    declined, withdrew (``gone``) or were let in :attr:`Panel.consent_minutes` ago
    without starting; such a person opening the link again is let in anew only if there
    is room. Every decision is written to ``entries.jsonl`` (:func:`append_entry`) before
    it is acted on. A new panel id from a ``source`` address that brought
    ``most_from_source`` (:data:`NEW_ENTRIES_PER_SOURCE` unless given) new entries in the
    last :data:`NEW_ENTRY_WINDOW` seconds (in any server process:
    :meth:`EntryLog.recent_from`) is refused with the reason ``too many from one
    address``, and nothing is written; a returning one is let in."""
    pid = panel.participant_of(panel_id)
    now = time.time()
    started = session_on_disk(log.folder)
    with study_lock(log.folder):
        state = log.refresh()
        known = state.people.get(pid)
        if known is not None and not known.declined and not known.removed:
            fresh = known.age(now) < panel.consent_minutes * 60.0
            if panel.allow_list or pid in gone or known.started or fresh or started(pid):
                return Admission(pid, returning=True)
        most = NEW_ENTRIES_PER_SOURCE if most_from_source is None else most_from_source
        if known is None and source is not None and log.recent_from(source, now) >= most:
            return Admission(None, "too many from one address")
        reason = None
        group = None if panel.quota_field is None else params.get(panel.quota_field)
        if panel.allow_list:
            if pid not in allowed:
                reason = "not on the list"
        else:
            reason = _no_room(panel, state, group, gone, now, started, pid)
        if reason is None and known is not None and known.lines >= REENROL_LIMIT:
            reason = "study full"
        if reason is not None:
            if panel_id not in state.screened_ids and log.size < SCREENED_STOP:
                append_entry(
                    log.folder,
                    {"event": "screened", "panel_id": panel_id, "reason": reason, "at": _now()},
                )
            if len(state.screened_ids) < SCREENED_MEMORY:
                state.screened_ids.add(panel_id)
            log.refresh()
            return Admission(None, reason)
        record: dict[str, Any] = {
            "event": "enrolled",
            "participant": pid,
            "panel_id": panel_id,
            "params": dict(params),
            "at": _now(),
        }
        if group is not None:
            record["group"] = group
        append_entry(log.folder, record)
        if source is not None and known is None:
            log.note_source(source, now)
        log.refresh()
        return Admission(pid, returning=known is not None)


def take_place(
    panel: Panel, log: EntryLog, participant: str, gone: frozenset[str] = frozenset()
) -> str | None:
    """``participant``, let in by the panel's link, takes up their place before their
    session is made (consent given, or the first page where no consent is asked): a
    ``started`` event is written under the study's lock. One let in more than
    :attr:`Panel.consent_minutes` ago, whose place lapsed, takes one anew only if the cap
    and their quota group have room; else the reason they cannot (``study full``, ``quota
    full``), and nothing is written. ``None``: the place is theirs."""
    now = time.time()
    started = session_on_disk(log.folder)
    with study_lock(log.folder):
        state = log.refresh()
        known = state.people.get(participant)
        if known is None or known.pilot or known.started:
            return None
        if not panel.allow_list and known.age(now) >= panel.consent_minutes * 60.0:
            reason = _no_room(panel, state, known.group, gone, now, started, participant)
            if reason is not None:
                return reason
        append_entry(log.folder, {"event": "started", "participant": participant, "at": _now()})
        log.refresh()
        return None


def record_decline(log: EntryLog, participant: str) -> None:
    """A panel participant declined consent: their place is given up (written once)."""
    with study_lock(log.folder):
        state = log.refresh()
        known = state.people.get(participant)
        if known is None or known.declined:
            return
        append_entry(
            log.folder,
            {
                "event": "declined",
                "participant": participant,
                "panel_id": known.panel_id,
                "at": _now(),
            },
        )
        log.refresh()


def new_pilot(log: EntryLog, participant: str) -> bool:
    """Record a new pilot participant; ``False`` when :data:`PILOT_LIMIT` are made."""
    with study_lock(log.folder):
        state = log.refresh()
        if sum(e.pilot for e in state.people.values()) >= PILOT_LIMIT:
            return False
        append_entry(log.folder, {"event": "pilot", "participant": participant, "at": _now()})
        log.refresh()
        return True


def remove_pilots(folder: Path, pilots: frozenset[str] | set[str]) -> tuple[Path, list[str]]:
    """Move every pilot participant's session folder to ``pilot-removed/<time>/`` in the
    study (nothing is deleted) and record each as ``pilot-removed``, under the study's
    lock; returns the folder they were moved to and who was moved, in order."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    dest = folder / "pilot-removed" / stamp
    moved: list[str] = []
    with study_lock(folder):
        for pid in sorted(pilots):
            source = folder / "sessions" / pid
            if source.is_dir() and not source.is_symlink():
                dest.mkdir(parents=True, exist_ok=True)
                source.rename(dest / pid)
            append_entry(
                folder,
                {
                    "event": "pilot-removed",
                    "participant": pid,
                    "moved_to": str(dest.relative_to(folder)),
                    "at": _now(),
                },
            )
            moved.append(pid)
    return dest, moved


def joined(
    participants: Mapping[str, str], panel_ids: Mapping[str, str], state: EntryState
) -> tuple[dict[str, str], dict[str, str], frozenset[str]]:
    """A study's participants (id → code hash) and panel ids (id → panel id) with everyone
    who came in by link added (without an access code: an empty hash), and the pilots;
    pilot participants whose sessions were moved aside (``study remove-pilots``) are left
    out."""
    people = dict(participants)
    ids = dict(panel_ids)
    for pid in ids:
        people.setdefault(pid, "")
    pilots = set()
    for pid, entered in state.people.items():
        if entered.removed or not valid_participant(pid):
            continue
        people.setdefault(pid, "")
        if entered.pilot:
            pilots.add(pid)
        elif entered.panel_id is not None:
            ids[pid] = entered.panel_id
    return people, ids, frozenset(pilots)
