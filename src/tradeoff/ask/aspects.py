"""What the weights mean when options are described by their aspects alone (no classes).

A scenario without ``[[classes]]`` describes each option by two or more attributes (cost or
reward, in natural units). Its trade-offs are said against the first attribute, as a
classifier's are said against the first class: ψ is linear, so a₀·Δx₀ = a_j·Δx_j gives
the exchange rate ("ƒ10.00 of price is worth as much to you as 12 min of time"). The
amount of the first attribute is a round tenth of its range (1, 2 or 5 times a power of
ten); when the other attribute's worth would be too small to show, the sentence is said
the other way round.

:func:`tradeoffs` and :func:`tradeoff_sentences` of :mod:`tradeoff.ask.narrative` call
these for such a scenario.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from tradeoff.ask.formats import counts_itself
from tradeoff.ask.scenario import AttributeSpec, Scenario
from tradeoff.ask.shown import fixed_decimals, shown_number
from tradeoff.ask.shown import said_amount as shown_amount
from tradeoff.ask.words import SETTLED_FACTOR, TradeOff
from tradeoff.stable import settled
from tradeoff.text import ENGLISH, N_, YOU, Voice, Words

#: An amount is shown when it is at least this share of its attribute's range.
VISIBLE_SHARE = 0.02
#: Said when even the low end of what the answers allow puts the whole range of the other
#: attribute below the amount of this one: a fact, however unsure the rest.
WHOLE_RANGE_LESS = N_(
    "Even the whole range of %(that_name)s, %(low)s to %(high)s, is worth less to you "
    "than %(this)s of %(this_name)s."
)


def _agreeing(singular: str, plural: str, spec: AttributeSpec, step: float) -> str:
    """The message whose verb agrees with the amount it opens with (``step`` of ``spec``):
    an amount of a named aspect is one quantity ("ƒ10.00 of price is worth"), a count of
    the aspect's own units as many as it says ("2 changes are worth", "1 change is
    worth")."""
    return plural if counts_itself(spec.name, spec.unit) and step != 1 else singular


def amount(spec: AttributeSpec, value: float, words: Words = ENGLISH) -> str:
    """An amount of an attribute as its format shows it (:func:`tradeoff.ask.shown.said_amount`),
    or to two significant digits where the format would round it by more than a twentieth
    (a format of whole changes of train would say an exchange rate of 1.25 changes as "1"),
    but never finer than one digit beyond the format's: an amount the unit cannot show
    (0.0012 changes, 0.04 min when minutes are shown whole) is said as the format shows
    it ("0 changes", "0 min").

    >>> from tradeoff.ask.scenario import load_scenario
    >>> changes = load_scenario("scenarios/train-trips.toml").scenario.attributes[2]
    >>> amount(changes, 1.25), amount(changes, 3.0), amount(changes, 0.0)
    ('1.2 changes', '3 changes', '0 changes')
    >>> amount(changes, 0.0012), amount(changes, 0.07)
    ('0 changes', '0.1 changes')
    """
    value = settled(value)
    text = shown_amount(spec, value, words)
    if value == 0 or abs(shown_number(spec, value) - value) <= 0.05 * abs(value):
        return text
    digits = max(0, 1 - math.floor(math.log10(abs(value))))
    decimals = fixed_decimals(spec)
    if decimals is not None:  # a fixed number of decimals: at most one more
        digits = min(digits, decimals + 1)
        if not format(abs(value), f".{digits}f").strip("0."):  # rounds to nothing shown
            return text
    return _with_decimals(spec, value, digits, words)


def range_amount(spec: AttributeSpec, value: float, words: Words = ENGLISH) -> str:
    """An end of an attribute's range (or its span) as :func:`amount` says it, with as many
    more decimals (up to three beyond the format's) as the number needs to be said as the
    scenario gives it: a range from 0.05 ms is not "from 0.1 ms", nor its span of 14.95 ms
    "14.9 ms".

    >>> from tradeoff.ask.scenario import load_scenario
    >>> latency = load_scenario("breast-cancer-triage").scenario.attributes[0]
    >>> range_amount(latency, 0.05), range_amount(latency, 14.95), range_amount(latency, 15.0)
    ('0.05 ms', '14.95 ms', '15.0 ms')
    """
    value = settled(value)
    decimals = fixed_decimals(spec)
    if decimals is None or value == 0:
        return amount(spec, value, words)
    digits = next(
        (
            d
            for d in range(decimals, decimals + 4)
            if abs(float(format(value, f".{d}f")) - value) <= 1e-9 * max(1.0, abs(value))
        ),
        None,
    )
    if digits is None or digits == decimals:
        return amount(spec, value, words)
    return _with_decimals(spec, value, digits, words)


def _with_decimals(spec: AttributeSpec, value: float, digits: int, words: Words) -> str:
    """An amount of ``spec`` with ``digits`` decimals, its format's prefix and its unit."""
    prefix = spec.format.split("{", 1)[0] if spec.format else ""
    unit = ""
    if spec.unit and spec.unit not in prefix:
        unit = f" {spec.unit_for(format(value, f'.{digits}f'))}"
    return f"{prefix}{words.number(value, f',.{digits}f')}{unit}"


