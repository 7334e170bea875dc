"""Learning from choices people made elsewhere, with the engine's own posterior.

A finished choice experiment (a survey, a study run in another tool, the train trips of
``data/train-choices``) recorded, per person, pairs of options and which one they picked.
Each pair is a question of the kind ``recorded``
(:func:`~tradeoff.ask.queries.recorded_query`) that strategy ``joint`` takes like any
other answer: one likelihood on Δ = ψ(A) − ψ(B) (:mod:`~tradeoff.learn.likelihood`), the
same particles, the same noise grid. There is no second model.

:func:`learn_choices` gives the engine after a person's recorded choices;
:func:`predictive` the posterior predictive of new pairs; :func:`predict_person` both in
one call, for a benchmark that holds choices out.

The posterior predictive of a pair averages the answer model over the particles (their
weights as the posterior has them, not weighed up toward noisy answers as P(best) is):
P(A), P(B) and P(can't tell). A forced choice (the train trips had no "can't tell") is
read as P(A | A or B) = P(A) / (P(A) + P(B)).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tradeoff.arrays import FloatArray
from tradeoff.ask.metric import LinearMetric
from tradeoff.ask.population import Population
from tradeoff.ask.queries import ClassifierProfile, Query, recorded_query
from tradeoff.ask.scenario import ElicitationSpec, Scenario
from tradeoff.learn.base import Choice
from tradeoff.learn.engine import Engine
from tradeoff.learn.likelihood import outcome_probabilities


def option(
    scenario: Scenario, values: Sequence[float], priors: Sequence[float]
) -> ClassifierProfile:
    """An option given by its aspects in the scenario's order (each class's recall, then
    each attribute in its natural unit), as the engine holds it (accuracy d_i = ζ_i·recall).

    >>> from tradeoff.ask.scenario import load_scenario
    >>> sc = load_scenario("scenarios/train-trips.toml").scenario
    >>> option(sc, [24.0, 150.0, 0.0, 1.0], [])
    ClassifierProfile(accuracies=(), recalls=(), attributes=(24.0, 150.0, 0.0, 1.0))
    """
    k = scenario.n_classes
    if len(values) != len(scenario.weight_names):
        raise ValueError(f"expected {len(scenario.weight_names)} values, got {len(values)}")
    recalls = tuple(float(v) for v in values[:k])
    accuracies = tuple(z * r for z, r in zip(priors, recalls, strict=True))
    return ClassifierProfile(accuracies, recalls, tuple(float(v) for v in values[k:]))


def pairs(
    scenario: Scenario,
    a_rows: Sequence[Sequence[float]],
    b_rows: Sequence[Sequence[float]],
    priors: Sequence[float] = (),
) -> list[Query]:
    """Each row pair (option A on the left, B on the right) as a recorded question."""
    return [
        recorded_query(option(scenario, a, priors), option(scenario, b, priors))
        for a, b in zip(a_rows, b_rows, strict=True)
    ]


def choice_spec(scenario: Scenario) -> ElicitationSpec:
    """The scenario's elicitation settings with strategy ``joint``, the one that learns
    from any question."""
    return scenario.elicitation.override(strategy="joint")


def learn_choices(
    scenario: Scenario,
    queries: Sequence[Query],
    choices: Sequence[Choice | str],
    *,
    seed: int = 0,
    population: Population | None = None,
    candidates: FloatArray | None = None,
) -> Engine:
    """The engine (strategy ``joint``) after the recorded ``choices`` to ``queries``.

    Examples
    --------
    >>> from tradeoff.ask.scenario import load_scenario
    >>> sc = load_scenario("scenarios/train-trips.toml").scenario
    >>> qs = pairs(sc, [[20.0, 150, 0, 1]] * 6, [[40.0, 120, 0, 1]] * 6)
    >>> engine = learn_choices(sc, qs, ["left"] * 6)  # ƒ20 saved is worth 30 minutes
    >>> p = predictive(engine, pairs(sc, [[20.0, 150, 0, 1]], [[40.0, 120, 0, 1]]))
    >>> bool(p[0, 0] > 0.8)
    True
    """
    engine = Engine(
        scenario, choice_spec(scenario), seed=seed, population=population, candidates=candidates
    )
    for query, choice in zip(queries, choices, strict=True):
        engine.answer_recorded(query, choice)
    return engine


def predictive(engine: Engine, queries: Sequence[Query]) -> FloatArray:
    """P(A), P(B), P(can't tell) (columns) of each query (rows) under the engine's
    posterior: the answer model averaged over the particles with their weights."""
    particles = engine.particles()
    if particles is None:
        raise ValueError("a posterior predictive needs strategy 'joint'")
    metric = LinearMetric.for_scenario(engine.scenario, [1.0] * len(engine.scenario.weight_names))
    if not queries:
        return np.zeros((0, 3))
    diffs = np.array([metric.vector(q.left) - metric.vector(q.right) for q in queries])
    delta = diffs @ particles.natural.T  # (queries, particles)
    lapse, temperature, band = particles.grid.values(particles.noise)
    probs = outcome_probabilities(delta, lapse[None, :], temperature[None, :], band[None, :])
    out: FloatArray = np.einsum("qpk,p->qk", probs, particles.weights)
    return out


def forced(probabilities: FloatArray) -> FloatArray:
    """P(A | A or B) from rows of P(A), P(B), P(can't tell).

    >>> forced(np.array([[0.6, 0.2, 0.2]])).tolist()
    [0.7499999999999999]
    """
    out: FloatArray = probabilities[:, 0] / (probabilities[:, 0] + probabilities[:, 1])
    return out


def predict_person(
    scenario: Scenario,
    train: tuple[Sequence[Sequence[float]], Sequence[Sequence[float]], Sequence[Choice | str]],
    holdout: tuple[Sequence[Sequence[float]], Sequence[Sequence[float]]],
    *,
    seed: int = 0,
    priors: Sequence[float] = (),
) -> FloatArray:
    """One person's posterior predictive: P(A), P(B), P(can't tell) of each held-out pair
    after their recorded choices (``train``: A rows, B rows, choices; ``holdout``: A rows,
    B rows; every row holds the scenario's aspects in its order).

    >>> from tradeoff.ask.scenario import load_scenario
    >>> sc = load_scenario("scenarios/train-trips.toml").scenario
    >>> cheap, fast = [20.0, 150, 0, 1], [40.0, 120, 0, 1]
    >>> p = predict_person(sc, ([cheap] * 5, [fast] * 5, ["right"] * 5), ([cheap], [fast]))
    >>> bool(p[0, 1] > 0.8)
    True
    """
    a, b, choices = train
    engine = learn_choices(scenario, pairs(scenario, a, b, priors), choices, seed=seed)
    return predictive(engine, pairs(scenario, holdout[0], holdout[1], priors))
