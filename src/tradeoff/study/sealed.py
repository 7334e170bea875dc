"""Cache entries that prove who wrote them: a key of this user's and a seal on every entry.

A cache folder is often shared or copied: a temporary folder, a network home, a study folder
sent to a colleague. Nothing in one may change an answer, so an entry is used only when
this user's ``tradeoff`` wrote it (docs/architecture.md, "What a cache trusts"):

- **A key of this user's** (:func:`key_path`): 32 random bytes in
  ``$XDG_STATE_HOME/tradeoff/cache-key`` (else ``~/.local/state/tradeoff/cache-key``),
  outside every cache folder, made on first use with mode 0600 in a folder of mode 0700.
  A key file that is not a regular file, is another user's, or that its group or others may
  read or write is refused: no cache is then read or written (a key others have read
  could seal anything), and the command says so once, with the fix.
- **A seal on every entry**: the HMAC-SHA256, under that key, of the entry's name (which
  holds its cache key, so an entry copied under another scenario's or seed's name does
  not open) and of every file in it (its name, and its bytes, or an array's type, shape
  and bytes), followed by the key's short name (not the key). An entry whose seal does not
  match, whose files are not all regular files of this user's that only this user may
  write, or that cannot be read whole, is set aside and rebuilt; the command says once per
  folder that it rebuilt entries there, and names the key in use when the seal names
  another (a process that sees another ``$XDG_STATE_HOME`` or ``$HOME`` uses another key).
- **A folder of this user's**: a cache folder that is another user's, or that its group or
  others may write, is not used at all (what it would hold is built in memory), and the
  command says so once (:func:`usable_folder`). The folders made here are mode 0700, their
  files 0600.

Every file is opened once, without following a link and without waiting on a FIFO; its
owner and mode are checked on the open descriptor, the seal is computed from what that
descriptor reads, and arrays are memory-mapped from the same descriptor, so what was
checked is what is used.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
import shutil
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping
from functools import reduce
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
from numpy.lib import format as npy_format
from numpy.typing import NDArray

from tradeoff.errors import InputError
from tradeoff.text import clean_text, terminal_fit

#: The environment variable naming the folder the key is kept under (XDG base directories).
STATE_ENV = "XDG_STATE_HOME"
#: The key's length in bytes.
KEY_BYTES = 32
#: The file in an entry folder that holds its seal.
SEAL = "seal"
#: Largest file of an entry read whole (JSON parts and records; arrays are mapped).
READ_LIMIT = 16 << 20

_OPEN = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
_OPEN_DIR = os.O_RDONLY | os.O_NOFOLLOW | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0)

Part = bytes | NDArray[Any]


class Untrusted(ValueError):
    """An entry this user's ``tradeoff`` did not write, or cannot show it did."""


class OtherKey(Untrusted):
    """An entry whose seal names another key than the one in use: another user's, or this
    user's ``tradeoff`` run where ``$XDG_STATE_HOME`` or ``$HOME`` named another folder."""


# -- what the command says ---------------------------------------------------------------

_SAID: set[str] = set()
_QUIET = False


def say_once(topic: str, text: str) -> None:
    """Write ``text`` as one line on stderr (on a terminal, broken between words:
    :func:`~tradeoff.text.terminal_fit`), the first time ``topic`` comes up in this
    process (a command says once that it rebuilt a folder's entries, not once per entry)."""
    if topic in _SAID or _QUIET:
        return
    _SAID.add(topic)
    stream = sys.stderr
    if stream is not None:
        with contextlib.suppress(OSError, ValueError):
            stream.write(terminal_fit("tradeoff: " + clean_text(text), stream) + "\n")
            stream.flush()


def quiet() -> None:
    """Say nothing in this process (a worker process: the process that started it checked
    the same entries and spoke for both)."""
    global _QUIET
    _QUIET = True


# -- the key ---------------------------------------------------------------------------


def key_path() -> Path | None:
    """Where this user's cache key is kept: ``$XDG_STATE_HOME/tradeoff/cache-key`` (an
    absolute path only, as the XDG specification says), else
    ``~/.local/state/tradeoff/cache-key``; ``None`` when there is no home to find."""
    state = os.environ.get(STATE_ENV, "")
    if state and Path(state).is_absolute():
        return Path(state) / "tradeoff" / "cache-key"
    try:
        return Path.home() / ".local" / "state" / "tradeoff" / "cache-key"
    except RuntimeError:
        return None


_KEYS: dict[str, bytes | InputError] = {}


def _key_problem(path: Path, problem: str, fix: str) -> InputError:
    return InputError.single(path, "", problem, fix)


