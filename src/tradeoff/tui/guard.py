"""The web server's guard: which pages may drive an app, and what one visitor may ask of
the server (connections, message and terminal sizes, idle time), checked before and
around each app process (:class:`GuardedServer`, used by :mod:`tradeoff.tui.serve`)."""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from dataclasses import dataclass

import aiohttp_jinja2
from aiohttp import WSCloseCode, WSMsgType, web
from textual_serve.app_service import AppService
from textual_serve.server import Server

from tradeoff.net import client_source
from tradeoff.tui.origins import is_this_machine, local_templates, origin_of
from tradeoff.tui.running import (
    ClientAppService,
    OpenApp,
    more_file_descriptors,
    run_until_stopped,
)

log = logging.getLogger("tradeoff.serve")


@dataclass(frozen=True)
class Limits:
    """What one visitor can ask of the server (none of it needs an access code first)."""

    #: Largest websocket message (a keystroke, a paste, a resize); a larger one closes that
    #: connection only (a 100 KB keystroke message kept an app busy for minutes).
    message_bytes: int = 16 * 1024
    #: Terminal size a client may ask for, columns and rows (10000×10000 took 613 MB).
    columns: tuple[int, int] = (20, 400)
    rows: tuple[int, int] = (8, 150)
    #: Open connections (each an app process) from one source, and in all.
    per_source: int = 6
    total: int = 150
    #: A connection with no message from its browser for this long is closed (its answers
    #: are saved as they are given; the participant resumes with their code).
    idle_seconds: float = 30 * 60
    #: A connection must send a request's line and headers within this many seconds of
    #: opening (or of its last answer), else it is closed: an idle or slow-header client
    #: holds no file descriptor for long.
    header_seconds: float = 10.0
    #: Largest request line and header field, bytes.
    line_bytes: int = 8190


#: The limits ``tradeoff serve`` applies.
DEFAULT_LIMITS = Limits()


def clamp(value: object, low: int, high: int, default: int) -> int:
    """A client's number, within [low, high] (``default`` when it is not a number).

    >>> clamp("10000", 20, 400, 80), clamp("x", 20, 400, 80), clamp(3, 20, 400, 80)
    (400, 80, 20)
    """
    try:
        number = int(str(value)[:12])
    except ValueError:
        return default
    return min(max(number, low), high)


TOO_MANY = (
    "tradeoff: too many sessions are open from here (or in all); close one, or try again in "
    "a minute.\n"
)


