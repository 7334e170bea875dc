"""The pick is never settled by the prior alone, ties are said as ties, and one number is
shown everywhere: the engine's stop, ``select``'s recommendation and rank acceptability."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tradeoff.ask.shown import card_lines
from tradeoff.choose.recommend import recommend
from tradeoff.choose.robustness import rank_acceptability
from tradeoff.learn import Choice, Engine
from tradeoff.learn.joint import JointStrategy
from tradeoff.learn.particles import PERCEIVABLE, perceivable_margin
from tradeoff.learn.verdict import Verdict, said_tied
from tradeoff.simulation.oracles import Noise, SimulatedOracle

from ..conftest import scenario, spec

pytestmark = pytest.mark.e2e


def pool_and_rows(sc: Any) -> tuple[Any, np.ndarray]:
    from tradeoff.ask.population import scenario_population
    from tradeoff.choose.pool_metric import metric_vectors
    from tradeoff.choose.selection import scenario_pool

    pool = scenario_pool(sc, "scenarios")
    return pool, metric_vectors(sc, pool, scenario_population(sc).priors.tolist())


@pytest.fixture(scope="module")
def triage() -> tuple[Any, Any, np.ndarray]:
    sc = scenario("breast-cancer-triage")
    pool, rows = pool_and_rows(sc)
    return sc, pool, rows


def run(sc: Any, rows: np.ndarray, truth: Any, seed: int, noise: Noise | None = None) -> Engine:
    engine = Engine(sc, spec(sc, strategy="joint", budget=30), seed=seed, candidates=rows)
    oracle = SimulatedOracle.for_scenario(sc, truth, noise=noise, seed=seed)
    while (q := engine.next_query()) is not None:
        engine.answer(oracle.choose(q))
    return engine


#: Latency carries most of the weight: before the rule, 14 of 20 such people were told
#: the wrong model at P(best) ≥ 0.95 after about 5 questions on the two classes alone.
LATENCY_MOST = (0.364832, 0.003555, 0.630419, 0.001194)


def test_no_stop_before_the_deciding_aspect_was_on_the_table(
    triage: tuple[Any, Any, np.ndarray],
) -> None:
    sc, _, rows = triage
    best = int(np.argmax(rows @ np.asarray(LATENCY_MOST)))
    for seed in range(4):
        engine = run(sc, rows, LATENCY_MOST, seed)
        strategy = engine._strategy
        assert isinstance(strategy, JointStrategy)
        assert engine.stop_reason() == "decided"
        # Latency (statistic 2) differed on the screen in some answered question.
        asked = engine.result().asked
        assert asked is not None and asked[2]
        assert strategy.unasked(engine.state) == ()
        assert strategy.pick(engine.state) == best


def test_every_aspect_the_live_winners_differ_on_was_asked_before_a_decided_stop(
    triage: tuple[Any, Any, np.ndarray],
) -> None:
    """Over truths of every kind, a "decided" stop never leaves an aspect on which the
    models still possibly best read differently without an answer that showed it."""
    sc, _, rows = triage
    rng = np.random.default_rng(11)
    for seed in range(6):
        swing = rng.dirichlet(np.full(4, 0.3))
        engine = Engine(sc, spec(sc, strategy="joint", budget=30), seed=seed, candidates=rows)
        truth = swing / np.asarray(engine.space.spans)
        engine = run(sc, rows, truth / truth.sum(), seed)
        strategy = engine._strategy
        assert isinstance(strategy, JointStrategy)
        if engine.stop_reason() != "decided":
            continue
        s = strategy.posterior.summary(engine.state)
        assert s.p_best is not None
        live = [int(strategy._front[i]) for i, p in enumerate(s.p_best) if p >= 1e-3]
        shown = [strategy.candidate_profile(i) for i in live]
        asked = np.zeros(4, dtype=bool)
        for q, _ in engine.history:
            asked |= [line.differs for line in card_lines(sc, q.left, q.right)]
        for j in range(4):
            texts = {card_lines(sc, p, p)[j].text for p in shown}
            assert len(texts) == 1 or asked[j], (seed, j)


def test_a_weight_no_answer_touched_is_reported_as_not_asked(
    triage: tuple[Any, Any, np.ndarray],
) -> None:
    sc, _, rows = triage
    engine = Engine(sc, spec(sc, strategy="joint", budget=30), seed=0, candidates=rows)
    assert engine.result().asked == (False, False, False, False)
    q = engine.next_query()
    assert q is not None
    engine.answer(SimulatedOracle.for_scenario(sc, LATENCY_MOST).choose(q))
    lines = card_lines(sc, q.left, q.right)
    assert engine.result().asked == tuple(line.differs for line in lines)
    assert engine.result().to_dict()["asked"] == [line.differs for line in lines]


def test_the_perceivable_margin_is_a_thousandth_of_the_heaviest_swing() -> None:
    natural = np.array([[0.2, 0.8], [0.9, 0.1]])
    spans = (0.5, 0.01)
    # a·span: (0.1, 0.008) and (0.45, 0.001): the largest times PERCEIVABLE.
    assert perceivable_margin(natural, spans) == pytest.approx(
        [PERCEIVABLE * 0.1, PERCEIVABLE * 0.45]
    )


def test_said_tied_whenever_a_model_within_the_margin_may_be_best() -> None:
    assert said_tied(0.80, 0.99, True, 0.95)
    assert not said_tied(0.80, 0.99, False, 0.95)  # nobody to be tied with
    # Settled as best, but a model within the margin holds ≥ TIE_MENTION: the answers
    # cannot tell them apart, so "P(best) ≥ 95%" would count a tie as a win (it was
    # "P(best)" alone, wrong for 10 of 39 such stops on a 30-model pool).
    assert said_tied(0.96, 0.999, True, 0.95)
    assert not said_tied(0.96, 0.999, False, 0.95)  # nobody within the margin
    assert not said_tied(0.80, 0.84, True, 0.95)  # ties hold less than TIE_SHARE
    assert not said_tied(0.93, 0.94, True, 0.95)  # not settled either way
    v = Verdict(3, 0.80, 0.97, 0.001, (5,), 0.95)
    assert v.practically_tied and v.stated == 0.97
    v = Verdict(3, 0.97, 0.99, 0.001, (5,), 0.95)
    assert v.practically_tied and v.stated == 0.99
    v = Verdict(3, 0.97, 0.99, 0.001, (), 0.95)
    assert not v.practically_tied and v.stated == 0.97


def test_near_p_best_counts_draws_within_each_draws_margin(
    triage: tuple[Any, Any, np.ndarray],
) -> None:
    """recommend's P(best or practically tied) against a draw-by-draw count."""
    sc, pool, rows = triage
    engine = run(sc, rows, (0.3, 0.3, 0.2, 0.2), 4, Noise("flip", 0.2))
    posterior = engine.weighted_draws()
    assert posterior is not None
    draws, w = posterior
    result = engine.result()
    assert result.priors is not None
    rec = recommend(
        sc, pool, result.weights, result.priors, draws=draws, draw_weights=w, vectors=rows
    )
    spans = engine.space.spans
    near = 0.0
    for d, wt in zip(draws, w, strict=True):
        psi = rows @ d
        margin = PERCEIVABLE * max(x * s for x, s in zip(d, spans, strict=True))
        near += wt * (psi.max() - psi[rec.index] <= margin)
    assert rec.p_near == pytest.approx(near / w.sum(), abs=1e-12)


