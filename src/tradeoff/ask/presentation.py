"""Words for people: classifier profiles, differences and trade-offs in the scenario's language.

The app, the reports and ``tradeoff session show`` all phrase things through this module, so
a clinician reads "finds 912 of 1,000 glaucoma cases" and "$0.21 per scan" everywhere.
Recall is shown as a natural frequency per 1,000 (docs/architecture.md: people see d_i / ζ_i).

The words around the scenario's own (its classes' verbs and labels, its attributes' names
and formats, which stay as the study wrote them) are English as written here; a function
given ``words`` (a :class:`tradeoff.text.Words`) says them in that language, numbers in its
locale's symbols ("1.000", "0,21"). The strings are marked (``N_``, ``gettext``,
``ngettext``) so the study web page's catalogue lists them (:mod:`tradeoff.web.i18n`).
Sentences about a named person (a team's report, :class:`Voice`) are English.
"""

from __future__ import annotations

import functools
import re
import string
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from tradeoff.ask.queries import ClassifierProfile, Query
from tradeoff.ask.scenario import AttributeSpec, Scenario
from tradeoff.stable import settled
from tradeoff.text import ENGLISH, N_, Words

PER = 1000


def per_thousand(recall: float) -> int:
    """Recall as a count out of 1,000, rounded from its :func:`~tradeoff.stable.settled`
    value (a recall of exactly 857.5 per 1,000 reads 858 on every machine, whatever the
    last bits of the float that carries it).

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
        unit = f" {spec.unit}" if spec.unit else ""
        return f"{words.number(value, '.3g')}{unit} {spec.label}"
    formatter = string.Formatter()
    out = []
    for literal, name, fmt, conversion in formatter.parse(spec.format):
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


def _number(spec: AttributeSpec, value: float) -> str:
    """The number part of ``spec.render(value)``."""
    # settled: the same text on every machine (tradeoff.stable)
    return format(settled(value), _value_format(spec.format))


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
    number = words.digits(_number(spec, value))
    unit = f" {spec.unit}" if spec.unit and spec.unit not in prefix else ""
    return f"{prefix}{number}{unit}"


def _attr_delta(scenario: Scenario, j: int, mine: float, other: float) -> tuple[bool, str]:
    spec = scenario.attributes[j]
    diff = mine - other
    better = diff < 0 if spec.kind == "cost" else diff > 0
    word = "more" if diff > 0 else "less"
    return better, f"{amount(spec, abs(diff))} {word} {spec.name}"


def difference_words(
    scenario: Scenario, mine: Sequence[float], other: Sequence[float]
) -> list[str]:
    """How one model differs from another, in the scenario's words, one phrase per aspect
    that differs as shown ("flags 12 more malignant lumps per 1,000", "0.1 ms more
    latency"). ``mine`` and ``other`` hold the recalls of the classes, then the attributes
    in their units.

    >>> from tradeoff.ask.scenario import load_scenario
    >>> sc = load_scenario("scenarios/glaucoma-screening.toml").scenario
    >>> difference_words(sc, [0.912, 0.84, 0.21, 5], [0.9, 0.84, 0.20, 5])
    ['finds 12 more glaucoma cases per 1,000', '$0.01 more cost']
    """
    k = scenario.n_classes
    words = []
    for i, c in enumerate(scenario.classes):
        d = per_thousand(mine[i]) - per_thousand(other[i])
        if d:
            more = "more" if d > 0 else "fewer"
            words.append(f"{c.verb} {abs(d):,} {more} {c.label} per {PER:,}")
    for j in range(len(scenario.attributes)):
        a, b = mine[k + j], other[k + j]
        spec = scenario.attributes[j]
        # Only differences the display can show (not one that rounds to nothing).
        if spec.render(abs(a - b)) != spec.render(0.0):
            words.append(_attr_delta(scenario, j, a, b)[1])
    return words


def shown_number(spec: AttributeSpec, value: float) -> float:
    """The number a person reads for an attribute: ``value`` rounded as its format shows it.

    >>> from tradeoff.ask.scenario import AttributeSpec
    >>> spec = AttributeSpec(name="t", kind="cost", range=(0, 15), label="per case",
    ...                      format="{value:.1f} ms per case")
    >>> shown_number(spec, 9.14159)
    9.1
    """
    text = _number(spec, value)
    cleaned = text.replace(",", "").replace("_", "").strip()
    try:
        if cleaned.endswith("%"):
            return float(cleaned[:-1]) / 100
        return float(cleaned)
    except ValueError:  # a format that shows no plain number: the value itself
        return value


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


def aspect_header(scenario: Scenario, j: int) -> str:
    """A two-line column header for aspect ``j`` (classes, then attributes) in the
    scenario's words, short enough for an 80-column table: "malignant\nflagged",
    "latency\nms"."""
    k = scenario.n_classes
    if j < k:
        c = scenario.classes[j]
        return f"{c.name}\n{c.outcome}"
    a = scenario.attributes[j - k]
    return f"{a.name}\n{a.unit}" if a.unit else a.name


def aspect_cell(scenario: Scenario, j: int, value: float) -> str:
    """A table cell for aspect ``j``: a recall as a count per 1,000 ("941"), an attribute
    as its format shows the number ("0.2")."""
    k = scenario.n_classes
    if j < k:
        return f"{per_thousand(value):,}"
    return f"{shown_number(scenario.attributes[j - k], value):g}"


def table_legend(scenario: Scenario) -> str:
    """What the numbers of :func:`aspect_cell` mean, in one sentence.

    >>> from tradeoff.ask.scenario import load_scenario
    >>> legend = table_legend(load_scenario("scenarios/breast-cancer-triage.toml").scenario)
    >>> legend.split("; ")[1]
    'latency in ms, memory in KB.'
    """
    kinds = ", ".join(f"{c.label} {c.outcome}" for c in scenario.classes)
    text = f"Counts are per 1,000 {_common_noun(scenario)} of each kind ({kinds})"
    units = [f"{a.name} in {a.unit}" for a in scenario.attributes if a.unit]
    if scenario.aspects_only:  # no counts: each aspect in its own unit
        return ", ".join(units) + "." if units else ""
    return text + ("; " + ", ".join(units) if units else "") + "."


def _common_noun(scenario: Scenario) -> str:
    """The last word the class labels share ("lumps"), else "cases"."""
    last = {c.label.split()[-1] for c in scenario.classes}
    return last.pop() if len(last) == 1 else "cases"


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
            diff = v - o
            better = diff < 0 if spec.kind == "cost" else diff > 0
            n = {"amount": amount(spec, abs(diff), words)}
            delta = (_("%(amount)s more") if diff > 0 else _("%(amount)s less")) % n
        lines.append(Line(attribute_line(scenario, j, v, words), differs, better, delta))
    return lines


#: What a question asks, above its two options.
QUESTION_PROMPT = N_("Which one would you rather have?")
#: The same for two of the candidate models (their measured numbers, not a hypothetical trade).
CANDIDATES_PROMPT = N_(
    "These are two of the candidate models, with the numbers they were measured at. "
    "Which one would you rather have?"
)


#: The two options' names, left and right.
OPTION_NAMES = (N_("Option A"), N_("Option B"))


def question_prompt(query: Query, words: Words = ENGLISH) -> str:
    """The words above a question's options: real candidates are said to be real.

    >>> p = ClassifierProfile((0.3, 0.5), (0.8, 0.9), ())
    >>> question_prompt(Query(p, p, (0, 1), (1.0, 0.0)))
    'Which one would you rather have?'
    >>> question_prompt(Query(p, p, (0, 0), (0.0, 0.0), kind="candidates", candidates=(1, 2)))[:34]
    'These are two of the candidate mod'
    """
    prompt = CANDIDATES_PROMPT if query.kind == "candidates" else QUESTION_PROMPT
    return words.gettext(prompt)


def option_title(query: Query, side: int, words: Words = ENGLISH) -> str:
    """A card's title: "Option A" / "Option B", with "candidate model" for real candidates.

    >>> p = ClassifierProfile((0.3, 0.5), (0.8, 0.9), ())
    >>> option_title(Query(p, p, (0, 0), (0.0, 0.0), kind="candidates", candidates=(1, 2)), 1)
    'Option B: a candidate model'
    """
    name = words.gettext(OPTION_NAMES[side])
    if query.kind != "candidates":
        return name
    return words.gettext("%(option)s: a candidate model") % {"option": name}


@dataclass(frozen=True)
class Voice:
    """Whom the sentences about a person's answers speak to: the person reading them
    ("you", the default), or, in a team's report, a person named above them ("they").

    >>> YOU.subject, YOU.them, YOU.their
    ('You', 'you', 'your')
    >>> Voice("dr-kim").subject, Voice("dr-kim").them, Voice("dr-kim").their
    ('dr-kim', 'them', 'their')
    """

    #: The person's name (a participant id); ``None`` speaks to the reader.
    name: str | None = None

    @property
    def subject(self) -> str:
        """Who does something, at the start of a sentence: "You", or the name."""
        return "You" if self.name is None else self.name

    @property
    def them(self) -> str:
        """Who something is worth to: "you" or "them"."""
        return "you" if self.name is None else "them"

    @property
    def their(self) -> str:
        """Whose answers: "your" or "their"."""
        return "your" if self.name is None else "their"

    def say(self, message: str, words: Words = ENGLISH) -> str:
        """A message written to the reader ("you") as this voice says it: translated by
        ``words`` for the reader; for a named person, in English with "you" and "your"
        made "they", "them" and "their", and "You would" the name (as ``%(subject)s``).

        >>> Voice("dr-kim").say("Not settled by your answers: %(text)s")
        'Not settled by their answers: %(text)s'
        >>> Voice("dr-kim").say("You would give up 10; say you would; to you.")
        '%(subject)s would give up 10; say they would; to them.'
        """
        if self.name is None:
            return words.gettext(message)
        for pattern, replacement in _NAMED:
            message = pattern.sub(replacement, message)
        return message


#: How a sentence to the reader speaks of a named person (:meth:`Voice.say`).
_NAMED = (
    (re.compile(r"\bYou would\b"), "%(subject)s would"),
    (re.compile(r"\byou would\b"), "they would"),
    (re.compile(r"\byour\b"), "their"),
    (re.compile(r"\byou\b"), "them"),
)


#: The person reading.
YOU = Voice()


def not_asked_words(voice: Voice = YOU, words: Words = ENGLISH) -> str:
    """What a face shows instead of a weight no answer informed
    (:attr:`~tradeoff.learn.base.ElicitationResult.asked` is false for it): no question
    showed two options that differ on it, so its number would be the starting guess, not
    something the person said.

    >>> not_asked_words(), not_asked_words(Voice("dr-kim"))
    ('not asked: your answers did not need it', 'not asked: their answers did not need it')
    """
    return voice.say(N_("not asked: your answers did not need it"), words)


def tradeoff_headings(voice: Voice = YOU, words: Words = ENGLISH) -> tuple[str, str]:
    """The headings over the trade-offs the answers settled and over those they did not
    (:func:`tradeoffs`), so each sits under words that are true of it.

    >>> tradeoff_headings()
    ('Trade-offs your answers say you would make', 'Not settled by your answers yet')
    >>> tradeoff_headings(Voice("dr-kim"))[0]
    'Trade-offs their answers say they would make'
    """
    return (
        voice.say(N_("Trade-offs your answers say you would make"), words),
        voice.say(N_("Not settled by your answers yet"), words),
    )


@dataclass(frozen=True)
class TradeOff:
    """One trade-off in words: the first class against weight ``aspect`` (another class or
    an attribute), and whether the answers settled it.

    ``text`` says it alone (under a heading of :func:`tradeoff_headings`); ``sentence`` says
    it in a list without headings, an unsettled one opening with "Not settled by your
    answers".
    """

    aspect: int
    text: str
    settled: bool
    voice: Voice = YOU
    words: Words = ENGLISH

    @property
    def sentence(self) -> str:
        if self.settled:
            return self.text
        return self.voice.say(N_("Not settled by your answers: %(text)s"), self.words) % {
            "text": self.text
        }


#: A trade-off is said as a fact only when the answers settle it: its 90% range (over the
#: posterior's draws) spans at most this factor from low to high, in the person's units
#: ("between 5 and 9 ms" is settled, "between 0.5 and 9 ms" is not). Otherwise the range
#: itself is said, under a heading that says the answers have not settled it.
SETTLED_FACTOR = 2.0


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
    dr-kim would give up 100 flagged malignant lumps per 1,000 to save 0.5 ms of latency.
    """
    if scenario.aspects_only:  # no classes: said against the first attribute
        from tradeoff.ask import aspects

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
    per = words.count(PER)
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
                    "10 more %(this)s per %(per)s are worth between %(low)s and %(high)s "
                    "more %(that)s per %(per)s to you (90%% range)."
                ),
                words,
            ) % {
                "this": f"{first.outcome} {first.label}",
                "that": f"{second.outcome} {second.label}",
                "per": per,
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
        over = unit * high > a_hi - a_lo  # more than the whole range: no amount to name
        top = amount(spec, unit * high, words)
        nothing = amount(spec, 0.0, words)
        if top == nothing and not over:  # the whole range rounds to nothing: settled
            text = voice.say(
                N_(
                    "%(n)s more %(this)s per %(per)s are worth next to no %(name)s to you: "
                    "less than the smallest amount shown (90%% range)."
                ),
                words,
            ) % fields
            out.append(TradeOff(other, text, True, voice, words))
            continue
        fields |= {"high": top, "a_low": amount(spec, a_lo, words)}
        fields["a_high"] = amount(spec, a_hi, words)
        if over:
            message = (
                N_(
                    "%(n)s more %(this)s per %(per)s may be worth anything from no %(name)s "
                    "to more than its whole range of %(a_low)s to %(a_high)s to you (90%% range)."
                )
                if fields["low"] == nothing
                else N_(
                    "%(n)s more %(this)s per %(per)s are worth at least %(low)s of %(name)s to "
                    "you, perhaps more than its whole range of %(a_low)s to %(a_high)s "
                    "(90%% range)."
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
    10 more flagged malignant lumps per 1,000 are worth next to no latency to you: less
    than the smallest amount shown (90% range).

    A range that would run past 1,000 cases per 1,000 is said the other way round:

    >>> wide = sure * np.geomspace(0.01, 3.0, 100)[:, None] ** np.array([0, 1, 0, 0])
    >>> print(settled_tradeoff_sentences(sc, w, [0.37, 0.63], wide)[0])
    ... # doctest: +NORMALIZE_WHITESPACE
    Not settled by your answers: 10 more cleared benign lumps per 1,000 are worth between
    0.08 and 14 more flagged malignant lumps per 1,000 to you (90% range).
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
        from tradeoff.ask.aspects import point_tradeoffs

        return point_tradeoffs(scenario, weights, voice, words)
    k = scenario.n_classes
    out = []
    c0 = scenario.classes[0]
    first = f"{c0.outcome} {c0.label}"
    per = words.count(PER)
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
            "10 more %(this)s per %(per)s are worth as much to you as %(n)s more %(that)s "
            "per %(per)s."
        )
        if n0 <= 10:
            this, that, n = f"{ci.outcome} {ci.label}", first, n0
        else:
            this, that, n = first, f"{ci.outcome} {ci.label}", 10 * value_per_case0 / per_case
        fields = {"this": this, "that": that, "per": per, "n": words.number(n, ".1f")}
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
            message = N_(
                "Even the whole range of %(name)s, %(low)s to %(high)s, is worth less to you "
                "than %(n)s more %(this)s per %(per)s."
            )
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
                    "You would give up %(n)s %(this)s per %(per)s to gain %(amount)s of "
                    "%(name)s."
                )
            )
        out.append((k + j, voice.say(message, words) % fields))
    return out
