"""What the two posterior strategies share: their settings, when they stop, the cached
next question, their results.

``probabilistic`` keeps one posterior per weight ratio (:mod:`~tradeoff.learn.probabilistic`),
``joint`` one over the whole weight vector (:mod:`~tradeoff.learn.joint`); both budget their
questions the same way, aim them at the pick when candidate models are given, show the
options as the screen rounds them, stop for the same reasons, choose each state's question
once and report intervals with their estimate (:class:`PosteriorStrategy`); both count
shown pairs (:func:`shows`) and repeated questions answered the same way
(:func:`repeats`, :func:`same_answer`).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import ClassVar, Protocol, TypeVar

import numpy as np

from tradeoff.arrays import FloatArray, IntArray
from tradeoff.ask.queries import Query, QuerySpace, close_values
from tradeoff.ask.scenario import ElicitationSpec
from tradeoff.ask.shown import ShownKey
from tradeoff.learn.base import ElicitationResult, S, Strategy, point_result
from tradeoff.pareto import nondominated
from tradeoff.stable import settled

#: Questions a session asks when no budget is given, per ratio (per weight after the first).
QUESTIONS_PER_RATIO = 12
#: The most times one pair of options is shown in a session (a repeat counts).
MAX_SHOWS = 2
#: No question is asked within this distance (in logit m: a factor 1.05 in the weight ratio)
#: of an exchange rate a person answered "can't tell" on the same two statistics: to them it
#: is the same question in other numbers (839 against 961 after 840 against 960). Measured
#: with ``probabilistic`` on the default scenario with a person who can't tell trades within
#: 0.002 of each other (60 truths): this gap, 38 questions and median L1 0.0056 at 40; half
#: the indifference band (0.175), 26 questions and 0.0104; someone answering "can't tell"
#: every time stops after 23 questions (26 without the gap, most of them a few per 1,000
#: from one already answered).
UNSURE_GAP = 0.05
#: With ``precision = "natural"``, the share of the prior that is flat over natural-unit
#: weights (the rest is flat over swing weights). Measured with ``probabilistic`` on exact
#: answers at 40 questions: 0 leaves a truth drawn over natural weights at L1 0.0023 (a
#: ratio unsettled), 1 (natural only) triples the median error of truths drawn over swing
#: weights on paper-k3-two-costs-reward (0.0037 → 0.0108); 0.2 gives at most 0.0015 on the
#: first (benchmarks/results/first_weight.md) and 0.0032 on the second, 0.0046 (was 0.0033)
#: on paper-k3-cost-two-rewards (benchmarks/results/trace.md).
NATURAL_PRIOR_SHARE = 0.2


class ShownRecord(Protocol):
    """An answer that remembers the two options as the screen showed them."""

    @property
    def shown(self) -> ShownKey:
        """The two options as shown (:func:`~tradeoff.ask.shown.question_key`)."""
        ...


class RepeatRecord(Protocol):
    """An answer that may repeat an earlier question."""

    @property
    def repeat_of(self) -> int | None:
        """The index of the answer whose question this one repeats, if any."""
        ...


R = TypeVar("R", bound=RepeatRecord)


def repeats(records: Sequence[R], agree: Callable[[R, R], bool]) -> tuple[int, int]:
    """(repeated questions answered the same way both times, repeated questions), two
    answers the same way when ``agree`` says so."""
    same = total = 0
    for rec in records:
        if rec.repeat_of is None:
            continue
        total += 1
        same += agree(rec, records[rec.repeat_of])
    return same, total


class AnswerRecord(Protocol):
    """An answer as a difference of two options' statistics and which one was preferred."""

    @property
    def diff(self) -> tuple[float, ...]:
        """The left option's statistics minus the right one's, as shown."""
        ...

    @property
    def outcome(self) -> int:
        """0 (left), 1 (right) or 2 (can't tell)."""
        ...


def same_answer(a: AnswerRecord, b: AnswerRecord) -> bool:
    """Whether two answers to one question as shown (a question and its repeat, the sides
    perhaps swapped) say the same: the same option preferred, or "can't tell" both times.
    The statistics are compared as the replay compares questions
    (:func:`~tradeoff.ask.queries.close_values`), never bit for bit: the same two options as
    shown can differ in the last bits of a float when they are computed anew.

    >>> from tradeoff.learn.joint_state import JointRecord
    >>> shown = (("a",), ("b",))
    >>> first = JointRecord((0.6154793999985732, -0.3), 0, "trade", shown)
    >>> again = JointRecord((-0.615479399998573, 0.3), 1, "trade", shown, repeat_of=0)
    >>> same_answer(first, again), same_answer(first, replace(again, outcome=0))
    (True, False)
    >>> same_answer(replace(first, outcome=2), replace(again, outcome=2))
    True
    """
    if (a.outcome == 2) != (b.outcome == 2):
        return False
    return close_values(_preference(a), _preference(b))


def _preference(record: AnswerRecord) -> tuple[float, ...]:
    """An answer whatever side each option was shown on: the preferred option's
    statistics minus the other's (zeros for "can't tell")."""
    sign = (1.0, -1.0, 0.0)[record.outcome]
    return tuple(sign * x + 0.0 for x in record.diff)


def shows(records: Iterable[ShownRecord]) -> dict[ShownKey, int]:
    """How many times each pair of options has been shown."""
    out: dict[ShownKey, int] = {}
    for rec in records:
        out[rec.shown] = out.get(rec.shown, 0) + 1
    return out


