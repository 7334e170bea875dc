"""Wrong access codes: ``attempts.log`` in a study's folder, and the growing delay.

Every refused code is logged with its time and source (the client's address,
:mod:`tradeoff.net`). Only the end of the log is read (``ATTEMPTS_TAIL`` bytes, then what
is appended: :class:`RecentFailures`, through :class:`tradeoff.study.tail.Tail`), and it is
rotated past ``ATTEMPTS_ROTATE`` bytes: the whole log is kept in ``attempts-<time>.log``
files beside it, never on the way of a request.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import secrets
import threading
import time
from collections import deque
from datetime import UTC, datetime
from pathlib import Path

from tradeoff.net import clean_source
from tradeoff.study.files import open_regular, read_bounded, sync_folder, write_all
from tradeoff.study.folder import Study
from tradeoff.study.tail import Tail, append_line, open_for_append

ATTEMPTS_FILE = "attempts.log"
#: Wrong codes within this many seconds count toward the delay.
ATTEMPT_WINDOW = 600.0
#: A wrong code's delay is counted from at most this many bytes at the end of
#: ``attempts.log``. A line is at most 80 bytes, so this holds over 1,600 lines: more than
#: the 1,000 recent wrong codes that bring the shared delay to its ceiling.
ATTEMPTS_TAIL = 128 * 1024
#: At most this many of the latest wrong codes are kept in memory (those bytes hold fewer).
ATTEMPTS_KEPT = 4096
#: Past this size ``attempts.log`` is rotated: the whole file is kept as
#: ``attempts-<time>.log`` and ``attempts.log`` starts again from its last
#: ``ATTEMPTS_TAIL`` bytes (the window the delay needs).
ATTEMPTS_ROTATE = 1024 * 1024
#: How long a wrong code waits for another process appending to ``attempts.log``.
ATTEMPTS_LOCK_WAIT = 2.0


class RecentFailures:
    """One process's view of the recent wrong codes in ``attempts.log``, read as it grows by
    the study's one reader of appended files (:class:`tradeoff.study.tail.Tail`): at the
    first look (and after a rotation) only the log's last ``ATTEMPTS_TAIL`` bytes, then
    only what was appended since, so a wrong code costs the same whatever the study's
    history. At most ``ATTEMPTS_KEPT`` of the latest wrong codes are kept (more than
    bring the shared delay to its ceiling). A missing file, or one that is not a regular
    file, holds none (:func:`record_failure` refuses to write it)."""

    def __init__(self, study: Study) -> None:
        self._tail = Tail(study.path / ATTEMPTS_FILE, ATTEMPTS_TAIL, from_end=ATTEMPTS_TAIL)
        self._seen: deque[tuple[float, bytes]] = deque(maxlen=ATTEMPTS_KEPT)
        # Worker threads ask at once: one of them at a time reads the file.
        self._lock = threading.Lock()

    def counts(self, source: str | None, now: float | None = None) -> tuple[int, int]:
        """Wrong codes in the last ``ATTEMPT_WINDOW`` seconds: from ``source`` (from
        anywhere when it is ``None``) and from anywhere."""
        now = time.time() if now is None else now
        wanted = None if source is None else clean_source(source).encode()
        with self._lock:
            for piece in self._tail.pieces(ATTEMPTS_ROTATE // ATTEMPTS_TAIL + 1):
                if piece.fresh:
                    self._seen.clear()
                for line in piece.lines:
                    stamp, _, who = line.partition(b" ")
                    try:
                        self._seen.append((float(stamp), who or b"unknown"))
                    except ValueError:
                        continue
            own = every = 0
            for at, who in self._seen:
                if now - at < ATTEMPT_WINDOW:
                    every += 1
                    own += wanted is None or who == wanted
        return own, every

    def delay(self, source: str | None, now: float | None = None) -> float:
        """:func:`wrong_code_delay` from this view."""
        return _delay(*self.counts(source, now))


def _failure_counts(study: Study, now: float | None, source: str | None) -> tuple[int, int]:
    """:meth:`RecentFailures.counts` of one look (a caller without a view of its own)."""
    return RecentFailures(study).counts(source, now)


def recent_failures(study: Study, now: float | None = None, source: str | None = None) -> int:
    """Wrong codes entered in the last ``ATTEMPT_WINDOW`` seconds: from ``source`` only, or
    from anywhere when ``source`` is ``None`` (lines of older studies name no source).

    Only the last ``ATTEMPTS_TAIL`` bytes of the log are read, so a request costs the
    same whatever the study's history; when more wrong codes than they hold came in the
    window, the shared delay is at its ceiling already."""
    return _failure_counts(study, now, source)[0]


def _lock_within(fd: int, seconds: float) -> None:
    """Take the exclusive ``flock`` on ``fd``, waiting at most ``seconds`` (then
    ``OSError``): a process holding it forever cannot hold up a request."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() > deadline:
                raise OSError(errno.EWOULDBLOCK, "another process holds it") from None
            time.sleep(0.005)


