"""The elicitation strategies' names: the one list of them (engine, files and faces use it).

A module of its own that imports nothing heavy, so that the command line builds its parser
(the ``--strategy`` choices) without loading the scenario model (pydantic) or the engine;
:mod:`tradeoff.ask.scenario` exports the same names.

>>> STRATEGY_NAMES
('paper', 'bisection', 'probabilistic', 'joint')
"""

from __future__ import annotations

from typing import Literal, get_args

StrategyName = Literal["paper", "bisection", "probabilistic", "joint"]
"""The elicitation strategies: the one list of their names (engine, files and faces use it)."""
STRATEGY_NAMES: tuple[StrategyName, ...] = get_args(StrategyName)
#: The strategies that, given candidate models, aim their questions at the pick and stop
#: once it is settled (the others ask their planned questions).
DECIDING_STRATEGIES: tuple[StrategyName, ...] = ("probabilistic", "joint")
