"""What the screen shows: the numbers a person reads, and so answers on.

A recall is shown as a natural frequency per 1,000 (docs/architecture.md: people see d_i /
ζ_i) and an attribute as its format rounds it. The engine and the simulated people take
an answer to be about these numbers, not the exact values behind them: the lines of an
option's card (:func:`card_lines`), the options rounded as shown (:func:`shown_profile`,
:func:`as_shown`), two questions the same pair when they read the same (:func:`shown_pair`,
:func:`question_key`), a question a person could not answer from the screen
(:func:`unanswerable`), and two options different enough to tell apart without rounding
when they differ visibly (:func:`visible_difference`).

A card's lines are said in the scenario's words (its classes' verbs and labels, its
attributes' formats); given ``words`` (a :class:`tradeoff.text.Words`), the few words
around them in that language and the numbers in its locale's symbols ("1.000", "0,21").
Every other sentence (prompts, differences, trade-offs) is :mod:`tradeoff.ask.words`'s and
:mod:`tradeoff.ask.narrative`'s, which read their numbers here; nothing here reads them.
"""

from __future__ import annotations

import functools
import re
import string
from dataclasses import dataclass

from tradeoff.ask.formats import counts_itself
from tradeoff.ask.queries import ClassifierProfile, Query, QuerySpace
from tradeoff.ask.scenario import AttributeSpec, Scenario
from tradeoff.stable import settled
from tradeoff.text import ENGLISH, Words

PER = 1000


#: Numbers kept by the memos of what the screen shows (:func:`per_thousand`,
#: :func:`_number`): the options of one question space repeat the same few values.
SHOWN_KEPT = 4096


@functools.lru_cache(maxsize=SHOWN_KEPT)
def per_thousand(recall: float) -> int:
    """Recall as a count out of 1,000, rounded from its :func:`~tradeoff.stable.settled`
    value (a recall of exactly 857.5 per 1,000 reads 858 on every machine, whatever the
    last bits of the float that carries it). Kept for the last ``SHOWN_KEPT`` recalls.

    >>> per_thousand(0.8575), per_thousand(0.8574999999999999), per_thousand(0.85750000001)
    (858, 858, 858)
    """
    return round(settled(recall * PER))


def class_line(scenario: Scenario, i: int, recall: float, words: Words = ENGLISH) -> str:
    """E.g. "finds 912 of 1,000 glaucoma cases".

    >>> from tradeoff.ask.scenario import load_scenario
    >>> sc = load_scenario("scenarios/glaucoma-screening.toml").scenario
    >>> class_line(sc, 0, 0.912), class_line(sc, 0, 0.912, Words(locale="de"))
    ('finds 912 of 1,000 glaucoma cases', 'finds 912 of 1.000 glaucoma cases')
    """
    c = scenario.classes[i]
    return words.gettext("%(verb)s %(count)s of %(per)s %(label)s") % {
        "verb": c.verb,
        "count": words.count(per_thousand(recall)),
        "per": words.count(PER),
        "label": c.label,
    }


def attribute_line(scenario: Scenario, j: int, value: float, words: Words = ENGLISH) -> str:
    """E.g. "$0.21 per scan": the attribute's format, its number in the locale's symbols.

    >>> from tradeoff.ask.scenario import load_scenario
    >>> sc = load_scenario("scenarios/glaucoma-screening.toml").scenario
    >>> attribute_line(sc, 0, 0.214), attribute_line(sc, 0, 0.214, Words(locale="de"))
    ('$0.21 per scan', '$0,21 per scan')
    """
    spec = scenario.attributes[j]
    if words is ENGLISH:
        return spec.render(value)
    value = settled(value)  # the same text on every machine (tradeoff.stable)
    if not spec.format:
        unit = f" {spec.unit_for(format(value, '.3g'))}" if spec.unit else ""
        return f"{words.number(value, '.3g')}{unit} {spec.label}"
    formatter = string.Formatter()
    out = []
    for literal, name, fmt, conversion in formatter.parse(spec.format_for(value)):
        out.append(literal)
        if name is not None:
            field = formatter.convert_field(value, conversion)
            out.append(words.digits(formatter.format_field(field, fmt or "")))
    return "".join(out)


@dataclass(frozen=True)
class Line:
    """One line of an option card: its text and how it compares with the other option."""

    text: str
    differs: bool
    better: bool
    delta: str


