"""Someone erased on request (``study erase``) while the study is served: every server on
the folder (two here, each with its own view of the files, as two processes have; and
``study serve --workers 2``) refuses them at once, with no restart, whichever way they
come: their access code, their panel's link (with an allow-list, and under open
enrolment, where nothing of the visit is written), and a session cookie they hold in the
middle of a session (no answer written, no session file started, their folder not made
again). They see one page, 410, that says when their answers were erased and that they
cannot take part again, in English or German, without their participant id or panel id;
everyone else goes on as before."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestServer

from tradeoff.ask.scenario import load_scenario
from tradeoff.study.entries import entries_path
from tradeoff.study.erase import erase
from tradeoff.study.erasures import ErasureLog
from tradeoff.study.folder import Study
from tradeoff.study.keys import new_key
from tradeoff.study.panel import Panel
from tradeoff.web import held as held_module
from tradeoff.web.flow import make_web_app
from tradeoff.web.held import Erased, Participants
from tradeoff.web.site import SITE

from ..webclient import Page, Participant
from .test_web import make_study
from .test_web_panel import link, panel_study
from .test_web_processes import start, stop

pytestmark = pytest.mark.e2e

Serve = Callable[[Study], object]
WHEN = datetime(2026, 3, 5, 9, 30, tzinfo=UTC)


def assert_erased_page(page: Page, *never: str, german: bool = False) -> None:
    """The erased page, 410, in its language, naming none of ``never``."""
    assert page.status == 410, (page.status, page.path, page.text[:200])
    if german:
        assert page.h1 == "Ihre Antworten wurden gelöscht"
        assert "am 5. März 2026 auf Ihren Wunsch gelöscht" in page.text
        assert "nicht erneut teilnehmen" in page.text
    else:
        assert page.h1 == "Your answers were erased"
        assert "erased at your request on March 5, 2026" in page.text
        assert "cannot take part in this study again" in page.text
    for word in never:
        assert word not in page.html


def folder_of(study: Study, participant: str) -> Path:
    return study.sessions_dir / participant


async def test_a_code_participant_mid_session_is_refused_by_every_server_at_once(
    tmp_path: Path, serve: Serve
) -> None:
    study, codes = make_study(tmp_path)
    a = await serve(study)  # type: ignore[misc]
    b = await serve(study)  # type: ignore[misc]
    p1, p2, again = Participant(a), Participant(a), Participant(b)
    try:
        consent = await p1.enter(codes["p01"])
        q1 = await p1.submit(consent, "consent", choice="agree")
        q2 = await p1.submit(q1, "answer", choice="left")
        assert q2.path.endswith("/question")
        other = await p2.submit(await p2.enter(codes["p02"]), "consent", choice="agree")
        assert folder_of(study, "p01").is_dir()

        erase(study.path, "p01", now=WHEN)
        assert not folder_of(study, "p01").exists()

        # the cookie they hold, on the server they were on: no answer is written
        answered = await p1.submit(q2, "answer", choice="right")
        assert_erased_page(answered, "p01", codes["p01"])
        assert not folder_of(study, "p01").exists()
        # the cookie is dropped; the code again, on the other server, opens nothing
        assert "tradeoff_session" not in p1.cookies
        assert_erased_page(await again.enter(codes["p01"]), "p01", codes["p01"])
        assert "tradeoff_session" not in again.cookies
        assert not folder_of(study, "p01").exists()
        # everyone else goes on, on either server
        on = await p2.submit(other, "answer", at=b, choice="left")
        assert on.status == 200 and on.path.endswith("/question")
    finally:
        for p in (p1, p2, again):
            await p.close()


async def test_a_held_cookie_starts_no_session_file_on_any_page(
    tmp_path: Path, serve: Serve
) -> None:
    """Erased between the code and the consent: agreeing would start a session file (and
    make their folder again); no page of the study runs for them, on either server."""
    study, codes = make_study(tmp_path)
    a = await serve(study)  # type: ignore[misc]
    b = await serve(study)  # type: ignore[misc]
    p = Participant(a)
    try:
        consent = await p.enter(codes["p01"])
        q1 = await p.submit(consent, "consent", choice="agree")
        cookie = p.cookies["tradeoff_session"]
        erase(study.path, "p01", now=WHEN)
        for server in (a, b):
            for path in ("", "question", "review", "done", "consent", "withdraw"):
                p.session.cookie_jar.update_cookies({"tradeoff_session": cookie})
                assert_erased_page(await p.get(path, at=server), "p01")
            p.session.cookie_jar.update_cookies({"tradeoff_session": cookie})
            agreed = await p.post(
                "consent", {"csrf": consent.field("csrf"), "choice": "agree"}, at=server
            )
            assert_erased_page(agreed, "p01")
            p.session.cookie_jar.update_cookies({"tradeoff_session": cookie})
            assert_erased_page(await p.submit(q1, "pause", at=server), "p01")
        assert not folder_of(study, "p01").exists()
    finally:
        await p.close()


async def test_a_made_up_cookie_with_an_erased_id_learns_nothing(
    tmp_path: Path, serve: Serve
) -> None:
    study, codes = make_study(tmp_path)
    base = await serve(study)  # type: ignore[misc]
    p = Participant(base)
    try:
        await p.enter(codes["p02"])
        erase(study.path, "p01", now=WHEN)
        _, issued, nonce, sig = p.cookies["tradeoff_session"].split(":")
        p.session.cookie_jar.update_cookies({"tradeoff_session": f"p01:{issued}:{nonce}:{sig}"})
        page = await p.get("")
        assert page.status == 200 and "erased" not in page.text
    finally:
        await p.close()


async def test_an_allow_listed_panel_id_is_refused_and_nothing_is_written(
    tmp_path: Path, serve: Serve
) -> None:
    study = panel_study(tmp_path, ids=("AAA111", "BBB222"))
    assert study.panel is not None
    pid = study.panel.participant_of("AAA111")
    a = await serve(study)  # type: ignore[misc]
    b = await serve(study)  # type: ignore[misc]
    p, fresh, other = Participant(a), Participant(b, language="de"), Participant(b)
    try:
        consent = await p.get(link("AAA111", STUDY_ID="st1", SESSION_ID="se1"))
        q1 = await p.submit(consent, "consent", choice="agree")
        assert folder_of(study, pid).is_dir()
        erase(study.path, pid, now=WHEN)
        entries = entries_path(study.path).read_bytes()
        assert b"AAA111" not in entries

        assert_erased_page(await p.submit(q1, "answer", choice="left"), pid, "AAA111")
        again = await fresh.get(link("AAA111", STUDY_ID="st1", SESSION_ID="se2"))
        assert_erased_page(again, pid, "AAA111", "st1", german=True)
        assert "tradeoff_session" not in fresh.cookies
        assert entries_path(study.path).read_bytes() == entries
        assert not folder_of(study, pid).exists()
        # the other id of the list is let in as ever
        assert (await other.get(link("BBB222"))).path.endswith("/consent")
    finally:
        for x in (p, fresh, other):
            await x.close()


async def test_open_enrolment_refuses_an_erased_panel_id_though_there_is_room(
    tmp_path: Path, serve: Serve
) -> None:
    study = panel_study(tmp_path, cap=10)
    panel = study.panel
    assert isinstance(panel, Panel) and not panel.allow_list
    pid = panel.participant_of("AAA111")
    a = await serve(study)  # type: ignore[misc]
    b = await serve(study)  # type: ignore[misc]
    p, fresh, other = Participant(a), Participant(b), Participant(a, language="de")
    try:
        consent = await p.get(link("AAA111"))
        await p.submit(consent, "consent", choice="agree")
        erase(study.path, pid, now=WHEN)
        entries = entries_path(study.path).read_bytes()
        for x, server in ((p, b), (fresh, a), (fresh, b)):
            assert_erased_page(await x.get(link("AAA111"), at=server), pid, "AAA111")
        de = await other.get(link("AAA111"))
        assert_erased_page(de, pid, "AAA111", german=True)
        assert entries_path(study.path).read_bytes() == entries
        assert not folder_of(study, pid).exists()
        # a new panel id is let in as ever
        other.session.cookie_jar.clear()
        assert (await other.get(link("CCC333"))).path.endswith("/consent")
    finally:
        for x in (p, fresh, other):
            await x.close()


async def test_two_worker_processes_refuse_a_held_cookie_with_no_restart(tmp_path: Path) -> None:
    """``study serve --workers 2``: each worker read the study before the erasure; after
    it, every request with the held cookie (each on a new connection, so both workers
    take some) gets the erased page, and the participant's folder is not made again."""
    study, codes = make_study(tmp_path)
    server, base = start(study, "--workers", "2")
    try:
        p = Participant(base)
        try:
            consent = await p.enter(codes["p01"])
            await p.submit(consent, "consent", choice="agree")
            cookie = p.cookies["tradeoff_session"]
        finally:
            await p.close()

        async def visit() -> Page:
            connector = aiohttp.TCPConnector(force_close=True)
            x = Participant(base, connector=connector)
            x.session.cookie_jar.update_cookies({"tradeoff_session": cookie})
            try:
                return await x.get("question")
            finally:
                await x.close()

        before = [await visit() for _ in range(12)]
        assert all(page.path.endswith("/question") for page in before)
        erase(study.path, "p01", now=WHEN)
        after = [await visit() for _ in range(12)]
        for page in after:
            assert_erased_page(page, "p01")
        assert not folder_of(study, "p01").exists()
    finally:
        code, err = stop(server)
    assert code == 0, err


