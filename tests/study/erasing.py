"""A study to erase from: participants with access codes and by a panel's allow-list,
sessions, a withdrawal, a decline and a screen-out (shared by the erasure tests)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from tradeoff.ask.scenario import load_scenario
from tradeoff.record.records import EntryRecord
from tradeoff.simulation.oracles import SimulatedOracle
from tradeoff.study.entries import append_entry, study_lock
from tradeoff.study.folder import Study, create_study
from tradeoff.study.opening import start_session
from tradeoff.study.panel import Panel
from tradeoff.study.withdrawals import withdraw

from ..conftest import small_scenario_file

#: The panel ids of the allow-list: A1 answers and withdraws, B2 declines.
A1, B2 = "aa01x", "bb02y"


@dataclass(frozen=True)
class Made:
    study: Study
    codes: dict[str, str]
    #: A1's participant id (a panel participant) and B2's.
    a1: str
    b2: str


def _answer(study: Study, pid: str, seed: int, entry: EntryRecord | None = None) -> None:
    loaded = load_scenario(study.scenario_path)
    sc = loaded.scenario
    rec = start_session(
        loaded,
        pid,
        study.sessions_dir,
        spec=sc.elicitation.override(budget=3),
        cache_dir=study.cache_dir,
        entry=entry,
        seed=seed,
    )
    oracle = SimulatedOracle.for_scenario(
        sc, tuple([1 / len(sc.weight_names)] * len(sc.weight_names))
    )
    with rec:
        while (q := rec.engine.next_query()) is not None:
            rec.answer(oracle.choose(q), response_ms=900.0)
        rec.finish()


def make_study(root: Path) -> Made:
    """p01 complete, p02 complete then withdrawn, p03 not started (access codes); A1 let
    in by the panel's link, complete, then withdrawn; B2 let in, declined; a screen-out."""
    root.mkdir(parents=True, exist_ok=True)
    panel = Panel("PROLIFIC_PID", (), os.urandom(16), allow_list=True)
    study, codes = create_study(
        small_scenario_file(root),
        ["p01", "p02", "p03"],
        root / "s",
        panel=panel,
        panel_ids=[A1, B2],
    )
    a1, b2 = panel.participant_of(A1), panel.participant_of(B2)
    with study_lock(study.path):
        at = "2026-11-27T10:00:00+00:00"
        append_entry(study.path, {"event": "enrolled", "participant": a1, "panel_id": A1, "at": at})
        append_entry(study.path, {"event": "enrolled", "participant": b2, "panel_id": B2, "at": at})
        append_entry(study.path, {"event": "started", "participant": a1, "at": at})
        append_entry(study.path, {"event": "declined", "participant": b2, "panel_id": B2, "at": at})
        append_entry(
            study.path,
            {"event": "screened", "panel_id": "zz99q", "reason": "not on the list", "at": at},
        )
    from tradeoff.study.folder import load_study

    study = load_study(study.path)
    _answer(study, "p01", 1)
    _answer(study, "p02", 2)
    _answer(study, a1, 3, EntryRecord(type="entry", via="panel", panel_id=A1))
    withdraw(study, "p02")
    withdraw(study, a1)
    return Made(study, codes, a1, b2)


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file of a study but its cache, by path: what a crash must leave old or new."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and "cache" not in p.relative_to(folder).parts
    }
