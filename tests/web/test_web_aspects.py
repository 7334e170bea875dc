"""The study page on a scenario whose options are described by their aspects alone (the
LLM leaderboard): code, consent, questions showing two candidate models by their scores and
CO₂, what we learned (costs and rewards, no class's cases; trade-offs of the aspects),
thank-you; the session is complete and replays."""

from __future__ import annotations

from pathlib import Path

import pytest
from aiohttp.test_utils import TestServer

from tradeoff.cli import main
from tradeoff.record.log import read_session
from tradeoff.record.replay import replay
from tradeoff.study.folder import create_study
from tradeoff.study.status import study_status
from tradeoff.web.flow import make_web_app

from ..conftest import SCENARIOS
from ..webclient import Participant
from .test_web import CONSENT, answer_all, sessions

pytestmark = pytest.mark.e2e


async def test_a_leaderboard_session_from_code_to_thank_you(tmp_path: Path) -> None:
    scenario = tmp_path / "llm-leaderboard.toml"
    scenario.write_text(
        (SCENARIOS / "llm-leaderboard.toml").read_text().replace("budget = 30", "budget = 5")
    )
    (tmp_path / "pools").mkdir()
    pool = (SCENARIOS / "pools" / "llm-leaderboard.csv").read_bytes()
    (tmp_path / "pools" / "llm-leaderboard.csv").write_bytes(pool)
    consent = tmp_path / "consent.md"
    consent.write_text(CONSENT)
    study, codes = create_study(scenario, ["p01"], tmp_path / "study", consent=consent)
    server = TestServer(make_web_app(study))
    await server.start_server()
    p = Participant(str(server.make_url("/")))
    try:
        page = await p.enter(codes["p01"])
        q1 = await p.submit(page, "consent", choice="agree")
        assert q1.h1 == "Question 1"
        assert "kg CO₂ to evaluate" in q1.text and "points on MMLU-PRO" in q1.text
        assert "of 1,000" not in q1.text
        review = await answer_all(p, q1, "lr")
        assert review.h1 == "What we learned"
        assert "each cost or reward from one end of its range" in review.text
        assert "class" not in review.text.lower()
        assert "CO2" in review.text and "IFEval" in review.text
        done = await p.submit(review, "finish")
        assert done.h1 == "Thank you"
    finally:
        await p.close()
        await server.close()
    [path] = sessions(study, "p01")
    log = read_session(path)
    assert log.finished and replay(log).answered == len(
        [e for e in log.events if e.type == "answer"]
    )
    row = next(r for r in study_status(study).rows if r.participant == "p01")
    assert row.complete
    # the coordinator's report and export read it
    folder = str(tmp_path / "study")
    assert main(["study", "report", folder, "--out", str(tmp_path / "report")]) == 0
    report = (tmp_path / "report" / "report.md").read_text()
    assert "| CO2 | cost |" in report and "per 1,000" not in report
    assert main(["study", "export", folder, "--out", str(tmp_path / "answers.csv")]) == 0
    header = (tmp_path / "answers.csv").read_text().splitlines()[0]
    assert "A_co2" in header and "w_ifeval" in header
