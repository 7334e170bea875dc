"""How sure a person's weights are, where a rule or a scorer is built from them.

A session stops when its *pick* is settled, which is not the same as settled *weights*:
after two answers the pick may be 96 % sure while the threshold of the rule tuned to the
person (``pool from-sklearn --for``, :class:`~tradeoff.pool.rule.PersonalRule`) or the
scorer's metric (:func:`~tradeoff.choose.scorer.person_scorer`) still rests on the prior.
For a two-class scenario the weights' certainty is read on the threshold probability they
imply (:func:`~tradeoff.curves.person_threshold`: the posterior mean's, with its credible
interval over the draws the questions stopped on). It is *settled* when that interval
spans at most a factor of :data:`SETTLED_SPREAD` in the odds pₜ/(1 − pₜ) (within a factor
of two either side of its middle); otherwise the sentence says how many answers it rests
on, the interval, and to answer more questions.

More than two classes have no threshold: then nothing is said (``None``). The certainty of
a session file's person is :func:`tradeoff.choose.scorer.session_certainty`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from tradeoff.ask.scenario import Scenario
from tradeoff.choose.stakeholder import Stakeholder, expected_weights
from tradeoff.curves import Threshold, person_threshold

__all__ = [
    "SETTLED_SPREAD",
    "UnsettledWeights",
    "WeightsCertainty",
    "weights_certainty",
]

#: The largest ratio of the odds at the threshold interval's ends that counts as settled.
SETTLED_SPREAD = 4.0


class UnsettledWeights(UserWarning):
    """A scorer built from weights the answers did not settle (its message says how sure
    they are)."""


def _pct(p: float) -> str:
    """A threshold to two significant digits (2.9%, 0.40%, 45%): the rule's threshold
    can sit below 1%, where whole percents say nothing."""
    return f"{100 * p:#.2g}".rstrip(".") + "%"


def _odds(p: float) -> float:
    return math.inf if p >= 1.0 else p / (1.0 - p)


@dataclass(frozen=True)
class WeightsCertainty:
    """How sure a person's weights are: the ``answers`` they rest on and the ``threshold``
    they imply (with its interval); ``settled`` when the interval's odds span at most
    :data:`SETTLED_SPREAD`."""

    answers: int
    threshold: Threshold

    @property
    def spread(self) -> float:
        """The ratio of the odds at the interval's ends (1 for a point estimate)."""
        low, high = self.threshold.low, self.threshold.high
        if low is None or high is None:
            return 1.0
        if low <= 0.0:
            return math.inf
        return _odds(high) / _odds(low)

    @property
    def settled(self) -> bool:
        """Whether the threshold's interval is narrow enough to build on."""
        return self.spread <= SETTLED_SPREAD

    def words(self) -> str:
        """The sentence: what the threshold rests on, its interval, and, unsettled, to ask
        on.

        >>> WeightsCertainty(2, Threshold(0.0287, 0.004, 0.45)).words()
        ... # doctest: +NORMALIZE_WHITESPACE
        'The threshold of the rule tuned to these weights (2.9%) rests on 2 answers: 90%
        between 0.40% and 45%; answer more questions to settle it.'
        >>> WeightsCertainty(22, Threshold(0.0103, 0.008, 0.013)).words()
        'The threshold of the rule tuned to these weights (1.0%) rests on 22 answers: 90% \
between 0.80% and 1.3%.'
        """
        t = self.threshold
        said = (
            f"The threshold of the rule tuned to these weights ({_pct(t.value)}) "
            f"rests on {self.answers} answer{'' if self.answers == 1 else 's'}"
        )
        if t.low is not None and t.high is not None:
            said += f": {t.level:.0%} between {_pct(t.low)} and {_pct(t.high)}"
        return said + ("." if self.settled else "; answer more questions to settle it.")

    def to_dict(self) -> dict[str, Any]:
        """As JSON: the answers, the threshold (value, interval, level) and whether it is
        settled, with the sentence."""
        return {
            "answers": self.answers,
            **self.threshold.to_dict(),
            "settled": self.settled,
            "words": self.words(),
        }


def weights_certainty(scenario: Scenario, person: Stakeholder) -> WeightsCertainty | None:
    """How sure ``person``'s weights are (the module docstring); ``None`` for more than two
    classes or class weights that imply no threshold."""
    if person.posterior is not None:
        draws, weights = person.posterior
        threshold = person_threshold(scenario, expected_weights(person), draws, weights)
    else:
        threshold = person_threshold(scenario, expected_weights(person), person.draws)
    if threshold is None:
        return None
    return WeightsCertainty(person.answers, threshold)
