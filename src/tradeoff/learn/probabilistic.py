"""Strategy `probabilistic`: probabilistic bisection of every weight ratio, robust to errors.

Each ratio i (class 1 against weight i+1) has a posterior over the swing-scaled
ℓ_i = log(w₁·span₁ / (w_{i+1}·span_{i+1})) (see
:func:`~tradeoff.learn.base.scale_shift`), on a grid, with the prior that a flat
Dirichlet over swing weights implies (m'_i = σ(ℓ_i) uniform on [0, 1]); with
``precision = "natural"`` a fifth of it is the prior a flat Dirichlet over natural-unit
weights implies (m_i = σ(ℓ_i + shift_i) uniform, the scale in which paper 004 draws and
scores weights; ``NATURAL_PRIOR_SHARE``). With the swing prior alone, a natural-unit truth
that puts much weight on a statistic of wide range (a cost over [0, 18]) starts far in the
prior's tail, and a small weight on class 1, the reference of every ratio, left such a
ratio unsettled after 40 exact answers (L1 0.0023 where 0.002 was the goal). Every question is
a chord question (see :mod:`~tradeoff.learn.bisection`) whose exact threshold t says
"m_i > t" or "m_i < t". As in probabilistic bisection (Horstein 1963; Waeber, Frazier &
Henderson 2013) an answer is believed with probability 1 − p: the posterior on the answer's side is
multiplied by 1 − p and the other side by p, and the next question on that ratio sits at
its posterior median.

* **Error rate.** p is not fixed: the engine keeps a posterior over p on a grid, with a
  Beta prior centred on the assumed rate, and the marginal likelihood of all answers for
  each p (answers that contradict each other, above all a question and its repeat with the
  sides swapped, are evidence of errors). The ratio posteriors are the p-mixture.
* **"Can't tell"** is information: the likelihood is 1 within ``INDIFFERENCE_BAND`` of the
  threshold in ℓ (a factor e^0.35 ≈ 1.4 in the weight ratio) and ``INDIFFERENCE_OUTSIDE``
  elsewhere. No later question on that ratio lies within ``UNSURE_GAP`` of it.
* **Where to ask.** Candidate questions are every ratio at the posterior quantiles
  ``QUESTION_QUANTILES`` (the median first, as in probabilistic bisection). For each the
  engine computes the expected L1 error of the estimated weights after the answer (a
  one-step look-ahead over seeded Monte Carlo draws of all ratios, with the answer's
  likelihood under the estimated error rate), in swing or natural-unit weights as
  ``[elicitation] precision`` says, and asks the one that lowers it most. The median
  splits the likely values best, but after an early wrong answer the truth sits in a tail
  the median cannot test; a tail quantile then lowers the expected error more, and the
  wrong answer gets corrected. The options are rounded to what the screen shows, which
  moves the threshold a question tests; when it would miss the aimed-at quantile by more
  than ``AIM`` of the ratio's interquartile range, a trade of another size whose rounded
  threshold lies closer is shown (:func:`~tradeoff.learn.bisection.chord_query`), so
  questions go on narrowing a ratio long after a fixed-size trade would have rounded to a
  pair already shown.
* **Uncertainty.** 90% credible intervals per weight come from seeded Monte Carlo draws of
  all ratios from their posteriors.
* **Consistency.** Every ``repeat_every`` questions an earlier question is asked again with
  the sides swapped: the one whose answer would lower the expected error most (by the same
  look-ahead), so that a slip can be undone as well as counted.
* **Stopping.** At the budget, or once every weight's interval is narrower than
  ``target_width``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray

from tradeoff.arrays import FloatArray
from tradeoff.ask.queries import ClassifierProfile, Query
from tradeoff.ask.shown import ShownKey, question_key, unanswerable
from tradeoff.learn.base import (
    Choice,
    ElicitationResult,
    logit,
    scale_shift,
)
from tradeoff.learn.bisection import chord_query, prefers_reference, reference_left
from tradeoff.learn.posterior import (
    MAX_SHOWS,
    NATURAL_PRIOR_SHARE,
    UNSURE_GAP,
    PosteriorStrategy,
    non_dominated,
    repeats,
    shows,
)
from tradeoff.stable import sigmoid, stable_argmax, stable_order

GRID_POINTS = 8192
LOGIT_RANGE = 14.0
INDIFFERENCE_BAND = 0.35
INDIFFERENCE_OUTSIDE = 0.2
ERROR_GRID = np.array(
    [0.002, 0.01, 0.02, 0.035, 0.05, 0.075, 0.1, 0.13, 0.16, 0.2, 0.25, 0.3, 0.35, 0.42]
)
PRIOR_STRENGTH = 4.0
MC_DRAWS = 2000
#: Posterior quantiles at which a ratio may be asked about (the median first: it wins ties).
QUESTION_QUANTILES = (0.5, 0.25, 0.75, 0.1, 0.9, 0.03, 0.97)
#: How close to its target quantile a question's shown threshold must lie, as a share of
#: the ratio's interquartile range in ℓ (:meth:`ProbabilisticStrategy._tolerance`). Without
#: it (benchmarks/results/people.md, before and after): exact answers reached a median L1
#: error of 0.0054 (breast-cancer-triage) and 0.0073 (glaucoma-screening) after 40
#: questions, the same as after 30; with it, 0.0003 and 0.0004.
AIM = 0.1
#: Weight of the weights' expected error beside the expected regret when questions aim at
#: the decision (it only breaks ties between questions that settle the pick equally).
DECISION_TIE_BREAK = 1e-3


def beta_pdf(x: FloatArray, a: float, b: float) -> FloatArray:
    """The Beta(a, b) density at ``x`` in (0, 1), as ``scipy.stats.beta.pdf`` gives it.

    Written out (log B(a, b) from ``math.lgamma``) because importing ``scipy.stats`` costs
    a participant's process over a second before its first question; a test checks it
    against scipy.

    >>> round(float(beta_pdf(np.array([0.5]), 2.0, 2.0)[0]), 12)
    1.5
    """
    log_b = math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)
    with np.errstate(divide="ignore"):
        out: FloatArray = np.exp((a - 1) * np.log(x) + (b - 1) * np.log1p(-x) - log_b)
    return out


@dataclass(frozen=True)
class Record:
    """One answer as the posterior sees it.

    ``side`` is +1 if the answer prefers the option with more class-1 accuracy (m > t),
    −1 if it prefers the other (m < t), 0 for "can't tell".
    """

    ratio: int
    threshold: float
    #: The option with more class-1 accuracy, and the other one.
    reference: ClassifierProfile
    alternative: ClassifierProfile
    reference_left: bool
    side: int
    repeat_of: int | None = None
    #: The two options as the screen showed them (:func:`~tradeoff.ask.shown.shown_pair`).
    shown: ShownKey = ((), ())


@dataclass(frozen=True)
class ProbabilisticState:
    records: tuple[Record, ...] = ()

    @property
    def answered(self) -> int:
        return len(self.records)


@dataclass(frozen=True)
class Posterior:
    """Mixture posterior over every ratio's ℓ and over the error rate p."""

    cdf: FloatArray  # (ratios, G + 1) cumulative mass at the grid's cell edges
    error_weights: FloatArray  # posterior over ERROR_GRID
    #: Seeded stratified draws of every ratio's scaled ℓ, (MC_DRAWS, ratios), made once per
    #: state for the intervals and the look-ahead alike, and the order that sorts each column.
    draws: FloatArray = field(repr=False, compare=False)
    orders: NDArray[np.intp] = field(repr=False, compare=False)

    @property
    def error_rate(self) -> float:
        return float(np.dot(self.error_weights, ERROR_GRID))

    def quantile(self, ratio: int, q: float | FloatArray) -> FloatArray:
        """ℓ quantiles of one ratio, interpolating the CDF linearly inside cells."""
        out: FloatArray = np.asarray(np.interp(q, self.cdf[ratio], _EDGES), dtype=np.float64)
        return out


