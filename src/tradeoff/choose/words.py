"""The words about a decision: who each model is for and why, in the people's words and
units, for the faces and the report to show.

The changes of one weight that would alter a pick are said by
:mod:`tradeoff.choose.change_words` (also read from here); :func:`acceptability_words` says
how often each model is best; :func:`plain_summary` is each person's pick, how sure it is
and what would change it, then the group's; :func:`copa_differs` and :func:`omega_note`
speak of COPA's pick for the practitioner. Every chance is said by
:func:`tradeoff.text.probability_words`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from tradeoff.ask.words import difference_words, option_noun
from tradeoff.choose.chances import chance_cells
from tradeoff.choose.change_words import (
    change_sentences,
)
from tradeoff.choose.decision_curves import threshold_lines
from tradeoff.choose.measurement_words import measured_best_sentence, noise_sentence
from tradeoff.choose.rank import RankOutcome
from tradeoff.choose.recommend import Recommendation
from tradeoff.choose.robustness import CONSENSUS_LEAD, LEAD, aspect_words
from tradeoff.choose.selection import Selection
from tradeoff.choose.stakeholder import expected_weights, shown_weights
from tradeoff.learn.particles import PERCEIVABLE
from tradeoff.stable import settled, stable_argmax, whole_percents
from tradeoff.text import YOU, Voice, and_list, plain_number, probability_words


def acceptability_words(
    table: NDArray[np.float64], names: Sequence[str], limit: int = 3, lead: str = LEAD
) -> str:
    """The rank acceptability (:func:`~tradeoff.choose.robustness.rank_acceptability`) in
    one sentence: the models most often best, and how often the most often best is in the
    top ``table.shape[1]``, each chance in :func:`~tradeoff.text.probability_words` (a
    model best in every draw is best in "over 99%", never "100%"). When every model that
    ranks at all is always among them (no more models than that), nothing is said of it.

    Examples
    --------
    >>> table = np.array([[0.62, 0.3, 0.05], [0.3, 0.5, 0.1], [0.08, 0.2, 0.85]])
    >>> acceptability_words(table, ["mlp-8", "logreg", "knn"]).partition(": ")[2]
    'mlp-8 62%, logreg 30%, knn 8%; mlp-8 is among the top 3 in 97%.'
    >>> parts = np.array([[0.425, 0.5], [0.425, 0.4], [0.15, 0.1]])  # read 42% + 42% + 15%
    >>> acceptability_words(parts, ["mlp-8", "logreg", "knn"]).partition(": ")[2]
    'mlp-8 43%, logreg 42%, knn 15%; mlp-8 is among the top 2 in 92%.'
    >>> sure = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> acceptability_words(sure, ["mlp-8", "logreg"]).partition(": ")[2]
    'mlp-8 over 99%.'
    """
    first = np.lexsort((np.arange(len(table)), -table[:, 0]))
    listed = [int(m) for m in first[:limit] if table[m, 0] > 0]
    chances = [float(table[m, 0]) for m in listed]
    # Every model that is ever best listed: the chances are parts of one whole, said so
    # that they add up to 100 % ("over 99%" and "under 1%" stay as probability_words says).
    whole = len(listed) == int(np.count_nonzero(table[:, 0] > 0))
    cells = chance_cells(chances) if whole else tuple(probability_words(p) for p in chances)
    shown = [f"{names[m]} {cell}" for m, cell in zip(listed, cells, strict=True)]
    top = int(first[0])
    ranks = table.shape[1]
    among = probability_words(float(table[top].sum()))
    # Among the top 3 of 3 says nothing: every model that ranks at all is always there.
    sums = table.sum(axis=1)
    said = ranks > 1 and not all(settled(float(x)) >= 1.0 for x in sums if x > 0)
    tail = f"; {names[top]} is among the top {ranks} in {among}." if said else "."
    return f"{lead}: " + ", ".join(shown) + tail


def copa_differs(selection: Selection, rec: Recommendation, pick: RankOutcome) -> str:
    """One sentence for a COPA pick that is not the recommendation, with the difference in
    the person's own units ("COPA's ranking (for the practitioner) picks tree-depth2
    instead, which flags 94 fewer malignant lumps per 1,000 malignant lumps; …")."""
    words = (
        []
        if selection.scenario is None
        else difference_words(
            selection.scenario,
            selection.pool.values[pick.selected.index].tolist(),
            selection.pool.values[rec.index].tolist(),
        )
    )
    than = f", which {'; '.join(words)} than {rec.name}" if words else ", which reads the same"
    return f"COPA's ranking (for the practitioner) picks {pick.selected.name} instead{than}."


