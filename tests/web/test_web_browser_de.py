"""The study web page in German, in a real browser (headless Chromium): a participant whose
browser asks for German (``Accept-Language: de-DE``) goes from the code through consent,
the questions (one answer taken back) and the review to the thank-you, every page in
German: no English message of the catalogue is left on any page (only the scenario's and
the consent text's own words, which stay as the study wrote them), numbers with German
separators ("1.000", "$0,21", "37 %"), axe-core finds no WCAG 2.1 A/AA problem at a
phone's and a desktop's width, and every answer recorded says ``language: "de"``. An
English browser gets there by the code page's language switch, from the keyboard."""

from __future__ import annotations

import re

import pytest
from babel.messages.pofile import read_po

from tradeoff.ask.scenario import load_scenario
from tradeoff.record.log import read_session
from tradeoff.study.folder import Study
from tradeoff.web.i18n import LOCALE_DIR, TEMPLATE
from tradeoff.web.pages import safe_markdown

from .test_web import CONSENT
from .test_web_browser import (  # noqa: F401 - the fixtures, a server of this module's own
    CHROMIUM,
    SIZES,
    Axe,
    Browser,
    Page,
    axe_problems,
    browser,
    enter,
    h1,
    served,
)
from .test_web_i18n import text_nodes

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed"),
]

FIELD = re.compile(r"%\([a-z_]+\)[sd]|%%|\{[a-z_]*\}")


def english_left() -> list[re.Pattern[str]]:
    """The English words of every message German says otherwise: each run of text between
    a message's fields that is not in its German translation, as a whole-word pattern."""
    with TEMPLATE.open("rb") as fh:
        template = read_po(fh)
    with (LOCALE_DIR / "de" / "LC_MESSAGES" / "tradeoff.po").open("rb") as fh:
        german = read_po(fh, locale="de")
    out = set()
    for message in template:
        if not message.id:
            continue
        found = german[message.id]
        sources = [message.id] if isinstance(message.id, str) else list(message.id)
        strings = [found.string] if isinstance(found.string, str) else list(found.string)
        said = " ".join(strings)
        for source in sources:
            for part in FIELD.split(source):
                part = part.strip(" .,:;()–")
                if len(part) >= 4 and part not in said:
                    out.add(part)
    return [re.compile(rf"(?<!\w){re.escape(p)}(?!\w)") for p in sorted(out)]


def test_the_page_in_german_from_the_code_to_the_thank_you(
    served: tuple[Study, dict[str, str], str],  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    study, codes, base = served
    scenario = load_scenario(study.scenario_path).scenario
    data = {scenario.title} | set(text_nodes(safe_markdown(scenario.description)))
    data |= set(text_nodes(safe_markdown(CONSENT)))
    data |= {f"{c.outcome} {c.label}" for c in scenario.classes}
    data |= {a.name for a in scenario.attributes}
    english = english_left()
    assert len(english) > 100
    context = browser.new_context(locale="de-DE")
    page = context.new_page()
    seen: dict[str, str] = {}
    problems: dict[str, list[str]] = {}
    wide: list[str] = []

    def check(name: str, title: str) -> None:
        assert h1(page) == title, (name, page.url)
        html = page.content()
        assert '<html lang="de">' in html, name
        # the scenario's title is the study's own words, in the page's title too
        nodes = [n.replace(scenario.title, "") for n in text_nodes(html) if n not in data]
        nodes.append(page.title().replace(scenario.title, ""))
        left = [(n, p.pattern) for n in nodes for p in english if p.search(n)]
        assert left == [], (name, left)
        seen[name] = "\n".join(nodes)
        if Axe is not None:
            problems[name] = axe_problems(page)
        for size in SIZES:  # the longer German words fit a phone's width too
            page.set_viewport_size(size)
            width = page.evaluate("() => document.documentElement.scrollWidth")
            if width > size["width"]:
                wide.append(f"{name} is {width} px wide at {size['width']} px")

    try:
        page.goto(base)
        check("code", "Willkommen")
        enter(page, base, "AAAA-BBBB-CCCC-DDDD")
        check("wrong code", "Willkommen")
        enter(page, base, codes["p01"])
        check("consent", "Information und Einwilligung")
        page.click("button[value=agree]")
        check("question", "Frage 1")
        page.click("button[value=left]")
        check("question 2", "Frage 2")
        page.click("form[action=undo] button")
        check("question after undo", "Frage 1")
        n = 0
        while "/question" in page.url:
            page.click("button[value=left]" if n % 2 == 0 else "button[value=right]")
            n += 1
            assert n < 30
        check("review", "Was wir erfahren haben")
        page.click("form[action=finish] button")
        check("thank you", "Vielen Dank")
    finally:
        context.close()
    # German numbers: a count per 1.000, the cost's decimal comma in the scenario's own
    # format, percentages with a space before the sign
    assert re.search(r"\d+ von 1\.000 ", seen["question"]), seen["question"]
    assert re.search(r"\$\d+,\d\d per scan", seen["question"]), seen["question"]
    assert re.search(r"\d\u00a0%", seen["review"]), seen["review"]
    assert not re.search(r"\d%", seen["review"]), seen["review"]
    assert wide == []
    report = "\n".join(f"{name}: {line}" for name, lines in problems.items() for line in lines)
    assert not report, report
    [path] = sorted((study.sessions_dir / "p01").glob("*.jsonl"))
    log = read_session(path)
    answers = [e for e in log.events if e.type == "answer"]
    assert log.finished and log.consent is not None and log.consent.language == "de"
    assert len(answers) >= 5 and all(a.language == "de" for a in answers)


def test_an_english_browser_switches_to_german_on_the_first_page(
    served: tuple[Study, dict[str, str], str],  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    """The switch on the code page: reached with the keyboard, it turns the page German and
    the pages after it stay German (its cookie), axe-clean at both sizes."""
    study, codes, base = served
    context = browser.new_context(locale="en-US")
    page = context.new_page()
    try:
        page.goto(base)
        assert h1(page) == "Welcome"
        for _ in range(20):
            page.keyboard.press("Tab")
            if page.locator("nav.languages a[lang=de]:focus").count() == 1:
                break
        else:
            raise AssertionError("Tab never reached the switch's Deutsch")
        with page.expect_navigation():
            page.keyboard.press("Enter")
        assert h1(page) == "Willkommen"
        if Axe is not None:
            assert axe_problems(page) == []
        enter(page, base, codes["p02"])
        assert h1(page) == "Information und Einwilligung"
        page.click("button[value=agree]")
        assert h1(page) == "Frage 1"
        page.click("button[value=left]")
        assert h1(page) == "Frage 2"
    finally:
        context.close()
    [path] = sorted((study.sessions_dir / "p02").glob("*.jsonl"))
    log = read_session(path)
    assert log.consent is not None and log.consent.language == "de"
    assert [e.language for e in log.events if e.type == "answer"] == ["de"]


if Axe is None:  # pragma: no cover - the test extra installs it
    pytestmark.append(pytest.mark.skip(reason="axe-playwright-python is not installed"))
