"""A number that reads as one takes the singular a scenario gives (``format_one``,
``unit_one``): "1 change of train", never "1 changes of train", wherever a value or an
amount of an attribute is written; a scenario's singular is checked against its plural."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from tradeoff.ask.aspects import amount as rounded_amount
from tradeoff.ask.aspects import tradeoffs
from tradeoff.ask.scenario import AttributeSpec
from tradeoff.ask.shown import amount, attribute_line, card_lines
from tradeoff.ask.words import difference_words
from tradeoff.text import Words

from ..conftest import scenario

pytestmark = pytest.mark.core

#: A count of one followed by a plural the train-trip scenario writes.
ONE_PLURAL = re.compile(r"(?<![\d.,])1 (changes|steps)\b")


def _spec(**extra: object) -> AttributeSpec:
    fields: dict[str, object] = {
        "name": "changes",
        "kind": "cost",
        "unit": "changes",
        "range": (0.0, 4.0),
        "label": "changes",
        "format": "{value:.0f} changes of train",
    }
    fields.update(extra)
    return AttributeSpec.model_validate(fields)


def test_one_reads_singular_and_every_other_count_plural() -> None:
    spec = _spec(unit_one="change", format_one="{value:.0f} change of train")
    shown = [spec.render(v) for v in (0.0, 0.6, 1.0, 1.4, 1.6, 2.0, 4.0)]
    assert shown == [
        "0 changes of train",
        "1 change of train",
        "1 change of train",
        "1 change of train",
        "2 changes of train",
        "2 changes of train",
        "4 changes of train",
    ]
    assert [amount(spec, v) for v in (1.0, 2.0, 0.0)] == ["1 change", "2 changes", "0 changes"]
    # an amount shown with more digits than the format's keeps the plural ("0.5 changes")
    assert [rounded_amount(spec, v) for v in (1.0, 0.5)] == ["1 change", "0.5 changes"]


def test_without_a_singular_the_plural_stays() -> None:
    spec = _spec()
    assert spec.render(1.0) == "1 changes of train"
    assert amount(spec, 1.0) == "1 changes"


def test_german_digits_take_the_same_form() -> None:
    sc = scenario("train-trips")
    de = Words(locale="de")
    assert attribute_line(sc, 2, 1.0, de) == "1 change of train"
    assert attribute_line(sc, 0, 1.5, de) == "ƒ1,50 fare"


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ({"format_one": "{value:.1f} change of train"}, "format_one must write the number"),
        ({"format_one": "about {value:.0f} change"}, "format_one must start as format does"),
        ({"format_one": "one change"}, "format_one must contain {value}"),
        ({"format": None, "format_one": "{value:.0f} change"}, "format_one needs format"),
        ({"unit": "", "unit_one": "change"}, "unit_one needs unit"),
    ],
)
def test_a_singular_unlike_its_plural_is_refused(extra: dict[str, object], field: str) -> None:
    with pytest.raises(ValidationError, match=re.escape(field)):
        _spec(**extra)


def test_train_trip_scenario_refused_with_a_bad_singular(tmp_path: object) -> None:
    """The scenario file's error names the attribute's field and says what to write."""
    from pathlib import Path

    from tradeoff.ask.scenario import load_scenario
    from tradeoff.errors import InputError

    root = Path(__file__).resolve().parents[2]
    text = (root / "scenarios" / "train-trips.toml").read_text(encoding="utf-8")
    bad = text.replace('"{value:.0f} change of train"', '"{value:.2f} change of train"')
    assert bad != text
    path = Path(str(tmp_path)) / "trips.toml"
    path.write_text(bad, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_scenario(path)
    message = str(caught.value)
    assert "trips.toml" in message and "format_one" in message, message


@given(
    a=st.lists(st.floats(0.0, 1.0), min_size=4, max_size=4),
    b=st.lists(st.floats(0.0, 1.0), min_size=4, max_size=4),
)
def test_no_card_or_difference_says_one_in_the_plural(a: list[float], b: list[float]) -> None:
    from tradeoff.ask.queries import ClassifierProfile

    sc = scenario("train-trips")
    lows = np.array([s.range[0] for s in sc.attributes])
    highs = np.array([s.range[1] for s in sc.attributes])
    va = tuple(float(x) for x in lows + np.array(a) * (highs - lows))
    vb = tuple(float(x) for x in lows + np.array(b) * (highs - lows))
    left, right = ClassifierProfile((), (), va), ClassifierProfile((), (), vb)
    texts = [line.text + " " + line.delta for line in card_lines(sc, left, right)]
    texts += difference_words(sc, va, vb)
    for text in texts:
        assert not ONE_PLURAL.search(text), text


def test_the_trade_off_sentences_take_the_singular() -> None:
    sc = scenario("train-trips")
    # weights that make one change, and one step of comfort, worth ƒ10
    said = " ".join(t.text for t in tradeoffs(sc, [1.0, 0.5, 10.0, 10.0], None))
    assert "as much to you as 1 change." in said and "1 step of discomfort" in said, said
    assert not ONE_PLURAL.search(said), said
