"""Everything a request to the study web page passes before a page runs, and what every
page shares (:class:`Site`).

After a right access code the browser holds a signed session cookie (HttpOnly,
SameSite=Strict, Secure behind TLS) under the study's key (:func:`study_secret`); a cookie
ended early ("save and come back later", declining, withdrawing) is revoked for every server
process on the folder (:class:`~tradeoff.web.revoked.Revoked`); every form carries a CSRF token
(:func:`checked_form`). The :func:`protect` middleware reads a request's body within
:attr:`tradeoff.web.connection.Timeouts.body_seconds`, only then counts it against the
caps of requests in flight (:data:`tradeoff.web.limiter.REQUESTS_AT_ONCE`, counted by the
one per-source limiter, :class:`tradeoff.web.limiter.PerSource`), sets the security
headers (a strict CSP: pages name nothing outside this server) and answers errors with
pages in words. The pages themselves are wired by :mod:`tradeoff.web.flow`."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import os
import secrets
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TypeVar

import jinja2
from aiohttp import web
from markupsafe import Markup

from tradeoff.errors import InputError
from tradeoff.net import client_source
from tradeoff.study.attempts import record_failure
from tradeoff.study.folder import Study
from tradeoff.text import clean_text
from tradeoff.web.connection import Timeouts, log_request
from tradeoff.web.held import Participants
from tradeoff.web.i18n import LANGUAGE_COOKIE, LANGUAGE_PARAMETER, Language, languages, requested
from tradeoff.web.limiter import Throttles
from tradeoff.web.watched import Watched

T = TypeVar("T")
HERE = Path(__file__).parent
SESSION_COOKIE = "tradeoff_session"
CSRF_COOKIE = "tradeoff_form"
#: The largest request body (the forms hold a few short fields).
MAX_BODY = 16 * 1024
SECRET_FILE = "web-secret"
#: The coordinator's cookie, and how long it is good for.
#: A session cookie is good for this long after the code was entered.
SESSION_SECONDS = 12 * 3600
COORDINATOR_COOKIE = "tradeoff_coordinator"
COORDINATOR_SECONDS = 8 * 3600
CSP = (
    "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
    "frame-ancestors 'none'; base-uri 'none'"
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


def same(given: str, expected: str) -> bool:
    """Whether a token a client sent is ``expected`` (in constant time; a token with other
    than ASCII characters is simply not it)."""
    return given.isascii() and hmac.compare_digest(given, expected)


@dataclass(frozen=True)
class Visitor:
    """Who a request is from: a participant (cookie checked) or nobody yet."""

    participant: str | None
    nonce: str
    language: Language


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
    #: Requests in flight, codes and keys being checked, per source address.
    throttles: Throttles = field(default_factory=Throttles)
    #: The scenario's description and the consent text as HTML, made once (both files are
    #: fixed for the study's life: their hashes are checked at every right code).
    description_html: Markup = field(default_factory=Markup)
    consent_html: Markup | None = None
    #: The study's files that change while it is served (read as they change).
    watched: Watched = field(init=False)
    #: The coordinator's page's facts and when they were gathered (:data:`STATUS_SECONDS`).
    status_cache: tuple[float, dict[str, object]] | None = None
    status_lock: threading.Lock = field(default_factory=threading.Lock)
    #: Work started ahead of the request that needs it (:meth:`ahead`), kept until done.
    _ahead: set[asyncio.Future[None]] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.watched = Watched(self.study, SESSION_SECONDS)

    # -- signing ----------------------------------------------------------------------

    def _sign(self, text: str) -> str:
        return hmac.new(self.secret, text.encode(), hashlib.sha256).hexdigest()[:43]

    def _session_text(self, participant: str, issued: str, nonce: str) -> str:
        """What a session cookie's signature covers: a pilot's also covers the pilot key's
        mark, so a new pilot link closes the pages the old one opened."""
        text = f"{participant}:{issued}:{nonce}"
        if participant in self.watched.roster().pilots:
            text += f":pilot:{self.watched.key_mark('pilot')}"
        return text

    def session_value(self, participant: str, issued: int | None = None) -> str:
        issued = int(time.time()) if issued is None else issued
        nonce = secrets.token_urlsafe(12)
        body = f"{participant}:{issued}:{nonce}"
        return f"{body}:{self._sign(self._session_text(participant, str(issued), nonce))}"

    def signed_session(self, value: str | None) -> tuple[str, str] | None:
        """The participant and nonce of a session cookie this server signed and that has
        not expired, whether or not the participant is still in the study."""
        if not value or value.count(":") != 3:
            return None
        participant, issued, nonce, sig = value.split(":")
        if not same(sig, self._sign(self._session_text(participant, issued, nonce))):
            return None
        try:
            age = time.time() - int(issued)
        except ValueError:
            return None
        return (participant, nonce) if 0 <= age <= SESSION_SECONDS else None

    def replaced_pilot(self, value: str | None) -> bool:
        """Whether a session cookie names a pilot participant but is not signed with the
        pilot key's current mark: a pilot page a newer pilot link closed (said as such,
        not as a page asking for an access code)."""
        if not value or value.count(":") != 3 or self.signed_session(value) is not None:
            return False
        return value.split(":", 1)[0] in self.watched.roster().pilots

    def read_session(self, value: str | None) -> tuple[str, str] | None:
        """The participant and nonce of a valid, unexpired session cookie (a pilot's
        opened with the current pilot key) of someone in the study."""
        signed = self.signed_session(value)
        if signed is None:
            return None
        participant, nonce = signed
        if participant not in self.watched.roster().participants:
            return None
        if self.watched.is_revoked(nonce):
            return None
        return participant, nonce

    def coordinator_value(self, issued: int | None = None) -> str:
        """The coordinator's cookie: signed apart from any participant's (its own prefix),
        and with the coordinator key's mark (a new key closes the page it opened), good
        for :data:`COORDINATOR_SECONDS`."""
        issued = int(time.time()) if issued is None else issued
        return f"{issued}:{self._sign(self._coordinator_text(str(issued)))}"

    def _coordinator_text(self, issued: str) -> str:
        return f"coordinator:{issued}:{self.watched.key_mark('coordinator')}"

    def is_coordinator(self, value: str | None) -> bool:
        """Whether ``value`` is a coordinator's cookie of this study, unexpired, opened
        with the current coordinator key."""
        if not value or value.count(":") != 1:
            return False
        issued, sig = value.split(":")
        if not (issued.isascii() and issued.isdigit() and len(issued) <= 12):
            return False
        if not same(sig, self._sign(self._coordinator_text(issued))):
            return False
        return 0 <= time.time() - int(issued) <= COORDINATOR_SECONDS

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
                contact=self.watched.contact(),
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

    async def wait_out_wrong(self, source: str) -> None:
        """A wrong access code, pilot key or coordinator's key from ``source``: noted in
        ``attempts.log`` and waited out (:func:`~tradeoff.study.attempts.wrong_code_delay`,
        which grows with the source's recent wrong ones, from :attr:`Watched.attempts`), whatever
        was guessed."""
        delay = await self.work(partial(self.watched.attempts.delay, source))
        try:
            await self.work(partial(record_failure, self.study, source=source))
        except OSError as exc:
            print(f"attempts.log not written: {exc}", file=sys.stderr)
        await asyncio.sleep(delay)

    def ahead(self, fn: Callable[[], object]) -> None:
        """Start ``fn`` in a worker thread now, without waiting for it: work the next
        request will need (the next question, while the browser follows the redirect).
        Its outcome is not used: whatever it raises, the request that needs the work does
        it again and reports it."""
        future = asyncio.get_running_loop().run_in_executor(self.executor, _quietly(fn))
        self._ahead.add(future)
        future.add_done_callback(self._ahead.discard)


def _quietly(fn: Callable[[], object]) -> Callable[[], None]:
    def run() -> None:
        with contextlib.suppress(Exception):
            fn()

    return run


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
    language = requested(
        request.query.get(LANGUAGE_PARAMETER),
        request.cookies.get(LANGUAGE_COOKIE),
        site.study.language or request.headers.get("Accept-Language"),
        site.languages,
    )
    found = site.read_session(request.cookies.get(SESSION_COOKIE))
    if found is not None:  # once assigned to an arm with a language, that one
        arm_language = site.participants.language_of(found[0])
        language = site.languages.get(arm_language or "", language)
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


# -- every request ---------------------------------------------------------------------


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
    read whole within the body's timeout (:class:`tradeoff.web.connection.Timeouts`; 408
    and the connection closed when it is not) before the request counts as in flight;
    requests in flight capped per source and in all (503 with a page that says so). A
    request waiting for its body holds no place: a client that sends it slowly, or never,
    keeps no one else out."""
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
    with site.throttles.requests.holding(source) as let_in:
        if let_in:
            return secured(await _handle(request, handler))
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