def non_dominated(rows: FloatArray) -> IntArray:
    """Indices of the rows no other row dominates (higher is better in every column; of
    equal rows, the first; :func:`tradeoff.pareto.nondominated`, its rule): only they can be
    best for a positive linear metric.

    >>> non_dominated(np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.5], [1.0, 0.0]])).tolist()
    [0, 1]
    """
    if len(rows) == 0:
        return np.zeros(0, dtype=np.intp)
    keep = nondominated(rows, maximise=True, duplicates="first")
    return np.flatnonzero(keep).astype(np.intp)


@dataclass(frozen=True)
class PosteriorStrategy(Strategy[S]):
    """A strategy that keeps a posterior: its settings, its stopping and its question cache.

    A subclass says how it chooses a question (:meth:`_choose`), how sure it is of the pick
    (:meth:`decision`) and of every weight (:meth:`intervals`).
    """

    space: QuerySpace
    spec: ElicitationSpec = field(default_factory=ElicitationSpec)
    seed: int = 0
    #: The candidate models' statistics in the metric's terms (one row each,
    #: :func:`tradeoff.choose.pool_metric.metric_vectors`), when questions aim at the decision.
    candidates: FloatArray | None = field(default=None, compare=False, repr=False)
    _questions: dict[S, Query | None] = field(
        default_factory=dict, init=False, compare=False, repr=False
    )

    #: Whether, aiming at the pick, the questions also stop once every weight is precise.
    precise_while_deciding: ClassVar[bool] = False

    @property
    def aims_at_decision(self) -> bool:
        """Whether questions and stopping aim at the pick (candidates were given and
        ``stop`` is not ``weights``)."""
        return self.candidates is not None and self.spec.stop != "weights"

    @property
    def shows_rounded(self) -> bool:
        """Whether questions are about the options as shown (``[elicitation] rounding``)."""
        return self.spec.rounding == "shown"

    @property
    def budget(self) -> int:
        """The question budget (the spec's, else ``QUESTIONS_PER_RATIO`` per ratio)."""
        if self.spec.budget is not None:
            return self.spec.budget
        return QUESTIONS_PER_RATIO * (self.space.n_weights - 1)

    @property
    def first_decision(self) -> int:
        """How many answers come before the pick may be called settled."""
        return 0

    @abstractmethod
    def decision(self, state: S) -> tuple[float, float] | None:
        """(P(best) of the Bayes pick, its expected regret relative to the metric's mean
        spread over the candidates) under the posterior, or ``None`` without candidates."""

    @abstractmethod
    def intervals(self, state: S) -> tuple[tuple[float, float], ...]:
        """90% credible interval of every normalised weight."""

    @abstractmethod
    def _choose(self, state: S) -> Query | None:
        """The best question in ``state``, or ``None`` when none is left that a person
        could tell apart."""

    def stop_reason(self, state: S) -> str | None:
        """Why the questions stop now (``None`` while they go on): "budget", "decided",
        "precise" (every interval narrower than ``target_width``) or "exhausted" (nothing
        left that a person could tell apart)."""
        reason = self._stop_before_choosing(state)
        if reason is None and self.next_question(state) is None:
            return "exhausted"
        return reason

    def _stop_before_choosing(self, state: S) -> str | None:
        if state.answered >= self.budget:
            return "budget"
        if self.aims_at_decision:
            if state.answered >= self.first_decision:
                known = self.stop_decision(state)
                assert known is not None
                if self.spec.decided(*known) and self.may_stop_decided(state):
                    return "decided"
            if not self.precise_while_deciding:
                return None
        width = self.spec.target_width
        if (
            width > 0
            and state.answered > 0
            and all(settled(hi - lo) < width for lo, hi in self.intervals(state))
        ):
            return "precise"
        return None

    def stop_decision(self, state: S) -> tuple[float, float] | None:
        """What the stop compares with the confidence: :meth:`decision`, unless a subclass
        says otherwise (the ``joint`` strategy, when measurement noise no answer can
        resolve keeps the stated P(best) below it)."""
        return self.decision(state)

    def may_stop_decided(self, state: S) -> bool:
        """Whether a settled pick may end the questions now (a strategy may first ask
        about what no answer has touched)."""
        return True

    def next_question(self, state: S) -> Query | None:
        """The next question (cached per state), or ``None`` at the budget, once the pick is
        settled or the weights precise, or when no question is left that a person could
        tell apart."""
        if state not in self._questions:
            if len(self._questions) > 256:
                self._questions.clear()
            self._questions[state] = (
                None if self._stop_before_choosing(state) is not None else self._choose(state)
            )
        return self._questions[state]

    def expected_total(self, state: S) -> int:
        return self.budget

    def _result(
        self,
        state: S,
        weights: tuple[float, ...],
        intervals: tuple[tuple[float, float], ...],
        swing_intervals: tuple[tuple[float, float], ...],
        error_rate: float,
    ) -> ElicitationResult:
        """The result of the posterior's estimate ``weights``, with the 90% intervals of
        the weights and of the swing weights and the estimated chance of a wrong answer."""
        complete = self.next_question(state) is None
        return replace(
            point_result(self.name, self.space, weights, state.answered, complete),
            intervals=intervals,
            error_rate_estimate=error_rate,
            swing_intervals=swing_intervals,
        )
