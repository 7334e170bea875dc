"""The information and consent page of the study web page (``/consent``): the study's
consent text, then agreeing (a session starts, the consent its first line) or declining
(nothing recorded; a panel participant's decline noted for the panel and ended by the
panel's ending).
"""

from __future__ import annotations

from functools import partial

from aiohttp import web

from tradeoff.record.records import ConsentRecord, now
from tradeoff.study.entries import record_decline
from tradeoff.web.endings import ending, link_values, withdrawn_page
from tradeoff.web.site import (
    SESSION_COOKIE,
    SITE,
    checked_form,
    expired,
    is_secure,
    redirect,
    set_cookie,
)
from tradeoff.web.where import entry_record, participant, place_lapsed


async def consent(request: web.Request) -> web.StreamResponse:
    """``GET /consent``: the information and the consent form."""
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
    """``POST /consent``: agreeing starts the session; declining ends the visit."""
    site = request.app[SITE]
    visitor = participant(request)
    if visitor is None or visitor.participant is None:
        return redirect("./")
    form = await checked_form(request, visitor)
    if form is None:
        return expired(site, visitor)
    if await site.work(partial(site.watched.is_withdrawn, visitor.participant)):
        return withdrawn_page(site, visitor)
    if form.get("choice") != "agree":
        _ = visitor.language.gettext
        entered = await site.work(partial(site.watched.entered, visitor.participant))
        if entered is not None and site.study.panel is not None and not entered.pilot:
            await site.work(partial(record_decline, site.watched.entries, visitor.participant))
            response = ending(site, visitor, "declined", link_values(site, entered))
            await site.work(partial(site.watched.revoke, visitor.nonce))
            set_cookie(response, SESSION_COOKIE, "", is_secure(request, site.trust_proxy), 0)
            return response
        response = site.message(
            visitor,
            _("Thank you"),
            [
                _("You chose not to take part. Nothing was recorded."),
                _("If you change your mind, open the pilot link again.")
                if entered is not None and entered.pilot
                else _("If you change your mind, open this page again and enter your code."),
            ],
        )
        await site.work(partial(site.watched.revoke, visitor.nonce))
        set_cookie(response, SESSION_COOKIE, "", is_secure(request, site.trust_proxy), 0)
        return response
    if site.study.consent_version is None:
        return redirect("./")
    lapsed = await place_lapsed(site, visitor, visitor.participant)
    if lapsed is not None:
        return lapsed
    record = ConsentRecord(
        type="consent",
        version=site.study.consent_version,
        text_sha256=site.study.files[site.study.consent_file or ""],
        language=visitor.language.tag,
        at=now(),
    )
    entry = await site.work(partial(entry_record, site, visitor.participant))
    await site.work(
        partial(site.participants.start, visitor.participant, record, visitor.language.tag, entry)
    )
    return redirect("question")
