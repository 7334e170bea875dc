"""The study in brief on the first question of someone who comes in by a panel's link to a
study without a consent page, in headless Chromium, in English and German, served by
``tradeoff study serve``: the study's description and its expected length above the
question, and not on the next one. axe-core finds no WCAG 2.1 A/AA problem on either page
and neither is wider than the window, at 360×640 and at 1280×800; the German pages keep no
English message of the catalogue."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tradeoff.ask.scenario import load_scenario
from tradeoff.study.folder import Study, create_study
from tradeoff.study.panel import Ending, Panel
from tradeoff.web.pages import safe_markdown

from ..conftest import small_scenario_file
from .test_panel_leaving_browser import check, main_text
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
        "first": "Question 1",
        "second": "Question 2",
        "brief": "The study in brief",
        "length": "questions, a few minutes",
        "answer": "Your answer",
    },
    "de": {
        "first": "Frage 1",
        "second": "Frage 2",
        "brief": "Die Studie in Kürze",
        "length": "Fragen, wenige Minuten",
        "answer": "Ihre Antwort",
    },
}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Study, str]]:
    """A 3-question study without a consent page, with a panel's open enrolment."""
    tmp = tmp_path_factory.mktemp("link-brief")
    scenario = small_scenario_file(tmp, **{"budget = 30": "budget = 3"})
    panel = Panel(
        "PROLIFIC_PID", ("STUDY_ID",), b"0123456789abcdef", cap=20, declined=Ending(code="L1")
    )
    study, _ = create_study(scenario, ["p01"], tmp / "study", panel=panel)
    server, base, log = serve(study, tmp)
    try:
        yield study, base
    finally:
        stop(server, log)


@pytest.mark.parametrize("language", ["en", "de"])
def test_the_first_question_of_a_link_entrant_gives_the_brief_passes_axe_and_fits(
    site: tuple[Study, str],
    browser: Browser,  # noqa: F811
    language: str,
) -> None:
    study, base = site
    words = WORDS[language]
    locale = "de-DE" if language == "de" else "en-US"
    english = english_left() if language == "de" else []
    problems: dict[str, list[str]] = {}
    left_in_english: dict[str, list[str]] = {}
    scenario = load_scenario(study.scenario_path).scenario
    own = set(text_nodes(safe_markdown(scenario.description)))  # the study's own words

    def words_of(name: str, page: Page) -> str:
        nodes = [n for n in text_nodes(page.locator("main").inner_html()) if n not in own]
        found = [p.pattern for n in nodes for p in english if p.search(n)]
        if found:
            left_in_english[name] = found
        return main_text(page)

    context = browser.new_context(locale=locale)
    page = context.new_page()
    page.goto(base + f"panel?PROLIFIC_PID=BRIEF{language.upper()}&STUDY_ID=s1")
    page.wait_for_url("**/question")
    assert h1(page) == words["first"]
    about = page.locator("section.about")
    assert about.locator("h2").inner_text() == words["brief"]
    assert words["length"] in about.inner_text()
    assert "primary care" in about.locator(".description").inner_text()  # the scenario's
    text = words_of("first question", page)
    assert text.index(words["brief"]) < text.index(words["answer"])
    check(page, "first question", problems)
    page.click("button[value=left]")
    page.wait_for_function(f"() => document.querySelector('h1').innerText === {words['second']!r}")
    assert page.locator("section.about").count() == 0  # once, not on every question
    words_of("second question", page)
    check(page, "second question", problems)
    context.close()

    assert {k: v for k, v in problems.items() if v} == {}
    assert left_in_english == {}
