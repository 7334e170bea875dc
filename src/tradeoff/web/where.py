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
    or the questions (a session is started here when the study asks no consent)."""
    site = request.app[SITE]
    pid = visitor.participant
    assert pid is not None
    if await site.work(partial(site.watched.is_withdrawn, pid)):
        return withdrawn_page(site, visitor, await site.work(partial(site.watched.entered, pid)))
    path = await site.work(partial(site.participants.open_session, pid))
    if path is not None:
        response = redirect("question")
        # The language they go on in: the one chosen on the switch now, else, with none
        # kept, their session's (back on another device with a browser in another one).
        chosen = request.query.get(LANGUAGE_PARAMETER)
        if chosen is None and request.cookies.get(LANGUAGE_COOKIE) is None:
            chosen = await site.work(partial(_shown_in, path))
        if chosen in site.languages and site.participants.language_of(pid) is None:
            secure = is_secure(request, site.trust_proxy)
            set_cookie(response, LANGUAGE_COOKIE, str(chosen), secure, SESSION_SECONDS)
        return response
    if await site.work(partial(site.participants.has_finished, pid)):
        return redirect("done")
    if site.study.consent_file is not None:
        return redirect("consent")
    lapsed = await place_lapsed(site, visitor, pid)
    if lapsed is not None:
        return lapsed
    entry = await site.work(partial(entry_record, site, pid))
    await site.work(partial(site.participants.start, pid, None, visitor.language.tag, entry))
    return redirect("question")


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
