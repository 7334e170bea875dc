"""The simulated person of ``benchmarks.study_load --answerer person`` reads the study
page as ``SimulatedOracle`` reads the question: the answers it gives from the differences a
question page shows are the oracle's on the questions the session file records."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from benchmarks.study_load import CONSENT, SCENARIO, _reading, persons_choice

from tradeoff.ask.scenario import load_scenario
from tradeoff.learn.engine import truth_from_dirichlet
from tradeoff.record.log import read_session
from tradeoff.record.records import AnswerRecord
from tradeoff.simulation.oracles import SimulatedOracle
from tradeoff.study.folder import create_study

from ..webclient import Participant
from .conftest import Serve
from .test_web import sessions

pytestmark = pytest.mark.e2e

#: Answers each person gives.
ANSWERS = 8


async def test_the_load_benchmarks_person_answers_as_the_oracle_would(
    tmp_path: Path, serve: Serve
) -> None:
    consent = tmp_path / "consent.md"
    consent.write_text(CONSENT)
    ids = ["p01", "p02", "p03"]
    study, codes = create_study(SCENARIO, ids, tmp_path / "study", consent=consent)
    base = await serve(study)
    spans, scale = _reading()
    scenario = load_scenario(SCENARIO).scenario
    every: list[str] = []
    for k, pid in enumerate(ids):
        truth = truth_from_dirichlet(spans, np.random.default_rng([k, 35]))
        p = Participant(base)
        given: list[str] = []
        try:
            page = await p.submit(await p.enter(codes[pid]), "consent", choice="agree")
            while page.path.endswith("/question") and len(given) < ANSWERS:
                given.append(persons_choice(page.html, truth, scale))
                page = await p.submit(page, "answer", choice=given[-1])
        finally:
            await p.close()
        (path,) = sessions(study, pid)
        recorded = [e for e in read_session(path).events if isinstance(e, AnswerRecord)]
        assert [e.choice.value for e in recorded] == given
        oracle = SimulatedOracle.for_scenario(scenario, truth)
        oracles = [oracle.choose(e.query.to_query()).value for e in recorded]
        assert oracles == given, (pid, truth)
        every += given
    assert len(every) == ANSWERS * len(ids)
    # both sides chosen (a reader that always said "left" would not be checked)
    assert {"left", "right"} <= set(every)
