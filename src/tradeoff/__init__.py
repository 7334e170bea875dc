"""tradeoff: learn what a person values in a classifier, then pick the model that fits.

The package's public names are imported lazily so that ``import tradeoff`` stays cheap and
never imports the terminal UI.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.3.0"

_LAZY = {
    "Engine": "tradeoff.elicitation",
    "Choice": "tradeoff.elicitation",
    "ElicitationResult": "tradeoff.elicitation",
    "load_scenario": "tradeoff.scenario",
    "Scenario": "tradeoff.scenario",
    "InputError": "tradeoff.errors",
    "LinearMetric": "tradeoff.metric",
    "SimulatedOracle": "tradeoff.oracles",
    "Noise": "tradeoff.oracles",
    "simulate": "tradeoff.simulate",
}

__all__ = [
    "Choice",
    "ElicitationResult",
    "Engine",
    "InputError",
    "LinearMetric",
    "Noise",
    "Scenario",
    "SimulatedOracle",
    "__version__",
    "load_scenario",
    "simulate",
]

if TYPE_CHECKING:
    from tradeoff.elicitation import Choice, ElicitationResult, Engine
    from tradeoff.errors import InputError
    from tradeoff.metric import LinearMetric
    from tradeoff.oracles import Noise, SimulatedOracle
    from tradeoff.scenario import Scenario, load_scenario
    from tradeoff.simulate import simulate


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'tradeoff' has no attribute {name!r}")