def test_select_shows_the_probability_and_pick_the_questions_stopped_on(
    triage: tuple[Any, Any, np.ndarray],
) -> None:
    """The stop's P(best) is the one select shows (a resample used to be up to 0.005 off)."""
    sc, pool, rows = triage
    for seed, truth, noise in (
        (0, (0.3, 0.5, 0.1, 0.1), None),
        (1, (0.2, 0.2, 0.3, 0.3), Noise("flip", 0.1)),
        (2, LATENCY_MOST, Noise("logistic", 0.01)),
    ):
        engine = run(sc, rows, truth, seed, noise)
        verdict = engine.verdict()
        assert verdict is not None
        posterior = engine.weighted_draws()
        assert posterior is not None
        result = engine.result()
        assert result.priors is not None
        rec = recommend(
            sc,
            pool,
            result.weights,
            result.priors,
            draws=posterior[0],
            draw_weights=posterior[1],
            vectors=rows,
        )
        assert rec.index == verdict.pick
        assert rec.probability == pytest.approx(verdict.p_best, abs=1e-12)
        assert rec.p_near == pytest.approx(verdict.p_near, abs=1e-12)
        assert rec.practically_tied == verdict.practically_tied
        assert rec.stated == pytest.approx(verdict.stated, abs=1e-12)
        table = rank_acceptability(posterior[0], rows, draw_weights=posterior[1])
        assert table[rec.index, 0] == pytest.approx(verdict.p_best, abs=1e-12)