def unfinished_words(answers: int, who: str | None = None, what: str = "the pick is") -> str:
    """What a face says of a session whose questions were not finished
    (:attr:`~tradeoff.choose.selection.Stakeholder.complete` false): how many were
    answered, and that ``what`` (a pick, weights) is provisional; ``who`` names the person
    (a team's report).

    Examples
    --------
    >>> print(unfinished_words(3))  # doctest: +NORMALIZE_WHITESPACE
    Unfinished: 3 questions answered so far, with more planned; the pick is provisional and
    may change with more answers.
    >>> print(unfinished_words(1, "dr-kim", "their pick, and so the group's, is"))
    ... # doctest: +NORMALIZE_WHITESPACE
    Unfinished: dr-kim answered 1 question so far, with more planned; their pick, and so the
    group's, is provisional and may change with more answers.
    """
    questions = f"{answers:,} question{'' if answers == 1 else 's'}"
    done = f"{questions} answered" if who is None else f"{who} answered {questions}"
    return (
        f"Unfinished: {done} so far, with more planned; {what} provisional and may change "
        "with more answers."
    )


def chance_words(rec: Recommendation, *, voice: str = "the") -> str:
    """How sure a recommendation is, in words: the number the person's questions stopped on
    (:attr:`~tradeoff.choose.recommend.Recommendation.stated`). A pick said to be
    practically tied (:attr:`~tradeoff.choose.recommend.Recommendation.practically_tied`)
    names the models it is tied with and why it is the one picked; "" for a point estimate.

    >>> from tradeoff.choose.recommend import Recommendation
    >>> sure = Recommendation("mlp-8", 0, (1.0, 0.5), (0.97, 0.03), "logreg", "", 0.99)
    >>> chance_words(sure)
    'probability it is the best: 97%'
    >>> tied = Recommendation("mlp-8", 0, (1.0, 0.9), (0.8, 0.2), "logreg", "", 0.98, ("logreg",),
    ...                       practically_tied=True)
    >>> print(chance_words(tied))  # doctest: +NORMALIZE_WHITESPACE
    practically tied with logreg: it may be better, but by less than a thousandth of the range
    of the aspect weighed most (for a class, one case per 1,000), which the answers cannot
    tell apart; mlp-8 is picked because it is the more likely best (80%); probability it is
    the best or practically tied with it: 98%
    """
    if rec.probability is None:
        return ""
    return stated_words(
        rec.name,
        rec.probability,
        rec.p_near,
        rec.tied if rec.practically_tied else (),
        voice,
        classes=rec.classes,
    )


def noise_words(rec: Recommendation, voice: Voice = YOU) -> str:
    """The models within measurement noise of the pick
    (:attr:`~tradeoff.choose.recommend.Recommendation.noise_tied`), in one sentence of its
    own, said beside :func:`chance_words` by every face
    (:func:`tradeoff.choose.measurement_words.noise_sentence`, the one wording); "" when
    there are none (always so for a pool whose numbers are exact).

    >>> from tradeoff.choose.recommend import NoiseTie, Recommendation
    >>> rec = Recommendation("mlp-8", 0, (1.0, 0.9), (0.6, 0.4), "logreg", "", 0.6,
    ...                      noise_tied=(NoiseTie("logreg", 0.4, 0.02, 300),))
    >>> noise_words(rec, Voice("dr-kim"))[:72]
    'mlp-8 and logreg are within measurement noise for participant dr-kim: on'
    """
    return noise_sentence(rec.name, rec.noise_tied, voice)


#: Another model's P(best) above the pick's by at least this much is said to be the
#: likeliest best (half a percentage point: a difference the shown percentages can show).
LIKELIER = 0.005


