"""What the study web page reads from the study's folder while it is served, each file
again only as it changes (asked on every request, so nothing here grows with the study's
history): who came in by link (``entries.jsonl``, :class:`~tradeoff.study.entries.EntryLog`),
who withdrew (``withdrawals.jsonl``), the session cookies ended early
(:class:`~tradeoff.web.revoked.Revoked`), the recent wrong codes
(:class:`~tradeoff.study.attempts.RecentFailures`), who was erased on request
(``erasures.jsonl``, :class:`~tradeoff.study.erasures.ErasureLog`) and the marks of the
pilot's and the coordinator's keys (``keys.json``), and how participants reach the
coordinator (``study.json``'s ``contact``, :mod:`tradeoff.study.contact`). The appended files and
``erasures.jsonl`` are read by the one tailer, :class:`tradeoff.study.tail.Tail`;
``withdrawals.jsonl``, ``keys.json`` and ``study.json`` are replaced whole, never appended
in place, so they are read again whole when their ``stat`` changes.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from tradeoff.errors import InputError
from tradeoff.study.attempts import RecentFailures
from tradeoff.study.contact import read_contact
from tradeoff.study.entries import Entered, EntryLog
from tradeoff.study.erasures import ErasureLog
from tradeoff.study.files import open_regular, read_bounded
from tradeoff.study.folder import STUDY_FILE, STUDY_FILE_LIMIT, Study, with_entries
from tradeoff.study.keys import KEYS_FILE, key_mark, read_keys
from tradeoff.study.withdrawals import withdrawals_path, withdrawn
from tradeoff.text import clean_text
from tradeoff.web.connection import LOG
from tradeoff.web.revoked import REVOKED_FILE, Revoked


@dataclass
class Watched:
    """The study's files that change while it is served, as one server process last read
    them."""

    study: Study
    #: How long a session cookie is good (a revocation is kept that long).
    session_seconds: int
    _withdrawn: tuple[tuple[int, int] | None, frozenset[str]] = (None, frozenset())
    #: Session cookies ended early (``web-revoked``, read as it grows).
    revoked: Revoked = field(init=False)
    #: The recent wrong codes (``attempts.log``, read as it grows).
    attempts: RecentFailures = field(init=False)
    #: Who came in by link (``entries.jsonl``), read as it grows.
    entries: EntryLog = field(init=False)
    #: Who was erased on request (``erasures.jsonl``), read again only when it changes.
    erasures: ErasureLog = field(init=False)
    _roster: tuple[int, Study] | None = None
    #: ``keys.json`` as last read, and what its ``stat`` said then (:meth:`key_mark`).
    _keys: tuple[tuple[int, int, int] | None, dict[str, dict[str, str]]] = (None, {})
    #: ``study.json``'s ``contact`` as last read, and what its ``stat`` said then.
    _contact: tuple[tuple[int, int, int] | None, str | None] = (None, None)

    def __post_init__(self) -> None:
        self.revoked = Revoked(self.study.path / REVOKED_FILE, self.session_seconds)
        self.entries = EntryLog(self.study.path)
        self.attempts = RecentFailures(self.study)
        self.erasures = ErasureLog(self.study.path)
        self._contact = (None, self.study.contact)

    def roster(self) -> Study:
        """The study with everyone let in by link so far among its participants (made
        again only when ``entries.jsonl`` grew: this is asked on every request)."""
        state = self.entries.refresh()
        size = self.entries.size
        if self._roster is not None and self._roster[0] == size:
            return self._roster[1]
        study = with_entries(self.study, None, state)
        self._roster = (size, study)
        return study

    def entered(self, participant: str) -> Entered | None:
        """How ``participant`` came in by link (``None``: by access code)."""
        found = self.entries.refresh().people.get(participant)
        return None if found is None or found.removed else found

    def is_withdrawn(self, participant: str) -> bool:
        """Whether ``participant`` withdrew (:meth:`gone`)."""
        return participant in self.gone()

    def gone(self) -> frozenset[str]:
        """Who withdrew (the file read again only when it changes: asked on every request)."""
        path = withdrawals_path(self.study)
        try:
            st = path.stat()
            key: tuple[int, int] | None = (st.st_mtime_ns, st.st_size)
        except FileNotFoundError:
            key = None
        if key != self._withdrawn[0]:
            self._withdrawn = (key, frozenset(withdrawn(self.roster())) if key else frozenset())
        return self._withdrawn[1]

    def revoke(self, nonce: str) -> None:
        """End the session cookie of ``nonce`` for every server process on the folder
        (pausing, declining, withdrawing: :class:`Revoked`); if the file cannot be written,
        the browser still drops the cookie and the server's log says so."""
        try:
            self.revoked.add(nonce)
        except OSError as exc:
            LOG.warning("%s: could not be written (%s)", clean_text(self.revoked.path), exc)

    def is_revoked(self, nonce: str) -> bool:
        """Whether the session cookie of ``nonce`` was revoked (asked on every request)."""
        return self.revoked.has(nonce)

    def key_mark(self, kind: str) -> str:
        """The mark of the current pilot or coordinator key
        (:func:`~tradeoff.study.keys.key_mark`), read again only when ``keys.json``
        changes (a new key replaces the file: another inode)."""
        seen = stat_key(self.study.path / KEYS_FILE)
        if seen is None or seen != self._keys[0]:
            self._keys = (seen, read_keys(self.study.path) if seen else {})
        return key_mark(self._keys[1], kind)

    def contact(self) -> str | None:
        """How participants reach the coordinator, as ``study.json`` says now (read again
        only when its ``stat`` changes: ``study contact`` while the page is served); when
        the file cannot be read or its contact is not usable, the last one read."""
        path = self.study.path / STUDY_FILE
        seen = stat_key(path)
        if seen is not None and seen != self._contact[0]:
            found = self._contact[1]
            try:
                fd = open_regular(path, os.O_RDONLY)
                try:
                    data = json.loads(read_bounded(fd, STUDY_FILE_LIMIT))
                finally:
                    os.close(fd)
                if isinstance(data, dict):
                    found = read_contact(data, path)
            except (OSError, ValueError, RecursionError, InputError) as exc:
                LOG.warning("%s: its contact could not be read (%s)", clean_text(path), exc)
            self._contact = (seen, found)
        return self._contact[1]


def stat_key(path: Path) -> tuple[int, int, int] | None:
    """(inode, mtime in ns, size) of ``path`` itself (never through a link): what changes
    when a file replaced whole is replaced, or ``None`` when it cannot be seen."""
    try:
        st = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_size)
