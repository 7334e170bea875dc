"""The minority guarded: a person unlike everyone the population prior was pooled from is
not made confidently wrong by it (the engine's own prior keeps its share, so their
answers move the particles to where they are)."""

from __future__ import annotations

import numpy as np
import pytest

from tradeoff.ask.population import scenario_population
from tradeoff.ask.queries import QuerySpace
from tradeoff.ask.scenario import load_scenario
from tradeoff.choose.candidates import scenario_pool
from tradeoff.choose.pool_metric import metric_vectors
from tradeoff.learn import Engine
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
    rows = metric_vectors(
        sc, scenario_pool(sc, ROOT / "scenarios"), population.priors.tolist()
    )
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
