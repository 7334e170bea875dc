"""The pilot link, the third way into the study web page: ``/pilot?key=…`` (``tradeoff
study pilot-link``). Each visit starts a new pilot participant, marked so in their
session's entry and never counted.
"""

from __future__ import annotations

import secrets
from functools import partial

from aiohttp import web

from tradeoff.study.entries import new_pilot
from tradeoff.study.keys import check_key
from tradeoff.web.site import SITE, redirect, source_of, visitor_of
from tradeoff.web.where import signed_in


async def pilot_entry(request: web.Request) -> web.StreamResponse:
    """``/pilot?key=…``: the pilot link (``tradeoff study pilot-link``). Each visit starts
    a new pilot participant, marked so in their session's entry and never counted; a
    browser in the middle of a pilot session continues it. A wrong key counts as a wrong
    access code (the same growing delay)."""
    site = request.app[SITE]
    visitor = visitor_of(request)
    if visitor.participant is not None and visitor.participant in site.watched.roster().pilots:
        finished = await site.work(partial(site.participants.has_finished, visitor.participant))
        if not finished:
            return redirect("./")
    key = request.query.get("key", "")[:64]
    if not await site.work(partial(check_key, site.study.path, "pilot", key)):
        await site.wait_out_wrong(source_of(request, site.trust_proxy))
        _ = visitor.language.gettext
        return site.message(
            visitor,
            _("This link does not open the study"),
            [_("Ask the study's coordinator for a new pilot link.")],
            403,
        )
    pid = f"pilot-{secrets.token_hex(6)}"
    if not await site.work(partial(new_pilot, site.watched.entries, pid)):
        _ = visitor.language.gettext
        return site.message(
            visitor,
            _("Too many pilot sessions"),
            [_("Remove the pilot sessions (tradeoff study remove-pilots), then try again.")],
            503,
        )
    return signed_in(request, site, pid)
