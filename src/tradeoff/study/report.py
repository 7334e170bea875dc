"""A study's decision: its participants' newest complete sessions, who is left out and why,
and the decision over the others (``tradeoff study report``).

:func:`study_sessions` reads the study folder: it refuses a withdrawals file it cannot read
(it could not tell who withdrew), and finds each participant's newest complete session and
who a report leaves out (not started, unfinished after N answers, withdrawn, only pilot
sessions complete: pilot sessions count only when asked for; erased on request, after the
others, as ``study status`` lists them), as :func:`tradeoff.study.status.counted_sessions`
counts them for the export's summary too. :func:`decide_study` is the
decide step (:func:`tradeoff.choose.decide.decide`) over those sessions, in the study's copy
of the scenario, and carries who is left out to the report
(:func:`tradeoff.choose.report.write_report`), whose summary names them.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from pathlib import Path

from tradeoff.ask.scenario import load_scenario
from tradeoff.choose.decide import Decision, decide
from tradeoff.study.folder import Study, load_study
from tradeoff.study.status import counted_sessions


class NothingToDecide(Exception):
    """A study with nothing to decide yet: no complete session, or no pool in its scenario.
    The message says which."""


@dataclass(frozen=True)
class StudySessions:
    """What a study's report is made of: the study, the newest complete session of every
    participant who has one (withdrawn participants left out), and who is left out and why
    (in study order), with whether inconsistent answers are left out too."""

    study: Study
    sessions: tuple[Path, ...]
    left_out: tuple[tuple[str, str], ...]
    exclude_inconsistent: bool = False
    #: Whose the sessions are, in their order.
    participants: tuple[str, ...] = ()


def study_sessions(
    path: str | Path,
    *,
    exclude_inconsistent: bool = False,
    include_pilot: bool = False,
    exclude_inattentive: bool = False,
) -> StudySessions:
    """The sessions a report over the study at ``path`` is made of, and who it leaves out:
    each participant's newest complete session (pilot sessions only with
    ``include_pilot``), in study order. With ``exclude_inattentive`` a participant who
    failed an attention check is left out (:mod:`tradeoff.study.checks`).

    Raises
    ------
    InputError
        For a folder that is not a study, or a withdrawals file that cannot be read.
    """
    study = load_study(path)
    counted = counted_sessions(
        study,
        exclude_inconsistent=exclude_inconsistent,
        include_pilot=include_pilot,
        exclude_inattentive=exclude_inattentive,
    )
    sessions = tuple(session for _, session in counted.sessions)
    whose = tuple(pid for pid, _ in counted.sessions)
    return StudySessions(study, sessions, counted.left_out, exclude_inconsistent, whose)


def decide_study(found: StudySessions, *, p: float = math.inf, top: int = 10) -> Decision:
    """The decision over a study's complete sessions, in the study's copy of the scenario
    (whose ``[pool]`` names the candidates), with who is left out and why
    (:attr:`~tradeoff.choose.decide.Decision.left_out`).

    Raises
    ------
    NothingToDecide
        When no participant has a complete session yet, or the scenario has no ``[pool]``.
    InputError
        As :func:`tradeoff.choose.decide.decide` does.
    """
    study = found.study
    if not found.sessions:
        raise NothingToDecide(f"no participant of {study.path} has a complete session yet")
    if load_scenario(study.scenario_path).scenario.pool is None:  # a study's copy is fixed
        raise NothingToDecide(
            f"the study's scenario ({study.scenario_path}) has no [pool]: there is nothing "
            "to choose from, so no decision report is written. Fix: pick for each "
            "participant from a pool file of yours, tradeoff pick POOL.csv --session FILE "
            f"(their sessions are under {study.path}), or give the scenario a [pool] "
            "before the next study."
        )
    chosen = decide(
        list(found.sessions),
        scenario=study.scenario_path,
        p=p,
        top=top,
        exclude_inconsistent=found.exclude_inconsistent,
        populations=study.populations(),
    )
    return dataclasses.replace(chosen, left_out=found.left_out)