_EDGES = np.linspace(-LOGIT_RANGE, LOGIT_RANGE, GRID_POINTS + 1)
_CENTRES = (_EDGES[:-1] + _EDGES[1:]) / 2
_CELL = float(_EDGES[1] - _EDGES[0])


def _log_prior() -> FloatArray:
    # m uniform on [0, 1]: mass of a cell is m(1 − m) dℓ.
    m = sigmoid(_CENTRES)
    out: FloatArray = np.log(m * (1 - m))
    return out


_LOG_PRIOR = _log_prior()


def _weights_from_logits(logits: FloatArray, shifts: FloatArray) -> FloatArray:
    """Normalised weights from scaled ℓ_i (rows of ``logits`` are draws).

    log(w_{i+1}/w₁) = −(ℓ_i + shift_i) with shift_i from :func:`scale_shift`.
    """
    raw = np.concatenate((np.zeros((*logits.shape[:-1], 1)), -(logits + shifts)), axis=-1)
    raw = np.exp(raw - raw.max(axis=-1, keepdims=True))
    out: FloatArray = raw / raw.sum(axis=-1, keepdims=True)
    return out


def _stratified_draws(
    cdf: FloatArray, rng: np.random.Generator
) -> tuple[FloatArray, NDArray[np.intp]]:
    """Stratified draws of every ratio's ℓ from its CDF, and the order sorting each column
    (draws are quantiles of a permuted stratified grid, so the inverse permutation sorts
    them)."""
    ratios = cdf.shape[0]
    draws = np.empty((MC_DRAWS, ratios))
    orders = np.empty((MC_DRAWS, ratios), dtype=np.intp)
    for i in range(ratios):
        perm = rng.permutation(MC_DRAWS)
        draws[:, i] = np.interp((perm + rng.random(MC_DRAWS)) / MC_DRAWS, cdf[i], _EDGES)
        orders[perm, i] = np.arange(MC_DRAWS)
    return draws, orders