def likeliest_words(
    rec: Recommendation, names: Sequence[str], voice: str = "your", person: Voice = YOU
) -> str:
    """Why the pick is not the likeliest best, when it is not, in one sentence; "" when
    it is (or within :data:`LIKELIER`), or with a point estimate. The pick maximises the
    expected value of the metric over what the answers leave open, not P(best): a model
    best more often can be worse on average. With a measurement noise the pick is the
    likeliest best: then why it is not the model that measured best, when it is not
    (:attr:`~tradeoff.choose.recommend.Recommendation.measured_best`,
    :func:`tradeoff.choose.measurement_words.measured_best_sentence`, said to ``person``);
    ``voice``: whose metric the practitioner's sentence names.

    >>> from tradeoff.choose.recommend import Recommendation
    >>> rec = Recommendation("trial-17", 2, (0.50, 0.49, 0.52), (0.36, 0.34, 0.28), "trial-3", "")
    >>> print(likeliest_words(rec, ["trial-3", "trial-11", "trial-17"]))
    ... # doctest: +NORMALIZE_WHITESPACE
    trial-3 is more often the best (36%, against 28%), but trial-17 is recommended because
    it has the highest expected value of your metric over what the answers leave open:
    trial-3 is worse on average.
    >>> likeliest_words(Recommendation("a", 0, (1.0, 0.5), (0.6, 0.4), "b", ""), ["a", "b"])
    ''
    """
    if rec.p_best is None:
        return ""
    if rec.measured_best is not None and rec.measured_best_p is not None:
        return measured_best_sentence(
            rec.name,
            rec.p_best[rec.index],
            rec.measured_best,
            rec.measured_best_p,
            rec.measured_cases,
            person,
        )
    p = np.asarray(rec.p_best, dtype=np.float64)
    other = stable_argmax([float(x) if i != rec.index else -1.0 for i, x in enumerate(p)])
    if not p[other] >= p[rec.index] + LIKELIER:
        return ""
    return (
        f"{names[other]} is more often the best ({probability_words(float(p[other]))}, "
        f"against {probability_words(float(p[rec.index]))}), but {rec.name} is recommended "
        f"because it has the highest expected value of {voice} metric over what the answers "
        f"leave open: {names[other]} is worse on average."
    )


def stated_words(
    name: str,
    p_best: float,
    p_near: float | None,
    tied: Sequence[str],
    voice: str = "the",
    *,
    classes: bool = True,
) -> str:
    """:func:`chance_words` from its parts: the pick ``name``, its P(best), its P(best or
    practically tied) and the models it is said to be practically tied with (none: it is
    not said to be). ``classes``: whether the options are classifiers (the margin is then
    also said for a class); options described by their aspects alone have none.

    >>> print(stated_words("a", 0.6, 0.97, ["b"], classes=False))
    ... # doctest: +NORMALIZE_WHITESPACE
    practically tied with b: it may be better, but by less than a thousandth of the range
    of the aspect weighed most, which the answers cannot tell apart; a is picked because it
    is the more likely best (60%); probability it is the best or practically tied with it: 97%
    """
    if tied and p_near is not None:
        names = list(tied)
        others = and_list(names)
        which = "it" if len(names) == 1 else "each"
        per_class = " (for a class, one case per 1,000)" if classes else ""
        return (
            f"practically tied with {others}: {which} may be better, but by less than a "
            f"thousandth of the range of the aspect weighed most{per_class}, which {voice} "
            "answers cannot tell apart; "
            f"{name} is picked because it is the more likely best "
            f"({probability_words(p_best)}); probability it is the best or "
            f"practically tied with it: {probability_words(p_near)}"
        )
    return f"probability it is the best: {probability_words(p_best)}"


