"""The lines of a session file: one typed record per line type, and the chain of hashes.

A session is a JSON Lines file, ``sessions/<participant>/<scenario-id>-<UTC timestamp>.jsonl``
(format 3, docs/architecture.md "Files"). Each line type is one pydantic model, used both to
write the line (:func:`record_bytes`: the model's fields in order) and to read it
(:func:`tradeoff.record.log.read_session`): :class:`ConsentRecord` (a study participant's
consent; when present, line 1), :class:`EntryRecord` (how a study participant came in: an
access code, a panel's link, a pilot; when present, just before the header), the
:class:`HeaderRecord` (format, tradeoff version, the scenario stored once as its TOML text
and sha256, participant, strategy, seed, budget, start
time, the candidates' metric rows and, when the pool carries a measurement noise, how
they were measured (:class:`MeasurementRecord`); read into :class:`Header`, which adds the parsed
scenario), then :class:`AnswerRecord` (both profiles, the choice left/right/indifferent, the
response time), :class:`UndoRecord`, :class:`NoteRecord`, :class:`ExtendRecord` (more
questions asked for after a review), :class:`CheckRecord` (an attention check, never an
answer) and a later :class:`ConsentRecord` (consent given again to a new version of the
study's text); a :class:`ResultRecord` closes a finished session and is
always last. Every line ends with ``"chain"`` (:func:`chained_line`): sha256 of the previous
line's chain and this line's JSON without the chain (the first line chains from a fixed
seed), so an edited, deleted, added or moved line is evident. The chain makes edits evident,
not impossible: someone who recomputes every hash can still rewrite a file. Format 2 files
(the same chain, the scenario also stored parsed) and format 1 files (no chain) still replay.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

import numpy as np
from numpy.typing import NDArray
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
)

from tradeoff.ask.queries import ClassifierProfile, Query
from tradeoff.ask.scenario import ElicitationSpec, Scenario, StrategyName
from tradeoff.errors import InputError
from tradeoff.learn import Choice, ElicitationResult
from tradeoff.limits import MAX_DECISION_CANDIDATES

FORMAT_VERSION = 3
"""Format written: one typed record per line, each carrying a ``chain`` hash, the scenario
stored once (its text). Format 2 (the same chain, the scenario also stored parsed) and
format 1 (no chain) still replay."""
READABLE_FORMATS = (1, 2, 3)
_PARTICIPANT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_CHAIN_SUFFIX = re.compile(r', "chain": "([0-9a-f]{64})"\}$')
_CHAIN_SEED = b"tradeoff session\n"


def valid_participant(participant: str) -> bool:
    """Whether ``participant`` is safe as a folder name (the one rule for ids)."""
    return bool(_PARTICIPANT.fullmatch(participant)) and ".." not in participant


def check_participant(participant: str) -> str:
    """A participant id that is safe as a file name, or an InputError saying why not.

    >>> check_participant("dr-lee")
    'dr-lee'
    """
    if not valid_participant(participant):
        raise InputError.single(
            "participant id",
            repr(participant),
            "cannot be a folder name, which every id becomes.",
            "use 1–64 letters, digits, '.', '-' or '_', starting with a letter or digit, "
            "without '..' (no slashes, spaces or control characters).",
        )
    return participant


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def query_to_dict(query: Query) -> dict[str, Any]:
    return {
        "left": query.left.to_dict(),
        "right": query.right.to_dict(),
        "pair": list(query.pair),
        "params": list(query.params),
        "threshold": query.threshold,
        "repeat_of": query.repeat_of,
        **(
            {
                "kind": query.kind,
                "candidates": None if query.candidates is None else list(query.candidates),
            }
            if query.kind != "trade"
            else {}
        ),
    }


FiniteFloat = Annotated[float, Field(allow_inf_nan=False)]


class _Record(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class ProfileRecord(_Record):
    """One option of a recorded question."""

    accuracies: tuple[FiniteFloat, ...]
    recalls: tuple[FiniteFloat, ...]
    attributes: tuple[FiniteFloat, ...]


class QueryRecord(_Record):
    """A recorded question: both options and what the strategy meant by asking it."""

    left: ProfileRecord
    right: ProfileRecord
    pair: tuple[Annotated[int, Field(strict=True, ge=0)], Annotated[int, Field(strict=True, ge=0)]]
    params: tuple[FiniteFloat, FiniteFloat]
    threshold: FiniteFloat | None = None
    repeat_of: Annotated[int, Field(strict=True, ge=0)] | None = None
    kind: Literal["trade", "candidates", "recorded", "check"] = "trade"
    candidates: (
        tuple[Annotated[int, Field(strict=True, ge=0)], Annotated[int, Field(strict=True, ge=0)]]
        | None
    ) = None

    @model_serializer(mode="wrap")
    def _written(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """A trade is written without ``kind`` and ``candidates`` (as before they existed)."""
        out: dict[str, Any] = handler(self)
        if self.kind == "trade" and self.candidates is None:
            out.pop("kind", None)
            out.pop("candidates", None)
        return out

    @classmethod
    def of(cls, query: Query) -> QueryRecord:
        """The record of a question as asked."""
        return cls.model_validate(query_to_dict(query))

    def to_query(self) -> Query:
        return Query(
            ClassifierProfile(self.left.accuracies, self.left.recalls, self.left.attributes),
            ClassifierProfile(self.right.accuracies, self.right.recalls, self.right.attributes),
            self.pair,
            self.params,
            self.threshold,
            self.repeat_of,
            kind=self.kind,
            candidates=self.candidates,
        )


class AnswerRecord(_Record):
    """``answer``: the question as shown and the person's choice; ``language``, the
    language the question was shown in (a study page's; written only when known, so an
    answer of an earlier version is written again byte for byte)."""

    type: Literal["answer"]
    index: Annotated[int, Field(strict=True, ge=1)] | None = None
    query: QueryRecord
    choice: Choice
    response_ms: Annotated[float, Field(allow_inf_nan=False, ge=0)] | None = None
    at: str = ""
    language: Annotated[str, Field(min_length=1, max_length=35)] | None = None
    #: The line of the file of recorded choices the answer was read from
    #: (:attr:`HeaderRecord.source`), for a session made from one.
    source_line: Annotated[int, Field(strict=True, ge=1)] | None = None

    @model_serializer(mode="wrap")
    def _written(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Without ``language`` when it is not known and without ``source_line`` when the
        answer was given here (as before they existed)."""
        out: dict[str, Any] = handler(self)
        for name in ("language", "source_line"):
            if getattr(self, name) is None:
                out.pop(name, None)
        return out


