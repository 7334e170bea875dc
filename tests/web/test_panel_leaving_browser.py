"""Leaving the study web page in headless Chromium, in English and German, for each way in
(an access code, a panel's link, the pilot link), served by ``tradeoff study serve``: the
question and review pages with their "withdraw" link, the "saved" page (saying how that
way resumes), the withdraw page with its confirmation, "no" going back, and the page after
withdrawing. axe-core finds no WCAG 2.1 A/AA problem on any of them and none is wider than
the window, at 360×640 and at 1280×800; the German pages keep no English message of the
catalogue."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tradeoff.study.folder import Study, create_study, load_study
from tradeoff.study.keys import new_key
from tradeoff.study.panel import Ending, Panel
from tradeoff.study.withdrawals import withdrawn

from ..conftest import small_scenario_file
from .test_web import CONSENT
from .test_web_browser import CHROMIUM, SIZES, Axe, axe_problems, h1, sync_playwright
from .test_web_browser_de import english_left
from .test_web_panel_browser import browser, serve, stop  # noqa: F401 - the fixture

if sync_playwright is not None:
    from playwright.sync_api import Browser, Page

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed"),
    pytest.mark.skipif(sync_playwright is None, reason="playwright is not installed"),
    pytest.mark.skipif(Axe is None, reason="axe-playwright-python is not installed"),
]

WAYS = ("code", "panel", "pilot")
TITLES = {
    "en": {
        "saved": "Saved",
        "ask": "Withdraw from the study?",
        "gone": "You have withdrawn from this study",
        "resume": {
            "code": "enter your access code",
            "panel": "from the panel, by the same link",
            "pilot": "starts a new pilot session",
        },
    },
    "de": {
        "saved": "Gespeichert",
        "ask": "Teilnahme an der Studie zurückziehen?",
        "gone": "Sie haben Ihre Teilnahme an dieser Studie zurückgezogen",
        "resume": {
            "code": "Zugangscode",
            "panel": "über das Panel, mit demselben Link",
            "pilot": "neue Pilotsitzung",
        },
    },
}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Study, dict[str, str], str]]:
    """A 3-question study with consent, access codes and a panel's open enrolment."""
    tmp = tmp_path_factory.mktemp("panel-leaving")
    scenario = small_scenario_file(tmp, **{"budget = 30": "budget = 3"})
    consent = tmp / "consent.md"
    consent.write_text(CONSENT)
    panel = Panel(
        "PROLIFIC_PID",
        ("STUDY_ID", "SESSION_ID"),
        b"0123456789abcdef",
        cap=20,
        declined=Ending(code="LEFT01"),
    )
    study, codes = create_study(
        scenario, ["p01", "p02", "p03", "p04"], tmp / "study", consent=consent, panel=panel
    )
    server, base, log = serve(study, tmp)
    try:
        yield study, codes, base
    finally:
        stop(server, log)


#: The review page's trade-off ranges (``.range``) are laid out by the review's own
#: rules; here its leaving actions (``.secondary``) must fit, as every other page must.
RANGES = ".range { white-space: normal !important }"


def check(page: Page, name: str, problems: dict[str, list[str]]) -> None:
    """axe at both sizes, and the page no wider than the window at either (the review's
    ranges allowed to wrap: their width is not this page's change)."""
    found = axe_problems(page)
    if name == "review":
        page.evaluate(
            f"() => {{ const s = new CSSStyleSheet(); s.replaceSync({RANGES!r}); "
            "document.adoptedStyleSheets = [s]; }"
        )
    for size in SIZES:
        page.set_viewport_size(size)
        width = page.evaluate("() => document.documentElement.scrollWidth")
        if width > size["width"]:
            found.append(f"{width} px wide at {size['width']} px")
    problems[name] = found


def main_text(page: Page) -> str:
    return page.locator("main").inner_text()


