"""What each page of the study web page shows, in the participant's language.

The option cards, the trade-offs and the consistency check use :mod:`tradeoff.ask.shown`,
:mod:`tradeoff.ask.words` and :mod:`tradeoff.learn`, the same code and numbers as the
terminal, said in the participant's language (:meth:`Language.words`: the catalogue of
:mod:`tradeoff.web.i18n`, numbers in the language's locale); the scenario's own words (its
classes, attributes and formats) stay as the study wrote them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tradeoff.ask.narrative import tradeoffs
from tradeoff.ask.queries import Query
from tradeoff.ask.scenario import LoadedScenario, Scenario
from tradeoff.ask.shown import card_lines
from tradeoff.ask.words import aspect_names, not_asked_words, option_title, question_prompt
from tradeoff.choose.measurement_words import (
    chance,
    noise_stop_sentence,
    session_recommendation,
    stop_sentences,
)
from tradeoff.choose.range_words import outside_range_words
from tradeoff.choose.recommend import Recommendation
from tradeoff.learn import Engine, consistency_of
from tradeoff.learn.shares import left_out_words
from tradeoff.record.recorder import Recorder
from tradeoff.stable import whole_parts
from tradeoff.text import YOU, markdown_html
from tradeoff.web.i18n import Language

if TYPE_CHECKING:
    from tradeoff.pool import Pool


def safe_markdown(text: str) -> str:
    """Markdown from a file (the scenario's description, the consent text) as HTML the page
    holds: :func:`tradeoff.text.markdown_html`, the project's one renderer (raw HTML shown as
    text, an image as its words), with headings one level below the page's own; links with
    a safe address stay links (a consent text that points to a privacy notice).

    >>> safe_markdown("# Hi <b>x</b> ![a map](http://e.org/i.png)")
    '<h2>Hi &lt;b&gt;x&lt;/b&gt; a map</h2>\\n'
    """
    return markdown_html(text, heading_shift=1, links=True)


def chance_words(p: float, lang: Language) -> str:
    """A chance in the participant's language
    (:func:`tradeoff.choose.measurement_words.chance`: "over 99%", never "100%").

    >>> from tradeoff.web.i18n import languages
    >>> chance_words(1.0, languages()["en"]), chance_words(0.374, languages()["en"])
    ('over 99%', '37%')
    """
    return chance(p, lang.words())


@dataclass(frozen=True)
class CardLine:
    text: str
    differs: bool
    better: bool
    delta: str
    word: str


@dataclass(frozen=True)
class Option:
    title: str
    lines: tuple[CardLine, ...]


@dataclass(frozen=True)
class QuestionView:
    """A question as the page shows it."""

    number: int
    answered: int
    total: int
    heading: str
    progress: str
    prompt: str
    options: tuple[Option, ...]


def _engine(of: Engine | Recorder) -> Engine:
    return of.engine if isinstance(of, Recorder) else of


def question_view(
    of: Engine | Recorder,
    lang: Language,
    query: Query | None = None,
    *,
    before: int = 0,
    planned: int = 0,
) -> QuestionView | None:
    """The engine's next question (of an engine, or a recorder's), or ``None`` when none
    is left; or ``query`` (an attention check) shown exactly as a question. ``before``
    attention checks were shown before this page and ``planned`` are in the study: they
    are counted among the questions, so a check reads as one."""
    _ = lang.gettext
    words = lang.words()
    engine = _engine(of)
    query = engine.next_query() if query is None else query
    if query is None:
        return None
    s = engine.scenario
    options = []
    for side, (mine, other) in enumerate(((query.left, query.right), (query.right, query.left))):
        title = option_title(query, side, words, s.aspects_only)
        lines = tuple(
            CardLine(
                line.text,
                line.differs,
                line.better,
                line.delta,
                _("better") if line.better else _("worse"),
            )
            for line in card_lines(s, mine, other, words)
        )
        options.append(Option(title, lines))
    prompt = question_prompt(query, words, s.aspects_only)
    number = engine.answered + 1 + before
    total = max(engine.expected_total() + planned, number)
    left = engine.expected_remaining() + max(planned - before, 0)
    deciding = engine.candidates is not None and engine.spec.stop != "weights"
    progress = (
        lang.ngettext(
            "This is the last question at most.",
            "At most %(left)s questions left, this one included.",
            left,
        )
        if deciding
        else lang.ngettext(
            "About one question left: this one.",
            "About %(left)s questions left, this one included.",
            left,
        )
    ) % {"left": words.count(left)}
    return QuestionView(
        number,
        engine.answered,
        total,
        _("Question %(n)s") % {"n": words.count(number)},
        progress,
        prompt,
        tuple(options),
    )


@dataclass(frozen=True)
class Weight:
    """One weight as the review page shows it; one no answer informed (``asked`` false) is
    said to be not asked, with no number and no meter."""

    name: str
    value: str
    range: str
    percent: int
    asked: bool = True


@dataclass(frozen=True)
class ReviewView:
    """What was learned, as the review page shows it."""

    answered: int
    why: str
    explain: str
    weights: tuple[Weight, ...]
    #: Which aspects no answer informed, so the shares are of the others ("" when none).
    left_out: str
    #: The trade-offs the answers settled, and the ranges of those they did not, each
    #: under its own heading (:func:`~tradeoff.ask.narrative.tradeoffs`).
    settled: tuple[str, ...]
    unsettled: tuple[str, ...]
    consistency: str
    flagged: bool
    can_ask_more: bool
    #: With a measurement noise, when the model that measured best is not the pick: the
    #: pick with its P(best), and why it is not that model (:func:`measured_best_view`);
    #: "" otherwise.
    pick: str = ""
    measured_best: str = ""
    #: The models within measurement noise of the pick (:func:`measured_best_view`), or "".
    noise: str = ""
    #: When the page names the pick and its numbers lie outside the ranges the questions
    #: ask about: that it does (:func:`~tradeoff.choose.range_words.outside_range_words`).
    outside: str = ""


def noise_recommendation(
    engine: Engine, loaded: LoadedScenario, found: tuple[Pool, tuple[str, ...]] | None
) -> Recommendation | None:
    """The recommendation over the engine's own draws and plausible measurements (the pick
    and P(best) the stop read, as ``study report`` names them), which names the models
    within measurement noise of the pick and how many cases the model that measured best
    was measured on (:func:`~tradeoff.choose.measurement_words.session_recommendation`, as
    ``session show`` finds it); ``found``: the pool the engine's candidates were found in
    and their names (:func:`~tradeoff.choose.candidates.recorded_pool`), ``None`` when they
    are not the scenario's pool as it is now (then ``None``)."""
    if found is None:
        return None
    result = engine.result()
    return session_recommendation(
        loaded.scenario,
        loaded.path,
        engine.candidates,
        result.weights,
        result.priors,
        engine.weighted_draws(),
        engine.measured,
        found[0],
    )


