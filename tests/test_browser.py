"""`tradeoff serve` in a real browser: headless Chromium loads the page, a participant starts,
the question screen appears and an answer given in the browser reaches the session file."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tradeoff.record.log import read_session

from .conftest import CHROMIUM_ARGS, ROOT, small_scenario_file

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
OUTPUT = ROOT / "test-output"

try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - the test extra installs it
    sync_playwright = None  # type: ignore[assignment]

pytestmark = [
    pytest.mark.skipif(
        CHROMIUM is None,
        reason="Chromium is not installed (.ci/run installs the "
        "Debian package; `apt-get install chromium` to run this test)",
    ),
    pytest.mark.skipif(sync_playwright is None, reason="playwright is not installed"),
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until(check, timeout: float = 60.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.2)
    raise AssertionError("timed out")


def serve(cwd: Path, *args: str) -> subprocess.Popen[bytes]:
    """``tradeoff serve ARGS`` in the background, its output kept for a failing test."""
    return subprocess.Popen(
        [sys.executable, "-m", "tradeoff", "serve", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        cwd=cwd,
    )


def test_serve_in_headless_chromium(tmp_path: Path) -> None:
    scenario = small_scenario_file(tmp_path)
    sessions = tmp_path / "sessions"
    port = free_port()
    server = serve(tmp_path, str(scenario), "--port", str(port), "--sessions-dir", str(sessions))
    OUTPUT.mkdir(exist_ok=True)
    try:

        def listening() -> bool:
            with socket.socket() as s:
                return s.connect_ex(("127.0.0.1", port)) == 0

        wait_until(listening, 30)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1200, "height": 800})
            page.goto(f"http://127.0.0.1:{port}")

            def started() -> list[Path]:
                return sorted(sessions.glob("*/*.jsonl"))

            # The page connects, starts an app process and draws the start screen; focus the
            # participant field and start. Retried, since the first keys may arrive before
            # the app is ready on a busy machine.
            for attempt in range(4):
                page.wait_for_timeout(3000)
                page.mouse.click(200, 8)  # the title: gives the page focus; the id field has it
                page.keyboard.press("End")
                for _ in range(12):
                    page.keyboard.press("Backspace")
                page.keyboard.type("web-test")
                page.keyboard.press("Enter")
                try:
                    wait_until(lambda: bool(started()), 20)
                    break
                except AssertionError:
                    page.screenshot(path=str(OUTPUT / f"browser-attempt-{attempt}.png"))
                    continue
            wait_until(lambda: bool(started()), 5)
            page.wait_for_timeout(3000)
            shot = OUTPUT / "browser-question-screen.png"
            page.screenshot(path=str(shot))
            print(f"screenshot: {shot}")
            page.keyboard.press("a")
            path = started()[0]
            print(f"participant as typed in the browser: {path.parent.name}")
            wait_until(lambda: any(e.type == "answer" for e in read_session(path).events), 30)
            browser.close()
        answers = [e for e in read_session(path).events if e.type == "answer"]
        assert answers[0].choice == "left"
        assert shot.stat().st_size > 10_000
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_a_study_code_in_headless_chromium_opens_only_its_own_session(tmp_path: Path) -> None:
    """``tradeoff serve --study``: in the browser, another participant's id typed where the
    code goes opens nothing; the participant's own code opens their session, and the
    answer given in the browser reaches their file and no one else's."""
    from tradeoff.study.folder import create_study

    study, codes = create_study(small_scenario_file(tmp_path), ["p01", "p02"], tmp_path / "s")
    port = free_port()
    server = serve(tmp_path, "--study", str(study.path), "--port", str(port))
    OUTPUT.mkdir(exist_ok=True)

    def sessions(who: str = "*") -> list[Path]:
        return sorted(study.sessions_dir.glob(f"{who}/*.jsonl"))

    try:
        wait_until(lambda: _listening(port), 30)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1200, "height": 800})
            page.goto(f"http://127.0.0.1:{port}")

            def enter(text: str) -> None:
                page.mouse.click(200, 8)  # the title: gives the page focus; the code field has it
                page.keyboard.press("End")
                for _ in range(24):
                    page.keyboard.press("Backspace")
                page.keyboard.type(text)
                page.keyboard.press("Enter")

            attempts = study.path / "attempts.log"
            for _ in range(4):  # the first keys may arrive before the app is ready
                page.wait_for_timeout(3000)
                enter("p02")
                try:
                    wait_until(attempts.is_file, 15)
                    break
                except AssertionError:
                    continue
            assert attempts.is_file() and not sessions()
            # The wrong code is written to attempts.log a moment before the page takes keys
            # again (the button comes back after the check): on a busy machine the first
            # Enter can land in between, so the right code is entered until it opens.
            for _ in range(4):
                enter(codes["p01"])
                try:
                    wait_until(lambda: bool(sessions("p01")), 15)
                    break
                except AssertionError:
                    continue
            assert sessions("p01")
            page.wait_for_timeout(3000)
            page.screenshot(path=str(OUTPUT / "browser-study-question-screen.png"))
            page.keyboard.press("a")
            path = sessions("p01")[0]
            wait_until(lambda: any(e.type == "answer" for e in read_session(path).events), 30)
            browser.close()
        assert sessions() == [path] and read_session(path).header.participant == "p01"
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_serve_binds_to_loopback_by_default() -> None:
    from tradeoff.cli import build_parser

    args = build_parser().parse_args(["serve"])
    assert args.host == "127.0.0.1"


def test_websocket_from_another_origin_is_refused(tmp_path: Path) -> None:
    """A page of another site cannot drive the app: its websocket is refused (403), while
    the served page's own origin is accepted."""
    import asyncio

    import aiohttp

    scenario = small_scenario_file(tmp_path)
    port = free_port()
    options = ["--port", str(port), "--sessions-dir", str(tmp_path / "sessions")]
    server = serve(tmp_path, str(scenario), *options)

    async def status(origin: str) -> int:
        async with aiohttp.ClientSession() as client:
            try:
                async with client.ws_connect(
                    f"http://127.0.0.1:{port}/ws", headers={"Origin": origin}
                ) as ws:
                    await ws.close()
                    return 101
            except aiohttp.WSServerHandshakeError as exc:
                return exc.status

    try:
        wait_until(lambda: _listening(port), 30)
        assert asyncio.run(status("http://evil.example")) == 403
        assert asyncio.run(status(f"http://localhost:{port}.evil.example")) == 403
        assert asyncio.run(status(f"http://127.0.0.1:{port}")) == 101
    finally:
        server.terminate()
        server.wait(timeout=10)


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


def test_serve_refuses_a_malformed_allowed_origin(capsys: pytest.CaptureFixture[str]) -> None:
    from tradeoff.cli import main

    assert main(["serve", "--port", str(free_port()), "--allow-origin", "evil"]) == 2
    assert "--allow-origin" in capsys.readouterr().err
