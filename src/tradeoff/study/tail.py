"""Files of lines that every server process on a study folder appends to and reads as they
grow (``entries.jsonl``, ``entry-sources.log``, the revoked session cookies,
``attempts.log``: each read through :class:`Tail`, the one incremental reader), and the one
rule for a line cut short.

A writer killed in the middle of a line (a crash, a full disk, ``kill -9``) leaves a half
line without its newline. The rule, in one place:

* a writer, holding the lock every writer of the file takes, that finds the file not
  ending in a newline starts its own line on a new line (:func:`append_line`): the half
  line stays one broken line, and the record after it is whole;
* a reader takes only lines that end in a newline (:class:`Tail`,
  :func:`complete_lines`): the end of a file being written is left for the next look, and
  a broken line, once ended by the next writer, reads as one line that the reader skips
  and names by its number. Every other line is read.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tradeoff.study.files import open_regular, write_all


def open_for_append(path: Path, mode: int) -> int:
    """A descriptor to append to ``path`` with (a regular file, made when missing), that
    :func:`append_line` can also look at the end of."""
    return open_regular(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, mode)


def append_line(fd: int, line: bytes) -> int:
    """Append ``line`` (ending in a newline) to the file open on ``fd``
    (:func:`open_for_append`), whose writers' lock the caller holds; when the file does not
    end in a newline (a writer was cut short), a newline is written first, so that the cut
    line is not glued to this one. Returns the file's size before (a caller may cut back
    to it when the write fails).

    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "log"
    >>> _ = path.write_bytes(b'{"a": 1}\\n{"b"')  # a writer killed mid-line
    >>> fd = open_for_append(path, 0o600)
    >>> append_line(fd, b'{"c": 3}\\n')
    13
    >>> os.close(fd)
    >>> path.read_bytes().splitlines()
    [b'{"a": 1}', b'{"b"', b'{"c": 3}']
    """
    size = os.fstat(fd).st_size
    if size and os.pread(fd, 1, size - 1) != b"\n":
        line = b"\n" + line
    write_all(fd, line)
    return size


def complete_lines(data: bytes) -> list[bytes]:
    """The lines of ``data`` that end in a newline (without it); what follows the last
    newline is a line still being written, or cut short, and is left out.

    >>> complete_lines(b"a\\nb\\n\\nc")
    [b'a', b'b', b'']
    """
    return data.split(b"\n")[:-1]


@dataclass(frozen=True)
class Piece:
    """Lines appended since the last look: ``lines[i]`` is the file's line ``first + i``
    (numbered from 1). ``fresh`` says the file was replaced, cut or removed since: what was
    read of it before no longer holds, and ``lines`` start from its beginning."""

    lines: list[bytes]
    first: int
    fresh: bool


class Tail:
    """One process's reader of a file of lines that grows by appends: each look reads only
    what was appended since the last one (a ``stat`` when nothing was), in pieces of at
    most ``chunk`` bytes and up to ``limit`` bytes of the file in all.

    Only whole lines are taken (:func:`complete_lines`); a whole ``chunk`` without a
    newline is taken as one (broken) line, so a reader never stops at junk. A file
    replaced (another inode), cut shorter or removed is read again from its start. A file
    that is not a regular one is not opened. The caller keeps one look at a time (a lock
    of its own).

    With ``from_end`` a file met anew (the first look, or replaced, or cut) is read from
    its last ``from_end`` bytes only (a reader that needs only the recent lines, whatever
    the file's history); a line begun before them is skipped, and lines are numbered from
    the first one read.

    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "log"
    >>> _ = path.write_bytes(b"old line\\nrecent\\n")
    >>> tail = Tail(path, 64, from_end=10)
    >>> [piece.lines for piece in tail.pieces()]
    [[b'recent']]
    >>> with path.open("ab") as fh:
    ...     _ = fh.write(b"newer\\nhalf")
    >>> [piece.lines for piece in tail.pieces()]
    [[b'newer']]
    """

    def __init__(
        self, path: Path, chunk: int, limit: int | None = None, *, from_end: int | None = None
    ) -> None:
        self.path = path
        self.chunk = chunk
        self.limit = limit
        self.from_end = from_end
        #: Bytes of whole lines read so far, and their number.
        self.offset = 0
        self.line = 0
        self._file: tuple[int, int] | None = None

    def pieces(self, most: int | None = None) -> Iterator[Piece]:
        """Each piece appended since the last look, until the end of the file (or ``most``
        pieces)."""
        n = 0
        while most is None or n < most:
            piece = self.read()
            if piece is None:
                return
            yield piece
            n += 1

    def read(self) -> Piece | None:
        """The next piece, or ``None`` when nothing was appended (or the file cannot be
        read: it is tried again at the next look)."""
        try:
            st = os.stat(self.path, follow_symlinks=False)
        except FileNotFoundError:
            if self._file is None:
                return None
            self._file, self.offset, self.line = None, 0, 0
            return Piece([], 1, True)
        except OSError:
            return None
        if not stat.S_ISREG(st.st_mode):
            return None
        file = (st.st_dev, st.st_ino)
        fresh = file != self._file or st.st_size < self.offset
        offset = self.offset
        if fresh:
            offset = 0
            if self.from_end is not None and st.st_size > self.from_end:
                offset = st.st_size - self.from_end
        if self.limit is not None and offset >= self.limit:
            return None
        if st.st_size == offset:
            if not fresh:
                return None
            self._file, self.offset, self.line = file, 0, 0
            return Piece([], 1, True)
        try:
            fd = open_regular(self.path, os.O_RDONLY)
        except OSError:
            return None
        try:
            if (os.fstat(fd).st_dev, os.fstat(fd).st_ino) != file:
                return None  # replaced since the stat: the next look reads the new one
            chunk = os.pread(fd, self.chunk, offset)
            begun = fresh and offset > 0 and os.pread(fd, 1, offset - 1) != b"\n"
        finally:
            os.close(fd)
        if fresh:
            self._file, self.offset, self.line = file, offset, 0
        if begun:  # the rest of a line begun before ``from_end``: skipped
            skip = chunk.find(b"\n") + 1 or len(chunk)
            chunk = chunk[skip:]
            self.offset += skip
            if not chunk:
                return Piece([], 1, True)
        end = chunk.rfind(b"\n") + 1
        if end == 0 and len(chunk) < self.chunk:
            return Piece([], self.line + 1, True) if fresh else None  # a line being written
        lines = complete_lines(chunk[:end]) if end else [chunk]
        first = self.line + 1
        self.offset += end or len(chunk)
        self.line += len(lines)
        return Piece(lines, first, fresh)