def round_step(span: float) -> float:
    """A round amount near a tenth of ``span``: 1, 2 or 5 times a power of ten, the nearest
    on a log scale.

    >>> round_step(124.0), round_step(40.0), round_step(4.0), round_step(2.0)
    (10.0, 5.0, 0.5, 0.2)
    """
    target = span / 10
    power = 10.0 ** math.floor(math.log10(target))
    ladder = [m * power for m in (1.0, 2.0, 5.0, 10.0)]
    return min(ladder, key=lambda x: abs(math.log(x / target)))


def _names(scenario: Scenario, this: int, that: int) -> dict[str, str]:
    a, b = scenario.attributes[this], scenario.attributes[that]
    return {"this_name": a.name, "that_name": b.name}


def _direction(
    scenario: Scenario, weights: Sequence[float], j: int
) -> tuple[int, int, float, float]:
    """(this, that, amount of this, its worth in that): the first attribute against
    attribute ``j``, or said the other way round when the worth would not show."""
    attrs = scenario.attributes
    w0, wj = float(weights[0]), float(weights[j])
    step0 = round_step(_span(attrs[0]))
    worth = step0 * w0 / wj
    if worth >= VISIBLE_SHARE * _span(attrs[j]):
        return 0, j, step0, worth
    step_j = round_step(_span(attrs[j]))
    return j, 0, step_j, step_j * wj / w0


#: The amounts said of each side of a trade-off in its sentences.
_AMOUNTS = {"this": "this", "that": "that|low|high"}


def _unrepeated(message: str, scenario: Scenario, this: int, that: int) -> str:
    """``message`` without an aspect's name right after an amount whose unit already is that
    name: "1.2 changes", not "1.2 changes of changes" (in any language: the name's field
    goes with the words joining it to the amount).

    >>> from tradeoff.ask.scenario import load_scenario
    >>> sc = load_scenario("scenarios/train-trips.toml").scenario
    >>> _unrepeated("%(this)s of %(this_name)s are worth %(that)s of %(that_name)s.", sc, 0, 2)
    '%(this)s of %(this_name)s are worth %(that)s.'
    """
    for side, index in (("this", this), ("that", that)):
        spec = scenario.attributes[index]
        if counts_itself(spec.name, spec.unit):
            amounts = _AMOUNTS[side]
            message = re.sub(
                rf"(%\((?:{amounts})\)s)\s+(?:of\s+)?%\({side}_name\)s", r"\1", message
            )
    return message


def _span(spec: AttributeSpec) -> float:
    return spec.range[1] - spec.range[0]


def point_tradeoffs(
    scenario: Scenario, weights: Sequence[float], voice: Voice = YOU, words: Words = ENGLISH
) -> list[tuple[int, str]]:
    """Each attribute after the first against the first, in words, with its index
    (0 for the one sentence said when the first attribute carries no weight).

    ``weights`` are per natural unit, in the scenario's order.

    >>> from tradeoff.ask.scenario import load_scenario
    >>> sc = load_scenario("scenarios/train-trips.toml").scenario
    >>> for _, s in point_tradeoffs(sc, [1.0, 0.5, 8.0, 0.0]):
    ...     print(s)
    ƒ10.00 of price is worth as much to you as 20 min of time.
    ƒ10.00 of price is worth as much to you as 1.2 changes.
    Discomfort does not matter to you.
    """
    attrs = scenario.attributes
    if weights[0] <= 0:
        text = voice.say(N_("%(aspect)s does not matter to you."), words)
        return [(0, text % {"aspect": attrs[0].name.capitalize()})]
    out = []
    for j in range(1, len(attrs)):
        spec = attrs[j]
        if weights[j] <= 0:
            text = voice.say(N_("%(aspect)s does not matter to you."), words)
            out.append((j, text % {"aspect": spec.name.capitalize()}))
            continue
        this, that, step, worth = _direction(scenario, weights, j)
        fields = {**_names(scenario, this, that), "this": amount(attrs[this], step, words)}
        target = attrs[that]
        if worth > _span(target):
            fields |= {
                "low": range_amount(target, target.range[0], words),
                "high": range_amount(target, target.range[1], words),
            }
            message = WHOLE_RANGE_LESS
        else:
            fields["that"] = amount(target, worth, words)
            message = _agreeing(
                N_(
                    "%(this)s of %(this_name)s is worth as much to you as %(that)s of "
                    "%(that_name)s."
                ),
                N_(
                    "%(this)s of %(this_name)s are worth as much to you as %(that)s of "
                    "%(that_name)s."
                ),
                attrs[this],
                step,
            )
        said = _unrepeated(voice.say(message, words), scenario, this, that)
        out.append((j, said % fields))
    return out


