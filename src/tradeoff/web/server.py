"""The study web page: the participant's flow as plain HTML forms (no script needed).

Code entry → information and consent → questions → what we learned → thank-you
(docs/architecture.md, "The study web page"). Every answer is written to the
participant's session file and synced before the next page is sent (post, redirect, get);
each form carries the number of answers the page was showing, so a second submit of the
same page, or one from the back button, records nothing. After a right access code the
browser holds a signed session cookie (HttpOnly, SameSite=Strict, Secure behind TLS);
every form carries a CSRF token; every URL is relative, so the page works under any path
of a reverse proxy. Pages name nothing outside this server (a strict CSP says so).

No client can hold the server up: a connection has :data:`HEADER_SECONDS` to send its
request line and headers (and is closed when it sits idle that long), then
:data:`BODY_SECONDS` to send its body; only requests whose body is in count against the
caps of requests in flight. A refused or malformed request is one line on stderr (at most
:data:`LOG_LINES_PER_SECOND`, then a count of the lines left out), never a traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import hmac
import logging
import os
import secrets
import stat
import sys
import threading
import time
import unicodedata
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Literal, TypeVar

import jinja2
from aiohttp import web
from markupsafe import Markup

from tradeoff.ask.scenario import DECIDING_STRATEGIES, load_scenario
from tradeoff.errors import InputError
from tradeoff.learn import Choice, expected_questions
from tradeoff.record.recorder import Recorder, SessionLocked, SessionWriteError
from tradeoff.record.records import ConsentRecord, now
from tradeoff.study.folder import (
    Study,
    client_source,
    load_study,
    recent_failures,
    record_failure,
    withdrawals_path,
    withdrawn,
    wrong_code_delay,
)
from tradeoff.text import clean_text
from tradeoff.web.held import Participants
from tradeoff.web.i18n import N_, Language, choose, languages
from tradeoff.web.pages import QuestionView, question_view, review_view, safe_markdown

T = TypeVar("T")
HERE = Path(__file__).parent
SESSION_COOKIE = "tradeoff_session"
CSRF_COOKIE = "tradeoff_form"
#: A session cookie is good for this long after the code was entered.
SESSION_SECONDS = 12 * 3600
#: The largest request body (the forms hold a few short fields).
MAX_BODY = 16 * 1024
SECRET_FILE = "web-secret"
#: A source that entered a wrong code lately may have this many codes checked or waiting
#: out their delay at once (more are refused unchecked, so a guesser cannot run the delays
#: in parallel; a source without wrong codes, such as a ward behind one address, is not
#: held back); and one source may have this many requests in flight, all sources this many.
CODES_AT_ONCE = 2
REQUESTS_AT_ONCE = (64, 512)
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
#: Session cookies dropped by "save and come back later" or by declining consent: their
#: nonces, kept for :data:`SESSION_SECONDS` (every server process on the folder reads it).
REVOKED_FILE = "web-revoked"
#: At most this many bytes of :data:`REVOKED_FILE` are read for one request.
REVOKED_READ = 1 << 16
#: :data:`REVOKED_FILE` is rewritten with only its live entries past this size.
REVOKED_KEEP = 1 << 20
CSP = (
    "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
    "frame-ancestors 'none'; base-uri 'none'"
)
WRONG_CODE = N_(
    "That code does not open a session. Check it and try again (capitals, spaces and "
    "dashes do not matter)."
)
OPEN_ELSEWHERE = N_(
    "Your session is open in another window or tab, or being saved there. Close that "
    "window, then enter your code here again."
)


def study_secret(study: Study) -> bytes:
    """The key that signs this study's session cookies, shared by every server process on
    the study folder: made once (0600, never overwritten) in the study's folder.

    Raises
    ------
    InputError
        The file is there but is not a key this server wrote (a folder, binary or not 64
        hex digits), or cannot be read or made: the error names the file and the fix.
    """
    path = study.path / SECRET_FILE
    fix = f"delete {path} (a new key is made; open sessions must enter their code again)."
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        pass
    except OSError as exc:
        raise InputError.single(
            path,
            "",
            f"cannot be made ({exc.strerror or exc}).",
            "check that the study folder is writable by this user.",
        ) from None
    else:
        with os.fdopen(fd, "w") as fh:
            fh.write(secrets.token_hex(32) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
    if not path.is_file():
        raise InputError.single(path, "", "is not a file.", fix)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError.single(
            path,
            "",
            f"cannot be read ({exc.strerror or exc}).",
            "check the file's permissions (the server's user must read it).",
        ) from None
    text = data.strip()
    if len(text) != 64 or any(c not in b"0123456789abcdefABCDEF" for c in text):
        raise InputError.single(path, "", "is not a key this server wrote.", fix)
    return bytes.fromhex(text.decode("ascii"))


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


def same(given: str, expected: str) -> bool:
    """Whether a token a client sent is ``expected`` (in constant time; a token with other
    than ASCII characters is simply not it)."""
    return given.isascii() and hmac.compare_digest(given, expected)


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


@dataclass(frozen=True)
class Visitor:
    """Who a request is from: a participant (cookie checked) or nobody yet."""

    participant: str | None
    nonce: str
    language: Language


class Revoked:
    """Session cookies ended before their time, shared by every server process on a study
    folder through one file of ``<unix time> <nonce>`` lines (:data:`REVOKED_FILE`).

    Asked on every request, so nothing here grows with the study's history: a request
    costs one ``stat``; only lines appended since this process last looked are read (in
    pieces of :data:`REVOKED_READ` bytes, at most about :data:`REVOKED_KEEP` a request,
    any rest at the next); entries older than
    :data:`SESSION_SECONDS` are forgotten (their cookies have expired anyway); and the file
    is rewritten with only those younger entries once it passes :data:`REVOKED_KEEP`
    bytes (a new file: readers see the inode change and read it from the start). The file
    is opened without following links and only if it is a regular file.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file: tuple[int, int] | None = None  # (device, inode) read so far
        self._offset = 0  # bytes of complete lines read
        self._when: dict[str, int] = {}
        self._kept = 1024
        # The event loop asks, a worker thread adds: one of them at a time reads the file.
        self._lock = threading.Lock()

    def add(self, nonce: str) -> None:
        """Revoke ``nonce`` (one line appended under a lock; the file compacted if long)."""
        line = f"{int(time.time())} {nonce}\n".encode("ascii")
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise OSError(f"{self.path} is not a regular file")
            os.write(fd, line)
            os.fsync(fd)
            if os.fstat(fd).st_size > REVOKED_KEEP:
                self._compact()
        finally:
            os.close(fd)

    def _compact(self) -> None:
        """Write the entries of the last :data:`SESSION_SECONDS` to a new file (called with
        the old one locked; a process appending meanwhile waits for the lock, then finds
        the new inode at its next look)."""
        with self._lock:
            while self._read():  # to the end, however much other processes appended
                pass
            since = time.time() - SESSION_SECONDS
            keep = "".join(f"{at} {n}\n" for n, at in self._when.items() if at >= since)
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        with open(tmp, "w", encoding="ascii") as fh:
            fh.write(keep)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.path)

    def has(self, nonce: str) -> bool:
        """Whether ``nonce`` was revoked in the last :data:`SESSION_SECONDS`."""
        with self._lock, contextlib.suppress(OSError):
            for _ in range(REVOKED_KEEP // REVOKED_READ + 1):  # caught up within the bound
                if not self._read():
                    break
        at = self._when.get(nonce)
        return at is not None and at >= time.time() - SESSION_SECONDS

    def _read(self) -> bool:
        """Read what was appended since the last look, up to :data:`REVOKED_READ` bytes;
        whether anything was read (called with ``_lock`` held)."""
        try:
            st = os.stat(self.path, follow_symlinks=False)
        except FileNotFoundError:
            self._file, self._offset, self._when = None, 0, {}
            return False
        if not stat.S_ISREG(st.st_mode):
            return False
        file = (st.st_dev, st.st_ino)
        if file != self._file or st.st_size < self._offset:  # a new file: read it afresh
            self._file, self._offset, self._when = file, 0, {}
        if st.st_size == self._offset:
            return False
        fd = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        try:
            if (os.fstat(fd).st_dev, os.fstat(fd).st_ino) != file:
                return False  # replaced since the stat: the next look reads the new one
            chunk = os.pread(fd, REVOKED_READ, self._offset)
        finally:
            os.close(fd)
        complete = chunk[: chunk.rfind(b"\n") + 1]
        if not complete and len(chunk) == REVOKED_READ:  # no line end in a whole read: junk
            complete = chunk
        self._offset += len(complete)
        for line in complete.decode("ascii", errors="replace").splitlines():
            at, _, nonce = line.partition(" ")
            if at.isdigit() and nonce:
                self._when[nonce] = int(at)
        if len(self._when) > 2 * self._kept:  # forget what expired, now and then
            since = time.time() - SESSION_SECONDS
            self._when = {n: at for n, at in self._when.items() if at >= since}
            self._kept = max(len(self._when), 1024)
        return bool(complete)


@dataclass
class Site:
    """Everything the handlers share (one per server process)."""

    study: Study
    participants: Participants
    secret: bytes
    trust_proxy: bool = False
    timeouts: Timeouts = field(default_factory=Timeouts)
    languages: dict[str, Language] = field(default_factory=languages)
    executor: ThreadPoolExecutor = field(
        default_factory=lambda: ThreadPoolExecutor(4, thread_name_prefix="tradeoff-web")
    )
    envs: dict[str, jinja2.Environment] = field(default_factory=dict)
    #: Codes being checked (or waiting out their delay) per source address, and requests
    #: in flight per source and in all (:data:`CODES_AT_ONCE`, :data:`REQUESTS_AT_ONCE`).
    checking: dict[str, int] = field(default_factory=dict)
    in_flight: dict[str, int] = field(default_factory=dict)
    #: The scenario's description and the consent text as HTML, made once (both files are
    #: fixed for the study's life: their hashes are checked at every right code).
    description_html: Markup = field(default_factory=Markup)
    consent_html: Markup | None = None
    _withdrawn: tuple[tuple[int, int] | None, frozenset[str]] = (None, frozenset())
    revoked: Revoked = field(init=False)

    def __post_init__(self) -> None:
        self.revoked = Revoked(self.study.path / REVOKED_FILE)

    def is_withdrawn(self, participant: str) -> bool:
        """Whether ``participant`` withdrew (the withdrawals file read again only when it
        changes: this is asked on every request)."""
        path = withdrawals_path(self.study)
        try:
            st = path.stat()
            key: tuple[int, int] | None = (st.st_mtime_ns, st.st_size)
        except FileNotFoundError:
            key = None
        if key != self._withdrawn[0]:
            self._withdrawn = (key, frozenset(withdrawn(self.study)) if key else frozenset())
        return participant in self._withdrawn[1]

    def revoke(self, nonce: str) -> None:
        """End the session cookie of ``nonce`` for every server process on the folder:
        "save and come back later" and declining consent leave the page, and only the
        access code opens it again (:class:`Revoked`). If the file cannot be written (a
        full disk), the browser still drops the cookie; the server's log says so."""
        try:
            self.revoked.add(nonce)
        except OSError as exc:
            LOG.warning("%s: could not be written (%s)", clean_text(self.revoked.path), exc)

    def is_revoked(self, nonce: str) -> bool:
        """Whether the session cookie of ``nonce`` was revoked (asked on every request)."""
        return self.revoked.has(nonce)

    # -- signing ----------------------------------------------------------------------

    def _sign(self, text: str) -> str:
        return hmac.new(self.secret, text.encode(), hashlib.sha256).hexdigest()[:43]

    def session_value(self, participant: str, issued: int | None = None) -> str:
        issued = int(time.time()) if issued is None else issued
        nonce = secrets.token_urlsafe(12)
        body = f"{participant}:{issued}:{nonce}"
        return f"{body}:{self._sign(body)}"

    def read_session(self, value: str | None) -> tuple[str, str] | None:
        """The participant and nonce of a valid, unexpired session cookie."""
        if not value or value.count(":") != 3:
            return None
        participant, issued, nonce, sig = value.split(":")
        if not same(sig, self._sign(f"{participant}:{issued}:{nonce}")):
            return None
        try:
            age = time.time() - int(issued)
        except ValueError:
            return None
        if not 0 <= age <= SESSION_SECONDS or participant not in self.study.participants:
            return None
        if self.is_revoked(nonce):
            return None
        return participant, nonce

    def csrf(self, nonce: str) -> str:
        return self._sign(f"csrf:{nonce}")

    def shown(self, nonce: str, answered: int) -> str:
        """The question page's ``shown`` field: the server's clock (ms) when the page with
        ``answered`` answers was made for this session, signed, so the answer's response
        time is measured on the server and a client cannot change it."""
        ms = int(time.time() * 1000)
        return f"{ms}.{self._sign(f'shown:{nonce}:{answered}:{ms}')}"

    def response_ms(self, nonce: str, answered: int, shown: str) -> float | None:
        """Milliseconds from the page being made (its signed ``shown`` field) to now; ``None``
        when the field is not one this server signed for this session and page, or the
        time is not between 0 and :data:`SESSION_SECONDS`."""
        ms, _, sig = shown.partition(".")
        if not (ms.isascii() and ms.isdigit() and len(ms) <= 16):
            return None
        if not same(sig, self._sign(f"shown:{nonce}:{answered}:{ms}")):
            return None
        elapsed = time.time() * 1000 - int(ms)
        return elapsed if 0 <= elapsed <= SESSION_SECONDS * 1000 else None

    # -- rendering ----------------------------------------------------------------------

    def env(self, language: Language) -> jinja2.Environment:
        env = self.envs.get(language.tag)
        if env is None:
            env = jinja2.Environment(
                loader=jinja2.FileSystemLoader(HERE / "templates"),
                autoescape=True,
                extensions=["jinja2.ext.i18n"],
                undefined=jinja2.StrictUndefined,
            )
            env.install_gettext_translations(language.translations, newstyle=True)  # type: ignore[attr-defined]
            self.envs[language.tag] = env
        return env

    def page(
        self,
        visitor: Visitor,
        template: str,
        title: str,
        status: int = 200,
        **context: object,
    ) -> web.Response:
        scenario = self.participants.loaded.scenario
        html = (
            self.env(visitor.language)
            .get_template(template)
            .render(
                lang=visitor.language.tag,
                page_title=title,
                study_title=clean_text(scenario.title),
                csrf=self.csrf(visitor.nonce),
                **context,
            )
        )
        return web.Response(text=html, content_type="text/html", status=status)

    def message(
        self,
        visitor: Visitor,
        heading: str,
        paragraphs: list[str],
        status: int = 200,
        link: tuple[str, str] | None = None,
    ) -> web.Response:
        return self.page(
            visitor,
            "message.html",
            heading,
            status,
            heading=heading,
            paragraphs=paragraphs,
            link=None if link is None else {"href": link[0], "text": link[1]},
        )

    async def work(self, fn: Callable[[], T]) -> T:
        return await asyncio.get_running_loop().run_in_executor(self.executor, fn)


SITE = web.AppKey("site", Site)


def source_of(request: web.Request, trust_proxy: bool) -> str:
    """The client's address (:func:`tradeoff.study.folder.client_source`)."""
    return client_source(request.remote, request.headers.get("X-Forwarded-For"), trust_proxy)


def is_secure(request: web.Request, trust_proxy: bool) -> bool:
    """Whether the browser reached the page over TLS (a trusted proxy's
    ``X-Forwarded-Proto``, its first hop, as the terminal's server reads it)."""
    if request.secure:
        return True
    proto = request.headers.get("X-Forwarded-Proto", "").split(",")[0].strip()
    return trust_proxy and proto == "https"


def visitor_of(request: web.Request) -> Visitor:
    site = request.app[SITE]
    language = choose(request.headers.get("Accept-Language"), site.languages)
    found = site.read_session(request.cookies.get(SESSION_COOKIE))
    if found is not None:
        return Visitor(found[0], found[1], language)
    nonce = request.cookies.get(CSRF_COOKIE, "")
    if not (
        16 <= len(nonce) <= 64
        and nonce.isascii()
        and nonce.replace("-", "").replace("_", "").isalnum()
    ):
        nonce = secrets.token_urlsafe(16)
    return Visitor(None, nonce, language)


def set_cookie(
    response: web.StreamResponse, name: str, value: str, secure: bool, max_age: int | None = None
) -> None:
    """A cookie that scripts cannot read and other sites cannot send, with no ``Path``: the
    browser scopes it to the page's own folder, whatever path a proxy serves it under
    (``max_age`` 0 deletes it)."""
    parts = [f"{name}={value}", "HttpOnly", "SameSite=Strict"]
    if secure:
        parts.append("Secure")
    if max_age is not None:
        parts.append(f"Max-Age={max_age}")
    response.headers.add("Set-Cookie", "; ".join(parts))


def redirect(to: str) -> web.Response:
    """303 See Other to a page named relative to this one (post, redirect, get)."""
    return web.Response(status=303, headers={"Location": to})


async def checked_form(request: web.Request, visitor: Visitor) -> dict[str, str] | None:
    """The form's fields, or ``None`` when its CSRF token is not this visitor's."""
    site = request.app[SITE]
    try:
        form = await request.post()
    except web.HTTPException:
        raise
    except Exception as exc:  # not UTF-8, an unknown charset, a broken multipart body
        log_request(request, f"form not readable ({type(exc).__name__})")
        raise web.HTTPBadRequest() from None
    token = form.get("csrf")
    if not isinstance(token, str) or not same(token, site.csrf(visitor.nonce)):
        return None
    return {k: v for k, v in form.items() if isinstance(v, str)}


def expired(site: Site, visitor: Visitor) -> web.Response:
    _ = visitor.language.gettext
    return site.message(
        visitor,
        _("This page has expired"),
        [_("Nothing was recorded from it. Your answers so far are saved.")],
        403,
        ("./", _("Go back to the study")),
    )


# -- pages before a participant is known --------------------------------------------------


async def index(request: web.Request) -> web.StreamResponse:
    site = request.app[SITE]
    visitor = visitor_of(request)
    if visitor.participant is not None:
        return await where_next(request, visitor)
    return code_page(request, site, visitor)


def code_page(request: web.Request, site: Site, visitor: Visitor, error: str = "") -> web.Response:
    _ = visitor.language.gettext
    s = site.participants.loaded.scenario
    spec = s.elicitation
    expected = expected_questions(s, spec)
    decides = s.pool is not None and spec.strategy in DECIDING_STRATEGIES and spec.stop != "weights"
    expect = (
        _(
            "At most %(n)s questions (fewer once your answers settle which candidate model "
            "suits you), a few minutes. You can stop and come back later."
        )
        if decides
        else _("About %(n)s questions, a few minutes. You can stop and come back later.")
    ) % {"n": expected}
    response = site.page(
        visitor,
        "code.html",
        _("Enter your access code"),
        200,
        error=error,
        description=site.description_html,
        expect=expect,
    )
    set_cookie(response, CSRF_COOKIE, visitor.nonce, is_secure(request, site.trust_proxy))
    return response


async def enter_code(request: web.Request) -> web.StreamResponse:
    site = request.app[SITE]
    visitor = visitor_of(request)
    form = await checked_form(request, visitor)
    if form is None:
        return code_page(
            request,
            site,
            visitor,
            visitor.language.gettext("The form had expired. Enter your code again."),
        )
    source = source_of(request, site.trust_proxy)
    guessing = site.checking.get(source, 0) >= CODES_AT_ONCE and (
        await site.work(partial(recent_failures, site.study, None, source)) > 0
    )
    if guessing:
        _ = visitor.language.gettext
        return site.message(
            visitor,
            _("Too many attempts at once"),
            [
                _(
                    "Codes from your address are being checked already. Wait a few seconds, "
                    "then try again."
                )
            ],
            429,
            ("./", _("Back to the code")),
        )
    site.checking[source] = site.checking.get(source, 0) + 1
    try:
        code = form.get("code", "")[:64]
        participant = await site.work(partial(site.study.participant_for, code)) if code else None
        if participant is None:
            delay = await site.work(partial(wrong_code_delay, site.study, source))
            try:
                await site.work(partial(record_failure, site.study, source=source))
            except OSError as exc:
                print(f"attempts.log not written: {exc}", file=sys.stderr)
            await asyncio.sleep(delay)
            return code_page(request, site, visitor, visitor.language.gettext(WRONG_CODE))
    finally:
        site.checking[source] -= 1
        if not site.checking[source]:
            del site.checking[source]
    try:  # the study's files are what they were when it was made
        await site.work(partial(load_study, site.study.path))
    except InputError as exc:
        print(exc.message(), file=sys.stderr)
        _ = visitor.language.gettext
        return site.message(
            visitor,
            _("The study cannot start"),
            [
                _(
                    "The study's files have changed since it was made. Please tell the study's "
                    "coordinator; nothing of yours was recorded."
                )
            ],
            503,
        )
    response = redirect("./")
    set_cookie(
        response,
        SESSION_COOKIE,
        site.session_value(participant),
        is_secure(request, site.trust_proxy),
        SESSION_SECONDS,
    )
    return response


# -- where a participant is ----------------------------------------------------------------


async def where_next(request: web.Request, visitor: Visitor) -> web.StreamResponse:
    """Send a participant to the page of where they are: withdrawn, finished, consent,
    or the questions (a session is started here when the study asks no consent)."""
    site = request.app[SITE]
    pid = visitor.participant
    assert pid is not None
    if await site.work(partial(site.is_withdrawn, pid)):
        return withdrawn_page(site, visitor)
    path = await site.work(partial(site.participants.open_session, pid))
    if path is not None:
        return redirect("question")
    if await site.work(partial(site.participants.has_finished, pid)):
        return redirect("done")
    if site.study.consent_file is not None:
        return redirect("consent")
    await site.work(partial(site.participants.start, pid, None, visitor.language.tag))
    return redirect("question")


def withdrawn_page(site: Site, visitor: Visitor) -> web.Response:
    _ = visitor.language.gettext
    return site.message(
        visitor,
        _("You have withdrawn from this study"),
        [_("Nothing more is recorded. Thank you for your time.")],
    )


def participant(request: web.Request) -> Visitor | None:
    visitor = visitor_of(request)
    return visitor if visitor.participant is not None else None


async def consent(request: web.Request) -> web.StreamResponse:
    site = request.app[SITE]
    visitor = participant(request)
    if visitor is None:
        return redirect("./")
    if site.consent_html is None:
        return redirect("./")
    if await site.work(partial(site.participants.open_session, visitor.participant or "")):
        return redirect("./")
    _ = visitor.language.gettext
    return site.page(
        visitor,
        "consent.html",
        _("Information and consent"),
        version=site.study.consent_version,
        consent_html=site.consent_html,
    )


async def give_consent(request: web.Request) -> web.StreamResponse:
    site = request.app[SITE]
    visitor = participant(request)
    if visitor is None or visitor.participant is None:
        return redirect("./")
    form = await checked_form(request, visitor)
    if form is None:
        return expired(site, visitor)
    if await site.work(partial(site.is_withdrawn, visitor.participant)):
        return withdrawn_page(site, visitor)
    if form.get("choice") != "agree":
        _ = visitor.language.gettext
        response = site.message(
            visitor,
            _("Thank you"),
            [
                _("You chose not to take part. Nothing was recorded."),
                _("If you change your mind, open this page again and enter your code."),
            ],
        )
        await site.work(partial(site.revoke, visitor.nonce))
        set_cookie(response, SESSION_COOKIE, "", is_secure(request, site.trust_proxy), 0)
        return response
    if site.study.consent_version is None:
        return redirect("./")
    record = ConsentRecord(
        type="consent",
        version=site.study.consent_version,
        text_sha256=site.study.files[site.study.consent_file or ""],
        language=visitor.language.tag,
        at=now(),
    )
    await site.work(
        partial(site.participants.start, visitor.participant, record, visitor.language.tag)
    )
    return redirect("question")


# -- the questions -------------------------------------------------------------------------


async def with_session(
    request: web.Request,
    act: Callable[[Site, Visitor, Path], Awaitable[web.StreamResponse]],
) -> web.StreamResponse:
    site = request.app[SITE]
    visitor = participant(request)
    if visitor is None or visitor.participant is None:
        return redirect("./")
    path = await site.work(partial(site.participants.open_session, visitor.participant))
    if path is None or await site.work(partial(site.is_withdrawn, visitor.participant)):
        return await where_next(request, visitor)
    try:
        return await act(site, visitor, path)
    except SessionLocked:
        _ = visitor.language.gettext
        return site.message(
            visitor,
            _("Your session is open elsewhere"),
            [_(OPEN_ELSEWHERE)],
            409,
            ("./", _("Back to the code")),
        )
    except InputError as exc:  # finished meanwhile in another tab, or unreadable
        if await site.work(partial(site.participants.has_finished, visitor.participant)):
            return redirect("done")
        print(exc.message(), file=sys.stderr)
        _ = visitor.language.gettext
        return site.message(
            visitor,
            _("Your session could not be opened"),
            [_("Nothing was lost. Please tell the study's coordinator.")],
            500,
        )
    except SessionWriteError as exc:
        print(f"{exc.path}: not saved ({exc.reason})", file=sys.stderr)
        _ = visitor.language.gettext
        return site.message(
            visitor,
            _("Your answer could not be saved"),
            [
                _(
                    "Nothing was lost: every answer before it is saved. Please try again in a "
                    "minute; if it happens again, tell the study's coordinator."
                )
            ],
            503,
            ("question", _("Back to the question")),
        )


async def question(request: web.Request) -> web.StreamResponse:
    async def show(site: Site, visitor: Visitor, path: Path) -> web.StreamResponse:
        assert visitor.participant is not None
        view: QuestionView | None = await site.work(
            partial(
                site.participants.run,
                visitor.participant,
                path,
                lambda rec: question_view(rec, visitor.language),
            )
        )
        if view is None:
            return redirect("review")
        notice = request.query.get("notice", "")
        _ = visitor.language.gettext
        notices = {"undone": _("Your last answer was taken back; here is that question again.")}
        return site.page(
            visitor,
            "question.html",
            view.heading,
            heading=view.heading,
            progress=view.progress,
            total=view.total,
            answered=view.answered,
            prompt=view.prompt,
            options=view.options,
            shown=site.shown(visitor.nonce, view.answered),
            notice=notices.get(notice, ""),
        )

    return await with_session(request, show)


def _answered(form: dict[str, str]) -> int:
    try:
        return int(form.get("answered", "-1"))
    except ValueError:
        return -1


def _answer(rec: Recorder, form: dict[str, str], response_ms: float | None) -> None:
    rec.answer(Choice(form.get("choice", "")), response_ms=response_ms)


def _form_action(
    step: Callable[[Recorder, dict[str, str], float | None], object],
    to: str,
    *,
    needs: Literal["question", "answers", "review"],
) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
    """A form's handler: ``step`` is done only if the session still has the number of
    answers the page showed (a second submit of the same page does nothing) and is where
    the action belongs: at a question (answer), with an answer to take back (undo), or at
    the review, no question left (finish, more). A step that refuses the form's values
    (ValueError) does nothing either; the participant is sent back to where they are.
    ``step`` is also given the time since the page was made, on the server's clock
    (:meth:`Site.response_ms`)."""

    def act(form: dict[str, str], response_ms: float | None, rec: Recorder) -> bool:
        engine = rec.engine
        if engine.answered != _answered(form):
            return False
        at_question = engine.next_query() is not None
        if needs == "question" and not at_question:
            return False
        if needs == "review" and at_question:
            return False
        if needs == "answers" and engine.answered == 0:
            return False
        try:
            step(rec, form, response_ms)
        except ValueError:
            return False
        return True

    async def handler(request: web.Request) -> web.StreamResponse:
        async def run(site: Site, visitor: Visitor, path: Path) -> web.StreamResponse:
            assert visitor.participant is not None
            form = await checked_form(request, visitor)
            if form is None:
                return expired(site, visitor)
            response_ms = site.response_ms(visitor.nonce, _answered(form), form.get("shown", ""))
            done = await site.work(
                partial(
                    site.participants.run,
                    visitor.participant,
                    path,
                    partial(act, form, response_ms),
                )
            )
            return redirect(to if done else "question")

        return await with_session(request, run)

    return handler


async def review(request: web.Request) -> web.StreamResponse:
    async def show(site: Site, visitor: Visitor, path: Path) -> web.StreamResponse:
        assert visitor.participant is not None
        scenario = site.participants.loaded.scenario

        def view(rec: Recorder) -> object:
            if rec.engine.next_query() is not None:
                return None
            return review_view(rec, scenario, visitor.language)

        shown = await site.work(partial(site.participants.run, visitor.participant, path, view))
        if shown is None:
            return redirect("question")
        _ = visitor.language.gettext
        return site.page(visitor, "review.html", _("What we learned"), **vars(shown))

    return await with_session(request, show)


async def pause(request: web.Request) -> web.StreamResponse:
    async def act(site: Site, visitor: Visitor, path: Path) -> web.StreamResponse:
        assert visitor.participant is not None
        form = await checked_form(request, visitor)
        if form is None:
            return expired(site, visitor)

        def note(rec: Recorder) -> None:
            rec.note("paused")

        await site.work(partial(site.participants.run, visitor.participant, path, note))
        _ = visitor.language.gettext
        response = site.message(
            visitor,
            _("Saved"),
            [
                _("Every answer you gave is saved."),
                _(
                    "To go on later, open this page again and enter your access code: you "
                    "will continue where you left off."
                ),
            ],
        )
        await site.work(partial(site.revoke, visitor.nonce))
        set_cookie(response, SESSION_COOKIE, "", is_secure(request, site.trust_proxy), 0)
        return response

    return await with_session(request, act)


async def done(request: web.Request) -> web.StreamResponse:
    site = request.app[SITE]
    visitor = participant(request)
    if visitor is None or visitor.participant is None:
        return redirect("./")
    if not await site.work(partial(site.participants.has_finished, visitor.participant)):
        return await where_next(request, visitor)
    _ = visitor.language.gettext
    return site.message(
        visitor,
        _("Thank you"),
        [
            _("Your answers are saved and complete. You can close this page."),
            _("If you have questions about the study, contact its coordinator."),
        ],
    )


# -- the application -------------------------------------------------------------------


def refused(status: int, text: str) -> web.Response:
    """A short plain answer to a request that was not read whole; the connection is
    closed after it (what is left of the request is not read)."""
    response = web.Response(status=status, text=text + "\n")
    response.force_close()
    return response


@web.middleware
async def protect(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    """Security headers on every response; friendly pages for errors; the request's body
    read whole within :data:`BODY_SECONDS` (408 and the connection closed when it is not)
    before the request counts as in flight; requests in flight capped per source and in
    all (503 with a page that says so). A request waiting for its body holds no place: a
    client that sends it slowly, or never, keeps no one else out."""
    site = request.app[SITE]
    source = source_of(request, site.trust_proxy)
    try:
        async with asyncio.timeout(site.timeouts.body_seconds):
            await request.read()
    except TimeoutError:
        log_request(request, "body not sent in time (408)", source)
        return secured(refused(408, "The request took too long to arrive."))
    except web.HTTPRequestEntityTooLarge:
        log_request(request, "body too large (413)", source)
        return secured(refused(413, "Too large."))
    except ConnectionError:  # the client left; no one reads an answer
        return refused(400, "Bad request.")
    except Exception as exc:  # a body that cannot be decoded (chunks, compression)
        log_request(request, f"body not readable ({type(exc).__name__}) (400)", source)
        return secured(refused(400, "Bad request."))
    mine, total = site.in_flight.get(source, 0), sum(site.in_flight.values())
    if mine >= REQUESTS_AT_ONCE[0] or total >= REQUESTS_AT_ONCE[1]:
        log_request(request, "too many requests in flight (503)", source)
        visitor = visitor_of(request)
        _ = visitor.language.gettext
        response = site.message(
            visitor,
            _("Too busy right now"),
            [_("Too many pages are open at once. Please try again in a minute; nothing was lost.")],
            503,
        )
        response.headers["Retry-After"] = "30"
        return secured(response)
    site.in_flight[source] = mine + 1
    try:
        return secured(await _handle(request, handler))
    finally:
        site.in_flight[source] -= 1
        if not site.in_flight[source]:
            del site.in_flight[source]


def secured(response: web.StreamResponse) -> web.StreamResponse:
    headers = response.headers
    headers["Content-Security-Policy"] = CSP
    headers["X-Content-Type-Options"] = "nosniff"
    headers["Referrer-Policy"] = "no-referrer"
    headers["X-Frame-Options"] = "DENY"
    headers.setdefault("Cache-Control", "no-store")
    return response


async def _handle(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    try:
        response = await handler(request)
    except web.HTTPException as exc:
        site = request.app[SITE]
        visitor = visitor_of(request)
        _ = visitor.language.gettext
        if exc.status == 404:
            response = site.message(
                visitor,
                _("Page not found"),
                [_("There is no page here.")],
                404,
                ("./", _("Go to the study's start")),
            )
        elif exc.status == 405:
            response = redirect("./")
        elif exc.status == 413:
            response = web.Response(status=413, text="Too large.")
        else:
            if exc.status != 400:  # a 400 was logged where it was found
                log_request(request, f"refused ({exc.status})")
            response = site.message(
                visitor,
                _("Something went wrong"),
                [_("Please go back and try again.")],
                exc.status,
                ("./", _("Go to the study's start")),
            )
    except Exception as exc:  # logged, never shown: the participant gets words
        log_request(request, f"error: {exc!r}")
        try:
            site = request.app[SITE]
            visitor = visitor_of(request)
            _ = visitor.language.gettext
            response = site.message(
                visitor,
                _("Something went wrong on our side"),
                [
                    _(
                        "Your answers so far are saved. Please try again in a minute; if it "
                        "happens again, tell the study's coordinator."
                    )
                ],
                500,
                ("./", _("Go to the study's start")),
            )
        except Exception:  # the page of the error failed too: plain words
            response = web.Response(status=500, text="Something went wrong on our side.\n")
    return response


async def style(request: web.Request) -> web.StreamResponse:
    response = web.FileResponse(HERE / "static" / "style.css")
    response.headers["Cache-Control"] = "max-age=3600"
    return response


def make_web_app(
    study: Study,
    *,
    trust_proxy: bool = False,
    capacity: int = 1000,
    timeouts: Timeouts | None = None,
) -> web.Application:
    """The study web page for ``study`` as an aiohttp application (its connection handler's
    limits, :meth:`Timeouts.handler_args`, go with it to whatever runner serves it)."""
    timeouts = Timeouts() if timeouts is None else timeouts
    loaded = load_scenario(study.scenario_path)
    consent_file = study.consent_path
    site = Site(
        study,
        Participants(study, loaded, capacity=capacity),
        study_secret(study),
        trust_proxy,
        timeouts,
        description_html=Markup(safe_markdown(loaded.scenario.description)),
        consent_html=None
        if consent_file is None
        else Markup(safe_markdown(consent_file.read_text(encoding="utf-8"))),
    )
    app = web.Application(
        middlewares=[protect], client_max_size=MAX_BODY, handler_args=timeouts.handler_args()
    )
    app[SITE] = site
    app.router.add_get("/", index)
    app.router.add_post("/code", enter_code)
    app.router.add_get("/consent", consent)
    app.router.add_post("/consent", give_consent)
    app.router.add_get("/question", question)
    app.router.add_post("/answer", _form_action(_answer, "question", needs="question"))
    app.router.add_post(
        "/undo",
        _form_action(lambda rec, *_: rec.undo(), "question?notice=undone", needs="answers"),
    )
    app.router.add_post(
        "/more", _form_action(lambda rec, *_: rec.extend(10), "question", needs="review")
    )
    app.router.add_post(
        "/finish", _form_action(lambda rec, *_: rec.finish(), "done", needs="review")
    )
    app.router.add_get("/review", review)
    app.router.add_post("/pause", pause)
    app.router.add_get("/done", done)
    app.router.add_get("/static/style.css", style)

    async def close(app: web.Application) -> None:
        held = app[SITE].participants
        app[SITE].executor.shutdown(wait=True, cancel_futures=True)
        REQUEST_LOG.flush()
        print(
            f"stopped; {len(held)} participants in memory, {held.rebuilt} engines rebuilt "
            "from their files",
            file=sys.stderr,
        )

    app.on_cleanup.append(close)
    return app
