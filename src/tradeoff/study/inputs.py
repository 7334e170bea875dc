"""What a coordinator gives a new study, checked before anything is made: the participant
ids (:func:`read_participants`), the information and consent text (:func:`read_consent`)
and its version, the page's language tag, and the files the scenario names (below its
folder, real files, no link on the way: :func:`check_copyable`), with their SHA-256.

Each is refused with an error that names the file or option, the place and the fix; no
system file (``/proc``, ``/sys``, ``/dev``) is ever read as a study's text.
:mod:`tradeoff.study.folder` makes the study from them.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from tradeoff.errors import InputError
from tradeoff.study.codes import check_code_participant
from tradeoff.study.files import NotRegularFile, open_regular, read_bounded

CONSENT_LIMIT = 200_000
SYSTEM_FOLDERS = (Path("/proc"), Path("/sys"), Path("/dev"))


def referenced_files(scenario_path: Path) -> list[str]:
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
            check_code_participant(pid)
        except InputError as exc:
            raise InputError.single(
                source,
                f"line {number}",
                f"{pid!r} is not a usable participant id: it "
                f"{exc.problems[0].problem.rstrip('.')}.",
                f"{exc.problems[0].fix.rstrip('.')}; one id per line.",
            ) from None
        if pid in ids:
            raise InputError.single(
                source, f"line {number}", f"{pid!r} appears twice.", "give each id once."
            )
        ids.append(pid)
    if not ids:
        raise InputError.single(source, "", "names no participant.", "give one id per line.")
    return ids


def file_sha256(path: Path) -> str:
    """The SHA-256 of a regular file, read in pieces (never through a link or from a FIFO)."""
    digest = hashlib.sha256()
    fd = open_regular(path, os.O_RDONLY)
    try:
        while chunk := os.read(fd, 1 << 20):
            digest.update(chunk)
    finally:
        os.close(fd)
    return digest.hexdigest()


def check_copyable(src: Path, rel: str) -> None:
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


def system_folder(path: Path) -> Path | None:
    """The system folder (``/proc``, ``/sys``, ``/dev``) ``path`` lies in, links followed.

    >>> system_folder(Path("/proc/self/environ")), system_folder(Path("/nonexistent/x.md"))
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
    system = system_folder(path)
    if system is not None:
        raise InputError.single(
            path, "", f"is a file of the system ({system}), not a consent text.", give
        )
    try:
        fd = open_regular(path.resolve(), os.O_RDONLY)
    except NotRegularFile as exc:
        raise InputError.single(path, "", f"{exc.strerror}.", give) from None
    except FileNotFoundError:
        raise InputError.single(path, "", "is not a file.", give) from None
    except OSError as exc:
        raise InputError.single(
            path, "", f"cannot be read ({exc.strerror}).", "check the file's permissions."
        ) from None
    try:
        data = read_bounded(fd, CONSENT_LIMIT + 1)
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


LANGUAGE_TAG = re.compile(r"[a-z]{2,3}(-[A-Za-z0-9]{1,8}){0,3}")


def check_language(tag: str) -> str:
    """A study's language: a language tag such as ``de`` or ``es-MX`` (the page must also
    have a catalogue for it: the command line checks that).

    >>> check_language("de")
    'de'
    """
    if not LANGUAGE_TAG.fullmatch(tag):
        raise InputError.single(
            "--language",
            repr(tag),
            "is not a language tag.",
            "give a tag such as de or en (lower-case language, then optional -REGION).",
        )
    return tag
