"""Numbers as the person reads them when options are described by their aspects: tables show
an attribute's number with its format's digits, as the questions do ("36.0", "0.70", never
"36" or "0.7"), and the trade-off sentences round amounts to what the unit can show and do
not repeat a unit that is the aspect's name ("1.2 changes", never "0.0012 changes of
changes" or "0.040 min")."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tradeoff.ask.aspects import tradeoffs
from tradeoff.ask.shown import aspect_cell

from ..conftest import SCENARIOS, scenario

pytestmark = pytest.mark.core

NAMES = sorted(p.stem for p in SCENARIOS.glob("*.toml"))


def test_a_table_cell_shows_the_questions_digits() -> None:
    sc = scenario("llm-leaderboard")
    assert [aspect_cell(sc, 0, 0.7), aspect_cell(sc, 1, 36.0), aspect_cell(sc, 0, 0.0)] == [
        "0.70",
        "36.0",
        "0.00",
    ]


@given(name=st.sampled_from(NAMES), share=st.floats(0.0, 1.0), j=st.integers(0, 9))
def test_every_cell_is_the_number_the_question_shows(name: str, share: float, j: int) -> None:
    sc = scenario(name)
    if not sc.attributes:
        return
    spec = sc.attributes[j % len(sc.attributes)]
    low, high = spec.range
    value = low + share * (high - low)
    cell = aspect_cell(sc, sc.n_classes + j % len(sc.attributes), value)
    # the whole number the question shows, not a part of it ("0.7" of "0.70")
    assert re.search(rf"(?<![\d.,]){re.escape(cell)}(?![\d.,])", spec.render(value)), cell


def _amounts(text: str) -> list[tuple[str, str]]:
    return re.findall(r"(\d+(?:\.\d+)?) (min|changes|steps)\b", text)


def test_tradeoffs_round_amounts_to_their_unit_and_name_them_once() -> None:
    sc = scenario("train-trips")
    w = np.array([1.0, 0.5, 8.0, 4.0])
    # Vague on every rate: each weight after the first spread over a factor of 5,000.
    spread = np.geomspace(0.001, 5.0, 200)[:, None] ** np.array([0, 1, 1, 1])
    said = " ".join(t.text for t in tradeoffs(sc, w, np.tile(w, (200, 1)) * spread))
    said += " " + " ".join(t.text for t in tradeoffs(sc, [1.0, 0.5, 8.0, 4.0], None))
    assert "changes of changes" not in said and "steps of steps" not in said
    # each format's decimals, read here from the scenario's own text ({value:.0f}: 0)
    decimals = {a.unit: int(re.findall(r"\.(\d+)f", a.format or ".0f")[0]) for a in sc.attributes}
    found = _amounts(said)
    assert found, said
    for number, unit in found:
        shown = len(number.partition(".")[2])
        assert shown <= decimals[unit] + 1, (number, unit, said)


@pytest.mark.parametrize("name", NAMES)
def test_a_scenarios_description_speaks_to_the_participant(name: str) -> None:
    """What a participant reads names no file, folder or script of the project: where a
    scenario's numbers come from is for the people who keep it (a comment in the file)."""
    text = scenario(name).description
    assert not re.search(r"\b(data|benchmarks|scenarios|pools)/|\.py\b|`tradeoff ", text), text
