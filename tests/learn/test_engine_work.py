"""Strategy `joint` does once what several steps of one answer read: the trades of a
summary, the reference draws' best candidate, the numbers the screen shows; each gives
what working it out afresh gives."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest

import tradeoff.ask.shown as shown
import tradeoff.learn.corroboration as corroboration
import tradeoff.learn.joint_questions as joint_questions
from tradeoff.ask.queries import Query
from tradeoff.ask.scenario import AttributeSpec, parse_scenario
from tradeoff.learn.base import Choice
from tradeoff.learn.corroboration import holding_up
from tradeoff.learn.joint import JointStrategy
from tradeoff.learn.joint_questions import Questions
from tradeoff.learn.joint_state import JointRecord
from tradeoff.stable import stable_argmax_rows

from ..conftest import spec
from .test_joint import SMALL, profile
from .test_joint_speed import _after_answers

pytestmark = pytest.mark.core


def test_the_trades_of_a_summary_are_built_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The stop's check and the choice of a question both ask for the trades of one
    state's summary: they are built once, and are those built afresh; another summary's
    are built anew."""
    strategy, state = _after_answers()
    summary = strategy.posterior.summary(state)
    questions = Questions(strategy.space, True)
    built: list[Any] = []
    trade = Questions.trade

    def counted(self: Questions, *args: Any) -> Any:
        built.append(args)
        return trade(self, *args)

    monkeypatch.setattr(Questions, "trade", counted)
    first = questions.trades(summary)
    calls = len(built)
    assert calls > 0
    second = questions.trades(summary)
    assert len(built) == calls
    assert second == first and second is not first
    monkeypatch.setattr(joint_questions, "_TRADES", {})
    fresh = Questions(strategy.space, True).trades(summary)
    assert [t.keys for t in fresh] == [t.keys for t in first]
    other, state2 = _after_answers(seed=8)
    questions.trades(other.posterior.summary(state2))
    assert len(built) > 2 * calls


def test_the_one_answer_check_reads_the_draws_best_candidate_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Which candidate is best for each of the 20,000 reference draws depends on neither
    the answers nor the pick: the strategy works it out once, and the check of which
    answers hold the pick up gives what it gives working it out itself."""
    settled_strategy, _ = _after_answers()
    # Every pick settled (a regret tolerance above any regret): the check runs.
    strategy = replace(settled_strategy, spec=spec(parse_scenario(SMALL), regret_tolerance=0.99))
    state = strategy.initial()
    for query, choice in _answers(strategy):
        state = strategy.update(state, query, choice)
    worked: list[Any] = []

    def counted(values: Any, *args: Any) -> Any:
        worked.append(1)
        return stable_argmax_rows(values, *args)

    monkeypatch.setattr(corroboration, "stable_argmax_rows", counted)
    assert strategy.on_one_answer(state) == strategy.on_one_answer(state)
    query = strategy.next_question(state)
    assert query is not None
    strategy.on_one_answer(strategy.update(state, query, Choice.LEFT))
    assert worked == []
    assert strategy._reference_best is not None
    rng = np.random.default_rng(3)
    natural = rng.dirichlet(np.ones(3), size=500)
    front = rng.uniform(0, 1, (4, 3))
    records = [
        JointRecord(tuple(rng.normal(0, 0.3, 3)), int(rng.integers(0, 3)), "trade", ())
        for _ in range(6)
    ]
    best = stable_argmax_rows(natural @ front.T)
    for pick in range(4):
        given = holding_up(records, natural, front, pick, (0.1, 0.0, 0.0), 0.6, best)
        alone = holding_up(records, natural, front, pick, (0.1, 0.0, 0.0), 0.6)
        assert given.tolist() == alone.tolist()


def _answers(strategy: JointStrategy) -> list[tuple[Query, Choice]]:
    """Three answers about pairs of the strategy's candidates."""
    assert strategy.candidates is not None
    rows = strategy.candidates
    out = []
    for i, j in [(0, 1), (1, 2), (3, 4)]:
        left, right = profile(strategy.space, rows[i]), profile(strategy.space, rows[j])
        out.append((Query(left, right, (0, 1), (0.5, 0.5)), Choice.LEFT))
    return out