class CheckRecord(_Record):
    """``check``: an attention check shown before question ``position`` (a dominated pair,
    :func:`tradeoff.ask.checks.attention_check`), the side that is better as shown and the
    person's choice. Never an answer: the engine does not learn from it; a replay checks
    that its better side is as recorded and that it came before that question."""

    type: Literal["check"]
    position: Annotated[int, Field(strict=True, ge=1)]
    query: QueryRecord
    dominant: Literal["left", "right"]
    choice: Choice
    response_ms: Annotated[float, Field(allow_inf_nan=False, ge=0)] | None = None
    at: str = ""
    language: Annotated[str, Field(min_length=1, max_length=35)] | None = None

    @property
    def failed(self) -> bool:
        """Whether the person chose the dominated option."""
        return self.choice.value in ("left", "right") and self.choice.value != self.dominant


class UndoRecord(_Record):
    """``undo``: the last answer taken back."""

    type: Literal["undo"]
    at: str = ""


class NoteRecord(_Record):
    """``note``: free text (e.g. ``paused``)."""

    type: Literal["note"]
    text: str = ""
    at: str = ""


class ExtendRecord(_Record):
    """``extend``: more questions asked for after a review."""

    type: Literal["extend"]
    extra: Annotated[int, Field(strict=True, ge=1, le=10_000)]
    at: str = ""


class ResultRecord(_Record):
    """``result``: what was learned, :class:`~tradeoff.learn.ElicitationResult`'s fields
    in its order, then the time; closes a finished session (always the last line).

    ``asked`` (which weights an answer informed) is not written: a replay of the answers
    gives it, and every version of tradeoff wrote these fields in this order (the last four
    were added over time, so they may be missing), so a result line of format 1, 2 or 3 is written
    again byte for byte from the record read.
    """

    type: Literal["result"]
    strategy: str
    names: tuple[str, ...]
    weights: tuple[FiniteFloat, ...]
    answers: Annotated[int, Field(strict=True, ge=0)]
    complete: Annotated[bool, Field(strict=True)]
    intervals: tuple[tuple[FiniteFloat, FiniteFloat], ...] | None = None
    error_rate_estimate: FiniteFloat | None = None
    swing_weights: tuple[FiniteFloat, ...] | None = None
    swing_intervals: tuple[tuple[FiniteFloat, FiniteFloat], ...] | None = None
    priors: tuple[FiniteFloat, ...] | None = None
    at: str = ""

    @classmethod
    def of(cls, result: ElicitationResult) -> ResultRecord:
        """The record of a result, written now."""
        fields = {k: v for k, v in result.to_dict().items() if k != "asked"}
        return cls.model_validate({"type": "result", **fields, "at": now()})