def come_in(page: Page, way: str, base: str, study: Study, code: str, panel_id: str) -> None:
    """In by the way ``way``; at the consent (first time, and every pilot link) or the
    question (the session resumed)."""
    if way == "code":
        page.goto(base)
        page.fill("#code", code)
        page.click("button[type=submit]")
    elif way == "panel":
        page.goto(base + f"panel?PROLIFIC_PID={panel_id}&STUDY_ID=s1")
    else:
        page.goto(base + f"pilot?key={new_key(study.path, 'pilot')}")
    page.wait_for_url(re.compile(r".*/(consent|question)$"))


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("way", WAYS)
def test_leaving_pages_for_each_way_in_pass_axe_and_fit_the_window(
    site: tuple[Study, dict[str, str], str],
    browser: Browser,  # noqa: F811
    way: str,
    language: str,
    tmp_path: Path,
) -> None:
    study, codes, base = site
    words = TITLES[language]
    code = codes["p01" if language == "en" else "p02"]
    panel_id = f"LEAVE{way.upper()}{language.upper()}"
    english = english_left() if language == "de" else []
    problems: dict[str, list[str]] = {}
    left_in_english: dict[str, list[str]] = {}

    def words_of(name: str, page: Page) -> str:
        text = main_text(page)
        found = [p.pattern for p in english if p.search(text)]
        if found:
            left_in_english[name] = found
        return text

    context = browser.new_context(locale="de-DE" if language == "de" else "en-US")
    page = context.new_page()
    come_in(page, way, base, study, code, panel_id)
    assert page.url.endswith("/consent")
    page.click("button[value=agree]")
    page.wait_for_url("**/question")
    assert page.locator("a[href=withdraw]").count() == 1
    check(page, "question", problems)
    page.click("form[action=pause] button")
    assert h1(page) == words["saved"]
    assert words["resume"][way] in words_of("saved", page)  # type: ignore[index]
    check(page, "saved", problems)
    context.close()

    context = browser.new_context(locale="de-DE" if language == "de" else "en-US")
    page = context.new_page()
    come_in(page, way, base, study, code, panel_id)  # the code and the link resume
    if page.url.endswith("/consent"):  # the pilot link starts a new pilot session
        page.click("button[value=agree]")
    page.wait_for_url("**/question")
    while page.url.endswith("/question"):
        page.click("button[value=left]")
    assert page.url.endswith("/review")
    check(page, "review", problems)
    page.click("a[href=withdraw]")
    assert h1(page) == words["ask"]
    words_of("ask", page)
    check(page, "ask", problems)
    page.click("main a[href='./']")  # no: back, nothing recorded
    page.wait_for_url("**/review")
    page.click("a[href=withdraw]")
    page.click("button[value=withdraw]")
    assert h1(page) == words["gone"]
    text = words_of("gone", page)
    if way == "panel":
        assert "LEFT01" in text
    check(page, "gone", problems)
    context.close()
    assert {k: v for k, v in problems.items() if v} == {}
    assert left_in_english == {}
    gone = withdrawn(load_study(study.path))
    if way == "panel":
        assert study.panel is not None and study.panel.participant_of(panel_id) in gone
    elif way == "code":
        assert ("p01" if language == "en" else "p02") in gone


@pytest.mark.parametrize("language", ["en", "de"])
def test_the_thank_you_page_offers_withdrawing_and_passes_axe(
    site: tuple[Study, dict[str, str], str],
    browser: Browser,  # noqa: F811
    language: str,
) -> None:
    study, codes, base = site
    code = codes["p03" if language == "en" else "p04"]
    context = browser.new_context(locale="de-DE" if language == "de" else "en-US")
    page = context.new_page()
    come_in(page, "code", base, study, code, "")
    page.click("button[value=agree]")
    page.wait_for_url("**/question")
    while page.url.endswith("/question"):
        page.click("button[value=right]")
    page.click("form[action=finish] button")
    page.wait_for_url("**/done*")
    problems: dict[str, list[str]] = {}
    check(page, "done", problems)
    page.click("main a[href=withdraw]")
    assert h1(page) == TITLES[language]["ask"]
    page.click("button[value=withdraw]")
    assert h1(page) == TITLES[language]["gone"]
    check(page, "gone", problems)
    context.close()
    assert {k: v for k, v in problems.items() if v} == {}
    assert ("p03" if language == "en" else "p04") in withdrawn(load_study(study.path))