def _read_key(path: Path) -> bytes | InputError:
    """The key in ``path``, made first when there is none; an error saying why it cannot
    be used (its owner, who may read or write it, what it is)."""
    try:
        fd = os.open(path, _OPEN)
    except FileNotFoundError:
        try:
            _make_key(path)
            fd = os.open(path, _OPEN)
        except OSError as exc:
            return _key_problem(
                path,
                f"the cache key cannot be made ({exc.strerror}): no cache is used.",
                f"make {path.parent} a folder you can write, or set {STATE_ENV} to one.",
            )
    except OSError as exc:
        return _key_problem(
            path,
            f"the cache key cannot be opened ({exc.strerror}; a link is never followed): "
            "no cache is used.",
            "remove it: a new key is made on the next run.",
        )
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return _key_problem(
                path, "the cache key is not a regular file: no cache is used.", "remove it."
            )
        if st.st_uid != os.geteuid():
            return _key_problem(
                path,
                f"the cache key belongs to another user (uid {st.st_uid}): no cache is used.",
                "remove it: a new key of your own is made on the next run.",
            )
        if st.st_mode & 0o077:
            return _key_problem(
                path,
                f"the cache key may be read or written by others (mode "
                f"{stat.S_IMODE(st.st_mode):o}), so anyone could seal a cache entry: no "
                "cache is used.",
                "remove it (a new key, mode 0600, is made on the next run) or run "
                f"chmod 600 {path} if no one else can have read it.",
            )
        data = os.read(fd, KEY_BYTES + 1)
    except OSError as exc:
        return _key_problem(path, f"the cache key cannot be read ({exc.strerror}).", "remove it.")
    finally:
        os.close(fd)
    if len(data) != KEY_BYTES:
        return _key_problem(
            path,
            f"the cache key holds {len(data)} bytes, not {KEY_BYTES}: no cache is used.",
            "remove it: a new key is made on the next run.",
        )
    return data


def _make_key(path: Path) -> None:
    """A new key in ``path`` (its folder made with mode 0700): written whole under a
    temporary name and linked into place, so two processes making it at once agree."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-key-")  # mode 0600
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(secrets.token_bytes(KEY_BYTES))
            fh.flush()
            os.fsync(fh.fileno())
        with contextlib.suppress(FileExistsError):  # another process made it first
            os.link(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)


def _key() -> bytes | InputError:
    path = key_path()
    if path is None:
        return InputError.single(
            "cache key",
            "",
            "there is no home folder to keep this user's cache key in: no cache is used.",
            f"set HOME, or {STATE_ENV} to an absolute folder of your own.",
        )
    found = _KEYS.get(str(path))
    if found is None:
        found = _KEYS[str(path)] = _read_key(path)
    return found


def secret() -> bytes | None:
    """This user's cache key, or ``None`` (said once, with the fix) when it cannot be
    used: then no cache is read or written."""
    key = _key()
    if isinstance(key, InputError):
        say_once("key", key.message())
        return None
    return key


def require_secret() -> bytes:
    """This user's cache key, or the :class:`InputError` saying why it cannot be used
    (``study create`` insists on its cache)."""
    key = _key()
    if isinstance(key, InputError):
        raise key
    return key


def key_id() -> str:
    """A short name of the key in use (not the key): what a process verified under one key
    is never served under another."""
    key = secret()
    return "" if key is None else _id_of(key)


def _id_of(key: bytes) -> str:
    """The short name of ``key`` that a seal carries beside its HMAC (16 hex digits of a
    hash: it tells keys apart without saying anything of the key)."""
    return hashlib.sha256(b"tradeoff key id\0" + key).hexdigest()[:16]


def _sealed_by(key: bytes, mac: bytes) -> bytes:
    """What is written as a seal: the HMAC, a space and the key's short name."""
    return mac + b" " + _id_of(key).encode()


def _check_key(key: bytes, written: bytes) -> None:
    """:class:`OtherKey` when ``written`` (a seal as :func:`_sealed_by` writes it) names
    another key than ``key`` (a seal without a name names none)."""
    named = written.partition(b" ")[2]
    if named and not hmac.compare_digest(named, _id_of(key).encode()):
        raise OtherKey("sealed with another key")


def _check_seal(key: bytes, written: bytes, expected: str) -> None:
    """:func:`_check_key`, then :class:`Untrusted` when the HMAC of ``written`` is not
    ``expected``."""
    _check_key(key, written)
    if not hmac.compare_digest(written.partition(b" ")[0], expected.encode()):
        raise Untrusted("the seal does not match")


# -- folders ---------------------------------------------------------------------------


