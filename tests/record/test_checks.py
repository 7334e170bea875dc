"""Attention checks: dominated as shown, recorded apart from answers, never learned from,
verified on replay."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from tradeoff.ask.checks import attention_check, checkable, dominant_side
from tradeoff.ask.scenario import AttributeSpec, ClassSpec, Scenario, load_scenario
from tradeoff.ask.shown import card_lines
from tradeoff.errors import InputError
from tradeoff.learn import Choice
from tradeoff.record.log import read_session
from tradeoff.record.marks import Marks
from tradeoff.record.recorder import Recorder
from tradeoff.record.records import chained_line, split_chain
from tradeoff.record.replay import replay
from tradeoff.simulation.oracles import SimulatedOracle
from tradeoff.study.opening import start_session

from ..conftest import SCENARIOS, small_scenario_file, spec

pytestmark = [pytest.mark.core, pytest.mark.other_path]

TRUTH = [0.5, 0.2, 0.2, 0.1]
GLAUCOMA = load_scenario(SCENARIOS / "glaucoma-screening.toml").scenario


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    """The glaucoma scenario with other classes' recall ranges and other attributes."""
    classes = []
    for c in GLAUCOMA.classes:
        low = draw(st.floats(0.0, 0.9))
        high = draw(st.floats(low + 0.05, 1.0))
        classes.append(ClassSpec(**{**c.model_dump(), "recall_range": (low, high)}))
    attributes = []
    for a in GLAUCOMA.attributes:
        low = draw(st.floats(-1000.0, 1000.0))
        span = draw(st.floats(0.01, 5000.0))
        digits = draw(st.integers(0, 3))
        kind = draw(st.sampled_from(["cost", "reward"]))
        try:
            attributes.append(
                AttributeSpec(
                    name=a.name,
                    kind=kind,
                    unit=a.unit,
                    range=(low, low + span),
                    label=a.label,
                    format=f"{{value:.{digits}f}} {a.unit}",
                )
            )
        except ValidationError:  # a range the scenario itself refuses
            assume(False)
    return GLAUCOMA.model_copy(update={"classes": classes, "attributes": attributes})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios(), st.integers(1, 50), st.integers(0, 2**31))
def test_a_check_is_dominated_as_shown(sc: Scenario, position: int, seed: int) -> None:
    if not checkable(sc):
        with pytest.raises(ValueError, match="reads clearly apart"):
            attention_check(sc, (0.1, 0.9), position, seed)
        return
    q = attention_check(sc, (0.1, 0.9), position, seed)
    side = dominant_side(sc, q)
    assert side in ("left", "right")
    better, worse = (q.left, q.right) if side == "left" else (q.right, q.left)
    lines = card_lines(sc, better, worse)
    # brute force over what the page shows: never worse on a line, better on one at least
    assert not any(line.differs and not line.better for line in lines)
    assert any(line.differs and line.better for line in lines)
    assert all(not line.differs for line in card_lines(sc, worse, better) if line.better)
    assert dominant_side(sc, q.swapped()) == ("right" if side == "left" else "left")


def test_a_trade_is_not_a_check() -> None:
    from tradeoff.ask.queries import ClassifierProfile, Query

    a = ClassifierProfile((0.09, 0.72), (0.9, 0.8), (0.2, 5.0))
    b = ClassifierProfile((0.07, 0.72), (0.7, 0.8), (0.1, 5.0))
    assert dominant_side(GLAUCOMA, Query(a, b, (0, 0), (0.0, 0.0))) is None
    same = ClassifierProfile((0.09, 0.72), (0.9, 0.8), (0.2004, 5.0))  # reads $0.20 too
    assert dominant_side(GLAUCOMA, Query(a, same, (0, 0), (0.0, 0.0))) is None


def _session(tmp_path: Path, checks: dict[int, str], answers: int = 6) -> Recorder:
    tmp_path.mkdir()
    loaded = load_scenario(small_scenario_file(tmp_path))
    rec = start_session(loaded, "p01", tmp_path / "sessions", spec=spec(loaded.scenario, budget=20))
    oracle = SimulatedOracle.for_scenario(loaded.scenario, TRUTH)
    for _ in range(answers):
        position = rec.engine.answered + 1
        if position in checks:
            q = attention_check(rec.engine.scenario, rec.engine.space.priors, position)
            side = dominant_side(rec.engine.scenario, q)
            assert side is not None
            rec.check(q, side, checks[position], response_ms=900.0, language="en")
        q = rec.engine.next_query()
        assert q is not None
        rec.answer(oracle.choose(q))
    return rec


