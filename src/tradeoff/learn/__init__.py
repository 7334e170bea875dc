"""The elicitation engine and its strategies (paper 004's Algorithm 1, and ours).

* :mod:`~tradeoff.learn.base`: answers (:class:`Choice`), results, the strategy protocol;
* :mod:`~tradeoff.learn.paper`: Algorithm 1 exactly (``paper``);
* :mod:`~tradeoff.learn.bisection`: one chord question per halving (``bisection``);
* :mod:`~tradeoff.learn.posterior`: what the two posterior strategies share (settings,
  stopping, the cached next question);
* :mod:`~tradeoff.learn.probabilistic`: noise-tolerant probabilistic bisection with
  credible intervals (``probabilistic``);
* :mod:`~tradeoff.learn.joint`: one posterior over the whole weight vector, questions
  aimed at the pick (``joint``), its particles (:mod:`~tradeoff.learn.particles`) and its
  likelihood of an answer (:mod:`~tradeoff.learn.likelihood`);
* :mod:`~tradeoff.learn.engine`: the :class:`Engine` every face drives;
* :mod:`~tradeoff.learn.shares`: the shares of the aspects the answers informed.
"""

from tradeoff.learn.base import (
    Choice,
    ElicitationResult,
    Strategy,
    weights_from_ratios,
)
from tradeoff.learn.engine import (
    STRATEGY_FACTORIES,
    Consistency,
    Engine,
    EngineFinished,
    Outcome,
    answer_pattern,
    consistency_of,
    expected_questions,
    make_strategy,
    outcome_of,
    truth_from_dirichlet,
)

__all__ = [
    "STRATEGY_FACTORIES",
    "Choice",
    "Consistency",
    "ElicitationResult",
    "Engine",
    "EngineFinished",
    "Outcome",
    "Strategy",
    "answer_pattern",
    "consistency_of",
    "expected_questions",
    "make_strategy",
    "outcome_of",
    "truth_from_dirichlet",
    "weights_from_ratios",
]
