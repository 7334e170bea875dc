"""The study page's review, where it names the pick (a pool with measurement noise), says
when the pick lies outside the ranges the scenario's questions ask about, with the words
``session show`` prints for the same session."""

from __future__ import annotations

from pathlib import Path

import pytest

from tradeoff.cli.app import format_session
from tradeoff.record.summary import summarise
from tradeoff.text import clean_text

from ..choose.test_noise_pick import COLUMNS, front_frame
from .test_noisy_review_pool import at_review

pytestmark = pytest.mark.e2e


async def test_the_review_says_the_pick_lies_outside_the_ranges(tmp_path: Path) -> None:
    frame = front_frame()
    frame[COLUMNS[3]] = 800.0  # every model's memory beyond the questions' 1–750 KB
    async with at_review(tmp_path, frame) as (_, page, study):
        [path] = (study.sessions_dir / "p01").glob("*.jsonl")
    said = "800 KB of memory (its range: 1 KB to 750 KB). Where it ranks rests on the weights"
    shown = " ".join(page.text.split())
    assert "lies outside the ranges the scenario's questions ask about:" in shown
    assert said in shown
    session = " ".join(clean_text(format_session(summarise(path))).split())
    pick = shown.split(" lies outside the ranges", 1)[0].rsplit(" ", 1)[-1]
    assert f"{pick} lies outside the ranges the scenario's questions ask about:" in session
