"""Adding a consent text to a study (``tradeoff study consent``), and the texts as
``study.json`` lists them now, for a server that keeps running while one is added
(:mod:`tradeoff.study.consent_versions` says what a version is); and changing how
participants reach the coordinator (``tradeoff study contact``, :func:`set_contact`)."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

from tradeoff.errors import InputError
from tradeoff.study.consent_versions import ConsentVersion, read_versions, text_for
from tradeoff.study.contact import CONTACT_KEY, check_contact
from tradeoff.study.entries import study_lock
from tradeoff.study.files import replace_atomically
from tradeoff.study.folder import STUDY_FILE, Study, load_study
from tradeoff.study.inputs import (
    check_consent_version,
    check_language,
    file_sha256,
    read_consent,
)


def add_consent_version(
    folder: str | Path, text: str | Path, version: str, language: str | None = None
) -> tuple[ConsentVersion, bool]:
    """Add a consent text to a study: a new version (participants who agreed to an older
    one are asked again before their next question), or the text of an existing version
    in another language. Nothing is overwritten: the text is copied to a new file, and
    ``study.json`` is replaced atomically under the study's lock. Returns the text added
    and whether it is a new version (``False``: another language of one it had)."""
    check_consent_version(version)
    if language is not None:
        check_language(language)
    body = read_consent(Path(text))
    root = Path(folder)
    with study_lock(root):
        study = load_study(root)
        if study.consent_file is None:
            raise InputError.single(
                root,
                "",
                "has no consent text, so participants never consented.",
                "give the first text when the study is made (study create --consent).",
            )
        versions = study.consent_versions
        same = [v for v in versions if v.version == version]
        if any(v.language == language for v in same):
            raise InputError.single(
                "--version",
                version,
                "already has a text"
                + ("" if language is None else f" in {language}")
                + "; a recorded text is never replaced.",
                "give a new version (participants are asked again) or another --language.",
            )
        number = len(versions) + 1
        name = f"consent-{number}.md"
        while (root / name).exists():
            number += 1
            name = f"consent-{number}.md"
        added = ConsentVersion(
            version, name, language, datetime.now(UTC).isoformat(timespec="seconds")
        )
        path = root / STUDY_FILE
        data = json.loads(path.read_text(encoding="utf-8"))
        fd = os.open(root / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        with open(fd, "w", encoding="utf-8") as fh:
            fh.write(body)
            fh.flush()
            os.fsync(fh.fileno())
        data.setdefault("files", {})[name] = file_sha256(root / name)
        consent = data["consent"]
        consent["versions"] = [v.to_json() for v in versions] + [added.to_json()]
        if not same:  # a new version: the one everyone must have agreed to
            consent["file"], consent["version"] = name, version
        tmp = root / (STUDY_FILE + ".tmp")
        tmp.write_text(json.dumps(data, indent=2) + "\n")
        tmp.replace(path)
    return added, not same


def read_current(study: Study) -> tuple[str | None, tuple[ConsentVersion, ...]]:
    """The study's newest consent version and every text, as its ``study.json`` lists them
    now (a running server reads them again when the file changes); each new text's file
    checked against its hash. What cannot be read leaves the study as it was made."""
    fallback = (study.consent_version, study.consent_versions)
    try:
        data = json.loads((study.path / STUDY_FILE).read_text(encoding="utf-8"))
        consent = data.get("consent")
        if not isinstance(consent, dict):
            return fallback
        versions = read_versions(consent, study.created)
        files = dict(data.get("files", {}))
        for v in versions:
            if file_sha256(study.path / v.file) != files.get(v.file):
                return fallback
        return str(consent["version"]), versions
    except (OSError, ValueError, KeyError, TypeError, AttributeError, InputError):
        return fallback


def current_consent(
    study: Study,
    language: str,
    listed: tuple[str | None, tuple[ConsentVersion, ...]] | None = None,
) -> tuple[str, ConsentVersion] | None:
    """The study's newest consent version and its text a participant reading ``language``
    is shown (that language's, else the version's first), or ``None`` when it asks none:
    the one place that says which text is current, at a terminal (:func:`current_text`)
    and on the study web page (:func:`tradeoff.web.checks.consent_text`). ``listed``: the
    versions as :func:`read_current` found them, when the caller keeps them (read now
    without)."""
    version, versions = read_current(study) if listed is None else listed
    chosen = None if version is None else text_for(versions, version, language)
    if version is None or chosen is None:
        return None
    return version, chosen


def current_text(study: Study, language: str = "en") -> tuple[str, str, str, str] | None:
    """(version, the text file's SHA-256, the Markdown text, the language it is written
    in) of the study's newest consent text in ``language`` (:func:`current_consent`; a
    version's first text is in the study's language, else ``language``), or ``None`` when
    it asks none: what a participant reads and agrees to before their next question, at a
    terminal (``tradeoff elicit --study``)."""
    current = current_consent(study, language)
    if current is None:
        return None
    version, chosen = current
    path = study.path / chosen.file
    return version, file_sha256(path), read_consent(path), written_in(study, chosen, language)


def written_in(study: Study, chosen: ConsentVersion, language: str) -> str:
    """The language ``chosen`` (a consent text shown to a participant reading
    ``language``) is written in: its own, else the study's (the first text is given in
    the study's language), else ``language``. What a consent record says it was shown in,
    at a terminal and on the study web page."""
    return chosen.language or study.language or language


def set_contact(folder: str | Path, text: str) -> tuple[str, str | None]:
    """Give a study its contact, or change it (``tradeoff study contact``): ``study.json``
    replaced atomically under the study's lock, every other field as it was. Returns the
    contact and the one before (``None``: none, or one no page could show, which this
    replaces). A running study web page shows the new one from its next page."""
    contact = check_contact(text, "TEXT")
    root = Path(folder)
    with study_lock(root):
        try:
            before = load_study(root).contact  # a study, and readable
        except InputError as exc:
            # The contact is read last: a study whose only fault is it is mended here.
            if exc.problems[0].location != CONTACT_KEY:
                raise
            before = None
        path = root / STUDY_FILE
        data = json.loads(path.read_text(encoding="utf-8"))
        data[CONTACT_KEY] = contact
        replace_atomically(path, (json.dumps(data, indent=2) + "\n").encode())
    return contact, before