def test_the_shown_numbers_are_kept_and_read_as_afresh() -> None:
    """The numbers the screen shows are kept per value (the options of one space repeat
    the same few), and read as formatting them afresh; 0 and −0 keep their own text."""
    spec = AttributeSpec(name="t", kind="cost", range=(-1, 1), label="ms", format="{value:.2f} ms")
    rng = np.random.default_rng(0)
    values = [float(x) for x in rng.uniform(-1, 1, 200)] + [0.0, -0.0, 1e-13, -0.004999]
    for value in values + values:
        afresh = format(shown.settled(value), ".2f")
        assert shown._number(spec, value) == afresh
        assert shown.per_thousand(value) == round(shown.settled(value * shown.PER))
    assert shown._number(spec, -0.0) == "-0.00" and shown._number(spec, 0.0) == "0.00"
    for value in values + values:
        assert shown.shown_number(spec, value) == float(format(shown.settled(value), ".2f"))
    assert str(shown.shown_number(spec, -0.0)) == "-0.0"
    assert str(shown.shown_number(spec, 0.0)) == "0.0"
    percent = AttributeSpec(
        name="p", kind="reward", range=(0, 1), label="of cases", format="{value:.1%} of cases"
    )
    assert shown.shown_number(percent, 0.12345) == pytest.approx(0.123)
    assert shown._read_formatted.cache_info().hits > 0
    assert shown._formatted.cache_info().hits > 0


def test_the_exchange_rates_are_sorted_once_while_the_particles_stay(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Between two moves only the particles' weights change: the trades' targets sort the
    exchange rates once, and aim where sorting them afresh aims."""
    strategy, state = _after_answers()
    summary = strategy.posterior.summary(state)
    questions = Questions(strategy.space, True)
    sorted_: list[Any] = []
    argsort = np.argsort

    def counted(values: Any, *args: Any, **kwargs: Any) -> Any:
        sorted_.append(values.shape)
        return argsort(values, *args, **kwargs)

    first = questions.trades(summary)
    monkeypatch.setattr(joint_questions.np, "argsort", counted)
    reweighed = replace(summary, weights=summary.weights[::-1].copy())
    again = questions.trades(reweighed)
    assert sorted_ == []
    monkeypatch.undo()
    afresh = Questions(strategy.space, True).trades(reweighed)
    assert [t.keys for t in again] == [t.keys for t in afresh]
    assert [t.keys for t in first] != [t.keys for t in again]


class _CountedRecords(tuple):  # type: ignore[type-arg]
    """Records that count how often they are read through."""

    reads = 0

    def __iter__(self) -> Any:
        type(self).reads += 1
        return super().__iter__()


def test_what_was_shown_before_is_read_once_per_state() -> None:
    """Whether each question may be asked reads the answers so far once per state (how
    often each was shown, which were answered "can't tell"), and allows what reading them
    per question allows."""
    strategy, state = _after_answers()
    summary = strategy.posterior.summary(state)
    options = strategy._options(summary)
    questions = Questions(strategy.space, True)
    # Repeat two of the questions, one answered "can't tell" twice over.
    extra = []
    for option, outcome in [(options[0], 0), (options[0], 1), (options[1], 2)]:
        key = questions.allowed(state, option)
        assert key is not None
        q = option.query
        extra.append(JointRecord(tuple(option.diff), outcome, "trade", key, q.pair, q.threshold))
    counted = replace(state, records=_CountedRecords((*state.records, *extra)))
    _CountedRecords.reads = 0
    got = [questions.allowed(counted, o) for o in options]
    assert _CountedRecords.reads == 1
    assert got[0] is None and got[1] is None
    for option, key in zip(options, got, strict=True):
        assert key == _allowed_afresh(questions, counted, option)


def _allowed_afresh(questions: Questions, state: Any, option: Any) -> Any:
    """:meth:`Questions.allowed`, reading every answer for the one question."""
    from tradeoff.learn.base import logit
    from tradeoff.learn.joint_questions import Trade
    from tradeoff.learn.posterior import MAX_SHOWS, UNSURE_GAP

    key = option.shown if not isinstance(option, Trade) else questions.shown_key(option.query)
    if key is None:
        return None
    records = list(state.records)
    if sum(r.shown == key for r in records) >= MAX_SHOWS:
        return None
    if any(r.shown == key and r.outcome == 2 for r in records):
        return None
    t = option.query.threshold
    if isinstance(option, Trade) and t is not None:
        for r in records:
            if (
                r.outcome == 2
                and r.pair == option.query.pair
                and r.threshold is not None
                and abs(logit(t) - logit(r.threshold)) < UNSURE_GAP
            ):
                return None
    return key
