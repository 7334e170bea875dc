"""Revocable keys, through HTTP: a new coordinator key (``study coordinator-key``) closes
the coordinator's page opened with the old one at its next request, in every server
process on the study folder; a new pilot link (``study pilot-link``) closes every pilot
session opened with the old one; neither touches anyone else's session."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from tradeoff.cli import main
from tradeoff.study.folder import Study
from tradeoff.study.keys import new_key
from tradeoff.web.site import COORDINATOR_COOKIE, SESSION_COOKIE

from ..webclient import Participant
from .test_web_panel import link, panel_study

pytestmark = pytest.mark.e2e


def fresh_key(study: Study, command: str, capsys: pytest.CaptureFixture[str]) -> str:
    """A new key as the coordinator makes one, from the command line."""
    assert main(["study", command, str(study.path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    return str(out["coordinator_key"] if command == "coordinator-key" else out["pilot_link"])


async def test_a_new_coordinator_key_closes_the_page_opened_with_the_old_one(
    tmp_path: Path, serve: Callable[[Study], Awaitable[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    study = panel_study(tmp_path, ids=("AAA111",))
    old = new_key(study.path, "coordinator")
    first = await serve(study)
    second = await serve(study)  # another process on the folder
    coordinator = Participant(first)
    try:
        form = await coordinator.get("coordinator")
        page = await coordinator.submit(form, "coordinator", key=old)
        assert "data-fact" in page.html
        # a count of consents only where the study asks consent (it said "Consented 0")
        assert ('data-fact="consented"' in page.html) == (study.consent_path is not None)
        assert "data-fact" in (await coordinator.get("coordinator", at=second)).html
        cookie = coordinator.cookies[COORDINATOR_COOKIE]
        new = fresh_key(study, "coordinator-key", capsys)
        for where in (first, second):
            closed = await coordinator.get("coordinator", at=where)
            assert closed.status == 200 and "data-fact" not in closed.html
            assert 'name="key"' in closed.html
        assert coordinator.cookies[COORDINATOR_COOKIE] == cookie  # the browser still sends it
        refused = await coordinator.submit(closed, "coordinator", key=old)
        assert refused.status == 403 and "data-fact" not in refused.html
        again = await coordinator.submit(refused, "coordinator", key=new)
        assert "data-fact" in again.html
    finally:
        await coordinator.close()


async def test_a_new_pilot_link_closes_the_pilot_sessions_opened_with_the_old_one(
    tmp_path: Path, serve: Callable[[Study], Awaitable[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    study = panel_study(tmp_path, ids=("AAA111",))
    old = new_key(study.path, "pilot")
    base = await serve(study)
    pilot, person = Participant(base), Participant(base)
    try:
        consent = await pilot.get(f"pilot?key={old}")
        q1 = await pilot.submit(consent, "consent", choice="agree")
        assert q1.h1 == "Question 1"
        q2 = await pilot.submit(q1, "answer", choice="left")
        assert q2.h1 == "Question 2"
        mine = await person.submit(await person.get(link("AAA111")), "consent", choice="agree")
        assert mine.h1 == "Question 1"
        new_link = fresh_key(study, "pilot-link", capsys)
        assert SESSION_COOKIE in pilot.cookies
        closed = await pilot.get("question")
        # said as what it is (it showed the access-code page with no word why)
        assert closed.h1 == "This pilot link was replaced" and closed.status == 403
        assert "Ask the study's coordinator for the new pilot link." in closed.text
        posted = await pilot.submit(q2, "answer", choice="left")
        assert posted.h1 == "This pilot link was replaced"
        assert (await pilot.get(f"pilot?key={old}")).status == 403
        # the new link opens a new pilot session; the panel participant goes on
        new_key_value = new_link.split("key=", 1)[1]
        assert (await pilot.get(f"pilot?key={new_key_value}")).path.endswith("/consent")
        assert (await person.submit(mine, "answer", choice="left")).h1 == "Question 2"
    finally:
        await pilot.close()
        await person.close()
