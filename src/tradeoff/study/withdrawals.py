"""Withdrawal: ``withdrawals.jsonl`` in a study's folder, one line per withdrawal (``study
withdraw``), read to a bound and added to by an atomic replace; from then on status,
export and report leave the participant's answers out."""

from __future__ import annotations

import fcntl
import json
import os
import stat
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tradeoff.errors import InputError, Problem
from tradeoff.study.counted import session_files
from tradeoff.study.files import NotRegularFile, open_regular, read_bounded, replace_atomically
from tradeoff.study.folder import Study

WITHDRAWALS_FILE = "withdrawals.jsonl"
#: withdrawals.jsonl is read only up to this size (10,000 withdrawals take about 2 MB).
WITHDRAWALS_LIMIT = 16_000_000


def withdrawals_path(study: Study) -> Path:
    """The study's withdrawal records, one JSON line each (:func:`withdraw` adds one)."""
    return study.path / WITHDRAWALS_FILE


@dataclass(frozen=True)
class Withdrawals:
    """What ``withdrawals.jsonl`` says: who withdrew and when, and every line (or the file
    as a whole) that could not be read, each with its fix."""

    path: Path
    times: dict[str, str]
    problems: tuple[Problem, ...] = ()

    def error(self) -> InputError | None:
        """The problems as one located error (``None`` when there are none)."""
        return InputError.many(self.path, self.problems) if self.problems else None

    def messages(self) -> list[str]:
        """Each problem as a line naming the file, e.g. ``…/withdrawals.jsonl: line 3: …``."""
        return [f"{self.path}: {p.render()}" for p in self.problems]


def _parse_withdrawals(
    data: bytes, participants: dict[str, str]
) -> tuple[dict[str, str], list[Problem]]:
    """Participant → time of withdrawal from the file's bytes, and a problem for every line
    that is not a withdrawal record of this study (it is skipped, never guessed at)."""
    times: dict[str, str] = {}
    problems: list[Problem] = []
    for number, raw in enumerate(data.split(b"\n"), 1):
        if not raw.strip():
            continue
        reason = ""
        try:
            record = json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            reason = f"is not UTF-8 text (byte {exc.start + 1} of the line)"
        except (ValueError, RecursionError) as exc:
            reason = f"is not a JSON record ({str(exc)[:80]})"
        else:
            if not isinstance(record, dict):
                reason = "is not a withdrawal record (not a JSON object)"
            elif not isinstance(record.get("participant"), str):
                reason = "has no participant (a string)"
            elif not isinstance(record.get("time"), str):
                reason = "has no time (a string)"
            elif record["participant"] not in participants:
                reason = f"names {record['participant'][:64]!r}, who is not in this study"
        if reason:
            problems.append(
                Problem(
                    f"line {number}",
                    f"{reason}; it withdraws nobody until it is fixed.",
                    f"restore or remove line {number}.",
                )
            )
            continue
        times.setdefault(record["participant"], record["time"])  # the first withdrawal
    return times, problems


def _withdrawals_bytes(path: Path) -> tuple[bytes, list[Problem]]:
    """The bytes of ``withdrawals.jsonl`` (empty when missing), at most
    ``WITHDRAWALS_LIMIT``, and what keeps it from being read whole."""
    try:
        fd = open_regular(path, os.O_RDONLY)
    except FileNotFoundError:
        return b"", []
    except NotRegularFile as exc:
        return b"", [
            Problem(
                "",
                f"{exc.strerror}; withdrawals are recorded only in the study's own file.",
                f"replace it with the study's own {WITHDRAWALS_FILE} (restore it from a backup).",
            )
        ]
    except OSError as exc:
        return b"", [Problem("", f"cannot be read ({exc.strerror}).", "check its permissions.")]
    try:
        data = read_bounded(fd, WITHDRAWALS_LIMIT + 1)
    finally:
        os.close(fd)
    if len(data) <= WITHDRAWALS_LIMIT:
        return data, []
    data = data[: data.rfind(b"\n", 0, WITHDRAWALS_LIMIT) + 1]
    lines = data.count(b"\n")
    return data, [
        Problem(
            f"after line {lines}",
            f"the file is larger than {WITHDRAWALS_LIMIT // 1_000_000} MB; the rest is not read.",
            "restore the file from a backup (one line per withdrawal).",
        )
    ]


def read_withdrawals(study: Study) -> Withdrawals:
    """The study's withdrawals, read to a bound (``WITHDRAWALS_LIMIT``): a line that is
    not a record, a file that is not a regular one, is a problem in the answer, never an
    exception (the web page asks this on every change of the file)."""
    path = withdrawals_path(study)
    data, problems = _withdrawals_bytes(path)
    times, bad = _parse_withdrawals(data, study.participants)
    return Withdrawals(path, times, tuple(problems + bad))