@functools.lru_cache(maxsize=256)
def _value_format(text: str | None) -> str:
    """The format spec of ``{value:…}`` in an attribute's ``format`` ("" when it has none;
    ".3g" without a format or without a ``{value}`` field)."""
    if text:
        for _, name, fmt, _ in string.Formatter().parse(text):
            if name == "value":
                return fmt or ""
    return ".3g"


def fixed_decimals(spec: AttributeSpec) -> int | None:
    """How many decimals the attribute's format shows, or ``None`` when it shows no fixed
    number of them (``.3g``, ``%``).

    >>> from tradeoff.ask.scenario import AttributeSpec
    >>> fixed_decimals(AttributeSpec(name="t", kind="cost", range=(0, 15), label="per case",
    ...                              format="{value:.1f} ms per case"))
    1
    """
    fixed = re.fullmatch(r".*\.(\d+)f", _value_format(spec.format))
    return None if fixed is None else int(fixed.group(1))


def _number(spec: AttributeSpec, value: float) -> str:
    """The number part of ``spec.render(value)``.

    >>> from tradeoff.ask.scenario import AttributeSpec
    >>> spec = AttributeSpec(name="t", kind="cost", range=(-1, 1), label="ms",
    ...                      format="{value:.1f} ms")
    >>> _number(spec, 0.04), _number(spec, -0.0), _number(spec, 0.0)
    ('0.0', '-0.0', '0.0')
    """
    if value == 0:  # 0.0 and −0.0 are one key of the memo, but read differently
        return format(settled(value), _value_format(spec.format))
    return _formatted(_value_format(spec.format), value)


@functools.lru_cache(maxsize=SHOWN_KEPT)
def _formatted(fmt: str, value: float) -> str:
    """``value`` (not 0) formatted by ``fmt`` after :func:`~tradeoff.stable.settled` (the
    same text on every machine); kept for the last ``SHOWN_KEPT`` values."""
    return format(settled(value), fmt)


def amount(spec: AttributeSpec, value: float, words: Words = ENGLISH) -> str:
    """An amount of an attribute with its unit and nothing else: "0.1 ms", "$0.05", "31 KB"
    (the format's own prefix, such as "$", is kept; its trailing words are not).

    >>> from tradeoff.ask.scenario import AttributeSpec
    >>> amount(AttributeSpec(name="cost", kind="cost", unit="$", range=(0, 1),
    ...                      label="per scan", format="${value:.2f} per scan"), 0.05)
    '$0.05'
    """
    prefix = ""
    if spec.format:
        prefix = spec.format.split("{", 1)[0]
    shown = _number(spec, value)
    number = words.digits(shown)
    unit = f" {spec.unit_for(shown)}" if spec.unit and spec.unit not in prefix else ""
    return f"{prefix}{number}{unit}"


def said_amount(spec: AttributeSpec, value: float, words: Words = ENGLISH) -> str:
    """:func:`amount` as a sentence says it, its thousands grouped ("4,093 min"); a card
    keeps the scenario's format, as its lines and their differences read.

    >>> from tradeoff.ask.scenario import AttributeSpec
    >>> spec = AttributeSpec(name="time", kind="cost", unit="min", range=(0, 9000),
    ...                      label="on the way", format="{value:.0f} min on the way")
    >>> amount(spec, 4093.0), said_amount(spec, 4093.0)
    ('4093 min', '4,093 min')
    """
    prefix = spec.format.split("{", 1)[0] if spec.format else ""
    shown = _number(spec, value)
    unit = f" {spec.unit_for(shown)}" if spec.unit and spec.unit not in prefix else ""
    return f"{prefix}{words.digits(grouped(shown))}{unit}"


def grouped(number: str) -> str:
    """A plain number Python formatted (``4093``, ``-12345.5``) with a comma between
    thousands, as a sentence writes it; anything else (``1e+05``, ``inf``) as it is.

    >>> grouped("4093"), grouped("-12345.50"), grouped("999.9"), grouped("1e+05")
    ('4,093', '-12,345.50', '999.9', '1e+05')
    """
    plain = _PLAIN.fullmatch(number)
    if plain is None or len(plain[2]) < 4:
        return number
    return f"{plain[1]}{int(plain[2]):,}{plain[3] or ''}"


#: A plain number as Python formats it: sign, whole digits, decimals.
_PLAIN = re.compile(r"(-?)(\d+)(\.\d*)?")


