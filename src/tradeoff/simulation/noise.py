"""Noise models of simulated people, as a registry (:data:`NOISE_MODELS`).

Each model is one class: its name and parameter as ``--noise`` spells them, a phrase for
the help text, the check of its parameter, the "can't tell" band it adds, whether the person
reads the options as shown, and how the exact answer becomes the person's. The command
line's help and every error listing the kinds are generated from the registry.
:class:`tradeoff.simulation.oracles.SimulatedOracle` applies them. Kept free of the elicitation
engine so that the command line can build its help without importing it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    import numpy as np


class NoiseModel:
    """How a simulated person departs from the exact answer: one subclass per kind, each
    registered in :data:`NOISE_MODELS` under its ``name``, which ``--noise`` and
    :meth:`Noise.parse` read (``name`` or ``name:VALUE``) and the help text lists.

    Subclasses say what their parameter means (``parameter``, ``summary``), check it
    (:meth:`check`), how wide a "can't tell" band they add (:meth:`band`), whether the person
    reads the options as shown (``reads_screen``) and how the exact answer becomes theirs
    (:meth:`decide`, the only place that draws from the person's generator). Adding a
    model is one subclass and one entry in :data:`NOISE_MODELS`.
    """

    name: ClassVar[str]
    #: The parameter's letter in the help text (``P`` in ``flip:P``), or None for none.
    parameter: ClassVar[str | None] = None
    #: What the model does, for the help text.
    summary: ClassVar[str]
    reads_screen: ClassVar[bool] = False

    @classmethod
    def check(cls, value: float) -> None:
        """Refuse a parameter outside the model's domain (``ValueError``)."""

    @classmethod
    def band(cls, value: float) -> float:
        """The "can't tell" band on |ψ_left − ψ_right| this model adds."""
        return 0.0

    @classmethod
    def decide(cls, left: bool, diff: float, value: float, rng: np.random.Generator) -> bool:
        """Whether the person picks the left option, given whether the exact answer is left
        and ψ_left − ψ_right."""
        return left

    @classmethod
    def spelling(cls) -> str:
        """How ``--noise`` names it: ``flip:P``, ``display``."""
        return cls.name if cls.parameter is None else f"{cls.name}:{cls.parameter}"


class Flip(NoiseModel):
    name = "flip"
    parameter = "P"
    summary = "one answer in 1/P reversed"

    @classmethod
    def check(cls, value: float) -> None:
        if not 0 <= value <= 1:
            raise ValueError(f"flip probability must lie in [0, 1], got {value}")

    @classmethod
    def decide(cls, left: bool, diff: float, value: float, rng: np.random.Generator) -> bool:
        return (not left) if rng.random() < value else left


class Logistic(NoiseModel):
    name = "logistic"
    parameter = "T"
    summary = "P(left) = σ((ψ_left − ψ_right)/T)"

    @classmethod
    def check(cls, value: float) -> None:
        if not value > 0:
            raise ValueError(f"logistic temperature must be positive, got {value}")

    @classmethod
    def decide(cls, left: bool, diff: float, value: float, rng: np.random.Generator) -> bool:
        z = diff / value
        p_left = 1.0 / (1.0 + math.exp(-z)) if z > -700 else 0.0
        return bool(rng.random() < p_left)


class Indifference(NoiseModel):
    name = "indifference"
    parameter = "TAU"
    summary = "can't tell within TAU"

    @classmethod
    def check(cls, value: float) -> None:
        if not value >= 0:
            raise ValueError(f"the indifference band must be non-negative, got {value}")

    @classmethod
    def band(cls, value: float) -> float:
        return value


class Display(NoiseModel):
    name = "display"
    summary = "reads the rounded numbers on the screen"
    reads_screen = True


#: Every noise model by name, in the order the help text lists them.
NOISE_MODELS: dict[str, type[NoiseModel]] = {
    m.name: m for m in (Flip, Logistic, Indifference, Display)
}
NOISE_KINDS = tuple(NOISE_MODELS)
#: ``exact, flip:P, logistic:T, indifference:TAU or display``, from the registry.
NOISE_HELP = "exact, " + ", ".join(m.spelling() for m in NOISE_MODELS.values())
NOISE_HELP = " or ".join(NOISE_HELP.rsplit(", ", 1))


#: The ``--noise`` help text, one phrase per registered model (a constant, so building the
#: command line's parser runs nothing of the simulation).
NOISE_OPTION_HELP = "how the simulated person answers: exact, " + " or ".join(
    ", ".join(f"{m.spelling()} ({m.summary})" for m in NOISE_MODELS.values()).rsplit(", ", 1)
)


@dataclass(frozen=True)
class Noise:
    """A noise model and its parameter: ``kind`` names a model of :data:`NOISE_MODELS`
    (``"flip"`` with P, ``"logistic"`` with T, ``"indifference"`` with τ, ``"display"``)."""

    kind: str
    value: float = 0.0

    def __post_init__(self) -> None:
        if self.kind not in NOISE_MODELS:
            raise ValueError(f"unknown noise kind {self.kind!r}; use {NOISE_HELP}")
        self.model.check(self.value)

    @property
    def model(self) -> type[NoiseModel]:
        """The registered model of this kind."""
        return NOISE_MODELS[self.kind]

    @classmethod
    def parse(cls, text: str) -> Noise | None:
        """Parse ``"exact"``, ``"flip:0.1"``, ``"logistic:0.01"``, ``"indifference:0.002"``
        or ``"display"`` (any registered model: ``NAME`` or ``NAME:VALUE``).

        >>> Noise.parse("flip:0.1")
        Noise(kind='flip', value=0.1)
        >>> Noise.parse("display")
        Noise(kind='display', value=0.0)
        """
        text = text.strip()
        if text in ("", "exact", "none"):
            return None
        model = NOISE_MODELS.get(text)
        if model is not None and model.parameter is None:
            return cls(text)
        kind, sep, value = text.partition(":")
        if not sep:
            raise ValueError(f"noise must be one of {NOISE_HELP}, got {text!r}")
        try:
            number = float(value)
        except ValueError:
            raise ValueError(f"noise parameter must be a number, got {value!r}") from None
        return cls(kind.strip(), number)

    def describe(self) -> str:
        """What the noise does, in a phrase: ``flip:0.1 (one answer in 1/P reversed)``."""
        return f"{self} ({self.model.summary})"

    def __str__(self) -> str:
        return self.kind if self.model.parameter is None else f"{self.kind}:{self.value:g}"
