"""The tombstones of erased participants: ``erasures.jsonl`` in a study's folder, one line
per erasure (``study erase``, :mod:`tradeoff.study.erase`).

A line says what was erased and no more: the participant's id, when, at whose request,
and how much was removed from which file (session files and their answers, lines of
``entries.jsonl`` and ``withdrawals.jsonl``, the allow-list's line, the access code's
hash); never an answer, a panel id or a session file's name. The lines are hash-chained as
a session file's are (:func:`tradeoff.record.records.split_chain`): each ends with
``"chain"``, the SHA-256 of the previous line's chain (of a fixed seed for the first) and
this line's JSON, so an edited, deleted, added or moved tombstone is evident
(:func:`read_erasures` names the line). The file is only ever replaced whole, with one
line more, by :mod:`tradeoff.study.erase`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tradeoff.errors import InputError, Problem
from tradeoff.record.records import split_chain, valid_participant
from tradeoff.study.files import NotRegularFile, open_regular, read_bounded
from tradeoff.study.tail import Tail

ERASURES_FILE = "erasures.jsonl"
#: erasures.jsonl is read only up to this size (10,000 erasures take about 4 MB).
ERASURES_LIMIT = 16_000_000
_SEED = b"tradeoff erasures\n"
#: Who asked for an erasure when ``--requested-by`` is not given.
DEFAULT_REQUESTER = "the participant"


def erasures_path(folder: Path) -> Path:
    """The study's tombstones (:data:`ERASURES_FILE`)."""
    return folder / ERASURES_FILE


def chain_of(previous: str | None, content: str) -> str:
    """The chain value of a tombstone line: SHA-256 of the previous line's chain (a seed
    of this file's own for the first line) and the line's JSON without its chain.

    >>> len(chain_of(None, '{"a": 1}')), chain_of(None, "{}") != chain_of("0" * 64, "{}")
    (64, True)
    """
    seed = _SEED if previous is None else previous.encode()
    return hashlib.sha256(seed + content.encode()).hexdigest()


def tombstone_line(previous: str | None, record: dict[str, Any]) -> tuple[str, bytes]:
    """(chain, the bytes of the line) of ``record`` following a line whose chain is
    ``previous`` (``None``: the first line).

    >>> chain, line = tombstone_line(None, {"participant": "p01"})
    >>> line.decode().startswith('{"participant": "p01", "chain": "') and line.endswith(b"}\\n")
    True
    """
    content = json.dumps(record, sort_keys=True, ensure_ascii=True)
    chain = chain_of(previous, content)
    return chain, (content[:-1] + f', "chain": "{chain}"}}\n').encode("ascii")


def check_requester(text: str) -> str:
    """Who asked for an erasure, as recorded: 1–200 printable characters.

    >>> check_requester("the participant, by e-mail of 2026-11-27")
    'the participant, by e-mail of 2026-11-27'
    """
    if not (1 <= len(text) <= 200 and text.isprintable() and text.strip()):
        raise InputError.single(
            "--requested-by",
            "",
            f"{text[:80]!r} is not a usable description of who asked.",
            "give 1–200 printable characters, e.g. 'the participant, by e-mail'.",
        )
    return text


@dataclass(frozen=True)
class Erasure:
    """One tombstone: who was erased, when, at whose request, and what was removed."""

    participant: str
    time: str
    requested_by: str
    #: Files (relative to the study) and how much of each was removed.
    removed: dict[str, Any]
    #: The answers their session files held.
    answers: int


@dataclass(frozen=True)
class Erasures:
    """What ``erasures.jsonl`` says: the erasures by participant, the chain value of its
    last line, and every problem (a line that is not a tombstone, a broken chain)."""

    path: Path
    by_participant: dict[str, Erasure]
    chain: str | None
    problems: tuple[Problem, ...] = ()

    def messages(self) -> list[str]:
        """Each problem as a line naming the file, e.g. ``…/erasures.jsonl: line 2: …``."""
        return [f"{self.path}: {p.render()}" for p in self.problems]

    def error(self) -> InputError | None:
        """The problems as one located error (``None`` when there are none)."""
        return InputError.many(self.path, self.problems) if self.problems else None


def erasures_bytes(path: Path) -> bytes:
    """The bytes of ``erasures.jsonl`` (empty when missing), at most
    :data:`ERASURES_LIMIT`; a file that is not a regular one is an :class:`InputError`."""
    try:
        fd = open_regular(path, os.O_RDONLY)
    except FileNotFoundError:
        return b""
    except NotRegularFile as exc:
        raise InputError.single(
            path, "", f"{exc.strerror}.", f"restore the study's own {ERASURES_FILE}."
        ) from None
    try:
        return read_bounded(fd, ERASURES_LIMIT)
    finally:
        os.close(fd)


_RESTORE = "restore the file from a backup: a tombstone is never edited or removed."


def _parse(raw: bytes, number: int, chain: str | None) -> tuple[Erasure, str] | str:
    """The tombstone of line ``number`` and its chain, or why it is not one."""
    try:
        text = raw.decode("ascii")
        record = json.loads(text)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return "is not a tombstone (not a JSON line as study erase writes it)"
    content, stored = split_chain(text)
    if not isinstance(record, dict) or stored is None:
        return "is not a tombstone (no chain)"
    if chain_of(chain, content) != stored:
        return (
            "does not match its chain hash: it was edited, or a line before it was added, "
            "removed or moved"
        )
    pid, when, who = record.get("participant"), record.get("time"), record.get("requested_by")
    removed, answers = record.get("removed"), record.get("answers")
    if not (
        isinstance(pid, str)
        and valid_participant(pid)
        and isinstance(when, str)
        and isinstance(who, str)
        and isinstance(removed, dict)
        and type(answers) is int
    ):
        return "is not a tombstone (participant, time, requested_by, removed, answers)"
    return Erasure(pid, when, who, removed, answers), stored


