"""The coordinator's contact in headless Chromium: on the code page, a question, the
thank-you page and the withdraw page, in English and German, a contact whose e-mail
address is longer than a phone's width breaks rather than widen the page; axe-core finds
no WCAG 2.1 A/AA problem, at 360×640 and 1280×800."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tradeoff.study.consent_added import set_contact
from tradeoff.study.folder import Study, create_study

from ..conftest import small_scenario_file
from .test_web import CONSENT
from .test_web_browser import CHROMIUM, Axe, page_problems, sync_playwright
from .test_web_panel_browser import browser, serve, shot, stop  # noqa: F401 - the fixture

if sync_playwright is not None:
    from playwright.sync_api import Browser

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed"),
    pytest.mark.skipif(sync_playwright is None, reason="playwright is not installed"),
    pytest.mark.skipif(Axe is None, reason="axe-playwright-python is not installed"),
]

CONTACT = (
    "Prof. Dr. Ada Lovelace-Byron, "
    "ada.lovelace.byron.studycoordination@universityhospitalofsomewhere.example.org"
)
SAID = {"en": "Contact its coordinator:", "de": "Wenden Sie sich an die Studienkoordination:"}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Study, dict[str, str], str]]:
    tmp = tmp_path_factory.mktemp("contact")
    scenario = small_scenario_file(tmp, **{"budget = 30": "budget = 2"})
    consent = tmp / "consent.md"
    consent.write_text(CONSENT)
    study, codes = create_study(scenario, ["p01", "p02"], tmp / "study", consent=consent)
    set_contact(study.path, CONTACT)
    server, base, log = serve(study, tmp)
    try:
        yield study, codes, base
    finally:
        stop(server, log)


@pytest.mark.parametrize("language", ["en", "de"])
def test_the_contact_fits_every_page_and_passes_axe(
    site: tuple[Study, dict[str, str], str],
    browser: Browser,  # noqa: F811
    language: str,
) -> None:
    _study, codes, base = site
    context = browser.new_context(locale="de-DE" if language == "de" else "en-US")
    page = context.new_page()
    problems: dict[str, list[str]] = {}

    def check(name: str) -> None:
        footer = page.locator("footer").last.inner_text()
        assert SAID[language] in footer and CONTACT in footer, (name, footer)
        problems[name] = page_problems(page)
        shot(page, f"contact-{name}-{language}")

    try:
        page.goto(base)
        check("code")
        page.fill("#code", codes["p01" if language == "en" else "p02"])
        page.click("button[type=submit]")
        page.wait_for_url("**/consent")
        page.click("button[value=agree]")
        page.wait_for_url("**/question")
        check("question")
        while page.url.endswith("/question"):
            page.click("button[value=left]")
            page.wait_for_load_state()
        page.wait_for_url("**/review")
        page.click("button[type=submit][formaction], form[action=finish] button")
        page.wait_for_url("**/done*")
        check("done")
        page.goto(base + "withdraw")
        check("withdraw")
    finally:
        context.close()
    assert {k: v for k, v in problems.items() if v} == {}
