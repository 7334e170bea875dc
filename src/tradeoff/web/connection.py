"""What one connection to the study web page may send, and the log of what was refused.

No client can hold the server up: a connection has :data:`HEADER_SECONDS` to send its
request line and headers (and is closed when it sits idle that long), then
:data:`BODY_SECONDS` to send its body (:class:`Timeouts`; the body's clock is run by
:func:`tradeoff.web.site.protect`). A refused or malformed request is one line on stderr
(at most :data:`LOG_LINES_PER_SECOND`, then a count of the lines left out), never a
traceback.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import threading
import time
import unicodedata
from dataclasses import dataclass

from aiohttp import web

#: A connection has this many seconds to send a request's line and headers, counted from
#: its opening or from the end of its previous answer (so an idle kept-alive connection is
#: closed after it too), then this many to send the request's body
#: (``tradeoff study serve --header-seconds``, ``--body-seconds``).
HEADER_SECONDS = 10.0
BODY_SECONDS = 10.0
#: The longest request line and header line read, and the most header lines.
MAX_LINE = 4096
MAX_FIELD = 8190
MAX_HEADERS = 64
#: Seconds a connection is still read after its answer was sent before a body that did not
#: fit (413) or did not arrive (408) was all read; then it is closed.
LINGER_SECONDS = 1.0
#: The most lines a second the server's log gives to refused or malformed requests.
LOG_LINES_PER_SECOND = 5


def one_line(text: str, limit: int = 300) -> str:
    r"""``text`` as one line a terminal shows as it is: every control or format character
    (a newline, an escape sequence's start) as ``?``, at most ``limit`` characters.

    >>> one_line("GET /\x1b]0;x\x07\nHost: a")
    'GET /?]0;x??Host: a'
    """
    shown = "".join("?" if unicodedata.category(c)[0] == "C" else c for c in text[:limit])
    return shown + ("…" if len(text) > limit else "")


class RequestLog(logging.Handler):
    """The server's log of refused and malformed requests: one line each on stderr, no
    traceback (a client's mistake is not the server's), at most ``per_second`` lines in any
    second; the lines left out are counted in the next line written, or at shutdown."""

    def __init__(self, per_second: int = LOG_LINES_PER_SECOND) -> None:
        super().__init__(logging.DEBUG)
        self.per_second = per_second
        self._second = 0
        self._written = 0
        self.suppressed = 0
        self._lines = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        exc = record.exc_info[1] if record.exc_info else None
        if exc is not None:
            first = str(exc).strip().splitlines()
            text += f": {type(exc).__name__}" + (f": {first[0]}" if first else "")
        self.line(text)

    def line(self, text: str) -> None:
        """Write ``text`` as one line, unless this second's lines are used up."""
        second = int(time.monotonic())
        with self._lines:
            if second != self._second:
                self._flush()
                self._second, self._written = second, 0
            if self._written >= self.per_second:
                self.suppressed += 1
                return
            self._written += 1
            self._write(one_line(text))

    def flush(self) -> None:
        with self._lines:
            self._flush()

    def _flush(self) -> None:
        if self.suppressed:
            n, self.suppressed = self.suppressed, 0
            self._write(f"({n} more refused or malformed request{'s' if n > 1 else ''} not shown)")

    @staticmethod
    def _write(text: str) -> None:
        with contextlib.suppress(OSError, ValueError):  # stderr closed: the page goes on
            print(text, file=sys.stderr, flush=True)


#: The logger given to aiohttp's connection handler (a request it cannot parse, a handler's
#: unhandled error) and used for the server's own refusals: one :class:`RequestLog`.
REQUEST_LOG = RequestLog()
LOG = logging.getLogger("tradeoff.web.requests")
LOG.setLevel(logging.DEBUG)
LOG.propagate = False
LOG.addHandler(REQUEST_LOG)


def log_request(request: web.BaseRequest, what: str, source: str | None = None) -> None:
    """One line in the server's log about ``request``: who, what, and ``what`` happened."""
    who = source if source is not None else str(request.remote)
    LOG.warning("%s %s %s: %s", who, request.method, request.path, what)


@dataclass(frozen=True)
class Timeouts:
    """How long a connection may take over each part of a request (:data:`HEADER_SECONDS`,
    :data:`BODY_SECONDS`)."""

    header_seconds: float = HEADER_SECONDS
    body_seconds: float = BODY_SECONDS

    def handler_args(self) -> dict[str, object]:
        """The options of aiohttp's connection handler that enforce them: its keep-alive
        timer runs from a connection's opening and from each answer until the next request's
        headers are all in, and closes the connection when they are not."""
        return {
            "keepalive_timeout": self.header_seconds,
            "max_line_size": MAX_LINE,
            "max_field_size": MAX_FIELD,
            "max_headers": MAX_HEADERS,
            "lingering_time": LINGER_SECONDS,
            "logger": LOG,
        }
