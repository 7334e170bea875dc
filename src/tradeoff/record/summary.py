"""What ``tradeoff session show`` reports of a session file: who, what, the replayed result,
which weights no answer informed, and the trade-offs the answers settled, in words."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from tradeoff.arrays import FloatArray
from tradeoff.ask.narrative import tradeoffs
from tradeoff.ask.words import TradeOff
from tradeoff.curves import Threshold, person_threshold, threshold_words
from tradeoff.learn import Consistency, ElicitationResult, consistency_of
from tradeoff.learn.shares import Shares, asked_shares
from tradeoff.learn.verdict import Verdict
from tradeoff.record.log import SessionLog, read_session
from tradeoff.record.records import AnswerRecord
from tradeoff.record.replay import replay, shown_result
from tradeoff.stable import probability
from tradeoff.text import YOU, Voice

if TYPE_CHECKING:
    from tradeoff.ask.population import PopulationSource


@dataclass(frozen=True)
class SessionSummary:
    """What ``tradeoff session show`` reports: who, what, and the replayed result."""

    log: SessionLog
    result: ElicitationResult
    answers: int
    consistency: Consistency | None = None
    #: The trade-offs the answers settled, and the ranges of those they did not; none with
    #: a weight no answer informed (:func:`~tradeoff.ask.narrative.tradeoffs`).
    said: tuple[TradeOff, ...] = ()
    #: The pick among the recorded candidates as the questions stopped on it (or stand now,
    #: unfinished), its P(best), P(best or practically tied) and the candidates it may be
    #: tied with (:class:`~tradeoff.learn.verdict.Verdict`); ``None`` without candidates.
    verdict: Verdict | None = None
    #: The threshold probability the answers imply, two classes only
    #: (:func:`~tradeoff.curves.person_threshold`: the posterior mean weights, the 90%
    #: interval over the draws the questions stopped on).
    threshold: Threshold | None = None

    @property
    def threshold_sentence(self) -> str:
        """The threshold in the scenario's words ("" without one)."""
        if self.threshold is None:
            return ""
        return threshold_words(self.threshold, self.log.header.scenario, priors=self.result.priors)

    #: Each aspect's share of the aspects the answers informed, as the reviews show them
    #: (:func:`~tradeoff.learn.shares.asked_shares`).
    shares: Shares | None = None
    #: The posterior draws the questions stopped on and their weights
    #: (:meth:`~tradeoff.learn.Engine.weighted_draws`), and the plausible measurements
    #: the engine paired them with (a pool with measurement noise; ``None`` otherwise): what
    #: the models within measurement noise of the pick are found over.
    posterior: tuple[FloatArray, FloatArray] | None = None
    measured: FloatArray | None = None

    @property
    def voice(self) -> Voice:
        """Whom the review speaks of: the reader, who answered the questions; or, for
        choices recorded elsewhere (:attr:`~tradeoff.record.log.SessionLog.made_elsewhere`),
        the participant who made them, by name."""
        return _voice(self.log)

    @property
    def tradeoffs(self) -> tuple[str, ...]:
        """:attr:`said` as sentences, an unsettled one opening "Not settled by your answers"."""
        return tuple(t.sentence for t in self.said)

    @property
    def recorded(self) -> int:
        """Answer lines in the file (undone ones included)."""
        return sum(e.type == "answer" for e in self.log.events)

    @property
    def source(self) -> dict[str, Any] | None:
        """The file of choices recorded elsewhere the answers were read from (``file``, its
        ``sha256``, and the ``lines`` of the answers), or ``None`` for answers given here."""
        source = self.log.header.source
        if source is None:
            return None
        lines = [e.source_line for e in self.log.events if isinstance(e, AnswerRecord)]
        return {
            "file": source.file,
            "sha256": source.sha256,
            "lines": [n for n in lines if n is not None],
        }

    @property
    def undos(self) -> int:
        return sum(e.type == "undo" for e in self.log.events)

    def to_dict(self) -> dict[str, Any]:
        h, r = self.log.header, self.result
        data: dict[str, Any] = {
            "path": str(self.log.path),
            "participant": h.participant,
            "scenario_id": h.scenario.id,
            "scenario_sha256": h.scenario_sha256,
            "strategy": h.strategy,
            "started": h.started,
            "answers": self.answers,
            "answers_recorded": self.recorded,
            "undos": self.undos,
            "checks_shown": len(self.log.checks),
            "checks_failed": sum(c.failed for c in self.log.checks),
            "complete": self.log.finished,
            "names": list(r.names),
            "weights": list(r.weights),
            "warnings": list(self.log.warnings),
            # the file of choices recorded elsewhere the answers were read from, or None
            "source": self.source,
            "consistency": None if self.consistency is None else self.consistency.to_dict(),
            "tradeoffs": list(self.tradeoffs),
            # whether the engine had no question left (else the weights are provisional)
            "questions_stopped": r.complete,
        }
        if r.asked is not None:
            data["asked"] = list(r.asked)
        v = self.verdict
        if v is not None:
            data["pick"] = {
                "candidate": v.pick,
                "p_best": probability(v.p_best),
                "p_best_or_practically_tied": v.p_near,
                "practically_tied_with": list(v.tied) if v.practically_tied else [],
                "stated_probability": v.stated,
                # aspects the pick rests on one answer about (a single slip may have made it)
                "rests_on_one_answer": [r.names[j] for j in v.one_answer],
                # of them, those fewer than two answers settle; and each answer that alone
                # holds the pick up, as the aspects its options differ on
                "settled_by_fewer_than_two": [r.names[j] for j in v.thin],
                # the agreeing answers asked on each aspect (more than two for a person
                # whose answers are reversed often), and the aspects two or more but
                # fewer than that many settle
                "agreeing_answers_asked": v.agreeing,
                "settled_by_fewer_than_asked": [r.names[j] for j in v.unsure],
                "held_up_by_one_answer": [[r.names[j] for j in held] for held in v.held],
            }
        if self.threshold is not None:
            data["threshold"] = {
                **self.threshold.to_dict(),
                "positive_class": h.scenario.classes[0].name,
                "sentence": self.threshold_sentence,
            }
        if r.intervals is not None:
            data["intervals"] = [list(iv) for iv in r.intervals]
        if r.error_rate_estimate is not None:
            data["error_rate_estimate"] = r.error_rate_estimate
        if r.swing_weights is not None:
            data["swing_weights"] = list(r.swing_weights)
        if r.swing_intervals is not None:
            data["swing_intervals"] = [list(iv) for iv in r.swing_intervals]
        if self.shares is not None and self.shares.left_out:
            # The shares of the asked aspects only (they add up to 1 among them), as shown.
            data["asked_shares"] = list(self.shares.values)
            data["asked_share_intervals"] = [
                None if iv is None else list(iv) for iv in self.shares.intervals
            ]
        return data


