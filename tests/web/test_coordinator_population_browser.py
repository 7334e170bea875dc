"""The coordinator's population section in headless Chromium, served by ``tradeoff study
serve`` on a small study whose four simulated participants finished: at a phone's
(360×640) and a desktop's (1280×800) width axe-core finds no WCAG 2.1 A/AA problem, the
page does not scroll sideways (a wide table scrolls in its own region), and both tables
are there, each a region named by a heading of its own, with the headers a coordinator reads:
the swing shares' percentiles, and the groups, how sure, the model each would pick
(``TRADEOFF_SCREENSHOTS_DIR=DIR`` writes screenshots there)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tradeoff.study.folder import Study
from tradeoff.study.keys import new_key

from .population_study import HOSTILE, population_study
from .test_web_browser import SIZES, h1
from .test_web_panel_browser import (  # noqa: F401 - the browser fixture
    CHROMIUM,
    axe_at_every_size,
    browser,
    serve,
    shot,
    stop,
    sync_playwright,
)

if sync_playwright is not None:
    from playwright.sync_api import Browser, Page

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed"),
    pytest.mark.skipif(sync_playwright is None, reason="playwright is not installed"),
]

SHARES = ["Aspect", "10th percentile", "Median", "90th percentile", "Informed by"]
GROUPS = ["Group", "Participants", "Mean probability of membership", "Model it would pick"]


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Study, str]]:
    tmp = tmp_path_factory.mktemp("population-browser")
    study = population_study(tmp)
    server, base, log = serve(study, tmp)
    try:
        yield study, base
    finally:
        stop(server, log)


def table_of(page: Page, heading: str) -> tuple[list[str], list[list[str]]]:
    """The headers and body rows of the table whose region is named ``heading``."""
    region = page.get_by_role("region", name=heading, exact=True)
    assert region.count() == 1, heading
    headers = [t.strip() for t in region.locator("thead th").all_inner_texts()]
    rows = [
        [c.strip() for c in row.locator("th, td").all_inner_texts()]
        for row in region.locator("tbody tr").all()
    ]
    return headers, rows


def test_the_population_section_at_a_phones_and_a_desktops_width(
    finished: tuple[Study, str],
    browser: Browser,  # noqa: F811
) -> None:
    study, base = finished
    key = new_key(study.path, "coordinator")
    page = browser.new_context().new_page()
    page.goto(base + "coordinator")
    page.fill("#key", key)
    page.click("button[type=submit]")
    assert h1(page) == "The coordinator's page"
    section = page.locator("section[aria-labelledby=h-population]")
    assert "Fewer than two complete sessions" not in section.inner_text()
    headings = section.locator("h3").all_inner_texts()
    assert len(headings) == 2 and headings[0] != headings[1]
    headers, rows = table_of(page, headings[0])
    assert headers == SHARES
    names = ["flagged malignant lumps", "cleared benign lumps", "latency", "memory"]
    assert [r[0] for r in rows] == names
    for row in rows:
        assert all(c.endswith("%") or c == "—" for c in row[1:4]), row
        assert row[4].endswith("of 4"), row
    assert any(r[2].endswith("%") for r in rows)
    headers, rows = table_of(page, headings[1])
    assert headers == GROUPS
    assert sum(int(r[1]) for r in rows) == 4
    assert all(r[3].startswith(HOSTILE) for r in rows)  # the pool's name, as text
    for size in SIZES:
        page.set_viewport_size(size)
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= size["width"], (width, size)
        assert section.locator("table").first.is_visible()
    axe_at_every_size(page)
    shot(page, "coordinator-population")
    page.close()
