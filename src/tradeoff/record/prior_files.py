"""Where a study keeps the population priors its sessions started from, and reading one
back by its hash.

A prior is stored once, as the bytes of
:meth:`~tradeoff.learn.starting_prior.StartingPrior.to_bytes`, in
``priors/<sha256>.json`` beside the ``sessions`` folder (a study's folder holds both), and
never written again: a session's header names the SHA-256 (:class:`~tradeoff.record.
records.PriorRecord`), and every replay reads exactly that density (the mixture's
parameters, never fitted again), on any machine. A file that is missing or whose bytes no
longer hash to its name is refused with the session and the file named.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from tradeoff.errors import InputError
from tradeoff.learn.starting_prior import StartingPrior

__all__ = [
    "FINISHED_FILE",
    "PRIORS_FOLDER",
    "load_prior",
    "prior_path",
    "priors_folder",
    "store_prior",
]

#: The folder beside ``sessions`` that holds the priors.
PRIORS_FOLDER = "priors"
#: In the priors' folder of a study: its finished sessions, one per line (relative to
#: ``sessions/``), appended as each finishes (:mod:`tradeoff.study.pooling`).
FINISHED_FILE = "finished.txt"
#: A stored prior is read only up to this size.
PRIOR_FILE_LIMIT = 64_000_000


def priors_folder(sessions_dir: str | Path) -> Path:
    """The priors' folder of a sessions folder (its sibling ``priors``)."""
    return Path(sessions_dir).parent / PRIORS_FOLDER


def prior_path(session_file: str | Path, sha256: str) -> Path:
    """Where the prior of a session file (``<sessions>/<participant>/<file>.jsonl``) with
    hash ``sha256`` is stored."""
    return priors_folder(Path(session_file).parent.parent) / f"{sha256}.json"


def store_prior(sessions_dir: str | Path, prior: StartingPrior) -> Path:
    """Write ``prior`` into the priors' folder of ``sessions_dir`` under its hash (once:
    a file already there with that name is left as it is) and return its path."""
    folder = priors_folder(sessions_dir)
    folder.mkdir(exist_ok=True, mode=0o700)
    path = folder / f"{prior.sha256}.json"
    data = prior.to_bytes()
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o400)
    except FileExistsError:
        return path
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    return path


def load_prior(session_file: str | Path, sha256: str) -> StartingPrior:
    """The prior a session's header names, read from its study's priors' folder and
    checked against its hash (an :class:`~tradeoff.errors.InputError` naming the session's
    header and the file when it is missing, altered or unreadable)."""
    path = prior_path(session_file, sha256)
    where = "line with the header, field 'population_prior'"
    try:
        with path.open("rb") as f:
            data = f.read(PRIOR_FILE_LIMIT + 1)
    except OSError as exc:
        raise InputError.single(
            session_file,
            where,
            f"names the population prior {sha256[:12]}…, but {path} cannot be read "
            f"({exc.strerror}).",
            f"put the study's file {path.name} back in {path.parent} (it is never changed "
            "once written); without it this session cannot be replayed exactly.",
        ) from None
    found = hashlib.sha256(data).hexdigest()
    if found != sha256:
        raise InputError.single(
            session_file,
            where,
            f"names the population prior {sha256[:12]}…, but {path} now hashes to "
            f"{found[:12]}…: the file was changed after the session started.",
            f"restore {path.name} from a backup of the study; a prior file is never rewritten.",
        )
    try:
        return StartingPrior.from_bytes(data)
    except ValueError as exc:  # pragma: no cover - the hash matched a file tradeoff wrote
        raise InputError.single(session_file, where, f"{path}: {exc}.", "restore it.") from None
