"""Whom an export reads: every participant's session files that count (withdrawn
participants, pilots unless asked for, unreadable or foreign files left out and named),
replayed into answer rows (:mod:`tradeoff.study.export_rows`), and one row per participant
with their state, the session it describes, the pick their answers make and how they
came in (:func:`collect`; :mod:`tradeoff.study.entry_columns`); a participant erased on
request (``study erase``) has a row after the others, state ``erased``, and nothing else
(:mod:`tradeoff.study.erasures`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from tradeoff.ask.population import Population
from tradeoff.ask.scenario import Scenario
from tradeoff.errors import InputError
from tradeoff.learn import Engine
from tradeoff.record.log import SessionLog, read_session
from tradeoff.record.records import AnswerRecord
from tradeoff.record.replay import shown_result
from tradeoff.study.checks import INATTENTIVE
from tradeoff.study.counted import not_counted, session_bytes, session_files
from tradeoff.study.declines import declined_consent
from tradeoff.study.entries import read_entries
from tradeoff.study.entry_columns import add_entry_cells
from tradeoff.study.erasures import erased
from tradeoff.study.export_rows import Row, session_language, session_rows
from tradeoff.study.folder import Study
from tradeoff.study.groups import find_groups
from tradeoff.study.thresholds import add_thresholds
from tradeoff.study.withdrawals import certain_withdrawals

if TYPE_CHECKING:
    from tradeoff.choose.stakeholder import Stakeholder

__all__ = ["Collected", "collect"]


@dataclass(frozen=True)
class _Session:
    """One exported session file: its log, the engine after it, its modification time."""

    log: SessionLog
    engine: Engine
    mtime: float


@dataclass(frozen=True)
class Collected:
    """Every row an export writes, who is in it, and what it left out."""

    rows: list[Row]
    people: list[Row]
    participants: tuple[str, ...]
    withdrawn: tuple[str, ...]
    skipped: tuple[tuple[str, str], ...]
    warnings: tuple[str, ...]
    pilot: tuple[str, ...]
    pilot_sessions: int
    erased: tuple[str, ...] = ()


def _mtime(path: Path) -> float:
    try:
        return os.lstat(path).st_mtime
    except OSError:
        return 0.0


def _described(sessions: Sequence[_Session]) -> _Session | None:
    """The session a participant's row describes: their newest complete session, else
    their newest (by modification time, as ``study status`` and ``study report`` tell)."""
    if not sessions:
        return None
    done = [s for s in sessions if s.log.finished]
    return max(done or sessions, key=lambda s: s.mtime)


def _person(pid: str, sessions: Sequence[_Session], panel_id: str | None = None) -> Row:
    """A participant's row, without the pick (:func:`_picks` adds it); ``panel_id``, their
    id on the panel as the study knows it (its allow-list), for one who has not started."""
    chosen = _described(sessions)
    if chosen is None:
        return {
            "participant": pid,
            "state": "not started",
            "completed": False,
            "questions_answered": 0,
            "sessions": 0,
            "session": None,
            "final_pick": None,
            "p_best": None,
            "measured_best": None,
            "measured_best_p_best": None,
            "group": None,
            "group_probability": None,
            "panel_id": panel_id,
            "entry_via": None,
            "pilot": False,
            "consent_version": None,
            "language": None,
            "consents": None,
            "checks_shown": 0,
            "checks_failed": 0,
        }
    log, entry = chosen.log, chosen.log.entry
    answers = [e for e in log.events if isinstance(e, AnswerRecord)]
    shown = [e.language for e in answers if e.language is not None]
    language = session_language(log)
    complete = log.finished
    return {
        "participant": pid,
        "state": "complete" if complete else "unfinished",
        "completed": complete,
        "questions_answered": chosen.engine.answered,
        "sessions": len(sessions),
        "session": log.path.name,
        "final_pick": None,
        "p_best": None,
        "measured_best": None,
        "measured_best_p_best": None,
        "group": None,
        "group_probability": None,
        "panel_id": None if entry is None else entry.panel_id,
        "entry_via": None if entry is None else entry.via,
        "pilot": entry is not None and entry.pilot,
        "consent_version": None if log.consent is None else log.consent.version,
        "language": language if language is not None else (shown[-1] if shown else None),
        "consents": consents_text([s.log for s in sessions]),
        "checks_shown": sum(len(s.log.checks) for s in sessions),
        "checks_failed": sum(c.failed for s in sessions for c in s.log.checks),
    }


def consents_text(logs: Sequence[SessionLog]) -> str | None:
    """Every consent of a participant's sessions, oldest first: "version (language, time)"
    joined by "; " (``None`` when none was recorded)."""
    given = sorted((c.at, c.version, c.language) for log in logs for c in log.consents)
    if not given:
        return None
    return "; ".join(f"{version} ({language}, {at})" for at, version, language in given)


def _picks(
    study: Study, scenario: Scenario, people: list[Row], described: dict[str, Stakeholder]
) -> str | None:
    """Each described session's pick and the probability it was stated with (and, with a
    measurement noise, the model that measured best when it is not the pick), written into
    ``people``: the recommendation of the decide step (:func:`tradeoff.choose.recommend.
    recommend` over the scenario's pool, with the stakeholder's posterior draws, as
    :func:`tradeoff.choose.decide.decide` and so ``tradeoff study report`` make it), from
    the engine the export replayed (nothing is replayed again, and no group consensus is
    computed: its cost grows with the square of the participants). Nothing when the
    scenario has no pool; returns why the picks were left empty when its pool cannot be
    read, else ``None``."""
    from tradeoff.choose.candidates import scenario_pool
    from tradeoff.choose.selection import recommend_each

    if not described or scenario.pool is None:
        return None
    try:
        pool = scenario_pool(scenario, study.scenario_path.parent)
    except InputError as exc:
        return f"final_pick and p_best left empty: {exc.message()}"
    by_id: dict[str, Row] = {row["participant"]: row for row in people}
    each = recommend_each(scenario, list(described.values()), pool)
    for pid, rec in zip(described, each.recommendations, strict=True):
        by_id[pid]["final_pick"] = rec.name
        by_id[pid]["p_best"] = rec.stated
        # With a measurement noise, the model that measured best when it is not the pick,
        # as the report's and ``session show``'s sentence names it.
        by_id[pid]["measured_best"] = rec.measured_best
        by_id[pid]["measured_best_p_best"] = rec.measured_best_p
    return None


def _groups(people: list[Row], finished: dict[str, tuple[SessionLog, Engine]]) -> None:
    """Each participant's group and its probability, for those whose session is complete
    (:func:`tradeoff.study.groups.find_groups` over their posterior-mean swing weights as
    the review shows them: the groups of ``study report``'s population picture, which
    counts the complete sessions), written into ``people``; nothing with fewer than two."""
    shown = {p: shown_result(log, engine) for p, (log, engine) in finished.items()}
    swing = {p: r.swing_weights or r.weights for p, r in shown.items()}
    known = {p: s for p, s in swing.items() if s is not None}
    if len(known) < 2:
        return
    found = find_groups(np.asarray(list(known.values()), dtype=np.float64))
    by_id: dict[str, Row] = {row["participant"]: row for row in people}
    for i, pid in enumerate(known):
        label = int(found.labels[i])
        by_id[pid]["group"] = label + 1
        by_id[pid]["group_probability"] = float(found.probabilities[i, label])


def collect(
    study: Study,
    scenario: Scenario,
    slugs: Sequence[str],
    include_pilot: bool,
    exclude_inattentive: bool = False,
) -> Collected:
    gone = certain_withdrawals(study)
    entries = read_entries(study.path)
    declined = declined_consent(entries)
    rows: list[Row] = []
    people: list[Row] = []
    exported: list[str] = []
    skipped: list[tuple[str, str]] = []
    warnings: list[str] = []
    pilot_only: list[str] = []
    pilot_sessions = 0
    described: dict[str, _Session] = {}
    population: Population | None = None
    for pid in study.participants:
        if pid in gone:
            continue
        before = len(rows)
        sessions: list[_Session] = []
        pilots = 0
        for path in session_files(study, pid)[0]:
            try:
                log = read_session(path, session_bytes(path))
            except InputError as exc:
                skipped.append((str(path), f"unreadable: {exc.message()}"))
                continue
            header = log.header
            foreign = not_counted(header, pid, study.scenario_hashes)
            if foreign is not None:
                skipped.append((str(path), foreign))
                continue
            if log.entry is not None and log.entry.pilot and not include_pilot:
                pilots += 1
                continue
            if population is None:
                population = study.populations()(header.scenario)
            try:
                found, engine = session_rows(log, scenario, slugs, population)
            except InputError as exc:
                skipped.append((str(path), f"cannot be replayed: {exc.message()}"))
                continue
            rows += found
            sessions.append(_Session(log, engine, _mtime(path)))
            warnings += log.warnings
        pilot_sessions += pilots
        if not sessions and (pilots or (pid in study.pilots and not include_pilot)):
            pilot_only.append(pid)  # a pilot, with or without a session yet
            continue
        if exclude_inattentive and any(c.failed for s in sessions for c in s.log.checks):
            del rows[before:]
            skipped.append((pid, INATTENTIVE))
            continue
        row = _person(pid, sessions, study.panel_ids.get(pid))
        if not sessions and pid in declined:
            row["state"] = "declined consent"
        people.append(row)
        chosen = _described(sessions)
        if chosen is not None and chosen.engine.answered > 0:
            described[pid] = chosen
        if len(rows) > before:
            exported.append(pid)
    gone_for_good = [p for p in erased(study.path) if p not in study.participants]
    for pid in gone_for_good:
        row = _person(pid, [])
        row["state"] = "erased"
        people.append(row)
    add_entry_cells(people, study.panel, entries)  # quota group, link's parameters, entry
    from tradeoff.choose.stakeholder import stakeholder_of

    of = {p: stakeholder_of(s.log.header, s.engine, s.log.path) for p, s in described.items()}
    if study.arms:  # the arm of each row (a study with arms: tradeoff.study.arms)
        for row in (*rows, *people):
            row["arm"] = entries.arms.get(row["participant"])
    _groups(people, {p: (s.log, s.engine) for p, s in described.items() if s.log.finished})
    refused = _picks(study, scenario, people, of)
    add_thresholds(scenario, people, of)  # from the posterior each pick comes from
    if refused is not None:
        warnings.append(refused)
    return Collected(
        rows,
        people,
        tuple(exported),
        tuple(p for p in study.participants if p in gone),
        tuple(skipped),
        tuple(warnings),
        tuple(pilot_only),
        pilot_sessions,
        tuple(gone_for_good),
    )