def test_an_unfinished_session_is_not_complete_for_the_stakeholder(
    triage: tuple[Any, Any, np.ndarray],
) -> None:
    from tradeoff.choose.stakeholder import stakeholder_of

    sc, _, rows = triage

    class Header:
        participant = "dr-kim"
        scenario = sc
        scenario_sha256 = "0" * 64
        measurement = None

    engine = Engine(sc, spec(sc, strategy="joint", budget=25), seed=0, candidates=rows)
    oracle = SimulatedOracle.for_scenario(sc, (0.3, 0.5, 0.1, 0.1))
    for _ in range(4):
        q = engine.next_query()
        assert q is not None
        engine.answer(oracle.choose(q))
    person = stakeholder_of(Header(), engine, "dr-kim.jsonl")
    assert not person.complete and person.answers == 4
    assert person.posterior is not None


@pytest.mark.slow
def test_truths_far_from_the_prior_are_picked_within_the_margin_and_not_overconfidently(
    triage: tuple[Any, Any, np.ndarray],
) -> None:
    """Truths where one aspect dominates (each aspect in turn, swing weight ≥ 0.7) with
    exact answers and slips of one in ten: the pick is within the person's perceivable
    margin of the best for at least 46 of 48, and at most 3 of the stops stated at ≥ 0.95
    are wrong. Measured here: 48 of 48 within the margin, none of 48 confident stops wrong.
    benchmarks/results/decision-families.md, over 300 people per family, measured 96.3% to
    100% within the margin (the lowest: latency dominant, slips) and 0% to 5.5% wrong among
    the confident stops: the bounds (95.8% and 6.3% of 48) leave room for 48 people's
    sampling (at 3% wrong, a binomial 95% interval over 48 reaches 3 of 48)."""
    sc, _, rows = triage
    spans = np.asarray(Engine(sc).space.spans)
    rng = np.random.default_rng(2026)
    within = confident = wrong = people = 0
    for aspect in range(4):
        found = 0
        while found < 6:
            swing = rng.dirichlet(np.ones(4))
            if swing[aspect] < 0.7:
                continue
            found += 1
            truth = swing / spans
            truth /= truth.sum()
            for noise in (None, Noise("flip", 0.1)):
                engine = run(sc, rows, truth, 100 * aspect + found, noise)
                verdict = engine.verdict()
                assert verdict is not None
                psi = rows @ truth
                margin = float(perceivable_margin(truth[None, :], engine.space.spans)[0])
                ok = psi.max() - psi[verdict.pick] <= margin
                right = verdict.pick == int(np.argmax(psi)) or (verdict.practically_tied and ok)
                people += 1
                within += ok
                if verdict.stated >= 0.95:
                    confident += 1
                    wrong += not right
    assert people == 48
    assert within >= 46, (within, people)
    assert wrong <= 3, (wrong, confident)


