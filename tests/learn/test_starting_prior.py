"""The minority guarded: a person unlike everyone the population prior was pooled from is
not made confidently wrong by it (the engine's own prior keeps its share, so their
answers move the particles to where they are)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tradeoff.ask.population import scenario_population
from tradeoff.ask.queries import QuerySpace
from tradeoff.ask.scenario import load_scenario
from tradeoff.choose.candidates import scenario_pool
from tradeoff.choose.pool_metric import metric_vectors
from tradeoff.learn import Engine
from tradeoff.learn.corroboration import AGREEING_ANSWERS, agreeing
from tradeoff.learn.joint import JointStrategy
from tradeoff.learn.starting_prior import MAX_COMPONENTS, StartingPrior
from tradeoff.learn.study_prior import STUDY_BASE_SHARE
from tradeoff.learn.swing_prior import alr_columns
from tradeoff.simulation.oracles import Noise, SimulatedOracle

from ..conftest import ROOT

pytestmark = pytest.mark.stats

MAJORITY = (0.70, 0.10, 0.10, 0.10)
MINORITY = (0.15, 0.55, 0.15, 0.15)


def test_a_person_unlike_the_majority_is_not_confidently_wrong() -> None:
    loaded = load_scenario(ROOT / "scenarios" / "breast-cancer-triage.toml")
    sc = loaded.scenario
    population = scenario_population(sc)
    rows = metric_vectors(sc, scenario_pool(sc, ROOT / "scenarios"), population.priors.tolist())
    spans = np.asarray(QuerySpace(sc, population).spans)
    rng = np.random.default_rng(0)
    prior = StartingPrior.of(rng.dirichlet(60 * np.asarray(MAJORITY), 400), STUDY_BASE_SHARE)
    spec = sc.elicitation.override(strategy="joint", budget=30)
    wrong_confident = 0
    for i in range(6):
        swing = rng.dirichlet(60 * np.asarray(MINORITY))
        truth = swing / spans
        truth /= truth.sum()
        engine = Engine(sc, spec, seed=i, population=population, candidates=rows, start=prior)
        oracle = SimulatedOracle.for_scenario(sc, truth, noise=Noise.parse("flip:0.1"), seed=i)
        while (q := engine.next_query()) is not None:
            engine.answer(oracle.choose(q))
        stated = engine.decision()
        assert stated is not None
        confident = stated[0] >= spec.decision_confidence
        if confident and engine.verdict() is not None:
            psi = rows @ truth
            pick = engine.verdict().pick  # type: ignore[union-attr]
            margin = 1e-3 * float((truth * spans).max())
            wrong_confident += int(psi.max() - psi[pick] > margin)
    assert wrong_confident == 0


def test_a_minority_in_the_pool_keeps_a_class_of_its_own_and_the_base_share() -> None:
    """The mixture does not smooth a tenth of the people into the majority: they get a
    latent class of their own at about their share; and wherever the mixture is thin the
    engine's own prior keeps its share b of the density."""
    rng = np.random.default_rng(1)
    swing = np.vstack(
        (
            rng.dirichlet(60 * np.asarray(MAJORITY), 540),
            rng.dirichlet(60 * np.asarray(MINORITY), 60),
        )
    )
    prior = StartingPrior.of(swing, STUDY_BASE_SHARE)
    assert 2 <= prior.components <= MAX_COMPONENTS
    minority = alr_columns(np.asarray(MINORITY)[:, None])[:, 0]
    near = np.abs(prior.means - minority).max(axis=1) < 0.3
    assert prior.shares[near].sum() == pytest.approx(0.1, abs=0.03)
    far = rng.dirichlet([1.0, 1.0, 1.0, 30.0], size=200).T  # unlike everyone pooled
    base = rng.normal(-3.0, 1.0, size=200)
    guarded = prior.log_density(far, base)
    assert np.all(guarded >= np.log(STUDY_BASE_SHARE) + base - 1e-9)
    assert np.all(prior.mixture_log_density(far) < np.log(STUDY_BASE_SHARE) + base)


