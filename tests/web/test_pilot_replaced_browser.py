"""The page of a pilot session a newer pilot link closed, in headless Chromium, served by
``tradeoff study serve`` while the coordinator makes a new pilot link beside it: the pilot
reloads their question and is told the link was replaced and whom to ask (403), in English
and German. axe-core finds no WCAG 2.1 A/AA problem on it, it is no wider than the window
at 360×640 and at 1280×800, and the German page keeps no English message of the
catalogue."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tradeoff.study.folder import Study
from tradeoff.study.keys import new_key
from tradeoff.study.panel import Panel

from .test_web_browser import CHROMIUM, Axe, h1, page_problems, sync_playwright
from .test_web_browser_de import english_left
from .test_web_panel_browser import browser, make, serve, shot, stop  # noqa: F401 - the fixture

if sync_playwright is not None:
    from playwright.sync_api import Browser

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed"),
    pytest.mark.skipif(sync_playwright is None, reason="playwright is not installed"),
    pytest.mark.skipif(Axe is None, reason="axe-playwright-python is not installed"),
]

SAID = {
    "en": ("This pilot link was replaced", "Ask the study's coordinator for the new pilot link."),
    "de": ("Dieser Pilot-Link wurde ersetzt", "Bitten Sie die Studienkoordination"),
}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Study, str]]:
    """A 3-question study with consent and a panel's open enrolment, served."""
    tmp: Path = tmp_path_factory.mktemp("replaced")
    study = make(tmp, Panel("PROLIFIC_PID", ("STUDY_ID",), b"0123456789abcdef", cap=20))
    server, base, log = serve(study, tmp)
    try:
        yield study, base
    finally:
        stop(server, log)


@pytest.mark.parametrize("language", ["en", "de"])
def test_the_replaced_pilot_page_passes_axe_and_fits_the_window(
    site: tuple[Study, str],
    browser: Browser,  # noqa: F811
    language: str,
) -> None:
    study, base = site
    heading, ask = SAID[language]
    context = browser.new_context(locale="de-DE" if language == "de" else "en-US")
    page = context.new_page()
    try:
        page.goto(base + f"pilot?key={new_key(study.path, 'pilot')}")
        page.wait_for_url("**/consent")
        page.click("button[value=agree]")
        page.wait_for_url("**/question")
        new_key(study.path, "pilot")  # the coordinator makes a newer pilot link
        response = page.reload()
        assert response is not None and response.status == 403
        assert h1(page) == heading
        text = page.locator("main").inner_text()
        assert ask in text, text
        found = page_problems(page)
        if language == "de":
            found += [f"English: {p.pattern}" for p in english_left() if p.search(text)]
        shot(page, f"pilot-replaced-{language}")
        assert found == []
    finally:
        context.close()
