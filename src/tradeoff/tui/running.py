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
import resource
import signal
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable
from typing import Protocol

from aiohttp import WSCloseCode, web

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


class Closable(Protocol):
    """An open app's connection: its websocket and a way to stop its process."""

    websocket: web.WebSocketResponse

    async def stop(self) -> None: ...


async def run_until_stopped(
    make_app: Callable[[], Awaitable[web.Application]],
    host: str,
    port: int,
    open_apps: Callable[[], Iterable[Closable]],
) -> None:
    """Serve ``make_app()`` on ``host:port`` until SIGINT or SIGTERM; then close every
    connection in ``open_apps()`` (going away) and stop its app, and return."""
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(LoopErrors())
    runner = web.AppRunner(await make_app(), handle_signals=False, access_log=None)
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
