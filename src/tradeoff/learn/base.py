"""Shared vocabulary of the elicitation engine: answers, results, the strategy protocol."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any, Protocol, TypeVar

import numpy as np
from numpy.typing import NDArray

from tradeoff.ask.metric import normalise
from tradeoff.ask.queries import Query, QuerySpace
from tradeoff.ask.scenario import ElicitationSpec, Scenario
from tradeoff.ask.shown import card_lines


class Choice(StrEnum):
    """An answer: the left option ("A"), the right option ("B"), or "can't tell"."""

    LEFT = "left"
    RIGHT = "right"
    INDIFFERENT = "indifferent"

    def swapped(self) -> Choice:
        """The same preference expressed about the query with its sides exchanged."""
        if self is Choice.LEFT:
            return Choice.RIGHT
        if self is Choice.RIGHT:
            return Choice.LEFT
        return self


@dataclass(frozen=True)
class ElicitationResult:
    """What the engine has learned so far.

    Parameters
    ----------
    strategy
        Name of the strategy.
    names
        Weight names in order (classes, then attributes).
    weights
        Normalised weights (‖a‖₁ = 1), same order as ``names``.
    answers
        Number of answers given (after undos).
    complete
        Whether the strategy has stopped (precision reached or budget used).
    intervals
        90% credible interval (low, high) per weight, when the strategy provides one.
    error_rate_estimate
        Estimated probability that an answer is wrong, when the strategy provides one.
    swing_weights
        The weights times each statistic's range in the scenario (a class accuracy d_i spans
        [0, ζ_i], an attribute its range), normalised: how much each aspect matters over its
        whole range, whatever its unit. Per-unit weights of small units (per ms, per KB)
        look like zero even when they matter; these do not.
    swing_intervals
        90% credible interval of each swing weight, when the strategy provides intervals.
    priors
        The class priors ζ of the scenario's population, which map class weights onto
        recalls (d_i = ζ_i·recall_i), so the next stage needs no population of its own.
    asked
        Per weight, whether some answered question showed two options that read
        differently on that statistic (:func:`asked_aspects`). A weight no answer informed
        is the prior's, not something the person said: faces show it as "not asked".
    """

    strategy: str
    names: tuple[str, ...]
    weights: tuple[float, ...]
    answers: int
    complete: bool
    intervals: tuple[tuple[float, float], ...] | None = None
    error_rate_estimate: float | None = None
    swing_weights: tuple[float, ...] | None = None
    swing_intervals: tuple[tuple[float, float], ...] | None = None
    priors: tuple[float, ...] | None = None
    asked: tuple[bool, ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["names"] = list(self.names)
        data["weights"] = list(self.weights)
        if self.intervals is not None:
            data["intervals"] = [list(iv) for iv in self.intervals]
        if self.swing_weights is not None:
            data["swing_weights"] = list(self.swing_weights)
        if self.swing_intervals is not None:
            data["swing_intervals"] = [list(iv) for iv in self.swing_intervals]
        if self.priors is not None:
            data["priors"] = list(self.priors)
        if self.asked is not None:
            data["asked"] = list(self.asked)
        return data

    def informed(self, index: int) -> bool:
        """Whether some answer informed weight ``index`` (``True`` when not known)."""
        return self.asked is None or self.asked[index]


def asked_aspects(scenario: Scenario, queries: Iterable[Query]) -> tuple[bool, ...]:
    """Per statistic (classes, then attributes), whether one of ``queries`` showed two
    options whose card lines for it read differently
    (:func:`~tradeoff.ask.shown.card_lines`): only then could an answer say
    anything about its weight.

    >>> from tradeoff.ask.queries import ClassifierProfile
    >>> from tradeoff.ask.scenario import load_scenario
    >>> sc = load_scenario("scenarios/breast-cancer-triage.toml").scenario
    >>> a = ClassifierProfile((0.3, 0.6), (0.8, 0.95), (20.0, 100.0))
    >>> b = ClassifierProfile((0.33, 0.57), (0.9, 0.9), (20.0, 100.0))
    >>> asked_aspects(sc, [Query(a, b, (0, 1), (1.0, 0.0))])
    (True, True, False, False)
    """
    out = [False] * (len(scenario.classes) + len(scenario.attributes))
    for query in queries:
        for j, line in enumerate(card_lines(scenario, query.left, query.right)):
            out[j] = out[j] or line.differs
    return tuple(out)


def swing_weights(weights: Sequence[float], spans: Sequence[float]) -> tuple[float, ...]:
    """Weights times spans, normalised (see :class:`ElicitationResult`).

    >>> swing_weights([0.5, 0.5], [1.0, 3.0])
    (0.25, 0.75)
    """
    raw = np.asarray(weights, dtype=np.float64) * np.asarray(spans, dtype=np.float64)
    total = float(raw.sum())
    if not total > 0:
        return tuple(1.0 / len(raw) for _ in raw)
    return tuple(float(x) for x in raw / total)


def point_result(
    name: str, space: QuerySpace, weights: tuple[float, ...], answered: int, complete: bool
) -> ElicitationResult:
    """The result of a strategy that keeps a point estimate only (no intervals)."""
    return ElicitationResult(
        strategy=name,
        names=space.names,
        weights=weights,
        answers=answered,
        complete=complete,
        swing_weights=swing_weights(weights, space.spans),
        priors=tuple(float(z) for z in space.priors),
    )


class StrategyState(Protocol):
    """What every strategy's state says: how many answers it holds."""

    @property
    def answered(self) -> int:
        """Number of answers taken into the state."""
        ...


