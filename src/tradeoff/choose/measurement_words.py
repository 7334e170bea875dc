"""What a person reads about a pool whose numbers carry measurement noise, said once for
every face: why the pick is not the model that measured best (with how many cases each
was measured on) and which models are within measurement noise of the pick.

The report and ``tradeoff pick`` (through :func:`tradeoff.choose.words.likeliest_words` and
:func:`tradeoff.choose.words.noise_words`), the app's result screen
(:func:`recommendation_sentences`), ``tradeoff session show`` and the study page's review
(:func:`stop_sentences`) all say these sentences with the functions below; the page passes
its language as a :class:`~tradeoff.text.Words` (its strings are marked for the catalogue,
:data:`tradeoff.web.i18n.CORE_SOURCES`), a team's report a :class:`~tradeoff.text.Voice`
naming the person. :func:`session_recommendation` is the recommendation over a session's
own draws and plausible measurements, which names the models within noise and the cases.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tradeoff.arrays import FloatArray
from tradeoff.ask.scenario import Scenario
from tradeoff.choose.candidates import recorded_pool
from tradeoff.choose.recommend import NoiseTie, Recommendation, recommend
from tradeoff.learn.verdict import Verdict
from tradeoff.pool import Pool
from tradeoff.stable import settled
from tradeoff.text import ENGLISH, N_, YOU, Voice, Words, and_list, probability_words

__all__ = [
    "chance",
    "measured_best_sentence",
    "measurement_sentences",
    "noise_sentence",
    "noise_stop_sentence",
    "recommendation_sentences",
    "session_recommendation",
    "stop_sentences",
]


def chance(p: float, words: Words = ENGLISH) -> str:
    """A chance in ``words``' language: :func:`tradeoff.text.probability_words` with its
    phrases from the catalogue ("over 99%", never "100%").

    >>> chance(1.0), chance(0.374), chance(0.001)
    ('over 99%', '37%', 'under 1%')
    """
    return probability_words(
        p,
        over=words.gettext(N_("over %(n)s%%")),
        under=words.gettext(N_("under %(n)s%%")),
        whole=words.gettext(N_("%(n)s%%")),
    )


def noise_stop_sentence(verdict: Verdict, noisy: bool, words: Words = ENGLISH) -> str:
    """Why the questions stopped when the measurement noise, not the answers, keeps the
    pick below the stop's confidence (``noisy``: the pool carries a measurement noise;
    :attr:`~tradeoff.learn.verdict.Verdict.stated` under
    :attr:`~tradeoff.learn.verdict.Verdict.confidence`): the answers settle which model
    would be best at the measured numbers, and more of them cannot lift the rest; "" in
    every other case (the app's review and the study page's say it alike).

    >>> print(noise_stop_sentence(Verdict(3, 0.22, 0.3, 0.1, ()), True))
    ... # doctest: +NORMALIZE_WHITESPACE
    The questions stopped early: your answers settle which candidate model would be best
    for you if the models' measured numbers were exact. They were measured on a limited
    number of cases, so the pick is 22% sure; more answers cannot remove that doubt.
    >>> noise_stop_sentence(Verdict(3, 0.97, 0.98, 0.01, ()), True)
    ''
    """
    if not noisy or verdict.practically_tied or settled(verdict.stated) >= verdict.confidence:
        return ""
    return words.gettext(
        N_(
            "The questions stopped early: your answers settle which candidate model "
            "would be best for you if the models' measured numbers were exact. They "
            "were measured on a limited number of cases, so the pick is %(sure)s "
            "sure; more answers cannot remove that doubt."
        )
    ) % {"sure": chance(verdict.stated, words)}


def measured_best_sentence(
    pick: str,
    p_pick: float,
    other: str,
    p_other: float,
    cases: tuple[int | None, int | None] = (None, None),
    voice: Voice = YOU,
    words: Words = ENGLISH,
) -> str:
    """Why the pick (the likeliest best once the measurement noise is counted) is not the
    model ``other`` that measured best, in one sentence; ``cases``: the fewest cases the
    numbers that matter were measured on, ``other``'s and the pick's (said when ``other``
    was measured on fewer). "Measured best" is said by what the person's answers say
    matters to them: the person was never told of a metric. When the two chances read the
    same in whole percentages, the pick is said to be about as likely the best (it is the
    likelier by less than the figures show), not "more likely" beside two equal figures.

    >>> print(measured_best_sentence("trial-3", 0.36, "trial-17", 0.28, (100, 300)))
    ... # doctest: +NORMALIZE_WHITESPACE
    trial-17 measured best by what your answers say matters to you, but on fewer cases (100
    against 300); trial-3 is more likely the best once the measurement noise is counted
    (36%, against 28%).
    >>> print(measured_best_sentence("a", 0.5, "b", 0.3, voice=Voice("dr-kim")))
    ... # doctest: +NORMALIZE_WHITESPACE
    b measured best by what their answers say matters to them, but a is more likely the
    best once the measurement noise is counted (50%, against 30%).
    >>> print(measured_best_sentence("m9", 0.1804, "m10", 0.1796))
    ... # doctest: +NORMALIZE_WHITESPACE
    m10 measured best by what your answers say matters to you, but m9 is about as likely
    the best once the measurement noise is counted (18% each).
    """
    theirs, ours = cases
    p, q = chance(p_pick, words), chance(p_other, words)
    args = {"other": other, "pick": pick, "p": p, "q": q}
    fewer = False
    if theirs is not None and ours is not None and theirs < ours:
        fewer = True
        args |= {"theirs": words.count(theirs), "ours": words.count(ours)}
    if p == q and fewer:
        message = N_(
            "%(other)s measured best by what your answers say matters to you, but on fewer "
            "cases (%(theirs)s against %(ours)s); %(pick)s is about as likely the best once "
            "the measurement noise is counted (%(p)s each)."
        )
    elif p == q:
        message = N_(
            "%(other)s measured best by what your answers say matters to you, but %(pick)s "
            "is about as likely the best once the measurement noise is counted (%(p)s each)."
        )
    elif fewer:
        message = N_(
            "%(other)s measured best by what your answers say matters to you, but on fewer "
            "cases (%(theirs)s against %(ours)s); %(pick)s is more likely the best once the "
            "measurement noise is counted (%(p)s, against %(q)s)."
        )
    else:
        message = N_(
            "%(other)s measured best by what your answers say matters to you, but %(pick)s "
            "is more likely the best once the measurement noise is counted (%(p)s, against "
            "%(q)s)."
        )
    return voice.say(message, words) % args


def noise_sentence(
    pick: str, ties: Sequence[NoiseTie], voice: Voice = YOU, words: Words = ENGLISH
) -> str:
    """The models within measurement noise of the pick
    (:attr:`~tradeoff.choose.recommend.Recommendation.noise_tied`) in one sentence: the
    first with how often it beats the pick, over the plausible measurements and at the
    measured numbers; up to two more with how often; "" for none (always so for a pool
    whose numbers are exact).

    >>> print(noise_sentence("mlp-8", [NoiseTie("logreg", 0.4, 0.02, 300)]))
    ... # doctest: +NORMALIZE_WHITESPACE
    mlp-8 and logreg are within measurement noise for you: on 300 cases their difference
    could go either way (logreg is better in 40% of the plausible measurements, 2% if the
    numbers were exact).

    Further models are named with how often they are better, two at most:

    >>> more = [NoiseTie(f"knn-{k}", 0.3, 0.0, None) for k in (1, 3, 5, 7)]
    >>> said = noise_sentence("mlp-8", more, Voice("dr-kim"))
    >>> said[:81], said.partition("; ")[2]
    ('mlp-8 and knn-1 are within measurement noise for participant dr-kim: within their', \
'so are knn-3 (30%), knn-5 (30%) and 1 more model.')
    """
    if not ties:
        return ""
    tie, *rest = ties
    args = {
        "pick": pick,
        "other": tie.name,
        "share": chance(tie.share, words),
        "exact": chance(tie.exact, words),
    }
    if tie.cases is None:
        message = N_(
            "%(pick)s and %(other)s are within measurement noise for you: within their "
            "standard errors their difference could go either way (%(other)s is better in "
            "%(share)s of the plausible measurements, %(exact)s if the numbers were exact)"
        )
    else:
        message = N_(
            "%(pick)s and %(other)s are within measurement noise for you: on %(cases)s "
            "cases their difference could go either way (%(other)s is better in %(share)s "
            "of the plausible measurements, %(exact)s if the numbers were exact)"
        )
        args["cases"] = words.count(tie.cases)
    if voice.name is not None:  # a named person is named (a team's report), not "them"
        message = message.replace("for you:", "for %(whom)s:")
        args["whom"] = voice.named
    said = voice.say(message, words) % args
    if rest:
        named = [f"{t.name} ({chance(t.share, words)})" for t in rest[:2]]
        more = len(rest) - len(named)
        listed = ", ".join(named) if more else and_list(named, words)
        if more:
            listed = words.ngettext(
                "%(listed)s and %(n)s more model", "%(listed)s and %(n)s more models", more
            ) % {"listed": listed, "n": words.count(more)}
        said += words.gettext(N_("; so are %(listed)s")) % {"listed": listed}
    return said + "."


def measurement_sentences(
    pick: str,
    p_pick: float,
    measured_best: tuple[str, float] | None,
    cases: tuple[int | None, int | None],
    ties: Sequence[NoiseTie],
    voice: Voice = YOU,
    words: Words = ENGLISH,
) -> list[str]:
    """Every sentence said of the measurement noise beside the pick ``pick`` (its P(best)
    ``p_pick``): why it is not the model that measured best (``measured_best``: its name
    and P(best), ``None`` when the pick measured best; ``cases`` as
    :func:`measured_best_sentence` takes them), then the models within measurement noise
    of it (:func:`noise_sentence`); none for a pool whose numbers are exact.

    >>> for line in measurement_sentences("m4", 0.22, ("m10", 0.05), (40, 1000),
    ...                                   [NoiseTie("m10", 0.3, 1.0, 40)]):
    ...     print(line)  # doctest: +NORMALIZE_WHITESPACE
    m10 measured best by what your answers say matters to you, but on fewer cases (40
    against 1,000); m4 is more likely the best once the measurement noise is counted (22%,
    against 5%).
    m4 and m10 are within measurement noise for you: on 40 cases their difference could
    go either way (m10 is better in 30% of the plausible measurements, over 99% if the
    numbers were exact).
    """
    out = []
    if measured_best is not None:
        other, p_other = measured_best
        out.append(measured_best_sentence(pick, p_pick, other, p_other, cases, voice, words))
    if said := noise_sentence(pick, ties, voice, words):
        out.append(said)
    return out


def recommendation_sentences(
    rec: Recommendation, voice: Voice = YOU, words: Words = ENGLISH
) -> list[str]:
    """:func:`measurement_sentences` of a recommendation (the app's result screen, the
    report's summaries).

    >>> rec = Recommendation("m3", 0, (0.9, 1.0), (0.4, 0.05), "m10", "",
    ...                      measured_best="m10", measured_best_p=0.05,
    ...                      measured_cases=(40, 1000))
    >>> recommendation_sentences(rec)[0][:60]
    'm10 measured best by what your answers say matters to you, b'
    """
    measured = (
        None
        if rec.measured_best is None or rec.measured_best_p is None
        else (rec.measured_best, rec.measured_best_p)
    )
    p_pick = 0.0 if rec.p_best is None else rec.p_best[rec.index]
    return measurement_sentences(
        rec.name, p_pick, measured, rec.measured_cases, rec.noise_tied, voice, words
    )


def stop_sentences(
    verdict: Verdict,
    names: Sequence[str],
    rec: Recommendation | None,
    voice: Voice = YOU,
    words: Words = ENGLISH,
) -> list[str]:
    """:func:`measurement_sentences` of the pick the questions stopped on (``session
    show``, the study page's review): the pick and the model that measured best with their
    P(best) as the stop read them (``verdict``; ``names``: every candidate's name in the
    engine's order), the cases and the models within measurement noise from ``rec``
    (:func:`session_recommendation`, over the same draws and plausible measurements) when
    it names the same models; without it, the sentence on the model that measured best
    alone.

    >>> v = Verdict(0, 0.22, 0.3, 0.1, (), measured_best=(1, 0.05))
    >>> stop_sentences(v, ["m4", "m10"], None)[0].partition(", but ")[2]
    'm4 is more likely the best once the measurement noise is counted (22%, against 5%).'
    """
    pick = names[verdict.pick]
    measured: tuple[str, float] | None = None
    cases: tuple[int | None, int | None] = (None, None)
    same = rec is not None and rec.name == pick
    if verdict.measured_best is not None:
        i, p = verdict.measured_best
        measured = (names[i], p)
        if same and rec is not None and rec.measured_best == names[i]:
            cases = rec.measured_cases
    ties = rec.noise_tied if same and rec is not None else ()
    return measurement_sentences(pick, verdict.p_best, measured, cases, ties, voice, words)


def session_recommendation(
    scenario: Scenario,
    scenario_path: str | Path,
    candidates: FloatArray | None,
    weights: Sequence[float],
    priors: Sequence[float] | None,
    posterior: tuple[FloatArray, FloatArray] | None,
    measured: FloatArray | None,
    pool: Pool | None = None,
) -> Recommendation | None:
    """The recommendation over a session's own posterior draws (``posterior``: the draws
    and their weights, :meth:`tradeoff.learn.Engine.weighted_draws`) and plausible
    measurements (``measured``, the engine's), so the pick and P(best) are the ones the
    stop read (as ``study report`` names them): what :func:`stop_sentences` takes the
    cases and the models within measurement noise from. ``None`` without a measurement
    noise, without draws, or when the recorded ``candidates`` are not the scenario's pool
    as it is now, row for row (:func:`~tradeoff.choose.candidates.recorded_pool`; ``pool``:
    the pool beside the scenario file, when the caller read it already)."""
    if measured is None or posterior is None or candidates is None or priors is None:
        return None
    found = recorded_pool(scenario, candidates, priors, str(scenario_path), pool)
    if found is None or found[1] != tuple(found[0].names):
        return None
    return recommend(
        scenario,
        found[0],
        weights,
        priors,
        draws=posterior[0],
        draw_weights=posterior[1],
        vectors=candidates,
        measured=measured,
    )
