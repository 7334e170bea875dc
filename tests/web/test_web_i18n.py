"""Every word of the study web page goes through its message catalogue: shown in a
pseudo-locale, no page of a whole session has a word of the page's own outside it, the
option cards, the trade-offs and the consistency check included (only the scenario's and
the consent text's words are data: its title, description, the attributes' own formats and
the aspects' names); every sentence the core writes for the page, in each of its branches,
is catalogued; the catalogue's template is current; the German catalogue translates every
message with the same fields; the language shown is recorded with the consent and with
every answer."""

from __future__ import annotations

import html as htmllib
import re
from pathlib import Path

import numpy as np
import pytest
from aiohttp.test_utils import TestServer
from babel.messages.pofile import read_po

from tradeoff.ask.narrative import tradeoffs
from tradeoff.ask.queries import ClassifierProfile, Query
from tradeoff.ask.scenario import load_scenario
from tradeoff.ask.shown import attribute_line, card_lines
from tradeoff.ask.words import not_asked_words, option_title, question_prompt, tradeoff_headings
from tradeoff.choose.measurement_words import measurement_sentences, noise_stop_sentence
from tradeoff.choose.range_words import outside_range_words
from tradeoff.choose.recommend import NoiseTie
from tradeoff.learn import Choice, Consistency
from tradeoff.learn.engine import answer_pattern
from tradeoff.learn.shares import Shares, left_out_words
from tradeoff.learn.verdict import Verdict, one_answer_words
from tradeoff.record.log import read_session
from tradeoff.record.recorder import Recorder
from tradeoff.text import YOU, Words
from tradeoff.web.flow import make_web_app
from tradeoff.web.i18n import (
    CORE_SOURCES,
    LOCALE_DIR,
    TEMPLATE,
    extract,
    languages,
    pseudo_catalogue,
    switch,
    template_text,
)
from tradeoff.web.pages import review_view, safe_markdown
from tradeoff.web.site import SITE

from ..webclient import Page, Participant
from .test_web import CONSENT, make_study, sessions

pytestmark = pytest.mark.core

PSEUDO = "x-pseudo"


def text_nodes(html: str) -> list[str]:
    """The words a reader gets: the title, the body's text nodes and the buttons' labels."""
    body = re.sub(r"<(script|style)[^>]*>.*?</\1>", "", html, flags=re.S)
    nodes = [htmllib.unescape(t).strip() for t in re.split(r"<[^>]+>", body)]
    nodes += [htmllib.unescape(v) for v in re.findall(r'aria-label="([^"]*)"', body)]
    return [n for n in nodes if re.search(r"[A-Za-z]", n)]


def escaped(page: Page, data: set[str]) -> list[str]:
    """Text on the page that is neither from the catalogue nor data."""
    out = []
    for node in text_nodes(page.html):
        if "⟦" in node or node in data:
            continue
        if node.startswith("<!doctype"):
            continue
        out.append(node)
    return out


def markdown_nodes(text: str) -> set[str]:
    return set(text_nodes(safe_markdown(text)))


def test_the_template_lists_every_string() -> None:
    assert TEMPLATE.read_text(encoding="utf-8") == template_text(), (
        "run `python -m tradeoff.web.i18n` to write src/tradeoff/web/locale/tradeoff.pot again"
    )
    assert len(re.findall(r"^msgid ", TEMPLATE.read_text(), re.M)) > 50


