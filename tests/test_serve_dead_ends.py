"""A served participant is never left with a blank page or a page that ends without a word:
the same code in a second tab, and a study whose files changed while it was served (a real
``tradeoff serve --study`` and websocket clients speaking the page's protocol)."""

from __future__ import annotations

import asyncio
import json
import re
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import aiohttp
import pytest
from benchmarks.study_load_terminal import HEIGHT, WIDTH, Screen

from tradeoff.study.folder import create_study
from tradeoff.tui.notice import OPEN_ELSEWHERE, STUDY_CHANGED

from .conftest import small_scenario_file
from .test_browser import free_port, wait_until
from .test_serve_stop import listening


def words(text: str) -> str:
    """The screen's words in order, one space apart (box drawing and padding dropped)."""
    return " ".join(re.findall(r"[A-Za-z0-9'’]+[.:,;]?", text))


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Path, dict[str, str], int]]:
    scenario = small_scenario_file(tmp_path, **{"budget = 30": "budget = 6"})
    study, codes = create_study(scenario, ["p01"], tmp_path / "study")
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "tradeoff", "serve", "--study", str(study.path), "--port",
         str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=tmp_path,
    )
    try:
        wait_until(lambda: listening(port), 60)
        yield study.path, codes, port
    finally:
        server.send_signal(signal.SIGTERM)
        out = server.communicate(timeout=30)[0].decode(errors="replace")
        assert "Traceback" not in out, out[-2000:]


@asynccontextmanager
async def tab(port: int) -> AsyncIterator[tuple[aiohttp.ClientWebSocketResponse, Screen]]:
    """One browser tab's websocket and what it has drawn."""
    async with aiohttp.ClientSession() as http:
        ws = await http.ws_connect(
            f"ws://127.0.0.1:{port}/ws?width={WIDTH}&height={HEIGHT}",
            headers={"Origin": f"http://127.0.0.1:{port}"},
        )
        screen = Screen()

        async def read() -> None:
            async for message in ws:
                if message.type == aiohttp.WSMsgType.BINARY:
                    screen.feed(message.data)

        reader = asyncio.create_task(read())
        try:
            yield ws, screen
        finally:
            reader.cancel()
            await ws.close()


async def type_code(ws: aiohttp.ClientWebSocketResponse, screen: Screen, code: str) -> None:
    await screen.wait_for(("access code",), 0, 30)
    await asyncio.sleep(0.5)
    await ws.send_str(json.dumps(["stdin", code + "\r"]))


def test_the_same_code_in_a_second_tab_says_where_the_session_is(
    served: tuple[Path, dict[str, str], int],
) -> None:
    """The first tab is at question 1; the second enters the same code, chooses to continue
    and is told, on the page, that the session is open in another window and what to do,
    with a way back to the code (it used to end with "Session ended")."""
    _, codes, port = served

    async def scenario() -> str:
        async with tab(port) as (first, first_screen):
            await type_code(first, first_screen, codes["p01"])
            await first_screen.wait_for(("question 1 ·",), 0, 30)
            async with tab(port) as (second, screen):
                await type_code(second, screen, codes["p01"])
                mark = len(screen.text)
                await screen.wait_for(("Continue where I left off",), 0, 30)
                await second.send_str(json.dumps(["stdin", "\r"]))  # continue (the default)
                await screen.wait_for(("Back to the code",), mark, 30)
                await asyncio.sleep(0.5)
                return words(screen.text[mark:])

    shown = asyncio.run(scenario())
    assert words(OPEN_ELSEWHERE)[:60] in shown, shown[-600:]


def test_a_study_changed_while_served_says_so_instead_of_a_blank_page(
    served: tuple[Path, dict[str, str], int],
) -> None:
    study, _, port = served
    copy = study / "scenario.toml"
    copy.write_text(copy.read_text() + "\n# edited after the study was made\n")

    async def scenario() -> str:
        async with tab(port) as (_, screen):
            await screen.wait_for(("cannot start",), 0, 30)
            await asyncio.sleep(0.5)
            return words(screen.text)

    shown = asyncio.run(scenario())
    assert words(STUDY_CHANGED)[:80] in shown, shown[-600:]
