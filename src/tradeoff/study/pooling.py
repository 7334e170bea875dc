"""A study that learns across its participants: the population prior its later sessions
start from, and when it is pooled again.

Files in the study's folder:

* ``population-prior.json``: the coordinator's setting, ``{"enabled": true, "every": 10,
  "base_share": 0.2}``. ``study create`` writes it, switched off unless told
  ``--population-prior``; a study made before it existed has none and goes on as it was
  made. Off by default: in the simulated study of ``benchmarks/population_study.py`` the
  last 100 people needed no fewer questions with it (the stop asks for two agreeing answers
  on every aspect that decides the pick, whatever the prior says); it is for studies whose
  participants answer few questions, where it predicts their choices better.
* ``priors/<sha256>.json``: every prior ever pooled, named by the hash of its bytes and
  never written again (the sessions it pooled named by the SHA-256 of their bytes, never
  by a participant) (:mod:`tradeoff.record.prior_files`; each session's header names
  the one it started from);
* ``priors/current.json``: which prior new sessions start from and how many finished
  sessions it pooled (replaced atomically at each refresh);
* ``priors/finished.txt``: the finished sessions, one per line (relative to
  ``sessions/``), appended as each finishes.

**Cadence.** A finished session costs one appended line (:func:`session_finished`); once
``every`` sessions have finished since the last pooling, the prior is pooled again from
all of them (:func:`refresh_prior`: each new one replayed once, its own posterior kept
in memory by the hash of its bytes, all of them pooled:
:func:`~tradeoff.learn.study_prior.study_prior`). Only the pooling of the kept posteriors
grows with the study, and it is done every ``every`` sessions, never per request; starting
a session reads one small pointer file (:func:`current_prior`) and the prior it names (kept
in memory by hash).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path

from tradeoff.ask.scenario import Scenario
from tradeoff.errors import InputError
from tradeoff.learn.engine import Particles
from tradeoff.learn.starting_prior import StartingPrior
from tradeoff.learn.study_prior import STUDY_BASE_SHARE, own_particles, study_prior
from tradeoff.record.log import read_session
from tradeoff.record.prior_files import FINISHED_FILE, priors_folder, store_prior
from tradeoff.record.replay import replay
from tradeoff.study.entries import study_lock
from tradeoff.study.files import replace_atomically
from tradeoff.study.folder import load_study
from tradeoff.study.withdrawals import certain_withdrawals

__all__ = [
    "POOLING_FILE",
    "Pooling",
    "current_prior",
    "read_pooling",
    "refresh_prior",
    "session_finished",
    "write_pooling",
]

POOLING_FILE = "population-prior.json"
CURRENT = "current.json"
FINISHED = FINISHED_FILE
#: Pooled again after this many more finished sessions, unless the setting says otherwise.
EVERY = 10

_KNOWN: dict[str, StartingPrior] = {}
_LOCK = threading.Lock()


@dataclass(frozen=True)
class _Own:
    """A finished session's own posterior (:func:`own_particles`) and what pooling needs
    of its engine."""

    particles: Particles
    scenario: Scenario
    spans: tuple[float, ...]


#: Each finished session's own posterior, by the SHA-256 of the session's bytes (``None``: a
#: session of another strategy), so a pooling replays only the sessions finished since the
#: last one. In memory only, and exactly the sessions the last pooling used.
_OWN: dict[str, _Own | None] = {}


def _own_posterior(sha: str, path: Path) -> _Own | None:
    """The own posterior of the session whose bytes hash to ``sha``: from memory when a
    pooling of this process has replayed those bytes, else replayed now."""
    with _LOCK:
        if sha in _OWN:
            return _OWN[sha]
    engine = replay(read_session(path), check=False)
    if engine.particles() is None:
        return None
    return _Own(own_particles(engine), engine.scenario, tuple(engine.space.spans))


@dataclass(frozen=True)
class Pooling:
    """The coordinator's setting: whether later sessions start from the population prior,
    how many finished sessions between poolings, and the engine's own prior's share."""

    enabled: bool
    every: int = EVERY
    base_share: float = STUDY_BASE_SHARE


def write_pooling(study: str | Path, pooling: Pooling) -> None:
    """Write the setting into the study's folder."""
    data = {"enabled": pooling.enabled, "every": pooling.every, "base_share": pooling.base_share}
    replace_atomically(Path(study) / POOLING_FILE, (json.dumps(data, indent=2) + "\n").encode())


