"""Noise models as a registry: the help text comes from the registry, and a new model needs
one class (that simulated answers are the same as before the registry, answer for answer:
test_noise_recorded.py)."""

from __future__ import annotations

import numpy as np
import pytest

from tradeoff.learn import Engine
from tradeoff.simulation.noise import NOISE_OPTION_HELP
from tradeoff.simulation.oracles import (
    NOISE_HELP,
    NOISE_MODELS,
    Noise,
    NoiseModel,
    SimulatedOracle,
)

from ..conftest import small

pytestmark = pytest.mark.core


def test_help_and_errors_list_every_registered_model() -> None:
    for name, model in NOISE_MODELS.items():
        assert model.spelling() in NOISE_HELP and model.summary in NOISE_OPTION_HELP
        assert name in NOISE_HELP
    with pytest.raises(ValueError, match="flip:P, logistic:T"):
        Noise.parse("screen")
    for text in ("flip:0.1", "logistic:0.02", "indifference:0.5", "display"):
        noise = Noise.parse(text)
        assert noise is not None and str(noise) == text and text in noise.describe()
    assert Noise.parse("exact") is None and Noise.parse(" none ") is None


def test_a_new_model_is_one_class() -> None:
    """Registering a subclass is all it takes: parse, describe and answer follow."""

    class Contrary(NoiseModel):
        name = "contrary"
        summary = "always the other side"

        @classmethod
        def decide(cls, left: bool, diff: float, value: float, rng: np.random.Generator) -> bool:
            return not left

    NOISE_MODELS["contrary"] = Contrary
    try:
        noise = Noise.parse("contrary")
        assert noise is not None and noise.describe() == "contrary (always the other side)"
        sc = small("breast-cancer-triage")
        engine = Engine(sc, sc.elicitation.override(stop="weights", budget=3), seed=1)
        q = engine.next_query()
        assert q is not None
        truth = (0.4, 0.3, 0.2, 0.1)
        exact = SimulatedOracle.for_scenario(sc, truth).choose(q)
        assert SimulatedOracle.for_scenario(sc, truth, noise=noise).choose(q) == exact.swapped()
    finally:
        del NOISE_MODELS["contrary"]
