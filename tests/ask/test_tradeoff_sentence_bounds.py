"""Trade-off sentences whose whole 90 % range lies past an attribute's range say the fact
("Even the whole range of …"), not "at least 4093 min …, perhaps more than its whole
range"; amounts of a thousand or more are grouped ("4,093 min"); an amount of a named
aspect is one quantity ("ƒ10.00 of price is worth"), a count of its own units as many as
it says ("2 changes are worth")."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tradeoff.ask.aspects import amount as aspect_amount
from tradeoff.ask.aspects import point_tradeoffs
from tradeoff.ask.aspects import tradeoffs as aspect_tradeoffs
from tradeoff.ask.narrative import tradeoffs
from tradeoff.ask.scenario import load_scenario
from tradeoff.ask.shown import amount
from tradeoff.web.i18n import languages

pytestmark = pytest.mark.core

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


def test_a_classifier_trade_off_past_the_whole_range_even_at_its_low_end_is_a_fact() -> None:
    sc = load_scenario(SCENARIOS / "breast-cancer-triage.toml").scenario
    w = np.array([0.5 / 0.37, 0.3 / 0.63, 0.01, 0.1])
    draws = np.tile(w, (100, 1))
    draws[:, 2] = np.geomspace(1e-4, 1e-5, 100)  # latency next to nothing, however unsure
    said = [t for t in tradeoffs(sc, w, [0.37, 0.63], draws) if t.aspect == 2]
    assert [(t.text, t.settled) for t in said] == [
        (
            "Even the whole range of latency, 0.1 ms to 15.0 ms, is worth less to you than "
            "10 more flagged malignant lumps per 1,000.",
            True,
        )
    ]
    german = tradeoffs(sc, w, [0.37, 0.63], draws, words=languages()["de"].words())
    text = next(t.text for t in german if t.aspect == 2)
    assert text.startswith("Selbst der ganze Bereich von latency") and "perhaps" not in text


def test_an_aspect_trade_off_past_the_whole_range_even_at_its_low_end_is_a_fact() -> None:
    sc = load_scenario(SCENARIOS / "train-trips.toml").scenario
    w = np.array([1.0, 0.5, 8.0, 4.0])
    draws = np.tile(w, (100, 1))
    draws[:, 1] = np.geomspace(1e-3, 1e-4, 100)  # time next to nothing against price
    said = [t for t in aspect_tradeoffs(sc, w, draws) if t.aspect == 1]
    assert len(said) == 1 and said[0].settled
    assert said[0].text.startswith("Even the whole range of time, ")
    assert "at least" not in said[0].text and "perhaps" not in said[0].text


def test_amounts_of_a_thousand_or_more_are_grouped_in_sentences() -> None:
    sc = load_scenario(SCENARIOS / "train-trips.toml").scenario
    minutes = sc.attributes[1]
    assert amount(minutes, 4093.0) == "4,093 min"
    assert aspect_amount(minutes, 4093.0) == "4,093 min"
    assert amount(minutes, 4093.0, languages()["de"].words()) == "4.093 min"
    assert amount(minutes, 409.0) == "409 min"


def test_an_amount_of_a_named_aspect_is_one_quantity_and_a_count_as_many_as_it_says() -> None:
    sc = load_scenario(SCENARIOS / "train-trips.toml").scenario
    said = [s for _, s in point_tradeoffs(sc, [1.0, 0.5, 8.0, 0.0])]
    assert said[0] == "ƒ10.00 of price is worth as much to you as 20 min of time."
    # said the other way round (a change is worth more than a price step shows): a count
    turned = [s for _, s in point_tradeoffs(sc, [0.05, 0.5, 8.0, 0.0])]
    assert any(" changes are worth " in s or " change is worth " in s for s in turned), turned
    assert not any(" changes is worth " in s or " change are worth " in s for s in turned)
