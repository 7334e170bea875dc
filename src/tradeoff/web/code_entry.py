"""The access code, the first way into the study web page: ``/`` (the code page, or the
page of where a participant already signed in is) and ``POST /code``. A right code gives
the participant's session cookie (:func:`tradeoff.web.where.signed_in`); a wrong one is
logged and waits out a delay that grows with the source's recent wrong codes
(:meth:`tradeoff.web.site.Site.wait_out_wrong`), and a source that guesses may have only a
few codes checked at once
(:class:`tradeoff.web.limiter.PerSource`, :data:`tradeoff.web.limiter.CODES_AT_ONCE`).
"""

from __future__ import annotations

import sys
from functools import partial

from aiohttp import web

from tradeoff.errors import InputError
from tradeoff.study.arms import planned_length
from tradeoff.study.folder import load_study
from tradeoff.web.i18n import LANGUAGE_COOKIE, LANGUAGE_PARAMETER, N_, switch
from tradeoff.web.site import (
    CSRF_COOKIE,
    SESSION_COOKIE,
    SESSION_SECONDS,
    SITE,
    Site,
    Visitor,
    checked_form,
    is_secure,
    set_cookie,
    source_of,
    visitor_of,
)
from tradeoff.web.where import signed_in, where_next

WRONG_CODE = N_(
    "That code does not open a session. Check it and try again (capitals, spaces and "
    "dashes do not matter)."
)
OPEN_ELSEWHERE = N_(
    "Your session is open in another window or tab, or being saved there. Close that "
    "window, then enter your code here again."
)


async def index(request: web.Request) -> web.StreamResponse:
    site = request.app[SITE]
    visitor = visitor_of(request)
    if visitor.participant is not None:
        return await where_next(request, visitor)
    if site.replaced_pilot(request.cookies.get(SESSION_COOKIE)):
        _ = visitor.language.gettext
        return site.message(
            visitor,
            _("This pilot link was replaced"),
            [
                _(
                    "A newer pilot link closed this pilot session. Ask the study's "
                    "coordinator for the new pilot link."
                )
            ],
            403,
        )
    if site.study.panel is not None and not any(site.study.participants.values()):
        # A study entered by its panel's link alone: no code to ask for, no code page.
        _ = visitor.language.gettext
        return site.message(
            visitor,
            _("Open your link again"),
            [
                _(
                    "This study is entered by the link your panel gave you. To begin, or "
                    "to go on where you stopped, open that link again."
                )
            ],
        )
    return code_page(request, site, visitor)


def study_length(site: Site, visitor: Visitor) -> str:
    """How long the study takes, in the visitor's language: the number of questions the
    scenario's strategy expects, as the code page says it (and the consent page, to those
    who came in by a link). A study with arms says it of the arm that asks the most (it is
    said before anyone is assigned to one), "at most" only when every arm stops once the
    answers settle the pick."""
    _ = visitor.language.gettext
    s = site.participants.loaded.scenario
    plans = [(loaded.scenario, spec) for loaded, spec in site.participants.arms.values()]
    expected, decides = planned_length(plans or [(s, None)])
    return (
        (
            _(
                "At most %(n)s questions (fewer once your answers settle which option "
                "suits you), a few minutes. You can stop and come back later."
            )
            if s.aspects_only
            else _(
                "At most %(n)s questions (fewer once your answers settle which candidate "
                "model suits you), a few minutes. You can stop and come back later."
            )
        )
        if decides
        else _("About %(n)s questions, a few minutes. You can stop and come back later.")
    ) % {"n": expected}


def code_page(request: web.Request, site: Site, visitor: Visitor, error: str = "") -> web.Response:
    _ = visitor.language.gettext
    response = site.page(
        visitor,
        "code.html",
        _("Enter your access code"),
        200,
        error=error,
        description=site.description_html,
        expect=study_length(site, visitor),
        languages=switch(visitor.language, site.languages),
    )
    set_cookie(response, CSRF_COOKIE, visitor.nonce, is_secure(request, site.trust_proxy))
    if request.query.get(LANGUAGE_PARAMETER) == visitor.language.tag:  # chosen on the switch
        secure = is_secure(request, site.trust_proxy)
        set_cookie(response, LANGUAGE_COOKIE, visitor.language.tag, secure, SESSION_SECONDS)
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
    checked = site.throttles.checked
    guessing = checked.full(source) and (
        (await site.work(partial(site.watched.attempts.counts, source)))[0] > 0
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
    with checked.holding(source, past_each=True):
        code = form.get("code", "")[:64]
        participant = await site.work(partial(site.study.participant_for, code)) if code else None
        if participant is None:
            await site.wait_out_wrong(source)
            return code_page(request, site, visitor, visitor.language.gettext(WRONG_CODE))
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
    return signed_in(request, site, participant)
