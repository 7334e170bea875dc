"""The command line of a study's arms (:mod:`tradeoff.study.arms`): ``study create``'s
``--arm`` and ``--arms``, the arms' lines of ``study status``, and ``study report``'s
side-by-side comparison (``--truths``; :mod:`tradeoff.study.arm_report`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tradeoff.cli.common import UsageError, say
from tradeoff.text import and_list

if TYPE_CHECKING:
    from tradeoff.study.arm_specs import ArmSpec
    from tradeoff.study.folder import Study


def arm_specs(args: argparse.Namespace) -> list[ArmSpec]:
    """The arms given to ``study create`` (none: a study without arms), each one's language
    one the study web page has words for."""
    from tradeoff.study.arm_specs import (
        check_arm_languages,
        check_arms,
        parse_arm_option,
        read_arms_file,
    )
    from tradeoff.web.i18n import languages

    given = getattr(args, "arm", None) or []
    listed = getattr(args, "arms", None)
    if given and listed:
        raise UsageError("give the arms either by --arm or by --arms FILE, not both")
    if listed:
        arms = read_arms_file(Path(listed))
        check_arm_languages(listed, arms, languages())
        return arms
    if not given:
        return []
    arms = check_arms("--arm", [parse_arm_option(text) for text in given])
    check_arm_languages("--arm", arms, languages())
    return arms


def refuse_language_arms(study: Study) -> None:
    """The terminal app (``elicit --study``) is in English only: a study whose arms show
    the page in a language is refused, with what to do instead."""
    shown = [f"{a.name} ({a.language})" for a in study.arms if a.language is not None]
    if shown:
        arms = "the arm {} shows" if len(shown) == 1 else "the arms {} show"
        raise UsageError(
            f"{study.path}: {arms.format(and_list(shown))} the study in a language, and "
            "the terminal app is in English only; serve the study (tradeoff study serve) "
            "so each participant sees their arm's language"
        )


def arms_lines(study: Study) -> list[str]:
    """What ``study create`` says of the arms."""
    if not study.arms:
        return []
    return ["Arms (each new participant is assigned to the one with the fewest):"] + [
        f"  {a.name}: {a.scenario}, strategy {a.strategy or 'of the scenario'}"
        + ("" if a.language is None else f", pages in {a.language}")
        for a in study.arms
    ]


def format_arms(data: dict[str, object]) -> list[str]:
    """``study status``'s line of the arms (none without arms)."""
    arms = data.get("arms")
    if not isinstance(arms, dict):
        return []
    parts = [
        f"{name} {c['assigned']} ({c['complete']} complete, {c['in_progress']} in progress"
        + (f", {c['withdrawn']} withdrawn" if c["withdrawn"] else "")
        + ")"
        for name, c in arms.items()
    ]
    return ["arms: " + "; ".join(parts)]


def report_arms(study: Study, out: str, truths: str | None, include_pilot: bool) -> dict[str, Any]:
    """``study report`` of a study with arms: ``arms.json`` and ``arms.md`` beside the
    report; what they say."""
    from tradeoff.study.arm_report import compare_study, write_comparison

    if truths is not None and not study.arms:
        raise UsageError("--truths: the study has no arms to compare")
    data = compare_study(
        study, None if truths is None else Path(truths), include_pilot=include_pilot
    )
    js, md = write_comparison(Path(out), data)
    data["files"] = [str(js), str(md)]
    return data


def say_arms(data: dict[str, Any]) -> None:
    """The comparison, in words."""
    from tradeoff.study.arm_report import comparison_md

    say(comparison_md(data).rstrip())
    say(f"arms compared: {' and '.join(data['files'])}")