class ConsentRecord(_Record):
    """``consent``: the participant agreed to a study's information and consent text (its
    version and the sha256 of the text shown, in the language shown). When present it is
    the first line of the file: the chain of hashes starts at it and the header follows."""

    type: Literal["consent"]
    version: Annotated[str, Field(min_length=1, max_length=64)]
    text_sha256: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
    language: Annotated[str, Field(min_length=1, max_length=35)] = "en"
    at: str = ""


class EntryRecord(_Record):
    """``entry``: how a study participant came in, written before the header (after the
    consent, when there is one), so the chain of hashes covers it.

    ``via`` is ``code`` (an access code), ``panel`` (a recruitment panel's link: the
    participant's id on the panel in ``panel_id``, the link's other parameters the study
    keeps, such as Prolific's ``STUDY_ID`` and ``SESSION_ID``, in ``params``) or ``open``
    (an open link without a panel id); ``pilot`` marks a try-out of the study, kept apart
    from the real data.
    """

    type: Literal["entry"]
    via: Literal["code", "panel", "open"]
    panel_id: Annotated[str, Field(min_length=1, max_length=128)] | None = None
    params: dict[
        Annotated[str, Field(min_length=1, max_length=64)],
        Annotated[str, Field(max_length=256)],
    ] = Field(default_factory=dict, max_length=16)
    pilot: Annotated[bool, Field(strict=True)] = False
    at: str = ""


Event = Annotated[
    AnswerRecord
    | UndoRecord
    | NoteRecord
    | ExtendRecord
    | ResultRecord
    | CheckRecord
    | ConsentRecord,
    Field(discriminator="type"),
]
#: A line after the header: an answer, an undo, a note, more questions, the result, an
#: attention check, or a consent given again to a new version of the study's text.
EventRecord = (
    AnswerRecord
    | UndoRecord
    | NoteRecord
    | ExtendRecord
    | ResultRecord
    | CheckRecord
    | ConsentRecord
)


MaybeBound = FiniteFloat | None
#: :meth:`MeasurementRecord.array` by the sha256 of the record's JSON.
_MEASURED: dict[str, NDArray[np.float64]] = {}
#: The most candidates whose measurement a header records (their plausible tables are held
#: in memory: tables × candidates × statistics).
MAX_MEASURED_CANDIDATES = 2500


