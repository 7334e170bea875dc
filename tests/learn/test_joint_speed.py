"""Strategy `joint` does per answer only the work its question needs: what it builds and
keeps between answers gives the same numbers as building it afresh."""

from __future__ import annotations

from typing import Any

import pytest

import tradeoff.learn.joint_questions as joint_questions
from tradeoff.learn.base import asked_aspects
from tradeoff.learn.joint_questions import Questions

from .test_joint import small_space


def test_a_trade_reads_its_cards_only_when_asked_what_differs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Building a trade to score it does not lay out its cards (most trades built are
    only scored); what differs on them is read on first use, as it reads afresh."""
    calls: list[Any] = []

    def counted(*args: Any) -> tuple[bool, ...]:
        calls.append(args)
        return asked_aspects(*args)

    monkeypatch.setattr(joint_questions, "asked_aspects", counted)
    monkeypatch.setattr(joint_questions, "_TRADES", {})
    space = small_space()
    trade = Questions(space, True).trade(0, 2, 0.37, 0.6)
    assert calls == []
    assert trade.differs == asked_aspects(space.scenario, (trade.query,))
    assert trade.differs == asked_aspects(space.scenario, (trade.query,))
    assert len(calls) == 1
