"""The study web page in a real browser (headless Chromium): axe-core finds no WCAG 2.1 A/AA
problem on any page at a phone's and a desktop's width; a whole session can be done with
the keyboard alone, focus always visible; a question reads in order without a table; and
screenshots of the pages (``TRADEOFF_SCREENSHOTS=1`` writes them to ``docs/``)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tradeoff.record.log import read_session
from tradeoff.study.folder import Study, create_study

from ..conftest import CHROMIUM_ARGS, ROOT, small_scenario_file
from .test_web import CONSENT

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

try:
    from playwright.sync_api import Browser, Page, ViewportSize, sync_playwright
except ImportError:  # pragma: no cover - the test extra installs it
    sync_playwright = None  # type: ignore[assignment]

try:
    from axe_playwright_python.sync_playwright import Axe
except ImportError:  # pragma: no cover - the test extra installs it
    Axe = None

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        CHROMIUM is None,
        reason="Chromium is not installed (.ci/run installs the "
        "Debian package; `apt-get install chromium` to run this test)",
    ),
    pytest.mark.skipif(sync_playwright is None, reason="playwright is not installed"),
]
#: What a browser test that runs axe skips without (its tier, ``pytest.mark.browser``, is
#: its own): the skips above, and axe installed.
AXE_SKIPS = [
    *pytestmark[1:],
    pytest.mark.skipif(Axe is None, reason="axe-playwright-python is not installed"),
]

#: A phone held upright and a desktop.
SIZES: tuple[ViewportSize, ...] = ({"width": 360, "height": 640}, {"width": 1280, "height": 800})
WCAG = {
    "runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]},
    "resultTypes": ["violations"],
}


@contextlib.contextmanager
def serving(folder: Path, log: Path) -> Iterator[str]:
    """``tradeoff study serve FOLDER`` in a process of its own on a free port, its output in
    ``log`` (a file, not a pipe: nothing can fill up and stall the server); yields its
    address once it takes connections, and stops it (SIGTERM, exit 0) after."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT / "src"), env.get("PYTHONPATH", "")) if p
    )
    command = [sys.executable, "-m", "tradeoff", "study", "serve", str(folder), "--port", str(port)]
    with log.open("wb") as out:
        server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while True:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if server.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"the study server did not start:\n{log.read_text()}")
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/"
    finally:
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=10) == 0, log.read_text()


@pytest.fixture(scope="module")
def served(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Study, dict[str, str], str]]:
    """``tradeoff study serve`` on a 4-question study with consent, for the whole module:
    each test has participants of its own (p01 and p03 axe, p02 the keyboard, p04 the
    reading order, p05 the screenshots)."""
    tmp = tmp_path_factory.mktemp("web-browser")
    scenario = small_scenario_file(tmp)
    scenario.write_text(scenario.read_text().replace("budget = 30", "budget = 4"))
    consent = tmp / "consent.md"
    consent.write_text(CONSENT)
    people = [f"p0{n}" for n in range(1, 6)]
    study, codes = create_study(scenario, people, tmp / "study", consent=consent)
    with serving(study.path, tmp / "server.log") as url:
        yield study, codes, url


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def h1(page: Page) -> str:
    return page.locator("h1").first.inner_text().strip()


def enter(page: Page, base: str, code: str) -> None:
    page.goto(base)
    page.fill("#code", code)
    page.click("button[type=submit]")


def answer_all(page: Page) -> None:
    n = 0
    while page.url.endswith("/question"):
        page.click("button[value=left]" if n % 2 == 0 else "button[value=right]")
        n += 1
        assert n < 30
    assert page.url.endswith("/review")


# -- axe ----------------------------------------------------------------------------------


def axe_problems(page: Page) -> list[str]:
    """axe-core's WCAG 2.1 A and AA violations on the page at both sizes, as lines."""
    problems = []
    for size in SIZES:
        page.set_viewport_size(size)
        results = Axe().run(page, options=WCAG)
        for v in results.response["violations"]:
            targets = [", ".join(map(str, node["target"])) for node in v["nodes"]]
            problems.append(f"{size['width']}px {v['id']}: {v['help']} at {targets}")
    return problems


