"""Strategy `joint`: one posterior over the whole weight vector, aimed at the pick.

Where :mod:`~tradeoff.learn.probabilistic` keeps one posterior per ratio against
class 1, this strategy keeps one joint posterior over all swing weights at once, as
weighted particles (:mod:`~tradeoff.learn.particles`), and learns from any question
through one likelihood (:mod:`~tradeoff.learn.likelihood`). This module is the strategy:
what it holds, when it stops and which question it asks next. The questions it may ask are
built in :mod:`~tradeoff.learn.joint_questions`, scored by the look-ahead of
:mod:`~tradeoff.learn.lookahead`; what it says of the pick is :mod:`~tradeoff.learn.verdict`'s.

* **Questions.** Two kinds, scored by one criterion: (a) hypothetical trades
  (:meth:`~tradeoff.ask.queries.QuerySpace.trade`) between any class and any other statistic,
  aimed at the posterior's quantiles of their exchange rate (``TRADE_QUANTILES``) at a few
  sizes (``TRADE_SHARES``), rounded as the screen shows them; (b) two of the candidate
  models, as the screen shows them, among those best for some particle. Questions a person
  could not answer from the screen, pairs already shown ``MAX_SHOWS`` times and pairs
  answered "can't tell" (and trades within ``UNSURE_GAP`` of such an exchange rate) are
  not asked. With candidates, each question is the one that leaves the lowest expected
  regret of the Bayes pick after the answer (a one-step look-ahead over the three answers
  and the particles), less ``INFORMATION_WEIGHT`` × the information the answer carries
  about which model is best (which separates questions when no single answer could change
  the pick); without candidates, the one that leaves the lowest expected L1 error of the
  swing weights. A question asked before may be asked again (sides as the coin falls):
  when one answer could flip a confident pick, the look-ahead values hearing it twice.
* **Stopping.** At the budget; with candidates, once the pick is best with posterior
  probability ``decision_confidence`` (or its expected regret is below
  ``regret_tolerance``) and no aspect the pick turns on rests on too few answers (one, or
  two of a person whose answers contradict each other often,
  :meth:`JointStrategy.on_one_answer`: those are asked about first; a stop without more
  says so); without, once every weight's 90% interval is narrower than ``target_width``;
  or when no question is left that a person could tell apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from tradeoff.arrays import BoolArray, FloatArray, IntArray
from tradeoff.ask.queries import ClassifierProfile, Query, profile_key
from tradeoff.ask.shown import ShownKey, question_key
from tradeoff.learn.base import Choice, ElicitationResult, asked_aspects
from tradeoff.learn.corroboration import (
    AGREEING_ANSWERS,
    REFERENCE_DRAWS,
    STUDY_AGREEING_ANSWERS,
    agreeing,
    agreeing_needed,
    holding_up,
    noisy_end,
)
from tradeoff.learn.joint_questions import MIN_BEST_SHARE, Candidate, Questions, Trade
from tradeoff.learn.joint_state import JointRecord, JointState, answer_digest
from tradeoff.learn.likelihood import NOISE_PRIOR, OUTCOME, NoiseGrid
from tradeoff.learn.lookahead import scores
from tradeoff.learn.particles import PARTICLES, SUMMARIES_KEPT, ParticlePosterior, Summary
from tradeoff.learn.posterior import NATURAL_PRIOR_SHARE, PosteriorStrategy, repeats, same_answer
from tradeoff.learn.starting_prior import StartingPrior
from tradeoff.learn.swing_prior import SPARSE_PRIOR_SHARE, draw_swing_prior, natural_weights
from tradeoff.learn.verdict import Verdict, said_tied, tied_with
from tradeoff.stable import settled, stable_argmax_rows, stable_order


def _tables(measured: FloatArray, front: IntArray) -> FloatArray:
    """The plausible tables of the ``front`` candidates (tables × front × statistics)."""
    tables = np.asarray(measured, dtype=np.float64)
    if tables.ndim != 3:
        raise ValueError("measured must be tables × candidates × statistics")
    out: FloatArray = tables[:, front, :]
    return out


@dataclass(frozen=True)
class JointStrategy(PosteriorStrategy[JointState]):
    """A joint particle posterior over the weights, questions aimed at the pick (see the
    module docstring)."""

    particles: int = PARTICLES
    noise_grid: NoiseGrid = field(default=NOISE_PRIOR, compare=False, repr=False)
    sparse_share: float = SPARSE_PRIOR_SHARE
    name: str = field(default="joint", init=False)
    #: An answer is a likelihood on Δ of its two options, whatever the question.
    learns_from_any_question: bool = field(default=True, init=False)
    #: The questions on this strategy's question space (shared by every strategy on it).
    _space_questions: Questions = field(init=False, compare=False, repr=False)
    #: Indices (into ``candidates``) of the non-dominated candidates, and for every pair
    #: of them that a person could tell apart on the screen: (i, j, diff, shown key, query).
    _front: IntArray = field(init=False, compare=False, repr=False)
    _pairs: dict[tuple[int, int], Candidate] = field(init=False, compare=False, repr=False)
    #: Candidate index by the :func:`~tradeoff.ask.queries.profile_key` of its shown profile (a
    #: recorded pair is recognised whatever the last bits of the machine that recorded it).
    _shown_rows: dict[str, int] = field(init=False, compare=False, repr=False)
    #: Each front candidate's card line for each statistic, as a number that is equal for
    #: two candidates exactly when the lines read the same
    #: (:meth:`~tradeoff.learn.joint_questions.Questions.front`).
    _lines: FloatArray = field(init=False, compare=False, repr=False)
    #: :meth:`_covering` by state.
    _covers: dict[JointState, list[Trade | Candidate]] = field(
        default_factory=dict, init=False, compare=False, repr=False
    )
    #: :meth:`verdict` by state (the stop and the choice of a question both read it).
    _verdicts: dict[JointState, Verdict | None] = field(
        default_factory=dict, init=False, compare=False, repr=False
    )
    #: Plausible values of the candidates' rows when the pool's numbers carry a measurement
    #: noise (tables × candidates × statistics; one table per particle), or ``None``: the
    #: stop's P(best) then counts over them (:class:`~tradeoff.learn.particles.ParticlePosterior`)
    #: and every candidate stays in the running, since one dominated at the measured numbers
    #: may be best at plausible ones (the questions still pair non-dominated ones only).
    measured: FloatArray | None = field(default=None, compare=False, repr=False)
    #: A study's pooled prior the weights start from (:mod:`~tradeoff.learn.starting_prior`).
    start: StartingPrior | None = field(default=None, compare=False, repr=False)
    #: With ``measured``: the pick is the likeliest best over the weights and the
    #: measurements, or (``False``, sessions recorded before) the best at the measured
    #: numbers (:attr:`~tradeoff.learn.particles.ParticlePosterior.likeliest`).
    likeliest: bool = True
    #: With ``start``: the agreeing answers :meth:`on_one_answer` asks on every aspect
    #: (``AGREEING_ANSWERS`` for sessions recorded before; without ``start`` always that).
    study_agreeing: int = STUDY_AGREEING_ANSWERS
    #: :meth:`_reference`, once drawn.
    _references: FloatArray | None = field(default=None, init=False, compare=False, repr=False)
    #: Each of :meth:`_reference`'s draws' best front candidate, once worked out.
    _reference_best: IntArray | None = field(default=None, init=False, compare=False, repr=False)
    #: The posterior over the weights (built from the fields above).
    posterior: ParticlePosterior = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        questions = Questions(self.space, self.shows_rounded)
        front = np.empty(0, dtype=np.intp)
        pairs: dict[tuple[int, int], Candidate] = {}
        shown_rows: dict[str, int] = {}
        if self.candidates is not None:
            rows = np.asarray(self.candidates, dtype=np.float64)
            object.__setattr__(self, "candidates", rows)
            known = questions.front(rows, self.measured is not None)
            front, pairs, shown_rows = known.indices, known.pairs, known.shown_rows
            lines = known.lines
        else:
            lines = np.empty((0, self.space.n_weights))
        object.__setattr__(self, "_space_questions", questions)
        object.__setattr__(self, "_front", front)
        object.__setattr__(self, "_pairs", pairs)
        object.__setattr__(self, "_shown_rows", shown_rows)
        object.__setattr__(self, "_lines", lines)
        object.__setattr__(
            self,
            "posterior",
            ParticlePosterior(
                self.space.spans,
                self.seed,
                self.particles,
                self.noise_grid,
                self.sparse_share,
                self.natural_share,
                None if self.candidates is None else self.candidates[front],
                None
                if self.measured is None or self.candidates is None
                else _tables(self.measured, front),
                self.start,
                self.likeliest,
            ),
        )

    # -- settings ---------------------------------------------------------------------

    @property
    def natural_share(self) -> float:
        return NATURAL_PRIOR_SHARE if self.spec.precision == "natural" else 0.0

    # -- the candidates as shown ----------------------------------------------------------

    def candidate_profile(self, index: int) -> ClassifierProfile:
        """Candidate ``index`` as the screen shows it
        (:meth:`~tradeoff.learn.joint_questions.Questions.candidate_profile`)."""
        assert self.candidates is not None
        return self._space_questions.candidate_profile(self.candidates[index])

    # -- the posterior ------------------------------------------------------------------

    def initial(self) -> JointState:
        """Particles drawn from the prior (the same for every engine with this seed)."""
        return self.posterior.initial()

    def update(self, state: JointState, query: Query, choice: Choice) -> JointState:
        """The state after ``choice`` was given to ``query``
        (:meth:`~tradeoff.learn.particles.ParticlePosterior.update`)."""
        choice = Choice(choice)
        record = self._record(state, query, choice)
        return self.posterior.update(state, record, answer_digest(state.key, query, choice))

    def _record(self, state: JointState, query: Query, choice: Choice) -> JointRecord:
        shown = question_key(self.space, query, self.shows_rounded)
        vector = self._space_questions.vector
        diff = tuple(float(x) for x in vector(query.left) - vector(query.right))
        differs = asked_aspects(self.space.scenario, (query,))
        indices = self._candidate_indices(query)
        repeat = next(
            (i for i in range(len(state.records) - 1, -1, -1) if state.records[i].shown == shown),
            None,
        )
        if indices is not None:
            return JointRecord(
                diff,
                OUTCOME[choice],
                "candidates",
                shown,
                candidates=indices,
                repeat_of=repeat,
                differs=differs,
            )
        pair = query.pair if query.pair[0] != query.pair[1] else None
        return JointRecord(
            diff,
            OUTCOME[choice],
            "trade",
            shown,
            pair,
            query.threshold,
            repeat_of=repeat,
            differs=differs,
        )

    def _candidate_indices(self, query: Query) -> tuple[int, int] | None:
        """The candidates' indices when both options are candidate models as shown."""
        left = self._shown_rows.get(profile_key(query.left))
        right = self._shown_rows.get(profile_key(query.right))
        if left is None or right is None:
            return None
        return left, right

    def candidate_query(self, left: int, right: int) -> Query | None:
        """Candidates ``left`` and ``right`` (indices into the candidates) as a question of
        the kind "candidates", as the screen shows them, or ``None`` when a person could not
        tell them apart there (they read the same, or one reads better on every line) or
        one of them is dominated."""
        c = self._pairs.get((min(left, right), max(left, right)))
        if c is None:
            return None
        return c.query if left < right else c.query.swapped()

    def is_candidate_pair(self, query: Query) -> bool:
        """Whether both options are candidate models exactly as this strategy shows them
        (a recorded question of the kind "candidates")."""
        return self._candidate_indices(query) is not None

    # -- what the engine asks -------------------------------------------------------------

    def verdict(self, state: JointState) -> Verdict | None:
        """The pick, its P(best), P(best or practically tied with the best), the candidates
        it may be practically tied with and its expected regret (:class:`Verdict`), under the
        posterior as :meth:`~tradeoff.learn.particles.ParticlePosterior.summary` weighs it
        (its noisy tails weighed up), or ``None`` without candidates (kept for the state)."""
        if state in self._verdicts:
            return self._verdicts[state]
        s = self.posterior.summary(state)
        out = None
        if s.psi is not None and s.p_best is not None and s.pick is not None and s.near is not None:
            top = s.psi.max(axis=1)
            spread = float(s.weights @ (top - s.psi.min(axis=1))) or 1.0
            regret = float(s.weights @ (top - s.psi[:, s.pick]))
            order = tied_with(s.near, s.pick)
            out = Verdict(
                int(self._front[s.pick]),
                float(s.p_best[s.pick]),
                float(s.near.sum()),
                regret / spread,
                tuple(int(self._front[i]) for i in order),
                self.spec.decision_confidence,
                measured_best=None
                if s.exact_pick is None or s.exact_pick == s.pick
                else (int(self._front[s.exact_pick]), float(s.p_best[s.exact_pick])),
            )
        if len(self._verdicts) >= SUMMARIES_KEPT:
            self._verdicts.pop(next(iter(self._verdicts)))  # the oldest
        self._verdicts[state] = out
        if out is not None:  # what the stop reads first, then what it rests on
            rests = self._rests_on(state)
            out = replace(
                out,
                one_answer=_together(rests.thin + rests.unsure, rests.held),
                thin=rests.thin,
                unsure=rests.unsure,
                held=rests.held,
                agreeing=rests.need,
            )
            self._verdicts[state] = out
        return out

    def decision(self, state: JointState) -> tuple[float, float] | None:
        """(The stated probability of the Bayes pick: P(best), or P(best or practically tied
        with the best) when it is said to be practically tied (:attr:`Verdict.stated`); its
        expected regret relative to the metric's mean spread over the candidates), or
        ``None`` without candidates. The stop compares the first with the confidence."""
        v = self.verdict(state)
        return None if v is None else (v.stated, v.regret)

    def stop_decision(self, state: JointState) -> tuple[float, float] | None:
        """What ends the questions: :meth:`decision`, or, with a measurement noise, the
        stated probability the best candidate at the measured numbers has there
        (:attr:`~tradeoff.learn.particles.Summary.exact_pick`, the pick under the rule of
        sessions recorded before) when that is higher. Answers settle the weights, never
        the measurements: once the weights settle which model measured best, more
        questions cannot lift a P(best) that the measurement noise holds down (the person
        is told the noise-aware one, of the likeliest best)."""
        known = self.decision(state)
        s = self.posterior.summary(state)
        top = s.exact_pick
        if known is None or s.exact_p_best is None or s.exact_near is None or top is None:
            return known
        others = bool(tied_with(s.exact_near, top))
        p, near = float(s.exact_p_best[top]), float(s.exact_near.sum())
        exact = near if said_tied(p, near, others, self.spec.decision_confidence) else p
        return (max(known[0], exact), known[1])

    def pick(self, state: JointState) -> int | None:
        """Index (into the candidates) of the Bayes pick, or ``None`` without candidates."""
        s = self.posterior.summary(state)
        return None if s.pick is None else int(self._front[s.pick])

    def p_best(self, state: JointState) -> FloatArray | None:
        """Posterior probability that each candidate is best (dominated ones: 0)."""
        s = self.posterior.summary(state)
        if s.p_best is None or self.candidates is None:
            return None
        out = np.zeros(len(self.candidates))
        out[self._front] = s.p_best
        return out

    def weight_draws(self, state: JointState) -> FloatArray:
        """An equally weighted (systematic, seeded) resample of the particles'
        natural-unit weights."""
        return self.posterior.draws(state)

    def weighted_draws(self, state: JointState) -> tuple[FloatArray, FloatArray]:
        """The particles' natural-unit weights (rows) and their weights, as the stop reads
        them (:meth:`~tradeoff.learn.particles.ParticlePosterior.weighted_draws`)."""
        return self.posterior.weighted_draws(state)

    def intervals(self, state: JointState) -> tuple[tuple[float, float], ...]:
        """90% credible interval of every natural-unit weight."""
        return self.posterior.credible_intervals(state)[0]

    # -- choosing a question ------------------------------------------------------------------

    def _options(self, summary: Summary) -> list[Trade | Candidate]:
        """Every question that may be scored now (both kinds), before what a person can
        read and what was shown before are checked
        (:meth:`~tradeoff.learn.joint_questions.Questions.allowed`)."""
        options: list[Trade | Candidate] = list(self._space_questions.trades(summary))
        if self.aims_at_decision and summary.best is not None:
            share = np.bincount(summary.best, weights=summary.weights, minlength=len(self._front))
            live = {int(self._front[i]) for i in np.flatnonzero(share >= MIN_BEST_SHARE)}
            options.extend(c for (i, j), c in self._pairs.items() if i in live and j in live)
        return options

    def _scores(
        self, summary: Summary, state: JointState, options: Sequence[Trade | Candidate]
    ) -> FloatArray:
        """The loss left after each question (lower is better): the one-step look-ahead of
        :func:`~tradeoff.learn.lookahead.scores` under this strategy's answer model."""
        return scores(summary, state, options, self.noise_grid, self.aims_at_decision)

    def _live_differ(self, state: JointState, floor: float = MIN_BEST_SHARE) -> BoolArray:
        """Per statistic, whether the candidates still possibly best (each best for at
        least ``floor`` of the posterior, for any of it when ``floor`` is 0, at the measured
        numbers: what the answers can settle) read differently on the screen (all false
        for fewer than two)."""
        s = self.posterior.summary(state)
        none = np.zeros(self.space.n_weights, dtype=bool)
        if s.p_best is None:
            return none
        shares = s.p_best if s.exact_p_best is None else s.exact_p_best
        live = [
            i
            for i, x in enumerate(shares)
            if (settled(float(x)) >= floor if floor > 0 else float(x) > 0)
        ]
        if len(live) < 2:
            return none
        lines = self._lines[live]
        out: BoolArray = (lines != lines[0]).any(axis=0)
        return out

    def unasked(self, state: JointState) -> tuple[int, ...]:
        """The statistics on which the candidates still possibly best (each best for at
        least ``MIN_BEST_SHARE`` of the posterior) read differently on the screen, but no
        answer yet showed two options that differ on them: the answers have said nothing
        about their weights, which only the prior holds."""
        differ = self._live_differ(state)
        if not differ.any():
            return ()
        asked = np.zeros(self.space.n_weights, dtype=bool)
        for r in state.records:
            asked |= np.asarray(r.differs, dtype=bool)
        return tuple(int(j) for j in np.flatnonzero(differ & ~asked))

    def on_one_answer(self, state: JointState) -> tuple[int, ...]:
        """The statistics a settled pick rests on too few answers about: those of
        :meth:`unasked`; those on which candidates the posterior gives any chance of being
        best read differently but fewer more answers the posterior agrees with than it
        overrules showed two options differing
        (:func:`~tradeoff.learn.corroboration.agreeing`) than the person's answers need
        (``AGREEING_ANSWERS``, more for a person who reverses answers often,
        :func:`~tradeoff.learn.corroboration.agreeing_needed`; with a study's prior,
        ``study_agreeing``); and those on which the two
        options of an answer the pick rests on read differently
        (:func:`~tradeoff.learn.corroboration.holding_up`: without that answer alone it
        would not be settled, the answers weighed with the whole answer model at the noisy
        end of the posterior's lapse, temperature and band,
        :func:`~tradeoff.learn.corroboration.noisy_end`). A single slip there may have
        made the pick. Empty while the pick is not settled."""
        rests = self._rests_on(state)
        return _together(rests.thin + rests.unsure, rests.held)

    def _rests_on(self, state: JointState) -> _Rests:
        """:meth:`on_one_answer` in its parts (:class:`_Rests`): the statistics unasked or
        shown by fewer than two agreeing answers, those shown by two or more but fewer than
        this person's answers need, and, for each answer that alone holds the pick up, the
        statistics its two options differ on.

        The agreeing answers needed: with a study's prior ``study_agreeing``; else
        ``AGREEING_ANSWERS``, or more for a person whose answers the posterior finds
        reversed often (:func:`~tradeoff.learn.corroboration.agreeing_needed` at the noisy
        end of its lapse): two answers that agree are both reversed too often for them."""
        known = self.stop_decision(state)
        if known is None or not self.spec.decided(*known):
            return _Rests((), (), (), AGREEING_ANSWERS)
        out = set(self.unasked(state))
        s = self.posterior.summary(state)
        w = state.weights()
        values = self.noise_grid.values(state.noise)
        lapse, temperature, band = (noisy_end(x, w) for x in values)
        if self.start is None:
            need = agreeing_needed(lapse, self.spec.decision_confidence)
        else:
            need = self.study_agreeing
        least = min(need, AGREEING_ANSWERS)
        counts = agreeing(state.records, s.natural, s.weights)
        live = self._live_differ(state, 0.0)
        out.update(int(j) for j in np.flatnonzero(live & (counts < least)))
        thin = tuple(sorted(out))
        unsure = tuple(int(j) for j in np.flatnonzero(live & (counts >= least) & (counts < need)))
        if s.exact_pick is not None and self.candidates is not None:
            rows = self.candidates[self._front]
            if self._reference_best is None:
                best = stable_argmax_rows(self._reference() @ rows.T)
                object.__setattr__(self, "_reference_best", best)
            held = holding_up(
                state.records,
                self._reference(),
                rows,
                s.exact_pick,  # at the measured numbers, as the answers settle it
                (lapse, temperature, band),
                self.spec.decision_confidence,
                self._reference_best,
            )
            holding = tuple(
                tuple(j for j, d in enumerate(r.differs) if d)
                for r, on in zip(state.records, held, strict=True)
                if on
            )
            return _Rests(thin, unsure, holding, need)
        return _Rests(thin, unsure, (), need)

    def _reference(self) -> FloatArray:
        """``REFERENCE_DRAWS`` natural-unit weights drawn from the prior the person is
        asked with (once, seeded; a study's pooled prior when it has one): what
        :func:`~tradeoff.learn.corroboration.holding_up` weighs."""
        if self._references is None:
            rng = np.random.default_rng([self.seed, 0, 1])
            spans = self.space.spans

            def own(size: int) -> FloatArray:
                return draw_swing_prior(rng, size, spans, self.sparse_share, self.natural_share)

            swing = (
                own(REFERENCE_DRAWS)
                if self.start is None
                else self.start.draw(rng, REFERENCE_DRAWS, own)
            )
            object.__setattr__(self, "_references", natural_weights(swing, spans))
        assert self._references is not None
        return self._references

    def _covering(self, state: JointState) -> list[Trade | Candidate]:
        """The questions that may be asked now and show two options differing on a
        statistic of :meth:`on_one_answer` (kept for the state: the stop and the choice of
        a question both read them)."""
        known = self._covers.get(state)
        if known is not None:
            return known
        verdict = self.verdict(state)  # its one_answer: on_one_answer, worked out once
        unasked = () if verdict is None else verdict.one_answer
        out: list[Trade | Candidate] = []
        if unasked:
            out = [
                o
                for o in self._options(self.posterior.summary(state))
                if any(o.differs[j] for j in unasked)
                and self._space_questions.allowed(state, o) is not None
            ]
        if len(self._covers) >= SUMMARIES_KEPT:
            self._covers.clear()
        self._covers[state] = out
        return out

    def may_stop_decided(self, state: JointState) -> bool:
        """A settled pick ends the questions only once every aspect on which the
        candidates still possibly best differ has been on the table in some answer, and
        no single answer holds the pick up (:meth:`on_one_answer`: two answers settle it
        each on their own, or more together), or no question a person could answer would
        put those aspects on the table again (the verdict then says the pick rests on one
        answer: :attr:`~tradeoff.learn.verdict.Verdict.one_answer`). A pick the prior alone
        settles for an aspect never asked about is the prior's, not the person's, and one
        that a single answer settles is that answer's, right or slipped."""
        return not self._covering(state)

    def _choose(self, state: JointState) -> Query | None:
        summary = self.posterior.summary(state)
        options = self._options(summary)
        known = self.stop_decision(state)
        if known is not None and self.spec.decided(*known):
            # Settled but for an aspect never asked about: ask about it first.
            options = list(self._covering(state)) or options
        if not options:
            return None
        scores = self._scores(summary, state, options)
        # Scores equal to DIGITS digits fall in the options' order on every machine. The
        # question just answered waits for one in between (a person remembers what they
        # said a moment ago, so asked again at once it would not be an independent answer):
        # it is asked next only when nothing else may be.
        just = state.records[-1].shown if state.records else None
        held: tuple[Query, ShownKey] | None = None
        chosen: tuple[Query, ShownKey] | None = None
        for index in stable_order(scores):
            option = options[int(index)]
            key = self._space_questions.allowed(state, option)
            if key is None:
                continue
            if key != just:
                chosen = (option.query, key)
                break
            held = held or (option.query, key)
        chosen = chosen or held
        if chosen is None:
            return None  # nothing left that a person could tell apart
        query, key = chosen
        repeat = next(
            (i for i in range(state.answered - 1, -1, -1) if state.records[i].shown == key),
            None,
        )
        if np.random.default_rng([self.seed, state.answered]).random() >= 0.5:
            query = query.swapped()
        if repeat is not None:
            query = replace(query, repeat_of=repeat)
        return query

    # -- results ------------------------------------------------------------------------

    def result(self, state: JointState) -> ElicitationResult:
        s = self.posterior.summary(state)
        weights = tuple(float(x) for x in s.weights @ s.natural)
        intervals, swing_intervals = self.posterior.credible_intervals(state)
        lapse, _, _ = self.posterior.noise_posterior(state)
        return self._result(state, weights, intervals, swing_intervals, lapse / 2)

    def consistency(self, state: JointState) -> tuple[int, int]:
        """(repeated questions answered the same way both times, repeated questions): the
        same way when the same option as shown was preferred
        (:func:`~tradeoff.learn.posterior.same_answer`)."""
        return repeats(state.records, same_answer)


@dataclass(frozen=True)
class _Rests:
    """What a settled pick rests on too few answers about (:meth:`JointStrategy._rests_on`):
    the statistics unasked or shown by fewer than two agreeing answers (``thin``), those
    shown by two or more but fewer than ``need`` (``unsure``), and each answer that alone
    holds the pick up, as the statistics its options differ on (``held``)."""

    thin: tuple[int, ...]
    unsure: tuple[int, ...]
    held: tuple[tuple[int, ...], ...]
    need: int


def _together(thin: tuple[int, ...], held: tuple[tuple[int, ...], ...]) -> tuple[int, ...]:
    """Every statistic a settled pick rests on too few answers about: those too few agreeing
    answers settle and those of each answer that alone holds it up, in order."""
    return tuple(sorted(set(thin).union(*held)))