def shown_number(spec: AttributeSpec, value: float) -> float:
    """The number a person reads for an attribute: ``value`` rounded as its format shows it.

    >>> from tradeoff.ask.scenario import AttributeSpec
    >>> spec = AttributeSpec(name="t", kind="cost", range=(0, 15), label="per case",
    ...                      format="{value:.1f} ms per case")
    >>> shown_number(spec, 9.14159)
    9.1
    """
    if value == 0:  # 0.0 and −0.0 are one key of the memo, but read differently
        read = _read(_number(spec, value))
    else:
        read = _read_formatted(_value_format(spec.format), value)
    return value if read is None else read  # no plain number shown: the value itself


def shown_difference(spec: AttributeSpec, value: float, other: float) -> float:
    """``value`` − ``other`` as a person reads them: each rounded as its format shows it
    first (:func:`shown_number`), so "$0.21" and "$0.20" differ by $0.01 whatever the
    numbers behind them (0.214 and 0.196 differ by 0.018, which reads "$0.02").

    >>> from tradeoff.ask.scenario import AttributeSpec
    >>> spec = AttributeSpec(name="cost", kind="cost", range=(0, 1), label="per scan",
    ...                      format="${value:.2f} per scan")
    >>> round(shown_difference(spec, 0.214, 0.196), 6)
    0.01
    """
    return shown_number(spec, value) - shown_number(spec, other)


def _read(text: str) -> float | None:
    """The number a shown text reads, or ``None`` when it shows no plain number."""
    cleaned = text.replace(",", "").replace("_", "").strip()
    try:
        if cleaned.endswith("%"):
            return float(cleaned[:-1]) / 100
        return float(cleaned)
    except ValueError:
        return None


@functools.lru_cache(maxsize=SHOWN_KEPT)
def _read_formatted(fmt: str, value: float) -> float | None:
    """:func:`_read` of ``value`` (not 0) as :func:`_formatted` writes it; kept for the
    last ``SHOWN_KEPT`` values."""
    return _read(_formatted(fmt, value))


def shown_profile(scenario: Scenario, profile: ClassifierProfile) -> ClassifierProfile:
    """The classifier as a person reads it: recalls per 1,000 and attributes as formatted.

    The display-reading simulated stakeholder answers from this profile, and the engine
    compares two options through it to tell whether a person could see them differ.
    """
    recalls = tuple(per_thousand(r) / PER for r in profile.recalls)
    accuracies = tuple(
        d * shown / r if r > 0 else 0.0
        for d, r, shown in zip(profile.accuracies, profile.recalls, recalls, strict=True)
    )
    attributes = tuple(
        shown_number(spec, v)
        for spec, v in zip(scenario.attributes, profile.attributes, strict=True)
    )
    return ClassifierProfile(accuracies, recalls, attributes)


