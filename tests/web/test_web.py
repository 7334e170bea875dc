"""The study web page through HTTP, as a participant's browser uses it: code, consent,
questions, undo, save and come back, what we learned, thank-you; and what it must refuse
(forms without their token, a second submit, a wrong code, a withdrawn participant, a
session another process is writing, a study whose files changed)."""

from __future__ import annotations

import asyncio
import fcntl
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp.test_utils import TestServer

from tradeoff.record.log import read_session
from tradeoff.study.attempts import ATTEMPTS_FILE
from tradeoff.study.folder import Study, create_study
from tradeoff.study.status import study_status
from tradeoff.study.withdrawals import withdraw
from tradeoff.web.flow import make_web_app
from tradeoff.web.site import CSP, SESSION_COOKIE

from ..conftest import small_scenario_file
from ..webclient import Page, Participant

pytestmark = pytest.mark.e2e

CONSENT = """# About this study

We ask which of two screening tests you would rather have.

* You can stop at any time; your answers are kept under a code, not your name.
* <b>raw HTML</b> is shown as text, ![a remote image](http://evil.example/x.png) as its words.
"""


def make_study(
    tmp_path: Path, *, consent: bool = True, budget: int = 5
) -> tuple[Study, dict[str, str]]:
    scenario = small_scenario_file(tmp_path, **{"budget = 30": f"budget = {budget}"})
    text = None
    if consent:
        text = tmp_path / "consent.md"
        text.write_text(CONSENT)
    return create_study(scenario, ["p01", "p02", "p03"], tmp_path / "study", consent=text)


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[tuple[Study, dict[str, str], str]]:
    study, codes = make_study(tmp_path)
    server = TestServer(make_web_app(study))
    await server.start_server()
    try:
        yield study, codes, str(server.make_url("/"))
    finally:
        await server.close()


def sessions(study: Study, pid: str) -> list[Path]:
    folder = study.sessions_dir / pid
    return sorted(folder.glob("*.jsonl")) if folder.is_dir() else []


async def answer_all(p: Participant, page: Page, choices: str = "lrl") -> Page:
    n = 0
    while page.path.endswith("/question"):
        choice = {"l": "left", "r": "right", "i": "indifferent"}[choices[n % len(choices)]]
        page = await p.submit(page, "answer", choice=choice)
        n += 1
        assert n < 60
    return page


async def test_a_full_session_from_code_to_thank_you(
    served: tuple[Study, dict[str, str], str],
) -> None:
    study, codes, base = served
    p = Participant(base)
    try:
        start = await p.get("")
        assert start.status == 200 and "access code" in start.text
        consent = await p.submit(start, "code", code=codes["p01"].lower().replace("-", " "))
        assert consent.path.endswith("/consent") and consent.h1 == "Information and consent"
        # the consent text is the study's Markdown, made safe
        assert "<h2>About this study</h2>" in consent.html
        assert "&lt;b&gt;raw HTML&lt;/b&gt;" in consent.html and "<img" not in consent.html
        assert "a remote image" in consent.text and "evil.example" not in consent.html
        assert sessions(study, "p01") == []  # nothing recorded before the consent
        q1 = await p.submit(consent, "consent", choice="agree")
        assert q1.path.endswith("/question") and q1.h1 == "Question 1"
        assert "Option A" in q1.text and "Option B" in q1.text and "Can't tell" in q1.text
        assert "of 1,000" in q1.text  # the terminal's words: natural frequencies
        review = await answer_all(p, q1)
        assert review.path.endswith("/review") and review.h1 == "What we learned"
        assert "90% range" in review.text
        done = await p.submit(review, "finish")
        assert done.path.endswith("/done") and done.h1 == "Thank you"
    finally:
        await p.close()
    [path] = sessions(study, "p01")
    log = read_session(path)
    assert log.finished and log.consent is not None
    # how they came in, for the export's entry_via (it was empty for access codes)
    assert log.entry is not None and log.entry.via == "code" and not log.entry.pilot
    assert log.consent.version == "1" and log.consent.language == "en"
    assert log.consent.text_sha256 == study.files["consent.md"]
    first = path.read_text().splitlines()[0]
    assert first.startswith('{"type": "consent"')  # the chain starts at the consent
    answers = [e for e in log.events if e.type == "answer"]
    assert len(answers) == 5 and all(a.response_ms is not None for a in answers)
    row = next(r for r in study_status(study).rows if r.participant == "p01")
    assert row.complete and row.consented


