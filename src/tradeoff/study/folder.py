"""Studies: many participants, each with an access code that opens their own session only.

A study is a folder (docs/architecture.md, "Files"):

* ``study.json``: the scenario file's name and SHA-256, the salt, and one entry per
  participant: its id and the salted hash of its access code (the code itself is never
  stored: it is shown once, when the study is made; :mod:`tradeoff.study.codes`);
* the scenario, copied with every file it refers to (``[pool]`` and a probability
  population), at the same relative paths, so the study does not change when the originals
  do;
* ``consent.md``: the information and consent text, when the study has one, and
  ``consent-<n>.md`` for each text added later (:mod:`tradeoff.study.consent_versions`);
  ``study.json``'s ``attention_checks``, the questions an attention check comes before
  (:mod:`tradeoff.study.checks`), and its ``contact`` (:mod:`tradeoff.study.contact`);
* ``sessions/``: one folder per participant, as ``tradeoff elicit`` writes them (which
  count: :mod:`tradeoff.study.counted`; the coordinator's view:
  :mod:`tradeoff.study.status`);
* ``attempts.log``: the times of wrong access codes, for the growing delay
  (:mod:`tradeoff.study.attempts`);
* ``withdrawals.jsonl``: one line per withdrawal (``study withdraw``,
  :mod:`tradeoff.study.withdrawals`);
* with a panel (``study.json``'s ``panel``, :mod:`tradeoff.study.panel`): ``panel-ids.txt``,
  the allow-list of panel ids when there is one, and ``entries.jsonl``, who came in by
  link, who declined and who was screened out (:mod:`tradeoff.study.entries`);
* ``keys.json``: the hashes of the pilot link's and the coordinator's keys
  (:mod:`tradeoff.study.keys`).

A participant who comes in by a panel's link, or by the pilot link, has no access code:
:func:`load_study` adds them to :attr:`Study.participants` (with an empty code hash, which
no code matches) from the allow-list and ``entries.jsonl``.

Every shared file of a study is opened only when it is a regular file (never through a
symbolic link, never a FIFO or a device that would block a reader) and read to a bound
(:mod:`tradeoff.study.files`). This module makes a study (:func:`create_study`) and reads
it back checked (:func:`load_study`).
"""

from __future__ import annotations

import hmac
import json
import secrets
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from tradeoff.ask.scenario import load_scenario
from tradeoff.errors import InputError
from tradeoff.record.records import check_participant
from tradeoff.study.arm_specs import Arm, read_arms
from tradeoff.study.checks import check_checkable, check_positions
from tradeoff.study.codes import (
    CODE_COST,
    check_code_participant,
    code_cost,
    code_method,
    hash_code,
    new_code,
    write_codes,
)
from tradeoff.study.consent_versions import ConsentVersion, read_versions
from tradeoff.study.contact import CONTACT_KEY, check_contact, read_contact
from tradeoff.study.entries import EntryState, joined, read_entries
from tradeoff.study.erase_journal import complete_erasure
from tradeoff.study.inputs import (
    LANGUAGE_TAG,
    check_consent_version,
    check_copyable,
    check_language,
    file_sha256,
    read_consent,
    referenced_files,
)
from tradeoff.study.panel import ALLOW_FILE, Panel, check_panel, read_panel_ids

if TYPE_CHECKING:
    from tradeoff.ask.population import PopulationSource
    from tradeoff.study.arm_specs import ArmSpec

