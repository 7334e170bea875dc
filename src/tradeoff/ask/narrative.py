"""What the weights mean, in the scenario's words: the trade-offs a person's answers say.

For the first class against every other class and attribute, what 10 more cases per 1,000
of that class's cases are worth in the other (each sentence names the cases: "per 1,000
benign lumps"), as a fact when the answers settle it and as a range when
they do not (:func:`tradeoffs`). A scenario whose options are described by their aspects
alone says them against its first attribute (:mod:`tradeoff.ask.aspects`). The amounts are
written as the screen shows them (:mod:`tradeoff.ask.shown`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from tradeoff.ask import aspects
from tradeoff.ask.scenario import ClassSpec, Scenario
from tradeoff.ask.shown import PER, per_thousand
from tradeoff.ask.shown import said_amount as amount
from tradeoff.ask.words import SETTLED_FACTOR, TradeOff
from tradeoff.text import ENGLISH, N_, YOU, Voice, Words

#: Said when even the low end of what the answers allow puts the whole range of an
#: attribute below ``n`` cases of the first class: a fact, however unsure the rest.
WHOLE_RANGE_LESS = N_(
    "Even the whole range of %(name)s, %(low)s to %(high)s, is worth less to you than "
    "%(n)s more %(this)s per %(per)s."
)


def per_class(c: ClassSpec, words: Words = ENGLISH) -> str:
    """The cases a count is of, "1,000 malignant lumps": a count per 1,000 is of that
    class's own cases (a recall), never of all cases, and each sentence says of which.

    >>> from tradeoff.ask.scenario import load_scenario
    >>> sc = load_scenario("scenarios/breast-cancer-triage.toml").scenario
    >>> per_class(sc.classes[1]), per_class(sc.classes[1], Words(locale="de"))
    ('1,000 benign lumps', '1.000 benign lumps')
    """
    return f"{words.count(PER)} {c.label}"


def _rounded(x: float, words: Words = ENGLISH) -> str:
    """A count per 1,000 to two significant figures: 0.24, 3.1, 95.

    >>> _rounded(0.2412), _rounded(3.14), _rounded(95.4), _rounded(3.14, Words(locale="de"))
    ('0.24', '3.1', '95', '3,1')
    """
    return words.number(x, ".0f" if x >= 10 else ".1f" if x >= 1 else ".2f")


def tradeoffs(
    scenario: Scenario,
    weights: Sequence[float],
    priors: Sequence[float],
    draws: NDArray[np.float64] | None,
    *,
    asked: Sequence[bool] | None = None,
    voice: Voice = YOU,
    words: Words = ENGLISH,
) -> list[TradeOff]:
    """What the weights mean, in the scenario's words, each trade-off marked settled or not.

    For each trade-off (the first class against every other class and attribute), the
    exchange rate is computed for every posterior draw of the weights; when its 90% range
    spans more than :data:`SETTLED_FACTOR`, the trade-off gives the range and is marked
    unsettled, instead of a single number (a pick can be settled long before every
    trade-off is). Without draws (a point estimate), every trade-off is
    :func:`tradeoff_sentences`'s, as settled.

    A trade-off with a weight no answer informed (``asked``, per weight:
    :attr:`~tradeoff.learn.base.ElicitationResult.asked`) is left out: its exchange rate
    would be the starting guess, and the faces say "not asked" (:func:`not_asked_words`)
    where that weight would be.

    Examples
    --------
    >>> from tradeoff.ask.scenario import load_scenario
    >>> sc = load_scenario("scenarios/breast-cancer-triage.toml").scenario
    >>> w = np.array([0.5, 0.3, 0.1, 0.1]) / np.array([0.37, 0.63, 1.0, 1.0])
    >>> sure = np.tile(w, (100, 1))
    >>> vague = sure * np.linspace(0.2, 5.0, 100)[:, None] ** np.array([0, 0, 1, 0])
    >>> [(t.aspect, t.settled) for t in tradeoffs(sc, w, [0.37, 0.63], vague)]
    [(1, True), (2, False), (3, True)]
    >>> [t.aspect for t in tradeoffs(sc, w, [0.37, 0.63], vague, asked=(1, 1, 1, 0))]
    [1, 2]
    >>> print(tradeoffs(sc, w, [0.37, 0.63], sure, voice=Voice("dr-kim"))[1].text)
    ... # doctest: +NORMALIZE_WHITESPACE
    dr-kim would give up 100 flagged malignant lumps per 1,000 malignant lumps to save
    0.5 ms of latency.
    """
    if scenario.aspects_only:  # no classes: said against the first attribute
        return aspects.tradeoffs(scenario, weights, draws, asked=asked, voice=voice, words=words)
    k = scenario.n_classes
    point = _point_tradeoffs(scenario, weights, priors, voice, words)
    if asked is not None:
        point = [(j, s) for j, s in point if asked[0] and asked[j]]
    if draws is None or len(draws) < 2:
        return [TradeOff(j, s, True, voice, words) for j, s in point]
    w = np.asarray(draws, dtype=np.float64)
    c0 = scenario.classes[0]
    lo0, hi0 = c0.recall_range
    most = max(1, round((hi0 - lo0) * PER))
    per = per_class(c0, words)
    out = []
    for other, sentence in point:
        if other == 0 or weights[other] <= 0:  # "carry no weight", "does not matter"
            out.append(TradeOff(other, sentence, True, voice, words))
            continue
        ratio = w[:, 0] / np.maximum(w[:, other], 1e-300)  # class-1 weight per unit of other
        low, high = np.quantile(ratio, [0.05, 0.95])
        if low > 0 and high / low <= SETTLED_FACTOR:
            out.append(TradeOff(other, sentence, True, voice, words))
            continue
        if other < k:
            ci = scenario.classes[other]
            per_ci = 10 * priors[0] / priors[other]  # cases of class i worth 10 of class 1
            r_low, r_high = per_ci * low, per_ci * high
            if r_high > 100 and r_low > 0 and 100 / r_low < r_high:
                # Said the other way round, so no count runs past 1,000 per 1,000.
                first, second, r_low, r_high = ci, c0, 100 / r_high, 100 / r_low
            else:
                first, second = c0, ci
            text = voice.say(
                N_(
                    "10 more %(this)s per %(per_this)s are worth between %(low)s and "
                    "%(high)s more %(that)s per %(per_that)s to you (90%% range)."
                ),
                words,
            ) % {
                "this": f"{first.outcome} {first.label}",
                "that": f"{second.outcome} {second.label}",
                "per_this": per_class(first, words),
                "per_that": per_class(second, words),
                "low": _rounded(r_low, words),
                "high": _rounded(r_high, words),
            }
            out.append(TradeOff(other, text, False, voice, words))
            continue
        spec = scenario.attributes[other - k]
        n = min(10, most)
        unit = n * priors[0] / PER
        a_lo, a_hi = spec.range
        fields = {
            "n": words.count(n),
            "this": f"{c0.outcome} {c0.label}",
            "per": per,
            "name": spec.name,
            "low": amount(spec, unit * low, words),
        }
        if unit * low > a_hi - a_lo:  # even the low end: the whole range is worth less
            fields |= {
                "low": aspects.range_amount(spec, a_lo, words),
                "high": aspects.range_amount(spec, a_hi, words),
            }
            text = voice.say(WHOLE_RANGE_LESS, words) % fields
            out.append(TradeOff(other, text, True, voice, words))
            continue
        over = unit * high > a_hi - a_lo  # more than the whole range: no amount to name
        top = amount(spec, unit * high, words)
        nothing = amount(spec, 0.0, words)
        if top == nothing and not over:  # the whole range rounds to nothing: settled
            text = (
                voice.say(
                    N_(
                        "%(n)s more %(this)s per %(per)s are worth next to no %(name)s to you: "
                        "less than the smallest amount shown (90%% range)."
                    ),
                    words,
                )
                % fields
            )
            out.append(TradeOff(other, text, True, voice, words))
            continue
        fields |= {"high": top, "a_low": aspects.range_amount(spec, a_lo, words)}
        fields["a_high"] = aspects.range_amount(spec, a_hi, words)
        fields["a_span"] = aspects.range_amount(spec, a_hi - a_lo, words)
        if over:
            message = (
                N_(
                    "%(n)s more %(this)s per %(per)s may be worth anything from nothing to "
                    "more than the whole range of %(name)s (the %(a_span)s from %(a_low)s to "
                    "%(a_high)s) to you (90%% range)."
                )
                if fields["low"] == nothing
                else N_(
                    "%(n)s more %(this)s per %(per)s are worth at least %(low)s of %(name)s to "
                    "you, perhaps more than its whole range (the %(a_span)s from %(a_low)s to "
                    "%(a_high)s) (90%% range)."
                )
            )
        elif fields["low"] == nothing:
            message = N_(
                "%(n)s more %(this)s per %(per)s are worth up to %(high)s of %(name)s to you "
                "(90%% range)."
            )
        else:
            message = N_(
                "%(n)s more %(this)s per %(per)s are worth between %(low)s and %(high)s of "
                "%(name)s to you (90%% range)."
            )
        text = voice.say(message, words) % fields
        out.append(TradeOff(other, text, False, voice, words))
    return out


def settled_tradeoff_sentences(
    scenario: Scenario,
    weights: Sequence[float],
    priors: Sequence[float],
    draws: NDArray[np.float64] | None,
    *,
    asked: Sequence[bool] | None = None,
    voice: Voice = YOU,
    words: Words = ENGLISH,
) -> list[str]:
    """:func:`tradeoffs` as one list of sentences (``session show --json``): the settled
    ones as facts, the others opening with "Not settled by your answers".

    >>> from tradeoff.ask.scenario import load_scenario
    >>> sc = load_scenario("scenarios/breast-cancer-triage.toml").scenario
    >>> w = np.array([0.5, 0.3, 0.1, 0.1]) / np.array([0.37, 0.63, 1.0, 1.0])
    >>> sure = np.tile(w, (100, 1))
    >>> settled_tradeoff_sentences(sc, w, [0.37, 0.63], sure) == tradeoff_sentences(
    ...     sc, w, [0.37, 0.63])
    True
    >>> vague = sure * np.linspace(0.2, 5.0, 100)[:, None] ** np.array([0, 0, 1, 0])
    >>> settled_tradeoff_sentences(sc, w, [0.37, 0.63], vague)[1].startswith(
    ...     "Not settled by your answers")
    True

    An amount that rounds to nothing however unsure the answers are is said as such:

    >>> tiny = sure * np.linspace(1e5, 1e7, 100)[:, None] ** np.array([0, 0, 1, 0])
    >>> print(settled_tradeoff_sentences(sc, w, [0.37, 0.63], tiny)[1])
    ... # doctest: +NORMALIZE_WHITESPACE
    10 more flagged malignant lumps per 1,000 malignant lumps are worth next to no latency
    to you: less than the smallest amount shown (90% range).

    A range that would run past 1,000 cases per 1,000 is said the other way round:

    >>> wide = sure * np.geomspace(0.01, 3.0, 100)[:, None] ** np.array([0, 1, 0, 0])
    >>> print(settled_tradeoff_sentences(sc, w, [0.37, 0.63], wide)[0])
    ... # doctest: +NORMALIZE_WHITESPACE
    Not settled by your answers: 10 more cleared benign lumps per 1,000 benign lumps are
    worth between 0.08 and 14 more flagged malignant lumps per 1,000 malignant lumps to you
    (90% range).
    """
    return [
        t.sentence
        for t in tradeoffs(scenario, weights, priors, draws, asked=asked, voice=voice, words=words)
    ]


def tradeoff_sentences(
    scenario: Scenario,
    weights: Sequence[float],
    priors: Sequence[float],
    voice: Voice = YOU,
    words: Words = ENGLISH,
) -> list[str]:
    """What the weights mean, in the scenario's words.

    For the first class against every other class and attribute: what 10 more cases per
    1,000 of one are worth in the other ("You would give up 10 detected glaucoma cases per
    1,000 to save $0.05 per scan"). ψ is linear, so a₁·ζ₁·Δrecall₁ = a_j·Δx_j gives the
    exchange rate.

    >>> from tradeoff.ask.scenario import load_scenario
    >>> sc = load_scenario("scenarios/breast-cancer-triage.toml").scenario
    >>> tradeoff_sentences(sc, [0.0, 0.5, 0.3, 0.2], [0.37, 0.63], Voice("dr-kim"))
    ['Flagged malignant lumps carry no weight for them.']
    """
    return [s for _, s in _point_tradeoffs(scenario, weights, priors, voice, words)]


def _point_tradeoffs(
    scenario: Scenario,
    weights: Sequence[float],
    priors: Sequence[float],
    voice: Voice,
    words: Words = ENGLISH,
) -> list[tuple[int, str]]:
    """:func:`tradeoff_sentences`, each with the weight it trades the first class against
    (0 for the one sentence said when the first class carries no weight)."""
    if scenario.aspects_only:
        return aspects.point_tradeoffs(scenario, weights, voice, words)
    k = scenario.n_classes
    out = []
    c0 = scenario.classes[0]
    first = f"{c0.outcome} {c0.label}"
    per = per_class(c0, words)
    subject = {"subject": voice.subject}
    no_weight = N_("%(aspect)s carry no weight for you.")
    value_per_case0 = weights[0] * priors[0] / PER  # ψ of one more class-1 case per 1,000
    if value_per_case0 <= 0:
        aspect = f"{c0.outcome.capitalize()} {c0.label}"
        return [(0, voice.say(no_weight, words) % {"aspect": aspect})]
    for i in range(1, k):
        ci = scenario.classes[i]
        per_case = weights[i] * priors[i] / PER
        if per_case <= 0:
            aspect = f"{ci.outcome.capitalize()} {ci.label}"
            out.append((i, voice.say(no_weight, words) % {"aspect": aspect}))
            continue
        n0 = 10 * per_case / value_per_case0
        as_much = N_(
            "10 more %(this)s per %(per_this)s are worth as much to you as %(n)s more "
            "%(that)s per %(per_that)s."
        )
        if n0 <= 10:
            this, that, n = f"{ci.outcome} {ci.label}", first, n0
            per_this, per_that = per_class(ci, words), per
        else:
            this, that, n = first, f"{ci.outcome} {ci.label}", 10 * value_per_case0 / per_case
            per_this, per_that = per, per_class(ci, words)
        fields = {
            "this": this,
            "that": that,
            "per_this": per_this,
            "per_that": per_that,
            "n": words.number(n, ".1f"),
        }
        out.append((i, voice.say(as_much, words) % fields))
    for j, spec in enumerate(scenario.attributes):
        low, high = spec.range
        weight = weights[k + j]
        if weight <= 0:
            aspect = spec.name.capitalize()
            text = voice.say(N_("%(aspect)s does not matter to you."), words) % {"aspect": aspect}
            out.append((k + j, text))
            continue
        # The natural units worth n class-1 cases; n grows until the amount is visible,
        # but never beyond the class's recall range (a person cannot trade more cases).
        lo0, hi0 = c0.recall_range
        most = max(1, round((hi0 - lo0) * PER))
        steps = [x for x in (10, 20, 50, 100, 200, 500, 1000) if x < most] + [most]
        n = steps[0]
        worth = n * value_per_case0 / weight
        for n in steps:
            worth = n * value_per_case0 / weight
            if worth >= 0.02 * (high - low):
                break
        fields = {
            **subject,
            "n": words.count(n),
            "this": first,
            "per": per,
            "name": spec.name,
            "aspect": spec.name.capitalize(),
        }
        if worth > high - low:
            fields |= {"low": amount(spec, low, words), "high": amount(spec, high, words)}
            message = WHOLE_RANGE_LESS
        elif worth < 0.02 * (high - low):
            fields |= {
                "low": words.count(per_thousand(lo0)),
                "high": words.count(per_thousand(hi0)),
                "amount": amount(spec, worth, words),
            }
            message = N_(
                "%(aspect)s matters more to you than %(this)s: all %(n)s more %(this)s per "
                "%(per)s that the range allows (%(low)s to %(high)s) are worth only "
                "%(amount)s of %(name)s to you."
            )
        else:
            fields["amount"] = amount(spec, worth, words)
            message = (
                N_("You would give up %(n)s %(this)s per %(per)s to save %(amount)s of %(name)s.")
                if spec.kind == "cost"
                else N_(
                    "You would give up %(n)s %(this)s per %(per)s to gain %(amount)s of %(name)s."
                )
            )
        out.append((k + j, voice.say(message, words) % fields))
    return out