class MeasurementRecord(_Record):
    """How exactly the candidates' numbers were measured, when the pool carries a
    measurement noise (:mod:`tradeoff.pool.uncertainty`): the candidates' numbers in the
    pool's units (``values``, one row per candidate), the scale that makes them the
    header's metric rows (:func:`tradeoff.choose.pool_metric.metric_vectors`), each
    number's cases and standard error, each column's bounds (``None``: unbounded), and the
    seed and count of the plausible tables the stop counted over. :meth:`array` draws them
    again: the same tables on every machine but for the last bits of a value.
    """

    seed: Annotated[int, Field(strict=True, ge=0)]
    tables: Annotated[int, Field(strict=True, ge=1, le=20_000)]
    values: Annotated[
        tuple[Annotated[tuple[FiniteFloat, ...], Field(max_length=64)], ...],
        Field(max_length=MAX_MEASURED_CANDIDATES),
    ]
    scale: tuple[FiniteFloat, ...]
    cases: tuple[tuple[Annotated[float, Field(allow_inf_nan=False, ge=0)], ...], ...]
    se: tuple[tuple[Annotated[float, Field(allow_inf_nan=False, ge=0)], ...], ...]
    low: tuple[MaybeBound, ...]
    high: tuple[MaybeBound, ...]
    #: Strength borrowed across the models (:func:`tradeoff.pool.pooled.pooled_sample`).
    pooled: Annotated[bool, Field(strict=True)] = False
    #: How, when ``pooled``: "exemplars" (the other models' points,
    #: :func:`tradeoff.pool.pooled.pooled_sample`; what a header without it used) or
    #: "front" (a trade-off curve fitted to the pool, its fitted bend plugged in) or
    #: "curves" (the same with the bend drawn from its posterior) or "fitted" (the same,
    #: fitted again with each measurement's spread at the model's fitted numbers) or
    #: "scattered" (the same, the scatter's size drawn with each bend from its posterior,
    #: :func:`tradeoff.pool.front.front_sample`).
    prior: Literal["exemplars", "front", "curves", "fitted", "scattered"] = "exemplars"
    #: The stop's pick: "likeliest" (the candidate of highest P(best) over the weights and
    #: these tables, what the recommendation picks) or "expected" (the one of highest
    #: expected ψ at the measured numbers: what a header without it used, replayed so).
    pick: Literal["expected", "likeliest"] = "expected"

    def array(self) -> NDArray[np.float64]:
        """The plausible metric rows (tables × candidates × statistics) the stop counted
        over (:func:`tradeoff.choose.recommend.measured_vectors` draws the same), kept per
        process for the last few measurements (drawing them takes about a second)."""
        key = hashlib.sha256(record_bytes(self).encode()).hexdigest()
        known = _MEASURED.get(key)
        if known is None:
            known = self._draw()
            if len(_MEASURED) >= 8:
                _MEASURED.pop(next(iter(_MEASURED)))
            _MEASURED[key] = known
        out: NDArray[np.float64] = known.copy()
        return out

    def _draw(self) -> NDArray[np.float64]:
        from tradeoff.pool.uncertainty import Uncertainty

        values = np.asarray(self.values, dtype=np.float64)
        shape = values.shape
        cases = np.asarray(self.cases, dtype=np.float64).reshape(shape)
        se = np.asarray(self.se, dtype=np.float64).reshape(shape)
        low = np.array([-np.inf if x is None else x for x in self.low], dtype=np.float64)
        high = np.array([np.inf if x is None else x for x in self.high], dtype=np.float64)
        u = Uncertainty(se, cases, low, high, ("",) * shape[1])
        if self.pooled and self.prior in ("front", "curves", "fitted", "scattered"):
            from tradeoff.pool.front import CURVES, front_sample

            curves = 0 if self.prior == "front" else CURVES
            refit = self.prior in ("fitted", "scattered")
            scatter = self.prior == "scattered"
            drawn = front_sample(u, values, self.tables, self.seed, curves, refit, scatter)
        elif self.pooled:
            from tradeoff.pool.pooled import pooled_sample

            drawn = pooled_sample(u, values, self.tables, self.seed)
        else:
            drawn = u.sample(values, self.tables, self.seed)
        out: NDArray[np.float64] = drawn * np.asarray(self.scale, dtype=np.float64)
        return out


class PriorRecord(_Record):
    """The population prior a study session's weights started from: the SHA-256 of its
    stored draws (``priors/<sha256>.json`` beside the sessions folder,
    :mod:`tradeoff.record.prior_files`) and how many finished sessions it pooled."""

    sha256: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
    sessions: Annotated[int, Field(strict=True, ge=0)]
    #: The agreeing answers the stop asked on every aspect the pick turns on
    #: (:attr:`~tradeoff.learn.joint.JointStrategy.study_agreeing`): absent in sessions
    #: recorded before it was 1, which replay with 2.
    agreeing: Annotated[int, Field(strict=True, ge=1, le=10)] = 2


class SourceRecord(_Record):
    """The file of choices recorded elsewhere a session's answers were read from
    (``tradeoff choices fit``): its path as given and the SHA-256 of its bytes."""

    file: Annotated[str, Field(min_length=1, max_length=4096)]
    sha256: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]


