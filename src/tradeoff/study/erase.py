"""Erasure on request: ``study erase`` removes a participant from every file of a study,
leaves a tombstone, and a crash on the way leaves the old state or the new one.

What is removed (:func:`erase`):

* their session folder, ``sessions/<participant>/`` (every session file: their answers),
  and, for a pilot whose sessions were moved aside, ``pilot-removed/<time>/<participant>/``;
* their lines of ``entries.jsonl`` (let in, declined, started, pilot, and every
  screen-out of their panel id);
* their lines of ``withdrawals.jsonl``;
* their lines of ``priors/finished.txt`` (the finished sessions a population prior is
  pooled from, :mod:`tradeoff.study.pooling`; the priors themselves name no one);
* their access code's hash, from ``study.json``;
* their panel id from the allow-list, ``panel-ids.txt`` (its hash in ``study.json``
  follows). The allow-list is the coordinator's list of whom to let in, but the panel id
  on it is the participant's identifier: kept, it would name them still (the study's key
  turns it into the participant id the tombstone names), and their link would let them in
  again. The coordinator's own copy, outside the study, is theirs to keep or delete.
* what this user's cache folder keeps of their session files (their answer times,
  :mod:`tradeoff.study.counted`); a cache of another user, such as the server's, keeps it
  until that user's cache is cleared.

Left as they are: ``attempts.log`` and ``entry-sources.log`` (times and addresses, tied to
no participant), ``web-revoked`` (the nonces of ended cookies) and ``keys.json``.

Every other line of every file stays byte for byte as it was, and every other session file
is left untouched (so every remaining record still verifies). ``erasures.jsonl`` gets the
tombstone (:mod:`tradeoff.study.erasures`), hash-chained to the ones before it.

Old state or new, never between: under the study's lock
(:func:`tradeoff.study.entries.study_lock`, which every writer of the shared files takes),
the new version of every file that changes is written and synced under a temporary name
(``.erase-<name>``), then a journal, ``erase-journal.json``, naming them and what is
removed; only then is anything renamed into place or removed, and the journal removed
last. A crash before the journal is on disk leaves the old state (the temporary files are
removed by the next erasure); after, every command that reads the study
(:func:`tradeoff.study.folder.load_study`) first completes the journal
(:func:`complete_erasure`): each step can be done again, so a crash while completing it
is completed by the next one in turn.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tradeoff.errors import InputError
from tradeoff.record.prior_files import FINISHED_FILE, PRIORS_FOLDER
from tradeoff.study.cache import user_cache_dir
from tradeoff.study.counted import stored_key
from tradeoff.study.entries import ENTRIES_FILE, read_entries, study_lock
from tradeoff.study.erase_journal import (
    JOURNAL_FILE,
    STAGED_PREFIX,
    Steps,
    complete_journal,
    complete_locked,
    file_mode,
    remove_stale,
    write_new,
)
from tradeoff.study.erasures import (
    DEFAULT_REQUESTER,
    ERASURES_FILE,
    check_requester,
    erasures_bytes,
    read_erasures,
    tombstone_line,
)
from tradeoff.study.files import (
    open_regular,
    read_bounded,
    replace_atomically,
    sync_folder,
)
from tradeoff.study.folder import STUDY_FILE, load_study
from tradeoff.study.panel import ALLOW_FILE, Panel
from tradeoff.study.withdrawals import WITHDRAWALS_FILE

_SHARED_LIMIT = 64_000_000


def _read(path: Path) -> bytes | None:
    """A shared file's bytes (``None`` when it does not exist)."""
    try:
        fd = open_regular(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    try:
        return read_bounded(fd, _SHARED_LIMIT)
    finally:
        os.close(fd)


def kept_lines(data: bytes, theirs: Any) -> tuple[bytes, int]:
    """``data`` without the lines ``theirs(record)`` says are the participant's (every other
    line, readable or not, kept byte for byte), and how many were removed."""
    kept: list[bytes] = []
    removed = 0
    for raw in data.splitlines(keepends=True):
        try:
            record = json.loads(raw)
        except (ValueError, RecursionError):
            record = None
        if isinstance(record, dict) and theirs(record):
            removed += 1
        else:
            kept.append(raw)
    return b"".join(kept), removed


def _allow_list(data: bytes, panel: Panel, participant: str) -> tuple[bytes, int]:
    """The allow-list without the participant's panel id (comments and every other line
    kept byte for byte; a list left empty keeps a comment saying so)."""
    kept: list[bytes] = []
    removed = 0
    for raw in data.splitlines(keepends=True):
        pid = raw.decode("utf-8", "replace").split("#", 1)[0].strip()
        if pid and panel.participant_of(pid) == participant:
            removed += 1
        else:
            kept.append(raw)
    return b"".join(kept), removed


def _answers(folder: Path) -> tuple[int, int]:
    """(session files, answer lines) in a participant's folder (and its subfolders)."""
    files = answers = 0
    for path in folder.rglob("*.jsonl") if folder.is_dir() else ():
        if path.is_symlink() or not path.is_file():
            continue
        files += 1
        with path.open("rb") as fh:
            answers += sum(line.startswith(b'{"type": "answer"') for line in fh)
    return files, answers


@dataclass(frozen=True)
class _Plan:
    """What an erasure changes: the new bytes of each file, the folders removed, and the
    tombstone."""

    files: dict[str, bytes]
    folders: list[str]
    tombstone: dict[str, Any]


def _shared_files(
    root: Path, participant: str, panel: Panel | None, removed: dict[str, Any]
) -> dict[str, bytes]:
    """The new bytes of every shared file the participant is in (``removed`` is told how
    much of each goes)."""
    files: dict[str, bytes] = {}

    def theirs(record: dict[str, Any]) -> bool:
        panel_id = record.get("panel_id")
        return record.get("participant") == participant or (
            panel is not None
            and isinstance(panel_id, str)
            and panel.participant_of(panel_id) == participant
        )

    for name, test in ((ENTRIES_FILE, theirs), (WITHDRAWALS_FILE, theirs)):
        data = _read(root / name)
        new, n = kept_lines(data or b"", test)
        if n:
            files[name], removed[name] = new, {"lines": n}
    finished = f"{PRIORS_FOLDER}/{FINISHED_FILE}"
    data = _read(root / finished)
    if data:
        mine = (participant + "/").encode("utf-8")
        lines = data.splitlines(keepends=True)
        kept = [raw for raw in lines if not raw.startswith(mine)]
        if len(kept) != len(lines):
            files[finished] = b"".join(kept)
            removed[finished] = {"lines": len(lines) - len(kept)}
    study_json = json.loads((root / STUDY_FILE).read_text(encoding="utf-8"))
    data = _read(root / ALLOW_FILE) if panel is not None and panel.allow_list else None
    if data is not None and panel is not None:
        new, n = _allow_list(data, panel, participant)
        if n:
            if not new.strip(b" \t\r\n"):
                new = b"# every panel id of this list was erased (study erase)\n"
            files[ALLOW_FILE], removed[ALLOW_FILE] = new, {"lines": n}
            study_json.setdefault("files", {})[ALLOW_FILE] = hashlib.sha256(new).hexdigest()
    coded = study_json.get("participants", [])
    left = [p for p in coded if not (isinstance(p, dict) and p.get("id") == participant)]
    if len(left) != len(coded) or ALLOW_FILE in files:
        study_json["participants"] = left  # written as study create writes it
        files[STUDY_FILE] = (json.dumps(study_json, indent=2) + "\n").encode("utf-8")
        if len(left) != len(coded):
            removed[STUDY_FILE] = {"code_hash": 1}
    return files


def _plan(root: Path, participant: str, panel: Panel | None, requested_by: str, when: str) -> _Plan:
    removed: dict[str, Any] = {}
    files = _shared_files(root, participant, panel, removed)
    folders: list[str] = []
    answers = 0
    candidates = [root / "sessions" / participant]
    pilot_root = root / "pilot-removed"
    if pilot_root.is_dir() and not pilot_root.is_symlink():
        candidates += sorted(p / participant for p in pilot_root.iterdir() if p.is_dir())
    for folder in candidates:
        if folder.is_dir() and not folder.is_symlink():
            n_files, n_answers = _answers(folder)
            rel = folder.relative_to(root).as_posix()
            folders.append(rel)
            removed[rel + "/"] = {"session_files": n_files}
            answers += n_answers
    tombstone = {
        "participant": participant,
        "time": when,
        "requested_by": requested_by,
        "removed": removed,
        "answers": answers,
    }
    return _Plan(files, folders, tombstone)


def _forget_cached(root: Path, folders: list[str]) -> None:
    """Remove what this user's cache folder keeps of the session files in ``folders``
    (their facts, keyed by the file's bytes: :mod:`tradeoff.study.counted`)."""

    cache = user_cache_dir()
    if cache is None:
        return
    try:
        study = load_study(root)
    except InputError:
        return
    for rel in folders:
        pid = Path(rel).name
        for path in (root / rel).glob("*.jsonl"):
            name = stored_key(path, study, pid)
            if name is not None:
                (cache / f"facts-{name}.json").unlink(missing_ok=True)


def erase(
    folder: str | Path,
    participant: str,
    *,
    requested_by: str = DEFAULT_REQUESTER,
    now: datetime | None = None,
) -> dict[str, Any]:
    """Erase ``participant`` from the study in ``folder`` (see the module's text); returns
    the tombstone written. A journal of an earlier erasure is completed first.

    Raises
    ------
    InputError
        When ``participant`` is not in the study, was erased already, or the tombstones
        cannot be read (a tombstone is never added to a chain that does not verify).
    """
    root = Path(folder)
    check_requester(requested_by)
    step = Steps()
    when = (now or datetime.now(UTC)).isoformat(timespec="seconds")
    with study_lock(root):
        complete_locked(root, Steps())
        remove_stale(root)
        study = load_study(root)
        known = read_erasures(root)
        if known.problems:
            error = known.error()
            assert error is not None
            raise error
        done = known.by_participant.get(participant)
        if done is not None:
            raise InputError.single(
                root,
                "participant",
                f"{participant!r} was erased already, at {done.time}.",
                "nothing is left to erase; study status lists them as erased.",
            )
        moved_pilot = participant in read_entries(root).people  # a pilot moved aside
        if participant not in study.participants and not moved_pilot:
            raise InputError.single(
                root,
                "participant",
                f"no participant {participant!r} in this study.",
                "use an id that study status lists (or their panel id).",
            )
        plan = _plan(root, participant, study.panel, requested_by, when)
        _, line = tombstone_line(known.chain, plan.tombstone)
        old = erasures_bytes(root / ERASURES_FILE)
        files = {**plan.files, ERASURES_FILE: old + line}
        _forget_cached(root, plan.folders)
        staged: dict[str, str] = {}
        for name, data in files.items():
            staged[name] = STAGED_PREFIX + name.replace("/", "--")  # beside the others
            write_new(root / staged[name], data)
            step()
        sync_folder(root)
        journal = {
            "participant": participant,
            "files": staged,
            "modes": {name: file_mode(root / name) for name in files},
            "folders": plan.folders,
        }
        replace_atomically(root / JOURNAL_FILE, json.dumps(journal).encode("utf-8"), 0o600)
        step()
        complete_journal(root, journal, step)
    return plan.tombstone
