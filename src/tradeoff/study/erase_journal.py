"""An erasure's journal (``erase-journal.json``): what :mod:`tradeoff.study.erase` writes
before it renames or removes anything, and how any command completes a journal a crash
left behind (:func:`complete_erasure`, which :func:`tradeoff.study.folder.load_study` calls
first). Each step can be done again, so a crash while completing it is completed by the
next one in turn."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

from tradeoff.errors import InputError
from tradeoff.study.entries import study_lock
from tradeoff.study.files import sync_folder, write_all

JOURNAL_FILE = "erase-journal.json"
STAGED_PREFIX = ".erase-"
#: Where a removed folder waits for its files to be removed (one rename takes it from
#: every reader at once).
TRASH_PREFIX = ".erasing-"
#: Test hook: ``TRADEOFF_ERASE_CRASH_AT=N`` ends the process at the N-th step of an
#: erasure (``os._exit``), as a crash or ``kill -9`` would.
CRASH_ENV = "TRADEOFF_ERASE_CRASH_AT"


class Steps:
    """Counts an erasure's steps; ends the process at the one :data:`CRASH_ENV` names."""

    def __init__(self) -> None:
        value = os.environ.get(CRASH_ENV, "")
        self.crash_at = int(value) if value.isdigit() else 0
        self.done = 0

    def __call__(self) -> None:
        self.done += 1
        if self.done == self.crash_at:
            os._exit(70)


def write_new(path: Path, data: bytes) -> None:
    """Write ``data`` to a new file at ``path`` (replacing a stale one), synced."""
    path.unlink(missing_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        write_all(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def file_mode(path: Path) -> int:
    try:
        return os.stat(path, follow_symlinks=False).st_mode & 0o7777
    except FileNotFoundError:
        return 0o644


def remove_stale(root: Path) -> None:
    """Temporary files of an erasure that crashed before its journal was written."""
    for path in root.glob(STAGED_PREFIX + "*"):
        if path.is_file() and not path.is_symlink():
            path.unlink(missing_ok=True)


def complete_journal(root: Path, journal: dict[str, Any], step: Steps) -> None:
    """Do what the journal says (each step again if it was done already): rename each new
    file into place, remove each folder, remove the journal."""
    for name, staged in journal["files"].items():
        source = root / staged
        if source.exists():
            os.chmod(source, int(journal["modes"].get(name, 0o644)))
            os.replace(source, root / name)
            sync_folder(root)
            if (root / name).parent != root:
                sync_folder((root / name).parent)
        step()
    for rel in journal["folders"]:
        folder = root / rel
        trash = folder.with_name(TRASH_PREFIX + folder.name)
        if folder.is_dir() and not folder.is_symlink():
            if trash.exists():
                shutil.rmtree(trash)
            os.replace(folder, trash)
            sync_folder(folder.parent)
        step()
        if trash.exists():
            shutil.rmtree(trash)
            sync_folder(folder.parent)
        step()
    (root / JOURNAL_FILE).unlink(missing_ok=True)
    sync_folder(root)
    step()


def complete_erasure(folder: str | Path) -> bool:
    """Complete an erasure a crash left half done (its journal, ``erase-journal.json``, is
    in the study), under the study's lock; ``True`` when there was one. What every command
    that reads a study does first (:func:`tradeoff.study.folder.load_study`)."""
    root = Path(folder)
    if not (root / JOURNAL_FILE).exists():
        return False
    with study_lock(root):
        return complete_locked(root, Steps())


def complete_locked(root: Path, step: Steps) -> bool:
    path = root / JOURNAL_FILE
    try:
        journal = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return False  # another process completed it
    except (OSError, ValueError) as exc:
        raise InputError.single(
            path,
            "",
            f"is an erasure's journal that cannot be read ({exc}).",
            "restore it from a backup, then run any study command again.",
        ) from None
    complete_journal(root, journal, step)
    return True