def withdrawn(study: Study) -> dict[str, str]:
    """Participant → time of withdrawal, from :func:`withdrawals_path` (absent: nobody).
    A line that cannot be read is skipped; :func:`read_withdrawals` names it."""
    return read_withdrawals(study).times


def certain_withdrawals(study: Study) -> dict[str, str]:
    """:func:`withdrawn`, for what must leave every withdrawn participant out (a report, an
    export): with a line of the file unreadable it cannot know who, so it raises that
    line's located :class:`~tradeoff.errors.InputError` instead."""
    read = read_withdrawals(study)
    problem = read.error()
    if problem is not None:
        raise problem
    return read.times


class _StudyLock:
    """The exclusive ``flock`` of a study's folder, held in a ``with`` block (two ``study
    withdraw`` at once each keep the other's record)."""

    def __init__(self, study: Study) -> None:
        self.path = study.path
        self.fd = -1

    def __enter__(self) -> None:
        self.fd = os.open(self.path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX)
        except BaseException:
            os.close(self.fd)
            raise

    def __exit__(self, *exc: object) -> None:
        os.close(self.fd)  # releases the lock


def withdraw(study: Study, participant: str, now: datetime | None = None) -> dict[str, Any]:
    """Record that ``participant`` withdrew: from then on status, export and report leave
    their answers out. Their session files are kept untouched (what the record says it
    kept).

    The file is never appended to in place: its bytes and the new line are written to a
    new file in the study, synced, and renamed over it, so a full disk leaves it as it was
    (and says so). A file with a line that is not a record, or that is not a regular file
    in the study (a symbolic link, a FIFO), is refused with its location: a record is
    never added to what cannot be read back. A participant withdrawn before is not
    recorded again: the record returned holds the first time and ``"already": True``."""
    if participant not in study.participants:
        raise InputError.single(
            study.path,
            "participant",
            f"no participant {participant!r} in this study.",
            "use an id that study status lists",
        )
    path = withdrawals_path(study)
    when = (now or datetime.now(UTC)).isoformat(timespec="seconds")
    kept = sorted(p.name for p in session_files(study, participant)[0])
    record = {"participant": participant, "time": when, "kept_session_files": kept}
    with _StudyLock(study):
        data, problems = _withdrawals_bytes(path)
        times, bad = _parse_withdrawals(data, study.participants)
        problems += bad
        if participant in times and not problems:  # once is enough: the first time stands
            return {**record, "time": times[participant], "already": True}
        if problems:
            fixed = [
                Problem(p.location, p.problem, f"{p.fix.rstrip('.')}, then withdraw again.")
                for p in problems
            ]
            raise InputError.many(path, fixed)
        if data and not data.endswith(b"\n"):
            data += b"\n"
        line = (json.dumps(record, sort_keys=True) + "\n").encode("utf-8")
        try:
            mode = stat.S_IMODE(os.stat(path, follow_symlinks=False).st_mode)
        except FileNotFoundError:
            mode = 0o644
        try:
            replace_atomically(path, data + line, mode)
        except OSError as exc:
            raise InputError.single(
                path,
                "",
                f"could not be written ({exc.strerror or exc}): the withdrawal of "
                f"{participant} was not recorded, and the file is as it was.",
                "free some space, then run study withdraw again.",
            ) from None
    return record


def closed_to(study: Study, participant: str) -> str | None:
    """Why ``participant``'s code opens no session at a terminal of the study's machine
    (``tradeoff elicit --study``), in words for them, or ``None``: they asked to be erased
    or withdrew (nothing more is recorded of them, as on the study's page), or they have
    finished (a participant takes part once).

    >>> import tempfile
    >>> from tradeoff.study.folder import Study
    >>> s = Study(Path(tempfile.mkdtemp()), "s.toml", "0" * 64, b"", {"p01": "x"}, "")
    >>> closed_to(s, "p01") is None
    True
    """
    from tradeoff.record.log import closed, iter_sessions
    from tradeoff.study.erasures import erased

    if participant in erased(study.path):
        return "Your answers were erased at your request: this code opens nothing more."
    when = withdrawn(study).get(participant)
    if when is not None:
        return (
            f"You withdrew from this study on {when[:10]}: nothing more is recorded. If "
            "that was a mistake, ask the study's coordinator."
        )
    if any(closed(path) for path in iter_sessions(study.sessions_dir, participant)):
        return "You have already taken part in this study. Thank you: nothing more is asked."
    return None
