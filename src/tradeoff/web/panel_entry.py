"""A panel's link, the second way into the study web page: ``/panel?<id param>=…``. A
panel id let in before comes back to its own session; a new one is let in when the
study's allow-list names it, or the cap and its quota group have room
(:func:`tradeoff.study.entries.admit`, counted under the study's lock); else it is
screened out with the panel's ending (:func:`tradeoff.web.endings.ending`).
"""

from __future__ import annotations

import sys
from functools import partial

from aiohttp import web

from tradeoff.study.entries import admit
from tradeoff.web.connection import log_request
from tradeoff.web.endings import ending
from tradeoff.web.erased import erased_refusal
from tradeoff.web.site import SITE, Site, Visitor, source_of, visitor_of
from tradeoff.web.where import signed_in


def link_refused(site: Site, visitor: Visitor) -> web.Response:
    _ = visitor.language.gettext
    return site.message(
        visitor,
        _("This link is not complete"),
        [
            _(
                "The link that brought you here lacks your panel id, or it is not one. Please "
                "go back to the panel and open the study from there."
            )
        ],
        400,
    )


async def panel_entry(request: web.Request) -> web.StreamResponse:
    """``/panel?<id param>=…``: a panel's link. A panel id let in before comes back to its
    own session; a new one is let in when the allow-list names it, or the cap and its quota
    group have room (counted under the study's lock); else it is screened out."""
    site = request.app[SITE]
    visitor = visitor_of(request)
    panel = site.study.panel
    if panel is None:
        raise web.HTTPNotFound()
    query = {k: v for k, v in request.query.items() if k in (panel.id_param, *panel.keep_params)}
    read = panel.read_link(query)
    if isinstance(read, str):
        log_request(request, f"panel link refused: {read}")
        return link_refused(site, visitor)
    panel_id, params = read
    refusal = erased_refusal(request, panel.participant_of(panel_id))  # before any write
    if refusal is not None:
        return refusal
    source = source_of(request, site.trust_proxy)
    gone = await site.work(site.watched.gone)
    try:
        admitted = await site.work(
            partial(
                admit,
                panel,
                site.watched.entries,
                panel_id,
                params,
                frozenset(site.study.panel_ids),
                source,
                gone=gone,
            )
        )
    except OSError as exc:
        print(f"entries.jsonl not written: {exc}", file=sys.stderr)
        _ = visitor.language.gettext
        return site.message(
            visitor,
            _("The study cannot start"),
            [_("Please try again in a minute; if it happens again, tell the panel.")],
            503,
        )
    if admitted.reason == "too many from one address":
        log_request(request, "panel link refused: too many new entries from one address")
        _ = visitor.language.gettext
        return site.message(
            visitor,
            _("Too many new entries from your address"),
            [_("Please try again later, or ask the panel for help.")],
            429,
        )
    if admitted.participant is None:
        return ending(
            site, visitor, "screened", {panel.id_param: panel_id, **params}, admitted.reason
        )
    return signed_in(request, site, admitted.participant)