def read_erasures(folder: Path) -> Erasures:
    """The study's tombstones with the chain checked: a line that is not one, or does not
    follow the line before it, is a problem in the answer (the lines after it are still
    read, each checked against the line before it), never an exception; a file that is not
    a regular one is one problem."""
    path = erasures_path(folder)
    try:
        data = erasures_bytes(path)
    except InputError as exc:
        return Erasures(path, {}, None, exc.problems)
    found: dict[str, Erasure] = {}
    problems: list[Problem] = []
    chain: str | None = None
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    elif lines:
        problems.append(
            Problem(f"line {len(lines)}", "is cut short (no newline at its end).", _RESTORE)
        )
    for number, raw in enumerate(lines, 1):
        parsed = _parse(raw, number, chain)
        if isinstance(parsed, str):
            problems.append(Problem(f"line {number}", f"{parsed}.", _RESTORE))
            _, stored = split_chain(raw.decode("ascii", "replace"))
            chain = stored if stored is not None else chain
            continue
        erasure, chain = parsed
        found[erasure.participant] = erasure
    return Erasures(path, found, chain, tuple(problems))


def erased(folder: Path) -> dict[str, Erasure]:
    """Participant → their tombstone (a line that cannot be read is skipped;
    :func:`read_erasures` names it)."""
    return read_erasures(folder).by_participant


#: ``erasures.jsonl`` is read by a server process in pieces of this many bytes.
ERASURES_READ = 1 << 16
#: At most this many participants are kept for :meth:`ErasureLog.newly_erased` between calls.
NEW_KEPT = 10_000


class ErasureLog:
    """A server process's view of ``erasures.jsonl``: who was erased and when, asked on
    every request, so nothing here grows with the study's history. A look when nothing
    changed is one ``stat`` (by the study's one reader of files that grow,
    :class:`tradeoff.study.tail.Tail`). :mod:`tradeoff.study.erase` replaces the file whole
    with one line more (another inode), so after each erasure the file is read once again
    from its start, in pieces of :data:`ERASURES_READ` bytes, up to :data:`ERASURES_LIMIT`:
    work that grows with the number of erasures, done once per erasure, never per request.

    A line whose chain does not verify still names someone erased: they are refused all
    the same (a tombstone that was tampered with is :func:`read_erasures`'s to name, for
    ``study status``; the page errs on the side of the person who asked to be forgotten).
    A line that is not a tombstone at all is skipped.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> log = ErasureLog(folder)
    >>> log.erased_on("p01") is None
    True
    >>> _, line = tombstone_line(None, {"participant": "p01", "time": "2026-11-27T10:00:00+00:00"})
    >>> _ = erasures_path(folder).write_bytes(line)
    >>> log.erased_on("p01"), log.erased_on("p02")
    ('2026-11-27T10:00:00+00:00', None)
    """

    def __init__(self, folder: Path) -> None:
        self.path = erasures_path(folder)
        self._tail = Tail(self.path, ERASURES_READ, ERASURES_LIMIT)
        self._when: dict[str, str] = {}
        self._chain: str | None = None
        #: Lines whose chain did not verify, by number (their participants are refused).
        self.unverified: list[int] = []
        self._new: list[str] = []
        self._lock = threading.Lock()

    def erased_on(self, participant: str) -> str | None:
        """When ``participant`` was erased (the tombstone's ``time``), or ``None``."""
        with self._lock:
            self._catch_up()
            return self._when.get(participant)

    def known_on(self, participant: str) -> str | None:
        """:meth:`erased_on` as of this process's last look, without a new one (no
        ``stat``): for the rest of a request whose first step looked already
        (:func:`tradeoff.web.erased.refuse_erased`)."""
        with self._lock:
            return self._when.get(participant)

    def newly_erased(self) -> list[str]:
        """Who was erased since the last call (everyone named, at the first call or after
        the file was read again from its start), for what a process keeps in memory to be
        dropped.

        >>> import tempfile
        >>> folder = Path(tempfile.mkdtemp())
        >>> log = ErasureLog(folder)
        >>> _, line = tombstone_line(None, {"participant": "p01", "time": ""})
        >>> _ = erasures_path(folder).write_bytes(line)
        >>> log.erased_on("p02"), log.newly_erased(), log.newly_erased()
        (None, ['p01'], [])
        """
        with self._lock:
            self._catch_up()
            new, self._new = self._new, []
            return new

    def _catch_up(self) -> None:
        """Read what changed since the last look (called with the lock held)."""
        with contextlib.suppress(OSError):
            for piece in self._tail.pieces(ERASURES_LIMIT // ERASURES_READ + 1):
                if piece.fresh:
                    self._when, self._chain, self.unverified = {}, None, []
                for number, raw in enumerate(piece.lines, piece.first):
                    self._take(number, raw)

    def _take(self, number: int, raw: bytes) -> None:
        """Note line ``number`` of the file (called with the lock held)."""
        text = raw.decode("ascii", "replace")
        try:
            record = json.loads(text)
        except (ValueError, RecursionError):
            return
        if not isinstance(record, dict):
            return
        content, stored = split_chain(text)
        if stored is None or chain_of(self._chain, content) != stored:
            self.unverified.append(number)
        self._chain = stored if stored is not None else self._chain
        pid, when = record.get("participant"), record.get("time")
        if isinstance(pid, str) and valid_participant(pid):
            if pid not in self._when and len(self._new) < NEW_KEPT:
                self._new.append(pid)
            self._when[pid] = when if isinstance(when, str) else ""
