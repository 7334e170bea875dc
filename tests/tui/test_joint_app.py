"""The app through the `joint` strategy: a question that shows two real candidate models."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from textual.widgets import Static

from tradeoff.ask.words import CANDIDATES_PROMPT, QUESTION_PROMPT
from tradeoff.learn import Choice
from tradeoff.record.log import read_session
from tradeoff.record.records import AnswerRecord
from tradeoff.record.replay import replay
from tradeoff.simulation.oracles import SimulatedOracle
from tradeoff.tui import make_app
from tradeoff.tui.screens.question import QuestionScreen

from ..conftest import SCENARIOS
from .test_tui import start

pytestmark = pytest.mark.e2e


def joint_scenario(tmp_path: Path) -> Path:
    text = (SCENARIOS / "breast-cancer-triage.toml").read_text()
    text = text.replace('strategy = "probabilistic"', 'strategy = "joint"')
    pool = SCENARIOS / "pools" / "breast-cancer.csv"
    text = text.replace('path = "pools/breast-cancer.csv"', f'path = "{pool}"')
    assert 'strategy = "joint"' in text and str(pool) in text
    path = tmp_path / "joint.toml"
    path.write_text(text)
    return path


def card_text(screen: QuestionScreen, card: str) -> str:
    console = Console(width=200)
    with console.capture() as text:
        console.print(screen.query_one(card, Static).content)
    return text.get()


async def test_a_candidate_question_is_labelled_recorded_and_replayed(tmp_path: Path) -> None:
    app: Any = make_app(
        joint_scenario(tmp_path), sessions_dir=tmp_path / "sessions", participant="dr-lee"
    )
    seen = {"candidates": 0, "trade": 0}
    keys = {Choice.LEFT: "a", Choice.RIGHT: "b", Choice.INDIFFERENT: "space"}
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await start(pilot)
        engine = screen.recorder.engine
        # A person whose answers (from these weights) lead to two candidates at question 5.
        person = SimulatedOracle.for_scenario(
            engine.scenario, (0.771721, 0.221508, 0.006739, 3.2e-05)
        )
        for _ in range(30):
            query = engine.next_query()
            if query is None:
                break
            prompt = str(screen.query_one("#prompt", Static).render())
            a, b = card_text(screen, "#card-a"), card_text(screen, "#card-b")
            if query.kind == "candidates":
                assert prompt == CANDIDATES_PROMPT
                assert "Option A: a candidate model" in a and "Option B: a candidate model" in b
            else:
                assert prompt == QUESTION_PROMPT and "candidate" not in a + b
            seen[query.kind] += 1
            await pilot.press(keys[person.choose(query)])
            await pilot.pause()
        decision = engine.decision()
        answered = engine.answered
        await pilot.press("q")
        await pilot.pause()
    assert seen["candidates"] >= 1 and seen["trade"] >= 1
    files = list((tmp_path / "sessions" / "dr-lee").glob("*.jsonl"))
    log = read_session(files[0])
    kinds = [e.query.kind for e in (x.event for x in log.lines) if isinstance(e, AnswerRecord)]
    assert kinds.count("candidates") == seen["candidates"]
    recorded = [
        e.query.candidates
        for e in (x.event for x in log.lines)
        if isinstance(e, AnswerRecord) and e.query.kind == "candidates"
    ]
    assert all(c is not None and c[0] != c[1] for c in recorded)
    again = replay(log)
    assert again.answered == answered
    assert again.decision() == decision
    assert not log.warnings
