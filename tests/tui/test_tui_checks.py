"""A study's attention checks at the terminal (``tradeoff elicit --study``): shown as a
question (numbered among them), recorded as a check, never as an answer."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input, Label

from tradeoff.record.log import read_session
from tradeoff.study.folder import create_study
from tradeoff.tui import make_app
from tradeoff.tui.screens.question import QuestionScreen
from tradeoff.tui.screens.start import StudyStartScreen

from ..conftest import small_scenario_file
from .test_tui import SIZE, wait_for

pytestmark = [pytest.mark.e2e, pytest.mark.other_path]


async def test_a_check_at_the_terminal_is_recorded_as_a_check(tmp_path: Path) -> None:
    scenario = small_scenario_file(tmp_path, **{"budget = 30": "budget = 6"})
    study, codes = create_study(scenario, ["p01"], tmp_path / "study", attention_checks=(2,))
    app = make_app(scenario, study=study)
    labels = []
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, StudyStartScreen)
        pilot.app.screen.query_one("#code", Input).value = codes["p01"]
        await pilot.press("enter")
        await wait_for(pilot, QuestionScreen)
        for _ in range(3):
            screen = pilot.app.screen
            labels.append(str(screen.query_one("#progress-label", Label).render()))
            await pilot.press("a")
            await pilot.pause()
        await pilot.press("q")
    [path] = sorted((study.sessions_dir / "p01").glob("*.jsonl"))
    log = read_session(path)
    assert [c.position for c in log.checks] == [2]
    assert sum(e.type == "answer" for e in log.events) == 2
    numbers, totals = zip(*(label.split(" of ") for label in labels), strict=True)
    assert numbers == ("question 1", "question 2", "question 3")
    assert len(set(totals)) == 1  # the check counted among the questions from the first