async def test_no_string_escapes_the_catalogue(tmp_path: Path) -> None:
    """A whole session in the pseudo-locale, each page of it: code (right and wrong),
    consent, every question (an answer taken back, one given again), the review, ten more
    questions and the review again, an expired form, a missing page, saved, the thank-you
    and a decline. Nothing of the page's own is left unmarked: the cards' lines (but the
    attributes' own formats), the trade-offs and the consistency check are the catalogue's
    too."""
    study, codes = make_study(tmp_path, budget=4)
    app = make_web_app(study)
    site = app[SITE]
    site.languages = {**languages(), PSEUDO: pseudo_catalogue(PSEUDO)}
    scenario = site.participants.loaded.scenario
    data = {scenario.title, *markdown_nodes(scenario.description), *markdown_nodes(CONSENT)}
    data |= {choice.name for choice in switch(languages()["en"], languages())}  # autonyms
    server = TestServer(app)
    await server.start_server()
    p = Participant(str(server.make_url("/")), language=PSEUDO)
    pages: list[Page] = []
    try:
        start = await p.get("")
        pages.append(await p.submit(start, "code", code="WRONG-CODE"))
        pages.append(start)
        consent = await p.submit(start, "code", code=codes["p01"])
        pages.append(consent)
        page = await p.submit(consent, "consent", choice="agree")
        words = site.languages[PSEUDO].words()
        reviews, undone = 0, False
        while True:
            while page.path.endswith("/question"):
                pages.append(page)
                engine = site.participants._held["p01"].engine
                query = engine.next_query()
                assert query is not None
                for option in (query.left, query.right):  # the formats are the scenario's
                    data |= {
                        attribute_line(scenario, j, v, words)
                        for j, v in enumerate(option.attributes)
                    }
                if engine.answered == 1 and not undone:
                    undone = True
                    page = await p.submit(page, "undo")
                    assert 'class="notice"' in page.html
                    pages.append(page)
                page = await p.submit(page, "answer", choice="left" if len(pages) % 3 else "right")
            assert page.path.endswith("/review")
            held = site.participants._held["p01"]
            review = review_view(
                Recorder(held.engine, held.path, -1, held.header), scenario, site.languages[PSEUDO]
            )
            data |= {w.name for w in review.weights}  # the aspects' names: the scenario's
            # the sentences the core writes are on the page, marked as the catalogue's
            assert review.consistency.startswith("⟦")
            assert htmllib.escape(review.consistency) in page.html
            for sentence in review.settled + review.unsettled:
                assert sentence.startswith("⟦") and htmllib.escape(sentence) in page.html
            assert review.settled or review.unsettled
            pages.append(page)
            reviews += 1
            if reviews == 2:
                break
            page = await p.submit(page, "more")
        pages.append(await p.post("answer", {"csrf": "forged", "answered": "0"}))
        pages.append(await p.get("no-such-page"))
        pages.append(await p.submit(page, "pause"))
        again = await p.submit(await p.get(""), "code", code=codes["p01"])
        pages.append(await p.submit(again, "finish"))
        other = Participant(p.base, language=PSEUDO)
        try:
            c2 = await other.enter(codes["p02"])
            pages.append(await other.submit(c2, "consent", choice="decline"))
        finally:
            await other.close()
    finally:
        await p.close()
        await server.close()
    assert len(pages) >= 20
    for page in pages:
        assert f'<html lang="{PSEUDO}">' in page.html
        assert escaped(page, data) == [], (page.path, page.status)
    assert all("⟦Óptíóñ Á⟧" in page.html for page in pages if page.path.endswith("/question"))
    [path] = sessions(study, "p01")
    log = read_session(path)
    assert log.consent is not None and log.consent.language == PSEUDO
    assert log.finished
    answers = [e for e in log.events if e.type == "answer"]
    assert len(answers) >= 14 and all(a.language == PSEUDO for a in answers)


class Asked:
    """The pseudo-locale's ``gettext`` and ``ngettext``, noting each message asked for."""

    def __init__(self) -> None:
        self.language = pseudo_catalogue(PSEUDO)
        self.ids: set[str] = set()

    def gettext(self, message: str) -> str:
        self.ids.add(message)
        return self.language.gettext(message)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        self.ids.add(singular)
        return self.language.ngettext(singular, plural, n)


def core_messages() -> set[str]:
    """The catalogue's messages marked in the core (:data:`CORE_SOURCES`)."""
    out = set()
    for message in extract():
        if any(loc[0] in CORE_SOURCES for loc in message.locations):
            out.add(message.id if isinstance(message.id, str) else message.id[0])
    return out