class _FirstLatencyAnswerReversed:
    """Answers exactly as ``truth`` would, but for the first question whose options read
    differently on latency (statistic 2): that answer is reversed."""

    def __init__(self, sc: Any, truth: Any) -> None:
        self.sc, self.exact, self.reversed = sc, SimulatedOracle.for_scenario(sc, truth), False

    def choose(self, q: Any) -> Choice:
        c = self.exact.choose(q)
        if card_lines(self.sc, q.left, q.right)[2].differs and not self.reversed:
            self.reversed = True
            return {Choice.LEFT: Choice.RIGHT, Choice.RIGHT: Choice.LEFT}.get(c, c)
        return c


def run_reversed(sc: Any, rows: np.ndarray, seed: int, budget: int) -> Engine:
    engine = Engine(sc, spec(sc, strategy="joint", budget=budget), seed=seed, candidates=rows)
    oracle = _FirstLatencyAnswerReversed(sc, LATENCY_MOST)
    while (q := engine.next_query()) is not None:
        engine.answer(oracle.choose(q))
    return engine


def test_a_deciding_aspect_answered_once_and_reversed_does_not_settle_the_pick(
    triage: tuple[Any, Any, np.ndarray],
) -> None:
    """Latency carries most of the weight and the one answer about it is reversed: that
    used to settle a wrong pick at P(best) ≥ 0.95 after 5 answers (seeds 0, 3, 4 and 5 of
    0–5). Now the questions go on about latency until two answers settle it, and the
    pick is this person's best."""
    sc, _, rows = triage
    best = int(np.argmax(rows @ np.asarray(LATENCY_MOST)))
    engine = run_reversed(sc, rows, 0, 30)
    verdict = engine.verdict()
    assert verdict is not None
    assert engine.answered > 5
    assert verdict.pick == best or verdict.stated < 0.95 or 2 in verdict.one_answer


def test_a_pick_the_cap_leaves_on_one_answer_says_so(
    triage: tuple[Any, Any, np.ndarray],
) -> None:
    """At the question cap, a confident pick that turns on latency, which one reversed
    answer alone touched, says so where the person reads why the questions stopped."""
    from tradeoff.learn.verdict import one_answer_words
    from tradeoff.web.i18n import languages
    from tradeoff.web.pages import _why_stopped

    sc, _, rows = triage
    engine = run_reversed(sc, rows, 0, 5)
    verdict = engine.verdict()
    assert verdict is not None and engine.stop_reason() == "budget"
    assert verdict.stated >= 0.95 and 2 in verdict.one_answer
    names = [engine.result().names[j] for j in verdict.one_answer]
    said = _why_stopped(engine, languages()["en"])
    assert one_answer_words(names).startswith(f"The pick turns on {names[0]}")
    assert "fewer than two of your answers settle" in said and "latency" in said
    assert "latency" in _why_stopped(engine, languages()["de"])


#: Recorded answers of two simulated people of ``benchmarks.decision``'s cell
#: breast-cancer-triage/joint/dominant:benign/flip:0.2 (people 182 and 4; one answer in five
#: reversed): the questions the engine asked and the answers given. After them the stop
#: used to say the wrong model at P(best) ≥ 0.95: person 182's three reversed answers
#: (the 6th to 8th of 11) fell on the trade between the two classes near where the pick and this
#: person's best part, and agreed with each other; person 4 had six of seven reversed.
SLIPPED = json.loads((Path(__file__).parents[1] / "fixtures" / "slipped_benign.json").read_text())

#: Person 4 at 0.6.0: the "can't tell" model (ρ = ½) moves the noisy end of the posterior's
#: noise (lapse 0.227 → 0.221, temperature 0.00457 → 0.00427, band 0.00173 → 0.00333), and
#: without the 6th answer the wrong pick's probability falls from 0.9676 to 0.9183, 0.0493,
#: just short of HOLD_DROP (0.05; at ρ = 1 it fell from 0.9657 to 0.9153, 0.0504): no answer
#: holds the pick up and the questions end at P(best) 0.978 on the wrong model.
HOLD_DROP_EDGE = (
    "rho = 1/2: without the 6th answer the wrong pick falls 0.9676 -> 0.9183 (0.0493), "
    "just short of HOLD_DROP 0.05 (rho = 1: 0.9657 -> 0.9153, 0.0504), so nothing holds it up"
)


