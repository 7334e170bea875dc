"""The LLM leaderboard answered to the end in the app, as a person choosing a language model
would, at 80×24 and at 140×45 (Pilot): start, questions, their help, what we learned and
its help, the result (a model of the pool named; every column in view, the chance of
being best too), its help, the ranking details and their help, the farewell. Every
screen reads in the words of models and their aspects: no classes, recalls or counts per
1,000 cases, and no key said that does nothing here."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable

from tradeoff.ask.scenario import SpecOverrides
from tradeoff.record.log import read_session
from tradeoff.tui import make_app
from tradeoff.tui.dialogs import (
    HelpScreen,
    ResultHelpScreen,
    ReviewHelpScreen,
    SelectionHelpScreen,
)
from tradeoff.tui.screens.question import QuestionScreen
from tradeoff.tui.screens.result import ResultScreen
from tradeoff.tui.screens.review import ReviewScreen
from tradeoff.tui.select import SelectionScreen

from ..conftest import SCENARIOS
from .test_tui import confirmed, screen_words, start, wait_for

pytestmark = pytest.mark.e2e

#: Words of a classifier's questions that have no place where options are models
#: described by their scores and CO₂.
CLASSIFIER_WORDS = ("classifier", "class ", "classes", "recall", "of 1,000", "per 1,000", "cases")
POOL = SCENARIOS / "pools" / "llm-leaderboard.csv"


def models() -> set[str]:
    with POOL.open(newline="") as f:
        return {row["model"] for row in csv.DictReader(f)}


def words(app: Any) -> str:
    """Everything the screen says in its words (its tables apart)."""
    return screen_words(app)


def plain(text: str) -> str:
    """``text`` as a person reads it: the lines joined, as the screen wraps them."""
    return " ".join(text.split())


def says_no_classifier_words(text: str, where: str) -> None:
    for word in CLASSIFIER_WORDS:
        assert word not in text.lower(), f"{where} says {word!r}:\n{text}"


def in_view(table: DataTable[Any]) -> None:
    """Every column of ``table`` is in view: nothing to scroll sideways for."""
    assert table.virtual_size.width <= table.scrollable_content_region.width, (
        f"the table is {table.virtual_size.width} wide in "
        f"{table.scrollable_content_region.width} columns"
    )


async def read_help(pilot: Pilot[Any], cls: type, where: str) -> str:
    await pilot.press("question_mark")
    await wait_for(pilot, cls)
    text = words(pilot.app)
    says_no_classifier_words(text, f"{where}'s help")
    await pilot.press("escape")
    await pilot.pause()
    return text


@pytest.mark.parametrize("size", [(80, 24), (140, 45)], ids=["80x24", "140x45"])
async def test_the_leaderboard_answered_to_the_end(tmp_path: Path, size: tuple[int, int]) -> None:
    app = make_app(
        SCENARIOS / "llm-leaderboard.toml",
        sessions_dir=tmp_path / "sessions",
        participant="ana",
        overrides=SpecOverrides(budget=5),
    )
    async with app.run_test(size=size) as pilot:
        screen = await start(pilot)
        asked = 0
        while isinstance(app.screen, QuestionScreen):
            text = plain(words(app))
            assert f"question {asked + 1}" in text
            for shown in ("kg CO₂ to evaluate", "points on IFEval", "points on MMLU-PRO"):
                assert shown in text, text
            # two models of the pool ("a candidate model"), or two made up to weigh a trade
            assert "Option A" in text and "Option B" in text
            says_no_classifier_words(text, f"question {asked + 1}")
            if asked == 0:
                helped = plain(await read_help(pilot, HelpScreen, "the question"))
                assert "two options, Option A and Option B" in helped
            await pilot.press("a" if asked % 2 == 0 else "b")
            await pilot.pause()
            asked += 1
            assert asked <= 5
        await wait_for(pilot, ReviewScreen)
        review = plain(words(app))
        assert "What we learned" in review and "each cost or reward" in review
        for aspect in ("CO2", "IFEval", "BBH", "MATH", "MMLU-PRO"):
            assert aspect in review
        says_no_classifier_words(review, "what we learned")
        await read_help(pilot, ReviewHelpScreen, "what we learned")
        result = await confirmed(pilot)
        said = plain(words(app))
        named = said.split("Recommended for you: ", 1)[1].split(". Of the", 1)[0]
        assert named in models(), said
        assert "Of the 82 options" in said and "All 82 options" in said
        says_no_classifier_words(said, "the result")
        table = result.query_one("#result-table", DataTable)
        headers = [str(c.label) for c in table.columns.values()]
        assert headers[0] == "option" and headers[-1] == "chance\nbest"
        assert table.row_count == 82
        in_view(table)
        first = [str(cell) for cell in table.get_row_at(0)]
        head, _, tail = first[0].partition("…")  # the name, whole or shortened
        assert named.endswith(tail) and head in named, (first, named)
        assert first[-1].endswith("%")
        helped = plain(await read_help(pilot, ResultHelpScreen, "the result"))
        assert "Every column is in its own units." in helped
        await pilot.press("e")
        await wait_for(pilot, SelectionScreen)
        details = plain(words(app))
        assert "Ranking details" in details and named in details
        says_no_classifier_words(details, "the ranking details")
        if size[0] >= 140:  # beside the plot, every column: long names give way
            in_view(app.screen.query_one("#select-table", DataTable))
        helped = plain(await read_help(pilot, SelectionHelpScreen, "the ranking details"))
        assert "decision curves" not in helped  # drawn for two classes only; c does nothing
        await pilot.press("q")
        await wait_for(pilot, ResultScreen)
        await pilot.press("q")
        await pilot.pause()
    assert app.farewell is not None and app.farewell[0].startswith("Thank you")
    [path] = (tmp_path / "sessions" / "ana").glob("*.jsonl")
    log = read_session(path)
    assert log.finished and len([e for e in log.events if e.type == "answer"]) == asked
    assert screen.recorder.path == path


def three_questions(tmp_path: Path) -> Any:
    """The app on the leaderboard, for three questions."""
    return make_app(
        SCENARIOS / "llm-leaderboard.toml",
        sessions_dir=tmp_path / "sessions",
        participant="ana",
        overrides=SpecOverrides(budget=3),
    )


async def to_the_result(pilot: Pilot[Any]) -> ResultScreen:
    """Every question answered A, what we learned confirmed: the result screen."""
    await start(pilot)
    while isinstance(pilot.app.screen, QuestionScreen):
        await pilot.press("a")
        await pilot.pause()
    await wait_for(pilot, ReviewScreen)
    result: ResultScreen = await confirmed(pilot)
    return result


async def test_the_names_come_back_whole_when_the_terminal_widens(tmp_path: Path) -> None:
    """At 80 columns the models' names give way so that every column is in view; widened
    to 140 the same table shows them whole (as a result built at 140 would), and narrowed
    again every column is in view once more, the cursor's row kept."""
    app = three_questions(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        result = await to_the_result(pilot)
        table = result.query_one("#result-table", DataTable)

        def names() -> list[str]:
            return [str(table.get_row_at(r)[0]) for r in range(table.row_count)]

        narrow = names()
        assert any("…" in n for n in narrow) and table.row_count == 82
        in_view(table)
        table.move_cursor(row=5)
        await pilot.resize_terminal(140, 45)
        await pilot.pause(0.2)
        wide = names()
        assert not any("…" in n for n in wide), wide
        assert wide[0] in models() or any(m.endswith("/" + wide[0]) for m in models())
        assert table.cursor_row == 5
        in_view(table)
        await pilot.resize_terminal(80, 24)
        await pilot.pause(0.2)
        assert names() == narrow and table.cursor_row == 5
        in_view(table)
