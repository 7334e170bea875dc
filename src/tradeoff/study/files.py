"""A study's shared files, opened and written safely: only a regular file is opened (never
through a symbolic link, never a FIFO or a device that would block a reader), read to a
bound, written whole, and replaced in one rename."""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from pathlib import Path


def file_kind(mode: int) -> str:
    """What a file that is not a regular one is, in words.

    >>> file_kind(stat.S_IFIFO), file_kind(stat.S_IFLNK)
    ('a FIFO', 'a symbolic link')
    """
    for test, name in (
        (stat.S_ISLNK, "a symbolic link"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a device"),
        (stat.S_ISBLK, "a device"),
    ):
        if test(mode):
            return name
    return "not a regular file"


class NotRegularFile(OSError):
    """A study's file is a link, a FIFO, a folder or a device, and is not opened."""

    def __init__(self, path: Path, mode: int) -> None:
        self.kind = file_kind(mode)
        super().__init__(errno.EINVAL, f"is {self.kind}, not a regular file", str(path))


def open_regular(path: Path, flags: int, mode: int = 0o666) -> int:
    """A descriptor of ``path`` when it is a regular file: never through a symbolic link
    (``O_NOFOLLOW``), never a FIFO or a device (checked before opening and again on the
    open file, and opened with ``O_NONBLOCK`` so a FIFO put there in between cannot
    block). With ``O_CREAT`` in ``flags`` a missing file is made.

    Raises
    ------
    NotRegularFile
        When ``path`` is anything but a regular file.
    OSError
        When it cannot be opened (``FileNotFoundError`` when missing and not made).
    """
    try:
        before = os.lstat(path)
    except FileNotFoundError:
        if not flags & os.O_CREAT:
            raise
    else:
        if not stat.S_ISREG(before.st_mode):
            raise NotRegularFile(path, before.st_mode)
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # a link made in between
            raise NotRegularFile(path, stat.S_IFLNK) from None
        raise
    try:
        after = os.fstat(fd)
        if not stat.S_ISREG(after.st_mode):
            raise NotRegularFile(path, after.st_mode)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_bounded(fd: int, limit: int) -> bytes:
    """At most ``limit`` bytes from ``fd`` (from where it stands)."""
    chunks = []
    left = limit
    while left > 0:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` or raise (a short write is a full disk)."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        if written <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        view = view[written:]


def sync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable (where the system allows)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def replace_atomically(path: Path, data: bytes, mode: int = 0o644) -> None:
    """``path`` holds ``data`` whole, or is as it was: ``data`` is written to a new file
    in the same folder, synced, then renamed over ``path``. On any error the new file is
    removed and the error raised."""
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, mode)
    try:
        try:
            os.fchmod(fd, mode)
            write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    sync_folder(path.parent)