def plain_summary(selection: Selection, changes: int = 2) -> list[str]:
    """Who each model is for and why, in the people's words and units: each person's
    recommendation with its chance of being best and the runner-up trade, how sure that is
    (rank acceptability) and the nearest changes of a weight that would alter it; then the
    consensus for a group; a pick from unfinished questions is said to be provisional. The
    first view of ranking details and the report's summary. For two classes, each person's
    threshold probability (:func:`~tradeoff.choose.decision_curves.threshold_lines`)."""
    names = selection.pool.names
    lines = []
    for i, (s, rec, _, _) in enumerate(selection.rows()):
        sure = "" if rec.probability is None else f" ({chance_words(rec, voice='their')})"
        noun = option_noun(selection.scenario)
        line = f"For {s.participant}: {rec.name}, the {noun} their answers make best{sure}."
        person = Voice(s.participant)
        if likelier := likeliest_words(rec, names, voice="their", person=person):
            line += f" {likelier}"
        if noise := noise_words(rec, person):
            line += f" {noise}"
        if outside := selection.outside_ranges(rec):
            line += f" {outside}"
        if rec.trade:
            line += f" {rec.trade[0].upper()}{rec.trade[1:]}."
        if s.consistency is not None and s.consistency.flagged:
            line += f" {s.consistency.sentence()}"
        lines.append(line)
        if not s.complete:
            lines.append(f"  {unfinished_words(s.answers)}")
        table = selection.acceptability[i] if selection.acceptability else None
        if table is not None:
            lines.append(f"  {acceptability_words(table, names)}")
        if selection.changes:
            lines += [f"  {t}" for t in change_sentences(selection.changes[i], names, changes)]
        if tuned := tuned_words(selection, i):
            lines.append(f"  {tuned}")
        lines += [f"  {t}" for t in threshold_lines(selection, i)]
    if len(selection.stakeholders) > 1:
        if all(names[r.index] == selection.consensus_name for r in selection.recommendations):
            lines.append(f"For the group: {selection.consensus_name}, everyone's own pick.")
        else:
            lines.append(
                f"For the group: {selection.consensus_name}, the "
                f"{option_noun(selection.scenario)} whose largest regret "
                f"over everyone is smallest ({selection.consensus_max_regret:.0%} of the "
                "spread of someone's own metric over the pool)."
            )
        if selection.consensus_acceptability is not None:
            lines.append(
                "  "
                + acceptability_words(selection.consensus_acceptability, names, lead=CONSENSUS_LEAD)
            )
        if selection.consensus_changes:
            lines += [
                f"  {t.rstrip('.')} (that weight changed for everyone)."
                for t in change_sentences(selection.consensus_changes, names, changes)
            ]
    return lines


def order_words(method: str = "copa", scores: bool = True) -> str:
    """How a COPA (or baseline) ranking is ordered, for the table that shows it: the lower
    score is the better, and models whose scores tie (marked ``=``) are placed by the
    tie-break (:func:`tradeoff.choose.copa.rank_by`). ``scores``: whether the table shows
    the scores (else only the places).

    >>> print(order_words())  # doctest: +NORMALIZE_WHITESPACE
    Best first: a lower score is better. Models whose scores tie (marked =) are ordered by
    the sum of their top-% shares, lower first, then by their row in the pool.
    """
    shares = "top-% shares" if method == "copa" else f"objectives as {method} scores them"
    lead = "Best first: a lower score is better." if scores else "Best first (lowest score)."
    return (
        f"{lead} Models whose scores tie (marked =) are ordered by the sum of their "
        f"{shares}, lower first, then by their row in the pool."
    )


def top_words(noun: str = "model") -> str:
    """What a ranking table's "top-x%" cells mean (:func:`tradeoff.choose.copa.top_percent`),
    as ``pool rank``, the report and the app's ranking details say it.

    >>> top_words("option")
    'Top-x%: x% of options are better on it (none: top-1%).'
    """
    return f"Top-x%: x% of {noun}s are better on it (none: top-1%)."


#: What each of :data:`~tradeoff.choose.pool_metric.OMEGA_MAPPINGS` does, for the line that
#: says which one set COPA's ω (:func:`omega_mapping_words`).
_MAPPING_WORDS = {
    "swing": "each objective's ω is its weight in the metric times its range in the pool",
    "fitted": (
        "ω fitted so that COPA's scores follow how far each {noun} falls short of the metric's pick"
    ),
    "anchored": (
        "ω set so that the metric's pick scores the same on every objective, so no other "
        "{noun} ranks above it unless it is ranked better on all of them"
    ),
}


def omega_mapping_words(mapping: str, noun: str = "model") -> str:
    """The line above a COPA ranking made to agree with a metric: how its ω was set
    (``mapping``, one of :data:`~tradeoff.choose.pool_metric.OMEGA_MAPPINGS`, chosen by
    :func:`~tradeoff.choose.pool_metric.omega_for_metric`).

    >>> print(omega_mapping_words("anchored"))  # doctest: +NORMALIZE_WHITESPACE
    COPA's ranking of the pool, ω chosen to agree with the metric: ω set so that the
    metric's pick scores the same on every objective, so no other model ranks above it
    unless it is ranked better on all of them.
    """
    how = _MAPPING_WORDS.get(mapping, mapping).format(noun=noun)
    return f"COPA's ranking of the pool, ω chosen to agree with the metric: {how}."