STUDY_FILE = "study.json"
#: The version of ``study.json`` written (2: the hash of every copied file); 1 is read too.
STUDY_VERSION = 2
#: Versions of ``study.json`` this tradeoff reads.
STUDY_VERSIONS = (1, 2)
#: study.json is read only up to this size (10,000 participants take about 1.2 MB).
STUDY_FILE_LIMIT = 16_000_000
#: The information and consent text in a study (Markdown), and its largest size.
CONSENT_FILE = "consent.md"
#: Folders whose files are the system's, never a study's text (``/proc/self/environ``).


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
    #: How people enter by a panel's link (``None``: by access code only).
    panel: Panel | None = None
    #: Participant id → panel id, of the allow-list and of everyone let in by link.
    panel_ids: dict[str, str] = field(default_factory=dict)
    #: The participants who came in by the pilot link (kept apart from the real data).
    pilots: frozenset[str] = frozenset()
    #: The language the study's page is shown in unless a participant picks another on
    #: its switch (``None``: the one the participant's browser asks for).
    language: str | None = None
    #: Every consent text, oldest first (:mod:`tradeoff.study.consent_versions`).
    consent_versions: tuple[ConsentVersion, ...] = ()
    #: The questions an attention check comes before (:mod:`tradeoff.study.checks`).
    attention_checks: tuple[int, ...] = ()
    #: The study's arms (:mod:`tradeoff.study.arms`; empty: one implicit arm) and the
    #: seed their ties are drawn with.
    arms: tuple[Arm, ...] = ()
    arm_seed: int = 0
    #: scrypt's cost n for this study's codes, as its file names it (``code_hash``).
    code_cost: int = CODE_COST
    #: How participants reach the coordinator (:mod:`tradeoff.study.contact`), or ``None``.
    contact: str | None = None

    @property
    def scenario_hashes(self) -> frozenset[str]:
        """The SHA-256 of every scenario a session of the study may be recorded on (the
        study's, and each arm's)."""
        return frozenset(
            [
                self.scenario_sha256,
                *(self.files[a.scenario] for a in self.arms if a.scenario in self.files),
            ]
        )

    @property
    def consent_path(self) -> Path | None:
        return None if self.consent_file is None else self.path / self.consent_file

    @property
    def scenario_path(self) -> Path:
        return self.path / self.scenario

    @property
    def scenario_paths(self) -> tuple[Path, ...]:
        """The study's scenario and every arm's own, each once."""
        named = [self.scenario, *(a.scenario for a in self.arms)]
        return tuple(self.path / s for s in dict.fromkeys(named))

    @property
    def sessions_dir(self) -> Path:
        return self.path / "sessions"

    @property
    def cache_dir(self) -> Path:
        """Where the population, its sorted tables and the pool's models are kept for every
        participant's process to memory-map (:mod:`tradeoff.study.cache`)."""
        return self.path / "cache"

    def populations(self) -> PopulationSource:
        """Where the study's sessions get their population when they are replayed: the
        study's cache (``study create`` built it), or the user's when the study has none
        (:func:`tradeoff.study.cache.command_population`)."""
        from tradeoff.study.cache import cached_population, command_population

        if not self.cache_dir.is_dir():
            return command_population
        folder = self.cache_dir
        return lambda scenario: cached_population(scenario, folder)

    def participant_for(self, code: str) -> str | None:
        """The participant whose code this is, or ``None`` (every entry is compared, in
        constant time, so the answer's timing says nothing about which ids exist)."""
        digest = hash_code(code, self.salt, self.code_cost)
        found = None
        for pid, stored in self.participants.items():
            if stored and hmac.compare_digest(digest, stored):
                found = pid
        return found


