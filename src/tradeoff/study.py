"""Studies: many participants, each with an access code that opens their own session only.

A study is a folder (docs/architecture.md, "Files"):

* ``study.json``: the scenario file's name and SHA-256, the salt, and one entry per
  participant: its id and the salted hash of its access code (the code itself is never
  stored: it is shown once, when the study is made);
* the scenario, copied with every file it refers to (``[pool]`` and a probability
  population), at the same relative paths, so the study does not change when the originals
  do;
* ``sessions/``: one folder per participant, as ``tradeoff elicit`` writes them;
* ``attempts.log``: the times of wrong access codes, for the growing delay.

An access code is 16 characters of Crockford's base 32 (80 bits), shown in groups of four
(``K7QM-2XVD-…``); typing is forgiving (case, spaces, dashes and look-alikes do not
matter). Codes are checked with scrypt over a per-study random salt, so a stolen
``study.json`` does not give the codes away and each guess costs the guesser time.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tradeoff.errors import InputError
from tradeoff.scenario import load_scenario
from tradeoff.session import check_participant, iter_sessions, summarise

#: Letters of an access code: Crockford's base 32 (no I, L, O or U), 5 bits each; a typed
#: O counts as 0 and I or L as 1.
CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
CODE_LENGTH = 16
CODE_BITS = 80
STUDY_FILE = "study.json"
ATTEMPTS_FILE = "attempts.log"
#: scrypt cost (about 30 ms a check on a laptop core).
_SCRYPT = {"n": 2**14, "r": 8, "p": 1, "dklen": 32}
#: Wrong codes within this many seconds count toward the delay.
ATTEMPT_WINDOW = 600.0


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


@dataclass(frozen=True)
class Study:
    """A study folder, read and checked."""

    path: Path
    scenario: str
    scenario_sha256: str
    salt: bytes
    participants: dict[str, str]  # id → code hash
    created: str

    @property
    def scenario_path(self) -> Path:
        return self.path / self.scenario

    @property
    def sessions_dir(self) -> Path:
        return self.path / "sessions"

    @property
    def cache_dir(self) -> Path:
        """Where the population, its sorted tables and the pool's models are kept for every
        participant's process to memory-map (:mod:`tradeoff.cache`)."""
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


def create_study(
    scenario_path: str | Path, participants: Sequence[str], out: str | Path
) -> tuple[Study, dict[str, str]]:
    """Make a study folder; returns the study and every participant's access code.

    The codes are returned once and stored only as salted hashes. ``out`` must not exist
    yet, or be an empty folder: nothing already there is overwritten.
    """
    src = Path(scenario_path)
    load_scenario(src)  # validated before anything is written
    dest = Path(out)
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
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
        if Path(rel).is_absolute() or ".." in Path(rel).parts:
            raise InputError.single(
                src,
                "path",
                f"{rel!r} is outside the scenario's folder.",
                "give paths relative to the scenario file, below its folder.",
            )
        if not (src.parent / rel).is_file():
            raise InputError.single(
                src,
                "path",
                f"names {rel!r}, which is not a file in {src.parent}.",
                "put the file there or correct the path; a study copies every file its "
                "scenario names.",
            )
    dest.mkdir(parents=True, exist_ok=True)
    for rel in referenced:
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src.parent / rel, target)
    shutil.copyfile(src, dest / "scenario.toml")
    (dest / "sessions").mkdir()
    salt = secrets.token_bytes(16)
    codes = {pid: new_code() for pid in participants}
    study = Study(
        path=dest,
        scenario="scenario.toml",
        scenario_sha256=hashlib.sha256((dest / "scenario.toml").read_bytes()).hexdigest(),
        salt=salt,
        participants={pid: hash_code(code, salt) for pid, code in codes.items()},
        created=datetime.now(UTC).isoformat(timespec="seconds"),
    )
    document = {
        "version": 1,
        "scenario": study.scenario,
        "scenario_sha256": study.scenario_sha256,
        "created": study.created,
        "salt": salt.hex(),
        "code_hash": "scrypt n=16384 r=8 p=1 over the code without dashes, in capitals",
        "participants": [{"id": p, "code_hash": h} for p, h in study.participants.items()],
    }
    tmp = dest / (STUDY_FILE + ".tmp")
    tmp.write_text(json.dumps(document, indent=2) + "\n")
    tmp.replace(dest / STUDY_FILE)
    prepare_cache(study)
    return study, codes