def omega_note(selection: Selection, gap: float = 0.15, limit: int = 3) -> str:
    """One sentence on COPA's ω for the practitioner, naming the aspects (at most ``limit``)
    where ω looks unlike a person's own weights (over each aspect's whole range) by more
    than ``gap``, each person named once. A weight no answer informed is left out: it is a
    starting guess, not the person's.

    Examples
    --------
    >>> from types import SimpleNamespace as Fake
    >>> from tradeoff.ask.scenario import load_scenario
    >>> sc = load_scenario("scenarios/breast-cancer-triage.toml").scenario
    >>> kim = Fake(participant="dr-kim", swing_weights=(0.24, 0.16, 0.24, 0.36), asked=None,
    ...            shares=None)
    >>> pick = Fake(weights=(0.60, 0.06, 0.08, 0.25))
    >>> note = omega_note(Fake(scenario=sc, stakeholders=[kim], picks=[pick]))
    >>> print(note.split(". ", 1)[1])  # doctest: +NORMALIZE_WHITESPACE
    So for dr-kim, ω gives flagged malignant lumps 60% (their weight: 24%) and latency 8%
    (their weight: 24%): ω is fitted to the person's order of the models, not read off
    their weights, so an aspect whose ranks happen to track that order gets more ω and one
    that barely moves the pick can get less.
    """
    one = option_noun(selection.scenario)
    base = (
        f"COPA scores {'an' if one[0] in 'aeiou' else 'a'} {one} by its rank among the "
        "candidates on each aspect (top-%), not by amounts, so ω is not what anyone values: it "
        "is the set of weights under which that rank-based score orders the pool most like "
        "the person's own metric"
    )
    if selection.scenario is None:
        return base + "."
    aspects = aspect_words(selection.scenario)
    people = []
    said = 0
    for s, pick in zip(selection.stakeholders, selection.picks, strict=True):
        # Their weights as the review shows them: shares of the aspects they were asked.
        own = [0.0 if v is None else v for v in shown_weights(s)]
        # Both are parts of one whole, said as they add up to 100 %.
        omegas, theirs = whole_percents(pick.weights), whole_percents(own)
        unlike = [
            f"{aspect} {omegas[j]} (their weight: {theirs[j]})"
            for j, aspect in enumerate(aspects)
            if (s.asked is None or s.asked[j]) and abs(pick.weights[j] - own[j]) > gap
        ][: limit - said]
        if unlike:
            said += len(unlike)
            listed = and_list(unlike)
            people.append(f"for {s.participant}, ω gives {listed}")
        if said >= limit:
            break
    if not people:
        return base + "."
    return (
        f"{base}. So {'; '.join(people)}: ω is fitted to the person's order of the "
        f"{option_noun(selection.scenario, True)}, not read off their weights, so an aspect "
        "whose ranks happen to track that order gets more ω and one that barely moves the "
        "pick can get less."
    )


