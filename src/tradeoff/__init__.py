"""tradeoff: learn what a person values in a classifier, then pick the model that fits.

The package's public names are imported lazily so that ``import tradeoff`` stays cheap and
never imports the terminal UI.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from tradeoff.version import __version__

_LAZY = {
    "Engine": "tradeoff.learn",
    "Choice": "tradeoff.learn",
    "ElicitationResult": "tradeoff.learn",
    "load_scenario": "tradeoff.ask.scenario",
    "Scenario": "tradeoff.ask.scenario",
    "InputError": "tradeoff.errors",
    "LinearMetric": "tradeoff.ask.metric",
    "SimulatedOracle": "tradeoff.simulation.oracles",
    "Noise": "tradeoff.simulation.oracles",
    "simulate": "tradeoff.simulation.simulate",
    "person_scorer": "tradeoff.choose.scorer",
    "group_scorer": "tradeoff.choose.scorer",
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
    "group_scorer",
    "load_scenario",
    "person_scorer",
    "simulate",
]

if TYPE_CHECKING:
    from tradeoff.ask.metric import LinearMetric
    from tradeoff.ask.scenario import Scenario, load_scenario
    from tradeoff.choose.scorer import group_scorer, person_scorer
    from tradeoff.errors import InputError
    from tradeoff.learn import Choice, ElicitationResult, Engine
    from tradeoff.simulation.oracles import Noise, SimulatedOracle
    from tradeoff.simulation.simulate import simulate


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'tradeoff' has no attribute {name!r}")