async def test_a_server_drops_the_engine_it_kept_of_someone_erased(tmp_path: Path) -> None:
    """The engine a process keeps in memory of someone erased is dropped at the next
    request of anyone, whether or not they come back."""
    study, codes = make_study(tmp_path)
    app = make_web_app(study)
    server = TestServer(app)
    await server.start_server()
    p1, p2 = Participant(str(server.make_url("/"))), Participant(str(server.make_url("/")))
    try:
        q1 = await p1.submit(await p1.enter(codes["p01"]), "consent", choice="agree")
        await p1.submit(q1, "answer", choice="left")
        other = await p2.submit(await p2.enter(codes["p02"]), "consent", choice="agree")
        held = app[SITE].participants
        assert len(held) == 2
        erase(study.path, "p01", now=WHEN)
        assert (await p2.submit(other, "answer", choice="left")).status == 200
        assert len(held) == 1
        assert (await p2.get("question")).status == 200 and len(held) == 1
    finally:
        await p1.close()
        await p2.close()
        await server.close()


async def test_an_erased_pilot_s_cookie_opens_nothing_and_writes_nothing(
    tmp_path: Path, serve: Serve
) -> None:
    """A pilot participant erased mid-session: their cookie no longer verifies (it was
    signed with their place among the pilots), so no page of theirs runs and nothing is
    written; the pilot link itself still starts a new pilot participant."""
    study = panel_study(tmp_path, ids=("AAA111",))
    key = new_key(study.path, "pilot")
    base = await serve(study)  # type: ignore[misc]
    p = Participant(base)
    try:
        consent = await p.get(f"pilot?key={key}")
        q1 = await p.submit(consent, "consent", choice="agree")
        pilot = p.cookies["tradeoff_session"].split(":")[0]
        assert pilot.startswith("pilot-") and folder_of(study, pilot).is_dir()
        erase(study.path, pilot, now=WHEN)
        for page in (
            await p.submit(q1, "answer", choice="left"),
            await p.get("question"),
            await p.post("consent", {"csrf": consent.field("csrf"), "choice": "agree"}),
        ):
            assert page.path == "/" or page.status == 403, (page.status, page.path)
            assert "question" not in page.path
        assert not folder_of(study, pilot).exists()
        again = await p.get(f"pilot?key={key}")
        assert again.path.endswith("/consent")
    finally:
        await p.close()


