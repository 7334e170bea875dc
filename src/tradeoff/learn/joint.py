"""Strategy `joint`: one posterior over the whole weight vector, aimed at the pick.

Where :mod:`~tradeoff.learn.probabilistic` keeps one posterior per ratio against
class 1, this strategy keeps one joint posterior over all swing weights at once, as
weighted particles (:mod:`~tradeoff.learn.particles`), and learns from any question
through one likelihood (:mod:`~tradeoff.learn.likelihood`). This module chooses the
questions.

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
  ``regret_tolerance``); without, once every weight's 90% interval is narrower than
  ``target_width``; or when no question is left that a person could tell apart.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

from tradeoff.ask.queries import ClassifierProfile, Query, QuerySpace, profile_key
from tradeoff.ask.shown import (
    ShownKey,
    as_shown,
    card_lines,
    question_key,
    shown_profile,
    unanswerable,
)
from tradeoff.learn.base import Choice, ElicitationResult, asked_aspects, logit
from tradeoff.learn.likelihood import (
    NOISE_PRIOR,
    OUTCOME,
    NoiseGrid,
    answer_probabilities,
)
from tradeoff.learn.particles import (
    PARTICLES,
    SPARSE_PRIOR_SHARE,
    SUMMARIES_KEPT,
    JointRecord,
    JointState,
    ParticlePosterior,
    Summary,
    answer_digest,
    weighted_quantiles,
)
from tradeoff.learn.posterior import (
    MAX_SHOWS,
    NATURAL_PRIOR_SHARE,
    UNSURE_GAP,
    PosteriorStrategy,
    non_dominated,
    repeats,
    same_answer,
)
from tradeoff.stable import canonical, settled, stable_order

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.intp]

#: Quantiles of a pair's exchange rate at which trades are offered.
TRADE_QUANTILES = (0.1, 0.3, 0.5, 0.7, 0.9)
#: Sizes of a trade, as shares of the ranges (:meth:`~tradeoff.ask.queries.QuerySpace.trade`);
#: a trade that cannot be read at the first size is tried at the whole range.
TRADE_SHARES = (0.6, 0.9)
#: A trade is aimed at its target exchange rate rounded to this many decimals in logit m
#: (a factor 1.01 in the weight ratio, finer than the screen's rounding), so trades are
#: built once per rounded target.
TRADE_AIM_DIGITS = 2
#: Weight of the information about the best model's identity (nats) beside the expected
#: regret (as a share of the metric's spread) when choosing a question.
INFORMATION_WEIGHT = 0.01
#: Candidate models best for less than this share of the posterior are not asked about.
MIN_BEST_SHARE = 1e-3
#: A candidate that is best, by less than the person's perceivable margin over the pick,
#: for at least this share of the posterior is one the pick may be practically tied with.
TIE_MENTION = 0.01
#: A pick not settled as best is said to be practically tied when the candidates that may
#: beat it by less than the margin hold at least this share of the posterior together.
TIE_SHARE = 0.05


@dataclass(frozen=True)
class Candidate:
    """Two candidate models as a question: the query, v(left) − v(right) and its shown key."""

    query: Query
    diff: FloatArray
    shown: ShownKey
    #: Per statistic, whether the two cards' lines for it read differently.
    differs: tuple[bool, ...]


@dataclass(frozen=True)
class Front:
    """The non-dominated candidates (indices), the questions about two of them a person
    could tell apart, the candidates by the key of their shown profile, and each front
    candidate's card lines as the screen reads them (one per statistic)."""

    indices: IntArray
    pairs: dict[tuple[int, int], Candidate]
    shown_rows: dict[str, int]
    lines: FloatArray


def said_tied(p_best: float, p_near: float, others: bool, confidence: float) -> bool:
    """Whether a pick with P(best) ``p_best`` and P(best or practically tied) ``p_near``
    is said to be practically tied: it is not best with the ``confidence`` asked for, but
    best or practically tied with it is, and other models (``others``) that may beat it by
    less than the person's perceivable margin hold at least ``TIE_SHARE`` of the posterior.
    (A pick that is neither is said with its P(best): a tie that is itself unsure is no
    news to a person.)

    >>> said_tied(0.90, 0.97, True, 0.95), said_tied(0.96, 0.99, True, 0.95)
    (True, False)
    >>> said_tied(0.42, 0.51, True, 0.95)
    False
    """
    return (
        others
        and settled(p_best) < confidence <= settled(p_near)
        and settled(p_near - p_best) >= TIE_SHARE
    )


