"""A study's arms (conditions): which scenario and strategy each participant is given, and
assigning each new participant to one, balanced.

A study made with arms (``study create --arm NAME:strategy=joint`` or ``--arms
arms.toml``, read by :mod:`tradeoff.study.arm_specs`) records them in ``study.json``
(``arms``: each one's name, its scenario's path in the study and its strategy;
``arm_seed``). Each arm's scenario is copied into the
study, as the single scenario is: the first arm's is ``scenario.toml``, another arm's
whose scenario is another file is ``arms/<name>/scenario.toml`` with every file it names
beside it, all hashed in ``files``. A study without arms has one implicit arm: the study's
scenario and its own strategy.

A participant is assigned when their first session starts (:func:`assign_arm`), under the
study's lock (:func:`tradeoff.study.entries.study_lock`), so every server process counts
the same: to the arm with the fewest participants assigned so far who count (neither
withdrawn nor erased, nor a pilot), ties broken at random. The draw is reproducible from
the record: it is the ``numpy`` generator seeded with ``(arm_seed, number of assignments
before it)``. The assignment is written once, as an ``assigned`` line in
``entries.jsonl`` (with the counts and the tied arms it was drawn from), and never
changed: every later session of the participant runs in that arm. Pilots are assigned
the same way (so a pilot sees what a participant of that arm sees) but never counted.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from tradeoff.study.arm_specs import Arm
from tradeoff.study.entries import EntryState, append_entry, read_entries, study_lock

if TYPE_CHECKING:
    from tradeoff.ask.scenario import ElicitationSpec, LoadedScenario, Scenario
    from tradeoff.study.folder import Study


def assigned_arms(state: EntryState) -> dict[str, str]:
    """Participant → arm, from an ``entries.jsonl``'s state (the first ``assigned`` line of
    each participant; pilots too)."""
    return dict(state.arms)


def arm_counts(
    arms: Sequence[Arm],
    state: EntryState,
    gone: Iterable[str] = (),
    pilots: Iterable[str] = (),
) -> dict[str, int]:
    """How many participants each arm has that count: assigned, neither withdrawn nor
    erased (``gone``) nor declined, and not a pilot."""
    left_out = set(gone) | set(pilots)
    left_out |= {p for p, e in state.people.items() if e.pilot or e.declined or e.removed}
    counts = {arm.name: 0 for arm in arms}
    for pid, name in state.arms.items():
        if pid not in left_out and name in counts:
            counts[name] += 1
    return counts


def draw(seed: int, number: int, tied: Sequence[str]) -> str:
    """The arm drawn among ``tied`` for the ``number``-th assignment of a study with
    ``seed`` (reproducible from the ``assigned`` line).

    >>> draw(7, 0, ["a"])
    'a'
    >>> draw(7, 3, ["a", "b"]) == draw(7, 3, ["a", "b"])
    True
    """
    rng = np.random.default_rng([seed, number])
    return tied[int(rng.integers(len(tied)))]


def assign_arm(
    folder: Path,
    arms: Sequence[Arm],
    seed: int,
    participant: str,
    *,
    gone: Callable[[], Iterable[str]] = tuple,
    refresh: Callable[[], EntryState] | None = None,
) -> str:
    """The arm of ``participant`` in the study at ``folder``: the one recorded, or, for a
    participant not assigned yet, the arm with the fewest participants that count
    (:func:`arm_counts`; ``gone()`` names the withdrawn and erased), ties drawn
    (:func:`draw`), written as an ``assigned`` line under the study's lock before it is
    returned. ``refresh`` reads ``entries.jsonl`` (under the lock; a server's
    :meth:`~tradeoff.study.entries.EntryLog.refresh`); a pilot is assigned but not
    counted."""
    read = refresh if refresh is not None else (lambda: read_entries(folder))
    known = read().arms.get(participant)
    if known is not None:
        return known
    with study_lock(folder):
        state = read()
        if participant in state.arms:
            return state.arms[participant]
        counts = arm_counts(arms, state, gone())
        fewest = min(counts.values())
        tied = [a.name for a in arms if counts[a.name] == fewest]
        number = state.assignments
        chosen = draw(seed, number, tied)
        record: dict[str, Any] = {
            "event": "assigned",
            "participant": participant,
            "arm": chosen,
            "number": number,
            "counts": counts,
            "tied": tied,
            "at": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        entered = state.people.get(participant)
        if entered is not None and entered.pilot:
            record["pilot"] = True
        append_entry(folder, record)
        read()
        return chosen


def arm_named(arms: Sequence[Arm], name: str) -> Arm:
    """The arm called ``name`` (the first arm when the record names none of them)."""
    return next((a for a in arms if a.name == name), arms[0])


def arm_session(study: Study, arm: Arm | None) -> tuple[LoadedScenario, ElicitationSpec | None]:
    """The scenario (the study's copy) and elicitation a session of ``arm`` runs with
    (``None``: the study's scenario as it is)."""
    from tradeoff.ask.scenario import load_scenario

    if arm is None:
        return load_scenario(study.scenario_path), None
    loaded = load_scenario(study.path / arm.scenario)
    if arm.strategy is None:
        return loaded, None
    return loaded, loaded.scenario.elicitation.override(strategy=arm.strategy)


def planned_length(
    plans: Sequence[tuple[Scenario, ElicitationSpec | None]],
) -> tuple[int, bool]:
    """How long a session of a study takes, said before anyone is assigned to an arm:
    the most questions any of ``plans`` (each arm's scenario and elicitation, ``None``:
    the scenario's own; the study's alone without arms) expects, and whether every one
    stops once the answers settle the pick (then "at most"), as the study's page and the
    terminal app both say it."""
    from tradeoff.ask.scenario import DECIDING_STRATEGIES
    from tradeoff.learn import expected_questions

    specs = [(s, s.elicitation if spec is None else spec) for s, spec in plans]
    expected = max(expected_questions(s, spec) for s, spec in specs)
    decides = all(
        s.pool is not None and spec.strategy in DECIDING_STRATEGIES and spec.stop != "weights"
        for s, spec in specs
    )
    return expected, decides


class _Row(Protocol):
    @property
    def arm(self) -> str | None: ...
    @property
    def complete(self) -> bool: ...
    @property
    def sessions(self) -> int: ...
    @property
    def withdrawn(self) -> str | None: ...


def arms_status(arms: Sequence[Arm], rows: Iterable[_Row]) -> dict[str, dict[str, Any]]:
    """Per arm, of the status's rows (pilots apart): its strategy and scenario, and how many
    were assigned, completed, are in progress, withdrew; ``not assigned`` counts those not
    yet started."""
    out: dict[str, dict[str, Any]] = {
        a.name: {
            "scenario": a.scenario,
            "strategy": a.strategy,
            "assigned": 0,
            "complete": 0,
            "in_progress": 0,
            "withdrawn": 0,
        }
        for a in arms
    }
    for r in rows:
        counts = out.get(r.arm or "")
        if counts is None:
            continue
        counts["assigned"] += 1
        if r.withdrawn is not None:
            counts["withdrawn"] += 1
        elif r.complete:
            counts["complete"] += 1
        elif r.sessions:
            counts["in_progress"] += 1
    return out


def assigned_scenario(study: Study, participant: str) -> LoadedScenario:
    """The scenario a new session of ``participant`` runs on in a study with arms, their
    arm's strategy put in its elicitation (assigned now when they have none: a face that
    has no spec of its own to pass, the terminal app's)."""
    from tradeoff.study.withdrawals import withdrawn

    name = assign_arm(
        study.path, study.arms, study.arm_seed, participant, gone=lambda: withdrawn(study)
    )
    loaded, spec = arm_session(study, arm_named(study.arms, name))
    if spec is None:
        return loaded
    scenario = loaded.scenario.model_copy(update={"elicitation": spec})
    return loaded.model_copy(update={"scenario": scenario})
