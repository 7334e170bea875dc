"""``tradeoff study consent``: a new version of a study's consent text (or a version's
text in another language)."""

from __future__ import annotations

import argparse

from tradeoff.cli.common import emit, say


def cmd_study_consent(args: argparse.Namespace) -> int:
    from tradeoff.cli.nearby import study_folder
    from tradeoff.study.consent_added import add_consent_version

    study_folder(args.study)
    added = add_consent_version(args.study, args.text, args.version, args.language)
    if args.json:
        emit(added.to_json())
        return 0
    language = "" if added.language is None else f" in {added.language}"
    say(
        f"Consent text version {added.version}{language} added to {args.study} as "
        f"{added.file}; the earlier texts are kept.\nA participant who agreed to an earlier "
        "version only is asked to consent again\nbefore their next question. A running "
        "`study serve` shows it from its next page."
    )
    return 0