def _candidate_name(i: int, names: Sequence[str] | None, lang: Language) -> str:
    if names:
        return names[i]
    return lang.gettext("candidate %(n)s") % {"n": lang.words().count(i + 1)}


def measured_best_view(
    engine: Engine,
    names: Sequence[str] | None,
    lang: Language,
    rec: Recommendation | None = None,
) -> tuple[str, str, str]:
    """The pick, why it is not the model that measured best, and the models within
    measurement noise of it, when the pool carries a measurement noise and that model is
    not the pick (:attr:`~tradeoff.learn.verdict.Verdict.measured_best`), in the
    participant's language: the sentences ``tradeoff session show`` prints for the same
    session, with the same names and numbers
    (:func:`~tradeoff.choose.measurement_words.stop_sentences`, ``rec`` as
    :func:`noise_recommendation` gives it); ``("", "", "")`` otherwise. ``names``: the
    candidates' names in the engine's order (``None``: they are said by number, as
    ``session show`` does)."""
    verdict = engine.verdict()
    if verdict is None or (verdict.measured_best is None and rec is None):
        return "", "", ""
    _ = lang.gettext
    count = 0 if engine.candidates is None else len(engine.candidates)
    called = [_candidate_name(i, names, lang) for i in range(count)]
    said = stop_sentences(verdict, called, rec, YOU, lang.words())
    pick = _("The pick the questions stopped on: %(pick)s (probability it is the best: %(p)s).")
    shown = pick % {"pick": called[verdict.pick], "p": chance_words(verdict.p_best, lang)}
    if verdict.measured_best is None:  # the pick measured best: only the models within noise
        return "", "", " ".join(said)
    return shown, said[0], " ".join(said[1:])


