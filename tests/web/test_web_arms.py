"""A study with arms through HTTP: participants who come in on two servers of one study
are assigned in turn, each session runs with its arm's strategy and keeps it when they come
back, a pilot is assigned but not counted, and the coordinator's page shows the arms'
numbers of ``study status``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tradeoff.record.log import read_session
from tradeoff.record.records import NoteRecord
from tradeoff.study.arm_specs import ArmSpec
from tradeoff.study.entries import read_entries
from tradeoff.study.folder import Study, create_study, load_study
from tradeoff.study.keys import new_key
from tradeoff.study.status import study_status

from ..conftest import small_scenario_file
from ..webclient import Participant
from .test_web_panel import facts_of

pytestmark = pytest.mark.e2e

PEOPLE = ("p01", "p02", "p03", "p04", "p05")


def strategy_of(study: Study, pid: str) -> str:
    """The strategy of ``pid``'s one session, which names its arm in a note too."""
    [path] = sorted((study.sessions_dir / pid).glob("*.jsonl"))
    log = read_session(path)
    notes = [e.text for e in log.events if isinstance(e, NoteRecord)]
    assert f"arm {log.header.spec.strategy}" in notes
    return log.header.spec.strategy


async def test_arms_over_two_servers_with_a_pilot_and_the_coordinators_page(
    tmp_path: Path, serve: Callable[[Study], object]
) -> None:
    scenario = small_scenario_file(tmp_path, **{"budget = 30": "budget = 4"})
    study, codes = create_study(
        scenario,
        list(PEOPLE),
        tmp_path / "study",
        arms=[ArmSpec("joint", None, "joint"), ArmSpec("bisection", None, "bisection")],
    )
    a = await serve(study)  # type: ignore[misc]
    b = await serve(study)  # type: ignore[misc]
    pilot_key = new_key(study.path, "pilot")
    coordinator_key = new_key(study.path, "coordinator")
    people = {pid: Participant(a if n % 2 else b) for n, pid in enumerate(PEOPLE)}
    pilot = Participant(a)
    coordinator = Participant(b)
    try:
        for pid, p in people.items():
            page = await p.enter(codes[pid])
            assert page.h1 == "Question 1"
            if pid == "p01":
                page = await p.submit(page, "answer", choice="left")
        # p01 comes back on the other server: the same session, the same arm
        again = Participant(b)
        try:
            assert (await again.enter(codes["p01"])).h1 == "Question 2"
        finally:
            await again.close()
        form = await coordinator.get("coordinator")
        shown = facts_of(await coordinator.submit(form, "coordinator", key=coordinator_key))
        expected = study_status(load_study(study.path)).to_dict()["arms"]
        page = await pilot.get(f"pilot?key={pilot_key}")
        assert page.h1 == "Question 1"
    finally:
        for p in [*people.values(), pilot, coordinator]:
            await p.close()
    state = read_entries(study.path)
    arms = {pid: state.arms[pid] for pid in PEOPLE}
    assert sorted(arms.values()) in (
        ["bisection"] * 2 + ["joint"] * 3,
        ["bisection"] * 3 + ["joint"] * 2,
    )
    for pid in PEOPLE:
        assert strategy_of(study, pid) == arms[pid]
        assert len(list((study.sessions_dir / pid).glob("*.jsonl"))) == 1
    [pilot_id] = [p for p in state.arms if p.startswith("pilot-")]
    assert strategy_of(study, pilot_id) == state.arms[pilot_id]
    status = study_status(load_study(study.path)).to_dict()
    assert sum(c["assigned"] for c in status["arms"].values()) == 5  # the pilot not counted
    assert {r["participant"]: r["arm"] for r in status["rows"]} == arms
    assert status["arms"] == expected  # the pilot changed no count
    for arm, counts in expected.items():
        assert shown[f"arms.{arm}.assigned"] == str(counts["assigned"])
        assert shown[f"arms.{arm}.in_progress"] == str(counts["in_progress"])
