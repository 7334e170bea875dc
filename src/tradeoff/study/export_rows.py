"""The answers table's rows: one per ``answer`` line of a session file, the question as
shown and exactly, the answer, and the posterior right after it, read by replaying the
file as :func:`tradeoff.record.replay.replay` does (:func:`session_rows`); the language a
session was shown in and whose clock timed it (:func:`session_language`, :func:`served`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tradeoff.ask.population import Population
from tradeoff.ask.scenario import Scenario
from tradeoff.ask.shown import per_thousand, shown_number
from tradeoff.learn import Engine
from tradeoff.record.log import SessionLog
from tradeoff.record.records import AnswerRecord, ExtendRecord, UndoRecord
from tradeoff.record.replay import replay
from tradeoff.study.table_columns import ANSWERS, SIDES

__all__ = ["Row", "served", "session_language", "session_rows"]

Row = dict[str, Any]


def _posterior(engine: Engine, slugs: Sequence[str]) -> Row:
    """The engine's swing weights, their intervals and P(best), by column."""
    result = engine.result()
    if result.swing_weights is not None:
        weights, intervals = result.swing_weights, result.swing_intervals
    else:
        weights, intervals = result.weights, result.intervals
    row: Row = {}
    for k, slug in enumerate(slugs):
        row[f"w_{slug}"] = float(weights[k])
        lo, hi = (None, None) if intervals is None else intervals[k]
        row[f"w_{slug}_lo"] = lo
        row[f"w_{slug}_hi"] = hi
    decision = engine.decision()
    row["p_best"] = None if decision is None else decision[0]
    row["expected_regret"] = None if decision is None else decision[1]
    return row


def _answer_row(scenario: Scenario, slugs: Sequence[str], event: AnswerRecord) -> Row:
    """What an answer line says, by column (without the session's and the posterior's)."""
    q = event.query
    k = scenario.n_classes
    row: Row = {
        "kind": q.kind,
        "candidate_A": None if q.candidates is None else q.candidates[0],
        "candidate_B": None if q.candidates is None else q.candidates[1],
    }
    for side, attr in SIDES:
        profile = getattr(q, attr)
        for i, slug in enumerate(slugs[:k]):
            row[f"{side}_{slug}_per_1000"] = per_thousand(profile.recalls[i])
            row[f"{side}_{slug}_recall"] = profile.recalls[i]
        for j, slug in enumerate(slugs[k:]):
            row[f"{side}_{slug}_shown"] = shown_number(
                scenario.attributes[j], profile.attributes[j]
            )
            row[f"{side}_{slug}"] = profile.attributes[j]
    row.update(
        answer=ANSWERS[event.choice],
        response_ms=event.response_ms,
        answered_at=event.at,
        undone=False,
        repeat_of=q.repeat_of,
        is_repeat=q.repeat_of is not None,
    )
    return row


def session_language(log: SessionLog) -> str | None:
    """The language a session was shown in: its ``language`` note (the study web page
    writes one when no consent carries the language, the consent's text is in another, or
    the participant's arm shows its own; a terminal always does), else its consent
    record's, else ``None``."""
    for e in log.events:
        if e.type == "note" and e.text.startswith("language "):
            return e.text.removeprefix("language ")
    if log.consent is not None:
        return log.consent.language
    return None


#: The note a study's session answered at a terminal (``tradeoff elicit --study``) opens
#: with, after its entry and consent: its response times are the app's, not the server's.
AT_A_TERMINAL = "answered at a terminal"


def served(log: SessionLog) -> bool:
    """Whether the study web page recorded the session (it opens with an entry or a
    consent record, or notes its language, or an answer carries one, and it was not
    answered at a terminal: :data:`AT_A_TERMINAL`), so its response times are the
    server's (:data:`tradeoff.study.table_columns` ``response_timer``)."""
    if any(e.type == "note" and e.text == AT_A_TERMINAL for e in log.events):
        return False
    return (
        log.entry is not None
        or log.consent is not None
        or session_language(log) is not None
        or any(isinstance(e, AnswerRecord) and e.language is not None for e in log.events)
    )


def session_rows(
    log: SessionLog, scenario: Scenario, slugs: Sequence[str], population: Population | None
) -> tuple[list[Row], Engine]:
    """One row per answer line of ``log``, read as :func:`tradeoff.record.replay.replay`
    applies it, and the engine after the whole file.

    Raises
    ------
    InputError
        If a recorded question can be neither asked again nor applied as recorded.
    """
    h = log.header
    consent = log.consent
    language = session_language(log)
    common: Row = {
        "participant": h.participant,
        "session": log.path.name,
        "consent_version": None if consent is None else consent.version,
        "pilot": log.entry is not None and log.entry.pilot,
        "strategy": h.strategy,
        "response_timer": "server" if served(log) else "app",
    }
    rows: list[Row] = []
    counted: list[Row] = []  # the rows of the answers the engine counts now, oldest first

    def after(engine: Engine, event: AnswerRecord | UndoRecord | ExtendRecord) -> None:
        if isinstance(event, AnswerRecord):
            row = {
                **common,
                "language": event.language if event.language is not None else language,
                "question": event.index if event.index is not None else engine.answered,
                "answer_seq": len(rows) + 1,
                **_answer_row(scenario, slugs, event),
                **_posterior(engine, slugs),
            }
            rows.append(row)
            counted.append(row)
        while len(counted) > engine.answered:  # an undo took the newest answer back
            counted.pop()["undone"] = True

    engine = replay(log, population=population, after=after)
    return rows, engine
