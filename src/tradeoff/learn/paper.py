"""Strategy `paper`: Algorithm 1 of paper 004, run one question at a time."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from tradeoff.ask.queries import Query, QuerySpace
from tradeoff.ask.scenario import ElicitationSpec
from tradeoff.learn.base import (
    Choice,
    ElicitationResult,
    Strategy,
    point_result,
    weights_from_ratios,
)


@dataclass(frozen=True)
class PaperState:
    """Where Algorithm 1 is: which weight, which interval, which of the four comparisons."""

    target: int = 1
    low: float = 0.0
    high: float = 1.0
    pending: tuple[bool, ...] = ()
    mids: tuple[float, ...] = ()
    answered: int = 0


@dataclass(frozen=True)
class PaperStrategy(Strategy[PaperState]):
    """Algorithm 1 of paper 004 (§4.3), run one question at a time.

    For every weight i ≥ 2 it bisects m ∈ [0, 1], the hypothesis weight on class 1 against
    statistic i. Each halving evaluates five points a, c, d, e, b = a, (3a+b)/4, (a+b)/2,
    (a+3b)/4, b and asks four comparisons Γ(h_a, h_c), Γ(h_c, h_d), Γ(h_d, h_e), Γ(h_e, h_b),
    where Γ(h, h') = 1[ψ(h) > ψ(h')] ("can't tell" counts as 0). Then: if q_ac or q_cd,
    b = d; else if q_de, (a, b) = (c, e); else a = d. It stops when b − a ≤ ε and estimates
    â_i = (1 − mid)/mid with mid = (a + b)/2; the result is normalised.
    """

    space: QuerySpace
    spec: ElicitationSpec = field(default_factory=ElicitationSpec)
    seed: int = 0
    name: str = field(default="paper", init=False)
    #: Algorithm 1 learns from four questions in a fixed order, so only its own.
    learns_from_any_question: bool = field(default=False, init=False)

    @property
    def epsilon(self) -> float:
        return self.spec.epsilon

    @property
    def budget(self) -> int | None:
        return self.spec.budget

    def initial(self) -> PaperState:
        return PaperState()

    def _points(self, state: PaperState) -> tuple[float, float, float, float, float]:
        a, b = state.low, state.high
        return a, (3 * a + b) / 4, (a + b) / 2, (a + 3 * b) / 4, b

    def next_question(self, state: PaperState) -> Query | None:
        if state.target >= self.space.n_weights:
            return None
        if self.budget is not None and state.answered >= self.budget:
            return None
        pts = self._points(state)
        step = len(state.pending)
        return self.space.query(0, state.target, pts[step], pts[step + 1])

    def update(self, state: PaperState, query: Query, choice: Choice) -> PaperState:
        pending = (*state.pending, choice is Choice.LEFT)
        answered = state.answered + 1
        if len(pending) < 4:
            return PaperState(state.target, state.low, state.high, pending, state.mids, answered)
        a, c, d, e, b = self._points(state)
        q_ac, q_cd, q_de, _ = pending
        if q_ac or q_cd:
            low, high = a, d
        elif q_de:
            low, high = c, e
        else:
            low, high = d, b
        if high - low <= self.epsilon:
            mids = (*state.mids, (low + high) / 2)
            return PaperState(state.target + 1, 0.0, 1.0, (), mids, answered)
        return PaperState(state.target, low, high, (), state.mids, answered)

    def _current_mids(self, state: PaperState) -> list[float]:
        mids = list(state.mids)
        if state.target < self.space.n_weights:
            mids.append((state.low + state.high) / 2)
        mids += [0.5] * (self.space.n_weights - 1 - len(mids))
        return mids

    def result(self, state: PaperState) -> ElicitationResult:
        weights = weights_from_ratios(self._current_mids(state))
        return point_result(
            self.name, self.space, weights, state.answered, self.next_question(state) is None
        )

    def halvings(self) -> int:
        """Halvings per weight until b − a ≤ ε."""
        return halvings(self.epsilon)

    def expected_total(self, state: PaperState) -> int:
        return planned_questions(self.space.n_weights, self.spec)

    def weight_draws(self, state: PaperState) -> None:
        """A point estimate only: no posterior to draw from."""
        return None

    def consistency(self, state: PaperState) -> None:
        """Algorithm 1 repeats no question."""
        return None


def halvings(epsilon: float) -> int:
    """Algorithm 1's halvings per weight until b − a ≤ ε."""
    return max(1, math.ceil(math.log2(1.0 / epsilon) - 1e-12))


def planned_questions(n_weights: int, spec: ElicitationSpec) -> int:
    """Algorithm 1's question count: 4 per halving per weight ratio (at most the budget)."""
    total = 4 * halvings(spec.epsilon) * (n_weights - 1)
    return total if spec.budget is None else min(total, spec.budget)
