"""The coordinator's population section through HTTP, on a small study whose participants
finished: the spread table gives each aspect's swing share as the participants' reviews
and ``session show`` give it (whole percent, a sentence saying what a share is), each of
the section's two tables is a region named by a heading of its own (not both by the section's
heading), and a model's name from the pool is shown as text."""

from __future__ import annotations

import html
import re
from collections.abc import Callable

import pytest

from tradeoff.record.summary import summarise
from tradeoff.study.folder import Study
from tradeoff.study.keys import new_key
from tradeoff.study.population_picture import percent, picture_of, picture_text
from tradeoff.study.report import study_sessions
from tradeoff.text import markdown_text

from ..webclient import Participant
from .population_study import HOSTILE, population_study

pytestmark = pytest.mark.e2e


def section(page_html: str) -> str:
    start = page_html.index('<section aria-labelledby="h-population">')
    return page_html[start : page_html.index("</section>", start)]


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Study:
    return population_study(tmp_path_factory.mktemp("population"))


async def test_the_population_section_reads_as_the_reviews_do(
    finished: Study, serve: Callable[[object], object]
) -> None:
    study = finished
    key = new_key(study.path, "coordinator")
    base = await serve(study)  # type: ignore[misc]
    coordinator = Participant(base)
    try:
        form = await coordinator.get("coordinator")
        page = await coordinator.submit(form, "coordinator", key=key)
    finally:
        await coordinator.close()
    assert page.status == 200, page.html[:300]
    shown = section(page.html)
    # Each table is a region of its own, named by a heading of its own.
    labels = re.findall(r'role="region" aria-labelledby="([^"]+)"', shown)
    assert len(labels) == 2 and len(set(labels)) == 2, labels
    for label in labels:
        assert re.search(rf'<h3 id="{label}">[^<]+</h3>', shown), label
    # The shares, as each participant's session show gives them.
    each = [
        summarise(p, populations=study.populations()) for p in study_sessions(study.path).sessions
    ]
    names = ["flagged malignant lumps", "cleared benign lumps", "latency", "memory"]
    rows = re.findall(r'<tr><th scope="row">([^<]+)</th><td class="n" data-share="\d+">', shown)
    assert [html.unescape(r) for r in rows] == list(names)
    checked = 0
    for j, name in enumerate(names):
        shares = sorted(
            v for s in each if s.shares is not None and (v := s.shares.values[j]) is not None
        )
        if len(shares) == 4:  # the median of four: the mean of the middle two
            median = percent((shares[1] + shares[2]) / 2)
            assert re.search(
                rf'data-share="{j + 1}">[^<]*</td><td class="n">{re.escape(median)}</td>', shown
            ), (name, median)
            checked += 1
    assert checked >= 2
    assert "natural units" not in shown
    assert "share of a person's weight" in shown and "whole range" in shown
    # A model's name from the pool is text, never markup.
    assert HOSTILE not in shown and html.escape(HOSTILE) in shown


def test_the_reports_population_section_keeps_a_models_name_as_text(finished: Study) -> None:
    """``study report``'s population.md: a model's name with markup, an ampersand and a
    table's pipe stays one cell of text (it used to split the row and open a tag)."""
    study = finished
    found = study_sessions(study.path)
    picture = picture_of(found.sessions, study.scenario_path, study.populations())
    assert picture is not None
    text = picture_text(picture)
    assert HOSTILE not in text and markdown_text(HOSTILE) in text
    for line in text.splitlines():
        if line.startswith("|"):
            cells = re.split(r"(?<!\\)\|", line)[1:-1]
            assert len(cells) in (4, 5), line
