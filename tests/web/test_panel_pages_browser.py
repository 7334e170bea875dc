"""The pages a panel's link and a declined consent lead to, in headless Chromium, in English
and German, served by ``tradeoff study serve``: the consent page of a panel entrant with the
study's description and expected length before the consent text; the page a withdrawn
panel participant sees on opening their link again, with the panel's code; and the page
after declining with an access code. axe-core finds no WCAG 2.1 A/AA problem on any of them
and none is wider than the window, at 360×640 and at 1280×800; the German pages keep no
English message of the catalogue."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tradeoff.ask.scenario import load_scenario
from tradeoff.study.entries import read_entries
from tradeoff.study.folder import Study, create_study
from tradeoff.study.panel import Ending, Panel
from tradeoff.web.pages import safe_markdown

from ..conftest import small_scenario_file
from .test_panel_leaving_browser import check, main_text
from .test_web import CONSENT
from .test_web_browser import CHROMIUM, Axe, h1, sync_playwright
from .test_web_browser_de import english_left
from .test_web_i18n import text_nodes
from .test_web_panel_browser import browser, serve, stop  # noqa: F401 - the fixture

if sync_playwright is not None:
    from playwright.sync_api import Browser, Page

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed"),
    pytest.mark.skipif(sync_playwright is None, reason="playwright is not installed"),
    pytest.mark.skipif(Axe is None, reason="axe-playwright-python is not installed"),
]

WORDS = {
    "en": {
        "consent": "Information and consent",
        "brief": "The study in brief",
        "length": "questions",
        "gone": "You have withdrawn from this study",
        "earlier": "You withdrew from this study earlier",
        "thanks": "Thank you",
        "noted": "Only that choice was noted",
    },
    "de": {
        "consent": "Information und Einwilligung",
        "brief": "Die Studie in Kürze",
        "length": "Fragen",
        "gone": "Sie haben Ihre Teilnahme an dieser Studie zurückgezogen",
        "earlier": "bereits zurückgezogen",
        "thanks": "Vielen Dank",
        "noted": "Nur diese Entscheidung wurde vermerkt",
    },
}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Study, dict[str, str], str]]:
    """A 3-question study with consent, access codes and a panel's open enrolment whose
    withdrawals get the code LEFT01."""
    tmp = tmp_path_factory.mktemp("panel-pages")
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
        scenario, ["p01", "p02"], tmp / "study", consent=consent, panel=panel
    )
    server, base, log = serve(study, tmp)
    try:
        yield study, codes, base
    finally:
        stop(server, log)


@pytest.mark.parametrize("language", ["en", "de"])
def test_panel_consent_withdrawn_link_and_code_decline_pages_pass_axe_and_fit(
    site: tuple[Study, dict[str, str], str],
    browser: Browser,  # noqa: F811
    language: str,
) -> None:
    study, codes, base = site
    words = WORDS[language]
    locale = "de-DE" if language == "de" else "en-US"
    english = english_left() if language == "de" else []
    problems: dict[str, list[str]] = {}
    left_in_english: dict[str, list[str]] = {}

    scenario = load_scenario(study.scenario_path).scenario
    own = set(text_nodes(safe_markdown(scenario.description))) | set(
        text_nodes(safe_markdown(CONSENT))
    )  # the study's own words, in the language they were written in

    def words_of(name: str, page: Page) -> str:
        nodes = [n for n in text_nodes(page.locator("main").inner_html()) if n not in own]
        found = [p.pattern for n in nodes for p in english if p.search(n)]
        if found:
            left_in_english[name] = found
        return main_text(page)

    link = base + f"panel?PROLIFIC_PID=PAGES{language.upper()}&STUDY_ID=s1&SESSION_ID=e1"
    context = browser.new_context(locale=locale)
    page = context.new_page()
    page.goto(link)
    page.wait_for_url("**/consent")
    assert h1(page) == words["consent"]
    about = page.locator("section.about")
    assert about.locator("h2").inner_text() == words["brief"]
    assert words["length"] in about.inner_text()
    assert "primary care" in about.locator(".description").inner_text()  # the scenario's
    text = words_of("consent", page)
    assert text.index(words["brief"]) < text.index("We ask which of two screening tests")
    check(page, "consent", problems)
    page.click("button[value=agree]")
    page.wait_for_url("**/question")
    page.goto(base + "withdraw")
    page.click("button[value=withdraw]")
    context.close()

    context = browser.new_context(locale=locale)  # another browser, the same link
    page = context.new_page()
    page.goto(link)
    assert h1(page) == words["gone"]
    text = words_of("withdrawn", page)
    assert words["earlier"] in text and "LEFT01" in text
    assert page.locator("meta[http-equiv=refresh]").count() == 0
    check(page, "withdrawn", problems)
    context.close()

    context = browser.new_context(locale=locale)
    page = context.new_page()
    page.goto(base)
    page.fill("#code", codes["p01" if language == "en" else "p02"])
    page.click("button[type=submit]")
    page.wait_for_url("**/consent")
    assert page.locator("section.about").count() == 0  # the code page said it already
    page.click("button[value=decline]")
    assert h1(page) == words["thanks"]
    assert words["noted"] in words_of("declined", page)
    check(page, "declined", problems)
    context.close()

    assert {k: v for k, v in problems.items() if v} == {}
    assert left_in_english == {}
    assert read_entries(study.path).code_declined >= {"p01" if language == "en" else "p02"}
