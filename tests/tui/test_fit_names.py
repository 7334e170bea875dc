"""Names fitted to a table's first column never make two options read alike: the
leaderboard's 82 models stay 82 names at every width, and any list of distinct names stays
distinct, each within the width (at least 8 characters)."""

from __future__ import annotations

import csv

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tradeoff.tui.common import fit_names

from ..conftest import SCENARIOS

pytestmark = pytest.mark.core

PIECES = st.sampled_from(["meta-llama/", "Qwen/", "Meta-Llama-3", ".1", "-70B", "-8B", "-Instruct"])


@pytest.mark.parametrize("width", [8, 12, 16, 22, 30])
def test_the_leaderboard_keeps_every_name_apart(width: int) -> None:
    with (SCENARIOS / "pools" / "llm-leaderboard.csv").open(encoding="utf-8") as f:
        names = [row["model"] for row in csv.DictReader(f)]
    shown = fit_names(names, width)
    assert len(set(shown)) == len(set(names))
    assert all(len(s) <= width for s in shown)


@given(
    names=st.lists(st.lists(PIECES, min_size=1, max_size=6).map("".join), min_size=2, unique=True),
    width=st.integers(4, 40),
)
def test_distinct_names_stay_distinct_within_the_width(names: list[str], width: int) -> None:
    shown = fit_names(names, width)
    assert len(set(shown)) == len(names), (names, shown)
    assert all(len(s) <= max(width, 8) for s in shown), shown
