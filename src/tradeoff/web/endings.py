"""The pages that end a visit to the study web page: the panel's endings (complete,
declined, screened out: back to the panel with its code or URL), the thank-you page, and
the page of someone who withdrew; and :func:`finish`, which ends a session.

They are built here and shown by the handlers of the ways in (:mod:`tradeoff.web.where`,
:mod:`tradeoff.web.consent`, :mod:`tradeoff.web.questions`,
:mod:`tradeoff.web.panel_entry`, :mod:`tradeoff.web.leaving`); this module handles no
request itself.
"""

from __future__ import annotations

import threading
from typing import Literal

from aiohttp import web

from tradeoff.record.recorder import Recorder
from tradeoff.study.entries import Entered
from tradeoff.study.pooling import refresh_prior, session_finished
from tradeoff.web.site import Site, Visitor

Ending = Literal["complete", "declined", "screened"]


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
    which: Ending,
    values: dict[str, str],
    reason: str | None = None,
    stay: bool = False,
) -> web.Response:
    """The end of a panel participant's visit: back to the panel (its URL with the link's
    parameters put in), or a page with the code to give the panel (and a link back when
    there is also a URL; after completing, the link to withdraw too, as a participant
    with a code has on their last page). A URL without a code is followed at once by a
    refresh of the page, not an HTTP redirect: after a form (finish, decline) the page's
    policy lets forms lead only to this server, and the browser would refuse the panel's
    address; with ``stay`` (a completed participant opening the page again) it is a link
    beside the one to withdraw."""
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
        # Their answers are complete, not yet theirs to leave out: withdrawing stays open.
        withdraw=_("Withdraw from the study") if which == "complete" else None,
        stay=stay,
    )


def thank_you(
    site: Site, visitor: Visitor, entered: Entered | None, stay: bool = False
) -> web.Response:
    """The page after the last answer: the panel's ending for a panel participant (its
    address followed at once unless ``stay``: :func:`ending`), else thanks, whom to ask
    about the study (the coordinator's contact, every page's footer, when the study has
    one) and the link to withdraw."""
    if entered is not None and site.study.panel is not None and not entered.pilot:
        return ending(site, visitor, "complete", link_values(site, entered), stay=stay)
    _ = visitor.language.gettext
    return site.message(
        visitor,
        _("Thank you"),
        [
            _("Your answers are saved and complete. You can close this page."),
            # Without a contact (study create --contact), no coordinator they cannot reach.
            _("If you have questions about the study, contact its coordinator.")
            if site.watched.contact()
            else _("If you have questions about the study, ask the person who invited you."),
        ],
        link=("withdraw", _("Withdraw from the study")),
    )


def withdrawn_page(site: Site, visitor: Visitor, entered: Entered | None = None) -> web.Response:
    """What someone who withdrew sees on every page; one ``entered`` by a panel's link (on
    the page or by ``study withdraw``) is also given what the panel needs, as on the page
    after withdrawing: the study's code for a withdrawal (``--declined-code``) and a link
    to its address (``--declined-url``, not followed at once: this page is what they see
    on opening the link again), or else asked to tell the panel."""
    _ = visitor.language.gettext
    heading = _("You have withdrawn from this study")
    panel = site.study.panel
    if entered is None or entered.pilot or panel is None:
        return site.message(
            visitor, heading, [_("Nothing more is recorded. Thank you for your time.")]
        )
    end = panel.declined
    paragraphs = [
        _(
            "You withdrew from this study earlier, so it does not open again for you. Nothing "
            "more is recorded, and your answers are left out of the study's results."
        )
    ]
    if end.code is None and end.url is None:
        paragraphs.append(_("Please go back to the panel and tell it that you withdrew."))
    return panel_withdrawal(site, visitor, entered, heading, paragraphs, stay=True)


def panel_withdrawal(
    site: Site,
    visitor: Visitor,
    entered: Entered,
    heading: str,
    paragraphs: list[str],
    *,
    stay: bool = False,
) -> web.Response:
    """The page that ends a panel participant's withdrawal: ``paragraphs``, then the
    study's code for a withdrawal (``--declined-code``) and the way back to the panel
    (``--declined-url``, followed at once unless ``stay`` or there is a code to copy)."""
    _ = visitor.language.gettext
    assert site.study.panel is not None
    end = site.study.panel.declined
    return site.page(
        visitor,
        "ending.html",
        heading,
        heading=heading,
        paragraphs=paragraphs,
        code=end.code,
        code_label=_("Your code for the panel (enter it on the panel's site):"),
        url=end.target(link_values(site, entered)),
        back=_("Go back to the panel"),
        stay=stay,
    )


def finish(site: Site, rec: Recorder) -> None:
    """End a session; one that came in by link first notes its outcome in its chain."""
    entered = site.watched.entered(rec.header.participant)
    if entered is not None:
        rec.note("outcome completed" + (" (pilot)" if entered.pilot else ""))
    rec.finish()
    if session_finished(site.study.path, rec.path):  # every k finished: pooled again
        threading.Thread(target=refresh_prior, args=(site.study.path,), daemon=True).start()