def tuned_words(selection: Selection, person: int) -> str:
    """One sentence on the models tuned to a person (``tradeoff pool from-sklearn --for``:
    the rows whose ``variant_of`` names a model) for stakeholder ``person``: the best of
    them against the best untuned model, in their expected metric, the gain said as what it
    is worth in the aspect they weigh most over its whole range among those their answers
    informed ("as much as a model that clears 4.7 more benign lumps per 1,000 benign
    lumps"; "as much as a model whose latency is 3 ms lower"); that none is when the gain
    is below what they can perceive (:func:`~tradeoff.learn.particles.perceivable_margin`);
    "" when the pool holds no tuned model.

    Examples
    --------
    >>> from types import SimpleNamespace as Fake
    >>> import pandas as pd
    >>> from tradeoff.ask.scenario import load_scenario
    >>> sc = load_scenario("scenarios/breast-cancer-triage.toml").scenario
    >>> pool = Fake(names=("lr", "lr (tuned for kim)"),
    ...             frame=pd.DataFrame({"variant_of": [None, "lr"], "tuned_for": [None, "kim"]}))
    >>> kim = Fake(participant="kim", priors=(0.4, 0.6), posterior=None, draws=None,
    ...            weights=(0.5, 0.5, 0.0, 0.0), asked=None)
    >>> rec = Fake(expected=(0.40, 0.4014))
    >>> print(tuned_words(Fake(pool=pool, scenario=sc, stakeholders=[kim],
    ...                        recommendations=[rec]), 0))  # doctest: +NORMALIZE_WHITESPACE
    Tuned to a person: lr (tuned for kim) is better for kim than the best untuned model, lr, by
    as much as a model that clears 4.7 more benign lumps per 1,000 benign lumps.

    (Benign lumps weigh most over their range, ½·0.6; 0.0014 of ψ is 1,000·0.0014/(½·0.6)
    more cleared per 1,000 benign lumps.)

    A gain of 0.0002, under the 0.001·(½·0.6) they can perceive:

    >>> print(tuned_words(Fake(pool=pool, scenario=sc, stakeholders=[kim],
    ...                        recommendations=[Fake(expected=(0.40, 0.4002))]), 0))
    ... # doctest: +NORMALIZE_WHITESPACE
    Tuned to a person: no tuned model is better for kim than the best untuned model, lr, by as
    much as they can perceive.

    The same gain when the tuned model is the pick (by a gain none can see):

    >>> print(tuned_words(Fake(pool=pool, scenario=sc, stakeholders=[kim],
    ...       recommendations=[Fake(expected=(0.40, 0.4002), name="lr (tuned for kim)")]), 0))
    ... # doctest: +NORMALIZE_WHITESPACE
    Tuned to a person: the pick, lr (tuned for kim), differs for kim from the best untuned
    model, lr, by less than they can perceive: either serves them as well.

    A tuned pick that is worse on average (the likelier best once the measurement noise
    is counted):

    >>> print(tuned_words(Fake(pool=pool, scenario=sc, stakeholders=[kim],
    ...       recommendations=[Fake(expected=(0.40, 0.398), name="lr (tuned for kim)")]), 0))
    ... # doctest: +NORMALIZE_WHITESPACE
    Tuned to a person: the pick, lr (tuned for kim), is the likelier best for kim, though the
    best untuned model, lr, is better for them on average over the plausible measurements.
    """
    frame, scenario = selection.pool.frame, selection.scenario
    if "variant_of" not in frame.columns or scenario is None:
        return ""
    tuned = np.array([isinstance(v, str) and v != "" for v in frame["variant_of"].tolist()])
    if not tuned.any() or tuned.all():
        return ""
    s = selection.stakeholders[person]
    expected = np.asarray(selection.recommendations[person].expected, dtype=np.float64)
    rows = np.arange(len(expected))
    best_tuned = int(rows[tuned][stable_argmax(expected[tuned])])
    best_plain = int(rows[~tuned][stable_argmax(expected[~tuned])])
    names = selection.pool.names
    gain = float(expected[best_tuned] - expected[best_plain])
    k = scenario.n_classes
    weights = np.asarray(expected_weights(s), dtype=np.float64)
    spans = np.asarray(
        list(s.priors) + [a.range[1] - a.range[0] for a in scenario.attributes], dtype=np.float64
    )
    swing = weights * spans
    if s.asked is not None and any(s.asked):  # said in an aspect the answers informed
        swing = np.where(np.asarray(s.asked, dtype=bool), swing, 0.0)
    top = stable_argmax(swing)
    margin = PERCEIVABLE * float(swing[top])
    if gain < margin:  # within what they can perceive: no gain
        picked = getattr(selection.recommendations[person], "name", None)
        if gain > -margin and picked == names[best_tuned]:  # the pick, by a gain none sees
            return (
                f"Tuned to a person: the pick, {names[best_tuned]}, differs for "
                f"{s.participant} from the best untuned model, {names[best_plain]}, by "
                "less than they can perceive: either serves them as well."
            )
        if picked == names[best_tuned]:  # the likelier best, not the better on average
            return (
                f"Tuned to a person: the pick, {names[best_tuned]}, is the likelier best for "
                f"{s.participant}, though the best untuned model, {names[best_plain]}, is "
                "better for them on average over the plausible measurements."
            )
        return (
            f"Tuned to a person: no tuned model is better for {s.participant} than the best "
            f"untuned model, {names[best_plain]}, by as much as they can perceive."
        )
    if top < k:
        c = scenario.classes[top]
        worth = (
            f"a model that {c.verb} {plain_number(1000 * gain / (weights[top] * s.priors[top]))} "
            f"more {c.label} per 1,000 {c.label}"
        )
    else:
        a = scenario.attributes[top - k]
        lower = "lower" if a.kind == "cost" else "higher"
        worth = f"a model whose {a.name} is {plain_number(gain / weights[top])} {a.unit} {lower}"
    return (
        f"Tuned to a person: {names[best_tuned]} is better for {s.participant} than the best "
        f"untuned model, {names[best_plain]}, by as much as {worth}."
    )
