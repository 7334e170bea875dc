"""The study web page: the participant's flow as plain HTML forms (no script needed).

Code entry (or a panel's link, ``/panel``, or the pilot link, ``/pilot``) → information
and consent → questions → what we learned → thank-you, or the panel's ending
(docs/architecture.md, "The study web page"); the coordinator's page is
:mod:`tradeoff.web.coordinator`. Every answer is written to the
participant's session file and synced before the next page is sent (post, redirect, get);
each form carries the number of answers the page was showing, so a second submit of the
same page, or one from the back button, records nothing. Every URL is relative, so the
page works under any path of a reverse proxy. What a request passes before a page runs
(cookies, CSRF, caps, security headers, error pages) is :mod:`tradeoff.web.site`.
"""

from __future__ import annotations

import secrets
import sys
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import Literal

from aiohttp import web
from markupsafe import Markup

from tradeoff.ask.scenario import DECIDING_STRATEGIES, load_scenario
from tradeoff.errors import InputError
from tradeoff.learn import Choice, expected_questions
from tradeoff.record.recorder import Recorder, SessionLocked, SessionWriteError
from tradeoff.record.records import ConsentRecord, EntryRecord, now
from tradeoff.study.attempts import recent_failures
from tradeoff.study.entries import Entered, admit, new_pilot, record_decline, take_place
from tradeoff.study.folder import STUDY_FILE, Study, load_study
from tradeoff.study.keys import check_key
from tradeoff.web.connection import REQUEST_LOG, Timeouts, log_request
from tradeoff.web.coordinator import coordinator_login, coordinator_page
from tradeoff.web.held import Participants
from tradeoff.web.i18n import (
    LANGUAGE_COOKIE,
    LANGUAGE_PARAMETER,
    N_,
    check_study_language,
    switch,
)
from tradeoff.web.pages import QuestionView, question_view, review_view, safe_markdown
from tradeoff.web.site import (
    CSRF_COOKIE,
    HERE,
    MAX_BODY,
    SESSION_COOKIE,
    SESSION_SECONDS,
    SITE,
    Site,
    Visitor,
    checked_form,
    expired,
    is_secure,
    protect,
    redirect,
    set_cookie,
    source_of,
    study_secret,
    visitor_of,
)

#: A source that entered a wrong code lately may have this many codes checked or waiting
#: out their delay at once (more are refused unchecked, so a guesser cannot run the delays
#: in parallel; a source without wrong codes, such as a ward behind one address, is not
#: held back).
CODES_AT_ONCE = 2

WRONG_CODE = N_(
    "That code does not open a session. Check it and try again (capitals, spaces and "
    "dashes do not matter)."
)
OPEN_ELSEWHERE = N_(
    "Your session is open in another window or tab, or being saved there. Close that "
    "window, then enter your code here again."
)

# -- pages before a participant is known --------------------------------------------------


async def index(request: web.Request) -> web.StreamResponse:
    site = request.app[SITE]
    visitor = visitor_of(request)
    if visitor.participant is not None:
        return await where_next(request, visitor)
    return code_page(request, site, visitor)


