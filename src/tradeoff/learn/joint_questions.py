"""The questions strategy `joint` may ask on one question space: trades between a class
and any other statistic, aimed at the posterior's quantiles of their exchange rate
(``TRADE_QUANTILES``) at a few sizes (``TRADE_SHARES``), and pairs of non-dominated candidate
models a person can tell apart on the screen, each as the screen shows it; and which of
them may be asked now (not shown ``MAX_SHOWS`` times, not answered "can't tell", nor a trade
within ``UNSURE_GAP`` of such an exchange rate: :meth:`Questions.allowed`). They are pure
functions of the question space, so they are built once per process and shared by every
strategy on that space (:data:`_TRADES`, :data:`_SHOWN_TRADES`, :data:`_READABLE`,
:data:`_FRONTS`, keyed by :func:`space_key`). Which one is asked is
:mod:`~tradeoff.learn.lookahead`'s score and :class:`~tradeoff.learn.joint.JointStrategy`'s
choice.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import TypeVar

import numpy as np

from tradeoff.arrays import FloatArray, IntArray
from tradeoff.ask.queries import ClassifierProfile, Query, QuerySpace, profile_key
from tradeoff.ask.shown import (
    ShownKey,
    as_shown,
    card_lines,
    question_key,
    shown_options,
    shown_profile,
    unanswerable,
)
from tradeoff.learn.base import asked_aspects, logit
from tradeoff.learn.joint_state import JointState
from tradeoff.learn.particles import Summary, weighted_quantiles
from tradeoff.learn.posterior import MAX_SHOWS, UNSURE_GAP, non_dominated
from tradeoff.stable import canonical

__all__ = [
    "MIN_BEST_SHARE",
    "TRADE_AIM_DIGITS",
    "TRADE_QUANTILES",
    "TRADE_SHARES",
    "Candidate",
    "Front",
    "Questions",
    "Trade",
    "space_key",
]


TRADE_QUANTILES = (0.1, 0.3, 0.5, 0.7, 0.9)
#: Sizes of a trade, as shares of the ranges (:meth:`~tradeoff.ask.queries.QuerySpace.trade`);
#: a trade that cannot be read at the first size is tried at the whole range.
TRADE_SHARES = (0.6, 0.9)
#: A trade is aimed at its target exchange rate rounded to this many decimals in logit m
#: (a factor 1.01 in the weight ratio, finer than the screen's rounding), so trades are
#: built once per rounded target.
TRADE_AIM_DIGITS = 2
#: Candidate models best for less than this share of the posterior are not asked about.
MIN_BEST_SHARE = 1e-3


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


@dataclass(frozen=True)
class Trade:
    """A trade as a question: the query as shown, v(left) − v(right), and the two options'
    :func:`~tradeoff.ask.queries.profile_key` (two trades that read the same are one)."""

    query: Query
    diff: FloatArray
    keys: tuple[str, str]
    #: The question space, whose scenario's cards :attr:`differs` reads.
    space: QuerySpace = field(compare=False, repr=False)

    @cached_property
    def differs(self) -> tuple[bool, ...]:
        """Per statistic, whether the two cards' lines for it read differently (read on
        first use: most trades built are scored, few are asked about an unasked aspect)."""
        return asked_aspects(self.space.scenario, (self.query,))


#: Trades and what a person can read of them are pure functions of the question space (the
#: scenario, its priors, whether options show context and are rounded as shown), so every
#: strategy on the same space shares them: a study's server, a benchmark and a replay build
#: each trade once. Keyed by :func:`space_key` first; cleared when it grows past its bound.
_TRADES: dict[tuple[str, int, int, float, float], Trade] = {}
#: The same trades by the two options as the screen shows them and the two statistics
#: (trades aimed at neighbouring exchange rates often read the same: built once).
_SHOWN_TRADES: dict[tuple[str, ClassifierProfile, ClassifierProfile, tuple[int, int]], Trade] = {}
_READABLE: dict[tuple[str, ClassifierProfile, ClassifierProfile], ShownKey | None] = {}
#: The non-dominated candidates and the questions about two of them, by question space and
#: candidates (:meth:`Questions.front`).
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


def space_key(space: QuerySpace, rounded: bool) -> str:
    """A digest of everything a trade and its readability depend on: the scenario, its
    priors at :data:`~tradeoff.stable.DIGITS` digits, the options' context and rounding."""
    parts = (space.scenario.model_dump_json(), canonical(space.priors), space.context, rounded)
    text = "|".join(str(x) for x in parts)
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


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