async def test_declining_records_no_answer_and_ends_politely(
    served: tuple[Study, dict[str, str], str],
) -> None:
    study, codes, base = served
    p = Participant(base)
    try:
        consent = await p.enter(codes["p02"])
        page = await p.submit(consent, "consent", choice="decline")
        assert page.status == 200 and "Only that choice was noted" in page.text
        assert "no answer was recorded" in page.text
        assert SESSION_COOKIE not in p.cookies or not p.cookies[SESSION_COOKIE]
        again = await p.get("question")
        assert again.path == "/" or again.path.endswith("/")  # back to the code
    finally:
        await p.close()
    assert sessions(study, "p02") == []
    assert not (study.sessions_dir / "p02").exists()


async def test_a_double_submit_or_the_back_button_records_once(
    served: tuple[Study, dict[str, str], str],
) -> None:
    study, codes, base = served
    p = Participant(base)
    try:
        consent = await p.enter(codes["p01"])
        q1 = await p.submit(consent, "consent", choice="agree")
        # two clicks of the same button at once, then the back button's stale page again
        first, second = await asyncio.gather(
            p.submit(q1, "answer", choice="left"), p.submit(q1, "answer", choice="right")
        )
        assert first.h1 == second.h1 == "Question 2"
        stale = await p.submit(q1, "answer", choice="right")
        assert stale.h1 == "Question 2"
        # a second agreement (another tab) does not start a second session
        await p.submit(consent, "consent", choice="agree")
    finally:
        await p.close()
    [path] = sessions(study, "p01")
    log = read_session(path)
    answers = [e for e in log.events if e.type == "answer"]
    assert len(answers) == 1 and answers[0].index == 1


