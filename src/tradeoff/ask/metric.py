"""The linear metric over class accuracies, rewards and costs (paper 004 §2).

ψ(d, r, c) = ⟨aᵈ, d⟩ + ⟨aʳ, r⟩ + ⟨aᶜ, c⟩, where d_i = P(Y = i, h = i) are the diagonal
confusion entries, rewards r enter as they are and costs enter negated (the paper's
c ∈ [−B, 0]), so that with positive weights a higher ψ is always better. Weights are
ordered classes first, then attributes, as declared (docs/architecture.md), and are compared after
normalising to ‖a‖₁ = 1.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tradeoff.arrays import FloatArray
from tradeoff.ask.queries import ClassifierProfile
from tradeoff.ask.scenario import Scenario


def normalise(weights: Sequence[float] | FloatArray) -> FloatArray:
    """Scale non-negative weights to unit L1 norm.

    >>> normalise([1, 1, 2]).tolist()
    [0.25, 0.25, 0.5]
    """
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim != 1 or w.size == 0:
        raise ValueError("weights must be a non-empty vector")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("weights must be finite and non-negative")
    total = w.sum()
    if total <= 0:
        raise ValueError("at least one weight must be positive")
    return np.asarray(w / total, dtype=np.float64)


def l1_error(estimate: Sequence[float] | FloatArray, truth: Sequence[float] | FloatArray) -> float:
    """‖â − a*‖₁ with both normalised to unit L1 norm (the error of paper 004 Fig. 4)."""
    return float(np.abs(normalise(estimate) - normalise(truth)).sum())


@dataclass(frozen=True)
class LinearMetric:
    """A linear metric with positive weights in the scenario's weight order.

    Parameters
    ----------
    weights
        One non-negative weight per class, then per attribute (not necessarily normalised).
    n_classes
        How many of the weights belong to class accuracies.
    signs
        +1 for each reward attribute, −1 for each cost attribute.
    """

    weights: tuple[float, ...]
    n_classes: int
    signs: tuple[float, ...]

    def __post_init__(self) -> None:
        if len(self.weights) != self.n_classes + len(self.signs):
            raise ValueError(
                f"expected {self.n_classes + len(self.signs)} weights, got {len(self.weights)}"
            )
        if any(w < 0 or not np.isfinite(w) for w in self.weights):
            raise ValueError("weights must be finite and non-negative")

    @classmethod
    def for_scenario(cls, scenario: Scenario, weights: Sequence[float]) -> LinearMetric:
        """The metric with ``weights`` over ``scenario``'s classes and attributes."""
        signs = tuple(1.0 if a.kind == "reward" else -1.0 for a in scenario.attributes)
        return cls(tuple(float(w) for w in weights), len(scenario.classes), signs)

    @property
    def normalised(self) -> FloatArray:
        return normalise(self.weights)

    def vector(self, profile: ClassifierProfile) -> FloatArray:
        """The statistics ψ is linear in: d, then each attribute with its sign."""
        return np.concatenate(
            (
                np.asarray(profile.accuracies, dtype=np.float64),
                np.asarray(self.signs) * np.asarray(profile.attributes, dtype=np.float64),
            )
        )

    def value(self, profile: ClassifierProfile) -> float:
        """ψ of one classifier profile (paper 004 §2)."""
        return float(np.dot(self.weights, self.vector(profile)))
