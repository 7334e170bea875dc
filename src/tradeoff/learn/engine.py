"""The elicitation engine: strategies that choose questions, and the state machine that runs them.

One API drives every face: the TUI, the browser, the CLI and the simulated oracles all call
:meth:`Engine.next_query`, :meth:`Engine.answer`, :meth:`Engine.undo` and
:meth:`Engine.result`. A strategy is a pure function of its (immutable) state, so the engine
keeps every earlier state: undo restores the exact earlier state, and replaying the same
answers reaches the same state.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from tradeoff.ask.population import Population, scenario_population
from tradeoff.ask.queries import RECORDED, Query, QuerySpace, same_question
from tradeoff.ask.scenario import STRATEGY_NAMES, ElicitationSpec, Scenario
from tradeoff.learn.base import Choice, ElicitationResult, Strategy, asked_aspects
from tradeoff.learn.bisection import BisectionStrategy
from tradeoff.learn.corroboration import STUDY_AGREEING_ANSWERS
from tradeoff.learn.joint import JointStrategy
from tradeoff.learn.likelihood import NoiseGrid
from tradeoff.learn.noise_unit import noise_grid, scenario_noise_unit
from tradeoff.learn.paper import PaperStrategy, planned_questions
from tradeoff.learn.posterior import QUESTIONS_PER_RATIO
from tradeoff.learn.probabilistic import ProbabilisticStrategy
from tradeoff.learn.shares import Shares, asked_shares
from tradeoff.learn.starting_prior import StartingPrior
from tradeoff.learn.swing_prior import natural_weights
from tradeoff.learn.verdict import Verdict
from tradeoff.text import ENGLISH, Words


class EngineFinished(RuntimeError):
    """Raised when an answer is given but the strategy asks no more questions."""


@dataclass(frozen=True)
class Particles:
    """A ``joint`` posterior as weighted particles: natural-unit weights (rows, ‖a‖₁ = 1),
    each particle's cell of the noise grid, and the particles' weights (summing to 1)."""

    natural: NDArray[np.float64]
    noise: NDArray[np.intp]
    weights: NDArray[np.float64]
    grid: NoiseGrid


StrategyFactory = Callable[[QuerySpace, ElicitationSpec, int], Strategy[Any]]

#: Strategies by name (:data:`tradeoff.ask.scenario.STRATEGY_NAMES`, in the same order).
STRATEGY_FACTORIES: dict[str, StrategyFactory] = {
    "paper": PaperStrategy,
    "bisection": BisectionStrategy,
    "probabilistic": ProbabilisticStrategy,
    "joint": JointStrategy,
}


if tuple(STRATEGY_FACTORIES) != STRATEGY_NAMES:  # pragma: no cover - a programming error
    raise RuntimeError("STRATEGY_FACTORIES must build exactly the strategies of STRATEGY_NAMES")


def make_strategy(
    space: QuerySpace,
    spec: ElicitationSpec,
    seed: int = 0,
    candidates: NDArray[np.float64] | None = None,
    measured: NDArray[np.float64] | None = None,
    start: StartingPrior | None = None,
    likeliest: bool = True,
    study_agreeing: int = STUDY_AGREEING_ANSWERS,
    unit: float = 1.0,
) -> Strategy[Any]:
    """Build the strategy ``spec.strategy`` names (``candidates``, ``measured``, ``start``,
    ``likeliest``, ``study_agreeing``, the noise ``unit``: see :class:`Engine`)."""
    if start is not None and spec.strategy != "joint":
        raise ValueError("a study's population prior needs strategy 'joint'")
    if spec.strategy == "probabilistic":
        return ProbabilisticStrategy(space, spec, seed, candidates=candidates)
    if spec.strategy == "joint":
        return JointStrategy(
            space,
            spec,
            seed,
            candidates=candidates,
            measured=measured,
            start=start,
            likeliest=likeliest,
            study_agreeing=study_agreeing,
            noise_grid=noise_grid(unit),
        )
    return STRATEGY_FACTORIES[spec.strategy](space, spec, seed)


class Engine:
    """The elicitation state machine that every face drives.

    Parameters
    ----------
    scenario
        The validated scenario.
    spec
        The elicitation settings (strategy, budget, ε, …); default: the scenario's
        ``[elicitation]``. Overrides are made with :meth:`ElicitationSpec.override`.
    seed
        Seed for strategies that randomise anything.
    population
        A prebuilt population (otherwise built, and cached, from the scenario).
    candidates
        The candidate models' statistics in the metric's terms (one row each,
        :func:`tradeoff.choose.pool_metric.metric_vectors`): the ``probabilistic``
        strategy then aims its questions at the pick and stops once it is settled
        (``[elicitation] stop``).
    measured
        Plausible values of ``candidates`` when the pool's numbers carry a measurement
        noise (tables × candidates × statistics, one table per particle:
        :func:`tradeoff.choose.recommend.measured_vectors`): the ``joint`` strategy's stop
        then counts P(best) over the weights and the measurements together, as the
        recommendation does (other strategies read the candidates as exact).
    likeliest
        With ``measured``: the ``joint`` strategy picks the candidate of highest P(best)
        over the weights and the measurements, as the recommendation does; ``False``: the
        one of highest expected ψ at the measured numbers (sessions recorded before, whose
        header's measurement says ``pick = "expected"``).
    start
        A study's population prior the ``joint`` strategy's weights start from
        (:class:`~tradeoff.learn.starting_prior.StartingPrior`), or ``None``: its own prior.
    study_agreeing
        With ``start``: :attr:`~tradeoff.learn.joint.JointStrategy.study_agreeing`.
    noise_unit
        The unit of the answer model's T and δ (:mod:`~tradeoff.learn.noise_unit`); by
        default the scenario's own, 1 for sessions recorded before it existed.

    Examples
    --------
    >>> from tradeoff.ask.scenario import load_scenario
    >>> from tradeoff.simulation.oracles import SimulatedOracle
    >>> sc = load_scenario("scenarios/paper-k2-reward-cost.toml").scenario
    >>> engine = Engine(sc, sc.elicitation.override(strategy="paper"))
    >>> oracle = SimulatedOracle.for_scenario(sc, [0.10, 0.05, 0.05, 0.80])
    >>> while (q := engine.next_query()) is not None:
    ...     _ = engine.answer(oracle.choose(q))
    >>> [round(w, 2) for w in engine.result().weights], engine.answered
    ([0.1, 0.05, 0.05, 0.8], 120)
    """

    def __init__(
        self,
        scenario: Scenario,
        spec: ElicitationSpec | None = None,
        *,
        seed: int = 0,
        population: Population | None = None,
        candidates: NDArray[np.float64] | None = None,
        measured: NDArray[np.float64] | None = None,
        start: StartingPrior | None = None,
        likeliest: bool = True,
        study_agreeing: int = STUDY_AGREEING_ANSWERS,
        noise_unit: float | None = None,
    ) -> None:
        pop = population or scenario_population(scenario)
        self.candidates, self.measured = candidates, measured
        self.likeliest, self.study_agreeing = likeliest, study_agreeing
        self.noise_unit = scenario_noise_unit(scenario) if noise_unit is None else noise_unit
        self.start = start
        self.scenario = scenario
        self.spec = spec if spec is not None else scenario.elicitation
        self.seed = seed
        self.strategy_name = self.spec.strategy
        # Algorithm 1 keeps the paper's query classifiers; ours show realistic ones.
        self.space = QuerySpace(scenario, pop, context=self.strategy_name != "paper")
        self._strategy = self._new_strategy()
        self._states: list[Any] = [self._strategy.initial()]
        self._history: list[tuple[Query, Choice]] = []
        #: Per counted answer, which statistics some answer so far showed differing
        #: (:func:`~tradeoff.learn.base.asked_aspects`, kept as answers come and go).
        self._asked: list[tuple[bool, ...]] = [asked_aspects(scenario, ())]
        self._pending: Query | None = None
        self._pending_valid = False

    @property
    def state(self) -> Any:  # the strategy's current (immutable) state
        return self._states[-1]

    @property
    def answered(self) -> int:  # answers counted now (undone answers are not)
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
            self._pending = self._strategy.next_question(self.state)
            self._pending_valid = True
        return self._pending

    def answer(self, choice: Choice | str) -> Query:
        """Record the answer to the current question; returns that question."""
        choice = Choice(choice)
        query = self.next_query()
        if query is None:
            raise EngineFinished("the elicitation is finished; there is no question to answer")
        self._states.append(self._strategy.update(self.state, query, choice))
        self._counted(query, choice)
        return query

    @property
    def learns_from_any_question(self) -> bool:
        """Whether the strategy takes an answer to any question the scenario builds (not
        only to the ones it asks itself): a recorded session then replays as recorded."""
        return bool(self._strategy.learns_from_any_question)

    def answer_replayed(self, query: Query, choice: Choice | str, check: bool = True) -> bool:
        """Apply a recorded answer to ``query``: as the answer to this engine's own question
        when ``check`` and it asks the same one now (:func:`~tradeoff.ask.queries.same_question`),
        else as :meth:`answer_recorded` does; returns whether it went as recorded. The space's
        verdicts on the question (the one asked now? one it builds?) are read together, first;
        ``ValueError`` as :meth:`answer_recorded` raises it (a fault choosing this engine's
        own question is no fault of the record: ``RuntimeError``)."""
        try:
            expected = self.next_query() if check else None
        except ValueError as exc:
            raise RuntimeError(f"choosing the next question failed: {exc}") from exc
        if expected is not None and same_question(expected, query):
            self.answer(choice)
            return False
        space = self.space
        builds = space.describes(query) if query.kind == RECORDED else space.can_ask(query)
        self.answer_recorded(query, choice, builds)
        return True

    def answer_recorded(
        self, query: Query, choice: Choice | str, builds: bool | None = None
    ) -> None:
        """Apply an answer given earlier to ``query``, a question this engine may not ask now.

        Sessions recorded by another version of tradeoff asked questions chosen another
        way; strategies that learn from any question (``learns_from_any_question``) replay
        them as recorded and reach the same state, hence the same result.

        Raises
        ------
        ValueError
            If the strategy learns only from its own questions, the question is not one
            this scenario builds, or it repeats an answer that does not exist.
        """
        self.check_recorded(query, builds)
        choice = Choice(choice)
        self._states.append(self._strategy.update(self.state, query, choice))
        self._counted(query, choice)

    def check_recorded(self, query: Query, builds: bool | None = None) -> None:
        """Raise ``ValueError`` (saying why) unless :meth:`answer_recorded` takes an answer
        to ``query``: a question this scenario builds, a pair of candidates, or a choice made
        elsewhere (kind ``recorded``: any two options of the scenario); ``builds``: the
        space's ``describes`` (kind ``recorded``) or ``can_ask`` of it, when already read."""
        if not self._strategy.learns_from_any_question:
            raise ValueError(f"strategy {self.strategy_name!r} learns only from its own questions")
        if builds is None:
            space = self.space
            builds = space.describes(query) if query.kind == RECORDED else space.can_ask(query)
        if query.kind == RECORDED:
            if not builds:
                raise ValueError("the recorded options are not options of this scenario")
        elif not builds and not self._strategy.is_candidate_pair(query):
            raise ValueError("the question is not one this scenario builds")
        if query.repeat_of is not None and not 0 <= query.repeat_of < self.answered:
            raise ValueError(f"the question repeats answer {query.repeat_of}, which does not exist")

    def _counted(self, query: Query, choice: Choice) -> None:
        """Count an answer the strategy has just taken."""
        self._history.append((query, choice))
        now = asked_aspects(self.scenario, (query,))
        self._asked.append(tuple(a or b for a, b in zip(self._asked[-1], now, strict=True)))
        self._pending_valid = False

    def undo(self) -> Query | None:
        """Take back the last answer and restore the exact earlier state.

        Returns the question that is shown again, or ``None`` if there was nothing to undo.
        """
        if not self._history:
            return None
        self._states.pop()
        self._asked.pop()
        query, _ = self._history.pop()
        self._pending, self._pending_valid = query, True
        return query

    def result(self) -> ElicitationResult:
        """What has been learned so far (normalised weights, and uncertainty if known), and
        which weights some answer informed (:func:`~tradeoff.learn.base.asked_aspects`)."""
        return replace(self._strategy.result(self.state), asked=self._asked[-1])

    def shares(self) -> Shares:
        """How much each aspect weighs over its whole range, as a share of the aspects
        some answer informed (:func:`~tradeoff.learn.shares.asked_shares`): what a review
        shows, an unasked aspect without a number."""
        return asked_shares(self.result(), self.space.spans, self.weighted_draws())

    def extend(self, extra: int) -> int:
        """Ask at most ``extra`` more questions (e.g. "10 more" after a review).

        Strategy states do not depend on the budget, so the state is kept as it is; only
        the stopping point moves, to ``extra`` answers from now (not ``extra`` past the plan:
        after a pick settled at 9 of 30 questions, "10 more" asks 10, not 31), and a strategy
        that stopped because the pick was settled (``stop = "decision"``) now aims at the
        weights for those questions. Returns the new budget.
        """
        if extra < 1:
            raise ValueError("extra must be at least 1")
        budget = self.answered + extra
        self.spec = self.spec.model_copy(update={"budget": budget, "stop": "weights"})
        # The same posterior goes on: the pool's plausible measurements, a study's
        # population prior and the pick rule the session started with are kept.
        self._strategy = self._new_strategy()
        self._pending_valid = False
        return budget

    def _new_strategy(self) -> Strategy[Any]:
        """The strategy of :attr:`spec` with every input this engine was made with."""
        inputs = (self.candidates, self.measured, self.start, self.likeliest, self.study_agreeing)
        return make_strategy(self.space, self.spec, self.seed, *inputs, unit=self.noise_unit)

    def expected_total(self) -> int:  # questions expected for the whole elicitation
        return self._strategy.expected_total(self.state)

    def weight_draws(self) -> NDArray[np.float64] | None:
        """Posterior draws of the normalised weights (rows), or ``None`` for strategies
        that keep a point estimate only (``paper``, ``bisection``)."""
        return self._strategy.weight_draws(self.state)

    def weighted_draws(self) -> tuple[NDArray[np.float64], NDArray[np.float64]] | None:
        """Posterior draws of the normalised weights (rows) and the weight of each (they
        sum to 1), or ``None`` for a point estimate: the pick and P(best) computed from
        them (:func:`tradeoff.choose.recommend.recommend`) are the ones :meth:`decision`
        and the stop read (``joint``: the particles as they are, not a resample of them)."""
        if isinstance(self._strategy, JointStrategy):
            return self._strategy.weighted_draws(self.state)
        plain = self.weight_draws()
        return None if plain is None else (plain, np.full(len(plain), 1.0 / len(plain)))

    def particles(self) -> Particles | None:
        """The posterior as its particles (natural-unit weights, each one's noise cell,
        their weights) for ``joint``, else ``None``: what a posterior predictive needs."""
        if not isinstance(self._strategy, JointStrategy):
            return None
        state = self.state
        posterior = self._strategy.posterior
        natural = natural_weights(state.swing, posterior.spans)
        return Particles(natural, state.noise, state.weights(), posterior.noise_grid)

    def verdict(self) -> Verdict | None:
        """The pick, its P(best), P(best or practically tied), the candidates it may be
        practically tied with (:class:`~tradeoff.learn.verdict.Verdict`), when the strategy
        knows them (``joint`` with candidates), else ``None``."""
        if isinstance(self._strategy, JointStrategy):
            return self._strategy.verdict(self.state)
        return None

    def stop_reason(self) -> str | None:
        """Why the questions stopped ("budget", "decided", "precise", "exhausted"), or
        ``None`` while they go on (``paper`` and ``bisection`` say "budget" or "precise"
        when they stop)."""
        return self._strategy.stop_reason(self.state)

    def decision(self) -> tuple[float, float] | None:
        """(P(best) of the pick, its expected relative regret), or ``None``: no decision."""
        return self._strategy.decision(self.state)

    def consistency(self) -> tuple[int, int] | None:
        """(repeats answered the same way both times, repeats), or ``None``: no repeats."""
        return self._strategy.consistency(self.state)

    def expected_remaining(self) -> int:
        """Expected number of questions still to come (0 when finished)."""
        if self.done:
            return 0
        return max(1, self.expected_total() - self.answered)


def expected_questions(scenario: Scenario, spec: ElicitationSpec | None = None) -> int:
    """How many questions an elicitation is planned to take, before any engine is built
    (what a start screen announces): the budget if set, else the strategy's own plan."""
    spec = spec if spec is not None else scenario.elicitation
    n = len(scenario.weight_names)
    if spec.strategy == "paper":
        return planned_questions(n, spec)
    if spec.budget is not None:
        return spec.budget
    return QUESTIONS_PER_RATIO * (n - 1)


def truth_from_dirichlet(spans: tuple[float, ...], rng: np.random.Generator) -> tuple[float, ...]:
    """Random true weights: a flat Dirichlet over *swing* weights w_i·span_i.

    A flat Dirichlet over natural-unit weights would depend on the units (a weight per minute
    is 60 times one per hour); over swing weights (weight × the statistic's range, as in
    multi-attribute utility theory) it does not. Returned in natural units, normalised.
    """
    swing = rng.dirichlet(np.ones(len(spans)))
    natural = swing / np.asarray(spans)
    return tuple(float(x) for x in natural / natural.sum())


#: Answers needed before a pattern (same side, alternating, all "can't tell") is flagged.
PATTERN_MIN_ANSWERS = 8
#: Share of answers that makes a pattern.
PATTERN_SHARE = 0.9
#: An estimated slip rate at or above this fails the consistency check.
SLIP_RATE_LIMIT = 0.2


@dataclass(frozen=True)
class Consistency:
    """Whether a person's answers can be trusted as a preference.

    ``repeats`` is (answered the same way both times, repeated questions) when the strategy
    repeats questions; ``slip_rate`` the estimated chance of a slip when it estimates one;
    ``pattern`` a sentence when the answers follow a pattern that does not depend on the
    options (the sides are shuffled per question, so a real preference does not pick the
    same side every time). ``failed_check`` when the slip rate reaches ``SLIP_RATE_LIMIT``
    or fewer than half of two or more repeats were answered the same way; ``flagged`` when
    a pattern was found or the check failed (both decided as it is made, from the four
    above, so whoever reads it reads the verdict).

    >>> Consistency(12, (1, 4), None, None).flagged, Consistency(12, (3, 4), 0.1, None).flagged
    (True, False)
    """

    answers: int
    repeats: tuple[int, int] | None
    slip_rate: float | None
    pattern: str | None
    failed_check: bool = field(init=False)
    flagged: bool = field(init=False)

    def __post_init__(self) -> None:
        failed = self.slip_rate is not None and self.slip_rate >= SLIP_RATE_LIMIT
        if not failed and self.repeats is not None:
            same, total = self.repeats
            failed = total >= 2 and same < total / 2
        object.__setattr__(self, "failed_check", failed)  # frozen: set once, as it is made
        object.__setattr__(self, "flagged", self.pattern is not None or failed)

    def sentence(self, words: Words = ENGLISH) -> str:
        """One or two sentences for the review screen, ``session show``, ``select`` and
        the report (in ``words``'s language; the pattern is in the language
        :func:`consistency_of` was given).

        >>> print(Consistency(12, (3, 4), 0.125, None).sentence())
        ... # doctest: +NORMALIZE_WHITESPACE
        Consistency check: 3 of 4 repeated questions were answered the same way both times.
        From all 12 answers, the chance that any one of them is a slip is estimated at 12%.
        """
        _ = words.gettext
        parts = []
        if self.repeats is None:
            parts.append(_("This strategy does not repeat questions to check consistency."))
        elif self.repeats[1] == 0:
            parts.append(_("No question was repeated, so consistency was not checked."))
        else:
            same, total = self.repeats
            fields = {"same": words.count(same), "total": words.count(total)}
            message = words.ngettext(
                "Consistency check: %(same)s of %(total)s repeated question was answered "
                "the same way both times.",
                "Consistency check: %(same)s of %(total)s repeated questions were answered "
                "the same way both times.",
                total,
            )
            parts.append(message % fields)
            if self.slip_rate is not None:  # from every answer, not from the repeats alone
                fields["n"] = words.count(self.answers)
                fields["rate"] = words.digits(f"{self.slip_rate:.0%}".removesuffix("%"))
                message = words.ngettext(
                    "From the %(n)s answer, the chance that it is a slip is estimated at "
                    "%(rate)s%%.",
                    "From all %(n)s answers, the chance that any one of them is a slip is "
                    "estimated at %(rate)s%%.",
                    self.answers,
                )
                parts.append(message % fields)
        if self.pattern is not None:
            parts.append(
                _("Warning: %(pattern)s; these weights may not reflect a preference.")
                % {"pattern": self.pattern}
            )
        elif self.failed_check:
            parts.append(_("Warning: the answers contradict each other too often to trust."))
        return " ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "flagged": self.flagged,
            "repeats": None if self.repeats is None else list(self.repeats),
            "slip_rate": self.slip_rate,
            "pattern": self.pattern,
        }


