"""``tradeoff study consent``: a new version of a study's consent text (or a version's
text in another language); ``tradeoff study contact``: how participants reach the
coordinator."""

from __future__ import annotations

import argparse

from tradeoff.cli.common import emit, say


def cmd_study_consent(args: argparse.Namespace) -> int:
    from tradeoff.cli.nearby import study_folder
    from tradeoff.study.consent_added import add_consent_version

    study_folder(args.study)
    added, new = add_consent_version(args.study, args.text, args.version, args.language)
    if args.json:
        emit(added.to_json())
        return 0
    language = "" if added.language is None else f" in {added.language}"
    asked = (
        f"Participants reading the page in {added.language} are shown it; no one is asked to "
        "consent again,\nas the version is the same."
        if not new and added.language is not None
        else "A participant who agreed to an earlier version only is asked to consent "
        "again\nbefore their next question."
    )
    say(
        f"Consent text version {added.version}{language} added to {args.study} as "
        f"{added.file}; the earlier texts are kept.\n{asked} A running `study serve` shows "
        "it from its next page."
    )
    return 0


def cmd_study_contact(args: argparse.Namespace) -> int:
    from tradeoff.cli.nearby import study_folder
    from tradeoff.study.consent_added import set_contact

    study_folder(args.study)
    contact, before = set_contact(args.study, args.contact)
    if args.json:
        emit({"study": str(args.study), "contact": contact, "before": before})
        return 0
    was = "" if before is None else f" (it was: {before})"
    say(
        f"Every page of the study now names its coordinator's contact: {contact}{was}.\n"
        "A running `study serve` shows it from its next page.",
        wrap=True,  # on a terminal, at its width
    )
    return 0
