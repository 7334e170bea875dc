"""Replaying a session: the recorded events through a fresh engine, checked against this version.

Replaying the events through a fresh :class:`~tradeoff.learn.Engine` reproduces the
state exactly; every recorded question is checked against the one the engine asks, and a
finished session's recomputed result against the one recorded in its last line
(docs/architecture.md, "The same result on every machine").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from tradeoff.ask.checks import dominant_side
from tradeoff.ask.population import Population
from tradeoff.errors import InputError
from tradeoff.learn import ElicitationResult, Engine
from tradeoff.learn.corroboration import AGREEING_ANSWERS
from tradeoff.record.log import RESTORE, SessionLog
from tradeoff.record.prior_files import load_prior
from tradeoff.record.records import (
    AnswerRecord,
    CheckRecord,
    ExtendRecord,
    ResultRecord,
    UndoRecord,
)
from tradeoff.version import __version__


def replay(
    log: SessionLog,
    *,
    population: Population | None = None,
    after: Callable[[Engine, AnswerRecord | UndoRecord | ExtendRecord], None] | None = None,
    check: bool = True,
) -> Engine:
    """A fresh engine with every recorded answer and undo applied, checked against the log;
    ``after(engine, event)``, when given, is called once each answer, undo or extend has been
    applied (an export reads the posterior after every answer so).

    A recorded question that differs from the one this version asks at that point is applied
    as recorded when the strategy learns from any question and the question is one the
    scenario builds (within :data:`~tradeoff.ask.queries.SAME_TOLERANCE`, never bit for bit);
    the result is then the same as when it was recorded. Another version choosing other
    questions is said in ``log.warnings``; the same version on a machine whose arithmetic
    tips a choice the other way is only counted (``log.replay_differs``): nothing about the
    result changes. An attention check (:class:`~tradeoff.record.records.CheckRecord`) is
    never given to the engine; it is verified (:func:`check_attention`). A finished
    session's recomputed result is compared with its recorded result line
    (``log.result_difference``); beyond :data:`RESULT_TOLERANCE` a warning says by how much
    (docs/architecture.md, "The same result on every machine").

    With ``check=False`` a strategy that learns from any question is given every answer as
    recorded without first choosing its own question (the same state, a few times faster:
    what ``study status`` needs); whether this version would have asked the same questions
    is then not looked at (``log.replay_differs`` stays 0). Other strategies check as ever.

    A session that started from a study's population prior (the header's
    ``population_prior``) starts from exactly that prior again, read by its hash
    (:func:`~tradeoff.record.prior_files.load_prior`: a missing or altered file is refused).
    """
    # The inputs first: what the log holds (the closing result, the candidates, each
    # recorded question), then the engine that replays them.
    h = log.header
    version = h.version  # the version that wrote it, read with the inputs
    same_version = version == __version__
    closing = log.recorded_result
    candidates, measured = h.candidate_array(), h.measured_array()
    questions = [
        line.event.query.to_query() if isinstance(line.event, AnswerRecord) else None
        for line in log.lines
    ]
    start = None if h.population_prior is None else load_prior(log.path, h.population_prior.sha256)
    engine = Engine(
        h.scenario,
        h.spec,
        seed=h.seed,
        population=population,
        candidates=candidates,
        measured=measured,
        start=start,
        likeliest=h.measurement is None or h.measurement.pick == "likeliest",
        study_agreeing=(
            AGREEING_ANSWERS if h.population_prior is None else h.population_prior.agreeing
        ),
        noise_unit=1.0 if h.noise_unit is None else h.noise_unit,
    )
    differs = 0
    check = check or not engine.learns_from_any_question
    for line, recorded in zip(log.lines, questions, strict=True):
        event = line.event
        if isinstance(event, AnswerRecord):
            assert recorded is not None
            try:
                as_recorded = engine.answer_replayed(recorded, event.choice, check)
            except ValueError as exc:
                if same_version:
                    fix = (
                        "this version wrote the session, so the line was changed afterwards: "
                        + RESTORE
                    )
                else:
                    fix = f"replay it with the tradeoff version named in the header ({version})."
                raise InputError.single(
                    log.path,
                    f"line {line.number} (answer {event.index}), field 'query'",
                    "does not match the question this version of tradeoff asks at that point, "
                    f"and cannot be replayed as recorded ({exc}).",
                    fix,
                ) from None
            differs += int(check and as_recorded)
        elif isinstance(event, UndoRecord):
            engine.undo()
        elif isinstance(event, ExtendRecord):
            engine.extend(event.extra)
        elif isinstance(event, CheckRecord):
            check_attention(log, line.number, event, engine.answered)
            continue
        else:
            continue
        if after is not None:
            after(engine, event)
    log.replay_differs = differs
    if differs and not same_version:
        log.warnings.append(
            f"{log.path}: {differs} recorded "
            f"{'question differs' if differs == 1 else 'questions differ'} from those this "
            f"version of tradeoff would ask (recorded with {version or 'an earlier version'}); the "
            "answers were applied to the questions as recorded. New questions are chosen by "
            "this version."
        )
    if closing is not None:
        gap, where = result_difference(engine.result(), closing)
        log.result_difference = gap
        if gap > RESULT_TOLERANCE:
            log.warnings.append(
                f"{log.path}: the result recomputed here differs from the one recorded when "
                f"the session closed by up to {100 * gap:.1f} percentage points ({where}); "
                "the recorded result is the one shown"
                + (
                    f" (recorded with {version})."
                    if not same_version
                    else " (the arithmetic of this machine differs from that of the one "
                    "that recorded it)."
                )
            )
    return engine


def check_attention(log: SessionLog, number: int, event: CheckRecord, answered: int) -> None:
    """An attention check is never learned from; it is verified: shown before the
    question it names (``answered`` answers stood when it was recorded) and better on the
    side it names as the session's scenario shows it."""
    where = f"line {number} (check before question {event.position})"
    if event.position != answered + 1:
        raise InputError.single(
            log.path,
            f"{where}, field 'position'",
            f"was recorded when {answered} answer{' ' if answered == 1 else 's '}stood, so it came "
            "before question "
            f"{answered + 1}, not {event.position}.",
            RESTORE,
        )
    if dominant_side(log.header.scenario, event.query.to_query()) != event.dominant:
        raise InputError.single(
            log.path,
            f"{where}, field 'dominant'",
            f"the {event.dominant} option is not the one better on every line as shown.",
            RESTORE,
        )


