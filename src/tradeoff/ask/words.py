"""Words for people: the prompts, a difference between two models, what a trade-off is.

The app, the reports and ``tradeoff session show`` all phrase things through this module
and :mod:`tradeoff.ask.narrative`, with the numbers as the screen shows them
(:mod:`tradeoff.ask.shown`), so a clinician reads "finds 912 of 1,000 glaucoma cases" and
"$0.21 per scan" everywhere.

The words around the scenario's own (its classes' verbs and labels, its attributes' names
and formats, which stay as the study wrote them) are English as written here; a function
given ``words`` (a :class:`tradeoff.text.Words`) says them in that language. The strings are
marked (``N_``, ``gettext``, ``ngettext``) so the study web page's catalogue lists them
(:mod:`tradeoff.web.i18n`). Sentences about a named person (a team's report,
:class:`tradeoff.text.Voice`) are English.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from tradeoff.ask.formats import counts_itself
from tradeoff.ask.queries import Query
from tradeoff.ask.scenario import Scenario
from tradeoff.ask.shown import PER, amount, per_thousand, shown_difference
from tradeoff.text import ENGLISH, N_, YOU, Voice, Words


def _attr_delta(scenario: Scenario, j: int, mine: float, other: float) -> tuple[bool, str]:
    """Whether ``mine`` is the better value, and the difference in words: "0.1 ms more
    latency"; an attribute counted in units of its own name ("changes") says it once, as a
    count: "2 fewer changes", not "2 changes less changes", and "1 fewer change"."""
    spec = scenario.attributes[j]
    diff = shown_difference(spec, mine, other)  # as the two numbers read
    better = diff < 0 if spec.kind == "cost" else diff > 0
    said = amount(spec, abs(diff))
    number, _, unit = said.rpartition(" ")
    if counts_itself(spec.name, spec.unit) and unit == spec.unit_for(number):
        return better, f"{number} {'more' if diff > 0 else 'fewer'} {unit}"
    word = "more" if diff > 0 else "less"
    return better, f"{said} {word} {spec.name}"


def difference_words(
    scenario: Scenario, mine: Sequence[float], other: Sequence[float]
) -> list[str]:
    """How one model differs from another, in the scenario's words, one phrase per aspect
    that differs as shown ("flags 12 more malignant lumps per 1,000 malignant lumps": a
    count per 1,000 of that class's cases; "0.1 ms more latency"). ``mine`` and ``other``
    hold the recalls of the classes, then the attributes in their units.

    >>> from tradeoff.ask.scenario import load_scenario
    >>> sc = load_scenario("scenarios/glaucoma-screening.toml").scenario
    >>> difference_words(sc, [0.912, 0.84, 0.21, 5], [0.9, 0.84, 0.20, 5])
    ['finds 12 more glaucoma cases per 1,000 glaucoma cases', '$0.01 more cost']
    >>> trips = load_scenario("scenarios/train-trips.toml").scenario
    >>> difference_words(trips, [35, 120, 1, 0], [40, 90, 2, 1])
    ['ƒ5.00 less price', '30 min more time', '1 fewer change', '1 step less discomfort']
    """
    k = scenario.n_classes
    words = []
    for i, c in enumerate(scenario.classes):
        d = per_thousand(mine[i]) - per_thousand(other[i])
        if d:
            more = "more" if d > 0 else "fewer"
            words.append(f"{c.verb} {abs(d):,} {more} {c.label} per {PER:,} {c.label}")
    for j in range(len(scenario.attributes)):
        a, b = mine[k + j], other[k + j]
        spec = scenario.attributes[j]
        # Only differences the display shows (not two numbers that read the same).
        if spec.render(a) != spec.render(b):
            words.append(_attr_delta(scenario, j, a, b)[1])
    return words


def aspect_header(scenario: Scenario, j: int) -> str:
    """A two-line column header for aspect ``j`` (classes, then attributes) in the
    scenario's words, short enough for an 80-column table: "malignant\nflagged",
    "latency\nms"."""
    k = scenario.n_classes
    if j < k:
        c = scenario.classes[j]
        return f"{c.name}\n{c.outcome}"
    a = scenario.attributes[j - k]
    return f"{a.name}\n{a.unit}" if a.unit and not counts_itself(a.name, a.unit) else a.name


def table_legend(scenario: Scenario, shown: Collection[int] | None = None) -> str:
    """What the numbers of :func:`aspect_cell` mean, in one sentence: of every aspect, or
    of the aspects ``shown`` (their indices, classes first) where a table shows only some.

    >>> from tradeoff.ask.scenario import load_scenario
    >>> sc = load_scenario("scenarios/breast-cancer-triage.toml").scenario
    >>> table_legend(sc).split("; ")[1]
    'latency in ms, memory in KB.'
    >>> table_legend(sc, shown=(0, 1))
    'Counts are per 1,000 lumps of each kind (malignant lumps flagged, benign lumps cleared).'
    """
    k = scenario.n_classes
    every = range(k + len(scenario.attributes))
    seen = set(every if shown is None else shown)
    kinds = ", ".join(f"{c.label} {c.outcome}" for c in scenario.classes)
    text = f"Counts are per 1,000 {_common_noun(scenario)} of each kind ({kinds})"
    units = [
        f"{a.name} in {a.unit}"
        for j, a in enumerate(scenario.attributes, start=k)
        if j in seen and a.unit and not counts_itself(a.name, a.unit)
    ]
    if scenario.aspects_only or not seen & set(range(k)):  # no counts in view
        return ", ".join(units) + "." if units else ""
    return text + ("; " + ", ".join(units) if units else "") + "."


def _common_noun(scenario: Scenario) -> str:
    """The last word the class labels share ("lumps"), else "cases"."""
    last = {c.label.split()[-1] for c in scenario.classes}
    return last.pop() if len(last) == 1 else "cases"


#: What a question asks, above its two options.
QUESTION_PROMPT = N_("Which one would you rather have?")
#: The same for two of the candidate models (their measured numbers, not a hypothetical trade).
CANDIDATES_PROMPT = N_(
    "These are two of the candidate models, with the numbers they were measured at. "
    "Which one would you rather have?"
)
#: The same for two of the real options when options are described by their aspects alone
#: (a train trip was not measured, nor is it a model).
REAL_OPTIONS_PROMPT = N_(
    "These are two of the real options, as they are listed. Which one would you rather have?"
)


def candidates_noun(scenario: Scenario, plural: bool = True) -> str:
    """What the pool's options are called where a person reads about them: "candidate
    models" (classifiers), or "options" when options are described by their aspects alone
    (train trips are not models).

    >>> from tradeoff.ask.scenario import load_scenario
    >>> candidates_noun(load_scenario("scenarios/train-trips.toml").scenario, plural=False)
    'option'
    """
    noun = option_noun(scenario, plural)
    return noun if scenario.aspects_only else f"candidate {noun}"


def option_noun(scenario: Scenario | None, plural: bool = False) -> str:
    """One of the pool's options in a sentence: "model", or "option" when options are
    described by their aspects alone (``None``, a pool read without a scenario: "model").

    >>> from tradeoff.ask.scenario import load_scenario
    >>> option_noun(load_scenario("scenarios/train-trips.toml").scenario), option_noun(None)
    ('option', 'model')
    """
    noun = "option" if scenario is not None and scenario.aspects_only else "model"
    return noun + "s" if plural else noun


#: The two options' names, left and right.
OPTION_NAMES = (N_("Option A"), N_("Option B"))


def question_prompt(query: Query, words: Words = ENGLISH, aspects_only: bool = False) -> str:
    """The words above a question's options: real candidates are said to be real.

    >>> from tradeoff.ask.queries import ClassifierProfile
    >>> p = ClassifierProfile((0.3, 0.5), (0.8, 0.9), ())
    >>> question_prompt(Query(p, p, (0, 1), (1.0, 0.0)))
    'Which one would you rather have?'
    >>> question_prompt(Query(p, p, (0, 0), (0.0, 0.0), kind="candidates", candidates=(1, 2)))[:34]
    'These are two of the candidate mod'
    """
    if query.kind != "candidates":
        return words.gettext(QUESTION_PROMPT)
    return words.gettext(REAL_OPTIONS_PROMPT if aspects_only else CANDIDATES_PROMPT)


def option_title(
    query: Query, side: int, words: Words = ENGLISH, aspects_only: bool = False
) -> str:
    """A card's title: "Option A" / "Option B", with "candidate model" for real candidates
    ("one of the real options" when options are described by their aspects alone).

    >>> from tradeoff.ask.queries import ClassifierProfile
    >>> p = ClassifierProfile((0.3, 0.5), (0.8, 0.9), ())
    >>> option_title(Query(p, p, (0, 0), (0.0, 0.0), kind="candidates", candidates=(1, 2)), 1)
    'Option B: a candidate model'
    """
    name = words.gettext(OPTION_NAMES[side])
    if query.kind != "candidates":
        return name
    if aspects_only:
        return words.gettext("%(option)s: one of the real options") % {"option": name}
    return words.gettext("%(option)s: a candidate model") % {"option": name}


def aspect_names(scenario: Scenario) -> list[str]:
    """Every aspect as the reviews name it, in the weights' order: a class by its outcome
    and label ("flagged malignant lumps"), an attribute by its name."""
    return [f"{c.outcome} {c.label}" for c in scenario.classes] + [
        a.name for a in scenario.attributes
    ]


def not_asked_words(voice: Voice = YOU, words: Words = ENGLISH) -> str:
    """What a face shows instead of a weight no answer informed
    (:attr:`~tradeoff.learn.base.ElicitationResult.asked` is false for it): no question
    showed two options that differ on it, so its number would be the starting guess, not
    something the person said. (Not "your answers did not need it": a session that ran out
    of questions may leave unasked an aspect the pick turns on, and the verdict's
    ``one_answer`` sentence then says so beside it.)

    >>> not_asked_words(), not_asked_words(Voice("dr-kim"))
    ('not asked: your questions never varied it', 'not asked: their questions never varied it')
    """
    return voice.say(N_("not asked: your questions never varied it"), words)


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
