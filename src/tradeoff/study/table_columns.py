"""What each column of the export's two tables holds: its name, unit, meaning and type.

The answers table's columns depend on the scenario (:func:`columns`: one group per class
and attribute, named by :func:`aspect_slugs`); the participants table's are fixed
(:data:`PARTICIPANT_COLUMNS`; :func:`tradeoff.study.thresholds.participant_columns` adds the
threshold's). :func:`tradeoff.study.export.export_study` writes the tables,
:mod:`tradeoff.study.codebook` the codebook that describes them.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

from tradeoff.ask.scenario import Scenario
from tradeoff.learn import Choice

__all__ = [
    "ANSWERS",
    "PARTICIPANT_COLUMNS",
    "SIDES",
    "Column",
    "Dtype",
    "aspect_slugs",
    "columns",
    "slugify",
]

#: How a column is stored: text, a whole number (``Int64``: one that may be empty), a
#: number, or true/false.
Dtype = Literal["str", "int", "Int64", "float", "bool"]

ANSWERS = {Choice.LEFT: "A", Choice.RIGHT: "B", Choice.INDIFFERENT: "cant_tell"}
SIDES = (("A", "left"), ("B", "right"))
_WEIGHT_UNIT = "weight (0–1, sums to 1)"
_POOL_ROWS = (
    "(the scenario pool's models in the pool file's order, or only its non-dominated ones "
    "when the pool is too large)"
)


@dataclass(frozen=True)
class Column:
    """One column of the table and its codebook entry.

    Parameters
    ----------
    name
        The column's name in the table.
    unit
        Its unit (``per 1,000 cases``, ``fraction``, an attribute's unit, ``ms``, …).
    meaning
        One sentence in the scenario's own words.
    dtype
        How it is stored (:data:`Dtype`).
    values
        For a category, every value it may hold (the data package's ``enum``).
    """

    name: str
    unit: str
    meaning: str
    dtype: Dtype
    values: tuple[str, ...] = ()


def slugify(text: str) -> str:
    """``text`` as part of a column name: lower case, ASCII letters and digits, every other
    run of characters one ``_`` (accents are dropped, not the letters).

    >>> slugify("Malignant lumps"), slugify("  Latency (ms) "), slugify("lésions")
    ('malignant_lumps', 'latency_ms', 'lesions')
    """
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "_", plain.lower()).strip("_")


_FIXED_BEFORE = (
    Column("participant", "id", "The participant's id in the study.", "str"),
    Column("session", "file name", "The session file the answer was read from.", "str"),
    Column(
        "language",
        "language tag",
        "The language this question was shown in (recorded with the answer by the study web "
        "page; for an answer recorded without it, the session's language: the study web "
        "page's 'language' note (when the study asked no consent, or the participant's arm "
        "shows a language of its own), else the consent record's; empty when none was "
        "recorded, as at a terminal).",
        "str",
    ),
    Column(
        "consent_version",
        "text",
        "The version of the consent text the participant agreed to (empty when the session "
        "recorded no consent).",
        "str",
    ),
    Column(
        "pilot",
        "true/false",
        "TRUE when the session was a pilot, a try-out of the study kept apart from the real "
        "data (left out of the export unless it was asked for with --include-pilot).",
        "bool",
    ),
    Column("strategy", "name", "The strategy that chose the questions.", "str"),
    Column(
        "question",
        "number",
        "The question's number as the participant saw it (an answer taken back and given "
        "again repeats the number).",
        "int",
    ),
    Column(
        "answer_seq",
        "number",
        "The order of this answer line among the answer lines of the session file, from 1.",
        "int",
    ),
    Column(
        "kind",
        "category",
        "'trade' for two made-up classifiers that trade one aspect against another, "
        "'candidates' for two real models of the scenario's pool.",
        "str",
        ("trade", "candidates"),
    ),
    Column(
        "candidate_A",
        "row index (from 0)",
        "For a 'candidates' question, Option A's row among the decision candidates the "
        f"session's header recorded {_POOL_ROWS}; empty otherwise.",
        "Int64",
    ),
    Column(
        "candidate_B",
        "row index (from 0)",
        "For a 'candidates' question, Option B's row among the decision candidates the "
        f"session's header recorded {_POOL_ROWS}; empty otherwise.",
        "Int64",
    ),
)

_FIXED_MIDDLE = (
    Column(
        "answer",
        "category",
        "The answer: 'A' (Option A preferred), 'B' (Option B preferred) or 'cant_tell'.",
        "str",
        ("A", "B", "cant_tell"),
    ),
    Column(
        "response_ms",
        "ms",
        "Time from showing the question to the answer, measured as response_timer says "
        "(empty when not recorded).",
        "float",
    ),
    Column(
        "response_timer",
        "category",
        "Whose clock measured response_ms: 'server' for a session of the study web page "
        "(the study server's clock, from making the question's page to receiving the answer, "
        "so the network's time both ways is included and the participant's device cannot "
        "change it), 'app' for any other session (the program that recorded it, such as the "
        "terminal app, on the computer it ran on).",
        "str",
        ("server", "app"),
    ),
    Column("answered_at", "ISO 8601 time", "When the answer was saved (UTC).", "str"),
    Column(
        "undone",
        "true/false",
        "TRUE when a later undo in the same session took this answer back (it then does not "
        "count towards the session's result).",
        "bool",
    ),
    Column(
        "repeat_of",
        "answer index (from 0)",
        "For a question asked again to check consistency, the position (from 0) among the "
        "answers then counted of the question it repeats, so question repeat_of + 1; empty "
        "otherwise.",
        "Int64",
    ),
    Column(
        "is_repeat",
        "true/false",
        "TRUE when the question asks an earlier question again to check consistency.",
        "bool",
    ),
)

_FIXED_AFTER = (
    Column(
        "p_best",
        "probability",
        "Posterior probability, right after this answer, that the model the engine would "
        "pick from the pool is the best one for this participant (empty when the questions "
        "did not aim at a pick).",
        "float",
    ),
    Column(
        "expected_regret",
        "fraction of the spread",
        "Right after this answer, the pick's expected shortfall from the best model, as a "
        "fraction of the mean spread between the pool's best and worst models (empty when "
        "the questions did not aim at a pick).",
        "float",
    ),
)


#: The participants table: one row per participant of the study who has not withdrawn
#: (withdrawn participants are left out entirely, as from the answers table).
PARTICIPANT_COLUMNS = (
    Column(
        "participant",
        "id",
        "The participant's id in the study (the answers table's participant column).",
        "str",
    ),
    Column(
        "state",
        "category",
        "'complete' when a session of theirs was finished, 'unfinished' when they started "
        "one but finished none, 'not started' when they have no session yet, 'declined "
        "consent' when they declined consent and have no session (by a panel's link or "
        "with their access code: entry_via says which), 'erased' when "
        "their data was erased at their request (every other cell of the row is then empty, "
        "0 or FALSE, and they have no row in the answers table). Participants who withdrew "
        "are not in the table at all.",
        "str",
        ("not started", "declined consent", "unfinished", "complete", "erased"),
    ),
    Column(
        "completed",
        "true/false",
        "TRUE when state is 'complete'.",
        "bool",
    ),
    Column(
        "questions_answered",
        "number",
        "Answers that count in the session this row describes (answers taken back by an "
        "undo not included); 0 when not started.",
        "int",
    ),
    Column(
        "sessions",
        "number",
        "Session files of theirs that were exported.",
        "int",
    ),
    Column(
        "session",
        "file name",
        "The session this row describes: their newest complete session, else their newest "
        "session (empty when not started).",
        "str",
    ),
    Column(
        "final_pick",
        "model name",
        "The model the session's answers make best, by name from the scenario's pool, as "
        "'tradeoff study report' computes it (empty when not started or the scenario has "
        "no pool).",
        "str",
    ),
    Column(
        "p_best",
        "probability",
        "The one probability the questions stopped on: the posterior probability that "
        "final_pick is the best model for this participant (or, when the pick is practically "
        "tied with another, that it is best or within the participant's perceivable margin "
        "of the best); empty when not started, without a pool, or when the strategy keeps "
        "no posterior.",
        "float",
    ),
    Column(
        "measured_best",
        "model name",
        "When the pool's numbers carry measurement noise (its _se or _cases columns) and "
        "the model best at the measured numbers for this participant is not final_pick: "
        "that model (final_pick is then the likeliest best once the noise is counted, as "
        "the participant's review and 'tradeoff session show' say); empty otherwise.",
        "str",
    ),
    Column(
        "measured_best_p_best",
        "probability",
        "The posterior probability, measurement noise counted, that measured_best is the "
        "best model for this participant (empty with measured_best).",
        "float",
    ),
    Column(
        "group",
        "number",
        "The group of people who weigh the aspects alike that this participant most likely "
        "belongs to (1: the largest; a Gaussian mixture over the posterior-mean swing "
        "weights of every exported participant whose session is complete, its number of "
        "groups chosen by BIC: the groups of 'tradeoff study report' and the coordinator's "
        "page, which count the same sessions, unless pilots are exported too); empty for "
        "a participant whose session is not complete, and when fewer than two are.",
        "Int64",
    ),
    Column(
        "group_probability",
        "probability",
        "The posterior probability that this participant belongs to their group (empty "
        "with group).",
        "float",
    ),
    Column(
        "panel_id",
        "id",
        "The participant's id on the recruitment panel whose link they came in by (empty "
        "otherwise).",
        "str",
    ),
    Column(
        "entry_via",
        "category",
        "How they came in: 'code' (an access code), 'panel' (a recruitment panel's link) or "
        "'open' (an open link, such as the pilot link); for a participant without a session, "
        "as the study's entries.jsonl says it ('panel' for one let in by the panel's link "
        "who has not consented or declined, 'code' for one who declined with their access "
        "code); empty when nothing recorded an entry (not started with an access code, or a "
        "session recorded elsewhere, as at a terminal).",
        "str",
        ("code", "panel", "open"),
    ),
    Column(
        "pilot",
        "true/false",
        "TRUE when the session this row describes was a pilot, a try-out of the study (pilot "
        "sessions are left out unless the export was asked for them with --include-pilot).",
        "bool",
    ),
    Column(
        "consent_version",
        "text",
        "The version of the consent text they agreed to (empty when no consent was recorded).",
        "str",
    ),
    Column(
        "language",
        "language tag",
        "The language the session was shown in (its 'language' note, written when no "
        "consent carries it or when their arm shows a language of its own, else its consent "
        "record's, else the language its last answer was shown in; empty when none was "
        "recorded).",
        "str",
    ),
    Column(
        "consents",
        "text",
        "Every consent they gave over their sessions, oldest first, separated by '; ': the "
        "version, the language the text was shown in and when, as 'version (language, "
        "time)'; a new consent text makes a participant who agreed to an older one consent "
        "again before their next question (empty when no consent was recorded).",
        "str",
    ),
    Column(
        "checks_shown",
        "count",
        "Attention checks they were shown over their sessions: questions whose one option is "
        "better on every line (a check is never an answer: it is not in the answers table "
        "and the engine never learned from it).",
        "int",
    ),
    Column(
        "checks_failed",
        "count",
        "Attention checks on which they chose the option worse on every line ('can't tell' "
        "is not a failure); --exclude-inattentive leaves out everyone with one or more.",
        "int",
    ),
)


def _aspects(scenario: Scenario) -> list[tuple[str, str]]:
    """(base slug, words) of every weight of the scenario, classes then attributes."""
    out = [
        (slugify(c.label) or slugify(c.name), f"{c.label} {c.outcome}") for c in scenario.classes
    ]
    out += [(slugify(a.name), a.name) for a in scenario.attributes]
    return [(base or f"aspect_{k + 1}", words) for k, (base, words) in enumerate(out)]


def _derived(slug: str, is_class: bool) -> list[str]:
    sides = [
        f"{s}_{slug}{end}"
        for end in (("_per_1000", "_recall") if is_class else ("_shown", ""))
        for s in ("A", "B")
    ]
    return [*sides, f"w_{slug}", f"w_{slug}_lo", f"w_{slug}_hi"]


def aspect_slugs(scenario: Scenario) -> tuple[str, ...]:
    """The slug of every weight (classes by label, attributes by name), made unique so
    that no two columns share a name.

    >>> from tradeoff.ask.scenario import load_scenario
    >>> aspect_slugs(load_scenario("scenarios/breast-cancer-triage.toml").scenario)
    ('malignant_lumps', 'benign_lumps', 'latency', 'memory')
    """
    taken = {c.name for c in (*_FIXED_BEFORE, *_FIXED_MIDDLE, *_FIXED_AFTER)}
    slugs: list[str] = []
    for k, (base, _) in enumerate(_aspects(scenario)):
        is_class = k < scenario.n_classes
        slug, n = base, 1
        while any(name in taken for name in _derived(slug, is_class)):
            n += 1
            slug = f"{base}_{n}"
        taken.update(_derived(slug, is_class))
        slugs.append(slug)
    return tuple(slugs)


def columns(scenario: Scenario) -> tuple[Column, ...]:
    """Every column of a study's table, in order, with its unit and meaning.

    >>> from tradeoff.ask.scenario import load_scenario
    >>> sc = load_scenario("scenarios/breast-cancer-triage.toml").scenario
    >>> [c.name for c in columns(sc)][11:15]
    ['A_malignant_lumps_per_1000', 'B_malignant_lumps_per_1000', 'A_malignant_lumps_recall', \
'B_malignant_lumps_recall']
    """
    slugs = aspect_slugs(scenario)
    aspects = _aspects(scenario)
    k = scenario.n_classes
    shown: list[Column] = []
    for c, slug in zip(scenario.classes, slugs[:k], strict=True):
        for side, _ in SIDES:
            shown.append(
                Column(
                    f"{side}_{slug}_per_1000",
                    "per 1,000 cases",
                    f"Option {side}: of 1,000 {c.label}, how many are {c.outcome}, as the "
                    "screen showed it (rounded).",
                    "int",
                )
            )
        for side, _ in SIDES:
            shown.append(
                Column(
                    f"{side}_{slug}_recall",
                    "fraction",
                    f"Option {side}: the exact share of {c.label} {c.outcome} (recall).",
                    "float",
                )
            )
    for a, slug in zip(scenario.attributes, slugs[k:], strict=True):
        unit = a.unit or "the scenario's unit"
        for side, _ in SIDES:
            shown.append(
                Column(
                    f"{side}_{slug}_shown",
                    unit,
                    f"Option {side}: {a.name} as the screen showed it (in {unit} "
                    f"{a.label}), rounded as the scenario's format rounds it.",
                    "float",
                )
            )
        for side, _ in SIDES:
            shown.append(
                Column(
                    f"{side}_{slug}",
                    unit,
                    f"Option {side}: the exact {a.name}, in {unit} {a.label}.",
                    "float",
                )
            )
    weights: list[Column] = []
    for (_, words), slug in zip(aspects, slugs, strict=True):
        weights += [
            Column(
                f"w_{slug}",
                _WEIGHT_UNIT,
                f"Swing weight of {words} right after this answer (from the posterior-mean "
                "weights): its share of the weight over its whole range in the scenario, of "
                "all the aspects together (a row's weights sum to 1). Until an answer has "
                "informed an aspect, its swing weight is the starting guess; the review, "
                "'session show' and the report's population table give shares of the "
                "informed aspects only, so they differ from these while an aspect is unasked.",
                "float",
            ),
            Column(
                f"w_{slug}_lo",
                "weight (0–1)",
                f"Lower end of the 90 % credible interval of the swing weight of {words} "
                "right after this answer (empty when the strategy gives no interval).",
                "float",
            ),
            Column(
                f"w_{slug}_hi",
                "weight (0–1)",
                f"Upper end of the 90 % credible interval of the swing weight of {words} "
                "right after this answer (empty when the strategy gives no interval).",
                "float",
            ),
        ]
    return (*_FIXED_BEFORE, *shown, *_FIXED_MIDDLE, *weights, *_FIXED_AFTER)