def _slipped(person: dict[str, Any]) -> Any:
    marks = pytest.mark.xfail(strict=True, reason=HOLD_DROP_EDGE) if person["person"] == 4 else ()
    return pytest.param(person, marks=marks, id=f"person-{person['person']}")


@pytest.mark.parametrize("person", [_slipped(p) for p in SLIPPED])
def test_agreeing_slips_near_the_deciding_trade_do_not_end_the_questions(
    triage: tuple[Any, Any, np.ndarray], person: dict[str, Any]
) -> None:
    """The check that no single answer holds the pick up weighs the answers with the
    engine's whole answer model at the noisy end of the posterior: these answers leave a
    wrong pick at P(best) ≥ 0.95 that one of them holds up, so the questions go on."""
    sc, _, rows = triage
    engine, verdict = settled_wrong(sc, rows, person)
    assert verdict.one_answer  # ... resting on an answer a slip may have reversed
    assert engine.next_query() is not None


def settled_wrong(
    sc: Any, rows: np.ndarray, person: dict[str, Any], population: Any = None
) -> tuple[Engine, Verdict]:
    """An engine given a recorded person's questions and answers, and its verdict: a pick
    settled at P(best) ≥ 0.95 that is not the person's best."""
    from tradeoff.record.records import QueryRecord

    engine = Engine(
        sc,
        spec(sc, strategy="joint", budget=30),
        seed=person["engine_seed"],
        population=population,
        candidates=rows,
    )
    for query, choice in person["answers"]:
        engine.answer_recorded(QueryRecord.model_validate(query).to_query(), choice)
    verdict = engine.verdict()
    assert verdict is not None
    assert verdict.pick != int(np.argmax(rows @ np.asarray(person["truth"])))
    assert verdict.stated >= 0.95  # settled, and wrong
    return engine, verdict


#: Recorded answers of two simulated people of ``benchmarks.decision``'s cell
#: breast-cancer-triage/joint/dominant:latency/flip:0.2, seed 0 (people 62 and 186; one
#: answer in five reversed, 6 of 24 and 3 of 15 here): the questions asked and the answers
#: given until the stop used to say a model that is not this person's best at P(best) ≥
#: 0.95, with two answers that agree on each aspect it turns on.
SLIPPED_OFTEN = json.loads(
    (Path(__file__).parents[1] / "fixtures" / "slipped_latency.json").read_text()
)


@pytest.mark.parametrize("person", SLIPPED_OFTEN, ids=lambda p: f"person-{p['person']}")
def test_two_agreeing_answers_of_a_person_who_slips_often_do_not_end_the_questions(
    triage: tuple[Any, Any, np.ndarray], person: dict[str, Any]
) -> None:
    """Two answers that agree are both reversed 1 time in 17 for a person who reverses one
    answer in five: when the posterior finds the answers reversed that often, an aspect
    the settled pick turns on needs three agreeing answers, so the questions go on, and
    what is said beside the pick names that aspect and the answers it still needs."""
    from tradeoff.ask.population import scenario_population
    from tradeoff.learn.corroboration import agreeing_needed

    sc, _, rows = triage
    engine, verdict = settled_wrong(sc, rows, person, scenario_population(sc))
    assert verdict.agreeing == 3 > agreeing_needed(0.0, 0.95)
    assert verdict.unsure and set(verdict.unsure) <= set(verdict.one_answer)
    assert engine.next_query() is not None
    names = engine.result().names
    said = verdict.rests_words(names)
    assert "fewer than 3 of your answers settle" in said
    assert all(names[j] in said for j in verdict.unsure)
