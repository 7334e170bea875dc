"""Participants erased on request (``tradeoff study erase``, :mod:`tradeoff.study.erase`)
on the study web page: a running server refuses them at once, in every server process, with
no restart, and shows them one page (:func:`erased_page`, 410 Gone) saying that their
answers were erased at their request, on which day, that nothing of theirs is kept, and
that they cannot take part again.

A server keeps the study as it was when it started (the access codes' hashes, the
allow-list), so the erasure's changes to ``study.json`` and ``panel-ids.txt`` do not reach
it; what does is ``erasures.jsonl``, which each process reads as it changes
(:class:`tradeoff.study.erasures.ErasureLog`, on :class:`tradeoff.web.watched.Watched`:
one ``stat`` a request). Each way in asks it:

* a right access code, and every way in that ends in a session cookie, end in
  :func:`tradeoff.web.where.signed_in`, which asks :func:`erased_refusal` first;
* a panel's link asks before anything is written (:mod:`tradeoff.web.panel_entry`): the
  panel id's participant id (:meth:`~tradeoff.study.panel.Panel.participant_of`) is the
  one the tombstone names, with an allow-list or without. Nothing of the visit is written
  to ``entries.jsonl`` (not even a screen-out: that would put their panel id back);
* a session cookie they already hold is refused by :func:`refuse_erased` (a middleware)
  before any page runs, so a participant in the middle of a session whose data was erased
  never writes again, nor starts a session file that would make their folder again; the
  cookie is dropped. The same middleware drops the engine a process keeps in memory of
  anyone erased since its last request, whether or not they come back.

A request already past these checks when the erasure runs cannot make their folder
again either: starting a session checks again under the study's lock, which the erasure
holds throughout (:meth:`tradeoff.web.held.Participants.start`; the page is then the
erased page too). An answer being written at that moment goes to the file being removed
with its folder; the participant's next request is refused.

The pilot link starts a new pilot participant at every visit (the coordinator's key, never
a participant's): an erased pilot's cookie no longer verifies (it was signed with its
place among the pilots, which the erasure removed), and the link itself is not refused.

Under open enrolment a panel id whose participant was erased is refused too, though the
study would have room: their participant id is fixed by their panel id, so taking part
again would write that panel id into ``entries.jsonl`` again and fill a folder under the
id whose tombstone says nothing of theirs is kept; every reader would show someone erased
and someone taking part at once; and a second take on the same questions is not the first
take of a new participant a between-subject study counts on. Someone who wants to take
part again after all can be let in by the coordinator under another id (a new access
code, or another study).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime

from aiohttp import web
from babel.core import UnknownLocaleError
from babel.dates import format_date

from tradeoff.web.connection import log_request
from tradeoff.web.held import Erased
from tradeoff.web.site import (
    SESSION_COOKIE,
    SITE,
    Site,
    Visitor,
    is_secure,
    set_cookie,
    visitor_of,
)

#: Paths a held session cookie of someone erased does not stop: the stylesheet, the
#: coordinator's page, the pilot link (each visit a new pilot participant).
NOT_GUARDED = frozenset({"/static/style.css", "/coordinator", "/pilot"})


def spoken_date(when: str, tag: str) -> str | None:
    """The day of a tombstone's ``time`` as the language ``tag`` writes a date (``None``
    when it is not a time).

    >>> when = "2026-11-27T10:00:00+00:00"
    >>> spoken_date(when, "en"), spoken_date(when, "de")
    ('November 27, 2026', '27. November 2026')
    >>> spoken_date("", "en") is None
    True
    """
    try:
        day = datetime.fromisoformat(when).date()
    except ValueError:
        return None
    try:
        return format_date(day, format="long", locale=tag)
    except (UnknownLocaleError, ValueError):
        return day.isoformat()


def erased_page(request: web.Request, site: Site, visitor: Visitor, when: str) -> web.Response:
    """What someone erased sees, whichever way they come (410 Gone): their answers were
    erased at their request on the day of ``when``, nothing of theirs is kept, they cannot
    take part again. No participant id or panel id is shown; their session cookie, if
    they hold one, is dropped."""
    _ = visitor.language.gettext
    day = spoken_date(when, visitor.language.tag)
    said = (
        _("Your answers in this study were erased at your request.")
        if day is None
        else _("Your answers in this study were erased at your request on %(date)s.")
        % {"date": day}
    )
    response = site.page(visitor, "erased.html", _("Your answers were erased"), 410, erased=said)
    if SESSION_COOKIE in request.cookies:
        set_cookie(response, SESSION_COOKIE, "", is_secure(request, site.trust_proxy), 0)
    return response


def erased_refusal(request: web.Request, participant: str) -> web.Response | None:
    """The erased page when ``participant`` was erased on request (``None``: they were
    not); asked by every way in before anything is written, after :func:`refuse_erased`
    looked at ``erasures.jsonl`` for this request (so this looks at no file)."""
    site = request.app[SITE]
    when = site.watched.erasures.known_on(participant)
    if when is None:
        return None
    log_request(request, "refused: an erased participant (410)")
    return erased_page(request, site, visitor_of(request), when)


@web.middleware
async def refuse_erased(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    """A request with a session cookie of someone erased gets the erased page, whatever
    page it asks for (but :data:`NOT_GUARDED`): the cookie's signature is checked (a
    cookie made up with someone's id learns nothing), not whether the participant is
    still in the study (a panel participant's entry was erased with them). Whoever was
    erased since the last request is first dropped from what this process keeps in memory
    (their engine: :meth:`tradeoff.web.held.Participants.forget`); that is the request's one
    look at ``erasures.jsonl`` (one ``stat`` when nothing changed)."""
    site = request.app[SITE]
    for participant in site.watched.erasures.newly_erased():
        site.participants.forget(participant)
    value = request.cookies.get(SESSION_COOKIE)
    if value and request.path not in NOT_GUARDED:
        when = site.watched.erasures.known_on(value.split(":", 1)[0])
        if when is not None and site.signed_session(value) is not None:
            log_request(request, "refused: a session cookie of an erased participant (410)")
            return erased_page(request, site, visitor_of(request), when)
    try:
        return await handler(request)
    except Erased as exc:  # erased while this request was under way
        log_request(request, "refused: erased while a session was being started (410)")
        return erased_page(request, site, visitor_of(request), exc.when)
