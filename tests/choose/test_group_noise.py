"""A group's consensus under measurement noise: each person's pick is the likeliest best
once the noise is counted, and the consensus weighs the same (issue: a study of six on a
pool with one model two points better on 40 cases recommended that model to the group,
"m10 59%", while every participant's own pick was m4 or m0)."""

from __future__ import annotations

import numpy as np
import pytest

from tradeoff.choose.selection import select_for_stakeholders
from tradeoff.choose.stakeholder import Stakeholder
from tradeoff.pool import load_pool

from .test_noise_pick import OBJECTIVES, PRIORS, SC, front_frame, front_pool

pytestmark = [pytest.mark.core, pytest.mark.other_path]


def person(name: str, concentration: list[float], seed: int) -> Stakeholder:
    """A stakeholder with 200 posterior draws about ``concentration``'s mean weights."""
    draws = np.random.default_rng(seed).dirichlet(concentration, size=200)
    return Stakeholder(
        participant=name,
        path=f"{name}.jsonl",
        scenario_id=SC.id,
        scenario_sha256="0" * 64,
        names=tuple(a.name for a in SC.classes) + tuple(a.name for a in SC.attributes),
        weights=tuple(float(x) for x in draws.mean(axis=0)),
        intervals=None,
        answers=10,
        priors=PRIORS,
        draws=draws,
        posterior=(draws, np.full(len(draws), 1 / len(draws))),
    )


def test_the_group_is_not_given_the_model_that_measured_best_by_luck() -> None:
    pool = front_pool()
    people = [person("a", [30.0, 30.0, 1.0, 1.0], 0), person("b", [34.0, 26.0, 1.0, 1.0], 1)]
    selection = select_for_stakeholders(SC, people, pool)
    own = [r.name for r in selection.recommendations]
    assert "m10" not in own  # each person's likeliest best
    assert all(r.measured_best == "m10" for r in selection.recommendations)
    assert selection.consensus_name != "m10"
    assert "over plausible measurements" in selection.consensus_rule
    # both people's likeliest best is m3, and the consensus, weighing E[ψ] over plausible
    # measurements, is their own pick (the rule before gave them m10)
    assert own == ["m3", "m3"] and selection.consensus_name == "m3"
    assert all(r.expected_noisy is not None for r in selection.recommendations)


def test_without_noise_the_consensus_weighs_the_measured_numbers() -> None:
    frame = front_frame().drop(columns=["recall_malignant_cases", "recall_benign_cases"])
    exact = load_pool("front.csv", OBJECTIVES, frame=frame, name_column="model")
    selection = select_for_stakeholders(SC, [person("a", [30.0, 30.0, 1.0, 1.0], 0)], exact)
    rec = selection.recommendations[0]
    assert rec.expected_noisy is None and rec.values == rec.expected
    assert rec.name == selection.consensus_name == "m10"  # exact numbers: it is the best
    assert "plausible" not in selection.consensus_rule
