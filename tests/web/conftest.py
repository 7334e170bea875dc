"""What the study page's tests share: serving a study in this process."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
from aiohttp.test_utils import TestServer

from tradeoff.study.folder import Study
from tradeoff.web.flow import make_web_app

#: Starts a server of a study in this process and gives its address.
Serve = Callable[[Study], Awaitable[str]]


@pytest.fixture
async def serve() -> AsyncIterator[Serve]:
    """Serve a study in this process (each call another server, as another process would
    be); every server is closed at the end of the test."""
    servers: list[TestServer] = []

    async def start(study: Study) -> str:
        server = TestServer(make_web_app(study))
        await server.start_server()
        servers.append(server)
        return str(server.make_url("/"))

    yield start
    for server in servers:
        await server.close()
