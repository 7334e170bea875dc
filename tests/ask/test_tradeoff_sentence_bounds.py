"""Trade-off sentences whose whole 90 % range lies past an attribute's range say the fact
("Even the whole range of …"), not "at least 4093 min …, perhaps more than its whole
range"; amounts of a thousand or more are grouped ("4,093 min"); an amount of a named
aspect is one quantity ("ƒ10.00 of price is worth", in German "ist … wert"), a count of
its own units as many as it says ("2 changes are worth", "sind … wert"). A card's lines
still read as the scenario's format writes them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tradeoff.ask.aspects import amount as aspect_amount
from tradeoff.ask.aspects import point_tradeoffs
from tradeoff.ask.aspects import tradeoffs as aspect_tradeoffs
from tradeoff.ask.narrative import tradeoffs
from tradeoff.ask.scenario import Scenario, load_scenario
from tradeoff.ask.shown import amount, attribute_line, said_amount
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
            "Even the whole range of latency, 0.05 ms to 15.0 ms, is worth less to you than "
            "10 more flagged malignant lumps per 1,000 malignant lumps.",
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
    assert said_amount(minutes, 4093.0) == "4,093 min"
    assert aspect_amount(minutes, 4093.0) == "4,093 min"
    assert said_amount(minutes, 4093.0, languages()["de"].words()) == "4.093 min"
    assert said_amount(minutes, 409.0) == "409 min"
    assert amount(minutes, 4093.0) == "4093 min"  # a card's difference, as its line reads


def test_an_amount_of_a_named_aspect_is_one_quantity_and_a_count_as_many_as_it_says() -> None:
    sc = load_scenario(SCENARIOS / "train-trips.toml").scenario
    said = [s for _, s in point_tradeoffs(sc, [1.0, 0.5, 8.0, 0.0])]
    assert said[0] == "ƒ10.00 of price is worth as much to you as 20 min of time."
    # said the other way round (a change is worth more than a price step shows): a count
    turned = [s for _, s in point_tradeoffs(sc, [0.05, 0.5, 8.0, 0.0])]
    assert any(" changes are worth " in s or " change is worth " in s for s in turned), turned
    assert not any(" changes is worth " in s or " change are worth " in s for s in turned)


def _with_range(scenario: Scenario, j: int, low: float, high: float) -> Scenario:
    """``scenario`` with attribute ``j``'s range widened, so its amounts run past 1,000."""
    attrs = list(scenario.attributes)
    attrs[j] = attrs[j].model_copy(update={"range": (low, high)})
    return scenario.model_copy(update={"attributes": tuple(attrs)})


def test_an_aspect_trade_off_past_the_whole_range_is_a_fact_in_german_too() -> None:
    sc = load_scenario(SCENARIOS / "train-trips.toml").scenario
    w = np.array([1.0, 0.5, 8.0, 4.0])
    draws = np.tile(w, (100, 1))
    draws[:, 1] = np.geomspace(1e-3, 1e-4, 100)
    german = aspect_tradeoffs(sc, w, draws, words=languages()["de"].words())
    text = next(t.text for t in german if t.aspect == 1)
    assert text == (
        "Selbst der ganze Bereich von time, 55 min bis 250 min, ist Ihnen weniger wert als "
        "ƒ10,00 price."
    )


def test_a_trade_off_sentence_groups_its_amounts_by_thousands_in_each_language() -> None:
    trips = _with_range(load_scenario(SCENARIOS / "train-trips.toml").scenario, 1, 55.0, 9000.0)
    w = np.array([1.0, 0.005, 8.0, 4.0])  # ƒ10.00 of price worth 2,000 min of time
    draws = np.tile(w, (100, 1))
    draws[:, 1] = w[1] * np.linspace(0.5, 2.0, 100)
    assert aspect_tradeoffs(trips, w, draws)[0].text == (
        "ƒ10.00 of price is worth between 1,039 min and 3,478 min of time to you (90% range)."
    )
    assert point_tradeoffs(trips, w)[0][1] == (
        "ƒ10.00 of price is worth as much to you as 2,000 min of time."
    )
    german = aspect_tradeoffs(trips, w, draws, words=languages()["de"].words())[0].text
    assert "zwischen 1.039 min und 3.478 min" in german
    triage = _with_range(
        load_scenario(SCENARIOS / "breast-cancer-triage.toml").scenario, 1, 1.0, 75000.0
    )
    wb = np.array([0.5 / 0.37, 0.3 / 0.63, 0.1, 2e-6])
    db = np.tile(wb, (100, 1))
    db[:, 3] = wb[3] * np.linspace(0.5, 2.0, 100)
    memory = next(t.text for t in tradeoffs(triage, wb, [0.37, 0.63], db) if t.aspect == 3)
    assert memory == (
        "10 more flagged malignant lumps per 1,000 malignant lumps are worth between 1,299 KB "
        "and 4,348 KB of memory to you (90% range)."
    )


def test_a_card_still_shows_its_numbers_as_the_format_writes_them() -> None:
    """Only the sentences group thousands: a card's line (what a question is keyed by)
    reads as the scenario's format writes it."""
    trips = _with_range(load_scenario(SCENARIOS / "train-trips.toml").scenario, 1, 55.0, 9000.0)
    assert attribute_line(trips, 1, 4093.0) == "4093 min on the way"
    assert attribute_line(trips, 1, 4093.0, languages()["de"].words()) == "4093 min on the way"


def test_the_verb_agrees_with_the_amount_in_english_and_german() -> None:
    sc = load_scenario(SCENARIOS / "train-trips.toml").scenario
    de = languages()["de"].words()
    money = point_tradeoffs(sc, [1.0, 0.5, 8.0, 0.0])[0][1]
    assert money.startswith("ƒ10.00 of price is worth ")
    assert point_tradeoffs(sc, [1.0, 0.5, 8.0, 0.0], words=de)[0][1] == (
        "ƒ10,00 price ist Ihnen so viel wert wie 20 min time."
    )
    changes = point_tradeoffs(sc, [0.05, 0.5, 8.0, 0.0])[1][1]
    assert changes == "0.5 changes are worth as much to you as ƒ80.00 of price."
    assert point_tradeoffs(sc, [0.05, 0.5, 8.0, 0.0], words=de)[1][1].startswith(
        "0,5 changes sind Ihnen "
    )
    w = np.array([1.0, 0.5, 8.0, 4.0])
    vague = np.tile(w, (100, 1)) * np.linspace(0.2, 5.0, 100)[:, None] ** np.array([0, 1, 0, 0])
    german = aspect_tradeoffs(sc, w, vague, words=de)[0].text
    assert german.startswith("ƒ10,00 price ist Ihnen zwischen ")
    # a count of cases per 1,000 stays plural
    triage = load_scenario(SCENARIOS / "breast-cancer-triage.toml").scenario
    wb = np.array([0.5, 0.3, 0.1, 0.1]) / np.array([0.37, 0.63, 1.0, 1.0])
    spread = np.tile(wb, (100, 1)) * np.linspace(0.2, 5.0, 100)[:, None] ** np.array([0, 0, 1, 0])
    latency = next(t.text for t in tradeoffs(triage, wb, [0.37, 0.63], spread) if t.aspect == 2)
    assert latency.startswith(
        "10 more flagged malignant lumps per 1,000 malignant lumps are worth "
    )
