"""The LLM leaderboard answered to the end on the study page in a real browser (headless
Chromium), at a phone's width (360×640) and a desktop's (1280×800), as a person choosing a
language model would: the code page, the consent, every question (two models by their
scores and CO₂, answered as one consistent person), what we learned, the thank-you. On
every page axe-core finds no WCAG 2.1 A/AA problem, nothing is wider than the screen, and
nothing speaks of classes, recalls or counts per 1,000 cases."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from tradeoff.record.log import read_session
from tradeoff.study.folder import Study, create_study

from ..conftest import SCENARIOS
from .test_web import CONSENT
from .test_web_browser import SIZES, WCAG, Axe, browser, enter, h1, serving, sync_playwright

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, ViewportSize

__all__ = ["browser"]  # the module's fixture: one Chromium for both sizes

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed"),
    pytest.mark.skipif(sync_playwright is None, reason="playwright is not installed"),
    pytest.mark.skipif(Axe is None, reason="axe-playwright-python is not installed"),
]

#: Words of a classifier's questions that have no place where options are models
#: described by their scores and CO₂.
CLASSIFIER_WORDS = ("classifier", "class ", "classes", "recall", "of 1,000", "per 1,000", "cases")
BUDGET = 8


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Study, dict[str, str], str]]:
    """``tradeoff study serve`` on a study of the shipped leaderboard scenario (at most
    :data:`BUDGET` questions, its pool beside it), with consent, for the whole module."""
    tmp = tmp_path_factory.mktemp("leaderboard-browser")
    scenario = tmp / "llm-leaderboard.toml"
    text = (SCENARIOS / "llm-leaderboard.toml").read_text()
    assert "budget = 30" in text
    scenario.write_text(text.replace("budget = 30", f"budget = {BUDGET}"))
    (tmp / "pools").mkdir()
    shutil.copy(SCENARIOS / "pools" / "llm-leaderboard.csv", tmp / "pools")
    consent = tmp / "consent.md"
    consent.write_text(CONSENT)
    study, codes = create_study(scenario, ["p01", "p02"], tmp / "study", consent=consent)
    with serving(study.path, tmp / "server.log") as url:
        yield study, codes, url


def checked(page: Page, size: ViewportSize, name: str, found: dict[str, list[str]]) -> str:
    """The page's words, once axe-core and the page's width are checked (problems into
    ``found``, under ``name``) and no classifier's word is found in them."""
    problems = []
    width = page.evaluate("() => document.documentElement.scrollWidth")
    if width > size["width"]:
        problems.append(f"{width} px wide at {size['width']} px")
    for v in Axe().run(page, options=WCAG).response["violations"]:
        targets = [", ".join(map(str, node["target"])) for node in v["nodes"]]
        problems.append(f"{v['id']}: {v['help']} at {targets}")
    text = page.locator("main").inner_text()
    problems += [f"says {w!r}" for w in CLASSIFIER_WORDS if w in text.lower()]
    if problems:
        found[name] = problems
    return text


def option_value(page: Page, side: int, shown: str) -> float:
    """The number an option shows before ``shown`` ("kg CO₂ to evaluate"), 0 if none."""
    said = page.locator("section.option").nth(side).inner_text()
    m = re.search(r"([\d.]+) " + re.escape(shown), said)
    return float(m.group(1)) if m else 0.0


def pick(page: Page) -> str:
    """One consistent person: instruction following and expert knowledge, less 3 points a
    kg of CO₂; the button of the option worth more to them."""
    worth = [
        option_value(page, side, "points on IFEval")
        + option_value(page, side, "points on MMLU-PRO")
        - 3 * option_value(page, side, "kg CO₂ to evaluate")
        for side in (0, 1)
    ]
    return "button[value=left]" if worth[0] >= worth[1] else "button[value=right]"


@pytest.mark.parametrize("size", SIZES, ids=[f"{s['width']}x{s['height']}" for s in SIZES])
def test_the_leaderboard_answered_to_the_end(
    served: tuple[Study, dict[str, str], str], browser: Browser, size: ViewportSize
) -> None:
    study, codes, base = served
    who = "p01" if size["width"] < 1000 else "p02"
    found: dict[str, list[str]] = {}
    context = browser.new_context(viewport=size)
    page = context.new_page()
    try:
        page.goto(base)
        assert h1(page) == "Welcome"
        welcome = checked(page, size, "code", found)
        assert "open language model" in welcome and f"At most {BUDGET} questions" in welcome
        assert "settle which option suits you" in welcome  # options, not candidate models
        enter(page, base, codes[who])
        assert h1(page) == "Information and consent"
        checked(page, size, "consent", found)
        page.click("button[value=agree]")
        answered = 0
        while page.url.endswith("/question"):
            assert h1(page) == f"Question {answered + 1}"
            said = checked(page, size, f"question {answered + 1}", found)
            for shown in ("kg CO₂ to evaluate", "points on IFEval", "points on MATH Lvl 5"):
                assert said.count(shown) == 2, (shown, said)
            # two of the pool's own options are real options, not models "measured at"
            assert "candidate model" not in said and "measured" not in said, said
            page.click(pick(page))
            answered += 1
            assert answered <= BUDGET
        assert h1(page) == "What we learned"
        review = checked(page, size, "what we learned", found)
        assert f"From your {answered} answers" in review
        assert "candidate model" not in review, review
        for aspect in ("CO2", "IFEval", "BBH", "MATH", "MMLU-PRO"):
            assert f"{aspect}: " in review
        page.click("form[action=finish] button")
        assert h1(page) == "Thank you"
        checked(page, size, "thank you", found)
    finally:
        context.close()
    assert not found, "\n".join(
        f"{name}: {line}" for name, lines in found.items() for line in lines
    )
    [path] = sorted((study.sessions_dir / who).glob("*.jsonl"))
    log = read_session(path)
    assert log.finished and log.consent is not None
    assert len([e for e in log.events if e.type == "answer"]) == answered
