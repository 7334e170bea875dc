"""``tradeoff serve --study`` forks each participant's app from a prepared process: a real
websocket client speaking textual-serve's protocol gets the access-code screen, then its
own session, from a child of that process; nothing is left running when the server stops;
and a connection still gets an app when the prepared process is gone."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import select
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import aiohttp
import pytest

from tradeoff.record.log import read_session
from tradeoff.study.folder import Study, create_study
from tradeoff.tui.forkserver import WEB_ENVIRONMENT

from .conftest import ROOT, small_scenario_file
from .test_browser import _listening, free_port, serve, wait_until

ESCAPES = re.compile(r"\x1b\[[0-9;?<=>!]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b.")


def _parent(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as fh:
        return int(fh.read().rsplit(")", 1)[1].split()[1])


def _children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if _parent(int(entry)) == pid:
                    out.append(int(entry))
            except (OSError, ValueError, IndexError):
                continue
    return out


def _cmdline(pid: int) -> str:
    with open(f"/proc/{pid}/cmdline", "rb") as fh:
        return fh.read().replace(b"\0", b" ").decode()


class _Browser:
    """A websocket client speaking textual-serve's protocol, as a browser page does."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.text = ""

    async def until(self, mark: str) -> None:
        """Read the screen's updates until ``mark`` appears in them."""
        while mark not in self.text:
            msg = await asyncio.wait_for(self.ws.receive(), 60)
            if msg.type == aiohttp.WSMsgType.BINARY:
                self.text += ESCAPES.sub("", msg.data.decode("utf-8", "replace"))
            elif msg.type != aiohttp.WSMsgType.TEXT:
                raise AssertionError(f"connection ended before {mark!r}: {self.text[-500:]}")

    async def type(self, keys: str) -> None:
        await self.ws.send_str(json.dumps(["stdin", keys]))


@contextlib.asynccontextmanager
async def _browser(port: int) -> AsyncIterator[_Browser]:
    url = f"ws://127.0.0.1:{port}/ws?width=100&height=32"
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(url, headers={"Origin": f"http://127.0.0.1:{port}"}) as ws,
    ):
        yield _Browser(ws)


async def _answer_once(page: _Browser, code: str) -> None:
    """Type the access code and answer the first question with A."""
    await page.until("access code")
    await page.type(code + "\r")
    await page.until("question 1 ·")
    await page.type("a")
    await page.until("question 2 ·")


async def _participant(port: int, code: str) -> str:
    """Connect as a browser does, type ``code``, answer A once, quit; returns the screen."""
    async with _browser(port) as page:
        await _answer_once(page, code)
        await page.type("q")
        await asyncio.sleep(1)
    return page.text


@contextlib.contextmanager
def _serving(
    tmp_path: Path, participants: list[str]
) -> Iterator[tuple[Study, dict[str, str], int, int]]:
    """A study served with ``tradeoff serve --study``: (study, codes, port, the prepared
    process's pid); the server is stopped on leaving."""
    study, codes = create_study(small_scenario_file(tmp_path), participants, tmp_path / "s")
    port = free_port()
    server = serve(tmp_path, "--study", str(study.path), "--port", str(port))
    try:
        wait_until(lambda: _listening(port), 60)
        (prepared,) = [
            pid for pid in _children(server.pid) if "tradeoff.tui.forkserver" in _cmdline(pid)
        ]
        yield study, codes, port, prepared
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=20)


def test_participants_apps_are_forked_from_the_prepared_process(tmp_path: Path) -> None:
    with _serving(tmp_path, ["p01", "p02"]) as (study, codes, port, prepared):
        runtime = Path(_cmdline(prepared).split()[-1]).parent
        assert runtime.stat().st_mode & 0o077 == 0  # the socket's folder is this user's only
        seen: list[int] = []

        async def both() -> list[str]:
            async def watch() -> None:
                while True:
                    seen.extend(c for c in _children(prepared) if c not in seen)
                    await asyncio.sleep(0.1)

            watcher = asyncio.create_task(watch())
            try:
                return await asyncio.gather(
                    _participant(port, codes["p01"]), _participant(port, codes["p02"])
                )
            finally:
                watcher.cancel()

        asyncio.run(both())
        assert len(seen) >= 2  # one forked app per connection
        for who in ("p01", "p02"):
            (path,) = study.sessions_dir.glob(f"{who}/*.jsonl")
            log = read_session(path)
            assert log.header.participant == who
            assert sum(e.type == "answer" for e in log.events) == 1
    wait_until(lambda: not Path(f"/proc/{prepared}").exists(), 20)
    assert not runtime.exists()


def test_a_connection_gets_an_app_without_the_prepared_process(tmp_path: Path) -> None:
    """With no prepared process to hand the terminal to, the command starts the app itself
    (slower, the same app): it speaks textual-serve's protocol and quits when told to."""
    study, _ = create_study(small_scenario_file(tmp_path), ["p01"], tmp_path / "s")
    proc = subprocess.Popen(
        [sys.executable, "-m", "tradeoff.spawn", str(tmp_path / "missing.sock"), str(study.path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(os.environ) | WEB_ENVIRONMENT | {"COLUMNS": "80", "ROWS": "24"},
        cwd=ROOT,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 120)
        assert ready and proc.stdout.readline() == b"__GANGLION__\n"
        quit_ = json.dumps({"type": "quit"}).encode()
        proc.stdin.write(b"M" + len(quit_).to_bytes(4, "big") + quit_)
        proc.stdin.flush()
        assert proc.wait(timeout=60) == 0
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.parametrize(("given", "expected"), [("132", "132"), ("x", "80"), ("0", "5")])
def test_a_terminal_size_from_the_socket_is_a_bounded_number(given: str, expected: str) -> None:
    from tradeoff.tui.forkserver import _size

    assert _size(given, 80) == expected


def test_a_participant_who_closes_the_page_leaves_no_app_running(tmp_path: Path) -> None:
    """A browser tab closed mid-question (no "q", the websocket just drops) ends the forked
    app: the memory of participants who walked away is given back, and the answer already
    given is in the file."""
    with _serving(tmp_path, ["p01"]) as (study, codes, port, prepared):

        async def walk_away() -> list[int]:
            async with _browser(port) as page:
                await _answer_once(page, codes["p01"])
                apps = _children(prepared)
            return apps  # the websocket is closed here, with no "q"

        apps = asyncio.run(walk_away())
        assert apps, "no app was forked"
        wait_until(lambda: not any(Path(f"/proc/{pid}").exists() for pid in apps), 30)
        (path,) = study.sessions_dir.glob("p01/*.jsonl")
        assert sum(e.type == "answer" for e in read_session(path).events) == 1
