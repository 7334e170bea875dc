"""A study's consent texts, version by version and language by language
(``tradeoff study consent FOLDER NEW.md --version V [--language de]``).

``study.json``'s ``consent`` names the current text (``file``, ``version``) and lists
every text ever given (``versions``: version, file, language, when it was added); each
text is a file of its own (``consent.md`` for the first, ``consent-<n>.md`` after it),
hashed in ``files`` like every file of the study, and never overwritten or removed. The
newest version is the one participants must have agreed to before their next question:
one who agreed to an older version only is shown the new text and asked again
(:mod:`tradeoff.web.consent`). A version may have a text per language; a participant is
shown the one in their page's language, else the version's first.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tradeoff.errors import InputError
from tradeoff.study.entries import study_lock
from tradeoff.study.inputs import (
    check_consent_version,
    check_language,
    file_sha256,
    read_consent,
)

if TYPE_CHECKING:
    from tradeoff.study.folder import Study


#: The name of a consent text in a study's folder: ``consent.md``, ``consent-<n>.md``.
NAME = re.compile(r"consent(-[0-9]{1,6})?\.md")


@dataclass(frozen=True)
class ConsentVersion:
    """One consent text of a study: its version, file, language (``None``: the study's
    page language, as the first text was given) and when it was added."""

    version: str
    file: str
    language: str | None
    at: str

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "file": self.file,
            "language": self.language,
            "at": self.at,
        }


def read_versions(consent: dict[str, Any], created: str) -> tuple[ConsentVersion, ...]:
    """The versions of ``study.json``'s ``consent`` (a study made before versions were
    listed has one: its file and version, added when the study was made)."""
    listed = consent.get("versions")
    if listed is None:
        return (ConsentVersion(str(consent["version"]), str(consent["file"]), None, created),)
    out = []
    for item in listed:
        language = item.get("language")
        name = str(item["file"])
        if not NAME.fullmatch(name):
            raise ValueError(f"{name!r} is not the name of a consent text in the study")
        out.append(
            ConsentVersion(
                check_consent_version(str(item["version"])),
                name,
                None if language is None else check_language(str(language)),
                str(item.get("at", "")),
            )
        )
    if not out:
        raise ValueError("lists no consent text")
    return tuple(out)


def text_for(
    versions: Sequence[ConsentVersion], version: str, language: str
) -> ConsentVersion | None:
    """The text of ``version`` to show in ``language``: that language's, else the
    version's first."""
    of_version = [v for v in versions if v.version == version]
    for v in of_version:
        if v.language == language:
            return v
    return of_version[0] if of_version else None


def add_consent_version(
    folder: str | Path, text: str | Path, version: str, language: str | None = None
) -> ConsentVersion:
    """Add a consent text to a study: a new version (participants who agreed to an older
    one are asked again before their next question), or the text of an existing version
    in another language. Nothing is overwritten: the text is copied to a new file, and
    ``study.json`` is replaced atomically under the study's lock."""
    from tradeoff.study.folder import STUDY_FILE, load_study

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
    return added


def read_current(study: Study) -> tuple[str | None, tuple[ConsentVersion, ...]]:
    """The study's newest consent version and every text, as its ``study.json`` lists them
    now (a running server reads them again when the file changes); each new text's file
    checked against its hash. What cannot be read leaves the study as it was made."""
    from tradeoff.study.folder import STUDY_FILE

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
