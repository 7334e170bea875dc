"""What a clinician sees without looking for it: at 80×24 the review's buttons lay below
the words (found only by scrolling), now they stay in view under them; the chances that
each model is the best read 34% + 34% + 33% (101%), now they add up to 100%; COPA's
ranking did not say which way its scores run, now it says a lower score is better and
marks ties with = as ``tradeoff pool rank`` does."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from textual.widgets import Button, DataTable, Static

from tradeoff.choose import copa
from tradeoff.choose.rank import rank_pool
from tradeoff.tui.screens.review import ReviewScreen

from .test_tui import _show_review, confirmed, pool_app, start, wait_for

pytestmark = pytest.mark.e2e

#: Chances that, each rounded on its own, read 34% + 34% + 33% = 101%.
CLOSE_THREE = (0.335, 0.335, 0.33)


def shipped_for(people: slice) -> Any:
    """The selection from the shipped example sessions (two people, the real pool) for
    ``people``."""
    from tradeoff.choose.candidates import scenario_pool
    from tradeoff.choose.decide import load_stakeholders
    from tradeoff.choose.selection import select_for_stakeholders

    from ..conftest import ROOT, SCENARIOS

    paths = sorted((ROOT / "sessions" / "examples").glob("*/*.jsonl"))
    sc, stakeholders = load_stakeholders(paths)
    return select_for_stakeholders(sc, stakeholders[people], scenario_pool(sc, SCENARIOS))


@pytest.fixture(scope="module")
def shipped() -> Any:
    return shipped_for(slice(None))


def one_person(selection: Any) -> Any:
    """One person's ``selection`` with the chances :data:`CLOSE_THREE`."""
    assert len(selection.stakeholders) == 1
    p_best = np.zeros(selection.pool.n)
    p_best[: len(CLOSE_THREE)] = CLOSE_THREE
    rec = dataclasses.replace(selection.recommendations[0], p_best=tuple(map(float, p_best)))
    return dataclasses.replace(selection, recommendations=[rec])


def column(table: DataTable[Any], label: str) -> list[str]:
    """The cells of ``table``'s column headed ``label`` (its lines joined by a space)."""
    keys = [k for k, c in table.columns.items() if str(c.label).replace("\n", " ") == label]
    assert len(keys) == 1, [str(c.label) for c in table.columns.values()]
    return [str(table.get_cell(row, keys[0])) for row in table.rows]


def percents(cells: list[str]) -> int:
    """The sum of the whole percentages among ``cells`` ("34%"; not "under 1%")."""
    return sum(int(c[:-1]) for c in cells if c.endswith("%") and c[:-1].isdigit())


@pytest.mark.parametrize("size", [(80, 24), (140, 45)])
async def test_the_review_buttons_are_in_view_without_scrolling(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    app = pool_app(tmp_path)
    async with app.run_test(size=size) as pilot:
        await _show_review(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        body = screen.query_one("#review-body")
        if size == (80, 24):  # the words do not fit: they scroll, the buttons do not
            assert body.max_scroll_y > 0
        for button in screen.query(Button):
            region = button.region
            assert region.height >= 3, button.id
            assert screen.region.contains_region(region), (button.id, region)
            assert not body.region.overlaps(region), (button.id, region)
        footer = screen.query_one("Footer").region
        assert all(b.region.bottom <= footer.y for b in screen.query(Button))
        await pilot.press("pagedown")  # the words scroll from the focused button
        await pilot.pause()
        assert body.scroll_y == body.max_scroll_y or body.max_scroll_y == 0
        assert screen.focused is screen.query_one("#confirm-button")


async def test_the_result_screen_chances_add_up_to_100(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tradeoff.choose import decide

    real = decide.decide_session

    def with_close_chances(*args: Any, **kwargs: Any) -> Any:
        decision = real(*args, **kwargs)
        return dataclasses.replace(decision, selection=one_person(decision.selection))

    monkeypatch.setattr(decide, "decide_session", with_close_chances)
    app = pool_app(tmp_path)
    async with app.run_test(size=(140, 45)) as pilot:
        await start(pilot)
        for key in "abbaab":
            await pilot.press(key)
        await wait_for(pilot, ReviewScreen)
        result = await confirmed(pilot)
        cells = column(result.query_one("#result-table", DataTable), "chance best")
        assert percents(cells) == 100, cells
        assert sorted(c for c in cells if c != "0%") == ["33%", "33%", "34%"], cells


async def test_the_ranking_details_chances_add_up_to_100() -> None:
    from tradeoff.tui.select_app import SelectionApp

    app = SelectionApp(one_person(shipped_for(slice(1))))
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.pause(0.3)
        cells = column(app.screen.query_one("#select-table", DataTable), "chance best")
        assert percents(cells) == 100, cells
        assert sorted(c for c in cells if c != "0%") == ["33%", "33%", "34%"], cells


@pytest.mark.parametrize("size", [(80, 24), (140, 45)])
async def test_copa_ranking_says_lower_is_better_and_marks_ties(
    shipped: Any, size: tuple[int, int]
) -> None:
    from tradeoff.tui.select import SelectionScreen
    from tradeoff.tui.select_app import SelectionApp

    app = SelectionApp(shipped)
    async with app.run_test(size=size) as pilot:
        await pilot.pause(0.3)
        await pilot.press("d")
        await pilot.pause(0.3)
        screen = app.screen
        assert isinstance(screen, SelectionScreen)
        caption = " ".join(str(screen.query_one("#select-legend", Static).render()).split())
        assert "Best first: a lower score is better" in caption, caption
        assert "= marks scores that tie" in caption, caption
        status = " ".join(str(screen.query_one("#select-status", Static).render()).split())
        assert "Models whose scores tie (marked =) are ordered by" in status, status
        scores = column(screen.query_one("#select-table", DataTable), "score")
        pool = shipped.pool
        outcome = rank_pool(pool, weights=screen.current_weights(), p=screen.p, top=pool.n)
        ranked = [r.score for r in outcome.ranking]
        assert [float(s.rstrip("=")) for s in scores] == pytest.approx(ranked, abs=1e-4)
        assert [s.endswith("=") for s in scores] == list(copa.tied(ranked))
        assert any(s.endswith("=") for s in scores)  # the shipped pool has ties
        assert scores == sorted(scores, key=lambda s: float(s.rstrip("=")))  # lower first
