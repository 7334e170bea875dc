"""A replayed session as the choose stage sees it: :class:`Stakeholder`, made from a
session's header and engine by :func:`stakeholder_of`, and the posterior mean weights
every use of it reads (:func:`expected_weights`).

The lowest room of :mod:`tradeoff.choose` but the COPA criterion: selection, the decision
curves, the scorer and the words all build on it, and it imports none of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np

from tradeoff.arrays import FloatArray
from tradeoff.ask.scenario import Scenario
from tradeoff.learn import Consistency, Engine, Outcome, outcome_of
from tradeoff.learn.shares import Shares

__all__ = [
    "RecordedTables",
    "SessionHeader",
    "Stakeholder",
    "expected_weights",
    "shown_weights",
    "stakeholder_of",
]


class RecordedTables(Protocol):
    """How a session's header says the pool's models were measured, and the plausible
    tables its stop counted over (:class:`tradeoff.record.records.MeasurementRecord`)."""

    @property
    def tables(self) -> int: ...
    @property
    def values(self) -> tuple[tuple[float, ...], ...]: ...
    @property
    def cases(self) -> tuple[tuple[float, ...], ...]: ...
    @property
    def se(self) -> tuple[tuple[float, ...], ...]: ...
    @property
    def low(self) -> tuple[float | None, ...]: ...
    @property
    def high(self) -> tuple[float | None, ...]: ...
    def array(self) -> FloatArray: ...


@dataclass(frozen=True)
class Stakeholder:
    """One replayed session."""

    participant: str
    path: str
    scenario_id: str
    scenario_sha256: str
    names: tuple[str, ...]
    weights: tuple[float, ...]
    intervals: tuple[tuple[float, float], ...] | None
    answers: int
    priors: tuple[float, ...]
    swing_weights: tuple[float, ...] | None = None
    draws: FloatArray | None = field(default=None, repr=False, compare=False)
    #: Whether the answers can be trusted as a preference (a pattern, a failed check).
    consistency: Consistency | None = None
    swing_intervals: tuple[tuple[float, float], ...] | None = None
    #: Whether the session's questions had stopped (an unfinished session's pick is
    #: provisional, and every face says so).
    complete: bool = True
    #: Per weight, whether some answer informed it (:attr:`ElicitationResult.asked`).
    asked: tuple[bool, ...] | None = None
    #: The posterior as the questions' stop read it: draws of the weights (rows) and the
    #: weight of each (:meth:`~tradeoff.learn.Engine.weighted_draws`); the pick and P(best)
    #: come from these, so they are the ones the session stopped on.
    posterior: tuple[FloatArray, FloatArray] | None = field(default=None, repr=False, compare=False)
    #: With a measurement noise, whether the session's stop picked the likeliest best (else
    #: the model of highest expected ψ at the measured numbers: sessions recorded before);
    #: the recommendation picks by the same rule (:func:`tradeoff.choose.recommend.recommend`).
    likeliest: bool = True
    #: With a measurement noise, how the session's header says the pool was measured and
    #: the tables its stop counted over: a recommendation on that pool counts over the same
    #: tables (:func:`tradeoff.choose.selection.recorded_tables`), whichever way this
    #: version would draw them.
    measurement: RecordedTables | None = field(default=None, repr=False, compare=False)
    #: Each aspect's share of the aspects the answers informed, with its 90 % range, as
    #: the person's review showed them (:func:`~tradeoff.learn.shares.shares_of`: an
    #: unasked aspect's starting guess is not among them).
    shares: Shares | None = field(default=None, repr=False, compare=False)
    #: Whether the answers are choices recorded elsewhere (``tradeoff choices fit``): the
    #: faces then speak of the person by name, even alone (they are not the reader).
    made_elsewhere: bool = False
    #: What reading the session file warned of (a truncated last line skipped): every face
    #: that reads the file says it, as ``session show`` does.
    warnings: tuple[str, ...] = ()


def shown_weights(person: Stakeholder) -> tuple[float | None, ...]:
    """A person's weights over each aspect's whole range as every face shows them: the
    shares of the aspects their answers informed (``None`` for one never asked), else the
    swing weights, else the weights.

    >>> from tradeoff.learn.shares import Shares
    >>> kim = Stakeholder("kim", "", "s", "", ("a", "b", "c"), (0.5, 0.3, 0.2), None, 3,
    ...     (0.5, 0.5), asked=(True, True, False), shares=Shares((0.6, 0.4, None), ()))
    >>> shown_weights(kim)
    (0.6, 0.4, None)
    """
    if person.shares is not None:
        return person.shares.values
    return tuple(person.swing_weights or person.weights)


class SessionHeader(Protocol):
    """What a stakeholder needs of a session's header (:class:`tradeoff.record.records.Header`)."""

    @property
    def participant(self) -> str: ...
    @property
    def scenario(self) -> Scenario: ...
    @property
    def scenario_sha256(self) -> str: ...
    @property
    def measurement(self) -> RecordedTables | None: ...


def stakeholder_of(
    header: SessionHeader,
    engine: Engine | Outcome,
    path: str | Path,
    *,
    made_elsewhere: bool = False,
) -> Stakeholder:
    """The stakeholder of a session as its engine now stands (no file is read), or as the
    engine's :class:`~tradeoff.learn.Outcome` says (what a caller that holds the engine has
    read from it already: :func:`tradeoff.choose.decide.load_stakeholders`).
    ``made_elsewhere``: the session's answers are choices recorded elsewhere
    (:attr:`~tradeoff.record.log.SessionLog.made_elsewhere`).

    :func:`tradeoff.choose.decide.decide_session` is the use case built on it (the app's result
    screen should call that); :func:`tradeoff.choose.decide.load_stakeholders` replays files.
    """
    outcome = engine if isinstance(engine, Outcome) else outcome_of(engine)
    result = outcome.result
    assert result.priors is not None
    return Stakeholder(
        header.participant,
        str(path),
        header.scenario.id,
        header.scenario_sha256,
        result.names,
        result.weights,
        result.intervals,
        outcome.answered,
        result.priors,
        result.swing_weights,
        outcome.draws,
        outcome.consistency,
        result.swing_intervals,
        result.complete,
        result.asked,
        outcome.posterior,
        outcome.likeliest,
        header.measurement,
        outcome.shares,
        made_elsewhere,
    )


def expected_weights(person: Stakeholder) -> tuple[float, ...]:
    """A person's posterior mean weights (natural units, the scenario's order): the mean of
    the draws the questions stopped on, weighted as they were (``posterior``), else of
    equally weighted draws, else the point estimate. ψ is linear in the weights, so the
    posterior expected metric of any model, and the rule that maximises it, are those of
    these weights."""
    if person.posterior is not None:
        draws, weights = person.posterior
        w = np.asarray(weights, dtype=np.float64)
        mean = np.asarray(draws, dtype=np.float64).T @ (w / w.sum())
    elif person.draws is not None:
        mean = np.asarray(person.draws, dtype=np.float64).mean(axis=0)
    else:
        mean = np.asarray(person.weights, dtype=np.float64)
    return tuple(float(x) for x in mean)