def tradeoffs(
    scenario: Scenario,
    weights: Sequence[float],
    draws: NDArray[np.float64] | None,
    *,
    asked: Sequence[bool] | None = None,
    voice: Voice = YOU,
    words: Words = ENGLISH,
) -> list[TradeOff]:
    """:func:`point_tradeoffs`, each marked settled when the 90% range of its exchange rate
    over ``draws`` spans at most :data:`~tradeoff.ask.words.SETTLED_FACTOR`, else
    said as that range; a trade-off with a weight no answer informed (``asked``) is left
    out.

    >>> from tradeoff.ask.scenario import load_scenario
    >>> sc = load_scenario("scenarios/train-trips.toml").scenario
    >>> w = np.array([1.0, 0.5, 8.0, 4.0])
    >>> vague = np.tile(w, (100, 1)) * np.linspace(0.2, 5.0, 100)[:, None] ** np.array(
    ...     [0, 1, 0, 0])
    >>> [(t.aspect, t.settled) for t in tradeoffs(sc, w, vague)]
    [(1, False), (2, True), (3, True)]
    >>> print(tradeoffs(sc, w, vague)[0].text)
    ƒ10.00 of price is worth between 4 min and 45 min of time to you (90% range).
    """
    point = point_tradeoffs(scenario, weights, voice, words)
    if asked is not None:
        point = [(j, s) for j, s in point if asked[0] and asked[j]]
    if draws is None or len(draws) < 2:
        return [TradeOff(j, s, True, voice, words) for j, s in point]
    w = np.asarray(draws, dtype=np.float64)
    out = []
    for j, sentence in point:
        if j == 0 or weights[j] <= 0:
            out.append(TradeOff(j, sentence, True, voice, words))
            continue
        this, that, step, _ = _direction(scenario, weights, j)
        # Units of ``that`` worth ``step`` units of ``this``, per draw.
        rate = step * w[:, this] / np.maximum(w[:, that], 1e-300)
        low, high = (float(x) for x in np.quantile(rate, [0.05, 0.95]))
        if low > 0 and high / low <= SETTLED_FACTOR:
            out.append(TradeOff(j, sentence, True, voice, words))
            continue
        target = scenario.attributes[that]
        if low > _span(target):  # even the low end: the whole range is worth less
            fields = {
                **_names(scenario, this, that),
                "this": amount(scenario.attributes[this], step, words),
                "low": range_amount(target, target.range[0], words),
                "high": range_amount(target, target.range[1], words),
            }
            said = _unrepeated(voice.say(WHOLE_RANGE_LESS, words), scenario, this, that)
            out.append(TradeOff(j, said % fields, True, voice, words))
            continue
        fields = {
            **_names(scenario, this, that),
            "this": amount(scenario.attributes[this], step, words),
            "low": amount(target, low, words),
            "high": amount(target, high, words),
            "a_low": amount(target, target.range[0], words),
            "a_high": amount(target, target.range[1], words),
            "a_span": amount(target, _span(target), words),
        }
        nothing = fields["low"] == amount(target, 0.0, words)  # "at least 0 steps" says nothing
        if high > _span(target):
            message = (
                _agreeing(
                    N_(
                        "%(this)s of %(this_name)s is perhaps worth nothing to you, perhaps "
                        "more than the whole range of %(that_name)s (the %(a_span)s from "
                        "%(a_low)s to %(a_high)s) (90%% range)."
                    ),
                    N_(
                        "%(this)s of %(this_name)s are perhaps worth nothing to you, perhaps "
                        "more than the whole range of %(that_name)s (the %(a_span)s from "
                        "%(a_low)s to %(a_high)s) (90%% range)."
                    ),
                    scenario.attributes[this],
                    step,
                )
                if nothing
                else _agreeing(
                    N_(
                        "%(this)s of %(this_name)s is worth at least %(low)s of %(that_name)s "
                        "to you, perhaps more than its whole range (the %(a_span)s from "
                        "%(a_low)s to %(a_high)s) (90%% range)."
                    ),
                    N_(
                        "%(this)s of %(this_name)s are worth at least %(low)s of %(that_name)s "
                        "to you, perhaps more than its whole range (the %(a_span)s from "
                        "%(a_low)s to %(a_high)s) (90%% range)."
                    ),
                    scenario.attributes[this],
                    step,
                )
            )
        elif nothing:
            message = _agreeing(
                N_(
                    "%(this)s of %(this_name)s is worth up to %(high)s of %(that_name)s to "
                    "you (90%% range)."
                ),
                N_(
                    "%(this)s of %(this_name)s are worth up to %(high)s of %(that_name)s to "
                    "you (90%% range)."
                ),
                scenario.attributes[this],
                step,
            )
        else:
            message = _agreeing(
                N_(
                    "%(this)s of %(this_name)s is worth between %(low)s and %(high)s of "
                    "%(that_name)s to you (90%% range)."
                ),
                N_(
                    "%(this)s of %(this_name)s are worth between %(low)s and %(high)s of "
                    "%(that_name)s to you (90%% range)."
                ),
                scenario.attributes[this],
                step,
            )
        said = _unrepeated(voice.say(message, words), scenario, this, that)
        out.append(TradeOff(j, said % fields, False, voice, words))
    return out
