"""The decide step: from recorded sessions and a candidate pool to a decision.

One use case for every face (docs/architecture.md, "The decide step"): ``tradeoff select``,
``tradeoff report`` and ``tradeoff study report`` call :func:`decide` with session files;
the app's result screen calls :func:`decide_session` with the session it is recording. Both
replay or read the stakeholders, find the pool (the one given, else the scenario's
``[pool]``, resolved relative to the scenario file), and return a :class:`Decision`: the
scenario, the pool, each stakeholder's recommendation and COPA's pick, the regret matrix and
the consensus (:func:`tradeoff.choose.selection.select_for_stakeholders`).
:func:`decision_facts` names the model decided on and what is recorded about it where the
models live; :func:`decision_tags` gives them as the tags a model registry records
(``tradeoff select --mlflow-model``).

This module sits above :mod:`tradeoff.record` and :mod:`tradeoff.choose.selection`; neither
imports it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from tradeoff.arrays import FloatArray
from tradeoff.ask.population import PopulationSource, scenario_priors
from tradeoff.ask.scenario import Scenario, load_scenario
from tradeoff.choose.candidates import scenario_pool, scenario_pool_path
from tradeoff.choose.change_words import change_sentence, nearest_changes
from tradeoff.choose.decision_curves import threshold_json
from tradeoff.choose.pool_metric import (
    metric_coefficients,
    metric_objectives,
    metric_vectors,
    omega_for_metric,
)
from tradeoff.choose.rank import RankOutcome, check_p, check_top, rank_pool
from tradeoff.choose.recommend import Recommendation
from tradeoff.choose.selection import Selection, select_for_stakeholders
from tradeoff.choose.stakeholder import Stakeholder, stakeholder_of
from tradeoff.data import shipped_ids, shipped_scenarios
from tradeoff.errors import InputError
from tradeoff.learn import Engine, outcome_of
from tradeoff.pool import Pool, load_pool
from tradeoff.record.log import read_session
from tradeoff.record.records import Header
from tradeoff.record.replay import replay
from tradeoff.stable import probability

__all__ = [
    "Decision",
    "decide",
    "decide_session",
    "decision_facts",
    "decision_tags",
    "load_stakeholders",
    "rank_for_session",
    "stakeholder_of",
]

#: Where option errors come from (they name a parameter: ``p``, ``top``).
OPTIONS = "options"


@dataclass(frozen=True)
class Decision:
    """What the decide step returns: everything ``select``, ``report`` and the result
    screen show.

    ``scenario`` is the one the stakeholders' weights are read in (given, or recorded in
    the sessions); ``pool`` the candidates, ``pool_path`` where they were read from;
    ``selection`` holds each stakeholder's recommendation and COPA pick, the regret matrix
    and the consensus; ``left_out`` who the decision leaves out and why, as (participant,
    reason), for the report to say (a study's report: unfinished, withdrawn, not started,
    pilot).
    """

    scenario: Scenario
    pool: Pool = field(repr=False)
    pool_path: str
    stakeholders: tuple[Stakeholder, ...]
    selection: Selection = field(repr=False)
    left_out: tuple[tuple[str, str], ...] = ()

    @property
    def recommendations(self) -> tuple[Recommendation, ...]:
        """Each stakeholder's recommended model (their own metric, expected over their
        posterior), in stakeholder order."""
        return tuple(self.selection.recommendations)

    @property
    def consensus(self) -> str:
        """The model that keeps the largest regret over the stakeholders smallest."""
        return self.selection.consensus_name

    def to_dict(self) -> dict[str, Any]:
        """The JSON ``tradeoff select --json`` prints; each stakeholder with their
        threshold probability (``threshold``: ``None`` for more than two classes)."""
        data = self.selection.to_dict()
        for entry, threshold in zip(
            data["stakeholders"], threshold_json(self.selection), strict=True
        ):
            entry["threshold"] = threshold
        return {"scenario": self.scenario.id, "pool": self.pool_path, **data}


@dataclass(frozen=True)
class _Sessions:
    """Replayed sessions of one scenario, and the file that scenario was read from."""

    scenario: Scenario
    scenario_path: str
    stakeholders: list[Stakeholder]


def _replay(paths: Sequence[str | Path], populations: PopulationSource | None) -> _Sessions:
    if not paths:
        raise InputError.single(
            "sessions", "", "no session given.", "give at least one session file."
        )
    out: list[Stakeholder] = []
    first: Header | None = None
    given: dict[tuple[str, str, int | str], str | Path] = {}
    for path in paths:
        log = read_session(path)
        h = log.header
        # The same file twice, or a copy of it (a session without its start time: the
        # same file only): one person counted twice.
        same = (h.participant, h.started, h.seed if h.started else str(Path(path).resolve()))
        if same in given:
            raise InputError.single(
                path,
                "",
                f"is the same session as {given[same]} (participant {h.participant!r}"
                f"{f', started {h.started}' if h.started else ''}): the person would count "
                "twice.",
                "give each session once.",
            )
        given[same] = path
        population = None if populations is None else populations(log.header.scenario)
        engine = replay(log, population=population)
        # What the answers come to, read from the engine at once: the stakeholder is made of it.
        person = stakeholder_of(
            log.header, outcome_of(engine), path, made_elsewhere=log.made_elsewhere
        )
        if log.warnings:  # a half line skipped changes the pick: every face says so
            person = replace(person, warnings=tuple(log.warnings))
        if person.answers == 0:
            raise InputError.single(
                path,
                "",
                "the session holds no answer, so there are no weights to use.",
                "leave it out, or let the participant answer first.",
            )
        if first is not None and h.scenario_sha256 != first.scenario_sha256:
            raise InputError.single(
                path,
                "header",
                f"was recorded on scenario {h.scenario.id!r} "
                f"(sha256 {h.scenario_sha256[:12]}…) but {out[0].path} on "
                f"{out[0].scenario_id!r} (sha256 {out[0].scenario_sha256[:12]}…).",
                "give sessions of one scenario (one version of it) at a time.",
            )
        first = first or h
        out.append(person)
    assert first is not None
    return _Sessions(first.scenario, first.scenario_path, out)


def load_stakeholders(
    paths: Sequence[str | Path], *, populations: PopulationSource | None = None
) -> tuple[Scenario, list[Stakeholder]]:
    """Replay sessions; all must come from one scenario and hold at least one answer
    (``populations``: where the scenario's population comes from, as for :func:`decide`).

    Returns the scenario recorded in the sessions and one :class:`Stakeholder` each.
    """
    sessions = _replay(paths, populations)
    return sessions.scenario, sessions.stakeholders


def _shipped_as_is(scenario: Scenario) -> bool:
    """Whether ``scenario`` (of a shipped scenario's id) is as it ships: the same settings
    as the shipped file, wherever the file it was read from lay."""
    try:
        return load_scenario(shipped_scenarios() / f"{scenario.id}.toml").scenario == scenario
    except InputError:
        return False


def _scenario_pool(
    scenario: Scenario, scenario_file: str, name_column: str | None, *, recorded: bool = False
) -> tuple[Pool, str]:
    """The pool the scenario's ``[pool]`` names, relative to ``scenario_file``'s folder, or
    an InputError that says how to give one. With ``recorded`` (the scenario file is the
    one a session recorded, not one given now), a shipped scenario's own pool is used when
    the session's scenario is the shipped one as it ships, or the recorded folder no longer
    has the pool (a session read on another machine or folder)."""
    source = scenario_file or scenario.id
    if scenario.pool is None:
        what = "models" if scenario.classes else "options"  # options described by aspects
        raise InputError.single(
            source,
            "pool",
            f"no pool file was given and the scenario {scenario.id!r} has no [pool] section, "
            f"so there are no candidate {what} to choose from.",
            f"give the pool file of the candidate {what}, or add [pool] (path, name_column, "
            "columns) to the scenario.",
        )
    base = Path(scenario_file).parent if scenario_file else Path(".")
    path = scenario_pool_path(scenario, base)
    shipped = scenario_pool_path(scenario, shipped_scenarios())
    if (
        recorded
        and scenario.id in shipped_ids()
        and shipped.is_file()
        and (not path.is_file() or _shipped_as_is(scenario))
    ):
        # A shipped scenario, recorded from whatever folder (another machine's, another
        # checkout's): its pool ships beside it, not a copy in that folder.
        base, path = shipped_scenarios(), shipped
    if not path.is_file():
        raise InputError.single(
            source,
            "pool.path",
            f"names the pool {scenario.pool.path!r}, which is not there (looked for {path}).",
            "give the pool file of the candidate models, or the scenario file (its [pool] "
            "path is read relative to it), or correct [pool] path.",
        )
    if name_column is None:
        return scenario_pool(scenario, base), str(path)
    return load_pool(
        path, metric_objectives(scenario), name_column=name_column, scenario=True
    ), str(path)


def _pool(
    scenario: Scenario,
    scenario_file: str,
    pool: str | Path | Pool | None,
    name_column: str | None,
    *,
    recorded: bool = False,
) -> tuple[Pool, str]:
    if isinstance(pool, Pool):
        return pool, pool.source
    if pool is None:
        return _scenario_pool(scenario, scenario_file, name_column, recorded=recorded)
    spec = scenario.pool
    column = name_column or (spec.name_column if spec else None)
    return load_pool(pool, metric_objectives(scenario), name_column=column, scenario=True), str(
        pool
    )


def decide(
    sessions: Sequence[str | Path],
    pool: str | Path | Pool | None = None,
    *,
    scenario: str | Path | None = None,
    name_column: str | None = None,
    p: float = math.inf,
    top: int = 10,
    exclude_inconsistent: bool = False,
    populations: PopulationSource | None = None,
) -> Decision:
    """Replay ``sessions`` and decide: each stakeholder's recommendation and COPA pick, the
    regret matrix and the consensus.

    Parameters
    ----------
    sessions
        Session files, all recorded on one scenario (one version of it), each with at least
        one answer.
    pool
        The candidate pool: a file (CSV or Parquet), or a loaded pool. Without one, the
        pool the scenario's ``[pool]`` names, its path relative to the scenario file.
    scenario
        A scenario file to read the weights in instead of the one recorded in the sessions
        (it must have the same ``id``); its folder is where a ``[pool]`` path is resolved.
    name_column
        The pool's column of model names (default: the scenario's ``[pool] name_column``).
    p, top, exclude_inconsistent
        COPA's criterion (≥ 1 or ∞), how many ranked models to report (≥ 1), and whether
        stakeholders flagged as inconsistent are left out of the consensus.
    populations
        Where the recorded scenario's population comes from for the replay (memory-mapped
        from a cache: :func:`tradeoff.study.cache.command_population`); without it each
        engine builds it.

    Raises
    ------
    InputError
        For a bad option (naming ``p`` or ``top``), a session that cannot be read or
        replayed, sessions of different scenarios, a scenario of another ``id``, no pool
        (none given and no ``[pool]`` in the scenario, or its file missing), or a pool
        whose columns do not fit the scenario.
    """
    p, top = check_p(p, OPTIONS), check_top(top, OPTIONS)
    replayed = _replay(sessions, populations)
    chosen, scenario_file = replayed.scenario, replayed.scenario_path
    if scenario is not None:
        given = load_scenario(scenario)
        if given.scenario.id != chosen.id:
            raise InputError.single(
                scenario,
                "id",
                f"is {given.scenario.id!r} but the sessions were recorded on {chosen.id!r}.",
                "give the scenario the sessions were recorded on.",
            )
        chosen, scenario_file = given.scenario, given.path
    candidates, pool_path = _pool(
        chosen, scenario_file, pool, name_column, recorded=scenario is None
    )
    return _decision(
        chosen,
        candidates,
        pool_path,
        replayed.stakeholders,
        p,
        top,
        exclude_inconsistent,
        candidates.rank_cdf,  # COPA's û, read with the pool: every ω is measured on it
    )


def decide_session(
    header: Header,
    engine: Engine,
    path: str | Path,
    pool: str | Path | Pool | None = None,
    *,
    p: float = math.inf,
    top: int = 10,
) -> Decision:
    """:func:`decide` for one session as its engine now stands (nothing is replayed): what
    the app's result screen shows, and its "Ranking details" screen
    (``decision.selection``).

    Without ``pool``, the scenario's ``[pool]``, relative to the scenario file the session
    was started from (``header.scenario_path``).
    """
    p, top = check_p(p, OPTIONS), check_top(top, OPTIONS)
    person = stakeholder_of(header, engine, path)
    candidates, pool_path = _pool(header.scenario, header.scenario_path, pool, None, recorded=True)
    u = candidates.rank_cdf  # COPA's û, read with the pool
    return _decision(header.scenario, candidates, pool_path, [person], p, top, False, u)


def _decision(
    scenario: Scenario,
    pool: Pool,
    pool_path: str,
    stakeholders: Sequence[Stakeholder],
    p: float,
    top: int,
    exclude_inconsistent: bool,
    u: FloatArray,
) -> Decision:
    selection = select_for_stakeholders(
        scenario,
        stakeholders,
        pool,
        p=p,
        top=top,
        exclude_inconsistent=exclude_inconsistent,
        u=u,
    )
    return Decision(scenario, pool, pool_path, tuple(stakeholders), selection)


def rank_for_session(
    scenario: Scenario,
    weights: Sequence[float],
    *,
    base: str | Path = ".",
    pool: Pool | None = None,
    priors: Sequence[float] | None = None,
    p: float = math.inf,
    top: int = 10,
) -> RankOutcome:
    """Rank the scenario's pool with COPA weights ω derived from the elicited ``weights``.

    ``priors`` are the class priors the weights were elicited with (an ElicitationResult
    carries them); without them the scenario's population is built to find them. ω is
    chosen by :func:`~tradeoff.choose.pool_metric.omega_for_metric` to agree with ψ of ``weights``.
    """
    pool = pool if pool is not None else scenario_pool(scenario, base)
    if priors is None:
        priors = scenario_priors(scenario)
    psi = metric_vectors(scenario, pool, priors) @ np.asarray(weights, dtype=np.float64)
    coefficients = metric_coefficients(scenario, weights, priors)
    omega, _ = omega_for_metric(pool, coefficients, p, psi=psi)
    return rank_pool(pool, weights=omega, p=p, top=top)


def decision_facts(chosen: Decision) -> tuple[int, dict[str, Any]]:
    """The row of the model decided on (one person's recommendation, or the group's
    consensus) and what a model registry or a search records about it, as numbers and
    lists: ``recommended``, ``rule``, ``p_best`` (a number or None for one person, one per
    participant for a group), ``max_regret`` (a group), ``p_rank_1_2_3``,
    ``what_would_change``, ``unfinished``, ``scenario``, ``participants``, ``sessions``,
    ``answers`` (those that do not apply are left out). :func:`decision_tags` writes them
    as MLflow tags, :func:`tradeoff.pool.optuna_pick.record_pick` as an Optuna study's
    attribute."""
    selection = chosen.selection
    people = selection.stakeholders
    facts: dict[str, Any] = {}
    if len(people) == 1:
        index = selection.recommendations[0].index
        facts["rule"] = (
            "the recommendation: the model of highest expected value in the person's own "
            "metric over their posterior"
        )
        facts["p_best"] = probability(selection.recommendations[0].probability)
    else:
        index = chosen.pool.names.index(selection.consensus_name)
        facts["rule"] = "consensus: " + selection.consensus_rule
        facts["p_best"] = {
            s.participant: None if r.p_best is None else probability(r.p_best[index])
            for s, r in zip(people, selection.recommendations, strict=True)
        }
        facts["max_regret"] = float(selection.consensus_max_regret)
    table = (
        selection.acceptability[0]
        if len(people) == 1 and selection.acceptability
        else selection.consensus_acceptability
    )
    if table is not None:
        facts["p_rank_1_2_3"] = [float(p) for p in table[index]]
    changes = (
        selection.changes[0]
        if len(people) == 1 and selection.changes
        else selection.consensus_changes
    )
    near = nearest_changes(changes)
    if near:
        facts["what_would_change"] = change_sentence(near[0], chosen.pool.names)
    unfinished = [f"{s.participant} ({s.answers} answers)" for s in people if not s.complete]
    if unfinished:  # a pick from unfinished questions is provisional
        facts["unfinished"] = unfinished
    facts |= {
        "recommended": chosen.pool.names[index],
        "scenario": chosen.scenario.id,
        "participants": [s.participant for s in people],
        "sessions": [Path(s.path).name for s in people],
        "answers": [s.answers for s in people],
    }
    return index, facts


def decision_tags(chosen: Decision) -> tuple[int, dict[str, str]]:
    """The row of the model decided on and the tags written on its MLflow version
    (:func:`decision_facts` as text)."""
    index, facts = decision_facts(chosen)
    p_best = facts["p_best"]
    tags = {
        "tradeoff.rule": facts["rule"],
        "tradeoff.p_best": (
            json.dumps({k: None if v is None else round(v, 4) for k, v in p_best.items()})
            if isinstance(p_best, dict)
            else "none (point estimate)"
            if p_best is None
            else f"{p_best:.4f}"
        ),
    }
    if "max_regret" in facts:
        tags["tradeoff.max_regret"] = f"{facts['max_regret']:.4f}"
    if "p_rank_1_2_3" in facts:
        tags["tradeoff.p_rank_1_2_3"] = ", ".join(f"{p:.4f}" for p in facts["p_rank_1_2_3"])
    if "what_would_change" in facts:
        tags["tradeoff.what_would_change"] = facts["what_would_change"]
    if "unfinished" in facts:
        tags["tradeoff.unfinished"] = ", ".join(facts["unfinished"])
    tags |= {
        "tradeoff.recommended": facts["recommended"],
        "tradeoff.scenario": facts["scenario"],
        "tradeoff.participants": ", ".join(facts["participants"]),
        "tradeoff.sessions": ", ".join(facts["sessions"]),
        "tradeoff.answers": ", ".join(str(a) for a in facts["answers"]),
    }
    return index, tags