def test_every_sentence_the_core_writes_for_the_page_is_catalogued() -> None:
    """Every branch of the cards, the prompts, the trade-offs (settled, unsettled, said the
    other way round, next to nothing, past the whole range, no weight, worth more than the
    whole range of cases) and the consistency check (every pattern), in the pseudo-locale:
    each sentence is marked (nothing English of the core's own is left around the
    scenario's words), and between them they ask for every message the core marks (so no
    marked message is a dead one and no branch is left out of this test)."""
    asked = Asked()
    words = Words(asked.gettext, asked.ngettext, PSEUDO)
    said: list[str] = []
    for name in (
        "breast-cancer-triage",
        "glaucoma-screening",
        "paper-k2-reward-cost",
        "train-trips",  # options described by their aspects alone
    ):
        sc = load_scenario(f"scenarios/{name}.toml").scenario
        k, m = sc.n_classes, len(sc.attributes)
        priors = [1 / k] * k if k else []
        rng = np.random.default_rng(3)
        cases = [np.ones(k + m), np.r_[0.0, np.ones(k + m - 1)], np.r_[np.ones(k), [0.0] * m]]
        cases += [np.r_[np.ones(k), [1e-6] * m], np.r_[np.ones(k), [1e6] * m]]
        cases += [np.r_[[1.0, 30.0], np.ones(k + m - 2)], np.r_[[30.0, 1.0], np.ones(k + m - 2)]]
        cases += list(rng.dirichlet(np.ones(k + m), 20))
        # the first aspect light: its trade-offs said the other way round (a count of a
        # unit that names itself, "0.5 changes are worth …")
        cases += [np.r_[[0.05], np.full(k + m - 1, 8.0)], np.r_[[0.05], np.full(k + m - 1, 0.8)]]
        for w in cases:
            sure = np.tile(w, (50, 1))
            spread = np.linspace(0.01, 100.0, 50)[:, None] ** (np.arange(k + m) > 0)
            for draws in (None, sure, sure * spread, sure / spread, sure * spread**3):
                for t in tradeoffs(sc, w, priors, draws, words=words):
                    said += [t.text, t.sentence]
        said += [*tradeoff_headings(words=words), not_asked_words(words=words)]
        unasked = Shares((*[1 / (k + m - 1)] * (k + m - 1), None), (None,) * (k + m))
        said.append(left_out_words(unasked, sc.weight_names, words=words))
        only = Shares((1.0, *[None] * (k + m - 1)), ((1.0, 1.0), *[None] * (k + m - 1)))
        said.append(left_out_words(only, sc.weight_names, words=words))
        a = ClassifierProfile((0.3,) * k, (0.9,) * k, tuple(x.range[1] for x in sc.attributes))
        b = ClassifierProfile((0.3,) * k, (0.8,) * k, tuple(x.range[0] for x in sc.attributes))
        for kind in ("frontier", "candidates"):
            query = Query(a, b, (0, 1), (1.0, 0.0), kind=kind, candidates=(0, 1))
            only = sc.aspects_only
            said += [question_prompt(query, words, only), option_title(query, 0, words, only)]
            said.append(option_title(query, 1, words, only))
            for mine, other in ((a, b), (b, a)):
                said += [line.delta for line in card_lines(sc, mine, other, words) if line.delta]
                said += [line.text for line in card_lines(sc, mine, other, words)[:k]]
    # a count of a unit that names itself, unsettled: "0.5 changes are worth at least …",
    # "… up to …", "… are perhaps worth nothing …"
    trips = load_scenario("scenarios/train-trips.toml").scenario
    light = np.array([0.05, 0.5, 8.0, 1.0])  # changes said against price
    for low, high in ((20.0, 500.0), (1e-4, 60.0), (1e-4, 500.0)):
        draws = np.tile(light, (100, 1))
        draws[:, 2] = np.geomspace(low, high, 100) * light[0] / 0.5
        said += [t.text for t in tradeoffs(trips, light, [], draws, words=words)]
    for repeats, slip, pattern in (
        (None, None, None),
        ((0, 0), None, None),
        ((1, 1), None, None),
        ((3, 4), 0.125, None),
        ((1, 4), None, None),
        ((4, 4), None, "x"),
    ):
        said.append(Consistency(10, repeats, slip, pattern).sentence(words))
    for choices in ("l" * 10, "r" * 10, "lr" * 5, "i" * 10):
        sides = {"l": Choice.LEFT, "r": Choice.RIGHT, "i": Choice.INDIFFERENT}
        shown = answer_pattern([sides[c] for c in choices], words)
        assert shown is not None
        said.append(shown)
    # what the review says of a pool's measurement noise: the model that measured best
    # (on fewer cases, or not said; more likely the best, or about as likely), the models
    # within noise (cases or standard errors; one,
    # two, three and more), every chance's phrase
    ties = [NoiseTie(f"m{k}", 0.3, 0.001 if k else 1.0, None if k % 2 else 40) for k in range(5)]
    for sure, cases in ((0.22, (40, 1000)), (0.001, (None, None))):
        for n in (1, 2, 3, 5):
            said += measurement_sentences("m9", sure, ("m10", 0.05), cases, ties[:n], words=words)
        said += measurement_sentences("m9", sure, None, cases, ties[1:2], words=words)
        # the two chances read the same: "about as likely"
        said += measurement_sentences("m9", 0.18, ("m10", 0.178), cases, (), words=words)
        said.append(noise_stop_sentence(Verdict(0, sure, sure, 0.1, ()), True, words))
    # what a pick resting on one answer is said to rest on: aspects, several answers, a
    # trade's aspects named, one answer about every aspect
    for thin, held in ((["x", "y"], [["a"], ["b"]]), ([], [["a", "b"]]), ([], [["a", "b", "c"]])):
        said.append(one_answer_words(thin, held, 3, YOU, words))
    # ... and aspects two answers settle for a person whose answers are reversed often
    said.append(one_answer_words([], [], 3, YOU, words, ["x"], 3))
    # a pick outside the ranges the scenario's questions ask about: a class, an attribute
    triage = load_scenario("scenarios/breast-cancer-triage.toml").scenario
    said.append(outside_range_words(triage, [0.79, 0.95, 5.0, 1377.4], "m1", words))
    unmarked = [s for s in said if not s.startswith("⟦")]
    assert unmarked == []
    assert asked.ids == core_messages()


