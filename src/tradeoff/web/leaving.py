"""Leaving the study web page before the end: "save and come back later" (``/pause``) and
withdrawing (``/withdraw``, a page that says what withdrawing means, then a confirmation).

Each says what is true for the way the participant came in (:func:`way_in`): with an
access code, the code opens the session again; by a panel's link, only that link does (a
panel participant has no code); by the pilot link, each visit starts a new pilot session.
Withdrawing on the page writes the same record as ``tradeoff study withdraw``
(:func:`tradeoff.study.withdrawals.withdraw`): from then on status, export and report
leave the participant's answers out, their session files are kept, and a place they held
under an open enrolment's cap or quota is free for someone else.
"""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path
from typing import Literal

from aiohttp import web

from tradeoff.errors import InputError
from tradeoff.record.recorder import Recorder
from tradeoff.study.withdrawals import withdraw
from tradeoff.web.endings import panel_withdrawal, withdrawn_page
from tradeoff.web.i18n import N_
from tradeoff.web.questions import with_session
from tradeoff.web.site import (
    SESSION_COOKIE,
    SITE,
    Site,
    Visitor,
    checked_form,
    expired,
    is_secure,
    redirect,
    set_cookie,
)
from tradeoff.web.where import participant

Way = Literal["code", "panel", "pilot"]

#: How to go on later, for each way in.
RESUME: dict[Way, str] = {
    "code": N_(
        "To go on later, open this page again and enter your access code: you will "
        "continue where you left off."
    ),
    "panel": N_(
        "To go on later, open the study again from the panel, by the same link that brought "
        "you here: you will continue where you left off. You need no access code."
    ),
    "pilot": N_(
        "This is a pilot session: the pilot link starts a new pilot session at every visit, "
        "so this one cannot be continued. Its answers are kept for the study's coordinator."
    ),
}

#: What withdrawing means, said before the participant confirms it.
WITHDRAW_MEANS = (
    N_(
        "If you withdraw, nothing more is recorded, and the study's results leave out every "
        "answer you gave: they are not counted, exported or reported."
    ),
    N_(
        "Your answers stay in the study's files, marked as withdrawn, so that the study can "
        "show your choice was followed. To have them deleted too, ask the study's "
        "coordinator."
    ),
)
#: What withdrawing means for the way back in.
WITHDRAW_CLOSES: dict[Way, str] = {
    "code": N_("Your access code will no longer open the study."),
    "panel": N_("The panel's link will no longer open the study for you."),
    "pilot": N_("This pilot session will no longer open."),
}


def way_in(site: Site, participant_id: str) -> Way:
    """How ``participant_id`` came in: by access code, a panel's link or the pilot link."""
    entered = site.watched.entered(participant_id)
    if entered is None:
        return "code"
    return "pilot" if entered.pilot else "panel"


def _closed(request: web.Request, site: Site, response: web.Response, nonce: str) -> None:
    """The browser's session cookie dropped (and revoked for every server process)."""
    site.watched.revoke(nonce)
    set_cookie(response, SESSION_COOKIE, "", is_secure(request, site.trust_proxy), 0)


async def pause(request: web.Request) -> web.StreamResponse:
    """``POST /pause``: a note in the session, then a page saying how to go on later."""

    async def act(site: Site, visitor: Visitor, path: Path) -> web.StreamResponse:
        assert visitor.participant is not None
        form = await checked_form(request, visitor)
        if form is None:
            return expired(site, visitor)

        def note(rec: Recorder) -> None:
            rec.note("paused")

        await site.work(partial(site.participants.run, visitor.participant, path, note))
        way = await site.work(partial(way_in, site, visitor.participant))
        _ = visitor.language.gettext
        response = site.message(
            visitor, _("Saved"), [_("Every answer you gave is saved."), _(RESUME[way])]
        )
        await site.work(partial(_closed, request, site, response, visitor.nonce))
        return response

    return await with_session(request, act)


async def withdraw_page(request: web.Request) -> web.StreamResponse:
    """``GET /withdraw``: what withdrawing means, and the button that confirms it."""
    site = request.app[SITE]
    visitor = participant(request)
    if visitor is None or visitor.participant is None:
        return redirect("./")
    if await site.work(partial(site.watched.is_withdrawn, visitor.participant)):
        entered = await site.work(partial(site.watched.entered, visitor.participant))
        return withdrawn_page(site, visitor, entered)
    way = await site.work(partial(way_in, site, visitor.participant))
    _ = visitor.language.gettext
    heading = _("Withdraw from the study?")
    return site.page(
        visitor,
        "withdraw.html",
        heading,
        heading=heading,
        paragraphs=[*(_(p) for p in WITHDRAW_MEANS), _(WITHDRAW_CLOSES[way])],
    )


async def confirm_withdraw(request: web.Request) -> web.StreamResponse:
    """``POST /withdraw`` with ``choice=withdraw``: the withdrawal recorded as ``study
    withdraw`` records it, the session cookie ended, and the page that says so (with the
    panel's code or link for a panel participant, as after a decline)."""
    site = request.app[SITE]
    visitor = participant(request)
    if visitor is None or visitor.participant is None:
        return redirect("./")
    form = await checked_form(request, visitor)
    if form is None:
        return expired(site, visitor)
    pid = visitor.participant
    _ = visitor.language.gettext
    if form.get("choice") != "withdraw":
        return redirect("./")
    if not await site.work(partial(site.watched.is_withdrawn, pid)):
        try:
            await site.work(lambda: withdraw(site.watched.roster(), pid))
        except InputError as exc:
            print(exc.message(), file=sys.stderr)
            return site.message(
                visitor,
                _("Your withdrawal could not be recorded"),
                [
                    _(
                        "Please try again in a minute; if it happens again, tell the study's "
                        "coordinator, who can record it for you."
                    )
                ],
                503,
                ("withdraw", _("Try again")),
            )
    heading = _("You have withdrawn from this study")
    paragraphs = [
        _(
            "Your answers are left out of the study's results, and nothing more is recorded. "
            "Thank you for your time."
        )
    ]
    entered = await site.work(partial(site.watched.entered, pid))
    panel = site.study.panel
    if entered is not None and not entered.pilot and panel is not None:
        response = panel_withdrawal(site, visitor, entered, heading, paragraphs)
    else:
        response = site.message(visitor, heading, paragraphs)
    await site.work(partial(_closed, request, site, response, visitor.nonce))
    return response


def add_leaving_routes(app: web.Application) -> None:
    """The routes of this module on the study's application."""
    app.router.add_post("/pause", pause)
    app.router.add_get("/withdraw", withdraw_page)
    app.router.add_post("/withdraw", confirm_withdraw)