def create_study(
    scenario_path: str | Path,
    participants: Sequence[str],
    out: str | Path,
    *,
    codes_file: str | Path | None = None,
    consent: str | Path | None = None,
    consent_version: str = "1",
    panel: Panel | None = None,
    panel_ids: Sequence[str] = (),
    language: str | None = None,
    attention_checks: Sequence[int] = (),
    arms: Sequence[ArmSpec] = (),
    contact: str | None = None,
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

    ``panel`` lets people in by a panel's link (:mod:`tradeoff.study.panel`); with
    ``panel_ids`` (its allow-list, read by :func:`tradeoff.study.panel.read_panel_ids`)
    only they may enter. A study with a panel may have no access-code participants.

    ``language`` shows the study's page in that language to everyone, whatever their
    browser asks for, unless they pick another on the page's switch.

    ``attention_checks`` are the questions an attention check comes before
    (:mod:`tradeoff.study.checks`).
    ``arms`` (two or more, :func:`tradeoff.study.arms.check_arms`) make a study that
    compares conditions: each participant is assigned to one (:mod:`tradeoff.study.arms`).
    ``contact`` says how participants reach the coordinator (:mod:`tradeoff.study.contact`).
    """
    contact = None if contact is None else check_contact(contact)
    if language is not None:
        check_language(language)
    loaded = load_scenario(scenario_path)  # validated before anything is written
    checks = check_positions(attention_checks, "--attention-checks")
    if checks:
        check_checkable(loaded.scenario, "--attention-checks")
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
    if panel is not None:
        check_panel(panel)
    if panel is not None and panel.allow_list != bool(panel_ids):
        raise InputError.single(
            "--panel-ids", "", "the allow-list and the panel disagree.", "give the list once."
        )
    if len(participants) != len(set(participants)) or (not participants and panel is None):
        raise InputError.single("participants", "", "need distinct ids.", "give each id once.")
    for pid in participants:
        check_code_participant(pid)
    referenced = referenced_files(src)
    for rel in referenced:
        check_copyable(src, rel)
    if arms:
        from tradeoff.study.arm_specs import check_arm_scenarios, check_arms

        check_arm_scenarios(check_arms("--arm", arms), src)
    codes = {pid: new_code() for pid in participants}
    codes_path = None if codes_file is None else Path(codes_file)
    if codes_path is not None:
        write_codes(codes_path, codes)
    try:
        study = _make_study(
            src,
            referenced,
            participants,
            dest,
            codes,
            consent_text,
            consent_version,
            panel,
            panel_ids,
            language,
            arms,
            contact,
        )
        if checks:
            study = _with_checks(study, checks)
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


def _with_checks(study: Study, checks: tuple[int, ...]) -> Study:
    """``study`` with its attention checks, written into its ``study.json``."""
    path = study.path / STUDY_FILE
    data = json.loads(path.read_text(encoding="utf-8"))
    data["attention_checks"] = list(checks)
    tmp = study.path / (STUDY_FILE + ".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n")
    tmp.replace(path)
    return replace(study, attention_checks=checks)


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
    panel: Panel | None = None,
    panel_ids: Sequence[str] = (),
    language: str | None = None,
    arm_specs: Sequence[ArmSpec] = (),
    contact: str | None = None,
) -> Study:
    dest.mkdir(parents=True, exist_ok=True)
    files: dict[str, str] = {}
    if panel_ids:
        (dest / ALLOW_FILE).write_text("".join(f"{i}\n" for i in panel_ids), encoding="utf-8")
        files[ALLOW_FILE] = file_sha256(dest / ALLOW_FILE)
    if consent_text is not None:
        (dest / CONSENT_FILE).write_text(consent_text, encoding="utf-8")
        files[CONSENT_FILE] = file_sha256(dest / CONSENT_FILE)
    for rel in referenced:
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src.parent / rel, target, follow_symlinks=False)
        files[Path(rel).as_posix()] = file_sha256(target)
    shutil.copyfile(src, dest / "scenario.toml", follow_symlinks=False)
    (dest / "sessions").mkdir()
    arms: tuple[Arm, ...] = ()
    if arm_specs:
        from tradeoff.study.arm_specs import copy_arm_scenarios

        arms = tuple(copy_arm_scenarios(arm_specs, src, dest, files))
    salt = secrets.token_bytes(16)
    now_text = datetime.now(UTC).isoformat(timespec="seconds")
    study = Study(
        path=dest,
        scenario="scenario.toml",
        scenario_sha256=file_sha256(dest / "scenario.toml"),
        salt=salt,
        participants={pid: hash_code(codes[pid], salt) for pid in participants},
        created=now_text,
        files=files,
        consent_file=None if consent_text is None else CONSENT_FILE,
        consent_version=None if consent_text is None else consent_version,
        consent_versions=()
        if consent_text is None
        else (ConsentVersion(consent_version, CONSENT_FILE, language, now_text),),
        panel=panel,
        language=language,
        arms=arms,
        arm_seed=secrets.randbelow(2**31) if arms else 0,
        contact=contact,
    )
    if panel is not None:
        allowed = {panel.participant_of(i): i for i in panel_ids}
        study = replace(
            study,
            participants={**study.participants, **dict.fromkeys(allowed, "")},
            panel_ids=allowed,
        )
    document: dict[str, object] = {
        "version": STUDY_VERSION,
        "scenario": study.scenario,
        "scenario_sha256": study.scenario_sha256,
        "files": files,
        "created": study.created,
        "salt": salt.hex(),
        "code_hash": code_method(study.code_cost),
        "participants": [{"id": p, "code_hash": h} for p, h in study.participants.items() if h],
    }
    if consent_text is not None:
        document["consent"] = {
            "file": CONSENT_FILE,
            "version": consent_version,
            "versions": [v.to_json() for v in study.consent_versions],
        }
    if panel is not None:
        document["panel"] = panel.to_json()
    if language is not None:
        document["language"] = language
    if contact is not None:
        document[CONTACT_KEY] = contact
    if arms:
        document["arms"] = [a.to_json() for a in arms]
        document["arm_seed"] = study.arm_seed
    tmp = dest / (STUDY_FILE + ".tmp")
    tmp.write_text(json.dumps(document, indent=2) + "\n")
    tmp.replace(dest / STUDY_FILE)
    from tradeoff.study.cache import prepare_caches

    prepare_caches(study.scenario_paths, study.cache_dir)
    return study


def load_study(folder: str | Path) -> Study:
    """Read a study folder: ``study.json`` checked (its version, every participant id once
    and well formed) and every copied file unchanged since the study was made; an erasure
    a crash left half done is completed first
    (:func:`tradeoff.study.erase_journal.complete_erasure`)."""
    root = Path(folder)
    complete_erasure(root)
    path = root / STUDY_FILE
    if not path.is_file():
        what = f"has no {STUDY_FILE}." if root.exists() else "does not exist."
        raise InputError.single(root, "", what, "give a folder made by `tradeoff study create`.")
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
        field = "code_hash"
        cost = code_cost(data.get("code_hash"))
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
        field = "attention_checks"
        raw_checks = list(data.get("attention_checks", []))
        field = "language"
        language = data.get("language")
        if language is not None and not (
            isinstance(language, str) and LANGUAGE_TAG.fullmatch(language)
        ):
            raise ValueError(f"{language!r} is not a language tag")
        field = "arms"
        arms = read_arms(data)
        field = "panel"
        panel = None if data.get("panel") is None else Panel.from_json(data["panel"])
    except InputError as exc:
        raise InputError.single(
            path, "panel", f"is not a usable panel ({exc.problems[0].problem})", restore
        ) from None
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
    try:
        field = "consent"
        versions: tuple[ConsentVersion, ...] = (
            () if consent is None else read_versions(consent, created)
        )
        field = "attention_checks"
        attention = check_positions(raw_checks, field)
    except (InputError, ValueError, KeyError, TypeError, AttributeError) as exc:
        reason = exc.problems[0].problem if isinstance(exc, InputError) else str(exc)[:200]
        raise InputError.single(
            path, field, f"is not what a study file holds there ({reason}).", restore
        ) from None
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
            actual = file_sha256(copy)
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
    for named in [consent_file, *(v.file for v in versions)]:
        if named is not None and named not in files:
            raise InputError.single(
                path, "consent", f"names {named!r}, which files does not hash.", restore
            )
    study = Study(
        root, scenario, sha, salt, participants, created, files, consent_file, consent_version
    )
    if panel is not None and panel.allow_list and ALLOW_FILE not in files:
        raise InputError.single(
            path, "panel", f"has an allow-list, but files does not hash {ALLOW_FILE}.", restore
        )
    allowed: dict[str, str] = {}
    if panel is not None and panel.allow_list:
        text = (root / ALLOW_FILE).read_text(encoding="utf-8", errors="replace")
        ids = read_panel_ids(text, str(root / ALLOW_FILE), empty=True)
        allowed = {panel.participant_of(i): i for i in ids}
    for arm in arms[0]:
        if arm.scenario != scenario and arm.scenario not in files:
            raise InputError.single(
                path, "arms", f"names {arm.scenario!r}, which files does not hash.", restore
            )
    contact = read_contact(data, path)  # last: an error here means all else is sound
    study = replace(
        study,
        panel=panel,
        language=language,
        consent_versions=versions,
        attention_checks=attention,
        arms=arms[0],
        arm_seed=arms[1],
        code_cost=cost,
        contact=contact,
    )
    return with_entries(study, allowed)


def with_entries(
    study: Study, allowed: dict[str, str] | None = None, state: EntryState | None = None
) -> Study:
    """``study`` with everyone who came in by link (``entries.jsonl``, or what a server
    read of it, ``state``; the allow-list ``allowed``) among its participants, without an
    access code; pilot participants whose sessions were moved aside (``study
    remove-pilots``) are left out (:func:`tradeoff.study.entries.joined`)."""
    state = read_entries(study.path) if state is None else state
    panel_ids = dict(study.panel_ids if allowed is None else allowed)
    participants, panel_ids, pilots = joined(study.participants, panel_ids, state)
    return replace(study, participants=participants, panel_ids=panel_ids, pilots=pilots)
