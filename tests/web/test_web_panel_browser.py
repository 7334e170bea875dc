"""Panel entry, pilot runs and the coordinator's page in headless Chromium, served by
``tradeoff study serve``: a listed panel id enters and, at the end, the browser lands on
the panel's address with its id put in; an unlisted one sees its screen-out code; open
enrolment screens out the cap's next person; a declined consent shows its code; the same
link in a second browser comes back to the same session; a pilot session is marked and not
counted by ``study status``; the coordinator's page shows the numbers of ``study status
--json`` and axe-core finds no WCAG 2.1 A/AA problem on it, or on the panel's pages, at a
phone's and a desktop's width (``TRADEOFF_SCREENSHOTS=DIR`` writes screenshots there)."""

from __future__ import annotations

import http.server
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tradeoff.record.log import read_session
from tradeoff.study.folder import Study, create_study, load_study
from tradeoff.study.keys import new_key
from tradeoff.study.panel import Ending, Panel

from ..conftest import CHROMIUM_ARGS, ROOT, small_scenario_file
from .test_web import CONSENT
from .test_web_browser import CHROMIUM, SIZES, Axe, axe_problems, h1, sync_playwright

if sync_playwright is not None:
    from playwright.sync_api import Browser, Page

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed"),
    pytest.mark.skipif(sync_playwright is None, reason="playwright is not installed"),
]