class HeaderRecord(_Record):
    """The header line of a session file: written from this model and read into it.

    The scenario is stored once, as its TOML text with the text's sha256 (format 2 also
    stored a parsed copy, which is ignored when read). :class:`Header` adds the parsed
    scenario.
    """

    type: Literal["header"] = "header"
    format: Annotated[int, Field(strict=True)]
    tradeoff: str = ""
    participant: str
    scenario_id: str = ""
    scenario_path: str = ""
    scenario_sha256: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
    scenario_text: str
    strategy: StrategyName
    seed: Annotated[int, Field(strict=True, ge=0)]
    budget: Annotated[int, Field(strict=True, ge=1, le=10_000)] | None = None
    started: str = ""
    #: The scenario pool's models in the metric's terms when the questions aimed at the
    #: pick (:func:`tradeoff.choose.candidates.decision_candidates`); recorded so that a replay
    #: asks the same questions even if the pool file changes later.
    candidates: (
        Annotated[
            tuple[Annotated[tuple[FiniteFloat, ...], Field(max_length=64)], ...],
            Field(max_length=MAX_DECISION_CANDIDATES),
        ]
        | None
    ) = None
    #: How exactly the candidates were measured, when the pool carries a measurement
    #: noise: the stop's P(best) counted over the plausible tables this draws again.
    measurement: MeasurementRecord | None = None
    #: The population prior the weights started from (a study that learns across its
    #: participants), or ``None``: the engine's own prior.
    population_prior: PriorRecord | None = None
    #: The unit the answer model's T and δ were counted in
    #: (:mod:`~tradeoff.learn.noise_unit`), for a scenario without classes; ``None``: 1
    #: (a scenario with classes, or a session recorded before the unit existed).
    noise_unit: Annotated[FiniteFloat, Field(gt=0)] | None = None
    #: The file the answers were read from, for a session made from choices recorded
    #: elsewhere (each answer names its line).
    source: SourceRecord | None = None

    @model_serializer(mode="wrap")
    def _written(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Without ``measurement`` when the candidates were exact, without
        ``population_prior`` when there was none, without ``noise_unit`` when it is 1 and
        without ``source`` for answers given here (as before they existed)."""
        out: dict[str, Any] = handler(self)
        for name in ("measurement", "population_prior", "noise_unit", "source"):
            if getattr(self, name) is None:
                out.pop(name, None)
        return out

    @field_validator("participant")
    @classmethod
    def _safe_id(cls, v: str) -> str:
        if not valid_participant(v):
            raise ValueError("is not a participant id tradeoff writes")
        return v


class Header(HeaderRecord):
    """The header as used: the record, with the scenario parsed from its text."""

    _scenario: Scenario | None = PrivateAttr(default=None)
    _spec: ElicitationSpec | None = PrivateAttr(default=None)

    @classmethod
    def of(
        cls, record: HeaderRecord, scenario: Scenario, spec: ElicitationSpec | None = None
    ) -> Header:
        """The header of ``record`` whose embedded text parses to ``scenario`` (the record's
        validated values taken as they are, not validated again), with the elicitation
        settings it ran with (``spec``: the scenario's with the record's strategy and
        budget, made here when not given), both made once, when the header is read."""
        header = cls.model_construct(record.model_fields_set, **dict(record))
        header._scenario = scenario
        if spec is None:
            spec = scenario.elicitation.override(strategy=record.strategy, budget=record.budget)
        header._spec = spec
        return header

    @property
    def scenario(self) -> Scenario:
        """The embedded scenario, parsed."""
        assert self._scenario is not None, "a Header is made by Header.of"
        return self._scenario

    @property
    def version(self) -> str:
        """The tradeoff version that wrote the session."""
        return self.tradeoff

    def candidate_array(self) -> NDArray[np.float64] | None:
        """:attr:`candidates` as the array the engine takes."""
        if self.candidates is None:
            return None
        return np.asarray(self.candidates, dtype=np.float64)

    def measured_array(self) -> NDArray[np.float64] | None:
        """The plausible tables of the candidates the stop counted over (``None``: exact,
        or a measurement that does not fit the candidates)."""
        m, rows = self.measurement, self.candidates
        if m is None or rows is None:
            return None
        k = len(m.scale)
        if not len(m.values) == len(m.cases) == len(m.se) == len(rows) or any(
            len(row) != k for table in (m.values, m.cases, m.se) for row in table
        ):
            return None
        if len(m.low) != k or len(m.high) != k:
            return None
        return m.array()

    @property
    def spec(self) -> ElicitationSpec:
        """The elicitation settings the session ran with."""
        assert self._spec is not None, "a Header is made by Header.of"
        return self._spec


def record_bytes(record: BaseModel) -> str:
    """A record's JSON as written (before its chain is added): the model's fields in order.

    >>> record_bytes(UndoRecord(type="undo", at="2026-01-01T00:00:00.000+00:00"))
    '{"type": "undo", "at": "2026-01-01T00:00:00.000+00:00"}'
    """
    return json.dumps(record.model_dump(mode="json"), ensure_ascii=False, allow_nan=False)


def chain_hash(previous: str | None, content: str) -> str:
    """The chain value of a line: sha256 of the previous line's chain and this line's JSON."""
    seed = _CHAIN_SEED if previous is None else previous.encode()
    return hashlib.sha256(seed + content.encode()).hexdigest()


def chained_line(previous: str | None, record: BaseModel) -> tuple[str, bytes]:
    """(chain, the bytes of the line): the record's JSON (:func:`record_bytes`) with its
    chain added as the last key."""
    content = record_bytes(record)
    chain = chain_hash(previous, content)
    return chain, (content[:-1] + f', "chain": "{chain}"}}\n').encode()


def split_chain(text: str) -> tuple[str, str | None]:
    """(the line's JSON without its chain, the chain or ``None``): what
    :func:`chained_line` joined, taken apart again."""
    match = _CHAIN_SUFFIX.search(text)
    if match is None:
        return text, None
    return text[: match.start()] + "}", match.group(1)
