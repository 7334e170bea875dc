"""The study in brief for someone who comes in by a link to a study without a consent page,
through HTTP: they saw neither the code page nor a consent page, so their first question
gives the study's description and its expected length, as the code page gives it to
everyone else, in the page's language; the next question does not, nor the first question
shown again after an undo. Someone with an access code, and a link entrant who read the
brief on the consent page, do not get it on the question."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tradeoff.study.folder import Study, create_study
from tradeoff.study.keys import new_key
from tradeoff.study.panel import Ending, Panel

from ..conftest import small_scenario_file
from ..webclient import Page, Participant
from .conftest import Serve
from .test_web import CONSENT

pytestmark = pytest.mark.e2e

#: The scenario's description, as the code page shows it.
DESCRIPTION = "A screening programme in primary care"
BRIEF = 'id="h-about">The study in brief</h2>'


def make(tmp_path: Path, *, consent: bool = False) -> tuple[Study, dict[str, str]]:
    """Two access codes and a panel's open enrolment; a consent page only if asked."""
    scenario = small_scenario_file(tmp_path, **{"budget = 30": "budget = 3"})
    text = None
    if consent:
        text = tmp_path / "consent.md"
        text.write_text(CONSENT)
    panel = Panel(
        "PROLIFIC_PID", ("STUDY_ID",), b"0123456789abcdef", cap=10, declined=Ending(code="L1")
    )
    return create_study(scenario, ["p01", "p02"], tmp_path / "study", consent=text, panel=panel)


def link(panel_id: str) -> str:
    return f"panel?PROLIFIC_PID={panel_id}&STUDY_ID=st1"


def expected_length(page: Page) -> str:
    found = re.search(r"(At most|About|Höchstens|Etwa) \d+ (questions|Fragen)[^.]*\.", page.text)
    assert found is not None, page.text
    return found.group(0)


async def test_a_link_entrant_without_consent_reads_the_brief_on_the_first_question_only(
    tmp_path: Path, serve: Serve
) -> None:
    study, codes = make(tmp_path)
    pilot_key = new_key(study.path, "pilot")
    base = await serve(study)
    by_code, by_link, by_pilot = Participant(base), Participant(base), Participant(base)
    try:
        code_page = await by_code.get("")
        code_q1 = await by_code.submit(code_page, "code", code=codes["p01"])
        q1 = await by_link.get(link("AAA111"))
        again = await by_link.get("question")  # the first question opened again
        q2 = await by_link.submit(q1, "answer", choice="left")
        undone = await by_link.submit(q2, "undo")
        pilot_q1 = await by_pilot.get(f"pilot?key={pilot_key}")
    finally:
        for p in (by_code, by_link, by_pilot):
            await p.close()
    length = expected_length(code_page)
    assert DESCRIPTION in code_page.text
    for page in (q1, again, pilot_q1):
        assert page.path.endswith("/question") and page.h1 == "Question 1"
        assert BRIEF in page.html
        assert DESCRIPTION in page.text and length in page.text
        # the study first, then the question and its answer
        assert page.text.index(length) < page.text.index("Your answer")
    assert q2.h1 == "Question 2" and 'id="h-about"' not in q2.html
    assert undone.h1 == "Question 1" and 'id="h-about"' not in undone.html
    assert code_q1.h1 == "Question 1" and 'id="h-about"' not in code_q1.html
    assert DESCRIPTION not in code_q1.text


async def test_the_brief_on_the_first_question_is_in_german_for_a_german_browser(
    tmp_path: Path, serve: Serve
) -> None:
    study, _ = make(tmp_path)
    base = await serve(study)
    p = Participant(base, language="de")
    try:
        q1 = await p.get(link("BBB222"))
    finally:
        await p.close()
    assert q1.h1 == "Frage 1"
    assert 'id="h-about">Die Studie in Kürze</h2>' in q1.html
    assert DESCRIPTION in q1.text
    expected_length(q1)


async def test_a_link_entrant_who_read_the_brief_on_the_consent_page_is_not_told_again(
    tmp_path: Path, serve: Serve
) -> None:
    study, _ = make(tmp_path, consent=True)
    base = await serve(study)
    p = Participant(base)
    try:
        consent = await p.get(link("CCC333"))
        q1 = await p.submit(consent, "consent", choice="agree")
    finally:
        await p.close()
    assert BRIEF in consent.html
    assert q1.h1 == "Question 1" and 'id="h-about"' not in q1.html
