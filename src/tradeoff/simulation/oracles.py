"""Simulated stakeholders that answer the engine's questions from a known true metric.

Every oracle, simulated or human (the TUI implements the same :class:`Oracle` protocol),
turns a :class:`~tradeoff.ask.queries.Query` into a :class:`~tradeoff.learn.Choice`.
The simulated ones compare ψ of both sides under a true linear metric (paper 004 §2):

* exact: the side with the higher ψ; "can't tell" only on an exact tie;
* flip noise ``flip:P``: the exact answer, reversed with probability P;
* logistic ``logistic:T``: P(prefer left) = σ((ψ_left − ψ_right) / T);
* an indifference band τ (``indifference:TAU``, or combined with either noise): "can't
  tell" whenever |ψ_left − ψ_right| < τ;
* a person who reads the screen ``display``: ψ of the options *as shown* (recalls per
  1,000, attributes rounded as their format shows them,
  :func:`~tradeoff.ask.shown.shown_profile`), "can't tell" when those are equal.

ψ differences are in the metric's natural units (weights normalised to ‖a‖₁ = 1), so T and τ
are too. All randomness comes from a seeded generator.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from tradeoff.ask.metric import LinearMetric, normalise
from tradeoff.ask.queries import Query
from tradeoff.ask.scenario import Scenario
from tradeoff.ask.shown import shown_profile
from tradeoff.learn import Choice
from tradeoff.simulation.noise import (  # the registry, re-exported where simulated people live
    NOISE_HELP,
    NOISE_KINDS,
    NOISE_MODELS,
    Noise,
    NoiseModel,
)

__all__ = [
    "NOISE_HELP",
    "NOISE_KINDS",
    "NOISE_MODELS",
    "Noise",
    "NoiseModel",
    "Oracle",
    "SimulatedOracle",
]


class Oracle(Protocol):
    """Anything that answers a query: a simulated stakeholder or a person at a screen."""

    def choose(self, query: Query) -> Choice:
        """Which option is preferred: left, right or indifferent."""
        ...


@dataclass
class SimulatedOracle:
    """A simulated stakeholder with true metric ``metric``.

    Parameters
    ----------
    metric
        The true linear metric (weights are normalised before use).
    noise
        ``None`` for an exact oracle, or a :class:`Noise`.
    indifference
        Width τ of the indifference band on |ψ_left − ψ_right|.
    seed
        Seed of the oracle's own random generator.
    scenario
        The scenario, which the ``display`` person needs to read the options as shown.
    """

    metric: LinearMetric
    noise: Noise | None = None
    indifference: float = 0.0
    seed: int = 0
    scenario: Scenario | None = None
    _rng: np.random.Generator = field(init=False, repr=False)
    _weights: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.indifference < 0:
            raise ValueError("the indifference band must be non-negative")
        if self.noise is not None and self.noise.model.reads_screen and self.scenario is None:
            raise ValueError("the display person needs the scenario (SimulatedOracle.for_scenario)")
        self._rng = np.random.default_rng(self.seed)
        self._weights = normalise(self.metric.weights)

    @classmethod
    def for_scenario(
        cls,
        scenario: Scenario,
        truth: Sequence[float],
        *,
        noise: Noise | None = None,
        indifference: float = 0.0,
        seed: int = 0,
    ) -> SimulatedOracle:
        """An oracle whose true weights are ``truth`` in the scenario's weight order."""
        return cls(LinearMetric.for_scenario(scenario, truth), noise, indifference, seed, scenario)

    def difference(self, query: Query) -> float:
        """ψ(left) − ψ(right) under the normalised true weights."""
        v = self.metric.vector(query.left) - self.metric.vector(query.right)
        return float(np.dot(self._weights, v))

    def shown_difference(self, query: Query) -> float:
        """ψ(left) − ψ(right) of the options as the screen shows them."""
        assert self.scenario is not None
        left = shown_profile(self.scenario, query.left)
        right = shown_profile(self.scenario, query.right)
        v = self.metric.vector(left) - self.metric.vector(right)
        return float(np.dot(self._weights, v))

    def choose(self, query: Query) -> Choice:
        model = None if self.noise is None else self.noise.model
        value = 0.0 if self.noise is None else self.noise.value
        band = self.indifference + (model.band(value) if model else 0.0)
        reads_screen = model is not None and model.reads_screen
        diff = self.shown_difference(query) if reads_screen else self.difference(query)
        if abs(diff) < band or abs(diff) < 1e-15:
            return Choice.INDIFFERENT
        exact = Choice.LEFT if diff > 0 else Choice.RIGHT
        if model is None:
            return exact
        left = model.decide(exact is Choice.LEFT, diff, value, self._rng)
        return Choice.LEFT if left else Choice.RIGHT
