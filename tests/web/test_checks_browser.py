"""An attention check and the consent page asked again, in a real browser (headless
Chromium), in English and in German: axe-core finds no WCAG 2.1 A/AA problem at a phone's
(360×640) and a desktop's (1280×800) size, nothing is wider than the screen, and the check
reads as the question it stands among."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tradeoff.record.log import read_session
from tradeoff.study.consent_added import add_consent_version
from tradeoff.study.folder import Study, create_study

from ..conftest import small_scenario_file
from .test_web import CONSENT
from .test_web_browser import (
    CHROMIUM,
    SIZES,
    Axe,
    Browser,
    Page,
    axe_problems,
    browser,  # noqa: F401 - the module's browser, as a fixture here too
    enter,
    h1,
    serving,
    sync_playwright,
)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed"),
    pytest.mark.skipif(sync_playwright is None, reason="playwright is not installed"),
    pytest.mark.skipif(Axe is None, reason="axe-playwright-python is not installed"),
]

NEW_EN = "# About this study, version 2\n\nWe now keep your answers for ten years.\n"
NEW_DE = "# Über diese Studie, Version 2\n\nWir bewahren Ihre Antworten nun zehn Jahre auf.\n"


@pytest.fixture(scope="module")
def served(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Study, dict[str, str], str]]:
    """``tradeoff study serve`` on a study with consent and an attention check before the
    first question (p01 English, p02 German)."""
    tmp = tmp_path_factory.mktemp("checks-browser")
    scenario = small_scenario_file(tmp, **{"budget = 30": "budget = 4"})
    consent = tmp / "consent.md"
    consent.write_text(CONSENT)
    study, codes = create_study(
        scenario, ["p01", "p02"], tmp / "study", consent=consent, attention_checks=(1,)
    )
    with serving(study.path, tmp / "server.log") as url:
        yield study, codes, url


def looked_at(page: Page, name: str, found: dict[str, list[str]]) -> None:
    """axe at both sizes, and nothing wider than the screen."""
    found[name] = axe_problems(page)
    for size in SIZES:
        page.set_viewport_size(size)
        width = page.evaluate("() => document.documentElement.scrollWidth")
        if width > size["width"]:
            found[name].append(f"{width} px wide at {size['width']} px")


def test_an_attention_check_and_consent_asked_again_in_english_and_german(
    served: tuple[Study, dict[str, str], str],
    browser: Browser,  # noqa: F811
) -> None:
    study, codes, base = served
    found: dict[str, list[str]] = {}
    english = browser.new_context()
    german = browser.new_context(locale="de-DE")
    pages = {"en": english.new_page(), "de": german.new_page()}
    words = {
        "en": ("Information and consent", "Question 1", "Question 2", "ten years", "changed"),
        "de": ("Information und Einwilligung", "Frage 1", "Frage 2", "zehn Jahre", "geändert"),
    }
    people = {"en": "p01", "de": "p02"}
    try:
        for lang, page in pages.items():
            consent, first, second, _, _ = words[lang]
            enter(page, base, codes[people[lang]])
            assert h1(page) == consent
            page.click("button[value=agree]")
            assert h1(page) == first  # the check, read as the first question
            looked_at(page, f"{lang} attention check", found)
            page.click("button[value=left]")
            assert h1(page) == second
        add_consent_version(study.path, _text(study, "v2.md", NEW_EN), "2")
        add_consent_version(study.path, _text(study, "v2.de.md", NEW_DE), "2", "de")
        for lang, page in pages.items():
            consent, _, second, new, changed = words[lang]
            page.goto(base + "question")
            assert page.url.endswith("/consent") and h1(page) == consent
            assert new in page.inner_text("main") and changed in page.inner_text("main")
            looked_at(page, f"{lang} consent again", found)
            page.click("button[value=agree]")
            assert h1(page) == second
    finally:
        english.close()
        german.close()
    problems = "\n".join(f"{name}: {line}" for name, lines in found.items() for line in lines)
    assert problems == ""
    for pid, lang in (("p01", "en"), ("p02", "de")):
        [path] = sorted((study.sessions_dir / pid).glob("*.jsonl"))
        log = read_session(path)
        assert [c.position for c in log.checks] == [1]
        assert [(c.version, c.language) for c in log.consents] == [("1", lang), ("2", lang)]


def _text(study: Study, name: str, body: str) -> str:
    path = study.path.parent / name
    path.write_text(body)
    return str(path)
