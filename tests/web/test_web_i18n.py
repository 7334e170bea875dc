"""Every word of the study web page goes through its message catalogue: shown in a
pseudo-locale, no page has a word of the page's own outside it (the scenario's and the
consent text's words, and the cards' lines shared with the terminal, are data); the
catalogue's template is current; the language shown is recorded."""

from __future__ import annotations

import html as htmllib
import re
from pathlib import Path

from aiohttp.test_utils import TestServer

from tradeoff.ask.presentation import card_lines
from tradeoff.record.log import read_session
from tradeoff.record.recorder import Recorder
from tradeoff.web.flow import make_web_app
from tradeoff.web.i18n import TEMPLATE, languages, pseudo_catalogue, template_text
from tradeoff.web.pages import review_view, safe_markdown
from tradeoff.web.site import SITE

from ..webclient import Page, Participant
from .test_web import CONSENT, make_study, sessions

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
    study, codes = make_study(tmp_path, budget=4)
    app = make_web_app(study)
    site = app[SITE]
    site.languages = {**languages(), PSEUDO: pseudo_catalogue(PSEUDO)}
    scenario = site.participants.loaded.scenario
    data = {scenario.title, *markdown_nodes(scenario.description), *markdown_nodes(CONSENT)}
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
        while page.path.endswith("/question"):
            pages.append(page)
            engine = site.participants._held["p01"].engine
            query = engine.next_query()
            assert query is not None
            for mine, other in ((query.left, query.right), (query.right, query.left)):
                data |= {line.text for line in card_lines(scenario, mine, other)}
            page = await p.submit(page, "answer", choice="left")
        held = site.participants._held["p01"]
        review = review_view(
            Recorder(held.engine, held.path, -1, held.header), scenario, site.languages[PSEUDO]
        )
        data |= {w.name for w in review.weights} | {review.consistency}
        data |= set(review.settled) | set(review.unsettled)
        pages.append(page)
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
    assert len(pages) >= 10
    for page in pages:
        assert f'<html lang="{PSEUDO}">' in page.html
        assert escaped(page, data) == [], (page.path, page.status)
    assert all("⟦Óptíóñ Á⟧" in page.html for page in pages if page.path.endswith("/question"))
    [path] = sessions(study, "p01")
    log = read_session(path)
    assert log.consent is not None and log.consent.language == PSEUDO
    assert log.finished
