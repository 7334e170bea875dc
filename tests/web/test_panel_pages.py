"""The pages a panel's link and a declined consent lead to, through HTTP: a withdrawn panel
participant who opens their link again reads that they withdrew and gets what the panel
needs (the study's code for a withdrawal, its address as a link not followed at once, or,
with neither, to tell the panel), whether they withdrew on the page or by ``study
withdraw``; one with an access code still gets the plain page. Someone who came in by a
link reads the study's description and its expected length on the consent page, as the
code page gives it to everyone else. A decline with an access code is noted (once, in
``entries.jsonl``) and said so; a pilot's is not."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tradeoff.study.entries import read_entries
from tradeoff.study.folder import Study, create_study, load_study
from tradeoff.study.keys import new_key
from tradeoff.study.panel import Ending, Panel
from tradeoff.study.status import study_status
from tradeoff.study.withdrawals import withdraw

from ..conftest import small_scenario_file
from ..webclient import Page, Participant
from .test_web import CONSENT

pytestmark = pytest.mark.e2e

BACK_URL = "https://panel.example/return?cc=LEFT2&pid={PROLIFIC_PID}"


def make(tmp_path: Path, declined: Ending) -> tuple[Study, dict[str, str]]:
    """Two access codes and a panel's open enrolment, with consent."""
    scenario = small_scenario_file(tmp_path, **{"budget = 30": "budget = 3"})
    consent = tmp_path / "consent.md"
    consent.write_text(CONSENT)
    panel = Panel(
        "PROLIFIC_PID", ("STUDY_ID", "SESSION_ID"), b"0123456789abcdef", cap=10, declined=declined
    )
    return create_study(scenario, ["p01", "p02"], tmp_path / "study", consent=consent, panel=panel)


def link(panel_id: str) -> str:
    return f"panel?PROLIFIC_PID={panel_id}&STUDY_ID=st1&SESSION_ID=se1"


async def withdraw_on_the_page(p: Participant, consent: Page) -> Page:
    q1 = await p.submit(consent, "consent", choice="agree")
    assert q1.h1 == "Question 1"
    ask = await p.get("withdraw")
    return await p.submit(ask, "withdraw", choice="withdraw")


@pytest.mark.parametrize(
    ("declined", "needs"),
    [
        (Ending(code="LEFT1"), "LEFT1"),
        (Ending(BACK_URL), 'href="https://panel.example/return?cc=LEFT2&amp;pid=AAA111"'),
        (Ending(), "Please go back to the panel and tell it that you withdrew."),
    ],
    ids=["code", "url", "neither"],
)
async def test_a_withdrawn_panel_participant_opening_the_link_again_gets_what_the_panel_needs(
    tmp_path: Path, serve: Callable[[Study], object], declined: Ending, needs: str
) -> None:
    study, _ = make(tmp_path, declined)
    base = await serve(study)  # type: ignore[misc]
    first, later, other = Participant(base), Participant(base), Participant(base)
    try:
        gone = await withdraw_on_the_page(first, await first.get(link("AAA111")))
        assert gone.h1 == "You have withdrawn from this study"
        again = await later.get(link("AAA111"))  # another browser, the same link
        # let in, then withdrawn by the coordinator (study withdraw), not on the page
        assert (await other.get(link("BBB222"))).h1 == "Information and consent"
        withdraw(load_study(study.path), study.panel.participant_of("BBB222"))  # type: ignore[union-attr]
        other_again = await other.get(link("BBB222"))
    finally:
        for p in (first, later, other):
            await p.close()
    for page in (again, other_again):
        assert page.status == 200 and page.h1 == "You have withdrawn from this study"
        assert "You withdrew from this study earlier" in page.text
        assert "left out of the study's results" in page.text
        assert needs.replace("AAA111", "BBB222" if page is other_again else "AAA111") in (
            page.html if needs.startswith("href") else page.text
        )
        assert "http-equiv" not in page.html  # read first, never sent on at once
    if declined.url is not None:  # right after withdrawing it is followed at once, as before
        assert 'http-equiv="refresh"' in gone.html
    state = read_entries(study.path)
    assert all(not e.declined for e in state.people.values())


