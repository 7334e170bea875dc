"""Studies: many participants, each with an access code that opens their own session only.

A study is a folder (docs/architecture.md, "Files"):

* ``study.json``: the scenario file's name and SHA-256, the salt, and one entry per
  participant: its id and the salted hash of its access code (the code itself is never
  stored: it is shown once, when the study is made);
* the scenario, copied with every file it refers to (``[pool]`` and a probability
  population), at the same relative paths, so the study does not change when the originals
  do;
* ``sessions/``: one folder per participant, as ``tradeoff elicit`` writes them;
* ``attempts.log``: the times of wrong access codes, for the growing delay (only its end
  is read, and it is rotated past ``ATTEMPTS_ROTATE`` bytes: the whole log is kept in
  ``attempts-<time>.log`` files beside it, never on the way of a request);
* ``withdrawals.jsonl``: one line per withdrawal (``study withdraw``).

Every shared file of a study is opened only when it is a regular file (never through a
symbolic link, never a FIFO or a device that would block a reader) and read to a bound.

An access code is 16 characters of Crockford's base 32 (80 bits), shown in groups of four
(``K7QM-2XVD-…``); typing is forgiving (case, spaces, dashes and look-alikes do not
matter). Codes are checked with scrypt over a per-study random salt, so a stolen
``study.json`` does not give the codes away and each guess costs the guesser time.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import hmac
import json
import os
import re
import secrets
import shutil
import stat
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tradeoff.ask.scenario import load_scenario
from tradeoff.errors import InputError, Problem
from tradeoff.record.records import AnswerRecord, Header, check_participant
from tradeoff.record.summary import summarise

#: Letters of an access code: Crockford's base 32 (no I, L, O or U), 5 bits each; a typed
#: O counts as 0 and I or L as 1.
CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
CODE_LENGTH = 16
CODE_BITS = 80
STUDY_FILE = "study.json"
#: The version of ``study.json`` written (2: the hash of every copied file); 1 is read too.
STUDY_VERSION = 2
#: Versions of ``study.json`` this tradeoff reads.
STUDY_VERSIONS = (1, 2)
#: study.json is read only up to this size (10,000 participants take about 1.2 MB).
STUDY_FILE_LIMIT = 16_000_000
ATTEMPTS_FILE = "attempts.log"
#: The information and consent text in a study (Markdown), and its largest size.
CONSENT_FILE = "consent.md"
CONSENT_LIMIT = 200_000
#: scrypt cost (about 30 ms a check on a laptop core).
_SCRYPT = {"n": 2**14, "r": 8, "p": 1, "dklen": 32}
#: Wrong codes within this many seconds count toward the delay.
ATTEMPT_WINDOW = 600.0
#: A wrong code's delay is counted from at most this many bytes at the end of
#: ``attempts.log``. A line is at most 80 bytes, so this holds over 1,600 lines: more than
#: the 1,000 recent wrong codes that bring the shared delay to its ceiling.
ATTEMPTS_TAIL = 128 * 1024
#: Past this size ``attempts.log`` is rotated: the whole file is kept as
#: ``attempts-<time>.log`` and ``attempts.log`` starts again from its last
#: ``ATTEMPTS_TAIL`` bytes (the window the delay needs).
ATTEMPTS_ROTATE = 1024 * 1024
#: How long a wrong code waits for another process appending to ``attempts.log``.
ATTEMPTS_LOCK_WAIT = 2.0
WITHDRAWALS_FILE = "withdrawals.jsonl"
#: withdrawals.jsonl is read only up to this size (10,000 withdrawals take about 2 MB).
WITHDRAWALS_LIMIT = 16_000_000
#: Folders whose files are the system's, never a study's text (``/proc/self/environ``).
SYSTEM_FOLDERS = (Path("/proc"), Path("/sys"), Path("/dev"))


def new_code() -> str:
    """A fresh random access code, grouped by four: 16 characters, 80 bits.

    >>> len(new_code().replace("-", "")), new_code().count("-")
    (16, 3)
    """
    raw = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
    return "-".join(raw[i : i + 4] for i in range(0, CODE_LENGTH, 4))


def normalise_code(text: str) -> str:
    """A typed code as stored: capitals, without spaces or dashes, look-alikes read as the
    code's own letters (O as 0, I and L as 1).

    >>> normalise_code(" k7qm-2xvd 9hjk-abOl ")
    'K7QM2XVD9HJKAB01'
    """
    table = str.maketrans({"O": "0", "I": "1", "L": "1"})
    return "".join(ch for ch in text.upper() if ch.isalnum()).translate(table)


def hash_code(code: str, salt: bytes) -> str:
    """The salted scrypt hash of a code (hex)."""
    return hashlib.scrypt(normalise_code(code).encode(), salt=salt, **_SCRYPT).hex()


def _kind(mode: int) -> str:
    """What a file that is not a regular one is, in words.

    >>> _kind(stat.S_IFIFO), _kind(stat.S_IFLNK)
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
        self.kind = _kind(mode)
        super().__init__(errno.EINVAL, f"is {self.kind}, not a regular file", str(path))