def tied_with(near: FloatArray, pick: int) -> list[int]:
    """The candidates the pick may be practically tied with: each best, by less than the
    margin over the pick, for at least ``TIE_MENTION`` of the posterior (``near``,
    :func:`~tradeoff.learn.particles.near_best`), most likely first (ties: the earlier).

    >>> tied_with(np.array([0.8, 0.005, 0.15, 0.03]), 0)
    [2, 3]
    """
    others = np.array(
        [i for i, x in enumerate(near) if i != pick and settled(float(x)) >= TIE_MENTION],
        dtype=np.intp,
    )
    return [int(i) for i in others[stable_order(-near[others])]]


@dataclass(frozen=True)
class Verdict:
    """What the posterior says of the pick (:meth:`JointStrategy.verdict`).

    ``pick`` indexes the candidates; ``p_best`` is P(it is best); ``p_near`` P(it is best or
    practically tied with the best: within the person's perceivable margin,
    :func:`~tradeoff.learn.particles.perceivable_margin`); ``tied`` the other candidates
    that may be better by less than that margin (each with at least ``TIE_MENTION`` of the
    posterior), most likely first. ``practically_tied`` says whether the pick is to be
    stated as practically tied (:func:`said_tied`): then the stated
    probability (:attr:`stated`) is ``p_near`` and the words name ``tied``; else it is
    ``p_best``. ``regret`` is the pick's expected regret as a share of the metric's spread.
    """

    pick: int
    p_best: float
    p_near: float
    regret: float
    tied: tuple[int, ...]

    #: The confidence the stop asks for (``decision_confidence``).
    confidence: float = 0.95

    @property
    def practically_tied(self) -> bool:
        """Whether the pick is said to be practically tied (:func:`said_tied`)."""
        return said_tied(self.p_best, self.p_near, bool(self.tied), self.confidence)

    @property
    def stated(self) -> float:
        """The probability said to the person and compared with the stop's confidence."""
        return self.p_near if self.practically_tied else self.p_best


@dataclass(frozen=True)
class Trade:
    """A trade as a question: the query as shown, v(left) − v(right), and the two options'
    :func:`~tradeoff.ask.queries.profile_key` (two trades that read the same are one)."""

    query: Query
    diff: FloatArray
    keys: tuple[str, str]
    #: Per statistic, whether the two cards' lines for it read differently.
    differs: tuple[bool, ...]


#: Trades and what a person can read of them are pure functions of the question space (the
#: scenario, its priors, whether options show context and are rounded as shown), so every
#: strategy on the same space shares them: a study's server, a benchmark and a replay build
#: each trade once. Keyed by :func:`_space_key` first; cleared when it grows past its bound.
_TRADES: dict[tuple[str, int, int, float, float], Trade] = {}
_READABLE: dict[tuple[str, ClassifierProfile, ClassifierProfile], ShownKey | None] = {}
#: The non-dominated candidates and the questions about two of them, by question space and
#: candidates (:meth:`JointStrategy._front_pairs`).
_FRONTS: dict[tuple[str, str, bool], Front] = {}
#: Entries kept in each shared cache before it is cleared.
CACHE_BOUND = 50_000

K = TypeVar("K")
V = TypeVar("V")


def _kept(cache: dict[K, V], key: K, value: V, bound: int = CACHE_BOUND) -> V:
    """Keep ``value`` under ``key`` in one of the shared caches (emptied first when it
    holds ``bound`` entries) and return it."""
    if len(cache) >= bound:
        cache.clear()
    cache[key] = value
    return value


