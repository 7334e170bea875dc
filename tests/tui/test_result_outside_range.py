"""The result screen says when its pick lies outside the ranges the scenario's questions
ask about, as ``pick``, the report and the pick screen say it."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from tradeoff.tui import make_app

from ..conftest import SCENARIOS
from .test_tui import answered_and_confirmed, pool_scenario_file

pytestmark = pytest.mark.e2e


async def test_a_pick_beyond_the_questions_ranges_is_said_to_be(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pool = pd.read_csv(SCENARIOS / "pools" / "breast-cancer.csv")
    pool["size_kb"] += 760.0  # every model beyond the questions' 1–750 KB
    pool.to_csv(tmp_path / "beyond.csv", index=False)
    scenario = pool_scenario_file(tmp_path, 3)
    shipped = str(SCENARIOS / "pools" / "breast-cancer.csv")
    scenario.write_text(scenario.read_text().replace(shipped, str(tmp_path / "beyond.csv")))
    app = make_app(
        scenario, sessions_dir=tmp_path / "sessions", scenarios_dir=tmp_path, participant="dr-lee"
    )
    async with app.run_test(size=(140, 45)) as pilot:
        result = await answered_and_confirmed(pilot, "bbb")
        advice = result.decision.recommendations[0]
        said = " ".join(str(result.query_one("#result-recommend").render()).split())
    assert f"{advice.name} lies outside the ranges the scenario's questions ask about:" in said, (
        said
    )
    assert "KB of memory (its range: 1 KB to 750 KB)" in said
    # session show says it of the pick the questions stopped on, with the same words
    from tradeoff.cli.app import format_session
    from tradeoff.record.summary import summarise

    (path,) = (tmp_path / "sessions" / "dr-lee").glob("*.jsonl")
    summary = summarise(path)
    assert summary.verdict is not None
    shown = " ".join(format_session(summary).split())
    assert "lies outside the ranges the scenario's questions ask about:" in shown, shown
    assert "KB of memory (its range: 1 KB to 750 KB)" in shown
    from tradeoff.cli import main

    assert main(["session", "show", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["pick"]["outside_ranges_sentence"].startswith(data["pick"]["name"])