def code_page(request: web.Request, site: Site, visitor: Visitor, error: str = "") -> web.Response:
    _ = visitor.language.gettext
    s = site.participants.loaded.scenario
    spec = s.elicitation
    expected = expected_questions(s, spec)
    decides = s.pool is not None and spec.strategy in DECIDING_STRATEGIES and spec.stop != "weights"
    expect = (
        _(
            "At most %(n)s questions (fewer once your answers settle which candidate model "
            "suits you), a few minutes. You can stop and come back later."
        )
        if decides
        else _("About %(n)s questions, a few minutes. You can stop and come back later.")
    ) % {"n": expected}
    response = site.page(
        visitor,
        "code.html",
        _("Enter your access code"),
        200,
        error=error,
        description=site.description_html,
        expect=expect,
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
    guessing = site.checking.get(source, 0) >= CODES_AT_ONCE and (
        await site.work(partial(recent_failures, site.study, None, source)) > 0
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
    site.checking[source] = site.checking.get(source, 0) + 1
    try:
        code = form.get("code", "")[:64]
        participant = await site.work(partial(site.study.participant_for, code)) if code else None
        if participant is None:
            await site.wait_out_wrong(source)
            return code_page(request, site, visitor, visitor.language.gettext(WRONG_CODE))
    finally:
        site.checking[source] -= 1
        if not site.checking[source]:
            del site.checking[source]
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


def signed_in(request: web.Request, site: Site, participant: str) -> web.Response:
    """On to where ``participant`` is (``./``), holding their new signed session cookie:
    after a right code, a panel's link or the pilot link."""
    response = redirect("./")
    set_cookie(
        response,
        SESSION_COOKIE,
        site.session_value(participant),
        is_secure(request, site.trust_proxy),
        SESSION_SECONDS,
    )
    return response


# -- where a participant is ----------------------------------------------------------------


async def where_next(request: web.Request, visitor: Visitor) -> web.StreamResponse:
    """Send a participant to the page of where they are: withdrawn, finished, consent,
    or the questions (a session is started here when the study asks no consent)."""
    site = request.app[SITE]
    pid = visitor.participant
    assert pid is not None
    if await site.work(partial(site.is_withdrawn, pid)):
        return withdrawn_page(site, visitor)
    path = await site.work(partial(site.participants.open_session, pid))
    if path is not None:
        return redirect("question")
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
    entered = await site.work(partial(site.entered, pid))
    panel = site.study.panel
    if entered is None or entered.pilot or panel is None:
        return None
    gone = await site.work(site.gone)
    reason = await site.work(partial(take_place, panel, site.entries, pid, gone))
    if reason is None:
        return None
    return ending(site, visitor, "screened", link_values(site, entered), reason)


def entry_record(site: Site, participant: str) -> EntryRecord | None:
    """How ``participant`` came in, for their session file (``None``: by access code)."""
    entered = site.entered(participant)
    if entered is None:
        return None
    return EntryRecord(
        type="entry",
        via="panel" if entered.panel_id is not None else "open",
        panel_id=entered.panel_id,
        params=entered.params,
        pilot=entered.pilot,
        at=now(),
    )


def withdrawn_page(site: Site, visitor: Visitor) -> web.Response:
    _ = visitor.language.gettext
    return site.message(
        visitor,
        _("You have withdrawn from this study"),
        [_("Nothing more is recorded. Thank you for your time.")],
    )


def participant(request: web.Request) -> Visitor | None:
    visitor = visitor_of(request)
    return visitor if visitor.participant is not None else None


async def consent(request: web.Request) -> web.StreamResponse:
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
    site = request.app[SITE]
    visitor = participant(request)
    if visitor is None or visitor.participant is None:
        return redirect("./")
    form = await checked_form(request, visitor)
    if form is None:
        return expired(site, visitor)
    if await site.work(partial(site.is_withdrawn, visitor.participant)):
        return withdrawn_page(site, visitor)
    if form.get("choice") != "agree":
        _ = visitor.language.gettext
        entered = await site.work(partial(site.entered, visitor.participant))
        if entered is not None and site.study.panel is not None and not entered.pilot:
            await site.work(partial(record_decline, site.entries, visitor.participant))
            response = ending(site, visitor, "declined", link_values(site, entered))
            await site.work(partial(site.revoke, visitor.nonce))
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
        await site.work(partial(site.revoke, visitor.nonce))
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


# -- the questions -------------------------------------------------------------------------


async def with_session(
    request: web.Request,
    act: Callable[[Site, Visitor, Path], Awaitable[web.StreamResponse]],
) -> web.StreamResponse:
    site = request.app[SITE]
    visitor = participant(request)
    if visitor is None or visitor.participant is None:
        return redirect("./")
    path = await site.work(partial(site.participants.open_session, visitor.participant))
    if path is None or await site.work(partial(site.is_withdrawn, visitor.participant)):
        return await where_next(request, visitor)
    try:
        return await act(site, visitor, path)
    except SessionLocked:
        _ = visitor.language.gettext
        return site.message(
            visitor,
            _("Your session is open elsewhere"),
            [_(OPEN_ELSEWHERE)],
            409,
            ("./", _("Back to the code")),
        )
    except InputError as exc:  # finished meanwhile in another tab, or unreadable
        if await site.work(partial(site.participants.has_finished, visitor.participant)):
            return redirect("done")
        print(exc.message(), file=sys.stderr)
        _ = visitor.language.gettext
        return site.message(
            visitor,
            _("Your session could not be opened"),
            [_("Nothing was lost. Please tell the study's coordinator.")],
            500,
        )
    except SessionWriteError as exc:
        print(f"{exc.path}: not saved ({exc.reason})", file=sys.stderr)
        _ = visitor.language.gettext
        return site.message(
            visitor,
            _("Your answer could not be saved"),
            [
                _(
                    "Nothing was lost: every answer before it is saved. Please try again in a "
                    "minute; if it happens again, tell the study's coordinator."
                )
            ],
            503,
            ("question", _("Back to the question")),
        )


async def question(request: web.Request) -> web.StreamResponse:
    async def show(site: Site, visitor: Visitor, path: Path) -> web.StreamResponse:
        assert visitor.participant is not None
        view: QuestionView | None = await site.work(
            partial(
                site.participants.run,
                visitor.participant,
                path,
                lambda rec: question_view(rec, visitor.language),
            )
        )
        if view is None:
            return redirect("review")
        notice = request.query.get("notice", "")
        _ = visitor.language.gettext
        notices = {"undone": _("Your last answer was taken back; here is that question again.")}
        return site.page(
            visitor,
            "question.html",
            view.heading,
            heading=view.heading,
            progress=view.progress,
            total=view.total,
            answered=view.answered,
            prompt=view.prompt,
            options=view.options,
            shown=site.shown(visitor.nonce, view.answered),
            notice=notices.get(notice, ""),
        )

    return await with_session(request, show)


def _answered(form: dict[str, str]) -> int:
    try:
        return int(form.get("answered", "-1"))
    except ValueError:
        return -1


def _answer(rec: Recorder, form: dict[str, str], response_ms: float | None, language: str) -> None:
    rec.answer(Choice(form.get("choice", "")), response_ms=response_ms, language=language)


def _next_question(rec: Recorder) -> object:
    return rec.engine.next_query()


def _form_action(
    step: Callable[[Recorder, dict[str, str], float | None, str], object],
    to: str,
    *,
    needs: Literal["question", "answers", "review"],
    ahead: bool = False,
) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
    """A form's handler: ``step`` is done only if the session still has the number of
    answers the page showed (a second submit of the same page does nothing) and is where
    the action belongs: at a question (answer), with an answer to take back (undo), or at
    the review, no question left (finish, more). A step that refuses the form's values
    (ValueError) does nothing either; the participant is sent back to where they are.
    ``step`` is also given the time since the page was made, on the server's clock
    (:meth:`Site.response_ms`), and the page's language (recorded with an answer). With
    ``ahead`` the next question is chosen as soon as the step is done
    (:meth:`Site.ahead`)."""

    def act(form: dict[str, str], response_ms: float | None, language: str, rec: Recorder) -> bool:
        engine = rec.engine
        if engine.answered != _answered(form):
            return False
        at_question = engine.next_query() is not None
        if needs == "question" and not at_question:
            return False
        if needs == "review" and at_question:
            return False
        if needs == "answers" and engine.answered == 0:
            return False
        try:
            step(rec, form, response_ms, language)
        except ValueError:
            return False
        return True

    async def handler(request: web.Request) -> web.StreamResponse:
        async def run(site: Site, visitor: Visitor, path: Path) -> web.StreamResponse:
            assert visitor.participant is not None
            form = await checked_form(request, visitor)
            if form is None:
                return expired(site, visitor)
            response_ms = site.response_ms(visitor.nonce, _answered(form), form.get("shown", ""))
            done = await site.work(
                partial(
                    site.participants.run,
                    visitor.participant,
                    path,
                    partial(act, form, response_ms, visitor.language.tag),
                )
            )
            if done and ahead:
                # The answer is on disk: the next question is chosen while the browser
                # follows the redirect to it.
                site.ahead(
                    partial(site.participants.run, visitor.participant, path, _next_question)
                )
            return redirect(to if done else "question")

        return await with_session(request, run)

    return handler


async def review(request: web.Request) -> web.StreamResponse:
    async def show(site: Site, visitor: Visitor, path: Path) -> web.StreamResponse:
        assert visitor.participant is not None
        scenario = site.participants.loaded.scenario

        def view(rec: Recorder) -> object:
            if rec.engine.next_query() is not None:
                return None
            return review_view(rec, scenario, visitor.language)

        shown = await site.work(partial(site.participants.run, visitor.participant, path, view))
        if shown is None:
            return redirect("question")
        _ = visitor.language.gettext
        return site.page(visitor, "review.html", _("What we learned"), **vars(shown))

    return await with_session(request, show)


async def done(request: web.Request) -> web.StreamResponse:
    site = request.app[SITE]
    visitor = participant(request)
    if visitor is None or visitor.participant is None:
        return redirect("./")
    if not await site.work(partial(site.participants.has_finished, visitor.participant)):
        return await where_next(request, visitor)
    entered = await site.work(partial(site.entered, visitor.participant))
    if entered is not None and site.study.panel is not None and not entered.pilot:
        return ending(site, visitor, "complete", link_values(site, entered))
    _ = visitor.language.gettext
    return site.message(
        visitor,
        _("Thank you"),
        [
            _("Your answers are saved and complete. You can close this page."),
            _("If you have questions about the study, contact its coordinator."),
        ],
        link=("withdraw", _("Withdraw from the study")),
    )


def finish(site: Site, rec: Recorder) -> None:
    """End a session; one that came in by link first notes its outcome in its chain."""
    entered = site.entered(rec.header.participant)
    if entered is not None:
        rec.note("outcome completed" + (" (pilot)" if entered.pilot else ""))
    rec.finish()


# -- coming in by link ---------------------------------------------------------------------


def link_values(site: Site, entered: Entered) -> dict[str, str]:
    """The link's parameters of a person let in, for an ending's URL."""
    panel = site.study.panel
    values = dict(entered.params)
    if panel is not None and entered.panel_id is not None:
        values[panel.id_param] = entered.panel_id
    return values


def ending(
    site: Site,
    visitor: Visitor,
    which: Literal["complete", "declined", "screened"],
    values: dict[str, str],
    reason: str | None = None,
) -> web.Response:
    """The end of a panel participant's visit: back to the panel (its URL with the link's
    parameters put in), or a page with the code to give the panel (and a link back when
    there is also a URL). A URL without a code is followed at once by a refresh of the
    page, not an HTTP redirect: after a form (finish, decline) the page's policy lets
    forms lead only to this server, and the browser would refuse the panel's address."""
    panel = site.study.panel
    assert panel is not None
    end = getattr(panel, which)
    url = end.target(values)
    _ = visitor.language.gettext
    if which == "complete":
        heading = _("Thank you")
        paragraphs = [_("Your answers are saved and complete.")]
        code_label = _("Your completion code (enter it on the panel's site):")
    elif which == "declined":
        heading = _("Thank you")
        paragraphs = [
            _(
                "You chose not to take part. Only that choice was noted, so that the panel "
                "can be told; no answer was recorded."
            )
        ]
        code_label = _("Your code for the panel (enter it on the panel's site):")
    else:
        heading = _("This study cannot take you")
        paragraphs = [
            _("This link is not on the study's list of participants.")
            if reason == "not on the list"
            else _("The study has all the participants it needs.")
            if reason in ("study full", "quota full")
            else _("The study is not open to this link."),
            _("Only this visit was noted, so that the panel can be told. Thank you for your time."),
        ]
        code_label = _("Your code for the panel (enter it on the panel's site):")
    return site.page(
        visitor,
        "ending.html",
        heading,
        heading=heading,
        paragraphs=paragraphs,
        code=end.code,
        code_label=code_label,
        url=url,
        back=_("Go back to the panel"),
    )


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
    source = source_of(request, site.trust_proxy)
    gone = await site.work(site.gone)
    try:
        admitted = await site.work(
            partial(
                admit,
                panel,
                site.entries,
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


async def pilot_entry(request: web.Request) -> web.StreamResponse:
    """``/pilot?key=…``: the pilot link (``tradeoff study pilot-link``). Each visit starts
    a new pilot participant, marked so in their session's entry and never counted; a
    browser in the middle of a pilot session continues it. A wrong key counts as a wrong
    access code (the same growing delay)."""
    site = request.app[SITE]
    visitor = visitor_of(request)
    if visitor.participant is not None and visitor.participant in site.roster().pilots:
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
    if not await site.work(partial(new_pilot, site.entries, pid)):
        _ = visitor.language.gettext
        return site.message(
            visitor,
            _("Too many pilot sessions"),
            [_("Remove the pilot sessions (tradeoff study remove-pilots), then try again.")],
            503,
        )
    return signed_in(request, site, pid)


# -- the application -------------------------------------------------------------------


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
    from tradeoff.web.leaving import add_leaving_routes  # its pages use this module's

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
    check_study_language(study.language, study.path / STUDY_FILE, site.languages)
    app = web.Application(
        middlewares=[protect], client_max_size=MAX_BODY, handler_args=timeouts.handler_args()
    )
    app[SITE] = site
    app.router.add_get("/", index)
    app.router.add_post("/code", enter_code)
    app.router.add_get("/consent", consent)
    app.router.add_post("/consent", give_consent)
    app.router.add_get("/question", question)
    app.router.add_post(
        "/answer", _form_action(_answer, "question", needs="question", ahead=True)
    )
    app.router.add_post(
        "/undo",
        _form_action(lambda rec, *_: rec.undo(), "question?notice=undone", needs="answers"),
    )
    app.router.add_post(
        "/more", _form_action(lambda rec, *_: rec.extend(10), "question", needs="review")
    )
    app.router.add_post(
        "/finish",
        _form_action(lambda rec, *_: finish(site, rec), "done", needs="review"),
    )
    app.router.add_get("/review", review)
    add_leaving_routes(app)
    app.router.add_get("/done", done)
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
            f"stopped; {len(held)} participants in memory, {held.rebuilt} engines rebuilt "
            "from their files",
            file=sys.stderr,
        )

    app.on_cleanup.append(close)
    return app
