"""The review's "rests on one answer" sentence in headless Chromium, in English and German:
a clinician who weighs latency most answers five questions on the study page (the
question cap), the one question whose options differ in latency the wrong way round (as
``tests/cli/test_session_pick.py`` reaches it without a browser); the pick stands at
P(best) ≥ 0.95 on that one answer, and the review says that it turns on latency, which
fewer than two answers settle, in the language of the page. At a phone's (360×640) and a
desktop's (1280×800) width axe-core finds no WCAG 2.1 A/AA problem on the review and the
page does not scroll sideways."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest

from tradeoff.ask.scenario import load_scenario
from tradeoff.ask.shown import card_lines
from tradeoff.learn import Choice
from tradeoff.record.log import read_session
from tradeoff.record.replay import replay
from tradeoff.record.summary import summarise
from tradeoff.simulation.oracles import SimulatedOracle
from tradeoff.study.folder import Study, create_study
from tradeoff.web.i18n import languages

from ..conftest import SCENARIOS
from .test_web import CONSENT
from .test_web_browser import SIZES, enter
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

#: The clinician's true per-unit weights (malignant, benign, latency, memory): latency
#: carries most of the weight over its range.
LATENCY_MOST = (0.364832, 0.003555, 0.630419, 0.001194)
#: The statistic whose one answer is reversed: latency.
LATENCY = 2
SENTENCE = (
    "The pick turns on %(aspects)s, which fewer than two of your answers settle: a "
    "single slip there could change it."
)

#: The sentence's opening when the pick turns on latency and on memory (never asked).
LISTED = {
    "en": "The pick turns on latency and memory, which",
    "de": "Die Wahl hängt an latency und memory, was",
}


@pytest.fixture(scope="module")
def capped(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Study, dict[str, str], str]]:
    """The triage scenario capped at five questions, served for the module; p01 answers
    in English, p02 in German."""
    tmp = tmp_path_factory.mktemp("one-answer")
    text = (SCENARIOS / "breast-cancer-triage.toml").read_text(encoding="utf-8")
    text = text.replace("budget = 30", "budget = 5")
    text = text.replace('path = "pools/breast-cancer.csv"', 'path = "pool.csv"')
    shutil.copy(SCENARIOS / "pools" / "breast-cancer.csv", tmp / "pool.csv")
    scenario = tmp / "triage.toml"
    scenario.write_text(text, encoding="utf-8")
    consent = tmp / "consent.md"
    consent.write_text(CONSENT)
    study, codes = create_study(scenario, ["p01", "p02"], tmp / "study", consent=consent)
    server, base, log = serve(study, tmp)
    try:
        yield study, codes, base
    finally:
        stop(server, log)


def answer_with_latency_reversed_once(page: Page, study: Study, pid: str) -> None:
    """Answer every question as the clinician would, but the first one whose options
    differ in latency the wrong way round: each question as the session file has it
    replayed (the page shows the engine's next question), each answer checked in the file."""
    sc = load_scenario(study.scenario_path).scenario
    oracle = SimulatedOracle.for_scenario(sc, LATENCY_MOST)
    turned = {Choice.LEFT: Choice.RIGHT, Choice.RIGHT: Choice.LEFT}
    reversed_once, given = False, 0
    while page.url.endswith("/question"):
        [path] = (study.sessions_dir / pid).glob("*.jsonl")
        log = read_session(path)
        query = replay(log, population=study.populations()(log.header.scenario)).next_query()
        assert query is not None
        choice = oracle.choose(query)
        if card_lines(sc, query.left, query.right)[LATENCY].differs and not reversed_once:
            choice, reversed_once = turned.get(choice, choice), True
        page.click(f"button[value={choice.value}]")
        given += 1
        answers = [e for e in read_session(path).events if e.type == "answer"]
        assert len(answers) == given and answers[-1].choice == choice  # type: ignore[union-attr]
        assert given <= 5
    assert reversed_once and page.url.endswith("/review"), page.url


@pytest.mark.parametrize(("pid", "tag"), [("p01", "en"), ("p02", "de")])
def test_the_review_says_the_pick_rests_on_one_answer(
    capped: tuple[Study, dict[str, str], str],
    browser: Browser,  # noqa: F811
    pid: str,
    tag: str,
) -> None:
    study, codes, base = capped
    page = browser.new_context(locale="de-DE" if tag == "de" else "en-GB").new_page()
    enter(page, base, codes[pid])
    page.click("button[value=agree]")
    answer_with_latency_reversed_once(page, study, pid)
    [path] = (study.sessions_dir / pid).glob("*.jsonl")
    verdict = summarise(path, populations=study.populations()).verdict
    assert verdict is not None and verdict.stated >= 0.95 and LATENCY in verdict.one_answer
    lang = languages()[tag]
    names = ["flagged malignant lumps", "cleared benign lumps", "latency", "memory"]
    aspects = [names[j] for j in verdict.thin]  # those fewer than two answers settle
    assert aspects, verdict
    listed = (
        aspects[0]
        if len(aspects) == 1
        else lang.gettext("%(some)s and %(last)s")
        % {
            "some": ", ".join(aspects[:-1]),
            "last": aspects[-1],
        }
    )
    said = lang.gettext(SENTENCE) % {"aspects": listed}
    assert said != SENTENCE % {"aspects": listed} or tag == "en"
    assert len(aspects) == 1 or (" und " if tag == "de" else " and ") in said
    text = " ".join(page.locator("main").inner_text().split())
    assert said in text, text[:600]
    if verdict.thin == (LATENCY, LATENCY + 1):  # memory, never asked, too
        assert LISTED[tag] in text
    assert page.locator("html").get_attribute("lang") == tag
    for size in SIZES:
        page.set_viewport_size(size)
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= size["width"], (width, size)
    axe_at_every_size(page)
    shot(page, f"review-one-answer-{tag}")
    page.close()
