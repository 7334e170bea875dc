"""A study's population prior from its finished sessions, for the participants after them.

:func:`study_prior` pools the finished participants' posteriors with
:func:`~tradeoff.learn.pooled.population_prior` (the one population model, also behind
``choices predict --pooled``) and fits to the pooled draws the density the adaptive engine
starts from (:class:`~tradeoff.learn.starting_prior.StartingPrior`, a mixture of a few
latent classes).

Each participant enters with what *their own answers* said: a session that itself started
from an earlier population prior has that prior divided out first (:func:`own_particles`:
its particles reweighted by p₀ / p, the engine's own prior over the population prior,
a ratio at most 1/b since p ≥ b·p₀). Without that, every refresh would pool posteriors
that already lean toward the majority, and the majority would grow surer with every
refresh on no new evidence.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from tradeoff.ask.scenario import Scenario
from tradeoff.learn.engine import Engine, Particles
from tradeoff.learn.joint import JointStrategy
from tradeoff.learn.pooled import population_prior
from tradeoff.learn.starting_prior import MAX_DRAWS, StartingPrior
from tradeoff.learn.swing_prior import alr_columns, log_sum, swing_log_prior

__all__ = ["MIN_PEOPLE", "STUDY_BASE_SHARE", "own_particles", "study_prior"]

#: Share of a study's population prior that is the engine's own prior: a person unlike
#: every earlier participant keeps a fifth of the prior mass where they are
#: (benchmarks/population_study.py measures the wrong confident stops per group with it).
STUDY_BASE_SHARE = 0.2
#: A population prior is pooled from at least this many finished sessions.
MIN_PEOPLE = 5


def own_particles(engine: Engine) -> Particles:
    """The engine's posterior (strategy ``joint``) as its own prior would have it: when it
    started from a population prior (``engine.start``), the particles reweighted by the
    ratio of the engine's own prior to that prior (both in the log-ratio coordinates the
    particles move in); otherwise its particles as they are."""
    particles = engine.particles()
    if particles is None:
        raise ValueError("a population prior pools sessions of strategy 'joint'")
    start = engine.start
    strategy = engine._strategy
    if start is None or not isinstance(strategy, JointStrategy):
        return particles
    spans = np.asarray(strategy.posterior.spans, dtype=np.float64)
    swing = particles.natural * spans
    swing = swing / swing.sum(axis=1, keepdims=True)
    cols = np.ascontiguousarray(swing.T)
    logs = log_sum(cols, axis=0)
    base = (
        swing_log_prior(cols, tuple(spans), strategy.sparse_share, strategy.natural_share, 0, logs)
        + logs
    )
    ratio = base - start.log_density(cols, base)
    finite = np.isfinite(ratio) & np.isfinite(alr_columns(cols)).all(axis=0)
    log_w = np.where(finite, np.log(np.maximum(particles.weights, 1e-300)) + ratio, -np.inf)
    w = np.exp(log_w - log_w.max())
    return Particles(particles.natural, particles.noise, w / w.sum(), particles.grid)


def study_prior(
    scenario: Scenario,
    spans: Sequence[float],
    people: Mapping[str, Particles],
    *,
    base_share: float = STUDY_BASE_SHARE,
    seed: int = 0,
) -> StartingPrior | None:
    """The population prior of ``people`` (each finished session's own posterior, by
    session name: :func:`own_particles`), or ``None`` with fewer than
    :data:`MIN_PEOPLE`. Each person gives the same number of draws (together at most
    :data:`~tradeoff.learn.starting_prior.MAX_DRAWS`, at least 2 each), as natural-unit
    weights turned to swing weights by the scenario's ``spans``."""
    if len(people) < MIN_PEOPLE:
        return None
    per_person = max(2, MAX_DRAWS // len(people))
    pooled = population_prior(
        scenario, people, per_person=per_person, base_share=base_share, seed=seed
    )
    mine = np.array([o != "" for o in pooled.owners])
    swing = pooled.natural[mine] * np.asarray(spans, dtype=np.float64)
    swing = np.maximum(swing / swing.sum(axis=1, keepdims=True), 1e-12)
    return StartingPrior.of(swing, base_share, tuple(sorted(people)))
