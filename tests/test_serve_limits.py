"""What one visitor can ask of the server, checked on a real aiohttp server (each
connection's app is a stand-in process that waits: the limits act before and around it)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import aiohttp
import pytest
from aiohttp.test_utils import TestServer

from tradeoff.tui.guard import TOO_MANY, GuardedServer, Limits

ORIGIN = "http://127.0.0.1:8000"


@pytest.fixture
async def server(request: pytest.FixtureRequest) -> AsyncIterator[tuple[TestServer, str]]:
    limits: Limits = getattr(request, "param", Limits(per_source=2, total=3))
    guarded = GuardedServer(
        "sleep 30", host="127.0.0.1", port=8000, origins={ORIGIN}, limits=limits
    )
    test_server = TestServer(await guarded._make_app())
    await test_server.start_server()
    try:
        yield test_server, str(test_server.make_url("/ws"))
    finally:
        await test_server.close()


async def test_a_page_of_another_origin_cannot_connect(server: tuple[TestServer, str]) -> None:
    _, url = server
    async with aiohttp.ClientSession() as client:
        with pytest.raises(aiohttp.WSServerHandshakeError) as err:
            await client.ws_connect(url, headers={"Origin": "http://evil.example"})
        assert err.value.status == 403


async def test_connections_are_capped_per_source_with_a_page_that_says_so(
    server: tuple[TestServer, str],
) -> None:
    _, url = server
    async with aiohttp.ClientSession() as client:
        first = [await client.ws_connect(url, headers={"Origin": ORIGIN}) for _ in range(2)]
        with pytest.raises(aiohttp.WSServerHandshakeError) as err:
            await client.ws_connect(url, headers={"Origin": ORIGIN})
        assert err.value.status == 503
        async with client.get(url, headers={"Origin": ORIGIN, "Connection": "Upgrade",
                                             "Upgrade": "websocket",
                                             "Sec-WebSocket-Version": "13",
                                             "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}
                              ) as refused:
            assert refused.status == 503 and await refused.text() == TOO_MANY
        await first[0].close()
        # a place is free once that app has ended (this stand-in ignores the request to
        # quit, so it is ended by force a few seconds later)
        statuses: list[int] = []
        for _ in range(100):
            await asyncio.sleep(0.2)
            try:
                again = await client.ws_connect(url, headers={"Origin": ORIGIN})
                break
            except aiohttp.WSServerHandshakeError as refused_again:
                statuses.append(refused_again.status)
        else:
            raise AssertionError("no place was freed")
        assert set(statuses) <= {503}, statuses
        for ws in (first[1], again):
            await ws.close()


async def test_a_message_over_the_cap_closes_that_connection_only(
    server: tuple[TestServer, str],
) -> None:
    _, url = server
    async with aiohttp.ClientSession() as client:
        calm = await client.ws_connect(url, headers={"Origin": ORIGIN})
        loud = await client.ws_connect(url, headers={"Origin": ORIGIN})
        await loud.send_str('["stdin", "' + "x" * 100_000 + '"]')
        message = await asyncio.wait_for(loud.receive(), 10)
        assert message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
        assert loud.close_code == aiohttp.WSCloseCode.MESSAGE_TOO_BIG
        await calm.send_json(["ping", "still here"])
        reply = await asyncio.wait_for(calm.receive_json(), 10)
        assert reply == ["pong", "still here"]
        await calm.close()


@pytest.mark.parametrize("server", [Limits(idle_seconds=0.5)], indirect=True)
async def test_an_idle_connection_is_released(server: tuple[TestServer, str]) -> None:
    _, url = server
    async with aiohttp.ClientSession() as client:
        ws = await client.ws_connect(url, headers={"Origin": ORIGIN})
        message = await asyncio.wait_for(ws.receive(), 10)
        assert message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
        assert ws.close_code == aiohttp.WSCloseCode.GOING_AWAY


async def test_the_page_loads_nothing_from_elsewhere_and_points_at_its_own_address(
    server: tuple[TestServer, str],
) -> None:
    test_server, _ = server
    page_url = str(test_server.make_url("/"))
    host = page_url.split("//", 1)[1].rstrip("/")
    async with aiohttp.ClientSession() as client, client.get(page_url) as response:
        page = await response.text()
    assert "googleapis" not in page and "https://" not in page.split("<body")[0]
    assert 'href="static/css/xterm.css"' in page and 'src="static/js/textual.js"' in page
    assert f'data-session-websocket-url="ws://{host}/ws"' in page
    async with aiohttp.ClientSession() as client:  # the page's own origin may connect
        ws = await client.ws_connect(
            str(test_server.make_url("/ws")), headers={"Origin": f"http://{host}"}
        )
        await ws.close()


async def test_a_rebound_name_is_not_this_machine(server: tuple[TestServer, str]) -> None:
    """DNS rebinding: a page of evil.example whose name now points here sends Host and
    Origin both evil.example; it is refused, as the name is not this machine's."""
    _, url = server
    async with aiohttp.ClientSession() as client:
        with pytest.raises(aiohttp.WSServerHandshakeError) as err:
            await client.ws_connect(
                url, headers={"Origin": "http://evil.example:8000", "Host": "evil.example:8000"}
            )
        assert err.value.status == 403
