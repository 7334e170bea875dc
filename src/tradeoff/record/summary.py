"""What ``tradeoff session show`` reports of a session file: who, what, the replayed result,
and the trade-offs the answers settled, in words."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tradeoff.ask.presentation import settled_tradeoff_sentences
from tradeoff.learn import Consistency, ElicitationResult, consistency_of
from tradeoff.record.log import SessionLog, read_session
from tradeoff.record.replay import replay, shown_result

if TYPE_CHECKING:
    from tradeoff.ask.population import PopulationSource


@dataclass(frozen=True)
class SessionSummary:
    """What ``tradeoff session show`` reports: who, what, and the replayed result."""

    log: SessionLog
    result: ElicitationResult
    answers: int
    consistency: Consistency | None = None
    #: The trade-offs the answers settled, and the ranges of those they did not
    #: (:func:`~tradeoff.ask.presentation.settled_tradeoff_sentences`).
    tradeoffs: tuple[str, ...] = ()

    @property
    def recorded(self) -> int:
        """Answer lines in the file (undone ones included)."""
        return sum(e.type == "answer" for e in self.log.events)

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
            "complete": self.log.finished,
            "names": list(r.names),
            "weights": list(r.weights),
            "warnings": list(self.log.warnings),
            "consistency": None if self.consistency is None else self.consistency.to_dict(),
            "tradeoffs": list(self.tradeoffs),
        }
        if r.intervals is not None:
            data["intervals"] = [list(iv) for iv in r.intervals]
        if r.error_rate_estimate is not None:
            data["error_rate_estimate"] = r.error_rate_estimate
        if r.swing_weights is not None:
            data["swing_weights"] = list(r.swing_weights)
        if r.swing_intervals is not None:
            data["swing_intervals"] = [list(iv) for iv in r.swing_intervals]
        return data


def summarise(path: str | Path, *, populations: PopulationSource | None = None) -> SessionSummary:
    """Read and replay a session file (once) and summarise it; ``populations`` gives the
    recorded scenario's population (memory-mapped from a cache, say), else the engine
    builds it."""
    log = read_session(path)
    population = None if populations is None else populations(log.header.scenario)
    engine = replay(log, population=population)
    result = shown_result(log, engine)
    sentences = settled_tradeoff_sentences(
        log.header.scenario, result.weights, engine.space.priors, engine.weight_draws()
    )
    return SessionSummary(
        log, result, engine.answered, consistency_of(engine), tuple(sentences)
    )
