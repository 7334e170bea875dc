"""The pick walk (benchmarks/walk.py): ``tradeoff pick`` on the example of sessions/README.md
does each room's work in one go, so the reader's walk (each function's first call, the
shared rooms folded into their callers) comes back to a room it has left at most 23 times
with the population kept, 26 times when it is built first (54 before the text was made in
choose, the replay's inputs gathered first and the pool's size and columns made plain
values; 34 and 41 before the pick's verdicts were decided where they are made, the pool's
û read with the pool, the stakeholder made of the engine's outcome read in one go and the
population's tables gathered as it is built, and a trade's shown keys with the question)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[1]

#: The two walks in a fresh process: what a process keeps in memory (the trades it built,
#: the texts it wrote) would otherwise come from whichever tests ran before in this one.
WALKS = """
import json
from benchmarks import walk
walk.import_everything()
_, _, built = walk.walk_of(walk.SELECT)  # the population built and kept
_, folded, first = walk.walk_of(walk.SELECT)  # as on the second run
print(json.dumps({
    "built": [built.total_returns, built.visits],
    "first": [first.total_returns, first.visits],
    "calls": [first.calls, folded.calls],
}))
"""


def test_the_pick_walk_comes_back_to_a_room_at_most_23_times(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "TRADEOFF_CACHE_DIR": str(tmp_path),
        "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)]),
    }
    out = subprocess.run(
        [sys.executable, "-c", WALKS], env=env, cwd=ROOT, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr[-2000:]
    walks = json.loads(out.stdout.splitlines()[-1])
    built, first = walks["built"], walks["first"]
    assert built[0] <= 26, built[1]
    assert first[0] <= 23, first[1]
    assert set(first[1]) <= {
        "cli",
        "choose",
        "record",
        "ask",
        "study",
        "learn",
        "pool",
        "curves",
    }
    assert walks["calls"][0] < walks["calls"][1]
