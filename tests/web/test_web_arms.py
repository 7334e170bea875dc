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


HEADINGS = {
    "en": ("Information and consent", "Question"),
    "de": ("Information und Einwilligung", "Frage"),
}


async def test_an_arm_with_a_language_shows_it_from_assignment_on(
    tmp_path: Path, serve: Callable[[Study], object]
) -> None:
    """Two arms, English and German: a participant's code and consent pages are in the
    language the browser or the switch asks for (they are not assigned yet); from their
    first session on, every page is in their arm's language, whatever the browser or the
    switch says. The second participant's browser and choice ask for the first's arm's
    language, and they are assigned to the other arm: its language wins. The session notes
    the arm's language, each answer carries it, and the export says it."""
    import csv

    from tradeoff.study.export import export_study
    from tradeoff.study.export_rows import session_language

    from .test_web import CONSENT

    scenario = small_scenario_file(tmp_path, **{"budget = 30": "budget = 4"})
    consent = tmp_path / "consent.md"
    consent.write_text(CONSENT)
    study, codes = create_study(
        scenario,
        ["p01", "p02"],
        tmp_path / "study",
        consent=consent,
        arms=[ArmSpec("english", language="en"), ArmSpec("german", language="de")],
    )
    base = await serve(study)  # type: ignore[misc]
    shown: dict[str, str] = {}  # the language each one's browser (and switch) asked for
    arm_language = {"english": "en", "german": "de"}
    for pid in ("p01", "p02"):
        if pid == "p01":
            shown[pid] = "en"
        else:  # asks for the first one's arm's language, and is given the other arm
            shown[pid] = arm_language[read_entries(study.path).arms["p01"]]
        p = Participant(base, language=shown[pid])
        try:
            start = await p.get(f"?lang={shown[pid]}")
            assert f'<html lang="{shown[pid]}">' in start.html
            page = await p.submit(start, "code", code=codes[pid])
            assert page.h1 == HEADINGS[shown[pid]][0]  # before assignment: as asked
            page = await p.submit(page, "consent", choice="agree")
            mine = arm_language[read_entries(study.path).arms[pid]]
            assert f'<html lang="{mine}">' in page.html
            assert page.h1 == f"{HEADINGS[mine][1]} 1"
            page = await p.submit(page, "answer", choice="left")
            assert page.h1 == f"{HEADINGS[mine][1]} 2"
            for other in ("en", "de"):  # neither the switch nor the browser changes it
                again = await p.get(f"?lang={other}")
                assert f'<html lang="{mine}">' in again.html
                assert again.h1 == f"{HEADINGS[mine][1]} 2"
        finally:
            await p.close()
    arms = read_entries(study.path).arms
    assert sorted(arms.values()) == ["english", "german"]
    assert shown["p02"] != arm_language[arms["p02"]]  # the arm won over what was asked
    for pid in ("p01", "p02"):
        [path] = sorted((study.sessions_dir / pid).glob("*.jsonl"))
        log = read_session(path)
        mine = arm_language[arms[pid]]
        assert log.consent is not None and log.consent.language == shown[pid]
        assert session_language(log) == mine
        assert {e.language for e in log.events if e.type == "answer"} == {mine}
    summary = export_study(load_study(study.path), tmp_path / "answers.csv")
    assert summary.participants_table is not None
    with summary.participants_table.open(encoding="utf-8") as fh:
        people = {row["participant"]: row for row in csv.DictReader(fh)}
    with summary.path.open(encoding="utf-8") as fh:
        answers = list(csv.DictReader(fh))
    for pid in ("p01", "p02"):
        mine = arm_language[arms[pid]]
        assert people[pid]["language"] == mine and people[pid]["arm"] == arms[pid]
        assert {a["language"] for a in answers if a["participant"] == pid} == {mine}


def test_an_arms_language_the_page_has_no_words_for_is_refused_at_serving(
    tmp_path: Path,
) -> None:
    """A ``study.json`` whose arm names a language without a catalogue (edited by hand, or
    made where the page had one) is refused when it is served, naming the file and arm."""
    import json

    from tradeoff.errors import InputError
    from tradeoff.web.flow import make_web_app

    study, _ = create_study(
        small_scenario_file(tmp_path),
        ["p01"],
        tmp_path / "study",
        arms=[ArmSpec("plain"), ArmSpec("german", language="de")],
    )
    path = study.path / "study.json"
    data = json.loads(path.read_text())
    data["arms"][1]["language"] = "fr"
    path.write_text(json.dumps(data))
    with pytest.raises(InputError) as refused:
        make_web_app(load_study(study.path))
    text = refused.value.message()
    assert str(path) in text and "arms[2].language" in text and "'fr'" in text
