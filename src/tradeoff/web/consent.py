"""The information and consent page of the study web page (``/consent``): the study's
consent text (for someone who came in by a link, after the study's description and
expected length, which the code page shows everyone else), then agreeing (a session
starts, the consent its first line) or declining (only the decline is noted, no answer: a
panel participant's for the panel, ended by the panel's ending; one with an access code's
for the coordinator, :mod:`tradeoff.study.declines`; a pilot's not at all).

When the study has a newer consent text than the one a participant agreed to
(:mod:`tradeoff.study.consent_versions`), the page shows the new text, in their language
when it has one, before their next question: agreeing adds a consent line to their
session; declining leads to the withdraw page, which says what withdrawing means and
asks them to confirm it (or to go back; closing the page leaves everything as it is, and
the new text is shown again when they come back).
"""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path

from aiohttp import web

from tradeoff.record.marks import Marks
from tradeoff.record.recorder import Recorder
from tradeoff.record.records import ConsentRecord, now
from tradeoff.study.declines import record_code_decline
from tradeoff.study.entries import record_decline
from tradeoff.web.checks import consent_due, consent_text, consent_texts
from tradeoff.web.code_entry import study_length
from tradeoff.web.endings import ending, link_values, withdrawn_page
from tradeoff.web.i18n import switch
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
from tradeoff.web.where import entry_record, participant, place_lapsed


async def consent(request: web.Request) -> web.StreamResponse:
    """``GET /consent``: the information and the consent form."""
    site = request.app[SITE]
    visitor = participant(request)
    if visitor is None:
        return redirect("./")
    if site.consent_html is None:
        return redirect("./")
    pid = visitor.participant or ""
    again = False
    path = await site.work(partial(site.participants.open_session, pid))
    if path is not None:
        marks = await site.work(partial(site.participants.look_marked, pid, path, _marks))
        if not consent_due(consent_texts(site.study), marks):
            return redirect("./")
        again = True
    shown = await site.work(partial(consent_text, site.study, visitor.language.tag))
    if shown is None:
        return redirect("./")
    # someone in by a link saw no code page: the study's description and length first
    by_link = not again and await site.work(partial(site.watched.entered, pid)) is not None
    _ = visitor.language.gettext
    return site.page(
        visitor,
        "consent.html",
        _("Information and consent"),
        version=shown[0],
        consent_html=shown[2],
        again=again,
        description=site.description_html if by_link else None,
        expect=study_length(site, visitor) if by_link else None,
        # in by a link, they saw no code page and its switch: it is here
        languages=switch(visitor.language, site.languages) if by_link else [],
    )


def _marks(engine: object, marks: Marks) -> Marks:
    return marks


def _note_decline(site: Site, participant: str) -> bool:
    """Note that ``participant``, in by their access code, declined consent
    (:func:`~tradeoff.study.declines.record_code_decline`); ``False`` when it could not be
    written (the server's log says why; the page then says nothing was recorded)."""
    try:
        record_code_decline(site.watched.entries, participant)
    except OSError as exc:
        print(f"entries.jsonl not written: {exc}", file=sys.stderr)
        return False
    return True


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
        entered = await site.work(partial(site.watched.entered, visitor.participant))
        return withdrawn_page(site, visitor, entered)
    pid = visitor.participant
    path = await site.work(partial(site.participants.open_session, pid))
    if path is not None:  # consent asked again, to a new text
        return await _again(site, visitor, pid, path, form.get("choice") == "agree")
    if form.get("choice") != "agree":
        _ = visitor.language.gettext
        entered = await site.work(partial(site.watched.entered, visitor.participant))
        if entered is not None and site.study.panel is not None and not entered.pilot:
            await site.work(partial(record_decline, site.watched.entries, visitor.participant))
            response = ending(site, visitor, "declined", link_values(site, entered))
            await site.work(partial(site.watched.revoke, visitor.nonce))
            set_cookie(response, SESSION_COOKIE, "", is_secure(request, site.trust_proxy), 0)
            return response
        pilot = entered is not None and entered.pilot
        noted = not pilot and await site.work(partial(_note_decline, site, pid))
        response = site.message(
            visitor,
            _("Thank you"),
            [
                _(
                    "You chose not to take part. Only that choice was noted, so that the "
                    "study's coordinator knows; no answer was recorded."
                )
                if noted
                else _("You chose not to take part. Nothing was recorded."),
                _("If you change your mind, open the pilot link again.")
                if pilot
                else _("If you change your mind, open this page again and enter your code."),
            ],
        )
        await site.work(partial(site.watched.revoke, visitor.nonce))
        set_cookie(response, SESSION_COOKIE, "", is_secure(request, site.trust_proxy), 0)
        return response
    shown = await site.work(partial(consent_text, site.study, visitor.language.tag))
    if shown is None:
        return redirect("./")
    lapsed = await place_lapsed(site, visitor, visitor.participant)
    if lapsed is not None:
        return lapsed
    record = ConsentRecord(
        type="consent",
        version=shown[0],
        text_sha256=shown[1],
        language=shown[3],  # the text's own, which may not be the page's
        at=now(),
    )
    entry = await site.work(partial(entry_record, site, visitor.participant))
    await site.work(
        partial(site.participants.start, visitor.participant, record, visitor.language.tag, entry)
    )
    return redirect("question")


async def _again(
    site: Site, visitor: Visitor, pid: str, path: Path, agree: bool
) -> web.StreamResponse:
    """Consent asked again: agreeing writes it into the open session (then on to the
    next question); declining leads to the withdraw page, to confirm or go back."""
    if not agree:
        return redirect("withdraw")
    shown = await site.work(partial(consent_text, site.study, visitor.language.tag))
    if shown is None:
        return redirect("./")
    record = ConsentRecord(
        type="consent",
        version=shown[0],
        text_sha256=shown[1],
        language=shown[3],  # the text's own, which may not be the page's
        at=now(),
    )

    def write(rec: Recorder) -> None:
        if shown[0] not in rec.marks.consented:  # a second submit writes nothing
            rec.consent_again(record)

    await site.work(partial(site.participants.run, pid, path, write))
    return redirect("question")