class GuardedServer(Server):
    """textual-serve's server with the websocket's ``Origin`` checked against an allow-list,
    and every limit of :class:`Limits` applied before an app process is started.

    With ``trust_proxy``, the client's address is the last one a reverse proxy added to
    ``X-Forwarded-For`` (only then: anyone can send that header)."""

    def __init__(
        self,
        command: str,
        *,
        host: str,
        port: int,
        origins: set[str],
        limits: Limits = DEFAULT_LIMITS,
        trust_proxy: bool = False,
        public_url: str | None = None,
    ) -> None:
        super().__init__(
            command,
            host=host,
            port=port,
            title="tradeoff",
            public_url=public_url,
            templates_path=local_templates(),
        )
        self.origins = origins | ({origin_of(public_url)} if public_url else set())
        self.given_public_url = public_url
        self.limits = limits
        self.trust_proxy = trust_proxy
        self.open: Counter[str] = Counter()
        self.apps: set[OpenApp] = set()

    def serve(self, debug: bool = False) -> None:
        """Serve until SIGINT or SIGTERM, then close every open app and return
        (:func:`tradeoff.tui.running.run_until_stopped`)."""
        self.debug = debug
        self.initialize_logging()
        more_file_descriptors()
        asyncio.run(
            run_until_stopped(
                self._make_app,
                self.host,
                self.port,
                self.apps.copy,
                header_seconds=self.limits.header_seconds,
                line_bytes=self.limits.line_bytes,
            )
        )

    def client_of(self, request: web.Request) -> str:
        """The client's address (see the class docstring)."""
        return client_source(
            request.remote, request.headers.get("X-Forwarded-For"), self.trust_proxy
        )

    def page_url(self, request: web.Request) -> str:
        """Where the browser sees this page: ``--public-url`` when given; else the scheme
        and host the request came with (a trusted proxy's ``X-Forwarded-Proto`` and
        ``X-Forwarded-Host``), and the folder of its path, so the page works behind any
        reverse proxy and on any address of this machine."""
        if self.given_public_url:
            return self.given_public_url.rstrip("/") + "/"
        scheme, host = request.scheme, request.host
        if self.trust_proxy:
            scheme = request.headers.get("X-Forwarded-Proto", scheme).split(",")[0].strip()
            host = request.headers.get("X-Forwarded-Host", host).split(",")[0].strip()
        folder = request.path.rsplit("/", 1)[0]
        return f"{scheme}://{host}{folder}/"

    def origin_allowed(self, request: web.Request) -> bool:
        """Whether the page that opens the websocket is one this server served: an origin
        of the allow-list, or the origin the request itself names when its host is this
        machine (an address it can bind, its name, or loopback) or comes from a trusted
        proxy. A page of another site never is: its browser sends that site's origin (and
        under DNS rebinding, a host that is not this machine's)."""
        origin = request.headers.get("Origin", "").rstrip("/")
        if origin in self.origins:
            return True
        if origin != origin_of(self.page_url(request)):
            return False
        return self.trust_proxy or is_this_machine(request.host)

    @aiohttp_jinja2.template("app_index.html")
    async def handle_index(self, request: web.Request) -> dict[str, object]:
        """The page: its script and styles by relative URL, the websocket at the page's own
        address (see :meth:`page_url`)."""
        page = self.page_url(request)
        socket_url = ("wss:" if page.startswith("https:") else "ws:") + page.split(":", 1)[1]
        return {
            "font_size": clamp(request.query.get("fontsize"), 8, 40, 16),
            "app_websocket_url": socket_url + "ws",
            "config": {"static": {"url": "static/"}},
            "application": {"name": self.title},
        }

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        if not self.origin_allowed(request):
            raise web.HTTPForbidden(text="tradeoff: this page may not drive the app.\n")
        client = self.client_of(request)
        limits = self.limits
        if self.open[client] >= limits.per_source or sum(self.open.values()) >= limits.total:
            log.warning("refused a connection from %s: too many open", client)
            raise web.HTTPServiceUnavailable(text=TOO_MANY, headers={"Retry-After": "60"})
        self.open[client] += 1
        try:
            return await self._drive(request, client)
        finally:
            self.open[client] -= 1
            if self.open[client] <= 0:
                del self.open[client]

    async def _drive(self, request: web.Request, client: str) -> web.WebSocketResponse:
        """textual-serve's websocket handler with the sizes clamped, the message size capped
        and idle connections closed."""
        limits = self.limits
        websocket = web.WebSocketResponse(heartbeat=15, max_msg_size=limits.message_bytes)
        width = clamp(request.query.get("width"), *limits.columns, 80)
        height = clamp(request.query.get("height"), *limits.rows, 24)
        app_service: ClientAppService | None = None

        async def close() -> None:
            await websocket.close()

        try:
            await websocket.prepare(request)
            app_service = ClientAppService(
                self.command,
                write_bytes=websocket.send_bytes,
                write_str=websocket.send_str,
                close=close,
                download_manager=self.download_manager,
                debug=self.debug,
                client=client,
            )
            await app_service.start(width, height)
            opened = OpenApp(websocket, app_service)
            self.apps.add(opened)
            try:
                await self._messages(websocket, app_service)
            finally:
                await app_service.finish()  # one busy or delayed is ended after seconds
                self.apps.discard(opened)
        except asyncio.CancelledError:
            await websocket.close()
        except Exception as error:  # one visitor's failure never takes the server down
            log.exception(error)
        finally:
            if app_service is not None:
                await app_service.finish()
        return websocket

    async def _messages(self, websocket: web.WebSocketResponse, app: AppService) -> None:
        limits = self.limits
        while True:
            try:
                message = await websocket.receive(timeout=limits.idle_seconds)
            except TimeoutError:
                await websocket.close(code=WSCloseCode.GOING_AWAY, message=b"idle")
                return
            if message.type != WSMsgType.TEXT:
                if message.type in (WSMsgType.CLOSE, WSMsgType.CLOSED, WSMsgType.ERROR):
                    return  # over max_msg_size, aiohttp closes with 1009 and says ERROR
                continue
            try:
                envelope = message.json()
                kind, data = envelope[0], envelope[1]
            except (ValueError, TypeError, IndexError, KeyError):
                continue
            if kind == "stdin" and isinstance(data, str):
                await app.send_bytes(data.encode("utf-8"))
            elif kind == "resize" and isinstance(data, dict):
                await app.set_terminal_size(
                    clamp(data.get("width"), *limits.columns, 80),
                    clamp(data.get("height"), *limits.rows, 24),
                )
            elif kind == "ping":
                await websocket.send_json(["pong", data])
            elif kind == "blur":
                await app.blur()
            elif kind == "focus":
                await app.focus()
