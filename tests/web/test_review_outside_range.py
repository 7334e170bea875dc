"""The study page's review, where it names the pick (a pool with measurement noise), says
when the pick lies outside the ranges the scenario's questions ask about, with the words
``session show`` prints for the same session."""

from __future__ import annotations

from pathlib import Path

import pytest
from aiohttp.test_utils import TestServer

from tradeoff.ask.scenario import load_scenario
from tradeoff.cli.app import format_session
from tradeoff.record.log import read_session
from tradeoff.record.replay import replay
from tradeoff.record.summary import summarise
from tradeoff.simulation.oracles import SimulatedOracle
from tradeoff.study.folder import create_study
from tradeoff.text import clean_text
from tradeoff.web.flow import make_web_app

from ..choose.test_noise_pick import COLUMNS, TRUTH, front_frame
from ..conftest import SCENARIOS
from ..webclient import Participant

pytestmark = pytest.mark.e2e


async def test_the_review_says_the_pick_lies_outside_the_ranges(tmp_path: Path) -> None:
    frame = front_frame()
    frame[COLUMNS[3]] = 800.0  # every model's memory beyond the questions' 1–750 KB
    frame.to_csv(tmp_path / "front.csv", index=False)
    text = (SCENARIOS / "breast-cancer-triage.toml").read_text(encoding="utf-8")
    scenario = tmp_path / "triage.toml"
    scenario.write_text(text.replace('path = "pools/breast-cancer.csv"', 'path = "front.csv"'))
    study, codes = create_study(scenario, ["p01"], tmp_path / "study")
    oracle = SimulatedOracle.for_scenario(load_scenario(study.scenario_path).scenario, TRUTH)
    server = TestServer(make_web_app(study))
    await server.start_server()
    p = Participant(str(server.make_url("/")))
    try:
        page = await p.enter(codes["p01"])
        while page.path.endswith("/question"):
            [path] = (study.sessions_dir / "p01").glob("*.jsonl")
            log = read_session(path)
            query = replay(log, population=study.populations()(log.header.scenario)).next_query()
            assert query is not None
            page = await p.submit(page, "answer", choice=oracle.choose(query).value)
        assert page.path.endswith("/review"), page.path
    finally:
        await p.close()
        await server.close()
    said = "800 KB of memory (its range: 1 KB to 750 KB). Where it ranks rests on the weights"
    shown = " ".join(page.text.split())
    assert "lies outside the ranges the scenario's questions ask about:" in shown
    assert said in shown
    session = " ".join(clean_text(format_session(summarise(path))).split())
    pick = shown.split(" lies outside the ranges", 1)[0].rsplit(" ", 1)[-1]
    assert f"{pick} lies outside the ranges the scenario's questions ask about:" in session