def folder_problem(folder: Path) -> str | None:
    """Why the entries in ``folder`` are not trusted (it is another user's, or its group
    or others may write it), or ``None`` (a folder not there yet is made with mode 0700;
    one that cannot be reached or is not a folder holds nothing to trust, and writing to
    it fails: built in memory, as for a read-only folder).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     os.chmod(d, 0o777)
    ...     print(folder_problem(Path(d)))
    its group or others may write it (mode 777)
    """
    try:
        st = os.stat(folder)
    except OSError:  # not there, or not reachable: writing it fails, costing time only
        return None
    if not stat.S_ISDIR(st.st_mode):
        return None  # nothing is read from it, and writing it fails
    if st.st_uid != os.geteuid():
        return f"it belongs to another user (uid {st.st_uid})"
    if st.st_mode & 0o022:
        return f"its group or others may write it (mode {stat.S_IMODE(st.st_mode):o})"
    return None


def usable_folder(folder: Path, *, strict: bool = False) -> bool:
    """Whether entries may be read from and written to ``folder``: this user's key can be
    used and the folder is this user's alone (:func:`folder_problem`). When not, the
    command says once why and how to fix it (with ``strict`` it raises that as an
    :class:`InputError`)."""
    if strict:
        require_secret()
    elif secret() is None:
        return False
    problem = folder_problem(folder)
    if problem is None:
        return True
    error = InputError.single(
        folder,
        "",
        f"cache folder not used: {problem}, so its entries may not be this user's; what it "
        "would hold was built in memory.",
        f"run chmod go-w {folder} if the folder is yours, or use a cache folder of your own.",
    )
    if strict:
        raise error
    say_once(f"folder {folder}", error.message())
    return False


def make_folder(folder: Path) -> None:
    """``folder`` made if missing, mode 0700 (its parents as the umask says)."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)


def rebuilt(folder: Path, why: BaseException | None = None) -> None:
    """Say (once per folder) that entries there were not used and were rebuilt: sealed
    with another key (``why`` is :class:`OtherKey`: the key in use is named, since two
    processes of one user that see different ``$XDG_STATE_HOME`` or ``$HOME`` use two
    keys), or not written as they are by this user's tradeoff."""
    if isinstance(why, OtherKey):
        say_once(
            f"rebuilt {folder} key",
            f"{folder}: cache entries sealed with another key than this user's "
            f"({key_path()}) were not used: they were set aside and rebuilt. They were made "
            f"by another user, or by a tradeoff that read {STATE_ENV} or HOME from another "
            "folder; give every command of a study the same ones.",
        )
        return
    say_once(
        f"rebuilt {folder}",
        f"{folder}: cache entries this user's tradeoff did not write (edited, or copied from "
        "another folder, user or machine) were not used: they were set aside and rebuilt.",
    )


# -- the seal --------------------------------------------------------------------------


def _field(h: Any, data: bytes | memoryview) -> None:
    h.update(len(data).to_bytes(8, "big"))
    h.update(data)


def seal(key: bytes, kind: str, name: str, parts: Mapping[str, Part]) -> str:
    """The HMAC-SHA256 under ``key`` of an entry: its kind, its name (holding its cache
    key), and each part by name: bytes as they are, an array by its type, shape and bytes.

    >>> a = seal(b"k" * 32, "record", "facts-1", {"data": b"{}"})
    >>> a == seal(b"k" * 32, "record", "facts-2", {"data": b"{}"})
    False
    >>> a == seal(b"j" * 32, "record", "facts-1", {"data": b"{}"})
    False
    """
    h = hmac.new(key, digestmod=hashlib.sha256)
    _field(h, b"tradeoff cache seal 1")
    _field(h, kind.encode())
    _field(h, name.encode())
    for part in sorted(parts):
        value = parts[part]
        _field(h, part.encode())
        if isinstance(value, bytes):
            _field(h, b"bytes")
            _field(h, value)
        else:
            array = np.ascontiguousarray(value)
            _field(h, b"array")
            _field(h, array.dtype.str.encode())
            _field(h, repr(tuple(int(s) for s in array.shape)).encode())
            _field(h, array.data.cast("B") if array.size else b"")
    return h.hexdigest()


# -- entries: a folder of parts and its seal -------------------------------------------


def _write_file(folder: Path, name: str, write: Callable[[BinaryIO], object]) -> None:
    fd = os.open(folder / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "wb") as fh:
        write(fh)