def _why_stopped(engine: Engine, lang: Language) -> str:
    """Why the questions stopped, and, when the pick rests on one answer about some
    aspects (:attr:`~tradeoff.learn.verdict.Verdict.one_answer`), that it does."""
    said = _stop_words(engine, lang)
    verdict = engine.verdict()
    if verdict is None or not verdict.one_answer:
        return said
    names = aspect_names(engine.scenario)  # as the review names them below
    return " ".join([said, verdict.rests_words(names, YOU, lang.words())])


def _stop_words(engine: Engine, lang: Language) -> str:
    _ = lang.gettext
    reason = engine.stop_reason()
    if reason == "decided":
        decision = engine.decision()
        verdict = engine.verdict()
        if verdict is not None and verdict.practically_tied and not engine.scenario.classes:
            return _(
                "The questions stopped early: your answers settle that the pick is the best "
                "candidate for you or practically tied with it: closer than a thousandth of "
                "the range of what you weigh most (%(sure)s sure)."
            ) % {"sure": chance_words(verdict.stated, lang)}
        if verdict is not None and verdict.practically_tied:
            return _(
                "The questions stopped early: your answers settle that the pick is the best "
                "candidate model for you or practically tied with it: closer than a "
                "thousandth of the range of what you weigh most (for a class, one case per "
                "1,000) (%(sure)s sure)."
            ) % {"sure": chance_words(verdict.stated, lang)}
        if verdict is not None and (
            said := noise_stop_sentence(verdict, engine.measured is not None, lang.words())
        ):
            # The answers settle the pick at the measured numbers; what keeps it below the
            # stop's confidence is how exactly the models were measured, not the answers.
            return said
        if engine.scenario.aspects_only:  # the options are not models
            if decision is None:
                return _(
                    "The questions stopped early: your answers already settle which of the "
                    "options is best for you."
                )
            return _(
                "The questions stopped early: your answers already settle which of the "
                "options is best for you (%(sure)s sure)."
            ) % {"sure": chance_words(decision[0], lang)}
        if decision is None:
            return _(
                "The questions stopped early: your answers already settle which of the "
                "candidate models is best for you."
            )
        return _(
            "The questions stopped early: your answers already settle which of the "
            "candidate models is best for you (%(sure)s sure)."
        ) % {"sure": chance_words(decision[0], lang)}
    if reason == "exhausted":
        return _(
            "The questions stopped early: each one left would show options that read the "
            "same on this page, or ask again about a trade you could not tell apart."
        )
    if reason == "precise":
        return _("The questions stopped: your weights are known as precisely as planned.")
    return lang.ngettext(
        "You answered the one planned question.",
        "You answered all %(n)s planned questions.",
        engine.answered,
    ) % {"n": lang.words().count(engine.answered)}


