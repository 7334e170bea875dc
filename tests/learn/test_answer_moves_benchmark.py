"""``benchmarks.answer_moves`` counts what the engine's state says: an answer moved the
particles when it raised ``state.moves``; both kinds of answerers answer."""

from __future__ import annotations

import pytest
from benchmarks.answer_moves import moved_shares

pytestmark = pytest.mark.core


def test_the_moves_are_counted_per_answer_for_both_kinds() -> None:
    found = moved_shares(people=2, answers=4)
    assert set(found) == {"person", "random"}
    for moved, given in found.values():
        assert given == 8  # neither stops within four answers
        assert 0 <= moved <= given
    # a random person's answers contradict each other: their eight move the particles
    assert found["random"][0] >= 1