def write_entry(entry: Path, parts: Mapping[str, Part]) -> None:
    """Write the entry folder ``entry`` whole (a temporary folder of mode 0700, its files
    0600 and its seal, then one rename); a folder already in place (another process wrote
    the same entry first) is kept. The caller checked the folder (:func:`usable_folder`)."""
    key = require_secret()
    make_folder(entry.parent)
    tmp = Path(tempfile.mkdtemp(dir=entry.parent, prefix=f".tmp-{entry.name[:20]}-"))
    try:
        for name, value in parts.items():
            if isinstance(value, bytes):
                _write_file(tmp, name, lambda fh, v=value: fh.write(v))  # type: ignore[misc]
            else:
                array = np.ascontiguousarray(value)
                _write_file(tmp, name, lambda fh, a=array: np.save(fh, a))  # type: ignore[misc]
        mac = _sealed_by(key, seal(key, "entry", entry.name, parts).encode())
        _write_file(tmp, SEAL, lambda fh: fh.write(mac))
        try:
            os.rename(tmp, entry)
        except OSError:  # another process put the same entry in place first
            shutil.rmtree(tmp, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _check_owned(st: os.stat_result, what: str) -> None:
    if st.st_uid != os.geteuid():
        raise Untrusted(f"{what} belongs to another user")
    if st.st_mode & 0o022:
        raise Untrusted(f"{what} may be written by others")


def _read_whole(fd: int, size: int) -> bytes:
    if size > READ_LIMIT:
        raise ValueError("too large for a cache file")
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def _mapped_array(fd: int, size: int) -> NDArray[Any]:
    """The ``.npy`` array in the open file ``fd``, memory-mapped from that descriptor."""
    with os.fdopen(os.dup(fd), "rb") as fh:
        version = npy_format.read_magic(fh)
        if version == (1, 0):
            shape, fortran, dtype = npy_format.read_array_header_1_0(fh)
        elif version == (2, 0):
            shape, fortran, dtype = npy_format.read_array_header_2_0(fh)
        else:
            raise ValueError("another .npy version")
        if fortran or dtype.hasobject:
            raise ValueError("not a plain array")
        offset = fh.tell()
        count = reduce(lambda a, b: a * b, shape, 1)
        if size != offset + count * dtype.itemsize:
            raise ValueError("the file's size does not match its array")
        if count == 0:
            return np.empty(shape, dtype=dtype)
        return np.memmap(fh, dtype=dtype, mode="r", offset=offset, shape=shape)


@contextlib.contextmanager
def _opened(name: str | Path, dir_fd: int | None = None) -> Iterator[tuple[int, os.stat_result]]:
    fd = os.open(name, _OPEN, dir_fd=dir_fd)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise Untrusted("not a regular file")
        _check_owned(st, str(name))
        yield fd, st
    finally:
        os.close(fd)


def read_entry(entry: Path) -> dict[str, Part]:
    """The parts of the entry folder ``entry`` (``.npy`` parts memory-mapped, the others
    as bytes), after checking its seal; :class:`Untrusted` when this user's key did not
    seal exactly these parts under this name, or a file is not this user's alone;
    ``ValueError`` or ``OSError`` when it cannot be read."""
    key = secret()
    if key is None:
        raise Untrusted("no key")
    dfd = os.open(entry, _OPEN_DIR)
    try:
        _check_owned(os.fstat(dfd), "the entry")
        names = sorted(os.listdir(dfd))
        if SEAL not in names:
            raise Untrusted("no seal")
        with _opened(SEAL, dfd) as (fd, st):  # first: whose key sealed it
            mac = _read_whole(fd, st.st_size)
        _check_key(key, mac)
        parts: dict[str, Part] = {}
        for name in names:
            if name != SEAL:
                with _opened(name, dfd) as (fd, st):
                    if name.endswith(".npy"):
                        parts[name] = _mapped_array(fd, st.st_size)
                    else:
                        parts[name] = _read_whole(fd, st.st_size)
    finally:
        os.close(dfd)
    _check_seal(key, mac, seal(key, "entry", entry.name, parts))
    return parts


# -- records: one sealed file ----------------------------------------------------------

_RECORD_HEAD = b"tradeoff-cache-record 1 "


def write_record(path: Path, payload: bytes) -> None:
    """Write the record ``path`` whole (a temporary name of mode 0600, then one rename):
    a first line with its seal, then ``payload``."""
    key = require_secret()
    make_folder(path.parent)
    mac = _sealed_by(key, seal(key, "record", path.name, {"data": payload}).encode())
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(_RECORD_HEAD + mac + b"\n" + payload)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_record(path: Path) -> bytes | None:
    """The payload of the record ``path`` once its seal is checked; ``None`` when there is
    none; :class:`Untrusted` when this user's key did not seal this payload under this
    name, or the file is not this user's alone."""
    key = secret()
    if key is None:
        raise Untrusted("no key")
    try:
        with _opened(path) as (fd, st):
            data = _read_whole(fd, st.st_size)
    except FileNotFoundError:
        return None
    head, newline, payload = data.partition(b"\n")
    if not newline or not head.startswith(_RECORD_HEAD):
        raise Untrusted("not a sealed record")
    _check_seal(key, head[len(_RECORD_HEAD) :], seal(key, "record", path.name, {"data": payload}))
    return payload
