"""Where a participant of the study web page is, and sending them there: withdrawn,
finished, at the consent, or at the questions (a session is started here when the study
asks no consent); the session cookie given by every way in (:func:`signed_in`).

The ways in (:mod:`tradeoff.web.code_entry`, :mod:`tradeoff.web.panel_entry`,
:mod:`tradeoff.web.pilot_entry`) end here, and so does every page that finds the
participant elsewhere than it expected.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from aiohttp import web

from tradeoff.errors import InputError
from tradeoff.record.log import read_session
from tradeoff.record.records import EntryRecord, now
from tradeoff.study.entries import take_place
from tradeoff.study.export_rows import session_language
from tradeoff.web.endings import ending, link_values, withdrawn_page
from tradeoff.web.erased import erased_refusal
from tradeoff.web.i18n import LANGUAGE_COOKIE, LANGUAGE_PARAMETER
from tradeoff.web.site import (
    SESSION_COOKIE,
    SESSION_SECONDS,
    SITE,
    Site,
    Visitor,
    is_secure,
    redirect,
    set_cookie,
    visitor_of,
)


def participant(request: web.Request) -> Visitor | None:
    """The request's visitor when they hold a participant's session cookie."""
    visitor = visitor_of(request)
    return visitor if visitor.participant is not None else None


def signed_in(request: web.Request, site: Site, participant: str) -> web.Response:
    """On to where ``participant`` is (``./``), holding their new signed session cookie:
    after a right code, a panel's link or the pilot link; someone erased on request gets
    the erased page instead (:mod:`tradeoff.web.erased`)."""
    refusal = erased_refusal(request, participant)
    if refusal is not None:
        return refusal
    response = redirect("./")
    set_cookie(
        response,
        SESSION_COOKIE,
        site.session_value(participant),
        is_secure(request, site.trust_proxy),
        SESSION_SECONDS,
    )
    return response


async def where_next(request: web.Request, visitor: Visitor) -> web.StreamResponse:
    """Send a participant to the page of where they are: withdrawn, finished, consent,
    or the questions (a session is started here when the study asks no consent). A
    language chosen on the switch (``?lang=``) is kept from here on; with none kept, an
    open session goes on in its own (back on another device, a browser in another)."""
    response, path = await _where(request, visitor)
    site = request.app[SITE]
    chosen = request.query.get(LANGUAGE_PARAMETER)
    if chosen is None and path is not None and request.cookies.get(LANGUAGE_COOKIE) is None:
        chosen = await site.work(partial(_shown_in, path))
    pid = visitor.participant
    if chosen in site.languages and pid is not None and site.participants.language_of(pid) is None:
        secure = is_secure(request, site.trust_proxy)
        set_cookie(response, LANGUAGE_COOKIE, str(chosen), secure, SESSION_SECONDS)
    return response


async def _where(request: web.Request, visitor: Visitor) -> tuple[web.StreamResponse, Path | None]:
    """:func:`where_next`'s page, and the open session's file when it goes to it."""
    site = request.app[SITE]
    pid = visitor.participant
    assert pid is not None
    if await site.work(partial(site.watched.is_withdrawn, pid)):
        entered = await site.work(partial(site.watched.entered, pid))
        return withdrawn_page(site, visitor, entered), None
    path = await site.work(partial(site.participants.open_session, pid))
    if path is not None:
        return redirect("question"), path
    if await site.work(partial(site.participants.has_finished, pid)):
        return redirect("done"), None
    if site.study.consent_file is not None:
        return redirect("consent"), None
    lapsed = await place_lapsed(site, visitor, pid)
    if lapsed is not None:
        return lapsed, None
    entry = await site.work(partial(entry_record, site, pid))
    await site.work(partial(site.participants.start, pid, None, visitor.language.tag, entry))
    return redirect("question"), None


async def place_lapsed(site: Site, visitor: Visitor, pid: str) -> web.Response | None:
    """The screen-out page when ``pid``, let in by a panel's link, no longer has a place
    to start in (theirs lapsed unused and the cap or their quota filled meanwhile:
    :func:`~tradeoff.study.entries.take_place`); ``None`` when their place is taken up."""
    entered = await site.work(partial(site.watched.entered, pid))
    panel = site.study.panel
    if entered is None or entered.pilot or panel is None:
        return None
    gone = await site.work(site.watched.gone)
    reason = await site.work(partial(take_place, panel, site.watched.entries, pid, gone))
    if reason is None:
        return None
    return ending(site, visitor, "screened", link_values(site, entered), reason)


def entry_record(site: Site, participant: str) -> EntryRecord:
    """How ``participant`` came in, for their session file: by a panel's or an open link
    (as the study's entries record it), else by access code."""
    entered = site.watched.entered(participant)
    if entered is None:
        return EntryRecord(type="entry", via="code", at=now())
    return EntryRecord(
        type="entry",
        via="panel" if entered.panel_id is not None else "open",
        panel_id=entered.panel_id,
        params=entered.params,
        pilot=entered.pilot,
        at=now(),
    )


def _shown_in(path: Path) -> str | None:
    """The language a session was shown in (:func:`~tradeoff.study.export_rows.session_language`),
    or ``None`` when its file cannot be read now (the page then follows the browser)."""
    try:
        return session_language(read_session(path))
    except (InputError, OSError):
        return None
