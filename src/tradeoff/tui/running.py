"""How the web server runs and stops (:class:`tradeoff.tui.guard.GuardedServer` uses it):
until SIGINT or SIGTERM, then every open app closed (its answers are already saved) and exit
0 with no traceback; the event loop's errors logged at most once a second each (out of file
descriptors, the loop reports every refused ``accept``: the server keeps serving, and the
next visitor is served once a descriptor is free); the soft limit of open files raised to
the hard one at start (each app takes a few). See docs/architecture.md, "Serving"."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import resource
import signal
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from aiohttp import WSCloseCode, web
from textual_serve.app_service import AppService
from textual_serve.download_manager import DownloadManager

log = logging.getLogger("tradeoff.serve")

#: Seconds between two log lines of the same event-loop error.
QUIET_SECONDS = 1.0


class LoopErrors:
    """The event loop's exception handler: one line per error message, the same message at
    most once every :data:`QUIET_SECONDS` (with a count of those left out), never a
    traceback.

    >>> errors = LoopErrors(clock=iter([0.0, 0.1, 0.2, 2.0]).__next__)
    >>> for _ in range(4):
    ...     errors(None, {"message": "socket.accept() out of system resource"})
    >>> errors.logged, errors.quiet["socket.accept() out of system resource"]
    (2, 0)
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.last: dict[str, float] = {}
        self.quiet: Counter[str] = Counter()
        self.logged = 0

    def __call__(self, loop: object, context: dict[str, object]) -> None:
        message = str(context.get("message", "event loop error"))[:200]
        now = self.clock()
        if now - self.last.get(message, -QUIET_SECONDS) < QUIET_SECONDS:
            self.quiet[message] += 1
            return
        self.last[message] = now
        more = self.quiet.pop(message, 0)
        exception = context.get("exception")
        self.logged += 1
        log.error(
            "%s%s%s",
            message,
            f": {exception!r}" if exception is not None else "",
            f" (and {more} more like it)" if more else "",
        )


def more_file_descriptors() -> tuple[int, int]:
    """Raise the soft limit of open files to the hard one (at most 65,536); the limits
    after."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 65536 if hard == resource.RLIM_INFINITY else min(hard, 65536)
    if soft < want:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)


class ClientAppService(AppService):
    """textual-serve's app process, told the client's address (``TRADEOFF_CLIENT``), so a
    study's wrong codes are delayed per source
    (:func:`tradeoff.study.attempts.wrong_code_delay`)."""

    def __init__(
        self,
        command: str,
        *,
        write_bytes: Callable[[bytes], Awaitable[None]],
        write_str: Callable[[str], Awaitable[None]],
        close: Callable[[], Awaitable[None]],
        download_manager: DownloadManager,
        debug: bool,
        client: str,
    ) -> None:
        super().__init__(
            command,
            write_bytes=write_bytes,
            write_str=write_str,
            close=close,
            download_manager=download_manager,
            debug=debug,
        )
        self.client = client

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        environment: dict[str, str] = super()._build_environment(width, height)
        environment["TRADEOFF_CLIENT"] = self.client
        return environment

    async def finish(self, seconds: float = 5.0) -> None:
        """Stop the app and wait for its process to end; an app that has not ended after
        ``seconds`` (busy, or waiting out a wrong code's delay) is killed, so no process
        outlives the server (its answers are saved as they are given)."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.stop(), seconds)
        process = self._process
        if process is None or process.returncode is not None:
            return
        try:
            await asyncio.wait_for(process.wait(), 1.0)
        except TimeoutError:
            for pid in [*descendants(process.pid), process.pid]:  # the shell's child too
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(process.wait(), 5.0)


@dataclass(eq=False)
class OpenApp:
    """One connection's websocket and its app, closed together when the server stops."""

    websocket: web.WebSocketResponse
    service: ClientAppService

    async def stop(self) -> None:
        """Stop the app's process and wait for it."""
        await self.service.finish()


def descendants(pid: int) -> list[int]:
    """Every process under ``pid``, children first (read from ``/proc``; none where there
    is no ``/proc``)."""
    found: list[int] = []
    todo = [pid]
    while todo:
        parent = todo.pop()
        try:
            tasks = list(Path(f"/proc/{parent}/task").iterdir())
        except OSError:
            continue
        for task in tasks:
            try:
                kids = [int(k) for k in (task / "children").read_text().split()]
            except (OSError, ValueError):
                continue
            for kid in kids:
                if kid not in found:
                    found.append(kid)
                    todo.append(kid)
    return found


class Closable(Protocol):
    """An open app's connection: its websocket and a way to stop its process."""

    websocket: web.WebSocketResponse

    async def stop(self) -> None: ...


async def run_until_stopped(
    make_app: Callable[[], Awaitable[web.Application]],
    host: str,
    port: int,
    open_apps: Callable[[], Iterable[Closable]],
    header_seconds: float = 10.0,
    line_bytes: int = 8190,
) -> None:
    """Serve ``make_app()`` on ``host:port`` until SIGINT or SIGTERM; then close every
    connection in ``open_apps()`` (going away) and stop its app, and return.
    A connection that does not send a request's line and headers within ``header_seconds``
    of opening (or of its last answer) is closed; lines and header fields are capped at
    ``line_bytes``."""
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(LoopErrors())
    runner = web.AppRunner(
        await make_app(),
        handle_signals=False,
        access_log=None,
        shutdown_timeout=10.0,
        keepalive_timeout=header_seconds,
        max_line_size=line_bytes,
        max_field_size=line_bytes,
    )
    await runner.setup()
    site = web.TCPSite(runner, host, port, backlog=256)
    await site.start()
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        apps = list(open_apps())
        log.info("stopping: closing %d open apps (their answers are saved)", len(apps))
        for app in apps:
            with contextlib.suppress(Exception):
                await app.websocket.close(code=WSCloseCode.GOING_AWAY, message=b"stopping")
        await asyncio.gather(*(app.stop() for app in apps), return_exceptions=True)
        await runner.cleanup()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)