def read_pooling(study: str | Path) -> Pooling:
    """The study's setting (switched off when the file is absent: a study made before it
    existed), validated with the file and field named."""
    path = Path(study) / POOLING_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Pooling(False)
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError.single(path, "", f"cannot be read ({exc}).", "restore it.") from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError.single(
            path, f"line {exc.lineno}", f"is not JSON ({exc.msg}).", 'write {"enabled": true}.'
        ) from None
    if not isinstance(raw, dict):
        raise InputError.single(path, "", "must be a JSON object.", 'write {"enabled": true}.')
    enabled, every = raw.get("enabled"), raw.get("every", EVERY)
    share = raw.get("base_share", STUDY_BASE_SHARE)
    if not isinstance(enabled, bool):
        raise InputError.single(path, "field 'enabled'", "must be true or false.", "set it.")
    if not isinstance(every, int) or isinstance(every, bool) or not 1 <= every <= 10_000:
        raise InputError.single(
            path, "field 'every'", "must be a whole number from 1 to 10,000.", "set it, e.g. 10."
        )
    if not isinstance(share, int | float) or isinstance(share, bool) or not 0.01 <= share <= 0.9:
        raise InputError.single(
            path,
            "field 'base_share'",
            "must be a number from 0.01 to 0.9 (the engine's own prior's share).",
            "set it, e.g. 0.2.",
        )
    return Pooling(enabled, every, float(share))


def _pointer(study: Path) -> tuple[str, int] | None:
    path = priors_folder(study / "sessions") / CURRENT
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return str(raw["sha256"]), int(raw["sessions"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def current_prior(study: str | Path) -> StartingPrior | None:
    """The prior a new session of the study starts from, or ``None`` (switched off, or not
    yet pooled). Reads the pointer file and, the first time, the prior it names (checked
    against its hash: a prior file that was altered is not used)."""
    folder = Path(study)
    if not read_pooling(folder).enabled:
        return None
    pointer = _pointer(folder)
    if pointer is None:
        return None
    sha, _ = pointer
    with _LOCK:
        known = _KNOWN.get(sha)
    if known is not None:
        return known
    path = priors_folder(folder / "sessions") / f"{sha}.json"
    try:
        prior = StartingPrior.from_bytes(path.read_bytes())
    except (OSError, ValueError):
        return None
    if prior.sha256 != sha:
        return None
    with _LOCK:
        _KNOWN[sha] = prior
    return prior


def _finished(study: Path) -> list[str]:
    try:
        text = (priors_folder(study / "sessions") / FINISHED).read_text(encoding="utf-8")
    except OSError:
        return []
    return list(dict.fromkeys(line for line in text.splitlines() if line))


def session_finished(study: str | Path, session_file: str | Path) -> bool:
    """Note that a session finished (one line appended); whether the prior is due to be
    pooled again (``every`` more finished since the last pooling). Nothing is noted when
    the study does not pool."""
    folder = Path(study)
    pooling = read_pooling(folder)
    if not pooling.enabled:
        return False
    priors = priors_folder(folder / "sessions")
    priors.mkdir(exist_ok=True, mode=0o700)
    relative = Path(session_file).resolve().relative_to((folder / "sessions").resolve())
    with study_lock(folder):  # study erase rewrites the file under the same lock
        fd = os.open(priors / FINISHED, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, (relative.as_posix() + "\n").encode())
        finally:
            os.close(fd)
    pointer = _pointer(folder)
    pooled = 0 if pointer is None else pointer[1]
    return len(_finished(folder)) - pooled >= pooling.every


def refresh_prior(study: str | Path) -> StartingPrior | None:
    """Pool the prior again from every finished session (each replayed exactly, its own
    posterior taken: :func:`~tradeoff.learn.study_prior.own_particles`), store it by its
    hash and point new sessions at it; ``None`` with too few sessions. One process
    refreshes at a time (the others return at once); a participant who withdrew, and a
    session file gone (erased), are left out."""
    folder = Path(study)
    pooling = read_pooling(folder)
    sessions_dir = folder / "sessions"
    priors = priors_folder(sessions_dir)
    priors.mkdir(exist_ok=True, mode=0o700)
    fd = os.open(priors / ".refresh.lock", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return None
        people: dict[str, Particles] = {}
        scenario = spans = None
        gone = certain_withdrawals(load_study(folder))
        kept: dict[str, _Own | None] = {}
        for name in _finished(folder):
            path = sessions_dir / name
            if not path.is_file() or Path(name).parts[0] in gone:
                continue
            # Named by the SHA-256 of its bytes, not its path: a prior is kept for good
            # (sessions replay from it), and a path names the participant, whom study
            # erase may have to remove from every file.
            sha = hashlib.sha256(path.read_bytes()).hexdigest()
            own = kept[sha] = _own_posterior(sha, path)
            if own is not None:
                people[sha] = own.particles
                scenario, spans = own.scenario, own.spans
        with _LOCK:  # only what this pooling used stays in memory (erased ones leave it)
            _OWN.clear()
            _OWN.update(kept)
        if scenario is None or spans is None:
            return None
        prior = study_prior(scenario, spans, people, base_share=pooling.base_share)
        if prior is None:
            return None
        store_prior(sessions_dir, prior)
        pointer = {"sha256": prior.sha256, "sessions": len(people)}
        replace_atomically(priors / CURRENT, (json.dumps(pointer) + "\n").encode(), 0o600)
        return prior
    finally:
        os.close(fd)
