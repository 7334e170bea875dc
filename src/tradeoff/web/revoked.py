"""Session cookies ended before their time (:class:`Revoked`), shared by every server
process on a study folder through one file of ``<unix time> <nonce>`` lines."""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import threading
import time
from pathlib import Path

from tradeoff.study.files import replace_atomically
from tradeoff.study.tail import Tail, append_line, open_for_append
from tradeoff.text import clean_text
from tradeoff.web.connection import LOG

#: Session cookies dropped by "save and come back later" or by declining consent: their
#: nonces, kept for as long as a session cookie is good (every server process on the
#: folder reads it).
REVOKED_FILE = "web-revoked"
#: At most this many bytes of :data:`REVOKED_FILE` are read at one look.
REVOKED_READ = 1 << 16
#: :data:`REVOKED_FILE` is rewritten with only its live entries past this size.
REVOKED_KEEP = 1 << 20
#: A line of the file: the time, a space, a session cookie's nonce (16 characters).
REVOKED_LINE = re.compile(rb"([0-9]{1,12}) ([A-Za-z0-9_-]{16})")
#: Lines skipped are named in the server's log, at most this many per process.
NAMED_LIMIT = 20


class Revoked:
    """Session cookies ended before their time, shared by every server process on a study
    folder through one file of ``<unix time> <nonce>`` lines (:data:`REVOKED_FILE`).

    Asked on every request, so nothing here grows with the study's history: a request
    costs one ``stat``; only lines appended since this process last looked are read (by
    :class:`tradeoff.study.tail.Tail`, in pieces of :data:`REVOKED_READ` bytes, at most
    about :data:`REVOKED_KEEP` a request, any rest at the next); entries older than
    ``seconds`` (how long a session cookie is good) are forgotten (their cookies have
    expired anyway); and the file is rewritten with only those younger entries once it
    passes :data:`REVOKED_KEEP` bytes (a new file: readers see the inode change and read
    it from the start). The file is opened without following links and only if it is a
    regular file. A line that is not a revocation (cut short by a crash) is skipped and
    named in the server's log; the lines after it are read.
    """

    def __init__(self, path: Path, seconds: int) -> None:
        self.path = path
        self.seconds = seconds
        self._tail = Tail(path, REVOKED_READ)
        self._when: dict[str, int] = {}
        self._kept = 1024
        self._named = 0
        # The event loop asks, a worker thread adds: one of them at a time reads the file.
        self._lock = threading.Lock()

    def add(self, nonce: str) -> None:
        """Revoke ``nonce``: one line appended under the file's lock (on a line of its own
        after a writer cut short); the file compacted if long. A file compacted while this
        process waited for the lock is appended to in its new form."""
        line = f"{int(time.time())} {nonce}\n".encode("ascii")
        for _ in range(16):
            fd = open_for_append(self.path, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                try:
                    current = os.stat(self.path, follow_symlinks=False).st_ino
                except FileNotFoundError:
                    current = -1
                if current != os.fstat(fd).st_ino:
                    continue  # compacted while this process waited: append to the new file
                append_line(fd, line)
                os.fsync(fd)
                if os.fstat(fd).st_size > REVOKED_KEEP:
                    self._compact()
                return
            finally:
                os.close(fd)
        raise OSError(f"{self.path}: it kept being replaced by other processes")

    def _compact(self) -> None:
        """Write the entries younger than ``seconds`` to a new file (called with the old one
        locked; a process appending meanwhile waits for the lock, then finds the new inode
        and appends there)."""
        with self._lock:
            self._catch_up(None)  # to the end, however much other processes appended
            since = time.time() - self.seconds
            keep = "".join(f"{at} {n}\n" for n, at in self._when.items() if at >= since)
        replace_atomically(self.path, keep.encode("ascii"), 0o600)

    def has(self, nonce: str) -> bool:
        """Whether ``nonce`` was revoked in the last ``seconds``."""
        with self._lock, contextlib.suppress(OSError):
            self._catch_up(REVOKED_KEEP // REVOKED_READ + 1)  # caught up within the bound
        at = self._when.get(nonce)
        return at is not None and at >= time.time() - self.seconds

    def _catch_up(self, most: int | None) -> None:
        """Read what was appended since the last look (at most ``most`` pieces; called
        with ``_lock`` held)."""
        for piece in self._tail.pieces(most):
            if piece.fresh:
                self._when = {}
            for number, line in enumerate(piece.lines, piece.first):
                found = REVOKED_LINE.fullmatch(line)
                if found is not None:
                    self._when[found[2].decode("ascii")] = int(found[1])
                elif line.strip() and self._named < NAMED_LIMIT:
                    self._named += 1
                    LOG.warning(
                        "%s: line %d is not a revocation (cut short?); skipped",
                        clean_text(str(self.path)),
                        number,
                    )
            if len(self._when) > 2 * self._kept:  # forget what expired, now and then
                since = time.time() - self.seconds
                self._when = {n: at for n, at in self._when.items() if at >= since}
                self._kept = max(len(self._when), 1024)