def fields(message: str) -> list[str]:
    """A message's fields, sorted: ``%(name)s`` and ``{name}`` (a literal ``%%`` is text:
    German writes "20–40 %" where English writes "20%–40%")."""
    return sorted(re.findall(r"%\([a-z_]+\)[sd]|\{[a-z_]*\}", message))


def test_german_translates_every_message_with_the_same_fields() -> None:
    """Every message of the template has a German translation (not fuzzy, not the English
    left in place unless the words are the same in German, such as "Option A"), each
    plural form of it; the fields (``%(name)s``, ``{name}``) of each form are the
    English form's; Babel's own checks of the catalogue find nothing; and the German file
    has no message the template no longer has."""
    with TEMPLATE.open("rb") as fh:
        template = read_po(fh)
    with (LOCALE_DIR / "de" / "LC_MESSAGES" / "tradeoff.po").open("rb") as fh:
        german = read_po(fh, locale="de")
    assert german.num_plurals == 2
    ids = {m.id if isinstance(m.id, str) else tuple(m.id) for m in template if m.id}
    same_in_german = {"Option A", "Option B"}
    for message in template:
        if not message.id:
            continue
        found = german.get(message.id)
        assert found is not None, message.id
        assert not found.fuzzy, message.id
        sources = [message.id] if isinstance(message.id, str) else list(message.id)
        strings = [found.string] if isinstance(found.string, str) else list(found.string)
        assert len(strings) == len(sources), message.id
        for source, string in zip(sources, strings, strict=True):
            assert string.strip(), source
            assert string != source or source in same_in_german, source
            assert fields(string) == fields(source), (source, string)
    extra = {m.id if isinstance(m.id, str) else tuple(m.id) for m in german if m.id} - ids
    assert extra == set()
    assert [problem for problem in german.check()] == []