def page_problems(page: Page) -> list[str]:
    """:func:`axe_problems`, and the page wider than the window at either size."""
    found = axe_problems(page)
    for size in SIZES:
        page.set_viewport_size(size)
        width = page.evaluate("() => document.documentElement.scrollWidth")
        if width > size["width"]:
            found.append(f"{width} px wide at {size['width']} px")
    return found


@pytest.mark.skipif(Axe is None, reason="axe-playwright-python is not installed")
def test_axe_finds_no_wcag_problem_on_any_page_at_two_sizes(
    served: tuple[Study, dict[str, str], str], browser: Browser
) -> None:
    _study, codes, base = served
    found: dict[str, list[str]] = {}
    # axe is injected by Playwright's evaluate, which the page's CSP (default-src 'none')
    # does not block: the pages are checked as served, CSP and all (no bypass_csp).
    context = browser.new_context()
    page = context.new_page()

    def check(name: str, title: str | None = None) -> None:
        if title is not None:
            assert h1(page) == title, (name, page.url)
        found[name] = axe_problems(page)

    try:
        page.goto(base)
        check("code", "Welcome")
        enter(page, base, "AAAA-BBBB-CCCC-DDDD")
        assert page.locator("[role=alert]").is_visible()
        # the field says what is wrong with it, not only the box above it
        assert page.get_attribute("#code", "aria-invalid") == "true"
        assert page.get_attribute("#code", "aria-describedby") == "code-error code-hint"
        check("wrong code", "Welcome")
        enter(page, base, codes["p03"])
        check("consent", "Information and consent")
        page.click("button[value=decline]")
        check("declined", "Thank you")

        enter(page, base, codes["p01"])
        page.click("button[value=agree]")
        check("question", "Question 1")
        page.click("button[value=left]")
        page.click("form[action=undo] button")
        assert page.locator(".notice").is_visible()
        check("question after undo", "Question 1")
        page.locator("input[name=csrf]").first.evaluate("e => e.value = 'x'")
        page.click("button[value=left]")
        check("expired form", "This page has expired")
        page.goto(base + "question")
        page.click("form[action=pause] button")
        check("saved", "Saved")
        page.goto(base + "no-such-page")
        check("not found", "Page not found")

        enter(page, base, codes["p01"])
        answer_all(page)
        check("review", "What we learned")
        page.click("form[action=finish] button")
        check("thank you", "Thank you")
    finally:
        context.close()
    report = "\n".join(f"{name}: {line}" for name, lines in found.items() for line in lines)
    print(report)
    assert not report, report


# -- the keyboard alone -------------------------------------------------------------------


def focused(page: Page, selector: str) -> bool:
    return page.locator(f"{selector}:focus").count() == 1


def tab_to(page: Page, selector: str, presses: int = 20) -> None:
    """Press Tab until the element ``selector`` has the focus."""
    for _ in range(presses):
        page.keyboard.press("Tab")
        if focused(page, selector):
            return
    raise AssertionError(f"{presses} presses of Tab did not reach {selector} on {page.url}")


def press_and_wait(page: Page, key: str) -> None:
    """Press ``key`` on the focused button and wait for the page it leads to."""
    with page.expect_navigation():
        page.keyboard.press(key)


def test_a_whole_session_with_the_keyboard_alone(
    served: tuple[Study, dict[str, str], str], browser: Browser
) -> None:
    """Tab, Enter, Space and typing: from the code to the thank-you, no mouse, no fill."""
    study, codes, base = served
    context = browser.new_context(viewport=SIZES[0])
    page = context.new_page()
    try:
        page.goto(base)
        tab_to(page, "#code")
        page.keyboard.type(codes["p02"])
        press_and_wait(page, "Enter")  # Enter in the field submits its form
        assert h1(page) == "Information and consent"
        tab_to(page, "button[value=agree]")
        press_and_wait(page, "Space")
        assert h1(page) == "Question 1"
        answered = 0
        while page.url.endswith("/question"):
            tab_to(page, "button[value=left]")
            # the focus is visible: the focused button has an outline
            outline = page.locator(":focus").evaluate("e => getComputedStyle(e).outlineStyle")
            assert outline != "none", f"no visible focus on {h1(page)}"
            press_and_wait(page, "Enter" if answered % 2 == 0 else "Space")
            answered += 1
            assert answered < 30
        assert h1(page) == "What we learned"
        tab_to(page, "form[action=finish] button")
        press_and_wait(page, "Enter")
        assert h1(page) == "Thank you"
    finally:
        context.close()
    [path] = sorted((study.sessions_dir / "p02").glob("*.jsonl"))
    log = read_session(path)
    assert log.finished and log.consent is not None
    assert path.read_text().splitlines()[0].startswith('{"type": "consent"')
    assert len([e for e in log.events if e.type == "answer"]) == answered


