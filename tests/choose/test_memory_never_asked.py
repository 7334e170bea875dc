"""A clinician's session that stops after seven answers never showing memory apart (the
shipped breast-cancer scenario and its pool): the review's shares add up to 100 % among
the asked aspects and say memory is not counted, and the candidates "best for you first"
are ordered by what the answers informed, not by the prior's guess for memory (before,
the shares read 36 %, 4 %, 24 % and the list put tree-depth1, which misses 188 of 1,000
cancers, above forest-50-depthfull, which misses 59)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from textual.app import App
from textual.widgets import DataTable, Static

from tradeoff.choose.informed import MARK, informed_order
from tradeoff.record.recorder import Recorder
from tradeoff.tui.screens.result import ResultScreen
from tradeoff.tui.screens.review import ReviewScreen
from tradeoff.web.i18n import languages
from tradeoff.web.pages import review_view

from ..conftest import seven_answers_memory_unasked

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def recorder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Recorder]:
    with seven_answers_memory_unasked(tmp_path_factory.mktemp("s"), "dr-kim") as rec:
        yield rec


def test_the_engine_shares_add_up_among_the_asked(recorder: Recorder) -> None:
    shares = recorder.engine.shares()
    assert shares.values[3] is None and shares.left_out == (3,)
    assert sum(v for v in shares.values if v is not None) == pytest.approx(1.0)
    for v, iv in zip(shares.values[:3], shares.intervals[:3], strict=True):
        assert v is not None and iv is not None and iv[0] <= v <= iv[1]


def test_the_study_page_review_shows_shares_of_the_asked(recorder: Recorder) -> None:
    view = review_view(recorder, recorder.engine.scenario, languages()["en"])
    shown = [w for w in view.weights if w.asked]
    assert [w.asked for w in view.weights] == [True, True, True, False]
    assert 99 <= sum(w.percent for w in shown) <= 101
    assert "not counted: memory" in view.left_out and "100%" in view.left_out
    german = review_view(recorder, recorder.engine.scenario, languages()["de"])
    assert "nicht mitgezählt: memory" in german.left_out


async def test_the_app_review_shows_shares_of_the_asked(recorder: Recorder) -> None:
    class Review(App[None]):
        def on_mount(self) -> None:
            self.push_screen(ReviewScreen(recorder))

    app = Review()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        rows = [str(w.render()) for w in app.screen.query(".weight-row").results(Static)]
        note = str(app.screen.query_one("#left-out", Static).render())
    percents = [int(m.group(1)) for r in rows if (m := re.search(r"\s(\d+)%", r))]
    assert len(percents) == 3 and 99 <= sum(percents) <= 101
    assert "not asked" in rows[3]
    assert "Not asked, so not counted: memory." in note


async def test_the_app_list_is_ordered_by_what_the_answers_informed(recorder: Recorder) -> None:
    class Result(App[None]):
        def on_mount(self) -> None:
            self.push_screen(ResultScreen(recorder))

    app = Result()
    async with app.run_test(size=(140, 45)) as pilot:
        for _ in range(200):
            await pilot.pause()
            screen = app.screen
            if isinstance(screen, ResultScreen) and screen.decision is not None:
                break
            await asyncio.sleep(0.05)
        screen = app.screen
        assert isinstance(screen, ResultScreen) and screen.decision is not None
        table = screen.query_one("#result-table", DataTable)
        listed = [str(table.get_row_at(r)[0]) for r in range(table.row_count)]
        status = str(screen.query_one("#result-status", Static).render())
    names = [n.removesuffix(f" {MARK}") for n in listed]
    assert names.index("forest-50-depthfull") < names.index("tree-depth1")
    assert "Memory was not asked, so it does not order this list" in status
    # The same list whatever the guess for memory: every draw's memory weight changed.
    pool, advice = screen.decision.pool, screen.decision.recommendations[0]
    engine = recorder.engine
    draws = engine.weighted_draws()
    assert draws is not None
    for factor in (0.0, 0.1, 10.0):
        d = draws[0].copy()
        d[:, 3] *= factor
        d /= d.sum(axis=1, keepdims=True)
        again = informed_order(
            engine.scenario,
            pool.values,
            engine.space.priors,
            engine.result().asked,
            advice.expected,
            posterior=(d, draws[1]),
        )
        assert [pool.names[i] for i in again.order] == names
    assert np.isclose(sum(draws[1]), 1.0)


def test_session_show_says_the_shares_of_the_asked(recorder: Recorder) -> None:
    from tradeoff.cli.app import format_session
    from tradeoff.record.summary import summarise

    summary = summarise(recorder.path)
    text = format_session(summary)
    shown = [float(x) for x in re.findall(r"\s(\d+\.\d)% 90%", text)]
    assert len(shown) == 3 and 99.5 <= sum(shown) <= 100.5
    assert "Not asked, so not counted: memory." in text
    data = summary.to_dict()
    assert data["asked_shares"][3] is None
    assert sum(data["asked_shares"][:3]) == pytest.approx(1.0)


def test_the_report_gives_the_shares_of_the_asked(recorder: Recorder, tmp_path: Path) -> None:
    from tradeoff.choose.decide import decide_session
    from tradeoff.choose.report import write_report

    chosen = decide_session(recorder.header, recorder.engine, recorder.path)
    _, md = write_report(chosen, tmp_path, argv=["report"])
    text = md.read_text(encoding="utf-8")
    rows = {
        m.group(1).strip(): float(m.group(2))
        for m in re.finditer(r"^\| ([a-z ]+) \| (\d+(?:\.\d+)?)% \|", text, re.M)
    }
    assert set(rows) == {"flagged malignant lumps", "cleared benign lumps", "latency"}
    assert 99 <= sum(rows.values()) <= 101
    assert "add up to 100% among them" in text


def test_each_change_knows_whether_its_weight_was_asked(recorder: Recorder) -> None:
    """ "What would change the pick" knows memory's weight is the prior's guess (here no
    change of it within a factor of 100 alters the pick, which is true whatever it is, so
    the sentence stays as it was)."""
    from tradeoff.choose.change_words import change_sentence
    from tradeoff.choose.decide import decide_session

    chosen = decide_session(recorder.header, recorder.engine, recorder.path)
    assert chosen.selection is not None and chosen.selection.changes
    [changes] = chosen.selection.changes
    assert [c.asked for c in changes] == [True, True, True, False]
    assert changes[3].nearest() is None
    said = change_sentence(changes[3], chosen.selection.pool.names)
    assert said.startswith("No change in how much memory matters")