def _open_regular(path: Path, flags: int, mode: int = 0o666) -> int:
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


def _read_bounded(fd: int, limit: int) -> bytes:
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


def _write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` or raise (a short write is a full disk)."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        if written <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        view = view[written:]


def _sync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable (where the system allows)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _replace_atomically(path: Path, data: bytes, mode: int = 0o644) -> None:
    """``path`` holds ``data`` whole, or is as it was: ``data`` is written to a new file
    in the same folder, synced, then renamed over ``path``. On any error the new file is
    removed and the error raised."""
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, mode)
    try:
        try:
            os.fchmod(fd, mode)
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _sync_folder(path.parent)


@dataclass(frozen=True)
class Study:
    """A study folder, read and checked."""

    path: Path
    scenario: str
    scenario_sha256: str
    salt: bytes
    participants: dict[str, str]  # id → code hash
    created: str
    #: SHA-256 of every file copied with the scenario (pool, population), by path in the
    #: study (version 2; empty for a version 1 study, which recorded the scenario's only).
    files: dict[str, str] = field(default_factory=dict)
    #: The information and consent text participants read before the first question (a
    #: Markdown file in the study, hashed in ``files``) and its version, or ``None``.
    consent_file: str | None = None
    consent_version: str | None = None

    @property
    def consent_path(self) -> Path | None:
        return None if self.consent_file is None else self.path / self.consent_file

    @property
    def scenario_path(self) -> Path:
        return self.path / self.scenario

    @property
    def sessions_dir(self) -> Path:
        return self.path / "sessions"

    @property
    def cache_dir(self) -> Path:
        """Where the population, its sorted tables and the pool's models are kept for every
        participant's process to memory-map (:mod:`tradeoff.study.cache`)."""
        return self.path / "cache"

    def participant_for(self, code: str) -> str | None:
        """The participant whose code this is, or ``None`` (every entry is compared, in
        constant time, so the answer's timing says nothing about which ids exist)."""
        digest = hash_code(code, self.salt)
        found = None
        for pid, stored in self.participants.items():
            if hmac.compare_digest(digest, stored):
                found = pid
        return found


def _referenced(scenario_path: Path) -> list[str]:
    """Files a scenario refers to, relative to its folder (pool, probability population)."""
    import tomllib

    data = tomllib.loads(scenario_path.read_text(encoding="utf-8"))
    out = []
    pool = data.get("pool", {})
    if isinstance(pool, dict) and isinstance(pool.get("path"), str):
        out.append(pool["path"])
    population = data.get("population", {})
    if isinstance(population, dict) and isinstance(population.get("path"), str):
        out.append(population["path"])
    return out


def read_participants(text: str, source: str) -> list[str]:
    """Participant ids, one per line (blank lines and ``#`` comments skipped), each a safe
    folder name and none twice."""
    ids: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        pid = line.split("#", 1)[0].strip()
        if not pid:
            continue
        try:
            check_participant(pid)
        except InputError as exc:
            raise InputError.single(
                source,
                f"line {number}",
                f"{pid!r} is not a usable participant id ({exc.problems[0].problem}).",
                "use letters, digits, '-', '_' or '.', one id per line.",
            ) from None
        if pid in ids:
            raise InputError.single(
                source, f"line {number}", f"{pid!r} appears twice.", "give each id once."
            )
        ids.append(pid)
    if not ids:
        raise InputError.single(source, "", "names no participant.", "give one id per line.")
    return ids


def _sha256(path: Path) -> str:
    """The SHA-256 of a regular file, read in pieces (never through a link or from a FIFO)."""
    digest = hashlib.sha256()
    fd = _open_regular(path, os.O_RDONLY)
    try:
        while chunk := os.read(fd, 1 << 20):
            digest.update(chunk)
    finally:
        os.close(fd)
    return digest.hexdigest()


def _check_copyable(src: Path, rel: str) -> None:
    """A file a scenario names may be copied into a study: below the scenario's folder,
    a regular file, and no symbolic link on the way (a copy never follows a link out of
    the study, such as a pool linked to ``/etc/passwd``)."""
    if Path(rel).is_absolute() or ".." in Path(rel).parts:
        raise InputError.single(
            src,
            "path",
            f"{rel!r} is outside the scenario's folder.",
            "give paths relative to the scenario file, below its folder.",
        )
    here = src.parent
    for part in Path(rel).parts:
        here = here / part
        if here.is_symlink():
            raise InputError.single(
                src,
                "path",
                f"{rel!r} goes through the symbolic link {str(here)!r}; a study copies only "
                "real files.",
                "copy the file itself there instead of a link.",
            )
    if not (src.parent / rel).is_file():
        raise InputError.single(
            src,
            "path",
            f"names {rel!r}, which is not a file in {src.parent}.",
            "put the file there or correct the path; a study copies every file its scenario names.",
        )


def _system_folder(path: Path) -> Path | None:
    """The system folder (``/proc``, ``/sys``, ``/dev``) ``path`` lies in, links followed.

    >>> _system_folder(Path("/proc/self/environ")), _system_folder(Path("/nonexistent/x.md"))
    (PosixPath('/proc'), None)
    """
    try:
        real = path.resolve()
    except (OSError, RuntimeError):
        real = path.absolute()
    for folder in SYSTEM_FOLDERS:
        if real == folder or real.is_relative_to(folder) or path.absolute().is_relative_to(folder):
            return folder
    return None


def read_consent(path: Path) -> str:
    """An information and consent text: a UTF-8 Markdown file of at most 200 KB with some
    words in it (shown to participants as safe HTML: raw HTML in it is shown as text).

    Only a regular file is read: a FIFO, a device or a file under ``/proc``, ``/sys`` or
    ``/dev`` (``/proc/self/environ`` would make the process's environment the text) is
    refused, and no more than the size limit is ever read."""
    give = "give the consent text's own Markdown file."
    system = _system_folder(path)
    if system is not None:
        raise InputError.single(
            path, "", f"is a file of the system ({system}), not a consent text.", give
        )
    try:
        fd = _open_regular(path.resolve(), os.O_RDONLY)
    except NotRegularFile as exc:
        raise InputError.single(path, "", f"{exc.strerror}.", give) from None
    except FileNotFoundError:
        raise InputError.single(path, "", "is not a file.", give) from None
    except OSError as exc:
        raise InputError.single(
            path, "", f"cannot be read ({exc.strerror}).", "check the file's permissions."
        ) from None
    try:
        data = _read_bounded(fd, CONSENT_LIMIT + 1)
    finally:
        os.close(fd)
    if len(data) > CONSENT_LIMIT:
        raise InputError.single(
            path, "", f"is larger than {CONSENT_LIMIT // 1000} KB.", "shorten the text."
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError.single(
            path, f"byte {exc.start}", "is not UTF-8 text.", "save it as UTF-8 Markdown."
        ) from None
    if not text.strip():
        raise InputError.single(path, "", "is empty.", "write the information participants read.")
    return text


def check_consent_version(version: str) -> str:
    """A consent text's version: 1–64 printable characters (recorded with each consent).

    >>> check_consent_version("2026-11 v2")
    '2026-11 v2'
    """
    if not (1 <= len(version) <= 64 and version.isprintable()):
        raise InputError.single(
            "--consent-version",
            "",
            f"{version[:80]!r} is not a usable version.",
            "give 1–64 printable characters, e.g. 1 or 2026-11.",
        )
    return version


def _write_codes(codes_file: Path, codes: dict[str, str]) -> None:
    """The access codes as CSV, readable by the owner only (0600), in a file that must not
    exist yet (not even as a dangling link): created with ``O_EXCL`` and synced."""
    import csv
    import io
    import os

    if not codes_file.parent.is_dir():
        raise InputError.single(
            codes_file, "", "its folder does not exist.", "give a file in an existing folder."
        )
    try:
        fd = os.open(codes_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        raise InputError.single(
            codes_file,
            "",
            "exists already (a file or a link); codes are never written over anything.",
            "give a new file name.",
        ) from None
    except OSError as exc:
        raise InputError.single(
            codes_file, "", f"cannot be created ({exc.strerror}).", "give a file you can write."
        ) from None
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["participant", "access_code"])
    writer.writerows(codes.items())
    try:
        try:
            _write_all(fd, buffer.getvalue().encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as exc:  # a full disk: no codes file, so no study either
        codes_file.unlink(missing_ok=True)
        raise InputError.single(
            codes_file,
            "",
            f"the access codes could not be written ({exc.strerror or exc}); no study was "
            "made and no codes file was left.",
            "free some space (or give a folder with room), then run study create again.",
        ) from None


def create_study(
    scenario_path: str | Path,
    participants: Sequence[str],
    out: str | Path,
    *,
    codes_file: str | Path | None = None,
    consent: str | Path | None = None,
    consent_version: str = "1",
) -> tuple[Study, dict[str, str]]:
    """Make a study folder; returns the study and every participant's access code.

    The codes are returned once and stored only as salted hashes; with ``codes_file`` they
    are first written there (mode 0600, a new file), before anything else is made, so a
    study is never left without its codes. ``out`` must not exist yet, or be an empty
    folder: nothing already there is overwritten. ``study.json`` records the SHA-256 of
    every file copied into the study, and every command that reads the study checks them.
    When anything fails, nothing of the study is left behind (nor the codes file).

    ``consent`` is a Markdown file of information and consent that the study web page
    shows before the first question (copied as ``consent.md``, hashed, with
    ``consent_version``); a participant's agreement opens their session file.
    """
    loaded = load_scenario(scenario_path)  # validated before anything is written
    consent_text = None if consent is None else read_consent(Path(consent))
    check_consent_version(consent_version)
    src = Path(loaded.path)
    dest = Path(out)
    existed = dest.exists()
    if existed and (not dest.is_dir() or any(dest.iterdir())):
        raise InputError.single(
            dest,
            "",
            "already exists and is not an empty folder.",
            "give a new folder for the study; an existing study is never overwritten.",
        )
    if len(participants) != len(set(participants)) or not participants:
        raise InputError.single("participants", "", "need distinct ids.", "give each id once.")
    for pid in participants:
        check_participant(pid)
    referenced = _referenced(src)
    for rel in referenced:
        _check_copyable(src, rel)
    codes = {pid: new_code() for pid in participants}
    codes_path = None if codes_file is None else Path(codes_file)
    if codes_path is not None:
        _write_codes(codes_path, codes)
    try:
        study = _make_study(
            src, referenced, participants, dest, codes, consent_text, consent_version
        )
    except BaseException as exc:
        _remove_made(dest, existed)
        if codes_path is not None:
            codes_path.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise InputError.single(
                dest,
                "",
                f"the study could not be made ({exc.strerror or exc}); nothing was left behind.",
                "give a folder you can write to, with room for the study.",
            ) from None
        raise
    return study, codes


def _remove_made(dest: Path, existed: bool) -> None:
    """Remove what a failed ``create_study`` made in ``dest`` (it was new, or empty)."""
    if not dest.is_dir():
        return
    if existed:
        for child in dest.iterdir():
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child, ignore_errors=True)
            else:
                child.unlink(missing_ok=True)
    else:
        shutil.rmtree(dest, ignore_errors=True)


def _make_study(
    src: Path,
    referenced: Sequence[str],
    participants: Sequence[str],
    dest: Path,
    codes: dict[str, str],
    consent_text: str | None = None,
    consent_version: str = "1",
) -> Study:
    dest.mkdir(parents=True, exist_ok=True)
    files: dict[str, str] = {}
    if consent_text is not None:
        (dest / CONSENT_FILE).write_text(consent_text, encoding="utf-8")
        files[CONSENT_FILE] = _sha256(dest / CONSENT_FILE)
    for rel in referenced:
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src.parent / rel, target, follow_symlinks=False)
        files[Path(rel).as_posix()] = _sha256(target)
    shutil.copyfile(src, dest / "scenario.toml", follow_symlinks=False)
    (dest / "sessions").mkdir()
    salt = secrets.token_bytes(16)
    study = Study(
        path=dest,
        scenario="scenario.toml",
        scenario_sha256=_sha256(dest / "scenario.toml"),
        salt=salt,
        participants={pid: hash_code(codes[pid], salt) for pid in participants},
        created=datetime.now(UTC).isoformat(timespec="seconds"),
        files=files,
        consent_file=None if consent_text is None else CONSENT_FILE,
        consent_version=None if consent_text is None else consent_version,
    )
    document = {
        "version": STUDY_VERSION,
        "scenario": study.scenario,
        "scenario_sha256": study.scenario_sha256,
        "files": files,
        "created": study.created,
        "salt": salt.hex(),
        "code_hash": "scrypt n=16384 r=8 p=1 over the code without dashes, in capitals",
        "participants": [{"id": p, "code_hash": h} for p, h in study.participants.items()],
    }
    if consent_text is not None:
        document["consent"] = {"file": CONSENT_FILE, "version": consent_version}
    tmp = dest / (STUDY_FILE + ".tmp")
    tmp.write_text(json.dumps(document, indent=2) + "\n")
    tmp.replace(dest / STUDY_FILE)
    prepare_cache(study)
    return study


def prepare_cache(study: Study) -> int:
    """Build what every participant's process would otherwise rebuild (the population,
    its sorted tables, the pool's models) in the study's ``cache/`` folder, so each process
    memory-maps them (:mod:`tradeoff.study.cache`). Returns the folder's size in bytes.

    A participant's process builds a missing entry itself, so a deleted cache only costs
    time.
    """
    from tradeoff.study.cache import cached_candidates, cached_population

    scenario = load_scenario(study.scenario_path).scenario
    population = cached_population(scenario, study.cache_dir)
    cached_candidates(
        scenario,
        study.path,
        population.priors.tolist(),
        scenario.elicitation.stop,
        study.cache_dir,
    )
    return sum(f.stat().st_size for f in study.cache_dir.rglob("*") if f.is_file())


def load_study(folder: str | Path) -> Study:
    """Read a study folder: ``study.json`` checked (its version, every participant id once
    and well formed) and every copied file unchanged since the study was made."""
    root = Path(folder)
    path = root / STUDY_FILE
    if not path.is_file():
        raise InputError.single(
            root, "", f"has no {STUDY_FILE}.", "give a folder made by `tradeoff study create`."
        )
    restore = "restore it as `tradeoff study create` wrote it."
    if path.stat().st_size > STUDY_FILE_LIMIT:
        raise InputError.single(
            path, "", f"is larger than {STUDY_FILE_LIMIT // 1_000_000} MB.", restore
        )
    field = ""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise TypeError("its top level is not an object")
        version = data.get("version")
        field = "salt"
        salt = bytes.fromhex(data["salt"])
        field = "participants"
        entries = [(str(p["id"]), str(p["code_hash"])) for p in data["participants"]]
        field = "scenario"
        scenario = str(data["scenario"])
        field = "scenario_sha256"
        sha = str(data["scenario_sha256"])
        field = "files"
        created = str(data.get("created", ""))
        files = {str(k): str(v) for k, v in dict(data.get("files", {})).items()}
        field = "consent"
        consent = data.get("consent")
        consent_file = consent_version = None
        if consent is not None:
            consent_file, consent_version = str(consent["file"]), str(consent["version"])
    except RecursionError:
        raise InputError.single(
            path, "", "is nested too deeply to be a study file.", restore
        ) from None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        reason = "missing" if isinstance(exc, KeyError) else str(exc)[:200]
        problem = (
            f"is missing or not what a study file holds there ({reason})."
            if field
            else f"is not a study file ({reason})."
        )
        raise InputError.single(path, field, problem, restore) from None
    if version not in STUDY_VERSIONS or isinstance(version, bool):
        raise InputError.single(
            path,
            "version",
            f"is {version!r}; this tradeoff reads study versions "
            f"{', '.join(map(str, STUDY_VERSIONS))}.",
            "open the study with the tradeoff version that made it.",
        )
    participants: dict[str, str] = {}
    for number, (pid, code_hash) in enumerate(entries, start=1):
        check_participant(pid)
        if pid in participants:
            raise InputError.single(
                path,
                f"participants[{number}]",
                f"{pid!r} appears twice (the first one's code would never open).",
                restore,
            )
        participants[pid] = code_hash
    scenario_file = root / scenario
    if not scenario_file.is_file() or Path(scenario).name != scenario:
        raise InputError.single(path, "scenario", f"{scenario!r} is missing.", "restore it.")
    checks = {scenario: sha, **files}
    for rel, expected in checks.items():
        copy = root / rel
        if Path(rel).is_absolute() or ".." in Path(rel).parts or copy.is_symlink():
            raise InputError.single(path, f"files[{rel!r}]", "is not a file in the study.", restore)
        if not copy.is_file():
            raise InputError.single(
                copy, "", "is missing from the study.", "restore the study's copy."
            )
        try:
            actual = _sha256(copy)
        except OSError as exc:
            raise InputError.single(
                copy, "", f"cannot be read ({exc.strerror or exc}).", "restore the study's copy."
            ) from None
        if actual != expected:
            raise InputError.single(
                copy,
                "",
                "has changed since the study was made (its SHA-256 differs from the one in "
                f"{STUDY_FILE}).",
                "restore the study's copy; make a new study for new files.",
            )
    if consent_file is not None and consent_file not in files:
        raise InputError.single(
            path, "consent", f"names {consent_file!r}, which files does not hash.", restore
        )
    return Study(
        root, scenario, sha, salt, participants, created, files, consent_file, consent_version
    )


# -- wrong codes ------------------------------------------------------------------------


#: What a source (a client's address, a trusted proxy's forwarded one) may hold as logged.
_SOURCE_RE = re.compile(r"[0-9A-Za-z:.\-]{1,64}")


def clean_source(source: str | None) -> str:
    r"""A client address as logged: letters, digits, ':', '.' and '-' only, or ``unknown``.

    >>> clean_source("192.0.2.7"), clean_source("::1"), clean_source("a b\n"), clean_source(None)
    ('192.0.2.7', '::1', 'unknown', 'unknown')
    """
    if source and _SOURCE_RE.fullmatch(source):
        return source
    return "unknown"


def client_source(remote: str | None, forwarded_for: str | None, trust_proxy: bool) -> str:
    """The address a request is counted against: the last hop of ``X-Forwarded-For`` when
    a trusted reverse proxy adds it (only then: anyone can send that header), else the
    connection's own address; as :func:`clean_source` logs it.

    >>> client_source("127.0.0.1", "203.0.113.9, 198.51.100.7", True)
    '198.51.100.7'
    >>> client_source("127.0.0.1", "198.51.100.7", False)
    '127.0.0.1'
    """
    if trust_proxy and forwarded_for:
        last = forwarded_for.split(",")[-1].strip()
        if last:
            return clean_source(last)
    return clean_source(remote)


def _attempt_lines(study: Study) -> list[bytes]:
    """The whole lines in the last ``ATTEMPTS_TAIL`` bytes of ``attempts.log`` (a bounded
    read, whatever its history: the file is read from its end). A missing file, or one
    that is not a regular file, holds none (:func:`record_failure` refuses to write it)."""
    try:
        fd = _open_regular(study.path / ATTEMPTS_FILE, os.O_RDONLY)
    except OSError:
        return []
    try:
        size = os.fstat(fd).st_size
        start = max(0, size - ATTEMPTS_TAIL)
        os.lseek(fd, start, os.SEEK_SET)
        data = _read_bounded(fd, ATTEMPTS_TAIL)
    finally:
        os.close(fd)
    lines = data.split(b"\n")
    if start > 0:
        lines = lines[1:]  # begun mid-line
    return lines[:-1]  # after the last newline: nothing, or a line being written


def _failure_counts(study: Study, now: float | None, source: str | None) -> tuple[int, int]:
    """Wrong codes in the last ``ATTEMPT_WINDOW`` seconds: from ``source`` (from anywhere
    when it is ``None``) and from anywhere, out of one bounded read of the log's end."""
    now = time.time() if now is None else now
    wanted = None if source is None else clean_source(source).encode()
    own = every = 0
    for line in _attempt_lines(study):
        when, _, who = line.partition(b" ")
        try:
            recent = now - float(when) < ATTEMPT_WINDOW
        except ValueError:
            continue
        if recent:
            every += 1
            own += wanted is None or (who or b"unknown") == wanted
    return own, every


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
    written (a full disk) is cut off again and the error raised. Past ``ATTEMPTS_ROTATE``
    bytes the log is rotated (:func:`_rotate_attempts`)."""
    line = f"{time.time() if now is None else now:.3f} {clean_source(source)}\n".encode()
    path = study.path / ATTEMPTS_FILE
    for _ in range(16):
        fd = _open_regular(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
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
                _write_all(fd, line)
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
    reader = _open_regular(path, os.O_RDONLY)
    try:
        if os.fstat(reader).st_ino != os.fstat(fd).st_ino:
            return
        start = max(0, size - ATTEMPTS_TAIL)
        os.lseek(reader, start, os.SEEK_SET)
        tail = _read_bounded(reader, size - start)
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
            _write_all(out, tail)
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
    _sync_folder(path.parent)


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
    mine, everyone = _failure_counts(study, now, source)
    own = failure_delay(mine)
    every, step = GLOBAL_STEP
    shared = min(GLOBAL_CEILING, step * (everyone // every))
    return min(60.0, own + shared)


# -- withdrawal ---------------------------------------------------------------------------


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
        times[record["participant"]] = record["time"]
    return times, problems


def _withdrawals_bytes(path: Path) -> tuple[bytes, list[Problem]]:
    """The bytes of ``withdrawals.jsonl`` (empty when missing), at most
    ``WITHDRAWALS_LIMIT``, and what keeps it from being read whole."""
    try:
        fd = _open_regular(path, os.O_RDONLY)
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
        data = _read_bounded(fd, WITHDRAWALS_LIMIT + 1)
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


class _StudyLock:
    """The exclusive ``flock`` of a study's folder, held in a ``with`` block (two ``study
    withdraw`` at once each keep the other's record). A class, not a generator: the
    project's errors are frozen and cannot be thrown into one."""

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
    never added to what cannot be read back."""
    if participant not in study.participants:
        raise InputError.single(
            study.path,
            "participant",
            f"no participant {participant!r} in this study.",
            "use an id that study status lists",
        )
    path = withdrawals_path(study)
    when = (now or datetime.now(UTC)).isoformat(timespec="seconds")
    kept = sorted(p.name for p in _session_files(study, participant)[0])
    record = {"participant": participant, "time": when, "kept_session_files": kept}
    with _StudyLock(study):
        data, problems = _withdrawals_bytes(path)
        problems += _parse_withdrawals(data, study.participants)[1]
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
            _replace_atomically(path, data + line, mode)
        except OSError as exc:
            raise InputError.single(
                path,
                "",
                f"could not be written ({exc.strerror or exc}): the withdrawal of "
                f"{participant} was not recorded, and the file is as it was.",
                "free some space, then run study withdraw again.",
            ) from None
    return record


# -- the coordinator's view -------------------------------------------------------------


@dataclass(frozen=True)
class ParticipantStatus:
    participant: str
    sessions: int
    answers: int
    complete: bool
    last_activity: str | None
    flagged: bool
    note: str = ""
    withdrawn: str | None = None
    #: Whether a session of theirs opens with their consent (the study web page's).
    consented: bool = False

    @property
    def state(self) -> str:
        """``not started``, ``consented, no answer yet``, ``unfinished after N answers``,
        ``complete``, ``withdrawn …`` or ``unreadable``.

        >>> ParticipantStatus("p01", 1, 4, False, None, False).state
        'unfinished after 4 answers'
        >>> ParticipantStatus("p01", 1, 0, False, None, False, consented=True).state
        'consented, no answer yet'
        """
        if self.withdrawn is not None:
            return f"withdrawn {self.withdrawn}"
        if self.complete:
            return "complete"
        if self.sessions == 0:
            return "not started"
        if self.note.startswith("unreadable"):
            return "unreadable"
        if self.answers == 0 and self.consented:
            return "consented, no answer yet"
        return f"unfinished after {self.answers} answers"

    def to_dict(self) -> dict[str, Any]:
        return {
            "participant": self.participant,
            "state": self.state,
            "sessions": self.sessions,
            "answers": self.answers,
            "complete": self.complete,
            "consented": self.consented,
            "last_activity": self.last_activity,
            "consistency_flagged": self.flagged,
            "note": self.note,
        }


@dataclass(frozen=True)
class StudyStatus:
    study: Study
    rows: tuple[ParticipantStatus, ...]
    #: What is wrong with the study's shared files (``withdrawals.jsonl``), each naming the
    #: file, the line and the fix.
    problems: tuple[str, ...] = ()

    @property
    def started(self) -> int:
        return sum(r.sessions > 0 for r in self.rows)

    @property
    def complete(self) -> int:
        return sum(r.complete for r in self.rows)

    def complete_sessions(self) -> list[Path]:
        """The newest complete session of every participant who has one."""
        out = []
        gone = withdrawn(self.study)
        for pid in self.study.participants:
            if pid in gone:
                continue
            sha = self.study.scenario_sha256
            done = [p for p in _session_files(self.study, pid)[0] if _facts(p, pid, sha).complete]
            if done:
                out.append(max(done, key=_mtime))
        return out

    def median_response_s(self) -> float | None:
        """Median seconds per answer over every recorded answer of every session."""
        times = sorted(
            t
            for pid in self.study.participants
            for p in _session_files(self.study, pid)[0]
            for t in _facts(p, pid, self.study.scenario_sha256).response_ms
        )
        if not times:
            return None
        mid = len(times) // 2
        ms = times[mid] if len(times) % 2 else (times[mid - 1] + times[mid]) / 2
        return round(ms / 1000, 1)

    def missing(self, exclude_inconsistent: bool = False) -> list[tuple[str, str]]:
        """Who a report over the complete sessions leaves out, and why (in study order)."""
        out = []
        for r in self.rows:
            if not r.complete or r.withdrawn is not None:
                out.append((r.participant, r.state))
            elif exclude_inconsistent and r.flagged:
                out.append((r.participant, "flagged as inconsistent and excluded"))
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "study": str(self.study.path),
            "scenario_sha256": self.study.scenario_sha256,
            "participants": len(self.rows),
            "started": self.started,
            "consented": sum(r.consented for r in self.rows),
            "withdrawn": sum(r.withdrawn is not None for r in self.rows),
            "median_response_s": self.median_response_s(),
            "complete": self.complete,
            "flagged": sum(r.flagged for r in self.rows),
            "problems": list(self.problems),
            "rows": [r.to_dict() for r in self.rows],
        }


def _session_files(study: Study, participant: str) -> tuple[list[Path], list[str]]:
    """A participant's session files that are regular files (read), and a note for every
    other ``*.jsonl`` in their folder (a FIFO, a link, a folder: never opened, since a
    FIFO would block its reader)."""
    files: list[Path] = []
    notes: list[str] = []
    folder = study.sessions_dir / participant
    # Every *.jsonl, of any kind (session.iter_sessions yields only the regular files).
    for path in sorted(folder.glob("*.jsonl")) if folder.is_dir() else ():
        try:
            mode = os.lstat(path).st_mode
        except OSError:
            continue
        if stat.S_ISREG(mode):
            files.append(path)
        else:
            notes.append(
                f"{path.name} is {_kind(mode)}, not a session file: not read. Fix: remove it "
                "or put the session file itself there."
            )
    return files, notes


def _mtime(path: Path) -> float:
    try:
        return os.lstat(path).st_mtime
    except OSError:
        return 0.0


def not_counted(header: Header, participant: str, scenario_sha256: str) -> str | None:
    """Why a session file in ``participant``'s folder of a study does not count for them
    (its header names another participant, a file copied from another folder, or another
    scenario), or ``None`` when it does. Status, report and export all ask this."""
    if header.participant != participant:
        return (
            f"recorded by participant {header.participant!r}, not {participant!r} (a file "
            "copied from another folder?)"
        )
    if header.scenario_sha256 != scenario_sha256:
        return (
            f"recorded on another scenario (sha256 {header.scenario_sha256[:12]}…, the "
            f"study's is {scenario_sha256[:12]}…)"
        )
    return None


@dataclass(frozen=True)
class _Facts:
    complete: bool
    answers: int
    flagged: bool
    problem: str = ""
    #: The reader's warnings, each naming the file and the line.
    warnings: tuple[str, ...] = ()
    #: Response times of its answers that recorded one (milliseconds).
    response_ms: tuple[float, ...] = ()
    consented: bool = False


#: What each session file says, by (path, modification time, size, the folder's participant,
#: the study's scenario hash): a live view refreshing every few seconds replays a file once
#: per change, not once per refresh.
_FACTS: dict[tuple[str, int, int, str, str], _Facts] = {}


def _facts(path: Path, participant: str, scenario_sha256: str) -> _Facts:
    """What a session file in ``participant``'s folder of a study says. A session whose
    header names another participant (a file copied from another folder) or another
    scenario is never counted, and says why; one without its closing ``result`` record is
    unfinished, with its answers counted (a file cut at a line boundary loses that record
    and so shows as unfinished: every record is chained to the one before, and only the
    closing one says the session was finished)."""
    try:
        st = os.lstat(path)
    except OSError as exc:
        return _Facts(False, 0, False, f"unreadable: {path.name}: {exc.strerror}")
    if not stat.S_ISREG(st.st_mode):
        return _Facts(False, 0, False, f"unreadable: {path.name} is {_kind(st.st_mode)}")
    key = (str(path), st.st_mtime_ns, st.st_size, participant, scenario_sha256)
    cached = _FACTS.get(key)
    if cached is None:
        try:
            summary = summarise(path)
        except InputError as exc:
            cached = _Facts(False, 0, False, f"unreadable: {exc.message()}")
        else:
            header = summary.log.header
            warnings = tuple(summary.log.warnings)
            times = tuple(
                e.response_ms
                for e in summary.log.events
                if isinstance(e, AnswerRecord) and e.response_ms is not None
            )
            foreign = not_counted(header, participant, scenario_sha256)
            if foreign is not None:
                cached = _Facts(
                    False, 0, False, f"{path.name} was {foreign}: not counted", warnings
                )
            else:
                flagged = summary.consistency is not None and summary.consistency.flagged
                cached = _Facts(
                    summary.log.finished,
                    summary.answers,
                    flagged,
                    "",
                    warnings,
                    times,
                    summary.log.consent is not None,
                )
        if len(_FACTS) > 4096:
            _FACTS.clear()
        _FACTS[key] = cached
    return cached


def study_status(study: Study) -> StudyStatus:
    """Per participant: sessions, answers of the newest, complete or not (any session),
    last activity, the consistency flag; every file is read, and a session that cannot be
    read, belongs to another participant or scenario, or carries warnings is named with
    them (file and line), never hidden."""
    rows = []
    sha = study.scenario_sha256
    withdrawals = read_withdrawals(study)
    gone = withdrawals.times
    for pid in study.participants:
        files, others = _session_files(study, pid)
        if not files:
            note = "; ".join(others)
            rows.append(ParticipantStatus(pid, 0, 0, False, None, False, note, gone.get(pid)))
            continue
        newest = max(files, key=_mtime)
        when = datetime.fromtimestamp(_mtime(newest), UTC).isoformat(timespec="seconds")
        facts = {p: _facts(p, pid, sha) for p in files}
        complete = any(f.complete for f in facts.values())
        notes = [f.problem for f in facts.values() if f.problem] + others
        notes += [w for f in facts.values() for w in f.warnings]
        rows.append(
            ParticipantStatus(
                pid,
                len(files),
                facts[newest].answers,
                complete,
                when,
                facts[newest].flagged,
                "; ".join(notes),
                gone.get(pid),
                any(f.consented for f in facts.values()),
            )
        )
    return StudyStatus(study, tuple(rows), tuple(withdrawals.messages()))