def test_checks_are_recorded_apart_and_never_learned_from(tmp_path: Path) -> None:
    plain = _session(tmp_path / "a", {})
    checked = _session(tmp_path / "b", {2: "left", 5: "right"})
    plain.close()
    checked.close()
    with_log, without_log = read_session(checked.path), read_session(plain.path)
    assert [c.position for c in with_log.checks] == [2, 5]
    assert sum(e.type == "answer" for e in with_log.events) == 6
    a = replay(with_log).result()
    b = replay(without_log).result()
    assert a.weights == pytest.approx(b.weights, abs=1e-12)
    assert a.intervals is not None and b.intervals is not None
    assert [x for iv in a.intervals for x in iv] == pytest.approx(
        [x for iv in b.intervals for x in iv], abs=1e-12
    )
    assert Marks.of(with_log).checks == {2, 5}


@pytest.fixture
def two_checks(tmp_path: Path) -> Path:
    loaded = load_scenario(small_scenario_file(tmp_path))
    rec = start_session(loaded, "p01", tmp_path / "sessions", spec=spec(loaded.scenario))
    oracle = SimulatedOracle.for_scenario(loaded.scenario, TRUTH)
    for position, picks in ((1, "good"), (3, "bad")):
        while rec.engine.answered + 1 < position:
            q = rec.engine.next_query()
            assert q is not None
            rec.answer(oracle.choose(q))
        check = attention_check(loaded.scenario, rec.engine.space.priors, position)
        side = dominant_side(loaded.scenario, check)
        assert side is not None
        other = "right" if side == "left" else "left"
        record = rec.check(check, side, side if picks == "good" else other)
        assert record.failed == (picks == "bad")
    assert rec.marks.checks == {1, 3}
    rec.close()
    resumed = Recorder.resume(rec.path)
    assert resumed.marks.checks == {1, 3}
    resumed.close()
    return rec.path


def test_replay_verifies_a_check(two_checks: Path) -> None:
    log = read_session(two_checks)
    assert [c.failed for c in log.checks] == [False, True]
    replay(log)  # as written, it verifies

    def rewrite(edit: dict[str, object]) -> None:
        lines = two_checks.read_text().splitlines()
        out, chain = [], None
        for text in lines:
            data = json.loads(split_chain(text)[0])
            if data["type"] == "check" and data["position"] == 3:
                data.update(edit)

            class Raw(BaseModel):
                model_config = {"extra": "allow"}

            chain, raw = chained_line(chain, Raw(**data))
            out.append(raw.decode())
        two_checks.write_text("".join(out))

    dominant = log.checks[1].dominant
    rewrite({"dominant": "left" if dominant == "right" else "right"})
    with pytest.raises(InputError, match="not the one better on every line"):
        replay(read_session(two_checks))
    rewrite({"dominant": dominant, "position": 2})
    with pytest.raises(InputError, match="came before question 3, not 2"):
        replay(read_session(two_checks))


def test_a_check_choice_left_out_of_answers(tmp_path: Path) -> None:
    loaded = load_scenario(small_scenario_file(tmp_path))
    rec = start_session(loaded, "p01", tmp_path / "sessions", spec=spec(loaded.scenario))
    check = attention_check(loaded.scenario, rec.engine.space.priors, 1)
    side = dominant_side(loaded.scenario, check)
    assert side is not None
    record = rec.check(check, side, Choice.INDIFFERENT)
    assert not record.failed and rec.engine.answered == 0
    rec.close()


def test_session_show_says_the_checks(two_checks: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``session show`` (text and JSON) says how many checks were shown and which failed."""
    from tradeoff.cli import main

    assert main(["session", "show", str(two_checks)]) == 0
    text = capsys.readouterr().out
    assert "attention checks: 2 shown, never learned from; failed before question 3" in text
    assert main(["session", "show", str(two_checks), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["checks_shown"], data["checks_failed"]) == (2, 1)
