"""The pick walk (benchmarks/walk.py): ``tradeoff pick`` on the example of sessions/README.md
does each room's work in one go, so the reader's walk (each function's first call, the
shared rooms folded into their callers) comes back to a room it has left at most 34 times
(54 before the text was made in choose, the replay's inputs gathered first and the pool's
size and columns made plain values)."""

from __future__ import annotations

from pathlib import Path

import pytest
from benchmarks import walk

pytestmark = pytest.mark.e2e


def test_the_pick_walk_comes_back_to_a_room_at_most_34_times(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRADEOFF_CACHE_DIR", str(tmp_path))
    walk.import_everything()
    walk.walk_of(walk.SELECT)  # the population built and kept, as on the second run
    _, folded, first = walk.walk_of(walk.SELECT)
    assert first.total_returns <= 34, first.visits
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
