"""A replay gives each recorded answer to the engine in one call
(:meth:`~tradeoff.learn.Engine.answer_replayed`): the engine's own question when it asks the
same one now, else the question as recorded, checked against what the space builds."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tradeoff.ask.queries import Query
from tradeoff.learn import Choice, Engine

from ..conftest import spec
from .test_joint import triage  # noqa: F401 (the fixture)

pytestmark = pytest.mark.core


def test_a_replayed_answer_goes_as_asked_or_as_recorded(
    triage: tuple[Any, np.ndarray],  # noqa: F811
) -> None:
    """The question asked now is answered as asked (False) and reaches the state
    ``answer`` reaches; another question the space builds goes as recorded (True), as
    ``answer_recorded`` takes it; one it does not build is refused; without the check every
    answer goes as recorded."""
    sc, _ = triage
    strategy_spec = spec(sc, strategy="joint", budget=30)

    def fresh() -> Engine:
        return Engine(sc, strategy_spec, seed=1)

    first = fresh()
    asked = first.next_query()
    assert asked is not None
    first.answer(Choice.LEFT)
    later = first.next_query()
    assert later is not None

    own, plain = fresh(), fresh()
    assert own.answer_replayed(asked, Choice.LEFT) is False
    plain.answer(Choice.LEFT)
    assert own.state == plain.state

    other, recorded = fresh(), fresh()
    assert other.answer_replayed(later, Choice.RIGHT) is True
    recorded.answer_recorded(later, Choice.RIGHT)
    assert other.state == recorded.state and other.answered == 1

    unchecked = fresh()
    assert unchecked.answer_replayed(asked, Choice.LEFT, check=False) is True
    assert unchecked.state == plain.state

    stranger = Query(later.left, later.right, (0, 99), later.params, later.threshold)
    with pytest.raises(ValueError, match="not one this scenario builds"):
        fresh().answer_replayed(stranger, Choice.LEFT)


def test_a_fault_choosing_the_engines_own_question_is_not_the_records(
    triage: tuple[Any, np.ndarray],  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A replay reports a ValueError as a session line that cannot be replayed; one raised
    while the engine chooses its own next question is a fault of the engine, so it is not a
    ValueError (it would blame the file)."""
    engine = Engine(triage[0], seed=0)
    query = engine.next_query()
    assert query is not None

    def broken() -> None:
        raise ValueError("a programming error")

    monkeypatch.setattr(engine, "next_query", broken)
    with pytest.raises(RuntimeError, match="a programming error"):
        engine.answer_replayed(query, Choice.LEFT)