def record_failure(study: Study, now: float | None = None, source: str | None = None) -> None:
    """Log a wrong code: its time and its source (every refused attempt is logged).

    The line is appended under an exclusive ``flock`` of the log (so several processes
    append whole lines, and none appends to a file just rotated away); a line only partly
    written (a full disk) is cut off again and the error raised, and one left by a writer
    killed mid-line stays a line of its own (:func:`tradeoff.study.tail.append_line`).
    Past ``ATTEMPTS_ROTATE`` bytes the log is rotated (:func:`_rotate_attempts`)."""
    line = f"{time.time() if now is None else now:.3f} {clean_source(source)}\n".encode()
    path = study.path / ATTEMPTS_FILE
    for _ in range(16):
        fd = open_for_append(path, 0o644)
        try:
            _lock_within(fd, ATTEMPTS_LOCK_WAIT)
            try:
                current = os.stat(path, follow_symlinks=False).st_ino
            except FileNotFoundError:
                current = -1
            if current != os.fstat(fd).st_ino:
                continue  # rotated while this process waited: append to the new file
            size = os.fstat(fd).st_size
            try:
                append_line(fd, line)  # on a line of its own after a writer cut short
            except OSError:
                with contextlib.suppress(OSError):
                    os.ftruncate(fd, size)  # no partial line is left for the next one
                raise
            if size + len(line) > ATTEMPTS_ROTATE:
                with contextlib.suppress(OSError):  # tried again at the next wrong code
                    _rotate_attempts(path, fd)
            return
        finally:
            os.close(fd)  # releases the lock
    raise OSError(errno.EAGAIN, "it kept being rotated by other processes", str(path))


def _rotate_attempts(path: Path, fd: int) -> None:
    """Rotate ``attempts.log`` (its lock held on ``fd``): the whole file is kept as
    ``attempts-<UTC time>.log`` (a second name for it, no copy), and ``attempts.log`` is
    replaced, in one rename, by a new file holding its last ``ATTEMPTS_TAIL`` bytes of
    whole lines, the window the delay needs. Readers see the old file or the new one,
    never neither; nothing logged is lost. On any error the log is left as it was."""
    size = os.fstat(fd).st_size
    reader = open_regular(path, os.O_RDONLY)
    try:
        if os.fstat(reader).st_ino != os.fstat(fd).st_ino:
            return
        start = max(0, size - ATTEMPTS_TAIL)
        os.lseek(reader, start, os.SEEK_SET)
        tail = read_bounded(reader, size - start)
    finally:
        os.close(reader)
    if start > 0:
        tail = tail[tail.find(b"\n") + 1 :]
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ")
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    out = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    archive = None
    try:
        try:
            write_all(out, tail)
            os.fsync(out)
        finally:
            os.close(out)
        for n in range(100):
            name = path.with_name(f"attempts-{stamp}{f'-{n}' if n else ''}.log")
            try:
                os.link(path, name, follow_symlinks=False)
            except FileExistsError:
                continue
            archive = name
            break
        else:
            raise OSError(errno.EEXIST, "no free name for the rotated log")
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        if archive is not None:  # only a second name of the log, which stays whole
            archive.unlink(missing_ok=True)
        raise
    sync_folder(path.parent)


def failure_delay(failures: int) -> float:
    """Seconds to wait before answering after ``failures`` recent wrong codes: 1 s, then
    doubling, at most 60 s.

    >>> [failure_delay(n) for n in (0, 1, 2, 3, 10)]
    [0.0, 1.0, 2.0, 4.0, 60.0]
    """
    return 0.0 if failures <= 0 else float(min(60.0, 2.0 ** (failures - 1)))


#: Beyond the delay of its own source, a wrong code waits this long for every this many
#: wrong codes from anywhere in the window, up to ``GLOBAL_CEILING`` seconds: many sources
#: guessing at once are slowed too, and a participant, whose right code is never delayed,
#: is not.
GLOBAL_STEP = (100, 1.0)
GLOBAL_CEILING = 10.0


def wrong_code_delay(study: Study, source: str | None, now: float | None = None) -> float:
    """How long the answer to a wrong code from ``source`` waits (after the code was
    checked: a right code is accepted at once, whatever others typed). Its source's own
    recent wrong codes give :func:`failure_delay`; all recent wrong codes add a second per
    ``GLOBAL_STEP[0]``, at most ``GLOBAL_CEILING``."""
    return _delay(*_failure_counts(study, now, source))


def _delay(mine: int, everyone: int) -> float:
    own = failure_delay(mine)
    every, step = GLOBAL_STEP
    shared = min(GLOBAL_CEILING, step * (everyone // every))
    return min(60.0, own + shared)