@dataclass(frozen=True)
class Questions:
    """The questions on one question space, as the screen shows them (``rounded``: the
    options rounded as shown), built once per process and shared (see the module
    docstring)."""

    space: QuerySpace
    rounded: bool
    #: :func:`space_key` of the space (the key of the shared caches).
    key: str = field(init=False)
    #: The last summary :meth:`trades` was asked about and its trades (at most one).
    _last_trades: list[tuple[Summary, tuple[Trade, ...]]] = field(
        default_factory=list, init=False, compare=False, repr=False
    )
    #: The last state :meth:`allowed` read and what it read of its answers.
    _last_shown: list[
        tuple[
            JointState,
            tuple[dict[ShownKey, int], set[ShownKey], list[tuple[tuple[int, int] | None, float]]],
        ]
    ] = field(default_factory=list, init=False, compare=False, repr=False)
    #: The last exchange rates :meth:`_order` sorted (their bytes) and their order.
    _last_order: list[tuple[bytes, IntArray]] = field(
        default_factory=list, init=False, compare=False, repr=False
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", space_key(self.space, self.rounded))

    # -- statistics of options ----------------------------------------------------------

    @cached_property
    def _attribute_signs(self) -> FloatArray:
        return np.array([-1.0 if a.kind == "cost" else 1.0 for a in self.space.scenario.attributes])

    def _signs(self) -> FloatArray:
        return self._attribute_signs

    def vector(self, profile: ClassifierProfile) -> FloatArray:
        """The statistics ψ is linear in: d, then each attribute signed."""
        out: FloatArray = np.concatenate(
            (
                np.asarray(profile.accuracies, dtype=np.float64),
                self._signs() * np.asarray(profile.attributes, dtype=np.float64),
            )
        )
        return out

    def candidate_profile(self, row: FloatArray) -> ClassifierProfile:
        """A candidate's ``row`` (in the metric's terms) as the screen shows it: recalls
        d_i/ζ_i per 1,000 and every attribute in its natural unit, rounded as its format
        shows it."""
        k = self.space.k
        priors = self.space.priors
        accuracies = tuple(float(x) for x in row[:k])
        recalls = tuple(d / z if z > 0 else 0.0 for d, z in zip(accuracies, priors, strict=True))
        attributes = tuple(float(x) for x in self._signs() * row[k:])
        return shown_profile(
            self.space.scenario, ClassifierProfile(accuracies, recalls, attributes)
        )

    # -- the questions about two candidates ---------------------------------------------

    def front(self, rows: FloatArray, everyone: bool = False) -> Front:
        """:meth:`_front` of the candidates ``rows``, shared by every strategy on the same
        space and candidates."""
        key = (self.key, hashlib.blake2b(rows.tobytes()).hexdigest() + str(rows.shape), everyone)
        return _FRONTS.get(key) or _kept(_FRONTS, key, self._front(rows, everyone), 64)

    def _front(self, rows: FloatArray, everyone: bool = False) -> Front:
        """The non-dominated candidates (``everyone``: all candidates), every pair of
        non-dominated ones a person could tell apart on the screen as a question, the
        candidates by the key of their shown profile, and their card lines (a pure function
        of the question space and the candidates: shared by every strategy)."""
        asked = {int(i) for i in non_dominated(rows)}
        front = np.arange(len(rows), dtype=np.intp) if everyone else non_dominated(rows)
        pairs: dict[tuple[int, int], Candidate] = {}
        shown_rows: dict[str, int] = {}
        profiles = {int(i): self.candidate_profile(rows[int(i)]) for i in front}
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
                    self.vector(left) - self.vector(right),
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

    # -- trades -------------------------------------------------------------------------

    def trades(self, summary: Summary) -> list[Trade]:
        """Trades between every class and every other statistic, aimed at the posterior
        quantiles of their exchange rate, at the sizes of ``TRADE_SHARES``, as the screen
        shows them (not yet checked for what a person can read). The trades of the last
        summary asked about are kept: the stop's check and the choice of a question both
        read them for the same state."""
        last = self._last_trades
        if last and last[0][0] is summary:
            return list(last[0][1])
        out = self._trades(summary)
        last[:] = [(summary, tuple(out))]
        return out

    def _trades(self, summary: Summary) -> list[Trade]:
        """:meth:`trades`, built."""
        space = self.space
        a, w = summary.natural, summary.weights
        out: list[Trade] = []
        # Two trades that are the same in exact arithmetic are one option on every machine.
        seen: set[tuple[str, str]] = set()
        pairs = [(i, j) for i in space.references for j in range(i + 1, space.n_weights)]
        m = np.stack([a[:, i] / (a[:, i] + a[:, j]) for i, j in pairs], axis=1)
        targets = weighted_quantiles(m, w, TRADE_QUANTILES, self._order(m))
        for col, (i, j) in enumerate(pairs):
            for target in targets[:, col]:
                aim = round(logit(float(target)), TRADE_AIM_DIGITS)
                for share in TRADE_SHARES:
                    t = self.trade(i, j, aim, share)
                    if t.keys in seen:
                        continue
                    seen.add(t.keys)
                    out.append(t)
        return out

    def _order(self, rates: FloatArray) -> IntArray:
        """``np.argsort(rates, axis=0)``, kept for the last ``rates``: the particles, and so
        their exchange rates, stay the same from answer to answer until they are moved
        (only their weights change)."""
        data = rates.tobytes()
        last = self._last_order
        if last and last[0][0] == data and last[0][1].shape == rates.shape:
            return last[0][1]
        order: IntArray = np.argsort(rates, axis=0)
        last[:] = [(data, order)]
        return order

    def trade(self, i: int, j: int, aim: float, share: float) -> Trade:
        """The trade of statistic ``i`` (a class) against ``j`` at the exchange rate
        logit m = ``aim`` and size ``share``, as the screen shows it (cached: a pure
        function of its arguments and the question space, shared by every strategy on it)."""
        key = (self.key, i, j, aim, share)
        cached = _TRADES.get(key)
        if cached is not None:
            return cached
        space = self.space
        query = space.trade(i, j, 1.0 / (1.0 + math.exp(-aim)), share)
        same: tuple[str, ClassifierProfile, ClassifierProfile, tuple[int, int]] | None = None
        if self.rounded:
            # As shown, the trade is a function of its two options as shown and its two
            # statistics (its threshold is the shown options'): built once for all aims
            # that read the same.
            options = shown_options(space, query)
            same = (self.key, *options, query.pair)
            built = _SHOWN_TRADES.get(same)
            if built is not None:
                return _kept(_TRADES, key, built)
            query = as_shown(space, query, options)
        keys = (profile_key(query.left), profile_key(query.right))
        diff = self.vector(query.left) - self.vector(query.right)
        built = Trade(query, diff, keys, space)
        if same is not None:
            _kept(_SHOWN_TRADES, same, built)
        return _kept(_TRADES, key, built)

    def shown_key(self, query: Query) -> ShownKey | None:
        """The trade's two options as the screen shows them
        (:func:`~tradeoff.ask.shown.question_key`), or ``None`` when a person could not
        answer it from the screen (cached, shared by every strategy on the same space)."""
        key = (self.key, query.left, query.right)
        if key in _READABLE:
            return _READABLE[key]
        out: ShownKey | None = None
        if not self.rounded or unanswerable(self.space.scenario, query) is None:
            out = question_key(self.space, query, self.rounded)
        return _kept(_READABLE, key, out)

    # -- what may be asked now ------------------------------------------------------------

    def allowed(self, state: JointState, option: Trade | Candidate) -> ShownKey | None:
        """The option's shown key when it may be asked now, else ``None``: a person could
        not read it, it was shown ``MAX_SHOWS`` times or answered "can't tell", or (a
        trade) its exchange rate lies within ``UNSURE_GAP`` of one answered "can't tell"
        on the same two statistics."""
        # What the answers so far showed first (gathered once per state), then the option.
        shows, unsure, rates = self._shown_before(state)
        key = option.shown if isinstance(option, Candidate) else self.shown_key(option.query)
        if key is None:
            return None
        if shows.get(key, 0) >= MAX_SHOWS or key in unsure:
            return None
        t = option.query.threshold
        if isinstance(option, Trade) and t is not None:
            for pair, threshold in rates:
                if pair == option.query.pair and abs(logit(t) - logit(threshold)) < UNSURE_GAP:
                    return None
        return key

    def _shown_before(
        self, state: JointState
    ) -> tuple[dict[ShownKey, int], set[ShownKey], list[tuple[tuple[int, int] | None, float]]]:
        """What :meth:`allowed` reads of the answers so far, gathered once per state (the
        last one asked about): how often each question was shown, the questions answered
        "can't tell", and the two statistics and exchange rate of each trade answered so."""
        last = self._last_shown
        if last and last[0][0] is state:
            return last[0][1]
        shows: dict[ShownKey, int] = {}
        unsure: set[ShownKey] = set()
        rates: list[tuple[tuple[int, int] | None, float]] = []
        for r in state.records:
            shows[r.shown] = shows.get(r.shown, 0) + 1
            if r.outcome == 2:
                unsure.add(r.shown)
                if r.threshold is not None:
                    rates.append((r.pair, r.threshold))
        last[:] = [(state, (shows, unsure, rates))]
        return shows, unsure, rates
