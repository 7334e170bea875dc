"""The engine API and the `paper` strategy (Algorithm 1 of paper 004)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tradeoff.ask.population import build_population
from tradeoff.learn import Choice, Engine, EngineFinished
from tradeoff.simulation.oracles import SimulatedOracle

from ..conftest import PAPER_SCENARIOS, scenario, small, spec

pytestmark = pytest.mark.stats

EPS = 0.001


def truths(n: int) -> st.SearchStrategy[list[float]]:
    """True weights whose reference (class-1) weight is at least 0.05.

    Algorithm 1 bisects m = a₁/(a₁ + a_i) to within ε/2. The resulting error in a normalised
    weight is about (a₁ + a_i)²(1 − a_i)/a₁ · ε/2, which exceeds 4ε only when the reference
    weight a₁ is below ~0.01 (then every ratio a_i/a₁ is huge and m sits near 0).
    """
    return st.tuples(
        st.floats(0.05, 0.9), st.lists(st.floats(0.01, 1.0), min_size=n - 1, max_size=n - 1)
    ).map(lambda t: [t[0], *[(1 - t[0]) * x / sum(t[1]) for x in t[1]]])


@pytest.mark.parametrize("name", PAPER_SCENARIOS)
@given(data=st.data())
def test_paper_recovers_random_truths_within_4_epsilon(name: str, data: st.DataObject) -> None:
    sc = scenario(name)
    truth = data.draw(truths(len(sc.weight_names)))
    engine = Engine(sc, spec(sc, strategy="paper", epsilon=EPS))
    oracle = SimulatedOracle.for_scenario(sc, truth)
    while (q := engine.next_query()) is not None:
        engine.answer(oracle.choose(q))
    got = np.array(engine.result().weights)
    assert np.max(np.abs(got - np.array(truth))[1:]) <= 4 * EPS
    # The bisection interval of each ratio contains the true m* = a₁ / (a₁ + a_i).
    m_true = [truth[0] / (truth[0] + t) for t in truth[1:]]
    assert np.max(np.abs(np.array(engine.state.mids) - m_true)) <= EPS


def test_paper_asks_four_questions_per_halving() -> None:
    sc = small("paper-k2-two-costs")
    engine = Engine(sc, spec(sc, strategy="paper", epsilon=0.001))
    assert engine.expected_total() == 120
    engine2 = Engine(sc, spec(sc, strategy="paper", epsilon=0.25))  # 2 halvings: 1 → 0.5 → 0.25
    assert engine2.expected_total() == 3 * 4 * 2


def test_query_points_follow_algorithm_1() -> None:
    sc = small("paper-k2-two-costs")
    engine = Engine(sc, spec(sc, strategy="paper"))
    params = []
    for _ in range(4):
        q = engine.next_query()
        assert q is not None
        params.append(q.params)
        assert q.pair == (0, 1)
        engine.answer(Choice.RIGHT)  # never "left": the optimum lies right of d, a = d
    assert params == [(0.0, 0.25), (0.25, 0.5), (0.5, 0.75), (0.75, 1.0)]
    assert (engine.state.low, engine.state.high) == (0.5, 1.0)
    q = engine.next_query()
    assert q is not None and q.params == (0.5, 0.625)


@pytest.mark.parametrize(
    ("answers", "interval"),
    [
        ("LRRR", (0.0, 0.5)),  # q_ac → b = d
        ("RLRR", (0.0, 0.5)),  # q_cd → b = d
        ("RRLR", (0.25, 0.75)),  # q_de → a = c, b = e
        ("RRRL", (0.5, 1.0)),  # else → a = d
        ("IIII", (0.5, 1.0)),  # "can't tell" is Γ = 0
    ],
)
def test_interval_update_rules(answers: str, interval: tuple[float, float]) -> None:
    engine = Engine(
        small("paper-k2-two-costs"), spec(small("paper-k2-two-costs"), strategy="paper")
    )
    for a in answers:
        engine.answer({"L": Choice.LEFT, "R": Choice.RIGHT, "I": Choice.INDIFFERENT}[a])
    assert (engine.state.low, engine.state.high) == interval


def test_budget_stops_early_and_reports_incomplete() -> None:
    engine = Engine(
        small("paper-k2-two-costs"), spec(small("paper-k2-two-costs"), strategy="paper", budget=10)
    )
    n = 0
    while engine.next_query() is not None:
        engine.answer(Choice.LEFT)
        n += 1
    assert n == 10
    result = engine.result()
    assert result.answers == 10 and result.complete
    assert sum(result.weights) == pytest.approx(1)
    with pytest.raises(EngineFinished):
        engine.answer(Choice.LEFT)
    assert engine.expected_remaining() == 0


choices = st.lists(st.sampled_from(list(Choice)), min_size=1, max_size=60)


@given(answers=choices, undo_at=st.integers(0, 59))
def test_undo_restores_the_exact_earlier_state(answers: list[Choice], undo_at: int) -> None:
    sc = small("paper-k3-cost-two-rewards")
    engine = Engine(sc, spec(sc, strategy="paper"))
    cut = min(undo_at, len(answers) - 1)
    for c in answers[:cut]:
        engine.answer(c)
    state_before, query_before = engine.state, engine.next_query()
    result_before = engine.result()
    for c in answers[cut:]:
        engine.answer(c)
    for _ in answers[cut:]:
        engine.undo()
    assert engine.state == state_before
    assert engine.next_query() == query_before
    assert engine.result() == result_before
    assert engine.answered == cut


def test_undo_shows_the_same_question_again() -> None:
    engine = Engine(
        small("paper-k2-reward-cost"), spec(small("paper-k2-reward-cost"), strategy="paper")
    )
    assert engine.undo() is None
    first = engine.next_query()
    engine.answer(Choice.LEFT)
    assert engine.undo() == first
    assert engine.next_query() == first


@given(answers=choices)
def test_replaying_the_same_answers_gives_the_same_state(answers: list[Choice]) -> None:
    sc = small("paper-k3-two-costs-reward")
    a, b = Engine(sc, spec(sc, strategy="paper")), Engine(sc, spec(sc, strategy="paper"))
    for c in answers:
        qa, qb = a.next_query(), b.next_query()
        assert qa == qb
        a.answer(c)
        b.answer(c)
    assert a.state == b.state and a.result() == b.result()


def test_unknown_strategy_is_rejected() -> None:
    with pytest.raises(ValueError, match="strategy"):
        spec(small("paper-k2-two-costs"), strategy="guess")


def test_population_is_built_once_per_scenario() -> None:
    sc = scenario("paper-k2-two-costs")
    names = tuple(c.name for c in sc.classes)
    assert build_population(sc.population, names) is build_population(sc.population, names)