def shown_pair(scenario: Scenario, query: Query) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The two options of a question as their card lines read, in a fixed order: the same
    value for the same two options whichever side each is shown on (a question "asked
    again" is one with the same key)."""
    left = tuple(line.text for line in card_lines(scenario, query.left, query.right))
    right = tuple(line.text for line in card_lines(scenario, query.right, query.left))
    first, second = sorted((left, right))
    return first, second


def unanswerable(scenario: Scenario, query: Query) -> str | None:
    """Why a person could not answer ``query`` from what the screen shows, or ``None``.

    A question is askable when each option is visibly better on something (the screen
    shows a real trade-off, not two equal cards and not one card better on every line)
    and every recall the question trades lies in its class's ``recall_range``.
    """
    lines = card_lines(scenario, query.left, query.right)
    differing = [line for line in lines if line.differs]
    if not differing:
        return "both options read the same"
    if all(line.better for line in differing) or not any(line.better for line in differing):
        return "one option reads better on every line"
    for i in query.pair:
        if i < scenario.n_classes:
            low, high = scenario.classes[i].recall_range
            for option in (query.left, query.right):
                if not low - 5e-4 <= option.recalls[i] <= high + 5e-4:
                    return f"a recall of {scenario.classes[i].label} outside its recall_range"
    return None


def aspect_cell(scenario: Scenario, j: int, value: float) -> str:
    """A table cell for aspect ``j``: a recall as a count per 1,000 ("941"), an attribute's
    number as its format shows it, digits and all, as the questions show it ("0.20", not
    "0.2").

    >>> from tradeoff.ask.scenario import load_scenario
    >>> sc = load_scenario("scenarios/llm-leaderboard.toml").scenario
    >>> aspect_cell(sc, 0, 0.7), aspect_cell(sc, 1, 36.0)
    ('0.70', '36.0')
    """
    k = scenario.n_classes
    if j < k:
        return f"{per_thousand(value):,}"
    return _number(scenario.attributes[j - k], value)


def card_lines(
    scenario: Scenario,
    mine: ClassifierProfile,
    other: ClassifierProfile,
    words: Words = ENGLISH,
) -> list[Line]:
    """The lines of one option's card, each marked where it differs from the other option
    (whether it differs is the same in every language: it is read from the English text).

    >>> from tradeoff.ask.scenario import load_scenario
    >>> sc = load_scenario("scenarios/glaucoma-screening.toml").scenario
    >>> a = ClassifierProfile((0.3, 0.5), (0.912, 0.84), (0.21, 5.0))
    >>> b = ClassifierProfile((0.3, 0.5), (0.9, 0.84), (0.2, 5.0))
    >>> [line.delta for line in card_lines(sc, a, b)]
    ['12 more', '', '$0.01 more', '']

    A difference is the one between the numbers as shown: "$0.21" against "$0.20" differ
    by $0.01, though 0.214 and 0.196 behind them differ by 0.018.

    >>> c = ClassifierProfile((0.3, 0.5), (0.912, 0.84), (0.214, 5.0))
    >>> d = ClassifierProfile((0.3, 0.5), (0.9, 0.84), (0.196, 5.0))
    >>> [line.delta for line in card_lines(sc, c, d)]
    ['12 more', '', '$0.01 more', '']
    """
    _ = words.gettext
    lines = []
    for i, (r, o) in enumerate(zip(mine.recalls, other.recalls, strict=True)):
        a, b = per_thousand(r), per_thousand(o)
        delta = ""
        if a != b:
            n = {"amount": words.count(abs(a - b))}
            delta = (_("%(amount)s more") if a > b else _("%(amount)s fewer")) % n
        lines.append(Line(class_line(scenario, i, r, words), a != b, a > b, delta))
    for j, (v, o) in enumerate(zip(mine.attributes, other.attributes, strict=True)):
        differs = attribute_line(scenario, j, v) != attribute_line(scenario, j, o)
        better, delta = False, ""
        if differs:
            spec = scenario.attributes[j]
            diff = shown_difference(spec, v, o)
            better = diff < 0 if spec.kind == "cost" else diff > 0
            if counts_itself(spec.name, spec.unit):  # a count ("changes"): "4 fewer"
                n = {"amount": words.digits(_number(spec, abs(diff)))}
                delta = (_("%(amount)s more") if diff > 0 else _("%(amount)s fewer")) % n
            else:
                n = {"amount": amount(spec, abs(diff), words)}
                delta = (_("%(amount)s more") if diff > 0 else _("%(amount)s less")) % n
        lines.append(Line(attribute_line(scenario, j, v, words), differs, better, delta))
    return lines


#: Two options as the screen shows them (:func:`question_key`).
ShownKey = tuple[tuple[str, ...], tuple[str, ...]]

#: Visibly different: recall differs by this much (40 per 1,000), or an attribute by this
#: share of its range.
VISIBLE = 0.04


def visible_difference(space: QuerySpace, a: ClassifierProfile, b: ClassifierProfile) -> float:
    """The larger of the recall difference and the attribute difference as a share of range."""
    diffs = [abs(x - y) for x, y in zip(a.recalls, b.recalls, strict=True)]
    for spec, x, y in zip(space.scenario.attributes, a.attributes, b.attributes, strict=True):
        diffs.append(abs(x - y) / (spec.range[1] - spec.range[0]))
    return max(diffs)


def shown_options(space: QuerySpace, query: Query) -> tuple[ClassifierProfile, ClassifierProfile]:
    """Both options of the question as the screen shows them (:func:`shown_profile`)."""
    return shown_profile(space.scenario, query.left), shown_profile(space.scenario, query.right)


def as_shown(
    space: QuerySpace,
    query: Query,
    options: tuple[ClassifierProfile, ClassifierProfile] | None = None,
) -> Query:
    """The question with both options rounded as the screen shows them
    (:func:`shown_profile`) and the threshold of the rounded options:
    what a person reads is exactly what the answer is taken to be about. ``options``:
    :func:`shown_options` of the question, when the caller has them."""
    left, right = shown_options(space, query) if options is None else options
    ref, other = query.pair
    threshold = space.threshold_of(ref, other, left, right)
    return Query(left, right, query.pair, query.params, threshold, query.repeat_of, query.tag)


def question_key(space: QuerySpace, query: Query, shown: bool) -> ShownKey:
    """What makes two questions "the same pair": the options as shown
    (:func:`shown_pair`), or with ``shown=False`` their exact values."""
    if shown:
        return shown_pair(space.scenario, query)
    a, b = sorted((repr(query.left), repr(query.right)))
    return (a,), (b,)
