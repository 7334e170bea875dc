"""The study web page as one application: the participant's flow wired from its parts.

Code entry (:mod:`tradeoff.web.code_entry`), or a panel's link
(:mod:`tradeoff.web.panel_entry`) or the pilot link (:mod:`tradeoff.web.pilot_entry`) →
information and consent (:mod:`tradeoff.web.consent`) → questions → what we learned →
thank-you (:mod:`tradeoff.web.questions`), or the panel's ending
(:mod:`tradeoff.web.endings`); leaving early is :mod:`tradeoff.web.leaving`, where a
participant is :mod:`tradeoff.web.where`, someone erased on request is refused by
:mod:`tradeoff.web.erased`, and the coordinator's page
:mod:`tradeoff.web.coordinator` (docs/architecture.md, "The study web page"). Every URL is
relative, so the page works under any path of a reverse proxy. What a request passes
before a page runs (cookies, CSRF, caps, security headers, error pages) is
:mod:`tradeoff.web.site`.
"""

from __future__ import annotations

import sys

from aiohttp import web
from markupsafe import Markup

from tradeoff.ask.scenario import load_scenario
from tradeoff.study.arm_specs import check_arm_languages
from tradeoff.study.folder import STUDY_FILE, Study
from tradeoff.text import count
from tradeoff.web.code_entry import enter_code, index
from tradeoff.web.connection import REQUEST_LOG, Timeouts
from tradeoff.web.consent import consent, give_consent
from tradeoff.web.coordinator import coordinator_login, coordinator_page
from tradeoff.web.erased import refuse_erased
from tradeoff.web.held import Participants
from tradeoff.web.i18n import check_study_language
from tradeoff.web.leaving import add_leaving_routes
from tradeoff.web.pages import safe_markdown
from tradeoff.web.panel_entry import panel_entry
from tradeoff.web.pilot_entry import pilot_entry
from tradeoff.web.questions import add_question_routes
from tradeoff.web.site import HERE, MAX_BODY, SITE, Site, protect, study_secret


async def style(request: web.Request) -> web.StreamResponse:
    response = web.FileResponse(HERE / "static" / "style.css")
    response.headers["Cache-Control"] = "max-age=3600"
    return response


def make_web_app(
    study: Study,
    *,
    trust_proxy: bool = False,
    capacity: int = 1000,
    timeouts: Timeouts | None = None,
) -> web.Application:
    """The study web page for ``study`` as an aiohttp application (its connection handler's
    limits, :meth:`Timeouts.handler_args`, go with it to whatever runner serves it)."""
    timeouts = Timeouts() if timeouts is None else timeouts
    loaded = load_scenario(study.scenario_path)
    consent_file = study.consent_path
    site = Site(
        study,
        Participants(study, loaded, capacity=capacity),
        study_secret(study),
        trust_proxy,
        timeouts,
        description_html=Markup(safe_markdown(loaded.scenario.description)),
        consent_html=None
        if consent_file is None
        else Markup(safe_markdown(consent_file.read_text(encoding="utf-8"))),
    )
    site.participants.erased_on = site.watched.erasures.erased_on
    check_study_language(study.language, study.path / STUDY_FILE, site.languages)
    check_arm_languages(study.path / STUDY_FILE, study.arms, site.languages)
    app = web.Application(
        middlewares=[protect, refuse_erased],
        client_max_size=MAX_BODY,
        handler_args=timeouts.handler_args(),
    )
    app[SITE] = site
    app.router.add_get("/", index)
    app.router.add_post("/code", enter_code)
    app.router.add_get("/consent", consent)
    app.router.add_post("/consent", give_consent)
    add_question_routes(app)
    add_leaving_routes(app)
    app.router.add_get("/static/style.css", style)
    app.router.add_get("/panel", panel_entry)
    app.router.add_get("/pilot", pilot_entry)
    app.router.add_get("/coordinator", coordinator_page)
    app.router.add_post("/coordinator", coordinator_login)

    async def close(app: web.Application) -> None:
        held = app[SITE].participants
        app[SITE].executor.shutdown(wait=True, cancel_futures=True)
        REQUEST_LOG.flush()
        print(
            f"stopped; {count(len(held), 'participant')} in memory, "
            f"{count(held.rebuilt, 'engine')} rebuilt from their files",
            file=sys.stderr,
        )

    app.on_cleanup.append(close)
    return app
