"""The elicitation engine: strategies that choose questions, and the state machine that runs them.

One API drives every face: the TUI, the browser, the CLI and the simulated oracles all call
:meth:`Engine.next_query`, :meth:`Engine.answer`, :meth:`Engine.undo` and
:meth:`Engine.result`. A strategy is a pure function of its (immutable) state, so the engine
keeps every earlier state: undo restores the exact earlier state, and replaying the same
answers reaches the same state.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any, Protocol, TypeVar

import numpy as np

from tradeoff.metric import normalise
from tradeoff.population import Population, build_population
from tradeoff.queries import Query, QuerySpace
from tradeoff.scenario import Scenario


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
    """

    strategy: str
    names: tuple[str, ...]
    weights: tuple[float, ...]
    answers: int
    complete: bool
    intervals: tuple[tuple[float, float], ...] | None = None
    error_rate_estimate: float | None = None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["names"] = list(self.names)
        data["weights"] = list(self.weights)
        if self.intervals is not None:
            data["intervals"] = [list(iv) for iv in self.intervals]
        return data


S = TypeVar("S")


class Strategy(Protocol[S]):
    """How questions are chosen. Strategies are stateless; their state is passed around."""

    @property
    def name(self) -> str:
        """The strategy's name, as used on the command line."""
        ...

    def initial(self) -> S:
        """The state before any answer."""
        ...

    def query(self, state: S) -> Query | None:
        """The next question in ``state``, or ``None`` when the strategy has stopped."""
        ...

    def update(self, state: S, query: Query, choice: Choice) -> S:
        """The state after ``choice`` was given to ``query`` (which came from ``state``)."""
        ...

    def result(self, state: S) -> ElicitationResult:
        """The current estimate."""
        ...

    def expected_total(self, state: S) -> int:
        """How many questions the whole elicitation is expected to take."""
        ...


def weights_from_ratios(ms: list[float] | tuple[float, ...]) -> tuple[float, ...]:
    """Algorithm 1's estimate: â₁ = 1, â_i = (1 − m_i)/m_i, then normalised.

    ``m_i`` is the hypothesis weight on class 1 when it is traded against statistic i, so
    the ratio a_i/a₁ = (1 − m_i)/m_i.

    >>> weights_from_ratios([0.5, 0.25])
    (0.2, 0.2, 0.6)
    """
    raw = [1.0] + [(1.0 - m) / m for m in ms]
    return tuple(float(x) for x in normalise(raw))


# --------------------------------------------------------------------------------------
# Strategy `paper`: Algorithm 1 of paper 004, exactly.
# --------------------------------------------------------------------------------------


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
class PaperStrategy:
    """Algorithm 1 of paper 004 (§4.3), run one question at a time.

    For every weight i ≥ 2 it bisects m ∈ [0, 1], the hypothesis weight on class 1 against
    statistic i. Each halving evaluates five points a, c, d, e, b = a, (3a+b)/4, (a+b)/2,
    (a+3b)/4, b and asks four comparisons Γ(h_a, h_c), Γ(h_c, h_d), Γ(h_d, h_e), Γ(h_e, h_b),
    where Γ(h, h') = 1[ψ(h) > ψ(h')] ("can't tell" counts as 0). Then: if q_ac or q_cd,
    b = d; else if q_de, (a, b) = (c, e); else a = d. It stops when b − a ≤ ε and estimates
    â_i = (1 − mid)/mid with mid = (a + b)/2; the result is normalised.
    """

    space: QuerySpace
    epsilon: float = 0.001
    budget: int | None = None
    name: str = field(default="paper", init=False)

    def initial(self) -> PaperState:
        return PaperState()

    def _points(self, state: PaperState) -> tuple[float, float, float, float, float]:
        a, b = state.low, state.high
        return a, (3 * a + b) / 4, (a + b) / 2, (a + 3 * b) / 4, b

    def query(self, state: PaperState) -> Query | None:
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
        return ElicitationResult(
            strategy=self.name,
            names=self.space.names,
            weights=weights_from_ratios(self._current_mids(state)),
            answers=state.answered,
            complete=self.query(state) is None,
        )

    def halvings(self) -> int:
        """Halvings per weight until b − a ≤ ε."""
        return max(1, math.ceil(math.log2(1.0 / self.epsilon) - 1e-12))

    def expected_total(self, state: PaperState) -> int:
        total = 4 * self.halvings() * (self.space.n_weights - 1)
        return total if self.budget is None else min(total, self.budget)


# --------------------------------------------------------------------------------------
# The engine
# --------------------------------------------------------------------------------------


class EngineFinished(RuntimeError):
    """Raised when an answer is given but the strategy asks no more questions."""


def make_strategy(
    name: str,
    space: QuerySpace,
    *,
    epsilon: float,
    budget: int | None,
    error_rate: float,
    seed: int,
) -> Strategy[Any]:
    """Build a strategy by name (``paper`` for now; others register in STRATEGY_FACTORIES)."""
    factory = STRATEGY_FACTORIES.get(name)
    if factory is None:
        known = ", ".join(sorted(STRATEGY_FACTORIES))
        raise ValueError(f"unknown strategy {name!r}; known strategies: {known}")
    return factory(space, epsilon, budget, error_rate, seed)


