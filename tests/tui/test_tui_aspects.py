"""The app on a scenario whose options are described by their aspects alone (the LLM
leaderboard), driven by Pilot at 80×24: the question shows two candidate models by their
scores and CO₂, the help speaks of options (not classifiers), the review of costs and
rewards (not of a class's cases) and its trade-offs of the aspects, the result screen and
its help of each aspect in its unit (no counts per 1,000); the session replays."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tradeoff.ask.scenario import SpecOverrides
from tradeoff.record.log import read_session
from tradeoff.record.replay import replay
from tradeoff.tui import make_app
from tradeoff.tui.dialogs import HelpScreen, ResultHelpScreen
from tradeoff.tui.screens.review import ReviewScreen
from tradeoff.tui.screens.start import StartScreen

from ..conftest import SCENARIOS
from .test_tui import confirmed, screen_words, start, wait_for

pytestmark = pytest.mark.e2e


def screen_text(app: Any) -> str:
    return screen_words(app)


async def test_the_leaderboard_is_answered_in_the_app(tmp_path: Path) -> None:
    app = make_app(
        SCENARIOS / "llm-leaderboard.toml",
        sessions_dir=tmp_path / "sessions",
        participant="ana",
        overrides=SpecOverrides(budget=6),
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, StartScreen)
        assert "what matters to you in a choice" in str(app.screen.query_one("#title").render())
        screen = await start(pilot)
        text = screen_text(app)
        assert "kg CO₂ to evaluate" in text and "points on IFEval" in text
        assert "of 1,000" not in text
        await pilot.press("question_mark")
        await wait_for(pilot, HelpScreen)
        help_text = screen_text(app)
        assert "two options, Option A and Option B" in help_text
        assert "classifier" not in help_text
        await pilot.press("escape")
        for key in "abab" * 3:
            if isinstance(app.screen, ReviewScreen):
                break
            await pilot.press(key)
        await wait_for(pilot, ReviewScreen)
        review = screen_text(app)
        assert "each cost or reward from one end of its range" in review
        assert "class" not in review
        assert "CO2" in review and "IFEval" in review
        weights = screen.recorder.engine.result().weights
        await confirmed(pilot)
        result = screen_text(app)
        assert "Counts are per 1,000" not in result and "options, best for you first" in result
        assert "CO2 in kg, IFEval in points" in result
        await pilot.press("question_mark")
        await wait_for(pilot, ResultHelpScreen)
        help_text = screen_text(app)
        assert "Every column is in its own units." in help_text and "1,000" not in help_text
        await pilot.press("escape")
        await pilot.press("q")
        await pilot.pause()
    files = list((tmp_path / "sessions" / "ana").glob("*.jsonl"))
    log = read_session(files[0])
    assert log.finished
    assert replay(log).result().weights == weights
