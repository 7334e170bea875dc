"""The study page's review on a pool with measurement noise reads the pool file once: the
candidates' names and the models within measurement noise of the pick come from the same
read (and say what they said when each read it)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from aiohttp.test_utils import TestServer

from tradeoff.ask.scenario import load_scenario
from tradeoff.choose import candidates
from tradeoff.record.log import read_session
from tradeoff.record.replay import replay
from tradeoff.simulation.oracles import SimulatedOracle
from tradeoff.study.folder import Study, create_study
from tradeoff.web.flow import make_web_app

from ..choose.test_noise_pick import TRUTH, front_frame
from ..conftest import SCENARIOS
from ..webclient import Participant

pytestmark = pytest.mark.e2e


@asynccontextmanager
async def at_review(tmp_path: Path, frame: pd.DataFrame) -> AsyncIterator[tuple[Any, Any, Study]]:
    """The triage scenario on the pool ``frame`` (front.csv), served; p01 answers every
    question as ``TRUTH`` does and is at the review: (the client, the review page, the
    study), the server stopped after."""
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
        yield p, page, study
    finally:
        await p.close()
        await server.close()


async def test_the_noisy_review_reads_the_pool_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with at_review(tmp_path, front_frame()) as (p, page, study):
        first = page.text
        reads: list[Path] = []
        load = candidates.load_pool
        monkeypatch.setattr(
            candidates, "load_pool", lambda path, *a, **k: reads.append(path) or load(path, *a, **k)
        )
        again = await p.get("review")
    assert reads == [study.path / "front.csv"]  # one read for the names and the ties
    assert again.text == first  # the same words as before
    assert "within measurement noise for you" in first and "measured best" in first