def answer_pattern(choices: Sequence[Choice], words: Words = ENGLISH) -> str | None:
    """A sentence when answers follow a pattern that ignores the options, else ``None``:
    the same side (A or B) nearly every time, strict alternation, or "can't tell" nearly
    every time.

    >>> answer_pattern([Choice.LEFT] * 10)
    'Option A was chosen 10 of 10 times'
    >>> answer_pattern([Choice.LEFT, Choice.RIGHT] * 5)
    'the answers alternated between A and B 9 of 9 times'
    """
    _ = words.gettext
    n = len(choices)
    if n < PATTERN_MIN_ANSWERS:
        return None
    unsure = sum(c is Choice.INDIFFERENT for c in choices)
    if unsure >= PATTERN_SHARE * n:
        return _('"can\'t tell" was answered %(n)s of %(total)s times') % {
            "n": words.count(unsure),
            "total": words.count(n),
        }
    sided = [c for c in choices if c is not Choice.INDIFFERENT]
    if len(sided) < PATTERN_MIN_ANSWERS:
        return None
    left = sum(c is Choice.LEFT for c in sided)
    total = words.count(len(sided))
    if left >= PATTERN_SHARE * len(sided):
        return _("Option A was chosen %(n)s of %(total)s times") % {
            "n": words.count(left),
            "total": total,
        }
    if len(sided) - left >= PATTERN_SHARE * len(sided):
        return _("Option B was chosen %(n)s of %(total)s times") % {
            "n": words.count(len(sided) - left),
            "total": total,
        }
    switches = sum(a is not b for a, b in itertools.pairwise(sided))
    if switches >= PATTERN_SHARE * (len(sided) - 1):
        return _("the answers alternated between A and B %(n)s of %(total)s times") % {
            "n": words.count(switches),
            "total": words.count(len(sided) - 1),
        }
    return None