def participants_of(study: Study) -> Participants:
    held = Participants(study, load_scenario(study.scenario_path))
    held.erased_on = ErasureLog(study.path).erased_on
    return held


def test_a_session_is_not_started_for_someone_erased_nor_kept_if_erased_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past the page's checks, starting a session still refuses someone erased (their
    folder not made again), and one started while an erasure ran is removed again."""
    study, _ = make_study(tmp_path)
    erase(study.path, "p01", now=WHEN)
    real = held_module.start_session

    def never(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a session file was started")

    monkeypatch.setattr(held_module, "start_session", never)
    with pytest.raises(Erased):
        participants_of(study).start("p01", None, "en")
    assert not folder_of(study, "p01").exists()

    def erased_meanwhile(*args: Any, **kwargs: Any) -> Any:
        erase(study.path, "p02", now=WHEN)  # between the check and the file
        return real(*args, **kwargs)

    monkeypatch.setattr(held_module, "start_session", erased_meanwhile)
    with pytest.raises(Erased):
        participants_of(study).start("p02", None, "en")
    assert not folder_of(study, "p02").exists()
    monkeypatch.setattr(held_module, "start_session", real)
    assert participants_of(study).start("p03", None, "en").is_file()


async def test_erased_while_agreeing_shows_the_erased_page(tmp_path: Path) -> None:
    """The erasure lands between the page's check and the session's start (here: the
    start sees it, the page's check did not): the erased page, and no folder."""
    study, codes = make_study(tmp_path)
    app = make_web_app(study)
    server = TestServer(app)
    await server.start_server()
    p = Participant(str(server.make_url("/")))
    try:
        consent = await p.enter(codes["p01"])
        when = WHEN.isoformat(timespec="seconds")
        app[SITE].participants.erased_on = lambda pid: when if pid == "p01" else None
        assert_erased_page(await p.submit(consent, "consent", choice="agree"), "p01")
        assert not folder_of(study, "p01").exists()
    finally:
        await p.close()
        await server.close()