class _Factory(Protocol):
    def __call__(
        self, space: QuerySpace, epsilon: float, budget: int | None, error_rate: float, seed: int
    ) -> Strategy[Any]: ...


def _paper(
    space: QuerySpace, epsilon: float, budget: int | None, error_rate: float, seed: int
) -> Strategy[Any]:
    return PaperStrategy(space, epsilon, budget)


STRATEGY_FACTORIES: dict[str, _Factory] = {"paper": _paper}


class Engine:
    """The elicitation state machine that every face drives.

    Parameters
    ----------
    scenario
        The validated scenario.
    strategy
        Strategy name; defaults to the scenario's ``[elicitation] strategy``.
    budget
        Maximum number of questions; defaults to the scenario's.
    epsilon
        Target precision of each weight ratio's bisection; defaults to the scenario's.
    error_rate
        Assumed probability of a wrong answer (used by noise-aware strategies).
    seed
        Seed for strategies that randomise anything.
    population
        A prebuilt population (otherwise built, and cached, from the scenario).

    Examples
    --------
    >>> from tradeoff.scenario import load_scenario
    >>> from tradeoff.oracles import SimulatedOracle
    >>> sc = load_scenario("scenarios/paper-k2-reward-cost.toml").scenario
    >>> engine = Engine(sc, strategy="paper")
    >>> oracle = SimulatedOracle.for_scenario(sc, [0.10, 0.05, 0.05, 0.80])
    >>> while (q := engine.next_query()) is not None:
    ...     _ = engine.answer(oracle.choose(q))
    >>> [round(w, 2) for w in engine.result().weights], engine.answered
    ([0.1, 0.05, 0.05, 0.8], 120)
    """

    def __init__(
        self,
        scenario: Scenario,
        *,
        strategy: str | None = None,
        budget: int | None = None,
        epsilon: float | None = None,
        error_rate: float | None = None,
        seed: int = 0,
        population: Population | None = None,
    ) -> None:
        settings = scenario.elicitation
        pop = population or build_population(
            scenario.population, tuple(c.name for c in scenario.classes)
        )
        self.scenario = scenario
        self.space = QuerySpace(scenario, pop)
        self.seed = seed
        self.strategy_name = strategy or settings.strategy
        self.budget = budget if budget is not None else settings.budget
        self.epsilon = epsilon if epsilon is not None else settings.epsilon
        self.error_rate = error_rate if error_rate is not None else settings.error_rate
        self._strategy = make_strategy(
            self.strategy_name,
            self.space,
            epsilon=self.epsilon,
            budget=self.budget,
            error_rate=self.error_rate,
            seed=seed,
        )
        self._states: list[Any] = [self._strategy.initial()]
        self._history: list[tuple[Query, Choice]] = []
        self._pending: Query | None = None
        self._pending_valid = False

    @property
    def state(self) -> Any:
        """The strategy's current (immutable) state."""
        return self._states[-1]

    @property
    def answered(self) -> int:
        """Number of answers currently counted (undone answers are not)."""
        return len(self._history)

    @property
    def history(self) -> tuple[tuple[Query, Choice], ...]:
        """Every counted question with its answer, oldest first."""
        return tuple(self._history)

    @property
    def done(self) -> bool:
        return self.next_query() is None

    def next_query(self) -> Query | None:
        """The question to show now (the same one until it is answered), or ``None``."""
        if not self._pending_valid:
            self._pending = self._strategy.query(self.state)
            self._pending_valid = True
        return self._pending

    def answer(self, choice: Choice | str) -> Query:
        """Record the answer to the current question; returns that question."""
        choice = Choice(choice)
        query = self.next_query()
        if query is None:
            raise EngineFinished("the elicitation is finished; there is no question to answer")
        self._states.append(self._strategy.update(self.state, query, choice))
        self._history.append((query, choice))
        self._pending_valid = False
        return query

    def undo(self) -> Query | None:
        """Take back the last answer and restore the exact earlier state.

        Returns the question that is shown again, or ``None`` if there was nothing to undo.
        """
        if not self._history:
            return None
        self._states.pop()
        query, _ = self._history.pop()
        self._pending, self._pending_valid = query, True
        return query

    def result(self) -> ElicitationResult:
        """What has been learned so far (normalised weights, and uncertainty if known)."""
        return self._strategy.result(self.state)

    def expected_total(self) -> int:
        """Expected number of questions for the whole elicitation."""
        return self._strategy.expected_total(self.state)

    def expected_remaining(self) -> int:
        """Expected number of questions still to come (0 when finished)."""
        if self.done:
            return 0
        return max(1, self.expected_total() - self.answered)


def truth_from_dirichlet(n: int, rng: np.random.Generator) -> tuple[float, ...]:
    """True weights drawn from a flat Dirichlet (uniform on the simplex)."""
    return tuple(float(x) for x in rng.dirichlet(np.ones(n)))