def consistency_of(engine: Engine, words: Words = ENGLISH) -> Consistency:
    """The :class:`Consistency` of an engine's answers so far (its pattern, if any, in
    ``words``'s language)."""
    choices = [c for _, c in engine.history]
    return Consistency(
        engine.answered,
        engine.consistency(),
        engine.result().error_rate_estimate,
        answer_pattern(choices, words),
    )


@dataclass(frozen=True)
class Outcome:
    """What an engine's answers come to, read from it in one go (:func:`outcome_of`) by
    whoever decides from them (:func:`tradeoff.choose.stakeholder.stakeholder_of`): the
    result, the answers given, the posterior's draws of the weights as they are and as the
    stop reads them (:meth:`Engine.weighted_draws`), the answers' :class:`Consistency`."""

    result: ElicitationResult
    answered: int
    draws: NDArray[np.float64] | None = field(repr=False)
    posterior: tuple[NDArray[np.float64], NDArray[np.float64]] | None = field(repr=False)
    consistency: Consistency
    #: The stop's pick rule with a measurement noise (:attr:`Engine.likeliest`).
    likeliest: bool = True
    shares: Shares | None = field(default=None, repr=False)  #: as a review shows them


def outcome_of(engine: Engine) -> Outcome:
    """The :class:`Outcome` of an engine as it now stands (nothing is recomputed that the
    engine keeps)."""
    return Outcome(
        engine.result(),
        engine.answered,
        engine.weight_draws(),
        engine.weighted_draws(),
        consistency_of(engine),
        engine.likeliest,
        engine.shares(),
    )