S = TypeVar("S", bound=StrategyState)


class Strategy(Protocol[S]):
    """How questions are chosen. Strategies are stateless; their state is passed around.

    Every strategy subclasses this protocol: the methods with a body are defaults a strategy
    keeps unless it knows better (one that aims at a decision, recognises questions about
    real candidates, or tells why it stopped).
    """

    #: The elicitation settings (budget, ε, stopping, …).
    spec: ElicitationSpec

    @property
    def name(self) -> str:
        """The strategy's name, as used on the command line."""
        ...

    def initial(self) -> S:
        """The state before any answer."""
        ...

    def next_question(self, state: S) -> Query | None:
        """The next question in ``state``, or ``None`` when the strategy has stopped."""
        ...

    def update(self, state: S, query: Query, choice: Choice) -> S:
        """The state after ``choice`` was given to ``query`` (which came from ``state``)."""
        ...

    @property
    def learns_from_any_question(self) -> bool:
        """Whether :meth:`update` learns from any question this space can ask, not only the
        one :meth:`next_question` chose (then answers recorded by another version can be
        replayed)."""
        ...

    def result(self, state: S) -> ElicitationResult:
        """The current estimate."""
        ...

    def expected_total(self, state: S) -> int:
        """How many questions the whole elicitation is expected to take."""
        ...

    def weight_draws(self, state: S) -> NDArray[np.float64] | None:
        """Draws of the normalised weights from the posterior (one row per draw), or
        ``None`` for a strategy that keeps a point estimate only."""
        ...

    def consistency(self, state: S) -> tuple[int, int] | None:
        """(repeated questions answered the same way both times, repeated questions), or
        ``None`` for a strategy that does not repeat questions."""
        ...

    def is_candidate_pair(self, query: Query) -> bool:
        """Whether both options of ``query`` are candidate models as this strategy shows
        them (a recorded question of the kind "candidates"); by default no strategy asks
        about candidates."""
        return False

    def decision(self, state: S) -> tuple[float, float] | None:
        """(P(best) of the pick, its expected relative regret) when the strategy aims at a
        decision; by default ``None``."""
        return None

    def stop_reason(self, state: S) -> str | None:
        """Why the questions stopped ("budget", "decided", "precise", "exhausted"), or
        ``None`` while they go on; by default "budget" once the spec's budget is used, else
        "precise"."""
        if self.next_question(state) is not None:
            return None
        budget = self.spec.budget
        return "budget" if budget is not None and state.answered >= budget else "precise"


def weights_from_ratios(ms: list[float] | tuple[float, ...]) -> tuple[float, ...]:
    """Algorithm 1's estimate: â₁ = 1, â_i = (1 − m_i)/m_i, then normalised.

    ``m_i`` is the hypothesis weight on class 1 when it is traded against statistic i, so
    the ratio a_i/a₁ = (1 − m_i)/m_i.

    >>> weights_from_ratios([0.5, 0.25])
    (0.2, 0.2, 0.6)
    """
    clipped = [min(max(m, 1e-12), 1.0 - 1e-12) for m in ms]
    raw = [1.0] + [(1.0 - m) / m for m in clipped]
    return tuple(float(x) for x in normalise(raw))


def scale_shift(space: QuerySpace, ratio: int) -> float:
    """log(span_other / span_1): logit(m) − logit(m') for ratio ``ratio``.

    Our strategies bisect the *swing-scaled* ratio w_other·span_other / (w₁·span₁), where a
    class accuracy spans [0, ζ_i] and an attribute its range, instead of the raw ratio of
    Algorithm 1. The scaled ratio does not depend on the units (minutes or hours), its
    midpoint m' = 1/2 is the middle of the frontier (θ = 45° on the paper's ellipse), and a
    prior uniform in m' is what a flat Dirichlet over swing weights implies.
    """
    return math.log(space.spans[ratio + 1] / space.spans[0])


def logit(m: float) -> float:
    """log(m / (1 − m)), with m kept 1e-12 inside (0, 1).

    >>> round(logit(0.5), 12), round(logit(0.75), 6)
    (0.0, 1.098612)
    """
    m = min(max(m, 1e-12), 1 - 1e-12)
    return math.log(m / (1 - m))


def scaled_to_raw(space: QuerySpace, ratio: int, m_scaled: float) -> float:
    """Algorithm 1's m from the swing-scaled m' of ratio ``ratio``."""
    return _shift_m(m_scaled, scale_shift(space, ratio))


def raw_to_scaled(space: QuerySpace, ratio: int, m_raw: float) -> float:
    """The swing-scaled m' from Algorithm 1's m of ratio ``ratio``."""
    return _shift_m(m_raw, -scale_shift(space, ratio))


def _shift_m(m: float, shift: float) -> float:
    if m <= 0.0 or m >= 1.0:
        return m
    x = math.log(m / (1 - m)) + shift
    return 1.0 / (1.0 + math.exp(-x)) if x > -700 else 0.0


def weights_from_scaled(space: QuerySpace, ms_scaled: list[float]) -> tuple[float, ...]:
    """Normalised weights from swing-scaled m' per ratio (see :func:`scale_shift`)."""
    return weights_from_ratios([scaled_to_raw(space, i, m) for i, m in enumerate(ms_scaled)])