async def test_the_same_code_in_a_second_browser_continues_the_one_session(
    served: tuple[Study, dict[str, str], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same code in a second browser (its own cookies) continues the same session: an
    answer given in one is not given again from the other's older page; and while another
    process writes the file, the page says the session is open elsewhere (409)."""
    study, codes, base = served
    first, second = Participant(base), Participant(base)
    try:
        consent = await first.enter(codes["p01"])
        q1 = await first.submit(consent, "consent", choice="agree")
        again = await second.enter(codes["p01"])
        assert again.h1 == "Question 1"
        assert (await first.submit(q1, "answer", choice="left")).h1 == "Question 2"
        older = await second.submit(again, "answer", choice="right")
        assert older.h1 == "Question 2"
        [path] = sessions(study, "p01")
        monkeypatch.setattr("tradeoff.web.held.LOCK_WAIT", 0.2)
        with path.open("rb") as other_writer:
            fcntl.flock(other_writer, fcntl.LOCK_EX)
            busy = await second.submit(older, "answer", choice="left")
        assert busy.status == 409 and "open elsewhere" in busy.text
    finally:
        await first.close()
        await second.close()
    answers = [e for e in read_session(path).events if e.type == "answer"]
    assert [(a.index, a.choice) for a in answers] == [(1, "left")]


async def test_a_study_whose_files_changed_says_so_and_records_nothing(
    served: tuple[Study, dict[str, str], str],
) -> None:
    study, codes, base = served
    study.scenario_path.write_text(study.scenario_path.read_text() + "\n# edited\n")
    p = Participant(base)
    try:
        page = await p.enter(codes["p01"])
    finally:
        await p.close()
    assert page.status == 503 and "files have changed" in page.text
    assert sessions(study, "p01") == []


async def test_undo_and_save_and_come_back(served: tuple[Study, dict[str, str], str]) -> None:
    study, codes, base = served
    p = Participant(base)
    try:
        q1 = await p.submit(await p.enter(codes["p03"]), "consent", choice="agree")
        q2 = await p.submit(q1, "answer", choice="left")
        back = await p.submit(q2, "undo")
        assert back.h1 == "Question 1" and "taken back" in back.text
        q2 = await p.submit(back, "answer", choice="right")
        saved = await p.submit(q2, "pause")
        assert saved.h1 == "Saved" and "enter your access code" in saved.text
        assert (await p.get("question")).path in ("/", "")  # the cookie is gone
    finally:
        await p.close()
    # another browser, later: the same code continues where they left off
    later = Participant(base)
    try:
        page = await later.enter(codes["p03"])
        assert page.path.endswith("/question") and page.h1 == "Question 2"
    finally:
        await later.close()
    [path] = sessions(study, "p03")
    types = [e.type for e in read_session(path).events]
    assert types == ["answer", "undo", "answer", "note"]


async def test_forms_without_their_token_record_nothing(
    served: tuple[Study, dict[str, str], str],
) -> None:
    study, codes, base = served
    p = Participant(base)
    try:
        q1 = await p.submit(await p.enter(codes["p01"]), "consent", choice="agree")
        forged = await p.post("answer", {"csrf": "0" * 43, "answered": "0", "choice": "left"})
        assert forged.status == 403 and "expired" in forged.text
        missing = await p.post("answer", {"answered": "0", "choice": "left"})
        assert missing.status == 403
        # another participant's token does not work either
        other = Participant(base)
        try:
            o1 = await other.submit(await other.enter(codes["p02"]), "consent", choice="agree")
            crossed = await p.post(
                "answer", {"csrf": o1.field("csrf", "answer"), "answered": "0", "choice": "left"}
            )
            assert crossed.status == 403
        finally:
            await other.close()
        assert q1.h1 == "Question 1"
    finally:
        await p.close()
    [path] = sessions(study, "p01")
    assert [e.type for e in read_session(path).events] == []


async def test_cookies_headers_and_urls_are_safe(served: tuple[Study, dict[str, str], str]) -> None:
    _study, codes, base = served
    p = Participant(base)
    try:
        start = await p.session.get(base)
        async with start:
            body = await start.text()
            assert start.headers["Content-Security-Policy"] == CSP
            assert start.headers["X-Frame-Options"] == "DENY"
            assert start.headers["Cache-Control"] == "no-store"
        csrf = re.search(r'name="csrf" value="([^"]*)"', body)
        assert csrf is not None
        response = await p.session.post(
            base + "code",
            data={"csrf": csrf.group(1), "code": codes["p01"]},
            allow_redirects=False,
        )
        async with response:
            assert response.status == 303 and response.headers["Location"] == "./"
            cookie = response.headers["Set-Cookie"]
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=" not in cookie
        # behind a TLS proxy that says so, the cookie is Secure (with --trust-proxy only)
        for page in ("", "consent"):
            html = (await p.get(page)).html
            links = re.findall(r'(?:href|action|src)="([^"]*)"', html)
            assert links and all(not u.startswith(("/", "http")) for u in links), links
            assert "://" not in html.replace("http://www.w3.org", "")
    finally:
        await p.close()


async def test_secure_cookie_behind_a_trusted_tls_proxy(tmp_path: Path) -> None:
    study, codes = make_study(tmp_path)
    server = TestServer(make_web_app(study, trust_proxy=True))
    await server.start_server()
    p = Participant(str(server.make_url("/")))
    try:
        start = await p.get("")
        response = await p.session.post(
            p.base + "code",
            data={"csrf": start.field("csrf"), "code": codes["p01"]},
            headers={"X-Forwarded-Proto": "https", "X-Forwarded-For": "198.51.100.7"},
            allow_redirects=False,
        )
        async with response:
            assert "Secure" in response.headers["Set-Cookie"]
    finally:
        await p.close()
        await server.close()


async def test_a_wrong_code_waits_is_logged_and_opens_nothing(
    served: tuple[Study, dict[str, str], str],
) -> None:
    study, _codes, base = served
    p = Participant(base)
    try:
        page = await p.enter("AAAA-BBBB-CCCC-DDDD")
        assert page.path in ("/", "") or page.path.endswith("/code")
        assert "does not open a session" in page.text and 'role="alert"' in page.html
        assert SESSION_COOKIE not in p.cookies
        assert (await p.get("question")).h1 == "Welcome"
    finally:
        await p.close()
    log = (study.path / ATTEMPTS_FILE).read_text().split()
    assert len(log) == 2 and log[1] == "127.0.0.1"


async def test_a_withdrawn_participant_is_told_and_nothing_more_is_recorded(
    served: tuple[Study, dict[str, str], str],
) -> None:
    study, codes, base = served
    withdraw(study, "p02")
    p = Participant(base)
    try:
        page = await p.enter(codes["p02"])
        assert "withdrawn" in page.h1 and "Nothing more is recorded" in page.text
    finally:
        await p.close()
    assert sessions(study, "p02") == []


async def test_error_pages_are_pages(served: tuple[Study, dict[str, str], str]) -> None:
    _study, _codes, base = served
    p = Participant(base)
    try:
        missing = await p.get("no-such-page")
        assert missing.status == 404 and missing.h1 == "Page not found"
        big = await p.post("code", {"csrf": "x", "code": "A" * 20_000})
        assert big.status == 413
    finally:
        await p.close()


async def test_a_study_without_consent_starts_at_once_and_records_the_language(
    tmp_path: Path,
) -> None:
    study, codes = make_study(tmp_path, consent=False)
    server = TestServer(make_web_app(study))
    await server.start_server()
    p = Participant(str(server.make_url("/")), language="de-CH, en;q=0.5")
    try:
        q1 = await p.enter(codes["p01"])
        assert q1.h1 == "Frage 1"  # de-CH: German, the nearest the page has
        assert '<html lang="de">' in q1.html
        assert (await p.submit(q1, "answer", choice="left")).h1 == "Frage 2"
    finally:
        await p.close()
        await server.close()
    [path] = sessions(study, "p01")
    log = read_session(path)
    assert log.consent is None
    assert [e.text for e in log.events if e.type == "note"] == ["language de"]
    assert [e.language for e in log.events if e.type == "answer"] == ["de"]
    from tradeoff.study.export import export_study

    export_study(study, tmp_path / "answers.csv")
    import pandas as pd

    assert set(pd.read_csv(tmp_path / "answers.csv")["language"]) == {"de"}


async def test_a_guesser_cannot_run_wrong_codes_in_parallel(
    served: tuple[Study, dict[str, str], str],
) -> None:
    import time as clock

    study, _codes, base = served
    now = clock.time()
    (study.path / ATTEMPTS_FILE).write_text("".join(f"{now:.3f} 127.0.0.1\n" for _ in range(3)))
    p = Participant(base)
    try:
        start = await p.get("")
        token = start.field("csrf")
        pages = await asyncio.gather(
            *(p.post("code", {"csrf": token, "code": f"WRONG-{i}"}) for i in range(5))
        )
    finally:
        await p.close()
    statuses = sorted(page.status for page in pages)
    assert statuses == [200, 200, 429, 429, 429], statuses
    assert all("at once" in page.text for page in pages if page.status == 429)
    assert len((study.path / ATTEMPTS_FILE).read_text().splitlines()) == 5  # 3 + the 2 checked


async def test_forged_expired_and_garbled_cookies_open_nothing(
    served: tuple[Study, dict[str, str], str], tmp_path: Path
) -> None:
    import time as clock

    from tradeoff.web.site import SESSION_SECONDS, Site, study_secret

    study, _codes, base = served
    site = Site(study, None, study_secret(study))  # type: ignore[arg-type]
    old = site.session_value("p01", issued=int(clock.time()) - SESSION_SECONDS - 60)
    good = site.session_value("p01")
    forged = good.rsplit(":", 1)[0] + ":" + "0" * 43
    other = good.replace("p01:", "p02:", 1)
    for value in (old, forged, other, "a:b:c:d", "p01:x:y:z", "x" * 4000, ""):
        p = Participant(base)
        p.session.cookie_jar.update_cookies({SESSION_COOKIE: value})
        try:
            page = await p.get("question")
            assert page.h1 == "Welcome", value[:40]
        finally:
            await p.close()
    assert sessions(study, "p01") == [] and sessions(study, "p02") == []


async def test_answers_that_make_no_sense_record_nothing(
    served: tuple[Study, dict[str, str], str],
) -> None:
    study, codes, base = served
    p = Participant(base)
    try:
        q1 = await p.submit(await p.enter(codes["p01"]), "consent", choice="agree")
        token = q1.field("csrf", "answer")
        for data in (
            {"csrf": token, "answered": "0", "choice": "both"},
            {"csrf": token, "answered": "abc", "choice": "left"},
            {"csrf": token, "answered": "7", "choice": "left"},
            {"csrf": token, "answered": "-1", "choice": "left"},
            {"csrf": token, "choice": "left"},
        ):
            page = await p.post("answer", data)
            assert page.h1 == "Question 1", data
        async with p.session.post(base + "answer", json={"csrf": token, "choice": "left"}) as r:
            assert r.status == 403
        undo = await p.post("undo", {"csrf": token, "answered": "0"})
        assert undo.h1 == "Question 1"
        finish = await p.post("finish", {"csrf": token, "answered": "0"})
        assert finish.h1 == "Question 1"  # not finished before the questions are done
    finally:
        await p.close()
    [path] = sessions(study, "p01")
    assert read_session(path).events == []


def test_closed_reads_the_last_line_only_and_agrees_with_the_whole_file(tmp_path: Path) -> None:
    from tradeoff.ask.scenario import load_scenario
    from tradeoff.record.log import closed
    from tradeoff.study.opening import start_session

    study, _ = make_study(tmp_path, consent=False, budget=2)
    loaded = load_scenario(study.scenario_path)
    with start_session(loaded, "p01", study.sessions_dir, cache_dir=study.cache_dir) as rec:
        assert not closed(rec.path)
        while rec.engine.next_query() is not None:
            rec.answer("left")
        assert not closed(rec.path)
        rec.finish()
    assert closed(rec.path) and read_session(rec.path).finished
    whole = rec.path.read_bytes()
    rec.path.write_bytes(whole[:-20])  # the closing line cut short: not closed
    assert not closed(rec.path)
    assert not closed(tmp_path / "missing.jsonl")


def test_sessions_start_side_by_side_in_threads(tmp_path: Path) -> None:
    """Many participants agreeing at once in one server process (a race that gave one of
    300 participants an error page in the load benchmark)."""
    from concurrent.futures import ThreadPoolExecutor

    from tradeoff.record.recorder import check_sessions_dir

    with ThreadPoolExecutor(16) as pool:
        folders = list(pool.map(lambda _: check_sessions_dir(tmp_path / "s"), range(400)))
    assert set(folders) == {tmp_path / "s"}
    assert list((tmp_path / "s").iterdir()) == []  # every probe removed


async def test_withdrawn_while_answering_records_nothing_more(
    served: tuple[Study, dict[str, str], str],
) -> None:
    study, codes, base = served
    p = Participant(base)
    other = Participant(base)
    try:
        q1 = await p.submit(await p.enter(codes["p01"]), "consent", choice="agree")
        q2 = await p.submit(q1, "answer", choice="left")
        consent = await other.enter(codes["p02"])  # on the consent page when withdrawn
        withdraw(study, "p01")
        withdraw(study, "p02")
        page = await p.submit(q2, "answer", choice="left")
        assert "withdrawn" in page.h1
        agreed = await other.submit(consent, "consent", choice="agree")
        assert "withdrawn" in agreed.h1
    finally:
        await p.close()
        await other.close()
    [path] = sessions(study, "p01")
    assert [e.type for e in read_session(path).events] == ["answer"]
    assert sessions(study, "p02") == []


async def test_the_next_question_is_chosen_as_soon_as_the_answer_is_saved(
    tmp_path: Path,
) -> None:
    """After an answer is written the server chooses the next question at once, before the
    browser asks for it (the redirect's GET then only renders it)."""
    from tradeoff.web.site import SITE

    study, codes = make_study(tmp_path, consent=False)
    app = make_web_app(study)
    server = TestServer(app)
    await server.start_server()
    p = Participant(str(server.make_url("/")))
    try:
        q1 = await p.enter(codes["p01"])
        assert q1.path.endswith("/question")
        data = {"csrf": q1.field("csrf", "answer"), "answered": q1.field("answered", "answer")}
        data |= {"shown": q1.field("shown", "answer"), "choice": "left"}
        async with p.session.post(p.base + "answer", data=data, allow_redirects=False) as response:
            assert response.status == 303
        held = app[SITE].participants._held["p01"]
        for _ in range(200):  # the work started ahead finishes on its own
            if held.engine._pending_valid:
                break
            await asyncio.sleep(0.01)
        assert held.engine.answered == 1 and held.engine._pending_valid
        q2 = await p.get("question")
        assert q2.h1 == "Question 2"
    finally:
        await p.close()
        await server.close()