def _intervals(draws: FloatArray) -> tuple[tuple[float, float], ...]:
    """The 5% and 95% quantiles of every column."""
    lo, hi = np.quantile(draws, [0.05, 0.95], axis=0)
    return tuple((float(a), float(b)) for a, b in zip(lo, hi, strict=True))


@dataclass(frozen=True)
class ProbabilisticStrategy(PosteriorStrategy[ProbabilisticState]):
    """Probabilistic bisection with an estimated error rate (see the module docstring).

    The candidates it aims at (``candidates``) are kept without the dominated ones, and the
    pick is not called settled before every ratio has had one answer; precise weights stop
    the questions even while they aim at the pick.
    """

    name: str = field(default="probabilistic", init=False)
    #: An answer is a likelihood on the asked ratio at the question's recorded threshold.
    learns_from_any_question: bool = field(default=True, init=False)
    _cache: dict[ProbabilisticState, Posterior] = field(
        default_factory=dict, compare=False, repr=False
    )
    #: Log prior mass of every grid cell per ratio (:meth:`_log_prior`, built once).
    _prior: FloatArray = field(init=False, compare=False, repr=False)

    precise_while_deciding: ClassVar[bool] = True

    def __post_init__(self) -> None:
        if self.candidates is not None:
            rows = np.asarray(self.candidates, dtype=np.float64)
            object.__setattr__(self, "candidates", rows[non_dominated(rows)])
        object.__setattr__(self, "_prior", self._log_prior())

    @property
    def n_ratios(self) -> int:
        return self.space.n_weights - 1

    @property
    def first_decision(self) -> int:
        """The pick is not called settled before every ratio has had one answer."""
        return self.n_ratios

    @property
    def shifts(self) -> FloatArray:
        return np.array([scale_shift(self.space, i) for i in range(self.n_ratios)])

    def initial(self) -> ProbabilisticState:
        return ProbabilisticState()

    # -- posterior --------------------------------------------------------------------

    def _error_log_prior(self) -> FloatArray:
        p0 = min(max(self.spec.error_rate, 0.005), 0.4)
        a, b = p0 * PRIOR_STRENGTH, (1 - p0) * PRIOR_STRENGTH
        widths = np.gradient(ERROR_GRID)
        out: FloatArray = np.log(np.maximum(beta_pdf(ERROR_GRID / 0.5, a, b) * widths, 1e-300))
        return out

    def _log_prior(self) -> FloatArray:
        """Log prior mass of every grid cell, per ratio: flat over swing weights (m' = σ(ℓ)
        uniform), or, with ``precision = "natural"``, the mixture NATURAL_PRIOR_SHARE × flat
        over natural-unit weights (m = σ(ℓ + shift) uniform: the scale in which paper 004
        draws and scores weights) + the rest × flat over swing weights."""
        if self.spec.precision != "natural":
            return np.broadcast_to(_LOG_PRIOR, (self.n_ratios, GRID_POINTS))
        m = sigmoid(_CENTRES[None, :] + self.shifts[:, None])
        natural = m * (1 - m)
        swing = np.exp(_LOG_PRIOR)[None, :]
        share = NATURAL_PRIOR_SHARE
        out: FloatArray = np.log(np.maximum(share * natural + (1 - share) * swing, 1e-300))
        return out

    def posterior(self, state: ProbabilisticState) -> Posterior:
        """The posterior after ``state``'s answers (cached per state)."""
        cached = self._cache.get(state)
        if cached is not None:
            return cached
        r = self.n_ratios
        agree = np.zeros((r, GRID_POINTS))
        disagree = np.zeros((r, GRID_POINTS))
        log_ind = np.zeros((r, GRID_POINTS))
        # The cell a threshold falls in is split: (ratio, cell, share of it on the answer's side).
        split: list[tuple[int, int, float]] = []
        shifts = self.shifts
        for rec in state.records:
            lt = logit(rec.threshold) - shifts[rec.ratio]
            if rec.side == 0:
                inside = np.abs(_CENTRES - lt) < INDIFFERENCE_BAND
                log_ind[rec.ratio] += np.where(inside, 0.0, math.log(INDIFFERENCE_OUTSIDE))
                continue
            above = np.clip((_EDGES[1:] - lt) / _CELL, 0.0, 1.0)
            consistent = above if rec.side > 0 else 1.0 - above
            whole = (consistent == 0.0) | (consistent == 1.0)
            agree[rec.ratio] += np.where(whole, consistent, 0.0)
            disagree[rec.ratio] += np.where(whole, 1.0 - consistent, 0.0)
            split.extend((rec.ratio, int(c), float(consistent[c])) for c in np.flatnonzero(~whole))
        log_p = np.log(ERROR_GRID)[:, None, None]
        log_q = np.log1p(-ERROR_GRID)[:, None, None]
        # (errors, ratios, grid) unnormalised log posterior
        logpost = self._prior + log_ind + agree * log_q + disagree * log_p
        for ratio, cell, share in split:
            # Exact likelihood of a cell the threshold cuts: ℓ uniform within the cell.
            logpost[:, ratio, cell] += np.log(share * (1 - ERROR_GRID) + (1 - share) * ERROR_GRID)
        peak = logpost.max(axis=2, keepdims=True)
        mass = np.exp(logpost - peak)
        log_evidence = np.log(mass.sum(axis=2)) + peak[..., 0]  # (errors, ratios)
        log_w = self._error_log_prior() + log_evidence.sum(axis=1)
        w = np.exp(log_w - log_w.max())
        w /= w.sum()
        cell = mass / mass.sum(axis=2, keepdims=True)
        mixed = np.tensordot(w, cell, axes=(0, 0))  # (ratios, grid)
        cdf = np.concatenate((np.zeros((r, 1)), np.cumsum(mixed, axis=1)), axis=1)
        cdf /= cdf[:, -1:]
        draws, orders = _stratified_draws(
            cdf, np.random.default_rng([self.seed, state.answered, 90])
        )
        post = Posterior(cdf, w, draws, orders)
        if len(self._cache) > 256:
            self._cache.clear()
        self._cache[state] = post
        return post

    def _medians(self, post: Posterior) -> FloatArray:
        return np.array([float(post.quantile(i, 0.5)) for i in range(self.n_ratios)])

    def draws(self, state: ProbabilisticState) -> FloatArray:
        """Seeded Monte Carlo draws of the normalised weights from the posterior."""
        return _weights_from_logits(self.posterior(state).draws, self.shifts)

    def weight_draws(self, state: ProbabilisticState) -> FloatArray:
        """The posterior's seeded draws of the normalised weights (same as :meth:`draws`)."""
        return self.draws(state)

    def intervals(self, state: ProbabilisticState) -> tuple[tuple[float, float], ...]:
        """90% credible interval of every normalised weight."""
        return _intervals(self.draws(state))

    # -- questions --------------------------------------------------------------------

    def _expected_loss(
        self,
        state: ProbabilisticState,
        post: Posterior,
        candidates: list[tuple[int, float]],
    ) -> FloatArray:
        """Expected L1 error of the estimate after asking each candidate (ratio, ℓ threshold).

        One-step look-ahead on the posterior's draws. Each draw predicts the three answers:
        "can't tell" with probability κ·L₀ (L₀ the "can't tell" likelihood of
        :meth:`posterior`; κ the share of "can't tell" answers among earlier questions on
        that ratio within the band of this threshold, shrunk toward the share among all
        answers), else the side it lies on with probability 1 − p and the other with p (p
        the posterior mean error rate). Each answer reweights the draws, the estimate's ℓ_i
        becomes the reweighted median, and the loss is the reweighted mean L1 distance
        between the draws' weights and the estimate's, summed over the answers, in the scale
        ``spec.precision`` names: swing weights (weight × range) decide between real
        models (an attribute whose natural weight is tiny because its unit is small, per KB,
        can still decide which model wins); natural-unit weights are the scale of paper
        004's Table 1. A question someone keeps answering "can't tell" thus stops looking
        useful, and the next goes elsewhere.
        """
        draws, orders = post.draws, post.orders
        shifts = np.zeros(self.n_ratios) if self.spec.precision == "swing" else self.shifts
        weights = _weights_from_logits(draws, shifts)
        decide = self.aims_at_decision
        if decide:
            assert self.candidates is not None
            psi = _weights_from_logits(draws, self.shifts) @ self.candidates.T  # (N, M)
            top = psi.max(axis=1)
            spread = float(np.mean(top - psi.min(axis=1))) or 1.0
            regret_out = np.empty(len(candidates))
        medians = self._medians(post)
        p = post.error_rate
        records = state.records
        overall = (sum(r.side == 0 for r in records) + 0.5) / (state.answered + 10.0)
        asked_ratio = np.array([r.ratio for r in records], dtype=np.intp)
        asked_at = np.array([logit(r.threshold) - self.shifts[r.ratio] for r in records])
        asked_unsure = np.array([r.side == 0 for r in records], dtype=np.float64)
        ratios = np.array([c[0] for c in candidates], dtype=np.intp)
        thresholds = np.array([c[1] for c in candidates], dtype=np.float64)
        out = np.empty(len(candidates))
        for i in np.unique(ratios):
            sel = np.flatnonzero(ratios == i)
            lts = thresholds[sel, None]  # (T, 1)
            mine = asked_ratio == i
            near = np.abs(asked_at[mine][None, :] - lts) < INDIFFERENCE_BAND
            kappa = (near @ asked_unsure[mine] + 2.0 * overall) / (near.sum(axis=1) + 2.0)
            order = orders[:, i]
            values = draws[order, i][None, :]  # (1, N), ascending
            above = values > lts
            inside = np.abs(values - lts) < INDIFFERENCE_BAND
            tell = 1.0 - kappa[:, None] * np.where(inside, 1.0, INDIFFERENCE_OUTSIDE)
            likelihood = np.stack(  # (T, answer, N): prefers the reference, the other, can't tell
                (
                    tell * np.where(above, 1.0 - p, p),
                    tell * np.where(above, p, 1.0 - p),
                    1.0 - tell,
                ),
                axis=1,
            )
            cum = np.cumsum(likelihood, axis=2)
            median_at = (cum < cum[..., -1:] / 2).sum(axis=2)  # (T, answer)
            estimate = np.broadcast_to(medians, (*median_at.shape, self.n_ratios)).copy()
            estimate[..., i] = values[0, median_at]
            distance = np.abs(
                weights[order][None, None, :, :]
                - _weights_from_logits(estimate, shifts)[:, :, None, :]
            ).sum(axis=3)
            out[sel] = (likelihood * distance).sum(axis=(1, 2)) / MC_DRAWS
            if decide:
                # Expected regret of the Bayes pick after each answer (a decision-theoretic
                # look-ahead): Σ_a [Σ_n L_a(n)·max_m ψ_n(m) − max_m Σ_n L_a(n)·ψ_n(m)].
                expected = likelihood @ psi[order]  # (T, answer, M)
                best = likelihood @ top[order]  # (T, answer)
                regret = (best - expected.max(axis=2)).sum(axis=1)
                regret_out[sel] = regret / MC_DRAWS / spread
        if decide:
            # The decision first; the weights' error breaks ties (once the pick is settled).
            return regret_out + DECISION_TIE_BREAK * out
        return out

    def _repeat_candidate(self, state: ProbabilisticState) -> int | None:
        """Which earlier answer to ask again now (sides swapped), if any.

        Every ``repeat_every`` questions, the earlier question (not one of the last two, not
        one already repeated, not a "can't tell") whose answer is expected to lower the
        error most (:meth:`_expected_loss`): usually the most likely slip, so that a repeat
        can undo an early mistake as well as measure consistency.
        """
        every = self.spec.repeat_every
        n = state.answered
        if every <= 0 or n < 3 or (n + 1) % every != 0:
            return None
        repeated = {r.repeat_of for r in state.records if r.repeat_of is not None}
        counts = shows(state.records)
        candidates = [
            i
            for i in range(n - 2)
            if state.records[i].repeat_of is None
            and i not in repeated
            and state.records[i].side != 0
            and counts.get(state.records[i].shown, 0) < MAX_SHOWS
        ]
        if not candidates:
            return None
        shifts = self.shifts
        asked = [
            (
                state.records[i].ratio,
                logit(state.records[i].threshold) - shifts[state.records[i].ratio],
            )
            for i in candidates
        ]
        loss = self._expected_loss(state, self.posterior(state), asked)
        return candidates[int(stable_order(loss)[0])]

    def decision(self, state: ProbabilisticState) -> tuple[float, float] | None:
        """(P(best) of the Bayes pick, its expected regret relative to the metric's mean
        spread over the candidates) under the posterior, or ``None`` without candidates."""
        if self.candidates is None:
            return None
        values = self.draws(state) @ self.candidates.T
        pick = stable_argmax(values.mean(axis=0))
        p_best = float(np.mean(np.argmax(values, axis=1) == pick))
        top = values.max(axis=1)
        spread = float(np.mean(top - values.min(axis=1))) or 1.0
        return p_best, float(np.mean(top - values[:, pick])) / spread

    def _tolerance(self, post: Posterior, ratio: int) -> float:
        """How far (in logit m) the threshold of what the screen shows may miss the
        quantile a question is aimed at: ``AIM`` of the ratio's interquartile range.

        Rounded to what the screen shows, a trade of fixed size can only reach a coarse
        set of thresholds; once a ratio's posterior is narrower than that set's spacing,
        every question aimed inside it rounds to a pair already shown, and the questions
        left move the estimate without narrowing it.
        """
        q1, q3 = post.quantile(ratio, np.array([0.25, 0.75]))
        return AIM * float(q3 - q1)

    def _choose(self, state: ProbabilisticState) -> Query | None:
        again = self._repeat_candidate(state)
        if again is not None:
            rec = state.records[again]
            pair = (0, rec.ratio + 1)
            if rec.reference_left:  # shown left before: now show it right
                return Query(rec.alternative, rec.reference, pair, (0.0, 1.0), rec.threshold, again)
            return Query(rec.reference, rec.alternative, pair, (1.0, 0.0), rec.threshold, again)
        post = self.posterior(state)
        candidates = [
            (i, float(post.quantile(i, q)))
            for i in range(self.n_ratios)
            for q in QUESTION_QUANTILES
        ]
        loss = self._expected_loss(state, post, candidates)
        counts = shows(state.records)
        unsure = {r.shown for r in state.records if r.side == 0}
        shifts = self.shifts
        unsure_at = [
            (r.ratio, logit(r.threshold) - shifts[r.ratio]) for r in state.records if r.side == 0
        ]
        for best in stable_order(loss):
            ratio, lt = candidates[int(best)]
            target = float(sigmoid(lt + shifts[ratio]))
            query = chord_query(
                self.space,
                ratio + 1,
                target,
                seed=self.seed,
                index=state.answered,
                shown=self.shows_rounded,
                tolerance=self._tolerance(post, ratio),
            )
            if self.shows_rounded and unanswerable(self.space.scenario, query) is not None:
                continue
            key = question_key(self.space, query, self.shows_rounded)
            if key in unsure or counts.get(key, 0) >= MAX_SHOWS:
                continue
            assert query.threshold is not None
            asked = logit(query.threshold) - shifts[ratio]
            if any(i == ratio and abs(asked - u) < UNSURE_GAP for i, u in unsure_at):
                continue  # the same question in other numbers, to a person who couldn't tell
            return query
        return None  # nothing left that a person could tell apart

    def update(self, state: ProbabilisticState, query: Query, choice: Choice) -> ProbabilisticState:
        side = prefers_reference(query, choice, self.space)
        left = reference_left(query, self.space)
        ref, alt = (query.left, query.right) if left else (query.right, query.left)
        rec = Record(
            ratio=query.pair[1] - 1,
            threshold=query.threshold if query.threshold is not None else sum(query.params) / 2,
            reference=ref,
            alternative=alt,
            reference_left=left,
            side=0 if side is None else (1 if side else -1),
            repeat_of=query.repeat_of,
            shown=question_key(self.space, query, self.shows_rounded),
        )
        return ProbabilisticState((*state.records, rec))

    def consistency(self, state: ProbabilisticState) -> tuple[int, int]:
        """(repeated questions answered the same way both times, repeated questions)."""
        return repeats(state.records, lambda a, b: a.side == b.side)

    def result(self, state: ProbabilisticState) -> ElicitationResult:
        post = self.posterior(state)
        medians = self._medians(post)
        weights = tuple(float(x) for x in _weights_from_logits(medians, self.shifts))
        draws = self.draws(state)
        swing = draws * np.asarray(self.space.spans)
        swing /= swing.sum(axis=1, keepdims=True)
        return self._result(state, weights, _intervals(draws), _intervals(swing), post.error_rate)