def _space_key(space: QuerySpace, rounded: bool) -> str:
    """A digest of everything a trade and its readability depend on: the scenario, its
    priors at :data:`~tradeoff.stable.DIGITS` digits, the options' context and rounding."""
    parts = (space.scenario.model_dump_json(), canonical(space.priors), space.context, rounded)
    text = "|".join(str(x) for x in parts)
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


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
    #: :func:`_space_key` of this strategy's question space (its trades are shared).
    _space: str = field(init=False, compare=False, repr=False)
    #: Indices (into ``candidates``) of the non-dominated candidates, and for every pair
    #: of them that a person could tell apart on the screen: (i, j, diff, shown key, query).
    _front: IntArray = field(init=False, compare=False, repr=False)
    _pairs: dict[tuple[int, int], Candidate] = field(init=False, compare=False, repr=False)
    #: Candidate index by the :func:`~tradeoff.ask.queries.profile_key` of its shown profile (a
    #: recorded pair is recognised whatever the last bits of the machine that recorded it).
    _shown_rows: dict[str, int] = field(init=False, compare=False, repr=False)
    #: Each front candidate's card line for each statistic, as a number that is equal for
    #: two candidates exactly when the lines read the same (:meth:`_front_pairs`).
    _lines: FloatArray = field(init=False, compare=False, repr=False)
    #: :meth:`_covering` by state.
    _covers: dict[JointState, list[Trade | Candidate]] = field(
        default_factory=dict, init=False, compare=False, repr=False
    )
    #: Plausible values of the candidates' rows when the pool's numbers carry a measurement
    #: noise (tables × candidates × statistics; one table per particle), or ``None``: the
    #: stop's P(best) then counts over them (:class:`~tradeoff.learn.particles.ParticlePosterior`)
    #: and every candidate stays in the running, since one dominated at the measured numbers
    #: may be best at plausible ones (the questions still pair non-dominated ones only).
    measured: FloatArray | None = field(default=None, compare=False, repr=False)
    #: The posterior over the weights (built from the fields above).
    posterior: ParticlePosterior = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        space = _space_key(self.space, self.shows_rounded)
        front = np.empty(0, dtype=np.intp)
        pairs: dict[tuple[int, int], Candidate] = {}
        shown_rows: dict[str, int] = {}
        if self.candidates is not None:
            rows = np.asarray(self.candidates, dtype=np.float64)
            object.__setattr__(self, "candidates", rows)
            everyone = self.measured is not None
            key = (space, hashlib.blake2b(rows.tobytes()).hexdigest() + str(rows.shape), everyone)
            known = _FRONTS.get(key) or _kept(_FRONTS, key, self._front_pairs(rows, everyone), 64)
            front, pairs, shown_rows = known.indices, known.pairs, known.shown_rows
            lines = known.lines
        else:
            lines = np.empty((0, self.space.n_weights))
        object.__setattr__(self, "_space", space)
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
            ),
        )

    def _front_pairs(self, rows: FloatArray, everyone: bool = False) -> Front:
        """The non-dominated candidates (``everyone``: all candidates), every pair of
        non-dominated ones a person could tell apart on the screen as a question, the
        candidates by the key of their shown profile, and their card lines (a pure function
        of the question space and the candidates: shared by every strategy)."""
        asked = {int(i) for i in non_dominated(rows)}
        front = np.arange(len(rows), dtype=np.intp) if everyone else non_dominated(rows)
        pairs: dict[tuple[int, int], Candidate] = {}
        shown_rows: dict[str, int] = {}
        profiles = {int(i): self.candidate_profile(int(i)) for i in front}
        for i, p in profiles.items():
            shown_rows.setdefault(profile_key(p), i)
        front_list = [int(x) for x in front]
        for a_pos, i in enumerate(front_list):
            for j in front_list[a_pos + 1 :]:
                if i not in asked or j not in asked:
                    continue
                left, right = profiles[i], profiles[j]
                query = Query(left, right, (0, 0), (0.0, 0.0), kind="candidates", candidates=(i, j))
                if not _readable(self.space, query):
                    continue
                pairs[(i, j)] = Candidate(
                    query,
                    self._vector(left) - self._vector(right),
                    question_key(self.space, query, True),
                    asked_aspects(self.space.scenario, (query,)),
                )
        # Each line's text numbered by first appearance: equal numbers, equal lines.
        texts: dict[str, int] = {}
        lines = np.array(
            [
                [
                    texts.setdefault(line.text, len(texts))
                    for line in card_lines(self.space.scenario, profiles[i], profiles[i])
                ]
                for i in front_list
            ],
            dtype=np.float64,
        ).reshape(len(front_list), self.space.n_weights)
        return Front(front, pairs, shown_rows, lines)

    # -- settings ---------------------------------------------------------------------

    @property
    def natural_share(self) -> float:
        return NATURAL_PRIOR_SHARE if self.spec.precision == "natural" else 0.0

    # -- statistics of options ----------------------------------------------------------

    def _signs(self) -> FloatArray:
        return np.array([-1.0 if a.kind == "cost" else 1.0 for a in self.space.scenario.attributes])

    def _vector(self, profile: ClassifierProfile) -> FloatArray:
        """The statistics ψ is linear in: d, then each attribute signed."""
        out: FloatArray = np.concatenate(
            (
                np.asarray(profile.accuracies, dtype=np.float64),
                self._signs() * np.asarray(profile.attributes, dtype=np.float64),
            )
        )
        return out

    def candidate_profile(self, index: int) -> ClassifierProfile:
        """Candidate ``index`` as the screen shows it: recalls d_i/ζ_i per 1,000 and every
        attribute in its natural unit, rounded as its format shows it."""
        assert self.candidates is not None
        row = self.candidates[index]
        k = self.space.k
        priors = self.space.priors
        accuracies = tuple(float(x) for x in row[:k])
        recalls = tuple(d / z if z > 0 else 0.0 for d, z in zip(accuracies, priors, strict=True))
        attributes = tuple(float(x) for x in self._signs() * row[k:])
        return shown_profile(
            self.space.scenario, ClassifierProfile(accuracies, recalls, attributes)
        )

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
        diff = tuple(float(x) for x in self._vector(query.left) - self._vector(query.right))
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
        (its noisy tails weighed up), or ``None`` without candidates."""
        s = self.posterior.summary(state)
        if s.psi is None or s.p_best is None or s.pick is None or s.near is None:
            return None
        top = s.psi.max(axis=1)
        spread = float(s.weights @ (top - s.psi.min(axis=1))) or 1.0
        regret = float(s.weights @ (top - s.psi[:, s.pick]))
        order = tied_with(s.near, s.pick)
        return Verdict(
            int(self._front[s.pick]),
            float(s.p_best[s.pick]),
            float(s.near.sum()),
            regret / spread,
            tuple(int(self._front[i]) for i in order),
            self.spec.decision_confidence,
        )

    def decision(self, state: JointState) -> tuple[float, float] | None:
        """(The stated probability of the Bayes pick: P(best), or P(best or practically tied
        with the best) when it is said to be practically tied (:attr:`Verdict.stated`); its
        expected regret relative to the metric's mean spread over the candidates), or
        ``None`` without candidates. The stop compares the first with the confidence."""
        v = self.verdict(state)
        return None if v is None else (v.stated, v.regret)

    def stop_decision(self, state: JointState) -> tuple[float, float] | None:
        """What ends the questions: :meth:`decision`, or, with a measurement noise, the
        stated probability the same pick would have at the candidates' measured numbers
        when that is higher. Answers settle the weights, never the measurements: once
        the weights settle the pick, more questions cannot lift a P(best) that the
        measurement noise holds down (the person is told the noise-aware one)."""
        known = self.decision(state)
        s = self.posterior.summary(state)
        if known is None or s.exact_p_best is None or s.exact_near is None or s.pick is None:
            return known
        others = bool(tied_with(s.exact_near, s.pick))
        p, near = float(s.exact_p_best[s.pick]), float(s.exact_near.sum())
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

    def _trades(self, summary: Summary) -> list[Trade]:
        """Trades between every class and every other statistic, aimed at the posterior
        quantiles of their exchange rate, at the sizes of ``TRADE_SHARES``, as the screen
        shows them (not yet checked for what a person can read)."""
        space = self.space
        a, w = summary.natural, summary.weights
        out: list[Trade] = []
        # Two trades that are the same in exact arithmetic are one option on every machine.
        seen: set[tuple[str, str]] = set()
        pairs = [(i, j) for i in space.references for j in range(i + 1, space.n_weights)]
        m = np.stack([a[:, i] / (a[:, i] + a[:, j]) for i, j in pairs], axis=1)
        targets = weighted_quantiles(m, w, TRADE_QUANTILES)
        for col, (i, j) in enumerate(pairs):
            for target in targets[:, col]:
                aim = round(logit(float(target)), TRADE_AIM_DIGITS)
                for share in TRADE_SHARES:
                    t = self._trade(i, j, aim, share)
                    if t.keys in seen:
                        continue
                    seen.add(t.keys)
                    out.append(t)
        return out

    def _trade(self, i: int, j: int, aim: float, share: float) -> Trade:
        """The trade of statistic ``i`` (a class) against ``j`` at the exchange rate
        logit m = ``aim`` and size ``share``, as the screen shows it (cached: a pure
        function of its arguments and the question space, shared by every strategy on it)."""
        key = (self._space, i, j, aim, share)
        cached = _TRADES.get(key)
        if cached is not None:
            return cached
        space = self.space
        query = space.trade(i, j, 1.0 / (1.0 + math.exp(-aim)), share)
        if self.shows_rounded:
            query = as_shown(space, query)
        diff = self._vector(query.left) - self._vector(query.right)
        keys = (profile_key(query.left), profile_key(query.right))
        differs = asked_aspects(space.scenario, (query,))
        return _kept(_TRADES, key, Trade(query, diff, keys, differs))

    def _shown_key(self, query: Query) -> ShownKey | None:
        """The trade's two options as the screen shows them
        (:func:`~tradeoff.ask.shown.question_key`), or ``None`` when a person could not
        answer it from the screen (cached, shared by every strategy on the same space)."""
        key = (self._space, query.left, query.right)
        if key in _READABLE:
            return _READABLE[key]
        out: ShownKey | None = None
        if not self.shows_rounded or unanswerable(self.space.scenario, query) is None:
            out = question_key(self.space, query, self.shows_rounded)
        return _kept(_READABLE, key, out)

    def _options(self, summary: Summary) -> list[Trade | Candidate]:
        """Every question that may be scored now (both kinds), before what a person can
        read and what was shown before are checked (:meth:`_allowed`)."""
        options: list[Trade | Candidate] = list(self._trades(summary))
        if self.aims_at_decision and summary.best is not None:
            share = np.bincount(summary.best, weights=summary.weights, minlength=len(self._front))
            live = {int(self._front[i]) for i in np.flatnonzero(share >= MIN_BEST_SHARE)}
            options.extend(c for (i, j), c in self._pairs.items() if i in live and j in live)
        return options

    def _allowed(self, state: JointState, option: Trade | Candidate) -> ShownKey | None:
        """The option's shown key when it may be asked now, else ``None``: a person could
        not read it, it was shown ``MAX_SHOWS`` times or answered "can't tell", or (a
        trade) its exchange rate lies within ``UNSURE_GAP`` of one answered "can't tell"
        on the same two statistics."""
        key = option.shown if isinstance(option, Candidate) else self._shown_key(option.query)
        if key is None:
            return None
        shows = sum(r.shown == key for r in state.records)
        if shows >= MAX_SHOWS or any(r.shown == key and r.outcome == 2 for r in state.records):
            return None
        t = option.query.threshold
        if isinstance(option, Trade) and t is not None:
            for r in state.records:
                if (
                    r.outcome == 2
                    and r.pair == option.query.pair
                    and r.threshold is not None
                    and abs(logit(t) - logit(r.threshold)) < UNSURE_GAP
                ):
                    return None
        return key

    def _scores(
        self, summary: Summary, state: JointState, options: Sequence[Trade | Candidate]
    ) -> FloatArray:
        """The loss left after each question (lower is better), by a one-step look-ahead
        over its three answers and the particles (see the module docstring)."""
        a, w, noise = summary.natural, summary.weights, state.noise
        psi, best = summary.psi, summary.best
        if summary.exact_psi is not None:
            # Answers settle the weights, not the measurements: score what they can settle.
            psi, best = summary.exact_psi, summary.exact_best
        deciding = self.aims_at_decision and psi is not None and best is not None
        if deciding:
            assert psi is not None and best is not None
            # The particles grouped by their best candidate, so that P(answer, best) is a
            # sum over consecutive columns.
            order = np.argsort(best, kind="stable")
            a, w, noise, psi, best = a[order], w[order], noise[order], psi[order], best[order]
        diffs = np.array([c.diff for c in options])  # (Q, n)
        n_q = len(options)
        lapse, temp, band = self.noise_grid.values(noise)
        # P(particle, answer): a row per (answer, question), a column per particle.
        delta = diffs @ a.T  # (Q, N)
        flat = answer_probabilities(delta, lapse, temp, band, w).reshape(3 * n_q, len(w))
        if deciding:
            assert psi is not None and best is not None
            top = psi.max(axis=1)
            spread = float(w @ (top - psi.min(axis=1))) or 1.0
            # Expected regret of the Bayes pick after each answer:
            # E[max_m ψ_m] − Σ_answers max_m Σ_n P(n, answer)·ψ_nm.
            value = (flat @ psi).reshape(3, n_q, -1).max(axis=2).sum(axis=0)
            regret = (float(w @ top) - value) / spread
            # Information each answer carries about which candidate is best (nats):
            # P(answer, best) sums P(particle, answer) over the particles of each best.
            present, starts = np.unique(best, return_index=True)
            by_best = np.zeros((3 * n_q, psi.shape[1]))
            by_best[:, present] = np.add.reduceat(flat, starts, axis=1)
            p_joint = by_best.reshape(3, n_q, -1)
            p_answer = p_joint.sum(axis=2, keepdims=True)
            p_best = p_joint.sum(axis=0, keepdims=True)
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = np.where(p_joint > 0, p_joint / (p_answer * p_best), 1.0)
            info = (p_joint * np.log(ratio)).sum(axis=(0, 2))
            out: FloatArray = np.maximum(regret, 0.0) - INFORMATION_WEIGHT * info
            return out
        flat = flat.reshape(3, n_q, -1).transpose(2, 1, 0).reshape(len(w), n_q * 3)
        # Expected L1 error of the swing weights' posterior mean after each answer.
        s = state.swing
        p_answer = flat.sum(axis=0)  # (Q*3,)
        with np.errstate(invalid="ignore", divide="ignore"):
            means = (flat.T @ s) / p_answer[:, None]  # (Q*3, n)
        means = np.nan_to_num(means)
        loss = np.empty(n_q * 3)
        for col in range(n_q * 3):
            loss[col] = flat[:, col] @ np.abs(s - means[col]).sum(axis=1)
        return np.asarray(loss.reshape(n_q, 3).sum(axis=1), dtype=np.float64)

    def unasked(self, state: JointState) -> tuple[int, ...]:
        """The statistics on which the candidates still possibly best (each best for at
        least ``MIN_BEST_SHARE`` of the posterior) read differently on the screen, but no
        answer yet showed two options that differ on them: the answers have said nothing
        about their weights, which only the prior holds."""
        s = self.posterior.summary(state)
        if s.p_best is None:
            return ()
        # What the answers can settle: who may be best at the measured numbers.
        shares = s.p_best if s.exact_p_best is None else s.exact_p_best
        live = [i for i, x in enumerate(shares) if settled(float(x)) >= MIN_BEST_SHARE]
        if len(live) < 2:
            return ()
        lines = self._lines[live]
        differ = (lines != lines[0]).any(axis=0)
        asked = np.zeros(self.space.n_weights, dtype=bool)
        for r in state.records:
            asked |= np.asarray(r.differs, dtype=bool)
        return tuple(int(j) for j in np.flatnonzero(differ & ~asked))

    def _covering(self, state: JointState) -> list[Trade | Candidate]:
        """The questions that may be asked now and show two options differing on a
        statistic of :meth:`unasked` (kept for the state: the stop and the choice of a
        question both read them)."""
        known = self._covers.get(state)
        if known is not None:
            return known
        unasked = self.unasked(state)
        out: list[Trade | Candidate] = []
        if unasked:
            out = [
                o
                for o in self._options(self.posterior.summary(state))
                if any(o.differs[j] for j in unasked) and self._allowed(state, o) is not None
            ]
        if len(self._covers) >= SUMMARIES_KEPT:
            self._covers.clear()
        self._covers[state] = out
        return out

    def may_stop_decided(self, state: JointState) -> bool:
        """A settled pick ends the questions only once every aspect on which the
        candidates still possibly best differ has been on the table in some answer (or
        no question a person could answer would put it there): a pick the prior alone
        settles for an aspect never asked about is the prior's, not the person's."""
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
        # Scores equal to DIGITS digits fall in the options' order on every machine.
        for index in stable_order(scores):
            option = options[int(index)]
            key = self._allowed(state, option)
            if key is None:
                continue
            query = option.query
            repeat = next(
                (i for i in range(state.answered - 1, -1, -1) if state.records[i].shown == key),
                None,
            )
            if np.random.default_rng([self.seed, state.answered]).random() >= 0.5:
                query = query.swapped()
            if repeat is not None:
                query = replace(query, repeat_of=repeat)
            return query
        return None  # nothing left that a person could tell apart

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


def _readable(space: QuerySpace, query: Query) -> bool:
    """Whether a person could tell two candidate models apart on the screen: they read
    differently and each is better on something (else one reads better on every line)."""
    lines = card_lines(space.scenario, query.left, query.right)
    differing = [line for line in lines if line.differs]
    return (
        bool(differing)
        and any(x.better for x in differing)
        and not all(x.better for x in differing)
    )
