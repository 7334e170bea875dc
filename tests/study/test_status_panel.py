"""The coordinator's facts in ``study status``: where people stop, the median time of each
question, long pauses and the latest activity, each checked against a direct count over
the session files read on their own (``read_session``, ``statistics.median``); pilot
participants never counted, shown apart (and no panel counts for a study without a
panel)."""

from __future__ import annotations

import random
import statistics
from pathlib import Path

import pytest

from tradeoff.ask.scenario import load_scenario
from tradeoff.cli.study_status import format_status
from tradeoff.record.log import read_session
from tradeoff.record.records import AnswerRecord, EntryRecord, now
from tradeoff.study.entries import EntryLog, new_pilot
from tradeoff.study.folder import create_study, load_study
from tradeoff.study.opening import start_session
from tradeoff.study.status import LONG_PAUSE_S, study_status

from ..conftest import small_scenario_file

pytestmark = pytest.mark.core


def test_stops_times_pauses_and_pilots_match_a_direct_count(tmp_path: Path) -> None:
    scenario = small_scenario_file(tmp_path, **{"budget = 30": "budget = 5"})
    people = [f"p{i:02d}" for i in range(1, 9)]
    study, _ = create_study(scenario, people, tmp_path / "s")
    new_pilot(EntryLog(study.path), "pilot-0000000000aa")
    loaded = load_scenario(study.scenario_path)
    rng = random.Random(7)
    plan = {pid: rng.choice([0, 1, 2, 3, 5]) for pid in people[:-1]}  # p08 never starts
    plan["pilot-0000000000aa"] = 2
    for pid, answers in plan.items():
        pilot = pid.startswith("pilot-")
        entry = EntryRecord(type="entry", via="open", pilot=True, at=now()) if pilot else None
        rec = start_session(loaded, pid, study.sessions_dir, cache_dir=study.cache_dir, entry=entry)
        try:
            for _ in range(answers):
                if rec.engine.next_query() is None:
                    break
                slow = rng.random() < 0.15
                rec.answer(
                    rng.choice(["left", "right"]),
                    response_ms=rng.uniform(
                        (LONG_PAUSE_S + 1) * 1000 if slow else 500,
                        (LONG_PAUSE_S + 60) * 1000 if slow else 20_000,
                    ),
                )
            if answers == 5 and rec.engine.next_query() is None:
                rec.finish()
        finally:
            rec.close()
    data = study_status(load_study(study.path)).to_dict()

    # a direct count over the files, pilots left out
    logs = {}
    for folder in study.sessions_dir.iterdir():
        files = sorted(folder.glob("*.jsonl"))
        if files and not folder.name.startswith("pilot-"):
            logs[folder.name] = read_session(max(files, key=lambda p: p.stat().st_mtime))
    stops: dict[str, int] = {}
    times: dict[int, list[float]] = {}
    paused = 0
    for log in logs.values():
        answers = [e for e in log.events if isinstance(e, AnswerRecord)]
        if not log.finished:
            stops[str(len(answers))] = stops.get(str(len(answers)), 0) + 1
        for i, a in enumerate(answers, start=1):
            assert a.response_ms is not None
            times.setdefault(i, []).append(a.response_ms)
        paused += any((a.response_ms or 0) > LONG_PAUSE_S * 1000 for a in answers)
    assert paused >= 1 and len(stops) >= 2, "the seed makes long pauses and stops to count"
    assert data["stopped_at"] == dict(sorted(stops.items(), key=lambda kv: int(kv[0])))
    assert [q["question"] for q in data["by_question"]] == sorted(times)
    for q in data["by_question"]:
        expected = statistics.median(times[q["question"]]) / 1000
        assert abs(q["median_s"] - expected) <= 0.05 + 1e-9
        assert q["answers"] == len(times[q["question"]])
    assert data["long_pauses"] == paused
    assert data["participants"] == len(people) and data["started"] == len(logs)
    assert data["pilots"] == {"participants": 1, "sessions": 1, "complete": 0}
    assert "pilot-0000000000aa" not in {r["participant"] for r in data["rows"]}
    assert "pilot-0000000000aa" not in {r["participant"] for r in data["recent"]}
    assert len(data["recent"]) == min(10, len(logs))
    latest = [r["last_activity"] for r in data["recent"]]
    assert latest == sorted(latest, reverse=True)
    # a study by access codes has no panel: its pilot's entry makes no panel counts
    assert data["panel"] is None
    assert "panel:" not in format_status(data)


def test_time_per_question_counts_the_answers_that_count_by_question(tmp_path: Path) -> None:
    """An undone answer is no question of its own and shifts none after it; an answer with
    no recorded time leaves its question out and shifts none after it either."""
    scenario = small_scenario_file(tmp_path, **{"budget = 30": "budget = 5"})
    study, _ = create_study(scenario, ["p01", "p02"], tmp_path / "s")
    loaded = load_scenario(study.scenario_path)
    plan = {
        # (choice, response ms) or "undo"
        "p01": [("left", 1000.0), ("left", 9000.0), "undo", ("right", 3000.0), ("left", 4000.0)],
        "p02": [("left", None), ("right", 5000.0)],
    }
    for pid, steps in plan.items():
        rec = start_session(loaded, pid, study.sessions_dir, cache_dir=study.cache_dir)
        with rec:
            for step in steps:
                if step == "undo":
                    rec.undo()
                else:
                    choice, ms = step
                    rec.answer(choice, response_ms=ms)
    data = study_status(load_study(study.path)).to_dict()
    assert data["by_question"] == [
        {"question": 1, "median_s": 1.0, "answers": 1},
        {"question": 2, "median_s": 4.0, "answers": 2},
        {"question": 3, "median_s": 4.0, "answers": 1},
    ]
    assert data["median_response_s"] == 3.5
    assert {r["participant"]: r["answers"] for r in data["rows"]} == {"p01": 3, "p02": 2}


def test_a_person_answering_by_a_fixed_rule_is_not_flagged_in_status(tmp_path: Path) -> None:
    """Every repeated question answered the same way, as shown, though the repeat's numbers
    differ from the first asking's in their last bits: status does not flag
    them, and `study report --exclude-inconsistent` keeps them (they were flagged, with
    "0 of 2", when repeats were compared bit for bit)."""
    from tradeoff.simulation.oracles import SimulatedOracle

    from ..choose.test_selection import natural
    from ..conftest import SCENARIOS

    study, _ = create_study(SCENARIOS / "breast-cancer-triage.toml", ["p01"], tmp_path / "s")
    loaded = load_scenario(study.scenario_path)
    spec = loaded.scenario.elicitation.override(budget=40)
    rec = start_session(
        loaded, "p01", study.sessions_dir, spec=spec, cache_dir=study.cache_dir, seed=47
    )
    oracle = SimulatedOracle.for_scenario(
        loaded.scenario, natural(loaded, [0.07, 0.36, 0.04, 0.53])
    )
    with rec:
        while (q := rec.engine.next_query()) is not None:
            rec.answer(oracle.choose(q))
        rec.finish()
        repeats = rec.engine.consistency()
    assert repeats == (2, 2)
    status = study_status(load_study(study.path))
    assert [r["consistency_flagged"] for r in status.to_dict()["rows"]] == [False]
    assert status.missing(exclude_inconsistent=True) == []  # study report keeps them