async def test_a_withdrawn_code_participant_still_gets_the_plain_page(
    tmp_path: Path, serve: Callable[[Study], object]
) -> None:
    study, codes = make(tmp_path, Ending(code="LEFT1"))
    base = await serve(study)  # type: ignore[misc]
    p = Participant(base)
    try:
        await withdraw_on_the_page(p, await p.enter(codes["p01"]))
        again = await p.enter(codes["p01"])
    finally:
        await p.close()
    assert again.h1 == "You have withdrawn from this study"
    assert again.text.endswith("Nothing more is recorded. Thank you for your time.")
    assert "LEFT1" not in again.text and "panel" not in again.text


async def test_the_consent_page_tells_a_link_entrant_what_the_code_page_tells_the_others(
    tmp_path: Path, serve: Callable[[Study], object]
) -> None:
    study, codes = make(tmp_path, Ending(code="LEFT1"))
    pilot_key = new_key(study.path, "pilot")
    base = await serve(study)  # type: ignore[misc]
    by_code, by_link, by_pilot = Participant(base), Participant(base), Participant(base)
    try:
        code_page = await by_code.get("")
        code_consent = await by_code.submit(code_page, "code", code=codes["p01"])
        panel_consent = await by_link.get(link("AAA111"))
        pilot_consent = await by_pilot.get(f"pilot?key={pilot_key}")
    finally:
        for p in (by_code, by_link, by_pilot):
            await p.close()
    expect = re.search(r"(At most|About) \d+ questions[^.]*\.", code_page.text)
    assert expect is not None
    description = "A screening programme in primary care"  # the scenario's description
    assert description in code_page.text
    for consent in (panel_consent, pilot_consent):
        assert consent.path.endswith("/consent") and consent.h1 == "Information and consent"
        assert 'id="h-about">The study in brief</h2>' in consent.html
        assert expect.group(0) in consent.text and description in consent.text
        # the study first, then the consent text and its form
        assert consent.text.index(expect.group(0)) < consent.text.index("What taking part means")
        assert consent.text.index("What taking part means") < consent.text.index("Version 1")
    assert code_consent.path.endswith("/consent")
    assert 'id="h-about"' not in code_consent.html
    assert expect.group(0) not in code_consent.text


async def test_a_decline_with_an_access_code_is_noted_once_and_a_pilots_is_not(
    tmp_path: Path, serve: Callable[[Study], object]
) -> None:
    study, codes = make(tmp_path, Ending(code="LEFT1"))
    pilot_key = new_key(study.path, "pilot")
    base = await serve(study)  # type: ignore[misc]
    p, pilot = Participant(base), Participant(base)
    try:
        declined = await p.submit(await p.enter(codes["p02"]), "consent", choice="decline")
        twice = await p.submit(await p.enter(codes["p02"]), "consent", choice="decline")
        consent = await pilot.get(f"pilot?key={pilot_key}")
        pilot_declined = await pilot.submit(consent, "consent", choice="decline")
    finally:
        await p.close()
        await pilot.close()
    for page in (declined, twice):
        assert page.h1 == "Thank you"
        assert "Only that choice was noted, so that the study's coordinator knows" in page.text
        assert "no answer was recorded" in page.text
    assert "You chose not to take part. Nothing was recorded." in pilot_declined.text
    lines = (study.path / "entries.jsonl").read_text().splitlines()
    assert sum('"via": "code"' in line for line in lines) == 1
    state = read_entries(study.path)
    assert state.code_declined == {"p02"} and not state.bad_lines
    rows = {r.participant: r.state for r in study_status(load_study(study.path)).rows}
    assert rows["p02"] == "declined consent" and rows["p01"] == "not started"
    assert not (study.sessions_dir / "p02").exists()
