"""The language an answer was shown in: written with the answer when the face knows it
(the study web page), left out when it does not (the terminal), read back, and replayed to
the same engine either way."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tradeoff.ask.scenario import load_scenario
from tradeoff.learn import Choice
from tradeoff.record.log import read_session
from tradeoff.record.replay import replay
from tradeoff.study.opening import start_session

from ..conftest import SCENARIOS

pytestmark = pytest.mark.core


def test_an_answer_records_its_language_only_when_given(tmp_path: Path) -> None:
    loaded = load_scenario(SCENARIOS / "glaucoma-screening.toml")
    spec = loaded.scenario.elicitation.override(budget=3)
    rec = start_session(loaded, "p01", tmp_path, spec=spec, seed=2)
    rec.answer(Choice.LEFT, response_ms=1200.0, language="de")
    rec.answer(Choice.RIGHT)
    rec.answer(Choice.INDIFFERENT, language="x-pseudo")
    weights = rec.engine.result().weights
    rec.finish()
    rec.close()
    [path] = sorted(tmp_path.rglob("*.jsonl"))
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    answers = [line for line in lines if line["type"] == "answer"]
    assert [a.get("language", "absent") for a in answers] == ["de", "absent", "x-pseudo"]
    log = read_session(path)
    assert [e.language for e in log.events if e.type == "answer"] == ["de", None, "x-pseudo"]
    replayed = replay(log).result().weights
    assert np.allclose(replayed, weights, rtol=1e-9, atol=0)  # the same answers whatever
    assert log.warnings == []  # the language they were shown in