def _voice(log: SessionLog) -> Voice:
    return Voice(log.header.participant) if log.made_elsewhere else YOU


def summarise(path: str | Path, *, populations: PopulationSource | None = None) -> SessionSummary:
    """Read and replay a session file (once) and summarise it; ``populations`` gives the
    recorded scenario's population (memory-mapped from a cache, say), else the engine
    builds it."""
    log = read_session(path)
    population = None if populations is None else populations(log.header.scenario)
    engine = replay(log, population=population)
    result = shown_result(log, engine)
    said = tradeoffs(
        log.header.scenario,
        result.weights,
        engine.space.priors,
        engine.weight_draws(),
        asked=result.asked,
        voice=_voice(log),
    )
    posterior = engine.weighted_draws()
    if posterior is None:
        threshold = person_threshold(log.header.scenario, result.weights)
    else:
        draws, weights = posterior
        mean = np.asarray(draws).T @ (np.asarray(weights) / np.sum(weights))
        threshold = person_threshold(log.header.scenario, mean, draws, weights)
    shares = asked_shares(result, engine.space.spans, engine.weighted_draws())
    return SessionSummary(
        log,
        result,
        engine.answered,
        consistency_of(engine),
        tuple(said),
        engine.verdict(),
        threshold,
        shares,
        posterior,
        engine.measured,
    )
