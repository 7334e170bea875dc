"""A pick whose numbers lie outside the ranges the scenario's questions ask about says so
where the pick is said (the shipped breast-cancer pool holds a model of 1,377 KB where the
questions ask about 1–750 KB; glaucoma's one that clears 580 of 1,000 healthy eyes where
they ask about 600–1,000): the person's weights are carried beyond what they were asked."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from tradeoff.choose.decide import Decision, decide
from tradeoff.choose.pick_text import selection_text
from tradeoff.choose.range_words import outside_range_words
from tradeoff.choose.report import write_report
from tradeoff.choose.words import plain_summary

from ..conftest import scenario

pytestmark = pytest.mark.e2e

EXAMPLE = next(Path("sessions/examples/example-oncologist").glob("*.jsonl"))


def test_each_kind_of_aspect_outside_its_range_is_named() -> None:
    triage, glaucoma = scenario("breast-cancer-triage"), scenario("glaucoma-screening")
    inside = [0.9, 0.95, 5.0, 300.0]
    assert outside_range_words(triage, inside, "m") == ""
    said = outside_range_words(triage, [0.79, 0.95, 15.04, 0.4], "m")
    assert said.startswith("m lies outside the ranges the scenario's questions ask about: ")
    assert "flags 790 of 1,000 malignant lumps (its range: 800 to 1,000 of 1,000)" in said
    assert "0 KB of memory (its range: 1 KB to 750 KB)" in said
    assert "15.0 ms to score one case" not in said  # reads 15.0: the range's end, inside
    assert "clears" not in said
    assert outside_range_words(triage, [0.1, 0.1, 0.1], "m") == ""  # not this scenario's row
    said = outside_range_words(glaucoma, [0.9, 0.58, 0.2, 5.0], "g")
    assert "clears 580 of 1,000 healthy eyes (its range: 600 to 1,000 of 1,000)" in said


@pytest.fixture(scope="module")
def decision() -> Decision:
    return decide([EXAMPLE])


def test_the_pick_and_the_report_say_it(decision: Decision, tmp_path: Path) -> None:
    rec = decision.selection.recommendations[0]
    plain = selection_text(decision.selection)
    assert "outside the ranges" not in plain
    values = np.array(decision.pool.values, copy=True)
    values[rec.index, 3] = 1377.44  # the pick's memory beyond the scenario's 750 KB
    pool = replace(decision.pool, values=values)
    moved = replace(decision, selection=replace(decision.selection, pool=pool))
    said = f"{rec.name} lies outside the ranges the scenario's questions ask about: 1377 KB"
    assert said in selection_text(moved.selection)
    (entry,) = moved.to_dict()["stakeholders"]  # pick --json
    assert entry["outside_ranges_sentence"].startswith(said)
    assert decision.to_dict()["stakeholders"][0]["outside_ranges_sentence"] == ""
    assert said in "\n".join(plain_summary(moved.selection))  # the app's pick screen
    assert "outside the ranges" not in "\n".join(plain_summary(decision.selection))
    _, md = write_report(moved, tmp_path / "report", argv=["report"])
    assert said in md.read_text()
