"""Query classifiers: the hypothetical classifiers a stakeholder is asked to compare.

Two families (paper 004 §4.2):

* **RBO classifiers** (Proposition 2) trade one class accuracy against another: for weights
  m·e_i + (1−m)·e_j the restricted Bayes-optimal classifier predicts i where
  m·η_i(x) ≥ (1−m)·η_j(x), else j.
* **Quarter-ellipse classifiers** (§4.2.2, Fig. 3) trade a class accuracy against a cost or
  reward: θ = arctan(ζ_i·m / ((upper − lower)(1 − m))), the attribute (in the metric's signed
  internal scale) is lower + (upper − lower)·cos θ and the class accuracy is ζ_i·sin θ.

A query is a pair of :class:`ClassifierProfile` objects, each holding per-class diagonal
confusions d_i, per-class recalls d_i/ζ_i, and every attribute in natural units.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from tradeoff.ask.population import Population
from tradeoff.ask.scenario import AttributeSpec, Scenario
from tradeoff.stable import canonical


@dataclass(frozen=True)
class ClassifierProfile:
    """What a person is shown about one classifier.

    Parameters
    ----------
    accuracies
        d_i = P(Y = i, h = i) per class (paper 004 §2).
    recalls
        d_i / ζ_i per class: the share of class-i cases the classifier gets right.
    attributes
        Each attribute's value in its natural unit (e.g. dollars per scan).
    """

    accuracies: tuple[float, ...]
    recalls: tuple[float, ...]
    attributes: tuple[float, ...]

    def to_dict(self) -> dict[str, list[float]]:
        return {
            "accuracies": list(self.accuracies),
            "recalls": list(self.recalls),
            "attributes": list(self.attributes),
        }


def profile_key(profile: ClassifierProfile) -> str:
    """The profile's values at :data:`~tradeoff.stable.DIGITS` significant digits, as text:
    equal for two profiles that differ only in the last bits (the same option computed on
    two machines), for digests and look-ups that must not depend on the machine.

    >>> a = ClassifierProfile((0.6035587999986008,), (0.81,), (7.5,))
    >>> b = ClassifierProfile((0.6035587999986006,), (0.81,), (7.5,))
    >>> profile_key(a) == profile_key(b), profile_key(a)
    (True, '0.6035588|0.81|7.5')
    """
    return "|".join(canonical(v) for v in (profile.accuracies, profile.recalls, profile.attributes))


@dataclass(frozen=True)
class Query:
    """Two classifiers to compare, and what the strategy meant by asking.

    Parameters
    ----------
    left, right
        The two options ("Option A" is left).
    pair
        Indices (in weight order) of the two statistics that differ: the reference (a class
        accuracy) and the other one.
    params
        The hypothesis weight m on the reference statistic that built each side.
    threshold
        For a chord question: the hypothesis weight m = w_reference / (w_reference +
        w_other) at which the two options are equally good. A preference for the side with
        more of the reference accuracy means the true m is above the threshold. ``None``
        when the strategy does not use one.
    repeat_of
        Index of an earlier answer this question repeats (sides swapped), or ``None``.
    kind
        ``"trade"`` (the default): two hypothetical options that differ in the two
        statistics of ``pair``; ``"candidates"``: two of the candidate models, as the screen
        shows them (a face may label them "two of the candidate models"); then ``pair`` is
        (0, 0), ``params`` (0, 0) and ``threshold`` ``None``, as no exchange rate is tested.
    candidates
        For ``kind = "candidates"``: the indices of the left and the right option in the
        candidate list the engine was given, else ``None``.

    ``kind`` and ``candidates`` label a question without changing it: two questions with
    the same options are equal whatever their labels (a recorded question, read back
    without them, is the question that was asked).

    >>> p = ClassifierProfile((0.3, 0.5), (0.8, 0.9), ())
    >>> q = ClassifierProfile((0.32, 0.48), (0.86, 0.86), ())
    >>> pick = Query(p, q, (0, 0), (0.0, 0.0), kind="candidates", candidates=(4, 7))
    >>> pick.swapped().candidates, pick == Query(p, q, (0, 0), (0.0, 0.0))
    ((7, 4), True)
    """

    left: ClassifierProfile
    right: ClassifierProfile
    pair: tuple[int, int]
    params: tuple[float, float]
    threshold: float | None = None
    repeat_of: int | None = None
    tag: str = field(default="", compare=False)
    kind: str = field(default="trade", compare=False)
    candidates: tuple[int, int] | None = field(default=None, compare=False)

    def swapped(self) -> Query:
        """The same question with the sides exchanged."""
        return Query(
            self.right,
            self.left,
            self.pair,
            (self.params[1], self.params[0]),
            self.threshold,
            self.repeat_of,
            self.tag,
            self.kind,
            None if self.candidates is None else (self.candidates[1], self.candidates[0]),
        )


#: The kind of a question answered elsewhere (a choice recorded in another tool): two
#: options as they were shown there, no exchange rate tested.
RECORDED = "recorded"


def recorded_query(left: ClassifierProfile, right: ClassifierProfile) -> Query:
    """A choice made elsewhere between ``left`` and ``right`` as a question of the kind
    :data:`RECORDED` (``pair`` (0, 0), ``params`` (0, 0), no threshold).

    >>> q = recorded_query(ClassifierProfile((), (), (24.0, 150.0)),
    ...                    ClassifierProfile((), (), (40.0, 130.0)))
    >>> q.kind, q.pair, q.threshold
    ('recorded', (0, 0), None)
    """
    return Query(left, right, (0, 0), (0.0, 0.0), kind=RECORDED)


def internal_bounds(attr: AttributeSpec) -> tuple[float, float]:
    """(lower, upper) of an attribute in the metric's signed scale (higher is better).

    Rewards keep their range; a cost with natural range [low, high] becomes [−high, −low],
    as the paper's costs c ∈ [−B, 0].
    """
    low, high = attr.range
    return (low, high) if attr.kind == "reward" else (-high, -low)


def to_natural(attr: AttributeSpec, internal: float) -> float:
    """Convert a signed internal attribute value back to natural units."""
    return internal if attr.kind == "reward" else -internal


#: Two recorded and recomputed values within this (relative, and absolute near 0) are the
#: same: machines differ in the last bits (~1e-16), a real difference in a question shows in
#: its third digit.
SAME_TOLERANCE = 1e-9


def close_values(x: Sequence[float], y: Sequence[float], rel: float = SAME_TOLERANCE) -> bool:
    """Whether two sequences of floats are equal up to ``rel`` (relative, or absolute near 0).

    >>> close_values((0.30180600000119, 7.5), (0.30180600000120, 7.5))
    True
    >>> close_values((0.3,), (0.301,)), close_values((0.3,), (0.3, 0.1))
    (False, False)
    """
    return len(x) == len(y) and all(
        math.isclose(u, v, rel_tol=rel, abs_tol=rel) for u, v in zip(x, y, strict=True)
    )


def close_profiles(p: ClassifierProfile, q: ClassifierProfile, rel: float = SAME_TOLERANCE) -> bool:
    """Whether two profiles are the same option up to ``rel`` (:func:`close_values`)."""
    return (
        close_values(p.accuracies, q.accuracies, rel)
        and close_values(p.recalls, q.recalls, rel)
        and close_values(p.attributes, q.attributes, rel)
    )


def same_question(a: Query, b: Query, *, rel: float = SAME_TOLERANCE) -> bool:
    """Whether two queries are the same question, up to rounding in the last digits.

    A question recomputed by another build of numpy can differ from the recorded one in the
    last bits of a float (0.5677969999986837 against …838); that is the same question.
    Everything but the floats must match exactly.

    >>> p = ClassifierProfile((0.3, 0.6), (0.9, 0.95), (7.5,))
    >>> q = ClassifierProfile((0.3 + 1e-16, 0.6), (0.9, 0.95), (7.5,))
    >>> same_question(Query(p, p, (0, 1), (1.0, 0.0)), Query(q, p, (0, 1), (1.0, 0.0)))
    True
    >>> same_question(Query(p, p, (0, 1), (1.0, 0.0)), Query(p, p, (0, 2), (1.0, 0.0)))
    False
    """
    if (a.threshold is None) != (b.threshold is None):
        return False
    thresholds = (
        a.threshold is None
        or b.threshold is None
        or math.isclose(a.threshold, b.threshold, rel_tol=rel, abs_tol=rel)
    )
    return (
        a.pair == b.pair
        and a.repeat_of == b.repeat_of
        and close_values(a.params, b.params, rel)
        and thresholds
        and close_profiles(a.left, b.left, rel)
        and close_profiles(a.right, b.right, rel)
    )


class QuerySpace:
    """Builds query classifiers for a scenario on a population.

    Parameters
    ----------
    scenario
        The validated scenario (classes, attributes and their ranges).
    population
        The class probabilities; its priors ζ define recalls and the ellipse's height.
    context
        Show realistic classifiers on cost/reward questions (see :meth:`ellipse`).
    """

    def __init__(
        self, scenario: Scenario, population: Population, *, context: bool = False
    ) -> None:
        if population.k != scenario.n_classes:
            raise ValueError(
                f"population has {population.k} classes, scenario has {scenario.n_classes}"
            )
        self.scenario = scenario
        self.population = population
        self.priors: tuple[float, ...] = tuple(float(z) for z in population.priors)
        self.k = scenario.n_classes
        self.names = scenario.weight_names
        self.n_weights = len(self.names)
        #: The statistics questions trade the others against: the classes, or, in a scenario
        #: without classes, every attribute (each against those declared after it).
        self.references = range(self.k) if self.k else range(self.n_weights)
        #: Attributes a query does not vary sit at the middle of their range on both sides.
        self.reference_attributes = tuple(
            (a.range[0] + a.range[1]) / 2 for a in scenario.attributes
        )
        #: Whether cost/reward questions show realistic classifiers (see :meth:`ellipse`).
        self.context = context
        #: Swing of each statistic: d_i spans [0, ζ_i], an attribute its range.
        self.spans: tuple[float, ...] = self.priors + tuple(
            a.range[1] - a.range[0] for a in scenario.attributes
        )

    def warm(self) -> None:
        """Build the population's sorted tables for every class against class 1 now.

        The first RBO question on a pair otherwise sorts the whole population (≈ 0.15 s at
        10⁶ samples); the app calls this while its loading screen is up.
        """
        for other in range(1, self.k):
            self.population.rbo_accuracies(0, other, 0.5)

    def is_class(self, index: int) -> bool:
        """Whether weight ``index`` belongs to a class accuracy (else to an attribute)."""
        return index < self.k

    def can_refer(self, index: int) -> bool:
        """Whether statistic ``index`` may be the reference of a question: a class accuracy,
        or, in a scenario without classes (options described by their attributes alone),
        any attribute."""
        return self.is_class(index) or (self.k == 0 and 0 <= index < self.n_weights)

    def _set(self, acc: list[float], attrs: list[float], index: int, internal: float) -> None:
        """Put statistic ``index`` (in the metric's signed scale) into an option's values."""
        if self.is_class(index):
            acc[index] = internal
        else:
            attrs[index - self.k] = to_natural(self.scenario.attributes[index - self.k], internal)

    def _profile(self, accuracies: list[float], attributes: list[float]) -> ClassifierProfile:
        recalls = tuple(
            d / z if z > 0 else 0.0 for d, z in zip(accuracies, self.priors, strict=True)
        )
        return ClassifierProfile(tuple(accuracies), recalls, tuple(attributes))

    def _context_accuracies(self) -> list[float]:
        """Accuracies of the classes a question does not trade: 0, or with ``context`` the
        middle of each class's ``recall_range``."""
        if not self.context:
            return [0.0] * self.k
        return [
            z * sum(c.recall_range) / 2
            for z, c in zip(self.priors, self.scenario.classes, strict=True)
        ]

    def rbo(self, i: int, j: int, m: float) -> ClassifierProfile:
        """The RBO classifier for weights m·e_i + (1−m)·e_j over classes i ≠ j (Prop. 2).

        Every other class's accuracy is 0 as in the paper, or, with ``context=True``, the
        middle of its ``recall_range`` on both options (a linear metric compares the two
        options only through d_i and d_j, so answers are the same).
        """
        d_i, d_j = self.population.rbo_accuracies(i, j, m)
        acc = self._context_accuracies()
        acc[i], acc[j] = d_i, d_j
        return self._profile(acc, list(self.reference_attributes))

    def _ellipse_height(self, cls: int) -> tuple[float, float]:
        """(d at θ = 0, d gained from θ = 0 to π/2) of class ``cls`` on the ellipse; for an
        attribute as the reference (a scenario without classes), its whole range in the
        signed scale."""
        if not self.is_class(cls):
            lower, upper = internal_bounds(self.scenario.attributes[cls - self.k])
            return lower, upper - lower
        zeta = self.priors[cls]
        if not self.context:
            return 0.0, zeta
        lo, hi = self.scenario.classes[cls].recall_range
        return zeta * lo, zeta * (hi - lo)

    def ellipse(self, cls: int, attr: int, m: float) -> ClassifierProfile:
        """The quarter-ellipse classifier for weights m on class ``cls``, 1−m on ``attr``.

        Paper 004 §4.2.2 and Algorithm 1 (CONSTRUCT_COST_ACCURACY_CLASSIFIER):
        θ = arctan(ζ·m / ((upper − lower)(1 − m))), attribute = lower + (upper − lower)·cos θ,
        class accuracy ζ·sin θ (the classifier predicts ``cls`` and is wrong with probability
        1 − sin θ), every other class's accuracy 0. ``attr`` indexes the scenario's
        attributes (0-based).

        With ``context=True`` (the strategies people answer) the ellipse spans the class's
        ``recall_range`` [r₀, r₁] instead of [0, 1]: d = ζ(r₀ + (r₁ − r₀) sin θ) with
        θ = arctan(ζ(r₁ − r₀)·m / ((upper − lower)(1 − m))), and every other class shows the
        middle of its recall range on both options. A linear metric compares the two options
        only through their differences in d_cls and the attribute, so answers are the same.
        """
        if not 0.0 <= m <= 1.0:
            raise ValueError(f"m must lie in [0, 1], got {m}")
        d, internal = self.stats(cls, self.k + attr, m)
        acc = self._context_accuracies()
        attrs = list(self.reference_attributes)
        self._set(acc, attrs, cls, d)
        self._set(acc, attrs, self.k + attr, internal)
        return self._profile(acc, attrs)

    def ellipse_angle(self, cls: int, attr: int, m: float) -> float:
        """θ(m) of the quarter-ellipse classifier (arctan2 makes m = 1 give θ = π/2)."""
        lower, upper = internal_bounds(self.scenario.attributes[attr])
        height = self._ellipse_height(cls)[1]
        return float(np.arctan2(height * m, (upper - lower) * (1.0 - m)))

    def frontier(self, reference: int, other: int, m: float) -> ClassifierProfile:
        """The optimal classifier for weights m on ``reference`` (a class), 1−m on ``other``.

        ``other`` is a weight index: a class (RBO classifier) or an attribute (ellipse). In
        a scenario without classes the reference is an attribute too, and the frontier the
        quarter ellipse over both attributes' ranges.
        """
        if not self.can_refer(reference):
            raise ValueError(
                "the reference statistic must be a class accuracy (without classes: an attribute)"
            )
        if self.is_class(other):
            return self.rbo(reference, other, m)
        return self.ellipse(reference, other - self.k, m)

    def stats(self, reference: int, other: int, m: float) -> tuple[float, float]:
        """(d_reference, other statistic in the signed internal scale) of frontier(m)."""
        if self.is_class(other):
            return self.population.rbo_accuracies(reference, other, m)
        attr = other - self.k
        lower, upper = internal_bounds(self.scenario.attributes[attr])
        theta = self.ellipse_angle(reference, attr, m)
        base, height = self._ellipse_height(reference)
        return base + height * math.sin(theta), lower + (upper - lower) * math.cos(theta)

    def chord_ratio(self, reference: int, other: int, m1: float, m2: float) -> float:
        """The weight ratio w_other / w_reference at which frontier(m1) ~ frontier(m2).

        For m1 < m2 the classifier built with m2 has more reference accuracy and less of the
        other statistic. Under a linear metric it is preferred exactly when
        w_other / w_reference < Δd_reference / |Δother|, the chord's slope (paper 004 §4.1:
        a comparison that changes two statistics depends only on their weight ratio).
        Returns ``inf`` when the other statistic does not change and 0 when the reference
        accuracy does not.
        """
        lo, hi = (m1, m2) if m1 <= m2 else (m2, m1)
        r1, o1 = self.stats(reference, other, lo)
        r2, o2 = self.stats(reference, other, hi)
        gain, loss = r2 - r1, o1 - o2
        if loss <= 0:
            return math.inf
        return max(gain, 0.0) / loss

    def chord_pair(
        self, reference: int, other: int, m_target: float, spread: float = 1.0
    ) -> tuple[float, float, float]:
        """Two frontier points whose chord's threshold sits at ``m_target``.

        The threshold of a chord, in the scale of Algorithm 1's m = w_ref / (w_ref + w_other),
        is 1 / (1 + slope). The lower point is placed ``spread`` below ``m_target`` in
        logit(m) (a factor e^spread in the weight ratio, so the options differ visibly); the
        upper point is then solved (Brent's method) so that the chord's threshold equals
        ``m_target``. If the frontier ends before that, the spread is halved.

        Returns
        -------
        tuple of float
            (m_low, m_high, exact threshold in m) — the exact threshold is what the answer
            implies, and is recorded even where the frontier is a step function.
        """
        eps = 1e-12
        t = min(max(m_target, 1e-9), 1 - 1e-9)
        lt = math.log(t / (1 - t))

        def threshold(m1: float, m2: float) -> float:
            s = self.chord_ratio(reference, other, m1, m2)
            return 0.0 if math.isinf(s) else 1.0 / (1.0 + s)

        def sig(x: float) -> float:
            return 1.0 / (1.0 + math.exp(-x)) if x > -700 else 0.0

        width = spread
        for _ in range(60):
            m1 = sig(lt - width)
            top = threshold(m1, 1.0)
            if top >= t:
                break
            width /= 2
        else:  # pragma: no cover - the frontier always reaches m = 1
            m1 = t
        if threshold(m1, 1.0) < t:
            return m1, 1.0, threshold(m1, 1.0)

        def g(x: float) -> float:
            return threshold(m1, sig(x)) - t

        hi_x = 40.0
        lo_x = lt
        if g(lo_x) >= 0:
            m2 = sig(lo_x)
        else:
            from scipy.optimize import brentq  # only here: scipy.optimize is slow to import

            m2 = sig(float(brentq(g, lo_x, hi_x, xtol=eps, rtol=4 * np.finfo(float).eps)))
            # Brent stops on either side of a step: keep the side at or above the target.
            if threshold(m1, m2) < t:
                m2 = min(1.0, m2 + eps)
        return m1, m2, threshold(m1, m2)

    def statistic(self, profile: ClassifierProfile, index: int) -> float:
        """Statistic ``index`` of a profile in the metric's signed scale (d_i, or an
        attribute with costs negated)."""
        if self.is_class(index):
            return profile.accuracies[index]
        attr = self.scenario.attributes[index - self.k]
        value = profile.attributes[index - self.k]
        return value if attr.kind == "reward" else -value

    def trade(self, reference: int, other: int, m_target: float, share: float = 0.6) -> Query:
        """Two options that differ only in ``reference`` (a class) and ``other``, whose
        exchange rate is the threshold ``m_target`` (m = w_ref / (w_ref + w_other)).

        A question does not need frontier classifiers to tell on which side of a threshold
        a linear metric lies (paper 004 §4.1: a comparison that changes two statistics
        depends only on their weight ratio). Where the frontier's chords at ``m_target``
        are too flat or too steep to show on a screen, or leave a class's
        ``recall_range``, this pair trades ``share`` of the smaller of the two ranges
        (the reference's recall range, the other's recall range or attribute range)
        around their middles, so both differences are as large as the ranges allow. The
        option with more reference accuracy is on the left.
        """
        t = min(max(m_target, 1e-12), 1 - 1e-12)
        slope = (1 - t) / t  # Δd_reference per unit of the other statistic, at indifference
        if self.is_class(reference):
            low0, high0 = self.scenario.classes[reference].recall_range
            zeta = self.priors[reference]
            span_d = zeta * (high0 - low0)
            mid_d = zeta * (low0 + high0) / 2
        else:  # no classes: the reference is an attribute, traded over its range
            low_r, high_r = internal_bounds(self.scenario.attributes[reference - self.k])
            span_d = high_r - low_r
            mid_d = (low_r + high_r) / 2
        if self.is_class(other):
            lo_o, hi_o = self.scenario.classes[other].recall_range
            z_o = self.priors[other]
            lower, upper = z_o * lo_o, z_o * hi_o
        else:
            lower, upper = internal_bounds(self.scenario.attributes[other - self.k])
        dx = share * min(upper - lower, span_d / slope)
        dd = slope * dx
        mid_x = (lower + upper) / 2

        def option(d: float, x: float) -> ClassifierProfile:
            acc = self._context_accuracies()
            attrs = list(self.reference_attributes)
            self._set(acc, attrs, reference, d)
            self._set(acc, attrs, other, x)
            return self._profile(acc, attrs)

        better = option(mid_d + dd / 2, mid_x - dx / 2)
        worse = option(mid_d - dd / 2, mid_x + dx / 2)
        exact = self.threshold_of(reference, other, better, worse)
        return Query(better, worse, (reference, other), (1.0, 0.0), threshold=exact)

    def threshold_of(
        self, reference: int, other: int, a: ClassifierProfile, b: ClassifierProfile
    ) -> float:
        """The m at which ``a`` and ``b`` are equally good when they differ only in the
        reference accuracy and the other statistic: 1 / (1 + Δd_ref / Δother)."""
        gain = self.statistic(a, reference) - self.statistic(b, reference)
        loss = self.statistic(b, other) - self.statistic(a, other)
        if gain < 0:
            gain, loss = -gain, -loss
        if loss <= 0:
            return 0.0
        return 1.0 / (1.0 + max(gain, 0.0) / loss)

    def can_ask(self, query: Query) -> bool:
        """Whether ``query`` is a question this space builds: both options are the frontier
        classifiers of its ``params`` and its threshold is their chord's, or (a chord
        question, :meth:`trade`) the options differ only in the two statistics the question
        is about and the threshold is their exchange rate.

        Used to accept questions recorded in a session file without asking them again.
        """
        ref, other = query.pair
        if not (self.can_refer(ref) and 0 <= other < self.n_weights and other != ref):
            return False
        if not all(0.0 <= m <= 1.0 for m in query.params):
            return False
        left, right = (self.frontier(ref, other, m) for m in query.params)
        if query.threshold is None:
            return close_profiles(left, query.left) and close_profiles(right, query.right)
        for i in range(self.n_weights):
            if i not in (ref, other) and not math.isclose(
                self.statistic(query.left, i),
                self.statistic(query.right, i),
                rel_tol=SAME_TOLERANCE,
                abs_tol=1e-12,
            ):
                return False
        expected = self.threshold_of(ref, other, query.left, query.right)
        return math.isclose(expected, query.threshold, rel_tol=1e-6, abs_tol=1e-9)

    def describes(self, query: Query) -> bool:
        """Whether both options of ``query`` are options of this scenario: a finite
        accuracy and recall per class and a finite value per attribute (a choice recorded
        elsewhere, :func:`recorded_query`, is any such pair)."""
        for p in (query.left, query.right):
            sizes = (len(p.accuracies), len(p.recalls), len(p.attributes))
            if sizes != (self.k, self.k, len(self.scenario.attributes)):
                return False
            if not all(math.isfinite(x) for x in (*p.accuracies, *p.recalls, *p.attributes)):
                return False
        return True

    def query(self, reference: int, other: int, m_left: float, m_right: float) -> Query:
        """Compare the frontier classifiers built with m_left and m_right."""
        return Query(
            self.frontier(reference, other, m_left),
            self.frontier(reference, other, m_right),
            (reference, other),
            (m_left, m_right),
        )