SHOTS = os.environ.get("TRADEOFF_SCREENSHOTS_DIR")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def panel_site() -> Iterator[str]:
    """A local stand-in for the panel: answers every GET with a page naming its path."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = f"<!doctype html><title>panel</title><h1>panel {self.path}</h1>".encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


def serve(study: Study, tmp: Path) -> tuple[subprocess.Popen[bytes], str, Path]:
    port = free_port()
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT / "src"), env.get("PYTHONPATH", "")) if p
    )
    log = tmp / f"server-{port}.log"
    with log.open("wb") as out:
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tradeoff",
                "study",
                "serve",
                str(study.path),
                "--port",
                str(port),
            ],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    deadline = time.monotonic() + 30
    while True:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                break
        if server.poll() is not None or time.monotonic() > deadline:
            raise AssertionError(f"the study server did not start:\n{log.read_text()}")
        time.sleep(0.1)
    return server, f"http://127.0.0.1:{port}/", log


def stop(server: subprocess.Popen[bytes], log: Path) -> None:
    server.send_signal(signal.SIGTERM)
    assert server.wait(timeout=10) == 0, log.read_text()


@contextmanager
def served(study: Study, tmp: Path) -> Iterator[str]:
    """``study`` served (:func:`serve`) while the block runs: its base URL; stopped after."""
    server, base, log = serve(study, tmp)
    try:
        yield base
    finally:
        stop(server, log)


def make(tmp: Path, panel: Panel, ids: tuple[str, ...] = ()) -> Study:
    scenario = small_scenario_file(tmp, **{"budget = 30": "budget = 3"})
    consent = tmp / "consent.md"
    consent.write_text(CONSENT)
    study, _ = create_study(
        scenario, [], tmp / "study", consent=consent, panel=panel, panel_ids=ids
    )
    return study


@pytest.fixture(scope="module")
def listed(
    tmp_path_factory: pytest.TempPathFactory, panel_site: str
) -> Iterator[tuple[Study, str]]:
    """A study for an allow-list of three Prolific ids, served for the module."""
    tmp = tmp_path_factory.mktemp("panel-listed")
    panel = Panel(
        "PROLIFIC_PID",
        ("STUDY_ID", "SESSION_ID"),
        b"0123456789abcdef",
        allow_list=True,
        complete=Ending(panel_site + "/complete?cc=C0MPL&pid={PROLIFIC_PID}"),
        declined=Ending(code="DECLINED1"),
        screened=Ending(code="SCREENED1"),
    )
    study = make(tmp, panel, ("AAA111", "BBB222", "CCC333", "DDD444"))
    server, base, log = serve(study, tmp)
    try:
        yield study, base
    finally:
        stop(server, log)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def shot(page: Page, name: str) -> None:
    if SHOTS:
        for size in SIZES:
            page.set_viewport_size(size)
            page.screenshot(path=f"{SHOTS}/{name}-{size['width']}.png", full_page=True)


def axe_at_every_size(page: Page) -> None:
    """axe finds nothing on the page at 360 and at 1280 px wide."""
    if Axe is None:
        pytest.skip("axe-playwright-python is not installed")
    for size in SIZES:
        page.set_viewport_size(size)
        assert axe_problems(page) == [], size


def agree_and_answer(page: Page) -> None:
    assert page.url.endswith("/consent"), page.url
    page.click("button[value=agree]")
    n = 0
    while page.url.endswith("/question"):
        page.click("button[value=left]" if n % 2 == 0 else "button[value=right]")
        n += 1
        assert n < 30
    assert page.url.endswith("/review")


def test_a_listed_id_completes_and_lands_on_the_panel_with_its_id(
    listed: tuple[Study, str], browser: Browser, panel_site: str
) -> None:
    study, base = listed
    page = browser.new_page()
    page.goto(base + "panel?PROLIFIC_PID=AAA111&STUDY_ID=s1&SESSION_ID=x1")
    agree_and_answer(page)
    with page.expect_navigation(url=re.compile(re.escape(panel_site))):
        page.click("form[action=finish] button")
    assert page.url == f"{panel_site}/complete?cc=C0MPL&pid=AAA111"
    assert h1(page) == "panel /complete?cc=C0MPL&pid=AAA111"
    page.close()
    pid = study.panel.participant_of("AAA111")  # type: ignore[union-attr]
    [path] = (study.sessions_dir / pid).glob("*.jsonl")
    log = read_session(path)
    assert log.finished and log.entry is not None and log.entry.panel_id == "AAA111"


def test_an_unlisted_id_is_screened_out_with_its_code(
    listed: tuple[Study, str], browser: Browser
) -> None:
    _, base = listed
    page = browser.new_page()
    page.goto(base + "panel?PROLIFIC_PID=NOTLISTED9")
    assert h1(page) == "This study cannot take you"
    assert page.locator(".ending-code").inner_text().strip() == "SCREENED1"
    axe_at_every_size(page)
    shot(page, "panel-screened")
    page.goto(base + "panel?PROLIFIC_PID=../../etc")
    assert h1(page) == "This link is not complete"
    page.close()


def test_a_declined_consent_shows_its_code(listed: tuple[Study, str], browser: Browser) -> None:
    study, base = listed
    page = browser.new_page()
    page.goto(base + "panel?PROLIFIC_PID=BBB222")
    assert page.url.endswith("/consent")
    page.click("button[value=decline]")
    assert page.locator(".ending-code").inner_text().strip() == "DECLINED1"
    axe_at_every_size(page)
    shot(page, "panel-declined")
    page.close()
    pid = study.panel.participant_of("BBB222")  # type: ignore[union-attr]
    assert not list((study.sessions_dir / pid).glob("*.jsonl"))


def test_the_same_link_in_a_second_browser_resumes_the_session(
    listed: tuple[Study, str], browser: Browser
) -> None:
    study, base = listed
    first = browser.new_context().new_page()
    first.goto(base + "panel?PROLIFIC_PID=CCC333")
    first.click("button[value=agree]")
    first.click("button[value=left]")
    assert h1(first) == "Question 2"
    second = browser.new_context().new_page()
    second.goto(base + "panel?PROLIFIC_PID=CCC333")
    assert h1(second) == "Question 2"  # the same session, one answer in
    pid = study.panel.participant_of("CCC333")  # type: ignore[union-attr]
    assert len(list((study.sessions_dir / pid).glob("*.jsonl"))) == 1
    first.close()
    second.close()


def test_a_pilot_session_is_marked_and_not_counted(
    listed: tuple[Study, str], browser: Browser
) -> None:
    study, base = listed
    key = new_key(study.path, "pilot")
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(base + f"pilot?key={key}")
        page.click("button[value=agree]")
        page.wait_for_url("**/question")
        page.click("button[value=left]")
        page.wait_for_url("**/question")
    finally:
        context.close()
    loaded = load_study(study.path)
    [pilot] = loaded.pilots
    [path] = (loaded.sessions_dir / pilot).glob("*.jsonl")
    entry = read_session(path).entry
    assert entry is not None and entry.pilot
    out = subprocess.run(
        [sys.executable, "-m", "tradeoff", "study", "status", str(study.path), "--json"],
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        capture_output=True,
        text=True,
        check=True,
    )
    status = json.loads(out.stdout)
    assert pilot not in [r["participant"] for r in status["rows"]]
    assert status["pilots"]["participants"] == 1 and status["pilots"]["sessions"] == 1
    words = subprocess.run(
        [sys.executable, "-m", "tradeoff", "study", "status", str(study.path)],
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "1 pilot session of 1 pilot participant, not counted" in words


def test_open_enrolment_screens_out_the_cap_s_next_person(
    tmp_path: Path, browser: Browser, panel_site: str
) -> None:
    panel = Panel(
        "PID",
        (),
        b"0123456789abcdef",
        cap=2,
        screened=Ending(panel_site + "/full?who={PID}"),
    )
    study = make(tmp_path, panel)
    server, base, log = serve(study, tmp_path)
    try:
        for n in (1, 2):
            page = browser.new_context().new_page()
            page.goto(base + f"panel?PID=person{n}")
            assert page.url.endswith("/consent")
            page.close()
        page = browser.new_context().new_page()
        page.goto(base + "panel?PID=person3")
        page.wait_for_url(f"{panel_site}/full?who=person3")
        page.close()
    finally:
        stop(server, log)


def test_the_coordinators_page_shows_the_status_numbers_and_passes_axe(
    listed: tuple[Study, str], browser: Browser
) -> None:
    study, base = listed
    key = new_key(study.path, "coordinator")
    page = browser.new_context().new_page()
    page.goto(base + "coordinator")
    axe_at_every_size(page)
    shot(page, "coordinator-key")
    page.fill("#key", "not-the-key")
    page.click("button[type=submit]")
    assert page.locator("#key-error").is_visible()
    page.fill("#key", key)
    page.click("button[type=submit]")
    assert h1(page) == "The coordinator's page"
    out = subprocess.run(
        [sys.executable, "-m", "tradeoff", "study", "status", str(study.path), "--json"],
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        capture_output=True,
        text=True,
        check=True,
    )
    expected = json.loads(out.stdout)
    shown = page.eval_on_selector_all(
        "[data-fact]",
        "els => els.map(e => [e.dataset.fact, e.dataset.value ?? e.textContent])",
    )
    assert len(shown) >= 10
    for name, text in shown:
        value = expected
        for part in name.split("."):
            value = value[part]
        number = re.match(r"[\d.]+|—", text.strip())
        want = "—" if value is None else str(value)
        assert number is not None and number.group(0) == want, name
    axe_at_every_size(page)
    shot(page, "coordinator")
    page.close()
