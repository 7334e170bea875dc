"""The coordinator's page of the study web page: ``/coordinator``, read-only.

It opens with the coordinator's key (``tradeoff study coordinator-key``, stored as a salted
hash in ``keys.json``: :mod:`tradeoff.study.keys`), entered on a form; a wrong key waits
out the same growing delay as a wrong access code, and a right one gives a cookie of its
own (signed apart from any participant's, :meth:`tradeoff.web.site.Site.coordinator_value`).

The page shows :meth:`tradeoff.study.status.StudyStatus.to_dict`, the same facts as
``tradeoff study status --json``: counts by state, where people stop, the median time per
question, flags (inconsistent answers, long pauses), the latest activity, who came in by
a panel's link, declined or was screened out, and the pilot sessions apart. The facts are
gathered at most once every :data:`STATUS_SECONDS` per server process, whatever the number
of requests, each gathering reusing the status's caches (:mod:`tradeoff.study.counted`).
The population picture (how the participants' weights spread, the groups of people who
want different models: :mod:`tradeoff.study.population_picture`) is gathered at most once
every :data:`PICTURE_SECONDS`. The page is in English only.
"""

from __future__ import annotations

import time
from functools import partial
from gettext import NullTranslations
from typing import Any

from aiohttp import web

from tradeoff.study.folder import Study
from tradeoff.study.keys import check_key, has_key
from tradeoff.study.status import stamp, study_status
from tradeoff.web.i18n import Language
from tradeoff.web.site import (
    COORDINATOR_COOKIE,
    COORDINATOR_SECONDS,
    CSRF_COOKIE,
    SITE,
    Site,
    Visitor,
    checked_form,
    is_secure,
    redirect,
    set_cookie,
    source_of,
    visitor_of,
)

#: The facts are gathered again after this many seconds (per server process).
STATUS_SECONDS = 5.0
#: The population picture (every complete session replayed) is gathered again at most this
#: often per server process: its work grows with the study, so never once per request.
PICTURE_SECONDS = 300.0
_PICTURES: dict[str, tuple[float, dict[str, Any] | None]] = {}
#: At most this many participants are listed under each flag.
FLAG_LIST = 50
ENGLISH = Language("en", NullTranslations())


def status_facts(site: Site, now: float | None = None) -> dict[str, Any]:
    """The study's status as ``study status --json`` has it, gathered again only when the
    last gathering is older than :data:`STATUS_SECONDS` (one thread gathers; the others
    wait for it and use its result)."""
    now = time.monotonic() if now is None else now
    with site.status_lock:
        cached = site.status_cache
        if cached is not None and now - cached[0] < STATUS_SECONDS:
            return dict(cached[1])
        facts = study_status(site.watched.roster()).to_dict()
        facts["gathered"] = time.strftime("%H:%M:%S UTC", time.gmtime())
        site.status_cache = (now, facts)
        return dict(facts)


def population_facts(site: Site, now: float | None = None) -> dict[str, Any] | None:
    """The population picture (:func:`tradeoff.study.population_picture.picture_of` over
    the sessions ``study report`` reads) as the page shows it, gathered again only when
    the last gathering is older than :data:`PICTURE_SECONDS`; ``None`` with fewer than
    two complete sessions."""
    from tradeoff.study.population_picture import percent, picture_of, shares_sentence
    from tradeoff.study.report import study_sessions

    now = time.monotonic() if now is None else now
    key = str(site.study.path)
    with site.status_lock:
        cached = _PICTURES.get(key)
        if cached is not None and now - cached[0] < PICTURE_SECONDS:
            return cached[1]
        found = study_sessions(site.study.path)
        picture = picture_of(found.sessions, site.study.scenario_path, site.study.populations())
        facts = None
        if picture is not None:
            g = picture.groups
            facts = {
                "gathered": time.strftime("%H:%M UTC", time.gmtime()),
                "sentence": shares_sentence(picture),
                "spread": [
                    {
                        "name": s.name,
                        "low": percent(s.low),
                        "median": percent(s.median),
                        "high": percent(s.high),
                        "asked": f"{s.asked} of {s.of}",
                    }
                    for s in picture.spread()
                ],
                "groups": [
                    {"number": k + 1, "size": n, "sure": s, "pick": p}
                    for k, (n, s, p) in enumerate(
                        zip(g.sizes(), g.sureness(), picture.picks, strict=True)
                    )
                ],
            }
        _PICTURES[key] = (now, facts)
        return facts