def review_view(
    of: Engine | Recorder,
    scenario: Scenario,
    lang: Language,
    candidates: Sequence[str] | None = None,
    rec: Recommendation | None = None,
    pick_values: Sequence[float] | None = None,
) -> ReviewView:
    """The review of what the answers say (of an engine, or a recorder's), with its
    uncertainty; ``candidates``: the candidates' names, for the pick under a measurement noise
    (:func:`measured_best_view`); ``rec``: the recommendation that names the models within
    measurement noise of the pick (:func:`noise_recommendation`); ``pick_values``: the
    pick's row of the pool, to say when the page names it and it lies outside the ranges the
    questions ask about."""
    _ = lang.gettext
    words = lang.words()
    engine = _engine(of)
    result = engine.result()
    names = aspect_names(scenario)
    # Shares of the asked aspects only: a guess for an unasked one is not counted.
    shares = engine.shares()
    weights = []
    # Parts of one whole, rounded so that they add up to 100 % (a meter keeps its own value).
    parts = whole_parts(shares.values)
    for name, w, interval, part in zip(names, shares.values, shares.intervals, parts, strict=True):
        if w is None or part is None:  # the starting guess: no number, no meter
            weights.append(Weight(name, not_asked_words(YOU, words), "", 0, False))
            continue
        # Under 1 % said so, for the share and for a range wholly under it: a share of 0.6 %
        # beside a range of 0.1–0.4 % read "1% (90% range 0%–0%)", as if outside its range.
        span = (
            ""
            if interval is None
            else _("90%% range under 1%%") % {}
            if interval[1] < 0.01
            else _("90%% range %(low)s%%–%(high)s%%")
            % {
                "low": words.count(round(100 * interval[0])),
                "high": words.count(round(100 * interval[1])),
            }
        )
        share = _("under 1%%") % {} if w < 0.01 else _("%(n)s%%") % {"n": words.count(part)}
        weights.append(Weight(name, share, span, round(100 * w)))
    said = tradeoffs(
        scenario,
        result.weights,
        engine.space.priors,
        engine.weight_draws(),
        asked=result.asked,
        words=words,
    )
    check = consistency_of(engine, words)
    return ReviewView(
        engine.answered,
        _why_stopped(engine, lang),
        (
            lang.ngettext(
                "From your one answer, this is how much each aspect weighs for you over its "
                "whole range (each cost or reward from one end of its range to the other), "
                "with the range it lies in with 90%% probability.",
                "From your %(n)s answers, this is how much each aspect weighs for you over its "
                "whole range (each cost or reward from one end of its range to the other), "
                "with the range it lies in with 90%% probability.",
                result.answers,
            )
            if engine.scenario.aspects_only
            else lang.ngettext(
                "From your one answer, this is how much each aspect weighs for you over its "
                "whole range (finding none to all of a class's cases; each cost or reward from "
                "one end of its range to the other), with the range it lies in with 90%% "
                "probability.",
                "From your %(n)s answers, this is how much each aspect weighs for you over its "
                "whole range (finding none to all of a class's cases; each cost or reward from "
                "one end of its range to the other), with the range it lies in with 90%% "
                "probability.",
                result.answers,
            )
        )
        % {"n": words.count(result.answers)},
        tuple(weights),
        left_out_words(shares, names, YOU, words),
        tuple(t.text for t in said if t.settled),
        tuple(t.text for t in said if not t.settled),
        check.sentence(words),
        check.flagged,
        engine.stop_reason() not in ("exhausted", "precise"),
        *(about := measured_best_view(engine, candidates, lang, rec)),
        _outside(engine, scenario, candidates, pick_values, lang) if any(about) else "",
    )


def _outside(
    engine: Engine,
    scenario: Scenario,
    candidates: Sequence[str] | None,
    values: Sequence[float] | None,
    lang: Language,
) -> str:
    """:func:`~tradeoff.choose.range_words.outside_range_words` of the stop's pick, named
    as :func:`measured_best_view` names it."""
    verdict = engine.verdict()
    if verdict is None or values is None:
        return ""
    name = _candidate_name(verdict.pick, candidates, lang)
    return outside_range_words(scenario, values, name, lang.words())
