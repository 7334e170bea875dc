"""A panel whose completion is a URL without a code, in headless Chromium, in English and
German: from the last page the browser is sent on to the panel's address at once (as the
panel needs); a participant who opens their link again reads a page that stays, with the
panel's link and the way to withdraw, which they follow to the end. axe-core finds no
WCAG 2.1 A/AA problem on it and it is no wider than the window at 360×640 and 1280×800."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tradeoff.study.folder import Study, load_study
from tradeoff.study.panel import Ending, Panel
from tradeoff.study.withdrawals import withdrawn

from .test_panel_leaving_browser import TITLES, check
from .test_web_browser import AXE_SKIPS, h1, sync_playwright
from .test_web_panel_browser import browser, make, served  # noqa: F401 - the fixture

if sync_playwright is not None:
    from playwright.sync_api import Browser, Route

pytestmark = [pytest.mark.browser, *AXE_SKIPS]

PANEL = "https://panel.example/complete"
BACK = {"en": "Go back to the panel", "de": "Zurück zum Panel"}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Study, str]]:
    """A 3-question study with consent and a panel whose completion is a URL alone."""
    tmp = tmp_path_factory.mktemp("panel-done-url")
    panel = Panel(
        "PROLIFIC_PID",
        (),
        b"0123456789abcdef",
        cap=20,
        complete=Ending(url=PANEL + "?pid={PROLIFIC_PID}"),
        declined=Ending(code="LEFT01"),
    )
    study = make(tmp, panel)
    with served(study, tmp) as base:
        yield study, base


@pytest.mark.parametrize("language", ["en", "de"])
def test_opened_again_the_completion_stays_and_offers_withdrawing(
    site: tuple[Study, str],
    browser: Browser,  # noqa: F811
    language: str,
) -> None:
    study, base = site
    panel_id = f"URL{language.upper()}1"
    context = browser.new_context(locale="de-DE" if language == "de" else "en-US")
    page = context.new_page()
    reached: list[str] = []

    def panel_site(route: Route) -> None:
        reached.append(route.request.url)
        route.fulfill(status=200, content_type="text/html", body="<title>panel</title>")

    page.route(PANEL + "*", panel_site)
    page.goto(base + f"panel?PROLIFIC_PID={panel_id}")
    page.click("button[value=agree]")
    page.wait_for_url("**/question")
    while page.url.endswith("/question"):
        page.click("button[value=left]")
    page.click("form[action=finish] button")
    page.wait_for_url(PANEL + "*")  # from the last page: on to the panel at once
    assert reached == [f"{PANEL}?pid={panel_id}"]

    page.goto(base + f"panel?PROLIFIC_PID={panel_id}")  # the link opened again
    page.wait_for_url("**/done")
    page.wait_for_timeout(500)  # a refresh of 0 s would have left by now
    assert page.url.endswith("/done") and len(reached) == 1
    assert page.locator(f"main a[href='{PANEL}?pid={panel_id}']").inner_text() == BACK[language]
    problems: dict[str, list[str]] = {}
    check(page, "done again", problems)
    page.click("main a[href=withdraw]")
    assert h1(page) == TITLES[language]["ask"]
    page.click("button[value=withdraw]")
    assert h1(page) == TITLES[language]["gone"]
    assert "LEFT01" in page.locator("main").inner_text()
    context.close()
    assert {k: v for k, v in problems.items() if v} == {}
    assert study.panel is not None
    assert study.panel.participant_of(panel_id) in withdrawn(load_study(study.path))
