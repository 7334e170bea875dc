"""A population prior learnt from other people's recorded choices (a first version).

Every person's engine starts from the same prior over weights and answer noise. When
other people have answered the same kind of question, their posteriors say where people's
weights and noise lie: :func:`population_prior` pools draws from each of their
posteriors (an empirical-Bayes prior: the mixture of the others' posteriors, a kernel
estimate of the population that is wider than the population by each person's own
uncertainty) and mixes in the engine's own prior at a share ``base_share``, so that a
person unlike everyone before keeps prior mass where they are and is not pulled into the
majority. How large that share is, the others' choices say (:func:`fitted_base_share`: the
share of people the engine's own prior explains better than the others' posteriors do,
its posterior mean under a flat prior, each person left out of their own mixture).

A person's posterior under that prior is the prior's draws weighted by the likelihood of
their choices under the engine's answer model (:func:`~tradeoff.learn.likelihood.
outcome_probabilities`, the same ε, T, δ grid as every engine): :func:`pooled_predictive`
gives its posterior predictive for new pairs and the effective number of draws that carry
it. No second model: only the prior differs from :func:`~tradeoff.learn.choices.
learn_choices`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from tradeoff.arrays import FloatArray, IntArray
from tradeoff.ask.metric import LinearMetric
from tradeoff.ask.queries import Query
from tradeoff.ask.scenario import Scenario
from tradeoff.learn.base import Choice
from tradeoff.learn.choices import choice_spec
from tradeoff.learn.engine import Engine, Particles
from tradeoff.learn.likelihood import OUTCOME, NoiseGrid, outcome_probabilities

#: Draws taken from each person's posterior.
PER_PERSON = 100
#: Share of the population prior that is the engine's own prior, when the people's
#: choices are not given to estimate it (:func:`fitted_base_share`).
BASE_SHARE = 0.1
#: Points of the flat prior on the base share (midpoints of equal steps of (0, 1)).
SHARE_POINTS = 400


@dataclass(frozen=True, eq=False)
class PopulationPrior:
    """Weighted draws of (natural-unit weights, noise cell): row i of ``natural`` with cell
    ``noise[i]`` and prior mass ``weights[i]``; ``owners[i]`` names the person whose
    posterior it was drawn from (``""``: the engine's own prior)."""

    natural: FloatArray
    noise: IntArray
    weights: FloatArray
    owners: tuple[str, ...]
    grid: NoiseGrid
    base_share: float

    def without(self, person: str) -> PopulationPrior:
        """The prior learnt from everyone but ``person`` (their own draws left out, the
        engine's prior keeping its share), for predictions about that person.

        >>> import numpy as np
        >>> from tradeoff.learn.likelihood import NOISE_PRIOR
        >>> grid = NOISE_PRIOR
        >>> p = PopulationPrior(np.eye(3), np.zeros(3, dtype=np.intp),
        ...                     np.array([0.1, 0.45, 0.45]), ("", "a", "b"), grid, 0.1)
        >>> p.without("a").weights.tolist(), p.without("a").owners
        ([0.1, 0.9], ('', 'b'))
        """
        keep = np.array([o != person for o in self.owners])
        owners = tuple(o for o in self.owners if o != person)
        weights = self.weights[keep] / self.weights[keep].sum()
        kept = PopulationPrior(
            self.natural[keep], self.noise[keep], weights, owners, self.grid, self.base_share
        )
        return kept.with_base_share(self.base_share)

    def with_base_share(self, share: float) -> PopulationPrior:
        """The same draws with the engine's own prior at ``share`` of the mass (each
        person's draws keep their equal weights among the rest).

        >>> from tradeoff.learn.likelihood import NOISE_PRIOR
        >>> p = PopulationPrior(np.eye(3), np.zeros(3, dtype=np.intp),
        ...                     np.array([0.1, 0.45, 0.45]), ("", "a", "b"), NOISE_PRIOR, 0.1)
        >>> p.with_base_share(0.5).weights.tolist()
        [0.5, 0.25, 0.25]
        """
        base = np.array([o == "" for o in self.owners])
        weights = self.weights.copy()
        if base.any() and (~base).any():
            weights[base] *= share / weights[base].sum()
            weights[~base] *= (1 - share) / weights[~base].sum()
        return PopulationPrior(
            self.natural, self.noise, weights / weights.sum(), self.owners, self.grid, share
        )


def posterior_draws(particles: Particles, size: int, seed: int = 0) -> tuple[FloatArray, IntArray]:
    """``size`` equally weighted draws (natural weights, noise cells) of a posterior
    (systematic resampling, seeded)."""
    rng = np.random.default_rng(seed)
    cumulative = np.cumsum(particles.weights)
    cumulative /= cumulative[-1]
    points = (rng.random() + np.arange(size)) / size
    index = np.minimum(np.searchsorted(cumulative, points), len(cumulative) - 1)
    return particles.natural[index], particles.noise[index]


def population_prior(
    scenario: Scenario,
    people: Mapping[str, Particles],
    *,
    per_person: int = PER_PERSON,
    base_share: float = BASE_SHARE,
    seed: int = 0,
) -> PopulationPrior:
    """The population prior from ``people``'s posteriors (their engines' particles, by
    person): ``per_person`` draws from each, equally weighted, with the engine's own
    prior particles at ``base_share`` of the mass."""
    if not 0.0 < base_share < 1.0:
        raise ValueError("base_share must lie strictly between 0 and 1")
    base = Engine(scenario, choice_spec(scenario), seed=seed).particles()
    if base is None:  # pragma: no cover - choice_spec always gives strategy joint
        raise ValueError("a population prior needs strategy 'joint'")
    natural = [base.natural]
    noise = [base.noise]
    share = base_share if people else 1.0
    weights = [base.weights / base.weights.sum() * share]
    owners = [""] * len(base.weights)
    for k, (person, particles) in enumerate(sorted(people.items())):
        a, cells = posterior_draws(particles, per_person, seed + 1 + k)
        natural.append(a)
        noise.append(cells)
        weights.append(np.full(per_person, (1 - base_share) / (per_person * len(people))))
        owners += [person] * per_person
    return PopulationPrior(
        np.concatenate(natural),
        np.concatenate(noise).astype(np.intp),
        np.concatenate(weights),
        tuple(owners),
        base.grid,
        base_share,
    )


def _log_evidence(
    scenario: Scenario,
    prior: PopulationPrior,
    queries: Sequence[Query],
    choices: Sequence[Choice | str],
) -> FloatArray:
    """log P(``choices`` to ``queries`` | draw), for every draw of ``prior``."""
    if not queries:
        return np.zeros(len(prior.weights))
    lapse, temp, band = prior.grid.values(prior.noise)
    delta = differences(scenario, queries) @ prior.natural.T
    probs = outcome_probabilities(delta, lapse[None, :], temp[None, :], band[None, :])
    picked = np.array([OUTCOME[Choice(c)] for c in choices])
    chosen = np.take_along_axis(probs, picked[:, None, None], axis=2)[:, :, 0]
    out: FloatArray = np.log(np.maximum(chosen, 1e-300)).sum(axis=0)
    return out


def _log_mean(log_x: FloatArray, weights: FloatArray) -> float:
    """log Σ wᵢ xᵢ / Σ wᵢ from log xᵢ."""
    top = float(np.max(log_x))
    return top + float(np.log(weights @ np.exp(log_x - top) / weights.sum()))


def fitted_base_share(
    scenario: Scenario,
    prior: PopulationPrior,
    evidence: Mapping[str, tuple[Sequence[Query], Sequence[Choice | str]]],
    *,
    points: int = SHARE_POINTS,
) -> float:
    """The share of ``prior`` to give the engine's own prior, from the choices of the
    people it was pooled from (``evidence``: each person's queries and choices, by the
    name their draws carry).

    Each person's choices have a marginal likelihood under the engine's own prior (A) and
    under everyone else's posterior draws (B, their own left out). With a share b of people
    like no one else, the population's likelihood is Πᵢ (b·Aᵢ + (1 − b)·Bᵢ): the share's
    posterior mean under a flat prior (on ``points`` midpoints of (0, 1)) is returned.
    Fewer than two people with draws: :data:`BASE_SHARE`.

    Examples
    --------
    Two people who always took the cheaper trip, and one who always took the faster: each
    is explained better by someone else's posterior than by the engine's prior, except the
    fast one, unlike both others.

    >>> from tradeoff.ask.scenario import load_scenario
    >>> from tradeoff.learn.choices import learn_choices, pairs
    >>> sc = load_scenario("scenarios/train-trips.toml").scenario
    >>> q = pairs(sc, [[20.0, 150, 0, 1]] * 6, [[40.0, 120, 0, 1]] * 6)
    >>> said = {"a": ["left"] * 6, "b": ["left"] * 6, "c": ["right"] * 6}
    >>> people = {k: learn_choices(sc, q, v).particles() for k, v in said.items()}
    >>> prior = population_prior(sc, people)
    >>> share = fitted_base_share(sc, prior, {k: (q, v) for k, v in said.items()})
    >>> 0.0 < share < 1.0
    True
    """
    owners = np.array(prior.owners)
    base = owners == ""
    names = [n for n in sorted(evidence) if (owners == n).any()]
    if len(names) < 2 or not base.any():
        return BASE_SHARE
    log_a, log_b = [], []
    for name in names:
        lik = _log_evidence(scenario, prior, *evidence[name])
        others = ~base & (owners != name)
        log_a.append(_log_mean(lik[base], prior.weights[base]))
        log_b.append(_log_mean(lik[others], prior.weights[others]))
    b = (np.arange(points) + 0.5) / points
    log_like = np.logaddexp(
        np.log(b)[:, None] + np.array(log_a)[None, :],
        np.log1p(-b)[:, None] + np.array(log_b)[None, :],
    ).sum(axis=1)
    w = np.exp(log_like - log_like.max())
    return float(w @ b / w.sum())


def differences(scenario: Scenario, queries: Sequence[Query]) -> FloatArray:
    """Rows v(left) − v(right) of the statistics the metric is linear in."""
    metric = LinearMetric.for_scenario(scenario, [1.0] * len(scenario.weight_names))
    if not queries:
        return np.zeros((0, len(scenario.weight_names)))
    return np.array([metric.vector(q.left) - metric.vector(q.right) for q in queries])


def pooled_predictive(
    scenario: Scenario,
    prior: PopulationPrior,
    queries: Sequence[Query],
    choices: Sequence[Choice | str],
    holdout: Sequence[Query],
) -> tuple[FloatArray, float]:
    """P(A), P(B), P(can't tell) (columns) of each ``holdout`` query after the recorded
    ``choices`` to ``queries``, starting from ``prior``; and the effective number of the
    prior's draws that carry the posterior (1/Σw²).

    Examples
    --------
    >>> from tradeoff.ask.scenario import load_scenario
    >>> from tradeoff.learn.choices import learn_choices, pairs
    >>> sc = load_scenario("scenarios/train-trips.toml").scenario
    >>> cheap, fast = [20.0, 150, 0, 1], [40.0, 120, 0, 1]
    >>> thrifty = learn_choices(sc, pairs(sc, [cheap] * 6, [fast] * 6), ["left"] * 6)
    >>> prior = population_prior(sc, {"p1": thrifty.particles()})
    >>> p, ess = pooled_predictive(sc, prior, [], [], pairs(sc, [cheap], [fast]))
    >>> bool(p[0, 0] > 0.7), ess > 100
    (True, True)
    """
    particles_noise = prior.grid.values(prior.noise)
    log_w = np.log(prior.weights) + _log_evidence(scenario, prior, queries, choices)
    w = np.exp(log_w - log_w.max())
    w /= w.sum()
    ess = float(1.0 / np.sum(w**2))
    if not holdout:
        return np.zeros((0, 3)), ess
    delta = differences(scenario, holdout) @ prior.natural.T
    probs = outcome_probabilities(delta, *(v[None, :] for v in particles_noise))
    out: FloatArray = np.einsum("qpk,p->qk", probs, w)
    return out, ess