#: A recomputed result within this of the recorded one (weights and interval ends, as
#: shares) is the same result; beyond it, the recorded one is shown and the gap said.
RESULT_TOLERANCE = 0.005


def result_difference(result: ElicitationResult, recorded: ResultRecord) -> tuple[float, str]:
    """The largest absolute difference between a recomputed result and a recorded one, over
    the weights, the swing weights and their 90% interval ends, and where it lies ("weight
    of benign", "90% interval's low end of cost"...); (0.0, "") when they share nothing."""
    gaps: list[tuple[float, str]] = [(0.0, "")]
    names = result.names

    def compare(mine: Sequence[float] | None, theirs: Sequence[float] | None, what: str) -> None:
        if mine is None or theirs is None or len(mine) != len(theirs):
            return
        for name, a, b in zip(names, mine, theirs, strict=False):
            gaps.append((abs(a - b), f"{what} of {name}"))

    compare(result.weights, recorded.weights, "weight")
    compare(result.swing_weights, recorded.swing_weights, "swing weight")
    for label, mine_iv, theirs_iv in (
        ("90% interval", result.intervals, recorded.intervals),
        ("swing weight's 90% interval", result.swing_intervals, recorded.swing_intervals),
    ):
        if mine_iv is not None and theirs_iv is not None:
            compare([lo for lo, _ in mine_iv], [lo for lo, _ in theirs_iv], f"{label}'s low end")
            compare([hi for _, hi in mine_iv], [hi for _, hi in theirs_iv], f"{label}'s high end")
    return max(gaps, key=lambda g: g[0])


def shown_result(log: SessionLog, engine: Engine) -> ElicitationResult:
    """The result to show for a replayed session: the recomputed one, or, when it differs
    from the recorded result line by more than :data:`RESULT_TOLERANCE` (``replay`` has
    said by how much in ``log.warnings``), the recorded one."""
    recomputed = engine.result()
    recorded = log.recorded_result
    if recorded is None or (log.result_difference or 0.0) <= RESULT_TOLERANCE:
        return recomputed
    data = recorded.model_dump(exclude={"type", "at"})
    return replace(
        recomputed,
        weights=tuple(data["weights"]),
        intervals=None if data["intervals"] is None else tuple(map(tuple, data["intervals"])),
        swing_weights=None if data["swing_weights"] is None else tuple(data["swing_weights"]),
        swing_intervals=(
            None if data["swing_intervals"] is None else tuple(map(tuple, data["swing_intervals"]))
        ),
    )
