"""What a person reads of a decision: every chance in words that never claim certainty
(`tradeoff.text.probability_words`), on every face that shows one."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from tradeoff.ask.scenario import LoadedScenario, load_scenario
from tradeoff.choose.decide import Decision, decide
from tradeoff.choose.report import write_report
from tradeoff.choose.words import plain_summary
from tradeoff.cli.decide import format_selection
from tradeoff.learn import Choice
from tradeoff.record.log import read_session
from tradeoff.simulation.oracles import SimulatedOracle
from tradeoff.study.opening import start_session
from tradeoff.text import probability_words
from tradeoff.tui.screens.result import recommendation_text

from ..conftest import ROOT, SCENARIOS

#: "100%" or "100 %" said of a chance (not "top-100%", a rank among the candidates).
CERTAIN = re.compile(r"(?<![-\w])100 ?%")


@pytest.mark.parametrize(
    ("p", "words"),
    [
        (1.0, "over 99%"),
        (0.9995, "over 99%"),
        (0.995, "over 99%"),
        (0.994, "99%"),
        (0.5, "50%"),
        (0.0051, "1%"),
        (0.004, "under 1%"),
        (1e-9, "under 1%"),
        (0.0, "0%"),
    ],
)
def test_probability_words(p: float, words: str) -> None:
    assert probability_words(p) == words


def natural_weights(swing: tuple[float, ...]) -> tuple[float, ...]:
    sys.path.insert(0, str(ROOT / "sessions" / "examples"))
    try:
        from make_examples import natural_weights as made
    finally:
        sys.path.pop(0)
    return made(swing)


def record_with_cant_tell(loaded: LoadedScenario, folder: Path) -> Path:
    """30 answers of a person sure of what they value, the 20th "can't tell"."""
    spec = loaded.scenario.elicitation.override(budget=30, stop="weights")
    rec = start_session(loaded, "dr-kim", folder, spec=spec, seed=0)
    oracle = SimulatedOracle.for_scenario(loaded.scenario, natural_weights((0.6, 0.2, 0.1, 0.1)))
    with rec:
        while (q := rec.engine.next_query()) is not None:
            rec.answer(Choice.INDIFFERENT if rec.engine.answered == 19 else oracle.choose(q))
        rec.finish()
    return rec.path


@pytest.fixture(scope="module")
def sure(tmp_path_factory: pytest.TempPathFactory) -> Decision:
    """A decision whose P(best) rounds to 100% after answers that include "can't tell"."""
    loaded = load_scenario(SCENARIOS / "breast-cancer-triage.toml")
    path = record_with_cant_tell(loaded, tmp_path_factory.mktemp("sure"))
    answers = [e.choice for e in read_session(path).events if e.type == "answer"]
    assert Choice.INDIFFERENT in answers
    decision = decide([path])
    p = decision.recommendations[0].probability
    assert p is not None and p >= 0.995, f"P(best) {p}: pick a surer person for this test"
    return decision


def test_a_sure_pick_is_never_certain_on_any_face(sure: Decision, tmp_path: Path) -> None:
    rec = sure.recommendations[0]
    faces = {
        "select": format_selection(sure.selection),
        "ranking details": "\n".join(plain_summary(sure.selection)),
        "result screen": recommendation_text(rec, sure.pool.n).plain,
    }
    _, md = write_report(sure, tmp_path / "report", argv=["report"])
    faces["report"] = md.read_text()
    for face, text in faces.items():
        assert CERTAIN.search(text) is None, (face, CERTAIN.search(text))
        assert "over 99%" in text, face
