"""The questions of the study web page: ``/question`` (the engine's next question as a
form), the form actions (``/answer``, ``/undo``, ``/more``, ``/finish``), ``/review`` (what
the answers say) and ``/done`` (the thank-you page, or the panel's ending). Someone in by a
link to a study without a consent page saw neither the code page nor a consent page: their
first question gives the study in brief (its description and length) above it.

Every answer is written to the participant's session file and synced before the next
page is sent (post, redirect, get); each form carries the number of answers the page was
showing, so a second submit of the same page, or one from the back button, records
nothing. Only a form action writes, and only it takes the session file's exclusive lock;
a page that shows a question or the review reads the engine kept in memory
(:meth:`tradeoff.web.held.Participants.look`).
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import Literal

from aiohttp import web

from tradeoff.choose.candidates import recorded_pool
from tradeoff.errors import InputError
from tradeoff.learn import Engine
from tradeoff.record.marks import Marks
from tradeoff.record.recorder import Recorder, SessionLocked, SessionWriteError
from tradeoff.web.checks import answer_or_check, consent_due, consent_texts, page_view
from tradeoff.web.code_entry import study_length
from tradeoff.web.endings import finish, thank_you
from tradeoff.web.i18n import N_
from tradeoff.web.pages import QuestionView, noise_recommendation, review_view
from tradeoff.web.site import SITE, Site, Visitor, checked_form, expired, redirect
from tradeoff.web.where import participant, where_next

OPEN_ELSEWHERE = N_(
    "Your session is open in another window or tab, or being saved there. Close that "
    "window, then enter your code here again."
)


async def with_session(
    request: web.Request,
    act: Callable[[Site, Visitor, Path], Awaitable[web.StreamResponse]],
) -> web.StreamResponse:
    """``act`` on the participant's open session (its path), or on to where they are when
    they have none or withdrew; what ``act`` raises becomes a page: the session open in
    another process (409), finished meanwhile (``done``), unreadable (500), or an answer
    that could not be saved (503)."""
    site = request.app[SITE]
    visitor = participant(request)
    if visitor is None or visitor.participant is None:
        return redirect("./")
    path = await site.work(partial(site.participants.open_session, visitor.participant))
    if path is None or await site.work(partial(site.watched.is_withdrawn, visitor.participant)):
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
        texts = consent_texts(site.study)

        def see(engine: Engine, marks: Marks) -> tuple[QuestionView, int, bool] | str | None:
            if consent_due(texts, marks):
                return "consent"
            shown = page_view(site.study, engine, marks, visitor.language)
            return None if shown is None else (*shown, bool(marks.consented))

        seen = await site.work(
            partial(site.participants.look_marked, visitor.participant, path, see)
        )
        if seen == "consent":
            return redirect("consent")
        if not isinstance(seen, tuple):
            return redirect("review")
        view, step, consented = seen
        notice = request.query.get("notice", "")
        # someone in by a link, with no consent page, saw no code page: the study's
        # description and length on their first question (the consent page has them else)
        brief = (
            step == 0
            and not notice
            and not consented
            and await site.work(partial(site.watched.entered, visitor.participant)) is not None
        )
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
            done=view.number - 1,
            step=step,
            prompt=view.prompt,
            options=view.options,
            shown=site.shown(visitor.nonce, view.answered),
            notice=notices.get(notice, ""),
            description=site.description_html if brief else None,
            expect=study_length(site, visitor) if brief else None,
        )

    return await with_session(request, show)


def _answered(form: dict[str, str]) -> int:
    try:
        return int(form.get("answered", "-1"))
    except ValueError:
        return -1


def _refuse_unconsented(site: Site, rec: Recorder) -> None:
    """A form action is refused while the participant must consent again."""
    if consent_due(consent_texts(site.study), rec.marks):
        raise ValueError("consent to the new text first")


def _next_question(engine: Engine) -> object:
    return engine.next_query()


def form_action(
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
                    partial(site.participants.look, visitor.participant, path, _next_question)
                )
            return redirect(to if done else "question")

        return await with_session(request, run)

    return handler


async def review(request: web.Request) -> web.StreamResponse:
    async def show(site: Site, visitor: Visitor, path: Path) -> web.StreamResponse:
        assert visitor.participant is not None
        loaded = site.participants.loaded_for(visitor.participant)
        scenario = loaded.scenario

        def view(engine: Engine) -> object:
            if engine.next_query() is not None:
                return None
            verdict = engine.verdict()
            if verdict is None or engine.measured is None:
                return review_view(engine, scenario, visitor.language)
            # as ``session show`` names them: the recorded rows found in the pool, read once
            priors = engine.result().priors
            found = recorded_pool(scenario, engine.candidates, priors, str(loaded.path))
            names = None if found is None else found[1]
            rec = noise_recommendation(engine, loaded, found)
            row = None if found is None else found[0].values[verdict.pick]
            return review_view(engine, scenario, visitor.language, names, rec, row)

        shown = await site.work(partial(site.participants.look, visitor.participant, path, view))
        if shown is None:
            return redirect("question")
        _ = visitor.language.gettext
        return site.page(visitor, "review.html", _("What we learned"), **vars(shown))

    return await with_session(request, show)


#: The query ``finish`` sends the browser to ``done`` with: the session was finished just now.
JUST_FINISHED = "finished"


async def done(request: web.Request) -> web.StreamResponse:
    """``GET /done``: the end of a finished session (:func:`~tradeoff.web.endings.thank_you`)."""
    site = request.app[SITE]
    visitor = participant(request)
    if visitor is None or visitor.participant is None:
        return redirect("./")
    if not await site.work(partial(site.participants.has_finished, visitor.participant)):
        return await where_next(request, visitor)
    entered = await site.work(partial(site.watched.entered, visitor.participant))
    # Sent on to the panel's address at once only on the way from the last page; opened
    # again later (the link, a bookmark), the page stays, with its way to withdraw.
    return thank_you(site, visitor, entered, stay=JUST_FINISHED not in request.query)


def add_question_routes(app: web.Application) -> None:
    """The routes of this module on the study's application."""
    site = app[SITE]

    def answer(rec: Recorder, form: dict[str, str], ms: float | None, language: str) -> None:
        _refuse_unconsented(site, rec)
        answer_or_check(site.study, rec, form, ms, language)

    app.router.add_get("/question", question)
    app.router.add_post("/answer", form_action(answer, "question", needs="question", ahead=True))
    app.router.add_post(
        "/undo",
        form_action(lambda rec, *_: rec.undo(), "question?notice=undone", needs="answers"),
    )
    app.router.add_post(
        "/more", form_action(lambda rec, *_: rec.extend(10), "question", needs="review")
    )
    app.router.add_post(
        "/finish",
        form_action(lambda rec, *_: finish(site, rec), f"done?{JUST_FINISHED}", needs="review"),
    )
    app.router.add_get("/review", review)
    app.router.add_get("/done", done)
