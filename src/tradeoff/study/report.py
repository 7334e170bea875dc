"""A study's decision: its participants' newest complete sessions, who is left out and why,
and the decision over the others (``tradeoff study report``).

:func:`study_sessions` reads the study folder: it refuses a withdrawals file it cannot read
(it could not tell who withdrew), and finds each participant's newest complete session and
who a report leaves out. :func:`decide_study` is the decide step
(:func:`tradeoff.choose.decide.decide`) over those sessions, in the study's copy of the
scenario; the report itself is :func:`tradeoff.choose.report.write_report`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from tradeoff.ask.scenario import load_scenario
from tradeoff.choose.decide import Decision, decide
from tradeoff.study.folder import Study, load_study
from tradeoff.study.status import study_status
from tradeoff.study.withdrawals import certain_withdrawals


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


def study_sessions(path: str | Path, *, exclude_inconsistent: bool = False) -> StudySessions:
    """The sessions a report over the study at ``path`` is made of, and who it leaves out.

    Raises
    ------
    InputError
        For a folder that is not a study, or a withdrawals file that cannot be read.
    """
    study = load_study(path)
    certain_withdrawals(study)  # refuses an unreadable withdrawals file
    status = study_status(study)
    return StudySessions(
        study,
        tuple(status.complete_sessions()),
        tuple(status.missing(exclude_inconsistent)),
        exclude_inconsistent,
    )


def decide_study(found: StudySessions, *, p: float = math.inf, top: int = 10) -> Decision:
    """The decision over a study's complete sessions, in the study's copy of the scenario
    (whose ``[pool]`` names the candidates).

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
        raise NothingToDecide("the study's scenario has no [pool]; there is nothing to choose from")
    return decide(
        list(found.sessions),
        scenario=study.scenario_path,
        p=p,
        top=top,
        exclude_inconsistent=found.exclude_inconsistent,
        populations=study.populations(),
    )
