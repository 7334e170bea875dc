"""A study's consent texts, version by version and language by language
(``tradeoff study consent FOLDER NEW.md --version V [--language de]``).

``study.json``'s ``consent`` names the current text (``file``, ``version``) and lists
every text ever given (``versions``: version, file, language, when it was added); each
text is a file of its own (``consent.md`` for the first, ``consent-<n>.md`` after it),
hashed in ``files`` like every file of the study, and never overwritten or removed. The
newest version is the one participants must have agreed to before their next question:
one who agreed to an older version only is shown the new text and asked again
(:mod:`tradeoff.web.consent`). A version may have a text per language; a participant is
shown the one in their page's language, else the version's first. Adding one and reading
them as they stand now: :mod:`tradeoff.study.consent_added`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tradeoff.study.inputs import check_consent_version, check_language

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