async def test_the_switch_keeps_a_chosen_language_over_the_browsers(tmp_path: Path) -> None:
    """An English browser that picks German on the code page's switch gets every later page
    in German (the cookie the switch set), its consent and answers recorded as German; a
    tag the page does not have is ignored; with one language there is no switch."""
    study, codes = make_study(tmp_path, budget=3)
    app = make_web_app(study)
    server = TestServer(app)
    await server.start_server()
    p = Participant(str(server.make_url("/")), language="en-GB")
    try:
        english = await p.get("")
        assert '<html lang="en">' in english.html
        assert '<a href="./?lang=de" lang="de" hreflang="de">Deutsch</a>' in english.html
        assert 'aria-current="true">English</a>' in english.html
        assert '<html lang="en">' in (await p.get("?lang=xx")).html
        german = await p.get("?lang=de")
        assert '<html lang="de">' in german.html and german.h1 == "Willkommen"
        assert 'aria-current="true">Deutsch</a>' in german.html
        consent = await p.submit(await p.get(""), "code", code=codes["p01"])
        assert consent.h1 == "Information und Einwilligung"
        page = await p.submit(consent, "consent", choice="agree")
        while page.path.endswith("/question"):
            assert page.h1.startswith("Frage ")
            page = await p.submit(page, "answer", choice="left")
        assert page.h1 == "Was wir erfahren haben"
    finally:
        await p.close()
        app[SITE].languages = {"en": languages()["en"]}
        only = Participant(str(server.make_url("/")))
        try:
            assert 'class="languages"' not in (await only.get("")).html
        finally:
            await only.close()
        await server.close()
    [path] = sessions(study, "p01")
    log = read_session(path)
    assert log.consent is not None and log.consent.language == "de"
    assert {e.language for e in log.events if e.type == "answer"} == {"de"}


async def test_a_study_in_german_shows_german_to_an_english_browser(tmp_path: Path) -> None:
    """``study create --language de``: an English browser gets the German page (recorded
    as German) unless the participant picks English on the switch; the language is kept in
    study.json and read back; a language the page has no catalogue for is refused with the
    ones it has."""
    from tradeoff.cli import main
    from tradeoff.study.folder import create_study, load_study

    from ..conftest import small_scenario_file

    scenario = small_scenario_file(tmp_path, **{"budget = 30": "budget = 3"})
    study, codes = create_study(scenario, ["p01", "p02"], tmp_path / "study", language="de")
    assert load_study(study.path).language == "de"
    server = TestServer(make_web_app(load_study(study.path)))
    await server.start_server()
    p = Participant(str(server.make_url("/")), language="en-GB")
    q = Participant(str(server.make_url("/")), language="en-GB")
    try:
        first = await p.get("")
        assert '<html lang="de">' in first.html and first.h1 == "Willkommen"
        page = await p.submit(first, "code", code=codes["p01"])
        while page.path.endswith("/question"):
            assert page.h1.startswith("Frage ")
            page = await p.submit(page, "answer", choice="left")
        assert page.h1 == "Was wir erfahren haben"
        assert '<html lang="en">' in (await q.get("?lang=en")).html  # the switch still wins
    finally:
        await p.close()
        await q.close()
        await server.close()
    [path] = sessions(study, "p01")
    assert {e.language for e in read_session(path).events if e.type == "answer"} == {"de"}
    other = tmp_path / "other"
    assert (
        main(
            [
                "study",
                "create",
                str(scenario),
                "--participants",
                "2",
                "--out",
                str(other),
                "--language",
                "fr",
            ]
        )
        == 2
    )
    assert not other.exists()