def prepare_cache(study: Study) -> int:
    """Build what every participant's process would otherwise rebuild (the population,
    its sorted tables, the pool's models) in the study's ``cache/`` folder, so each process
    memory-maps them (:mod:`tradeoff.cache`). Returns the folder's size in bytes.

    A participant's process builds a missing entry itself, so a deleted cache only costs
    time.
    """
    from tradeoff.cache import cached_candidates, cached_population

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
    """Read a study folder, checking ``study.json`` and that the scenario is unchanged."""
    root = Path(folder)
    path = root / STUDY_FILE
    if not path.is_file():
        raise InputError.single(
            root, "", f"has no {STUDY_FILE}.", "give a folder made by `tradeoff study create`."
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        salt = bytes.fromhex(data["salt"])
        participants = {str(p["id"]): str(p["code_hash"]) for p in data["participants"]}
        scenario = str(data["scenario"])
        sha = str(data["scenario_sha256"])
        created = str(data.get("created", ""))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise InputError.single(
            path,
            "",
            f"is not a study file ({exc.__class__.__name__}: {exc}).",
            "restore it as `tradeoff study create` wrote it.",
        ) from None
    for pid in participants:
        check_participant(pid)
    scenario_file = root / scenario
    if not scenario_file.is_file() or Path(scenario).name != scenario:
        raise InputError.single(path, "scenario", f"{scenario!r} is missing.", "restore it.")
    actual = hashlib.sha256(scenario_file.read_bytes()).hexdigest()
    if actual != sha:
        raise InputError.single(
            scenario_file,
            "",
            "has changed since the study was made (its SHA-256 differs).",
            "restore the study's copy; make a new study for a new scenario.",
        )
    return Study(root, scenario, sha, salt, participants, created)


# -- wrong codes ------------------------------------------------------------------------


def recent_failures(study: Study, now: float | None = None) -> int:
    """Wrong codes entered in the last ``ATTEMPT_WINDOW`` seconds, across all connections."""
    now = time.time() if now is None else now
    log = study.path / ATTEMPTS_FILE
    if not log.is_file():
        return 0
    count = 0
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            count += now - float(line) < ATTEMPT_WINDOW
        except ValueError:
            continue
    return count


def record_failure(study: Study, now: float | None = None) -> None:
    with (study.path / ATTEMPTS_FILE).open("a", encoding="utf-8") as fh:
        fh.write(f"{time.time() if now is None else now:.3f}\n")


def failure_delay(failures: int) -> float:
    """Seconds to wait before answering after ``failures`` recent wrong codes: 1 s, then
    doubling, at most 60 s.

    >>> [failure_delay(n) for n in (0, 1, 2, 3, 10)]
    [0.0, 1.0, 2.0, 4.0, 60.0]
    """
    return 0.0 if failures <= 0 else float(min(60.0, 2.0 ** (failures - 1)))


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

    def to_dict(self) -> dict[str, Any]:
        return {
            "participant": self.participant,
            "sessions": self.sessions,
            "answers": self.answers,
            "complete": self.complete,
            "last_activity": self.last_activity,
            "consistency_flagged": self.flagged,
            "note": self.note,
        }


@dataclass(frozen=True)
class StudyStatus:
    study: Study
    rows: tuple[ParticipantStatus, ...]

    @property
    def started(self) -> int:
        return sum(r.sessions > 0 for r in self.rows)

    @property
    def complete(self) -> int:
        return sum(r.complete for r in self.rows)

    def complete_sessions(self) -> list[Path]:
        """The newest complete session of every participant who has one."""
        out = []
        for pid in self.study.participants:
            done = [p for p in iter_sessions(self.study.sessions_dir, pid) if _facts(p).complete]
            if done:
                out.append(max(done, key=lambda p: p.stat().st_mtime))
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "study": str(self.study.path),
            "scenario_sha256": self.study.scenario_sha256,
            "participants": len(self.rows),
            "started": self.started,
            "complete": self.complete,
            "flagged": sum(r.flagged for r in self.rows),
            "rows": [r.to_dict() for r in self.rows],
        }


@dataclass(frozen=True)
class _Facts:
    complete: bool
    answers: int
    flagged: bool
    problem: str = ""


#: What each session file says, by (path, modification time, size): a live view refreshing
#: every few seconds replays a file once per change, not once per refresh.
_FACTS: dict[tuple[str, int, int], _Facts] = {}


def _facts(path: Path) -> _Facts:
    st = path.stat()
    key = (str(path), st.st_mtime_ns, st.st_size)
    cached = _FACTS.get(key)
    if cached is None:
        try:
            summary = summarise(path)
        except InputError as exc:
            cached = _Facts(False, 0, False, f"unreadable: {exc.problems[0].problem}")
        else:
            flagged = summary.consistency is not None and summary.consistency.flagged
            cached = _Facts(summary.log.finished, summary.answers, flagged)
        if len(_FACTS) > 4096:
            _FACTS.clear()
        _FACTS[key] = cached
    return cached


def study_status(study: Study) -> StudyStatus:
    """Per participant: sessions, answers of the newest, complete or not (any session),
    last activity, the consistency flag; a session that cannot be read is named, never
    hidden."""
    rows = []
    for pid in study.participants:
        files = list(iter_sessions(study.sessions_dir, pid))
        if not files:
            rows.append(ParticipantStatus(pid, 0, 0, False, None, False))
            continue
        newest = max(files, key=lambda p: p.stat().st_mtime)
        when = datetime.fromtimestamp(newest.stat().st_mtime, UTC).isoformat(timespec="seconds")
        facts = _facts(newest)
        complete = any(_facts(p).complete for p in files)
        rows.append(
            ParticipantStatus(
                pid, len(files), facts.answers, complete, when, facts.flagged, facts.problem
            )
        )
    return StudyStatus(study, tuple(rows))
