"""A study's attention checks: where they stand (``study create --attention-checks 3,8``:
before questions 3 and 8), the check a participant is shown there, and how each
participant did (:func:`check_summary`: shown, failed), for status, the export and
``--exclude-inattentive``.

A check is a dominated pair built from the study's scenario
(:func:`tradeoff.ask.checks.attention_check`); the page shows it exactly as a question and
records the choice as a ``check`` line (:class:`tradeoff.record.records.CheckRecord`),
never as an answer: the engine never learns from it. A participant *failed* a check when
they chose the option that is worse on every line; "can't tell" is not a failure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tradeoff.ask.checks import Side, attention_check, checkable, dominant_side
from tradeoff.ask.queries import Query
from tradeoff.ask.scenario import Scenario
from tradeoff.errors import InputError
from tradeoff.record.log import SessionLog

#: Why a report or an export leaves a participant out with ``--exclude-inattentive``.
INATTENTIVE = "failed an attention check and excluded (--exclude-inattentive)"
#: The most checks a study may ask, and the latest question one may come before.
MAX_CHECKS = 50
MAX_POSITION = 10_000


def parse_positions(text: str, source: str = "--attention-checks") -> tuple[int, ...]:
    """Positions as given on the command line: whole numbers, comma-separated, each the
    question a check comes before (1: before the first question).

    >>> parse_positions("8, 3")
    (3, 8)
    """
    positions: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part.isdigit() or not 1 <= int(part) <= MAX_POSITION:
            raise InputError.single(
                source,
                repr(part),
                "is not a question number a check can come before.",
                f"give whole numbers from 1 to {MAX_POSITION:,}, comma-separated, e.g. 3,8 "
                "(a check before question 3 and one before question 8).",
            )
        positions.append(int(part))
    return check_positions(positions, source)


def check_positions(positions: Sequence[object], source: str) -> tuple[int, ...]:
    """Positions checked: distinct whole numbers from 1 to :data:`MAX_POSITION`, at most
    :data:`MAX_CHECKS` of them; returned sorted."""
    if len(positions) > MAX_CHECKS:
        raise InputError.single(
            source, "", f"names {len(positions)} checks.", f"give at most {MAX_CHECKS}."
        )
    out: list[int] = []
    for p in positions:
        if isinstance(p, bool) or not isinstance(p, int) or not 1 <= p <= MAX_POSITION:
            raise InputError.single(
                source, repr(p), "is not a question number.", f"give 1 to {MAX_POSITION:,}."
            )
        if p in out:
            raise InputError.single(source, repr(p), "is given twice.", "give each once.")
        out.append(p)
    return tuple(sorted(out))


def check_checkable(scenario: Scenario, source: str) -> None:
    """Refuse checks for a scenario none of whose lines can read clearly apart."""
    if not checkable(scenario):
        raise InputError.single(
            source,
            "",
            "the scenario has no line whose values read clearly apart within its range "
            "(every range too narrow for the digits its format shows), so no attention "
            "check can be built.",
            "widen a range or show more digits in a format, or make the study without "
            "--attention-checks.",
        )


def due_check(
    positions: Sequence[int],
    shown: frozenset[int],
    answered: int,
    scenario: Scenario,
    priors: Sequence[float],
    seed: int,
) -> tuple[Query, Side] | None:
    """The check to show now, and its better side: the one before question
    ``answered + 1`` when the study has one there and it was not shown yet."""
    position = answered + 1
    if position not in positions or position in shown:
        return None
    query = attention_check(scenario, priors, position, seed)
    side = dominant_side(scenario, query)
    assert side is not None, "a check is built dominated"
    return query, side


@dataclass(frozen=True)
class CheckSummary:
    """How a participant did on the attention checks of their sessions."""

    shown: int = 0
    failed: int = 0

    @property
    def state(self) -> str:
        """``none`` (no check shown), ``passed`` or ``failed`` (one at least failed).

        >>> CheckSummary(2, 1).state, CheckSummary(2, 0).state, CheckSummary().state
        ('failed', 'passed', 'none')
        """
        if not self.shown:
            return "none"
        return "failed" if self.failed else "passed"

    @property
    def words(self) -> str:
        """What a coordinator reads of them.

        >>> CheckSummary(2, 1).words, CheckSummary(2, 0).words
        ('attention checks: 1 of 2 failed', 'attention checks: 2 passed')
        """
        if self.failed:
            return f"attention checks: {self.failed} of {self.shown} failed"
        return f"attention checks: {self.shown} passed"

    def __add__(self, other: CheckSummary) -> CheckSummary:
        return CheckSummary(self.shown + other.shown, self.failed + other.failed)


def check_summary(logs: Sequence[SessionLog]) -> CheckSummary:
    """Checks shown and failed over a participant's sessions."""
    total = CheckSummary()
    for log in logs:
        checks = log.checks
        total = total + CheckSummary(len(checks), sum(c.failed for c in checks))
    return total