# -- the order a screen reader reads ------------------------------------------------------


def test_a_question_reads_in_order_without_a_table(
    served: tuple[Study, dict[str, str], str], browser: Browser
) -> None:
    """Each option is a section with its heading and a list of lines; the three answers are
    one group with a legend: read top to bottom, nothing is lost."""
    _study, codes, base = served
    context = browser.new_context(viewport=SIZES[1])
    page = context.new_page()
    try:
        enter(page, base, codes["p04"])
        page.click("button[value=agree]")
        assert h1(page) == "Question 1"
        assert page.locator("table").count() == 0
        sections = page.locator("main section")
        assert sections.count() == 2
        for n, name in enumerate(("Option A", "Option B")):
            section = sections.nth(n)
            assert section.locator("h2").inner_text().strip() == name
            assert section.get_attribute("aria-labelledby") == section.locator("h2").get_attribute(
                "id"
            )
            lines = section.locator("ul > li")
            assert lines.count() >= 2
            assert all(text.strip() for text in lines.all_inner_texts())
        # the words that differ between the options are said, not only coloured
        assert page.locator("li.differs .delta").count() >= 2
        fieldset = page.locator("form[action=answer] fieldset")
        assert fieldset.locator("legend").inner_text().strip() == "Your answer"
        buttons = fieldset.locator("button")
        assert [b.strip() for b in buttons.all_inner_texts()] == [
            "Option A",
            "Option B",
            "Can't tell",
        ]
        # read linearly: the question, option A and its lines, option B and its lines,
        # then the answers under their legend
        words = page.locator("main").inner_text()
        place = 0
        for said in (
            "Question 1",
            "Which one",
            "Option A",
            "Option B",
            "Your answer",
            "Can't tell",
        ):
            place = words.index(said, place)
    finally:
        context.close()


# -- screenshots ----------------------------------------------------------------------------


def test_screenshots_of_each_step_at_a_phone_and_a_desktop_width(
    served: tuple[Study, dict[str, str], str], browser: Browser, tmp_path: Path
) -> None:
    """Full-page screenshots of the code, consent, question, review and thank-you pages at
    360 and 1280 px (to ``docs/`` with ``TRADEOFF_SCREENSHOTS=1``, else to a temporary
    folder); nothing is wider than the phone's screen, and the options stand side by side
    on the desktop and one above the other on the phone."""
    _study, codes, base = served
    folder = ROOT / "docs" if os.environ.get("TRADEOFF_SCREENSHOTS") == "1" else tmp_path
    context = browser.new_context()
    page = context.new_page()
    written = []

    def shoot(name: str, check: Callable[[Page, int], None] | None = None) -> None:
        for size in SIZES:
            page.set_viewport_size(size)
            width = page.evaluate("() => document.documentElement.scrollWidth")
            assert width <= size["width"], f"{name} is {width} px wide at {size['width']} px"
            if check is not None:
                check(page, size["width"])
            path = folder / f"study-{name}-{size['width']}.png"
            page.screenshot(path=str(path), full_page=True)
            written.append(path)

    def options_layout(page: Page, width: int) -> None:
        a, b = (page.locator("section.option").nth(n).bounding_box() for n in (0, 1))
        assert a is not None and b is not None
        if width >= 1000:
            assert a["y"] == b["y"] and a["x"] + a["width"] <= b["x"], "not side by side"
        else:
            assert a["y"] + a["height"] <= b["y"], "not one above the other"

    try:
        page.goto(base)
        shoot("code")
        enter(page, base, codes["p05"])
        shoot("consent")
        page.click("button[value=agree]")
        shoot("question", options_layout)
        answer_all(page)
        shoot("review")
        page.click("form[action=finish] button")
        assert h1(page) == "Thank you"
        shoot("thank-you")
    finally:
        context.close()
    assert len(written) == 10 and all(p.stat().st_size > 5_000 for p in written)