def _setting() -> tuple[Any, Any, np.ndarray, np.ndarray, StartingPrior]:
    loaded = load_scenario(ROOT / "scenarios" / "breast-cancer-triage.toml")
    sc = loaded.scenario
    population = scenario_population(sc)
    rows = metric_vectors(sc, scenario_pool(sc, ROOT / "scenarios"), population.priors.tolist())
    spans = np.asarray(QuerySpace(sc, population).spans)
    rng = np.random.default_rng(0)
    prior = StartingPrior.of(rng.dirichlet(60 * np.asarray(MAJORITY), 400), STUDY_BASE_SHARE)
    return sc, population, rows, spans, prior


def _asked(centre: tuple[float, ...], people: int, **engine: Any) -> list[tuple[Engine, bool]]:
    """Each of ``people`` people around ``centre`` (flip 0.1) asked to the end with the
    majority's prior: (engine, whether the pick is within the margin of the best)."""
    sc, population, rows, spans, prior = _setting()
    spec = sc.elicitation.override(strategy="joint", budget=30)
    rng = np.random.default_rng(1)
    out = []
    for i in range(people):
        swing = rng.dirichlet(60 * np.asarray(centre))
        truth = swing / spans
        truth /= truth.sum()
        e = Engine(sc, spec, seed=i, population=population, candidates=rows, start=prior, **engine)
        oracle = SimulatedOracle.for_scenario(sc, truth, noise=Noise.parse("flip:0.1"), seed=i)
        while (q := e.next_query()) is not None:
            e.answer(oracle.choose(q))
        verdict = e.verdict()
        assert verdict is not None
        psi = rows @ truth
        out.append((e, psi.max() - psi[verdict.pick] <= 1e-3 * float((truth * spans).max())))
    return out


def _held_back(engine: Engine) -> int:
    """The answers after which the pick was settled, every aspect the candidates still
    possibly best differ on had been asked about and agreed with once, and the questions
    still went on (:meth:`~tradeoff.learn.joint.JointStrategy.on_one_answer`)."""
    st = engine._strategy
    assert isinstance(st, JointStrategy)
    held = 0
    for state in engine._states:
        if not st.on_one_answer(state) or st.unasked(state):
            continue
        s = st.posterior.summary(state)
        once = agreeing(state.records, s.natural, s.weights) >= 1
        held += int(not (st._live_differ(state, 0.0) & ~once).any())
    return held


def test_with_the_study_prior_a_majority_person_stops_on_one_agreeing_answer() -> None:
    """A person like the majority the prior was pooled from: once the pick is settled and
    one answer the posterior agrees with showed each aspect it turns on, nothing holds the
    questions (the prior points where that answer does); the rule before (two agreeing
    answers, whatever the prior) asks more of the same people."""
    now = _asked(MAJORITY, 4)
    assert [_held_back(e) for e, _ in now] == [0, 0, 0, 0]
    before = _asked(MAJORITY, 4, study_agreeing=AGREEING_ANSWERS)
    assert all(right for _, right in now + before)
    asked_now = [e.answered for e, _ in now]
    asked_before = [e.answered for e, _ in before]
    assert all(a <= b for a, b in zip(asked_now, asked_before, strict=True))
    assert sum(asked_now) < sum(asked_before)


def test_with_the_study_prior_a_minority_person_is_asked_again() -> None:
    """A person unlike the majority: with their one agreeing answer left out, the prior
    pulls the pick back to the majority's, so the pick rests on that answer and the
    questions go on (the one-answer check under the pooled prior), and every pick ends
    right."""
    asked = _asked(MINORITY, 4)
    assert all(right for _, right in asked)
    assert sum(_held_back(e) > 0 for e, _ in asked) >= 2
