"""``tradeoff study status``: a study's counts in words, then a row per participant (or
its JSON, :meth:`tradeoff.study.status.StudyStatus.to_dict`, or ``--watch``'s table).

The summary above the table and the problems below it are prose: on a terminal, each line
longer than it is wide is broken between words (``say(..., wrap=True)``,
:func:`tradeoff.text.terminal_fit`); the table's rows are left whole, one a participant.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from tradeoff.cli.arms import format_arms
from tradeoff.cli.common import emit, say


@dataclass(frozen=True)
class StatusWords:
    """``study status`` in words, in its three parts."""

    #: The counts, a line each for pilots, panel entries and arms (prose).
    summary: list[str]
    #: The table's heading and a row per participant (never wrapped).
    table: list[str]
    #: What is wrong with the study's shared files (prose).
    problems: list[str]

    @property
    def lines(self) -> list[str]:
        return self.summary + self.table + self.problems


def status_words(data: dict[str, object]) -> StatusWords:
    """``study status`` in words: the counts, a line each for pilots, panel entries and
    arms, then a row per participant, then the problems."""
    extra = []
    pilots = data.get("pilots")
    if isinstance(pilots, dict) and pilots.get("participants"):
        n = pilots["sessions"]
        extra.append(
            f"{n} pilot session{'s' if n != 1 else ''} of {pilots['participants']} pilot "
            f"participant{'s' if pilots['participants'] != 1 else ''}, not counted "
            "(tradeoff study remove-pilots moves them aside)"
        )
    panel = data.get("panel")
    if isinstance(panel, dict):
        screened = panel.get("screened") or {}
        reasons = ", ".join(f"{n} {r}" for r, n in screened.items())
        extra.append(
            f"panel: {panel['entered']} entered by link, {panel['holding_a_place']} holding a "
            f"place"
            + (f" of {panel['cap']}" if panel.get("cap") else "")
            + f", {panel['declined']} declined consent"
            + (
                f" ({panel['declined_then_took_part']} more declined, then took part)"
                if panel.get("declined_then_took_part")
                else ""
            )
            + f", {panel['screened_total']} screened out"
            + (f" ({reasons})" if reasons else "")
        )
    contact = data.get("contact")
    extra.append(
        f"participants' pages name the coordinator's contact: {contact}"
        if contact
        else f"no contact on the participants' pages (tradeoff study contact {data['study']} "
        "TEXT gives one)"
    )
    problems = data.get("problems") or []
    assert isinstance(problems, list)
    return StatusWords(
        [_counts(data), *extra, *format_arms(data)],
        _table(data),
        [f"problem: {p}" for p in problems],
    )


def format_status(data: dict[str, object]) -> str:
    """``study status`` in words, as one text (its lines as they are, none wrapped)."""
    return "\n".join(status_words(data).lines)


def _counts(data: dict[str, object]) -> str:
    from tradeoff.study.status import totals_words

    return f"{data['study']}: {totals_words(data)}. Times are UTC."


def _table(data: dict[str, object]) -> list[str]:
    from tradeoff.study.status import minute, table_note

    rows = data["rows"]
    assert isinstance(rows, list)
    width = max([11] + [len(str(r["participant"])) for r in rows])
    lines = [
        f"  {'participant':<{width}}  {'answers':>7}  {'complete':<8}  {'last activity':<16}  note",
    ]
    for r in rows:
        note = table_note(r)
        line = (
            f"  {r['participant']:<{width}}  {r['answers']:>7}  "
            f"{'yes' if r['complete'] else 'no':<8}  {minute(r['last_activity']):<16}  {note}"
        )
        lines.append(line.rstrip())
    return lines


def cmd_study_status(args: argparse.Namespace) -> int:
    from tradeoff.cli.nearby import open_study
    from tradeoff.study.status import study_status

    study = open_study(args.study)
    if args.watch:
        from tradeoff.tui.study import watch

        watch(study, interval=args.interval)
        return 0
    data = study_status(study).to_dict()
    if args.json:
        emit(data)
        return 0
    words = status_words(data)
    say("\n".join(words.summary), wrap=True)  # prose: broken between words on a terminal
    say("\n".join(words.table))  # a row per participant, whole
    if words.problems:
        say("\n".join(words.problems), wrap=True)
    return 0
