"""The pick walk (benchmarks/walk.py): ``tradeoff pick`` on the example of sessions/README.md
does each room's work in one go, so the reader's walk (each function's first call, the
shared rooms folded into their callers) comes back to a room it has left at most 23 times
with the population kept, 26 times when it is built first (54 before the text was made in
choose, the replay's inputs gathered first and the pool's size and columns made plain
values; 34 and 41 before the pick's verdicts were decided where they are made, the pool's
û read with the pool, the stakeholder made of the engine's outcome read in one go and the
population's tables gathered as it is built, and a trade's shown keys with the question)."""

from __future__ import annotations

from pathlib import Path

import pytest
from benchmarks import walk

pytestmark = pytest.mark.e2e


def test_the_pick_walk_comes_back_to_a_room_at_most_23_times(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRADEOFF_CACHE_DIR", str(tmp_path))
    walk.import_everything()
    _, _, built = walk.walk_of(walk.SELECT)  # the population built and kept
    assert built.total_returns <= 26, built.visits
    _, folded, first = walk.walk_of(walk.SELECT)  # as on the second run
    assert first.total_returns <= 23, first.visits
    assert set(first.visits) <= {
        "cli",
        "choose",
        "record",
        "ask",
        "study",
        "learn",
        "pool",
        "curves",
    }
    assert first.calls < folded.calls
