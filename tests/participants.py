"""A simulated participant of a study: a session opened as the study's page opens one (the
study's scenario and cache, an entry and a consent line when given), answered by a
simulated person, and closed or finished. The tests of the study's tables, its export and
its analysis share it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tradeoff.ask.scenario import load_scenario
from tradeoff.learn import Choice
from tradeoff.record.recorder import Recorder
from tradeoff.record.records import ConsentRecord, EntryRecord
from tradeoff.simulation.oracles import SimulatedOracle
from tradeoff.study.folder import Study
from tradeoff.study.opening import start_session

#: The simulated participant's true weights (per unit, in the scenario's order).
WEIGHTS = (0.5, 0.3, 0.1, 0.1)


def take_part(
    study: Study,
    pid: str,
    answers: int | None = None,
    *,
    budget: int = 6,
    seed: int = 0,
    entry: EntryRecord | None = None,
    consent: ConsentRecord | None = None,
    finish: bool = False,
    response_ms: Callable[[int], float | None] = lambda given: None,
    undo_after: int | None = None,
    after_answer: Callable[[Recorder], None] | None = None,
    weights: tuple[float, ...] = WEIGHTS,
) -> Path:
    """``pid``'s session in ``study``: ``answers`` answers (``None``: until the questions
    stop) by a simulated person with ``weights``, at most ``budget`` questions; the session
    file.

    ``response_ms(given)`` is the time recorded for the answer after ``given`` answers;
    ``undo_after=n`` answers the n-th question the other way, takes it back and answers it
    again as the person would; ``after_answer`` sees the recorder after each answer.
    """
    loaded = load_scenario(study.scenario_path)
    sc = loaded.scenario
    rec = start_session(
        loaded,
        pid,
        study.sessions_dir,
        spec=sc.elicitation.override(budget=budget),
        cache_dir=study.cache_dir,
        entry=entry,
        consent=consent,
        seed=seed,
    )
    oracle = SimulatedOracle.for_scenario(sc, weights)
    with rec:
        given = 0
        while (answers is None or given < answers) and (q := rec.engine.next_query()) is not None:
            choice = oracle.choose(q)
            if given + 1 == undo_after:
                choice = Choice.RIGHT if choice == Choice.LEFT else Choice.LEFT
            rec.answer(choice, response_ms=response_ms(given))
            if after_answer is not None:
                after_answer(rec)
            given += 1
            if given == undo_after:
                rec.undo()
                given -= 1
                undo_after = None
        if finish:
            rec.finish()
    return rec.path