def panel_facts(study: Study, facts: dict[str, Any]) -> dict[str, Any] | None:
    """The entries by a panel's link as the page shows them, its cap and quotas always
    given (``None`` and none: no cap, no quota); ``None`` for a study no panel's link
    enters (one by access codes alone has entries by link only from its pilot link,
    which are never counted).

    >>> from types import SimpleNamespace
    >>> panel_facts(SimpleNamespace(panel=None), {"panel": {"entered": 0}}) is None
    True
    """
    summary = facts.get("panel")
    if study.panel is None or not isinstance(summary, dict):
        return None
    return {"cap": None, "quotas": {}, **summary}


def _english(visitor: Visitor) -> Visitor:
    return Visitor(None, visitor.nonce, ENGLISH)


def login_page(
    request: web.Request, site: Site, visitor: Visitor, error: str = "", status: int = 200
) -> web.Response:
    english = _english(visitor)
    response = site.page(
        english,
        "coordinator_key.html",
        "The coordinator's page",
        status,
        error=error,
        has_key=has_key(site.study.path, "coordinator"),
        folder=site.study.path.name,
    )
    set_cookie(response, CSRF_COOKIE, visitor.nonce, is_secure(request, site.trust_proxy))
    return response


async def coordinator_page(request: web.Request) -> web.StreamResponse:
    """The page, or the form for the key."""
    site = request.app[SITE]
    visitor = visitor_of(request)
    if not site.is_coordinator(request.cookies.get(COORDINATOR_COOKIE)):
        return login_page(request, site, visitor)
    facts = await site.work(partial(status_facts, site))
    population = await site.work(partial(population_facts, site))
    rows = facts["rows"]
    flagged = [r["participant"] for r in rows if r["consistency_flagged"]]
    paused = [r["participant"] for r in rows if r["long_pause"]]
    inattentive = [r["participant"] for r in rows if r.get("checks_failed")]
    stops = facts["stopped_at"]
    most = max(stops.values(), default=1)
    return site.page(
        _english(visitor),
        "coordinator.html",
        "The coordinator's page",
        facts=facts,
        panel=panel_facts(site.study, facts),
        flagged=flagged[:FLAG_LIST],
        flagged_more=max(0, len(flagged) - FLAG_LIST),
        paused=paused[:FLAG_LIST],
        paused_more=max(0, len(paused) - FLAG_LIST),
        inattentive=inattentive[:FLAG_LIST],
        inattentive_more=max(0, len(inattentive) - FLAG_LIST),
        stops=list(stops.items()),
        most=most,
        # a state's time ("withdrawn 2026-…T16:43:21+00:00") to the minute, as the
        # last activity beside it and study status show it
        states=[" ".join(stamp(w) for w in r["state"].split(" ")) for r in facts["recent"]],
        refresh=int(STATUS_SECONDS),
        population=population,
    )


async def coordinator_login(request: web.Request) -> web.StreamResponse:
    """Check the key: a right one sets the coordinator's cookie; a wrong one is logged
    and waits out the growing delay of wrong access codes (from the same source, shared
    with the code form)."""
    site = request.app[SITE]
    visitor = visitor_of(request)
    form = await checked_form(request, visitor)
    if form is None:
        return login_page(request, site, visitor, "The form had expired. Enter the key again.")
    source = source_of(request, site.trust_proxy)
    with site.throttles.checked.holding(source) as let_in:
        if not let_in:
            return login_page(request, site, visitor, "A key is being checked already; wait.", 429)
        key = form.get("key", "").strip()[:64]
        right = await site.work(partial(check_key, site.study.path, "coordinator", key))
        if not right:
            await site.wait_out_wrong(source)
            return login_page(
                request, site, visitor, "That key does not open the coordinator's page.", 403
            )
    response = redirect("coordinator")
    set_cookie(
        response,
        COORDINATOR_COOKIE,
        site.coordinator_value(),
        is_secure(request, site.trust_proxy),
        COORDINATOR_SECONDS,
    )
    return response
