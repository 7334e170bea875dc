"""A panel participant's completion page keeps the way to withdraw open, as a participant
with an access code has it on their last page: the link leads to the page that asks first,
and withdrawing ends with the panel's code for a withdrawal; the study then leaves their
complete answers out."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tradeoff.study.folder import Study, create_study, load_study
from tradeoff.study.panel import Ending, Panel
from tradeoff.study.status import study_status

from ..conftest import small_scenario_file
from ..webclient import Participant
from .test_web import CONSENT, answer_all
from .test_web_panel import link

pytestmark = pytest.mark.e2e


def coded_panel_study(tmp_path: Path) -> Study:
    scenario = small_scenario_file(tmp_path, **{"budget = 30": "budget = 3"})
    consent = tmp_path / "consent.md"
    consent.write_text(CONSENT)
    panel = Panel(
        "PROLIFIC_PID",
        (),
        b"0123456789abcdef",
        cap=5,
        complete=Ending(code="DONE9"),
        declined=Ending(code="DECL1"),
        screened=Ending(code="SCRN1"),
    )
    study, _ = create_study(scenario, [], tmp_path / "study", consent=consent, panel=panel)
    return study


async def test_the_completion_page_links_to_withdrawing(
    tmp_path: Path, serve: Callable[[Study], object]
) -> None:
    study = coded_panel_study(tmp_path)
    base = await serve(study)  # type: ignore[misc]
    p = Participant(base)
    try:
        consent = await p.get(link("AAA111"))
        q1 = await p.submit(consent, "consent", choice="agree")
        done = await p.submit(await answer_all(p, q1), "finish")
        assert "DONE9" in done.text and 'href="withdraw"' in done.html
        again = await p.get(link("AAA111"))  # the link opened again: the same page
        assert "DONE9" in again.text and 'href="withdraw"' in again.html
        sure = await p.get("withdraw")
        assert sure.h1 == "Withdraw from the study?"
        gone = await p.submit(sure, "withdraw", choice="withdraw")
        assert gone.h1 == "You have withdrawn from this study" and "DECL1" in gone.text
        assert "DONE9" not in gone.text
    finally:
        await p.close()
    rows = study_status(load_study(study.path)).to_dict()["rows"]
    assert [r["panel_id"] for r in rows] == ["AAA111"]
    assert rows[0]["state"].startswith("withdrawn ")


async def test_declined_and_screened_pages_have_nothing_to_withdraw(
    tmp_path: Path, serve: Callable[[Study], object]
) -> None:
    study = coded_panel_study(tmp_path)
    base = await serve(study)  # type: ignore[misc]
    p = Participant(base)
    try:
        consent = await p.get(link("BBB222"))
        declined = await p.submit(consent, "consent", choice="decline")
        assert "DECL1" in declined.text and 'href="withdraw"' not in declined.html
    finally:
        await p.close()
