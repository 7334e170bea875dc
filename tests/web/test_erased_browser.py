"""The page of someone erased on request, in headless Chromium, served by ``tradeoff study
serve`` while ``study erase`` runs beside it: a panel participant in the middle of a
session reloads their question, opens their link again in a new browser, and a code
participant enters their code again; each time the erased page (410), in English and
German, with the day of the erasure and neither their participant id nor their panel id.
axe-core finds no WCAG 2.1 A/AA problem on it and it is no wider than the window, at
360×640 and at 1280×800; the German page keeps no English message of the catalogue."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from tradeoff.study.erase import erase
from tradeoff.study.folder import Study, create_study
from tradeoff.study.panel import Panel

from ..conftest import small_scenario_file
from .test_web import CONSENT
from .test_web_browser import CHROMIUM, Axe, h1, page_problems, sync_playwright
from .test_web_browser_de import english_left
from .test_web_panel_browser import browser, serve, shot, stop  # noqa: F401 - the fixture

if sync_playwright is not None:
    from playwright.sync_api import Browser, Page

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed"),
    pytest.mark.skipif(sync_playwright is None, reason="playwright is not installed"),
    pytest.mark.skipif(Axe is None, reason="axe-playwright-python is not installed"),
]

WHEN = datetime(2026, 3, 5, 9, 30, tzinfo=UTC)
SAID = {
    "en": ("Your answers were erased", "on March 5, 2026", "cannot take part"),
    "de": ("Ihre Antworten wurden gelöscht", "am 5. März 2026", "nicht erneut teilnehmen"),
}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Study, dict[str, str], str]]:
    """A 3-question study with consent, access codes and a panel's open enrolment."""
    tmp = tmp_path_factory.mktemp("erased")
    scenario = small_scenario_file(tmp, **{"budget = 30": "budget = 3"})
    consent = tmp / "consent.md"
    consent.write_text(CONSENT)
    panel = Panel("PROLIFIC_PID", ("STUDY_ID",), b"0123456789abcdef", cap=20)
    study, codes = create_study(
        scenario, ["p01", "p02"], tmp / "study", consent=consent, panel=panel
    )
    server, base, log = serve(study, tmp)
    try:
        yield study, codes, base
    finally:
        stop(server, log)


def check_erased(page: Page, language: str, never: tuple[str, ...], name: str) -> list[str]:
    """The erased page's words, and what is wrong with it: axe at both sizes, wider than
    the window at either, English left in German, an id shown."""
    heading, day, again = SAID[language]
    assert h1(page) == heading, page.url
    text = page.locator("main").inner_text()
    assert day in text and again in text, text
    found = page_problems(page)
    if language == "de":
        found += [f"English: {p.pattern}" for p in english_left() if p.search(text)]
    html = page.content()
    found += [f"shows {word}" for word in never if word in html]
    shot(page, f"erased-{name}-{language}")
    return found


@pytest.mark.parametrize("language", ["en", "de"])
def test_the_erased_page_for_each_way_back_passes_axe_and_fits_the_window(
    site: tuple[Study, dict[str, str], str],
    browser: Browser,  # noqa: F811
    language: str,
) -> None:
    study, codes, base = site
    assert study.panel is not None
    panel_id = f"ERASED{language.upper()}"
    pid = study.panel.participant_of(panel_id)
    code_pid = "p01" if language == "en" else "p02"
    locale = "de-DE" if language == "de" else "en-US"
    problems: dict[str, list[str]] = {}

    context = browser.new_context(locale=locale)
    page = context.new_page()
    page.goto(base + f"panel?PROLIFIC_PID={panel_id}&STUDY_ID=s1")
    page.wait_for_url("**/consent")
    page.click("button[value=agree]")
    page.wait_for_url("**/question")
    coded = browser.new_context(locale=locale)
    other = coded.new_page()
    other.goto(base)
    other.fill("#code", codes[code_pid])
    other.click("button[type=submit]")
    other.wait_for_url(re.compile(r".*/consent$"))

    erase(study.path, pid, now=WHEN)
    erase(study.path, code_pid, now=WHEN)

    response = page.reload()  # the cookie held mid-session
    assert response is not None and response.status == 410
    problems["held"] = check_erased(page, language, (pid, panel_id), "held")
    context.close()

    context = browser.new_context(locale=locale)
    page = context.new_page()
    response = page.goto(base + f"panel?PROLIFIC_PID={panel_id}&STUDY_ID=s1")
    assert response is not None and response.status == 410
    problems["link"] = check_erased(page, language, (pid, panel_id, "s1"), "link")
    context.close()

    coded.clear_cookies()
    other.goto(base)
    other.fill("#code", codes[code_pid])
    with other.expect_response(lambda r: r.url.endswith("/code")) as answer:
        other.click("button[type=submit]")
    assert answer.value.status == 410
    problems["code"] = check_erased(other, language, (code_pid, codes[code_pid]), "code")
    coded.close()
    assert {k: v for k, v in problems.items() if v} == {}
    assert not (study.sessions_dir / pid).exists()
    assert not (study.sessions_dir / code_pid).exists()
