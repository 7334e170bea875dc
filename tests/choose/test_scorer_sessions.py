"""Scorers from recorded sessions (`tradeoff.choose.scorer`): one person's is the expected
metric `select` ranks the pool by; a group's ranks the pool's models as the consensus does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tradeoff.choose.decide import decide
from tradeoff.choose.scorer import group_scorer, person_scorer

pytestmark = pytest.mark.e2e

SESSIONS = sorted(str(p) for p in Path("sessions/examples").glob("*/*.jsonl"))
CONSTANTS = {"latency": 0.4, "memory": 3.0}


def test_a_persons_scorer_is_their_expected_metric_on_every_model() -> None:
    """For each example session, the scorer's value of every model of the shipped pool is
    E[ψ] as the decision computes it over the posterior draws the questions stopped on
    (`Recommendation.expected`), so the scorer orders the pool as `select` does."""
    decision = decide(SESSIONS)
    for path, rec in zip(SESSIONS, decision.recommendations, strict=True):
        scorer = person_scorer(path, attributes=CONSTANTS)
        values = [scorer.value(row) for row in decision.pool.values]
        assert values == pytest.approx(list(rec.expected), rel=1e-9, abs=1e-12)
        assert decision.pool.names[int(np.argmax(values))] == rec.name


def test_a_groups_scorer_ranks_the_pool_as_the_consensus() -> None:
    """Over the shipped pool the group's scorer is largest at the consensus model, where it
    is minus the consensus's largest regret."""
    decision = decide(SESSIONS)
    scorer = group_scorer(SESSIONS, attributes=CONSTANTS)
    assert [p.who for p in scorer.people] == [s.participant for s in decision.stakeholders]
    values = np.array([scorer.value(row) for row in decision.pool.values])
    consensus = decision.pool.names.index(decision.consensus)
    assert values[consensus] == pytest.approx(-decision.selection.consensus_max_regret, abs=1e-9)
    assert values[consensus] >= values.max() - 1e-9
