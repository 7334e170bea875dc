"""The study's own secrets besides the access codes: the pilot link's key and the
coordinator's key, in ``keys.json`` (mode 0600), each as a salted SHA-256 only.

A key is made by ``tradeoff study pilot-link`` or ``tradeoff study coordinator-key`` and
shown once; making a new one replaces the old (a leaked key is so revoked): the pages
opened with the old key close at their next request, since the web page's cookies are
signed with the key's mark (:func:`key_mark`). Each key is
128 random bits, so one hash round is enough: no one guesses it, and the web page's
coordinator form is rate-limited like the code form besides.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from pathlib import Path

from tradeoff.study.entries import study_lock
from tradeoff.study.files import open_regular, read_bounded, replace_atomically

KEYS_FILE = "keys.json"
KINDS = ("pilot", "coordinator")
#: keys.json is read only up to this size.
KEYS_LIMIT = 4096


def _digest(key: str, salt: bytes) -> str:
    return hashlib.sha256(salt + key.encode("utf-8")).hexdigest()


def read_keys(folder: Path) -> dict[str, dict[str, str]]:
    """The stored hashes by kind (a missing or unreadable file: none)."""
    try:
        fd = open_regular(folder / KEYS_FILE, os.O_RDONLY)
    except OSError:
        return {}
    try:
        data = read_bounded(fd, KEYS_LIMIT)
    finally:
        os.close(fd)
    try:
        parsed = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return {}
    if not isinstance(parsed, dict):
        return {}
    return {
        k: {"salt": str(v["salt"]), "hash": str(v["hash"])}
        for k, v in parsed.items()
        if k in KINDS and isinstance(v, dict) and "salt" in v and "hash" in v
    }


def new_key(folder: Path, kind: str) -> str:
    """A new key of ``kind`` (``pilot`` or ``coordinator``): its hash replaces the old one
    in ``keys.json``; the key itself is returned once and never stored.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> key = new_key(folder, "pilot")
    >>> check_key(folder, "pilot", key), check_key(folder, "pilot", key + "x")
    (True, False)
    """
    if kind not in KINDS:
        raise ValueError(kind)
    key = secrets.token_urlsafe(16)
    salt = secrets.token_bytes(16)
    with study_lock(folder):
        keys = read_keys(folder)
        keys[kind] = {"salt": salt.hex(), "hash": _digest(key, salt)}
        replace_atomically(folder / KEYS_FILE, (json.dumps(keys, indent=2) + "\n").encode(), 0o600)
    return key


def check_key(folder: Path, kind: str, given: str) -> bool:
    """Whether ``given`` is the current key of ``kind`` (compared in constant time)."""
    if not (1 <= len(given) <= 64 and given.isascii()):
        return False
    stored = read_keys(folder).get(kind)
    if stored is None:
        return False
    try:
        salt = bytes.fromhex(stored["salt"])
    except ValueError:
        return False
    return hmac.compare_digest(_digest(given, salt), stored["hash"])


def key_mark(keys: dict[str, dict[str, str]], kind: str) -> str:
    """What tells the current key of ``kind`` from every earlier one (its salt and hash;
    empty when there is none): the web page signs it into the cookies a key opened, so a
    new key closes every page the old one opened.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = new_key(folder, "coordinator")
    >>> first = key_mark(read_keys(folder), "coordinator")
    >>> _ = new_key(folder, "coordinator")
    >>> first != key_mark(read_keys(folder), "coordinator"), key_mark({}, "pilot")
    (True, '')
    """
    stored = keys.get(kind)
    return "" if stored is None else f"{stored['salt']}.{stored['hash']}"


def has_key(folder: Path, kind: str) -> bool:
    """Whether a key of ``kind`` was made."""
    return kind in read_keys(folder)
